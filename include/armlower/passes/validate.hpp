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
///     ADD equal ranks + broadcast, block-scaled shapes);
///  5. level limits when the target has `+8k` (`tosa/level.hpp`: MAX_RANK, MAX_KERNEL,
///     MAX_STRIDE, tensor size < 2^MAX_LOG2_SIZE bytes).
/// Sources: the TOSA 1.0 specification (levels; the ERROR_IFs of each operator's pseudocode)
/// and MLIR's TosaValidation pass.
/// Every error names the op (index and name), the tensor and the rule.
/// Hosted only.
#pragma once

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
#include <armlower/tosa/spec.hpp>

#include <array>
#include <cstdint>
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
  lowering_error err(std::size_t i, const std::string& tensor, std::string rule) const {
    return {pass, op_label(g, i), tensor, std::move(rule)};
  }

  std::optional<lowering_error> legal(std::size_t i, std::initializer_list<dtype::id> ts, const std::string& tensor) const {
    const auto r = tosa::check(t, g.operators[i].tosa_op(), std::span<const dtype::id>(ts.begin(), ts.size()));
    if (!r.ok()) return err(i, tensor, std::string(r.reason()));
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

  std::optional<lowering_error> zp(std::size_t i, const std::string& n, dtype::id expect_type, bool may_be_nonzero) const {
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

  std::optional<lowering_error> constant_operand(std::size_t i, const std::string& n) const {
    if (!get(n)->is_constant && !t.supports(tosa::ext::dynamic))
      return err(i, n, "operand must be a compile-time constant (CTC) unless the target has EXT-DYNAMIC");
    return std::nullopt;
  }

  std::optional<lowering_error> op(std::size_t i) const {
    using tosa::op;
    const auto& o = g.operators[i];
    if (!o.is_tosa()) return err(i, "", "framework operator left in a TOSA graph (not lowered)");
    for (const auto& n : o.inputs)
      if (get(n) == nullptr) return err(i, n, "operand tensor does not exist");
    for (const auto& n : o.outputs)
      if (get(n) == nullptr) return err(i, n, "result tensor does not exist");
    auto arity = [&](std::size_t ni, std::size_t no) -> std::optional<lowering_error> {
      if (o.inputs.size() != ni || o.outputs.size() != no)
        return err(i, "", std::string(o.op_name()) + " takes " + std::to_string(ni) + " operand(s) and " +
                              std::to_string(no) + " result(s), got " + std::to_string(o.inputs.size()) + " and " +
                              std::to_string(o.outputs.size()));
      return std::nullopt;
    };
    switch (o.tosa_op()) {
      case op::reshape: {
        if (auto e = arity(2, 1)) return e;
        const auto *x = get(o.inputs[0]), *s = get(o.inputs[1]), *y = get(o.outputs[0]);
        if (auto e = legal(i, {x->type}, x->name)) return e;
        if (y->type != x->type) return err(i, y->name, "RESHAPE output dtype must equal the input dtype");
        if (s->type != dtype::id::shape || s->shape.size() != 1 || s->shape[0] != static_cast<std::int32_t>(y->shape.size()))
          return err(i, s->name, "shape operand must be a SHAPE tensor of length rank(output)");
        if (auto e = constant_operand(i, s->name)) return e;
        if (s->is_constant) {
          const auto v = graph::decode_ints(dtype::id::shape, s->data, s->shape[0]);
          for (std::size_t k = 0; k < v.size(); ++k)
            if (v[k] != y->shape[k]) return err(i, s->name, "shape operand " + shape_str(y->shape) + " does not match the output shape");
        }
        if (graph::element_count(x->shape) != graph::element_count(y->shape))
          return err(i, y->name, "RESHAPE must keep the element count: " + shape_str(x->shape) + " -> " + shape_str(y->shape));
        return std::nullopt;
      }
      case op::conv2d: {
        if (auto e = arity(5, 1)) return e;
        const auto *x = get(o.inputs[0]), *w = get(o.inputs[1]), *b = get(o.inputs[2]), *y = get(o.outputs[0]);
        if (auto e = legal(i, {x->type, w->type, y->type}, y->name)) return e;
        const auto* ca = std::get_if<graph::conv2d_attr>(&o.attr);
        if (ca == nullptr) return err(i, "", "CONV2D needs a Conv2dAttribute");
        if (const std::array<dtype::id, 3> sig{x->type, w->type, y->type};
            !tosa::accumulator_allowed(op::conv2d, sig, ca->acc_type)) {
          std::string allowed;
          for (const auto& r : tosa::rows_of(op::conv2d))
            if (r.types == std::array<dtype::id, 3>{x->type, w->type, y->type})
              allowed += (allowed.empty() ? "" : " or ") + std::string(dtype::name(r.acc));
          return err(i, y->name, "acc_type " + std::string(dtype::name(ca->acc_type)) + " is not an accumulator of the CONV2D row " +
                                     std::string(dtype::name(x->type)) + " x " + std::string(dtype::name(w->type)) + " -> " +
                                     std::string(dtype::name(y->type)) + " (TOSA allows " + allowed + ")");
        }
        if (b->type != y->type)
          return err(i, b->name, "bias dtype " + std::string(dtype::name(b->type)) + " must equal the output dtype " +
                                     std::string(dtype::name(y->type)) + " (e.g. INT48 bias for i16xi8)");
        if (auto e = zp(i, o.inputs[3], x->type, x->type == dtype::id::i8)) return e;
        if (auto e = zp(i, o.inputs[4], w->type, w->type == dtype::id::i8)) return e;
        if (auto e = constant_operand(i, o.inputs[3])) return e;
        if (auto e = constant_operand(i, o.inputs[4])) return e;
        if (x->shape.size() != 4 || w->shape.size() != 4 || y->shape.size() != 4)
          return err(i, x->name, "CONV2D input, weight and output must be rank 4 (NHWC, OHWI)");
        if (w->shape[3] != x->shape[3])
          return err(i, w->name, "weight IC " + std::to_string(w->shape[3]) + " must equal input channels " + std::to_string(x->shape[3]));
        const auto oc = w->shape[0];
        if (graph::element_count(b->shape) != oc && graph::element_count(b->shape) != 1)
          return err(i, b->name, "bias must have OC or 1 elements");
        for (auto p : ca->pad)
          if (p < 0) return err(i, "", "pad must be >= 0");
        for (int k = 0; k < 2; ++k)
          if (ca->stride[k] < 1 || ca->dilation[k] < 1) return err(i, "", "stride and dilation must be >= 1");
        {
          kernels::conv2d_shape cs;
          cs.n = x->shape[0], cs.ih = x->shape[1], cs.iw = x->shape[2], cs.ic = x->shape[3];
          cs.oc = oc, cs.kh = w->shape[1], cs.kw = w->shape[2];
          cs.bias_size = oc;  // the bias count was checked above
          cs.pad = ca->pad, cs.stride = ca->stride, cs.dilation = ca->dilation;
          std::int64_t oh = 0, ow = 0;
          if (kernels::conv2d_output_size(cs, oh, ow) != kernels::status::ok || oh != y->shape[1] || ow != y->shape[2])
            return err(i, y->name, "OH, OW do not satisfy (I-1+pad-(K-1)*dilation)/stride+1 exactly");
        }
        if (y->shape[0] != x->shape[0] || y->shape[3] != oc) return err(i, y->name, "output must be [N, OH, OW, OC]");
        if (t.level_8k) {
          const auto l = tosa::limits(tosa::level::eight_k);
          for (int k = 0; k < 2; ++k) {
            if (static_cast<std::int64_t>(ca->dilation[k]) * w->shape[1 + k] > l.max_kernel) return err(i, w->name, "level 8K: dilation*K exceeds MAX_KERNEL 8192");
            if (ca->stride[k] > l.max_stride) return err(i, "", "level 8K: stride exceeds MAX_STRIDE 8192");
          }
          for (auto p : ca->pad)
            if (p > l.max_kernel) return err(i, "", "level 8K: pad exceeds MAX_KERNEL 8192");
        }
        return std::nullopt;
      }
      case op::rescale: {
        if (auto e = arity(5, 1)) return e;
        const auto *x = get(o.inputs[0]), *m = get(o.inputs[1]), *s = get(o.inputs[2]), *y = get(o.outputs[0]);
        if (auto e = legal(i, {x->type, y->type}, y->name)) return e;
        const auto* ra = std::get_if<graph::rescale_attr>(&o.attr);
        if (ra == nullptr) return err(i, "", "RESCALE needs a RescaleAttribute");
        if (ra->scale32 && x->type == dtype::id::i48) return err(i, x->name, "scale32 must be false for an INT48 input (TOSA ERROR_IF)");
        if (m->type != (ra->scale32 ? dtype::id::i32 : dtype::id::i16))
          return err(i, m->name, std::string("multiplier must be ") + (ra->scale32 ? "INT32 (scale32)" : "INT16 (scale32 = false)"));
        if (s->type != dtype::id::i8) return err(i, s->name, "shift must be INT8");
        if (ra->rounding == tosa::rounding_mode::double_round) {
          if (!ra->scale32) return err(i, "", "DOUBLE_ROUND needs scale32 (TOSA ERROR_IF)");
          if (!t.supports(tosa::ext::doubleround)) return err(i, "", "rounding_mode DOUBLE_ROUND requires EXT-DOUBLEROUND; " + std::string(t.text().view()) + " does not enable it");
        }
        if (ra->rounding == tosa::rounding_mode::inexact_round && !t.supports(tosa::ext::inexactround))
          return err(i, "", "rounding_mode INEXACT_ROUND requires EXT-INEXACTROUND; " + std::string(t.text().view()) + " does not enable it");
        const std::int64_t nc = ra->per_channel ? (x->shape.empty() ? 0 : x->shape.back()) : 1;
        if (ra->per_channel && x->shape.empty()) return err(i, x->name, "per_channel needs rank >= 1 (TOSA ERROR_IF)");
        if (graph::element_count(m->shape) != nc || graph::element_count(s->shape) != nc)
          return err(i, m->name, "multiplier and shift must have " + std::to_string(nc) + " element(s) (" +
                                     (ra->per_channel ? "per channel: last dim" : "per tensor") + ")");
        for (int k = 1; k <= 4; ++k)
          if (auto e = constant_operand(i, o.inputs[static_cast<std::size_t>(k)])) return e;
        if (s->is_constant)
          for (auto v : graph::decode_ints(dtype::id::i8, s->data, nc))
            if (v < 2 || v > 62) return err(i, s->name, "shift " + std::to_string(v) + " outside 2..62 (TOSA REQUIRE)");
        if (m->is_constant)
          for (auto v : graph::decode_ints(m->type, m->data, nc))
            if (v < 0) return err(i, m->name, "multiplier must be >= 0 (TOSA REQUIRE)");
        if (auto e = zp(i, o.inputs[3], x->type, true)) return e;
        if (auto e = zp(i, o.inputs[4], y->type, true)) return e;
        if (auto e = rescale_flags(i, *ra, x->type, y->type)) return e;
        if (x->shape != y->shape) return err(i, y->name, "RESCALE output shape must equal the input shape");
        return std::nullopt;
      }
      case op::clamp: {
        if (auto e = arity(1, 1)) return e;
        const auto *x = get(o.inputs[0]), *y = get(o.outputs[0]);
        if (auto e = legal(i, {x->type}, x->name)) return e;
        const auto* ca = std::get_if<graph::clamp_attr>(&o.attr);
        if (ca == nullptr) return err(i, "", "CLAMP needs a ClampAttribute");
        if (ca->max_val < ca->min_val) return err(i, "", "max_val < min_val (TOSA ERROR_IF)");
        if (x->type != y->type || x->shape != y->shape) return err(i, y->name, "CLAMP output must have the input dtype and shape");
        return std::nullopt;
      }
      case op::add: {
        if (auto e = arity(2, 1)) return e;
        const auto *a = get(o.inputs[0]), *b = get(o.inputs[1]), *y = get(o.outputs[0]);
        if (auto e = legal(i, {a->type}, a->name)) return e;
        if (b->type != a->type || y->type != a->type) return err(i, b->name, "ADD operands and output must share a dtype");
        if (a->shape.size() != b->shape.size() || y->shape.size() != a->shape.size())
          return err(i, b->name, "ADD operands must have equal ranks (broadcast needs RESHAPE first)");
        for (std::size_t k = 0; k < a->shape.size(); ++k) {
          const auto d = std::max(a->shape[k], b->shape[k]);
          if ((a->shape[k] != d && a->shape[k] != 1) || (b->shape[k] != d && b->shape[k] != 1) || y->shape[k] != d)
            return err(i, y->name, "ADD shapes " + shape_str(a->shape) + " and " + shape_str(b->shape) + " do not broadcast to " + shape_str(y->shape));
        }
        return std::nullopt;
      }
      case op::cast_to_block_scaled: {
        if (auto e = arity(1, 2)) return e;
        const auto *x = get(o.inputs[0]), *d = get(o.outputs[0]), *s = get(o.outputs[1]);
        if (auto e = legal(i, {x->type, d->type}, d->name)) return e;
        if (auto e = block_attr(i)) return e;
        if (s->type != dtype::id::fp8ue8m0) return err(i, s->name, "output_scale must be FP8UE8M0");
        if (x->shape.empty()) return err(i, x->name, "rank 0 input (TOSA ERROR_IF)");
        if (x->shape.back() % 32 != 0) return err(i, x->name, "last dim " + std::to_string(x->shape.back()) + " must be divisible by block_size 32");
        auto ss = x->shape;
        ss.back() /= 32;
        if (d->shape != x->shape || s->shape != ss) return err(i, s->name, "output_data must be " + shape_str(x->shape) + " and output_scale " + shape_str(ss));
        return std::nullopt;
      }
      case op::matmul_t_block_scaled: {
        if (auto e = arity(4, 1)) return e;
        const auto *a = get(o.inputs[0]), *as = get(o.inputs[1]), *b = get(o.inputs[2]), *bs = get(o.inputs[3]),
                   *y = get(o.outputs[0]);
        if (auto e = legal(i, {a->type, b->type}, b->name)) return e;
        if (auto e = block_attr(i)) return e;
        if (as->type != dtype::id::fp8ue8m0 || bs->type != dtype::id::fp8ue8m0) return err(i, bs->name, "scales must be FP8UE8M0");
        if (y->type != dtype::id::fp32) return err(i, y->name, "output must be FP32");
        if (a->shape.size() != 3 || b->shape.size() != 3 || as->shape.size() != 3 || bs->shape.size() != 3)
          return err(i, a->name, "MATMUL_T_BLOCK_SCALED operands must be rank 3");
        const auto N = a->shape[0], H = a->shape[1], C = a->shape[2], D = b->shape[0], W = b->shape[1];
        if (b->shape[2] != C) return err(i, b->name, "B_data last dim must equal A_data last dim C = " + std::to_string(C));
        if (C % 32 != 0) return err(i, a->name, "C must be divisible by block_size 32");
        if (D != 1 && D != N) return err(i, b->name, "B_data batch dim D must be 1 or N");
        if (as->shape != std::vector<std::int32_t>{N, H, C / 32}) return err(i, as->name, "A_scale shape must be " + shape_str({N, H, C / 32}));
        if (bs->shape != std::vector<std::int32_t>{D, W, C / 32}) return err(i, bs->name, "B_scale shape must be " + shape_str({D, W, C / 32}));
        if (y->shape != std::vector<std::int32_t>{N, H, W}) return err(i, y->name, "output must be " + shape_str({N, H, W}));
        return std::nullopt;
      }
      case op::matmul: {
        if (auto e = arity(4, 1)) return e;
        const auto *a = get(o.inputs[0]), *b = get(o.inputs[1]), *y = get(o.outputs[0]);
        if (auto e = legal(i, {a->type, b->type, y->type}, y->name)) return e;
        if (a->shape.size() != 3 || b->shape.size() != 3 || y->shape.size() != 3 || a->shape[2] != b->shape[1] ||
            a->shape[0] != b->shape[0] || y->shape != std::vector<std::int32_t>{a->shape[0], a->shape[1], b->shape[2]})
          return err(i, y->name, "MATMUL shapes must be A [N,H,C], B [N,C,W] -> [N,H,W]");
        if (auto e = zp(i, o.inputs[2], a->type, a->type == dtype::id::i8)) return e;
        if (auto e = zp(i, o.inputs[3], b->type, b->type == dtype::id::i8)) return e;
        if (auto e = constant_operand(i, o.inputs[2])) return e;
        if (auto e = constant_operand(i, o.inputs[3])) return e;
        return std::nullopt;
      }
      case op::transpose:
      case op::const_: {
        if (o.inputs.empty()) return std::nullopt;
        return legal(i, {get(o.inputs[0])->type}, o.inputs[0]);
      }
      case op::mul:
      case op::cast:
      case op::cast_from_block_scaled: {
        if (o.inputs.empty() || o.outputs.empty()) return err(i, "", "missing operands");
        return legal(i, {get(o.inputs[0])->type, get(o.outputs[0])->type}, o.outputs[0]);
      }
    }
    return err(i, "", "unknown operator");
  }

  /// The signedness and zero-point ERROR_IFs of TOSA 1.0 RESCALE (input_unsigned/output_unsigned
  /// and input_zp/output_zp), checked by `kernels::validate(rescale_args)` — the same code the
  /// interpreter runs — on a one-element stand-in with the op's dtypes, flags and constant zero
  /// points (a non-constant zero point, EXT-DYNAMIC, is checked as 0 here and at run time).
  std::optional<lowering_error> rescale_flags(std::size_t i, const graph::rescale_attr& ra, dtype::id in_t, dtype::id out_t) const {
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

  std::optional<lowering_error> block_attr(std::size_t i) const {
    const auto* ba = std::get_if<graph::block_scaled_attr>(&g.operators[i].attr);
    if (ba == nullptr || ba->block_size != 32) return err(i, "", "block_size must be BLOCK_SIZE_32");
    return std::nullopt;
  }
};

}  // namespace detail

/// Validates a TOSA graph for target `t` (see file comment). Appends a record to `rep`.
[[nodiscard]] inline pass_status validate(const graph::graph& g, const tosa::target& t, report& rep) {
  const detail::stopwatch sw;
  detail::validator v{g, t};
  constexpr const char* pass = "Validate";
  const auto lim = tosa::limits(t.level());
  for (const auto& tn : g.tensors) {
    const auto c = tosa::check_tensor(t, tn.type);
    if (!c.ok()) return lowering_error{pass, "", tn.name, std::string(c.reason())};
    if (static_cast<std::int64_t>(tn.shape.size()) > lim.max_rank)
      return lowering_error{pass, "", tn.name,
                            "rank " + std::to_string(tn.shape.size()) + " exceeds MAX_RANK " + std::to_string(lim.max_rank) +
                                " of level " + std::string(tosa::name(t.level()))};
    const auto bytes = graph::payload_bytes(tn.type, graph::element_count(tn.shape));
    if (lim.max_log2_size < 63 && bytes >= (std::size_t{1} << lim.max_log2_size))
      return lowering_error{pass, "", tn.name,
                            "tensor size " + std::to_string(bytes) + " bytes reaches 2^MAX_LOG2_SIZE of level " +
                                std::string(tosa::name(t.level()))};
    for (auto d : tn.shape)
      if (d < 1) return lowering_error{pass, "", tn.name, "every dimension must be >= 1"};
    if (tn.is_constant && tn.data.size() != graph::payload_bytes(tn.type, graph::element_count(tn.shape)))
      return lowering_error{pass, "", tn.name, "constant payload has " + std::to_string(tn.data.size()) +
                                                   " bytes, its shape needs " +
                                                   std::to_string(graph::payload_bytes(tn.type, graph::element_count(tn.shape)))};
  }
  for (const auto& n : g.inputs)
    if (v.get(n) == nullptr) return lowering_error{pass, "", n, "graph input tensor does not exist"};
  for (const auto& n : g.outputs)
    if (v.get(n) == nullptr) return lowering_error{pass, "", n, "graph output tensor does not exist"};
  for (std::size_t i = 0; i < g.operators.size(); ++i)
    if (auto e = v.op(i)) return *e;
  rep.passes.push_back({pass,
                        std::to_string(g.operators.size()) + " ops and " + std::to_string(g.tensors.size()) +
                            " tensors legal for " + std::string(t.text().view()) +
                            (t.level_8k ? " (level 8K limits checked)" : ""),
                        0, sw.ms()});
  return done{};
}

}  // namespace armlower::passes
