/// @file armlower/kernels/conv2d_packed.hpp
/// int8 1×1 CONV2D (stride 1, dilation 1, no padding: the TOSA form of a fully-connected layer)
/// over weights packed once: `pack_conv2d_1x1_s8` writes the `pack_linear_s8` AVX-512 VNNI layout
/// (weights as `vpdpbusd` panels, input_offset·Σw and K·input_offset·filter_offset folded into
/// per-channel constants; the bias is NOT folded, because TOSA checks the accumulator before the
/// bias is added), `conv2d_1x1_s8_packed` runs the packed microkernel with an int32 epilogue.
/// Same integers and statuses as `kernels::conv2d<int8_t, int8_t, int32_t>` on the row-major
/// weights (TOSA 1.0 CONV2D pseudocode, REQUIRE: accumulator and accumulator + bias in int32).
/// Runs only where the packed VNNI kernel does (`conv2d_1x1_s8_packed_native`); a caller without it
/// keeps `conv2d`. The TOSA interpreter's `run::session` keeps such a buffer per constant weight
/// tensor. Firmware-clean (no heap, no exceptions); the packed path exists on x86 hosts only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/linear_packed.hpp>
#include <armlower/kernels/status.hpp>

namespace armlower::kernels {

/// Bytes of a `pack_conv2d_1x1_s8` buffer for `oc` output channels × `ic` input channels
/// (= `linear_s8_packed_size(oc, ic)`; 0 if either is < 1 or the size overflows).
[[nodiscard]] constexpr std::size_t conv2d_1x1_s8_packed_size(std::int32_t oc, std::int32_t ic) noexcept {
  return linear_s8_packed_size(oc, ic);
}

/// True if this CPU runs `conv2d_1x1_s8_packed` (x86 with AVX-512 F/BW/VL/VNNI).
[[nodiscard]] inline bool conv2d_1x1_s8_packed_native() noexcept {
  return linear_s8_packed_native(linear_path::x86_avx512_vnni);
}

/// Packs the weights [oc][1][1][ic] (TOSA CONV2D weight layout OHWI with KH = KW = 1) of a 1×1 CONV2D
/// with zero points `input_zp`, `weight_zp` into `packed` (`conv2d_1x1_s8_packed_size(s.oc, s.ic)` bytes).
/// @return `null_pointer` (weight, packed); `invalid_attribute` (not 1×1, stride 1, unpadded);
///   `empty_dimension` (oc or ic < 1); `scratch_too_small`; else `ok`.
[[nodiscard]] inline status pack_conv2d_1x1_s8(const conv2d_shape& s, const std::int8_t* weight, std::int8_t input_zp,
                                               std::int8_t weight_zp, void* packed, std::size_t size) noexcept {
  if (weight == nullptr || packed == nullptr) return status::null_pointer;
  if (!detail::is_conv2d_1x1(s)) return status::invalid_attribute;
  return pack_linear_s8(detail::conv2d_1x1_linear(s, weight, input_zp, weight_zp), packed, size,
                        linear_path::x86_avx512_vnni);
}

/// CONV2D int8 × int8 → int32 of `s` (1×1, stride 1, unpadded) over a buffer written by
/// `pack_conv2d_1x1_s8`: `output[p][oc] = Σ_ic (input[p][ic] − input_zp)·(w[oc][ic] − weight_zp) +
/// bias[bias_size == 1 ? 0 : oc]` for the n·ih·iw input positions p.
/// @param input [n, ih, iw, ic] int8; @param bias [s.bias_size] int32; @param output [n, ih, iw, oc] int32
/// @return `null_pointer`; the `conv2d_output_size` errors; `invalid_attribute` (not 1×1, stride 1,
///   unpadded); `unsupported_path` (the CPU has no packed kernel: `conv2d_1x1_s8_packed_native()` is
///   false); `shape_mismatch` (buffer not packed, or packed for another oc/ic, or bias_size ∉ {1, oc});
///   `scratch_too_small`; `zero_point_out_of_range` (packed for other zero points); `value_out_of_range`
///   (REQUIRE: accumulator or accumulator + bias outside int32; the output is then unspecified); else `ok`.
[[nodiscard]] inline status conv2d_1x1_s8_packed(const conv2d_shape& s, const std::int8_t* input, const void* packed,
                                                 std::size_t size, const std::int32_t* bias, std::int8_t input_zp,
                                                 std::int8_t weight_zp, std::int32_t* output) noexcept {
  if (input == nullptr || packed == nullptr || bias == nullptr || output == nullptr) return status::null_pointer;
  std::int32_t oh = 0, ow = 0;
  if (const status st = conv2d_output_size(s, oh, ow); st != status::ok) return st;
  if (!detail::is_conv2d_1x1(s)) return status::invalid_attribute;
  if (!conv2d_1x1_s8_packed_native()) return status::unsupported_path;
  if (size < conv2d_1x1_s8_packed_size(s.oc, s.ic) || size < sizeof(detail::packed_s8_header)) {
    return status::scratch_too_small;
  }
  detail::packed_s8_header h;
  std::memcpy(&h, packed, sizeof h);
  const auto* base = static_cast<const std::uint8_t*>(packed);
  const detail::packed_s8_geometry geo = detail::packed_s8_layout(s.oc, s.ic);
  if (h.magic != detail::packed_s8_magic || h.rows != s.oc || h.cols != s.ic || h.kernel_sum_form != 0 ||
      h.bias_id != 0 || h.layout != static_cast<std::int32_t>(detail::packed_s8_layout_kind::vnni)) {
    return status::shape_mismatch;
  }
  if (h.input_offset != -std::int32_t{input_zp} || h.filter_offset != -std::int32_t{weight_zp}) {
    return status::zero_point_out_of_range;
  }
  if (reinterpret_cast<std::uintptr_t>(base + geo.c64) % alignof(std::int64_t) != 0) return status::scratch_misaligned;
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  return detail::conv2d_1x1_acc32(s, input, bias, input_zp, weight_zp, output,
                                  [base, &geo](const linear_s8_args& a, detail::vnni_acc32_out& o) {
                                    if (geo.narrow) {  // < 16 channels: row-major rows, folded constants
                                      detail::linear_s8_rowdot_vnni(
                                          a, reinterpret_cast<const std::int8_t*>(base + geo.weights),
                                          static_cast<std::ptrdiff_t>(geo.row_stride),
                                          reinterpret_cast<const std::int64_t*>(base + geo.c64), &o);
                                    } else {
                                      detail::linear_s8_packed_vnni(a, base, &o);
                                    }
                                  });
#else
  return status::unsupported_path;
#endif
}

}  // namespace armlower::kernels
