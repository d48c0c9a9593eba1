// Positive twin of tosa.spec_bad_extension.fail.cpp: mxfp on 1.1.
#include <armlower/tosa.hpp>
constexpr bool mx = armlower::tosa::spec<"TOSA-1.1+FP+mxfp">::supports(armlower::tosa::ext::mxfp);
static_assert(mx);
