/// @file armlower/kernels/linear_packed.hpp
/// Pre-packed s8 fused linear (fully connected): weights and the per-row constants packed ONCE
/// (at plan time or on first use) into caller-owned memory, then any number of calls read the
/// packed form. Same bytes as `linear_s8` for every valid argument set (contract:
/// `kernels/linear_args.hpp`; semantics: CMSIS-NN `arm_fully_connected_s8` /
/// `arm_fully_connected_per_channel_s8`, TFLite reference `FullyConnected` int8).
///
/// ```
/// std::vector<std::uint8_t> buf(kernels::linear_s8_packed_size(a.rows, a.cols));   // hosted caller
/// kernels::pack_linear_s8(a, buf.data(), buf.size());       // once: weights, bias/kernel_sum, offsets
/// kernels::linear_s8_packed(a, buf.data(), buf.size());     // every call: input, output, batches, requant
/// ```
/// What the packed form captures (from `a` at pack time): `rows`, `cols`, `weights`, `bias` or
/// `kernel_sum`, `input_offset`, `filter_offset`. `linear_s8_packed` reads `input`, `output`,
/// `batches`, `output_offset`, `multiplier`, `shift`, `per_channel`, `activation_*`, `rounding` from
/// its own `a`, refuses a buffer packed for other rows/cols/offsets (`shape_mismatch` /
/// `zero_point_out_of_range`), and uses `a.weights` only when it cannot run the packed form (no
/// AVX-512 VNNI on this CPU: it then runs `linear_s8(a)`), so `a.weights` must stay valid.
///
/// Layout and arithmetic: `kernels/arch/x86/linear_vnni_packed.hpp` (`vpdpbusd` panels of 16
/// channels × 4 K, weight sums and `input_offset·Σw` folded into a per-row int64 constant at pack
/// time, 8 batch rows × 32 channels or 4 × 64 of int32 accumulators in zmm registers).
/// The buffer needs no alignment (64 bytes is best).
///
/// Firmware-clean: noexcept, no heap, no exceptions, no static initialisation. On non-x86 targets
/// `pack_linear_s8` still writes the (portable) layout and `linear_s8_packed` runs `linear_s8`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/detail/linear_s8_packed_layout.hpp>
#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/kernels/status.hpp>

#if defined(ARMLOWER_KERNELS_HAVE_X86)
#define ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED 1
#endif

namespace armlower::kernels {

/// Bytes of the packed form of an s8 linear with `rows` output channels and `cols` accumulation
/// depth: 64 (header) + 12·Np (row constants, int64 and int32) + Np·Kp (weights), Np = rows rounded up
/// to 16, Kp = cols rounded up to 4 (`kernels/detail/linear_s8_packed_layout.hpp`). 0 for non-positive
/// dimensions or if the size would exceed 2^40 bytes.
[[nodiscard]] constexpr std::size_t linear_s8_packed_size(std::int32_t rows, std::int32_t cols) noexcept {
  if (rows < 1 || cols < 1) return 0;
  const std::uint64_t n = detail::packed_s8_layout(rows, cols).total;
  return n > (std::uint64_t{1} << 40) ? 0 : static_cast<std::size_t>(n);
}

/// Packs `a.weights` [rows][cols] and the folded row constants into `packed` (layout:
/// `kernels/arch/x86/linear_vnni_packed.hpp`). Row constant c[r] = kernel_sum[r] if `a.kernel_sum`,
/// else bias[r] (0 if null) + input_offset·Σ_k w[r][k] + cols·input_offset·filter_offset (exact int64).
/// Only `weights`, `bias`, `kernel_sum`, `rows`, `cols`, `input_offset`, `filter_offset` of `a` are read.
/// @return `null_pointer` (weights, packed), `empty_dimension` (rows/cols < 1),
///   `zero_point_out_of_range` (|offsets| > 255), `scratch_too_small` (size < linear_s8_packed_size
///   or that size is 0); else `ok`.
[[nodiscard]] inline status pack_linear_s8(const linear_s8_args& a, void* packed, std::size_t size) noexcept {
  if (a.weights == nullptr || packed == nullptr) return status::null_pointer;
  if (a.rows < 1 || a.cols < 1) return status::empty_dimension;
  if (!detail::in_range(a.input_offset, -255, 255) || !detail::in_range(a.filter_offset, -255, 255)) {
    return status::zero_point_out_of_range;
  }
  const std::size_t need = linear_s8_packed_size(a.rows, a.cols);
  if (need == 0 || size < need) return status::scratch_too_small;
  auto* out = static_cast<std::uint8_t*>(packed);
  const detail::packed_s8_geometry geo = detail::packed_s8_layout(a.rows, a.cols);
  detail::packed_s8_header h;
  h.magic = detail::packed_s8_magic;
  h.rows = a.rows;
  h.cols = a.cols;
  h.input_offset = a.input_offset;
  h.filter_offset = a.filter_offset;
  h.kernel_sum_form = a.kernel_sum != nullptr ? 1 : 0;
  const std::ptrdiff_t rows = a.rows, cols = a.cols;
  const auto np = static_cast<std::ptrdiff_t>(geo.np), kp = static_cast<std::ptrdiff_t>(geo.kp);
  std::uint8_t* w = out + geo.weights;
  for (std::ptrdiff_t r = 0; r < np; ++r) {
    std::int64_t c = 0;
    if (r < rows) {
      if (a.kernel_sum != nullptr) {
        c = a.kernel_sum[r];
      } else {
        std::int64_t wsum = 0;
        const std::int8_t* wr = a.weights + r * cols;
        for (std::ptrdiff_t k = 0; k < cols; ++k) wsum += wr[k];
        c = (a.bias != nullptr ? a.bias[r] : 0) + static_cast<std::int64_t>(a.input_offset) * wsum +
            static_cast<std::int64_t>(cols) * a.input_offset * a.filter_offset;
      }
    }
    const std::int64_t mag = c < 0 ? -c : c;  // |c| ≤ 2^31 + 255·510·cols: no int64 overflow
    if (mag > h.cmax) h.cmax = mag;
    const std::int32_t c32 = quant::detail::wrap32(c);
    std::memcpy(out + geo.c64 + 8 * static_cast<std::uint64_t>(r), &c, 8);
    std::memcpy(out + geo.c32 + 4 * static_cast<std::uint64_t>(r), &c32, 4);
  }
  std::memcpy(out, &h, sizeof h);
  if (geo.narrow) {  // row-major, rows padded with zeros to a multiple of 64 bytes
    const auto stride = static_cast<std::ptrdiff_t>(geo.row_stride);
    for (std::ptrdiff_t r = 0; r < rows; ++r) {
      std::memcpy(w + r * stride, a.weights + r * cols, static_cast<std::size_t>(cols));
      std::memset(w + r * stride + cols, 0, static_cast<std::size_t>(stride - cols));
    }
    return status::ok;
  }
  // panels of 16 channels, groups of 4 panels; in a group of gp panels: line (g, p) at (g·gp + p)·64
  const std::ptrdiff_t panels = np / 16;
  for (std::ptrdiff_t p = 0; p < panels; ++p) {
    const std::ptrdiff_t grp = p / 4, pin = p % 4;
    const std::ptrdiff_t gp = panels - grp * 4 < 4 ? panels - grp * 4 : 4;
    std::uint8_t* base = w + grp * 4 * 16 * kp;
    for (std::ptrdiff_t g = 0; g < kp / 4; ++g) {
      std::uint8_t* line = base + (g * gp + pin) * 64;
      for (std::ptrdiff_t j = 0; j < 16; ++j) {
        const std::ptrdiff_t r = p * 16 + j;
        for (std::ptrdiff_t i = 0; i < 4; ++i) {
          const std::ptrdiff_t k = g * 4 + i;
          line[j * 4 + i] = (r < rows && k < cols)
                                ? static_cast<std::uint8_t>(static_cast<std::uint8_t>(a.weights[r * cols + k]) ^ 0x80u)
                                : std::uint8_t{0};
        }
      }
    }
  }
  return status::ok;
}

/// True if `linear_s8_packed` runs the packed form on this CPU (else it runs `linear_s8(a)`).
[[nodiscard]] inline bool linear_s8_packed_native() noexcept {
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  return detail::x86_has_avx512_vnni_vl();
#else
  return false;
#endif
}

/// Fused s8 linear over a buffer written by `pack_linear_s8` (same bytes as `linear_s8(a)` with the
/// weights/bias/kernel_sum/offsets given at pack time).
/// @return the `validate(a)` errors; `null_pointer` (packed); `scratch_too_small` (size <
///   linear_s8_packed_size); `shape_mismatch` (buffer not packed by `pack_linear_s8`, or for other
///   rows/cols); `zero_point_out_of_range` (packed for other input/filter offsets); else `ok`.
[[nodiscard]] inline status linear_s8_packed(const linear_s8_args& a, const void* packed, std::size_t size) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  if (packed == nullptr) return status::null_pointer;
  if (size < linear_s8_packed_size(a.rows, a.cols) || size < sizeof(detail::packed_s8_header)) {
    return status::scratch_too_small;
  }
  detail::packed_s8_header h;
  std::memcpy(&h, packed, sizeof h);
  if (h.magic != detail::packed_s8_magic || h.rows != a.rows || h.cols != a.cols) return status::shape_mismatch;
  if (h.input_offset != a.input_offset || h.filter_offset != a.filter_offset) return status::zero_point_out_of_range;
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  if (detail::x86_has_avx512_vnni_vl()) {
    const auto* base = static_cast<const std::uint8_t*>(packed);
    const detail::packed_s8_geometry geo = detail::packed_s8_layout(a.rows, a.cols);
    if (geo.narrow) {
      detail::linear_s8_rowdot_vnni(a, reinterpret_cast<const std::int8_t*>(base + geo.weights),
                                    static_cast<std::ptrdiff_t>(geo.row_stride),
                                    reinterpret_cast<const std::int64_t*>(base + geo.c64));
    } else {
      detail::linear_s8_packed_vnni(a, base);
    }
    return status::ok;
  }
#endif
  return linear_s8(a);
}

}  // namespace armlower::kernels
