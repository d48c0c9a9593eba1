/// @file armlower/run/detail/float_format.hpp
/// Round-to-nearest-even into the IEEE-like 16-bit float formats the interpreter stores as
/// `float` (FP16 = IEEE binary16, BF16 = top half of binary32); their bit encodings are in
/// `armlower/dtype/float16.hpp`.
/// Semantics: TOSA `round_to_nearest_float<out_t>` (RNE; overflow to ±Inf for formats with
/// Inf; subnormals kept), TOSA 1.0 "Supported Number Formats", chapters/introduction.adoc. Hosted helper of the interpreter.
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

/// The format facts of dtype `t`, read from the dtype table.
[[nodiscard]] constexpr float_format make_format(dtype::id t) noexcept {
  const auto& i = dtype::traits(t);
  return {i.mantissa_bits, 1 - i.exponent_bias, i.float_max};
}
inline constexpr float_format fp16_format = make_format(dtype::id::fp16);
inline constexpr float_format bf16_format = make_format(dtype::id::bf16);
inline constexpr float_format fp32_format = make_format(dtype::id::fp32);

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

}  // namespace armlower::run::detail
