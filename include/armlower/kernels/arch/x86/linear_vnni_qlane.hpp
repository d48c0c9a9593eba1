/// @file armlower/kernels/arch/x86/linear_vnni_qlane.hpp
/// AVX-512 VNNI s8 fused linear over ROW-MAJOR weights with the BATCH in the lanes of 512-bit
/// accumulators (contract: `kernels/linear_args.hpp`): the form `linear_s8_rowdot_vnni`
/// (`linear_vnni_rowdot.hpp`) takes for groups of 8 batch rows in the bias form with input_offset = 128
/// (TFLite int8 input zero point −128), ≥ 16 weight rows and 512 < K ≤ 65536 (`vnni_qlane_applies`). No
/// packed copy of the weights and no horizontal reduction tree.
///
/// Layout: for a group of 8 batch rows and a block of ≤ `vnni_qlane_kblock` columns, the inputs are
/// transposed into a fixed stack buffer `xt[p][m]` (8 bytes = columns 8p..8p+7 of batch row m, stored
/// as u = x ⊕ 0x80 = x + 128, unsigned), 64 bytes per column pair p. For a weight row r,
/// `vpdpbusd(acc_r, xt[p], broadcast64(w[r][8p..8p+7]))` accumulates in int32 lane 2m + h the
/// columns 8p + 4h .. 8p + 4h + 3 of batch row m; lane 2m + lane 2m + 1 is then
/// D[m][r] = Σ (x + 128)·w = Σ (x + input_offset)·w, so `acc = D + filter_offset·Σx + bias[r] +
/// K·128·filter_offset` (as the other forms with x unsigned); |D| ≤ 255·128·K < 2^31 for K ≤ 65536.
/// The 64-bit broadcast is a load (`vpbroadcastq`, no vector ALU work), so every `vpdpbusd` is a
/// register form on 16 lanes; a K tail of 1..7 columns is one extra pair whose weight bytes past K are
/// zero (x bytes past K are 0x80 in `xt`).
/// Tiles: 16 weight rows (16 zmm accumulators, 8 column pairs of `xt` in registers), each row's
/// 64-byte line used by 8 consecutive `vpdpbusd` of 8 interleaved rows (so rows 4 KB apart, which share
/// an L1 set, do not evict each other). The last tile of a layer is moved back to end at the last row
/// (it overlaps the previous one; the rows of the overlap are not stored twice). D of a block of
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

/// Fewest columns for which this form is taken (K > 512). Measured on Zen 4 at batch 8 against the
/// 256-bit batch-lane form (`linear_vnni_bcast.hpp`), GMAC/s, one run, median of 7 (K×N: ymm / this):
/// 64×64 90 / 66, 128×128 128 / 107, 256×256 159 / 145, 256×1024 162 / 145, 512×512 181 / 178,
/// 512×2048 173 / 175, 1024×1024 184 / 192, 1024×256 194 / 199 (per-tile costs — accumulator set-up,
/// pair sums, partials — weigh on short rows); the rowdot form it replaces for K > 1024 (bench_kernels_linear,
/// batch 8): 2048² 174 → 198, 4096² 112 → 170.
inline constexpr std::int32_t vnni_qlane_min_cols = 513;

/// True if `linear_s8_rowdot_vnni(a, w, wstride, c, acc32)` runs this form for its first
/// ⌊batches/8⌋·8 batch rows: no folded constants, no kernel_sum, input_offset = 128, ≥ 8 batch rows
/// (the 256-bit form measured faster than rowdot only from 8, see `vnni_bcast_applies`), ≥ 16 weight
/// rows (the last tile overlaps the previous one), `vnni_qlane_min_cols` ≤ K ≤ 65536 (D exact in int32).
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
      const __m256i t0 = _mm256_unpacklo_epi64(r[4 * h], r[4 * h + 1]);
      const __m256i t1 = _mm256_unpackhi_epi64(r[4 * h], r[4 * h + 1]);
      const __m256i t2 = _mm256_unpacklo_epi64(r[4 * h + 2], r[4 * h + 3]);
      const __m256i t3 = _mm256_unpackhi_epi64(r[4 * h + 2], r[4 * h + 3]);
      std::int8_t* o = xt + (c / 8) * 64 + 32 * h;
      _mm256_store_si256(reinterpret_cast<__m256i*>(o), _mm256_xor_si256(_mm256_permute2x128_si256(t0, t2, 0x20), flip));
      _mm256_store_si256(reinterpret_cast<__m256i*>(o + 64), _mm256_xor_si256(_mm256_permute2x128_si256(t1, t3, 0x20), flip));
      _mm256_store_si256(reinterpret_cast<__m256i*>(o + 128), _mm256_xor_si256(_mm256_permute2x128_si256(t0, t2, 0x31), flip));
      _mm256_store_si256(reinterpret_cast<__m256i*>(o + 192), _mm256_xor_si256(_mm256_permute2x128_si256(t1, t3, 0x31), flip));
    }
  }
}

/// acc[i] += Σ_p vpdpbusd(xt[p], broadcast64(w_i[8p..8p+7])) over `np` column pairs, 16 rows w_i = w + i·ws.
ARMLOWER_X86_VNNIQ inline void vnni_qlane_inner(const std::int8_t* xt, std::ptrdiff_t np, const std::int8_t* w,
                                                std::ptrdiff_t ws, const std::int8_t* pf, __m512i* acc) noexcept {
#if !defined(ARMLOWER_X86_AVX512_SIMDE)
  if (np > 0) {
    // Rows at p0 + {0, s, 2s, 3s}, p4 + …, p8 + …, p12 + … (base + index addressing); accumulators in
    // zmm16–31 (loaded from and stored back to acc), 8 column pairs (64 columns) of xt in zmm0–7, the
    // broadcast weights in zmm8–15. Per 64 columns: rows 0–7 over the 8 pairs, then rows 8–15, so at most
    // 8 weight lines are in use at a time. Inline asm: GCC 12 copies every accumulator of the intrinsic
    // form once per iteration (see `dpbusd`) and keeps 16 row pointers in memory.
    const std::int8_t* p0 = w;
    const std::int8_t* p4 = w + 4 * ws;
    const std::int8_t* p8 = w + 8 * ws;
    const std::int8_t* p12 = w + 12 * ws;
    const std::int8_t* xp = xt;
    const std::ptrdiff_t s3 = 3 * ws;
    std::ptrdiff_t chunks = np / 8;
    std::ptrdiff_t rest = np % 8;
#define ARMLOWER_QR(P, IDX, D, X, T, A) \
  "vpbroadcastq " #D "(%[" #P "]" IDX "), %%" #T "\n\tvpdpbusd %%" #T ", %%" #X ", %%" #A "\n\t"
#define ARMLOWER_Q4(P, D, X, T0, T1, T2, T3, A0, A1, A2, A3) \
  ARMLOWER_QR(P, "", D, X, T0, A0)                         \
  ARMLOWER_QR(P, ",%[s],1", D, X, T1, A1)                  \
  ARMLOWER_QR(P, ",%[s],2", D, X, T2, A2)                  \
  ARMLOWER_QR(P, ",%[s3],1", D, X, T3, A3)
#define ARMLOWER_QG(P, D, X, A0, A1, A2, A3) ARMLOWER_Q4(P, D, X, zmm8, zmm9, zmm10, zmm11, A0, A1, A2, A3)
#define ARMLOWER_QH(P, D, X, A0, A1, A2, A3) ARMLOWER_Q4(P, D, X, zmm12, zmm13, zmm14, zmm15, A0, A1, A2, A3)
#define ARMLOWER_QP(D, X) ARMLOWER_QG(p0, D, X, zmm16, zmm17, zmm18, zmm19) ARMLOWER_QH(p4, D, X, zmm20, zmm21, zmm22, zmm23) \
  ARMLOWER_QG(p8, D, X, zmm24, zmm25, zmm26, zmm27) ARMLOWER_QH(p12, D, X, zmm28, zmm29, zmm30, zmm31)
#define ARMLOWER_Q8G(G, P, A0, A1, A2, A3) G(P, 0, zmm0, A0, A1, A2, A3) G(P, 8, zmm1, A0, A1, A2, A3) \
  G(P, 16, zmm2, A0, A1, A2, A3) G(P, 24, zmm3, A0, A1, A2, A3) G(P, 32, zmm4, A0, A1, A2, A3) \
  G(P, 40, zmm5, A0, A1, A2, A3) G(P, 48, zmm6, A0, A1, A2, A3) G(P, 56, zmm7, A0, A1, A2, A3)
#define ARMLOWER_Q_ACC                                                                                      \
  "vmovdqu64 0(%[acc]), %%zmm16\n\t" "vmovdqu64 64(%[acc]), %%zmm17\n\t" "vmovdqu64 128(%[acc]), %%zmm18\n\t" "vmovdqu64 192(%[acc]), %%zmm19\n\t" \
  "vmovdqu64 256(%[acc]), %%zmm20\n\t" "vmovdqu64 320(%[acc]), %%zmm21\n\t" "vmovdqu64 384(%[acc]), %%zmm22\n\t" "vmovdqu64 448(%[acc]), %%zmm23\n\t" \
  "vmovdqu64 512(%[acc]), %%zmm24\n\t" "vmovdqu64 576(%[acc]), %%zmm25\n\t" "vmovdqu64 640(%[acc]), %%zmm26\n\t" "vmovdqu64 704(%[acc]), %%zmm27\n\t" \
  "vmovdqu64 768(%[acc]), %%zmm28\n\t" "vmovdqu64 832(%[acc]), %%zmm29\n\t" "vmovdqu64 896(%[acc]), %%zmm30\n\t" "vmovdqu64 960(%[acc]), %%zmm31\n\t"
#define ARMLOWER_Q_PF                                                                                       \
  "prefetcht1 (%[pf])\n\tprefetcht1 64(%[pf])\n\tprefetcht1 128(%[pf])\n\tprefetcht1 192(%[pf])\n\t"             \
  "prefetcht1 256(%[pf])\n\tprefetcht1 320(%[pf])\n\tprefetcht1 384(%[pf])\n\tprefetcht1 448(%[pf])\n\t"         \
  "prefetcht1 512(%[pf])\n\tprefetcht1 576(%[pf])\n\tprefetcht1 640(%[pf])\n\tprefetcht1 704(%[pf])\n\t"         \
  "prefetcht1 768(%[pf])\n\tprefetcht1 832(%[pf])\n\tprefetcht1 896(%[pf])\n\tprefetcht1 960(%[pf])\n\t"
#define ARMLOWER_Q_ST(R, D) "vmovdqu64 %%zmm" #R ", " #D "(%[acc])\n\t"
    __asm__ volatile(
        ARMLOWER_Q_ACC
        "testq %[n], %[n]\n\t"
        "jz 2f\n\t"
        "1:\n\t"
        "vmovdqa64 (%[xp]), %%zmm0\n\t"
        "vmovdqa64 64(%[xp]), %%zmm1\n\t"
        "vmovdqa64 128(%[xp]), %%zmm2\n\t"
        "vmovdqa64 192(%[xp]), %%zmm3\n\t"
        "vmovdqa64 256(%[xp]), %%zmm4\n\t"
        "vmovdqa64 320(%[xp]), %%zmm5\n\t"
        "vmovdqa64 384(%[xp]), %%zmm6\n\t"
        "vmovdqa64 448(%[xp]), %%zmm7\n\t"
        ARMLOWER_Q_PF
        ARMLOWER_Q8G(ARMLOWER_QG, p0, zmm16, zmm17, zmm18, zmm19) ARMLOWER_Q8G(ARMLOWER_QH, p4, zmm20, zmm21, zmm22, zmm23)
        ARMLOWER_Q8G(ARMLOWER_QG, p8, zmm24, zmm25, zmm26, zmm27) ARMLOWER_Q8G(ARMLOWER_QH, p12, zmm28, zmm29, zmm30, zmm31)
        "addq $512, %[xp]\n\t"
        "addq %[s], %[pf]\n\t"
        "addq $64, %[p0]\n\t"
        "addq $64, %[p4]\n\t"
        "addq $64, %[p8]\n\t"
        "addq $64, %[p12]\n\t"
        "decq %[n]\n\t"
        "jnz 1b\n\t"
        "2:\n\t"
        "testq %[r], %[r]\n\t"
        "jz 4f\n\t"
        "3:\n\t"
        "vmovdqa64 (%[xp]), %%zmm0\n\t"
        ARMLOWER_QP(0, zmm0)
        "addq $64, %[xp]\n\t"
        "addq $8, %[p0]\n\t"
        "addq $8, %[p4]\n\t"
        "addq $8, %[p8]\n\t"
        "addq $8, %[p12]\n\t"
        "decq %[r]\n\t"
        "jnz 3b\n\t"
        "4:\n\t"
        ARMLOWER_Q_ST(16, 0) ARMLOWER_Q_ST(17, 64) ARMLOWER_Q_ST(18, 128) ARMLOWER_Q_ST(19, 192)
        ARMLOWER_Q_ST(20, 256) ARMLOWER_Q_ST(21, 320) ARMLOWER_Q_ST(22, 384) ARMLOWER_Q_ST(23, 448)
        ARMLOWER_Q_ST(24, 512) ARMLOWER_Q_ST(25, 576) ARMLOWER_Q_ST(26, 640) ARMLOWER_Q_ST(27, 704)
        ARMLOWER_Q_ST(28, 768) ARMLOWER_Q_ST(29, 832) ARMLOWER_Q_ST(30, 896) ARMLOWER_Q_ST(31, 960)
        : [p0] "+r"(p0), [p4] "+r"(p4), [p8] "+r"(p8), [p12] "+r"(p12), [xp] "+r"(xp), [n] "+r"(chunks),
          [r] "+r"(rest), [pf] "+r"(pf)
        : [s] "r"(ws), [s3] "r"(s3), [acc] "r"(acc)
        : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
          "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",
          "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");
#undef ARMLOWER_Q_ST
#undef ARMLOWER_Q_PF
#undef ARMLOWER_Q_ACC
#undef ARMLOWER_Q8G
#undef ARMLOWER_QP
#undef ARMLOWER_QH
#undef ARMLOWER_QG
#undef ARMLOWER_Q4
#undef ARMLOWER_QR
  } else
#endif
  {
    (void)pf;
    for (std::ptrdiff_t p = 0; p < np; ++p) {
      const __m512i xv = _mm512_load_si512(xt + 64 * p);
      for (int i = 0; i < vnni_qlane_nr; ++i) {
        std::int64_t wq = 0;
        std::memcpy(&wq, w + i * ws + 8 * p, 8);
        acc[i] = _mm512_dpbusd_epi32(acc[i], xv, _mm512_set1_epi64(wq));
      }
    }
  }
}

/// d[i] (lane m = D of row w + i·ws, batch row m) for the first n ≤ `vnni_qlane_kblock` columns of xt / w.
ARMLOWER_X86_VNNIQ inline void vnni_qlane_tile(const std::int8_t* xt, std::ptrdiff_t n, const std::int8_t* w,
                                               std::ptrdiff_t ws, const std::int8_t* pf, __m256i* d) noexcept {
  alignas(64) __m512i acc[vnni_qlane_nr];
  for (__m512i& v : acc) v = _mm512_setzero_si512();
  const std::ptrdiff_t np = n / 8;
  vnni_qlane_inner(xt, np, w, ws, pf, acc);
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
    std::int64_t bt[8] = {};
    if (a.filter_offset != 0) {
      for (int m = 0; m < nb; ++m) bt[m] = std::int64_t{a.filter_offset} * sum_s8_vnni(x + m * cols, cols);
    }
    bool fast = fast_bound >= 0;
    for (int m = 0; m < nb; ++m) fast = fast && (bt[m] < 0 ? -bt[m] : bt[m]) <= fast_bound;
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
        }
      }
      for (std::int32_t r = rb; r < rbe; r += vnni_qlane_nr) {
        const int nv = rbe - r < vnni_qlane_nr ? rbe - r : vnni_qlane_nr;
        __m256i acc[vnni_qlane_nr];
        for (int i = 0; i < vnni_qlane_nr; ++i) {
          acc[i] = i < nv ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(part + std::ptrdiff_t{8} * (r - rb + i)))
                          : _mm256_setzero_si256();
        }
        vnni_bcast_store(a, rq, acc32, acc, r, nv, b0, nb, bt, fast);
      }
    }
  }
}

#undef ARMLOWER_X86_VNNIQ

}  // namespace armlower::kernels::detail
