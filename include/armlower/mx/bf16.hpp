/// @file armlower/mx/bf16.hpp
/// bfloat16 ↔ fp32 for the block-scaled casts (TOSA bf16_t = the top 16 bits of an fp32). bf16
/// values are carried as their raw `std::uint16_t` bits. Firmware-clean, constexpr.
/// (`armlower/dtype/` has no numeric bf16 helpers; if one lands there these become aliases.)
#pragma once

#include <bit>
#include <cstdint>

namespace armlower::mx {

/// fp32 value of the bf16 bits `b` (exact).
[[nodiscard]] constexpr float bf16_to_fp32(std::uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

/// bf16 bits of fp32 `x`, round to nearest, ties to even; NaN stays NaN (quiet bit set, sign kept);
/// overflow rounds to ±Inf as IEEE RNE does.
[[nodiscard]] constexpr std::uint16_t fp32_to_bf16(float x) noexcept {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  const std::uint32_t r = u + 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(r >> 16);
}

}  // namespace armlower::mx
