// Shared by the s8 linear kernel tests (linear_packed.test.cpp, linear_property.test.cpp): the
// `linear_s8_args` of a test layer's operands and shape, every other field at its default.
#pragma once

#include <armlower/kernels/linear_args.hpp>

#include <cstdint>

namespace armlower_test {

/// Arguments over input `x` [batches][cols] and weights `w` [rows][cols] (row-major s8); the offsets,
/// requantization, bias and output are left at their defaults for the test to set.
inline armlower::kernels::linear_s8_args s8_shape_args(const std::int8_t* x, const std::int8_t* w, int batches,
                                                       int cols, int rows) {
  armlower::kernels::linear_s8_args a;
  a.input = x;
  a.weights = w;
  a.batches = batches;
  a.cols = cols;
  a.rows = rows;
  return a;
}

}  // namespace armlower_test
