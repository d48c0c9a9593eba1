// expect: MATMUL_T_BLOCK_SCALED needs TOSA 1.1 (target is 1.0)
// A block-scaled matmul on a 1.0 target.
#include <armlower/tosa.hpp>
using namespace armlower;
static_assert(tosa::require<tosa::spec<"TOSA-1.0+FP">, tosa::op::matmul_t_block_scaled, dtype::fp8e4m3, dtype::fp8e4m3>);
