// TFLite int16×int8 FULLY_CONNECTED with an INT64 bias (the TFLite / CMSIS-NN a16w8 convention,
// ../shared/reference/kernels.md §1.5) end to end, on synthetic .tflite images (tests/import's
// builder): import → TOSA-1.0+INT+int16 (INT48 bias in CONV2D) → armlower's interpreter, both
// straight from the passes and from the serialized file the tool writes; and the Cortex-M plan
// (s16 path, int64 bias) through the driver and through `armlower lower --target cortex-m55`.
// Oracle: the CMSIS-NN-form `arm_fully_connected_s16` (compat::cmsis::fully_connected_s16, checked
// against the CMSIS-NN test vectors elsewhere) with TFLite's QuantizeMultiplier of the per-tensor
// scale, bit-exact. Bias values beyond INT32 are used, and one beyond INT48 must be an error naming
// the bias tensor and the INT48 rule.
#include "driver.hpp"
#include "tflite_model_builder.hpp"
#include "tool_process.hpp"

#include <armlower/compat/cmsis_nn.hpp>
#include <armlower/import/tflite.hpp>
#include <armlower/passes.hpp>
#include <armlower/quant/multiplier.hpp>
#include <armlower/run.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <sys/wait.h>
#include <vector>

using namespace armlower;
namespace fs = std::filesystem;
namespace fbs = armlower::import::tflite_fbs;
using armlower_test::bytes_of_i64;
using armlower_test::model_builder;
using armlower_test::run_tool;
using armlower_test::slurp;
using armlower_test::tmp_dir;

namespace {

constexpr std::int32_t B = 3, Ci = 40, Co = 5;
constexpr float s_in = 0.0123f, s_w = 0.0031f, s_out = 3.0f;

std::vector<std::int8_t> weights() {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(-127, 127);
  std::vector<std::int8_t> w(static_cast<std::size_t>(Co * Ci));
  for (auto& v : w) v = static_cast<std::int8_t>(d(rng));
  w[0] = -128;  // the full int8 range
  return w;
}

std::vector<std::int64_t> inputs() {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> d(-32768, 32767);
  std::vector<std::int64_t> x(static_cast<std::size_t>(B * Ci));
  for (auto& v : x) v = d(rng);
  for (std::int32_t c = 0; c < Ci; ++c) x[static_cast<std::size_t>(c)] = c % 2 ? 32767 : -32768;  // extremes
  return x;
}

/// xq INT16 [B, Ci] → FULLY_CONNECTED(w INT8 [Co, Ci] per tensor, b INT64 [Co], `act`) → yq INT16 [B, Co].
std::vector<std::uint8_t> fc_model(fbs::ActivationFunctionType act, const std::vector<std::int64_t>& bias) {
  model_builder m;
  const auto w = weights();
  const auto xq = m.tensor("xq", fbs::TensorType::INT16, {B, Ci}, {s_in}, {0});
  const auto wt = m.tensor("w", fbs::TensorType::INT8, {Co, Ci}, {s_w}, {0}, 0, std::vector<std::uint8_t>(w.begin(), w.end()));
  const auto bt = m.tensor("b", fbs::TensorType::INT64, {Co}, {s_in * s_w}, {0}, 0, bytes_of_i64(bias));
  const auto yq = m.tensor("yq", fbs::TensorType::INT16, {B, Co}, {s_out}, {0});
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const auto fo = fbs::CreateFullyConnectedOptions(m.b, act);
  m.op(cfc, {xq, wt, bt}, {yq}, fbs::BuiltinOptions::FullyConnectedOptions, fo.Union());
  return m.finish({xq}, {yq});
}

/// TFLM's int16 FULLY_CONNECTED on CMSIS-NN: QuantizeMultiplier(s_in·s_w/s_out) →
/// arm_fully_connected_s16 (offsets 0, activation range of the fused activation).
std::vector<std::int64_t> cmsis_reference(const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& bias,
                                          bool relu) {
  quant::quantized_multiplier qm{};
  REQUIRE(quant::quantize_multiplier(quant::per_tensor_real_multiplier(s_in, s_w, s_out), qm) == status::ok);
  cmsis::fc_params p;
  p.activation = {relu ? 0 : -32768, 32767};
  const cmsis::per_tensor_quant_params q{qm.multiplier, qm.shift};
  const cmsis::dims in{B, 1, 1, Ci}, filt{Ci, 1, 1, Co}, bd{1, 1, 1, Co}, od{B, 1, 1, Co};
  const std::vector<std::int16_t> xs(x.begin(), x.end());
  const auto w = weights();
  std::vector<std::int16_t> y(static_cast<std::size_t>(B * Co));
  REQUIRE(cmsis::fully_connected_s16(nullptr, &p, &q, &in, xs.data(), &filt, w.data(), &bd, bias.data(), &od,
                                     y.data()) == status::ok);
  return {y.begin(), y.end()};
}

fs::path write_model(const std::string& name, const std::vector<std::uint8_t>& b) {
  fs::path p = tmp_dir() / name;
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return p;
}

std::vector<std::int64_t> run_tosa(const graph::graph& g, const std::vector<std::int64_t>& x) {
  const auto v = run::from_ints(dtype::id::i16, {B, Ci}, x);
  const auto r = run::run(g, std::span<const run::value>(&v, 1));
  REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().line()));
  return r->outputs.at(0).ints.widened();
}

// Two values beyond INT32 (the reason TFLite uses INT64 here), the rest ordinary.
const std::vector<std::int64_t> bias_values{-7, 123456, 2200000000LL, -2300000000LL, 0};

}  // namespace

TEST_CASE("int16x8 FC with INT64 bias: TOSA-1.0+INT+int16 (INT48 CONV2D bias) == arm_fully_connected_s16, bit-exact") {
  for (auto act : {fbs::ActivationFunctionType::NONE, fbs::ActivationFunctionType::RELU}) {
    const bool relu = act == fbs::ActivationFunctionType::RELU;
    CAPTURE(relu);
    const auto bytes = fc_model(act, bias_values);
    const auto x = inputs();
    const auto want = cmsis_reference(x, bias_values, relu);
    // The large biases dominate their channels without saturating: the INT64 values really count.
    CHECK(want[2] > 20000);
    if (relu) CHECK(want[3] == 0);
    else CHECK(want[3] < -20000);

    // Passes API straight from the importer.
    const auto imp = import::import_tflite(bytes, "a16w8_int64_bias.tflite", {.strict = true}).value();
    REQUIRE(imp.graph.find("b") != nullptr);
    CHECK(imp.graph.find("b")->type == dtype::id::i64);
    passes::options o;
    o.sch = passes::scheme::a16w8;
    const auto t = passes::lower(tosa::parse("TOSA-1.0+INT+int16").value, imp.graph, o);
    REQUIRE_MESSAGE(t.has_value(), (t ? std::string() : t.error().message()));
    const graph::operation* conv = nullptr;
    for (const auto& op : t->graph.operators)
      if (op.tosa_op() == tosa::op::conv2d) conv = &op;
    REQUIRE(conv != nullptr);
    const auto* cb = t->graph.find(conv->inputs.at(2));
    REQUIRE(cb != nullptr);
    CHECK(cb->type == dtype::id::i48);
    CHECK(graph::decode_ints(dtype::id::i48, cb->data, Co) == bias_values);
    CHECK(t->report.ops.count("CLAMP") == (relu ? 1u : 0u));
    CHECK(run_tosa(t->graph, x) == want);

    // The tool's path: the .tflite file → serialized .tosa → read back → interpreter.
    const auto path = write_model(relu ? "fc_relu.tflite" : "fc.tflite", bytes);
    const auto m = tool::load_tflite(path, true).value();
    const auto l = tool::lower_to_tosa(m.graph, tool::parse_spec("TOSA-1.0+INT+int16").value(), {}).value();
    auto back = serialize::read(l.bytes);
    REQUIRE_MESSAGE(back.has_value(), back.error().line());
    CHECK(run_tosa(back->graph, x) == want);

    // Cortex-M plan (s16 path, int64 bias), MVE and DSP conventions, run on the host.
    for (auto isa : {cortex_m::isa::mve, cortex_m::isa::dsp}) {
      const auto cm = tool::lower_to_cortex_m(m.graph, isa, {}).value();
      REQUIRE(cm.program.layers.size() == 1);
      CHECK(cm.program.layers[0].kind == cortex_m::layer_kind::linear_s16);
      CHECK(cm.program.layers[0].bias_s64 == bias_values);
      CHECK(tool::run_cortex_m(cm.program, x).value() == want);
    }

    // `armlower lower --target cortex-m55` writes the plan header with the int64 bias.
    const auto hpp = tmp_dir() / (relu ? "fc_relu_m55.hpp" : "fc_m55.hpp");
    const auto run = run_tool("lower " + path.string() + " --target cortex-m55 -o " + hpp.string());
    REQUIRE_MESSAGE(run.rc == 0, run.err);
    const auto text = slurp(hpp);
    CHECK(text.find("layer_kind::linear_s16") != std::string::npos);
    CHECK(text.find("2200000000LL") != std::string::npos);
    CHECK(text.find("-2300000000LL") != std::string::npos);
  }
}

TEST_CASE("int16x8 FC with an INT64 bias value outside INT48: error naming the bias tensor and the rule") {
  auto bias = bias_values;
  bias[1] = std::int64_t{1} << 47;  // INT48 max + 1
  const auto bytes = fc_model(fbs::ActivationFunctionType::NONE, bias);
  const auto imp = import::import_tflite(bytes, "a16w8_big_bias.tflite", {.strict = true}).value();
  passes::options o;
  o.sch = passes::scheme::a16w8;
  const auto t = passes::lower(tosa::parse("TOSA-1.0+INT+int16").value, imp.graph, o);
  REQUIRE_FALSE(t.has_value());
  CHECK(t.error().where().tensor == "b");
  CHECK(t.error().message().find("does not fit INT48") != std::string::npos);
  CHECK(t.error().message().find("140737488355328") != std::string::npos);
  const auto c = passes::lower_cortex_m(imp.graph, {cortex_m::isa::mve});
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error().where().tensor == "b");
  CHECK(c.error().message().find("does not fit INT48") != std::string::npos);

  const auto path = write_model("fc_big_bias.tflite", bytes);
  const auto hpp = tmp_dir() / "fc_big_bias.hpp";
  const auto m55 = run_tool("lower " + path.string() + " --target cortex-m55 -o " + hpp.string());
  CHECK(m55.rc == 1);
  CHECK(m55.err.find("tensor 'b'") != std::string::npos);
  CHECK(m55.err.find("INT48") != std::string::npos);
  CHECK_FALSE(fs::exists(hpp));
  const auto tosa = run_tool("lower " + path.string() + " --spec TOSA-1.0+INT+int16 -o " + (tmp_dir() / "big.tosa").string());
  CHECK(tosa.rc == 1);
  CHECK(tosa.err.find("INT48") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp_dir() / "big.tosa"));
}
