// Positive twin of tosa.require_version.fail.cpp: TOSA 1.1 with FP and mxfp.
#include <armlower/tosa.hpp>
using namespace armlower;
static_assert(tosa::require<tosa::spec<"TOSA-1.1+FP+mxfp">, tosa::op::matmul_t_block_scaled, dtype::fp8e4m3, dtype::fp8e4m3>);
