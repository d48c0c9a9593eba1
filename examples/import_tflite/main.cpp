// Example: import a .tflite model, list what was imported and what was left out, lower the
// supported part to TOSA-1.0+INT (run-time target) with the library's policy (`armlower::lower`:
// the same scheme, rounding and calibration choices as `armlower lower`) and print the report.
//
//   import_tflite model.tflite
#include <armlower/import/tflite.hpp>
#include <armlower/lower.hpp>
#include <armlower/tosa/spec.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  using namespace armlower;
  if (argc != 2) {
    std::fprintf(stderr, "usage: import_tflite model.tflite\n");
    return 2;
  }
  const auto r = import::import_tflite_file(argv[1]);
  if (!r) {
    std::fprintf(stderr, "%s\n", r.error().text().c_str());
    return 1;
  }
  std::printf("%s: %zu operator(s) imported, %zu left out\n", argv[1], r->imported.size(), r->left_out.size());
  for (const auto& o : r->left_out) std::printf("  left out %s\n", import::to_string(o).c_str());
  const auto target = tosa::parse("TOSA-1.0+INT");
  const auto lowered = armlower::lower(r->graph, target.value);
  if (!lowered) {
    auto e = lowered.error();
    std::fprintf(stderr, "%s\n", e.in_file(argv[1]).text().c_str());
    return 1;
  }
  std::printf("%s", lowered->report.to_text().c_str());
  return 0;
}
