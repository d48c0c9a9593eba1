// expect: CONV2D i16xi8->i48 requires EXT-INT16; TOSA-1.0+INT does not enable it
// The a16w8 CONV2D visitor (INT48 accumulator) does not exist without EXT-INT16.
#include <armlower/serialize.hpp>
using namespace armlower;
template struct serialize::op_writer<tosa::spec<"TOSA-1.0+INT">, tosa::op::conv2d, dtype::i16, dtype::i8, dtype::i48>;
