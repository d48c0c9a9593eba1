/// @file armlower/kernels/arch/generic/linear.hpp
/// The generic (portable C++) fused linear kernels: the reference every other path must match
/// byte for byte (contract in `kernels/linear_args.hpp`). Always built, on every target.
///
/// Accumulation is exact for any K: int32 partial sums over column blocks whose worst case cannot
/// overflow (8192 columns for s8 with offsets — |(x+io)(w+fo)| ≤ 383² —, 65536 without; 511 for
/// s16×s8 — |x·w| ≤ 2^22), added into an int64 accumulator.
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/linear_args.hpp>
#include <armlower/quant/multiplier.hpp>
#include <armlower/quant/requantize.hpp>

namespace armlower::kernels::detail {

/// Column-block lengths that keep int32 partial sums exact (see file comment).
inline constexpr std::int32_t s8_block_with_offsets = 8192;
inline constexpr std::int32_t s8_block_raw = 65536;
inline constexpr std::int32_t s16_block = 511;

/// Saturating int64 addition (the sum of an int64 bias and an exact dot product).
[[nodiscard]] constexpr std::int64_t add_sat64(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? INT64_MIN : INT64_MAX;
  return r;
}

/// Row constant of the s8 contract when `kernel_sum` is null: bias + input_offset·(Σw + cols·filter_offset).
[[nodiscard]] inline std::int64_t row_constant_s8(const linear_s8_args& a, std::int32_t r) noexcept {
  if (a.kernel_sum != nullptr) return a.kernel_sum[r];
  std::int64_t c = a.bias != nullptr ? a.bias[r] : 0;
  if (a.input_offset != 0) {
    const std::int8_t* w = a.weights + static_cast<std::ptrdiff_t>(r) * a.cols;
    std::int64_t wsum = 0;
    for (std::int32_t k = 0; k < a.cols; ++k) wsum += w[k];
    c += static_cast<std::int64_t>(a.input_offset) * (wsum + static_cast<std::int64_t>(a.cols) * a.filter_offset);
  }
  return c;
}

/// Offset of w[r][0] in weights packed by `kernels::pack_weights_s8` for `cols` columns (groups of 8
/// rows; per 16-column chunk the 8 rows' 16 bytes, consecutively: w[r][k] is at this offset +
/// (k / 16)·128 + k % 16). Preconditions: r ≥ 0, cols ≥ 1.
[[nodiscard]] constexpr std::ptrdiff_t packed_row_offset_s8(std::int32_t r, std::int32_t cols) noexcept {
  const auto u = static_cast<std::uint32_t>(r), chunks = (static_cast<std::uint32_t>(cols) + 15) / 16;
  return static_cast<std::ptrdiff_t>(u / 8) * chunks * 128 + static_cast<std::ptrdiff_t>(u % 8) * 16;
}

/// Row r of weights packed by `kernels::pack_weights_s8`, from `packed + packed_row_offset_s8(r, cols)`:
/// `row[k]` is w[r][k], read from the packed bytes alone.
struct packed_row_s8 {
  const std::int8_t* base;  ///< byte 0 of row r in chunk 0
  [[nodiscard]] std::int8_t operator[](std::ptrdiff_t k) const noexcept { return base[(k >> 4) * 128 + (k & 15)]; }
};

/// Requantizes one s8 accumulator of row r (`y = clamp(requantize_exact(acc) + output_offset)`).
[[nodiscard]] inline std::int8_t requantize_row_s8(const linear_s8_args& a, std::int32_t r, std::int64_t acc) noexcept {
  const std::int32_t i = a.per_channel ? r : 0;
  const std::int64_t y = quant::requantize_exact(acc, a.multiplier[i], a.shift[i], a.rounding) + a.output_offset;
  return static_cast<std::int8_t>(quant::clamp64(y, a.activation_min, a.activation_max));
}

/// Requantizes one s16 accumulator of row r.
[[nodiscard]] inline std::int16_t requantize_row_s16(const linear_s16_args& a, std::int32_t r, std::int64_t acc) noexcept {
  const std::int32_t i = a.per_channel ? r : 0;
  const std::int64_t y = quant::requantize_s64(acc, quant::reduce_multiplier(a.multiplier[i]), a.shift[i]);
  return static_cast<std::int16_t>(quant::clamp64(y, a.activation_min, a.activation_max));
}

/// Generic s8 fused linear on row-major `a.weights`, or with `Packed` on the `pack_weights_s8` layout at
/// `packed` (rows read through `packed_row_s8`).
template <bool Packed>
inline void linear_s8_generic_layout(const linear_s8_args& args, [[maybe_unused]] const std::int8_t* packed) noexcept {
  const linear_s8_args a = args;  // local copy: the int8 output stores cannot alias it
  const std::ptrdiff_t cols = a.cols;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int8_t* x = a.input + b * cols;
    std::int64_t xsum = 0;
    if (a.kernel_sum != nullptr && a.filter_offset != 0) {
      for (std::ptrdiff_t k = 0; k < cols; ++k) xsum += x[k];
    }
    for (std::int32_t r = 0; r < a.rows; ++r) {
      const auto w = [&] {
        if constexpr (Packed) {
          return packed_row_s8{packed + packed_row_offset_s8(r, a.cols)};
        } else {
          return a.weights + r * cols;
        }
      }();
      std::int64_t acc = 0;
      if (a.kernel_sum != nullptr) {
        // acc = kernel_sum + Σ x·w + filter_offset·Σx
        acc = static_cast<std::int64_t>(a.kernel_sum[r]) + static_cast<std::int64_t>(a.filter_offset) * xsum;
        for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += s8_block_raw) {
          const std::ptrdiff_t k1 = k0 + s8_block_raw < cols ? k0 + s8_block_raw : cols;
          std::int32_t part = 0;
          for (std::ptrdiff_t k = k0; k < k1; ++k) part += static_cast<std::int32_t>(x[k]) * w[k];
          acc += part;
        }
      } else {
        // acc = bias + Σ (x + input_offset)·(w + filter_offset)
        acc = a.bias != nullptr ? a.bias[r] : 0;
        const std::int32_t io = a.input_offset, fo = a.filter_offset;
        for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += s8_block_with_offsets) {
          const std::ptrdiff_t k1 = k0 + s8_block_with_offsets < cols ? k0 + s8_block_with_offsets : cols;
          std::int32_t part = 0;
          // |x + io|, |w + fo| ≤ 383: int16 operands let compilers use 16-bit multiplies (pmaddwd, SMLAD)
          if (fo == 0) {  // the common (symmetric-weight) case
            for (std::ptrdiff_t k = k0; k < k1; ++k) {
              part += static_cast<std::int16_t>(x[k] + io) * static_cast<std::int16_t>(w[k]);
            }
          } else {
            for (std::ptrdiff_t k = k0; k < k1; ++k) {
              part += static_cast<std::int16_t>(x[k] + io) * static_cast<std::int16_t>(w[k] + fo);
            }
          }
          acc += part;
        }
      }
      a.output[b * a.rows + r] = requantize_row_s8(a, r, acc);
    }
  }
}

/// Generic s8 fused linear (contract: `kernels/linear_args.hpp`). Preconditions: `validate(a) == ok`.
inline void linear_s8_generic(const linear_s8_args& a) noexcept { linear_s8_generic_layout<false>(a, nullptr); }

/// Generic s8 fused linear with the weights packed by `kernels::pack_weights_s8` (`a.weights` is not
/// read; may be null): the same bytes as `linear_s8_generic` on the row-major weights. Preconditions:
/// `validate(a) == ok` except for `a.weights`; `packed` holds `packed_weights_s8_size(a.rows, a.cols)` bytes.
inline void linear_s8_packed_generic(const linear_s8_args& a, const std::int8_t* packed) noexcept {
  linear_s8_generic_layout<true>(a, packed);
}

/// Generic s16×s8 fused linear (contract: `kernels/linear_args.hpp`). Preconditions: `validate(a) == ok`.
inline void linear_s16_generic(const linear_s16_args& args) noexcept {
  const linear_s16_args a = args;  // local copy (see linear_s8_generic)
  const std::ptrdiff_t cols = a.cols;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int16_t* x = a.input + b * cols;
    for (std::int32_t r = 0; r < a.rows; ++r) {
      const std::int8_t* w = a.weights + r * cols;
      std::int64_t acc = 0;
      for (std::ptrdiff_t k0 = 0; k0 < cols; k0 += s16_block) {
        const std::ptrdiff_t k1 = k0 + s16_block < cols ? k0 + s16_block : cols;
        std::int32_t part = 0;
        for (std::ptrdiff_t k = k0; k < k1; ++k) part += static_cast<std::int32_t>(x[k]) * w[k];
        acc += part;
      }
      if (a.bias != nullptr) acc = add_sat64(acc, a.bias[r]);
      a.output[b * a.rows + r] = requantize_row_s16(a, r, acc);
    }
  }
}

}  // namespace armlower::kernels::detail
