/// @file armlower/mx/packed.hpp
/// Span-based views of MX element codes in armlower's storage layout: FP4E2M1 packed two per byte
/// (element 2i in bits [3:0], element 2i+1 in bits [7:4], as TOSA packs INT4 and torch
/// `float4_e2m1fn_x2` packs FP4), every other MX element type one code per byte (FP6 in the low
/// 6 bits). Firmware-clean; the views never own memory and never allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <armlower/dtype/dtype.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::mx {

/// Read-only view of `size()` element codes of type `type()` stored in `bytes()`.
class packed_codes {
 public:
  /// Views `n` codes of type `t` in `bytes`. Precondition: `bytes.size() >= storage_bytes(t, n)`
  /// (check with `valid()`).
  constexpr packed_codes(dtype::id t, std::span<const std::uint8_t> bytes, std::size_t n) noexcept
      : bytes_(bytes), n_(n), t_(t), nibbles_(format(t).storage_bits == 4) {}
  /// True when the byte span is large enough for `size()` codes.
  [[nodiscard]] constexpr bool valid() const noexcept { return bytes_.size() >= storage_bytes(t_, n_); }
  /// Code of element `i` (low bits; FP4 0..15). Precondition: `i < size()`.
  [[nodiscard]] constexpr std::uint8_t operator[](std::size_t i) const noexcept {
    if (!nibbles_) return bytes_[i];
    const std::uint8_t b = bytes_[i / 2];
    return static_cast<std::uint8_t>((i & 1u) ? (b >> 4) : (b & 0x0Fu));
  }
  /// Number of codes viewed.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return n_; }
  /// Element type of the codes.
  [[nodiscard]] constexpr dtype::id type() const noexcept { return t_; }
  /// The underlying bytes.
  [[nodiscard]] constexpr std::span<const std::uint8_t> bytes() const noexcept { return bytes_; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t n_;
  dtype::id t_;
  bool nibbles_;
};

/// Writable view of `size()` element codes of type `type()` stored in `bytes()`.
class packed_codes_mut {
 public:
  /// Views `n` codes of type `t` in `bytes`. Precondition: `bytes.size() >= storage_bytes(t, n)`.
  constexpr packed_codes_mut(dtype::id t, std::span<std::uint8_t> bytes, std::size_t n) noexcept
      : bytes_(bytes), n_(n), t_(t), nibbles_(format(t).storage_bits == 4) {}
  /// True when the byte span is large enough for `size()` codes.
  [[nodiscard]] constexpr bool valid() const noexcept { return bytes_.size() >= storage_bytes(t_, n_); }
  /// Stores `code` (its low 4 bits for FP4) as element `i`. Precondition: `i < size()`.
  constexpr void set(std::size_t i, std::uint8_t code) noexcept {
    if (!nibbles_) {
      bytes_[i] = code;
      return;
    }
    std::uint8_t& b = bytes_[i / 2];
    b = (i & 1u) ? static_cast<std::uint8_t>((b & 0x0Fu) | ((code & 0x0Fu) << 4))
                 : static_cast<std::uint8_t>((b & 0xF0u) | (code & 0x0Fu));
  }
  /// Code of element `i`. Precondition: `i < size()`.
  [[nodiscard]] constexpr std::uint8_t operator[](std::size_t i) const noexcept {
    return packed_codes(t_, bytes_, n_)[i];
  }
  /// Number of codes viewed.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return n_; }
  /// Element type of the codes.
  [[nodiscard]] constexpr dtype::id type() const noexcept { return t_; }
  /// The underlying bytes.
  [[nodiscard]] constexpr std::span<std::uint8_t> bytes() const noexcept { return bytes_; }

 private:
  std::span<std::uint8_t> bytes_;
  std::size_t n_;
  dtype::id t_;
  bool nibbles_;
};

}  // namespace armlower::mx
