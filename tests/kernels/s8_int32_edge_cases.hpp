// Shared by the AVX2 s8 kernel tests (linear_packed.test.cpp, linear_rowpairs.test.cpp): layers whose
// sums c + Σ x·w + filter_offset·Σ x leave int32 while every shift is ≤ −1 — kernel_sum at the ends of
// int32, all operands −128 — where the kernels must not take their int32-lane requantization.
#pragma once

#include <armlower/kernels/linear.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace armlower_test {

/// Calls check(a) for layers of K 16, 64, 1000 and batch 1, 3, 8 (24 channels: kernel_sum INT32_MAX − r,
/// INT32_MIN + r or small, by channel), and of K 64, batch 1 with one channel at INT32_MAX − r — each of the 24
/// in turn, so each lane of a vector scan of the row constants —, per-tensor and per-channel, both roundings;
/// `a` points into storage that lives for the call.
template <class Check>
void for_each_s8_int32_edge_case(Check&& check) {
  std::mt19937_64 g(149);
  auto uniform = [&g](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  constexpr int rows = 24;
  // edge: −1 for the layers with edge channels by position (i % 3), else the one edge channel
  const auto run = [&](int cols, int batches, int edge) {
    std::vector<std::int8_t> x(static_cast<std::size_t>(batches) * cols, std::int8_t{-128}),
        w(static_cast<std::size_t>(rows) * cols, std::int8_t{-128});
    std::vector<std::int32_t> ks(rows), mult(rows), shift(rows);
    for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i) {
      const auto r = static_cast<std::int32_t>(i);
      const int kind = edge < 0 ? static_cast<int>(i % 3) : r == edge ? 0 : 2;
      ks[i] = kind == 0 ? INT32_MAX - r : kind == 1 ? INT32_MIN + r : uniform(-1000, 1000);
      mult[i] = uniform(1 << 30, INT32_MAX);
      shift[i] = uniform(-31, -1);
    }
    armlower::kernels::linear_s8_args a;
    a.input = x.data();
    a.weights = w.data();
    a.kernel_sum = ks.data();
    a.batches = batches;
    a.cols = cols;
    a.rows = rows;
    a.filter_offset = uniform(-255, 255);
    a.output_offset = uniform(-128, 127);
    a.multiplier = mult.data();
    a.shift = shift.data();
    for (const bool per_channel : {false, true}) {
      a.per_channel = per_channel;
      for (const auto rnd : {armlower::quant::rounding::single_round, armlower::quant::rounding::double_round}) {
        a.rounding = rnd;
        check(a);
      }
    }
  };
  for (const int cols : {16, 64, 1000}) {
    for (const int batches : {1, 3, 8}) run(cols, batches, -1);
  }
  for (int edge = 0; edge < rows; ++edge) run(64, 1, edge);
}

}  // namespace armlower_test
