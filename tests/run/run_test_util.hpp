// Helpers for the interpreter tests: build one-op TOSA graphs and run them.
#pragma once

#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/run.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace run_test {

using armlower::dtype::id;
namespace graph = armlower::graph;
namespace run = armlower::run;
namespace tosa = armlower::tosa;

/// A graph tensor without payload.
inline graph::tensor tensor(std::string name, id t, std::vector<std::int32_t> shape) {
  return graph::tensor{std::move(name), t, std::move(shape), false, {}, std::nullopt};
}

/// A small graph under construction.
struct builder {
  graph::graph g;

  /// Declares a graph input.
  std::string input(std::string name, id t, std::vector<std::int32_t> shape) {
    g.add(tensor(name, t, std::move(shape)));
    g.inputs.push_back(name);
    return name;
  }
  /// Declares an intermediate/result tensor.
  std::string declare(std::string name, id t, std::vector<std::int32_t> shape) {
    g.add(tensor(name, t, std::move(shape)));
    return name;
  }
  /// Adds a constant (with a CONST operator producing it) holding `v`.
  std::string constant(std::string name, const run::value& v) {
    g.add(run::to_constant(v, name));
    g.operators.push_back(graph::operation{tosa::op::const_, {}, {name}, {}});
    return name;
  }
  std::string ints(std::string name, id t, std::vector<std::int32_t> shape, std::vector<std::int64_t> v) {
    return constant(std::move(name), run::from_ints(t, std::move(shape), std::move(v)));
  }
  std::string shape_const(std::string name, std::vector<std::int64_t> dims) {
    const auto n = static_cast<std::int32_t>(dims.size());
    return ints(std::move(name), id::shape, {n}, std::move(dims));
  }
  /// Adds an operator.
  void op(tosa::op o, std::vector<std::string> in, std::vector<std::string> out, graph::attribute a = {}) {
    g.operators.push_back(graph::operation{o, std::move(in), std::move(out), std::move(a)});
  }
  void output(std::string name) { g.outputs.push_back(std::move(name)); }
};

/// Uniform random integers in [lo, hi].
inline std::vector<std::int64_t> random_ints(std::mt19937_64& rng, std::size_t n, std::int64_t lo, std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

/// A linear layer as armlower lowers it for TOSA: x [1, K] → RESHAPE [1,1,1,K] → CONV2D 1×1 (24 channels,
/// int8 weights) → RESCALE → CLAMP (fused ReLU) → RESHAPE [1, 24]; int8 (`a16` false) or a16w8 (INT16
/// activations, INT48 accumulator).
inline builder lowered_linear_graph(std::mt19937_64& rng, bool a16) {
  const id in_t = a16 ? id::i16 : id::i8, acc_t = a16 ? id::i48 : id::i32;
  constexpr int k = 40, n = 24;
  builder g;
  g.input("x", in_t, {1, k});
  g.shape_const("s4", {1, 1, 1, k});
  g.declare("x4", in_t, {1, 1, 1, k});
  g.op(tosa::op::reshape, {"x", "s4"}, {"x4"});
  g.constant("w", run::from_ints(id::i8, {n, 1, 1, k}, random_ints(rng, std::size_t{n} * k, -128, 127)));
  g.constant("b", run::from_ints(acc_t, {n}, random_ints(rng, n, -5000, 5000)));
  g.ints("izp", in_t, {1}, {a16 ? 0 : -3});
  g.ints("wzp", id::i8, {1}, {0});
  g.declare("y", acc_t, {1, 1, 1, n});
  g.op(tosa::op::conv2d, {"x4", "w", "b", "izp", "wzp"}, {"y"}, graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, acc_t, false});
  if (a16) g.ints("m", id::i16, {1}, {16384});
  else g.ints("m", id::i32, {1}, {1518500250});
  g.ints("sh", id::i8, {1}, {a16 ? 26 : 40});
  g.ints("yzp", acc_t, {1}, {0});
  g.ints("zzp", in_t, {1}, {a16 ? 0 : -128});
  g.declare("z", in_t, {1, 1, 1, n});
  g.op(tosa::op::rescale, {"y", "m", "sh", "yzp", "zzp"}, {"z"},
       graph::rescale_attr{!a16, tosa::rounding_mode::single_round, false, false, false});
  g.declare("zr", in_t, {1, 1, 1, n});
  g.op(tosa::op::clamp, {"z"}, {"zr"}, graph::clamp_attr{a16 ? 0.0 : -128.0, a16 ? 32767.0 : 127.0, graph::nan_mode::propagate});
  g.shape_const("s2", {1, n});
  g.declare("out", in_t, {1, n});
  g.op(tosa::op::reshape, {"zr", "s2"}, {"out"});
  g.output("out");
  return g;
}

}  // namespace run_test
