// expect: this diagnostic text is never produced by any compiler
// Harness sanity check (fmt's check-error): this file compiles, so the regular expression
// cannot match and the case must FAIL; CMake marks it WILL_FAIL, proving the harness can fail.
#include <armlower/tosa.hpp>
static_assert(armlower::tosa::valid_spec_string<"TOSA-1.0+INT">);
