/// @file armlower/io/text.hpp
/// Bytes from untrusted files made safe for one-line messages: the `\xNN` escape that the
/// `.tosa` reader, the `.npy` reader and the `.tflite` importer share. Hosted only.
#pragma once

#include <string>

namespace armlower::io {

/// Appends `\xNN` for byte `c` (two lowercase hex digits), e.g. `\x0a` for a line feed.
inline void append_escaped_byte(std::string& s, unsigned char c) {
  static constexpr char hex[] = "0123456789abcdef";
  s += "\\x";
  s += hex[c >> 4];
  s += hex[c & 15];
}

}  // namespace armlower::io
