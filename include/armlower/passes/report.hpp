/// @file armlower/passes/report.hpp
/// The lowering report: one per run of the pipeline. Records which pass did what, the resulting
/// operators and tensor bytes per dtype, and warnings (e.g. zero-padding of an MXFP contraction
/// dimension). A plain struct (JSON-able: `to_json()`), with a human-readable `to_text()`.
/// Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>

#include <charconv>
#include <cmath>
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

/// One graph input or output of the lowered graph, with the quantization a caller needs to
/// quantize inputs (q = round(x / scale) + zero_point) and dequantize outputs.
struct graph_io {
  std::string role;                     ///< "input" or "output"
  std::string name;                     ///< tensor name in the lowered graph
  std::string dtype;                    ///< TOSA spelling ("INT8", "FP32")
  std::vector<std::int32_t> shape;      ///< row-major
  std::vector<float> scale;             ///< empty when not quantized; one per channel otherwise
  std::vector<std::int32_t> zero_point; ///< as `scale`
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
  std::vector<graph_io> io;                ///< graph inputs, then outputs (quantization: `set_quant`)

  /// Records the quantization of the graph input or output `name` (no-op when it is not one).
  void set_quant(std::string_view name, const graph::quant_params& q) {
    for (auto& x : io)
      if (x.name == name) x.scale = q.scale, x.zero_point = q.zero_point;
  }

  /// Fills `ops`, `dtypes` and `total_constant_bytes` from a lowered graph.
  void summarize(const graph::graph& g) {
    ops.clear();
    dtypes.clear();
    io.clear();
    total_constant_bytes = 0;
    for (const auto* list : {&g.inputs, &g.outputs})
      for (const auto& n : *list) {
        graph_io x{list == &g.inputs ? "input" : "output", n, "", {}, {}, {}};
        if (const auto* t = g.find(n)) {
          x.dtype = std::string(dtype::name(t->type));
          x.shape = t->shape;
          if (t->quant) x.scale = t->quant->scale, x.zero_point = t->quant->zero_point;
        }
        io.push_back(std::move(x));
      }
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
    for (const auto& x : io) {
      s += "graph " + x.role + " '" + x.name + "' " + x.dtype + " [";
      for (std::size_t i = 0; i < x.shape.size(); ++i) s += (i ? "," : "") + std::to_string(x.shape[i]);
      s += "]";
      if (x.scale.size() == 1)
        s += ": scale " + fmt_real(x.scale[0]) + ", zero point " + std::to_string(x.zero_point.empty() ? 0 : x.zero_point[0]);
      else if (!x.scale.empty())
        s += ": " + std::to_string(x.scale.size()) + " per-channel scales";
      else
        s += ": not quantized";
      s += "\n";
    }
    for (const auto& w : warnings) s += "warning: " + w + "\n";
    return s;
  }

  /// The report as one RFC 8259 JSON object (keys: spec, scheme, passes[], ops{}, dtypes[],
  /// io[] {role, name, dtype, shape[], scale, zero_point} (scale/zero_point: a number for a
  /// per-tensor quantized tensor, an array per channel, null when not quantized), warnings[],
  /// total_constant_bytes). Strings: UTF-8, every byte that is not part of a valid UTF-8 sequence
  /// replaced by U+FFFD.
  /// Non-finite numbers (never expected) are written as the strings "inf", "-inf", "nan".
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
    s += "],\"io\":[";
    for (std::size_t i = 0; i < io.size(); ++i) {
      const auto& x = io[i];
      s += (i ? "," : "") + std::string("{\"role\":") + quote(x.role) + ",\"name\":" + quote(x.name) +
           ",\"dtype\":" + quote(x.dtype) + ",\"shape\":[";
      for (std::size_t k = 0; k < x.shape.size(); ++k) s += (k ? "," : "") + std::to_string(x.shape[k]);
      s += "],\"scale\":";
      if (x.scale.empty()) s += "null";
      else if (x.scale.size() == 1) s += fmt_real(x.scale[0]);
      else {
        s += "[";
        for (std::size_t k = 0; k < x.scale.size(); ++k) s += (k ? "," : "") + fmt_real(x.scale[k]);
        s += "]";
      }
      s += ",\"zero_point\":";
      if (x.scale.empty()) s += "null";
      else if (x.zero_point.size() == 1) s += std::to_string(x.zero_point[0]);
      else {
        s += "[";
        for (std::size_t k = 0; k < x.zero_point.size(); ++k) s += (k ? "," : "") + std::to_string(x.zero_point[k]);
        s += "]";
      }
      s += "}";
    }
    s += "],\"warnings\":[";
    for (std::size_t i = 0; i < warnings.size(); ++i) s += (i ? "," : "") + quote(warnings[i]);
    s += "],\"total_constant_bytes\":" + std::to_string(total_constant_bytes) + "}";
    return s;
  }

 private:
  static std::string fmt_ms(double ms) {
    if (!std::isfinite(ms)) return ms != ms ? "\"nan\"" : ms > 0 ? "\"inf\"" : "\"-inf\"";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.3f", ms);
    return buf;
  }
  /// Shortest decimal that reads back as the same float (JSON number, or a string if non-finite).
  static std::string fmt_real(float v) {
    if (!std::isfinite(v)) return v != v ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"";
    char buf[48];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  }
  /// A JSON string literal of `v` (RFC 8259): '"' '\\' and controls escaped; valid UTF-8
  /// (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF) copied; every other byte
  /// replaced by U+FFFD.
  static std::string quote(std::string_view v) {
    std::string r = "\"";
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n;) {
      const unsigned char c = p[i];
      if (c < 0x80) {
        if (c == '"') r += "\\\"";
        else if (c == '\\') r += "\\\\";
        else if (c == '\n') r += "\\n";
        else if (c == '\t') r += "\\t";
        else if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(c));
          r += b;
        } else r += static_cast<char>(c);
        ++i;
        continue;
      }
      const std::size_t len = utf8_length(p + i, n - i);
      if (len == 0) {
        r += "\xEF\xBF\xBD";  // U+FFFD
        ++i;
      } else {
        r.append(v.substr(i, len));
        i += len;
      }
    }
    return r + "\"";
  }
  /// Length of the valid UTF-8 sequence at `p` (lead byte ≥ 0x80), 0 when invalid.
  static std::size_t utf8_length(const unsigned char* p, std::size_t avail) {
    const unsigned char c = p[0];
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return 0;
    if (avail < len || p[1] < lo || p[1] > hi) return 0;
    for (std::size_t k = 2; k < len; ++k)
      if ((p[k] & 0xC0) != 0x80) return 0;
    return len;
  }
};

}  // namespace armlower::passes
