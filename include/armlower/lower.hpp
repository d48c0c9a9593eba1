/// @file armlower/lower.hpp
/// The one lowering entry of the library, with the policy the `armlower lower` tool applies:
///
///     auto r = armlower::lower(model, tosa_target, opts);     // → TOSA graph + report
///     auto p = armlower::lower(model, cortex_m::isa::mve, opts);  // → Cortex-M plan
///     if (!r) std::cerr << r.error().text();  else use r->graph, r->report
///
/// `model` is a framework graph as an importer makes it (`import::import_tflite`, `graph::builder`):
/// float, or quantized (int8 / int16 activations with `graph::quant_params`). `lower` decides
/// what the caller leaves open, in one place (the tool only parses arguments, reads and writes
/// files and prints):
///  - the scheme (`default_scheme`): a quantized model keeps its activation dtype (INT8 → int8,
///    INT16 → a16w8); a float model gets int8 when the target has the integer profile (always for
///    a Cortex-M ISA), else mxfp8_e4m3;
///  - the RESCALE rounding (`default_rounding`): DOUBLE_ROUND for int8 when the TOSA target has
///    EXT-DOUBLEROUND (TFLite's and CMSIS-NN's requantization, so the TOSA graph is bit-exact with
///    the Cortex-M plan), else SINGLE_ROUND (ExecuTorch's `RescaleOp` default);
///  - the calibration of a float model lowered with an integer scheme: `lower_options::calibration`
///    or, when empty, `graph::default_calibration` (reported by `calibrated_by_default`);
///  - the float quantization itself (`quantize_for`: the QuantizeFloatGraph pass run ahead of the
///    pipeline, so the result keeps the quantization of the graph input and output).
/// Then it runs the pipeline: `passes::lower` (TOSA) or `passes::lower_cortex_m` (Cortex-M).
/// Serialization is separate (`serialize::write(result.graph, serialize::format_of(version))`,
/// target armlower::serialize). Every failure is an `armlower::error` (no exception).
/// Hosted only.
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/cortex_m/plan.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/graph/quantizer.hpp>
#include <armlower/passes/cortex_m.hpp>
#include <armlower/passes/options.hpp>
#include <armlower/passes/pipeline.hpp>
#include <armlower/passes/quantize_float.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/tosa/spec.hpp>

#include <concepts>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace armlower {

/// What a caller may fix for `lower`; everything left empty is decided by `lower`'s policy.
struct lower_options {
  std::optional<passes::scheme> scheme;         ///< default: `default_scheme`
  std::optional<tosa::rounding_mode> rounding;  ///< default: `default_rounding` (TOSA targets only)
  bool per_channel = false;                     ///< float models, integer schemes: per-channel weights
  /// Float models, integer schemes: calibration inputs (rows × in_features, row-major, checked with
  /// `graph::check_calibration`); empty = `graph::default_calibration`.
  std::vector<float> calibration;
};

/// True when the framework graph is quantized (the input of one of its linears carries qparams).
[[nodiscard]] inline bool is_quantized(const graph::graph& g) {
  for (const auto& o : g.operators)
    if (!o.is_tosa() && std::get<graph::framework_op>(o.code) == graph::framework_op::linear)
      if (const auto* x = g.find(o.inputs[0]); x && x->quant) return true;
  return false;
}

/// The scheme `lower` uses when none is given: the activation dtype of a quantized model
/// (INT16 graph input → a16w8, else int8); for a float model int8 when `target_has_int` (the TOSA
/// target has the integer profile, or the target is a Cortex-M ISA), else mxfp8_e4m3.
[[nodiscard]] inline passes::scheme default_scheme(const graph::graph& model, bool target_has_int) {
  if (is_quantized(model)) {
    const auto* x = model.inputs.empty() ? nullptr : model.find(model.inputs[0]);
    return (x && x->type == dtype::id::i16) ? passes::scheme::a16w8 : passes::scheme::int8;
  }
  return target_has_int ? passes::scheme::int8 : passes::scheme::mxfp8_e4m3;
}

/// The RESCALE rounding `lower` uses when none is given: DOUBLE_ROUND for int8 when `t` has
/// EXT-DOUBLEROUND, else SINGLE_ROUND.
[[nodiscard]] inline tosa::rounding_mode default_rounding(const tosa::target& t, passes::scheme s) {
  return s == passes::scheme::int8 && t.supports(tosa::ext::doubleround) ? tosa::rounding_mode::double_round
                                                                          : tosa::rounding_mode::single_round;
}

/// Input features of the model's first graph input (its last dimension; 1 when unknown): the row
/// length of calibration data.
[[nodiscard]] inline std::int32_t input_features(const graph::graph& model) {
  const auto* x = model.inputs.empty() ? nullptr : model.find(model.inputs[0]);
  return x && !x->shape.empty() ? x->shape.back() : 1;
}


/// A model ready for the pipeline of scheme `s`: a float model quantized for an integer scheme
/// (QuantizeFloatGraph with `opt.calibration`, or `graph::default_calibration` when empty), else
/// the model itself.
struct quantized_model {
  graph::graph graph;
  bool calibrated_by_default = false;  ///< `graph::default_calibration` was used
  passes::report report;               ///< the QuantizeFloatGraph pass entry, when it ran
};

/// `model` prepared for scheme `s` (see `quantized_model`). Errors: the quantization's
/// (invalid calibration data, a graph that is not a chain of linears).
[[nodiscard]] inline expected<quantized_model> quantize_for(const graph::graph& model, passes::scheme s,
                                                            const lower_options& opt) {
  quantized_model q{model, false, {}};
  if (passes::is_mx(s) || !passes::is_float_graph(model)) return q;
  auto calib = opt.calibration;
  if (calib.empty()) {
    if (input_features(model) < 1)
      return armlower::error(errc::invalid_graph, location{}, "the graph input has no features to calibrate");
    calib = graph::default_calibration(input_features(model));
    q.calibrated_by_default = true;
  }
  if (auto st = passes::quantize_float_graph(q.graph, s, opt.per_channel, calib, q.report); !st)
    return st.error();
  return q;
}

/// A model lowered to TOSA: the graph, its report (graph I/O with their quantization, passes,
/// warnings), the decisions taken, and the quantization of the graph input/output (when
/// quantized) so callers can quantize inputs and dequantize outputs.
struct tosa_lowering {
  graph::graph graph;
  passes::report report;
  passes::scheme scheme = passes::scheme::int8;
  tosa::rounding_mode rounding = tosa::rounding_mode::single_round;
  std::optional<graph::quant_params> input_quant;
  std::optional<graph::quant_params> output_quant;
  bool calibrated_by_default = false;  ///< `graph::default_calibration` was used
};

/// Lowers the framework graph `model` for the TOSA target `t` with the policy of this header.
/// Errors: the scheme is not legal for `t` (`errc::not_legal`, the op table's reason); an MX
/// scheme for an already quantized model (`errc::invalid_argument`); any quantization or pass
/// error (the pipeline's code and location).
template <std::same_as<graph::graph> Graph = graph::graph>  // template: instantiated where called
[[nodiscard]] expected<tosa_lowering> lower(const Graph& model, const tosa::target& t,
                                                   const lower_options& opt = {}) {
  tosa_lowering out;
  out.scheme = opt.scheme ? *opt.scheme : default_scheme(model, t.support_integer());
  const std::string sname(passes::name(out.scheme));
  if (passes::is_mx(out.scheme) && is_quantized(model))
    return armlower::error(errc::invalid_argument, location{},
                           "scheme " + sname + " lowers float models; this model is already quantized (use int8 or a16w8)");
  passes::options po;
  po.sch = out.scheme;
  po.rounding = out.rounding = opt.rounding ? *opt.rounding : default_rounding(t, out.scheme);
  po.per_channel = opt.per_channel;
  auto q = quantize_for(model, out.scheme, opt);
  if (!q) return std::move(q).error();
  out.calibrated_by_default = q->calibrated_by_default;
  const auto& g = q->graph;
  if (!g.inputs.empty())
    if (const auto* x = g.find(g.inputs[0])) out.input_quant = x->quant;
  if (!g.outputs.empty())
    if (const auto* y = g.find(g.outputs[0])) out.output_quant = y->quant;
  std::vector<std::pair<std::string, graph::quant_params>> io_quant;  // graph I/O keep their names
  for (const auto* list : {&g.inputs, &g.outputs})
    for (const auto& n : *list)
      if (const auto* x = g.find(n); x && x->quant) io_quant.emplace_back(n, *x->quant);
  auto r = passes::lower(t, std::move(q->graph), po);
  if (!r && r.error().code() == errc::not_legal && r.error().where().stage != "Validate")  // an emission
    return armlower::error(errc::not_legal, location{},
                           "scheme " + sname + " is not legal for " + std::string(t.text().view()) + ": " +
                               r.error().message());
  if (!r) return std::move(r).error();
  out.graph = std::move(r->graph);
  out.report = std::move(r->report);
  out.report.summarize(out.graph);  // graph I/O dtype and shape as lowered
  for (const auto& [n, qp] : io_quant) out.report.set_quant(n, qp);
  const auto& qpasses = q->report.passes;
  if (!qpasses.empty()) out.report.passes.insert(out.report.passes.begin(), qpasses.begin(), qpasses.end());
  return out;
}

/// A model lowered to a Cortex-M plan: the program (owned constants, qparams of input/output,
/// report) and the decisions taken.
struct cortex_m_lowering {
  passes::cortex_m_program program;
  passes::scheme scheme = passes::scheme::int8;
  bool calibrated_by_default = false;  ///< `graph::default_calibration` was used
};

/// Lowers the framework graph `model` to a Cortex-M plan for the ISA `isa` (schemes int8 or
/// a16w8; a float model is quantized first, `quantize_for`). The plan requantizes as CMSIS-NN
/// and TFLite Micro do (equal to TOSA DOUBLE_ROUND): `opt.rounding` must be empty or DOUBLE_ROUND.
/// Errors: an MX scheme (`errc::unsupported`), SINGLE_ROUND (`errc::invalid_argument`), any
/// quantization or Cortex-M pass error.
template <std::same_as<graph::graph> Graph = graph::graph>  // template: instantiated where called
[[nodiscard]] expected<cortex_m_lowering> lower(const Graph& model, cortex_m::isa isa,
                                                       const lower_options& opt = {}) {
  cortex_m_lowering out;
  out.scheme = opt.scheme ? *opt.scheme : default_scheme(model, true);
  if (passes::is_mx(out.scheme))
    return armlower::error(errc::unsupported, location{},
                           "scheme " + std::string(passes::name(out.scheme)) +
                               " has no Cortex-M lowering (use int8 or a16w8)");
  if (opt.rounding && *opt.rounding != tosa::rounding_mode::double_round)
    return armlower::error(errc::invalid_argument, location{},
                           "Cortex-M plans requantize as CMSIS-NN and TFLite Micro do (equal to TOSA DOUBLE_ROUND)");
  auto q = quantize_for(model, out.scheme, opt);
  if (!q) return std::move(q).error();
  out.calibrated_by_default = q->calibrated_by_default;
  auto r = passes::lower_cortex_m(std::move(q->graph), {isa});
  if (!r) return std::move(r).error();
  out.program = std::move(*r);
  auto& p = out.program;
  p.report.io = {{"input", p.input_name, std::string(dtype::name(p.activation)), p.input_shape, {}, {}},
                 {"output", p.output_name, std::string(dtype::name(p.activation)), p.output_shape, {}, {}}};
  p.report.set_quant(p.input_name, p.input_quant);
  p.report.set_quant(p.output_name, p.output_quant);
  const auto& qpasses = q->report.passes;
  if (!qpasses.empty()) p.report.passes.insert(p.report.passes.begin(), qpasses.begin(), qpasses.end());
  return out;
}

}  // namespace armlower
