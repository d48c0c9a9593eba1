/// @file armlower/dtype/dtype.hpp
/// The TOSA element types (dtypes) as one enum, one constexpr trait table, and one tag type
/// per dtype, so a dtype is a run-time value *and* a compile-time type.
///
/// Source of the facts: TOSA 1.0 specification "Supported Number Formats" and the TOSA 1.1
/// draft additions; serialized `DType` enum values of the FBS-1.0 and FBS-1.1 schemas
/// (`tosa.fbs` of the TOSA serialization library, tosa-tools). Firmware-clean: standard headers only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <armlower/core/version.hpp>

namespace armlower::dtype {

/// Every TOSA 1.0 and 1.1-draft element type. The enumerator order is armlower's own
/// (dense, 0-based, usable as an index); the serialized numbers live in `info::fbs10` /
/// `info::fbs11`.
enum class id : std::uint8_t {
  boolean,   ///< BOOL: 1 byte on the wire, 0 or 1
  i4,        ///< INT4: −7..7, packed two per byte (EXT-INT4)
  i8,        ///< INT8
  i16,       ///< INT16 (EXT-INT16 for activations)
  i32,       ///< INT32
  i48,       ///< INT48: accumulator of i16×i8; 6 little-endian bytes on the wire, int64 in memory
  i64,       ///< INT64 (1.1, EXT-INT64)
  fp16,      ///< IEEE binary16
  bf16,      ///< bfloat16 (EXT-BF16)
  fp32,      ///< IEEE binary32
  fp8e4m3,   ///< OCP OFP8 E4M3FN: ±448, no Inf, one NaN per sign
  fp8e5m2,   ///< OCP OFP8 E5M2: ±57344, Inf and NaN
  fp6e2m3,   ///< OCP MX FP6 E2M3: ±7.5 (1.1, EXT-MXFP)
  fp6e3m2,   ///< OCP MX FP6 E3M2: ±28 (1.1, EXT-MXFP)
  fp4e2m1,   ///< OCP MX FP4 E2M1: ±6, packed two per byte (1.1, EXT-MXFP)
  fp8ue8m0,  ///< OCP MX E8M0 scale: 2^−127..2^127, 0xFF = NaN (1.1, EXT-MXFP)
  mxint8,    ///< OCP MX INT8 element: two's complement ×2^−6, −2..1+63/64 (1.1, EXT-MXFP)
  shape,     ///< shape_t: int64 per element on the wire
};

/// Number of dtypes; `static_cast<std::size_t>(id)` is always `< count`.
inline constexpr std::size_t count = 18;

/// Broad family of a dtype, used by the lattice and by printing.
enum class family : std::uint8_t { boolean, integer, floating, block_scale, shape };

/// TOSA specification version in which a dtype (or op row) first appears: the core
/// `armlower::tosa_version` (core/version.hpp), also named `tosa::version`.
using since = armlower::tosa_version;

/// Facts about one dtype.
struct info {
  std::string_view name;     ///< TOSA spelling, e.g. "INT48", "FP8UE8M0"
  std::string_view short_name;  ///< armlower spelling, e.g. "i48", "fp8ue8m0"
  std::uint8_t bits;         ///< bits of information per element (BOOL: 1, INT48: 48, FP6: 6)
  std::uint8_t storage_bits; ///< bits per element on the wire (INT4/FP4: 4; FP6: 8; INT48: 48)
  std::uint8_t memory_bytes; ///< bytes of the natural in-memory C++ type (INT48 and SHAPE: 8)
  bool is_signed;            ///< has a sign bit / is two's complement (FP8UE8M0: false)
  family fam;
  std::int64_t int_min;      ///< smallest integer value (integers, BOOL, SHAPE); 0 for floats
  std::int64_t int_max;      ///< largest integer value (integers, BOOL, SHAPE); 0 for floats
  double float_max;          ///< largest finite value (floats, MXINT8, E8M0); 0 for integers
  since added;               ///< first TOSA version with the dtype
  // Number-format facts (used by the lattice, `dtype/lattice.hpp`). Floats: value of a normal
  // code = (-1)^s · 2^(e - exponent_bias) · (1 + m / 2^mantissa_bits); subnormal (e == 0):
  // (-1)^s · 2^(1 - exponent_bias) · m / 2^mantissa_bits. FP8UE8M0 has no subnormals and no zero:
  // every code e ≠ 0xFF is 2^(e - 127). Integers, BOOL and SHAPE: all zero / false.
  std::uint8_t exponent_bits;  ///< exponent field width (FP16 5, BF16/FP32/FP8UE8M0 8, FP4E2M1 2)
  std::uint8_t mantissa_bits;  ///< explicit mantissa (fraction) bits (FP32 23, FP8E4M3 3, FP8UE8M0 0)
  std::int16_t exponent_bias;  ///< exponent bias (FP32 127, FP16 15, FP8E4M3 7, FP6E3M2 3, FP4E2M1 1)
  bool has_inf;                ///< has ±infinity (FP16, BF16, FP32, FP8E5M2)
  bool has_nan;                ///< has NaN codes (FP16, BF16, FP32, FP8E4M3, FP8E5M2, FP8UE8M0)
  std::uint8_t fraction_bits;  ///< fixed-point formats: value = two's complement code · 2^-fraction_bits (MXINT8: 6)
};

namespace detail {
inline constexpr std::int64_t i64_min = -9223372036854775807LL - 1;
inline constexpr std::int64_t i64_max = 9223372036854775807LL;
}  // namespace detail

/// The one dtype trait table, indexed by `id`. INT4's range is the symmetric −7..7 of the
/// spec (−8 is rejected on serialization). MXINT8's float_max is 1 + 63/64.
inline constexpr std::array<info, count> table{{
    {"BOOL", "bool", 1, 8, 1, false, family::boolean, 0, 1, 0.0, since::v1_0,
     0, 0, 0, false, false, 0},
    {"INT4", "i4", 4, 4, 1, true, family::integer, -7, 7, 0.0, since::v1_0,
     0, 0, 0, false, false, 0},
    {"INT8", "i8", 8, 8, 1, true, family::integer, -128, 127, 0.0, since::v1_0,
     0, 0, 0, false, false, 0},
    {"INT16", "i16", 16, 16, 2, true, family::integer, -32768, 32767, 0.0, since::v1_0,
     0, 0, 0, false, false, 0},
    {"INT32", "i32", 32, 32, 4, true, family::integer, -2147483647LL - 1, 2147483647LL, 0.0,
     since::v1_0,
     0, 0, 0, false, false, 0},
    {"INT48", "i48", 48, 48, 8, true, family::integer, -(1LL << 47), (1LL << 47) - 1, 0.0,
     since::v1_0,
     0, 0, 0, false, false, 0},
    {"INT64", "i64", 64, 64, 8, true, family::integer, detail::i64_min, detail::i64_max, 0.0, since::v1_1,
     0, 0, 0, false, false, 0},
    {"FP16", "fp16", 16, 16, 2, true, family::floating, 0, 0, 65504.0, since::v1_0,
     5, 10, 15, true, true, 0},
    {"BF16", "bf16", 16, 16, 2, true, family::floating, 0, 0, 3.3895313892515355e38,
     since::v1_0,
     8, 7, 127, true, true, 0},
    {"FP32", "fp32", 32, 32, 4, true, family::floating, 0, 0, 3.4028234663852886e38,
     since::v1_0,
     8, 23, 127, true, true, 0},
    {"FP8E4M3", "fp8e4m3", 8, 8, 1, true, family::floating, 0, 0, 448.0, since::v1_0,
     4, 3, 7, false, true, 0},
    {"FP8E5M2", "fp8e5m2", 8, 8, 1, true, family::floating, 0, 0, 57344.0, since::v1_0,
     5, 2, 15, true, true, 0},
    {"FP6E2M3", "fp6e2m3", 6, 8, 1, true, family::floating, 0, 0, 7.5, since::v1_1,
     2, 3, 1, false, false, 0},
    {"FP6E3M2", "fp6e3m2", 6, 8, 1, true, family::floating, 0, 0, 28.0, since::v1_1,
     3, 2, 3, false, false, 0},
    {"FP4E2M1", "fp4e2m1", 4, 4, 1, true, family::floating, 0, 0, 6.0, since::v1_1,
     2, 1, 1, false, false, 0},
    {"FP8UE8M0", "fp8ue8m0", 8, 8, 1, false, family::block_scale, 0, 0, 1.7014118346046923e38, since::v1_1,
     8, 0, 127, false, true, 0},
    {"MXINT8", "mxint8", 8, 8, 1, true, family::floating, 0, 0, 1.984375, since::v1_1,
     0, 0, 0, false, false, 6},
    {"SHAPE", "shape", 64, 64, 8, true, family::shape, detail::i64_min, detail::i64_max, 0.0, since::v1_0,
     0, 0, 0, false, false, 0},
}};

/// Traits of `d`. Never fails: every `id` has a row.
[[nodiscard]] constexpr const info& traits(id d) noexcept {
  return table[static_cast<std::size_t>(d)];
}
/// TOSA spelling of `d` ("INT8").
[[nodiscard]] constexpr std::string_view name(id d) noexcept { return traits(d).name; }
/// True for the integer family (INT4..INT64; not BOOL, not SHAPE).
[[nodiscard]] constexpr bool is_integer(id d) noexcept {
  return traits(d).fam == family::integer;
}
/// True for the floating family (FP16/BF16/FP32, FP8, FP6, FP4, MXINT8).
[[nodiscard]] constexpr bool is_float(id d) noexcept { return traits(d).fam == family::floating; }

/// Looks a dtype up by its TOSA spelling ("INT8") or armlower spelling ("i8").
/// Returns false when the name is unknown.
[[nodiscard]] constexpr bool from_name(std::string_view s, id& out) noexcept {
  for (std::size_t i = 0; i < count; ++i) {
    if (table[i].name == s || table[i].short_name == s) {
      out = static_cast<id>(i);
      return true;
    }
  }
  return false;
}

/// A dtype as a type: `tag<id::i8>` is an empty, structural class type convertible to `id`,
/// so `dtype::i8` works as a function argument, as a template argument (`auto` NTTP) and as
/// a type (`decltype(dtype::i8)` / `dtype::i8_t`).
template <id D>
struct tag {
  static constexpr id value = D;
  constexpr operator id() const noexcept { return D; }  // NOLINT(google-explicit-constructor)
};

using bool_t = tag<id::boolean>;
using i4_t = tag<id::i4>;
using i8_t = tag<id::i8>;
using i16_t = tag<id::i16>;
using i32_t = tag<id::i32>;
using i48_t = tag<id::i48>;
using i64_t = tag<id::i64>;
using fp16_t = tag<id::fp16>;
using bf16_t = tag<id::bf16>;
using fp32_t = tag<id::fp32>;
using fp8e4m3_t = tag<id::fp8e4m3>;
using fp8e5m2_t = tag<id::fp8e5m2>;
using fp6e2m3_t = tag<id::fp6e2m3>;
using fp6e3m2_t = tag<id::fp6e3m2>;
using fp4e2m1_t = tag<id::fp4e2m1>;
using fp8ue8m0_t = tag<id::fp8ue8m0>;
using mxint8_t = tag<id::mxint8>;
using shape_t = tag<id::shape>;

inline constexpr bool_t boolean{};
inline constexpr i4_t i4{};
inline constexpr i8_t i8{};
inline constexpr i16_t i16{};
inline constexpr i32_t i32{};
inline constexpr i48_t i48{};
inline constexpr i64_t i64{};
inline constexpr fp16_t fp16{};
inline constexpr bf16_t bf16{};
inline constexpr fp32_t fp32{};
inline constexpr fp8e4m3_t fp8e4m3{};
inline constexpr fp8e5m2_t fp8e5m2{};
inline constexpr fp6e2m3_t fp6e2m3{};
inline constexpr fp6e3m2_t fp6e3m2{};
inline constexpr fp4e2m1_t fp4e2m1{};
inline constexpr fp8ue8m0_t fp8ue8m0{};
inline constexpr mxint8_t mxint8{};
inline constexpr shape_t shape{};

/// Converts a dtype given as an `id` or as a `tag` to `id` (for `auto` template parameters).
template <class T>
[[nodiscard]] constexpr id to_id(T t) noexcept {
  return static_cast<id>(t);
}

}  // namespace armlower::dtype

namespace armlower {
// The DESIGN spelling `armlower::i16` is the same value as `armlower::dtype::i16`.
using dtype::i4;
using dtype::i8;
using dtype::i16;
using dtype::i32;
using dtype::i48;
using dtype::i64;
using dtype::fp16;
using dtype::bf16;
using dtype::fp32;
using dtype::fp8e4m3;
using dtype::fp8e5m2;
using dtype::fp6e2m3;
using dtype::fp6e3m2;
using dtype::fp4e2m1;
using dtype::fp8ue8m0;
using dtype::mxint8;
}  // namespace armlower
