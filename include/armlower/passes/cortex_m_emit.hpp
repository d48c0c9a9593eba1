/// @file armlower/passes/cortex_m_emit.hpp
/// Writes a `cortex_m_program` as a self-contained C++ header for firmware: the layer constants
/// as `inline constexpr` arrays and a `constexpr armlower::cortex_m::layer` table plus a
/// `constexpr armlower::cortex_m::plan`, all in a namespace of the caller's choice:
///
///     #include "my_plan.hpp"
///     std::array<std::byte, my_plan::scratch_size> scratch;           // caller-owned
///     auto s = armlower::cortex_m::run_plan(my_plan::plan, my_plan::batches, in, out, scratch);
///
/// or, linking only the kernel cases the plan needs (`my_plan::features`, the plan's
/// `cortex_m::features_of`, checked by a `static_assert` in the header; `A` the activation dtype):
///
///     auto s = armlower::cortex_m::run_plan<armlower::dtype::id::i8, my_plan::features>(
///         my_plan::plan, my_plan::batches, in, out, scratch);
///
/// An MVE int8 plan whose layers suit the 8-row Helium kernel (`pack_pays`) stores every s8 layer's
/// weights packed by `kernels::pack_weights_s8` (at generation time) instead of row-major
/// (`.weights = nullptr`, `.packed_weights = layerN_packed_weights`) and states `my_plan::packed`
/// (true), so firmware links only the packed kernel:
///
///     auto s = armlower::cortex_m::run_plan<armlower::dtype::id::i8, my_plan::features, my_plan::packed>(
///         my_plan::plan, my_plan::batches, in, out, scratch);
///
/// The header includes only `<armlower/cortex_m/plan.hpp>` (firmware-clean) and `<cstdint>`,
/// `<cstddef>`. Hosted only (builds a std::string).
#pragma once

#include <armlower/cortex_m/plan.hpp>
#include <armlower/kernels/linear.hpp>
#include <armlower/passes/cortex_m.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace armlower::passes {

namespace detail {
template <class T>
void emit_array(std::string& s, std::string_view type, const std::string& name, const std::vector<T>& v) {
  s += "inline constexpr " + std::string(type) + " " + name + "[" + std::to_string(v.size()) + "] = {";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i % 24 == 0) s += "\n    ";
    if constexpr (sizeof(T) == 8) {
      // INT64_MIN cannot be written as a literal; every value here fits int48 anyway.
      s += std::to_string(static_cast<long long>(v[i])) + "LL";
    } else if constexpr (sizeof(T) == 4) {
      if (static_cast<std::int64_t>(v[i]) == -2147483648LL) s += "(-2147483647 - 1)";
      else s += std::to_string(static_cast<long long>(v[i]));
    } else {
      s += std::to_string(static_cast<int>(v[i]));
    }
    s += ",";
  }
  s += "\n};\n";
}
}  // namespace detail

/// True if the s8 plan `prog` for MVE is expected to run faster with all of its weights in the
/// `kernels::pack_weights_s8` layout (the 8-row Helium kernel) than row-major: when the padding of
/// that layout (rows to a multiple of 8, cols to 16) adds at most 1/16 to the plan's MACs. The
/// packed kernel saves 7–14 % of the instructions per MAC on whole 8-row groups (QEMU counts,
/// benchmarks/RESULTS.md "Cortex-M55 instruction counts": 0.144 vs 0.155 at 1024², 0.168 vs 0.189
/// at 256², 0.306 vs 0.354 at 64²) but computes the padding rows at full price (256 × N: 10 rows
/// cost 959 instructions packed against 773 row-major, 16 rows 917 against 950; 4000 × 4: 0.29 vs
/// 0.16 per MAC): a padding of at most 1/16 (6.25 %) of the MACs stays below the smallest measured
/// gain. A plan is packed as a whole, so its firmware links one s8 kernel (`run_plan<A, F, true>`).
/// False for DSP/scalar plans and a16w8 plans (no packed kernel).
[[nodiscard]] inline bool pack_pays(const cortex_m_program& prog) {
  if (prog.isa != cortex_m::isa::mve || prog.activation != dtype::id::i8 || prog.layers.empty()) return false;
  std::uint64_t macs = 0, padded = 0;
  for (const auto& l : prog.layers) {
    if (l.kind != cortex_m::layer_kind::linear_s8) return false;
    macs += static_cast<std::uint64_t>(l.rows) * static_cast<std::uint64_t>(l.cols);
    padded += kernels::packed_weights_s8_size(l.rows, l.cols);
  }
  return padded * 16 <= macs * 17;
}

/// How `emit_plan_header` stores the weights of an MVE int8 plan (other plans: always row-major).
enum class weight_packing : std::uint8_t {
  automatic,  ///< packed (`kernels::pack_weights_s8`) when `pack_pays`, else row-major
  never,      ///< row-major
  always,     ///< packed, whatever the padding costs
};

/// Options of `emit_plan_header`.
struct plan_header_options {
  weight_packing packing = weight_packing::automatic;  ///< see `weight_packing`
};

/// True if `emit_plan_header(prog, ns, o)` stores the weights packed (see `weight_packing`).
[[nodiscard]] inline bool packs(const cortex_m_program& prog, const plan_header_options& o) {
  switch (o.packing) {
    case weight_packing::never: return false;
    case weight_packing::automatic: return pack_pays(prog);
    case weight_packing::always: break;
  }
  return prog.isa == cortex_m::isa::mve && prog.activation == dtype::id::i8;  // the plans with a packed kernel
}

/// The C++ header text of `prog` in namespace `ns` (a valid C++ identifier or `a::b` path).
/// Defines: `<ns>::layers[]`, `<ns>::plan`, `<ns>::batches` (rows of the lowered input shape),
/// `<ns>::input_size` / `output_size` (elements), `<ns>::scratch_size` (bytes for `batches`),
/// `<ns>::input_scale`, `input_zero_point`, `output_scale`, `output_zero_point`, `<ns>::features`
/// (`cortex_m::features_of`) and `<ns>::packed`: true when `packs(prog, o)` (by default: an MVE int8
/// plan for which `pack_pays`) — then
/// every layer holds only `layerN_packed_weights` (`kernels::pack_weights_s8` of its weights,
/// `kernels::packed_weights_s8_size(rows, cols)` bytes; `.weights = nullptr`) and firmware calls
/// `run_plan<A, features, packed>`; else `layerN_weights` (row-major [rows][cols]).
[[nodiscard]] inline std::string emit_plan_header(const cortex_m_program& prog, std::string_view ns,
                                                  const plan_header_options& o = {}) {
  const std::string n(ns);
  const bool packed = packs(prog, o);
  std::string s = "// Generated by armlower (passes/cortex_m_emit.hpp): Cortex-M plan of " +
                  std::to_string(prog.layers.size()) + " fully-connected layer(s), " +
                  std::string(prog.activation == dtype::id::i8 ? "int8" : "a16w8") + ", " +
                  (prog.isa == cortex_m::isa::mve ? "MVE (kernel_sum)" : prog.isa == cortex_m::isa::dsp ? "DSP (bias)" : "scalar (bias)") +
                  ". Do not edit.\n#pragma once\n\n#include <armlower/cortex_m/plan.hpp>\n\n#include <cstddef>\n#include <cstdint>\n\n";
  s += "namespace " + n + " {\n\n";
  for (std::size_t i = 0; i < prog.layers.size(); ++i) {
    const auto& l = prog.layers[i];
    const std::string p = "layer" + std::to_string(i) + "_";
    s += "// layer " + std::to_string(i) + ": " + l.name + " [" + std::to_string(l.rows) + " x " + std::to_string(l.cols) + "]\n";
    if (packed) {
      std::vector<std::int8_t> pw(kernels::packed_weights_s8_size(l.rows, l.cols));
      // Cannot fail for a lowered layer (rows, cols ≥ 1); if it did, the empty array would not compile
      // (and the static_assert below names the size rule).
      if (kernels::pack_weights_s8(l.weights.data(), l.rows, l.cols, pw.data(), pw.size()) != status::ok) pw.clear();
      detail::emit_array(s, "std::int8_t", p + "packed_weights", pw);
      s += "static_assert(sizeof " + p + "packed_weights == armlower::kernels::packed_weights_s8_size(" +
           std::to_string(l.rows) + ", " + std::to_string(l.cols) + "));\n";
    } else {
      detail::emit_array(s, "std::int8_t", p + "weights", l.weights);
    }
    if (!l.bias.empty()) detail::emit_array(s, "std::int32_t", p + "bias", l.bias);
    if (!l.kernel_sum.empty()) detail::emit_array(s, "std::int32_t", p + "kernel_sum", l.kernel_sum);
    if (!l.bias_s64.empty()) detail::emit_array(s, "std::int64_t", p + "bias_s64", l.bias_s64);
    detail::emit_array(s, "std::int32_t", p + "multiplier", l.multiplier);
    detail::emit_array(s, "std::int32_t", p + "shift", l.shift);
    s += "\n";
  }
  s += "inline constexpr armlower::cortex_m::layer layers[" + std::to_string(prog.layers.size()) + "] = {\n";
  for (std::size_t i = 0; i < prog.layers.size(); ++i) {
    const auto& l = prog.layers[i];
    const std::string p = "layer" + std::to_string(i) + "_";
    // Appended piece by piece (no temporary strings per layer).
    const auto field = [&s](const char* key, const std::string& value) {
      s += key;
      s += value;
    };
    const auto array_or_null = [&p](bool empty, const char* suffix) { return empty ? std::string("nullptr") : p + suffix; };
    field("    {.kind = armlower::cortex_m::layer_kind::",
          l.kind == cortex_m::layer_kind::linear_s8 ? "linear_s8" : "linear_s16");
    field(", .cols = ", std::to_string(l.cols));
    field(", .rows = ", std::to_string(l.rows));
    field(", .weights = ", packed ? std::string("nullptr") : p + "weights");
    if (packed) field(", .packed_weights = ", p + "packed_weights");
    field(", .bias = ", array_or_null(l.bias.empty(), "bias"));
    field(", .kernel_sum = ", array_or_null(l.kernel_sum.empty(), "kernel_sum"));
    field(", .bias_s64 = ", array_or_null(l.bias_s64.empty(), "bias_s64"));
    field(", .input_offset = ", std::to_string(l.input_offset));
    field(", .filter_offset = ", std::to_string(l.filter_offset));
    field(", .output_offset = ", std::to_string(l.output_offset));
    field(", .multiplier = ", p + "multiplier");
    field(", .shift = ", p + "shift");
    field(", .per_channel = ", l.per_channel ? "true" : "false");
    field(", .activation_min = ", std::to_string(l.activation_min));
    field(", .activation_max = ", std::to_string(l.activation_max));
    s += "},\n";
  }
  s += "};\n\n";
  s += "inline constexpr armlower::cortex_m::plan plan{layers, " + std::to_string(prog.layers.size()) +
       ", armlower::cortex_m::isa::" +
       std::string(prog.isa == cortex_m::isa::mve ? "mve" : prog.isa == cortex_m::isa::dsp ? "dsp" : "scalar") + "};\n";
  const auto batches = prog.batches();
  s += "/// The kernel cases this plan needs (cortex_m::features_of): run_plan<A, features> links only those.\n";
  s += "inline constexpr armlower::kernels::linear_features features = armlower::cortex_m::features_of(plan);\n";
  s += "static_assert(armlower::cortex_m::admits(features, plan));\n";
  s += "/// Whether the layers hold packed weights (kernels::pack_weights_s8): firmware calls run_plan<A, features, packed>.\n";
  s += std::string("inline constexpr bool packed = ") + (packed ? "true" : "false") + ";\n";
  s += "inline constexpr std::int32_t batches = " + std::to_string(batches) + ";\n";
  s += "inline constexpr std::size_t input_size = " +
       std::to_string(static_cast<std::int64_t>(batches) * prog.layers.front().cols) + ";\n";
  s += "inline constexpr std::size_t output_size = " +
       std::to_string(static_cast<std::int64_t>(batches) * prog.layers.back().rows) + ";\n";
  s += "inline constexpr std::size_t scratch_size = armlower::cortex_m::scratch_bytes(plan, batches);\n";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(prog.input_quant.scale.at(0)));
  s += "inline constexpr float input_scale = " + std::string(buf) + "f;\n";
  s += "inline constexpr std::int32_t input_zero_point = " + std::to_string(prog.input_quant.zero_point.at(0)) + ";\n";
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(prog.output_quant.scale.at(0)));
  s += "inline constexpr float output_scale = " + std::string(buf) + "f;\n";
  s += "inline constexpr std::int32_t output_zero_point = " + std::to_string(prog.output_quant.zero_point.at(0)) + ";\n";
  s += "static_assert(armlower::cortex_m::validate(plan) == armlower::status::ok);\n";
  s += "\n}  // namespace " + n + "\n";
  return s;
}

}  // namespace armlower::passes
