// Properties shared by the importer fuzz targets (fuzz_tflite.cpp, fuzz_onnx.cpp): a failed check
// prints "<target>: <what>" and aborts, which libFuzzer reports as a crash with the input.
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/graph/graph.hpp>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

namespace armlower::fuzz {

/// Aborts with "`target`: `what`".
[[noreturn]] inline void fail(const char* target, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", target, what.c_str());
  std::abort();
}

/// Every diagnostic of `e` is one non-empty line.
inline void check_one_line(const char* target, const error& e) {
  for (const auto& d : e.diagnostics()) {
    const std::string m = d.line();
    if (d.message.empty() || m.find('\n') != std::string::npos)
      fail(target, "diagnostic is empty or not one line: '" + m + "'");
  }
}

/// An imported graph has unique tensor names and refers only to tensors it declares (operands,
/// results, graph inputs and outputs).
inline void check_graph(const char* target, const graph::graph& g) {
  std::set<std::string> names;
  for (const auto& t : g.tensors)
    if (!names.insert(t.name).second) fail(target, "imported graph has two tensors named '" + t.name + "'");
  auto declared = [&](const std::string& n, const char* role) {
    if (names.count(n) == 0) fail(target, std::string(role) + " '" + n + "' is not a tensor of the imported graph");
  };
  for (const auto& op : g.operators) {
    for (const auto& n : op.inputs) declared(n, "operand");
    for (const auto& n : op.outputs) declared(n, "result");
  }
  for (const auto& n : g.inputs) declared(n, "graph input");
  for (const auto& n : g.outputs) declared(n, "graph output");
}

}  // namespace armlower::fuzz
