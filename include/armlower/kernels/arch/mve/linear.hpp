/// @file armlower/kernels/arch/mve/linear.hpp
/// Arm Helium (MVE, Cortex-M55/M85) paths of the fused linear kernels:
/// `detail::linear_s8_mve<F>(const linear_s8_args&)` (row-major weights),
/// `detail::linear_s8_packed_mve<F>(const linear_s8_args&, packed)` (weights packed ahead of time by
/// `kernels::pack_weights_s8`; public entry `kernels::linear_s8_prepacked`) and
/// `detail::linear_s16_mve<F>(const linear_s16_args&)`. `F` is a `linear_features` set (default full
/// generality): a Cortex-M plan instantiates only its cases (the "plan mve" code size row).
///
/// Contract: exactly `kernels/linear_args.hpp` — called only with arguments that passed `validate`
/// (and `admits(F, a)`), writes the same bytes as `detail::linear_s8_generic` / `linear_s16_generic`
/// for every valid argument set (kernel_sum or bias, per-tensor or per-channel, any cols/rows/batches,
/// both roundings). Semantics: CMSIS-NN `arm_nn_vec_mat_mult_t_s8` / `arm_nn_vec_mat_mult_t_s16`
/// (CMSIS-NN v7, with `arm_nn_requantize`) with armlower's exact accumulators.
///
/// Structure (`detail/dot.hpp` holds the assembly):
/// - s8, row-major: per 4-row tile one assembly loop (64 columns per step, tail-predicated remainder)
///   computes four int32 dot products; the last rows % 4 are one predicated partial tile.
/// - s8, packed: 8-row groups, one weight stream (`dot8_s8_packed`, 0.137 instructions/MAC in the
///   loop); in the common per-tensor kernel_sum case every whole group runs in one assembly loop with
///   the requantization (`linear_s8_packed_run`).
/// - s8 requantization: with vector instructions (`VQRDMULH`/`VQDMULH` + rounding `VRSHL` + the
///   CMSIS-NN round-half-away fix-up for double rounding, `VQADD` of output_offset, `VMAX`/`VMIN`,
///   narrowing store) when that is provably exact — shift ≤ 0 for all four rows (no CMSIS left shift)
///   and the accumulator fits int32 (|row constant| ≤ 2^29, |filter_offset·Σx| ≤ 2^28, |Σx·w| ≤ 2^30)
///   — and otherwise (only compiled when `F` has `left_shift` or `wide`) with the scalar
///   `quant::requantize_exact` of the generic path.
/// - s16: 4-row tiles, 64-bit `VMLALDAVA` accumulators; per row `(acc·m16 + 2^(t−1)) >> t` with a
///   64-bit multiply and `SQRSHRL` (rounding shift of a register pair), saturated to int32 with
///   `SQSHLL #32`, clamped with `VMAX`/`VMIN`, `VSTRH.32`. Per tensor all tiles run in one assembly
///   loop (`linear_s16_run`, 64 columns per step); the last rows % 4 are an overlapping tile, fewer
///   than 4 rows a stride-0 tile per row. Exact while |acc| < 2^47, which holds when every
///   |bias| < 2^46 and cols < 2^24 — other argument sets (never produced by TFLite/TOSA, whose bias is
///   INT48) run the generic path.
/// Speed (QEMU executed instructions per MAC) and code size: `benchmarks/RESULTS.md` §Cortex-M55
/// instruction counts. Passing `kernel_sum` (CMSIS-NN's MVE convention) is the fast form; with `bias`
/// and a non-zero input_offset each tile first sums its weight rows (≈ +0.13 instructions/MAC).
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

/// The contract's row constant when kernel_sum is null: bias + input_offset·(Σw + cols·filter_offset),
/// with Σw summed by `VADDVA` (the generic `row_constant_s8` sums bytes one by one) from the row-major
/// `a.weights`, or with `Packed` from the `pack_weights_s8` layout at `packed` (`sum_s8_packed_row`;
/// `a.weights` unread).
template <bool Packed = false>
[[nodiscard]] inline std::int64_t row_constant(const linear_s8_args& a, std::int32_t r,
                                               [[maybe_unused]] const std::int8_t* packed = nullptr) noexcept {
  std::int64_t c = a.bias != nullptr ? a.bias[r] : 0;
  if (a.input_offset != 0) {
    std::int64_t wsum;
    if constexpr (Packed) {
      wsum = sum_s8_packed_row(packed + packed_row_offset_s8(r, a.cols),
                               static_cast<std::int32_t>((static_cast<std::uint32_t>(a.cols) + 15) / 16));
    } else {
      wsum = sum_s8(a.weights + static_cast<std::ptrdiff_t>(r) * a.cols, a.cols);
    }
    c += static_cast<std::int64_t>(a.input_offset) * (wsum + static_cast<std::int64_t>(a.cols) * a.filter_offset);
  }
  return c;
}

/// Requantization constants of one call (hoisted out of the tile loop); per-tensor values broadcast.
struct s8_requant {
  int32x4_t act_min;  ///< activation_min in every lane
  int32x4_t act_max;  ///< activation_max in every lane
  int32x4_t mult;     ///< multiplier[0] (per-channel tiles load their own)
  int32x4_t shift;    ///< shift[0]
  const std::int8_t* packed = nullptr;  ///< the weights in the `pack_weights_s8` layout (packed kernel), else null
};

/// Writes y[r .. r+n) (1 ≤ n ≤ 4) of one batch from the four dot products d (lane i = row r+i; lanes
/// ≥ n are ignored), adding the row constants and cb = filter_offset·Σx. Vector requantization
/// (`requantize4_s8`) when exact — every shift ≤ 0, |row constant| ≤ 2^29, |cb| ≤ 2^28 (`cb_small`) —
/// else row by row with the generic `requantize_row_s8`; only the cases `F` admits are compiled
/// (`linear_features`: with `left_shift` and `wide` false the scalar fallback is not instantiated).
/// Partial tiles use `VCTP.32`-predicated loads and stores, so nothing beyond row `rows` is touched;
/// `Full` (n = 4 known at compile time) drops the predication. `Packed`: the weights are in the
/// `pack_weights_s8` layout at `q.packed` (for the row constants without kernel_sum), else row-major `a.weights`.
template <quant::rounding Mode, linear_features F, bool Full = false, bool Packed = false>
inline void finish_s8(const linear_s8_args& a, const s8_requant& q, std::int32_t r, std::int32_t n, int32x4_t d,
                      std::int32_t cb32, [[maybe_unused]] std::int64_t cb, [[maybe_unused]] bool cb_small,
                      std::int8_t* y) noexcept {
  constexpr bool fallback = F.wide || F.left_shift;
  if constexpr (Full) n = 4;
  const mve_pred16_t p = vctp32q(static_cast<std::uint32_t>(n));
  const auto load = [&](const std::int32_t* v) { return Full ? vldrwq_s32(v) : vldrwq_z_s32(v, p); };
  int32x4_t mult = q.mult, shift = q.shift;
  bool vec = true;
  if constexpr (F.per_channel) {
    if (a.per_channel) {
      mult = load(a.multiplier + r);
      shift = load(a.shift + r);
    }
  }
  if constexpr (F.left_shift) vec = vmaxvq_s32(INT32_MIN, shift) <= 0;
  if constexpr (F.wide) vec = vec && cb_small;
  [[maybe_unused]] std::int64_t rc[4] = {};
  int32x4_t rcv;
  if (a.kernel_sum != nullptr) {
    rcv = load(a.kernel_sum + r);
    if constexpr (F.wide) vec = vec && vmaxavq_s32(0u, rcv) <= (1u << 29);
    if constexpr (fallback) {
      for (std::int32_t i = 0; i < n; ++i) rc[i] = a.kernel_sum[r + i];
    }
  } else {
    std::int32_t rc32[4] = {};
    for (std::int32_t i = 0; i < n; ++i) {
      const std::int64_t c = row_constant<Packed>(a, r + i, q.packed);
      if constexpr (F.wide) vec = vec && abs_le(c, std::int64_t{1} << 29);
      if constexpr (fallback) rc[i] = c;
      rc32[i] = static_cast<std::int32_t>(c);
    }
    rcv = vldrwq_s32(rc32);
  }
  if (!fallback || vec) {
    const int32x4_t acc = vaddq_n_s32(vaddq_s32(d, rcv), cb32);
    const int32x4_t v = requantize4_s8<Mode>(acc, mult, shift, a.output_offset, q.act_min, q.act_max);
    if constexpr (Full) {
      vstrbq_s32(y + r, v);
    } else {
      vstrbq_p_s32(y + r, v, p);
    }
  } else if constexpr (fallback) {
    std::int32_t dd[4];
    vst1q_s32(dd, d);
    for (std::int32_t i = 0; i < n; ++i) y[r + i] = requantize_row_s8(a, r + i, rc[i] + dd[i] + cb);
  }
}

/// The argument block of the per-tensor assembly runs (`linear_s8_run4`, `linear_s8_packed_run`) for
/// rows [0, y_end − y) of one batch: input row `x`, weights from `w`, kernel_sum, requantization.
template <quant::rounding Mode>
[[nodiscard]] inline s8_packed_run per_tensor_run(const linear_s8_args& a, const std::int8_t* x, const std::int8_t* w,
                                                  std::int32_t cols, std::int8_t* y, std::int8_t* y_end,
                                                  std::int32_t cb32) noexcept {
  s8_packed_run run;
  run.x = x;
  run.w = w;
  run.cols = cols;
  run.kernel_sum = a.kernel_sum;
  run.y = y;
  run.y_end = y_end;
  run.multiplier = a.multiplier[0];
  run.shift = a.shift[0];
  run.act_min = a.activation_min;
  run.act_max = a.activation_max;
  run.output_offset = a.output_offset;
  run.cb = cb32;
  run.single_round = Mode == quant::rounding::single_round;
  return run;
}

/// All rows of one batch, row-major weights: input x [cols], output y [rows]. 4-row tiles
/// (`dot4_s8`), then the last rows % 4 one dot product each (`dot1_s8`) into one partial tile.
template <quant::rounding Mode, linear_features F>
inline void linear_s8_batch(const linear_s8_args& a, const s8_requant& q, const std::int8_t* x, std::int8_t* y,
                            std::int64_t cb) noexcept {
  const std::int32_t cols = a.cols;
  const bool cb_small = abs_le(cb, std::int64_t{1} << 28);
  const auto cb32 = static_cast<std::int32_t>(cb);
  const std::int8_t* w = a.weights;
  std::int32_t r = 0;
  if constexpr (!F.per_channel && !F.left_shift && !F.wide) {
    if (a.kernel_sum != nullptr && a.rows >= 4) {  // whole tiles: one assembly loop, requantization included
      s8_packed_run run = per_tensor_run<Mode>(a, x, w, cols, y, y + a.rows / 4 * 4, cb32);
      linear_s8_run4(&run);
      r = a.rows / 4 * 4;
      w = run.w;
    }
  }
  for (; r + 4 <= a.rows; r += 4) {
    finish_s8<Mode, F, true>(a, q, r, 4, dot4_s8(x, w, cols, cols), cb32, cb, cb_small, y);
    w += 4 * static_cast<std::ptrdiff_t>(cols);
  }
  if (r < a.rows) {
    std::int32_t dd[4] = {};
    for (std::int32_t i = 0; r + i < a.rows; ++i) dd[i] = dot1_s8(x, w + static_cast<std::ptrdiff_t>(i) * cols, cols, 0);
    finish_s8<Mode, F>(a, q, r, a.rows - r, vldrwq_s32(dd), cb32, cb, cb_small, y);
  }
}

/// All rows of one batch, weights packed by `pack_weights_s8` (groups of 8 rows, `dot8_s8_packed`);
/// the padding rows of the last group are computed and not stored.
template <quant::rounding Mode, linear_features F>
inline void linear_s8_packed_batch(const linear_s8_args& a, const s8_requant& q, const std::int8_t* packed,
                                   const std::int8_t* x, std::int8_t* y, std::int64_t cb) noexcept {
  const bool cb_small = abs_le(cb, std::int64_t{1} << 28);
  const auto cb32 = static_cast<std::int32_t>(cb);
  s8_packed_tile t;
  t.w = packed;
  t.cols = a.cols;
  std::int32_t r = 0;
  if constexpr (!F.per_channel && !F.left_shift && !F.wide) {
    if (a.kernel_sum != nullptr && a.rows >= 8) {  // whole groups: one assembly loop, requantization included
      s8_packed_run run = per_tensor_run<Mode>(a, x, packed, a.cols, y, y + a.rows / 8 * 8, cb32);
      linear_s8_packed_run(&run);
      t.w = run.w;
      r = a.rows / 8 * 8;
    }
  }
  for (; r < a.rows; r += 8) {
    t.x = x;
    vst1q_s32(t.acc, vdupq_n_s32(0));
    vst1q_s32(t.acc + 4, vdupq_n_s32(0));
    dot8_s8_packed(&t);
    const std::int32_t left = a.rows - r;
    finish_s8<Mode, F, false, true>(a, q, r, left < 4 ? left : 4, vld1q_s32(t.acc), cb32, cb, cb_small, y);
    if (left > 4) {
      finish_s8<Mode, F, false, true>(a, q, r + 4, left < 8 ? left - 4 : 4, vld1q_s32(t.acc + 4), cb32, cb, cb_small, y);
    }
  }
}

/// The features of the common CMSIS-NN/TFLite call within `F`: per tensor, shift ≤ 0, bounded
/// kernel_sum and cb — no per-tile checks, no scalar fallback.
[[nodiscard]] constexpr linear_features narrowed(linear_features f) noexcept {
  f.per_channel = false;
  f.left_shift = false;
  f.wide = false;
  return f;
}

/// Shared driver of the row-major and packed s8 kernels: per batch, picks the narrowed instantiation
/// when the call is within it (kernel_sum given, per tensor, shift ≤ 0, |kernel_sum| ≤ 2^29,
/// |filter_offset·Σx| ≤ 2^28), else the general one; `Batch` runs one batch. `packed`: the packed
/// kernel's weights (`s8_requant::packed`), null for the row-major one.
template <linear_features F, class Batch>
inline void linear_s8_drive(const linear_s8_args& a, Batch batch, const std::int8_t* packed = nullptr) noexcept {
  constexpr linear_features N = narrowed(F);
  bool narrow = !F.per_channel && !F.left_shift && !F.wide;
  if constexpr (F.per_channel || F.left_shift || F.wide) {
    narrow = a.kernel_sum != nullptr && !a.per_channel && a.shift[0] <= 0;
    if (narrow) {
      std::uint32_t max_ks = 0;
      std::int32_t r = 0;
      for (; r + 4 <= a.rows; r += 4) max_ks = vmaxavq_s32(max_ks, vldrwq_s32(a.kernel_sum + r));
      if (r < a.rows) {
        max_ks = vmaxavq_s32(max_ks, vldrwq_z_s32(a.kernel_sum + r, vctp32q(static_cast<std::uint32_t>(a.rows - r))));
      }
      narrow = max_ks <= (1u << 29);
    }
  }
  s8_requant q;
  q.act_min = vdupq_n_s32(a.activation_min);
  q.act_max = vdupq_n_s32(a.activation_max);
  q.mult = vdupq_n_s32(a.multiplier[0]);
  q.shift = vdupq_n_s32(a.shift[0]);
  q.packed = packed;
  const bool double_round = F.double_round && (!F.single_round || a.rounding == quant::rounding::double_round);
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b) * a.cols;
    std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows;
    std::int64_t cb = 0;
    if (F.filter_offset && a.filter_offset != 0) cb = static_cast<std::int64_t>(a.filter_offset) * sum_s8(x, a.cols);
    const bool n = narrow && (!F.filter_offset || abs_le(cb, std::int64_t{1} << 28));
    if constexpr (F.double_round) {
      if (double_round) {
        if (n) batch.template operator()<quant::rounding::double_round, N>(q, x, y, cb);
        else if constexpr (F.per_channel || F.left_shift || F.wide) batch.template operator()<quant::rounding::double_round, F>(q, x, y, cb);
        continue;
      }
    }
    if constexpr (F.single_round) {
      if (n) batch.template operator()<quant::rounding::single_round, N>(q, x, y, cb);
      else if constexpr (F.per_channel || F.left_shift || F.wide) batch.template operator()<quant::rounding::single_round, F>(q, x, y, cb);
    }
  }
}

}  // namespace mve

/// Helium fused s8 × s8 linear, row-major weights (contract: `kernels/linear_args.hpp`), compiled for
/// the features `F` (`linear_features`; default full generality). Preconditions: `validate(a) == ok`
/// and `admits(F, a)`.
template <linear_features F = all_features>
inline void linear_s8_mve(const linear_s8_args& a) noexcept {
  if constexpr (F.wide) {
    if (a.cols > 65536) {  // int32 dot products would need splitting; no model has such rows
      linear_s8_generic(a);
      return;
    }
  }
  mve::linear_s8_drive<F>(a, [&]<quant::rounding Mode, linear_features G>(const mve::s8_requant& q, const std::int8_t* x,
                                                                         std::int8_t* y, std::int64_t cb) {
    mve::linear_s8_batch<Mode, G>(a, q, x, y, cb);
  });
}

/// Helium fused s8 × s8 linear with weights packed by `kernels::pack_weights_s8` (8-row groups:
/// `dot8_s8_packed`); same bytes as `linear_s8_mve` / the generic path. `a.weights` is not read (may
/// be null: row sums without kernel_sum come from `packed`, columns > 65536 run `linear_s8_packed_generic`).
/// Preconditions: `validate(a) == ok` except for `a.weights`, `admits(F, a)`, `packed` holds
/// `packed_weights_s8_size(a.rows, a.cols)` bytes of `pack_weights_s8(weights, …)`.
template <linear_features F = all_features>
inline void linear_s8_packed_mve(const linear_s8_args& a, const std::int8_t* packed) noexcept {
  if constexpr (F.wide) {
    if (a.cols > 65536) {
      linear_s8_packed_generic(a, packed);
      return;
    }
  }
  mve::linear_s8_drive<F>(a, [&]<quant::rounding Mode, linear_features G>(const mve::s8_requant& q, const std::int8_t* x,
                                                                         std::int8_t* y, std::int64_t cb) {
    mve::linear_s8_packed_batch<Mode, G>(a, q, packed, x, y, cb);
  }, packed);
}

/// Helium fused s16 × s8 linear (contract: `kernels/linear_args.hpp`), compiled for the features `F`
/// (default full generality). Preconditions: `validate(a) == ok` and `admits(F, a)`.
/// 4-row tiles (`linear_s16_tile`); the last rows % 4 are the overlapping tile of rows − 4 … rows − 1
/// (same values written twice), and with fewer than 4 rows each row is a tile of four copies of
/// itself (stride 0) — so the scalar requantization is not needed.
template <linear_features F = all_features>
inline void linear_s16_mve(const linear_s16_args& a) noexcept {
  if constexpr (F.wide) {
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
  const bool per_channel = F.per_channel && a.per_channel;
  if (!per_channel) {
    for (int i = 0; i < 4; ++i) set_row(i, 0);
  }
  for (std::int32_t b = 0; b < a.batches; ++b) {
    tile.x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int16_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows;
    if (a.rows >= 4 && !per_channel) {  // one assembly loop over the tiles, then the overlapping last one
      mve::s16_run run;
      run.x = tile.x;
      run.w = a.weights;
      run.cols = cols;
      run.tail = cols % 64;
      run.bias = a.bias;
      run.out = y;
      run.out_end = y + a.rows / 4 * 4;
      run.act_min = a.activation_min;
      run.act_max = a.activation_max;
      run.m16 = tile.m16_t[0];
      run.t = tile.m16_t[1];
      mve::linear_s16_run(&run);
      if (a.rows % 4 != 0) {
        const std::int32_t t = a.rows - 4;
        run.w = a.weights + static_cast<std::ptrdiff_t>(t) * cols;
        run.bias = a.bias != nullptr ? a.bias + t : nullptr;
        run.out = y + t;
        run.out_end = y + a.rows;
        mve::linear_s16_run(&run);
      }
    } else if (a.rows >= 4) {
      tile.stride = cols;
      for (std::int32_t r = 0; r < a.rows; r += 4) {
        const std::int32_t t = r + 4 <= a.rows ? r : a.rows - 4;  // last partial tile: overlap
        tile.w = a.weights + static_cast<std::ptrdiff_t>(t) * cols;
        tile.bias = a.bias != nullptr ? a.bias + t : nullptr;
        tile.out = y + t;
        if (per_channel) {
          for (int i = 0; i < 4; ++i) set_row(i, t + i);
        }
        mve::linear_s16_tile(&tile);
      }
    } else {
      tile.stride = 0;
      for (std::int32_t r = 0; r < a.rows; ++r) {
        std::int64_t bias4[4];
        std::int16_t out4[4];
        tile.w = a.weights + static_cast<std::ptrdiff_t>(r) * cols;
        tile.bias = nullptr;
        if (a.bias != nullptr) {
          for (auto& v : bias4) v = a.bias[r];
          tile.bias = bias4;
        }
        tile.out = out4;
        if (per_channel) {
          for (int i = 0; i < 4; ++i) set_row(i, r);
        }
        mve::linear_s16_tile(&tile);
        y[r] = out4[0];
      }
    }
  }
}

}  // namespace armlower::kernels::detail

#endif  // __ARM_FEATURE_MVE
