/// @file armlower/kernels/arch/x86/linear_vnni_rowdot.hpp
/// AVX-512 VNNI s8 fused linear over ROW-MAJOR weights (contract: `kernels/linear_args.hpp`): the
/// `x86_avx512_vnni` path of `linear_s8` (no packing step), and the narrow-layer (< 16 output
/// channels) form of `linear_s8_packed`. Called only after a cpuid check (`x86_has_avx512_vnni_vl`).
///
/// Arithmetic: per 64 columns, `u = w ⊕ 0x80 = w + 128` (unsigned, formed on load) and the signed
/// input x: `vpdpbusd(acc, u, x)` accumulates D = Σ (w + 128)·x = Σ x·w + 128·Σ x in 16 int32 lanes
/// (|D| ≤ 32640·K < 2^31 for K ≤ 65536; longer rows in exact passes of 65536 columns summed in
/// int64); K tails are zero-masked loads of both operands (u = 0 there). Then, like the packed form,
/// `acc = D + (filter_offset − 128)·Σx + c[r]` with `c[r]` = kernel_sum[r], or
/// bias[r] + input_offset·Σw + K·input_offset·filter_offset where Σw comes from `vpsadbw(u, 0)`
/// (= Σu = Σw + 128·K, accumulated in the same pass, only when the bias form needs it) or from
/// the caller (`c != nullptr`: the packed form's folded constants).
/// Bias form with input_offset = 128 (TFLite int8 input zero point −128), the other operand order
/// needs no Σw at all: u = x ⊕ 0x80 = x + 128 (once per input vector and step), w signed, so
/// D = Σ (x + 128)·w = Σ (x + input_offset)·w and `acc = D + filter_offset·Σx + bias + K·128·filter_offset`.
/// Tiles: MR batch rows × NR weight rows of int32 accumulators in zmm registers (1×8, 2×8, 3×8; ≤ 4 rows:
/// 1×4 … 4×4), weight rows outer and batch rows inner,
/// each weight vector loaded once per MR rows; the NR·16 lanes are reduced by a transpose-add tree
/// and requantized 8 channels at a time (`requant8_vnni`, exact int64 lanes).
/// One batch row in the kernel_sum form or the bias form with input_offset 128, within the int32 bound of
/// `vnni_rowdot8_fast_bound`: the groups of 8 channels run `vnni_rowdot8_fast` — the same steps and tree, the 8 sums
/// kept in a register and requantized there in int32 lanes (`requant8_fast_s8_avx2`), one group behind the dot
/// products, with no out-of-line K loop or stack round trip per tile (1 × 64² 137 → 56 ns on Zen 5).
/// Source of the semantics: CMSIS-NN `arm_fully_connected_s8` / `arm_nn_vec_mat_mult_t_s8`, TFLite
/// reference `FullyConnected` (int8). Firmware-clean (host only): noexcept, no heap, no static data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/arch/x86/linear_avx2_pairs.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_reduce.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_rowgroup.hpp>

namespace armlower::kernels::detail {

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIR __attribute__((target("avx2")))
#define ARMLOWER_X86_VNNIR_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_VNNIR __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#define ARMLOWER_X86_VNNIR_INLINE __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni"), always_inline))
#endif

/// Per-call state of the row-major kernel.
struct vnni_rowdot_call {
  const linear_s8_args* a;
  const std::int8_t* w;     // weights, row r at w + r·wstride
  std::ptrdiff_t wstride;
  const std::int64_t* c;    // folded row constants (packed form) or null
  bool need_wsum;           // bias form with input_offset ≠ 0 and no c: Σw via vpsadbw
  bool x_unsigned;          // bias form with input_offset = 128 and no c: u = x + 128, w signed
  vnni_requant rq;
  vnni_acc32_out* acc32 = nullptr;  // raw int32 accumulator output (TOSA CONV2D) instead of requantization
};

/// One step of 64 columns [k, k + n) of `vnni_rowdot_kernel` (TAIL: n < 64, zero-masked loads of both
/// operands; `flipw` is 0x80 on the n real columns, so u = 0 beyond them and they add nothing to D or
/// Σu; with XU the x beyond K become 128 against w = 0). WRAP: the wrap step of rows of k = K columns with n =
/// `vnni_rowdot_head` > 0 (`load_wrap64`: columns [0, n) and [K − 64 + n, K), all real; flipw all 0x80). WS (not with
/// XU): sad[i] += Σu by `vpsadbw` (int64 lanes).
template <int MR, int NR, bool WS, bool XU, bool TAIL, bool WRAP = false>
ARMLOWER_X86_VNNIR_INLINE inline void vnni_rowdot_step(__m512i* acc, __m512i* sad, const std::int8_t* const* xr,
                                                       const std::int8_t* const* wr, std::ptrdiff_t k,
                                                       std::ptrdiff_t n, __m512i flipw) noexcept {
  static_assert(!(TAIL && WRAP));
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  auto load = [k, n](const std::int8_t* p) ARMLOWER_X86_VNNIR_INLINE {
    return WRAP ? load_wrap64(p, k, n) : TAIL ? load_prefix8(p + k, n) : _mm512_loadu_si512(p + k);
  };
  __m512i xv[MR];
#pragma GCC unroll 8
  for (int m = 0; m < MR; ++m) {
    xv[m] = load(xr[m]);
    if constexpr (XU) xv[m] = _mm512_xor_si512(xv[m], flip);
  }
#pragma GCC unroll 8
  for (int i = 0; i < NR; ++i) {
    const __m512i wl = load(wr[i]);
    const __m512i u = XU ? wl : _mm512_xor_si512(wl, flipw);
    if constexpr (WS && !XU) sad[i] = _mm512_add_epi64(sad[i], _mm512_sad_epu8(u, _mm512_setzero_si512()));
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) {
      if constexpr (XU && MR == 1) {
        dpbusd_m(acc[m * NR + i], xv[m], u);  // unsigned x + 128, signed w (w used once)
      } else if constexpr (XU) {
        dpbusd(acc[m * NR + i], xv[m], u);  // unsigned x + 128, signed w
      } else {
        dpbusd(acc[m * NR + i], u, xv[m]);  // unsigned w + 128, signed x
      }
    }
  }
}

/// Rows [r0, r0 + NR) (clamped to the last row: extra rows are computed, not stored) × batch rows
/// [m0, m0 + MR), columns [k0, k1), k1 − k0 ≤ 65536: D into d[m][i] (int32) and, if WS, Σu into ws[i].
template <int MR, int NR, bool WS, bool XU>
[[gnu::noinline]] ARMLOWER_X86_VNNIR inline void vnni_rowdot_kernel(const vnni_rowdot_call& s, std::int32_t r0,
                                                                    std::int32_t m0, std::ptrdiff_t k0,
                                                                    std::ptrdiff_t k1, std::int32_t* d,
                                                                    std::int64_t* ws) noexcept {
  static_assert(!(WS && XU), "the tiles take Σu by vpsadbw in the other operand order");
  const linear_s8_args& a = *s.a;
  const std::int8_t* wr[NR];
#pragma GCC unroll 8
  for (int i = 0; i < NR; ++i) {
    const std::int32_t r = r0 + i < a.rows ? r0 + i : a.rows - 1;
    wr[i] = s.w + static_cast<std::ptrdiff_t>(r) * s.wstride;
  }
  const std::int8_t* xr[MR];
#pragma GCC unroll 8
  for (int m = 0; m < MR; ++m) xr[m] = a.input + static_cast<std::ptrdiff_t>(m0 + m) * a.cols;
  __m512i acc[MR * NR];
  __m512i sad[WS ? NR : 1];
#pragma GCC unroll 32
  for (int i = 0; i < MR * NR; ++i) acc[i] = _mm512_setzero_si512();
#pragma GCC unroll 8
  for (int i = 0; i < (WS ? NR : 1); ++i) sad[i] = _mm512_setzero_si512();
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i zero = _mm512_setzero_si512();
  // whole rows off a 64-byte line: the whole steps from the first line boundary, then the wrap step (`vnni_rowdot_head`)
  const std::ptrdiff_t head = k0 == 0 && k1 == a.cols ? vnni_rowdot_head(s.w, s.wstride, a.cols) : 0;
  std::ptrdiff_t k = k0 + head;
  for (; k + 64 <= k1; k += 64) vnni_rowdot_step<MR, NR, WS, XU, false>(acc, sad, xr, wr, k, 64, flip);
  if (head != 0) {
    vnni_rowdot_step<MR, NR, WS, XU, false, true>(acc, sad, xr, wr, a.cols, head, flip);
  } else if (k < k1) {  // tail: zero-masked loads; u is masked too, so the extra columns add nothing to D or Σu
    const std::ptrdiff_t n = k1 - k;
    alignas(64) std::uint8_t fl[64];
    std::memset(fl, 0x80, sizeof fl);
    vnni_rowdot_step<MR, NR, WS, XU, true>(acc, sad, xr, wr, k, n, load_prefix8(fl, n));  // 0x80 on the n real columns
  }
  static_assert(NR == 8 || NR == 4);
#pragma GCC unroll 8
  for (int m = 0; m < MR; ++m) {
    __m512i v8[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) v8[i] = i < NR ? acc[m * NR + i] : zero;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + std::ptrdiff_t{8} * m), reduce8_epi32(v8));
  }
  if constexpr (WS) {
    __m512i v8[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) v8[i] = i < NR ? sad[i] : zero;
    _mm512_storeu_si512(ws, reduce8_epi64(v8));
  }
}

/// One MR × NR tile over all columns, requantized and stored.
template <int MR, int NR>
ARMLOWER_X86_VNNIR inline void vnni_rowdot_tile(const vnni_rowdot_call& s, std::int32_t r0, std::int32_t m0,
                                                const std::int64_t* bt) noexcept {
  const linear_s8_args& a = *s.a;
  const int nv = a.rows - r0 < NR ? a.rows - r0 : NR;
  const auto valid = static_cast<__mmask8>((1u << nv) - 1u);
  alignas(64) std::int32_t d[MR * 8];
  alignas(64) std::int64_t ws[8] = {};
  __m512i dv[MR];
  if (a.cols <= vnni_s8_block) {  // one exact pass
    if (s.x_unsigned) {
      vnni_rowdot_kernel<MR, NR, false, true>(s, r0, m0, 0, a.cols, d, nullptr);
    } else if (s.need_wsum) {
      vnni_rowdot_kernel<MR, NR, true, false>(s, r0, m0, 0, a.cols, d, ws);
    } else {
      vnni_rowdot_kernel<MR, NR, false, false>(s, r0, m0, 0, a.cols, d, nullptr);
    }
    for (int m = 0; m < MR; ++m) dv[m] = load8_i32_as_i64(all8, d + std::ptrdiff_t{8} * m);
  } else {  // exact int32 passes of 65536 columns summed in int64
    alignas(64) std::int64_t dsum[MR * 8] = {};
    for (std::ptrdiff_t k0 = 0; k0 < a.cols; k0 += vnni_s8_block) {
      const std::ptrdiff_t k1 = k0 + vnni_s8_block < a.cols ? k0 + vnni_s8_block : a.cols;
      alignas(64) std::int64_t wpart[8] = {};
      if (s.x_unsigned) {
        vnni_rowdot_kernel<MR, NR, false, true>(s, r0, m0, k0, k1, d, nullptr);
      } else if (s.need_wsum) {
        vnni_rowdot_kernel<MR, NR, true, false>(s, r0, m0, k0, k1, d, wpart);
      } else {
        vnni_rowdot_kernel<MR, NR, false, false>(s, r0, m0, k0, k1, d, nullptr);
      }
      for (int i = 0; i < 8; ++i) ws[i] += wpart[i];
      for (int i = 0; i < MR * 8; ++i) dsum[i] += d[i];
    }
    for (int m = 0; m < MR; ++m) dv[m] = _mm512_load_si512(dsum + 8 * m);
  }
  // row constants c[r] (see file comment), 8 int64 lanes
  __m512i cv;
  if (s.c != nullptr) {
    cv = load_prefix8(s.c + r0, std::ptrdiff_t{8} * nv);
  } else if (a.kernel_sum != nullptr) {
    cv = load8_i32_as_i64(valid, a.kernel_sum + r0);
  } else {
    cv = _mm512_add_epi64(a.bias != nullptr ? load8_i32_as_i64(valid, a.bias + r0) : _mm512_setzero_si512(),
                          _mm512_set1_epi64(static_cast<std::int64_t>(a.cols) * a.input_offset * a.filter_offset));
    if (s.need_wsum) {  // + input_offset·Σw, Σw = Σu − 128·K (|Σw| ≤ 128·K: exact int64 lanes)
      alignas(64) std::int64_t c[8];
      _mm512_store_si512(c, cv);
      for (int i = 0; i < 8; ++i) c[i] += static_cast<std::int64_t>(a.input_offset) * (ws[i] - std::int64_t{128} * a.cols);
      cv = _mm512_load_si512(c);
    }
  }
  if (s.acc32 != nullptr) {  // TOSA CONV2D: int32 accumulator + bias, REQUIRE both in int32 (int64 lanes)
    vnni_acc32_out& o = *s.acc32;
    const __m512i bv = acc32_bias8(o, r0, valid);
    __mmask8 bad = 0;
    for (int m = 0; m < MR; ++m) {
      const __m512i v = _mm512_add_epi64(_mm512_add_epi64(dv[m], cv), _mm512_set1_epi64(bt[m]));
      bad |= store_acc32x8(o.out + static_cast<std::ptrdiff_t>(m0 + m) * a.rows + r0, v, bv, nv);
    }
    o.range_error = o.range_error || (bad & valid) != 0;
    return;
  }
  for (int m = 0; m < MR; ++m) {
    const __m512i v = _mm512_add_epi64(_mm512_add_epi64(dv[m], cv), _mm512_set1_epi64(bt[m]));
    store_prefix8(a.output + static_cast<std::ptrdiff_t>(m0 + m) * a.rows + r0, requant8_vnni(a, s.rq, v, r0, nv), nv);
  }
}

/// Bytes ahead in each of its 8 weight rows that `vnni_rowdot8_sum` prefetches into L1 per 64 columns when the weights
/// exceed `vnni_rowgroup_pf_bytes`. Measured on Zen 5 (`BM_s8_armlower_auto_nobuf`, 1 × 4096², rounds alternating with the
/// form without it, mean GMAC/s): 1024 bytes 84–86 against 74 (512 bytes the same, 2048 bytes 78); with input_offset 5 90
/// against 70; 1 × 2048² (8 MiB) unchanged within noise.
inline constexpr std::ptrdiff_t vnni_rowdot8_pf = 1024;

/// D of weight rows r0 .. r0+7 (row r at w + r·wstride) with input row x over columns [0, cols), cols ≤
/// `vnni_s8_block` (one exact pass), as 8 int32 lanes in channel order: `vnni_rowdot_step` per 64 columns (XU: u = x ⊕ 0x80,
/// w signed; else u = w ⊕ 0x80, x signed), the K tail zero-masked, then `reduce8_epi32`. SW (with XU; wmul ∈ [−255, 0],
/// input_offset ∈ [−127, 127]): + wmul·Σw of each row, as − Σ (−wmul)·w by `vpdpbusd` with −wmul the unsigned operand
/// and each weight vector loaded once for both (a second memory operand split two cache lines again when the rows are not
/// 64-byte aligned: 1 × 256² with input_offset 5, rows 16 bytes past a line, 78 → 122 GMAC/s on Zen 5). Int32 lanes
/// wrap in between; the caller's bound keeps the total an exact int32. PF: each step prefetches the 8 rows
/// `vnni_rowdot8_pf` bytes ahead into L1. `head` (`vnni_rowdot_head`; cols a multiple of 64 when it is not 0): the whole
/// steps start at column `head`, where the rows are 64-byte aligned (no load splits two cache lines), and the first
/// `head` columns run last with the last 64 − head ones as one step (`load_wrap64`); the sums are the same integers in
/// any column order.
template <bool XU, bool SW, bool PF>
ARMLOWER_X86_VNNIR_INLINE inline __m256i vnni_rowdot8_sum(const std::int8_t* x, const std::int8_t* w, std::ptrdiff_t wstride,
                                                         std::ptrdiff_t cols, std::int32_t wmul, std::ptrdiff_t head) noexcept {
  static_assert(XU || !SW);
  const std::int8_t* wr[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) wr[i] = w + i * wstride;
  __m512i acc[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) acc[i] = _mm512_setzero_si512();
  std::ptrdiff_t k = 0;
  if constexpr (SW) {  // wmul ∈ [−255, 0]: D + wmul·Σw = Σ u·w − Σ (−wmul)·w, −wmul unsigned
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    const __m512i nm = _mm512_set1_epi8(static_cast<char>(-wmul));
    __m512i acc2[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) acc2[i] = _mm512_setzero_si512();
    for (k = head; k + 64 <= cols; k += 64) {
      const __m512i u = _mm512_xor_si512(_mm512_loadu_si512(x + k), flip);
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        if constexpr (PF) _mm_prefetch(reinterpret_cast<const char*>(wr[i] + k + vnni_rowdot8_pf), _MM_HINT_T0);
        const __m512i wl = _mm512_loadu_si512(wr[i] + k);
        dpbusd(acc[i], u, wl);
        dpbusd(acc2[i], nm, wl);
      }
    }
    if (k < cols || head > 0) {  // the K tail (w = 0 beyond K), or the wrap step: [0, head) ++ [cols − 64 + head, cols)
      const std::ptrdiff_t n = cols - k;
      const __m512i u = _mm512_xor_si512(head > 0 ? load_wrap64(x, cols, head) : load_prefix8(x + k, n), flip);
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        const __m512i wl = head > 0 ? load_wrap64(wr[i], cols, head) : load_prefix8(wr[i] + k, n);
        dpbusd(acc[i], u, wl);
        dpbusd(acc2[i], nm, wl);
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) acc[i] = _mm512_sub_epi32(acc[i], acc2[i]);
    return reduce8_epi32(acc);
  } else {
    const std::int8_t* xr[1] = {x};
    for (k = head; k + 64 <= cols; k += 64) {
      if constexpr (PF) {
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i) _mm_prefetch(reinterpret_cast<const char*>(wr[i] + k + vnni_rowdot8_pf), _MM_HINT_T0);
      }
      vnni_rowdot_step<1, 8, false, XU, false>(acc, nullptr, xr, wr, k, 64, _mm512_set1_epi8(static_cast<char>(0x80)));
    }
    if (head > 0) {  // the wrap step: columns [0, head) and [cols − 64 + head, cols), all real
      vnni_rowdot_step<1, 8, false, XU, false, true>(acc, nullptr, xr, wr, cols, head, _mm512_set1_epi8(static_cast<char>(0x80)));
    } else if (k < cols) {
      alignas(64) std::uint8_t fl[64];
      std::memset(fl, 0x80, sizeof fl);
      vnni_rowdot_step<1, 8, false, XU, true>(acc, nullptr, xr, wr, k, cols - k, load_prefix8(fl, cols - k));
    }
    return reduce8_epi32(acc);
  }
}

/// The bound under which `linear_s8_rowdot_vnni`'s in-register form (`vnni_rowdot8_fast`) runs a call of no folded constants
/// (c null, no raw accumulators): K ≤ `vnni_s8_block`, ≥ 8 output channels, every shift ≤ −1, and cmax + 32640·K < 2^31
/// with cmax = max |kernel_sum| (the kernel_sum form, D = Σ (w + 128)·x), or in the bias form max |bias| +
/// |K·input_offset·filter_offset| + |input_offset − 128|·128·K (D = Σ (x + 128)·w and the Σw term, when input_offset ∉
/// {0, 128}; input_offset 0 takes the kernel_sum form's order with c = bias): the row constants c.
/// Returns the largest |Σx term| a batch row may add with v = D + c + Σx term still an exact int32 (then
/// `requant8_fast_s8_avx2` gives the same integers as `requantize_row_s8`: its int32-lane proof), or −1 where the form does
/// not apply.
ARMLOWER_X86_VNNIR inline std::int64_t vnni_rowdot8_fast_bound(const linear_s8_args& a) noexcept {
  if (a.rows < 8 || a.cols > vnni_s8_block) return -1;
  for (std::int32_t i = 0; i < (a.per_channel ? a.rows : 1); ++i) {
    if (a.shift[i] > -1) return -1;
  }
  std::int64_t cmax = pairs_row_constant_max(a);
  if (a.kernel_sum == nullptr) {
    const std::int64_t kio = std::int64_t{a.cols} * a.input_offset * a.filter_offset;
    const std::int64_t d = a.input_offset == 0 ? 0 : a.input_offset - 128;  // input_offset 0: the kernel_sum order
    cmax += (kio < 0 ? -kio : kio) + (d < 0 ? -d : d) * 128 * a.cols;
  }
  const std::int64_t room = INT32_MAX - cmax - std::int64_t{32640} * a.cols;
  return room < 0 ? -1 : room;
}

/// Output channels 0 .. 8·(rows / 8) − 1 of batch row b for a call within `vnni_rowdot8_fast_bound` (bt: that row's Σx term,
/// |bt| within the bound): each group's 8 D (`vnni_rowdot8_sum`) + c + bt requantized in registers
/// (`store8_fast_group_s8_avx2`; `kt`: `pairs_tensor_consts`), one group behind the dot products, as
/// `rowdot8_groups_fast_s8_avx2` (its AVX2 counterpart). XU (the bias form): D = Σ (x + 128)·w, c = bias +
/// K·input_offset·filter_offset + (input_offset − 128)·Σw (SW: input_offset ≠ 128, Σw summed with D), bt = filter_offset·Σx;
/// else (the kernel_sum form, or the bias form with input_offset 0) D = Σ (w + 128)·x, c = kernel_sum (bias), bt =
/// (filter_offset − 128)·Σx.
template <bool XU, bool SW>
ARMLOWER_X86_VNNIR inline void vnni_rowdot8_fast(const linear_s8_args& a, bool dbl, const pairs_fast_consts& kt, std::int32_t b,
                                                 std::int64_t bt) noexcept {
  const std::ptrdiff_t rows = a.rows, cols = a.cols, groups = rows / 8;
  const std::int8_t* x = a.input + b * cols;
  const std::int8_t* weights = a.weights;
  std::int8_t* y = a.output + b * rows;
  const pairs_fast_out o = make_pairs_fast_out(a);
  const std::int64_t cfix = a.kernel_sum != nullptr ? 0 : std::int64_t{a.input_offset} * cols * a.filter_offset;
  const __m256i add = _mm256_set1_epi32(static_cast<std::int32_t>(bt + cfix));  // |bt + cfix| ≤ the bound: int32
  const std::int32_t wmul = a.input_offset - 128;
  const pairs_fast_consts k = kt;  // a local copy: the int8 output stores cannot alias it
  const std::ptrdiff_t head = vnni_rowdot_head(weights, cols, cols);
  auto run = [&]<bool PF>() ARMLOWER_X86_VNNIR_INLINE {
    __m256i prev = vnni_rowdot8_sum<XU, SW, PF>(x, weights, cols, cols, wmul, head);
    for (std::ptrdiff_t g = 1; g <= groups; ++g) {
      const __m256i next = g < groups ? vnni_rowdot8_sum<XU, SW, PF>(x, weights + g * 8 * cols, cols, cols, wmul, head) : prev;
      store8_fast_group_s8_avx2(a, k, o, dbl, add, prev, static_cast<std::int32_t>(8 * (g - 1)), y);
      prev = next;
    }
  };
  if (rows * cols > vnni_rowgroup_pf_bytes) {
    run.template operator()<true>();
  } else {
    run.template operator()<false>();
  }
}

/// Row-major AVX-512 VNNI s8 fused linear. `w`/`wstride`: the weight rows (a.weights, a.cols for
/// `linear_s8`); `c`: folded row constants or null. Preconditions: `validate(a) == ok`, CPU has
/// AVX-512 F/BW/VL/VNNI. Where `vnni_rowgroup_applies` (≥ 8 or 4 batch rows, no folded constants,
/// > 4 rows, K ≤ 65536) the groups of 8 batch rows (and a last one of exactly 4) run the row-group form
/// (`linear_vnni_rowgroup.hpp`); the other batch rows this one.
/// `acc32`: write raw int32 accumulators + bias there instead of requantizing (`vnni_acc32_out`;
/// then `args.bias`/`kernel_sum` must be null and `c` null).
ARMLOWER_X86_VNNIR inline void linear_s8_rowdot_vnni(const linear_s8_args& args, const std::int8_t* w,
                                                     std::ptrdiff_t wstride, const std::int64_t* c,
                                                     vnni_acc32_out* acc32 = nullptr) noexcept {
  if (vnni_rowgroup_applies(args, c)) {  // groups of 8 batch rows, and 4
    const std::int32_t b8 = linear_s8_rowgroup_vnni(args, w, wstride, args.batches, acc32);
    if (b8 == args.batches) return;
    linear_s8_args rest = args;  // the last < 8 (< 4) batch rows: this form (rows × K bytes read again)
    rest.batches = args.batches - b8;
    rest.input += static_cast<std::ptrdiff_t>(b8) * args.cols;
    if (acc32 == nullptr) {
      rest.output += static_cast<std::ptrdiff_t>(b8) * args.rows;
      linear_s8_rowdot_vnni(rest, w, wstride, c, nullptr);
      return;
    }
    vnni_acc32_out o = *acc32;
    o.out += static_cast<std::ptrdiff_t>(b8) * args.rows;
    linear_s8_rowdot_vnni(rest, w, wstride, c, &o);
    acc32->range_error = acc32->range_error || o.range_error;
    return;
  }
  const linear_s8_args a = args;
  vnni_rowdot_call s;
  s.a = &a;
  s.acc32 = acc32;
  s.w = w;
  s.wstride = wstride;
  s.c = c;
  const bool bias_form = c == nullptr && a.kernel_sum == nullptr;
  s.x_unsigned = bias_form && a.input_offset == 128;
  s.need_wsum = bias_form && a.input_offset != 0 && !s.x_unsigned;
  s.rq = make_vnni_requant(a);
  // one batch row within the int32 bounds: the in-register form for the groups of 8 channels (the bias form in the
  // operand order of input_offset 128, with Σw for other offsets in TFLite's [−127, 127]), this one's tile for the rest
  const std::int64_t room = a.batches == 1 && acc32 == nullptr && c == nullptr &&
                                     (!s.need_wsum || (a.input_offset >= -127 && a.input_offset < 128))
                                 ? vnni_rowdot8_fast_bound(a)
                                 : -1;
  if (room >= 0) {
    const bool xu = bias_form && a.input_offset != 0;
    const std::int64_t sx = a.filter_offset == 0 && s.x_unsigned ? 0 : sum_s8_vnni(a.input, a.cols);  // Σx
    std::int64_t bt = (xu ? a.filter_offset : a.filter_offset - 128) * sx;
    if ((bt < 0 ? -bt : bt) <= room) {
      const pairs_fast_consts kt = pairs_tensor_consts(a, s.rq.dbl, true);
      if (!xu) {  // the kernel_sum form, or the bias form with input_offset 0 (c = bias)
        vnni_rowdot8_fast<false, false>(a, s.rq.dbl, kt, 0, bt);
      } else if (s.x_unsigned) {
        vnni_rowdot8_fast<true, false>(a, s.rq.dbl, kt, 0, bt);
      } else {
        vnni_rowdot8_fast<true, true>(a, s.rq.dbl, kt, 0, bt);
      }
      // the tile's operand order: Σx term (filter_offset − 128)·Σx unless x_unsigned
      std::int64_t bt_tile = (s.x_unsigned ? a.filter_offset : a.filter_offset - 128) * sx;
      if (a.rows % 8 != 0) vnni_rowdot_tile<1, 8>(s, a.rows / 8 * 8, 0, &bt_tile);
      return;
    }
  }
  for (std::int32_t mb = 0; mb < a.batches; mb += 64) {
    const std::int32_t me = mb + 64 < a.batches ? mb + 64 : a.batches;
    std::int64_t bt[64];
    for (std::int32_t m = mb; m < me; ++m) {
      const std::int64_t f = s.x_unsigned ? a.filter_offset : a.filter_offset - 128;
      bt[m - mb] = f == 0 ? 0 : f * sum_s8_vnni(a.input + static_cast<std::ptrdiff_t>(m) * a.cols, a.cols);
    }
    // Weight rows outer, batch rows inner: each NR-row weight tile (NR·K bytes) is read from memory once
    // and reused from L1 by every batch group (the batch rows stay in L1/L2). 3 × 8 tiles (24
    // accumulators + 3 input + weight vectors fit the 32 zmm registers; every reduction tree is full);
    // layers of ≤ 4 rows: 4 × 4 (8-row tiles would compute clamped duplicates).
    if (a.rows > 4) {
      const std::int32_t m3 = mb + (me - mb) / 3 * 3;
      for (std::int32_t r0 = 0; r0 < a.rows; r0 += 8) {
        for (std::int32_t g = mb; g < m3; g += 3) vnni_rowdot_tile<3, 8>(s, r0, g, bt + (g - mb));
        if (me - m3 == 1) vnni_rowdot_tile<1, 8>(s, r0, m3, bt + (m3 - mb));
        if (me - m3 == 2) vnni_rowdot_tile<2, 8>(s, r0, m3, bt + (m3 - mb));
      }
    } else {
      const std::int32_t m4 = mb + (me - mb) / 4 * 4;
      for (std::int32_t g = mb; g < m4; g += 4) vnni_rowdot_tile<4, 4>(s, 0, g, bt + (g - mb));
      if (me - m4 == 1) vnni_rowdot_tile<1, 4>(s, 0, m4, bt + (m4 - mb));
      if (me - m4 == 2) vnni_rowdot_tile<2, 4>(s, 0, m4, bt + (m4 - mb));
      if (me - m4 == 3) vnni_rowdot_tile<3, 4>(s, 0, m4, bt + (m4 - mb));
    }
  }
}

#undef ARMLOWER_X86_VNNIR
#undef ARMLOWER_X86_VNNIR_INLINE

}  // namespace armlower::kernels::detail
