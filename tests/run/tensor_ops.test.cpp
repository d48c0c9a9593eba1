// CONV2D, MATMUL, RESCALE through the interpreter (which calls armlower's kernels) against the
// TOSA 1.0 pseudocode re-written independently here (explicit loops, 128-bit arithmetic).
#include "run_test_util.hpp"

#include <doctest/doctest.h>

using namespace run_test;

namespace {

struct conv_case {
  std::int32_t n, ih, iw, ic, oc, kh, kw;
  std::array<std::int32_t, 4> pad;
  std::array<std::int32_t, 2> stride, dilation;
};

// TOSA CONV2D pseudocode (tosa.md §3.2): padding contributes 0, out = acc + bias.
std::vector<std::int64_t> conv2d_ref(const conv_case& k, const run::value& x, const run::value& w, const run::value& b,
                                     std::int64_t izp, std::int64_t wzp, std::int32_t oh, std::int32_t ow) {
  std::vector<std::int64_t> out;
  for (std::int32_t n = 0; n < k.n; ++n)
    for (std::int32_t oy = 0; oy < oh; ++oy)
      for (std::int32_t ox = 0; ox < ow; ++ox)
        for (std::int32_t oc = 0; oc < k.oc; ++oc) {
          __int128 acc = 0;
          for (std::int32_t ky = 0; ky < k.kh; ++ky)
            for (std::int32_t kx = 0; kx < k.kw; ++kx)
              for (std::int32_t ic = 0; ic < k.ic; ++ic) {
                const std::int32_t y = oy * k.stride[0] - k.pad[0] + ky * k.dilation[0];
                const std::int32_t xx = ox * k.stride[1] - k.pad[2] + kx * k.dilation[1];
                if (y < 0 || y >= k.ih || xx < 0 || xx >= k.iw) continue;
                const auto v = x.ints[((static_cast<std::size_t>(n) * k.ih + y) * k.iw + xx) * k.ic + ic] - izp;
                const auto wv = w.ints[((static_cast<std::size_t>(oc) * k.kh + ky) * k.kw + kx) * k.ic + ic] - wzp;
                acc += static_cast<__int128>(v) * wv;
              }
          acc += b.ints[b.ints.size() == 1 ? 0 : static_cast<std::size_t>(oc)];
          out.push_back(static_cast<std::int64_t>(acc));
        }
  return out;
}

}  // namespace

TEST_CASE("CONV2D i8xi8->i32 and i16xi8->i48: pads, strides, dilations, zero points, bias broadcast") {
  std::mt19937_64 rng(31);
  const conv_case cases[] = {
      {1, 1, 1, 16, 8, 1, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {2, 5, 7, 3, 4, 3, 3, {1, 1, 1, 1}, {2, 2}, {1, 1}},
      {1, 6, 7, 5, 3, 2, 3, {0, 1, 2, 0}, {1, 3}, {2, 1}},
      {3, 4, 1, 33, 2, 1, 1, {0, 0, 0, 0}, {1, 1}, {1, 1}},
  };
  for (const auto& k : cases) {
    for (bool wide : {false, true}) {
      CAPTURE(k.ih);
      CAPTURE(wide);
      const id in_t = wide ? id::i16 : id::i8, out_t = wide ? id::i48 : id::i32;
      const std::int32_t oh = (k.ih - 1 + k.pad[0] + k.pad[1] - (k.kh - 1) * k.dilation[0]) / k.stride[0] + 1;
      const std::int32_t ow = (k.iw - 1 + k.pad[2] + k.pad[3] - (k.kw - 1) * k.dilation[1]) / k.stride[1] + 1;
      const std::int64_t izp = wide ? 0 : -7, wzp = wide ? 0 : 3;
      const std::int32_t bc = k.oc == 3 ? 1 : k.oc;
      const auto& ti = armlower::dtype::traits(in_t);
      const auto x = run::from_ints(in_t, {k.n, k.ih, k.iw, k.ic}, random_ints(rng, static_cast<std::size_t>(k.n) * k.ih * k.iw * k.ic, ti.int_min, ti.int_max));
      const auto w = run::from_ints(id::i8, {k.oc, k.kh, k.kw, k.ic}, random_ints(rng, static_cast<std::size_t>(k.oc) * k.kh * k.kw * k.ic, -127, 127));
      const auto b = run::from_ints(out_t, {bc}, random_ints(rng, static_cast<std::size_t>(bc), wide ? -(1LL << 40) : -(1 << 20), wide ? (1LL << 40) : (1 << 20)));
      builder g;
      g.input("x", in_t, x.shape);
      g.constant("w", w);
      g.constant("b", b);
      g.ints("izp", in_t, {1}, {izp});
      g.ints("wzp", id::i8, {1}, {wzp});
      g.declare("y", out_t, {k.n, oh, ow, k.oc});
      g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"}, graph::conv2d_attr{k.pad, k.stride, k.dilation, out_t, false});
      g.output("y");
      const auto r = run::run(g.g, std::vector<run::value>{x});
      REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
      CHECK(r->outputs[0].ints == conv2d_ref(k, x, w, b, izp, wzp, oh, ow));
    }
  }
}

TEST_CASE("CONV2D ERROR_IFs and REQUIREs") {
  auto make = [](id in_t, id out_t, std::vector<std::int32_t> out_shape, graph::conv2d_attr a, std::int64_t izp) {
    builder g;
    g.input("x", in_t, {1, 4, 4, 2});
    g.constant("w", run::from_ints(id::i8, {3, 2, 2, 2}, std::vector<std::int64_t>(24, 1)));
    g.constant("b", run::zeros(out_t, {3}));
    g.ints("izp", in_t, {1}, {izp});
    g.ints("wzp", id::i8, {1}, {0});
    g.declare("y", out_t, std::move(out_shape));
    g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"}, a);
    g.output("y");
    return g;
  };
  auto run_it = [](const builder& g, id in_t) {
    return run::run(g.g, std::vector<run::value>{run::zeros(in_t, {1, 4, 4, 2})});
  };
  graph::conv2d_attr ok{};
  CHECK(run_it(make(id::i8, id::i32, {1, 3, 3, 3}, ok, 5), id::i8));
  auto r = run_it(make(id::i8, id::i32, {1, 3, 3, 3}, graph::conv2d_attr{{0, 0, 0, 0}, {2, 2}, {1, 1}, id::i32, false}, 0), id::i8);
  REQUIRE_FALSE(r);  // (4 - 1 - 1) / 2 is exact → 2, but the declared shape says 3
  CHECK(r.error().code() == armlower::errc::error_if);
  r = run_it(make(id::i8, id::i32, {1, 2, 2, 3}, graph::conv2d_attr{{0, 0, 0, 0}, {2, 2}, {1, 1}, id::i32, false}, 0), id::i8);
  CHECK(r);
  r = run_it(make(id::i8, id::i32, {1, 3, 3, 3}, graph::conv2d_attr{{0, 1, 0, 0}, {2, 2}, {1, 1}, id::i32, false}, 0), id::i8);
  REQUIRE_FALSE(r);  // (4 - 1 + 1 - 1) = 3 not divisible by 2
  CHECK(r.error().message().find("divisible") != std::string::npos);
  r = run_it(make(id::i16, id::i48, {1, 3, 3, 3}, graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i48, false}, 1), id::i16);
  REQUIRE_FALSE(r);  // INT16 input_zp must be 0
  CHECK(r.error().where().tensor == "izp");
  r = run_it(make(id::i16, id::i48, {1, 3, 3, 3}, ok, 0), id::i16);  // acc_type INT32 for the INT48 row
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("acc_type") != std::string::npos);
  r = run_it(make(id::i8, id::i32, {1, 3, 3, 3}, graph::conv2d_attr{{-1, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false}, 0), id::i8);
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("pads") != std::string::npos);
  {  // accumulator overflow of INT32 is a REQUIRE
    builder g;
    g.input("x", id::i8, {1, 1, 1, 4});
    g.constant("w", run::from_ints(id::i8, {1, 1, 1, 4}, {-128, -128, -128, -128}));
    g.constant("b", run::from_ints(id::i32, {1}, {2147483647 - 30000}));
    g.ints("izp", id::i8, {1}, {0});
    g.ints("wzp", id::i8, {1}, {0});
    g.declare("y", id::i32, {1, 1, 1, 1});
    g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"}, ok);
    g.output("y");
    r = run::run(g.g, std::vector<run::value>{run::from_ints(id::i8, {1, 1, 1, 4}, {-128, -128, -128, -128})});
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == armlower::errc::require);
  }
}

TEST_CASE("MATMUL i8 (zero points) and i16 -> i48 against the pseudocode") {
  std::mt19937_64 rng(41);
  for (bool wide : {false, true}) {
    const id t = wide ? id::i16 : id::i8, out_t = wide ? id::i48 : id::i32;
    const auto& ti = armlower::dtype::traits(t);
    const std::int32_t N = 2, H = 3, C = 37, W = 5;
    const auto a = run::from_ints(t, {N, H, C}, random_ints(rng, static_cast<std::size_t>(N) * H * C, ti.int_min, ti.int_max));
    const auto b = run::from_ints(t, {N, C, W}, random_ints(rng, static_cast<std::size_t>(N) * C * W, ti.int_min, ti.int_max));
    const std::int64_t azp = wide ? 0 : 12, bzp = wide ? 0 : -9;
    builder g;
    g.input("a", t, a.shape);
    g.input("b", t, b.shape);
    g.ints("azp", t, {1}, {azp});
    g.ints("bzp", t, {1}, {bzp});
    g.declare("y", out_t, {N, H, W});
    g.op(tosa::op::matmul, {"a", "b", "azp", "bzp"}, {"y"});
    g.output("y");
    const auto r = run::run(g.g, std::vector<run::value>{a, b});
    REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
    for (std::int32_t n = 0; n < N; ++n)
      for (std::int32_t h = 0; h < H; ++h)
        for (std::int32_t w = 0; w < W; ++w) {
          std::int64_t acc = 0;
          for (std::int32_t c = 0; c < C; ++c)
            acc += (a.ints[(static_cast<std::size_t>(n) * H + h) * C + c] - azp) * (b.ints[(static_cast<std::size_t>(n) * C + c) * W + w] - bzp);
          REQUIRE(r->outputs[0].ints[static_cast<std::size_t>((n * H + h) * W + w)] == acc);
        }
    // B with the wrong C is an ERROR_IF naming B
    g.g.find("b")->shape = {N, C + 1, W};
    const auto bad = run::run(g.g, std::vector<run::value>{a, run::zeros(t, {N, C + 1, W})});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().where().tensor == "b");
  }
}

namespace {
// TOSA RESCALE pseudocode with apply_scale_32 / apply_scale_16 (tosa.md §3.4), signed in/out.
std::int64_t rescale_ref(std::int64_t v, std::int64_t izp, std::int64_t m, std::int64_t s, bool scale32, bool dbl,
                         std::int64_t ozp, std::int64_t lo, std::int64_t hi) {
  const __int128 x = v - izp;
  __int128 round = static_cast<__int128>(1) << (s - 1);
  if (scale32 && dbl && s > 31) round += x >= 0 ? (1 << 30) : -(1 << 30);
  __int128 r = (x * m + round) >> s;
  r += ozp;
  return static_cast<std::int64_t>(r < lo ? lo : r > hi ? hi : r);
}
}  // namespace

TEST_CASE("RESCALE: per-channel / per-tensor, scale32 SINGLE and DOUBLE, 16-bit from INT48") {
  std::mt19937_64 rng(51);
  struct rc {
    id in_t, out_t;
    bool scale32, per_channel;
    tosa::rounding_mode rm;
  };
  const rc cases[] = {
      {id::i32, id::i8, true, true, tosa::rounding_mode::single_round},
      {id::i32, id::i8, true, false, tosa::rounding_mode::double_round},
      {id::i48, id::i16, false, true, tosa::rounding_mode::single_round},
      {id::i8, id::i32, true, false, tosa::rounding_mode::single_round},
      {id::i16, id::i8, false, false, tosa::rounding_mode::single_round},
  };
  for (const auto& k : cases) {
    CAPTURE(armlower::dtype::name(k.in_t));
    const std::int32_t C = 6;
    const std::int32_t nc = k.per_channel ? C : 1;
    const auto& ti = armlower::dtype::traits(k.in_t);
    const auto& to = armlower::dtype::traits(k.out_t);
    const std::int64_t lim = k.in_t == id::i48 ? (1LL << 40) : ti.int_max;
    const auto x = run::from_ints(k.in_t, {4, C}, random_ints(rng, std::size_t{4} * C, -lim, lim));
    auto mult = random_ints(rng, static_cast<std::size_t>(nc), k.scale32 ? (1 << 30) : (1 << 14), k.scale32 ? (1LL << 31) - 1 : (1 << 15) - 1);
    // shifts keep apply_scale's REQUIREs satisfied: |value| < 2^(shift-1), result fits int32
    const std::int64_t smin = k.in_t == id::i32 ? 32 : k.in_t == id::i48 ? 42 : k.scale32 ? 30 : 14;
    auto shift = random_ints(rng, static_cast<std::size_t>(nc), smin, smin + 12);
    const std::int64_t izp = k.in_t == id::i8 ? -3 : 0, ozp = k.out_t == id::i8 ? 4 : 0;
    builder g;
    g.input("x", k.in_t, x.shape);
    g.ints("m", k.scale32 ? id::i32 : id::i16, {nc}, mult);
    g.ints("s", id::i8, {nc}, shift);
    g.ints("izp", k.in_t, {1}, {izp});
    g.ints("ozp", k.out_t, {1}, {ozp});
    g.declare("y", k.out_t, x.shape);
    g.op(tosa::op::rescale, {"x", "m", "s", "izp", "ozp"}, {"y"}, graph::rescale_attr{k.scale32, k.rm, k.per_channel, false, false});
    g.output("y");
    const auto r = run::run(g.g, std::vector<run::value>{x});
    REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
    for (std::size_t i = 0; i < x.ints.size(); ++i) {
      const std::size_t c = k.per_channel ? i % C : 0;
      REQUIRE(r->outputs[0].ints[i] == rescale_ref(x.ints[i], izp, mult[c], shift[c], k.scale32,
                                                  k.rm == tosa::rounding_mode::double_round, ozp, to.int_min, to.int_max));
    }
  }
}

TEST_CASE("RESCALE errors: scale32 with INT48, multiplier dtype, shift range, per-channel shape") {
  auto make = [](id in_t, bool scale32, id mult_t, const std::vector<std::int64_t>& shift, bool per_channel) {
    builder g;
    g.input("x", in_t, {2, 3});
    const auto n = static_cast<std::int32_t>(shift.size());
    g.ints("m", mult_t, {n}, std::vector<std::int64_t>(shift.size(), 1 << 14));
    g.ints("s", id::i8, {n}, shift);
    g.ints("izp", in_t, {1}, {0});
    g.ints("ozp", id::i8, {1}, {0});
    g.declare("y", id::i8, {2, 3});
    g.op(tosa::op::rescale, {"x", "m", "s", "izp", "ozp"}, {"y"},
         graph::rescale_attr{scale32, tosa::rounding_mode::single_round, per_channel, false, false});
    g.output("y");
    return g;
  };
  auto go = [](const builder& g, id in_t) { return run::run(g.g, std::vector<run::value>{run::zeros(in_t, {2, 3})}); };
  CHECK(go(make(id::i32, true, id::i32, {20}, false), id::i32));
  auto r = go(make(id::i48, true, id::i32, {20}, false), id::i48);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  r = go(make(id::i32, false, id::i32, {20}, false), id::i32);
  REQUIRE_FALSE(r);
  CHECK(r.error().where().tensor == "m");
  r = go(make(id::i32, true, id::i32, {1}, false), id::i32);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::require);
  r = go(make(id::i32, true, id::i32, {20, 20}, true), id::i32);
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("[3]") != std::string::npos);
  auto g = make(id::i32, true, id::i32, {20}, false);
  g.g.find("ozp")->data = graph::encode_ints(id::i8, std::vector<std::int64_t>{0});
  g.g.find("izp")->data = graph::encode_ints(id::i32, std::vector<std::int64_t>{5});
  r = go(g, id::i32);
  REQUIRE_FALSE(r);  // input_zp must be 0 for INT32 input
  CHECK(r.error().code() == armlower::errc::error_if);
}
