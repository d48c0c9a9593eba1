/// @file armlower/core/version.hpp
/// The TOSA specification versions armlower knows, as one core type below every module:
/// `armlower::tosa_version` (`v1_0` final, `v1_1` draft). `tosa::version` (tosa/version.hpp) is
/// its name in the TOSA model, and the dtype and op tables' "since" columns use it
/// (`dtype::since`), so neither dtype/ nor tosa/ owns the version.
///
/// Semantics: TOSA 1.0 (final, tag v1.0.2) and the 1.1 draft (github.com/arm/tosa-specification).
/// Firmware-clean; includes nothing of armlower.
#pragma once

#include <cstdint>

namespace armlower {

/// A TOSA specification version known to armlower: `v1_0` (final) or `v1_1` (draft). Ordered:
/// a row added in an earlier version is available in every later one.
enum class tosa_version : std::uint8_t { v1_0, v1_1 };

}  // namespace armlower
