/// @file armlower/kernels/arch/x86/linear_vnni_packed.hpp
/// AVX-512 VNNI microkernel of the pre-packed s8 linear (`kernels/linear_packed.hpp`; contract:
/// `kernels/linear_args.hpp`). Called only after a cpuid check (`x86_has_avx512_vnni_vl`), compiled
/// with function `target` attributes (no `-mavx512*` needed in the including TU).
///
/// Packed layout (written by `kernels::pack_linear_s8`; header, row constants and offsets:
/// `kernels/detail/linear_s8_packed_layout.hpp`): the weights are stored as `u = w + 128` unsigned
/// bytes (`w ^ 0x80`) in the `vpdpbusd` layout: panels of 16 output channels, K in groups of 4 bytes
/// (one int32 lane = 4 consecutive K of one channel);
///   4 panels (64 channels) form a group; inside a group of `gp` panels the 64-byte lines are ordered
///   (k-group, panel), so a microkernel reads its panels as one stream. Padded K and padded channels
///   hold u = 0, so they add nothing.
///
/// Arithmetic (the integers of the contract, proven exact):
/// `vpdpbusd(acc, u, x)` with u = w + 128 ∈ [0, 255] unsigned and x signed gives
/// `D = Σ_k (w + 128)·x = Σ x·w + 128·Σ x`, so with Σx per batch row
/// `acc = D + (filter_offset − 128)·Σ x + c[r]`, where at pack time
/// `c[r] = kernel_sum[r]` (kernel_sum form: acc = ks + Σxw + fo·Σx) or
/// `c[r] = bias[r] + input_offset·Σ_k w[r][k] + K·input_offset·filter_offset` (bias form:
/// Σ(x+io)(w+fo) = Σxw + io·Σw + fo·Σx + K·io·fo). Each int32 lane holds D of one channel:
/// |D| ≤ 255·128·K ≤ 2139095040 < 2^31 for K ≤ 65536, so lanes are exact in one pass for such K;
/// longer rows are accumulated in blocks of 65536 columns into int64.
/// Requantization `(v·q + round) >> (31 − s)` (`quant::requantize_exact`), vectorised across 16
/// output channels, two forms:
/// - fast (every s ≤ −1 and cmax + |(fo − 128)·Σx| + 32640·K < 2^31, checked per call/tile): v =
///   D + c + bt in int32 lanes (exact by that bound), `vpmuldq` on even and odd lanes (|v·q| < 2^62),
///   `vpsravq` by 31 − s ≥ 32 so every result fits int32 (|y| ≤ 2^30 + 1), blended back to 16 int32
///   lanes, +output_offset, clamp, `vpmovdb`;
/// - general: 8 int64 lanes at a time (`requant8_vnni`), exact while v fits int32, other values take
///   the scalar `requantize_row_s8`.
/// Blocking: tiles of up to 4 batch rows × 64 channels (4 panels), or 8 rows × 32 channels on Zen 5
/// (`vnni_batch_tile_rows`), the K loop out of line per tile shape
/// (`vnni_kernel`); a batch-1 call of ≤ 64 channels and K ≤ 65536 is one register tile from the K loop to the
/// stores (`vnni_s8_gemv_small`: 1 × 64² went from ≈ 167 to ≈ 121 TSC ticks per call on Zen 4,
/// benchmarks/RESULTS.md).
/// Source of the semantics: CMSIS-NN `arm_fully_connected_s8` / `arm_nn_vec_mat_mult_t_s8`, TFLite
/// reference `FullyConnected` (int8) with `MultiplyByQuantizedMultiplier`.
/// Firmware-clean (host only): noexcept, no heap, no static data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

// ARMLOWER_X86_AVX512_SIMDE (tests only; the TU needs -mavx2): the AVX-512 VNNI paths are compiled
// against SIMDe's portable AVX-512 (Debian libsimde-dev) and are available wherever AVX2 is.
#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#endif

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/x86/cpu_class.hpp>
#include <armlower/kernels/detail/linear_s8_packed_layout.hpp>
#include <armlower/kernels/linear_args.hpp>

namespace armlower::kernels::detail {

/// Channels per panel, panels per group, K bytes per int32 lane.
inline constexpr std::int32_t vnni_panel = 16;
inline constexpr std::int32_t vnni_group_panels = 4;
/// Columns per exact int32 pass (see file comment).
inline constexpr std::int32_t vnni_s8_block = 65536;

[[nodiscard]] constexpr std::int64_t round_up(std::int64_t v, std::int64_t m) noexcept { return (v + m - 1) / m * m; }

/// True if the CPU and OS support AVX-512 F + BW + VL + VNNI (with `ARMLOWER_X86_AVX512_SIMDE`: AVX2).
[[nodiscard]] inline bool x86_has_avx512_vnni_vl() noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  return __builtin_cpu_supports("avx2");
#else
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
#endif
}

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_VNNIP __attribute__((target("avx2")))
#define ARMLOWER_X86_VNNIP_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_VNNIP __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#define ARMLOWER_X86_VNNIP_INLINE __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni"), always_inline))
#endif

// GCC 12 implements the unmasked forms of several AVX-512 intrinsics with an undefined pass-through
// operand, which -Wmaybe-uninitialized reports once inlined; the all-lanes zero-masked forms used
// below are the same instructions without that.
inline constexpr __mmask8 all8 = 0xFF;
inline constexpr __mmask8 all4 = 0x0F;
inline constexpr __mmask16 all16 = 0xFFFF;
inline constexpr __mmask32 all32 = 0xFFFFFFFFu;
inline constexpr __mmask64 all64 = ~__mmask64{0};
#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_Z512(op, all, ...) _mm512_##op(__VA_ARGS__)  // SIMDe: the plain forms
#else
#define ARMLOWER_Z512(op, all, ...) _mm512_maskz_##op(all, __VA_ARGS__)
#endif

/// Arithmetic right shift of int64 lanes by per-lane counts (`vpsravq`; scalar under SIMDe 0.7, which lacks it).
ARMLOWER_X86_VNNIP_INLINE inline __m512i srav64(__m512i a, __m512i n) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int64_t x[8], c[8];
  _mm512_store_si512(x, a);
  _mm512_store_si512(c, n);
  for (int i = 0; i < 8; ++i) x[i] >>= c[i];
  return _mm512_load_si512(x);
#else
  return _mm512_maskz_srav_epi64(all8, a, n);
#endif
}

/// The lanes of x with |x| ≥ l (int64 lanes, l > 0), by two compares: |x| itself is not formed (|INT64_MIN| is
/// no int64, and SIMDe's emulated `vpabsq` negates it as a signed integer: UB under UBSan).
ARMLOWER_X86_VNNIP_INLINE inline __mmask8 abs_ge64(__m512i x, __m512i l) noexcept {
  return _mm512_cmpge_epi64_mask(x, l) | _mm512_cmpge_epi64_mask(_mm512_sub_epi64(_mm512_setzero_si512(), l), x);
}

/// int64 lanes (each already in int8 range) → 8 bytes (`vpmovqb`).
ARMLOWER_X86_VNNIP_INLINE inline __m128i cvt64_8(__m512i a) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int64_t x[8];
  alignas(16) std::int8_t y[16] = {};
  _mm512_store_si512(x, a);
  for (int i = 0; i < 8; ++i) y[i] = static_cast<std::int8_t>(x[i]);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(y));
#else
  return _mm512_maskz_cvtepi64_epi8(all8, a);
#endif
}

/// int64 lanes (each already in int16 range) → 8 int16 (`vpmovqw`).
ARMLOWER_X86_VNNIP_INLINE inline __m128i cvt64_16(__m512i a) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int64_t x[8];
  alignas(16) std::int16_t y[8] = {};
  _mm512_store_si512(x, a);
  for (int i = 0; i < 8; ++i) y[i] = static_cast<std::int16_t>(x[i]);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(y));
#else
  return _mm512_maskz_cvtepi64_epi16(all8, a);
#endif
}


/// The low 8 int32 of `v` (its 256-bit half h) sign-extended to int64 lanes (`vpmovsxdq`).
ARMLOWER_X86_VNNIP_INLINE inline __m512i cvt32_64(__m512i v, int h) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int32_t x[16];
  alignas(64) std::int64_t y[8];
  _mm512_store_si512(x, v);
  for (int i = 0; i < 8; ++i) y[i] = x[8 * h + i];
  return _mm512_load_si512(y);
#else
  return h == 0 ? _mm512_maskz_cvtepi32_epi64(all8, _mm512_maskz_extracti64x4_epi64(all4, v, 0))
                : _mm512_maskz_cvtepi32_epi64(all8, _mm512_maskz_extracti64x4_epi64(all4, v, 1));
#endif
}

/// Sign of each int64 lane as 0 / −1 (`vpsraq 63`).
ARMLOWER_X86_VNNIP_INLINE inline __m512i sign64(__m512i v) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int64_t e[8];
  _mm512_store_si512(e, v);
  for (std::int64_t& x : e) x = x < 0 ? -1 : 0;
  return _mm512_load_si512(e);
#else
  return _mm512_maskz_srai_epi64(all8, v, 63);
#endif
}

/// int32 lanes (each already in int8 range) → 16 bytes (`vpmovdb`).
ARMLOWER_X86_VNNIP_INLINE inline __m128i cvt32_8(__m512i a) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int32_t x[16];
  alignas(16) std::int8_t y[16];
  _mm512_store_si512(x, a);
  for (int i = 0; i < 16; ++i) y[i] = static_cast<std::int8_t>(x[i]);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(y));
#else
  return _mm512_maskz_cvtepi32_epi8(all16, a);
#endif
}

/// The first n (0 < n ≤ 64) bytes at p, zeros above (masked load: nothing past p + n is read).
ARMLOWER_X86_VNNIP_INLINE inline __m512i load_prefix8(const void* p, std::ptrdiff_t n) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::uint8_t b[64] = {};
  std::memcpy(b, p, static_cast<std::size_t>(n));
  return _mm512_load_si512(b);
#else
  return _mm512_maskz_loadu_epi8(static_cast<__mmask64>(~std::uint64_t{0} >> (64 - n)), p);
#endif
}

/// The 64 bytes [p, p + head) ++ [p + cols − 64 + head, p + cols) (0 < head < 64 ≤ cols) by two masked loads: with p + head
/// on a 64-byte boundary and cols a multiple of 64 (`vnni_rowdot_head`) each reads within one cache line, and nothing
/// outside [p, p + cols) is read.
ARMLOWER_X86_VNNIP_INLINE inline __m512i load_wrap64(const std::int8_t* p, std::ptrdiff_t cols, std::ptrdiff_t head) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int8_t b[64];
  std::memcpy(b, p, static_cast<std::size_t>(head));
  std::memcpy(b + head, p + cols - 64 + head, static_cast<std::size_t>(64 - head));
  return _mm512_load_si512(b);
#else
  const auto low = static_cast<__mmask64>(~std::uint64_t{0} >> (64 - head));
  return _mm512_mask_loadu_epi8(load_prefix8(p, head), static_cast<__mmask64>(~low), p + cols - 64);
#endif
}

/// Columns that the row-major kernels (`vnni_rowdot8_sum`, `vnni_rowdot_kernel`, `linear_s8_amx_rowmajor`) run last, as
/// one wrap step with the last 64 − head columns (`load_wrap64`), so that their whole 64-column steps read 64-byte aligned
/// weights: where the rows (at `w`, `wstride` bytes apart) all start at the same offset within a line (`wstride` a
/// multiple of 64), K = `cols` is a whole number of steps and a whole step follows them, the bytes from `w` to the next
/// line boundary; else 0. Row-major weights off a line (a `std::vector`'s data, a tensor inside a file) split every
/// 64-byte load across two lines: on the Intel Xeon with AMX (family 6 model 207), `linear_s8` without a buffer at
/// 1 × 1024² ran 64–69 GMAC/s with the weights 16, 32 or 48 bytes past a line against 122–134 on one
/// (benchmarks/RESULTS.md, "Row-major weights off a 64-byte line").
[[nodiscard]] inline std::ptrdiff_t vnni_rowdot_head(const std::int8_t* w, std::ptrdiff_t wstride, std::ptrdiff_t cols) noexcept {
  const auto head = static_cast<std::ptrdiff_t>((64 - reinterpret_cast<std::uintptr_t>(w) % 64) % 64);
  return wstride % 64 == 0 && cols % 64 == 0 && head + 64 <= cols ? head : 0;
}

/// The first n (0 < n ≤ 32) int16 at p, zeros above.
ARMLOWER_X86_VNNIP_INLINE inline __m512i load_prefix16(const std::int16_t* p, std::ptrdiff_t n) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  return load_prefix8(p, 2 * n);
#else
  return _mm512_maskz_loadu_epi16(static_cast<__mmask32>(0xFFFFFFFFu >> (32 - n)), p);
#endif
}

/// The first n (0 < n ≤ 16) int32 at p, zeros above.
ARMLOWER_X86_VNNIP_INLINE inline __m512i load_prefix32(const std::int32_t* p, std::ptrdiff_t n) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  return load_prefix8(p, 4 * n);
#else
  return _mm512_maskz_loadu_epi32(static_cast<__mmask16>(0xFFFFu >> (16 - n)), p);
#endif
}

/// Stores the first n (0 < n ≤ 16) bytes of v at p (masked store: nothing else is written).
ARMLOWER_X86_VNNIP_INLINE inline void store_prefix8(void* p, __m128i v, int n) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(16) std::uint8_t b[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(b), v);
  std::memcpy(p, b, static_cast<std::size_t>(n));
#else
  _mm_mask_storeu_epi8(p, static_cast<__mmask16>((1u << n) - 1u), v);
#endif
}

/// Stores the low 32 bits of the first n (0 < n ≤ 8) int64 lanes of v as int32 at p (`vpmovqd` + masked store).
ARMLOWER_X86_VNNIP_INLINE inline void store_prefix32x8(std::int32_t* p, __m512i v, int n) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int64_t x[8];
  _mm512_store_si512(x, v);
  for (int i = 0; i < n; ++i) p[i] = static_cast<std::int32_t>(x[i]);
#else
  _mm512_mask_cvtepi64_storeu_epi32(p, static_cast<__mmask8>((1u << n) - 1u), v);
#endif
}

/// Stores the first n (0 < n ≤ 16) int32 lanes of v at p (masked store: nothing else is written).
ARMLOWER_X86_VNNIP_INLINE inline void store_prefix32(std::int32_t* p, __m512i v, int n) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int32_t x[16];
  _mm512_store_si512(x, v);
  std::memcpy(p, x, sizeof(std::int32_t) * static_cast<std::size_t>(n));
#else
  _mm512_mask_storeu_epi32(p, static_cast<__mmask16>(0xFFFFu >> (16 - n)), v);
#endif
}

/// Stores the first n (0 < n ≤ 8) int16 of v at p.
ARMLOWER_X86_VNNIP_INLINE inline void store_prefix16(std::int16_t* p, __m128i v, int n) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  store_prefix8(p, v, 2 * n);
#else
  _mm_mask_storeu_epi16(p, static_cast<__mmask8>((1u << n) - 1u), v);
#endif
}

/// The first `valid` (mask) of 8 int64 at p (others 0): one masked load (no scalar stores to reload).
ARMLOWER_X86_VNNIP_INLINE inline __m512i load8_i64(__mmask8 valid, const std::int64_t* p) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int64_t v[8] = {};
  for (int i = 0; i < 8; ++i) v[i] = ((valid >> i) & 1) != 0 ? p[i] : 0;
  return _mm512_load_si512(v);
#else
  return _mm512_maskz_loadu_epi64(valid, p);
#endif
}

/// The first `valid` (mask) of 8 int32 at p, sign-extended to int64 lanes (others 0).
ARMLOWER_X86_VNNIP_INLINE inline __m512i load8_i32_as_i64(__mmask8 valid, const std::int32_t* p) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  alignas(64) std::int64_t v[8] = {};
  for (int i = 0; i < 8; ++i) v[i] = ((valid >> i) & 1) != 0 ? p[i] : 0;
  return _mm512_load_si512(v);
#else
  return _mm512_maskz_cvtepi32_epi64(all8, _mm256_maskz_loadu_epi32(valid, p));
#endif
}

[[nodiscard]] inline std::int32_t load_i32(const std::int8_t* p) noexcept {
  std::int32_t v = 0;
  std::memcpy(&v, p, 4);
  return v;
}

/// Per-call requantization constants (per-tensor values; per-channel ones are loaded per panel).
struct vnni_requant {
  __m512i q, total, rnd, out_off, lo, hi;
  __mmask8 big;  // per-tensor: total > 31 (double rounding adds ±2^30)
  bool dbl, per_channel;
};

ARMLOWER_X86_VNNIP inline vnni_requant make_vnni_requant(const linear_s8_args& a) noexcept {
  vnni_requant c;
  c.per_channel = a.per_channel;
  c.dbl = a.rounding == quant::rounding::double_round;
  const std::int64_t total = 31 - a.shift[0];
  c.q = _mm512_set1_epi64(a.multiplier[0]);
  c.total = _mm512_set1_epi64(total);
  c.rnd = _mm512_set1_epi64(std::int64_t{1} << (total - 1));
  c.big = total > 31 ? static_cast<__mmask8>(0xFF) : static_cast<__mmask8>(0);
  c.out_off = _mm512_set1_epi64(a.output_offset);
  c.lo = _mm512_set1_epi64(a.activation_min);
  c.hi = _mm512_set1_epi64(a.activation_max);
  return c;
}

/// Requantizes 8 int64 accumulators of channels ch..ch+7 (valid lanes `nv` ≥ 1) into 8 int8 (low
/// 8 bytes of the result), exactly like `requantize_row_s8`.
ARMLOWER_X86_VNNIP_INLINE inline __m128i requant8_vnni(const linear_s8_args& a, const vnni_requant& c, __m512i v,
                                                       std::int32_t ch, int nv) noexcept {
  // exact vpmuldq needs v in int32: (v + 2^31) >> 32 == 0 on every lane
  const __m512i biased = _mm512_add_epi64(v, _mm512_set1_epi64(std::int64_t{1} << 31));
  const __mmask8 valid = static_cast<__mmask8>((1u << nv) - 1u);
  if (_mm512_mask_test_epi64_mask(valid, ARMLOWER_Z512(srli_epi64, all8, biased, 32), ARMLOWER_Z512(srli_epi64, all8, biased, 32)) != 0) {
    alignas(64) std::int64_t lanes[8];
    _mm512_store_si512(lanes, v);
    alignas(16) std::int8_t y[16] = {};
    for (int i = 0; i < nv; ++i) y[i] = requantize_row_s8(a, ch + i, lanes[i]);
    return _mm_load_si128(reinterpret_cast<const __m128i*>(y));
  }
  __m512i q = c.q, total = c.total, rnd = c.rnd;
  __mmask8 big = c.big;
  if (c.per_channel) {
    q = load8_i32_as_i64(valid, a.multiplier + ch);
    total = _mm512_sub_epi64(_mm512_set1_epi64(31),
                             load8_i32_as_i64(valid, a.shift + ch));  // 1..62
    rnd = ARMLOWER_Z512(sllv_epi64, all8, _mm512_set1_epi64(1), _mm512_sub_epi64(total, _mm512_set1_epi64(1)));
    big = _mm512_cmpgt_epi64_mask(total, _mm512_set1_epi64(31));
  }
  if (c.dbl && big != 0) {
    const __m512i h = _mm512_set1_epi64(std::int64_t{1} << 30);
    const __mmask8 neg = _mm512_cmpgt_epi64_mask(_mm512_setzero_si512(), v);
    rnd = _mm512_mask_add_epi64(rnd, static_cast<__mmask8>(big & ~neg), rnd, h);
    rnd = _mm512_mask_sub_epi64(rnd, static_cast<__mmask8>(big & neg), rnd, h);
  }
  __m512i y = srav64(_mm512_add_epi64(ARMLOWER_Z512(mul_epi32, all8, v, q), rnd), total);  // |v·q| < 2^62
  y = _mm512_add_epi64(y, c.out_off);
  y = ARMLOWER_Z512(min_epi64, all8, ARMLOWER_Z512(max_epi64, all8, y, c.lo), c.hi);
  return cvt64_8(y);
}

/// Σ x[k] over one input row (int64; |Σ| ≤ 128·K). Four independent `vpdpbusd(1, x)` chains; each
/// int32 lane sums ≤ 4·⌈K/256⌉ values of magnitude ≤ 128, exact for K < 2^22, flushed every 2^20.
ARMLOWER_X86_VNNIP inline std::int64_t sum_s8_vnni(const std::int8_t* x, std::ptrdiff_t n) noexcept {
  const __m512i ones = _mm512_set1_epi8(1);
  std::int64_t s = 0;
  std::ptrdiff_t k = 0;
  while (k + 64 <= n) {
    const std::ptrdiff_t end = n - k > (std::ptrdiff_t{1} << 20) ? k + (std::ptrdiff_t{1} << 20) : n;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (; k + 256 <= end; k += 256) {
      a0 = _mm512_dpbusd_epi32(a0, ones, _mm512_loadu_si512(x + k));
      a1 = _mm512_dpbusd_epi32(a1, ones, _mm512_loadu_si512(x + k + 64));
      a2 = _mm512_dpbusd_epi32(a2, ones, _mm512_loadu_si512(x + k + 128));
      a3 = _mm512_dpbusd_epi32(a3, ones, _mm512_loadu_si512(x + k + 192));
    }
    for (; k + 64 <= end; k += 64) a0 = _mm512_dpbusd_epi32(a0, ones, _mm512_loadu_si512(x + k));
    // |Σ| ≤ 128·2^20 per pass, so the two halves add exactly in int32 lanes
    const __m512i t = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
    const __m256i h = _mm256_add_epi32(ARMLOWER_Z512(extracti64x4_epi64, all4, t, 0), ARMLOWER_Z512(extracti64x4_epi64, all4, t, 1));
    __m128i q = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 0x4E));
    s += _mm_cvtsi128_si32(_mm_add_epi32(q, _mm_shuffle_epi32(q, 0xB1)));
  }
  for (; k < n; ++k) s += x[k];
  return s;
}

/// acc += vpdpbusd(u, x). Inline asm on native builds: GCC 12 copies every accumulator of the
/// intrinsic form once per iteration (the builtin is not tied to its destination), which doubles the
/// instruction count of the inner loop; under SIMDe the intrinsic is used.
ARMLOWER_X86_VNNIP_INLINE inline void dpbusd(__m512i& acc, __m512i u, __m512i x) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  acc = _mm512_dpbusd_epi32(acc, u, x);
#else
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(x));
#endif
}

/// As `dpbusd`, but the signed operand may be a memory operand (for a value used once: a GEMV
/// weight vector is then loaded by the `vpdpbusd` itself).
ARMLOWER_X86_VNNIP_INLINE inline void dpbusd_m(__m512i& acc, __m512i u, __m512i x) noexcept {
#if defined(ARMLOWER_X86_AVX512_SIMDE)
  acc = _mm512_dpbusd_epi32(acc, u, x);
#else
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "vm"(x));
#endif
}

/// The register-blocked inner loop: for k-groups [g0, g1) of the packed stream `w` (stride
/// `wstride` bytes per k-group, NP consecutive 64-byte panels at its start) and MR input rows
/// `x + m·xs`, D[m][p] = Σ vpdpbusd(u, x[4g..4g+3]); then, if `tail`, the zero-padded last partial
/// k-group `tail[m]` (its u bytes are 0 beyond K). KU independent accumulator sets hide the
/// `vpdpbusd` latency; the int32 lanes of D[m][p] are left in `acc[m·NP + p]` (inlined: they stay in
/// zmm registers).
template <int MR, int NP, int KU>
ARMLOWER_X86_VNNIP_INLINE inline void vnni_accumulate(__m512i (&acc)[MR * NP], const std::uint8_t* w,
                                                      std::ptrdiff_t wstride, const std::int8_t* x,
                                                      std::ptrdiff_t xs, std::ptrdiff_t g0, std::ptrdiff_t g1,
                                                      const std::int32_t* tail) noexcept {
  __m512i part[KU * MR * NP];
#pragma GCC unroll 64
  for (int i = 0; i < KU * MR * NP; ++i) part[i] = _mm512_setzero_si512();
  const std::uint8_t* wp = w + g0 * wstride;
  const std::int8_t* xp = x + 4 * g0;
  std::ptrdiff_t g = g0;
  for (; g + KU <= g1; g += KU) {
#pragma GCC unroll 8
    for (int u = 0; u < KU; ++u) {
      __m512i wv[NP];
#pragma GCC unroll 4
      for (int p = 0; p < NP; ++p) wv[p] = _mm512_loadu_si512(wp + u * wstride + std::ptrdiff_t{64} * p);
#pragma GCC unroll 8
      for (int m = 0; m < MR; ++m) {
        const __m512i xv = _mm512_set1_epi32(load_i32(xp + m * xs + std::ptrdiff_t{4} * u));
#pragma GCC unroll 4
        for (int p = 0; p < NP; ++p) {
          dpbusd(part[(u * MR + m) * NP + p], wv[p], xv);
        }
      }
    }
    wp += KU * wstride;
    xp += std::ptrdiff_t{4} * KU;
  }
  for (; g < g1; ++g) {
    __m512i wv[NP];
#pragma GCC unroll 4
    for (int p = 0; p < NP; ++p) wv[p] = _mm512_loadu_si512(wp + std::ptrdiff_t{64} * p);
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) {
      const __m512i xv = _mm512_set1_epi32(load_i32(xp + m * xs));
#pragma GCC unroll 4
      for (int p = 0; p < NP; ++p) dpbusd(part[m * NP + p], wv[p], xv);
    }
    wp += wstride;
    xp += 4;
  }
  if (tail != nullptr) {
    __m512i wv[NP];
#pragma GCC unroll 4
    for (int p = 0; p < NP; ++p) wv[p] = _mm512_loadu_si512(wp + std::ptrdiff_t{64} * p);
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) {
      const __m512i xv = _mm512_set1_epi32(tail[m]);
#pragma GCC unroll 4
      for (int p = 0; p < NP; ++p) dpbusd(part[m * NP + p], wv[p], xv);
    }
  }
#pragma GCC unroll 32
  for (int i = 0; i < MR * NP; ++i) acc[i] = part[i];
#pragma GCC unroll 8
  for (int u = 1; u < KU; ++u) {
#pragma GCC unroll 32
    for (int i = 0; i < MR * NP; ++i) acc[i] = _mm512_add_epi32(acc[i], part[u * MR * NP + i]);
  }
}

/// `vnni_accumulate` as a call of its own, storing D[m][p] to `out[m][p·16 + j]` (the tiles of large
/// calls: one copy of the loop per shape, kept out of line).
template <int MR, int NP, int KU>
[[gnu::noinline]] ARMLOWER_X86_VNNIP inline void vnni_kernel(const std::uint8_t* w, std::ptrdiff_t wstride,
                                                             const std::int8_t* x, std::ptrdiff_t xs,
                                                             std::ptrdiff_t g0, std::ptrdiff_t g1,
                                                             const std::int32_t* tail, std::int32_t* out) noexcept {
  __m512i acc[MR * NP];
  vnni_accumulate<MR, NP, KU>(acc, w, wstride, x, xs, g0, g1, tail);
#pragma GCC unroll 32
  for (int i = 0; i < MR * NP; ++i) _mm512_storeu_si512(out + std::ptrdiff_t{16} * i, acc[i]);
}

/// Per-call state of `linear_s8_packed_vnni`.
/// Raw-accumulator output of the row-major and packed kernels (TOSA CONV2D int8 → int32,
/// `kernels/conv2d.hpp`, `kernels/conv2d_packed.hpp`):
/// `out[m][r] = acc + bias[bias_size == 1 ? 0 : r]` where acc = Σ_k (x + input_offset)·(w + filter_offset)
/// (bias of the args null), with TOSA's REQUIRE checks: acc and acc + bias must fit int32, else
/// `range_error` is set (the output is then unspecified).
struct vnni_acc32_out {
  std::int32_t* out = nullptr;          ///< [batches][rows]
  const std::int32_t* bias = nullptr;   ///< [bias_size]
  std::int32_t bias_size = 1;           ///< rows or 1 (broadcast)
  bool range_error = false;
};

/// The bias of channels [ch, ch + 8) of `o` in int64 lanes (`valid`: the real channels; broadcast
/// when `bias_size` is 1).
ARMLOWER_X86_VNNIP_INLINE inline __m512i acc32_bias8(const vnni_acc32_out& o, std::int32_t ch, __mmask8 valid) noexcept {
  return o.bias_size == 1 ? _mm512_set1_epi64(o.bias[0]) : load8_i32_as_i64(valid, o.bias + ch);
}

/// Stores the first n (0 < n ≤ 8) lanes of y = acc + bias as int32 at p (`acc`, `bias`: int64 lanes) and
/// returns the lanes where acc or y is outside int32 (the REQUIREs of `vnni_acc32_out`; lanes ≥ n too).
ARMLOWER_X86_VNNIP_INLINE inline __mmask8 store_acc32x8(std::int32_t* p, __m512i acc, __m512i bias, int n) noexcept {
  const __m512i lo = _mm512_set1_epi64(INT32_MIN), hi = _mm512_set1_epi64(INT32_MAX);
  const __m512i y = _mm512_add_epi64(acc, bias);
  store_prefix32x8(p, y, n);
  return _mm512_cmpgt_epi64_mask(lo, acc) | _mm512_cmpgt_epi64_mask(acc, hi) | _mm512_cmpgt_epi64_mask(lo, y) |
         _mm512_cmpgt_epi64_mask(y, hi);
}

struct vnni_s8_call {
  const linear_s8_args* a;
  const std::int64_t* c;       // folded row constants [Np] (int64)
  const std::int32_t* c32;     // the same, int32 (valid when fast)
  const std::uint8_t* w;       // packed weights
  std::ptrdiff_t kp;           // K rounded up to 4
  std::ptrdiff_t full_groups;  // K / 4
  bool has_tail;               // K % 4 != 0
  bool fast_shift;             // every shift ≤ −1 (31 − s ≥ 32)
  std::int64_t fast_bound;     // fast form when |bt| ≤ this = 2^31 − 1 − cmax − 32640·K
  vnni_requant rq;  // set only without `acc32` (not zeroed: 7 zmm stores in every call)
  vnni_acc32_out* acc32 = nullptr;  // raw int32 accumulator + bias output (CONV2D) instead of requantization
};

/// Raw accumulator of one 16-channel panel of batch row `b` (int32 lanes `acc` + c + bt, in int64)
/// + bias into `s.acc32`, with the REQUIRE checks of `vnni_acc32_out`.
ARMLOWER_X86_VNNIP_INLINE inline void vnni_store_panel_acc32(const vnni_s8_call& s, __m512i acc, std::int32_t ch,
                                                             std::int32_t b, std::int64_t bt) noexcept {
  const linear_s8_args& a = *s.a;
  vnni_acc32_out& o = *s.acc32;
  const int nv = a.rows - ch < 16 ? a.rows - ch : 16;
  const __m512i btv = _mm512_set1_epi64(bt);
  __mmask8 bad = 0;
  for (int h = 0; h < 2 && 8 * h < nv; ++h) {
    const std::int32_t c8 = ch + 8 * h;
    const int n = nv - 8 * h < 8 ? nv - 8 * h : 8;
    const auto valid = static_cast<__mmask8>((1u << n) - 1u);
    const __m512i v = _mm512_add_epi64(_mm512_add_epi64(cvt32_64(acc, h), _mm512_loadu_si512(s.c + c8)), btv);
    bad |= store_acc32x8(o.out + static_cast<std::ptrdiff_t>(b) * a.rows + c8, v, acc32_bias8(o, c8, valid), n) & valid;
  }
  o.range_error = o.range_error || bad != 0;
}

/// `vnni_store_panel_acc32` in int32 lanes, when acc + c + bt provably fits int32 (|bt| ≤ s.fast_bound:
/// max|c| + 32640·K + |bt| < 2^31), so the accumulator REQUIRE holds; acc + bias is added in int32 and
/// its REQUIRE is the signed-overflow test ((v ⊕ y) ∧ (bias ⊕ y)) < 0. Returns the channels where that
/// REQUIRE fails (the caller sets `range_error`).
ARMLOWER_X86_VNNIP_INLINE inline __mmask16 vnni_store_panel_acc32_fast(const vnni_s8_call& s, __m512i acc, std::int32_t ch,
                                                                       std::int32_t b, std::int32_t bt) noexcept {
  const linear_s8_args& a = *s.a;
  vnni_acc32_out& o = *s.acc32;
  const int nv = a.rows - ch < 16 ? a.rows - ch : 16;
  const __m512i v = _mm512_add_epi32(_mm512_add_epi32(acc, _mm512_loadu_si512(s.c32 + ch)), _mm512_set1_epi32(bt));
  const __m512i bv = o.bias_size == 1 ? _mm512_set1_epi32(o.bias[0]) : load_prefix32(o.bias + ch, nv);
  const __m512i y = _mm512_add_epi32(v, bv);
  const __m512i t = _mm512_and_si512(_mm512_xor_si512(v, y), _mm512_xor_si512(bv, y));
  const auto valid = static_cast<__mmask16>(0xFFFFu >> (16 - nv));
  store_prefix32(o.out + static_cast<std::ptrdiff_t>(b) * a.rows + ch, y, nv);
  return static_cast<__mmask16>(_mm512_cmpgt_epi32_mask(_mm512_setzero_si512(), t) & valid);
}

/// Requantizes and stores one 16-channel panel of one batch row from its int32 lanes `acc` (+ c + bt),
/// general form (int64 lanes).
ARMLOWER_X86_VNNIP_INLINE inline void vnni_store_panel(const vnni_s8_call& s, __m512i acc, std::int32_t ch,
                                                       std::int32_t b, std::int64_t bt) noexcept {
  const linear_s8_args& a = *s.a;
  const int nv = a.rows - ch < 16 ? a.rows - ch : 16;
  const __m512i btv = _mm512_set1_epi64(bt);
  const __m512i v0 = _mm512_add_epi64(
      _mm512_add_epi64(cvt32_64(acc, 0),
                       _mm512_loadu_si512(s.c + ch)),
      btv);
  const __m512i v1 = _mm512_add_epi64(
      _mm512_add_epi64(cvt32_64(acc, 1),
                       _mm512_loadu_si512(s.c + ch + 8)),
      btv);
  const __m128i y0 = requant8_vnni(a, s.rq, v0, ch, nv < 8 ? nv : 8);
  __m128i y = y0;
  if (nv > 8) y = _mm_unpacklo_epi64(y0, requant8_vnni(a, s.rq, v1, ch + 8, nv - 8));
  std::int8_t* out = a.output + static_cast<std::ptrdiff_t>(b) * a.rows + ch;
  if (nv == 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), y);
  } else {
    store_prefix8(out, y, nv);
  }
}

/// Channel constants of the fast form for one 16-channel panel (even lanes = channels 0, 2, …,
/// odd lanes = 1, 3, … of the panel, as int64): multipliers q, shifts t = 31 − shift, rounding terms r = 2^(t − 1)
/// (+ 2^30 with double rounding: `vnni_store_panel_fast` subtracts 2^31 where the accumulator is negative).
struct vnni_fast_panel {
  __m512i c32, qe, qo, te, to, re, ro;
};

/// The fast form's rounding term in int64 lanes for shifts t = 31 − shift ≥ 32: 2^(t − 1), + 2^30 with double rounding
/// (`dbl`; `vnni_requant16_fast` then subtracts 2^31 where the accumulator is negative).
ARMLOWER_X86_VNNIP_INLINE inline __m512i vnni_fast_round(__m512i t, bool dbl) noexcept {
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i r = ARMLOWER_Z512(sllv_epi64, all8, one, _mm512_sub_epi64(t, one));
  return dbl ? _mm512_add_epi64(r, _mm512_set1_epi64(std::int64_t{1} << 30)) : r;
}

/// As `make_fast_panel`, with the 16 int32 channel constants `c32` given.
ARMLOWER_X86_VNNIP_INLINE inline vnni_fast_panel make_fast_panel_c(const linear_s8_args& a, const vnni_requant& rq,
                                                                  __m512i c32, std::int32_t ch, int nv) noexcept {
  vnni_fast_panel f;
  f.c32 = c32;
  if (a.per_channel) {
    const __m512i q = load_prefix32(a.multiplier + ch, nv);
    const __m512i t = _mm512_sub_epi32(_mm512_set1_epi32(31), load_prefix32(a.shift + ch, nv));
    f.qe = q;
    f.qo = ARMLOWER_Z512(srli_epi64, all8, q, 32);
    f.te = _mm512_and_si512(t, _mm512_set1_epi64(0xFFFFFFFF));
    f.to = ARMLOWER_Z512(srli_epi64, all8, t, 32);
  } else {
    f.qe = f.qo = rq.q;
    f.te = f.to = rq.total;
  }
  f.re = vnni_fast_round(f.te, rq.dbl);
  f.ro = vnni_fast_round(f.to, rq.dbl);
  return f;
}

ARMLOWER_X86_VNNIP_INLINE inline vnni_fast_panel make_fast_panel(const vnni_s8_call& s, std::int32_t ch,
                                                                int nv) noexcept {
  return make_fast_panel_c(*s.a, s.rq, _mm512_loadu_si512(s.c32 + ch), ch, nv);  // padded to Np: in bounds
}

/// The fast form's requantization of 16 int32 lanes v = acc + c + bt (|v| < 2^31) with the constants f (shifts
/// t ≥ 32): y = clamp((v·q + r (∓ 2^31 where v < 0 with double rounding: `dbl`)) >> t + output_offset), int32 lanes
/// in [activation_min, activation_max]. Exactly `requantize_row_s8` (TFLite `MultiplyByQuantizedMultiplier`).
ARMLOWER_X86_VNNIP_INLINE inline __m512i vnni_requant16_fast(const linear_s8_args& a, const vnni_fast_panel& f,
                                                             __m512i v, bool dbl) noexcept {
  const __m512i vo = ARMLOWER_Z512(srli_epi64, all8, v, 32);
  __m512i te = _mm512_add_epi64(ARMLOWER_Z512(mul_epi32, all8, v, f.qe), f.re);
  __m512i to = _mm512_add_epi64(ARMLOWER_Z512(mul_epi32, all8, vo, f.qo), f.ro);
  if (dbl) {  // 31 − s ≥ 32 > 31: double rounding adds ±2^30 by the sign of v (f.re, f.ro hold +2^30)
    const __m512i h2 = _mm512_set1_epi64(std::int64_t{1} << 31);
    const __mmask8 ne = _mm512_test_epi64_mask(v, _mm512_set1_epi64(std::int64_t{1} << 31));  // even lanes' signs
    const __mmask8 no = _mm512_test_epi64_mask(v, _mm512_set1_epi64(INT64_MIN));           // odd lanes' signs
    te = _mm512_mask_sub_epi64(te, ne, te, h2);
    to = _mm512_mask_sub_epi64(to, no, to, h2);
  }
  const __m512i ye = srav64(te, f.te);  // |y| ≤ 2^(62−32) + 1: int32, +output_offset too
  const __m512i yo = srav64(to, f.to);
  __m512i y = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA), ye, ARMLOWER_Z512(slli_epi64, all8, yo, 32));
  y = _mm512_add_epi32(y, _mm512_set1_epi32(a.output_offset));
  return ARMLOWER_Z512(min_epi32, all16, ARMLOWER_Z512(max_epi32, all16, y, _mm512_set1_epi32(a.activation_min)),
                       _mm512_set1_epi32(a.activation_max));
}

/// Fast form (see file comment) of one panel of one batch row. Preconditions: s.fast_shift and
/// |bt| ≤ s.fast_bound.
ARMLOWER_X86_VNNIP_INLINE inline void vnni_store_panel_fast(const vnni_s8_call& s, const vnni_fast_panel& f,
                                                            __m512i acc, std::int32_t ch, std::int32_t b,
                                                            std::int32_t bt, int nv) noexcept {
  const linear_s8_args& a = *s.a;
  const __m512i v = _mm512_add_epi32(_mm512_add_epi32(acc, f.c32), _mm512_set1_epi32(bt));
  const __m128i y8 = cvt32_8(vnni_requant16_fast(a, f, v, s.rq.dbl));
  std::int8_t* out = a.output + static_cast<std::ptrdiff_t>(b) * a.rows + ch;
  if (nv == 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), y8);
  } else {
    store_prefix8(out, y8, nv);
  }
}

/// Stores one MR-row × NP-panel tile whose int32 lanes D[m][p] are `acc[m·NP + p]` (batch rows
/// [m0, m0+MR), channels from ch0, Σx terms `bt`) in an int32 fast form, when its bounds hold (see the file
/// comment): raw accumulators (`s.acc32`) or requantized. Returns false, having stored nothing, when neither
/// applies (the caller then runs `vnni_tile_store_general`).
template <int MR, int NP>
ARMLOWER_X86_VNNIP_INLINE inline bool vnni_tile_store_fast(const vnni_s8_call& s, std::int32_t ch0, std::int32_t m0,
                                                           const std::int64_t* bt, const __m512i* acc) noexcept {
  const linear_s8_args& a = *s.a;
  bool fits32 = true;  // acc + c + bt fits int32 for every row of the tile
  for (int m = 0; m < MR; ++m) fits32 = fits32 && (bt[m] < 0 ? -bt[m] : bt[m]) <= s.fast_bound;
  if (!fits32 || (s.acc32 == nullptr && !s.fast_shift)) return false;
  if (s.acc32 != nullptr) {
    __mmask16 bad = 0;
#pragma GCC unroll 4
    for (int p = 0; p < NP; ++p) {
      const std::int32_t ch = ch0 + p * vnni_panel;
      if (ch >= a.rows) break;
#pragma GCC unroll 8
      for (int m = 0; m < MR; ++m)
        bad |= vnni_store_panel_acc32_fast(s, acc[m * NP + p], ch, m0 + m, static_cast<std::int32_t>(bt[m]));
    }
    if (bad != 0) s.acc32->range_error = true;
    return true;
  }
#pragma GCC unroll 4
  for (int p = 0; p < NP; ++p) {
    const std::int32_t ch = ch0 + p * vnni_panel;
    if (ch >= a.rows) break;
    const int nv = a.rows - ch < 16 ? a.rows - ch : 16;
    const vnni_fast_panel f = make_fast_panel(s, ch, nv);
#pragma GCC unroll 8
    for (int m = 0; m < MR; ++m) {
      vnni_store_panel_fast(s, f, acc[m * NP + p], ch, m0 + m, static_cast<std::int32_t>(bt[m]), nv);
    }
  }
  return true;
}

/// One panel of batch row `b` in the general forms (int64 lanes; `vnni_store_panel_acc32` or
/// `vnni_store_panel`), its 16 int32 lanes at `d`: out of line, one copy for every tile shape, since the
/// fast forms (`vnni_tile_store_fast`) cover the common calls.
[[gnu::noinline]] ARMLOWER_X86_VNNIP inline void vnni_store_panel_general(const vnni_s8_call& s, const std::int32_t* d,
                                                                          std::int32_t ch, std::int32_t b,
                                                                          std::int64_t bt) noexcept {
  const __m512i acc = _mm512_loadu_si512(d);
  if (s.acc32 != nullptr) {
    vnni_store_panel_acc32(s, acc, ch, b, bt);
  } else {
    vnni_store_panel(s, acc, ch, b, bt);
  }
}

/// `vnni_tile_store_fast`'s tile in the general forms, with D[m][p] at `d + (m·NP + p)·16`.
template <int MR, int NP>
ARMLOWER_X86_VNNIP_INLINE inline void vnni_tile_store_general(const vnni_s8_call& s, std::int32_t ch0, std::int32_t m0,
                                                              const std::int64_t* bt, const std::int32_t* d) noexcept {
  for (int p = 0; p < NP; ++p) {
    const std::int32_t ch = ch0 + p * vnni_panel;
    if (ch >= s.a->rows) break;
    for (int m = 0; m < MR; ++m) vnni_store_panel_general(s, d + std::ptrdiff_t{16} * (m * NP + p), ch, m0 + m, bt[m]);
  }
}

/// The K bytes past the last whole k-group (K % 4 of them) of each of MR input rows from `x`, zero-padded
/// to one int32 each.
template <int MR>
ARMLOWER_X86_VNNIP_INLINE inline void vnni_tails(const vnni_s8_call& s, const std::int8_t* x, std::int32_t (&tail)[MR]) noexcept {
  const std::ptrdiff_t cols = s.a->cols;
  for (int m = 0; m < MR; ++m) {
    tail[m] = 0;
    if (s.has_tail) std::memcpy(&tail[m], x + m * cols + s.full_groups * 4, static_cast<std::size_t>(cols % 4));
  }
}

/// The KU (independent accumulator sets) of an MR × NP tile: enough chains to cover the `vpdpbusd` latency.
template <int MR, int NP>
inline constexpr int vnni_ku = MR * NP >= 8 ? 1 : (MR * NP >= 4 ? 2 : 4);

/// A whole batch-1 call of at most 4 panels (rows ≤ 64) with K ≤ 65536 as one 1 × NP tile, the
/// accumulators kept in registers from the K loop to the fast-form stores (no `vnni_kernel` call, no stack
/// round trip): the fixed cost of a small GEMV layer. Preconditions: a.batches == 1, panels == NP,
/// K ≤ vnni_s8_block.
template <int NP>
ARMLOWER_X86_VNNIP inline void vnni_s8_gemv_small(const vnni_s8_call& s, std::int64_t bt) noexcept {
  const linear_s8_args& a = *s.a;
  std::int32_t tail[1];
  vnni_tails<1>(s, a.input, tail);
  __m512i acc[NP];
  vnni_accumulate<1, NP, vnni_ku<1, NP>>(acc, s.w, std::ptrdiff_t{64} * NP, a.input, a.cols, 0, s.full_groups,
                                         s.has_tail ? tail : nullptr);
  if (vnni_tile_store_fast<1, NP>(s, 0, 0, &bt, acc)) return;
  alignas(64) std::int32_t d[NP * 16];
#pragma GCC unroll 4
  for (int p = 0; p < NP; ++p) _mm512_store_si512(d + std::ptrdiff_t{16} * p, acc[p]);
  vnni_tile_store_general<1, NP>(s, 0, 0, &bt, d);
}

/// One MR-row × NP-panel tile: batch rows [m0, m0+MR), panels p0..p0+NP−1 of group `grp`.
template <int MR, int NP>
ARMLOWER_X86_VNNIP inline void vnni_s8_tile(const vnni_s8_call& s, std::int32_t grp, int gp, int p0, std::int32_t m0,
                                            const std::int64_t* bt) noexcept {
  constexpr int KU = vnni_ku<MR, NP>;
  const linear_s8_args& a = *s.a;
  const std::ptrdiff_t cols = a.cols;
  const std::ptrdiff_t wstride = std::ptrdiff_t{64} * gp;
  const std::uint8_t* w = s.w + static_cast<std::ptrdiff_t>(grp) * vnni_group_panels * vnni_panel * s.kp + std::ptrdiff_t{64} * p0;
  const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(m0) * cols;
  std::int32_t tail[MR];
  vnni_tails<MR>(s, x, tail);
  alignas(64) std::int32_t d[MR * NP * 16];
  const std::int32_t ch0 = (grp * vnni_group_panels + p0) * vnni_panel;
  if (cols <= vnni_s8_block) {
    vnni_kernel<MR, NP, KU>(w, wstride, x, cols, 0, s.full_groups, s.has_tail ? tail : nullptr, d);
    if (!vnni_tile_store_fast<MR, NP>(s, ch0, m0, bt, reinterpret_cast<const __m512i*>(d)))  // __m512i may alias
      vnni_tile_store_general<MR, NP>(s, ch0, m0, bt, d);
    return;
  }
  // K > 65536: exact int32 passes of ≤ 16384 k-groups, summed in int64
  std::int64_t sum[MR * NP * 16] = {};
  constexpr std::ptrdiff_t blk = vnni_s8_block / 4;
  for (std::ptrdiff_t g0 = 0;; g0 += blk) {
    const std::ptrdiff_t g1 = g0 + blk < s.full_groups ? g0 + blk : s.full_groups;
    const bool last = g1 == s.full_groups;  // the K tail (< 4 columns) joins the last pass
    vnni_kernel<MR, NP, KU>(w, wstride, x, cols, g0, g1, last && s.has_tail ? tail : nullptr, d);
    for (int i = 0; i < MR * NP * 16; ++i) sum[i] += d[i];
    if (last) break;
  }
  for (int m = 0; m < MR; ++m) {
    for (int j = 0; j < NP * 16; ++j) {
      const std::int32_t ch = ch0 + j;
      if (ch >= a.rows) continue;
      const std::int64_t v = sum[m * NP * 16 + j] + s.c[ch] + bt[m];
      if (s.acc32 != nullptr) {
        vnni_acc32_out& o = *s.acc32;
        const std::int64_t y = v + o.bias[o.bias_size == 1 ? 0 : ch];
        o.range_error = o.range_error || v < INT32_MIN || v > INT32_MAX || y < INT32_MIN || y > INT32_MAX;
        o.out[static_cast<std::ptrdiff_t>(m0 + m) * a.rows + ch] = static_cast<std::int32_t>(y);
      } else {
        a.output[static_cast<std::ptrdiff_t>(m0 + m) * a.rows + ch] = requantize_row_s8(a, ch, v);
      }
    }
  }
}

/// Runs rows [m0, m0+MR) over one group of `gp` panels with NP-panel tiles.
template <int MR, int NP>
ARMLOWER_X86_VNNIP inline void vnni_s8_group(const vnni_s8_call& s, std::int32_t grp, int gp, std::int32_t m0,
                                             const std::int64_t* bt) noexcept {
  int p0 = 0;
  for (; p0 + NP <= gp; p0 += NP) vnni_s8_tile<MR, NP>(s, grp, gp, p0, m0, bt);
  switch (gp - p0) {
    case 1: vnni_s8_tile<MR, 1>(s, grp, gp, p0, m0, bt); break;
    case 2: if constexpr (NP > 2) vnni_s8_tile<MR, 2>(s, grp, gp, p0, m0, bt); break;
    case 3: if constexpr (NP > 3) vnni_s8_tile<MR, 3>(s, grp, gp, p0, m0, bt); break;
    default: break;
  }
}

/// Batch rows of the widest register tile of `linear_s8_packed_vnni` on CPUs of class `c` for K = `cols`
/// (16 zmm accumulators either way). 4 rows × 64 channels: measured faster than 8 × 32 on Zen 4 for every
/// batch-8 shape, most for weights that stream from memory (one dense pass per group). 8 rows × 32
/// channels on Zen 5 (AMD family 1Ah) for 1024 ≤ K ≤ 2048, where `vpdpbusd` issues twice as fast and the
/// second pass of 4-row tiles over a group's weights costs more than the broadcasts 8-row tiles add: in
/// pairs 1.03–1.10× at 8 × 1024², 1.04–1.06× at 8 × 2048²; no gain at 8 × 4096² (0.98–1.01× over six runs)
/// nor at 8 × 256² (0.98–0.99), where the 4 × 64 tile stays (benchmarks/RESULTS.md, "int8 batch tile on Zen 5").
[[nodiscard]] constexpr std::int32_t vnni_batch_tile_rows(x86_cpu_class c, std::int64_t cols) noexcept {
  return c == x86_cpu_class::amd_family_1ah && cols >= 1024 && cols <= 2048 ? 8 : 4;
}

/// The per-call state of a packed s8 call `a` over the buffer `packed` of geometry `geo` (the row constants, the
/// weights, the fast-form bounds and the requantization constants; `acc32`: the raw-accumulator output instead).
ARMLOWER_X86_VNNIP inline vnni_s8_call make_vnni_s8_call(const linear_s8_args& a, const std::uint8_t* packed,
                                                         const packed_s8_geometry& geo, vnni_acc32_out* acc32) noexcept {
  vnni_s8_call s;
  s.a = &a;
  s.acc32 = acc32;
  std::int64_t cmax = 0;  // the one header field read here (a 64-byte header copy costs a zmm store + reload)
  std::memcpy(&cmax, packed + offsetof(packed_s8_header, cmax), sizeof cmax);
  s.c = reinterpret_cast<const std::int64_t*>(packed + geo.c64);
  s.c32 = reinterpret_cast<const std::int32_t*>(packed + geo.c32);
  s.w = packed + geo.weights;
  s.fast_shift = acc32 == nullptr;  // the requantization constants: not for the raw accumulator output
  for (std::int32_t i = 0; s.fast_shift && i < (a.per_channel ? a.rows : 1); ++i) s.fast_shift = a.shift[i] <= -1;
  s.fast_bound = (std::int64_t{1} << 31) - 1 - cmax - std::int64_t{32640} * a.cols;  // < 0: never fast
  s.kp = round_up(a.cols, 4);
  s.full_groups = a.cols / 4;
  s.has_tail = a.cols % 4 != 0;
  if (acc32 == nullptr) s.rq = make_vnni_requant(a);
  return s;
}

/// The Σx term (filter_offset − 128)·Σx of batch row m of `a` (see the file comment).
ARMLOWER_X86_VNNIP inline std::int64_t vnni_sum_term(const linear_s8_args& a, std::int32_t m) noexcept {
  const std::int64_t f = a.filter_offset - 128;
  return f == 0 ? 0 : f * sum_s8_vnni(a.input + static_cast<std::ptrdiff_t>(m) * a.cols, a.cols);
}

/// AVX-512 VNNI s8 fused linear over a buffer written by `kernels::pack_linear_s8`.
/// Preconditions: `validate(a) == ok`, the buffer's header matches `a` (checked by the caller),
/// `geo` = `packed_s8_layout(a.rows, a.cols)` (the caller's, already computed), CPU has AVX-512 F/BW/VL/VNNI.
/// `acc32`: write raw int32 accumulators + bias there instead of requantizing (`vnni_acc32_out`; the
/// buffer must then be packed without bias or kernel_sum). `cpu`: the CPU class whose register tiles
/// to use (`vnni_batch_tile_rows`; this CPU's by default — any class gives the same bytes).
ARMLOWER_X86_VNNIP inline void linear_s8_packed_vnni(const linear_s8_args& args, const std::uint8_t* packed,
                                                     const packed_s8_geometry& geo, vnni_acc32_out* acc32 = nullptr,
                                                     x86_cpu_class cpu = x86_cpu_class_cached()) noexcept {
  // read in place: a whole-struct copy here (one 64-byte load) waits for the caller's last field
  // stores (no store-to-load forwarding across them): ≈ 30 cycles per call, 4 % of a 1 × 64² call
  const linear_s8_args& a = args;
  const std::ptrdiff_t np = round_up(a.rows, vnni_panel);
  const vnni_s8_call s = make_vnni_s8_call(a, packed, geo, acc32);
  const std::int32_t panels = static_cast<std::int32_t>(np / vnni_panel);
  const std::int32_t groups = (panels + vnni_group_panels - 1) / vnni_group_panels;
  const std::int32_t max_mr = vnni_batch_tile_rows(cpu, a.cols);  // 4 (4 × 64 tiles) or 8 (8 × 32 tiles)
  const auto sum_term = [&a](std::int32_t m) { return vnni_sum_term(a, m); };
  if (groups == 1 && a.batches == 1 && a.cols <= vnni_s8_block) {  // one tile: `vnni_s8_gemv_small`
    const std::int64_t bt = sum_term(0);
    switch (panels) {
      case 1: vnni_s8_gemv_small<1>(s, bt); break;
      case 2: vnni_s8_gemv_small<2>(s, bt); break;
      case 3: vnni_s8_gemv_small<3>(s, bt); break;
      default: vnni_s8_gemv_small<4>(s, bt); break;
    }
    return;
  }
  for (std::int32_t mb = 0; mb < a.batches; mb += 64) {  // Σx terms for up to 64 rows at a time
    const std::int32_t me = mb + 64 < a.batches ? mb + 64 : a.batches;
    std::int64_t bt[64];
    for (std::int32_t m = mb; m < me; ++m) bt[m - mb] = sum_term(m);
    for (std::int32_t grp = 0; grp < groups; ++grp) {
      const int gp = panels - grp * vnni_group_panels < vnni_group_panels ? panels - grp * vnni_group_panels
                                                                            : vnni_group_panels;
      for (std::int32_t m0 = mb; m0 < me;) {
        std::int32_t mr = me - m0 < max_mr ? me - m0 : max_mr;
        const std::int64_t* b = bt + (m0 - mb);
        if (mr == 8) {
          vnni_s8_group<8, 2>(s, grp, gp, m0, b);
          m0 += mr;
          continue;
        }
        mr = mr < 4 ? mr : 4;
        switch (mr) {
          case 1: vnni_s8_group<1, 4>(s, grp, gp, m0, b); break;
          case 2: vnni_s8_group<2, 4>(s, grp, gp, m0, b); break;
          case 3: vnni_s8_group<3, 4>(s, grp, gp, m0, b); break;
          default: vnni_s8_group<4, 4>(s, grp, gp, m0, b); break;
        }
        m0 += mr;
      }
    }
  }
}

#undef ARMLOWER_X86_VNNIP
#undef ARMLOWER_X86_VNNIP_INLINE

}  // namespace armlower::kernels::detail
