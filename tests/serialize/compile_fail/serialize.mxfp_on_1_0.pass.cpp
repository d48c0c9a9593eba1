// Positive twin of serialize.mxfp_on_1_0.fail.cpp: the same visitor on TOSA-1.1+FP+mxfp.
#include <armlower/serialize.hpp>
using namespace armlower;
template struct serialize::op_writer<tosa::spec<"TOSA-1.1+FP+mxfp">, tosa::op::matmul_t_block_scaled, dtype::fp8e4m3,
                                     dtype::fp8e4m3>;
