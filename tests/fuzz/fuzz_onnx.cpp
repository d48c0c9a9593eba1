// libFuzzer target over armlower's .onnx importer (untrusted ONNX protobuf bytes; the compiled
// component armlower::onnx: src/import/onnx.cpp + the code protoc generates from
// include/armlower/import/onnx_subset.proto), built with clang and
// -fsanitize=fuzzer,address,undefined. Properties checked on every input:
//  - inspect_onnx() and import_onnx() (default and strict) never crash, read out of bounds, hit
//    undefined behaviour or leak (sanitizers), and return an error value (never throw) (any
//    other exception escapes and libFuzzer reports it as a crash);
//  - every import_error message is non-empty and one line;
//  - inspect_onnx accepts every file import_onnx accepts, and an imported graph refers only to
//    tensors it declares, with unique tensor names.
// External data is resolved against an empty folder made for the run (so a location names
// nothing that exists; the path checks still run).
#include <armlower/import/onnx.hpp>

#include "fuzz_checks.hpp"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include <unistd.h>

namespace {

using namespace armlower;

constexpr const char* target = "fuzz_onnx";

[[noreturn]] void fail(const std::string& what) { fuzz::fail(target, what); }

void check_message(const armlower::error& e) { fuzz::check_one_line(target, e); }

void check_graph(const graph::graph& g) { fuzz::check_graph(target, g); }

const std::filesystem::path& empty_dir() {
  static const std::filesystem::path d = [] {
    auto p = std::filesystem::temp_directory_path() / ("armlower_fuzz_onnx_" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p;
  }();
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  const auto m = import::inspect_onnx(bytes, "fuzz.onnx", empty_dir());
  const bool inspected = m.has_value();
  if (!inspected) check_message(m.error());
  for (const bool strict : {false, true}) {
    const auto r = import::import_onnx(bytes, "fuzz.onnx", empty_dir(), {.strict = strict});
    if (r) {
      if (!inspected) fail("import_onnx accepts a file inspect_onnx refuses");
      check_graph(r->graph);
    } else {
      check_message(r.error());
    }
  }
  return 0;
}
