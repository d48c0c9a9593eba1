// Sample TOSA graphs shared by the serializer tests, the oracle-file generator and the fuzz
// seed corpus. Each is what a lowering produces for one linear layer (tosa.md §3, §4.5;
// executorch-arm.md: RESHAPE → CONV2D 1×1 → RESCALE for int8 and a16w8, MATMUL, and the MXFP
// CAST_TO_BLOCK_SCALED → MATMUL_T_BLOCK_SCALED chain), plus one graph touching every other op.
#pragma once

#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/serialize/format.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sample {

using namespace armlower;
using graph::tensor;

inline tensor act(std::string n, dtype::id t, std::vector<std::int32_t> shape) {
  return tensor{std::move(n), t, std::move(shape), false, {}, std::nullopt};
}
inline tensor ints(std::string n, dtype::id t, std::vector<std::int32_t> shape, std::vector<std::int64_t> v) {
  return graph::make_int_constant(std::move(n), t, std::move(shape), v);
}
inline tensor codes(std::string n, dtype::id t, std::vector<std::int32_t> shape, std::vector<std::uint8_t> c) {
  return tensor{std::move(n), t, std::move(shape), true, graph::encode_codes(t, c), std::nullopt};
}
inline std::vector<std::int64_t> random_ints(std::size_t n, std::int64_t lo, std::int64_t hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}
inline graph::operation op(tosa::op o, std::vector<std::string> in, std::vector<std::string> out,
                           graph::attribute a = {}) {
  return graph::operation{o, std::move(in), std::move(out), std::move(a)};
}

/// int8 linear [2,8] → [2,4], per-channel requantization (TOSA-1.0+INT).
inline graph::graph int8_linear() {
  graph::graph g;
  g.add(act("x", dtype::id::i8, {2, 8}));
  g.add(ints("x_shape", dtype::id::shape, {4}, {2, 1, 1, 8}));
  g.add(act("x4", dtype::id::i8, {2, 1, 1, 8}));
  g.add(ints("w", dtype::id::i8, {4, 1, 1, 8}, random_ints(32, -127, 127, 1)));
  g.add(ints("b", dtype::id::i32, {4}, {100, -2000, 0, 77777}));
  g.add(ints("x_zp", dtype::id::i8, {1}, {-3}));
  g.add(ints("w_zp", dtype::id::i8, {1}, {0}));
  g.add(act("acc", dtype::id::i32, {2, 1, 1, 4}));
  g.add(ints("mult", dtype::id::i32, {4}, {1073741824, 1518500250, 2147483647, 1288490189}));
  g.add(ints("shift", dtype::id::i8, {4}, {38, 39, 40, 37}));
  g.add(ints("acc_zp", dtype::id::i32, {1}, {0}));
  g.add(ints("y_zp", dtype::id::i8, {1}, {5}));
  g.add(act("y4", dtype::id::i8, {2, 1, 1, 4}));
  g.add(ints("y_shape", dtype::id::shape, {2}, {2, 4}));
  g.add(act("y", dtype::id::i8, {2, 4}));
  g.operators.push_back(op(tosa::op::reshape, {"x", "x_shape"}, {"x4"}));
  g.operators.push_back(op(tosa::op::conv2d, {"x4", "w", "b", "x_zp", "w_zp"}, {"acc"}, graph::conv2d_attr{}));
  graph::rescale_attr r;
  r.per_channel = true;
  g.operators.push_back(op(tosa::op::rescale, {"acc", "mult", "shift", "acc_zp", "y_zp"}, {"y4"}, r));
  g.operators.push_back(op(tosa::op::reshape, {"y4", "y_shape"}, {"y"}));
  g.inputs = {"x"};
  g.outputs = {"y"};
  return g;
}

/// a16w8 linear [1,1,1,16] → [1,1,1,3]: i16 × i8 → INT48 (bias INT48, acc INT48), RESCALE INT48 →
/// INT16 with 16-bit multipliers (scale32 = false), per tensor or per channel (TOSA-1.0+INT+int16).
inline graph::graph a16w8_linear(bool per_channel = false) {
  graph::graph g;
  g.add(act("x", dtype::id::i16, {1, 1, 1, 16}));
  g.add(ints("w", dtype::id::i8, {3, 1, 1, 16}, random_ints(48, -127, 127, 2)));
  g.add(ints("b", dtype::id::i48, {3}, {(std::int64_t{1} << 40) + 5, -(std::int64_t{1} << 36), -12345}));
  g.add(ints("x_zp", dtype::id::i16, {1}, {0}));
  g.add(ints("w_zp", dtype::id::i8, {1}, {0}));
  g.add(act("acc", dtype::id::i48, {1, 1, 1, 3}));
  if (per_channel) {
    g.add(ints("mult", dtype::id::i16, {3}, {24576, 16384, 32767}));
    g.add(ints("shift", dtype::id::i8, {3}, {40, 38, 41}));
  } else {
    g.add(ints("mult", dtype::id::i16, {1}, {24576}));
    g.add(ints("shift", dtype::id::i8, {1}, {40}));
  }
  g.add(ints("acc_zp", dtype::id::i48, {1}, {0}));
  g.add(ints("y_zp", dtype::id::i16, {1}, {0}));
  g.add(act("y", dtype::id::i16, {1, 1, 1, 3}));
  graph::conv2d_attr c;
  c.acc_type = dtype::id::i48;
  g.operators.push_back(op(tosa::op::conv2d, {"x", "w", "b", "x_zp", "w_zp"}, {"acc"}, c));
  graph::rescale_attr r;
  r.scale32 = false;
  r.per_channel = per_channel;
  g.operators.push_back(op(tosa::op::rescale, {"acc", "mult", "shift", "acc_zp", "y_zp"}, {"y"}, r));
  g.inputs = {"x"};
  g.outputs = {"y"};
  return g;
}

/// int8 × INT4 CONV2D 1×1 (EXT-INT4): x [1,1,1,5] i8, weights [3,1,1,5] i4 (15 values, an odd
/// count: the last byte holds one nibble), bias i32 → [1,1,1,3] i32.
inline graph::graph int4_conv2d() {
  graph::graph g;
  g.add(act("x", dtype::id::i8, {1, 1, 1, 5}));
  g.add(ints("w", dtype::id::i4, {3, 1, 1, 5}, random_ints(15, -7, 7, 4)));
  g.add(ints("b", dtype::id::i32, {3}, {10, -20, 30}));
  g.add(ints("x_zp", dtype::id::i8, {1}, {0}));
  g.add(ints("w_zp", dtype::id::i4, {1}, {0}));
  g.add(act("y", dtype::id::i32, {1, 1, 1, 3}));
  g.operators.push_back(op(tosa::op::conv2d, {"x", "w", "b", "x_zp", "w_zp"}, {"y"}, graph::conv2d_attr{}));
  g.inputs = {"x"};
  g.outputs = {"y"};
  return g;
}

/// int8 MATMUL [1,2,5] × [1,5,3] → [1,2,3] INT32 with an input zero point.
inline graph::graph int8_matmul() {
  graph::graph g;
  g.add(act("a", dtype::id::i8, {1, 2, 5}));
  g.add(ints("b", dtype::id::i8, {1, 5, 3}, random_ints(15, -128, 127, 3)));
  g.add(ints("a_zp", dtype::id::i8, {1}, {7}));
  g.add(ints("b_zp", dtype::id::i8, {1}, {0}));
  g.add(act("y", dtype::id::i32, {1, 2, 3}));
  g.operators.push_back(op(tosa::op::matmul, {"a", "b", "a_zp", "b_zp"}, {"y"}));
  g.inputs = {"a"};
  g.outputs = {"y"};
  return g;
}

/// Number of value bits of an MX element dtype's code (8, 6 or 4).
inline int code_bits(dtype::id t) { return t == dtype::id::fp4e2m1 ? 4 : (t == dtype::id::fp6e2m3 || t == dtype::id::fp6e3m2) ? 6 : 8; }

/// MXFP linear core (TOSA-1.1+FP+mxfp): x [1,2,64] fp32 → CAST_TO_BLOCK_SCALED → (data
/// [1,2,64] elem, scale [1,2,2] FP8UE8M0) → MATMUL_T_BLOCK_SCALED with constant weights
/// [1,3,64] elem + scales [1,3,2] → [1,2,3] fp32. Weight codes are random finite codes of
/// `elem` (FP8E4M3 avoids the NaN codes 0x7F/0xFF; FP8E5M2 avoids exponent 31); scales
/// 2^-3..2^3.
inline graph::graph mxfp_linear(dtype::id elem) {
  graph::graph g;
  const int bits = code_bits(elem);
  std::mt19937 gen(static_cast<unsigned>(elem) + 10);
  std::vector<std::uint8_t> wc(3 * 64);
  for (auto& c : wc) {
    for (;;) {
      c = static_cast<std::uint8_t>(gen() & ((1u << bits) - 1));
      if (elem == dtype::id::fp8e4m3 && (c & 0x7F) == 0x7F) continue;
      if (elem == dtype::id::fp8e5m2 && (c & 0x7C) == 0x7C) continue;
      break;
    }
  }
  std::vector<std::uint8_t> sc(3 * 2);
  for (auto& s : sc) s = static_cast<std::uint8_t>(124 + gen() % 7);
  g.add(act("x", dtype::id::fp32, {1, 2, 64}));
  g.add(act("xq", elem, {1, 2, 64}));
  g.add(act("xs", dtype::id::fp8ue8m0, {1, 2, 2}));
  g.add(codes("w", elem, {1, 3, 64}, wc));
  g.add(codes("ws", dtype::id::fp8ue8m0, {1, 3, 2}, sc));
  g.add(act("y", dtype::id::fp32, {1, 2, 3}));
  g.operators.push_back(op(tosa::op::cast_to_block_scaled, {"x"}, {"xq", "xs"}, graph::block_scaled_attr{}));
  g.operators.push_back(op(tosa::op::matmul_t_block_scaled, {"xq", "xs", "w", "ws"}, {"y"}, graph::block_scaled_attr{}));
  g.inputs = {"x"};
  g.outputs = {"y"};
  return g;
}

/// fp32 graph with the remaining ops (TOSA-1.1 for CAST_FROM_BLOCK_SCALED): x [2,4] fp32 →
/// TRANSPOSE [4,2] → ADD bias → MUL by c (shift 0) → CLAMP [-1.5, 2.25] → CAST to fp16 and in
/// parallel a CAST_FROM_BLOCK_SCALED of constant FP4 data. `with_mx` false gives a 1.0 graph.
inline graph::graph fp32_misc(bool with_mx) {
  graph::graph g;
  g.add(act("x", dtype::id::fp32, {2, 4}));
  g.add(act("xt", dtype::id::fp32, {4, 2}));
  const std::vector<float> bias{0.5f, -0.25f};
  g.add(graph::make_f32_constant("bias", {1, 2}, bias));
  g.add(act("s", dtype::id::fp32, {4, 2}));
  const std::vector<float> c{2.0f, -1.0f, 0.125f, 3.0f, 1.0f, 1.0f, -0.5f, 0.0f};
  g.add(graph::make_f32_constant("c", {4, 2}, c));
  g.add(ints("mul_shift", dtype::id::i8, {1}, {0}));
  g.add(act("p", dtype::id::fp32, {4, 2}));
  g.add(act("q", dtype::id::fp32, {4, 2}));
  g.add(act("h", dtype::id::fp16, {4, 2}));
  g.operators.push_back(op(tosa::op::transpose, {"x"}, {"xt"}, graph::transpose_attr{{1, 0}}));
  g.operators.push_back(op(tosa::op::add, {"xt", "bias"}, {"s"}));
  g.operators.push_back(op(tosa::op::mul, {"s", "c", "mul_shift"}, {"p"}));
  g.operators.push_back(op(tosa::op::clamp, {"p"}, {"q"}, graph::clamp_attr{-1.5, 2.25, graph::nan_mode::propagate}));
  g.operators.push_back(op(tosa::op::cast, {"q"}, {"h"}));
  g.inputs = {"x"};
  g.outputs = {"h"};
  if (with_mx) {
    std::vector<std::uint8_t> fc(64);
    for (std::size_t i = 0; i < fc.size(); ++i) fc[i] = static_cast<std::uint8_t>((i * 7 + 3) & 0xF);
    g.add(codes("f4", dtype::id::fp4e2m1, {2, 32}, fc));
    g.add(codes("f4s", dtype::id::fp8ue8m0, {2, 1}, {127, 125}));
    g.add(act("f", dtype::id::fp32, {2, 32}));
    g.operators.push_back(op(tosa::op::cast_from_block_scaled, {"f4", "f4s"}, {"f"}, graph::block_scaled_attr{}));
    g.outputs.push_back("f");
  }
  return g;
}

struct named {
  std::string name;
  serialize::format version;
  graph::graph g;
};

/// Every sample with the format it is written in.
inline std::vector<named> all() {
  using serialize::format;
  return {
      {"int8_conv2d_rescale", format::tosa_1_0, int8_linear()},
      {"a16w8_conv2d_rescale", format::tosa_1_0, a16w8_linear()},
      {"a16w8_per_channel", format::tosa_1_0, a16w8_linear(true)},
      {"int4_conv2d", format::tosa_1_0, int4_conv2d()},
      {"int8_matmul", format::tosa_1_0, int8_matmul()},
      {"fp32_misc_1_0", format::tosa_1_0, fp32_misc(false)},
      {"fp32_misc_1_1", format::tosa_1_1, fp32_misc(true)},
      {"mxfp8e4m3_matmul", format::tosa_1_1, mxfp_linear(dtype::id::fp8e4m3)},
      {"mxfp8e5m2_matmul", format::tosa_1_1, mxfp_linear(dtype::id::fp8e5m2)},
      {"mxfp6e2m3_matmul", format::tosa_1_1, mxfp_linear(dtype::id::fp6e2m3)},
      {"mxfp6e3m2_matmul", format::tosa_1_1, mxfp_linear(dtype::id::fp6e3m2)},
      {"mxfp4e2m1_matmul", format::tosa_1_1, mxfp_linear(dtype::id::fp4e2m1)},
      {"mxint8_matmul", format::tosa_1_1, mxfp_linear(dtype::id::mxint8)},
  };
}

}  // namespace sample
