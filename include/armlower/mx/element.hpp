/// @file armlower/mx/element.hpp
/// Conversion of single values between fp32 and the OCP MX element formats (FP8E4M3, FP8E5M2,
/// FP6E2M3, FP6E3M2, FP4E2M1, MXINT8): `encode` (fp32 → code, round to nearest, ties to even)
/// and `decode` (code → fp32, exact). All functions are constexpr and firmware-clean; decoding
/// uses 256/64/16-entry constexpr tables (`decode_table`).
///
/// Semantics (OCP MX v1.0 §5.3, OCP OFP8 §4, TOSA `round_to_nearest_float`):
///  - finite values round to nearest, ties to even, with subnormals (never flush to zero);
///  - overflow (the RNE result exceeds the largest finite value) is `overflow::saturate` → ±max
///    (the OCP MX conversion rule, used by every block-scaled cast) or `overflow::propagate`
///    (OFP8 non-saturating mode and TOSA `round_to_nearest_float`): E5M2 → ±Inf, E4M3 → NaN;
///    FP6/FP4/MXINT8 have neither and saturate in both modes;
///  - NaN: E4M3 → S.1111.111, E5M2 → S.11111.10 (sign kept); FP6/FP4/MXINT8 → +0 (code 0);
///  - ±Inf: E5M2 → ±Inf, E4M3 → NaN, FP6/FP4/MXINT8 → ±max.
/// In a block-scaled cast any NaN/Inf in a block makes the block's scale NaN (0xFF), so what
/// FP6/FP4/MXINT8 hold for NaN/Inf is implementation-defined (OCP MX §6.3) and never observable.
///
/// Deliberate differences from ml_dtypes 0.5 `astype` (which is the OFP8 non-saturating cast):
///  - `overflow::saturate` (the default): E4M3 values above 464 give ±448 here, NaN in ml_dtypes;
///    E5M2 values ≥ 61440 give ±57344 here, ±Inf in ml_dtypes. `overflow::propagate` matches ml_dtypes.
///  - FP6/FP4 NaN gives +0 here; ml_dtypes gives 0 with the sign bit *flipped* (+NaN → -0).
///  - MXINT8 (not in ml_dtypes): RNE of x·64 clamped to [-128, 127]; code 0x80 (-2.0) is produced
///    where it is nearest (TOSA lists -2 as representable; the reference model writes it).
///  - E4M3 finite overflow with `overflow::propagate` gives the NaN 0x7F for either sign (the
///    reference model's code); ml_dtypes keeps the sign (0xFF). ±Inf and NaN inputs keep their sign.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>

#include <armlower/dtype/dtype.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::mx {

/// What `encode` does with finite values whose rounded magnitude exceeds the format's largest
/// finite value.
enum class overflow : std::uint8_t {
  saturate,   ///< clamp to ±max normal (OCP MX conversion; ml_dtypes' kSaturate=true)
  propagate,  ///< E5M2 → ±Inf, E4M3 → NaN (OFP8 non-saturating, TOSA round_to_nearest_float, ml_dtypes default)
};

namespace detail {

/// 2^k as fp32 for k in [-149, 127] (exact; subnormal for k < -126). Firmware-clean, constexpr.
[[nodiscard]] constexpr float pow2f(int k) noexcept {
  if (k >= -126) return std::bit_cast<float>(static_cast<std::uint32_t>(k + 127) << 23);
  return std::bit_cast<float>(std::uint32_t{1} << (k + 149));
}

/// fp32 → minifloat code (see file comment). `f` must be a float element format.
[[nodiscard]] constexpr std::uint8_t encode_float(float x, const element_format& f,
                                                  overflow ov) noexcept {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t a = u & 0x7FFFFFFFu;
  const std::uint32_t sign = (u >> 31) << (f.ebits + f.mbits);
  if (a > 0x7F800000u) return f.has_nan ? static_cast<std::uint8_t>(sign | f.nan_mag) : 0;
  if (a == 0x7F800000u) {
    if (f.has_inf) return static_cast<std::uint8_t>(sign | (f.max_mag + 1u));
    if (f.has_nan) return static_cast<std::uint8_t>(sign | f.nan_mag);
    return static_cast<std::uint8_t>(sign | f.max_mag);
  }
  const int fexp = static_cast<int>(a >> 23);  // biased fp32 exponent, 0 for fp32 subnormals
  const int emin = 1 - f.bias;                 // unbiased exponent of the smallest normal
  std::uint32_t mag = 0;
  if (fexp - 127 >= emin) {
    // Normal in the target: round the 23-bit fraction to mbits (RNE); a carry bumps the exponent.
    const int sh = 23 - f.mbits;
    const std::uint32_t r = (a + ((1u << (sh - 1)) - 1u) + ((a >> sh) & 1u)) >> sh;
    mag = r - (static_cast<std::uint32_t>(127 - f.bias) << f.mbits);
  } else if (fexp != 0) {
    // Subnormal in the target (fp32 subnormals are far below every target's half-ulp: they give 0).
    const std::uint32_t m24 = (a & 0x7FFFFFu) | 0x800000u;
    const int sh = 23 - f.mbits + (emin - (fexp - 127));
    if (sh <= 24) {
      const std::uint32_t q = m24 >> sh;
      const std::uint32_t rem = m24 & ((1u << sh) - 1u);
      const std::uint32_t half = 1u << (sh - 1);
      mag = q + ((rem > half || (rem == half && (q & 1u) != 0)) ? 1u : 0u);
    }
  }
  if (mag > f.max_mag) {
    if (ov == overflow::propagate && f.has_inf) mag = f.max_mag + 1u;
    // E4M3 (no Inf): a finite overflow is the NaN 0x7F whatever the sign, as tosa-tools 2026.8's
    // reference model writes it (TOSA does not distinguish NaNs; docs/mx-edge-cases.md (c)).
    else if (ov == overflow::propagate && f.has_nan) return f.nan_mag;
    else mag = f.max_mag;
  }
  return static_cast<std::uint8_t>(sign | mag);
}

/// fp32 → MXINT8 code: RNE(x·64) clamped to [-128, 127] (TOSA's mxint8_t range is −2 .. 1+63/64,
/// so round_to_nearest gives −2.0 = 0x80 where nearest, as the reference model writes it;
/// docs/mx-edge-cases.md (b)); NaN → 0, +Inf → 127, −Inf → −128.
[[nodiscard]] constexpr std::uint8_t encode_mxint8(float x) noexcept {
  if (x != x) return 0;
  const float y = x * 64.0f;  // exact (power-of-two scaling of a value that cannot overflow to matter)
  if (y >= 127.0f) return 127;
  if (y <= -128.0f) return 0x80;
  // RNE to an integer for |y| < 127 via the 2^23 trick (exact for |y| < 2^22).
  const float big = 8388608.0f;
  float r = y >= 0 ? (y + big) - big : -((-y + big) - big);
  return static_cast<std::uint8_t>(static_cast<std::int8_t>(static_cast<int>(r)));
}

/// Minifloat code → fp32 (exact).
[[nodiscard]] constexpr float decode_float(std::uint8_t code, const element_format& f) noexcept {
  const unsigned nbits = f.ebits + f.mbits;
  const unsigned mag = code & ((1u << nbits) - 1u);
  const std::uint32_t sign = static_cast<std::uint32_t>((code >> nbits) & 1u) << 31;
  const unsigned e = mag >> f.mbits;
  const unsigned m = mag & ((1u << f.mbits) - 1u);
  float v = 0.0f;
  if (f.has_nan && !f.has_inf && mag == f.nan_mag) {
    v = std::numeric_limits<float>::quiet_NaN();
  } else if (f.has_inf && e == (1u << f.ebits) - 1u) {
    v = m == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  } else if (e == 0) {
    v = static_cast<float>(m) * pow2f(1 - f.bias - f.mbits);
  } else {
    v = static_cast<float>((1u << f.mbits) | m) * pow2f(static_cast<int>(e) - f.bias - f.mbits);
  }
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) | sign);
}

template <std::size_t N>
[[nodiscard]] constexpr std::array<float, N> make_decode_table(dtype::id t) noexcept {
  std::array<float, N> out{};
  const element_format& f = format(t);
  for (std::size_t c = 0; c < N; ++c)
    out[c] = f.is_int ? static_cast<float>(static_cast<std::int8_t>(c)) * 0.015625f
                      : decode_float(static_cast<std::uint8_t>(c), f);
  return out;
}

inline constexpr std::array<float, 256> decode_fp8e4m3 = make_decode_table<256>(dtype::id::fp8e4m3);
inline constexpr std::array<float, 256> decode_fp8e5m2 = make_decode_table<256>(dtype::id::fp8e5m2);
inline constexpr std::array<float, 64> decode_fp6e2m3 = make_decode_table<64>(dtype::id::fp6e2m3);
inline constexpr std::array<float, 64> decode_fp6e3m2 = make_decode_table<64>(dtype::id::fp6e3m2);
inline constexpr std::array<float, 16> decode_fp4e2m1 = make_decode_table<16>(dtype::id::fp4e2m1);
inline constexpr std::array<float, 256> decode_mxint8 = make_decode_table<256>(dtype::id::mxint8);

}  // namespace detail

/// The constexpr decode table of MX element type `t`: entry `c` is the fp32 value of code `c`
/// (256 entries for 8-bit types, 64 for FP6, 16 for FP4). Precondition: `is_element(t)`.
[[nodiscard]] constexpr std::span<const float> decode_table(dtype::id t) noexcept {
  switch (t) {
    case dtype::id::fp8e5m2: return detail::decode_fp8e5m2;
    case dtype::id::fp6e2m3: return detail::decode_fp6e2m3;
    case dtype::id::fp6e3m2: return detail::decode_fp6e3m2;
    case dtype::id::fp4e2m1: return detail::decode_fp4e2m1;
    case dtype::id::mxint8: return detail::decode_mxint8;
    default: return detail::decode_fp8e4m3;
  }
}

/// Encodes fp32 `x` as an MX element code of type `t` (RNE; see the file comment for overflow,
/// NaN and Inf). FP6 codes use the low 6 bits, FP4 the low 4 bits. Precondition: `is_element(t)`.
[[nodiscard]] constexpr std::uint8_t encode(dtype::id t, float x,
                                            overflow ov = overflow::saturate) noexcept {
  const element_format& f = format(t);
  return f.is_int ? detail::encode_mxint8(x) : detail::encode_float(x, f, ov);
}

/// Compile-time-dispatched form of `encode`, e.g. `encode<dtype::id::fp4e2m1>(x)`.
template <dtype::id T>
[[nodiscard]] constexpr std::uint8_t encode(float x, overflow ov = overflow::saturate) noexcept {
  static_assert(is_element(T), "encode<T>: T must be an MX element type");
  if constexpr (T == dtype::id::mxint8) return detail::encode_mxint8(x);
  else return detail::encode_float(x, format(T), ov);
}

/// Decodes the MX element code `code` of type `t` to fp32 (exact; bits above the format's width
/// are ignored). Precondition: `is_element(t)`.
[[nodiscard]] constexpr float decode(dtype::id t, std::uint8_t code) noexcept {
  const auto table = decode_table(t);
  return table[code & (table.size() - 1)];
}

/// Compile-time-dispatched form of `decode`.
template <dtype::id T>
[[nodiscard]] constexpr float decode(std::uint8_t code) noexcept {
  static_assert(is_element(T), "decode<T>: T must be an MX element type");
  const auto table = decode_table(T);
  return table[code & (table.size() - 1)];
}

}  // namespace armlower::mx
