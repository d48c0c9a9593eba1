/// @file armlower/run/detail/context.hpp
/// What one operator's evaluation sees: its operands (already bound and type-checked for
/// presence), its declared results, its attribute, and helpers that build its `armlower::error`s
/// (location: stage "interpreter", the op's index in the graph, its name, the tensor).
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/run/error.hpp>
#include <armlower/run/detail/plan.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/kernels/linear_packed.hpp>
#include <armlower/kernels/linear_s16_packed.hpp>
#include <armlower/kernels/rescale_args.hpp>
#include <armlower/run/kernel_status.hpp>
#include <armlower/run/value.hpp>
#include <armlower/tosa/op.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <initializer_list>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <map>
#include <span>
#include <type_traits>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace armlower::run::detail {

/// Success (nullopt) or the error that stopped an op.
using status = std::optional<error>;

struct op_context;

/// The rest of an operator's evaluation once every check that depends only on its declarations,
/// attribute and constant operands has passed (`op_context::prepare`): a session runs it directly
/// on later runs. It still checks what depends on the run's data (the kernels' REQUIREs).
using prepared_op = std::function<std::optional<error>(const op_context&)>;

/// A kernel's storage copy of a tensor: int8, int16, int32, int64 or float elements.
using kernel_storage = std::variant<std::vector<std::int8_t>, std::vector<std::int16_t>, std::vector<std::int32_t>,
                                    std::vector<std::int64_t>, std::vector<float>>;

/// What a `run::session` keeps between runs, by slot of its `graph_plan`: every constant tensor
/// decoded once (`values`), the kernels' storage copies of constant operands (`kernel`, by slot
/// and storage type: int8/int16/int32/int64/float), packed weights (`packed`) and prepared
/// operators (`prepared`), made on first use. A plain `run::run` has none.
struct constant_cache {
  constant_cache(std::size_t slots, std::size_t ops)
      : values(slots), prepared(ops), conv_linear(ops), rescale(ops), same_elements(ops, 0), clamp_int(ops) {}
  std::vector<std::optional<value>> values;  ///< slot → decoded constant (sized once: addresses stay valid)
  std::map<std::pair<slot_id, std::size_t>, kernel_storage> kernel;
  /// A packed kernel layout of constant weights and the zero points it was packed for.
  struct packed_weights {
    std::vector<std::uint8_t> bytes;
    std::int8_t input_zp = 0, weight_zp = 0;  ///< int8 1×1 CONV2D zero points
  };
  /// Packed weights by slot (int8 1×1 CONV2D: `kernels::pack_conv2d_1x1_s8`; repacked when
  /// EXT-DYNAMIC zero points differ from the packed ones).
  std::map<slot_id, packed_weights> packed;
  /// Operator index → its prepared form (`op_context::prepare`), or empty.
  std::vector<prepared_op> prepared;
  /// The operators a run visits, in graph order, once `settled` (after the first complete run):
  /// every operator but those with nothing left to do for the session's lifetime — prepared, every
  /// result a pinned constant that no other operator writes (CONST). Before that, all operators.
  std::vector<std::uint32_t> schedule;
  bool settled = false;
  /// Once settled: a run can call the scheduled operators' prepared forms directly, skipping the
  /// general loop's per-operator checks (decided by `settle` in interpreter.hpp; `run_direct`).
  bool direct = false;
  /// With `direct`: the slots a run binds that are not pinned (the graph inputs and the scheduled
  /// operators' results) — all that the reset after a direct run has to unbind (`run_state::unbind_all`).
  std::vector<slot_id> direct_bound;
  /// Operator index → a 1×1 CONV2D as the linear layer it computes before requantization, recorded when it
  /// prepares; for `fuse_layers` (interpreter.hpp): an int8 one (packed weights or not) as
  /// `kernels::linear_s8_args` (input/filter offsets −zero points), an int16 × int8 → INT48 one with zero
  /// points 0 as `kernels::linear_s16_args` (bias the INT48 elements as int64) — weights and bias the
  /// session's kernel copies, batches × cols → rows; no input, output, multiplier or shift.
  std::vector<std::variant<std::monostate, kernels::linear_s8_args, kernels::linear_s16_args>> conv_linear;
  /// A prepared RESCALE's arguments (no input/output) with its multiplier and shift elements.
  struct rescale_record {
    kernels::rescale_args args;
    std::vector<std::int32_t> multiplier, shift;
  };
  /// Operator index → a prepared RESCALE's record, made when it prepares; for `fuse_layers`.
  std::vector<std::optional<rescale_record>> rescale;
  /// Operator index → 1 when its prepared form copies operand 0's elements, in order, into result 0
  /// of the same dtype (RESHAPE), recorded when it prepares; for `fuse_layers`, which reads or writes
  /// through such an operator instead of running it.
  std::vector<std::uint8_t> same_elements;
  /// Operator index → the bounds [min_val, max_val] of a prepared INT8 or INT16 CLAMP (min ≤ max), recorded
  /// when it prepares; for `fuse_layers`.
  std::vector<std::optional<std::array<std::int32_t, 2>>> clamp_int;
  /// A CONV2D and the RESCALE reading its result, run as one requantizing linear layer (`fuse_layers`): int8
  /// (`plan`) or a16w8 (`plan16`).
  struct fused_linear {
    std::vector<std::uint8_t> packed;              ///< its pack-on-first-use buffer (`kernels::linear_s8_cache_size` / `linear_s16_cache_size`)
    /// the RESCALE's multipliers and shifts, TFLite-style: int8 m and 31 − TOSA shift; a16w8 m·2^16 and 15 − TOSA shift
    std::vector<std::int32_t> multiplier, shift;
    kernels::linear_s8_plan plan;                  ///< int8: the checked call over these (`kernels::plan_linear_s8`)
    kernels::linear_s16_plan plan16;               ///< a16w8: the checked call (`kernels::plan_linear_s16`)
    slot_id input = 0;                             ///< the slot holding its input elements
  };
  /// The fused layers (a deque: its elements stay where they are, so the pointers into them hold).
  std::deque<fused_linear> fused;
  /// One call of a direct run: operator index, and its prepared form or the fused layer run in its place.
  struct direct_step {
    std::uint32_t op = 0;
    prepared_op form;
  };
  /// With `direct`: what a run calls, in schedule order — each scheduled operator's prepared form, with a
  /// fused layer (`fuse_layers`) in place of the operators it runs.
  std::vector<direct_step> direct_steps;
};

/// The values of one run, by slot: `val[s]` is the value bound to slot `s` — a caller's input
/// (borrowed, not copied), a constant in the session's cache, or `owned[s]` — or null when
/// nothing is bound (not yet produced, or dead). With `keep_storage` (a session), an unbound
/// `owned[s]` is a spare: the storage of slot `s`'s value from an earlier run (or of an output
/// the caller handed back), which the op producing slot `s` reuses (`op_context::result_buffer`).
struct run_state {
  std::vector<value> owned;
  std::vector<const value*> val;
  /// Dead values keep their storage as their slot's spare (a session), instead of releasing it.
  bool keep_storage = false;
  /// Slot → bound to a session's cached constant for the session's lifetime (never unbound: every
  /// run binds the same value there).
  std::vector<std::uint8_t> pinned;
  /// A result built apart from its slot (`op_context::result_buffer`, for a tensor written twice).
  value pending;
  /// Kernel scratch of one operator at a time (operands converted to kernel storage where the
  /// value's storage differs), by position `k` < 3; in a session kept between runs, so its
  /// capacity is reused.
  std::array<kernel_storage, 3> scratch;
  /// Scratch buffer `k` as a vector of `T` (emptied when it held another type).
  template <class T>
  [[nodiscard]] std::vector<T>& scratch_of(std::size_t k) {
    auto& s = scratch[k];
    if (!std::holds_alternative<std::vector<T>>(s)) s = std::vector<T>{};
    return std::get<std::vector<T>>(s);
  }
  /// Unbinds every slot and releases the values this run made, or keeps them as spares with
  /// `keep_storage` (keeps the arrays for the next run).
  void reset(std::size_t slots) {
    if (owned.size() != slots) {
      owned.assign(slots, value{});
      val.assign(slots, nullptr);
      pinned.assign(slots, 0);
      return;
    }
    for (std::size_t s = 0; s < slots; ++s) unbind(static_cast<slot_id>(s));
  }
  /// Unbinds each slot of `slots` (`unbind`): the reset after a run that bound no other slot (a direct
  /// run of a session, `constant_cache::direct_bound`).
  void unbind_all(const std::vector<slot_id>& slots) {
    for (const auto s : slots) unbind(s);
  }
  /// Unbinds slot `s` unless pinned; a value this run made there is released, or kept as the slot's
  /// spare with `keep_storage`.
  void unbind(slot_id s) {
    if (pinned[s] != 0) return;
    if (val[s] == &owned[s] && !keep_storage) owned[s] = value{};
    val[s] = nullptr;
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

  /// Error unless declared result `i` has dtype `t` (the dtype the op computes).
  [[nodiscard]] status expect_out_type(std::size_t i, dtype::id t) const {
    const auto& decl = out(i);
    if (t == decl.type) return std::nullopt;
    return fail(errc::error_if, decl.name,
                "result dtype " + std::string(dtype::name(t)) + " differs from the declared " +
                    std::string(dtype::name(decl.type)));
  }

  /// Stores result `i`, after checking its dtype and shape against the declared tensor.
  [[nodiscard]] status set(std::size_t i, value v) const {
    const auto& decl = out(i);
    if (auto e = expect_out_type(i, v.type)) return e;
    if (v.shape != decl.shape)
      return fail(errc::error_if, decl.name,
                  "result shape " + to_string(v.shape) + " differs from the declared " + to_string(decl.shape));
    bind(out_slot(i), std::move(v));
    return std::nullopt;
  }

  /// Binds `v` to slot `s` as a value of this run.
  void bind(slot_id s, value v) const {
    st.owned[s] = std::move(v);
    bind_owned(s);
  }

  /// Binds slot `s` to `st.owned[s]` as a value of this run (no longer pinned: an operator result that
  /// replaces a session constant of the same name is unbound after the run, as in `run::run`).
  void bind_owned(slot_id s) const {
    st.val[s] = &st.owned[s];
    st.pinned[s] = 0;
  }

  /// The elements of result `i`, built in its slot as a value of its declared dtype and shape, in
  /// storage `T` (precondition: `T` is the declared dtype's storage — `int_width_of` for integers,
  /// `float` for FP16/BF16/FP32, `std::uint8_t` for the code dtypes — and the op's shape rule gives the
  /// declared shape): the slot's spare
  /// (`run_state`: an earlier run's value there) is reused, so nothing is allocated while its capacity
  /// suffices. Contents unspecified: the kernel writes every element, then `commit(i)` binds the result.
  /// In a graph that writes a tensor twice (the slot holds a value of this run, maybe this op's operand)
  /// the result is built apart (`run_state::pending`).
  template <class T>
  [[nodiscard]] std::span<T> result_buffer(std::size_t i) const {
    const auto s = out_slot(i);
    const auto& decl = out(i);
    value& r = st.val[s] == &st.owned[s] ? st.pending : st.owned[s];
    r.type = decl.type;
    // a spare has the declared shape already (an element loop: ranks are small, a memcmp call costs more)
    bool same = r.shape.size() == decl.shape.size();
    for (std::size_t d = 0; same && d < decl.shape.size(); ++d) same = r.shape[d] == decl.shape[d];
    if (!same) r.shape.assign(decl.shape.begin(), decl.shape.end());
    const auto n = static_cast<std::size_t>(graph::element_count(decl.shape));
    if constexpr (std::is_same_v<T, float>) {
      r.ints.resize(0);
      r.codes.clear();
      r.reals.resize(n);
      return r.reals;
    } else if constexpr (std::is_same_v<T, std::uint8_t>) {
      r.ints.resize(0);
      r.reals.clear();
      r.codes.resize(n);
      return r.codes;
    } else {
      r.codes.clear();
      r.reals.clear();
      auto& v = r.ints.storage<T>();
      v.resize(n);
      return v;
    }
  }

  /// Binds result `i` built by `result_buffer` (its dtype and shape are the declared ones).
  [[nodiscard]] status commit(std::size_t i) const {
    const auto s = out_slot(i);
    if (st.val[s] == &st.owned[s]) st.owned[s] = std::move(st.pending);
    bind_owned(s);
    return std::nullopt;
  }

  /// In a session, keeps `p` as this operator's prepared form (run instead of the operator's
  /// checks on later runs) when every operand except those in `data` is a constant held by the
  /// session — so nothing the skipped checks read can differ between runs: operand dtypes and
  /// shapes are the declared ones (graph inputs are checked against their declarations, results
  /// by `set`), attributes and constants are fixed. Otherwise (a plain run, EXT-DYNAMIC operands)
  /// does nothing; so does an operator prepared already (running its prepared form).
  void prepare(prepared_op p, std::initializer_list<std::size_t> data) const {
    if (preparable(data)) cache->prepared[index] = std::move(p);
  }

  /// True when `prepare(p, data)` would keep `p`: a session, the operator not prepared yet, every
  /// operand except those in `data` a constant held by the session.
  [[nodiscard]] bool preparable(std::initializer_list<std::size_t> data) const {
    if (cache == nullptr || cache->prepared[index]) return false;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      bool is_data = false;
      for (const auto d : data) is_data = is_data || d == i;
      if (!is_data && !cached_constant(i)) return false;
    }
    return true;
  }

  /// Binds constant tensor `t` (slot `s`): in a session its decoded value in the cache (decoded on
  /// first use; the slot stays bound to it, `run_state::pinned`), else decoded for this run. Throws std::invalid_argument for a bad payload.
  void bind_constant(slot_id s, const graph::tensor& t) const {
    if (cache == nullptr) return bind(s, from_constant(t));
    auto& v = cache->values[s];
    if (!v) v.emplace(from_constant(t));
    st.val[s] = &*v;
    st.pinned[s] = 1;
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
