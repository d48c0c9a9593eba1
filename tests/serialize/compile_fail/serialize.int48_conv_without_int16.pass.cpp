// Positive twin of serialize.int48_conv_without_int16.fail.cpp: the same visitor with int16.
#include <armlower/serialize.hpp>
using namespace armlower;
template struct serialize::op_writer<tosa::spec<"TOSA-1.0+INT+int16">, tosa::op::conv2d, dtype::i16, dtype::i8,
                                     dtype::i48>;
