/// @file armlower/passes/cortex_m.hpp
/// Cortex-M lowering (S3): a quantized framework graph → a Cortex-M plan of CMSIS-NN fully
/// connected layers (ExecuTorch `QuantizedLinearFusionPass` #15526 with the #19676 fix,
/// ExecuTorch `backends/cortex_m/passes/`; CMSIS-NN v7 fully-connected conventions).
///
/// Pipeline: FoldAndAnnotateQParams → FuseQuantizedActivation → QuantizedLinearFusion.
/// Per linear (the graph must be a chain: input → linear → ... → linear → output):
///  - int8: input_offset = −input_zp, filter_offset = −weight_zp, output_offset = +output_zp;
///    requantization scale s_in·s_w[c]/s_out (double), per tensor or per channel; multiplier and
///    shift from ExecuTorch's rule (`quant::tosa_scale_to_multiplier`, round half to even — the
///    same numbers as the TOSA lowering, so a TOSA graph with DOUBLE_ROUND is bit-exact with the
///    plan) mapped to TFLite form (q, 31 − shift); activation range [qmin, qmax] or the fused
///    ReLU/ReLU6 bounds. MVE targets: `kernel_sum = bias + input_offset·(Σw + cols·filter_offset)`
///    computed ahead of time with `cmsis::vector_sum_s8`, no bias; DSP/scalar targets: the int32 bias,
///    no kernel_sum (never both — the memory point of the #19676 review).
///  - a16w8: s16 × s8 with int64 bias (an INT32 bias widened, or TFLite's INT64 bias as is when its
///    values fit INT48 — the TOSA lowering's bias range), `arm_fully_connected_s16` semantics;
///    multiplier/shift from the 16-bit rule (`tosa_scale_to_multiplier` bits16) passed as
///    (m16 << 16, 15 − shift16), which makes the kernel's REDUCE_MULTIPLIER return m16 exactly and
///    the result bit-exact with the TOSA a16w8 lowering (RESCALE INT48→INT16, scale32 = false).
///    Per-channel a16w8 is supported (ExecuTorch's Cortex-M backend has no a16w8 at all).
/// The result owns its constants (`cortex_m_program`) and gives a `cortex_m::plan` view of them;
/// `passes/cortex_m_emit.hpp` writes the same plan as a C++ header for firmware.
/// Hosted only.
#pragma once

#include <armlower/compat/cmsis_nn.hpp>
#include <armlower/cortex_m/plan.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/passes/decompose_linear.hpp>
#include <armlower/passes/fold_qparams.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/passes/result.hpp>
#include <armlower/quant/multiplier.hpp>

#include <cstring>
#include <string>
#include <vector>

namespace armlower::passes {

/// Options of the Cortex-M lowering.
struct cortex_m_options {
  cortex_m::isa isa = cortex_m::isa::mve;  ///< which CMSIS-NN convention to emit
};

/// One layer with owned constants (see `cortex_m::layer` for the meaning of each field).
struct cortex_m_layer_data {
  std::string name;  ///< the framework linear's output tensor
  cortex_m::layer_kind kind = cortex_m::layer_kind::linear_s8;
  std::int32_t cols = 0, rows = 0;
  std::vector<std::int8_t> weights;
  std::vector<std::int32_t> bias;        ///< s8 DSP/scalar (empty = none)
  std::vector<std::int32_t> kernel_sum;  ///< s8 MVE
  std::vector<std::int64_t> bias_s64;    ///< s16 (empty = none)
  std::int32_t input_offset = 0, filter_offset = 0, output_offset = 0;
  std::vector<std::int32_t> multiplier, shift;
  bool per_channel = false;
  std::int32_t activation_min = -128, activation_max = 127;
};

/// A lowered Cortex-M program: owned layer constants, graph I/O description, report.
struct cortex_m_program {
  cortex_m::isa isa = cortex_m::isa::mve;
  std::vector<cortex_m_layer_data> layers;
  std::string input_name, output_name;
  dtype::id activation = dtype::id::i8;        ///< i8 or i16
  std::vector<std::int32_t> input_shape;        ///< graph input shape (rows = product of all but the last dim)
  std::vector<std::int32_t> output_shape;
  graph::quant_params input_quant, output_quant;
  passes::report report;

  /// Non-owning layer table over this program's constants (valid while the program lives and
  /// is not modified).
  [[nodiscard]] std::vector<cortex_m::layer> layer_table() const {
    std::vector<cortex_m::layer> t;
    for (const auto& l : layers) {
      cortex_m::layer c;
      c.kind = l.kind;
      c.cols = l.cols;
      c.rows = l.rows;
      c.weights = l.weights.data();
      c.bias = l.bias.empty() ? nullptr : l.bias.data();
      c.kernel_sum = l.kernel_sum.empty() ? nullptr : l.kernel_sum.data();
      c.bias_s64 = l.bias_s64.empty() ? nullptr : l.bias_s64.data();
      c.input_offset = l.input_offset;
      c.filter_offset = l.filter_offset;
      c.output_offset = l.output_offset;
      c.multiplier = l.multiplier.data();
      c.shift = l.shift.data();
      c.per_channel = l.per_channel;
      c.activation_min = l.activation_min;
      c.activation_max = l.activation_max;
      t.push_back(c);
    }
    return t;
  }
  /// Rows of the graph input (product of all dims but the last).
  [[nodiscard]] std::int32_t batches() const { return detail::leading_product(input_shape); }
};

namespace detail {

/// QuantizedLinearFusion: the folded chain of linears → layer data.
[[nodiscard]] inline pass_status quantized_linear_fusion(const graph::graph& g, const cortex_m_options& opt,
                                                         cortex_m_program& prog, report& rep) {
  const stopwatch sw;
  constexpr const char* pass = "QuantizedLinearFusion";
  if (g.inputs.size() != 1 || g.outputs.size() != 1)
    return lowering_error{pass, {}, "", "a Cortex-M plan needs exactly one graph input and one graph output", errc::unsupported};
  std::string cur = g.inputs[0];
  const auto* in = g.find(cur);
  if (in == nullptr || !in->quant) return lowering_error{pass, {}, cur, "graph input must be a quantized tensor", errc::unsupported};
  const auto act = in->type;
  if (act != dtype::id::i8 && act != dtype::id::i16)
    return lowering_error{pass, {}, cur, "graph input must be INT8 or INT16, got " + std::string(dtype::name(act)), errc::unsupported};
  const auto sch = act == dtype::id::i8 ? scheme::int8 : scheme::a16w8;
  prog.isa = opt.isa;
  prog.activation = act;
  prog.input_name = cur;
  prog.input_shape = in->shape;
  prog.input_quant = *in->quant;
  std::int64_t kernel_sums = 0;
  for (std::size_t i = 0; i < g.operators.size(); ++i) {
    const auto& o = g.operators[i];
    const auto label = op_label(g, i);
    if (!is_fw(o, graph::framework_op::linear))
      return lowering_error{pass, label, o.outputs.empty() ? "" : o.outputs[0],
                            "only chains of quantized linear layers (with fused ReLU) map to a Cortex-M plan; " +
                                std::string(o.op_name()) + " is not supported", errc::unsupported};
    if (o.inputs.at(0) != cur)
      return lowering_error{pass, label, o.inputs[0], "the graph is not a chain (input is not the previous layer's output)", errc::unsupported};
    auto chk = check_quantized_linear(g, o, label, sch, pass);
    if (!chk) return chk.error();
    const auto& x = *chk->x;
    const auto& w = *chk->w;
    const auto& y = *chk->y;
    cortex_m_layer_data l;
    l.name = y.name;
    l.kind = sch == scheme::int8 ? cortex_m::layer_kind::linear_s8 : cortex_m::layer_kind::linear_s16;
    l.cols = chk->ci;
    l.rows = chk->co;
    // INT8's wire encoding is the int8 bytes themselves.
    l.weights.resize(static_cast<std::size_t>(l.cols) * static_cast<std::size_t>(l.rows));
    if (w.data.size() != l.weights.size())
      return lowering_error{pass, label, w.name, "constant payload size does not match its shape", errc::invalid_graph};
    std::memcpy(l.weights.data(), w.data.data(), l.weights.size());
    std::vector<std::int64_t> bias;
    if (chk->b != nullptr) bias = graph::decode_ints(chk->b->type, chk->b->data, l.rows);  // INT32, or INT64 (a16w8)
    const auto& wq = *w.quant;
    const float s_in = x.quant->scale[0], s_out = y.quant->scale[0];
    l.per_channel = wq.scale.size() > 1;
    for (float sw_c : wq.scale) {
      const double scale = static_cast<double>(s_in) * static_cast<double>(sw_c) / static_cast<double>(s_out);
      quant::tosa_multiplier m{};
      const auto width = sch == scheme::int8 ? quant::multiplier_width::bits32 : quant::multiplier_width::bits16;
      if (const auto s = quant::tosa_scale_to_multiplier(scale, width, m); s != armlower::status::ok)
        return lowering_error{pass, label, y.name,
                              "requantization scale " + std::to_string(scale) + " cannot be encoded (" +
                                  kernels::to_string(s) + ")", errc::unsupported};
      if (sch == scheme::int8) {
        quant::quantized_multiplier q{};
        if (const auto s = quant::tflite_from_tosa(m, q); s != armlower::status::ok)
          return lowering_error{pass, label, y.name, std::string("multiplier not expressible for CMSIS-NN: ") + kernels::to_string(s), errc::unsupported};
        l.multiplier.push_back(q.multiplier);
        l.shift.push_back(q.shift);
      } else {
        l.multiplier.push_back(m.multiplier << 16);  // REDUCE_MULTIPLIER(m16 << 16) == m16
        l.shift.push_back(15 - m.shift);
      }
    }
    const auto fused = std::holds_alternative<graph::linear_attr>(o.attr) ? std::get<graph::linear_attr>(o.attr).fused
                                                                         : graph::activation::none;
    if (auto e = check_fused_activation(fused, pass, label, y.name)) return *e;
    const auto bounds = activation_bounds(fused, y);
    l.activation_min = static_cast<std::int32_t>(bounds.min_val);
    l.activation_max = static_cast<std::int32_t>(bounds.max_val);
    if (sch == scheme::int8) {
      l.input_offset = -x.quant->zero_point[0];
      l.filter_offset = wq.zero_point.empty() ? 0 : -wq.zero_point[0];
      l.output_offset = y.quant->zero_point[0];
      std::vector<std::int32_t> b32(bias.begin(), bias.end());
      if (opt.isa == cortex_m::isa::mve) {
        l.kernel_sum.resize(static_cast<std::size_t>(l.rows));
        const auto s = cmsis::vector_sum_s8(l.kernel_sum.data(), l.cols, l.rows, l.weights.data(), l.input_offset,
                                            l.filter_offset, b32.empty() ? nullptr : b32.data());
        if (s != armlower::status::ok)
          return lowering_error{pass, label, w.name, std::string("kernel_sum: ") + kernels::to_string(s), errc::unsupported};
        ++kernel_sums;
      } else {
        l.bias = std::move(b32);
      }
    } else {
      l.bias_s64.assign(bias.begin(), bias.end());
    }
    cur = y.name;
    prog.layers.push_back(std::move(l));
  }
  if (prog.layers.empty()) return lowering_error{pass, {}, "", "the graph has no linear layer", errc::unsupported};
  if (cur != g.outputs[0]) return lowering_error{pass, {}, g.outputs[0], "graph output is not the last layer's output", errc::unsupported};
  const auto* out = g.find(cur);
  prog.output_name = cur;
  prog.output_shape = out->shape;
  prog.output_quant = *out->quant;
  const char* isa_name = opt.isa == cortex_m::isa::mve ? "MVE" : opt.isa == cortex_m::isa::dsp ? "DSP" : "scalar";
  rep.passes.push_back({pass,
                        std::to_string(prog.layers.size()) + " linear -> " +
                            (sch == scheme::int8 ? "linear_s8" : "linear_s16") + " (" + isa_name +
                            ": " +
                            (sch == scheme::a16w8 ? std::string("int64 bias")
                                                  : opt.isa == cortex_m::isa::mve
                                                        ? std::to_string(kernel_sums) + " kernel_sum arrays, no bias"
                                                        : std::string("int32 bias, no kernel_sum")) +
                            ")",
                        static_cast<std::int64_t>(prog.layers.size()), sw.ms()});
  return done{};
}

}  // namespace detail

/// Lowers a quantized framework graph (int8 or a16w8 chain of linears) to a Cortex-M program.
[[nodiscard]] inline result<cortex_m_program> lower_cortex_m(graph::graph g, const cortex_m_options& opt = {}) {
  cortex_m_program prog;
  auto& rep = prog.report;
  rep.spec = opt.isa == cortex_m::isa::mve ? "cortex-m (MVE)" : opt.isa == cortex_m::isa::dsp ? "cortex-m (DSP)" : "cortex-m (scalar)";
  if (auto s = fold_and_annotate_qparams(g, rep); !s) return s.error();
  if (auto s = fuse_quantized_activation(g, rep); !s) return s.error();
  if (auto s = detail::quantized_linear_fusion(g, opt, prog, rep); !s) return s.error();
  rep.scheme = prog.activation == dtype::id::i8 ? "int8" : "a16w8";
  rep.ops["fully_connected"] = static_cast<std::int64_t>(prog.layers.size());
  std::int64_t bytes = 0;
  for (const auto& l : prog.layers)
    bytes += static_cast<std::int64_t>(l.weights.size() + 4 * (l.bias.size() + l.kernel_sum.size() + l.multiplier.size() +
                                                                l.shift.size()) +
                                       8 * l.bias_s64.size());
  rep.total_constant_bytes = bytes;
  return prog;
}

}  // namespace armlower::passes
