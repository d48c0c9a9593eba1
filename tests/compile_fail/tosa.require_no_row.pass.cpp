// Positive twin of tosa.require_no_row.fail.cpp: the int8 row.
#include <armlower/tosa.hpp>
using namespace armlower;
static_assert(tosa::require<tosa::spec<"TOSA-1.0+INT+FP+fp8e4m3">, tosa::op::conv2d, dtype::i8, dtype::i8, dtype::i32>);
