// expect: no CONV2D row for fp8e4m3xi8->i32
// A dtype combination TOSA has no row for, on any target.
#include <armlower/tosa.hpp>
using namespace armlower;
static_assert(tosa::require<tosa::spec<"TOSA-1.0+INT+FP+fp8e4m3">, tosa::op::conv2d, dtype::fp8e4m3, dtype::i8, dtype::i32>);
