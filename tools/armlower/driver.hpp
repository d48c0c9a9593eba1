/// @file tools/armlower/driver.hpp
/// The work behind the `armlower` host tool, as functions the CLI (main.cpp), the tests and
/// the examples share: load a model (`.tflite` or `.tosa`), parse spec/scheme strings, quantize
/// float models for an integer scheme, lower to TOSA, serialize, run, check legality.
/// Every user-facing failure is a `tool_error` whose `what()` is one line naming the problem.
#pragma once

#include <armlower/graph/builder.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/import/tflite.hpp>
#include <armlower/io/file.hpp>
#include <armlower/io/npy.hpp>
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
#include <stdexcept>
#include <string>
#include <vector>

namespace armlower::tool {

/// A failure to report to the user: one line, no trailing newline.
class tool_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Wall-clock stopwatch in milliseconds.
struct stopwatch {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  [[nodiscard]] double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
};

/// Kind of a model file, decided by its flatbuffer file identifier (bytes 4..7).
enum class file_kind { tflite, tosa };

/// The kind of `bytes` (read from `what`). Errors: neither "TFL3" nor "TOSA".
[[nodiscard]] inline file_kind sniff(std::span<const std::uint8_t> bytes, const std::string& what) {
  if (bytes.size() >= 8) {
    const std::string_view id(reinterpret_cast<const char*>(bytes.data() + 4), 4);
    if (id == "TFL3") return file_kind::tflite;
    if (id == "TOSA") return file_kind::tosa;
  }
  // Let the importer produce the precise message (too small / not a flatbuffer / identifier).
  try {
    (void)import::inspect_tflite(bytes, what);
  } catch (const import::import_error& e) {
    throw tool_error(std::string(e.what()) + "; expected a .tflite (TFL3) or .tosa (TOSA) flatbuffer");
  }
  throw tool_error(what + ": not a .tflite or .tosa flatbuffer");
}

/// Parses a TOSA spec string. Errors: "bad spec string '<s>': <reason>".
[[nodiscard]] inline tosa::target parse_spec(const std::string& s) {
  const auto r = tosa::parse(s);
  if (!r.ok()) throw tool_error("bad spec string '" + s + "': " + std::string(r.message()));
  return r.value;
}

/// Parses a scheme name (int8, a16w8, mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4).
[[nodiscard]] inline passes::scheme parse_scheme(const std::string& s) {
  passes::scheme out{};
  if (!passes::parse_scheme(s, out)) {
    std::string all;
    for (auto x : passes::all_schemes) all += (all.empty() ? "" : ", ") + std::string(passes::name(x));
    throw tool_error("unknown scheme '" + s + "' (valid: " + all + ")");
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

/// Loads a `.tflite` model file. Errors: io / import errors (one line), no linear layer found.
[[nodiscard]] inline model load_tflite(const std::filesystem::path& p, bool strict) {
  model m;
  m.source = p.string();
  try {
    const auto bytes = io::read_bytes(p);
    if (sniff(bytes, m.source) != file_kind::tflite)
      throw tool_error(m.source + ": is a .tosa file; `armlower lower` takes a .tflite model");
    auto r = import::import_tflite(bytes, m.source, {.strict = strict});
    m.graph = std::move(r.graph);
    m.imported = std::move(r.imported);
    m.left_out = std::move(r.left_out);
  } catch (const io::io_error& e) {
    throw tool_error(e.what());
  } catch (const import::import_error& e) {
    throw tool_error(e.what());
  }
  if (m.graph.operators.empty()) {
    std::string msg = m.source + ": nothing to lower: no FULLY_CONNECTED with supported operands";
    for (const auto& o : m.left_out) msg += "; " + import::to_string(o);
    throw tool_error(msg);
  }
  return m;
}

/// Reads a `.tosa` file. Errors: io errors, every reader error (one line, prefixed with the path).
/// Reader warnings (`tosa_file::warnings`) go to stderr as "<path>: warning: <text>".
[[nodiscard]] inline serialize::tosa_file load_tosa(const std::filesystem::path& p) {
  std::vector<std::uint8_t> bytes;
  try {
    bytes = io::read_bytes(p);
  } catch (const io::io_error& e) {
    throw tool_error(e.what());
  }
  if (bytes.size() >= 8 && std::string_view(reinterpret_cast<const char*>(bytes.data() + 4), 4) == "TFL3")
    throw tool_error(p.string() + ": is a .tflite model, not a .tosa file (lower it first with `armlower lower`)");
  auto r = serialize::read(bytes);
  if (!r) throw tool_error(armlower::error(r.error()).in_file(p.string()).line());
  for (const auto& w : r->warnings) std::fprintf(stderr, "%s: warning: %s\n", p.string().c_str(), w.c_str());
  return std::move(*r);
}

/// True when the framework graph is quantized (its linear inputs carry qparams).
[[nodiscard]] inline bool is_quantized(const graph::graph& g) {
  for (const auto& o : g.operators)
    if (!o.is_tosa() && std::get<graph::framework_op>(o.code) == graph::framework_op::linear)
      if (const auto* x = g.find(o.inputs[0]); x && x->quant) return true;
  return false;
}

/// The float linear chain of a float framework graph as MLP layers (reshapes to [N, Cin] are
/// allowed before the first layer; a relu/relu6 after a linear becomes its activation). Errors: the graph is not a single chain of float linears.
[[nodiscard]] inline std::vector<graph::mlp_layer> float_chain(const graph::graph& g) {
  std::vector<graph::mlp_layer> layers;
  std::string cur = g.inputs.size() == 1 ? g.inputs[0] : "";
  if (cur.empty()) throw tool_error("float model quantization needs exactly one graph input");
  for (const auto& o : g.operators) {
    const auto k = std::get<graph::framework_op>(o.code);
    if (o.inputs.empty() || o.inputs[0] != cur)
      throw tool_error("float model quantization supports a chain of linear layers; operator " +
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
      throw tool_error("float model quantization supports a chain of linear layers, found " + std::string(o.op_name()));
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

/// What the user asked `lower` for.
struct lower_request {
  std::optional<passes::scheme> sch;             ///< default: see `choose_scheme`
  std::optional<tosa::rounding_mode> rounding;  ///< default: see `lower_to_tosa`
  bool per_channel = false;                     ///< float models, integer schemes
  std::vector<float> calibration;               ///< float models, integer schemes (rows × in_features),
                                                ///< checked by `graph::check_calibration` when read
};

/// Default scheme: the activation dtype of a quantized model (INT8 → int8, INT16 → a16w8); for a
/// float model int8 when the target has INT (or is a Cortex-M target), else mxfp8_e4m3.
[[nodiscard]] inline passes::scheme choose_scheme(const graph::graph& fw, bool has_int) {
  if (is_quantized(fw)) {
    const auto* x = fw.find(fw.inputs.at(0));
    return (x && x->type == dtype::id::i16) ? passes::scheme::a16w8 : passes::scheme::int8;
  }
  return has_int ? passes::scheme::int8 : passes::scheme::mxfp8_e4m3;
}

/// A float model quantized for an integer scheme (the pipeline's QuantizeFloatGraph pass run
/// ahead, so the caller keeps the qparams of the graph input and output). Returns `fw` itself
/// when it is already quantized. Calibration: `req.calibration`, or `graph::default_calibration`.
struct quantized_model {
  graph::graph graph;
  bool calibrated_by_default = false;
  passes::report report;
};
[[nodiscard]] inline quantized_model quantize_for(const graph::graph& fw, passes::scheme s, const lower_request& req) {
  quantized_model q{fw, false, {}};
  if (passes::is_mx(s) || !passes::is_float_graph(fw)) return q;
  auto calib = req.calibration;
  if (calib.empty()) {
    const auto* x = fw.find(fw.inputs.at(0));
    calib = graph::default_calibration(x && !x->shape.empty() ? x->shape.back() : 1);
    q.calibrated_by_default = true;
  }
  if (auto st = passes::quantize_float_graph(q.graph, s, req.per_channel, calib, q.report); !st)
    throw tool_error(st.error().message());
  return q;
}

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

/// Lowers a framework graph to a serialized TOSA graph for `t`.
/// Scheme default: `choose_scheme`. Rounding default: DOUBLE_ROUND for int8 when `t` has
/// `doubleround` (TFLite's and CMSIS-NN's default requantization, so the TOSA graph is bit-exact
/// with the Cortex-M plan), else SINGLE_ROUND (ExecuTorch's choice).
/// Float models with an integer scheme are quantized first (`quantize_for`).
/// Errors (tool_error): illegal scheme for `t`, any quantization, lowering or serialization error.
[[nodiscard]] inline lowered lower_to_tosa(const graph::graph& fw, const tosa::target& t, const lower_request& req) {
  lowered out;
  passes::options opt;
  opt.sch = req.sch ? *req.sch : choose_scheme(fw, t.support_integer());
  if (const auto c = passes::check_scheme(t, opt.sch); !c.ok())
    throw tool_error("scheme " + std::string(passes::name(opt.sch)) + " is not legal for " +
                     std::string(t.text().view()) + ": " + std::string(c.reason()));
  if (req.rounding) opt.rounding = *req.rounding;
  else if (opt.sch == passes::scheme::int8 && t.supports(tosa::ext::doubleround))
    opt.rounding = tosa::rounding_mode::double_round;
  opt.per_channel = req.per_channel;
  if (passes::is_mx(opt.sch) && is_quantized(fw))
    throw tool_error("scheme " + std::string(passes::name(opt.sch)) +
                     " lowers float models; this model is already quantized (use int8 or a16w8)");
  auto q = quantize_for(fw, opt.sch, req);
  out.calibrated_by_default = q.calibrated_by_default;
  const auto& g = q.graph;
  if (!g.inputs.empty())
    if (const auto* x = g.find(g.inputs[0])) out.input_quant = x->quant;
  if (!g.outputs.empty())
    if (const auto* y = g.find(g.outputs[0])) out.output_quant = y->quant;
  std::vector<std::pair<std::string, graph::quant_params>> io_quant;  // graph I/O keep their names
  for (const auto* list : {&g.inputs, &g.outputs})
    for (const auto& n : *list)
      if (const auto* x = g.find(n); x && x->quant) io_quant.emplace_back(n, *x->quant);
  auto r = passes::lower(t, std::move(q.graph), opt);
  if (!r) throw tool_error(r.error().message());
  out.tosa = std::move(r->graph);
  out.report = std::move(r->report);
  out.report.summarize(out.tosa);  // graph I/O dtype and shape as lowered
  for (const auto& [n, qp] : io_quant) out.report.set_quant(n, qp);
  if (!q.report.passes.empty())
    out.report.passes.insert(out.report.passes.begin(), q.report.passes.begin(), q.report.passes.end());
  out.format = serialize::format_of(t.tosa_version());  // FBS-1.0 for TOSA 1.0, FBS-1.1 draft for 1.1
  auto b = serialize::write(out.tosa, out.format);
  if (!b) throw tool_error(b.error().line());
  out.bytes = std::move(*b);
  return out;
}

/// Parses a Cortex-M target name: cortex-m55 / m85 (MVE), cortex-m4 / m7 / m33 (DSP),
/// cortex-m0 / m0plus / m3 (scalar).
[[nodiscard]] inline cortex_m::isa parse_cortex_m(const std::string& s) {
  if (s == "cortex-m55" || s == "cortex-m85") return cortex_m::isa::mve;
  if (s == "cortex-m4" || s == "cortex-m7" || s == "cortex-m33") return cortex_m::isa::dsp;
  if (s == "cortex-m0" || s == "cortex-m0plus" || s == "cortex-m3") return cortex_m::isa::scalar;
  throw tool_error("unknown target '" + s + "' (valid: cortex-m55, cortex-m85, cortex-m4, cortex-m7, cortex-m33, "
                   "cortex-m0, cortex-m0plus, cortex-m3)");
}

/// A Cortex-M lowering: the program (owned constants, qparams of input/output, report).
struct lowered_cortex_m {
  passes::cortex_m_program program;
  bool calibrated_by_default = false;
};

/// Lowers a framework graph to a Cortex-M plan for `target` (int8 or a16w8; float models are
/// quantized first with `quantize_for`). Errors: MX schemes, any quantization/lowering error.
[[nodiscard]] inline lowered_cortex_m lower_to_cortex_m(const graph::graph& fw, cortex_m::isa target,
                                                        const lower_request& req) {
  const auto s = req.sch ? *req.sch : choose_scheme(fw, true);
  if (passes::is_mx(s))
    throw tool_error("scheme " + std::string(passes::name(s)) + " has no Cortex-M lowering (use int8 or a16w8)");
  auto q = quantize_for(fw, s, req);
  auto r = passes::lower_cortex_m(std::move(q.graph), {target});
  if (!r) throw tool_error(r.error().message());
  lowered_cortex_m out{std::move(*r), q.calibrated_by_default};
  auto& p = out.program;
  p.report.io = {{"input", p.input_name, std::string(dtype::name(p.activation)), p.input_shape, {}, {}},
                 {"output", p.output_name, std::string(dtype::name(p.activation)), p.output_shape, {}, {}}};
  p.report.set_quant(p.input_name, p.input_quant);
  p.report.set_quant(p.output_name, p.output_quant);
  if (!q.report.passes.empty())
    out.program.report.passes.insert(out.program.report.passes.begin(), q.report.passes.begin(), q.report.passes.end());
  return out;
}

/// Runs a Cortex-M program on the host (armlower's CMSIS-form kernels) on quantized input
/// values (int8/int16 as int64). Errors: the kernel status, as text.
[[nodiscard]] inline std::vector<std::int64_t> run_cortex_m(const passes::cortex_m_program& p,
                                                            std::span<const std::int64_t> x) {
  const auto table = p.layer_table();
  const cortex_m::plan pl{table.data(), table.size(), p.target};
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
  if (st != kernels::status::ok) throw tool_error(std::string("cortex-m plan: ") + kernels::to_string(st));
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
[[nodiscard]] inline std::vector<run::value> run_graph(const graph::graph& g, const std::vector<io::npy_array>& in,
                                                      const std::vector<std::string>& names,
                                                      std::span<const std::size_t> file_index = {},
                                                      const run::options& opt = {}) {
  if (in.size() != g.inputs.size())
    throw tool_error("the graph has " + std::to_string(g.inputs.size()) + " input(s), " + std::to_string(in.size()) +
                     " --input given");
  std::vector<run::value> vals;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto* t = g.find(g.inputs[i]);
    if (!t) throw tool_error("graph input '" + g.inputs[i] + "' is not a tensor of the graph");
    try {
      io::check_npy_matches(in[i], *t, names[i]);
      vals.push_back(run::decode(t->type, t->shape, in[i].data));
    } catch (const io::io_error& e) {
      throw tool_error(e.what());
    } catch (const std::invalid_argument& e) {
      throw tool_error(names[i] + ": graph input '" + g.inputs[i] + "': " + e.what());
    }
  }
  auto r = run::run(g, vals, opt);
  if (!r) {
    auto e = *r.failure;
    if (e.op_index != run::no_op) e.op_index = file_op_index(file_index, e.op_index);
    throw tool_error("run: " + e.message());
  }
  return std::move(r.outputs);
}

/// A run::value as a `.npy` array. Errors: dtypes .npy cannot hold (INT48, FP8, ...).
[[nodiscard]] inline io::npy_array to_npy(const run::value& v) {
  if (io::npy_element_bytes(v.type) == 0)
    throw tool_error("output dtype " + std::string(dtype::name(v.type)) + " cannot be written as .npy");
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
  if (q) return graph::dequantize(v.ints, *q);
  return std::vector<float>(v.ints.begin(), v.ints.end());
}

}  // namespace armlower::tool
