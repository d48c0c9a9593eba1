/// @file armlower/run/error.hpp
/// `run::error`: why the TOSA interpreter refused or stopped a graph — which operator (index
/// and TOSA name), which tensor, and which rule. The kinds mirror the TOSA graph-compliance
/// outcomes (TOSA 1.0 "TOSA Graph Compliance", chapters/introduction.adoc: ERROR_IF → TOSA_ERROR, REQUIRE →
/// TOSA_UNPREDICTABLE) plus the interpreter's own limits. Hosted only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace armlower::run {

/// Category of an interpreter error.
enum class error_kind : std::uint8_t {
  invalid_graph,  ///< malformed graph: missing/undeclared tensor, wrong operand count, missing
                  ///< attribute, input values that do not match the graph's inputs
  error_if,       ///< a TOSA ERROR_IF rule fails (the reference model returns TOSA_ERROR)
  require,        ///< a TOSA REQUIRE fails at run time (reference model: TOSA_UNPREDICTABLE)
  unsupported,    ///< an op or dtype combination the interpreter does not run, or a tensor
                  ///< above the per-tensor size limit (`run::options::max_tensor_bytes`)
};

/// Printable name of an error kind ("ERROR_IF").
[[nodiscard]] constexpr std::string_view name(error_kind k) noexcept {
  switch (k) {
    case error_kind::invalid_graph: return "invalid graph";
    case error_kind::error_if: return "ERROR_IF";
    case error_kind::require: return "REQUIRE";
    case error_kind::unsupported: return "unsupported";
  }
  return "unknown";
}

/// `error::op_index` of errors that concern the whole graph (its inputs/outputs).
inline constexpr std::size_t no_op = std::numeric_limits<std::size_t>::max();

/// An interpreter error.
struct error {
  error_kind kind = error_kind::invalid_graph;
  std::size_t op_index = no_op;  ///< index into `graph::operators`, or `no_op`
  std::string op_name;           ///< TOSA op name ("CONV2D"), empty for graph-level errors
  std::string tensor;            ///< the tensor the rule is about (may be empty)
  std::string rule;              ///< the rule that failed, as a sentence

  /// One line: "op 3 CONV2D, tensor 'w': ERROR_IF: <rule>".
  [[nodiscard]] std::string message() const {
    std::string m = op_index == no_op ? std::string("graph") : "op " + std::to_string(op_index) + " " + op_name;
    if (!tensor.empty()) m += ", tensor '" + tensor + "'";
    m += ": ";
    m += name(kind);
    m += ": " + rule;
    return m;
  }
};

}  // namespace armlower::run
