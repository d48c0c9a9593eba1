/// @file armlower/kernels/status.hpp
/// The status type of the kernels: `armlower::status` (core/status.hpp), kept under its old name
/// `armlower::kernels::status` so kernel callers need not change.
#pragma once

#include <armlower/core/status.hpp>

namespace armlower::kernels {

/// Result of a kernel: `armlower::status`.
using armlower::status;
/// Its text: `armlower::to_string(status)`.
using armlower::to_string;

}  // namespace armlower::kernels
