/// @file armlower/mx/scale.hpp
/// The shared E8M0 scale of one MX block (32 elements along the last dimension), computed from
/// the block's largest magnitude `amax` under a rule selectable per call (`scale_mode`).
///
/// Write amax = m · 2^e with m in [1, 2) and let emax be the element's OCP emax_elem
/// (`element_format::emax`). The unbiased scale exponent X is (OCP MX v1.0 §6.3, TOSA 1.1-draft CAST_TO_BLOCK_SCALED):
///  - `tosa`  TOSA 1.1 `calc_block_scale` as tosa-tools 2026.8.0's reference model implements it:
///            out_max = max_normal + ulp(max_normal)/2; FP8E4M3: ceil(log2(amax/out_max)), others
///            floor(log2(amax/out_max)) + 1. Equivalently e - emax + 1 exactly when m ≥ out_max/2^emax
///            (FP8E4M3: m > 1.8125), i.e. FLOOR bumped exactly when FLOOR would clip. Clipped to
///            [-127, 127]. Verified against the reference model in tests/mx (goldens).
///  - `floor` OCP MX v1.0 §6.3: e - emax (the largest element may exceed max normal and is clamped).
///  - `ceil`  torchao CEIL: e - emax + (m > 1).
///  - `even`  torchao EVEN: amax rounded to mbits mantissa bits (RNE-style add) then FLOOR, i.e.
///            e - emax + (m ≥ 2 - 2^-(mbits+1)).
///  - `rceil` torchao RCEIL (ExecuTorch's weight mode, torchao `mx_formats/mx_tensor.py` `to_mx`; Blackwell
///            cvt.rp.ue8m0): the fp32 quotient amax/max_normal rounded *up* to a power of two
///            (fp32 subnormal quotients round up only when above 2^-127). A result of 2^128 gives NaN
///            (torchao clamps to [-127, 128] and 128 is 0xFF).
/// All modes: amax == 0 → 0x00 (2^-127, the E8M0 minimum; MXLIB/torchao/TOSA agree); amax NaN or
/// ±Inf → 0xFF (NaN); `floor`/`ceil`/`even`/`tosa` clip to [-127, 127].
/// torchao 0.18's CPU `to_mx` differs from these exact rules in three places, all tested against
/// torchao itself (tests/mx/block_scale.test.cpp): blocks with scale 0x00 get data x·2^126 (FLOOR:
/// its fp32 scale is clamped to the smallest normal) or x·1 (RCEIL eager path) instead of x·2^127;
/// and RCEIL computes ceil(log2(amax/max)) in fp32, one step low when the quotient is within ~2^-20
/// relative above a power of two. Real weights rarely reach either case.
/// Firmware-clean, constexpr.
#pragma once

#include <bit>
#include <cstdint>
#include <span>

#include <armlower/dtype/dtype.hpp>
#include <armlower/mx/e8m0.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::mx {

/// The rule that turns a block's amax into its shared E8M0 scale (see the file comment).
enum class scale_mode : std::uint8_t { tosa, floor, ceil, even, rceil };

namespace detail {

/// Splits a finite, non-zero magnitude (fp32 bits without sign) into amax = (1 + frac/2^23)·2^e.
struct log2_split {
  int e;
  std::uint32_t frac;
};
[[nodiscard]] constexpr log2_split split(std::uint32_t a) noexcept {
  const int fexp = static_cast<int>(a >> 23);
  if (fexp != 0) return {fexp - 127, a & 0x7FFFFFu};
  const int p = 31 - std::countl_zero(a);  // fp32 subnormal: a = frac · 2^-149
  return {p - 149, (a << (23 - p)) & 0x7FFFFFu};
}

/// Threshold on frac (23-bit) at which the TOSA rule bumps FLOOR by one:
/// (max_normal/2^emax - 1 + 2^-(mbits+1)) · 2^23.
[[nodiscard]] constexpr std::uint32_t tosa_bump_frac(dtype::id t) noexcept {
  const element_format& f = format(t);
  const float m = max_normal(t) / std::bit_cast<float>(static_cast<std::uint32_t>(f.emax + 127) << 23);
  const float thr = m - 1.0f + std::bit_cast<float>(static_cast<std::uint32_t>(126 - f.mbits) << 23);
  return static_cast<std::uint32_t>(thr * 8388608.0f);
}

}  // namespace detail

/// E8M0 code of the shared scale of a block whose largest |element| has the fp32 bit pattern
/// `amax_bits` (sign ignored; ≥ 0x7F800000 means the block holds Inf or NaN), for element type `t`
/// and rule `mode`. Precondition: `is_element(t)`. Use this form with `block_amax_bits`, which finds
/// NaN/Inf with an integer max.
[[nodiscard]] constexpr std::uint8_t block_scale_from_bits(std::uint32_t amax_bits, dtype::id t,
                                                           scale_mode mode) noexcept {
  const std::uint32_t a = amax_bits & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) return e8m0_nan;
  if (a == 0) return 0x00;
  const element_format& f = format(t);
  if (mode == scale_mode::rceil) {
    const float q = std::bit_cast<float>(a) / max_normal(t);
    const std::uint32_t qb = std::bit_cast<std::uint32_t>(q);
    const std::uint32_t be = qb >> 23;
    const std::uint32_t man = qb & 0x7FFFFFu;
    std::uint32_t r = (be == 0) ? (man > 0x400000u ? 1u : 0u) : be + (man != 0 ? 1u : 0u);
    return static_cast<std::uint8_t>(r > 0xFFu ? 0xFFu : r);
  }
  const detail::log2_split s = detail::split(a);
  int x = s.e - f.emax;
  switch (mode) {
    case scale_mode::floor: break;
    case scale_mode::ceil: x += s.frac != 0 ? 1 : 0; break;
    case scale_mode::even: x += (s.frac + (1u << (22 - f.mbits))) >= (1u << 23) ? 1 : 0; break;
    default: {  // tosa
      const std::uint32_t thr = detail::tosa_bump_frac(t);
      x += (t == dtype::id::fp8e4m3 ? s.frac > thr : s.frac >= thr) ? 1 : 0;
      break;
    }
  }
  return e8m0_from_exponent(x);
}

/// E8M0 code of the shared scale for a block whose largest magnitude is `amax` (NaN/±Inf → 0xFF).
[[nodiscard]] constexpr std::uint8_t block_scale(float amax, dtype::id t, scale_mode mode) noexcept {
  return block_scale_from_bits(std::bit_cast<std::uint32_t>(amax), t, mode);
}

/// Largest |x| of `block` as fp32 bits without sign, found with an integer max so that a NaN
/// (bits > 0x7F800000) or Inf (0x7F800000) anywhere in the block is never lost.
[[nodiscard]] constexpr std::uint32_t block_amax_bits(std::span<const float> block) noexcept {
  std::uint32_t m = 0;
  for (float v : block) {
    const std::uint32_t a = std::bit_cast<std::uint32_t>(v) & 0x7FFFFFFFu;
    m = a > m ? a : m;
  }
  return m;
}

}  // namespace armlower::mx
