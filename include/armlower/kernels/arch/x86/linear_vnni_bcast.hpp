/// @file armlower/kernels/arch/x86/linear_vnni_bcast.hpp
/// AVX-512 VNNI s8 fused linear over ROW-MAJOR weights with the BATCH in the vector lanes (contract:
/// `kernels/linear_args.hpp`): the form `linear_s8_rowdot_vnni` (`linear_vnni_rowdot.hpp`) takes for
/// groups of 8 batch rows in the bias form with input_offset = 128 (TFLite int8 input zero point
/// −128) and K ≤ 1024 (`vnni_bcast_applies`) where the row-group form (`linear_vnni_rowgroup.hpp`,
/// K > 128) does not apply; its requantization (`vnni_bcast_store`) serves both. No packed copy of the
/// weights and no horizontal reduction: each weight int32 is read once per 8 batch rows and broadcast by
/// the `vpdpbusd` itself.
///
/// Layout: for a group of 8 batch rows the inputs are transposed once into a fixed stack buffer
/// `xt[g][m]` (one int32 = columns 4g..4g+3 of batch row m, stored as u = x ⊕ 0x80 = x + 128,
/// unsigned), 32 bytes per k-group. Then for every weight row r and k-group g:
/// `vpdpbusd(acc_r, xt[g], broadcast(w[r][4g..4g+3]))` (`{1to8}` memory operand, w signed)
/// accumulates in lane m: D[m][r] = Σ (x + 128)·w = Σ (x + input_offset)·w, so
/// `acc = D + filter_offset·Σx + bias[r] + K·128·filter_offset` (as the rowdot form with x unsigned);
/// |D| ≤ 255·128·K < 2^31. A K tail of 1..3 columns is one extra k-group whose weight int32 is built
/// from the real bytes and zeros (x bytes past K are then 0x80 against zero weights).
/// Tiles: 16 weight rows (16 ymm accumulators, lanes = batch rows; a last partial tile is copied to a
/// 16-row stack tile 64 columns at a time, its last row repeated). The accumulators are transposed
/// (8 × 8 int32) to batch-row-major order and requantized like the packed form: 16 channels in int32
/// lanes when every shift ≤ −1 and max|c| + |filter_offset·Σx| + 32640·K < 2^31
/// (`vnni_store_panel_fast`), else 8 channels in exact int64 lanes (`requant8_vnni`); or written as
/// raw int32 (`vnni_acc32_out`, TOSA CONV2D).
/// Stack: 8 KB (`xt`) + 1 KB (last tile), host x86 only. Firmware-clean otherwise: noexcept, no heap,
/// no static data. Source of the semantics: CMSIS-NN `arm_fully_connected_s8` /
/// `arm_nn_vec_mat_mult_t_s8`, TFLite reference `FullyConnected` (int8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>

namespace armlower::kernels::detail {

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIB __attribute__((target("avx2")))
#define ARMLOWER_X86_VNNIB_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_VNNIB __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#define ARMLOWER_X86_VNNIB_INLINE __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni"), always_inline))
#endif

/// Most columns of this form: the transposed inputs (8 batch rows × 1024 bytes = 8 KB of stack).
inline constexpr std::int32_t vnni_bcast_kblock = 1024;
/// Weight rows per tile (ymm accumulators).
inline constexpr std::int32_t vnni_bcast_nr = 16;
/// Largest weight row stride (so K ≤ 1024 = `vnni_bcast_kblock`). Measured on Zen 4 at batch 8
/// against the rowdot form: faster at 64², 256², 1024²; not faster at 2048² (blocks of 1024 columns
/// with int32 partials, within noise); at 4096² 16 rows 4 KB apart share one 8-way L1 set and evict each
/// other before their 16 k-groups are used (2× slower, also with the rows copied to the stack).
inline constexpr std::ptrdiff_t vnni_bcast_max_stride = 1024;

/// True if `linear_s8_rowdot_vnni(a, w, wstride, c, acc32)` runs this form for its first
/// ⌊batches/8⌋·8 batch rows: no folded constants, no kernel_sum, input_offset = 128, ≥ 8 batch rows
/// (each weight int32 is broadcast once per 8 lanes; with fewer rows the rowdot form is faster, measured
/// at batch 2 and 4), > 4 weight rows (narrower layers keep the rowdot 4 × 4 tiles), row stride
/// ≤ `vnni_bcast_max_stride`.
[[nodiscard]] inline bool vnni_bcast_applies(const linear_s8_args& a, std::ptrdiff_t wstride,
                                             const std::int64_t* c) noexcept {
  return c == nullptr && a.kernel_sum == nullptr && a.input_offset == 128 && a.batches >= 8 && a.rows > 4 &&
         wstride <= vnni_bcast_max_stride;
}

/// 8 int32 → 8 int64 lanes (`vpmovsxdq`; element copies under SIMDe 0.7, which lacks the 256 → 512 form).
ARMLOWER_X86_VNNIB_INLINE inline __m512i cvt8_i32_i64(__m256i v) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(32) std::int32_t x[8];
  alignas(64) std::int64_t y[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(x), v);
  for (int i = 0; i < 8; ++i) y[i] = x[i];
  return _mm512_load_si512(y);
#else
  return _mm512_maskz_cvtepi32_epi64(all8, v);
#endif
}

/// [lo, hi] as one vector of 16 int32.
ARMLOWER_X86_VNNIB_INLINE inline __m512i join256(__m256i lo, __m256i hi) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int32_t x[16];
  _mm256_store_si256(reinterpret_cast<__m256i*>(x), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(x + 8), hi);
  return _mm512_load_si512(x);
#else
  return _mm512_maskz_inserti64x4(all8, _mm512_maskz_broadcast_i64x4(all8, lo), hi, 1);
#endif
}

/// 8 × 8 int32 transpose: out[j] lane i = in[i] lane j.
ARMLOWER_X86_VNNIB_INLINE inline void transpose8x8_epi32(const __m256i* in, __m256i* out) noexcept {
  const __m256i t0 = _mm256_unpacklo_epi32(in[0], in[1]), t1 = _mm256_unpackhi_epi32(in[0], in[1]);
  const __m256i t2 = _mm256_unpacklo_epi32(in[2], in[3]), t3 = _mm256_unpackhi_epi32(in[2], in[3]);
  const __m256i t4 = _mm256_unpacklo_epi32(in[4], in[5]), t5 = _mm256_unpackhi_epi32(in[4], in[5]);
  const __m256i t6 = _mm256_unpacklo_epi32(in[6], in[7]), t7 = _mm256_unpackhi_epi32(in[6], in[7]);
  // per 128-bit half: columns (0, 4), (1, 5), (2, 6), (3, 7) of rows 0–3 and rows 4–7
  const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
  const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
  const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
  out[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
  out[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
  out[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
  out[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
  out[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
  out[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
  out[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
  out[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/// xt[g][m] = columns [4g, 4g + 4) of batch row m (< nb; other lanes 0 before the flip) ⊕ 0x80, for
/// the ⌈n/4⌉ k-groups of the first n ≤ `vnni_bcast_kblock` columns (rounded up to 8; bytes past n
/// are read as 0 and meet zero weights). `x`: batch row 0 of the group, rows `cols` bytes apart.
ARMLOWER_X86_VNNIB inline void vnni_bcast_transpose(const std::int8_t* x, std::ptrdiff_t cols, int nb,
                                                    std::ptrdiff_t n, std::int32_t* xt) noexcept {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  for (std::ptrdiff_t c = 0; c < n; c += 32) {
    __m256i r[8], t[8];
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
    transpose8x8_epi32(r, t);
    for (int g = 0; g < 8; ++g) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(xt + (c / 4 + g) * 8), _mm256_xor_si256(t[g], flip));
    }
  }
}

/// acc[i] += Σ_g vpdpbusd(xt[g], broadcast(w_i[4g..4g+3])) over `ng` k-groups, 16 rows w_i = w + i·ws.
ARMLOWER_X86_VNNIB inline void vnni_bcast_inner(const std::int32_t* xt, std::ptrdiff_t ng, const std::int8_t* w,
                                                std::ptrdiff_t ws, __m256i* acc) noexcept {
#if !defined(ARMLOWER_X86_AVX512_SIMDE)
  if (ng > 0) {
    // Rows at p0 + {0, s, 2s, 3s}, p4 + …, p8 + …, p12 + … (base + index addressing); accumulators in
    // ymm16–31 (loaded from and stored back to acc), two k-groups per iteration. Inline asm: the
    // `{1to8}` broadcast operand, and GCC 12 copies every accumulator of the intrinsic form once per
    // iteration (see `dpbusd`).
    const std::int8_t* p0 = w;
    const std::int8_t* p4 = w + 4 * ws;
    const std::int8_t* p8 = w + 8 * ws;
    const std::int8_t* p12 = w + 12 * ws;
    const std::int32_t* xp = xt;
    const std::ptrdiff_t s3 = 3 * ws;
    std::ptrdiff_t pairs = ng / 2;
    const std::ptrdiff_t odd = ng % 2;
#define ARMLOWER_BC4(P, D, X, A, B, C, E)                                    \
  "vpdpbusd " #D "(%[" #P "])%{1to8%}, %%" #X ", %%" #A "\n\t"             \
  "vpdpbusd " #D "(%[" #P "],%[s],1)%{1to8%}, %%" #X ", %%" #B "\n\t"      \
  "vpdpbusd " #D "(%[" #P "],%[s],2)%{1to8%}, %%" #X ", %%" #C "\n\t"      \
  "vpdpbusd " #D "(%[" #P "],%[s3],1)%{1to8%}, %%" #X ", %%" #E "\n\t"
#define ARMLOWER_BC16(D, X)                               \
  ARMLOWER_BC4(p0, D, X, ymm16, ymm17, ymm18, ymm19)      \
  ARMLOWER_BC4(p4, D, X, ymm20, ymm21, ymm22, ymm23)      \
  ARMLOWER_BC4(p8, D, X, ymm24, ymm25, ymm26, ymm27)      \
  ARMLOWER_BC4(p12, D, X, ymm28, ymm29, ymm30, ymm31)
#define ARMLOWER_BC_ACC(OP)                                                                              \
  OP "0(%[acc]), %%ymm16\n\t" OP "32(%[acc]), %%ymm17\n\t" OP "64(%[acc]), %%ymm18\n\t"                \
  OP "96(%[acc]), %%ymm19\n\t" OP "128(%[acc]), %%ymm20\n\t" OP "160(%[acc]), %%ymm21\n\t"             \
  OP "192(%[acc]), %%ymm22\n\t" OP "224(%[acc]), %%ymm23\n\t" OP "256(%[acc]), %%ymm24\n\t"            \
  OP "288(%[acc]), %%ymm25\n\t" OP "320(%[acc]), %%ymm26\n\t" OP "352(%[acc]), %%ymm27\n\t"            \
  OP "384(%[acc]), %%ymm28\n\t" OP "416(%[acc]), %%ymm29\n\t" OP "448(%[acc]), %%ymm30\n\t"            \
  OP "480(%[acc]), %%ymm31\n\t"
#define ARMLOWER_BC_ST(R, D) "vmovdqu64 %%" #R ", " #D "(%[acc])\n\t"
    __asm__ volatile(
        ARMLOWER_BC_ACC("vmovdqu64 ")
        "testq %[n], %[n]\n\t"
        "jz 2f\n\t"
        "1:\n\t"
        "vmovdqa (%[xp]), %%ymm0\n\t"
        "vmovdqa 32(%[xp]), %%ymm1\n\t"
        ARMLOWER_BC16(0, ymm0)
        ARMLOWER_BC16(4, ymm1)
        "addq $64, %[xp]\n\t"
        "addq $8, %[p0]\n\t"
        "addq $8, %[p4]\n\t"
        "addq $8, %[p8]\n\t"
        "addq $8, %[p12]\n\t"
        "decq %[n]\n\t"
        "jnz 1b\n\t"
        "2:\n\t"
        "testq %[odd], %[odd]\n\t"
        "jz 3f\n\t"
        "vmovdqa (%[xp]), %%ymm0\n\t"
        ARMLOWER_BC16(0, ymm0)
        "3:\n\t"
        ARMLOWER_BC_ST(ymm16, 0) ARMLOWER_BC_ST(ymm17, 32) ARMLOWER_BC_ST(ymm18, 64) ARMLOWER_BC_ST(ymm19, 96)
        ARMLOWER_BC_ST(ymm20, 128) ARMLOWER_BC_ST(ymm21, 160) ARMLOWER_BC_ST(ymm22, 192) ARMLOWER_BC_ST(ymm23, 224)
        ARMLOWER_BC_ST(ymm24, 256) ARMLOWER_BC_ST(ymm25, 288) ARMLOWER_BC_ST(ymm26, 320) ARMLOWER_BC_ST(ymm27, 352)
        ARMLOWER_BC_ST(ymm28, 384) ARMLOWER_BC_ST(ymm29, 416) ARMLOWER_BC_ST(ymm30, 448) ARMLOWER_BC_ST(ymm31, 480)
        : [p0] "+r"(p0), [p4] "+r"(p4), [p8] "+r"(p8), [p12] "+r"(p12), [xp] "+r"(xp), [n] "+r"(pairs)
        : [s] "r"(ws), [s3] "r"(s3), [odd] "r"(odd), [acc] "r"(acc)
        : "cc", "memory", "xmm0", "xmm1", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
          "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");
#undef ARMLOWER_BC_ST
#undef ARMLOWER_BC_ACC
#undef ARMLOWER_BC16
#undef ARMLOWER_BC4
  } else
#endif
  {
    for (std::ptrdiff_t g = 0; g < ng; ++g) {
      const __m256i xv = _mm256_load_si256(reinterpret_cast<const __m256i*>(xt + 8 * g));
      for (int i = 0; i < vnni_bcast_nr; ++i) {
        acc[i] = _mm256_dpbusd_epi32(acc[i], xv, _mm256_set1_epi32(load_i32(w + i * ws + 4 * g)));
      }
    }
  }
}

/// acc[i] += Σ_g vpdpbusd(xt[g], broadcast(w_i[4g..4g+3])) over the `ng` full k-groups, rows
/// w_i = w + min(i, nv − 1)·ws (rows past nv repeat the last one: computed, never stored), then the
/// partial k-group of `tail` (1..3) columns if any.
ARMLOWER_X86_VNNIB inline void vnni_bcast_kernel(const std::int32_t* xt, std::ptrdiff_t ng, const std::int8_t* w,
                                                 std::ptrdiff_t ws, int nv, std::ptrdiff_t tail,
                                                 __m256i* acc) noexcept {
  if (nv == vnni_bcast_nr) {
    vnni_bcast_inner(xt, ng, w, ws, acc);
  } else {  // last rows of the layer: a 16-row tile of them, the last row repeated, on the stack
    alignas(64) std::int8_t buf[vnni_bcast_nr * 64];
    for (std::ptrdiff_t g0 = 0; g0 < ng; g0 += 16) {
      const std::ptrdiff_t gn = ng - g0 < 16 ? ng - g0 : 16;
      for (int i = 0; i < vnni_bcast_nr; ++i) {
        _mm512_store_si512(buf + std::ptrdiff_t{64} * i, load_prefix8(w + (i < nv ? i : nv - 1) * ws + 4 * g0, 4 * gn));
      }
      vnni_bcast_inner(xt + 8 * g0, gn, buf, 64, acc);
    }
  }
  if (tail > 0) {  // the last 1..3 columns: zero weight bytes past K
    const std::int32_t* xl = xt + 8 * ng;
    const __m256i xv = _mm256_load_si256(reinterpret_cast<const __m256i*>(xl));
    for (int i = 0; i < vnni_bcast_nr; ++i) {
      std::int32_t wv = 0;
      std::memcpy(&wv, w + (i < nv ? i : nv - 1) * ws + 4 * ng, static_cast<std::size_t>(tail));
      acc[i] = _mm256_dpbusd_epi32(acc[i], xv, _mm256_set1_epi32(wv));
    }
  }
}

/// Row constant c[r] of the batch-row-group forms: kernel_sum[r] (the row-group form's kernel_sum form, D = Σ (w + 128)·x),
/// else bias[r] + K·input_offset·filter_offset (D = Σ (x + input_offset)·w, input_offset = 128).
[[nodiscard]] inline std::int64_t vnni_bcast_row_const(const linear_s8_args& a, std::int32_t r) noexcept {
  if (a.kernel_sum != nullptr) return a.kernel_sum[r];
  return (a.bias != nullptr ? a.bias[r] : 0) + static_cast<std::int64_t>(a.cols) * a.input_offset * a.filter_offset;
}

/// Output of one tile: acc[i] lane m = D of weight row r0 + i, batch row b0 + m (nv rows, nb batch
/// rows valid); `bt[m]` = the Σx term of batch row b0 + m (`vnni_group_terms`): acc = D + c[r] + bt[m].
/// `fast`: the int32 requantization of the packed form (`vnni_store_panel_fast`, its preconditions
/// checked by the caller), 16 channels at a time.
ARMLOWER_X86_VNNIB inline void vnni_bcast_store(const linear_s8_args& a, const vnni_requant& rq,
                                                vnni_acc32_out* acc32, const __m256i* acc, std::int32_t r0,
                                                int nv, std::int32_t b0, int nb, const std::int64_t* bt,
                                                bool fast) noexcept {
  __m256i t[16];
  transpose8x8_epi32(acc, t);
  if (nv > 8 || fast) transpose8x8_epi32(acc + 8, t + 8);
  if (fast) {  // row constants fit int32 (fast bound)
    alignas(64) std::int32_t c[16] = {};
    // `vnni_bcast_row_const` per channel, with the form chosen outside the loop: the per-channel call (also with
    // K·input_offset·filter_offset hoisted) ran the 8 × 64² batch-lane call at 93–94 against 120–121 GMAC/s
    if (a.kernel_sum != nullptr) {
      for (int i = 0; i < nv; ++i) c[i] = a.kernel_sum[r0 + i];
    } else {
      const std::int64_t kio1 = static_cast<std::int64_t>(a.cols) * a.input_offset * a.filter_offset;
      for (int i = 0; i < nv; ++i) c[i] = static_cast<std::int32_t>((a.bias != nullptr ? a.bias[r0 + i] : 0) + kio1);
    }
    const vnni_fast_panel f = make_fast_panel_c(a, rq, _mm512_load_si512(c), r0, nv);
    vnni_s8_call s;
    s.a = &a;
    s.rq = rq;
    for (int m = 0; m < nb; ++m) {
      vnni_store_panel_fast(s, f, join256(t[m], t[8 + m]), r0, b0 + m, static_cast<std::int32_t>(bt[m]), nv);
    }
    return;
  }
  const __m512i kio = _mm512_set1_epi64(static_cast<std::int64_t>(a.cols) * a.input_offset * a.filter_offset);
  for (int h = 0; h < 2 && 8 * h < nv; ++h) {
    const std::int32_t ch = r0 + 8 * h;
    const int n = nv - 8 * h < 8 ? nv - 8 * h : 8;
    const auto valid = static_cast<__mmask8>((1u << n) - 1u);
    const __m512i cv = a.kernel_sum != nullptr ? load8_i32_as_i64(valid, a.kernel_sum + ch)
                       : a.bias != nullptr     ? _mm512_add_epi64(load8_i32_as_i64(valid, a.bias + ch), kio)
                                               : kio;
    if (acc32 != nullptr) {  // TOSA CONV2D: int32 accumulator + bias, REQUIRE both in int32 (int64 lanes)
      vnni_acc32_out& o = *acc32;
      const __m512i bv = acc32_bias8(o, ch, valid);
      __mmask8 bad = 0;
      for (int m = 0; m < nb; ++m) {
        const __m512i v = _mm512_add_epi64(_mm512_add_epi64(cvt8_i32_i64(t[8 * h + m]), cv),
                                           _mm512_set1_epi64(bt[m]));
        bad |= store_acc32x8(o.out + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + ch, v, bv, n);
      }
      o.range_error = o.range_error || (bad & valid) != 0;
      continue;
    }
    for (int m = 0; m < nb; ++m) {
      const __m512i v = _mm512_add_epi64(_mm512_add_epi64(cvt8_i32_i64(t[8 * h + m]), cv),
                                         _mm512_set1_epi64(bt[m]));
      store_prefix8(a.output + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + ch, requant8_vnni(a, rq, v, ch, n), n);
    }
  }
}

/// Bound for the fast (int32) requantization of the batch-row-group forms (as `linear_s8_packed_vnni`):
/// 2^31 − 1 − max|c[r]| (`vnni_bcast_row_const`) − 32640·K when every shift ≤ −1 and the output is
/// requantized (`raw` false), else −1 (never fast). A batch row whose |Σx term| ≤ the bound has D + c + Σx term
/// exact in int32 (|D| ≤ 255·128·K in both forms).
[[nodiscard]] inline std::int64_t vnni_bcast_fast_bound(const linear_s8_args& a, bool raw) noexcept {
  bool fast_shift = !raw;
  for (std::int32_t i = 0; fast_shift && i < (a.per_channel ? a.rows : 1); ++i) fast_shift = a.shift[i] <= -1;
  if (!fast_shift) return -1;
  std::int64_t cmax = 0;
  for (std::int32_t r = 0; r < a.rows; ++r) {
    const std::int64_t v = vnni_bcast_row_const(a, r);
    cmax = (v < 0 ? -v : v) > cmax ? (v < 0 ? -v : v) : cmax;
  }
  const std::int64_t b = (std::int64_t{1} << 31) - 1 - cmax - std::int64_t{32640} * a.cols;
  return b < 0 ? -1 : b;
}

/// The batch-row terms of a group of nb ≤ 8 batch rows at `x` (rows `cols` bytes apart), shared by the
/// batch-row-group forms: bt[m] = f · Σx of row m with f = filter_offset, or filter_offset − 128 in the kernel_sum
/// form (D = Σ (w + 128)·x = Σ x·w + 128·Σx); 0 when f is 0, rows ≥ nb left 0.
/// Returns whether the int32 fast requantization holds for the whole group (every |bt[m]| ≤ `fast_bound`,
/// `vnni_bcast_fast_bound`; false when that is negative).
ARMLOWER_X86_VNNIB inline bool vnni_group_terms(const linear_s8_args& a, const std::int8_t* x, std::ptrdiff_t cols, int nb,
                                                std::int64_t fast_bound, std::int64_t (&bt)[8]) noexcept {
  for (auto& v : bt) v = 0;
  const std::int64_t f = a.kernel_sum != nullptr ? std::int64_t{a.filter_offset} - 128 : a.filter_offset;
  if (f != 0) {
    for (int m = 0; m < nb; ++m) bt[m] = f * sum_s8_vnni(x + m * cols, cols);
  }
  bool fast = fast_bound >= 0;
  for (int m = 0; m < nb; ++m) fast = fast && (bt[m] < 0 ? -bt[m] : bt[m]) <= fast_bound;
  return fast;
}

/// The batch-lane form over batch rows [0, batches) of `args` (batches ≤ args.batches; the caller runs
/// the others). `w`/`wstride`: the weight rows. Preconditions: `validate(args) == ok`,
/// `vnni_bcast_applies(args, wstride, nullptr)`, CPU has AVX-512 F/BW/VL/VNNI. `acc32`: as in
/// `linear_s8_rowdot_vnni` (then `args.bias` is null).
ARMLOWER_X86_VNNIB inline void linear_s8_bcast_vnni(const linear_s8_args& args, const std::int8_t* w,
                                                    std::ptrdiff_t wstride, std::int32_t batches,
                                                    vnni_acc32_out* acc32 = nullptr) noexcept {
  const linear_s8_args a = args;
  const vnni_requant rq = make_vnni_requant(a);
  alignas(64) std::int32_t xt[vnni_bcast_kblock / 4 * 8];
  const std::ptrdiff_t cols = a.cols;
  const std::int64_t fast_bound = vnni_bcast_fast_bound(a, acc32 != nullptr);
  for (std::int32_t b0 = 0; b0 < batches; b0 += 8) {
    const int nb = batches - b0 < 8 ? batches - b0 : 8;
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b0) * cols;
    std::int64_t bt[8];
    const bool fast = vnni_group_terms(a, x, cols, nb, fast_bound, bt);
    vnni_bcast_transpose(x, cols, nb, cols, xt);  // one block: K ≤ vnni_bcast_kblock
    for (std::int32_t r0 = 0; r0 < a.rows; r0 += vnni_bcast_nr) {
      const int nv = a.rows - r0 < vnni_bcast_nr ? a.rows - r0 : vnni_bcast_nr;
      __m256i acc[vnni_bcast_nr];
      for (__m256i& v : acc) v = _mm256_setzero_si256();
      vnni_bcast_kernel(xt, cols / 4, w + static_cast<std::ptrdiff_t>(r0) * wstride, wstride, nv, cols % 4, acc);
      vnni_bcast_store(a, rq, acc32, acc, r0, nv, b0, nb, bt, fast);
    }
  }
}

#undef ARMLOWER_X86_VNNIB
#undef ARMLOWER_X86_VNNIB_INLINE

}  // namespace armlower::kernels::detail
