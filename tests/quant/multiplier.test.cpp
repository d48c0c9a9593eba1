// Scale → (multiplier, shift): armlower's integer-only recipes against the C library (frexp,
// round, nearbyint), i.e. the recipes of ExecuTorch (Python round = half to even) and TFLite
// (std::round = half away from zero) evaluated with an independent floating-point implementation.
#include <armlower/quant/multiplier.hpp>

#include <doctest/doctest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <random>

namespace q = armlower::quant;
using armlower::status;

namespace {

// ExecuTorch compute_multiplier_and_shift (executorch-arm.md §4.5) with <cmath>.
bool et_oracle(double scale, int offset, std::int64_t& mult, std::int64_t& shift) {
  int e = 0;
  const double m = std::frexp(scale, &e);
  mult = static_cast<std::int64_t>(std::nearbyint(std::ldexp(m, offset)));  // FE_TONEAREST: half even
  if (mult == (std::int64_t{1} << offset)) {
    mult /= 2;
    e += 1;
  }
  shift = offset - e;
  if (shift > 62) {
    mult >>= std::min<std::int64_t>(31, shift - 62);
    shift = 62;
  }
  return mult >= 0 && shift >= 2 && shift <= 62;
}

// TFLite QuantizeMultiplier (kernels.md §2.2) with <cmath>, double-rounding build.
void tflite_oracle(double m, std::int64_t& q, int& shift) {
  if (m == 0.0) { q = 0; shift = 0; return; }
  const double f = std::frexp(m, &shift);
  q = static_cast<std::int64_t>(std::round(f * static_cast<double>(1LL << 31)));
  if (q == (1LL << 31)) { q /= 2; ++shift; }
  if (shift < -31) { shift = 0; q = 0; }
}

}  // namespace

TEST_CASE("tosa_scale_to_multiplier matches the ExecuTorch recipe (32 and 16 bit)") {
  REQUIRE(std::fegetround() == FE_TONEAREST);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> mant(0.5, 1.0);
  std::uniform_int_distribution<int> expo(-70, 40);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    double scale = std::ldexp(mant(rng), expo(rng));
    if (i % 7 == 0) {  // exact ties of the 15/31-bit rounding
      const int off = (i % 2) ? 31 : 15;
      scale = std::ldexp(std::floor(std::ldexp(mant(rng), off)) + 0.5, expo(rng) - off);
    }
    if (i % 11 == 0) scale = std::ldexp(1.0 - std::ldexp(1.0, -(20 + i % 30)), expo(rng));  // 2^offset fix-up
    for (auto w : {q::multiplier_width::bits32, q::multiplier_width::bits16}) {
      const int offset = w == q::multiplier_width::bits32 ? 31 : 15;
      std::int64_t em = 0, es = 0;
      const bool ok = et_oracle(scale, offset, em, es);
      q::tosa_multiplier got{};
      const status st = q::tosa_scale_to_multiplier(scale, w, got);
      CHECK((st == status::ok) == ok);
      if (ok && st == status::ok) {
        CHECK(got.multiplier == em);
        CHECK(got.shift == es);
        ++checked;
      }
    }
  }
  CHECK(checked > 300000);
  q::tosa_multiplier t{};
  CHECK(q::tosa_scale_to_multiplier(1.0, q::multiplier_width::bits32, t) == status::ok);
  CHECK(t.multiplier == (1 << 30));
  CHECK(t.shift == 30);
  CHECK(q::tosa_scale_to_multiplier(0.0, q::multiplier_width::bits32, t) == status::ok);
  CHECK(t.multiplier == 0);
  CHECK(q::tosa_scale_to_multiplier(-1.0, q::multiplier_width::bits32, t) == status::scale_out_of_range);
  CHECK(q::tosa_scale_to_multiplier(NAN, q::multiplier_width::bits16, t) == status::scale_out_of_range);
  CHECK(q::tosa_scale_to_multiplier(INFINITY, q::multiplier_width::bits16, t) == status::scale_out_of_range);
  CHECK(q::tosa_scale_to_multiplier(std::ldexp(1.0, 30), q::multiplier_width::bits32, t) ==
        status::shift_out_of_range);
  CHECK(q::tosa_scale_to_multiplier(std::ldexp(1.0, 14), q::multiplier_width::bits16, t) ==
        status::shift_out_of_range);
  // Tiny scales: shift capped at 62, multiplier right-shifted (ExecuTorch), incl. subnormals.
  CHECK(q::tosa_scale_to_multiplier(4.9e-324, q::multiplier_width::bits32, t) == status::ok);
  CHECK(t.shift == 62);
  CHECK(t.multiplier == 0);
  static_assert([] {
    q::tosa_multiplier r{};
    return q::tosa_scale_to_multiplier(0.5, q::multiplier_width::bits16, r) == status::ok &&
           r.multiplier == (1 << 14) && r.shift == 15;
  }());
}

TEST_CASE("quantize_multiplier matches TFLite QuantizeMultiplier") {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> mant(0.5, 1.0);
  std::uniform_int_distribution<int> expo(-40, 30);
  for (int i = 0; i < 200000; ++i) {
    double m = std::ldexp(mant(rng), expo(rng));
    if (i % 5 == 0) m = std::ldexp(std::floor(std::ldexp(mant(rng), 31)) + 0.5, expo(rng) - 31);  // ties
    std::int64_t eq = 0;
    int es = 0;
    tflite_oracle(m, eq, es);
    q::quantized_multiplier got{};
    const status st = q::quantize_multiplier(m, got);
    if (es > 30) {
      CHECK(st == status::shift_out_of_range);
      continue;
    }
    REQUIRE(st == status::ok);
    CHECK(got.multiplier == eq);
    CHECK(got.shift == es);
  }
  q::quantized_multiplier r{};
  CHECK(q::quantize_multiplier(std::ldexp(1.0, 31), r, q::tflite_rounding_build::single_rounding) == status::ok);
  CHECK(r.multiplier == 2147483647);
  CHECK(r.shift == 30);
  CHECK(q::quantize_multiplier(std::ldexp(1.0, -40), r) == status::ok);  // flushed
  CHECK(r.multiplier == 0);
  CHECK(r.shift == 0);
  CHECK(q::quantize_multiplier(-0.5, r) == status::scale_out_of_range);
}

TEST_CASE("per-tensor scale product is float32, per-channel is double (TFLite)") {
  // 0.1f * 0.3f rounds in float32 first; the double product differs in the low bits.
  const float in = 0.1f, w = 0.3f, out = 0.7f;
  const double pt = q::per_tensor_real_multiplier(in, w, out);
  const double pc = q::per_channel_real_multiplier(in, w, out);
  CHECK(pt == static_cast<double>(in * w) / static_cast<double>(out));
  CHECK(pc == static_cast<double>(in) * static_cast<double>(w) / static_cast<double>(out));
  CHECK(pt != pc);
}

TEST_CASE("TFLite <-> TOSA multiplier mappings and REDUCE_MULTIPLIER") {
  CHECK(q::reduce_multiplier(0x7FFF0000) == 0x7FFF);
  CHECK(q::reduce_multiplier(0x7FFEFFFF) == 0x7FFF);
  CHECK(q::reduce_multiplier(1 << 30) == (1 << 14));
  CHECK(q::reduce_multiplier(2143068030) == ((2143068030LL + 32768) >> 16));
  q::tosa_multiplier t{};
  CHECK(q::tosa_from_tflite({1342580370, -9}, t) == status::ok);
  CHECK(t.multiplier == 1342580370);
  CHECK(t.shift == 40);
  CHECK(q::tosa_from_tflite({1342580370, 30}, t) == status::shift_out_of_range);
  CHECK(q::tosa_from_tflite({-1, 0}, t) == status::multiplier_out_of_range);
  CHECK(q::tosa16_from_tflite({2143068030, -10}, t) == status::ok);
  CHECK(t.multiplier == q::reduce_multiplier(2143068030));
  CHECK(t.shift == 25);
  q::quantized_multiplier back{};
  CHECK(q::tflite_from_tosa({1342580370, 40}, back) == status::ok);
  CHECK(back.multiplier == 1342580370);
  CHECK(back.shift == -9);
  CHECK(q::tflite_from_tosa({1, 1}, back) == status::shift_out_of_range);
}
