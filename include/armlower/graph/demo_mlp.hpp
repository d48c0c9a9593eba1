/// @file armlower/graph/demo_mlp.hpp
/// The built-in model of `armlower demo`, for tests, examples and benchmarks that want the same
/// network: a float MLP 256 → 512 → 256 → 10 with ReLU after the first two layers, weights
/// N(0, 1/in_features) and biases N(0, 0.01) drawn from `std::mt19937(seed)` in layer order
/// (weights row-major [out_features][in_features], then biases), and inputs N(0, 1). Deterministic
/// for a seed with libstdc++ (`std::normal_distribution` is implementation-defined across
/// standard libraries). Hosted only.
#pragma once

#include <armlower/graph/builder.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace armlower::graph {

/// The demo MLP's three layers (see the file comment) for `seed` (`armlower demo` uses 2026).
[[nodiscard]] inline std::vector<mlp_layer> demo_mlp(unsigned seed) {
  std::mt19937 rng(seed);
  const std::int32_t dims[] = {256, 512, 256, 10};
  std::vector<mlp_layer> layers;
  for (int i = 0; i < 3; ++i) {
    mlp_layer l;
    l.in_features = dims[i];
    l.out_features = dims[i + 1];
    std::normal_distribution<float> w(0.0f, 1.0f / std::sqrt(static_cast<float>(dims[i])));
    std::normal_distribution<float> b(0.0f, 0.1f);
    l.weight.resize(static_cast<std::size_t>(dims[i]) * static_cast<std::size_t>(dims[i + 1]));
    for (auto& v : l.weight) v = w(rng);
    l.bias.resize(static_cast<std::size_t>(dims[i + 1]));
    for (auto& v : l.bias) v = b(rng);
    l.act = i < 2 ? activation::relu : activation::none;
    layers.push_back(std::move(l));
  }
  return layers;
}

/// `rows` × `n` input values N(0, 1) from `std::mt19937(seed)` (row-major [rows][n]).
[[nodiscard]] inline std::vector<float> demo_inputs(unsigned seed, std::size_t rows, std::size_t n) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(rows * n);
  for (auto& v : x) v = d(rng);
  return x;
}

}  // namespace armlower::graph
