/// @file tools/armlower/demo.hpp
/// `armlower demo`: a built-in, deterministic MLP (256 → 512 → 256 → 10, ReLU between layers,
/// weights N(0, 1/in_features) and biases N(0, 0.01) from std::mt19937(seed), inputs N(0, 1))
/// lowered every way armlower can — int8 TOSA (TOSA-1.0+INT), a16w8 TOSA (TOSA-1.0+INT+int16),
/// MXFP8 E4M3 and MXFP4 TOSA (TOSA-1.1+FP+mxfp) and a Cortex-M55 plan — each serialized, read
/// back, run (interpreter / plan on the host) and compared with the float reference (max |error|,
/// SQNR) and, for integer schemes, with the kernel reference. One table; exit 1 when a row that
/// must be bit-exact (DOUBLE_ROUND int8, a16w8, the plan) is not.
#pragma once

#include "driver.hpp"
#include "json.hpp"

#include <armlower/graph/demo_mlp.hpp>
#include <armlower/graph/quantizer.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace armlower::tool {

/// Options of the demo.
struct demo_options {
  unsigned seed = 2026;  ///< seed of weights, calibration and test inputs
  int rows = 8;          ///< test input rows per run
  bool json = false;     ///< print JSON instead of the table
  std::string emit_firmware;  ///< when set: write the Cortex-M55 plan + I/O headers there and stop
};

/// One row of the demo table.
struct demo_row {
  std::string scheme, spec;
  std::size_t ops = 0;      ///< operators in the lowered graph (CONST folded into tensors)
  std::size_t bytes = 0;    ///< size of the serialized .tosa
  double max_abs = 0;       ///< max |output − float reference|
  double sqnr_db = 0;       ///< SQNR of the output vs the float reference
  std::string bit_exact;    ///< vs the kernel reference: "yes", "NO" or "n/a"
  double ms = 0;            ///< lower + serialize + read + run
};

using graph::demo_inputs;
using graph::demo_mlp;

/// One configuration of the demo: a TOSA lowering (`cortex_m` false) or the Cortex-M55 plan.
struct demo_config {
  passes::scheme s;
  std::string spec;       ///< TOSA spec string, or "cortex-m55" for the plan
  bool cortex_m = false;
  bool must_match = false;  ///< bit-exactness with the kernel reference is guaranteed
};

/// Runs the int8/a16w8 Cortex-M plan of the demo MLP on the host (the kernel reference).
[[nodiscard]] inline expected<std::vector<std::int64_t>> demo_kernel_reference(const graph::graph& fw, passes::scheme s,
                                                                               const std::vector<float>& calib,
                                                                               const std::vector<float>& x) {
  lower_request req;
  req.scheme = s;
  req.calibration = calib;
  const auto c = lower_to_cortex_m(fw, cortex_m::isa::mve, req);
  if (!c) return c.error();
  return run_cortex_m(c->program, graph::quantize(x, c->program.input_quant));
}

/// Lowers, serializes, reads back and runs one configuration; compares with the float reference
/// and, for integer schemes, with the kernel reference (the Cortex-M plan run on the host).
[[nodiscard]] inline expected<demo_row> demo_one(const std::vector<graph::mlp_layer>& layers, const demo_config& c,
                                       const std::vector<float>& calib, const std::vector<float>& x, int rows,
                                       const std::vector<float>& ref) {
  stopwatch sw;
  demo_row r;
  r.scheme = std::string(passes::name(c.s));
  r.spec = c.spec;
  const auto float_fw = graph::build_float_mlp(layers, {rows, layers.front().in_features});
  lower_request req;
  req.scheme = c.s;
  req.calibration = calib;
  // Integer schemes: quantize (calibrate) once; the lowering and its kernel reference share it.
  std::optional<graph::graph> quantized;
  if (!passes::is_mx(c.s)) {
    auto q = armlower::quantize_for(float_fw, c.s, req);
    if (!q) return std::move(q).error();
    quantized = std::move(q->graph);
  }
  const auto& fw = quantized ? *quantized : float_fw;
  std::vector<std::int64_t> yq;
  std::vector<float> y;
  if (c.cortex_m) {
    const auto lc = lower_to_cortex_m(fw, cortex_m::isa::mve, req);
    if (!lc) return lc.error();
    const auto& l = *lc;
    r.ops = l.program.layers.size();
    r.bytes = static_cast<std::size_t>(l.program.report.total_constant_bytes);
    auto yr = run_cortex_m(l.program, graph::quantize(x, l.program.input_quant));
    if (!yr) return yr.error();
    yq = std::move(*yr);
    y = graph::dequantize(yq, l.program.output_quant);
  } else {
    const auto t = parse_spec(c.spec);
    if (!t) return t.error();
    const auto lt = lower_to_tosa(fw, *t, req);
    if (!lt) return lt.error();
    const auto& l = *lt;
    r.bytes = l.bytes.size();
    auto back = serialize::read(l.bytes);
    if (!back) return failure("demo: reading back the " + r.scheme + " .tosa failed: " + back.error().line(), back.error().code());
    const auto& g = back->graph;
    r.ops = g.operators.size();
    const auto* in = g.find(g.inputs.at(0));
    run::value v;
    if (passes::is_mx(c.s)) v = run::from_reals(in->type, in->shape, x);
    else v = run::from_ints(in->type, in->shape, graph::quantize(x, *l.input_quant));
    const auto out = run::run(g, std::span<const run::value>(&v, 1));
    if (!out) return failure("demo: running " + r.scheme + " failed: " + out.error().line(), out.error().code());
    yq = out->outputs.at(0).ints.widened();
    y = real_values(out->outputs.at(0), l.output_quant);
  }
  const auto st = compare(y, ref);
  r.max_abs = st.max_abs;
  r.sqnr_db = st.sqnr_db;
  if (passes::is_mx(c.s)) {
    r.bit_exact = "n/a";
  } else {
    // Kernel reference: for a TOSA graph the Cortex-M plan on the host; for the plan, the
    // TOSA int8 graph with DOUBLE_ROUND run by the interpreter.
    std::vector<std::int64_t> k;
    if (c.cortex_m) {
      const auto t = parse_spec("TOSA-1.0+INT+doubleround");
      if (!t) return t.error();
      const auto lt = lower_to_tosa(fw, *t, req);
      if (!lt) return lt.error();
      const auto& l = *lt;
      const auto* in = l.tosa.find(l.tosa.inputs.at(0));
      const auto v = run::from_ints(in->type, in->shape, graph::quantize(x, *l.input_quant));
      const auto out = run::run(l.tosa, std::span<const run::value>(&v, 1));
      if (!out)
        return failure("demo: running the TOSA reference for the plan failed: " + out.error().line(),
                       out.error().code());
      k = out->outputs.at(0).ints.widened();
    } else {
      auto kr = demo_kernel_reference(fw, c.s, calib, x);
      if (!kr) return kr.error();
      k = std::move(*kr);
    }
    std::size_t diff = 0;
    for (std::size_t i = 0; i < k.size() && i < yq.size(); ++i) diff += k[i] != yq[i];
    if (k.size() != yq.size()) diff = std::max(k.size(), yq.size());
    r.bit_exact = diff == 0 ? "yes" : "NO " + std::to_string(diff) + "/" + std::to_string(yq.size());
  }
  r.ms = sw.ms();
  return r;
}

/// Writes `<dir>/demo_mlp_plan.hpp` (the int8 Cortex-M55 plan of the demo MLP, namespace
/// demo_mlp_plan) and `<dir>/demo_mlp_io.hpp` (namespace demo_mlp_io: `rows`, the quantized
/// `input` rows and the `expected` outputs of the same plan run on the host), for the firmware
/// example. Errors: lowering or file errors.
[[nodiscard]] inline expected<void> emit_demo_firmware(const demo_options& o, const std::vector<graph::mlp_layer>& layers,
                                                       const std::vector<float>& calib, const std::vector<float>& x) {
  const auto fw = graph::build_float_mlp(layers, {o.rows, layers.front().in_features});
  lower_request req;
  req.scheme = passes::scheme::int8;
  req.calibration = calib;
  const auto lc = lower_to_cortex_m(fw, cortex_m::isa::mve, req);
  if (!lc) return lc.error();
  const auto& l = *lc;
  const auto xq = graph::quantize(x, l.program.input_quant);
  const auto yr = run_cortex_m(l.program, xq);
  if (!yr) return yr.error();
  const auto& y = *yr;
  const std::string plan = passes::emit_plan_header(l.program, "demo_mlp_plan");
  std::string io = "// Generated by `armlower demo --emit-firmware` (seed " + std::to_string(o.seed) +
                   "): quantized inputs of the demo MLP and the outputs of its Cortex-M55 plan run on the host.\n"
                   "#pragma once\n\n#include <cstdint>\n\nnamespace demo_mlp_io {\n\ninline constexpr std::int32_t rows = " +
                   std::to_string(o.rows) + ";\n";
  auto arr = [&](const char* name, const std::vector<std::int64_t>& v) {
    io += "inline constexpr std::int8_t " + std::string(name) + "[" + std::to_string(v.size()) + "] = {";
    for (std::size_t i = 0; i < v.size(); ++i) io += (i % 24 == 0 ? "\n    " : " ") + std::to_string(v[i]) + ",";
    io += "\n};\n";
  };
  arr("input", xq);
  arr("expected", y);
  io += "\n}  // namespace demo_mlp_io\n";
  const std::filesystem::path d(o.emit_firmware);
  std::error_code ec;
  std::filesystem::create_directories(d, ec);
  for (const auto& [name, text] : {std::pair{std::string("demo_mlp_plan.hpp"), plan}, std::pair{std::string("demo_mlp_io.hpp"), io}})
    if (auto w = io::write_file(d / name, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size())); !w)
      return w;
  return {};
}

/// Runs the demo and prints the table (or JSON) on stdout; progress via `progress`.
[[nodiscard]] inline expected<int> run_demo(const demo_options& o,
                                           const std::function<void(const std::string&, double)>& progress) {
  if (o.rows < 1 || o.rows > 4096) return failure("demo: --rows must be in 1..4096");
  const auto layers = demo_mlp(o.seed);
  const auto calib = demo_inputs(o.seed + 1, 256, 256);
  const auto x = demo_inputs(o.seed + 2, static_cast<std::size_t>(o.rows), 256);
  const auto ref = graph::run_float_mlp(layers, x, static_cast<std::size_t>(o.rows));
  if (!o.emit_firmware.empty()) {
    if (auto e = emit_demo_firmware(o, layers, calib, x); !e) return e.error();
    progress("wrote demo_mlp_plan.hpp and demo_mlp_io.hpp to " + o.emit_firmware, -1);
    return 0;
  }
  progress("demo MLP 256-512-256-10 (seed " + std::to_string(o.seed) + "), " + std::to_string(o.rows) +
               " input rows, float reference computed",
           -1);
  const demo_config cfg[] = {
      {passes::scheme::int8, "TOSA-1.0+INT", false, false},
      {passes::scheme::int8, "TOSA-1.0+INT+doubleround", false, true},
      {passes::scheme::a16w8, "TOSA-1.0+INT+int16", false, true},
      {passes::scheme::mxfp8_e4m3, "TOSA-1.1+FP+mxfp", false, false},
      {passes::scheme::mxfp4, "TOSA-1.1+FP+mxfp", false, false},
      {passes::scheme::int8, "cortex-m55", true, true},
  };
  std::vector<demo_row> rows;
  bool mismatch = false;
  for (const auto& c : cfg) {
    auto row = demo_one(layers, c, calib, x, o.rows, ref);
    if (!row) return row.error();
    rows.push_back(std::move(*row));
    progress(rows.back().scheme + " on " + c.spec + " lowered and run", rows.back().ms);
    mismatch = mismatch || (c.must_match && rows.back().bit_exact != "yes");
  }
  if (o.json) {
    json j;
    j["rows"] = json::array();
    for (const auto& r : rows)
      j["rows"].push_back({{"scheme", r.scheme},
                           {"spec", r.spec},
                           {"ops", r.ops},
                           {"bytes", r.bytes},
                           {"max_abs_error", real(r.max_abs)},
                           {"sqnr_db", real(r.sqnr_db)},  // "inf" when the output equals the reference
                           {"bit_exact", r.bit_exact},
                           {"ms", real(r.ms)}});
    print_json(j);
    return mismatch ? 1 : 0;
  }
  std::printf("%-12s %-26s %5s %9s %12s %10s %10s %10s\n", "scheme", "spec", "ops", "bytes", "max|err|", "SQNR dB",
              "bit-exact", "time ms");
  for (const auto& r : rows)
    std::printf("%-12s %-26s %5zu %9zu %12.5f %10.2f %10s %10.1f\n", r.scheme.c_str(), r.spec.c_str(), r.ops, r.bytes,
                r.max_abs, r.sqnr_db, r.bit_exact.c_str(), r.ms);
  std::printf("ops: operators of the lowered TOSA graph (layers for the plan); bytes: .tosa file (constant bytes for\n"
              "the plan); error vs the float MLP; bit-exact: TOSA graph vs the Cortex-M plan run on the host with\n"
              "armlower's CMSIS-NN-form kernels (the plan vs TOSA int8 DOUBLE_ROUND); SINGLE_ROUND may differ by 1 LSB.\n");
  if (mismatch) std::fprintf(stderr, "armlower: error: demo: a configuration that must be bit-exact is not\n");
  return mismatch ? 1 : 0;
}

}  // namespace armlower::tool
