/// @file armlower/kernels/arch/x86/linear_vnni_rowgroup.hpp
/// AVX-512 VNNI s8 fused linear over ROW-MAJOR weights for groups of 8 or 4 batch rows (contract:
/// `kernels/linear_args.hpp`): the form `linear_s8_rowdot_vnni` (`linear_vnni_rowdot.hpp`) takes for the groups of
/// 8 batch rows with > 4 output channels and K ≤ 65536, and one of 4 after them when 4 remain
/// (`vnni_rowgroup_applies`). No packed copy of the weights.
///
/// Arithmetic, per 32 columns in 8 int32 lanes (|D| ≤ 255·128·K < 2^31 for K ≤ 65536; a K tail is one step with
/// zero-masked weight loads against zero inputs), in two operand orders: bias form, u = x ⊕ 0x80 = x + 128
/// (unsigned) and w signed: `vpdpbusd(acc, u, w)` accumulates D = Σ (x + 128)·w = Σ (x + input_offset)·w and `acc =
/// D + filter_offset·Σx + bias[r] + K·128·filter_offset`; kernel_sum order (`vnni_rowgroup_wu`: folded kernel_sum,
/// or the bias form with input_offset 0, where kernel_sum[r] = bias[r]), u = w ⊕ 0x80 and x signed: D = Σ (w +
/// 128)·x = Σ x·w + 128·Σx and `acc = D + (filter_offset − 128)·Σx + kernel_sum[r]`. In the bias order with another
/// input_offset the tiles also sum each weight row (one `vpdpbusd` against ones per 64 bytes of a row) and `acc`
/// takes (input_offset − 128)·Σw[r]. Requantized by `vnni_rowgroup_store` (`linear_vnni_rowgroup_store.hpp`).
/// Layout: a group's inputs are first copied to an aligned stack block (`vnni_rowgroup_copy`, ≤ 4096 columns at a
/// time) as row pairs (p, p + MR/2) side by side per 32 columns, so one 64-byte load holds two batch rows; each
/// weight row's 32 bytes are broadcast to both halves. An accumulator then holds two outputs (a channel for two
/// batch rows, 8 lanes each), 16 zmm accumulators hold MR × 32/MR of them (8 × 4 or 4 × 8), and one 8-vector tree per
/// 16 outputs (`reduce8x2_epi32`, whose 128-bit shuffles share the `vpdpbusd` ports) gives the 16-channel blocks of
/// D lanes = batch rows that `vnni_rowgroup_store` takes. Measured on Zen 5 against the forms it replaced:
/// benchmarks/RESULTS.md, "AVX-512 VNNI without a buffer, batch 8: row pairs".
/// Firmware-clean (host only): noexcept, no heap, no static data. Source of the semantics: CMSIS-NN
/// `arm_fully_connected_s8` / `arm_nn_vec_mat_mult_t_s8`, TFLite reference `FullyConnected` (int8).
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/arch/x86/linear_amx_rowmajor.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_reduce.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_rowgroup_store.hpp>

namespace armlower::kernels::detail {

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIG __attribute__((target("avx2")))
#define ARMLOWER_X86_VNNIG_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_VNNIG __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#define ARMLOWER_X86_VNNIG_INLINE __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni"), always_inline))
#endif

/// True if `linear_s8_rowdot_vnni(a, w, wstride, c, acc32)` runs this form for its first ⌊batches/8⌋·8 batch rows
/// (and the 4 after them when batches ≡ 4 mod 8): no folded constants; ≥ 8 or 4 batch rows; > 4 weight rows
/// (narrower layers keep the rowdot form's 4 × 4 tiles, measured faster at 8 × 4000×4); K ≤ 65536 (D exact in int32). Measured on Zen 5 faster than the forms it replaced at every K (the 256-bit
/// batch-lane form below K 129: 8 × 64² 127 → 136, 8 × 128² 169 → 226 GMAC/s; the rowdot tiles at batch 4 and 12:
/// 4 × 64² 46 → 90, 12 × 128² 125 → 197; with input_offset 5, the rowdot tiles at batch 8: 64² 31 → 90–92, 256² 135
/// → 236–239, 2048² 231 → 360–371; Σw beside the dot products instead of `vpsadbw` in the steps, batch 8 with
/// input_offset 5: 64² 86 → 100, 256² 233 → 253, 1024² 341 → 367; a group of 4 with it against the rowdot tiles: 4 ×
/// 256² 117 → 153, 12 × 1024² 264 → 308; input_offset 0 in the kernel_sum order, batch 8: 256² 233 → 289, 1024² 337 →
/// 409).
[[nodiscard]] inline bool vnni_rowgroup_applies(const linear_s8_args& a, const std::int64_t* c) noexcept {
  return c == nullptr && (a.batches >= 8 || a.batches == 4) && a.rows > 4 && a.cols <= vnni_s8_block;
}

/// Columns per block of the inputs copied to an aligned stack buffer (`vnni_rowgroup_copy`: 8 batch rows × 4096
/// bytes = 32 KB of stack).
inline constexpr std::int32_t vnni_rowgroup_kblock = 4096;

/// Bytes ahead in a weight row that a step prefetches into L1 when the weights exceed `vnni_rowgroup_pf_bytes`.
inline constexpr std::ptrdiff_t vnni_rowgroup_pf = 2048;
/// Weight bytes (rows·K) above which the steps prefetch. Measured on Zen 5 at batch 8 (`BM_s8_armlower_auto_nobuf`,
/// each shape alone, two runs, GMAC/s without / with): 4096² 237–256 / 296–307; 2048² (4 MiB) 429–436 / 426–434,
/// 1024² and 256² unchanged within noise. The batch-1 in-register form (`vnni_rowdot8_pf`) prefetches above the same size.
inline constexpr std::ptrdiff_t vnni_rowgroup_pf_bytes = std::ptrdiff_t{4} << 20;

/// One step of 32 columns [k, k + n) of an MR × NC tile, NC = 32 / MR (TAIL: n < 32, zero-masked weight loads):
/// acc[c·P + p] (P = MR / 2 row pairs) += D step of channel wr[c] for batch rows p (low 256 bits) and p + P (high
/// 256 bits). `xg`: the group's P copied input vectors (`vnni_rowgroup_copy`: rows p and p + P side by side, u = x ⊕
/// 0x80 in the bias form, x in the kernel_sum form, zeros past K). Each weight row's 32 bytes are broadcast to both
/// halves. WU (the kernel_sum order, `vnni_rowgroup_wu`): u = w ⊕ 0x80 and x signed, D = Σ (w + 128)·x; else D = Σ
/// (x + 128)·w. pf: prefetch the weight rows `vnni_rowgroup_pf` bytes ahead.
template <int MR, bool WU, bool TAIL>
ARMLOWER_X86_VNNIG_INLINE inline void vnni_rowgroup_step(__m512i* acc, const std::int8_t* xg,
                                                         const std::int8_t* const* wr, std::ptrdiff_t k,
                                                         std::ptrdiff_t n, bool pf) noexcept {
  constexpr int np = MR / 2, nc = 16 / np;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i v[nc];
#pragma GCC unroll 8
  for (int c = 0; c < nc; ++c) {
    if (!TAIL && pf) _mm_prefetch(reinterpret_cast<const char*>(wr[c] + k + vnni_rowgroup_pf), _MM_HINT_T0);
    if constexpr (TAIL) {
      const __m512i t = load_prefix8(wr[c] + k, n);  // n < 32 bytes, zeros above
      v[c] = shuf128<0x44>(t, t);
    } else {
      v[c] = ARMLOWER_Z512(broadcast_i64x4, all8, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wr[c] + k)));
    }
    if constexpr (WU) v[c] = _mm512_xor_si512(v[c], flip);
  }
#pragma GCC unroll 4
  for (int p = 0; p < np; ++p) {
    const __m512i u = _mm512_load_si512(xg + std::ptrdiff_t{64} * p);
#pragma GCC unroll 8
    for (int c = 0; c < nc; ++c) {
      if constexpr (WU) {
        dpbusd(acc[c * np + p], v[c], u);  // unsigned w + 128, signed x
      } else {
        dpbusd(acc[c * np + p], u, v[c]);  // unsigned x + 128, signed w
      }
    }
  }
}

/// D of MR batch rows copied at `xu` (`vnni_rowgroup_copy`, n columns) with the NC = 32 / MR weight rows w +
/// i·wstride (i < nw; the others repeat row nw − 1) over columns [0, n), n ≤ 65536: dd[j] lane 8e + m = D[m][row 2j +
/// e] for m < MR (lanes m ≥ MR zero; ADD: added to dd, exact: the total D of a channel is < 2^31 in magnitude), the
/// layout `vnni_rowgroup_store` takes; SW: wsum[i] = Σw of row i < NC over the columns (ADD: added; |Σw| ≤
/// 128·65536), one `vpdpbusd` against ones per 64 bytes of a row beside the dot products (+1 per 8 of them; measured on
/// Zen 5 1.05–1.12× faster than `vpsadbw` of the broadcast rows ⊕ 0x80 in the steps, and than a pass over the tile's
/// rows before them at K ≥ 1024). pf: as `vnni_rowgroup_step`.
template <int MR, bool WU, bool SW, bool ADD>
[[gnu::noinline]] ARMLOWER_X86_VNNIG inline void vnni_rowgroup_tile(const std::int8_t* xu, std::ptrdiff_t n,
                                                                    const std::int8_t* w, std::ptrdiff_t wstride,
                                                                    int nw, bool pf, __m512i* dd,
                                                                    std::int32_t* wsum) noexcept {
  constexpr int np = MR / 2, nc = 16 / np;
  const std::int8_t* wr[nc];
#pragma GCC unroll 8
  for (int i = 0; i < nc; ++i) wr[i] = w + (i < nw ? i : nw - 1) * wstride;
  __m512i acc[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_setzero_si512();
  __m512i sw[8];  // SW: Σw lanes of row c
  const __m512i ones = _mm512_set1_epi8(1);
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) sw[i] = _mm512_setzero_si512();
  std::ptrdiff_t k = 0;
  for (; k + 64 <= n; k += 64) {
    if constexpr (SW) {
#pragma GCC unroll 8
      for (int c = 0; c < nc; ++c) dpbusd(sw[c], ones, _mm512_loadu_si512(wr[c] + k));
    }
    vnni_rowgroup_step<MR, WU, false>(acc, xu + k * np * 2, wr, k, 32, pf);
    vnni_rowgroup_step<MR, WU, false>(acc, xu + (k + 32) * np * 2, wr, k + 32, 32, false);
  }
  if constexpr (SW) {
    if (k < n) {
#pragma GCC unroll 8
      for (int c = 0; c < nc; ++c) dpbusd(sw[c], ones, load_prefix8(wr[c] + k, n - k));
    }
    alignas(32) std::int32_t l[8];
    if constexpr (nc == 4) {  // the 4 rows of an 8-batch-row tile: half the tree
      _mm_store_si128(reinterpret_cast<__m128i*>(l), reduce4_epi32(sw));
    } else {
      _mm256_store_si256(reinterpret_cast<__m256i*>(l), reduce8_epi32(sw));
    }
#pragma GCC unroll 8
    for (int i = 0; i < nc; ++i) wsum[i] = ADD ? wsum[i] + l[i] : l[i];
  }
  if (k + 32 <= n) {
    vnni_rowgroup_step<MR, WU, false>(acc, xu + k * np * 2, wr, k, 32, false);
    k += 32;
  }
  if (k < n) vnni_rowgroup_step<MR, WU, true>(acc, xu + k * np * 2, wr, k, n - k, false);
  // lanes 0–3: Σ low halves of acc[j], j < 4; 4–7: their high halves; 8–15: the same for acc[4..7]
  const __m512i s[2] = {reduce8x2_epi32(acc), reduce8x2_epi32(acc + 8)};
  __m512i r[nc / 2];
  if constexpr (MR == 8) {  // acc[c·4 + p], rows p and p + 4: s[h] = [channel 2h rows 0–7, channel 2h + 1 rows 0–7]
    r[0] = s[0];
    r[1] = s[1];
  } else {
    static_assert(MR == 4);  // acc[c·2 + p], rows p and p + 2: lanes (c0 r0, c0 r1, c1 r0, c1 r1, c0 r2, c0 r3, …)
    const __m512i i0 = _mm512_set_epi32(0, 0, 0, 0, 7, 6, 3, 2, 0, 0, 0, 0, 5, 4, 1, 0);
    const __m512i i1 = _mm512_add_epi32(i0, _mm512_set1_epi32(8));
    constexpr auto rows4 = static_cast<__mmask16>(0x0F0F);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      r[2 * h] = _mm512_maskz_permutexvar_epi32(rows4, i0, s[h]);
      r[2 * h + 1] = _mm512_maskz_permutexvar_epi32(rows4, i1, s[h]);
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < nc / 2; ++j) dd[j] = ADD ? _mm512_add_epi32(dd[j], r[j]) : r[j];
}

/// The MR batch rows at `x` (rows `cols` bytes apart), columns [0, n), n ≤ `vnni_rowgroup_kblock`, copied for
/// `vnni_rowgroup_step`: per 32 columns g and row pair p < MR / 2, one aligned 64-byte vector at xu + (g·MR/2 + p)·64
/// = row p's 32 bytes, then row p + MR/2's, as x ⊕ f (f = 0x80, or 0 in the kernel_sum form: `wu`), zeros past n.
/// MR is a template argument: with a run-time row count the destination's row-pair arithmetic compiled to a 64-bit
/// division per row and 32 columns, 6 % of an 8 × 256² call (Zen 5 profile).
template <int MR>
ARMLOWER_X86_VNNIG inline void vnni_rowgroup_copy(const std::int8_t* x, std::ptrdiff_t cols, std::ptrdiff_t n, bool wu,
                                                  std::int8_t* xu) noexcept {
  constexpr int np = MR / 2;
  const auto f = static_cast<std::int8_t>(wu ? 0 : 0x80);
  const __m256i flip = _mm256_set1_epi8(f);
  std::ptrdiff_t c = 0;
  for (; c + 32 <= n; c += 32) {
    std::int8_t* dst = xu + c * np * 2;
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) {  // row m to half m / np of vector m % np
      _mm256_store_si256(reinterpret_cast<__m256i*>(dst + std::ptrdiff_t{m % np} * 64 + std::ptrdiff_t{m / np} * 32),
                         _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + m * cols + c)), flip));
    }
  }
  if (c < n) {  // the last partial 32 columns: zeros past n
    std::int8_t* dst = xu + c * np * 2;
    for (int m = 0; m < MR; ++m) {
      std::int8_t* d = dst + std::ptrdiff_t{m % np} * 64 + std::ptrdiff_t{m / np} * 32;
      const std::int8_t* src = x + m * cols + c;
      for (std::ptrdiff_t i = 0; i < 32; ++i) d[i] = c + i < n ? static_cast<std::int8_t>(src[i] ^ f) : std::int8_t{0};
    }
  }
}

/// The groups of MR batch rows from b0 (MR = 8 or 4), tiles MR × 32 / MR, in the kernel_sum order (WU) or the bias
/// order (SW: input_offset ≠ 128, Σw per tile), as `linear_s8_rowgroup_vnni`.
template <int MR, bool WU, bool SW>
ARMLOWER_X86_VNNIG inline void linear_s8_rowgroup_mr_vnni(const linear_s8_args& a, const std::int8_t* w,
                                                          std::ptrdiff_t wstride, std::int32_t b0, std::int32_t b1,
                                                          vnni_acc32_out* acc32, std::int8_t* xu) noexcept {
  constexpr int nr = 32 / MR;
  const vnni_requant rq = make_vnni_requant(a);
  const std::ptrdiff_t cols = a.cols;
  const std::int64_t fast_bound = vnni_rowgroup_fast_bound(a, acc32 != nullptr);
  const bool one_block = cols <= vnni_rowgroup_kblock;
  const bool pf = static_cast<std::ptrdiff_t>(a.rows) * cols > vnni_rowgroup_pf_bytes;
  for (std::int32_t g = b0; g + MR <= b1; g += MR) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(g) * cols;
    std::int64_t bt[8];
    const bool fast = vnni_group_terms(a, x, cols, MR, fast_bound, bt);
    if (one_block) vnni_rowgroup_copy<MR>(x, cols, cols, WU, xu);
    for (std::int32_t r0 = 0; r0 < a.rows; r0 += 16) {
      const int nv = a.rows - r0 < 16 ? a.rows - r0 : 16;
      __m512i dd[8];
      for (__m512i& v : dd) v = _mm512_setzero_si512();
      alignas(64) std::int32_t ws[16] = {};  // SW: Σw of the block's channels
      for (std::ptrdiff_t kb = 0; kb < cols; kb += vnni_rowgroup_kblock) {
        const std::ptrdiff_t kn = cols - kb < vnni_rowgroup_kblock ? cols - kb : vnni_rowgroup_kblock;
        if (!one_block) vnni_rowgroup_copy<MR>(x + kb, cols, kn, WU, xu);
        for (int t = 0; t < nv; t += nr) {
          const std::int8_t* wt = w + static_cast<std::ptrdiff_t>(r0 + t) * wstride + kb;
          const int nw = nv - t < nr ? nv - t : nr;  // past the last row: row r0 + nv − 1 again
          if (kb == 0) {
            vnni_rowgroup_tile<MR, WU, SW, false>(xu, kn, wt, wstride, nw, pf, dd + t / 2, ws + t);
          } else {
            vnni_rowgroup_tile<MR, WU, SW, true>(xu, kn, wt, wstride, nw, pf, dd + t / 2, ws + t);
          }
        }
      }
      vnni_rowgroup_store(a, rq, acc32, dd, SW ? ws : nullptr, r0, nv, g, MR, bt, fast);
    }
  }
}

/// This form over batch rows [0, batches) of `args` (batches ≤ args.batches; the caller runs the others): groups
/// of 8 batch rows (8 × 4 tiles), then one group of 4 when exactly 4 remain (4 × 8 tiles); returns the batch rows
/// done. The group of 4 was measured faster than the rowdot form's tiles only for a remainder of 4 (Zen 5, a
/// harness calling `linear_s8`, GMAC/s rowdot → with the group: batch 4 at 1024² 228 → 276, 2048² 225 → 288; batch
/// 12 at 1024² 309 → 348), not for 5 or 6 (1024² 275 → 215, 293 → 240: the 1–2 rows after it read the weights
/// again), 7 (within noise) or 13 (322 → 293). `w`/`wstride`: the weight rows. Preconditions: `validate(args) == ok`,
/// `vnni_rowgroup_applies(args, nullptr)`, CPU has AVX-512 F/BW/VL/VNNI. `acc32`: as in `linear_s8_rowdot_vnni`
/// (then `args.bias` is null). The copied inputs make every input load aligned (a split input load costs more than
/// a split weight load; inputs and weights 16 bytes past a line, as `std::vector` places them: 8 × 4096², 241 against
/// 340 GMAC/s in a harness) and take the ⊕ 0x80 out of the inner loop.
ARMLOWER_X86_VNNIG inline std::int32_t linear_s8_rowgroup_vnni(const linear_s8_args& args, const std::int8_t* w,
                                                               std::ptrdiff_t wstride, std::int32_t batches,
                                                               vnni_acc32_out* acc32 = nullptr) noexcept {
  const linear_s8_args a = args;
  alignas(64) std::int8_t xu[8 * vnni_rowgroup_kblock];
  const std::int32_t b8 = batches / 8 * 8;
  const bool wu = vnni_rowgroup_wu(a), sw = vnni_rowgroup_sw(a);
  std::int32_t done = 0;  // groups of 8 run by the AMX-INT8 form
#if defined(ARMLOWER_KERNELS_HAVE_AMX)
  if (amx_rowmajor_applies(a, wstride, acc32)) {
    linear_s8_amx_rowmajor(a, w, b8);
    done = b8;
  }
#endif
  if (wu) {
    linear_s8_rowgroup_mr_vnni<8, true, false>(a, w, wstride, done, b8, acc32, xu);
  } else if (sw) {
    linear_s8_rowgroup_mr_vnni<8, false, true>(a, w, wstride, done, b8, acc32, xu);
  } else {
    linear_s8_rowgroup_mr_vnni<8, false, false>(a, w, wstride, done, b8, acc32, xu);
  }
  if (batches - b8 != 4) return b8;
  if (wu) {
    linear_s8_rowgroup_mr_vnni<4, true, false>(a, w, wstride, b8, b8 + 4, acc32, xu);
  } else if (sw) {
    linear_s8_rowgroup_mr_vnni<4, false, true>(a, w, wstride, b8, b8 + 4, acc32, xu);
  } else {
    linear_s8_rowgroup_mr_vnni<4, false, false>(a, w, wstride, b8, b8 + 4, acc32, xu);
  }
  return b8 + 4;
}

#undef ARMLOWER_X86_VNNIG
#undef ARMLOWER_X86_VNNIG_INLINE

}  // namespace armlower::kernels::detail
