/// @file armlower/passes/pipeline.hpp
/// The lowering pipelines and their entry points:
///
///     auto r = armlower::lower<armlower::tosa::spec<"TOSA-1.0+INT+int16">, armlower::passes::scheme::a16w8>(g);
///     auto r = armlower::lower<Target>(g, opts);                 // scheme chosen at run time
///     auto r = armlower::lower(target, g, opts);                 // target chosen at run time
///     if (!r) std::cerr << r.error().message();  else use r->graph, r->report
///
/// Pipelines (ExecuTorch `backends/arm/_passes/arm_pass_manager.py` order):
///  - int8 / a16w8: [QuantizeFloatGraph, for a float graph with `options::calibration`] →
///    FoldAndAnnotateQParams → FuseQuantizedActivation → DecomposeLinear →
///    InsertRescale → LowerActivationsAndReshapes → Validate;
///  - MXFP: RewriteMXFPLinear → LowerActivationsAndReshapes → Validate.
///
/// Compile-time targets: the pass templates (`int_linear_lowering<Target, S>`,
/// `mxfp_linear_lowering<Target, Elem>`) `static_assert` (via `tosa::require`) that every op/dtype
/// combination they emit is legal for `Target`, so `lower<spec<"TOSA-1.0+INT">, scheme::a16w8>`
/// does not compile and the diagnostic carries the reason ("CONV2D i16xi8->i48 requires
/// EXT-INT16; ..."). With a run-time scheme or target the same table gives an error value
/// (`check_scheme`), e.g. "scheme a16w8: CONV2D i16×i8→i48 requires EXT-INT16; TOSA-1.0+INT does
/// not enable it".
/// Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/passes/decompose_linear.hpp>
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

#include <optional>
#include <string>
#include <utility>

namespace armlower::passes {

/// Output of a lowering run: the TOSA graph and its report.
struct lowering {
  graph::graph graph;  ///< a TOSA graph (only `tosa::op` operators), validated for the target
  passes::report report;
};

/// The op/dtype combinations a scheme emits, as (op, dtypes) in op-table slot order.
namespace detail {
struct emitted_op {
  tosa::op o;
  std::array<dtype::id, 3> types;
  std::uint8_t n;
};
[[nodiscard]] constexpr std::array<emitted_op, 5> emitted_ops(scheme s) noexcept {
  // The op that defines the scheme comes first, so an illegal scheme reports the telling rule.
  using dtype::id;
  using tosa::op;
  if (s == scheme::int8)
    return {{{op::conv2d, {id::i8, id::i8, id::i32}, 3}, {op::rescale, {id::i32, id::i8}, 2}, {op::reshape, {id::i8}, 1},
             {op::clamp, {id::i8}, 1}, {op::reshape, {id::i8}, 1}}};
  if (s == scheme::a16w8)
    return {{{op::conv2d, {id::i16, id::i8, id::i48}, 3}, {op::rescale, {id::i48, id::i16}, 2},
             {op::reshape, {id::i16}, 1}, {op::clamp, {id::i16}, 1}, {op::reshape, {id::i16}, 1}}};
  const auto e = mx_element(s);
  return {{{op::cast_to_block_scaled, {id::fp32, e}, 2}, {op::matmul_t_block_scaled, {e, e}, 2},
           {op::reshape, {id::fp32}, 1}, {op::add, {id::fp32}, 1}, {op::clamp, {id::fp32}, 1}}};
}
}  // namespace detail

/// Is scheme `s` lowerable for target `t`? Returns the first illegal op with the op table's
/// reason, e.g. "scheme a16w8: CONV2D i16×i8→i48 requires EXT-INT16; TOSA-1.0+INT does not
/// enable it" (the reason comes from `tosa::check`).
[[nodiscard]] constexpr tosa::check_result check_scheme(const tosa::target& t, scheme s) noexcept {
  tosa::check_result last{};
  for (const auto& e : detail::emitted_ops(s)) {
    last = tosa::check(t, e.o, std::span<const dtype::id>(e.types.data(), e.n));
    if (!last.ok()) return last;
  }
  return last;
}

/// True when every op a scheme emits is legal on the compile-time target.
template <tosa::TargetSpec Target, scheme S>
inline constexpr bool scheme_legal = check_scheme(Target::value, S).ok();

namespace detail {

[[nodiscard]] inline std::optional<lowering_error> scheme_error(const tosa::target& t, const options& opt) {
  const auto c = check_scheme(t, opt.sch);
  if (!c.ok())
    return lowering_error{"Pipeline", "", "", "scheme " + std::string(name(opt.sch)) + ": " + std::string(c.reason())};
  if (opt.rounding == tosa::rounding_mode::double_round && !t.supports(tosa::ext::doubleround))
    return lowering_error{"Pipeline", "", "",
                          "rounding DOUBLE_ROUND requires EXT-DOUBLEROUND; " + std::string(t.text().view()) +
                              " does not enable it"};
  if (opt.rounding == tosa::rounding_mode::inexact_round && !t.supports(tosa::ext::inexactround))
    return lowering_error{"Pipeline", "", "",
                          "rounding INEXACT_ROUND requires EXT-INEXACTROUND; " + std::string(t.text().view()) +
                              " does not enable it"};
  return std::nullopt;
}

[[nodiscard]] inline bool has_qdq(const graph::graph& g) {
  for (const auto& o : g.operators)
    if (is_fw(o, graph::framework_op::quantize) || is_fw(o, graph::framework_op::dequantize)) return true;
  return false;
}

/// The integer pipeline, without the target check (done by the callers).
[[nodiscard]] inline result<lowering> run_int(const tosa::target& t, graph::graph g, const options& opt) {
  lowering out;
  out.report.spec = std::string(t.text().view());
  out.report.scheme = std::string(name(opt.sch));
  auto& rep = out.report;
  if (is_float_graph(g))
    if (auto s = quantize_float_graph(g, opt.sch, opt.per_channel, opt.calibration, rep); !s) return s.error();
  if (auto s = fold_and_annotate_qparams(g, rep); !s) return s.error();
  if (auto s = fuse_quantized_activation(g, rep); !s) return s.error();
  std::vector<rescale_site> sites;
  if (auto s = decompose_linear(g, opt.sch, sites, rep); !s) return s.error();
  if (auto s = insert_rescale(g, sites, opt.rounding, rep); !s) return s.error();
  if (auto s = lower_remaining_framework_ops(g, true, rep); !s) return s.error();
  if (auto s = validate(g, t, rep); !s) return s.error();
  rep.summarize(g);
  out.graph = std::move(g);
  return out;
}

/// The MXFP pipeline, without the target check.
[[nodiscard]] inline result<lowering> run_mxfp(const tosa::target& t, graph::graph g, const options& opt) {
  lowering out;
  out.report.spec = std::string(t.text().view());
  out.report.scheme = std::string(name(opt.sch));
  auto& rep = out.report;
  if (has_qdq(g))
    return lowering_error{"RewriteMXFPLinear", "", "",
                          "MXFP lowering takes a float graph; this graph has QUANTIZE/DEQUANTIZE operators "
                          "(use scheme int8 or a16w8 for quantized graphs)"};
  if (auto s = rewrite_mxfp_linear(g, mx_element(opt.sch), opt.mx_scale, rep); !s) return s.error();
  if (auto s = lower_remaining_framework_ops(g, false, rep); !s) return s.error();
  if (auto s = validate(g, t, rep); !s) return s.error();
  rep.summarize(g);
  out.graph = std::move(g);
  return out;
}

}  // namespace detail

/// Integer linear lowering (int8 or a16w8) instantiated for a compile-time target: does not
/// compile unless every op/dtype it emits is legal for `Target` (the error names the rule).
template <tosa::TargetSpec Target, scheme S>
struct int_linear_lowering {
  static_assert(S == scheme::int8 || S == scheme::a16w8, "int_linear_lowering: scheme must be int8 or a16w8");
  static_assert(tosa::require<Target, tosa::op::conv2d, activation_dtype(S), dtype::id::i8,
                              S == scheme::a16w8 ? dtype::id::i48 : dtype::id::i32>);
  static_assert(tosa::require<Target, tosa::op::rescale, S == scheme::a16w8 ? dtype::id::i48 : dtype::id::i32,
                              activation_dtype(S)>);
  static_assert(tosa::require<Target, tosa::op::reshape, activation_dtype(S)>);
  static_assert(tosa::require<Target, tosa::op::clamp, activation_dtype(S)>);
  static constexpr const char* name = "IntLinearLowering";
  /// Runs the integer pipeline; `opt.sch` is forced to `S`.
  [[nodiscard]] static result<lowering> run(graph::graph g, options opt) {
    opt.sch = S;
    const tosa::target& t = Target::value;  // non-dependent call: clang-tidy sees the move of g
    if (auto e = detail::scheme_error(t, opt)) return *e;
    return detail::run_int(t, std::move(g), opt);
  }
};

/// MXFP linear lowering for element dtype `Elem`, instantiated for a compile-time target: does
/// not compile unless CAST_TO_BLOCK_SCALED fp32→Elem and MATMUL_T_BLOCK_SCALED Elem×Elem are
/// legal for `Target` (TOSA 1.1 + FP + mxfp).
template <tosa::TargetSpec Target, scheme S>
struct mxfp_linear_lowering {
  static_assert(is_mx(S), "mxfp_linear_lowering: scheme must be an MXFP scheme");
  static_assert(tosa::require<Target, tosa::op::cast_to_block_scaled, dtype::id::fp32, mx_element(S)>);
  static_assert(tosa::require<Target, tosa::op::matmul_t_block_scaled, mx_element(S), mx_element(S)>);
  static_assert(tosa::require<Target, tosa::op::add, dtype::id::fp32>);
  static constexpr const char* name = "MXFPLinearLowering";
  /// Runs the MXFP pipeline; `opt.sch` is forced to `S`.
  [[nodiscard]] static result<lowering> run(graph::graph g, options opt) {
    opt.sch = S;
    const tosa::target& t = Target::value;  // non-dependent call: clang-tidy sees the move of g
    if (auto e = detail::scheme_error(t, opt)) return *e;
    return detail::run_mxfp(t, std::move(g), opt);
  }
};

/// The pipeline of scheme `S` for `Target`.
template <tosa::TargetSpec Target, scheme S>
using pipeline_for = std::conditional_t<is_mx(S), mxfp_linear_lowering<Target, S>, int_linear_lowering<Target, S>>;

/// Lowers `g` for a run-time target with the scheme in `opt` (error value when illegal).
[[nodiscard]] inline result<lowering> lower(const tosa::target& t, graph::graph g, const options& opt = {}) {
  if (!t.valid()) return lowering_error{"Pipeline", "", "", "invalid target " + std::string(t.text().view())};
  if (auto e = detail::scheme_error(t, opt)) return *e;
  return is_mx(opt.sch) ? detail::run_mxfp(t, std::move(g), opt) : detail::run_int(t, std::move(g), opt);
}

/// Lowers `g` with scheme `S` for the compile-time target `Target`: an illegal combination does
/// not compile.
template <tosa::TargetSpec Target, scheme S>
[[nodiscard]] result<lowering> lower(graph::graph g, options opt = {}) {
  return pipeline_for<Target, S>::run(std::move(g), std::move(opt));
}

/// Lowers `g` for the compile-time target `Target` with the run-time scheme `opt.sch`: only the
/// pipelines legal for `Target` are instantiated; any other scheme gives an error value.
template <tosa::TargetSpec Target>
[[nodiscard]] result<lowering> lower(graph::graph g, options opt = {}) {
  constexpr std::size_t n = std::size(all_schemes);
  return boost::mp11::mp_with_index<n>(static_cast<std::size_t>(opt.sch), [&](auto I) -> result<lowering> {
    constexpr scheme S = all_schemes[I];
    if constexpr (scheme_legal<Target, S>) {
      return pipeline_for<Target, S>::run(std::move(g), opt);
    } else {
      return *detail::scheme_error(Target::value, opt);
    }
  });
}

}  // namespace armlower::passes

namespace armlower {
using passes::lower;
}  // namespace armlower
