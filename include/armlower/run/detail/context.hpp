/// @file armlower/run/detail/context.hpp
/// What one operator's evaluation sees: its operands (already bound and type-checked for
/// presence), its declared results, its attribute, and helpers that build its `armlower::error`s
/// (location: stage "interpreter", the op's index in the graph, its name, the tensor).
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/run/error.hpp>
#include <armlower/run/kernel_status.hpp>
#include <armlower/run/value.hpp>
#include <armlower/tosa/op.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace armlower::run::detail {

/// Success (nullopt) or the error that stopped an op.
using status = std::optional<error>;

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

/// A kernel's storage copy of a tensor: int8, int16, int32, int64 or float elements.
using kernel_storage = std::variant<std::vector<std::int8_t>, std::vector<std::int16_t>, std::vector<std::int32_t>,
                                    std::vector<std::int64_t>, std::vector<float>>;

/// What a `run::session` keeps between runs, by slot of its `graph_plan`: every constant tensor
/// decoded once (`values`), the kernels' storage copies of constant operands (`kernel`, by slot
/// and storage type: int8/int16/int32/int64/float) and packed weights (`packed`), made on first
/// use. A plain `run::run` has none.
struct constant_cache {
  explicit constant_cache(std::size_t slots) : values(slots) {}
  std::vector<std::optional<value>> values;  ///< slot → decoded constant (sized once: addresses stay valid)
  std::map<std::pair<slot_id, std::size_t>, kernel_storage> kernel;
  /// A packed kernel layout of constant weights and the zero points it was packed for.
  struct packed_weights {
    std::vector<std::uint8_t> bytes;
    std::int32_t input_zp = 0, weight_zp = 0;
  };
  /// Packed weights by slot (int8 1×1 CONV2D: `kernels::pack_conv2d_1x1_s8`; repacked when
  /// EXT-DYNAMIC zero points differ from the packed ones).
  std::map<slot_id, packed_weights> packed;
};

/// The values of one run, by slot: `val[s]` is the value bound to slot `s` — a caller's input
/// (borrowed, not copied), a constant in the session's cache, or `owned[s]` — or null when
/// nothing is bound (not yet produced, or dead).
struct run_state {
  std::vector<value> owned;
  std::vector<const value*> val;
  /// Kernel scratch of one operator at a time (operands converted to kernel storage, raw results),
  /// by position `k` < 4; in a session kept between runs, so its capacity is reused.
  std::array<kernel_storage, 4> scratch;
  /// Scratch buffer `k` as a vector of `T` (emptied when it held another type).
  template <class T>
  [[nodiscard]] std::vector<T>& scratch_of(std::size_t k) {
    auto& s = scratch[k];
    if (!std::holds_alternative<std::vector<T>>(s)) s = std::vector<T>{};
    return std::get<std::vector<T>>(s);
  }
  /// Unbinds every slot and releases the values this run made (keeps the arrays for the next run).
  void reset(std::size_t slots) {
    owned.resize(slots);
    for (auto& v : owned) v = value{};
    val.assign(slots, nullptr);
  }
};

/// Evaluation context of one operator.
struct op_context {
  const graph::operation& op;
  std::size_t index;
  const graph_plan& plan;
  run_state& st;
  bool dynamic;  ///< EXT-DYNAMIC: compile-time-constant operands may be run-time values
  constant_cache* cache = nullptr;  ///< a session's decoded constants (constant operands live there), or null

  /// The location of this op and tensor `tensor` (may be empty).
  [[nodiscard]] location at(std::string_view tensor) const {
    location l;
    l.stage = std::string(stage);
    l.op_index = static_cast<std::int64_t>(index);
    l.op = std::string(op.op_name());
    l.tensor = std::string(tensor);
    return l;
  }
  /// An error of code `k` about tensor `tensor` for this op.
  [[nodiscard]] error fail(errc k, std::string_view tensor, std::string rule) const {
    return error(k, at(tensor), std::move(rule));
  }
  /// The error of a failed kernel call about tensor `tensor` (`run::from_status`).
  [[nodiscard]] error kernel_fail(kernels::status s, std::string_view tensor, std::string_view detail = {}) const {
    return from_status(s, at(tensor), detail);
  }
  /// Name of operand `i` / result `i` (precondition: arity checked).
  [[nodiscard]] const std::string& in_name(std::size_t i) const { return op.inputs[i]; }
  [[nodiscard]] const std::string& out_name(std::size_t i) const { return op.outputs[i]; }
  /// Slot of operand `i` / result `i`.
  [[nodiscard]] slot_id in_slot(std::size_t i) const { return plan.ops[index].in[i]; }
  [[nodiscard]] slot_id out_slot(std::size_t i) const { return plan.ops[index].out[i]; }
  /// Value of operand `i` (bound by the interpreter before dispatch).
  [[nodiscard]] const value& in(std::size_t i) const { return *st.val[in_slot(i)]; }
  /// True when operand `i` is a constant held by a session's cache (its kernel copies can be reused).
  [[nodiscard]] bool cached_constant(std::size_t i) const {
    const auto s = in_slot(i);
    return cache != nullptr && cache->values[s].has_value() && st.val[s] == &*cache->values[s];
  }
  /// Declared result tensor `i` (checked to exist by the interpreter before dispatch).
  [[nodiscard]] const graph::tensor& out(std::size_t i) const { return *plan.decl[out_slot(i)]; }

  /// Attribute of type `A`, or nullptr.
  template <class A>
  [[nodiscard]] const A* attr() const noexcept {
    return std::get_if<A>(&op.attr);
  }

  /// Error unless operand `i` is a compile-time constant (or EXT-DYNAMIC is on).
  [[nodiscard]] status require_constant(std::size_t i, std::string_view what) const {
    if (dynamic) return std::nullopt;
    const auto* t = plan.decl[in_slot(i)];
    if (t != nullptr && t->is_constant) return std::nullopt;
    return fail(errc::error_if, op.inputs[i],
                std::string(what) + " must be a compile-time constant (CTC) unless EXT-DYNAMIC");
  }

  /// Error unless operand `i` has dtype `t`.
  [[nodiscard]] status expect_type(std::size_t i, dtype::id t, std::string_view what) const {
    const auto& v = in(i);
    if (v.type == t) return std::nullopt;
    return fail(errc::error_if, op.inputs[i],
                std::string(what) + " must be " + std::string(dtype::name(t)) + ", is " +
                    std::string(dtype::name(v.type)));
  }

  /// Error unless operand `i` has exactly one element (a [1] zero point / shift).
  [[nodiscard]] status expect_single(std::size_t i, std::string_view what) const {
    const auto& v = in(i);
    if (v.size() == 1 && v.shape.size() <= 1) return std::nullopt;
    return fail(errc::error_if, op.inputs[i],
                std::string(what) + " must have shape [1], has " + to_string(v.shape));
  }

  /// Error unless declared result `i` has `shape` (the op's shape rule, checked before the
  /// result is allocated).
  [[nodiscard]] status expect_out_shape(std::size_t i, const std::vector<std::int32_t>& shape) const {
    const auto& decl = out(i);
    if (decl.shape == shape) return std::nullopt;
    return fail(errc::error_if, decl.name,
                "result shape must be " + to_string(shape) + ", is declared " + to_string(decl.shape));
  }

  /// Stores result `i`, after checking its dtype and shape against the declared tensor.
  [[nodiscard]] status set(std::size_t i, value v) const {
    const auto& decl = out(i);
    if (v.type != decl.type)
      return fail(errc::error_if, decl.name,
                  "result dtype " + std::string(dtype::name(v.type)) + " differs from the declared " +
                      std::string(dtype::name(decl.type)));
    if (v.shape != decl.shape)
      return fail(errc::error_if, decl.name,
                  "result shape " + to_string(v.shape) + " differs from the declared " + to_string(decl.shape));
    bind(out_slot(i), std::move(v));
    return std::nullopt;
  }

  /// Binds `v` to slot `s` as a value of this run.
  void bind(slot_id s, value v) const {
    st.owned[s] = std::move(v);
    st.val[s] = &st.owned[s];
  }

  /// Binds constant tensor `t` (slot `s`): in a session its decoded value in the cache (decoded on
  /// first use), else decoded for this run. Throws std::invalid_argument for a bad payload.
  void bind_constant(slot_id s, const graph::tensor& t) const {
    if (cache == nullptr) return bind(s, from_constant(t));
    auto& v = cache->values[s];
    if (!v) v.emplace(from_constant(t));
    st.val[s] = &*v;
  }
};

/// The interpreter's kernel binding of TOSA op `O`: `kernel<O>::eval(c)` checks the operator's
/// operands, attribute and declared results (its ERROR_IFs) and computes its results. One
/// specialisation per op, next to its evaluation (`data_layout.hpp`, `elementwise.hpp`,
/// `tensor_ops.hpp`, `block_scaled.hpp`); the interpreter reaches it through `tosa::visit_op`,
/// so running a new op is one specialisation. Unspecialised (an op that is described in
/// `tosa::descriptors` but has no evaluation): `bound` is false and `eval` refuses the op by name.
template <tosa::op O>
struct kernel {
  static constexpr bool bound = false;
  [[nodiscard]] static status eval(const op_context& c) {
    return c.fail(errc::unsupported, {}, "TOSA op " + std::string(c.op.op_name()) + " is not run by the interpreter");
  }
};

}  // namespace armlower::run::detail
