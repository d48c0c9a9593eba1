/// @file armlower/import/tflite.hpp
/// The `.tflite` importer: reads a TensorFlow Lite flatbuffer (armlower's own schema subset,
/// `tflite_subset.fbs`, verified with the flatbuffers Verifier before any field is read) and
/// produces
///  - a `tflite_model`: a faithful listing of the first subgraph (operators by name and index,
///    tensors with dtype, shape, quantization and constant bytes) for `armlower inspect`, and
///  - an `import_result`: an armlower framework graph (`graph::framework_op::linear`,
///    `reshape`, `quantize`, `dequantize`, with `graph::quant_params`) of the supported
///    regions of the model, plus the list of every operator left out, by index and name, with
///    the reason. Nothing is dropped silently.
///
/// Supported TFLite operators (semantics: TFLite reference kernels,
/// `tensorflow/lite/kernels/internal/reference/integer_ops/fully_connected.h`; test
/// models: the TFLite Micro hello_world example):
///  - FULLY_CONNECTED: int8×int8 (+int32 bias) per-tensor or per-channel weights (axis 0,
///    zero point 0), int16×int8 (+int64 or int32 bias), float32; fused NONE / RELU / RELU6;
///    keep_num_dims; weights must be constant [Cout, Cin] in the DEFAULT format; an input of
///    rank ≠ 2 without keep_num_dims is flattened to [N/Cin, Cin] by an explicit reshape. A fused
///    activation stays on the quantized linear (`linear_attr::fused`); on a float linear it
///    becomes an explicit `relu`/`relu6` operator.
///  - RESHAPE (new shape taken from the output tensor), QUANTIZE (float → int8/int16),
///    DEQUANTIZE (int8/int16 → float32).
/// A supported operator is kept only when its connected region of supported operators contains
/// a FULLY_CONNECTED (a lone RESHAPE before an unsupported op is left out, reason given).
/// Hosted only; needs flatbuffers (target armlower::serialize or flatbuffers::flatbuffers).
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/import/result.hpp>
#include <armlower/io/file.hpp>
#include <armlower/io/text.hpp>
#include <armlower/import/detail/tflite_subset_generated.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace armlower::import {


/// One tensor of a `.tflite` subgraph as stored (no interpretation beyond decoding).
struct tflite_tensor {
  std::size_t index = 0;
  std::string name;
  std::string type_name;                ///< TFLite spelling, e.g. "INT8", "FLOAT32"
  std::optional<dtype::id> type;        ///< armlower dtype, empty when TOSA has no equivalent
  std::vector<std::int32_t> shape;      ///< static shape ([] = scalar)
  std::uint32_t buffer = 0;             ///< buffer index (0 = no data)
  std::size_t const_bytes = 0;          ///< bytes of constant data (0 = not a constant)
  std::vector<float> scale;             ///< quantization scales (empty = not quantized)
  std::vector<std::int64_t> zero_point; ///< quantization zero points
  std::int32_t quantized_dimension = 0; ///< axis of per-channel quantization
  bool is_variable = false;
};

/// One operator of a `.tflite` subgraph.
struct tflite_operator {
  std::size_t index = 0;            ///< position in the subgraph's operator list
  std::string name;                 ///< builtin name ("FULLY_CONNECTED") or "CUSTOM(<code>)"
  std::int32_t builtin_code = 0;    ///< BuiltinOperator value
  std::int32_t version = 1;         ///< operator version
  std::vector<std::int32_t> inputs; ///< tensor indices, −1 = absent optional input
  std::vector<std::int32_t> outputs;
  std::string options;              ///< readable builtin options, e.g. "fused=RELU"
};

/// The first subgraph of a `.tflite` model, for inspection.
struct tflite_model {
  std::uint32_t version = 0;        ///< schema version (3)
  std::string description;
  std::size_t subgraph_count = 0;
  std::vector<tflite_tensor> tensors;
  std::vector<tflite_operator> operators;
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> outputs;
};

namespace detail {

namespace fbs = ::armlower::import::tflite_fbs;

/// TFLite tensor type → armlower dtype (only types with a TOSA equivalent).
inline std::optional<dtype::id> to_dtype(fbs::TensorType t) noexcept {
  switch (t) {
    case fbs::TensorType::FLOAT32: return dtype::id::fp32;
    case fbs::TensorType::FLOAT16: return dtype::id::fp16;
    case fbs::TensorType::BFLOAT16: return dtype::id::bf16;
    case fbs::TensorType::INT8: return dtype::id::i8;
    case fbs::TensorType::INT16: return dtype::id::i16;
    case fbs::TensorType::INT32: return dtype::id::i32;
    case fbs::TensorType::INT64: return dtype::id::i64;
    case fbs::TensorType::BOOL: return dtype::id::boolean;
    case fbs::TensorType::INT4: return dtype::id::i4;
    default: return std::nullopt;
  }
}

inline std::string type_name(fbs::TensorType t) {
  const char* n = fbs::EnumNameTensorType(t);
  return (n && *n) ? n : "TYPE_" + std::to_string(static_cast<int>(t));
}

inline std::string op_name(std::int32_t code, const fbs::OperatorCode* oc) {
  if (code == static_cast<std::int32_t>(fbs::BuiltinOperator::CUSTOM))
    return "CUSTOM(" + std::string(oc && oc->custom_code() ? oc->custom_code()->str() : "") + ")";
  const char* n = fbs::EnumNameBuiltinOperator(static_cast<fbs::BuiltinOperator>(code));
  return (n && *n) ? n : "BUILTIN_" + std::to_string(code);
}

/// Builtin code of an OperatorCode: max(deprecated_builtin_code, builtin_code), since old
/// files only fill the former and codes ≥ 127 only the latter.
inline std::int32_t builtin_code(const fbs::OperatorCode* oc) noexcept {
  if (!oc) return -1;
  return std::max<std::int32_t>(oc->deprecated_builtin_code(), static_cast<std::int32_t>(oc->builtin_code()));
}

inline const char* act_name(fbs::ActivationFunctionType a) {
  const char* n = fbs::EnumNameActivationFunctionType(a);
  return (n && *n) ? n : "UNKNOWN";
}

/// Checks identifier, bounds and runs the flatbuffers Verifier; returns the verified root.
/// Errors: `errc::malformed`.
inline expected<const fbs::Model*> open(std::span<const std::uint8_t> b, const std::string& what) {
  if (b.size() < 8)
    return failure(errc::malformed, what, "not a flatbuffer (" + std::to_string(b.size()) + " bytes is too small)");
  std::uint32_t root = 0;
  std::memcpy(&root, b.data(), 4);  // little-endian hosts only (x86-64, AArch64)
  if (root < 8 || root >= b.size() || root % 4 != 0) {
    const char* id = reinterpret_cast<const char*>(b.data() + 4);
    if (std::string_view(id, 4) == fbs::ModelIdentifier())
      return failure(errc::malformed, what,
                     "truncated or corrupt .tflite (root table offset " + std::to_string(root) + " is outside the " +
                         std::to_string(b.size()) + "-byte file)");
    return failure(errc::malformed, what,
                   "not a flatbuffer (root table offset " + std::to_string(root) + " is outside the " +
                       std::to_string(b.size()) + "-byte file)");
  }
  const std::string_view id(reinterpret_cast<const char*>(b.data() + 4), 4);
  if (id != fbs::ModelIdentifier()) {
    std::string shown;
    for (char c : id) shown += (c >= 0x20 && c < 0x7F) ? std::string(1, c) : "?";
    return failure(errc::malformed, what,
                   "wrong file identifier '" + shown + "' (a .tflite model has 'TFL3'" +
                       (id == "TOSA" ? "; this is a .tosa file)" : ")"));
  }
  flatbuffers::Verifier v(b.data(), b.size(), 64, 10'000'000);
  if (!fbs::VerifyModelBuffer(v))
    return failure(errc::malformed, what, "truncated or corrupt .tflite (flatbuffer verification failed)");
  const auto* m = fbs::GetModel(b.data());
  if (!m->subgraphs() || m->subgraphs()->size() == 0)
    return failure(errc::malformed, what, "the model has no subgraph");
  return m;
}

/// Constant bytes of buffer `idx` (empty span when none). Handles external (offset/size) data.
/// Errors: `errc::malformed`.
inline expected<std::span<const std::uint8_t>> buffer_bytes(const fbs::Model* m, std::uint32_t idx,
                                                  std::span<const std::uint8_t> file,
                                                  const std::string& what) {
  if (!m->buffers() || idx >= m->buffers()->size()) {
    if (idx == 0) return std::span<const std::uint8_t>{};
    return failure(errc::malformed, what,
                   "tensor refers to buffer " + std::to_string(idx) + " but the model has " +
                       std::to_string(m->buffers() ? m->buffers()->size() : 0) + " buffers");
  }
  const auto* buf = m->buffers()->Get(idx);
  if (!buf) return std::span<const std::uint8_t>{};
  if (buf->offset() > 1) {
    if (buf->offset() + buf->size() > file.size() || buf->offset() + buf->size() < buf->offset())
      return failure(errc::malformed, what, "buffer " + std::to_string(idx) + " lies outside the file (truncated?)");
    return file.subspan(static_cast<std::size_t>(buf->offset()), static_cast<std::size_t>(buf->size()));
  }
  if (!buf->data()) return std::span<const std::uint8_t>{};
  return std::span<const std::uint8_t>{buf->data()->data(), buf->data()->size()};
}

/// The values of a `[long]` vector. Read with memcpy: the flatbuffers 2.0.8 Verifier checks only
/// the 4-byte alignment of a vector's length field, so 8-byte elements may sit at 4 mod 8.
inline std::vector<std::int64_t> int64s(const flatbuffers::Vector<std::int64_t>* v) {
  std::vector<std::int64_t> r(v ? v->size() : 0);
  if (!r.empty()) std::memcpy(r.data(), v->Data(), r.size() * sizeof(std::int64_t));  // little-endian hosts only
  return r;
}

template <class T>
std::vector<std::int32_t> ints(const flatbuffers::Vector<T>* v) {
  std::vector<std::int32_t> r;
  if (v)
    for (auto x : *v) r.push_back(static_cast<std::int32_t>(x));
  return r;
}

inline std::string options_text(const fbs::Operator* op) {
  using fbs::BuiltinOptions;
  if (op->builtin_options() == nullptr) return "";  // union type set but no table: the defaults
  switch (op->builtin_options_type()) {
    case BuiltinOptions::FullyConnectedOptions: {
      const auto* o = op->builtin_options_as_FullyConnectedOptions();
      std::string s = std::string("fused=") + act_name(o->fused_activation_function());
      if (o->keep_num_dims()) s += " keep_num_dims";
      if (o->weights_format() != fbs::FullyConnectedOptionsWeightsFormat::DEFAULT) s += " weights_format=SHUFFLED4x16INT8";
      if (o->asymmetric_quantize_inputs()) s += " asymmetric_quantize_inputs";
      return s;
    }
    case BuiltinOptions::Conv2DOptions: {
      const auto* o = op->builtin_options_as_Conv2DOptions();
      return "stride=" + std::to_string(o->stride_h()) + "x" + std::to_string(o->stride_w()) +
             " fused=" + act_name(o->fused_activation_function());
    }
    case BuiltinOptions::DepthwiseConv2DOptions: {
      const auto* o = op->builtin_options_as_DepthwiseConv2DOptions();
      return "stride=" + std::to_string(o->stride_h()) + "x" + std::to_string(o->stride_w()) +
             " depth_multiplier=" + std::to_string(o->depth_multiplier()) +
             " fused=" + act_name(o->fused_activation_function());
    }
    case BuiltinOptions::SoftmaxOptions:
      return "beta=" + std::to_string(op->builtin_options_as_SoftmaxOptions()->beta());
    default: return "";
  }
}

/// A float for messages: "inf", "-inf", "nan" or the shortest round-trip decimal.
inline std::string float_text(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", static_cast<double>(v));
  return b;
}

inline std::string shape_text(const std::vector<std::int32_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

}  // namespace detail

/// Verifies and lists the first subgraph of the `.tflite` image `bytes`; `what` names the
/// source in messages (`where().file`). Errors (`errc::malformed`, stage "tflite importer"): too
/// small / not a flatbuffer, wrong file identifier (not "TFL3"), truncated or corrupt (Verifier
/// failure), no subgraph, buffer index out of range, a tensor with an invalid shape (naming the
/// tensor), an operator with an opcode or tensor index out of range (naming the operator).
[[nodiscard]] inline expected<tflite_model> inspect_tflite(std::span<const std::uint8_t> bytes,
                                                           const std::string& what) {
  namespace fbs = detail::fbs;
  const auto opened = detail::open(bytes, what);
  if (!opened) return opened.error();
  const auto* m = *opened;
  const auto* sg = m->subgraphs()->Get(0);
  tflite_model r;
  r.version = m->version();
  r.description = m->description() ? m->description()->str() : "";
  r.subgraph_count = m->subgraphs()->size();
  r.inputs = detail::ints(sg->inputs());
  r.outputs = detail::ints(sg->outputs());
  if (sg->tensors()) {
    for (std::size_t i = 0; i < sg->tensors()->size(); ++i) {
      const auto* t = sg->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
      tflite_tensor x;
      x.index = i;
      x.name = t->name() ? t->name()->str() : "tensor_" + std::to_string(i);
      x.type_name = detail::type_name(t->type());
      x.type = detail::to_dtype(t->type());
      x.shape = detail::ints(t->shape());
      std::int64_t elems = 1;
      for (auto d : x.shape) {
        if (d < 0 || (d > 0 && elems > (std::int64_t{1} << 40) / d))
          return detail::failure(errc::malformed, what,
                                 "tensor #" + std::to_string(i) + " has an invalid shape " + detail::shape_text(x.shape),
                                 -1, {}, x.name);
        elems *= d;
      }
      x.buffer = t->buffer();
      const auto cb = detail::buffer_bytes(m, t->buffer(), bytes, what);
      if (!cb) return cb.error();
      x.const_bytes = cb->size();
      x.is_variable = t->is_variable();
      if (const auto* q = t->quantization()) {
        if (q->scale()) x.scale.assign(q->scale()->begin(), q->scale()->end());
        if (q->zero_point()) x.zero_point = detail::int64s(q->zero_point());
        x.quantized_dimension = q->quantized_dimension();
      }
      r.tensors.push_back(std::move(x));
    }
  }
  const auto nt = static_cast<std::int32_t>(r.tensors.size());
  // nullopt, or the error of a tensor index out of range (`op` < 0: a subgraph input/output).
  auto check_idx = [&](std::int32_t i, bool optional, const std::string& where, std::int64_t op = -1,
                       const std::string& op_name = {}) -> std::optional<error> {
    if ((optional && i == -1) || (i >= 0 && i < nt)) return std::nullopt;
    return detail::failure(errc::malformed, what,
                           where + "refers to tensor " + std::to_string(i) + " but the subgraph has " + std::to_string(nt) +
                               " tensors",
                           op, op_name);
  };
  for (auto i : r.inputs)
    if (auto e = check_idx(i, false, "subgraph input ")) return *e;
  for (auto i : r.outputs)
    if (auto e = check_idx(i, false, "subgraph output ")) return *e;
  if (sg->operators()) {
    for (std::size_t i = 0; i < sg->operators()->size(); ++i) {
      const auto* op = sg->operators()->Get(static_cast<flatbuffers::uoffset_t>(i));
      const fbs::OperatorCode* oc = nullptr;
      if (m->operator_codes() && op->opcode_index() < m->operator_codes()->size())
        oc = m->operator_codes()->Get(op->opcode_index());
      if (!oc)
        return detail::failure(errc::malformed, what,
                               "opcode index " + std::to_string(op->opcode_index()) + " is outside the operator-code table",
                               static_cast<std::int64_t>(i));
      tflite_operator o;
      o.index = i;
      o.builtin_code = detail::builtin_code(oc);
      o.name = detail::op_name(o.builtin_code, oc);
      o.version = oc->version();
      o.inputs = detail::ints(op->inputs());
      o.outputs = detail::ints(op->outputs());
      for (auto t : o.inputs)
        if (auto e = check_idx(t, true, "", static_cast<std::int64_t>(i), o.name)) return *e;
      for (auto t : o.outputs)
        if (auto e = check_idx(t, false, "", static_cast<std::int64_t>(i), o.name)) return *e;
      o.options = detail::options_text(op);
      r.operators.push_back(std::move(o));
    }
  }
  return r;
}

/// Imports the supported regions of the `.tflite` image `bytes` into a framework graph (see
/// the file comment for what is supported). Operators are bound to tensors by TFLite index;
/// graph tensor names are the TFLite names made unique (TFLite allows several tensors of one
/// name): the first tensor of a name keeps it, a later one becomes `<name>_<k>` with the
/// smallest k ≥ 1 that no tensor of the model uses. Helper tensors (`<x>/flatten`,
/// `<y>/linear`, `<y>/preact`) get a fresh name the same way when they are created, before any
/// operator refers to them. Every graph operator records its TFLite operator index
/// (`operation::source_index`), which pass errors name. Constants carry their bytes in the TOSA
/// wire encoding (identical to TFLite's little-endian layout for INT8/INT16/INT32/INT64/FLOAT32);
/// quantized tensors carry `quant_params` with qmin/qmax = the dtype's range.
/// Errors (stage "tflite importer", `where()` = the file, the operator by its TFLite index and
/// name, the tensor by name; the message is the rule, one line): everything inspect_tflite
/// reports; `errc::malformed` — malformed supported operators (shape mismatch, constant data of
/// the wrong size), a quantization scale that is not a finite float > 0, a zero point outside its
/// tensor's type, a kept operator that reads a tensor written by itself or a later operator (not
/// topologically ordered: a cycle), writes a tensor another operator also writes, or writes a
/// subgraph input; `errc::unsupported` — with `opt.strict`, any operator left out: the first
/// diagnostic counts them, then one diagnostic per left-out operator (index, name, reason).
[[nodiscard]] inline expected<import_result> import_tflite(std::span<const std::uint8_t> bytes,
                                                           const std::string& what,
                                                           const import_options& opt = {}) {
  namespace fbs = detail::fbs;
  auto inspected = inspect_tflite(bytes, what);
  if (!inspected) return std::move(inspected).error();
  const tflite_model info = std::move(*inspected);
  const auto* m = fbs::GetModel(bytes.data());
  const auto* sg = m->subgraphs()->Get(0);
  const auto& T = info.tensors;

  // Candidate framework ops per TFLite op (empty + reason when unsupported).
  struct candidate {
    std::vector<graph::operation> ops;
    std::vector<std::pair<graph::tensor, std::int32_t>> new_tensors;  // helper tensors (flattened input,
                                                                      // linear output) + the TFLite
                                                                      // tensor whose qparams they carry
    std::vector<std::int32_t> uses;          // TFLite tensors used (inputs + outputs)
    std::string reason;                      // non-empty = left out
  };
  std::vector<candidate> cand(info.operators.size());
  auto tname = [&](std::int32_t i) { return T[static_cast<std::size_t>(i)].name; };
  // Graph names, bound to TFLite tensors by index: TFLite allows several tensors of one name.
  // The first tensor of a name keeps it; a later one gets `<name>_<k>` (smallest k ≥ 1 not used
  // by any tensor of the model). Helper tensors get fresh names the same way when they are made.
  std::unordered_set<std::string> taken;
  taken.reserve(T.size() * 2);
  std::unordered_map<std::string, std::size_t> next_k;
  std::vector<std::size_t> dup;
  std::vector<std::string> gnames(T.size());
  for (std::size_t i = 0; i < T.size(); ++i) {
    if (taken.insert(T[i].name).second) gnames[i] = T[i].name;
    else dup.push_back(i);
  }
  auto fresh = [&](const std::string& base) {
    if (taken.insert(base).second) return base;
    auto& k = next_k[base];
    for (;;) {
      std::string n = base + "_" + std::to_string(++k);
      if (taken.insert(n).second) return n;
    }
  };
  for (auto i : dup) gnames[i] = fresh(T[i].name);
  auto gname = [&](std::int32_t i) -> const std::string& { return gnames[static_cast<std::size_t>(i)]; };
  // A malformed-model error at operator `o` (and tensor `tensor`, when given).
  auto op_fail = [&](const tflite_operator& o, const std::string& message, const std::string& tensor = {}) {
    return detail::failure(errc::malformed, what, message, static_cast<std::int64_t>(o.index), o.name, tensor);
  };
  auto is_const = [&](std::int32_t i) { return T[static_cast<std::size_t>(i)].const_bytes > 0; };
  auto ty = [&](std::int32_t i) { return T[static_cast<std::size_t>(i)].type; };
  auto tyname = [&](std::int32_t i) { return T[static_cast<std::size_t>(i)].type_name; };

  for (const auto& o : info.operators) {
    auto& c = cand[o.index];
    const auto* op = sg->operators()->Get(static_cast<flatbuffers::uoffset_t>(o.index));
    const auto code = static_cast<fbs::BuiltinOperator>(o.builtin_code);
    if (o.outputs.size() != 1 && (code == fbs::BuiltinOperator::FULLY_CONNECTED ||
                                  code == fbs::BuiltinOperator::RESHAPE ||
                                  code == fbs::BuiltinOperator::QUANTIZE ||
                                  code == fbs::BuiltinOperator::DEQUANTIZE)) {
      c.reason = std::to_string(o.outputs.size()) + " outputs (expected 1)";
      continue;
    }
    if (code == fbs::BuiltinOperator::FULLY_CONNECTED) {
      if (o.inputs.size() < 2 || o.inputs[0] < 0 || o.inputs[1] < 0) {
        c.reason = "missing input or weights";
        continue;
      }
      const auto x = o.inputs[0], w = o.inputs[1], y = o.outputs[0];
      const auto b = o.inputs.size() > 2 ? o.inputs[2] : -1;
      const auto* fo = op->builtin_options_as_FullyConnectedOptions();
      const auto act = fo ? fo->fused_activation_function() : fbs::ActivationFunctionType::NONE;
      const bool keep = fo && fo->keep_num_dims();
      graph::linear_attr la;
      if (act == fbs::ActivationFunctionType::RELU) la.fused = graph::activation::relu;
      else if (act == fbs::ActivationFunctionType::RELU6) la.fused = graph::activation::relu6;
      else if (act != fbs::ActivationFunctionType::NONE) {
        c.reason = std::string("fused activation ") + detail::act_name(act) + " is not supported";
        continue;
      }
      if (fo && fo->weights_format() != fbs::FullyConnectedOptionsWeightsFormat::DEFAULT) {
        c.reason = "shuffled weights format is not supported";
        continue;
      }
      if (is_const(x)) {
        c.reason = "input is a constant tensor; constant folding is not supported";
        continue;
      }
      if (!is_const(w)) {
        c.reason = "weights are not a constant tensor";
        continue;
      }
      if (b >= 0 && !is_const(b)) {
        c.reason = "bias is not a constant tensor";
        continue;
      }
      const auto& ws = T[static_cast<std::size_t>(w)].shape;
      if (ws.size() != 2)
        return op_fail(o, "weights of shape " + detail::shape_text(ws) + " (expected [Cout, Cin])", tname(w));
      const auto cout = ws[0], cin = ws[1];
      const auto& xs = T[static_cast<std::size_t>(x)].shape;
      const auto xn = graph::element_count(xs);
      if (cin <= 0 || xn % cin != 0 || xs.empty())
        return op_fail(o, "input of shape " + detail::shape_text(xs) + " cannot be multiplied by weights " +
                              detail::shape_text(ws), tname(x));
      if (keep && xs.back() != cin)
        return op_fail(o, "keep_num_dims with input " + detail::shape_text(xs) + " and weights " + detail::shape_text(ws),
                       tname(x));
      if (b >= 0 && graph::element_count(T[static_cast<std::size_t>(b)].shape) != cout)
        return op_fail(o, "bias of shape " + detail::shape_text(T[static_cast<std::size_t>(b)].shape) + " for " +
                              std::to_string(cout) + " output channels", tname(b));
      // dtype combinations
      const auto tx = ty(x), tw = ty(w), tyy = ty(y);
      const auto tb = b >= 0 ? ty(b) : std::optional<dtype::id>{};
      using dtype::id;
      const bool f32 = tx == id::fp32 && tw == id::fp32 && tyy == id::fp32 && (b < 0 || tb == id::fp32);
      const bool s8 = tx == id::i8 && tw == id::i8 && tyy == id::i8 && (b < 0 || tb == id::i32);
      const bool s16 = tx == id::i16 && tw == id::i8 && tyy == id::i16 && (b < 0 || tb == id::i64 || tb == id::i32);
      if (!(f32 || s8 || s16)) {
        c.reason = "input " + tyname(x) + ", weights " + tyname(w) + (b >= 0 ? ", bias " + tyname(b) : "") + ", output " +
                   tyname(y) + " is not a supported combination (int8×int8+int32, int16×int8+int64, float32)";
        continue;
      }
      if (!f32) {
        for (auto t : {x, w, y})
          if (T[static_cast<std::size_t>(t)].scale.empty()) {
            c.reason = "tensor '" + tname(t) + "' has no quantization parameters";
            break;
          }
        if (!c.reason.empty()) continue;
        const auto& wt = T[static_cast<std::size_t>(w)];
        if (wt.scale.size() > 1) {
          if (wt.scale.size() != static_cast<std::size_t>(cout) || wt.quantized_dimension != 0) {
            c.reason = "per-channel weights with " + std::to_string(wt.scale.size()) + " scales on axis " +
                       std::to_string(wt.quantized_dimension) + " (expected " + std::to_string(cout) + " on axis 0)";
            continue;
          }
          if (std::any_of(wt.zero_point.begin(), wt.zero_point.end(), [](auto z) { return z != 0; })) {
            c.reason = "per-channel weights with a non-zero zero point";
            continue;
          }
        }
      }
      std::string xin = gname(x);
      if (!keep && xs.size() != 2) {
        graph::tensor flat;
        flat.name = fresh(xin + "/flatten");
        flat.type = *tx;
        flat.shape = {static_cast<std::int32_t>(xn / cin), cin};
        c.new_tensors.emplace_back(flat, x);
        graph::operation r;
        r.code = graph::framework_op::reshape;
        r.inputs = {xin};
        r.outputs = {flat.name};
        c.ops.push_back(std::move(r));
        xin = flat.name;
      }
      std::vector<std::int32_t> lin_shape = keep ? xs : std::vector<std::int32_t>{static_cast<std::int32_t>(xn / cin), cin};
      lin_shape.back() = cout;
      const auto& ys = T[static_cast<std::size_t>(y)].shape;
      if (graph::element_count(ys) != graph::element_count(lin_shape))
        return op_fail(o, "output of shape " + detail::shape_text(ys) + " (expected " + detail::shape_text(lin_shape) + ")",
                       tname(y));
      std::string yout = gname(y);
      const bool reshape_out = lin_shape != ys;
      if (reshape_out) {
        graph::tensor l;
        l.name = fresh(yout + "/linear");
        l.type = *tyy;
        l.shape = lin_shape;
        c.new_tensors.emplace_back(l, y);  // quant copied from y below
        yout = l.name;
      }
      // Float: the fused activation becomes an explicit relu/relu6 framework op (what a float
      // framework graph has); quantized: it stays fused on the linear (clamp on the int output).
      std::string lin_out = yout;
      const bool explicit_act = f32 && la.fused != graph::activation::none;
      if (explicit_act) {
        graph::tensor pre;
        pre.name = fresh(gname(y) + "/preact");
        pre.type = *tyy;
        pre.shape = lin_shape;
        c.new_tensors.emplace_back(pre, y);
        lin_out = pre.name;
      }
      graph::operation lin;
      lin.code = graph::framework_op::linear;
      lin.inputs = {xin, gname(w)};
      if (b >= 0) lin.inputs.push_back(gname(b));
      lin.outputs = {lin_out};
      lin.attr = explicit_act ? graph::linear_attr{} : la;
      c.ops.push_back(std::move(lin));
      if (explicit_act) {
        graph::operation act_op;
        act_op.code = la.fused == graph::activation::relu ? graph::framework_op::relu : graph::framework_op::relu6;
        act_op.inputs = {lin_out};
        act_op.outputs = {yout};
        c.ops.push_back(std::move(act_op));
      }
      if (reshape_out) {
        graph::operation r;
        r.code = graph::framework_op::reshape;
        r.inputs = {yout};
        r.outputs = {gname(y)};
        c.ops.push_back(std::move(r));
      }
      c.uses = {x, w, y};
      if (b >= 0) c.uses.push_back(b);
    } else if (code == fbs::BuiltinOperator::RESHAPE) {
      if (o.inputs.empty() || o.inputs[0] < 0) {
        c.reason = "missing input";
        continue;
      }
      const auto x = o.inputs[0], y = o.outputs[0];
      if (graph::element_count(T[static_cast<std::size_t>(x)].shape) != graph::element_count(T[static_cast<std::size_t>(y)].shape))
        return op_fail(o, "reshape of " + detail::shape_text(T[static_cast<std::size_t>(x)].shape) + " to " +
                              detail::shape_text(T[static_cast<std::size_t>(y)].shape), tname(y));
      if (!ty(x) || ty(x) != ty(y)) {
        c.reason = "tensor type " + tyname(x) + " is not supported";
        continue;
      }
      graph::operation r;
      r.code = graph::framework_op::reshape;
      r.inputs = {gname(x)};
      r.outputs = {gname(y)};
      c.ops.push_back(std::move(r));
      c.uses = {x, y};
    } else if (code == fbs::BuiltinOperator::QUANTIZE || code == fbs::BuiltinOperator::DEQUANTIZE) {
      if (o.inputs.empty() || o.inputs[0] < 0) {
        c.reason = "missing input";
        continue;
      }
      const bool q = code == fbs::BuiltinOperator::QUANTIZE;
      const auto x = o.inputs[0], y = o.outputs[0];
      const auto fl = q ? x : y, in = q ? y : x;
      if (ty(fl) != dtype::id::fp32 || !(ty(in) == dtype::id::i8 || ty(in) == dtype::id::i16)) {
        c.reason = tyname(x) + " to " + tyname(y) + " is not supported (only FLOAT32 <-> INT8/INT16)";
        continue;
      }
      if (T[static_cast<std::size_t>(in)].scale.empty()) {
        c.reason = "tensor '" + tname(in) + "' has no quantization parameters";
        continue;
      }
      graph::operation r;
      r.code = q ? graph::framework_op::quantize : graph::framework_op::dequantize;
      r.inputs = {gname(x)};
      r.outputs = {gname(y)};
      c.ops.push_back(std::move(r));
      c.uses = {x, y};
    } else {
      c.reason = "no lowering for this operator";
    }
  }

  // Regions: union-find over supported ops connected by a non-constant tensor.
  const std::size_t n = cand.size();
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto find = [&](std::size_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  std::map<std::int32_t, std::size_t> first_user;
  for (std::size_t i = 0; i < n; ++i) {
    if (!cand[i].reason.empty()) continue;
    for (auto t : cand[i].uses) {
      if (is_const(t)) continue;
      auto [it, fresh] = first_user.emplace(t, i);
      if (!fresh) parent[find(i)] = find(it->second);
    }
  }
  std::vector<bool> has_fc(n, false);
  for (std::size_t i = 0; i < n; ++i)
    if (cand[i].reason.empty() && info.operators[i].builtin_code == static_cast<std::int32_t>(fbs::BuiltinOperator::FULLY_CONNECTED))
      has_fc[find(i)] = true;

  import_result r;
  std::vector<bool> kept(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    if (!cand[i].reason.empty()) {
      r.left_out.push_back({i, info.operators[i].name, cand[i].reason});
    } else if (!has_fc[find(i)]) {
      r.left_out.push_back({i, info.operators[i].name, "not connected to a FULLY_CONNECTED"});
    } else {
      kept[i] = true;
      r.imported.push_back(i);
    }
  }
  if (opt.strict && !r.left_out.empty()) {
    std::string names;  // the first diagnostic names them all, one further diagnostic per operator
    for (const auto& o : r.left_out) names += (names.empty() ? "" : ", ") + ("#" + std::to_string(o.index) + " " + o.name);
    auto e = detail::failure(errc::unsupported, what,
                             std::to_string(r.left_out.size()) + " operator(s) cannot be lowered: " + names);
    for (const auto& o : r.left_out)
      e.add(detail::failure(errc::unsupported, what, o.reason, static_cast<std::int64_t>(o.index), o.name));
    return e;
  }

  // Kept operators must be in topological order and write each tensor once (TFLite's own
  // invariants; a file breaking them would make a cyclic or non-SSA graph).
  {
    std::vector<std::int64_t> writer(T.size(), -1);
    for (std::size_t i = 0; i < n; ++i)
      for (auto t : info.operators[i].outputs) {
        auto& w = writer[static_cast<std::size_t>(t)];
        if (w >= 0 && (kept[i] || kept[static_cast<std::size_t>(w)]))
          return op_fail(info.operators[i],
                         "tensor #" + std::to_string(t) + " is also written by operator #" + std::to_string(w) +
                             " (each tensor must be written by one operator)",
                         tname(t));
        if (w < 0) w = static_cast<std::int64_t>(i);
      }
    for (auto t : info.inputs)
      if (const auto w = writer[static_cast<std::size_t>(t)]; w >= 0 && kept[static_cast<std::size_t>(w)])
        return op_fail(info.operators[static_cast<std::size_t>(w)],
                       "writes tensor #" + std::to_string(t) + ", a subgraph input", tname(t));
    for (std::size_t i = 0; i < n; ++i) {
      if (!kept[i]) continue;
      for (auto t : info.operators[i].inputs)
        if (t >= 0 && writer[static_cast<std::size_t>(t)] >= static_cast<std::int64_t>(i))
          return op_fail(info.operators[i],
                         "reads tensor #" + std::to_string(t) + ", written by operator #" +
                             std::to_string(writer[static_cast<std::size_t>(t)]) +
                             (writer[static_cast<std::size_t>(t)] == static_cast<std::int64_t>(i)
                                  ? " itself"
                                  : " later (operators must be in topological order: a cycle?)"),
                         tname(t));
    }
  }

  // Tensors used by kept ops.
  auto& g = r.graph;
  std::vector<bool> added(T.size(), false);
  // qparams of TFLite tensor `t` for dtype `type`, checked (op: the kept operator using it).
  // Errors: a scale that is not finite and > 0, a zero point outside the type (named by `op`).
  auto quant_of = [&](const tflite_tensor& t, dtype::id type,
                      std::size_t op) -> expected<std::optional<graph::quant_params>> {
    if (t.scale.empty()) return std::optional<graph::quant_params>{};
    const auto& o = info.operators[op];
    const auto tn = " (tensor #" + std::to_string(t.index) + ")";
    for (std::size_t k = 0; k < t.scale.size(); ++k)
      if (!std::isfinite(t.scale[k]) || !(t.scale[k] > 0.0f))
        return op_fail(o, "quantization scale " + detail::float_text(t.scale[k]) +
                              (t.scale.size() > 1 ? " (channel " + std::to_string(k) + ")" : std::string()) + tn +
                              "; a scale must be finite and > 0",
                       t.name);
    graph::quant_params q;
    q.scale = t.scale;
    const auto& tr = dtype::traits(type);
    for (auto z : t.zero_point) {
      // TFLite keeps a zero point in the tensor's own integer range (INT32/INT64 bias: 0).
      if (z < std::max<std::int64_t>(tr.int_min, INT32_MIN) || z > std::min<std::int64_t>(tr.int_max, INT32_MAX))
        return op_fail(o, "zero point " + std::to_string(z) + tn + " is outside the range of its type " + t.type_name,
                       t.name);
      q.zero_point.push_back(static_cast<std::int32_t>(z));
    }
    if (q.zero_point.empty()) q.zero_point.push_back(0);
    q.per_channel = t.scale.size() > 1;
    q.axis = t.quantized_dimension;
    q.qmin = dtype::traits(type).int_min;
    q.qmax = dtype::traits(type).int_max;
    return std::optional<graph::quant_params>{std::move(q)};
  };
  auto add_tflite_tensor = [&](std::int32_t i, std::size_t op) -> expected<void> {
    if (added[static_cast<std::size_t>(i)]) return {};
    added[static_cast<std::size_t>(i)] = true;
    const auto& t = T[static_cast<std::size_t>(i)];
    graph::tensor gt;
    gt.name = gname(i);
    gt.type = *t.type;
    gt.shape = t.shape;
    for (auto d : gt.shape)
      if (d <= 0) return op_fail(info.operators[op], "tensor shape " + detail::shape_text(t.shape), t.name);
    if (t.const_bytes > 0) {
      gt.is_constant = true;
      const auto bb = detail::buffer_bytes(m, t.buffer, bytes, what);
      if (!bb) return bb.error();
      const auto need = graph::payload_bytes(gt.type, graph::element_count(gt.shape));
      if (bb->size() != need)
        return op_fail(info.operators[op], "constant of " + std::to_string(bb->size()) + " bytes; shape " +
                                               detail::shape_text(t.shape) + " of " + t.type_name + " needs " +
                                               std::to_string(need),
                       t.name);
      gt.data.assign(bb->begin(), bb->end());
    }
    auto q = quant_of(t, gt.type, op);
    if (!q) return std::move(q).error();
    gt.quant = std::move(*q);
    g.add(std::move(gt));
    return {};
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (!kept[i]) continue;
    for (auto t : cand[i].uses)
      if (auto a = add_tflite_tensor(t, i); !a) return std::move(a).error();
    for (auto& [nt, src] : cand[i].new_tensors) {
      // helper tensors carry the quantization of the tensor they stand for (names are fresh)
      auto q = quant_of(T[static_cast<std::size_t>(src)], nt.type, i);
      if (!q) return std::move(q).error();
      nt.quant = std::move(*q);
      g.add(std::move(nt));
    }
    for (auto& op : cand[i].ops) {
      op.source_index = static_cast<std::int64_t>(i);
      g.operators.push_back(std::move(op));
    }
  }
  // Graph inputs / outputs.
  std::unordered_map<std::string, int> produced, consumed_by_kept;
  for (const auto& op : g.operators) {
    for (const auto& s : op.outputs) produced[s]++;
    for (const auto& s : op.inputs) consumed_by_kept[s]++;
  }
  std::unordered_set<std::string> consumed_by_left_out;
  for (std::size_t i = 0; i < n; ++i)
    if (!kept[i])
      for (auto t : info.operators[i].inputs)
        if (t >= 0) consumed_by_left_out.insert(gname(t));
  std::unordered_set<std::string> in_set, out_set;
  auto push_unique = [](std::vector<std::string>& v, std::unordered_set<std::string>& set, const std::string& s) {
    if (set.insert(s).second) v.push_back(s);
  };
  for (auto i : info.inputs)
    if (consumed_by_kept.count(gname(i)) && !produced.count(gname(i))) push_unique(g.inputs, in_set, gname(i));
  for (const auto& op : g.operators)
    for (const auto& s : op.inputs) {
      const auto* t = g.find(s);
      if (t && !t->is_constant && !produced.count(s)) push_unique(g.inputs, in_set, s);
    }
  for (auto i : info.outputs)
    if (produced.count(gname(i))) push_unique(g.outputs, out_set, gname(i));
  for (const auto& op : g.operators)
    for (const auto& s : op.outputs)
      if (consumed_by_left_out.count(s) || !consumed_by_kept.count(s)) push_unique(g.outputs, out_set, s);
  return r;
}

/// Reads and imports the `.tflite` file `p` (errors of io::read_bytes and import_tflite).
[[nodiscard]] inline expected<import_result> import_tflite_file(const std::filesystem::path& p,
                                                                const import_options& opt = {}) {
  const auto bytes = io::read_bytes(p);
  if (!bytes) return bytes.error();
  return import_tflite(*bytes, p.string(), opt);
}

}  // namespace armlower::import
