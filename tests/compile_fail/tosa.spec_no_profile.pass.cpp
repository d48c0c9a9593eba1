// Positive twin of tosa.spec_no_profile.fail.cpp.
#include <armlower/tosa.hpp>
using T = armlower::tosa::spec<"TOSA-1.0+INT+int16">;
constexpr auto v = T::value;
static_assert(v.support_integer());
