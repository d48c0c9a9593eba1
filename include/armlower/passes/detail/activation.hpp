/// @file armlower/passes/detail/activation.hpp
/// Fused / stand-alone ReLU and ReLU6 as TOSA CLAMP (internal): the bounds for quantized and
/// float tensors, and the one place that appends the CLAMP of a fused activation after the op
/// producing a linear's result (used by InsertRescale and RewriteMXFPLinear).
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/passes/detail/graph_edit.hpp>
#include <armlower/passes/emit.hpp>
#include <armlower/passes/result.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace armlower::passes::detail {

/// Output range of a (fused) activation on a quantized tensor (TFLite `CalculateActivationRangeQuantized`):
/// none → [qmin, qmax], ReLU → [max(qmin, zp), qmax], ReLU6 → upper bound min(qmax, zp + round(6/scale)).
/// Precondition: `y.quant` is set with one scale.
inline graph::clamp_attr activation_bounds(graph::activation a, const graph::tensor& y) {
  const auto& t = dtype::traits(y.type);
  const double qmin = static_cast<double>(t.int_min), qmax = static_cast<double>(t.int_max);
  const double zp = y.quant->zero_point.empty() ? 0.0 : y.quant->zero_point[0];
  graph::clamp_attr c;
  c.min_val = a == graph::activation::none ? qmin : std::max(qmin, zp);
  c.max_val = qmax;
  if (a == graph::activation::relu6)
    c.max_val = std::min(qmax, zp + std::nearbyint(6.0 / static_cast<double>(y.quant->scale[0])));
  return c;
}

/// CLAMP bounds of a ReLU / ReLU6 on an fp32 tensor: [0, FLT_MAX] / [0, 6] (PyTorch `relu`,
/// `hardtanh(0, 6)`; ExecuTorch lowers both to CLAMP). Precondition: `a` is relu or relu6.
inline graph::clamp_attr float_activation_bounds(graph::activation a) {
  graph::clamp_attr c;
  c.min_val = 0.0;
  c.max_val = a == graph::activation::relu6 ? 6.0 : static_cast<double>(std::numeric_limits<float>::max());
  return c;
}

/// Error (naming `pass`, the linear `op` and `tensor`) when `a` is not NONE, RELU or RELU6 — the
/// fused activations a lowering can express; a pass never drops one silently.
[[nodiscard]] inline std::optional<lowering_error> check_fused_activation(graph::activation a, const char* pass,
                                                                          const op_site& op,
                                                                          const std::string& tensor) {
  if (a == graph::activation::none || a == graph::activation::relu || a == graph::activation::relu6)
    return std::nullopt;
  return lowering_error{pass, op, tensor,
                        "fused activation #" + std::to_string(static_cast<int>(a)) +
                            " cannot be lowered (only NONE, RELU and RELU6 are supported)",
                        errc::unsupported};
}

/// Honours the fused activation `a` of a linear whose lowering has just emitted, as the last op
/// of `ctx.sink()`, the op producing the linear's result `y` (dtype `D`): that op is redirected to
/// a new pre-activation tensor (`y` + "_prelu", same dtype, shape and qparams) and
/// CLAMP(pre-activation) → `y` is emitted, with quantized bounds when `y` has qparams, float
/// bounds otherwise. Nothing happens for `activation::none`. Returns the number of CLAMPs added
/// (0 or 1), or an error (`errc::unsupported`) naming the pass, the linear and `y` when `a` is not
/// an activation this lowering knows (never dropped silently).
template <dtype::id D, class Ctx>
[[nodiscard]] result<std::int64_t> append_fused_activation(Ctx& ctx, graph::graph& g, graph::activation a,
                                                           const std::string& y, const char* pass,
                                                           const op_site& linear) {
  if (auto e = check_fused_activation(a, pass, linear, y)) return armlower::error(std::move(*e));
  if (a == graph::activation::none) return std::int64_t{0};
  auto& out = ctx.sink();
  if (out.empty() || out.back().outputs.size() != 1 || out.back().outputs[0] != y)
    return lowering_error{pass, linear, y, "internal: the fused activation's input is not the last op's result"};
  const auto* yt = g.find(y);
  if (yt == nullptr) return lowering_error{pass, linear, y, "tensor does not exist"};
  const auto bounds = yt->quant ? activation_bounds(a, *yt) : float_activation_bounds(a);
  const auto pre = add_tensor(g, y + "_prelu", yt->type, yt->shape, yt->quant);
  out.back().outputs[0] = pre;
  emit<tosa::op::clamp>(ctx, value<D>{pre}, value<D>{y}, bounds);
  return std::int64_t{1};
}

}  // namespace armlower::passes::detail
