/// @file armlower/passes/report.hpp
/// The lowering report: one per run of the pipeline. Records which pass did what, the resulting
/// operators and tensor bytes per dtype, and warnings (e.g. zero-padding of an MXFP contraction
/// dimension). A plain struct (JSON-able: `to_json()`), with a human-readable `to_text()`.
/// Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace armlower::passes {

/// What one pass did.
struct pass_record {
  std::string pass;          ///< pass name, e.g. "DecomposeLinear"
  std::string detail;        ///< what it did, e.g. "2 linear -> RESHAPE + CONV2D 1x1 + RESHAPE"
  std::int64_t changed = 0;  ///< number of operators it rewrote or created
  double milliseconds = 0;   ///< wall time of the pass
};

/// Tensors of one dtype in the lowered graph.
struct dtype_usage {
  std::string dtype;                 ///< TOSA spelling ("INT8")
  std::int64_t tensors = 0;          ///< number of tensors
  std::int64_t constant_tensors = 0; ///< of which constants
  std::int64_t constant_bytes = 0;   ///< payload bytes of the constants (wire encoding, no padding)
  std::int64_t elements = 0;         ///< elements over all tensors of the dtype
};

/// Report of one lowering run.
struct report {
  std::string spec;                        ///< target spec string ("TOSA-1.0+INT+int16")
  std::string scheme;                      ///< scheme name ("a16w8")
  std::vector<pass_record> passes;         ///< in execution order
  std::map<std::string, std::int64_t> ops; ///< operator name -> count in the lowered graph
  std::vector<dtype_usage> dtypes;         ///< per dtype present in the lowered graph
  std::vector<std::string> warnings;       ///< things the user should know (padding, fallbacks)
  std::int64_t total_constant_bytes = 0;   ///< sum of constant payload bytes

  /// Fills `ops`, `dtypes` and `total_constant_bytes` from a lowered graph.
  void summarize(const graph::graph& g) {
    ops.clear();
    dtypes.clear();
    total_constant_bytes = 0;
    for (const auto& o : g.operators) ++ops[std::string(o.op_name())];
    std::vector<dtype_usage> by(dtype::count);
    for (const auto& t : g.tensors) {
      auto& u = by[static_cast<std::size_t>(t.type)];
      ++u.tensors;
      u.elements += graph::element_count(t.shape);
      if (t.is_constant) {
        ++u.constant_tensors;
        u.constant_bytes += static_cast<std::int64_t>(t.data.size());
        total_constant_bytes += static_cast<std::int64_t>(t.data.size());
      }
    }
    for (std::size_t i = 0; i < by.size(); ++i)
      if (by[i].tensors != 0) {
        by[i].dtype = std::string(dtype::name(static_cast<dtype::id>(i)));
        dtypes.push_back(by[i]);
      }
  }

  /// Multi-line human-readable text.
  [[nodiscard]] std::string to_text() const {
    std::string s = "lowering report: spec " + spec + ", scheme " + scheme + "\n";
    s += "passes:\n";
    for (const auto& p : passes)
      s += "  " + p.pass + ": " + p.detail + " (" + std::to_string(p.changed) + " ops, " + fmt_ms(p.milliseconds) +
           " ms)\n";
    s += "operators:";
    for (const auto& [k, v] : ops) s += " " + k + "=" + std::to_string(v);
    s += "\ntensors by dtype:\n";
    for (const auto& d : dtypes)
      s += "  " + d.dtype + ": " + std::to_string(d.tensors) + " tensors (" + std::to_string(d.constant_tensors) +
           " constant, " + std::to_string(d.constant_bytes) + " bytes), " + std::to_string(d.elements) + " elements\n";
    s += "constant bytes: " + std::to_string(total_constant_bytes) + "\n";
    for (const auto& w : warnings) s += "warning: " + w + "\n";
    return s;
  }

  /// The report as a JSON object (keys: spec, scheme, passes[], ops{}, dtypes[], warnings[],
  /// total_constant_bytes).
  [[nodiscard]] std::string to_json() const {
    std::string s = "{\"spec\":" + quote(spec) + ",\"scheme\":" + quote(scheme) + ",\"passes\":[";
    for (std::size_t i = 0; i < passes.size(); ++i) {
      const auto& p = passes[i];
      s += (i ? "," : "") + std::string("{\"pass\":") + quote(p.pass) + ",\"detail\":" + quote(p.detail) +
           ",\"changed\":" + std::to_string(p.changed) + ",\"milliseconds\":" + fmt_ms(p.milliseconds) + "}";
    }
    s += "],\"ops\":{";
    bool first = true;
    for (const auto& [k, v] : ops) {
      s += (first ? "" : ",") + quote(k) + ":" + std::to_string(v);
      first = false;
    }
    s += "},\"dtypes\":[";
    for (std::size_t i = 0; i < dtypes.size(); ++i) {
      const auto& d = dtypes[i];
      s += (i ? "," : "") + std::string("{\"dtype\":") + quote(d.dtype) + ",\"tensors\":" + std::to_string(d.tensors) +
           ",\"constant_tensors\":" + std::to_string(d.constant_tensors) +
           ",\"constant_bytes\":" + std::to_string(d.constant_bytes) + ",\"elements\":" + std::to_string(d.elements) +
           "}";
    }
    s += "],\"warnings\":[";
    for (std::size_t i = 0; i < warnings.size(); ++i) s += (i ? "," : "") + quote(warnings[i]);
    s += "],\"total_constant_bytes\":" + std::to_string(total_constant_bytes) + "}";
    return s;
  }

 private:
  static std::string fmt_ms(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", ms);
    return buf;
  }
  static std::string quote(std::string_view v) {
    std::string r = "\"";
    for (char c : v) {
      switch (c) {
        case '"': r += "\\\""; break;
        case '\\': r += "\\\\"; break;
        case '\n': r += "\\n"; break;
        case '\t': r += "\\t"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            r += b;
          } else {
            r += c;
          }
      }
    }
    return r + "\"";
  }
};

}  // namespace armlower::passes
