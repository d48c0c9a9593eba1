/// @file armlower/kernels/arch/x86/linear.hpp
/// x86-64 AVX2 paths of the fused linear kernels (contract: `kernels/linear_args.hpp`); the AVX-512
/// VNNI ones are in `linear_vnni_rowdot.hpp` (row-major weights) and `linear_vnni_packed.hpp`.
/// Compiled with per-function `target` attributes, so the including translation unit needs no `-mavx2`; `kernels/linear.hpp` calls them only after a cpuid check.
///
/// Arithmetic (Intel Intrinsics Guide `_mm256_madd_epi16`):
/// - AVX2 s8: x and w sign-extended to int16 (`vpmovsxbw`), the input offset folded into x once per
///   column block (`x' = x + input_offset`, |x'| ≤ 383), `vpmaddwd` into int32 lanes, 4 rows × 32
///   columns per step. `acc = bias + Σ x'·w + filter_offset·Σ x'` (bias form) or
///   `acc = kernel_sum + Σ x·w + filter_offset·Σ x` (kernel_sum form) — the same integers as the contract.
/// - AVX2 s16×s8: x int16, w sign-extended to int16, `vpmaddwd` (|x·w| ≤ 2^22, so int32 lanes are
///   exact for 2048-column blocks), int64 accumulation across blocks.
/// int32 lane sums are flushed into int64 every `block` columns, so every path is exact for any K.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/linear_args.hpp>

namespace armlower::kernels::detail {

/// True if the CPU and OS support AVX2 (cpuid + xgetbv via the compiler runtime).
[[nodiscard]] inline bool x86_has_avx2() noexcept { return __builtin_cpu_supports("avx2"); }

#define ARMLOWER_X86_AVX2 __attribute__((target("avx2")))

ARMLOWER_X86_AVX2 inline std::int64_t hsum_epi32_avx2(__m256i v) noexcept {
  // widen to int64 before adding so that the sum of 8 lanes is exact
  const __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
  const __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
  const __m256i s = _mm256_add_epi64(lo, hi);
  const __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  return _mm_cvtsi128_si64(t) + _mm_extract_epi64(t, 1);
}

/// Σ_c (x[c] + xoff)·w[r][c] for `nr` (1..4) consecutive rows, columns [k0, k1), exact in int64.
/// Preconditions: k1 − k0 ≤ 8192.
ARMLOWER_X86_AVX2 inline void dot_rows_s8_avx2(const std::int8_t* x, const std::int8_t* const* w, int nr,
                                               std::ptrdiff_t k0, std::ptrdiff_t k1, std::int16_t xoff,
                                               std::int64_t* out) noexcept {
  const __m256i off = _mm256_set1_epi16(xoff);
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  __m256i b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  std::ptrdiff_t k = k0;
  if (nr == 4) {
    for (; k + 32 <= k1; k += 32) {
      const __m256i xa = _mm256_add_epi16(
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k))), off);
      const __m256i xb = _mm256_add_epi16(
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k + 16))), off);
#define ARMLOWER_ROW(i, A, B)                                                                               \
  (A) = _mm256_add_epi32((A), _mm256_madd_epi16(xa, _mm256_cvtepi8_epi16(                                       \
                                                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k))))); \
  (B) = _mm256_add_epi32((B), _mm256_madd_epi16(xb, _mm256_cvtepi8_epi16(                                       \
                                                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k + 16)))));
      ARMLOWER_ROW(0, a0, b0)
      ARMLOWER_ROW(1, a1, b1)
      ARMLOWER_ROW(2, a2, b2)
      ARMLOWER_ROW(3, a3, b3)
#undef ARMLOWER_ROW
    }
  }
  for (; k + 16 <= k1; k += 16) {
    const __m256i xa = _mm256_add_epi16(
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k))), off);
    __m256i* acc[4] = {&a0, &a1, &a2, &a3};
    for (int i = 0; i < nr; ++i) {
      *acc[i] = _mm256_add_epi32(
          *acc[i], _mm256_madd_epi16(xa, _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k)))));
    }
  }
  const __m256i sums[4] = {_mm256_add_epi32(a0, b0), _mm256_add_epi32(a1, b1), _mm256_add_epi32(a2, b2),
                           _mm256_add_epi32(a3, b3)};
  for (int i = 0; i < nr; ++i) {
    std::int64_t s = hsum_epi32_avx2(sums[i]);
    for (std::ptrdiff_t t = k; t < k1; ++t) s += static_cast<std::int64_t>(x[t] + xoff) * w[i][t];
    out[i] += s;
  }
}

/// Σ_c (x[c] + xoff)·w_i[c] for NR rows `w0 + i·wstride`, columns [k0, k1) (k1 − k0 ≤ 8192), added
/// into out[i]. int32 lanes and their horizontal sum are exact within such a block
/// (|lane| ≤ 512 · 2 · 383 · 128 < 2^26, 8 lanes < 2^29).
template <int NR>
ARMLOWER_X86_AVX2 inline void dot_block_s8_avx2(const std::int8_t* x, const std::int8_t* w0, std::ptrdiff_t wstride,
                                                std::ptrdiff_t k0, std::ptrdiff_t k1, std::int16_t xoff,
                                                std::int64_t* out) noexcept {
  static_assert(NR == 4 || NR == 1);
  const __m256i off = _mm256_set1_epi16(xoff);
  const std::int8_t* p0 = w0;
  const std::int8_t* p1 = w0 + (NR > 1 ? wstride : 0);
  const std::int8_t* p2 = w0 + (NR > 1 ? 2 * wstride : 0);
  const std::int8_t* p3 = w0 + (NR > 1 ? 3 * wstride : 0);
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  std::ptrdiff_t k = k0;
#define ARMLOWER_LD(p, o) _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>((p) + k + (o))))
  for (; k + 16 <= k1; k += 16) {
    const __m256i xa = _mm256_add_epi16(ARMLOWER_LD(x, 0), off);
    a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(xa, ARMLOWER_LD(p0, 0)));
    if constexpr (NR == 4) {
      a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(xa, ARMLOWER_LD(p1, 0)));
      a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(xa, ARMLOWER_LD(p2, 0)));
      a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(xa, ARMLOWER_LD(p3, 0)));
    }
  }
#undef ARMLOWER_LD
  std::int32_t sums[4];
  if constexpr (NR == 4) {
    const __m256i s = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(sums),
                     _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));
  } else {
    const __m128i t = _mm_add_epi32(_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1));
    const __m128i u = _mm_hadd_epi32(t, t);
    sums[0] = _mm_cvtsi128_si32(_mm_hadd_epi32(u, u));
  }
  const std::int8_t* ps[4] = {p0, p1, p2, p3};
  for (int i = 0; i < NR; ++i) {
    std::int64_t v = sums[i];
    for (std::ptrdiff_t t = k; t < k1; ++t) v += static_cast<std::int64_t>(x[t] + xoff) * ps[i][t];
    out[i] += v;
  }
}

/// Per-call constants of the vectorised s8 requantization (hoisted out of the row loops).
struct requant_s8_avx2_consts {
  __m256i q, sh, rnd, out_off, lo, hi, wide;  // per-tensor q/sh/rnd (unused when per_channel)
  bool dbl, per_channel;
};

ARMLOWER_X86_AVX2 inline requant_s8_avx2_consts make_requant_s8_avx2(const linear_s8_args& a) noexcept {
  requant_s8_avx2_consts c;
  c.per_channel = a.per_channel;
  c.dbl = a.rounding == quant::rounding::double_round;
  c.q = _mm256_set1_epi64x(a.multiplier[0]);
  c.sh = _mm256_set1_epi64x(31 - a.shift[0]);
  c.rnd = _mm256_set1_epi64x(std::int64_t{1} << (30 - a.shift[0]));
  c.out_off = _mm256_set1_epi64x(a.output_offset);
  c.lo = _mm256_set1_epi64x(a.activation_min);
  c.hi = _mm256_set1_epi64x(a.activation_max);
  c.wide = _mm256_set1_epi64x(31);
  return c;
}

/// The requantization constants of rows r..r+3 in 64-bit lanes (multiplier, 31 − shift, rounding bit).
ARMLOWER_X86_AVX2 inline void requant_consts4_s8_avx2(const linear_s8_args& a, const requant_s8_avx2_consts& c,
                                                      std::int32_t r, __m256i& q, __m256i& sh, __m256i& rnd) noexcept {
  q = c.q;
  sh = c.sh;
  rnd = c.rnd;
  if (c.per_channel) {
    q = _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a.multiplier + r)));
    sh = _mm256_cvtepi32_epi64(
        _mm_sub_epi32(_mm_set1_epi32(31), _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.shift + r))));  // 1..62
    rnd = _mm256_sllv_epi64(_mm256_set1_epi64x(1), _mm256_sub_epi64(sh, _mm256_set1_epi64x(1)));
  }
}

/// True if every 64-bit lane of v is in int32 (then `_mm256_mul_epi32`, which multiplies the low
/// 32 bits, is exact).
ARMLOWER_X86_AVX2 inline bool in_int32_avx2(__m256i v) noexcept {
  // (v + 2^31) >> 32 == 0 for every lane
  const __m256i t = _mm256_srli_epi64(_mm256_add_epi64(v, _mm256_set1_epi64x(std::int64_t{1} << 31)), 32);
  return _mm256_testz_si256(t, t) != 0;
}

/// floor(t / 2^sh) per 64-bit lane (an arithmetic shift; 0 ≤ sh ≤ 63 per lane): AVX2 has only the
/// logical `vpsrlvq`, so negative lanes are complemented before and after it.
ARMLOWER_X86_AVX2 inline __m256i srav64_avx2(__m256i t, __m256i sh) noexcept {
  const __m256i m = _mm256_cmpgt_epi64(_mm256_setzero_si256(), t);
  return _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(t, m), sh), m);
}

/// y clamped to [lo, hi] per 64-bit lane (lo ≤ hi).
ARMLOWER_X86_AVX2 inline __m256i clamp64_avx2(__m256i y, __m256i lo, __m256i hi) noexcept {
  y = _mm256_blendv_epi8(y, lo, _mm256_cmpgt_epi64(lo, y));
  return _mm256_blendv_epi8(y, hi, _mm256_cmpgt_epi64(y, hi));
}

/// `requant_core4_s8_avx2` with the rounding constant of each lane already chosen (`rnd`: with double
/// rounding and 31 − shift > 31, ±2^30 by the sign of v added): t = v·q + rnd, arithmetic shift by sh,
/// + output offset, clamped (64-bit lanes).
ARMLOWER_X86_AVX2 inline __m256i requant_apply4_s8_avx2(const requant_s8_avx2_consts& c, __m256i vv, __m256i q,
                                                        __m256i sh, __m256i rnd) noexcept {
  const __m256i t = _mm256_add_epi64(_mm256_mul_epi32(vv, q), rnd);  // |v·q| < 2^62: exact
  return clamp64_avx2(_mm256_add_epi64(srav64_avx2(t, sh), c.out_off), c.lo, c.hi);
}

/// `requantize_row_s8` of four int32-range accumulators vv (64-bit lanes) with the row constants
/// q, sh, rnd (`requant_consts4_s8_avx2`): the clamped outputs in 64-bit lanes.
ARMLOWER_X86_AVX2 inline __m256i requant_core4_s8_avx2(const requant_s8_avx2_consts& c, __m256i vv, __m256i q,
                                                       __m256i sh, __m256i rnd) noexcept {
  if (c.dbl) {
    const __m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), vv);                            // v < 0
    const __m256i adj = _mm256_sub_epi64(_mm256_xor_si256(_mm256_set1_epi64x(1 << 30), neg), neg);  // ±2^30
    rnd = _mm256_add_epi64(rnd, _mm256_and_si256(adj, _mm256_cmpgt_epi64(sh, c.wide)));            // if shift > 31
  }
  return requant_apply4_s8_avx2(c, vv, q, sh, rnd);
}

/// Requantizes the accumulators v[0..3] of rows r..r+3 (AVX2, 64-bit lanes) exactly like
/// `requantize_row_s8`; falls back to it when a value is outside int32.
ARMLOWER_X86_AVX2 inline void requant4_s8_avx2(const linear_s8_args& a, const requant_s8_avx2_consts& c,
                                               std::int32_t r, const std::int64_t* v, std::int8_t* out) noexcept {
  const __m256i vv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v));
  if (!in_int32_avx2(vv)) {
    for (int i = 0; i < 4; ++i) out[i] = requantize_row_s8(a, r + i, v[i]);
    return;
  }
  __m256i q, sh, rnd;
  requant_consts4_s8_avx2(a, c, r, q, sh, rnd);
  const __m256i y = requant_core4_s8_avx2(c, vv, q, sh, rnd);
  const __m128i y32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(y, _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0)));
  const __m128i y8 = _mm_packs_epi16(_mm_packs_epi32(y32, y32), _mm_setzero_si128());
  const std::int32_t packed = _mm_cvtsi128_si32(y8);
  __builtin_memcpy(out, &packed, 4);
}

/// One group of NR rows of the AVX2 s8 kernel, every batch (weights of the group stay in L1 across batches).
template <int NR>
ARMLOWER_X86_AVX2 inline void linear_s8_rows_avx2(const linear_s8_args& a, const requant_s8_avx2_consts& rc,
                                                  std::int32_t r0, std::int16_t xoff) noexcept {
  const std::ptrdiff_t cols = a.cols;
  const std::int8_t* w0 = a.weights + static_cast<std::ptrdiff_t>(r0) * cols;
  const bool ks = a.kernel_sum != nullptr;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int8_t* x = a.input + b * cols;
    std::int64_t acc[NR] = {};
    for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += s8_block_with_offsets) {
      const std::ptrdiff_t k1 = k0 + s8_block_with_offsets < cols ? k0 + s8_block_with_offsets : cols;
      dot_block_s8_avx2<NR>(x, w0, cols, k0, k1, xoff, acc);
    }
    std::int64_t xsum = 0;  // Σ x' (only needed with a filter offset)
    if (a.filter_offset != 0) {
      for (std::ptrdiff_t k = 0; k < cols; ++k) xsum += x[k];
      xsum += static_cast<std::int64_t>(xoff) * cols;
    }
    std::int64_t v[NR];
    for (int i = 0; i < NR; ++i) {
      const std::int32_t r = r0 + i;
      const std::int64_t c = ks ? a.kernel_sum[r] : (a.bias != nullptr ? a.bias[r] : 0);
      v[i] = c + acc[i] + static_cast<std::int64_t>(a.filter_offset) * xsum;
    }
    std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows + r0;
    if constexpr (NR == 4) {
      requant4_s8_avx2(a, rc, r0, v, y);
    } else {
      for (int i = 0; i < NR; ++i) y[i] = requantize_row_s8(a, r0 + i, v[i]);
    }
  }
}

/// AVX2 s8 fused linear. Preconditions: `validate(a) == ok`, CPU has AVX2.
/// `acc = bias + Σ x'·w + filter_offset·Σ x'` with x' = x + input_offset (bias form), or
/// `acc = kernel_sum + Σ x·w + filter_offset·Σ x` (kernel_sum form): the contract's integers.
ARMLOWER_X86_AVX2 inline void linear_s8_avx2(const linear_s8_args& args) noexcept {
  const linear_s8_args a = args;  // local copy: int8 output stores cannot alias it (no field reloads)
  const auto xoff = static_cast<std::int16_t>(a.kernel_sum != nullptr ? 0 : a.input_offset);
  std::int32_t r0 = 0;
  const requant_s8_avx2_consts rc = make_requant_s8_avx2(a);
  for (; r0 + 4 <= a.rows; r0 += 4) linear_s8_rows_avx2<4>(a, rc, r0, xoff);
  for (; r0 < a.rows; ++r0) linear_s8_rows_avx2<1>(a, rc, r0, xoff);
}

/// Inner block of `linear_s8_packed_avx2` (kept out of line so that its 8 accumulators get registers):
/// acc[i] += Σ over `n` full 16-column chunks (and the zero-padded chunk `xt` if not null) of
/// (x + xoff)·w for the 8 rows of the packed group at `p` (int32 lanes exact for ≤ 512 chunks).
[[gnu::noinline]] ARMLOWER_X86_AVX2 inline void packed8_block_avx2(const std::int8_t* x, std::ptrdiff_t n,
                                                                  const std::int8_t* xt, const std::int8_t* p,
                                                                  std::int16_t xoff, std::int64_t* acc) noexcept {
  const __m256i off = _mm256_set1_epi16(xoff);
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
#define ARMLOWER_PK(i, A) \
  (A) = _mm256_add_epi32((A), _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + std::ptrdiff_t{16} * (i))))));
#define ARMLOWER_PK_STEP(xs)                                                                                      \
  {                                                                                                               \
    const __m256i xv =                                                                                            \
        _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xs))), off);       \
    ARMLOWER_PK(0, a0) ARMLOWER_PK(1, a1) ARMLOWER_PK(2, a2) ARMLOWER_PK(3, a3)                                   \
    ARMLOWER_PK(4, a4) ARMLOWER_PK(5, a5) ARMLOWER_PK(6, a6) ARMLOWER_PK(7, a7)                                   \
    p += 128;                                                                                                     \
  }
  for (std::ptrdiff_t c = 0; c < n; ++c) ARMLOWER_PK_STEP(x + c * 16)
  if (xt != nullptr) ARMLOWER_PK_STEP(xt)
#undef ARMLOWER_PK_STEP
#undef ARMLOWER_PK
  const __m256i s0 = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
  const __m256i s1 = _mm256_hadd_epi32(_mm256_hadd_epi32(a4, a5), _mm256_hadd_epi32(a6, a7));
  const __m256i lo = _mm256_cvtepi32_epi64(_mm_add_epi32(_mm256_castsi256_si128(s0), _mm256_extracti128_si256(s0, 1)));
  const __m256i hi = _mm256_cvtepi32_epi64(_mm_add_epi32(_mm256_castsi256_si128(s1), _mm256_extracti128_si256(s1, 1)));
  auto* accv = reinterpret_cast<__m256i*>(acc);
  _mm256_storeu_si256(accv, _mm256_add_epi64(_mm256_loadu_si256(accv), lo));
  _mm256_storeu_si256(accv + 1, _mm256_add_epi64(_mm256_loadu_si256(accv + 1), hi));
}

/// AVX2 s8 fused linear over the weights of an AVX2-layout `kernels::pack_linear_s8` buffer (groups of 8 rows;
/// per 16-column chunk the 8 rows' 16 bytes are contiguous — two 64-byte lines per step, one stream;
/// rows and columns zero-padded). Same integers as `linear_s8_avx2`. Preconditions: `validate(a) == ok`,
/// `packed` holds those weights (`kernels/detail/linear_s8_packed_layout.hpp`, `avx2`), CPU has AVX2.
ARMLOWER_X86_AVX2 inline void linear_s8_packed_avx2(const linear_s8_args& args, const std::int8_t* packed) noexcept {
  const linear_s8_args a = args;
  const std::ptrdiff_t cols = a.cols;
  const std::ptrdiff_t chunks = (cols + 15) / 16;
  const std::ptrdiff_t full_chunks = cols / 16;
  const bool ks = a.kernel_sum != nullptr;
  const auto xoff = static_cast<std::int16_t>(ks ? 0 : a.input_offset);
  constexpr std::ptrdiff_t blk = s8_block_with_offsets / 16;  // chunks per exact int32 block
  const requant_s8_avx2_consts rc = make_requant_s8_avx2(a);
  for (std::int32_t r0 = 0; r0 < a.rows; r0 += 8) {
    const int nr = a.rows - r0 < 8 ? a.rows - r0 : 8;
    const std::int8_t* g = packed + static_cast<std::ptrdiff_t>(r0 / 8) * chunks * 128;
    for (std::int32_t b = 0; b < a.batches; ++b) {
      const std::int8_t* x = a.input + b * cols;
      alignas(16) std::int8_t xt[16] = {};  // zero-padded last partial chunk of x
      for (std::ptrdiff_t t = full_chunks * 16; t < cols; ++t) xt[t - full_chunks * 16] = x[t];
      alignas(32) std::int64_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (std::ptrdiff_t c0 = 0; c0 < chunks; c0 += blk) {
        const std::ptrdiff_t c1 = c0 + blk < chunks ? c0 + blk : chunks;
        const std::ptrdiff_t cf = c1 < full_chunks ? c1 : full_chunks;
        packed8_block_avx2(x + c0 * 16, cf - c0, cf < c1 ? xt : nullptr, g + c0 * 128, xoff, acc);
      }
      std::int64_t xsum = 0;
      if (a.filter_offset != 0) {
        for (std::ptrdiff_t k = 0; k < cols; ++k) xsum += x[k];
        xsum += static_cast<std::int64_t>(xoff) * cols;
      }
      std::int64_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int i = 0; i < nr; ++i) {
        const std::int32_t r = r0 + i;
        const std::int64_t cst = ks ? a.kernel_sum[r] : (a.bias != nullptr ? a.bias[r] : 0);
        v[i] = cst + acc[i] + static_cast<std::int64_t>(a.filter_offset) * xsum;
      }
      std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows + r0;
      int i = 0;
      for (; i + 4 <= nr; i += 4) requant4_s8_avx2(a, rc, r0 + i, v + i, y + i);
      for (; i < nr; ++i) y[i] = requantize_row_s8(a, r0 + i, v[i]);
    }
  }
}

/// AVX2 s16×s8 fused linear, output channels from `r_first` on (the rest are not written). Preconditions:
/// `validate(a) == ok`, 0 ≤ r_first, CPU has AVX2. Placed at a 64-byte boundary: on Zen 5 the same instructions
/// 16 bytes off it ran 12 % slower (4000 × 4 and 8 × 2048², AVX2 proxy), after an edit elsewhere in the binary.
[[gnu::aligned(64)]] ARMLOWER_X86_AVX2 inline void linear_s16_avx2(const linear_s16_args& a, std::int32_t r_first = 0) noexcept {
  constexpr std::ptrdiff_t block = 2048;  // 128 vpmaddwd steps per lane: |lane| ≤ 128·2^23 = 2^30
  const std::ptrdiff_t cols = a.cols;
  for (std::int32_t r0 = r_first; r0 < a.rows; r0 += 4) {
    const int nr = a.rows - r0 < 4 ? a.rows - r0 : 4;
    const std::int8_t* w[4];
    for (int i = 0; i < 4; ++i) w[i] = a.weights + static_cast<std::ptrdiff_t>(r0 + (i < nr ? i : 0)) * cols;
    for (std::int32_t b = 0; b < a.batches; ++b) {
      const std::int16_t* x = a.input + b * cols;
      std::int64_t acc[4] = {0, 0, 0, 0};
      for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += block) {
        const std::ptrdiff_t k1 = k0 + block < cols ? k0 + block : cols;
        __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                        _mm256_setzero_si256()};
        std::ptrdiff_t k = k0;
        if (nr == 4) {
          for (; k + 16 <= k1; k += 16) {
            const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + k));
            for (int i = 0; i < 4; ++i) {
              s[i] = _mm256_add_epi32(
                  s[i], _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k)))));
            }
          }
        } else {
          for (; k + 16 <= k1; k += 16) {
            const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + k));
            for (int i = 0; i < nr; ++i) {
              s[i] = _mm256_add_epi32(
                  s[i], _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k)))));
            }
          }
        }
        for (int i = 0; i < nr; ++i) {
          std::int64_t t = hsum_epi32_avx2(s[i]);
          for (std::ptrdiff_t kk = k; kk < k1; ++kk) t += static_cast<std::int64_t>(x[kk]) * w[i][kk];
          acc[i] += t;
        }
      }
      for (int i = 0; i < nr; ++i) {
        const std::int32_t r = r0 + i;
        const std::int64_t v = a.bias != nullptr ? add_sat64(acc[i], a.bias[r]) : acc[i];
        a.output[b * a.rows + r] = requantize_row_s16(a, r, v);
      }
    }
  }
}

#undef ARMLOWER_X86_AVX2

}  // namespace armlower::kernels::detail
