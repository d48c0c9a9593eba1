/// @file armlower/kernels/mx/arch/x86_avx512_tiles16.hpp
/// x86 AVX-512 MATMUL_T_BLOCK_SCALED rows over a B packed in the tiles16 layout (detail/tiles16.hpp).
/// Compiled where arch/x86_avx512.hpp's kernels are (`ARMLOWER_MX_AVX512`: native AVX-512
/// F/BW/VL/VNNI/VBMI, or SIMDe); the FP8 formats need its BF16 kernels too (`ARMLOWER_MX_AVX512_BF16`).
///
/// Per 16-row tile and 32-column block, the tile's 8 packed vectors times A's 4-column groups broadcast
/// give the block sum of each B row in its own lane — no horizontal reduction:
///  - MXINT8, FP6E2M3, FP4E2M1 (`detail::tiles16_int_ops`): `vpdpbusd` (FP4: each vector decoded by two
///    `vpermb` into two), exact int32 sums, then `block_sum − offset · Σ A` and the fp32 block step of
///    the other integer kernels (`detail::int_block_step`), lane-wise in block order: the results of
///    `int8_rows`, **bit-identical to the pseudocode path** (`reference_rows`).
///  - FP8E4M3, FP8E5M2, FP6E3M2 (`detail::tiles16_bf16_ops`, AVX-512 BF16): B's codes become BF16 words
///    by an arithmetic shift or `vpmultishiftqb` and a mask (no table: the exponent offset goes into the
///    block factor), A is
///    decoded once per chunk, two `vdpbf16ps` per vector; fp32 block sums and the same block step.
///    FP6E3M2 bit-identical (its block sums are exact), FP8 within the TOSA dot-product bound.
/// Up to 4 A rows share each B vector load (`tiles16_a_rows`). B is read with software prefetch into
/// L2 (`tiles16_sparse_prefetch`).
#pragma once

#include <armlower/kernels/mx/arch/x86_avx512.hpp>
#include <armlower/kernels/mx/detail/tiles16.hpp>

namespace armlower::kernels::mx::arch::avx512 {
/// True when this build runs element type t on the tiles16 layout (`tiles16_rows`): none without the
/// AVX-512 kernels; the integer types (MXINT8, FP6E2M3, FP4E2M1) with them; FP8E4M3 / FP8E5M2 /
/// FP6E3M2 where they include the BF16 kernels (`avx512::bf16`).
[[nodiscard]] constexpr bool tiles16_runs(dtype::id t) noexcept {
  return available && (kernels::mx::detail::tiles16_int_type(t) || (bf16 && kernels::mx::detail::tiles16_bf16_type(t)));
}
}  // namespace armlower::kernels::mx::arch::avx512

#if defined(ARMLOWER_MX_AVX512)
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

// GCC 12's unmasked AVX-512 intrinsics warn at every inlined use (GCC bug 105593; arch/x86_avx512.hpp):
// silenced for this header's code only, on GCC before 13.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define ARMLOWER_MX_TILES16_GCC12_PRAGMAS 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// The hot loops are unrolled and inlined natively; under SIMDe (tests only: its emulated intrinsics are
// loops, and the speed means nothing) neither, which keeps the test builds' compile time in bounds.
#define ARMLOWER_MX_TILES16_STR(x) #x
#if defined(ARMLOWER_MX_AVX512_SIMDE)
#define ARMLOWER_MX_TILES16_UNROLL(n)
#define ARMLOWER_MX_TILES16_INLINE
#else
#define ARMLOWER_MX_TILES16_UNROLL(n) _Pragma(ARMLOWER_MX_TILES16_STR(GCC unroll n))
#define ARMLOWER_MX_TILES16_INLINE __attribute__((always_inline))
#endif

namespace armlower::kernels::mx::arch::avx512 {

/// A rows that share each B vector load of `tiles16_rows`.
inline constexpr std::size_t tiles16_a_rows = 4;

/// Whether `tiles16_rows` with prefetch kind P, element type T and `Rows` A rows per B load prefetches
/// B sparsely (`prefetch_kind::l2_sparse` for the one-byte formats' GEMV); then each tile's
/// blocks are read in address order.
template <prefetch_kind P, dtype::id T, std::size_t Rows>
inline constexpr bool tiles16_sparse_prefetch = P == prefetch_kind::l2_sparse && Rows == 1 && T != dtype::id::fp4e2m1;
/// Bytes ahead of the read position at which `tiles16_rows` prefetches B.
template <prefetch_kind P, dtype::id T, std::size_t Rows>
inline constexpr std::size_t tiles16_prefetch =
    P == prefetch_kind::l1_lines ? 8192 : tiles16_sparse_prefetch<P, T, Rows> ? 65536 : 16384;
/// Bytes of B read per prefetch of `tiles16_rows`.
template <prefetch_kind P, dtype::id T, std::size_t Rows>
inline constexpr std::size_t tiles16_prefetch_every = tiles16_sparse_prefetch<P, T, Rows> ? 512 : 64;

/// Arguments of `tiles16_rows`: A row-major (armlower storage), B in the tiles16 layout, and how B is prefetched.
struct tiles16_args : kernels::mx::detail::tiles16_operands {
  prefetch_kind prefetch = prefetch_kind::l2_sparse;  ///< how B is prefetched
};

namespace detail {

/// `vpermb` table of the tiles16 FP4E2M1 decode (`fp4_vpermb_table` with the layout's offset).
inline constexpr const auto& tiles16_fp4_table = fp4_vpermb_table<kernels::mx::detail::tiles16_offset(dtype::id::fp4e2m1)>;

/// The 16 bytes at p zero-extended to int32 lanes.
inline __m512i load_u8x16(const std::uint8_t* p) noexcept {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
#if defined(ARMLOWER_MX_AVX512_SIMDE)  // SIMDe 0.7.4 has no _mm512_cvtepu8_epi32
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_cvtepu8_epi32(v)), _mm256_cvtepu8_epi32(_mm_srli_si128(v, 8)), 1);
#else
  return _mm512_cvtepu8_epi32(v);
#endif
}

/// `tiles16_rows`' software prefetch of B (kind P): called with the offset o of each 64-byte vector
/// about to be read from bp, prefetches `tiles16_prefetch` bytes ahead every `tiles16_prefetch_every`
/// bytes, into L1 (`l1_lines`) or L2.
template <prefetch_kind P, dtype::id T, std::size_t Rows>
inline void tiles16_prefetch_at(const std::uint8_t* bp, std::size_t o) noexcept {
  if (o % tiles16_prefetch_every<P, T, Rows> == 0) {
    const char* q = reinterpret_cast<const char*>(bp + o + tiles16_prefetch<P, T, Rows>);
    if constexpr (P == prefetch_kind::l1_lines) _mm_prefetch(q, _MM_HINT_T0);
    else _mm_prefetch(q, _MM_HINT_T1);
  }
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
    } else {
      v = avx2::detail::fp4_block_ordered(codes + 16 * g);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ai + 32 * g), v);
    alignas(32) std::int32_t s[8];  // Σ over 4 columns per lane
    _mm256_store_si256(reinterpret_cast<__m256i*>(s), _mm256_dpbusd_epi32(_mm256_setzero_si256(), ones, v));
    corr[g] = off * (s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7]);
  }
  avx2::detail::tiles16_a_scales<us>(sc, gcount, sk, sa_min, sa_max);
}

#if defined(ARMLOWER_MX_AVX512_SIMDE)
/// The 4 bytes at a broadcast to every 32-bit lane (the SIMDe form of a `{1to16}` memory operand).
inline __m512i bcast4(const void* a) noexcept {
  std::int32_t x;
  __builtin_memcpy(&x, a, 4);
  return _mm512_set1_epi32(x);
}
#endif

/// acc + `vpdpbusd`(b, the 4 bytes at a broadcast to every lane). Natively the broadcast is the
/// instruction's `{1to16}` memory operand (from the intrinsic GCC 12 emits a separate `vpbroadcastd`,
/// which takes a vector pipe slot; measured 1.00–1.07× faster than it, batch 1 and 8, benchmarks/RESULTS.md
/// "MX GEMV over packed weights: address order, sparse prefetch"); SIMDe builds use the intrinsic.
inline __m512i dpbusd_bcast(__m512i acc, __m512i b, const std::int8_t* a) noexcept {
#if defined(ARMLOWER_MX_AVX512_SIMDE)
  return _mm512_dpbusd_epi32(acc, b, bcast4(a));
#else
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(b), "m"(*reinterpret_cast<const std::int32_t*>(a)));
  return acc;
#endif
}

/// The exact int32 block sums of one tile for `Blocks` consecutive blocks (the block tiles at bp) and
/// `Rows` A rows (ai[h] = their decoded chunks, `ga` = the first block within the chunk):
/// s[b][h] lane r = Σ over block ga + b of B row r × A row h, B still offset (uncorrected).
template <prefetch_kind P, dtype::id T, std::size_t Rows, std::size_t Blocks>
inline void tiles16_sums(const std::uint8_t* bp, const std::int8_t* const* ai, std::size_t ga,
                         __m512i (&s)[Blocks][Rows]) noexcept {
  constexpr std::size_t bt = kernels::mx::detail::tiles16_block_bytes(T);
  for (std::size_t b = 0; b < Blocks; ++b)
    for (std::size_t h = 0; h < Rows; ++h) s[b][h] = _mm512_setzero_si512();
  auto pf = [&](std::size_t o) { tiles16_prefetch_at<P, T, Rows>(bp, o); };
  if constexpr (T == dtype::id::fp4e2m1) {
    const __m512i lut = _mm512_loadu_si512(tiles16_fp4_table.data());
ARMLOWER_MX_TILES16_UNROLL(4)
    for (std::size_t v = 0; v < 4; ++v)  // the blocks interleaved (measured faster cold than in address order)
ARMLOWER_MX_TILES16_UNROLL(4)
      for (std::size_t b = 0; b < Blocks; ++b) {
        pf(b * bt + 64 * v);
        __m512i c = _mm512_loadu_si512(bp + b * bt + 64 * v);
        in_register(c);  // one load for both nibbles (GCC would fold it into the shift too: two loads)
        const __m512i lo = _mm512_permutexvar_epi8(c, lut);
        const __m512i hi = _mm512_permutexvar_epi8(_mm512_srli_epi16(c, 4), lut);
        const std::size_t k = (ga + b) * 8 + 2 * v;
ARMLOWER_MX_TILES16_UNROLL(4)
        for (std::size_t h = 0; h < Rows; ++h)
          s[b][h] = dpbusd_bcast(dpbusd_bcast(s[b][h], lo, ai[h] + 4 * k), hi, ai[h] + 4 * k + 4);
      }
  } else {
ARMLOWER_MX_TILES16_UNROLL(4)
    for (std::size_t b = 0; b < Blocks; ++b)
ARMLOWER_MX_TILES16_UNROLL(8)
      for (std::size_t j = 0; j < 8; ++j) {
        pf(b * bt + 64 * j);
        const __m512i x = _mm512_loadu_si512(bp + b * bt + 64 * j);
ARMLOWER_MX_TILES16_UNROLL(4)
        for (std::size_t h = 0; h < Rows; ++h) s[b][h] = dpbusd_bcast(s[b][h], x, ai[h] + 4 * ((ga + b) * 8 + j));
      }
  }
}

/// The integer side of `tiles16_rows` (MXINT8, FP6E2M3, FP4E2M1): A as int8 values ×2^(us/2),
/// exact int32 block sums by `vpdpbusd`, corrected by offset · Σ A before the block step.
template <dtype::id T>
struct tiles16_int_ops {
  using a_type = std::int8_t;
  using sum_type = __m512i;
  static constexpr int us = 2 * armlower::mx::format(T).int_shift;  ///< block sums are ×2^us
  static void decode_a(const std::uint8_t* codes, const std::uint8_t* sc, std::size_t gcount, a_type* ai,
                       std::int32_t* corr, std::int32_t* sk, int& sa_min, int& sa_max) noexcept {
    tiles16_decode_a<T>(codes, sc, gcount, ai, corr, sk, sa_min, sa_max);
  }
  template <prefetch_kind P, std::size_t Rows, std::size_t Blocks>
  static void sums(const std::uint8_t* bp, const a_type* const* ai, std::size_t ga, const std::uint8_t*,
                   sum_type (&s)[Blocks][Rows]) noexcept {
    tiles16_sums<P, T, Rows, Blocks>(bp, ai, ga, s);
  }
  template <bool Checked>
  static void step(__m512& acc, sum_type s, std::int32_t corr, __m512i sbc, std::int32_t sk, std::uint8_t sa) noexcept {
    int_block_step<Checked, us>(acc, _mm512_sub_epi32(s, _mm512_set1_epi32(corr)), sbc, sk, sa);
  }
};

#if defined(ARMLOWER_MX_AVX512_BF16)
/// Constants of the BF16 side of `tiles16_rows` for T ∈ {FP8E4M3, FP8E5M2, FP6E3M2} (B stored as
/// FP8 codes of format `stored`, detail/tiles16.hpp). A is decoded exactly to BF16 ×2^a_exp and a
/// stored B code of a normal value or zero to its BF16 word ×2^(bias − 127) by an arithmetic shift (high
/// bytes) or `vpmultishiftqb` (low bytes) and a mask, so a block sum is Σ A·B ×2^us; the ranges keep every nonzero product and block sum a normal
/// fp32 (|products| in [2^-16, 2^19.6] E4M3, [2^-30, 2^31.6] E5M2: no DAZ/FTZ of `vdpbf16ps` applies),
/// and A ×2^a_exp stays finite (≤ 1.75 · 2^127). Block tiles flagged special are decoded by table,
/// B ×2^-fb_exp exactly (its subnormals normal BF16, NaN/±Inf kept), sums ×2^(a_exp − fb_exp) = ×4.
template <dtype::id T>
struct tiles16_bf16_consts {
  static constexpr dtype::id stored = kernels::mx::detail::tiles16_stored(T);
  static constexpr auto& f = armlower::mx::format(stored);
  /// A code in a word's high byte shifted right arithmetically by this: exponent in BF16's (4 / 3)
  static constexpr int shift = f.mbits + 1;
  /// The bits kept: sign, then the code's 7 magnitude bits as BF16 exponent and mantissa (0x87F0 / 0x8FE0)
  static constexpr std::uint16_t mask = static_cast<std::uint16_t>(0x8000u | 0x7Fu << (7 - f.mbits));
  /// A ×2^a_exp: the largest that keeps the largest code finite in BF16 (119 E4M3, 112 E5M2)
  static constexpr int a_exp = 127 - f.emax;
  static constexpr int us = a_exp + f.bias - 127;  ///< −1 E4M3, 0 E5M2
  /// B ×2^-fb_exp in the table decode: its smallest subnormal, 2^(1 − bias − mbits), becomes 2^-126 (117 / 110)
  static constexpr int fb_exp = 126 + 1 - f.bias - f.mbits;
};
static_assert(tiles16_bf16_consts<dtype::id::fp8e4m3>::shift == 4 && tiles16_bf16_consts<dtype::id::fp8e4m3>::mask == 0x87F0 &&
              tiles16_bf16_consts<dtype::id::fp8e4m3>::a_exp == 119 && tiles16_bf16_consts<dtype::id::fp8e4m3>::fb_exp == 117);
static_assert(tiles16_bf16_consts<dtype::id::fp8e5m2>::shift == 3 && tiles16_bf16_consts<dtype::id::fp8e5m2>::mask == 0x8FE0 &&
              tiles16_bf16_consts<dtype::id::fp8e5m2>::a_exp == 112 && tiles16_bf16_consts<dtype::id::fp8e5m2>::fb_exp == 110);

/// acc + `vdpbf16ps`(b, the BF16 pair at a broadcast to every lane), as `dpbusd_bcast`.
inline __m512 dpbf16_bcast(__m512 acc, __m512i b, const std::uint16_t* a) noexcept {
#if defined(ARMLOWER_MX_AVX512_SIMDE)
  return dot_bf16(acc, b, bcast4(a));
#else
  asm("vdpbf16ps %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(b), "m"(*reinterpret_cast<const std::int32_t*>(a)));
  return acc;
#endif
}

/// The BF16 side of `tiles16_rows` (constants: `tiles16_bf16_consts`). A chunk row is stored per 4
/// columns k..k+3 as [k, k+2, k+1, k+3]: the pair for the codes in the low bytes of B's 16-bit words
/// (columns k, k+2 of each row), then the pair for the high bytes.
template <dtype::id T>
struct tiles16_bf16_ops {
  using c = tiles16_bf16_consts<T>;
  using a_type = std::uint16_t;
  using sum_type = __m512;
  static constexpr int us = c::us;
  /// BF16 words from their bytes in code position (`bf16_bytes`): `even` word i = the code at byte 2i,
  /// `odd` word i = the code at byte 2i + 1.
  static void word_pairs(__m512i h, __m512i l, __m512i& even, __m512i& odd) noexcept {
    even = _mm512_ternarylogic_epi32(_mm512_slli_epi16(h, 8), l, _mm512_set1_epi16(0x00FF), 0xF8);
    odd = _mm512_ternarylogic_epi32(_mm512_srli_epi16(l, 8), h, _mm512_set1_epi16(static_cast<short>(0xFF00)), 0xF8);
  }
  /// A chunk of one A row (codes, scales `sc`, `gcount` blocks) decoded: ai = BF16 ×2^a_exp in the
  /// order above (64 codes at a time: `vpermi2b` tables of the high and low bytes — FP6E3M2 codes first
  /// to FP8E5M2 by `vpermb` —, the words paired, the dword pairs interleaved), sk[g] = scale code − 127 −
  /// us (NaN code: far below any exponent), and the code range of the scales.
  static void decode_a(const std::uint8_t* codes, const std::uint8_t* sc, std::size_t gcount, a_type* ai,
                       std::int32_t*, std::int32_t* sk, int& sa_min, int& sa_max) noexcept {
    const bf16_luts t = bf16_luts::make<c::stored, c::a_exp>();
    const __m512i to_e5 = _mm512_loadu_si512(kernels::mx::detail::tiles16_stored_codes<T>.data());  // FP6E3M2: 64 codes
    const __m512i first = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i second = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    for (std::size_t g = 0; g < gcount; g += 2) {
      __m512i x = load_blocks(codes + 32 * g, g + 1 < gcount ? ~__mmask64{0} : __mmask64{0xFFFFFFFFu});
      if constexpr (T == dtype::id::fp6e3m2) x = _mm512_permutexvar_epi8(x, to_e5);
      __m512i h, l, even, odd;
      bf16_bytes(x, t, h, l);
      word_pairs(h, l, even, odd);
      _mm512_store_si512(ai + 32 * g, _mm512_permutex2var_epi32(even, first, odd));
      if (g + 1 < gcount) _mm512_store_si512(ai + 32 * g + 32, _mm512_permutex2var_epi32(even, second, odd));
    }
    avx2::detail::tiles16_a_scales<us>(sc, gcount, sk, sa_min, sa_max);
  }
  /// BF16 words of the stored codes in the low (`Lo`: `vpmultishiftqb` reads each word's low byte
  /// (`kd::tiles16_low_byte`) from bit 0 into its high byte and from bit −1 into its low byte) or high
  /// bytes of x's 16-bit words (an arithmetic shift), masked. Measured (Zen 4, standalone loop with two
  /// `vdpbf16ps` per 64 bytes): 3.5 cycles per 64 bytes against 4.1 with a left and an arithmetic shift
  /// for the low bytes.
  template <bool Lo>
  static __m512i words(__m512i x) noexcept {
    const __m512i y = Lo ? _mm512_multishift_epi64_epi8(_mm512_set1_epi64(0x302F201F100F003F), x) : _mm512_srai_epi16(x, c::shift);
    return _mm512_and_si512(y, _mm512_set1_epi16(static_cast<short>(c::mask)));
  }
  /// `words_exact`'s tables for the low bytes: `bf16_table` (×2^-fb_exp) indexed by the low-byte order
  /// (`kd::tiles16_low_byte`) of the code's 7 magnitude bits (the sign stays bit 7): high bytes, then low.
  static constexpr auto low_byte_tables = [] {
    std::array<std::uint8_t, 256> t{};
    for (std::size_t k = 0; k < 128; ++k) {
      const std::size_t i = kernels::mx::detail::tiles16_low_byte(c::stored, static_cast<std::uint8_t>(k));
      t[i] = bf16_table<c::stored, 1, -c::fb_exp>[k];
      t[128 + i] = bf16_table<c::stored, 0, -c::fb_exp>[k];
    }
    return t;
  }();
  /// The words of stored codes x (as `words` orders them) decoded exactly by table, ×2^-fb_exp (any
  /// code): `th` the tables of the high bytes' codes, `tl` those of the low bytes' (`low_byte_tables`).
  static void words_exact(__m512i x, const bf16_luts& th, const bf16_luts& tl, __m512i& lo, __m512i& hi) noexcept {
    constexpr __mmask64 low_bytes = 0x5555555555555555ull;
    const __m512i sign = _mm512_and_si512(x, _mm512_set1_epi8(static_cast<char>(0x80)));
    const __m512i h = _mm512_or_si512(_mm512_mask_blend_epi8(low_bytes, _mm512_permutex2var_epi8(th.h0, x, th.h1),
                                                             _mm512_permutex2var_epi8(tl.h0, x, tl.h1)), sign);
    const __m512i l = _mm512_mask_blend_epi8(low_bytes, _mm512_permutex2var_epi8(th.l0, x, th.l1),
                                             _mm512_permutex2var_epi8(tl.l0, x, tl.l1));
    word_pairs(h, l, lo, hi);
  }
  /// The sums of one block tile (at blk; A columns from k) decoded by table (`words_exact`), any codes:
  /// v[h] = Σ B row × A row h ×2^us (exactly: the table sums ×2^(us − 2)). Out of line: it is rare
  /// (realistic weights: the block tiles holding a subnormal code) and keeps registers from the fast path.
  template <std::size_t Rows>
  [[gnu::noinline]] static void exact_block(const std::uint8_t* blk, const a_type* const* ai, std::size_t k,
                                            __m512 (&v)[Rows]) noexcept {
    const bf16_luts th = bf16_luts::make<c::stored, -c::fb_exp>();
    const auto& lt = low_byte_tables;
    const bf16_luts tl{_mm512_loadu_si512(lt.data()), _mm512_loadu_si512(lt.data() + 64),
                       _mm512_loadu_si512(lt.data() + 128), _mm512_loadu_si512(lt.data() + 192)};
    // local sums in `chains<Rows>` independent chains, as `sums` (one chain through `v` ran its 16 `vdpbf16ps` per
    // row back to back, each result stored to `v`: 12 % of an FP8 GEMV over random weights on Zen 5). The chain step
    // is written out in both: shared as one inlined helper, `sums` ran FP8 packed batch 8 at K 4096 at 165–175
    // against 240–262 GFLOP/s
    constexpr std::size_t nc = chains<Rows>;
    __m512 p[Rows][nc];
    for (std::size_t h = 0; h < Rows; ++h)
      for (std::size_t q = 0; q < nc; ++q) p[h][q] = _mm512_setzero_ps();
    for (std::size_t j = 0; j < 8; ++j) {
      __m512i lo, hi;
      words_exact(_mm512_loadu_si512(blk + 64 * j), th, tl, lo, hi);
      const std::size_t q = nc == 4 ? j % 2 : 0;
      for (std::size_t h = 0; h < Rows; ++h) {
        p[h][q] = dpbf16_bcast(p[h][q], lo, ai[h] + k + 4 * j);
        p[h][q + nc / 2] = dpbf16_bcast(p[h][q + nc / 2], hi, ai[h] + k + 4 * j + 2);
      }
    }
    for (std::size_t h = 0; h < Rows; ++h) v[h] = _mm512_mul_ps(chain_total<nc>(p[h]), _mm512_set1_ps(armlower::mx::detail::pow2f(us - 2)));
  }
  /// The sum of `sums`' NC chains of one row, in the order `sums` adds them.
  template <std::size_t NC>
  static __m512 chain_total(const __m512 (&p)[NC]) noexcept {
    __m512 v = p[0];
    if constexpr (NC == 2) v = _mm512_add_ps(v, p[1]);
    if constexpr (NC == 4) v = _mm512_add_ps(_mm512_add_ps(v, p[1]), _mm512_add_ps(p[2], p[3]));
    return v;
  }
  /// Independent `vdpbf16ps` sum chains per block and A row of `sums` (their latency: a block's 16
  /// products per row would otherwise wait on each other): 4 for one row, 2 for two or three, 1 for four.
  template <std::size_t Rows>
  static constexpr std::size_t chains = Rows == 1 ? 4 : Rows <= 3 ? 2 : 1;
  /// s[b][h] lane r = Σ over block ga + b of B row r × A row h, ×2^us; block tiles with `flags[ga + b]`
  /// set by `exact_block`.
  template <prefetch_kind P, std::size_t Rows, std::size_t Blocks>
  ARMLOWER_MX_TILES16_INLINE static void sums(const std::uint8_t* bp, const a_type* const* ai, std::size_t ga,
                                                  const std::uint8_t* flags, sum_type (&s)[Blocks][Rows]) noexcept {
    constexpr std::size_t bt = 512, nc = chains<Rows>;
ARMLOWER_MX_TILES16_UNROLL(4)
    for (std::size_t b = 0; b < Blocks; ++b) {
      const std::size_t k0 = (ga + b) * 32;
      if (flags[ga + b] != 0) {
        exact_block<Rows>(bp + b * bt, ai, k0, s[b]);
        continue;
      }
      __m512 p[Rows][nc];
      for (std::size_t h = 0; h < Rows; ++h)
        for (std::size_t q = 0; q < nc; ++q) p[h][q] = _mm512_setzero_ps();
ARMLOWER_MX_TILES16_UNROLL(8)
      for (std::size_t j = 0; j < 8; ++j) {
        tiles16_prefetch_at<P, T, Rows>(bp, b * bt + 64 * j);
        __m512i x = _mm512_loadu_si512(bp + b * bt + 64 * j);
        in_register(x);  // one load for both words (GCC would fold it into both shifts: two loads)
        const __m512i lo = words<true>(x), hi = words<false>(x);
        const std::size_t q = nc == 4 ? j % 2 : 0;
ARMLOWER_MX_TILES16_UNROLL(4)
        for (std::size_t h = 0; h < Rows; ++h) {
          p[h][q] = dpbf16_bcast(p[h][q], lo, ai[h] + k0 + 4 * j);
          p[h][q + nc / 2] = dpbf16_bcast(p[h][q + nc / 2], hi, ai[h] + k0 + 4 * j + 2);
        }
      }
      for (std::size_t h = 0; h < Rows; ++h) s[b][h] = chain_total<nc>(p[h]);
    }
  }
  template <bool Checked>
  static void step(__m512& acc, sum_type s, std::int32_t, __m512i sbc, std::int32_t sk, std::uint8_t sa) noexcept {
    block_step<Checked, us>(acc, s, sbc, sk, sa);
  }
};
#endif

/// The side of `tiles16_rows` for T: `tiles16_bf16_ops` for the FP8-coded types
/// (`kd::tiles16_bf16_type`), else `tiles16_int_ops`.
#if defined(ARMLOWER_MX_AVX512_BF16)
template <dtype::id T>
using tiles16_ops = std::conditional_t<kernels::mx::detail::tiles16_bf16_type(T), tiles16_bf16_ops<T>, tiles16_int_ops<T>>;
#else
template <dtype::id T>
using tiles16_ops = tiles16_int_ops<T>;
#endif

}  // namespace detail

namespace detail {
/// `tiles16_rows` with prefetch kind P.
template <dtype::id T, prefetch_kind P>
inline void tiles16_rows_by(const tiles16_args& r) noexcept {
  static_assert(tiles16_runs(T));
  namespace kd = kernels::mx::detail;
  using ops = tiles16_ops<T>;
  constexpr std::size_t bs = armlower::mx::block_size, tq = kd::tiles16_rows, hr = tiles16_a_rows;
  constexpr std::size_t bt = kd::tiles16_block_bytes(T);
  constexpr int us = ops::us;
  const kd::tiles16_geometry geo = kd::tiles16_layout(T, r.w, r.c);
  const std::size_t a_stride = armlower::mx::storage_bytes(T, r.c), nb = geo.blocks;
  alignas(64) typename ops::a_type ai[hr][int8_chunk];
  alignas(64) std::int32_t corr[hr][int8_chunk / bs], sk[hr][int8_chunk / bs];
  int sa_min[hr], sa_max[hr];
  alignas(64) float out_t[tq];
  for (std::size_t i0 = 0; i0 < r.h; i0 += hr) {
    const std::size_t hn = r.h - i0 < hr ? r.h - i0 : hr;
    for (std::size_t k0 = 0; k0 < r.c; k0 += int8_chunk) {
      const std::size_t kn = r.c - k0 < int8_chunk ? r.c - k0 : int8_chunk;
      const std::size_t g_first = k0 / bs, gcount = kn / bs;
      for (std::size_t h = 0; h < hn; ++h)
        ops::decode_a(r.a + (i0 + h) * a_stride + armlower::mx::storage_bytes(T, k0), r.a_scale + (i0 + h) * nb + g_first,
                      gcount, ai[h], corr[h], sk[h], sa_min[h], sa_max[h]);
      const typename ops::a_type* ap[hr] = {ai[0], ai[1], ai[2], ai[3]};
      for (std::size_t t = 0; t < geo.tiles; ++t) {
        const std::size_t j0 = t * tq, jt = r.w - j0 < tq ? r.w - j0 : tq;
        const std::uint8_t* bp = r.b + (t * nb + g_first) * bt;
        const std::uint8_t* sp = r.b + geo.scale_offset + (t * nb + g_first) * tq;
        const std::uint8_t* fp = kd::tiles16_bf16_type(T) ? r.b + geo.flag_offset + t * nb + g_first : nullptr;  // flags
        const int sb_lo = r.b[geo.range_offset + 2 * t], sb_hi = r.b[geo.range_offset + 2 * t + 1];
        bool plain = true;
        for (std::size_t h = 0; h < hn; ++h)
          plain = plain && avx2::detail::normal_factors(sa_min[h], sa_max[h], sb_lo, sb_hi, -127 - us,
                                                        -127 - (us < 0 ? us : 0));
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
                        ARMLOWER_MX_TILES16_INLINE {
          typename ops::sum_type s[Blocks][Rows];
          ops::template sums<P, Rows, Blocks>(bp + ga * bt, ap, ga, fp, s);
ARMLOWER_MX_TILES16_UNROLL(4)
          for (std::size_t b = 0; b < Blocks; ++b) {
            const __m512i sbc = detail::load_u8x16(sp + (ga + b) * tq);
ARMLOWER_MX_TILES16_UNROLL(4)
            for (std::size_t h = 0; h < Rows; ++h)
              ops::template step<Checked>(ac[h], s[b][h], corr[h][ga + b], sbc, sk[h][ga + b],
                                          r.a_scale[(i0 + h) * nb + g_first + ga + b]);
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

}  // namespace detail

/// MATMUL_T_BLOCK_SCALED rows with B in the tiles16 layout, for T with `tiles16_runs(T)`:
/// MXINT8, FP6E2M3, FP4E2M1 (`detail::tiles16_int_ops`) and FP6E3M2 (`detail::tiles16_bf16_ops`: its
/// block sums are exact — integer multiples of 2^-8 below 2^15) bit-identical to `reference_rows<T>`
/// over the B that was packed; FP8E4M3 / FP8E5M2 within the TOSA dot-product bound, as `fp8_bf16_rows`
/// (fp32 summation order). Chunks of `int8_chunk` columns of up to `tiles16_a_rows` A rows are decoded
/// once; per tile, 4 blocks at a time (`sums`), then the fp32 block steps in block order, unchecked
/// where the tile's scale range and the chunk's show every factor normal
/// (`avx2::detail::normal_factors`), else checked per block. Outputs are carried across chunks in `out`.
/// B is prefetched as `r.prefetch` says.
template <dtype::id T>
inline void tiles16_rows(const tiles16_args& r) noexcept {
  if (r.prefetch == prefetch_kind::l1_lines) detail::tiles16_rows_by<T, prefetch_kind::l1_lines>(r);
  else detail::tiles16_rows_by<T, prefetch_kind::l2_sparse>(r);
}

}  // namespace armlower::kernels::mx::arch::avx512

#undef ARMLOWER_MX_TILES16_UNROLL
#undef ARMLOWER_MX_TILES16_INLINE
#undef ARMLOWER_MX_TILES16_STR

#if defined(ARMLOWER_MX_TILES16_GCC12_PRAGMAS)
#pragma GCC diagnostic pop
#undef ARMLOWER_MX_TILES16_GCC12_PRAGMAS
#endif

#endif  // ARMLOWER_MX_AVX512
