// Positive twin of tosa.spec_wrong_version.fail.cpp.
#include <armlower/tosa.hpp>
constexpr auto v = armlower::tosa::spec<"TOSA-1.0.0+INT">::value;
static_assert(v.tosa_version() == armlower::tosa::version::v1_0);
