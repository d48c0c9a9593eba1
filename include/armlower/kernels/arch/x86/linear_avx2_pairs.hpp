/// @file armlower/kernels/arch/x86/linear_avx2_pairs.hpp
/// AVX2 s8 fused linear over the `avx2_pairs` weight layout of `kernels::pack_linear_s8`
/// (`kernels/detail/linear_s8_packed_layout.hpp`): the path `linear_s8(a, cache, size)`,
/// `linear_s8_packed` and the cached CMSIS-NN entry points run on an AVX2-only CPU. Contract:
/// `kernels/linear_args.hpp` (same integers as `linear_s8_avx2` and the generic path).
///
/// Form ("channel lanes, broadcast input pairs"): a ymm holds one column pair of 8 output channels,
/// sign-extended to int16 (`vpmovsxbw` of the 16 packed bytes: lane n = (w[n][2p], w[n][2p+1]));
/// the input pair (x[m][2p] + xoff, x[m][2p+1] + xoff) of batch row m, widened to int16 once per
/// call and K block into a stack buffer, is broadcast (`vpbroadcastd`), and `vpmaddwd` adds
/// 8 channels × 2 columns of batch row m per instruction into int32 lanes (Intel Intrinsics Guide
/// `_mm256_madd_epi16`). One widened weight vector serves MB ≤ 8 batch rows (MB·G ≤ 8 accumulators
/// for G groups of 8 channels); the accumulators of batch row m are 8 consecutive output channels,
/// so there is no horizontal reduction and the requantization runs across the 8 channels
/// (`requant4_s8_avx2`).
///
/// Measured (Zen 4 restricted to AVX2, `bench_kernels_linear`, median GMAC/s; the row-chunk layout and
/// its one-batch-row kernel it replaces in a back-to-back run): batch 8 at 64² / 256² / 1024² / 2048² /
/// 4096²: 40.7 / 67.5 / 79.2 / 76.6 / 45.3 against 14.8 / 32.9 / 47.4 / 49.5 / 43.2; batch 1: 29.4 /
/// 48.9 / 53.1 / 54.4 / 42.2 against 13.5 / 31.8 / 45.6 / 50.4 / 42.5; so it is the only AVX2 packed
/// kernel, for every batch (4000×4: 22.6 / 33.2 against 26.0 / 27.0, but such narrow layers run the
/// row-major kernel, `linear_s8_cache_pays`).
///
/// Exactness: |x + xoff| ≤ 383 and |w| ≤ 128, so one `vpmaddwd` lane is ≤ 2·383·128 = 98048 and an
/// int32 lane summed over one K block (`avx2_pairs_kb<MB>` ≤ 8192 columns = 4096 pairs) is
/// ≤ 4096·98048 < 2^29; the blocks are added in int64 (`part`), so any K is exact.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <immintrin.h>

#include <armlower/kernels/arch/x86/linear.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>  // vnni_acc32_out (the raw-accumulator output)
#include <armlower/kernels/linear_args.hpp>

namespace armlower::kernels::detail {

#define ARMLOWER_X86_AVX2 __attribute__((target("avx2")))

/// Columns per K block for MB batch rows (a multiple of 16): the widened-input buffer holds MB·KB ≤ 8192 int16 = 16 KiB
/// (stays in L1); one block covers K ≤ 8192/MB, so each group of weights is one contiguous stream
/// (batch 1: up to 8192 columns).
template <int MB>
inline constexpr std::ptrdiff_t avx2_pairs_kb = std::ptrdiff_t{8192} / MB / 16 * 16;
/// Groups of 8 channels per pass over K (the int64 block sums `part` hold 8·MB·8 ≤ 4 KiB; where K
/// spans several blocks the input is re-widened once per pass, 1/64 of the weight work).
inline constexpr std::ptrdiff_t avx2_pairs_sg = 8;

/// Writes (x[m][k0 + j] + xoff) for j < n (n ≤ avx2_pairs_kb<MB>), then zeros up to the next multiple of 16,
/// into row m of `xb` (stride avx2_pairs_kb<MB>), for the MB rows of `x` (stride cols).
template <int MB>
ARMLOWER_X86_AVX2 inline void pairs_widen_x_avx2(const std::int8_t* x, std::ptrdiff_t cols, std::ptrdiff_t k0,
                                                 std::ptrdiff_t n, std::int16_t xoff, std::int16_t* xb) noexcept {
  const __m256i off = _mm256_set1_epi16(xoff);
  for (int m = 0; m < MB; ++m) {
    const std::int8_t* xr = x + m * cols + k0;
    std::int16_t* d = xb + m * avx2_pairs_kb<MB>;
    std::ptrdiff_t j = 0;
    for (; j + 16 <= n; j += 16) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(d + j),
                         _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xr + j))), off));
    }
    if (j < n) {
      for (std::ptrdiff_t t = 0; t < 16; ++t) d[j + t] = static_cast<std::int16_t>(j + t < n ? xr[j + t] + xoff : 0);
    }
  }
}

/// One column pair of 8 channels (16 weights) as int16 lanes: the int8 layout (`avx2_pairs`) sign-extended
/// (`vpmovsxbw` of 16 bytes), the int16 one (`avx2_pairs16`) loaded as it is.
[[gnu::always_inline]] ARMLOWER_X86_AVX2 inline __m256i pairs_wv(const std::int8_t* q) noexcept {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
}
[[gnu::always_inline]] ARMLOWER_X86_AVX2 inline __m256i pairs_wv(const std::int16_t* q) noexcept {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
}

/// The int16 pair at q broadcast to 8 lanes (`vpbroadcastd` from memory).
ARMLOWER_X86_AVX2 inline __m256i pairs_bcast_avx2(const std::int16_t* q) noexcept {
  std::int32_t t;
  std::memcpy(&t, q, sizeof t);
  return _mm256_set1_epi32(t);
}

/// part[g][m][0..8) (+)= Σ_{p < np} (xb[m][2p], xb[m][2p+1]) · (w_g[p][n][0], w_g[p][n][1]) for the G groups
/// at w + g·gstride (16 weights per pair: 8 channels × 2 columns; WT: int8 or int16 weights, `pairs_wv`), MB batch
/// rows of `xb`; np a multiple of 8.
/// `first`: store instead of add. `part32` (not null): store the int32 sums there instead,
/// part32[g][m][0..8) (stride MB·8 per group), and leave `part` alone. Accumulator of (g, m): a_{g·(8/G) + m},
/// eight named ymm variables (GCC 12 keeps an __m256i array in registers only with a copy per step).
template <int MB, int G, class WT = std::int8_t>
[[gnu::noinline]] ARMLOWER_X86_AVX2 inline void pairs_block_avx2(const std::int16_t* xb, const WT* w,
                                                                std::ptrdiff_t gstride, std::ptrdiff_t np,
                                                                std::int64_t* part, std::ptrdiff_t gpart,
                                                                bool first, std::int32_t* part32 = nullptr) noexcept {
  static_assert(MB >= 1 && (G == 1 || G == 2 || G == 4) && MB * G <= 8);
  constexpr int S = 8 / G;  // accumulator index stride between groups
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  const WT* w1p = w + (G > 1 ? gstride : 0);
  const WT* w2p = w + (G > 2 ? 2 * gstride : 0);
  const WT* w3p = w + (G > 2 ? 3 * gstride : 0);
#define ARMLOWER_WV(q) pairs_wv((q) + p * 16)
#define ARMLOWER_XB(m) pairs_bcast_avx2(xb + (m) * avx2_pairs_kb<MB> + 2 * p)
#define ARMLOWER_MAC(A, W, X) (A) = _mm256_add_epi32((A), _mm256_madd_epi16((W), (X)))
  if constexpr (G == 1 && MB <= 4) {
    // ≤ 4 accumulators: even pairs into a0..a3, odd pairs into a4..a7 (two independent add chains)
    for (std::ptrdiff_t p = 0; p < np; p += 2) {
      const __m256i w0 = ARMLOWER_WV(w), w1 = ARMLOWER_WV(w + 16);
      ARMLOWER_MAC(a0, w0, ARMLOWER_XB(0));
      ARMLOWER_MAC(a4, w1, pairs_bcast_avx2(xb + 2 * p + 2));
      if constexpr (MB > 1) {
        ARMLOWER_MAC(a1, w0, ARMLOWER_XB(1));
        ARMLOWER_MAC(a5, w1, pairs_bcast_avx2(xb + avx2_pairs_kb<MB> + 2 * p + 2));
      }
      if constexpr (MB > 2) {
        ARMLOWER_MAC(a2, w0, ARMLOWER_XB(2));
        ARMLOWER_MAC(a6, w1, pairs_bcast_avx2(xb + 2 * avx2_pairs_kb<MB> + 2 * p + 2));
      }
      if constexpr (MB > 3) {
        ARMLOWER_MAC(a3, w0, ARMLOWER_XB(3));
        ARMLOWER_MAC(a7, w1, pairs_bcast_avx2(xb + 3 * avx2_pairs_kb<MB> + 2 * p + 2));
      }
    }
    // pins the 8 chains before they are combined: without it GCC 12 copies every accumulator once per step
    // (-march=x86-64-v3) or keeps one on the stack, a store-to-load chain through memory (-march=znver3,
    // Zen 3: this loop at 1 × 1024² 30 → 45 GMAC/s; benchmarks/RESULTS.md "AVX2-only hardware: Zen 3")
    asm("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7));
    a0 = _mm256_add_epi32(a0, a4);
    a1 = _mm256_add_epi32(a1, a5);
    a2 = _mm256_add_epi32(a2, a6);
    a3 = _mm256_add_epi32(a3, a7);
  } else if constexpr (G == 4 && MB == 1) {
    // one batch row, 4 groups: even pairs into a0, a2, a4, a6 and odd pairs into a1, a3, a5, a7 (Zen 5 as AVX2,
    // 1 × 1024²: 72.5–73.7 GMAC/s whatever the loop's alignment, against 61–70 with one pair per step)
    for (std::ptrdiff_t p = 0; p < np; p += 2) {
      const __m256i x0 = ARMLOWER_XB(0), x1 = pairs_bcast_avx2(xb + 2 * p + 2);
      ARMLOWER_MAC(a0, ARMLOWER_WV(w), x0);
      ARMLOWER_MAC(a2, ARMLOWER_WV(w1p), x0);
      ARMLOWER_MAC(a4, ARMLOWER_WV(w2p), x0);
      ARMLOWER_MAC(a6, ARMLOWER_WV(w3p), x0);
      ARMLOWER_MAC(a1, ARMLOWER_WV(w + 16), x1);
      ARMLOWER_MAC(a3, ARMLOWER_WV(w1p + 16), x1);
      ARMLOWER_MAC(a5, ARMLOWER_WV(w2p + 16), x1);
      ARMLOWER_MAC(a7, ARMLOWER_WV(w3p + 16), x1);
    }
    asm("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7));  // as above
    a0 = _mm256_add_epi32(a0, a1);
    a2 = _mm256_add_epi32(a2, a3);
    a4 = _mm256_add_epi32(a4, a5);
    a6 = _mm256_add_epi32(a6, a7);
  } else {
  for (std::ptrdiff_t p = 0; p < np; ++p) {
    if constexpr (G == 1) {
      const __m256i w0 = ARMLOWER_WV(w);
      ARMLOWER_MAC(a0, w0, ARMLOWER_XB(0));
      if constexpr (MB > 1) ARMLOWER_MAC(a1, w0, ARMLOWER_XB(1));
      if constexpr (MB > 2) ARMLOWER_MAC(a2, w0, ARMLOWER_XB(2));
      if constexpr (MB > 3) ARMLOWER_MAC(a3, w0, ARMLOWER_XB(3));
      if constexpr (MB > 4) ARMLOWER_MAC(a4, w0, ARMLOWER_XB(4));
      if constexpr (MB > 5) ARMLOWER_MAC(a5, w0, ARMLOWER_XB(5));
      if constexpr (MB > 6) ARMLOWER_MAC(a6, w0, ARMLOWER_XB(6));
      if constexpr (MB > 7) ARMLOWER_MAC(a7, w0, ARMLOWER_XB(7));
    } else if constexpr (G == 2) {
      const __m256i w0 = ARMLOWER_WV(w), w1 = ARMLOWER_WV(w1p);
      {
        const __m256i x = ARMLOWER_XB(0);
        ARMLOWER_MAC(a0, w0, x);
        ARMLOWER_MAC(a4, w1, x);
      }
      if constexpr (MB > 1) {
        const __m256i x = ARMLOWER_XB(1);
        ARMLOWER_MAC(a1, w0, x);
        ARMLOWER_MAC(a5, w1, x);
      }
      if constexpr (MB > 2) {
        const __m256i x = ARMLOWER_XB(2);
        ARMLOWER_MAC(a2, w0, x);
        ARMLOWER_MAC(a6, w1, x);
      }
      if constexpr (MB > 3) {
        const __m256i x = ARMLOWER_XB(3);
        ARMLOWER_MAC(a3, w0, x);
        ARMLOWER_MAC(a7, w1, x);
      }
    } else {
      const __m256i w0 = ARMLOWER_WV(w), w1 = ARMLOWER_WV(w1p), w2 = ARMLOWER_WV(w2p), w3 = ARMLOWER_WV(w3p);
      {
        const __m256i x = ARMLOWER_XB(0);
        ARMLOWER_MAC(a0, w0, x);
        ARMLOWER_MAC(a2, w1, x);
        ARMLOWER_MAC(a4, w2, x);
        ARMLOWER_MAC(a6, w3, x);
      }
      if constexpr (MB > 1) {
        const __m256i x = ARMLOWER_XB(1);
        ARMLOWER_MAC(a1, w0, x);
        ARMLOWER_MAC(a3, w1, x);
        ARMLOWER_MAC(a5, w2, x);
        ARMLOWER_MAC(a7, w3, x);
      }
    }
  }
  }
#undef ARMLOWER_MAC
#undef ARMLOWER_XB
#undef ARMLOWER_WV
  // through memory: converting the halves of a register in place makes GCC 12 keep a second copy
  // of every accumulator in the loop (a register move per step). The empty asm pins the accumulators
  // in registers at the loop exit, and each is stored by name (not through an __m256i array): without
  // both, GCC 12 -O2 kept every accumulator on the stack inside the loop (a load and a store per
  // vpmaddwd: 1.8–2.8× slower than -O3); without the asm, -O3 spilled one per step at 8 batch rows
  alignas(32) std::int32_t fin[8][8];
  asm("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7));
  _mm256_store_si256(reinterpret_cast<__m256i*>(fin[0]), a0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(fin[1]), a1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(fin[2]), a2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(fin[3]), a3);
  _mm256_store_si256(reinterpret_cast<__m256i*>(fin[4]), a4);
  _mm256_store_si256(reinterpret_cast<__m256i*>(fin[5]), a5);
  _mm256_store_si256(reinterpret_cast<__m256i*>(fin[6]), a6);
  _mm256_store_si256(reinterpret_cast<__m256i*>(fin[7]), a7);
  if (part32 != nullptr) {
    for (int g = 0; g < G; ++g) {
      for (int m = 0; m < MB; ++m) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(part32 + std::ptrdiff_t{g * MB + m} * 8),
                           _mm256_load_si256(reinterpret_cast<const __m256i*>(fin[g * S + m])));
      }
    }
    return;
  }
  for (int g = 0; g < G; ++g) {
    for (int m = 0; m < MB; ++m) {
      const std::int32_t* acc = fin[g * S + m];
      auto* pv = reinterpret_cast<__m256i*>(part + g * gpart + std::ptrdiff_t{m} * 8);
      __m256i lo = _mm256_cvtepi32_epi64(_mm_load_si128(reinterpret_cast<const __m128i*>(acc)));
      __m256i hi = _mm256_cvtepi32_epi64(_mm_load_si128(reinterpret_cast<const __m128i*>(acc + 4)));
      if (!first) {
        lo = _mm256_add_epi64(lo, _mm256_load_si256(pv));
        hi = _mm256_add_epi64(hi, _mm256_load_si256(pv + 1));
      }
      _mm256_store_si256(pv, lo);
      _mm256_store_si256(pv + 1, hi);
    }
  }
}

/// Accumulators per widened weight vector: MB batch rows × G groups with MB·G ≤ 8 (8 int32 ymm
/// accumulators + G weight vectors + 1 broadcast fit the 16 ymm registers).
template <int MB>
inline constexpr int pairs_groups_avx2 = MB >= 5 ? 1 : MB >= 3 ? 2 : 4;

/// Stores the 8 int32 lanes of y (each in [−128, 127]) as 8 int8 at out (`vpackssdw`, `vpacksswb`).
ARMLOWER_X86_AVX2 inline void store8_s8_avx2(__m256i y, std::int8_t* out) noexcept {
  const __m128i y16 = _mm_packs_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packs_epi16(y16, y16));
}

/// Output channels r0..r0+7 of batch rows b0..b0+MB−1: acc = row constant (kernel_sum, or bias, or 0)
/// + part[m][0..8) + filter_offset·xsum[m], requantized 8 channels at a time (the row constants
/// loaded once for the MB rows); a pair of 4 outside int32 runs `requantize_row_s8`.
template <int MB>
ARMLOWER_X86_AVX2 inline void requant_group8_s8_avx2(const linear_s8_args& a, const requant_s8_avx2_consts& rc,
                                                     std::int32_t r0, const std::int64_t* part,
                                                     const std::int64_t* xsum, std::int32_t b0) noexcept {
  __m256i clo = _mm256_setzero_si256(), chi = clo;
  const std::int32_t* cs = a.kernel_sum != nullptr ? a.kernel_sum : a.bias;
  if (cs != nullptr) {
    clo = _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(cs + r0)));
    chi = _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(cs + r0 + 4)));
  }
  __m256i qlo, shlo, rndlo, qhi, shhi, rndhi;
  requant_consts4_s8_avx2(a, rc, r0, qlo, shlo, rndlo);
  requant_consts4_s8_avx2(a, rc, r0 + 4, qhi, shhi, rndhi);
  // the rounding constants of `requant_core4_s8_avx2` for v ≥ 0 (p) and v < 0 (n), hoisted out of the rows:
  // with double rounding and 31 − shift > 31, ±2^30
  __m256i plo = rndlo, nlo = rndlo, phi = rndhi, nhi = rndhi;
  if (rc.dbl) {
    const __m256i h = _mm256_set1_epi64x(1 << 30);
    const __m256i alo = _mm256_and_si256(h, _mm256_cmpgt_epi64(shlo, rc.wide));
    const __m256i ahi = _mm256_and_si256(h, _mm256_cmpgt_epi64(shhi, rc.wide));
    plo = _mm256_add_epi64(rndlo, alo);
    nlo = _mm256_sub_epi64(rndlo, alo);
    phi = _mm256_add_epi64(rndhi, ahi);
    nhi = _mm256_sub_epi64(rndhi, ahi);
  }
  const __m256i zero = _mm256_setzero_si256();
  for (int m = 0; m < MB; ++m) {
    const __m256i fx = _mm256_set1_epi64x(static_cast<std::int64_t>(a.filter_offset) * xsum[m]);
    const __m256i vlo = _mm256_add_epi64(_mm256_add_epi64(clo, fx), _mm256_load_si256(reinterpret_cast<const __m256i*>(part + std::ptrdiff_t{m} * 8)));
    const __m256i vhi = _mm256_add_epi64(_mm256_add_epi64(chi, fx), _mm256_load_si256(reinterpret_cast<const __m256i*>(part + std::ptrdiff_t{m} * 8 + 4)));
    std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + r0;
    if (!in_int32_avx2(vlo) || !in_int32_avx2(vhi)) {
      alignas(32) std::int64_t v[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(v), vlo);
      _mm256_store_si256(reinterpret_cast<__m256i*>(v + 4), vhi);
      for (int i = 0; i < 8; ++i) y[i] = requantize_row_s8(a, r0 + i, v[i]);
      continue;
    }
    const __m256i ylo = requant_apply4_s8_avx2(rc, vlo, qlo, shlo, _mm256_blendv_epi8(plo, nlo, _mm256_cmpgt_epi64(zero, vlo)));
    const __m256i yhi = requant_apply4_s8_avx2(rc, vhi, qhi, shhi, _mm256_blendv_epi8(phi, nhi, _mm256_cmpgt_epi64(zero, vhi)));
    // dwords (lo0, hi0, lo1, hi1, …) → (lo0..lo3, hi0..hi3) → int8
    // dwords (lo0, hi0, lo1, hi1, …) → (lo0..lo3, hi0..hi3)
    store8_s8_avx2(_mm256_permutevar8x32_epi32(_mm256_blend_epi32(ylo, _mm256_slli_epi64(yhi, 32), 0xAA),
                                               _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)),
                   y);
  }
}

/// The constants of `requant_group8_fast_s8_avx2` for 8 output channels from r0 (per-tensor: any r0).
struct pairs_fast_consts {
  __m256i q, q_odd, r_even, r_odd, sh32;
};

/// `pairs_fast_consts` of channels r0..r0+7 (per-channel: r0 + 8 ≤ rows; per-tensor: any r0): multiplier q, 2^(sh − 1) per 64-bit lane of the even and the odd
/// channels (+ 2^30 with double rounding, as sh > 31), sh − 32 (sh = 31 − shift ≥ 32).
ARMLOWER_X86_AVX2 inline pairs_fast_consts make_pairs_fast_consts(const linear_s8_args& a, bool dbl, std::int32_t r0) noexcept {
  pairs_fast_consts k;
  __m256i sh = _mm256_set1_epi32(31 - a.shift[0]);
  k.q = _mm256_set1_epi32(a.multiplier[0]);
  if (a.per_channel) {
    k.q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.multiplier + r0));
    sh = _mm256_sub_epi32(_mm256_set1_epi32(31), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.shift + r0)));
  }
  k.q_odd = _mm256_srli_epi64(k.q, 32);
  const __m256i ones = _mm256_set1_epi64x(1);
  k.r_even = _mm256_sllv_epi64(ones, _mm256_sub_epi64(_mm256_and_si256(sh, _mm256_set1_epi64x(0xFFFFFFFF)), ones));
  k.r_odd = _mm256_sllv_epi64(ones, _mm256_sub_epi64(_mm256_srli_epi64(sh, 32), ones));
  if (dbl) {
    k.r_even = _mm256_add_epi64(k.r_even, _mm256_set1_epi64x(std::int64_t{1} << 30));
    k.r_odd = _mm256_add_epi64(k.r_odd, _mm256_set1_epi64x(std::int64_t{1} << 30));
  }
  k.sh32 = _mm256_sub_epi32(sh, _mm256_set1_epi32(32));
  return k;
}

/// True if a call may requantize in int32 lanes (`requant_group8_fast_s8_avx2`): int8 output, every shift
/// ≤ −1 (31 − shift ≥ 32), and cmax + (128 + |xoff|)·(128 + |filter_offset|)·K < 2^31 with cmax ≥ every
/// |row constant| (bias or kernel_sum; |x + xoff| ≤ 128 + |xoff|, |w| ≤ 128), so that every sum c[r] +
/// Σ_k (x + xoff)·w + filter_offset·Σ_k (x + xoff) and each of its partial sums is an exact int32.
[[nodiscard]] inline bool pairs_fast_requant_ok(const linear_s8_args& a, std::int16_t xoff, std::int64_t cmax) noexcept {
  const std::int64_t xm = 128 + (xoff < 0 ? -xoff : xoff), fm = 128 + (a.filter_offset < 0 ? -a.filter_offset : a.filter_offset);
  bool ok = cmax >= 0 && cmax + xm * fm * a.cols < (std::int64_t{1} << 31);
  for (std::int32_t i = 0; ok && i < (a.per_channel ? a.rows : 1); ++i) ok = a.shift[i] <= -1;
  return ok;
}

/// max_r |c[r]| of the row constants a linear uses (kernel_sum, else bias, else 0); 8 rows per step
/// (`vpabsd` read as unsigned: |INT32_MIN| = 2^31, then `vpmaxud`), reduced in registers.
ARMLOWER_X86_AVX2 inline std::int64_t pairs_row_constant_max(const linear_s8_args& a) noexcept {
  const std::int32_t* c = a.kernel_sum != nullptr ? a.kernel_sum : a.bias;
  if (c == nullptr) return 0;
  __m256i m = _mm256_setzero_si256();
  std::int32_t r = 0;
  for (; r + 8 <= a.rows; r += 8) m = _mm256_max_epu32(m, _mm256_abs_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + r))));
  m = _mm256_max_epu32(m, _mm256_permute2x128_si256(m, m, 0x01));
  m = _mm256_max_epu32(m, _mm256_shuffle_epi32(m, 0x4E));
  m = _mm256_max_epu32(m, _mm256_shuffle_epi32(m, 0xB1));
  std::int64_t best = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(m));
  for (; r < a.rows; ++r) best = std::max(best, c[r] < 0 ? -std::int64_t{c[r]} : std::int64_t{c[r]});
  return best;
}

/// The output-side constants of the int32-lane requantization for a call: output_offset, activation_min /
/// activation_max (8 int32 lanes each) and 2^31 per 64-bit lane (the double-rounding correction).
struct pairs_fast_out {
  __m256i out_off, lo, hi, bit31;
};

ARMLOWER_X86_AVX2 inline pairs_fast_out make_pairs_fast_out(const linear_s8_args& a) noexcept {
  return {_mm256_set1_epi32(a.output_offset), _mm256_set1_epi32(a.activation_min), _mm256_set1_epi32(a.activation_max),
          _mm256_set1_epi64x(std::int64_t{1} << 31)};
}

/// `requantize_row_s8` of 8 int32 accumulators v (channel order) in int32 lanes, for a call with
/// `pairs_fast_requant_ok`: t = v·q + 2^(sh − 1) (+ 2^30, − 2^31 for v < 0 with double rounding `dbl`) in int64
/// (`vpmuldq` of the even and of the odd lanes), y = floor(t / 2^sh) = (the high dword of t) >> (sh − 32)
/// (`vpsravd`), + output_offset, clamped to [activation_min, activation_max]: the same integers as the
/// int64-lane form, as 8 int32 lanes. `k`: `make_pairs_fast_consts(a, dbl, r0)`; `o`: `make_pairs_fast_out(a)`.
[[gnu::always_inline]] ARMLOWER_X86_AVX2 inline __m256i requant8_fast_s8_avx2(const pairs_fast_consts& k, const pairs_fast_out& o,
                                                                            bool dbl, __m256i v) noexcept {
  __m256i te = _mm256_add_epi64(_mm256_mul_epi32(v, k.q), k.r_even);
  __m256i to = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(v, 32), k.q_odd), k.r_odd);
  if (dbl) {  // − 2^31 where v < 0: the rounding constant becomes 2^(sh − 1) − 2^30
    const __m256i neg = _mm256_srai_epi32(v, 31);
    te = _mm256_sub_epi64(te, _mm256_and_si256(neg, o.bit31));
    to = _mm256_sub_epi64(to, _mm256_and_si256(_mm256_srli_epi64(neg, 32), o.bit31));
  }
  const __m256i y = _mm256_blend_epi32(_mm256_srli_epi64(te, 32), to, 0xAA);  // the high dwords, in channel order
  return _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(_mm256_srav_epi32(y, k.sh32), o.out_off), o.lo), o.hi);
}

/// `requantize_row_s8` of output channels r0..r0+7 for MB batch rows in int32 lanes, the fast form of
/// `requant_group8_s8_avx2` for a call with `pairs_fast_requant_ok`: v = c[r] + part[m][r − r0] +
/// filter_offset·xsum[m] (part: int32 sums, or int64 sums, which then fit int32), requantized by
/// `requant8_fast_s8_avx2`. `k`: `make_pairs_fast_consts(a, rc.dbl, r0)`.
template <int MB, class P>
ARMLOWER_X86_AVX2 inline void requant_group8_fast_s8_avx2(const linear_s8_args& a, const requant_s8_avx2_consts& rc,
                                                          const pairs_fast_consts& k, std::int32_t r0, const P* part,
                                                          const std::int64_t* xsum, std::int32_t b0) noexcept {
  static_assert(std::is_same_v<P, std::int32_t> || std::is_same_v<P, std::int64_t>);
  const std::int32_t* cs = a.kernel_sum != nullptr ? a.kernel_sum : a.bias;
  const __m256i c = cs != nullptr ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cs + r0)) : _mm256_setzero_si256();
  const pairs_fast_out o = make_pairs_fast_out(a);
  for (int m = 0; m < MB; ++m) {
    const auto fx = static_cast<std::int32_t>(a.filter_offset * xsum[m]);
    __m256i s;
    if constexpr (std::is_same_v<P, std::int32_t>) {
      s = _mm256_load_si256(reinterpret_cast<const __m256i*>(part + m * 8));
    } else {  // the low dwords of the 8 int64 sums, in channel order
      const __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(part + m * 8));
      const __m256i hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(part + m * 8 + 4));
      s = _mm256_permutevar8x32_epi32(_mm256_blend_epi32(lo, _mm256_slli_epi64(hi, 32), 0xAA),
                                      _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    }
    const __m256i v = _mm256_add_epi32(_mm256_add_epi32(c, _mm256_set1_epi32(fx)), s);
    store8_s8_avx2(requant8_fast_s8_avx2(k, o, rc.dbl, v), a.output + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + r0);
  }
}

/// `requant_group8_s8_avx2` for the group of channels r0 .. min(r0 + 8, rows) − 1 (a tail group of
/// fewer than 8 channels requantizes 4 at a time, then one at a time).
template <int MB>
ARMLOWER_X86_AVX2 inline void requant_group_s8_avx2(const linear_s8_args& a, const requant_s8_avx2_consts& rc,
                                                    std::int32_t r0, const std::int64_t* part,
                                                    const std::int64_t* xsum, std::int32_t b0) noexcept {
  const int nr = a.rows - r0 < 8 ? a.rows - r0 : 8;
  if (nr == 8) {
    requant_group8_s8_avx2<MB>(a, rc, r0, part, xsum, b0);
    return;
  }
  const bool ks = a.kernel_sum != nullptr;
  std::int64_t cst[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < nr; ++i) cst[i] = ks ? a.kernel_sum[r0 + i] : (a.bias != nullptr ? a.bias[r0 + i] : 0);
  for (int m = 0; m < MB; ++m) {
    const std::int64_t* acc = part + std::ptrdiff_t{m} * 8;
    const std::int64_t fx = static_cast<std::int64_t>(a.filter_offset) * xsum[m];
    alignas(32) std::int64_t v[8];
    for (int i = 0; i < 8; ++i) v[i] = cst[i] + acc[i] + fx;
    std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + r0;
    int i = 0;
    for (; i + 4 <= nr; i += 4) requant4_s8_avx2(a, rc, r0 + i, v + i, y + i);
    for (; i < nr; ++i) y[i] = requantize_row_s8(a, r0 + i, v[i]);
  }
}

/// The per-tensor constants of `requant_group8_fast_s8_avx2` for a call (`fast`: `pairs_fast_requant_ok`; `dbl`: double
/// rounding), else none (per-channel calls build theirs per group in `requant_group_any_s8_avx2`).
ARMLOWER_X86_AVX2 inline pairs_fast_consts pairs_tensor_consts(const linear_s8_args& a, bool dbl, bool fast) noexcept {
  return fast && !a.per_channel ? make_pairs_fast_consts(a, dbl, 0) : pairs_fast_consts{};
}

/// Channels r0 .. r0+7 of one batch row in int32 lanes, for a call with `pairs_fast_requant_ok`: v = c[r] + add + s
/// (c: kernel_sum, else bias, else 0; add: that row's Σx term and any constant every channel shares; s: the 8 sums),
/// requantized by `requant8_fast_s8_avx2` (`kt`: `pairs_tensor_consts`; per-channel constants built here) and stored at
/// y + r0. The epilogue of the in-register row-major forms (`rowdot8_groups_fast_s8_avx2`, `vnni_rowdot8_fast`).
[[gnu::always_inline]] ARMLOWER_X86_AVX2 inline void store8_fast_group_s8_avx2(const linear_s8_args& a, const pairs_fast_consts& kt,
                                                                             const pairs_fast_out& o, bool dbl, __m256i add,
                                                                             __m256i s, std::int32_t r0, std::int8_t* y) noexcept {
  const std::int32_t* cs = a.kernel_sum != nullptr ? a.kernel_sum : a.bias;
  const __m256i c = cs != nullptr ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cs + r0)) : _mm256_setzero_si256();
  const __m256i v = _mm256_add_epi32(_mm256_add_epi32(c, add), s);
  store8_s8_avx2(requant8_fast_s8_avx2(a.per_channel ? make_pairs_fast_consts(a, dbl, r0) : kt, o, dbl, v), y + r0);
}

/// The requantization of the channel group from r0 of a call: `requant_group8_fast_s8_avx2` where `fast`
/// (`pairs_fast_requant_ok`) and the group has 8 channels (`k`: `pairs_tensor_consts`), else
/// `requant_group_s8_avx2` on the int64 sums (int32 sums `part` widened first).
template <int MB, class P>
ARMLOWER_X86_AVX2 inline void requant_group_any_s8_avx2(const linear_s8_args& a, const requant_s8_avx2_consts& rc, bool fast,
                                                        const pairs_fast_consts& k, std::int32_t r0, const P* part,
                                                        const std::int64_t* xsum, std::int32_t b0) noexcept {
  if (fast && a.rows - r0 >= 8) {
    requant_group8_fast_s8_avx2<MB>(a, rc, a.per_channel ? make_pairs_fast_consts(a, rc.dbl, r0) : k, r0, part, xsum, b0);
  } else if constexpr (std::is_same_v<P, std::int64_t>) {
    requant_group_s8_avx2<MB>(a, rc, r0, part, xsum, b0);
  } else {
    alignas(32) std::int64_t wide[MB * 8];
    for (int i = 0; i < MB * 8; ++i) wide[i] = part[i];
    requant_group_s8_avx2<MB>(a, rc, r0, wide, xsum, b0);
  }
}

/// xsum[m] = Σ_k (x[m][k] + xoff) for the MB batch rows at x (stride cols) when the filter offset is
/// non-zero (the filter_offset·Σx' term), else 0.
template <int MB>
inline void pairs_xsum(const linear_s8_args& a, const std::int8_t* x, std::int16_t xoff, std::int64_t* xsum) noexcept {
  const std::ptrdiff_t cols = a.cols;
  for (int m = 0; m < MB; ++m) {
    std::int64_t s = 0;
    if (a.filter_offset != 0) {
      for (std::ptrdiff_t k = 0; k < cols; ++k) s += x[m * cols + k];
      s += static_cast<std::int64_t>(xoff) * cols;
    }
    xsum[m] = s;
  }
}

/// Raw-accumulator epilogue (TOSA CONV2D int8 → int32, `vnni_acc32_out` states the output and its
/// REQUIREs): for output channels r0..r0+nr−1 (nr ≤ 8) of batch rows b0..b0+MB−1, acc = c[r] + part[m][r]
/// + filter_offset·xsum[m] (int64 lanes; `c` the folded row constants, readable for 8 rows from r0, or
/// null for none — the repack form `conv_s8_acc32_rowpairs_avx2`, whose part already holds every term),
/// y = acc + bias[bias_size == 1 ? 0 : r]; stores y as int32 and sets `o.range_error` where acc or y
/// is outside int32 (lanes ≥ nr ignored: their padded channels are not outputs).
template <int MB>
ARMLOWER_X86_AVX2 inline void pairs_acc32_group8_avx2(const linear_s8_args& a, vnni_acc32_out& o, const std::int64_t* c,
                                                      std::int32_t r0, int nr, const std::int64_t* part,
                                                      const std::int64_t* xsum, std::int32_t b0) noexcept {
  const __m256i clo = c != nullptr ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + r0)) : _mm256_setzero_si256();
  const __m256i chi = c != nullptr ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + r0 + 4)) : _mm256_setzero_si256();
  __m256i blo, bhi;
  if (o.bias_size == 1) {
    blo = bhi = _mm256_set1_epi64x(o.bias[0]);
  } else if (nr == 8) {
    blo = _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(o.bias + r0)));
    bhi = _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(o.bias + r0 + 4)));
  } else {
    alignas(32) std::int64_t b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < nr; ++i) b[i] = o.bias[r0 + i];
    blo = _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
    bhi = _mm256_load_si256(reinterpret_cast<const __m256i*>(b + 4));
  }
  const __m256i lo = _mm256_set1_epi64x(INT32_MIN), hi = _mm256_set1_epi64x(INT32_MAX);
#define ARMLOWER_OUTSIDE(v) _mm256_or_si256(_mm256_cmpgt_epi64(lo, (v)), _mm256_cmpgt_epi64((v), hi))
  __m256i bad_lo = _mm256_setzero_si256(), bad_hi = bad_lo;
  for (int m = 0; m < MB; ++m) {
    const __m256i fx = _mm256_set1_epi64x(static_cast<std::int64_t>(a.filter_offset) * xsum[m]);
    const __m256i vlo = _mm256_add_epi64(_mm256_add_epi64(clo, fx), _mm256_load_si256(reinterpret_cast<const __m256i*>(part + std::ptrdiff_t{m} * 8)));
    const __m256i vhi = _mm256_add_epi64(_mm256_add_epi64(chi, fx), _mm256_load_si256(reinterpret_cast<const __m256i*>(part + std::ptrdiff_t{m} * 8 + 4)));
    const __m256i ylo = _mm256_add_epi64(vlo, blo), yhi = _mm256_add_epi64(vhi, bhi);
    bad_lo = _mm256_or_si256(bad_lo, _mm256_or_si256(ARMLOWER_OUTSIDE(vlo), ARMLOWER_OUTSIDE(ylo)));
    bad_hi = _mm256_or_si256(bad_hi, _mm256_or_si256(ARMLOWER_OUTSIDE(vhi), ARMLOWER_OUTSIDE(yhi)));
    // low dwords (lo0, hi0, lo1, hi1, …) → (lo0..lo3, hi0..hi3)
    const __m256i y32 = _mm256_permutevar8x32_epi32(_mm256_blend_epi32(ylo, _mm256_slli_epi64(yhi, 32), 0xAA),
                                                    _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    std::int32_t* y = o.out + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + r0;
    if (nr == 8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), y32);
    } else {
      alignas(32) std::int32_t t[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(t), y32);
      std::memcpy(y, t, static_cast<std::size_t>(nr) * sizeof(std::int32_t));
    }
  }
#undef ARMLOWER_OUTSIDE
  const __m256i n = _mm256_set1_epi64x(nr);  // lane i is a channel if i < nr
  bad_lo = _mm256_and_si256(bad_lo, _mm256_cmpgt_epi64(n, _mm256_setr_epi64x(0, 1, 2, 3)));
  bad_hi = _mm256_and_si256(bad_hi, _mm256_cmpgt_epi64(n, _mm256_setr_epi64x(4, 5, 6, 7)));
  const __m256i bad = _mm256_or_si256(bad_lo, bad_hi);
  o.range_error = o.range_error || _mm256_testz_si256(bad, bad) == 0;
}

/// The whole groups of 8 channels (the first 8·⌊rows/8⌋) of batch row b0 of a call with `pairs_fast_requant_ok` whose
/// K is one block (`avx2_pairs_kb<1>`), input widened at xb (`pairs_widen_x_avx2<1>`), `np` pairs, groups `gstride`
/// weights apart: per 4 groups the dot products (`pairs_block_avx2<1, 4>`, its int32 sums), then each group's 8 sums
/// requantized and stored (`store8_fast_group_s8_avx2`; `add` = the row's Σx term, `kt`: `pairs_tensor_consts`); the
/// groups after the last 4 one at a time. WT: the weights' type (`pairs_wv`). The batch-1 form of one K
/// block: the groups' requantization instantiated for the rounding, no per-group `requant_group_any_s8_avx2` call.
/// Measured with the int16 layout (Zen 5 restricted to AVX2, `BM_s8_armlower_avx2_prepacked` 1 × 64², GMAC/s): 43–45
/// before → 48–49; the same loop inlined here instead of `pairs_block_avx2`'s ran 50–51, and spilled an accumulator
/// through memory at 1 × 256² (int8 weights: 71 → 53) when shared as one inlined helper.
template <bool Dbl, class WT>
ARMLOWER_X86_AVX2 inline void pairs_row1_fast_s8_avx2(const linear_s8_args& a, const WT* packed,
                                                             const std::int16_t* xb, std::ptrdiff_t np,
                                                             std::ptrdiff_t gstride, const pairs_fast_consts& kt,
                                                             __m256i add, std::int8_t* y) noexcept {
  const pairs_fast_out o = make_pairs_fast_out(a);
  const std::ptrdiff_t groups = a.rows / 8;
  std::ptrdiff_t g = 0;
  alignas(32) std::int32_t s[4][8];  // the sums of `pairs_block_avx2` (its register allocation: out of line)
  for (; g + 4 <= groups; g += 4) {
    pairs_block_avx2<1, 4, WT>(xb, packed + g * gstride, gstride, np, nullptr, 8, true, s[0]);
#pragma GCC unroll 4
    for (std::ptrdiff_t i = 0; i < 4; ++i) {
      store8_fast_group_s8_avx2(a, kt, o, Dbl, add, _mm256_load_si256(reinterpret_cast<const __m256i*>(s[i])),
                                static_cast<std::int32_t>(8 * (g + i)), y);
    }
  }
  for (; g < groups; ++g) {
    pairs_block_avx2<1, 1, WT>(xb, packed + g * gstride, gstride, np, nullptr, 8, true, s[0]);
    store8_fast_group_s8_avx2(a, kt, o, Dbl, add, _mm256_load_si256(reinterpret_cast<const __m256i*>(s[0])),
                              static_cast<std::int32_t>(8 * g), y);
  }
}

/// Batch rows b0 .. b0+MB−1 of `linear_s8_pairs_avx2` (`fast`: `pairs_fast_requant_ok`, decided for the call).
template <int MB, class WT>
ARMLOWER_X86_AVX2 inline void linear_s8_pairs_rows_avx2(const linear_s8_args& a, const requant_s8_avx2_consts& rc,
                                                        const WT* packed, std::int32_t b0,
                                                        std::int16_t xoff, vnni_acc32_out* acc32,
                                                        const std::int64_t* c64, bool fast) noexcept {
  constexpr int G = pairs_groups_avx2<MB>;
  const std::ptrdiff_t cols = a.cols;
  const std::ptrdiff_t gstride = (cols + 15) / 16 * 128;  // weights per group of 8 channels
  const std::ptrdiff_t groups = (a.rows + 7) / 8;
  const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b0) * cols;
  std::int64_t xsum[MB];
  pairs_xsum<MB>(a, x, xoff, xsum);
  alignas(32) std::int16_t xb[MB * avx2_pairs_kb<MB>];
  alignas(32) std::int64_t part[avx2_pairs_sg * MB * 8];
  const bool one_block = cols <= avx2_pairs_kb<MB>;  // then the input is widened once for all passes
  if (one_block) pairs_widen_x_avx2<MB>(x, cols, 0, cols, xoff, xb);
  if (fast && one_block) {  // int32 sums straight into the int32-lane requantization
    alignas(32) std::int32_t part32[avx2_pairs_sg * MB * 8];
    const pairs_fast_consts k = pairs_tensor_consts(a, rc.dbl, true);
    const std::ptrdiff_t np = (cols + 15) / 16 * 8;
    constexpr std::ptrdiff_t gp = std::ptrdiff_t{MB} * 8;
    std::ptrdiff_t gfirst = 0;
    if constexpr (MB == 1) {  // the whole groups by `pairs_row1_fast_s8_avx2`, a last partial group below
      const __m256i add = _mm256_set1_epi32(static_cast<std::int32_t>(a.filter_offset * xsum[0]));
      std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b0) * a.rows;
      if (rc.dbl) {
        pairs_row1_fast_s8_avx2<true>(a, packed, xb, np, gstride, k, add, y);
      } else {
        pairs_row1_fast_s8_avx2<false>(a, packed, xb, np, gstride, k, add, y);
      }
      gfirst = a.rows / 8;
    }
    for (std::ptrdiff_t g0 = gfirst; g0 < groups; g0 += avx2_pairs_sg) {
      const std::ptrdiff_t gn = groups - g0 < avx2_pairs_sg ? groups - g0 : avx2_pairs_sg;
      const WT* w = packed + g0 * gstride;
      std::ptrdiff_t g = 0;
      for (; g + G <= gn; g += G) pairs_block_avx2<MB, G, WT>(xb, w + g * gstride, gstride, np, part, gp, true, part32 + g * gp);
      for (; g < gn; ++g) pairs_block_avx2<MB, 1, WT>(xb, w + g * gstride, gstride, np, part, gp, true, part32 + g * gp);
      for (g = 0; g < gn; ++g)
        requant_group_any_s8_avx2<MB>(a, rc, true, k, static_cast<std::int32_t>((g0 + g) * 8), part32 + g * gp, xsum, b0);
    }
    return;
  }
  const pairs_fast_consts k = pairs_tensor_consts(a, rc.dbl, fast);
  for (std::ptrdiff_t g0 = 0; g0 < groups; g0 += avx2_pairs_sg) {
    const std::ptrdiff_t gn = groups - g0 < avx2_pairs_sg ? groups - g0 : avx2_pairs_sg;
    for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += avx2_pairs_kb<MB>) {
      const std::ptrdiff_t n = cols - k0 < avx2_pairs_kb<MB> ? cols - k0 : avx2_pairs_kb<MB>;
      if (!one_block) pairs_widen_x_avx2<MB>(x, cols, k0, n, xoff, xb);
      const std::ptrdiff_t np = (n + 15) / 16 * 8;
      const WT* w = packed + g0 * gstride + k0 * 8;  // k0/2 pairs × 16 weights
      std::ptrdiff_t g = 0;
      constexpr std::ptrdiff_t gp = std::ptrdiff_t{MB} * 8;  // part elements per group
      for (; g + G <= gn; g += G) pairs_block_avx2<MB, G, WT>(xb, w + g * gstride, gstride, np, part + g * gp, gp, k0 == 0);
      for (; g < gn; ++g) pairs_block_avx2<MB, 1, WT>(xb, w + g * gstride, gstride, np, part + g * gp, gp, k0 == 0);
    }
    for (std::ptrdiff_t g = 0; g < gn; ++g) {
      const auto r0 = static_cast<std::int32_t>((g0 + g) * 8);
      if (acc32 != nullptr) {
        const int nr = a.rows - r0 < 8 ? a.rows - r0 : 8;
        pairs_acc32_group8_avx2<MB>(a, *acc32, c64, r0, nr, part + g * MB * 8, xsum, b0);
        continue;
      }
      requant_group_any_s8_avx2<MB>(a, rc, fast, k, r0, part + g * MB * 8, xsum, b0);
    }
  }
}

/// Calls f(std::integral_constant<int, MB>{}, b0) for `batches` rows in blocks of MB = 8, then one
/// block of the remainder (1..7).
template <class F>
inline void pairs_batch_blocks(std::int32_t batches, F&& f) noexcept {
  std::int32_t b = 0;
  for (; b + 8 <= batches; b += 8) f(std::integral_constant<int, 8>{}, b);
  switch (batches - b) {
    case 7: f(std::integral_constant<int, 7>{}, b); break;
    case 6: f(std::integral_constant<int, 6>{}, b); break;
    case 5: f(std::integral_constant<int, 5>{}, b); break;
    case 4: f(std::integral_constant<int, 4>{}, b); break;
    case 3: f(std::integral_constant<int, 3>{}, b); break;
    case 2: f(std::integral_constant<int, 2>{}, b); break;
    case 1: f(std::integral_constant<int, 1>{}, b); break;
    default: break;
  }
}

/// AVX2 s8 fused linear over `avx2_pairs` packed weights (groups of 8 rows; per column pair p the
/// 8 rows' (w[2p], w[2p+1]) bytes, 16 bytes; rows padded to 8 and columns to 16 with zeros), WT = std::int8_t,
/// or the same order as int16 (`avx2_pairs16`, WT = std::int16_t: no sign extension per call).
/// Batch rows in blocks of 8, then one block of the remainder (1..7). Same integers as
/// `linear_s8_avx2`. Preconditions: `validate(a) == ok`, `packed` holding those
/// weights, CPU has AVX2.
/// `acc32` (TOSA CONV2D, `kernels/conv2d_packed.hpp`): write raw int32 accumulators + bias there
/// instead of requantizing (`vnni_acc32_out`, with its REQUIRE checks): acc = c64[r] + Σ_k x·w +
/// filter_offset·Σ_k x, where `c64` holds the int64 row constants of `pack_linear_s8` (input_offset·Σw
/// + cols·input_offset·filter_offset; no bias, no kernel_sum in `args`), so x is not offset (|x| ≤ 128:
/// exact as above).
/// `folded` (not null): the int32 row constants of `pack_linear_s8`, run as the kernel_sum (CMSIS-NN form)
/// in place of args' bias / kernel_sum; `cmax` (≥ 0): a bound on their magnitudes (the packing header's),
/// which lets the requantization run in int32 lanes where `pairs_fast_requant_ok` holds (−1: never).
/// Measured (Zen 5 restricted to AVX2, `bench_kernels_linear` BM_s8_armlower_avx2_prepacked; benchmarks/RESULTS.md
/// "AVX2 class on Zen 5, XNNPACK restricted to AVX2"): with that form, the folded constants set in the local copy
/// and the 1-row step of `pairs_block_avx2`, 1 × 64² 36.0 → 46.6 GMAC/s, 8 × 64² 52.8 → 68.8.
template <class WT>
ARMLOWER_X86_AVX2 inline void linear_s8_pairs_avx2(const linear_s8_args& args, const WT* packed,
                                                   vnni_acc32_out* acc32 = nullptr, const std::int64_t* c64 = nullptr,
                                                   const std::int32_t* folded = nullptr, std::int64_t cmax = -1) noexcept {
  linear_s8_args a = args;  // local copy: int8 output stores cannot alias it
  if (folded != nullptr) {  // set here, in the copy: a caller's field stores would stall this copy's loads
    a.kernel_sum = folded;
    a.bias = nullptr;
  }
  const auto xoff = static_cast<std::int16_t>(a.kernel_sum != nullptr || acc32 != nullptr ? 0 : a.input_offset);
  const requant_s8_avx2_consts rc = make_requant_s8_avx2(a);
  // `requant_group8_fast_s8_avx2` for the call, on the int32 sums of one K block (`one_block`, per batch block)
  const bool fast = acc32 == nullptr && pairs_fast_requant_ok(a, xoff, cmax);
  pairs_batch_blocks(a.batches, [&](auto mb, std::int32_t b0) {
    linear_s8_pairs_rows_avx2<decltype(mb)::value, WT>(a, rc, packed, b0, xoff, acc32, c64, fast);
  });
}

#undef ARMLOWER_X86_AVX2

}  // namespace armlower::kernels::detail
