// spec_check: compile-time and run-time TOSA legality checks.
//
// The static_asserts below are checked by the compiler for a target fixed in the code; the
// program then parses each spec string given on the command line (ExecuTorch spelling) and
// prints whether the a16w8 linear (CONV2D i16×i8→i48 + RESCALE i48→i16) is legal on it, and
// why not when it is not.
//
//   spec_check TOSA-1.0+INT TOSA-1.0+INT+int16 TOSA-1.1+FP+mxfp
#include <armlower/armlower.hpp>

#include <cstdio>
#include <string>

namespace tosa = armlower::tosa;
namespace dtype = armlower::dtype;

// Compile time: the target is a type; an illegal combination would not compile with require<>.
using a16w8_target = tosa::spec<"TOSA-1.0+INT+int16">;
static_assert(a16w8_target::supports(tosa::ext::int16));
static_assert(tosa::legal<a16w8_target, tosa::op::conv2d, dtype::i16, dtype::i8, dtype::i48>);
static_assert(tosa::require<a16w8_target, tosa::op::rescale, dtype::i48, dtype::i16>);
static_assert(!tosa::legal<tosa::spec<"TOSA-1.0+INT">, tosa::op::conv2d, dtype::i16, dtype::i8, dtype::i48>);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("usage: %s <spec string>...   e.g. TOSA-1.0+INT+int16\n", argv[0]);
    return 2;
  }
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    const auto parsed = tosa::parse(argv[i]);
    if (!parsed) {
      std::printf("%s: invalid: %s\n", argv[i], std::string(parsed.message()).c_str());
      status = 1;
      continue;
    }
    const tosa::target& t = parsed.value;
    std::printf("%s: version %s, level %s, U55 %s\n", tosa::to_string(t).c_str(),
                std::string(tosa::name(t.tosa_version())).c_str(), std::string(tosa::name(t.level())).c_str(),
                t.u55 ? "yes" : "no");
    const auto conv = tosa::check(t, tosa::op::conv2d, dtype::i16, dtype::i8, dtype::i48);
    const auto rescale = tosa::check(t, tosa::op::rescale, dtype::i48, dtype::i16);
    std::printf("  %s\n  %s\n", std::string(conv.reason()).c_str(), std::string(rescale.reason()).c_str());
    if (const auto acc = tosa::accumulator_dtype(t, tosa::op::conv2d, dtype::i16, dtype::i8))
      std::printf("  accumulator of i16 x i8: %s\n", std::string(dtype::name(*acc)).c_str());
  }
  return status;
}
