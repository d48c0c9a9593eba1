/// @file armlower/kernels/arch/x86/linear_vnni_qlane.hpp
/// AVX-512 VNNI s8 fused linear over ROW-MAJOR weights with the BATCH in the lanes of 512-bit
/// accumulators (contract: `kernels/linear_args.hpp`): the form `linear_s8_rowdot_vnni`
/// (`linear_vnni_rowdot.hpp`) takes for groups of 8 batch rows in the bias form with input_offset = 128
/// (TFLite int8 input zero point −128), ≥ 16 weight rows and 512 ≤ K ≤ 65536 (`vnni_qlane_applies`). No
/// packed copy of the weights and no horizontal reduction tree.
///
/// Layout: for a group of 8 batch rows and a block of ≤ `vnni_qlane_kblock` columns, the inputs are
/// transposed into a fixed stack buffer `xt[p][m]` (8 bytes = columns 8p..8p+7 of batch row m, stored
/// as u = x ⊕ 0x80 = x + 128, unsigned), 64 bytes per column pair p. For a weight row r,
/// `vpdpbusd(acc_r, xt[p], broadcast64(w[r][8p..8p+7]))` accumulates in int32 lane 2m + h the
/// columns 8p + 4h .. 8p + 4h + 3 of batch row m; lane 2m + lane 2m + 1 is then
/// D[m][r] = Σ (x + 128)·w = Σ (x + input_offset)·w, so `acc = D + filter_offset·Σx + bias[r] +
/// K·128·filter_offset` (as the other forms with x unsigned); |D| ≤ 255·128·K < 2^31 for K ≤ 65536.
/// The 64-bit broadcast is a separate load (`vpbroadcastq` from memory; `vpdpbusd` can only broadcast
/// 32 bits), every `vpdpbusd` a register form on 16 lanes; a K tail of 1..7 columns is one extra pair whose weight bytes past K are
/// zero (x bytes past K are 0x80 in `xt`).
/// Tiles: 16 weight rows (16 zmm accumulators), run as 4 groups of 4 rows over the whole column block
/// (2 accumulators per row, even and odd pairs, for 8 independent chains), each row's 64-byte line used by
/// 8 `vpdpbusd` in a row, and the next tile's rows prefetched into L2 meanwhile. The last tile of a
/// layer is moved back to end at the last row (it overlaps the previous one; the rows of the overlap are
/// not stored twice). D of a block of
/// `vnni_qlane_rblock` rows is kept across column blocks in int32 partials on the stack, then
/// requantized like the 256-bit batch-lane form (`vnni_bcast_store`).
/// Stack: 8 KB (`xt`) + 8 KB (partials), host x86 only. Firmware-clean otherwise: noexcept, no heap,
/// no static data. Source of the semantics: CMSIS-NN `arm_fully_connected_s8` /
/// `arm_nn_vec_mat_mult_t_s8`, TFLite reference `FullyConnected` (int8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/arch/x86/linear_vnni_bcast.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>

namespace armlower::kernels::detail {

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIQ __attribute__((target("avx2")))
#else
#define ARMLOWER_X86_VNNIQ __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#endif

/// Columns per block of the transposed inputs (8 batch rows × 1024 bytes = 8 KB of stack).
inline constexpr std::int32_t vnni_qlane_kblock = 1024;
/// Weight rows whose int32 partials are kept across column blocks (256 rows × 8 batch rows × 4 bytes = 8 KB).
inline constexpr std::int32_t vnni_qlane_rblock = 256;
/// Weight rows per tile (zmm accumulators).
inline constexpr std::int32_t vnni_qlane_nr = 16;

/// Fewest columns for which this form is taken (K ≥ 512). Measured on Zen 4 at batch 8 against the
/// 256-bit batch-lane form (`linear_vnni_bcast.hpp`), GMAC/s, two runs of a harness calling both, median
/// of 7 (K×N: ymm / this): 256×256 158–159 / 130–153, 512×512 180–182 / 185, 1024×1024 187 / 198–204,
/// 1024×256 163–194 / 198–207, 1024×4096 181–187 / 198–202 (per-tile costs — accumulator set-up, pair
/// sums, partials — weigh on short rows).
inline constexpr std::int32_t vnni_qlane_min_cols = 512;

/// True if `linear_s8_rowdot_vnni(a, w, wstride, c, acc32)` runs this form for its first
/// ⌊batches/8⌋·8 batch rows: no folded constants, no kernel_sum, input_offset = 128, ≥ 8 batch rows
/// (the 256-bit form measured faster than rowdot only from 8, see `vnni_bcast_applies`), ≥ 16 weight
/// rows (the last tile overlaps the previous one), `vnni_qlane_min_cols` ≤ K ≤ 65536 (D exact in int32).
/// For K > 1024 it replaces the rowdot form: bench_kernels_linear `BM_s8_armlower_auto_nobuf`, batch 8,
/// two runs, GMAC/s: 2048² 165–178 → 203–206, 4096² 105–115 → 190–195.
[[nodiscard]] inline bool vnni_qlane_applies(const linear_s8_args& a, const std::int64_t* c) noexcept {
  return c == nullptr && a.kernel_sum == nullptr && a.input_offset == 128 && a.batches >= 8 &&
         a.rows >= vnni_qlane_nr && a.cols >= vnni_qlane_min_cols && a.cols <= vnni_s8_block;
}

/// xt[p][m] = columns [8p, 8p + 8) of batch row m (< nb; other rows 0 before the flip) ⊕ 0x80, for
/// the first n ≤ `vnni_qlane_kblock` columns (rounded up to 32; bytes past n are read as 0 and meet
/// zero weights). `x`: batch row 0 of the group at the block's first column, rows `cols` bytes apart.
ARMLOWER_X86_VNNIQ inline void vnni_qlane_transpose(const std::int8_t* x, std::ptrdiff_t cols, int nb,
                                                    std::ptrdiff_t n, std::int8_t* xt) noexcept {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  for (std::ptrdiff_t c = 0; c < n; c += 32) {
    __m256i r[8];
    for (int m = 0; m < 8; ++m) {
      if (m >= nb) {
        r[m] = _mm256_setzero_si256();
      } else if (c + 32 <= n) {
        r[m] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + m * cols + c));
      } else {  // last partial chunk: nothing past the row is read
        alignas(32) std::int8_t b[32] = {};
        std::memcpy(b, x + m * cols + c, static_cast<std::size_t>(n - c));
        r[m] = _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
      }
    }
    for (int h = 0; h < 2; ++h) {  // batch rows 4h..4h+3: the 32-byte half h of pairs c/8 .. c/8 + 3
      // per 128-bit lane: [row 4h q0, row 4h+1 q0 | … q2] and [… q1 | … q3] (q = 8-byte column group)
      const std::ptrdiff_t b = std::ptrdiff_t{4} * h;
      const __m256i t0 = _mm256_unpacklo_epi64(r[b], r[b + 1]);
      const __m256i t1 = _mm256_unpackhi_epi64(r[b], r[b + 1]);
      const __m256i t2 = _mm256_unpacklo_epi64(r[b + 2], r[b + 3]);
      const __m256i t3 = _mm256_unpackhi_epi64(r[b + 2], r[b + 3]);
      std::int8_t* o = xt + (c / 8) * 64 + std::ptrdiff_t{32} * h;
      _mm256_store_si256(reinterpret_cast<__m256i*>(o), _mm256_xor_si256(_mm256_permute2x128_si256(t0, t2, 0x20), flip));
      _mm256_store_si256(reinterpret_cast<__m256i*>(o + 64), _mm256_xor_si256(_mm256_permute2x128_si256(t1, t3, 0x20), flip));
      _mm256_store_si256(reinterpret_cast<__m256i*>(o + 128), _mm256_xor_si256(_mm256_permute2x128_si256(t0, t2, 0x31), flip));
      _mm256_store_si256(reinterpret_cast<__m256i*>(o + 192), _mm256_xor_si256(_mm256_permute2x128_si256(t1, t3, 0x31), flip));
    }
  }
}

/// acc[i] += Σ_p vpdpbusd(xt[p], broadcast64(w_i[8p..8p+7])) over `np` column pairs, 4 rows w_i = w + i·ws,
/// over the whole block (xt[p] is loaded once per pair and 4 rows): at most 4 weight lines are in use,
/// also across the out-of-order window — with 16 rows per pair (xt in registers), rows 4 KB apart, which
/// share an L1 set, evicted each other (4096 × 256, batch 8: 132–146 GMAC/s against 212). `pf`: 4 rows at
/// the same stride, prefetched into L2 one line each per 64 columns.
ARMLOWER_X86_VNNIQ inline void vnni_qlane_inner(const std::int8_t* xt, std::ptrdiff_t np, const std::int8_t* w,
                                                 std::ptrdiff_t ws, const std::int8_t* pf, __m512i* acc) noexcept {
#if !defined(ARMLOWER_X86_AVX512_SIMDE)
  if (np >= 8) {
    // accumulators: even pairs zmm16–19, odd pairs zmm20–23 (8 chains), summed at the end; xt in zmm0–7
    const std::ptrdiff_t s3 = 3 * ws;
    const std::int8_t* xp = xt;
    std::ptrdiff_t chunks = np / 8;
#define ARMLOWER_QR(P, IDX, D, X, T, A) \
  "vpbroadcastq " #D "(%[" #P "]" IDX "), %%" #T "\n\tvpdpbusd %%" #T ", %%" #X ", %%" #A "\n\t"
#define ARMLOWER_QR4(D, X, A0, A1, A2, A3)           \
  ARMLOWER_QR(p, "", D, X, zmm8, A0)                 \
  ARMLOWER_QR(p, ",%[s],1", D, X, zmm9, A1)          \
  ARMLOWER_QR(p, ",%[s],2", D, X, zmm10, A2)         \
  ARMLOWER_QR(p, ",%[s3],1", D, X, zmm11, A3)
#define ARMLOWER_QE(D, X) ARMLOWER_QR4(D, X, zmm16, zmm17, zmm18, zmm19)
#define ARMLOWER_QO(D, X) ARMLOWER_QR4(D, X, zmm20, zmm21, zmm22, zmm23)
    __asm__ volatile(
        "vmovdqu64 (%[acc]), %%zmm16\n\t"
        "vmovdqu64 64(%[acc]), %%zmm17\n\t"
        "vmovdqu64 128(%[acc]), %%zmm18\n\t"
        "vmovdqu64 192(%[acc]), %%zmm19\n\t"
        "vpxorq %%zmm20, %%zmm20, %%zmm20\n\t"
        "vpxorq %%zmm21, %%zmm21, %%zmm21\n\t"
        "vpxorq %%zmm22, %%zmm22, %%zmm22\n\t"
        "vpxorq %%zmm23, %%zmm23, %%zmm23\n\t"
        "1:\n\t"
        "prefetcht1 (%[pf])\n\t"
        "prefetcht1 (%[pf],%[s],1)\n\t"
        "prefetcht1 (%[pf],%[s],2)\n\t"
        "prefetcht1 (%[pf],%[s3],1)\n\t"
        "vmovdqa64 (%[xp]), %%zmm0\n\t"
        "vmovdqa64 64(%[xp]), %%zmm1\n\t"
        ARMLOWER_QE(0, zmm0) ARMLOWER_QO(8, zmm1)
        "vmovdqa64 128(%[xp]), %%zmm2\n\t"
        "vmovdqa64 192(%[xp]), %%zmm3\n\t"
        ARMLOWER_QE(16, zmm2) ARMLOWER_QO(24, zmm3)
        "vmovdqa64 256(%[xp]), %%zmm4\n\t"
        "vmovdqa64 320(%[xp]), %%zmm5\n\t"
        ARMLOWER_QE(32, zmm4) ARMLOWER_QO(40, zmm5)
        "vmovdqa64 384(%[xp]), %%zmm6\n\t"
        "vmovdqa64 448(%[xp]), %%zmm7\n\t"
        ARMLOWER_QE(48, zmm6) ARMLOWER_QO(56, zmm7)
        "addq $512, %[xp]\n\t"
        "addq $64, %[p]\n\t"
        "addq $64, %[pf]\n\t"
        "decq %[n]\n\t"
        "jnz 1b\n\t"
        "vpaddd %%zmm20, %%zmm16, %%zmm16\n\t"
        "vpaddd %%zmm21, %%zmm17, %%zmm17\n\t"
        "vpaddd %%zmm22, %%zmm18, %%zmm18\n\t"
        "vpaddd %%zmm23, %%zmm19, %%zmm19\n\t"
        "vmovdqu64 %%zmm16, (%[acc])\n\t"
        "vmovdqu64 %%zmm17, 64(%[acc])\n\t"
        "vmovdqu64 %%zmm18, 128(%[acc])\n\t"
        "vmovdqu64 %%zmm19, 192(%[acc])\n\t"
        : [p] "+r"(w), [pf] "+r"(pf), [xp] "+r"(xp), [n] "+r"(chunks)
        : [s] "r"(ws), [s3] "r"(s3), [acc] "r"(acc)
        : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
          "xmm10", "xmm11", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23");
#undef ARMLOWER_QO
#undef ARMLOWER_QE
#undef ARMLOWER_QR4
#undef ARMLOWER_QR
    xt += 64 * (np / 8 * 8);
    np %= 8;
  }
#endif
  (void)pf;
  for (std::ptrdiff_t p = 0; p < np; ++p) {
    const __m512i xv = _mm512_load_si512(xt + 64 * p);
    for (int i = 0; i < 4; ++i) {
      std::int64_t wq = 0;
      std::memcpy(&wq, w + i * ws + 8 * p, 8);
      acc[i] = _mm512_dpbusd_epi32(acc[i], xv, _mm512_set1_epi64(wq));
    }
  }
}

/// d[i] (lane m = D of row w + i·ws, batch row m) for the first n ≤ `vnni_qlane_kblock` columns of xt / w.
ARMLOWER_X86_VNNIQ inline void vnni_qlane_tile(const std::int8_t* xt, std::ptrdiff_t n, const std::int8_t* w,
                                               std::ptrdiff_t ws, const std::int8_t* pf, __m256i* d) noexcept {
  alignas(64) __m512i acc[vnni_qlane_nr];
  for (__m512i& v : acc) v = _mm512_setzero_si512();
  const std::ptrdiff_t np = n / 8;
  for (int g = 0; g < vnni_qlane_nr; g += 4) vnni_qlane_inner(xt, np, w + g * ws, ws, pf + g * ws, acc + g);
  if (n % 8 != 0) {  // the last 1..7 columns: zero weight bytes past K
    const __m512i xv = _mm512_load_si512(xt + 64 * np);
    for (int i = 0; i < vnni_qlane_nr; ++i) {
      std::int64_t wq = 0;
      std::memcpy(&wq, w + i * ws + 8 * np, static_cast<std::size_t>(n % 8));
      acc[i] = _mm512_dpbusd_epi32(acc[i], xv, _mm512_set1_epi64(wq));
    }
  }
  for (int i = 0; i < vnni_qlane_nr; ++i) {  // lane 2m + lane 2m + 1 (exact: |D| < 2^31), low halves kept
    d[i] = ARMLOWER_Z512(cvtepi64_epi32, all8, _mm512_add_epi32(acc[i], ARMLOWER_Z512(srli_epi64, all8, acc[i], 32)));
  }
}

/// This form over batch rows [0, batches) of `args` (batches ≤ args.batches; the caller runs the
/// others). `w`/`wstride`: the weight rows. Preconditions: `validate(args) == ok`,
/// `vnni_qlane_applies(args, nullptr)`, CPU has AVX-512 F/BW/VL/VNNI. `acc32`: as in
/// `linear_s8_rowdot_vnni` (then `args.bias` is null).
ARMLOWER_X86_VNNIQ inline void linear_s8_qlane_vnni(const linear_s8_args& args, const std::int8_t* w,
                                                    std::ptrdiff_t wstride, std::int32_t batches,
                                                    vnni_acc32_out* acc32 = nullptr) noexcept {
  const linear_s8_args a = args;
  const vnni_requant rq = make_vnni_requant(a);
  alignas(64) std::int8_t xt[vnni_qlane_kblock * 8];
  alignas(64) std::int32_t part[vnni_qlane_rblock * 8];
  const std::ptrdiff_t cols = a.cols;
  const std::int64_t fast_bound = vnni_bcast_fast_bound(a, acc32 != nullptr);
  for (std::int32_t b0 = 0; b0 < batches; b0 += 8) {
    const int nb = batches - b0 < 8 ? batches - b0 : 8;
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b0) * cols;
    std::int64_t bt[8];
    const bool fast = vnni_group_terms(a, x, cols, nb, fast_bound, bt);
    for (std::int32_t rb = 0; rb < a.rows; rb += vnni_qlane_rblock) {
      const std::int32_t rbe = a.rows - rb < vnni_qlane_rblock ? a.rows : rb + vnni_qlane_rblock;
      for (std::ptrdiff_t kb = 0; kb < cols; kb += vnni_qlane_kblock) {
        const std::ptrdiff_t kn = cols - kb < vnni_qlane_kblock ? cols - kb : vnni_qlane_kblock;
        vnni_qlane_transpose(x + kb, cols, nb, kn, xt);
        for (std::int32_t r = rb; r < rbe; r += vnni_qlane_nr) {
          // the last tile ends at the last row (rows ≥ 16): rows rc .. r − 1 are computed, not kept
          const std::int32_t rc = r + vnni_qlane_nr <= a.rows ? r : a.rows - vnni_qlane_nr;
          __m256i d[vnni_qlane_nr];
          const std::int8_t* wt = w + static_cast<std::ptrdiff_t>(rc) * wstride + kb;
          // prefetch (L2) of the next tile's 16 rows, one row of ≤ 1 KB per 64 columns of this one
          const std::int8_t* pf = r + 2 * vnni_qlane_nr <= a.rows ? wt + vnni_qlane_nr * wstride : wt;
          vnni_qlane_tile(xt, kn, wt, wstride, pf, d);
          const std::int32_t re = r + vnni_qlane_nr < rbe ? r + vnni_qlane_nr : rbe;
          for (std::int32_t row = r; row < re; ++row) {
            auto* p = reinterpret_cast<__m256i*>(part + std::ptrdiff_t{8} * (row - rb));
            const __m256i v = d[row - rc];
            _mm256_storeu_si256(p, kb == 0 ? v : _mm256_add_epi32(_mm256_loadu_si256(p), v));
          }
          if (kb + kn == cols) {  // last column block: rows [r, re) are complete (stored here, so that
                                  // out-of-order execution overlaps the requantization with the next tile)
            __m256i acc[vnni_qlane_nr];
            for (int i = 0; i < vnni_qlane_nr; ++i) {
              acc[i] = r + i < re ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(part + std::ptrdiff_t{8} * (r - rb + i)))
                                  : _mm256_setzero_si256();
            }
            vnni_bcast_store(a, rq, acc32, acc, r, re - r, b0, nb, bt, fast);
          }
        }
      }
    }
  }
}

#undef ARMLOWER_X86_VNNIQ

}  // namespace armlower::kernels::detail
