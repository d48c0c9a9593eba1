/// @file armlower/kernels/mx/cast_to_block_scaled.hpp
/// TOSA 1.1-draft CAST_TO_BLOCK_SCALED (EXT-MXFP, as in tosa-tools 2026.05): fp32 or bf16 tensor → element data + E8M0
/// scales, blocks of 32 along the last dimension. Firmware-clean (no heap, no exceptions), status codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <armlower/dtype/dtype.hpp>
#include <armlower/kernels/mx/detail/shape.hpp>
#include <armlower/mx/quantize.hpp>

namespace armlower::kernels::mx {

using armlower::mx::scale_mode;
using armlower::mx::status;

/// CAST_TO_BLOCK_SCALED with in_t = fp32.
///  - `input`: row-major values of shape `shape` (rank ≥ 1, last dim a multiple of 32);
///  - `out_t`: FP8E4M3, FP8E5M2, FP6E2M3, FP6E3M2, FP4E2M1 or MXINT8;
///  - `output_data`: `armlower::mx::storage_bytes(out_t, count)` bytes (FP4 packed two per byte);
///  - `output_scale`: count/32 E8M0 codes, shape = `shape` with last dim / 32;
///  - `mode`: scale rule; TOSA semantics are `scale_mode::tosa` (the default). Other modes give the
///    torchao/OCP variants (mx/scale.hpp).
/// Each block: scale = calc_block_scale(max |x|) (NaN/Inf block → NaN scale, zero block → 2^-127),
/// data = round_to_nearest_float(x / scale), saturating (never reached with the TOSA rule).
/// Errors: `bad_rank` (rank 0), `empty_dimension` (a dim < 1), `bad_block_dim` (last dim % 32 ≠ 0),
/// `unsupported_type`, `buffer_size`. Nothing is written on error.
[[nodiscard]] constexpr status cast_to_block_scaled(std::span<const float> input,
                                                    std::span<const std::int32_t> shape, dtype::id out_t,
                                                    std::span<std::uint8_t> output_data,
                                                    std::span<std::uint8_t> output_scale,
                                                    scale_mode mode = scale_mode::tosa) noexcept {
  std::size_t n = 0;
  if (const status s = detail::check_data_shape(shape, n); s != status::ok) return s;
  if (input.size() != n) return status::buffer_size;
  return armlower::mx::quantize(input, static_cast<std::size_t>(shape.back()), out_t, mode, output_data,
                                output_scale);
}

/// CAST_TO_BLOCK_SCALED with in_t = bf16 (raw bf16 bits); otherwise as the fp32 overload.
[[nodiscard]] constexpr status cast_to_block_scaled(std::span<const std::uint16_t> input_bf16,
                                                    std::span<const std::int32_t> shape, dtype::id out_t,
                                                    std::span<std::uint8_t> output_data,
                                                    std::span<std::uint8_t> output_scale,
                                                    scale_mode mode = scale_mode::tosa) noexcept {
  std::size_t n = 0;
  if (const status s = detail::check_data_shape(shape, n); s != status::ok) return s;
  if (input_bf16.size() != n) return status::buffer_size;
  return armlower::mx::quantize(input_bf16, static_cast<std::size_t>(shape.back()), out_t, mode,
                                output_data, output_scale);
}

}  // namespace armlower::kernels::mx
