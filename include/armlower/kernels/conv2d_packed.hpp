/// @file armlower/kernels/conv2d_packed.hpp
/// int8 1×1 CONV2D (stride 1, dilation 1, no padding: the TOSA form of a fully-connected layer)
/// over weights packed once: `pack_conv2d_1x1_s8` writes a `pack_linear_s8` layout
/// (`kernels/detail/linear_s8_packed_layout.hpp`) with input_offset·Σw and K·input_offset·filter_offset
/// folded into per-channel int64 constants (the bias is NOT folded, because TOSA checks the
/// accumulator before the bias is added), `conv2d_1x1_s8_packed` runs that layout's microkernel
/// with a raw int32 accumulator epilogue (`detail::vnni_acc32_out`). The layout is the one the CPU
/// runs (`linear_path`, default `automatic`):
/// - AVX-512 F/BW/VL/VNNI: the `vpdpbusd` panels (`arch/x86/linear_vnni_packed.hpp`; rows < 16
///   row-major, `arch/x86/linear_vnni_rowdot.hpp`);
/// - AVX2 without AVX-512 VNNI: the column pairs of `linear_s8_pairs_avx2`
///   (`arch/x86/linear_avx2_pairs.hpp`), input not offset (the folded constants carry it).
/// Same integers and statuses as `kernels::conv2d<int8_t, int8_t, int32_t>` on the row-major
/// weights (TOSA 1.0 CONV2D pseudocode, REQUIRE: accumulator and accumulator + bias in int32).
/// A caller whose CPU runs neither (`conv2d_1x1_s8_packed_native()` false), or where packing does not pay
/// (`conv2d_1x1_s8_packed_pays`), keeps `conv2d`. A caller that runs one layer many times checks the call
/// once (`plan_conv2d_1x1_s8_packed` → `conv2d_1x1_s8_packed_plan`) and runs the plan on each input: the TOSA
/// interpreter's `run::session` keeps such a buffer and plan per constant weight tensor. Firmware-clean (no
/// heap, no exceptions); the packed path exists on x86 hosts only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/linear_packed.hpp>
#include <armlower/kernels/status.hpp>

namespace armlower::kernels {

/// Bytes of a `pack_conv2d_1x1_s8` buffer for `oc` output channels × `ic` input channels, for any
/// layout (= `linear_s8_packed_size(oc, ic)`; 0 if either is < 1 or the size overflows).
[[nodiscard]] constexpr std::size_t conv2d_1x1_s8_packed_size(std::int32_t oc, std::int32_t ic) noexcept {
  return linear_s8_packed_size(oc, ic);
}

namespace detail {

/// The layout a packed 1×1 CONV2D of `oc` × `ic` weights uses for `path` (`automatic`: AVX-512 VNNI where the CPU
/// has it, else the AVX2 column pairs where it has AVX2; `x86_avx2` / `x86_avx512_vnni`: that layout; the AVX2 one
/// as int16 for small layers, `avx2_pairs_kind`); false for paths with no packed CONV2D (`generic`, Arm paths,
/// non-x86 hosts).
[[nodiscard]] inline bool conv2d_1x1_s8_packed_kind(linear_path path, packed_s8_layout_kind& kind, std::int64_t oc = 1,
                                                    std::int64_t ic = 1) noexcept {
  if (path != linear_path::automatic && path != linear_path::x86_avx2 && path != linear_path::x86_avx512_vnni) {
    return false;
  }
  kind = packed_s8_kind_for(path, oc, ic);
  return true;
}

}  // namespace detail

/// True if this CPU runs `conv2d_1x1_s8_packed` for `path` (default `automatic`): x86 with AVX-512
/// F/BW/VL/VNNI (the VNNI layout), or with AVX2 (the column-pair layout; `automatic` takes it where
/// AVX-512 VNNI is absent). Whether packing pays for a given layer: `conv2d_1x1_s8_packed_pays`.
[[nodiscard]] inline bool conv2d_1x1_s8_packed_native(linear_path path = linear_path::automatic) noexcept {
  detail::packed_s8_layout_kind kind{};
  return detail::conv2d_1x1_s8_packed_kind(path, kind) && detail::packed_s8_runs(kind);
}

/// True if a caller that can keep a packed buffer (the TOSA interpreter's `run::session`, per constant
/// weight tensor) should run `s` as `pack_conv2d_1x1_s8` + `conv2d_1x1_s8_packed` (`automatic`) rather
/// than `conv2d`: `s` is a 1×1, stride-1, unpadded CONV2D, the CPU runs a packed kernel, and — for the
/// AVX2 column-pair layout (CPUs without AVX-512 VNNI) — the layer is of a kind where that kernel was
/// measured faster than `conv2d`'s row-major AVX2 loop: oc ≥ 16, or oc ≥ 8 with M = n·ih·iw ≥ 8.
/// Measured (Zen 4 restricted to AVX2, GCC 12 -O3 -march=x86-64-v3, `bench_kernels_linear`, median GMAC/s,
/// `BM_s8_interpreter_conv2d_1x1_packed_avx2[_narrow]` against `BM_s8_interpreter_conv2d_1x1_avx2[_narrow]`):
/// oc ≥ 16: 1.22–4.25× (M = 8 at 64² / 256² / 1024²: 52.2 / 73.2 / 79.1 against 12.3 / 29.5 / 36.2; M = 1
/// at 1024²: 54.0 against 32.5); oc 8 and 12 with M = 8: 1.35–2.86×; but oc 8 / 12 with M = 1: 0.84–1.13×,
/// and oc 4: 0.43–0.84× (4000×4: 20.2 / 32.9 against 38.3 / 39.3 at M = 1 / 8; 1.19× only at M = 8, K = 64),
/// so those keep `conv2d`.
[[nodiscard]] inline bool conv2d_1x1_s8_packed_pays(const conv2d_shape& s) noexcept {
  if (!detail::is_conv2d_1x1(s) || !conv2d_1x1_s8_packed_native()) return false;
  if (!detail::packed_s8_avx2_kind(detail::packed_s8_kind_for(linear_path::automatic, s.oc, s.ic))) return true;
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  return s.oc >= 16 || (s.oc >= 8 && m >= 8);
}

/// Packs the weights [oc][1][1][ic] (TOSA CONV2D weight layout OHWI with KH = KW = 1) of a 1×1 CONV2D
/// with zero points `input_zp`, `weight_zp` into `packed` (`conv2d_1x1_s8_packed_size(s.oc, s.ic)` bytes),
/// in the layout `conv2d_1x1_s8_packed` runs for `path` (see `conv2d_1x1_s8_packed_native`; the layout
/// is written whether or not this CPU runs it).
/// @return `null_pointer` (weight, packed); `invalid_attribute` (not 1×1, stride 1, unpadded);
///   `unsupported_path` (`path` has no packed CONV2D: `generic`, the Arm paths); `empty_dimension`
///   (oc or ic < 1); `scratch_too_small`; else `ok`.
[[nodiscard]] inline status pack_conv2d_1x1_s8(const conv2d_shape& s, const std::int8_t* weight, std::int8_t input_zp,
                                               std::int8_t weight_zp, void* packed, std::size_t size,
                                               linear_path path = linear_path::automatic) noexcept {
  if (weight == nullptr || packed == nullptr) return status::null_pointer;
  if (!detail::is_conv2d_1x1(s)) return status::invalid_attribute;
  detail::packed_s8_layout_kind kind = detail::packed_s8_layout_kind::vnni;
  if (!detail::conv2d_1x1_s8_packed_kind(path, kind, s.oc, s.ic)) return status::unsupported_path;
  return pack_linear_s8(detail::conv2d_1x1_linear(s, weight, input_zp, weight_zp), packed, size,
                        detail::packed_s8_avx2_kind(kind) ? linear_path::x86_avx2 : linear_path::x86_avx512_vnni);
}

/// A `conv2d_1x1_s8_packed` call checked once: the shape, the packed buffer (header, layout, zero
/// points, alignment), the bias pointer and the path, made by `plan_conv2d_1x1_s8_packed`. Running it
/// (`conv2d_1x1_s8_packed(plan, input, output)`) re-checks nothing but the two pointers, for callers
/// that run one layer many times (the TOSA interpreter's `run::session`). Plain data, no ownership:
/// valid while the packed buffer and the bias it was made for are unchanged. Default-constructed:
/// empty (running it reports `null_pointer`).
class conv2d_1x1_s8_packed_plan {
 public:
  conv2d_1x1_s8_packed_plan() = default;
  /// The layer's shape.
  [[nodiscard]] const conv2d_shape& shape() const noexcept { return s_; }

 private:
  friend status plan_conv2d_1x1_s8_packed(const conv2d_shape&, const void*, std::size_t, const std::int32_t*,
                                          std::int8_t, std::int8_t, conv2d_1x1_s8_packed_plan&, linear_path) noexcept;
  friend status conv2d_1x1_s8_packed(const conv2d_1x1_s8_packed_plan&, const std::int8_t*, std::int32_t*) noexcept;
  conv2d_shape s_{};
  const std::uint8_t* packed_ = nullptr;
  const std::int32_t* bias_ = nullptr;
  std::int8_t input_zp_ = 0, weight_zp_ = 0;
  detail::packed_s8_layout_kind kind_{};
  detail::packed_s8_geometry geo_{};
};

/// Checks a `conv2d_1x1_s8_packed` call of `s` over `packed` (`size` bytes, written by
/// `pack_conv2d_1x1_s8` with the same `path`), `bias` [s.bias_size] int32 and zero points `input_zp`,
/// `weight_zp` — every check of that call except the input and output pointers — and on success
/// writes the checked call to `plan`.
/// @return `null_pointer` (packed, bias); the `conv2d_output_size` errors; `invalid_attribute` (not 1×1,
///   stride 1, unpadded); `unsupported_path` (no packed kernel for `path` on this CPU); `scratch_too_small`;
///   `shape_mismatch` (buffer not packed, or for another oc/ic or layout, or bias_size ∉ {1, oc});
///   `zero_point_out_of_range` (packed for other zero points); `scratch_misaligned`; else `ok`
///   (`plan` is left unchanged on an error).
[[nodiscard]] inline status plan_conv2d_1x1_s8_packed(const conv2d_shape& s, const void* packed, std::size_t size,
                                                      const std::int32_t* bias, std::int8_t input_zp,
                                                      std::int8_t weight_zp, conv2d_1x1_s8_packed_plan& plan,
                                                      linear_path path = linear_path::automatic) noexcept {
  if (packed == nullptr || bias == nullptr) return status::null_pointer;
  std::int32_t oh = 0, ow = 0;
  if (const status st = conv2d_output_size(s, oh, ow); st != status::ok) return st;
  if (!detail::is_conv2d_1x1(s)) return status::invalid_attribute;
  detail::packed_s8_layout_kind kind{};
  if (!detail::conv2d_1x1_s8_packed_kind(path, kind, s.oc, s.ic) || !detail::packed_s8_runs(kind)) return status::unsupported_path;
  if (size < conv2d_1x1_s8_packed_size(s.oc, s.ic) || size < sizeof(detail::packed_s8_header)) {
    return status::scratch_too_small;
  }
  detail::packed_s8_header h;
  std::memcpy(&h, packed, sizeof h);
  const auto* base = static_cast<const std::uint8_t*>(packed);
  const detail::packed_s8_geometry geo = detail::packed_s8_layout(s.oc, s.ic, kind);
  if (h.magic != detail::packed_s8_magic || h.rows != s.oc || h.cols != s.ic || h.kernel_sum_form != 0 ||
      h.bias_id != 0 || h.layout != static_cast<std::int32_t>(kind)) {
    return status::shape_mismatch;
  }
  if (h.input_offset != -std::int32_t{input_zp} || h.filter_offset != -std::int32_t{weight_zp}) {
    return status::zero_point_out_of_range;
  }
  if (reinterpret_cast<std::uintptr_t>(base + geo.c64) % alignof(std::int64_t) != 0) return status::scratch_misaligned;
  plan.s_ = s;
  plan.packed_ = base;
  plan.bias_ = bias;
  plan.input_zp_ = input_zp;
  plan.weight_zp_ = weight_zp;
  plan.kind_ = kind;
  plan.geo_ = geo;
  return status::ok;
}

/// Runs the checked call `plan` (`plan_conv2d_1x1_s8_packed`) on `input` [n, ih, iw, ic] int8 into
/// `output` [n, ih, iw, oc] int32: the integers and statuses of `conv2d_1x1_s8_packed` below.
/// @return `null_pointer` (input, output, or an empty plan); `value_out_of_range` (REQUIRE: accumulator or
///   accumulator + bias outside int32; the output is then unspecified); `unsupported_path` (a host with no
///   packed kernel compiled in); else `ok`.
[[nodiscard]] inline status conv2d_1x1_s8_packed(const conv2d_1x1_s8_packed_plan& plan, const std::int8_t* input,
                                                 std::int32_t* output) noexcept {
  if (input == nullptr || output == nullptr || plan.packed_ == nullptr) return status::null_pointer;
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  const std::uint8_t* base = plan.packed_;
  const detail::packed_s8_geometry& geo = plan.geo_;
  const auto* c64 = reinterpret_cast<const std::int64_t*>(base + geo.c64);
  if (detail::packed_s8_avx2_kind(plan.kind_)) {
    return detail::conv2d_1x1_acc32(plan.s_, input, plan.bias_, plan.input_zp_, plan.weight_zp_, output,
                                    [base, c64, &geo](const linear_s8_args& a, detail::vnni_acc32_out& o) {
                                      detail::with_avx2_weights(base, geo, [&](const auto* w) {
                                        detail::linear_s8_pairs_avx2(a, w, &o, c64);
                                      });
                                    });
  }
  return detail::conv2d_1x1_acc32(plan.s_, input, plan.bias_, plan.input_zp_, plan.weight_zp_, output,
                                  [base, c64, &geo](const linear_s8_args& a, detail::vnni_acc32_out& o) {
                                    if (geo.narrow) {  // < 16 channels: row-major rows, folded constants
                                      detail::linear_s8_rowdot_vnni(
                                          a, reinterpret_cast<const std::int8_t*>(base + geo.weights),
                                          static_cast<std::ptrdiff_t>(geo.row_stride), c64, &o);
                                    } else {
                                      detail::linear_s8_packed_vnni(a, base, geo, &o);
                                    }
                                  });
#else
  return status::unsupported_path;
#endif
}

/// CONV2D int8 × int8 → int32 of `s` (1×1, stride 1, unpadded) over a buffer written by
/// `pack_conv2d_1x1_s8` with the same `path`: `output[p][oc] = Σ_ic (input[p][ic] − input_zp)·(w[oc][ic] −
/// weight_zp) + bias[bias_size == 1 ? 0 : oc]` for the n·ih·iw input positions p
/// (`plan_conv2d_1x1_s8_packed` then running the plan).
/// @param input [n, ih, iw, ic] int8; @param bias [s.bias_size] int32; @param output [n, ih, iw, oc] int32
/// @return `null_pointer`; the `conv2d_output_size` errors; `invalid_attribute` (not 1×1, stride 1,
///   unpadded); `unsupported_path` (the CPU has no packed kernel for `path`: `conv2d_1x1_s8_packed_native(path)`
///   is false); `shape_mismatch` (buffer not packed, or packed for another oc/ic or another layout than
///   `path`'s, or bias_size ∉ {1, oc}); `scratch_too_small`; `scratch_misaligned` (the buffer's int64
///   constants not 8-byte aligned); `zero_point_out_of_range` (packed for other zero points);
///   `value_out_of_range` (REQUIRE: accumulator or accumulator + bias outside int32; the output is then
///   unspecified); else `ok`.
[[nodiscard]] inline status conv2d_1x1_s8_packed(const conv2d_shape& s, const std::int8_t* input, const void* packed,
                                                 std::size_t size, const std::int32_t* bias, std::int8_t input_zp,
                                                 std::int8_t weight_zp, std::int32_t* output,
                                                 linear_path path = linear_path::automatic) noexcept {
  if (input == nullptr || output == nullptr) return status::null_pointer;
  conv2d_1x1_s8_packed_plan plan;
  if (const status st = plan_conv2d_1x1_s8_packed(s, packed, size, bias, input_zp, weight_zp, plan, path);
      st != status::ok) {
    return st;
  }
  return conv2d_1x1_s8_packed(plan, input, output);
}

}  // namespace armlower::kernels
