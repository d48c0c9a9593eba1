// Requantization equivalences of ../shared/reference/kernels.md §3 on >= 10^7 random cases and
// every boundary shift. Oracles: TFLite's gemmlowp-based MultiplyByQuantizedMultiplier (double and
// single rounding, and the int64 variant), CMSIS-NN's MVE single-rounding sequence and its
// truncating arm_nn_requantize_s64, transcribed below from their published formulas (kernels.md
// §1.6, §2.2) in their own code shape (gemmlowp nudge + truncating division, VQDMULH + VRSHL).
#include <armlower/quant/multiplier.hpp>
#include <armlower/quant/requantize.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>

namespace q = armlower::quant;
using armlower::status;

namespace oracle {

std::int32_t srdhm(std::int32_t a, std::int32_t b) {  // gemmlowp SaturatingRoundingDoublingHighMul
  const bool overflow = a == b && a == std::numeric_limits<std::int32_t>::min();
  const std::int64_t ab = static_cast<std::int64_t>(a) * b;
  const std::int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  const auto hi = static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));  // truncating
  return overflow ? std::numeric_limits<std::int32_t>::max() : hi;
}
std::int32_t rdbpot(std::int32_t x, int e) {  // gemmlowp RoundingDivideByPOT
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << e) - 1);
  const std::int32_t rem = x & mask;
  const std::int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (rem > thr ? 1 : 0);
}
std::int32_t tflite_double(std::int32_t x, std::int32_t m, int s) {
  const int left = s > 0 ? s : 0, right = s > 0 ? 0 : -s;
  return rdbpot(srdhm(static_cast<std::int32_t>(static_cast<std::int64_t>(x) * (std::int64_t{1} << left)), m), right);
}
std::int32_t tflite_single(std::int32_t x, std::int32_t m, int s) {
  const int total = 31 - s;
  const std::int64_t round = std::int64_t{1} << (total - 1);
  return static_cast<std::int32_t>((static_cast<std::int64_t>(x) * m + round) >> total);
}
std::int64_t tflite_int64(std::int64_t x, std::int32_t m, int s) {  // returns the int64 before TFLite's int32 cast
  const std::int32_t reduced = m < 0x7FFF0000 ? ((m + (1 << 15)) >> 16) : 0x7FFF;
  const int total = 15 - s;
  return (x * reduced + (std::int64_t{1} << (total - 1))) >> total;
}
std::int32_t cmsis_s64_truncating(std::int64_t v, std::int32_t red, int s) {
  const auto r = static_cast<std::int32_t>((v * red) >> (14 - s));
  return (r + 1) >> 1;
}
std::int32_t mve_single(std::int32_t v, std::int32_t m, int s) {  // right = min(-1, s); VRSHL(VQDMULH(v << left, m), right)
  const int right = s < -1 ? s : -1;
  const int left = s - right;
  const std::int64_t shifted = static_cast<std::int64_t>(v) << left;
  std::int64_t d = (shifted * m) >> 31;  // VQDMULH: saturate(2ab >> 32)
  if (d > std::numeric_limits<std::int32_t>::max()) d = std::numeric_limits<std::int32_t>::max();
  const int n = -right;
  return static_cast<std::int32_t>((d + (std::int64_t{1} << (n - 1))) >> n);  // VRSHL by -n: rounding shift
}

}  // namespace oracle

namespace {

// >= 10^7 cases in optimised builds; sanitizer/unoptimised builds (asan preset) run a tenth so the
// executable stays well under 30 s there too.
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
constexpr long scale = 10;
#else
constexpr long scale = 1;
#endif

struct gen {
  std::mt19937_64 rng;
  explicit gen(std::uint64_t seed) : rng(seed) {}
  std::uint64_t bits() { return rng(); }
  std::int64_t signed_bits(int width) {  // uniform magnitude of random bit width in [0, width]
    const int w = static_cast<int>(bits() % static_cast<std::uint64_t>(width + 1));
    const std::int64_t mag = w == 0 ? 0 : static_cast<std::int64_t>(bits() & ((std::uint64_t{1} << w) - 1));
    return (bits() & 1U) ? -mag : mag;
  }
  std::int32_t multiplier() {
    const auto r = bits() % 10;
    if (r < 2) return 1 << 30;  // many exact ties
    if (r < 3) return static_cast<std::int32_t>(bits() & 0x7FFFFFFF);
    return static_cast<std::int32_t>((std::int64_t{1} << 30) + static_cast<std::int64_t>(bits() & 0x3FFFFFFF));
  }
};

}  // namespace

TEST_CASE("apply_scale_32 == TFLite == CMSIS-NN (single and double rounding) on 10^7 random cases") {
  gen g(42);
  long single_cases = 0, double_cases = 0, differ = 0, fails = 0;
  for (long i = 0; i < 13'000'000 / scale; ++i) {
    const int s = static_cast<int>(g.bits() % 61) - 31;  // TFLite shift -31..29 = TOSA shift 62..2
    const std::int32_t m = g.multiplier();
    const auto v = static_cast<std::int32_t>(g.signed_bits(31));
    std::int32_t ts = 0, td = 0;
    if (q::apply_scale_32(v, m, 31 - s, false, ts) != status::ok) continue;
    REQUIRE(q::apply_scale_32(v, m, 31 - s, true, td) == status::ok);
    ++single_cases;
    ++double_cases;
    const std::int32_t cs = q::requantize_single_round(v, m, s);
    const std::int32_t cd = q::requantize(v, m, s);
    if (ts != cs || ts != oracle::tflite_single(v, m, s) || ts != oracle::mve_single(v, m, s) ||
        td != cd || td != oracle::tflite_double(v, m, s) ||
        ts != q::requantize_exact(v, m, s, q::rounding::single_round) ||
        td != q::requantize_exact(v, m, s, q::rounding::double_round)) {
      if (++fails < 10) {
        CAPTURE(v); CAPTURE(m); CAPTURE(s); CAPTURE(ts); CAPTURE(td); CAPTURE(cs); CAPTURE(cd);
        CHECK(false);
      }
    }
    differ += ts != td;
  }
  CHECK(fails == 0);
  CHECK(single_cases >= 10'000'000 / scale);  // >= 10^7 cases inside the TOSA REQUIRE domain
  CHECK(double_cases == single_cases);
  // Single vs double rounding really differ (kernels.md §3: ~0.4 % for typical data).
  CHECK(differ > 1000);
  // kernels.md §3 examples.
  CHECK(q::requantize(-6, 1 << 30, -1) == -2);
  CHECK(q::requantize_single_round(-6, 1 << 30, -1) == -1);
  CHECK(q::requantize(1, (1 << 30) + 1, -1) == 1);
  CHECK(q::requantize_single_round(1, (1 << 30) + 1, -1) == 0);
}

TEST_CASE("apply_scale_16 == TFLite int64 == requantize_s64 (and CMSIS s64 while |y| < 2^30)") {
  gen g(7);
  long cases = 0, fails = 0, cmsis_checked = 0;
  for (long i = 0; i < 4'000'000 / scale; ++i) {
    const int s = static_cast<int>(g.bits() % 39) - 31;  // -31..7 (TFLite asserts shift < 8)
    const std::int32_t m = g.multiplier();
    const std::int32_t red = q::reduce_multiplier(m);
    const std::int64_t v = g.signed_bits(47);
    std::int32_t t = 0;
    const std::int64_t exact = q::requantize_s64(v, red, s);
    const std::int64_t tfl = oracle::tflite_int64(v, m, s);
    if (exact != tfl) { if (++fails < 10) { CAPTURE(v); CAPTURE(m); CAPTURE(s); CHECK(false); } }
    const status st = q::apply_scale_16(v, red, 15 - s, t);
    if (tfl >= INT32_MIN && tfl <= INT32_MAX) {
      ++cases;
      if (st != status::ok || t != tfl) { if (++fails < 10) CHECK(false); }
    } else {
      CHECK(st == status::value_out_of_range);
    }
    if (tfl > -(1LL << 30) && tfl < (1LL << 30)) {
      ++cmsis_checked;
      if (oracle::cmsis_s64_truncating(v, red, s) != tfl) { if (++fails < 10) CHECK(false); }
    }
  }
  CHECK(fails == 0);
  CHECK(cases > 1'000'000 / scale);
  CHECK(cmsis_checked > 1'000'000 / scale);
  // kernels.md §1.6: CMSIS-NN's truncation is wrong above 2^30; armlower's s64 requantize is not.
  CHECK(q::requantize_s64(3'000'000'000LL, 16384, 0) == 1'500'000'000LL);
  CHECK(oracle::cmsis_s64_truncating(3'000'000'000LL, 16384, 0) == -647'483'648);
}

TEST_CASE("every boundary shift") {
  const std::int32_t values[] = {0, 1, -1, 2, -2, 3, -3, 1000, -1000, (1 << 15) - 1, -(1 << 15),
                                 (1 << 29) - 1, -(1 << 29), (1 << 30) - 1, -(1 << 30), INT32_MAX, INT32_MIN};
  const std::int32_t mults[] = {0, 1, 2, (1 << 30), (1 << 30) + 1, INT32_MAX};
  long checked = 0;
  for (int s = -31; s <= 30; ++s) {
    for (auto m : mults) {
      for (auto v : values) {
        // TFLite single rounding (defined for all shifts -31..30 in int64).
        CHECK(q::requantize_single_round(v, m, s) == oracle::tflite_single(v, m, s));
        const std::int64_t ex = q::requantize_exact(v, m, s, q::rounding::single_round);
        if (ex >= INT32_MIN && ex <= INT32_MAX) CHECK(ex == oracle::tflite_single(v, m, s));  // TFLite truncates wider results
        const bool left_fits = s <= 0 || (static_cast<std::int64_t>(v) << s) == static_cast<std::int32_t>(static_cast<std::int64_t>(v) << s);
        if (left_fits) {
          CHECK(q::requantize(v, m, s) == oracle::tflite_double(v, m, s));
          CHECK(q::requantize_exact(v, m, s, q::rounding::double_round) == oracle::tflite_double(v, m, s));
        }
        std::int32_t r1 = 0, r2 = 0;
        if (s <= 29 && q::apply_scale_32(v, m, 31 - s, false, r1) == status::ok) {
          REQUIRE(q::apply_scale_32(v, m, 31 - s, true, r2) == status::ok);
          CHECK(r1 == oracle::tflite_single(v, m, s));
          CHECK(r2 == oracle::tflite_double(v, m, s));
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 3000);
  std::int32_t r = 0;
  CHECK(q::apply_scale_32(5, 1 << 30, 1, false, r) == status::shift_out_of_range);
  CHECK(q::apply_scale_32(5, 1 << 30, 63, false, r) == status::shift_out_of_range);
  CHECK(q::apply_scale_32(5, -1, 40, false, r) == status::multiplier_out_of_range);
  CHECK(q::apply_scale_32(1 << 20, 1 << 30, 20, false, r) == status::value_out_of_range);
  CHECK(q::apply_scale_32(-(1 << 19), 1 << 30, 20, false, r) == status::ok);
  CHECK(q::apply_scale_32((1 << 19), 1 << 30, 20, false, r) == status::value_out_of_range);
  CHECK(q::apply_scale_16(1LL << 47, 1 << 14, 20, r) == status::value_out_of_range);
  CHECK(q::apply_scale_16(1, 32768, 20, r) == status::multiplier_out_of_range);
  CHECK(q::apply_scale_16((1LL << 47) - 1, 32767, 2, r) == status::value_out_of_range);
  CHECK(q::apply_scale_16(-(1LL << 47), 1 << 14, 62, r) == status::ok);
  // Exact wide arithmetic: the 128-bit path agrees with a direct computation where that is safe.
  gen g(3);
  for (int i = 0; i < 100000; ++i) {
    const std::int64_t a = g.signed_bits(62), b = g.signed_bits(20);
    const std::int64_t add = g.signed_bits(40);
    const int sh = 1 + static_cast<int>(g.bits() % 62);
    const __int128 ref = (static_cast<__int128>(a) * b + add) >> sh;
    std::int64_t expect = ref > INT64_MAX ? INT64_MAX : (ref < INT64_MIN ? INT64_MIN : static_cast<std::int64_t>(ref));
    REQUIRE(q::detail::mul_add_shift(a, b, add, sh) == expect);
  }
}
