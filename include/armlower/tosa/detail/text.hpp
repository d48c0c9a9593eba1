/// @file armlower/tosa/detail/text.hpp
/// A fixed-capacity, constexpr-buildable character buffer. Spec printing and legality reasons
/// are composed with it so the same code runs in `constexpr` evaluation (no allocation) and at
/// run time. Internal: users see it only through `std::string_view` accessors.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace armlower::tosa::detail {

/// Index of the first `c` in `s` at or after `pos`, or `std::string_view::npos`. Same result as
/// `s.find(c, pos)`, but by index: libstdc++'s `find` compares a pointer with null, which GCC
/// refuses in constant evaluation when `-fsanitize=null` (part of `-fsanitize=undefined`) is on.
[[nodiscard]] constexpr std::size_t find_char(std::string_view s, char c,
                                              std::size_t pos = 0) noexcept {
  for (std::size_t i = pos; i < s.size(); ++i) {
    if (s[i] == c) return i;
  }
  return std::string_view::npos;
}

/// Up to `N` characters plus a terminating NUL. Appending past the capacity truncates and sets
/// `truncated` (never overflows).
template <std::size_t N>
struct fixed_text {
  std::array<char, N + 1> buf{};
  std::size_t len = 0;
  bool truncated = false;

  constexpr fixed_text() = default;
  constexpr explicit fixed_text(std::string_view s) { append(s); }

  constexpr fixed_text& append(std::string_view s) noexcept {
    for (char c : s) {
      if (len == N) {
        truncated = true;
        break;
      }
      buf[len++] = c;
    }
    buf[len] = '\0';
    return *this;
  }
  constexpr fixed_text& append(char c) noexcept { return append(std::string_view(&c, 1)); }
  /// Appends the decimal spelling of `v`.
  constexpr fixed_text& append_uint(std::uint64_t v) noexcept {
    char digits[20]{};
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) append(digits[--n]);
    return *this;
  }
  [[nodiscard]] constexpr std::string_view view() const noexcept {
    return std::string_view(buf.data(), len);
  }
  [[nodiscard]] constexpr bool empty() const noexcept { return len == 0; }
  friend constexpr bool operator==(const fixed_text& a, const fixed_text& b) noexcept {
    return a.view() == b.view();
  }
};

}  // namespace armlower::tosa::detail
