/// @file tools/armlower/driver.hpp
/// The work behind the `armlower` host tool, as functions the CLI (main.cpp), the tests and
/// the examples share: load a model (`.tflite` or `.tosa`), parse spec/scheme strings, lower with
/// the library's `armlower::lower` (which decides scheme, rounding, calibration and float
/// quantization), serialize, run, check legality.
/// Every user-facing failure is an `armlower::error` value (`expected<T>`); nothing throws.
#pragma once

#include <armlower/graph/builder.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/import/tflite.hpp>
#include <armlower/io/file.hpp>
#include <armlower/io/npy.hpp>
#include <armlower/lower.hpp>
#include <armlower/cortex_m/plan.hpp>
#include <armlower/passes/cortex_m.hpp>
#include <armlower/passes/cortex_m_emit.hpp>
#include <armlower/passes/pipeline.hpp>
#include <armlower/run/interpreter.hpp>
#include <armlower/serialize/reader.hpp>
#include <armlower/serialize/writer.hpp>
#include <armlower/tosa/spec.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace armlower::tool {

/// A failure of the tool itself (a bad argument, a file of the wrong kind): `errc::invalid_argument`
/// unless told, the message one line naming the problem.
[[nodiscard]] inline armlower::error failure(std::string message, errc code = errc::invalid_argument,
                                             std::string file = {}) {
  return armlower::error(code, location{std::move(file), {}, -1, -1, {}, {}}, std::move(message));
}

/// Wall-clock stopwatch in milliseconds.
struct stopwatch {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  [[nodiscard]] double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
};

/// Kind of a model file, decided by its flatbuffer file identifier (bytes 4..7).
enum class file_kind { tflite, tosa };

/// The kind of `bytes` (read from `what`). Errors: neither "TFL3" nor "TOSA" (the importer's
/// precise message: too small / not a flatbuffer / identifier).
[[nodiscard]] inline expected<file_kind> sniff(std::span<const std::uint8_t> bytes, const std::string& what) {
  if (bytes.size() >= 8) {
    const std::string_view id(reinterpret_cast<const char*>(bytes.data() + 4), 4);
    if (id == "TFL3") return file_kind::tflite;
    if (id == "TOSA") return file_kind::tosa;
  }
  auto e = import::inspect_tflite(bytes, what);
  if (e) return failure(what + ": not a .tflite or .tosa flatbuffer", errc::malformed);
  diagnostic d = e.error().diagnostics().front();
  d.message += "; expected a .tflite (TFL3) or .tosa (TOSA) flatbuffer";
  return armlower::error(std::move(d));
}

/// Parses a TOSA spec string. Errors: "bad spec string '<s>': <reason>".
[[nodiscard]] inline expected<tosa::target> parse_spec(const std::string& s) {
  const auto r = tosa::parse(s);
  if (!r.ok()) return failure("bad spec string '" + s + "': " + std::string(r.message()));
  return r.value;
}

/// Parses a scheme name (int8, a16w8, mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4).
[[nodiscard]] inline expected<passes::scheme> parse_scheme(const std::string& s) {
  passes::scheme out{};
  if (!passes::parse_scheme(s, out)) {
    std::string all;
    for (auto x : passes::all_schemes) all += (all.empty() ? "" : ", ") + std::string(passes::name(x));
    return failure("unknown scheme '" + s + "' (valid: " + all + ")");
  }
  return out;
}

/// An imported model: its framework graph and what the importer left out.
struct model {
  std::string source;
  graph::graph graph;
  std::vector<std::size_t> imported;
  std::vector<import::left_out_op> left_out;
};

/// Loads a `.tflite` model file. Errors: io / import errors, a .tosa file, no linear layer found
/// (one diagnostic per left-out operator after the first).
[[nodiscard]] inline expected<model> load_tflite(const std::filesystem::path& p, bool strict) {
  model m;
  m.source = p.string();
  const auto bytes = io::read_bytes(p);
  if (!bytes) return bytes.error();
  const auto kind = sniff(*bytes, m.source);
  if (!kind) return kind.error();
  if (*kind != file_kind::tflite)
    return failure(m.source + ": is a .tosa file; `armlower lower` takes a .tflite model");
  auto r = import::import_tflite(*bytes, m.source, {.strict = strict});
  if (!r) return std::move(r).error();
  m.graph = std::move(r->graph);
  m.imported = std::move(r->imported);
  m.left_out = std::move(r->left_out);
  if (m.graph.operators.empty()) {
    std::string names;
    for (const auto& o : m.left_out) names += "; " + import::to_string(o);
    auto e = failure("nothing to lower: no FULLY_CONNECTED with supported operands" + names, errc::unsupported, m.source);
    for (const auto& o : m.left_out)
      e.add(diagnostic{errc::unsupported,
                       location{m.source, "tflite importer", static_cast<std::int64_t>(o.index), -1, o.name, {}},
                       o.reason});
    return e;
  }
  return m;
}

/// Reads a `.tosa` file. Errors: io errors, every reader error (one line, prefixed with the path).
/// Reader warnings (`tosa_file::warnings`) go to stderr as "<path>: warning: <text>".
[[nodiscard]] inline expected<serialize::tosa_file> load_tosa(const std::filesystem::path& p) {
  const auto bytes = io::read_bytes(p);
  if (!bytes) return bytes.error();
  if (bytes->size() >= 8 && std::string_view(reinterpret_cast<const char*>(bytes->data() + 4), 4) == "TFL3")
    return failure(p.string() + ": is a .tflite model, not a .tosa file (lower it first with `armlower lower`)");
  auto r = serialize::read(*bytes);
  if (!r) return std::move(r).error().in_file(p.string());
  for (const auto& w : r->warnings) std::fprintf(stderr, "%s: warning: %s\n", p.string().c_str(), w.c_str());
  return std::move(*r);
}

/// True when the framework graph is quantized (`armlower::is_quantized`).
[[nodiscard]] inline bool is_quantized(const graph::graph& g) { return armlower::is_quantized(g); }

/// The float linear chain of a float framework graph as MLP layers (reshapes to [N, Cin] are
/// allowed before the first layer; a relu/relu6 after a linear becomes its activation). Errors: the graph is not a single chain of float linears.
[[nodiscard]] inline expected<std::vector<graph::mlp_layer>> float_chain(const graph::graph& g) {
  std::vector<graph::mlp_layer> layers;
  std::string cur = g.inputs.size() == 1 ? g.inputs[0] : "";
  if (cur.empty()) return failure("float model quantization needs exactly one graph input");
  for (const auto& o : g.operators) {
    const auto k = std::get<graph::framework_op>(o.code);
    if (o.inputs.empty() || o.inputs[0] != cur)
      return failure("float model quantization supports a chain of linear layers; operator " +
                     std::string(o.op_name()) + " does not continue the chain");
    if (k == graph::framework_op::reshape && layers.empty()) {
      cur = o.outputs[0];
      continue;
    }
    if ((k == graph::framework_op::relu || k == graph::framework_op::relu6) && !layers.empty() &&
        layers.back().act == graph::activation::none) {
      layers.back().act = k == graph::framework_op::relu ? graph::activation::relu : graph::activation::relu6;
      cur = o.outputs[0];
      continue;
    }
    if (k != graph::framework_op::linear)
      return failure("float model quantization supports a chain of linear layers, found " + std::string(o.op_name()));
    const auto* w = g.find(o.inputs[1]);
    graph::mlp_layer l;
    l.out_features = w->shape[0];
    l.in_features = w->shape[1];
    l.weight = graph::decode_f32(w->data, graph::element_count(w->shape));
    if (o.inputs.size() > 2) {
      const auto* b = g.find(o.inputs[2]);
      l.bias = graph::decode_f32(b->data, graph::element_count(b->shape));
    }
    if (const auto* a = std::get_if<graph::linear_attr>(&o.attr)) l.act = a->fused;
    layers.push_back(std::move(l));
    cur = o.outputs[0];
  }
  return layers;
}

/// What the user asked `lower` for: the library's options (`armlower::lower_options`); what is
/// left empty is decided by `armlower::lower`.
using lower_request = armlower::lower_options;

/// A lowered model: the TOSA graph, its report, the serialized bytes and the quantization of
/// the graph input/output (when quantized), so callers can quantize inputs and dequantize outputs.
struct lowered {
  graph::graph tosa;
  passes::report report;
  serialize::format format = serialize::format::tosa_1_0;
  std::vector<std::uint8_t> bytes;
  std::optional<graph::quant_params> input_quant;
  std::optional<graph::quant_params> output_quant;
  bool calibrated_by_default = false;
};

/// Lowers a framework graph with `armlower::lower` for `t` (the library decides scheme, rounding
/// and calibration) and serializes the TOSA graph (FBS-1.0 for TOSA 1.0, FBS-1.1 draft for 1.1).
/// Errors: any of `armlower::lower`, serialization.
[[nodiscard]] inline expected<lowered> lower_to_tosa(const graph::graph& fw, const tosa::target& t,
                                                     const lower_request& req) {
  auto r = armlower::lower(fw, t, req);
  if (!r) return std::move(r).error();
  lowered out;
  out.tosa = std::move(r->graph);
  out.report = std::move(r->report);
  out.input_quant = r->input_quant;
  out.output_quant = r->output_quant;
  out.calibrated_by_default = r->calibrated_by_default;
  out.format = serialize::format_of(t.tosa_version());
  auto b = serialize::write(out.tosa, out.format);
  if (!b) return std::move(b).error();
  out.bytes = std::move(*b);
  return out;
}

/// Parses a Cortex-M target name: cortex-m55 / m85 (MVE), cortex-m4 / m7 / m33 (DSP),
/// cortex-m0 / m0plus / m3 (scalar).
[[nodiscard]] inline expected<cortex_m::isa> parse_cortex_m(const std::string& s) {
  if (s == "cortex-m55" || s == "cortex-m85") return cortex_m::isa::mve;
  if (s == "cortex-m4" || s == "cortex-m7" || s == "cortex-m33") return cortex_m::isa::dsp;
  if (s == "cortex-m0" || s == "cortex-m0plus" || s == "cortex-m3") return cortex_m::isa::scalar;
  return failure("unknown target '" + s + "' (valid: cortex-m55, cortex-m85, cortex-m4, cortex-m7, cortex-m33, "
                 "cortex-m0, cortex-m0plus, cortex-m3)");
}

/// A Cortex-M lowering: the program (owned constants, qparams of input/output, report).
struct lowered_cortex_m {
  passes::cortex_m_program program;
  bool calibrated_by_default = false;
};

/// Lowers a framework graph to a Cortex-M plan for `target` with `armlower::lower` (int8 or a16w8;
/// float models are quantized first). Errors: those of `armlower::lower`.
[[nodiscard]] inline expected<lowered_cortex_m> lower_to_cortex_m(const graph::graph& fw, cortex_m::isa target,
                                                                  const lower_request& req) {
  auto r = armlower::lower(fw, target, req);
  if (!r) return std::move(r).error();
  return lowered_cortex_m{std::move(r->program), r->calibrated_by_default};
}

/// Runs a Cortex-M program on the host (armlower's CMSIS-form kernels) on quantized input
/// values (int8/int16 as int64). Errors: the kernel status, as text.
[[nodiscard]] inline expected<std::vector<std::int64_t>> run_cortex_m(const passes::cortex_m_program& p,
                                                                      std::span<const std::int64_t> x) {
  const auto table = p.layer_table();
  const cortex_m::plan pl{table.data(), table.size(), p.isa};
  const auto batches = p.batches();
  const bool s16 = p.activation == dtype::id::i16;
  const std::size_t eb = s16 ? 2 : 1;
  std::vector<std::uint64_t> in_buf((x.size() * eb + 7) / 8 + 1), out_buf(cortex_m::output_bytes(pl, batches) / 8 + 2),
      scratch(cortex_m::scratch_bytes(pl, batches) / 8 + 1);
  auto* in = reinterpret_cast<std::byte*>(in_buf.data());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (s16) {
      const auto v = static_cast<std::int16_t>(x[i]);
      std::memcpy(in + 2 * i, &v, 2);
    } else {
      const auto v = static_cast<std::int8_t>(x[i]);
      std::memcpy(in + i, &v, 1);
    }
  }
  const auto st = cortex_m::run_plan(pl, batches, {in, x.size() * eb},
                                     {reinterpret_cast<std::byte*>(out_buf.data()), out_buf.size() * 8},
                                     {reinterpret_cast<std::byte*>(scratch.data()), scratch.size() * 8});
  if (st != kernels::status::ok) return failure(std::string("cortex-m plan: ") + kernels::to_string(st), errc::kernel);
  const auto n = cortex_m::output_bytes(pl, batches) / eb;
  std::vector<std::int64_t> y(n);
  const auto* o = reinterpret_cast<const std::byte*>(out_buf.data());
  for (std::size_t i = 0; i < n; ++i) {
    if (s16) {
      std::int16_t v;
      std::memcpy(&v, o + 2 * i, 2);
      y[i] = v;
    } else {
      std::int8_t v;
      std::memcpy(&v, o + i, 1);
      y[i] = v;
    }
  }
  return y;
}

/// The operator number a user sees for `graph.operators[i]`: its index in the file when the
/// reader gave one (`serialize::tosa_file::operator_index`, CONST counted), else `i`.
[[nodiscard]] inline std::size_t file_op_index(std::span<const std::size_t> file_index, std::size_t i) {
  return i < file_index.size() ? file_index[i] : i;
}

/// Runs a TOSA graph on `.npy` inputs (one per graph input, in order), with the interpreter
/// options `opt` (per-tensor size limit). Errors name operators by `file_index` (see
/// `file_op_index`). Errors: count, dtype or shape mismatch (naming the input), any interpreter
/// error.
[[nodiscard]] inline expected<std::vector<run::value>> run_graph(const graph::graph& g,
                                                                const std::vector<io::npy_array>& in,
                                                                const std::vector<std::string>& names,
                                                                std::span<const std::size_t> file_index = {},
                                                                const run::options& opt = {}) {
  if (in.size() != g.inputs.size())
    return failure("the graph has " + std::to_string(g.inputs.size()) + " input(s), " + std::to_string(in.size()) +
                   " --input given");
  std::vector<run::value> vals;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto* t = g.find(g.inputs[i]);
    if (!t) return failure("graph input '" + g.inputs[i] + "' is not a tensor of the graph", errc::invalid_graph);
    if (auto c = io::check_npy_matches(in[i], *t, names[i]); !c) return std::move(c).error();
    vals.push_back(run::decode(t->type, t->shape, in[i].data));  // dtype and size checked above
  }
  auto r = run::run(g, vals, opt);
  if (!r) {
    auto d = r.error().diagnostics().front();
    if (d.where.op_index >= 0)
      d.where.op_index = static_cast<std::int64_t>(file_op_index(file_index, static_cast<std::size_t>(d.where.op_index)));
    return armlower::error(std::move(d));  // the caller names the file (error::in_file)
  }
  return std::move(r->outputs);
}

/// A run::value as a `.npy` array. Errors: dtypes .npy cannot hold (INT48, FP8, ...).
[[nodiscard]] inline expected<io::npy_array> to_npy(const run::value& v) {
  if (io::npy_element_bytes(v.type) == 0)
    return failure("output dtype " + std::string(dtype::name(v.type)) + " cannot be written as .npy", errc::unsupported);
  return io::npy_array{v.type, v.shape, run::encode(v)};
}

/// One legality finding of `check_graph`.
struct finding {
  std::string where;  ///< "op #3 CONV2D" or "tensor 'w'"
  std::string rule;   ///< the rule, as a sentence
};

/// Every tensor dtype and every operator of the TOSA graph `g` that `t` does not allow, with the
/// rule: the findings of `passes::validate_graph` (all of them). An operator one of whose tensors
/// has a dtype `t` does not allow is reported through that tensor only. Operators are numbered
/// by `file_index` (see `file_op_index`).
[[nodiscard]] inline std::vector<finding> check_graph(const graph::graph& g, const tosa::target& t,
                                                      std::span<const std::size_t> file_index = {}) {
  std::vector<finding> out;
  const auto r = passes::validate_graph(g, t);
  if (r) return out;
  auto gated = [&](const std::string& n) {
    const auto* tn = g.find(n);
    return tn != nullptr && !tosa::check_tensor(t, tn->type).ok();
  };
  for (const auto& d : r.error().diagnostics()) {
    if (d.where.graph_op < 0) {
      const auto* tn = g.find(d.where.tensor);
      out.push_back({"tensor '" + d.where.tensor + "'" +
                         (tn != nullptr && d.code == errc::not_legal ? " " + std::string(dtype::name(tn->type)) : ""),
                     d.message});
      continue;
    }
    const auto i = static_cast<std::size_t>(d.where.graph_op);
    const auto& op = g.operators[i];
    bool tensor_ok = true;
    for (const auto* v : {&op.inputs, &op.outputs})
      for (const auto& n : *v) tensor_ok = tensor_ok && !gated(n);
    if (!tensor_ok) continue;
    out.push_back({"op #" + std::to_string(file_op_index(file_index, i)) + " " + std::string(op.op_name()),
                   d.where.tensor.empty() ? d.message : "tensor '" + d.where.tensor + "': " + d.message});
  }
  return out;
}

/// Max |a − b| and SQNR (dB, 10·log10(Σb² / Σ(a−b)²); +inf when equal) of `a` against reference `b`.
struct error_stats {
  double max_abs = 0;
  double sqnr_db = 0;
};
[[nodiscard]] inline error_stats compare(std::span<const float> a, std::span<const float> ref) {
  double se = 0, sr = 0, mx = 0;
  for (std::size_t i = 0; i < a.size() && i < ref.size(); ++i) {
    const double d = static_cast<double>(a[i]) - ref[i];
    se += d * d;
    sr += static_cast<double>(ref[i]) * ref[i];
    mx = std::max(mx, std::abs(d));
  }
  return {mx, se == 0 ? INFINITY : 10.0 * std::log10(sr / se)};
}

/// Real values of a run::value: reals as is, integers dequantized with `q` (per tensor).
[[nodiscard]] inline std::vector<float> real_values(const run::value& v, const std::optional<graph::quant_params>& q) {
  if (!v.reals.empty()) return v.reals;
  if (q) return graph::dequantize(v.ints.widened(), *q);
  const auto w = v.ints.widened();
  return std::vector<float>(w.begin(), w.end());
}

}  // namespace armlower::tool
