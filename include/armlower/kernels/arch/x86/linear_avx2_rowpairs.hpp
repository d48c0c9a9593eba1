/// @file armlower/kernels/arch/x86/linear_avx2_rowpairs.hpp
/// AVX2 s8 fused linear over ROW-MAJOR weights, batch-blocked: the column-pair microkernel of
/// `arch/x86/linear_avx2_pairs.hpp` (`pairs_block_avx2`, up to 8 batch rows × 8 channels per widened
/// weight vector) fed by a repack on the fly. For each group of 8 output channels and K tile, the
/// row-major weights w[r0 .. r0+8)[k0 .. k0+KT) are rearranged into the `avx2_pairs` form (per column
/// pair p the 8 channels' (w[2p], w[2p+1]) bytes, 16 bytes; an 8×8 transpose of 16-bit elements,
/// `vpunpck{l,h}{wd,dq,qdq}`) in a stack tile of ≤ 8 KiB, then every batch row of the block runs over
/// that tile: the repack (≈ 3 shuffle µops per 16 weight bytes) is paid once per batch block of ≤ 8
/// rows. No heap, no caller buffer: what `linear_s8(a)` (and the interpreter's int8 CONV2D 1×1,
/// `conv_s8_acc32_rowpairs_avx2`) runs on an AVX2-only CPU where `rowpairs_pays`. Contract:
/// `kernels/linear_args.hpp` (same integers as `linear_s8_avx2`, the generic path and `linear_s8_pairs_avx2`).
///
/// Measured (Zen 4 restricted to AVX2, `bench_kernels_linear` BM_s8_armlower_avx2, median GMAC/s, oneDNN 2.6
/// `gemm:jit` u8 src in the same run): batch 8 at 64² / 256² / 1024² / 2048² / 4096²: 39.6 / 62.3 / 63.8 / 62.3 /
/// 46.5 against 23.3 / 61.8 / 60.3 / 38.4 / 30.4 (the dot-rows kernel before: 12.1 / 25.7 / 41.6 / 42.6 / 35.4);
/// a repacked tile costs ≈ 10 % of the time at 256² (three `vpunpck` stages per 16 pairs × 8 channels), which the
/// prepacked `linear_s8_pairs_avx2` does not pay (69.3 there).
///
/// Stack: widened input 16 KiB (`avx2_pairs_kb`) + weight tile 8 KiB + int64 block sums ≤ 4 KiB.
///
/// Exactness (as `linear_s8_pairs_avx2`): |x + xoff| ≤ 128 + 255 = 383 (|input_offset| ≤ 255, the
/// kernel_sum form uses xoff = 0) and |w| ≤ 128, so one `vpmaddwd` lane is ≤ 2·383·128 = 98048; an int32
/// lane sums at most one K tile (≤ 1024 columns = 512 pairs) per `pairs_block_avx2` call: ≤ 512·98048
/// < 2^26; the calls are added in int64 (`part`), and filter_offset·Σx' and the row constant in int64 in
/// the requantization, so any K is exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <immintrin.h>

#include <armlower/kernels/arch/x86/linear.hpp>
#include <armlower/kernels/arch/x86/linear_avx2_pairs.hpp>
#include <armlower/kernels/linear_args.hpp>

namespace armlower::kernels::detail {

#define ARMLOWER_X86_AVX2 __attribute__((target("avx2")))

/// Columns of one weight tile for G groups of 8 channels: G·8·KT bytes ≤ 8 KiB (a multiple of 16, ≤ the
/// K block `avx2_pairs_kb<MB>` of the widened input).
template <int MB>
inline constexpr std::ptrdiff_t rowpairs_kt =
    std::ptrdiff_t{1024} / pairs_groups_avx2<MB> < avx2_pairs_kb<MB> ? std::ptrdiff_t{1024} / pairs_groups_avx2<MB>
                                                                     : avx2_pairs_kb<MB>;

ARMLOWER_X86_AVX2 inline __m128i rp_lo16(__m128i a, __m128i b) noexcept { return _mm_unpacklo_epi16(a, b); }
ARMLOWER_X86_AVX2 inline __m128i rp_hi16(__m128i a, __m128i b) noexcept { return _mm_unpackhi_epi16(a, b); }
ARMLOWER_X86_AVX2 inline __m128i rp_lo32(__m128i a, __m128i b) noexcept { return _mm_unpacklo_epi32(a, b); }
ARMLOWER_X86_AVX2 inline __m128i rp_hi32(__m128i a, __m128i b) noexcept { return _mm_unpackhi_epi32(a, b); }
ARMLOWER_X86_AVX2 inline __m128i rp_lo64(__m128i a, __m128i b) noexcept { return _mm_unpacklo_epi64(a, b); }
ARMLOWER_X86_AVX2 inline __m128i rp_hi64(__m128i a, __m128i b) noexcept { return _mm_unpackhi_epi64(a, b); }
ARMLOWER_X86_AVX2 inline __m256i rp_lo16(__m256i a, __m256i b) noexcept { return _mm256_unpacklo_epi16(a, b); }
ARMLOWER_X86_AVX2 inline __m256i rp_hi16(__m256i a, __m256i b) noexcept { return _mm256_unpackhi_epi16(a, b); }
ARMLOWER_X86_AVX2 inline __m256i rp_lo32(__m256i a, __m256i b) noexcept { return _mm256_unpacklo_epi32(a, b); }
ARMLOWER_X86_AVX2 inline __m256i rp_hi32(__m256i a, __m256i b) noexcept { return _mm256_unpackhi_epi32(a, b); }
ARMLOWER_X86_AVX2 inline __m256i rp_lo64(__m256i a, __m256i b) noexcept { return _mm256_unpacklo_epi64(a, b); }
ARMLOWER_X86_AVX2 inline __m256i rp_hi64(__m256i a, __m256i b) noexcept { return _mm256_unpackhi_epi64(a, b); }

/// 8×8 transpose of 16-bit elements within each 128-bit lane: r[i] holds channel i's column pairs
/// 0..7 (per lane); on return r[p] holds pair p of channels 0..7 (per lane) — one `avx2_pairs` unit.
template <class V>
ARMLOWER_X86_AVX2 inline void rowpairs_transpose8(V* r) noexcept {
  const V t0 = rp_lo16(r[0], r[1]), t1 = rp_hi16(r[0], r[1]), t2 = rp_lo16(r[2], r[3]), t3 = rp_hi16(r[2], r[3]);
  const V t4 = rp_lo16(r[4], r[5]), t5 = rp_hi16(r[4], r[5]), t6 = rp_lo16(r[6], r[7]), t7 = rp_hi16(r[6], r[7]);
  const V u0 = rp_lo32(t0, t2), u1 = rp_hi32(t0, t2), u2 = rp_lo32(t1, t3), u3 = rp_hi32(t1, t3);
  const V u4 = rp_lo32(t4, t6), u5 = rp_hi32(t4, t6), u6 = rp_lo32(t5, t7), u7 = rp_hi32(t5, t7);
  r[0] = rp_lo64(u0, u4);
  r[1] = rp_hi64(u0, u4);
  r[2] = rp_lo64(u1, u5);
  r[3] = rp_hi64(u1, u5);
  r[4] = rp_lo64(u2, u6);
  r[5] = rp_hi64(u2, u6);
  r[6] = rp_lo64(u3, u7);
  r[7] = rp_hi64(u3, u7);
}

/// Writes the weights of channels w[i] (i < nr ≤ 8; w[i] = row i, stride cols), columns [0, n), into t
/// as `avx2_pairs` units (per column pair the 8 channels' two bytes, 16 bytes; channels ≥ nr and
/// columns ≥ n zero), (n + 15)/16·8 units, in the `rowpairs` order: each full 32-column chunk (at a
/// multiple of 32) as pairs 0, 8, 1, 9, …, 7, 15 of the chunk (the two 128-bit lanes of one 8×8
/// transpose stored as one 32-byte unit, no lane crossing), the rest in column order. The widened input
/// (`rowpairs_widen_x_avx2`) uses the same order.
/// `Full`: nr == 8 (no zero channels to insert).
template <bool Full>
ARMLOWER_X86_AVX2 inline void rowpairs_pack_avx2(const std::int8_t* w, std::ptrdiff_t cols, int nr, std::ptrdiff_t n,
                                                 std::int8_t* t) noexcept {
  std::ptrdiff_t j = 0;
  for (; j + 32 <= n; j += 32) {  // 16 pairs: two 8×8 transposes (one per 128-bit lane)
    __m256i r[8];
    for (int i = 0; i < 8; ++i) {
      r[i] = Full || i < nr ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + i * cols + j))
                            : _mm256_setzero_si256();
    }
    rowpairs_transpose8(r);
    for (int p = 0; p < 8; ++p) _mm256_storeu_si256(reinterpret_cast<__m256i*>(t + j * 8 + std::ptrdiff_t{32} * p), r[p]);
  }
  for (; j < n; j += 16) {  // < 32 columns left: 16-column chunks in column order, the last zero-padded
    __m128i r[8];
    if (j + 16 <= n) {
      for (int i = 0; i < 8; ++i) {
        r[i] = i < nr ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + i * cols + j)) : _mm_setzero_si128();
      }
    } else {
      alignas(16) std::int8_t z[8][16] = {};
      for (int i = 0; i < nr; ++i) {
        for (std::ptrdiff_t c = 0; c < n - j; ++c) z[i][c] = w[i * cols + j + c];
      }
      for (int i = 0; i < 8; ++i) r[i] = _mm_load_si128(reinterpret_cast<const __m128i*>(z[i]));
    }
    rowpairs_transpose8(r);
    for (int p = 0; p < 8; ++p) _mm_storeu_si128(reinterpret_cast<__m128i*>(t + j * 8 + std::ptrdiff_t{16} * p), r[p]);
  }
}

/// `pairs_widen_x_avx2` in the `rowpairs` order of `rowpairs_pack_avx2`: (x[m][k0 + j] + xoff) for
/// j < n as int16, each full 32-column chunk's column pairs in the order 0, 8, 1, 9, …, 7, 15, the rest in
/// column order, zeros up to the next multiple of 16; row m of `xb` at stride avx2_pairs_kb<MB>.
template <int MB>
ARMLOWER_X86_AVX2 inline void rowpairs_widen_x_avx2(const std::int8_t* x, std::ptrdiff_t cols, std::ptrdiff_t k0,
                                                    std::ptrdiff_t n, std::int16_t xoff, std::int16_t* xb) noexcept {
  pairs_widen_x_avx2<MB>(x, cols, k0, n, xoff, xb);
  for (int m = 0; m < MB; ++m) {
    std::int16_t* d = xb + m * avx2_pairs_kb<MB>;
    for (std::ptrdiff_t j = 0; j + 32 <= n; j += 32) {
      const __m256i v0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(d + j));       // pairs 0..7
      const __m256i v1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(d + j + 16));  // pairs 8..15
      const __m256i lo = _mm256_unpacklo_epi32(v0, v1), hi = _mm256_unpackhi_epi32(v0, v1);
      _mm256_store_si256(reinterpret_cast<__m256i*>(d + j), _mm256_permute2x128_si256(lo, hi, 0x20));
      _mm256_store_si256(reinterpret_cast<__m256i*>(d + j + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
  }
}

/// Batch rows b0 .. b0+MB−1 over the row-major weights w (row r at w + r·cols): for each pass of
/// `avx2_pairs_sg` groups of 8 channels, the int64 sums part[g][m][0..8) = Σ_k (x[m][k] + xoff)·w[r0+i][k]
/// (repacked per group and K tile, `pairs_block_avx2`), then `epi(r0, part_g, xsum)` for each group
/// (r0 its first channel, part_g its MB × 8 sums, xsum[m] = Σ_k (x[m][k] + xoff) when the filter offset
/// is non-zero, else 0). P32 (an epilogue that takes int32 sums too): a call of one K tile (K ≤ `rowpairs_kt`) hands
/// it the tile's int32 sums as they are (exact: < 2^26), without the int64 round trip — measured on Zen 5 as AVX2,
/// batch 8 (`BM_s8_armlower_avx2`, three alternated rounds): 64² 57–58 → 61–63 GMAC/s (XNNPACK AVX2 58–60), 256²
/// 80–83 → 82–85, larger K unchanged.
template <int MB, bool P32 = false, class Epilogue>
ARMLOWER_X86_AVX2 inline void rowpairs_rows_avx2(const linear_s8_args& a, const std::int8_t* w, std::int32_t b0,
                                                 std::int16_t xoff, Epilogue&& epi) noexcept {
  constexpr int G = pairs_groups_avx2<MB>;
  constexpr std::ptrdiff_t KB = avx2_pairs_kb<MB>, KT = rowpairs_kt<MB>;
  static_assert(KT % 32 == 0);  // tiles start on a 32-column chunk of the K block (the `rowpairs` order)
  constexpr std::ptrdiff_t gp = std::ptrdiff_t{MB} * 8;  // part elements per group
  const std::ptrdiff_t cols = a.cols;
  const std::ptrdiff_t groups = (a.rows + 7) / 8;
  const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b0) * cols;
  std::int64_t xsum[MB];
  pairs_xsum<MB>(a, x, xoff, xsum);
  alignas(32) std::int16_t xb[MB * KB];
  alignas(32) std::int64_t part[avx2_pairs_sg * gp];
  alignas(32) std::int32_t part32[P32 ? avx2_pairs_sg * gp : 1];
  alignas(32) std::int8_t tile[G * KT * 8];
  const bool one_block = cols <= KB;  // then the input is widened once for all passes
  const bool one_tile = P32 && cols <= KT;  // then the int32 sums go straight to the epilogue
  if (one_block) rowpairs_widen_x_avx2<MB>(x, cols, 0, cols, xoff, xb);
  for (std::ptrdiff_t g0 = 0; g0 < groups; g0 += avx2_pairs_sg) {
    const std::ptrdiff_t gn = groups - g0 < avx2_pairs_sg ? groups - g0 : avx2_pairs_sg;
    for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += KB) {
      const std::ptrdiff_t n = cols - k0 < KB ? cols - k0 : KB;
      if (!one_block) rowpairs_widen_x_avx2<MB>(x, cols, k0, n, xoff, xb);
      for (std::ptrdiff_t g = 0; g < gn;) {
        const int gg = g + G <= gn ? G : 1;  // groups of this call
        for (std::ptrdiff_t kt = 0; kt < n; kt += KT) {
          const std::ptrdiff_t nt = n - kt < KT ? n - kt : KT;
          for (int q = 0; q < gg; ++q) {
            const std::ptrdiff_t r0 = (g0 + g + q) * 8;
            const int nr = a.rows - r0 < 8 ? static_cast<int>(a.rows - r0) : 8;
            if (nr == 8) {
              rowpairs_pack_avx2<true>(w + r0 * cols + k0 + kt, cols, nr, nt, tile + q * KT * 8);
            } else {
              rowpairs_pack_avx2<false>(w + r0 * cols + k0 + kt, cols, nr, nt, tile + q * KT * 8);
            }
          }
          const std::ptrdiff_t np = (nt + 15) / 16 * 8;
          const bool first = k0 == 0 && kt == 0;
          std::int32_t* p32 = one_tile ? part32 + g * gp : nullptr;
          if (gg == G) {
            pairs_block_avx2<MB, G>(xb + kt, tile, KT * 8, np, part + g * gp, gp, first, p32);
          } else {
            pairs_block_avx2<MB, 1>(xb + kt, tile, KT * 8, np, part + g * gp, gp, first, p32);
          }
        }
        g += gg;
      }
    }
    for (std::ptrdiff_t g = 0; g < gn; ++g) {
      if constexpr (P32) {
        if (one_tile) {
          epi(static_cast<std::int32_t>((g0 + g) * 8), part32 + g * gp, xsum);
          continue;
        }
      }
      epi(static_cast<std::int32_t>((g0 + g) * 8), part + g * gp, xsum);
    }
  }
}

/// AVX2 s8 fused linear over row-major weights (`a.weights`), repacked on the fly into stack tiles for
/// the column-pair kernel; batch rows in blocks of 8, then one block of the remainder (1..7).
/// Same integers as `linear_s8_avx2`. Preconditions: `validate(a) == ok`, CPU has AVX2.
ARMLOWER_X86_AVX2 inline void linear_s8_rowpairs_avx2(const linear_s8_args& args) noexcept {
  const linear_s8_args a = args;  // local copy: int8 output stores cannot alias it
  const auto xoff = static_cast<std::int16_t>(a.kernel_sum != nullptr ? 0 : a.input_offset);
  const requant_s8_avx2_consts rc = make_requant_s8_avx2(a);
  // the int32-lane requantization (the row constants are scanned only where the shifts allow it)
  const bool fast = pairs_fast_requant_ok(a, xoff, 0) && pairs_fast_requant_ok(a, xoff, pairs_row_constant_max(a));
  const pairs_fast_consts k = pairs_tensor_consts(a, rc.dbl, fast);
  pairs_batch_blocks(a.batches, [&](auto mb, std::int32_t b0) {
    constexpr int MB = decltype(mb)::value;
    rowpairs_rows_avx2<MB, true>(a, a.weights, b0, xoff, [&](std::int32_t r0, const auto* part, const std::int64_t* xsum) {
      requant_group_any_s8_avx2<MB>(a, rc, fast, k, r0, part, xsum, b0);
    });
  });
}

/// The raw int32 accumulators + bias of an int8 1×1 CONV2D seen as a linear (`conv2d_1x1_linear`: rows =
/// oc, cols = ic, input_offset = −input_zp, filter_offset = −weight_zp; `a.weights` unused) over the
/// row-major weights w [oc][ic], into o (`pairs_acc32_group8_avx2`: acc = Σ (x + input_offset)·(w +
/// filter_offset) exact, the REQUIREs reported in o.range_error). Preconditions: a.kernel_sum null, CPU
/// has AVX2.
ARMLOWER_X86_AVX2 inline void conv_s8_acc32_rowpairs_avx2(const linear_s8_args& args, const std::int8_t* w,
                                                         vnni_acc32_out& o) noexcept {
  const linear_s8_args a = args;
  const auto xoff = static_cast<std::int16_t>(a.input_offset);
  pairs_batch_blocks(a.batches, [&](auto mb, std::int32_t b0) {
    constexpr int MB = decltype(mb)::value;
    rowpairs_rows_avx2<MB>(a, w, b0, xoff, [&](std::int32_t r0, const std::int64_t* part, const std::int64_t* xsum) {
      pairs_acc32_group8_avx2<MB>(a, o, nullptr, r0, a.rows - r0 < 8 ? a.rows - r0 : 8, part, xsum, b0);
    });
  });
}

/// True if the repack form (`linear_s8_rowpairs_avx2`, `conv_s8_acc32_rowpairs_avx2`) is the faster
/// AVX2 form without a weight buffer for `batches` input rows × `rows` output channels × `cols` (else
/// the row-major dot-rows kernels `linear_s8_avx2` / `dot_rows_s8`). Measured (Zen 4 restricted to AVX2,
/// `bench_kernels_linear`, BM_s8_armlower_avx2_rowpairs ÷ BM_s8_armlower_avx2_dotrows, medians of 5):
/// - batch 1: 1.93 / 1.22 at 64² / 256², 0.71 / 0.60 / 0.57 at 1024² / 2048² / 4096², 0.70 / 0.63 at
///   1024×16 / 1024×8 → only for K ≤ 256;
/// - batch 2: 2.36 / 1.68 at 64² / 256², 1.02 / 0.98 at 1024² / 4096², 0.96 / 0.86 at 1024×16 / 1024×8 → K ≤ 256
///   (batch 3 not measured: taken as batch 2);
/// - batch 4: 2.90 / 2.04 / 1.39 / 1.17 at 64² / 256² / 1024² / 4096²; batch 8: 3.27 / 2.40 / 1.54 / 1.42 / 1.26
///   at 64² / 256² / 1024² / 2048² / 4096², 1.26 / 1.08 at 1024×16 / 1024×8, 0.53 at 4000×4 → every K for
///   ≥ 16 channels from batch 4, ≥ 8 channels from batch 8 (batches 4–7 at 8–15 channels not measured).
[[nodiscard]] constexpr bool rowpairs_pays(std::int32_t batches, std::int32_t rows, std::int32_t cols) noexcept {
  if (batches >= 8) return rows >= 8;
  if (batches >= 4) return rows >= 16;
  return rows >= 16 && cols <= 256;
}

#undef ARMLOWER_X86_AVX2

}  // namespace armlower::kernels::detail
