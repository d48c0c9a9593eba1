/// @file armlower/run.hpp
/// Aggregate header of the TOSA graph interpreter.
#pragma once

