/// @file armlower/run/kernel_status.hpp
/// THE mapping of a kernel status code (`kernels::status`, also the MX kernels' `mx::status`)
/// to an `armlower::error`: the one place where firmware-clean status enums become hosted
/// errors (the kernels themselves keep their status codes). Hosted only.
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/kernels/status.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace armlower::run {

/// The error code of a failed kernel call: a failed TOSA REQUIRE on values, multipliers or
/// shifts is `require`; a dtype combination the kernel has no row for is `unsupported`; a
/// caller-side failure that no graph rule explains (null pointer, scratch size or alignment, a
/// kernel path not compiled in, a span whose size disagrees with its shape) is `kernel`; every
/// other status is a failed ERROR_IF of the op (shapes, zero points, attributes, ranks, block
/// dims, batch).
[[nodiscard]] constexpr errc code_of(kernels::status s) noexcept {
  switch (s) {
    case kernels::status::value_out_of_range:
    case kernels::status::multiplier_out_of_range:
    case kernels::status::shift_out_of_range: return errc::require;
    case kernels::status::unsupported_type: return errc::unsupported;
    case kernels::status::null_pointer:
    case kernels::status::scratch_too_small:
    case kernels::status::scratch_misaligned:
    case kernels::status::unsupported_path:
    case kernels::status::buffer_size: return errc::kernel;
    default: return errc::error_if;
  }
}

/// The error of a failed kernel call (`s` ≠ `ok`) at `where`: code `code_of(s)`, message
/// "kernel: <status text>" followed by " (<detail>)" when `detail` is not empty.
[[nodiscard]] inline error from_status(kernels::status s, location where, std::string_view detail = {}) {
  std::string rule = "kernel: ";
  rule += kernels::to_string(s);
  if (!detail.empty()) rule += " (" + std::string(detail) + ")";
  return error(code_of(s), std::move(where), std::move(rule));
}

}  // namespace armlower::run
