/// @file armlower/passes/rewrite_mxfp_linear.hpp
/// RewriteMXFPLinear: lowers a float `linear` to the TOSA 1.1 block-scaled ops (ExecuTorch
/// `RewriteMXFPLinearPass` + `to_mxfp`, ExecuTorch `backends/arm/_passes/rewrite_mxfp_linear.py`, `backends/arm/ao_ext/`):
///
///     x[..., Cin] ─RESHAPE [1,B,Cin]─► CAST_TO_BLOCK_SCALED ─► (x_data [1,B,Cin], x_scale [1,B,Cin/32])
///     MATMUL_T_BLOCK_SCALED(x_data, x_scale, W_data [1,Cout,Cin], W_scale [1,Cout,Cin/32]) ─► [1,B,Cout] fp32
///     ─RESHAPE [..., Cout]─► ADD(bias reshaped to [1,...,1,Cout])        (ADD only with a bias)
///     ─► CLAMP [0, FLT_MAX] / [0, 6]            (only for a fused ReLU / ReLU6, `linear_attr::fused`)
///
/// The fused activation of the linear is honoured with the same CLAMP the stand-alone float ReLU
/// lowering emits (`detail::append_fused_activation`); an activation it cannot express is an error.
///
/// The weights are MX-quantized ahead of time with `mx::quantize` (block 32, E8M0 scales, rule
/// `options::mx_scale`, RCEIL by default as torchao/ExecuTorch); activations are cast at run time
/// with the same element type. The fp32 weights are released as each layer is quantized.
///
/// Where Cin is not a multiple of 32 (ExecuTorch refuses: "in_features must be divisible by
/// block_size=32"), the contraction dimension is zero-padded to Cp = ceil(Cin/32)·32, which is
/// exact: the weights get zero columns, and the activations are padded by an fp32 CONV2D with a
/// single 1.0 weight, zero bias and `pad = [0, Cp−Cin, 0, 0]` over x viewed as [B, Cin, 1, 1]
/// (x·1.0 + 0 is exact; padding contributes 0). The report says so (a warning per layer).
/// Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/mx/format.hpp>
#include <armlower/mx/quantize.hpp>
#include <armlower/passes/detail/activation.hpp>
#include <armlower/passes/detail/graph_edit.hpp>
#include <armlower/passes/emit.hpp>
#include <armlower/passes/fold_qparams.hpp>
#include <armlower/passes/options.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/passes/result.hpp>

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace armlower::passes {

namespace detail {

/// A float linear checked and with its weights MX-quantized, ready for emission.
struct mx_linear {
  op_site label;
  std::string x_name, y_name, b_name, wq_name, ws_name;
  std::vector<std::int32_t> y_shape;
  std::int32_t B = 0, ci = 0, co = 0, cp = 0;
  graph::activation act = graph::activation::none;
};

/// The element-type-independent half of RewriteMXFPLinear for the linear `o` at position `i`:
/// checks its operands and adds its MX-quantized weights (element `elem`, scales E8M0) to `g`
/// (not a template, so each MX scheme instantiates only the emissions).
[[nodiscard]] inline result<mx_linear> prepare_mx_linear(graph::graph& g, const graph::operation& o, std::size_t i,
                                                         dtype::id elem, mx::scale_mode mode,
                                                         const std::unordered_map<std::string, std::size_t>& last_reader,
                                                         std::vector<float>& wbuf) {
  constexpr const char* pass = "RewriteMXFPLinear";
  constexpr std::int32_t bs = mx::block_size;
  const auto label = op_label(o, i);
  auto fail = [&](const std::string& t, const std::string& rule, errc code = errc::unsupported) {
    return lowering_error{pass, label, t, rule, code};
  };
  if (o.inputs.size() < 2 || o.inputs.size() > 3 || o.outputs.size() != 1)
    return fail("", "linear takes [x, weight, bias?] and gives one output", errc::invalid_graph);
  for (const auto& nm : o.inputs)
    if (g.find(nm) == nullptr) return fail(nm, "tensor does not exist", errc::invalid_graph);
  if (g.find(o.outputs[0]) == nullptr) return fail(o.outputs[0], "tensor does not exist", errc::invalid_graph);
  const auto act = std::holds_alternative<graph::linear_attr>(o.attr) ? std::get<graph::linear_attr>(o.attr).fused
                                                                       : graph::activation::none;
  const auto x = *g.find(o.inputs[0]);  // copy: no payload (not a constant)
  const auto y_name = o.outputs[0];
  const auto y_shape = g.find(y_name)->shape;
  const auto w_name = o.inputs[1];
  const std::string b_name = o.inputs.size() == 3 ? o.inputs[2] : std::string();
  if (x.type != dtype::id::fp32 || x.quant)
    return fail(x.name, "MXFP lowering takes a float linear (fp32 input), got " + std::string(dtype::name(x.type)) +
                            (x.quant ? " with qparams" : ""));
  const auto* w = g.find(w_name);
  if (!w->is_constant) return fail(w_name, "weights must be a constant (they are MX-quantized ahead of time)");
  if (w->type != dtype::id::fp32) return fail(w_name, "weights must be FP32, got " + std::string(dtype::name(w->type)));
  if (x.shape.empty()) return fail(x.name, "input must have rank >= 1");
  const std::int32_t ci = x.shape.back();
  if (w->shape.size() != 2 || w->shape[1] != ci)
    return fail(w_name, "weight shape must be [out_features, " + std::to_string(ci) + "]");
  const std::int32_t co = w->shape[0];
  auto ys = x.shape;
  ys.back() = co;
  if (y_shape != ys) return fail(y_name, "output shape must be the input shape with the last dim = out_features");
  if (!b_name.empty()) {
    const auto* b = g.find(b_name);
    if (!b->is_constant || b->type != dtype::id::fp32 || b->shape != std::vector<std::int32_t>{co})
      return fail(b_name, "bias must be a constant FP32 [" + std::to_string(co) + "]");
  }
  const std::int32_t cp = (ci + bs - 1) / bs * bs;
  const auto B = leading_product(x.shape);
  const std::string& base = y_name;

  // Weights -> [1, Co, Cp] codes + [1, Co, Cp/32] E8M0 scales, zero columns for the padding.
  wbuf.assign(static_cast<std::size_t>(co) * static_cast<std::size_t>(cp), 0.0f);
  {
    auto* wt = g.find(w_name);
    if (wt->data.size() != static_cast<std::size_t>(co) * static_cast<std::size_t>(ci) * 4)
      return fail(w_name, "constant payload size does not match its shape", errc::invalid_graph);
    for (std::int32_t r = 0; r < co; ++r)
      std::memcpy(wbuf.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cp),
                  wt->data.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(ci) * 4,
                  static_cast<std::size_t>(ci) * 4);
    // Release the fp32 weights if nobody else reads them (keeps peak memory near one copy).
    const bool shared = last_reader.at(w_name) > i;
    if (!shared) std::vector<std::uint8_t>().swap(wt->data);
  }
  graph::tensor wq{g.unique_name(base + "_weight_mx"), elem, {1, co, cp}, true, {}, std::nullopt};
  wq.data.resize(mx::storage_bytes(elem, wbuf.size()));
  graph::tensor ws{g.unique_name(base + "_weight_mx_scale"), dtype::id::fp8ue8m0, {1, co, cp / bs}, true, {},
                   std::nullopt};
  ws.data.resize(wbuf.size() / bs);
  const auto st = mx::quantize(wbuf, static_cast<std::size_t>(cp), elem, mode, wq.data, ws.data);
  if (st != mx::status::ok)
    return fail(w_name, std::string("MX quantization failed: ") + mx::to_string(st));
  const auto wq_name = wq.name, ws_name = ws.name;
  g.add(std::move(wq));
  g.add(std::move(ws));

  return mx_linear{label, x.name, y_name, b_name, wq_name, ws_name, y_shape, B, ci, co, cp, act};
}

}  // namespace detail

namespace detail {

/// Emits CAST_TO_BLOCK_SCALED (x3 fp32 → xd `Elem`, xs E8M0) and MATMUL_T_BLOCK_SCALED
/// (xd, xs × wq, ws → m fp32) through the context of type `Ctx` (block size 32).
using block_scaled_emitter = void (*)(emission_state&, const std::string& x3, const std::string& xd,
                                      const std::string& xs, const std::string& wq, const std::string& ws,
                                      const std::string& m);
template <dtype::id Elem, class Ctx>
void emit_block_scaled(emission_state& state, const std::string& x3, const std::string& xd, const std::string& xs,
                       const std::string& wq, const std::string& ws, const std::string& m) {
  constexpr dtype::id F = dtype::id::fp32;
  constexpr dtype::id E8 = dtype::id::fp8ue8m0;
  auto& ctx = static_cast<Ctx&>(state);
  emit<tosa::op::cast_to_block_scaled>(ctx, value<F>{x3}, value<Elem>{xd}, value<E8>{xs},
                                       graph::block_scaled_attr{mx::block_size});
  emit<tosa::op::matmul_t_block_scaled>(ctx, value<Elem>{xd}, value<E8>{xs}, value<Elem>{wq}, value<E8>{ws},
                                        value<F>{m}, graph::block_scaled_attr{mx::block_size});
}

/// The walk of RewriteMXFPLinear over the graph, for element `elem`; the two ops whose dtypes
/// depend on it are emitted by `emit_bs` (one instantiation per element type).
template <class Ctx>
[[nodiscard]] pass_status rewrite_mxfp_walk(Ctx& ctx, graph::graph& g, dtype::id elem, mx::scale_mode mode,
                                            report& rep, block_scaled_emitter emit_bs) {
  constexpr dtype::id F = dtype::id::fp32;
  constexpr dtype::id E8 = dtype::id::fp8ue8m0;
  constexpr dtype::id Shp = dtype::id::shape;
  const detail::stopwatch sw;
  constexpr const char* pass = "RewriteMXFPLinear";
  constexpr std::int32_t bs = mx::block_size;
  std::vector<graph::operation> out;
  out.reserve(g.operators.size() * 6);
  std::vector<float> wbuf;
  std::int64_t n = 0, padded = 0, clamps = 0;
  auto ops = std::move(g.operators);
  g.operators.clear();
  // Last operator reading each tensor (to release fp32 weights nobody reads later).
  std::unordered_map<std::string, std::size_t> last_reader;
  for (std::size_t k = 0; k < ops.size(); ++k)
    for (const auto& in : ops[k].inputs) last_reader[in] = k;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!detail::is_fw(ops[i], graph::framework_op::linear)) {
      out.push_back(std::move(ops[i]));
      continue;
    }
    auto prep = detail::prepare_mx_linear(g, ops[i], i, elem, mode, last_reader, wbuf);
    if (!prep) {  // report it, keep the linear, go on with the others
      ctx.add(prep.error());
      out.push_back(std::move(ops[i]));
      continue;
    }
    const auto& L = *prep;
    const auto& label = L.label;
    const auto& x_name = L.x_name;
    const auto& y_name = L.y_name;
    const auto& y_shape = L.y_shape;
    const auto& b_name = L.b_name;
    const auto& wq_name = L.wq_name;
    const auto& ws_name = L.ws_name;
    const auto B = L.B, ci = L.ci, co = L.co, cp = L.cp;
    const auto act = L.act;
    const std::string& base = y_name;
    // Activations -> [1, B, Cp] (zero-padded when Cin % 32 != 0).
    ctx.at(out, pass, ops[i].source_index, static_cast<std::int64_t>(i));
    std::string x3 = detail::add_tensor(g, base + "_in3", F, {1, B, cp});
    if (cp == ci) {
      emit<tosa::op::reshape>(ctx, value<F>{x_name},
                              value<Shp>{detail::add_shape_const(g, base + "_in3_shape", {1, B, ci})}, value<F>{x3});
    } else {
      const auto xc = detail::add_tensor(g, base + "_in_col", F, {B, ci, 1, 1});
      emit<tosa::op::reshape>(ctx, value<F>{x_name},
                              value<Shp>{detail::add_shape_const(g, base + "_in_col_shape", {B, ci, 1, 1})},
                              value<F>{xc});
      const float one[1] = {1.0f}, zero[1] = {0.0f};
      const auto pw = detail::add_f32_const(g, base + "_pad_weight", {1, 1, 1, 1}, one);
      const auto pb = detail::add_f32_const(g, base + "_pad_bias", {1}, zero);
      const auto pz1 = detail::add_f32_const(g, base + "_pad_input_zp", {1}, zero);
      const auto pz2 = detail::add_f32_const(g, base + "_pad_weight_zp", {1}, zero);
      const auto xp = detail::add_tensor(g, base + "_in_padded", F, {B, cp, 1, 1});
      graph::conv2d_attr ca;
      ca.pad = {0, cp - ci, 0, 0};
      ca.acc_type = F;
      emit<tosa::op::conv2d>(ctx, value<F>{xc}, value<F>{pw}, value<F>{pb}, value<F>{pz1}, value<F>{pz2},
                             value<F>{xp}, ca);
      emit<tosa::op::reshape>(ctx, value<F>{xp},
                              value<Shp>{detail::add_shape_const(g, base + "_in3_shape", {1, B, cp})}, value<F>{x3});
      std::string msg = label.text();
      msg += " (";
      msg += y_name;
      msg += "): in_features ";
      msg += std::to_string(ci);
      msg += " is not a multiple of 32; the contraction dimension was zero-padded to ";
      msg += std::to_string(cp);
      msg += " (exact: zero weight columns, activations padded by CONV2D)";
      rep.warnings.push_back(std::move(msg));
      ++padded;
    }
    const auto xd = detail::add_tensor(g, base + "_in_mx", elem, {1, B, cp});
    const auto xs = detail::add_tensor(g, base + "_in_mx_scale", E8, {1, B, cp / bs});
    const auto m = detail::add_tensor(g, base + "_matmul", F, {1, B, co});
    emit_bs(ctx, x3, xd, xs, wq_name, ws_name, m);
    const auto ysc = detail::add_shape_const(g, base + "_out_shape", y_shape);
    if (b_name.empty()) {
      emit<tosa::op::reshape>(ctx, value<F>{m}, value<Shp>{ysc}, value<F>{y_name});
    } else {
      const auto y0 = detail::add_tensor(g, base + "_nobias", F, y_shape);
      emit<tosa::op::reshape>(ctx, value<F>{m}, value<Shp>{ysc}, value<F>{y0});
      // Bias as a rank-matching constant [1, ..., 1, Co] (ADD needs equal ranks).
      std::vector<std::int32_t> bshape(y_shape.size(), 1);
      bshape.back() = co;
      const auto bname = g.unique_name(base + "_bias_bcast");
      auto bt = *g.find(b_name);
      bt.name = bname;
      bt.shape = bshape;
      g.add(std::move(bt));
      emit<tosa::op::add>(ctx, value<F>{y0}, value<F>{bname}, value<F>{y_name});
    }
    const auto c = detail::append_fused_activation<F>(ctx, g, act, y_name, pass, label);
    if (!c) {
      ctx.add(c.error());
      continue;
    }
    clamps += *c;
    ++n;
  }
  g.operators = std::move(out);
  if (!ctx.ok()) return ctx.take_error();
  detail::remove_unused_tensors(g);
  rep.passes.push_back({pass,
                        std::to_string(n) + " linear -> RESHAPE + CAST_TO_BLOCK_SCALED + MATMUL_T_BLOCK_SCALED (" +
                            std::string(dtype::name(elem)) + ", block 32) + RESHAPE (+ ADD bias); " +
                            std::to_string(padded) + " contraction dims zero-padded; " + std::to_string(clamps) +
                            " CLAMP for fused activations",
                        4 * n + clamps, sw.ms()});
  return done{};
}


}  // namespace detail

/// RewriteMXFPLinear (see file comment) for MX element dtype `Elem`, emitting through `ctx`
/// (`passes/emit.hpp`: every op — the zero-padding FP32 CONV2D included — is checked against the
/// context's target). Every linear is checked; the error lists each one that cannot be lowered and
/// each illegal emission.
template <dtype::id Elem, class Ctx>
[[nodiscard]] pass_status rewrite_mxfp_linear(Ctx& ctx, graph::graph& g, mx::scale_mode mode, report& rep) {
  static_assert(mx::is_element(Elem), "rewrite_mxfp_linear: Elem must be an MX element type");
  return detail::rewrite_mxfp_walk(ctx, g, Elem, mode, rep, &detail::emit_block_scaled<Elem, Ctx>);
}

}  // namespace armlower::passes
