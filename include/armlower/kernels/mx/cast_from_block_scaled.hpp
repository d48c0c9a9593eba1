/// @file armlower/kernels/mx/cast_from_block_scaled.hpp
/// TOSA 1.1-draft CAST_FROM_BLOCK_SCALED (EXT-MXFP, as in tosa-tools 2026.05): element data + E8M0 scales → fp32 or bf16,
/// out = round_to_nearest_float<out_t>((fp32)x · (fp32)scale). Firmware-clean, status codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <armlower/dtype/dtype.hpp>
#include <armlower/kernels/mx/detail/shape.hpp>
#include <armlower/mx/bf16.hpp>
#include <armlower/mx/e8m0.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/packed.hpp>
#include <armlower/mx/quantize.hpp>

namespace armlower::kernels::mx {

using armlower::mx::status;

/// CAST_FROM_BLOCK_SCALED with out_t = fp32.
///  - `in_t`: the element type of `input_data` (FP8E4M3, FP8E5M2, FP6E2M3, FP6E3M2, FP4E2M1, MXINT8);
///  - `input_data`: `storage_bytes(in_t, count)` bytes for `data_shape` (rank ≥ 1, last dim % 32 == 0);
///  - `input_scale`: E8M0 codes of shape `scale_shape` = `data_shape` with last dim / 32;
///  - `output`: count fp32 values. A NaN scale (0xFF) gives NaN for the whole block; products that
///    exceed fp32 give ±Inf (e.g. scale 2^127 × element ≥ 2).
/// Errors: `bad_rank`, `empty_dimension`, `bad_block_dim`, `shape_mismatch` (scale shape),
/// `unsupported_type`, `buffer_size`.
[[nodiscard]] constexpr status cast_from_block_scaled(dtype::id in_t, std::span<const std::uint8_t> input_data,
                                                      std::span<const std::int32_t> data_shape,
                                                      std::span<const std::uint8_t> input_scale,
                                                      std::span<const std::int32_t> scale_shape,
                                                      std::span<float> output) noexcept {
  std::size_t n = 0;
  if (const status s = detail::check_data_shape(data_shape, n); s != status::ok) return s;
  if (const status s = detail::check_scale_shape(data_shape, scale_shape); s != status::ok) return s;
  if (output.size() != n) return status::buffer_size;
  return armlower::mx::dequantize(input_data, input_scale, static_cast<std::size_t>(data_shape.back()), in_t,
                                  output);
}

/// CAST_FROM_BLOCK_SCALED with out_t = bf16 (raw bits): the fp32 product rounded to bf16 (RNE).
/// Errors as the fp32 overload.
[[nodiscard]] constexpr status cast_from_block_scaled(dtype::id in_t, std::span<const std::uint8_t> input_data,
                                                      std::span<const std::int32_t> data_shape,
                                                      std::span<const std::uint8_t> input_scale,
                                                      std::span<const std::int32_t> scale_shape,
                                                      std::span<std::uint16_t> output_bf16) noexcept {
  std::size_t n = 0;
  if (const status s = detail::check_data_shape(data_shape, n); s != status::ok) return s;
  if (const status s = detail::check_scale_shape(data_shape, scale_shape); s != status::ok) return s;
  if (!armlower::mx::is_element(in_t)) return status::unsupported_type;
  if (output_bf16.size() != n || input_data.size() != armlower::mx::storage_bytes(in_t, n) ||
      input_scale.size() != n / armlower::mx::block_size)
    return status::buffer_size;
  const armlower::mx::packed_codes codes(in_t, input_data, n);
  for (std::size_t i = 0; i < n; ++i)
    output_bf16[i] = armlower::mx::fp32_to_bf16(armlower::mx::decode(in_t, codes[i]) *
                                                armlower::mx::decode_e8m0(input_scale[i / armlower::mx::block_size]));
  return status::ok;
}

}  // namespace armlower::kernels::mx
