// Builder and ExecuTorch-style quantizer helpers.
#include <armlower/graph/builder.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>

using namespace armlower;
using graph::framework_op;

namespace {
int count_ops(const graph::graph& g, framework_op k) {
  int n = 0;
  for (const auto& o : g.operators)
    if (!o.is_tosa() && std::get<framework_op>(o.code) == k) ++n;
  return n;
}
}  // namespace

TEST_CASE("affine int8 activation qparams follow torch's MinMax observer rule") {
  // torch: scale = (max(max,0) - min(min,0)) / 255, zp = -128 - round(min/scale), clamped.
  auto q = graph::affine_activation_qparams({-1.0f, 3.0f});
  CHECK(q.scale[0] == doctest::Approx(4.0 / 255.0));
  CHECK(q.zero_point[0] == -128 - static_cast<int>(std::nearbyint(-1.0f / q.scale[0])));
  // A range that does not contain 0 is widened to contain it: zero is exactly representable.
  auto p = graph::affine_activation_qparams({2.0f, 5.0f});
  CHECK(p.zero_point[0] == -128);
  CHECK(graph::quantize_value(0.0f, p.scale[0], p.zero_point[0], -128, 127) == -128);
  CHECK_THROWS_AS((void)graph::affine_activation_qparams({1.0f, -1.0f}), std::invalid_argument);
}

TEST_CASE("symmetric int16 activation qparams (a16w8) have zero point 0 and eps 2^-12") {
  auto q = graph::symmetric_activation_qparams({-16.0f, 1.0f});
  CHECK(q.zero_point[0] == 0);
  CHECK(q.scale[0] == doctest::Approx(16.0 / 32767.5));
  // Small ranges hit the observer's eps (2^-12), as in ExecuTorch.
  CHECK(graph::symmetric_activation_qparams({-2.0f, 1.0f}).scale[0] == 0x1p-12f);
  CHECK(graph::symmetric_activation_qparams({0.0f, 0.0f}).scale[0] == 0x1p-12f);
}

TEST_CASE("symmetric weights: per-tensor and per-channel scales, codes within -127..127, error <= scale/2") {
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const int out = 5, in = 7;
  std::vector<float> w(static_cast<std::size_t>(out) * in);
  for (auto& v : w) v = nd(rng);
  for (bool pc : {false, true}) {
    auto q = graph::symmetric_weight_qparams(w, out, pc);
    CHECK(q.scale.size() == (pc ? 5u : 1u));
    auto codes = graph::quantize(w, q);
    auto back = graph::dequantize(codes, q);
    for (std::size_t i = 0; i < w.size(); ++i) {
      CHECK(codes[i] >= -127);
      CHECK(codes[i] <= 127);
      const float s = q.scale[pc ? i / in : 0];
      CHECK(std::fabs(back[i] - w[i]) <= s * 0.5f + 1e-6f);
    }
    // The largest |w| maps to ±127 exactly.
    int maxabs = 0;
    for (auto c : codes) maxabs = std::max(maxabs, static_cast<int>(std::abs(c)));
    CHECK(maxabs == 127);
  }
}

TEST_CASE("bias qparams are int32 with scale s_in*s_w[c] and zero point 0") {
  auto xin = graph::affine_activation_qparams({-1.0f, 1.0f});
  std::vector<float> w{0.5f, -1.0f, 2.0f, 0.25f};
  auto wq = graph::symmetric_weight_qparams(w, 2, true);
  auto bq = graph::bias_qparams(xin, wq);
  REQUIRE(bq.scale.size() == 2);
  CHECK(bq.scale[1] == xin.scale[0] * wq.scale[1]);
  CHECK(bq.zero_point == std::vector<std::int32_t>{0, 0});
  CHECK(bq.qmin == std::numeric_limits<std::int32_t>::min());
}

TEST_CASE("quantized MLP graph has the DQ -> linear -> Q shape of a quantized framework graph") {
  std::vector<graph::mlp_layer> layers(2);
  layers[0] = {8, 4, std::vector<float>(32, 0.1f), std::vector<float>(4, 0.5f), graph::activation::relu};
  layers[1] = {4, 3, std::vector<float>(12, -0.2f), {}, graph::activation::none};
  std::vector<float> calib(std::size_t{3} * 8);
  for (std::size_t i = 0; i < calib.size(); ++i) calib[i] = static_cast<float>(i % 5) - 2.0f;
  auto ranges = graph::calibrate_mlp(layers, calib, 3);
  REQUIRE(ranges.size() == 3);
  for (auto act : {dtype::id::i8, dtype::id::i16}) {
    auto g = graph::build_quantized_mlp(layers, {3, 8}, {act, false}, ranges);
    CHECK(count_ops(g, framework_op::linear) == 2);
    CHECK(count_ops(g, framework_op::relu) == 1);
    CHECK(count_ops(g, framework_op::quantize) == 2);
    // DQ: input, 2 weights, 1 bias, 1 between the layers; the last output stays quantized.
    CHECK(count_ops(g, framework_op::dequantize) == 5);
    REQUIRE(g.inputs.size() == 1);
    REQUIRE(g.outputs.size() == 1);
    CHECK(g.find(g.inputs[0])->type == act);
    CHECK(g.find(g.outputs[0])->type == act);
    CHECK(g.find(g.outputs[0])->shape == std::vector<std::int32_t>{3, 3});
  }
}

TEST_CASE("float MLP graph, ranks 1..4, and builder errors") {
  for (const std::vector<std::int32_t>& shape : {std::vector<std::int32_t>{8}, {2, 8}, {2, 3, 8}, {1, 2, 3, 8}}) {
    std::vector<graph::mlp_layer> layers{{8, 5, std::vector<float>(40, 1.0f), {}, graph::activation::none}};
    auto g = graph::build_float_mlp(layers, shape);
    auto ys = shape;
    ys.back() = 5;
    CHECK(g.find(g.outputs[0])->shape == ys);
  }
  graph::builder b;
  auto x = b.input("x", {2, 8});
  std::vector<float> w(10);
  CHECK_THROWS_AS(b.linear(x, w, 2, {}), std::invalid_argument);  // 10 != 2*8
  CHECK_THROWS_AS(b.input("y", {1, 1, 1, 1, 8}), std::invalid_argument);
}
