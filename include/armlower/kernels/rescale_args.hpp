/// @file armlower/kernels/rescale_args.hpp
/// The arguments of `kernels::rescale` (TOSA 1.0 RESCALE) and what `kernels::validate` derives from them
/// for the element loops (`detail::rescale_plan`). Firmware-clean: plain data.
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/dtype/dtype.hpp>
#include <armlower/quant/requantize.hpp>

namespace armlower::kernels {

/// Arguments of `rescale`. Element storage by dtype: i8 → `int8_t`, i16 → `int16_t`, i32 → `int32_t`,
/// i48 → `int64_t` (value must be a valid int48). With `input_unsigned` / `output_unsigned` the same
/// 8/16-bit storage holds the unsigned bit pattern (u8 0..255 / u16 0..65535).
struct rescale_args {
  dtype::id in_t = dtype::id::i32;   ///< INT8, INT16, INT32 or INT48
  dtype::id out_t = dtype::id::i8;   ///< INT8, INT16 or INT32
  const void* input = nullptr;       ///< `count` elements of in_t storage, required
  void* output = nullptr;            ///< `count` elements of out_t storage, required (may alias input only if same storage type)
  std::size_t count = 0;             ///< number of elements (product of the shape), ≥ 1
  std::int32_t channels = 1;         ///< size of the last dimension (per_channel: NC = channels); count % channels == 0
  const std::int32_t* multiplier = nullptr;  ///< [per_channel ? channels : 1]; int32 (scale32) or int16 values, ≥ 0
  const std::int32_t* shift = nullptr;       ///< [per_channel ? channels : 1]; 2..62
  std::int32_t input_zp = 0;         ///< in_t value (for unsigned input: the unsigned value or its signed bit pattern)
  std::int32_t output_zp = 0;        ///< out_t value (for unsigned output: likewise)
  bool scale32 = true;               ///< multipliers are int32 (true) or int16 (false)
  quant::rounding rounding = quant::rounding::single_round;  ///< SINGLE_ROUND or DOUBLE_ROUND (DOUBLE requires scale32)
  bool per_channel = false;
  bool input_unsigned = false;
  bool output_unsigned = false;
};

namespace detail {

/// What `validate` derives from `rescale_args` for the element loops: the zero points as the pseudocode
/// reads them (sign- or zero-extended) and the output range (signed, or 0..2^bits − 1 when unsigned).
struct rescale_plan {
  std::int64_t in_zp = 0, out_zp = 0, out_min = 0, out_max = 0;
};

}  // namespace detail

}  // namespace armlower::kernels
