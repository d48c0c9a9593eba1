// Per-op tests of the interpreter's own ops (RESHAPE, TRANSPOSE, ADD, MUL, CLAMP, CAST)
// against the TOSA 1.0 pseudocode, re-written independently here with explicit
// multi-dimensional indexing, on small random shapes.
#include "run_test_util.hpp"

#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cmath>
#include <limits>

using namespace run_test;

namespace {

run::result run1(const builder& b, std::vector<run::value> in) { return run::run(b.g, in); }

std::int64_t at4(const run::value& v, std::array<std::int32_t, 4> i) {
  // index of a rank-4 value, with TOSA broadcasting (dims of size 1 read index 0)
  std::int64_t off = 0;
  for (std::size_t d = 0; d < 4; ++d) off = off * v.shape[d] + (v.shape[d] == 1 ? 0 : i[d]);
  return off;
}

std::vector<std::int32_t> random_shape(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(1, 4);
  return {d(rng), d(rng), d(rng), d(rng)};
}

}  // namespace

TEST_CASE("ADD broadcasts equal-rank shapes (INT32, pseudocode with index_to_coordinates)") {
  std::mt19937_64 rng(11);
  for (int iter = 0; iter < 50; ++iter) {
    auto out = random_shape(rng);
    auto sa = out, sb = out;
    for (std::size_t d = 0; d < 4; ++d) {
      if (rng() % 3 == 0) sa[d] = 1;
      else if (rng() % 3 == 0) sb[d] = 1;
    }
    std::vector<std::int32_t> so(4);
    for (std::size_t d = 0; d < 4; ++d) so[d] = std::max(sa[d], sb[d]);
    builder b;
    b.input("a", id::i32, sa);
    b.input("b", id::i32, sb);
    b.declare("y", id::i32, so);
    b.op(tosa::op::add, {"a", "b"}, {"y"});
    b.output("y");
    const auto va = run::from_ints(id::i32, sa, random_ints(rng, graph::element_count(sa), -(1 << 30), 1 << 30));
    const auto vb = run::from_ints(id::i32, sb, random_ints(rng, graph::element_count(sb), -(1 << 30), 1 << 30));
    const auto r = run1(b, {va, vb});
    REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
    const auto& y = r->outputs[0];
    CHECK(y.shape == so);
    std::int64_t k = 0;
    for (std::int32_t n = 0; n < so[0]; ++n)
      for (std::int32_t h = 0; h < so[1]; ++h)
        for (std::int32_t w = 0; w < so[2]; ++w)
          for (std::int32_t c = 0; c < so[3]; ++c, ++k)
            REQUIRE(y.ints[static_cast<std::size_t>(k)] ==
                    va.ints[static_cast<std::size_t>(at4(va, {n, h, w, c}))] +
                        vb.ints[static_cast<std::size_t>(at4(vb, {n, h, w, c}))]);
  }
}

TEST_CASE("ADD errors: overflow is a REQUIRE, rank mismatch and non-broadcastable shapes are ERROR_IFs") {
  builder b;
  b.input("a", id::i32, {2});
  b.input("b", id::i32, {2});
  b.declare("y", id::i32, {2});
  b.op(tosa::op::add, {"a", "b"}, {"y"});
  b.output("y");
  auto r = run1(b, {run::from_ints(id::i32, {2}, {2147483647, 1}), run::from_ints(id::i32, {2}, {1, 1})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::require);
  CHECK(r.error().where().op_index == 0);
  CHECK(r.error().where().op == "ADD");
  CHECK(r.error().line().find("overflows INT32") != std::string::npos);

  builder b2;
  b2.input("a", id::i32, {2, 3});
  b2.input("b", id::i32, {3, 3});
  b2.declare("y", id::i32, {3, 3});
  b2.op(tosa::op::add, {"a", "b"}, {"y"});
  b2.output("y");
  r = run1(b2, {run::zeros(id::i32, {2, 3}), run::zeros(id::i32, {3, 3})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  CHECK(r.error().where().tensor == "b");
  CHECK(r.error().message().find("do not broadcast") != std::string::npos);

  builder b3;
  b3.input("a", id::i32, {3});
  b3.input("b", id::i32, {1, 3});
  b3.declare("y", id::i32, {1, 3});
  b3.op(tosa::op::add, {"a", "b"}, {"y"});
  b3.output("y");
  r = run1(b3, {run::zeros(id::i32, {3}), run::zeros(id::i32, {1, 3})});
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("rank") != std::string::npos);

  builder b4;  // declared result shape wrong
  b4.input("a", id::i32, {3});
  b4.input("b", id::i32, {1});
  b4.declare("y", id::i32, {1});
  b4.op(tosa::op::add, {"a", "b"}, {"y"});
  b4.output("y");
  r = run1(b4, {run::zeros(id::i32, {3}), run::zeros(id::i32, {1})});
  REQUIRE_FALSE(r);
  CHECK(r.error().where().tensor == "y");

  builder b5;  // INT8 ADD is not a 1.0 row
  b5.input("a", id::i8, {1});
  b5.input("b", id::i8, {1});
  b5.declare("y", id::i8, {1});
  b5.op(tosa::op::add, {"a", "b"}, {"y"});
  b5.output("y");
  r = run1(b5, {run::zeros(id::i8, {1}), run::zeros(id::i8, {1})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::unsupported);
}

TEST_CASE("ADD of floats rounds the exact sum once (FP32, FP16, BF16)") {
  for (id t : {id::fp32, id::fp16, id::bf16}) {
    CAPTURE(armlower::dtype::name(t));
    builder b;
    b.input("a", t, {1, 4});
    b.input("b", t, {3, 1});
    b.declare("y", t, {3, 4});
    b.op(tosa::op::add, {"a", "b"}, {"y"});
    b.output("y");
    const auto va = run::from_reals(t, {1, 4}, {1.0f, -2.5f, 1e-3f, 100.0f});
    const auto vb = run::from_reals(t, {3, 1}, {0.5f, 1e-4f, -100.0f});
    const auto r = run1(b, {va, vb});
    REQUIRE(r);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        const double exact = static_cast<double>(va.reals[static_cast<std::size_t>(j)]) + vb.reals[static_cast<std::size_t>(i)];
        // the result is the representable value nearest the exact sum: no value of t lies closer
        const float got = r->outputs[0].reals[static_cast<std::size_t>(i) * 4 + j];
        CHECK(std::fabs(got - exact) <= std::fabs(exact) * (t == id::fp32 ? 0x1p-24 : t == id::fp16 ? 0x1p-11 : 0x1p-8) + 1e-30);
      }
  }
}

TEST_CASE("MUL: INT32 with shift rounds (a*b + 2^(s-1)) >> s; INT8/INT16 give INT32; shift rules") {
  std::mt19937_64 rng(5);
  for (std::int64_t shift : {0, 1, 7, 31, 40}) {
    CAPTURE(shift);
    builder b;
    b.input("a", id::i32, {64});
    b.input("b", id::i32, {64});
    b.ints("s", id::i8, {1}, {shift});
    b.declare("y", id::i32, {64});
    b.op(tosa::op::mul, {"a", "b", "s"}, {"y"});
    b.output("y");
    const std::int64_t lim = shift == 0 ? 40000 : (std::int64_t{1} << 31) - 1;
    const auto va = run::from_ints(id::i32, {64}, random_ints(rng, 64, -lim, lim));
    const auto vb = run::from_ints(id::i32, {64}, random_ints(rng, 64, -(1 << 15), 1 << 15));
    const auto r = run1(b, {va, vb});
    bool any_overflow = false;
    std::vector<std::int64_t> ref(64);
    for (std::size_t i = 0; i < 64; ++i) {
      __int128 p = static_cast<__int128>(va.ints[i]) * vb.ints[i];
      if (shift > 0) p = (p + (static_cast<__int128>(1) << (shift - 1))) >> shift;
      if (p < INT32_MIN || p > INT32_MAX) any_overflow = true;
      ref[i] = static_cast<std::int64_t>(p);
    }
    if (any_overflow) {
      REQUIRE_FALSE(r);
      CHECK(r.error().code() == armlower::errc::require);
    } else {
      REQUIRE(r);
      CHECK(r->outputs[0].ints == ref);
    }
  }
  for (id t : {id::i8, id::i16}) {
    builder b;
    b.input("a", t, {3});
    b.input("b", t, {1});
    b.ints("s", id::i8, {1}, {0});
    b.declare("y", id::i32, {3});
    b.op(tosa::op::mul, {"a", "b", "s"}, {"y"});
    b.output("y");
    const auto lo = armlower::dtype::traits(t).int_min;
    const auto r = run1(b, {run::from_ints(t, {3}, {lo, -1, 5}), run::from_ints(t, {1}, {lo})});
    REQUIRE(r);
    CHECK(r->outputs[0].ints == std::vector<std::int64_t>{lo * lo, -lo, 5 * lo});
    builder b2 = b;  // non-zero shift with INT8/INT16 is a REQUIRE (unpredictable)
    b2.g.find("s")->data = graph::encode_ints(id::i8, std::vector<std::int64_t>{3});
    const auto r2 = run1(b2, {run::from_ints(t, {3}, {1, 2, 3}), run::from_ints(t, {1}, {2})});
    REQUIRE_FALSE(r2);
    CHECK(r2.error().code() == armlower::errc::require);
    CHECK(r2.error().where().tensor == "s");
  }
  {  // shift out of 0..63 is a REQUIRE; a non-constant shift is an ERROR_IF without EXT-DYNAMIC
    builder b;
    b.input("a", id::i32, {1});
    b.input("b", id::i32, {1});
    b.input("s", id::i8, {1});
    b.declare("y", id::i32, {1});
    b.op(tosa::op::mul, {"a", "b", "s"}, {"y"});
    b.output("y");
    const std::vector<run::value> in{run::from_ints(id::i32, {1}, {3}), run::from_ints(id::i32, {1}, {5}),
                                     run::from_ints(id::i8, {1}, {64})};
    auto r = run::run(b.g, in);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find("compile-time constant") != std::string::npos);
    r = run::run(b.g, in, run::options{.dynamic = true});
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == armlower::errc::require);
    CHECK(r.error().message().find("0..63") != std::string::npos);
  }
}

TEST_CASE("MUL INT64 (1.1, EXT-INT64): low 64 bits of the product (apply_mul_s), broadcast; shift must be 0") {
  std::mt19937_64 rng(11);
  builder b;
  b.input("a", id::i64, {2, 1, 3, 4});
  b.input("b", id::i64, {1, 3, 3, 1});
  b.ints("s", id::i8, {1}, {0});
  b.declare("y", id::i64, {2, 3, 3, 4});
  b.op(tosa::op::mul, {"a", "b", "s"}, {"y"});
  b.output("y");
  // Full-range operands (most products wrap) plus the extremes.
  std::vector<std::int64_t> xa(24), xb(9);
  for (auto& v : xa) v = static_cast<std::int64_t>(rng());
  for (auto& v : xb) v = static_cast<std::int64_t>(rng() >> (rng() % 64));
  xa[0] = std::numeric_limits<std::int64_t>::min();
  xa[1] = std::numeric_limits<std::int64_t>::max();
  xa[2] = 3;
  xb[0] = -1;
  const auto va = run::from_ints(id::i64, {2, 1, 3, 4}, xa);
  const auto vb = run::from_ints(id::i64, {1, 3, 3, 1}, xb);
  const auto r = run1(b, {va, vb});
  REQUIRE(r);
  const auto& y = r->outputs[0];
  CHECK(y.type == id::i64);
  REQUIRE(y.shape == std::vector<std::int32_t>{2, 3, 3, 4});
  std::size_t k = 0;
  for (std::int32_t n = 0; n < 2; ++n)
    for (std::int32_t h = 0; h < 3; ++h)
      for (std::int32_t w = 0; w < 3; ++w)
        for (std::int32_t c = 0; c < 4; ++c, ++k) {
          const __int128 p = static_cast<__int128>(va.ints[static_cast<std::size_t>(at4(va, {n, h, w, c}))]) *
                             vb.ints[static_cast<std::size_t>(at4(vb, {n, h, w, c}))];
          // low 64 bits of the exact 128-bit product, read as two's complement
          const auto low = static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<unsigned __int128>(p)));
          CAPTURE(k);
          CHECK(y.ints[k] == low);
        }
  CHECK(y.ints[0] == std::numeric_limits<std::int64_t>::min());  // INT64_MIN × -1 wraps to itself
  CHECK(y.ints[1] == -std::numeric_limits<std::int64_t>::max());

  builder b2 = b;  // REQUIRE(in_t == i32_t || shift == 0): unpredictable, refused
  b2.g.find("s")->data = graph::encode_ints(id::i8, std::vector<std::int64_t>{2});
  const auto r2 = run1(b2, {va, vb});
  REQUIRE_FALSE(r2);
  CHECK(r2.error().code() == armlower::errc::require);
  CHECK(r2.error().where().tensor == "s");
}

TEST_CASE("CLAMP: integer and float rows, NaN modes, bound errors") {
  builder b;
  b.input("x", id::i8, {5});
  b.declare("y", id::i8, {5});
  b.op(tosa::op::clamp, {"x"}, {"y"}, graph::clamp_attr{-3, 100, graph::nan_mode::propagate});
  b.output("y");
  auto r = run1(b, {run::from_ints(id::i8, {5}, {-128, -3, 0, 101, 127})});
  REQUIRE(r);
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{-3, -3, 0, 100, 100});

  std::get<graph::clamp_attr>(b.g.operators[0].attr) = graph::clamp_attr{5, 4, graph::nan_mode::propagate};
  r = run1(b, {run::zeros(id::i8, {5})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  std::get<graph::clamp_attr>(b.g.operators[0].attr) = graph::clamp_attr{-300, 4, graph::nan_mode::propagate};
  r = run1(b, {run::zeros(id::i8, {5})});
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("INT8") != std::string::npos);

  for (auto mode : {graph::nan_mode::propagate, graph::nan_mode::ignore}) {
    builder f;
    f.input("x", id::fp32, {4});
    f.declare("y", id::fp32, {4});
    f.op(tosa::op::clamp, {"x"}, {"y"}, graph::clamp_attr{-1.0, 6.0, mode});
    f.output("y");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto rf = run1(f, {run::from_reals(id::fp32, {4}, {-7.0f, 0.25f, 9.0f, nan})});
    REQUIRE(rf);
    CHECK(rf->outputs[0].reals[0] == -1.0f);
    CHECK(rf->outputs[0].reals[1] == 0.25f);
    CHECK(rf->outputs[0].reals[2] == 6.0f);
    if (mode == graph::nan_mode::propagate)
      CHECK(std::isnan(rf->outputs[0].reals[3]));
    else
      CHECK(rf->outputs[0].reals[3] == -1.0f);
  }
}

TEST_CASE("CAST rows: int narrowing/widening, bool, float→int RNE saturating, int→float, float→float") {
  auto cast = [](id from, id to, run::value v) {
    builder b;
    b.input("x", from, v.shape);
    b.declare("y", to, v.shape);
    b.op(tosa::op::cast, {"x"}, {"y"});
    b.output("y");
    return run::run(b.g, std::vector<run::value>{std::move(v)});
  };
  auto r = cast(id::i32, id::i8, run::from_ints(id::i32, {4}, {300, -129, 127, -2147483647 - 1}));
  REQUIRE(r);
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{44, 127, 127, 0});  // low 8 bits, two's complement
  r = cast(id::i8, id::i32, run::from_ints(id::i8, {2}, {-128, 5}));
  REQUIRE(r);
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{-128, 5});
  r = cast(id::i16, id::boolean, run::from_ints(id::i16, {3}, {0, -1, 256}));
  REQUIRE(r);
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{0, 1, 1});
  r = cast(id::boolean, id::i16, run::from_ints(id::boolean, {2}, {1, 0}));
  REQUIRE(r);
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{1, 0});
  r = cast(id::fp32, id::i8, run::from_reals(id::fp32, {7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1000.0f, -1e30f}));
  REQUIRE(r);
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{0, 2, 2, 0, -2, 127, -128});
  r = cast(id::fp32, id::i32, run::from_reals(id::fp32, {1}, {std::numeric_limits<float>::quiet_NaN()}));
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::require);
  r = cast(id::i32, id::fp16, run::from_ints(id::i32, {3}, {2049, 2051, 70000}));
  REQUIRE(r);
  CHECK(r->outputs[0].reals[0] == 2048.0f);  // tie to even
  CHECK(r->outputs[0].reals[1] == 2052.0f);
  CHECK(std::isinf(r->outputs[0].reals[2]));
  r = cast(id::fp32, id::bf16, run::from_reals(id::fp32, {1}, {1.00390625f}));  // 1 + 2^-8: tie → 1
  REQUIRE(r);
  CHECK(r->outputs[0].reals[0] == 1.0f);
  r = cast(id::fp16, id::fp32, run::from_reals(id::fp16, {1}, {0.099975586f}));
  REQUIRE(r);
  CHECK(r->outputs[0].reals[0] == 0.099975586f);
  // 1.1 rows BOOL ↔ FP32 (PRO-FP): out = (in != 0) resp. in ? 1 : 0 (CAST pseudocode).
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  r = cast(id::fp32, id::boolean,
           run::from_reals(id::fp32, {8}, {0.0f, -0.0f, nan, -inf, 1e-45f, -3.0f, 0.25f, inf}));
  REQUIRE(r);
  CHECK(r->outputs[0].type == id::boolean);
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{0, 0, 1, 1, 1, 1, 1, 1});  // NaN != 0; -0 == 0
  r = cast(id::boolean, id::fp32, run::from_ints(id::boolean, {3}, {1, 0, 1}));
  REQUIRE(r);
  CHECK(r->outputs[0].type == id::fp32);
  REQUIRE(r->outputs[0].reals.size() == 3);
  CHECK(std::bit_cast<std::uint32_t>(r->outputs[0].reals[0]) == 0x3F800000u);  // 1.0
  CHECK(std::bit_cast<std::uint32_t>(r->outputs[0].reals[1]) == 0x00000000u);  // +0.0, not -0.0
  CHECK(std::bit_cast<std::uint32_t>(r->outputs[0].reals[2]) == 0x3F800000u);
  for (id f : {id::fp16, id::bf16}) {  // no BOOL ↔ FP16/BF16 rows in the spec
    CAPTURE(armlower::dtype::name(f));
    r = cast(id::boolean, f, run::from_ints(id::boolean, {1}, {1}));
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == armlower::errc::unsupported);
    r = cast(f, id::boolean, run::from_reals(f, {1}, {1.0f}));
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == armlower::errc::unsupported);
  }
  r = cast(id::i8, id::i8, run::zeros(id::i8, {1}));
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::unsupported);
}

TEST_CASE("RESHAPE takes the SHAPE operand; TRANSPOSE follows output[i] = input[perms^-1]") {
  std::mt19937_64 rng(9);
  builder b;
  b.input("x", id::i16, {2, 3, 4});
  b.shape_const("s", {4, 6});
  b.declare("r", id::i16, {4, 6});
  b.op(tosa::op::reshape, {"x", "s"}, {"r"});
  b.declare("t", id::i16, {6, 4});
  b.op(tosa::op::transpose, {"r"}, {"t"}, graph::transpose_attr{{1, 0}});
  b.declare("x3", id::i16, {3, 4, 2});
  b.op(tosa::op::transpose, {"x"}, {"x3"}, graph::transpose_attr{{1, 2, 0}});
  b.output("t");
  b.output("x3");
  const auto x = run::from_ints(id::i16, {2, 3, 4}, random_ints(rng, 24, -32768, 32767));
  const auto res = run1(b, {x});
  REQUIRE_MESSAGE(res, (res ? "" : res.error().line()));
  const auto& t = res->outputs[0];
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(t.ints[i * 4 + j] == x.ints[j * 6 + i]);
  const auto& x3 = res->outputs[1];
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t c = 0; c < 4; ++c)
      for (std::size_t n = 0; n < 2; ++n) CHECK(x3.ints[(a * 4 + c) * 2 + n] == x.ints[(n * 3 + a) * 4 + c]);
}

TEST_CASE("RESHAPE and TRANSPOSE errors") {
  builder b;
  b.input("x", id::i8, {2, 3});
  b.shape_const("s", {5});
  b.declare("r", id::i8, {5});
  b.op(tosa::op::reshape, {"x", "s"}, {"r"});
  b.output("r");
  auto r = run1(b, {run::zeros(id::i8, {2, 3})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  CHECK(r.error().where().tensor == "s");
  CHECK(r.error().message().find("tensor_size") != std::string::npos);

  builder t;
  t.input("x", id::i8, {2, 3});
  t.declare("y", id::i8, {3, 2});
  t.op(tosa::op::transpose, {"x"}, {"y"}, graph::transpose_attr{{0, 0}});
  t.output("y");
  r = run1(t, {run::zeros(id::i8, {2, 3})});
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("permutation") != std::string::npos);
  t.g.operators[0].attr = graph::transpose_attr{{1, 0, 2}};
  r = run1(t, {run::zeros(id::i8, {2, 3})});
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("rank") != std::string::npos);
  t.g.operators[0].attr = {};
  r = run1(t, {run::zeros(id::i8, {2, 3})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::invalid_graph);
}

namespace {
/// y [2,3] = OP(a [2,3], b `sb`) of dtype `t` with attribute `a` (MAXIMUM / MINIMUM tests).
builder extremum_graph(tosa::op op, id t, std::vector<std::int32_t> sb, graph::attribute a) {
  builder b;
  b.input("a", t, {2, 3});
  b.input("b", t, std::move(sb));
  b.declare("y", t, {2, 3});
  b.op(op, {"a", "b"}, {"y"}, std::move(a));
  b.output("y");
  return b;
}
}  // namespace

TEST_CASE("MAXIMUM refusals: a missing nan_mode_attr, a dtype without a row, non-broadcastable shapes") {
  const auto graph_of = [](id t, std::vector<std::int32_t> sb, graph::attribute a) {
    return extremum_graph(tosa::op::maximum, t, std::move(sb), std::move(a));
  };
  const graph::nan_mode_attr ign{graph::nan_mode::ignore};
  auto r = run1(graph_of(id::fp32, {1, 3}, {}), {run::from_reals(id::fp32, {2, 3}, std::vector<float>(6, 1.0f)),
                                                  run::from_reals(id::fp32, {1, 3}, std::vector<float>(3, 2.0f))});
  REQUIRE_FALSE(r);
  CHECK(r.error().where().op == "MAXIMUM");
  CHECK(r.error().line().find("nan_mode_attr") != std::string::npos);
  r = run1(graph_of(id::i8, {1, 3}, ign), {run::from_ints(id::i8, {2, 3}, {1, 2, 3, 4, 5, 6}),
                                            run::from_ints(id::i8, {1, 3}, {0, 0, 0})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::unsupported);
  CHECK(r.error().line().find("MAXIMUM of INT8") != std::string::npos);
  r = run1(graph_of(id::i32, {2, 2}, ign), {run::from_ints(id::i32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                                             run::from_ints(id::i32, {2, 2}, {0, 0, 0, 0})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  CHECK(r.error().line().find("do not broadcast") != std::string::npos);
  // The same graph with a broadcastable b computes apply_max_s element-wise.
  r = run1(graph_of(id::i32, {1, 3}, ign), {run::from_ints(id::i32, {2, 3}, {1, -2, 3, -4, 5, -6}),
                                             run::from_ints(id::i32, {1, 3}, {0, 0, 4})});
  REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{1, 0, 4, 0, 5, 4});
}

TEST_CASE("MINIMUM: apply_min_s element-wise with broadcasting, NaN modes, refusals by name") {
  const auto graph_of = [](id t, std::vector<std::int32_t> sb, graph::attribute a) {
    return extremum_graph(tosa::op::minimum, t, std::move(sb), std::move(a));
  };
  const graph::nan_mode_attr ign{graph::nan_mode::ignore}, prop{graph::nan_mode::propagate};
  auto r = run1(graph_of(id::i32, {1, 3}, ign), {run::from_ints(id::i32, {2, 3}, {1, -2, 3, -4, 5, -6}),
                                                 run::from_ints(id::i32, {1, 3}, {0, 0, 4})});
  REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{0, -2, 3, -4, 0, -6});
  // apply_min_s: a < b ? a : b (−0 vs +0 gives b); NaN: PROPAGATE gives NaN, IGNORE the other operand.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xa{nan, 1.0f, -0.0f, 0.0f, nan, 7.0f}, xb{2.0f, nan, 0.0f, -0.0f, nan, 3.0f};
  for (const bool propagate : {true, false}) {
    builder b;
    b.input("a", id::fp32, {6});
    b.input("b", id::fp32, {6});
    b.declare("y", id::fp32, {6});
    b.op(tosa::op::minimum, {"a", "b"}, {"y"}, propagate ? prop : ign);
    b.output("y");
    r = run1(b, {run::from_reals(id::fp32, {6}, xa), run::from_reals(id::fp32, {6}, xb)});
    REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
    const auto& y = r->outputs[0].reals;
    CHECK(std::isnan(y[0]) == propagate);
    CHECK(std::isnan(y[1]) == propagate);
    if (!propagate) CHECK(y[0] == 2.0f);
    if (!propagate) CHECK(y[1] == 1.0f);
    CHECK((y[2] == 0.0f && !std::signbit(y[2])));  // −0 < +0 is false: b (+0)
    CHECK((y[3] == 0.0f && std::signbit(y[3])));   // +0 < −0 is false: b (−0)
    CHECK(std::isnan(y[4]));
    CHECK(y[5] == 3.0f);
  }
  r = run1(graph_of(id::i8, {1, 3}, ign), {run::from_ints(id::i8, {2, 3}, {1, 2, 3, 4, 5, 6}),
                                            run::from_ints(id::i8, {1, 3}, {0, 0, 0})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::unsupported);
  CHECK(r.error().line().find("MINIMUM of INT8") != std::string::npos);
  r = run1(graph_of(id::fp32, {1, 3}, {}), {run::from_reals(id::fp32, {2, 3}, std::vector<float>(6, 1.0f)),
                                            run::from_reals(id::fp32, {1, 3}, std::vector<float>(3, 2.0f))});
  REQUIRE_FALSE(r);
  CHECK(r.error().where().op == "MINIMUM");
}
