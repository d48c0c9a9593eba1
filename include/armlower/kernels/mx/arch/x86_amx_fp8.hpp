/// @file armlower/kernels/mx/arch/x86_amx_fp8.hpp
/// x86 AMX-BF16 batch-1 MATMUL_T_BLOCK_SCALED (GEMV) for FP8E4M3 / FP8E5M2 with B row-major (host only).
/// Compiled where the AVX-512 BF16 FP8 kernel is (`ARMLOWER_MX_AVX512_BF16`, natively: not under SIMDe) and
/// AMX is (`ARMLOWER_KERNELS_HAVE_AMX`, Linux x86-64); runs where the CPU has AMX-BF16
/// (`kernels::detail::x86_has_amx_bf16`, e.g. Sapphire Rapids). Within the TOSA dot-product bound of the
/// pseudocode (TOSA 1.0 dot-product accuracy rule, pseudocode/library/tosa_reference_check_dotproduct.tosac),
/// as `avx512::fp8_bf16_rows`, whose results it matches up to the summation order inside a block.
///
/// Why: on Sapphire Rapids the AVX-512 BF16 kernel is bound by its decode (two 128-entry `vpermi2b` lookups
/// per 64 codes) and `vdpbf16ps` on the two vector ports, at ~41–47 % of the L3 read rate (benchmarks/RESULTS.md,
/// "MX batch-1 GEMV on this Intel CPU"). Here B is decoded by shifts alone and the products run on the tile unit:
///  - **B decode** (`fp8_amx_bits`): each 16-bit word of 64 codes, arithmetically shifted (the even codes first
///    moved to the high byte) and masked, is the BF16 whose exponent field is the code's and whose mantissa is
///    the code's, sign kept: exactly value × 2^b_exp for every code with a nonzero exponent field, ±0 for ±0.
///    Two vectors per 64 codes: the even codes (codes 0, 2, …, 62) and the odd ones, one tile row each.
///  - **Subnormal codes** (exponent field 0, mantissa ≠ 0) become BF16 denormals, which TDPBF16PS reads as
///    zero: per 16 rows and block pair a running minimum says whether any is there (in quantized normal data
///    about 1 FP8E4M3 code in 10^4, estimated from the normal distribution, not counted), and then their
///    products are added to the block sums exactly
///    (`add_subnormal_products`). **NaN/Inf codes** (a running maximum) send the 16 rows to
///    `avx512::fp8_bf16_rows`; in A, the whole call.
///  - **A** (one row) is decoded exactly once per call by the 128-entry tables (`avx512::detail::bf16_luts`)
///    scaled by 2^a_exp (every value stays a normal, finite BF16) into two B-operand tiles per block pair
///    (even and odd codes), 16 k-pair rows × 8 columns, zero but for the columns of the pair's two blocks.
///  - **Tiles**: per 16 B rows and block pair two TDPBF16PS (even codes, odd codes) into one C tile of 16 rows
///    × 8 block columns (`fp8_gemv_window_pairs` = 4 pairs), so each block sum stays apart; C is stored once
///    per 8 blocks. Sums are ×2^(a_exp + b_exp) = 2^-2 exactly (every nonzero product ≥ 2^-20 E4M3 / 2^-32
///    E5M2 and ≤ 2^15.7 / 2^29.7 there, so neither DAZ nor FTZ applies); then `acc += (sum · 2^2) ·
///    (scale_A · scale_B)` per row and block column, the product rounded apart from the add (as the
///    pseudocode and `avx512::detail::block_step`), the 8 columns' partial sums added at the end.
///  - Three stages one block pair apart per 16-row group: decode of pair p, tiles of pair p − 1, block steps of
///    the window stored one pair earlier; B prefetched into L2 `fp8_gemv_prefetch_groups` groups ahead as one
///    sequential run.
/// Applies (`fp8_gemv_applies`) to one A row, 128 ≤ K ≤ `fp8_gemv_max_k` and at least `fp8_gemv_min_rows`
/// B rows; the last w mod 16 rows run `avx512::fp8_bf16_rows`. Scratch on the stack: 16·K bytes + ~7 KiB.
/// Speed (Xeon with AMX, benchmarks/RESULTS.md "MX FP8 batch-1 GEMV on AMX-BF16"): K 1024 1.4× the AVX-512
/// BF16 kernel (0.66–0.71 of the warm read ceiling against 0.47), 1.11–1.13× AVX2 cold; K 4096 level with both.
#pragma once

#include <armlower/kernels/arch/x86/amx.hpp>
#include <armlower/kernels/mx/arch/x86_avx512.hpp>

#if defined(ARMLOWER_MX_AVX512_BF16) && !defined(ARMLOWER_MX_AVX512_SIMDE) && defined(ARMLOWER_KERNELS_HAVE_AMX)
#define ARMLOWER_MX_AMX_FP8 1

// GCC 12's undefined pass-through operands of unmasked AVX-512 intrinsics (GCC bug 105593): silenced for this
// header's code only, as in arch/x86_avx512.hpp.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define ARMLOWER_MX_AMX_GCC12_UNDEF_PRAGMAS 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/dtype/dtype.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::kernels::mx::arch::amx {

/// True when this translation unit compiles the AMX-BF16 FP8 GEMV.
inline constexpr bool available = true;

/// Largest K (elements per row) of `fp8_gemv`: A's tiles live on the stack (16 bytes per element).
inline constexpr std::size_t fp8_gemv_max_k = 4096;
/// B rows per tile of `fp8_gemv` (the tile's 16 rows).
inline constexpr std::size_t fp8_gemv_rows = 16;
/// Block pairs whose sums one C tile gathers (16 rows × 2·this fp32 columns) before it is stored.
inline constexpr std::size_t fp8_gemv_window_pairs = 4;
/// How many 16-row groups ahead `fp8_gemv` prefetches B into L2, as one sequential run of bytes.
inline constexpr std::size_t fp8_gemv_prefetch_groups = 4;

namespace detail {

/// The shift decode of `fp8_gemv` for one FP8 type. A code byte c in the high byte of a 16-bit word,
/// arithmetically shifted right by `shift` and ANDed with `mask`, is the BF16 whose exponent field is c's
/// exponent field and whose mantissa is c's (zero-filled), sign kept: value × 2^b_exp for normal codes.
/// `sub_span` and `nan_from` classify d = 2·(c & 0x7F), the magnitude with the sign shifted out.
template <dtype::id T>
struct fp8_amx_bits;
template <>
struct fp8_amx_bits<dtype::id::fp8e4m3> {
  static constexpr int shift = 4;                // s eeee mmm at bits 11..4
  static constexpr std::uint16_t mask = 0x87F0;  // sign at 15, eeee mmm at 10..4
  static constexpr int b_exp = -120;             // 2^(e−127) · 1.m against 2^(e−7) · 1.m
  static constexpr int a_exp = 118;              // A ×2^118: 448 · 2^118 < 2^127
  static constexpr std::uint8_t sub_span = 12;   // d − 2 ≤ 12: subnormal (exponent field 0, mantissa ≠ 0)
  static constexpr std::uint8_t nan_from = 254;  // d = 254: NaN (S.1111.111)
};
template <>
struct fp8_amx_bits<dtype::id::fp8e5m2> {
  static constexpr int shift = 3;                // s eeeee mm at bits 12..5
  static constexpr std::uint16_t mask = 0x8FE0;  // sign at 15, eeeee mm at 11..5
  static constexpr int b_exp = -112;             // 2^(e−127) · 1.m against 2^(e−15) · 1.m
  static constexpr int a_exp = 110;              // A ×2^110: 57344 · 2^110 < 2^126
  static constexpr std::uint8_t sub_span = 4;    // d − 2 ≤ 4: subnormal (exponent field 0, mantissa ≠ 0)
  static constexpr std::uint8_t nan_from = 248;  // d ≥ 248: ±Inf, NaN (exponent field 31)
};

/// Lanes of the 64 codes `c` (d = c + c) that are subnormal: exponent field 0, mantissa ≠ 0.
template <dtype::id T>
inline __mmask64 subnormal_lanes(__m512i d) noexcept {
  return _mm512_cmple_epu8_mask(_mm512_sub_epi8(d, _mm512_set1_epi8(2)), _mm512_set1_epi8(static_cast<char>(fp8_amx_bits<T>::sub_span)));
}

/// True when a byte of the running maximum of d = c + c is a NaN/Inf code's.
template <dtype::id T>
inline bool any_nan_inf(__m512i max_d) noexcept {
  return _mm512_cmpge_epu8_mask(max_d, _mm512_set1_epi8(static_cast<char>(fp8_amx_bits<T>::nan_from))) != 0;
}

/// Adds to the block sums `sum[0]` (block g) and `sum[1]` (block g+1), ×2^us, of one B row the products the tiles
/// read as zero: those of its subnormal codes, lanes `lanes` of the pair's 64 codes at `b`, against A's codes
/// at `a` (finite). Each product of two FP8 values is exact in fp32 (at most 8 significant bits, ≥ 2^-18
/// E4M3 / 2^-32 E5M2 in magnitude where nonzero).
template <dtype::id T>
inline void add_subnormal_products(float* const sum[2], std::uint64_t lanes, const std::uint8_t* b,
                                   const std::uint8_t* a) noexcept {
  constexpr auto values = armlower::mx::decode_table(T);
  constexpr float scale = armlower::mx::detail::pow2f(fp8_amx_bits<T>::a_exp + fp8_amx_bits<T>::b_exp);
  for (; lanes != 0; lanes &= lanes - 1) {
    const std::size_t l = static_cast<std::size_t>(std::countr_zero(lanes));
    *sum[l / armlower::mx::block_size] += values[a[l]] * values[b[l]] * scale;
  }
}

/// Lanes c·(P/2) + j of the result of `halve<P>(a, b)`: element j (`Hi`: j + P/2) of row c of the rows held
/// by a, then b (each `16 / P` rows of P partial sums, row-major).
template <int P, bool Hi>
inline __m512i halve_index() noexcept {
  alignas(64) std::int32_t idx[16];
  const int rows_in = 16 / P, half = P / 2;
  for (int lane = 0; lane < 16; ++lane) {
    const int row = lane / half, j = lane % half + (Hi ? half : 0);
    idx[lane] = row < rows_in ? row * P + j : 16 + (row - rows_in) * P + j;
  }
  return _mm512_load_si512(idx);
}

/// a, b: 16 / P rows of P partial sums each (row-major lanes) → 32 / P rows (a's, then b's) of P / 2 sums:
/// each row's first half plus its second half.
template <int P>
inline __m512 halve(__m512 a, __m512 b) noexcept {
  return _mm512_add_ps(_mm512_permutex2var_ps(a, halve_index<P, false>(), b),
                       _mm512_permutex2var_ps(a, halve_index<P, true>(), b));
}

/// The 16 row sums of 8 vectors of 2 rows × 8 partial sums each (vector k: rows 2k, 2k+1).
inline __m512 row_sums(const __m512* v) noexcept {
  const __m512 q0 = halve<8>(v[0], v[1]), q1 = halve<8>(v[2], v[3]), q2 = halve<8>(v[4], v[5]), q3 = halve<8>(v[6], v[7]);
  return halve<2>(halve<4>(q0, q1), halve<4>(q2, q3));
}

/// B's E8M0 codes of blocks g0 .. g0 + n − 1 (n ≤ 8) of rows `row` and `row` + 1 (row stride nb) as int32 lanes
/// 0..7 and 8..15 (lanes past n: 0). Reads only those codes.
inline __m512i b_scales2x8(const std::uint8_t* bs, std::size_t row, std::size_t nb, std::size_t g0, std::size_t n) noexcept {
  std::uint64_t lo = 0, hi = 0;
  if (n == 8) {
    std::memcpy(&lo, bs + row * nb + g0, 8);
    std::memcpy(&hi, bs + (row + 1) * nb + g0, 8);
  } else {
    std::memcpy(&lo, bs + row * nb + g0, n);
    std::memcpy(&hi, bs + (row + 1) * nb + g0, n);
  }
  return _mm512_cvtepu8_epi32(_mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo)));
}

}  // namespace detail

/// Fewest B rows for which `fp8_gemv` is taken: below it the per-call setup (A's tiles, the tile configuration)
/// did not pay against `avx512::fp8_bf16_rows` (16 rows: slower at every K; 32 rows: slower at K 4096).
inline constexpr std::size_t fp8_gemv_min_rows = 64;

/// True when `fp8_gemv` runs this product: one A row, 128 ≤ K ≤ `fp8_gemv_max_k`, at least `fp8_gemv_min_rows`
/// B rows, and a CPU (and OS grant) with AMX-BF16.
[[nodiscard]] inline bool fp8_gemv_applies(const rows_args& r) noexcept {
  return r.h == 1 && r.c >= 128 && r.c <= fp8_gemv_max_k && r.w >= fp8_gemv_min_rows && kernels::detail::x86_has_amx_bf16();
}

/// FP8 GEMV on AMX-BF16 (see the file comment); T ∈ {FP8E4M3, FP8E5M2}. Precondition: `fp8_gemv_applies(r)`.
/// Writes out[0, j] for every B row j; within the TOSA dot-product bound, NaN/Inf/subnormal codes included
/// (their rows recomputed by `avx512::fp8_bf16_rows`).
template <dtype::id T>
ARMLOWER_X86_AMX_BF16 inline void fp8_gemv(const rows_args& r) noexcept {
  static_assert(T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2);
  using bits = detail::fp8_amx_bits<T>;
  namespace a5 = avx512::detail;
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t rows = fp8_gemv_rows;
  constexpr int us = bits::a_exp + bits::b_exp;  // block sums ×2^us
  const std::size_t nb = r.c / bs;

  constexpr std::size_t wp = fp8_gemv_window_pairs, wb = 2 * wp;  // block pairs / blocks per C window
  const std::size_t pairs = (nb + 1) / 2;

  // A: per pair p, two B tiles of 16 k-pair rows × wb columns (BF16 pairs), zero but for column 2(p mod wp)
  // in rows 0..7 and column 2(p mod wp) + 1 in rows 8..15: A's even-code words (act[p][0]) and odd-code
  // words (act[p][1]) of blocks 2p and 2p + 1, in the decode's word order.
  alignas(64) std::uint32_t act[fp8_gemv_max_k / 64][2][rows * wb];
  {
    std::memset(act, 0, pairs * sizeof(act[0]));
    const a5::bf16_luts lut = a5::bf16_luts::make<T, bits::a_exp>();
    __m512i max_d = _mm512_setzero_si512();
    alignas(64) std::uint32_t words[2][16];
    for (std::size_t pr = 0; pr < pairs; ++pr) {
      const std::size_t g = 2 * pr, col = 2 * (pr % wp);
      const __m512i c = a5::load_blocks(r.a + g * bs, g + 1 < nb ? ~__mmask64{0} : 0xFFFFFFFFu);
      max_d = _mm512_max_epu8(max_d, _mm512_add_epi8(c, c));
      __m512i h, l;
      a5::bf16_bytes(c, lut, h, l);
      _mm512_store_si512(words[0], _mm512_ternarylogic_epi32(_mm512_slli_epi16(h, 8), l, _mm512_set1_epi16(0x00FF), 0xF8));
      _mm512_store_si512(words[1], _mm512_ternarylogic_epi32(h, _mm512_srli_epi16(l, 8),
                                                             _mm512_set1_epi16(static_cast<short>(0xFF00)), 0xEC));
      for (std::size_t e = 0; e < 2; ++e)
        for (std::size_t k = 0; k < rows; ++k) act[pr][e][k * wb + col + (k < 8 ? 0 : 1)] = words[e][k];
    }
    if (detail::any_nan_inf<T>(max_d)) {  // NaN/Inf in A
      avx512::fp8_bf16_rows<T>(r);
      return;
    }
  }

  // A's side of each window's block steps, lanes n and 8 + n for block 8·win + n: `block_step`'s exponent
  // offset (sa − 127 − us, far out of range for a NaN code) and A's E8M0 code. Blocks past nb: scale 1 (code
  // 127) against sums of 0 and B codes of 0 (`b_scales2x8`), so their products are exactly 0.
  static_assert(wb == 8, "the block steps hold 2 rows × 8 blocks per vector");
  const std::size_t windows = (pairs + wp - 1) / wp;
  alignas(64) std::int32_t a_exp_lanes[fp8_gemv_max_k / 256][16], a_code_lanes[fp8_gemv_max_k / 256][16];
  for (std::size_t win = 0; win < windows; ++win) {
    for (std::size_t n = 0; n < wb; ++n) {
      const std::size_t g = win * wb + n;
      const std::uint8_t sa = g < nb ? r.a_scale[g] : 127;
      for (std::size_t h = 0; h < 2; ++h) {
        a_exp_lanes[win][h * 8 + n] = sa == 255 ? -100000 : std::int32_t{sa} - 127 - us;
        a_code_lanes[win][h * 8 + n] = sa;
      }
    }
  }
  const __m512i mask = _mm512_set1_epi16(static_cast<short>(bits::mask));

  kernels::detail::amx_tile_config cfg;
  for (int t = 0; t < 5; ++t) cfg.rows[t] = rows;
  cfg.colsb[0] = cfg.colsb[1] = 64;                                          // tmm0, 1: B rows' even, odd codes
  cfg.colsb[2] = cfg.colsb[3] = cfg.colsb[4] = static_cast<std::uint16_t>(4 * wb);  // tmm2, 3: A's; tmm4: C
  kernels::detail::amx_load_config(cfg);

  // Per 16-row group, three stages one pair apart, so that no tile load waits for the stores just made and
  // no block step for a tile store just made: pair p decoded into wbuf[p % 2]; pair p − 1 through the tiles
  // into its window's C tile (stored to sums[window % 2] after the window's last pair); a window stored one
  // pair earlier gets its subnormal products and its block steps.
  alignas(64) std::uint16_t wbuf[2][2][rows * bs];  // [pair parity][even, odd codes]: row i at + 32 i
  alignas(64) float sums[2][rows * wb];              // [window parity]: row i, block n of the window at i·wb + n
  bool sub_pair[4 * wp];                             // [pair mod 4wp]: a subnormal code in the group's pair
  const std::size_t w16 = r.w / rows * rows;
  for (std::size_t j = 0; j < w16; j += rows) {
    const std::uint8_t* b0 = r.b + j * r.c;
    const std::uint8_t* bsc = r.b_scale + j * nb;
    const bool run = j + (fp8_gemv_prefetch_groups + 1) * rows <= r.w;
    const std::uint8_t* ahead = run ? r.b + (j + fp8_gemv_prefetch_groups * rows) * r.c : nullptr;
    __m512 acc[rows / 2];  // rows 2k, 2k+1 × one partial sum per block column of a window
    for (auto& v : acc) v = _mm512_setzero_ps();
    __m512i max_d = _mm512_setzero_si512();
    auto decode = [&](std::size_t p) {  // B rows' pair p → wbuf[p % 2], sub_pair
      const std::size_t g = 2 * p, par = p & 1;
      const __mmask64 m = g + 1 < nb ? ~__mmask64{0} : __mmask64{0xFFFFFFFFu};
      __m512i min_t = _mm512_set1_epi8(-1);  // min of d − 2: subnormal codes ≤ sub_span
#pragma GCC unroll 16
      for (std::size_t i = 0; i < rows; ++i) {
        if (run) _mm_prefetch(reinterpret_cast<const char*>(ahead + (p * rows + i) * 64), _MM_HINT_T1);
        const __m512i c = a5::load_blocks(b0 + i * r.c + g * bs, m);
        const __m512i d = _mm512_add_epi8(c, c);
        max_d = _mm512_max_epu8(max_d, d);
        min_t = _mm512_min_epu8(min_t, _mm512_sub_epi8(d, _mm512_set1_epi8(2)));
        _mm512_store_si512(wbuf[par][0] + i * bs, _mm512_and_si512(_mm512_srai_epi16(_mm512_slli_epi16(c, 8), bits::shift), mask));
        _mm512_store_si512(wbuf[par][1] + i * bs, _mm512_and_si512(_mm512_srai_epi16(c, bits::shift), mask));
      }
      sub_pair[p % (4 * wp)] = _mm512_cmple_epu8_mask(min_t, _mm512_set1_epi8(static_cast<char>(bits::sub_span))) != 0;
    };
    auto tiles = [&](std::size_t p) {  // wbuf[p % 2] · A's pair p into the window's C tile; stored at its end
      ARMLOWER_AMX_LOAD(0, wbuf[p & 1][0], 64);
      ARMLOWER_AMX_LOAD(1, wbuf[p & 1][1], 64);
      ARMLOWER_AMX_LOAD(2, act[p][0], 4 * wb);
      ARMLOWER_AMX_LOAD(3, act[p][1], 4 * wb);
      if (p % wp == 0) ARMLOWER_AMX_ZERO(4);
      ARMLOWER_AMX_DPBF16PS(4, 0, 2);
      ARMLOWER_AMX_DPBF16PS(4, 1, 3);
      const bool last = p % wp == wp - 1 || p + 1 == pairs;
      if (last) ARMLOWER_AMX_STORE(4, sums[(p / wp) & 1], 4 * wb);
      return last;
    };
    auto finish = [&](std::size_t win) {  // sums[win % 2] (+ subnormal products) into acc
      float* const s = sums[win & 1];
      const std::size_t p_end = (win + 1) * wp < pairs ? (win + 1) * wp : pairs;
      for (std::size_t p = win * wp; p < p_end; ++p) {
        if (!sub_pair[p % (4 * wp)]) continue;  // rare in quantized data: each row's subnormal codes, found again
        const std::size_t g = 2 * p, col = 2 * (p % wp);
        const __mmask64 m = g + 1 < nb ? ~__mmask64{0} : __mmask64{0xFFFFFFFFu};
        for (std::size_t i = 0; i < rows; ++i) {
          const __m512i c = a5::load_blocks(b0 + i * r.c + g * bs, m);
          float* const sum[2] = {s + i * wb + col, s + i * wb + col + 1};
          detail::add_subnormal_products<T>(sum, detail::subnormal_lanes<T>(_mm512_add_epi8(c, c)), b0 + i * r.c + g * bs,
                                            r.a + g * bs);
        }
      }
      // acc[k] (rows 2k, 2k+1; one partial sum per window column) += sum · 2^-us · scale_A · scale_B, the
      // product rounded apart from the add
      const std::size_t g0 = win * wb, n = nb - g0 < wb ? nb - g0 : wb;
      const __m512i ae = _mm512_load_si512(a_exp_lanes[win]), sac = _mm512_load_si512(a_code_lanes[win]);
      for (std::size_t k = 0; k < rows / 2; ++k) {
        const __m512i sbc = detail::b_scales2x8(bsc, 2 * k, nb, g0, n);
        a5::block_step_lanes<true, us>(acc[k], _mm512_load_ps(s + 16 * k), sbc, ae, sac);
      }
    };
    std::size_t stored = pairs;  // window whose sums were stored and await `finish` (pairs: none)
    for (std::size_t p = 0; p < pairs; ++p) {
      decode(p);
      if (stored != pairs) {
        finish(stored);
        stored = pairs;
      }
      if (p >= 1 && tiles(p - 1)) stored = (p - 1) / wp;
    }
    if (stored != pairs) finish(stored);
    tiles(pairs - 1);
    finish((pairs - 1) / wp);
    if (detail::any_nan_inf<T>(max_d)) {  // NaN/Inf codes in these rows: the exact-decode kernel
      avx512::fp8_bf16_rows<T>(rows_args{r.a, r.a_scale, 1, b0, bsc, rows, r.c, r.out + j, r.b_finite});
    } else {
      _mm512_storeu_ps(r.out + j, detail::row_sums(acc));
    }
  }
  kernels::detail::amx_release();
  if (w16 < r.w)
    avx512::fp8_bf16_rows<T>(rows_args{r.a, r.a_scale, 1, r.b + w16 * r.c, r.b_scale + w16 * nb, r.w - w16, r.c,
                                       r.out + w16, r.b_finite});
}

}  // namespace armlower::kernels::mx::arch::amx

#if defined(ARMLOWER_MX_AMX_GCC12_UNDEF_PRAGMAS)
#pragma GCC diagnostic pop
#undef ARMLOWER_MX_AMX_GCC12_UNDEF_PRAGMAS
#endif

#else
namespace armlower::kernels::mx::arch::amx {
/// False: this translation unit compiles no AMX-BF16 FP8 GEMV.
inline constexpr bool available = false;
}  // namespace armlower::kernels::mx::arch::amx
#endif
