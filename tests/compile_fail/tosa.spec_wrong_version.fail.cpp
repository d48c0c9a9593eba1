// expect: Wrong TOSA version: 2.0 from TOSA-2.0+INT
// Only 1.0 and 1.1 exist.
#include <armlower/tosa.hpp>
constexpr auto v = armlower::tosa::spec<"TOSA-2.0+INT">::value;
