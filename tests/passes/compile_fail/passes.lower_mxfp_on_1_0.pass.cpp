// Positive twin: MXFP lowering for TOSA-1.1+FP+mxfp compiles.
#include <armlower/passes.hpp>
using namespace armlower;
auto f(graph::graph g) { return lower<tosa::spec<"TOSA-1.1+FP+mxfp">, passes::scheme::mxfp8_e4m3>(std::move(g)); }
