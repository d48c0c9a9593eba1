/// @file armlower/tosa/extension.hpp
/// TOSA extensions: the `ext` enum (ExecuTorch's spec-string tokens plus TOSA's doubleround,
/// inexactround and dynamic), one constexpr table saying which profile(s) and which version
/// allow each, and the bit-set type `ext_set`.
///
/// Semantics: TOSA 1.0 / 1.1-draft `tosa.xml` extension list (`<extensions>`:
/// each extension requires one of its listed profiles) and ExecuTorch's
/// `valid_extensions` per version and profile (ExecuTorch `backends/arm/tosa/specification.py`). The table
/// reproduces ExecuTorch's lists exactly; doubleround/inexactround (PRO-INT) and dynamic
/// (PRO-INT or PRO-FP), all since 1.0, are armlower additions taken from the TOSA spec.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <armlower/tosa/profile.hpp>
#include <armlower/tosa/version.hpp>

namespace armlower::tosa {

/// A TOSA extension, named by its ExecuTorch spec-string token.
enum class ext : std::uint8_t {
  int16,             ///< EXT-INT16 (PRO-INT): i16 activations, i48 accumulators
  int4,              ///< EXT-INT4 (PRO-INT): i4 weights
  var,               ///< EXT-VARIABLE (INT or FP)
  cf,                ///< EXT-CONTROLFLOW (INT or FP)
  bf16,              ///< EXT-BF16 (PRO-FP)
  fp8e4m3,           ///< EXT-FP8E4M3 (PRO-FP)
  fp8e5m2,           ///< EXT-FP8E5M2 (PRO-FP)
  fft,               ///< EXT-FFT (PRO-FP)
  shape,             ///< EXT-SHAPE (INT or FP), 1.1
  int64,             ///< EXT-INT64 (INT or FP), 1.1
  random,            ///< ExecuTorch 1.1 FP token "random" (not in the cited spec XML)
  mxfp,              ///< EXT-MXFP (PRO-FP), 1.1: MX dtypes and the *_BLOCK_SCALED ops
  blockscale_ue5m3,  ///< ExecuTorch 1.1 FP token "blockscale_ue5m3" (not in the cited spec XML)
  doubleround,       ///< EXT-DOUBLEROUND (PRO-INT): RESCALE DOUBLE_ROUND (armlower addition)
  inexactround,      ///< EXT-INEXACTROUND (PRO-INT): RESCALE INEXACT_ROUND (armlower addition)
  dynamic,           ///< EXT-DYNAMIC (INT or FP): no compile-time-constant operands (armlower addition)
  /// Not a TOSA extension. ExecuTorch lists "u55" among the INT tokens but turns the first
  /// "u55" of a spec string into the U55-subset flag; only a *repeated* "u55" token is kept
  /// as an extension (ExecuTorch quirk, reproduced so printing round-trips).
  u55,
};

/// Number of `ext` values.
inline constexpr std::size_t ext_count = 17;

/// Facts about one extension.
struct ext_info {
  std::string_view token;      ///< spec-string token, e.g. "int16"
  std::string_view tosa_name;  ///< TOSA name, e.g. "EXT-INT16"
  profile_set profiles;        ///< profiles that allow the extension (any of them)
  version added;               ///< first version whose spec strings accept the token
};

/// The one extension table, indexed by `ext`.
inline constexpr std::array<ext_info, ext_count> ext_table{{
    {"int16", "EXT-INT16", profile::pro_int, version::v1_0},
    {"int4", "EXT-INT4", profile::pro_int, version::v1_0},
    {"var", "EXT-VARIABLE", profile::pro_int | profile::pro_fp, version::v1_0},
    {"cf", "EXT-CONTROLFLOW", profile::pro_int | profile::pro_fp, version::v1_0},
    {"bf16", "EXT-BF16", profile::pro_fp, version::v1_0},
    {"fp8e4m3", "EXT-FP8E4M3", profile::pro_fp, version::v1_0},
    {"fp8e5m2", "EXT-FP8E5M2", profile::pro_fp, version::v1_0},
    {"fft", "EXT-FFT", profile::pro_fp, version::v1_0},
    {"shape", "EXT-SHAPE", profile::pro_int | profile::pro_fp, version::v1_1},
    {"int64", "EXT-INT64", profile::pro_int | profile::pro_fp, version::v1_1},
    {"random", "EXT-RANDOM", profile::pro_fp, version::v1_1},
    {"mxfp", "EXT-MXFP", profile::pro_fp, version::v1_1},
    {"blockscale_ue5m3", "EXT-BLOCKSCALE-UE5M3", profile::pro_fp, version::v1_1},
    {"doubleround", "EXT-DOUBLEROUND", profile::pro_int, version::v1_0},
    {"inexactround", "EXT-INEXACTROUND", profile::pro_int, version::v1_0},
    {"dynamic", "EXT-DYNAMIC", profile::pro_int | profile::pro_fp, version::v1_0},
    {"u55", "U55-SUBSET", profile::pro_int, version::v1_0},
}};

/// Facts about `e`.
[[nodiscard]] constexpr const ext_info& traits(ext e) noexcept {
  return ext_table[static_cast<std::size_t>(e)];
}
/// Spec-string token ("int16").
[[nodiscard]] constexpr std::string_view token(ext e) noexcept { return traits(e).token; }
/// TOSA name ("EXT-INT16").
[[nodiscard]] constexpr std::string_view name(ext e) noexcept { return traits(e).tosa_name; }

/// Looks an extension up by its spec-string token (case-sensitive, as ExecuTorch).
[[nodiscard]] constexpr bool ext_from_token(std::string_view s, ext& out) noexcept {
  for (std::size_t i = 0; i < ext_count; ++i) {
    if (ext_table[i].token == s) {
      out = static_cast<ext>(i);
      return true;
    }
  }
  return false;
}

/// True when a spec string of version `v` with profile `p` accepts the token of `e`
/// (ExecuTorch's `valid_extensions[p]` for that version, plus armlower's additions).
[[nodiscard]] constexpr bool allowed(ext e, version v, profile p) noexcept {
  return available_in(traits(e).added, v) && traits(e).profiles.contains(p);
}

/// A set of extensions as bit flags (bit i = `ext` i), with `| & -` and subset tests.
struct ext_set {
  std::uint32_t bits = 0;  ///< bit i set = `ext` i is a member

  /// The empty set.
  constexpr ext_set() = default;
  /// The set {e}.
  constexpr ext_set(ext e) noexcept  // NOLINT(google-explicit-constructor)
      : bits(1u << static_cast<unsigned>(e)) {}
  /// True when `e` is a member.
  [[nodiscard]] constexpr bool contains(ext e) const noexcept {
    return (bits & ext_set(e).bits) != 0;
  }
  /// True when no extension is a member.
  [[nodiscard]] constexpr bool empty() const noexcept { return bits == 0; }
  /// True when every member of `*this` is in `o`.
  [[nodiscard]] constexpr bool subset_of(ext_set o) const noexcept { return (bits & ~o.bits) == 0; }
  /// True when `*this` and `o` share a member.
  [[nodiscard]] constexpr bool intersects(ext_set o) const noexcept { return (bits & o.bits) != 0; }
  /// Number of members.
  [[nodiscard]] constexpr std::size_t size() const noexcept {
    std::size_t n = 0;
    for (std::uint32_t b = bits; b != 0; b &= b - 1) ++n;
    return n;
  }
  /// Union.
  friend constexpr ext_set operator|(ext_set a, ext_set b) noexcept {
    ext_set r;
    r.bits = a.bits | b.bits;
    return r;
  }
  /// Intersection.
  friend constexpr ext_set operator&(ext_set a, ext_set b) noexcept {
    ext_set r;
    r.bits = a.bits & b.bits;
    return r;
  }
  /// Set difference.
  friend constexpr ext_set operator-(ext_set a, ext_set b) noexcept {
    ext_set r;
    r.bits = a.bits & ~b.bits;
    return r;
  }
  /// Same members.
  friend constexpr bool operator==(ext_set, ext_set) = default;
};

/// `ext::bf16 | ext::fp8e4m3`.
[[nodiscard]] constexpr ext_set operator|(ext a, ext b) noexcept { return ext_set(a) | ext_set(b); }

// Spec invariants (tosa.xml): each extension requires one of its listed profiles.
static_assert(traits(ext::int16).profiles == profile_set(profile::pro_int));
static_assert(traits(ext::int4).profiles == profile_set(profile::pro_int));
static_assert(traits(ext::bf16).profiles == profile_set(profile::pro_fp));
static_assert(traits(ext::mxfp).profiles == profile_set(profile::pro_fp));
static_assert(ext_count < 32, "ext_set holds at most 32 extensions");

}  // namespace armlower::tosa
