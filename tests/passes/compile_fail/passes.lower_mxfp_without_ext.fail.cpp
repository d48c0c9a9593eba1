// expect: CAST_TO_BLOCK_SCALED fp32->fp4e2m1 requires EXT-MXFP; TOSA-1.1+FP does not enable it
// MXFP4 lowering for a 1.1 target without the mxfp extension does not compile.
#include <armlower/passes.hpp>
using namespace armlower;
auto f(graph::graph g) { return lower<tosa::spec<"TOSA-1.1+FP">, passes::scheme::mxfp4>(std::move(g)); }
