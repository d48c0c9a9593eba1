/// @file armlower/kernels/detail/align64.hpp
/// Where a packing read with 64-byte vector loads starts inside a caller's buffer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace armlower::kernels::detail {

/// Bytes from p to the first 64-byte boundary at or after it (0–63). A packing placed there (the
/// buffer holding 64 bytes more than the packing) is read by 64-byte vector loads that never split a
/// cache line: the packed int8 linear layouts (`linear_s8_cache_size`) and the MX tiles16 layout
/// (`mx::packed_b_storage_size`).
[[nodiscard]] inline std::size_t align64_offset(const void* p) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return static_cast<std::size_t>((64 - a % 64) % 64);
}

}  // namespace armlower::kernels::detail
