/// @file armlower/passes/validate.hpp
/// Validate: the last pass of every TOSA lowering (and usable on any TOSA graph, e.g. one read
/// from a `.tosa` file). Checks, in this order, for every operator:
///  1. operand/result counts and that every tensor exists;
///  2. legality of the op's dtype signature on the target, from the one op table
///     (`tosa::check`, slot order of `tosa/op_table.hpp`), and tensor dtype gating
///     (`tosa::check_tensor`) for every tensor, constants included;
///  3. attribute rules of the spec (RESCALE: scale32 ⇔ INT32 multipliers, no scale32 with INT48
///     input, DOUBLE_ROUND needs scale32 and EXT-DOUBLEROUND, INEXACT_ROUND needs
///     EXT-INEXACTROUND, the input_unsigned/output_unsigned and zero-point ERROR_IFs — checked by
///     the one implementation `kernels::validate(rescale_args)`; CONV2D/MATMUL zero points only
///     for INT8 (float zero points must be ±0); CONV2D acc_type one of the accumulators the op
///     table allows for the row, `tosa::accumulator_allowed` (fp16: FP16 or FP32); block_size = 32).
///     What the SPEC allows, never only what armlower's lowerings emit;
///  4. shapes (RESHAPE element counts, CONV2D output size by `kernels::conv2d_output_size` (int64,
///     the same rule the interpreter uses) and OHWI weights, RESCALE per-channel multiplier count,
///     ADD / MAXIMUM equal ranks + broadcast, block-scaled shapes);
///  5. level limits when the target has `+8k` (`tosa/level.hpp`: MAX_RANK, MAX_KERNEL,
///     MAX_STRIDE, tensor size < 2^MAX_LOG2_SIZE bytes).
/// Sources: the TOSA 1.0 specification (levels; the ERROR_IFs of each operator's pseudocode)
/// and MLIR's TosaValidation pass.
/// Every finding names the op (index and name), the tensor and the rule, with a code
/// (`validate_graph` reports all of them). Operand counts come from the op descriptors
/// (`tosa/op_descriptor.hpp`) and each op's own rules are `detail::op_rules<O>`, found through
/// `tosa::visit_op` (no switch over ops).
/// Hosted only.
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/rescale.hpp>
#include <armlower/passes/detail/graph_edit.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/passes/result.hpp>
#include <armlower/tosa/legality.hpp>
#include <armlower/tosa/level.hpp>
#include <armlower/tosa/op_descriptor.hpp>
#include <armlower/tosa/spec.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace armlower::passes {

namespace detail {

inline std::string shape_str(const std::vector<std::int32_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

struct validator {
  const graph::graph& g;
  const tosa::target& t;
  std::unordered_map<std::string, std::size_t> idx = tensor_index(g);
  static constexpr const char* pass = "Validate";

  const graph::tensor* get(const std::string& n) const {
    auto it = idx.find(n);
    return it == idx.end() ? nullptr : &g.tensors[it->second];
  }
  /// A finding about operator `i` (location: stage "Validate", the model's op index when the
  /// op has one, else the graph's, op name, tensor). Default code: a TOSA ERROR_IF.
  diagnostic err(std::size_t i, const std::string& tensor, std::string rule, errc code = errc::error_if) const {
    const auto& o = g.operators[i];
    location l;
    l.stage = pass;
    l.op_index = o.source_index;
    l.graph_op = static_cast<std::int64_t>(i);
    l.op = std::string(o.op_name());
    l.tensor = tensor;
    return diagnostic{code, std::move(l), std::move(rule)};
  }

  /// Legality of the op's type-support row (slot dtypes read through the descriptor's operand
  /// slots, `tosa::check`); the finding names the tensor of the last slot.
  std::optional<diagnostic> legal(std::size_t i) const {
    const auto& o = g.operators[i];
    const tosa::op_descriptor& d = tosa::describe(o.tosa_op());
    std::array<dtype::id, tosa::max_slots> ts{};
    std::string last;
    for (std::size_t k = 0; k < d.n_in; ++k)
      if (d.in_[k].slot >= 0) ts[static_cast<std::size_t>(static_cast<unsigned char>(d.in_[k].slot))] = get(o.inputs[k])->type;
    for (std::size_t k = 0; k < d.n_out; ++k)
      if (d.out_[k].slot >= 0) ts[static_cast<std::size_t>(static_cast<unsigned char>(d.out_[k].slot))] = get(o.outputs[k])->type;
    for (std::size_t k = 0; k < d.n_in; ++k)
      if (d.in_[k].slot == d.n_slots - 1) last = o.inputs[k];
    for (std::size_t k = 0; k < d.n_out; ++k)
      if (d.out_[k].slot == d.n_slots - 1) last = o.outputs[k];
    const auto r = tosa::check(t, o.tosa_op(), std::span<const dtype::id>(ts.data(), d.n_slots));
    if (!r.ok()) return err(i, last, std::string(r.reason()), errc::not_legal);
    return std::nullopt;
  }

  /// True when element 0 of constant `z` is zero: integers by value, floating-point dtypes
  /// (FP32, FP16, BF16, FP8E4M3, FP8E5M2: IEEE-style sign-magnitude) when every bit but the sign
  /// is 0, so −0.0 counts as zero (the ERROR_IF compares values: `zp != 0`).
  static bool first_is_zero(const graph::tensor& z) {
    if (dtype::traits(z.type).fam != dtype::family::floating) return graph::decode_ints(z.type, z.data, 1)[0] == 0;
    const std::size_t nbytes = (dtype::traits(z.type).bits + 7) / 8;
    if (z.data.size() < nbytes) return false;
    for (std::size_t b = 0; b < nbytes; ++b) {
      const std::uint8_t mask = b + 1 == nbytes ? 0x7F : 0xFF;  // little-endian: the sign is the top bit of the last byte
      if ((z.data[b] & mask) != 0) return false;
    }
    return true;
  }

  std::optional<diagnostic> zp(std::size_t i, const std::string& n, dtype::id expect_type, bool may_be_nonzero) const {
    const auto* z = get(n);
    if (z->type != expect_type)
      return err(i, n, "zero point must have dtype " + std::string(dtype::name(expect_type)) + ", got " +
                           std::string(dtype::name(z->type)));
    if (graph::element_count(z->shape) != 1) return err(i, n, "zero point must have shape [1]");
    if (!z->is_constant) return std::nullopt;  // EXT-DYNAMIC case is checked by the caller
    if (!may_be_nonzero && !first_is_zero(*z))
      return err(i, n, "zero point must be 0 for " + std::string(dtype::name(expect_type)) + " (TOSA ERROR_IF)");
    return std::nullopt;
  }

  std::optional<diagnostic> constant_operand(std::size_t i, const std::string& n) const {
    if (!get(n)->is_constant && !t.supports(tosa::ext::dynamic))
      return err(i, n, "operand must be a compile-time constant (CTC) unless the target has EXT-DYNAMIC", errc::not_legal);
    return std::nullopt;
  }

  /// The checks of operator `i`: a TOSA op, its tensors exist, operand/result counts of its
  /// descriptor, its type-support row (unless `op_rules<O>::row_checked` is false), then the
  /// op's own rules, `op_rules<O>::check`, found through `tosa::visit_op` (no switch). Returns
  /// the first finding of the op (later rules assume the earlier ones hold).
  std::optional<diagnostic> op(std::size_t i) const;

  /// The signedness and zero-point ERROR_IFs of TOSA 1.0 RESCALE (input_unsigned/output_unsigned
  /// and input_zp/output_zp), checked by `kernels::validate(rescale_args)` — the same code the
  /// interpreter runs — on a one-element stand-in with the op's dtypes, flags and constant zero
  /// points (a non-constant zero point, EXT-DYNAMIC, is checked as 0 here and at run time).
  std::optional<diagnostic> rescale_flags(std::size_t i, const graph::rescale_attr& ra, dtype::id in_t, dtype::id out_t) const {
    const auto& o = g.operators[i];
    const auto zp_value = [&](const std::string& n) -> std::int32_t {
      const auto* z = get(n);
      if (!z->is_constant) return 0;
      const std::int64_t v = graph::decode_ints(z->type, z->data, 1)[0];
      return v < INT32_MIN || v > INT32_MAX ? 1 : static_cast<std::int32_t>(v);  // an INT48 zp beyond int32: non-zero
    };
    std::int64_t in_dummy = 0, out_dummy = 0;  // never read or written: only the ERROR_IFs run
    const std::int32_t mult = 1 << 14, shift = 30;
    kernels::rescale_args a;
    a.in_t = in_t, a.out_t = out_t, a.input = &in_dummy, a.output = &out_dummy, a.count = 1, a.channels = 1;
    a.multiplier = &mult, a.shift = &shift;
    a.input_zp = zp_value(o.inputs[3]), a.output_zp = zp_value(o.inputs[4]);
    a.scale32 = ra.scale32;
    a.rounding = ra.rounding == tosa::rounding_mode::double_round ? quant::rounding::double_round : quant::rounding::single_round;
    a.input_unsigned = ra.input_unsigned, a.output_unsigned = ra.output_unsigned;
    const auto st = kernels::validate(a);
    const std::string sig = std::string(dtype::name(in_t)) + " -> " + std::string(dtype::name(out_t));
    if (st == kernels::status::invalid_attribute && (ra.input_unsigned || ra.output_unsigned))
      return err(i, "", std::string(ra.input_unsigned && ra.output_unsigned ? "input_unsigned and output_unsigned together"
                                    : ra.input_unsigned                         ? "input_unsigned"
                                                                                : "output_unsigned") +
                            " not allowed for " + sig +
                            " (TOSA ERROR_IF: unsigned only with INT8/INT16 input and INT8/INT16 output, not both)");
    if (st == kernels::status::zero_point_out_of_range) {
      const bool in_bad = kernels::validate([&] { auto b = a; b.output_zp = 0; return b; }()) == kernels::status::zero_point_out_of_range;
      const auto& n = in_bad ? o.inputs[3] : o.inputs[4];
      return err(i, n, std::string(in_bad ? "input_zp" : "output_zp") + " " + std::to_string(in_bad ? a.input_zp : a.output_zp) +
                           " not allowed for " + sig + (in_bad ? (ra.input_unsigned ? " unsigned" : "") : (ra.output_unsigned ? " unsigned" : "")) +
                           " (TOSA ERROR_IF: non-zero only for INT8, or 32768 for unsigned INT16)");
    }
    return std::nullopt;
  }

  std::optional<diagnostic> block_attr(std::size_t i) const {
    const auto* ba = std::get_if<graph::block_scaled_attr>(&g.operators[i].attr);
    if (ba == nullptr || ba->block_size != 32) return err(i, "", "block_size must be BLOCK_SIZE_32");
    return std::nullopt;
  }
};

/// Rules of an element-wise binary op with TOSA broadcasting (ADD, MAXIMUM, MINIMUM pseudocode:
/// ERROR_IF(rank(input1) != rank(input2)), each dim equal or 1, the output the broadcast shape;
/// operands and output share in_out_t): what `tosa::shape_rule::elementwise_binary` in an op's
/// descriptor selects.
template <tosa::op O>
struct binary_broadcast_rules {
  static constexpr bool row_checked = true;
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    const std::string n(tosa::name(O));
    const auto& o = v.g.operators[i];
    const auto *a = v.get(o.inputs[0]), *b = v.get(o.inputs[1]), *y = v.get(o.outputs[0]);
    if (b->type != a->type || y->type != a->type) return v.err(i, b->name, n + " operands and output must share a dtype");
    if (a->shape.size() != b->shape.size() || y->shape.size() != a->shape.size())
      return v.err(i, b->name, n + " operands must have equal ranks (broadcast needs RESHAPE first)");
    for (std::size_t k = 0; k < a->shape.size(); ++k) {
      const auto d = std::max(a->shape[k], b->shape[k]);
      if ((a->shape[k] != d && a->shape[k] != 1) || (b->shape[k] != d && b->shape[k] != 1) || y->shape[k] != d)
        return v.err(i, y->name, n + " shapes " + shape_str(a->shape) + " and " + shape_str(b->shape) + " do not broadcast to " + shape_str(y->shape));
    }
    return std::nullopt;
  }
};

/// Per-op rules of Validate: `check(v, i)` returns the first finding of operator `i` (counts,
/// tensors and the type-support row already checked). Primary template: the rule family the
/// op's descriptor names (`op_descriptor::rule`), else nothing beyond the row (TRANSPOSE, MUL,
/// CAST, CAST_FROM_BLOCK_SCALED). An op added with a descriptor and rows gets these checks
/// without an edit here. Specialisations state one op's own ERROR_IF/REQUIRE rules from its
/// TOSA 1.0 / 1.1-draft pseudocode.
template <tosa::op O>
struct op_rules {
  static constexpr bool row_checked = true;  ///< whether the op table row is checked
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    if constexpr (tosa::describe(O).rule == tosa::shape_rule::elementwise_binary) return binary_broadcast_rules<O>::check(v, i);
    else return std::nullopt;
  }
};

/// CONST: constants are gated by tensor dtype (`tosa::check_tensor`), not by the CONST rows
/// (FP8 MX weights are legal on TOSA-1.1+FP+mxfp).
template <>
struct op_rules<tosa::op::const_> {
  static constexpr bool row_checked = false;
  static std::optional<diagnostic> check(const validator&, std::size_t) { return std::nullopt; }
};

template <>
struct op_rules<tosa::op::reshape> {
  static constexpr bool row_checked = true;
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    const auto& o = v.g.operators[i];
    const auto *x = v.get(o.inputs[0]), *s = v.get(o.inputs[1]), *y = v.get(o.outputs[0]);
    if (y->type != x->type) return v.err(i, y->name, "RESHAPE output dtype must equal the input dtype");
    if (s->type != dtype::id::shape || s->shape.size() != 1 || s->shape[0] != static_cast<std::int32_t>(y->shape.size()))
      return v.err(i, s->name, "shape operand must be a SHAPE tensor of length rank(output)");
    if (auto e = v.constant_operand(i, s->name)) return e;
    if (s->is_constant) {
      const auto sv = graph::decode_ints(dtype::id::shape, s->data, s->shape[0]);
      for (std::size_t k = 0; k < sv.size(); ++k)
        if (sv[k] != y->shape[k]) return v.err(i, s->name, "shape operand " + shape_str(y->shape) + " does not match the output shape");
    }
    if (graph::element_count(x->shape) != graph::element_count(y->shape))
      return v.err(i, y->name, "RESHAPE must keep the element count: " + shape_str(x->shape) + " -> " + shape_str(y->shape));
    return std::nullopt;
  }
};

template <>
struct op_rules<tosa::op::conv2d> {
  static constexpr bool row_checked = true;
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    const auto& o = v.g.operators[i];
    const auto *x = v.get(o.inputs[0]), *w = v.get(o.inputs[1]), *b = v.get(o.inputs[2]), *y = v.get(o.outputs[0]);
    const auto* ca = std::get_if<graph::conv2d_attr>(&o.attr);
    if (ca == nullptr) return v.err(i, "", "CONV2D needs a Conv2dAttribute", errc::invalid_graph);
    if (const std::array<dtype::id, 3> sig{x->type, w->type, y->type};
        !tosa::accumulator_allowed(tosa::op::conv2d, sig, ca->acc_type)) {
      std::string allowed;
      for (const auto& r : tosa::rows_of(tosa::op::conv2d))
        if (r.types == std::array<dtype::id, 3>{x->type, w->type, y->type})
          allowed += (allowed.empty() ? "" : " or ") + std::string(dtype::name(r.acc));
      return v.err(i, y->name, "acc_type " + std::string(dtype::name(ca->acc_type)) + " is not an accumulator of the CONV2D row " +
                                 std::string(dtype::name(x->type)) + " x " + std::string(dtype::name(w->type)) + " -> " +
                                 std::string(dtype::name(y->type)) + " (TOSA allows " + allowed + ")");
    }
    if (b->type != y->type)
      return v.err(i, b->name, "bias dtype " + std::string(dtype::name(b->type)) + " must equal the output dtype " +
                                 std::string(dtype::name(y->type)) + " (e.g. INT48 bias for i16xi8)");
    if (auto e = v.zp(i, o.inputs[3], x->type, x->type == dtype::id::i8)) return e;
    if (auto e = v.zp(i, o.inputs[4], w->type, w->type == dtype::id::i8)) return e;
    if (auto e = v.constant_operand(i, o.inputs[3])) return e;
    if (auto e = v.constant_operand(i, o.inputs[4])) return e;
    if (x->shape.size() != 4 || w->shape.size() != 4 || y->shape.size() != 4)
      return v.err(i, x->name, "CONV2D input, weight and output must be rank 4 (NHWC, OHWI)");
    if (w->shape[3] != x->shape[3])
      return v.err(i, w->name, "weight IC " + std::to_string(w->shape[3]) + " must equal input channels " + std::to_string(x->shape[3]));
    const auto oc = w->shape[0];
    if (graph::element_count(b->shape) != oc && graph::element_count(b->shape) != 1)
      return v.err(i, b->name, "bias must have OC or 1 elements");
    for (auto p : ca->pad)
      if (p < 0) return v.err(i, "", "pad must be >= 0");
    for (int k = 0; k < 2; ++k)
      if (ca->stride[k] < 1 || ca->dilation[k] < 1) return v.err(i, "", "stride and dilation must be >= 1");
    {
      kernels::conv2d_shape cs;
      cs.n = x->shape[0], cs.ih = x->shape[1], cs.iw = x->shape[2], cs.ic = x->shape[3];
      cs.oc = oc, cs.kh = w->shape[1], cs.kw = w->shape[2];
      cs.bias_size = oc;  // the bias count was checked above
      cs.pad = ca->pad, cs.stride = ca->stride, cs.dilation = ca->dilation;
      std::int64_t oh = 0, ow = 0;
      if (kernels::conv2d_output_size(cs, oh, ow) != kernels::status::ok || oh != y->shape[1] || ow != y->shape[2])
        return v.err(i, y->name, "OH, OW do not satisfy (I-1+pad-(K-1)*dilation)/stride+1 exactly");
    }
    if (y->shape[0] != x->shape[0] || y->shape[3] != oc) return v.err(i, y->name, "output must be [N, OH, OW, OC]");
    if (v.t.level_8k) {
      const auto l = tosa::limits(tosa::level::eight_k);
      for (int k = 0; k < 2; ++k) {
        if (static_cast<std::int64_t>(ca->dilation[k]) * w->shape[1 + k] > l.max_kernel) return v.err(i, w->name, "level 8K: dilation*K exceeds MAX_KERNEL 8192");
        if (ca->stride[k] > l.max_stride) return v.err(i, "", "level 8K: stride exceeds MAX_STRIDE 8192");
      }
      for (auto p : ca->pad)
        if (p > l.max_kernel) return v.err(i, "", "level 8K: pad exceeds MAX_KERNEL 8192");
    }
    return std::nullopt;
  }
};

template <>
struct op_rules<tosa::op::rescale> {
  static constexpr bool row_checked = true;
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    const auto& o = v.g.operators[i];
    const auto *x = v.get(o.inputs[0]), *m = v.get(o.inputs[1]), *s = v.get(o.inputs[2]), *y = v.get(o.outputs[0]);
    const auto* ra = std::get_if<graph::rescale_attr>(&o.attr);
    if (ra == nullptr) return v.err(i, "", "RESCALE needs a RescaleAttribute", errc::invalid_graph);
    if (ra->scale32 && x->type == dtype::id::i48) return v.err(i, x->name, "scale32 must be false for an INT48 input (TOSA ERROR_IF)");
    if (m->type != (ra->scale32 ? dtype::id::i32 : dtype::id::i16))
      return v.err(i, m->name, std::string("multiplier must be ") + (ra->scale32 ? "INT32 (scale32)" : "INT16 (scale32 = false)"));
    if (s->type != dtype::id::i8) return v.err(i, s->name, "shift must be INT8");
    if (ra->rounding == tosa::rounding_mode::double_round) {
      if (!ra->scale32) return v.err(i, "", "DOUBLE_ROUND needs scale32 (TOSA ERROR_IF)");
      if (!v.t.supports(tosa::ext::doubleround)) return v.err(i, "", "rounding_mode DOUBLE_ROUND requires EXT-DOUBLEROUND; " + std::string(v.t.text().view()) + " does not enable it", errc::not_legal);
    }
    if (ra->rounding == tosa::rounding_mode::inexact_round && !v.t.supports(tosa::ext::inexactround))
      return v.err(i, "", "rounding_mode INEXACT_ROUND requires EXT-INEXACTROUND; " + std::string(v.t.text().view()) + " does not enable it", errc::not_legal);
    const std::int64_t nc = ra->per_channel ? (x->shape.empty() ? 0 : x->shape.back()) : 1;
    if (ra->per_channel && x->shape.empty()) return v.err(i, x->name, "per_channel needs rank >= 1 (TOSA ERROR_IF)");
    if (graph::element_count(m->shape) != nc || graph::element_count(s->shape) != nc)
      return v.err(i, m->name, "multiplier and shift must have " + std::to_string(nc) + " element(s) (" +
                                 (ra->per_channel ? "per channel: last dim" : "per tensor") + ")");
    for (int k = 1; k <= 4; ++k)
      if (auto e = v.constant_operand(i, o.inputs[static_cast<std::size_t>(k)])) return e;
    if (s->is_constant)
      for (auto sh : graph::decode_ints(dtype::id::i8, s->data, nc))
        if (sh < 2 || sh > 62)
          return v.err(i, s->name, "shift " + std::to_string(sh) + " outside 2..62 (TOSA REQUIRE)", errc::require);
    if (m->is_constant)
      for (auto mu : graph::decode_ints(m->type, m->data, nc))
        if (mu < 0) return v.err(i, m->name, "multiplier must be >= 0 (TOSA REQUIRE)", errc::require);
    if (auto e = v.zp(i, o.inputs[3], x->type, true)) return e;
    if (auto e = v.zp(i, o.inputs[4], y->type, true)) return e;
    if (auto e = v.rescale_flags(i, *ra, x->type, y->type)) return e;
    if (x->shape != y->shape) return v.err(i, y->name, "RESCALE output shape must equal the input shape");
    return std::nullopt;
  }
};

template <>
struct op_rules<tosa::op::clamp> {
  static constexpr bool row_checked = true;
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    const auto& o = v.g.operators[i];
    const auto *x = v.get(o.inputs[0]), *y = v.get(o.outputs[0]);
    const auto* ca = std::get_if<graph::clamp_attr>(&o.attr);
    if (ca == nullptr) return v.err(i, "", "CLAMP needs a ClampAttribute", errc::invalid_graph);
    if (ca->max_val < ca->min_val) return v.err(i, "", "max_val < min_val (TOSA ERROR_IF)");
    if (x->type != y->type || x->shape != y->shape) return v.err(i, y->name, "CLAMP output must have the input dtype and shape");
    return std::nullopt;
  }
};


template <>
struct op_rules<tosa::op::cast_to_block_scaled> {
  static constexpr bool row_checked = true;
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    const auto& o = v.g.operators[i];
    const auto *x = v.get(o.inputs[0]), *d = v.get(o.outputs[0]), *s = v.get(o.outputs[1]);
    if (auto e = v.block_attr(i)) return e;
    if (s->type != dtype::id::fp8ue8m0) return v.err(i, s->name, "output_scale must be FP8UE8M0");
    if (x->shape.empty()) return v.err(i, x->name, "rank 0 input (TOSA ERROR_IF)");
    if (x->shape.back() % 32 != 0) return v.err(i, x->name, "last dim " + std::to_string(x->shape.back()) + " must be divisible by block_size 32");
    auto ss = x->shape;
    ss.back() /= 32;
    if (d->shape != x->shape || s->shape != ss) return v.err(i, s->name, "output_data must be " + shape_str(x->shape) + " and output_scale " + shape_str(ss));
    return std::nullopt;
  }
};

template <>
struct op_rules<tosa::op::matmul_t_block_scaled> {
  static constexpr bool row_checked = true;
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    const auto& o = v.g.operators[i];
    const auto *a = v.get(o.inputs[0]), *as = v.get(o.inputs[1]), *b = v.get(o.inputs[2]), *bs = v.get(o.inputs[3]),
               *y = v.get(o.outputs[0]);
    if (auto e = v.block_attr(i)) return e;
    if (as->type != dtype::id::fp8ue8m0 || bs->type != dtype::id::fp8ue8m0) return v.err(i, bs->name, "scales must be FP8UE8M0");
    if (y->type != dtype::id::fp32) return v.err(i, y->name, "output must be FP32");
    if (a->shape.size() != 3 || b->shape.size() != 3 || as->shape.size() != 3 || bs->shape.size() != 3)
      return v.err(i, a->name, "MATMUL_T_BLOCK_SCALED operands must be rank 3");
    const auto N = a->shape[0], H = a->shape[1], C = a->shape[2], D = b->shape[0], W = b->shape[1];
    if (b->shape[2] != C) return v.err(i, b->name, "B_data last dim must equal A_data last dim C = " + std::to_string(C));
    if (C % 32 != 0) return v.err(i, a->name, "C must be divisible by block_size 32");
    if (D != 1 && D != N) return v.err(i, b->name, "B_data batch dim D must be 1 or N");
    if (as->shape != std::vector<std::int32_t>{N, H, C / 32}) return v.err(i, as->name, "A_scale shape must be " + shape_str({N, H, C / 32}));
    if (bs->shape != std::vector<std::int32_t>{D, W, C / 32}) return v.err(i, bs->name, "B_scale shape must be " + shape_str({D, W, C / 32}));
    if (y->shape != std::vector<std::int32_t>{N, H, W}) return v.err(i, y->name, "output must be " + shape_str({N, H, W}));
    return std::nullopt;
  }
};

template <>
struct op_rules<tosa::op::matmul> {
  static constexpr bool row_checked = true;
  static std::optional<diagnostic> check(const validator& v, std::size_t i) {
    const auto& o = v.g.operators[i];
    const auto *a = v.get(o.inputs[0]), *b = v.get(o.inputs[1]), *y = v.get(o.outputs[0]);
    if (a->shape.size() != 3 || b->shape.size() != 3 || y->shape.size() != 3 || a->shape[2] != b->shape[1] ||
        a->shape[0] != b->shape[0] || y->shape != std::vector<std::int32_t>{a->shape[0], a->shape[1], b->shape[2]})
      return v.err(i, y->name, "MATMUL shapes must be A [N,H,C], B [N,C,W] -> [N,H,W]");
    if (auto e = v.zp(i, o.inputs[2], a->type, a->type == dtype::id::i8)) return e;
    if (auto e = v.zp(i, o.inputs[3], b->type, b->type == dtype::id::i8)) return e;
    if (auto e = v.constant_operand(i, o.inputs[2])) return e;
    if (auto e = v.constant_operand(i, o.inputs[3])) return e;
    return std::nullopt;
  }
};

inline std::optional<diagnostic> validator::op(std::size_t i) const {
  const auto& o = g.operators[i];
  if (!o.is_tosa()) return err(i, "", "framework operator left in a TOSA graph (not lowered)", errc::invalid_graph);
  if (!tosa::known(o.tosa_op())) return err(i, "", "unknown operator", errc::invalid_graph);
  for (const auto& n : o.inputs)
    if (get(n) == nullptr) return err(i, n, "operand tensor does not exist", errc::invalid_graph);
  for (const auto& n : o.outputs)
    if (get(n) == nullptr) return err(i, n, "result tensor does not exist", errc::invalid_graph);
  const tosa::op_descriptor& d = tosa::describe(o.tosa_op());
  if (o.inputs.size() != d.n_in || o.outputs.size() != d.n_out)
    return err(i, "",
               std::string(o.op_name()) + " takes " + std::to_string(d.n_in) + " operand(s) and " +
                   std::to_string(d.n_out) + " result(s), got " + std::to_string(o.inputs.size()) + " and " +
                   std::to_string(o.outputs.size()),
               errc::invalid_graph);
  return tosa::visit_op(o.tosa_op(), [&](auto c) -> std::optional<diagnostic> {
    using R = op_rules<decltype(c)::value>;
    if constexpr (R::row_checked)
      if (auto e = legal(i)) return e;
    return R::check(*this, i);
  });
}

}  // namespace detail

/// Validates a TOSA graph for target `t` (see file comment) and reports EVERY finding: one
/// diagnostic per tensor rule broken (dtype gating: `errc::not_legal`; level limits:
/// `errc::error_if`; dimensions, payload size, graph inputs/outputs: `errc::invalid_graph`) and
/// the first finding of every operator (`validator::op`: counts and tensors
/// `errc::invalid_graph`, type-support row and extensions `errc::not_legal`, ERROR_IF rules
/// `errc::error_if`, REQUIRE rules `errc::require`), in graph order. Each diagnostic's location:
/// stage "Validate", the operator's model index (`graph::operation::source_index`) when it has
/// one and its graph index (`location::graph_op`), the op name and the tensor.
[[nodiscard]] inline armlower::expected<void> validate_graph(const graph::graph& g, const tosa::target& t) {
  detail::validator v{g, t};
  std::optional<armlower::error> all;
  const auto add = [&](diagnostic d) {
    if (all) all->add(std::move(d));
    else all.emplace(std::move(d));
  };
  const auto tensor_finding = [&](errc c, const std::string& tensor, std::string rule) {
    location l;
    l.stage = detail::validator::pass;
    l.tensor = tensor;
    add(diagnostic{c, std::move(l), std::move(rule)});
  };
  const auto lim = tosa::limits(t.level());
  for (const auto& tn : g.tensors) {
    const auto c = tosa::check_tensor(t, tn.type);
    if (!c.ok()) tensor_finding(errc::not_legal, tn.name, std::string(c.reason()));
    if (static_cast<std::int64_t>(tn.shape.size()) > lim.max_rank)
      tensor_finding(errc::error_if, tn.name,
                     "rank " + std::to_string(tn.shape.size()) + " exceeds MAX_RANK " + std::to_string(lim.max_rank) +
                         " of level " + std::string(tosa::name(t.level())));
    const auto bytes = graph::payload_bytes(tn.type, graph::element_count(tn.shape));
    if (lim.max_log2_size < 63 && bytes >= (std::size_t{1} << lim.max_log2_size))
      tensor_finding(errc::error_if, tn.name,
                     "tensor size " + std::to_string(bytes) + " bytes reaches 2^MAX_LOG2_SIZE of level " +
                         std::string(tosa::name(t.level())));
    bool dims_ok = true;
    for (auto d : tn.shape) dims_ok = dims_ok && d >= 1;
    if (!dims_ok) tensor_finding(errc::invalid_graph, tn.name, "every dimension must be >= 1");
    if (tn.is_constant && tn.data.size() != bytes)
      tensor_finding(errc::invalid_graph, tn.name,
                     "constant payload has " + std::to_string(tn.data.size()) + " bytes, its shape needs " +
                         std::to_string(bytes));
  }
  for (const auto& n : g.inputs)
    if (v.get(n) == nullptr) tensor_finding(errc::invalid_graph, n, "graph input tensor does not exist");
  for (const auto& n : g.outputs)
    if (v.get(n) == nullptr) tensor_finding(errc::invalid_graph, n, "graph output tensor does not exist");
  for (std::size_t i = 0; i < g.operators.size(); ++i)
    if (auto d = v.op(i)) add(std::move(*d));
  if (all) return std::move(*all);
  return {};
}

/// Validates a TOSA graph for target `t` (the pass form of `validate_graph`; see there). Appends
/// a record to `rep` on success; on failure the first finding as the passes' error value.
[[nodiscard]] inline pass_status validate(const graph::graph& g, const tosa::target& t, report& rep) {
  const detail::stopwatch sw;
  constexpr const char* pass = "Validate";
  if (auto r = validate_graph(g, t); !r) {  // every finding, each named by its model op when known
    std::optional<armlower::error> e;
    for (diagnostic d : r.error().diagnostics()) {
      d.where.stage = pass;
      if (d.where.graph_op >= 0 && static_cast<std::size_t>(d.where.graph_op) < g.operators.size())
        if (const auto src = g.operators[static_cast<std::size_t>(d.where.graph_op)].source_index; src >= 0) {
          d.where.op_index = src;
          d.where.graph_op = -1;
        }
      if (e) e->add(std::move(d));
      else e.emplace(std::move(d));
    }
    return std::move(*e);
  }
  rep.passes.push_back({pass,
                        std::to_string(g.operators.size()) + " ops and " + std::to_string(g.tensors.size()) +
                            " tensors legal for " + std::string(t.text().view()) +
                            (t.level_8k ? " (level 8K limits checked)" : ""),
                        0, sw.ms()});
  return done{};
}

}  // namespace armlower::passes
