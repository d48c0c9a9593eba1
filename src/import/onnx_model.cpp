// The parsed-model layer of armlower's `.onnx` importer (onnx_model.hpp): parsing, header checks,
// initializer decoding, listings for `inspect_onnx` (armlower/import/onnx.hpp).
// Model format: ONNX IR spec (docs/IR.md), onnx.proto, IR version 10 (external data: the IR
// spec's "External Tensor Data").
#include "onnx_model.hpp"

#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>

namespace armlower::import {

namespace onnx_detail {

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}
std::string shape_text32(const std::vector<std::int32_t>& s) {
  return shape_text(std::vector<std::int64_t>(s.begin(), s.end()));
}
std::string float_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

/// ONNX element type name (ONNX IR spec, "Tensor Element Types").
std::string elem_name(std::int32_t t) {
  switch (t) {
    case 1: return "FLOAT";
    case 2: return "UINT8";
    case 3: return "INT8";
    case 4: return "UINT16";
    case 5: return "INT16";
    case 6: return "INT32";
    case 7: return "INT64";
    case 8: return "STRING";
    case 9: return "BOOL";
    case 10: return "FLOAT16";
    case 11: return "DOUBLE";
    case 12: return "UINT32";
    case 13: return "UINT64";
    case 16: return "BFLOAT16";
    case 17: return "FLOAT8E4M3FN";
    case 19: return "FLOAT8E5M2";
    case 21: return "UINT4";
    case 22: return "INT4";
    case 0: return "UNDEFINED";
    default: return "TYPE_" + std::to_string(t);
  }
}
/// Bytes per element of the fixed-size types armlower reads (0 = not readable).
std::size_t elem_size(std::int32_t t) {
  switch (t) {
    case 1: case 6: case 12: return 4;
    case 2: case 3: case 9: return 1;
    case 4: case 5: case 10: case 16: return 2;
    case 7: case 11: case 13: return 8;
    default: return 0;
  }
}


/// Checked element count of `dims` (each ≥ 0, total ≤ 2^31). Throws naming `who`.
std::int64_t checked_count(const std::vector<std::int64_t>& dims, const std::string& who) {
  std::int64_t n = 1;
  for (auto d : dims) {
    if (d < 0 || (d > 0 && n > max_elements / d))
      throw import_error(who + " has an invalid shape " + shape_text(dims) +
                         " (dims must be >= 0 and the tensor at most 2^31 elements)");
    n *= d;
  }
  return n;
}


/// The value of key `k` of a TensorProto's external_data, or nullptr.
const std::string* ext_key(const pb::TensorProto& t, const char* k) {
  for (const auto& e : t.external_data())
    if (e.key() == k) return &e.value();
  return nullptr;
}

/// Parses a non-negative decimal (external-data offset/length). Throws naming `who`.
std::uint64_t parse_u64(const std::string& s, const std::string& who) {
  if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw import_error(who + ": '" + s + "' is not a non-negative integer");
  return std::stoull(s);
}

/// The external-data file of `t`, checked: `location` relative, inside `dir` after resolving
/// "..", symlinks included. Throws naming the initializer.
fs::path external_path(const model_ctx& c, const pb::TensorProto& t, const std::string& who) {
  const auto* loc = ext_key(t, "location");
  if (loc == nullptr || loc->empty()) throw import_error(who + ": external data without a 'location'");
  if (loc->find('\0') != std::string::npos) throw import_error(who + ": external data location contains a NUL byte");
  const fs::path rel(*loc);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    throw import_error(who + ": external data location '" + *loc +
                       "' is an absolute path (it must be relative to the model's folder)");
  std::error_code ec;
  const auto base = fs::weakly_canonical(c.dir.empty() ? fs::path(".") : c.dir, ec);
  if (ec) throw import_error(who + ": cannot resolve the model's folder " + c.dir.string());
  auto full = fs::weakly_canonical(base / rel, ec);
  if (ec) throw import_error(who + ": cannot resolve external data location '" + *loc + "'");
  const auto r = full.lexically_relative(base);
  if (r.empty() || *r.begin() == "..")
    throw import_error(who + ": external data location '" + *loc + "' escapes the model's folder " + base.string());
  if (!fs::is_regular_file(full, ec))
    throw import_error(who + ": external data file '" + *loc + "' does not exist (looked for " + full.string() + ")");
  return full;
}

/// Decodes initializer/attribute tensor `t` (all storage forms). Throws naming `who` on a type
/// armlower cannot read, data shorter or longer than the shape, bad external data.
const_tensor decode(const model_ctx& c, const pb::TensorProto& t, const std::string& who) {
  const_tensor r;
  r.elem = t.data_type();
  r.dims.assign(t.dims().begin(), t.dims().end());
  const auto n = checked_count(r.dims, who);
  const auto es = elem_size(r.elem);
  if (es == 0) throw import_error(who + " has element type " + elem_name(r.elem) + ", which armlower does not read");
  const auto need = static_cast<std::uint64_t>(n) * es;
  auto short_msg = [&](std::uint64_t have, const char* unit) {
    return who + " has " + std::to_string(have) + " " + unit + ", its shape " + shape_text(r.dims) + " of " +
           elem_name(r.elem) + " needs " + std::to_string(unit[0] == 'b' ? need : static_cast<std::uint64_t>(n));
  };
  if (t.data_location() == pb::TensorProto::EXTERNAL) {
    const auto p = external_path(c, t, who);
    std::uint64_t off = 0, len = need;
    if (const auto* o = ext_key(t, "offset")) off = parse_u64(*o, who + " external data offset");
    if (const auto* l = ext_key(t, "length")) len = parse_u64(*l, who + " external data length");
    if (len != need) throw import_error(short_msg(len, "bytes (external data length)"));
    std::error_code ec;
    const auto fsz = fs::file_size(p, ec);
    if (ec) throw import_error(who + ": cannot read external data file " + p.string());
    if (off > fsz || fsz - off < need)
      throw import_error(who + ": external data file " + p.string() + " has " + std::to_string(fsz) +
                         " bytes, the tensor needs " + std::to_string(need) + " from offset " + std::to_string(off) +
                         " (short data)");
    std::ifstream f(p, std::ios::binary);
    r.bytes.resize(static_cast<std::size_t>(need));
    f.seekg(static_cast<std::streamoff>(off));
    if (need && !f.read(reinterpret_cast<char*>(r.bytes.data()), static_cast<std::streamsize>(need)))
      throw import_error(who + ": reading external data file " + p.string() + " failed");
    return r;
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != need) throw import_error(short_msg(t.raw_data().size(), "bytes of raw_data"));
    r.bytes.assign(t.raw_data().begin(), t.raw_data().end());
    return r;
  }
  r.bytes.resize(static_cast<std::size_t>(need));
  auto put = [&](std::size_t i, std::uint64_t v) {
    for (std::size_t b = 0; b < es; ++b) r.bytes[i * es + b] = static_cast<std::uint8_t>(v >> (8 * b));
  };
  auto check_n = [&](std::size_t have) {
    if (have != static_cast<std::size_t>(n)) throw import_error(short_msg(have, "values"));
  };
  switch (r.elem) {
    case 1:
      check_n(static_cast<std::size_t>(t.float_data_size()));
      if (n) std::memcpy(r.bytes.data(), t.float_data().data(), need);
      break;
    case 11:
      check_n(static_cast<std::size_t>(t.double_data_size()));
      if (n) std::memcpy(r.bytes.data(), t.double_data().data(), need);
      break;
    case 7:
      check_n(static_cast<std::size_t>(t.int64_data_size()));
      for (int i = 0; i < t.int64_data_size(); ++i) put(static_cast<std::size_t>(i), static_cast<std::uint64_t>(t.int64_data(i)));
      break;
    case 12: case 13:
      check_n(static_cast<std::size_t>(t.uint64_data_size()));
      for (int i = 0; i < t.uint64_data_size(); ++i) put(static_cast<std::size_t>(i), t.uint64_data(i));
      break;
    default:  // INT8, UINT8, INT16, UINT16, INT32, BOOL, FLOAT16, BFLOAT16 live in int32_data
      check_n(static_cast<std::size_t>(t.int32_data_size()));
      for (int i = 0; i < t.int32_data_size(); ++i)
        put(static_cast<std::size_t>(i), static_cast<std::uint64_t>(static_cast<std::int64_t>(t.int32_data(i))));
      break;
  }
  return r;
}

/// Parses and checks the header of a model (ir_version, opsets, graph, initializer names).
void open_model(model_ctx& c, std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) throw import_error(c.what + ": empty file (not an ONNX model)");
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw import_error(c.what + ": " + std::to_string(bytes.size()) + " bytes is more than protobuf reads in one message (2 GiB)");
  // protobuf logs some findings (a string field that is not UTF-8, say) to stderr itself; the
  // importer reports in one line of its own, so its log goes nowhere (set once, before parsing).
  static const bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  static_cast<void>(quiet);
  if (!c.m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw import_error(c.what + ": not an ONNX model (protobuf parse failed: truncated or corrupt)");
  if (!c.m.has_graph()) throw import_error(c.what + ": not an ONNX model (no graph)");
  if (!c.m.has_ir_version()) throw import_error(c.what + ": not an ONNX model (no ir_version)");
  const auto ir = c.m.ir_version();
  if (ir < onnx_min_ir_version || ir > onnx_max_ir_version)
    throw import_error(c.what + ": ir_version " + std::to_string(ir) + " is not supported (armlower reads " +
                       std::to_string(onnx_min_ir_version) + ".." + std::to_string(onnx_max_ir_version) + ")");
  std::optional<std::int64_t> opset;
  for (const auto& o : c.m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  if (!opset) throw import_error(c.what + ": the model imports no default operator set (domain \"\" / ai.onnx)");
  if (*opset < onnx_min_opset || *opset > onnx_max_opset)
    throw import_error(c.what + ": opset " + std::to_string(*opset) + " of the default domain is not supported (armlower reads " +
                       std::to_string(onnx_min_opset) + ".." + std::to_string(onnx_max_opset) + ")");
  for (const auto& t : c.m.graph().initializer()) {
    if (t.name().empty()) throw import_error(c.what + ": an initializer has no name");
    if (!c.inits.emplace(t.name(), &t).second)
      throw import_error(c.what + ": initializer '" + t.name() + "' is given twice");
  }
}

std::string attr_text(const pb::AttributeProto& a) {
  std::string s = a.name() + "=";
  switch (a.type()) {
    case pb::AttributeProto::FLOAT: return s + float_text(a.f());
    case pb::AttributeProto::INT: return s + std::to_string(a.i());
    case pb::AttributeProto::STRING: return s + "'" + a.s().substr(0, 64) + "'";
    case pb::AttributeProto::INTS: {
      std::vector<std::int64_t> v(a.ints().begin(), a.ints().end());
      return s + shape_text(v);
    }
    case pb::AttributeProto::FLOATS: return s + std::to_string(a.floats_size()) + " floats";
    case pb::AttributeProto::TENSOR: return s + "tensor" + shape_text({a.t().dims().begin(), a.t().dims().end()});
    default: return s + "(" + pb::AttributeProto::AttributeType_Name(a.type()) + ")";
  }
}

onnx_value value_of(const pb::ValueInfoProto& v) {
  onnx_value r;
  r.name = v.name();
  if (v.type().has_tensor_type()) {
    const auto& tt = v.type().tensor_type();
    r.type_name = elem_name(tt.elem_type());
    r.has_shape = tt.has_shape();
    for (const auto& d : tt.shape().dim()) {
      r.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
      r.dim_params.push_back(d.has_dim_param() ? d.dim_param() : "");
    }
  }
  return r;
}

onnx_node node_of(const pb::NodeProto& n, std::size_t i) {
  onnx_node r;
  r.index = i;
  r.name = n.name();
  r.op_type = n.op_type();
  r.domain = n.domain();
  r.inputs.assign(n.input().begin(), n.input().end());
  r.outputs.assign(n.output().begin(), n.output().end());
  for (const auto& a : n.attribute()) r.attributes += (r.attributes.empty() ? "" : " ") + attr_text(a);
  return r;
}

}  // namespace onnx_detail

using namespace onnx_detail;

std::string onnx_node_label(const onnx_node& n) {
  return (n.domain.empty() ? "" : n.domain + ".") + n.op_type + " '" + n.name + "'";
}

expected<onnx_model> inspect_onnx(std::span<const std::uint8_t> bytes, const std::string& what, const fs::path& model_dir) {
  return guarded(what, [&] {
  model_ctx c{what, model_dir, {}, {}};
  open_model(c, bytes);
  onnx_model r;
  r.ir_version = c.m.ir_version();
  r.producer = c.m.producer_name() + (c.m.producer_version().empty() ? "" : " " + c.m.producer_version());
  for (const auto& o : c.m.opset_import()) r.opsets.emplace_back(o.domain(), o.version());
  const auto& g = c.m.graph();
  r.graph_name = g.name();
  for (int k = 0; k < g.node_size(); ++k) r.nodes.push_back(node_of(g.node(k), static_cast<std::size_t>(k)));
  for (const auto& t : g.initializer()) {
    onnx_value v;
    v.name = t.name();
    v.type_name = elem_name(t.data_type());
    v.shape.assign(t.dims().begin(), t.dims().end());
    v.dim_params.assign(v.shape.size(), "");
    v.has_shape = true;
    v.external = t.data_location() == pb::TensorProto::EXTERNAL;
    v.bytes = decode(c, t, what + ": initializer '" + t.name() + "'").bytes.size();
    r.initializers.push_back(std::move(v));
  }
  for (const auto& v : g.input())
    if (!c.inits.count(v.name())) r.inputs.push_back(value_of(v));
  for (const auto& v : g.output()) r.outputs.push_back(value_of(v));
  return r;
  });
}

bool looks_like_onnx(std::span<const std::uint8_t> bytes) noexcept {
  if (bytes.size() >= 8) {
    const std::string_view id(reinterpret_cast<const char*>(bytes.data() + 4), 4);
    if (id == "TFL3" || id == "TOSA") return false;
  }
  // first key: ir_version (field 1, varint: 0x08) as every ONNX writer puts it first; also
  // producer_name (0x12), graph (0x3A), opset_import (0x42)
  return !bytes.empty() && (bytes[0] == 0x08 || bytes[0] == 0x12 || bytes[0] == 0x3A || bytes[0] == 0x42);
}

}  // namespace armlower::import
