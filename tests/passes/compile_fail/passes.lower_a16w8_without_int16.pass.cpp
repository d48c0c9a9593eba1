// Positive twin: the same lowering for a target with EXT-INT16 compiles.
#include <armlower/passes.hpp>
using namespace armlower;
auto f(graph::graph g) { return lower<tosa::spec<"TOSA-1.0+INT+int16">, passes::scheme::a16w8>(std::move(g)); }
