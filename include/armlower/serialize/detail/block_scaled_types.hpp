/// @file armlower/serialize/detail/block_scaled_types.hpp
/// The TOSA 1.1 spec-head composite block-scaled tensor types, as tosa-tools 2026.8.0 writes
/// and runs them, and how the reader maps them onto armlower's graph.
///
/// Facts (tosa-tools 2026.8.0: `bin/tosa.fbs`, the `tosa_serializer` Python bindings, and
/// files written with them run by `tosa_reference_model`; tests/blockscaled/ re-checks them):
///  - Schema: `TosaTensor` gains, after `size`, the fields `scale_type: DType`,
///    `scale_data: [ubyte] (force_align: 8)`, `block_shape: BlockShape` (enum UNKNOWN = 0,
///    BLOCK_SHAPE_32 = 32), `scale_offset: ulong`, `scale_size: ulong`. A tensor is composite
///    when `scale_type`/`block_shape` are set; `type` is then the value (element) DType.
///  - Types (`tosa_serializer.ScaledDType`): BS32_FP8UE8M0_{FP8E4M3, FP8E5M2, FP6E3M2, FP6E2M3,
///    FP4E2M1, MXINT8} — scale DType FP8UE8M0, block shape 32 along the last dimension
///    (spec: `block_scale_t<BLOCK_SHAPE_32, fp8ue8m0_t, value_t>`).
///  - Constant layout: `data` holds the values exactly as a plain tensor of the value DType
///    (FP4 two per byte, FP6 bit-packed, see payload.hpp); `scale_data` holds one FP8UE8M0 byte
///    per block, row-major over `shape` with its last dimension divided by 32 (both padded to 8).
///  - Reference model: CAST FP32/BF16/FP16 → composite equals CAST_TO_BLOCK_SCALED (same data
///    and scale codes); CAST composite → FP32/BF16/FP16/FP8 dequantizes (value × scale);
///    composite → composite is refused; MATMUL_T [A, B, A_zp, B_zp] with composite A, B (zero
///    points FP32 0.0) computes MATMUL_T_BLOCK_SCALED to FP32 (also BF16, whose values are not
///    one rounding of the FP32 result: it appears to accumulate in BF16; FP16 is refused, a
///    non-zero zero point fails); MATMUL_T_BLOCK_SCALED itself does *not* take composite
///    operands ("Unsupported operation type or rank"). Graph I/O of a composite tensor `x` is
///    two .npy files, `x` and `x_scale`.
///
/// armlower's graph has no composite dtype: the reader splits a composite tensor `x` into a
/// data tensor `x` (the value dtype) and a scale tensor `x_scale` (FP8UE8M0, last dim / 32; the
/// name the reference model gives its .npy), and rewrites the ops that use it into the draft
/// ops armlower runs: CAST → CAST_TO/FROM_BLOCK_SCALED (via an FP32 CAST for FP16 / FP8 ends),
/// MATMUL_T → MATMUL_T_BLOCK_SCALED (+ one CAST to BF16: within the dot-product bound of the
/// reference model's BF16 result, not bit-exact). Every other use is refused by name.
#pragma once

#include <armlower/dtype/dtype.hpp>

#include <cstdint>
#include <string>

namespace armlower::serialize::detail {

/// True for the value dtypes of a composite block-scaled type.
[[nodiscard]] constexpr bool is_mx_value_type(dtype::id t) noexcept {
  return t == dtype::id::fp8e4m3 || t == dtype::id::fp8e5m2 || t == dtype::id::fp6e2m3 ||
         t == dtype::id::fp6e3m2 || t == dtype::id::fp4e2m1 || t == dtype::id::mxint8;
}

/// The spec-head name of a composite type with value dtype `t` ("BS32_FP8UE8M0_FP8E4M3", the
/// spelling of `tosa_serializer.ScaledDType`).
[[nodiscard]] inline std::string composite_name(dtype::id t) {
  return "BS32_FP8UE8M0_" + std::string(dtype::name(t));
}

/// Name of the scale tensor the reader makes for composite tensor `data_name`.
[[nodiscard]] inline std::string scale_tensor_name(const std::string& data_name) { return data_name + "_scale"; }

/// Wire values the reader checks (tosa.fbs of tosa-tools 2026.8.0).
inline constexpr std::uint32_t block_shape_32 = 32;
inline constexpr std::uint32_t matmul_t_op = 100;

}  // namespace armlower::serialize::detail
