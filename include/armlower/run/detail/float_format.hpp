/// @file armlower/run/detail/float_format.hpp
/// Round-to-nearest-even into the IEEE-like 16-bit float formats the interpreter stores as
/// `float` (FP16 = IEEE binary16, BF16 = top half of binary32), and their bit encodings.
/// Semantics: TOSA `round_to_nearest_float<out_t>` (RNE; overflow to ±Inf for formats with
/// Inf; subnormals kept), `../shared/reference/tosa.md` §1.1. Hosted helper of the interpreter.
#pragma once

#include <armlower/dtype/dtype.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace armlower::run::detail {

/// Parameters of a binary floating-point format with IEEE-style Inf/NaN.
struct float_format {
  int mantissa_bits;  ///< explicit fraction bits (FP16: 10, BF16: 7, FP32: 23)
  int min_exponent;   ///< exponent of the smallest normal (FP16: −14, BF16/FP32: −126)
  double max_finite;  ///< largest finite value
};

inline constexpr float_format fp16_format{10, -14, 65504.0};
inline constexpr float_format bf16_format{7, -126, 3.3895313892515355e38};
inline constexpr float_format fp32_format{23, -126, 3.4028234663852886e38};

/// Format of FP16, BF16 or FP32 (`t` must be one of them; FP32 otherwise).
[[nodiscard]] constexpr const float_format& format_of(dtype::id t) noexcept {
  return t == dtype::id::fp16 ? fp16_format : t == dtype::id::bf16 ? bf16_format : fp32_format;
}

/// `x` rounded to nearest-even in format `f` (NaN stays NaN, overflow gives ±Inf,
/// subnormals are kept, the sign of zero is kept). Exact for every double input.
[[nodiscard]] inline double round_to_format(double x, const float_format& f) noexcept {
  if (std::isnan(x) || std::isinf(x) || x == 0.0) return x;
  int e = 0;
  (void)std::frexp(x, &e);  // |x| = m·2^e, 0.5 ≤ m < 1: leading bit has exponent e−1
  const int lead = e - 1 < f.min_exponent ? f.min_exponent : e - 1;
  const double quantum = std::ldexp(1.0, lead - f.mantissa_bits);
  // x / quantum is exact (power-of-two scaling far from the double limits); rint rounds to
  // nearest-even in the default floating-point environment.
  const double r = std::rint(x / quantum) * quantum;
  if (std::fabs(r) > f.max_finite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r == 0.0 ? std::copysign(0.0, x) : r;
}

/// `x` rounded to dtype `t` ∈ {FP16, BF16, FP32} and returned as float (exact).
[[nodiscard]] inline float round_to(dtype::id t, double x) noexcept {
  return static_cast<float>(round_to_format(x, format_of(t)));
}

/// FP16 bit pattern of `v`, which must already be representable in FP16 (see `round_to`).
[[nodiscard]] inline std::uint16_t fp16_bits(float v) noexcept {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | 0x7E00);
  if (std::isinf(v)) return static_cast<std::uint16_t>(sign | 0x7C00);
  const double a = std::fabs(static_cast<double>(v));
  if (a < 0x1p-14) return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(a * 0x1p24));
  const int e = std::ilogb(a);
  const auto mant = static_cast<std::uint16_t>(std::ldexp(a, 10 - e) - 1024.0);
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | mant);
}

/// Value of the FP16 bit pattern `b`.
[[nodiscard]] inline float fp16_value(std::uint16_t b) noexcept {
  const int exp = (b >> 10) & 0x1F;
  const int mant = b & 0x3FF;
  double v = 0.0;
  if (exp == 0x1F)
    v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exp == 0)
    v = std::ldexp(static_cast<double>(mant), -24);
  else
    v = std::ldexp(static_cast<double>(mant + 1024), exp - 25);
  return static_cast<float>((b & 0x8000) ? -v : v);
}

/// BF16 bit pattern of `v`, which must already be representable in BF16.
[[nodiscard]] inline std::uint16_t bf16_bits(float v) noexcept {
  if (std::isnan(v)) return std::signbit(v) ? 0xFFC0 : 0x7FC0;
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v) >> 16);
}

/// Value of the BF16 bit pattern `b`.
[[nodiscard]] inline float bf16_value(std::uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace armlower::run::detail
