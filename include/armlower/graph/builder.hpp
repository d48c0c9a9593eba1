/// @file armlower/graph/builder.hpp
/// Builds *framework* graphs (`armlower/graph/graph.hpp`) shaped the way a quantized framework
/// (PyTorch 2 export + ExecuTorch quantizer, or a `.tflite` importer) produces them, so the
/// lowering passes see what they would see in ExecuTorch:
///
///     x_q ─DQ─► x ─┐
///     w_q ─DQ─► w ─┼─► linear ─► [relu] ─► Q ─► y_q ─DQ─► (next layer) ...
///     b_q ─DQ─► b ─┘
///
/// (quantized: int8 or int16 activations, int8 weights per tensor or per channel, int32 bias;
/// a ReLU between layers is annotated with its linear as ExecuTorch's `[linear, relu]` pattern),
/// or a plain float graph `x ─► linear(w, b) ─► [relu] ─► ...` for MXFP.
/// Input rank 1..4 (last dim = in_features), bias optional, chains of layers.
///
/// Also: `mlp_layer` descriptions, a float reference (`run_float_mlp`), calibration
/// (`calibrate_mlp`) and `build_quantized_mlp`, which quantizes float layers the way ExecuTorch's
/// quantizers do (see `armlower/graph/quantizer.hpp`).
/// Hosted only. Misuse (shape mismatch, wrong sizes, unknown value) throws std::invalid_argument
/// with a message naming the layer/tensor.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/detail/calibration_gemm.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/graph/quantizer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace armlower::graph {

/// A float-domain value of the graph being built (the name of an fp32 tensor).
struct value {
  std::string name;
};

/// Incremental builder of framework graphs. Each call appends operators in topological order.
class builder {
 public:
  builder() = default;

  /// Float graph input `name` of `shape` (rank 1..4), fp32.
  value input(const std::string& name, std::vector<std::int32_t> shape) {
    check_rank(name, shape);
    add_tensor(name, dtype::id::fp32, std::move(shape));
    g_.inputs.push_back(name);
    return {name};
  }

  /// Quantized graph input: tensor `name` of dtype `type` (INT8/INT16) with qparams `q`, followed
  /// by a DEQUANTIZE to fp32. Returns the dequantized value.
  value quantized_input(const std::string& name, std::vector<std::int32_t> shape, dtype::id type,
                        quant_params q) {
    check_rank(name, shape);
    auto& t = add_tensor(name, type, std::move(shape));
    t.quant = std::move(q);
    g_.inputs.push_back(name);
    return dequantized(name);
  }

  /// Float linear y = x·Wᵀ + b: `w` row-major [out_features][in_features], `bias` empty or
  /// [out_features]; optional ReLU after it.
  value linear(const value& x, std::span<const float> w, std::int32_t out_features, std::span<const float> bias,
               activation act = activation::none) {
    const auto in = in_features_of(x, w, out_features, bias.size());
    const auto wn = g_.unique_name(x.name + "_weight");
    g_.add(make_f32_constant(wn, {out_features, in}, w));
    std::vector<std::string> ins{x.name, wn};
    if (!bias.empty()) {
      const auto bn = g_.unique_name(x.name + "_bias");
      g_.add(make_f32_constant(bn, {out_features}, bias));
      ins.push_back(bn);
    }
    auto y = emit_linear(x, std::move(ins), out_features);
    if (act != activation::none) y = float_activation(y, act);
    return y;
  }

  /// Quantized linear: int8 weight codes `w_codes` [out][in] with qparams `wq` (per tensor or per
  /// channel, axis 0), optional int32 bias codes with qparams `bq`, each behind a DEQUANTIZE; the
  /// float linear; an optional ReLU/ReLU6; a QUANTIZE to `out_type` with `out_q`; and a DEQUANTIZE
  /// for the consumer. Returns the dequantized output.
  value quantized_linear(const value& x, std::span<const std::int64_t> w_codes, const quant_params& wq,
                         std::int32_t out_features, std::span<const std::int64_t> bias_codes,
                         const quant_params& bq, dtype::id out_type, const quant_params& out_q,
                         activation act = activation::none) {
    const auto in = in_features_of(x, {}, out_features, bias_codes.size(), w_codes.size());
    const auto wn = g_.unique_name(x.name + "_weight_q");
    {
      auto& wt = g_.add(make_int_constant(wn, dtype::id::i8, {out_features, in}, w_codes));
      wt.quant = wq;
    }
    std::vector<std::string> ins{x.name, dequantized(wn).name};
    if (!bias_codes.empty()) {
      const auto bn = g_.unique_name(x.name + "_bias_q");
      auto& bt = g_.add(make_int_constant(bn, dtype::id::i32, {out_features}, bias_codes));
      bt.quant = bq;
      ins.push_back(dequantized(bn).name);
    }
    auto y = emit_linear(x, std::move(ins), out_features);
    if (act != activation::none) y = float_activation(y, act);
    // QUANTIZE to the output dtype, then DEQUANTIZE for whoever consumes it.
    const auto* yt = g_.find(y.name);
    const auto qn = g_.unique_name(y.name + "_q");
    tensor qt{qn, out_type, yt->shape, false, {}, out_q};
    g_.add(std::move(qt));
    g_.operators.push_back(operation{framework_op::quantize, {y.name}, {qn}, std::monostate{}});
    return dequantized(qn);
  }

  /// Marks `y` as a graph output. When `y` is the DEQUANTIZE of a quantized tensor, that
  /// quantized tensor becomes the output and the trailing DEQUANTIZE is dropped (the graph then
  /// returns integers, as a delegated ExecuTorch partition does).
  void output(const value& y) {
    for (std::size_t i = 0; i < g_.operators.size(); ++i) {
      auto& o = g_.operators[i];
      if (!o.is_tosa() && std::get<framework_op>(o.code) == framework_op::dequantize && o.outputs[0] == y.name &&
          !used(y.name)) {
        const auto src = o.inputs[0];
        g_.operators.erase(g_.operators.begin() + static_cast<std::ptrdiff_t>(i));
        std::erase_if(g_.tensors, [&](const tensor& t) { return t.name == y.name; });
        g_.outputs.push_back(src);
        return;
      }
    }
    if (g_.find(y.name) == nullptr) throw std::invalid_argument("builder::output: unknown value " + y.name);
    g_.outputs.push_back(y.name);
  }

  /// The graph built so far.
  [[nodiscard]] const graph& get() const noexcept { return g_; }
  /// Moves the graph out (the builder is empty afterwards).
  [[nodiscard]] graph take() { return std::exchange(g_, graph{}); }

 private:
  graph g_;

  static void check_rank(const std::string& name, const std::vector<std::int32_t>& shape) {
    if (shape.empty() || shape.size() > 4)
      throw std::invalid_argument("builder: input " + name + " must have rank 1..4, got rank " +
                                  std::to_string(shape.size()));
    for (auto d : shape)
      if (d < 1) throw std::invalid_argument("builder: input " + name + " has a dimension < 1");
  }
  tensor& add_tensor(const std::string& name, dtype::id type, std::vector<std::int32_t> shape) {
    if (g_.find(name) != nullptr) throw std::invalid_argument("builder: tensor name " + name + " already used");
    return g_.add(tensor{name, type, std::move(shape), false, {}, std::nullopt});
  }
  [[nodiscard]] bool used(const std::string& n) const {
    for (const auto& o : g_.operators)
      for (const auto& i : o.inputs)
        if (i == n) return true;
    return false;
  }
  value dequantized(const std::string& qname) {
    const auto* qt = g_.find(qname);
    const auto dn = g_.unique_name(qname + "_dq");
    tensor d{dn, dtype::id::fp32, qt->shape, false, {}, std::nullopt};
    g_.add(std::move(d));
    g_.operators.push_back(operation{framework_op::dequantize, {qname}, {dn}, std::monostate{}});
    return {dn};
  }
  std::int32_t in_features_of(const value& x, std::span<const float> w, std::int32_t out, std::size_t nbias,
                              std::size_t nw_codes = 0) const {
    const auto* xt = g_.find(x.name);
    if (xt == nullptr) throw std::invalid_argument("builder::linear: unknown value " + x.name);
    if (out < 1) throw std::invalid_argument("builder::linear: out_features must be ≥ 1");
    const std::int32_t in = xt->shape.back();
    const std::size_t nw = w.empty() ? nw_codes : w.size();
    if (nw != static_cast<std::size_t>(in) * static_cast<std::size_t>(out))
      throw std::invalid_argument("builder::linear on " + x.name + ": weight has " + std::to_string(nw) +
                                  " elements, expected out_features·in_features = " + std::to_string(out) + "·" +
                                  std::to_string(in));
    if (nbias != 0 && nbias != static_cast<std::size_t>(out))
      throw std::invalid_argument("builder::linear on " + x.name + ": bias has " + std::to_string(nbias) +
                                  " elements, expected " + std::to_string(out));
    return in;
  }
  value emit_linear(const value& x, std::vector<std::string> ins, std::int32_t out) {
    auto shape = g_.find(x.name)->shape;
    shape.back() = out;
    const auto yn = g_.unique_name(x.name + "_linear");
    g_.add(tensor{yn, dtype::id::fp32, shape, false, {}, std::nullopt});
    g_.operators.push_back(operation{framework_op::linear, std::move(ins), {yn}, linear_attr{}});
    return {yn};
  }
  value float_activation(const value& x, activation act) {
    const auto yn = g_.unique_name(x.name + (act == activation::relu ? "_relu" : "_relu6"));
    g_.add(tensor{yn, dtype::id::fp32, g_.find(x.name)->shape, false, {}, std::nullopt});
    g_.operators.push_back(operation{act == activation::relu ? framework_op::relu : framework_op::relu6,
                                     {x.name}, {yn}, std::monostate{}});
    return {yn};
  }
};

/// One float linear layer of an MLP: weight row-major [out_features][in_features], bias empty
/// or [out_features], activation applied after it.
struct mlp_layer {
  std::int32_t in_features = 0;
  std::int32_t out_features = 0;
  std::vector<float> weight;
  std::vector<float> bias;
  activation act = activation::none;
};

/// Checks that `layers` form a chain: weight = in·out values, bias empty or out values, each
/// layer's in_features = the previous out_features. Throws std::invalid_argument naming the layer.
inline void check_mlp(std::span<const mlp_layer> layers) {
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    const auto at = "layer " + std::to_string(i) + ": ";
    if (l.in_features < 1 || l.out_features < 1)
      throw std::invalid_argument(at + "in_features and out_features must be >= 1");
    if (l.weight.size() != static_cast<std::size_t>(l.in_features) * static_cast<std::size_t>(l.out_features))
      throw std::invalid_argument(at + "weight has " + std::to_string(l.weight.size()) + " values, expected " +
                                  std::to_string(l.out_features) + "x" + std::to_string(l.in_features));
    if (!l.bias.empty() && l.bias.size() != static_cast<std::size_t>(l.out_features))
      throw std::invalid_argument(at + "bias has " + std::to_string(l.bias.size()) + " values, expected " +
                                  std::to_string(l.out_features));
    if (i > 0 && l.in_features != layers[i - 1].out_features)
      throw std::invalid_argument(at + "in_features " + std::to_string(l.in_features) +
                                  " does not match the previous layer's out_features " +
                                  std::to_string(layers[i - 1].out_features));
  }
}

/// Float reference of an MLP on `rows` input rows of in_features each (row-major), computed in
/// double and rounded to float per layer. Returns [rows][out_features of the last layer].
/// Throws std::invalid_argument when the layers do not chain (`check_mlp`) or `x` is not
/// rows × in_features.
[[nodiscard]] inline std::vector<float> run_float_mlp(std::span<const mlp_layer> layers, std::span<const float> x,
                                                      std::size_t rows) {
  check_mlp(layers);
  std::vector<float> cur(x.begin(), x.end());
  for (const auto& l : layers) {
    const auto in = static_cast<std::size_t>(l.in_features), out = static_cast<std::size_t>(l.out_features);
    if (cur.size() != rows * in) throw std::invalid_argument("run_float_mlp: input size does not match layer");
    std::vector<float> nxt(rows * out);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t o = 0; o < out; ++o) {
        double acc = l.bias.empty() ? 0.0 : l.bias[o];
        for (std::size_t i = 0; i < in; ++i) acc += static_cast<double>(cur[r * in + i]) * l.weight[o * in + i];
        if (l.act == activation::relu) acc = std::max(acc, 0.0);
        if (l.act == activation::relu6) acc = std::clamp(acc, 0.0, 6.0);
        nxt[r * out + o] = static_cast<float>(acc);
      }
    cur = std::move(nxt);
  }
  return cur;
}

/// An error of `calibrate_mlp` inside the model: which layer (index into the layers) overflowed.
/// `what()` is "calibration: layer <i> <rule>".
class calibration_error : public std::invalid_argument {
 public:
  calibration_error(std::size_t layer_index, const std::string& rule_text)
      : std::invalid_argument("calibration: layer " + std::to_string(layer_index) + " " + rule_text),
        layer(layer_index),
        rule(rule_text) {}
  std::size_t layer;  ///< index of the layer whose output is not finite
  std::string rule;   ///< the problem without the layer ("output is +Inf on calibration row 3, ...")
};

/// Values per working buffer of `calibrate_mlp` (2^20 floats, 4 MiB): rows are run through the
/// layers in blocks this size, so calibration memory does not grow with the number of rows.
inline constexpr std::size_t calibration_block_values = std::size_t{1} << 20;

/// What `detail::calibrate_mlp_with` did (for tests and benchmarks).
struct calibration_stats {
  std::size_t rows_recomputed = 0;  ///< rows re-run through the double reference to settle a range
  std::size_t blocks_reference = 0;  ///< blocks computed by the (vectorised) double reference alone
};

namespace detail {

/// Per layer, what the fast pass's error bound needs of the weights: max_o Σ_k |w[o][k]| and
/// max_o |b[o]| (double).
struct calib_layer {
  double n1max = 0;
  double bmax = 0;
};

[[nodiscard]] inline int calib_act(activation a) noexcept {
  return a == activation::relu ? 1 : a == activation::relu6 ? 2 : 0;
}

/// The double-precision reference of `nb` rows `xs`: every layer as `run_float_mlp` computes it
/// (`calib_linear_exact`, bit-identical; `calib_isa::reference_only`: `run_float_mlp` itself).
/// Returns the ranges of the layers' outputs; throws `calibration_error` on a non-finite output
/// (row numbers offset by `r0`), unless `subset` (then the rows are a subset of a block and a
/// non-finite value returns an empty vector).
inline std::vector<float_range> calibrate_rows_exact(std::span<const mlp_layer> layers,
                                                     std::span<const float> xs,
                                                     std::size_t nb, std::size_t r0, calib_isa isa, bool subset) {
  std::vector<float> cur(xs.begin(), xs.end()), nxt, panel;
  std::vector<float_range> out;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    const auto k = static_cast<std::size_t>(l.in_features), n = static_cast<std::size_t>(l.out_features);
    if (isa == calib_isa::reference_only) {
      nxt = run_float_mlp(layers.subspan(i, 1), cur, nb);
    } else {
      nxt.resize(nb * n);
      calib_linear_exact(isa, cur.data(), nb, k, l.weight.data(), l.bias.empty() ? nullptr : l.bias.data(), n,
                         calib_act(l.act), nxt.data(), panel);
    }
    for (std::size_t q = 0; q < nxt.size(); ++q)
      if (!std::isfinite(nxt[q])) {
        if (subset) return {};
        throw calibration_error(i, "output is " + std::string(std::isnan(nxt[q]) ? "NaN" : nxt[q] > 0 ? "+Inf" : "-Inf") +
                                       " on calibration row " + std::to_string(r0 + q / n) + ", channel " +
                                       std::to_string(q % n) + " (the float model overflows FP32)");
      }
    out.push_back(range_of(nxt));
    cur.swap(nxt);
  }
  return out;
}

/// The ranges of one block from the float pass, settled exactly (see `calibrate_mlp`): returns
/// false when the float pass cannot certify the block (a non-finite value or bound), and the
/// caller then runs `calibrate_rows_exact` on the whole block.
inline bool calibrate_block_fast(std::span<const mlp_layer> layers, const std::vector<calib_layer>& norms,
                                 std::span<const float> xs, std::size_t nb, bool first, std::vector<float_range>& r,
                                 calib_isa isa, calibration_stats* stats) {
  constexpr double uf = 0x1p-24, ud = 0x1p-53, tiny = 0x1p-149, flt_max = std::numeric_limits<float>::max();
  const std::size_t nl = layers.size();
  const std::size_t in0 = static_cast<std::size_t>(layers[0].in_features);
  std::vector<float> cur, nxt, panel;  // layer 0 reads xs itself
  std::vector<double> a(nb), d(nb, 0.0), e(nb);  // per row: max |x̂|, input error bound, output error bound
  for (std::size_t rr = 0; rr < nb; ++rr) {
    double m = 0;
    for (std::size_t k = 0; k < in0; ++k) m = std::max(m, static_cast<double>(std::fabs(xs[rr * in0 + k])));
    a[rr] = m;
  }
  std::vector<char> cand(nb, 0);  // rows whose double reference must settle some layer's range
  struct bound {
    bool min_certain = false, max_certain = false;
    double umin = 0, lmax = 0;  // certified value when *_certain (0 or 6: a clamped activation)
  };
  std::vector<bound> bounds(nl);
  for (std::size_t i = 0; i < nl; ++i) {
    const auto& l = layers[i];
    const auto k = static_cast<std::size_t>(l.in_features), n = static_cast<std::size_t>(l.out_features);
    const double df = static_cast<double>(calib_depth(k));
    if (df * uf >= 0.5) return false;
    const double gf = df * uf / (1 - df * uf), kd = static_cast<double>(k + 1), gd = kd * ud / (1 - kd * ud);
    const double absf = (2.0 * static_cast<double>(k) + 8.0) * tiny;
    nxt.resize(nb * n);
    calib_linear(isa, i == 0 ? xs.data() : cur.data(), nb, k, l.weight.data(), l.bias.empty() ? nullptr : l.bias.data(), n,
                 nxt.data(), panel);
    auto act = [&](double v) {
      if (l.act == activation::relu) return std::max(v, 0.0);
      if (l.act == activation::relu6) return std::clamp(v, 0.0, 6.0);
      return v;
    };
    const double big = std::numeric_limits<double>::infinity();
    double umin = big, lmax = -big;
    std::vector<double> lo_min(nb), hi_max(nb);
    bool min_certain = false, max_certain = false;
    for (std::size_t rr = 0; rr < nb; ++rr) {
      float* z = nxt.data() + rr * n;
      float zmin = z[0], zmax = z[0];
      for (std::size_t o = 1; o < n; ++o) {
        zmin = z[o] < zmin ? z[o] : zmin;
        zmax = z[o] > zmax ? z[o] : zmax;
      }
      if (!std::isfinite(zmin) || !std::isfinite(zmax)) return false;  // also catches a NaN in between
      const double zabs = std::max(std::fabs(static_cast<double>(zmin)), std::fabs(static_cast<double>(zmax)));
      const double e1 = d[rr] * norms[i].n1max + gf * (a[rr] * norms[i].n1max + norms[i].bmax) +
                        gd * ((a[rr] + d[rr]) * norms[i].n1max + norms[i].bmax) + absf;
      e[rr] = (e1 + uf * (zabs + e1) + tiny) * (1 + 0x1p-20);
      if (!std::isfinite(e[rr]) || zabs + e[rr] > flt_max) return false;
      for (std::size_t o = 0; o < n; ++o) {
        if (l.act == activation::relu) z[o] = z[o] < 0.0f ? 0.0f : z[o];
        if (l.act == activation::relu6) z[o] = std::clamp(z[o], 0.0f, 6.0f);
      }
      const double lo_a = act(zmin - e[rr]), hi_a = act(zmin + e[rr]);
      const double lo_b = act(zmax - e[rr]), hi_b = act(zmax + e[rr]);
      lo_min[rr] = lo_a;
      hi_max[rr] = hi_b;
      if (hi_a < umin) {
        umin = hi_a;
        min_certain = lo_a == hi_a;
      } else if (hi_a == umin && lo_a == hi_a) {
        min_certain = true;
      }
      if (lo_b > lmax) {
        lmax = lo_b;
        max_certain = lo_b == hi_b;
      } else if (lo_b == lmax && lo_b == hi_b) {
        max_certain = true;
      }
      a[rr] = std::max(std::fabs(act(zmin)), std::fabs(act(zmax)));
    }
    // The reference minimum is ≤ umin; only rows whose lower bound reaches below it (or to it, when
    // no value is certainly umin) can hold it. Likewise for the maximum.
    for (std::size_t rr = 0; rr < nb; ++rr)
      if ((min_certain ? lo_min[rr] < umin : lo_min[rr] <= umin) || (max_certain ? hi_max[rr] > lmax : hi_max[rr] >= lmax))
        cand[rr] = 1;
    bounds[i] = {min_certain, max_certain, umin, lmax};
    d = e;
    cur.swap(nxt);
  }
  // Settle: the candidate rows through the double reference (rows are independent, so these are
  // exactly the values the reference computes for them). Too many candidates (a deep or badly
  // conditioned model, where the bound grows): the reference for the whole block is cheaper.
  std::vector<float> sub;
  std::size_t nc = 0;
  for (std::size_t rr = 0; rr < nb; ++rr)
    if (cand[rr]) {
      sub.insert(sub.end(), xs.begin() + static_cast<std::ptrdiff_t>(rr * in0),
                 xs.begin() + static_cast<std::ptrdiff_t>((rr + 1) * in0));
      ++nc;
    }
  if (nc > nb / 4 + 2) return false;
  if (stats) stats->rows_recomputed += nc;
  std::vector<float_range> out(nl);
  if (nc > 0) {
    out = calibrate_rows_exact(layers, sub, nc, 0, isa, true);
    if (out.empty()) return false;
  }
  for (std::size_t i = 0; i < nl; ++i) {
    auto& ri = out[i];
    const auto& b = bounds[i];
    if (b.min_certain) ri.min = nc > 0 ? std::min(ri.min, static_cast<float>(b.umin)) : static_cast<float>(b.umin);
    else if (nc == 0) return false;
    if (b.max_certain) ri.max = nc > 0 ? std::max(ri.max, static_cast<float>(b.lmax)) : static_cast<float>(b.lmax);
    else if (nc == 0) return false;
  }
  for (std::size_t i = 0; i < nl; ++i) r[i + 1] = first ? out[i] : merge(r[i + 1], out[i]);
  return true;
}

/// `calibrate_mlp` with the float pass on a chosen path (`calib_isa::best` in the public function;
/// tests force each path) and statistics.
[[nodiscard]] inline std::vector<float_range> calibrate_mlp_with(std::span<const mlp_layer> layers,
                                                                 std::span<const float> x, std::size_t rows,
                                                                 calib_isa isa, calibration_stats* stats = nullptr) {
  check_mlp(layers);
  const std::size_t in0 = layers.empty() ? (rows ? x.size() / rows : 0) : static_cast<std::size_t>(layers[0].in_features);
  if (rows == 0 || in0 == 0 || x.size() != rows * in0)
    throw std::invalid_argument("calibration: " + std::to_string(x.size()) + " values are not " + std::to_string(rows) +
                                " rows (>= 1) of " + std::to_string(in0));
  std::size_t width = in0;
  for (const auto& l : layers) width = std::max(width, static_cast<std::size_t>(l.out_features));
  const std::size_t block = std::max<std::size_t>(1, calibration_block_values / width);
  std::vector<float_range> r(layers.size() + 1);
  std::vector<calib_layer> norms;
  if (isa != calib_isa::reference_only) {
    for (const auto& l : layers) {
      const auto k = static_cast<std::size_t>(l.in_features), n = static_cast<std::size_t>(l.out_features);
      calib_layer c;
      c.n1max = calib_abs_row_sum_max(l.weight.data(), n, k);
      for (float b : l.bias) c.bmax = std::max(c.bmax, std::fabs(static_cast<double>(b)));
      norms.push_back(c);
    }
  }
  for (std::size_t r0 = 0; r0 < rows; r0 += block) {
    const std::size_t nb = std::min(block, rows - r0);
    const auto xs = x.subspan(r0 * in0, nb * in0);
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (!std::isfinite(xs[i]))
        throw std::invalid_argument("calibration data: " + std::string(std::isnan(xs[i]) ? "NaN" : xs[i] > 0 ? "+Inf" : "-Inf") +
                                    " at row " + std::to_string(r0 + i / in0) + ", column " + std::to_string(i % in0) +
                                    " (calibration values must be finite)");
    const auto rx = range_of(xs);
    r[0] = r0 == 0 ? rx : merge(r[0], rx);
    if (layers.empty()) continue;
    if (isa != calib_isa::reference_only && isa != calib_isa::exact_only &&
        calibrate_block_fast(layers, norms, xs, nb, r0 == 0, r, isa, stats))
      continue;
    if (stats) ++stats->blocks_reference;
    const auto out = calibrate_rows_exact(layers, xs, nb, r0, isa, false);
    for (std::size_t i = 0; i < out.size(); ++i) r[i + 1] = r0 == 0 ? out[i] : merge(r[i + 1], out[i]);
  }
  return r;
}

}  // namespace detail

/// Calibration: the range of the input and of every layer's output (after its activation) over
/// the calibration rows `x` (rows × in_features of the first layer). Returns layers.size() + 1
/// ranges, exactly those of the double-precision reference: min/max over all rows of
/// `run_float_mlp` layer by layer (each output accumulated in double and rounded to float, the
/// next layer fed with those floats). Rows are processed in blocks (`calibration_block_values`),
/// so memory does not grow with the number of rows.
///
/// How it is fast and still exact: a block runs through the layers in float32
/// (`detail::calib_linear`, vectorised), and for every row a bound e on |float value − reference
/// value| is carried from layer to layer. With x̂ the float pass's input of a layer, D a bound on
/// its distance to the reference's input, A = max|x̂| of the row, N = max_o Σ|w[o]|,
/// B = max|b|, K inputs and d = `detail::calib_depth(K)`:
///   |ẑ − ŝ| ≤ e₁ = D·N + γ_d(A·N + B) + γ'_{K+1}((A + D)·N + B) + (2K + 8)·2^−149,
/// where ŝ is the reference's double sum (error γ'_{K+1}, u' = 2^−53; the float pass's error
/// γ_d, u = 2^−24, by Higham's Lemma 3.1 and §4.2, see `calibration_gemm.hpp`; the float inputs'
/// error D·N since |Σ(x̂ − x)·w| ≤ D·Σ|w|). The reference rounds ŝ to float (≤ u·|ŝ| + 2^−150),
/// and ReLU/ReLU6 are monotone and 1-Lipschitz, so the reference output lies in
/// [act(ẑ − e), act(ẑ + e)], e = e₁ + u(|ẑ| + e₁) + 2^−150 (evaluated in double with a 1 + 2^−20
/// margin), and e is the next layer's D. For each layer the reference minimum is then at most
/// U = min over rows of act(ẑ_min + e); only rows whose act(ẑ_min − e) reaches below U can hold a
/// smaller value, and those rows (and, for the maximum, the symmetric ones) are re-run through the
/// double reference — rows are independent, so their reference values are exact. The range is the
/// min/max over them and U when U is certain (a clamped ReLU: lower and upper bound both 0 or 6).
/// A block whose float pass or bound is not finite, would overflow FP32, or leaves more than a
/// quarter of its rows as candidates (deep chains of large weights grow the bound by max Σ|w| per
/// layer) is computed by the vectorised double reference alone (`detail::calib_linear_exact`,
/// bit-identical to `run_float_mlp`; it also names an overflow by layer and row).
///
/// Throws std::invalid_argument when the layers do not chain, `x` is not rows × in_features with
/// rows ≥ 1, an input value is NaN or ±Inf (naming row and column), or a layer's output is not
/// finite (`calibration_error`, naming layer and row).
[[nodiscard]] inline std::vector<float_range> calibrate_mlp(std::span<const mlp_layer> layers,
                                                            std::span<const float> x, std::size_t rows) {
  return detail::calibrate_mlp_with(layers, x, rows, detail::calib_isa::best);
}

/// Post-training-quantization scheme of `build_quantized_mlp` (ExecuTorch quantizer configs).
struct ptq_config {
  /// INT8: affine int8 activations (`INT8_PER_TENSOR_CONFIG` / symmetric config);
  /// INT16: symmetric int16 activations (`get_symmetric_a16w8_quantization_config`).
  dtype::id activation = dtype::id::i8;
  bool per_channel = false;        ///< weights per output channel (axis 0) instead of per tensor
  std::int64_t weight_qmin = -127;  ///< ExecuTorch's symmetric weight range
  std::int64_t weight_qmax = 127;
};

/// Builds the float framework graph of an MLP (for MXFP lowering): input `x` of `input_shape`
/// (rank 1..4, last dim = in_features of the first layer), the layers, output.
[[nodiscard]] inline graph build_float_mlp(std::span<const mlp_layer> layers, std::vector<std::int32_t> input_shape) {
  builder b;
  auto v = b.input("x", std::move(input_shape));
  for (const auto& l : layers) v = b.linear(v, l.weight, l.out_features, l.bias, l.act);
  b.output(v);
  return b.take();
}

/// Builds the quantized framework graph of an MLP from float layers and calibration ranges
/// (`ranges[0]` = input, `ranges[i+1]` = output of layer i, e.g. from `calibrate_mlp`), quantizing
/// weights and bias as ExecuTorch's quantizer does for `cfg`. The graph input `x` is quantized.
[[nodiscard]] inline graph build_quantized_mlp(std::span<const mlp_layer> layers, std::vector<std::int32_t> input_shape,
                                               const ptq_config& cfg, std::span<const float_range> ranges) {
  if (ranges.size() != layers.size() + 1)
    throw std::invalid_argument("build_quantized_mlp: need " + std::to_string(layers.size() + 1) +
                                " calibration ranges (input + one per layer), got " + std::to_string(ranges.size()));
  if (cfg.activation != dtype::id::i8 && cfg.activation != dtype::id::i16)
    throw std::invalid_argument("build_quantized_mlp: activation dtype must be INT8 or INT16");
  auto act_q = [&](float_range r) {
    return cfg.activation == dtype::id::i8 ? affine_activation_qparams(r, dtype::id::i8)
                                           : symmetric_activation_qparams(r, dtype::id::i16);
  };
  builder b;
  auto xq = act_q(ranges[0]);
  auto v = b.quantized_input("x", std::move(input_shape), cfg.activation, xq);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    const auto wq = symmetric_weight_qparams(l.weight, l.out_features, cfg.per_channel, cfg.weight_qmin, cfg.weight_qmax);
    const auto wc = quantize(l.weight, wq);
    const auto bq = bias_qparams(xq, wq);
    std::vector<std::int64_t> bc;
    if (!l.bias.empty()) bc = quantize(l.bias, bq);
    auto yq = act_q(ranges[i + 1]);
    v = b.quantized_linear(v, wc, wq, l.out_features, bc, bq, cfg.activation, yq, l.act);
    xq = yq;
  }
  b.output(v);
  return b.take();
}

}  // namespace armlower::graph
