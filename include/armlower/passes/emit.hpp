/// @file armlower/passes/emit.hpp
/// Typed emission: the ONE call through which a lowering pass creates a TOSA operation,
///
///     emit<tosa::op::conv2d>(ctx, value<A>{x}, value<i8>{w}, value<Acc>{b}, value<A>{izp},
///                            value<i8>{wzp}, value<Acc>{acc}, conv2d_attr{...});
///
/// operands then results in TOSA order (`tosa::describe(O)`), then the attribute (omitted for
/// ops without one). Each tensor handle carries its dtype — `value<D>` at compile time,
/// `dyn_value` when only the run time knows it — so the op's type-support row (the dtypes of
/// the operands and results that have a slot in `tosa::describe(O)`) is formed at the emission
/// site and checked against the target of the `lowering_context`:
///
///  - compile-time target (`tosa::spec<"...">`), policy `on_illegal::reject`: the row is checked
///    with `tosa::require` — an illegal emission does not compile, and the diagnostic carries the
///    op table's reason ("CONV2D i16xi8->i48 requires EXT-INT16; TOSA-1.0+INT does not enable it");
///  - compile-time target, policy `on_illegal::report` (a pipeline picked by a run-time scheme):
///    `tosa::legal` is a constant; an illegal emission compiles into an error value with the
///    same reason;
///  - run-time target (`tosa::target`): `tosa::check`, error value when illegal;
///  - a `dyn_value` operand: run-time `tosa::check` whatever the target.
///
/// Attribute rules that depend on run-time values are checked at the emission too: a RESCALE
/// with DOUBLE_ROUND needs EXT-DOUBLEROUND, INEXACT_ROUND needs EXT-INEXACTROUND (TOSA 1.0
/// specification, RESCALE operator: `rounding_mode`, and §1.4 extensions).
///
/// Errors are collected in the context (every illegal emission, `errc::not_legal`, location:
/// stage = the pass, the model op index of the operator being lowered, the emitted op's name and
/// its first result); a pass finishes its walk and returns `ctx.take_error()`.
/// Legality of a pipeline is thereby a consequence of what it emits; there is no list of ops.
/// Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/passes/result.hpp>
#include <armlower/tosa/legality.hpp>
#include <armlower/tosa/op_descriptor.hpp>
#include <armlower/tosa/spec.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace armlower::passes {

/// A tensor (by name) whose dtype `D` is a compile-time constant.
template <dtype::id D>
struct value {
  std::string name;  ///< tensor name in the graph
  static constexpr dtype::id type = D;
};

/// A tensor (by name) whose dtype is known only at run time (its emission is checked at run time).
struct dyn_value {
  std::string name;  ///< tensor name in the graph
  dtype::id type;    ///< its dtype
};

/// What an emission the compile-time target forbids does.
enum class on_illegal : std::uint8_t {
  reject,  ///< does not compile (`tosa::require`)
  report,  ///< compiles into an error value (`tosa::legal` is false)
};

/// The target-independent state of a `lowering_context`: the target, where emitted ops go,
/// the operator being lowered, and the findings so far.
class emission_state {
 public:
  /// The target (`Target::value` for a compile-time one).
  [[nodiscard]] const tosa::target& target() const noexcept { return *t_; }

  /// Directs the following emissions to `out`, on behalf of pass `stage` (a string with static
  /// storage) lowering the operator with model index `source_index` (−1 when none) at graph
  /// position `graph_op`; the emitted ops get `source_index`.
  void at(std::vector<graph::operation>& out, std::string_view stage, std::int64_t source_index,
          std::int64_t graph_op) noexcept {
    out_ = &out;
    stage_ = stage;
    source_ = source_index;
    graph_op_ = graph_op;
  }
  /// The sink set by `at` (precondition: `at` was called).
  [[nodiscard]] std::vector<graph::operation>& sink() noexcept { return *out_; }
  /// Source index stamped on emitted ops.
  [[nodiscard]] std::int64_t source_index() const noexcept { return source_; }

  /// Records a finding at the current operator (op name `op`, tensor `tensor`).
  void fail(errc code, std::string_view op, std::string tensor, std::string message) {
    location w;
    w.stage = std::string(stage_);
    if (source_ >= 0) w.op_index = source_;
    else w.graph_op = graph_op_;
    w.op = std::string(op);
    w.tensor = std::move(tensor);
    add(armlower::error(code, std::move(w), std::move(message)));
  }
  /// Records an error (all of its findings).
  void add(const armlower::error& e) {
    if (err_) err_->add(e);
    else err_ = e;
  }
  /// True while nothing failed.
  [[nodiscard]] bool ok() const noexcept { return !err_.has_value(); }
  /// The collected error (precondition: `!ok()`); the context is clean afterwards.
  [[nodiscard]] armlower::error take_error() {
    armlower::error e = std::move(*err_);
    err_.reset();
    return e;
  }

 protected:
  explicit emission_state(const tosa::target& t) noexcept : t_(&t) {}

 private:
  const tosa::target* t_;
  std::vector<graph::operation>* out_ = nullptr;
  std::string_view stage_{};
  std::int64_t source_ = -1;
  std::int64_t graph_op_ = -1;
  std::optional<armlower::error> err_;
};

/// Where a pass's emissions go and against which target they are checked. `Target` is a
/// compile-time `tosa::spec<"...">` or the run-time `tosa::target`.
template <class Target, on_illegal Policy = on_illegal::reject>
class lowering_context : public emission_state {
 public:
  /// True for a compile-time target.
  static constexpr bool compile_time = tosa::TargetSpec<Target>;
  /// What an illegal emission does (compile-time targets only).
  static constexpr on_illegal policy = Policy;
  using target_type = Target;

  /// Context of a compile-time target.
  lowering_context() noexcept
    requires compile_time
      : emission_state(Target::value) {}
  /// Context of a run-time target (`t` must outlive the context).
  explicit lowering_context(const tosa::target& t) noexcept
    requires(!compile_time)
      : emission_state(t) {}
};

namespace detail {

template <class T>
inline constexpr bool is_static_value = false;
template <dtype::id D>
inline constexpr bool is_static_value<value<D>> = true;
template <class T>
inline constexpr bool is_handle = is_static_value<T> || std::is_same_v<T, dyn_value>;

template <class T>
constexpr dtype::id static_dtype() noexcept {
  if constexpr (is_static_value<T>) return T::type;
  else return dtype::id::boolean;  // unused: rows with a dyn_value are formed at run time
}

/// The type-support row of `O` from the dtypes of its operands then results (TOSA order).
template <tosa::op O, std::size_t N>
constexpr std::array<dtype::id, tosa::describe(O).n_slots> row_of(const std::array<dtype::id, N>& ds) noexcept {
  constexpr const auto& d = tosa::describe(O);
  std::array<dtype::id, d.n_slots> r{};
  for (std::size_t i = 0; i < d.n_in; ++i)
    if (d.in_[i].slot >= 0) r[static_cast<std::size_t>(static_cast<unsigned char>(d.in_[i].slot))] = ds[i];
  for (std::size_t i = 0; i < d.n_out; ++i)
    if (d.out_[i].slot >= 0) r[static_cast<std::size_t>(static_cast<unsigned char>(d.out_[i].slot))] = ds[d.n_in + i];
  return r;
}

template <class Target, tosa::op O, auto Row, std::size_t... I>
constexpr bool require_row(std::index_sequence<I...>) noexcept {
  return tosa::require<Target, O, Row[I]...>;
}
template <class Target, tosa::op O, auto Row, std::size_t... I>
constexpr bool legal_row(std::index_sequence<I...>) noexcept {
  return tosa::legal<Target, O, Row[I]...>;
}

/// A handle as the non-template core sees it.
struct handle_view {
  const std::string* name;
  dtype::id type;
};
template <dtype::id D>
handle_view view(const value<D>& v) noexcept {
  return {&v.name, D};
}
inline handle_view view(const dyn_value& v) noexcept { return {&v.name, v.type}; }

/// The non-template half of `emit`: builds the operation from `hs` (operands then results),
/// checks its row with `tosa::check` when `run_time_check`, checks the run-time attribute rules
/// (RESCALE rounding needs its extension), records findings and appends the op.
inline void emit_core(emission_state& ctx, tosa::op o, std::span<const handle_view> hs, graph::attribute attr,
                      bool run_time_check) {
  const auto& d = tosa::describe(o);
  graph::operation op;
  op.code = o;
  op.source_index = ctx.source_index();
  op.inputs.reserve(d.n_in);
  for (std::size_t i = 0; i < hs.size(); ++i) (i < d.n_in ? op.inputs : op.outputs).push_back(*hs[i].name);
  const std::string first_result = d.n_out > 0 ? op.outputs.front() : std::string();
  if (run_time_check) {
    std::array<dtype::id, tosa::max_slots> row{};
    for (std::size_t i = 0; i < d.n_in; ++i)
      if (d.in_[i].slot >= 0) row[static_cast<std::size_t>(static_cast<unsigned char>(d.in_[i].slot))] = hs[i].type;
    for (std::size_t i = 0; i < d.n_out; ++i)
      if (d.out_[i].slot >= 0) row[static_cast<std::size_t>(static_cast<unsigned char>(d.out_[i].slot))] = hs[d.n_in + i].type;
    const auto c = tosa::check(ctx.target(), o, std::span<const dtype::id>(row.data(), d.n_slots));
    if (!c.ok()) ctx.fail(errc::not_legal, d.name, first_result, std::string(c.reason()));
  }
  if (const auto* ra = std::get_if<graph::rescale_attr>(&attr); ra && o == tosa::op::rescale) {
    const auto& t = ctx.target();
    auto need = [&](tosa::ext e, const char* mode, const char* ext_name) {
      if (!t.supports(e))
        ctx.fail(errc::not_legal, "RESCALE", first_result,
                 std::string("RESCALE rounding ") + mode + " requires " + ext_name + "; " +
                     std::string(t.text().view()) + " does not enable it");
    };
    if (ra->rounding == tosa::rounding_mode::double_round) need(tosa::ext::doubleround, "DOUBLE_ROUND", "EXT-DOUBLEROUND");
    if (ra->rounding == tosa::rounding_mode::inexact_round)
      need(tosa::ext::inexactround, "INEXACT_ROUND", "EXT-INEXACTROUND");
  }
  op.attr = std::move(attr);
  ctx.sink().push_back(std::move(op));
}

/// `emit` with the handles at positions `I...` of `args`.
template <tosa::op O, class Ctx, std::size_t... I, class... A>
void emit_impl(Ctx& ctx, std::index_sequence<I...>, const A&... args) {
  constexpr std::size_t n = sizeof...(I);
  using args_t = std::tuple<A...>;
  const auto all = std::tie(args...);
  const std::array<handle_view, n> hs{view(std::get<I>(all))...};
  graph::attribute attr{};
  if constexpr (sizeof...(A) > n) attr = graph::attribute(std::get<n>(all));
  constexpr bool static_row = (is_static_value<std::tuple_element_t<I, args_t>> && ...);
  bool run_time_check = true;
  if constexpr (static_row && Ctx::compile_time) {
    using T = typename Ctx::target_type;
    constexpr auto row = row_of<O>(std::array<dtype::id, n>{static_dtype<std::tuple_element_t<I, args_t>>()...});
    constexpr auto slots = std::make_index_sequence<row.size()>{};
    if constexpr (Ctx::policy == on_illegal::reject) {
      static_assert(require_row<T, O, row>(slots));
    } else if constexpr (!legal_row<T, O, row>(slots)) {
      ctx.fail(errc::not_legal, tosa::describe(O).name, *hs[tosa::describe(O).n_in].name,
               std::string(tosa::check(T::value, O, std::span<const dtype::id>(row.data(), row.size())).reason()));
    }
    run_time_check = false;
  }
  emit_core(ctx, O, hs, std::move(attr), run_time_check);
}

}  // namespace detail

/// Emits TOSA op `O` into `ctx.sink()`: `args` are the operands then the results (tensor handles,
/// `value<D>` or `dyn_value`, in TOSA order, `tosa::describe(O)`), then the attribute
/// (a `graph::attribute` alternative; omitted for ops without one). Checks the op/dtype row
/// against the context's target as described in the file comment; an illegal emission is
/// recorded in `ctx` (the op is still appended, so the pass can go on and report every finding).
template <tosa::op O, class Ctx, class... A>
void emit(Ctx& ctx, const A&... args) {
  constexpr std::size_t n = std::size_t{tosa::describe(O).n_in} + tosa::describe(O).n_out;
  static_assert(sizeof...(A) == n || sizeof...(A) == n + 1,
                "emit<O>: pass the operands and results of O in TOSA order, then the attribute");
  detail::emit_impl<O>(ctx, std::make_index_sequence<n>{}, args...);
}

}  // namespace armlower::passes
