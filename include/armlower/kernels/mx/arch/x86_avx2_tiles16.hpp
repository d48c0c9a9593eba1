/// @file armlower/kernels/mx/arch/x86_avx2_tiles16.hpp
/// x86 AVX2 MATMUL_T_BLOCK_SCALED rows over a B packed in the tiles16 layout (detail/tiles16.hpp) for
/// the integer element types (MXINT8, FP6E2M3, FP4E2M1): the packed path of AVX2-only CPUs. Compiled
/// where arch/x86_avx2.hpp's kernels are (AVX2 + FMA).
///
/// Each 64-byte vector of a block tile holds 4 consecutive columns of the tile's 16 rows; its two
/// 32-byte halves (rows 0–7 and 8–15) are one ymm each. `vpmaddubsw` of a half (B's unsigned bytes)
/// with 4 A values broadcast gives, per row, two int16 pair sums; a few steps are added in int16 (the
/// bounds below keep them exact), then `vpmaddwd` with 1 (or 16) widens them into the row's int32 lane.
/// So a block's sum lands in one lane per B row with no horizontal reduction — the row-major kernel
/// (`int8_rows`) spends a `vphaddd` tree per block and 8 rows on that.
///  - FP6E2M3: B + 60 ∈ [0, 120], A ×8 ∈ [−60, 60]: a pair sum ≤ 14 400, two steps ≤ 28 800.
///  - FP4E2M1: the nibbles looked up (`vpshufb`) as B ×2 + 12 ∈ [0, 24], A ×2 ∈ [−12, 12]: a pair sum
///    ≤ 576, a whole block (16 pairs per lane) ≤ 9216.
///  - MXINT8: B + 128 ∈ [0, 255] with A ∈ [−128, 127] could reach 65 280 (saturating), so A is split
///    once per chunk into a = 16·ah + al (al = a & 15 ∈ [0, 15], ah = a >> 4 ∈ [−8, 7]): pair sums
///    ≤ 7650 (al, four steps ≤ 30 600) and ∈ [−4080, 3570] (ah, a whole block ≤ 32 640 in magnitude);
///    Σ = 16·Σh + Σl.
/// Then `block_sum − offset · Σ A` and the fp32 block step lane-wise in block order, as the AVX-512
/// tiles16 kernel does: **bit-identical to the pseudocode path** (`reference_rows`).
#pragma once

#include <armlower/kernels/mx/arch/x86_avx2.hpp>
#include <armlower/kernels/mx/detail/tiles16.hpp>

namespace armlower::kernels::mx::arch::avx2 {
/// True when this build runs element type t on the tiles16 layout with the AVX2 kernel
/// (`tiles16_rows`): the integer types (MXINT8, FP6E2M3, FP4E2M1) where the AVX2 kernels are compiled.
[[nodiscard]] constexpr bool tiles16_runs(dtype::id t) noexcept {
  return available && kernels::mx::detail::tiles16_int_type(t);
}
}  // namespace armlower::kernels::mx::arch::avx2

#if defined(__AVX2__) && defined(__FMA__)
#include <cstddef>
#include <cstdint>

namespace armlower::kernels::mx::arch::avx2 {

/// A rows of `tiles16_rows` that share each B vector load: 2 for MXINT8 (two A planes and three
/// accumulators per row and half), 4 otherwise — what fits the 16 ymm registers.
template <dtype::id T>
inline constexpr std::size_t tiles16_a_rows = T == dtype::id::mxint8 ? 2 : 4;

/// Bytes ahead of the read position at which `tiles16_rows` prefetches B into L1, one 64-byte line at a time:
/// the distance measured best for the AVX-512 tiles16 kernel on Zen 5 (`avx512::prefetch_kind::l1_lines`), not
/// tuned again for this kernel or measured on an AVX2-only CPU.
inline constexpr std::size_t tiles16_prefetch = 8192;

/// Arguments of `tiles16_rows`: A row-major (armlower storage) and B in the tiles16 layout.
using tiles16_args = kernels::mx::detail::tiles16_operands;

namespace detail {

/// The 4 bytes at p broadcast to every 32-bit lane (`vpbroadcastd` from memory: a load-port operation).
/// An asm statement GCC neither shares between the two halves of a block tile nor hoists: with the
/// intrinsic, GCC 12 computed a block's broadcasts once for both halves and kept them (16 for MXINT8) in
/// registers and on the stack between them (Zen 5, x86-64-v3 code, B in L2, GFLOP/s, intrinsic → asm:
/// MXINT8 91 → 99–114, FP4E2M1 batch 8 116–130 → 159–168, FP6E2M3 batch 8 145–158 → 192–228; FP6E2M3
/// batch 1 170–214 → 161–189, within the noise).
inline __m256i bcast4(const std::int8_t* p) noexcept {
  __m256i r;
  asm volatile("vpbroadcastd %1, %0" : "=x"(r) : "m"(*reinterpret_cast<const std::int32_t*>(p)));
  return r;
}

/// A chunk of one A row (codes, scales `sc`, `gcount` blocks) for `tiles16_rows`: ai = its integers
/// ×2^int_shift in column order (MXINT8: the low nibbles a & 15, and in `ah` the high parts a >> 4; `ah` unused otherwise),
/// corr[g] = offset · Σ a over block g, sk[g] and the scale code range as `tiles16_a_scales`.
template <dtype::id T>
inline void tiles16_decode_a(const std::uint8_t* codes, const std::uint8_t* sc, std::size_t gcount, std::int8_t* ai,
                             std::int8_t* ah, std::int32_t* corr, std::int32_t* sk, int& sa_min, int& sa_max) noexcept {
  constexpr int us = 2 * armlower::mx::format(T).int_shift;
  constexpr int off = kernels::mx::detail::tiles16_offset(T);
  for (std::size_t g = 0; g < gcount; ++g) {
    __m256i v;
    if constexpr (T == dtype::id::mxint8) {
      v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + 32 * g));  // the codes are the integers
    } else if constexpr (T == dtype::id::fp6e2m3) {
      v = block_i8<T>(codes + 32 * g);
    } else {
      v = fp4_block_ordered(codes + 16 * g);
    }
    corr[g] = off * sum_i8x32(v);
    if constexpr (T == dtype::id::mxint8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(ai + 32 * g), _mm256_and_si256(v, _mm256_set1_epi8(0x0F)));
      // a >> 4 per byte: the 16-bit shift, the byte's own 4 high bits kept, sign-extended by (x ^ 8) − 8
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(0x0F));
      const __m256i eight = _mm256_set1_epi8(8);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(ah + 32 * g), _mm256_sub_epi8(_mm256_xor_si256(hi, eight), eight));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(ai + 32 * g), v);
    }
  }
  tiles16_a_scales<us>(sc, gcount, sk, sa_min, sa_max);
}

/// The exact int32 block sums of one half (8 rows, `Hf` 0 or 1) of one block tile at blk, for `Rows`
/// A rows (ai[h] / ah[h] at the block's first column): s[h] lane r = Σ over the block of B row r
/// (still offset) × A row h. B is prefetched `tiles16_prefetch` bytes ahead, one line per vector.
template <dtype::id T, std::size_t Rows, std::size_t Hf>
__attribute__((always_inline)) inline void tiles16_half_sums(const std::uint8_t* blk, const std::int8_t* const* ai,
                                                             const std::int8_t* const* ah, __m256i (&s)[Rows]) noexcept {
  const __m256i ones = _mm256_set1_epi16(1);
  auto pf = [&](std::size_t o) {
    if constexpr (Hf == 0) _mm_prefetch(reinterpret_cast<const char*>(blk + o + tiles16_prefetch), _MM_HINT_T0);
  };
  if constexpr (T == dtype::id::fp4e2m1) {
    const __m256i lut = fp4_lut<kernels::mx::detail::tiles16_offset(T)>();
    const __m256i m = _mm256_set1_epi8(0x0F);
    __m256i t[Rows];
#pragma GCC unroll 4
    for (std::size_t v = 0; v < 4; ++v) {
      pf(64 * v);
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 64 * v + 32 * Hf));
      const __m256i lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(c, m));
      const __m256i hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(c, 4), m));
#pragma GCC unroll 4
      for (std::size_t h = 0; h < Rows; ++h) {
        const __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(lo, bcast4(ai[h] + 8 * v)),
                                           _mm256_maddubs_epi16(hi, bcast4(ai[h] + 8 * v + 4)));
        t[h] = v == 0 ? p : _mm256_add_epi16(t[h], p);
      }
    }
#pragma GCC unroll 4
    for (std::size_t h = 0; h < Rows; ++h) s[h] = _mm256_madd_epi16(t[h], ones);
  } else if constexpr (T == dtype::id::fp6e2m3) {
#pragma GCC unroll 4
    for (std::size_t j = 0; j < 8; j += 2) {
      pf(64 * j);
      pf(64 * j + 64);
      const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 64 * j + 32 * Hf));
      const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 64 * j + 64 + 32 * Hf));
#pragma GCC unroll 4
      for (std::size_t h = 0; h < Rows; ++h) {
        const __m256i p = _mm256_add_epi16(_mm256_maddubs_epi16(x0, bcast4(ai[h] + 4 * j)),
                                           _mm256_maddubs_epi16(x1, bcast4(ai[h] + 4 * j + 4)));
        const __m256i w = _mm256_madd_epi16(p, ones);
        s[h] = j == 0 ? w : _mm256_add_epi32(s[h], w);
      }
    }
  } else {  // MXINT8: low nibbles in int16 four steps at a time, high parts over the whole block
    static_assert(T == dtype::id::mxint8);
    __m256i hsum[Rows], lsum[Rows];
#pragma GCC unroll 8
    for (std::size_t j = 0; j < 8; ++j) {
      pf(64 * j);
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 64 * j + 32 * Hf));
#pragma GCC unroll 4
      for (std::size_t h = 0; h < Rows; ++h) {
        const __m256i pl = _mm256_maddubs_epi16(x, bcast4(ai[h] + 4 * j));
        const __m256i ph = _mm256_maddubs_epi16(x, bcast4(ah[h] + 4 * j));
        hsum[h] = j == 0 ? ph : _mm256_add_epi16(hsum[h], ph);
        lsum[h] = j % 4 == 0 ? pl : _mm256_add_epi16(lsum[h], pl);
        if (j == 3) s[h] = _mm256_madd_epi16(lsum[h], ones);
        if (j == 7) s[h] = _mm256_add_epi32(s[h], _mm256_madd_epi16(lsum[h], ones));
      }
    }
#pragma GCC unroll 4
    for (std::size_t h = 0; h < Rows; ++h) s[h] = _mm256_add_epi32(s[h], _mm256_madd_epi16(hsum[h], _mm256_set1_epi16(16)));
  }
}

/// The fp32 block step for 8 lanes (one B row each), as the pseudocode: acc + (isum · 2^-us) ·
/// (scale_A · scale_B), the product rounded apart from the sum. `isum`: the exact block sums ×2^us
/// (below 2^24: exact in fp32); `sbc`: B's E8M0 codes per lane; `ask` = A's code − 127 − us (far below
/// any exponent for a NaN code), `sa` A's code. The factor is built in the exponent field, 2^(sbc +
/// ask), where every lane's is a normal exponent with sa · sb finite and no sb NaN — `Checked`: tested
/// here, else decoded and multiplied; unchecked: the caller has shown it for the tile
/// (`normal_factors`). The AVX2 form of `avx512::detail::block_step_lanes`.
template <bool Checked, int Us>
__attribute__((always_inline)) inline __m256 int_block_step8(__m256 acc, __m256i isum, __m256i sbc, std::int32_t ask,
                                                             std::uint8_t sa) noexcept {
  const __m256i e = _mm256_add_epi32(sbc, _mm256_set1_epi32(ask));
  __m256 prod;
  if constexpr (Checked) {
    const __m256i ok = _mm256_and_si256(
        _mm256_and_si256(_mm256_cmpgt_epi32(e, _mm256_setzero_si256()),
                         _mm256_cmpgt_epi32(_mm256_set1_epi32(Us > 0 ? 255 - Us : 255), e)),
        _mm256_cmpgt_epi32(_mm256_set1_epi32(255), sbc));
    if (_mm256_movemask_epi8(ok) != -1) {
      const __m256 blk = _mm256_mul_ps(_mm256_cvtepi32_ps(isum), _mm256_set1_ps(armlower::mx::detail::pow2f(-Us)));  // exact
      prod = _mm256_mul_ps(blk, _mm256_mul_ps(_mm256_set1_ps(armlower::mx::decode_e8m0(sa)), e8m0_decode8(sbc)));
      keep_rounded(prod);  // the pseudocode rounds the product, then adds
      return _mm256_add_ps(acc, prod);
    }
  }
  prod = _mm256_mul_ps(_mm256_cvtepi32_ps(isum), _mm256_castsi256_ps(_mm256_slli_epi32(e, 23)));
  keep_rounded(prod);
  return _mm256_add_ps(acc, prod);
}

/// One half (8 rows, `Hf`) of block g of `tiles16_tile`: the sums, then the block steps into ac[h].
template <dtype::id T, std::size_t Rows, bool Checked, std::size_t Hf>
__attribute__((always_inline)) inline void tiles16_half_step(const std::uint8_t* blk, const std::uint8_t* sbp,
                                                             const std::int8_t* const* a, const std::int8_t* const* b,
                                                             const std::int32_t* const* corr, const std::int32_t* const* sk,
                                                             const std::uint8_t* const* sa, std::size_t g,
                                                             __m256 (&ac)[Rows]) noexcept {
  constexpr int us = 2 * armlower::mx::format(T).int_shift;
  __m256i sv[Rows];
  tiles16_half_sums<T, Rows, Hf>(blk, a, b, sv);
  const __m256i sbc = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(sbp + 8 * Hf)));
#pragma GCC unroll 4
  for (std::size_t h = 0; h < Rows; ++h)
    ac[h] = int_block_step8<Checked, us>(ac[h], _mm256_sub_epi32(sv[h], _mm256_set1_epi32(corr[h][g])), sbc, sk[h][g],
                                         sa[h][g]);
}

/// `tiles16_rows` for one group of `Rows` A rows over one tile and chunk: block by block, one 8-row half
/// at a time (its sums, then its block steps: fewer live registers than both halves' sums at once), in
/// block order into acc[h][half].
template <dtype::id T, std::size_t Rows, bool Checked>
inline void tiles16_tile(const std::uint8_t* bp, const std::uint8_t* sp, std::size_t gcount,
                         const std::int8_t* const* ai, const std::int8_t* const* ah, const std::int32_t* const* corr,
                         const std::int32_t* const* sk, const std::uint8_t* const* sa, __m256 (&acc)[4][2]) noexcept {
  constexpr std::size_t bt = kernels::mx::detail::tiles16_block_bytes(T), tq = kernels::mx::detail::tiles16_rows;
  // the accumulators in two arrays, one per half, indexed only by unrolled loops (a lambda-captured
  // [h][half] array was the first form); GCC 12 still keeps them on the stack in the x86-64-v3 MXINT8 loop
  // (register pressure: a store → load round trip per block and half)
  __m256 ac0[Rows], ac1[Rows];
#pragma GCC unroll 4
  for (std::size_t h = 0; h < Rows; ++h) ac0[h] = acc[h][0], ac1[h] = acc[h][1];
  for (std::size_t g = 0; g < gcount; ++g) {
    const std::int8_t* a[Rows];
    const std::int8_t* b[Rows];
#pragma GCC unroll 4
    for (std::size_t h = 0; h < Rows; ++h) {
      a[h] = ai[h] + 32 * g;
      b[h] = ah[h] != nullptr ? ah[h] + 32 * g : nullptr;
    }
    tiles16_half_step<T, Rows, Checked, 0>(bp + g * bt, sp + g * tq, a, b, corr, sk, sa, g, ac0);
    tiles16_half_step<T, Rows, Checked, 1>(bp + g * bt, sp + g * tq, a, b, corr, sk, sa, g, ac1);
  }
#pragma GCC unroll 4
  for (std::size_t h = 0; h < Rows; ++h) acc[h][0] = ac0[h], acc[h][1] = ac1[h];
}

}  // namespace detail

/// MATMUL_T_BLOCK_SCALED rows with B in the tiles16 layout for T ∈ {MXINT8, FP6E2M3, FP4E2M1}
/// (`tiles16_runs`), bit-identical to `reference_rows<T>` over the B that was packed. Chunks of
/// `int8_chunk` columns of up to `tiles16_a_rows<T>` A rows are decoded once; per 16-row tile, block by
/// block, the sums of both 8-row halves (`detail::tiles16_half_sums`) and the fp32 block steps in block
/// order, unchecked where the tile's scale range and the chunk's show every factor normal
/// (`detail::normal_factors`), else checked per block. Outputs are carried across chunks in `out`.
template <dtype::id T>
inline void tiles16_rows(const tiles16_args& r) noexcept {
  static_assert(tiles16_runs(T));
  namespace kd = kernels::mx::detail;
  constexpr std::size_t bs = armlower::mx::block_size, tq = kd::tiles16_rows, hr = tiles16_a_rows<T>;
  constexpr std::size_t bt = kd::tiles16_block_bytes(T), nc = int8_chunk / bs;
  constexpr int us = 2 * armlower::mx::format(T).int_shift;
  constexpr bool split = T == dtype::id::mxint8;
  const kd::tiles16_geometry geo = kd::tiles16_layout(T, r.w, r.c);
  const std::size_t a_stride = armlower::mx::storage_bytes(T, r.c), nb = geo.blocks;
  alignas(32) std::int8_t ai[hr][int8_chunk];
  alignas(32) std::int8_t ah[split ? hr : 1][split ? int8_chunk : 32];  // MXINT8's high parts
  alignas(32) std::int32_t corr[hr][nc], sk[hr][nc];
  int sa_min[hr], sa_max[hr];
  alignas(32) float out_t[tq];
  for (std::size_t i0 = 0; i0 < r.h; i0 += hr) {
    const std::size_t hn = r.h - i0 < hr ? r.h - i0 : hr;
    for (std::size_t k0 = 0; k0 < r.c; k0 += int8_chunk) {
      const std::size_t kn = r.c - k0 < int8_chunk ? r.c - k0 : int8_chunk;
      const std::size_t g_first = k0 / bs, gcount = kn / bs;
      const std::int8_t* ap[4] = {};
      const std::int8_t* hp[4] = {};
      const std::int32_t* cp[4] = {};
      const std::int32_t* kp[4] = {};
      const std::uint8_t* sap[4] = {};
      for (std::size_t h = 0; h < hn; ++h) {
        std::int8_t* hh = split ? ah[h] : nullptr;
        detail::tiles16_decode_a<T>(r.a + (i0 + h) * a_stride + armlower::mx::storage_bytes(T, k0),
                                    r.a_scale + (i0 + h) * nb + g_first, gcount, ai[h], hh, corr[h], sk[h], sa_min[h],
                                    sa_max[h]);
        ap[h] = ai[h];
        hp[h] = hh;
        cp[h] = corr[h];
        kp[h] = sk[h];
        sap[h] = r.a_scale + (i0 + h) * nb + g_first;
      }
      for (std::size_t t = 0; t < geo.tiles; ++t) {
        const std::size_t j0 = t * tq, jt = r.w - j0 < tq ? r.w - j0 : tq;
        const std::uint8_t* bp = r.b + (t * nb + g_first) * bt;
        const std::uint8_t* sp = r.b + geo.scale_offset + (t * nb + g_first) * tq;
        const int sb_lo = r.b[geo.range_offset + 2 * t], sb_hi = r.b[geo.range_offset + 2 * t + 1];
        bool plain = true;
        for (std::size_t h = 0; h < hn; ++h)
          plain = plain && detail::normal_factors(sa_min[h], sa_max[h], sb_lo, sb_hi, -127 - us, -127);
        __m256 acc[4][2];
        for (auto& a : acc) a[0] = a[1] = _mm256_setzero_ps();
        for (std::size_t h = 0; h < hn; ++h) {
          if (k0 != 0) {
            for (std::size_t q = 0; q < tq; ++q) out_t[q] = q < jt ? r.out[(i0 + h) * r.w + j0 + q] : 0.0f;
            acc[h][0] = _mm256_load_ps(out_t);
            acc[h][1] = _mm256_load_ps(out_t + 8);
          }
        }
        auto rows = [&]<std::size_t Rows>() {
          if (plain) detail::tiles16_tile<T, Rows, false>(bp, sp, gcount, ap, hp, cp, kp, sap, acc);
          else detail::tiles16_tile<T, Rows, true>(bp, sp, gcount, ap, hp, cp, kp, sap, acc);
        };
        switch (hn) {
          case 1: rows.template operator()<1>(); break;
          case 2: rows.template operator()<2>(); break;
          case 3:
            if constexpr (hr > 2) rows.template operator()<3>();
            break;
          default:
            if constexpr (hr > 2) rows.template operator()<4>();
            break;
        }
        for (std::size_t h = 0; h < hn; ++h) {
          _mm256_store_ps(out_t, acc[h][0]);
          _mm256_store_ps(out_t + 8, acc[h][1]);
          for (std::size_t q = 0; q < jt; ++q) r.out[(i0 + h) * r.w + j0 + q] = out_t[q];
        }
      }
    }
  }
}

}  // namespace armlower::kernels::mx::arch::avx2
#endif
