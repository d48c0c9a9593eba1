/// @file armlower/kernels/conv2d.hpp
/// TOSA CONV2D (the TOSA form of a linear layer is RESHAPE → CONV2D 1×1 → RESCALE): NHWC input,
/// OHWI weights, bias, input/weight zero points, pad/stride/dilation. A generic path for every
/// supported type row (what the TOSA interpreter calls) and fast paths for int8 and s16 × s8 1×1
/// convolutions with stride 1, dilation 1 and no padding (a GEMM; on x86 hosts AVX-512 VNNI, int8
/// also AVX2).
///
/// Source: TOSA 1.0 specification, CONV2D (pseudocode `operators/CONV2D.tosac`). Type rows implemented
/// (in_t, weight_t, out_t = acc_t) with their C++ storage:
/// - s8×s8 → i32: `int8_t, int8_t, int32_t`
/// - s16×s8 → i48: `int16_t, int8_t, int64_t` (INT48 values in int64 storage)
/// - every floating-point row (FP8E4M3, FP8E5M2, FP16, BF16, FP32 inputs; FP16, BF16 or FP32
///   output; FP16 or FP32 accumulator): `float, float, float`, the inputs decoded exactly to
///   float and the formats given by `float_rounding`. Accumulation follows the pseudocode's loop
///   order (ky, kx, ic): an FP32 accumulator adds the fp32 products in fp32; an FP16 accumulator
///   rounds every product and every partial sum to FP16 (`acc = rnd16(acc + rnd16(in·w))`, the
///   pseudocode's `apply_add_s<fp16_t>(acc, apply_mul_s<fp16_t>(value, weight))`); then, as the
///   pseudocode, `out = rnd_out(rnd_out(acc) + bias)` (`static_cast<out_t>(acc)`, then
///   `apply_add_s<out_t>` with the bias). This is exactly what the TOSA reference model
///   (tosa-tools 2026.8 `tosa_reference_model`) computes: measured bit-identical on FP8 → FP16,
///   FP8 → FP32, FP16 acc FP16, FP16 acc FP32 and BF16 rows (tests/run/refmodel_cases.hpp), so
///   the results also lie within the spec's dot-product error bound.
/// Firmware-clean: noexcept, no heap; status codes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <armlower/dtype/float16.hpp>
#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/status.hpp>
#include <armlower/kernels/storage.hpp>

namespace armlower::kernels {

/// CONV2D shapes and attributes. Input [n, ih, iw, ic], weight [oc, kh, kw, ic], bias [bias_size]
/// (BC = oc or 1), output [n, oh, ow, oc] with oh/ow from `conv2d_output_size`.
struct conv2d_shape {
  std::int32_t n = 1, ih = 1, iw = 1, ic = 1;
  std::int32_t oc = 1, kh = 1, kw = 1;
  std::int32_t bias_size = 1;                ///< BC: oc, or 1 (broadcast)
  std::array<std::int32_t, 4> pad{0, 0, 0, 0};  ///< [top, bottom, left, right], ≥ 0
  std::array<std::int32_t, 2> stride{1, 1};     ///< [y, x], ≥ 1
  std::array<std::int32_t, 2> dilation{1, 1};   ///< [y, x], ≥ 1
};

/// Output spatial size in int64 (never wraps, whatever the attributes), with the ERROR_IFs of the
/// spec: pads ≥ 0, strides and dilations ≥ 1, all dimensions ≥ 1, BC ∈ {OC, 1}, and
/// `(IH − 1 + pad_top + pad_bottom − (KH − 1)·dilation_y)` divisible by stride_y with a result ≥ 0
/// (same for x). `oh`/`ow` may exceed INT32_MAX (e.g. pads of 2^31 − 1): callers compare them with
/// a declared shape (the one shape rule of `armlower check` and `armlower run`).
/// @return `empty_dimension`, `invalid_attribute` (pad/stride/dilation), `shape_mismatch` (bias size,
///   non-integral or empty output), else `ok` and oh, ow.
[[nodiscard]] constexpr status conv2d_output_size(const conv2d_shape& s, std::int64_t& oh, std::int64_t& ow) noexcept {
  if (s.n < 1 || s.ih < 1 || s.iw < 1 || s.ic < 1 || s.oc < 1 || s.kh < 1 || s.kw < 1) return status::empty_dimension;
  for (auto p : s.pad) if (p < 0) return status::invalid_attribute;
  if (s.stride[0] < 1 || s.stride[1] < 1 || s.dilation[0] < 1 || s.dilation[1] < 1) return status::invalid_attribute;
  if (s.bias_size != s.oc && s.bias_size != 1) return status::shape_mismatch;
  const std::int64_t ny = std::int64_t{s.ih} - 1 + std::int64_t{s.pad[0]} + std::int64_t{s.pad[1]} -
                          (std::int64_t{s.kh} - 1) * std::int64_t{s.dilation[0]};
  const std::int64_t nx = std::int64_t{s.iw} - 1 + std::int64_t{s.pad[2]} + std::int64_t{s.pad[3]} -
                          (std::int64_t{s.kw} - 1) * std::int64_t{s.dilation[1]};
  if (ny < 0 || nx < 0) return status::shape_mismatch;
  std::int64_t qy = ny, qx = nx;  // stride 1 (most layers) needs no 64-bit division
  if (s.stride[0] > 1) {
    if (ny % s.stride[0] != 0) return status::shape_mismatch;
    qy = ny / s.stride[0];
  }
  if (s.stride[1] > 1) {
    if (nx % s.stride[1] != 0) return status::shape_mismatch;
    qx = nx / s.stride[1];
  }
  oh = qy + 1;
  ow = qx + 1;
  return status::ok;
}

/// As above with int32 results, as the kernel's output indexing needs: an output dimension above
/// INT32_MAX is `shape_mismatch` (no int32 tensor can have it).
[[nodiscard]] constexpr status conv2d_output_size(const conv2d_shape& s, std::int32_t& oh, std::int32_t& ow) noexcept {
  std::int64_t h = 0, w = 0;
  if (const status st = conv2d_output_size(s, h, w); st != status::ok) return st;
  if (h > INT32_MAX || w > INT32_MAX) return status::shape_mismatch;
  oh = static_cast<std::int32_t>(h);
  ow = static_cast<std::int32_t>(w);
  return status::ok;
}

/// A binary floating-point format a float CONV2D / MATMUL row accumulates or stores in.
enum class real_format : std::uint8_t {
  fp32,  ///< IEEE binary32 (no extra rounding)
  fp16,  ///< IEEE binary16
  bf16,  ///< bfloat16
};

/// `x` rounded to nearest-even in `f` (overflow to ±Inf, subnormals kept; `dtype/float16.hpp`),
/// returned exactly as float.
[[nodiscard]] constexpr float round_real(float x, real_format f) noexcept {
  switch (f) {
    case real_format::fp16: return dtype::fp16_to_fp32(dtype::fp32_to_fp16(x));
    case real_format::bf16: return dtype::bf16_to_fp32(dtype::fp32_to_bf16(x));
    case real_format::fp32: break;
  }
  return x;
}

/// Accumulator (acc_type; MATMUL: out_t) and output format of a float CONV2D / MATMUL row.
/// Default: the FP32 row.
struct float_rounding {
  real_format acc = real_format::fp32;  ///< FP32 or FP16 (TOSA rows have no BF16 accumulator)
  real_format out = real_format::fp32;  ///< out_t
};

namespace detail {

/// Accumulator and range facts of a CONV2D / MATMUL integer output type.
template <class Out>
struct int_out_traits {
  static constexpr std::int64_t min = sizeof(Out) == 4 ? INT32_MIN : -(std::int64_t{1} << 47);
  static constexpr std::int64_t max = sizeof(Out) == 4 ? INT32_MAX : (std::int64_t{1} << 47) - 1;
};

/// Exact Σ_c (x[c] + xoff)·w_i[c] for `nr` ≤ 4 rows — AVX2 when available, else portable.
inline void dot_rows_s8(const std::int8_t* x, const std::int8_t* const* w, int nr, std::int32_t cols,
                        std::int16_t xoff, std::int64_t* out) noexcept {
#if defined(ARMLOWER_KERNELS_HAVE_X86)
  if (x86_has_avx2()) {
    for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += s8_block_with_offsets) {
      const std::ptrdiff_t k1 = k0 + s8_block_with_offsets < cols ? k0 + s8_block_with_offsets : cols;
      dot_rows_s8_avx2(x, w, nr, k0, k1, xoff, out);
    }
    return;
  }
#endif
  for (int i = 0; i < nr; ++i) {
    for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += s8_block_with_offsets) {
      const std::ptrdiff_t k1 = k0 + s8_block_with_offsets < cols ? k0 + s8_block_with_offsets : cols;
      std::int32_t part = 0;
      for (std::ptrdiff_t k = k0; k < k1; ++k) part += (x[k] + xoff) * w[i][k];
      out[i] += part;
    }
  }
}

/// True if `s` is a 1×1, stride-1, unpadded CONV2D: a [M = n·ih·iw, ic] × [oc, ic]ᵀ GEMM.
[[nodiscard]] constexpr bool is_conv2d_1x1(const conv2d_shape& s) noexcept {
  return s.kh == 1 && s.kw == 1 && s.stride[0] == 1 && s.stride[1] == 1 && s.pad[0] == 0 && s.pad[1] == 0 &&
         s.pad[2] == 0 && s.pad[3] == 0;
}

/// The linear view of an int8 1×1 CONV2D: rows = oc, cols = ic, input_offset = −input_zp,
/// filter_offset = −weight_zp (no bias: TOSA checks the accumulator before adding it).
[[nodiscard]] inline linear_s8_args conv2d_1x1_linear(const conv2d_shape& s, const std::int8_t* weight,
                                                      std::int8_t input_zp, std::int8_t weight_zp) noexcept {
  linear_s8_args a;
  a.weights = weight;
  a.rows = s.oc;
  a.cols = s.ic;
  a.input_offset = -std::int32_t{input_zp};
  a.filter_offset = -std::int32_t{weight_zp};
  return a;
}

#if defined(ARMLOWER_KERNELS_HAVE_X86)
/// Runs `kernel(args, out)` — an s8 kernel writing raw int32 accumulators + bias (AVX-512 VNNI or AVX2)
/// (`vnni_acc32_out`) — over the M positions of a 1×1 CONV2D in calls of ≤ 2^24 rows (int32 counts).
/// @return `value_out_of_range` (REQUIRE: accumulator or accumulator + bias outside int32), else `ok`.
template <class Kernel>
[[nodiscard]] status conv2d_1x1_acc32(const conv2d_shape& s, const std::int8_t* input, const std::int32_t* bias,
                                      std::int8_t input_zp, std::int8_t weight_zp, std::int32_t* output,
                                      Kernel kernel) noexcept {
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  const std::int32_t unit_q = 1 << 30, zero_shift = 0;  // requantization unused (raw accumulators)
  linear_s8_args a = conv2d_1x1_linear(s, nullptr, input_zp, weight_zp);
  a.multiplier = &unit_q;
  a.shift = &zero_shift;
  vnni_acc32_out o;
  o.bias = bias;
  o.bias_size = s.bias_size;
  constexpr std::int64_t chunk = std::int64_t{1} << 24;
  for (std::int64_t p0 = 0; p0 < m; p0 += chunk) {
    a.batches = static_cast<std::int32_t>(m - p0 < chunk ? m - p0 : chunk);
    a.input = input + p0 * s.ic;
    o.out = output + p0 * s.oc;
    kernel(a, o);
    if (o.range_error) return status::value_out_of_range;
  }
  return status::ok;
}
#endif

/// Fast int8 1×1 CONV2D (stride 1, dilation 1, no pad): a [M = n·ih·iw, ic] × [oc, ic]ᵀ GEMM.
/// `path` (tests and benchmarks; `automatic` by default): on x86 hosts with AVX-512 VNNI the
/// row-major `vpdpbusd` microkernel of `linear_s8` (`arch/x86/linear_vnni_rowdot.hpp`, raw int32
/// accumulator output: acc = Σ (x + input_offset)·(w + filter_offset) with input_offset = −input_zp,
/// filter_offset = −weight_zp, exact in int64, then the same REQUIRE checks) — measured faster than
/// the AVX2 dot-rows loop on every benchmarked shape (benchmarks/RESULTS.md,
/// `BM_s8_interpreter_conv2d_1x1*`); else, with AVX2, where `rowpairs_pays` (M positions, oc, ic) the
/// repack form of `linear_s8(a)` (`conv_s8_acc32_rowpairs_avx2`, arch/x86/linear_avx2_rowpairs.hpp: the
/// same raw accumulator output and REQUIREs; `BM_s8_interpreter_conv2d_1x1_avx2` at 8 positions × 64² / 256² /
/// 1024²: 47.1 / 64.9 / 64.2 GMAC/s against 12.2 / 29.7 / 35.9 for the dot rows, Zen 4 restricted to AVX2),
/// else AVX2 dot rows; else portable.
inline status conv2d_1x1_s8(const conv2d_shape& s, const std::int8_t* input, const std::int8_t* weight,
                            const std::int32_t* bias, std::int8_t input_zp, std::int8_t weight_zp,
                            std::int32_t* output, linear_path path = linear_path::automatic) noexcept {
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  const std::int32_t ic = s.ic;
#if defined(ARMLOWER_KERNELS_HAVE_X86)
  if ((path == linear_path::automatic || path == linear_path::x86_avx512_vnni) && x86_has_avx512_vnni_vl()) {
    return conv2d_1x1_acc32(s, input, bias, input_zp, weight_zp, output,
                            [weight, ic](const linear_s8_args& a, vnni_acc32_out& o) {
                              linear_s8_rowdot_vnni(a, weight, ic, nullptr, &o);
                            });
  }
  if ((path == linear_path::automatic || path == linear_path::x86_avx2) && x86_has_avx2() &&
      rowpairs_pays(m < INT32_MAX ? static_cast<std::int32_t>(m) : INT32_MAX, s.oc, ic)) {
    return conv2d_1x1_acc32(s, input, bias, input_zp, weight_zp, output,
                            [weight](const linear_s8_args& a, vnni_acc32_out& o) {
                              conv_s8_acc32_rowpairs_avx2(a, weight, o);
                            });
  }
#endif
  (void)path;
  for (std::int32_t o0 = 0; o0 < s.oc; o0 += 4) {
    const int nr = s.oc - o0 < 4 ? s.oc - o0 : 4;
    const std::int8_t* w[4];
    for (int i = 0; i < 4; ++i) w[i] = weight + static_cast<std::ptrdiff_t>(o0 + (i < nr ? i : 0)) * ic;
    for (std::int64_t p = 0; p < m; ++p) {
      const std::int8_t* x = input + p * ic;
      std::int64_t acc[4] = {0, 0, 0, 0};
      dot_rows_s8(x, w, nr, ic, static_cast<std::int16_t>(-input_zp), acc);  // Σ (x − izp)·w
      std::int64_t xs = 0;
      if (weight_zp != 0) {
        for (std::int32_t k = 0; k < ic; ++k) xs += x[k];
        xs -= std::int64_t{input_zp} * ic;  // Σ (x − izp)
      }
      for (int i = 0; i < nr; ++i) {
        const std::int64_t a = acc[i] - std::int64_t{weight_zp} * xs;
        if (a < INT32_MIN || a > INT32_MAX) return status::value_out_of_range;
        const std::int64_t y = a + bias[s.bias_size == 1 ? 0 : o0 + i];
        if (y < INT32_MIN || y > INT32_MAX) return status::value_out_of_range;
        output[p * s.oc + o0 + i] = static_cast<std::int32_t>(y);
      }
    }
  }
  return status::ok;
}

#if defined(ARMLOWER_KERNELS_HAVE_X86)
/// One MR × NR tile (batch positions [m0, m0 + MR), output channels [r0, r0 + NR), clamped) of the
/// s16 × s8 1×1 CONV2D: exact int64 sums from `vnni_s16_sums` (`arch/x86/linear_s16_vnni.hpp`),
/// REQUIRE acc and acc + bias within int48, stored. False on a REQUIRE failure.
template <int MR, int NR>
[[nodiscard]] bool conv2d_1x1_s16_tile(const linear_s16_args& a, std::int32_t r0, std::int32_t m0,
                                       const std::int64_t* bias, std::int32_t bias_size, std::int64_t* out) noexcept {
  alignas(64) std::int64_t sum[MR * 8];
  vnni_s16_sums<MR, NR>(a, r0, m0, sum);
  using lim = int_out_traits<std::int64_t>;
  const int nv = a.rows - r0 < NR ? a.rows - r0 : NR;
  for (int m = 0; m < MR; ++m) {
    for (int i = 0; i < nv; ++i) {
      const std::int64_t acc = sum[8 * m + i];
      if (acc < lim::min || acc > lim::max) return false;
      const std::int64_t v = acc + bias[bias_size == 1 ? 0 : r0 + i];
      if (v < lim::min || v > lim::max) return false;
      out[static_cast<std::ptrdiff_t>(m0 + m) * a.rows + r0 + i] = v;
    }
  }
  return true;
}

/// Fast s16 × s8 → INT48 1×1 CONV2D (stride 1, dilation 1, no pad, input_zp 0 as TOSA requires for
/// INT16, weight_zp 0) on x86 hosts with AVX-512 F/BW/VL/DQ/VNNI: the `vpdpwssd` microkernel of
/// `linear_s16` (`arch/x86/linear_s16_vnni.hpp`, exact for any K) over the M = n·ih·iw positions in
/// its tile order (`vnni_s16_tiles`), then the generic path's REQUIREs. Precondition: `x86_has_avx512_vnni_dq()`.
/// @return `value_out_of_range` (REQUIRE: accumulator or accumulator + bias outside int48), else `ok`.
[[nodiscard]] inline status conv2d_1x1_s16(const conv2d_shape& s, const std::int16_t* input, const std::int8_t* weight,
                                           const std::int64_t* bias, std::int64_t* output) noexcept {
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  linear_s16_args a;
  a.weights = weight;
  a.rows = s.oc;
  a.cols = s.ic;
  constexpr std::int64_t chunk = std::int64_t{1} << 24;  // int32 batch counts
  for (std::int64_t p0 = 0; p0 < m; p0 += chunk) {
    a.batches = static_cast<std::int32_t>(m - p0 < chunk ? m - p0 : chunk);
    a.input = input + p0 * s.ic;
    std::int64_t* out = output + p0 * s.oc;
    const bool ok = vnni_s16_tiles(a, [&](auto mr, auto nr, std::int32_t r0, std::int32_t m0) {
      return conv2d_1x1_s16_tile<decltype(mr)::value, decltype(nr)::value>(a, r0, m0, bias, s.bias_size, out);
    });
    if (!ok) return status::value_out_of_range;
  }
  return status::ok;
}
#endif

}  // namespace detail

/// TOSA CONV2D: `out[n,oy,ox,oc] = Σ_{ky,kx,ic in bounds} (in − input_zp)·(w − weight_zp) + bias[BC==1 ? 0 : oc]`;
/// padding contributes 0 (not input_zp). Chooses the fast int8 1×1 path when it applies, and for
/// s16 × s8 → INT48 1×1 with weight_zp 0 the AVX-512 VNNI one (`detail::conv2d_1x1_s16`) where the CPU has it.
/// @tparam In, W, Out `storage_t` of a CONV2D type row's input, weight and accumulator dtypes (the
///   interpreter names them from `tosa::rows_of(op::conv2d)`); `dot_storage` states what compiles.
/// @param output [n, oh, ow, oc] (`conv2d_output_size`)
/// @param fr accumulator and output formats of a float row (ignored by the integer rows)
/// @return `null_pointer`; the `conv2d_output_size` errors; `zero_point_out_of_range` (input_zp ≠ 0
///   unless In is int8; weight_zp ≠ 0 unless W is int8 — float zero points must be 0); `value_out_of_range`
///   (REQUIRE: the accumulator or accumulator + bias leaves int32 / int48; INT48 bias not an int48).
///   Partial sums are accumulated exactly in int64, so only the final accumulator is range-checked.
template <class In, class W, class Out>
  requires dot_storage<In, Out> && dot_storage<W, Out>
[[nodiscard]] status conv2d(const conv2d_shape& s, const In* input, const W* weight, const Out* bias, In input_zp,
                            W weight_zp, Out* output, float_rounding fr = {}) noexcept {
  if (input == nullptr || weight == nullptr || bias == nullptr || output == nullptr) return status::null_pointer;
  std::int32_t oh = 0, ow = 0;
  if (const status st = conv2d_output_size(s, oh, ow); st != status::ok) return st;
  if (input_zp != In{0} && !std::is_same_v<In, std::int8_t>) return status::zero_point_out_of_range;
  if (weight_zp != W{0} && !std::is_same_v<W, std::int8_t>) return status::zero_point_out_of_range;
  constexpr bool is_float = std::is_same_v<Out, float>;
  if constexpr (std::is_same_v<Out, std::int64_t>) {
    for (std::int32_t i = 0; i < s.bias_size; ++i) {
      if (bias[i] < detail::int_out_traits<Out>::min || bias[i] > detail::int_out_traits<Out>::max) {
        return status::value_out_of_range;
      }
    }
  }
  if constexpr (std::is_same_v<In, std::int8_t>) {
    if (detail::is_conv2d_1x1(s)) {
      return detail::conv2d_1x1_s8(s, input, weight, bias, input_zp, weight_zp, output);
    }
  }
#if defined(ARMLOWER_KERNELS_HAVE_X86)
  if constexpr (std::is_same_v<In, std::int16_t> && std::is_same_v<W, std::int8_t> && std::is_same_v<Out, std::int64_t>) {
    if (detail::is_conv2d_1x1(s) && weight_zp == 0 && detail::x86_has_avx512_vnni_dq()) {
      return detail::conv2d_1x1_s16(s, input, weight, bias, output);
    }
  }
#endif
  using acc_t = std::conditional_t<is_float, float, std::int64_t>;
  for (std::int32_t n = 0; n < s.n; ++n) {
    for (std::int32_t oy = 0; oy < oh; ++oy) {
      for (std::int32_t ox = 0; ox < ow; ++ox) {
        for (std::int32_t oc = 0; oc < s.oc; ++oc) {
          acc_t acc = 0;
          const std::int64_t y0 = std::int64_t{oy} * s.stride[0] - s.pad[0];
          const std::int64_t x0 = std::int64_t{ox} * s.stride[1] - s.pad[2];
          for (std::int32_t ky = 0; ky < s.kh; ++ky) {
            const std::int64_t y = y0 + std::int64_t{ky} * s.dilation[0];
            if (y < 0 || y >= s.ih) continue;
            for (std::int32_t kx = 0; kx < s.kw; ++kx) {
              const std::int64_t x = x0 + std::int64_t{kx} * s.dilation[1];
              if (x < 0 || x >= s.iw) continue;
              const In* ip = input + ((std::int64_t{n} * s.ih + y) * s.iw + x) * s.ic;
              const W* wp = weight + ((std::int64_t{oc} * s.kh + ky) * s.kw + kx) * s.ic;
              if constexpr (is_float) {
                if (fr.acc == real_format::fp16) {
                  for (std::int32_t c = 0; c < s.ic; ++c)
                    acc = round_real(acc + round_real(ip[c] * wp[c], real_format::fp16), real_format::fp16);
                } else {
                  for (std::int32_t c = 0; c < s.ic; ++c) acc += ip[c] * wp[c];
                }
              } else {
                std::int64_t part = 0;
                for (std::int32_t c = 0; c < s.ic; ++c) {
                  part += static_cast<std::int64_t>(ip[c] - input_zp) * (wp[c] - weight_zp);
                }
                acc += part;
              }
            }
          }
          Out& o = output[((std::int64_t{n} * oh + oy) * ow + ox) * s.oc + oc];
          const Out b = bias[s.bias_size == 1 ? 0 : oc];
          if constexpr (is_float) {
            o = round_real(round_real(acc, fr.out) + b, fr.out);
          } else {
            using lim = detail::int_out_traits<Out>;
            if (acc < lim::min || acc > lim::max) return status::value_out_of_range;
            const std::int64_t v = acc + b;
            if (v < lim::min || v > lim::max) return status::value_out_of_range;
            o = static_cast<Out>(v);
          }
        }
      }
    }
  }
  return status::ok;
}

}  // namespace armlower::kernels
