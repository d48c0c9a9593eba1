/// @file armlower/kernels/storage.hpp
/// The C++ element type a kernel computes a TOSA dtype in: `storage_t<dtype::id::i8>` is
/// `std::int8_t`. Kernels are templates on these storage types; callers that know a type-support
/// row (input, weight, accumulator dtypes — `tosa::op_table`, read at compile time) name the
/// instantiation through this map instead of re-listing storage combinations.
///  - INT4, INT8 → `int8_t` (INT4 values widened); INT16 → `int16_t`; INT32 → `int32_t`;
///    INT48 → `int64_t` (48-bit values in 64-bit storage).
///  - FP16, BF16, FP32, FP8E4M3, FP8E5M2 → `float` (every value exact in fp32; the kernel rounds
///    to the row's accumulator and output formats, `kernels::float_rounding`).
///  - Other dtypes: `void` (no kernel computes in them).
/// Firmware-clean (type mapping only).
#pragma once

#include <concepts>
#include <cstdint>

#include <armlower/dtype/dtype.hpp>

namespace armlower::kernels {

/// Storage type of dtype `D` (see the file comment); `type` is `void` when no kernel computes in `D`.
template <dtype::id D>
struct storage {
  using type = void;
};
template <> struct storage<dtype::id::i4> { using type = std::int8_t; };
template <> struct storage<dtype::id::i8> { using type = std::int8_t; };
template <> struct storage<dtype::id::i16> { using type = std::int16_t; };
template <> struct storage<dtype::id::i32> { using type = std::int32_t; };
template <> struct storage<dtype::id::i48> { using type = std::int64_t; };
template <> struct storage<dtype::id::fp16> { using type = float; };
template <> struct storage<dtype::id::bf16> { using type = float; };
template <> struct storage<dtype::id::fp32> { using type = float; };
template <> struct storage<dtype::id::fp8e4m3> { using type = float; };
template <> struct storage<dtype::id::fp8e5m2> { using type = float; };

/// `storage<D>::type`.
template <dtype::id D>
using storage_t = typename storage<D>::type;

/// Operand storage a dot-product kernel (`kernels::conv2d`, `kernels::matmul`) can compute a type
/// row in: a real row is `float` throughout (`storage_t` of every float dtype); an integer row
/// has `int8_t`/`int16_t` operands and an exact accumulator, `int32_t` (INT32) or `int64_t`
/// (INT48). Which rows exist is the op table's business (`tosa::rows_of`); callers name the
/// instantiation from a row through `storage_t`, so this is a structural check, not a row list.
template <class In, class Out>
concept dot_storage =
    (std::same_as<In, float> && std::same_as<Out, float>) ||
    ((std::same_as<In, std::int8_t> || std::same_as<In, std::int16_t>) &&
     (std::same_as<Out, std::int32_t> || std::same_as<Out, std::int64_t>));

}  // namespace armlower::kernels
