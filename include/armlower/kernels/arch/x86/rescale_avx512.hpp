/// @file armlower/kernels/arch/x86/rescale_avx512.hpp
/// TOSA RESCALE of the rows a lowered linear layer ends with, eight elements per AVX-512 step (sixteen,
/// in int32 lanes, for the int8 lowering's per-tensor row with shift > 32): INT32
/// input with `scale32` (the int8 CONV2D accumulator → INT8/INT16/INT32) and INT48 input without it (the
/// a16w8 accumulator → INT16/INT8/INT32), signed, per tensor or per channel, SINGLE_ROUND or
/// DOUBLE_ROUND. Bit-identical with the portable loop (`detail::rescale_loop`, TOSA 1.0 RESCALE
/// and `apply_scale_32` / `apply_scale_16` of `scale_helpers.tosac`): each element in an int64 lane,
/// v·multiplier + round shifted right arithmetically by its shift, the REQUIREs on values or-ed into one
/// flag. Firmware builds never include it (x86 hosts only); chosen at run time when the CPU has
/// AVX-512 F, DQ and VL (`x86_has_avx512_dq_vl`).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/rescale_args.hpp>

namespace armlower::kernels::detail {

/// True if the CPU and OS support AVX-512 F, DQ and VL (cpuid + xgetbv via the compiler runtime).
[[nodiscard]] inline bool x86_has_avx512_dq_vl() noexcept {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}

/// True when `rescale_avx512` runs the row of `a`: signed INT32 input with scale32, or INT48 input
/// without it (either has input_zp 0), to a signed INT8/INT16/INT32 output.
[[nodiscard]] inline bool rescale_avx512_row(const rescale_args& a) noexcept {
  const bool row = (a.in_t == dtype::id::i32 && a.scale32) || (a.in_t == dtype::id::i48 && !a.scale32);
  return row && !a.input_unsigned && !a.output_unsigned;
}

/// RESCALE of `a` (preconditions: `validate(a, &p) == ok`, `rescale_avx512_row(a)`, the CPU has AVX-512
/// F, DQ and VL). Returns true when a REQUIRE on the values failed (`value_out_of_range`); every element is
/// written either way.
template <class In, class Out, bool PerChannel>
__attribute__((target("avx512f,avx512dq,avx512vl"))) inline bool rescale_avx512_elements(const rescale_args& a,
                                                                                 const rescale_plan& p) noexcept {
  constexpr bool scale32 = sizeof(In) == 4;  // INT32 input: apply_scale_32; INT48 (int64 storage): apply_scale_16
  const auto* in = static_cast<const In*>(a.input);
  auto* out = static_cast<Out*>(a.output);
  const std::size_t nc = PerChannel ? static_cast<std::size_t>(a.channels) : a.count;
  const std::size_t rows = a.count / nc;
  const __m512i one = _mm512_set1_epi64(1), c32 = _mm512_set1_epi64(32), c31 = _mm512_set1_epi64(31);
  const __m512i i32min = _mm512_set1_epi64(INT32_MIN), i32max = _mm512_set1_epi64(INT32_MAX);
  const __m512i i48min = _mm512_set1_epi64(-(std::int64_t{1} << 47)), i48max = _mm512_set1_epi64((std::int64_t{1} << 47) - 1);
  const __m512i out_zp = _mm512_set1_epi64(p.out_zp), out_min = _mm512_set1_epi64(p.out_min), out_max = _mm512_set1_epi64(p.out_max);
  const __m512i dadj = _mm512_set1_epi64(a.rounding == quant::rounding::double_round ? std::int64_t{1} << 30 : 0);
  const bool zp = p.out_zp != 0;  // only then can the output add leave int32
  // the zero-masked forms with every lane on: GCC 12 warns on the unmasked forms' undefined
  // pass-through operand (GCC bug 105593); the same instructions
  constexpr __mmask8 all = 0xFF;
  __mmask8 bad = 0;
  const __m512i m_all = _mm512_set1_epi64(a.multiplier[0]), s_all = _mm512_set1_epi64(a.shift[0]);
  for (std::size_t r = 0; r < rows; ++r) {
    const In* x = in + r * nc;
    Out* y = out + r * nc;
    for (std::size_t c = 0; c < nc; c += 8) {
      const __mmask8 k = nc - c >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1U << (nc - c)) - 1U);
      __m512i v;
      if constexpr (scale32) v = _mm512_maskz_cvtepi32_epi64(all, _mm256_maskz_loadu_epi32(k, x + c));
      else v = _mm512_maskz_loadu_epi64(k, x + c);
      const __m512i m = PerChannel ? _mm512_maskz_cvtepi32_epi64(all, _mm256_maskz_loadu_epi32(k, a.multiplier + c)) : m_all;
      // per-channel shifts of the masked-off lanes are 0: give them 2 so their (unused) lanes stay defined
      const __m512i s = PerChannel ? _mm512_mask_cvtepi32_epi64(_mm512_set1_epi64(2), k, _mm256_maskz_loadu_epi32(k, a.shift + c)) : s_all;
      const __m512i half = _mm512_maskz_sllv_epi64(all, one, _mm512_sub_epi64(s, one));
      __m512i t;
      if constexpr (scale32) {
        // REQUIRE −2^(shift−1) ≤ v < 2^(shift−1) when shift ≤ 32
        const __mmask8 narrow = _mm512_cmple_epi64_mask(s, c32);
        bad |= k & narrow & (_mm512_cmplt_epi64_mask(v, _mm512_sub_epi64(_mm512_setzero_si512(), half)) | _mm512_cmpge_epi64_mask(v, half));
        // DOUBLE_ROUND and shift > 31: ±2^30 by the sign of v
        const __mmask8 dbl = _mm512_cmpgt_epi64_mask(s, c31);
        const __m512i adj = _mm512_mask_blend_epi64(_mm512_cmplt_epi64_mask(v, _mm512_setzero_si512()), dadj, _mm512_sub_epi64(_mm512_setzero_si512(), dadj));
        const __m512i rnd = _mm512_mask_add_epi64(half, dbl, half, adj);
        // v and m are int32 values; the result fits int32 (so the pseudocode's int32 cast changes nothing):
        // |v| < 2^(shift−1) for shift ≤ 32 gives |v·m| < 2^(shift+30), else |v·m| < 2^62 and shift ≥ 33
        t = _mm512_maskz_srav_epi64(all, _mm512_add_epi64(_mm512_maskz_mul_epi32(all, v, m), rnd), s);
      } else {
        bad |= k & (_mm512_cmplt_epi64_mask(v, i48min) | _mm512_cmpgt_epi64_mask(v, i48max));
        t = _mm512_maskz_srav_epi64(all, _mm512_add_epi64(_mm512_maskz_mullo_epi64(all, v, m), half), s);
        bad |= k & (_mm512_cmplt_epi64_mask(t, i32min) | _mm512_cmpgt_epi64_mask(t, i32max));
      }
      const __m512i z = _mm512_add_epi64(t, out_zp);
      if (zp) bad |= k & (_mm512_cmplt_epi64_mask(z, i32min) | _mm512_cmpgt_epi64_mask(z, i32max));
      const __m512i q = _mm512_maskz_min_epi64(all, _mm512_maskz_max_epi64(all, z, out_min), out_max);
      if constexpr (sizeof(Out) == 1) _mm512_mask_cvtepi64_storeu_epi8(y + c, k, q);
      else if constexpr (sizeof(Out) == 2) _mm512_mask_cvtepi64_storeu_epi16(y + c, k, q);
      else _mm512_mask_cvtepi64_storeu_epi32(y + c, k, q);
    }
  }
  return bad != 0;
}

/// int64 lanes of v·m + half ± dadj (the sign of v: `sign` all-ones when v < 0; dadj 2^30 for DOUBLE_ROUND,
/// else 0), shifted right arithmetically by `cnt`; `vpmuldq` reads the low 32 bits of `v64` and `m`.
[[gnu::always_inline]] __attribute__((target("avx512f,avx512dq,avx512vl"))) inline __m512i rescale_avx512_scaled(
    __m512i v64, __m512i sign, __m512i m, __m512i half, __m512i dadj, __m128i cnt) noexcept {
  constexpr __mmask8 all = 0xFF;
  const __m512i adj = _mm512_sub_epi64(_mm512_xor_si512(dadj, sign), sign);
  return _mm512_maskz_sra_epi64(all, _mm512_add_epi64(_mm512_maskz_mul_epi32(all, v64, m), _mm512_add_epi64(half, adj)), cnt);
}

/// The most common row — INT32 input, scale32, one multiplier and shift, shift > 32 — sixteen elements per
/// step in int32 lanes (preconditions: those of `rescale_avx512_elements`, `!a.per_channel`,
/// `a.shift[0] > 32`): the products v·m of the even and odd lanes (`vpmuldq`), shifted by the one shift,
/// put back into int32 lanes. Nothing can fail here: apply_scale_32 has no value REQUIRE for shift > 32,
/// and |result| < 2^62 / 2^33 = 2^29, so adding an output zero point (|zp| ≤ 32768) stays in int32.
template <class Out>
__attribute__((target("avx512f,avx512dq,avx512vl"))) inline void rescale_avx512_wide_shift(const rescale_args& a,
                                                                                     const rescale_plan& p) noexcept {
  constexpr __mmask8 all = 0xFF;  // zero-masked forms, every lane on (see `rescale_avx512_elements`)
  const auto* x = static_cast<const std::int32_t*>(a.input);
  auto* y = static_cast<Out*>(a.output);
  const std::int32_t sh = a.shift[0];
  const __m512i m = _mm512_set1_epi64(a.multiplier[0]);
  const __m128i cnt = _mm_cvtsi32_si128(sh);
  const __m512i half = _mm512_set1_epi64(std::int64_t{1} << (sh - 1));
  const __m512i dadj = _mm512_set1_epi64(a.rounding == quant::rounding::double_round ? std::int64_t{1} << 30 : 0);
  const __m512i zp = _mm512_set1_epi32(static_cast<std::int32_t>(p.out_zp));
  const __m512i lo = _mm512_set1_epi32(static_cast<std::int32_t>(p.out_min)), hi = _mm512_set1_epi32(static_cast<std::int32_t>(p.out_max));
  for (std::size_t i = 0; i < a.count; i += 16) {
    const __mmask16 k = a.count - i >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1U << (a.count - i)) - 1U);
    const __m512i v = _mm512_maskz_loadu_epi32(k, x + i);
    const __m512i ve = _mm512_maskz_slli_epi64(all, v, 32);   // even elements in the high halves
    const __m512i te = rescale_avx512_scaled(v, _mm512_maskz_srai_epi64(all, ve, 63), m, half, dadj, cnt);  // vpmuldq reads the low halves
    const __m512i to = rescale_avx512_scaled(_mm512_maskz_srli_epi64(all, v, 32), _mm512_maskz_srai_epi64(all, v, 63), m, half, dadj, cnt);  // odd
    const __m512i t = _mm512_mask_blend_epi32(0xAAAA, te, _mm512_maskz_slli_epi64(all, to, 32));
    const __m512i q = _mm512_maskz_min_epi32(0xFFFF, _mm512_maskz_max_epi32(0xFFFF, _mm512_add_epi32(t, zp), lo), hi);
    if constexpr (sizeof(Out) == 1) _mm512_mask_cvtepi32_storeu_epi8(y + i, k, q);
    else if constexpr (sizeof(Out) == 2) _mm512_mask_cvtepi32_storeu_epi16(y + i, k, q);
    else _mm512_mask_storeu_epi32(y + i, k, q);
  }
}

/// `rescale_avx512_elements` for the row of `a` (preconditions as there).
template <class Out>
__attribute__((target("avx512f,avx512dq,avx512vl"))) inline bool rescale_avx512_out(const rescale_args& a, const rescale_plan& p) noexcept {
  if (a.in_t == dtype::id::i32 && !a.per_channel && a.shift[0] > 32) {
    rescale_avx512_wide_shift<Out>(a, p);
    return false;
  }
  if (a.in_t == dtype::id::i32)
    return a.per_channel ? rescale_avx512_elements<std::int32_t, Out, true>(a, p) : rescale_avx512_elements<std::int32_t, Out, false>(a, p);
  return a.per_channel ? rescale_avx512_elements<std::int64_t, Out, true>(a, p) : rescale_avx512_elements<std::int64_t, Out, false>(a, p);
}

/// RESCALE of `a` on AVX-512 (preconditions: `validate(a, &p) == ok`, `rescale_avx512_row(a)`, the CPU
/// has AVX-512 F, DQ and VL): true when a REQUIRE on the values failed.
[[nodiscard]] inline bool rescale_avx512(const rescale_args& a, const rescale_plan& p) noexcept {
  if (a.out_t == dtype::id::i8) return rescale_avx512_out<std::int8_t>(a, p);
  if (a.out_t == dtype::id::i16) return rescale_avx512_out<std::int16_t>(a, p);
  return rescale_avx512_out<std::int32_t>(a, p);
}

}  // namespace armlower::kernels::detail
