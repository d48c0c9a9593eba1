/// @file armlower/run/detail/plan.hpp
/// A graph resolved for the interpreter: the tensor index, the size check of declared tensors and
/// `graph_plan` (every tensor name mapped once to a run-time slot, each operator's operand and
/// result slots, and when each value dies), so a run looks values up by index, not by name.
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/run/error.hpp>
#include <armlower/run/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace armlower::run::detail {

/// The graph's tensors by name, built once per run (`index_tensors`) so that every lookup is
/// O(1) and a run is linear in the graph size. With duplicate names the first tensor wins (as
/// `graph::find`).
using tensor_index = std::unordered_map<std::string_view, const graph::tensor*>;

/// The index of `g.tensors` (views into the graph's names: valid while `g` is unchanged).
[[nodiscard]] inline tensor_index index_tensors(const graph::graph& g) {
  tensor_index idx;
  idx.reserve(g.tensors.size());
  for (const auto& t : g.tensors) idx.emplace(t.name, &t);
  return idx;
}

/// The declared tensor called `n`, or nullptr.
[[nodiscard]] inline const graph::tensor* find_in(const tensor_index& idx, std::string_view n) {
  const auto it = idx.find(n);
  return it == idx.end() ? nullptr : it->second;
}

/// A declared tensor the interpreter refuses to allocate: why, and the error code.
struct size_refusal {
  errc kind;  ///< `invalid_graph` for an invalid shape, `limit` above the limit
  std::string rule;
};

/// Nothing when tensor `t` (declared dtype and shape) is a valid shape within `limit` bytes of
/// interpreter storage, else why not (see `options::max_tensor_bytes`). Allocates nothing.
[[nodiscard]] inline std::optional<size_refusal> check_tensor_size(const graph::tensor& t, std::uint64_t limit) {
  if (auto m = check_shape(t.shape); !m.empty())
    return size_refusal{errc::invalid_graph, "bad shape " + to_string(t.shape) + ": " + m};
  const auto bytes = static_cast<std::uint64_t>(graph::element_count(t.shape)) * element_bytes(t.type);
  if (bytes > limit)
    return size_refusal{errc::limit,
                        "tensor " + to_string(t.shape) + " of " + std::string(dtype::name(t.type)) + " needs " +
                            std::to_string(bytes) + " bytes, above the per-tensor limit of " + std::to_string(limit) +
                            " bytes (run::options::max_tensor_bytes)"};
  return std::nullopt;
}

/// A tensor's run-time slot: every distinct name a graph input, operator operand or result, or
/// graph output refers to has one (`graph_plan`), so a run finds values by index, not by name.
using slot_id = std::uint32_t;

/// Operand and result slots of one operator, and the slots whose values die after it (operands
/// whose last use it is and results nothing reads, graph outputs excepted).
struct op_slots {
  std::vector<slot_id> in, out, free_after;
};

/// A graph resolved for running (built once per `run::run`, once per `run::session`): the slot of
/// every referenced tensor name, its declaration (the first tensor of that name, or null when
/// undeclared), each operator's slots and the slots of the graph inputs and outputs. Views into
/// the graph's strings: valid while the graph is unchanged. Building it checks nothing; the
/// interpreter loop reports every error where `run::run` always has (op by op, in order).
struct graph_plan {
  std::vector<std::string_view> names;       ///< slot → tensor name
  std::vector<const graph::tensor*> decl;    ///< slot → declared tensor, or null
  std::vector<op_slots> ops;                 ///< per operator of the graph
  std::vector<slot_id> inputs, outputs;      ///< slots of `graph::inputs` / `graph::outputs`
  std::vector<bool> is_output;               ///< slot → named in `graph::outputs`
  /// slot → declared, with a valid shape of at most `limit` bytes of interpreter storage
  /// (`check_tensor_size` says why not, when it is false)
  std::vector<bool> size_ok;

  /// Plan of `g` with tensor index `idx` (`index_tensors(g)`) and per-tensor limit `limit` bytes.
  graph_plan(const graph::graph& g, const tensor_index& idx, std::uint64_t limit) {
    std::unordered_map<std::string_view, slot_id> slot_of;
    const auto slot = [&](std::string_view n) {
      const auto [it, fresh] = slot_of.try_emplace(n, static_cast<slot_id>(names.size()));
      if (fresh) {
        names.push_back(n);
        decl.push_back(find_in(idx, n));
      }
      return it->second;
    };
    for (const auto& n : g.inputs) inputs.push_back(slot(n));
    ops.resize(g.operators.size());
    for (std::size_t i = 0; i < g.operators.size(); ++i) {
      for (const auto& n : g.operators[i].inputs) ops[i].in.push_back(slot(n));
      for (const auto& n : g.operators[i].outputs) ops[i].out.push_back(slot(n));
    }
    for (const auto& n : g.outputs) outputs.push_back(slot(n));
    size_ok.assign(names.size(), false);
    for (std::size_t s = 0; s < names.size(); ++s) size_ok[s] = decl[s] != nullptr && !check_tensor_size(*decl[s], limit);
    is_output.assign(names.size(), false);
    for (const auto s : outputs) is_output[s] = true;
    // last use of each slot as an operand; a value dies after its last use (results nothing reads after
    // the op that makes them die at once)
    constexpr auto never = static_cast<std::size_t>(-1);
    std::vector<std::size_t> last_use(names.size(), never);
    for (std::size_t i = 0; i < ops.size(); ++i)
      for (const auto s : ops[i].in) last_use[s] = i;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      auto& f = ops[i].free_after;
      for (const auto s : ops[i].in)
        if (last_use[s] == i && !is_output[s]) f.push_back(s);
      for (const auto s : ops[i].out)
        if ((last_use[s] == never || last_use[s] < i) && !is_output[s]) f.push_back(s);
    }
  }
};

}  // namespace armlower::run::detail
