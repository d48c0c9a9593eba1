/// @file armlower/mx/status.hpp
/// Status codes reported by the OCP MX quantization functions and the block-scaled kernels
/// (`armlower/kernels/mx/`). Firmware-clean: no exceptions, every failure is a value.
#pragma once

#include <cstdint>

namespace armlower::mx {

/// Result of an MX function or kernel. Every non-`ok` value names what is wrong with the input;
/// when a function reports an error it has written nothing it documents as output.
enum class status : std::uint8_t {
  ok,                ///< success
  bad_rank,          ///< rank 0 (TOSA ERROR_IF rank == 0) or a rank the op does not accept
  bad_block_dim,     ///< last dimension is not a multiple of the block size 32 (TOSA ERROR_IF)
  shape_mismatch,    ///< scale shape ≠ data shape with last dim / 32, or A/B shapes disagree
  bad_batch,         ///< MATMUL_T_BLOCK_SCALED: B batch D is neither 1 nor A's batch N
  bad_dimension,     ///< a dimension is < 1
  buffer_size,       ///< a span is shorter (or longer) than the shape requires
  unsupported_type,  ///< dtype is not an MX element type (FP8E4M3, FP8E5M2, FP6E2M3, FP6E3M2, FP4E2M1, MXINT8)
  unsupported_path,  ///< the requested kernel path is not compiled in for this target / element type
};

/// Short human-readable description of `s` (a string literal; never null).
[[nodiscard]] constexpr const char* describe(status s) noexcept {
  switch (s) {
    case status::ok: return "ok";
    case status::bad_rank: return "rank must be >= 1 (rank 3 for MATMUL_T_BLOCK_SCALED)";
    case status::bad_block_dim: return "last dimension must be a multiple of the block size 32";
    case status::shape_mismatch: return "scale shape must equal data shape with last dim / 32; A/B last dims must match";
    case status::bad_batch: return "B batch dimension must be 1 or equal to A's batch dimension";
    case status::bad_dimension: return "every dimension must be >= 1";
    case status::buffer_size: return "buffer size does not match the shape";
    case status::unsupported_type: return "not an MX element type";
    case status::unsupported_path: return "kernel path not available for this target or element type";
  }
  return "unknown status";
}

}  // namespace armlower::mx
