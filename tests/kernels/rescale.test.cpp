// RESCALE: every ERROR_IF and REQUIRE of TOSA's pseudocode (tosa.md §3.4) is reported as a status.
// (Numerical results are checked against the TOSA reference model in tosa_ref.test.cpp.)
#include <armlower/kernels/rescale.hpp>

#include <doctest/doctest.h>

#include <cstdint>

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
