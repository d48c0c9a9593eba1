// expect: CONV2D i16xi8->i48 requires EXT-INT16; TOSA-1.0+INT does not enable it
// Lowering a16w8 for a compile-time target without EXT-INT16 does not compile; the diagnostic
// carries the op table's reason.
#include <armlower/passes.hpp>
using namespace armlower;
auto f(graph::graph g) { return lower<tosa::spec<"TOSA-1.0+INT">, passes::scheme::a16w8>(std::move(g)); }
