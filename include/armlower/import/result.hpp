/// @file armlower/import/result.hpp
/// What every model importer (`.tflite`: armlower/import/tflite.hpp, `.onnx`:
/// armlower/import/onnx.hpp) returns: the framework graph of the supported regions, the source
/// indices of the imported operators, and every operator left out with the reason; plus the
/// importers' error constructor and options. Hosted only.
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/io/text.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace armlower::import {

namespace detail {
/// `s` with each byte below 0x20 and 0x7F written as `\xNN` (a line break inside a tensor name
/// from the file, say), so a message stays one line whatever the file's names hold.
[[nodiscard]] inline std::string one_line(const std::string& s) {
  std::string r;
  r.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7F) r += c;
    else io::append_escaped_byte(r, u);
  }
  return r;
}

/// An importer error: stage "tflite importer", `file` = `what`, the `.tflite` operator index and
/// name and the tensor name when known; every text made one line (`one_line`).
[[nodiscard]] inline error failure(errc code, const std::string& what, const std::string& message,
                                   std::int64_t op_index = -1, const std::string& op = {},
                                   const std::string& tensor = {}) {
  return error(code, location{one_line(what), "tflite importer", op_index, -1, one_line(op), one_line(tensor)},
               one_line(message));
}
}  // namespace detail

/// An operator the importer did not put into the framework graph, and why.
struct left_out_op {
  std::size_t index = 0;  ///< operator index in the source model (TFLite subgraph / ONNX graph node list)
  std::string name;       ///< e.g. "DEPTHWISE_CONV_2D" (TFLite) or "LayerNormalization 'ln1'" (ONNX op type and node name)
  std::string reason;     ///< e.g. "no lowering for this operator"
};

/// Importer options.
struct import_options {
  /// Refuse the model (an error with one diagnostic per left-out operator) unless every
  /// operator is imported.
  bool strict = false;
};

/// Result of an import: the framework graph of the kept operators, the source-model indices of the
/// kept operators, and every operator left out.
struct import_result {
  graph::graph graph;
  std::vector<std::size_t> imported;
  std::vector<left_out_op> left_out;
};

/// "#4 DEPTHWISE_CONV_2D (no lowering for this operator)".
[[nodiscard]] inline std::string to_string(const left_out_op& o) {
  return detail::one_line("#" + std::to_string(o.index) + " " + o.name + " (" + o.reason + ")");
}

}  // namespace armlower::import
