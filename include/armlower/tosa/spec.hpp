/// @file armlower/tosa/spec.hpp
/// TOSA target specifications: the run-time value `tosa::target` (version, profiles, extensions,
/// level, U55 subset), parsing and printing of ExecuTorch spec strings ("TOSA-1.0+INT+int16",
/// "TOSA-1.1+FP+mxfp", "TOSA-1.0+FP+cf+bf16+8k", "TOSA-1.1.0+INT+shape+int64+u55"), and the
/// compile-time type `tosa::spec<"...">`.
///
/// Semantics: ExecuTorch `backends/arm/tosa/specification.py` (ExecuTorch
/// main, 2026), reproduced with its quirks:
///  - grammar `^(TOSA)-([\d.]+)\+(.+)$` (ASCII digits), tokens split on '+', case-sensitive;
///  - the version is a PEP 440 release ("1", "1.0", "1.0.0", "1.00"); (major, minor) must be
///    (1, 0) or (1, 1); it prints normalised per component ("1.00" → "1.0", "1.0.0" stays);
///  - the first "u55" token sets the U55-subset flag (with any profile); profile tokens
///    "INT"/"FP" are counted (none → error, more than two → error; "FP+FP" passes); the first
///    "8k" sets level 8K; every other token must be a valid extension of the version for one of
///    the selected profiles (extension.hpp's table) and is kept in the given order, duplicates
///    included;
///  - printing is "TOSA-" version, "+profile"s, "+extension"s, then "+8k", then "+u55".
/// armlower additions: tokens doubleround, inexactround (PRO-INT) and dynamic (INT or FP) are
/// accepted for 1.0 and 1.1. armlower limits: at most 4 version components and 32 extension tokens.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <armlower/tosa/detail/text.hpp>
#include <armlower/tosa/extension.hpp>
#include <armlower/tosa/level.hpp>
#include <armlower/tosa/profile.hpp>
#include <armlower/tosa/version.hpp>

namespace armlower::tosa {

/// A TOSA target: what a lowering may emit. Usually obtained from `parse()` or `spec<...>`;
/// `target::make()` builds one in canonical order.
struct target {
  static constexpr std::size_t max_profiles = 2;     ///< ExecuTorch allows at most two profile tokens
  static constexpr std::size_t max_extensions = 32;  ///< armlower capacity (duplicates count)

  spec_version written{};                      ///< the version as written ("1.0" vs "1.0.0")
  std::array<profile, max_profiles> profiles{};  ///< profiles in the order written
  std::uint8_t profile_count = 0;                ///< used entries of `profiles`
  std::array<ext, max_extensions> extensions{};  ///< extensions in the order written
  std::uint8_t extension_count = 0;              ///< used entries of `extensions`
  bool level_8k = false;  ///< token "8k"
  bool u55 = false;       ///< token "u55": Ethos-U55 subset of TOSA-1.0+INT

  /// Builds a target with the canonical written version ("1.0"/"1.1"), the given profiles
  /// (INT before FP) and extensions (in `ext` order). Does not validate; see `valid()`.
  [[nodiscard]] static constexpr target make(tosa::version v, profile_set ps, ext_set es = {},
                                             level l = level::none, bool u55_subset = false) noexcept {
    target t;
    t.written = tosa::written(v);
    for (std::size_t p = 0; p < profile_count_all; ++p) {
      if (ps.contains(static_cast<profile>(p))) t.profiles[t.profile_count++] = static_cast<profile>(p);
    }
    for (std::size_t e = 0; e < ext_count; ++e) {
      if (es.contains(static_cast<ext>(e))) t.extensions[t.extension_count++] = static_cast<ext>(e);
    }
    t.level_8k = l == level::eight_k;
    t.u55 = u55_subset;
    return t;
  }

  /// The known TOSA version (1.0 or 1.1) of the (major, minor) written.
  [[nodiscard]] constexpr tosa::version tosa_version() const noexcept {
    tosa::version v = tosa::version::v1_0;
    (void)written.known(v);
    return v;
  }
  /// The selected profiles as a set.
  [[nodiscard]] constexpr profile_set profile_flags() const noexcept {
    profile_set s;
    for (std::size_t i = 0; i < profile_count; ++i) s = s | profiles[i];
    return s;
  }
  /// The extension tokens as a set (before the per-profile legality filter of `supports`).
  [[nodiscard]] constexpr ext_set extension_flags() const noexcept {
    ext_set s;
    for (std::size_t i = 0; i < extension_count; ++i) s = s | extensions[i];
    return s;
  }
  /// ExecuTorch `support_integer()`: "INT" is among the profiles.
  [[nodiscard]] constexpr bool support_integer() const noexcept {
    return profile_flags().contains(profile::pro_int);
  }
  /// ExecuTorch `support_float()`: "FP" is among the profiles.
  [[nodiscard]] constexpr bool support_float() const noexcept {
    return profile_flags().contains(profile::pro_fp);
  }
  /// ExecuTorch `support_extension(e)`: `e` is enabled AND valid for this version under at
  /// least one selected profile. (The U55 flag is not an extension: `supports(ext::u55)` is
  /// true only for a repeated "u55" token, as in ExecuTorch.)
  [[nodiscard]] constexpr bool supports(ext e) const noexcept {
    if (!extension_flags().contains(e)) return false;
    for (std::size_t i = 0; i < profile_count; ++i) {
      if (allowed(e, tosa_version(), profiles[i])) return true;
    }
    return false;
  }
  /// Every extension `supports()` accepts, as a set.
  [[nodiscard]] constexpr ext_set supported_extensions() const noexcept {
    ext_set s;
    for (std::size_t e = 0; e < ext_count; ++e) {
      if (supports(static_cast<ext>(e))) s = s | static_cast<ext>(e);
    }
    return s;
  }
  /// The TOSA level.
  [[nodiscard]] constexpr tosa::level level() const noexcept {
    return level_8k ? tosa::level::eight_k : tosa::level::none;
  }
  /// True when the version is known, 1–2 profiles are set, and every extension is valid for
  /// the version under one of the profiles (what `parse` guarantees).
  [[nodiscard]] constexpr bool valid() const noexcept {
    tosa::version v{};
    if (!written.known(v) || profile_count == 0 || profile_count > max_profiles) return false;
    for (std::size_t i = 0; i < extension_count; ++i) {
      bool ok = false;
      for (std::size_t p = 0; p < profile_count; ++p) ok = ok || allowed(extensions[i], v, profiles[p]);
      if (!ok) return false;
    }
    return true;
  }
  /// The version as written, normalised per component ("1.0.0").
  template <std::size_t N>
  constexpr void append_version(detail::fixed_text<N>& out) const noexcept {
    for (std::size_t i = 0; i < written.count; ++i) {
      if (i != 0) out.append('.');
      out.append_uint(written.parts[i]);
    }
  }
  /// The spec string ("TOSA-1.0+INT+int16+8k"); `parse(t.text().view()) == t` for parsed `t`.
  [[nodiscard]] constexpr detail::fixed_text<512> text() const noexcept {
    detail::fixed_text<512> out("TOSA-");
    append_version(out);
    for (std::size_t i = 0; i < profile_count; ++i) out.append('+').append(token(profiles[i]));
    for (std::size_t i = 0; i < extension_count; ++i) out.append('+').append(token(extensions[i]));
    if (level_8k) out.append("+8k");
    if (u55) out.append("+u55");
    return out;
  }
  /// Structural equality (every field, order included).
  friend constexpr bool operator==(const target&, const target&) = default;

 private:
  static constexpr std::size_t profile_count_all = tosa::profile_count;
};

/// ExecuTorch's `TosaSpecification.__eq__`: same (major, minor) and same profiles in the same
/// order; extensions, level and U55 flag are ignored.
[[nodiscard]] constexpr bool same_base(const target& a, const target& b) noexcept {
  if (a.written.major() != b.written.major() || a.written.minor() != b.written.minor()) return false;
  if (a.profile_count != b.profile_count) return false;
  for (std::size_t i = 0; i < a.profile_count; ++i) {
    if (a.profiles[i] != b.profiles[i]) return false;
  }
  return true;
}

/// ExecuTorch's `_canonical_key()`: the same (major, minor) written as "major.minor.0", the same
/// profiles, no extensions, no level, no U55 flag.
[[nodiscard]] constexpr target canonical(const target& t) noexcept {
  target c;
  c.written.parts = {t.written.major(), t.written.minor(), 0, 0};
  c.written.count = 3;
  c.profiles = t.profiles;
  c.profile_count = t.profile_count;
  return c;
}

/// Why a spec string was rejected.
enum class parse_errc : std::uint8_t {
  ok,                 ///< no error
  failed_to_parse,    ///< does not match `^(TOSA)-([\d.]+)\+(.+)$`
  invalid_version,    ///< the version is not a release number ("1..0", "1.")
  wrong_version,      ///< (major, minor) is not (1, 0) or (1, 1)
  no_profile,         ///< no "INT"/"FP" token
  too_many_profiles,  ///< more than two profile tokens
  bad_extension,      ///< a token that is no valid extension for the version and profiles
  too_long,           ///< more than 4 version components or 32 tokens (armlower limit)
};

/// Result of `parse`: the target, or an error code, the offending token and a message that
/// names it. Self-contained (copies the token), so it may outlive the parsed string.
struct parse_result {
  target value{};                        ///< the target (meaningful when `ok()`)
  parse_errc error = parse_errc::ok;     ///< error code
  detail::fixed_text<128> bad_token{};   ///< the offending token (or the whole string)
  detail::fixed_text<384> message_text{};  ///< readable message, empty when ok

  /// True when the string was valid.
  [[nodiscard]] constexpr bool ok() const noexcept { return error == parse_errc::ok; }
  /// `ok()`.
  constexpr explicit operator bool() const noexcept { return ok(); }
  /// The readable error, e.g. "Bad extension for TOSA-1.0+FP: mxfp (valid: bf16, ...)".
  [[nodiscard]] constexpr std::string_view message() const noexcept { return message_text.view(); }
  /// The token that made the string invalid.
  [[nodiscard]] constexpr std::string_view token() const noexcept { return bad_token.view(); }
};

namespace detail {

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

constexpr parse_result fail(parse_errc e, std::string_view tok, std::string_view whole,
                            const target& partial = {}) noexcept {
  parse_result r;
  r.error = e;
  r.bad_token.append(tok);
  auto& m = r.message_text;
  switch (e) {
    case parse_errc::ok: break;
    case parse_errc::failed_to_parse:
      m.append("Failed to parse TOSA specification representation: ").append(whole);
      break;
    case parse_errc::invalid_version:
      m.append("Invalid version: ").append(tok).append(" in ").append(whole);
      break;
    case parse_errc::wrong_version:
      m.append("Wrong TOSA version: ").append(tok).append(" from ").append(whole)
          .append(" (supported: 1.0, 1.1)");
      break;
    case parse_errc::no_profile:
      m.append("No profile (INT or FP) found in: ").append(whole);
      break;
    case parse_errc::too_many_profiles:
      m.append("Too many profiles (at most 2 of INT, FP): ").append(tok).append(" in ").append(whole);
      break;
    case parse_errc::bad_extension: {
      m.append("Bad extension for TOSA-");
      partial.append_version(m);
      for (std::size_t i = 0; i < partial.profile_count; ++i) m.append('+').append(token(partial.profiles[i]));
      m.append(": ").append(tok);
      m.append(" (valid:");
      bool first = true;
      for (std::size_t x = 0; x < ext_count; ++x) {
        const ext e = static_cast<ext>(x);
        bool ok = false;
        for (std::size_t i = 0; i < partial.profile_count; ++i)
          ok = ok || allowed(e, partial.tosa_version(), partial.profiles[i]);
        if (!ok) continue;
        m.append(first ? " " : ", ").append(token(e));
        first = false;
      }
      m.append(')');
      break;
    }
    case parse_errc::too_long:
      m.append("Too many version components or tokens (armlower keeps at most 4 and 32): ")
          .append(whole);
      break;
  }
  return r;
}

/// Parses a PEP 440 release "N(.N)*" into `out`. Returns false when malformed.
constexpr parse_errc parse_release(std::string_view v, spec_version& out) noexcept {
  std::array<std::uint64_t, 8> parts{};
  std::size_t n = 0;
  bool overflow = false;
  std::size_t i = 0;
  while (true) {
    if (i >= v.size() || !is_digit(v[i])) return parse_errc::invalid_version;
    std::uint64_t x = 0;
    while (i < v.size() && is_digit(v[i])) {
      x = x * 10 + static_cast<std::uint64_t>(v[i] - '0');
      if (x > 0xFFFFFFFFu) {
        overflow = true;
        x = 0xFFFFFFFFu;
      }
      ++i;
    }
    if (n == parts.size()) return parse_errc::too_long;
    parts[n++] = x;
    if (i == v.size()) break;
    if (v[i] != '.') return parse_errc::invalid_version;
    ++i;
  }
  // A component too large for 32 bits cannot be 1.0/1.1: report it as a wrong version.
  if (overflow) return parse_errc::wrong_version;
  if (parts[0] != 1 || (n > 1 && parts[1] > 1)) return parse_errc::wrong_version;
  if (n > spec_version::max_components) return parse_errc::too_long;
  out.count = static_cast<std::uint8_t>(n);
  for (std::size_t k = 0; k < n; ++k) out.parts[k] = static_cast<std::uint32_t>(parts[k]);
  return parse_errc::ok;
}

}  // namespace detail

/// Parses an ExecuTorch TOSA spec string with ExecuTorch's acceptance rules (see the file
/// comment). Never throws; on error the result names the offending token.
[[nodiscard]] constexpr parse_result parse(std::string_view s) noexcept {
  using detail::fail;
  constexpr std::string_view prefix = "TOSA-";
  if (s.substr(0, prefix.size()) != prefix) return fail(parse_errc::failed_to_parse, s, s);
  std::size_t i = prefix.size();
  const std::size_t vbegin = i;
  while (i < s.size() && (detail::is_digit(s[i]) || s[i] == '.')) ++i;
  if (i == vbegin || i >= s.size() || s[i] != '+') return fail(parse_errc::failed_to_parse, s, s);
  const std::string_view vtext = s.substr(vbegin, i - vbegin);
  std::string_view rest = s.substr(i + 1);
  // Python's `$` also matches before one trailing newline; `.` never matches a newline.
  if (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);
  if (rest.empty() || detail::find_char(rest, '\n') != std::string_view::npos)
    return fail(parse_errc::failed_to_parse, s, s);

  target t;
  switch (detail::parse_release(vtext, t.written)) {
    case parse_errc::ok: break;
    case parse_errc::wrong_version: return fail(parse_errc::wrong_version, vtext, s);
    case parse_errc::too_long: return fail(parse_errc::too_long, vtext, s);
    default: return fail(parse_errc::invalid_version, vtext, s);
  }
  const tosa::version v = t.tosa_version();

  // Split on '+'.
  std::array<std::string_view, target::max_extensions + 4> tok{};
  std::array<bool, target::max_extensions + 4> used{};
  std::size_t n = 0;
  for (std::size_t b = 0;;) {
    const std::size_t e = detail::find_char(rest, '+', b);
    if (n == tok.size()) return fail(parse_errc::too_long, rest, s);
    tok[n++] = rest.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  // 1. The first "u55" is the subset flag.
  for (std::size_t k = 0; k < n; ++k) {
    if (tok[k] == "u55") {
      used[k] = true;
      t.u55 = true;
      break;
    }
  }
  // 2. Profiles, counted over the remaining tokens and kept in order.
  std::size_t profiles_seen = 0;
  for (std::size_t k = 0; k < n; ++k) {
    profile p{};
    if (used[k] || !profile_from_token(tok[k], p)) continue;
    if (++profiles_seen > target::max_profiles) return fail(parse_errc::too_many_profiles, tok[k], s);
    t.profiles[t.profile_count++] = p;
    used[k] = true;
  }
  if (profiles_seen == 0) return fail(parse_errc::no_profile, rest, s);
  // 3. The first "8k" is the level.
  for (std::size_t k = 0; k < n; ++k) {
    if (!used[k] && tok[k] == "8k") {
      used[k] = true;
      t.level_8k = true;
      break;
    }
  }
  // 4./5. Every other token must be a valid extension for one of the profiles.
  for (std::size_t k = 0; k < n; ++k) {
    if (used[k]) continue;
    ext e{};
    bool ok = ext_from_token(tok[k], e);
    bool any = false;
    for (std::size_t p = 0; ok && p < t.profile_count; ++p) any = any || allowed(e, v, t.profiles[p]);
    if (!ok || !any) return fail(parse_errc::bad_extension, tok[k], s, t);
    if (t.extension_count == target::max_extensions) return fail(parse_errc::too_long, tok[k], s);
    t.extensions[t.extension_count++] = e;
  }
  parse_result r;
  r.value = t;
  return r;
}

/// The spec string of `t` (hosted convenience over `target::text()`).
[[nodiscard]] inline std::string to_string(const target& t) {
  return std::string(t.text().view());
}

/// A string literal usable as a class-type template argument: `spec<"TOSA-1.0+INT">`.
template <std::size_t N>
struct fixed_string {
  char data[N]{};  ///< the characters, NUL-terminated
  /// All NUL.
  constexpr fixed_string() = default;
  /// Copies a string literal.
  constexpr fixed_string(const char (&s)[N]) noexcept {  // NOLINT(google-explicit-constructor)
    for (std::size_t i = 0; i < N; ++i) data[i] = s[i];
  }
  /// The characters without the terminating NUL.
  [[nodiscard]] constexpr std::string_view view() const noexcept {
    return std::string_view(data, N - 1);
  }
};

namespace detail {
template <auto>
inline constexpr bool always_false = false;

/// The parse error message of `S` as a string literal type, so the compiler prints it.
template <fixed_string S>
consteval auto spec_error_text() {
  constexpr parse_result r = parse(S.view());
  fixed_string<r.message_text.len + 1> out;
  for (std::size_t i = 0; i < r.message_text.len; ++i) out.data[i] = r.message_text.buf[i];
  return out;
}

/// Instantiated only for an invalid spec string; the reason is the first template argument
/// (GCC prints it as text; clang prints the error code that follows it).
template <fixed_string Reason, parse_errc Why>
struct invalid_tosa_spec_string {
  static_assert(always_false<Reason>,
                "armlower::tosa::spec<\"...\">: invalid TOSA specification string; the reason "
                "(naming the bad token) is the template argument of invalid_tosa_spec_string");
  static constexpr bool value = false;
};

template <fixed_string S, bool Ok = parse(S.view()).ok()>
struct check_spec_string {
  static constexpr bool value = true;
};
template <fixed_string S>
struct check_spec_string<S, false> {
  static constexpr bool value =
      invalid_tosa_spec_string<spec_error_text<S>(), parse(S.view()).error>::value;
};
}  // namespace detail

/// True when `S` is a valid spec string (SFINAE-friendly probe; `spec<S>` is a hard error).
template <fixed_string S>
inline constexpr bool valid_spec_string = parse(S.view()).ok();

/// A TOSA target as a type: `tosa::spec<"TOSA-1.0+INT+int16">`. An invalid string is a
/// compile error whose message names the bad token.
template <fixed_string S>
struct spec {
  static_assert(detail::check_spec_string<S>::value);
  /// The target.
  static constexpr target value = parse(S.view()).value;
  /// The string the type was made from.
  static constexpr std::string_view string = S.view();
  /// `value.supports(e)`.
  [[nodiscard]] static constexpr bool supports(ext e) noexcept { return value.supports(e); }
  /// `value.support_integer()`.
  [[nodiscard]] static constexpr bool support_integer() noexcept { return value.support_integer(); }
  /// `value.support_float()`.
  [[nodiscard]] static constexpr bool support_float() noexcept { return value.support_float(); }
};

/// A type carrying a compile-time target as `static constexpr tosa::target value`
/// (`spec<"...">` or any user type of that shape).
template <class T>
concept TargetSpec = requires {
  { T::value } -> std::convertible_to<const target&>;
};

}  // namespace armlower::tosa
