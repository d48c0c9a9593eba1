// run::value: storage, wire encoding round trips, FP16/BF16 rounding against independent
// references (the compiler's _Float16 conversions; the classic fp32→bf16 RNE bit formula).
#include "run_test_util.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

using namespace run_test;
namespace rd = armlower::run::detail;

TEST_CASE("storage_of partitions the dtypes") {
  CHECK(run::storage_of(id::i8) == run::storage::integer);
  CHECK(run::storage_of(id::i48) == run::storage::integer);
  CHECK(run::storage_of(id::boolean) == run::storage::integer);
  CHECK(run::storage_of(id::shape) == run::storage::integer);
  CHECK(run::storage_of(id::fp16) == run::storage::real);
  CHECK(run::storage_of(id::bf16) == run::storage::real);
  CHECK(run::storage_of(id::fp32) == run::storage::real);
  CHECK(run::storage_of(id::fp8e4m3) == run::storage::code);
  CHECK(run::storage_of(id::fp4e2m1) == run::storage::code);
  CHECK(run::storage_of(id::fp8ue8m0) == run::storage::code);
  CHECK(run::storage_of(id::mxint8) == run::storage::code);
  CHECK(run::code_count(id::fp6e2m3) == 64);
  CHECK(run::code_count(id::fp4e2m1) == 16);
}

TEST_CASE("integer values round-trip through the wire encoding (INT48 as 6 LE bytes, INT4 packed)") {
  std::mt19937_64 rng(1);
  for (id t : {id::boolean, id::i4, id::i8, id::i16, id::i32, id::i48, id::i64, id::shape}) {
    CAPTURE(armlower::dtype::name(t));
    const auto& ti = armlower::dtype::traits(t);
    auto v = random_ints(rng, 37, ti.int_min, ti.int_max);
    v[0] = ti.int_min;
    v[1] = ti.int_max;
    const auto val = run::from_ints(t, {37}, v);
    const auto bytes = run::encode(val);
    CHECK(bytes.size() == graph::payload_bytes(t, 37));
    const auto back = run::decode(t, {37}, bytes);
    CHECK(back.ints == v);
  }
  // INT48 −1 is six 0xFF bytes; INT4 elements 2i / 2i+1 are the low / high nibble.
  CHECK(run::encode(run::from_ints(id::i48, {1}, {-1})) == std::vector<std::uint8_t>(6, 0xFF));
  CHECK(run::encode(run::from_ints(id::i4, {3}, {1, -2, 7})) == std::vector<std::uint8_t>{0xE1, 0x07});
}

TEST_CASE("integers are held at their dtype's storage width; from_ints of that type takes the vector") {
  const std::pair<id, run::int_width> widths[] = {
      {id::boolean, run::int_width::w8}, {id::i4, run::int_width::w8},   {id::i8, run::int_width::w8},
      {id::i16, run::int_width::w16},    {id::i32, run::int_width::w32}, {id::i48, run::int_width::w64},
      {id::i64, run::int_width::w64},    {id::shape, run::int_width::w64}};
  for (const auto& tw : widths) {
    const id t = tw.first;  // (not a structured binding: CAPTURE below takes it by reference)
    const run::int_width w = tw.second;
    CAPTURE(armlower::dtype::name(t));
    CHECK(run::int_width_of(t) == w);
    CHECK(run::element_bytes(t) == run::width_bytes(w));
    CHECK(run::from_ints(t, {2}, {0, 1}).ints.width() == w);
    CHECK(run::zeros(t, {3}).ints.width() == w);
    CHECK(run::decode(t, {1}, std::vector<std::uint8_t>(8, 0)).ints.width() == w);
  }
  // an int8 vector for INT8 is moved in, not copied: the value owns the same buffer
  std::vector<std::int8_t> x{-128, 0, 127};
  const auto* p = x.data();
  const auto v = run::from_ints(id::i8, {3}, std::move(x));
  CHECK(v.ints.get<std::int8_t>().data() == p);
  CHECK(v.ints == std::vector<std::int64_t>{-128, 0, 127});
  // other types convert, with the dtype's range checked on the values (before any narrowing)
  CHECK(run::from_ints(id::i16, {2}, std::vector<std::int8_t>{-5, 7}).ints.get<std::int16_t>()[0] == -5);
  CHECK(run::from_ints(id::i32, {2}, std::vector<std::int16_t>{-300, 300}).ints == std::vector<std::int64_t>{-300, 300});
  CHECK_THROWS_AS((void)run::from_ints(id::i8, {1}, std::vector<std::int16_t>{200}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::from_ints(id::i4, {1}, std::vector<std::int8_t>{8}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::from_ints(id::boolean, {1}, std::vector<std::int8_t>{2}), std::invalid_argument);
  // INT4, BOOL and INT48 are narrower than their storage: check() tests every element
  run::value i4{id::i4, {2}, run::int_elements(std::vector<std::int8_t>{7, -8}), {}, {}};
  CHECK(i4.check() == "element 1 = -8 does not fit INT4");
  run::value b{id::boolean, {2}, run::int_elements(std::vector<std::int8_t>{1, -1}), {}, {}};
  CHECK(b.check() == "element 1 = -1 does not fit BOOL");
  run::value i48{id::i48, {1}, run::int_elements(std::vector<std::int64_t>{std::int64_t{1} << 47}), {}, {}};
  CHECK(i48.check() == "element 0 = 140737488355328 does not fit INT48");
  run::value w{id::i16, {1}, run::int_elements(std::vector<std::int32_t>{1}), {}, {}};
  CHECK(w.check() == "a INT16 value must hold its integers as 16-bit elements, holds 32-bit");
}

TEST_CASE("value::check and the constructors reject inconsistent values") {
  CHECK_THROWS_AS((void)run::from_ints(id::i8, {2}, {1, 200}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::from_ints(id::i8, {3}, {1, 2}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::from_ints(id::i4, {1}, {-8}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::from_ints(id::fp32, {1}, {1}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::from_codes(id::fp6e2m3, {1}, {64}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::from_codes(id::fp4e2m1, {1}, {16}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::zeros(id::i8, {2, 0}), std::invalid_argument);
  CHECK_THROWS_AS((void)run::decode(id::i32, {4}, std::vector<std::uint8_t>(15)), std::invalid_argument);
  run::value bad{id::fp16, {1}, {}, {0.1f}, {}};  // 0.1f is not an FP16 value
  CHECK_FALSE(bad.check().empty());
  graph::tensor not_const = tensor("x", id::i8, {1});
  CHECK_THROWS_AS((void)run::from_constant(not_const), std::invalid_argument);
  auto z = run::zeros(id::fp4e2m1, {2, 3});
  CHECK(z.codes.size() == 6);
  CHECK(z.check().empty());
}

TEST_CASE("code values round-trip; FP4 packs two per byte") {
  std::vector<std::uint8_t> c(33);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<std::uint8_t>((i * 7) & 0xF);
  const auto v = run::from_codes(id::fp4e2m1, {33}, c);
  const auto bytes = run::encode(v);
  CHECK(bytes.size() == 17);
  CHECK(bytes[0] == static_cast<std::uint8_t>(c[0] | (c[1] << 4)));
  CHECK(run::decode(id::fp4e2m1, {33}, bytes).codes == c);
  std::vector<std::uint8_t> e(256);
  for (std::size_t i = 0; i < 256; ++i) e[i] = static_cast<std::uint8_t>(i);
  CHECK(run::decode(id::fp8ue8m0, {256}, run::encode(run::from_codes(id::fp8ue8m0, {256}, e))).codes == e);
}

TEST_CASE("FP16 bits: every pattern decodes and re-encodes to itself (NaNs stay NaN)") {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const float f = armlower::dtype::fp16_to_fp32(static_cast<std::uint16_t>(b));
    const bool nan = ((b >> 10) & 0x1F) == 0x1F && (b & 0x3FF) != 0;
    if (nan) {
      REQUIRE(std::isnan(f));
      continue;
    }
    REQUIRE(rd::round_to(id::fp16, f) == f);
    REQUIRE(armlower::dtype::fp32_to_fp16(f) == b);
  }
}

#if defined(__FLT16_MAX__)
TEST_CASE("FP16 rounding of doubles agrees with the compiler's _Float16 conversion") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-2.0, 2.0);
  std::uniform_int_distribution<int> ex(-30, 17);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(mant(rng), ex(rng));
    const auto ref = static_cast<float>(static_cast<_Float16>(x));
    const float got = rd::round_to(id::fp16, x);
    REQUIRE(std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(ref));
  }
  // Ties: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 → even (1); 65520 → Inf.
  CHECK(rd::round_to(id::fp16, 1.0 + 0x1p-11) == 1.0f);
  CHECK(rd::round_to(id::fp16, 1.0 + 3 * 0x1p-11) == static_cast<float>(1.0 + 0x1p-9));
  CHECK(std::isinf(rd::round_to(id::fp16, 65520.0)));
  CHECK(rd::round_to(id::fp16, 65519.0) == 65504.0f);
}
#endif

TEST_CASE("BF16 rounding of floats agrees with the fp32-bits RNE formula") {
  std::mt19937 rng(3);
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t u = rng();
    const float x = std::bit_cast<float>(u);
    if (std::isnan(x)) continue;
    const std::uint32_t ref_bits = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
    const float ref = std::bit_cast<float>(ref_bits);
    const float got = rd::round_to(id::bf16, x);
    if (std::isinf(ref)) {
      REQUIRE(std::isinf(got));
      continue;
    }
    REQUIRE(std::bit_cast<std::uint32_t>(got) == ref_bits);
    REQUIRE(armlower::dtype::fp32_to_bf16(got) == (ref_bits >> 16));
    REQUIRE(armlower::dtype::bf16_to_fp32(static_cast<std::uint16_t>(ref_bits >> 16)) == got);
  }
}

TEST_CASE("real values round-trip through the wire encoding") {
  for (id t : {id::fp16, id::bf16, id::fp32}) {
    CAPTURE(armlower::dtype::name(t));
    std::vector<float> v{0.0f, -0.0f, 1.0f, -2.5f, 0.333f, 1e-6f, -65504.0f, std::numeric_limits<float>::infinity()};
    const auto val = run::from_reals(t, {8}, v);
    const auto back = run::decode(t, {8}, run::encode(val));
    for (std::size_t i = 0; i < v.size(); ++i)
      CHECK(std::bit_cast<std::uint32_t>(back.reals[i]) == std::bit_cast<std::uint32_t>(val.reals[i]));
  }
  // FP16 1.0 is 0x3C00, little-endian.
  CHECK(run::encode(run::from_reals(id::fp16, {1}, {1.0f})) == std::vector<std::uint8_t>{0x00, 0x3C});
  CHECK(run::encode(run::from_reals(id::bf16, {1}, {1.0f})) == std::vector<std::uint8_t>{0x80, 0x3F});
}

TEST_CASE("to_constant / from_constant round-trip") {
  const auto v = run::from_ints(id::i16, {2, 2}, {1, -2, 300, -32768});
  const auto t = run::to_constant(v, "c");
  CHECK(t.is_constant);
  CHECK(t.data == graph::encode_ints(id::i16, std::vector<std::int64_t>{1, -2, 300, -32768}));
  const auto back = run::from_constant(t);
  CHECK(back.ints == v.ints);
  CHECK(back.shape == v.shape);
  graph::tensor short_payload = t;
  short_payload.data.resize(3);
  CHECK_THROWS_WITH_AS((void)run::from_constant(short_payload), doctest::Contains("constant 'c'"), std::invalid_argument);
}
