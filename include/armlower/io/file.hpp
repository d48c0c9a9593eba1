/// @file armlower/io/file.hpp
/// Whole-file reading and all-or-nothing file writing for armlower's hosted front ends (the
/// `.tflite` importer, `.npy` I/O and the `armlower` tool). Hosted only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace armlower::io {

/// Error of a file operation; `what()` is one line naming the file and the problem.
class io_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads the whole file `p` into memory.
/// Errors (io_error): the file does not exist, is a directory, or cannot be read.
[[nodiscard]] inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
  std::error_code ec;
  const auto st = std::filesystem::status(p, ec);
  if (ec || !std::filesystem::exists(st)) throw io_error(p.string() + ": no such file");
  if (std::filesystem::is_directory(st)) throw io_error(p.string() + ": is a directory, not a file");
  std::ifstream in(p, std::ios::binary);
  if (!in) throw io_error(p.string() + ": cannot open for reading");
  std::vector<std::uint8_t> bytes;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0) throw io_error(p.string() + ": cannot determine the file size");
  in.seekg(0, std::ios::beg);
  bytes.resize(static_cast<std::size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size))
    throw io_error(p.string() + ": read error");
  return bytes;
}

}  // namespace armlower::io
