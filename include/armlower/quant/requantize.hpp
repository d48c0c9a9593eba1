/// @file armlower/quant/requantize.hpp
/// Fixed-point requantization: TOSA `apply_scale_32` / `apply_scale_16`, CMSIS-NN `arm_nn_requantize`
/// (default double rounding and `CMSIS_NN_USE_SINGLE_ROUNDING`), and the 64-bit a16w8 requantization
/// computed fully in 64 bits (without CMSIS-NN's early int32 truncation).
///
/// Sources of the semantics: TOSA `pseudocode/library/scale_helpers.tosac` (`apply_scale_32`,
/// `apply_scale_16`; TOSA 1.0 RESCALE), CMSIS-NN `Include/arm_nnsupportfunctions.h` and TFLite `common.cc`
/// (`arm_nn_requantize`, `MultiplyByQuantizedMultiplier`, `QuantizeMultiplier`). These equivalences hold:
/// `apply_scale_32(x, q, 31 − s, false) == requantize_single_round(x, q, s)` and
/// `apply_scale_32(x, q, 31 − s, true) == requantize(x, q, s)` wherever both are defined;
/// `apply_scale_16(x, reduce_multiplier(q), 15 − s) == requantize_s64(x, reduce_multiplier(q), s)`.
///
/// All functions are `constexpr noexcept` and free of undefined behaviour for every argument: where
/// CMSIS-NN's C code would overflow a signed int (UB), armlower wraps modulo 2^32 like the hardware.
#pragma once

#include <cstdint>
#include <limits>

#include <armlower/core/status.hpp>

namespace armlower::quant {

/// Rounding of a fixed-point rescale. The values equal TOSA's serialized `RoundingMode`
/// (SINGLE_ROUND = 1, DOUBLE_ROUND = 3), so `static_cast` to/from `tosa::rounding_mode` is exact.
/// SINGLE_ROUND = TFLite `TFLITE_SINGLE_ROUNDING` = CMSIS-NN `CMSIS_NN_USE_SINGLE_ROUNDING`;
/// DOUBLE_ROUND = TFLite / CMSIS-NN default (gemmlowp SRDHM + rounding divide by power of two).
enum class rounding : std::uint8_t { single_round = 1, double_round = 3 };

namespace detail {

/// floor((a·b + add) / 2^sh) computed exactly (128-bit intermediate), saturated to int64.
/// Preconditions: 1 ≤ sh ≤ 63. Fast path when |a|, |b| < 2^31 and |add| ≤ 2^62.
[[nodiscard]] constexpr std::int64_t mul_add_shift(std::int64_t a, std::int64_t b, std::int64_t add,
                                                   int sh) noexcept {
  constexpr std::int64_t lim = std::int64_t{1} << 31;
  if (a > -lim && a < lim && b > -lim && b < lim && add > -(std::int64_t{1} << 62) &&
      add < (std::int64_t{1} << 62)) {
    return (a * b + add) >> sh;
  }
  const bool neg = (a < 0) != (b < 0);
  const std::uint64_t ua = a < 0 ? 0 - static_cast<std::uint64_t>(a) : static_cast<std::uint64_t>(a);
  const std::uint64_t ub = b < 0 ? 0 - static_cast<std::uint64_t>(b) : static_cast<std::uint64_t>(b);
  const std::uint64_t a0 = ua & 0xFFFFFFFFU, a1 = ua >> 32, b0 = ub & 0xFFFFFFFFU, b1 = ub >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFU) + (p10 & 0xFFFFFFFFU);
  std::uint64_t lo = (p00 & 0xFFFFFFFFU) | (mid << 32);
  std::uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  if (neg) {
    lo = ~lo + 1;
    hi = ~hi + (lo == 0 ? 1U : 0U);
  }
  const std::uint64_t c = static_cast<std::uint64_t>(add);
  const std::uint64_t lo2 = lo + c;
  hi = hi + (add < 0 ? ~std::uint64_t{0} : 0) + (lo2 < lo ? 1U : 0U);
  lo = lo2;
  const std::uint64_t rlo = (lo >> sh) | (hi << (64 - sh));
  const std::int64_t rhi = static_cast<std::int64_t>(hi) >> sh;
  const bool fits = (rhi == 0 && (rlo >> 63) == 0) || (rhi == -1 && (rlo >> 63) == 1);
  if (!fits) return rhi < 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(rlo);
}

/// Wrapping int32 conversion (modulo 2^32; defined behaviour in C++20).
[[nodiscard]] constexpr std::int32_t wrap32(std::int64_t v) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
}

}  // namespace detail

// ------------------------------------------------------------------------------------------------
// TOSA (scale_helpers.tosac)

/// TOSA `apply_scale_32(value, multiplier, shift, double_round)`:
/// `round = 2^(shift−1)` (+2^30 / −2^30 by the sign of value when `double_round && shift > 31`),
/// `result = int32((value · multiplier + round) >> shift)` (arithmetic shift).
/// @return `status::multiplier_out_of_range` if multiplier < 0; `status::shift_out_of_range` unless
///         2 ≤ shift ≤ 62; `status::value_out_of_range` unless −2^(shift−1) ≤ value < 2^(shift−1)
///         (the three REQUIREs of the pseudocode). `result` is written only on `status::ok`.
[[nodiscard]] constexpr status apply_scale_32(std::int32_t value, std::int32_t multiplier, std::int32_t shift,
                                              bool double_round, std::int32_t& result) noexcept {
  if (multiplier < 0) return status::multiplier_out_of_range;
  if (shift < 2 || shift > 62) return status::shift_out_of_range;
  if (shift <= 32) {
    const std::int64_t lim = std::int64_t{1} << (shift - 1);
    if (value < -lim || value >= lim) return status::value_out_of_range;
  }
  std::int64_t round = std::int64_t{1} << (shift - 1);
  if (double_round && shift > 31) round += value >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
  result = static_cast<std::int32_t>((static_cast<std::int64_t>(value) * multiplier + round) >> shift);
  return status::ok;
}

/// TOSA `apply_scale_16(value48, multiplier16, shift)`:
/// `result = (value · multiplier + 2^(shift−1)) >> shift`, which must fit int32.
/// @return `status::value_out_of_range` if value is not an int48 or the result does not fit int32;
///         `status::multiplier_out_of_range` unless 0 ≤ multiplier ≤ 32767 (an int16 ≥ 0);
///         `status::shift_out_of_range` unless 2 ≤ shift ≤ 62.
[[nodiscard]] constexpr status apply_scale_16(std::int64_t value, std::int32_t multiplier, std::int32_t shift,
                                              std::int32_t& result) noexcept {
  if (multiplier < 0 || multiplier > 32767) return status::multiplier_out_of_range;
  if (shift < 2 || shift > 62) return status::shift_out_of_range;
  if (value < -(std::int64_t{1} << 47) || value >= (std::int64_t{1} << 47)) return status::value_out_of_range;
  const std::int64_t r = (value * multiplier + (std::int64_t{1} << (shift - 1))) >> shift;
  if (r < std::numeric_limits<std::int32_t>::min() || r > std::numeric_limits<std::int32_t>::max()) {
    return status::value_out_of_range;
  }
  result = static_cast<std::int32_t>(r);
  return status::ok;
}

// ------------------------------------------------------------------------------------------------
// CMSIS-NN (arm_nnsupportfunctions.h), TFLite-style shift: positive = left, negative = right.

/// `arm_nn_doubling_high_mult_no_sat(m1, m2)` = `int32((int64(m1)·m2 + 2^30) >> 31)`: the doubling
/// high multiply rounding half toward +∞. INT32_MIN·INT32_MIN wraps to INT32_MIN.
[[nodiscard]] constexpr std::int32_t doubling_high_mult_no_sat(std::int32_t m1, std::int32_t m2) noexcept {
  return detail::wrap32((static_cast<std::int64_t>(m1) * m2 + (std::int64_t{1} << 30)) >> 31);
}

/// `arm_nn_doubling_high_mult(m1, m2)` (saturating, = gemmlowp SRDHM = Arm VQRDMULH): as
/// `doubling_high_mult_no_sat` except INT32_MIN·INT32_MIN → INT32_MAX.
[[nodiscard]] constexpr std::int32_t doubling_high_mult(std::int32_t m1, std::int32_t m2) noexcept {
  if (m1 == std::numeric_limits<std::int32_t>::min() && m2 == m1) return std::numeric_limits<std::int32_t>::max();
  return doubling_high_mult_no_sat(m1, m2);
}

/// `arm_nn_divide_by_power_of_two(dividend, exponent)`: dividend / 2^exponent rounded half away from
/// zero. Domain: 0 ≤ exponent ≤ 31 (other values are taken modulo 32).
[[nodiscard]] constexpr std::int32_t divide_by_power_of_two(std::int32_t dividend, std::int32_t exponent) noexcept {
  const int e = exponent & 31;
  const std::int32_t mask = static_cast<std::int32_t>((std::uint32_t{1} << e) - 1U);
  std::int32_t r = dividend >> e;
  const std::int32_t threshold = (mask >> 1) + (r < 0 ? 1 : 0);
  if ((dividend & mask) > threshold) ++r;
  return r;
}

/// `arm_nn_requantize(val, multiplier, shift)`, CMSIS-NN default (double rounding; = TFLite's
/// default `MultiplyByQuantizedMultiplier`): `divide_by_power_of_two(doubling_high_mult_no_sat(
/// val · 2^max(shift,0), multiplier), max(−shift, 0))`. Domain −31 ≤ shift ≤ 30 (CMSIS-NN doc); the
/// left shift wraps modulo 2^32 where CMSIS-NN's C would overflow.
[[nodiscard]] constexpr std::int32_t requantize(std::int32_t val, std::int32_t multiplier, std::int32_t shift) noexcept {
  const int left = shift > 0 ? (shift & 31) : 0;
  const int right = shift < 0 ? ((-shift) & 31) : 0;
  const std::uint32_t shifted_bits = static_cast<std::uint32_t>(val) << left;  // wraps mod 2^32
  const std::int32_t shifted = detail::wrap32(static_cast<std::int64_t>(shifted_bits));
  return divide_by_power_of_two(doubling_high_mult_no_sat(shifted, multiplier), right);
}

/// `arm_nn_requantize` under `CMSIS_NN_USE_SINGLE_ROUNDING` (= TFLite `TFLITE_SINGLE_ROUNDING`):
/// `(val · multiplier + 2^(30−shift)) >> (31 − shift)`, i.e. one rounding, half toward +∞.
/// Domain −31 ≤ shift ≤ 30; computed in int64 and wrapped to int32.
[[nodiscard]] constexpr std::int32_t requantize_single_round(std::int32_t val, std::int32_t multiplier,
                                                             std::int32_t shift) noexcept {
  const int total = 31 - (shift < -31 ? -31 : (shift > 30 ? 30 : shift));
  return detail::wrap32((static_cast<std::int64_t>(val) * multiplier + (std::int64_t{1} << (total - 1))) >> total);
}

/// a16w8 requantization of an int64 accumulator with a reduced (16-bit) multiplier, computed exactly:
/// `(val · reduced_multiplier + 2^(14−shift)) >> (15 − shift)` as a full-width result (no int32
/// truncation). Equals TFLite's int64 `MultiplyByQuantizedMultiplier` (both rounding builds) whenever
/// that fits int32, CMSIS-NN `arm_nn_requantize_s64` while |result| < 2^30 (CMSIS-NN truncates to int32
/// before its last rounding step; CMSIS-NN v7 `arm_nn_requantize`, `Include/arm_nnsupportfunctions.h`), and TOSA `apply_scale_16(val, m, 15 − shift)`.
/// Domain −47 ≤ shift ≤ 14, 0 ≤ reduced_multiplier ≤ 32767; any int64 `val` (saturates to int64).
[[nodiscard]] constexpr std::int64_t requantize_s64(std::int64_t val, std::int32_t reduced_multiplier,
                                                    std::int32_t shift) noexcept {
  const int total = 15 - (shift < -47 ? -47 : (shift > 14 ? 14 : shift));
  return detail::mul_add_shift(val, reduced_multiplier, std::int64_t{1} << (total - 1), total);
}

/// Exact requantization of a (possibly wider than int32) accumulator with a TFLite-style (q, s):
/// the TOSA `apply_scale_32` formula with `shift = 31 − s` evaluated without range limits,
/// `(val · q + round) >> (31 − s)`, `round = 2^(30−s)` (+ ±2^30 by sign of val for `double_round`
/// when 31 − s > 31). For int32 `val` this equals `requantize` (double) / `requantize_single_round`
/// (single) wherever CMSIS-NN's left shift does not overflow; it is what armlower's fused linear
/// kernels use. Domain −31 ≤ s ≤ 30, q ≥ 0; result saturated to int64.
[[nodiscard]] constexpr std::int64_t requantize_exact(std::int64_t val, std::int32_t q, std::int32_t s,
                                                      rounding mode) noexcept {
  const int total = 31 - (s < -31 ? -31 : (s > 30 ? 30 : s));
  std::int64_t round = std::int64_t{1} << (total - 1);
  if (mode == rounding::double_round && total > 31) round += val >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
  return detail::mul_add_shift(val, q, round, total);
}

/// Saturates an int64 to [lo, hi].
[[nodiscard]] constexpr std::int64_t clamp64(std::int64_t v, std::int64_t lo, std::int64_t hi) noexcept {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace armlower::quant
