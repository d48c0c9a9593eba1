/// @file armlower/kernels/linear_args.hpp
/// Parameter structs of the fused quantized linear (fully-connected) kernels, and the contract every
/// implementation path (generic, x86 AVX2 / AVX-512 VNNI, Arm DSP, Arm MVE) must meet.
///
/// ## Contract for path implementers (`detail::linear_s8_<path>`, `detail::linear_s16_<path>`)
///
/// ```
/// namespace armlower::kernels::detail {
///   void linear_s8_<path>(const linear_s8_args& a) noexcept;    // e.g. linear_s8_mve, linear_s8_dsp
///   void linear_s16_<path>(const linear_s16_args& a) noexcept;  // e.g. linear_s16_mve, linear_s16_dsp
/// }
/// ```
/// - They are called **only with arguments that passed `validate(a)`** (`kernels/linear.hpp`): all
///   required pointers non-null, dimensions ≥ 1, offsets / shifts / activation range in range. They
///   return nothing and must not fail, allocate, or read/write outside the documented extents.
/// - They must write exactly the same bytes as `detail::linear_s8_generic` / `linear_s16_generic`
///   (`kernels/arch/generic/linear.hpp`) for every valid argument set — including `kernel_sum`
///   given or not, `bias` null or not, per-tensor or per-channel, any `cols` (tails), any batch count.
///   "Same bytes" means the mathematically exact accumulator (no int32 wrap-around) requantized with
///   `quant::requantize_exact` / `quant::requantize_s64`. int32 partial sums are fine where they
///   cannot overflow (see the bounds next to each field).
/// - No alignment can be assumed for any pointer; `input`/`output` of different batches are
///   contiguous (`input + b·cols`, `output + b·rows`). Input and output never alias.
///
/// ## Semantics (s8; source: CMSIS-NN `arm_fully_connected_s8` / `arm_nn_vec_mat_mult_t_s8`,
/// CMSIS-NN v7 `Include/arm_nn_types.h`; CMSIS-NN v7 `arm_vector_sum_s8`)
/// For every batch b in [0, batches) and row (output channel) r in [0, rows):
/// ```
/// row_const[r] = kernel_sum ? kernel_sum[r]
///                           : (bias ? bias[r] : 0) + input_offset · (Σ_c w[r][c] + cols · filter_offset)
/// acc          = row_const[r] + Σ_c x[b][c] · w[r][c] + filter_offset · Σ_c x[b][c]        (exact, int64)
///              = (bias ? bias[r] : 0) + Σ_c (x[b][c] + input_offset) · (w[r][c] + filter_offset)   if kernel_sum == null
/// y[b][r]      = clamp(requantize_exact(acc, multiplier[i], shift[i], rounding) + output_offset,
///                      activation_min, activation_max)          i = per_channel ? r : 0
/// ```
/// `kernel_sum` is CMSIS-NN's precomputed `arm_vector_sum_s8` result (bias folded in); when it is
/// given, `bias` is ignored. `kernels::compute_kernel_sum_s8` produces it.
#pragma once

#include <cstdint>
#include <type_traits>

#include <armlower/quant/requantize.hpp>

namespace armlower::kernels {

/// Arguments of the fused s8 × s8 → s8 linear kernel (CMSIS-NN conventions: offsets are *added*;
/// `input_offset = −input_zp`, `filter_offset = −weight_zp`, `output_offset = +output_zp`;
/// TFLite-style shifts).
struct linear_s8_args {
  const std::int8_t* input = nullptr;        ///< [batches][cols] row-major, required
  /// [rows][cols] row-major (out_ch × accumulation depth), required — except by `linear_s8_prepacked`,
  /// which reads its own packed copy (then it may be null)
  const std::int8_t* weights = nullptr;
  const std::int32_t* bias = nullptr;        ///< [rows] int32, or null for no bias; ignored if kernel_sum != null
  const std::int32_t* kernel_sum = nullptr;  ///< [rows] bias + input_offset·(Σ_c w[r][c] + cols·filter_offset), or null
  std::int8_t* output = nullptr;             ///< [batches][rows] row-major, required
  std::int32_t batches = 0;                  ///< number of input vectors, ≥ 1
  std::int32_t cols = 0;                     ///< accumulation depth K, ≥ 1 (any value, no multiple required)
  std::int32_t rows = 0;                     ///< output channels N, ≥ 1
  std::int32_t input_offset = 0;             ///< −input_zp, |input_offset| ≤ 255
  std::int32_t filter_offset = 0;            ///< −weight_zp, |filter_offset| ≤ 255
  std::int32_t output_offset = 0;            ///< +output_zp, added after requantization, |output_offset| ≤ 2^16
  const std::int32_t* multiplier = nullptr;  ///< per_channel ? [rows] : [1]; TFLite q in [0, 2^31), required
  const std::int32_t* shift = nullptr;       ///< per_channel ? [rows] : [1]; TFLite-style, −31..30, required
  bool per_channel = false;                  ///< multiplier/shift per output channel
  std::int32_t activation_min = -128;        ///< clamp after adding output_offset, −128 ≤ min ≤ max ≤ 127
  std::int32_t activation_max = 127;
  quant::rounding rounding = quant::rounding::double_round;  ///< CMSIS-NN/TFLite default is double rounding
};

/// Arguments of the fused a16w8 linear kernel s16 × s8 → s16 (CMSIS-NN `arm_fully_connected_s16`,
/// TFLite int16 fully connected with int64 bias; CMSIS-NN v7 `arm_nn_vec_mat_mult_t_s16`, TFLite `QuantizeMultiplier`). Symmetric: no offsets
/// (CMSIS-NN and TFLM require zero points of 0 for int16; ExecuTorch's a16w8 uses symmetric weights).
///
/// ```
/// acc     = (bias ? bias[r] : 0) + Σ_c x[b][c] · w[r][c]                      (exact, int64, any cols)
/// y[b][r] = clamp(requantize_s64(acc, reduce_multiplier(multiplier[i]), shift[i]), activation_min, activation_max)
/// ```
/// With TOSA's 16-bit form (multiplier16, shift16 of a RESCALE INT48→INT16 with scale32 = false) pass
/// `multiplier = multiplier16 << 16` and `shift = 15 − shift16` (REDUCE_MULTIPLIER then returns
/// multiplier16 exactly). Bound for implementers: |x·w| ≤ 2^22, so int32 partial sums of ≤ 511
/// columns never overflow (CMSIS-NN's 512-column int32 phase can; CMSIS-NN v7 `arm_nn_vec_mat_mult_t_s16`).
struct linear_s16_args {
  const std::int16_t* input = nullptr;       ///< [batches][cols], required
  const std::int8_t* weights = nullptr;      ///< [rows][cols], required
  const std::int64_t* bias = nullptr;        ///< [rows] int64 (TOSA: INT48), or null for no bias
  std::int16_t* output = nullptr;            ///< [batches][rows], required
  std::int32_t batches = 0;                  ///< ≥ 1
  std::int32_t cols = 0;                     ///< ≥ 1
  std::int32_t rows = 0;                     ///< ≥ 1
  const std::int32_t* multiplier = nullptr;  ///< per_channel ? [rows] : [1]; TFLite 32-bit q ≥ 0 (reduced by the kernel)
  const std::int32_t* shift = nullptr;       ///< per_channel ? [rows] : [1]; TFLite-style, −47..14
  bool per_channel = false;
  std::int32_t activation_min = -32768;      ///< −32768 ≤ min ≤ max ≤ 32767
  std::int32_t activation_max = 32767;
};

/// Compile-time feature set of one instantiation of a linear kernel path (`detail::linear_s8_mve<F>`,
/// `detail::linear_s16_dsp<F>`, …, public entries `linear_s8<F>` / `linear_s16<F>` in `kernels/linear.hpp`).
/// Each `false` removes a case from the instantiation (smaller firmware code: a Cortex-M plan knows
/// all of them when it is lowered); the default `all_features` is full generality, what the run-time
/// general entry points use. An instantiation with restricted features may be called only with
/// arguments that `admits(F, a)` (the public entries check it and return `invalid_attribute`).
struct linear_features {
  bool per_channel = true;    ///< per-channel multiplier/shift may occur (false: `per_channel` is false)
  bool double_round = true;   ///< s8: `rounding` may be double_round (CMSIS-NN/TFLite)
  bool single_round = true;   ///< s8: `rounding` may be single_round (TOSA RESCALE double_round = false)
  bool left_shift = true;     ///< a shift may be > 0 (false: every shift ≤ 0, no CMSIS-NN left shift)
  bool filter_offset = true;  ///< s8: filter_offset may be ≠ 0 (false: symmetric weights)
  bool wide = true;           ///< false: the narrow accumulator bound holds — cols ≤ 8192 and, per row,
                              ///< s8 |kernel_sum| (or |bias| when kernel_sum is null) ≤ 2^29, s16 |bias| < 2^46
                              ///< (then every s8 accumulator fits int32, every s16 one |acc| < 2^47)
};

/// Full generality (the default of every path).
inline constexpr linear_features all_features{};

/// The features of a TFLite/CMSIS-NN per-tensor layer (`arm_fully_connected_s8` / `_s16` with
/// symmetric weights, shifts ≤ 0, double rounding, int32-range accumulators): what a per-tensor
/// Cortex-M plan instantiates.
inline constexpr linear_features per_tensor_features{false, true, false, false, false, false};

namespace detail {
/// `p == nullptr`, also in constant evaluation under GCC's -fsanitize=null (part of
/// -fsanitize=undefined), where comparing an object's address with null does not fold: such a
/// comparison is then an address, i.e. not null. (A null pointer still compares equal.)
template <class T>
[[nodiscard]] constexpr bool is_null(const T* p) noexcept {
  if (std::is_constant_evaluated() && !__builtin_constant_p(p == nullptr)) return false;
  return p == nullptr;
}
}  // namespace detail

/// True if the s8 arguments are within the features `f` (see `linear_features`). O(rows) when
/// `f.wide` is false (bias / kernel_sum bound), else O(1) (O(rows) for per-channel shifts).
/// Preconditions: `validate(a) == ok` (pointers valid).
[[nodiscard]] constexpr bool admits(const linear_features& f, const linear_s8_args& a) noexcept {
  if (!f.per_channel && a.per_channel) return false;
  if (!f.double_round && a.rounding == quant::rounding::double_round) return false;
  if (!f.single_round && a.rounding == quant::rounding::single_round) return false;
  if (!f.filter_offset && a.filter_offset != 0) return false;
  if (!f.wide && a.cols > 8192) return false;
  const std::int32_t n = a.per_channel ? a.rows : 1;
  for (std::int32_t i = 0; i < n && !f.left_shift; ++i) {
    if (a.shift[i] > 0) return false;
  }
  const std::int32_t* c = !detail::is_null(a.kernel_sum) ? a.kernel_sum : a.bias;
  for (std::int32_t r = 0; !detail::is_null(c) && !f.wide && r < a.rows; ++r) {
    if (c[r] < -(1 << 29) || c[r] > (1 << 29)) return false;
  }
  return true;
}

/// True if the a16w8 arguments are within the features `f` (only `per_channel`, `left_shift` and
/// `wide` apply). Preconditions: `validate(a) == ok`.
[[nodiscard]] constexpr bool admits(const linear_features& f, const linear_s16_args& a) noexcept {
  if (!f.per_channel && a.per_channel) return false;
  if (!f.wide && a.cols > 8192) return false;
  const std::int32_t n = a.per_channel ? a.rows : 1;
  for (std::int32_t i = 0; i < n && !f.left_shift; ++i) {
    if (a.shift[i] > 0) return false;
  }
  constexpr std::int64_t lim = std::int64_t{1} << 46;
  for (std::int32_t r = 0; !detail::is_null(a.bias) && !f.wide && r < a.rows; ++r) {
    if (a.bias[r] <= -lim || a.bias[r] >= lim) return false;
  }
  return true;
}

}  // namespace armlower::kernels
