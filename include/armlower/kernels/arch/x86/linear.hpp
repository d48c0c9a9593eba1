/// @file armlower/kernels/arch/x86/linear.hpp
/// x86-64 paths of the fused linear kernels (contract: `kernels/linear_args.hpp`): AVX2 and
/// AVX-512 VNNI. Compiled with per-function `target` attributes, so the including translation unit
/// needs no `-mavx2`; `kernels/linear.hpp` calls them only after a cpuid check.
///
/// Arithmetic (`../shared/reference/kernels.md` §5.2):
/// - AVX2 s8: x and w sign-extended to int16 (`vpmovsxbw`), the input offset folded into x once per
///   column block (`x' = x + input_offset`, |x'| ≤ 383), `vpmaddwd` into int32 lanes, 4 rows × 32
///   columns per step. `acc = bias + Σ x'·w + filter_offset·Σ x'` (bias form) or
///   `acc = kernel_sum + Σ x·w + filter_offset·Σ x` (kernel_sum form) — the same integers as the contract.
/// - AVX-512 VNNI s8: `vpdpbusd` needs an unsigned left operand: `u = x ⊕ 0x80 = x + 128`, so
///   `Σ x·w = Σ u·w − 128·Σ w`; `Σ w` is accumulated alongside with `vpdpbusd(1, w)` (no scratch needed).
///   Untested on machines without AVX-512 VNNI (the dispatcher never selects it there).
/// - AVX2 s16×s8: x int16, w sign-extended to int16, `vpmaddwd` (|x·w| ≤ 2^22, so int32 lanes are
///   exact for 2048-column blocks), int64 accumulation across blocks.
/// int32 lane sums are flushed into int64 every `block` columns, so every path is exact for any K.
#pragma once

#include <cstddef>
#include <cstdint>

#include <immintrin.h>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/linear_args.hpp>

namespace armlower::kernels::detail {

/// True if the CPU and OS support AVX2 (cpuid + xgetbv via the compiler runtime).
[[nodiscard]] inline bool x86_has_avx2() noexcept { return __builtin_cpu_supports("avx2"); }

/// True if the CPU and OS support AVX-512 F + BW + VNNI.
[[nodiscard]] inline bool x86_has_avx512_vnni() noexcept {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

#define ARMLOWER_X86_AVX2 __attribute__((target("avx2")))
#define ARMLOWER_X86_VNNI __attribute__((target("avx2,avx512f,avx512bw,avx512vnni")))

ARMLOWER_X86_AVX2 inline std::int64_t hsum_epi32_avx2(__m256i v) noexcept {
  // widen to int64 before adding so that the sum of 8 lanes is exact
  const __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
  const __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
  const __m256i s = _mm256_add_epi64(lo, hi);
  const __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  return _mm_cvtsi128_si64(t) + _mm_extract_epi64(t, 1);
}

/// Σ_c (x[c] + xoff)·w[r][c] for `nr` (1..4) consecutive rows, columns [k0, k1), exact in int64.
/// Preconditions: k1 − k0 ≤ 8192.
ARMLOWER_X86_AVX2 inline void dot_rows_s8_avx2(const std::int8_t* x, const std::int8_t* const* w, int nr,
                                               std::ptrdiff_t k0, std::ptrdiff_t k1, std::int16_t xoff,
                                               std::int64_t* out) noexcept {
  const __m256i off = _mm256_set1_epi16(xoff);
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  __m256i b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  std::ptrdiff_t k = k0;
  if (nr == 4) {
    for (; k + 32 <= k1; k += 32) {
      const __m256i xa = _mm256_add_epi16(
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k))), off);
      const __m256i xb = _mm256_add_epi16(
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k + 16))), off);
#define ARMLOWER_ROW(i, A, B)                                                                               \
  A = _mm256_add_epi32(A, _mm256_madd_epi16(xa, _mm256_cvtepi8_epi16(                                       \
                                                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k))))); \
  B = _mm256_add_epi32(B, _mm256_madd_epi16(xb, _mm256_cvtepi8_epi16(                                       \
                                                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k + 16)))));
      ARMLOWER_ROW(0, a0, b0)
      ARMLOWER_ROW(1, a1, b1)
      ARMLOWER_ROW(2, a2, b2)
      ARMLOWER_ROW(3, a3, b3)
#undef ARMLOWER_ROW
    }
  }
  for (; k + 16 <= k1; k += 16) {
    const __m256i xa = _mm256_add_epi16(
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k))), off);
    __m256i* acc[4] = {&a0, &a1, &a2, &a3};
    for (int i = 0; i < nr; ++i) {
      *acc[i] = _mm256_add_epi32(
          *acc[i], _mm256_madd_epi16(xa, _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k)))));
    }
  }
  const __m256i sums[4] = {_mm256_add_epi32(a0, b0), _mm256_add_epi32(a1, b1), _mm256_add_epi32(a2, b2),
                           _mm256_add_epi32(a3, b3)};
  for (int i = 0; i < nr; ++i) {
    std::int64_t s = hsum_epi32_avx2(sums[i]);
    for (std::ptrdiff_t t = k; t < k1; ++t) s += static_cast<std::int64_t>(x[t] + xoff) * w[i][t];
    out[i] += s;
  }
}

/// AVX2 s8 fused linear. Preconditions: `validate(a) == ok`, CPU has AVX2.
ARMLOWER_X86_AVX2 inline void linear_s8_avx2(const linear_s8_args& a) noexcept {
  const std::ptrdiff_t cols = a.cols;
  const bool ks = a.kernel_sum != nullptr;
  // kernel_sum form: x' = x (raw), constant = kernel_sum; bias form: x' = x + input_offset.
  const auto xoff = static_cast<std::int16_t>(ks ? 0 : a.input_offset);
  for (std::int32_t r0 = 0; r0 < a.rows; r0 += 4) {
    const int nr = a.rows - r0 < 4 ? a.rows - r0 : 4;
    const std::int8_t* w[4];
    for (int i = 0; i < 4; ++i) w[i] = a.weights + static_cast<std::ptrdiff_t>(r0 + (i < nr ? i : 0)) * cols;
    for (std::int32_t b = 0; b < a.batches; ++b) {
      const std::int8_t* x = a.input + b * cols;
      std::int64_t acc[4] = {0, 0, 0, 0};
      for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += s8_block_with_offsets) {
        const std::ptrdiff_t k1 = k0 + s8_block_with_offsets < cols ? k0 + s8_block_with_offsets : cols;
        dot_rows_s8_avx2(x, w, nr, k0, k1, xoff, acc);
      }
      std::int64_t xsum = 0;  // Σ x' (only needed with a filter offset)
      if (a.filter_offset != 0) {
        for (std::ptrdiff_t k = 0; k < cols; ++k) xsum += x[k];
        xsum += static_cast<std::int64_t>(xoff) * cols;
      }
      for (int i = 0; i < nr; ++i) {
        const std::int32_t r = r0 + i;
        const std::int64_t c = ks ? a.kernel_sum[r] : (a.bias != nullptr ? a.bias[r] : 0);
        const std::int64_t v = c + acc[i] + static_cast<std::int64_t>(a.filter_offset) * xsum;
        a.output[b * a.rows + r] = requantize_row_s8(a, r, v);
      }
    }
  }
}

/// AVX2 s16×s8 fused linear. Preconditions: `validate(a) == ok`, CPU has AVX2.
ARMLOWER_X86_AVX2 inline void linear_s16_avx2(const linear_s16_args& a) noexcept {
  constexpr std::ptrdiff_t block = 2048;  // 128 vpmaddwd steps per lane: |lane| ≤ 128·2^23 = 2^30
  const std::ptrdiff_t cols = a.cols;
  for (std::int32_t r0 = 0; r0 < a.rows; r0 += 4) {
    const int nr = a.rows - r0 < 4 ? a.rows - r0 : 4;
    const std::int8_t* w[4];
    for (int i = 0; i < 4; ++i) w[i] = a.weights + static_cast<std::ptrdiff_t>(r0 + (i < nr ? i : 0)) * cols;
    for (std::int32_t b = 0; b < a.batches; ++b) {
      const std::int16_t* x = a.input + b * cols;
      std::int64_t acc[4] = {0, 0, 0, 0};
      for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += block) {
        const std::ptrdiff_t k1 = k0 + block < cols ? k0 + block : cols;
        __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                        _mm256_setzero_si256()};
        std::ptrdiff_t k = k0;
        if (nr == 4) {
          for (; k + 16 <= k1; k += 16) {
            const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + k));
            for (int i = 0; i < 4; ++i) {
              s[i] = _mm256_add_epi32(
                  s[i], _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k)))));
            }
          }
        } else {
          for (; k + 16 <= k1; k += 16) {
            const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + k));
            for (int i = 0; i < nr; ++i) {
              s[i] = _mm256_add_epi32(
                  s[i], _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w[i] + k)))));
            }
          }
        }
        for (int i = 0; i < nr; ++i) {
          std::int64_t t = hsum_epi32_avx2(s[i]);
          for (std::ptrdiff_t kk = k; kk < k1; ++kk) t += static_cast<std::int64_t>(x[kk]) * w[i][kk];
          acc[i] += t;
        }
      }
      for (int i = 0; i < nr; ++i) {
        const std::int32_t r = r0 + i;
        const std::int64_t v = a.bias != nullptr ? add_sat64(acc[i], a.bias[r]) : acc[i];
        a.output[b * a.rows + r] = requantize_row_s16(a, r, v);
      }
    }
  }
}

/// AVX-512 VNNI s8 fused linear (`vpdpbusd`, unsigned-offset trick). Preconditions: `validate(a) == ok`,
/// CPU has AVX-512 F/BW/VNNI.
ARMLOWER_X86_VNNI inline void linear_s8_avx512_vnni(const linear_s8_args& a) noexcept {
  const std::ptrdiff_t cols = a.cols;
  const bool ks = a.kernel_sum != nullptr;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i ones = _mm512_set1_epi8(1);
  for (std::int32_t r0 = 0; r0 < a.rows; r0 += 4) {
    const int nr = a.rows - r0 < 4 ? a.rows - r0 : 4;
    const std::int8_t* w[4];
    for (int i = 0; i < 4; ++i) w[i] = a.weights + static_cast<std::ptrdiff_t>(r0 + (i < nr ? i : 0)) * cols;
    for (std::int32_t b = 0; b < a.batches; ++b) {
      const std::int8_t* x = a.input + b * cols;
      std::int64_t uw[4] = {0, 0, 0, 0};    // Σ u·w, u = x + 128
      std::int64_t wsum[4] = {0, 0, 0, 0};  // Σ w
      for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += s8_block_with_offsets) {
        const std::ptrdiff_t k1 = k0 + s8_block_with_offsets < cols ? k0 + s8_block_with_offsets : cols;
        __m512i s[4], t[4];
        for (int i = 0; i < 4; ++i) s[i] = t[i] = _mm512_setzero_si512();
        std::ptrdiff_t k = k0;
        for (; k + 64 <= k1; k += 64) {
          const __m512i u = _mm512_xor_si512(_mm512_loadu_si512(x + k), flip);
          for (int i = 0; i < nr; ++i) {
            const __m512i wv = _mm512_loadu_si512(w[i] + k);
            s[i] = _mm512_dpbusd_epi32(s[i], u, wv);
            t[i] = _mm512_dpbusd_epi32(t[i], ones, wv);
          }
        }
        if (k < k1) {  // masked tail: zero bytes contribute nothing to either sum
          const __mmask64 m = _cvtu64_mask64((~std::uint64_t{0}) >> (64 - (k1 - k)));
          const __m512i um = _mm512_maskz_mov_epi8(m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, x + k), flip));
          for (int i = 0; i < nr; ++i) {
            const __m512i wv = _mm512_maskz_loadu_epi8(m, w[i] + k);
            s[i] = _mm512_dpbusd_epi32(s[i], um, wv);
            t[i] = _mm512_dpbusd_epi32(t[i], ones, wv);
          }
        }
        for (int i = 0; i < nr; ++i) {
          // |lane| ≤ 128 steps · 4 · 255 · 128 < 2^24 and 16 lanes < 2^28: the int32 reduction is exact
          // (stored and summed in scalar code: GCC 12's 512-bit extract intrinsics trip -Wmaybe-uninitialized)
          std::int32_t ls[16], lt[16];
          _mm512_storeu_si512(ls, s[i]);
          _mm512_storeu_si512(lt, t[i]);
          for (int j = 0; j < 16; ++j) {
            uw[i] += ls[j];
            wsum[i] += lt[j];
          }
        }
      }
      std::int64_t xsum = 0;
      if (a.filter_offset != 0) {
        for (std::ptrdiff_t k = 0; k < cols; ++k) xsum += x[k];
      }
      for (int i = 0; i < nr; ++i) {
        const std::int32_t r = r0 + i;
        const std::int64_t xw = uw[i] - 128 * wsum[i];  // Σ x·w
        std::int64_t v = 0;
        if (ks) {
          v = static_cast<std::int64_t>(a.kernel_sum[r]) + xw + static_cast<std::int64_t>(a.filter_offset) * xsum;
        } else {
          // Σ (x+io)(w+fo) = Σxw + io·Σw + fo·Σx + cols·io·fo
          v = (a.bias != nullptr ? a.bias[r] : 0) + xw + static_cast<std::int64_t>(a.input_offset) * wsum[i] +
              static_cast<std::int64_t>(a.filter_offset) * xsum +
              static_cast<std::int64_t>(cols) * a.input_offset * a.filter_offset;
        }
        a.output[b * a.rows + r] = requantize_row_s8(a, r, v);
      }
    }
  }
}

#undef ARMLOWER_X86_AVX2
#undef ARMLOWER_X86_VNNI

}  // namespace armlower::kernels::detail
