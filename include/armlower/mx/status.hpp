/// @file armlower/mx/status.hpp
/// Status codes of the OCP MX quantization functions and the block-scaled kernels
/// (`armlower/kernels/mx/`): the one `armlower::status` (core/status.hpp) every firmware-clean function
/// returns (MX adds `bad_rank`, `bad_block_dim`, `bad_batch`, `buffer_size`; a dimension < 1 is
/// `empty_dimension`, a dtype that is not an MX element type `unsupported_type`).
#pragma once

#include <armlower/core/status.hpp>

namespace armlower::mx {

/// The status type of the MX functions: `armlower::status`.
using armlower::status;
/// Its text: `armlower::to_string(status)`.
using armlower::to_string;

}  // namespace armlower::mx
