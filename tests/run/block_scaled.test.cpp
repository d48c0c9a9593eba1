// FP8 CAST rows and the 1.1-draft block-scaled ops through the interpreter, against an
// independent minifloat model written here from the OCP definitions (decode formula and a
// brute-force nearest-even search over all codes).
#include "run_test_util.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace run_test;

namespace {

struct minifloat {
  int ebits, mbits, bias;
  bool e4m3_nan, ieee_special;  // E4M3: only S.1111.111 is NaN; E5M2: IEEE Inf/NaN
};
constexpr minifloat e4m3{4, 3, 7, true, false};
constexpr minifloat e5m2{5, 2, 15, false, true};
constexpr minifloat e2m1{2, 1, 1, false, false};
constexpr minifloat e2m3{2, 3, 1, false, false};

double decode(const minifloat& f, unsigned code) {
  const unsigned s = (code >> (f.ebits + f.mbits)) & 1;
  const unsigned e = (code >> f.mbits) & ((1u << f.ebits) - 1);
  const unsigned m = code & ((1u << f.mbits) - 1);
  const unsigned emax_code = (1u << f.ebits) - 1;
  if (f.e4m3_nan && e == emax_code && m == (1u << f.mbits) - 1) return std::numeric_limits<double>::quiet_NaN();
  if (f.ieee_special && e == emax_code)
    return m ? std::numeric_limits<double>::quiet_NaN() : (s ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
  const double v = e == 0 ? std::ldexp(m, 1 - f.bias - f.mbits) : std::ldexp((1u << f.mbits) + m, static_cast<int>(e) - f.bias - f.mbits);
  return s ? -v : v;
}

/// Nearest finite code to x (ties: even code), saturating at the largest finite magnitude.
unsigned nearest(const minifloat& f, double x) {
  const unsigned n = 1u << (1 + f.ebits + f.mbits);
  unsigned best = 0;
  double bd = std::numeric_limits<double>::infinity();
  for (unsigned c = 0; c < n; ++c) {
    const double v = decode(f, c);
    if (!std::isfinite(v)) continue;
    if (v == 0.0 && std::signbit(v) != std::signbit(x)) continue;  // keep the sign of zero
    const double d = std::fabs(v - x);
    if (d < bd || (d == bd && (c & 1u) == 0)) {
      bd = d;
      best = c;
    }
  }
  return best;
}

run::result cast(id from, id to, const run::value& v) {
  builder b;
  b.input("x", from, v.shape);
  b.declare("y", to, v.shape);
  b.op(tosa::op::cast, {"x"}, {"y"});
  b.output("y");
  return run::run(b.g, std::vector<run::value>{v});
}

}  // namespace

TEST_CASE("CAST to and from FP8 (OCP non-saturating, RNE)") {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<float> d(-500.0f, 500.0f);
  for (const auto& tf : {std::pair{id::fp8e4m3, e4m3}, std::pair{id::fp8e5m2, e5m2}}) {
    const id t = tf.first;  // (no structured bindings: clang 14 cannot capture them)
    const minifloat f = tf.second;
    CAPTURE(armlower::dtype::name(t));
    std::vector<float> xs(400);
    for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = i < 200 ? d(rng) : d(rng) / 4096.0f;
    const auto r = cast(id::fp32, t, run::from_reals(id::fp32, {400}, xs));
    REQUIRE(r);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double maxf = t == id::fp8e4m3 ? 448.0 : 57344.0;
      const double half_ulp_above = t == id::fp8e4m3 ? 464.0 : 61440.0;
      const unsigned code = r->outputs[0].codes[i];
      if (std::fabs(xs[i]) >= half_ulp_above) {
        CHECK(!std::isfinite(decode(f, code)));  // overflow is NaN (E4M3) / Inf (E5M2), not saturation
      } else {
        CHECK(code == nearest(f, xs[i]));
        CHECK(std::fabs(decode(f, code)) <= maxf);
      }
    }
    // and back: every finite code converts exactly to FP32 and FP16
    std::vector<std::uint8_t> codes;
    for (unsigned c = 0; c < 256; ++c)
      if (std::isfinite(decode(f, c))) codes.push_back(static_cast<std::uint8_t>(c));
    const auto n = static_cast<std::int32_t>(codes.size());
    for (id to : {id::fp32, id::fp16, id::bf16}) {
      const auto back = cast(t, to, run::from_codes(t, {n}, codes));
      REQUIRE(back);
      for (std::size_t i = 0; i < codes.size(); ++i) CHECK(back->outputs[0].reals[i] == decode(f, codes[i]));
    }
  }
  CHECK_FALSE(cast(id::fp8e4m3, id::i8, run::zeros(id::fp8e4m3, {1})));
}

TEST_CASE("CAST_FROM_BLOCK_SCALED: out = element × 2^(scale − 127)") {
  std::mt19937_64 rng(4);
  for (const auto& tf : {std::pair{id::fp4e2m1, e2m1}, std::pair{id::fp6e2m3, e2m3}, std::pair{id::fp8e4m3, e4m3}}) {
    const id t = tf.first;  // (no structured bindings: clang 14 cannot capture them)
    const minifloat f = tf.second;
    CAPTURE(armlower::dtype::name(t));
    const unsigned ncodes = 1u << (1 + f.ebits + f.mbits);
    std::vector<std::uint8_t> codes(std::size_t{2} * 64), scales(std::size_t{2} * 2);
    for (auto& c : codes) {
      do c = static_cast<std::uint8_t>(rng() % ncodes);
      while (!std::isfinite(decode(f, c)));
    }
    for (auto& s : scales) s = static_cast<std::uint8_t>(110 + rng() % 30);
    builder b;
    b.input("x", t, {2, 64});
    b.input("s", id::fp8ue8m0, {2, 2});
    b.declare("y", id::fp32, {2, 64});
    b.op(tosa::op::cast_from_block_scaled, {"x", "s"}, {"y"}, graph::block_scaled_attr{32});
    b.output("y");
    const auto r = run::run(b.g, std::vector<run::value>{run::from_codes(t, {2, 64}, codes), run::from_codes(id::fp8ue8m0, {2, 2}, scales)});
    REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
    for (std::size_t i = 0; i < codes.size(); ++i)
      CHECK(r->outputs[0].reals[i] == static_cast<float>(decode(f, codes[i]) * std::ldexp(1.0, scales[i / 32] - 127)));
    // scale shape must be data shape with last dim / 32
    b.g.find("s")->shape = {2, 1};
    const auto bad = run::run(b.g, std::vector<run::value>{run::from_codes(t, {2, 64}, codes), run::zeros(id::fp8ue8m0, {2, 1})});
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code() == armlower::errc::error_if);
    CHECK(bad.error().where().tensor == "s");
  }
}

TEST_CASE("CAST_TO_BLOCK_SCALED: data is the nearest-even code of x / scale, no block saturates") {
  std::mt19937_64 rng(8);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  for (const auto& tf : {std::pair{id::fp4e2m1, e2m1}, std::pair{id::fp8e4m3, e4m3}, std::pair{id::fp6e2m3, e2m3}}) {
    const id t = tf.first;  // (no structured bindings: clang 14 cannot capture them)
    const minifloat f = tf.second;
    CAPTURE(armlower::dtype::name(t));
    std::vector<float> xs(std::size_t{3} * 64);
    for (auto& x : xs) x = nd(rng);
    for (std::size_t i = 64; i < 96; ++i) xs[i] = 0.0f;  // a zero block
    builder b;
    b.input("x", id::fp32, {3, 64});
    b.declare("d", t, {3, 64});
    b.declare("s", id::fp8ue8m0, {3, 2});
    b.op(tosa::op::cast_to_block_scaled, {"x"}, {"d", "s"}, graph::block_scaled_attr{32});
    b.output("d");
    b.output("s");
    const auto r = run::run(b.g, std::vector<run::value>{run::from_reals(id::fp32, {3, 64}, xs)});
    REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
    const auto& d = r->outputs[0];
    const auto& s = r->outputs[1];
    CHECK(s.codes[2] == 0);  // zero block → smallest scale 2^-127
    double maxf = 0;
    for (unsigned c = 0; c < (1u << (1 + f.ebits + f.mbits)); ++c)
      if (std::isfinite(decode(f, c))) maxf = std::max(maxf, decode(f, c));
    for (std::size_t blk = 0; blk < 6; ++blk) {
      const double scale = std::ldexp(1.0, s.codes[blk] - 127);
      double amax = 0;
      for (std::size_t i = blk * 32; i < blk * 32 + 32; ++i) {
        amax = std::max(amax, std::fabs(static_cast<double>(xs[i])));
        CHECK(d.codes[i] == nearest(f, xs[i] / scale));
      }
      CHECK(amax / scale <= maxf * (1 + std::ldexp(1.0, -f.mbits - 1)));  // within range (no clipping)
      if (amax > 0) CHECK(amax / scale > maxf / 4);  // and the scale is not needlessly large
    }
  }
}

TEST_CASE("block-scaled ERROR_IFs: last dim % 32, block size, scale dtype") {
  builder b;
  b.input("x", id::fp32, {2, 48});
  b.declare("d", id::fp8e4m3, {2, 48});
  b.declare("s", id::fp8ue8m0, {2, 1});
  b.op(tosa::op::cast_to_block_scaled, {"x"}, {"d", "s"}, graph::block_scaled_attr{32});
  b.output("d");
  auto r = run::run(b.g, std::vector<run::value>{run::zeros(id::fp32, {2, 48})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  CHECK(r.error().message().find("multiple of block_size") != std::string::npos);
  b.g.operators[0].attr = graph::block_scaled_attr{16};
  r = run::run(b.g, std::vector<run::value>{run::zeros(id::fp32, {2, 48})});
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("BLOCK_SIZE_32") != std::string::npos);
  b.g.operators[0].attr = {};
  r = run::run(b.g, std::vector<run::value>{run::zeros(id::fp32, {2, 48})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::invalid_graph);
}

TEST_CASE("MATMUL_T_BLOCK_SCALED: per-block fp32 sums times the scale product (pseudocode), B broadcast over N") {
  std::mt19937_64 rng(13);
  for (const auto& tf : {std::pair{id::fp4e2m1, e2m1}, std::pair{id::fp8e4m3, e4m3}, std::pair{id::fp6e2m3, e2m3}}) {
    const id t = tf.first;  // (no structured bindings: clang 14 cannot capture them)
    const minifloat f = tf.second;
    for (std::int32_t D : {1, 2}) {
      CAPTURE(armlower::dtype::name(t));
      CAPTURE(D);
      const std::int32_t N = 2, H = 3, W = 4, C = 64, nb = C / 32;
      const unsigned ncodes = 1u << (1 + f.ebits + f.mbits);
      auto codes = [&](std::size_t n) {
        std::vector<std::uint8_t> v(n);
        for (auto& c : v) {
          do c = static_cast<std::uint8_t>(rng() % ncodes);
          while (!std::isfinite(decode(f, c)));
        }
        return v;
      };
      auto scales = [&](std::size_t n) {
        std::vector<std::uint8_t> v(n);
        for (auto& s : v) s = static_cast<std::uint8_t>(118 + rng() % 18);
        return v;
      };
      const auto ad = codes(static_cast<std::size_t>(N) * H * C), bd = codes(static_cast<std::size_t>(D) * W * C);
      const auto as = scales(static_cast<std::size_t>(N) * H * nb), bs = scales(static_cast<std::size_t>(D) * W * nb);
      builder b;
      b.input("ad", t, {N, H, C});
      b.input("as", id::fp8ue8m0, {N, H, nb});
      b.constant("bd", run::from_codes(t, {D, W, C}, bd));
      b.constant("bs", run::from_codes(id::fp8ue8m0, {D, W, nb}, bs));
      b.declare("y", id::fp32, {N, H, W});
      b.op(tosa::op::matmul_t_block_scaled, {"ad", "as", "bd", "bs"}, {"y"}, graph::block_scaled_attr{32});
      b.output("y");
      const auto r = run::run(b.g, std::vector<run::value>{run::from_codes(t, {N, H, C}, ad), run::from_codes(id::fp8ue8m0, {N, H, nb}, as)});
      REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
      for (std::int32_t n = 0; n < N; ++n)
        for (std::int32_t h = 0; h < H; ++h)
          for (std::int32_t w = 0; w < W; ++w) {
            const std::int32_t d = D == 1 ? 0 : n;
            float acc = 0.0f;
            for (std::int32_t blk = 0; blk < nb; ++blk) {
              const float sa = static_cast<float>(std::ldexp(1.0, as[(static_cast<std::size_t>(n) * H + h) * nb + blk] - 127));
              const float sb = static_cast<float>(std::ldexp(1.0, bs[(static_cast<std::size_t>(d) * W + w) * nb + blk] - 127));
              float sum = 0.0f;
              for (std::int32_t i = 0; i < 32; ++i)
                sum += static_cast<float>(decode(f, ad[(static_cast<std::size_t>(n) * H + h) * C + static_cast<std::size_t>(blk) * 32 + i])) *
                       static_cast<float>(decode(f, bd[(static_cast<std::size_t>(d) * W + w) * C + static_cast<std::size_t>(blk) * 32 + i]));
              acc += sum * (sa * sb);
            }
            REQUIRE(r->outputs[0].reals[(static_cast<std::size_t>(n) * H + h) * W + w] == acc);
          }
      {  // a session: D = 1 packs B once (kernels::mx::pack_b) and later runs read the packing; same bits
        run::session ses(b.g);
        for (int k = 0; k < 3; ++k) {
          const auto rs = ses.run(std::vector<run::value>{run::from_codes(t, {N, H, C}, ad), run::from_codes(id::fp8ue8m0, {N, H, nb}, as)});
          REQUIRE_MESSAGE(rs, (rs ? "" : rs.error().line()));
          REQUIRE(rs->outputs[0].reals.size() == r->outputs[0].reals.size());
          for (std::size_t i = 0; i < rs->outputs[0].reals.size(); ++i)
            CHECK(std::bit_cast<std::uint32_t>(rs->outputs[0].reals[i]) == std::bit_cast<std::uint32_t>(r->outputs[0].reals[i]));
        }
      }
      // D must be 1 or N
      if (D == 2) {
        b.g.find("bd")->shape = {3, W, C};
        b.g.find("bd")->data = graph::encode_codes(t, codes(std::size_t{3} * W * C));
        b.g.find("bs")->shape = {3, W, nb};
        b.g.find("bs")->data = scales(std::size_t{3} * W * nb);
        const auto bad = run::run(b.g, std::vector<run::value>{run::from_codes(t, {N, H, C}, ad), run::from_codes(id::fp8ue8m0, {N, H, nb}, as)});
        REQUIRE_FALSE(bad);
        CHECK(bad.error().where().tensor == "bd");
        CHECK(bad.error().code() == armlower::errc::error_if);
      }
    }
  }
}
