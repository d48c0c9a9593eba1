/// @file armlower/kernels/arch/x86/linear_vnni_rowgroup.hpp
/// AVX-512 VNNI s8 fused linear over ROW-MAJOR weights for groups of 8 or 4 batch rows (contract:
/// `kernels/linear_args.hpp`): the form `linear_s8_rowdot_vnni` (`linear_vnni_rowdot.hpp`) takes for the groups of
/// 8 batch rows, and one of 4 after them when 4 remain, in the kernel_sum form or the bias form with input_offset =
/// 128 (TFLite int8 input zero point −128), > 4 output channels and 128 < K ≤ 65536 (`vnni_rowgroup_applies`). No
/// packed copy of the weights.
///
/// Arithmetic, per 64 columns in 16 int32 lanes (|D| ≤ 255·128·K < 2^31 for K ≤ 65536; a K tail is one zero-masked
/// step), as the rowdot form's two operand orders: bias form, u = x ⊕ 0x80 = x + 128 (unsigned) and w signed:
/// `vpdpbusd(acc, u, w)` accumulates D = Σ (x + 128)·w = Σ (x + input_offset)·w and `acc = D + filter_offset·Σx +
/// bias[r] + K·128·filter_offset`; kernel_sum form, u = w ⊕ 0x80 and x signed: D = Σ (w + 128)·x = Σ x·w + 128·Σx
/// and `acc = D + (filter_offset − 128)·Σx + kernel_sum[r]`. Requantized like the batch-lane form
/// (`vnni_bcast_store`: 16 channels in int32 lanes within `vnni_bcast_fast_bound`, else exact int64 lanes; or raw
/// int32 accumulators for TOSA CONV2D).
/// Tiles: MR batch rows × 16 / MR weight rows = 16 zmm accumulators (channel-major): 8 × 2 (a step of 64 columns is
/// 10 loads and 16 `vpdpbusd`, each weight vector used by 8 of them) or 4 × 4 (8 loads); the weights are read once
/// per group (the inputs, MR·K bytes, stay in L1/L2). The 16 sums of a tile come from one transpose-add tree
/// (`reduce16_epi32`), lanes = batch rows of its channels, so the tiles of 16 channels give the block
/// `vnni_bcast_store` takes. Measured on Zen 5 against the forms it replaced: benchmarks/RESULTS.md, "AVX-512 VNNI
/// without a buffer, batch 8: the row-group form".
/// Firmware-clean (host only): noexcept, no heap, no static data. Source of the semantics: CMSIS-NN
/// `arm_fully_connected_s8` / `arm_nn_vec_mat_mult_t_s8`, TFLite reference `FullyConnected` (int8).
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/arch/x86/linear_vnni_bcast.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_reduce.hpp>

namespace armlower::kernels::detail {

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIG __attribute__((target("avx2")))
#define ARMLOWER_X86_VNNIG_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_VNNIG __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#define ARMLOWER_X86_VNNIG_INLINE __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni"), always_inline))
#endif

/// Fewest columns for which this form is taken (K > 128). Measured on Zen 5 at batch 8 against the batch-lane
/// form (`linear_vnni_bcast.hpp`), GMAC/s, a harness calling `linear_s8` (K × N: batch-lane / this): 64 × 64
/// 92 / 76, 64 × 1024 100 / 79, 128 × 128 135 / 140, 128 × 1024 140 / 138, 192 × 256 159 / 192, 256 × 256
/// 175 / 236, 512 × 512 265 / 313 (per-tile costs — the reduction tree, the call — weigh on short rows).
inline constexpr std::int32_t vnni_rowgroup_min_cols = 129;

/// True if `linear_s8_rowdot_vnni(a, w, wstride, c, acc32)` runs this form for its first ⌊batches/8⌋·8 batch rows
/// (and the 4 after them when batches ≡ 4 mod 8): no folded constants; the kernel_sum form, or the bias form with
/// input_offset = 128 (other offsets would need Σw); ≥ 8 or 4 batch rows; > 4 weight rows (narrower layers keep the
/// rowdot form's 4 × 4 tiles: 8 × 4000×4 401–413 GMAC/s against 343–350 in this form, whose inputs are then read in
/// place, unaligned); `vnni_rowgroup_min_cols` ≤ K ≤ 65536 (D exact in int32).
[[nodiscard]] inline bool vnni_rowgroup_applies(const linear_s8_args& a, const std::int64_t* c) noexcept {
  return c == nullptr && (a.kernel_sum != nullptr || a.input_offset == 128) && (a.batches >= 8 || a.batches == 4) &&
         a.rows > 4 && a.cols >= vnni_rowgroup_min_cols && a.cols <= vnni_s8_block;
}

/// Columns per block of the inputs copied as u = x ⊕ 0x80 to an aligned stack buffer (8 batch rows × 4096 bytes =
/// 32 KB of stack).
inline constexpr std::int32_t vnni_rowgroup_kblock = 4096;

/// Bytes ahead in a weight row that a step prefetches into L1 when the weights exceed `vnni_rowgroup_pf_bytes`.
inline constexpr std::ptrdiff_t vnni_rowgroup_pf = 2048;
/// Weight bytes (rows·K) above which the steps prefetch. Measured on Zen 5 at batch 8 (`BM_s8_armlower_auto_nobuf`,
/// each shape alone, two runs, GMAC/s without / with): 4096² 237–256 / 296–307; 2048² (4 MiB) 429–436 / 426–434,
/// 1024² and 256² unchanged within noise.
inline constexpr std::ptrdiff_t vnni_rowgroup_pf_bytes = std::ptrdiff_t{4} << 20;

/// One step of 64 columns [k, k + n) of an MR × NR tile, NR = 16 / MR (TAIL: n < 64, zero-masked loads: w = 0 and
/// x = 0 past n): acc[i·MR + m] += D step of batch row m and weight row wr[i]. WU (the kernel_sum form): u = w ⊕ 0x80
/// and x signed, D = Σ (w + 128)·x (u = 128 against x = 0 past n); else u = x ⊕ 0x80 and w signed, D = Σ (x + 128)·w,
/// with u already formed in `x` when COPIED (the aligned copy). pf: prefetch the weight rows `vnni_rowgroup_pf` bytes
/// ahead.
template <int MR, bool COPIED, bool WU, bool TAIL>
ARMLOWER_X86_VNNIG_INLINE inline void vnni_rowgroup_step(__m512i* acc, const std::int8_t* x, std::ptrdiff_t xs,
                                                         const std::int8_t* const* wr, std::ptrdiff_t k,
                                                         std::ptrdiff_t n, bool pf) noexcept {
  constexpr int nr = 16 / MR;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i v[nr];
#pragma GCC unroll 4
  for (int i = 0; i < nr; ++i) {
    if (!TAIL && pf) _mm_prefetch(reinterpret_cast<const char*>(wr[i] + k + vnni_rowgroup_pf), _MM_HINT_T0);
    v[i] = TAIL ? load_prefix8(wr[i] + k, n) : _mm512_loadu_si512(wr[i] + k);
    if constexpr (WU) v[i] = _mm512_xor_si512(v[i], flip);
  }
#pragma GCC unroll 8
  for (int m = 0; m < MR; ++m) {
    const std::int8_t* xm = x + m * xs + k;
    __m512i u = TAIL ? load_prefix8(xm, n) : _mm512_loadu_si512(xm);
    if constexpr (!WU && !COPIED) u = _mm512_xor_si512(u, flip);
#pragma GCC unroll 4
    for (int i = 0; i < nr; ++i) {
      if constexpr (WU) {
        dpbusd(acc[i * MR + m], v[i], u);  // unsigned w + 128, signed x
      } else {
        dpbusd(acc[i * MR + m], u, v[i]);  // unsigned x + 128, signed w
      }
    }
  }
}

/// D of MR batch rows at `x` (rows `xs` bytes apart; COPIED, WU: as `vnni_rowgroup_step`) with the NR = 16 / MR
/// weight rows w + i·wstride (i < nw; the others repeat row nw − 1) over columns [0, n), n ≤ 65536: d[i] lane m =
/// D[m][row i] for m < MR (lanes ≥ MR zero; ADD: added to d, exact: the total D of a channel is < 2^31 in
/// magnitude). pf: as `vnni_rowgroup_step`.
template <int MR, bool COPIED, bool WU, bool ADD>
[[gnu::noinline]] ARMLOWER_X86_VNNIG inline void vnni_rowgroup_tile(const std::int8_t* x, std::ptrdiff_t xs,
                                                                    std::ptrdiff_t n, const std::int8_t* w,
                                                                    std::ptrdiff_t wstride, int nw, bool pf,
                                                                    __m256i* d) noexcept {
  constexpr int nr = 16 / MR;
  const std::int8_t* wr[nr];
#pragma GCC unroll 4
  for (int i = 0; i < nr; ++i) wr[i] = w + (i < nw ? i : nw - 1) * wstride;
  __m512i acc[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_setzero_si512();
  std::ptrdiff_t k = 0;
  for (; k + 64 <= n; k += 64) vnni_rowgroup_step<MR, COPIED, WU, false>(acc, x, xs, wr, k, 64, pf);
  if (k < n) vnni_rowgroup_step<MR, COPIED, WU, true>(acc, x, xs, wr, k, n - k, false);
  const __m512i s = reduce16_epi32(acc);  // lane i·MR + m = D[m][row i]
  __m256i r[nr];
  if constexpr (MR == 8) {
    r[0] = ARMLOWER_Z512(extracti64x4_epi64, all4, s, 0);
    r[1] = ARMLOWER_Z512(extracti64x4_epi64, all4, s, 1);
  } else {
    static_assert(MR == 4);
    alignas(64) std::int32_t l[16];
    _mm512_store_si512(l, s);
#pragma GCC unroll 4
    for (std::ptrdiff_t i = 0; i < 4; ++i) r[i] = _mm256_zextsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(l + 4 * i)));
  }
#pragma GCC unroll 4
  for (int i = 0; i < nr; ++i) d[i] = ADD ? _mm256_add_epi32(d[i], r[i]) : r[i];
}

/// xu[m][c] = x[m][c] ⊕ f (f = 0x80, or 0 in the kernel_sum form: `wu`) for batch rows m < nb (`x` rows `cols` bytes
/// apart) and columns c < n ≤ `vnni_rowgroup_kblock`, rows `xs` = n rounded up to 64 bytes apart (bytes past n are
/// not read).
ARMLOWER_X86_VNNIG inline void vnni_rowgroup_copy(const std::int8_t* x, std::ptrdiff_t cols, int nb, std::ptrdiff_t n,
                                                  std::ptrdiff_t xs, bool wu, std::int8_t* xu) noexcept {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(wu ? 0 : 0x80));
  for (int m = 0; m < nb; ++m) {
    const std::int8_t* src = x + m * cols;
    std::int8_t* dst = xu + m * xs;
    std::ptrdiff_t c = 0;
    for (; c + 64 <= n; c += 64) _mm512_store_si512(dst + c, _mm512_xor_si512(_mm512_loadu_si512(src + c), flip));
    if (c < n) _mm512_store_si512(dst + c, _mm512_xor_si512(load_prefix8(src + c, n - c), flip));
  }
}

/// The groups of MR batch rows from b0 (MR = 8 or 4), tiles MR × 16 / MR, in the kernel_sum form (WU) or the bias
/// form, as `linear_s8_rowgroup_vnni`.
template <int MR, bool WU>
ARMLOWER_X86_VNNIG inline void linear_s8_rowgroup_mr_vnni(const linear_s8_args& a, const std::int8_t* w,
                                                          std::ptrdiff_t wstride, std::int32_t b0, std::int32_t b1,
                                                          vnni_acc32_out* acc32, std::int8_t* xu) noexcept {
  constexpr int nr = 16 / MR;
  const vnni_requant rq = make_vnni_requant(a);
  const std::ptrdiff_t cols = a.cols;
  const std::int64_t fast_bound = vnni_bcast_fast_bound(a, acc32 != nullptr);
  const bool copy = a.rows >= 16;
  const bool one_block = cols <= vnni_rowgroup_kblock;
  const bool pf = static_cast<std::ptrdiff_t>(a.rows) * cols > vnni_rowgroup_pf_bytes;
  for (std::int32_t g = b0; g + MR <= b1; g += MR) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(g) * cols;
    std::int64_t bt[8];
    const bool fast = vnni_group_terms(a, x, cols, MR, fast_bound, bt);
    if (copy && one_block) vnni_rowgroup_copy(x, cols, MR, cols, (cols + 63) / 64 * 64, WU, xu);
    for (std::int32_t r0 = 0; r0 < a.rows; r0 += 16) {
      const int nv = a.rows - r0 < 16 ? a.rows - r0 : 16;
      __m256i d[16];
      for (__m256i& v : d) v = _mm256_setzero_si256();
      const std::ptrdiff_t kstep = copy ? vnni_rowgroup_kblock : cols;
      for (std::ptrdiff_t kb = 0; kb < cols; kb += kstep) {
        const std::ptrdiff_t kn = cols - kb < kstep ? cols - kb : kstep;
        const std::ptrdiff_t xs = (kn + 63) / 64 * 64;
        if (copy && !one_block) vnni_rowgroup_copy(x + kb, cols, MR, kn, xs, WU, xu);
        for (int t = 0; t < nv; t += nr) {
          const std::int8_t* wt = w + static_cast<std::ptrdiff_t>(r0 + t) * wstride + kb;
          const int nw = nv - t < nr ? nv - t : nr;  // past the last row: row r0 + nv − 1 again
          if (!copy) {
            vnni_rowgroup_tile<MR, false, WU, false>(x, cols, cols, wt, wstride, nw, pf, d + t);
          } else if (kb == 0) {
            vnni_rowgroup_tile<MR, true, WU, false>(xu, xs, kn, wt, wstride, nw, pf, d + t);
          } else {
            vnni_rowgroup_tile<MR, true, WU, true>(xu, xs, kn, wt, wstride, nw, pf, d + t);
          }
        }
      }
      vnni_bcast_store(a, rq, acc32, d, r0, nv, g, MR, bt, fast);
    }
  }
}

/// This form over batch rows [0, batches) of `args` (batches ≤ args.batches; the caller runs the others): groups
/// of 8 batch rows (8 × 2 tiles), then one group of 4 when exactly 4 remain (4 × 4 tiles); returns the batch rows
/// done. The group of 4 was measured faster than the rowdot form's tiles only for a remainder of 4 (Zen 5, a
/// harness calling `linear_s8`, GMAC/s rowdot → with the group: batch 4 at 1024² 228 → 276, 2048² 225 → 288; batch
/// 12 at 1024² 309 → 348), not for 5 or 6 (1024² 275 → 215, 293 → 240: the 1–2 rows after it read the weights
/// again), 7 (within noise) or 13 (322 → 293). `w`/`wstride`: the weight rows. Preconditions: `validate(args) == ok`,
/// `vnni_rowgroup_applies(args, nullptr)`, CPU has AVX-512 F/BW/VL/VNNI. `acc32`: as in `linear_s8_rowdot_vnni`
/// (then `args.bias` is null).
/// With ≥ 16 weight rows the inputs are first copied (`vnni_rowgroup_copy`, ≤ 4096 columns at a time) so that
/// every input load is aligned — a split input load costs more than a split weight load (8 input loads per
/// step; inputs and weights 16 bytes past a line, as `std::vector` places them: 8 × 4096², 241 against 340
/// GMAC/s in a harness) — and the ⊕ 0x80 leaves the inner loop; with fewer rows the copy would cost more than
/// it saves, and the inputs are read in place.
ARMLOWER_X86_VNNIG inline std::int32_t linear_s8_rowgroup_vnni(const linear_s8_args& args, const std::int8_t* w,
                                                               std::ptrdiff_t wstride, std::int32_t batches,
                                                               vnni_acc32_out* acc32 = nullptr) noexcept {
  const linear_s8_args a = args;
  alignas(64) std::int8_t xu[8 * vnni_rowgroup_kblock];
  const std::int32_t b8 = batches / 8 * 8;
  const bool wu = a.kernel_sum != nullptr;
  if (wu) {
    linear_s8_rowgroup_mr_vnni<8, true>(a, w, wstride, 0, b8, acc32, xu);
  } else {
    linear_s8_rowgroup_mr_vnni<8, false>(a, w, wstride, 0, b8, acc32, xu);
  }
  if (batches - b8 != 4) return b8;
  if (wu) {
    linear_s8_rowgroup_mr_vnni<4, true>(a, w, wstride, b8, b8 + 4, acc32, xu);
  } else {
    linear_s8_rowgroup_mr_vnni<4, false>(a, w, wstride, b8, b8 + 4, acc32, xu);
  }
  return b8 + 4;
}

#undef ARMLOWER_X86_VNNIG
#undef ARMLOWER_X86_VNNIG_INLINE

}  // namespace armlower::kernels::detail
