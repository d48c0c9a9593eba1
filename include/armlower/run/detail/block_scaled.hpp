/// @file armlower/run/detail/block_scaled.hpp
/// The TOSA 1.1-draft block-scaled ops of the interpreter (tosa.md §3.6): operand checks and
/// calls into armlower's MX kernels.
#pragma once

#include <armlower/run/detail/context.hpp>

namespace armlower::run::detail {

[[nodiscard]] inline status eval_cast_to_block_scaled(const op_context& c) {
  return c.fail(error_kind::unsupported, {}, "CAST_TO_BLOCK_SCALED kernel not wired yet");
}
[[nodiscard]] inline status eval_cast_from_block_scaled(const op_context& c) {
  return c.fail(error_kind::unsupported, {}, "CAST_FROM_BLOCK_SCALED kernel not wired yet");
}
[[nodiscard]] inline status eval_matmul_t_block_scaled(const op_context& c) {
  return c.fail(error_kind::unsupported, {}, "MATMUL_T_BLOCK_SCALED kernel not wired yet");
}

}  // namespace armlower::run::detail
