/// @file armlower/tosa/op.hpp
/// The TOSA operators armlower lowers to, with their serialized `Op` numbers.
///
/// Source: `Op` enum of the FBS-1.0 schema and the FBS-1.1 (tosa-tools 2026.05) appendix;
/// the `Attribute` union index equals the op number (serialization_lib `schema/tosa.fbs` `enum Op` / `union Attribute`).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace armlower::tosa {

/// A TOSA operator. The underlying value is the serialized `Op` enum value, which is also the
/// index of the op's member in the `Attribute` union. Only the ops a linear layer needs
/// (DESIGN §6) are listed.
enum class op : std::uint32_t {
  conv2d = 3,
  matmul = 7,
  clamp = 11,
  add = 15,
  mul = 28,
  reshape = 57,
  transpose = 61,
  cast = 65,
  rescale = 66,
  const_ = 67,                   ///< CONST (`const` is a C++ keyword)
  matmul_t_block_scaled = 76,    ///< 1.1 draft, EXT-MXFP
  cast_from_block_scaled = 77,   ///< 1.1 draft, EXT-MXFP
  cast_to_block_scaled = 78,     ///< 1.1 draft, EXT-MXFP
};

/// All ops in `op`, for iteration.
inline constexpr std::array<op, 13> all_ops{
    op::const_, op::reshape, op::transpose, op::conv2d, op::matmul, op::rescale, op::add,
    op::mul,    op::clamp,   op::cast,      op::cast_to_block_scaled, op::cast_from_block_scaled,
    op::matmul_t_block_scaled};

/// TOSA spelling of an op ("CONV2D", "MATMUL_T_BLOCK_SCALED").
[[nodiscard]] constexpr std::string_view name(op o) noexcept {
  switch (o) {
    case op::conv2d: return "CONV2D";
    case op::matmul: return "MATMUL";
    case op::clamp: return "CLAMP";
    case op::add: return "ADD";
    case op::mul: return "MUL";
    case op::reshape: return "RESHAPE";
    case op::transpose: return "TRANSPOSE";
    case op::cast: return "CAST";
    case op::rescale: return "RESCALE";
    case op::const_: return "CONST";
    case op::matmul_t_block_scaled: return "MATMUL_T_BLOCK_SCALED";
    case op::cast_from_block_scaled: return "CAST_FROM_BLOCK_SCALED";
    case op::cast_to_block_scaled: return "CAST_TO_BLOCK_SCALED";
  }
  return "UNKNOWN";
}

/// Serialized `Op` number (equal to the `Attribute` union index).
[[nodiscard]] constexpr std::uint32_t serialized(op o) noexcept {
  return static_cast<std::uint32_t>(o);
}

/// `RoundingMode` of RESCALE, serialized values (FBS-1.0 §4.3).
enum class rounding_mode : std::uint32_t {
  single_round = 1,   ///< SINGLE_ROUND (PRO-INT)
  inexact_round = 2,  ///< INEXACT_ROUND (EXT-INEXACTROUND)
  double_round = 3,   ///< DOUBLE_ROUND (EXT-DOUBLEROUND)
};

}  // namespace armlower::tosa
