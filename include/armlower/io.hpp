/// @file armlower/io.hpp
/// Aggregate header of the io module: whole-file reading and NumPy `.npy` arrays (hosted).
#pragma once

#include <armlower/io/file.hpp>
#include <armlower/io/npy.hpp>
