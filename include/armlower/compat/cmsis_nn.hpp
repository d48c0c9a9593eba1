/// @file armlower/compat/cmsis_nn.hpp
/// CMSIS-NN v7-compatible fully-connected entry points (`armlower::cmsis`), with the argument
/// semantics and structs of `arm_fully_connected_s8`, `arm_fully_connected_per_channel_s8`,
/// `arm_fully_connected_wrapper_s8`, `arm_fully_connected_s16`, `arm_vector_sum_s8(_s64)` and the
/// buffer-size functions (CMSIS-NN v7 `arm_nn_types.h`, `Source/FullyConnectedFunctions/`, `arm_vector_sum_s8`, `arm_nn_vec_mat_mult_t_s16`). They run armlower's own
/// kernels (`kernels/linear.hpp`), bit-exact with CMSIS-NN / TFLite on every ISA.
///
/// ## kernel_sum (ctx->buf) or bias — the rule (unlike CMSIS-NN, one answer on every ISA)
/// CMSIS-NN's MVE build reads the bias only from `ctx->buf` (the `arm_vector_sum_s8` output, bias
/// folded in) and ignores `bias`; its DSP/C builds ignore `ctx->buf` and read `bias`. Callers written
/// for one convention silently get wrong results on the other (ExecuTorch #19676). armlower instead:
/// 1. **`bias != nullptr`** → the bias is used, and `ctx->buf` is ignored (never read or written). The
///    bias is the ground truth a kernel_sum is derived from, so this is right for both conventions.
/// 2. **`bias == nullptr` and `ctx->buf != nullptr`** → `ctx->buf` is read as the kernel_sum
///    (`rows` int32, `vector_sum_s8` output with the bias folded in, as CMSIS-NN MVE / ExecuTorch emit).
///    Then `ctx->buf` must be 4-byte aligned (`status::scratch_misaligned`) and, when `ctx->size` > 0,
///    `ctx->size` ≥ `rows·4` (`status::scratch_too_small`; `ctx->size == 0` means "size not given",
///    as ExecuTorch passes it).
/// 3. **both null** → no bias; the input/filter offset terms are computed by the kernel.
/// The one thing a caller must not do is pass an *uninitialised* scratch buffer in `ctx->buf` together
/// with a null bias (a CMSIS-NN DSP/C caller never needs to: `*_get_buffer_size_dsp` is 0).
///
/// `fully_connected_s8_get_buffer_size` returns `rows·4` on every ISA (room for a kernel_sum), so a
/// caller following the CMSIS-NN MVE recipe (allocate, `vector_sum_s8` into ctx.buf, pass bias or not)
/// is correct everywhere. No function here needs scratch for its own work.
///
/// ## Packed weights in ctx->buf (armlower extension, opt-in by buffer size; host x86)
/// A caller that gives `ctx->size ≥ fully_connected_s8_get_cache_buffer_size(filter_dims)` (ctx->buf
/// then holds [kernel-sum area: rows·4 bytes rounded up to 64][`kernels::linear_s8(a, cache, size)`
/// buffer: packed weights]) lets the s8 entry
/// points run the packed microkernels (`kernels/linear_packed.hpp`): the first call packs the weights
/// (and bias or kernel_sum, offsets) into the second part, later calls reuse them while the kernel,
/// bias and ctx->buf kernel_sum addresses, shape and offsets are the same. The kernel-sum area keeps
/// rule 2 above (the caller's kernel_sum, never written by armlower). Because the packing persists,
/// such a buffer must belong to this layer: a caller that changes the weights, bias or kernel_sum
/// in place, or lets other code use the buffer between calls, calls `reset_context_cache` first.
/// `get_buffer_size` keeps CMSIS-NN's meaning (scratch that a runtime such as TFLM may share between
/// operators), so a caller that asks for it — or passes a smaller buffer or `ctx->size == 0` — runs
/// the unpacked path and the buffer beyond the kernel_sum is never touched. Same bytes either way.
///
/// Return values are `armlower::status` (more specific than `arm_cmsis_nn_status`); `to_cmsis_status`
/// maps them (ok → 0 = ARM_CMSIS_NN_SUCCESS, errors → −1 = ARM_CMSIS_NN_ARG_ERROR).
/// Firmware-clean: noexcept, no heap, no exceptions.
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/linear_packed.hpp>
#include <armlower/kernels/linear_s16_packed.hpp>
#include <armlower/kernels/status.hpp>

namespace armlower::cmsis {

/// `cmsis_nn_context`: caller-owned buffer (`buf`, `size` bytes).
struct context {
  void* buf = nullptr;
  std::int32_t size = 0;
};

/// `cmsis_nn_activation`: output clamp range.
struct activation {
  std::int32_t min = -128;
  std::int32_t max = 127;
};

/// `cmsis_nn_fc_params`. `input_offset = −input_zp`, `filter_offset = −filter_zp` (both added to the
/// operands); `output_offset = +output_zp` (added after requantization — CMSIS-NN's struct comment
/// saying "negative" is wrong, CMSIS-NN v7 `Include/arm_nn_types.h`).
struct fc_params {
  std::int32_t input_offset = 0;
  std::int32_t filter_offset = 0;
  std::int32_t output_offset = 0;
  cmsis::activation activation{};
};

/// `cmsis_nn_per_tensor_quant_params`: TFLite q and shift (positive = left).
struct per_tensor_quant_params {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
};

/// `cmsis_nn_per_channel_quant_params`: one (q, shift) per output channel.
struct per_channel_quant_params {
  std::int32_t* multiplier = nullptr;
  std::int32_t* shift = nullptr;
};

/// `cmsis_nn_quant_params` (for `fully_connected_wrapper_s8`).
struct quant_params {
  std::int32_t* multiplier = nullptr;
  std::int32_t* shift = nullptr;
  std::int32_t is_per_channel = 0;
};

/// `cmsis_nn_dims` {n, h, w, c}. For fully connected: `input_dims->n` = batches; `filter_dims->n` =
/// accumulation depth (columns), `filter_dims->c` = `output_dims->c` = output channels (rows).
struct dims {
  std::int32_t n = 0, h = 0, w = 0, c = 0;
};

/// `arm_cmsis_nn_status` values.
enum class cmsis_status : std::int32_t { success = 0, arg_error = -1, no_impl_error = -2, failure = -3 };

/// Maps an armlower status to CMSIS-NN's: ok → success, unsupported_path → no_impl_error, else arg_error.
[[nodiscard]] constexpr cmsis_status to_cmsis_status(status s) noexcept {
  if (s == status::ok) return cmsis_status::success;
  if (s == status::unsupported_path) return cmsis_status::no_impl_error;
  return cmsis_status::arg_error;
}

/// `arm_fully_connected_s8_get_buffer_size`: `filter_dims->c · 4` bytes on every ISA (see file
/// comment); 0 for a null or non-positive filter_dims.
[[nodiscard]] constexpr std::int32_t fully_connected_s8_get_buffer_size(const dims* filter_dims) noexcept {
  return filter_dims != nullptr && filter_dims->c > 0 ? filter_dims->c * static_cast<std::int32_t>(sizeof(std::int32_t)) : 0;
}
namespace detail {
/// Bytes of the kernel-sum area at the start of a cache buffer: rows·4 rounded up to 64.
[[nodiscard]] constexpr std::size_t kernel_sum_area(std::int32_t rows) noexcept {
  return rows > 0 ? (static_cast<std::size_t>(rows) * 4 + 63) / 64 * 64 : 0;
}
}  // namespace detail

/// armlower extension: the `ctx->size` that makes the s8 entry points keep packed weights in
/// `ctx->buf` (see the file comment): kernel-sum area + `kernels::linear_s8_cache_size(rows, cols)`
/// with rows = `filter_dims->c`, cols = `filter_dims->n`. 0 for a null or non-positive filter_dims or
/// a size above INT32_MAX (no packing possible).
[[nodiscard]] constexpr std::int32_t fully_connected_s8_get_cache_buffer_size(const dims* filter_dims) noexcept {
  if (filter_dims == nullptr || filter_dims->c < 1 || filter_dims->n < 1) return 0;
  const std::size_t p = kernels::linear_s8_cache_size(filter_dims->c, filter_dims->n);
  const std::size_t n = detail::kernel_sum_area(filter_dims->c) + p;
  return p == 0 || n > static_cast<std::size_t>(INT32_MAX) ? 0 : static_cast<std::int32_t>(n);
}

/// armlower extension: the `ctx->size` that makes `fully_connected_s16` keep packed weights in `ctx->buf`
/// (as the s8 entry points, see the file comment): the same kernel-sum area (unused by s16) +
/// `kernels::linear_s16_cache_size(rows, cols)`, rows = `filter_dims->c`, cols = `filter_dims->n`. 0 for a null
/// or non-positive filter_dims or a size above INT32_MAX.
[[nodiscard]] constexpr std::int32_t fully_connected_s16_get_cache_buffer_size(const dims* filter_dims) noexcept {
  if (filter_dims == nullptr || filter_dims->c < 1 || filter_dims->n < 1) return 0;
  const std::size_t p = kernels::linear_s16_cache_size(filter_dims->c, filter_dims->n);
  const std::size_t n = detail::kernel_sum_area(filter_dims->c) + p;
  return p == 0 || n > static_cast<std::size_t>(INT32_MAX) ? 0 : static_cast<std::int32_t>(n);
}

/// armlower extension: invalidates the packed weights kept in `ctx->buf` (the next call repacks).
/// Needed after changing weights, bias or kernel_sum in place. No effect when ctx, buf are null or
/// the buffer is too small to have held packed weights.
inline void reset_context_cache(const context* ctx, const dims* filter_dims) noexcept {
  if (ctx == nullptr || ctx->buf == nullptr || filter_dims == nullptr || filter_dims->c < 1) return;
  const std::size_t off = detail::kernel_sum_area(filter_dims->c);
  if (ctx->size > 0 && static_cast<std::size_t>(ctx->size) >= off + 64) {
    kernels::reset_linear_s8_cache(static_cast<std::uint8_t*>(ctx->buf) + off, static_cast<std::size_t>(ctx->size) - off);
  }
}

/// `arm_fully_connected_s8_get_buffer_size_mve` (same as above).
[[nodiscard]] constexpr std::int32_t fully_connected_s8_get_buffer_size_mve(const dims* filter_dims) noexcept {
  return fully_connected_s8_get_buffer_size(filter_dims);
}
/// `arm_fully_connected_s8_get_buffer_size_dsp`: 0 (a DSP-convention caller passes the bias).
[[nodiscard]] constexpr std::int32_t fully_connected_s8_get_buffer_size_dsp(const dims* /*filter_dims*/) noexcept {
  return 0;
}
/// `arm_fully_connected_s16_get_buffer_size`: 0 (no scratch, no kernel_sum).
[[nodiscard]] constexpr std::int32_t fully_connected_s16_get_buffer_size(const dims* /*filter_dims*/) noexcept {
  return 0;
}

/// `arm_vector_sum_s8(sum_buf, vector_cols, vector_rows, vector_data, lhs_offset, rhs_offset, bias_data)`:
/// `sum_buf[r] = (bias ? bias[r] : 0) + lhs_offset·(Σ_c w[r][c] + vector_cols·rhs_offset)` (the offset
/// term only when lhs_offset ≠ 0). Pass `input_offset` as lhs_offset and `filter_offset` as rhs_offset.
/// @return `null_pointer`, `empty_dimension`, `zero_point_out_of_range`, else `ok`.
[[nodiscard]] inline status vector_sum_s8(std::int32_t* sum_buf, std::int32_t vector_cols, std::int32_t vector_rows,
                                          const std::int8_t* vector_data, std::int32_t lhs_offset,
                                          std::int32_t rhs_offset, const std::int32_t* bias_data) noexcept {
  return kernels::compute_kernel_sum_s8(sum_buf, vector_cols, vector_rows, vector_data, lhs_offset, rhs_offset,
                                        bias_data);
}

/// `arm_vector_sum_s8_s64(sum_buf, vector_cols, vector_rows, vector_data, lhs_offset, bias_data)`:
/// int64 sums `(bias ? bias[r] : 0) + lhs_offset·Σ_c w[r][c]` (no rhs offset), exact.
/// @return `null_pointer`, `empty_dimension`, else `ok`.
[[nodiscard]] inline status vector_sum_s8_s64(std::int64_t* sum_buf, std::int32_t vector_cols, std::int32_t vector_rows,
                                              const std::int8_t* vector_data, std::int32_t lhs_offset,
                                              const std::int64_t* bias_data) noexcept {
  if (sum_buf == nullptr || vector_data == nullptr) return status::null_pointer;
  if (vector_cols < 1 || vector_rows < 1) return status::empty_dimension;
  for (std::int32_t r = 0; r < vector_rows; ++r) {
    const std::int8_t* w = vector_data + static_cast<std::int64_t>(r) * vector_cols;
    std::int64_t s = 0;
    for (std::int32_t c = 0; c < vector_cols; ++c) s += w[c];
    sum_buf[r] = kernels::detail::add_sat64(bias_data != nullptr ? bias_data[r] : 0, s * lhs_offset);
  }
  return status::ok;
}

namespace detail {

/// Shared argument handling of the s8 entry points (dims, kernel_sum/bias rule, scratch checks).
[[nodiscard]] inline status fill_s8(const context* ctx, const fc_params* fc, const dims* input_dims,
                                    const std::int8_t* input, const dims* filter_dims, const std::int8_t* kernel,
                                    const std::int32_t* bias, const dims* output_dims, std::int8_t* output,
                                    kernels::linear_s8_args& a, void*& cache, std::size_t& cache_size) noexcept {
  if (fc == nullptr || input_dims == nullptr || filter_dims == nullptr || output_dims == nullptr) {
    return status::null_pointer;
  }
  if (filter_dims->c > 0 && filter_dims->c != output_dims->c) return status::shape_mismatch;
  a.input = input;
  a.weights = kernel;
  a.output = output;
  a.batches = input_dims->n;
  a.cols = filter_dims->n;
  a.rows = output_dims->c;
  a.input_offset = fc->input_offset;
  a.filter_offset = fc->filter_offset;
  a.output_offset = fc->output_offset;
  a.activation_min = fc->activation.min;
  a.activation_max = fc->activation.max;
  a.bias = bias;
  a.kernel_sum = nullptr;
  if (bias == nullptr && ctx != nullptr && ctx->buf != nullptr) {
    if (reinterpret_cast<std::uintptr_t>(ctx->buf) % alignof(std::int32_t) != 0) return status::scratch_misaligned;
    if (a.rows > 0 && ctx->size > 0 && ctx->size < a.rows * static_cast<std::int32_t>(sizeof(std::int32_t))) {
      return status::scratch_too_small;
    }
    a.kernel_sum = static_cast<const std::int32_t*>(ctx->buf);
  }
  cache = nullptr;
  cache_size = 0;
  if (ctx != nullptr && ctx->buf != nullptr && a.rows > 0 && a.cols > 0) {
    const dims fd{a.cols, 1, 1, a.rows};
    const std::int32_t need = fully_connected_s8_get_cache_buffer_size(&fd);
    if (need > 0 && ctx->size >= need) {
      const std::size_t off = kernel_sum_area(a.rows);
      cache = static_cast<std::uint8_t*>(ctx->buf) + off;
      cache_size = static_cast<std::size_t>(ctx->size) - off;
    }
  }
  return status::ok;
}

}  // namespace detail

/// `arm_fully_connected_s8`: per-tensor requantization (CMSIS-NN default double rounding).
/// Weights `kernel` are [output_dims->c][filter_dims->n] row-major; input [input_dims->n][filter_dims->n];
/// output [input_dims->n][output_dims->c]. Bias / kernel_sum / packed weights in ctx->buf: see the file comment.
/// @return `null_pointer` (any struct or data pointer), `shape_mismatch` (filter_dims->c ≠ output_dims->c),
///   `scratch_misaligned` / `scratch_too_small` (ctx->buf used as kernel_sum), and every error of
///   `kernels::validate(linear_s8_args)`; else `ok`.
[[nodiscard]] inline status fully_connected_s8(const context* ctx, const fc_params* fc_params,
                                               const per_tensor_quant_params* quant_params, const dims* input_dims,
                                               const std::int8_t* input, const dims* filter_dims,
                                               const std::int8_t* kernel, const dims* /*bias_dims*/,
                                               const std::int32_t* bias, const dims* output_dims,
                                               std::int8_t* output) noexcept {
  if (quant_params == nullptr) return status::null_pointer;
  kernels::linear_s8_args a;
  void* cache = nullptr;
  std::size_t cache_size = 0;
  if (const status s = detail::fill_s8(ctx, fc_params, input_dims, input, filter_dims, kernel, bias, output_dims,
                                       output, a, cache, cache_size);
      s != status::ok) {
    return s;
  }
  a.multiplier = &quant_params->multiplier;
  a.shift = &quant_params->shift;
  a.per_channel = false;
  return kernels::linear_s8(a, cache, cache_size);
}

/// `arm_fully_connected_per_channel_s8`: as `fully_connected_s8` with `quant_params->multiplier[r]`,
/// `quant_params->shift[r]` per output channel r.
/// @return as `fully_connected_s8`.
[[nodiscard]] inline status fully_connected_per_channel_s8(const context* ctx, const fc_params* fc_params,
                                                           const per_channel_quant_params* quant_params,
                                                           const dims* input_dims, const std::int8_t* input,
                                                           const dims* filter_dims, const std::int8_t* kernel,
                                                           const dims* /*bias_dims*/, const std::int32_t* bias,
                                                           const dims* output_dims, std::int8_t* output) noexcept {
  if (quant_params == nullptr) return status::null_pointer;
  kernels::linear_s8_args a;
  void* cache = nullptr;
  std::size_t cache_size = 0;
  if (const status s = detail::fill_s8(ctx, fc_params, input_dims, input, filter_dims, kernel, bias, output_dims,
                                       output, a, cache, cache_size);
      s != status::ok) {
    return s;
  }
  a.multiplier = quant_params->multiplier;
  a.shift = quant_params->shift;
  a.per_channel = true;
  return kernels::linear_s8(a, cache, cache_size);
}

/// `arm_fully_connected_wrapper_s8`: dispatches on `quant_params->is_per_channel` (per-tensor uses
/// `*multiplier`, `*shift`). @return as `fully_connected_s8`.
[[nodiscard]] inline status fully_connected_wrapper_s8(const context* ctx, const fc_params* fc_params,
                                                       const quant_params* quant_params, const dims* input_dims,
                                                       const std::int8_t* input, const dims* filter_dims,
                                                       const std::int8_t* kernel, const dims* bias_dims,
                                                       const std::int32_t* bias, const dims* output_dims,
                                                       std::int8_t* output) noexcept {
  if (quant_params == nullptr || quant_params->multiplier == nullptr || quant_params->shift == nullptr) {
    return status::null_pointer;
  }
  if (quant_params->is_per_channel != 0) {
    const per_channel_quant_params pc{quant_params->multiplier, quant_params->shift};
    return fully_connected_per_channel_s8(ctx, fc_params, &pc, input_dims, input, filter_dims, kernel, bias_dims,
                                          bias, output_dims, output);
  }
  const per_tensor_quant_params pt{*quant_params->multiplier, *quant_params->shift};
  return fully_connected_s8(ctx, fc_params, &pt, input_dims, input, filter_dims, kernel, bias_dims, bias,
                            output_dims, output);
}

/// `arm_fully_connected_s16`: int16 input, int8 weights, int64 bias (nullable), int16 output; exact
/// int64 accumulation for any depth and the 64-bit requantization without CMSIS-NN's int32 truncation
/// (CMSIS-NN v7 `arm_nn_vec_mat_mult_t_s16`, `arm_nn_requantize_s64`; int64 partial sums beyond 511 columns).
/// `ctx` may be null; with `ctx->size ≥ fully_connected_s16_get_cache_buffer_size(filter_dims)` the packed
/// weights are kept in `ctx->buf` past the kernel-sum area (armlower extension, as for s8: file comment,
/// `reset_context_cache`), else `ctx` is not touched.
/// @return `null_pointer`, `shape_mismatch`, `zero_point_out_of_range` (any offset ≠ 0: int16 is
///   symmetric in CMSIS-NN/TFLM), and every error of `kernels::validate(linear_s16_args)`; else `ok`.
[[nodiscard]] inline status fully_connected_s16(const context* ctx, const fc_params* fc_params,
                                                const per_tensor_quant_params* quant_params, const dims* input_dims,
                                                const std::int16_t* input, const dims* filter_dims,
                                                const std::int8_t* kernel, const dims* /*bias_dims*/,
                                                const std::int64_t* bias, const dims* output_dims,
                                                std::int16_t* output) noexcept {
  if (fc_params == nullptr || quant_params == nullptr || input_dims == nullptr || filter_dims == nullptr ||
      output_dims == nullptr) {
    return status::null_pointer;
  }
  if (filter_dims->c > 0 && filter_dims->c != output_dims->c) return status::shape_mismatch;
  if (fc_params->input_offset != 0 || fc_params->filter_offset != 0 || fc_params->output_offset != 0) {
    return status::zero_point_out_of_range;
  }
  kernels::linear_s16_args a;
  a.input = input;
  a.weights = kernel;
  a.bias = bias;
  a.output = output;
  a.batches = input_dims->n;
  a.cols = filter_dims->n;
  a.rows = output_dims->c;
  a.multiplier = &quant_params->multiplier;
  a.shift = &quant_params->shift;
  a.activation_min = fc_params->activation.min;
  a.activation_max = fc_params->activation.max;
  const std::int32_t need = fully_connected_s16_get_cache_buffer_size(filter_dims);
  if (ctx != nullptr && ctx->buf != nullptr && need > 0 && ctx->size >= need) {
    const std::size_t off = detail::kernel_sum_area(filter_dims->c);
    return kernels::linear_s16(a, static_cast<std::uint8_t*>(ctx->buf) + off, static_cast<std::size_t>(ctx->size) - off);
  }
  return kernels::linear_s16(a);
}

}  // namespace armlower::cmsis
