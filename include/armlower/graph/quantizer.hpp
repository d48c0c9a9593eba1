/// @file armlower/graph/quantizer.hpp
/// Post-training quantization helpers that reproduce what ExecuTorch's Arm and Cortex-M
/// quantizers produce for a linear layer, from float data and calibration ranges:
///  - int8 scheme (`INT8_PER_TENSOR_CONFIG`, `get_symmetric_quantization_config`): activations int8
///    per-tensor *affine* (MinMax rule), weights int8 *symmetric* −127..127, per tensor or per
///    output channel (axis 0), bias int32 with scale s_in·s_w[c], zero point 0;
///  - a16w8 (`get_symmetric_a16w8_quantization_config`): activations int16 per-tensor *symmetric*
///    (zero point 0, observer eps 2^−12), weights as above, bias int32 (ExecuTorch #15370).
/// Sources: ExecuTorch's Arm quantizer (`backends/arm/quantizer/quantization_config.py`, the
/// a16w8 and int8 configs); the observer arithmetic is
/// PyTorch's `MinMaxObserver._calculate_qparams` (min clamped to ≤ 0, max to ≥ 0; affine
/// zp = qmin − round(min/scale) clamped to [qmin, qmax]; symmetric scale = max|x| / ((qmax−qmin)/2));
/// quantization is `clamp(round_half_even(x · (1/scale)) + zp, qmin, qmax)` in float32 as
/// `quantized_decomposed.quantize_per_tensor` does.
/// Also the default calibration (`default_calibration`, bounded in memory) and the checks of
/// user calibration data (`check_calibration`).
/// Hosted only. Errors (empty ranges, NaN or Inf, wrong sizes, a scale that is not a finite
/// float > 0) throw std::invalid_argument naming the argument.
#pragma once

#include <armlower/core/error.hpp>

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace armlower::graph {

/// A calibration range of a float tensor (what an observer saw): `min ≤ max`, finite.
struct float_range {
  float min = 0.0f;
  float max = 0.0f;
};

/// The smallest and largest value of `x` (an empty span gives {0, 0}). Throws
/// std::invalid_argument on a NaN or an infinity, saying which and at which index.
[[nodiscard]] inline float_range range_of(std::span<const float> x) {
  float_range r{};
  bool first = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float v = x[i];
    if (!std::isfinite(v))
      throw std::invalid_argument(std::string("range_of: ") + (std::isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf") +
                                  " in calibration data at index " + std::to_string(i) +
                                  " (calibration values must be finite)");
    if (first) { r.min = r.max = v; first = false; }
    r.min = std::min(r.min, v);
    r.max = std::max(r.max, v);
  }
  return r;
}

/// Merges two ranges (the range of the union of the data).
[[nodiscard]] constexpr float_range merge(float_range a, float_range b) noexcept {
  return {std::min(a.min, b.min), std::max(a.max, b.max)};
}

/// Values (rows × in_features) the default calibration may use at most: 2^24 floats (64 MiB),
/// so a huge input layer cannot make it take gigabytes.
inline constexpr std::int64_t default_calibration_max_values = std::int64_t{1} << 24;

/// Rows of the default calibration for `in_features` inputs: 256, fewer when 256 rows would
/// exceed `default_calibration_max_values` (at least 1). Throws when in_features < 1.
[[nodiscard]] inline std::int64_t default_calibration_rows(std::int32_t in_features) {
  if (in_features < 1)
    throw std::invalid_argument("default calibration: in_features " + std::to_string(in_features) + " must be >= 1");
  return std::clamp<std::int64_t>(default_calibration_max_values / in_features, 1, 256);
}

/// The documented default calibration when no calibration data is given: `default_calibration_rows`
/// rows of `in_features` values drawn uniformly from [−1, 1] (std::mt19937 seed 0,
/// std::uniform_real_distribution<float>), row-major. Throws when in_features < 1.
[[nodiscard]] inline std::vector<float> default_calibration(std::int32_t in_features) {
  const auto rows = default_calibration_rows(in_features);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(rows) * static_cast<std::size_t>(in_features));
  for (auto& v : x) v = u(rng);
  return x;
}

/// Checks calibration data given as an array of `shape` (e.g. a `.npy`) for a graph input with
/// `in_features` values per row: rank ≥ 1, last dim = in_features, at least one row; and every
/// value finite. Returns the number of rows. Errors (`errc::invalid_argument`, the rule as message)
/// ("calibration data has 0 rows", "rows of 6 values, but the model's input has 8 features",
/// "+Inf at row 3, column 5").
[[nodiscard]] inline expected<std::int64_t> check_calibration(std::span<const float> values, std::span<const std::int32_t> shape,
                                                    std::int32_t in_features) {
  auto shape_text = [&] {
    std::string t = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) t += (i ? "," : "") + std::to_string(shape[i]);
    return t + "]";
  };
  if (shape.empty())
    return armlower::error(errc::invalid_argument, location{}, "calibration data must be an array of rows [rows, " + std::to_string(in_features) +
                                "], got a scalar");
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) return armlower::error(errc::invalid_argument, location{}, "calibration data has a negative dimension in shape " + shape_text());
    if (d > 0 && n > (std::int64_t{1} << 62) / d)
      return armlower::error(errc::invalid_argument, location{}, "calibration data of shape " + shape_text() + " is too large");
    n *= d;
  }
  if (shape.back() != in_features)
    return armlower::error(errc::invalid_argument, location{}, "calibration data of shape " + shape_text() + " has rows of " +
                                std::to_string(shape.back()) + " values, but the model's input has " +
                                std::to_string(in_features) + " features");
  if (n == 0 || in_features < 1)
    return armlower::error(errc::invalid_argument, location{}, "calibration data of shape " + shape_text() + " has 0 rows (need at least 1)");
  if (static_cast<std::int64_t>(values.size()) != n)
    return armlower::error(errc::invalid_argument, location{}, "calibration data has " + std::to_string(values.size()) + " values, shape " +
                                shape_text() + " needs " + std::to_string(n));
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      return armlower::error(errc::invalid_argument, location{}, std::string("calibration data: ") +
                                  (std::isnan(values[i]) ? "NaN" : values[i] > 0 ? "+Inf" : "-Inf") + " at row " +
                                  std::to_string(i / static_cast<std::size_t>(in_features)) + ", column " +
                                  std::to_string(i % static_cast<std::size_t>(in_features)) +
                                  " (calibration values must be finite)");
  return n / in_features;
}

namespace detail {
inline void check_range(const float_range& r, const char* what) {
  if (!std::isfinite(r.min) || !std::isfinite(r.max) || r.min > r.max)
    throw std::invalid_argument(std::string(what) + ": calibration range [" + std::to_string(r.min) +
                                ", " + std::to_string(r.max) + "] is not a finite interval");
}
/// A computed scale must be a finite float > 0 (a range near ±FLT_MAX overflows it).
inline void check_scale(float scale, const float_range& r, const char* what) {
  if (!std::isfinite(scale) || !(scale > 0.0f))
    throw std::invalid_argument(std::string(what) + ": calibration range [" + std::to_string(r.min) + ", " +
                                std::to_string(r.max) + "] gives scale " + std::to_string(scale) +
                                ", not a finite float > 0");
}
/// PyTorch observers' default eps (torch.finfo(torch.float32).eps).
inline constexpr float observer_eps_default = std::numeric_limits<float>::epsilon();
}  // namespace detail

/// Per-tensor *affine* activation qparams (int8 scheme): scale = (max⁺ − min⁻)/(qmax − qmin),
/// zero point = qmin − round(min⁻/scale) clamped to [qmin, qmax], with min⁻ = min(min, 0) and
/// max⁺ = max(max, 0); scale ≥ `eps`. `type` is i8 (−128..127) or i16.
[[nodiscard]] inline quant_params affine_activation_qparams(float_range r, dtype::id type = dtype::id::i8,
                                                            float eps = detail::observer_eps_default) {
  detail::check_range(r, "affine_activation_qparams");
  const auto& t = dtype::traits(type);
  if (type != dtype::id::i8 && type != dtype::id::i16)
    throw std::invalid_argument("affine_activation_qparams: activation dtype must be INT8 or INT16, got " +
                                std::string(t.name));
  const float lo = std::min(r.min, 0.0f), hi = std::max(r.max, 0.0f);
  const auto qmin = t.int_min, qmax = t.int_max;
  float scale = (hi - lo) / static_cast<float>(qmax - qmin);
  scale = std::max(scale, eps);
  detail::check_scale(scale, r, "affine_activation_qparams");
  auto zp = static_cast<std::int64_t>(qmin - static_cast<std::int64_t>(std::nearbyint(lo / scale)));
  zp = std::clamp<std::int64_t>(zp, qmin, qmax);
  return quant_params{{scale}, {static_cast<std::int32_t>(zp)}, 0, false, qmin, qmax};
}

/// Per-tensor *symmetric* activation qparams (a16w8 scheme: int16, −32768..32767, eps 2^−12):
/// scale = max(|min⁻|, max⁺) / ((qmax − qmin)/2), zero point 0.
[[nodiscard]] inline quant_params symmetric_activation_qparams(float_range r, dtype::id type = dtype::id::i16,
                                                               float eps = 0x1p-12f) {
  detail::check_range(r, "symmetric_activation_qparams");
  const auto& t = dtype::traits(type);
  if (type != dtype::id::i8 && type != dtype::id::i16)
    throw std::invalid_argument("symmetric_activation_qparams: activation dtype must be INT8 or INT16, got " +
                                std::string(t.name));
  const float amax = std::max(-std::min(r.min, 0.0f), std::max(r.max, 0.0f));
  float scale = amax / (static_cast<float>(t.int_max - t.int_min) / 2.0f);
  scale = std::max(scale, eps);
  detail::check_scale(scale, r, "symmetric_activation_qparams");
  return quant_params{{scale}, {0}, 0, false, t.int_min, t.int_max};
}

/// Symmetric int8 weight qparams for a row-major weight matrix `w` [out][in]: per tensor
/// (one scale = max|w| / ((qmax − qmin)/2)) or per output channel (axis 0, one scale per row),
/// zero point 0, range [qmin, qmax] (ExecuTorch: −127..127).
[[nodiscard]] inline quant_params symmetric_weight_qparams(std::span<const float> w, std::int32_t out_features,
                                                           bool per_channel, std::int64_t qmin = -127,
                                                           std::int64_t qmax = 127) {
  if (out_features <= 0 || w.size() % static_cast<std::size_t>(out_features) != 0)
    throw std::invalid_argument("symmetric_weight_qparams: " + std::to_string(w.size()) +
                                " weights do not form " + std::to_string(out_features) + " rows");
  const std::size_t in = w.size() / static_cast<std::size_t>(out_features);
  const float half_range = static_cast<float>(qmax - qmin) / 2.0f;
  auto scale_of = [&](std::size_t begin, std::size_t n) {
    float amax = 0.0f;
    for (std::size_t i = begin; i < begin + n; ++i) {
      if (!std::isfinite(w[i])) throw std::invalid_argument("symmetric_weight_qparams: non-finite weight");
      amax = std::max(amax, std::fabs(w[i]));
    }
    return std::max(amax / half_range, detail::observer_eps_default);
  };
  quant_params q;
  q.qmin = qmin;
  q.qmax = qmax;
  q.axis = 0;
  q.per_channel = per_channel;
  if (per_channel) {
    for (std::int32_t c = 0; c < out_features; ++c) {
      q.scale.push_back(scale_of(static_cast<std::size_t>(c) * in, in));
      q.zero_point.push_back(0);
    }
  } else {
    q.scale.push_back(scale_of(0, w.size()));
    q.zero_point.push_back(0);
  }
  return q;
}

/// Quantizes one float with (scale, zp) into [qmin, qmax]: clamp(rne(x · (1/scale)) + zp).
[[nodiscard]] inline std::int64_t quantize_value(float x, float scale, std::int32_t zp, std::int64_t qmin,
                                                 std::int64_t qmax) {
  const float inv = static_cast<float>(1.0 / static_cast<double>(scale));
  const double q = std::nearbyint(static_cast<double>(x * inv)) + zp;
  if (std::isnan(q)) throw std::invalid_argument("quantize_value: NaN input");
  return static_cast<std::int64_t>(std::clamp(q, static_cast<double>(qmin), static_cast<double>(qmax)));
}

/// Quantizes a tensor with per-tensor or per-channel (`axis` 0 of a row-major [C][...] tensor)
/// qparams. Returns the integer codes.
[[nodiscard]] inline std::vector<std::int64_t> quantize(std::span<const float> x, const quant_params& q) {
  if (q.scale.empty()) throw std::invalid_argument("quantize: qparams without a scale");
  for (float sc : q.scale)
    if (!std::isfinite(sc) || !(sc > 0.0f))
      throw std::invalid_argument("quantize: scale " + std::to_string(sc) + " is not a finite float > 0");
  std::vector<std::int64_t> out(x.size());
  const std::size_t channels = q.per_channel ? q.scale.size() : 1;
  if (x.size() % channels != 0)
    throw std::invalid_argument("quantize: " + std::to_string(x.size()) + " values do not split into " +
                                std::to_string(channels) + " channels");
  const std::size_t inner = x.size() / channels;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t c = q.per_channel ? i / inner : 0;
    const std::int32_t zp = q.zero_point.size() > c ? q.zero_point[c] : q.zero_point.empty() ? 0 : q.zero_point[0];
    out[i] = quantize_value(x[i], q.scale[c], zp, q.qmin, q.qmax);
  }
  return out;
}

/// Dequantizes integer codes: scale[c] · (q − zp[c]).
[[nodiscard]] inline std::vector<float> dequantize(std::span<const std::int64_t> v, const quant_params& q) {
  const std::size_t channels = q.per_channel ? q.scale.size() : 1;
  const std::size_t inner = channels ? v.size() / channels : 0;
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::size_t c = q.per_channel ? std::min(i / std::max<std::size_t>(inner, 1), channels - 1) : 0;
    const std::int32_t zp = q.zero_point.size() > c ? q.zero_point[c] : q.zero_point.empty() ? 0 : q.zero_point[0];
    out[i] = q.scale[c] * static_cast<float>(v[i] - zp);
  }
  return out;
}

/// Bias qparams derived from the input and weight qparams (ExecuTorch `DerivedQuantizationSpec`):
/// int32, scale[c] = s_in · s_w[c] (float32 product), zero point 0, range [−2^31, 2^31 − 1].
[[nodiscard]] inline quant_params bias_qparams(const quant_params& input, const quant_params& weight) {
  if (input.scale.size() != 1) throw std::invalid_argument("bias_qparams: input must be quantized per tensor");
  quant_params q;
  q.per_channel = weight.per_channel;
  q.axis = 0;
  q.qmin = std::numeric_limits<std::int32_t>::min();
  q.qmax = std::numeric_limits<std::int32_t>::max();
  for (float sw : weight.scale) {
    const float sb = input.scale[0] * sw;
    if (!std::isfinite(sb) || !(sb > 0.0f))
      throw std::invalid_argument("bias_qparams: bias scale s_in*s_w = " + std::to_string(input.scale[0]) + "*" +
                                  std::to_string(sw) + " is not a finite float > 0");
    q.scale.push_back(sb);
    q.zero_point.push_back(0);
  }
  return q;
}

}  // namespace armlower::graph
