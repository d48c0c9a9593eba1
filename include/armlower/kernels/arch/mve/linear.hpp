/// @file armlower/kernels/arch/mve/linear.hpp
/// Arm Helium (MVE, Cortex-M55/M85) paths of the fused linear kernels:
/// `detail::linear_s8_mve(const linear_s8_args&)` and `detail::linear_s16_mve(const linear_s16_args&)`.
///
/// Contract: exactly `kernels/linear_args.hpp` — called only with arguments that passed `validate`,
/// writes the same bytes as `detail::linear_s8_generic` / `linear_s16_generic` for every valid
/// argument set (kernel_sum or bias, per-tensor or per-channel, any cols/rows/batches, both roundings).
/// Semantics: CMSIS-NN `arm_nn_vec_mat_mult_t_s8` / `arm_nn_vec_mat_mult_t_s16` (CMSIS-NN v7, with `arm_nn_requantize`)
/// with armlower's exact accumulators.
///
/// Structure (per batch, per tile of 4 output rows): one assembly loop computes the four int32 (s8) or
/// int64 (s16) dot products (`detail/dot.hpp`, 4 rows × 32 or 16 columns per step, tail-predicated
/// remainder), then the tile is requantized:
/// - s8: with vector instructions (`VQRDMULH`/`VQDMULH` + rounding `VRSHL` + the CMSIS-NN
///   round-half-away fix-up for double rounding, `VQADD` of output_offset, `VMAX`/`VMIN`, narrowing
///   store) when that is provably exact — shift ≤ 0 for all four rows (no CMSIS left shift) and the
///   accumulator fits int32 (|row constant| ≤ 2^29, |filter_offset·Σx| ≤ 2^28, |Σx·w| ≤ 2^30) —
///   and otherwise with the scalar `quant::requantize_exact` of the generic path.
/// - s16: per row `(acc·m16 + 2^(t−1)) >> t` with a 64-bit multiply and `SQRSHRL` (rounding shift of
///   a register pair), saturated to int32 with `SQSHLL #32`, clamped with `VMAX`/`VMIN`, `VSTRH.32`;
///   exact while |acc| < 2^47, which holds when every |bias| < 2^46 and cols < 2^24 — other argument
///   sets (never produced by TFLite/TOSA, whose bias is INT48) run the generic path.
/// Speed (QEMU executed instructions per MAC, 1024×1024, batch 1, kernel_sum given): see
/// `benchmarks/RESULTS.md` §Cortex-M55 instruction counts. Passing `kernel_sum` (CMSIS-NN's MVE
/// convention) is the fast form; with `bias` and a non-zero input_offset each tile first sums its
/// weight rows (≈ +0.13 instructions/MAC).
///
/// Compiled only when the target has integer MVE (`__ARM_FEATURE_MVE & 1`); elsewhere this header
/// declares nothing.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include <arm_mve.h>

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/mve/detail/dot.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/quant/multiplier.hpp>
#include <armlower/quant/requantize.hpp>

namespace armlower::kernels::detail {

namespace mve {

/// |v| ≤ limit for an int64.
[[nodiscard]] constexpr bool abs_le(std::int64_t v, std::int64_t limit) noexcept { return v >= -limit && v <= limit; }

/// Vector requantization of four int32 accumulators with shift ≤ 0 in every lane (exact, see file
/// comment): returns clamp(requantize_exact(acc) + output_offset).
template <quant::rounding Mode>
[[nodiscard]] inline int32x4_t requantize4_s8(int32x4_t acc, int32x4_t mult, int32x4_t shift, std::int32_t output_offset,
                                              int32x4_t act_min, int32x4_t act_max) noexcept {
  int32x4_t t;
  if constexpr (Mode == quant::rounding::double_round) {
    // SRDHM, then divide by 2^-shift rounding half away from zero (CMSIS-NN arm_divide_by_power_of_two_mve).
    t = vqrdmulhq_s32(acc, mult);
    t = vqaddq_s32(t, vshrq_n_s32(vandq_s32(t, shift), 31));
  } else {
    // One rounding: floor(acc·m / 2^31) then a rounding shift; with shift = 0 the doubling multiply rounds.
    t = vpselq_s32(vqrdmulhq_s32(acc, mult), vqdmulhq_s32(acc, mult), vcmpeqq_n_s32(shift, 0));
  }
  t = vrshlq_s32(t, shift);
  t = vqaddq_n_s32(t, output_offset);
  return vminq_s32(vmaxq_s32(t, act_min), act_max);
}

/// The common CMSIS-NN/TFLite configuration — kernel_sum given, per-tensor shift ≤ 0, every
/// |kernel_sum| ≤ 2^29 and |filter_offset·Σx| ≤ 2^28 (checked by the caller) — with vector
/// requantization of every 4-row tile and no per-tile checks; rows % 4 run the scalar tail.
template <quant::rounding Mode>
inline void linear_s8_batch_fast(const linear_s8_args& a, const std::int8_t* x, std::int8_t* y, std::int32_t cb) noexcept {
  const std::int32_t cols = a.cols;
  const int32x4_t act_min = vdupq_n_s32(a.activation_min), act_max = vdupq_n_s32(a.activation_max);
  const int32x4_t mult = vdupq_n_s32(a.multiplier[0]), shift = vdupq_n_s32(a.shift[0]);
  const std::int32_t* ks = a.kernel_sum;
  const std::int8_t* w = a.weights;
  const std::int32_t tiles = a.rows / 4;
  for (std::int32_t t = 0; t < tiles; ++t) {
    const int32x4_t acc = vaddq_n_s32(vaddq_s32(dot4_s8(x, w, cols, cols), vldrwq_s32(ks)), cb);
    vstrbq_s32(y, requantize4_s8<Mode>(acc, mult, shift, a.output_offset, act_min, act_max));
    w += 4 * static_cast<std::ptrdiff_t>(cols);
    ks += 4;
    y += 4;
  }
  for (std::int32_t r = tiles * 4; r < a.rows; ++r) {
    const std::int32_t d = dot1_s8(x, a.weights + static_cast<std::ptrdiff_t>(r) * cols, cols, 0);
    y[r - tiles * 4] = requantize_row_s8(a, r, static_cast<std::int64_t>(a.kernel_sum[r]) + d + cb);
  }
}

/// The contract's row constant when kernel_sum is null: bias + input_offset·(Σw + cols·filter_offset),
/// with Σw summed by `VADDVA` (the generic `row_constant_s8` sums bytes one by one).
[[nodiscard]] inline std::int64_t row_constant(const linear_s8_args& a, std::int32_t r) noexcept {
  std::int64_t c = a.bias != nullptr ? a.bias[r] : 0;
  if (a.input_offset != 0) {
    const std::int64_t wsum = sum_s8(a.weights + static_cast<std::ptrdiff_t>(r) * a.cols, a.cols);
    c += static_cast<std::int64_t>(a.input_offset) * (wsum + static_cast<std::int64_t>(a.cols) * a.filter_offset);
  }
  return c;
}

/// All rows of one batch in the general form (any kernel_sum/bias/offsets, per-channel): input x
/// [cols], output y [rows], cb = filter_offset·Σx. Each 4-row tile is requantized with vectors when
/// that is exact (all four shifts ≤ 0, |row constant| ≤ 2^29, |cb| ≤ 2^28), else row by row with the
/// generic `requantize_row_s8`.
template <quant::rounding Mode>
inline void linear_s8_batch(const linear_s8_args& a, const std::int8_t* x, std::int8_t* y, std::int64_t cb) noexcept {
  const std::int32_t cols = a.cols;
  const bool cb_small = abs_le(cb, std::int64_t{1} << 28);
  const int32x4_t act_min = vdupq_n_s32(a.activation_min), act_max = vdupq_n_s32(a.activation_max);
  int32x4_t mult = vdupq_n_s32(a.multiplier[0]), shift = vdupq_n_s32(a.shift[0]);
  const bool tensor_vec = !a.per_channel && a.shift[0] <= 0;

  std::int32_t r = 0;
  for (; r + 4 <= a.rows; r += 4) {
    const std::int8_t* w = a.weights + static_cast<std::ptrdiff_t>(r) * cols;
    const int32x4_t d = dot4_s8(x, w, cols, cols);
    bool vec = cb_small;
    if (a.per_channel) {
      shift = vldrwq_s32(a.shift + r);
      mult = vldrwq_s32(a.multiplier + r);
      vec = vec && vmaxvq_s32(INT32_MIN, shift) <= 0;
    } else {
      vec = vec && tensor_vec;
    }
    std::int64_t rc[4];
    int32x4_t rcv;
    if (a.kernel_sum != nullptr) {
      rcv = vldrwq_s32(a.kernel_sum + r);
      vec = vec && vmaxavq_s32(0u, rcv) <= (1u << 29);
      if (!vec) {
        for (int i = 0; i < 4; ++i) rc[i] = a.kernel_sum[r + i];
      }
    } else {
      std::int32_t rc32[4];
      for (int i = 0; i < 4; ++i) {
        rc[i] = row_constant(a, r + i);
        vec = vec && abs_le(rc[i], std::int64_t{1} << 29);
        rc32[i] = static_cast<std::int32_t>(rc[i]);
      }
      rcv = vldrwq_s32(rc32);
    }
    if (vec) {
      const int32x4_t acc = vaddq_n_s32(vaddq_s32(d, rcv), static_cast<std::int32_t>(cb));
      vstrbq_s32(y + r, requantize4_s8<Mode>(acc, mult, shift, a.output_offset, act_min, act_max));
    } else {
      y[r + 0] = requantize_row_s8(a, r + 0, rc[0] + vgetq_lane_s32(d, 0) + cb);
      y[r + 1] = requantize_row_s8(a, r + 1, rc[1] + vgetq_lane_s32(d, 1) + cb);
      y[r + 2] = requantize_row_s8(a, r + 2, rc[2] + vgetq_lane_s32(d, 2) + cb);
      y[r + 3] = requantize_row_s8(a, r + 3, rc[3] + vgetq_lane_s32(d, 3) + cb);
    }
  }
  for (; r < a.rows; ++r) {
    const std::int32_t d = dot1_s8(x, a.weights + static_cast<std::ptrdiff_t>(r) * cols, cols, 0);
    const std::int64_t rc = a.kernel_sum != nullptr ? a.kernel_sum[r] : row_constant(a, r);
    y[r] = requantize_row_s8(a, r, rc + d + cb);
  }
}

}  // namespace mve

/// Helium fused s8 × s8 linear (contract: `kernels/linear_args.hpp`). Preconditions: `validate(a) == ok`.
inline void linear_s8_mve(const linear_s8_args& a) noexcept {
  if (a.cols > 65536) {  // int32 dot products would need splitting; no model has such rows
    linear_s8_generic(a);
    return;
  }
  // Fast form possible? (kernel_sum, per-tensor, shift ≤ 0, all |kernel_sum| ≤ 2^29.)
  bool fast = a.kernel_sum != nullptr && !a.per_channel && a.shift[0] <= 0;
  if (fast) {
    std::uint32_t max_ks = 0;
    std::int32_t r = 0;
    for (; r + 4 <= a.rows; r += 4) max_ks = vmaxavq_s32(max_ks, vldrwq_s32(a.kernel_sum + r));
    for (; r < a.rows; ++r) fast = fast && mve::abs_le(a.kernel_sum[r], std::int64_t{1} << 29);
    fast = fast && max_ks <= (1u << 29);
  }
  const bool double_round = a.rounding == quant::rounding::double_round;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b) * a.cols;
    std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows;
    const std::int64_t cb = a.filter_offset != 0 ? static_cast<std::int64_t>(a.filter_offset) * mve::sum_s8(x, a.cols) : 0;
    if (fast && mve::abs_le(cb, std::int64_t{1} << 28)) {
      if (double_round) {
        mve::linear_s8_batch_fast<quant::rounding::double_round>(a, x, y, static_cast<std::int32_t>(cb));
      } else {
        mve::linear_s8_batch_fast<quant::rounding::single_round>(a, x, y, static_cast<std::int32_t>(cb));
      }
    } else if (double_round) {
      mve::linear_s8_batch<quant::rounding::double_round>(a, x, y, cb);
    } else {
      mve::linear_s8_batch<quant::rounding::single_round>(a, x, y, cb);
    }
  }
}

/// Helium fused s16 × s8 linear (contract: `kernels/linear_args.hpp`). Preconditions: `validate(a) == ok`.
inline void linear_s16_mve(const linear_s16_args& a) noexcept {
  // Fast (exact) path condition: every |bias| < 2^46 and cols < 2^24, so |acc| < 2^47. The bias scan
  // de-interleaves 4 int64 into low/high words (VLD2) and takes the largest |high word| (VMAXAV).
  bool fast = a.cols < (1 << 24);
  if (a.bias != nullptr && fast) {
    const std::int32_t* words = reinterpret_cast<const std::int32_t*>(a.bias);
    std::uint32_t max_hi = 0;
    std::int32_t r = 0;
    for (; r + 4 <= a.rows; r += 4) max_hi = vmaxavq_s32(max_hi, vld2q_s32(words + 2 * r).val[1]);
    for (; r < a.rows; ++r) fast = fast && mve::abs_le(a.bias[r], std::int64_t{1} << 46);
    fast = fast && max_hi < (1u << 14);  // high word in (−2^14, 2^14): |bias| < 2^46
  }
  if (!fast) {
    linear_s16_generic(a);
    return;
  }
  const std::int32_t cols = a.cols;
  mve::s16_tile tile;
  tile.cols = cols;
  tile.act_min = a.activation_min;
  tile.act_max = a.activation_max;
  const auto set_row = [&](int i, std::int32_t r) {
    tile.m16_t[2 * i] = static_cast<std::uint32_t>(quant::reduce_multiplier(a.multiplier[r]));
    tile.m16_t[2 * i + 1] = static_cast<std::uint32_t>(15 - a.shift[r]);
  };
  if (!a.per_channel) {
    for (int i = 0; i < 4; ++i) set_row(i, 0);
  }
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int16_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows;
    tile.x = x;
    std::int32_t r = 0;
    for (; r + 4 <= a.rows; r += 4) {
      tile.w = a.weights + static_cast<std::ptrdiff_t>(r) * cols;
      tile.bias = a.bias != nullptr ? a.bias + r : nullptr;
      tile.out = y + r;
      if (a.per_channel) {
        for (int i = 0; i < 4; ++i) set_row(i, r + i);
      }
      mve::linear_s16_tile(&tile);
    }
    for (; r < a.rows; ++r) {
      const std::int64_t acc = mve::dot1_s16(x, a.weights + static_cast<std::ptrdiff_t>(r) * cols, cols,
                                             a.bias != nullptr ? a.bias[r] : 0);
      y[r] = requantize_row_s16(a, r, acc);
    }
  }
}

}  // namespace armlower::kernels::detail

#endif  // __ARM_FEATURE_MVE
