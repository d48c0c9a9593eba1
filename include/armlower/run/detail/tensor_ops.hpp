/// @file armlower/run/detail/tensor_ops.hpp
/// CONV2D, MATMUL and RESCALE of the interpreter: operand checks (TOSA 1.0 ERROR_IFs) and calls
/// into armlower's kernels.
#pragma once

#include <armlower/run/detail/context.hpp>

namespace armlower::run::detail {

[[nodiscard]] inline status eval_conv2d(const op_context& c) {
  return c.fail(error_kind::unsupported, {}, "CONV2D kernel not wired yet");
}
[[nodiscard]] inline status eval_matmul(const op_context& c) {
  return c.fail(error_kind::unsupported, {}, "MATMUL kernel not wired yet");
}
[[nodiscard]] inline status eval_rescale(const op_context& c) {
  return c.fail(error_kind::unsupported, {}, "RESCALE kernel not wired yet");
}

}  // namespace armlower::run::detail
