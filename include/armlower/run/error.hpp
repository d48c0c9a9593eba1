/// @file armlower/run/error.hpp
/// The interpreter's errors are `armlower::error`s (core/error.hpp): code (`errc`), location
/// (stage "interpreter", `op_index` = the operator's index in the graph being run — for a graph
/// read from a .tosa file, its index in that file —, op name, tensor) and the rule as a sentence.
/// Codes used: `invalid_graph` (malformed graph: missing/undeclared tensor, operand count,
/// missing attribute, input values that do not match the graph's inputs), `error_if` (a TOSA
/// ERROR_IF rule fails: the reference model answers TOSA_ERROR), `require` (a TOSA REQUIRE fails
/// at run time: TOSA_UNPREDICTABLE), `unsupported` (an op or dtype combination the interpreter
/// does not run), `limit` (a tensor above `run::options::max_tensor_bytes`, out of memory) and
/// `kernel` (a kernel failure that is not a rule of the graph). The TOSA outcomes: TOSA
/// specification §1.4 "Compliance" (ERROR_IF → TOSA_ERROR, REQUIRE → TOSA_UNPREDICTABLE).
/// Hosted only.
#pragma once

#include <armlower/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace armlower::run {

/// The interpreter's error type (alias kept for callers of the former `run::error`).
using error = armlower::error;
/// The interpreter's error codes (alias kept for callers of the former `run::error_kind`).
using error_kind = armlower::errc;

/// The stage name in every interpreter error's location.
inline constexpr std::string_view stage = "interpreter";

/// An interpreter error of code `k` about operator `op_index` called `op_name` (both absent for
/// graph-level errors: `op_index` −1) and tensor `tensor` (may be empty).
[[nodiscard]] inline error make_error(errc k, std::int64_t op_index, std::string op_name, std::string tensor,
                                      std::string rule) {
  location at;
  at.stage = std::string(stage);
  at.op_index = op_index;
  at.op = std::move(op_name);
  at.tensor = std::move(tensor);
  return error(k, std::move(at), std::move(rule));
}

}  // namespace armlower::run
