// expect: Bad extension for TOSA-1.0+FP: mxfp (valid:
// mxfp is a 1.1-only extension: the spec type names the bad token.
#include <armlower/tosa.hpp>
constexpr bool mx = armlower::tosa::spec<"TOSA-1.0+FP+mxfp">::supports(armlower::tosa::ext::mxfp);
