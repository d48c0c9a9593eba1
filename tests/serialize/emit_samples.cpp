// Writes every sample graph of sample_graphs.hpp as <dir>/<name>.tosa (armlower's writer, via
// write_file) plus <dir>/<name>.json, a neutral description of the same graph (tensors with
// their logical constant values: integers, fp32 values, or raw element codes for the
// FP8/FP6/FP4/E8M0 formats; operators with their attributes). tosa_oracle.py rebuilds each
// graph from the JSON with tosa-tools' own serializer and compares.
// Usage: serialize_emit_samples <dir>
#include "sample_graphs.hpp"

#include <armlower/graph/constant.hpp>
#include <armlower/serialize.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace armlower;

namespace {

std::string quote(const std::string& s) { return "\"" + s + "\""; }

template <class T>
std::string list(const std::vector<T>& v) {
  std::ostringstream o;
  o << '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) o << ',';
    if constexpr (std::is_same_v<T, std::string>) {
      o << quote(v[i]);
    } else if constexpr (std::is_floating_point_v<T>) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v[i]));
      o << buf;
    } else {
      o << static_cast<long long>(v[i]);
    }
  }
  o << ']';
  return o.str();
}

std::string tensor_json(const graph::tensor& t) {
  std::ostringstream o;
  o << "{\"name\":" << quote(t.name) << ",\"dtype\":" << quote(std::string(dtype::name(t.type)))
    << ",\"shape\":" << list(t.shape);
  if (t.is_constant) {
    const auto n = graph::element_count(t.shape);
    const auto& ti = dtype::traits(t.type);
    if (ti.fam == dtype::family::integer || ti.fam == dtype::family::boolean || ti.fam == dtype::family::shape)
      o << ",\"ints\":" << list(graph::decode_ints(t.type, t.data, n));
    else if (t.type == dtype::id::fp32)
      o << ",\"f32\":" << list(graph::decode_f32(t.data, n));
    else
      o << ",\"codes\":" << list(graph::decode_codes(t.type, t.data, n));
  }
  o << '}';
  return o.str();
}

std::string attr_json(const graph::attribute& a) {
  std::ostringstream o;
  if (const auto* c = std::get_if<graph::conv2d_attr>(&a)) {
    o << "{\"pad\":" << list(std::vector<int>(c->pad.begin(), c->pad.end()))
      << ",\"stride\":" << list(std::vector<int>(c->stride.begin(), c->stride.end()))
      << ",\"dilation\":" << list(std::vector<int>(c->dilation.begin(), c->dilation.end()))
      << ",\"local_bound\":" << (c->local_bound ? "true" : "false") << ",\"acc_type\":"
      << quote(std::string(dtype::name(c->acc_type))) << '}';
  } else if (const auto* r = std::get_if<graph::rescale_attr>(&a)) {
    o << "{\"scale32\":" << (r->scale32 ? "true" : "false") << ",\"rounding_mode\":" << static_cast<int>(r->rounding)
      << ",\"per_channel\":" << (r->per_channel ? "true" : "false")
      << ",\"input_unsigned\":" << (r->input_unsigned ? "true" : "false")
      << ",\"output_unsigned\":" << (r->output_unsigned ? "true" : "false") << '}';
  } else if (const auto* t = std::get_if<graph::transpose_attr>(&a)) {
    o << "{\"perms\":" << list(t->perms) << '}';
  } else if (const auto* cl = std::get_if<graph::clamp_attr>(&a)) {
    o << "{\"min_val\":" << list(std::vector<double>{cl->min_val}) << ",\"max_val\":"
      << list(std::vector<double>{cl->max_val}) << ",\"nan_mode\":" << static_cast<int>(cl->nan) << '}';
  } else if (const auto* b = std::get_if<graph::block_scaled_attr>(&a)) {
    o << "{\"block_size\":" << b->block_size << '}';
  } else {
    o << "{}";
  }
  return o.str();
}

}  // namespace

/// `--reread <dir>`: every <name>.ref.tosa (written by tosa-tools' serializer) must be read by
/// armlower's reader, and writing the graph read gives exactly armlower's <name>.tosa.
int reread(const std::string& dir) {
  int bad = 0, n = 0;
  for (const auto& s : sample::all()) {
    const auto ref = serialize::read_file(dir + "/" + s.name + ".ref.tosa");
    const auto mine = serialize::read_file(dir + "/" + s.name + ".tosa");
    ++n;
    if (!ref || !mine) {
      std::cerr << s.name << ": " << (ref ? mine.error().line() : ref.error().line()) << '\n';
      ++bad;
      continue;
    }
    const auto a = serialize::write(ref->graph, ref->version);
    const auto b = serialize::write(s.g, s.version);
    if (!a || !b || *a != *b) {
      std::cerr << s.name << ": rewriting tosa_serializer's file does not give armlower's bytes\n";
      ++bad;
    }
  }
  std::cout << n - bad << "/" << n << " tosa_serializer files read and rewritten to armlower's bytes\n";
  return bad == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--reread") return reread(argv[2]);
  if (argc != 2) {
    std::cerr << "usage: serialize_emit_samples <dir> | --reread <dir>\n";
    return 2;
  }
  const std::string dir = argv[1];
  for (const auto& s : sample::all()) {
    const auto bytes = serialize::write(s.g, s.version);
    if (!bytes) {
      std::cerr << s.name << ": " << bytes.error().line() << '\n';
      return 1;
    }
    if (auto w = serialize::write_file(dir + "/" + s.name + ".tosa", *bytes); !w) {
      std::cerr << w.error().line() << '\n';
      return 1;
    }
    std::ofstream j(dir + "/" + s.name + ".json");
    const auto h = serialize::header_of(s.version);
    j << "{\"version\":[" << h.major << ',' << h.minor << ',' << h.patch << ',' << (h.draft ? "true" : "false")
      << "],\n\"tensors\":[\n";
    for (std::size_t i = 0; i < s.g.tensors.size(); ++i)
      j << (i ? ",\n" : "") << tensor_json(s.g.tensors[i]);
    j << "],\n\"operators\":[\n";
    for (std::size_t i = 0; i < s.g.operators.size(); ++i) {
      const auto& o = s.g.operators[i];
      j << (i ? ",\n" : "") << "{\"op\":" << quote(std::string(o.op_name())) << ",\"inputs\":" << list(o.inputs)
        << ",\"outputs\":" << list(o.outputs) << ",\"attr\":" << attr_json(o.attr) << '}';
    }
    j << "],\n\"inputs\":" << list(s.g.inputs) << ",\"outputs\":" << list(s.g.outputs) << "}\n";
    if (!j) {
      std::cerr << "cannot write " << dir << "/" << s.name << ".json\n";
      return 1;
    }
  }
  return 0;
}
