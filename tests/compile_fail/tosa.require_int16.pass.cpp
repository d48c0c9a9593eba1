// Positive twin of tosa.require_int16.fail.cpp: the same check on a target with int16.
#include <armlower/tosa.hpp>
using namespace armlower;
static_assert(tosa::require<tosa::spec<"TOSA-1.0+INT+int16">, tosa::op::conv2d, dtype::i16, dtype::i8, dtype::i48>);
