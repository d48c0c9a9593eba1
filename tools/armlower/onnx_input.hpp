// armlower tool: `.onnx` models for `lower` and `inspect` (armlower/import/onnx.hpp, the optional
// armlower::onnx component). Built without it (ARMLOWER_HAVE_ONNX undefined), an .onnx model is
// refused with one line saying so.
#pragma once

#include "driver.hpp"

#ifdef ARMLOWER_HAVE_ONNX
#include <armlower/import/onnx.hpp>
#endif

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

namespace armlower::tool {

/// True when `p` names an ONNX model: extension ".onnx" (any case), or content that is neither a
/// .tflite nor a .tosa flatbuffer and starts like an ONNX ModelProto.
[[nodiscard]] inline bool is_onnx_model(const std::filesystem::path& p) {
  auto ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".onnx") return true;
#ifdef ARMLOWER_HAVE_ONNX
  const auto bytes = io::read_bytes(p);
  if (!bytes) return false;  // the loader reports the read error
  return import::looks_like_onnx(*bytes) &&
         !(bytes->size() >= 8 && (std::string_view(reinterpret_cast<const char*>(bytes->data() + 4), 4) == "TFL3"));
#else
  return false;
#endif
}

/// Loads an `.onnx` model (external data next to it). Errors (`armlower::error`): io / import errors,
/// nothing to lower, or a tool built without the ONNX component.
[[nodiscard]] inline expected<model> load_onnx(const std::filesystem::path& p, bool strict) {
#ifdef ARMLOWER_HAVE_ONNX
  model m;
  m.source = p.string();
  auto r = import::import_onnx_file(p, {.strict = strict});
  if (!r) return std::move(r).error();
  m.graph = std::move(r->graph);
  m.imported = std::move(r->imported);
  m.left_out = std::move(r->left_out);
  // A QDQ model: annotate the model's own qparams on the tensors now (the pipeline's first pass,
  // FoldAndAnnotateQParams, then finds nothing left to fold), so the tool sees a quantized model
  // the way it sees a quantized .tflite (default scheme from the activation dtype, --calib and
  // --per-channel reported as not applying).
  const bool qdq = std::any_of(m.graph.operators.begin(), m.graph.operators.end(), [](const graph::operation& o) {
    return !o.is_tosa() && (std::get<graph::framework_op>(o.code) == graph::framework_op::quantize ||
                            std::get<graph::framework_op>(o.code) == graph::framework_op::dequantize);
  });
  if (qdq) {
    passes::report rep;
    if (auto s = passes::fold_and_annotate_qparams(m.graph, rep); !s) return std::move(s).error().in_file(m.source);
  }
  if (m.graph.operators.empty()) {
    std::string names;
    for (const auto& o : m.left_out) names += "; " + import::to_string(o);
    auto e = failure("nothing to lower: no Gemm/MatMul/Add with supported operands" + names, errc::unsupported, m.source);
    for (const auto& o : m.left_out)
      e.add(diagnostic{errc::unsupported,
                       location{m.source, "onnx importer", static_cast<std::int64_t>(o.index), -1, o.name, {}},
                       o.reason});
    return e;
  }
  return m;
#else
  static_cast<void>(strict);
  return failure("this armlower was built without ONNX support (the armlower::onnx component needs "
                 "libprotobuf-dev and protobuf-compiler)",
                 errc::unsupported, p.string());
#endif
}

/// `load_onnx` for ONNX models, `load_tflite` otherwise.
[[nodiscard]] inline expected<model> load_model(const std::filesystem::path& p, bool strict) {
  return is_onnx_model(p) ? load_onnx(p, strict) : load_tflite(p, strict);
}

}  // namespace armlower::tool
