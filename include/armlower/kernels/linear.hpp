/// @file armlower/kernels/linear.hpp
/// Fused quantized linear (fully-connected) kernels: s8×s8→s8 and a16w8 s16×s8→s16, with bias,
/// requantization (per-tensor or per-channel) and activation clamp; batch ≥ 1; null bias allowed.
/// Semantics and the path contract: `kernels/linear_args.hpp`.
///
/// Path selection:
/// - Arm firmware: compile time. `__ARM_FEATURE_MVE` → `detail::linear_s*_mve`
///   (`kernels/arch/mve/linear.hpp`), else `__ARM_FEATURE_DSP` → `detail::linear_s*_dsp`
///   (`kernels/arch/dsp/linear.hpp`), else generic. `linear_s8<F>` / `linear_s16<F>` /
///   `linear_s8_prepacked<F>` compile only the cases of a `linear_features` set `F` (smaller code for
///   a Cortex-M plan, `cortex_m::run_plan<A, F>`); `linear_s8_prepacked` runs the 8-row Helium kernel
///   on weights packed ahead of time by `pack_weights_s8`.
/// - x86-64 host: run time by cpuid (`__builtin_cpu_supports`), ranked by measurement (`best_path`):
///   AVX-512 VNNI (F/BW/VL/DQ/VNNI: `arch/x86/linear_vnni_rowdot.hpp` for s8,
///   `arch/x86/linear_s16_vnni.hpp` for a16w8) where the CPU has it — measured faster than the AVX2
///   path on every benchmarked shape, s8 and a16w8, batch 1 and 8 (benchmarks/RESULTS.md, "AVX-512
///   VNNI (AMD EPYC Zen 4)") —, else AVX2 (`linear_s8`: the row-major 8-channel kernel,
///   `arch/x86/linear_avx2_rowdot.hpp`, where `rowdot_pays` — one to three batch rows, or few channels —,
///   else the on-the-fly repack into the column-pair kernel, `arch/x86/linear_avx2_rowpairs.hpp`;
///   `linear_s16`: the same 8-channel form where `rowdot_s16_pays`, else 4 rows per step), else generic.
///   The x86 paths are compiled with function target attributes, so no `-mavx2` is needed. Define `ARMLOWER_KERNELS_GENERIC_ONLY` to force the
///   generic path everywhere.
/// - `linear_path` lets tests and benchmarks request one path explicitly.
/// - Host only, fastest s8 form: `kernels/linear_packed.hpp` — `linear_s8(a, cache, size)` packs on
///   first use into a caller-owned buffer, or `pack_linear_s8` once + `linear_s8_packed` (AVX-512 VNNI
///   panel layout, or the AVX2 single-stream layout on AVX2-only CPUs; weight sums folded into the bias).
///   Fastest a16w8 form: `kernels/linear_s16_packed.hpp` — the same three forms for `linear_s16_args`
///   (AVX-512 VNNI: the s8 panels, the int16 input split into two int8 planes; AVX2: the s8 column
///   pairs; 1.1–3× / 1.05–2× the row-major kernel from 16 output channels, benchmarks/RESULTS.md
///   "Packed a16w8 linear").
/// The AVX-512 paths compile everywhere but are only selected when cpuid reports the features.
/// AVX2-only CI machines run them through SIMDe's portable AVX-512 (`test_kernels_linear_avx512_simde`:
/// the CMSIS-NN vectors and the path-equality properties); on an AVX-512 host `test_kernels_linear`
/// runs them natively. Every path gives the same integers, so the choice never changes a result.
///
/// Firmware-clean: noexcept, no heap, no exceptions, no static initialisation, no scratch needed.
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/kernels/status.hpp>

#if !defined(ARMLOWER_KERNELS_GENERIC_ONLY)
#if defined(__ARM_FEATURE_MVE) && __has_include(<armlower/kernels/arch/mve/linear.hpp>)
#include <armlower/kernels/arch/mve/linear.hpp>
#define ARMLOWER_KERNELS_HAVE_MVE 1
#endif
#if defined(__ARM_FEATURE_DSP) && __has_include(<armlower/kernels/arch/dsp/linear.hpp>)
#include <armlower/kernels/arch/dsp/linear.hpp>
#define ARMLOWER_KERNELS_HAVE_DSP 1
#endif
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <armlower/kernels/arch/x86/linear.hpp>
#include <armlower/kernels/arch/x86/linear_avx2_rowdot.hpp>
#include <armlower/kernels/arch/x86/linear_avx2_rowpairs.hpp>
#include <armlower/kernels/arch/x86/linear_s16_vnni.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_rowdot.hpp>
#define ARMLOWER_KERNELS_HAVE_X86 1
#endif
#endif

namespace armlower::kernels {

/// An implementation path of the linear kernels.
enum class linear_path : std::uint8_t {
  automatic,        ///< the best available path (see file comment)
  generic,          ///< portable C++ reference (`kernels/arch/generic/linear.hpp`)
  x86_avx2,         ///< AVX2: sign-extend to int16 + `vpmaddwd` (Intel Intrinsics Guide `_mm256_madd_epi16`)
  x86_avx512_vnni,  ///< AVX-512 VNNI: s8 `vpdpbusd` (unsigned-offset trick), a16w8 `vpdpwssd` (one batch row: `vpdpbusd` on two int8 planes of the input)
  arm_dsp,          ///< Arm DSP extension (SMLAD family), firmware only
  arm_mve,          ///< Arm M-profile Vector Extension (Helium), firmware only
};

/// Readable name of a path ("generic", "x86_avx2", …).
[[nodiscard]] constexpr const char* to_string(linear_path p) noexcept {
  switch (p) {
    case linear_path::automatic: return "automatic";
    case linear_path::generic: return "generic";
    case linear_path::x86_avx2: return "x86_avx2";
    case linear_path::x86_avx512_vnni: return "x86_avx512_vnni";
    case linear_path::arm_dsp: return "arm_dsp";
    case linear_path::arm_mve: return "arm_mve";
  }
  return "unknown";
}

/// True if `p` can run in this build on this CPU (`automatic` and `generic` always can).
[[nodiscard]] inline bool path_available(linear_path p) noexcept {
  switch (p) {
    case linear_path::automatic:
    case linear_path::generic: return true;
#if defined(ARMLOWER_KERNELS_HAVE_X86)
    case linear_path::x86_avx2: return detail::x86_has_avx2();
    case linear_path::x86_avx512_vnni: return detail::x86_has_avx512_vnni_dq();
#endif
#if defined(ARMLOWER_KERNELS_HAVE_DSP)
    case linear_path::arm_dsp: return true;
#endif
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
    case linear_path::arm_mve: return true;
#endif
    default: return false;
  }
}

/// The path `automatic` resolves to in this build on this CPU. Dispatch by measurement, not by ISA
/// rank (issue 14): on AMD EPYC Zen 4 (benchmarks/RESULTS.md, "AVX-512 VNNI (AMD EPYC Zen 4)",
/// `BM_s8_armlower_*` / `BM_s16_armlower_*`, median of 5 interleaved repetitions) the AVX-512 VNNI
/// paths are faster than AVX2 on every benchmarked layer (64² … 4096², 4000×4; batch 1 and 8; s8 and
/// a16w8), so no shape threshold is needed; AVX2 remains the choice on AVX2-only CPUs. The
/// parameters (kernel kind, weight bytes, batch) are kept so that a shape-dependent choice can be
/// expressed again if a future measurement calls for it; they do not change the result today. Within the
/// AVX-512 VNNI path, CPUs with AMX-INT8 run some batch shapes with tiles (`arch/x86/linear_amx_packed.hpp`,
/// `arch/x86/linear_amx_rowmajor.hpp`), chosen by the shape thresholds measured there.
[[nodiscard]] inline linear_path best_path(bool for_s16 = false, std::int64_t weight_bytes = 0,
                                           std::int32_t batches = 1) noexcept {
  (void)for_s16;
  (void)weight_bytes;
  (void)batches;
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
  return linear_path::arm_mve;
#elif defined(ARMLOWER_KERNELS_HAVE_DSP)
  return linear_path::arm_dsp;
#elif defined(ARMLOWER_KERNELS_HAVE_X86)
  if (detail::x86_has_avx512_vnni_dq()) return linear_path::x86_avx512_vnni;
  if (detail::x86_has_avx2()) return linear_path::x86_avx2;
  return linear_path::generic;
#else
  return linear_path::generic;
#endif
}

namespace detail {
[[nodiscard]] constexpr bool in_range(std::int64_t v, std::int64_t lo, std::int64_t hi) noexcept {
  return v >= lo && v <= hi;
}

/// `validate(const linear_s8_args&)` without the `weights`, `input` and `output` checks (a call checked
/// before its input and output are known: `plan_linear_s8`).
[[nodiscard]] inline status validate_s8_parameters(const linear_s8_args& a) noexcept {
  if (a.multiplier == nullptr || a.shift == nullptr) return status::null_pointer;
  if (a.batches < 1 || a.cols < 1 || a.rows < 1) return status::empty_dimension;
  if (!detail::in_range(a.input_offset, -255, 255) || !detail::in_range(a.filter_offset, -255, 255) ||
      !detail::in_range(a.output_offset, -65536, 65536)) {
    return status::zero_point_out_of_range;
  }
  if (a.activation_min > a.activation_max || !detail::in_range(a.activation_min, -128, 127) ||
      !detail::in_range(a.activation_max, -128, 127)) {
    return status::activation_range_invalid;
  }
  if (a.rounding != quant::rounding::single_round && a.rounding != quant::rounding::double_round) {
    return status::invalid_attribute;
  }
  const std::int32_t n = a.per_channel ? a.rows : 1;
  for (std::int32_t i = 0; i < n; ++i) {
    if (a.multiplier[i] < 0) return status::multiplier_out_of_range;
    if (!detail::in_range(a.shift[i], -31, 30)) return status::shift_out_of_range;
  }
  return status::ok;
}

/// `validate(const linear_s16_args&)` without the `input` and `output` checks (arguments checked once,
/// before the inputs and outputs of the calls are known).
[[nodiscard]] inline status validate_s16_parameters(const linear_s16_args& a) noexcept {
  if (a.weights == nullptr || a.multiplier == nullptr || a.shift == nullptr) return status::null_pointer;
  if (a.batches < 1 || a.cols < 1 || a.rows < 1) return status::empty_dimension;
  if (a.activation_min > a.activation_max || !detail::in_range(a.activation_min, -32768, 32767) ||
      !detail::in_range(a.activation_max, -32768, 32767)) {
    return status::activation_range_invalid;
  }
  const std::int32_t n = a.per_channel ? a.rows : 1;
  for (std::int32_t i = 0; i < n; ++i) {
    if (a.multiplier[i] < 0) return status::multiplier_out_of_range;
    if (!detail::in_range(a.shift[i], -47, 14)) return status::shift_out_of_range;
  }
  return status::ok;
}

/// `validate(const linear_s8_args&)` without the `weights` check: the prepacked entries
/// (`linear_s8_prepacked`) read their weights from the packed buffer, so `a.weights` may be null.
[[nodiscard]] inline status validate_s8_except_weights(const linear_s8_args& a) noexcept {
  if (a.input == nullptr || a.output == nullptr) return status::null_pointer;
  return validate_s8_parameters(a);
}
}  // namespace detail

/// Checks every precondition of the s8 contract (`kernels/linear_args.hpp`).
/// @return `null_pointer` (input, weights, output, multiplier, shift), `empty_dimension`
///         (batches/cols/rows < 1), `zero_point_out_of_range` (|input_offset| or |filter_offset| > 255,
///         |output_offset| > 65536), `activation_range_invalid` (min > max or outside −128..127),
///         `multiplier_out_of_range` (q < 0), `shift_out_of_range` (shift outside −31..30),
///         `invalid_attribute` (rounding not single/double); else `ok`.
[[nodiscard]] inline status validate(const linear_s8_args& a) noexcept {
  if (a.weights == nullptr) return status::null_pointer;
  return detail::validate_s8_except_weights(a);
}

/// Checks every precondition of the a16w8 contract (`kernels/linear_args.hpp`).
/// @return `null_pointer`, `empty_dimension`, `activation_range_invalid` (outside −32768..32767 or
///         min > max), `multiplier_out_of_range` (q < 0), `shift_out_of_range` (outside −47..14); else `ok`.
[[nodiscard]] inline status validate(const linear_s16_args& a) noexcept {
  if (a.input == nullptr || a.output == nullptr) return status::null_pointer;
  return detail::validate_s16_parameters(a);
}

/// Fused s8 linear: validates `a`, then runs `path` (default: `best_path` for this layer's shape).
/// The row-major weights may be at any address. Where K is a multiple of 64 the AVX-512 row-major forms (one batch
/// row, 2–7 rows, AMX) read them from each row's first 64-byte boundary; otherwise rows off a line split those forms'
/// 64-byte loads (a buffer, `linear_s8(a, cache, size)`, packs the weights aligned).
/// @return the `validate` error, `unsupported_path` if `path` is not available, else `ok`.
[[nodiscard]] inline status linear_s8(const linear_s8_args& a, linear_path path = linear_path::automatic) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  if (path == linear_path::automatic) path = best_path(false, std::int64_t{a.rows} * a.cols, a.batches);
  switch (path) {
    case linear_path::generic: detail::linear_s8_generic(a); return status::ok;
#if defined(ARMLOWER_KERNELS_HAVE_X86)
    case linear_path::x86_avx2:
      if (!detail::x86_has_avx2()) return status::unsupported_path;
      if (detail::rowdot_pays(a.batches, a.rows, a.cols)) {
        detail::linear_s8_rowdot_avx2(a);
      } else {
        detail::linear_s8_rowpairs_avx2(a);
      }
      return status::ok;
    case linear_path::x86_avx512_vnni:
      if (!detail::x86_has_avx512_vnni_dq()) return status::unsupported_path;
      detail::linear_s8_rowdot_vnni(a, a.weights, a.cols, nullptr);
      return status::ok;
#endif
#if defined(ARMLOWER_KERNELS_HAVE_DSP)
    case linear_path::arm_dsp: detail::linear_s8_dsp(a); return status::ok;
#endif
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
    case linear_path::arm_mve: detail::linear_s8_mve(a); return status::ok;
#endif
    default: return status::unsupported_path;
  }
}

/// Fused a16w8 linear: validates `a`, then runs `path` (default: `best_path(true, …)`).
/// @return the `validate` error, `unsupported_path` if `path` is not available, else `ok`.
[[nodiscard]] inline status linear_s16(const linear_s16_args& a, linear_path path = linear_path::automatic) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  if (path == linear_path::automatic) path = best_path(true, std::int64_t{a.rows} * a.cols, a.batches);
  switch (path) {
    case linear_path::generic: detail::linear_s16_generic(a); return status::ok;
#if defined(ARMLOWER_KERNELS_HAVE_X86)
    case linear_path::x86_avx2:
      if (!detail::x86_has_avx2()) return status::unsupported_path;
      if (detail::rowdot_s16_pays(a.batches, a.rows, a.cols)) {
        detail::linear_s16_rowdot_avx2(a);  // (layers of < 8 channels: the 4-row kernel)
      } else {
        detail::linear_s16_avx2(a);
      }
      return status::ok;
    case linear_path::x86_avx512_vnni:
      if (!detail::x86_has_avx512_vnni_dq()) return status::unsupported_path;
      detail::linear_s16_vnni(a);
      return status::ok;
#endif
#if defined(ARMLOWER_KERNELS_HAVE_DSP)
    case linear_path::arm_dsp: detail::linear_s16_dsp(a); return status::ok;
#endif
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
    case linear_path::arm_mve: detail::linear_s16_mve(a); return status::ok;
#endif
    default: return status::unsupported_path;
  }
}

/// Fused s8 linear compiled for the features `F` (`linear_features`, `kernels/linear_args.hpp`): only
/// the cases `F` admits are instantiated (a Cortex-M plan knows them at compile time: smaller code).
/// Validates `a`, checks `admits(F, a)`, then runs the compile-time path (MVE, else DSP, else the
/// `automatic` path of `linear_s8(a)`). Same bytes as `linear_s8(a)`.
/// @return the `validate` error, `invalid_attribute` if `a` is outside `F`, else `ok`.
template <linear_features F>
[[nodiscard]] status linear_s8(const linear_s8_args& a) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  if (!admits(F, a)) return status::invalid_attribute;
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
  detail::linear_s8_mve<F>(a);
  return status::ok;
#elif defined(ARMLOWER_KERNELS_HAVE_DSP)
  detail::linear_s8_dsp<F>(a);
  return status::ok;
#else
  return linear_s8(a);
#endif
}

/// Fused a16w8 linear compiled for the features `F` (see `linear_s8<F>`). Same bytes as `linear_s16(a)`.
/// @return the `validate` error, `invalid_attribute` if `a` is outside `F`, else `ok`.
template <linear_features F>
[[nodiscard]] status linear_s16(const linear_s16_args& a) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  if (!admits(F, a)) return status::invalid_attribute;
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
  detail::linear_s16_mve<F>(a);
  return status::ok;
#elif defined(ARMLOWER_KERNELS_HAVE_DSP)
  detail::linear_s16_dsp<F>(a);
  return status::ok;
#else
  return linear_s16(a);
#endif
}

/// Rows per group of the pre-packed weight layout (`pack_weights_s8`).
inline constexpr std::int32_t packed_group_rows = 8;

/// Bytes of the pre-packed weight layout of `pack_weights_s8`: rows rounded up to 8, cols to 16.
/// 0 for non-positive dimensions.
[[nodiscard]] constexpr std::size_t packed_weights_s8_size(std::int32_t rows, std::int32_t cols) noexcept {
  if (rows < 1 || cols < 1) return 0;
  return static_cast<std::size_t>((rows + packed_group_rows - 1) / packed_group_rows) * packed_group_rows *
         static_cast<std::size_t>((cols + 15) / 16) * 16;
}

/// Packs s8 weights [rows][cols] for `linear_s8_prepacked` — the ahead-of-time, weights-only form
/// for Cortex-M plans (host code that packs at run time uses `pack_linear_s8`, `kernels/linear_packed.hpp`,
/// which also folds the row constants and picks the CPU's layout; its AVX2 layout orders the bytes of a
/// group by column pair instead, for the batch-blocked `linear_s8_pairs_avx2`).
/// The layout XNNPACK-style GEMV kernels read as one stream; on Helium the 8-row MVE kernel `detail::linear_s8_packed_mve`, which needs only
/// one weight pointer for 8 rows): groups of 8 rows; within a group, for each 16-column chunk, the 16
/// bytes of each of the 8 rows, consecutively (128 bytes); missing rows/columns are zero. Pack once per
/// weight tensor (ahead of time, e.g. when a Cortex-M plan is lowered), into caller-owned memory of
/// `packed_weights_s8_size(rows, cols)` bytes. Constant-evaluable (a plan header can pack at compile time).
/// @return `null_pointer`, `empty_dimension`, `scratch_too_small` (size < packed_weights_s8_size); else `ok`.
[[nodiscard]] constexpr status pack_weights_s8(const std::int8_t* weights, std::int32_t rows, std::int32_t cols,
                                            std::int8_t* packed, std::size_t size) noexcept {
  if (weights == nullptr || packed == nullptr) return status::null_pointer;
  if (rows < 1 || cols < 1) return status::empty_dimension;
  if (size < packed_weights_s8_size(rows, cols)) return status::scratch_too_small;
  const std::int32_t chunks = (cols + 15) / 16;
  std::size_t o = 0;
  for (std::int32_t r0 = 0; r0 < rows; r0 += packed_group_rows) {
    for (std::int32_t c = 0; c < chunks; ++c) {
      for (std::int32_t i = 0; i < packed_group_rows; ++i) {
        for (std::int32_t j = 0; j < 16; ++j) {
          const std::int32_t r = r0 + i, k = c * 16 + j;
          packed[o++] = (r < rows && k < cols) ? weights[static_cast<std::ptrdiff_t>(r) * cols + k] : std::int8_t{0};
        }
      }
    }
  }
  return status::ok;
}

/// Fused s8 linear with weights pre-packed by `pack_weights_s8` (same results as `linear_s8` on the
/// row-major weights). Every path computes from `packed` alone, so `a.weights` may be null (a Cortex-M
/// plan header then holds only the packed copy): the packed AVX2 path on x86 hosts with AVX2, the 8-row
/// Helium path on MVE firmware (`detail::linear_s8_packed_mve`: 0.144 instructions/MAC at 1024²,
/// benchmarks/RESULTS.md); elsewhere `linear_s8(a)` on `a.weights` when given (the DSP/vector path),
/// else the generic path on the packed layout (`detail::linear_s8_packed_generic`).
/// @return the `validate` errors except for `a.weights`; `null_pointer` if packed is null;
///   `scratch_too_small` if packed_size < packed_weights_s8_size(a.rows, a.cols); else `ok`.
[[nodiscard]] inline status linear_s8_prepacked(const linear_s8_args& a, const std::int8_t* packed,
                                                std::size_t packed_size) noexcept {
  if (const status s = detail::validate_s8_except_weights(a); s != status::ok) return s;
  if (packed == nullptr) return status::null_pointer;
  if (packed_size < packed_weights_s8_size(a.rows, a.cols)) return status::scratch_too_small;
#if defined(ARMLOWER_KERNELS_HAVE_X86)
  if (detail::x86_has_avx2()) {
    detail::linear_s8_packed_avx2(a, packed);
    return status::ok;
  }
#endif
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
  detail::linear_s8_packed_mve(a, packed);
  return status::ok;
#else
  if (a.weights != nullptr) return linear_s8(a);
  detail::linear_s8_packed_generic(a, packed);
  return status::ok;
#endif
}

/// `linear_s8_prepacked` compiled for the features `F` (see `linear_s8<F>`): on MVE firmware
/// `detail::linear_s8_packed_mve<F>`; on DSP/scalar firmware `linear_s8<F>(a)` on `a.weights` when
/// given, else the generic path on `packed`; on hosts `linear_s8_prepacked(a, packed, packed_size)`.
/// `a.weights` may be null.
/// @return as `linear_s8_prepacked`, and `invalid_attribute` if `a` is outside `F`.
template <linear_features F>
[[nodiscard]] status linear_s8_prepacked(const linear_s8_args& a, const std::int8_t* packed,
                                         std::size_t packed_size) noexcept {
  if (const status s = detail::validate_s8_except_weights(a); s != status::ok) return s;
  if (packed == nullptr) return status::null_pointer;
  if (packed_size < packed_weights_s8_size(a.rows, a.cols)) return status::scratch_too_small;
  if (!admits(F, a)) return status::invalid_attribute;
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
  detail::linear_s8_packed_mve<F>(a, packed);
  return status::ok;
#elif defined(ARMLOWER_KERNELS_HAVE_X86)
  return linear_s8_prepacked(a, packed, packed_size);
#else
  if (a.weights != nullptr) return linear_s8<F>(a);
  detail::linear_s8_packed_generic(a, packed);
  return status::ok;
#endif
}

/// CMSIS-NN v7 `arm_vector_sum_s8`: for each row r,
/// `kernel_sum[r] = (bias ? bias[r] : 0) + input_offset · (Σ_c w[r][c] + cols · filter_offset)`
/// (the input-offset term only when input_offset ≠ 0, as in CMSIS-NN). Computed in int64 and wrapped
/// to int32 like CMSIS-NN's int32 arithmetic (it cannot overflow for cols ≤ 2^15 and |bias| < 2^30).
/// The result is the `kernel_sum` of `linear_s8_args`.
/// @return `null_pointer` (kernel_sum, weights), `empty_dimension` (cols/rows < 1),
///         `zero_point_out_of_range` (|offsets| > 255); else `ok`.
[[nodiscard]] inline status compute_kernel_sum_s8(std::int32_t* kernel_sum, std::int32_t cols, std::int32_t rows,
                                                  const std::int8_t* weights, std::int32_t input_offset,
                                                  std::int32_t filter_offset, const std::int32_t* bias) noexcept {
  if (kernel_sum == nullptr || weights == nullptr) return status::null_pointer;
  if (cols < 1 || rows < 1) return status::empty_dimension;
  if (!detail::in_range(input_offset, -255, 255) || !detail::in_range(filter_offset, -255, 255)) {
    return status::zero_point_out_of_range;
  }
  for (std::int32_t r = 0; r < rows; ++r) {
    std::int64_t s = bias != nullptr ? bias[r] : 0;
    if (input_offset != 0) {
      const std::int8_t* w = weights + static_cast<std::ptrdiff_t>(r) * cols;
      std::int64_t wsum = 0;
      for (std::int32_t k = 0; k < cols; ++k) wsum += w[k];
      s += static_cast<std::int64_t>(input_offset) * (wsum + static_cast<std::int64_t>(cols) * filter_offset);
    }
    kernel_sum[r] = quant::detail::wrap32(s);
  }
  return status::ok;
}

}  // namespace armlower::kernels
