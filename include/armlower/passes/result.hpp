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

/// The location of operator `o` at position `i` of the graph being processed, in pass `stage`,
/// naming `tensor` (may be empty): `op_index = o.source_index` when the op comes from the user's
/// model, else `graph_op = i`.
[[nodiscard]] inline location op_location(std::string_view stage, const graph::operation& o, std::size_t i,
                                          std::string tensor = {}) {
  location w;
  w.stage = std::string(stage);
  if (o.source_index >= 0) w.op_index = o.source_index;
  else w.graph_op = static_cast<std::int64_t>(i);
  w.op = std::string(o.op_name());
  w.tensor = std::move(tensor);
  return w;
}

/// A graph-level location (no operator) in pass `stage`, naming `tensor` (may be empty).
[[nodiscard]] inline location pass_location(std::string_view stage, std::string tensor = {}) {
  location w;
  w.stage = std::string(stage);
  w.tensor = std::move(tensor);
  return w;
}

/// Legacy constructor of a pass error from `(pass, op label, tensor, rule)`, where the label is
/// `detail::op_label`'s "model op #N NAME" / "op #i NAME" (parsed back into `op_index` /
/// `graph_op` and `op`). Code: `errc::invalid_graph` unless given. Kept for code that still
/// builds errors from labels (passes/validate.hpp); new code uses `armlower::error` with
/// `op_location` directly.
struct lowering_error : armlower::error {
  lowering_error(std::string pass, std::string_view label, std::string tensor, std::string rule,
                 errc code = errc::invalid_graph)
      : armlower::error(code, parse(std::move(pass), label, std::move(tensor)), std::move(rule)) {}

 private:
  static location parse(std::string pass, std::string_view label, std::string tensor) {
    location w;
    w.stage = std::move(pass);
    w.tensor = std::move(tensor);
    auto number = [&](std::string_view prefix, std::int64_t& into) {
      if (label.substr(0, prefix.size()) != prefix) return false;
      std::size_t k = prefix.size();
      std::int64_t v = 0;
      while (k < label.size() && label[k] >= '0' && label[k] <= '9') v = v * 10 + (label[k++] - '0');
      into = v;
      label.remove_prefix(k < label.size() ? k + 1 : k);  // the space before the op name
      return true;
    };
    if (!number("model op #", w.op_index)) number("op #", w.graph_op);
    w.op = std::string(label);
    return w;
  }
};

}  // namespace armlower::passes
