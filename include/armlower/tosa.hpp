/// @file armlower/tosa.hpp
/// Aggregate header of the tosa module: versions, profiles, extensions, levels, spec strings, op table, legality.
#pragma once

#include <armlower/tosa/op.hpp>
#include <armlower/tosa/version.hpp>
#include <armlower/tosa/profile.hpp>
#include <armlower/tosa/extension.hpp>
#include <armlower/tosa/level.hpp>
#include <armlower/tosa/spec.hpp>
#include <armlower/tosa/op_table.hpp>
#include <armlower/tosa/legality.hpp>
