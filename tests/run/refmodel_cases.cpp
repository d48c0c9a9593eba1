// Writes TOSA graphs (armlower's serializer), their inputs and armlower's interpreter results to
// a directory, for refmodel_compare.py to run through the TOSA reference model and compare.
// Usage: run_refmodel_cases <output-dir>
// Each line of <output-dir>/cases.txt: <name> <mode> <inputs> <outputs>
//   mode = exact              (integer graph: bit-exact)
//        | close:<rtol>       (float graph: |ref - got| <= rtol * max|ref| per output)
//        | error:<kind>       (the interpreter refused it: error_if → the reference model must not
//                              return TOSA_VALID; require → unpredictable, any outcome)
#include "refmodel_cases.hpp"

#include <armlower/io/file.hpp>
#include <armlower/run/npy.hpp>
#include <armlower/serialize/reader.hpp>
#include <armlower/serialize/writer.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: run_refmodel_cases <output-dir>\n";
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  std::ofstream list(dir / "cases.txt");
  int bad = 0;
  for (const auto& c : run_test::refmodel_cases()) {
    const auto bytes = armlower::serialize::write(c.g, c.format);
    if (!bytes) {
      std::cerr << c.name << ": serializer error: " << bytes.error().line() << "\n";
      ++bad;
      continue;
    }
    (void)armlower::serialize::write_file(dir / (c.name + ".tosa"), *bytes).value();
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      const auto img = armlower::io::format_npy(armlower::run::to_npy(c.inputs[i])).value();
      (void)armlower::serialize::write_file(dir / (c.name + ".in" + std::to_string(i) + ".npy"), img).value();
    }
    const auto r = armlower::run::run(c.g, c.inputs);
    // The graph read back from the file must run to the same result (reader + interpreter).
    const auto file = armlower::serialize::read(*bytes);
    if (!file) {
      std::cerr << c.name << ": reader error: " << file.error().line() << "\n";
      ++bad;
      continue;
    }
    const auto r2 = armlower::run::run(file->graph, c.inputs);
    const bool same = static_cast<bool>(r) == static_cast<bool>(r2) &&
                      (!r ? r.error().code() == r2.error().code() && r.error().message() == r2.error().message()
                          : [&] {
                              for (std::size_t i = 0; i < r->outputs.size(); ++i)
                                if (armlower::run::encode(r->outputs[i]) != armlower::run::encode(r2->outputs[i])) return false;
                              return r->outputs.size() == r2->outputs.size();
                            }());
    if (!same) {
      std::cerr << c.name << ": the graph read back from the .tosa file runs differently\n";
      ++bad;
      continue;
    }
    if (!r) {
      if (c.mode.rfind("error", 0) != 0) {
        std::cerr << c.name << ": interpreter failed: " << r.error().line() << "\n";
        ++bad;
        continue;
      }
      const auto k = r.error().code();
      list << c.name << " error:"
           << (k == armlower::errc::require ? "require" : k == armlower::errc::error_if ? "error_if" : "other")
           << " " << c.inputs.size() << " 0\n";
      std::cout << c.name << ": interpreter error (expected): " << r.error().line() << "\n";
      continue;
    }
    if (c.mode.rfind("error", 0) == 0) {
      std::cerr << c.name << ": the interpreter accepted a graph it should refuse\n";
      ++bad;
      continue;
    }
    for (std::size_t i = 0; i < r->outputs.size(); ++i) {
      const auto img = armlower::io::format_npy(armlower::run::to_npy(r->outputs[i])).value();
      (void)armlower::serialize::write_file(dir / (c.name + ".out" + std::to_string(i) + ".npy"), img).value();
    }
    list << c.name << " " << c.mode << " " << c.inputs.size() << " " << r->outputs.size() << "\n";
  }
  return bad == 0 ? 0 : 1;
}
