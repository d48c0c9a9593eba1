// Calibration (graph/quantizer.hpp, graph/builder.hpp): the bounded default calibration, blockwise
// calibrate_mlp equal to min/max over the whole float reference (the oracle: run_float_mlp on all
// rows at once, then range_of), refusal of 0 rows / wrong row length / NaN / ±Inf (which, where),
// and scales that are not finite floats > 0.
#include <armlower/graph/builder.hpp>
#include <armlower/graph/quantizer.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace armlower;

namespace {
std::string what_of(auto&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("default calibration: 256 rows of U(-1,1) (mt19937 seed 0), bounded to 2^24 values") {
  CHECK(graph::default_calibration_rows(8) == 256);
  CHECK(graph::default_calibration_rows(65536) == 256);
  CHECK(graph::default_calibration_rows(65537) == 255);
  CHECK(graph::default_calibration_rows(1 << 20) == 16);
  CHECK(graph::default_calibration_rows(1 << 30) == 1);
  CHECK_THROWS_AS(static_cast<void>(graph::default_calibration_rows(0)), std::invalid_argument);
  const auto x = graph::default_calibration(3);
  REQUIRE(x.size() == 768);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(x[i] == u(rng));
  CHECK(graph::default_calibration(1 << 20).size() == std::size_t{16} << 20);  // 64 MiB, not 1 GiB
}

TEST_CASE("calibrate_mlp in blocks equals min/max over the whole float reference") {
  // width 1024 -> blocks of 1024 rows; 2500 rows = 3 blocks (the last one partial).
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<graph::mlp_layer> layers(2);
  layers[0].in_features = 2;
  layers[0].out_features = 1024;
  layers[1].in_features = 1024;
  layers[1].out_features = 1;
  for (auto& l : layers) {
    l.weight.resize(static_cast<std::size_t>(l.in_features) * static_cast<std::size_t>(l.out_features));
    for (auto& v : l.weight) v = u(rng) * 0.1f;
    l.bias.resize(static_cast<std::size_t>(l.out_features));
    for (auto& v : l.bias) v = u(rng);
  }
  layers[0].act = graph::activation::relu;
  const std::size_t rows = 2500;
  std::vector<float> x(rows * 2);
  for (auto& v : x) v = u(rng) * 4.0f;
  const auto r = graph::calibrate_mlp(layers, x, rows);
  REQUIRE(r.size() == 3);
  const auto in = graph::range_of(x);
  const auto h = graph::run_float_mlp(std::span(layers).subspan(0, 1), x, rows);
  const auto y = graph::run_float_mlp(layers, x, rows);
  const auto rh = graph::range_of(h), ry = graph::range_of(y);
  CHECK(r[0].min == in.min);
  CHECK(r[0].max == in.max);
  CHECK(r[1].min == rh.min);
  CHECK(r[1].max == rh.max);
  CHECK(r[2].min == ry.min);
  CHECK(r[2].max == ry.max);
}

TEST_CASE("calibration data is refused with the rule: 0 rows, row length, NaN / Inf with row and column") {
  const std::vector<float> six(6, 0.5f);
  const std::vector<std::int32_t> s23{2, 3}, s03{0, 3}, s32{3, 2};
  CHECK(graph::check_calibration(six, s23, 3).value() == 2);
  // check_calibration returns the rule as an error value (errc::invalid_argument), never throws.
  auto rule_of = [](const expected<std::int64_t>& r) {
    CHECK_FALSE(r.has_value());
    CHECK(r.error().code() == errc::invalid_argument);
    return r.error().message();
  };
  CHECK(rule_of(graph::check_calibration({}, s03, 3)) ==
        "calibration data of shape [0,3] has 0 rows (need at least 1)");
  CHECK(rule_of(graph::check_calibration(six, s32, 3)) ==
        "calibration data of shape [3,2] has rows of 2 values, but the model's input has 3 features");
  auto bad = six;
  bad[4] = std::numeric_limits<float>::infinity();
  CHECK(rule_of(graph::check_calibration(bad, s23, 3)) ==
        "calibration data: +Inf at row 1, column 1 (calibration values must be finite)");
  bad[4] = std::numeric_limits<float>::quiet_NaN();
  CHECK(rule_of(graph::check_calibration(bad, s23, 3)) ==
        "calibration data: NaN at row 1, column 1 (calibration values must be finite)");
  // The same rules inside calibrate_mlp (library users that skip check_calibration).
  std::vector<graph::mlp_layer> one(1);
  one[0] = {3, 1, {1, 1, 1}, {}, graph::activation::none};
  bad[4] = -std::numeric_limits<float>::infinity();
  CHECK(what_of([&] { static_cast<void>(graph::calibrate_mlp(one, bad, 2)); }) ==
        "calibration data: -Inf at row 1, column 1 (calibration values must be finite)");
  CHECK(what_of([&] { static_cast<void>(graph::calibrate_mlp(one, six, 0)); }).find("rows (>= 1)") != std::string::npos);
  // A float overflow inside the model is named by layer and row.
  const std::vector<float> big{3e38f, 3e38f, 3e38f};
  CHECK(what_of([&] { static_cast<void>(graph::calibrate_mlp(one, big, 1)); }) ==
        "calibration: layer 0 output is +Inf on calibration row 0, channel 0 (the float model overflows FP32)");
  CHECK(what_of([&] { static_cast<void>(graph::range_of(bad)); }) ==
        "range_of: -Inf in calibration data at index 4 (calibration values must be finite)");
}

TEST_CASE("scales that are not finite floats > 0 are refused") {
  // (max − min)/255 overflows FP32 for a range of ±3e38.
  CHECK(what_of([] { static_cast<void>(graph::affine_activation_qparams({-3e38f, 3e38f})); })
            .find("not a finite float > 0") != std::string::npos);
  graph::quant_params q{{std::numeric_limits<float>::infinity()}, {0}, 0, false, -128, 127};
  const std::vector<float> x{1.0f};
  CHECK(what_of([&] { static_cast<void>(graph::quantize(x, q)); }) == "quantize: scale inf is not a finite float > 0");
  q.scale = {-1.0f};
  CHECK(what_of([&] { static_cast<void>(graph::quantize(x, q)); }).find("is not a finite float > 0") != std::string::npos);
  // s_in · s_w underflows to 0.
  const graph::quant_params in{{1e-30f}, {0}, 0, false, -128, 127}, w{{1e-30f}, {0}, 0, false, -127, 127};
  CHECK(what_of([&] { static_cast<void>(graph::bias_qparams(in, w)); }).find("bias_qparams: bias scale") == 0);
}
