// Calibration (graph/quantizer.hpp, graph/builder.hpp): the bounded default calibration, blockwise
// calibrate_mlp equal to min/max over the whole float reference (the oracle: run_float_mlp on all
// rows at once, then range_of), refusal of 0 rows / wrong row length / NaN / ±Inf (which, where),
// and scales that are not finite floats > 0.
// The float32 pass of calibrate_mlp (every path: portable, AVX2, AVX-512, the vectorised double
// reference alone, and run_float_mlp alone) gives exactly the ranges — and so exactly the qparams — of that double-precision
// oracle on the demo MLP and on random models (ties, ReLU/ReLU6 clamps, deep chains, odd sizes).
#include <armlower/graph/builder.hpp>
#include <armlower/graph/demo_mlp.hpp>
#include <armlower/graph/quantizer.hpp>

#include <doctest/doctest.h>

#include <array>
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

namespace {
// The oracle: the double-precision reference over all rows at once, layer by layer.
std::vector<graph::float_range> oracle_ranges(const std::vector<graph::mlp_layer>& layers, const std::vector<float>& x,
                                              std::size_t rows) {
  std::vector<graph::float_range> r{graph::range_of(x)};
  std::vector<float> cur = x;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    cur = graph::run_float_mlp(std::span(layers).subspan(i, 1), cur, rows);
    r.push_back(graph::range_of(cur));
  }
  return r;
}

constexpr graph::detail::calib_isa all_paths[] = {graph::detail::calib_isa::best, graph::detail::calib_isa::portable,
                                                  graph::detail::calib_isa::avx2, graph::detail::calib_isa::avx512,
                                                  graph::detail::calib_isa::exact_only,
                                                  graph::detail::calib_isa::reference_only};

// calibrate_mlp on every path equals the oracle, range by range, and so do the qparams derived
// from them (int8 affine, int16 symmetric). Returns what the best path did.
graph::calibration_stats check_all_paths(const std::vector<graph::mlp_layer>& layers, const std::vector<float>& x,
                                         std::size_t rows, bool qparams = true) {
  const auto want = oracle_ranges(layers, x, rows);
  graph::calibration_stats best;
  for (const auto isa : all_paths) {
    graph::calibration_stats st;
    const auto got = graph::detail::calibrate_mlp_with(layers, x, rows, isa, &st);
    if (isa == graph::detail::calib_isa::best) best = st;
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO("path " << static_cast<int>(isa) << ", range " << i);
      CHECK(got[i].min == want[i].min);
      CHECK(got[i].max == want[i].max);
      if (!qparams) continue;
      const auto qa = graph::affine_activation_qparams(got[i]), qb = graph::affine_activation_qparams(want[i]);
      CHECK(qa.scale == qb.scale);
      CHECK(qa.zero_point == qb.zero_point);
      CHECK(graph::symmetric_activation_qparams(got[i]).scale == graph::symmetric_activation_qparams(want[i]).scale);
    }
  }
  return best;
}

graph::mlp_layer random_layer(std::mt19937& rng, std::int32_t in, std::int32_t out, float wscale, graph::activation act) {
  std::normal_distribution<float> nd(0.0f, 1.0f);
  graph::mlp_layer l;
  l.in_features = in;
  l.out_features = out;
  l.weight.resize(static_cast<std::size_t>(in) * static_cast<std::size_t>(out));
  for (auto& v : l.weight) v = nd(rng) * wscale / std::sqrt(static_cast<float>(in));
  if (rng() % 4 != 0) {
    l.bias.resize(static_cast<std::size_t>(out));
    for (auto& v : l.bias) v = nd(rng) * 0.1f;
  }
  l.act = act;
  return l;
}
}  // namespace

TEST_CASE("calibrate_mlp's float pass gives the double reference's ranges on the demo MLP (256-512-256-10)") {
  // The MLP and calibration rows of `armlower demo` (seeds 2026 and 2027).
  const auto layers = graph::demo_mlp(2026);
  const auto x = graph::demo_inputs(2027, 256, 256);
  const auto st = check_all_paths(layers, x, 256);
  CHECK(st.blocks_reference == 0);  // settled by the float pass ...
  CHECK(st.rows_recomputed < 32);   // ... re-running only a few rows in double (what makes it fast)
  MESSAGE("demo MLP: " << st.rows_recomputed << " of 256 calibration rows re-run in double");
  // The default calibration of a 1024x1024 linear (what `armlower lower` uses without --calib).
  std::mt19937 r2(3);
  const std::vector<graph::mlp_layer> one{random_layer(r2, 1024, 1024, 1.0f, graph::activation::none)};
  const auto st1 = check_all_paths(one, graph::default_calibration(1024), 256);
  CHECK(st1.blocks_reference == 0);
  CHECK(st1.rows_recomputed < 32);
}

TEST_CASE("calibrate_mlp's float pass gives the double reference's ranges on random models") {
  std::mt19937 rng(11);
  const graph::activation acts[] = {graph::activation::none, graph::activation::relu, graph::activation::relu6};
  int fast_blocks = 0;
  for (int t = 0; t < 60; ++t) {
    CAPTURE(t);
    const int depth = 1 + static_cast<int>(rng() % 5);
    std::int32_t in = 1 + static_cast<std::int32_t>(rng() % 200);
    const std::int32_t in0 = in;
    const float wscale = std::array{0.01f, 1.0f, 3.0f, 20.0f}[rng() % 4];
    std::vector<graph::mlp_layer> layers;
    for (int i = 0; i < depth; ++i) {
      const std::int32_t out = 1 + static_cast<std::int32_t>(rng() % 150);
      layers.push_back(random_layer(rng, in, out, wscale, acts[rng() % 3]));
      in = out;
    }
    const std::size_t rows = 1 + rng() % 40;
    std::vector<float> x(rows * static_cast<std::size_t>(in0));
    std::normal_distribution<float> nd(0.0f, 2.0f);
    for (auto& v : x) v = nd(rng);
    if (t % 3 == 0 && rows > 2)  // duplicate rows: ties at every extreme
      std::copy(x.begin(), x.begin() + in0, x.end() - in0);
    fast_blocks += check_all_paths(layers, x, rows).blocks_reference == 0;
  }
  // Most are settled by the float pass; deep chains of large weights by the vectorised reference.
  MESSAGE(fast_blocks << " of 60 random models settled by the float pass");
  CHECK(fast_blocks > 30);
  CHECK(fast_blocks < 60);
}

TEST_CASE("calibrate_mlp's float pass: exact ties, all-zero outputs, clamps at 6 and subnormal values") {
  std::mt19937 rng(4);
  // Duplicated weight rows and a ReLU6 that saturates: the maximum 6 is certain, many rows tie.
  auto l0 = random_layer(rng, 37, 70, 30.0f, graph::activation::relu6);
  for (std::size_t k = 0; k < 37; ++k) l0.weight[std::size_t{69} * 37 + k] = l0.weight[k];
  auto l1 = random_layer(rng, 70, 33, 1.0f, graph::activation::relu);
  std::vector<float> x(std::size_t{13} * 37);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (auto& v : x) v = nd(rng);
  CHECK(check_all_paths({l0, l1}, x, 13).blocks_reference == 0);
  // A layer whose outputs are all exactly 0 (zero weights, no bias), then one more.
  graph::mlp_layer z{37, 5, std::vector<float>(std::size_t{37} * 5, 0.0f), {}, graph::activation::none};
  check_all_paths({z, random_layer(rng, 5, 3, 1.0f, graph::activation::none)}, x, 13);
  // Tiny values: products in the subnormal range.
  auto tiny = random_layer(rng, 37, 9, 1.0f, graph::activation::none);
  for (auto& v : tiny.weight) v *= 1e-30f;
  std::vector<float> xt = x;
  for (auto& v : xt) v *= 1e-12f;
  check_all_paths({tiny}, xt, 13);
  // Outputs near FP32's limit: 3e38 is certified by the float pass; FLT_MAX (within the bound of
  // it) is left to the reference, which settles it (an overflow is named by it, see above).
  graph::mlp_layer huge{2, 1, {1e38f, 1e38f}, {}, graph::activation::none};
  CHECK(check_all_paths({huge}, {1.5f, 1.5f, -1.0f, 0.5f}, 2, false).blocks_reference == 0);
  graph::mlp_layer max{2, 1, {0x1.fffffep126f, 0x1.fffffep126f}, {}, graph::activation::none};  // FLT_MAX / 2
  CHECK(check_all_paths({max}, {1.0f, 1.0f, -1.0f, 0.5f}, 2, false).blocks_reference == 1);
}
