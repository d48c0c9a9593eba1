/// @file armlower/tosa/version.hpp
/// TOSA specification versions: the two versions armlower knows (`tosa::version`, the core
/// `armlower::tosa_version` of core/version.hpp, also the dtype table's `dtype::since`) and the version *as written* in a spec string
/// (`spec_version`, which keeps "1.0" and "1.0.0" apart so printing round-trips).
///
/// Semantics: TOSA 1.0 (final, tag v1.0.2) and the 1.1 draft (github.com/arm/tosa-specification). Rows added
/// by 1.1 are legal only on a 1.1 target; 1.0 rows stay legal on 1.1 (MLIR's
/// `isBackwardsCompatibleWith`, `TosaProfileCompliance.cpp`).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <armlower/core/version.hpp>

namespace armlower::tosa {

/// A TOSA specification version known to armlower: `version::v1_0` (final) or `version::v1_1`
/// (draft): the core `armlower::tosa_version`. The same enum types the "since" column of the
/// dtype table and of the op table.
using version = armlower::tosa_version;

/// "1.0" / "1.1".
[[nodiscard]] constexpr std::string_view name(version v) noexcept {
  return v == version::v1_0 ? "1.0" : "1.1";
}

/// True when a row added in `added` is available on a target of version `target`
/// (same major; target minor ≥ row minor).
[[nodiscard]] constexpr bool available_in(version added, version target) noexcept {
  return static_cast<int>(added) <= static_cast<int>(target);
}

/// The version part of a spec string exactly as written, split into numeric release
/// components ("1.0.0" → {1,0,0}, count 3). Like Python's `packaging.version.Version` (what
/// ExecuTorch uses), components print as plain integers ("1.00" prints "1.0"); missing minor
/// counts as 0 ("1" is version 1.0). At most `max_components` components are kept.
struct spec_version {
  static constexpr std::size_t max_components = 4;  ///< armlower's limit ("1.0.0.0")
  std::array<std::uint32_t, max_components> parts{};  ///< release components, unused are 0
  std::uint8_t count = 0;                             ///< number of components written (1..4)

  /// First component.
  [[nodiscard]] constexpr std::uint32_t major() const noexcept { return parts[0]; }
  /// Second component (0 when absent, as `packaging.version`).
  [[nodiscard]] constexpr std::uint32_t minor() const noexcept { return count > 1 ? parts[1] : 0; }
  /// Third component (0 when absent).
  [[nodiscard]] constexpr std::uint32_t patch() const noexcept { return count > 2 ? parts[2] : 0; }
  /// The known version with the same (major, minor), if any.
  [[nodiscard]] constexpr bool known(version& out) const noexcept {
    if (major() != 1 || minor() > 1) return false;
    out = minor() == 0 ? version::v1_0 : version::v1_1;
    return true;
  }
  /// Same components as written.
  friend constexpr bool operator==(const spec_version&, const spec_version&) = default;
};

/// The canonical written form of a known version: {1,0} or {1,1}.
[[nodiscard]] constexpr spec_version written(version v) noexcept {
  spec_version s;
  s.parts = {1, v == version::v1_0 ? 0u : 1u, 0, 0};
  s.count = 2;
  return s;
}

}  // namespace armlower::tosa
