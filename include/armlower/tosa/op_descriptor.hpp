/// @file armlower/tosa/op_descriptor.hpp
/// THE description of each TOSA operator armlower knows: its spelling, serialized code,
/// operands (TOSA order, with roles), results, which operands' dtypes form the key of its
/// type-support rows (the op table's slots), and the kind of its attribute table. Everything
/// that needs an op's shape of facts — the writer's and reader's operand counts, the
/// serializer's and interpreter's dispatch, `validate`, `inspect`, the legality queries —
/// derives them from `descriptors` (a constexpr table) and dispatches with `visit_op`, which
/// turns a run-time `op` into a compile-time `op_constant<O>` without a `switch`.
///
/// Design: a constexpr table rather than a type list, so that a run-time query is a table
/// lookup and compile-time code reads the same entries (`describe(O)` in a constant
/// expression). Per-op behaviour that is code, not data (the interpreter's evaluation, an
/// attribute table's encoding), is a template specialised on the op (`template <op O>`),
/// found through `visit_op`.
///
/// Source: TOSA 1.0 specification §2 (operator definitions: argument names, kinds and order),
/// the 1.1 draft's EXT-MXFP operators, and the `Op`/`Attribute` enums of tosa-tools'
/// `schema/tosa.fbs` (the union index equals the op number).
#pragma once

#include <armlower/tosa/op.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

namespace armlower::tosa {

/// What an operand is for (the TOSA argument's meaning); passes and the interpreter find
/// operands by role instead of by position.
enum class role : std::uint8_t {
  input,       ///< activation / data input (CONV2D `input`, ADD `input1`, CAST `input`)
  weight,      ///< CONV2D `weight`, MATMUL `B`
  bias,        ///< CONV2D `bias`
  zero_point,  ///< `input_zp`, `weight_zp`, `output_zp`, `A_zp`, `B_zp`
  multiplier,  ///< RESCALE `multiplier`
  shift,       ///< RESCALE / MUL `shift`
  shape,       ///< RESHAPE `shape` (a shape_t constant)
  scale,       ///< block scales (`A_scale`, `B_scale`, `output_scale`, `input_scale`): FP8UE8M0
  output,      ///< a result
};

/// Kind of an op's attribute table (the `graph::attribute` alternative it carries, same order).
enum class attr_kind : std::uint8_t {
  none = 0,          ///< empty attribute table
  conv2d = 1,        ///< Conv2dAttribute {pad, stride, dilation, local_bound, acc_type}
  rescale = 2,       ///< RescaleAttribute {scale32, rounding_mode, per_channel, input_unsigned, output_unsigned}
  transpose = 3,     ///< TransposeAttribute {perms}
  clamp = 4,         ///< ClampAttribute {min_val, max_val, nan_mode}
  block_scaled = 5,  ///< {block_size} of the three EXT-MXFP ops
  nan_mode = 6,      ///< {nan_mode} (MaximumAttribute, MinimumAttribute)
};

/// One operand or result of an op.
struct operand {
  std::string_view name{};  ///< the TOSA argument name ("input", "weight_zp", "output_scale")
  role r = role::input;     ///< its role
  std::int8_t slot = -1;    ///< type-row slot its dtype fills, or −1 (not part of the row key)
};

/// Maximum operand and result counts of the ops described.
inline constexpr std::size_t max_inputs = 5;
inline constexpr std::size_t max_outputs = 2;
inline constexpr std::size_t max_slots = 3;

/// A validation rule a family of ops shares, stated in each member's descriptor (the ERROR_IFs of
/// its pseudocode; rules of one op alone are `passes/validate.hpp` `op_rules<O>` specialisations).
enum class shape_rule : std::uint8_t {
  none,                ///< no shared rule
  elementwise_binary,  ///< ADD, MAXIMUM, MINIMUM, …: input1, input2 and output share in_out_t; equal
                       ///< ranks; each dimension equal or 1; the output has the broadcast shape
};

/// The facts of one TOSA op.
struct op_descriptor {
  op code;                                        ///< the op (its value is the serialized `Op`)
  std::string_view name;                          ///< TOSA spelling ("CONV2D")
  std::array<operand, max_inputs> in_{};          ///< operands in TOSA order (first `n_in` used)
  std::uint8_t n_in = 0;                          ///< operand count
  std::array<operand, max_outputs> out_{};        ///< results in TOSA order (first `n_out` used)
  std::uint8_t n_out = 0;                         ///< result count
  attr_kind attr = attr_kind::none;               ///< attribute table kind
  std::array<std::string_view, max_slots> slot_names{};  ///< type-row slot names ("input", "weight", "output")
  std::uint8_t n_slots = 0;                       ///< type-row slot count
  shape_rule rule = shape_rule::none;             ///< shared validation rule (`passes::validate_graph`)

  /// The operands (TOSA order).
  [[nodiscard]] constexpr std::span<const operand> inputs() const noexcept { return {in_.data(), n_in}; }
  /// The results (TOSA order).
  [[nodiscard]] constexpr std::span<const operand> outputs() const noexcept { return {out_.data(), n_out}; }
  /// Position of the first operand with role `r`, or −1.
  [[nodiscard]] constexpr int input_index(role r) const noexcept {
    for (std::size_t i = 0; i < n_in; ++i)
      if (in_[i].r == r) return static_cast<int>(i);
    return -1;
  }
};

namespace detail::desc {
using enum role;
constexpr operand in(std::string_view n, role r = input, std::int8_t slot = -1) noexcept { return {n, r, slot}; }
constexpr operand res(std::string_view n, std::int8_t slot = -1) noexcept { return {n, output, slot}; }
}  // namespace detail::desc

/// Every op armlower knows, in `all_ops` order. Operand names and order: TOSA 1.0 §2 and the
/// 1.1 draft (EXT-MXFP); slots: the op table's row key (documented in `tosa/op_table.hpp`).
inline constexpr std::array descriptors = [] {
  using namespace detail::desc;
  using a = attr_kind;
  return std::array<op_descriptor, 15>{{
      {op::const_, "CONST", {}, 0, {res("output", 0)}, 1, a::none, {"t"}, 1},
      {op::reshape, "RESHAPE", {in("input1", input, 0), in("shape", shape)}, 2, {res("output")}, 1, a::none, {"t"}, 1},
      {op::transpose, "TRANSPOSE", {in("input1", input, 0)}, 1, {res("output")}, 1, a::transpose, {"t"}, 1},
      {op::conv2d,
       "CONV2D",
       {in("input", input, 0), in("weight", weight, 1), in("bias", bias), in("input_zp", zero_point),
        in("weight_zp", zero_point)},
       5,
       {res("output", 2)},
       1,
       a::conv2d,
       {"input", "weight", "output"},
       3},
      {op::matmul,
       "MATMUL",
       {in("A", input, 0), in("B", weight, 1), in("A_zp", zero_point), in("B_zp", zero_point)},
       4,
       {res("output", 2)},
       1,
       a::none,
       {"A", "B", "output"},
       3},
      {op::rescale,
       "RESCALE",
       {in("input", input, 0), in("multiplier", multiplier), in("shift", shift), in("input_zp", zero_point),
        in("output_zp", zero_point)},
       5,
       {res("output", 1)},
       1,
       a::rescale,
       {"input", "output"},
       2},
      {op::add, "ADD", {in("input1", input, 0), in("input2")}, 2, {res("output")}, 1, a::none, {"t"}, 1, shape_rule::elementwise_binary},
      {op::maximum, "MAXIMUM", {in("input1", input, 0), in("input2")}, 2, {res("output")}, 1, a::nan_mode, {"t"}, 1, shape_rule::elementwise_binary},
      {op::minimum, "MINIMUM", {in("input1", input, 0), in("input2")}, 2, {res("output")}, 1, a::nan_mode, {"t"}, 1, shape_rule::elementwise_binary},
      {op::mul, "MUL", {in("input1", input, 0), in("input2"), in("shift", shift)}, 3, {res("output", 1)}, 1, a::none,
       {"input", "output"}, 2},
      {op::clamp, "CLAMP", {in("input", input, 0)}, 1, {res("output")}, 1, a::clamp, {"t"}, 1},
      {op::cast, "CAST", {in("input", input, 0)}, 1, {res("output", 1)}, 1, a::none, {"input", "output"}, 2},
      {op::cast_to_block_scaled,
       "CAST_TO_BLOCK_SCALED",
       {in("input_data", input, 0)},
       1,
       {res("output_data", 1), {"output_scale", scale, -1}},
       2,
       a::block_scaled,
       {"input", "output_data"},
       2},
      {op::cast_from_block_scaled,
       "CAST_FROM_BLOCK_SCALED",
       {in("input_data", input, 0), in("input_scale", scale)},
       2,
       {res("output", 1)},
       1,
       a::block_scaled,
       {"input_data", "output"},
       2},
      {op::matmul_t_block_scaled,
       "MATMUL_T_BLOCK_SCALED",
       {in("A_data", input, 0), in("A_scale", scale), in("B_data", weight, 1), in("B_scale", scale)},
       4,
       {res("output")},
       1,
       a::block_scaled,
       {"A_data", "B_data"},
       2},
  }};
}();

/// Position of `o` in `descriptors`, or `descriptors.size()` when `o` is not an op armlower knows
/// (e.g. an `Op` number read from a file).
[[nodiscard]] constexpr std::size_t index_of(op o) noexcept {
  for (std::size_t i = 0; i < descriptors.size(); ++i)
    if (descriptors[i].code == o) return i;
  return descriptors.size();
}

/// Every op armlower knows, in `descriptors` order (for iteration).
inline constexpr auto all_ops = [] {
  std::array<op, descriptors.size()> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = descriptors[i].code;
  return a;
}();

/// True when `o` is described (a known op).
[[nodiscard]] constexpr bool known(op o) noexcept { return index_of(o) < descriptors.size(); }

/// The descriptor of `o`; precondition `known(o)`.
[[nodiscard]] constexpr const op_descriptor& describe(op o) noexcept { return descriptors[index_of(o)]; }

/// TOSA spelling of an op ("CONV2D", "MATMUL_T_BLOCK_SCALED"), or "UNKNOWN" for a value that
/// is not described (e.g. an `Op` number read from a file).
[[nodiscard]] constexpr std::string_view name(op o) noexcept {
  return known(o) ? describe(o).name : std::string_view("UNKNOWN");
}

/// Name of the C++ attribute type (`graph::attribute` alternative) of kind `k` ("conv2d_attr"),
/// for error messages. Indexed by the enum value (no switch).
[[nodiscard]] constexpr std::string_view attr_type_name(attr_kind k) noexcept {
  constexpr std::string_view names[] = {"no attribute (std::monostate)", "conv2d_attr", "rescale_attr",
                                        "transpose_attr", "clamp_attr", "block_scaled_attr",
                                        "nan_mode_attr"};
  const auto i = static_cast<std::size_t>(k);
  return i < std::size(names) ? names[i] : std::string_view("?");
}

/// A compile-time op: the argument `visit_op` passes (`decltype(O)::value`, or `O()`).
template <op O>
using op_constant = std::integral_constant<op, O>;

namespace detail {
template <class F, std::size_t I>
constexpr decltype(auto) call_with_op(F& f) {
  return f(op_constant<descriptors[I].code>{});
}
/// The `call_with_op` of every described op for `F`, one table per `F` in static storage (a local
/// array would be rebuilt on the stack at every call).
template <class F, class Seq>
struct op_call_table;
template <class F, std::size_t... I>
struct op_call_table<F, std::index_sequence<I...>> {
  using result = decltype(std::declval<F&>()(op_constant<descriptors[0].code>{}));
  static constexpr result (*fns[])(F&) = {&call_with_op<F, I>...};
};
template <class F, class Seq>
constexpr decltype(auto) visit_op_impl(std::size_t k, F& f, Seq) {
  return op_call_table<F, Seq>::fns[k](f);
}
}  // namespace detail

/// Calls `f(op_constant<o>{})` for the run-time op `o` (one instantiation of `f` per described
/// op, one indirect call, no `switch`). Every instantiation must return the same type.
/// Precondition: `known(o)`.
template <class F>
constexpr decltype(auto) visit_op(op o, F&& f) {
  return detail::visit_op_impl(index_of(o), f, std::make_index_sequence<descriptors.size()>{});
}

/// Calls `f(op_constant<O>{})` for every described op, in `descriptors` order.
template <class F>
constexpr void for_each_op(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(op_constant<descriptors[I].code>{}), ...);
  }(std::make_index_sequence<descriptors.size()>{});
}

}  // namespace armlower::tosa
