// libFuzzer target over armlower's .tflite importer (untrusted .tflite bytes), built with clang
// and -fsanitize=fuzzer,address,undefined. Properties checked on every input:
//  - inspect_tflite() and import_tflite() (default and strict) never crash, read out of bounds,
//    hit undefined behaviour or leak (sanitizers), and throw nothing but import::import_error
//    (any other exception escapes and libFuzzer reports it as a crash);
//  - every import_error message is non-empty and one line;
//  - inspect_tflite accepts every file import_tflite accepts, and an imported graph refers only
//    to tensors it declares, with unique tensor names.
#include <armlower/import/tflite.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <span>
#include <string>

namespace {

using namespace armlower;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_tflite: %s\n", what.c_str());
  std::abort();
}

void check_message(const import::import_error& e) {
  const std::string m = e.what();
  if (m.empty() || m.find('\n') != std::string::npos) fail("import_error message is empty or not one line: '" + m + "'");
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  bool inspected = false;
  try {
    (void)import::inspect_tflite(bytes, "fuzz.tflite");
    inspected = true;
  } catch (const import::import_error& e) {
    check_message(e);
  }
  for (const bool strict : {false, true}) {
    try {
      const auto r = import::import_tflite(bytes, "fuzz.tflite", {.strict = strict});
      if (!inspected) fail("import_tflite accepts a file inspect_tflite refuses");
      check_graph(r.graph);
    } catch (const import::import_error& e) {
      check_message(e);
    }
  }
  return 0;
}
