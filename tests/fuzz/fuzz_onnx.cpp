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

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <span>
#include <string>

#include <unistd.h>

namespace {

using namespace armlower;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_onnx: %s\n", what.c_str());
  std::abort();
}

void check_message(const armlower::error& e) {
  for (const auto& d : e.diagnostics()) {
    const std::string m = d.line();
    if (d.message.empty() || m.find('\n') != std::string::npos) fail("error message is empty or not one line: '" + m + "'");
  }
}

void check_graph(const graph::graph& g) {
  std::set<std::string> names;
  for (const auto& t : g.tensors)
    if (!names.insert(t.name).second) fail("imported graph has two tensors named '" + t.name + "'");
  auto declared = [&](const std::string& n, const char* role) {
    if (names.count(n) == 0) fail(std::string(role) + " '" + n + "' is not a tensor of the imported graph");
  };
  for (const auto& op : g.operators) {
    for (const auto& n : op.inputs) declared(n, "operand");
    for (const auto& n : op.outputs) declared(n, "result");
  }
  for (const auto& n : g.inputs) declared(n, "graph input");
  for (const auto& n : g.outputs) declared(n, "graph output");
}

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
