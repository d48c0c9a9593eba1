/// @file armlower/kernels/arch/x86/linear_vnni_rowgroup_store.hpp
/// AVX-512 VNNI s8 fused linear, the output side of the row-group form (`linear_vnni_rowgroup.hpp`; contract:
/// `kernels/linear_args.hpp`): a group's batch-row terms (Σx), its row constants, and the output of a block of 16
/// channels × up to 8 batch rows from int32 D lanes (8 vectors of 2 channels × 8 batch rows). When every shift ≤ −1
/// and max|c| + |Σx term| + 32640·K < 2^31 the vectors are requantized in int32 lanes as they are
/// (`vnni_requant16_fast`, the packed form's arithmetic) and put in batch-row order as bytes; else they are transposed
/// (8 × 8 int32) to batch-row-major order and requantized in exact int64 lanes (`requant8_vnni`), or written as raw
/// int32 (`vnni_acc32_out`, TOSA CONV2D).
/// Firmware-clean (host only): noexcept, no heap, no static data. Source of the semantics: CMSIS-NN
/// `arm_fully_connected_s8` / `arm_nn_vec_mat_mult_t_s8`, TFLite reference `FullyConnected` (int8).
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/arch/x86/linear_avx2_pairs.hpp>  // pairs_row_constant_max
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>

namespace armlower::kernels::detail {

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIS __attribute__((target("avx2")))
#define ARMLOWER_X86_VNNIS_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_VNNIS __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#define ARMLOWER_X86_VNNIS_INLINE __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni"), always_inline))
#endif

/// [lo, hi] as one vector of 16 int32.
ARMLOWER_X86_VNNIS_INLINE inline __m512i join256(__m256i lo, __m256i hi) noexcept {
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
ARMLOWER_X86_VNNIS_INLINE inline void transpose8x8_epi32(const __m256i* in, __m256i* out) noexcept {
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

/// True if the row-group form runs a call in the kernel_sum order (u = w ⊕ 0x80, x signed: D = Σ (w + 128)·x):
/// folded kernel_sum, or the bias form with input_offset 0 (TFLite int8 input zero point 0), whose Σ (x + 0)·w needs
/// no Σw. Else the bias order (u = x ⊕ 0x80: D = Σ (x + 128)·w).
[[nodiscard]] inline bool vnni_rowgroup_wu(const linear_s8_args& a) noexcept {
  return a.kernel_sum != nullptr || a.input_offset == 0;
}

/// True if the row-group form sums the weight rows (Σw per tile): the bias order with input_offset ≠ 128.
[[nodiscard]] inline bool vnni_rowgroup_sw(const linear_s8_args& a) noexcept {
  return !vnni_rowgroup_wu(a) && a.input_offset != 128;
}

/// Row constant c[r] of the row-group form: kernel_sum[r] (its kernel_sum form, D = Σ (w + 128)·x),
/// else bias[r] + K·input_offset·filter_offset (= bias[r] with input_offset 0, run in the kernel_sum order; D = Σ (x
/// + 128)·w in the bias order, where another input_offset adds (input_offset − 128)·Σw, `vnni_rowgroup_store`).
[[nodiscard]] inline std::int64_t vnni_rowgroup_row_const(const linear_s8_args& a, std::int32_t r) noexcept {
  if (a.kernel_sum != nullptr) return a.kernel_sum[r];
  return (a.bias != nullptr ? a.bias[r] : 0) + static_cast<std::int64_t>(a.cols) * a.input_offset * a.filter_offset;
}

/// 128-bit lane I of v (`vextracti32x4`).
template <int I>
ARMLOWER_X86_VNNIS_INLINE inline __m128i lane128(__m512i v) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  return _mm512_extracti32x4_epi32(v, I);
#else
  return _mm512_maskz_extracti32x4_epi32(all4, v, I);
#endif
}

/// The fast form of `vnni_rowgroup_store` (its preconditions checked by the caller; `ws` as there): the 8 vectors of 2 channels ×
/// 8 batch rows are requantized as they are (`vnni_requant16_fast`; channel constants by masked broadcast, per-channel
/// multipliers and shifts permuted to their lanes), then
/// packed to bytes and put in batch-row order by byte shuffles within 128-bit lanes and one dword permute per 4 rows.
ARMLOWER_X86_VNNIS inline void vnni_rowgroup_store_fast(const linear_s8_args& a, const vnni_requant& rq, const __m512i* dd,
                                                        const std::int32_t* ws, std::int32_t r0, int nv, std::int32_t b0,
                                                        int nb, const std::int64_t* bt) noexcept {
  // `vnni_rowgroup_row_const` of the 16 channels as one vector (lanes ≥ nv unused), with the form chosen outside the loop:
  // the per-channel call (also with K·input_offset·filter_offset hoisted) ran 8 × 64² at 93–94 against 120–121 GMAC/s
  // (the batch-lane form, 2026-11-29). Every term is an exact int32 under the fast bound (|c| ≤ its max |c|)
  __m512i cv;
  if (a.kernel_sum != nullptr) {
    cv = load_prefix32(a.kernel_sum + r0, nv);
  } else {
    const auto kio1 = static_cast<std::int32_t>(static_cast<std::int64_t>(a.cols) * a.input_offset * a.filter_offset);
    cv = _mm512_set1_epi32(kio1);
    if (a.bias != nullptr) cv = _mm512_add_epi32(cv, load_prefix32(a.bias + r0, nv));
    if (ws != nullptr) {  // input_offset ≠ 128: + (input_offset − 128)·Σw (in the fast bound)
      cv = _mm512_add_epi32(cv, ARMLOWER_Z512(mullo_epi32, all16, load_prefix32(ws, nv), _mm512_set1_epi32(a.input_offset - 128)));
    }
  }
  // [Σx terms of rows 0–7 | the same] (|bt| ≤ the fast bound: int32)
  const __m512i btv = ARMLOWER_Z512(broadcast_i64x4, all8, ARMLOWER_Z512(cvtepi64_epi32, all8, _mm512_loadu_si512(bt)));
  __m512i y[8];
  auto requant = [&]<bool Dbl, bool PerChannel>() ARMLOWER_X86_VNNIS_INLINE {
    const __m512i half = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);  // lane → channel 2j + e
    vnni_fast_panel f;  // both int32 lanes of an int64 lane hold the same channel: even = odd constants
    f.qe = f.qo = rq.q;
    f.te = f.to = rq.total;
    f.re = f.ro = vnni_fast_round(rq.total, Dbl);
    __m512i qv = f.qe, tv = f.te;
    if constexpr (PerChannel) {
      qv = load_prefix32(a.multiplier + r0, nv);
      tv = _mm512_sub_epi32(_mm512_set1_epi32(31), load_prefix32(a.shift + r0, nv));
    }
#pragma GCC unroll 8
    for (std::ptrdiff_t j = 0; j < 8; ++j) {
      const __m512i idx = _mm512_add_epi32(half, _mm512_set1_epi32(static_cast<std::int32_t>(2 * j)));
      if constexpr (PerChannel) {
        f.qe = f.qo = ARMLOWER_Z512(permutexvar_epi32, all16, idx, qv);
        f.te = f.to = _mm512_maskz_permutexvar_epi32(static_cast<__mmask16>(0x5555), idx, tv);
        f.re = f.ro = vnni_fast_round(f.te, Dbl);
      }
      const __m512i cj = ARMLOWER_Z512(permutexvar_epi32, all16, idx, cv);
      y[j] = vnni_requant16_fast(a, f, _mm512_add_epi32(_mm512_add_epi32(dd[j], cj), btv), Dbl);
    }
  };
  if (rq.dbl) {
    if (a.per_channel) requant.template operator()<true, true>();
    else requant.template operator()<true, false>();
  } else {
    if (a.per_channel) requant.template operator()<false, true>();
    else requant.template operator()<false, false>();
  }
  // per 128-bit lane L of b[h]: dword q = channel 8h + 2q + L/2, rows 4·(L mod 2) .. + 3 (clamped: no saturation)
  const __m512i b[2] = {
      ARMLOWER_Z512(packs_epi16, all64, ARMLOWER_Z512(packs_epi32, all32, y[0], y[1]), ARMLOWER_Z512(packs_epi32, all32, y[2], y[3])),
      ARMLOWER_Z512(packs_epi16, all64, ARMLOWER_Z512(packs_epi32, all32, y[4], y[5]), ARMLOWER_Z512(packs_epi32, all32, y[6], y[7]))};
  // 4 × 4 byte transpose per lane: dword i = row 4·(L mod 2) + i of the lane's 4 channels
  const __m512i t44 = _mm512_set4_epi32(0x0F0B0703, 0x0E0A0602, 0x0D090501, 0x0C080400);
  const __m512i p0 = ARMLOWER_Z512(shuffle_epi8, all64, b[0], t44), p1 = ARMLOWER_Z512(shuffle_epi8, all64, b[1], t44);
  // lane m of r[h] = batch row 4h + m: dwords [even channels 0–6, odd 1–7, even 8–14, odd 9–15]
  const __m512i ilo = _mm512_set_epi32(27, 19, 11, 3, 26, 18, 10, 2, 25, 17, 9, 1, 24, 16, 8, 0);
  const __m512i ev_od = _mm512_set4_epi32(0x0F0B0E0A, 0x0D090C08, 0x07030602, 0x05010400);  // channels in order
  const __m512i r[2] = {
      ARMLOWER_Z512(shuffle_epi8, all64, _mm512_permutex2var_epi32(p0, ilo, p1), ev_od),
      ARMLOWER_Z512(shuffle_epi8, all64, _mm512_permutex2var_epi32(p0, _mm512_add_epi32(ilo, _mm512_set1_epi32(4)), p1), ev_od)};
  __m128i rows[8];
#pragma GCC unroll 2
  for (std::ptrdiff_t h = 0; h < 2; ++h) {
    rows[4 * h] = lane128<0>(r[h]);
    rows[4 * h + 1] = lane128<1>(r[h]);
    rows[4 * h + 2] = lane128<2>(r[h]);
    rows[4 * h + 3] = lane128<3>(r[h]);
  }
  for (int m = 0; m < nb; ++m) {
    std::int8_t* out = a.output + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + r0;
    if (nv == 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), rows[m]);
    } else {
      store_prefix8(out, rows[m], nv);
    }
  }
}

/// Output of a block of 16 channels: dd[j] lane 8e + m = D of weight row r0 + 2j + e, batch row b0 + m (nv rows, nb
/// batch rows valid); `bt[m]` = the Σx term of batch row b0 + m (`vnni_group_terms`): acc = D + c[r] + bt[m], c[r] =
/// `vnni_rowgroup_row_const` + (input_offset − 128)·ws[r − r0] when `ws` (Σw of the block's rows, the bias form with
/// input_offset ≠ 128) is given.
/// `fast`: the int32 requantization (`vnni_rowgroup_store_fast`, its preconditions checked by the caller), else
/// the blocks transposed (8 × 8 int32) to batch-row-major order and requantized in int64 lanes (`requant8_vnni`) or
/// written as raw int32 accumulators (`acc32`).
ARMLOWER_X86_VNNIS inline void vnni_rowgroup_store(const linear_s8_args& a, const vnni_requant& rq,
                                                   vnni_acc32_out* acc32, const __m512i* dd, const std::int32_t* ws,
                                                   std::int32_t r0, int nv, std::int32_t b0, int nb,
                                                   const std::int64_t* bt, bool fast) noexcept {
  if (fast) {
    vnni_rowgroup_store_fast(a, rq, dd, ws, r0, nv, b0, nb, bt);
    return;
  }
  __m256i acc[16], t[16];
  for (std::ptrdiff_t j = 0; j < 8; ++j) {
    acc[2 * j] = ARMLOWER_Z512(extracti64x4_epi64, all4, dd[j], 0);
    acc[2 * j + 1] = ARMLOWER_Z512(extracti64x4_epi64, all4, dd[j], 1);
  }
  transpose8x8_epi32(acc, t);
  if (nv > 8) transpose8x8_epi32(acc + 8, t + 8);
  const __m512i kio = _mm512_set1_epi64(static_cast<std::int64_t>(a.cols) * a.input_offset * a.filter_offset);
  for (int h = 0; h < 2 && 8 * h < nv; ++h) {
    const std::int32_t ch = r0 + 8 * h;
    const int n = nv - 8 * h < 8 ? nv - 8 * h : 8;
    const auto valid = static_cast<__mmask8>((1u << n) - 1u);
    __m512i cv = a.kernel_sum != nullptr ? load8_i32_as_i64(valid, a.kernel_sum + ch)
                 : a.bias != nullptr     ? _mm512_add_epi64(load8_i32_as_i64(valid, a.bias + ch), kio)
                                         : kio;
    if (ws != nullptr) {  // input_offset ≠ 128: + (input_offset − 128)·Σw
      cv = _mm512_add_epi64(cv, ARMLOWER_Z512(mul_epi32, all8, load8_i32_as_i64(valid, ws + std::ptrdiff_t{8} * h),
                                              _mm512_set1_epi64(a.input_offset - 128)));
    }
    if (acc32 != nullptr) {  // TOSA CONV2D: int32 accumulator + bias, REQUIRE both in int32 (int64 lanes)
      vnni_acc32_out& o = *acc32;
      const __m512i bv = acc32_bias8(o, ch, valid);
      __mmask8 bad = 0;
      for (int m = 0; m < nb; ++m) {
        const __m512i v = _mm512_add_epi64(_mm512_add_epi64(cvt32_64(join256(t[8 * h + m], t[8 * h + m]), 0), cv),
                                           _mm512_set1_epi64(bt[m]));
        bad |= store_acc32x8(o.out + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + ch, v, bv, n);
      }
      o.range_error = o.range_error || (bad & valid) != 0;
      continue;
    }
    for (int m = 0; m < nb; ++m) {
      const __m512i v = _mm512_add_epi64(_mm512_add_epi64(cvt32_64(join256(t[8 * h + m], t[8 * h + m]), 0), cv),
                                         _mm512_set1_epi64(bt[m]));
      store_prefix8(a.output + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + ch, requant8_vnni(a, rq, v, ch, n), n);
    }
  }
}

/// Bound for the fast (int32) requantization of the row-group form (as `linear_s8_packed_vnni`):
/// 2^31 − 1 − max|c[r]| (`vnni_rowgroup_row_const`; in the bias form bounded by max |bias| +
/// |K·input_offset·filter_offset|, + |input_offset − 128|·128·K with input_offset ≠ 128: the Σw term) − 32640·K when
/// every shift ≤ −1 and the output is requantized (`raw` false), else −1 (never fast). A batch row whose |Σx term| ≤
/// the bound has D + c + Σx term exact in int32 (|D| ≤ 255·128·K in both forms). The same row-constant bound as
/// `vnni_rowdot8_fast_bound` (the batch-1 form): kept as two functions; one shared helper (with the two forms'
/// operand-order rule shared too) ran 8 × 64² at 130–136 against 142–144 GMAC/s (harness, Zen 5).
[[nodiscard]] inline std::int64_t vnni_rowgroup_fast_bound(const linear_s8_args& a, bool raw) noexcept {
  bool fast_shift = !raw;
  for (std::int32_t i = 0; fast_shift && i < (a.per_channel ? a.rows : 1); ++i) fast_shift = a.shift[i] <= -1;
  if (!fast_shift) return -1;
  // max |c[r]| ≤ max |kernel_sum or bias| + |K·input_offset·filter_offset| (`vnni_rowgroup_row_const`), the
  // vector scan: a scalar loop over the rows took 5 % of an 8 × 256² call
  std::int64_t cmax = pairs_row_constant_max(a);
  if (a.kernel_sum == nullptr) {
    const std::int64_t kio = std::int64_t{a.cols} * a.input_offset * a.filter_offset;
    cmax += kio < 0 ? -kio : kio;
  }
  if (vnni_rowgroup_sw(a)) {  // + (input_offset − 128)·Σw, |Σw| ≤ 128·K
    const std::int64_t d = a.input_offset - 128;
    cmax += (d < 0 ? -d : d) * 128 * a.cols;
  }
  const std::int64_t b = (std::int64_t{1} << 31) - 1 - cmax - std::int64_t{32640} * a.cols;
  return b < 0 ? -1 : b;
}

/// The batch-row terms of a group of nb ≤ 8 batch rows at `x` (rows `cols` bytes apart) of the row-group form: bt[m]
/// = f · Σx of row m with f = filter_offset, or filter_offset − 128 in the kernel_sum order (`vnni_rowgroup_wu`: D = Σ
/// (w + 128)·x = Σ x·w + 128·Σx); 0 when f is 0, rows ≥ nb left 0.
/// Returns whether the int32 fast requantization holds for the whole group (every |bt[m]| ≤ `fast_bound`,
/// `vnni_rowgroup_fast_bound`; false when that is negative).
ARMLOWER_X86_VNNIS inline bool vnni_group_terms(const linear_s8_args& a, const std::int8_t* x, std::ptrdiff_t cols, int nb,
                                                std::int64_t fast_bound, std::int64_t (&bt)[8]) noexcept {
  for (auto& v : bt) v = 0;
  const std::int64_t f = vnni_rowgroup_wu(a) ? std::int64_t{a.filter_offset} - 128 : a.filter_offset;
  if (f != 0) {
    for (int m = 0; m < nb; ++m) bt[m] = f * sum_s8_vnni(x + m * cols, cols);
  }
  bool fast = fast_bound >= 0;
  for (int m = 0; m < nb; ++m) fast = fast && (bt[m] < 0 ? -bt[m] : bt[m]) <= fast_bound;
  return fast;
}

#undef ARMLOWER_X86_VNNIS
#undef ARMLOWER_X86_VNNIS_INLINE

}  // namespace armlower::kernels::detail
