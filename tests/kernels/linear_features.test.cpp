// Compile-time feature sets of the fused linear kernels (`kernels::linear_features`, issue 14 item 4):
// `admits` accepts exactly the argument sets inside a feature set, `linear_s8<F>` / `linear_s16<F>` /
// `linear_s8_prepacked<F>` write the generic path's bytes or refuse with `invalid_attribute`, and a
// Cortex-M plan run with `run_plan<A, F>` (packed and row-major weights) equals the generic path
// layer by layer. The firmware side (MVE/DSP instantiations under QEMU) is tests/firmware/linear_paths.cpp.
#include <armlower/cortex_m/plan.hpp>
#include <armlower/kernels/linear.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace k = armlower::kernels;
namespace cm = armlower::cortex_m;
using armlower::status;
using armlower::dtype::id;

namespace {

constexpr k::linear_features pt = k::per_tensor_features;

struct s8_case {
  std::vector<std::int8_t> x, w, y, y_ref;
  std::vector<std::int32_t> ks, mult, shift;
  k::linear_s8_args a;
};

// A TFLite-style per-tensor layer (kernel_sum, shift ≤ 0, double rounding, symmetric weights).
s8_case make_s8(std::mt19937_64& g, std::int32_t batches, std::int32_t cols, std::int32_t rows) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  s8_case c;
  c.x.resize(static_cast<std::size_t>(batches) * static_cast<std::size_t>(cols));
  c.w.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (auto& v : c.x) v = static_cast<std::int8_t>(u(-128, 127));
  for (auto& v : c.w) v = static_cast<std::int8_t>(u(-128, 127));
  c.y.assign(static_cast<std::size_t>(batches) * static_cast<std::size_t>(rows), 0);
  c.y_ref = c.y;
  c.ks.resize(static_cast<std::size_t>(rows));
  c.mult = {u(1 << 30, 0x7FFFFFFF)};
  c.shift = {u(-12, 0)};
  c.a.batches = batches;
  c.a.cols = cols;
  c.a.rows = rows;
  c.a.input_offset = u(-255, 255);
  c.a.output_offset = u(-128, 127);
  c.a.input = c.x.data();
  c.a.weights = c.w.data();
  c.a.multiplier = c.mult.data();
  c.a.shift = c.shift.data();
  REQUIRE(k::compute_kernel_sum_s8(c.ks.data(), cols, rows, c.w.data(), c.a.input_offset, 0, nullptr) == status::ok);
  for (auto& v : c.ks) v += u(-5000, 5000);
  c.a.kernel_sum = c.ks.data();
  return c;
}

}  // namespace

TEST_CASE("admits: each per_tensor_features restriction refuses exactly its case") {
  std::mt19937_64 g(7);
  s8_case c = make_s8(g, 1, 40, 5);
  CHECK(k::admits(pt, c.a));
  CHECK(k::admits(k::all_features, c.a));
  k::linear_s8_args b = c.a;
  b.rounding = armlower::quant::rounding::single_round;
  CHECK_FALSE(k::admits(pt, b));
  b = c.a;
  b.filter_offset = -3;
  CHECK_FALSE(k::admits(pt, b));
  b = c.a;
  std::int32_t positive = 1;
  b.shift = &positive;
  CHECK_FALSE(k::admits(pt, b));
  b = c.a;
  std::vector<std::int32_t> mults(5, 1 << 30), shifts(5, -3);
  b.per_channel = true;
  b.multiplier = mults.data();
  b.shift = shifts.data();
  CHECK_FALSE(k::admits(pt, b));
  CHECK(k::admits(k::linear_features{true, true, false, false, false, false}, b));
  shifts[4] = 2;  // per-channel left shift: only the last channel
  CHECK_FALSE(k::admits(k::linear_features{true, true, false, false, false, false}, b));
  b = c.a;
  std::vector<std::int32_t> ks = c.ks;
  ks[3] = (1 << 29) + 1;  // the narrow bound
  b.kernel_sum = ks.data();
  CHECK_FALSE(k::admits(pt, b));
  ks[3] = -(1 << 29);
  CHECK(k::admits(pt, b));
  b = c.a;
  b.cols = 8193;
  CHECK_FALSE(k::admits(pt, b));

  k::linear_s16_args s;
  std::array<std::int64_t, 2> bias{(std::int64_t{1} << 46) - 1, -(std::int64_t{1} << 46) + 1};
  std::int32_t m = 1 << 30, sh = -5;
  s.cols = 8;
  s.rows = 2;
  s.bias = bias.data();
  s.multiplier = &m;
  s.shift = &sh;
  CHECK(k::admits(pt, s));
  bias[1] = -(std::int64_t{1} << 46);
  CHECK_FALSE(k::admits(pt, s));
  CHECK(k::admits(k::all_features, s));
}

// pack_weights_s8 is constant-evaluable (a generated plan header can pack at compile time).
constexpr std::array<std::int8_t, std::size_t{16} * 8> packed_3x17_head = [] {
  std::array<std::int8_t, std::size_t{3} * 17> w{};
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>(i + 1);
  std::array<std::int8_t, std::size_t{8} * 32> p{};
  (void)k::pack_weights_s8(w.data(), 3, 17, p.data(), p.size());
  std::array<std::int8_t, std::size_t{16} * 8> head{};
  for (std::size_t i = 0; i < head.size(); ++i) head[i] = p[i];
  return head;
}();
static_assert(packed_3x17_head[0] == 1 && packed_3x17_head[15] == 16);  // row 0, columns 0..15
static_assert(packed_3x17_head[16] == 18 && packed_3x17_head[32] == 35);  // rows 1, 2 start at 17·r + 1
static_assert(packed_3x17_head[48] == 0);                                  // padding row 3

TEST_CASE("linear_s8<F> / linear_s8_prepacked<F> / linear_s16<F> equal the generic path or refuse") {
  std::mt19937_64 g(11);
  for (int i = 0; i < 60; ++i) {
    const std::int32_t batches = 1 + i % 3, cols = 1 + (i * 37) % 300, rows = 1 + (i * 7) % 21;
    s8_case c = make_s8(g, batches, cols, rows);
    c.a.output = c.y_ref.data();
    REQUIRE(k::linear_s8(c.a, k::linear_path::generic) == status::ok);
    c.a.output = c.y.data();
    REQUIRE(k::linear_s8<pt>(c.a) == status::ok);
    CHECK(c.y == c.y_ref);
    std::vector<std::int8_t> packed(k::packed_weights_s8_size(rows, cols));
    REQUIRE(k::pack_weights_s8(c.w.data(), rows, cols, packed.data(), packed.size()) == status::ok);
    std::fill(c.y.begin(), c.y.end(), std::int8_t{0});
    REQUIRE(k::linear_s8_prepacked<pt>(c.a, packed.data(), packed.size()) == status::ok);
    CHECK(c.y == c.y_ref);
    c.a.filter_offset = 1;  // outside per_tensor_features
    CHECK(k::linear_s8<pt>(c.a) == status::invalid_attribute);
    CHECK(k::linear_s8_prepacked<pt>(c.a, packed.data(), packed.size()) == status::invalid_attribute);
  }
  std::vector<std::int16_t> x(64), y(5), y_ref(5);
  std::vector<std::int8_t> w(std::size_t{5} * 64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int16_t>(i * 977 - 30000);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>(i * 31);
  std::array<std::int64_t, 5> bias{1, -(std::int64_t{1} << 40), 77, 0, (std::int64_t{1} << 45)};
  std::int32_t m = 1 << 30, sh = -20;
  k::linear_s16_args s;
  s.input = x.data();
  s.weights = w.data();
  s.bias = bias.data();
  s.batches = 1;
  s.cols = 64;
  s.rows = 5;
  s.multiplier = &m;
  s.shift = &sh;
  s.output = y_ref.data();
  REQUIRE(k::linear_s16(s, k::linear_path::generic) == status::ok);
  s.output = y.data();
  REQUIRE(k::linear_s16<pt>(s) == status::ok);
  CHECK(y == y_ref);
  bias[0] = std::int64_t{1} << 47;
  CHECK(k::linear_s16<pt>(s) == status::invalid_attribute);
}

TEST_CASE("run_plan<INT8, per_tensor_features> with packed weights == run_plan == generic, layer by layer") {
  std::mt19937_64 g(3);
  s8_case l0 = make_s8(g, 2, 24, 19), l1 = make_s8(g, 2, 19, 9);
  std::vector<std::int8_t> packed(k::packed_weights_s8_size(19, 24));
  REQUIRE(k::pack_weights_s8(l0.w.data(), 19, 24, packed.data(), packed.size()) == status::ok);
  const auto to_layer = [](const s8_case& c, const std::int8_t* pw) {
    cm::layer l;
    l.cols = c.a.cols;
    l.rows = c.a.rows;
    l.weights = c.w.data();
    l.packed_weights = pw;
    l.kernel_sum = c.ks.data();
    l.input_offset = c.a.input_offset;
    l.output_offset = c.a.output_offset;
    l.multiplier = c.mult.data();
    l.shift = c.shift.data();
    return l;
  };
  const std::array<cm::layer, 2> layers{to_layer(l0, packed.data()), to_layer(l1, nullptr)};
  const cm::plan p{layers.data(), layers.size(), cm::isa::mve};
  REQUIRE(cm::validate(p) == status::ok);
  CHECK(cm::admits(pt, p));
  // Reference: the generic kernel, layer by layer.
  std::vector<std::int8_t> mid(std::size_t{2} * 19), ref(std::size_t{2} * 9);
  l0.a.output = mid.data();
  REQUIRE(k::linear_s8(l0.a, k::linear_path::generic) == status::ok);
  l1.a.input = mid.data();
  l1.a.output = ref.data();
  REQUIRE(k::linear_s8(l1.a, k::linear_path::generic) == status::ok);
  std::vector<std::byte> scratch(cm::scratch_bytes(p, 2));
  std::vector<std::int8_t> y(std::size_t{2} * 9), y2(std::size_t{2} * 9);
  const auto in = std::as_bytes(std::span(l0.x));
  REQUIRE(cm::run_plan<id::i8, pt>(p, 2, in, std::as_writable_bytes(std::span(y)), scratch) == status::ok);
  CHECK(y == ref);
  // Packed: every s8 layer needs packed weights.
  CHECK(cm::run_plan<id::i8, pt, true>(p, 2, in, std::as_writable_bytes(std::span(y)), scratch) == status::null_pointer);
  std::vector<std::int8_t> packed1(k::packed_weights_s8_size(9, 19));
  REQUIRE(k::pack_weights_s8(l1.w.data(), 9, 19, packed1.data(), packed1.size()) == status::ok);
  std::array<cm::layer, 2> both = layers;
  both[1].packed_weights = packed1.data();
  const cm::plan pp{both.data(), both.size(), cm::isa::mve};
  std::fill(y.begin(), y.end(), std::int8_t{0});
  REQUIRE(cm::run_plan<id::i8, pt, true>(pp, 2, in, std::as_writable_bytes(std::span(y)), scratch) == status::ok);
  CHECK(y == ref);
  REQUIRE(cm::run_plan(p, 2, in, std::as_writable_bytes(std::span(y2)), scratch) == status::ok);
  CHECK(y2 == ref);
  // A per-channel plan is outside per_tensor_features.
  std::array<cm::layer, 2> pc = layers;
  std::vector<std::int32_t> mults(19, 1 << 30), shifts(19, -4);
  pc[0].per_channel = true;
  pc[0].multiplier = mults.data();
  pc[0].shift = shifts.data();
  const cm::plan q{pc.data(), pc.size(), cm::isa::mve};
  CHECK_FALSE(cm::admits(pt, q));
  CHECK(cm::run_plan<id::i8, pt>(q, 2, in, std::as_writable_bytes(std::span(y)), scratch) == status::invalid_attribute);
  // features_of: the smallest set that admits the plan — per_tensor's for p (double rounding, the
  // layers' rounding), + per_channel for q, + left_shift when a shift is > 0; each admits its plan
  // and removing any set flag does not.
  const auto same = [](const k::linear_features& a, const k::linear_features& b) {
    return a.per_channel == b.per_channel && a.double_round == b.double_round && a.single_round == b.single_round &&
           a.left_shift == b.left_shift && a.filter_offset == b.filter_offset && a.wide == b.wide;
  };
  CHECK(same(cm::features_of(p), pt));
  auto fq = pt;
  fq.per_channel = true;
  CHECK(same(cm::features_of(q), fq));
  shifts[3] = 2;
  fq.left_shift = true;
  CHECK(same(cm::features_of(q), fq));
  for (const cm::plan* x : {&p, &q}) {
    const auto f = cm::features_of(*x);
    CHECK(cm::admits(f, *x));
    for (bool k::linear_features::*m : {&k::linear_features::per_channel, &k::linear_features::double_round,
                                        &k::linear_features::left_shift, &k::linear_features::wide}) {
      if (!(f.*m)) continue;
      auto g2 = f;
      g2.*m = false;
      CHECK_FALSE(cm::admits(g2, *x));
    }
  }
}

// A packed s8 layer is self-sufficient (issue 14 item 4: generated MVE plans hold only the packed copy):
// `linear_s8_prepacked` with `weights = nullptr` computes from the `pack_weights_s8` layout alone on
// every host path — the packed AVX2 kernel where the CPU has AVX2, the generic packed kernel
// (`detail::linear_s8_packed_generic`) — and equals the generic path on the row-major weights, for
// every argument form: kernel_sum or bias (row sums from the packed rows), input/filter offsets,
// per-channel, both roundings, column blocks beyond 8192 (the exact int32 partial sums).
TEST_CASE("linear_s8_prepacked with weights = nullptr equals linear_s8 on the row-major weights") {
  std::mt19937_64 g(23);
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  for (int i = 0; i < 80; ++i) {
    const std::int32_t batches = 1 + i % 3, rows = 1 + (i * 5) % 27;
    const std::int32_t cols = i == 79 ? 9000 : 1 + (i * 41) % 200;
    s8_case c = make_s8(g, batches, cols, rows);
    std::vector<std::int32_t> bias(static_cast<std::size_t>(rows)), mults(static_cast<std::size_t>(rows)),
        shifts(static_cast<std::size_t>(rows));
    for (auto& v : bias) v = u(-100000, 100000);
    for (auto& v : mults) v = u(1 << 30, 0x7FFFFFFF);
    for (auto& v : shifts) v = u(-14, 2);
    if (i % 2 == 1) {  // the bias form: the row constants need Σw of each (packed) row
      c.a.kernel_sum = nullptr;
      c.a.bias = i % 4 == 1 ? bias.data() : nullptr;
    }
    if (i % 3 == 1) c.a.filter_offset = u(-255, 255);
    if (i % 5 == 2) {
      c.a.per_channel = true;
      c.a.multiplier = mults.data();
      c.a.shift = shifts.data();
    }
    if (i % 7 == 3) c.a.rounding = armlower::quant::rounding::single_round;
    CAPTURE(i);
    c.a.output = c.y_ref.data();
    REQUIRE(k::linear_s8(c.a, k::linear_path::generic) == status::ok);
    std::vector<std::int8_t> packed(k::packed_weights_s8_size(rows, cols));
    REQUIRE(k::pack_weights_s8(c.w.data(), rows, cols, packed.data(), packed.size()) == status::ok);
    k::linear_s8_args a = c.a;
    a.weights = nullptr;
    a.output = c.y.data();
    CHECK(k::validate(a) == status::null_pointer);  // the row-major entries still need the weights
    REQUIRE(k::linear_s8_prepacked(a, packed.data(), packed.size()) == status::ok);
    CHECK(c.y == c.y_ref);
    std::fill(c.y.begin(), c.y.end(), std::int8_t{0});
    REQUIRE(k::linear_s8_prepacked<k::all_features>(a, packed.data(), packed.size()) == status::ok);
    CHECK(c.y == c.y_ref);
    std::fill(c.y.begin(), c.y.end(), std::int8_t{0});
    k::detail::linear_s8_packed_generic(a, packed.data());
    CHECK(c.y == c.y_ref);
    CHECK(k::linear_s8_prepacked(a, nullptr, packed.size()) == status::null_pointer);
    CHECK(k::linear_s8_prepacked(a, packed.data(), packed.size() - 1) == status::scratch_too_small);
  }
}

// cortex_m::validate in constant evaluation (a generated header's static_assert): an s8 layer needs
// `weights` or `packed_weights` (either suffices), an s16 layer `weights`.
namespace {
constexpr std::int32_t one_mult[1] = {1 << 30}, one_shift[1] = {-3};
constexpr std::int8_t four_w[4] = {1, -2, 3, -4};
constexpr std::int8_t packed_w[128] = {1, -2};
constexpr cm::layer no_weights[1] = {{.kind = cm::layer_kind::linear_s8, .cols = 2, .rows = 2, .multiplier = one_mult,
                                      .shift = one_shift}};
constexpr cm::layer row_major[1] = {{.kind = cm::layer_kind::linear_s8, .cols = 2, .rows = 2, .weights = four_w,
                                     .multiplier = one_mult, .shift = one_shift}};
constexpr cm::layer packed_only[1] = {{.kind = cm::layer_kind::linear_s8, .cols = 2, .rows = 2, .weights = nullptr,
                                       .packed_weights = packed_w, .multiplier = one_mult, .shift = one_shift}};
constexpr cm::layer s16_packed_only[1] = {{.kind = cm::layer_kind::linear_s16, .cols = 2, .rows = 2, .weights = nullptr,
                                           .packed_weights = packed_w, .multiplier = one_mult, .shift = one_shift}};
static_assert(cm::validate(cm::plan{no_weights, 1, cm::isa::dsp}) == status::null_pointer);
static_assert(cm::validate(cm::plan{row_major, 1, cm::isa::dsp}) == status::ok);
static_assert(cm::validate(cm::plan{packed_only, 1, cm::isa::mve}) == status::ok);
}  // namespace

TEST_CASE("cortex_m::validate at run time: s8 layers need weights or packed_weights, s16 layers weights") {
  CHECK(cm::validate(cm::plan{no_weights, 1, cm::isa::dsp}) == status::null_pointer);
  CHECK(cm::validate(cm::plan{row_major, 1, cm::isa::dsp}) == status::ok);
  CHECK(cm::validate(cm::plan{packed_only, 1, cm::isa::mve}) == status::ok);
  CHECK(cm::validate(cm::plan{s16_packed_only, 1, cm::isa::dsp}) == status::null_pointer);
}
