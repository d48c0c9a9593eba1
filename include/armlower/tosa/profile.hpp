/// @file armlower/tosa/profile.hpp
/// TOSA profiles PRO-INT and PRO-FP and a small set type over them.
///
/// Semantics: TOSA 1.0 `tosa.xml` `<profiles>`: PRO-INT
/// "integer operations, primarily 8- and 32-bit values", PRO-FP "FP16 and FP32 operations".
/// Spec-string spellings "INT" / "FP" are ExecuTorch's (ExecuTorch `backends/arm/tosa/specification.py`).
#pragma once

#include <cstdint>
#include <string_view>

namespace armlower::tosa {

/// A TOSA profile.
enum class profile : std::uint8_t {
  pro_int,  ///< PRO-INT, spec-string token "INT"
  pro_fp,   ///< PRO-FP, spec-string token "FP"
};

/// Number of profiles.
inline constexpr std::size_t profile_count = 2;

/// Spec-string token of a profile: "INT" / "FP".
[[nodiscard]] constexpr std::string_view token(profile p) noexcept {
  return p == profile::pro_int ? "INT" : "FP";
}
/// TOSA specification name: "PRO-INT" / "PRO-FP".
[[nodiscard]] constexpr std::string_view name(profile p) noexcept {
  return p == profile::pro_int ? "PRO-INT" : "PRO-FP";
}
/// Looks a profile up by its spec-string token (case-sensitive, as ExecuTorch).
[[nodiscard]] constexpr bool profile_from_token(std::string_view s, profile& out) noexcept {
  if (s == "INT") {
    out = profile::pro_int;
    return true;
  }
  if (s == "FP") {
    out = profile::pro_fp;
    return true;
  }
  return false;
}

/// A set of profiles as bit flags (bit i = profile i).
struct profile_set {
  std::uint8_t bits = 0;  ///< bit i set = `profile` i is a member

  /// The empty set.
  constexpr profile_set() = default;
  /// The set {p}.
  constexpr profile_set(profile p) noexcept  // NOLINT(google-explicit-constructor)
      : bits(static_cast<std::uint8_t>(1u << static_cast<unsigned>(p))) {}
  /// True when `p` is a member.
  [[nodiscard]] constexpr bool contains(profile p) const noexcept {
    return (bits & profile_set(p).bits) != 0;
  }
  /// True when no profile is a member.
  [[nodiscard]] constexpr bool empty() const noexcept { return bits == 0; }
  /// True when `*this` and `o` share a member.
  [[nodiscard]] constexpr bool intersects(profile_set o) const noexcept {
    return (bits & o.bits) != 0;
  }
  /// Union.
  friend constexpr profile_set operator|(profile_set a, profile_set b) noexcept {
    profile_set r;
    r.bits = static_cast<std::uint8_t>(a.bits | b.bits);
    return r;
  }
  /// Same members.
  friend constexpr bool operator==(profile_set, profile_set) = default;
};

/// `PRO-INT | PRO-FP` etc.
[[nodiscard]] constexpr profile_set operator|(profile a, profile b) noexcept {
  return profile_set(a) | profile_set(b);
}

}  // namespace armlower::tosa
