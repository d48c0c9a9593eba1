// The tool's lowering path (tools/armlower/driver.hpp) on the real tflite-micro models.
// Oracles: TFLite's golden outputs of hello_world_int8 (4, 60, 104, 123, 4 for quantized inputs
// −128, −108, −87, −67, 0; ../shared/data/README.md) and sin(x) for hello_world_float.
#include "driver.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

using namespace armlower;

namespace {
const std::string models = ARMLOWER_SHARED_DATA "/tflite/";

/// Lowers, serializes, reads back (so the file is what runs) and returns the TOSA graph.
tool::lowered lower_file(const std::string& model, const std::string& spec, const tool::lower_request& req = {}) {
  const auto m = tool::load_tflite(models + model, false).value();
  return tool::lower_to_tosa(m.graph, tool::parse_spec(spec).value(), req).value();
}

graph::graph read_back(const tool::lowered& l) {
  auto r = serialize::read(l.bytes);
  REQUIRE_MESSAGE(r.has_value(), r.error().line());
  return std::move(r->graph);
}

std::vector<std::int64_t> run_ints(const graph::graph& g, dtype::id t, std::vector<std::int32_t> shape,
                                   std::vector<std::int64_t> x) {
  const auto v = run::from_ints(t, std::move(shape), std::move(x));
  const auto r = run::run(g, std::span<const run::value>(&v, 1));
  REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().line()));
  return r->outputs.at(0).ints.widened();
}
}  // namespace

TEST_CASE("hello_world_int8 on TOSA-1.0+INT (SINGLE_ROUND) and +doubleround (DOUBLE_ROUND) gives TFLite's outputs") {
  const std::int64_t in[] = {-128, -108, -87, -67, 0};
  const std::int64_t golden[] = {4, 60, 104, 123, 4};
  for (const char* spec : {"TOSA-1.0+INT", "TOSA-1.0+INT+doubleround"}) {
    const auto l = lower_file("hello_world_int8.tflite", spec);
    CHECK(l.report.scheme == "int8");
    const auto g = read_back(l);
    for (int i = 0; i < 5; ++i) {
      INFO(std::string(spec), " input ", in[i]);
      const auto y = run_ints(g, dtype::id::i8, {1, 1}, {in[i]});
      REQUIRE(y.size() == 1);
      CHECK(y[0] == golden[i]);
    }
  }
}

TEST_CASE("hello_world_int8 as a Cortex-M plan (MVE kernel_sum, DSP and scalar bias) gives TFLite's outputs") {
  const std::int64_t in[] = {-128, -108, -87, -67, 0};
  const std::int64_t golden[] = {4, 60, 104, 123, 4};
  const auto m = tool::load_tflite(models + "hello_world_int8.tflite", false).value();
  for (const char* target : {"cortex-m55", "cortex-m4", "cortex-m0"}) {
    const auto c = tool::lower_to_cortex_m(m.graph, tool::parse_cortex_m(target).value(), {}).value();
    REQUIRE(c.program.layers.size() == 3);
    const bool mve = c.program.isa == cortex_m::isa::mve;
    CHECK(mve == (std::string(target) == "cortex-m55"));
    for (const auto& l : c.program.layers) {
      CHECK(l.kernel_sum.empty() == !mve);
      CHECK(l.bias.empty() == mve);
    }
    for (int i = 0; i < 5; ++i) {
      INFO(std::string(target), " input ", in[i]);
      const std::int64_t x[] = {in[i]};
      const auto y = tool::run_cortex_m(c.program, x).value();
      REQUIRE(y.size() == 1);
      CHECK(y[0] == golden[i]);
    }
    const auto header = passes::emit_plan_header(c.program, "hw");
    CHECK(header.find("namespace hw") != std::string::npos);
  }
}

TEST_CASE("hello_world_float per scheme: max |error| vs sin(x) on 1000 points in [0, 2pi]") {
  // Float model itself (imported weights, double math) as the baseline error.
  const auto m = tool::load_tflite(models + "hello_world_float.tflite", false).value();
  const auto layers = tool::float_chain(m.graph).value();
  std::vector<float> xs(1000), calib(256);
  for (int i = 0; i < 1000; ++i) xs[static_cast<std::size_t>(i)] = static_cast<float>(2 * std::numbers::pi * i / 999.0);
  for (int i = 0; i < 256; ++i) calib[static_cast<std::size_t>(i)] = static_cast<float>(2 * std::numbers::pi * (i + 0.5) / 256.0);
  const auto yf = graph::run_float_mlp(layers, xs, xs.size());
  double float_err = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) float_err = std::max(float_err, std::abs(yf[i] - std::sin(static_cast<double>(xs[i]))));
  std::printf("hello_world_float: float32 model max |err| vs sin = %.4f\n", float_err);
  CHECK(float_err < 0.2);

  struct cfg {
    passes::scheme s;
    const char* spec;
    double extra;  // allowed error on top of the float model's own
  };
  // MX bounds: this tiny model (contraction dims 1 and 16, so one block per row, padded with
  // zeros) amplifies element rounding; an independent NumPy + ml_dtypes emulation of the same
  // lowering (TOSA block-scale rule, RNE casts) gives max |err| 0.480 (E4M3) and 1.149 (E5M2).
  const cfg cases[] = {
      {passes::scheme::int8, "TOSA-1.0+INT", 0.08},          {passes::scheme::a16w8, "TOSA-1.0+INT+int16", 0.02},
      {passes::scheme::mxfp8_e4m3, "TOSA-1.1+FP+mxfp", 0.5},  {passes::scheme::mxfp8_e5m2, "TOSA-1.1+FP+mxfp", 1.2},
      {passes::scheme::mxfp6_e2m3, "TOSA-1.1+FP+mxfp", 0.45}, {passes::scheme::mxfp6_e3m2, "TOSA-1.1+FP+mxfp", 1.2},
      {passes::scheme::mxfp4, "TOSA-1.1+FP+mxfp", 2.3},
  };
  for (const auto& c : cases) {
    tool::lower_request req;
    req.scheme = c.s;
    req.calibration = calib;
    const auto l = tool::lower_to_tosa(m.graph, tool::parse_spec(c.spec).value(), req).value();
    const auto g = read_back(l);
    const auto* in = g.find(g.inputs.at(0));
    REQUIRE(in);
    double err = 0;
    for (float x : xs) {
      run::value v;
      if (passes::is_mx(c.s)) v = run::from_reals(in->type, in->shape, {x});
      else v = run::from_ints(in->type, in->shape, graph::quantize(std::vector<float>{x}, *l.input_quant));
      const auto r = run::run(g, std::span<const run::value>(&v, 1));
      REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().line()));
      const auto y = tool::real_values(r->outputs.at(0), l.output_quant);
      err = std::max(err, std::abs(static_cast<double>(y.at(0)) - std::sin(static_cast<double>(x))));
    }
    std::printf("hello_world_float %-11s on %-19s max |err| vs sin = %.4f (bound %.3f)\n",
                std::string(passes::name(c.s)).c_str(), c.spec, err, float_err + c.extra);
    INFO(passes::name(c.s));
    CHECK(err <= float_err + c.extra);
  }
}

TEST_CASE("micro_speech: FULLY_CONNECTED 4000->4 lowered, the other operators reported") {
  const auto m = tool::load_tflite(models + "micro_speech_quantized.tflite", false).value();
  REQUIRE(m.left_out.size() == 3);
  CHECK(m.left_out[0].name == "RESHAPE");
  CHECK(m.left_out[1].name == "DEPTHWISE_CONV_2D");
  CHECK(m.left_out[2].name == "SOFTMAX");
  const auto l = tool::lower_to_tosa(m.graph, tool::parse_spec("TOSA-1.0+INT").value(), {}).value();
  CHECK(l.report.ops.at("CONV2D") == 1);
  CHECK(l.report.ops.at("RESCALE") == 1);
  const auto g = read_back(l);
  const auto* w = [&]() -> const graph::tensor* {
    for (const auto& t : g.tensors)
      if (t.is_constant && t.type == dtype::id::i8 && graph::element_count(t.shape) == 16000) return &t;
    return nullptr;
  }();
  REQUIRE(w);
  // all-zero-point input: every output is the bias path only, and stays in int8
  std::vector<std::int64_t> x(4000, -128);
  const auto y = run_ints(g, dtype::id::i8, {1, 25, 20, 8}, x);
  CHECK(y.size() == 4);
}
