/// @file tests/tool/fixtures.hpp
/// Small `.tosa` and `.npy` files for the tool's process tests, written with armlower's own
/// writer (armlower::serialize) and .npy formatter.
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/io/npy.hpp>
#include <armlower/run/value.hpp>
#include <armlower/serialize/writer.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace armlower_test {

namespace al = armlower;

/// A TOSA 1.0 FP32 graph: input `x` [n], outputs `y_name` = ADD(x, x) and `z` = ADD(x, k) with
/// the constant k = 0 [n]. Written to `p`.
inline void write_two_output_fp32(const std::filesystem::path& p, const std::string& y_name, std::int32_t n) {
  using al::dtype::id;
  al::graph::graph g;
  g.add(al::graph::tensor{"x", id::fp32, {n}, false, {}, std::nullopt});
  g.add(al::graph::tensor{y_name, id::fp32, {n}, false, {}, std::nullopt});
  g.add(al::graph::tensor{"z", id::fp32, {n}, false, {}, std::nullopt});
  g.add(al::run::to_constant(al::run::from_reals(id::fp32, {n}, std::vector<float>(static_cast<std::size_t>(n), 0.0f)), "k"));
  g.operators.push_back(al::graph::operation{al::tosa::op::const_, {}, {"k"}, {}});
  g.operators.push_back(al::graph::operation{al::tosa::op::add, {"x", "x"}, {y_name}, {}});
  g.operators.push_back(al::graph::operation{al::tosa::op::add, {"x", "k"}, {"z"}, {}});
  g.inputs = {"x"};
  g.outputs = {y_name, "z"};
  const auto bytes = al::serialize::write(g, al::serialize::format::tosa_1_0).value();
  (void)al::serialize::write_file(p, bytes).value();
}

/// A TOSA 1.0 FP32 graph with one input `x` [1] and one output `y` [n] = ADD(x, k), k = 0 [n]:
/// its output .npy is 4·n bytes (a large write for the signal tests).
inline void write_broadcast_fp32(const std::filesystem::path& p, std::int32_t n) {
  using al::dtype::id;
  al::graph::graph g;
  g.add(al::graph::tensor{"x", id::fp32, {1}, false, {}, std::nullopt});
  g.add(al::graph::tensor{"y", id::fp32, {n}, false, {}, std::nullopt});
  g.add(al::run::to_constant(al::run::from_reals(id::fp32, {n}, std::vector<float>(static_cast<std::size_t>(n), 0.0f)), "k"));
  g.operators.push_back(al::graph::operation{al::tosa::op::const_, {}, {"k"}, {}});
  g.operators.push_back(al::graph::operation{al::tosa::op::add, {"x", "k"}, {"y"}, {}});
  g.inputs = {"x"};
  g.outputs = {"y"};
  const auto bytes = al::serialize::write(g, al::serialize::format::tosa_1_0).value();
  (void)al::serialize::write_file(p, bytes).value();
}

/// A float32 .npy of `v` with shape `shape` (default [v.size()]).
inline void write_f32_npy(const std::filesystem::path& p, const std::vector<float>& v,
                          std::vector<std::int32_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<std::int32_t>(v.size())};
  al::io::npy_array a{al::dtype::id::fp32, shape, al::run::encode(al::run::from_reals(al::dtype::id::fp32, shape, v))};
  const auto img = al::io::format_npy(a).value();
  (void)al::serialize::write_file(p, img).value();
}

}  // namespace armlower_test
