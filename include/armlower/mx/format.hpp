/// @file armlower/mx/format.hpp
/// Parameters of the OCP MX v1.0 element formats (FP8E4M3, FP8E5M2, FP6E2M3, FP6E3M2, FP4E2M1,
/// MXINT8) keyed by `dtype::id`. The bit-layout facts and the largest finite value are not repeated
/// here: they are read from the one dtype table (`dtype::traits`).
///
/// Source: OCP Microscaling Formats (MX) v1.0 §5 and OCP OFP8 (element and scale formats).
/// Firmware-clean.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <armlower/dtype/dtype.hpp>

namespace armlower::mx {

/// The MX block size: one E8M0 scale per 32 consecutive elements of the last dimension
/// (OCP MX v1.0 k = 32; TOSA BLOCK_SIZE_32).
inline constexpr int block_size = 32;

/// Describes one MX element format. For the float formats the value of a code is
/// `(-1)^s · 2^(e-bias) · (1 + m/2^mbits)` (normal) or `(-1)^s · 2^(1-bias) · m/2^mbits`
/// (subnormal, e == 0). MXINT8 is two's complement with an implicit 2^-6.
struct element_format {
  dtype::id id;              ///< the element dtype
  bool is_int;               ///< MXINT8
  std::uint8_t ebits;        ///< exponent bits (0 for MXINT8)
  std::uint8_t mbits;        ///< mantissa bits (6 fraction bits for MXINT8)
  std::int8_t bias;          ///< exponent bias
  std::int8_t emax;          ///< exponent of the largest normal (OCP emax_elem)
  std::uint8_t storage_bits; ///< bits per element in armlower's storage (FP4: 4, packed two per byte; others 8)
  std::uint8_t max_mag;      ///< largest finite magnitude code (without sign): E4M3 0x7E, E5M2 0x7B, FP6 0x1F, FP4 0x7; MXINT8 127
  bool has_inf;              ///< E5M2 only
  bool has_nan;              ///< E4M3 (S.1111.111) and E5M2 (S.11111.{01,10,11})
  std::uint8_t nan_mag;      ///< magnitude code produced for NaN: E4M3 0x7F, E5M2 0x7E (quiet); 0 when no NaN
  std::int8_t int_shift;     ///< k such that every element value × 2^k is an integer: FP4 1, E2M3 3,
                             ///< E3M2 4, E4M3 9, E5M2 16, MXINT8 6 (exact integer block dot products)
};

namespace detail {
/// One row: the bit-layout facts (exponent/mantissa bits, bias, Inf/NaN, storage) come from the
/// dtype table; only the MX-specific facts are given here.
constexpr element_format make_format(dtype::id t, std::int8_t emax, std::uint8_t max_mag,
                                     std::uint8_t nan_mag, std::int8_t int_shift) noexcept {
  const auto& i = dtype::traits(t);
  const bool is_int = i.fraction_bits != 0;
  return {t,
          is_int,
          i.exponent_bits,
          static_cast<std::uint8_t>(is_int ? i.fraction_bits : i.mantissa_bits),
          static_cast<std::int8_t>(i.exponent_bias),
          emax,
          i.storage_bits,
          max_mag,
          i.has_inf,
          i.has_nan,
          nan_mag,
          int_shift};
}
inline constexpr element_format formats[] = {
    make_format(dtype::id::fp8e4m3, 8, 0x7E, 0x7F, 9),
    make_format(dtype::id::fp8e5m2, 15, 0x7B, 0x7E, 16),
    make_format(dtype::id::fp6e2m3, 2, 0x1F, 0, 3),
    make_format(dtype::id::fp6e3m2, 4, 0x1F, 0, 4),
    make_format(dtype::id::fp4e2m1, 2, 0x07, 0, 1),
    make_format(dtype::id::mxint8, 0, 0x7F, 0, 6),
};
static_assert(formats[0].ebits == 4 && formats[0].mbits == 3 && formats[0].bias == 7 && !formats[0].has_inf);
static_assert(formats[1].ebits == 5 && formats[1].bias == 15 && formats[1].has_inf && formats[1].has_nan);
static_assert(formats[4].storage_bits == 4 && formats[5].is_int && formats[5].mbits == 6);
}  // namespace detail

/// True when `t` is an MX element type (the value type of a block-scaled tensor).
[[nodiscard]] constexpr bool is_element(dtype::id t) noexcept {
  for (const auto& f : detail::formats)
    if (f.id == t) return true;
  return false;
}

/// Format parameters of the MX element type `t`. Precondition: `is_element(t)`; for any other
/// dtype the FP8E4M3 row is returned (callers validate with `is_element` first).
[[nodiscard]] constexpr const element_format& format(dtype::id t) noexcept {
  for (const auto& f : detail::formats)
    if (f.id == t) return f;
  return detail::formats[0];
}

/// Largest finite value of the element type `t` (448, 57344, 7.5, 28, 6, 127/64), from the dtype table.
[[nodiscard]] constexpr float max_normal(dtype::id t) noexcept {
  return static_cast<float>(dtype::traits(t).float_max);
}

/// Bytes armlower uses to store `n` elements of type `t`: FP4E2M1 packs two per byte (element 2i in
/// bits [3:0], 2i+1 in bits [7:4], like TOSA INT4), everything else one byte per element (FP6 in the
/// low 6 bits, as ml_dtypes and torchao store it).
[[nodiscard]] constexpr std::size_t storage_bytes(dtype::id t, std::size_t n) noexcept {
  return format(t).storage_bits == 4 ? (n + 1) / 2 : n;
}

/// True when no element code in `codes` (armlower storage of type `t`) is NaN or Inf: for FP8 every
/// byte's magnitude is ≤ `max_mag` (E4M3 0x7E, E5M2 0x7B); FP6, FP4 and MXINT8 have no such codes.
/// Meant to be run once on constant operands (weights), see `block_scaled_view::finite_codes`.
[[nodiscard]] constexpr bool finite_codes(dtype::id t, std::span<const std::uint8_t> codes) noexcept {
  if (!format(t).has_nan) return true;
  std::uint8_t worst = 0;
  for (const std::uint8_t c : codes) {
    const auto m = static_cast<std::uint8_t>(c & 0x7Fu);
    worst = m > worst ? m : worst;
  }
  return worst <= format(t).max_mag;
}

}  // namespace armlower::mx
