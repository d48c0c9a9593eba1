/// @file armlower/dtype.hpp
/// Aggregate header of the dtype module: TOSA element types, traits, lattice, torch names.
#pragma once

#include <armlower/dtype/dtype.hpp>
