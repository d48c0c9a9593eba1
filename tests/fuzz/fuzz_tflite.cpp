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

#include "fuzz_checks.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace {

using namespace armlower;

constexpr const char* target = "fuzz_tflite";

[[noreturn]] void fail(const std::string& what) { fuzz::fail(target, what); }

void check_message(const error& e) {
  fuzz::check_one_line(target, e);
  for (const auto& d : e.diagnostics()) {
    const std::string m = d.line();
    if (d.where.file != "fuzz.tflite" || d.where.stage != "tflite importer") fail("diagnostic without file/stage: " + m);
  }
}

void check_graph(const graph::graph& g) { fuzz::check_graph(target, g); }

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
