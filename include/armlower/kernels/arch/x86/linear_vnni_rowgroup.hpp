/// @file armlower/kernels/arch/x86/linear_vnni_rowgroup.hpp
/// AVX-512 VNNI s8 fused linear over ROW-MAJOR weights for groups of 8 batch rows (contract:
/// `kernels/linear_args.hpp`): the form `linear_s8_rowdot_vnni` (`linear_vnni_rowdot.hpp`) takes for the
/// groups of 8 batch rows in the bias form with input_offset = 128 (TFLite int8 input zero point −128), > 4
/// output channels and 128 < K ≤ 65536 (`vnni_rowgroup_applies`). No packed copy of the weights, no stack buffer of the inputs.
///
/// Arithmetic: per 64 columns, u = x ⊕ 0x80 = x + 128 (unsigned, formed on load) and w signed:
/// `vpdpbusd(acc, u, w)` accumulates D = Σ (x + 128)·w = Σ (x + input_offset)·w in 16 int32 lanes
/// (|D| ≤ 255·128·K < 2^31 for K ≤ 65536); a K tail is one zero-masked step (w = 0 there). Then
/// `acc = D + filter_offset·Σx + bias[r] + K·128·filter_offset`, requantized like the batch-lane form
/// (`vnni_bcast_store`: 16 channels in int32 lanes within `vnni_bcast_fast_bound`, else exact int64
/// lanes; or raw int32 accumulators for TOSA CONV2D).
/// Tiles: 8 batch rows × 2 weight rows = 16 zmm accumulators (channel-major), each weight vector used by
/// 8 `vpdpbusd` and each input vector by 2, so a step of 64 columns is 10 loads and 16 `vpdpbusd`; the weights are read once per group of 8 batch rows (the inputs, 8·K bytes, stay in
/// L1/L2). The 16 sums come from one transpose-add tree (`reduce16_epi32`), lanes = batch rows of the two
/// channels, so 8 tiles give the 16-channel block `vnni_bcast_store` takes. Measured on Zen 5 against the
/// batch-lane forms it replaced (`BM_s8_armlower_auto_nobuf`, batch 8): see benchmarks/RESULTS.md,
/// "AVX-512 VNNI without a buffer, batch 8".
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

/// True if `linear_s8_rowdot_vnni(a, w, wstride, c, acc32)` runs this form for its first ⌊batches/8⌋·8
/// batch rows: no folded constants, no kernel_sum, input_offset = 128, ≥ 8 batch rows, > 4 weight rows (narrower
/// layers keep the rowdot form's 4 × 4 tiles: 8 × 4000×4 401–413 GMAC/s against 343–350 in this form, whose inputs
/// are then read in place, unaligned), `vnni_rowgroup_min_cols` ≤ K ≤ 65536 (D exact in int32).
[[nodiscard]] inline bool vnni_rowgroup_applies(const linear_s8_args& a, const std::int64_t* c) noexcept {
  return c == nullptr && a.kernel_sum == nullptr && a.input_offset == 128 && a.batches >= 8 &&
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

/// One step of 64 columns [k, k + n) (TAIL: n < 64, zero-masked loads: w = 0 there). XU: `x` already holds
/// u = x ⊕ 0x80 (the aligned copy), else u is formed here (u = 128 past K in a tail). pf: prefetch the weight
/// rows `vnni_rowgroup_pf` bytes ahead.
template <bool XU, bool TAIL>
ARMLOWER_X86_VNNIG_INLINE inline void vnni_rowgroup_step(__m512i* acc, const std::int8_t* x, std::ptrdiff_t xs,
                                                         const std::int8_t* w0, const std::int8_t* w1, std::ptrdiff_t k,
                                                         std::ptrdiff_t n, bool pf) noexcept {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  if (!TAIL && pf) {  // the weight rows 2 KB ahead, into L1
    _mm_prefetch(reinterpret_cast<const char*>(w0 + k + vnni_rowgroup_pf), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(w1 + k + vnni_rowgroup_pf), _MM_HINT_T0);
  }
  const __m512i v0 = TAIL ? load_prefix8(w0 + k, n) : _mm512_loadu_si512(w0 + k);
  const __m512i v1 = TAIL ? load_prefix8(w1 + k, n) : _mm512_loadu_si512(w1 + k);
#pragma GCC unroll 8
  for (int m = 0; m < 8; ++m) {
    const std::int8_t* xm = x + m * xs + k;
    __m512i u = TAIL ? load_prefix8(xm, n) : _mm512_loadu_si512(xm);
    if constexpr (!XU) u = _mm512_xor_si512(u, flip);
    dpbusd(acc[m], u, v0);
    dpbusd(acc[8 + m], u, v1);
  }
}

/// D of batch rows 0..7 at `x` (rows `xs` bytes apart; XU: already u = x ⊕ 0x80) with weight rows w0 and w1
/// over columns [0, n), n ≤ 65536: d0 lane m = D[m][w0], d1 lane m = D[m][w1] (ADD: added to d). pf: as
/// `vnni_rowgroup_step`.
template <bool XU, bool ADD>
[[gnu::noinline]] ARMLOWER_X86_VNNIG inline void vnni_rowgroup_tile(const std::int8_t* x, std::ptrdiff_t xs,
                                                                    std::ptrdiff_t n, const std::int8_t* w0,
                                                                    const std::int8_t* w1, bool pf, __m256i* d) noexcept {
  __m512i acc[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_setzero_si512();
  std::ptrdiff_t k = 0;
  for (; k + 64 <= n; k += 64) vnni_rowgroup_step<XU, false>(acc, x, xs, w0, w1, k, 64, pf);
  if (k < n) vnni_rowgroup_step<XU, true>(acc, x, xs, w0, w1, k, n - k, false);
  const __m512i s = reduce16_epi32(acc);
  const __m256i lo = ARMLOWER_Z512(extracti64x4_epi64, all4, s, 0), hi = ARMLOWER_Z512(extracti64x4_epi64, all4, s, 1);
  d[0] = ADD ? _mm256_add_epi32(d[0], lo) : lo;  // exact: the total D of a channel is < 2^31 in magnitude
  d[1] = ADD ? _mm256_add_epi32(d[1], hi) : hi;
}

/// xu[m][c] = x[m][c] ⊕ 0x80 for batch rows m < 8 (`x` rows `cols` bytes apart) and columns c < n ≤
/// `vnni_rowgroup_kblock`, rows `xs` = n rounded up to 64 bytes apart (bytes past n are not read).
ARMLOWER_X86_VNNIG inline void vnni_rowgroup_copy(const std::int8_t* x, std::ptrdiff_t cols, std::ptrdiff_t n,
                                                  std::ptrdiff_t xs, std::int8_t* xu) noexcept {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int m = 0; m < 8; ++m) {
    const std::int8_t* src = x + m * cols;
    std::int8_t* dst = xu + m * xs;
    std::ptrdiff_t c = 0;
    for (; c + 64 <= n; c += 64) _mm512_store_si512(dst + c, _mm512_xor_si512(_mm512_loadu_si512(src + c), flip));
    if (c < n) _mm512_store_si512(dst + c, _mm512_xor_si512(load_prefix8(src + c, n - c), flip));
  }
}

/// This form over batch rows [0, batches) of `args` (batches a multiple of 8, ≤ args.batches; the caller
/// runs the others). `w`/`wstride`: the weight rows. Preconditions: `validate(args) == ok`,
/// `vnni_rowgroup_applies(args, nullptr)`, CPU has AVX-512 F/BW/VL/VNNI. `acc32`: as in
/// `linear_s8_rowdot_vnni` (then `args.bias` is null).
/// With ≥ 16 weight rows the inputs are first copied (`vnni_rowgroup_copy`, ≤ 4096 columns at a time) so that
/// every input load is aligned — a split input load costs more than a split weight load (8 input loads per
/// step; inputs and weights 16 bytes past a line, as `std::vector` places them: 8 × 4096², 241 against 340
/// GMAC/s in a harness) — and the ⊕ 0x80 leaves the inner loop; with fewer rows the copy would cost more than
/// it saves, and the inputs are read in place.
ARMLOWER_X86_VNNIG inline void linear_s8_rowgroup_vnni(const linear_s8_args& args, const std::int8_t* w,
                                                       std::ptrdiff_t wstride, std::int32_t batches,
                                                       vnni_acc32_out* acc32 = nullptr) noexcept {
  const linear_s8_args a = args;
  const vnni_requant rq = make_vnni_requant(a);
  const std::ptrdiff_t cols = a.cols;
  const std::int64_t fast_bound = vnni_bcast_fast_bound(a, acc32 != nullptr);
  const bool copy = a.rows >= 16;
  const bool one_block = cols <= vnni_rowgroup_kblock;
  const bool pf = static_cast<std::ptrdiff_t>(a.rows) * cols > vnni_rowgroup_pf_bytes;
  alignas(64) std::int8_t xu[8 * vnni_rowgroup_kblock];
  for (std::int32_t b0 = 0; b0 + 8 <= batches; b0 += 8) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b0) * cols;
    std::int64_t bt[8];
    const bool fast = vnni_group_terms(a, x, cols, 8, fast_bound, bt);
    const std::ptrdiff_t xs1 = (cols + 63) / 64 * 64;
    if (copy && one_block) vnni_rowgroup_copy(x, cols, cols, xs1, xu);
    for (std::int32_t r0 = 0; r0 < a.rows; r0 += 16) {
      const int nv = a.rows - r0 < 16 ? a.rows - r0 : 16;
      __m256i d[16];
      for (int t = nv + (nv & 1); t < 16; ++t) d[t] = _mm256_setzero_si256();
      const std::ptrdiff_t kstep = copy ? vnni_rowgroup_kblock : cols;
      for (std::ptrdiff_t kb = 0; kb < cols; kb += kstep) {
        const std::ptrdiff_t kn = cols - kb < kstep ? cols - kb : kstep;
        const std::ptrdiff_t xs = (kn + 63) / 64 * 64;
        if (copy && !one_block) vnni_rowgroup_copy(x + kb, cols, kn, xs, xu);
        for (int t = 0; t < nv; t += 2) {
          const std::int8_t* w0 = w + static_cast<std::ptrdiff_t>(r0 + t) * wstride + kb;
          const std::int8_t* w1 = t + 1 < nv ? w0 + wstride : w0;  // past the last row: row r0 + t again
          if (!copy) {
            vnni_rowgroup_tile<false, false>(x, cols, cols, w0, w1, pf, d + t);
          } else if (kb == 0) {
            vnni_rowgroup_tile<true, false>(xu, xs, kn, w0, w1, pf, d + t);
          } else {
            vnni_rowgroup_tile<true, true>(xu, xs, kn, w0, w1, pf, d + t);
          }
        }
      }
      vnni_bcast_store(a, rq, acc32, d, r0, nv, b0, 8, bt, fast);
    }
  }
}

#undef ARMLOWER_X86_VNNIG
#undef ARMLOWER_X86_VNNIG_INLINE

}  // namespace armlower::kernels::detail
