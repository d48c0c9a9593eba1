/// @file armlower/kernels/mx/arch/x86_avx512.hpp
/// x86 AVX-512 MATMUL_T_BLOCK_SCALED row kernels (host only). Compiled when the translation unit has
/// AVX-512 F, BW, VL, VNNI and VBMI (Ice Lake / Zen 4 and later, e.g. -march=native there, or
/// -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mavx512vbmi) plus AVX2 and FMA, or when
/// `ARMLOWER_MX_AVX512_SIMDE` is defined: then the same code is compiled against SIMDe's portable
/// AVX-512 (Debian `libsimde-dev`; the TU still needs -mavx2 -mfma), which is how the tests run it
/// on machines without AVX-512. Each 512-bit vector holds two (or, batch 1, four) 32-element blocks:
///  - `int8_rows<T>` (FP4E2M1, FP6E2M3, FP6E3M2, MXINT8): **bit-identical to the pseudocode path**,
///    as the AVX2 kernel (arch/x86_avx2.hpp) and for the same reason. Codes → integers ×2^k by
///    `vpermb` (FP6: 64-entry `avx2::detail::int_table`s, one per byte of the value; FP4: the 16-entry
///    `int_table` repeated to 64, `fp4_vpermb_table`, so nibbles need no mask); MXINT8 codes are the
///    integers. Exact int32 block sums by `vpdpbusd` (B + offset unsigned × A signed, corrected by
///    offset · Σ A; FP6E3M2: int16 × int16 `vpdpwssd`). A tile of 16 B rows is reduced
///    per block pair by an unpack/add tree (`hsum16x2`) into one lane per B row, then
///    `block_acc · (scale_A · scale_B)` and the fp32 accumulation run lane-wise, in block order.
///    Batch 1 (A has one row), every one of these types: `int8_gemv<T>` — 4 blocks per row and
///    step, laid out one block per 128-bit lane (`quad_i8`), two `vpdpbusd` per row (FP6E3M2:
///    `quad_e3m2`, four `vpdpwssd`), a 4×4 block-sum
///    tree (`hsum4x4`) and a 128-bit lane transpose instead of `hsum16x2` per block pair, the offset
///    correction as each row's first accumulator, the factor check once per 16-row tile (its B scale
///    codes against A's range; per block step by lane masks only where that fails), B prefetched as the
///    CPU's `prefetch_kind` says; at a
///    B row stride that is a multiple of 4 KiB (`int8_gemv_alias_stride`: one-byte codes at K 4096)
///    two block quads per row and 4-row group, so fewer rows share an L1 set at a time. Same guarantee.
///  - FP8E4M3, FP8E5M2 with AVX-512 BF16 (`__AVX512BF16__`, e.g. -march=native on Zen 4 / Sapphire
///    Rapids; and under SIMDe): `fp8_bf16_rows<T>` — both operands decoded **exactly** to BF16 (128-entry
///    `vpermi2b` tables of the high and low byte, sign OR'ed in, `vpunpck{l,h}bw`; subnormal FP8 codes
///    become normal BF16 values, NaN/±Inf stay NaN/±Inf), block sums by `vdpbf16ps` (exact products,
///    no value where its DAZ/FTZ applies), block pairs scaled lane-wise and the product rounded apart
///    from the accumulation; batch 1: 4 B rows per A load, B decode software-pipelined one block pair
///    ahead, the rows 4 groups ahead prefetched into L2 as one sequential stream (`bf16_prefetch_groups`).
///    Without AVX-512 BF16: `fp8_rows<T>`, the AVX2 kernel's decode (`fp8_split` at 512 bits: two
///    blocks per decode) and FMA block sums; block pairs scaled by one FMA with a two-valued factor
///    vector. Both **within the TOSA dot-product bound** (TOSA 1.0
///    dot-product accuracy rule, pseudocode/library/tosa_reference_check_dotproduct.tosac), not
///    bit-identical (summation order).
/// Speed (AMD EPYC Zen 4, one pinned thread, B [4096, K] warm, benchmarks/RESULTS.md "AVX-512 VNNI
/// (AMD EPYC Zen 4)", "MX batch-1 GEMV on AVX-512: BF16 FP8, 4-block integer GEMV"): batch 1, K 1024,
/// FP8 (BF16) ~1.2× and FP4E2M1 / FP6E2M3 / MXINT8 (`int8_gemv`) ~1.4–2× the AVX2 kernels; still
/// 27–61 % of the warm read ceiling at batch 1, no faster with B in L1 (compute-bound: decode shuffles +
/// `vdpbf16ps`/`vpdpbusd` throughput), and 62–100 % of the cold one (shared host; "MX batch-1 GEMV,
/// warm and cold ceilings"). With B packed once (arch/x86_avx512_tiles16.hpp) the integer formats
/// need neither the per-call decode of B nor the block-sum trees: 1.7–3.2× these row kernels when first
/// measured (benchmarks/RESULTS.md "MX batch-1 GEMV over packed weights"; 1.0–1.3× faster since); with
/// AVX-512 BF16 the FP8 formats and FP6E3M2 need no table decode there either: 1.5–2.3× `fp8_bf16_rows` /
/// `int8_gemv` at batch 1, 1.9–3.5× the chosen path at batch 8 ("MX FP8 and FP6E3M2 over packed weights").
#pragma once

#if defined(ARMLOWER_MX_AVX512_SIMDE)
#if !(defined(__AVX2__) && defined(__FMA__))
#error "ARMLOWER_MX_AVX512_SIMDE: compile with -mavx2 -mfma (the AVX-512 path reuses the AVX2 helpers)"
#endif
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#define ARMLOWER_MX_AVX512 1
#elif defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VNNI__) && \
    defined(__AVX512VBMI__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define ARMLOWER_MX_AVX512 1
#endif

#if defined(ARMLOWER_MX_AVX512) && (defined(ARMLOWER_MX_AVX512_SIMDE) || defined(__AVX512BF16__))
/// Set when the FP8 row kernels use `vdpbf16ps` (`fp8_bf16_rows`): AVX-512 BF16 hardware, or SIMDe's
/// portable emulation of it (the SIMDe tests run it on any host).
#define ARMLOWER_MX_AVX512_BF16 1
#endif

// GCC 12 implements many unmasked AVX-512 intrinsics with a self-initialised undefined pass-through
// operand (`__Y` in avx512fintrin.h, GCC bug 105593, fixed in GCC 13), which -Wuninitialized /
// -Wmaybe-uninitialized report at every inlined use: in a TU built with -march=native -Wall -Werror
// that includes these kernels the build would fail. The warnings are silenced for this header's code
// only, on GCC before 13 (clang and later GCC check it in full).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define ARMLOWER_MX_GCC12_UNDEF_PRAGMAS 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#if defined(ARMLOWER_MX_AVX512)
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include <armlower/kernels/mx/arch/generic.hpp>
#include <armlower/kernels/mx/arch/x86_avx2.hpp>
#include <armlower/kernels/mx/arch/x86_prefetch.hpp>
#include <armlower/mx/e8m0.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::kernels::mx::arch::avx512 {

/// True when this translation unit compiles the AVX-512 kernels (natively or through SIMDe).
inline constexpr bool available = true;
/// True when the FP8 rows use the AVX-512 BF16 kernel `fp8_bf16_rows` (`ARMLOWER_MX_AVX512_BF16`).
#if defined(ARMLOWER_MX_AVX512_BF16)
inline constexpr bool bf16 = true;
#else
inline constexpr bool bf16 = false;
#endif

namespace detail {

/// `arch::detail::keep_rounded` for a 16-lane vector: the scaled block product stays rounded apart
/// from the accumulation, as in the pseudocode (no FMA contraction). Native: no instruction; SIMDe's
/// emulated type goes through memory.
inline void keep_rounded(__m512& v) noexcept {
#if defined(ARMLOWER_MX_AVX512_SIMDE)
  asm("" : "+m"(v));
#else
  asm("" : "+v"(v));
#endif
}

/// Makes v opaque to the optimiser so that it stays in a register once loaded (GCC would otherwise
/// reload it from memory for each use). Native only; no effect under SIMDe.
inline void in_register([[maybe_unused]] __m512i& v) noexcept {
#if !defined(ARMLOWER_MX_AVX512_SIMDE)
  asm("" : "+v"(v));
#endif
}

/// int32 → fp32 lane-wise (exact for the block sums here, all below 2^24).
inline __m512 to_ps(__m512i v) noexcept {
#if defined(ARMLOWER_MX_AVX512_SIMDE)  // SIMDe 0.7.4 has no _mm512_cvtepi32_ps
  const __m256 lo = _mm256_cvtepi32_ps(_mm512_castsi512_si256(v));
  const __m256 hi = _mm256_cvtepi32_ps(_mm512_extracti64x4_epi64(v, 1));
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
#else
  return _mm512_cvtepi32_ps(v);
#endif
}

/// fp32 values of 16 E8M0 codes given as int32 lanes (0x00 → 2^-127 subnormal, 0xFF → NaN).
inline __m512 e8m0_decode16(__m512i c) noexcept {
  __m512i v = _mm512_slli_epi32(c, 23);
  v = _mm512_mask_mov_epi32(v, _mm512_cmpeq_epi32_mask(c, _mm512_setzero_si512()), _mm512_set1_epi32(0x00400000));
  v = _mm512_mask_mov_epi32(v, _mm512_cmpeq_epi32_mask(c, _mm512_set1_epi32(255)), _mm512_set1_epi32(0x7FC00000));
  return _mm512_castsi512_ps(v);
}

/// Bytes of storage per block of T.
template <dtype::id T>
inline constexpr std::size_t block_bytes = armlower::mx::storage_bytes(T, armlower::mx::block_size);

/// Codes of blocks g and g+1 at p, raw, in one vector (`two` false: block g only, the rest zero; never
/// reads past it). FP4: 128-bit lanes [g, g, g+1, g+1] (16 packed bytes each); others: in order.
template <dtype::id T>
inline __m512i load_pair(const std::uint8_t* p, bool two) noexcept {
  if constexpr (T == dtype::id::fp4e2m1) {
    const __m256i y = two ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                          : _mm256_inserti128_si256(_mm256_setzero_si256(),
                                                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), 0);
    return _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 1, 0, 1, 2, 3, 2, 3), _mm512_castsi256_si512(y));
  } else {
    if (two) return _mm512_loadu_si512(p);
    return _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), 0);
  }
}

/// `vpermb` table of FP4E2M1: entry i = code (i mod 16)'s value ×2 plus `Offset` (`avx2::detail::int_table`),
/// so an index needs only its nibble in bits 0..3: `vpermb` ignores bits 6, 7 and the table repeats
/// over bits 4, 5 (a byte's other nibble, or the next byte's bits after a 16-bit shift by 4).
template <int Offset>
inline constexpr auto fp4_vpermb_table = [] {
  std::array<std::uint8_t, 64> t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = avx2::detail::int_table<dtype::id::fp4e2m1, Offset>[i & 15];
  return t;
}();

/// Integers ×2^k plus `Offset` of the 64 codes from `load_pair` (int8 types: FP4, FP6E2M3, MXINT8).
/// Lane order: 128-bit lanes 0, 1 hold block g, lanes 2, 3 block g+1 (FP4: lane 0 / 2 the even
/// elements — low nibbles — lane 1 / 3 the odd ones). A and B use the same order.
template <dtype::id T, int Offset>
inline __m512i decode_i8(__m512i c) noexcept {
  if constexpr (T == dtype::id::fp4e2m1) {  // bits 4, 5 of an index (the other nibble) need no mask
    const __m512i idx = _mm512_srlv_epi64(c, _mm512_setr_epi64(0, 0, 4, 4, 0, 0, 4, 4));
    return _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(fp4_vpermb_table<Offset>.data()));
  } else if constexpr (T == dtype::id::fp6e2m3) {
    const auto& table = avx2::detail::int_table<T, Offset>;
    return _mm512_permutexvar_epi8(c, _mm512_loadu_si512(table.data()));
  } else {
    static_assert(T == dtype::id::mxint8 && (Offset == 0 || Offset == 128));
    return Offset == 0 ? c : _mm512_xor_si512(c, _mm512_set1_epi8(static_cast<char>(0x80)));
  }
}

/// FP6E3M2 int16 values ×16 of the 64 codes from `load_pair`, in two vectors (`vpunpck{l,h}bw` of
/// the low- and high-byte `vpermb` lookups: 128-bit lanes 0, 1 block g, 2, 3 block g+1).
inline void decode_e3m2(__m512i c, __m512i& lo, __m512i& hi) noexcept {
  const auto& tl = avx2::detail::int_table<dtype::id::fp6e3m2, 0, 0>;
  const auto& th = avx2::detail::int_table<dtype::id::fp6e3m2, 0, 1>;
  const __m512i lb = _mm512_permutexvar_epi8(c, _mm512_loadu_si512(tl.data()));
  const __m512i hb = _mm512_permutexvar_epi8(c, _mm512_loadu_si512(th.data()));
  lo = _mm512_unpacklo_epi8(lb, hb);
  hi = _mm512_unpackhi_epi8(lb, hb);
}

/// First step of `hsum16x2` for B rows 2k (x) and 2k+1 (y): per 128-bit lane [x0+x2, y0+y2, x1+x3,
/// y1+y3]. Taken as soon as the two rows are ready, it keeps 8 vectors live instead of 16.
inline __m512i hsum_pair(__m512i x, __m512i y) noexcept {
  return _mm512_add_epi32(_mm512_unpacklo_epi32(x, y), _mm512_unpackhi_epi32(x, y));
}

/// a[k] = `hsum_pair` of B rows 2k, 2k+1 (k < 8), whose int32 partial sums have lanes 0..7 for
/// block g and 8..15 for g+1; lane q of `sg` / `sg1` is row q's sum for block g / g+1 (unpack-and-add
/// over 32- and 64-bit elements, then across the 128-bit lanes: 44 instructions for 32 block sums
/// with the 8 `hsum_pair`).
inline void hsum16x2(const __m512i* a, __m512i& sg, __m512i& sg1) noexcept {
  __m512i b[4];
#pragma GCC unroll 4
  for (std::size_t m = 0; m < 4; ++m)  // lane j of b[m]: rows 4m..4m+3, partial over 128-bit lane j
    b[m] = _mm512_add_epi32(_mm512_unpacklo_epi64(a[2 * m], a[2 * m + 1]), _mm512_unpackhi_epi64(a[2 * m], a[2 * m + 1]));
  // d01: [g rows 0-3, g+1 rows 0-3, g rows 4-7, g+1 rows 4-7]; d23 the same for rows 8..15
  const __m512i d01 = _mm512_add_epi32(_mm512_shuffle_i32x4(b[0], b[1], 0x88), _mm512_shuffle_i32x4(b[0], b[1], 0xDD));
  const __m512i d23 = _mm512_add_epi32(_mm512_shuffle_i32x4(b[2], b[3], 0x88), _mm512_shuffle_i32x4(b[2], b[3], 0xDD));
  sg = _mm512_shuffle_i32x4(d01, d23, 0x88);
  sg1 = _mm512_shuffle_i32x4(d01, d23, 0xDD);
}

/// 512-bit form of `avx2::detail::fp8_split` (same bit trick and output values): 64 codes, d[q]
/// lanes 0..7 = codes 4L+q of the first 32, lanes 8..15 of the next 32.
template <dtype::id T>
inline void fp8_split(__m512i v, __m512* d) noexcept {
  constexpr unsigned sh = avx2::detail::fp8_split_bits<T>::shift;
  const __m512i m16 = _mm512_set1_epi16(avx2::detail::fp8_split_bits<T>::mask);
  const __m512i hi16 = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
  const __m512i h = _mm512_and_si512(_mm512_srai_epi16(v, sh), m16);
  const __m512i l = _mm512_and_si512(_mm512_srai_epi16(_mm512_slli_epi16(v, 8), sh), m16);
  d[3] = _mm512_castsi512_ps(_mm512_and_si512(h, hi16));
  d[1] = _mm512_castsi512_ps(_mm512_slli_epi32(h, 16));
  d[2] = _mm512_castsi512_ps(_mm512_and_si512(l, hi16));
  d[0] = _mm512_castsi512_ps(_mm512_slli_epi32(l, 16));
}

/// Sum of the 16 fp32 lanes of v.
inline float hsum(__m512 v) noexcept {
  const __m256 lo = _mm512_castps512_ps256(v);
  const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
  return avx2::detail::hsum(_mm256_add_ps(lo, hi));
}

/// The first n ≤ 64 bytes at p, the rest of the vector zero; nothing past them is read. Native: one
/// masked load, so a short last block quad costs no stack copy (with one, GCC 12 sent every full quad's
/// loads through the stack too).
inline __m512i load_prefix(const std::uint8_t* p, std::size_t n) noexcept {
#if defined(ARMLOWER_MX_AVX512_SIMDE)  // SIMDe 0.7.4 has no _mm512_maskz_loadu_epi8
  if (n >= 64) return _mm512_loadu_si512(p);
  alignas(64) std::uint8_t t[64] = {};
  for (std::size_t i = 0; i < n; ++i) t[i] = p[i];
  return _mm512_load_si512(t);
#else
  return _mm512_maskz_loadu_epi8(n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1, p);
#endif
}

/// The 128 bytes of a block quad of one-byte codes at p (`nb` = 1..4 blocks of 32 present, the rest zero) in
/// c0, c1; nothing past the nb blocks is read. Full quads: two plain loads, pinned to registers (GCC 12
/// otherwise sent both through a stack slot).
inline void load_quad_bytes(const std::uint8_t* p, std::size_t nb, __m512i& c0, __m512i& c1) noexcept {
  const std::size_t n = 32 * nb;  // one byte per code
  c0 = nb == 4 ? _mm512_loadu_si512(p) : load_prefix(p, n);
  c1 = nb == 4 ? _mm512_loadu_si512(p + 64) : n > 64 ? load_prefix(p + 64, n - 64) : _mm512_setzero_si512();
  in_register(c0);
  in_register(c1);
}

/// int8 GEMV (`int8_gemv`): the codes of 4 blocks at p (`nb` = 1..4 of them present, the rest zero)
/// as integers ×2^k plus `Offset` (`decode_i8`) in two vectors whose 128-bit lane b holds block b only:
/// FP4E2M1 (64 packed bytes) lo = the low nibbles (even elements), hi = the high nibbles (odd ones);
/// one-byte codes (128 bytes) lo = the first 16 codes of each block, hi = the last 16 (128-bit lane
/// shuffles). So `vpdpbusd` lanes 4b..4b+3 sum block b only; A and B use the same order. Never reads
/// past the nb blocks.
template <dtype::id T, int Offset>
inline void quad_i8(const std::uint8_t* p, std::size_t nb, __m512i& lo, __m512i& hi) noexcept {
  if constexpr (T == dtype::id::fp4e2m1) {  // 3 vector operations for 128 codes (no nibble masks)
    __m512i c = nb == 4 ? _mm512_loadu_si512(p) : load_prefix(p, nb * block_bytes<T>);
    in_register(c);  // one load for both nibbles (GCC 12 spilled it and folded the reload into the shift)
    const __m512i lut = _mm512_loadu_si512(fp4_vpermb_table<Offset>.data());
    lo = _mm512_permutexvar_epi8(c, lut);
    hi = _mm512_permutexvar_epi8(_mm512_srli_epi16(c, 4), lut);
  } else {
    __m512i c0, c1;
    load_quad_bytes(p, nb, c0, c1);
    lo = decode_i8<T, Offset>(_mm512_shuffle_i32x4(c0, c1, 0x88));
    hi = decode_i8<T, Offset>(_mm512_shuffle_i32x4(c0, c1, 0xDD));
  }
}

/// FP6E3M2 GEMV (`int8_gemv`): the codes of 4 blocks at p (`nb` = 1..4 present, the rest zero) as
/// int16 values ×16 (`decode_e3m2`) in four vectors whose 128-bit lane b holds block b only: d[0], d[1]
/// the first 16 codes of each block (codes 0..7, 8..15 of the half), d[2], d[3] the last 16. So
/// `vpdpwssd` lanes 4b..4b+3 sum block b only; A and B use the same order. Never reads past the nb blocks.
inline void quad_e3m2(const std::uint8_t* p, std::size_t nb, __m512i* d) noexcept {
  __m512i c0, c1;
  load_quad_bytes(p, nb, c0, c1);
  decode_e3m2(_mm512_shuffle_i32x4(c0, c1, 0x88), d[0], d[1]);
  decode_e3m2(_mm512_shuffle_i32x4(c0, c1, 0xDD), d[2], d[3]);
}

/// Block sums of 4 B rows × 4 blocks: v[r] lanes 4b..4b+3 are row r's partial sums of block b; lane
/// 4b + r of the result is row r's sum of block b (unpack-and-add over 32- then 64-bit elements).
inline __m512i hsum4x4(const __m512i* v) noexcept {
  const __m512i x01 = _mm512_add_epi32(_mm512_unpacklo_epi32(v[0], v[1]), _mm512_unpackhi_epi32(v[0], v[1]));
  const __m512i x23 = _mm512_add_epi32(_mm512_unpacklo_epi32(v[2], v[3]), _mm512_unpackhi_epi32(v[2], v[3]));
  return _mm512_add_epi32(_mm512_unpacklo_epi64(x01, x23), _mm512_unpackhi_epi64(x01, x23));
}

/// 4×4 transpose of 128-bit lanes: z[b] lane group m = y[m] lane group b (y[m] lane 4b + r = row 4m + r,
/// block b → z[b] lane 4m + r = row 4m + r, block b: one vector of 16 rows per block).
inline void transpose_lanes4(const __m512i* y, __m512i* z) noexcept {
  const __m512i t0 = _mm512_shuffle_i32x4(y[0], y[1], 0x44), t1 = _mm512_shuffle_i32x4(y[0], y[1], 0xEE);
  const __m512i t2 = _mm512_shuffle_i32x4(y[2], y[3], 0x44), t3 = _mm512_shuffle_i32x4(y[2], y[3], 0xEE);
  z[0] = _mm512_shuffle_i32x4(t0, t2, 0x88);
  z[1] = _mm512_shuffle_i32x4(t0, t2, 0xDD);
  z[2] = _mm512_shuffle_i32x4(t1, t3, 0x88);
  z[3] = _mm512_shuffle_i32x4(t1, t3, 0xDD);
}

#if defined(ARMLOWER_MX_AVX512_BF16)
/// BF16 bit patterns of the FP8 codes 0..127 (the magnitudes; bit 7 is the sign in both formats),
/// byte `Part` (0 low, 1 high) of each, from `mx::decode_table`, of the values ×2^Exp (exact: every
/// nonzero one stays a normal BF16 for the Exp used, ≥ −117 E4M3 / ≥ −110 E5M2). Every FP8E4M3/FP8E5M2 value is
/// exactly a BF16 (8 exponent bits cover both ranges, 7 mantissa bits ≥ 3 / 2), subnormals included —
/// they become *normal* BF16 values (smallest 2^-9 / 2^-16), so the DAZ of `vdpbf16ps` never applies;
/// ±Inf and NaN map to BF16 ±Inf / NaN.
template <dtype::id T, int Part, int Exp = 0>
inline constexpr auto bf16_table = [] {
  constexpr auto values = armlower::mx::decode_table(T);
  std::array<std::uint8_t, 128> t{};
  for (std::size_t c = 0; c < t.size(); ++c) {
    const float x = values[c];  // (NaN checked first: a NaN result is no constant expression for clang)
    const std::uint32_t bits = x != x ? 0x7FC00000u : std::bit_cast<std::uint32_t>(x * armlower::mx::detail::pow2f(Exp));
    t[c] = static_cast<std::uint8_t>((bits >> (16 + 8 * Part)) & 0xFFu);
  }
  return t;
}();

/// The four 64-byte tables of `fp8_bf16` (high bytes of codes 0..63, 64..127, then low bytes), in
/// registers for a whole kernel call.
struct bf16_luts {
  __m512i h0, h1, l0, l1;
  template <dtype::id T, int Exp = 0>
  static bf16_luts make() noexcept {
    const auto& th = bf16_table<T, 1, Exp>;
    const auto& tl = bf16_table<T, 0, Exp>;
    return {_mm512_loadu_si512(th.data()), _mm512_loadu_si512(th.data() + 64), _mm512_loadu_si512(tl.data()),
            _mm512_loadu_si512(tl.data() + 64)};
  }
};

/// The high (`h`, sign OR'ed in) and low (`l`) bytes of the BF16 words of 64 FP8 codes, each in its
/// code's byte position: 128-entry `vpermi2b` lookups of the code's low 7 bits in `t`.
inline void bf16_bytes(__m512i c, const bf16_luts& t, __m512i& h, __m512i& l) noexcept {
  h = _mm512_ternarylogic_epi32(_mm512_permutex2var_epi8(t.h0, c, t.h1), c, _mm512_set1_epi8(static_cast<char>(0x80)),
                                0xF8);  // h | (c & 0x80)
  l = _mm512_permutex2var_epi8(t.l0, c, t.l1);
}

/// 64 FP8 codes → 64 exact BF16 values in two vectors: the high and low byte of each by a 128-entry
/// `vpermi2b` lookup on the code's low 7 bits, the sign OR'ed into the high byte, then interleaved by
/// `vpunpck{l,h}bw`: lo holds codes 16L+0..7, hi codes 16L+8..15 of 128-bit lane L. So `vdpbf16ps`
/// fp32 lane 4L+m pairs codes 16L+2m, 16L+2m+1 (lo) and 16L+8+2m, +9 (hi): lanes 0..7 see only codes
/// 0..31 (the first block), lanes 8..15 only codes 32..63. A and B use the same routine, so every
/// product pairs the same k.
inline void fp8_bf16(__m512i c, const bf16_luts& t, __m512i& lo, __m512i& hi) noexcept {
  __m512i h, l;
  bf16_bytes(c, t, h, l);
  lo = _mm512_unpacklo_epi8(l, h);
  hi = _mm512_unpackhi_epi8(l, h);
}

/// Block factors f[g] = scale_A · scale_B = 2^(sa + sb − 254) of one (A row, B row) pair, g < gcount,
/// exactly as the pseudocode's fp32 arithmetic gives them (`arch::detail::scale_product`): 16 at a
/// time in the exponent field (biased exponent ka[g] + sb with ka[g] = sa − 127, or a value far out of
/// range for a NaN code sa = 255), the lanes whose exponent is not in [1, 254] or whose sb is NaN
/// redone by `scale_product`. `ka` holds gcount rounded up to 16 entries.
inline void bf16_factors(const std::int32_t* ka, const std::uint8_t* psa, const std::uint8_t* psb, std::size_t gcount,
                         float* f) noexcept {
  for (std::size_t g = 0; g < gcount; g += 16) {
    const std::size_t n = gcount - g < 16 ? gcount - g : 16;
    const unsigned live = (1u << n) - 1u;
    alignas(16) std::uint8_t tail[16] = {};  // a short last group: never read past psb + gcount
    const std::uint8_t* src = psb + g;
    if (n < 16) {
      for (std::size_t q = 0; q < n; ++q) tail[q] = src[q];
      src = tail;
    }
    const __m128i b8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    const __m512i sb = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_cvtepu8_epi32(b8)),
                                          _mm256_cvtepu8_epi32(_mm_srli_si128(b8, 8)), 1);
    const __m512i k = _mm512_add_epi32(sb, _mm512_load_si512(ka + g));
    _mm512_storeu_si512(f + g, _mm512_slli_epi32(k, 23));
    const __mmask16 ok = _mm512_cmpgt_epi32_mask(k, _mm512_setzero_si512()) &
                         _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(255), k) &
                         _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(255), sb);
    for (unsigned bad = live & ~ok & 0xFFFFu; bad != 0; bad &= bad - 1) {
      const std::size_t q = g + static_cast<std::size_t>(std::countr_zero(bad));
      f[q] = arch::detail::scale_product(psa[q], psb[q], 0);
    }
  }
}

/// The 64 one-byte codes of blocks g, g+1 at p when `m` = ~0, of block g only (rest zero) when
/// m = 0xFFFFFFFF, none (zero) when m = 0; nothing past them is read. Native: one masked load.
inline __m512i load_blocks(const std::uint8_t* p, __mmask64 m) noexcept {
#if defined(ARMLOWER_MX_AVX512_SIMDE)
  return load_prefix(p, static_cast<std::size_t>(std::popcount(static_cast<std::uint64_t>(m))));
#else
  return _mm512_maskz_loadu_epi8(m, p);
#endif
}

/// fp32 lanes += Σ of the BF16 products of a and b lane pairs (`vdpbf16ps`).
inline __m512 dot_bf16(__m512 acc, __m512i a, __m512i b) noexcept {
  return _mm512_dpbf16_ps(acc, std::bit_cast<__m512bh>(a), std::bit_cast<__m512bh>(b));
}
#endif

/// The fp32 block step for 16 lanes (one B row each) with factors decoded as the pseudocode computes
/// them: acc += (blk · 2^-us) · (scale_A · scale_B), the product rounded apart from the sum. `blk`:
/// exact block sums ×2^us (the integer kernels: sums of integers ×2^(us/2) per operand, below 2^24,
/// converted exactly; the BF16 tiles kernel: fp32 sums with us ≤ 0); `sbc`, `sac`: B's and A's E8M0 codes
/// per lane (0xFF NaN, 0 → 2^-127 as fp32 arithmetic gives).
template <int Us>
inline void block_step_decoded(__m512& acc, __m512 blk, __m512i sbc, __m512i sac) noexcept {
  blk = _mm512_mul_ps(blk, _mm512_set1_ps(armlower::mx::detail::pow2f(-Us)));  // exact
  __m512 prod = _mm512_mul_ps(blk, _mm512_mul_ps(e8m0_decode16(sac), e8m0_decode16(sbc)));
  keep_rounded(prod);  // the pseudocode rounds the product, then adds
  acc = _mm512_add_ps(acc, prod);
}

/// Largest biased exponent e (exclusive) for which `block_step` builds the factor in the exponent
/// field: 2^e itself and the pseudocode's scale_A · scale_B = 2^(e + us − 127) must both be finite.
template <int Us>
inline constexpr int block_step_e_limit = Us > 0 ? 255 - Us : 255;

/// The fp32 block step with the factor built in the exponent field, A's side per lane: acc += blk · 2^e per
/// lane, e = sbc + ask (ask = A's code − 127 − us, a value far below −255 for a NaN code), exactly
/// `block_step_decoded` (with A's codes `sac`) wherever every lane's e is a normal exponent, sa · sb is finite
/// and no sb is NaN. `Checked`: test that per call and take the decoded factors otherwise; unchecked: the
/// caller has shown it for the whole tile (`avx2::detail::normal_factors`).
template <bool Checked, int Us>
inline void block_step_lanes(__m512& acc, __m512 blk, __m512i sbc, __m512i ask, __m512i sac) noexcept {
  const __m512i e = _mm512_add_epi32(sbc, ask);
  if constexpr (Checked) {
    const __mmask16 ok = _mm512_cmpgt_epi32_mask(e, _mm512_setzero_si512()) &
                         _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(block_step_e_limit<Us>), e) &
                         _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(255), sbc);
    if (ok != 0xFFFF) {
      block_step_decoded<Us>(acc, blk, sbc, sac);
      return;
    }
  }
  __m512 prod = _mm512_mul_ps(blk, _mm512_castsi512_ps(_mm512_slli_epi32(e, 23)));
  keep_rounded(prod);  // the pseudocode rounds the product, then adds
  acc = _mm512_add_ps(acc, prod);
}

/// `block_step_lanes` with one A block for every lane: ask and A's code `sa`.
template <bool Checked, int Us>
inline void block_step(__m512& acc, __m512 blk, __m512i sbc, std::int32_t ask, std::uint8_t sa) noexcept {
  block_step_lanes<Checked, Us>(acc, blk, sbc, _mm512_set1_epi32(ask), _mm512_set1_epi32(sa));
}

/// `block_step` of the exact-integer kernels: `isum` the int32 block sums ×2^us (exact in fp32).
template <bool Checked, int Us>
inline void int_block_step(__m512& acc, __m512i isum, __m512i sbc, std::int32_t ask, std::uint8_t sa) noexcept {
  block_step<Checked, Us>(acc, to_ps(isum), sbc, ask, sa);
}

}  // namespace detail

/// Elements of A converted per pass of `int8_rows` (per A row).
inline constexpr std::size_t int8_chunk = 4096;
/// A rows of `int8_rows` that share each decoded B block pair (batch > 1).
inline constexpr std::size_t int8_rows_shared = 4;
/// B rows per tile of `int8_rows` (one 512-bit lane each).
inline constexpr std::size_t int8_tile = 16;

/// True for the element types of `int8_rows` and its GEMV `int8_gemv`: the exact-integer formats
/// FP4E2M1, FP6E2M3, FP6E3M2, MXINT8 (the FP8 formats have their own row kernels).
[[nodiscard]] constexpr bool int8_rows_type(dtype::id t) noexcept {
  return t == dtype::id::fp4e2m1 || t == dtype::id::fp6e2m3 || t == dtype::id::fp6e3m2 || t == dtype::id::mxint8;
}

/// Bytes ahead of the read position in each B row at which `int8_gemv` prefetches with
/// `prefetch_kind::l1_lines`: 8 KiB ahead over the 16 rows of a tile (`int8_tile`). Measured on Zen 5
/// against 256, 1024 and 2048 (benchmarks/RESULTS.md, "MX row-major GEMV on Zen 5"): 1024 and 2048
/// 8–10 % faster with B cold at K 1024 but 5–10 % slower with B warm; 256 slower cold.
inline constexpr std::size_t int8_gemv_l1_ahead = 512;
/// B row strides (bytes) at which `int8_gemv` reads two block quads (8 blocks) per row before the
/// next row of its 4-row group: a multiple of 4 KiB puts the same column of all 16 tile rows in the
/// same L1D set (Zen 4: 32 KiB, 8-way, 64 sets), and 16 rows read side by side evict each other's
/// lines. Measured (Zen 4, B [4096, 4096] warm, one-byte codes, one probe run; benchmarks/RESULTS.md,
/// "MX batch-1 GEMV, warm and cold ceilings"): one quad per step 36 / 34 / 39 GFLOP/s (MXINT8 /
/// FP6E2M3 / FP6E3M2; at 3968 columns the same code ran 50 / 54 / 40), two quads 52 / 54 / 45; at
/// K 1024 two quads were slower (0.83–0.87×), so other strides keep one.
inline constexpr std::size_t int8_gemv_alias_stride = 4096;

/// Batch-1 rows (A has one row) for T ∈ {FP4E2M1, FP6E2M3, FP6E3M2, MXINT8}; bit-identical to
/// `reference_rows`. Tiles of 16 B rows (`int8_tile`), 4 blocks per row and step: `detail::quad_i8`
/// (B + offset unsigned, A signed, decoded once per chunk) and two `vpdpbusd` per row, the first from
/// −offset · Σ A (the correction, per lane, so the block-sum tree adds it) (FP6E3M2:
/// `detail::quad_e3m2`, int16 values ×16 ≤ 448, and four `vpdpwssd`, no offset), block sums of
/// 4 rows by `hsum4x4`, a 128-bit lane transpose to one vector of 16 rows per block, then the fp32
/// block steps of `int8_rows` lane-wise in block order (factor built in the exponent field where
/// every lane's is a normal fp32, else decoded; checked per step only in a tile whose B scale codes do
/// not all lie in the range A's codes allow, `avx2::detail::normal_factors`). B is prefetched as P says (`prefetch_kind`):
/// `l2_sparse` the next tile's rows into L2 row by row at the step's offset (16 streams: on Zen 4, with
/// weights cold, this beat one sequential stream of the same lines, 94–105 % vs 74–81 % of the cold read
/// ceiling at K 1024 for MXINT8 / FP6E2M3, one probe run); `l1_lines` each line into L1
/// `int8_gemv_l1_ahead` bytes ahead in its row, the next tile's rows past the end of a row's chunk.
/// Two quads per row step where the row stride is a multiple of `int8_gemv_alias_stride`.
template <dtype::id T, prefetch_kind P>
inline void int8_gemv(const rows_args& r) noexcept {
  static_assert(int8_rows_type(T));
  constexpr bool i16 = T == dtype::id::fp6e3m2;  // int16 × int16 `vpdpwssd`, no offset
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t bb = detail::block_bytes<T>;
  constexpr int off = T == dtype::id::fp4e2m1 ? 12 : T == dtype::id::fp6e2m3 ? 60 : T == dtype::id::mxint8 ? 128 : 0;
  constexpr std::size_t nv = i16 ? 4 : 2;  // decoded vectors per quad
  constexpr std::size_t tq = int8_tile;
  constexpr std::size_t nqc = int8_chunk / bs / 4;  // block quads per chunk
  const std::size_t stride = armlower::mx::storage_bytes(T, r.c);
  const std::size_t nb = r.c / bs;
  const bool set_aliased = stride % int8_gemv_alias_stride == 0;  // two block quads per row and group
  constexpr int us = 2 * armlower::mx::format(T).int_shift;
  alignas(64) std::uint8_t a_q[nqc][64 * nv];          // quad Q of the chunk: `quad_i8`'s lo, hi / `quad_e3m2`'s d
  alignas(64) std::int32_t a_init[nqc][16];            // −off · Σ A of quad Q: lanes 4b..4b+3 block b's partials
  alignas(64) std::int32_t a_sk[int8_chunk / bs];      // A scale code − 127 − us per block
  alignas(64) std::int32_t sb_t[8][tq];                // [block][row] scale codes of the tile
  alignas(64) float out_t[tq];
  const __m512i zero = _mm512_setzero_si512();
  for (std::size_t k0 = 0; k0 < r.c; k0 += int8_chunk) {
    const std::size_t kn = r.c - k0 < int8_chunk ? r.c - k0 : int8_chunk;
    const std::size_t g_first = k0 / bs, gcount = kn / bs;
    for (std::size_t g = 0; g < gcount; ++g) {  // sa − 127 − us; a NaN code far out of range
      const int sa = r.a_scale[g_first + g];
      a_sk[g] = sa == 255 ? -100000 : sa - 127 - us;
    }
    int sa_min = 255, sa_max = 0;  // A's scale code range of the chunk (for the tiles' factor check)
    avx2::detail::code_range(r.a_scale + g_first, gcount, sa_min, sa_max);
    for (std::size_t g = 0; g < gcount; g += 4) {
      const std::size_t n = gcount - g < 4 ? gcount - g : 4;
      if constexpr (i16) {
        __m512i d[4];
        detail::quad_e3m2(r.a + g_first * bb + g * bb, n, d);
        for (std::size_t v = 0; v < 4; ++v) _mm512_store_si512(a_q[g / 4] + 64 * v, d[v]);  // no offset
        _mm512_store_si512(a_init[g / 4], zero);  // no correction
      } else {
        __m512i lo, hi;
        detail::quad_i8<T, 0>(r.a + g_first * bb + g * bb, n, lo, hi);
        _mm512_store_si512(a_q[g / 4], lo);
        _mm512_store_si512(a_q[g / 4] + 64, hi);
        const __m512i ones = _mm512_set1_epi8(1);  // Σ A: lanes 4b..4b+3 block b's partials (zero past n)
        const __m512i sum = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(zero, ones, lo), ones, hi);
        _mm512_store_si512(a_init[g / 4], _mm512_mullo_epi32(sum, _mm512_set1_epi32(-off)));
      }
    }
    for (std::size_t j0 = 0; j0 < r.w; j0 += tq) {
      const std::size_t jt = r.w - j0 < tq ? r.w - j0 : tq;
      __m512 acc = _mm512_setzero_ps();  // lane q: output j0 + q, carried across chunks in `out`
      if (k0 != 0) {
        for (std::size_t q = 0; q < tq; ++q) out_t[q] = q < jt ? r.out[j0 + q] : 0.0f;
        acc = _mm512_load_ps(out_t);
      }
      // every factor of the (full) tile a normal fp32 built in the exponent field: the block steps need no
      // check (`block_step_lanes` unchecked). The range of all the tile's B scale codes: contiguous, one pass
      int sb_min = 255, sb_max = 0;
      if (jt == tq) avx2::detail::code_range(r.b_scale + j0 * nb, tq * nb, sb_min, sb_max);
      const bool plain = jt == tq && avx2::detail::normal_factors(sa_min, sa_max, sb_min, sb_max, -127 - us, -127);
      const std::uint8_t* brow[tq];  // the tile's rows at the chunk; a short tile repeats its first row
      const std::uint8_t* pf[tq];    // the next tile's rows (or these again at the end)
      for (std::size_t q = 0; q < tq; ++q) {
        brow[q] = r.b + (j0 + (q < jt ? q : 0)) * stride + g_first * bb;
        pf[q] = j0 + tq + q < r.w ? r.b + (j0 + tq + q) * stride + g_first * bb : brow[q];
      }
      // `l1_lines`: the line `ahead` bytes past chunk offset o of row q is at l1_near[q] + o for
      // o < l1_wrap, else (past the row's chunk) at l1_far[q] + o in the next tile's row; addresses as
      // integers (never dereferenced: a prefetch of any address is harmless)
      const std::size_t chunk_bytes = gcount * bb;
      const std::size_t ahead = int8_gemv_l1_ahead < chunk_bytes ? int8_gemv_l1_ahead : chunk_bytes;
      const std::size_t l1_wrap = chunk_bytes - ahead;
      std::uintptr_t l1_near[tq], l1_far[tq];
      if constexpr (P == prefetch_kind::l1_lines) {
        for (std::size_t q = 0; q < tq; ++q) {
          l1_near[q] = reinterpret_cast<std::uintptr_t>(brow[q]) + ahead;
          l1_far[q] = reinterpret_cast<std::uintptr_t>(pf[q]) + ahead - chunk_bytes;
        }
      }
      // `U` block quads from block ga0 of the chunk (`nl` blocks in the last one; `sb_t` holds the blocks
      // from g0): per group m of 4 tile rows, each row's U quads in turn, then per quad the 4×4 block-sum
      // trees, the lane transpose and the fp32 block steps. always_inline: without it GCC 12 left the
      // one-quad step ~0.7× as fast as the same loop written inline (MXINT8, K 1024, warm)
      auto quads = [&]<std::size_t U>(std::size_t g0, std::size_t ga0, std::size_t nl) __attribute__((always_inline)) {
        __m512i av[U][nv], ai[U];  // A's quads; each row's first partials (−off · Σ A)
        for (std::size_t u = 0; u < U; ++u) {
          for (std::size_t v = 0; v < nv; ++v) av[u][v] = _mm512_load_si512(a_q[ga0 / 4 + u] + 64 * v);
          ai[u] = _mm512_load_si512(a_init[ga0 / 4 + u]);
        }
        __m512i y[U][4];
#pragma GCC unroll 4
        for (std::size_t m = 0; m < 4; ++m) {
#pragma GCC unroll 2
          for (std::size_t u = 0; u < U; ++u) {
            const std::size_t ga = ga0 + 4 * u, n = u + 1 < U ? 4 : nl;
            __m512i v[4];
#pragma GCC unroll 4
            for (std::size_t q = 0; q < 4; ++q) {
              if constexpr (P == prefetch_kind::l1_lines) {
                const std::uintptr_t line = (ga * bb < l1_wrap ? l1_near[4 * m + q] : l1_far[4 * m + q]) + ga * bb;
                // integers, not pointers: l1_far[q] may lie before a row (a pointer select per line instead
                // ran FP4E2M1 at K 1024 warm 0.88× in one run); the address is only prefetched
                _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T0);  // NOLINT(performance-no-int-to-ptr)
                if constexpr (bb == 32) _mm_prefetch(reinterpret_cast<const char*>(line + 64), _MM_HINT_T0);  // NOLINT(performance-no-int-to-ptr)
              } else {
                _mm_prefetch(reinterpret_cast<const char*>(pf[4 * m + q] + ga * bb), _MM_HINT_T1);
                if constexpr (bb == 32) _mm_prefetch(reinterpret_cast<const char*>(pf[4 * m + q] + ga * bb + 64), _MM_HINT_T1);
              }
              if constexpr (i16) {
                __m512i d[4];
                detail::quad_e3m2(brow[4 * m + q] + ga * bb, n, d);
                v[q] = _mm512_add_epi32(
                    _mm512_dpwssd_epi32(_mm512_dpwssd_epi32(ai[u], d[0], av[u][0]), d[1], av[u][1]),
                    _mm512_dpwssd_epi32(_mm512_dpwssd_epi32(zero, d[2], av[u][2]), d[3], av[u][3]));
              } else {
                __m512i lo, hi;
                detail::quad_i8<T, off>(brow[4 * m + q] + ga * bb, n, lo, hi);
                v[q] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(ai[u], lo, av[u][0]), hi, av[u][1]);
              }
            }
            y[u][m] = detail::hsum4x4(v);
          }
        }
#pragma GCC unroll 2
        for (std::size_t u = 0; u < U; ++u) {
          const std::size_t ga = ga0 + 4 * u, g = ga - g0, n = u + 1 < U ? 4 : nl;
          __m512i z[4];
          detail::transpose_lanes4(y[u], z);
#pragma GCC unroll 4
          for (std::size_t b = 0; b < 4; ++b) {  // the fp32 block steps, in block order
            if (b >= n) break;
            const __m512i sbc = _mm512_load_si512(sb_t[g + b]);
            if (plain) detail::int_block_step<false, us>(acc, z[b], sbc, a_sk[ga + b], r.a_scale[g_first + ga + b]);
            else detail::int_block_step<true, us>(acc, z[b], sbc, a_sk[ga + b], r.a_scale[g_first + ga + b]);
          }
        }
      };
      for (std::size_t g0 = 0; g0 < gcount; g0 += 8) {
        const std::size_t gn = gcount - g0 < 8 ? gcount - g0 : 8;
        avx2::detail::int_tile_scales<tq>(r.b_scale + j0 * nb + g_first + g0, nb, gn, jt, &sb_t[0][0]);
        if (gn > 4 && set_aliased) {
          quads.template operator()<2>(g0, g0, gn - 4);
        } else {
          for (std::size_t g = 0; g < gn; g += 4) quads.template operator()<1>(g0, g0 + g, gn - g < 4 ? gn - g : 4);
        }
      }
      _mm512_store_ps(out_t, acc);
      for (std::size_t q = 0; q < jt; ++q) r.out[j0 + q] = out_t[q];
    }
  }
}

/// Exact-integer AVX-512 rows for T ∈ {FP4E2M1, FP6E2M3, FP6E3M2, MXINT8}; bit-identical to
/// `reference_rows<T>`. The structure of `avx2::int8_rows` (chunks of A converted once, per-block
/// exact sums, lane-wise fp32 block steps in block order, outputs carried across chunks in `out`),
/// with 16 B rows per tile and two blocks per vector. Offsets: FP4 12, FP6E2M3 60, MXINT8 128
/// (B + 128 = code XOR 0x80); FP6E3M2 uses int16 `vpdpwssd` without offset. Batch 1: `int8_gemv`
/// with the prefetch kind `pk` (`cpu_prefetch_kind()` for this CPU; any kind gives the same bits).
template <dtype::id T>
inline void int8_rows(const rows_args& r, prefetch_kind pk) noexcept {
  static_assert(int8_rows_type(T));
  if (r.h == 1) {
    if (pk == prefetch_kind::l1_lines) int8_gemv<T, prefetch_kind::l1_lines>(r);
    else int8_gemv<T, prefetch_kind::l2_sparse>(r);
    return;
  }
  constexpr bool i16 = T == dtype::id::fp6e3m2;
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t bb = detail::block_bytes<T>;
  constexpr int off = T == dtype::id::fp4e2m1 ? 12 : T == dtype::id::fp6e2m3 ? 60 : 128;
  constexpr std::size_t hb = int8_rows_shared;
  constexpr std::size_t tq = int8_tile;
  constexpr std::size_t ab = i16 ? sizeof(std::int16_t) * bs : bs;  // scratch bytes per decoded block
  const std::size_t stride = armlower::mx::storage_bytes(T, r.c);
  const std::size_t nb = r.c / bs;
  constexpr int us = 2 * armlower::mx::format(T).int_shift;
  // A row ii, block pair P of the chunk at a_s[ii] + P·2·ab: the decoded vector(s) of the pair
  alignas(64) std::uint8_t a_s[hb][int8_chunk / bs * ab];
  alignas(64) std::int32_t a_corr[hb][int8_chunk / bs + 1];  // off · Σ A per block (+1: an odd chunk's pad)
  alignas(64) std::int32_t a_sk[hb][int8_chunk / bs];        // A scale code − 127 − us per block
  int sa_min[hb], sa_max[hb];
  alignas(64) std::int32_t sb_t[8][tq];                      // [block][row] scale codes of the tile
  alignas(64) std::uint8_t b_s[tq][2 * ab];                  // the tile's decoded B block pair (GEMM)
  alignas(64) float out_t[tq];
  const __m512i zero = _mm512_setzero_si512();
  auto decode_b = [&](const std::uint8_t* p, bool two, __m512i* d) {  // d[0] (and d[1] for i16)
    __m512i c = detail::load_pair<T>(p, two);
    detail::in_register(c);  // (GCC 12 otherwise sent it through a stack slot)
    if constexpr (i16) detail::decode_e3m2(c, d[0], d[1]);
    else d[0] = detail::decode_i8<T, off>(c);
  };
  auto dot = [&](const __m512i* bd, std::size_t ii, std::size_t pair) {
    const std::uint8_t* pa = a_s[ii] + pair * 2 * ab;
    if constexpr (i16) {
      const __m512i lo = _mm512_dpwssd_epi32(zero, _mm512_load_si512(pa), bd[0]);
      return _mm512_dpwssd_epi32(lo, _mm512_load_si512(pa + 64), bd[1]);
    } else {
      return _mm512_dpbusd_epi32(zero, bd[0], _mm512_load_si512(pa));
    }
  };
  // v[k] = `hsum_pair` of the partial sums of tile rows 2k, 2k+1 with A row ii for the block pair at
  // ga (`Two` false: the second block is past the chunk); B decoded here (GEMV) or read from b_s
  auto pair_sums = [&]<bool Two, bool Shared>(const std::uint8_t* const* brow, std::size_t ii, std::size_t ga,
                                              __m512i* v) {
    auto row = [&](std::size_t q) {
      __m512i bd[2] = {zero, zero};
      if constexpr (Shared) {
        bd[0] = _mm512_load_si512(b_s[q]);
        if constexpr (i16) bd[1] = _mm512_load_si512(b_s[q] + 64);
      } else {
        decode_b(brow[q] + ga * bb, Two, bd);
      }
      return dot(bd, ii, ga / 2);
    };
#pragma GCC unroll 8
    for (std::size_t k = 0; k < tq / 2; ++k) v[k] = detail::hsum_pair(row(2 * k), row(2 * k + 1));
  };
  for (std::size_t i0 = 0; i0 < r.h; i0 += hb) {
    const std::size_t hn = r.h - i0 < hb ? r.h - i0 : hb;
    for (std::size_t k0 = 0; k0 < r.c; k0 += int8_chunk) {
      const std::size_t kn = r.c - k0 < int8_chunk ? r.c - k0 : int8_chunk;
      const std::size_t g_first = k0 / bs, gcount = kn / bs;
      for (std::size_t ii = 0; ii < hn; ++ii) {
        const std::uint8_t* ar = r.a + (i0 + ii) * stride + g_first * bb;
        const std::uint8_t* psa = r.a_scale + (i0 + ii) * nb + g_first;
        avx2::detail::int_row_scales(psa, gcount, us, sa_min[ii], sa_max[ii], a_sk[ii]);
        for (std::size_t g = 0; g < gcount; g += 2) {
          const __m512i c = detail::load_pair<T>(ar + g * bb, g + 1 < gcount);
          std::uint8_t* pa = a_s[ii] + g * ab;
          if constexpr (i16) {
            __m512i lo, hi;
            detail::decode_e3m2(c, lo, hi);
            _mm512_store_si512(pa, lo);
            _mm512_store_si512(pa + 64, hi);
          } else {
            const __m512i v = detail::decode_i8<T, 0>(c);
            _mm512_store_si512(pa, v);
            alignas(64) std::int32_t s[16];  // Σ A: vpdpbusd(1, A), lanes 0..7 block g, 8..15 g+1
            _mm512_store_si512(s, _mm512_dpbusd_epi32(zero, _mm512_set1_epi8(1), v));
            int s0 = 0, s1 = 0;
            for (std::size_t k = 0; k < 8; ++k) {
              s0 += s[k];
              s1 += s[k + 8];
            }
            a_corr[ii][g] = off * s0;
            a_corr[ii][g + 1] = off * s1;
          }
        }
      }
      for (std::size_t j0 = 0; j0 < r.w; j0 += tq) {
        const std::size_t jt = r.w - j0 < tq ? r.w - j0 : tq;
        __m512 acc[hb];  // acc[ii] lane q: output (i0 + ii, j0 + q), carried across chunks in `out`
        for (std::size_t ii = 0; ii < hn; ++ii) {
          acc[ii] = _mm512_setzero_ps();
          if (k0 != 0) {
            const float* o = r.out + (i0 + ii) * r.w + j0;
            for (std::size_t q = 0; q < tq; ++q) out_t[q] = q < jt ? o[q] : 0.0f;
            acc[ii] = _mm512_load_ps(out_t);
          }
        }
        auto load_scales = [&](std::size_t g0, std::size_t gn) {  // sb_t[g][q] for the tile
          avx2::detail::int_tile_scales<tq>(r.b_scale + j0 * nb + g_first + g0, nb, gn, jt, &sb_t[0][0]);
        };
        bool plain[hb];  // factor of A row ii built in the exponent field
        avx2::detail::int_tile_plain(r, j0, jt, g_first, gcount, hn, sa_min, sa_max, us, plain);
        // exact block sums `isum` of the tile's rows (lanes) for A row ii at block ga → acc_r
        auto finish = [&](__m512& acc_r, std::size_t ii, std::size_t g, std::size_t ga, __m512i isum) {
          if constexpr (!i16) isum = _mm512_sub_epi32(isum, _mm512_set1_epi32(a_corr[ii][ga]));
          const __m512i sbc = _mm512_load_si512(sb_t[g]);
          const std::uint8_t sa = r.a_scale[(i0 + ii) * nb + g_first + ga];
          if (plain[ii]) detail::int_block_step<false, us>(acc_r, isum, sbc, a_sk[ii][ga], sa);
          else detail::block_step_decoded<us>(acc_r, detail::to_ps(isum), sbc, _mm512_set1_epi32(sa));
        };
        __m512i v[tq / 2];  // `hsum_pair` of the tile's row pairs
        const std::uint8_t* brow[tq];  // the tile's rows at the chunk; a short tile repeats its first row
        for (std::size_t q = 0; q < tq; ++q) brow[q] = r.b + (j0 + (q < jt ? q : 0)) * stride + g_first * bb;
        for (std::size_t g0 = 0; g0 < gcount; g0 += 8) {
          const std::size_t gn = gcount - g0 < 8 ? gcount - g0 : 8;
          load_scales(g0, gn);
          for (std::size_t g = 0; g < gn; g += 2) {
            const std::size_t ga = g0 + g;  // block within the chunk (even)
            const bool two = g + 1 < gn;
            if (hn == 1) {  // GEMV: each B block pair decoded and multiplied in registers
              if (two) pair_sums.template operator()<true, false>(brow, 0, ga, v);
              else pair_sums.template operator()<false, false>(brow, 0, ga, v);
            } else {  // GEMM: decoded once into b_s, used by every A row of the group
              for (std::size_t q = 0; q < tq; ++q) {
                __m512i bd[2] = {zero, zero};
                decode_b(brow[q] + ga * bb, two, bd);
                _mm512_store_si512(b_s[q], bd[0]);
                if constexpr (i16) _mm512_store_si512(b_s[q] + 64, bd[1]);
              }
            }
            for (std::size_t ii = 0; ii < hn; ++ii) {
              if (hn != 1) pair_sums.template operator()<true, true>(brow, ii, ga, v);
              __m512i sg, sg1;
              detail::hsum16x2(v, sg, sg1);
              finish(acc[ii], ii, g, ga, sg);
              if (two) finish(acc[ii], ii, g + 1, ga + 1, sg1);
            }
          }
        }
        for (std::size_t ii = 0; ii < hn; ++ii) {
          _mm512_store_ps(out_t, acc[ii]);
          float* o = r.out + (i0 + ii) * r.w + j0;
          for (std::size_t q = 0; q < jt; ++q) o[q] = out_t[q];
        }
      }
    }
  }
}

/// Elements of A decoded per pass of `fp8_rows` (16 KiB of fp32, shared by the group's A rows).
inline constexpr std::size_t fp8_chunk = 4096;
/// B rows of `fp8_rows` that share each A load (batch 1), as `avx2::fp8_rows_shared`.
inline constexpr std::size_t fp8_rows_shared = 3;
/// A rows of `fp8_rows` that share each decoded B block pair (batch > 1).
inline constexpr std::size_t fp8_a_rows_shared = 4;

/// FP8 AVX-512 rows for T ∈ {FP8E4M3, FP8E5M2}; within the TOSA dot-product bound of the pseudocode.
/// `avx2::fp8_rows` at 512 bits: A decoded once per chunk into fp32 scratch laid out by block pair
/// (part q of blocks g, g+1 adjacent), each B block pair decoded once for the group's A rows, 4
/// FMA-class ops per pair for the block sums and `acc += s · [f_g ×8, f_g+1 ×8]`. Block factors and
/// the NaN/Inf fallback (`Check`) as in the AVX2 kernel.
template <dtype::id T, bool Check = true>
inline void fp8_rows(const rows_args& r) noexcept {
  static_assert(T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2);
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t nbc = fp8_chunk / bs;
  constexpr std::size_t hb = fp8_a_rows_shared;
  constexpr std::size_t nf = hb > fp8_rows_shared ? hb : fp8_rows_shared;
  alignas(64) float ad[fp8_chunk];    // A row ii at ad + ii·kc; pair P at +64·P: part q of block 2P at
                                      // +16q, of block 2P+1 at +16q+8
  alignas(64) std::int32_t ka[nbc];   // sa + kbias per block, A row ii at ka + ii·(kc/32)
  alignas(64) float fb[nf][nbc + 1];  // factor per block, per (B row, A row) pair; [gcount] = 0
  int sa_min[hb], sa_max[hb];
  for (std::size_t i0 = 0; i0 < r.h; i0 += hb) {
    const std::size_t hn = r.h - i0 < hb ? r.h - i0 : hb;
    const std::size_t kc = fp8_chunk / hn / (2 * bs) * (2 * bs);  // whole block pairs per A row
    for (std::size_t k0 = 0; k0 < r.c; k0 += kc) {
      const std::size_t kn = r.c - k0 < kc ? r.c - k0 : kc;
      const std::size_t gcount = kn / bs;
      avx2::detail::fp8_prepare_a<T, true>(r, i0, hn, k0, gcount, kc, ad, ka, sa_min, sa_max);
      auto tile = [&]<std::size_t Q, std::size_t P>(std::size_t j) {
        const std::uint8_t* br[Q];
        const std::uint8_t* pf[Q];  // the rows one group ahead (or these rows again at the end)
        __m512 acc[Q][P];
        __m512i maxs[Q], maxu[Q];
        for (std::size_t q = 0; q < Q; ++q) {
          br[q] = r.b + (j + q) * r.c + k0;
          const std::size_t ahead = j + q + Q;
          pf[q] = ahead < r.w ? r.b + ahead * r.c + k0 : br[q];
          avx2::detail::fp8_row_factors<T>(r, i0, P, j + q, k0, gcount, kc, ka, sa_min, sa_max, fb[q * P], nbc + 1);
          for (std::size_t p = 0; p < P; ++p) {
            fb[q * P + p][gcount] = 0.0f;  // factor of an odd chunk's missing last block
            acc[q][p] = _mm512_setzero_ps();
          }
          maxs[q] = _mm512_set1_epi8(-128);
          maxu[q] = _mm512_setzero_si512();
        }
        for (std::size_t g = 0; g < gcount; g += 2) {
          const bool two = g + 1 < gcount;
          for (std::size_t q = 0; q < Q; ++q) {
            _mm_prefetch(reinterpret_cast<const char*>(pf[q] + g * bs), _MM_HINT_T1);
            const __m512i v = two ? _mm512_loadu_si512(br[q] + g * bs)
                                  : _mm512_inserti64x4(_mm512_setzero_si512(),
                                                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(br[q] + g * bs)), 0);
            if constexpr (Check) {
              maxs[q] = _mm512_max_epi8(maxs[q], v);
              maxu[q] = _mm512_max_epu8(maxu[q], v);
            }
            __m512 d[4];
            detail::fp8_split<T>(v, d);
            for (std::size_t p = 0; p < P; ++p) {
              const float* pa = ad + p * kc + (g / 2) * 64;
              __m512 s = _mm512_mul_ps(d[0], _mm512_load_ps(pa));
              s = _mm512_fmadd_ps(d[1], _mm512_load_ps(pa + 16), s);
              s = _mm512_fmadd_ps(d[2], _mm512_load_ps(pa + 32), s);
              s = _mm512_fmadd_ps(d[3], _mm512_load_ps(pa + 48), s);
              const float* f = fb[q * P + p];
              const __m512 fv = _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(f[g]), _mm512_set1_ps(f[two ? g + 1 : gcount]));
              acc[q][p] = _mm512_fmadd_ps(s, fv, acc[q][p]);
            }
          }
        }
        for (std::size_t q = 0; q < Q; ++q) {
          bool special = false;
          if constexpr (Check) {
            const __m256i s = _mm256_max_epi8(_mm512_castsi512_si256(maxs[q]), _mm512_extracti64x4_epi64(maxs[q], 1));
            const __m256i u = _mm256_max_epu8(_mm512_castsi512_si256(maxu[q]), _mm512_extracti64x4_epi64(maxu[q], 1));
            special = avx2::detail::fp8_special<T>(s, u);
          }
          for (std::size_t p = 0; p < P; ++p)
            avx2::detail::fp8_store<T>(r, i0 + p, j + q, k0, kn, detail::hsum(acc[q][p]), special);
        }
      };
      avx2::detail::fp8_tiles<fp8_rows_shared, hb>(hn, r.w, tile);
    }
  }
}

#if defined(ARMLOWER_MX_AVX512_BF16)
/// Elements of A decoded per pass of `fp8_bf16_rows` (8 KiB of BF16, shared by the group's A rows).
inline constexpr std::size_t bf16_chunk = 4096;
/// B rows of `fp8_bf16_rows` that share each A load (batch 1).
inline constexpr std::size_t bf16_rows_shared = 4;
/// Whether `fp8_bf16_rows` prefetches the next B row group into L2 (batch 1).
inline constexpr bool bf16_prefetch = true;
/// How many row groups ahead `fp8_bf16_rows` prefetches (batch 1). Where a group's rows are whole
/// (one chunk: K ≤ `bf16_chunk`) they are one contiguous run of bytes, prefetched as such, line after
/// line, so the prefetches form one sequential stream; else row by row at the same offset. With
/// weights cold (`bm_mx_cold_pair`, mxfp branch results), 4 groups ahead in one stream beat 1 group
/// row by row by 1.15× (K 1024) and 1.2× (K 4096): AVX-512 ÷ AVX2 cold 1.20 → 1.40 and 0.95 → 1.17.
inline constexpr std::size_t bf16_prefetch_groups = 4;

/// FP8 AVX-512 BF16 rows for T ∈ {FP8E4M3, FP8E5M2}; within the TOSA dot-product bound of the
/// pseudocode. Both operands decoded exactly to BF16 by `detail::fp8_bf16` (A once per chunk into
/// scratch, B per block pair in registers), block sums by two `vdpbf16ps` per block pair (products of
/// two BF16-exact FP8 values are exact in fp32; every nonzero product and block sum is a normal fp32,
/// ≥ 2^-18 E4M3 / 2^-32 E5M2, ≤ 2^12·32 / 2^32·32, so neither its DAZ nor its FTZ applies), lanes
/// 0..7 = block g, 8..15 = block g+1; then `acc += s · [f_g ×8, f_g+1 ×8]` with the product rounded
/// apart from the add (`keep_rounded`, as the pseudocode). The factors are those of the AVX2 kernel
/// with no decode exponent (`fp8_factors<T, 0>`). NaN/Inf codes decode to BF16 NaN/±Inf, so they
/// propagate as in the pseudocode (a block sum's NaN/±Inf class does not depend on the summation
/// order); no per-block check, `Check` is ignored. Batch 1: `bf16_rows_shared` B rows per A load,
/// the group `bf16_prefetch_groups` ahead prefetched into L2; batch > 1: each B block pair decoded once for up to 4 A rows.
template <dtype::id T>
inline void fp8_bf16_rows(const rows_args& r) noexcept {
  static_assert(T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2);
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t nbc = bf16_chunk / bs;
  constexpr std::size_t hb = fp8_a_rows_shared;
  constexpr std::size_t nf = hb > bf16_rows_shared ? hb : bf16_rows_shared;
  constexpr int kbias = -127;                // biased factor exponent = sa + sb − 127
  alignas(64) std::uint16_t ad[bf16_chunk];  // A row ii at ad + ii·kc; pair P at +64·P: lo, then hi
  alignas(64) std::int32_t ka[hb][nbc];      // sa − 127 per block of A row ii (NaN code: far out of range)
  alignas(64) float fb[nf][nbc + 16];        // factor per block, per (B row, A row); [gcount] = 0, +16: 512-bit stores
  const detail::bf16_luts lut = detail::bf16_luts::make<T>();
  for (std::size_t i0 = 0; i0 < r.h; i0 += hb) {
    const std::size_t hn = r.h - i0 < hb ? r.h - i0 : hb;
    const std::size_t kc = bf16_chunk / hn / (2 * bs) * (2 * bs);  // whole block pairs per A row
    for (std::size_t k0 = 0; k0 < r.c; k0 += kc) {
      const std::size_t kn = r.c - k0 < kc ? r.c - k0 : kc;
      const std::size_t gcount = kn / bs;
      const std::size_t nb = r.c / bs;
      for (std::size_t ii = 0; ii < hn; ++ii) {  // A: BF16 scratch, ka, scale code range
        const std::uint8_t* ar = r.a + (i0 + ii) * r.c + k0;
        const std::uint8_t* psa = r.a_scale + (i0 + ii) * nb + k0 / bs;
        for (std::size_t g = 0; g < (gcount + 15) / 16 * 16; ++g)  // `bf16_factors` reads whole 16s
          ka[ii][g] = g >= gcount ? 0 : psa[g] == 255 ? -100000 : int(psa[g]) + kbias;
        for (std::size_t g = 0; g < gcount; g += 2) {
          __m512i lo, hi;
          detail::fp8_bf16(detail::load_blocks(ar + g * bs, g + 1 < gcount ? ~__mmask64{0} : 0xFFFFFFFFu), lut, lo, hi);
          _mm512_store_si512(ad + ii * kc + g * bs, lo);
          _mm512_store_si512(ad + ii * kc + g * bs + 32, hi);
        }
      }
      auto tile = [&]<std::size_t Q, std::size_t P>(std::size_t j) {
        const std::uint8_t* br[Q];
        const std::uint8_t* pf[Q];  // the rows `bf16_prefetch_groups` ahead (or these rows again at the end)
        __m512 acc[Q][P];
        for (std::size_t q = 0; q < Q; ++q) {
          br[q] = r.b + (j + q) * r.c + k0;
          const std::size_t ahead = j + q + bf16_prefetch_groups * Q;
          pf[q] = ahead < r.w ? r.b + ahead * r.c + k0 : br[q];
          for (std::size_t p = 0; p < P; ++p) {
            detail::bf16_factors(ka[p], r.a_scale + (i0 + p) * nb + k0 / bs, r.b_scale + (j + q) * nb + k0 / bs, gcount,
                                 fb[q * P + p]);
            fb[q * P + p][gcount] = 0.0f;  // factor of an odd chunk's missing last block
            acc[q][p] = _mm512_setzero_ps();
          }
        }
        // software-pipelined: the B rows' pair g + 2 is loaded and decoded while pair g is multiplied
        auto codes_mask = [gcount](std::size_t g) {  // blocks g, g+1 that exist
          return g + 1 < gcount ? ~__mmask64{0} : g < gcount ? __mmask64{0xFFFFFFFFu} : __mmask64{0};
        };
        __m512i nlo[Q], nhi[Q];
        for (std::size_t q = 0; q < Q; ++q)
          detail::fp8_bf16(detail::load_blocks(br[q], codes_mask(0)), lut, nlo[q], nhi[q]);
        // one 64-byte line prefetched per row and block pair. `Run`: the group `bf16_prefetch_groups`
        // ahead is one run of bytes at `run` (its rows whole and in B), line Q·g/2 + q; else row by
        // row, pf[q] + g·32
        const bool whole = kn == r.c && j + (bf16_prefetch_groups + 1) * Q <= r.w;
        const std::uint8_t* run = whole ? r.b + (j + bf16_prefetch_groups * Q) * r.c : nullptr;
        auto steps = [&]<bool Run>() {
          for (std::size_t g = 0; g < gcount; g += 2) {
            const __mmask64 m = codes_mask(g + 2);
            __m512i a[P][2];  // A's pair, loaded once for the Q rows
            for (std::size_t p = 0; p < P; ++p) {
              a[p][0] = _mm512_load_si512(ad + p * kc + g * bs);
              a[p][1] = _mm512_load_si512(ad + p * kc + g * bs + 32);
            }
#pragma GCC unroll 8
            for (std::size_t q = 0; q < Q; ++q) {
              if constexpr (bf16_prefetch) {
                const std::uint8_t* line = Run ? run + (g / 2 * Q + q) * 64 : pf[q] + g * bs;
                _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T1);
              }
              const __m512i blo = nlo[q], bhi = nhi[q];
              detail::fp8_bf16(detail::load_blocks(br[q] + (m != 0 ? g + 2 : 0) * bs, m), lut, nlo[q], nhi[q]);
#pragma GCC unroll 4
              for (std::size_t p = 0; p < P; ++p) {
                const __m512 s = detail::dot_bf16(detail::dot_bf16(_mm512_setzero_ps(), a[p][0], blo), a[p][1], bhi);
                const float* f = fb[q * P + p] + g;
                __m512 prod = _mm512_mul_ps(s, _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(f[0]), _mm512_set1_ps(f[1])));
                detail::keep_rounded(prod);  // the pseudocode rounds the product, then adds
                acc[q][p] = _mm512_add_ps(acc[q][p], prod);
              }
            }
          }
        };
        if (whole) steps.template operator()<true>();
        else steps.template operator()<false>();
        for (std::size_t q = 0; q < Q; ++q)
          for (std::size_t p = 0; p < P; ++p)
            avx2::detail::fp8_store<T>(r, i0 + p, j + q, k0, kn, detail::hsum(acc[q][p]), false);
      };
      avx2::detail::fp8_tiles<bf16_rows_shared, hb>(hn, r.w, tile);
    }
  }
}
#endif

}  // namespace armlower::kernels::mx::arch::avx512

#else
namespace armlower::kernels::mx::arch::avx512 {
/// False: this translation unit compiles no AVX-512 kernels.
inline constexpr bool available = false;
/// False: no AVX-512 BF16 FP8 kernel either.
inline constexpr bool bf16 = false;
}  // namespace armlower::kernels::mx::arch::avx512
#endif

#if defined(ARMLOWER_MX_GCC12_UNDEF_PRAGMAS)
#pragma GCC diagnostic pop
#undef ARMLOWER_MX_GCC12_UNDEF_PRAGMAS
#endif
