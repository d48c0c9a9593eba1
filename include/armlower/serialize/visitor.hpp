/// @file armlower/serialize/visitor.hpp
/// The serializer's per-op visitors and their legality gate.
///
/// - `op_visitor<Op>`: one template specialization per TOSA op armlower emits; it encodes the
///   op's attribute table (serialization_lib `schema/tosa.fbs` attribute tables) and the `TosaOperator` with
///   its operands in TOSA order (§4.5).
/// - `op_writer<Spec, Op, Dtypes...>`: the visitor of one type-support row of the one op
///   table (`tosa/op_table.hpp`, slot order documented there) for a compile-time target
///   `Spec` (`tosa::spec<"...">`). It exists only for rows the target allows: instantiating it
///   for a forbidden op/dtype combination (MATMUL_T_BLOCK_SCALED on a 1.0 target, an INT48
///   CONV2D without int16) is a compile error whose text carries the reason from
///   `tosa::require` (e.g. "CONV2D i16xi8->i48 requires EXT-INT16; TOSA-1.0+INT does not
///   enable it"). `serialize::write<Spec>(g)` instantiates `op_writer` only for the rows legal
///   on `Spec` and dispatches each operator of `g` to its row at run time.
/// - `slot_dtypes(g, o)`: the operand dtypes of an operation in the op table's slot order,
///   the key of both dispatches (runtime targets use `tosa::check` on it).
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/serialize/detail/generated.hpp>
#include <armlower/serialize/detail/payload.hpp>
#include <armlower/serialize/format.hpp>
#include <armlower/tosa/legality.hpp>
#include <armlower/tosa/op.hpp>
#include <armlower/tosa/op_table.hpp>
#include <armlower/tosa/spec.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace armlower::serialize {

namespace detail {

/// What a visitor needs while one graph is being serialized.
struct emit_context {
  flatbuffers::FlatBufferBuilder& fbb;
  const graph::graph& g;
  format f;
  const std::unordered_map<std::string_view, std::size_t>& index;  ///< tensor name → index in g

  [[nodiscard]] const graph::tensor& tensor(const std::string& n) const { return g.tensors[index.at(n)]; }
};

using operator_offset = flatbuffers::Offset<fb11::TosaOperator>;

/// Builds a TosaOperator (op code, attribute union, operand names) around `attr`.
inline operator_offset make_operator(emit_context& c, std::uint32_t code, flatbuffers::Offset<void> attr,
                                     const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  std::vector<flatbuffers::Offset<flatbuffers::String>> in, out;
  in.reserve(inputs.size());
  out.reserve(outputs.size());
  for (const auto& n : inputs) in.push_back(c.fbb.CreateString(n));
  for (const auto& n : outputs) out.push_back(c.fbb.CreateString(n));
  const auto vin = c.fbb.CreateVector(in);
  const auto vout = c.fbb.CreateVector(out);
  return fb11::CreateTosaOperator(c.fbb, static_cast<fb11::Op>(code), static_cast<fb11::Attribute>(code), attr, vin,
                                  vout);
}

}  // namespace detail

/// Serializer visitor of one op: `attribute(ctx, o)` encodes the op's attribute table from
/// `o.attr` (already checked by the writer: the right alternative, values in range) and
/// `emit(ctx, o)` the whole TosaOperator. The primary template covers the ops whose attribute
/// table is empty (MATMUL, ADD, MUL, RESHAPE, CAST, CONST).
template <tosa::op Op>
struct op_visitor {
  static flatbuffers::Offset<void> attribute(detail::emit_context& c, const graph::operation&) {
    namespace fb = detail::fb11;
    if constexpr (Op == tosa::op::matmul) return fb::CreateMatMulAttribute(c.fbb).Union();
    else if constexpr (Op == tosa::op::add) return fb::CreateAddAttribute(c.fbb).Union();
    else if constexpr (Op == tosa::op::mul) return fb::CreateMulAttribute(c.fbb).Union();
    else if constexpr (Op == tosa::op::reshape) return fb::CreateReshapeAttribute(c.fbb).Union();
    else if constexpr (Op == tosa::op::cast) return fb::CreateCastAttribute(c.fbb).Union();
    else if constexpr (Op == tosa::op::const_) return fb::CreateConstAttribute(c.fbb).Union();
    else static_assert(Op == tosa::op::const_, "op_visitor: no visitor for this op");
  }
  static detail::operator_offset emit(detail::emit_context& c, const graph::operation& o) {
    const auto a = op_visitor::attribute(c, o);
    return detail::make_operator(c, tosa::serialized(Op), a, o.inputs, o.outputs);
  }
};

/// CONV2D: Conv2dAttribute {pad[4], stride[2], dilation[2], local_bound, acc_type (a DType)}.
template <>
struct op_visitor<tosa::op::conv2d> {
  static flatbuffers::Offset<void> attribute(detail::emit_context& c, const graph::operation& o) {
    const auto& a = std::get<graph::conv2d_attr>(o.attr);
    const auto pad = c.fbb.CreateVector(a.pad.data(), a.pad.size());
    const auto stride = c.fbb.CreateVector(a.stride.data(), a.stride.size());
    const auto dilation = c.fbb.CreateVector(a.dilation.data(), a.dilation.size());
    return detail::fb11::CreateConv2dAttribute(c.fbb, pad, stride, dilation, a.local_bound,
                                               static_cast<detail::fb11::DType>(wire_dtype(a.acc_type, c.f)))
        .Union();
  }
  static detail::operator_offset emit(detail::emit_context& c, const graph::operation& o) {
    const auto a = attribute(c, o);
    return detail::make_operator(c, tosa::serialized(tosa::op::conv2d), a, o.inputs, o.outputs);
  }
};

/// RESCALE: RescaleAttribute {scale32, rounding_mode, per_channel, input_unsigned, output_unsigned}.
template <>
struct op_visitor<tosa::op::rescale> {
  static flatbuffers::Offset<void> attribute(detail::emit_context& c, const graph::operation& o) {
    const auto& a = std::get<graph::rescale_attr>(o.attr);
    return detail::fb11::CreateRescaleAttribute(c.fbb, a.scale32, static_cast<detail::fb11::RoundingMode>(a.rounding),
                                                a.per_channel, a.input_unsigned, a.output_unsigned)
        .Union();
  }
  static detail::operator_offset emit(detail::emit_context& c, const graph::operation& o) {
    const auto a = attribute(c, o);
    return detail::make_operator(c, tosa::serialized(tosa::op::rescale), a, o.inputs, o.outputs);
  }
};

/// TRANSPOSE: TransposeAttribute {perms}.
template <>
struct op_visitor<tosa::op::transpose> {
  static flatbuffers::Offset<void> attribute(detail::emit_context& c, const graph::operation& o) {
    const auto& a = std::get<graph::transpose_attr>(o.attr);
    return detail::fb11::CreateTransposeAttribute(c.fbb, c.fbb.CreateVector(a.perms)).Union();
  }
  static detail::operator_offset emit(detail::emit_context& c, const graph::operation& o) {
    const auto a = attribute(c, o);
    return detail::make_operator(c, tosa::serialized(tosa::op::transpose), a, o.inputs, o.outputs);
  }
};

/// CLAMP: ClampAttribute {min_val, max_val: raw little-endian bytes of the bound in the input
/// dtype, 8-byte aligned; nan_mode}.
template <>
struct op_visitor<tosa::op::clamp> {
  static flatbuffers::Offset<void> attribute(detail::emit_context& c, const graph::operation& o) {
    const auto& a = std::get<graph::clamp_attr>(o.attr);
    const auto t = c.tensor(o.inputs[0]).type;
    const auto lo = detail::clamp_bytes(t, a.min_val).value();
    const auto hi = detail::clamp_bytes(t, a.max_val).value();
    c.fbb.ForceVectorAlignment(lo.size(), 1, 8);
    const auto min_v = c.fbb.CreateVector(lo);
    c.fbb.ForceVectorAlignment(hi.size(), 1, 8);
    const auto max_v = c.fbb.CreateVector(hi);
    return detail::fb11::CreateClampAttribute(c.fbb, min_v, max_v, static_cast<detail::fb11::NanPropagationMode>(a.nan))
        .Union();
  }
  static detail::operator_offset emit(detail::emit_context& c, const graph::operation& o) {
    const auto a = attribute(c, o);
    return detail::make_operator(c, tosa::serialized(tosa::op::clamp), a, o.inputs, o.outputs);
  }
};

namespace detail {
/// The three 1.1-draft block-scaled ops share `{block_size: BlockSize}` (BLOCK_SIZE_32).
template <tosa::op Op>
struct block_scaled_visitor {
  static flatbuffers::Offset<void> attribute(emit_context& c, const graph::operation&) {
    constexpr auto bs = fb11::BlockSize::BLOCK_SIZE_32;
    if constexpr (Op == tosa::op::cast_to_block_scaled) return fb11::CreateCastToBlockScaledAttribute(c.fbb, bs).Union();
    else if constexpr (Op == tosa::op::cast_from_block_scaled)
      return fb11::CreateCastFromBlockScaledAttribute(c.fbb, bs).Union();
    else return fb11::CreateMatMulTBlockScaledAttribute(c.fbb, bs).Union();
  }
  static operator_offset emit(emit_context& c, const graph::operation& o) {
    const auto a = attribute(c, o);
    return make_operator(c, tosa::serialized(Op), a, o.inputs, o.outputs);
  }
};
}  // namespace detail

/// CAST_TO_BLOCK_SCALED [x] → [data, scale], {block_size}.
template <>
struct op_visitor<tosa::op::cast_to_block_scaled> : detail::block_scaled_visitor<tosa::op::cast_to_block_scaled> {};
/// CAST_FROM_BLOCK_SCALED [data, scale] → [y], {block_size}.
template <>
struct op_visitor<tosa::op::cast_from_block_scaled>
    : detail::block_scaled_visitor<tosa::op::cast_from_block_scaled> {};
/// MATMUL_T_BLOCK_SCALED [A, A_scale, B, B_scale] → [y], {block_size}.
template <>
struct op_visitor<tosa::op::matmul_t_block_scaled>
    : detail::block_scaled_visitor<tosa::op::matmul_t_block_scaled> {};

/// Runs `op_visitor<o>::emit` for a run-time op value (one instantiation per op).
inline detail::operator_offset visit(detail::emit_context& c, const graph::operation& o) {
  switch (o.tosa_op()) {
    case tosa::op::conv2d: return op_visitor<tosa::op::conv2d>::emit(c, o);
    case tosa::op::matmul: return op_visitor<tosa::op::matmul>::emit(c, o);
    case tosa::op::clamp: return op_visitor<tosa::op::clamp>::emit(c, o);
    case tosa::op::add: return op_visitor<tosa::op::add>::emit(c, o);
    case tosa::op::mul: return op_visitor<tosa::op::mul>::emit(c, o);
    case tosa::op::reshape: return op_visitor<tosa::op::reshape>::emit(c, o);
    case tosa::op::transpose: return op_visitor<tosa::op::transpose>::emit(c, o);
    case tosa::op::cast: return op_visitor<tosa::op::cast>::emit(c, o);
    case tosa::op::rescale: return op_visitor<tosa::op::rescale>::emit(c, o);
    case tosa::op::const_: return op_visitor<tosa::op::const_>::emit(c, o);
    case tosa::op::matmul_t_block_scaled: return op_visitor<tosa::op::matmul_t_block_scaled>::emit(c, o);
    case tosa::op::cast_from_block_scaled: return op_visitor<tosa::op::cast_from_block_scaled>::emit(c, o);
    case tosa::op::cast_to_block_scaled: return op_visitor<tosa::op::cast_to_block_scaled>::emit(c, o);
  }
  return {};
}

/// Operand dtypes of `o` in the op table's slot order (`tosa/op_table.hpp`): CONST/RESHAPE/
/// TRANSPOSE/ADD/CLAMP (t = first operand or the CONST output); CONV2D (input, weight,
/// output); MATMUL (A, B, output); RESCALE/MUL/CAST (input, output); CAST_TO_BLOCK_SCALED
/// (input, output_data); CAST_FROM_BLOCK_SCALED (input_data, output); MATMUL_T_BLOCK_SCALED
/// (A_data, B_data). Precondition: `o` is a TOSA op whose operand names resolve in `g` and
/// whose operand counts are right (the writer checks both first). Returns the slot count used.
[[nodiscard]] inline std::size_t slot_dtypes(const graph::graph& g, const graph::operation& o,
                                             std::array<dtype::id, 3>& out) {
  auto ty = [&](const std::string& n) { return g.find(n)->type; };
  const tosa::op op = o.tosa_op();
  switch (op) {
    case tosa::op::const_: out[0] = ty(o.outputs[0]); return 1;
    case tosa::op::reshape:
    case tosa::op::transpose:
    case tosa::op::add:
    case tosa::op::clamp: out[0] = ty(o.inputs[0]); return 1;
    case tosa::op::conv2d:
    case tosa::op::matmul:
      out = {ty(o.inputs[0]), ty(o.inputs[1]), ty(o.outputs[0])};
      return 3;
    case tosa::op::matmul_t_block_scaled:
      out[0] = ty(o.inputs[0]);
      out[1] = ty(o.inputs[2]);
      return 2;
    case tosa::op::rescale:
    case tosa::op::mul:
    case tosa::op::cast:
    case tosa::op::cast_to_block_scaled:
    case tosa::op::cast_from_block_scaled:
      out[0] = ty(o.inputs[0]);
      out[1] = ty(o.outputs[0]);
      return 2;
  }
  return 0;
}

/// The visitor of one op-table row for the compile-time target `Spec`. Instantiating it for a
/// combination `Spec` forbids is a compile error naming the reason (see the file comment).
template <tosa::TargetSpec Spec, tosa::op Op, auto... Dtypes>
struct op_writer {
  static_assert(tosa::require<Spec, Op, Dtypes...>,
                "armlower::serialize::op_writer: this op/dtype combination is not legal on the target spec");
  /// The slot dtypes this writer serializes.
  static constexpr std::array<dtype::id, sizeof...(Dtypes)> dtypes{static_cast<dtype::id>(dtype::to_id(Dtypes))...};
  /// Emits `o` (whose slot dtypes the caller matched against `dtypes`).
  static detail::operator_offset emit(detail::emit_context& c, const graph::operation& o) {
    return op_visitor<Op>::emit(c, o);
  }
};

namespace detail {

/// Indices (into tosa::op_table) of the rows legal on `Spec`, and their count.
template <class Spec>
struct legal_rows {
  static constexpr auto compute() {
    std::pair<std::array<std::size_t, tosa::op_table.size()>, std::size_t> r{};
    for (std::size_t i = 0; i < tosa::op_table.size(); ++i)
      if (tosa::check(Spec::value, tosa::op_table[i].o, tosa::op_table[i].operands()).ok()) r.first[r.second++] = i;
    return r;
  }
  static constexpr auto value = compute();
  static constexpr std::size_t count = value.second;
  static constexpr const auto& index = value.first;
};

/// `op_writer<Spec, row.o, row.types[0..arity)>::emit` for op-table row `Row`.
template <class Spec, std::size_t Row, std::size_t... I>
operator_offset emit_row_impl(emit_context& c, const graph::operation& o, std::index_sequence<I...>) {
  constexpr const auto& row = tosa::op_table[Row];
  return op_writer<Spec, row.o, row.types[I]...>::emit(c, o);
}
template <class Spec, std::size_t Row>
operator_offset emit_row(emit_context& c, const graph::operation& o) {
  return emit_row_impl<Spec, Row>(c, o, std::make_index_sequence<tosa::op_table[Row].arity>{});
}

/// Dispatch table: position k → emit_row<Spec, legal_rows<Spec>::index[k]> (instantiated only
/// for the legal rows).
template <class Spec, std::size_t... K>
constexpr auto make_row_table(std::index_sequence<K...>) {
  using fn = operator_offset (*)(emit_context&, const graph::operation&);
  return std::array<fn, sizeof...(K)>{&emit_row<Spec, legal_rows<Spec>::index[K]>...};
}
template <class Spec>
inline constexpr auto row_table = make_row_table<Spec>(std::make_index_sequence<legal_rows<Spec>::count>{});

/// Position of op-table row `row` among the rows legal on `Spec`, or nullopt.
template <class Spec>
constexpr std::optional<std::size_t> legal_position(std::size_t row) noexcept {
  for (std::size_t k = 0; k < legal_rows<Spec>::count; ++k)
    if (legal_rows<Spec>::index[k] == row) return k;
  return std::nullopt;
}

}  // namespace detail

}  // namespace armlower::serialize
