/// @file armlower/kernels/mx/arch/x86_avx2.hpp
/// x86 AVX2 MATMUL_T_BLOCK_SCALED row kernels (host only; compiled when `__AVX2__` is defined, e.g.
/// with -march=native or -mavx2 -mfma). Two strategies (element lookup by byte shuffle as ggml `kvalues_mxfp4`):
///  - `int8_rows<T>` for FP4E2M1 (×2 → int8 via one `vpshufb` per block), FP6E2M3 (×8 → int8 via two
///    `vpshufb` + blend), FP6E3M2 (×16 → int16 via byte lookups) and MXINT8 (raw int8, widened to
///    int16): exact int32 block sums
///    (`vpmaddubsw` on B + offset and A, corrected by offset·ΣA; `vpmaddwd`), reduced 8 B rows at a
///    time with a `vphaddd` tree into one lane per B row, then `block_acc · (scale_A · scale_B)` and the fp32
///    accumulation in block order, lane-wise for 8 rows. **Bit-identical to the pseudocode path** (`reference_rows`) because
///    the pseudocode's fp32 block sums are exact for these types (arch/generic.hpp).
///  - `fp8_rows<T>` for FP8E4M3/FP8E5M2: B decoded to fp32 with a bit trick (`fp8_split`: value·2^-120
///    resp. 2^-112, exact incl. subnormals, no FTZ/DAZ needed), A decoded once per row chunk and
///    pre-scaled so no product is subnormal; 8-lane FMA block sums, each scaled into an accumulator per
///    (A row, B row); batch 1: 3 B rows per A load, batch > 1: each B block decoded once for up to 4 A
///    rows; next B rows prefetched into L2. Blocks holding NaN/Inf B codes take
///    the scalar pseudocode. The summation order differs from the pseudocode, so results are **only
///    within the TOSA dot-product bound** (TOSA 1.0 dot-product accuracy rule, pseudocode/library/tosa_reference_check_dotproduct.tosac), not bit-identical.
#pragma once

#if defined(__AVX2__) && defined(__FMA__)
// GCC 12's AVX-512 intrinsics trip -W(maybe-)uninitialized on their `_mm512_undefined_*` passthrough
// operands (a false positive, GCC PR 105593); the state at the intrinsics' own lines decides.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

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

/// `arch::detail::keep_rounded` for a vector in a register (no instruction): the scaled block
/// product stays rounded apart from the accumulation, as in the pseudocode (no FMA contraction).
inline void keep_rounded(__m256& v) noexcept { asm("" : "+x"(v)); }

/// fp32 values of 8 E8M0 codes given as int32 lanes (0x00 → 2^-127 subnormal, 0xFF → NaN).
inline __m256 e8m0_decode8(__m256i c) noexcept {
  __m256i v = _mm256_slli_epi32(c, 23);
  v = _mm256_blendv_epi8(v, _mm256_set1_epi32(0x00400000), _mm256_cmpeq_epi32(c, _mm256_setzero_si256()));
  v = _mm256_blendv_epi8(v, _mm256_set1_epi32(0x7FC00000), _mm256_cmpeq_epi32(c, _mm256_set1_epi32(255)));
  return _mm256_castsi256_ps(v);
}

/// Lookup table of MX element type T made from `mx::decode_table` (16 entries for FP4, 64 for FP6):
/// entry c = byte `Part` (0 low, 1 high) of code c's integer value ×2^int_shift, plus `Offset` (added
/// before the byte is taken). Shared by the AVX2 `vpshufb` and the AVX-512 `vpshufb`/`vpermb` decodes.
template <dtype::id T, int Offset = 0, int Part = 0>
inline constexpr auto int_table = [] {
  constexpr auto values = armlower::mx::decode_table(T);
  std::array<std::uint8_t, values.size()> t{};
  const float k = armlower::mx::detail::pow2f(armlower::mx::format(T).int_shift);
  for (std::size_t c = 0; c < t.size(); ++c) {
    const int v = static_cast<int>(values[c] * k) + Offset;
    t[c] = static_cast<std::uint8_t>((static_cast<unsigned>(v) >> (8 * Part)) & 0xFFu);
  }
  return t;
}();

/// `vpshufb` table of FP4E2M1 (both 128-bit lanes): code → value ×2 plus `Offset` (`int_table`).
template <int Offset>
inline __m256i fp4_lut() noexcept {
  const auto& t = int_table<dtype::id::fp4e2m1, Offset>;
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data())));
}

/// int8 values ×2^k plus `Offset` of the 32 codes of one block (FP4: 16 packed bytes, low nibbles in
/// the low 128-bit lane, high nibbles in the high one; E2M3: 32 bytes in order). FP4 takes any
/// `Offset` for free (it is folded into the lookup table); E2M3 only 0.
template <dtype::id T, int Offset = 0>
inline __m256i block_i8(const std::uint8_t* p) noexcept {
  if constexpr (T == dtype::id::fp4e2m1) {
    const __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    const __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(v, _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4)),
                                         _mm256_set1_epi8(0x0F));
    return _mm256_shuffle_epi8(fp4_lut<Offset>(), idx);
  } else {  // fp6e2m3: magnitude ×8 = 0..7, 8..15, 16..30 step 2, 32..60 step 4
    static_assert(Offset == 0);
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

/// Σ of the 32 signed bytes of v (exact): `vpmaddubsw`(1, v) pairs (|·| ≤ 256), `vpmaddwd`(1) quads, then
/// the 8 lanes. The per-block Σ A of the integer kernels' offset correction (`int8_rows`, `tiles16_rows`).
inline std::int32_t sum_i8x32(__m256i v) noexcept {
  const __m256i q = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), v), _mm256_set1_epi16(1));
  const __m128i h2 = _mm_add_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  const __m128i h1 = _mm_add_epi32(h2, _mm_shuffle_epi32(h2, 0x4E));
  return _mm_cvtsi128_si32(_mm_add_epi32(h1, _mm_shuffle_epi32(h1, 0xB1)));
}

/// int8 values ×2 of the 32 FP4E2M1 codes of one block (16 packed bytes at p, low nibble first) in column
/// order: the bytes widened to 16 bits, each word's two nibbles moved into its two bytes, the 16-entry table.
inline __m256i fp4_block_ordered(const std::uint8_t* p) noexcept {
  const __m256i w16 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  const __m256i idx = _mm256_or_si256(_mm256_and_si256(w16, _mm256_set1_epi16(0x000F)),
                                      _mm256_and_si256(_mm256_slli_epi16(w16, 4), _mm256_set1_epi16(0x0F00)));
  return _mm256_shuffle_epi8(fp4_lut<0>(), idx);
}

/// int16 values ×2^k of the 32 codes of one block in two vectors (MXINT8: the raw int8 codes
/// widened, elements 0..15 then 16..31; FP6E3M2: ×16 = 0..448, decoded with byte lookups — magnitudes
/// 0..15 fit one byte, 16..31 need a high byte — and interleaved by `vpunpck{l,h}bw`, so lo holds
/// elements 0..7 and 16..23, hi 8..15 and 24..31; A and B use the same order).
template <dtype::id T>
inline void block_i16(const std::uint8_t* p, __m256i& lo, __m256i& hi) noexcept {
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  if constexpr (T == dtype::id::mxint8) {
    lo = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(c));
    hi = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(c, 1));
  } else {
    static_assert(T == dtype::id::fp6e3m2);
    // magnitude ×16 by the 5-bit magnitude code: 0..3, 4..7, 8..14 step 2, 16..28 step 4 (< 16),
    // 32..56 step 8, 64..112 step 16, 128..224 step 32, 256..448 step 64 (≥ 16)
    const __m256i l0 = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28,
                                        0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28);
    const __m256i l1 = _mm256_setr_epi8(32, 40, 48, 56, 64, 80, 96, 112, -128, -96, -64, -32, 0, 64, -128, -64,
                                        32, 40, 48, 56, 64, 80, 96, 112, -128, -96, -64, -32, 0, 64, -128, -64);
    const __m256i h1 = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1);
    const __m256i idx = _mm256_and_si256(c, _mm256_set1_epi8(0x0F));
    const __m256i b4 = _mm256_set1_epi8(0x10);
    const __m256i big = _mm256_cmpeq_epi8(_mm256_and_si256(c, b4), b4);
    const __m256i lob = _mm256_blendv_epi8(_mm256_shuffle_epi8(l0, idx), _mm256_shuffle_epi8(l1, idx), big);
    const __m256i hib = _mm256_and_si256(_mm256_shuffle_epi8(h1, idx), big);
    // sign: bit 5 of the code, moved to bit 15 of the word (c << 2 puts it in bit 7 of its byte)
    const __m256i sg = _mm256_slli_epi16(c, 2);
    const __m256i zero = _mm256_setzero_si256();
    lo = _mm256_sign_epi16(_mm256_unpacklo_epi8(lob, hib), _mm256_unpacklo_epi8(zero, sg));
    hi = _mm256_sign_epi16(_mm256_unpackhi_epi8(lob, hib), _mm256_unpackhi_epi8(zero, sg));
  }
}

/// out[g · out_stride + q] = p[q · stride + g] for an 8×8 tile of E8M0 codes (rows q, blocks g),
/// widened to int32; `out` 32-byte aligned, `out_stride` a multiple of 8.
inline void transpose_scales8(const std::uint8_t* p, std::size_t stride, std::int32_t* out,
                              std::size_t out_stride = 8) noexcept {
  __m128i r[8];
  for (int q = 0; q < 8; ++q) r[q] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + q * stride));
  const __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
  const __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
  const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
  const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
  const __m128i c[4] = {_mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2), _mm_unpacklo_epi32(b1, b3),
                        _mm_unpackhi_epi32(b1, b3)};  // c[k] = columns 2k, 2k+1 (8 bytes each)
  for (std::size_t k = 0; k < 4; ++k) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(out + 2 * k * out_stride), _mm256_cvtepu8_epi32(c[k]));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out + (2 * k + 1) * out_stride),
                       _mm256_cvtepu8_epi32(_mm_srli_si128(c[k], 8)));
  }
}

/// Sums of 8 int32x8 vectors: lane g of the result = sum of v[g].
inline __m256i hsum8(const __m256i* v) noexcept {
  const __m256i t0 = _mm256_hadd_epi32(v[0], v[1]), t1 = _mm256_hadd_epi32(v[2], v[3]);
  const __m256i t2 = _mm256_hadd_epi32(v[4], v[5]), t3 = _mm256_hadd_epi32(v[6], v[7]);
  const __m256i u0 = _mm256_hadd_epi32(t0, t1), u1 = _mm256_hadd_epi32(t2, t3);
  return _mm256_add_epi32(_mm256_permute2x128_si256(u0, u1, 0x20), _mm256_permute2x128_si256(u0, u1, 0x31));
}

/// Sums of the 128-bit halves of 8 int16x16 vectors: word r of the low half of the result = Σ of
/// the 8 words of v[r]'s low half, the same for the high half (a `vphaddw` tree). Exact while every
/// partial sum fits int16 (`vphaddw` does not saturate).
inline __m256i hsum8_i16_halves(const __m256i* v) noexcept {
  const __m256i t0 = _mm256_hadd_epi16(v[0], v[1]), t1 = _mm256_hadd_epi16(v[2], v[3]);
  const __m256i t2 = _mm256_hadd_epi16(v[4], v[5]), t3 = _mm256_hadd_epi16(v[6], v[7]);
  return _mm256_hadd_epi16(_mm256_hadd_epi16(t0, t1), _mm256_hadd_epi16(t2, t3));
}

/// Sums of 8 int16x16 vectors: lane r (int32) of the result = Σ of v[r]'s 16 words (a `vphaddw`
/// tree, then the two 128-bit halves). Exact while every partial sum fits int16 (FP4E2M1 block dot
/// products: |Σ| ≤ 16·2·24·12 = 9216; `vphaddw` does not saturate).
inline __m256i hsum8_i16(const __m256i* v) noexcept {
  const __m256i w = hsum8_i16_halves(v);
  return _mm256_cvtepi16_epi32(_mm_add_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}

/// Sum of the 8 fp32 lanes of v (pairwise: halves, then pairs, then the last two).
inline float hsum(__m256 v) noexcept {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

/// Constants of the `fp8_split` bit trick: the arithmetic shift of each 16-bit word and the mask that
/// keeps sign, exponent and mantissa bits of the bf16 pattern it leaves.
template <dtype::id T>
struct fp8_split_bits {
  static constexpr int shift = T == dtype::id::fp8e4m3 ? 4 : 3;
  static constexpr short mask = static_cast<short>(T == dtype::id::fp8e4m3 ? 0x87F0 : 0x8FE0);
};

/// FP8 codes → fp32 with the bit trick, 32 codes (one block) at a time: d[q] lane L = code 4L+q.
/// Each 16-bit word [hi, lo] gives bf16 patterns via `srai16(·, 4 or 3) & 0x87F0 (0x8FE0)` (sign kept,
/// exponent field = the FP8 exponent field, mantissa bits in place), widened to fp32 by zeroing or
/// shifting the other half: value·2^-120 (E4M3) or ·2^-112 (E5M2), exact incl. subnormals (no
/// FTZ/DAZ needed). NaN/Inf codes give finite garbage: callers check `fp8_special`.
template <dtype::id T>
inline void fp8_split(__m256i v, __m256* d) noexcept {
  constexpr int sh = fp8_split_bits<T>::shift;
  const __m256i m16 = _mm256_set1_epi16(fp8_split_bits<T>::mask);
  const __m256i hi16 = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
  const __m256i h = _mm256_and_si256(_mm256_srai_epi16(v, sh), m16);
  const __m256i l = _mm256_and_si256(_mm256_srai_epi16(_mm256_slli_epi16(v, 8), sh), m16);
  d[3] = _mm256_castsi256_ps(_mm256_and_si256(h, hi16));
  d[1] = _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
  d[2] = _mm256_castsi256_ps(_mm256_and_si256(l, hi16));
  d[0] = _mm256_castsi256_ps(_mm256_slli_epi32(l, 16));
}

/// True when the byte-wise signed maximum `maxs` / unsigned maximum `maxu` of some FP8 codes show a
/// NaN/Inf code: E4M3 0x7F / 0xFF; E5M2 0x7C..0x7F / 0xFC..0xFF.
template <dtype::id T>
inline bool fp8_special(__m256i maxs, __m256i maxu) noexcept {
  constexpr bool e4 = T == dtype::id::fp8e4m3;
  const __m256i pos = _mm256_cmpgt_epi8(maxs, _mm256_set1_epi8(static_cast<char>(e4 ? 0x7E : 0x7B)));
  const __m256i umin = _mm256_set1_epi8(static_cast<char>(e4 ? 0xFF : 0xFC));
  const __m256i neg = _mm256_cmpeq_epi8(_mm256_max_epu8(maxu, umin), maxu);
  return _mm256_movemask_epi8(_mm256_or_si256(pos, neg)) != 0;
}

/// True when no scale code is NaN (255) and every block factor built in the exponent field is a
/// normal fp32: with A codes in [sa_lo, sa_hi] and B codes in [sb_lo, sb_hi], the biased exponents
/// sa + sb + bias stay in [1, 254], `lo_bias` applying at the smallest codes and `hi_bias` at the largest.
inline bool normal_factors(int sa_lo, int sa_hi, int sb_lo, int sb_hi, int lo_bias, int hi_bias) noexcept {
  return sa_hi < 255 && sb_hi < 255 && sa_lo + sb_lo + lo_bias >= 1 && sa_hi + sb_hi + hi_bias <= 254;
}

/// Smallest and largest of the n E8M0 codes at p (32 at a time with `vpminub`/`vpmaxub`, the 32 lanes folded
/// by shifts), merged into lo and hi.
inline void code_range(const std::uint8_t* p, std::size_t n, int& lo, int& hi) noexcept {
  std::size_t i = 0;
  if (n >= 32) {
    __m256i mn = _mm256_set1_epi8(static_cast<char>(0xFF)), mxv = _mm256_setzero_si256();
    for (; i + 32 <= n; i += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
      mn = _mm256_min_epu8(mn, v);
      mxv = _mm256_max_epu8(mxv, v);
    }
    __m128i a = _mm_min_epu8(_mm256_castsi256_si128(mn), _mm256_extracti128_si256(mn, 1));
    __m128i b = _mm_max_epu8(_mm256_castsi256_si128(mxv), _mm256_extracti128_si256(mxv, 1));
    a = _mm_min_epu8(a, _mm_srli_si128(a, 8));
    b = _mm_max_epu8(b, _mm_srli_si128(b, 8));
    a = _mm_min_epu8(a, _mm_srli_si128(a, 4));
    b = _mm_max_epu8(b, _mm_srli_si128(b, 4));
    a = _mm_min_epu8(a, _mm_srli_si128(a, 2));
    b = _mm_max_epu8(b, _mm_srli_si128(b, 2));
    a = _mm_min_epu8(a, _mm_srli_si128(a, 1));
    b = _mm_max_epu8(b, _mm_srli_si128(b, 1));
    const int vlo = _mm_cvtsi128_si32(a) & 0xFF, vhi = _mm_cvtsi128_si32(b) & 0xFF;
    lo = vlo < lo ? vlo : lo;
    hi = vhi > hi ? vhi : hi;
  }
  for (; i < n; ++i) {
    lo = p[i] < lo ? p[i] : lo;
    hi = p[i] > hi ? p[i] : hi;
  }
}

/// Fixed exponents of the FP8 row kernels: B decoded by `fp8_split` reads real · 2^-trick; A is held
/// as real · 2^ca so that no product is an fp32 subnormal; the block factor then carries 2^unscale.
template <dtype::id T>
struct fp8_exponents {
  static constexpr int trick = T == dtype::id::fp8e4m3 ? 120 : 112;
  static constexpr int ca = T == dtype::id::fp8e4m3 ? 100 : 64;
  static constexpr int unscale = trick - ca;
  static constexpr int kbias = unscale - 254 + 127;  ///< biased factor exponent = sa + sb + kbias
};

/// One block (32 codes at p) of FP8 A decoded to real · 2^ca: the 8 values of `fp8_split` part q
/// (codes 4L + q, L = 0..7) go to dst + q · q_stride (32-byte aligned). Exact; NaN/Inf codes decoded
/// one by one.
template <dtype::id T>
inline void fp8_decode_a(const std::uint8_t* p, float* dst, std::size_t q_stride) noexcept {
  using e = fp8_exponents<T>;
  const __m256 up = _mm256_set1_ps(armlower::mx::detail::pow2f(e::ca));
  const __m256 upt = _mm256_set1_ps(armlower::mx::detail::pow2f(e::trick));
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  __m256 d[4];
  fp8_split<T>(v, d);
  for (std::size_t q = 0; q < 4; ++q) _mm256_store_ps(dst + q * q_stride, _mm256_mul_ps(_mm256_mul_ps(d[q], upt), up));
  if (fp8_special<T>(v, v))
    for (std::size_t k = 0; k < 32; ++k)
      dst[(k % 4) * q_stride + k / 4] = armlower::mx::decode<T>(p[k]) * armlower::mx::detail::pow2f(e::ca);
}

/// Block factors of one (A row, B row) pair of the FP8 row kernels, blocks g < gcount:
/// f[g] = 2^(sa + sb − 254 + unscale) as the pseudocode's fp32 arithmetic gives it. `ka[g]` = sa +
/// kbias; [sa_min, sa_max] and [sb_min, sb_max] the code ranges of psa and psb. Built in the exponent
/// field when every factor is a normal fp32 and no code is NaN, else exactly by `scale_product`.
template <dtype::id T>
inline void fp8_factors(const std::int32_t* ka, const std::uint8_t* psa, int sa_min, int sa_max,
                        const std::uint8_t* psb, int sb_min, int sb_max, std::size_t gcount, float* f) noexcept {
  using e = fp8_exponents<T>;
  if (normal_factors(sa_min, sa_max, sb_min, sb_max, e::kbias, e::kbias)) {
    std::size_t g = 0;
    for (; g + 8 <= gcount; g += 8) {
      const __m256i sb = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(psb + g)));
      const __m256i k = _mm256_add_epi32(sb, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ka + g)));
      _mm256_storeu_ps(f + g, _mm256_castsi256_ps(_mm256_slli_epi32(k, 23)));
    }
    for (; g < gcount; ++g) f[g] = armlower::mx::detail::pow2f(ka[g] + int(psb[g]) - 127);
  } else {
    for (std::size_t g = 0; g < gcount; ++g) f[g] = arch::detail::scale_product(psa[g], psb[g], e::unscale);
  }
}

/// The A side of the FP8 row kernels for A rows i0 .. i0+hn−1 and the chunk [k0, k0 + 32·gcount):
/// row ii decoded by `fp8_decode_a` into ad + ii·kc — block g at 32·g with part stride 8, or with
/// `Pairs` (two blocks per 512-bit vector) at 64·(g/2) + 8·(g%2) with part stride 16, a missing odd
/// last block zero — `ka[ii·(kc/32) + g]` = sa + kbias, and the row's scale code range.
template <dtype::id T, bool Pairs>
inline void fp8_prepare_a(const rows_args& r, std::size_t i0, std::size_t hn, std::size_t k0, std::size_t gcount,
                          std::size_t kc, float* ad, std::int32_t* ka, int* sa_min, int* sa_max) noexcept {
  constexpr std::size_t bs = armlower::mx::block_size;
  const std::size_t nb = r.c / bs;
  for (std::size_t ii = 0; ii < hn; ++ii) {
    const std::uint8_t* ar = r.a + (i0 + ii) * r.c + k0;
    const std::uint8_t* psa = r.a_scale + (i0 + ii) * nb + k0 / bs;
    float* adr = ad + ii * kc;
    sa_min[ii] = 255;
    sa_max[ii] = 0;
    code_range(psa, gcount, sa_min[ii], sa_max[ii]);
    for (std::size_t g = 0; g < gcount; ++g) {
      if constexpr (Pairs) fp8_decode_a<T>(ar + g * bs, adr + (g / 2) * 64 + (g % 2) * 8, 16);
      else fp8_decode_a<T>(ar + g * bs, adr + g * bs, 8);
      ka[ii * (kc / bs) + g] = int(psa[g]) + fp8_exponents<T>::kbias;
    }
    if (Pairs && gcount % 2 != 0)
      for (std::size_t q = 0; q < 4; ++q) _mm256_store_ps(adr + (gcount / 2) * 64 + 16 * q + 8, _mm256_setzero_ps());
  }
}

/// Factor arrays of B row `col` with the A rows i0 .. i0+P−1 (`fp8_factors`), A row p's at
/// f + p·f_stride; `ka`, `sa_min`, `sa_max` as `fp8_prepare_a` left them.
template <dtype::id T>
inline void fp8_row_factors(const rows_args& r, std::size_t i0, std::size_t P, std::size_t col, std::size_t k0,
                            std::size_t gcount, std::size_t kc, const std::int32_t* ka, const int* sa_min,
                            const int* sa_max, float* f, std::size_t f_stride) noexcept {
  constexpr std::size_t bs = armlower::mx::block_size;
  const std::size_t nb = r.c / bs;
  const std::uint8_t* psb = r.b_scale + col * nb + k0 / bs;
  int sb_min = 255, sb_max = 0;
  code_range(psb, gcount, sb_min, sb_max);
  for (std::size_t p = 0; p < P; ++p)
    fp8_factors<T>(ka + p * (kc / bs), r.a_scale + (i0 + p) * nb + k0 / bs, sa_min[p], sa_max[p], psb, sb_min,
                   sb_max, gcount, f + p * f_stride);
}

/// Output (row, col) of the FP8 row kernels for the chunk [k0, k0 + kn): `sum` — or, when B row
/// `col` holds NaN/Inf codes there (`special`), the pseudocode's — written (k0 = 0) or added.
template <dtype::id T>
inline void fp8_store(const rows_args& r, std::size_t row, std::size_t col, std::size_t k0, std::size_t kn, float sum,
                      bool special) noexcept {
  const std::size_t nb = r.c / armlower::mx::block_size, g_first = k0 / armlower::mx::block_size;
  if (special)
    reference_rows<T>(rows_args{r.a + row * r.c + k0, r.a_scale + row * nb + g_first, 1, r.b + col * r.c + k0,
                                r.b_scale + col * nb + g_first, 1, kn, &sum});
  float* o = r.out + row * r.w + col;
  *o = k0 == 0 ? sum : *o + sum;
}

/// Calls `tile.operator()<Q, P>(j)` of an FP8 row kernel over every B row j for a group of hn A rows:
/// hn = 1 in steps of Q = `Q1` rows (the rest one by one), else one row at a time with P = hn ≤ `Hb`.
template <std::size_t Q1, std::size_t Hb, class Tile>
inline void fp8_tiles(std::size_t hn, std::size_t w, const Tile& tile) noexcept {
  static_assert(Hb == 4, "fp8_tiles instantiates P = 1 .. 4");
  std::size_t j = 0;
  switch (hn) {
    case 1:
      for (; j + Q1 <= w; j += Q1) tile.template operator()<Q1, 1>(j);
      for (; j < w; ++j) tile.template operator()<1, 1>(j);
      break;
    case 2: for (; j < w; ++j) tile.template operator()<1, 2>(j); break;
    case 3: for (; j < w; ++j) tile.template operator()<1, 3>(j); break;
    default: for (; j < w; ++j) tile.template operator()<1, Hb>(j); break;
  }
}

/// A chunk's A scale codes `sc` (`gcount` blocks) for the tiles16 kernels (`avx2::tiles16_rows`, `avx512::tiles16_rows`) with block sums ×2^Us: sk[g] = code −
/// 127 − Us (a NaN code: far below any exponent) and the codes' range [sa_min, sa_max].
template <int Us>
inline void tiles16_a_scales(const std::uint8_t* sc, std::size_t gcount, std::int32_t* sk, int& sa_min, int& sa_max) noexcept {
  for (std::size_t g = 0; g < gcount; ++g) sk[g] = sc[g] == 255 ? -100000 : int(sc[g]) - 127 - Us;
  sa_min = 255;
  sa_max = 0;
  code_range(sc, gcount, sa_min, sa_max);
}

/// Scale side of one A row for the exact-integer row kernels (`int8_rows`, AVX2 and AVX-512): the
/// code range [sa_min, sa_max] of the gcount E8M0 codes at psa, and sk[g] = code − 127 − us.
inline void int_row_scales(const std::uint8_t* psa, std::size_t gcount, int us, int& sa_min, int& sa_max,
                           std::int32_t* sk) noexcept {
  sa_min = 255;
  sa_max = 0;
  code_range(psa, gcount, sa_min, sa_max);
  for (std::size_t g = 0; g < gcount; ++g) sk[g] = int(psa[g]) - 127 - us;
}

/// For the exact-integer row kernels: plain[ii] (ii < hn) = every block factor of A row ii with B rows
/// j0 .. j0+jt−1 over the gcount blocks from g_first, sa·sb·2^-us, is a normal fp32 and no scale is
/// NaN, so blk·2^-us·(sa·sb) is exactly block_sum · 2^(sa + sb − 254 − us), built in the exponent field.
inline void int_tile_plain(const rows_args& r, std::size_t j0, std::size_t jt, std::size_t g_first,
                           std::size_t gcount, std::size_t hn, const int* sa_min, const int* sa_max, int us,
                           bool* plain) noexcept {
  const std::size_t nb = r.c / armlower::mx::block_size;
  int sb_min = 255, sb_max = 0;
  for (std::size_t q = 0; q < jt; ++q) code_range(r.b_scale + (j0 + q) * nb + g_first, gcount, sb_min, sb_max);
  for (std::size_t ii = 0; ii < hn; ++ii) plain[ii] = normal_factors(sa_min[ii], sa_max[ii], sb_min, sb_max, -127 - us, -127);
}

/// out[g · Rows + q] = scale code of tile row q (< jt, else 0) at block g (< gn) for a tile of `Rows`
/// (a multiple of 8) B rows whose scales start at bsc (row stride nb); 8×8 transposes when full.
/// Always inlined: called out of line from `avx512::int8_gemv`, GCC 12 spilled the zmm state and copied the
/// tile's row pointers between stack slots around each call (~80 instructions per 8 blocks).
template <std::size_t Rows>
__attribute__((always_inline)) inline void int_tile_scales(const std::uint8_t* bsc, std::size_t nb, std::size_t gn,
                                                          std::size_t jt, std::int32_t* out) noexcept {
  if (gn == 8 && jt == Rows) {
    for (std::size_t q0 = 0; q0 < Rows; q0 += 8) transpose_scales8(bsc + q0 * nb, nb, out + q0, Rows);
  } else {
    for (std::size_t q = 0; q < Rows; ++q)
      for (std::size_t g = 0; g < gn; ++g) out[g * Rows + q] = q < jt ? bsc[q * nb + g] : 0;
  }
}

}  // namespace detail

/// Elements of A decoded per pass of `fp8_rows` (16 KiB of fp32: stays in L1 while B streams).
inline constexpr std::size_t fp8_chunk = 4096;
/// B rows of `fp8_rows` that share each A load (weights in L2: 2 / 3 / 4 rows gave 27.0 / 30.0 / 29.1
/// GFLOP/s; with cold weights they measured alike).
inline constexpr std::size_t fp8_rows_shared = 3;
/// A rows of `fp8_rows` that share each decoded B block (batch > 1; the `fp8_chunk` scratch is split
/// between them).
inline constexpr std::size_t fp8_a_rows_shared = 4;
/// Row groups of `fp8_rows` prefetched ahead into L2 (1: the next `fp8_rows_shared` rows, same offset).
inline constexpr std::size_t fp8_prefetch_groups = 1;
/// Elements of A converted per pass of `int8_rows` (4 KiB of int8 / 8 KiB of int16 per row).
inline constexpr std::size_t int8_chunk = 4096;
/// A rows of `int8_rows` that share each decoded B block (batch > 1).
inline constexpr std::size_t int8_rows_shared = 4;
/// B rows ahead that the FP4 GEMV of `int8_rows` prefetches into L2 (8, 16, 24, 32 measured alike,
/// each 13–22 % faster with weights cold than no prefetch; benchmarks/RESULTS.md).
inline constexpr std::size_t fp4_prefetch_rows = 16;


/// Exact-integer AVX2 rows for T ∈ {FP4E2M1, FP6E2M3, FP6E3M2, MXINT8}; bit-identical to `reference_rows<T>`.
/// Up to `int8_rows_shared` A rows at a time: a chunk of up to `int8_chunk` elements of each is
/// converted once to integers (int8, or int16 for FP6E3M2 and MXINT8) with per-block sums, then B is
/// walked in tiles of 8 rows; with more than one A row each B block is decoded once for all of them. FP4/E2M3 block dot
/// products use `vpmaddubsw` with B offset to unsigned (B + off, off = the type's largest integer
/// magnitude) and A signed, corrected by `off · Σ A` per block (exact; no saturation: |A|·(B+off) ≤
/// 60·120). Per block, the 8 rows' partial vectors are reduced with one `vphaddd` tree (FP4: `vphaddw`
/// on the int16 `vpmaddubsw` sums, `hsum8_i16`) into a vector whose lane r is row r's exact block sum,
/// so the per-block fp32 steps (`block_acc · (sA·sB)`, `acc += …`) run lane-wise for 8 rows at once,
/// in block order as the pseudocode does (the running sums are kept in `out` between chunks, exactly).
/// sA·sB is built in the exponent field when every product of the A row's and the tile's scale codes
/// is a normal fp32 (then it is exact and equal to the fp32 product), else decoded and multiplied.
/// FP4 GEMV (one A row) takes two blocks per vector (`fp4_pair`: one `vphaddw` tree per block pair,
/// low half block g, high half g+1) and prefetches the B rows `fp4_prefetch_rows` ahead into L2.
template <dtype::id T>
inline void int8_rows(const rows_args& r) noexcept {
  static_assert(T == dtype::id::fp4e2m1 || T == dtype::id::fp6e2m3 || T == dtype::id::fp6e3m2 || T == dtype::id::mxint8);
  constexpr bool i16 = T == dtype::id::mxint8 || T == dtype::id::fp6e3m2;
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t block_bytes = armlower::mx::storage_bytes(T, bs);
  constexpr std::int8_t off = T == dtype::id::fp4e2m1 ? 12 : 60;  // largest |value · 2^int_shift|
  constexpr std::size_t hb = int8_rows_shared;                       // A rows sharing a decoded B block
  const std::size_t stride = armlower::mx::storage_bytes(T, r.c);
  const std::size_t nb = r.c / bs;
  constexpr int us = 2 * armlower::mx::format(T).int_shift;  // block sums are value products · 2^us
  const __m256 unscale = _mm256_set1_ps(armlower::mx::detail::pow2f(-us));
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i offv = _mm256_set1_epi8(off);
  alignas(32) std::int8_t a_i8[i16 ? 1 : hb][i16 ? 1 : int8_chunk];
  alignas(32) std::int16_t a_w[i16 ? hb : 1][i16 ? int8_chunk : 1];
  alignas(32) std::int32_t a_corr[hb][int8_chunk / bs];  // off · Σ A per block
  alignas(32) std::int32_t a_sk[hb][int8_chunk / bs];    // A scale code − 127 − us per block
  int sa_min[hb], sa_max[hb];                             // A scale code range of the chunk
  alignas(32) std::int32_t sb_t[8][8];                    // [block][row] scale codes of the tile
  alignas(32) std::int8_t b8[i16 ? 1 : 8][32];            // the tile's decoded B blocks (B + off) ...
  alignas(32) std::int16_t b16[i16 ? 8 : 1][32];          // ... or int16 values, when shared
  alignas(32) float out_t[8];
  // B block of tile row q at block `ga` of the chunk, decoded (i8: B + off; i16: two halves)
  auto decode_b8 = [&](const std::uint8_t* p) {
    if constexpr (T == dtype::id::fp4e2m1) return detail::block_i8<T, off>(p);
    else return _mm256_add_epi8(detail::block_i8<T>(p), offv);
  };
  // exact partial sums of one block, A row ii of the group · decoded B: int16 ×16 for FP4 (reduced
  // by `hsum8_i16`), else int32 ×8 (`hsum8`)
  constexpr bool w16 = T == dtype::id::fp4e2m1;
  auto dot8 = [&](__m256i bu, std::size_t ii, std::size_t ga) {
    const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(&a_i8[ii][ga * bs]));
    if constexpr (w16) return _mm256_maddubs_epi16(bu, a);
    else return _mm256_madd_epi16(_mm256_maddubs_epi16(bu, a), ones);
  };
  auto dot16 = [&](__m256i blo, __m256i bhi, std::size_t ii, std::size_t ga) {
    const __m256i lo = _mm256_madd_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(&a_w[ii][ga * bs])), blo);
    const __m256i hi = _mm256_madd_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(&a_w[ii][ga * bs + 16])), bhi);
    return _mm256_add_epi32(lo, hi);
  };
  // FP4 GEMV: A row by block pair P = ga / 2 at a_pair + 32·ga: the even elements of blocks ga and
  // ga + 1 (16 bytes each), then their odd elements; a missing last block is zeros
  alignas(32) std::int8_t a_pair[T == dtype::id::fp4e2m1 ? int8_chunk : 64];
  // v[q]: int16 partial sums of tile row q with A for blocks ga (low half) and ga + 1 (high half):
  // the pair's 32 packed bytes, low and high nibbles looked up as B + off, `vpmaddubsw` with the even
  // and odd A elements. `Two` false: block ga + 1 is past the chunk (not read; zeros in A). Every
  // other pair (one 64-byte line) also prefetches the row `pf_off` bytes further on into L2.
  auto fp4_pair = [&]<bool Two>(const std::uint8_t* const* brow, std::size_t pf_off, std::size_t ga, __m256i* v) {
    const __m256i ae = _mm256_load_si256(reinterpret_cast<const __m256i*>(a_pair + ga * bs));
    const __m256i ao = _mm256_load_si256(reinterpret_cast<const __m256i*>(a_pair + ga * bs + 32));
    const __m256i lut = detail::fp4_lut<off>();
    const __m256i m = _mm256_set1_epi8(0x0F);
    if (ga % 4 == 0) {
#pragma GCC unroll 8
      for (std::size_t q = 0; q < 8; ++q)
        _mm_prefetch(reinterpret_cast<const char*>(brow[q] + ga * block_bytes + pf_off), _MM_HINT_T1);
    }
#pragma GCC unroll 8
    for (std::size_t q = 0; q < 8; ++q) {
      const std::uint8_t* p = brow[q] + ga * block_bytes;
      const __m256i c = Two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                            : _mm256_inserti128_si256(_mm256_setzero_si256(), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), 0);
      const __m256i lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(c, m));
      const __m256i hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(c, 4), m));
      v[q] = _mm256_add_epi16(_mm256_maddubs_epi16(lo, ae), _mm256_maddubs_epi16(hi, ao));
    }
  };
  for (std::size_t i0 = 0; i0 < r.h; i0 += hb) {
    const std::size_t hn = r.h - i0 < hb ? r.h - i0 : hb;
    for (std::size_t k0 = 0; k0 < r.c; k0 += int8_chunk) {
      const std::size_t kn = r.c - k0 < int8_chunk ? r.c - k0 : int8_chunk;
      const std::size_t g_first = k0 / bs, gcount = kn / bs;
      for (std::size_t ii = 0; ii < hn; ++ii) {
        const std::uint8_t* ar = r.a + (i0 + ii) * stride + g_first * block_bytes;
        const std::uint8_t* psa = r.a_scale + (i0 + ii) * nb + g_first;
        detail::int_row_scales(psa, gcount, us, sa_min[ii], sa_max[ii], a_sk[ii]);
        for (std::size_t g = 0; g < gcount; ++g) {
          const std::uint8_t* p = ar + g * block_bytes;
          if constexpr (i16) {
            __m256i lo, hi;
            detail::block_i16<T>(p, lo, hi);
            _mm256_store_si256(reinterpret_cast<__m256i*>(&a_w[ii][g * bs]), lo);
            _mm256_store_si256(reinterpret_cast<__m256i*>(&a_w[ii][g * bs + 16]), hi);
          } else {
            const __m256i v = detail::block_i8<T>(p);
            _mm256_store_si256(reinterpret_cast<__m256i*>(&a_i8[ii][g * bs]), v);
            a_corr[ii][g] = off * detail::sum_i8x32(v);
          }
        }
      }
      if constexpr (T == dtype::id::fp4e2m1) {
        if (hn == 1) {  // a_pair from a_i8 (each block: even elements, then odd)
          for (std::size_t g = 0; g < gcount; g += 2) {
            const __m256i x = _mm256_load_si256(reinterpret_cast<const __m256i*>(&a_i8[0][g * bs]));
            const __m256i y = g + 1 < gcount ? _mm256_load_si256(reinterpret_cast<const __m256i*>(&a_i8[0][(g + 1) * bs]))
                                             : _mm256_setzero_si256();
            _mm256_store_si256(reinterpret_cast<__m256i*>(a_pair + g * bs), _mm256_permute2x128_si256(x, y, 0x20));
            _mm256_store_si256(reinterpret_cast<__m256i*>(a_pair + g * bs + 32), _mm256_permute2x128_si256(x, y, 0x31));
          }
        }
      }
      for (std::size_t j0 = 0; j0 < r.w; j0 += 8) {
        const std::size_t jt = r.w - j0 < 8 ? r.w - j0 : 8;
        __m256 acc[hb];  // acc[ii] lane q: output (i0 + ii, j0 + q), carried across chunks in `out`
        for (std::size_t ii = 0; ii < hn; ++ii) {
          acc[ii] = _mm256_setzero_ps();
          if (k0 != 0) {
            const float* o = r.out + (i0 + ii) * r.w + j0;
            for (std::size_t q = 0; q < 8; ++q) out_t[q] = q < jt ? o[q] : 0.0f;
            acc[ii] = _mm256_load_ps(out_t);
          }
        }
        auto load_scales = [&](std::size_t g0, std::size_t gn) {  // sb_t[g][q] for the tile
          detail::int_tile_scales<8>(r.b_scale + j0 * nb + g_first + g0, nb, gn, jt, &sb_t[0][0]);
        };
        bool plain[hb];  // factor of A row ii built in the exponent field
        detail::int_tile_plain(r, j0, jt, g_first, gcount, hn, sa_min, sa_max, us, plain);
        // block sums `isum` of the tile's 8 rows (lanes) for A row ii at block ga → acc_r, in block order
        auto finish = [&](__m256& acc_r, std::size_t ii, std::size_t g, std::size_t ga, __m256i isum) {
          if constexpr (!i16) isum = _mm256_sub_epi32(isum, _mm256_set1_epi32(a_corr[ii][ga]));
          const __m256i sbc = _mm256_load_si256(reinterpret_cast<const __m256i*>(sb_t[g]));
          __m256 blk, f;  // blk · f = block_sum · 2^-us · (sa · sb) per lane
          if (plain[ii]) {
            blk = _mm256_cvtepi32_ps(isum);
            f = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(sbc, _mm256_set1_epi32(a_sk[ii][ga])), 23));
          } else {
            blk = _mm256_mul_ps(_mm256_cvtepi32_ps(isum), unscale);  // exact
            const __m256 sa = _mm256_set1_ps(armlower::mx::decode_e8m0(r.a_scale[(i0 + ii) * nb + g_first + ga]));
            f = _mm256_mul_ps(sa, detail::e8m0_decode8(sbc));
          }
          __m256 prod = _mm256_mul_ps(blk, f);
          detail::keep_rounded(prod);  // the pseudocode rounds the product, then adds
          acc_r = _mm256_add_ps(acc_r, prod);
        };
        __m256i v[8];
        const std::uint8_t* brow[8];  // the tile's rows at the chunk; a short tile repeats its first row
        for (std::size_t q = 0; q < 8; ++q) brow[q] = r.b + (j0 + (q < jt ? q : 0)) * stride + g_first * block_bytes;
        if (T == dtype::id::fp4e2m1 && hn == 1) {  // FP4 GEMV: two blocks per vector (`fp4_pair`)
          __m256 acc0 = acc[0];
          // the rows `fp4_prefetch_rows` ahead, or none near the end of B
          const std::size_t pf_off = j0 + 8 + fp4_prefetch_rows <= r.w ? fp4_prefetch_rows * stride : 0;
          for (std::size_t g0 = 0; g0 < gcount; g0 += 8) {
            const std::size_t gn = gcount - g0 < 8 ? gcount - g0 : 8;
            load_scales(g0, gn);
            for (std::size_t g = 0; g < gn; g += 2) {
              const std::size_t ga = g0 + g;
              if (g + 1 < gn) fp4_pair.template operator()<true>(brow, pf_off, ga, v);
              else fp4_pair.template operator()<false>(brow, pf_off, ga, v);
              const __m256i w = detail::hsum8_i16_halves(v);  // low half: block ga, high half: ga + 1
              finish(acc0, 0, g, ga, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(w)));
              if (g + 1 < gn) finish(acc0, 0, g + 1, ga + 1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(w, 1)));
            }
          }
          acc[0] = acc0;
        } else if (hn == 1) {  // GEMV: each B block decoded and multiplied in registers
          __m256 acc0 = acc[0];
          for (std::size_t g0 = 0; g0 < gcount; g0 += 8) {
            const std::size_t gn = gcount - g0 < 8 ? gcount - g0 : 8;
            load_scales(g0, gn);
            for (std::size_t g = 0; g < gn; ++g) {
              const std::size_t ga = g0 + g;  // block within the chunk
#pragma GCC unroll 8
              for (std::size_t q = 0; q < 8; ++q) {
                const std::uint8_t* p = brow[q] + ga * block_bytes;
                if constexpr (i16) {
                  __m256i blo, bhi;
                  detail::block_i16<T>(p, blo, bhi);
                  v[q] = dot16(blo, bhi, 0, ga);
                } else {
                  v[q] = dot8(decode_b8(p), 0, ga);
                }
              }
              finish(acc0, 0, g, ga, w16 ? detail::hsum8_i16(v) : detail::hsum8(v));
            }
          }
          acc[0] = acc0;
        } else {  // GEMM: each B block of the tile decoded once, used by every A row of the group
          for (std::size_t g0 = 0; g0 < gcount; g0 += 8) {
            const std::size_t gn = gcount - g0 < 8 ? gcount - g0 : 8;
            load_scales(g0, gn);
            for (std::size_t g = 0; g < gn; ++g) {
              const std::size_t ga = g0 + g;
              for (std::size_t q = 0; q < 8; ++q) {
                const std::uint8_t* p = r.b + (j0 + q) * stride + (g_first + ga) * block_bytes;
                if constexpr (i16) {
                  __m256i blo = _mm256_setzero_si256(), bhi = _mm256_setzero_si256();
                  if (q < jt) detail::block_i16<T>(p, blo, bhi);
                  _mm256_store_si256(reinterpret_cast<__m256i*>(&b16[q][0]), blo);
                  _mm256_store_si256(reinterpret_cast<__m256i*>(&b16[q][16]), bhi);
                } else {
                  _mm256_store_si256(reinterpret_cast<__m256i*>(b8[q]), q < jt ? decode_b8(p) : _mm256_setzero_si256());
                }
              }
              for (std::size_t ii = 0; ii < hn; ++ii) {
                for (std::size_t q = 0; q < 8; ++q) {
                  if constexpr (i16)
                    v[q] = dot16(_mm256_load_si256(reinterpret_cast<const __m256i*>(&b16[q][0])),
                                 _mm256_load_si256(reinterpret_cast<const __m256i*>(&b16[q][16])), ii, ga);
                  else
                    v[q] = dot8(_mm256_load_si256(reinterpret_cast<const __m256i*>(b8[q])), ii, ga);
                }
                finish(acc[ii], ii, g, ga, w16 ? detail::hsum8_i16(v) : detail::hsum8(v));
              }
            }
          }
        }
        for (std::size_t ii = 0; ii < hn; ++ii) {
          _mm256_store_ps(out_t, acc[ii]);
          float* o = r.out + (i0 + ii) * r.w + j0;
          for (std::size_t q = 0; q < jt; ++q) o[q] = out_t[q];
        }
      }
    }
  }
}

/// FP8 AVX2 rows for T ∈ {FP8E4M3, FP8E5M2}; within the TOSA dot-product bound of the pseudocode.
/// Up to `fp8_a_rows_shared` A rows at a time are decoded, once per chunk (together at most
/// `fp8_chunk` elements), into an L1-resident fp32 scratch (exact, NaN/Inf included, pre-scaled by
/// 2^ca); then the B rows stream through. Batch 1 (GEMV): `fp8_rows_shared` B rows per A load.
/// Batch > 1 (GEMM): each B block is decoded once for every A row of the group. Per 32-byte B block
/// and (A row, B row) pair: the `fp8_split` decode (shared), 4 FMA-class ops into an 8-lane block sum
/// `p`, and `acc += p · f[block]` with `f` = 2^(sa + sb − 254 + …) broadcast from a factor array
/// built per pair: in the exponent field when the pair's scale codes keep every factor a normal fp32
/// (checked from the code ranges), else exactly by `scale_product` (incl. 0, ∞ and NaN). The B rows
/// one group ahead are prefetched into L2 block by block (`fp8_prefetch_groups`; with weights cold in
/// cache: 4096×4096 GEMV 1.74–1.95 ms without, 1.51–1.65 ms with it on the benchmark machine,
/// benchmarks/RESULTS.md).
/// B codes that are NaN/Inf (E4M3 S.1111.111; E5M2 S.11111.xx) are caught by two running byte maxima
/// and the chunk's contribution to that output is redone with the scalar pseudocode; `Check = false`
/// (the caller promised finite B codes, `rows_args::b_finite`) skips that check.
template <dtype::id T, bool Check = true>
inline void fp8_rows(const rows_args& r) noexcept {
  static_assert(T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2);
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t nbc = fp8_chunk / bs;  // blocks in the scratch
  constexpr std::size_t hb = fp8_a_rows_shared;
  constexpr std::size_t nf = hb > fp8_rows_shared ? hb : fp8_rows_shared;  // factor arrays in use
  alignas(32) float ad[fp8_chunk];      // A row ii of the group at ad + ii·kc
  alignas(32) std::int32_t ka[nbc];     // sa + kbias per block, A row ii at ka + ii·(kc/32)
  alignas(32) float fb[nf][nbc];        // factor per block, per (B row, A row) pair
  int sa_min[hb], sa_max[hb];
  for (std::size_t i0 = 0; i0 < r.h; i0 += hb) {
    const std::size_t hn = r.h - i0 < hb ? r.h - i0 : hb;
    const std::size_t kc = fp8_chunk / hn / bs * bs;  // chunk length per A row
    for (std::size_t k0 = 0; k0 < r.c; k0 += kc) {
      const std::size_t kn = r.c - k0 < kc ? r.c - k0 : kc;
      const std::size_t gcount = kn / bs;
      detail::fp8_prepare_a<T, false>(r, i0, hn, k0, gcount, kc, ad, ka, sa_min, sa_max);  // real · 2^ca
      // Q B rows from row j on × the group's P (= hn) A rows; each B block decoded once
      auto tile = [&]<std::size_t Q, std::size_t P>(std::size_t j) {
        const std::uint8_t* br[Q];
        const std::uint8_t* pf[Q];  // the rows one group ahead (or these rows again at the end)
        __m256 acc[Q][P];
        __m256i maxs[Q], maxu[Q];
        for (std::size_t q = 0; q < Q; ++q) {
          br[q] = r.b + (j + q) * r.c + k0;
          const std::size_t ahead = j + q + fp8_prefetch_groups * Q;
          pf[q] = ahead < r.w ? r.b + ahead * r.c + k0 : br[q];
          detail::fp8_row_factors<T>(r, i0, P, j + q, k0, gcount, kc, ka, sa_min, sa_max, fb[q * P], nbc);
          for (std::size_t p = 0; p < P; ++p) acc[q][p] = _mm256_setzero_ps();
          maxs[q] = _mm256_set1_epi8(-128);
          maxu[q] = _mm256_setzero_si256();
        }
        for (std::size_t g = 0; g < gcount; ++g) {
          for (std::size_t q = 0; q < Q; ++q) {
            _mm_prefetch(reinterpret_cast<const char*>(pf[q] + g * bs), _MM_HINT_T1);  // every block: measured faster than every other
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(br[q] + g * bs));
            if constexpr (Check) {
              maxs[q] = _mm256_max_epi8(maxs[q], v);
              maxu[q] = _mm256_max_epu8(maxu[q], v);
            }
            __m256 d[4];
            detail::fp8_split<T>(v, d);
            for (std::size_t p = 0; p < P; ++p) {
              const float* pa = ad + p * kc + g * bs;
              __m256 s = _mm256_mul_ps(d[0], _mm256_load_ps(pa));
              s = _mm256_fmadd_ps(d[1], _mm256_load_ps(pa + 8), s);
              s = _mm256_fmadd_ps(d[2], _mm256_load_ps(pa + 16), s);
              s = _mm256_fmadd_ps(d[3], _mm256_load_ps(pa + 24), s);
              acc[q][p] = _mm256_fmadd_ps(s, _mm256_broadcast_ss(fb[q * P + p] + g), acc[q][p]);
            }
          }
        }
        for (std::size_t q = 0; q < Q; ++q) {
          const bool special = Check && detail::fp8_special<T>(maxs[q], maxu[q]);
          for (std::size_t p = 0; p < P; ++p)
            detail::fp8_store<T>(r, i0 + p, j + q, k0, kn, detail::hsum(acc[q][p]), special);
        }
      };
      detail::fp8_tiles<fp8_rows_shared, hb>(hn, r.w, tile);
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
