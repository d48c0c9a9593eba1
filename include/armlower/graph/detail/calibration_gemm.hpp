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
/// Hosted only (std::vector for the packed panels).
#pragma once

#include <algorithm>
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

/// Which loop computes the float pass (tests force each; `best` picks by cpuid);
/// `reference_only`: no float pass, the double reference for every block.
enum class calib_isa { best, portable, avx2, avx512, reference_only };

/// Output channels per packed panel (the widest path's register tile: 2 × 16 floats).
inline constexpr std::size_t calib_panel = 32;

/// W [n][k] row-major packed into ⌈n/32⌉ panels of [k][32] floats (columns past n are 0).
[[nodiscard]] inline std::vector<float> calib_pack(const float* w, std::size_t n, std::size_t k) {
  const std::size_t panels = (n + calib_panel - 1) / calib_panel;
  std::vector<float> p(panels * k * calib_panel, 0.0f);
  for (std::size_t q = 0; q < panels; ++q) {
    float* dst = p.data() + q * k * calib_panel;
    const std::size_t c0 = q * calib_panel, nc = std::min(calib_panel, n - c0);
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < nc; ++j) dst[i * calib_panel + j] = w[(c0 + j) * k + i];
  }
  return p;
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
      for (int i = 0; i < MR; ++i) {
        const float xv = x[static_cast<std::size_t>(i) * ldx + kk];
        for (std::size_t j = 0; j < NR; ++j) acc[i][j] += xv * wk[j];
      }
    }
    for (int i = 0; i < MR; ++i)
      for (std::size_t j = 0; j < NR; ++j) sum[i][j] += acc[i][j];
  }
  for (int i = 0; i < MR; ++i)
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
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < 4; ++j) sum[i][j] = _mm256_setzero_ps();
  for (std::size_t k0 = 0; k0 < k; k0 += calib_chunk) {
    const std::size_t k1 = std::min(k, k0 + calib_chunk);
    __m256 acc[MR][4];
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < 4; ++j) acc[i][j] = _mm256_setzero_ps();
    for (std::size_t kk = k0; kk < k1; ++kk) {
      const float* wk = panel + kk * calib_panel;
      const __m256 w0 = _mm256_loadu_ps(wk), w1 = _mm256_loadu_ps(wk + 8), w2 = _mm256_loadu_ps(wk + 16),
                   w3 = _mm256_loadu_ps(wk + 24);
      for (int i = 0; i < MR; ++i) {
        const __m256 xv = _mm256_broadcast_ss(x + static_cast<std::size_t>(i) * ldx + kk);
        acc[i][0] = _mm256_fmadd_ps(xv, w0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(xv, w1, acc[i][1]);
        acc[i][2] = _mm256_fmadd_ps(xv, w2, acc[i][2]);
        acc[i][3] = _mm256_fmadd_ps(xv, w3, acc[i][3]);
      }
    }
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < 4; ++j) sum[i][j] = _mm256_add_ps(sum[i][j], acc[i][j]);
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < 4; ++j) _mm256_storeu_ps(tile + static_cast<std::size_t>(i) * calib_panel + 8 * j, sum[i][j]);
}

/// AVX-512F tile: MR rows × 32 columns (2 zmm per row).
template <int MR>
__attribute__((target("avx512f,avx2,fma"))) inline void calib_tile_avx512(const float* x, std::size_t ldx,
                                                                           const float* panel, std::size_t k,
                                                                           float* tile) {
  __m512 sum[MR][2];
  for (int i = 0; i < MR; ++i) sum[i][0] = sum[i][1] = _mm512_setzero_ps();
  for (std::size_t k0 = 0; k0 < k; k0 += calib_chunk) {
    const std::size_t k1 = std::min(k, k0 + calib_chunk);
    __m512 acc[MR][2];
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (std::size_t kk = k0; kk < k1; ++kk) {
      const float* wk = panel + kk * calib_panel;
      const __m512 w0 = _mm512_loadu_ps(wk), w1 = _mm512_loadu_ps(wk + 16);
      for (int i = 0; i < MR; ++i) {
        const __m512 xv = _mm512_set1_ps(x[static_cast<std::size_t>(i) * ldx + kk]);
        acc[i][0] = _mm512_fmadd_ps(xv, w0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(xv, w1, acc[i][1]);
      }
    }
    for (int i = 0; i < MR; ++i) {
      sum[i][0] = _mm512_add_ps(sum[i][0], acc[i][0]);
      sum[i][1] = _mm512_add_ps(sum[i][1], acc[i][1]);
    }
  }
  for (int i = 0; i < MR; ++i) {
    _mm512_storeu_ps(tile + static_cast<std::size_t>(i) * calib_panel, sum[i][0]);
    _mm512_storeu_ps(tile + static_cast<std::size_t>(i) * calib_panel + 16, sum[i][1]);
  }
}
#endif

/// The path `best` resolves to on this CPU.
[[nodiscard]] inline calib_isa calib_resolve(calib_isa isa) noexcept {
#if defined(ARMLOWER_CALIB_X86)
  if (isa == calib_isa::best) return calib_has_avx512() ? calib_isa::avx512 : calib_has_avx2() ? calib_isa::avx2 : calib_isa::portable;
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

/// z [rows][n] = fl(Σ_k x[r][k]·w[o][k]) + b[o] (b may be null: no bias), x [rows][k] and the
/// weight panels of `calib_pack` (n columns). Order of operations: see the file comment.
inline void calib_linear(calib_isa isa, const float* x, std::size_t rows, std::size_t k, const std::vector<float>& panels,
                         const float* b, std::size_t n, float* z) {
  isa = calib_resolve(isa);
  constexpr std::size_t MR = 6;  // 6 × 2 zmm (or 6 × 4 ymm) accumulators + 6 × 2 (4) sums
  alignas(64) float tile[MR * calib_panel];
  for (std::size_t p = 0; p * calib_panel < n; ++p) {
    const float* panel = panels.data() + p * k * calib_panel;
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

}  // namespace armlower::graph::detail
