/// @file armlower/core/status.hpp
/// Status codes returned by every firmware-clean function of armlower (quant, mx, kernels,
/// compat). Firmware code raises no exceptions; a function that can fail returns `status` and
/// writes its result through an out-parameter only when it returns `status::ok`.
///
/// Each code names *what* is wrong with the input; `to_string` gives a short English text for
/// logs and host-side error messages. Hosted code maps a status to an `armlower::error` with
/// `errc::kernel` (core/error.hpp). Firmware-clean: no heap, no static initialisation; includes
/// nothing of armlower (the bottom of the module graph).
#pragma once

#include <cstdint>

namespace armlower {

/// Result of a kernel or quantization helper. `ok` is 0, every error is non-zero, so
/// `if (s != status::ok)` and `if (static_cast<int>(s))` both test for failure.
enum class status : std::int32_t {
  ok = 0,                    ///< success
  null_pointer,              ///< a required data pointer (input, weights, output, …) is null
  empty_dimension,           ///< a dimension is zero or negative (batches, K = accumulation depth, rows, …)
  shape_mismatch,            ///< operand shapes or element counts are inconsistent
  shift_out_of_range,        ///< a shift is outside its documented range (TOSA: 2..62; TFLite-style: −31..30)
  multiplier_out_of_range,   ///< a multiplier is negative or too wide (TOSA REQUIRE multiplier ≥ 0; 16-bit > 32767)
  scale_out_of_range,        ///< a real scale is negative, NaN/Inf, or too large to encode as (multiplier, shift)
  zero_point_out_of_range,   ///< a zero point / offset is not allowed for the dtype (TOSA ERROR_IF) or out of range
  activation_range_invalid,  ///< activation_min > activation_max, or outside the output dtype's range
  value_out_of_range,        ///< a TOSA REQUIRE on a value failed (e.g. apply_scale_32 input, int48 accumulator overflow)
  scratch_too_small,         ///< caller scratch / context buffer smaller than the `*_get_buffer_size` result
  scratch_misaligned,        ///< caller scratch / context buffer not aligned for its element type
  unsupported_type,          ///< the dtype combination is not a row of the operator's type table
  invalid_attribute,         ///< an attribute combination is forbidden (TOSA ERROR_IF, e.g. scale32 with INT48 input)
  unsupported_path,          ///< an explicitly requested kernel path is not available on this CPU/build
  bad_rank,                  ///< MX: rank 0 (TOSA ERROR_IF rank == 0) or a rank the op does not accept
  bad_block_dim,             ///< MX: last dimension is not a multiple of the block size 32 (TOSA ERROR_IF)
  bad_batch,                 ///< MATMUL_T_BLOCK_SCALED: B batch D is neither 1 nor A's batch N
  buffer_size,               ///< a span is shorter (or longer) than its shape requires
};

/// Short English description of `s` ("shift out of range"); never null, never allocates.
[[nodiscard]] constexpr const char* to_string(status s) noexcept {
  switch (s) {
    case status::ok: return "ok";
    case status::null_pointer: return "null data pointer";
    case status::empty_dimension: return "zero or negative dimension";
    case status::shape_mismatch: return "inconsistent shapes";
    case status::shift_out_of_range: return "shift out of range";
    case status::multiplier_out_of_range: return "multiplier out of range";
    case status::scale_out_of_range: return "scale out of range (negative, NaN/Inf or too large)";
    case status::zero_point_out_of_range: return "zero point / offset out of range or not allowed";
    case status::activation_range_invalid: return "invalid activation range";
    case status::value_out_of_range: return "value out of range (TOSA REQUIRE failed)";
    case status::scratch_too_small: return "scratch buffer too small";
    case status::scratch_misaligned: return "scratch buffer misaligned";
    case status::unsupported_type: return "unsupported dtype combination";
    case status::invalid_attribute: return "invalid attribute combination";
    case status::unsupported_path: return "kernel path not available";
    case status::bad_rank: return "rank must be >= 1 (rank 3 for MATMUL_T_BLOCK_SCALED)";
    case status::bad_block_dim: return "last dimension must be a multiple of the block size 32";
    case status::bad_batch: return "B batch dimension must be 1 or equal to A's batch dimension";
    case status::buffer_size: return "buffer size does not match the shape";
  }
  return "unknown status";
}

}  // namespace armlower
