// expect: No profile (INT or FP) found in: TOSA-1.0+int16
// Profiles are case-sensitive and mandatory.
#include <armlower/tosa.hpp>
using T = armlower::tosa::spec<"TOSA-1.0+int16">;
constexpr auto v = T::value;
