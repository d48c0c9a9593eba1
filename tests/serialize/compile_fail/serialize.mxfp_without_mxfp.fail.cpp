// expect: CAST_TO_BLOCK_SCALED fp32->fp4e2m1 requires EXT-MXFP; TOSA-1.1+FP does not enable it
// CAST_TO_BLOCK_SCALED on a 1.1 target without the mxfp extension.
#include <armlower/serialize.hpp>
using namespace armlower;
template struct serialize::op_writer<tosa::spec<"TOSA-1.1+FP">, tosa::op::cast_to_block_scaled, dtype::fp32,
                                     dtype::fp4e2m1>;
