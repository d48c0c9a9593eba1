/// @file armlower/quant/multiplier.hpp
/// Real scale → fixed-point (multiplier, shift), in the two conventions armlower meets:
///
/// - **TOSA / ExecuTorch** (`tosa_multiplier`): `y = (x · multiplier + round) >> shift`, shift is a
///   *right* shift in 2..62; 32-bit multipliers for `scale32 = true`, 16-bit for `scale32 = false`.
///   Recipe of ExecuTorch `compute_multiplier_and_shift` ):
///   frexp, round half to even, 2^offset fix-up, shift clamped to ≤ 62, error unless 2 ≤ shift ≤ 62.
/// - **TFLite / CMSIS-NN** (`quantized_multiplier`): `QuantizeMultiplier` (`tensorflow/lite/kernels/
///   internal/quantization_util.cc`): frexp, round half away from
///   zero, 2^31 fix-up, flush of tiny scales; shift is TFLite-style (positive = left).
///
/// Conversions between them (TOSA `apply_scale_32` vs TFLite `MultiplyByQuantizedMultiplier`): TFLite (q, s) → TOSA scale32 (q, 31 − s);
/// a16w8 with int64 accumulators → TOSA scale16 (REDUCE_MULTIPLIER(q), 15 − s).
///
/// Everything is `constexpr` and `noexcept`, uses integer arithmetic on the IEEE-754 bits of the
/// scale (no `<cmath>`, no floating-point environment dependence), so the same results are
/// obtained at compile time, on the host and on a Cortex-M.
#pragma once

#include <bit>
#include <cstdint>

#include <armlower/core/status.hpp>

namespace armlower::quant {

/// TOSA RESCALE multiplier and right shift: `scale ≈ multiplier · 2^−shift`.
/// For 32-bit multipliers `multiplier` ∈ [0, 2^31); for 16-bit ∈ [0, 2^15). `shift` ∈ [2, 62].
struct tosa_multiplier {
  std::int32_t multiplier = 0;  ///< non-negative; 16-bit form fits in int16
  std::int32_t shift = 0;       ///< right shift, 2..62 when produced by this header
};

/// TFLite / CMSIS-NN quantized multiplier: `scale ≈ multiplier · 2^(shift − 31)`.
/// `multiplier` ∈ [2^30, 2^31) for normal scales (0 for a zero scale); `shift` TFLite-style:
/// positive = left shift, negative = right shift (CMSIS-NN doc range −31..30).
struct quantized_multiplier {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
};

namespace detail {

/// A finite, non-negative double split as frexp does: value = mantissa · 2^(exponent − 53),
/// mantissa ∈ [2^52, 2^53) (0 for zero). Equivalent to `frexp` (fraction = mantissa / 2^53).
struct frexp_result {
  std::uint64_t mantissa = 0;
  std::int32_t exponent = 0;  ///< the frexp exponent e: value = (mantissa / 2^53) · 2^e
};

/// Splits `v` like `std::frexp`, with the fraction as an exact 53-bit integer.
/// Returns false for negative values (including −0.0 is accepted as zero), NaN and Inf.
[[nodiscard]] constexpr bool split_double(double v, frexp_result& out) noexcept {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const auto biased = static_cast<std::int32_t>((bits >> 52) & 0x7FF);
  const std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
  const bool negative = (bits >> 63) != 0;
  if (biased == 0x7FF) return false;                 // Inf / NaN
  if (biased == 0 && frac == 0) { out = {}; return true; }  // ±0
  if (negative) return false;
  if (biased == 0) {  // subnormal: value = frac · 2^−1074
    const int p = static_cast<int>(std::bit_width(frac)) - 1;
    out.mantissa = frac << (52 - p);
    out.exponent = p - 1073;
    return true;
  }
  out.mantissa = frac | (std::uint64_t{1} << 52);
  out.exponent = biased - 1022;
  return true;
}

/// Rounds `m / 2^k` (k in 1..63) to an integer: half to even when `half_even`, else half up
/// (= half away from zero, since m ≥ 0).
[[nodiscard]] constexpr std::uint64_t round_shift_right(std::uint64_t m, int k, bool half_even) noexcept {
  std::uint64_t q = m >> k;
  const std::uint64_t rem = m & ((std::uint64_t{1} << k) - 1);
  const std::uint64_t half = std::uint64_t{1} << (k - 1);
  if (rem > half || (rem == half && (!half_even || (q & 1U) != 0))) ++q;
  return q;
}

}  // namespace detail

/// Width of a TOSA RESCALE multiplier: 32 (`scale32 = true`, INT32 multipliers) or 16
/// (`scale32 = false`, INT16 multipliers; required for INT48 inputs).
enum class multiplier_width : std::uint8_t { bits16 = 16, bits32 = 32 };

/// ExecuTorch / TOSA scale → (multiplier, shift) (ExecuTorch `compute_multiplier_and_shift`):
/// `m, e = frexp(scale)`; `mult = round_half_even(m · 2^offset)` (offset 31 or 15); if `mult == 2^offset`
/// then `mult /= 2, e += 1`; `shift = offset − e`; if `shift > 62` then `mult >>= min(31, shift − 62)`,
/// `shift = 62`. A zero scale gives (0, offset).
/// @return `status::scale_out_of_range` for negative/NaN/Inf scales, `status::shift_out_of_range`
///         when the result would need `shift < 2` (scale ≥ 2^(offset−2), e.g. ≥ 2^29 for 32-bit).
[[nodiscard]] constexpr status tosa_scale_to_multiplier(double scale, multiplier_width width,
                                                        tosa_multiplier& out) noexcept {
  detail::frexp_result f{};
  if (!detail::split_double(scale, f)) return status::scale_out_of_range;
  const int offset = width == multiplier_width::bits32 ? 31 : 15;
  std::int64_t mult = 0;
  std::int64_t e = f.exponent;
  if (f.mantissa != 0) {
    mult = static_cast<std::int64_t>(detail::round_shift_right(f.mantissa, 53 - offset, true));
    if (mult == (std::int64_t{1} << offset)) {
      mult /= 2;
      e += 1;
    }
  }
  std::int64_t shift = offset - e;
  if (shift > 62) {
    const std::int64_t drop = shift - 62 < 31 ? shift - 62 : 31;
    mult >>= drop;
    shift = 62;
  }
  if (shift < 2) return status::shift_out_of_range;
  out.multiplier = static_cast<std::int32_t>(mult);
  out.shift = static_cast<std::int32_t>(shift);
  return status::ok;
}

/// Which TFLite build the multiplier is for: TFLite's `QuantizeMultiplier` clamps large scales only
/// under `TFLITE_SINGLE_ROUNDING` (shift > 30 → (2^31 − 1, 30)).
enum class tflite_rounding_build : std::uint8_t { double_rounding, single_rounding };

/// TFLite / CMSIS-NN `QuantizeMultiplier(double, int32*, int*)` (TFLite `kernels/internal/quantization_util.cc`): zero → (0, 0);
/// `q = round_half_away(frexp_fraction · 2^31)`; if `q == 2^31` then `q /= 2, shift += 1`; if
/// `shift < −31` the multiplier is flushed to (0, 0); with `single_rounding`, `shift > 30` becomes
/// (2^31 − 1, 30).
/// @return `status::scale_out_of_range` for negative/NaN/Inf scales; `status::shift_out_of_range`
///         when, in the double-rounding build, the shift would exceed 30 (scale ≥ 2^30: TFLite would
///         produce a shift its own requantization cannot apply).
[[nodiscard]] constexpr status quantize_multiplier(
    double real_multiplier, quantized_multiplier& out,
    tflite_rounding_build build = tflite_rounding_build::double_rounding) noexcept {
  detail::frexp_result f{};
  if (!detail::split_double(real_multiplier, f)) return status::scale_out_of_range;
  if (f.mantissa == 0) {
    out = {};
    return status::ok;
  }
  auto q = static_cast<std::int64_t>(detail::round_shift_right(f.mantissa, 22, false));
  std::int32_t shift = f.exponent;
  if (q == (std::int64_t{1} << 31)) {
    q /= 2;
    ++shift;
  }
  if (shift < -31) {
    out = {};
    return status::ok;
  }
  if (shift > 30) {
    if (build == tflite_rounding_build::double_rounding) return status::shift_out_of_range;
    out = {2147483647, 30};
    return status::ok;
  }
  out.multiplier = static_cast<std::int32_t>(q);
  out.shift = shift;
  return status::ok;
}

/// Per-tensor effective scale as TFLite computes it (`GetQuantizedConvolutionMultipler`,
/// TFLite `kernels/kernel_util.cc`): the product `input_scale · filter_scale` is rounded to **float32**
/// first, then widened and divided in double. Use this to be bit-exact with TFLite per-tensor models.
[[nodiscard]] constexpr double per_tensor_real_multiplier(float input_scale, float filter_scale,
                                                          float output_scale) noexcept {
  const float product = input_scale * filter_scale;
  return static_cast<double>(product) / static_cast<double>(output_scale);
}

/// Per-channel effective scale as TFLite computes it (`fully_connected_common.cc`): all in double,
/// `(double)input_scale · (double)filter_scale / (double)output_scale`.
[[nodiscard]] constexpr double per_channel_real_multiplier(float input_scale, float filter_scale,
                                                           float output_scale) noexcept {
  return static_cast<double>(input_scale) * static_cast<double>(filter_scale) /
         static_cast<double>(output_scale);
}

/// CMSIS-NN / TFLite `REDUCE_MULTIPLIER` (CMSIS-NN v7 `arm_nn_vec_mat_mult_t_s16`): the 16-bit multiplier used with int64
/// accumulators, `q < 0x7FFF0000 ? (q + 2^15) >> 16 : 0x7FFF`. Input q ≥ 0.
[[nodiscard]] constexpr std::int32_t reduce_multiplier(std::int32_t q) noexcept {
  return q < 0x7FFF0000 ? static_cast<std::int32_t>((static_cast<std::int64_t>(q) + (1 << 15)) >> 16)
                        : 0x7FFF;
}

/// TFLite (q, s) → TOSA `scale32 = true` (q, 31 − s) (TOSA `apply_scale_32` vs TFLite `MultiplyByQuantizedMultiplier`). The two then give
/// bit-identical results (TOSA SINGLE_ROUND = TFLite single rounding, DOUBLE_ROUND = default).
/// @return `status::multiplier_out_of_range` if q < 0; `status::shift_out_of_range` unless
///         −31 ≤ s ≤ 29 (TOSA shift 2..62).
[[nodiscard]] constexpr status tosa_from_tflite(quantized_multiplier m, tosa_multiplier& out) noexcept {
  if (m.multiplier < 0) return status::multiplier_out_of_range;
  if (m.shift < -31 || m.shift > 29) return status::shift_out_of_range;
  out = {m.multiplier, 31 - m.shift};
  return status::ok;
}

/// TFLite (q, s) for int64 accumulators (a16w8) → TOSA `scale32 = false` (REDUCE_MULTIPLIER(q), 15 − s),
/// which TOSA `apply_scale_16` evaluates exactly like TFLite's int64 `MultiplyByQuantizedMultiplier`.
/// @return `status::multiplier_out_of_range` if q < 0; `status::shift_out_of_range` unless
///         −47 ≤ s ≤ 13 (TOSA shift 2..62).
[[nodiscard]] constexpr status tosa16_from_tflite(quantized_multiplier m, tosa_multiplier& out) noexcept {
  if (m.multiplier < 0) return status::multiplier_out_of_range;
  if (m.shift < -47 || m.shift > 13) return status::shift_out_of_range;
  out = {reduce_multiplier(m.multiplier), 15 - m.shift};
  return status::ok;
}

/// TOSA scale32 (multiplier, shift) → TFLite (q, s = 31 − shift). Exact inverse of `tosa_from_tflite`.
/// @return `status::shift_out_of_range` unless 2 ≤ shift ≤ 62 and the TFLite shift is ≥ −31
///         (i.e. shift ≤ 62); `status::multiplier_out_of_range` if multiplier < 0.
[[nodiscard]] constexpr status tflite_from_tosa(tosa_multiplier t, quantized_multiplier& out) noexcept {
  if (t.multiplier < 0) return status::multiplier_out_of_range;
  if (t.shift < 2 || t.shift > 62) return status::shift_out_of_range;
  out = {t.multiplier, 31 - t.shift};
  return status::ok;
}

}  // namespace armlower::quant
