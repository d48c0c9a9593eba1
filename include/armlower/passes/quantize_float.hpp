/// @file armlower/passes/quantize_float.hpp
/// QuantizeFloatGraph: post-training quantization of a *float* framework graph for an integer
/// scheme, as ExecuTorch's quantizer + calibration would do it before export
/// (ExecuTorch `backends/arm/quantizer/arm_quantizer.py`, `backends/cortex_m/quantizer/quantization_configs.py`): the graph (a chain of float linears
/// with optional ReLU/ReLU6) is run in float on the calibration rows, every activation's range is
/// observed, and the graph is rebuilt with `graph::build_quantized_mlp` (int8: affine int8
/// activations; a16w8: symmetric int16; weights symmetric −127..127 per tensor or per channel;
/// bias int32 with scale s_in·s_w). Graph input and output keep their names.
/// Errors (naming the model's operator and the tensor): not a chain of linears, non-constant or
/// non-FP32 weights, weights or bias whose shape does not chain, no calibration rows,
/// calibration data that does not split into rows of the input's last dim, a NaN or ±Inf in it
/// (row and column), a float overflow in a layer on the calibration rows, a scale that is not a
/// finite float > 0. The report's note says how many rows × features were used.
/// Hosted only.
#pragma once

#include <armlower/graph/builder.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/passes/detail/activation.hpp>
#include <armlower/passes/detail/graph_edit.hpp>
#include <armlower/passes/fold_qparams.hpp>
#include <armlower/passes/options.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/passes/result.hpp>

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace armlower::passes {

/// True when `g` is a float framework graph (no QUANTIZE/DEQUANTIZE and an FP32 graph input).
[[nodiscard]] inline bool is_float_graph(const graph::graph& g) {
  for (const auto& o : g.operators)
    if (detail::is_fw(o, graph::framework_op::quantize) || detail::is_fw(o, graph::framework_op::dequantize)) return false;
  if (g.inputs.empty()) return false;
  const auto* in = g.find(g.inputs[0]);
  return in != nullptr && in->type == dtype::id::fp32 && !in->quant;
}

/// QuantizeFloatGraph (see file comment). Replaces `g` by its quantized framework graph.
[[nodiscard]] inline pass_status quantize_float_graph(graph::graph& g, scheme s, bool per_channel,
                                                      std::span<const float> calibration, report& rep) {
  const detail::stopwatch sw;
  constexpr const char* pass = "QuantizeFloatGraph";
  if (is_mx(s)) return lowering_error{pass, {}, "", "QuantizeFloatGraph is for the integer schemes", errc::invalid_argument};
  if (g.inputs.size() != 1 || g.outputs.size() != 1)
    return lowering_error{pass, {}, "", "post-training quantization needs one graph input and one graph output", errc::unsupported};
  const auto* in = g.find(g.inputs[0]);
  if (in == nullptr || in->shape.empty()) return lowering_error{pass, {}, g.inputs[0], "graph input does not exist", errc::invalid_graph};
  const auto in_name = in->name;
  const auto in_shape = in->shape;
  const auto cols = static_cast<std::size_t>(in_shape.back());
  if (calibration.empty())
    return lowering_error{pass, {}, in_name,
                          "the graph is float; scheme " + std::string(name(s)) +
                              " needs calibration rows (options::calibration) or a quantized graph", errc::invalid_argument};
  if (cols == 0 || calibration.size() % cols != 0)
    return lowering_error{pass, {}, in_name,
                          "calibration data of " + std::to_string(calibration.size()) + " values does not split into rows of " +
                              std::to_string(cols), errc::invalid_argument};
  std::vector<graph::mlp_layer> layers;
  std::vector<std::pair<op_site, std::string>> layer_where;  // (op, output tensor) per layer
  std::string cur = in_name;
  for (std::size_t i = 0; i < g.operators.size(); ++i) {
    const auto& o = g.operators[i];
    const auto label = detail::op_label(g, i);
    if (detail::is_fw(o, graph::framework_op::linear)) {
      if (o.inputs.at(0) != cur) return lowering_error{pass, label, o.inputs[0], "the graph is not a chain of linears", errc::unsupported};
      const auto* w = g.find(o.inputs.at(1));
      if (w == nullptr || !w->is_constant || w->type != dtype::id::fp32 || w->shape.size() != 2)
        return lowering_error{pass, label, o.inputs[1], "weights must be a constant FP32 [out, in] matrix", errc::unsupported};
      graph::mlp_layer l;
      l.out_features = w->shape[0];
      l.in_features = w->shape[1];
      const auto expect_in = layers.empty() ? static_cast<std::int32_t>(cols) : layers.back().out_features;
      if (l.in_features != expect_in || l.out_features < 1)
        return lowering_error{pass, label, o.inputs[1],
                              "weights of shape [" + std::to_string(l.out_features) + ", " +
                                  std::to_string(l.in_features) + "] do not take the " + std::to_string(expect_in) +
                                  " features of the layer input", errc::unsupported};
      if (w->data.size() != static_cast<std::size_t>(graph::element_count(w->shape)) * 4)
        return lowering_error{pass, label, w->name, "constant payload size does not match its shape", errc::invalid_graph};
      l.weight = graph::decode_f32(w->data, graph::element_count(w->shape));
      if (o.inputs.size() == 3) {
        const auto* b = g.find(o.inputs[2]);
        if (b == nullptr || !b->is_constant || b->type != dtype::id::fp32)
          return lowering_error{pass, label, o.inputs[2], "bias must be a constant FP32 vector", errc::unsupported};
        if (graph::element_count(b->shape) != l.out_features || b->data.size() != static_cast<std::size_t>(l.out_features) * 4)
          return lowering_error{pass, label, b->name,
                                "bias of shape " + std::to_string(graph::element_count(b->shape)) + " values for " +
                                    std::to_string(l.out_features) + " output channels", errc::unsupported};
        l.bias = graph::decode_f32(b->data, graph::element_count(b->shape));
      }
      if (std::holds_alternative<graph::linear_attr>(o.attr)) l.act = std::get<graph::linear_attr>(o.attr).fused;
      if (auto e = detail::check_fused_activation(l.act, pass, label, o.outputs.at(0))) return *e;
      layers.push_back(std::move(l));
      layer_where.emplace_back(label, o.outputs.at(0));
      cur = o.outputs.at(0);
    } else if (detail::is_fw(o, graph::framework_op::relu) || detail::is_fw(o, graph::framework_op::relu6)) {
      if (layers.empty() || o.inputs.at(0) != cur || layers.back().act != graph::activation::none)
        return lowering_error{pass, label, o.inputs.at(0), "a ReLU must directly follow a linear", errc::unsupported};
      layers.back().act = detail::is_fw(o, graph::framework_op::relu) ? graph::activation::relu : graph::activation::relu6;
      cur = o.outputs.at(0);
    } else {
      return lowering_error{pass, label, o.outputs.empty() ? "" : o.outputs[0],
                            std::string(o.op_name()) + " is not supported by post-training quantization", errc::unsupported};
    }
  }
  if (layers.empty() || cur != g.outputs[0])
    return lowering_error{pass, {}, g.outputs[0], "the graph output is not the last linear of the chain", errc::unsupported};
  const auto out_name = cur;
  const auto rows = calibration.size() / cols;
  graph::graph q;
  try {
    const auto ranges = graph::calibrate_mlp(layers, calibration, rows);
    q = graph::build_quantized_mlp(layers, in_shape, {activation_dtype(s), per_channel}, ranges);
  } catch (const graph::calibration_error& e) {
    const auto& [op, t] = layer_where.at(e.layer);
    return lowering_error{pass, op, t, "calibration: " + e.rule, errc::invalid_argument};
  } catch (const std::invalid_argument& e) {
    return lowering_error{pass, {}, in_name, e.what(), errc::invalid_argument};
  }
  // Keep the caller's graph input/output names.
  auto rename = [&](const std::string& from, const std::string& to) { q.rename_tensor(from, to); };
  const auto qin = q.inputs[0], qout = q.outputs[0];
  if (q.find(out_name) == nullptr || out_name == qout) rename(qout, out_name);
  if (q.find(in_name) == nullptr || in_name == qin) rename(qin, in_name);
  g = std::move(q);
  rep.passes.push_back({pass,
                        std::to_string(layers.size()) + " linear quantized (" + std::string(name(s)) + ", weights " +
                            (per_channel ? "per channel" : "per tensor") + ") from " + std::to_string(rows) +
                            " calibration rows x " + std::to_string(cols) + " features",
                        static_cast<std::int64_t>(layers.size()), sw.ms()});
  return done{};
}

}  // namespace armlower::passes
