/// @file armlower/serialize/detail/text.hpp
/// Message helpers shared by the writer and the reader, and the element-count guard.
#pragma once

#include <armlower/graph/graph.hpp>
#include <armlower/io/text.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace armlower::serialize::detail {

/// "INT8 [1,2,3]"
[[nodiscard]] inline std::string describe(const graph::tensor& t) {
  std::string s(dtype::name(t.type));
  s += " [";
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(t.shape[i]);
  }
  return s + "]";
}

/// "operator 3 (CONV2D)"
[[nodiscard]] inline std::string where(std::size_t i, std::string_view op) {
  return "operator " + std::to_string(i) + " (" + std::string(op) + ")";
}

/// Largest element count accepted for one tensor (2^40; keeps every size computation exact).
inline constexpr std::int64_t max_elements = std::int64_t{1} << 40;

/// Largest SHAPE value length accepted (MAX_SHAPE_LEN of level none, TOSA 1.0 `tosa.xml` `<levels>`).
inline constexpr std::int32_t max_shape_len = 64;

/// Element count of `shape`, or -1 when a dimension is < 1 or the count exceeds max_elements.
[[nodiscard]] inline std::int64_t checked_count(std::span<const std::int32_t> shape) noexcept {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 1 || d > max_elements / n) return -1;  // n * d would exceed max_elements
    n *= d;
  }
  return n;
}

/// Printable form of possibly non-printable bytes ("TOSA", "\x00\x01ab").
[[nodiscard]] inline std::string printable(std::span<const std::uint8_t> b) {
  std::string s;
  for (auto c : b) {
    if (c >= 0x20 && c < 0x7F) s += static_cast<char>(c);
    else io::append_escaped_byte(s, c);
  }
  return s;
}

/// A name from a file, quoted and printable: "'x'", "'a\x0ab'".
[[nodiscard]] inline std::string quote_name(std::string_view name) {
  return "'" + printable({reinterpret_cast<const std::uint8_t*>(name.data()), name.size()}) + "'";
}

}  // namespace armlower::serialize::detail
