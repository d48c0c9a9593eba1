/// @file armlower/kernels/arch/x86/linear_s16_avx2_pairs.hpp
/// AVX2 a16w8 fused linear (s16 × s8 → s16, int64 bias) over the `avx2_pairs` weight layout
/// (`kernels/detail/linear_s8_packed_layout.hpp`, written by `kernels::pack_linear_s16` on AVX2-only
/// CPUs): the packed path of `kernels/linear_s16_packed.hpp` there. Contract: `kernels/linear_args.hpp`
/// (same integers as `linear_s16_avx2` and the generic path).
///
/// Form: the s8 column-pair kernel's register tile (`pairs_block_avx2`, arch/x86/linear_avx2_pairs.hpp):
/// one `vpmovsxbw` gives a column pair of 8 channels as int16, the int16 input pair of batch row m is
/// broadcast, `vpmaddwd` adds 8 channels × 2 columns per instruction; one widened weight vector serves
/// up to 8 batch rows. The input is copied (already int16) into the kernel's stack buffer with zero
/// padding. Exactness: one `vpmaddwd` lane is ≤ 2·32768·128 = 2^23, so an int32 lane over
/// `avx2_s16_pairs_np` = 248 pairs (496 columns) stays below 2^31; those sums are added in int64, so any K
/// is exact (the int48/int64 accumulator of the contract). Requantization, 8 channels at a time
/// (`requant8_s16_avx2`: `requantize_s64` with the reduced multiplier in int64 lanes; AVX2 has no 64-bit
/// multiply or arithmetic shift, so the product is built from `vpmuludq`/`vpmuldq` halves and the shift
/// is a logical one of a biased value), exact while |acc|, |acc + bias| < 2^46, which the lanes are
/// checked for; outside it `requantize_row_s16` per output (the contract's saturating bias addition).
/// Source of the semantics: CMSIS-NN `arm_fully_connected_s16`.
/// Firmware-clean (host only): noexcept, no heap, no static data.
#pragma once

#include <cstddef>
#include <cstdint>

#include <immintrin.h>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/x86/linear_avx2_pairs.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/quant/multiplier.hpp>

namespace armlower::kernels::detail {

/// Column pairs per exact int32 pass of `pairs_block_avx2` for int16 inputs (a multiple of 8; file comment).
inline constexpr std::ptrdiff_t avx2_s16_pairs_np = 248;

/// Copies x[m][k0 + j] for j < n (n ≤ avx2_pairs_kb<MB>), then zeros up to the next multiple of 16, into
/// row m of `xb` (stride avx2_pairs_kb<MB>), for the MB rows of `x` (stride cols).
template <int MB>
__attribute__((target("avx2"))) inline void pairs_copy_x16_avx2(const std::int16_t* x, std::ptrdiff_t cols,
                                                                std::ptrdiff_t k0, std::ptrdiff_t n,
                                                                std::int16_t* xb) noexcept {
  for (int m = 0; m < MB; ++m) {
    const std::int16_t* xr = x + m * cols + k0;
    std::int16_t* d = xb + m * avx2_pairs_kb<MB>;
    std::ptrdiff_t j = 0;
    for (; j + 16 <= n; j += 16) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(d + j), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + j)));
    }
    if (j < n) {
      for (std::ptrdiff_t t = 0; t < 16; ++t) d[j + t] = j + t < n ? xr[j + t] : std::int16_t{0};
    }
  }
}

/// The 4 int64 lanes v requantized (`requant8_s16_avx2`; m4, t4: the lanes' reduced multipliers and total
/// shifts as int32, [lo, hi] the clamp) as 4 int32 in the low 128 bits.
__attribute__((target("avx2"))) inline __m128i requant4_s16_avx2(__m256i v, __m128i m4, __m128i t4, __m256i lo,
                                                                 __m256i hi) noexcept {
  const __m256i one = _mm256_set1_epi64x(1), big = _mm256_set1_epi64x(std::int64_t{1} << 62);
  const __m256i m = _mm256_cvtepu32_epi64(m4), t = _mm256_cvtepu32_epi64(t4);
  const __m256i p = _mm256_add_epi64(_mm256_mul_epu32(v, m), _mm256_slli_epi64(_mm256_mul_epi32(_mm256_srli_epi64(v, 32), m), 32));
  const __m256i x = _mm256_add_epi64(p, _mm256_sllv_epi64(one, _mm256_sub_epi64(t, one)));
  __m256i y = _mm256_sub_epi64(_mm256_srlv_epi64(_mm256_add_epi64(x, big), t), _mm256_srlv_epi64(big, t));
  y = _mm256_blendv_epi8(y, lo, _mm256_cmpgt_epi64(lo, y));
  y = _mm256_blendv_epi8(y, hi, _mm256_cmpgt_epi64(y, hi));
  // the low dwords (int16 range after the clamp) of the 4 lanes
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(y, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

/// y = clamp(requantize_s64(v, reduce_multiplier(q), s)) for the 8 biased accumulators of channels
/// r0 .. r0+7 (v_lo: r0..r0+3, v_hi: r0+4..r0+7, int64 lanes, each |v| < 2^46; lanes past `a.rows` are
/// computed with channel r0's parameters and must be discarded), as 8 int16. The exact integer steps:
/// v·m (0 ≤ m ≤ 32767, |v·m| < 2^61) = (v mod 2^32)·m + ((v >> 32)·m)·2^32; + 2^(t−1) (t = 15 − s,
/// 1 ≤ t ≤ 62); floor-divided by 2^t as ((x + 2^62) >>logical t) − 2^(62−t) (x + 2^62 is in [0, 2^63)).
__attribute__((target("avx2"))) inline __m128i requant8_s16_avx2(const linear_s16_args& a, __m256i v_lo, __m256i v_hi,
                                                                 std::int32_t r0, int nv) noexcept {
  __m256i m8, t8;  // int32 lanes: reduced multiplier, total shift
  if (a.per_channel) {
    alignas(32) std::int32_t q[8], s[8];
    for (int i = 0; i < 8; ++i) {
      q[i] = a.multiplier[r0 + (i < nv ? i : 0)];
      s[i] = a.shift[r0 + (i < nv ? i : 0)];
    }
    // reduce_multiplier(q) = min((q + 2^15) >> 16, 32767) for 0 ≤ q < 2^31 (unsigned: no overflow)
    m8 = _mm256_min_epu32(_mm256_srli_epi32(_mm256_add_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(q)),
                                                             _mm256_set1_epi32(32768)),
                                            16),
                          _mm256_set1_epi32(32767));
    t8 = _mm256_sub_epi32(_mm256_set1_epi32(15), _mm256_load_si256(reinterpret_cast<const __m256i*>(s)));
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
/// int64 sums `acc` (8, 32-byte aligned; lanes past nr hold anything finite): `requant8_s16_avx2` where
/// every lane has |acc| < 2^46, |bias| < 2^62 (so the contract's saturating addition is a plain one) and
/// |acc + bias| < 2^46; else `requantize_row_s16` per output.
__attribute__((target("avx2"))) inline void pairs_store_s16_avx2(const linear_s16_args& a, const std::int64_t* acc,
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

/// Batch rows b0 .. b0+MB−1 of `linear_s16_pairs_avx2`.
template <int MB>
__attribute__((target("avx2"))) inline void linear_s16_pairs_rows_avx2(const linear_s16_args& a, const std::int8_t* packed,
                                                                       std::int32_t b0) noexcept {
  constexpr int G = pairs_groups_avx2<MB>;
  constexpr std::ptrdiff_t kb = avx2_pairs_kb<MB>;
  const std::ptrdiff_t cols = a.cols;
  const std::ptrdiff_t gstride = (cols + 15) / 16 * 128;  // bytes per group of 8 channels
  const std::ptrdiff_t groups = (a.rows + 7) / 8;
  const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(b0) * cols;
  alignas(32) std::int16_t xb[MB * kb];
  alignas(32) std::int64_t part[avx2_pairs_sg * MB * 8];
  const bool one_block = cols <= kb;  // then the input is copied once for all passes
  if (one_block) pairs_copy_x16_avx2<MB>(x, cols, 0, cols, xb);
  for (std::ptrdiff_t g0 = 0; g0 < groups; g0 += avx2_pairs_sg) {
    const std::ptrdiff_t gn = groups - g0 < avx2_pairs_sg ? groups - g0 : avx2_pairs_sg;
    for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += kb) {
      const std::ptrdiff_t n = cols - k0 < kb ? cols - k0 : kb;
      if (!one_block) pairs_copy_x16_avx2<MB>(x, cols, k0, n, xb);
      const std::ptrdiff_t np = (n + 15) / 16 * 8;
      for (std::ptrdiff_t p0 = 0; p0 < np; p0 += avx2_s16_pairs_np) {  // exact int32 passes, summed in int64
        const std::ptrdiff_t pn = np - p0 < avx2_s16_pairs_np ? np - p0 : avx2_s16_pairs_np;
        const std::int8_t* w = packed + g0 * gstride + (k0 / 2 + p0) * 16;  // 16 bytes per pair
        const bool first = k0 == 0 && p0 == 0;
        constexpr std::ptrdiff_t gp = std::ptrdiff_t{MB} * 8;  // part elements per group
        std::ptrdiff_t g = 0;
        for (; g + G <= gn; g += G) pairs_block_avx2<MB, G>(xb + 2 * p0, w + g * gstride, gstride, pn, part + g * gp, gp, first);
        for (; g < gn; ++g) pairs_block_avx2<MB, 1>(xb + 2 * p0, w + g * gstride, gstride, pn, part + g * gp, gp, first);
      }
    }
    for (std::ptrdiff_t g = 0; g < gn; ++g) {
      const auto r0 = static_cast<std::int32_t>((g0 + g) * 8);
      const int nr = a.rows - r0 < 8 ? a.rows - r0 : 8;
      for (int m = 0; m < MB; ++m) {
        const std::int64_t* acc = part + g * MB * 8 + std::ptrdiff_t{m} * 8;
        pairs_store_s16_avx2(a, acc, r0, nr, a.output + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + r0);
      }
    }
  }
}

/// AVX2 a16w8 fused linear over `avx2_pairs` packed weights (groups of 8 rows; per column pair p the 8
/// rows' (w[2p], w[2p+1]) bytes; rows padded to 8 and columns to 16 with zeros). Batch rows in blocks of
/// 8, then one block of the remainder. Preconditions: `validate(a) == ok`, `packed` holding those
/// weights, CPU has AVX2.
__attribute__((target("avx2"))) inline void linear_s16_pairs_avx2(const linear_s16_args& args, const std::int8_t* packed) noexcept {
  const linear_s16_args a = args;  // local copy: the int16 output stores cannot alias it
  pairs_batch_blocks(a.batches, [&](auto mb, std::int32_t b0) {
    linear_s16_pairs_rows_avx2<decltype(mb)::value>(a, packed, b0);
  });
}

}  // namespace armlower::kernels::detail
