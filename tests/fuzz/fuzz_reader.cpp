// libFuzzer target over armlower's TOSA reader (untrusted .tosa bytes), built with clang and
// -fsanitize=fuzzer,address,undefined. Properties checked on every input:
//  - read() never crashes, reads out of bounds or hits undefined behaviour (sanitizers);
//  - it either returns a graph or an error with a non-empty one-line message;
//  - when the graph it returns can be written again, that file reads back and rewrites to the
//    same bytes (write → read → write is stable).
#include <armlower/serialize.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace armlower;
  const auto r = serialize::read(std::span<const std::uint8_t>(data, size));
  if (!r.has_value()) {
    const auto m = r.error().line();
    if (m.empty() || m.find('\n') != std::string::npos) {
      std::fprintf(stderr, "reader error message is empty or not one line: '%s'\n", m.c_str());
      std::abort();
    }
    return 0;
  }
  const auto w1 = serialize::write(r->graph, r->version);
  if (!w1.has_value()) return 0;  // the reader is more lenient than the writer (e.g. unused CONST)
  const auto r2 = serialize::read(*w1);
  if (!r2.has_value()) {
    std::fprintf(stderr, "armlower cannot read its own output: %s\n", r2.error().line().c_str());
    std::abort();
  }
  const auto w2 = serialize::write(r2->graph, r2->version);
  if (!w2.has_value() || *w2 != *w1) {
    std::fprintf(stderr, "write -> read -> write is not stable\n");
    std::abort();
  }
  return 0;
}
