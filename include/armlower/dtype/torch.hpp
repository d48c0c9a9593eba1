/// @file armlower/dtype/torch.hpp
/// torch dtype names → TOSA dtypes, exactly as ExecuTorch's Arm backend maps them
/// (ExecuTorch `backends/arm/tosa/mapping.py` `map_dtype`):
/// float32/float → FP32, float16/half → FP16, bfloat16 → BF16, float8_e4m3fn → FP8E4M3,
/// float8_e5m2 → FP8E5M2, float8_e8m0fnu → FP8UE8M0, float4_e2m1fn_x2 → FP4E2M1, int8 → INT8,
/// uint8 → INT8 (TOSA is signless), int16/short → INT16, int32/int → INT32, bool → BOOL.
/// float64/double, complex64/cfloat, complex128/cdouble and int64/long are "Unsupported type";
/// any other name is "Unknown type". Names may carry the "torch." prefix. Hosted only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <armlower/dtype/dtype.hpp>

namespace armlower::dtype {

/// Outcome of a torch dtype lookup.
enum class torch_errc : std::uint8_t {
  ok,                ///< mapped
  unsupported_type,  ///< a torch dtype TOSA cannot express (ExecuTorch `UNSUPPORTED_DTYPES`)
  unknown_type,      ///< not a torch dtype ExecuTorch knows
};

/// Result of `from_torch`: the TOSA dtype or an error naming the torch dtype.
struct torch_dtype_result {
  id dtype = id::boolean;                  ///< the TOSA dtype (meaningful when `ok()`)
  torch_errc error = torch_errc::ok;       ///< error code
  std::string_view torch_name;             ///< the name looked up (a view of the argument)

  /// True when mapped.
  [[nodiscard]] constexpr bool ok() const noexcept { return error == torch_errc::ok; }
  /// `ok()`.
  constexpr explicit operator bool() const noexcept { return ok(); }
  /// "Unsupported type" / "Unknown type" / "" — ExecuTorch's message prefix.
  [[nodiscard]] constexpr std::string_view reason() const noexcept {
    return error == torch_errc::unsupported_type ? "Unsupported type"
           : error == torch_errc::unknown_type   ? "Unknown type"
                                                 : "";
  }
  /// "Unsupported type: torch.int64" (empty when ok).
  [[nodiscard]] std::string message() const {
    if (ok()) return {};
    std::string m(reason());
    m += ": ";
    if (torch_name.substr(0, 6) != "torch.") m += "torch.";
    m += torch_name;
    return m;
  }
};

namespace detail {
struct torch_entry {
  std::string_view name;
  id dtype;
};
inline constexpr std::array<torch_entry, 16> torch_map{{
    {"float32", id::fp32}, {"float", id::fp32}, {"float16", id::fp16}, {"half", id::fp16},
    {"bfloat16", id::bf16}, {"float8_e4m3fn", id::fp8e4m3}, {"float8_e5m2", id::fp8e5m2},
    {"float8_e8m0fnu", id::fp8ue8m0}, {"float4_e2m1fn_x2", id::fp4e2m1}, {"int8", id::i8},
    {"uint8", id::i8}, {"int16", id::i16}, {"short", id::i16}, {"int32", id::i32},
    {"int", id::i32}, {"bool", id::boolean}
}};
inline constexpr std::array<std::string_view, 8> torch_unsupported{
    "float64", "double", "complex64", "cfloat", "complex128", "cdouble", "int64", "long"};
}  // namespace detail

/// Maps a torch dtype name ("torch.uint8" or "uint8") to its TOSA dtype as ExecuTorch does.
[[nodiscard]] constexpr torch_dtype_result from_torch(std::string_view torch_name) noexcept {
  torch_dtype_result r;
  r.torch_name = torch_name;
  std::string_view n = torch_name;
  if (n.substr(0, 6) == "torch.") n.remove_prefix(6);
  for (const auto& e : detail::torch_map) {
    if (e.name == n) {
      r.dtype = e.dtype;
      return r;
    }
  }
  for (auto u : detail::torch_unsupported) {
    if (u == n) {
      r.error = torch_errc::unsupported_type;
      return r;
    }
  }
  r.error = torch_errc::unknown_type;
  return r;
}

}  // namespace armlower::dtype
