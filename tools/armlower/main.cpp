// armlower — the host tool: lower .tflite models to TOSA / Cortex-M plans, run and check .tosa
// files, inspect models, and the built-in demo. See docs/tool.md.
#include "driver.hpp"
#include "demo.hpp"

#include <armlower/version.hpp>

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace {

using namespace armlower;
using tool::tool_error;

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

std::string json_str(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\', r += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      r += b;
    } else r += c;
  }
  return r + "\"";
}

std::string shape_json(const std::vector<std::int32_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

std::vector<float> load_calibration(const std::string& path, std::optional<std::vector<std::int32_t>>* shape = nullptr) {
  io::npy_array a;
  try {
    a = io::read_npy(path);
  } catch (const io::io_error& e) {
    throw tool_error(e.what());
  }
  if (a.type != dtype::id::fp32)
    throw tool_error(path + ": calibration data must be float32, got " + std::string(dtype::name(a.type)));
  if (shape) *shape = a.shape;
  return graph::decode_f32(a.data, graph::element_count(a.shape));
}

// ---------------------------------------------------------------- lower
struct lower_args {
  std::string model, spec, target, scheme, calib, out, rounding, ns;
  bool strict = false, per_channel = false, json = false;
};

int cmd_lower(const lower_args& a) {
  tool::stopwatch total;
  if (a.spec.empty() == a.target.empty()) throw tool_error("lower: give exactly one of --spec or --target");
  std::optional<tosa::target> t;
  std::optional<cortex_m::isa> isa;
  if (!a.spec.empty()) t = tool::parse_spec(a.spec);  // bad spec/target fails before any file work
  if (!a.target.empty()) isa = tool::parse_cortex_m(a.target);
  tool::lower_request req;
  if (!a.scheme.empty()) req.sch = tool::parse_scheme(a.scheme);
  if (!a.rounding.empty()) {
    if (a.rounding == "single") req.rounding = tosa::rounding_mode::single_round;
    else if (a.rounding == "double") req.rounding = tosa::rounding_mode::double_round;
    else throw tool_error("unknown rounding '" + a.rounding + "' (valid: single, double)");
  }
  req.per_channel = a.per_channel;
  if (!a.calib.empty()) req.calibration = load_calibration(a.calib, &req.calibration_shape);

  tool::stopwatch sw;
  const auto m = tool::load_tflite(a.model, a.strict);
  progress("imported " + a.model + ": " + std::to_string(m.imported.size()) + " operator(s) lowered, " +
               std::to_string(m.left_out.size()) + " left out",
           sw.ms());
  for (const auto& o : m.left_out) progress("  left out " + import::to_string(o));
  sw = {};
  if (isa) {
    const auto c = tool::lower_to_cortex_m(m.graph, *isa, req);
    if (c.calibrated_by_default) progress("no --calib given: calibrated on 256 rows uniform in [-1, 1] (seed 0)");
    progress("lowered to a " + c.program.report.spec + " plan, scheme " + c.program.report.scheme, sw.ms());
    std::string ns = a.ns.empty() ? std::filesystem::path(a.out).stem().string() : a.ns;
    for (auto& ch : ns)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != ':') ch = '_';
    if (ns.empty() || std::isdigit(static_cast<unsigned char>(ns[0]))) ns = "plan_" + ns;
    const auto text = passes::emit_plan_header(c.program, ns);
    sw = {};
    if (auto w = serialize::write_file(a.out, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size())); !w)
      throw tool_error(w.error().message);
    progress("wrote " + a.out + " (namespace " + ns + ", " + std::to_string(text.size()) + " bytes)", sw.ms());
    if (a.json) std::cout << "{\"model\":" << json_str(a.model) << ",\"output\":" << json_str(a.out)
                          << ",\"namespace\":" << json_str(ns) << ",\"report\":" << c.program.report.to_json() << "}\n";
    else std::cout << c.program.report.to_text();
    if (!a.json && !m.left_out.empty()) {
      std::cout << "left out (not lowered):\n";
      for (const auto& o : m.left_out) std::cout << "  " << import::to_string(o) << "\n";
    }
    progress("done", total.ms());
    return 0;
  }
  const auto l = tool::lower_to_tosa(m.graph, *t, req);
  if (l.calibrated_by_default)
    progress("no --calib given: calibrated on 256 rows uniform in [-1, 1] (seed 0)");
  progress("lowered to " + l.report.spec + " with scheme " + l.report.scheme, sw.ms());
  sw = {};
  if (auto w = serialize::write_file(a.out, l.bytes); !w) throw tool_error(w.error().message);
  progress("wrote " + a.out + " (" + std::to_string(l.bytes.size()) + " bytes)", sw.ms());
  if (a.json) {
    std::string s = "{\"model\":" + json_str(a.model) + ",\"output\":" + json_str(a.out) +
                    ",\"bytes\":" + std::to_string(l.bytes.size()) + ",\"left_out\":[";
    for (std::size_t i = 0; i < m.left_out.size(); ++i)
      s += std::string(i ? "," : "") + "{\"index\":" + std::to_string(m.left_out[i].index) +
           ",\"op\":" + json_str(m.left_out[i].name) + ",\"reason\":" + json_str(m.left_out[i].reason) + "}";
    s += "],\"report\":" + l.report.to_json() + "}";
    std::cout << s << "\n";
  } else {
    std::cout << l.report.to_text();
    if (!m.left_out.empty()) {
      std::cout << "left out (not lowered):\n";
      for (const auto& o : m.left_out) std::cout << "  " << import::to_string(o) << "\n";
    }
  }
  progress("done", total.ms());
  return 0;
}

// ---------------------------------------------------------------- run
int cmd_run(const std::string& file, const std::vector<std::string>& inputs, const std::vector<std::string>& outs,
            bool json) {
  tool::stopwatch sw;
  const auto f = tool::load_tosa(file);
  std::vector<io::npy_array> in;
  for (const auto& p : inputs) {
    try {
      in.push_back(io::read_npy(p));
    } catch (const io::io_error& e) {
      throw tool_error(e.what());
    }
  }
  if (!outs.empty() && outs.size() != f.graph.outputs.size())
    throw tool_error("the graph has " + std::to_string(f.graph.outputs.size()) + " output(s), " +
                     std::to_string(outs.size()) + " -o given");
  progress("read " + file, sw.ms());
  sw = {};
  const auto y = tool::run_graph(f.graph, in, inputs);
  progress("ran " + std::to_string(f.graph.operators.size()) + " operator(s)", sw.ms());
  // Convert every output before writing any, so a failure leaves no partial set of files.
  std::vector<std::vector<std::uint8_t>> images;
  if (!outs.empty())
    for (const auto& v : y) images.push_back(io::format_npy(tool::to_npy(v)));
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (auto w = serialize::write_file(outs[i], images[i]); !w) throw tool_error(w.error().message);
    progress("wrote " + outs[i]);
  }
  if (json) {
    std::string s = "{\"outputs\":[";
    for (std::size_t i = 0; i < y.size(); ++i) {
      s += std::string(i ? "," : "") + "{\"name\":" + json_str(f.graph.outputs[i]) + ",\"dtype\":" +
           json_str(std::string(dtype::name(y[i].type))) + ",\"shape\":" + shape_json(y[i].shape) + ",\"values\":[";
      std::ostringstream vs;
      vs.precision(9);
      const auto n = static_cast<std::size_t>(y[i].size());
      for (std::size_t k = 0; k < n; ++k) {
        if (k) vs << ",";
        if (!y[i].ints.empty()) vs << y[i].ints[k];
        else if (!y[i].reals.empty()) vs << y[i].reals[k];
        else vs << static_cast<int>(y[i].codes[k]);
      }
      s += vs.str() + "]}";
    }
    std::cout << s << "]}\n";
  } else if (outs.empty()) {
    for (std::size_t i = 0; i < y.size(); ++i) {
      std::cout << f.graph.outputs[i] << " " << dtype::name(y[i].type) << " " << shape_json(y[i].shape) << ":";
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
int cmd_check(const std::string& file, const std::string& spec, bool json) {
  const auto t = tool::parse_spec(spec);
  const auto f = tool::load_tosa(file);
  const auto found = tool::check_graph(f.graph, t);
  if (json) {
    std::string s = "{\"file\":" + json_str(file) + ",\"spec\":" + json_str(std::string(t.text().view())) +
                    ",\"legal\":" + (found.empty() ? "true" : "false") + ",\"findings\":[";
    for (std::size_t i = 0; i < found.size(); ++i)
      s += std::string(i ? "," : "") + "{\"where\":" + json_str(found[i].where) + ",\"rule\":" + json_str(found[i].rule) + "}";
    std::cout << s << "]}\n";
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
int inspect_tflite(const std::string& file, const std::vector<std::uint8_t>& bytes, bool json) {
  import::tflite_model m;
  import::import_result r;
  try {
    m = import::inspect_tflite(bytes, file);
    r = import::import_tflite(bytes, file);
  } catch (const import::import_error& e) {
    throw tool_error(e.what());
  }
  if (json) {
    std::string s = "{\"file\":" + json_str(file) + ",\"format\":\"tflite\",\"version\":" + std::to_string(m.version) +
                    ",\"subgraphs\":" + std::to_string(m.subgraph_count) + ",\"operators\":[";
    for (std::size_t i = 0; i < m.operators.size(); ++i) {
      const auto& o = m.operators[i];
      const bool kept = std::find(r.imported.begin(), r.imported.end(), i) != r.imported.end();
      s += std::string(i ? "," : "") + "{\"index\":" + std::to_string(i) + ",\"op\":" + json_str(o.name) +
           ",\"options\":" + json_str(o.options) + ",\"inputs\":" + shape_json(o.inputs) + ",\"outputs\":" +
           shape_json(o.outputs) + ",\"lowered\":" + (kept ? "true" : "false") + "}";
    }
    s += "],\"tensors\":[";
    for (std::size_t i = 0; i < m.tensors.size(); ++i) {
      const auto& t = m.tensors[i];
      s += std::string(i ? "," : "") + "{\"index\":" + std::to_string(i) + ",\"name\":" + json_str(t.name) +
           ",\"dtype\":" + json_str(t.type_name) + ",\"shape\":" + shape_json(t.shape) +
           ",\"constant_bytes\":" + std::to_string(t.const_bytes) + ",\"scales\":" + std::to_string(t.scale.size()) + "}";
    }
    std::cout << s << "]}\n";
    return 0;
  }
  std::cout << file << ": TFLite model, schema version " << m.version << ", " << m.subgraph_count
            << " subgraph(s); subgraph 0: " << m.operators.size() << " operators, " << m.tensors.size() << " tensors\n";
  std::cout << "operators:\n";
  for (const auto& o : m.operators) {
    const bool kept = std::find(r.imported.begin(), r.imported.end(), o.index) != r.imported.end();
    std::cout << "  #" << o.index << " " << o.name << " v" << o.version << " in" << shape_json(o.inputs) << " out"
              << shape_json(o.outputs) << (o.options.empty() ? "" : " " + o.options)
              << (kept ? "  [lowered]" : "  [left out]") << "\n";
  }
  std::cout << "tensors:\n";
  for (const auto& t : m.tensors) {
    std::cout << "  " << t.index << " " << t.name << " " << t.type_name << " " << shape_json(t.shape);
    if (t.const_bytes) std::cout << " const " << t.const_bytes << " B";
    if (!t.scale.empty()) {
      std::cout << " q(scale " << t.scale[0];
      if (!t.zero_point.empty()) std::cout << ", zp " << t.zero_point[0];
      if (t.scale.size() > 1) std::cout << ", " << t.scale.size() << " channels on axis " << t.quantized_dimension;
      std::cout << ")";
    }
    std::cout << "\n";
  }
  std::cout << "inputs " << shape_json(m.inputs) << ", outputs " << shape_json(m.outputs) << "\n";
  for (const auto& o : r.left_out) std::cout << "left out: " << import::to_string(o) << "\n";
  return 0;
}

int inspect_tosa(const std::string& file, bool json) {
  const auto f = tool::load_tosa(file);
  const auto& g = f.graph;
  std::int64_t cbytes = 0;
  for (const auto& t : g.tensors) cbytes += static_cast<std::int64_t>(t.data.size());
  if (json) {
    std::string s = "{\"file\":" + json_str(file) + ",\"format\":" + json_str(std::string(serialize::name(f.version))) +
                    ",\"operators\":[";
    for (std::size_t i = 0; i < g.operators.size(); ++i) {
      const auto& o = g.operators[i];
      s += std::string(i ? "," : "") + "{\"index\":" + std::to_string(i) + ",\"op\":" + json_str(std::string(o.op_name())) +
           ",\"inputs\":[";
      for (std::size_t k = 0; k < o.inputs.size(); ++k) s += (k ? "," : "") + json_str(o.inputs[k]);
      s += "],\"outputs\":[";
      for (std::size_t k = 0; k < o.outputs.size(); ++k) s += (k ? "," : "") + json_str(o.outputs[k]);
      s += "]}";
    }
    s += "],\"tensors\":[";
    for (std::size_t i = 0; i < g.tensors.size(); ++i) {
      const auto& t = g.tensors[i];
      s += std::string(i ? "," : "") + "{\"name\":" + json_str(t.name) + ",\"dtype\":" +
           json_str(std::string(dtype::name(t.type))) + ",\"shape\":" + shape_json(t.shape) +
           ",\"constant_bytes\":" + std::to_string(t.is_constant ? t.data.size() : 0) + "}";
    }
    s += "],\"constant_bytes\":" + std::to_string(cbytes) + "}";
    std::cout << s << "\n";
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
    std::cout << "  " << t.name << " " << dtype::name(t.type) << " " << shape_json(t.shape);
    if (t.is_constant) std::cout << " const " << t.data.size() << " B";
    std::cout << "\n";
  }
  std::cout << "inputs:";
  for (const auto& n : g.inputs) std::cout << " " << n;
  std::cout << "\noutputs:";
  for (const auto& n : g.outputs) std::cout << " " << n;
  std::cout << "\n";
  return 0;
}

int cmd_inspect(const std::string& file, bool json) {
  std::vector<std::uint8_t> bytes;
  try {
    bytes = io::read_bytes(file);
  } catch (const io::io_error& e) {
    throw tool_error(e.what());
  }
  return tool::sniff(bytes, file) == tool::file_kind::tflite ? inspect_tflite(file, bytes, json)
                                                             : inspect_tosa(file, json);
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
  auto* lower = app.add_subcommand("lower", "import a .tflite model, lower it and write a .tosa file (or a Cortex-M plan)");
  lower->add_option("model", la.model, "the .tflite model")->required();
  lower->add_option("--spec", la.spec, "TOSA target, e.g. TOSA-1.0+INT, TOSA-1.0+INT+int16, TOSA-1.1+FP+mxfp");
  lower->add_option("--target", la.target, "Cortex-M target: cortex-m55 | cortex-m4 | cortex-m0 (writes a C++ plan header)");
  lower->add_option("--scheme", la.scheme,
                    "int8 | a16w8 | mxfp8_e4m3 | mxfp8_e5m2 | mxfp6_e2m3 | mxfp6_e3m2 | mxfp4 (default: from the model)");
  lower->add_option("--calib", la.calib, "float32 .npy of calibration inputs (rows x in_features) for float models");
  lower->add_option("--rounding", la.rounding, "RESCALE rounding: single | double (default: double when the spec has doubleround)");
  lower->add_option("--namespace", la.ns, "C++ namespace of the plan header (default: the output file's stem)");
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

  std::string check_file, check_spec;
  bool check_json = false;
  auto* check = app.add_subcommand("check", "list every op/dtype of a .tosa file that a TOSA spec does not allow");
  check->add_option("file", check_file, "the .tosa file")->required();
  check->add_option("--spec", check_spec, "TOSA target, e.g. TOSA-1.0+INT")->required();
  check->add_flag("--json", check_json, "print the findings as JSON");

  std::string inspect_file;
  bool inspect_json = false;
  auto* inspect = app.add_subcommand("inspect", "show ops, tensors, dtypes, shapes and constant bytes of a .tosa or .tflite");
  inspect->add_option("file", inspect_file, "the .tosa or .tflite file")->required();
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
  try {
    if (*lower) return cmd_lower(la);
    if (*run) return cmd_run(run_file, run_inputs, run_outputs, run_json);
    if (*check) return cmd_check(check_file, check_spec, check_json);
    if (*inspect) return cmd_inspect(inspect_file, inspect_json);
    if (*demo) return armlower::tool::run_demo(demo_opt, progress);
  } catch (const std::exception& e) {
    std::cerr << "armlower: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
