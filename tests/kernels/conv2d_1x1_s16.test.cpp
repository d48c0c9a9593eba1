// The s16 × s8 → INT48 1×1 CONV2D of `kernels::conv2d<int16_t, int8_t, int64_t>` (the TOSA form of an
// a16w8 linear layer; on AVX-512 VNNI hosts the `vpdpwssd` fast path `detail::conv2d_1x1_s16`) against
// the TOSA 1.0 CONV2D pseudocode (`operators/CONV2D.tosac`) written out in the test: acc = Σ in·w
// (input_zp 0 for INT16) in int64, REQUIRE acc and acc + bias within int48. Random shapes (M = N·H·W
// 1..23 so every tile height and remainder runs; OC 1..4 and > 4 for both tile widths, not multiples
// of 8; IC with tails of the 32-column step and across the 8160-column exact block), per-channel and
// broadcast bias, all-extreme operands, both REQUIRE failures; and the non-1×1 / weight_zp ≠ 0 forms
// (generic path) for comparison. Under SIMDe (test_kernels_linear_avx512_simde) the same kernel runs
// through AVX2 emulation.
#include <armlower/kernels/conv2d.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace k = armlower::kernels;
using armlower::status;

namespace {

constexpr std::int64_t int48_min = -(std::int64_t{1} << 47), int48_max = (std::int64_t{1} << 47) - 1;

struct ref_result {
  status st = status::ok;
  std::vector<std::int64_t> out;
};

ref_result reference(const k::conv2d_shape& s, const std::vector<std::int16_t>& x, const std::vector<std::int8_t>& w,
                     const std::vector<std::int64_t>& bias, int wzp) {
  ref_result r;
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  r.out.resize(static_cast<std::size_t>(m * s.oc));
  for (std::int64_t p = 0; p < m; ++p) {
    for (int o = 0; o < s.oc; ++o) {
      std::int64_t acc = 0;
      for (int c = 0; c < s.ic; ++c)
        acc += std::int64_t{x[static_cast<std::size_t>(p * s.ic + c)]} * (w[static_cast<std::size_t>(std::int64_t{o} * s.ic + c)] - wzp);
      if (acc < int48_min || acc > int48_max) return {status::value_out_of_range, {}};
      const std::int64_t y = acc + bias[static_cast<std::size_t>(s.bias_size == 1 ? 0 : o)];
      if (y < int48_min || y > int48_max) return {status::value_out_of_range, {}};
      r.out[static_cast<std::size_t>(p * s.oc + o)] = y;
    }
  }
  return r;
}

void check(const k::conv2d_shape& s, const std::vector<std::int16_t>& x, const std::vector<std::int8_t>& w,
           const std::vector<std::int64_t>& bias, int wzp = 0) {
  CAPTURE(s.n); CAPTURE(s.ih); CAPTURE(s.iw); CAPTURE(s.ic); CAPTURE(s.oc); CAPTURE(s.bias_size); CAPTURE(wzp);
  const ref_result ref = reference(s, x, w, bias, wzp);
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  std::vector<std::int64_t> out(static_cast<std::size_t>(m * s.oc), 0x5A5A5A5A5A);
  const status st = k::conv2d<std::int16_t, std::int8_t, std::int64_t>(s, x.data(), w.data(), bias.data(), 0,
                                                                      static_cast<std::int8_t>(wzp), out.data());
  REQUIRE(st == ref.st);
  if (st == status::ok) REQUIRE(out == ref.out);
}

k::conv2d_shape shape_1x1(int n, int h, int w, int ic, int oc, int bias_size) {
  k::conv2d_shape s;
  s.n = n, s.ih = h, s.iw = w, s.ic = ic, s.oc = oc, s.kh = 1, s.kw = 1, s.bias_size = bias_size;
  return s;
}

}  // namespace

TEST_CASE("CONV2D s16 x s8 -> INT48 1x1 == TOSA pseudocode (random shapes, bias, tiles, K tails)") {
  std::mt19937_64 rng(48);
  std::uniform_int_distribution<int> d16(-32768, 32767), d8(-128, 127);
  std::uniform_int_distribution<std::int64_t> db(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
  const int ics[] = {1, 5, 31, 32, 33, 64, 100, 511, 1024, 8160, 8161, 8200};
  const int ocs[] = {1, 3, 4, 5, 8, 9, 17, 40};
  int cases = 0;
  for (const int ic : ics) {
    for (const int oc : ocs) {
      const int mpos = 1 + static_cast<int>(rng() % 23);
      const bool broadcast = rng() % 4 == 0;
      const auto s = shape_1x1(1, mpos, 1, ic, oc, broadcast ? 1 : oc);
      std::vector<std::int16_t> x(static_cast<std::size_t>(mpos) * ic);
      std::vector<std::int8_t> w(static_cast<std::size_t>(oc) * ic);
      std::vector<std::int64_t> b(static_cast<std::size_t>(s.bias_size));
      for (auto& v : x) v = static_cast<std::int16_t>(d16(rng));
      for (auto& v : w) v = static_cast<std::int8_t>(d8(rng));
      for (auto& v : b) v = db(rng);
      check(s, x, w, b);
      ++cases;
    }
  }
  CHECK(cases == 96);
  // batch positions spread over N, H, W (M = 2·3·4 = 24: whole 3- and 4-row tiles)
  {
    const auto s = shape_1x1(2, 3, 4, 70, 12, 12);
    std::vector<std::int16_t> x(std::size_t{24} * 70);
    std::vector<std::int8_t> w(std::size_t{12} * 70);
    std::vector<std::int64_t> b(12);
    for (auto& v : x) v = static_cast<std::int16_t>(d16(rng));
    for (auto& v : w) v = static_cast<std::int8_t>(d8(rng));
    for (auto& v : b) v = db(rng);
    check(s, x, w, b);
    check(s, x, w, b, 7);  // weight_zp != 0: the generic path (same pseudocode)
    auto s3 = s;           // a 3x3 kernel: not 1x1, the generic path
    s3.kh = 3, s3.kw = 3, s3.pad = {1, 1, 1, 1};
    std::vector<std::int8_t> w3(std::size_t{12} * 9 * 70);
    for (auto& v : w3) v = static_cast<std::int8_t>(d8(rng));
    const std::int64_t m = 24;
    std::vector<std::int64_t> out(static_cast<std::size_t>(m * 12));
    CHECK(k::conv2d<std::int16_t, std::int8_t, std::int64_t>(s3, x.data(), w3.data(), b.data(), 0, 0, out.data()) ==
          status::ok);
  }
}

TEST_CASE("CONV2D s16 x s8 -> INT48 1x1: all-extreme operands, REQUIRE failures on acc and acc + bias") {
  // acc = K·(−32768)·(−128) = K·2^22: within int48 for K < 2^25; with a bias it can leave int48.
  const int ic = 9000;  // more than one exact int32 block (8160 columns)
  const auto s = shape_1x1(1, 5, 1, ic, 6, 6);
  std::vector<std::int16_t> x(static_cast<std::size_t>(5) * ic, -32768);
  std::vector<std::int8_t> w(static_cast<std::size_t>(6) * ic, -128);
  std::vector<std::int64_t> b(6, 0);
  check(s, x, w, b);
  b[4] = int48_max - std::int64_t{ic} * (1 << 22) + 1;  // acc + bias = int48_max + 1 on channel 4
  check(s, x, w, b);
  b[4] -= 1;  // exactly int48_max: fits
  check(s, x, w, b);
  // (acc alone leaves int48 only beyond K = 2^25 columns, too large for a unit test; the bound is
  // reached here through the bias on both sides)
  b.assign(6, int48_min);
  check(s, x, w, b);  // acc > 0 + int48_min: fits
  std::fill(x.begin(), x.end(), std::int16_t{32767});
  b[2] = int48_min;  // acc = −K·32767·128 < 0, + int48_min leaves int48
  check(s, x, w, b);
}
