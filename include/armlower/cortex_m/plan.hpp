/// @file armlower/cortex_m/plan.hpp
/// The Cortex-M plan: what the Cortex-M lowering (`armlower/passes/cortex_m.hpp`, ExecuTorch
/// #15526 `QuantizedLinearFusionPass` + #19676) produces and firmware runs — a constant table of
/// fully-connected layers (pointers to constant arrays + CMSIS-NN kernel parameters) executed in
/// order by `run_plan` with armlower's CMSIS-form kernels (`armlower/compat/cmsis_nn.hpp`).
///
/// Layer semantics (CMSIS-NN v7 conventions: `arm_fully_connected_s8`, `arm_fully_connected_per_channel_s8`, `arm_fully_connected_s16`, `arm_vector_sum_s8`):
///  - `linear_s8`: `arm_fully_connected_s8` / `_per_channel_s8`; `input_offset = −input_zp`,
///    `filter_offset = −weight_zp` (added), `output_offset = +output_zp`; TFLite-style shifts;
///    CMSIS-NN default (double) rounding. For MVE targets the constant `kernel_sum`
///    (= bias + input_offset·(Σw + cols·filter_offset), `arm_vector_sum_s8`) replaces the bias
///    (`bias` null); for DSP/scalar targets `bias` is given and `kernel_sum` is null.
///  - `linear_s16`: `arm_fully_connected_s16` semantics (a16w8: s16 input, s8 weights,
///    int64 bias, no offsets, 64-bit requantization with REDUCE_MULTIPLIER), per tensor or per
///    channel (per channel runs `kernels::linear_s16`, which CMSIS-NN lacks).
/// Activations flow layer to layer through caller-owned scratch (two ping-pong buffers).
///
/// Kernel binding: a layer kind is an activation dtype (`activation_dtype`: INT8 or INT16); the
/// kernels are picked per activation dtype by `run_plan<A>` (`template <dtype::id A>`), and the
/// run-time `run_plan` is `dtype::with_dtype` over it — the mechanism of the interpreter and the
/// MX entry. Firmware whose plan's activation dtype is a compile-time constant calls
/// `run_plan<dtype::id::i8>` (or `i16`) and links only that dtype's kernels; firmware that also knows
/// the layers' quantization kind calls `run_plan<A, F>` with a `kernels::linear_features` set `F`
/// (e.g. `kernels::per_tensor_features`; `static_assert(admits(F, plan))`) and links only those cases.
/// An s8 layer may carry its weights packed ahead of time (`layer::packed_weights`,
/// `kernels::pack_weights_s8`, then `weights` may be null) for the 8-row Helium kernel
/// (`run_plan<A, F, true>`; the run-time `run_plan` uses them when present). A generated MVE plan
/// header packs all of its layers or none (`passes::pack_pays`) and states which (`N::packed`).
///
/// Firmware-clean: noexcept, no heap, no exceptions, no RTTI, no static initialisation; a plan
/// is a `constexpr` aggregate the generated header (`passes/cortex_m_emit.hpp`) defines.
#pragma once

#include <armlower/compat/cmsis_nn.hpp>
#include <armlower/dtype/dtype.hpp>
#include <armlower/dtype/with_dtype.hpp>
#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/status.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace armlower::cortex_m {

/// The ISA whose CMSIS-NN convention the constants follow (kernel_sum on MVE, bias otherwise).
enum class isa : std::uint8_t {
  mve,     ///< Cortex-M55/M85 (Helium): kernel_sum precomputed, bias folded in
  dsp,     ///< Cortex-M4/M7/M33 (DSP extension): int32 bias
  scalar,  ///< Cortex-M0/M0+/M3 (pure C): int32 bias
};

/// Kind of a layer, named after armlower's kernel (`kernels::linear_s8` / `kernels::linear_s16`);
/// the CMSIS-NN function each corresponds to is `cmsis::fully_connected_s8` / `_s16`.
enum class layer_kind : std::uint8_t {
  linear_s8,   ///< s8 × s8 → s8 (per tensor or per channel)
  linear_s16,  ///< s16 × s8 → s16 with int64 bias (the a16w8 scheme)
};

/// One fully-connected layer: y[b][r] for r < rows from x[b][c] for c < cols.
struct layer {
  layer_kind kind = layer_kind::linear_s8;
  std::int32_t cols = 0;                     ///< in_features (accumulation depth)
  std::int32_t rows = 0;                     ///< out_features
  /// [rows][cols] row-major; required for s16 layers; for s8 layers required unless `packed_weights`
  /// is set (then it may be null: every path of `kernels::linear_s8_prepacked` reads the packed copy).
  const std::int8_t* weights = nullptr;
  /// s8, optional: the weights in the `kernels::pack_weights_s8` layout (8-row groups, rows padded to a
  /// multiple of 8 and cols to 16: `kernels::packed_weights_s8_size(rows, cols)` bytes), packed ahead of
  /// time (the generated plan header of an MVE plan holds this copy alone, `weights` null —
  /// `passes/cortex_m_emit.hpp` — or firmware packs at start-up into caller-owned memory). When set,
  /// the layer runs `kernels::linear_s8_prepacked` — on Helium the 8-row kernel (0.144 instead of 0.155
  /// instructions per MAC at 1024², benchmarks/RESULTS.md), elsewhere bit-exact fallbacks.
  const std::int8_t* packed_weights = nullptr;
  const std::int32_t* bias = nullptr;        ///< s8, DSP/scalar: [rows] int32 or null
  const std::int32_t* kernel_sum = nullptr;  ///< s8, MVE: [rows] int32 (bias folded in) or null
  const std::int64_t* bias_s64 = nullptr;    ///< s16: [rows] int64 or null
  std::int32_t input_offset = 0;             ///< −input_zp (s8)
  std::int32_t filter_offset = 0;            ///< −weight_zp (s8)
  std::int32_t output_offset = 0;            ///< +output_zp (s8)
  const std::int32_t* multiplier = nullptr;  ///< per_channel ? [rows] : [1]; TFLite q
  const std::int32_t* shift = nullptr;       ///< per_channel ? [rows] : [1]; TFLite-style (positive = left)
  bool per_channel = false;
  std::int32_t activation_min = -128;        ///< output clamp (after output_offset)
  std::int32_t activation_max = 127;
};

/// A plan: the layers in execution order.
struct plan {
  const layer* layers = nullptr;
  std::size_t layer_count = 0;
  cortex_m::isa isa = cortex_m::isa::mve;  ///< instruction set the plan was lowered for
};

/// The activation (input and output) dtype of a layer kind: INT8 for s8, INT16 for s16.
[[nodiscard]] constexpr dtype::id activation_dtype(layer_kind k) noexcept {
  return k == layer_kind::linear_s16 ? dtype::id::i16 : dtype::id::i8;
}

/// Bytes per activation element of a layer kind (1 for s8, 2 for s16).
[[nodiscard]] constexpr std::size_t element_bytes(layer_kind k) noexcept {
  return k == layer_kind::linear_s16 ? 2 : 1;
}

/// Scratch bytes `run_plan` needs for `batches` input rows: two buffers, each holding the largest
/// intermediate activation (0 for a single layer). Sized so each buffer starts 8-byte aligned.
[[nodiscard]] constexpr std::size_t scratch_bytes(const plan& p, std::int32_t batches) noexcept {
  std::size_t largest = 0;
  for (std::size_t i = 0; i + 1 < p.layer_count; ++i) {
    const auto b = static_cast<std::size_t>(batches < 0 ? 0 : batches) * static_cast<std::size_t>(p.layers[i].rows) *
                   element_bytes(p.layers[i].kind);
    largest = b > largest ? b : largest;
  }
  largest = (largest + 7) / 8 * 8;
  return 2 * largest;
}

/// Input bytes for `batches` rows (first layer's cols × element size).
[[nodiscard]] constexpr std::size_t input_bytes(const plan& p, std::int32_t batches) noexcept {
  return p.layer_count == 0 ? 0
                            : static_cast<std::size_t>(batches) * static_cast<std::size_t>(p.layers[0].cols) *
                                  element_bytes(p.layers[0].kind);
}

/// Output bytes for `batches` rows (last layer's rows × element size).
[[nodiscard]] constexpr std::size_t output_bytes(const plan& p, std::int32_t batches) noexcept {
  if (p.layer_count == 0) return 0;
  const auto& l = p.layers[p.layer_count - 1];
  return static_cast<std::size_t>(batches) * static_cast<std::size_t>(l.rows) * element_bytes(l.kind);
}

/// Checks a plan's structure: layers present, dims ≥ 1, each layer's cols = previous rows and the
/// same activation kind throughout, MVE layers without bias (kernel_sum), DSP/scalar without
/// kernel_sum, multiplier/shift present, weights present — `weights` for s16 layers, `weights` or
/// `packed_weights` (or both) for s8 layers. Constant-evaluable (a generated header
/// `static_assert`s it).
/// @return `null_pointer`, `empty_dimension`, `shape_mismatch`, `unsupported_type`, `invalid_attribute`, or `ok`.
[[nodiscard]] constexpr status validate(const plan& p) noexcept {
  // In constant evaluation (the `static_assert(validate(plan) == ok)` of emitted plans) a null
  // pointer is caught by reading through it, which is not a constant expression: GCC does not fold
  // `&object == nullptr` when -fsanitize=null (part of -fsanitize=undefined) is on.
  if ((!std::is_constant_evaluated() && p.layers == nullptr) || p.layer_count == 0) return status::null_pointer;
  for (std::size_t i = 0; i < p.layer_count; ++i) {
    const auto& l = p.layers[i];
    if (std::is_constant_evaluated()) {
      static_cast<void>(*l.multiplier + *l.shift);
      if (l.kind == layer_kind::linear_s16) {
        static_cast<void>(*l.weights);
      } else if (__builtin_constant_p(l.weights == nullptr) && __builtin_constant_p(l.packed_weights == nullptr) &&
                 l.weights == nullptr && l.packed_weights == nullptr) {
        // An s8 layer needs either array: tested where the comparisons fold (both null always does,
        // so a layer without weights is caught; an array's address under -fsanitize=null does not,
        // and then the run-time `validate` of `run_plan` checks).
        return status::null_pointer;
      }
    } else if (l.multiplier == nullptr || l.shift == nullptr ||
               (l.weights == nullptr && (l.kind == layer_kind::linear_s16 || l.packed_weights == nullptr))) {
      return status::null_pointer;
    }
    if (l.cols < 1 || l.rows < 1) return status::empty_dimension;
    if (i > 0 && (l.cols != p.layers[i - 1].rows || l.kind != p.layers[i - 1].kind)) return status::shape_mismatch;
    if (l.kind == layer_kind::linear_s8) {
      if (p.isa == isa::mve && l.bias != nullptr) return status::invalid_attribute;
      if (p.isa != isa::mve && l.kernel_sum != nullptr) return status::invalid_attribute;
    } else if (l.kind != layer_kind::linear_s16) {
      return status::unsupported_type;
    }
  }
  return status::ok;
}

namespace detail {
/// The `kernels::linear_s16_args` of an s16 layer `l` for `batches` input rows, without the input
/// and output pointers (constant-evaluable: `admits` reads only the layer's facts).
[[nodiscard]] constexpr kernels::linear_s16_args s16_args(const layer& l, std::int32_t batches) noexcept {
  kernels::linear_s16_args a;
  a.weights = l.weights;
  a.bias = l.bias_s64;
  a.batches = batches;
  a.cols = l.cols;
  a.rows = l.rows;
  a.multiplier = l.multiplier;
  a.shift = l.shift;
  a.per_channel = l.per_channel;
  a.activation_min = l.activation_min;
  a.activation_max = l.activation_max;
  return a;
}

/// The `kernels::linear_s8_args` of an s8 layer `l` (see `s16_args`).
[[nodiscard]] constexpr kernels::linear_s8_args s8_args(const layer& l, std::int32_t batches) noexcept {
  kernels::linear_s8_args a;
  a.weights = l.weights;
  a.bias = l.bias;
  a.kernel_sum = l.kernel_sum;
  a.batches = batches;
  a.cols = l.cols;
  a.rows = l.rows;
  a.input_offset = l.input_offset;
  a.filter_offset = l.filter_offset;
  a.output_offset = l.output_offset;
  a.multiplier = l.multiplier;
  a.shift = l.shift;
  a.per_channel = l.per_channel;
  a.activation_min = l.activation_min;
  a.activation_max = l.activation_max;
  return a;
}
}  // namespace detail

/// True if every layer of `p` is within the kernel features `f` (`kernels::admits` of its arguments):
/// what `run_plan<A, F>` requires. Constant-evaluable, so a generated plan can
/// `static_assert(admits(kernels::per_tensor_features, plan))`. Preconditions: `validate(p) == ok`.
[[nodiscard]] constexpr bool admits(const kernels::linear_features& f, const plan& p) noexcept {
  for (std::size_t i = 0; i < p.layer_count; ++i) {
    const layer& l = p.layers[i];
    const bool ok = l.kind == layer_kind::linear_s16 ? kernels::admits(f, detail::s16_args(l, 1))
                                                     : kernels::admits(f, detail::s8_args(l, 1));
    if (!ok) return false;
  }
  return true;
}

/// The smallest kernel feature set that admits every layer of `p` (`admits(features_of(p), p)`):
/// each `kernels::linear_features` flag is set only when some layer needs it. A lowering knows
/// this when it writes a plan, so a generated plan header states it as a constant and firmware
/// calls `run_plan<A, features>` (only those cases linked). Constant-evaluable; O(layers · rows).
/// Preconditions: `validate(p) == ok`.
[[nodiscard]] constexpr kernels::linear_features features_of(const plan& p) noexcept {
  using F = kernels::linear_features;
  const auto needs = [&p](bool F::*flag) {
    F without = kernels::all_features;
    without.*flag = false;
    return !admits(without, p);
  };
  F f;
  f.per_channel = needs(&F::per_channel);
  f.double_round = needs(&F::double_round);
  f.single_round = needs(&F::single_round);
  f.left_shift = needs(&F::left_shift);
  f.filter_offset = needs(&F::filter_offset);
  f.wide = needs(&F::wide);
  return f;
}

namespace detail {
/// One layer with activation dtype `A`, kernels compiled for the features `F`: `kernels::linear_s16<F>`;
/// s8 with `Packed` `kernels::linear_s8_prepacked<F>` on `packed_weights` (null: `null_pointer`),
/// else `kernels::linear_s8<F>` on the row-major weights (null: `null_pointer`) — one s8 kernel
/// instantiated either way.
template <dtype::id A, kernels::linear_features F, bool Packed>
[[nodiscard]] status run_layer_features(const layer& l, std::int32_t batches, const std::byte* in,
                                        std::byte* out) noexcept {
  if constexpr (A == dtype::id::i16) {
    kernels::linear_s16_args a = s16_args(l, batches);
    a.input = reinterpret_cast<const std::int16_t*>(in);
    a.output = reinterpret_cast<std::int16_t*>(out);
    return kernels::linear_s16<F>(a);
  } else {
    kernels::linear_s8_args a = s8_args(l, batches);
    a.input = reinterpret_cast<const std::int8_t*>(in);
    a.output = reinterpret_cast<std::int8_t*>(out);
    if constexpr (Packed) {
      return kernels::linear_s8_prepacked<F>(a, l.packed_weights, kernels::packed_weights_s8_size(l.rows, l.cols));
    } else {
      return kernels::linear_s8<F>(a);
    }
  }
}

/// One layer with activation dtype `A` (INT8: `fully_connected_s8` kernels, INT16: `fully_connected_s16`;
/// an s8 layer with `packed_weights`: `kernels::linear_s8_prepacked`).
template <dtype::id A>
[[nodiscard]] status run_layer(const layer& l, std::int32_t batches, const std::byte* in, std::byte* out) noexcept {
  const cmsis::dims input_dims{batches, 1, 1, l.cols};
  const cmsis::dims filter_dims{l.cols, 1, 1, l.rows};
  const cmsis::dims bias_dims{1, 1, 1, l.rows};
  const cmsis::dims output_dims{batches, 1, 1, l.rows};
  if constexpr (A == dtype::id::i16) {
    if (l.per_channel) {
      // CMSIS-NN has no per-channel s16 fully connected; armlower's kernel has the same semantics.
      kernels::linear_s16_args a = s16_args(l, batches);
      a.input = reinterpret_cast<const std::int16_t*>(in);
      a.output = reinterpret_cast<std::int16_t*>(out);
      return kernels::linear_s16(a);
    }
    const cmsis::fc_params fc{0, 0, 0, {l.activation_min, l.activation_max}};
    const cmsis::per_tensor_quant_params q{l.multiplier[0], l.shift[0]};
    return cmsis::fully_connected_s16(nullptr, &fc, &q, &input_dims, reinterpret_cast<const std::int16_t*>(in),
                                      &filter_dims, l.weights, &bias_dims, l.bias_s64, &output_dims,
                                      reinterpret_cast<std::int16_t*>(out));
  } else {
    if (l.packed_weights != nullptr) return run_layer_features<A, kernels::all_features, true>(l, batches, in, out);
    // s8: CMSIS-NN's ctx.buf carries the kernel_sum (read only; armlower's kernels never write it).
    const cmsis::context ctx{const_cast<std::int32_t*>(l.kernel_sum), 0};  // NOLINT(cppcoreguidelines-pro-type-const-cast)
    const cmsis::fc_params fc{l.input_offset, l.filter_offset, l.output_offset, {l.activation_min, l.activation_max}};
    const auto* x = reinterpret_cast<const std::int8_t*>(in);
    auto* y = reinterpret_cast<std::int8_t*>(out);
    if (l.per_channel) {
      const cmsis::per_channel_quant_params q{const_cast<std::int32_t*>(l.multiplier), const_cast<std::int32_t*>(l.shift)};  // NOLINT
      return cmsis::fully_connected_per_channel_s8(&ctx, &fc, &q, &input_dims, x, &filter_dims, l.weights, &bias_dims,
                                                   l.bias, &output_dims, y);
    }
    const cmsis::per_tensor_quant_params q{l.multiplier[0], l.shift[0]};
    return cmsis::fully_connected_s8(&ctx, &fc, &q, &input_dims, x, &filter_dims, l.weights, &bias_dims, l.bias,
                                     &output_dims, y);
  }
}
}  // namespace detail

namespace detail {
/// `run_plan`'s checks and layer loop; `run_layer(layer, batches, in, out)` runs one layer.
template <class RunLayer>
[[nodiscard]] status run_layers(const plan& p, std::int32_t batches, std::span<const std::byte> input,
                                std::span<std::byte> output, std::span<std::byte> scratch, RunLayer run_layer) noexcept {
  if (const status s = validate(p); s != status::ok) return s;
  if (batches < 1) return status::empty_dimension;
  if (input.size() < input_bytes(p, batches) || output.size() < output_bytes(p, batches)) return status::scratch_too_small;
  const std::size_t need = scratch_bytes(p, batches);
  if (scratch.size() < need) return status::scratch_too_small;
  const std::size_t align = element_bytes(p.layers[0].kind);
  auto misaligned = [&](const void* ptr) { return (reinterpret_cast<std::uintptr_t>(ptr) % align) != 0; };
  if (misaligned(input.data()) || misaligned(output.data()) || (need != 0 && misaligned(scratch.data())))
    return status::scratch_misaligned;
  std::byte* bufs[2] = {scratch.data(), scratch.data() + need / 2};
  const std::byte* in = input.data();
  for (std::size_t i = 0; i < p.layer_count; ++i) {
    std::byte* out = (i + 1 == p.layer_count) ? output.data() : bufs[i % 2];
    if (const status s = run_layer(p.layers[i], batches, in, out); s != status::ok) return s;
    in = out;
  }
  return status::ok;
}
}  // namespace detail

/// Runs the plan, whose layers have the compile-time activation dtype `A` (INT8 or INT16), on
/// `batches` input rows: `input` holds batches × layers[0].cols activations (int8 or int16,
/// little-endian, 2-byte aligned for int16), `output` receives batches × last rows; `scratch`
/// (≥ `scratch_bytes(p, batches)`, 8-byte aligned) holds the intermediates. Only `A`'s kernels
/// are instantiated.
/// @return `validate(p)` errors, `unsupported_type` (the plan's layers are not of dtype `A`),
///   `empty_dimension` (batches < 1), `scratch_too_small` (input, output or scratch smaller than
///   needed), `scratch_misaligned`, or the first kernel error.
template <dtype::id A>
  requires(A == dtype::id::i8 || A == dtype::id::i16)
[[nodiscard]] status run_plan(const plan& p, std::int32_t batches, std::span<const std::byte> input,
                              std::span<std::byte> output, std::span<std::byte> scratch) noexcept {
  if (const status s = validate(p); s != status::ok) return s;
  if (activation_dtype(p.layers[0].kind) != A) return status::unsupported_type;
  return detail::run_layers(p, batches, input, output, scratch, &detail::run_layer<A>);
}

/// Runs the plan like `run_plan<A>`, with kernels compiled only for the compile-time features `F`
/// (`kernels::linear_features`: per-tensor/per-channel, rounding, left shifts, filter offset,
/// accumulator bound), which the lowering knows — e.g. `kernels::per_tensor_features` for a TFLite
/// per-tensor model: the kernels such firmware links are then smaller than CMSIS-NN's
/// (benchmarks/RESULTS.md, "plan mve" / "plan dsp"). `Packed` (s8 only): every s8 layer runs the
/// packed kernel on its `packed_weights` (the 8-row Helium kernel; a layer without them is refused),
/// else every s8 layer runs on its row-major `weights` (a layer without them is refused) — either way
/// one s8 kernel is linked (a per-layer choice would link both; generated plans pack all layers or
/// none and state which as `N::packed`). The
/// CMSIS-NN semantics are those of `run_plan<A>` (armlower's kernels are bit-exact).
/// @return the errors of `run_plan<A>`; `invalid_attribute` for a layer outside `F` (`kernels::admits`)
///   and `null_pointer` for an s8 layer without `packed_weights` (with `Packed`) or without `weights`
///   (without; the layers before it have run).
template <dtype::id A, kernels::linear_features F, bool Packed = false>
  requires(A == dtype::id::i8 || A == dtype::id::i16)
[[nodiscard]] status run_plan(const plan& p, std::int32_t batches, std::span<const std::byte> input,
                              std::span<std::byte> output, std::span<std::byte> scratch) noexcept {
  if (const status s = validate(p); s != status::ok) return s;
  if (activation_dtype(p.layers[0].kind) != A) return status::unsupported_type;
  return detail::run_layers(p, batches, input, output, scratch, &detail::run_layer_features<A, F, Packed>);
}

/// Runs the plan (layers of either activation dtype): each layer's kernels are picked by
/// `dtype::with_dtype` over `detail::run_layer<A>` with the layer's activation dtype (the checks
/// and the layer loop are shared). Arguments and errors as `run_plan<A>`, without the dtype check.
[[nodiscard]] inline status run_plan(const plan& p, std::int32_t batches, std::span<const std::byte> input,
                                     std::span<std::byte> output, std::span<std::byte> scratch) noexcept {
  return detail::run_layers(p, batches, input, output, scratch,
                            [](const layer& l, std::int32_t b, const std::byte* in, std::byte* out) {
                              return dtype::with_dtype(activation_dtype(l.kind), [&](auto a) -> status {
                                constexpr dtype::id A = decltype(a)::value;
                                if constexpr (A == dtype::id::i8 || A == dtype::id::i16)
                                  return detail::run_layer<A>(l, b, in, out);
                                else
                                  return status::unsupported_type;  // not reached: INT8 or INT16
                              });
                            });
}

}  // namespace armlower::cortex_m
