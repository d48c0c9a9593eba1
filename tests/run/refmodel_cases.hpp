// The graphs the interpreter is compared on with the TOSA reference model (refmodel_compare.py).
#pragma once

#include "run_test_util.hpp"

#include <armlower/serialize/format.hpp>

#include <string>
#include <vector>

namespace run_test {

struct refmodel_case {
  std::string name;
  std::string mode;  // "exact", "close:<rtol>", "error"
  armlower::serialize::format format = armlower::serialize::format::tosa_1_0;
  graph::graph g;
  std::vector<run::value> inputs;
};

inline std::vector<float> random_reals(std::mt19937_64& rng, std::size_t n, float sigma) {
  std::normal_distribution<float> d(0.0f, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

/// Data layout and integer element-wise ops: TRANSPOSE → RESHAPE → ADD (broadcast const) →
/// MUL (INT32, shift 3) and CAST/CLAMP on INT8.
inline refmodel_case case_layout_int() {
  std::mt19937_64 rng(100);
  builder b;
  b.input("x", id::i32, {2, 3, 4});
  b.declare("xt", id::i32, {4, 2, 3});
  b.op(tosa::op::transpose, {"x"}, {"xt"}, graph::transpose_attr{{2, 0, 1}});
  b.shape_const("s46", {4, 6});
  b.declare("xr", id::i32, {4, 6});
  b.op(tosa::op::reshape, {"xt", "s46"}, {"xr"});
  b.ints("k", id::i32, {1, 6}, random_ints(rng, 6, -100000, 100000));
  b.declare("sum", id::i32, {4, 6});
  b.op(tosa::op::add, {"xr", "k"}, {"sum"});
  b.ints("m", id::i32, {4, 1}, random_ints(rng, 4, -3000, 3000));
  b.ints("sh", id::i8, {1}, {3});
  b.declare("prod", id::i32, {4, 6});
  b.op(tosa::op::mul, {"sum", "m", "sh"}, {"prod"});
  b.output("prod");
  b.input("q", id::i8, {5, 7});
  b.declare("q16", id::i16, {5, 7});
  b.op(tosa::op::cast, {"q"}, {"q16"});
  b.declare("qc", id::i8, {5, 7});
  b.op(tosa::op::clamp, {"q"}, {"qc"}, graph::clamp_attr{-20, 90, graph::nan_mode::propagate});
  b.declare("q8", id::i8, {5, 7});
  b.op(tosa::op::cast, {"q16"}, {"q8"});
  b.declare("qm", id::i32, {5, 7});
  b.ints("zero", id::i8, {1}, {0});
  b.op(tosa::op::mul, {"qc", "q8", "zero"}, {"qm"});
  b.output("qm");
  refmodel_case c{"layout_int", "exact", armlower::serialize::format::tosa_1_0, b.g, {}};
  c.inputs.push_back(run::from_ints(id::i32, {2, 3, 4}, random_ints(rng, 24, -100000, 100000)));
  c.inputs.push_back(run::from_ints(id::i8, {5, 7}, random_ints(rng, 35, -128, 127)));
  return c;
}

/// FP32/FP16 element-wise ops and float CASTs (FP32 → FP16 / BF16 / FP8 and back, float → INT8).
inline refmodel_case case_float_ops() {
  std::mt19937_64 rng(101);
  builder b;
  b.input("x", id::fp32, {3, 8});
  b.constant("k", run::from_reals(id::fp32, {1, 8}, random_reals(rng, 8, 2.0f)));
  b.declare("s", id::fp32, {3, 8});
  b.op(tosa::op::add, {"x", "k"}, {"s"});
  b.constant("m", run::from_reals(id::fp32, {3, 1}, random_reals(rng, 3, 3.0f)));
  b.ints("sh", id::i8, {1}, {0});
  b.declare("p", id::fp32, {3, 8});
  b.op(tosa::op::mul, {"s", "m", "sh"}, {"p"});
  b.declare("c", id::fp32, {3, 8});
  b.op(tosa::op::clamp, {"p"}, {"c"}, graph::clamp_attr{-6.0, 6.0, graph::nan_mode::propagate});
  b.output("c");
  b.declare("h", id::fp16, {3, 8});
  b.op(tosa::op::cast, {"p"}, {"h"});
  b.output("h");
  b.declare("bf", id::bf16, {3, 8});
  b.op(tosa::op::cast, {"p"}, {"bf"});
  b.declare("bf32", id::fp32, {3, 8});
  b.op(tosa::op::cast, {"bf"}, {"bf32"});
  b.output("bf32");
  for (id t : {id::fp8e4m3, id::fp8e5m2}) {
    const std::string n(armlower::dtype::traits(t).short_name);
    b.declare(n, t, {3, 8});
    b.op(tosa::op::cast, {"p"}, {n});
    b.declare(n + "_32", id::fp32, {3, 8});
    b.op(tosa::op::cast, {n}, {n + "_32"});
    b.output(n + "_32");
  }
  b.declare("i", id::i8, {3, 8});
  b.op(tosa::op::cast, {"p"}, {"i"});
  b.output("i");
  refmodel_case c{"float_ops", "close:0", armlower::serialize::format::tosa_1_0, b.g, {}};
  auto x = random_reals(rng, 24, 4.0f);
  x[0] = 0.5f;  // ties for float → int
  x[1] = 1000.0f;
  c.inputs.push_back(run::from_reals(id::fp32, {3, 8}, x));
  return c;
}

/// CAST_TO_BLOCK_SCALED then CAST_FROM_BLOCK_SCALED for every MX element type (1.1 draft).
inline refmodel_case case_mx_casts() {
  std::mt19937_64 rng(102);
  builder b;
  b.input("x", id::fp32, {2, 3, 64});
  for (id t : {id::fp8e4m3, id::fp8e5m2, id::fp6e2m3, id::fp6e3m2, id::fp4e2m1, id::mxint8}) {
    const std::string n(armlower::dtype::traits(t).short_name);
    b.declare(n, t, {2, 3, 64});
    b.declare(n + "_s", id::fp8ue8m0, {2, 3, 2});
    b.op(tosa::op::cast_to_block_scaled, {"x"}, {n, n + "_s"}, graph::block_scaled_attr{32});
    b.declare(n + "_32", id::fp32, {2, 3, 64});
    b.op(tosa::op::cast_from_block_scaled, {n, n + "_s"}, {n + "_32"}, graph::block_scaled_attr{32});
    b.output(n + "_32");
  }
  refmodel_case c{"mx_casts", "close:0", armlower::serialize::format::tosa_1_1, b.g, {}};
  auto x = random_reals(rng, 2 * 3 * 64, 1.0f);
  for (std::size_t i = 0; i < 32; ++i) x[i] *= 1000.0f;        // a wide block
  for (std::size_t i = 32; i < 64; ++i) x[i] = 0.0f;           // a zero block
  for (std::size_t i = 64; i < 96; ++i) x[i] *= 1e-30f;        // a tiny block
  c.inputs.push_back(run::from_reals(id::fp32, {2, 3, 64}, x));
  return c;
}

/// Graphs the interpreter refuses, to check that the reference model does not accept them either.
inline std::vector<refmodel_case> error_cases() {
  std::vector<refmodel_case> v;
  {  // MUL INT8 with a non-zero shift: REQUIRE (the reference model ignores the shift)
    builder b;
    b.input("a", id::i8, {4});
    b.input("b", id::i8, {4});
    b.ints("sh", id::i8, {1}, {2});
    b.declare("y", id::i32, {4});
    b.op(tosa::op::mul, {"a", "b", "sh"}, {"y"});
    b.output("y");
    v.push_back({"err_mul_shift_i8", "error", armlower::serialize::format::tosa_1_0, b.g,
                 {run::from_ints(id::i8, {4}, {1, 2, 3, 4}), run::from_ints(id::i8, {4}, {1, 2, 3, 4})}});
  }
  {  // RESHAPE to a different element count: ERROR_IF
    builder b;
    b.input("a", id::i8, {2, 3});
    b.shape_const("s", {7});
    b.declare("y", id::i8, {7});
    b.op(tosa::op::reshape, {"a", "s"}, {"y"});
    b.output("y");
    v.push_back({"err_reshape_size", "error", armlower::serialize::format::tosa_1_0, b.g, {run::zeros(id::i8, {2, 3})}});
  }
  {  // TRANSPOSE with a repeated perm: ERROR_IF
    builder b;
    b.input("a", id::i16, {2, 3});
    b.declare("y", id::i16, {2, 2});
    b.op(tosa::op::transpose, {"a"}, {"y"}, graph::transpose_attr{{0, 0}});
    b.output("y");
    v.push_back({"err_transpose_perms", "error", armlower::serialize::format::tosa_1_0, b.g, {run::zeros(id::i16, {2, 3})}});
  }
  {  // CAST_TO_BLOCK_SCALED with a last dim that is not a multiple of 32: ERROR_IF
    builder b;
    b.input("a", id::fp32, {2, 48});
    b.declare("d", id::fp8e4m3, {2, 48});
    b.declare("s", id::fp8ue8m0, {2, 1});
    b.op(tosa::op::cast_to_block_scaled, {"a"}, {"d", "s"}, graph::block_scaled_attr{32});
    b.declare("y", id::fp32, {2, 48});
    b.op(tosa::op::cast_from_block_scaled, {"d", "s"}, {"y"}, graph::block_scaled_attr{32});
    b.output("y");
    v.push_back({"err_mx_block_dim", "error", armlower::serialize::format::tosa_1_1, b.g, {run::zeros(id::fp32, {2, 48})}});
  }
  {  // ADD INT32 overflow: REQUIRE
    builder b;
    b.input("a", id::i32, {2});
    b.ints("k", id::i32, {2}, {2147483647, 1});
    b.declare("y", id::i32, {2});
    b.op(tosa::op::add, {"a", "k"}, {"y"});
    b.output("y");
    v.push_back({"err_add_overflow", "error", armlower::serialize::format::tosa_1_0, b.g,
                 {run::from_ints(id::i32, {2}, {1, 1})}});
  }
  {  // CLAMP with max < min: ERROR_IF
    builder b;
    b.input("a", id::i8, {3});
    b.declare("y", id::i8, {3});
    b.op(tosa::op::clamp, {"a"}, {"y"}, graph::clamp_attr{5, -5, graph::nan_mode::propagate});
    b.output("y");
    v.push_back({"err_clamp_bounds", "error", armlower::serialize::format::tosa_1_0, b.g,
                 {run::from_ints(id::i8, {3}, {1, 2, 3})}});
  }
  return v;
}

inline std::vector<refmodel_case> refmodel_cases() {
  std::vector<refmodel_case> v{case_layout_int(), case_float_ops(), case_mx_casts()};
  for (auto& c : error_cases()) v.push_back(std::move(c));
  return v;
}

}  // namespace run_test
