/// @file armlower/kernels/rescale.hpp
/// TOSA RESCALE over a tensor: every TOSA 1.0 type row (i8/i16/i32/i48 → i8/i16/i32), unsigned
/// input/output variants, per-channel (last dimension) or per-tensor, `scale32` on/off,
/// SINGLE_ROUND / DOUBLE_ROUND.
///
/// Source: TOSA 1.0 `pseudocode/operators/RESCALE.tosac` and `scale_helpers.tosac`
/// (TOSA 1.0 RESCALE, chapters/type_conversion.adoc). Every ERROR_IF and REQUIRE of the pseudocode is reported as
/// a status (never UB). Firmware-clean: no heap, no exceptions; noexcept.
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/dtype/dtype.hpp>
#include <armlower/kernels/rescale_args.hpp>
#include <armlower/kernels/status.hpp>
#include <armlower/quant/requantize.hpp>

#if !defined(ARMLOWER_KERNELS_GENERIC_ONLY) && (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <armlower/kernels/arch/x86/rescale_avx512.hpp>
#define ARMLOWER_KERNELS_RESCALE_X86 1
#endif

namespace armlower::kernels {

namespace detail {

/// Elements [0, count) of RESCALE, one at a time as the pseudocode states them (precondition:
/// `validate(a, &p) == ok`); the first failing REQUIRE stops the loop. Compact on purpose: firmware runs it.
template <class In, class Out>
[[nodiscard]] status rescale_loop(const rescale_args& a, const rescale_plan& p) noexcept {
  const auto* in = static_cast<const In*>(a.input);
  auto* out = static_cast<Out*>(a.output);
  const bool dbl = a.rounding == quant::rounding::double_round;
  const std::size_t nc = static_cast<std::size_t>(a.channels);
  // the channel of element i (i mod channels, per-channel only), stepped rather than divided: a 64-bit division per
  // element in the loop otherwise
  std::size_t c = 0;
  for (std::size_t i = 0; i < a.count; ++i, c = a.per_channel && c + 1 < nc ? c + 1 : 0) {
    std::int64_t v = 0;
    if constexpr (sizeof(In) == 1) {
      v = a.input_unsigned ? static_cast<std::int64_t>(static_cast<std::uint8_t>(in[i])) : in[i];
    } else if constexpr (sizeof(In) == 2) {
      v = a.input_unsigned ? static_cast<std::int64_t>(static_cast<std::uint16_t>(in[i])) : in[i];
    } else {
      v = in[i];
    }
    if constexpr (sizeof(In) == 8) {
      if (v < -(std::int64_t{1} << 47) || v >= (std::int64_t{1} << 47)) return status::value_out_of_range;
    }
    v -= p.in_zp;
    std::int32_t r = 0;
    status s = status::ok;
    if (a.scale32) {
      // value48 - zp fits int32 for every legal row (i32 input has zp 0; 8/16-bit inputs are small)
      s = quant::apply_scale_32(static_cast<std::int32_t>(v), a.multiplier[c], a.shift[c], dbl, r);
    } else {
      s = quant::apply_scale_16(v, a.multiplier[c], a.shift[c], r);
    }
    if (s != status::ok) return s;
    std::int64_t y = static_cast<std::int64_t>(r) + p.out_zp;  // apply_add_s<int32>: REQUIRE no overflow
    if (y < INT32_MIN || y > INT32_MAX) return status::value_out_of_range;
    y = quant::clamp64(y, p.out_min, p.out_max);
    out[i] = static_cast<Out>(y);  // unsigned outputs: the bit pattern of 0..255 / 0..65535
  }
  return status::ok;
}

template <class In>
[[nodiscard]] status rescale_out(const rescale_args& a, const rescale_plan& p) noexcept {
  switch (a.out_t) {
    case dtype::id::i8: return rescale_loop<In, std::int8_t>(a, p);
    case dtype::id::i16: return rescale_loop<In, std::int16_t>(a, p);
    case dtype::id::i32: return rescale_loop<In, std::int32_t>(a, p);
    default: return status::unsupported_type;
  }
}

/// Zero point of an 8/16-bit dtype as the pseudocode reads it (sign- or zero-extended).
/// Returns false if `zp` is neither a valid signed value nor (when unsigned) a valid bit pattern.
[[nodiscard]] constexpr bool extend_zp(dtype::id t, bool is_unsigned, std::int32_t zp, std::int64_t& out) noexcept {
  const int bits = t == dtype::id::i8 ? 8 : t == dtype::id::i16 ? 16 : 32;
  if (bits == 32) {
    out = zp;
    return true;
  }
  const std::int32_t smin = -(1 << (bits - 1)), smax = (1 << (bits - 1)) - 1, umax = (1 << bits) - 1;
  if (zp < smin || zp > umax) return false;
  if (is_unsigned) {
    out = zp & umax;
    return true;
  }
  if (zp > smax) return false;
  out = zp;
  return true;
}

}  // namespace detail

/// Checks every ERROR_IF of TOSA RESCALE and the multiplier/shift REQUIREs (which do not depend on
/// the data), without touching the data.
/// @return `unsupported_type` (not a RESCALE type row), `null_pointer`, `empty_dimension` (count or
///   channels < 1), `shape_mismatch` (per_channel and count % channels ≠ 0), `invalid_attribute`
///   (scale32 with INT48 input; DOUBLE_ROUND without scale32; rounding not SINGLE/DOUBLE; both unsigned;
///   unsigned input with INT32/INT48 input or INT32 output; unsigned output with INT32 output or
///   INT32/INT48 input), `zero_point_out_of_range` (non-zero input_zp unless INT8 or unsigned INT16 with
///   zp ∈ {0, 32768}; same for output_zp; or a zp not representable), `multiplier_out_of_range`
///   (negative, or > 32767 without scale32), `shift_out_of_range` (outside 2..62); else `ok`.
[[nodiscard]] inline status validate(const rescale_args& a, detail::rescale_plan* plan = nullptr) noexcept {
  using dtype::id;
  const bool in_ok = a.in_t == id::i8 || a.in_t == id::i16 || a.in_t == id::i32 || a.in_t == id::i48;
  const bool out_ok = a.out_t == id::i8 || a.out_t == id::i16 || a.out_t == id::i32;
  if (!in_ok || !out_ok) return status::unsupported_type;
  if (a.input == nullptr || a.output == nullptr || a.multiplier == nullptr || a.shift == nullptr) {
    return status::null_pointer;
  }
  if (a.count < 1 || a.channels < 1) return status::empty_dimension;
  if (a.per_channel && a.count % static_cast<std::size_t>(a.channels) != 0) return status::shape_mismatch;
  if (a.rounding != quant::rounding::single_round && a.rounding != quant::rounding::double_round) {
    return status::invalid_attribute;
  }
  const bool wide_in = a.in_t == id::i32 || a.in_t == id::i48;
  if (a.scale32 && a.in_t == id::i48) return status::invalid_attribute;
  if (!a.scale32 && a.rounding == quant::rounding::double_round) return status::invalid_attribute;
  if (a.input_unsigned && a.output_unsigned) return status::invalid_attribute;
  if (a.input_unsigned && (wide_in || a.out_t == id::i32)) return status::invalid_attribute;
  if (a.output_unsigned && (a.out_t == id::i32 || wide_in)) return status::invalid_attribute;
  // ERROR_IF(in_t != i8_t && (in_t != i16_t || input_unsigned == False) && input_zp != 0)
  detail::rescale_plan p;
  if (a.input_zp != 0) {
    if (!(a.in_t == id::i8 || (a.in_t == id::i16 && a.input_unsigned))) return status::zero_point_out_of_range;
    if (!detail::extend_zp(a.in_t, a.input_unsigned, a.input_zp, p.in_zp)) return status::zero_point_out_of_range;
    // ERROR_IF(in_t == i16_t && input_unsigned == True && input_zp != 0 && input_zp != 32768)
    if (a.in_t == id::i16 && p.in_zp != 32768) return status::zero_point_out_of_range;
  }
  if (a.output_zp != 0) {
    if (!(a.out_t == id::i8 || (a.out_t == id::i16 && a.output_unsigned))) return status::zero_point_out_of_range;
    if (!detail::extend_zp(a.out_t, a.output_unsigned, a.output_zp, p.out_zp)) return status::zero_point_out_of_range;
    if (a.out_t == id::i16 && p.out_zp != 32768) return status::zero_point_out_of_range;
  }
  const std::int32_t nm = a.per_channel ? a.channels : 1;
  for (std::int32_t c = 0; c < nm; ++c) {
    if (a.multiplier[c] < 0 || (!a.scale32 && a.multiplier[c] > 32767)) return status::multiplier_out_of_range;
    if (a.shift[c] < 2 || a.shift[c] > 62) return status::shift_out_of_range;
  }
  const auto& ot = dtype::traits(a.out_t);
  if (a.output_unsigned) {
    p.out_min = 0;
    p.out_max = (std::int64_t{1} << ot.bits) - 1;
  } else {
    p.out_min = ot.int_min;
    p.out_max = ot.int_max;
  }
  if (plan != nullptr) *plan = p;
  return status::ok;
}

/// TOSA RESCALE: `out[i] = clip(apply_scale(in[i] − input_zp, multiplier[c], shift[c]) + output_zp)`,
/// `c = per_channel ? i % channels : 0` (TOSA 1.0 RESCALE, chapters/type_conversion.adoc).
/// @return the `validate` errors; per element, the REQUIRE failures of `apply_scale_32` /
///   `apply_scale_16` (`value_out_of_range`: value outside ±2^(shift−1), INT48 input out of range, result
///   or result + output_zp not an int32). On an error the output is partially written.
[[nodiscard]] inline status rescale(const rescale_args& a) noexcept {
  detail::rescale_plan p;
  if (const status s = validate(a, &p); s != status::ok) return s;
#if defined(ARMLOWER_KERNELS_RESCALE_X86)
  // the rows a lowered linear layer ends with, 8 or 16 elements per step (measured 2.8-13x faster on Zen 4:
  // benchmarks/RESULTS.md)
  if (detail::rescale_avx512_row(a) && detail::x86_has_avx512_dq_vl())
    return detail::rescale_avx512(a, p) ? status::value_out_of_range : status::ok;
#endif
  switch (a.in_t) {
    case dtype::id::i8: return detail::rescale_out<std::int8_t>(a, p);
    case dtype::id::i16: return detail::rescale_out<std::int16_t>(a, p);
    case dtype::id::i32: return detail::rescale_out<std::int32_t>(a, p);
    case dtype::id::i48: return detail::rescale_out<std::int64_t>(a, p);
    default: return status::unsupported_type;
  }
}

}  // namespace armlower::kernels
