/// @file armlower/kernels/mx/arch/x86_avx512_tiles16.hpp
/// x86 AVX-512 VNNI MATMUL_T_BLOCK_SCALED rows over a B packed in the tiles16 layout
/// (detail/tiles16.hpp): MXINT8, FP6E2M3, FP4E2M1, **bit-identical to the pseudocode path**
/// (`reference_rows`), like `int8_rows`. Compiled where arch/x86_avx512.hpp's kernels are
/// (`ARMLOWER_MX_AVX512`: native AVX-512 F/BW/VL/VNNI/VBMI, or SIMDe).
///
/// Per 16-row tile and 32-column block, `vpdpbusd` of the tile's 8 packed vectors (FP4: 4 vectors,
/// each decoded by two `vpermb` into two) with A's 4-column groups broadcast gives the exact int32 block
/// sum of each row in its own lane — no horizontal reduction, no per-call weight decode (the work
/// `int8_gemv` spends on row-major B). Up to 4 A rows share each B vector load (`tiles16_a_rows`).
/// Then `block_sum − offset · Σ A` and the fp32 block step of the other integer kernels
/// (`detail::int_block_step`), lane-wise in block order, so the results are those of `int8_rows`.
/// B is read with software prefetch into L2 (`tiles16_sparse_prefetch`).
#pragma once

#include <armlower/kernels/mx/arch/x86_avx512.hpp>

#if defined(ARMLOWER_MX_AVX512)
#include <array>
#include <cstddef>
#include <cstdint>

#include <armlower/kernels/mx/detail/tiles16.hpp>

// GCC 12's unmasked AVX-512 intrinsics warn at every inlined use (GCC bug 105593; arch/x86_avx512.hpp):
// silenced for this header's code only, on GCC before 13.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define ARMLOWER_MX_TILES16_GCC12_PRAGMAS 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace armlower::kernels::mx::arch::avx512 {

/// A rows that share each B vector load of `tiles16_rows`.
inline constexpr std::size_t tiles16_a_rows = 4;
/// Whether `tiles16_rows` for element type T with `Rows` A rows per B load reads B sparsely prefetched:
/// the one-byte formats' GEMV (one A row). Then each tile's blocks are read in address order, one L2 (T1)
/// prefetch per 512 bytes 64 KiB ahead, and the hardware prefetchers fetch the lines between; otherwise
/// one prefetch per 64-byte line 16 KiB ahead (one-byte formats in address order, FP4E2M1 with the
/// blocks interleaved). Measured (Zen 4, B [4096, K], against the previous form — every line prefetched
/// 16 KiB ahead, blocks interleaved; benchmarks/RESULTS.md, "MX GEMV over packed weights: address
/// order, sparse prefetch"): the one-byte GEMV, timed alternately with a streaming read of the same
/// bytes, 73–74 % → 91–93 % of the warm read at K 1024 and 74–80 % → 106–115 % of the cold one (a
/// prefetch takes a load slot); batch 8 in address order with a prefetch per line 1.02–1.28× faster, with
/// the sparse one 0.8–0.9×; FP4E2M1 (compute-bound warm) colder in address order (82–84 % against 91–94 %
/// of the cold read at K 4096), so it keeps the interleaved order.
template <dtype::id T, std::size_t Rows>
inline constexpr bool tiles16_sparse_prefetch = Rows == 1 && T != dtype::id::fp4e2m1;
/// Bytes ahead of the read position at which `tiles16_rows` prefetches B (`tiles16_sparse_prefetch`).
template <dtype::id T, std::size_t Rows>
inline constexpr std::size_t tiles16_prefetch = tiles16_sparse_prefetch<T, Rows> ? 65536 : 16384;
/// Bytes of B read per prefetch of `tiles16_rows` (`tiles16_sparse_prefetch`).
template <dtype::id T, std::size_t Rows>
inline constexpr std::size_t tiles16_prefetch_every = tiles16_sparse_prefetch<T, Rows> ? 512 : 64;

/// Arguments of `tiles16_rows`: A row-major (armlower storage) and B in the tiles16 layout.
struct tiles16_args {
  const std::uint8_t* a;        ///< A codes [h, c]
  const std::uint8_t* a_scale;  ///< A E8M0 scales [h, c/32]
  std::size_t h;                ///< rows of A
  const std::uint8_t* b;        ///< B packed (`detail::pack_tiles16`), `detail::tiles16_layout(T, w, c).total` bytes
  std::size_t w;                ///< rows of B
  std::size_t c;                ///< shared dimension, a multiple of 32
  float* out;                   ///< output [h, w]
};

namespace detail {

/// `vpermb` table of the tiles16 FP4E2M1 decode: entry i = value ×2 + the layout's offset of code i mod 16,
/// so bits 4 and 5 of an index (the other nibble) need no mask.
inline constexpr auto tiles16_fp4_table = [] {
  constexpr dtype::id t4 = dtype::id::fp4e2m1;
  std::array<std::uint8_t, 64> t{};
  for (std::size_t i = 0; i < 64; ++i) t[i] = avx2::detail::int_table<t4, kernels::mx::detail::tiles16_offset(t4)>[i & 15];
  return t;
}();

/// The 16 bytes at p zero-extended to int32 lanes.
inline __m512i load_u8x16(const std::uint8_t* p) noexcept {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
#if defined(ARMLOWER_MX_AVX512_SIMDE)  // SIMDe 0.7.4 has no _mm512_cvtepu8_epi32
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_cvtepu8_epi32(v)), _mm256_cvtepu8_epi32(_mm_srli_si128(v, 8)), 1);
#else
  return _mm512_cvtepu8_epi32(v);
#endif
}

/// A chunk of up to `int8_chunk` columns of one A row (codes at `codes`, scales at `sc`, `gcount`
/// blocks) decoded for `tiles16_rows`: ai = the signed integers ×2^int_shift in column order, corr[g] =
/// offset · Σ ai over block g, sk[g] = scale code − 127 − us (a NaN code: far below any exponent),
/// and the code range of the chunk's scales.
template <dtype::id T>
inline void tiles16_decode_a(const std::uint8_t* codes, const std::uint8_t* sc, std::size_t gcount, std::int8_t* ai,
                             std::int32_t* corr, std::int32_t* sk, int& sa_min, int& sa_max) noexcept {
  constexpr int us = 2 * armlower::mx::format(T).int_shift;
  constexpr int off = kernels::mx::detail::tiles16_offset(T);
  const __m256i ones = _mm256_set1_epi8(1);
  for (std::size_t g = 0; g < gcount; ++g) {
    __m256i v;
    if constexpr (T == dtype::id::mxint8) {
      v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + 32 * g));  // the codes are the integers
    } else if constexpr (T == dtype::id::fp6e2m3) {
      const auto& tab = avx2::detail::int_table<T, 0>;  // 64 entries: one `vpermb`
      const __m512i lut = _mm512_loadu_si512(tab.data());
      const __m512i c = _mm512_inserti64x4(_mm512_setzero_si512(),
                                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + 32 * g)), 0);
      v = _mm512_castsi512_si256(_mm512_permutexvar_epi8(c, lut));
    } else {  // FP4: 16 bytes → 32 codes in order (low nibble first), then the 16-entry table
      const __m256i w16 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + 16 * g)));
      const __m256i idx = _mm256_or_si256(_mm256_and_si256(w16, _mm256_set1_epi16(0x000F)),
                                          _mm256_and_si256(_mm256_slli_epi16(w16, 4), _mm256_set1_epi16(0x0F00)));
      v = _mm256_shuffle_epi8(avx2::detail::fp4_lut<0>(), idx);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ai + 32 * g), v);
    alignas(32) std::int32_t s[8];  // Σ over 4 columns per lane
    _mm256_store_si256(reinterpret_cast<__m256i*>(s), _mm256_dpbusd_epi32(_mm256_setzero_si256(), ones, v));
    corr[g] = off * (s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7]);
    const int code = sc[g];
    sk[g] = code == 255 ? -100000 : code - 127 - us;
  }
  sa_min = 255;
  sa_max = 0;
  avx2::detail::code_range(sc, gcount, sa_min, sa_max);
}

/// acc + `vpdpbusd`(b, the 4 bytes at a broadcast to every lane). Natively the broadcast is the
/// instruction's `{1to16}` memory operand (from the intrinsic GCC 12 emits a separate `vpbroadcastd`,
/// which takes a vector pipe slot; measured 1.00–1.07× faster than it, batch 1 and 8, benchmarks/RESULTS.md
/// "MX GEMV over packed weights: address order, sparse prefetch"); SIMDe builds use the intrinsic.
inline __m512i dpbusd_bcast(__m512i acc, __m512i b, const std::int8_t* a) noexcept {
#if defined(ARMLOWER_MX_AVX512_SIMDE)
  std::int32_t x;
  __builtin_memcpy(&x, a, 4);
  return _mm512_dpbusd_epi32(acc, b, _mm512_set1_epi32(x));
#else
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(b), "m"(*reinterpret_cast<const std::int32_t*>(a)));
  return acc;
#endif
}

/// The exact int32 block sums of one tile for `Blocks` consecutive blocks (the block tiles at bp) and
/// `Rows` A rows (ai[h] = their decoded chunks, `ga` = the first block within the chunk):
/// s[b][h] lane r = Σ over block ga + b of B row r × A row h, B still offset (uncorrected).
template <dtype::id T, std::size_t Rows, std::size_t Blocks>
inline void tiles16_sums(const std::uint8_t* bp, const std::int8_t* const* ai, std::size_t ga,
                         __m512i (&s)[Blocks][Rows]) noexcept {
  constexpr std::size_t bt = kernels::mx::detail::tiles16_block_bytes(T);
  for (std::size_t b = 0; b < Blocks; ++b)
    for (std::size_t h = 0; h < Rows; ++h) s[b][h] = _mm512_setzero_si512();
  auto pf = [&](std::size_t o) {  // o: offset of the 64-byte vector about to be read
    if (o % tiles16_prefetch_every<T, Rows> == 0)
      _mm_prefetch(reinterpret_cast<const char*>(bp + o + tiles16_prefetch<T, Rows>), _MM_HINT_T1);
  };
  if constexpr (T == dtype::id::fp4e2m1) {
    const __m512i lut = _mm512_loadu_si512(tiles16_fp4_table.data());
#pragma GCC unroll 4
    for (std::size_t v = 0; v < 4; ++v)  // the blocks interleaved (measured faster cold than in address order)
#pragma GCC unroll 4
      for (std::size_t b = 0; b < Blocks; ++b) {
        pf(b * bt + 64 * v);
        const __m512i c = _mm512_loadu_si512(bp + b * bt + 64 * v);
        const __m512i lo = _mm512_permutexvar_epi8(c, lut);
        const __m512i hi = _mm512_permutexvar_epi8(_mm512_srli_epi16(c, 4), lut);
        const std::size_t k = (ga + b) * 8 + 2 * v;
#pragma GCC unroll 4
        for (std::size_t h = 0; h < Rows; ++h)
          s[b][h] = dpbusd_bcast(dpbusd_bcast(s[b][h], lo, ai[h] + 4 * k), hi, ai[h] + 4 * k + 4);
      }
  } else {
#pragma GCC unroll 4
    for (std::size_t b = 0; b < Blocks; ++b)
#pragma GCC unroll 8
      for (std::size_t j = 0; j < 8; ++j) {
        pf(b * bt + 64 * j);
        const __m512i x = _mm512_loadu_si512(bp + b * bt + 64 * j);
#pragma GCC unroll 4
        for (std::size_t h = 0; h < Rows; ++h) s[b][h] = dpbusd_bcast(s[b][h], x, ai[h] + 4 * ((ga + b) * 8 + j));
      }
  }
}

}  // namespace detail

/// MATMUL_T_BLOCK_SCALED rows for T ∈ {MXINT8, FP6E2M3, FP4E2M1} with B in the tiles16 layout;
/// bit-identical to `reference_rows<T>` over the B that was packed. Chunks of `int8_chunk` columns of
/// up to `tiles16_a_rows` A rows are decoded once (`detail::tiles16_decode_a`); per tile, 4 blocks at a
/// time (`detail::tiles16_sums`), then the fp32 block steps in block order, unchecked where the tile's
/// scale range and the chunk's show every factor normal (`avx2::detail::normal_factors`), else
/// checked per block. Outputs are carried across chunks in `out`.
template <dtype::id T>
inline void tiles16_rows(const tiles16_args& r) noexcept {
  static_assert(kernels::mx::detail::tiles16_type(T));
  namespace kd = kernels::mx::detail;
  constexpr std::size_t bs = armlower::mx::block_size, tq = kd::tiles16_rows, hr = tiles16_a_rows;
  constexpr std::size_t bt = kd::tiles16_block_bytes(T);
  constexpr int us = 2 * armlower::mx::format(T).int_shift;
  const kd::tiles16_geometry geo = kd::tiles16_layout(T, r.w, r.c);
  const std::size_t a_stride = armlower::mx::storage_bytes(T, r.c), nb = geo.blocks;
  alignas(64) std::int8_t ai[hr][int8_chunk];
  alignas(64) std::int32_t corr[hr][int8_chunk / bs], sk[hr][int8_chunk / bs];
  int sa_min[hr], sa_max[hr];
  alignas(64) float out_t[tq];
  for (std::size_t i0 = 0; i0 < r.h; i0 += hr) {
    const std::size_t hn = r.h - i0 < hr ? r.h - i0 : hr;
    for (std::size_t k0 = 0; k0 < r.c; k0 += int8_chunk) {
      const std::size_t kn = r.c - k0 < int8_chunk ? r.c - k0 : int8_chunk;
      const std::size_t g_first = k0 / bs, gcount = kn / bs;
      for (std::size_t h = 0; h < hn; ++h)
        detail::tiles16_decode_a<T>(r.a + (i0 + h) * a_stride + armlower::mx::storage_bytes(T, k0),
                                    r.a_scale + (i0 + h) * nb + g_first, gcount, ai[h], corr[h], sk[h], sa_min[h],
                                    sa_max[h]);
      const std::int8_t* ap[hr] = {ai[0], ai[1], ai[2], ai[3]};
      for (std::size_t t = 0; t < geo.tiles; ++t) {
        const std::size_t j0 = t * tq, jt = r.w - j0 < tq ? r.w - j0 : tq;
        const std::uint8_t* bp = r.b + (t * nb + g_first) * bt;
        const std::uint8_t* sp = r.b + geo.scale_offset + (t * nb + g_first) * tq;
        const int sb_lo = r.b[geo.range_offset + 2 * t], sb_hi = r.b[geo.range_offset + 2 * t + 1];
        bool plain = true;
        for (std::size_t h = 0; h < hn; ++h)
          plain = plain && avx2::detail::normal_factors(sa_min[h], sa_max[h], sb_lo, sb_hi, -127 - us, -127);
        __m512 acc[hr];
        for (std::size_t h = 0; h < hn; ++h) {
          acc[h] = _mm512_setzero_ps();
          if (k0 != 0) {
            for (std::size_t q = 0; q < tq; ++q) out_t[q] = q < jt ? r.out[(i0 + h) * r.w + j0 + q] : 0.0f;
            acc[h] = _mm512_load_ps(out_t);
          }
        }
        // `Rows` A rows, `Blocks` blocks from block ga of the chunk: sums, then the block steps in order into
        // `ac` (a local copy of acc: GCC 12 keeps a captured array in memory, one store-to-load round trip per block)
        auto step = [&]<std::size_t Rows, std::size_t Blocks, bool Checked>(std::size_t ga, __m512 (&ac)[hr])
                        __attribute__((always_inline)) {
          __m512i s[Blocks][Rows];
          detail::tiles16_sums<T, Rows, Blocks>(bp + ga * bt, ap, ga, s);
#pragma GCC unroll 4
          for (std::size_t b = 0; b < Blocks; ++b) {
            const __m512i sbc = detail::load_u8x16(sp + (ga + b) * tq);
#pragma GCC unroll 4
            for (std::size_t h = 0; h < Rows; ++h)
              detail::int_block_step<Checked, us>(ac[h], _mm512_sub_epi32(s[b][h], _mm512_set1_epi32(corr[h][ga + b])),
                                                  sbc, sk[h][ga + b], r.a_scale[(i0 + h) * nb + g_first + ga + b]);
          }
        };
        auto blocks = [&]<std::size_t Rows, bool Checked>() {
          __m512 ac[hr];
          for (std::size_t h = 0; h < Rows; ++h) ac[h] = acc[h];
          std::size_t g = 0;
          for (; g + 4 <= gcount; g += 4) step.template operator()<Rows, 4, Checked>(g, ac);
          for (; g < gcount; ++g) step.template operator()<Rows, 1, Checked>(g, ac);
          for (std::size_t h = 0; h < Rows; ++h) acc[h] = ac[h];
        };
        auto rows = [&]<std::size_t Rows>() {
          if (plain) blocks.template operator()<Rows, false>();
          else blocks.template operator()<Rows, true>();
        };
        switch (hn) {
          case 1: rows.template operator()<1>(); break;
          case 2: rows.template operator()<2>(); break;
          case 3: rows.template operator()<3>(); break;
          default: rows.template operator()<4>(); break;
        }
        for (std::size_t h = 0; h < hn; ++h) {
          _mm512_store_ps(out_t, acc[h]);
          for (std::size_t q = 0; q < jt; ++q) r.out[(i0 + h) * r.w + j0 + q] = out_t[q];
        }
      }
    }
  }
}

}  // namespace armlower::kernels::mx::arch::avx512

#if defined(ARMLOWER_MX_TILES16_GCC12_PRAGMAS)
#pragma GCC diagnostic pop
#undef ARMLOWER_MX_TILES16_GCC12_PRAGMAS
#endif

#endif  // ARMLOWER_MX_AVX512
