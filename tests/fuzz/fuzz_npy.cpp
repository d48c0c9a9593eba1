// libFuzzer target over armlower's .npy reader (untrusted .npy bytes), built with clang and
// -fsanitize=fuzzer,address,undefined. Properties checked on every input:
//  - parse_npy() never crashes, reads out of bounds, hits undefined behaviour or leaks
//    (sanitizers), and throws nothing but io::io_error (any other exception escapes and libFuzzer
//    reports it as a crash), with a non-empty one-line message;
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
  io::npy_array a;
  try {
    a = io::parse_npy(std::span<const std::uint8_t>(data, size), "fuzz.npy");
  } catch (const io::io_error& e) {
    const std::string m = e.what();
    if (m.empty() || m.find('\n') != std::string::npos) fail("io_error message is empty or not one line: '" + m + "'");
    return 0;
  }
  std::int64_t n = 1;
  for (auto d : a.shape) {
    if (d < 0) fail("negative dimension " + std::to_string(d));
    n *= d;
  }
  if (a.data.size() != static_cast<std::size_t>(n) * io::npy_element_bytes(a.type))
    fail("data has " + std::to_string(a.data.size()) + " bytes for " + std::to_string(n) + " elements");
  const auto bytes = io::format_npy(a);  // throws io_error only for invalid arrays: a crash here is a bug
  const auto b = io::parse_npy(bytes, "formatted.npy");
  if (b.type != a.type || b.shape != a.shape || b.data != a.data) fail("format_npy -> parse_npy is not the identity");
  return 0;
}
