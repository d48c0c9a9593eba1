// Cortex-M55 instruction-count benchmark of the fused linear kernels (run by run_icount.sh with
// /work/shared/tools/m55-icount, which counts the instructions executed between
// armlower_bench_begin() and armlower_bench_end()).
//
// Build-time selection: ARMLOWER_BENCH_S16 (s16×s8, else s8×s8) and ARMLOWER_BENCH_PATH =
// 0 generic, 1 DSP, 2 MVE, 3 MVE with weights packed by pack_weights_s8 (s8 only; packed in main(),
// outside the measured pair), 4 and 5: the per-tensor plan instantiations (`per_tensor_features`) of
// DSP and MVE (packed for s8). Each image measures, in this order, batch 1 then batch 8 of
// K×N = 64×64, 256×256, 1024×1024, 4000×4: 8 begin/end pairs, one kernel call each
// (ARMLOWER_BENCH_QUICK: 1024×1024 batch 1 only; ARMLOWER_BENCH_SMALL: 64×64 and 256×256, batch 1 then 8;
// ARMLOWER_BENCH_ROWS: K = 256 with N = 1, 4, 7, 8, 10, 12, 14, 16, 20, 24, then 16×16, batch 1 — which
// layers a Cortex-M plan should pack).
// Operands as in the CMSIS-NN v7 measurement that run_icount.sh prints next to these counts
// (CMSIS-NN's own fully_connected test parameters): s8 per-tensor with kernel_sum precomputed (input_offset 128,
// filter_offset 0; the DSP path gets bias + input_offset instead, as CMSIS-NN's DSP build does, and so
// does every path with ARMLOWER_BENCH_BIAS);
// s16 per-tensor with int64 bias. Weights live in the 4 MiB SRAM (.sram.bss), filled by main().
#include <cstdint>
#include <cstdio>

#include <armlower/kernels/arch/dsp/linear.hpp>
#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/mve/linear.hpp>
#include <armlower/kernels/linear.hpp>

#include "armlower_firmware.hpp"

namespace {
namespace k = armlower::kernels;

struct shape {
  std::int32_t cols, rows;
};
#if defined(ARMLOWER_BENCH_QUICK)  // one pair: 1024×1024, batch 1
constexpr shape shapes[] = {{1024, 1024}};
constexpr std::int32_t batch_sizes[] = {1};
#elif defined(ARMLOWER_BENCH_ROWS)  // few output rows (which layers a plan should pack), batch 1
constexpr shape shapes[] = {{256, 1}, {256, 4}, {256, 7}, {256, 8}, {256, 10}, {256, 12}, {256, 14}, {256, 16}, {256, 20}, {256, 24}, {16, 16}};
constexpr std::int32_t batch_sizes[] = {1};
#elif defined(ARMLOWER_BENCH_SMALL)
constexpr shape shapes[] = {{64, 64}, {256, 256}};
constexpr std::int32_t batch_sizes[] = {1, 8};
#else
constexpr shape shapes[] = {{64, 64}, {256, 256}, {1024, 1024}, {4000, 4}};
constexpr std::int32_t batch_sizes[] = {1, 8};
#endif
constexpr std::int32_t max_weights = 1024 * 1024, max_input = 8 * 4000, max_output = 8 * 1024;

__attribute__((section(".sram.bss"))) std::int8_t weights[max_weights];
__attribute__((section(".sram.bss"))) std::int16_t input16[max_input];
__attribute__((section(".sram.bss"))) std::int8_t input8[max_input];
#if defined(ARMLOWER_BENCH_S16)
std::int64_t bias64[1024];
std::int16_t out16[max_output];
#else
std::int32_t kernel_sum[1024], bias32[1024];
std::int8_t out8[max_output];
#endif
std::int32_t multiplier, shift;
#if (ARMLOWER_BENCH_PATH == 3 || ARMLOWER_BENCH_PATH == 5) && !defined(ARMLOWER_BENCH_S16)
__attribute__((section(".sram.bss"))) std::int8_t packed[1024 * 1024 + 8 * 4000];
#endif

std::uint32_t rng_state = 12345u;
std::uint32_t next() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

#ifndef ARMLOWER_BENCH_PATH
#define ARMLOWER_BENCH_PATH 0
#endif

#if defined(ARMLOWER_BENCH_S16)
__attribute__((noinline)) void call(const k::linear_s16_args& a) {
#if ARMLOWER_BENCH_PATH == 5
  k::detail::linear_s16_mve<k::per_tensor_features>(a);
#elif ARMLOWER_BENCH_PATH == 4
  k::detail::linear_s16_dsp<k::per_tensor_features>(a);
#elif ARMLOWER_BENCH_PATH == 2 || ARMLOWER_BENCH_PATH == 3
  k::detail::linear_s16_mve(a);
#elif ARMLOWER_BENCH_PATH == 1
  k::detail::linear_s16_dsp(a);
#else
  k::detail::linear_s16_generic(a);
#endif
}
#else
__attribute__((noinline)) void call(const k::linear_s8_args& a) {
#if ARMLOWER_BENCH_PATH == 5
  k::detail::linear_s8_packed_mve<k::per_tensor_features>(a, packed);
#elif ARMLOWER_BENCH_PATH == 4
  k::detail::linear_s8_dsp<k::per_tensor_features>(a);
#elif ARMLOWER_BENCH_PATH == 3
  k::detail::linear_s8_packed_mve(a, packed);
#elif ARMLOWER_BENCH_PATH == 2
  k::detail::linear_s8_mve(a);
#elif ARMLOWER_BENCH_PATH == 1
  k::detail::linear_s8_dsp(a);
#else
  k::detail::linear_s8_generic(a);
#endif
}
#endif
}  // namespace

int main() {
  for (auto& w : weights) w = static_cast<std::int8_t>(next());
  for (auto& x : input8) x = static_cast<std::int8_t>(next());
  for (auto& x : input16) x = static_cast<std::int16_t>(next());
  std::uint32_t checksum = 0;
  for (const std::int32_t batches : batch_sizes) {
    for (const shape s : shapes) {
#if defined(ARMLOWER_BENCH_S16)
      multiplier = 2143068030;  // CMSIS-NN fully_connected_int16
      shift = -10;
      for (int r = 0; r < s.rows; ++r) bias64[r] = static_cast<std::int32_t>(next()) >> 8;
      k::linear_s16_args a;
      a.input = input16;
      a.weights = weights;
      a.bias = bias64;
      a.output = out16;
      a.batches = batches;
      a.cols = s.cols;
      a.rows = s.rows;
      a.multiplier = &multiplier;
      a.shift = &shift;
      armlower_bench_begin();
      call(a);
      armlower_bench_end();
      for (int i = 0; i < batches * s.rows; ++i) checksum = checksum * 31u + static_cast<std::uint16_t>(out16[i]);
#else
      multiplier = 1342580370;  // CMSIS-NN fully_connected
      shift = -9;
      k::linear_s8_args a;
      a.input = input8;
      a.weights = weights;
      a.input_offset = 128;
      a.output_offset = -102;
      for (int r = 0; r < s.rows; ++r) {
        bias32[r] = static_cast<std::int32_t>(next()) >> 12;
        std::int32_t wsum = 0;
        for (int c = 0; c < s.cols; ++c) wsum += weights[r * s.cols + c];
        kernel_sum[r] = bias32[r] + a.input_offset * wsum;
      }
#if ARMLOWER_BENCH_PATH == 1 || ARMLOWER_BENCH_PATH == 4 || defined(ARMLOWER_BENCH_BIAS)  // DSP convention (or forced)
      a.bias = bias32;
#else
      a.kernel_sum = kernel_sum;
#endif
      a.output = out8;
      a.batches = batches;
      a.cols = s.cols;
      a.rows = s.rows;
      a.multiplier = &multiplier;
      a.shift = &shift;
#if ARMLOWER_BENCH_PATH == 3 || ARMLOWER_BENCH_PATH == 5
      if (k::pack_weights_s8(weights, s.rows, s.cols, packed, sizeof packed) != k::status::ok) return 1;
#endif
      armlower_bench_begin();
      call(a);
      armlower_bench_end();
      for (int i = 0; i < batches * s.rows; ++i) checksum = checksum * 31u + static_cast<std::uint8_t>(out8[i]);
#endif
    }
  }
  // Same checksum for every path of one dtype (bit-exact paths); printed for a quick cross-check.
  std::printf("checksum %08lx\n", static_cast<unsigned long>(checksum));
  return 0;
}
