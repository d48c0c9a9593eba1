/// @file armlower/kernels/arch/x86/requant_s16_avx2.hpp
/// AVX2 requantization of the a16w8 fused linear's exact int64 accumulators, 8 output channels at a
/// time: y = clamp(requantize_s64(acc + bias, reduce_multiplier(q), s)) (contract: `kernels/linear_args.hpp`;
/// CMSIS-NN `arm_nn_requantize_s64`, TOSA `apply_scale_16`), the same integers as `requantize_row_s16`.
/// AVX2 has no 64-bit multiply: the product is built from `vpmuludq`/`vpmuldq` halves (the shift and
/// clamp are the s8 kernels' `srav64_avx2`, `clamp64_avx2`), exact while |acc|, |acc + bias| < 2^46,
/// which the lanes are checked for (else `requantize_row_s16` per output, with the contract's saturating
/// bias addition). Used by the AVX2 column-pair a16w8 kernel; the row-major one (4 channels per step)
/// measured slower with it (0.71–0.94×, benchmarks/RESULTS.md "AVX2 packed a16w8: vector requantization")
/// and keeps `requantize_row_s16`. Host only: noexcept, no heap, no static data.
#pragma once

#include <cstdint>

#include <immintrin.h>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/x86/linear.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/quant/multiplier.hpp>

namespace armlower::kernels::detail {

/// The 4 int64 lanes v requantized (`requant8_s16_avx2`; m4, t4: the lanes' reduced multipliers and total
/// shifts as int32, [lo, hi] the clamp) as 4 int32 in the low 128 bits.
__attribute__((target("avx2"))) inline __m128i requant4_s16_avx2(__m256i v, __m128i m4, __m128i t4, __m256i lo,
                                                                 __m256i hi) noexcept {
  const __m256i one = _mm256_set1_epi64x(1);
  const __m256i m = _mm256_cvtepu32_epi64(m4), t = _mm256_cvtepu32_epi64(t4);
  const __m256i p = _mm256_add_epi64(_mm256_mul_epu32(v, m), _mm256_slli_epi64(_mm256_mul_epi32(_mm256_srli_epi64(v, 32), m), 32));
  const __m256i y = clamp64_avx2(srav64_avx2(_mm256_add_epi64(p, _mm256_sllv_epi64(one, _mm256_sub_epi64(t, one))), t), lo, hi);
  // the low dwords (int16 range after the clamp) of the 4 lanes
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(y, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

/// y = clamp(requantize_s64(v, reduce_multiplier(q), s)) for the 8 biased accumulators of channels
/// r0 .. r0+7 (v_lo: r0..r0+3, v_hi: r0+4..r0+7, int64 lanes, each |v| < 2^46; lanes from `nv` on are
/// computed with channel r0's parameters and must be discarded), as 8 int16. The exact integer steps:
/// v·m (0 ≤ m ≤ 32767, |v·m| < 2^61) = (v mod 2^32)·m + ((v >> 32)·m)·2^32; + 2^(t−1) (t = 15 − s,
/// 1 ≤ t ≤ 62); floor-divided by 2^t.
__attribute__((target("avx2"))) inline __m128i requant8_s16_avx2(const linear_s16_args& a, __m256i v_lo, __m256i v_hi,
                                                                 std::int32_t r0, int nv) noexcept {
  __m256i m8, t8;  // int32 lanes: reduced multiplier, total shift
  if (a.per_channel) {
    alignas(32) std::int32_t m[8], t[8];
    for (int i = 0; i < 8; ++i) {
      const std::int32_t r = r0 + (i < nv ? i : 0);
      m[i] = quant::reduce_multiplier(a.multiplier[r]);
      t[i] = 15 - a.shift[r];
    }
    m8 = _mm256_load_si256(reinterpret_cast<const __m256i*>(m));
    t8 = _mm256_load_si256(reinterpret_cast<const __m256i*>(t));
  } else {
    m8 = _mm256_set1_epi32(quant::reduce_multiplier(a.multiplier[0]));
    t8 = _mm256_set1_epi32(15 - a.shift[0]);
  }
  const __m256i lo = _mm256_set1_epi64x(a.activation_min), hi = _mm256_set1_epi64x(a.activation_max);
  return _mm_packs_epi32(requant4_s16_avx2(v_lo, _mm256_castsi256_si128(m8), _mm256_castsi256_si128(t8), lo, hi),
                         requant4_s16_avx2(v_hi, _mm256_extracti128_si256(m8, 1), _mm256_extracti128_si256(t8, 1), lo, hi));
}

/// Whether every int64 lane of v is in (−lim, lim) (as a lane mask: all ones where it is).
__attribute__((target("avx2"))) inline __m256i within_avx2(__m256i v, std::int64_t lim) noexcept {
  return _mm256_and_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(lim), v), _mm256_cmpgt_epi64(v, _mm256_set1_epi64x(-lim)));
}

/// Requantizes and stores the nr (≤ 8) outputs of one batch row, channels r0.., at y from their exact
/// int64 sums `acc` (8, 32-byte aligned; lanes past nr are checked too, so keep them 0): `requant8_s16_avx2` where
/// every lane has |acc| < 2^46, |bias| < 2^62 (so the contract's saturating addition is a plain one) and
/// |acc + bias| < 2^46; else `requantize_row_s16` per output.
__attribute__((target("avx2"))) inline void store8_s16_avx2(const linear_s16_args& a, const std::int64_t* acc,
                                                                 std::int32_t r0, int nr, std::int16_t* y) noexcept {
  constexpr std::int64_t lim = std::int64_t{1} << 46;
  __m256i v0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc));
  __m256i v1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc + 4));
  __m256i in = _mm256_and_si256(within_avx2(v0, lim), within_avx2(v1, lim));
  if (a.bias != nullptr) {
    alignas(32) std::int64_t b[8] = {};
    for (int i = 0; i < nr; ++i) b[i] = a.bias[r0 + i];
    const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(b + 4));
    constexpr std::int64_t blim = std::int64_t{1} << 62;
    in = _mm256_and_si256(in, _mm256_and_si256(within_avx2(b0, blim), within_avx2(b1, blim)));
    v0 = _mm256_add_epi64(v0, b0);  // no wrap where the lanes passed: |acc| < 2^46, |bias| < 2^62
    v1 = _mm256_add_epi64(v1, b1);
    in = _mm256_and_si256(in, _mm256_and_si256(within_avx2(v0, lim), within_avx2(v1, lim)));
  }
  if (_mm256_movemask_epi8(in) == -1) {
    alignas(16) std::int16_t out[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(out), requant8_s16_avx2(a, v0, v1, r0, nr));
    for (int i = 0; i < nr; ++i) y[i] = out[i];
    return;
  }
  for (int i = 0; i < nr; ++i) {
    y[i] = requantize_row_s16(a, r0 + i, a.bias != nullptr ? add_sat64(acc[i], a.bias[r0 + i]) : acc[i]);
  }
}

}  // namespace armlower::kernels::detail
