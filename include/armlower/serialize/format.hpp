/// @file armlower/serialize/format.hpp
/// The two `.tosa` flatbuffer formats armlower reads and writes, and the mapping of armlower's
/// dtypes and ops to their serialized numbers in each.
///
/// - `format::tosa_1_0`: FBS-1.0, TOSA 1.0 final; `Version{1, 0, 0, draft = false}`.
/// - `format::tosa_1_1`: FBS-1.1, the TOSA 1.1 draft read by tosa-tools 2026.05 and 2026.8.0
///   (adds FP6/FP4/FP8UE8M0/INT64/MXINT8 and the `*_BLOCK_SCALED` ops);
///   `Version{1, 1, 0, draft = true}`.
/// FBS-1.1 is a pure append to FBS-1.0 (compare tosa-tools' `tosa.fbs` of each release), so one
/// generated API reads both; the 1.1 specifics are the `fbs11` column of `detail::wire_table` and
/// the op table's `added` column (`first_format(op)` below). Everything 1.1-specific in the serializer goes through this header.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/tosa/op.hpp>
#include <armlower/tosa/op_table.hpp>
#include <armlower/tosa/version.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace armlower::serialize {

/// A `.tosa` flatbuffer format (schema + version header written).
enum class format : std::uint8_t {
  tosa_1_0,  ///< FBS-1.0, version 1.0.0 draft=false
  tosa_1_1,  ///< FBS-1.1 (tosa-tools 2026.05 / 2026.8.0), version 1.1.0 draft=true
};

/// The `Version` table a format writes.
struct version_header {
  std::int32_t major;
  std::int32_t minor;
  std::int32_t patch;
  bool draft;
};

/// Version written for `f` (1.0 files carry draft = false, 1.1 files draft = true, as
/// ExecuTorch's Arm backend `TosaSerializer(..., targetDraft = minor > 0)`).
[[nodiscard]] constexpr version_header header_of(format f) noexcept {
  return f == format::tosa_1_0 ? version_header{1, 0, 0, false} : version_header{1, 1, 0, true};
}

/// A serialization-library release: `TosaGraph.software_version` (table `SoftwareVersion`).
struct software_version {
  std::int32_t major;
  std::int32_t minor;
  std::int32_t micro;
};

/// The `software_version` the writer puts in every file (both formats): the tosa-tools
/// serialization-library release whose schema (tosa-tools 2026.8.0, `bin/tosa.fbs`) armlower's
/// schemas follow, with an empty `_modifier`, as that release's own serializer writes it.
/// Measured on tosa-tools 2026.8.0's reference model (tests/interop/): the field only selects a
/// message when the file is loaded — none when it equals its own version; "INFO: TOSA file
/// created with older (newer) SerLib version X but is backward (forward) compatible" otherwise;
/// "WARNING: TOSA file created with version of SerLib before software version was encoded"
/// when it is absent. The reader accepts files with or without it and does not use it.
inline constexpr software_version writer_software_version{2026, 8, 0};

/// Printable name ("TOSA 1.0", "TOSA 1.1 draft").
[[nodiscard]] constexpr std::string_view name(format f) noexcept {
  return f == format::tosa_1_0 ? "TOSA 1.0" : "TOSA 1.1 draft";
}

/// Format of a version read from a file: 1.0.x with draft = false → tosa_1_0; 1.1.x with
/// draft = true → tosa_1_1. Anything else (0.x, 1.0 drafts — which used the pre-1.0 DType
/// numbering —, final 1.1, 2.x) is unsupported: nullopt.
[[nodiscard]] constexpr std::optional<format> format_of(std::int32_t major, std::int32_t minor,
                                                        bool draft) noexcept {
  if (major != 1) return std::nullopt;
  if (minor == 0 && !draft) return format::tosa_1_0;
  if (minor == 1 && draft) return format::tosa_1_1;
  return std::nullopt;
}

namespace detail {
/// The serialized `DType` of one dtype in each format; 0 (UNKNOWN) when the format lacks it.
struct wire_numbers {
  std::uint32_t fbs10;  ///< FBS-1.0 (serialization_lib `schema/tosa.fbs`, TOSA 1.0)
  std::uint32_t fbs11;  ///< FBS-1.1 (tosa-tools 2026.05 `tosa.fbs`), a pure append of FBS-1.0
};
/// `enum DType` of both schemas, indexed by `dtype::id` (the dtype module knows no file format).
inline constexpr std::array<wire_numbers, dtype::count> wire_table{{
    {1, 1},      // BOOL
    {2, 2},      // INT4
    {3, 3},      // INT8
    {4, 4},      // INT16
    {5, 5},      // INT32
    {6, 6},      // INT48
    {0, 17},     // INT64
    {8, 8},      // FP16
    {9, 9},      // BF16
    {7, 7},      // FP32
    {11, 11},    // FP8E4M3
    {12, 12},    // FP8E5M2
    {0, 13},     // FP6E2M3
    {0, 14},     // FP6E3M2
    {0, 15},     // FP4E2M1
    {0, 16},     // FP8UE8M0
    {0, 18},     // MXINT8
    {10, 10},     // SHAPE
}};
}  // namespace detail

/// Serialized `DType` of `d` in format `f`; 0 (UNKNOWN) when `f` has no such dtype
/// (e.g. FP4E2M1 in 1.0). Taken from the one wire table (`detail::wire_table`).
[[nodiscard]] constexpr std::uint32_t wire_dtype(dtype::id d, format f) noexcept {
  const auto& w = detail::wire_table[static_cast<std::size_t>(d)];
  return f == format::tosa_1_0 ? w.fbs10 : w.fbs11;
}

/// The dtype whose serialized value in `f` is `v`, or nullopt (UNKNOWN, out of range).
[[nodiscard]] constexpr std::optional<dtype::id> dtype_of_wire(std::uint32_t v, format f) noexcept {
  if (v == 0) return std::nullopt;
  for (std::size_t i = 0; i < dtype::count; ++i) {
    const auto d = static_cast<dtype::id>(i);
    if (wire_dtype(d, f) == v) return d;
  }
  return std::nullopt;
}

/// The format of a TOSA specification version (1.0 → FBS-1.0, 1.1 draft → FBS-1.1).
[[nodiscard]] constexpr format format_of(tosa::version v) noexcept {
  return v == tosa::version::v1_0 ? format::tosa_1_0 : format::tosa_1_1;
}

/// First format whose `Op` enum has `o`: the earliest version of any of the op's rows in the
/// one op table (`tosa/op_table.hpp`; the `*_BLOCK_SCALED` ops appeared in 1.1).
[[nodiscard]] constexpr format first_format(tosa::op o) noexcept {
  for (const auto& r : tosa::rows_of(o))
    if (r.added == tosa::version::v1_0) return format::tosa_1_0;
  return format::tosa_1_1;
}

/// True when format `f` can carry op `o`.
[[nodiscard]] constexpr bool has_op(tosa::op o, format f) noexcept {
  return static_cast<int>(first_format(o)) <= static_cast<int>(f);
}

/// The armlower op whose serialized `Op` value is `v`, or nullopt (an op armlower does not
/// lower to, e.g. SIGMOID, or CONST_SHAPE which the reader folds into constant tensors).
[[nodiscard]] constexpr std::optional<tosa::op> op_of_wire(std::uint32_t v) noexcept {
  for (auto o : tosa::all_ops)
    if (tosa::serialized(o) == v) return o;
  return std::nullopt;
}

/// Serialized `Op` value of CONST_SHAPE (FBS-1.0 and later): the op that produces a SHAPE
/// constant such as RESHAPE's `shape` operand. armlower has no `tosa::op` for it: the writer
/// emits it for constant tensors of dtype SHAPE, the reader folds it into constant tensors.
inline constexpr std::uint32_t const_shape_op = 75;

/// Bytes 4..7 of every `.tosa` buffer (flatbuffers file_identifier).
inline constexpr std::string_view file_identifier = "TOSA";

}  // namespace armlower::serialize
