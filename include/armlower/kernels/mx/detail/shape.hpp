/// @file armlower/kernels/mx/detail/shape.hpp
/// Shape validation shared by the block-scaled kernels (TOSA 1.1-draft EXT-MXFP ERROR_IF rules).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <armlower/mx/format.hpp>
#include <armlower/mx/status.hpp>

namespace armlower::kernels::mx::detail {

using armlower::mx::status;

/// Checks a data shape (rank ≥ 1, dims ≥ 1, last dim % 32 == 0) and returns its element count.
[[nodiscard]] constexpr status check_data_shape(std::span<const std::int32_t> shape, std::size_t& count) noexcept {
  if (shape.empty()) return status::bad_rank;
  std::size_t n = 1;
  for (std::int32_t d : shape) {
    if (d < 1) return status::empty_dimension;
    n *= static_cast<std::size_t>(d);
  }
  if (shape.back() % armlower::mx::block_size != 0) return status::bad_block_dim;
  count = n;
  return status::ok;
}

/// Checks that `scale_shape` is `data_shape` with the last dimension divided by 32.
[[nodiscard]] constexpr status check_scale_shape(std::span<const std::int32_t> data_shape,
                                                 std::span<const std::int32_t> scale_shape) noexcept {
  if (scale_shape.size() != data_shape.size()) return status::shape_mismatch;
  for (std::size_t i = 0; i + 1 < data_shape.size(); ++i)
    if (scale_shape[i] != data_shape[i]) return status::shape_mismatch;
  if (static_cast<std::int64_t>(scale_shape.back()) * armlower::mx::block_size != data_shape.back())
    return status::shape_mismatch;
  return status::ok;
}

}  // namespace armlower::kernels::mx::detail
