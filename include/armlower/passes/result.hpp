/// @file armlower/passes/result.hpp
/// Error values of the lowering passes: `armlower::error` / `armlower::expected` (core/error.hpp).
/// Every pass error has a code (`errc::invalid_graph`, `unsupported`, `not_legal`,
/// `invalid_argument`, ...) and a location: stage = the pass name, `op_index` = the operator's
/// index in the user's model (`graph::operation::source_index`) or, for an operator without one,
/// `graph_op` = its position in the graph, the op name and the tensor. One line reads
/// `DecomposeLinear: model op #3 linear, tensor 'fc1_weight': weights must be a constant`.
/// Hosted only.
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/graph/graph.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace armlower::passes {

/// Value or error of a pass (alias of `armlower::expected`).
template <class T>
using result = armlower::expected<T>;

/// Success of a pass that modifies a graph in place.
struct done {};
/// Success-or-error of a pass that modifies a graph in place.
using pass_status = result<done>;

/// Where a pass finding is: operator `o` at position `i` of the graph being processed —
/// `op_index = o.source_index` when the op comes from the user's model, else `graph_op = i` —
/// and the op name. Default-constructed: no operator (a graph-level finding).
struct op_site {
  std::int64_t op_index = -1;  ///< index in the user's model, −1 when none
  std::int64_t graph_op = -1;  ///< position in the graph when the op has no model index, else −1
  std::string op;              ///< op name ("linear", "CONV2D"), empty for a graph-level finding

  op_site() = default;
  op_site(const graph::operation& o, std::size_t i) : op(o.op_name()) {
    if (o.source_index >= 0) op_index = o.source_index;
    else graph_op = static_cast<std::int64_t>(i);
  }
  /// "model op #7 linear" / "op #3 CONV2D" (empty for a graph-level site), for messages.
  [[nodiscard]] std::string text() const {
    if (op_index >= 0) return "model op #" + std::to_string(op_index) + " " + op;
    if (graph_op >= 0) return "op #" + std::to_string(graph_op) + " " + op;
    return op;
  }
  /// The full location: this site in pass `stage`, naming `tensor` (may be empty).
  [[nodiscard]] location in(std::string_view stage, std::string tensor = {}) const {
    location w;
    w.stage = std::string(stage);
    w.op_index = op_index;
    w.graph_op = graph_op;
    w.op = op;
    w.tensor = std::move(tensor);
    return w;
  }
};

/// The location of operator `o` at position `i` of the graph being processed, in pass `stage`,
/// naming `tensor` (may be empty) (`op_site(o, i).in(stage, tensor)`).
[[nodiscard]] inline location op_location(std::string_view stage, const graph::operation& o, std::size_t i,
                                          std::string tensor = {}) {
  return op_site(o, i).in(stage, std::move(tensor));
}

/// A graph-level location (no operator) in pass `stage`, naming `tensor` (may be empty).
[[nodiscard]] inline location pass_location(std::string_view stage, std::string tensor = {}) {
  return op_site{}.in(stage, std::move(tensor));
}

/// A pass finding: `armlower::error` at `site` in pass `pass`, naming `tensor`, with `rule` as the
/// message. Code: `errc::invalid_graph` unless given.
struct lowering_error : armlower::error {
  lowering_error(std::string_view pass, const op_site& site, std::string tensor, std::string rule,
                 errc code = errc::invalid_graph)
      : armlower::error(code, site.in(pass, std::move(tensor)), std::move(rule)) {}
};

}  // namespace armlower::passes
