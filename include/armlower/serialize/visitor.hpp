/// @file armlower/serialize/visitor.hpp
/// The serializer's per-op visitors, derived from the op descriptors (`tosa/op_descriptor.hpp`).
///
/// - `attr_encoder<K>`: the encoder of one attribute-table KIND (`tosa::attr_kind`), not of one
///   op: an op whose descriptor names an existing kind (or none) needs no serializer code. Each
///   kind's `check` states what values its table can hold; `check_attribute` runs it for an op. The
///   empty table, the {block_size} table of the three EXT-MXFP ops and the {nan_mode} table
///   (MAXIMUM, MINIMUM) are written generically
///   with the flatbuffers Table API (field i at vtable offset 4 + 2·i, as flatc lays them out);
///   the others through flatc's generated builders (tosa-tools' `schema/tosa.fbs`).
/// - `op_visitor<Op>`: emits the `TosaOperator` of op `Op` (op code = attribute union type =
///   the descriptor's code, operands in TOSA order); specialise it only for an op that needs
///   more than its attribute kind.
/// - `visit(ctx, o)`: dispatches a run-time op to its `op_visitor` through `tosa::visit_op`.
/// - `slot_dtypes(g, o)`: the operand dtypes of an operation in the op table's slot order, read
///   generically from the descriptor's operand `slot`s (the key `tosa::check` takes).
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/serialize/detail/generated.hpp>
#include <armlower/serialize/detail/payload.hpp>
#include <armlower/serialize/format.hpp>
#include <armlower/tosa/op.hpp>
#include <armlower/tosa/op_descriptor.hpp>
#include <armlower/tosa/op_table.hpp>

#include <array>
#include <optional>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
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

/// An attribute value its table cannot hold: the error code, the rule broken and the tensor it
/// concerns (may be empty).
struct attr_problem {
  errc code = errc::invalid_graph;
  std::string rule;
  std::string tensor;
};

namespace detail {
/// NanPropagationMode holds PROPAGATE (1) or IGNORE (2).
[[nodiscard]] inline std::optional<attr_problem> check_nan_mode(graph::nan_mode m) {
  const auto nm = static_cast<std::uint32_t>(m);
  if (nm >= 1 && nm <= 2) return std::nullopt;
  return attr_problem{errc::invalid_graph, "nan_mode " + std::to_string(nm) + " is not a NanPropagationMode value", {}};
}
}  // namespace detail

/// Encoder of one attribute-table kind. `check(o, f, input0)` says whether `o.attr` (already the
/// kind's alternative: the writer checks that first) can be written in format `f` (`input0`: the
/// op's first input tensor, or null); `encode(ctx, o)` writes the table from a checked `o.attr`.
/// Primary template: the empty table (`attr_kind::none`), written generically — the same bytes
/// as flatc's `CreateMatMulAttribute(fbb)` and every other empty attribute.
template <tosa::attr_kind K>
struct attr_encoder {
  static_assert(K == tosa::attr_kind::none, "attr_encoder: no encoder for this attribute kind");
  static std::optional<attr_problem> check(const graph::operation&, format, const graph::tensor*) { return std::nullopt; }
  static flatbuffers::Offset<void> encode(detail::emit_context& c, const graph::operation&) {
    return flatbuffers::Offset<void>(c.fbb.EndTable(c.fbb.StartTable()));
  }
};

/// Conv2dAttribute {pad[4], stride[2], dilation[2], local_bound, acc_type (a DType)}.
template <>
struct attr_encoder<tosa::attr_kind::conv2d> {
  /// acc_type must be a DType of the format.
  static std::optional<attr_problem> check(const graph::operation& o, format f, const graph::tensor*) {
    const auto t = std::get<graph::conv2d_attr>(o.attr).acc_type;
    if (wire_dtype(t, f) != 0) return std::nullopt;
    return attr_problem{errc::unsupported, "acc_type " + std::string(dtype::name(t)) + " is not in " + std::string(name(f)), {}};
  }
  static flatbuffers::Offset<void> encode(detail::emit_context& c, const graph::operation& o) {
    const auto& a = std::get<graph::conv2d_attr>(o.attr);
    const auto pad = c.fbb.CreateVector(a.pad.data(), a.pad.size());
    const auto stride = c.fbb.CreateVector(a.stride.data(), a.stride.size());
    const auto dilation = c.fbb.CreateVector(a.dilation.data(), a.dilation.size());
    return detail::fb11::CreateConv2dAttribute(c.fbb, pad, stride, dilation, a.local_bound,
                                               static_cast<detail::fb11::DType>(wire_dtype(a.acc_type, c.f)))
        .Union();
  }
};

/// RescaleAttribute {scale32, rounding_mode, per_channel, input_unsigned, output_unsigned}.
template <>
struct attr_encoder<tosa::attr_kind::rescale> {
  /// rounding_mode must be a RoundingMode value (1..3).
  static std::optional<attr_problem> check(const graph::operation& o, format, const graph::tensor*) {
    const auto m = static_cast<std::uint32_t>(std::get<graph::rescale_attr>(o.attr).rounding);
    if (m >= 1 && m <= 3) return std::nullopt;
    return attr_problem{errc::invalid_graph, "rounding_mode " + std::to_string(m) + " is not a RoundingMode value", {}};
  }
  static flatbuffers::Offset<void> encode(detail::emit_context& c, const graph::operation& o) {
    const auto& a = std::get<graph::rescale_attr>(o.attr);
    return detail::fb11::CreateRescaleAttribute(c.fbb, a.scale32, static_cast<detail::fb11::RoundingMode>(a.rounding),
                                                a.per_channel, a.input_unsigned, a.output_unsigned)
        .Union();
  }
};

/// TransposeAttribute {perms}.
template <>
struct attr_encoder<tosa::attr_kind::transpose> {
  /// Any perms vector is writable (TRANSPOSE's ERROR_IF rules are the validator's).
  static std::optional<attr_problem> check(const graph::operation&, format, const graph::tensor*) { return std::nullopt; }
  static flatbuffers::Offset<void> encode(detail::emit_context& c, const graph::operation& o) {
    const auto& a = std::get<graph::transpose_attr>(o.attr);
    return detail::fb11::CreateTransposeAttribute(c.fbb, c.fbb.CreateVector(a.perms)).Union();
  }
};

/// ClampAttribute {min_val, max_val: raw little-endian bytes of the bound in the input dtype,
/// 8-byte aligned; nan_mode}.
template <>
struct attr_encoder<tosa::attr_kind::clamp> {
  /// Both bounds must be values of the input dtype in one of the CLAMP byte encodings; nan_mode a
  /// NanPropagationMode value.
  static std::optional<attr_problem> check(const graph::operation& o, format, const graph::tensor* in) {
    const auto& a = std::get<graph::clamp_attr>(o.attr);
    if (in == nullptr) return attr_problem{errc::invalid_graph, "CLAMP has no input", {}};
    if (!detail::clamp_bytes(in->type, a.min_val) || !detail::clamp_bytes(in->type, a.max_val))
      return attr_problem{errc::invalid_graph,
                          "bounds [" + std::to_string(a.min_val) + ", " + std::to_string(a.max_val) +
                              "] are not values of input '" + in->name + "' dtype " + std::string(dtype::name(in->type)) +
                              " (CLAMP bounds are serialized in INT8/INT16/INT32/FP16/BF16/FP32)",
                          in->name};
    return detail::check_nan_mode(a.nan);
  }
  static flatbuffers::Offset<void> encode(detail::emit_context& c, const graph::operation& o) {
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
};

/// The {block_size: BlockSize (uint32)} table shared by CAST_TO_BLOCK_SCALED,
/// CAST_FROM_BLOCK_SCALED and MATMUL_T_BLOCK_SCALED (field 0, vtable offset 4; the value is the
/// block size, BLOCK_SIZE_32 = 32), written generically.
template <>
struct attr_encoder<tosa::attr_kind::block_scaled> {
  static constexpr flatbuffers::voffset_t block_size_field = 4;
  /// block_size must be a BlockSize value (FBS-1.1 has only BLOCK_SIZE_32).
  static std::optional<attr_problem> check(const graph::operation& o, format, const graph::tensor*) {
    const auto bs = std::get<graph::block_scaled_attr>(o.attr).block_size;
    if (bs == 32) return std::nullopt;
    return attr_problem{errc::unsupported,
                        "block_size " + std::to_string(bs) + " is not a BlockSize value (FBS-1.1 has only BLOCK_SIZE_32)", {}};
  }
  static flatbuffers::Offset<void> encode(detail::emit_context& c, const graph::operation& o) {
    const auto bs = std::get<graph::block_scaled_attr>(o.attr).block_size;
    const auto start = c.fbb.StartTable();
    c.fbb.AddElement<std::uint32_t>(block_size_field, static_cast<std::uint32_t>(bs), 0);
    return flatbuffers::Offset<void>(c.fbb.EndTable(start));
  }
};
static_assert(attr_encoder<tosa::attr_kind::block_scaled>::block_size_field ==
                  detail::fb11::CastToBlockScaledAttribute::VT_BLOCK_SIZE &&
              attr_encoder<tosa::attr_kind::block_scaled>::block_size_field ==
                  detail::fb11::CastFromBlockScaledAttribute::VT_BLOCK_SIZE &&
              attr_encoder<tosa::attr_kind::block_scaled>::block_size_field ==
                  detail::fb11::MatMulTBlockScaledAttribute::VT_BLOCK_SIZE &&
              static_cast<std::uint32_t>(detail::fb11::BlockSize::BLOCK_SIZE_32) == 32,
              "block-scaled attribute layout differs from the schema");

/// The {nan_mode: NanPropagationMode (uint32)} table of MAXIMUM (and MINIMUM: MaximumAttribute
/// and MinimumAttribute have the same single field, vtable offset 4), written generically. The
/// value is always written (PROPAGATE = 1 or IGNORE = 2; the writer checked it), as flatc's
/// `CreateMaximumAttribute` writes a non-default value.
template <>
struct attr_encoder<tosa::attr_kind::nan_mode> {
  static constexpr flatbuffers::voffset_t nan_mode_field = 4;
  /// nan_mode must be a NanPropagationMode value.
  static std::optional<attr_problem> check(const graph::operation& o, format, const graph::tensor*) {
    return detail::check_nan_mode(std::get<graph::nan_mode_attr>(o.attr).nan);
  }
  static flatbuffers::Offset<void> encode(detail::emit_context& c, const graph::operation& o) {
    const auto nm = std::get<graph::nan_mode_attr>(o.attr).nan;
    const auto start = c.fbb.StartTable();
    c.fbb.AddElement<std::uint32_t>(nan_mode_field, static_cast<std::uint32_t>(nm), 0);
    return flatbuffers::Offset<void>(c.fbb.EndTable(start));
  }
};
static_assert(attr_encoder<tosa::attr_kind::nan_mode>::nan_mode_field == detail::fb11::MaximumAttribute::VT_NAN_MODE &&
                  attr_encoder<tosa::attr_kind::nan_mode>::nan_mode_field ==
                      detail::fb11::MinimumAttribute::VT_NAN_MODE &&
                  static_cast<std::uint32_t>(detail::fb11::NanPropagationMode::PROPAGATE) ==
                      static_cast<std::uint32_t>(graph::nan_mode::propagate) &&
                  static_cast<std::uint32_t>(detail::fb11::NanPropagationMode::IGNORE) ==
                      static_cast<std::uint32_t>(graph::nan_mode::ignore),
              "{nan_mode} attribute layout differs from the schema");

/// Serializer visitor of one op: `emit(ctx, o)` writes the whole TosaOperator with the
/// attribute table of the op's descriptor kind. No op needs a specialisation today.
template <tosa::op Op>
struct op_visitor {
  static detail::operator_offset emit(detail::emit_context& c, const graph::operation& o) {
    const auto a = attr_encoder<tosa::describe(Op).attr>::encode(c, o);
    return detail::make_operator(c, tosa::serialized(Op), a, o.inputs, o.outputs);
  }
};

/// Runs `op_visitor<o>::emit` for a run-time op value (`tosa::visit_op`: one instantiation per
/// described op, no switch). Precondition: `tosa::known(o.tosa_op())` (the writer checks it).
inline detail::operator_offset visit(detail::emit_context& c, const graph::operation& o) {
  return tosa::visit_op(o.tosa_op(), [&](auto op) { return op_visitor<decltype(op)::value>::emit(c, o); });
}

/// Runs the `check` of `o`'s attribute kind (`attr_encoder<describe(op).attr>::check`, through
/// `tosa::visit_op`). Precondition: `tosa::known(o.tosa_op())` and `o.attr` holds that kind's
/// alternative (the writer checks both first).
[[nodiscard]] inline std::optional<attr_problem> check_attribute(const graph::operation& o, format f,
                                                                 const graph::tensor* input0) {
  return tosa::visit_op(o.tosa_op(), [&](auto op) { return attr_encoder<tosa::describe(decltype(op)::value).attr>::check(o, f, input0); });
}

/// Operand dtypes of `o` in the op table's slot order (`tosa/op_table.hpp`): slot k holds the
/// dtype of the operand or result whose descriptor `operand::slot` is k (e.g. CONV2D: input,
/// weight, output; MATMUL_T_BLOCK_SCALED: A_data, B_data). Precondition: `o` is a known TOSA op
/// whose operand names resolve in `g` and whose operand counts equal the descriptor's (the
/// writer checks both first). Returns the slot count used.
[[nodiscard]] inline std::size_t slot_dtypes(const graph::graph& g, const graph::operation& o,
                                             std::array<dtype::id, tosa::max_slots>& out) {
  const tosa::op_descriptor& d = tosa::describe(o.tosa_op());
  for (std::size_t i = 0; i < d.n_in; ++i)
    if (d.in_[i].slot >= 0) out[static_cast<std::size_t>(static_cast<unsigned char>(d.in_[i].slot))] = g.find(o.inputs[i])->type;
  for (std::size_t i = 0; i < d.n_out; ++i)
    if (d.out_[i].slot >= 0) out[static_cast<std::size_t>(static_cast<unsigned char>(d.out_[i].slot))] = g.find(o.outputs[i])->type;
  return d.n_slots;
}

}  // namespace armlower::serialize
