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

}  // namespace run_test
