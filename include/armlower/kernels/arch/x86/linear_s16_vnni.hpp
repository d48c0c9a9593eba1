/// @file armlower/kernels/arch/x86/linear_s16_vnni.hpp
/// AVX-512 VNNI a16w8 fused linear (s16 × s8 → s16, int64 bias; contract: `kernels/linear_args.hpp`):
/// the `x86_avx512_vnni` path of `linear_s16`, over row-major weights (no packing step). Called only
/// after a cpuid check (`x86_has_avx512_vnni_dq`).
///
/// Arithmetic: per 32 columns, the s8 weights are sign-extended to s16 (`vpmovsxbw`) and
/// `vpdpwssd(acc, x, w)` adds x[2j]·w[2j] + x[2j+1]·w[2j+1] to int32 lane j. Exactness bound:
/// |x·w| ≤ 32768·128 = 2^22, so one step adds at most 2^23 to a lane and 255 steps at most
/// 255·2^23 = 2139095040 < 2^31: every pass of ≤ 255 steps (8160 columns) is exact in int32 lanes,
/// and the lanes are widened to int64 before they are summed (a row's pass total can reach 2^35), so
/// the accumulator is exact for any K — the int48/int64 accumulator of the contract. K tails are
/// zero-masked loads. Tiles: MR batch rows × NR weight rows (1×8, 2×8, 3×4, 4×4) of int32
/// accumulators in zmm registers. One batch row (> 4 channels, 256 ≤ K ≤ 4096): `linear_s16_vnni_gemv`, the
/// input split into two int8 planes and 64-byte `vpdpbusd` steps (1.14–1.50× the 1 × 8 tile on an Intel
/// Xeon with AMX, benchmarks/RESULTS.md "a16w8 without a buffer, one batch row: two int8 planes"). Requantization `requantize_s64(acc + bias, reduce_multiplier(q), s)`
/// 8 rows at a time with `vpmullq` (exact while |acc + bias| < 2^46, so |v·m| < 2^61; other values and
/// a saturating bias take the scalar `requantize_row_s16`), `vpsravq`, clamp, `vpmovqw`.
/// Source of the semantics: CMSIS-NN `arm_fully_connected_s16` / `arm_nn_vec_mat_mult_t_s16`, TFLite
/// reference `FullyConnected` int16×int8 with int64 bias. Firmware-clean (host only): noexcept, no
/// heap, no static data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <armlower/kernels/arch/x86/linear_vnni_rowdot.hpp>
#include <armlower/quant/multiplier.hpp>

namespace armlower::kernels::detail {

/// True if the CPU and OS support AVX-512 F + BW + VL + DQ + VNNI (with `ARMLOWER_X86_AVX512_SIMDE`: AVX2).
[[nodiscard]] inline bool x86_has_avx512_vnni_dq() noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  return x86_has_avx512_vnni_vl();
#else
  return x86_has_avx512_vnni_vl() && __builtin_cpu_supports("avx512dq");
#endif
}

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIW __attribute__((target("avx2")))
#define ARMLOWER_X86_VNNIW_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_VNNIW __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))
#define ARMLOWER_X86_VNNIW_INLINE \
  __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"), always_inline))
#endif

/// acc += vpdpwssd(x, w) (inline asm natively for the reason given at `dpbusd`).
ARMLOWER_X86_VNNIW_INLINE inline void dpwssd(__m512i& acc, __m512i x, __m512i w) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  acc = _mm512_dpwssd_epi32(acc, x, w);
#else
  __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
#endif
}

/// Columns per exact int32 pass (255 steps of 32 columns, see file comment).
inline constexpr std::ptrdiff_t vnni_s16_block = std::ptrdiff_t{255} * 32;

/// Rows [r0, r0 + NR) (clamped to the last row) × batch rows [m0, m0 + MR), columns [k0, k1) with
/// k1 − k0 ≤ `vnni_s16_block`: exact int64 sums added into out[m·8 + i].
template <int MR, int NR>
[[gnu::noinline]] ARMLOWER_X86_VNNIW inline void vnni_s16_kernel(const linear_s16_args& a, std::int32_t r0,
                                                                 std::int32_t m0, std::ptrdiff_t k0,
                                                                 std::ptrdiff_t k1, std::int64_t* out) noexcept {
  const std::int8_t* wr[NR];
#pragma GCC unroll 8
  for (int i = 0; i < NR; ++i) {
    const std::int32_t r = r0 + i < a.rows ? r0 + i : a.rows - 1;
    wr[i] = a.weights + static_cast<std::ptrdiff_t>(r) * a.cols;
  }
  const std::int16_t* xr[MR];
#pragma GCC unroll 8
  for (int m = 0; m < MR; ++m) xr[m] = a.input + static_cast<std::ptrdiff_t>(m0 + m) * a.cols;
  __m512i acc[MR * NR];
#pragma GCC unroll 32
  for (int i = 0; i < MR * NR; ++i) acc[i] = _mm512_setzero_si512();
  std::ptrdiff_t k = k0;
  for (; k + 32 <= k1; k += 32) {
    __m512i xv[MR];
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) xv[m] = _mm512_loadu_si512(xr[m] + k);
#pragma GCC unroll 8
    for (int i = 0; i < NR; ++i) {
      const __m512i wv = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(wr[i] + k)));
#pragma GCC unroll 8
      for (int m = 0; m < MR; ++m) dpwssd(acc[m * NR + i], xv[m], wv);
    }
  }
  if (k < k1) {  // tail: zero-masked loads of both operands
    const std::ptrdiff_t n = k1 - k;
    __m512i xv[MR];
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) xv[m] = load_prefix16(xr[m] + k, n);
#pragma GCC unroll 8
    for (int i = 0; i < NR; ++i) {
      const __m512i wv = _mm512_cvtepi8_epi16(
          ARMLOWER_Z512(extracti64x4_epi64, all4, load_prefix8(wr[i] + k, n), 0));
#pragma GCC unroll 8
      for (int m = 0; m < MR; ++m) dpwssd(acc[m * NR + i], xv[m], wv);
    }
  }
  const __m512i zero = _mm512_setzero_si512();
  if (k1 - k0 <= s16_block) {
    // ≤ 511 columns: any partial sum of the reduction tree is a sum over ≤ 511 products of
    // magnitude ≤ 2^22, < 2^31, so the int32 tree is exact (the generic path's int32 block bound)
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) {
      __m512i v8[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) v8[i] = i < NR ? acc[m * NR + i] : zero;
      alignas(32) std::int32_t r[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(r), reduce8_epi32(v8));
      _mm512_storeu_si512(out + std::ptrdiff_t{8} * m, _mm512_add_epi64(_mm512_loadu_si512(out + std::ptrdiff_t{8} * m), load8_i32_as_i64(all8, r)));
    }
    return;
  }
#pragma GCC unroll 8
  for (int m = 0; m < MR; ++m) {
    __m512i v8[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      // widen the 16 int32 lanes to int64 before summing (a pass total can exceed int32)
      v8[i] = i < NR ? _mm512_add_epi64(cvt32_64(acc[m * NR + i], 0), cvt32_64(acc[m * NR + i], 1)) : zero;
    }
    _mm512_storeu_si512(out + std::ptrdiff_t{8} * m, _mm512_add_epi64(_mm512_loadu_si512(out + std::ptrdiff_t{8} * m), reduce8_epi64(v8)));
  }
}

/// The vector form of `requant8_s16_vnni`: 8 biased accumulators v (rows r0.., `valid` of them real), each
/// with |v| < 2^46, → `requantize_s64(v, reduce_multiplier(q), s)` (`vpmullq`: |v·m| < 2^61), clamped, as
/// 8 int16. No range check: the caller has proven the bound.
ARMLOWER_X86_VNNIW_INLINE inline __m128i requant8_s16_vector(const linear_s16_args& a, __m512i v, std::int32_t r0,
                                                             __mmask8 valid) noexcept {
  // reduce_multiplier(q) = min((q + 2^15) >> 16, 32767) for q ≥ 0; total = 15 − s (s validated to −47..14)
  __m512i mv, tv;
  if (a.per_channel) {
    mv = load8_i32_as_i64(valid, a.multiplier + r0);
    mv = ARMLOWER_Z512(min_epi64, all8, ARMLOWER_Z512(srli_epi64, all8, _mm512_add_epi64(mv, _mm512_set1_epi64(32768)), 16),
                       _mm512_set1_epi64(32767));
    tv = _mm512_sub_epi64(_mm512_set1_epi64(15), load8_i32_as_i64(valid, a.shift + r0));
  } else {
    mv = _mm512_set1_epi64(quant::reduce_multiplier(a.multiplier[0]));
    tv = _mm512_set1_epi64(15 - a.shift[0]);
  }
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i rnd = ARMLOWER_Z512(sllv_epi64, all8, one, _mm512_sub_epi64(tv, one));
  __m512i y = srav64(_mm512_add_epi64(ARMLOWER_Z512(mullo_epi64, all8, v, mv), rnd), tv);
  y = ARMLOWER_Z512(min_epi64, all8, ARMLOWER_Z512(max_epi64, all8, y, _mm512_set1_epi64(a.activation_min)),
                    _mm512_set1_epi64(a.activation_max));
  return cvt64_16(y);
}

/// Requantizes the int64 accumulators v (rows r0..r0+nv−1, bias not yet added) into 8 int16.
ARMLOWER_X86_VNNIW_INLINE inline __m128i requant8_s16_vnni(const linear_s16_args& a, __m512i v, std::int32_t r0,
                                                           int nv) noexcept {
  const auto valid = static_cast<__mmask8>((1u << nv) - 1u);
  bool scalar = false;
  const __m512i unbiased = v;
  if (a.bias != nullptr) {
    // |bias| < 2^62 and |v| < 2^46: the saturating addition of the contract is a plain one
    const __m512i b = load8_i64(valid, a.bias + r0);
    scalar = (abs_ge64(b, _mm512_set1_epi64(std::int64_t{1} << 62)) & valid) != 0;
    v = _mm512_add_epi64(v, b);
  }
  const __m512i lim = _mm512_set1_epi64(std::int64_t{1} << 46);
  scalar = scalar || (abs_ge64(v, lim) & valid) != 0 || (abs_ge64(unbiased, lim) & valid) != 0;
  if (scalar) {
    alignas(64) std::int64_t lanes[8];
    _mm512_store_si512(lanes, unbiased);
    alignas(16) std::int16_t y[8] = {};
    for (int i = 0; i < nv; ++i) {
      const std::int64_t acc = a.bias != nullptr ? add_sat64(lanes[i], a.bias[r0 + i]) : lanes[i];
      y[i] = requantize_row_s16(a, r0 + i, acc);
    }
    return _mm_load_si128(reinterpret_cast<const __m128i*>(y));
  }
  return requant8_s16_vector(a, v, r0, valid);
}

/// The exact int64 sums of one MR × NR tile over all columns (in exact int32 passes of
/// `vnni_s16_block` columns) into sum[m·8 + i] (zeroed first).
template <int MR, int NR>
inline void vnni_s16_sums(const linear_s16_args& a, std::int32_t r0, std::int32_t m0, std::int64_t* sum) noexcept {
  for (int i = 0; i < MR * 8; ++i) sum[i] = 0;
  for (std::ptrdiff_t k0 = 0; k0 < a.cols; k0 += vnni_s16_block) {
    const std::ptrdiff_t k1 = k0 + vnni_s16_block < a.cols ? k0 + vnni_s16_block : a.cols;
    vnni_s16_kernel<MR, NR>(a, r0, m0, k0, k1, sum);
  }
}

/// One MR × NR tile over all columns, requantized and stored.
template <int MR, int NR>
ARMLOWER_X86_VNNIW inline void vnni_s16_tile(const linear_s16_args& a, std::int32_t r0, std::int32_t m0) noexcept {
  alignas(64) std::int64_t sum[MR * 8];
  vnni_s16_sums<MR, NR>(a, r0, m0, sum);
  const int nv = a.rows - r0 < NR ? a.rows - r0 : NR;
  for (int m = 0; m < MR; ++m) {
    const __m128i y = requant8_s16_vnni(a, _mm512_load_si512(sum + 8 * m), r0, nv);
    store_prefix16(a.output + static_cast<std::ptrdiff_t>(m0 + m) * a.rows + r0, y, nv);
  }
}

/// The tile order of the a16w8 VNNI kernels: weight rows outer, batch rows inner (each NR-row weight tile
/// is read from memory once and reused from L1 by every batch group); 3 × 8 tiles, layers of ≤ 4 rows
/// 4 × 4 (as the s8 row-major kernel). Calls `tile(mr, nr, r0, m0)` (mr, nr: `std::integral_constant<int,
/// …>`) for each tile of `a`'s batches × rows, in order, until one returns false; returns false then.
template <class Tile>
inline bool vnni_s16_tiles(const linear_s16_args& a, Tile&& tile) noexcept {
  using std::integral_constant;
  if (a.rows > 4) {
    const std::int32_t m3 = a.batches / 3 * 3;
    for (std::int32_t r0 = 0; r0 < a.rows; r0 += 8) {
      for (std::int32_t g = 0; g < m3; g += 3)
        if (!tile(integral_constant<int, 3>{}, integral_constant<int, 8>{}, r0, g)) return false;
      if (a.batches - m3 == 1 && !tile(integral_constant<int, 1>{}, integral_constant<int, 8>{}, r0, m3)) return false;
      if (a.batches - m3 == 2 && !tile(integral_constant<int, 2>{}, integral_constant<int, 8>{}, r0, m3)) return false;
    }
    return true;
  }
  const std::int32_t m4 = a.batches / 4 * 4;
  for (std::int32_t g = 0; g < m4; g += 4)
    if (!tile(integral_constant<int, 4>{}, integral_constant<int, 4>{}, 0, g)) return false;
  if (a.batches - m4 == 1) return tile(integral_constant<int, 1>{}, integral_constant<int, 4>{}, 0, m4);
  if (a.batches - m4 == 2) return tile(integral_constant<int, 2>{}, integral_constant<int, 4>{}, 0, m4);
  if (a.batches - m4 == 3) return tile(integral_constant<int, 3>{}, integral_constant<int, 4>{}, 0, m4);
  return true;
}

/// The planes of MR int16 input rows `x + m·cols`, columns [k0, k0 + n): virtual row 2m of `planes`
/// (stride `xs` ≥ n rounded up to 4) holds xh = x >> 8, row 2m + 1 holds xl' = (x & 255) − 128, both in
/// [−128, 127], so x = 256·xh + xl' + 128; the columns up to n rounded up to 4 are zero. sum[m] = Σ x over
/// the n columns. Read by `linear_s16_packed_vnni` (arch/x86/linear_s16_vnni_packed.hpp) and
/// `linear_s16_vnni_gemv`.
template <int MR>
ARMLOWER_X86_VNNIW_INLINE inline void s16_planes(const std::int16_t* x, std::ptrdiff_t cols, std::ptrdiff_t k0,
                                                std::ptrdiff_t n, std::int8_t* planes, std::ptrdiff_t xs,
                                                std::int64_t* sum) noexcept {
  const __m256i low = _mm256_set1_epi16(0xFF), bias = _mm256_set1_epi16(128), ones = _mm256_set1_epi16(1);
  for (int m = 0; m < MR; ++m) {
    const std::int16_t* xr = x + m * cols + k0;
    std::int8_t* hp = planes + std::ptrdiff_t{2} * m * xs;
    std::int8_t* lp = hp + xs;
    __m256i s = _mm256_setzero_si256();  // int32 lanes: ≤ 2·32768·(4096 / 16) < 2^31
    std::ptrdiff_t k = 0;
    for (; k + 16 <= n; k += 16) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + k));
      s = _mm256_add_epi32(s, _mm256_madd_epi16(v, ones));
      // both halves are in int8 range, so the saturating pack is exact: [xh 0..7, xl' 0..7 | xh 8..15, xl' 8..15]
      const __m256i p = _mm256_packs_epi16(_mm256_srai_epi16(v, 8), _mm256_sub_epi16(_mm256_and_si256(v, low), bias));
      const __m256i q = _mm256_permute4x64_epi64(p, 0xD8);  // [xh 0..15 | xl' 0..15]
      _mm_storeu_si128(reinterpret_cast<__m128i*>(hp + k), _mm256_castsi256_si128(q));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(lp + k), _mm256_extracti128_si256(q, 1));
    }
    alignas(32) std::int32_t l[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(l), s);
    std::int64_t t = 0;
    for (int i = 0; i < 8; ++i) t += l[i];
    for (; k < n; ++k) {
      const std::int32_t v = xr[k];
      t += v;
      hp[k] = static_cast<std::int8_t>(v >> 8);
      lp[k] = static_cast<std::int8_t>((v & 0xFF) - 128);
    }
    for (; k % 4 != 0; ++k) hp[k] = lp[k] = 0;
    sum[m] = t;
  }
}

/// Most columns of `linear_s16_vnni_gemv`: 64 steps of 64 columns, the bound of its int32 lanes (see there).
inline constexpr std::ptrdiff_t vnni_s16g_max_cols = 4096;

/// Fewest columns of `linear_s16_vnni_gemv`: below, its per-call planes and per-group int64 epilogue cost more than the
/// 64-byte steps save. Measured on an Intel Xeon with AMX (family 6 model 207; one batch row, processes alternated,
/// 5 rounds, median ratio to the 1 × 8 tile over weights 0/16/32/48 bytes past a line): K = N = 64 0.78–0.86, 128
/// 0.86–0.96, 256 1.14–1.27, 512 1.22–1.41 (benchmarks/RESULTS.md, "a16w8 without a buffer, one batch row").
inline constexpr std::ptrdiff_t vnni_s16g_min_cols = 256;

/// Whether `linear_s16_vnni` runs `linear_s16_vnni_gemv`: one batch row, more than 4 output channels (8-channel
/// groups; fewer keep the 1 × 4 tile) and `vnni_s16g_min_cols` ≤ K ≤ `vnni_s16g_max_cols`.
[[nodiscard]] constexpr bool vnni_s16g_applies(std::int32_t batches, std::int32_t rows, std::ptrdiff_t cols) noexcept {
  return batches == 1 && rows > 4 && cols >= vnni_s16g_min_cols && cols <= vnni_s16g_max_cols;
}

/// One 64-column step of `linear_s16_vnni_gemv` over 8 weight rows wr[i]: dl[i] += Σ xu·w and dh[i] += Σ (w ⊕ 0x80)·xh
/// (`vpdpbusd`, xu = x & 255 and w + 128 the unsigned operands), columns [k, k + 64) (TAIL: [k, k + n), zero-masked
/// loads; WRAP: the wrap step of `vnni_rowdot_head` n, k = K, `load_wrap64`). Weights loaded once for both products.
template <bool WRAP, bool TAIL>
ARMLOWER_X86_VNNIW_INLINE inline void s16g_step(__m512i* dl, __m512i* dh, const std::int8_t* const* wr,
                                                const std::int8_t* xu, const std::int8_t* xh, std::ptrdiff_t k,
                                                std::ptrdiff_t n) noexcept {
  static_assert(!(WRAP && TAIL));
  auto load = [k, n](const std::int8_t* p) ARMLOWER_X86_VNNIW_INLINE {
    return WRAP ? load_wrap64(p, k, n) : TAIL ? load_prefix8(p + k, n) : _mm512_loadu_si512(p + k);
  };
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i u = load(xu), h = load(xh);
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    __m512i w = load(wr[i]);
#if !defined(ARMLOWER_X86_AVX512_SIMDE)
    __asm__("" : "+v"(w));  // one load for both products (GCC 12 otherwise folds a second one into the XOR)
#endif
    dpbusd(dl[i], u, w);
    dpbusd(dh[i], _mm512_xor_si512(w, flip), h);
  }
}

/// AVX-512 VNNI a16w8 linear of one batch row over row-major weights (`vnni_s16g_applies`), weights read once per 8
/// output channels as 64-byte vectors (the `vnni_s16_kernel` tiles widen 32 weights per `vpmovsxbw`, and the s8 forms
/// show what 64-byte `vpdpbusd` steps gain). The input row is split once into `s16_planes`' two int8 planes, the low
/// one then stored as xu = xl' ⊕ 0x80 = x & 255 (unsigned): x = 256·xh + xu. Per channel, exact integers:
///   Dl = Σ xu·w, Dh = Σ (w + 128)·xh = Σ w·xh + 128·Σxh, so Σ x·w = Dl + 256·Dh − 32768·Σxh.
/// Bound: one step adds at most 4·255·128 = 130560 to an int32 lane of Dl or of Dh, so a lane of Dl + 256·Dh grows by
/// at most 257·130560 per step, and 64 steps (K ≤ 4096) keep it below 2^31 (2147450880): the two are combined in
/// int32 lanes, widened to int64 before the channel's lanes are summed (|Σ x·w| ≤ 2^22·K). Then
/// `requant8_s16_vnni` (bias, requantization, clamp) per 8 channels. Weights whose rows start off a 64-byte line
/// (K a multiple of 64) run their whole steps from the rows' first line boundary and finish with one wrap step
/// (`vnni_rowdot_head`, `load_wrap64` on the planes too): the same sums in another column order.
/// Source of the semantics: CMSIS-NN `arm_fully_connected_s16`, TFLite reference `FullyConnected` int16×int8.
ARMLOWER_X86_VNNIW inline void linear_s16_vnni_gemv(const linear_s16_args& a) noexcept {
  const std::ptrdiff_t cols = a.cols;
  alignas(64) std::int8_t pl[2 * vnni_s16g_max_cols];  // xh at pl, xu at pl + vnni_s16g_max_cols
  std::int64_t xsum = 0;
  s16_planes<1>(a.input, cols, 0, cols, pl, vnni_s16g_max_cols, &xsum);
  std::int8_t* const xh = pl;
  std::int8_t* const xu = pl + vnni_s16g_max_cols;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  __m512i sh = _mm512_setzero_si512();  // Σ xh (int32 lanes: |Σ| ≤ 128·4096)
  for (std::ptrdiff_t k = 0; k < cols; k += 64) {
    const std::ptrdiff_t n = cols - k < 64 ? cols - k : 64;
    _mm512_store_si512(xu + k, _mm512_xor_si512(load_prefix8(xu + k, n), flip));  // (past K: never read)
    dpbusd(sh, _mm512_set1_epi8(1), load_prefix8(xh + k, n));
  }
  alignas(64) std::int32_t shl[16];
  _mm512_store_si512(shl, sh);
  std::int64_t sum_h = 0;
  for (const std::int32_t v : shl) sum_h += v;
  const __m512i corr = _mm512_set1_epi64(-32768 * sum_h);
  const std::ptrdiff_t head = vnni_rowdot_head(a.weights, cols, cols);
  for (std::int32_t r0 = 0; r0 < a.rows; r0 += 8) {
    const std::int8_t* wr[8];  // rows past the last repeat it (computed, not stored)
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) wr[i] = a.weights + static_cast<std::ptrdiff_t>(r0 + i < a.rows ? r0 + i : a.rows - 1) * cols;
    __m512i dl[8], dh[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) dl[i] = dh[i] = _mm512_setzero_si512();
    std::ptrdiff_t k = head;
    for (; k + 64 <= cols; k += 64) s16g_step<false, false>(dl, dh, wr, xu, xh, k, 64);
    if (head > 0) {
      s16g_step<true, false>(dl, dh, wr, xu, xh, cols, head);
    } else if (k < cols) {
      s16g_step<false, true>(dl, dh, wr, xu, xh, k, cols - k);
    }
    __m512i v8[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      const __m512i d = _mm512_add_epi32(dl[i], ARMLOWER_Z512(slli_epi32, all16, dh[i], 8));  // exact: the bound above
      v8[i] = _mm512_add_epi64(cvt32_64(d, 0), cvt32_64(d, 1));
    }
    const int nv = a.rows - r0 < 8 ? a.rows - r0 : 8;
    const __m128i y = requant8_s16_vnni(a, _mm512_add_epi64(reduce8_epi64(v8), corr), r0, nv);
    std::int16_t* out = a.output + r0;
    if (nv == 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), y);
    } else {
      store_prefix16(out, y, nv);
    }
  }
}

/// AVX-512 VNNI a16w8 fused linear. Preconditions: `validate(a) == ok`, CPU has AVX-512 F/BW/VL/DQ/VNNI.
ARMLOWER_X86_VNNIW inline void linear_s16_vnni(const linear_s16_args& args) noexcept {
  const linear_s16_args a = args;
  if (vnni_s16g_applies(a.batches, a.rows, a.cols)) {
    linear_s16_vnni_gemv(a);
    return;
  }
  (void)vnni_s16_tiles(a, [&a](auto mr, auto nr, std::int32_t r0, std::int32_t m0) {
    vnni_s16_tile<decltype(mr)::value, decltype(nr)::value>(a, r0, m0);
    return true;
  });
}

#undef ARMLOWER_X86_VNNIW
#undef ARMLOWER_X86_VNNIW_INLINE

}  // namespace armlower::kernels::detail
