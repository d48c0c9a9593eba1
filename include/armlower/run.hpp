/// @file armlower/run.hpp
/// Aggregate header of the TOSA graph interpreter.
#pragma once

#include <armlower/run/error.hpp>
#include <armlower/run/interpreter.hpp>
#include <armlower/run/value.hpp>
#include <armlower/run/npy.hpp>
