// The graphs the interpreter is compared on with the TOSA reference model (refmodel_compare.py).
#pragma once

#include "run_test_util.hpp"

#include <armlower/mx/element.hpp>
#include <armlower/serialize/format.hpp>

#include <cmath>

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

/// Per-channel (or per-tensor) RESCALE constants: multiplier in [2^30, 2^31) (scale32) or
/// [2^14, 2^15) (16-bit), shift in [lo, hi].
inline void rescale_consts(builder& b, std::mt19937_64& rng, const std::string& p, std::int32_t nc, bool scale32,
                           std::int64_t lo, std::int64_t hi) {
  b.ints(p + "_m", scale32 ? id::i32 : id::i16, {nc},
         random_ints(rng, static_cast<std::size_t>(nc), scale32 ? (1LL << 30) : (1 << 14), scale32 ? (1LL << 31) - 1 : (1 << 15) - 1));
  b.ints(p + "_s", id::i8, {nc}, random_ints(rng, static_cast<std::size_t>(nc), lo, hi));
}

/// The int8 TOSA linear (ExecuTorch's decomposition): RESHAPE → CONV2D 1×1 (i8×i8 → i32, input
/// zero point, bias) → RESCALE (per-channel, scale32, SINGLE_ROUND) → CLAMP (ReLU) → RESHAPE.
inline refmodel_case case_int8_linear() {
  std::mt19937_64 rng(200);
  const std::int32_t ci = 48, co = 8;
  builder b;
  b.input("x", id::i8, {2, 5, ci});
  b.shape_const("s_in", {10, 1, 1, ci});
  b.declare("x4", id::i8, {10, 1, 1, ci});
  b.op(tosa::op::reshape, {"x", "s_in"}, {"x4"});
  b.ints("w", id::i8, {co, 1, 1, ci}, random_ints(rng, co * ci, -127, 127));
  b.ints("bias", id::i32, {co}, random_ints(rng, co, -20000, 20000));
  b.ints("izp", id::i8, {1}, {-3});
  b.ints("wzp", id::i8, {1}, {0});
  b.declare("acc", id::i32, {10, 1, 1, co});
  b.op(tosa::op::conv2d, {"x4", "w", "bias", "izp", "wzp"}, {"acc"}, graph::conv2d_attr{});
  rescale_consts(b, rng, "rs", co, true, 38, 41);
  b.ints("rs_izp", id::i32, {1}, {0});
  b.ints("rs_ozp", id::i8, {1}, {5});
  b.declare("q", id::i8, {10, 1, 1, co});
  b.op(tosa::op::rescale, {"acc", "rs_m", "rs_s", "rs_izp", "rs_ozp"}, {"q"},
       graph::rescale_attr{true, tosa::rounding_mode::single_round, true, false, false});
  b.declare("relu", id::i8, {10, 1, 1, co});
  b.op(tosa::op::clamp, {"q"}, {"relu"}, graph::clamp_attr{5, 127, graph::nan_mode::propagate});
  b.shape_const("s_out", {2, 5, co});
  b.declare("y", id::i8, {2, 5, co});
  b.op(tosa::op::reshape, {"relu", "s_out"}, {"y"});
  b.output("y");
  b.output("acc");
  refmodel_case c{"int8_linear", "exact", armlower::serialize::format::tosa_1_0, b.g, {}};
  c.inputs.push_back(run::from_ints(id::i8, {2, 5, ci}, random_ints(rng, 10 * ci, -128, 127)));
  return c;
}

/// The a16w8 TOSA linear: RESHAPE → CONV2D 1×1 (i16×i8 → INT48, INT48 bias, acc INT48) →
/// RESCALE INT48 → INT16 with 16-bit multipliers (scale32 = false), per channel or per tensor.
inline refmodel_case case_a16w8_linear(bool per_channel) {
  std::mt19937_64 rng(per_channel ? 300 : 301);
  const std::int32_t ci = 64, co = 16, batch = 4;
  builder b;
  b.input("x", id::i16, {batch, ci});
  b.shape_const("s_in", {batch, 1, 1, ci});
  b.declare("x4", id::i16, {batch, 1, 1, ci});
  b.op(tosa::op::reshape, {"x", "s_in"}, {"x4"});
  b.ints("w", id::i8, {co, 1, 1, ci}, random_ints(rng, co * ci, -127, 127));
  b.ints("bias", id::i48, {co}, random_ints(rng, co, -(1LL << 40), 1LL << 40));
  b.ints("izp", id::i16, {1}, {0});
  b.ints("wzp", id::i8, {1}, {0});
  b.declare("acc", id::i48, {batch, 1, 1, co});
  b.op(tosa::op::conv2d, {"x4", "w", "bias", "izp", "wzp"}, {"acc"},
       graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i48, false});
  const std::int32_t nc = per_channel ? co : 1;
  rescale_consts(b, rng, "rs", nc, false, 40, 44);
  b.ints("rs_izp", id::i48, {1}, {0});
  b.ints("rs_ozp", id::i16, {1}, {0});
  b.declare("q", id::i16, {batch, 1, 1, co});
  b.op(tosa::op::rescale, {"acc", "rs_m", "rs_s", "rs_izp", "rs_ozp"}, {"q"},
       graph::rescale_attr{false, tosa::rounding_mode::single_round, per_channel, false, false});
  b.shape_const("s_out", {batch, co});
  b.declare("y", id::i16, {batch, co});
  b.op(tosa::op::reshape, {"q", "s_out"}, {"y"});
  b.output("y");  // (INT48 graph outputs are not returned by tosa_reference_model.run: compare after RESCALE)
  refmodel_case c{per_channel ? "a16w8_linear_per_channel" : "a16w8_linear_per_tensor", "exact",
                  armlower::serialize::format::tosa_1_0, b.g, {}};
  c.inputs.push_back(run::from_ints(id::i16, {batch, ci}, random_ints(rng, batch * ci, -32768, 32767)));
  return c;
}

/// A general CONV2D (3×3, stride 2, pads, dilation, zero points, broadcast bias) followed by a
/// DOUBLE_ROUND RESCALE, and MATMULs (i8 with zero points, i16 → INT48) with RESCALEs.
inline refmodel_case case_conv_matmul() {
  std::mt19937_64 rng(400);
  builder b;
  b.input("x", id::i8, {2, 10, 7, 3});
  b.ints("w", id::i8, {4, 3, 3, 3}, random_ints(rng, 4 * 27, -128, 127));
  b.ints("bias", id::i32, {1}, {1234});
  b.ints("izp", id::i8, {1}, {17});
  b.ints("wzp", id::i8, {1}, {-2});
  b.declare("acc", id::i32, {2, 4, 4, 4});
  b.op(tosa::op::conv2d, {"x", "w", "bias", "izp", "wzp"}, {"acc"},
       graph::conv2d_attr{{1, 0, 1, 1}, {2, 2}, {2, 1}, id::i32, false});
  rescale_consts(b, rng, "rs", 1, true, 36, 36);
  b.ints("rs_izp", id::i32, {1}, {0});
  b.ints("rs_ozp", id::i8, {1}, {-10});
  b.declare("q", id::i8, {2, 4, 4, 4});
  b.op(tosa::op::rescale, {"acc", "rs_m", "rs_s", "rs_izp", "rs_ozp"}, {"q"},
       graph::rescale_attr{true, tosa::rounding_mode::double_round, false, false, false});
  b.output("q");
  b.output("acc");
  b.input("a", id::i8, {2, 3, 20});
  b.ints("bm", id::i8, {2, 20, 5}, random_ints(rng, 200, -128, 127));
  b.ints("azp", id::i8, {1}, {-7});
  b.ints("bzp", id::i8, {1}, {4});
  b.declare("mm", id::i32, {2, 3, 5});
  b.op(tosa::op::matmul, {"a", "bm", "azp", "bzp"}, {"mm"});
  b.output("mm");
  b.input("a16", id::i16, {1, 4, 33});
  b.ints("b16", id::i16, {1, 33, 6}, random_ints(rng, 33 * 6, -32768, 32767));
  b.ints("zp16", id::i16, {1}, {0});
  b.declare("mm48", id::i48, {1, 4, 6});
  b.op(tosa::op::matmul, {"a16", "b16", "zp16", "zp16"}, {"mm48"});
  rescale_consts(b, rng, "r48", 6, false, 44, 46);
  b.ints("r48_izp", id::i48, {1}, {0});
  b.ints("r48_ozp", id::i16, {1}, {0});
  b.declare("mm16", id::i16, {1, 4, 6});
  b.op(tosa::op::rescale, {"mm48", "r48_m", "r48_s", "r48_izp", "r48_ozp"}, {"mm16"},
       graph::rescale_attr{false, tosa::rounding_mode::single_round, true, false, false});
  b.output("mm16");
  refmodel_case c{"conv_matmul", "exact", armlower::serialize::format::tosa_1_0, b.g, {}};
  c.inputs.push_back(run::from_ints(id::i8, {2, 10, 7, 3}, random_ints(rng, 2 * 10 * 7 * 3, -128, 127)));
  c.inputs.push_back(run::from_ints(id::i8, {2, 3, 20}, random_ints(rng, 120, -128, 127)));
  c.inputs.push_back(run::from_ints(id::i16, {1, 4, 33}, random_ints(rng, 132, -32768, 32767)));
  return c;
}

/// RESCALE with unsigned input (u8 → i8, zero point 128) and unsigned output (i16 → u16,
/// zero point 32768).
inline refmodel_case case_rescale_unsigned() {
  std::mt19937_64 rng(500);
  builder b;
  b.input("x", id::i8, {3, 16});
  rescale_consts(b, rng, "u", 1, true, 30, 30);
  b.ints("u_izp", id::i8, {1}, {-128});  // unsigned 128 as its INT8 bit pattern
  b.ints("u_ozp", id::i8, {1}, {3});
  b.declare("y", id::i8, {3, 16});
  b.op(tosa::op::rescale, {"x", "u_m", "u_s", "u_izp", "u_ozp"}, {"y"},
       graph::rescale_attr{true, tosa::rounding_mode::single_round, false, true, false});
  b.output("y");
  b.input("h", id::i16, {2, 8});
  rescale_consts(b, rng, "v", 8, true, 31, 33);
  b.ints("v_izp", id::i16, {1}, {0});
  b.ints("v_ozp", id::i16, {1}, {-32768});  // unsigned 32768
  b.declare("z", id::i16, {2, 8});
  b.op(tosa::op::rescale, {"h", "v_m", "v_s", "v_izp", "v_ozp"}, {"z"},
       graph::rescale_attr{true, tosa::rounding_mode::single_round, true, false, true});
  b.output("z");
  refmodel_case c{"rescale_unsigned", "exact", armlower::serialize::format::tosa_1_0, b.g, {}};
  c.inputs.push_back(run::from_ints(id::i8, {3, 16}, random_ints(rng, 48, -128, 127)));
  c.inputs.push_back(run::from_ints(id::i16, {2, 8}, random_ints(rng, 16, -32768, 32767)));
  return c;
}

/// FP32 CONV2D and MATMUL (fp32 accumulation; compared within a relative tolerance).
inline refmodel_case case_float_conv_matmul() {
  std::mt19937_64 rng(600);
  builder b;
  b.input("x", id::fp32, {1, 5, 5, 8});
  b.constant("w", run::from_reals(id::fp32, {6, 3, 3, 8}, random_reals(rng, 6 * 72, 0.3f)));
  b.constant("bias", run::from_reals(id::fp32, {6}, random_reals(rng, 6, 1.0f)));
  b.constant("zp", run::from_reals(id::fp32, {1}, {0.0f}));
  b.declare("y", id::fp32, {1, 5, 5, 6});
  b.op(tosa::op::conv2d, {"x", "w", "bias", "zp", "zp"}, {"y"},
       graph::conv2d_attr{{1, 1, 1, 1}, {1, 1}, {1, 1}, id::fp32, false});
  b.output("y");
  b.input("a", id::fp32, {2, 4, 40});
  b.constant("bm", run::from_reals(id::fp32, {2, 40, 3}, random_reals(rng, 240, 1.0f)));
  b.declare("mm", id::fp32, {2, 4, 3});
  b.op(tosa::op::matmul, {"a", "bm", "zp", "zp"}, {"mm"});
  b.output("mm");
  refmodel_case c{"float_conv_matmul", "close:1e-5", armlower::serialize::format::tosa_1_0, b.g, {}};
  c.inputs.push_back(run::from_reals(id::fp32, {1, 5, 5, 8}, random_reals(rng, 200, 1.0f)));
  c.inputs.push_back(run::from_reals(id::fp32, {2, 4, 40}, random_reals(rng, 320, 1.0f)));
  return c;
}

/// Random finite codes of MX element type `t`.
inline std::vector<std::uint8_t> random_mx_codes(std::mt19937_64& rng, id t, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  const unsigned count = run::code_count(t);
  for (auto& c : v) {
    do c = static_cast<std::uint8_t>(rng() % count);
    while (!std::isfinite(armlower::mx::decode(t, c)));
  }
  return v;
}

/// The MXFP linear of ExecuTorch's MXFP lowering (1.1 draft): RESHAPE [1, B, Cin] →
/// CAST_TO_BLOCK_SCALED → MATMUL_T_BLOCK_SCALED with pre-quantized weights [1, Cout, Cin] and
/// their E8M0 scales → RESHAPE → ADD bias.
inline refmodel_case case_mx_linear(id t) {
  std::mt19937_64 rng(700 + static_cast<unsigned>(t));
  const std::int32_t ci = 96, co = 10;
  builder b;
  b.input("x", id::fp32, {2, 3, ci});
  b.shape_const("s_in", {1, 6, ci});
  b.declare("x3", id::fp32, {1, 6, ci});
  b.op(tosa::op::reshape, {"x", "s_in"}, {"x3"});
  b.declare("xd", t, {1, 6, ci});
  b.declare("xs", id::fp8ue8m0, {1, 6, ci / 32});
  b.op(tosa::op::cast_to_block_scaled, {"x3"}, {"xd", "xs"}, graph::block_scaled_attr{32});
  b.constant("wd", run::from_codes(t, {1, co, ci}, random_mx_codes(rng, t, co * ci)));
  std::vector<std::uint8_t> ws(co * ci / 32);
  for (auto& s : ws) s = static_cast<std::uint8_t>(120 + rng() % 6);
  b.constant("ws", run::from_codes(id::fp8ue8m0, {1, co, ci / 32}, ws));
  b.declare("mm", id::fp32, {1, 6, co});
  b.op(tosa::op::matmul_t_block_scaled, {"xd", "xs", "wd", "ws"}, {"mm"}, graph::block_scaled_attr{32});
  b.shape_const("s_out", {2, 3, co});
  b.declare("mm3", id::fp32, {2, 3, co});
  b.op(tosa::op::reshape, {"mm", "s_out"}, {"mm3"});
  b.constant("bias", run::from_reals(id::fp32, {1, 1, co}, random_reals(rng, co, 0.1f)));
  b.declare("y", id::fp32, {2, 3, co});
  b.op(tosa::op::add, {"mm3", "bias"}, {"y"});
  b.output("y");
  refmodel_case c{"mx_linear_" + std::string(armlower::dtype::traits(t).short_name), "close:0",
                  armlower::serialize::format::tosa_1_1, b.g, {}};
  c.inputs.push_back(run::from_reals(id::fp32, {2, 3, ci}, random_reals(rng, 6 * ci, 1.0f)));
  return c;
}

/// Codes of FP8 dtype `t` for normal(0, sigma) values (RNE, saturating: finite codes only).
inline run::value random_fp8(std::mt19937_64& rng, id t, std::vector<std::int32_t> shape, float sigma) {
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  std::vector<std::uint8_t> v(n);
  std::normal_distribution<float> d(0.0f, sigma);
  for (auto& c : v) c = armlower::mx::encode(t, d(rng), armlower::mx::overflow::saturate);
  return run::from_codes(t, std::move(shape), std::move(v));
}

/// FP8 CONV2D (acc_type FP16, output FP16; TOSA 1.0 rows EXT-FP8E4M3 / EXT-FP8E5M2) and FP8
/// MATMUL → FP16, all operands constant (the crash: FP8 zero points were read as
/// integers). The interpreter rounds exactly as the reference model (kernels/conv2d.hpp,
/// kernels/matmul.hpp document how), so every float case here must match bit for bit (close:0).
inline refmodel_case case_fp8_conv_matmul(id t) {
  std::mt19937_64 rng(800 + static_cast<unsigned>(t));
  builder b;
  b.constant("x", random_fp8(rng, t, {1, 5, 6, 8}, 1.0f));
  b.constant("w", random_fp8(rng, t, {4, 3, 3, 8}, 0.5f));
  b.constant("bias", run::from_reals(id::fp16, {4}, random_reals(rng, 4, 1.0f)));
  b.constant("zp", run::from_codes(t, {1}, {0}));
  b.declare("y", id::fp16, {1, 3, 6, 4});
  b.op(tosa::op::conv2d, {"x", "w", "bias", "zp", "zp"}, {"y"},
       graph::conv2d_attr{{1, 1, 1, 1}, {2, 1}, {1, 1}, id::fp16, false});
  b.output("y");
  b.constant("a", random_fp8(rng, t, {2, 3, 40}, 1.0f));
  b.constant("bm", random_fp8(rng, t, {2, 40, 5}, 1.0f));
  b.declare("mm", id::fp16, {2, 3, 5});
  b.op(tosa::op::matmul, {"a", "bm", "zp", "zp"}, {"mm"});
  b.output("mm");
  return {"fp8_conv_matmul_" + std::string(armlower::dtype::traits(t).short_name), "close:0",
          armlower::serialize::format::tosa_1_0, b.g, {}};
}

/// The TOSA 1.1 FP8 rows: CONV2D FP8 → FP32 (acc FP32), MATMUL FP8 → FP32 and the mixed
/// FP8E4M3 × FP8E5M2 / FP8E5M2 × FP8E4M3 MATMULs → FP16 and FP32.
inline refmodel_case case_fp8_rows_1_1() {
  std::mt19937_64 rng(850);
  builder b;
  const id e4 = id::fp8e4m3, e5 = id::fp8e5m2;
  b.constant("zp4", run::from_codes(e4, {1}, {0}));
  b.constant("zp5", run::from_codes(e5, {1}, {0}));
  b.constant("x4", random_fp8(rng, e4, {1, 4, 4, 16}, 1.0f));
  b.constant("w4", random_fp8(rng, e4, {3, 2, 2, 16}, 1.0f));
  b.constant("bias32", run::from_reals(id::fp32, {1}, {0.25f}));
  b.declare("y32", id::fp32, {1, 3, 3, 3});
  b.op(tosa::op::conv2d, {"x4", "w4", "bias32", "zp4", "zp4"}, {"y32"},
       graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::fp32, false});
  b.output("y32");
  b.constant("x5", random_fp8(rng, e5, {1, 4, 4, 16}, 1.0f));
  b.constant("w5", random_fp8(rng, e5, {3, 2, 2, 16}, 1.0f));
  b.declare("y32_5", id::fp32, {1, 3, 3, 3});
  b.op(tosa::op::conv2d, {"x5", "w5", "bias32", "zp5", "zp5"}, {"y32_5"},
       graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::fp32, false});
  b.output("y32_5");
  b.constant("a4", random_fp8(rng, e4, {1, 4, 24}, 1.0f));
  b.constant("b4", random_fp8(rng, e4, {1, 24, 3}, 1.0f));
  b.constant("a5", random_fp8(rng, e5, {1, 4, 24}, 1.0f));
  b.constant("b5", random_fp8(rng, e5, {1, 24, 3}, 1.0f));
  b.declare("m44", id::fp32, {1, 4, 3});
  b.op(tosa::op::matmul, {"a4", "b4", "zp4", "zp4"}, {"m44"});
  b.output("m44");
  b.declare("m55", id::fp32, {1, 4, 3});
  b.op(tosa::op::matmul, {"a5", "b5", "zp5", "zp5"}, {"m55"});
  b.output("m55");
  for (id o : {id::fp16, id::fp32}) {
    const std::string s(armlower::dtype::traits(o).short_name);
    b.declare("m45_" + s, o, {1, 4, 3});
    b.op(tosa::op::matmul, {"a4", "b5", "zp4", "zp5"}, {"m45_" + s});
    b.output("m45_" + s);
    b.declare("m54_" + s, o, {1, 4, 3});
    b.op(tosa::op::matmul, {"a5", "b4", "zp5", "zp4"}, {"m54_" + s});
    b.output("m54_" + s);
  }
  return {"fp8_rows_1_1", "close:0", armlower::serialize::format::tosa_1_1, b.g, {}};
}

/// FP16 CONV2D with acc_type FP16 and FP32 (output FP16) and FP16 MATMUL → FP16 / FP32 on a
/// graph input, and BF16 CONV2D (acc FP32, output BF16, CAST to FP32 for the .npy) and MATMUL
/// BF16 → FP32 on constants (PRO-FP and EXT-BF16 rows of TOSA 1.0).
inline refmodel_case case_fp16_bf16_conv_matmul() {
  std::mt19937_64 rng(900);
  builder b;
  b.input("x", id::fp16, {1, 6, 5, 12});
  b.constant("w", run::from_reals(id::fp16, {5, 3, 3, 12}, random_reals(rng, 5 * 108, 0.3f)));
  b.constant("bias", run::from_reals(id::fp16, {5}, random_reals(rng, 5, 1.0f)));
  b.constant("zp", run::from_reals(id::fp16, {1}, {0.0f}));
  for (id acc : {id::fp16, id::fp32}) {
    const std::string n = "y_acc_" + std::string(armlower::dtype::traits(acc).short_name);
    b.declare(n, id::fp16, {1, 6, 5, 5});
    b.op(tosa::op::conv2d, {"x", "w", "bias", "zp", "zp"}, {n},
         graph::conv2d_attr{{1, 1, 1, 1}, {1, 1}, {1, 1}, acc, false});
    b.output(n);
  }
  b.input("a", id::fp16, {2, 4, 30});
  b.constant("bm", run::from_reals(id::fp16, {2, 30, 6}, random_reals(rng, 360, 1.0f)));
  for (id o : {id::fp16, id::fp32}) {
    const std::string n = "mm_" + std::string(armlower::dtype::traits(o).short_name);
    b.declare(n, o, {2, 4, 6});
    b.op(tosa::op::matmul, {"a", "bm", "zp", "zp"}, {n});
    b.output(n);
  }
  b.constant("xb", run::from_reals(id::bf16, {2, 4, 4, 6}, random_reals(rng, 192, 1.0f)));
  b.constant("wb", run::from_reals(id::bf16, {3, 2, 2, 6}, random_reals(rng, 72, 0.5f)));
  b.constant("biasb", run::from_reals(id::bf16, {3}, random_reals(rng, 3, 1.0f)));
  b.constant("zpb", run::from_reals(id::bf16, {1}, {0.0f}));
  b.declare("yb", id::bf16, {2, 2, 2, 3});
  b.op(tosa::op::conv2d, {"xb", "wb", "biasb", "zpb", "zpb"}, {"yb"},
       graph::conv2d_attr{{0, 0, 0, 0}, {2, 2}, {1, 1}, id::fp32, false});
  b.declare("yb32", id::fp32, {2, 2, 2, 3});
  b.op(tosa::op::cast, {"yb"}, {"yb32"});
  b.output("yb32");
  b.constant("ab", run::from_reals(id::bf16, {1, 3, 50}, random_reals(rng, 150, 1.0f)));
  b.constant("bb", run::from_reals(id::bf16, {1, 50, 4}, random_reals(rng, 200, 1.0f)));
  b.declare("mmb", id::fp32, {1, 3, 4});
  b.op(tosa::op::matmul, {"ab", "bb", "zpb", "zpb"}, {"mmb"});
  b.output("mmb");
  refmodel_case c{"fp16_bf16_conv_matmul", "close:0", armlower::serialize::format::tosa_1_0, b.g, {}};
  c.inputs.push_back(run::from_reals(id::fp16, {1, 6, 5, 12}, random_reals(rng, 360, 1.0f)));
  c.inputs.push_back(run::from_reals(id::fp16, {2, 4, 30}, random_reals(rng, 240, 1.0f)));
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
  std::vector<refmodel_case> v{case_layout_int(),         case_float_ops(),          case_mx_casts(),
                               case_int8_linear(),        case_a16w8_linear(true),   case_a16w8_linear(false),
                               case_conv_matmul(),        case_rescale_unsigned(),   case_float_conv_matmul()};
  for (id t : {id::fp8e4m3, id::fp8e5m2, id::fp6e2m3, id::fp6e3m2, id::fp4e2m1, id::mxint8}) v.push_back(case_mx_linear(t));
  for (id t : {id::fp8e4m3, id::fp8e5m2}) v.push_back(case_fp8_conv_matmul(t));
  v.push_back(case_fp8_rows_1_1());
  v.push_back(case_fp16_bf16_conv_matmul());
  for (auto& c : error_cases()) v.push_back(std::move(c));
  return v;
}

}  // namespace run_test
