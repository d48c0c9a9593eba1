/// @file armlower/kernels/arch/x86/linear_vnni_reduce.hpp
/// AVX-512 transpose-add trees of the row-major VNNI forms (`linear_vnni_rowdot.hpp`,
/// `linear_vnni_rowgroup.hpp`): n vectors of lane partial sums → one vector of their n sums, lane j = Σ
/// lanes of vector j. Each level adds the two interleavings of a pair (`vpunpck*`, then 128-bit lane
/// shuffles), so n vectors cost n − 1 adds and 2(n − 1) shuffles. Exact: int32 sums of D values that the
/// callers bound below 2^31, int64 sums of Σu. Firmware-clean (host only): noexcept, no heap, no static data.
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>

namespace armlower::kernels::detail {

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIT_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_VNNIT_INLINE __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni"), always_inline))
#endif

/// `vshufi64x2` (128-bit lanes: a[I0], a[I1], b[I2], b[I3]); element copies under SIMDe 0.7, which lacks it.
template <int I>
ARMLOWER_X86_VNNIT_INLINE inline __m512i shuf128(__m512i a, __m512i b) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int64_t x[8], y[8], r[8];
  _mm512_store_si512(x, a);
  _mm512_store_si512(y, b);
  for (std::ptrdiff_t j = 0; j < 4; ++j) {
    const std::ptrdiff_t sel = (I >> (2 * j)) & 3;
    const std::int64_t* src = j < 2 ? x : y;
    r[2 * j] = src[2 * sel];
    r[2 * j + 1] = src[2 * sel + 1];
  }
  return _mm512_load_si512(r);
#else
  return _mm512_maskz_shuffle_i64x2(all8, a, b, I);
#endif
}

/// One transpose-add step of the int32 trees below: a and b interleaved by 32 bits, both halves added (per 128-bit
/// lane [a0 + a2, b0 + b2, a1 + a3, b1 + b3]).
ARMLOWER_X86_VNNIT_INLINE inline __m512i unpack_add_epi32(__m512i a, __m512i b) noexcept {
  return _mm512_add_epi32(ARMLOWER_Z512(unpacklo_epi32, all16, a, b), ARMLOWER_Z512(unpackhi_epi32, all16, a, b));
}

/// The next step: a and b interleaved by 64 bits, added as int32 (per 128-bit lane [a01 + a23, b01 + b23] of the
/// pairs the previous step left).
ARMLOWER_X86_VNNIT_INLINE inline __m512i unpack_add_epi64x32(__m512i a, __m512i b) noexcept {
  return _mm512_add_epi32(ARMLOWER_Z512(unpacklo_epi64, all8, a, b), ARMLOWER_Z512(unpackhi_epi64, all8, a, b));
}

/// 8 vectors of 16 int32 lanes → one __m256i of their 8 lane sums (exact: each sum is a D < 2^31).
ARMLOWER_X86_VNNIT_INLINE inline __m256i reduce8_epi32(const __m512i* a) noexcept {
  const __m512i s01 = unpack_add_epi32(a[0], a[1]);
  const __m512i s23 = unpack_add_epi32(a[2], a[3]);
  const __m512i s45 = unpack_add_epi32(a[4], a[5]);
  const __m512i s67 = unpack_add_epi32(a[6], a[7]);
  // per 128-bit lane: [r0, r1, r2, r3] and [r4, r5, r6, r7] partial sums
  const __m512i s03 = unpack_add_epi64x32(s01, s23);
  const __m512i s47 = unpack_add_epi64x32(s45, s67);
  // 128-bit lanes [s03.0 + s03.1, s03.2 + s03.3, s47.0 + s47.1, s47.2 + s47.3]
  const __m512i t = _mm512_add_epi32(shuf128<0x88>(s03, s47), shuf128<0xDD>(s03, s47));
  // [s03 total, s47 total, …]
  const __m512i u = _mm512_add_epi32(shuf128<0x08>(t, t), shuf128<0x0D>(t, t));
  return ARMLOWER_Z512(extracti64x4_epi64, all4, u, 0);
}

/// 4 vectors of 16 int32 lanes → one __m128i of their 4 lane sums (exact: each sum is < 2^31 in magnitude).
ARMLOWER_X86_VNNIT_INLINE inline __m128i reduce4_epi32(const __m512i* a) noexcept {
  const __m512i s01 = unpack_add_epi32(a[0], a[1]);
  const __m512i s23 = unpack_add_epi32(a[2], a[3]);
  // per 128-bit lane: [a0, a1, a2, a3] partials; then the four lanes added
  const __m512i s = unpack_add_epi64x32(s01, s23);
  const __m512i u = _mm512_add_epi32(s, shuf128<0x4E>(s, s));
  const __m512i t = _mm512_add_epi32(u, shuf128<0xB1>(u, u));
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  return _mm512_extracti32x4_epi32(t, 0);
#else
  return _mm512_maskz_extracti32x4_epi32(all4, t, 0);  // the zero-masked form: GCC 12 warns on the plain one (bug 105593)
#endif
}

/// 8 vectors of 8 int64 lanes → one __m512i of their 8 lane sums.
ARMLOWER_X86_VNNIT_INLINE inline __m512i reduce8_epi64(const __m512i* a) noexcept {
  const __m512i s01 = _mm512_add_epi64(ARMLOWER_Z512(unpacklo_epi64, all8, a[0], a[1]), ARMLOWER_Z512(unpackhi_epi64, all8, a[0], a[1]));
  const __m512i s23 = _mm512_add_epi64(ARMLOWER_Z512(unpacklo_epi64, all8, a[2], a[3]), ARMLOWER_Z512(unpackhi_epi64, all8, a[2], a[3]));
  const __m512i s45 = _mm512_add_epi64(ARMLOWER_Z512(unpacklo_epi64, all8, a[4], a[5]), ARMLOWER_Z512(unpackhi_epi64, all8, a[4], a[5]));
  const __m512i s67 = _mm512_add_epi64(ARMLOWER_Z512(unpacklo_epi64, all8, a[6], a[7]), ARMLOWER_Z512(unpackhi_epi64, all8, a[6], a[7]));
  // 128-bit lanes of s01: [r0, r1] partials ×4 → t0 = [s01 L0+L1, s01 L2+L3, s23 L0+L1, s23 L2+L3]
  const __m512i t0 = _mm512_add_epi64(shuf128<0x88>(s01, s23), shuf128<0xDD>(s01, s23));
  const __m512i t1 = _mm512_add_epi64(shuf128<0x88>(s45, s67), shuf128<0xDD>(s45, s67));
  // [r01, r23, r45, r67] totals
  return _mm512_add_epi64(shuf128<0x88>(t0, t1), shuf128<0xDD>(t0, t1));
}

/// 8 vectors of 16 int32 lanes, each two halves of 8 partial sums → one vector of their 16 half sums: lanes 0–3 =
/// Σ low 256 bits of v[0..3], lanes 4–7 = Σ high 256 bits of v[0..3], lanes 8–15 the same for v[4..7] (exact: each
/// sum is a D < 2^31). 7 adds, 14 shuffles.
ARMLOWER_X86_VNNIT_INLINE inline __m512i reduce8x2_epi32(const __m512i* v) noexcept {
  __m512i s2[4];
#pragma GCC unroll 4
  for (std::ptrdiff_t i = 0; i < 4; ++i) {  // per 128-bit lane: [v2i, v2i+1, v2i, v2i+1] partials
    s2[i] = unpack_add_epi32(v[2 * i], v[2 * i + 1]);
  }
  // per 128-bit lane: [v0, v1, v2, v3] and [v4, v5, v6, v7] partials
  const __m512i a = unpack_add_epi64x32(s2[0], s2[1]);
  const __m512i b = unpack_add_epi64x32(s2[2], s2[3]);
  // 128-bit lanes [a L0 + L1, a L2 + L3, b L0 + L1, b L2 + L3]
  return _mm512_add_epi32(shuf128<0x88>(a, b), shuf128<0xDD>(a, b));
}

#undef ARMLOWER_X86_VNNIT_INLINE

}  // namespace armlower::kernels::detail
