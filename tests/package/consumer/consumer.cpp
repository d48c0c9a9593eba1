// A downstream translation unit: the compile-time legality check of the issue, from the umbrella
// header, plus a run-time parse.
#include <armlower/armlower.hpp>

#include <cstdio>

static_assert(armlower::tosa::legal<armlower::tosa::spec<"TOSA-1.0+INT+int16">, armlower::tosa::op::conv2d,
                                    armlower::dtype::i16, armlower::dtype::i8, armlower::dtype::i48>);
static_assert(!armlower::tosa::legal<armlower::tosa::spec<"TOSA-1.0+INT">, armlower::tosa::op::conv2d,
                                     armlower::dtype::i16, armlower::dtype::i8, armlower::dtype::i48>);

int main() {
  const auto r = armlower::tosa::parse("TOSA-1.1+FP+mxfp");
  std::printf("%s\n", r.ok() ? "ok" : "bad");
  return r.ok() ? 0 : 1;
}
