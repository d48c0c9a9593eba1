// expect: CONV2D i16xi8->i48 requires EXT-INT16; TOSA-1.0+INT does not enable it
// An a16w8 CONV2D on a target without EXT-INT16: require<> names the missing extension.
#include <armlower/tosa.hpp>
using namespace armlower;
static_assert(tosa::require<tosa::spec<"TOSA-1.0+INT">, tosa::op::conv2d, dtype::i16, dtype::i8, dtype::i48>);
