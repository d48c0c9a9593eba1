/// @file armlower/kernels/mx/arch/x86_avx2.hpp
/// x86 AVX2 MATMUL_T_BLOCK_SCALED row kernels (host only; compiled when `__AVX2__` is defined, e.g.
/// with -march=native or -mavx2 -mfma). Two strategies (kernels.md §6):
///  - `int8_rows<T>` for FP4E2M1 (×2 → int8 via one `vpshufb` per block), FP6E2M3 (×8 → int8 via two
///    `vpshufb` + blend) and MXINT8 (raw int8, widened to int16): exact int32 block sums
///    (`vpmaddubsw`/`vpmaddwd`, no saturation possible for |values| ≤ 60), reduced 8 blocks at a time
///    with a `vphaddd` tree into one lane per B row, then `block_acc · (scale_A · scale_B)` and the fp32
///    accumulation in block order, lane-wise for 8 rows. **Bit-identical to the pseudocode path** (`reference_rows`) because
///    the pseudocode's fp32 block sums are exact for these types (arch/generic.hpp).
///  - `fp8_rows<T>` for FP8E4M3/FP8E5M2: B decoded to fp32 with the bit trick `(sext(b) << 20) & 0x87F00000`
///    (E4M3; E5M2: `<< 21`, `& 0x8FE00000`; done on whole 32-bit lanes with shifts) = value·2^-120 (2^-112), exact incl. subnormals (needs no
///    FTZ/DAZ), A decoded once per tile and pre-scaled so no product is subnormal; 8-lane FMA
///    accumulation. Blocks holding NaN/Inf codes take the scalar pseudocode. The summation order
///    differs from the pseudocode, so results are **only within the TOSA dot-product bound**
///    (tosa.md §6), not bit-identical.
/// Both tile B rows (8 resp. 4) so each decoded A block is reused, and loop B tiles outermost so a
/// batch of A rows reuses the B tile from L1 (GEMM).
#pragma once

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <armlower/kernels/mx/arch/generic.hpp>
#include <armlower/mx/e8m0.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::kernels::mx::arch::avx2 {

/// True when this translation unit was compiled with AVX2 + FMA.
inline constexpr bool available = true;

namespace detail {

/// The 8 E8M0 codes at p (n ≤ 8 valid; missing lanes are code 0) as int32 lanes.
inline __m256i e8m0_codes8(const std::uint8_t* p, std::size_t n) noexcept {
  if (n == 8) return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  alignas(16) std::uint8_t tmp[16] = {};
  for (std::size_t i = 0; i < n; ++i) tmp[i] = p[i];
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(tmp)));
}

/// fp32 values of 8 E8M0 codes given as int32 lanes (0x00 → 2^-127 subnormal, 0xFF → NaN).
inline __m256 e8m0_decode8(__m256i c) noexcept {
  __m256i v = _mm256_slli_epi32(c, 23);
  v = _mm256_blendv_epi8(v, _mm256_set1_epi32(0x00400000), _mm256_cmpeq_epi32(c, _mm256_setzero_si256()));
  v = _mm256_blendv_epi8(v, _mm256_set1_epi32(0x7FC00000), _mm256_cmpeq_epi32(c, _mm256_set1_epi32(255)));
  return _mm256_castsi256_ps(v);
}

inline __m256 e8m0x8(const std::uint8_t* p, std::size_t n) noexcept { return e8m0_decode8(e8m0_codes8(p, n)); }

/// int8 values ×2^k of the 32 codes of one block (FP4: 16 packed bytes; E2M3: 32 bytes).
template <dtype::id T>
inline __m256i block_i8(const std::uint8_t* p) noexcept {
  if constexpr (T == dtype::id::fp4e2m1) {
    const __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    const __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(v, _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4)),
                                         _mm256_set1_epi8(0x0F));
    const __m256i lut = _mm256_setr_epi8(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12,
                                         0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    return _mm256_shuffle_epi8(lut, idx);
  } else {  // fp6e2m3: magnitude ×8 = 0..7, 8..15, 16..30 step 2, 32..60 step 4
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i lo = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m256i hi = _mm256_setr_epi8(16, 18, 20, 22, 24, 26, 28, 30, 32, 36, 40, 44, 48, 52, 56, 60,
                                        16, 18, 20, 22, 24, 26, 28, 30, 32, 36, 40, 44, 48, 52, 56, 60);
    const __m256i idx = _mm256_and_si256(c, _mm256_set1_epi8(0x0F));
    const __m256i b4 = _mm256_set1_epi8(0x10);
    const __m256i mag = _mm256_blendv_epi8(_mm256_shuffle_epi8(lo, idx), _mm256_shuffle_epi8(hi, idx),
                                           _mm256_cmpeq_epi8(_mm256_and_si256(c, b4), b4));
    // Sign: c << 2 moves the sign bit (bit 5) to bit 7 of every byte (the 16-bit shift only carries
    // bits 6..7 of the low byte into bits 0..1 of the high byte). `vpsignb` negates where that byte is
    // negative; where it is zero the code is +0 and the magnitude is 0 anyway.
    return _mm256_sign_epi8(mag, _mm256_slli_epi16(c, 2));
  }
}

/// out[g][q] = p[q * stride + g] for an 8×8 tile of E8M0 codes (rows q, blocks g), widened to int32.
inline void transpose_scales8(const std::uint8_t* p, std::size_t stride, std::int32_t (*out)[8]) noexcept {
  __m128i r[8];
  for (int q = 0; q < 8; ++q) r[q] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + q * stride));
  const __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
  const __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
  const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
  const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
  const __m128i c[4] = {_mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2), _mm_unpacklo_epi32(b1, b3),
                        _mm_unpackhi_epi32(b1, b3)};  // c[k] = columns 2k, 2k+1 (8 bytes each)
  for (int k = 0; k < 4; ++k) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(out[2 * k]), _mm256_cvtepu8_epi32(c[k]));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out[2 * k + 1]), _mm256_cvtepu8_epi32(_mm_srli_si128(c[k], 8)));
  }
}

/// Sums of 8 int32x8 vectors: lane g of the result = sum of v[g].
inline __m256i hsum8(const __m256i* v) noexcept {
  const __m256i t0 = _mm256_hadd_epi32(v[0], v[1]), t1 = _mm256_hadd_epi32(v[2], v[3]);
  const __m256i t2 = _mm256_hadd_epi32(v[4], v[5]), t3 = _mm256_hadd_epi32(v[6], v[7]);
  const __m256i u0 = _mm256_hadd_epi32(t0, t1), u1 = _mm256_hadd_epi32(t2, t3);
  return _mm256_add_epi32(_mm256_permute2x128_si256(u0, u1, 0x20), _mm256_permute2x128_si256(u0, u1, 0x31));
}

inline float hsum(__m256 v) noexcept {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

}  // namespace detail

/// Exact-integer AVX2 rows for T ∈ {FP4E2M1, FP6E2M3, MXINT8}; bit-identical to `reference_rows<T>`.
/// Tiles of 8 B rows: per block, the 8 rows' int32 partial vectors are reduced with one `vphaddd`
/// tree into a vector whose lane r is row r's exact block sum, so the per-block fp32 steps
/// (`block_acc · (sA·sB)`, `acc += …`) run lane-wise for 8 rows at once, in block order as the
/// pseudocode does.
template <dtype::id T>
inline void int8_rows(const rows_args& r) noexcept {
  static_assert(T == dtype::id::fp4e2m1 || T == dtype::id::fp6e2m3 || T == dtype::id::mxint8);
  constexpr bool i16 = T == dtype::id::mxint8;
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t block_bytes = armlower::mx::storage_bytes(T, bs);
  const std::size_t stride = armlower::mx::storage_bytes(T, r.c);
  const std::size_t nb = r.c / bs;
  const __m256 unscale = _mm256_set1_ps(armlower::mx::detail::pow2f(-2 * armlower::mx::format(T).int_shift));
  const __m256i ones = _mm256_set1_epi16(1);
  alignas(32) std::int8_t a_raw[8][32];
  alignas(32) std::int8_t a_abs[8][32];
  alignas(32) std::int16_t a_w[8][32];
  alignas(32) std::int32_t sb_t[8][8];  // [block][row] scale codes of the tile
  alignas(32) float out_t[8];
  for (std::size_t j0 = 0; j0 < r.w; j0 += 8) {
    const std::size_t jt = r.w - j0 < 8 ? r.w - j0 : 8;
    for (std::size_t i = 0; i < r.h; ++i) {
      const std::uint8_t* ar = r.a + i * stride;
      __m256 acc = _mm256_setzero_ps();  // lane q: output (i, j0 + q)
      for (std::size_t g0 = 0; g0 < nb; g0 += 8) {
        const std::size_t gn = nb - g0 < 8 ? nb - g0 : 8;
        for (std::size_t g = 0; g < gn; ++g) {
          const std::uint8_t* p = ar + (g0 + g) * block_bytes;
          if constexpr (i16) {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
            _mm256_store_si256(reinterpret_cast<__m256i*>(&a_w[g][0]), _mm256_cvtepi8_epi16(_mm256_castsi256_si128(v)));
            _mm256_store_si256(reinterpret_cast<__m256i*>(&a_w[g][16]), _mm256_cvtepi8_epi16(_mm256_extracti128_si256(v, 1)));
          } else {
            const __m256i v = detail::block_i8<T>(p);
            _mm256_store_si256(reinterpret_cast<__m256i*>(a_raw[g]), v);
            _mm256_store_si256(reinterpret_cast<__m256i*>(a_abs[g]), _mm256_abs_epi8(v));
          }
        }
        if (gn == 8 && jt == 8) {
          detail::transpose_scales8(r.b_scale + j0 * nb + g0, nb, sb_t);
        } else {
          for (std::size_t q = 0; q < 8; ++q)
            for (std::size_t g = 0; g < gn; ++g) sb_t[g][q] = q < jt ? r.b_scale[(j0 + q) * nb + g0 + g] : 0;
        }
        for (std::size_t g = 0; g < gn; ++g) {
          __m256i v[8];
          for (std::size_t q = 0; q < 8; ++q) {
            if (q >= jt) {
              v[q] = _mm256_setzero_si256();
              continue;
            }
            const std::uint8_t* p = r.b + (j0 + q) * stride + (g0 + g) * block_bytes;
            if constexpr (i16) {
              const __m256i bv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
              const __m256i lo = _mm256_madd_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(&a_w[g][0])),
                                                   _mm256_cvtepi8_epi16(_mm256_castsi256_si128(bv)));
              const __m256i hi = _mm256_madd_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(&a_w[g][16])),
                                                   _mm256_cvtepi8_epi16(_mm256_extracti128_si256(bv, 1)));
              v[q] = _mm256_add_epi32(lo, hi);
            } else {
              const __m256i bv = detail::block_i8<T>(p);
              const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(a_raw[g]));
              const __m256i aa = _mm256_load_si256(reinterpret_cast<const __m256i*>(a_abs[g]));
              v[q] = _mm256_madd_epi16(_mm256_maddubs_epi16(aa, _mm256_sign_epi8(bv, a)), ones);
            }
          }
          const __m256 blk = _mm256_mul_ps(_mm256_cvtepi32_ps(detail::hsum8(v)), unscale);  // exact
          const __m256 sa = _mm256_set1_ps(armlower::mx::decode_e8m0(r.a_scale[i * nb + g0 + g]));
          const __m256 sb = detail::e8m0_decode8(_mm256_load_si256(reinterpret_cast<const __m256i*>(sb_t[g])));
          acc = _mm256_add_ps(acc, _mm256_mul_ps(blk, _mm256_mul_ps(sa, sb)));
        }
      }
      _mm256_store_ps(out_t, acc);
      for (std::size_t q = 0; q < jt; ++q) r.out[i * r.w + j0 + q] = out_t[q];
    }
  }
}

/// FP8 AVX2 rows for T ∈ {FP8E4M3, FP8E5M2}; within the TOSA dot-product bound of the pseudocode.
/// Each 32-byte block is loaded once and split into 4 vectors by byte position within 32-bit lanes
/// (vector j holds elements 4L+j): A and B use the same permutation, so the products pair up.
template <dtype::id T>
inline void fp8_rows(const rows_args& r) noexcept {
  static_assert(T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2);
  constexpr bool e4 = T == dtype::id::fp8e4m3;
  constexpr int sh = e4 ? 4 : 3;           // arithmetic right shift placing the top byte's magnitude
  constexpr int trick = e4 ? 120 : 112;    // decoded bits value = real · 2^-trick
  constexpr int ca = e4 ? 100 : 64;        // A is held as real · 2^ca
  constexpr int unscale_exp = trick - ca;  // product = real · 2^(ca - trick)
  constexpr std::size_t bs = armlower::mx::block_size;
  const __m256i mask = _mm256_set1_epi32(e4 ? static_cast<int>(0x87F00000u) : static_cast<int>(0x8FE00000u));
  // special codes: E4M3 S.1111.111 (NaN); E5M2 S.11111.xx (Inf/NaN): (b | keep) == 0xFF
  const __m256i keep = _mm256_set1_epi8(static_cast<char>(e4 ? 0x80 : 0x83));
  const __m256i all1 = _mm256_set1_epi8(static_cast<char>(0xFF));
  const __m256 up1 = _mm256_set1_ps(armlower::mx::detail::pow2f(trick));
  const __m256 up2 = _mm256_set1_ps(armlower::mx::detail::pow2f(ca));
  const std::size_t nb = r.c / bs;
  auto split = [&](__m256i v, __m256& d0, __m256& d1, __m256& d2, __m256& d3) {
    d3 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_srai_epi32(v, sh), mask));
    d2 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_srai_epi32(_mm256_slli_epi32(v, 8), sh), mask));
    d1 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_srai_epi32(_mm256_slli_epi32(v, 16), sh), mask));
    d0 = _mm256_castsi256_ps(_mm256_and_si256(_mm256_srai_epi32(_mm256_slli_epi32(v, 24), sh), mask));
  };
  auto special = [&](__m256i v) {
    return _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_or_si256(v, keep), all1)) != 0;
  };
  auto scalar_block = [&](const std::uint8_t* pa, const std::uint8_t* pb) {
    float s = 0.0f;
    for (std::size_t e = 0; e < bs; ++e) s += armlower::mx::decode<T>(pa[e]) * armlower::mx::decode<T>(pb[e]);
    return s;
  };
  alignas(32) float ad[8][32];
  alignas(32) float fct[8];
  // factor = 2^(sa-127) · 2^(sb-127) · 2^unscale_exp as a biased fp32 exponent field
  const __m256i kbias = _mm256_set1_epi32(unscale_exp - 254 + 127);
  for (std::size_t j0 = 0; j0 < r.w; j0 += 4) {
    const std::size_t jt = r.w - j0 < 4 ? r.w - j0 : 4;
    for (std::size_t i = 0; i < r.h; ++i) {
      const std::uint8_t* ar = r.a + i * r.c;
      __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
      float extra[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      for (std::size_t g0 = 0; g0 < nb; g0 += 8) {
        const std::size_t gn = nb - g0 < 8 ? nb - g0 : 8;
        unsigned a_special = 0;
        for (std::size_t g = 0; g < gn; ++g) {
          const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ar + (g0 + g) * bs));
          a_special |= special(v) ? 1u << g : 0u;
          __m256 d0, d1, d2, d3;
          split(v, d0, d1, d2, d3);
          _mm256_store_ps(&ad[g][0], _mm256_mul_ps(_mm256_mul_ps(d0, up1), up2));
          _mm256_store_ps(&ad[g][8], _mm256_mul_ps(_mm256_mul_ps(d1, up1), up2));
          _mm256_store_ps(&ad[g][16], _mm256_mul_ps(_mm256_mul_ps(d2, up1), up2));
          _mm256_store_ps(&ad[g][24], _mm256_mul_ps(_mm256_mul_ps(d3, up1), up2));
        }
        const __m256i sa = detail::e8m0_codes8(r.a_scale + i * nb + g0, gn);
        for (std::size_t jj = 0; jj < jt; ++jj) {
          const std::uint8_t* br = r.b + (j0 + jj) * r.c;
          const __m256i sb = detail::e8m0_codes8(r.b_scale + (j0 + jj) * nb + g0, gn);
          const __m256i k = _mm256_add_epi32(_mm256_add_epi32(sa, sb), kbias);
          _mm256_store_ps(fct, _mm256_castsi256_ps(_mm256_slli_epi32(k, 23)));
          // lanes whose factor is not a normal fp32 (or a NaN scale): exact scalar factor
          const __m256i bad = _mm256_or_si256(
              _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(1), k), _mm256_cmpgt_epi32(k, _mm256_set1_epi32(254))),
              _mm256_or_si256(_mm256_cmpeq_epi32(sa, _mm256_set1_epi32(255)), _mm256_cmpeq_epi32(sb, _mm256_set1_epi32(255))));
          if (const unsigned badm = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(bad))); badm != 0) {
            for (std::size_t g = 0; g < gn; ++g) {
              if (((badm >> g) & 1u) == 0) continue;
              const std::uint8_t ca8 = r.a_scale[i * nb + g0 + g], cb8 = r.b_scale[(j0 + jj) * nb + g0 + g];
              const int kk = int(ca8) + int(cb8) - 254 + unscale_exp;
              fct[g] = (ca8 == 255 || cb8 == 255) ? std::numeric_limits<float>::quiet_NaN()
                       : kk < -149                ? 0.0f
                       : kk > 127                 ? std::numeric_limits<float>::infinity()
                                                  : armlower::mx::detail::pow2f(kk);
            }
          }
          __m256 av = acc[jj];  // a register, not a store/load chain through acc[]
          // Fast pass over the group; special codes are detected with an OR-accumulated byte compare
          // and, if any, the group is redone from the saved accumulator with the per-block check.
          const __m256 av_saved = av;
          __m256i spec = _mm256_setzero_si256();
          for (std::size_t g = 0; g < gn; ++g) {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(br + (g0 + g) * bs));
            spec = _mm256_or_si256(spec, _mm256_cmpeq_epi8(_mm256_or_si256(v, keep), all1));
            __m256 d0, d1, d2, d3;
            split(v, d0, d1, d2, d3);
            __m256 p0 = _mm256_mul_ps(d0, _mm256_load_ps(&ad[g][0]));
            __m256 p1 = _mm256_mul_ps(d1, _mm256_load_ps(&ad[g][8]));
            p0 = _mm256_fmadd_ps(d2, _mm256_load_ps(&ad[g][16]), p0);
            p1 = _mm256_fmadd_ps(d3, _mm256_load_ps(&ad[g][24]), p1);
            av = _mm256_fmadd_ps(_mm256_add_ps(p0, p1), _mm256_broadcast_ss(&fct[g]), av);
          }
          if (a_special != 0 || _mm256_movemask_epi8(spec) != 0) {
            av = av_saved;
            for (std::size_t g = 0; g < gn; ++g) {
              const std::uint8_t* pb = br + (g0 + g) * bs;
              const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pb));
              if (((a_special >> g) & 1u) != 0 || special(v)) {
                const std::uint8_t* pa = ar + (g0 + g) * bs;
                extra[jj] += scalar_block(pa, pb) * (armlower::mx::decode_e8m0(r.a_scale[i * nb + g0 + g]) *
                                                     armlower::mx::decode_e8m0(r.b_scale[(j0 + jj) * nb + g0 + g]));
                continue;
              }
              __m256 d0, d1, d2, d3;
              split(v, d0, d1, d2, d3);
              __m256 p0 = _mm256_mul_ps(d0, _mm256_load_ps(&ad[g][0]));
              __m256 p1 = _mm256_mul_ps(d1, _mm256_load_ps(&ad[g][8]));
              p0 = _mm256_fmadd_ps(d2, _mm256_load_ps(&ad[g][16]), p0);
              p1 = _mm256_fmadd_ps(d3, _mm256_load_ps(&ad[g][24]), p1);
              av = _mm256_fmadd_ps(_mm256_add_ps(p0, p1), _mm256_broadcast_ss(&fct[g]), av);
            }
          }
          acc[jj] = av;
        }
      }
      for (std::size_t jj = 0; jj < jt; ++jj) r.out[i * r.w + j0 + jj] = detail::hsum(acc[jj]) + extra[jj];
    }
  }
}

}  // namespace armlower::kernels::mx::arch::avx2

#else
namespace armlower::kernels::mx::arch::avx2 {
/// False: this translation unit was compiled without AVX2 + FMA.
inline constexpr bool available = false;
}  // namespace armlower::kernels::mx::arch::avx2
#endif
