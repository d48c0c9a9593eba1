/// @file armlower/kernels/arch/x86/linear_s16_avx2_pairs.hpp
/// AVX2 a16w8 fused linear (s16 × s8 → s16, int64 bias) over the `avx2_pairs` weight layout
/// (`kernels/detail/linear_s8_packed_layout.hpp`, written by `kernels::pack_linear_s16` on AVX2-only
/// CPUs): the packed path of `kernels/linear_s16_packed.hpp` there. Contract: `kernels/linear_args.hpp`
/// (same integers as `linear_s16_avx2` and the generic path).
///
/// Form: the s8 column-pair kernel's register tile (`pairs_block_avx2`, arch/x86/linear_avx2_pairs.hpp):
/// one `vpmovsxbw` gives a column pair of 8 channels as int16, the int16 input pair of batch row m is
/// broadcast, `vpmaddwd` adds 8 channels × 2 columns per instruction; one widened weight vector serves
/// up to 8 batch rows. The input is copied (already int16) into the kernel's stack buffer with zero
/// padding. Exactness: one `vpmaddwd` lane is ≤ 2·32768·128 = 2^23, so an int32 lane over
/// `avx2_s16_pairs_np` = 248 pairs (496 columns) stays below 2^31; those sums are added in int64, so any K
/// is exact (the int48/int64 accumulator of the contract). Requantization: 8 channels at a time
/// (`store8_s16_avx2`, arch/x86/requant_s16_avx2.hpp). Source of the semantics: CMSIS-NN
/// `arm_fully_connected_s16`.
/// Firmware-clean (host only): noexcept, no heap, no static data.
#pragma once

#include <cstddef>
#include <cstdint>

#include <immintrin.h>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/x86/linear_avx2_pairs.hpp>
#include <armlower/kernels/arch/x86/requant_s16_avx2.hpp>
#include <armlower/kernels/linear_args.hpp>

namespace armlower::kernels::detail {

/// Column pairs per exact int32 pass of `pairs_block_avx2` for int16 inputs (a multiple of 8; file comment).
inline constexpr std::ptrdiff_t avx2_s16_pairs_np = 248;

/// Copies x[m][k0 + j] for j < n (n ≤ avx2_pairs_kb<MB>), then zeros up to the next multiple of 16, into
/// row m of `xb` (stride avx2_pairs_kb<MB>), for the MB rows of `x` (stride cols).
template <int MB>
__attribute__((target("avx2"))) inline void pairs_copy_x16_avx2(const std::int16_t* x, std::ptrdiff_t cols,
                                                                std::ptrdiff_t k0, std::ptrdiff_t n,
                                                                std::int16_t* xb) noexcept {
  for (int m = 0; m < MB; ++m) {
    const std::int16_t* xr = x + m * cols + k0;
    std::int16_t* d = xb + m * avx2_pairs_kb<MB>;
    std::ptrdiff_t j = 0;
    for (; j + 16 <= n; j += 16) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(d + j), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + j)));
    }
    if (j < n) {
      for (std::ptrdiff_t t = 0; t < 16; ++t) d[j + t] = j + t < n ? xr[j + t] : std::int16_t{0};
    }
  }
}

/// Batch rows b0 .. b0+MB−1 of `linear_s16_pairs_avx2`.
template <int MB>
__attribute__((target("avx2"))) inline void linear_s16_pairs_rows_avx2(const linear_s16_args& a, const std::int8_t* packed,
                                                                       std::int32_t b0) noexcept {
  constexpr int G = pairs_groups_avx2<MB>;
  constexpr std::ptrdiff_t kb = avx2_pairs_kb<MB>;
  const std::ptrdiff_t cols = a.cols;
  const std::ptrdiff_t gstride = (cols + 15) / 16 * 128;  // bytes per group of 8 channels
  const std::ptrdiff_t groups = (a.rows + 7) / 8;
  const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(b0) * cols;
  alignas(32) std::int16_t xb[MB * kb];
  alignas(32) std::int64_t part[avx2_pairs_sg * MB * 8];
  const bool one_block = cols <= kb;  // then the input is copied once for all passes
  if (one_block) pairs_copy_x16_avx2<MB>(x, cols, 0, cols, xb);
  for (std::ptrdiff_t g0 = 0; g0 < groups; g0 += avx2_pairs_sg) {
    const std::ptrdiff_t gn = groups - g0 < avx2_pairs_sg ? groups - g0 : avx2_pairs_sg;
    for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += kb) {
      const std::ptrdiff_t n = cols - k0 < kb ? cols - k0 : kb;
      if (!one_block) pairs_copy_x16_avx2<MB>(x, cols, k0, n, xb);
      const std::ptrdiff_t np = (n + 15) / 16 * 8;
      for (std::ptrdiff_t p0 = 0; p0 < np; p0 += avx2_s16_pairs_np) {  // exact int32 passes, summed in int64
        const std::ptrdiff_t pn = np - p0 < avx2_s16_pairs_np ? np - p0 : avx2_s16_pairs_np;
        const std::int8_t* w = packed + g0 * gstride + (k0 / 2 + p0) * 16;  // 16 bytes per pair
        const bool first = k0 == 0 && p0 == 0;
        constexpr std::ptrdiff_t gp = std::ptrdiff_t{MB} * 8;  // part elements per group
        std::ptrdiff_t g = 0;
        for (; g + G <= gn; g += G) pairs_block_avx2<MB, G>(xb + 2 * p0, w + g * gstride, gstride, pn, part + g * gp, gp, first);
        for (; g < gn; ++g) pairs_block_avx2<MB, 1>(xb + 2 * p0, w + g * gstride, gstride, pn, part + g * gp, gp, first);
      }
    }
    for (std::ptrdiff_t g = 0; g < gn; ++g) {
      const auto r0 = static_cast<std::int32_t>((g0 + g) * 8);
      const int nr = a.rows - r0 < 8 ? a.rows - r0 : 8;
      for (int m = 0; m < MB; ++m) {
        const std::int64_t* acc = part + g * MB * 8 + std::ptrdiff_t{m} * 8;
        store8_s16_avx2(a, acc, r0, nr, a.output + static_cast<std::ptrdiff_t>(b0 + m) * a.rows + r0);
      }
    }
  }
}

/// AVX2 a16w8 fused linear over `avx2_pairs` packed weights (groups of 8 rows; per column pair p the 8
/// rows' (w[2p], w[2p+1]) bytes; rows padded to 8 and columns to 16 with zeros). Batch rows in blocks of
/// 8, then one block of the remainder. Preconditions: `validate(a) == ok`, `packed` holding those
/// weights, CPU has AVX2.
__attribute__((target("avx2"))) inline void linear_s16_pairs_avx2(const linear_s16_args& args, const std::int8_t* packed) noexcept {
  const linear_s16_args a = args;  // local copy: the int16 output stores cannot alias it
  pairs_batch_blocks(a.batches, [&](auto mb, std::int32_t b0) {
    linear_s16_pairs_rows_avx2<decltype(mb)::value>(a, packed, b0);
  });
}

}  // namespace armlower::kernels::detail
