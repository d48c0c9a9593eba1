// expect: MATMUL_T_BLOCK_SCALED needs TOSA 1.1 (target is 1.0)
// The serializer visitor of MATMUL_T_BLOCK_SCALED does not exist for a TOSA 1.0 target.
#include <armlower/serialize.hpp>
using namespace armlower;
template struct serialize::op_writer<tosa::spec<"TOSA-1.0+INT+FP">, tosa::op::matmul_t_block_scaled, dtype::fp8e4m3,
                                     dtype::fp8e4m3>;
