/// @file tools/armlower/json.hpp
/// The `armlower` tool's JSON output (`--json`): nlohmann/json (Debian nlohmann-json3-dev),
/// written as RFC 8259 JSON. Conventions (docs/tool.md, "JSON output"):
/// - one object per command, on one line of stdout, keys in the order written;
/// - strings are UTF-8; a name that is not valid UTF-8 has each invalid byte replaced by
///   U+FFFD (nlohmann's `error_handler_t::replace`; the library report does the same);
/// - reals are the shortest decimal that reads back as the same float32 value; the non-finite
///   values, which JSON numbers cannot express, are the strings "inf", "-inf" and "nan".
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace armlower::tool {

/// JSON value: keys in insertion order, reals stored as float (every real the tool prints is a
/// float32, and nlohmann writes the shortest decimal that reads back as that float).
using json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t,
                                  float>;

/// A real as JSON: a number, or the string "inf", "-inf" or "nan".
[[nodiscard]] inline json real(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return static_cast<float>(v);
}

/// `j` as one line of RFC 8259 JSON (UTF-8; invalid bytes in strings replaced by U+FFFD).
[[nodiscard]] inline std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

/// Prints `dump(j)` and a newline on stdout.
inline void print_json(const json& j) { std::cout << dump(j) << "\n"; }

}  // namespace armlower::tool
