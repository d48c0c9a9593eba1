/// @file armlower/mx/quantize.hpp
/// MX quantization of a row-major matrix (or any tensor viewed as rows × cols, blocks of 32 along
/// the last dimension) into element codes + E8M0 scales, and the inverse. This is what the lowering
/// passes call to MX-quantize a weight matrix [Cout, Cin] ahead of time (ExecuTorch `to_mx`, block
/// 32), and what the CAST_TO_BLOCK_SCALED / CAST_FROM_BLOCK_SCALED kernels run.
///
/// Per block (OCP MX v1.0 §6.3; TOSA 1.1-draft CAST_TO_BLOCK_SCALED):
///   scale = block_scale(max |x_i|, t, mode)                      (see mx/scale.hpp)
///   code_i = encode(t, x_i · 2^-(scale-127), overflow::saturate)  (RNE, saturating; mx/element.hpp)
/// The multiplication by the exact power of two 2^-(scale-127) equals TOSA's fp32 division x / scale
/// (both are the correctly rounded quotient). A block whose scale is NaN (it holds NaN or Inf) gets
/// the codes of `encode(t, NaN)` (E4M3/E5M2 NaN, FP6/FP4/MXINT8 0); their value is NaN anyway.
/// Firmware-clean: no allocation, status codes.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include <armlower/dtype/dtype.hpp>
#include <armlower/mx/bf16.hpp>
#include <armlower/mx/e8m0.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/format.hpp>
#include <armlower/mx/scale.hpp>
#include <armlower/mx/status.hpp>

namespace armlower::mx {

namespace detail {

template <class In>
[[nodiscard]] constexpr float load_fp32(In v) noexcept {
  if constexpr (std::is_same_v<In, std::uint16_t>) return bf16_to_fp32(v);
  else return v;
}

/// Quantizes `nblocks` consecutive blocks of element type T (compile-time) from `x`.
template <dtype::id T, class In>
constexpr void quantize_blocks(const In* x, std::size_t nblocks, scale_mode mode, std::uint8_t* codes,
                               std::uint8_t* scales) noexcept {
  constexpr bool nibbles = format(T).storage_bits == 4;
  for (std::size_t b = 0; b < nblocks; ++b) {
    const In* xb = x + b * block_size;
    float v[block_size];
    std::uint32_t amax = 0;
    for (int i = 0; i < block_size; ++i) {
      v[i] = load_fp32(xb[i]);
      const std::uint32_t a = std::bit_cast<std::uint32_t>(v[i]) & 0x7FFFFFFFu;
      amax = a > amax ? a : amax;
    }
    const std::uint8_t s = block_scale_from_bits(amax, T, mode);
    scales[b] = s;
    const float inv = s == e8m0_nan ? std::numeric_limits<float>::quiet_NaN() : pow2f(127 - static_cast<int>(s));
    std::uint8_t c[block_size];
    for (int i = 0; i < block_size; ++i) c[i] = encode<T>(v[i] * inv, overflow::saturate);
    if constexpr (nibbles) {
      std::uint8_t* out = codes + b * (block_size / 2);
      for (int i = 0, j = 0; i < block_size / 2; ++i, j += 2)
        out[i] = static_cast<std::uint8_t>((c[j] & 0x0Fu) | ((c[j + 1] & 0x0Fu) << 4));
    } else {
      std::uint8_t* out = codes + b * block_size;
      for (int i = 0; i < block_size; ++i) out[i] = c[i];
    }
  }
}

template <class In>
[[nodiscard]] constexpr status quantize_impl(std::span<const In> x, std::size_t cols, dtype::id t,
                                             scale_mode mode, std::span<std::uint8_t> codes,
                                             std::span<std::uint8_t> scales) noexcept {
  if (!is_element(t)) return status::unsupported_type;
  if (cols == 0) return status::empty_dimension;
  if (cols % block_size != 0) return status::bad_block_dim;
  if (x.size() % cols != 0) return status::buffer_size;
  const std::size_t nblocks = x.size() / block_size;
  if (codes.size() != storage_bytes(t, x.size()) || scales.size() != nblocks) return status::buffer_size;
  const In* px = x.data();
  std::uint8_t* pc = codes.data();
  std::uint8_t* ps = scales.data();
  switch (t) {
    case dtype::id::fp8e4m3: quantize_blocks<dtype::id::fp8e4m3>(px, nblocks, mode, pc, ps); break;
    case dtype::id::fp8e5m2: quantize_blocks<dtype::id::fp8e5m2>(px, nblocks, mode, pc, ps); break;
    case dtype::id::fp6e2m3: quantize_blocks<dtype::id::fp6e2m3>(px, nblocks, mode, pc, ps); break;
    case dtype::id::fp6e3m2: quantize_blocks<dtype::id::fp6e3m2>(px, nblocks, mode, pc, ps); break;
    case dtype::id::fp4e2m1: quantize_blocks<dtype::id::fp4e2m1>(px, nblocks, mode, pc, ps); break;
    default: quantize_blocks<dtype::id::mxint8>(px, nblocks, mode, pc, ps); break;
  }
  return status::ok;
}

}  // namespace detail

/// MX-quantizes the fp32 values `x`, viewed as rows of `cols` values (row-major; e.g. a weight
/// matrix [Cout, Cin] with cols = Cin), into element codes of type `t` and one E8M0 scale per 32
/// consecutive values of a row.
///  - `codes`: exactly `storage_bytes(t, x.size())` bytes (FP4 packed two per byte, low nibble first;
///    others one code per byte), same row-major order as `x`;
///  - `scales`: exactly `x.size() / 32` E8M0 codes, row-major [rows, cols/32].
/// Errors: `unsupported_type` (t not an MX element type), `empty_dimension` (cols == 0),
/// `bad_block_dim` (cols % 32 != 0), `buffer_size` (x not whole rows, or an output span of the
/// wrong size). Nothing is written on error.
[[nodiscard]] constexpr status quantize(std::span<const float> x, std::size_t cols, dtype::id t,
                                        scale_mode mode, std::span<std::uint8_t> codes,
                                        std::span<std::uint8_t> scales) noexcept {
  return detail::quantize_impl(x, cols, t, mode, codes, scales);
}

/// As `quantize`, for bf16 input given as raw bf16 bits (TOSA bf16_t). Each value is widened to
/// fp32 exactly before scaling, as TOSA CAST_TO_BLOCK_SCALED's bf16 rows do.
[[nodiscard]] constexpr status quantize(std::span<const std::uint16_t> x_bf16, std::size_t cols,
                                        dtype::id t, scale_mode mode, std::span<std::uint8_t> codes,
                                        std::span<std::uint8_t> scales) noexcept {
  return detail::quantize_impl(x_bf16, cols, t, mode, codes, scales);
}

/// Dequantizes MX codes back to fp32: out_i = fp32(decode(t, code_i) · decode_e8m0(scale)), the
/// product rounded to fp32 (TOSA CAST_FROM_BLOCK_SCALED with out_t = fp32). `codes` and `scales`
/// have the layouts `quantize` writes for `out.size()` values in rows of `cols`.
/// Errors: as `quantize`.
[[nodiscard]] constexpr status dequantize(std::span<const std::uint8_t> codes,
                                          std::span<const std::uint8_t> scales, std::size_t cols,
                                          dtype::id t, std::span<float> out) noexcept {
  if (!is_element(t)) return status::unsupported_type;
  if (cols == 0) return status::empty_dimension;
  if (cols % block_size != 0) return status::bad_block_dim;
  if (out.size() % cols != 0) return status::buffer_size;
  if (codes.size() != storage_bytes(t, out.size()) || scales.size() != out.size() / block_size)
    return status::buffer_size;
  const auto table = decode_table(t);
  const bool nibbles = format(t).storage_bits == 4;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint8_t c = nibbles ? static_cast<std::uint8_t>((i & 1u) ? codes[i / 2] >> 4 : codes[i / 2] & 0x0Fu)
                                   : codes[i];
    out[i] = table[c & (table.size() - 1)] * decode_e8m0(scales[i / block_size]);
  }
  return status::ok;
}

}  // namespace armlower::mx
