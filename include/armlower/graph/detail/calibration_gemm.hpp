/// @file armlower/graph/detail/calibration_gemm.hpp
/// The float32 forward pass of one MLP layer used by `graph::calibrate_mlp` to find the ranges
/// fast: z[r][o] = fl(Σ_k x[r][k]·w[o][k]) + b[o] over a block of rows, vectorised (AVX-512F or
/// AVX2+FMA through per-function `target` attributes and a cpuid check, else a portable loop).
///
/// Summation order, identical on every path (this is what the error bound of `calibrate_mlp`
/// relies on): each output's k range is cut into chunks of `calib_chunk` (64) terms; a chunk is
/// accumulated from 0 by a chain of (fused) multiply-adds, the chunk sums are added in k order
/// into the running sum, and the bias is added last. So every product x·w passes through at most
/// `calib_depth(K)` = 64 + ⌈K/64⌉ + 2 float roundings (chunk chain, chunk adds, bias add, and one
/// more for a product rounded on its own when the compiler does not fuse it).
/// Higham, "Accuracy and Stability of Numerical Algorithms" (2nd ed.), Lemma 3.1 and §4.2: then
/// |ẑ − (Σ x·w + b)| ≤ γ_d · (Σ|x·w| + |b|) with γ_d = d·u/(1 − d·u), u = 2^−24, plus an absolute
/// term for results in the subnormal range (≤ 2^−150 per rounding, (K + K/64 + 4)·2^−149 in all).
/// Also `calib_linear_exact`: the double-precision reference of a layer (bit-identical to
/// `graph::run_float_mlp`), vectorised across output channels over the same packed panels.
/// Hosted only (a heap buffer for the packed panel).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ARMLOWER_CALIB_X86 1
#endif

namespace armlower::graph::detail {

/// Terms per chunk of the float accumulation (see the file comment).
inline constexpr std::size_t calib_chunk = 64;

/// Largest number of float roundings a product x·w passes through for `k` terms (file comment).
[[nodiscard]] constexpr std::size_t calib_depth(std::size_t k) noexcept {
  return calib_chunk + (k + calib_chunk - 1) / calib_chunk + 2;
}

/// Which loops calibration uses (tests force each; `best` picks by cpuid). `exact_only`: no
/// float pass, the vectorised double reference (`calib_linear_exact`, best path) for every block;
/// `reference_only`: `graph::run_float_mlp` itself for every block (the oracle).
enum class calib_isa { best, portable, avx2, avx512, exact_only, reference_only };

/// Output channels per packed panel (the widest path's register tile: 2 × 16 floats).
inline constexpr std::size_t calib_panel = 32;

/// max_o Σ_k |w[o][k]| of W [n][k] row-major, summed in double (eight chains per row; the caller's
/// bound allows for the rounding of any summation order).
[[nodiscard]] inline double calib_abs_row_sum_max(const float* w, std::size_t n, std::size_t k) noexcept {
  double m = 0;
  for (std::size_t o = 0; o < n; ++o) {
    const float* src = w + o * k;
    double a[8] = {};
    const std::size_t k8 = k / 8 * 8;
    for (std::size_t i = 0; i < k8; i += 8)
#pragma GCC unroll 8
      for (std::size_t t = 0; t < 8; ++t) a[t] += std::fabs(static_cast<double>(src[i + t]));
    for (std::size_t i = k8; i < k; ++i) a[0] += std::fabs(static_cast<double>(src[i]));
    m = std::max(m, ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])));
  }
  return m;
}

/// Floats of one packed panel of K inputs (`calib_pack_panel`): [k][32].
[[nodiscard]] constexpr std::size_t calib_panel_floats(std::size_t k) noexcept { return k * calib_panel; }

/// Panel `q` of W [n][k] row-major (output channels 32q … 32q + 31) packed as [k][32] floats into
/// `dst` (`calib_panel_floats(k)` floats; columns past n are 0). The GEMMs pack one panel at a time
/// into one buffer, so packing allocates nothing per panel and the panel is in cache when used.
/// (An AVX2 8 × 8 register transpose measured no faster: reading W's rows is the cost.)
inline void calib_pack_panel(const float* w, std::size_t n, std::size_t k, std::size_t q, float* dst) noexcept {
  const std::size_t c0 = q * calib_panel, nc = std::min(calib_panel, n - c0);
  // 16 consecutive k of each row at a time: every cache line read once although the rows are
  // k·4 bytes apart (a power of two maps them all to one L1 set).
  for (std::size_t i0 = 0; i0 < k; i0 += 16) {
    const std::size_t i1 = std::min(k, i0 + 16);
    for (std::size_t j = 0; j < nc; ++j) {
      const float* src = w + (c0 + j) * k;
      for (std::size_t i = i0; i < i1; ++i) dst[i * calib_panel + j] = src[i];
    }
    for (std::size_t j = nc; j < calib_panel; ++j)
      for (std::size_t i = i0; i < i1; ++i) dst[i * calib_panel + j] = 0.0f;
  }
}

/// Portable tile: MR rows × 32 columns of a panel over all k (chunked as in the file comment).
template <int MR>
inline void calib_tile_portable(const float* x, std::size_t ldx, const float* panel, std::size_t k, float* tile) {
  constexpr std::size_t NR = calib_panel;
  float sum[MR][NR] = {};
  for (std::size_t k0 = 0; k0 < k; k0 += calib_chunk) {
    const std::size_t k1 = std::min(k, k0 + calib_chunk);
    float acc[MR][NR] = {};
    for (std::size_t kk = k0; kk < k1; ++kk) {
      const float* wk = panel + kk * NR;
      #pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) {
        const float xv = x[static_cast<std::size_t>(i) * ldx + kk];
        #pragma GCC unroll 32
        for (std::size_t j = 0; j < NR; ++j) acc[i][j] += xv * wk[j];
      }
    }
    #pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
      #pragma GCC unroll 32
      for (std::size_t j = 0; j < NR; ++j) sum[i][j] += acc[i][j];
  }
  #pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
    #pragma GCC unroll 32
    for (std::size_t j = 0; j < NR; ++j) tile[static_cast<std::size_t>(i) * NR + j] = sum[i][j];
}

#if defined(ARMLOWER_CALIB_X86)
[[nodiscard]] inline bool calib_has_avx2() noexcept {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
[[nodiscard]] inline bool calib_has_avx512() noexcept { return __builtin_cpu_supports("avx512f"); }

/// AVX2+FMA tile: MR rows × 32 columns (4 ymm per row).
template <int MR>
__attribute__((target("avx2,fma"))) inline void calib_tile_avx2(const float* x, std::size_t ldx, const float* panel,
                                                                 std::size_t k, float* tile) {
  __m256 sum[MR][4];
  #pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
    #pragma GCC unroll 32
    for (int j = 0; j < 4; ++j) sum[i][j] = _mm256_setzero_ps();
  for (std::size_t k0 = 0; k0 < k; k0 += calib_chunk) {
    const std::size_t k1 = std::min(k, k0 + calib_chunk);
    __m256 acc[MR][4];
    #pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
      #pragma GCC unroll 32
      for (int j = 0; j < 4; ++j) acc[i][j] = _mm256_setzero_ps();
    for (std::size_t kk = k0; kk < k1; ++kk) {
      const float* wk = panel + kk * calib_panel;
      const __m256 w0 = _mm256_loadu_ps(wk), w1 = _mm256_loadu_ps(wk + 8), w2 = _mm256_loadu_ps(wk + 16),
                   w3 = _mm256_loadu_ps(wk + 24);
      #pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) {
        const __m256 xv = _mm256_broadcast_ss(x + static_cast<std::size_t>(i) * ldx + kk);
        acc[i][0] = _mm256_fmadd_ps(xv, w0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(xv, w1, acc[i][1]);
        acc[i][2] = _mm256_fmadd_ps(xv, w2, acc[i][2]);
        acc[i][3] = _mm256_fmadd_ps(xv, w3, acc[i][3]);
      }
    }
    #pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
      #pragma GCC unroll 32
      for (int j = 0; j < 4; ++j) sum[i][j] = _mm256_add_ps(sum[i][j], acc[i][j]);
  }
  #pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
    #pragma GCC unroll 32
    for (int j = 0; j < 4; ++j) _mm256_storeu_ps(tile + static_cast<std::size_t>(i) * calib_panel + std::ptrdiff_t{8} * j, sum[i][j]);
}

/// AVX-512F tile: MR rows × 32 columns (2 zmm per row).
template <int MR>
__attribute__((target("avx512f,avx2,fma"))) inline void calib_tile_avx512(const float* x, std::size_t ldx,
                                                                           const float* panel, std::size_t k,
                                                                           float* tile) {
  __m512 sum[MR][2];
  #pragma GCC unroll 32
  for (int i = 0; i < MR; ++i) sum[i][0] = sum[i][1] = _mm512_setzero_ps();
  for (std::size_t k0 = 0; k0 < k; k0 += calib_chunk) {
    const std::size_t k1 = std::min(k, k0 + calib_chunk);
    __m512 acc[MR][2];
    #pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (std::size_t kk = k0; kk < k1; ++kk) {
      const float* wk = panel + kk * calib_panel;
      const __m512 w0 = _mm512_loadu_ps(wk), w1 = _mm512_loadu_ps(wk + 16);
      #pragma GCC unroll 32
      for (int i = 0; i < MR; ++i) {
        const __m512 xv = _mm512_set1_ps(x[static_cast<std::size_t>(i) * ldx + kk]);
        acc[i][0] = _mm512_fmadd_ps(xv, w0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(xv, w1, acc[i][1]);
      }
    }
    #pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      sum[i][0] = _mm512_add_ps(sum[i][0], acc[i][0]);
      sum[i][1] = _mm512_add_ps(sum[i][1], acc[i][1]);
    }
  }
  #pragma GCC unroll 32
  for (int i = 0; i < MR; ++i) {
    _mm512_storeu_ps(tile + static_cast<std::size_t>(i) * calib_panel, sum[i][0]);
    _mm512_storeu_ps(tile + static_cast<std::size_t>(i) * calib_panel + 16, sum[i][1]);
  }
}
#endif

/// The path `best` resolves to on this CPU.
[[nodiscard]] inline calib_isa calib_resolve(calib_isa isa) noexcept {
#if defined(ARMLOWER_CALIB_X86)
  if (isa == calib_isa::best || isa == calib_isa::exact_only) return calib_has_avx512() ? calib_isa::avx512 : calib_has_avx2() ? calib_isa::avx2 : calib_isa::portable;
  if (isa == calib_isa::avx512 && !calib_has_avx512()) return calib_isa::portable;
  if (isa == calib_isa::avx2 && !calib_has_avx2()) return calib_isa::portable;
  return isa;
#else
  static_cast<void>(isa);
  return calib_isa::portable;
#endif
}

template <int MR>
inline void calib_tile(calib_isa isa, const float* x, std::size_t ldx, const float* panel, std::size_t k, float* tile) {
#if defined(ARMLOWER_CALIB_X86)
  if (isa == calib_isa::avx512) return calib_tile_avx512<MR>(x, ldx, panel, k, tile);
  if (isa == calib_isa::avx2) return calib_tile_avx2<MR>(x, ldx, panel, k, tile);
#endif
  calib_tile_portable<MR>(x, ldx, panel, k, tile);
}

/// z [rows][n] = fl(Σ_k x[r][k]·w[o][k]) + b[o] (b may be null: no bias), x [rows][k], W [n][k]
/// row-major, packed one panel at a time (`calib_pack_panel`) into `panel` (resized to
/// `calib_panel_floats(k)`; reused across calls). Order of operations: see the file comment.
inline void calib_linear(calib_isa isa, const float* x, std::size_t rows, std::size_t k, const float* w,
                         const float* b, std::size_t n, float* z, std::vector<float>& panel_buf) {
  isa = calib_resolve(isa);
  constexpr std::size_t MR = 6;  // 6 × 2 zmm (or 6 × 4 ymm) accumulators + 6 × 2 (4) sums
  alignas(64) float tile[MR * calib_panel];
  panel_buf.resize(calib_panel_floats(k));
  const float* panel = panel_buf.data();
  for (std::size_t p = 0; p * calib_panel < n; ++p) {
    calib_pack_panel(w, n, k, p, panel_buf.data());
    const std::size_t c0 = p * calib_panel, nc = std::min(calib_panel, n - c0);
    for (std::size_t r0 = 0; r0 < rows; r0 += MR) {
      const std::size_t mr = std::min(MR, rows - r0);
      const float* xr = x + r0 * k;
      switch (mr) {
        case 6: calib_tile<6>(isa, xr, k, panel, k, tile); break;
        case 5: calib_tile<5>(isa, xr, k, panel, k, tile); break;
        case 4: calib_tile<4>(isa, xr, k, panel, k, tile); break;
        case 3: calib_tile<3>(isa, xr, k, panel, k, tile); break;
        case 2: calib_tile<2>(isa, xr, k, panel, k, tile); break;
        default: calib_tile<1>(isa, xr, k, panel, k, tile); break;
      }
      for (std::size_t i = 0; i < mr; ++i) {
        float* zr = z + (r0 + i) * n + c0;
        const float* t = tile + i * calib_panel;
        for (std::size_t j = 0; j < nc; ++j) zr[j] = b ? t[j] + b[c0 + j] : t[j];
      }
    }
  }
}

/// The double-precision reference of one layer, vectorised across output channels and
/// bit-identical to `graph::run_float_mlp`: for each row and output, acc = b (or 0), then
/// acc += double(x[k])·double(w[o][k]) in k order (the product of two floats is exact in double,
/// so a fused multiply-add rounds exactly as the separate add does), ReLU/ReLU6 on acc, then
/// rounded to float. Lanes are output channels, so every output keeps its own sequential chain.
/// `xd` is the input block as double [rows][k]; `act`: 0 none, 1 ReLU, 2 ReLU6.
template <int MR>
inline void calib_exact_tile_portable(const double* xd, std::size_t k, const float* panel, const double* b0,
                                      double* tile) {
  constexpr std::size_t NR = calib_panel;
  double acc[MR][NR];
  for (int i = 0; i < MR; ++i)
    for (std::size_t j = 0; j < NR; ++j) acc[i][j] = b0[j];
  for (std::size_t kk = 0; kk < k; ++kk) {
    const float* wk = panel + kk * NR;
    for (int i = 0; i < MR; ++i) {
      const double xv = xd[static_cast<std::size_t>(i) * k + kk];
      for (std::size_t j = 0; j < NR; ++j) acc[i][j] += xv * static_cast<double>(wk[j]);
    }
  }
  for (int i = 0; i < MR; ++i)
    for (std::size_t j = 0; j < NR; ++j) tile[static_cast<std::size_t>(i) * NR + j] = acc[i][j];
}

#if defined(ARMLOWER_CALIB_X86)
/// AVX2+FMA exact tile: 1 row × 32 outputs (8 ymm chains).
template <int MR>
__attribute__((target("avx2,fma"))) inline void calib_exact_tile_avx2(const double* xd, std::size_t k,
                                                                       const float* panel, const double* b0,
                                                                       double* tile) {
  static_assert(MR == 1);
  __m256d acc[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) acc[j] = _mm256_loadu_pd(b0 + std::ptrdiff_t{4} * j);
  for (std::size_t kk = 0; kk < k; ++kk) {
    const float* wk = panel + kk * calib_panel;
    const __m256d xv = _mm256_broadcast_sd(xd + kk);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) acc[j] = _mm256_fmadd_pd(xv, _mm256_cvtps_pd(_mm_loadu_ps(wk + std::ptrdiff_t{4} * j)), acc[j]);
  }
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) _mm256_storeu_pd(tile + std::ptrdiff_t{4} * j, acc[j]);
}

/// AVX-512F exact tile: MR rows × 32 outputs (4 zmm chains per row).
template <int MR>
__attribute__((target("avx512f,avx2,fma"))) inline void calib_exact_tile_avx512(const double* xd, std::size_t k,
                                                                                 const float* panel, const double* b0,
                                                                                 double* tile) {
  __m512d acc[MR][4];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) acc[i][j] = _mm512_loadu_pd(b0 + std::ptrdiff_t{8} * j);
  for (std::size_t kk = 0; kk < k; ++kk) {
    const float* wk = panel + kk * calib_panel;
    __m512d w[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) w[j] = _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(wk + std::ptrdiff_t{8} * j));  // maskz: GCC 12 warns on the unmasked form
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const __m512d xv = _mm512_set1_pd(xd[static_cast<std::size_t>(i) * k + kk]);
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) acc[i][j] = _mm512_fmadd_pd(xv, w[j], acc[i][j]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) _mm512_storeu_pd(tile + static_cast<std::size_t>(i) * calib_panel + std::ptrdiff_t{8} * j, acc[i][j]);
}
#endif

/// One layer of the double reference (see `calib_exact_tile_portable`) on `rows` rows:
/// z [rows][n] float = float(act(acc)); x [rows][k] float; W [n][k] row-major, packed one panel at a
/// time into `panel_buf` as in `calib_linear`.
inline void calib_linear_exact(calib_isa isa, const float* x, std::size_t rows, std::size_t k, const float* w,
                               const float* b, std::size_t n, int act, float* z, std::vector<float>& panel_buf) {
  isa = calib_resolve(isa);
  std::vector<double> xd(x, x + rows * k);
  constexpr std::size_t MR = 4;
  double tile[MR * calib_panel];
  double b0[calib_panel];
  panel_buf.resize(calib_panel_floats(k));
  const float* panel = panel_buf.data();
  for (std::size_t p = 0; p * calib_panel < n; ++p) {
    calib_pack_panel(w, n, k, p, panel_buf.data());
    const std::size_t c0 = p * calib_panel, nc = std::min(calib_panel, n - c0);
    for (std::size_t j = 0; j < calib_panel; ++j) b0[j] = b && j < nc ? static_cast<double>(b[c0 + j]) : 0.0;
    std::size_t step = MR;
#if defined(ARMLOWER_CALIB_X86)
    if (isa == calib_isa::avx2) step = 1;
#endif
    for (std::size_t r0 = 0; r0 < rows; r0 += step) {
      const std::size_t mr = std::min(step, rows - r0);
      const double* xr = xd.data() + r0 * k;
#if defined(ARMLOWER_CALIB_X86)
      if (isa == calib_isa::avx2) {
        calib_exact_tile_avx2<1>(xr, k, panel, b0, tile);
      } else if (isa == calib_isa::avx512) {
        switch (mr) {
          case 4: calib_exact_tile_avx512<4>(xr, k, panel, b0, tile); break;
          case 3: calib_exact_tile_avx512<3>(xr, k, panel, b0, tile); break;
          case 2: calib_exact_tile_avx512<2>(xr, k, panel, b0, tile); break;
          default: calib_exact_tile_avx512<1>(xr, k, panel, b0, tile); break;
        }
      } else
#endif
      {
        switch (mr) {
          case 4: calib_exact_tile_portable<4>(xr, k, panel, b0, tile); break;
          case 3: calib_exact_tile_portable<3>(xr, k, panel, b0, tile); break;
          case 2: calib_exact_tile_portable<2>(xr, k, panel, b0, tile); break;
          default: calib_exact_tile_portable<1>(xr, k, panel, b0, tile); break;
        }
      }
      for (std::size_t i = 0; i < mr; ++i) {
        float* zr = z + (r0 + i) * n + c0;
        const double* t = tile + i * calib_panel;
        for (std::size_t j = 0; j < nc; ++j) {
          double v = t[j];
          if (act == 1) v = std::max(v, 0.0);
          if (act == 2) v = std::clamp(v, 0.0, 6.0);
          zr[j] = static_cast<float>(v);
        }
      }
    }
  }
}

}  // namespace armlower::graph::detail
