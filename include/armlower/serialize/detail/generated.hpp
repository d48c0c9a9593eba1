/// @file armlower/serialize/detail/generated.hpp
/// Includes the flatc-generated C++ of armlower's FBS-1.1 schema (`schema/tosa_1_1.fbs`,
/// generated at build time into the build tree by the `armlower::serialize` target), which
/// reads and writes both formats: FBS-1.1 is a pure append of FBS-1.0, and the writer emits
/// nothing 1.1-specific into a 1.0 file. (`tosa_1_0_generated.h` is generated too; the tests
/// use its verifier on every 1.0 file and check the enums agree.) Proves at compile time that
/// the schema agrees with armlower's own tables (`tosa::op` values, the wire table's
/// `fbs10`/`fbs11` columns, the `Attribute` union index == op value rule).
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/serialize/format.hpp>
#include <armlower/tosa/op.hpp>

#include <armlower/serialize/generated/tosa_1_1_generated.h>

#include <cstdint>

namespace armlower::serialize::detail {

namespace fb11 = armlower::serialize::fbs11;

/// Every dtype's serialized value agrees with the schema enums of both formats.
consteval bool dtype_numbers_agree() {
  for (std::size_t i = 0; i < dtype::count; ++i) {
    const auto& t = wire_table[i];
    if (t.fbs10 != 0 && t.fbs10 != t.fbs11) return false;  // 1.1 appends only
    if (t.fbs10 > static_cast<std::uint32_t>(fb11::DType::FP8E5M2)) return false;  // last FBS-1.0 DType
    if (t.fbs11 == 0 || t.fbs11 > static_cast<std::uint32_t>(fb11::DType::MAX)) return false;
  }
  return true;
}
static_assert(dtype_numbers_agree(), "dtype table and FBS DType enums disagree");
static_assert(static_cast<std::uint32_t>(fb11::DType::INT48) == 6 &&
              static_cast<std::uint32_t>(fb11::DType::FP8UE8M0) == 16 &&
              static_cast<std::uint32_t>(fb11::DType::MXINT8) == 18);

/// Every armlower op has the same number in the schema, its attribute union member has the
/// same index, and the ops after CONST_SHAPE (the last FBS-1.0 op) are exactly the 1.1 ones.
consteval bool op_numbers_agree() {
  for (auto o : tosa::all_ops) {
    const auto v = tosa::serialized(o);
    if (v > static_cast<std::uint32_t>(fb11::Op::MAX)) return false;
    if (static_cast<std::uint32_t>(static_cast<fb11::Attribute>(v)) != v) return false;
    if (has_op(o, format::tosa_1_0) != (v <= const_shape_op)) return false;  // CONST_SHAPE: last 1.0 op
  }
  return true;
}
static_assert(op_numbers_agree(), "tosa::op values and FBS Op enums disagree");
static_assert(static_cast<std::uint32_t>(fb11::Op::CONV2D) == tosa::serialized(tosa::op::conv2d) &&
              static_cast<std::uint32_t>(fb11::Op::RESCALE) == tosa::serialized(tosa::op::rescale) &&
              static_cast<std::uint32_t>(fb11::Op::CONST) == tosa::serialized(tosa::op::const_) &&
              static_cast<std::uint32_t>(fb11::Op::CAST_TO_BLOCK_SCALED) ==
                  tosa::serialized(tosa::op::cast_to_block_scaled) &&
              static_cast<std::uint32_t>(fb11::Op::CONST_SHAPE) == const_shape_op);
static_assert(static_cast<std::uint32_t>(fb11::Attribute::Conv2dAttribute) == 3 &&
              static_cast<std::uint32_t>(fb11::Attribute::RescaleAttribute) == 66 &&
              static_cast<std::uint32_t>(fb11::Attribute::ConstShapeAttribute) == 75 &&
              static_cast<std::uint32_t>(fb11::Attribute::MatMulTBlockScaledAttribute) == 76);
static_assert(static_cast<std::uint32_t>(fb11::RoundingMode::DOUBLE_ROUND) ==
              static_cast<std::uint32_t>(tosa::rounding_mode::double_round));

}  // namespace armlower::serialize::detail
