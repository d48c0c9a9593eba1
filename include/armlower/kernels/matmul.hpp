/// @file armlower/kernels/matmul.hpp
/// TOSA MATMUL: A [N, H, C] × B [N, C, W] → [N, H, W] with zero points.
///
/// Source: TOSA 1.0 MATMUL with the fixed ERROR_IF (non-zero zero points only for int8;
/// the TOSA specification pseudocode `operators/MATMUL.tosac` of later revisions). Type rows implemented (in_t → out_t = acc_t):
/// - s8×s8 → i32: `int8_t → int32_t`
/// - s16×s16 → i48: `int16_t → int64_t` (INT48 values in int64 storage)
/// - every floating-point row (A, B ∈ FP8E4M3, FP8E5M2, FP16, BF16, FP32 decoded exactly to float;
///   out_t = acc_t FP16 or FP32): `float → float` with `float_rounding` (`kernels/conv2d.hpp`).
///   Per output, c ascending: an FP32 accumulator adds the fp32 products in fp32; an FP16
///   accumulator adds each product, exact in fp32 (FP16/FP8 inputs have ≤ 11-bit significands),
///   to the FP16 partial sum in fp32 and rounds the sum to FP16 (`acc = rnd16(acc + a·b)`: one
///   rounding per step, like a fused multiply-add in FP16). This is what the TOSA reference model
///   (tosa-tools 2026.8, `OpMatMul::eval`: an Eigen contraction in its fp16 accumulator type)
///   computes, measured bit-identical on FP16 → FP16, FP16 → FP32, BF16 → FP32 and every FP8 row
///   (tests/run/refmodel_cases.hpp); it is within the spec's dot-product error bound (each
///   step has one rounding, fewer than the pseudocode's apply_mul_s + apply_add_s).
/// Integer accumulation is exact (int64); the REQUIRE that the result fits out_t is reported.
/// Firmware-clean: noexcept, no heap (a 64-element accumulator tile on the stack); status codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/status.hpp>

namespace armlower::kernels {

/// MATMUL shape: A [n, h, c], B [n, c, w], output [n, h, w]; all ≥ 1.
struct matmul_shape {
  std::int32_t n = 1, h = 1, c = 1, w = 1;
};

/// TOSA MATMUL: `out[n,h,w] = Σ_c (A[n,h,c] − a_zp)·(B[n,c,w] − b_zp)`. `fr`: accumulator and
/// output formats of a float row (ignored by the integer rows).
/// @tparam In, Out `storage_t` of a MATMUL type row's input and accumulator dtypes (the interpreter
///   names them from `tosa::rows_of(op::matmul)`); `dot_storage` states what compiles.
/// @return `null_pointer`, `empty_dimension`, `zero_point_out_of_range` (a zp ≠ 0 with a non-int8
///   input), `value_out_of_range` (REQUIRE: result outside int32 / int48); else `ok`.
template <class In, class Out>
  requires dot_storage<In, Out>
[[nodiscard]] status matmul(const matmul_shape& s, const In* a, const In* b, In a_zp, In b_zp, Out* out,
                            float_rounding fr = {}) noexcept {
  if (a == nullptr || b == nullptr || out == nullptr) return status::null_pointer;
  if (s.n < 1 || s.h < 1 || s.c < 1 || s.w < 1) return status::empty_dimension;
  if ((a_zp != In{0} || b_zp != In{0}) && !std::is_same_v<In, std::int8_t>) return status::zero_point_out_of_range;
  constexpr bool is_float = std::is_same_v<In, float>;
  using acc_t = std::conditional_t<is_float, float, std::int64_t>;
  constexpr std::int32_t tile = 64;
  for (std::int32_t n = 0; n < s.n; ++n) {
    const In* an = a + std::int64_t{n} * s.h * s.c;
    const In* bn = b + std::int64_t{n} * s.c * s.w;
    for (std::int32_t h = 0; h < s.h; ++h) {
      for (std::int32_t w0 = 0; w0 < s.w; w0 += tile) {
        const std::int32_t tw = s.w - w0 < tile ? s.w - w0 : tile;
        acc_t acc[tile] = {};
        for (std::int32_t c = 0; c < s.c; ++c) {
          const In* brow = bn + std::int64_t{c} * s.w + w0;
          if constexpr (is_float) {
            const float av = an[std::int64_t{h} * s.c + c];
            if (fr.acc == real_format::fp16) {
              for (std::int32_t j = 0; j < tw; ++j)
                acc[j] = round_real(acc[j] + av * brow[j], real_format::fp16);
            } else {
              for (std::int32_t j = 0; j < tw; ++j) acc[j] += av * brow[j];
            }
          } else {
            const std::int64_t av = std::int64_t{an[std::int64_t{h} * s.c + c]} - a_zp;
            for (std::int32_t j = 0; j < tw; ++j) acc[j] += av * (std::int64_t{brow[j]} - b_zp);
          }
        }
        Out* o = out + (std::int64_t{n} * s.h + h) * s.w + w0;
        for (std::int32_t j = 0; j < tw; ++j) {
          if constexpr (is_float) {
            o[j] = round_real(acc[j], fr.out);
          } else {
            using lim = detail::int_out_traits<Out>;
            if (acc[j] < lim::min || acc[j] > lim::max) return status::value_out_of_range;
            o[j] = static_cast<Out>(acc[j]);
          }
        }
      }
    }
  }
  return status::ok;
}

}  // namespace armlower::kernels
