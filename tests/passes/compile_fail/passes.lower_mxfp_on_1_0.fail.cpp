// expect: CAST_TO_BLOCK_SCALED needs TOSA 1.1 (target is 1.0)
// MXFP lowering for a TOSA 1.0 target does not compile.
#include <armlower/passes.hpp>
using namespace armlower;
auto f(graph::graph g) { return lower<tosa::spec<"TOSA-1.0+FP">, passes::scheme::mxfp8_e4m3>(std::move(g)); }
