/// @file armlower/passes/options.hpp
/// Lowering schemes and options of the pipeline (`armlower/passes/pipeline.hpp`).
/// Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/quantizer.hpp>
#include <armlower/mx/scale.hpp>
#include <armlower/tosa/op.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace armlower::passes {

/// How a linear layer is lowered (ExecuTorch equivalents in `backends/arm/`):
///  - int8: int8 activations and weights, CONV2D i8×i8→i32 + RESCALE (TOSA-1.0+INT);
///  - a16w8: int16 activations, int8 weights, CONV2D i16×i8→i48 + RESCALE INT48→INT16 (needs EXT-INT16);
///  - mxfp*: weights MX-quantized ahead of time, CAST_TO_BLOCK_SCALED + MATMUL_T_BLOCK_SCALED
///    (needs TOSA-1.1 + FP + mxfp); the element type of weights and activations.
enum class scheme : std::uint8_t { int8, a16w8, mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4 };

/// All schemes, for iteration.
inline constexpr scheme all_schemes[] = {scheme::int8,       scheme::a16w8,      scheme::mxfp8_e4m3, scheme::mxfp8_e5m2,
                                         scheme::mxfp6_e2m3, scheme::mxfp6_e3m2, scheme::mxfp4};

/// Spelling used by the tool and the report ("mxfp8_e4m3").
[[nodiscard]] constexpr std::string_view name(scheme s) noexcept {
  switch (s) {
    case scheme::int8: return "int8";
    case scheme::a16w8: return "a16w8";
    case scheme::mxfp8_e4m3: return "mxfp8_e4m3";
    case scheme::mxfp8_e5m2: return "mxfp8_e5m2";
    case scheme::mxfp6_e2m3: return "mxfp6_e2m3";
    case scheme::mxfp6_e3m2: return "mxfp6_e3m2";
    case scheme::mxfp4: return "mxfp4";
  }
  return "unknown";
}

/// Parses a scheme spelling; false when unknown.
[[nodiscard]] constexpr bool parse_scheme(std::string_view s, scheme& out) noexcept {
  for (auto c : all_schemes)
    if (name(c) == s) {
      out = c;
      return true;
    }
  return false;
}

/// True for the MXFP schemes.
[[nodiscard]] constexpr bool is_mx(scheme s) noexcept { return s != scheme::int8 && s != scheme::a16w8; }

/// MX element dtype of an MXFP scheme (fp32 for the integer schemes).
[[nodiscard]] constexpr dtype::id mx_element(scheme s) noexcept {
  switch (s) {
    case scheme::mxfp8_e4m3: return dtype::id::fp8e4m3;
    case scheme::mxfp8_e5m2: return dtype::id::fp8e5m2;
    case scheme::mxfp6_e2m3: return dtype::id::fp6e2m3;
    case scheme::mxfp6_e3m2: return dtype::id::fp6e3m2;
    case scheme::mxfp4: return dtype::id::fp4e2m1;
    default: return dtype::id::fp32;
  }
}

/// Activation dtype of an integer scheme (i8 / i16).
[[nodiscard]] constexpr dtype::id activation_dtype(scheme s) noexcept {
  return s == scheme::a16w8 ? dtype::id::i16 : dtype::id::i8;
}

/// Options of a lowering run.
struct options {
  scheme sch = scheme::int8;  ///< lowering scheme
  /// RESCALE rounding: SINGLE_ROUND (ExecuTorch's choice) by default; DOUBLE_ROUND only when the
  /// target has `doubleround` and multipliers are 32-bit (int8 scheme).
  tosa::rounding_mode rounding = tosa::rounding_mode::single_round;
  /// For float graphs lowered with an integer scheme: quantize weights per output channel.
  bool per_channel = false;
  /// Rule for the E8M0 block scales of the weights (ahead of time): RCEIL is torchao's and
  /// ExecuTorch's default (`MXFPOpConfig`); see `armlower/mx/scale.hpp` for the others.
  mx::scale_mode mx_scale = mx::scale_mode::rceil;
  /// For float graphs lowered with an integer scheme: calibration rows of the graph input
  /// (row-major, last dim = input features); the ranges are observed as ExecuTorch's observers do.
  std::vector<float> calibration;
};

}  // namespace armlower::passes
