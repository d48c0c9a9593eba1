/// @file armlower/kernels/arch/x86/linear_avx2_rowdot.hpp
/// AVX2 s8 and a16w8 fused linear over ROW-MAJOR weights, 8 output channels per pass: what `linear_s8(a)`
/// and `linear_s16(a)` (no weight buffer) run on an AVX2-only CPU for one or a few batch rows
/// (`rowdot_pays`, `rowdot_s16_pays`) and ≥ 8 output channels. Contract: `kernels/linear_args.hpp` (same
/// integers as `linear_s8_avx2` / `linear_s16_avx2`, the generic path and the packed kernels).
/// The a16w8 form (`linear_s16_rowdot_avx2`) takes the int16 input as it is (copied into the zero-padded
/// buffer), sums 496-column passes in int64 and requantizes with `store8_s16_avx2`; what follows describes
/// the s8 form.
///
/// Form ("row lanes, shared input"): the input row, offset and widened to int16 once per call and K block
/// into a stack buffer (`pairs_widen_x_avx2`, zero past K), is loaded once per 16 columns and multiplied
/// (`vpmaddwd`, Intel Intrinsics Guide `_mm256_madd_epi16`) with the 16 sign-extended weights of each of
/// 8 rows (`vpmovsxbw`), into 8 int32 accumulators; a `vphaddd` tree and one 128-bit lane exchange give
/// the 8 channel sums in channel order, requantized 8 channels at a time like the column-pair kernels: in
/// int32 lanes where `pairs_fast_requant_ok` — for a call of one K block in registers, one group behind the dot
/// products (`rowdot8_groups_fast_s8_avx2`) —, else by `requant_group_any_s8_avx2`. No repack, no heap.
/// Channels past the last multiple of 8 run `linear_s8_rows_avx2` (4 or 1 at a time).
///
/// Reads: every 16-byte weight load lies inside the weights array; a last partial 16-column chunk reads
/// past its row into the rows after it (its products meet zero inputs), except where fewer bytes follow
/// the group's last row than the chunk needs (the array's last rows), whose chunks are copied to a
/// zero-padded stack tile first.
///
/// Exactness: |x + xoff| ≤ 128 + 255 = 383 (the kernel_sum form uses xoff = 0) and |w| ≤ 128; a channel
/// sum over one K block (≤ `avx2_pairs_kb<1>` = 8192 columns) is ≤ 8192·383·128 < 2^29, so the int32 lanes,
/// the `vphaddd` tree and the block sum are exact; blocks are added in int64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include <armlower/kernels/arch/x86/linear.hpp>
#include <armlower/kernels/arch/x86/linear_avx2_pairs.hpp>
#include <armlower/kernels/arch/x86/linear_avx2_rowpairs.hpp>
#include <armlower/kernels/arch/x86/linear_s16_avx2_pairs.hpp>
#include <armlower/kernels/arch/x86/requant_s16_avx2.hpp>
#include <armlower/kernels/linear_args.hpp>

namespace armlower::kernels::detail {

#define ARMLOWER_X86_AVX2 __attribute__((target("avx2")))

/// Σ_{c < 16·nc} xb[c]·w_i[c] for the 8 rows w_i = w0 + i·wstride, as 8 int32 lanes in channel order;
/// `xb` 32-byte aligned int16. Preconditions: the 16 bytes at w_i + 16·j are readable for j < nc; every
/// lane and partial sum fits int32: nc ≤ 512 for |xb| ≤ 383 (s8 inputs with their offset), nc ≤ 31 for
/// int16 inputs (|x·w| ≤ 2^22: 8 lanes × 31 chunks × 2 products < 2^31).
[[gnu::always_inline]] ARMLOWER_X86_AVX2 inline __m256i rowdot8_sum_avx2(const std::int16_t* xb, const std::int8_t* w0,
                                                                       std::ptrdiff_t wstride, std::ptrdiff_t nc) noexcept {
  const std::int8_t* p0 = w0;
  const std::int8_t* p1 = w0 + wstride;
  const std::int8_t* p2 = w0 + 2 * wstride;
  const std::int8_t* p3 = w0 + 3 * wstride;
  const std::int8_t* p4 = w0 + 4 * wstride;
  const std::int8_t* p5 = w0 + 5 * wstride;
  const std::int8_t* p6 = w0 + 6 * wstride;
  const std::int8_t* p7 = w0 + 7 * wstride;
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
#define ARMLOWER_WV(p) _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>((p) + k)))
#define ARMLOWER_MAC(A, p) (A) = _mm256_add_epi32((A), _mm256_madd_epi16(ARMLOWER_WV(p), x))
  const std::ptrdiff_t n = 16 * nc;
  for (std::ptrdiff_t k = 0; k < n; k += 16) {
    const __m256i x = _mm256_load_si256(reinterpret_cast<const __m256i*>(xb + k));
    ARMLOWER_MAC(a0, p0);
    ARMLOWER_MAC(a1, p1);
    ARMLOWER_MAC(a2, p2);
    ARMLOWER_MAC(a3, p3);
    ARMLOWER_MAC(a4, p4);
    ARMLOWER_MAC(a5, p5);
    ARMLOWER_MAC(a6, p6);
    ARMLOWER_MAC(a7, p7);
  }
#undef ARMLOWER_MAC
#undef ARMLOWER_WV
  // pins the accumulators in registers at the loop exit (as `pairs_block_avx2`: else GCC 12 may keep them
  // on the stack inside the loop)
  asm("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7));
  // per 128-bit lane (r0, r1, r2, r3) and (r4, r5, r6, r7), then the two lanes added
  const __m256i h0 = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
  const __m256i h1 = _mm256_hadd_epi32(_mm256_hadd_epi32(a4, a5), _mm256_hadd_epi32(a6, a7));
  return _mm256_add_epi32(_mm256_permute2x128_si256(h0, h1, 0x20), _mm256_permute2x128_si256(h0, h1, 0x31));
}

/// out[0..8) = `rowdot8_sum_avx2(xb, w0, wstride, nc)` (same preconditions), out-of-line.
[[gnu::noinline]] ARMLOWER_X86_AVX2 inline void rowdot8_block_avx2(const std::int16_t* xb, const std::int8_t* w0,
                                                                  std::ptrdiff_t wstride, std::ptrdiff_t nc,
                                                                  std::int32_t* out) noexcept {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), rowdot8_sum_avx2(xb, w0, wstride, nc));
}

/// `rowdot8_block_avx2` over columns [0, n) of the 8 rows from w0 (stride `wstride`), n ≤ `avx2_pairs_kb<1>`,
/// `xb` holding those columns' inputs zero-padded to a multiple of 16. `tile`: fewer readable bytes follow
/// the 8th row than the partial final chunk (n not a multiple of 16) overruns it by, so that chunk goes
/// through a zero-padded stack tile.
ARMLOWER_X86_AVX2 inline void rowdot8_avx2(const std::int16_t* xb, const std::int8_t* w0, std::ptrdiff_t wstride,
                                           std::ptrdiff_t n, bool tile, std::int32_t* out) noexcept {
  const std::ptrdiff_t nc = (n + 15) / 16;
  if (!tile || n % 16 == 0) {
    rowdot8_block_avx2(xb, w0, wstride, nc, out);
    return;
  }
  const std::ptrdiff_t k = 16 * (nc - 1);
  alignas(32) std::int32_t head[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (nc > 1) rowdot8_block_avx2(xb, w0, wstride, nc - 1, head);
  alignas(16) std::int8_t t[8][16] = {};
  for (int i = 0; i < 8; ++i) std::memcpy(t[i], w0 + i * wstride + k, static_cast<std::size_t>(n - k));
  alignas(32) std::int32_t tail[8];
  rowdot8_block_avx2(xb + k, &t[0][0], 16, 1, tail);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm256_add_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(head)),
                                       _mm256_load_si256(reinterpret_cast<const __m256i*>(tail))));
}

/// The `tile` argument of `rowdot8_avx2` for channel group g (rows 8g .. 8g+7) of a `rows` × `cols` row-major
/// weight array: its partial last 16-column chunk overruns the 8th row by (−cols mod 16) bytes, and fewer than
/// that follow it in the array.
[[nodiscard]] constexpr bool rowdot8_needs_tile(std::ptrdiff_t rows, std::ptrdiff_t cols, std::ptrdiff_t g) noexcept {
  return (rows - 8 * g - 8) * cols < (16 - cols % 16) % 16;
}

/// part[0..8) += s[0..8) (int64 += int32; `part` 32-byte aligned).
ARMLOWER_X86_AVX2 inline void rowdot8_add64(std::int64_t* part, const std::int32_t* s) noexcept {
  auto* p = reinterpret_cast<__m256i*>(part);
  _mm256_store_si256(p, _mm256_add_epi64(_mm256_load_si256(p), _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)))));
  _mm256_store_si256(p + 1, _mm256_add_epi64(_mm256_load_si256(p + 1),
                                             _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 4)))));
}

/// `rowdot8_avx2(xb, w0, cols, cols, true, ·)` as 8 int32 lanes, out of line (only the array's last groups need it).
[[gnu::noinline]] ARMLOWER_X86_AVX2 inline __m256i rowdot8_tile_sum_avx2(const std::int16_t* xb, const std::int8_t* w0,
                                                                        std::ptrdiff_t cols) noexcept {
  alignas(32) std::int32_t s[8];
  rowdot8_avx2(xb, w0, cols, cols, true, s);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(s));
}

/// The 8 sums of channel group g (rows 8g .. 8g+7) over all `cols` columns of a one-K-block call: `rowdot8_sum_avx2`,
/// or through the zero-padded tile (`rowdot8_avx2`) where `rowdot8_needs_tile`.
[[gnu::always_inline]] ARMLOWER_X86_AVX2 inline __m256i rowdot8_group_sum_avx2(const std::int16_t* xb, const std::int8_t* weights,
                                                                             std::ptrdiff_t rows, std::ptrdiff_t cols,
                                                                             std::ptrdiff_t g) noexcept {
  const std::int8_t* w = weights + g * 8 * cols;
  if (!rowdot8_needs_tile(rows, cols, g)) [[likely]]
    return rowdot8_sum_avx2(xb, w, cols, (cols + 15) / 16);
  return rowdot8_tile_sum_avx2(xb, w, cols);
}

/// Output channels 0 .. 8·(rows / 8) − 1 of batch row b for a call of one K block (cols ≤ `avx2_pairs_kb<1>`) with
/// `pairs_fast_requant_ok`: each group's 8 sums (`rowdot8_group_sum_avx2`, `xb` the widened input row) + row constant
/// + filter_offset·xsum requantized in registers (`requant8_fast_s8_avx2`; `kt`: `pairs_tensor_consts`, per-channel
/// constants built per group), one group behind the dot products, so that a group's requantization overlaps the
/// next group's loads and widening rather than following them (at 1 × 64²: 1.1× the stored-sums order, measured;
/// benchmarks/RESULTS.md "AVX2 class: requantization in registers…").
ARMLOWER_X86_AVX2 inline void rowdot8_groups_fast_s8_avx2(const linear_s8_args& a, bool dbl, const pairs_fast_consts& kt,
                                                         const std::int16_t* xb, std::int64_t xsum, std::int32_t b) noexcept {
  const std::ptrdiff_t rows = a.rows, cols = a.cols, groups = rows / 8;
  const std::int8_t* weights = a.weights;
  std::int8_t* y = a.output + b * rows;
  const pairs_fast_out o = make_pairs_fast_out(a);
  const __m256i fx = _mm256_set1_epi32(static_cast<std::int32_t>(a.filter_offset * xsum));
  const pairs_fast_consts k = kt;  // a local copy: the int8 output stores cannot alias it
  __m256i prev = rowdot8_group_sum_avx2(xb, weights, rows, cols, 0);
  for (std::ptrdiff_t g = 1; g <= groups; ++g) {
    const __m256i next = g < groups ? rowdot8_group_sum_avx2(xb, weights, rows, cols, g) : prev;
    store8_fast_group_s8_avx2(a, k, o, dbl, fx, prev, static_cast<std::int32_t>(8 * (g - 1)), y);
    prev = next;
  }
}

/// AVX2 s8 fused linear over row-major weights, batch rows one at a time, 8 output channels per pass
/// (`rowdot8_avx2`), the channels past the last multiple of 8 (and layers of < 8 channels) by
/// `linear_s8_avx2`'s row kernels. Same integers as `linear_s8_avx2`. Preconditions: `validate(a) == ok`,
/// CPU has AVX2.
ARMLOWER_X86_AVX2 inline void linear_s8_rowdot_avx2(const linear_s8_args& args) noexcept {
  if (args.rows < 8) {  // no group of 8: the dot-rows kernel without this one's set-up
    linear_s8_avx2(args);
    return;
  }
  const linear_s8_args a = args;  // local copy: int8 output stores cannot alias it
  const auto xoff = static_cast<std::int16_t>(a.kernel_sum != nullptr ? 0 : a.input_offset);
  const requant_s8_avx2_consts rc = make_requant_s8_avx2(a);
  // the int32-lane requantization (the row constants are scanned only where the shifts allow it)
  const bool fast = pairs_fast_requant_ok(a, xoff, 0) && pairs_fast_requant_ok(a, xoff, pairs_row_constant_max(a));
  const pairs_fast_consts kc = pairs_tensor_consts(a, rc.dbl, fast);
  constexpr std::ptrdiff_t kb = avx2_pairs_kb<1>;
  const std::ptrdiff_t cols = a.cols, groups = a.rows / 8;
  alignas(32) std::int16_t xb[kb];
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int64_t xsum[1];
    pairs_xsum<1>(a, x, xoff, xsum);
    if (cols <= kb) {  // one K block: the int32 sums straight into the requantization
      pairs_widen_x_avx2<1>(x, cols, 0, cols, xoff, xb);
      if (fast) {
        rowdot8_groups_fast_s8_avx2(a, rc.dbl, kc, xb, xsum[0], b);
        continue;
      }
      for (std::ptrdiff_t g = 0; g < groups; ++g) {
        alignas(32) std::int32_t s[8];
        rowdot8_avx2(xb, a.weights + g * 8 * cols, cols, cols, rowdot8_needs_tile(a.rows, cols, g), s);
        requant_group_any_s8_avx2<1>(a, rc, false, kc, static_cast<std::int32_t>(g * 8), s, xsum, b);
      }
      continue;
    }
    for (std::ptrdiff_t g0 = 0; g0 < groups; g0 += avx2_pairs_sg) {  // K blocks: int64 sums per pass of groups
      const std::ptrdiff_t gn = groups - g0 < avx2_pairs_sg ? groups - g0 : avx2_pairs_sg;
      alignas(32) std::int64_t part[avx2_pairs_sg][8] = {};
      for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += kb) {
        const std::ptrdiff_t n = cols - k0 < kb ? cols - k0 : kb;
        pairs_widen_x_avx2<1>(x, cols, k0, n, xoff, xb);
        for (std::ptrdiff_t g = 0; g < gn; ++g) {
          alignas(32) std::int32_t s[8];
          rowdot8_avx2(xb, a.weights + (g0 + g) * 8 * cols + k0, cols, n, rowdot8_needs_tile(a.rows, cols, g0 + g), s);
          rowdot8_add64(part[g], s);
        }
      }
      for (std::ptrdiff_t g = 0; g < gn; ++g)
        requant_group_any_s8_avx2<1>(a, rc, fast, kc, static_cast<std::int32_t>((g0 + g) * 8), part[g], xsum, b);
    }
  }
  auto r0 = static_cast<std::int32_t>(groups * 8);
  for (; r0 + 4 <= a.rows; r0 += 4) linear_s8_rows_avx2<4>(a, rc, r0, xoff);
  for (; r0 < a.rows; ++r0) linear_s8_rows_avx2<1>(a, rc, r0, xoff);
}

/// AVX2 a16w8 fused linear (s16 × s8 → s16, int64 bias; CMSIS-NN `arm_fully_connected_s16`) over row-major
/// weights, batch rows one at a time, 8 output channels per pass: the input row copied into a zero-padded
/// stack buffer once per call and K block (`pairs_copy_x16_avx2`), `rowdot8_avx2` over 496-column passes
/// (exact in int32, see `rowdot8_block_avx2`) summed in int64 — the contract's exact accumulator for any
/// K —, requantized 8 channels at a time (`store8_s16_avx2`: vector form where |acc|, |acc + bias| < 2^46,
/// else `requantize_row_s16`); channels past the last multiple of 8 (and layers of < 8 channels) by
/// `linear_s16_avx2`. Same integers as `linear_s16_avx2`. Preconditions: `validate(a) == ok`, CPU has AVX2.
ARMLOWER_X86_AVX2 inline void linear_s16_rowdot_avx2(const linear_s16_args& args) noexcept {
  if (args.rows < 8) {  // no group of 8
    linear_s16_avx2(args);
    return;
  }
  const linear_s16_args a = args;  // local copy: the int16 output stores cannot alias it
  const std::ptrdiff_t cols = a.cols, groups = a.rows / 8;
  constexpr std::ptrdiff_t kb = avx2_pairs_kb<1>, pass = 496;  // pass: 31 chunks of 16 columns
  alignas(32) std::int16_t xb[kb];
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int16_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows;
    const bool one_block = cols <= kb;
    if (one_block) pairs_copy_x16_avx2<1>(x, cols, 0, cols, xb);
    for (std::ptrdiff_t g0 = 0; g0 < groups; g0 += avx2_pairs_sg) {
      const std::ptrdiff_t gn = groups - g0 < avx2_pairs_sg ? groups - g0 : avx2_pairs_sg;
      alignas(32) std::int64_t part[avx2_pairs_sg][8] = {};
      for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += kb) {
        const std::ptrdiff_t n = cols - k0 < kb ? cols - k0 : kb;
        if (!one_block) pairs_copy_x16_avx2<1>(x, cols, k0, n, xb);
        for (std::ptrdiff_t g = 0; g < gn; ++g) {
          const std::int8_t* w = a.weights + (g0 + g) * 8 * cols + k0;
          const bool tile = rowdot8_needs_tile(a.rows, cols, g0 + g);
          for (std::ptrdiff_t p0 = 0; p0 < n; p0 += pass) {
            alignas(32) std::int32_t s[8];
            rowdot8_avx2(xb + p0, w + p0, cols, n - p0 < pass ? n - p0 : pass, tile, s);
            rowdot8_add64(part[g], s);
          }
        }
      }
      for (std::ptrdiff_t g = 0; g < gn; ++g) {
        const auto r0 = static_cast<std::int32_t>((g0 + g) * 8);
        store8_s16_avx2(a, part[g], r0, 8, y + r0);
      }
    }
  }
  linear_s16_avx2(a, static_cast<std::int32_t>(groups * 8));
}

/// True if `linear_s8_rowdot_avx2` is the faster AVX2 form without a weight buffer for `batches` input
/// rows × `rows` output channels × `cols` (else the repack form `linear_s8_rowpairs_avx2`): one to three
/// batch rows, and wherever `rowpairs_pays` is false. Measured (Zen 5 restricted to AVX2, `bench_kernels_linear`
/// BM_s8_armlower_avx2_rowdot / _rowpairs / _dotrows, GMAC/s, medians of 3; benchmarks/RESULTS.md "AVX2 class:
/// a row-major 8-channel kernel without a buffer"): batch 1 at 64² / 256² / 1024² / 2048² / 4096² 39.5 / 65.2 /
/// 70.9 / 64.5 / 69.3 against the repack form's 28.3 / 38.5 / 39.2 / 34.3 / 27.1 and the 4-row dot kernel's
/// 11.7 / 33.1 / 52.1 / 55.3 / 49.5; batch 2: 41.9 / 65.3 / 69.5 / 67.6 at 64² / 256² / 1024² / 4096² against
/// 41.5 / 56.8 / 55.5 / 43.3; batch 4: 42.6 / 65.5 / 70.6 / 55.8 against 52.4 / 73.7 / 77.7 / 67.2 (the repack
/// form from batch 4, as `rowpairs_pays`); 1024 × 8 at batch 8: 64.9 against the repack form's 66.4 (kept
/// there; the 4-row dot kernel 55.0).
/// Batch 3 not measured: taken as batch 2.
[[nodiscard]] constexpr bool rowdot_pays(std::int32_t batches, std::int32_t rows, std::int32_t cols) noexcept {
  return batches < 4 || !rowpairs_pays(batches, rows, cols);
}

/// True if `linear_s16_rowdot_avx2` is the faster AVX2 a16w8 form without a weight buffer for `batches` input rows
/// × `rows` × `cols` (else the 4-row kernel `linear_s16_avx2`, which keeps 4 rows of weights in L1 across the
/// batch rows while this form re-reads all of them per batch row): 1–3 batch rows, or weights ≤ 1 MiB (in L2).
/// Measured (Zen 5 restricted to AVX2, `bench_kernels_linear` BM_s16_armlower_avx2 before / after, GMAC/s; both
/// forms in one standalone binary: 2.3× / 1.6× / 1.15× at 1 × 64² / 256² / 1024², 1.03× at 8 × 1024²; benchmarks/RESULTS.md "AVX2 class: a row-major
/// 8-channel kernel without a buffer"): batch 1 at 64² / 256² / 1024² / 2048² / 4096²: 28.0 / 54.1 / 63.5 / 60.1 /
/// 60.7 against 12.0 / 34.6 / 57.6 / 58.2 / 46.6; batch 8: 28.7 / 54.5 / 62.9 at 64² / 256² / 1024² against
/// 13.8 / 38.2 / 61.0, but 59.6 against 66.4 at 2048² (and 59.9 against 54.7 at 4096², DRAM-bound, one run: the
/// 4-row kernel kept there).
[[nodiscard]] constexpr bool rowdot_s16_pays(std::int32_t batches, std::int32_t rows, std::int32_t cols) noexcept {
  return batches < 4 || std::int64_t{rows} * cols <= (std::int64_t{1} << 20);
}

#undef ARMLOWER_X86_AVX2

}  // namespace armlower::kernels::detail
