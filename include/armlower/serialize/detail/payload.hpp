/// @file armlower/serialize/detail/payload.hpp
/// Wire-level helpers of the serializer that the graph IR does not cover:
///  - FP6 bit packing. The graph stores FP6E2M3/FP6E3M2 constants one code per byte
///    (`graph/constant.hpp`); on the wire tosa-tools 2026.8.0 packs them: element i occupies
///    bits [6i, 6i+6) of a little-endian bit stream (4 elements in 3 bytes, final byte
///    zero-filled). Established with `tosa_serializer.TosaSerializer.convertDataToUint8Vec`
///    (tests/serialize/tosa_oracle.py) and by running packed files in the reference model.
///  - the 8-byte padding of `TosaTensor.data` (tosa-tools serialization_lib's
///    `ForceAlignTensorData`; the schema's `force_align: 8`);
///  - CLAMP bounds as raw little-endian bytes of the input dtype (tosa-tools `tosa.fbs`:
///    `ClampAttribute { min_val: [ubyte]; max_val: [ubyte]; ... }`).
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/dtype/float16.hpp>
#include <armlower/graph/constant.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace armlower::serialize::detail {

/// True for the dtypes whose wire encoding is 6 bits per element, bit-packed.
[[nodiscard]] constexpr bool is_fp6(dtype::id t) noexcept {
  return t == dtype::id::fp6e2m3 || t == dtype::id::fp6e3m2;
}

/// Bytes of `n` elements of `t` on the wire (before padding): as `graph::payload_bytes`
/// except FP6, which is packed (ceil(6n / 8)).
[[nodiscard]] inline std::size_t wire_bytes(dtype::id t, std::int64_t n) {
  if (is_fp6(t)) return static_cast<std::size_t>((n * 6 + 7) / 8);
  return graph::payload_bytes(t, n);
}

/// Packs one-code-per-byte FP6 (low 6 bits used) into the wire's bit stream.
[[nodiscard]] inline std::vector<std::uint8_t> pack_fp6(std::span<const std::uint8_t> codes) {
  std::vector<std::uint8_t> out((codes.size() * 6 + 7) / 8, 0);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const std::size_t bit = i * 6;
    const unsigned v = codes[i] & 0x3Fu;
    out[bit / 8] |= static_cast<std::uint8_t>(v << (bit % 8));
    if (bit % 8 > 2) out[bit / 8 + 1] |= static_cast<std::uint8_t>(v >> (8 - bit % 8));
  }
  return out;
}

/// Unpacks `n` FP6 codes from the wire's bit stream; `bytes` must hold ceil(6n / 8) bytes.
[[nodiscard]] inline std::vector<std::uint8_t> unpack_fp6(std::span<const std::uint8_t> bytes,
                                                          std::size_t n) {
  std::vector<std::uint8_t> out(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bit = i * 6;
    unsigned v = bytes[bit / 8] >> (bit % 8);
    if (bit % 8 > 2) v |= static_cast<unsigned>(bytes[bit / 8 + 1]) << (8 - bit % 8);
    out[i] = static_cast<std::uint8_t>(v & 0x3Fu);
  }
  return out;
}

/// `n` rounded up to a multiple of 8.
[[nodiscard]] constexpr std::size_t pad8(std::size_t n) noexcept { return (n + 7) & ~std::size_t{7}; }

/// Bytes of one CLAMP bound of dtype `t` (1 INT8, 2 INT16/FP16/BF16, 4 INT32/FP32), 0 when
/// `t` has no CLAMP encoding here.
[[nodiscard]] constexpr std::size_t clamp_width(dtype::id t) noexcept {
  switch (t) {
    case dtype::id::i8: return 1;
    case dtype::id::i16:
    case dtype::id::fp16:
    case dtype::id::bf16: return 2;
    case dtype::id::i32:
    case dtype::id::fp32: return 4;
    default: return 0;
  }
}

/// Raw little-endian bytes of one CLAMP bound `v` in dtype `t` (INT8/INT16/INT32 exact
/// integers, FP16/BF16 rounded to nearest even, FP32 rounded from double). nullopt when `t`
/// has no CLAMP encoding here or an integer bound is not an integer of `t`.
[[nodiscard]] inline std::optional<double> clamp_value(dtype::id t, std::span<const std::uint8_t> b);

[[nodiscard]] inline std::optional<std::vector<std::uint8_t>> clamp_bytes(dtype::id t, double v) {
  const auto& ti = dtype::traits(t);
  std::uint64_t bits = 0;
  std::size_t n = 0;
  switch (t) {
    case dtype::id::i8:
    case dtype::id::i16:
    case dtype::id::i32:
      if (!(v >= static_cast<double>(ti.int_min) && v <= static_cast<double>(ti.int_max)) || std::floor(v) != v)
        return std::nullopt;
      bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      n = ti.storage_bits / 8u;
      break;
    case dtype::id::fp16: bits = dtype::fp32_to_fp16(static_cast<float>(v)); n = 2; break;
    case dtype::id::bf16: bits = dtype::fp32_to_bf16(static_cast<float>(v)); n = 2; break;
    case dtype::id::fp32: bits = std::bit_cast<std::uint32_t>(static_cast<float>(v)); n = 4; break;
    default: return std::nullopt;
  }
  std::vector<std::uint8_t> out(n);
  for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<std::uint8_t>(bits >> (8 * k));
  if (dtype::is_float(t)) {
    // NaN bounds are an ERROR_IF of CLAMP; a finite bound must stay finite in the dtype.
    if (std::isnan(v)) return std::nullopt;
    if (std::isfinite(v) && !std::isfinite(*clamp_value(t, out))) return std::nullopt;
  }
  return out;
}

/// Decodes one CLAMP bound of dtype `t` from its raw bytes (inverse of `clamp_bytes`);
/// nullopt when the byte count is not `clamp_width(t)` or `t` is not a CLAMP dtype.
[[nodiscard]] inline std::optional<double> clamp_value(dtype::id t, std::span<const std::uint8_t> b) {
  if (clamp_width(t) == 0 || b.size() != clamp_width(t)) return std::nullopt;
  std::uint64_t u = 0;
  for (std::size_t i = 0; i < b.size(); ++i) u |= static_cast<std::uint64_t>(b[i]) << (8 * i);
  switch (t) {
    case dtype::id::i8: return static_cast<double>(static_cast<std::int8_t>(u));
    case dtype::id::i16: return static_cast<double>(static_cast<std::int16_t>(u));
    case dtype::id::i32: return static_cast<double>(static_cast<std::int32_t>(u));
    case dtype::id::fp16: return static_cast<double>(dtype::fp16_to_fp32(static_cast<std::uint16_t>(u)));
    case dtype::id::bf16: return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(u << 16)));
    case dtype::id::fp32: return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(u)));
    default: return std::nullopt;
  }
}

}  // namespace armlower::serialize::detail
