/// @file armlower/kernels/mx/matmul_t_block_scaled.hpp
/// TOSA 1.1-draft MATMUL_T_BLOCK_SCALED (EXT-MXFP, as in tosa-tools 2026.05): A [N,H,C] with scales [N,H,C/32], B [D,W,C]
/// with scales [D,W,C/32] (D ∈ {1, N}; D == 1 broadcasts B), both of the same MX element type,
/// output [N,H,W] fp32 = Σ_blocks (Σ_i A·B in fp32) · (scale_A · scale_B). "T": B is stored with C
/// innermost, so a linear layer's weight [Cout, Cin] is B directly.
/// Firmware-clean (no heap, no exceptions), status codes.
///
/// Paths (`matmul_path`) and what they guarantee — `bit_exact(t, path)` reports it:
///  - `reference`: the pseudocode, literally (arch/generic.hpp). The oracle the others are tested against.
///  - `integer`: exact integer block sums. Bit-identical to `reference` for FP4E2M1, FP6E2M3, FP6E3M2,
///    MXINT8; FP8E4M3 within the dot-product bound (more accurate); FP8E5M2 → `unsupported_path`.
///  - `avx2` (x86 with AVX2+FMA): FP4E2M1/FP6E2M3/FP6E3M2/MXINT8 bit-identical (exact integer block
///    sums), FP8E4M3/FP8E5M2 within the dot-product bound. `unsupported_path` without AVX2.
///  - `avx512` (x86 with AVX-512 F/BW/VL/VNNI/VBMI, or SIMDe's portable AVX-512 when
///    `ARMLOWER_MX_AVX512_SIMDE` is defined): the same guarantees as `avx2` (arch/x86_avx512.hpp; FP8
///    through exact BF16 decoding and `vdpbf16ps` where AVX-512 BF16 is compiled in; FP8 batch-1 GEMVs of
///    at least 64 B rows and K ≤ 4096 on AMX-BF16 tiles where the CPU has them, arch/x86_amx_fp8.hpp).
///    `unsupported_path` when not compiled in.
///  - `mve` (Cortex-M55 with MVE): FP4E2M1/FP6E2M3/FP6E3M2/MXINT8 bit-identical (integer `VMLADAVA`),
///    FP8 table-gather decode + 4-lane fp32 FMA block sums, within the dot-product bound (arch/arm_mve.hpp).
///    `unsupported_path` without MVE.
///  - `best`: `best_path(t, H)` — on x86 the AVX-512 path where it measured faster than AVX2 for this
///    element type and A row count (`avx512_measured_faster`), else AVX2; then mve, then integer
///    (reference for FP8E5M2 without SIMD). Dispatch by measurement, not by ISA rank (issue 14).
/// Constant B (weights) packed once into caller-owned storage: `pack_b` and the `packed_b_view` entry
/// (matmul_t_block_scaled_packed.hpp; on AVX-512 the tiles16 layout: MXINT8/FP6E2M3/FP4E2M1 same bits,
/// with AVX-512 BF16 also FP6E3M2 same bits and FP8 within the same bound; on the AVX2 path the same
/// layout for MXINT8/FP6E2M3/FP4E2M1, same bits; speed: benchmarks/RESULTS.md "MX batch-1 GEMV over
/// packed weights" and the sections after it).
/// The block product `block_acc · (scale_A·scale_B)` is exact unless it is an fp32 subnormal or
/// overflows; every path rounds it apart from the accumulation, as the pseudocode does (no FMA
/// contraction, whatever -ffp-contract says: `arch::detail::keep_rounded`), so the bit-identical
/// claims hold at those edges too (e.g. +Inf + −Inf = NaN).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <armlower/dtype/dtype.hpp>
#include <armlower/dtype/with_dtype.hpp>
#include <armlower/kernels/mx/arch/arm_mve.hpp>
#include <armlower/kernels/mx/arch/generic.hpp>
#include <armlower/kernels/mx/arch/x86_avx2.hpp>
#include <armlower/kernels/mx/arch/x86_amx_fp8.hpp>
#include <armlower/kernels/mx/arch/x86_avx512.hpp>
#include <armlower/kernels/mx/detail/shape.hpp>
#include <armlower/mx/format.hpp>
#include <armlower/mx/status.hpp>

namespace armlower::kernels::mx {

using armlower::mx::status;

/// A read-only block-scaled tensor: element codes (armlower storage: FP4 packed two per byte, low
/// nibble first; others one per byte) with their shape, and E8M0 scales with theirs.
struct block_scaled_view {
  std::span<const std::uint8_t> data;         ///< storage_bytes(t, count(data_shape)) bytes
  std::span<const std::int32_t> data_shape;   ///< e.g. [N, H, C]
  std::span<const std::uint8_t> scale;        ///< count(scale_shape) E8M0 codes
  std::span<const std::int32_t> scale_shape;  ///< data_shape with last dim / 32
  /// Caller's promise that `data` holds no NaN/Inf codes (e.g. constant weights checked once with
  /// `mx::finite_codes`). Only B's flag is used: the AVX2 FP8 path then skips its per-block NaN/Inf
  /// check (~10% faster). If the promise is false, those codes are read as finite garbage, never UB.
  bool finite_codes = false;
};

/// Implementation selector for `matmul_t_block_scaled` (see the file comment).
enum class matmul_path : std::uint8_t { reference, integer, avx2, avx512, mve, best };

/// True where the AVX-512 path measured faster than the AVX2 one for element type `t` with `a_rows`
/// rows of A (H; 1 = GEMV), on AMD EPYC Zen 4: benchmarks/RESULTS.md, "AVX-512 VNNI (AMD EPYC Zen 4)",
/// `bm_mx/*_avx2` vs `bm_mx/*_avx512` (B [4096, K], K 1024 and 4096, batch 1 and 8, median of 5;
/// "MX batch-1 GEMV on AVX-512: BF16 FP8, 4-block integer GEMV" for the batch-1 rows).
///  - FP6E2M3, FP6E3M2, MXINT8: AVX-512 faster at every measured shape (e.g. batch 1, K 1024: FP6E2M3
///    77.5 vs 34.6 GFLOP/s, MXINT8 78.5 vs 43.0; FP6E3M2, batch 1 through the 4-block `int8_gemv`
///    since the mxfp branch: 1.6–2.0× warm, 1.3–3.2× with weights cold, `bm_mx_cold_pair`).
///  - FP4E2M1: AVX-512 faster for GEMV (batch 1, `int8_gemv`: 1.06–1.32×) and at batch 8 (1.20–1.30×);
///    batches 2–7 are not measured, so they keep AVX2.
///  - On Zen 5 (AMD family 1Ah) the same choices hold for these four types at batch 1, warm (1.2–2.3×)
///    and with B cold (1.24–2.26×, `int8_gemv` with the `l1_lines` prefetch kind: "MX row-major GEMV on
///    Zen 5"; before it, MXINT8 / FP6E2M3 cold were 0.74–0.92×).
///  - FP8E4M3, FP8E5M2: with AVX-512 BF16 (`arch::avx512::bf16`, the `vdpbf16ps` kernel) faster for
///    GEMV (batch 1: 1.07–1.17× warm), and with weights cold too since its prefetch runs 4 row groups
///    ahead as one stream (`bm_mx_cold_pair`, AVX2 ÷ AVX-512 time: K 1024 1.32–1.41×, K 4096
///    1.11–1.16×; it was 0.93–1.03× at K 4096 cold before; mxfp branch results, "FP8 cold dispatch");
///    at batch 8 within this host's noise (1.00–1.12×): AVX2. Without AVX-512 BF16 (the older FMA
///    kernel): no gain, AVX2. On a Xeon with AMX-BF16 the AVX-512 path runs the GEMV on tiles
///    (`arch::amx::fp8_gemv_applies`): K 1024 1.3–1.4× AVX2 warm, 1.11–1.13× cold; K 4096 level with AVX2
///    (0.97–1.07× cold, the same warm: benchmarks/RESULTS.md, "MX FP8 batch-1 GEMV on AMX-BF16").
/// Both x86 paths give the same guarantees (`bit_exact`), so this choice never changes a bit-exact result.
[[nodiscard]] constexpr bool avx512_measured_faster(dtype::id t, std::size_t a_rows) noexcept {
  switch (t) {
    case dtype::id::fp6e2m3:
    case dtype::id::fp6e3m2:
    case dtype::id::mxint8: return true;
    case dtype::id::fp4e2m1: return a_rows == 1 || a_rows >= 8;
    case dtype::id::fp8e4m3:
    case dtype::id::fp8e5m2: return arch::avx512::bf16 && a_rows == 1;
    default: return false;
  }
}

/// The path `best` resolves to for element type `t` and `a_rows` rows of A (H) in this build.
[[nodiscard]] constexpr matmul_path best_path(dtype::id t, std::size_t a_rows = 1) noexcept {
  if (arch::avx512::available && (!arch::avx2::available || avx512_measured_faster(t, a_rows)))
    return matmul_path::avx512;
  if (arch::avx2::available) return matmul_path::avx2;
  if (arch::mve::available) return matmul_path::mve;
  return t == dtype::id::fp8e5m2 ? matmul_path::reference : matmul_path::integer;
}

/// True when `path` runs element type `t` in this build (`best`: always; `integer`: not FP8E5M2; the
/// SIMD paths: where their kernels are compiled in). `matmul_t_block_scaled` returns
/// `unsupported_path` exactly where this is false.
[[nodiscard]] constexpr bool path_available(dtype::id t, matmul_path path) noexcept {
  switch (path) {
    case matmul_path::reference:
    case matmul_path::best: return true;
    case matmul_path::integer: return t != dtype::id::fp8e5m2;
    case matmul_path::avx2: return arch::avx2::available;
    case matmul_path::avx512: return arch::avx512::available;
    case matmul_path::mve: return arch::mve::available;
  }
  return false;
}

/// True when `path` gives results bit-identical to `matmul_path::reference` for element type `t`
/// (modulo the subnormal-product caveat in the file comment); false when they agree only within the
/// TOSA dot-product bound (TOSA 1.0 dot-product accuracy rule, pseudocode/library/tosa_reference_check_dotproduct.tosac).
[[nodiscard]] constexpr bool bit_exact(dtype::id t, matmul_path path) noexcept {
  if (path == matmul_path::best) path = best_path(t);
  if (path == matmul_path::reference) return true;
  return t == dtype::id::fp4e2m1 || t == dtype::id::fp6e2m3 || t == dtype::id::fp6e3m2 || t == dtype::id::mxint8;
}

namespace detail {

template <dtype::id T>
constexpr status run_rows(matmul_path path, const arch::rows_args& r) noexcept {
  switch (path) {
    case matmul_path::reference: arch::reference_rows<T>(r); return status::ok;
    case matmul_path::integer:
      if constexpr (T == dtype::id::fp8e5m2) return status::unsupported_path;
      else arch::integer_rows<T>(r);
      return status::ok;
    case matmul_path::avx2:
#if defined(__AVX2__) && defined(__FMA__)
      if constexpr (T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2) {
        if (r.b_finite) arch::avx2::fp8_rows<T, false>(r);
        else arch::avx2::fp8_rows<T, true>(r);
      }
      else arch::avx2::int8_rows<T>(r);
      return status::ok;
#else
      return status::unsupported_path;
#endif
    case matmul_path::avx512:
#if defined(ARMLOWER_MX_AVX512)
      if constexpr (T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2) {
#if defined(ARMLOWER_MX_AVX512_BF16)
#if defined(ARMLOWER_MX_AMX_FP8)
        if (arch::amx::fp8_gemv_applies(r)) {  // one A row on AMX-BF16 (Sapphire Rapids and later)
          arch::amx::fp8_gemv<T>(r);
          return status::ok;
        }
#endif
        arch::avx512::fp8_bf16_rows<T>(r);  // exact BF16 decode: NaN/Inf need no check
#else
        if (r.b_finite) arch::avx512::fp8_rows<T, false>(r);
        else arch::avx512::fp8_rows<T, true>(r);
#endif
      }
      else arch::avx512::int8_rows<T>(r, arch::avx512::cpu_prefetch_kind());  // B prefetch as measured on this CPU
      return status::ok;
#else
      return status::unsupported_path;
#endif
    case matmul_path::mve:
#if defined(__ARM_FEATURE_MVE)
      arch::mve::rows<T>(r);
      return status::ok;
#else
      return status::unsupported_path;
#endif
    default: return status::unsupported_path;
  }
}

}  // namespace detail

namespace detail {

/// Dimensions of a checked MATMUL_T_BLOCK_SCALED: A [n,h,c], B [d,w,c].
struct mm_dims {
  std::size_t n = 0, h = 0, w = 0, c = 0, d = 0;
};

/// The operand checks of both entries (element type `t`; see `matmul_t_block_scaled`).
[[nodiscard]] constexpr status check_operands(dtype::id t, const block_scaled_view& a, const block_scaled_view& b,
                                              std::span<float> output, mm_dims& m) noexcept {
  if (a.data_shape.size() != 3 || b.data_shape.size() != 3 || a.scale_shape.size() != 3 ||
      b.scale_shape.size() != 3)
    return status::bad_rank;
  std::size_t na = 0, nbn = 0;
  if (const status s = check_data_shape(a.data_shape, na); s != status::ok) return s;
  if (const status s = check_data_shape(b.data_shape, nbn); s != status::ok) return s;
  if (a.data_shape[2] != b.data_shape[2]) return status::shape_mismatch;
  if (const status s = check_scale_shape(a.data_shape, a.scale_shape); s != status::ok) return s;
  if (const status s = check_scale_shape(b.data_shape, b.scale_shape); s != status::ok) return s;
  m.n = static_cast<std::size_t>(a.data_shape[0]), m.h = static_cast<std::size_t>(a.data_shape[1]);
  m.d = static_cast<std::size_t>(b.data_shape[0]), m.w = static_cast<std::size_t>(b.data_shape[1]);
  m.c = static_cast<std::size_t>(a.data_shape[2]);
  if (m.d != 1 && m.d != m.n) return status::bad_batch;
  if (a.data.size() != armlower::mx::storage_bytes(t, na) || b.data.size() != armlower::mx::storage_bytes(t, nbn) ||
      a.scale.size() != na / armlower::mx::block_size || b.scale.size() != nbn / armlower::mx::block_size ||
      output.size() != m.n * m.h * m.w)
    return status::buffer_size;
  return status::ok;
}

/// The block loop over checked operands (`check_operands` passed with dims `m`): for each batch,
/// `rows(path, args)` runs the row kernels of the element type `t`.
template <class Rows>
[[nodiscard]] constexpr status for_each_batch(dtype::id t, const block_scaled_view& a, const block_scaled_view& b,
                                              std::span<float> output, matmul_path path, const mm_dims& m,
                                              Rows rows) noexcept {
  if (path == matmul_path::best) path = best_path(t, m.h);
  const std::size_t row_bytes = armlower::mx::storage_bytes(t, m.c);
  const std::size_t row_scales = m.c / armlower::mx::block_size;
  for (std::size_t i = 0; i < m.n; ++i) {
    const std::size_t bi = m.d == 1 ? 0 : i;
    const arch::rows_args r{a.data.data() + i * m.h * row_bytes, a.scale.data() + i * m.h * row_scales, m.h,
                            b.data.data() + bi * m.w * row_bytes, b.scale.data() + bi * m.w * row_scales, m.w,
                            m.c, output.data() + i * m.h * m.w, b.finite_codes};
    if (const status s = rows(path, r); s != status::ok) return s;
  }
  return status::ok;
}

}  // namespace detail

/// MATMUL_T_BLOCK_SCALED of `a` ([N,H,C]) and `b` ([D,W,C]), both of the compile-time MX element
/// type `E`, into `output` (N·H·W fp32, row-major [N,H,W]), using `path`. The entry for firmware
/// that knows its element type: only `E`'s row kernels are instantiated (Cortex-M55 -Os: about
/// 2 KB of .text, against about 13 KB for the run-time-dtype entry, which instantiates all six).
/// Errors (nothing written): `bad_rank` (any shape not rank 3), `empty_dimension` (a dim < 1),
/// `bad_block_dim` (C % 32 ≠ 0), `shape_mismatch` (A/B C differ, or a scale shape ≠ its data
/// shape with C/32), `bad_batch` (D ∉ {1, N}), `buffer_size` (a span's size disagrees with its
/// shape), `unsupported_path` (path not compiled in / not available for E).
template <dtype::id E>
  requires(armlower::mx::is_element(E))
[[nodiscard]] constexpr status matmul_t_block_scaled(const block_scaled_view& a, const block_scaled_view& b,
                                                     std::span<float> output,
                                                     matmul_path path = matmul_path::reference) noexcept {
  detail::mm_dims m;
  if (const status s = detail::check_operands(E, a, b, output, m); s != status::ok) return s;
  return detail::for_each_batch(E, a, b, output, path, m, &detail::run_rows<E>);
}

/// MATMUL_T_BLOCK_SCALED with the run-time element type `t` (both operands): `dtype::with_dtype`
/// to the compile-time entry's row kernels `detail::run_rows<E>` (every MX element type
/// instantiated; the operand checks and the batch loop are shared, not instantiated per type).
/// Errors: `unsupported_type` (t not an MX element type), else those of `matmul_t_block_scaled<E>`.
[[nodiscard]] constexpr status matmul_t_block_scaled(dtype::id t, const block_scaled_view& a,
                                                     const block_scaled_view& b, std::span<float> output,
                                                     matmul_path path = matmul_path::reference) noexcept {
  if (!armlower::mx::is_element(t)) return status::unsupported_type;
  detail::mm_dims m;
  if (const status s = detail::check_operands(t, a, b, output, m); s != status::ok) return s;
  return detail::for_each_batch(t, a, b, output, path, m, [t](matmul_path p, const arch::rows_args& r) {
    return dtype::with_dtype(t, [&](auto e) -> status {
      if constexpr (armlower::mx::is_element(decltype(e)::value))
        return detail::run_rows<decltype(e)::value>(p, r);
      else
        return status::unsupported_type;  // not reached: `t` is checked above
    });
  });
}

}  // namespace armlower::kernels::mx
