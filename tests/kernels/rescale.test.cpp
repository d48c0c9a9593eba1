// RESCALE: every ERROR_IF and REQUIRE of TOSA's pseudocode (tosa.md §3.4) is reported as a status.
// (Numerical results are checked against the TOSA reference model in tosa_ref.test.cpp.)
#include <armlower/kernels/rescale.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace k = armlower::kernels;
using armlower::status;
using armlower::dtype::id;
using armlower::quant::rounding;

namespace {
struct fixture {
  std::int32_t in32[4] = {1, -2, 3, 1 << 30};
  std::int16_t in16[4] = {1, -2, 3, 4};
  std::int8_t in8[4] = {1, -2, 3, 4};
  std::int64_t in48[4] = {1, -2, 3, 4};
  std::int8_t out8[4] = {};
  std::int32_t mult[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
  std::int32_t shift[4] = {32, 32, 32, 32};
  k::rescale_args base() {
    k::rescale_args a;
    a.in_t = id::i32;
    a.out_t = id::i8;
    a.input = in32;
    a.output = out8;
    a.count = 4;
    a.channels = 4;
    a.multiplier = mult;
    a.shift = shift;
    return a;
  }
};
}  // namespace

TEST_CASE("RESCALE ERROR_IF and REQUIRE conditions give status errors") {
  fixture f;
  auto a = f.base();
  CHECK(k::rescale(a) == status::ok);
  CHECK(f.out8[3] == 127);  // 2^30 · 2^30 / 2^32 = 2^28, saturated
  a = f.base(); a.in_t = id::fp32; CHECK(k::rescale(a) == status::unsupported_type);
  a = f.base(); a.out_t = id::i48; CHECK(k::rescale(a) == status::unsupported_type);
  a = f.base(); a.input = nullptr; CHECK(k::rescale(a) == status::null_pointer);
  a = f.base(); a.multiplier = nullptr; CHECK(k::rescale(a) == status::null_pointer);
  a = f.base(); a.count = 0; CHECK(k::rescale(a) == status::empty_dimension);
  a = f.base(); a.per_channel = true; a.channels = 3; CHECK(k::rescale(a) == status::shape_mismatch);
  // ERROR_IF(scale32 && in_t == i48)
  a = f.base(); a.in_t = id::i48; a.input = f.in48; CHECK(k::rescale(a) == status::invalid_attribute);
  // ERROR_IF(!scale32 && rounding_mode == DOUBLE_ROUND)
  a = f.base(); a.scale32 = false; a.rounding = rounding::double_round; f.mult[0] = 0;
  CHECK(k::rescale(a) == status::invalid_attribute);
  // ERROR_IF(input_unsigned && output_unsigned)
  a = f.base(); a.in_t = id::i8; a.input = f.in8; a.input_unsigned = a.output_unsigned = true;
  CHECK(k::rescale(a) == status::invalid_attribute);
  // unsigned with 32-bit sides
  a = f.base(); a.input_unsigned = true; CHECK(k::rescale(a) == status::invalid_attribute);
  a = f.base(); a.output_unsigned = true; CHECK(k::rescale(a) == status::invalid_attribute);
  a = f.base(); a.in_t = id::i8; a.input = f.in8; a.out_t = id::i32; a.input_unsigned = true;
  CHECK(k::rescale(a) == status::invalid_attribute);
  // zero points: non-zero only for i8, or unsigned i16 with 32768
  a = f.base(); a.input_zp = 1; CHECK(k::rescale(a) == status::zero_point_out_of_range);
  a = f.base(); a.in_t = id::i16; a.input = f.in16; a.input_zp = 5; CHECK(k::rescale(a) == status::zero_point_out_of_range);
  a = f.base(); a.in_t = id::i16; a.input = f.in16; a.input_unsigned = true; a.input_zp = 5;
  CHECK(k::rescale(a) == status::zero_point_out_of_range);
  a = f.base(); a.in_t = id::i16; a.input = f.in16; a.input_unsigned = true; a.input_zp = 32768;
  CHECK(k::rescale(a) == status::ok);
  a = f.base(); a.in_t = id::i8; a.input = f.in8; a.input_zp = 200;  // not an int8 and not unsigned
  CHECK(k::rescale(a) == status::zero_point_out_of_range);
  a = f.base(); a.in_t = id::i8; a.input = f.in8; a.input_unsigned = true; a.input_zp = 200;
  CHECK(k::rescale(a) == status::ok);
  a = f.base(); a.out_t = id::i32; std::int32_t o32[4]; a.output = o32; a.output_zp = 3;
  CHECK(k::rescale(a) == status::zero_point_out_of_range);
  // REQUIRE(multiplier >= 0), 16-bit multipliers <= 32767, 2 <= shift <= 62
  a = f.base(); f.mult[0] = -1; CHECK(k::rescale(a) == status::multiplier_out_of_range); f.mult[0] = 1 << 30;
  a = f.base(); a.scale32 = false; CHECK(k::rescale(a) == status::multiplier_out_of_range);
  a = f.base(); f.shift[0] = 1; CHECK(k::rescale(a) == status::shift_out_of_range);
  f.shift[0] = 63; CHECK(k::rescale(a) == status::shift_out_of_range); f.shift[0] = 32;
  // per-channel: the last channel's parameters are checked too
  a = f.base(); a.per_channel = true; f.shift[3] = 0; CHECK(k::rescale(a) == status::shift_out_of_range);
  f.shift[3] = 32;
  // REQUIRE(-(1 << (shift-1)) <= value < (1 << (shift-1))) in apply_scale_32
  a = f.base(); for (auto& s : f.shift) s = 20;
  CHECK(k::rescale(a) == status::value_out_of_range);  // 2^30 >= 2^19
  for (auto& s : f.shift) s = 32;
  // INT48 input must be an int48; apply_scale_16 result must fit int32
  a = f.base(); a.in_t = id::i48; a.input = f.in48; a.scale32 = false; for (auto& m : f.mult) m = 32767;
  f.in48[2] = std::int64_t{1} << 47; CHECK(k::rescale(a) == status::value_out_of_range);
  f.in48[2] = (std::int64_t{1} << 47) - 1; for (auto& s : f.shift) s = 2;
  CHECK(k::rescale(a) == status::value_out_of_range);
  for (auto& s : f.shift) s = 40;
  CHECK(k::rescale(a) == status::ok);
  // rounding must be SINGLE or DOUBLE
  a = f.base(); a.rounding = static_cast<rounding>(2); CHECK(k::rescale(a) == status::invalid_attribute);
}

namespace {

/// TOSA RESCALE element by element as the pseudocode states it (`apply_scale_32` / `apply_scale_16` of
/// `quant`, the output add REQUIRE, the clip), for arguments that `validate` accepts: the status and
/// the output values (as int64, unsigned outputs as their unsigned value).
status rescale_oracle(const k::rescale_args& a, std::vector<std::int64_t>& out) {
  const auto in_at = [&a](std::size_t i) -> std::int64_t {
    switch (a.in_t) {
      case id::i8: return a.input_unsigned ? static_cast<const std::uint8_t*>(a.input)[i] : static_cast<const std::int8_t*>(a.input)[i];
      case id::i16: return a.input_unsigned ? static_cast<const std::uint16_t*>(a.input)[i] : static_cast<const std::int16_t*>(a.input)[i];
      case id::i32: return static_cast<const std::int32_t*>(a.input)[i];
      default: return static_cast<const std::int64_t*>(a.input)[i];
    }
  };
  const auto zp = [](id t, bool u, std::int32_t z) -> std::int64_t {
    return u ? (t == id::i8 ? z & 0xFF : z & 0xFFFF) : z;
  };
  const std::int64_t izp = zp(a.in_t, a.input_unsigned, a.input_zp), ozp = zp(a.out_t, a.output_unsigned, a.output_zp);
  const int bits = a.out_t == id::i8 ? 8 : a.out_t == id::i16 ? 16 : 32;
  const std::int64_t lo = a.output_unsigned ? 0 : -(std::int64_t{1} << (bits - 1));
  const std::int64_t hi = a.output_unsigned ? (std::int64_t{1} << bits) - 1 : (std::int64_t{1} << (bits - 1)) - 1;
  out.assign(a.count, 0);
  for (std::size_t i = 0; i < a.count; ++i) {
    const std::size_t c = a.per_channel ? i % static_cast<std::size_t>(a.channels) : 0;
    const std::int64_t v = in_at(i) - izp;
    std::int32_t r = 0;
    const status s = a.scale32 ? armlower::quant::apply_scale_32(static_cast<std::int32_t>(v), a.multiplier[c], a.shift[c],
                                                                 a.rounding == rounding::double_round, r)
                               : armlower::quant::apply_scale_16(v, a.multiplier[c], a.shift[c], r);
    if (s != status::ok) return s;
    const std::int64_t y = std::int64_t{r} + ozp;
    if (y < INT32_MIN || y > INT32_MAX) return status::value_out_of_range;
    out[i] = y < lo ? lo : y > hi ? hi : y;
  }
  return status::ok;
}

}  // namespace

TEST_CASE("RESCALE == the pseudocode element by element, every row, on random arguments (the AVX-512 path where the CPU has it)") {
  std::mt19937_64 rng(77);
  const auto pick = [&rng](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const id in_types[] = {id::i8, id::i16, id::i32, id::i48}, out_types[] = {id::i8, id::i16, id::i32};
  int checked = 0, wide_ok = 0, wide_fail = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    k::rescale_args a;
    a.in_t = in_types[pick(0, 3)];
    a.out_t = out_types[pick(0, 2)];
    a.scale32 = a.in_t == id::i48 ? false : pick(0, 4) != 0;
    a.rounding = a.scale32 && pick(0, 1) ? rounding::double_round : rounding::single_round;
    a.per_channel = pick(0, 1) != 0;
    a.input_unsigned = a.in_t == id::i8 || a.in_t == id::i16 ? pick(0, 5) == 0 : false;
    a.output_unsigned = !a.input_unsigned && (a.out_t == id::i8 || a.out_t == id::i16) && a.in_t != id::i32 && a.in_t != id::i48 && pick(0, 5) == 0;
    const auto channels = static_cast<std::int32_t>(pick(1, 20));
    const auto rows = static_cast<std::size_t>(pick(1, 3));
    a.channels = channels;
    a.count = rows * static_cast<std::size_t>(channels);
    const std::size_t nm = a.per_channel ? static_cast<std::size_t>(channels) : 1;
    std::vector<std::int32_t> mult(nm), shift(nm);
    for (std::size_t c = 0; c < nm; ++c) {
      shift[c] = static_cast<std::int32_t>(pick(0, 3) == 0 ? pick(2, 62) : pick(28, 46));
      mult[c] = static_cast<std::int32_t>(a.scale32 ? pick(0, INT32_MAX) : pick(0, 32767));
    }
    a.multiplier = mult.data();
    a.shift = shift.data();
    if (a.in_t == id::i8) a.input_zp = static_cast<std::int32_t>(a.input_unsigned ? pick(0, 255) : pick(-128, 127));
    if (a.in_t == id::i16 && a.input_unsigned) a.input_zp = pick(0, 1) ? 32768 : 0;
    if (a.out_t == id::i8) a.output_zp = static_cast<std::int32_t>(a.output_unsigned ? pick(0, 255) : pick(-128, 127));
    if (a.out_t == id::i16 && a.output_unsigned) a.output_zp = pick(0, 1) ? 32768 : 0;
    // inputs: mostly small accumulators, sometimes the full range of the storage (REQUIRE failures)
    const bool extreme = pick(0, 7) == 0;
    std::vector<std::int8_t> i8(a.count);
    std::vector<std::int16_t> i16(a.count);
    std::vector<std::int32_t> i32(a.count);
    std::vector<std::int64_t> i48(a.count);
    for (std::size_t i = 0; i < a.count; ++i) {
      i8[i] = static_cast<std::int8_t>(pick(-128, 127));
      i16[i] = static_cast<std::int16_t>(pick(-32768, 32767));
      i32[i] = static_cast<std::int32_t>(extreme ? pick(INT32_MIN, INT32_MAX) : pick(-3000000, 3000000));
      i48[i] = extreme ? pick(-(std::int64_t{1} << 47), (std::int64_t{1} << 47) - 1) : pick(-300000000, 300000000);
    }
    if (extreme && a.in_t == id::i48 && pick(0, 3) == 0) i48[a.count - 1] = std::int64_t{1} << 47;  // not an int48
    if (extreme && a.in_t == id::i32 && pick(0, 1) == 0) {  // at the edges of apply_scale_32's REQUIRE −2^(s−1) ≤ v < 2^(s−1)
      const std::size_t i = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(a.count) - 1));
      const std::int32_t s = shift[a.per_channel ? i % static_cast<std::size_t>(channels) : 0];
      const std::int64_t half = s <= 32 ? std::int64_t{1} << (s - 1) : std::int64_t{1} << 31;
      const std::int64_t edge[] = {-half - 1, -half, half - 1, half};
      i32[i] = static_cast<std::int32_t>(std::clamp<std::int64_t>(edge[pick(0, 3)], INT32_MIN, INT32_MAX));
    }
    a.input = a.in_t == id::i8 ? static_cast<const void*>(i8.data()) : a.in_t == id::i16 ? static_cast<const void*>(i16.data())
              : a.in_t == id::i32 ? static_cast<const void*>(i32.data()) : static_cast<const void*>(i48.data());
    std::vector<std::int8_t> o8(a.count);
    std::vector<std::int16_t> o16(a.count);
    std::vector<std::int32_t> o32(a.count);
    a.output = a.out_t == id::i8 ? static_cast<void*>(o8.data()) : a.out_t == id::i16 ? static_cast<void*>(o16.data()) : static_cast<void*>(o32.data());
    if (k::validate(a) != status::ok) continue;
    CAPTURE(iter);
    std::vector<std::int64_t> want;
    const status ws = rescale_oracle(a, want);
    const status gs = k::rescale(a);
    REQUIRE(gs == ws);
    ++checked;
    const bool wide = (a.in_t == id::i32 && a.scale32) || a.in_t == id::i48;
    if (wide) ++(ws == status::ok ? wide_ok : wide_fail);
    if (ws != status::ok) continue;
    for (std::size_t i = 0; i < a.count; ++i) {
      CAPTURE(i);
      const std::int64_t got = a.out_t == id::i8 ? (a.output_unsigned ? static_cast<std::uint8_t>(o8[i]) : o8[i])
                               : a.out_t == id::i16 ? (a.output_unsigned ? static_cast<std::uint16_t>(o16[i]) : o16[i])
                                                    : o32[i];
      REQUIRE(got == want[i]);
    }
  }
  // enough cases of every kind, the rows of a lowered linear layer (INT32 scale32, INT48) both passing and failing
  CHECK(checked > 5000);
  CHECK(wide_ok > 1000);
  CHECK(wide_fail > 100);
}
