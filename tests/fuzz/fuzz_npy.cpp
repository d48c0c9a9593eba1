// libFuzzer target over armlower's .npy reader (untrusted .npy bytes), built with clang and
// -fsanitize=fuzzer,address,undefined. Properties checked on every input:
//  - parse_npy() never crashes, reads out of bounds, hits undefined behaviour or leaks
//    (sanitizers), and throws nothing (an exception escapes and libFuzzer reports it as a crash):
//    a bad image is an error value with a non-empty one-line message naming the file;
//  - an array it returns has exactly element_count(shape) × element bytes of data, and
//    format_npy → parse_npy gives the same array back (dtype, shape, data).
#include <armlower/io/npy.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

namespace {

using namespace armlower;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_npy: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = io::parse_npy(std::span<const std::uint8_t>(data, size), "fuzz.npy");
  if (!parsed) {
    const std::string m = parsed.error().line();
    if (parsed.error().message().empty() || m.find('\n') != std::string::npos)
      fail("error message is empty or not one line: '" + m + "'");
    if (parsed.error().where().file != "fuzz.npy") fail("error does not name the file: '" + m + "'");
    return 0;
  }
  const auto& a = *parsed;
  std::int64_t n = 1;
  for (auto d : a.shape) {
    if (d < 0) fail("negative dimension " + std::to_string(d));
    n *= d;
  }
  if (a.data.size() != static_cast<std::size_t>(n) * io::npy_element_bytes(a.type))
    fail("data has " + std::to_string(a.data.size()) + " bytes for " + std::to_string(n) + " elements");
  const auto bytes = io::format_npy(a);  // an error only for invalid arrays: a bug here
  if (!bytes) fail("format_npy refuses a parsed array: " + bytes.error().line());
  const auto back = io::parse_npy(*bytes, "formatted.npy");
  if (!back) fail("parse_npy refuses what format_npy wrote: " + back.error().line());
  const auto& b = *back;
  if (b.type != a.type || b.shape != a.shape || b.data != a.data) fail("format_npy -> parse_npy is not the identity");
  return 0;
}
