// Positive twin: MXFP4 with the mxfp extension compiles.
#include <armlower/passes.hpp>
using namespace armlower;
auto f(graph::graph g) { return lower<tosa::spec<"TOSA-1.1+FP+mxfp">, passes::scheme::mxfp4>(std::move(g)); }
