/// @file armlower/passes/decompose_linear.hpp
/// Integer lowering of quantized linear layers (int8 and a16w8), after FoldAndAnnotateQParams:
///
/// DecomposeLinear (ExecuTorch `DecomposeLinearPass` + `RewriteConvPass`,
/// `backends/arm/_passes/decompose_linear_pass.py`, `backends/arm/operators/op_conv2d.py`): `linear(x[..., Ci], W[Co, Ci], b)` becomes
///
///     RESHAPE(x, [B,1,1,Ci]) → CONV2D 1×1 (weights OHWI [Co,1,1,Ci], bias, input_zp, weight_zp)
///       → ... → RESHAPE(·, [..., Co])               B = product of the leading dims (1 for rank 1)
///
/// with a zero bias when there is none. int8: CONV2D i8×i8 → i32 (acc_type INT32, bias INT32);
/// a16w8: CONV2D i16×i8 → i48 (acc_type INT48, bias re-encoded as INT48 — ExecuTorch main, #19278);
/// the a16w8 bias may be INT32 or INT64 (TFLite's int16×int8 FULLY_CONNECTED convention,
/// CMSIS-NN v7 `arm_nn_vec_mat_mult_t_s16`) — an INT64 value outside the INT48 range is an error.
///
/// InsertRescale (ExecuTorch `op_conv2d` post-rescale, §4.4–4.5): after each such CONV2D a RESCALE
/// to the output dtype with scale s_in·s_w[c]/s_out (double arithmetic, per channel when the weights
/// are), input_zp 0, output_zp = output zero point; 32-bit multipliers (scale32) for INT32 input,
/// 16-bit (scale32 = false) for INT48 input (`quant::tosa_scale_to_multiplier`); SINGLE_ROUND unless
/// DOUBLE_ROUND is asked for. A fused ReLU/ReLU6 becomes a CLAMP on the quantized output with
/// TFLite's bounds (`[max(qmin, zp), qmax]`, ReLU6 upper bound `min(qmax, zp + round(6/scale))`).
///
/// LowerQuantizedActivations: a stand-alone quantized ReLU/ReLU6 (same qparams in and out) becomes
/// CLAMP, a framework reshape becomes RESHAPE.
///
/// Errors name the op, the tensor and the rule (non-constant weights, wrong dtypes for the scheme,
/// shape mismatches, per-tensor input qparams, non-zero INT16 zero points, unrepresentable scales).
/// Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/kernels/status.hpp>
#include <armlower/passes/detail/activation.hpp>
#include <armlower/passes/detail/graph_edit.hpp>
#include <armlower/passes/emit.hpp>
#include <armlower/passes/fold_qparams.hpp>
#include <armlower/passes/options.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/passes/result.hpp>
#include <armlower/quant/multiplier.hpp>
#include <armlower/tosa/legality.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace armlower::passes {

/// A CONV2D whose accumulator still needs its RESCALE (produced by `decompose_linear`, consumed
/// by `insert_rescale`).
struct rescale_site {
  std::string acc;     ///< CONV2D output (INT32 / INT48), [B,1,1,Co]
  std::string output;  ///< quantized NHWC output the RESCALE (+ CLAMP) must produce
  float input_scale = 0;
  std::vector<float> weight_scale;  ///< one per tensor or one per output channel
  graph::activation act = graph::activation::none;
  op_site linear;  ///< the original linear, for errors
};

namespace detail {

struct linear_operands {
  const graph::tensor* x = nullptr;
  const graph::tensor* w = nullptr;
  const graph::tensor* b = nullptr;
  const graph::tensor* y = nullptr;
  std::int32_t ci = 0, co = 0;
};

/// Checks the operands of a folded quantized linear for an integer scheme.
[[nodiscard]] inline result<linear_operands> check_quantized_linear(const graph::graph& g, const graph::operation& o,
                                                                     const op_site& label, scheme s,
                                                                     const char* pass) {
  linear_operands r;
  if (o.inputs.size() < 2 || o.inputs.size() > 3 || o.outputs.size() != 1)
    return lowering_error{pass, label, "", "linear takes [x, weight, bias?] and gives one output"};
  r.x = g.find(o.inputs[0]);
  r.w = g.find(o.inputs[1]);
  r.b = o.inputs.size() == 3 ? g.find(o.inputs[2]) : nullptr;
  r.y = g.find(o.outputs[0]);
  for (std::size_t k = 0; k < o.inputs.size(); ++k)
    if (g.find(o.inputs[k]) == nullptr) return lowering_error{pass, label, o.inputs[k], "tensor does not exist"};
  if (r.y == nullptr) return lowering_error{pass, label, o.outputs[0], "tensor does not exist"};
  const auto act = activation_dtype(s);
  const auto sname = std::string(name(s));
  auto need_q = [&](const graph::tensor* t, const char* role) -> std::optional<lowering_error> {
    if (!t->quant || t->quant->scale.empty())
      return lowering_error{pass, label, t->name,
                            std::string(role) + " has no quantization parameters; scheme " + sname +
                                " needs a quantized graph (DEQUANTIZE/QUANTIZE around the linear) or calibration data", errc::unsupported};
    return std::nullopt;
  };
  if (auto e = need_q(r.x, "input")) return *e;
  if (auto e = need_q(r.y, "output")) return *e;
  if (auto e = need_q(r.w, "weight")) return *e;
  for (const auto* t : {r.x, r.y, r.w}) {
    for (float sc : t->quant->scale)
      if (!std::isfinite(sc) || !(sc > 0.0f))
        return lowering_error{pass, label, t->name,
                              "quantization scale " + std::to_string(sc) + " is not finite and > 0"};
    const auto& tr = dtype::traits(t->type);
    if (tr.fam == dtype::family::integer)
      for (auto z : t->quant->zero_point)
        if (z < tr.int_min || z > tr.int_max)
          return lowering_error{pass, label, t->name,
                                "zero point " + std::to_string(z) + " does not fit " + std::string(tr.name)};
  }
  if (r.x->type != act)
    return lowering_error{pass, label, r.x->name,
                          "input is " + std::string(dtype::name(r.x->type)) + " but scheme " + sname + " needs " +
                              std::string(dtype::name(act)) + " activations", errc::unsupported};
  if (r.y->type != act)
    return lowering_error{pass, label, r.y->name,
                          "output is " + std::string(dtype::name(r.y->type)) + " but scheme " + sname + " needs " +
                              std::string(dtype::name(act)) + " activations", errc::unsupported};
  if (r.x->quant->per_channel || r.x->quant->scale.size() != 1)
    return lowering_error{pass, label, r.x->name, "input must be quantized per tensor", errc::unsupported};
  if (r.y->quant->per_channel || r.y->quant->scale.size() != 1)
    return lowering_error{pass, label, r.y->name, "output must be quantized per tensor", errc::unsupported};
  if (!r.w->is_constant)
    return lowering_error{pass, label, r.w->name,
                          "weights must be a constant (non-constant weights cannot be lowered; fold them first)", errc::unsupported};
  if (r.w->type != dtype::id::i8)
    return lowering_error{pass, label, r.w->name, "weights must be INT8, got " + std::string(dtype::name(r.w->type)), errc::unsupported};
  if (r.x->shape.empty()) return lowering_error{pass, label, r.x->name, "input must have rank >= 1", errc::unsupported};
  r.ci = r.x->shape.back();
  const auto& ws = r.w->shape;
  const bool w2 = ws.size() == 2, w4 = ws.size() == 4 && ws[1] == 1 && ws[2] == 1;
  if (!(w2 || w4) || ws.back() != r.ci)
    return lowering_error{pass, label, r.w->name,
                          "weight shape must be [out_features, in_features] with in_features = " + std::to_string(r.ci)};
  r.co = ws[0];
  auto ys = r.x->shape;
  ys.back() = r.co;
  if (r.y->shape != ys) return lowering_error{pass, label, r.y->name, "output shape must be the input shape with the last dim = out_features"};
  const auto& wq = *r.w->quant;
  if (wq.per_channel && (wq.axis != 0 || static_cast<std::int32_t>(wq.scale.size()) != r.co))
    return lowering_error{pass, label, r.w->name, "per-channel weight qparams need one scale per output channel (axis 0)", errc::unsupported};
  if (!wq.per_channel && wq.scale.size() != 1)
    return lowering_error{pass, label, r.w->name, "per-tensor weight qparams need exactly one scale", errc::unsupported};
  for (auto z : wq.zero_point)
    if (z != (wq.zero_point.empty() ? 0 : wq.zero_point[0]))
      return lowering_error{pass, label, r.w->name, "weight zero points must be equal (CONV2D has one weight_zp)", errc::unsupported};
  if (s == scheme::a16w8) {
    if (r.x->quant->zero_point.at(0) != 0)
      return lowering_error{pass, label, r.x->name, "INT16 activations must be symmetric (zero point 0: TOSA ERROR_IF)", errc::unsupported};
    if (r.y->quant->zero_point.at(0) != 0)
      return lowering_error{pass, label, r.y->name, "INT16 activations must be symmetric (zero point 0: TOSA ERROR_IF)", errc::unsupported};
  }
  if (r.b != nullptr) {
    if (!r.b->is_constant) return lowering_error{pass, label, r.b->name, "bias must be a constant", errc::unsupported};
    // int8: INT32 bias. a16w8: INT32, or INT64 (TFLite/CMSIS-NN int16x8 convention,
    // CMSIS-NN v7 `arm_nn_vec_mat_mult_t_s16`) whose values fit the INT48 bias/accumulator of the TOSA CONV2D.
    const bool i64_ok = s == scheme::a16w8 && r.b->type == dtype::id::i64;
    if (r.b->type != dtype::id::i32 && !i64_ok)
      return lowering_error{pass, label, r.b->name,
                            std::string("bias must be INT32") + (s == scheme::a16w8 ? " or INT64" : "") +
                                " (scale s_in*s_w), got " + std::string(dtype::name(r.b->type)), errc::unsupported};
    if (r.b->shape != std::vector<std::int32_t>{r.co})
      return lowering_error{pass, label, r.b->name, "bias shape must be [" + std::to_string(r.co) + "]"};
    if (r.b->data.size() < graph::payload_bytes(r.b->type, r.co))
      return lowering_error{pass, label, r.b->name, "constant payload size does not match its shape"};
    if (i64_ok) {
      const auto& t48 = dtype::traits(dtype::id::i48);
      const auto bv = graph::decode_ints(dtype::id::i64, r.b->data, r.co);
      for (std::size_t c = 0; c < bv.size(); ++c)
        if (bv[c] < t48.int_min || bv[c] > t48.int_max)
          return lowering_error{pass, label, r.b->name,
                                "INT64 bias value " + std::to_string(bv[c]) + " (channel " + std::to_string(c) +
                                    ") does not fit INT48 [" + std::to_string(t48.int_min) + ", " +
                                    std::to_string(t48.int_max) +
                                    "]: the a16w8 lowering adds the bias in the CONV2D's INT48 accumulator"};
    }
  }
  return r;
}

}  // namespace detail

/// DecomposeLinear for integer scheme `S` (see file comment), emitting through `ctx`
/// (`passes/emit.hpp`): the activation dtype is `activation_dtype(S)`, the accumulator the op
/// table's for (activation, INT8) CONV2D. Fills `sites` for InsertRescale. Every linear is
/// checked; the error lists each one that cannot be lowered and each illegal emission.
template <scheme S, class Ctx>
[[nodiscard]] pass_status decompose_linear(Ctx& ctx, graph::graph& g, std::vector<rescale_site>& sites, report& rep) {
  static_assert(!is_mx(S), "decompose_linear: integer schemes only");
  constexpr dtype::id A = activation_dtype(S);
  constexpr dtype::id I8 = dtype::id::i8;
  constexpr dtype::id Acc = *tosa::accumulator_dtype(tosa::op::conv2d, A, I8);
  constexpr dtype::id Shp = dtype::id::shape;
  const detail::stopwatch sw;
  constexpr const char* pass = "DecomposeLinear";
  constexpr bool a16 = Acc == dtype::id::i48;
  std::vector<graph::operation> out;
  out.reserve(g.operators.size() * 4);
  std::int64_t n = 0;
  std::int64_t zero_bias = 0;
  auto ops = std::move(g.operators);
  g.operators.clear();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!detail::is_fw(ops[i], graph::framework_op::linear)) {
      out.push_back(std::move(ops[i]));
      continue;
    }
    const auto label = detail::op_label(ops[i], i);
    auto chk = detail::check_quantized_linear(g, ops[i], label, S, pass);
    if (!chk) {  // report it, keep the linear, go on with the others
      ctx.add(chk.error());
      out.push_back(std::move(ops[i]));
      continue;
    }
    const auto& o = ops[i];
    const auto act = std::holds_alternative<graph::linear_attr>(o.attr) ? std::get<graph::linear_attr>(o.attr).fused
                                                                         : graph::activation::none;
    // Copy what we need before adding tensors (pointers into g.tensors are invalidated by adds).
    const auto x = *chk->x;
    const auto y_name = chk->y->name;
    const auto y_quant = *chk->y->quant;
    const auto w_name = chk->w->name;
    const auto w_quant = *chk->w->quant;
    const auto ci = chk->ci, co = chk->co;
    const std::string b_name = chk->b ? chk->b->name : std::string();
    const auto B = detail::leading_product(x.shape);
    const std::string& base = y_name;  // a local copy already (the tensor may move)

    // Weights: [Co, Ci] -> OHWI [Co, 1, 1, Ci] (same bytes).
    g.find(w_name)->shape = {co, 1, 1, ci};
    // Bias: INT32 as is (int8) or re-encoded as INT48 (a16w8); zero bias when absent.
    std::string bias;
    if (!a16 && !b_name.empty()) {
      bias = b_name;
    } else {
      std::vector<std::int64_t> bv(static_cast<std::size_t>(co), 0);
      if (!b_name.empty()) bv = graph::decode_ints(g.find(b_name)->type, g.find(b_name)->data, co);
      else ++zero_bias;
      bias = detail::add_int_const(g, base + "_bias", Acc, {co}, bv);
    }
    const auto s4 = detail::add_shape_const(g, base + "_in_shape", {B, 1, 1, ci});
    const auto x4 = detail::add_tensor(g, x.name + "_nhwc", A, {B, 1, 1, ci}, x.quant);
    const auto in_zp = detail::add_scalar_const(g, base + "_input_zp", A, x.quant->zero_point.at(0));
    const auto w_zp = detail::add_scalar_const(g, base + "_weight_zp", I8,
                                               w_quant.zero_point.empty() ? 0 : w_quant.zero_point[0]);
    const auto acc = detail::add_tensor(g, base + "_acc", Acc, {B, 1, 1, co});
    const auto y4 = detail::add_tensor(g, base + "_nhwc", A, {B, 1, 1, co}, y_quant);
    const auto ys = detail::add_shape_const(g, base + "_out_shape", g.find(y_name)->shape);

    graph::conv2d_attr ca;
    ca.acc_type = Acc;
    ctx.at(out, pass, o.source_index, static_cast<std::int64_t>(i));
    emit<tosa::op::reshape>(ctx, value<A>{x.name}, value<Shp>{s4}, value<A>{x4});
    emit<tosa::op::conv2d>(ctx, value<A>{x4}, value<I8>{w_name}, value<Acc>{bias}, value<A>{in_zp}, value<I8>{w_zp},
                           value<Acc>{acc}, ca);
    emit<tosa::op::reshape>(ctx, value<A>{y4}, value<Shp>{ys}, value<A>{y_name});
    sites.push_back({acc, y4, x.quant->scale[0], w_quant.scale, act, label});
    ++n;
  }
  g.operators = std::move(out);
  if (!ctx.ok()) return ctx.take_error();
  detail::remove_unused_tensors(g);
  rep.passes.push_back({pass,
                        std::to_string(n) + " linear -> RESHAPE + CONV2D 1x1 (" +
                            std::string(a16 ? "i16xi8->i48, INT48 bias" : "i8xi8->i32") + ") + RESHAPE" +
                            (zero_bias ? ", " + std::to_string(zero_bias) + " zero bias added" : ""),
                        3 * n, sw.ms()});
  return done{};
}

/// InsertRescale (see file comment) for integer scheme `S`: a RESCALE (accumulator →
/// activation dtype; + CLAMP for a fused activation) after every CONV2D listed in `sites`,
/// emitted through `ctx` (the rounding mode's extension is checked at the RESCALE emission).
template <scheme S, class Ctx>
[[nodiscard]] pass_status insert_rescale(Ctx& ctx, graph::graph& g, const std::vector<rescale_site>& sites,
                                         tosa::rounding_mode rounding, report& rep) {
  constexpr dtype::id A = activation_dtype(S);
  constexpr dtype::id Acc = *tosa::accumulator_dtype(tosa::op::conv2d, A, dtype::id::i8);
  // 32-bit multipliers (scale32) for INT32 input, 16-bit for INT48 (TOSA RESCALE ERROR_IF).
  constexpr bool scale32 = Acc != dtype::id::i48;
  constexpr dtype::id Mul = scale32 ? dtype::id::i32 : dtype::id::i16;
  const detail::stopwatch sw;
  constexpr const char* pass = "InsertRescale";
  std::vector<graph::operation> out;
  out.reserve(g.operators.size() + 2 * sites.size());
  std::size_t next = 0;
  std::int64_t n = 0, clamps = 0, per_channel = 0;
  for (auto& op : g.operators) {
    const bool is_site = next < sites.size() && op.is_tosa() && op.tosa_op() == tosa::op::conv2d &&
                         op.outputs.at(0) == sites[next].acc;
    out.push_back(std::move(op));
    if (!is_site) continue;
    const auto& st = sites[next++];
    const auto* yt = g.find(st.output);
    const auto y_zp = yt->quant->zero_point.at(0);
    const float y_scale = yt->quant->scale.at(0);
    const auto width = scale32 ? quant::multiplier_width::bits32 : quant::multiplier_width::bits16;
    if (!scale32 && rounding == tosa::rounding_mode::double_round)
      return lowering_error{pass, st.linear, st.acc,
                            "DOUBLE_ROUND needs 32-bit multipliers (scale32); a RESCALE from INT48 uses 16-bit "
                            "multipliers (TOSA ERROR_IF !scale32 && DOUBLE_ROUND)",
                            errc::invalid_argument};
    std::vector<std::int64_t> mult, shift;
    for (float sw_c : st.weight_scale) {
      const double scale =
          static_cast<double>(st.input_scale) * static_cast<double>(sw_c) / static_cast<double>(y_scale);
      quant::tosa_multiplier m{};
      const auto s = quant::tosa_scale_to_multiplier(scale, width, m);
      if (s != armlower::status::ok)
        return lowering_error{pass, st.linear, st.output,
                              "requantization scale s_in*s_w/s_out = " + std::to_string(scale) +
                                  " cannot be encoded as a TOSA multiplier/shift (" + kernels::to_string(s) + ")",
                              errc::unsupported};
      mult.push_back(m.multiplier);
      shift.push_back(m.shift);
    }
    const bool pc = mult.size() > 1;
    per_channel += pc;
    const auto& base = st.output;
    const auto mname = detail::add_int_const(g, base + "_multiplier", Mul,
                                             {static_cast<std::int32_t>(mult.size())}, mult);
    const auto sname = detail::add_int_const(g, base + "_shift", dtype::id::i8,
                                             {static_cast<std::int32_t>(shift.size())}, shift);
    const auto izp = detail::add_scalar_const(g, base + "_rescale_input_zp", Acc, 0);
    const auto ozp = detail::add_scalar_const(g, base + "_rescale_output_zp", A, y_zp);
    graph::rescale_attr ra;
    ra.scale32 = scale32;
    ra.rounding = rounding;
    ra.per_channel = pc;
    const auto src = out.back().source_index;  // the CONV2D's
    ctx.at(out, pass, src, static_cast<std::int64_t>(out.size()));
    emit<tosa::op::rescale>(ctx, value<Acc>{st.acc}, value<Mul>{mname}, value<dtype::id::i8>{sname}, value<Acc>{izp},
                            value<A>{ozp}, value<A>{st.output}, ra);
    const auto c = detail::append_fused_activation<A>(ctx, g, st.act, st.output, pass, st.linear);
    if (!c) return c.error();
    clamps += *c;
    ++n;
  }
  if (next != sites.size())
    return lowering_error{pass, {}, sites[next].acc, "internal: CONV2D of a decomposed linear not found"};
  g.operators = std::move(out);
  if (!ctx.ok()) return ctx.take_error();
  rep.passes.push_back({pass,
                        std::to_string(n) + " RESCALE (" + std::to_string(per_channel) + " per-channel, " +
                            (rounding == tosa::rounding_mode::double_round ? "DOUBLE_ROUND" : "SINGLE_ROUND") + "), " +
                            std::to_string(clamps) + " CLAMP for fused activations",
                        n + clamps, sw.ms()});
  return done{};
}

/// LowerQuantizedActivations (see file comment): stand-alone quantized ReLU/ReLU6 → CLAMP,
/// framework reshape → RESHAPE, emitted through `ctx` (their dtype is the tensor's, known at run
/// time: `dyn_value`). Any framework op left afterwards is an error (`errc::unsupported`); every
/// such op is reported.
template <class Ctx>
[[nodiscard]] pass_status lower_remaining_framework_ops(Ctx& ctx, graph::graph& g, bool quantized, report& rep) {
  const detail::stopwatch sw;
  constexpr const char* pass = "LowerActivationsAndReshapes";
  std::int64_t n = 0;
  std::vector<graph::operation> out;
  out.reserve(g.operators.size());
  auto ops = std::move(g.operators);
  g.operators.clear();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    auto& o = ops[i];
    if (o.is_tosa()) {
      out.push_back(std::move(o));
      continue;
    }
    const auto k = std::get<graph::framework_op>(o.code);
    const auto label = detail::op_label(o, i);
    ctx.at(out, pass, o.source_index, static_cast<std::int64_t>(i));
    auto keep = [&](const std::string& tensor, std::string rule, errc code) {
      ctx.add(lowering_error{pass, label, tensor, std::move(rule), code});
      out.push_back(std::move(o));
    };
    const auto* x = o.inputs.empty() ? nullptr : g.find(o.inputs[0]);
    const auto* y = o.outputs.size() == 1 ? g.find(o.outputs[0]) : nullptr;
    const bool known = k == graph::framework_op::reshape || k == graph::framework_op::relu ||
                       k == graph::framework_op::relu6;
    if (known && (x == nullptr || y == nullptr)) {
      keep(x == nullptr ? (o.inputs.empty() ? "" : o.inputs[0]) : (o.outputs.empty() ? "" : o.outputs[0]),
           "tensor does not exist", errc::invalid_graph);
      continue;
    }
    if (k == graph::framework_op::reshape) {
      const auto xv = dyn_value{x->name, x->type}, yv = dyn_value{y->name, y->type};
      const auto sc = detail::add_shape_const(g, y->name + "_shape", y->shape);
      emit<tosa::op::reshape>(ctx, xv, value<dtype::id::shape>{sc}, yv);
      ++n;
      continue;
    }
    if (k == graph::framework_op::relu || k == graph::framework_op::relu6) {
      const auto a = k == graph::framework_op::relu ? graph::activation::relu : graph::activation::relu6;
      graph::clamp_attr c;
      if (quantized) {
        if (!x->quant || !y->quant || !detail::same_qparams(*x, *y)) {
          keep(y->name, "a stand-alone quantized ReLU needs identical input and output qparams", errc::unsupported);
          continue;
        }
        c = detail::activation_bounds(a, *y);
      } else {
        c = detail::float_activation_bounds(a);
      }
      emit<tosa::op::clamp>(ctx, dyn_value{x->name, x->type}, dyn_value{y->name, y->type}, c);
      ++n;
      continue;
    }
    keep(o.inputs.empty() ? "" : o.inputs[0],
         std::string(o.op_name()) +
             " cannot be lowered here (a QUANTIZE/DEQUANTIZE at the graph boundary needs float "
             "support; give the graph quantized inputs/outputs)",
         errc::unsupported);
  }
  g.operators = std::move(out);
  if (!ctx.ok()) return ctx.take_error();
  rep.passes.push_back({pass, std::to_string(n) + " ReLU/reshape lowered to CLAMP/RESHAPE", n, sw.ms()});
  return done{};
}

}  // namespace armlower::passes
