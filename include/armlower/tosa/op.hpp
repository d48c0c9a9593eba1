/// @file armlower/tosa/op.hpp
/// The TOSA operators armlower lowers to, with their serialized `Op` numbers. Only the enum
/// lives here; every other fact of an op (spelling, operands, attribute kind, type rows) is in
/// its descriptor (`tosa/op_descriptor.hpp`, included at the end of this header, which also
/// defines `name(op)` and `all_ops` from the descriptors).
///
/// Source: `Op` enum of the FBS-1.0 schema and the FBS-1.1 (tosa-tools 2026.05) appendix;
/// the `Attribute` union index equals the op number (serialization_lib `schema/tosa.fbs` `enum Op` / `union Attribute`).
#pragma once

#include <cstdint>

namespace armlower::tosa {

/// A TOSA operator. The underlying value is the serialized `Op` enum value, which is also the
/// index of the op's member in the `Attribute` union. Only the ops a linear layer needs
/// (DESIGN §6) are listed.
enum class op : std::uint32_t {
  conv2d = 3,
  matmul = 7,
  clamp = 11,
  add = 15,
  maximum = 26,
  minimum = 27,
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

// The descriptors (and name(op), all_ops derived from them) come with the enum.
#include <armlower/tosa/op_descriptor.hpp>
