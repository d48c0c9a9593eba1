// Reader for the committed MX golden files (tests/mx/data/*.txt, written by scripts/gen_mx_goldens.py).
#pragma once

#include <bit>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <armlower/dtype/dtype.hpp>

namespace mx_test {

#ifndef ARMLOWER_MX_DATA
#error "ARMLOWER_MX_DATA (path of tests/mx/data) must be defined"
#endif

inline std::string data_path(const char* file) { return std::string(ARMLOWER_MX_DATA) + "/" + file; }

/// All lines of a golden file, split into whitespace-separated tokens; the first line (tool
/// versions) is returned separately.
struct golden {
  std::string header;
  std::vector<std::vector<std::string>> lines;
};

inline golden read_golden(const char* file) {
  golden g;
  std::ifstream in(data_path(file));
  std::string line;
  std::getline(in, g.header);
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::vector<std::string> tok;
    std::string t;
    while (ss >> t) tok.push_back(t);
    if (!tok.empty()) g.lines.push_back(std::move(tok));
  }
  return g;
}

inline std::uint32_t hex32(const std::string& s) { return static_cast<std::uint32_t>(std::stoul(s, nullptr, 16)); }
inline float hexf(const std::string& s) { return std::bit_cast<float>(hex32(s)); }

/// Hex fp32 tokens tok[from..] as floats.
inline std::vector<float> floats(const std::vector<std::string>& tok, std::size_t from = 1) {
  std::vector<float> v;
  for (std::size_t i = from; i < tok.size(); ++i) v.push_back(hexf(tok[i]));
  return v;
}
/// Decimal integer tokens tok[from..].
inline std::vector<int> ints(const std::vector<std::string>& tok, std::size_t from = 1) {
  std::vector<int> v;
  for (std::size_t i = from; i < tok.size(); ++i) v.push_back(std::stoi(tok[i]));
  return v;
}

inline armlower::dtype::id type_of(const std::string& name) {
  armlower::dtype::id t{};
  if (!armlower::dtype::from_name(name, t)) throw std::runtime_error("unknown dtype in golden: " + name);
  return t;
}

}  // namespace mx_test
