// The `.onnx` importer of armlower (declared and documented in armlower/import/onnx.hpp).
// Semantics of the ONNX operators: https://onnx.ai/onnx/operators/ (Gemm, MatMul, Add, Relu,
// Clip, Reshape, Flatten, Identity, QuantizeLinear, DequantizeLinear); model format: ONNX IR
// spec (docs/IR.md), onnx.proto, IR version 10; QDQ layout: onnxruntime quantization docs
// (https://onnxruntime.ai/docs/performance/model-optimizations/quantization.html).
#include "onnx_model.hpp"

#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/io/file.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace armlower::import {

namespace {

using namespace onnx_detail;

// ------------------------------------------------------------------------------- the importer
/// Type, shape and quantization of a value as the framework graph will hold it.
struct val {
  dtype::id type = dtype::id::fp32;
  std::vector<std::int32_t> shape;
  std::optional<graph::quant_params> quant;
  std::int32_t onnx_elem = 1;  ///< ONNX element type as stored
};

/// A constant operand after following Identity and DequantizeLinear of an initializer.
struct const_operand {
  const_tensor t;                            ///< the stored values (codes when quantized)
  bool quantized = false;                    ///< behind a DequantizeLinear
  std::vector<float> scale;                  ///< one, or one per `axis` slice
  std::vector<std::int64_t> zero_point;      ///< as stored (unflipped), same length as scale
  std::int64_t axis = 0;                     ///< normalized axis of per-axis quantization
};

struct candidate {
  std::string reason;
  std::vector<graph::operation> ops;
  std::vector<graph::tensor> defs;          ///< tensors this node's ops define (outputs, constants)
  std::vector<std::string> uses;            ///< non-constant values it reads or writes (region links)
  bool has_linear = false;
  bool folded_into_producer = false;        ///< an Add folded into the linear before it
};

class importer {
 public:
  importer(model_ctx& c, const import_options& opt) : c_(c), g_(c.m.graph()), opt_(opt) {}

  import_result run();

 private:
  model_ctx& c_;
  const pb::GraphProto& g_;
  import_options opt_;
  std::vector<onnx_node> nodes_;
  std::unordered_map<std::string, std::size_t> producer_;           // value → node index
  std::unordered_map<std::string, std::vector<std::size_t>> readers_;
  std::unordered_map<std::string, val> vals_;                       // known values
  std::unordered_map<std::string, std::string> unknown_why_;        // value → why its shape is unknown
  std::unordered_set<std::string> graph_outputs_;
  std::unordered_set<std::string> names_;                           // every name in use
  std::vector<candidate> cand_;
  std::vector<bool> is_const_node_;

  std::string where(std::size_t i) const { return c_.what + ": node #" + std::to_string(i) + " " + onnx_node_label(nodes_[i]); }
  std::string fresh(const std::string& base) {
    std::string n = base;
    for (int k = 1; names_.count(n); ++k) n = base + "_" + std::to_string(k);
    names_.insert(n);
    return n;
  }
  const pb::NodeProto& pnode(std::size_t i) const { return g_.node(static_cast<int>(i)); }
  const pb::AttributeProto* attr(std::size_t i, const char* name) const {
    for (const auto& a : pnode(i).attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  std::int64_t attr_i(std::size_t i, const char* name, std::int64_t dflt) const {
    const auto* a = attr(i, name);
    return a ? a->i() : dflt;
  }
  float attr_f(std::size_t i, const char* name, float dflt) const {
    const auto* a = attr(i, name);
    return a ? a->f() : dflt;
  }
  std::string in(std::size_t i, std::size_t k) const {
    const auto& n = nodes_[i];
    return k < n.inputs.size() ? n.inputs[k] : std::string();
  }

  void check_order();
  void graph_input_vals();
  bool is_constant_value(const std::string& v) const;
  std::optional<const_operand> constant(const std::string& v, std::string& why);
  void q_params(std::size_t i, const std::string& scale, const std::string& zp, std::int64_t rank, std::int64_t axis,
                const_operand& out);
  void translate(std::size_t i);
  void add_linear(std::size_t i, candidate& cd, const std::string& x, const_operand w, bool w_is_kn,
                  std::optional<const_operand> bias, float alpha, float beta, const std::string& y);
  void add_identity_linear(std::size_t i, candidate& cd, const std::string& x, const const_operand& b, const std::string& y);
  std::optional<graph::quant_params> act_quant(std::size_t i, const const_operand& q, dtype::id& type);
};

bool importer::is_constant_value(const std::string& v) const {
  if (c_.inits.count(v)) return true;
  const auto it = producer_.find(v);
  return it != producer_.end() && is_const_node_[it->second];
}

/// Nodes must be topologically sorted and write each value once (ONNX IR spec, "Graphs"); a
/// node reading a value written later (or by itself) is a cycle.
void importer::check_order() {
  std::unordered_set<std::string> graph_in;
  for (const auto& v : g_.input()) graph_in.insert(v.name());
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    for (const auto& o : nodes_[i].outputs) {
      if (o.empty()) continue;
      if (graph_in.count(o) || c_.inits.count(o))
        throw import_error(where(i) + ": writes '" + o + "', which is a graph input or initializer");
      const auto [it, ok] = producer_.emplace(o, i);
      if (!ok)
        throw import_error(where(i) + ": writes '" + o + "', also written by node #" + std::to_string(it->second) +
                           " (each value must be written once)");
    }
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    for (const auto& v : nodes_[i].inputs) {
      if (v.empty()) continue;
      readers_[v].push_back(i);
      if (c_.inits.count(v) || graph_in.count(v)) continue;
      const auto it = producer_.find(v);
      if (it == producer_.end())
        throw import_error(where(i) + ": reads '" + v + "', which no node, graph input or initializer provides");
      if (it->second >= i)
        throw import_error(where(i) + ": reads '" + v + "', written by node #" + std::to_string(it->second) +
                           (it->second == i ? " itself" : " later") +
                           " (nodes must be in topological order: a cycle?)");
    }
  for (const auto& o : g_.output()) {
    graph_outputs_.insert(o.name());
    if (!producer_.count(o.name()) && !graph_in.count(o.name()) && !c_.inits.count(o.name()))
      throw import_error(c_.what + ": graph output '" + o.name() + "' is not written by any node");
  }
}

/// Graph inputs: FLOAT / INT8 / INT16 / UINT8 / UINT16 tensors of a known shape; a symbolic or
/// unknown leading dimension becomes 1 (the batch), any other symbolic dimension makes the value
/// unknown (with the reason kept for the nodes that read it).
void importer::graph_input_vals() {
  auto note = [&](const pb::ValueInfoProto& v) {
    const auto ov = value_of(v);
    if (!v.type().has_tensor_type() || !ov.has_shape) {
      unknown_why_[v.name()] = "value '" + v.name() + "' has no tensor shape";
      return;
    }
    val x;
    x.onnx_elem = v.type().tensor_type().elem_type();
    switch (x.onnx_elem) {
      case 1: x.type = dtype::id::fp32; break;
      case 2: case 3: x.type = dtype::id::i8; break;
      case 4: case 5: x.type = dtype::id::i16; break;
      case 6: x.type = dtype::id::i32; break;
      default:
        unknown_why_[v.name()] = "value '" + v.name() + "' has element type " + ov.type_name;
        return;
    }
    for (std::size_t d = 0; d < ov.shape.size(); ++d) {
      auto s = ov.shape[d];
      if (s < 0 && d == 0) s = 1;  // symbolic batch (graph inputs, and value_info written with it)
      if (s <= 0 || s > std::numeric_limits<std::int32_t>::max()) {
        unknown_why_[v.name()] = "value '" + v.name() + "' has shape " + shape_text(ov.shape) +
                                 (s < 0 ? " (only the leading batch dimension may be symbolic; it is imported as 1)" : "");
        return;
      }
      x.shape.push_back(static_cast<std::int32_t>(s));
    }
    if (x.shape.size() > 6) {
      unknown_why_[v.name()] = "value '" + v.name() + "' has rank " + std::to_string(x.shape.size()) + " (TOSA allows 0..6)";
      return;
    }
    vals_[v.name()] = std::move(x);
  };
  for (const auto& v : g_.input())
    if (!c_.inits.count(v.name())) note(v);
  // value_info / outputs: used only for values no supported node computes (after an unsupported one)
  for (const auto& v : g_.value_info())
    if (!vals_.count(v.name())) note(v);
}

/// Scale / zero point of a Q/DQ node `i` (inputs `scale`, `zp`), for a tensor of rank `rank` with
/// per-axis `axis`. Errors: non-constant, zero/negative/non-finite scale, length mismatch.
void importer::q_params(std::size_t i, const std::string& scale, const std::string& zp, std::int64_t rank,
                        std::int64_t axis, const_operand& out) {
  std::string why;
  auto s = constant(scale, why);
  if (!s) throw import_error(where(i) + ": scale '" + scale + "' is not a constant" + (why.empty() ? "" : " (" + why + ")"));
  if (s->t.elem != 1)
    throw import_error(where(i) + ": scale '" + scale + "' has type " + elem_name(s->t.elem) + " (armlower reads FLOAT scales)");
  const auto ns = s->t.count();
  if (s->t.dims.size() > 1 || ns < 1)
    throw import_error(where(i) + ": scale '" + scale + "' has shape " + shape_text(s->t.dims) +
                       " (a scalar, or 1-D per axis)");
  std::optional<const_operand> z;
  if (!zp.empty()) {
    z = constant(zp, why);
    if (!z) throw import_error(where(i) + ": zero point '" + zp + "' is not a constant");
    if (z->t.count() != ns)
      throw import_error(where(i) + ": zero point '" + zp + "' has " + std::to_string(z->t.count()) + " values, scale '" +
                         scale + "' has " + std::to_string(ns));
  }
  out.quantized = true;
  out.scale.clear();
  out.zero_point.clear();
  for (std::int64_t k = 0; k < ns; ++k) {
    const auto v = s->t.real(static_cast<std::size_t>(k));
    if (!std::isfinite(v) || !(v > 0))
      throw import_error(where(i) + ": scale '" + scale + "' is " + float_text(v) +
                         (ns > 1 ? " at index " + std::to_string(k) : std::string()) + " (a scale must be finite and > 0)");
    out.scale.push_back(static_cast<float>(v));
    out.zero_point.push_back(z ? z->t.integer(static_cast<std::size_t>(k)) : 0);
  }
  out.axis = 0;
  if (ns > 1) {
    if (axis < -rank || axis >= rank)
      throw import_error(where(i) + ": axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank));
    out.axis = axis < 0 ? axis + rank : axis;
  }
}

/// The constant behind `v`: an initializer, a Constant node's value, through Identity and through
/// DequantizeLinear of a constant (then `quantized` with its scale/zero point). `why` says why not.
std::optional<const_operand> importer::constant(const std::string& v, std::string& why) {
  if (const auto it = c_.inits.find(v); it != c_.inits.end()) {
    const_operand r;
    r.t = decode(c_, *it->second, c_.what + ": initializer '" + v + "'");
    return r;
  }
  const auto it = producer_.find(v);
  if (it == producer_.end() || !is_const_node_[it->second]) {
    why = "'" + v + "' is computed, not a constant";
    return std::nullopt;
  }
  const auto i = it->second;
  const auto& op = nodes_[i].op_type;
  if (op == "Constant") {
    const auto* a = attr(i, "value");
    if (!a || a->type() != pb::AttributeProto::TENSOR) {
      why = "Constant node #" + std::to_string(i) + " has no 'value' tensor";
      return std::nullopt;
    }
    const_operand r;
    r.t = decode(c_, a->t(), where(i) + ": value");
    return r;
  }
  if (op == "Identity") return constant(in(i, 0), why);
  // DequantizeLinear of a constant
  auto codes = constant(in(i, 0), why);
  if (!codes) return std::nullopt;
  if (codes->quantized) {
    why = "DequantizeLinear of a dequantized value";
    return std::nullopt;
  }
  const auto elem = codes->t.elem;
  if (elem != 2 && elem != 3 && elem != 4 && elem != 5 && elem != 6) {
    why = "DequantizeLinear of " + elem_name(elem) + " (armlower reads INT8/UINT8/INT16/UINT16/INT32)";
    return std::nullopt;
  }
  if (attr_i(i, "block_size", 0) != 0) {
    why = "blocked DequantizeLinear (block_size != 0)";
    return std::nullopt;
  }
  const auto rank = static_cast<std::int64_t>(codes->t.dims.size());
  q_params(i, in(i, 1), in(i, 2), rank, attr_i(i, "axis", 1), *codes);
  if (codes->scale.size() > 1 &&
      static_cast<std::int64_t>(codes->scale.size()) != codes->t.dims[static_cast<std::size_t>(codes->axis)])
    throw import_error(where(i) + ": scale '" + in(i, 1) + "' has " + std::to_string(codes->scale.size()) +
                       " values for axis " + std::to_string(codes->axis) + " of '" + in(i, 0) + "' with shape " +
                       shape_text(codes->t.dims));
  codes->t.elem = elem;
  return codes;
}

/// Maps ONNX integer types to the TOSA ones: UINT8 → INT8 and UINT16 → INT16 with the zero point
/// shifted by −128 / −32768 (real = s·(q − z) unchanged).
std::int64_t flip_offset(std::int32_t elem) { return elem == 2 ? 128 : elem == 4 ? 32768 : 0; }
dtype::id int_type(std::int32_t elem) {
  switch (elem) {
    case 2: case 3: return dtype::id::i8;
    case 4: case 5: return dtype::id::i16;
    default: return dtype::id::i32;
  }
}

graph::quant_params make_quant(const const_operand& q, dtype::id type, std::int64_t axis) {
  graph::quant_params p;
  p.scale = q.scale;
  const auto off = flip_offset(q.t.elem);
  for (auto z : q.zero_point) p.zero_point.push_back(static_cast<std::int32_t>(z - off));
  p.per_channel = q.scale.size() > 1;
  p.axis = static_cast<std::int32_t>(axis);
  p.qmin = dtype::traits(type).int_min;
  p.qmax = dtype::traits(type).int_max;
  return p;
}

/// Activation qparams of a Q/DQ node: per-tensor only.
std::optional<graph::quant_params> importer::act_quant(std::size_t, const const_operand& q, dtype::id& type) {
  if (q.scale.size() != 1) return std::nullopt;
  type = int_type(q.t.elem);
  return make_quant(q, type, 0);
}

/// Emits linear(x, W, b) writing `y`: W [Cout, Cin] from `w` ([Cin, Cout] when `w_is_kn`),
/// float weights scaled by alpha, bias (float ×beta, or quantized) broadcast to [Cout].
void importer::add_linear(std::size_t i, candidate& cd, const std::string& x, const_operand w, bool w_is_kn,
                          std::optional<const_operand> bias, float alpha, float beta, const std::string& y) {
  const auto& xv = vals_.at(x);
  if (w.t.dims.size() != 2) {
    cd.reason = "weights '" + in(i, 1) + "' have shape " + shape_text(w.t.dims) + " (expected 2-D)";
    return;
  }
  const auto cin = w_is_kn ? w.t.dims[0] : w.t.dims[1], cout = w_is_kn ? w.t.dims[1] : w.t.dims[0];
  if (xv.shape.empty() || xv.shape.back() != cin) {
    cd.reason = "input '" + x + "' of shape " + shape_text32(xv.shape) + " does not match weights " + shape_text(w.t.dims);
    return;
  }
  if (xv.shape.size() > 4) {
    cd.reason = "input '" + x + "' has rank " + std::to_string(xv.shape.size()) + " (a linear takes rank 1..4)";
    return;
  }
  if (xv.quant || xv.type != dtype::id::fp32) {
    cd.reason = "input '" + x + "' is " + std::string(dtype::name(xv.type)) + " (a MatMul/Gemm reads FLOAT; quantized models use DequantizeLinear)";
    return;
  }
  const auto nw = static_cast<std::size_t>(cin * cout);
  const auto ci = static_cast<std::int32_t>(cin), co = static_cast<std::int32_t>(cout);
  auto src_index = [&](std::size_t o, std::size_t k) { return w_is_kn ? k * static_cast<std::size_t>(cout) + o : o * static_cast<std::size_t>(cin) + k; };
  std::vector<std::string> ins{x};
  const bool quantized = w.quantized;
  if (!quantized) {
    if (w.t.elem != 1) {
      cd.reason = "weights '" + in(i, 1) + "' are " + elem_name(w.t.elem) + " (FLOAT, or integer codes behind a DequantizeLinear)";
      return;
    }
    std::vector<float> wv(nw);
    for (std::size_t o = 0; o < static_cast<std::size_t>(cout); ++o)
      for (std::size_t k = 0; k < static_cast<std::size_t>(cin); ++k)
        wv[o * static_cast<std::size_t>(cin) + k] = static_cast<float>(w.t.real(src_index(o, k)) * alpha);
    auto t = graph::make_f32_constant(fresh(y + "/weight"), {co, ci}, wv);
    ins.push_back(t.name);
    cd.defs.push_back(std::move(t));
  } else {
    if (!(alpha > 0.0f) || !std::isfinite(alpha)) {
      cd.reason = "alpha " + float_text(alpha) + " on quantized weights (armlower folds alpha > 0 into the weight scales)";
      return;
    }
    for (auto& sc : w.scale) sc *= alpha;  // real W = alpha·s·(q − z): exact when alpha is a power of two
    if (w.t.elem != 3 && w.t.elem != 2) {
      cd.reason = "quantized weights '" + in(i, 1) + "' are " + elem_name(w.t.elem) + " (INT8 or UINT8)";
      return;
    }
    std::int64_t axis = 0;
    if (w.scale.size() > 1) {
      const auto out_axis = w_is_kn ? 1 : 0;
      if (w.axis != out_axis) {
        cd.reason = "weights '" + in(i, 1) + "' are quantized per input channel (axis " + std::to_string(w.axis) +
                    "); armlower takes per-output-channel weights";
        return;
      }
    }
    const auto off = flip_offset(w.t.elem);
    std::vector<std::int64_t> codes(nw);
    for (std::size_t o = 0; o < static_cast<std::size_t>(cout); ++o)
      for (std::size_t k = 0; k < static_cast<std::size_t>(cin); ++k)
        codes[o * static_cast<std::size_t>(cin) + k] = w.t.integer(src_index(o, k)) - off;
    auto t = graph::make_int_constant(fresh(y + "/weight_q"), dtype::id::i8, {co, ci}, codes);
    t.quant = make_quant(w, dtype::id::i8, axis);
    graph::tensor d{fresh(t.name + "_dq"), dtype::id::fp32, {co, ci}, false, {}, std::nullopt};
    cd.ops.push_back(graph::operation{graph::framework_op::dequantize, {t.name}, {d.name}, std::monostate{}});
    ins.push_back(d.name);
    cd.defs.push_back(std::move(t));
    cd.defs.push_back(std::move(d));
  }
  if (bias) {
    const auto nb = bias->t.count();
    bool along_last = nb == cout;
    for (std::size_t d = 0; d + 1 < bias->t.dims.size(); ++d) along_last = along_last && bias->t.dims[d] == 1;
    if (!(along_last || nb == 1)) {
      cd.reason = "bias of shape " + shape_text(bias->t.dims) + " does not broadcast along the " + std::to_string(cout) + " outputs only";
      return;
    }
    auto at = [&](std::size_t o) { return nb == 1 ? 0 : o; };
    if (!bias->quantized) {
      if (bias->t.elem != 1) {
        cd.reason = "bias is " + elem_name(bias->t.elem) + " (FLOAT, or INT32 behind a DequantizeLinear)";
        return;
      }
      if (quantized) {
        cd.reason = "float bias on quantized weights (a QDQ Gemm has an INT32 bias behind a DequantizeLinear)";
        return;
      }
      std::vector<float> bv(static_cast<std::size_t>(cout));
      for (std::size_t o = 0; o < bv.size(); ++o) bv[o] = static_cast<float>(bias->t.real(at(o)) * beta);
      auto t = graph::make_f32_constant(fresh(y + "/bias"), {co}, bv);
      ins.push_back(t.name);
      cd.defs.push_back(std::move(t));
    } else {
      if (beta != 1.0f) {
        cd.reason = "beta " + float_text(beta) + " on a quantized bias (armlower takes beta = 1 there)";
        return;
      }
      if (bias->t.elem != 6 || !quantized) {
        cd.reason = "quantized bias is " + elem_name(bias->t.elem) + (quantized ? "" : " on float weights") +
                    " (an INT32 bias behind a DequantizeLinear, with quantized weights)";
        return;
      }
      std::vector<std::int64_t> codes(static_cast<std::size_t>(cout));
      for (std::size_t o = 0; o < codes.size(); ++o) codes[o] = bias->t.integer(at(o));
      auto q = *bias;
      if (q.scale.size() == 1 && w.scale.size() > 1) {  // broadcast a per-tensor bias scale
        q.scale.assign(static_cast<std::size_t>(cout), q.scale[0]);
        q.zero_point.assign(static_cast<std::size_t>(cout), q.zero_point[0]);
      }
      if (alpha != 1.0f) {
        // The linear adds the bias codes at scale s_x·s_w·alpha: re-encode b_real there (exact
        // when alpha is a power of two and the stored bias scale is s_x·s_w, as onnxruntime writes).
        const auto p = producer_.find(x);
        const val* xq = nullptr;
        if (p != producer_.end() && nodes_[p->second].op_type == "DequantizeLinear")
          if (const auto it = vals_.find(in(p->second, 0)); it != vals_.end() && it->second.quant) xq = &it->second;
        if (xq == nullptr) {
          cd.reason = "alpha != 1 with a quantized bias needs the input to come from a per-tensor DequantizeLinear";
          return;
        }
        for (std::size_t o = 0; o < codes.size(); ++o) {
          const auto qi = q.scale.size() > 1 ? o : 0;
          const double real = static_cast<double>(q.scale[qi]) * static_cast<double>(codes[o] - q.zero_point[qi]);
          const float ns = xq->quant->scale[0] * w.scale[w.scale.size() > 1 ? o : 0];
          codes[o] = static_cast<std::int64_t>(std::nearbyint(real / ns));
        }
        q.scale.resize(static_cast<std::size_t>(cout));
        q.zero_point.assign(static_cast<std::size_t>(cout), 0);
        for (std::size_t o = 0; o < codes.size(); ++o) q.scale[o] = xq->quant->scale[0] * w.scale[w.scale.size() > 1 ? o : 0];
      }
      auto t = graph::make_int_constant(fresh(y + "/bias_q"), dtype::id::i32, {co}, codes);
      t.quant = make_quant(q, dtype::id::i32, 0);
      graph::tensor d{fresh(t.name + "_dq"), dtype::id::fp32, {co}, false, {}, std::nullopt};
      cd.ops.push_back(graph::operation{graph::framework_op::dequantize, {t.name}, {d.name}, std::monostate{}});
      ins.push_back(d.name);
      cd.defs.push_back(std::move(t));
      cd.defs.push_back(std::move(d));
    }
  }
  auto ys = xv.shape;
  ys.back() = co;
  val yv;
  yv.shape = ys;
  vals_[y] = yv;
  cd.defs.push_back(graph::tensor{y, dtype::id::fp32, ys, false, {}, std::nullopt});
  cd.ops.push_back(graph::operation{graph::framework_op::linear, std::move(ins), {y}, graph::linear_attr{}});
  cd.uses = {x, y};
  cd.has_linear = true;
}

/// Add(x, constant b) that is not folded: linear(x, I, b). Float b: float identity. Quantized b
/// (QDQ model): int8 identity codes 64 with scale 2^-6 (so s_w·64 = 1 exactly) and the bias as
/// int32 codes round(b_real / (s_x·2^-6)), s_x the scale of the DequantizeLinear writing x.
void importer::add_identity_linear(std::size_t i, candidate& cd, const std::string& x, const const_operand& b,
                                   const std::string& y) {
  const auto& xv = vals_.at(x);
  const auto n = xv.shape.back();
  const auto nn = static_cast<std::size_t>(n);
  if (static_cast<std::int64_t>(nn) * static_cast<std::int64_t>(nn) > (std::int64_t{1} << 26)) {
    cd.reason = "Add over " + std::to_string(n) + " channels is too wide for an identity linear";
    return;
  }
  const_operand w;
  w.t.elem = 1;
  w.t.dims = {n, n};
  if (!b.quantized) {
    std::vector<float> eye(nn * nn, 0.0f);
    for (std::size_t k = 0; k < nn; ++k) eye[k * nn + k] = 1.0f;
    w.t.bytes = graph::encode_f32(eye);
    add_linear(i, cd, x, w, false, b, 1.0f, 1.0f, y);
    return;
  }
  // x must come from a per-tensor DequantizeLinear (its input carries the qparams)
  const auto p = producer_.find(x);
  const val* xq = nullptr;
  if (p != producer_.end() && nodes_[p->second].op_type == "DequantizeLinear")
    if (const auto it = vals_.find(in(p->second, 0)); it != vals_.end() && it->second.quant) xq = &it->second;
  if (xq == nullptr) {
    cd.reason = "quantized constant added to '" + x + "', which is not written by a per-tensor DequantizeLinear";
    return;
  }
  const float sx = xq->quant->scale[0];
  constexpr float sw = 1.0f / 64.0f;
  w.quantized = true;
  w.t.elem = 3;
  w.t.bytes.assign(nn * nn, 0);
  for (std::size_t k = 0; k < nn; ++k) w.t.bytes[k * nn + k] = 64;
  w.scale = {sw};
  w.zero_point = {0};
  const_operand bq;
  bq.quantized = true;
  bq.t.elem = 6;
  bq.t.dims = {n};
  bq.scale = {sx * sw};
  bq.zero_point = {0};
  std::vector<std::int64_t> codes(nn);
  const auto nb = b.t.count();
  for (std::size_t k = 0; k < nn; ++k) {
    const auto j = nb == 1 ? 0 : k;
    const auto off = b.zero_point.size() > 1 ? j : 0;
    const double s = b.scale.size() > 1 ? b.scale[j] : b.scale[0];
    const double real = s * static_cast<double>(b.t.integer(j) - b.zero_point[off]);
    const double c = std::nearbyint(real / (static_cast<double>(sx) * sw));
    if (!(std::abs(c) <= 2147483647.0)) {
      cd.reason = "bias value " + float_text(real) + " is not representable in int32 at the input scale";
      return;
    }
    codes[k] = static_cast<std::int64_t>(c);
  }
  std::vector<std::uint8_t> bytes;
  for (auto v : codes)
    for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * k)));
  bq.t.bytes = std::move(bytes);
  add_linear(i, cd, x, w, false, bq, 1.0f, 1.0f, y);
}

void importer::translate(std::size_t i) {
  auto& cd = cand_[i];
  const auto& n = nodes_[i];
  const auto& op = n.op_type;
  if (!(n.domain.empty() || n.domain == "ai.onnx")) {
    cd.reason = "operator domain '" + n.domain + "' is not supported";
    return;
  }
  const std::string y = n.outputs.empty() ? std::string() : n.outputs[0];
  static const std::unordered_set<std::string> known{"Gemm", "MatMul", "Add", "Relu", "Clip", "Reshape", "Flatten",
                                                      "Identity", "QuantizeLinear", "DequantizeLinear"};
  if (!known.count(op)) {
    cd.reason = "no lowering for this operator";
    return;
  }
  if (y.empty() || n.outputs.size() != 1) {
    cd.reason = "expected exactly one output";
    return;
  }
  // the non-constant data input must be known
  auto need = [&](const std::string& x) -> const val* {
    const auto it = vals_.find(x);
    if (it != vals_.end()) return &it->second;
    const auto w = unknown_why_.find(x);
    cd.reason = w != unknown_why_.end() ? w->second : "shape of '" + x + "' is unknown (it comes from a node armlower does not lower)";
    return nullptr;
  };
  std::string why;
  if (op == "Gemm" || op == "MatMul") {
    const auto* xv = need(in(i, 0));
    if (!xv) return;
    auto w = constant(in(i, 1), why);
    if (!w) {
      cd.reason = "second operand is not a constant (" + why + ")";
      return;
    }
    if (op == "MatMul") {
      add_linear(i, cd, in(i, 0), std::move(*w), true, std::nullopt, 1.0f, 1.0f, y);
      return;
    }
    if (attr_i(i, "transA", 0) != 0) {
      cd.reason = "transA = 1 is not supported";
      return;
    }
    if (xv->shape.size() != 2) {
      cd.reason = "A has rank " + std::to_string(xv->shape.size()) + " (Gemm takes 2-D A)";
      return;
    }
    std::optional<const_operand> b;
    if (!in(i, 2).empty()) {
      b = constant(in(i, 2), why);
      if (!b) {
        cd.reason = "C is not a constant (" + why + ")";
        return;
      }
    }
    add_linear(i, cd, in(i, 0), std::move(*w), attr_i(i, "transB", 0) == 0, std::move(b), attr_f(i, "alpha", 1.0f),
               attr_f(i, "beta", 1.0f), y);
    return;
  }
  if (op == "Add") {
    const bool c0 = is_constant_value(in(i, 0)), c1 = is_constant_value(in(i, 1));
    if (c0 == c1) {
      cd.reason = c0 ? "both operands are constant" : "adds two computed values (armlower lowers Add of a constant bias)";
      return;
    }
    const auto x = c0 ? in(i, 1) : in(i, 0);
    const auto* xv = need(x);
    if (!xv) return;
    auto b = constant(c0 ? in(i, 0) : in(i, 1), why);
    if (!b) {
      cd.reason = why;
      return;
    }
    if (xv->shape.empty() || xv->type != dtype::id::fp32) {
      cd.reason = "input '" + x + "' is not a FLOAT tensor of rank >= 1";
      return;
    }
    const auto nb = b->t.count(), nch = static_cast<std::int64_t>(xv->shape.back());
    bool along_last = nb == nch;
    for (std::size_t d = 0; d + 1 < b->t.dims.size(); ++d) along_last = along_last && b->t.dims[d] == 1;
    if (!(along_last || nb == 1) || b->t.dims.size() > xv->shape.size()) {
      cd.reason = "constant of shape " + shape_text(b->t.dims) + " does not broadcast along the last dimension of " +
                  shape_text32(xv->shape) + " only";
      return;
    }
    // Float model: fold into the linear that writes x when it has no bias and no other reader.
    const auto p = producer_.find(x);
    if (!b->quantized && b->t.elem == 1 && p != producer_.end() && cand_[p->second].has_linear &&
        cand_[p->second].reason.empty() && readers_[x].size() == 1 && !graph_outputs_.count(x)) {
      auto& pc = cand_[p->second];
      auto& lin = pc.ops.back();
      const auto w = std::find_if(pc.defs.begin(), pc.defs.end(), [&](const graph::tensor& t) { return t.name == lin.inputs[1]; });
      if (lin.inputs.size() == 2 && w != pc.defs.end() && w->type == dtype::id::fp32 && w->is_constant) {
        std::vector<float> bv(static_cast<std::size_t>(nch));
        for (std::size_t o = 0; o < bv.size(); ++o) bv[o] = static_cast<float>(b->t.real(nb == 1 ? 0 : o));
        auto t = graph::make_f32_constant(fresh(y + "/bias"), {static_cast<std::int32_t>(nch)}, bv);
        lin.inputs.push_back(t.name);
        lin.outputs = {y};
        for (auto& d : pc.defs)
          if (d.name == x) d.name = y;
        pc.defs.push_back(std::move(t));
        pc.uses.push_back(y);
        vals_[y] = vals_[x];
        vals_.erase(x);
        cd.folded_into_producer = true;
        cd.uses = {y};
        cd.has_linear = true;
        return;
      }
    }
    if (!b->quantized) {
      cd.reason = "Add of a constant that is not the bias of a MatMul/Gemm with no bias of its own (float model: "
                  "nothing to fold it into)";
      return;
    }
    add_identity_linear(i, cd, x, *b, y);
    return;
  }
  const auto x = in(i, 0);
  const auto* xv = need(x);
  if (!xv) return;
  auto out = *xv;
  auto pass = [&](graph::framework_op k, std::vector<std::int32_t> shape) {
    out.shape = std::move(shape);
    vals_[y] = out;
    cd.defs.push_back(graph::tensor{y, out.type, out.shape, false, {}, out.quant});
    cd.ops.push_back(graph::operation{k, {x}, {y}, std::monostate{}});
    cd.uses = {x, y};
  };
  if (op == "Relu" || op == "Clip") {
    if (xv->type != dtype::id::fp32) {
      cd.reason = "input '" + x + "' is not FLOAT";
      return;
    }
    auto k = graph::framework_op::relu;
    if (op == "Clip") {
      double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
      for (std::size_t a = 1; a <= 2; ++a) {
        if (in(i, a).empty()) continue;
        auto cv = constant(in(i, a), why);
        if (!cv || cv->t.count() != 1 || cv->t.elem != 1) {
          cd.reason = std::string(a == 1 ? "min" : "max") + " is not a constant FLOAT scalar";
          return;
        }
        (a == 1 ? lo : hi) = cv->t.real(0);
      }
      if (lo == 0.0 && hi == 6.0) k = graph::framework_op::relu6;
      else if (!(lo == 0.0 && std::isinf(hi) && hi > 0)) {
        cd.reason = "Clip to [" + float_text(lo) + ", " + float_text(hi) + "] (armlower lowers [0, inf) and [0, 6])";
        return;
      }
    }
    pass(k, xv->shape);
    return;
  }
  if (op == "Identity") {
    pass(graph::framework_op::reshape, xv->shape);
    return;
  }
  if (op == "Flatten" || op == "Reshape") {
    const auto rank = static_cast<std::int64_t>(xv->shape.size());
    std::vector<std::int64_t> ns;
    const auto total = graph::element_count(xv->shape);
    if (op == "Flatten") {
      auto axis = attr_i(i, "axis", 1);
      if (axis < -rank || axis > rank) {
        cd.reason = "axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank);
        return;
      }
      if (axis < 0) axis += rank;
      std::int64_t a = 1;
      for (std::int64_t d = 0; d < axis; ++d) a *= xv->shape[static_cast<std::size_t>(d)];
      ns = {a, total / a};
    } else {
      auto s = constant(in(i, 1), why);
      if (!s || s->t.elem != 7 || s->t.dims.size() != 1) {
        cd.reason = "shape is not a constant 1-D INT64 tensor";
        return;
      }
      const bool allowzero = attr_i(i, "allowzero", 0) != 0;
      std::int64_t known = 1;
      int infer = -1;
      for (std::size_t d = 0; d < static_cast<std::size_t>(s->t.count()); ++d) {
        auto v = s->t.integer(d);
        if (v == 0 && !allowzero) {
          if (d >= xv->shape.size()) {
            cd.reason = "shape entry 0 at " + std::to_string(d) + " copies a dimension the input does not have";
            return;
          }
          v = xv->shape[d];
        }
        if (v == -1) {
          if (infer >= 0) {
            cd.reason = "shape has two -1 entries";
            return;
          }
          infer = static_cast<int>(d);
        } else if (v <= 0 || v > std::numeric_limits<std::int32_t>::max()) {
          cd.reason = "shape entry " + std::to_string(v) + " is not supported";
          return;
        } else {
          known *= v;
          if (known > max_elements) break;
        }
        ns.push_back(v);
      }
      if (infer >= 0) {
        if (known == 0 || total % known != 0) {
          cd.reason = "cannot infer the -1 entry of the shape";
          return;
        }
        ns[static_cast<std::size_t>(infer)] = total / known;
      }
    }
    std::vector<std::int32_t> s32;
    std::int64_t prod = 1;
    for (auto v : ns) {
      if (v <= 0 || v > std::numeric_limits<std::int32_t>::max()) {
        cd.reason = "output shape " + shape_text(ns) + " is not supported";
        return;
      }
      prod *= v;
      s32.push_back(static_cast<std::int32_t>(v));
    }
    if (prod != total) throw import_error(where(i) + ": reshape of " + shape_text32(xv->shape) + " to " + shape_text(ns));
    if (s32.size() > 6) {
      cd.reason = "output rank " + std::to_string(s32.size()) + " (TOSA allows up to 6)";
      return;
    }
    pass(graph::framework_op::reshape, std::move(s32));
    return;
  }
  // QuantizeLinear / DequantizeLinear of a computed value
  const bool q = op == "QuantizeLinear";
  if (attr_i(i, "block_size", 0) != 0) {
    cd.reason = "blocked quantization (block_size != 0)";
    return;
  }
  const_operand qp;
  qp.t.elem = 0;
  q_params(i, in(i, 1), in(i, 2), static_cast<std::int64_t>(xv->shape.size()), attr_i(i, "axis", 1), qp);
  std::int32_t elem = 2;  // absent zero point: UINT8
  if (!in(i, 2).empty()) elem = constant(in(i, 2), why)->t.elem;
  if (q && attr_i(i, "output_dtype", 0) != 0) elem = static_cast<std::int32_t>(attr_i(i, "output_dtype", 0));
  if (!q) elem = xv->onnx_elem;
  if (elem != 2 && elem != 3 && elem != 4 && elem != 5) {
    cd.reason = "quantized type " + elem_name(elem) + " (armlower takes INT8, UINT8, INT16, UINT16)";
    return;
  }
  qp.t.elem = elem;
  if (qp.scale.size() > 1 &&
      static_cast<std::int64_t>(qp.scale.size()) != xv->shape[static_cast<std::size_t>(qp.axis)])
    throw import_error(where(i) + ": scale '" + in(i, 1) + "' has " + std::to_string(qp.scale.size()) +
                       " values for axis " + std::to_string(qp.axis) + " of '" + x + "' with shape " +
                       shape_text32(xv->shape));
  if (qp.scale.size() != 1) {
    cd.reason = "per-axis quantization of a computed value (armlower takes per-tensor activations)";
    return;
  }
  dtype::id type{};
  const auto qparams = act_quant(i, qp, type);
  if (q) {
    if (xv->type != dtype::id::fp32 || xv->quant) {
      cd.reason = "input '" + x + "' is not FLOAT";
      return;
    }
    out.type = type;
    out.quant = qparams;
    out.onnx_elem = elem;
    pass(graph::framework_op::quantize, xv->shape);
    return;
  }
  // DequantizeLinear: x is a quantized value (from a QuantizeLinear, or a graph input)
  if (xv->type != type) {
    cd.reason = "input '" + x + "' is " + std::string(dtype::name(xv->type)) + ", the zero point says " + elem_name(elem);
    return;
  }
  if (xv->quant && (xv->quant->scale != qparams->scale || xv->quant->zero_point != qparams->zero_point)) {
    cd.reason = "scale/zero point differ from the QuantizeLinear that wrote '" + x + "'";
    return;
  }
  if (!xv->quant) {  // a quantized graph input: its qparams come from this DequantizeLinear
    vals_[x].quant = qparams;
    cd.defs.push_back(graph::tensor{x, type, xv->shape, false, {}, qparams});
  }
  out.type = dtype::id::fp32;
  out.quant.reset();
  out.onnx_elem = 1;
  pass(graph::framework_op::dequantize, vals_.at(x).shape);
}

import_result importer::run() {
  for (int k = 0; k < g_.node_size(); ++k) nodes_.push_back(node_of(g_.node(k), static_cast<std::size_t>(k)));
  check_order();
  for (const auto& nd : nodes_)
    for (const auto& s : nd.outputs) names_.insert(s);
  for (const auto& [s, t] : c_.inits) names_.insert(s);
  for (const auto& v : g_.input()) names_.insert(v.name());
  // constant-producing nodes: Constant, and Identity/DequantizeLinear of a constant
  is_const_node_.assign(nodes_.size(), false);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const auto& n = nodes_[i];
    if (!(n.domain.empty() || n.domain == "ai.onnx")) continue;
    if (n.op_type == "Constant") is_const_node_[i] = true;
    else if ((n.op_type == "Identity" || n.op_type == "DequantizeLinear") && !n.inputs.empty() &&
             is_constant_value(n.inputs[0]))
      is_const_node_[i] = true;
  }
  // every initializer must decode (sizes, external data) — a corrupt model is refused as a whole
  for (const auto& [name, t] : c_.inits) static_cast<void>(decode(c_, *t, c_.what + ": initializer '" + name + "'"));
  graph_input_vals();
  cand_.resize(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (!is_const_node_[i]) translate(i);

  // Regions: union-find over supported nodes linked by computed values.
  const auto n = nodes_.size();
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto find = [&](std::size_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  std::unordered_map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < n; ++i) {
    if (is_const_node_[i] || !cand_[i].reason.empty()) continue;
    for (const auto& t : cand_[i].uses) {
      const auto [it, ok] = first.emplace(t, i);
      if (!ok) parent[find(i)] = find(it->second);
    }
  }
  std::vector<bool> has_lin(n, false), kept(n, false);
  for (std::size_t i = 0; i < n; ++i)
    if (!is_const_node_[i] && cand_[i].reason.empty() && cand_[i].has_linear) has_lin[find(i)] = true;
  for (std::size_t i = 0; i < n; ++i)
    kept[i] = !is_const_node_[i] && cand_[i].reason.empty() && has_lin[find(i)];
  // constant producers are kept when a kept node (or kept constant producer) reads them
  for (std::size_t i = n; i-- > 0;) {
    if (!is_const_node_[i]) continue;
    for (const auto& o : nodes_[i].outputs)
      for (auto r : readers_[o])
        if (kept[r]) kept[i] = true;
  }
  import_result r;
  for (std::size_t i = 0; i < n; ++i) {
    const auto label = onnx_node_label(nodes_[i]);
    if (kept[i]) r.imported.push_back(i);
    else if (is_const_node_[i]) r.left_out.push_back({i, label, "constant not read by any lowered node"});
    else if (!cand_[i].reason.empty()) r.left_out.push_back({i, label, cand_[i].reason});
    else r.left_out.push_back({i, label, "not connected to a MatMul/Gemm/Add that armlower lowers"});
  }
  if (opt_.strict && !r.left_out.empty()) {
    std::string msg = c_.what + ": " + std::to_string(r.left_out.size()) + " node(s) cannot be lowered: ";
    for (std::size_t i = 0; i < r.left_out.size(); ++i) msg += (i ? "; " : "") + to_string(r.left_out[i]);
    throw import_error(msg, errc::unsupported);
  }
  // Assemble the graph.
  auto& g = r.graph;
  std::unordered_set<std::string> defined;
  for (std::size_t i = 0; i < n; ++i) {
    if (!kept[i] || is_const_node_[i]) continue;
    for (auto& d : cand_[i].defs)
      if (defined.insert(d.name).second) g.add(std::move(d));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!kept[i] || is_const_node_[i]) continue;
    for (auto& op : cand_[i].ops) {
      for (const auto& s : op.inputs)
        if (defined.insert(s).second) {  // a region input
          const auto& v = vals_.at(s);
          g.add(graph::tensor{s, v.type, v.shape, false, {}, v.quant});
        }
      op.source_index = static_cast<std::int64_t>(i);
      g.operators.push_back(std::move(op));
    }
  }
  std::unordered_map<std::string, int> produced, consumed;
  for (const auto& op : g.operators) {
    for (const auto& s : op.outputs) produced[s]++;
    for (const auto& s : op.inputs) consumed[s]++;
  }
  std::unordered_set<std::string> read_by_left_out;
  for (std::size_t i = 0; i < n; ++i)
    if (!kept[i])
      for (const auto& s : nodes_[i].inputs) read_by_left_out.insert(s);
  std::unordered_set<std::string> in_set, out_set;
  auto push = [](std::vector<std::string>& v, std::unordered_set<std::string>& set, const std::string& s) {
    if (set.insert(s).second) v.push_back(s);
  };
  for (const auto& v : g_.input())
    if (consumed.count(v.name()) && !produced.count(v.name())) push(g.inputs, in_set, v.name());
  for (const auto& op : g.operators)
    for (const auto& s : op.inputs)
      if (const auto* t = g.find(s); t && !t->is_constant && !produced.count(s)) push(g.inputs, in_set, s);
  for (const auto& v : g_.output())
    if (produced.count(v.name())) push(g.outputs, out_set, v.name());
  for (const auto& op : g.operators)
    for (const auto& s : op.outputs)
      if (read_by_left_out.count(s) || !consumed.count(s)) push(g.outputs, out_set, s);
  // onnxruntime keeps a Relu/Clip it cannot remove (int16 symmetric activations) between a
  // QuantizeLinear/DequantizeLinear pair and a QuantizeLinear of the same qparams:
  //   y ─Q(s,z)─► q1 ─DQ─► f1 ─relu─► f2 ─Q(s,z)─► q2
  // Quantization commutes with ReLU/ReLU6 on the same grid (max(Q(x), Q(0)) = Q(max(x, 0))), so
  // the first pair is dropped: y ─relu─► f2 ─Q─► q2, which FuseQuantizedActivation fuses into the
  // linear before it (a fused clamp for TOSA and Cortex-M plans alike). Exact.
  {
    auto is_op = [](const graph::operation& o, graph::framework_op k) {
      return !o.is_tosa() && std::get<graph::framework_op>(o.code) == k;
    };
    auto readers_of = [&](const std::string& t) {
      std::vector<std::size_t> rs;
      for (std::size_t k = 0; k < g.operators.size(); ++k)
        for (const auto& s2 : g.operators[k].inputs)
          if (s2 == t) rs.push_back(k);
      return rs;
    };
    auto is_output = [&](const std::string& t) { return std::count(g.outputs.begin(), g.outputs.end(), t) > 0; };
    for (std::size_t k = 0; k < g.operators.size(); ++k) {
      const auto& a = g.operators[k];
      if (!(is_op(a, graph::framework_op::relu) || is_op(a, graph::framework_op::relu6))) continue;
      const auto f1 = a.inputs[0], f2 = a.outputs[0];
      const auto rf2 = readers_of(f2);
      if (rf2.size() != 1 || !is_op(g.operators[rf2[0]], graph::framework_op::quantize) || is_output(f2)) continue;
      // producer of f1: a dequantize of q1, itself written by a quantize of y
      std::size_t dq = g.operators.size(), q = g.operators.size();
      for (std::size_t j = 0; j < g.operators.size(); ++j)
        if (g.operators[j].outputs[0] == f1) dq = j;
      if (dq == g.operators.size() || !is_op(g.operators[dq], graph::framework_op::dequantize)) continue;
      const auto q1 = g.operators[dq].inputs[0];
      for (std::size_t j = 0; j < g.operators.size(); ++j)
        if (g.operators[j].outputs[0] == q1) q = j;
      if (q == g.operators.size() || !is_op(g.operators[q], graph::framework_op::quantize)) continue;
      if (readers_of(q1).size() != 1 || readers_of(f1).size() != 1 || is_output(q1) || is_output(f1)) continue;
      const auto* t1 = g.find(q1);
      const auto* t2 = g.find(g.operators[rf2[0]].outputs[0]);
      if (!t1 || !t2 || t1->type != t2->type || !t1->quant || !t2->quant || t1->quant->scale != t2->quant->scale ||
          t1->quant->zero_point != t2->quant->zero_point)
        continue;
      const auto y = g.operators[q].inputs[0];
      g.operators[k].inputs[0] = y;
      for (const auto j : {std::max(q, dq), std::min(q, dq)}) g.operators.erase(g.operators.begin() + static_cast<std::ptrdiff_t>(j));
      std::erase_if(g.tensors, [&](const graph::tensor& t) { return t.name == q1 || t.name == f1; });
      k = 0;  // indices moved; start over (the graph is small)
    }
    produced.clear();
    consumed.clear();
    for (const auto& op : g.operators) {
      for (const auto& s2 : op.outputs) produced[s2]++;
      for (const auto& s2 : op.inputs) consumed[s2]++;
    }
  }
  // Boundary Q/DQ: a graph input read (through reshapes only) by one quantize, or a graph output
  // written (through reshapes only) by a dequantize, becomes the quantized tensor: the tensors
  // of the chain take the quantized type and qparams and the quantize/dequantize becomes a
  // reshape of the same shape (as builder::quantized_input/output; the graph takes and returns
  // integers and the report gives their scale and zero point).
  auto is_k = [](const graph::operation& o, graph::framework_op k) { return !o.is_tosa() && std::get<graph::framework_op>(o.code) == k; };
  auto single_reader = [&](const std::string& t) -> graph::operation* {
    graph::operation* found = nullptr;
    for (auto& o : g.operators)
      for (const auto& s2 : o.inputs)
        if (s2 == t) {
          if (found) return nullptr;
          found = &o;
        }
    return found;
  };
  auto writer = [&](const std::string& t) -> graph::operation* {
    for (auto& o : g.operators)
      if (!o.outputs.empty() && o.outputs[0] == t) return &o;
    return nullptr;
  };
  auto retype = [&](const std::vector<std::string>& chain, const graph::tensor& q) {
    for (const auto& nm : chain)
      if (auto* t = g.find(nm)) {
        t->type = q.type;
        t->quant = q.quant;
      }
  };
  for (const auto& s0 : g.inputs) {
    std::vector<std::string> chain{s0};
    auto* o = single_reader(s0);
    while (o && is_k(*o, graph::framework_op::reshape) && !out_set.count(o->outputs[0])) {
      chain.push_back(o->outputs[0]);
      o = single_reader(o->outputs[0]);
    }
    if (!o || !is_k(*o, graph::framework_op::quantize) || out_set.count(s0)) continue;
    const auto* t0 = g.find(s0);
    const auto* q = g.find(o->outputs[0]);
    if (!t0 || !q || t0->type != dtype::id::fp32 || !q->quant) continue;
    o->code = graph::framework_op::reshape;
    retype(chain, *q);
  }
  for (const auto& s0 : g.outputs) {
    if (consumed.count(s0)) continue;
    std::vector<std::string> chain{s0};
    auto* o = writer(s0);
    while (o && is_k(*o, graph::framework_op::reshape) && consumed[o->inputs[0]] == 1) {
      chain.push_back(o->inputs[0]);
      o = writer(o->inputs[0]);
    }
    if (!o || !is_k(*o, graph::framework_op::dequantize) || consumed[o->inputs[0]] != 1) continue;
    const auto* q = g.find(o->inputs[0]);
    if (!q || !q->quant || q->is_constant) continue;
    o->code = graph::framework_op::reshape;
    retype(chain, *q);
  }
  // a reshape to the same shape (what a boundary quantize/dequantize or an Identity became) is
  // dropped when its input is not a graph input/output of its own
  for (std::size_t k = 0; k < g.operators.size();) {
    auto& o = g.operators[k];
    const auto* a = g.find(o.inputs[0]);
    const auto* b = g.find(o.outputs[0]);
    if (is_k(o, graph::framework_op::reshape) && a && b && a->shape == b->shape && !out_set.count(o.inputs[0]) &&
        !in_set.count(o.outputs[0]) && consumed[o.inputs[0]] == 1 && std::count(g.outputs.begin(), g.outputs.end(), o.inputs[0]) == 0 &&
        std::count(g.inputs.begin(), g.inputs.end(), o.inputs[0]) == 0) {
      const auto from = o.inputs[0], to = o.outputs[0];
      // the producer of `from` now writes `to` directly
      if (auto* w = writer(from)) {
        w->outputs[0] = to;
        g.operators.erase(g.operators.begin() + static_cast<std::ptrdiff_t>(k));
        std::erase_if(g.tensors, [&](const graph::tensor& t) { return t.name == from; });
        continue;
      }
    }
    ++k;
  }
  // A graph input read only by a reshape (Flatten/Reshape in front of the first MatMul): the
  // reshaped tensor becomes the graph input (same row-major data), since post-training
  // quantization of a float graph and Cortex-M plans start at a linear's input.
  for (auto& s0 : g.inputs) {
    for (;;) {
      auto* o = single_reader(s0);
      if (!o || !is_k(*o, graph::framework_op::reshape) || std::count(g.outputs.begin(), g.outputs.end(), s0)) break;
      const auto next = o->outputs[0];
      if (std::count(g.inputs.begin(), g.inputs.end(), next) || std::count(g.outputs.begin(), g.outputs.end(), next)) break;
      const auto old_in = s0;
      g.operators.erase(g.operators.begin() + (o - g.operators.data()));
      std::erase_if(g.tensors, [&](const graph::tensor& t) { return t.name == old_in; });
      s0 = next;
    }
  }
  g.reindex();
  return r;
}

}  // namespace

expected<import_result> import_onnx(std::span<const std::uint8_t> bytes, const std::string& what,
                                    const fs::path& model_dir, const import_options& opt) {
  return onnx_detail::guarded(what, [&] {
    model_ctx c{what, model_dir, {}, {}};
    open_model(c, bytes);
    importer im(c, opt);
    return im.run();
  });
}

expected<import_result> import_onnx_file(const fs::path& p, const import_options& opt) {
  auto bytes = io::read_bytes(p);
  if (!bytes) return std::move(bytes).error();
  return import_onnx(*bytes, p.string(), p.parent_path(), opt);
}

}  // namespace armlower::import
