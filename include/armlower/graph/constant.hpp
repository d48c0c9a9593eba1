/// @file armlower/graph/constant.hpp
/// Encoding and decoding of constant tensor payloads in the TOSA wire encoding
/// (serialization_lib `tosa_serialization_handler.cpp` `Convert*toU8`): little-endian two's complement integers (INT48 as 6
/// bytes, SHAPE/INT64 as 8), BOOL as one 0/1 byte, INT4 and FP4E2M1 two per byte (even index in
/// bits [3:0]), FP8/FP8UE8M0/MXINT8 one raw code per byte, FP16/BF16 two raw bytes, FP32 four.
/// FP6 is held here one code per byte (the in-memory form); on the wire the serializer packs it
/// four values into three bytes, lowest bits first, as tosa-tools 2026.8.0 reads it
/// (`include/armlower/serialize/schema/README.md`). Padding to 8 bytes is the serializer's job.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace armlower::graph {

/// Bytes needed for `n` elements of `t` on the wire (sub-byte types round up).
[[nodiscard]] inline std::size_t payload_bytes(dtype::id t, std::int64_t n) {
  const auto sb = dtype::traits(t).storage_bits;
  return static_cast<std::size_t>((n * sb + 7) / 8);
}

/// Encodes integer values (BOOL, INT4..INT64, SHAPE) of dtype `t`.
/// Throws std::invalid_argument naming the value and dtype when a value is out of range
/// (INT4 accepts only −7..7, as the TOSA serializer does).
[[nodiscard]] inline std::vector<std::uint8_t> encode_ints(dtype::id t,
                                                           std::span<const std::int64_t> v) {
  const auto& ti = dtype::traits(t);
  if (ti.fam != dtype::family::integer && ti.fam != dtype::family::boolean &&
      ti.fam != dtype::family::shape)
    throw std::invalid_argument("encode_ints: " + std::string(ti.name) + " is not an integer dtype");
  std::vector<std::uint8_t> out(payload_bytes(t, static_cast<std::int64_t>(v.size())), 0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::int64_t x = v[i];
    if (x < ti.int_min || x > ti.int_max)
      throw std::invalid_argument("value " + std::to_string(x) + " at index " + std::to_string(i) +
                                  " does not fit " + std::string(ti.name));
    if (t == dtype::id::i4) {
      const auto nib = static_cast<std::uint8_t>(x & 0xF);
      out[i / 2] |= static_cast<std::uint8_t>((i % 2 == 0) ? nib : (nib << 4));
      continue;
    }
    const std::size_t nb = ti.storage_bits / 8;
    const auto u = static_cast<std::uint64_t>(x);
    for (std::size_t b = 0; b < nb; ++b) out[i * nb + b] = static_cast<std::uint8_t>(u >> (8 * b));
  }
  return out;
}

/// Decodes `n` integer values of dtype `t` (sign-extending). Throws std::invalid_argument
/// when `bytes` is too short.
[[nodiscard]] inline std::vector<std::int64_t> decode_ints(dtype::id t,
                                                           std::span<const std::uint8_t> bytes,
                                                           std::int64_t n) {
  const auto& ti = dtype::traits(t);
  if (bytes.size() < payload_bytes(t, n))
    throw std::invalid_argument("decode_ints: " + std::to_string(bytes.size()) + " bytes for " +
                                std::to_string(n) + " elements of " + std::string(ti.name));
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  const auto widen = [&out, &bytes](auto tag) {  // little-endian storage type of the whole dtype width
    using S = decltype(tag);
    for (std::size_t i = 0; i < out.size(); ++i) {
      S v;
      std::memcpy(&v, bytes.data() + i * sizeof(S), sizeof(S));
      out[i] = static_cast<std::int64_t>(v);  // NOLINT(bugprone-signed-char-misuse): int8 payloads sign-extend
    }
  };
  if constexpr (std::endian::native == std::endian::little) {
    if (t != dtype::id::i4 && ti.storage_bits == 8) {
      if (ti.is_signed) widen(std::int8_t{});
      else widen(std::uint8_t{});
      return out;
    }
    if (ti.storage_bits == 16 && ti.is_signed) { widen(std::int16_t{}); return out; }
    if (ti.storage_bits == 32 && ti.is_signed) { widen(std::int32_t{}); return out; }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (t == dtype::id::i4) {
      std::uint8_t nib = (i % 2 == 0) ? (bytes[i / 2] & 0xF) : (bytes[i / 2] >> 4);
      out[i] = (nib & 0x8) ? static_cast<std::int64_t>(nib) - 16 : nib;
      continue;
    }
    const std::size_t nb = ti.storage_bits / 8;
    std::uint64_t u = 0;
    for (std::size_t b = 0; b < nb; ++b) u |= static_cast<std::uint64_t>(bytes[i * nb + b]) << (8 * b);
    if (ti.is_signed && nb < 8) {
      const std::uint64_t sign = std::uint64_t{1} << (8 * nb - 1);
      if (u & sign) u |= ~((sign << 1) - 1);
    }
    out[i] = static_cast<std::int64_t>(u);
  }
  return out;
}

/// Encodes fp32 values (FP32 tensors).
[[nodiscard]] inline std::vector<std::uint8_t> encode_f32(std::span<const float> v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  if constexpr (std::endian::native == std::endian::little) {  // the wire order is the host's: one copy
    if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
    return out;
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t u;
    std::memcpy(&u, &v[i], 4);
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<std::uint8_t>(u >> (8 * b));
  }
  return out;
}

/// Decodes `n` fp32 values. Throws std::invalid_argument when `bytes` is too short.
[[nodiscard]] inline std::vector<float> decode_f32(std::span<const std::uint8_t> bytes,
                                                   std::int64_t n) {
  if (bytes.size() < static_cast<std::size_t>(n) * 4)
    throw std::invalid_argument("decode_f32: payload too short");
  std::vector<float> out(static_cast<std::size_t>(n));
  if constexpr (std::endian::native == std::endian::little) {  // the wire order is the host's: one copy
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 4);
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint32_t u = 0;
    for (int b = 0; b < 4; ++b) u |= static_cast<std::uint32_t>(bytes[i * 4 + b]) << (8 * b);
    std::memcpy(&out[i], &u, 4);
  }
  return out;
}

/// Encodes one raw code per element for the byte-or-smaller float formats (FP8E4M3, FP8E5M2,
/// FP6E2M3, FP6E3M2, FP8UE8M0, MXINT8: one byte each; FP4E2M1: two per byte, low nibble first).
[[nodiscard]] inline std::vector<std::uint8_t> encode_codes(dtype::id t,
                                                            std::span<const std::uint8_t> codes) {
  if (t == dtype::id::fp4e2m1) {
    std::vector<std::uint8_t> out((codes.size() + 1) / 2, 0);
    for (std::size_t i = 0; i < codes.size(); ++i)
      out[i / 2] |= static_cast<std::uint8_t>((i % 2 == 0) ? (codes[i] & 0xF) : ((codes[i] & 0xF) << 4));
    return out;
  }
  if (dtype::traits(t).storage_bits != 8)
    throw std::invalid_argument("encode_codes: " + std::string(dtype::name(t)) +
                                " is not a one-byte code type");
  return {codes.begin(), codes.end()};
}

/// Decodes `n` raw codes (inverse of `encode_codes`). Throws when `bytes` is too short.
[[nodiscard]] inline std::vector<std::uint8_t> decode_codes(dtype::id t,
                                                            std::span<const std::uint8_t> bytes,
                                                            std::int64_t n) {
  if (bytes.size() < payload_bytes(t, n))
    throw std::invalid_argument("decode_codes: payload too short for " + std::string(dtype::name(t)));
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = (t == dtype::id::fp4e2m1) ? static_cast<std::uint8_t>((i % 2 == 0) ? (bytes[i / 2] & 0xF) : (bytes[i / 2] >> 4))
                                       : bytes[i];
  return out;
}

/// Makes a constant tensor of integers.
/// Throws std::invalid_argument naming the tensor when a value does not fit `t`
/// ("tensor 'fc_input_zp': value 1000 at index 0 does not fit INT8").
[[nodiscard]] inline tensor make_int_constant(std::string name, dtype::id t,
                                              std::vector<std::int32_t> shape,
                                              std::span<const std::int64_t> values) {
  std::vector<std::uint8_t> bytes;
  try {
    bytes = encode_ints(t, values);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("tensor '" + name + "': " + e.what());
  }
  tensor r{std::move(name), t, std::move(shape), true, std::move(bytes), std::nullopt};
  return r;
}

/// Makes a constant fp32 tensor.
[[nodiscard]] inline tensor make_f32_constant(std::string name, std::vector<std::int32_t> shape,
                                              std::span<const float> values) {
  tensor r{std::move(name), dtype::id::fp32, std::move(shape), true, encode_f32(values), std::nullopt};
  return r;
}

}  // namespace armlower::graph
