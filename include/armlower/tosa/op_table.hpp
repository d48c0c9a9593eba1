/// @file armlower/tosa/op_table.hpp
/// THE table of TOSA type-support rows for the ops armlower emits (one `inline constexpr`
/// array; every legality query, run-time or compile-time, reads it). Each row: op, operand
/// dtypes in a fixed slot order, the accumulator dtype, the requirement (profiles and/or
/// extensions, any-of or all-of) and the version that added the row.
///
/// Fixed operand-slot order (other modules code against it). The slots are stated once, in each
/// op's descriptor (`op_descriptor::slot_names`, and `operand::slot` marks which operand or
/// result fills each); `slots(o)` reads them and a static_assert below checks every row's arity
/// against them. Summary:
///
/// | op                      | slots (arity)                    | notes                                     |
/// |-------------------------|----------------------------------|-------------------------------------------|
/// | CONST                   | (t) 1                            | output tensor                             |
/// | RESHAPE, TRANSPOSE      | (t) 1                            | input1 = output                           |
/// | ADD, MAXIMUM, MINIMUM, CLAMP | (t) 1                            | all operands and output                   |
/// | CONV2D                  | (input, weight, output) 3        | output = bias dtype; `acc` = acc_type     |
/// | MATMUL                  | (A, B, output) 3                 | output = accumulator                      |
/// | RESCALE                 | (input, output) 2                | multiplier/shift/zp not included          |
/// | MUL                     | (input, output) 2                | input1 = input2; shift not included       |
/// | CAST                    | (input, output) 2                |                                           |
/// | CAST_TO_BLOCK_SCALED    | (input, output_data) 2           | output_scale is always fp8ue8m0           |
/// | CAST_FROM_BLOCK_SCALED  | (input_data, output) 2           | input_scale is always fp8ue8m0            |
/// | MATMUL_T_BLOCK_SCALED   | (A_data, B_data) 2               | scales fp8ue8m0, output always fp32       |
///
/// Source: TOSA 1.0 `tosa.xml` type-support tables and the 1.1-draft (EXT-MXFP) additions as
/// transcribed from the operator argument tables (requirement spelling as in MLIR's
/// generated compliance tables, §7). Deviations, each deliberate:
///  - CONV2D fp16 allows acc_type fp16 or fp32: two rows with the same slot dtypes, the fp32 one
///    first (armlower's preferred accumulator). `find_row` and the legality queries see the
///    first; `accumulator_allowed` accepts either (what `armlower check` and `run` validate).
///  - CAST_TO_BLOCK_SCALED bf16→fp4e2m1: the spec lists only EXT-MXFP while every other bf16
///    row needs EXT-MXFP and EXT-BF16; armlower requires both for all bf16 rows.
///  - CAST bool↔fp32 (PRO-FP) is only in the latest 1.1 draft; recorded as a 1.1 row.
///  - Where one (input, weight) pair has several output rows, the preferred (wider) one comes
///    first; `accumulator_dtype` returns the first legal one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <armlower/dtype/dtype.hpp>
#include <armlower/tosa/extension.hpp>
#include <armlower/tosa/op.hpp>
#include <armlower/tosa/op_descriptor.hpp>
#include <armlower/tosa/profile.hpp>
#include <armlower/tosa/version.hpp>

namespace armlower::tosa {

/// How the extensions of a requirement combine.
enum class condition : std::uint8_t {
  any_of,  ///< at least one listed extension must be supported
  all_of,  ///< every listed extension must be supported ("EXT-BF16 and EXT-FP8E4M3")
};

/// What a target must have for a row to be legal: one of `profiles` (when non-empty) and the
/// `extensions` (when non-empty) combined by `cond`. An extension counts only when the target
/// `supports()` it, which implies a profile that allows it (TOSA's cooperative profile).
struct requirement {
  profile_set profiles{};      ///< any of these profiles
  ext_set extensions{};        ///< extensions, combined by `cond`
  condition cond = condition::any_of;
  /// Same profiles, extensions and condition.
  friend constexpr bool operator==(const requirement&, const requirement&) = default;
};

/// One type-support row.
struct type_support_row {
  op o;                             ///< the operator
  std::uint8_t arity;               ///< number of dtype slots used (see the file table)
  std::array<dtype::id, 3> types;   ///< slot dtypes; unused slots are `dtype::id::boolean`
  dtype::id acc;                    ///< CONV2D/MATMUL accumulator; MATMUL_T_BLOCK_SCALED: fp32 output; else last slot
  requirement req;                  ///< what the target needs
  version added;                    ///< version that added the row

  /// The dtypes of the used slots.
  [[nodiscard]] constexpr std::span<const dtype::id> operands() const noexcept {
    return std::span<const dtype::id>(types.data(), arity);
  }
};

/// Number of dtype slots and their names for an op (the fixed slot order above).
struct op_slots {
  std::uint8_t arity;                     ///< number of dtype slots (1–3)
  std::array<std::string_view, 3> names;  ///< slot names in order ("input", "weight", ...)
};

/// Slot order of `o`: the descriptor's type-row slots (`tosa/op_descriptor.hpp`), so the slot
/// count and names are stated once, with the op's operands.
[[nodiscard]] constexpr op_slots slots(op o) noexcept {
  return {describe(o).n_slots, describe(o).slot_names};
}

namespace detail::rows {
using enum dtype::id;
using v = version;

inline constexpr requirement pro_int{profile::pro_int, {}, condition::any_of};
inline constexpr requirement pro_fp{profile::pro_fp, {}, condition::any_of};
inline constexpr requirement int_or_fp{profile::pro_int | profile::pro_fp, {}, condition::any_of};
constexpr requirement x(ext e) noexcept { return {{}, e, condition::any_of}; }
constexpr requirement x_and(ext a, ext b) noexcept { return {{}, a | b, condition::all_of}; }

constexpr type_support_row r1(op o, dtype::id t, requirement q, v since = v::v1_0) noexcept {
  return {o, 1, {t, boolean, boolean}, t, q, since};
}
constexpr type_support_row r2(op o, dtype::id a, dtype::id b, requirement q,
                              v since = v::v1_0) noexcept {
  return {o, 2, {a, b, boolean}, b, q, since};
}
constexpr type_support_row r3(op o, dtype::id a, dtype::id b, dtype::id c, dtype::id acc,
                              requirement q, v since = v::v1_0) noexcept {
  return {o, 3, {a, b, c}, acc, q, since};
}
constexpr type_support_row mt(dtype::id t) noexcept {
  return {op::matmul_t_block_scaled, 2, {t, t, boolean}, fp32, x(ext::mxfp), v::v1_1};
}

// clang-format off
inline constexpr std::array table{
    // CONST (t)                                                              TOSA 1.0 data_nodes.adoc
    r1(op::const_, boolean, int_or_fp), r1(op::const_, i8, int_or_fp),
    r1(op::const_, i16, int_or_fp), r1(op::const_, i32, int_or_fp),
    r1(op::const_, i4, x(ext::int4)), r1(op::const_, i48, x(ext::int16)),
    r1(op::const_, fp8e4m3, x(ext::fp8e4m3)), r1(op::const_, fp8e5m2, x(ext::fp8e5m2)),
    r1(op::const_, fp16, pro_fp), r1(op::const_, fp32, pro_fp), r1(op::const_, bf16, x(ext::bf16)),
    r1(op::const_, i64, x(ext::int64), v::v1_1),
    r1(op::const_, fp8ue8m0, x(ext::mxfp), v::v1_1), r1(op::const_, fp6e2m3, x(ext::mxfp), v::v1_1),
    r1(op::const_, fp6e3m2, x(ext::mxfp), v::v1_1), r1(op::const_, fp4e2m1, x(ext::mxfp), v::v1_1),
    r1(op::const_, mxint8, x(ext::mxfp), v::v1_1),
    // RESHAPE (t)                                                            TOSA 1.0 data_layout.adoc
    r1(op::reshape, boolean, int_or_fp), r1(op::reshape, i8, pro_int), r1(op::reshape, i16, pro_int),
    r1(op::reshape, i32, pro_int), r1(op::reshape, fp8e4m3, x(ext::fp8e4m3)),
    r1(op::reshape, fp8e5m2, x(ext::fp8e5m2)), r1(op::reshape, fp16, pro_fp),
    r1(op::reshape, fp32, pro_fp), r1(op::reshape, bf16, x(ext::bf16)),
    r1(op::reshape, i64, x(ext::int64), v::v1_1),
    r1(op::reshape, fp8ue8m0, x(ext::mxfp), v::v1_1), r1(op::reshape, fp6e2m3, x(ext::mxfp), v::v1_1),
    r1(op::reshape, fp6e3m2, x(ext::mxfp), v::v1_1), r1(op::reshape, fp4e2m1, x(ext::mxfp), v::v1_1),
    r1(op::reshape, mxint8, x(ext::mxfp), v::v1_1),
    // TRANSPOSE (t): same rows as RESHAPE                                    TOSA 1.0 data_layout.adoc
    r1(op::transpose, boolean, int_or_fp), r1(op::transpose, i8, pro_int),
    r1(op::transpose, i16, pro_int), r1(op::transpose, i32, pro_int),
    r1(op::transpose, fp8e4m3, x(ext::fp8e4m3)), r1(op::transpose, fp8e5m2, x(ext::fp8e5m2)),
    r1(op::transpose, fp16, pro_fp), r1(op::transpose, fp32, pro_fp),
    r1(op::transpose, bf16, x(ext::bf16)), r1(op::transpose, i64, x(ext::int64), v::v1_1),
    r1(op::transpose, fp8ue8m0, x(ext::mxfp), v::v1_1), r1(op::transpose, fp6e2m3, x(ext::mxfp), v::v1_1),
    r1(op::transpose, fp6e3m2, x(ext::mxfp), v::v1_1), r1(op::transpose, fp4e2m1, x(ext::mxfp), v::v1_1),
    r1(op::transpose, mxint8, x(ext::mxfp), v::v1_1),
    // CONV2D (input, weight, output) + acc                                   TOSA 1.0 CONV2D, chapters/tensor_ops.adoc
    r3(op::conv2d, i8, i8, i32, i32, pro_int),
    r3(op::conv2d, i8, i4, i32, i32, x(ext::int4)),
    r3(op::conv2d, i16, i8, i48, i48, x(ext::int16)),
    r3(op::conv2d, fp8e4m3, fp8e4m3, fp32, fp32, x(ext::fp8e4m3), v::v1_1),
    r3(op::conv2d, fp8e4m3, fp8e4m3, fp16, fp16, x(ext::fp8e4m3)),
    r3(op::conv2d, fp8e5m2, fp8e5m2, fp32, fp32, x(ext::fp8e5m2), v::v1_1),
    r3(op::conv2d, fp8e5m2, fp8e5m2, fp16, fp16, x(ext::fp8e5m2)),
    r3(op::conv2d, fp16, fp16, fp16, fp32, pro_fp),
    r3(op::conv2d, fp16, fp16, fp16, fp16, pro_fp),
    r3(op::conv2d, bf16, bf16, bf16, fp32, x(ext::bf16)),
    r3(op::conv2d, fp32, fp32, fp32, fp32, pro_fp),
    // MATMUL (A, B, output)                                                  TOSA 1.0 MATMUL, chapters/tensor_ops.adoc
    r3(op::matmul, i8, i8, i32, i32, pro_int),
    r3(op::matmul, i16, i16, i48, i48, x(ext::int16)),
    r3(op::matmul, fp8e4m3, fp8e4m3, fp32, fp32, x(ext::fp8e4m3), v::v1_1),
    r3(op::matmul, fp8e4m3, fp8e4m3, fp16, fp16, x(ext::fp8e4m3)),
    r3(op::matmul, fp8e5m2, fp8e5m2, fp32, fp32, x(ext::fp8e5m2), v::v1_1),
    r3(op::matmul, fp8e5m2, fp8e5m2, fp16, fp16, x(ext::fp8e5m2)),
    r3(op::matmul, fp8e4m3, fp8e5m2, fp32, fp32, x_and(ext::fp8e4m3, ext::fp8e5m2), v::v1_1),
    r3(op::matmul, fp8e4m3, fp8e5m2, fp16, fp16, x_and(ext::fp8e4m3, ext::fp8e5m2), v::v1_1),
    r3(op::matmul, fp8e5m2, fp8e4m3, fp32, fp32, x_and(ext::fp8e4m3, ext::fp8e5m2), v::v1_1),
    r3(op::matmul, fp8e5m2, fp8e4m3, fp16, fp16, x_and(ext::fp8e4m3, ext::fp8e5m2), v::v1_1),
    r3(op::matmul, fp16, fp16, fp32, fp32, pro_fp),
    r3(op::matmul, fp16, fp16, fp16, fp16, pro_fp),
    r3(op::matmul, bf16, bf16, fp32, fp32, x(ext::bf16)),
    r3(op::matmul, fp32, fp32, fp32, fp32, pro_fp),
    // RESCALE (input, output)                                                TOSA 1.0 RESCALE, chapters/type_conversion.adoc
    r2(op::rescale, i8, i8, pro_int), r2(op::rescale, i8, i16, pro_int), r2(op::rescale, i8, i32, pro_int),
    r2(op::rescale, i16, i8, pro_int), r2(op::rescale, i16, i16, pro_int), r2(op::rescale, i16, i32, pro_int),
    r2(op::rescale, i32, i8, pro_int), r2(op::rescale, i32, i16, pro_int), r2(op::rescale, i32, i32, pro_int),
    r2(op::rescale, i48, i8, x(ext::int16)), r2(op::rescale, i48, i16, x(ext::int16)),
    r2(op::rescale, i48, i32, x(ext::int16)),
    // ADD (t)                                                                TOSA 1.0 ewise_binary.adoc
    r1(op::add, i32, int_or_fp), r1(op::add, fp16, pro_fp), r1(op::add, fp32, pro_fp),
    r1(op::add, bf16, x(ext::bf16)), r1(op::add, i64, x(ext::int64), v::v1_1),
    // MAXIMUM (t)                                                            TOSA 1.0 ewise_binary.adoc
    r1(op::maximum, i32, pro_int), r1(op::maximum, fp16, pro_fp), r1(op::maximum, fp32, pro_fp),
    r1(op::maximum, bf16, x(ext::bf16)),
    // MINIMUM (t)                                                            TOSA 1.0 ewise_binary.adoc
    r1(op::minimum, i32, pro_int), r1(op::minimum, fp16, pro_fp), r1(op::minimum, fp32, pro_fp),
    r1(op::minimum, bf16, x(ext::bf16)),
    // MUL (input, output)                                                    TOSA 1.0 ewise_binary.adoc
    r2(op::mul, i8, i32, pro_int), r2(op::mul, i16, i32, pro_int), r2(op::mul, i32, i32, int_or_fp),
    r2(op::mul, fp16, fp16, pro_fp), r2(op::mul, fp32, fp32, pro_fp), r2(op::mul, bf16, bf16, x(ext::bf16)),
    r2(op::mul, i64, i64, x(ext::int64), v::v1_1),
    // CLAMP (t)                                                              TOSA 1.0 activation_funcs.adoc
    r1(op::clamp, i8, pro_int), r1(op::clamp, i16, x(ext::int16)), r1(op::clamp, fp16, pro_fp),
    r1(op::clamp, fp32, pro_fp), r1(op::clamp, bf16, x(ext::bf16)),
    // CAST (input, output)                                                   TOSA 1.0 type_conversion.adoc
    r2(op::cast, boolean, i8, pro_int), r2(op::cast, boolean, i16, pro_int), r2(op::cast, boolean, i32, pro_int),
    r2(op::cast, i8, boolean, pro_int), r2(op::cast, i16, boolean, pro_int), r2(op::cast, i32, boolean, pro_int),
    r2(op::cast, i8, i16, pro_int), r2(op::cast, i8, i32, pro_int), r2(op::cast, i16, i8, pro_int),
    r2(op::cast, i16, i32, pro_int), r2(op::cast, i32, i8, pro_int), r2(op::cast, i32, i16, pro_int),
    r2(op::cast, i8, fp16, pro_fp), r2(op::cast, i16, fp16, pro_fp), r2(op::cast, i32, fp16, pro_fp),
    r2(op::cast, i8, fp32, pro_fp), r2(op::cast, i16, fp32, pro_fp), r2(op::cast, i32, fp32, pro_fp),
    r2(op::cast, fp16, i8, pro_fp), r2(op::cast, fp16, i16, pro_fp), r2(op::cast, fp16, i32, pro_fp),
    r2(op::cast, fp32, i8, pro_fp), r2(op::cast, fp32, i16, pro_fp), r2(op::cast, fp32, i32, pro_fp),
    r2(op::cast, fp16, fp32, pro_fp), r2(op::cast, fp32, fp16, pro_fp),
    r2(op::cast, i8, bf16, x(ext::bf16)), r2(op::cast, i16, bf16, x(ext::bf16)), r2(op::cast, i32, bf16, x(ext::bf16)),
    r2(op::cast, bf16, i8, x(ext::bf16)), r2(op::cast, bf16, i16, x(ext::bf16)), r2(op::cast, bf16, i32, x(ext::bf16)),
    r2(op::cast, bf16, fp32, x(ext::bf16)), r2(op::cast, fp32, bf16, x(ext::bf16)),
    r2(op::cast, fp8e4m3, fp16, x(ext::fp8e4m3)), r2(op::cast, fp8e4m3, fp32, x(ext::fp8e4m3)),
    r2(op::cast, fp16, fp8e4m3, x(ext::fp8e4m3)), r2(op::cast, fp32, fp8e4m3, x(ext::fp8e4m3)),
    r2(op::cast, fp8e5m2, fp16, x(ext::fp8e5m2)), r2(op::cast, fp8e5m2, fp32, x(ext::fp8e5m2)),
    r2(op::cast, fp16, fp8e5m2, x(ext::fp8e5m2)), r2(op::cast, fp32, fp8e5m2, x(ext::fp8e5m2)),
    r2(op::cast, bf16, fp8e4m3, x_and(ext::bf16, ext::fp8e4m3)),
    r2(op::cast, fp8e4m3, bf16, x_and(ext::bf16, ext::fp8e4m3)),
    r2(op::cast, bf16, fp8e5m2, x_and(ext::bf16, ext::fp8e5m2)),
    r2(op::cast, fp8e5m2, bf16, x_and(ext::bf16, ext::fp8e5m2)),
    r2(op::cast, i32, i64, x(ext::int64), v::v1_1), r2(op::cast, i64, i32, x(ext::int64), v::v1_1),
    r2(op::cast, boolean, fp32, pro_fp, v::v1_1), r2(op::cast, fp32, boolean, pro_fp, v::v1_1),
    // CAST_TO_BLOCK_SCALED (input, output_data)                              TOSA 1.1-draft EXT-MXFP
    r2(op::cast_to_block_scaled, fp32, fp4e2m1, x(ext::mxfp), v::v1_1),
    r2(op::cast_to_block_scaled, fp32, fp6e2m3, x(ext::mxfp), v::v1_1),
    r2(op::cast_to_block_scaled, fp32, fp6e3m2, x(ext::mxfp), v::v1_1),
    r2(op::cast_to_block_scaled, fp32, fp8e4m3, x(ext::mxfp), v::v1_1),
    r2(op::cast_to_block_scaled, fp32, fp8e5m2, x(ext::mxfp), v::v1_1),
    r2(op::cast_to_block_scaled, fp32, mxint8, x(ext::mxfp), v::v1_1),
    r2(op::cast_to_block_scaled, bf16, fp4e2m1, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_to_block_scaled, bf16, fp6e2m3, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_to_block_scaled, bf16, fp6e3m2, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_to_block_scaled, bf16, fp8e4m3, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_to_block_scaled, bf16, fp8e5m2, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_to_block_scaled, bf16, mxint8, x_and(ext::mxfp, ext::bf16), v::v1_1),
    // CAST_FROM_BLOCK_SCALED (input_data, output)                            TOSA 1.1-draft EXT-MXFP
    r2(op::cast_from_block_scaled, fp4e2m1, fp32, x(ext::mxfp), v::v1_1),
    r2(op::cast_from_block_scaled, fp6e2m3, fp32, x(ext::mxfp), v::v1_1),
    r2(op::cast_from_block_scaled, fp6e3m2, fp32, x(ext::mxfp), v::v1_1),
    r2(op::cast_from_block_scaled, fp8e4m3, fp32, x(ext::mxfp), v::v1_1),
    r2(op::cast_from_block_scaled, fp8e5m2, fp32, x(ext::mxfp), v::v1_1),
    r2(op::cast_from_block_scaled, mxint8, fp32, x(ext::mxfp), v::v1_1),
    r2(op::cast_from_block_scaled, fp4e2m1, bf16, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_from_block_scaled, fp6e2m3, bf16, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_from_block_scaled, fp6e3m2, bf16, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_from_block_scaled, fp8e4m3, bf16, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_from_block_scaled, fp8e5m2, bf16, x_and(ext::mxfp, ext::bf16), v::v1_1),
    r2(op::cast_from_block_scaled, mxint8, bf16, x_and(ext::mxfp, ext::bf16), v::v1_1),
    // MATMUL_T_BLOCK_SCALED (A_data, B_data), output fp32                    TOSA 1.1-draft EXT-MXFP
    mt(fp4e2m1), mt(fp6e2m3), mt(fp6e3m2), mt(fp8e4m3), mt(fp8e5m2), mt(mxint8),
};
// clang-format on
}  // namespace detail::rows

/// The one type-support table (see the file comment for slot order and sources).
inline constexpr auto& op_table = detail::rows::table;

namespace detail::rows {
/// One more than the largest serialized number of a known op.
inline constexpr std::size_t op_numbers = [] {
  std::uint32_t m = 0;
  for (op o : all_ops) m = serialized(o) > m ? serialized(o) : m;
  return std::size_t{m} + 1;
}();
/// `[begin, end)` of each op's rows in `table`, by serialized op number (empty for a number with
/// no rows), so that `rows_of` does not search the table at run time.
inline constexpr auto ranges = [] {
  static_assert(table.size() < 65536);
  std::array<std::array<std::uint16_t, 2>, op_numbers> r{};
  for (std::size_t k = 0; k < table.size(); ++k) {
    auto& e = r[serialized(table[k].o)];
    if (e[1] == 0) e[0] = static_cast<std::uint16_t>(k);
    e[1] = static_cast<std::uint16_t>(k + 1);
  }
  return r;
}();
}  // namespace detail::rows

/// The rows of `o`, in table order (rows of one op are contiguous); empty for an op number with
/// no rows.
[[nodiscard]] constexpr std::span<const type_support_row> rows_of(op o) noexcept {
  const std::size_t i = serialized(o);
  if (i >= detail::rows::op_numbers) return {};
  const auto& e = detail::rows::ranges[i];
  return std::span<const type_support_row>(op_table.data() + e[0], std::size_t{e[1]} - e[0]);
}

/// Index into `op_table` of the first row of `o` whose slot dtypes equal `types` (any version,
/// any requirement), or `op_table.size()` when the op has no such row. Index-based so that it
/// stays a constant expression under GCC's `-fsanitize=null` (which makes pointer-to-null
/// comparisons non-constant).
[[nodiscard]] constexpr std::size_t find_row_index(op o, std::span<const dtype::id> types) noexcept {
  const auto rs = rows_of(o);
  const auto b = static_cast<std::size_t>(rs.data() - op_table.data());
  for (std::size_t k = b; k < b + rs.size(); ++k) {
    const type_support_row& r = op_table[k];
    if (r.arity != types.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < r.arity; ++i) same = same && r.types[i] == types[i];
    if (same) return k;
  }
  return op_table.size();
}

/// The first row of `o` whose slot dtypes equal `types` (any version, any requirement), or
/// nullptr when the op has no such row.
[[nodiscard]] constexpr const type_support_row* find_row(op o,
                                                         std::span<const dtype::id> types) noexcept {
  const std::size_t k = find_row_index(o, types);
  return k == op_table.size() ? nullptr : &op_table[k];
}

/// True when some row of `o` (CONV2D or MATMUL) with slot dtypes `types` has accumulator `acc`:
/// the acc_type values the spec allows for that signature (CONV2D fp16: FP16 or FP32; every other
/// row: its one accumulator). False for other ops or when no row matches `types`.
[[nodiscard]] constexpr bool accumulator_allowed(op o, std::span<const dtype::id> types, dtype::id acc) noexcept {
  if (o != op::conv2d && o != op::matmul) return false;
  for (const auto& r : rows_of(o)) {
    if (r.arity != types.size() || r.acc != acc) continue;
    bool same = true;
    for (std::size_t i = 0; i < r.arity; ++i) same = same && r.types[i] == types[i];
    if (same) return true;
  }
  return false;
}

namespace detail {
constexpr bool rows_contiguous() noexcept {
  for (op o : all_ops) {
    std::size_t n = 0;
    for (const auto& r : op_table) n += r.o == o ? 1 : 0;
    if (n == 0 || rows_of(o).size() != n) return false;
    for (const auto& r : rows_of(o)) {
      if (r.arity != slots(o).arity) return false;
    }
  }
  return true;
}
static_assert(rows_contiguous(), "op_table: every op has rows, contiguous, with the op's arity");
static_assert(op_slots{}.names.size() == max_slots, "op_slots holds every descriptor slot");
}  // namespace detail

}  // namespace armlower::tosa
