// libFuzzer target over armlower's .tflite importer (untrusted .tflite bytes), built with clang
// and -fsanitize=fuzzer,address,undefined. Properties checked on every input:
//  - inspect_tflite() and import_tflite() (default and strict) never crash, read out of bounds,
//    hit undefined behaviour or leak (sanitizers), and throw nothing (an exception escapes and
//    libFuzzer reports it as a crash): a bad file is an error value;
//  - every diagnostic of an error is one non-empty line naming the file and the importer, and a
//    strict refusal lists the left-out operators by their model index;
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

void check_message(const error& e) {
  for (const auto& d : e.diagnostics()) {
    const std::string m = d.line();
    if (d.message.empty() || m.find('\n') != std::string::npos) fail("diagnostic is empty or not one line: '" + m + "'");
    if (d.where.file != "fuzz.tflite" || d.where.stage != "tflite importer") fail("diagnostic without file/stage: " + m);
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  const auto info = import::inspect_tflite(bytes, "fuzz.tflite");
  if (!info) check_message(info.error());
  for (const bool strict : {false, true}) {
    const auto r = import::import_tflite(bytes, "fuzz.tflite", {.strict = strict});
    if (!r) {
      check_message(r.error());
      if (r.error().code() == errc::unsupported && r.error().diagnostics().size() < 2)
        fail("a strict refusal lists no left-out operator");
      continue;
    }
    if (!info) fail("import_tflite accepts a file inspect_tflite refuses");
    check_graph(r->graph);
  }
  return 0;
}
