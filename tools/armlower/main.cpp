// armlower — the host tool: lower .tflite models to TOSA / Cortex-M plans, run and check .tosa
// files, inspect models, and the built-in demo. See docs/tool.md.
#include "driver.hpp"
#include "demo.hpp"
#include "json.hpp"
#include "onnx_input.hpp"

#include <armlower/io/text.hpp>
#include <armlower/version.hpp>

#include <CLI/CLI.hpp>

#include <csignal>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace {

using namespace armlower;
using tool::failure;
using tool::json;
using tool::print_json;
using tool::real;

bool g_quiet = false;

/// Progress line on stderr: "armlower: <what> (<ms> ms)".
void progress(const std::string& what, double ms = -1) {
  if (g_quiet) return;
  std::cerr << "armlower: " << what;
  if (ms >= 0) {
    char b[32];
    std::snprintf(b, sizeof b, " (%.1f ms)", ms);
    std::cerr << b;
  }
  std::cerr << "\n";
}

/// One "armlower: warning: ..." line on stderr (not silenced by -q: it says a flag had no effect).
void warn(const std::string& what) { std::cerr << "armlower: warning: " << what << "\n"; }

std::string shape_text(const std::vector<std::int32_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

/// Errors when output `out` is one of the input files `inputs` (which it would destroy).
expected<void> refuse_input_as_output(const std::string& out, const std::vector<std::string>& inputs) {
  for (const auto& in : inputs)
    if (io::same_file(out, in)) return failure("the output file is the input file " + in, errc::invalid_argument, out);
  return {};
}

/// `s` as one printable line: line breaks become "; ", other control bytes "\xNN".
std::string one_line(std::string_view s) {
  std::string r;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || c == '\r') {
      while (i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) ++i;
      if (i + 1 < s.size()) r += "; ";
    } else if (c < 0x20 || c == 0x7F) {
      io::append_escaped_byte(r, c);
    } else {
      r += static_cast<char>(c);
    }
  }
  return r;
}

/// SIGINT/SIGTERM/SIGHUP: delete named temporaries of a write in progress, then die of the signal.
extern "C" void on_fatal_signal(int sig) {
  io::remove_pending_temporaries();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// The calibration rows of `path` for a model whose input rows have `in_features` values.
/// Errors: not float32; not rows × in_features with at least one row; a non-finite value
/// (`graph::check_calibration`, the library's rules).
expected<std::vector<float>> load_calibration(const std::string& path, std::int64_t in_features) {
  const auto a = io::read_npy(path);
  if (!a) return a.error();
  if (a->type != dtype::id::fp32)
    return failure("calibration data must be float32, got " + std::string(dtype::name(a->type)), errc::invalid_argument,
                   path);
  auto v = graph::decode_f32(a->data, graph::element_count(a->shape));
  if (auto c = graph::check_calibration(v, a->shape, static_cast<std::int32_t>(in_features)); !c)
    return std::move(c).error().in_file(path);
  return v;
}

/// The progress line of the documented default calibration (`graph::default_calibration`).
std::string default_calibration_note(const graph::graph& fw) {
  const std::int32_t f = armlower::input_features(fw);
  return "no --calib given: calibrated on " + std::to_string(graph::default_calibration_rows(f)) + " rows of " +
         std::to_string(f) + " values uniform in [-1, 1] (seed 0)";
}

// ---------------------------------------------------------------- lower
json left_out_json(const std::vector<import::left_out_op>& v) {
  json a = json::array();
  for (const auto& o : v) a.push_back({{"index", o.index}, {"op", o.name}, {"reason", o.reason}});
  return a;
}

struct lower_args {
  std::string model, spec, target, scheme, calib, out, rounding, ns, pack_weights;
  bool strict = false, per_channel = false, json = false;
};

expected<int> cmd_lower(const lower_args& a) {
  tool::stopwatch total;
  if (a.spec.empty() == a.target.empty()) return failure("lower: give exactly one of --spec or --target");
  std::optional<tosa::target> t;
  std::optional<cortex_m::isa> isa;
  if (!a.spec.empty()) {  // bad spec/target fails before any file work
    auto r = tool::parse_spec(a.spec);
    if (!r) return std::move(r).error();
    t = *r;
  }
  if (!a.target.empty()) {
    auto r = tool::parse_cortex_m(a.target);
    if (!r) return std::move(r).error();
    isa = *r;
  }
  tool::lower_request req;
  if (!a.scheme.empty()) {
    auto r = tool::parse_scheme(a.scheme);
    if (!r) return std::move(r).error();
    req.scheme = *r;
  }
  if (!a.rounding.empty()) {
    if (a.rounding == "single") req.rounding = tosa::rounding_mode::single_round;
    else if (a.rounding == "double") req.rounding = tosa::rounding_mode::double_round;
    else return failure("unknown rounding '" + a.rounding + "' (valid: single, double)");
    if (isa && a.rounding == "single")
      return failure("--rounding single does not apply to --target: Cortex-M plans requantize as CMSIS-NN and "
                     "TFLite Micro do (equal to TOSA DOUBLE_ROUND)");
  }
  if (t && !a.ns.empty()) return failure("--namespace applies to --target (a C++ plan header), not to --spec");
  passes::plan_header_options header_opt;
  if (!a.pack_weights.empty()) {
    if (t) return failure("--pack-weights applies to --target (a C++ plan header), not to --spec");
    if (a.pack_weights == "auto") header_opt.packing = passes::weight_packing::automatic;
    else if (a.pack_weights == "always") header_opt.packing = passes::weight_packing::always;
    else if (a.pack_weights == "never") header_opt.packing = passes::weight_packing::never;
    else return failure("unknown --pack-weights '" + a.pack_weights + "' (valid: auto, always, never)");
  }
  if (auto r = refuse_input_as_output(a.out, a.calib.empty() ? std::vector{a.model} : std::vector{a.model, a.calib}); !r)
    return std::move(r).error();
  req.per_channel = a.per_channel;

  tool::stopwatch sw;
  auto loaded = tool::load_model(a.model, a.strict);  // .tflite or .onnx (onnx_input.hpp)
  if (!loaded) return std::move(loaded).error();
  const auto& m = *loaded;
  if (!a.calib.empty()) {
    auto c = load_calibration(a.calib, armlower::input_features(m.graph));
    if (!c) return std::move(c).error();
    req.calibration = std::move(*c);
  }
  progress("imported " + a.model + ": " + std::to_string(m.imported.size()) + " operator(s) lowered, " +
               std::to_string(m.left_out.size()) + " left out",
           sw.ms());
  for (const auto& o : m.left_out) progress("  left out " + import::to_string(o));
  // Flags that cannot apply to this model: one warning each (also in the report's warnings).
  std::vector<std::string> notes;
  const bool quantized = tool::is_quantized(m.graph);
  const auto eff = req.scheme ? *req.scheme : armlower::default_scheme(m.graph, t ? t->support_integer() : true);
  const bool mx = passes::is_mx(eff);
  const std::string eff_name(passes::name(eff));
  if (a.per_channel && quantized)
    notes.push_back("--per-channel does not apply: " + a.model + " is already quantized (its weight quantization is kept)");
  else if (a.per_channel && mx)
    notes.push_back("--per-channel does not apply to scheme " + eff_name + " (MX block scales, not per-channel)");
  if (!a.calib.empty() && quantized)
    notes.push_back("--calib does not apply: " + a.model + " is already quantized (its activation ranges are kept)");
  else if (!a.calib.empty() && mx)
    notes.push_back("--calib does not apply to scheme " + eff_name + " (MX schemes need no calibration)");
  if (!a.rounding.empty() && mx)
    notes.push_back("--rounding does not apply to scheme " + eff_name + " (MX lowerings have no RESCALE)");
  for (const auto& n : notes) warn(n);
  sw = {};
  if (isa) {
    auto lc = tool::lower_to_cortex_m(m.graph, *isa, req);
    if (!lc) return std::move(lc).error().in_file(a.model);
    const auto& c = *lc;
    if (c.calibrated_by_default) progress(default_calibration_note(m.graph));
    progress("lowered to a " + c.program.report.spec + " plan, scheme " + c.program.report.scheme, sw.ms());
    std::string ns = a.ns.empty() ? std::filesystem::path(a.out).stem().string() : a.ns;
    for (auto& ch : ns)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != ':') ch = '_';
    if (ns.empty() || std::isdigit(static_cast<unsigned char>(ns[0]))) ns = "plan_" + ns;
    const auto text = passes::emit_plan_header(c.program, ns, header_opt);
    sw = {};
    if (auto w = io::write_file(a.out, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size())); !w)
      return std::move(w).error();
    progress("wrote " + a.out + " (namespace " + ns + ", " + std::to_string(text.size()) + " bytes)", sw.ms());
    auto rep = c.program.report;
    rep.warnings.insert(rep.warnings.end(), notes.begin(), notes.end());
    if (a.json) {
      json j;
      j["model"] = a.model;
      j["output"] = a.out;
      j["namespace"] = ns;
      j["left_out"] = left_out_json(m.left_out);
      j["report"] = json::parse(rep.to_json());
      print_json(j);
    } else std::cout << rep.to_text();
    if (!a.json && !m.left_out.empty()) {
      std::cout << "left out (not lowered):\n";
      for (const auto& o : m.left_out) std::cout << "  " << import::to_string(o) << "\n";
    }
    progress("done", total.ms());
    return 0;
  }
  auto lt = tool::lower_to_tosa(m.graph, *t, req);
  if (!lt) return std::move(lt).error().in_file(a.model);
  const auto& l = *lt;
  if (l.calibrated_by_default) progress(default_calibration_note(m.graph));
  progress("lowered to " + l.report.spec + " with scheme " + l.report.scheme, sw.ms());
  sw = {};
  if (auto w = io::write_file(a.out, l.bytes); !w) return std::move(w).error();
  progress("wrote " + a.out + " (" + std::to_string(l.bytes.size()) + " bytes)", sw.ms());
  auto rep = l.report;
  rep.warnings.insert(rep.warnings.end(), notes.begin(), notes.end());
  if (a.json) {
    json j;
    j["model"] = a.model;
    j["output"] = a.out;
    j["bytes"] = l.bytes.size();
    j["left_out"] = left_out_json(m.left_out);
    j["report"] = json::parse(rep.to_json());
    print_json(j);
  } else {
    std::cout << rep.to_text();
    if (!m.left_out.empty()) {
      std::cout << "left out (not lowered):\n";
      for (const auto& o : m.left_out) std::cout << "  " << import::to_string(o) << "\n";
    }
  }
  progress("done", total.ms());
  return 0;
}

// ---------------------------------------------------------------- run
/// The elements of `v` as JSON: integers as numbers, reals as `real` (non-finite as strings),
/// FP8/FP6/FP4 codes as integers.
json values_json(const run::value& v) {
  json a = json::array();
  const auto n = static_cast<std::size_t>(v.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (!v.ints.empty()) a.push_back(v.ints[k]);
    else if (!v.reals.empty()) a.push_back(real(v.reals[k]));
    else a.push_back(static_cast<int>(v.codes[k]));
  }
  return a;
}

expected<int> cmd_run(const std::string& file, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& outs, bool json_out, const run::options& ropt) {
  tool::stopwatch sw;
  // Output names are checked before any work: none may be an input, none may repeat.
  std::vector<std::string> all_inputs = inputs;
  all_inputs.push_back(file);
  for (std::size_t i = 0; i < outs.size(); ++i) {
    if (auto r = refuse_input_as_output(outs[i], all_inputs); !r) return std::move(r).error();
    for (std::size_t k = 0; k < i; ++k)
      if (io::same_file(outs[i], outs[k])) return failure("the same output file is given twice (-o)", errc::invalid_argument, outs[i]);
  }
  auto loaded = tool::load_tosa(file);
  if (!loaded) return std::move(loaded).error();
  const auto& f = *loaded;
  std::vector<io::npy_array> in;
  for (const auto& p : inputs) {
    auto a = io::read_npy(p);
    if (!a) return std::move(a).error();
    in.push_back(std::move(*a));
  }
  if (!outs.empty() && outs.size() != f.graph.outputs.size())
    return failure("the graph has " + std::to_string(f.graph.outputs.size()) + " output(s), " +
                       std::to_string(outs.size()) + " -o given",
                   errc::invalid_argument, file);
  progress("read " + file, sw.ms());
  sw = {};
  // .npy errors name the .npy (their own file); the others get the .tosa's name.
  auto ran = tool::run_graph(f.graph, in, inputs, f.operator_index, ropt);
  if (!ran) return std::move(ran).error().in_file(file);
  const auto& y = *ran;
  progress("ran " + std::to_string(f.graph.operators.size()) + " operator(s)", sw.ms());
  // Convert every output, then write them all or none (io::write_files).
  if (!outs.empty()) {
    std::vector<std::vector<std::uint8_t>> images;
    for (std::size_t i = 0; i < y.size(); ++i) {
      auto a = tool::to_npy(y[i]);
      auto img = a ? io::format_npy(*a) : expected<std::vector<std::uint8_t>>(a.error());
      if (!img)
        return failure("graph output '" + f.graph.outputs[i] + "' of " + file + ": " + img.error().message(),
                       img.error().code(), outs[i]);
      images.push_back(std::move(*img));
    }
    std::vector<io::output_file> files;
    for (std::size_t i = 0; i < images.size(); ++i) files.push_back({outs[i], images[i]});
    if (auto w = io::write_files(files); !w) return std::move(w).error();
    for (const auto& o : outs) progress("wrote " + o);
  }
  if (json_out) {
    json j;
    j["outputs"] = json::array();
    for (std::size_t i = 0; i < y.size(); ++i)
      j["outputs"].push_back({{"name", f.graph.outputs[i]},
                              {"dtype", std::string(dtype::name(y[i].type))},
                              {"shape", y[i].shape},
                              {"values", values_json(y[i])}});
    print_json(j);
  } else if (outs.empty()) {
    for (std::size_t i = 0; i < y.size(); ++i) {
      std::cout << f.graph.outputs[i] << " " << dtype::name(y[i].type) << " " << shape_text(y[i].shape) << ":";
      const auto n = static_cast<std::size_t>(y[i].size());
      for (std::size_t k = 0; k < n; ++k) {
        std::cout << " ";
        if (!y[i].ints.empty()) std::cout << y[i].ints[k];
        else if (!y[i].reals.empty()) std::cout << y[i].reals[k];
        else std::cout << static_cast<int>(y[i].codes[k]);
      }
      std::cout << "\n";
    }
  }
  return 0;
}

// ---------------------------------------------------------------- check
expected<int> cmd_check(const std::string& file, const std::string& spec, bool json_out) {
  const auto pt = tool::parse_spec(spec);
  if (!pt) return pt.error();
  const auto& t = *pt;
  auto loaded = tool::load_tosa(file);
  if (!loaded) return std::move(loaded).error();
  const auto& f = *loaded;
  const auto found = tool::check_graph(f.graph, t, f.operator_index);
  if (json_out) {
    json j;
    j["file"] = file;
    j["spec"] = std::string(t.text().view());
    j["legal"] = found.empty();
    j["findings"] = json::array();
    for (const auto& x : found) j["findings"].push_back({{"where", x.where}, {"rule", x.rule}});
    print_json(j);
  } else if (found.empty()) {
    std::cout << file << ": legal for " << t.text().view() << " (" << f.graph.operators.size() << " operators, "
              << f.graph.tensors.size() << " tensors)\n";
  } else {
    std::cout << file << ": " << found.size() << " finding(s) not allowed by " << t.text().view() << ":\n";
    for (const auto& x : found) std::cout << "  " << x.where << ": " << x.rule << "\n";
  }
  return found.empty() ? 0 : 1;
}

// ---------------------------------------------------------------- inspect
expected<int> inspect_tflite(const std::string& file, const std::vector<std::uint8_t>& bytes, bool json_out) {
  auto mi = import::inspect_tflite(bytes, file);
  if (!mi) return std::move(mi).error();
  auto ri = import::import_tflite(bytes, file);
  if (!ri) return std::move(ri).error();
  const auto& m = *mi;
  const auto& r = *ri;
  if (json_out) {
    json j;
    j["file"] = file;
    j["format"] = "tflite";
    j["version"] = m.version;
    j["subgraphs"] = m.subgraph_count;
    j["operators"] = json::array();
    for (std::size_t i = 0; i < m.operators.size(); ++i) {
      const auto& o = m.operators[i];
      const bool kept = std::find(r.imported.begin(), r.imported.end(), i) != r.imported.end();
      j["operators"].push_back({{"index", i}, {"op", o.name}, {"options", o.options}, {"inputs", o.inputs},
                                {"outputs", o.outputs}, {"lowered", kept}});
    }
    j["tensors"] = json::array();
    for (std::size_t i = 0; i < m.tensors.size(); ++i) {
      const auto& t = m.tensors[i];
      json q = nullptr;
      if (!t.scale.empty()) {
        json sc = json::array(), zp = json::array();
        for (const float v : t.scale) sc.push_back(real(v));
        for (const auto v : t.zero_point) zp.push_back(v);
        q = {{"scale", sc}, {"zero_point", zp}, {"axis", t.quantized_dimension}};
      }
      j["tensors"].push_back({{"index", i}, {"name", t.name}, {"dtype", t.type_name}, {"shape", t.shape},
                              {"constant_bytes", t.const_bytes}, {"scales", t.scale.size()}, {"quantization", q}});
    }
    j["inputs"] = m.inputs;
    j["outputs"] = m.outputs;
    print_json(j);
    return 0;
  }
  std::cout << file << ": TFLite model, schema version " << m.version << ", " << m.subgraph_count
            << " subgraph(s); subgraph 0: " << m.operators.size() << " operators, " << m.tensors.size() << " tensors\n";
  std::cout << "operators:\n";
  for (const auto& o : m.operators) {
    const bool kept = std::find(r.imported.begin(), r.imported.end(), o.index) != r.imported.end();
    std::cout << "  #" << o.index << " " << o.name << " v" << o.version << " in" << shape_text(o.inputs) << " out"
              << shape_text(o.outputs) << (o.options.empty() ? "" : " " + o.options)
              << (kept ? "  [lowered]" : "  [left out]") << "\n";
  }
  std::cout << "tensors:\n";
  for (const auto& t : m.tensors) {
    std::cout << "  " << t.index << " " << t.name << " " << t.type_name << " " << shape_text(t.shape);
    if (t.const_bytes) std::cout << " const " << t.const_bytes << " B";
    if (!t.scale.empty()) {
      std::cout << " q(scale " << t.scale[0];
      if (!t.zero_point.empty()) std::cout << ", zp " << t.zero_point[0];
      if (t.scale.size() > 1) std::cout << ", " << t.scale.size() << " channels on axis " << t.quantized_dimension;
      std::cout << ")";
    }
    std::cout << "\n";
  }
  std::cout << "inputs " << shape_text(m.inputs) << ", outputs " << shape_text(m.outputs) << "\n";
  for (const auto& o : r.left_out) std::cout << "left out: " << import::to_string(o) << "\n";
  return 0;
}

expected<int> inspect_tosa(const std::string& file, bool json_out) {
  auto loaded = tool::load_tosa(file);
  if (!loaded) return std::move(loaded).error();
  const auto& f = *loaded;
  const auto& g = f.graph;
  // Composite block-scaled tensors (TOSA 1.1 spec head) are named by their type and scales.
  auto block_scaled = [&](const std::string& n) -> const serialize::block_scaled_tensor* {
    for (const auto& b : f.block_scaled)
      if (b.data == n) return &b;
    return nullptr;
  };
  std::int64_t cbytes = 0;
  for (const auto& t : g.tensors) cbytes += static_cast<std::int64_t>(t.data.size());
  const auto io_json = [&](const std::vector<std::string>& names) {
    json a = json::array();
    for (const auto& n : names) {
      const auto* t = g.find(n);
      a.push_back({{"name", n},
                   {"dtype", t ? json(std::string(dtype::name(t->type))) : json(nullptr)},
                   {"shape", t ? json(t->shape) : json(nullptr)}});
    }
    return a;
  };
  if (json_out) {
    json j;
    j["file"] = file;
    j["format"] = std::string(serialize::name(f.version));
    j["inputs"] = io_json(g.inputs);
    j["outputs"] = io_json(g.outputs);
    j["operators"] = json::array();
    for (std::size_t i = 0; i < g.operators.size(); ++i) {
      const auto& o = g.operators[i];
      j["operators"].push_back(
          {{"index", i}, {"op", std::string(o.op_name())}, {"inputs", o.inputs}, {"outputs", o.outputs}});
    }
    j["tensors"] = json::array();
    for (const auto& t : g.tensors) {
      json e = {{"name", t.name},
                {"dtype", std::string(dtype::name(t.type))},
                {"shape", t.shape},
                {"constant_bytes", t.is_constant ? t.data.size() : 0}};
      if (const auto* b = block_scaled(t.name)) {
        e["block_scaled"] = b->type_name();
        e["scale_tensor"] = b->scale;
      }
      j["tensors"].push_back(std::move(e));
    }
    j["constant_bytes"] = cbytes;
    print_json(j);
    return 0;
  }
  std::cout << file << ": " << serialize::name(f.version) << ", " << g.operators.size() << " operators, "
            << g.tensors.size() << " tensors, " << cbytes << " constant bytes\n";
  std::cout << "operators:\n";
  for (std::size_t i = 0; i < g.operators.size(); ++i) {
    const auto& o = g.operators[i];
    std::cout << "  #" << i << " " << o.op_name() << " (";
    for (std::size_t k = 0; k < o.inputs.size(); ++k) std::cout << (k ? ", " : "") << o.inputs[k];
    std::cout << ") -> (";
    for (std::size_t k = 0; k < o.outputs.size(); ++k) std::cout << (k ? ", " : "") << o.outputs[k];
    std::cout << ")\n";
  }
  std::cout << "tensors:\n";
  for (const auto& t : g.tensors) {
    std::cout << "  " << t.name << " " << dtype::name(t.type) << " " << shape_text(t.shape);
    if (t.is_constant) std::cout << " const " << t.data.size() << " B";
    if (const auto* b = block_scaled(t.name))
      std::cout << "  (values of block-scaled " << b->type_name() << ", scales " << b->scale
                << ")";
    std::cout << "\n";
  }
  for (const auto* list : {&g.inputs, &g.outputs}) {
    std::cout << (list == &g.inputs ? "graph inputs:\n" : "graph outputs:\n");
    for (const auto& n : *list) {
      const auto* t = g.find(n);
      std::cout << "  " << n;
      if (t) std::cout << " " << dtype::name(t->type) << " " << shape_text(t->shape);
      std::cout << "\n";
    }
  }
  return 0;
}

#ifdef ARMLOWER_HAVE_ONNX
expected<int> inspect_onnx(const std::string& file, const std::vector<std::uint8_t>& bytes, bool json_out) {
  const auto dir = std::filesystem::path(file).parent_path();
  auto mi = import::inspect_onnx(bytes, file, dir);
  if (!mi) return std::move(mi).error();
  auto ri = import::import_onnx(bytes, file, dir);
  if (!ri) return std::move(ri).error();
  const auto& m = *mi;
  const auto& r = *ri;
  auto kept = [&](std::size_t i) { return std::find(r.imported.begin(), r.imported.end(), i) != r.imported.end(); };
  auto values_json = [](const std::vector<import::onnx_value>& vs) {
    json a = json::array();
    for (const auto& v : vs)
      a.push_back({{"name", v.name}, {"dtype", v.type_name}, {"shape", v.shape}, {"dim_params", v.dim_params},
                   {"constant_bytes", v.bytes}, {"external", v.external}});
    return a;
  };
  if (json_out) {
    json j;
    j["file"] = file;
    j["format"] = "onnx";
    j["ir_version"] = m.ir_version;
    j["producer"] = m.producer;
    j["opsets"] = json::array();
    for (const auto& [d, v] : m.opsets) j["opsets"].push_back({{"domain", d}, {"version", v}});
    j["operators"] = json::array();
    for (const auto& n : m.nodes)
      j["operators"].push_back({{"index", n.index}, {"op", n.op_type}, {"name", n.name}, {"domain", n.domain},
                                {"options", n.attributes}, {"inputs", n.inputs}, {"outputs", n.outputs},
                                {"lowered", kept(n.index)}});
    j["initializers"] = values_json(m.initializers);
    j["inputs"] = values_json(m.inputs);
    j["outputs"] = values_json(m.outputs);
    j["left_out"] = left_out_json(r.left_out);
    print_json(j);
    return 0;
  }
  std::cout << file << ": ONNX model, ir_version " << m.ir_version << ", producer '" << m.producer << "', opsets";
  for (const auto& [d, v] : m.opsets) std::cout << " " << (d.empty() ? "ai.onnx" : d) << ":" << v;
  std::cout << "; " << m.nodes.size() << " nodes, " << m.initializers.size() << " initializers\n";
  auto dims = [](const import::onnx_value& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.shape.size(); ++i)
      s += (i ? "," : "") + (v.shape[i] < 0 ? (v.dim_params[i].empty() ? std::string("?") : v.dim_params[i]) : std::to_string(v.shape[i]));
    return s + "]";
  };
  std::cout << "nodes:\n";
  for (const auto& n : m.nodes) {
    std::cout << "  #" << n.index << " " << import::onnx_node_label(n) << " (";
    for (std::size_t k = 0; k < n.inputs.size(); ++k) std::cout << (k ? ", " : "") << n.inputs[k];
    std::cout << ") -> (";
    for (std::size_t k = 0; k < n.outputs.size(); ++k) std::cout << (k ? ", " : "") << n.outputs[k];
    std::cout << ")" << (n.attributes.empty() ? "" : " " + n.attributes) << (kept(n.index) ? "  [lowered]" : "  [left out]")
              << "\n";
  }
  std::cout << "initializers:\n";
  for (const auto& v : m.initializers)
    std::cout << "  " << v.name << " " << v.type_name << " " << dims(v) << " " << v.bytes << " B"
              << (v.external ? " (external)" : "") << "\n";
  for (const auto* list : {&m.inputs, &m.outputs}) {
    std::cout << (list == &m.inputs ? "graph inputs:\n" : "graph outputs:\n");
    for (const auto& v : *list) std::cout << "  " << v.name << " " << v.type_name << " " << dims(v) << "\n";
  }
  for (const auto& o : r.left_out) std::cout << "left out: " << import::to_string(o) << "\n";
  return 0;
}
#endif

expected<int> cmd_inspect(const std::string& file, bool json_out) {
  const auto bytes = io::read_bytes(file);
  if (!bytes) return bytes.error();
  if (tool::is_onnx_model(file)) {
#ifdef ARMLOWER_HAVE_ONNX
    return inspect_onnx(file, *bytes, json_out);
#else
    return tool::load_onnx(file, false).error();  // built without ONNX support
#endif
  }
  const auto kind = tool::sniff(*bytes, file);
  if (!kind) return kind.error();
  return *kind == tool::file_kind::tflite ? inspect_tflite(file, *bytes, json_out) : inspect_tosa(file, json_out);
}

/// Prints `e` on stderr: every further diagnostic as "armlower: note: <line>", then the first as
/// the one "armlower: error: <line>" (last, so a script reading the last line gets the cause).
int report_error(const armlower::error& e) {
  const auto all = e.diagnostics();
  for (std::size_t i = 1; i < all.size(); ++i) std::cerr << "armlower: note: " << one_line(all[i].line()) << "\n";
  std::cerr << "armlower: error: " << one_line(e.line()) << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string version = std::to_string(ARMLOWER_VERSION_MAJOR) + "." + std::to_string(ARMLOWER_VERSION_MINOR) +
                              "." + std::to_string(ARMLOWER_VERSION_PATCH);
  CLI::App app{"armlower " + version +
               ": lower linear layers of quantized and microscaled networks to TOSA and Cortex-M kernels, and run them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version);
  app.add_flag("-q,--quiet", g_quiet, "no progress or timings on stderr");
  app.fallthrough();

  lower_args la;
  auto* lower = app.add_subcommand("lower", "import a .tflite or .onnx model, lower it and write a .tosa file (or a Cortex-M plan)");
  lower->add_option("model", la.model, "the .tflite or .onnx model")->required();
  lower->add_option("--spec", la.spec, "TOSA target, e.g. TOSA-1.0+INT, TOSA-1.0+INT+int16, TOSA-1.1+FP+mxfp");
  lower->add_option("--target", la.target, "Cortex-M target: cortex-m55 | cortex-m4 | cortex-m0 (writes a C++ plan header)");
  lower->add_option("--scheme", la.scheme,
                    "int8 | a16w8 | mxfp8_e4m3 | mxfp8_e5m2 | mxfp6_e2m3 | mxfp6_e3m2 | mxfp4 (default: from the model)");
  lower->add_option("--calib", la.calib, "float32 .npy of calibration inputs (rows x in_features) for float models");
  lower->add_option("--rounding", la.rounding, "RESCALE rounding: single | double (default: double when the spec has doubleround)");
  lower->add_option("--namespace", la.ns, "C++ namespace of the plan header (default: the output file's stem)");
  lower->add_option("--pack-weights", la.pack_weights,
                    "cortex-m55 int8 plans: auto | always | never store the weights packed for the 8-row Helium "
                    "kernel (default auto: when the padding to 8 rows adds at most 1/16 of the MACs)");
  lower->add_flag("--per-channel", la.per_channel, "quantize float weights per output channel");
  lower->add_flag("--strict", la.strict, "refuse the model unless every operator can be lowered");
  lower->add_option("-o,--output", la.out, "output file (.tosa, or .hpp with --target)")->required();
  lower->add_flag("--json", la.json, "print the lowering report as JSON");

  std::string run_file;
  std::vector<std::string> run_inputs, run_outputs;
  bool run_json = false;
  auto* run = app.add_subcommand("run", "run a .tosa file on .npy inputs with armlower's interpreter");
  run->add_option("file", run_file, "the .tosa file")->required();
  run->add_option("-i,--input", run_inputs, "one .npy per graph input, in order (dtype and shape must match)");
  run->add_option("-o,--output", run_outputs, "one .npy per graph output (prints the outputs when absent)");
  run->add_flag("--json", run_json, "print the outputs as JSON");
  run::options run_opt;
  run->add_option("--max-tensor-bytes", run_opt.max_tensor_bytes,
                  "refuse any tensor whose values take more bytes than this in the interpreter (default 2^31)")
      ->check(CLI::PositiveNumber);

  std::string check_file, check_spec;
  bool check_json = false;
  auto* check = app.add_subcommand("check", "list every op/dtype of a .tosa file that a TOSA spec does not allow");
  check->add_option("file", check_file, "the .tosa file")->required();
  check->add_option("--spec", check_spec, "TOSA target, e.g. TOSA-1.0+INT")->required();
  check->add_flag("--json", check_json, "print the findings as JSON");

  std::string inspect_file;
  bool inspect_json = false;
  auto* inspect = app.add_subcommand("inspect", "show ops, tensors, dtypes, shapes and constant bytes of a .tosa, .tflite or .onnx");
  inspect->add_option("file", inspect_file, "the .tosa, .tflite or .onnx file")->required();
  inspect->add_flag("--json", inspect_json, "print as JSON");

  armlower::tool::demo_options demo_opt;
  auto* demo = app.add_subcommand("demo", "lower a built-in seeded MLP (256-512-256-10) every way, run each and print one table");
  demo->add_option("--seed", demo_opt.seed, "seed of the MLP weights and inputs");
  demo->add_option("--rows", demo_opt.rows, "input rows per run");
  demo->add_flag("--json", demo_opt.json, "print the table as JSON");
  demo->add_option("--emit-firmware", demo_opt.emit_firmware,
                   "write the demo's Cortex-M55 plan and I/O headers to this directory (firmware example) and stop");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // keep an inherited "ignore"
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
  try {  // the last-resort handler: every failure the tool knows of is an error value
    expected<int> rc = 0;
    if (*lower) rc = cmd_lower(la);
    else if (*run) rc = cmd_run(run_file, run_inputs, run_outputs, run_json, run_opt);
    else if (*check) rc = cmd_check(check_file, check_spec, check_json);
    else if (*inspect) rc = cmd_inspect(inspect_file, inspect_json);
    else if (*demo) rc = armlower::tool::run_demo(demo_opt, progress);
    return rc ? *rc : report_error(rc.error());
  } catch (const std::exception& e) {
    std::cerr << "armlower: error: " << one_line(e.what()) << "\n";
    return 1;
  }
}
