// Positive twin of serialize.mxfp_without_mxfp.fail.cpp: with +mxfp.
#include <armlower/serialize.hpp>
using namespace armlower;
template struct serialize::op_writer<tosa::spec<"TOSA-1.1+FP+mxfp">, tosa::op::cast_to_block_scaled, dtype::fp32,
                                     dtype::fp4e2m1>;
