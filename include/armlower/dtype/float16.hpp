/// @file armlower/dtype/float16.hpp
/// The 16-bit float formats FP16 (IEEE binary16) and BF16 (the top half of an IEEE binary32),
/// carried as their raw `std::uint16_t` bits, converted to and from fp32.
///
/// Semantics: TOSA `round_to_nearest_float<out_t>` (TOSA 1.0 specification, "Number formats" and the CAST pseudocode):
/// round to nearest, ties to even; overflow gives ±Inf; subnormals are produced and decoded (no
/// flush to zero); NaN stays a quiet NaN with its sign. Decoding is exact. Firmware-clean and
/// constexpr (integer arithmetic on the bit patterns only). The one implementation used by the
/// serializer (CLAMP bounds, constants), the interpreter (CAST, values) and the MX casts.
#pragma once

#include <bit>
#include <cstdint>

namespace armlower::dtype {

/// fp32 value of the BF16 bits `b` (exact).
[[nodiscard]] constexpr float bf16_to_fp32(std::uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

/// BF16 bits of `x`: round to nearest even; NaN stays NaN (quiet bit set, sign and upper payload
/// kept); overflow rounds to ±Inf.
[[nodiscard]] constexpr std::uint16_t fp32_to_bf16(float x) noexcept {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  const std::uint32_t r = u + 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(r >> 16);
}

/// FP16 bits of `x`: round to nearest even (subnormal results included); |x| beyond the largest
/// finite FP16 after rounding gives ±Inf; NaN gives a quiet NaN with the sign of `x`.
[[nodiscard]] constexpr std::uint16_t fp32_to_fp16(float x) noexcept {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t exp = (u >> 23) & 0xFFu;
  std::uint32_t man = u & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<std::uint16_t>(sign | 0x7C00u | (man ? 0x200u : 0u));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (e <= 0) {  // FP16 subnormal or zero
    if (e < -10) return static_cast<std::uint16_t>(sign);
    man |= 0x800000u;
    const int shift = 14 - e;
    const std::uint32_t half = 1u << (shift - 1);
    std::uint32_t r = man >> shift;
    const std::uint32_t rem = man & ((1u << shift) - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;  // may round up into the smallest normal
    return static_cast<std::uint16_t>(sign | r);
  }
  std::uint32_t r = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  const std::uint32_t rem = man & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;  // a carry into the exponent is correct
  return static_cast<std::uint16_t>(sign | r);
}

/// fp32 value of the FP16 bits `h` (exact; subnormals decode to fp32 normals).
[[nodiscard]] constexpr float fp16_to_fp32(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  const std::uint32_t man = h & 0x3FFu;
  if (exp == 0) {
    if (man == 0) return std::bit_cast<float>(sign);
    // Normalise the subnormal: value = man · 2^-24 = 1.f · 2^(p - 24) with p = bit width - 1.
    int p = 9;
    while (((man >> p) & 1u) == 0) --p;
    const std::uint32_t frac = (man << (23 - p)) & 0x7FFFFFu;
    return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(p - 24 + 127) << 23) | frac);
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

}  // namespace armlower::dtype
