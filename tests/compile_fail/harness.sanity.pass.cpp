// Positive twin of harness.sanity.fail.cpp (the same file content compiles).
#include <armlower/tosa.hpp>
static_assert(armlower::tosa::valid_spec_string<"TOSA-1.0+INT">);
