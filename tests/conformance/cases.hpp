// Conformance cases: every scheme, input ranks 1-4, with and without bias, the input patterns of
// ExecuTorch's tests (reference/executorch-arm.md §6: zeros, ones, -ones, rand, -100*rand,
// 100*randn, the MX block cases), chains with ReLU, and a non-multiple-of-32 MX contraction.
#pragma once

#include <armlower/graph/builder.hpp>
#include <armlower/passes/options.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace conformance {

using armlower::passes::scheme;

enum class pattern { zeros, ones, neg_ones, rand, neg_100_rand, randn_100, mx_block_ones, mx_block_mixed, mx_block_pair };

inline const char* pattern_name(pattern p) {
  switch (p) {
    case pattern::zeros: return "zeros";
    case pattern::ones: return "ones";
    case pattern::neg_ones: return "negones";
    case pattern::rand: return "rand";
    case pattern::neg_100_rand: return "neg100rand";
    case pattern::randn_100: return "randn100";
    case pattern::mx_block_ones: return "mxblock_ones";
    case pattern::mx_block_mixed: return "mxblock_mixed";
    case pattern::mx_block_pair: return "mxblock_pair";
  }
  return "?";
}

struct test_case {
  std::string name;
  scheme sch = scheme::int8;
  bool per_channel = false;
  std::vector<std::int32_t> input_shape;
  std::vector<armlower::graph::mlp_layer> layers;
  std::vector<float> input;  // row-major, last dim = in_features
};

inline std::size_t rows_of(const std::vector<std::int32_t>& s) {
  std::size_t r = 1;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) r *= static_cast<std::size_t>(s[i]);
  return r;
}

inline std::vector<float> make_input(pattern p, std::size_t n, std::size_t in, std::mt19937& rng) {
  std::vector<float> x(n);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    switch (p) {
      case pattern::zeros: x[i] = 0; break;
      case pattern::ones: x[i] = 1; break;
      case pattern::neg_ones: x[i] = -1; break;
      case pattern::rand: x[i] = u(rng); break;
      case pattern::neg_100_rand: x[i] = -100.0f * u(rng); break;
      case pattern::randn_100: x[i] = 100.0f * nd(rng); break;
      case pattern::mx_block_ones: x[i] = 1; break;
      case pattern::mx_block_mixed: x[i] = (i % in) < 32 ? 1e-3f * nd(rng) : 100.0f * nd(rng); break;
      case pattern::mx_block_pair: {
        const bool second_row = (i / in) % 2 == 1;
        const bool small = ((i % in) < 32) != second_row;  // mirrored halves on odd rows
        x[i] = small ? 1e-3f * nd(rng) : 100.0f * nd(rng);
        break;
      }
    }
  }
  return x;
}

inline armlower::graph::mlp_layer random_layer(std::int32_t in, std::int32_t out, bool bias, armlower::graph::activation a,
                                               std::mt19937& rng) {
  std::normal_distribution<float> nd(0.0f, 1.0f / std::sqrt(static_cast<float>(in)));
  armlower::graph::mlp_layer l{in, out, std::vector<float>(static_cast<std::size_t>(in * out)), {}, a};
  for (auto& w : l.weight) w = nd(rng);
  if (bias) {
    l.bias.resize(static_cast<std::size_t>(out));
    for (auto& b : l.bias) b = nd(rng);
  }
  return l;
}

/// All conformance cases (deterministic).
inline std::vector<test_case> all_cases() {
  std::vector<test_case> cs;
  std::mt19937 rng(20260622);
  const pattern pats[] = {pattern::zeros, pattern::ones, pattern::neg_ones, pattern::rand, pattern::neg_100_rand,
                          pattern::randn_100};
  struct variant {
    scheme s;
    bool pc;
    const char* tag;
  };
  const variant vs[] = {{scheme::int8, false, "int8_pt"},         {scheme::int8, true, "int8_pc"},
                        {scheme::a16w8, false, "a16w8_pt"},       {scheme::a16w8, true, "a16w8_pc"},
                        {scheme::mxfp8_e4m3, false, "mxfp8e4m3"}, {scheme::mxfp8_e5m2, false, "mxfp8e5m2"},
                        {scheme::mxfp6_e2m3, false, "mxfp6e2m3"}, {scheme::mxfp6_e3m2, false, "mxfp6e3m2"},
                        {scheme::mxfp4, false, "mxfp4"}};
  for (const auto& v : vs) {
    const bool mx = armlower::passes::is_mx(v.s);
    // Shapes per rank (ExecuTorch's test shapes, scaled down where they are large).
    std::vector<std::vector<std::int32_t>> shapes =
        mx ? std::vector<std::vector<std::int32_t>>{{256}, {4, 192}, {2, 4, 96}, {2, 3, 4, 64}}
           : std::vector<std::vector<std::int32_t>>{{15}, {4, 10}, {2, 3, 15}, {5, 10, 25, 20}};
    const std::int32_t outs[] = {5, 13, 20, 8};
    int k = 0;
    for (std::size_t r = 0; r < shapes.size(); ++r)
      for (bool bias : {true, false}) {
        // Every rank/bias combination with one pattern, and all patterns at rank 2 with bias.
        std::vector<pattern> ps{pats[static_cast<std::size_t>(k++) % std::size(pats)]};
        if (r == 1 && bias) ps.assign(std::begin(pats), std::end(pats));
        for (auto p : ps) {
          test_case c;
          c.sch = v.s;
          c.per_channel = v.pc;
          c.input_shape = shapes[r];
          const auto in = shapes[r].back();
          c.layers.push_back(random_layer(in, outs[r], bias, armlower::graph::activation::none, rng));
          c.input = make_input(p, rows_of(c.input_shape) * static_cast<std::size_t>(in), static_cast<std::size_t>(in), rng);
          c.name = std::string(v.tag) + "_rank" + std::to_string(r + 1) + (bias ? "_bias_" : "_nobias_") + pattern_name(p);
          cs.push_back(std::move(c));
        }
      }
    // A chain of linears with ReLU between them.
    {
      test_case c;
      c.sch = v.s;
      c.per_channel = v.pc;
      c.input_shape = {3, 64};
      c.layers.push_back(random_layer(64, 32, true, armlower::graph::activation::relu, rng));
      c.layers.push_back(random_layer(32, 32, true, armlower::graph::activation::relu, rng));
      c.layers.push_back(random_layer(32, 10, false, armlower::graph::activation::none, rng));
      c.input = make_input(pattern::rand, 3 * 64, 64, rng);
      c.name = std::string(v.tag) + "_chain_relu";
      cs.push_back(std::move(c));
    }
    if (mx) {
      // MX block cases: in 64, out 4, no bias, weights 1e-3 on [0:32] and 100 on [32:64].
      for (auto p : {pattern::mx_block_ones, pattern::mx_block_mixed, pattern::mx_block_pair}) {
        test_case c;
        c.sch = v.s;
        c.input_shape = p == pattern::mx_block_pair ? std::vector<std::int32_t>{2, 64} : std::vector<std::int32_t>{64};
        armlower::graph::mlp_layer l{64, 4, std::vector<float>(256), {}, armlower::graph::activation::none};
        for (std::size_t i = 0; i < l.weight.size(); ++i) l.weight[i] = (i % 64) < 32 ? 1e-3f : 100.0f;
        c.layers.push_back(l);
        c.input = make_input(p, rows_of(c.input_shape) * 64, 64, rng);
        c.name = std::string(v.tag) + "_" + pattern_name(p);
        cs.push_back(std::move(c));
      }
      // in_features not a multiple of 32: zero-padded contraction.
      test_case c;
      c.sch = v.s;
      c.input_shape = {3, 40};
      c.layers.push_back(random_layer(40, 6, true, armlower::graph::activation::none, rng));
      c.input = make_input(pattern::rand, 3 * 40, 40, rng);
      c.name = std::string(v.tag) + "_pad40";
      cs.push_back(std::move(c));
    }
  }
  return cs;
}

}  // namespace conformance
