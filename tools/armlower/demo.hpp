/// @file tools/armlower/demo.hpp
/// `armlower demo`: a built-in, deterministic MLP (256 → 512 → 256 → 10, ReLU between layers,
/// weights N(0, 1/in_features) and biases N(0, 0.01) from std::mt19937(seed), inputs N(0, 1))
/// lowered every way armlower can — int8 TOSA (TOSA-1.0+INT), a16w8 TOSA (TOSA-1.0+INT+int16),
/// MXFP8 E4M3 and MXFP4 TOSA (TOSA-1.1+FP+mxfp) — each serialized, read back, run by the
/// interpreter and compared with the float reference (max |error|, SQNR). One table.
#pragma once

#include "driver.hpp"

#include <armlower/graph/quantizer.hpp>

#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace armlower::tool {

/// Options of the demo.
struct demo_options {
  unsigned seed = 2026;  ///< seed of weights, calibration and test inputs
  int rows = 8;          ///< test input rows per run
  bool json = false;     ///< print JSON instead of the table
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

/// The demo MLP (deterministic for a seed).
[[nodiscard]] inline std::vector<graph::mlp_layer> demo_mlp(unsigned seed) {
  std::mt19937 rng(seed);
  const std::int32_t dims[] = {256, 512, 256, 10};
  std::vector<graph::mlp_layer> layers;
  for (int i = 0; i < 3; ++i) {
    graph::mlp_layer l;
    l.in_features = dims[i];
    l.out_features = dims[i + 1];
    std::normal_distribution<float> w(0.0f, 1.0f / std::sqrt(static_cast<float>(dims[i])));
    std::normal_distribution<float> b(0.0f, 0.1f);
    l.weight.resize(static_cast<std::size_t>(dims[i] * dims[i + 1]));
    for (auto& v : l.weight) v = w(rng);
    l.bias.resize(static_cast<std::size_t>(dims[i + 1]));
    for (auto& v : l.bias) v = b(rng);
    l.act = i < 2 ? graph::activation::relu : graph::activation::none;
    layers.push_back(std::move(l));
  }
  return layers;
}

/// `rows` × `n` values N(0, 1).
[[nodiscard]] inline std::vector<float> demo_inputs(unsigned seed, std::size_t rows, std::size_t n) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(rows * n);
  for (auto& v : x) v = d(rng);
  return x;
}

/// Lowers, serializes, reads back and runs one configuration.
[[nodiscard]] inline demo_row demo_one(const std::vector<graph::mlp_layer>& layers, passes::scheme s,
                                       const std::string& spec, const std::vector<float>& calib,
                                       const std::vector<float>& x, int rows, const std::vector<float>& ref) {
  stopwatch sw;
  demo_row r;
  r.scheme = std::string(passes::name(s));
  r.spec = spec;
  const auto fw = graph::build_float_mlp(layers, {rows, layers.front().in_features});
  lower_request req;
  req.sch = s;
  req.calibration = calib;
  const auto l = lower_to_tosa(fw, parse_spec(spec), req);
  r.bytes = l.bytes.size();
  auto back = serialize::read(l.bytes);
  if (!back) throw tool_error("demo: reading back the " + r.scheme + " .tosa failed: " + back.error().message);
  const auto& g = back->graph;
  r.ops = g.operators.size();
  const auto* in = g.find(g.inputs.at(0));
  run::value v;
  if (passes::is_mx(s)) v = run::from_reals(in->type, in->shape, x);
  else v = run::from_ints(in->type, in->shape, graph::quantize(x, *l.input_quant));
  const auto out = run::run(g, std::span<const run::value>(&v, 1));
  if (!out) throw tool_error("demo: running " + r.scheme + " failed: " + out.failure->message());
  const auto y = real_values(out.outputs.at(0), l.output_quant);
  const auto st = compare(y, ref);
  r.max_abs = st.max_abs;
  r.sqnr_db = st.sqnr_db;
  r.bit_exact = "n/a";
  r.ms = sw.ms();
  return r;
}

/// Runs the demo and prints the table (or JSON) on stdout; progress via `progress`.
inline int run_demo(const demo_options& o, const std::function<void(const std::string&, double)>& progress) {
  if (o.rows < 1 || o.rows > 4096) throw tool_error("demo: --rows must be in 1..4096");
  const auto layers = demo_mlp(o.seed);
  const auto calib = demo_inputs(o.seed + 1, 256, 256);
  const auto x = demo_inputs(o.seed + 2, static_cast<std::size_t>(o.rows), 256);
  const auto ref = graph::run_float_mlp(layers, x, static_cast<std::size_t>(o.rows));
  progress("demo MLP 256-512-256-10 (seed " + std::to_string(o.seed) + "), " + std::to_string(o.rows) +
               " input rows, float reference computed",
           -1);
  const std::pair<passes::scheme, const char*> cfg[] = {
      {passes::scheme::int8, "TOSA-1.0+INT"},
      {passes::scheme::a16w8, "TOSA-1.0+INT+int16"},
      {passes::scheme::mxfp8_e4m3, "TOSA-1.1+FP+mxfp"},
      {passes::scheme::mxfp4, "TOSA-1.1+FP+mxfp"},
  };
  std::vector<demo_row> rows;
  for (const auto& [s, spec] : cfg) {
    rows.push_back(demo_one(layers, s, spec, calib, x, o.rows, ref));
    progress(rows.back().scheme + " on " + spec + " lowered and run", rows.back().ms);
  }
  if (o.json) {
    std::string js = "{\"rows\":[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      char b[512];
      std::snprintf(b, sizeof b,
                    "%s{\"scheme\":\"%s\",\"spec\":\"%s\",\"ops\":%zu,\"bytes\":%zu,\"max_abs_error\":%.6g,"
                    "\"sqnr_db\":%.3f,\"bit_exact\":\"%s\",\"ms\":%.2f}",
                    i ? "," : "", r.scheme.c_str(), r.spec.c_str(), r.ops, r.bytes, r.max_abs, r.sqnr_db,
                    r.bit_exact.c_str(), r.ms);
      js += b;
    }
    std::cout << js << "]}\n";
    return 0;
  }
  std::printf("%-12s %-20s %5s %9s %12s %10s %10s %10s\n", "scheme", "spec", "ops", "bytes", "max|err|", "SQNR dB",
              "bit-exact", "time ms");
  for (const auto& r : rows)
    std::printf("%-12s %-20s %5zu %9zu %12.5f %10.2f %10s %10.1f\n", r.scheme.c_str(), r.spec.c_str(), r.ops, r.bytes,
                r.max_abs, r.sqnr_db, r.bit_exact.c_str(), r.ms);
  return 0;
}

}  // namespace armlower::tool
