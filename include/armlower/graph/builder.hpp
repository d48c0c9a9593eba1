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
#include <armlower/graph/graph.hpp>
#include <armlower/graph/quantizer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
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

/// Calibration: the range of the input and of every layer's output (after its activation) over
/// the calibration rows `x` (rows × in_features of the first layer). Returns layers.size() + 1
/// ranges. Rows are processed in blocks (`calibration_block_values`); the ranges are min/max, so
/// the result is the same as over all rows at once. Throws std::invalid_argument when the
/// layers do not chain, `x` is not rows × in_features with rows ≥ 1, an input value is NaN or
/// ±Inf (naming row and column), or a layer's output is not finite (`calibration_error`, naming
/// layer and row).
[[nodiscard]] inline std::vector<float_range> calibrate_mlp(std::span<const mlp_layer> layers,
                                                            std::span<const float> x, std::size_t rows) {
  check_mlp(layers);
  const std::size_t in0 = layers.empty() ? (rows ? x.size() / rows : 0) : static_cast<std::size_t>(layers[0].in_features);
  if (rows == 0 || in0 == 0 || x.size() != rows * in0)
    throw std::invalid_argument("calibration: " + std::to_string(x.size()) + " values are not " + std::to_string(rows) +
                                " rows (>= 1) of " + std::to_string(in0));
  std::size_t width = in0;
  for (const auto& l : layers) width = std::max(width, static_cast<std::size_t>(l.out_features));
  const std::size_t block = std::max<std::size_t>(1, calibration_block_values / width);
  std::vector<float_range> r(layers.size() + 1);
  auto where_bad = [](std::span<const float> v) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i])) return i;
    return v.size();
  };
  auto bad_text = [](float v) { return std::string(std::isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf"); };
  for (std::size_t r0 = 0; r0 < rows; r0 += block) {
    const std::size_t nb = std::min(block, rows - r0);
    const auto xs = x.subspan(r0 * in0, nb * in0);
    if (const auto i = where_bad(xs); i < xs.size())
      throw std::invalid_argument("calibration data: " + bad_text(xs[i]) + " at row " + std::to_string(r0 + i / in0) +
                                  ", column " + std::to_string(i % in0) + " (calibration values must be finite)");
    const auto rx = range_of(xs);
    r[0] = r0 == 0 ? rx : merge(r[0], rx);
    std::vector<float> cur(xs.begin(), xs.end());
    for (std::size_t i = 0; i < layers.size(); ++i) {
      cur = run_float_mlp(layers.subspan(i, 1), cur, nb);
      const auto out = static_cast<std::size_t>(layers[i].out_features);
      if (const auto k = where_bad(cur); k < cur.size())
        throw calibration_error(i, "output is " + bad_text(cur[k]) + " on calibration row " +
                                       std::to_string(r0 + k / out) + ", channel " + std::to_string(k % out) +
                                       " (the float model overflows FP32)");
      const auto ry = range_of(cur);
      r[i + 1] = r0 == 0 ? ry : merge(r[i + 1], ry);
    }
  }
  return r;
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
