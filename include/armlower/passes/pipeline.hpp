/// @file armlower/passes/pipeline.hpp
/// The lowering pipelines and their entry points:
///
///     auto r = armlower::lower<armlower::tosa::spec<"TOSA-1.0+INT+int16">, armlower::passes::scheme::a16w8>(g);
///     auto r = armlower::lower<Target>(g, opts);                 // scheme chosen at run time
///     auto r = armlower::lower(target, g, opts);                 // target chosen at run time
///     if (!r) std::cerr << r.error().text();  else use r->graph, r->report
///
/// Pipelines (ExecuTorch `backends/arm/_passes/arm_pass_manager.py` order):
///  - int8 / a16w8: [QuantizeFloatGraph, for a float graph with `options::calibration`] →
///    FoldAndAnnotateQParams → FuseQuantizedActivation → DecomposeLinear →
///    InsertRescale → LowerActivationsAndReshapes → Validate;
///  - MXFP: RewriteMXFPLinear → LowerActivationsAndReshapes → Validate.
///
/// Legality is a consequence of what the passes emit: every operation a pass creates goes
/// through `emit<op>(ctx, ...)` (`passes/emit.hpp`), whose dtypes are compile-time constants
/// (the passes are templates on the scheme). So:
///  - `lower<Target, S>` (compile-time target and scheme): an illegal emission does not compile,
///    and the diagnostic carries the op table's reason — `lower<spec<"TOSA-1.0+INT">,
///    scheme::a16w8>` fails with "CONV2D i16xi8->i48 requires EXT-INT16; TOSA-1.0+INT does not
///    enable it";
///  - `lower<Target>(g, opt)` (compile-time target, run-time scheme): the scheme is dispatched
///    once over `all_schemes`; each pipeline is compiled with the `on_illegal::report` policy, so
///    an illegal one returns the same reason as an error value (`errc::not_legal`);
///  - `lower(target, g, opt)` (run-time target): `tosa::check` at each emission, error value.
/// Errors name the pass, the model op, the emitted op and the tensor (`armlower::error`); a
/// pass reports every finding. The RESCALE rounding mode's extension (EXT-DOUBLEROUND,
/// EXT-INEXACTROUND) is checked at the RESCALE emission.
/// Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/passes/decompose_linear.hpp>
#include <armlower/passes/emit.hpp>
#include <armlower/passes/fold_qparams.hpp>
#include <armlower/passes/options.hpp>
#include <armlower/passes/quantize_float.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/passes/result.hpp>
#include <armlower/passes/rewrite_mxfp_linear.hpp>
#include <armlower/passes/validate.hpp>
#include <armlower/tosa/legality.hpp>
#include <armlower/tosa/spec.hpp>

#include <boost/mp11/algorithm.hpp>

#include <concepts>
#include <optional>
#include <string>
#include <utility>

namespace armlower::passes {

/// Output of a lowering run: the TOSA graph and its report.
struct lowering {
  graph::graph graph;  ///< a TOSA graph (only `tosa::op` operators), validated for the target
  passes::report report;
};

namespace detail {

[[nodiscard]] inline bool has_qdq(const graph::graph& g) {
  for (const auto& o : g.operators)
    if (is_fw(o, graph::framework_op::quantize) || is_fw(o, graph::framework_op::dequantize)) return true;
  return false;
}

/// The integer pipeline of scheme `S`, emitting through `ctx`.
template <scheme S, class Ctx>
[[nodiscard]] result<lowering> run_int(Ctx& ctx, graph::graph g, const options& opt) {
  const tosa::target& t = ctx.target();
  lowering out;
  out.report.spec = std::string(t.text().view());
  out.report.scheme = std::string(name(S));
  auto& rep = out.report;
  if (is_float_graph(g))
    if (auto s = quantize_float_graph(g, S, opt.per_channel, opt.calibration, rep); !s) return s.error();
  if (auto s = fold_and_annotate_qparams(g, rep); !s) return s.error();
  if (auto s = fuse_quantized_activation(g, rep); !s) return s.error();
  std::vector<rescale_site> sites;
  if (auto s = decompose_linear<S>(ctx, g, sites, rep); !s) return s.error();
  if (auto s = insert_rescale<S>(ctx, g, sites, opt.rounding, rep); !s) return s.error();
  if (auto s = lower_remaining_framework_ops(ctx, g, true, rep); !s) return s.error();
  if (auto s = validate(g, t, rep); !s) return s.error();
  rep.summarize(g);
  out.graph = std::move(g);
  return out;
}

/// The MXFP pipeline of scheme `S`, emitting through `ctx`.
template <scheme S, class Ctx>
[[nodiscard]] result<lowering> run_mxfp(Ctx& ctx, graph::graph g, const options& opt) {
  const tosa::target& t = ctx.target();
  lowering out;
  out.report.spec = std::string(t.text().view());
  out.report.scheme = std::string(name(S));
  auto& rep = out.report;
  if (has_qdq(g))
    return armlower::error(errc::invalid_argument, pass_location("RewriteMXFPLinear"),
                           "MXFP lowering takes a float graph; this graph has QUANTIZE/DEQUANTIZE operators "
                           "(use scheme int8 or a16w8 for quantized graphs)");
  if (auto s = rewrite_mxfp_linear<mx_element(S)>(ctx, g, opt.mx_scale, rep); !s) return s.error();
  if (auto s = lower_remaining_framework_ops(ctx, g, false, rep); !s) return s.error();
  if (auto s = validate(g, t, rep); !s) return s.error();
  rep.summarize(g);
  out.graph = std::move(g);
  return out;
}

/// The pipeline of scheme `S` (integer or MXFP).
template <scheme S, class Ctx>
[[nodiscard]] result<lowering> run(Ctx& ctx, graph::graph g, const options& opt) {
  if constexpr (is_mx(S)) return run_mxfp<S>(ctx, std::move(g), opt);
  else return run_int<S>(ctx, std::move(g), opt);
}

/// Calls `f(std::integral_constant<scheme, S>{})` for the run-time scheme `s` (one dispatch).
template <class F>
[[nodiscard]] result<lowering> with_scheme(scheme s, F&& f) {
  constexpr std::size_t n = std::size(all_schemes);
  const auto k = static_cast<std::size_t>(s);
  if (k >= n)
    return armlower::error(errc::invalid_argument, pass_location("Pipeline"),
                           "unknown scheme #" + std::to_string(k));
  return boost::mp11::mp_with_index<n>(k, [&](auto I) -> result<lowering> {
    return f(std::integral_constant<scheme, all_schemes[I]>{});
  });
}

}  // namespace detail

/// Linear lowering (integer or MXFP) of scheme `S` for the compile-time target `Target`: does not
/// compile unless every op/dtype it emits is legal for `Target` (the error names the rule).
template <tosa::TargetSpec Target, scheme S>
struct linear_lowering {
  static constexpr const char* name = is_mx(S) ? "MXFPLinearLowering" : "IntLinearLowering";
  /// Runs the pipeline; `opt.sch` is forced to `S`.
  [[nodiscard]] static result<lowering> run(graph::graph g, options opt) {
    opt.sch = S;
    lowering_context<Target, on_illegal::reject> ctx;
    return detail::run<S>(ctx, std::move(g), opt);
  }
};
/// The pipeline of scheme `S` for `Target`.
template <tosa::TargetSpec Target, scheme S>
using pipeline_for = linear_lowering<Target, S>;

/// Lowers `g` for a run-time target with the scheme in `opt`: each emission is checked with
/// `tosa::check`; illegal ones give an error value (`errc::not_legal`, every finding).
/// (A template only so that its seven scheme pipelines are instantiated in the translation units
/// that call it, not in every one that includes this header; `Graph` is always `graph::graph`.)
template <std::same_as<graph::graph> Graph = graph::graph>
[[nodiscard]] result<lowering> lower(const tosa::target& t, Graph g, const options& opt = {}) {
  if (!t.valid())
    return armlower::error(errc::invalid_argument, pass_location("Pipeline"),
                           "invalid target " + std::string(t.text().view()));
  return detail::with_scheme(opt.sch, [&](auto S) {
    lowering_context<tosa::target> ctx(t);
    return detail::run<decltype(S)::value>(ctx, std::move(g), opt);
  });
}

/// Lowers `g` with scheme `S` for the compile-time target `Target`: an illegal emission does not
/// compile.
template <tosa::TargetSpec Target, scheme S>
[[nodiscard]] result<lowering> lower(graph::graph g, options opt = {}) {
  return pipeline_for<Target, S>::run(std::move(g), std::move(opt));
}

/// Lowers `g` for the compile-time target `Target` with the run-time scheme `opt.sch`: every
/// pipeline compiles (policy `on_illegal::report`); an illegal emission gives an error value
/// whose reason is the compile-time one.
template <tosa::TargetSpec Target>
[[nodiscard]] result<lowering> lower(graph::graph g, options opt = {}) {
  return detail::with_scheme(opt.sch, [&](auto S) {
    lowering_context<Target, on_illegal::report> ctx;
    return detail::run<decltype(S)::value>(ctx, std::move(g), opt);
  });
}

}  // namespace armlower::passes

namespace armlower {
using passes::lower;
}  // namespace armlower
