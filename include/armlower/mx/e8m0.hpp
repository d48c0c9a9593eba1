/// @file armlower/mx/e8m0.hpp
/// The OCP MX shared-scale format E8M0 (TOSA FP8UE8M0): 8-bit unsigned biased exponent, bias 127,
/// no sign, no mantissa, no zero, no Inf; 0xFF is NaN. Code c (0..254) is the value 2^(c-127).
///
/// Code 0x00 = 2^-127 is an **fp32 subnormal** (bits 0x00400000): `decode_e8m0` never relies on
/// flush-to-zero, and callers must not build with FTZ/DAZ (-ffast-math) when scales can be 0x00.
/// Source: OCP MX v1.0 §5.4 (E8M0 scale). Firmware-clean, constexpr.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace armlower::mx {

/// The E8M0 NaN code.
inline constexpr std::uint8_t e8m0_nan = 0xFF;
/// E8M0 exponent bias: code = unbiased exponent + 127.
inline constexpr int e8m0_bias = 127;

/// fp32 value of the E8M0 code `c`: 2^(c-127) for c ≤ 254 (0x00 → the subnormal 2^-127), NaN for 0xFF.
[[nodiscard]] constexpr float decode_e8m0(std::uint8_t c) noexcept {
  if (c == e8m0_nan) return std::numeric_limits<float>::quiet_NaN();
  if (c == 0) return std::bit_cast<float>(std::uint32_t{0x00400000u});
  return std::bit_cast<float>(static_cast<std::uint32_t>(c) << 23);
}

/// E8M0 code of 2^e for an unbiased exponent e, clamped to [-127, 127] (codes 0x00..0xFE).
[[nodiscard]] constexpr std::uint8_t e8m0_from_exponent(int e) noexcept {
  if (e < -127) e = -127;
  if (e > 127) e = 127;
  return static_cast<std::uint8_t>(e + e8m0_bias);
}

}  // namespace armlower::mx
