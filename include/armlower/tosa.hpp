/// @file armlower/tosa.hpp
/// Aggregate header of the tosa module: versions, profiles, extensions, levels, spec strings, op table, legality.
#pragma once

#include <armlower/tosa/op.hpp>
