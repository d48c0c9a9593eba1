/// @file armlower/mx/bf16.hpp
/// bfloat16 ↔ fp32 for the block-scaled casts (TOSA bf16_t = the top 16 bits of an fp32), as raw
/// `std::uint16_t` bits. The conversions live in `armlower/dtype/float16.hpp`; these are the
/// same functions under the `mx` namespace. Firmware-clean, constexpr.
#pragma once

#include <armlower/dtype/float16.hpp>

namespace armlower::mx {

using dtype::bf16_to_fp32;
using dtype::fp32_to_bf16;

}  // namespace armlower::mx
