/// @file armlower/import/onnx.hpp
/// The `.onnx` importer: reads an ONNX model (protobuf, armlower's own schema subset
/// `onnx_subset.proto`, written from the ONNX IR spec, onnx.proto, IR version 10) and produces
///  - an `onnx_model`: a faithful listing of the main graph (nodes by index, op type and name,
///    initializers, graph inputs and outputs) for `armlower inspect`, and
///  - an `import_result` (armlower/import/result.hpp): the same framework graph the `.tflite`
///    importer builds (`graph::framework_op::linear`, `quantize`, `dequantize`, `relu`, `relu6`,
///    `reshape` with `graph::quant_params`), so every pass, scheme and Cortex-M target applies
///    unchanged; plus every node left out, by index, op type and name, with the reason.
///
/// Accepted models: `ir_version` 7..10 (`min_ir_version`..`max_ir_version`), the default operator
/// set (domain "" or "ai.onnx") at version 13..21 (`min_opset`..`max_opset`); nodes of other
/// domains are left out. Initializers inline (raw_data or the typed fields) or as external data
/// (a relative `location` inside the model's folder, `offset`, `length`). Graph inputs may have a
/// symbolic (dim_param / unknown) leading batch dimension; it is imported as 1.
///
/// Supported nodes (semantics: ONNX operator specs, https://onnx.ai/onnx/operators/):
///  - Gemm (transA = 0, transB 0/1, alpha, beta, optional C broadcast along N), MatMul with a
///    constant 2-D second operand → `linear` (weights transposed to [Cout, Cin]); a float
///    `alpha`/`beta` is folded into the float weights/bias; a quantized Gemm needs alpha = beta = 1.
///  - Add of a constant bias (shape [N], [1,..,N] or a scalar) on [..., N]: on a float model,
///    folded into the bias of the MatMul/Gemm that writes its input when that linear has no bias
///    and no other reader; otherwise (and always in a QDQ model, where onnxruntime's
///    quantize_static requantizes the MatMul output before the Add) a `linear` with identity
///    weights: float, or int8 codes 64 with scale 2^-6 (exactly 1) and the bias as int32 codes of
///    scale s_x·2^-6 (the constant rounded to 1/64 of the input quantum).
///  - Relu → `relu`; Clip with constant min 0 and max absent / 6 → `relu` / `relu6`.
///  - Reshape (constant shape, 0 and −1, allowzero), Flatten (axis), Identity → `reshape`.
///  - QuantizeLinear / DequantizeLinear: per-tensor on activations, per-tensor or per-axis on
///    constant weights/biases; zero points INT8, UINT8, INT16, UINT16 (absent = UINT8 0). UINT8
///    and UINT16 tensors are imported as INT8 / INT16 with the zero point (and constant codes)
///    shifted by −128 / −32768: real = s·(q − z) is unchanged, so the flip onnxruntime writes
///    between int8 and uint8 is exact. A DequantizeLinear of a constant becomes a quantized
///    constant behind a `dequantize` (as armlower/graph/builder.hpp builds it).
///  - A `quantize` reading a graph input, or a `dequantize` writing a graph output, is dropped and
///    the quantized tensor becomes the graph input/output (the graph takes and returns integers,
///    as a delegated ExecuTorch partition does; the report gives their scale and zero point).
/// A supported node is kept only when its connected region contains a linear; every other node is
/// listed in `import_result::left_out` as "#<index> <OpType> '<name>' (<reason>)".
///
/// Errors (`armlower::error`, one line naming the file, node or tensor and the rule): not a protobuf /
/// truncated, no graph, ir_version or opset outside the accepted range, nodes not in topological
/// order (a cycle) or a value written twice, an initializer whose data is shorter or longer than
/// its shape, a missing or escaping external-data file, a Q/DQ scale that is zero, negative or
/// not finite, or whose length does not match its axis, invalid shapes.
///
/// This header only declares; the implementation (src/import/onnx.cpp with the protobuf code
/// generated from onnx_subset.proto) is the compiled CMake component `armlower::onnx` (needs
/// Debian libprotobuf-dev + protobuf-compiler). The rest of armlower stays header-only.
#pragma once

#include <armlower/import/result.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace armlower::import {

/// Smallest / largest accepted ModelProto.ir_version (ONNX IR spec: 7 = ONNX 1.8 … 10 = ONNX 1.16).
inline constexpr std::int64_t onnx_min_ir_version = 7;
inline constexpr std::int64_t onnx_max_ir_version = 10;
/// Smallest / largest accepted version of the default operator set ("" / "ai.onnx").
inline constexpr std::int64_t onnx_min_opset = 13;
inline constexpr std::int64_t onnx_max_opset = 21;

/// A graph input, output or initializer as stored.
struct onnx_value {
  std::string name;
  std::string type_name;            ///< ONNX element type, e.g. "FLOAT", "INT8" ("" = not a tensor / unknown)
  std::vector<std::int64_t> shape;  ///< dims; −1 = symbolic or unknown
  std::vector<std::string> dim_params;  ///< per dim: the symbolic name ("" when numeric)
  bool has_shape = false;           ///< false when the type carries no shape at all
  std::size_t bytes = 0;            ///< initializers: payload bytes (0 for graph inputs/outputs)
  bool external = false;            ///< initializers: data stored in an external file
};

/// One node of the main graph.
struct onnx_node {
  std::size_t index = 0;  ///< position in GraphProto.node
  std::string name;
  std::string op_type;
  std::string domain;     ///< "" = the default domain
  std::vector<std::string> inputs;   ///< value names ("" = absent optional input)
  std::vector<std::string> outputs;
  std::string attributes;  ///< readable attributes, e.g. "transB=1 alpha=0.5"
};

/// The main graph of an `.onnx` model, for inspection.
struct onnx_model {
  std::int64_t ir_version = 0;
  std::string producer;                                        ///< producer_name producer_version
  std::vector<std::pair<std::string, std::int64_t>> opsets;    ///< (domain, version)
  std::string graph_name;
  std::vector<onnx_node> nodes;
  std::vector<onnx_value> initializers;
  std::vector<onnx_value> inputs;   ///< graph inputs that are not initializers
  std::vector<onnx_value> outputs;
};

/// "LayerNormalization 'ln1'" — how messages and left-out lists name a node.
[[nodiscard]] std::string onnx_node_label(const onnx_node& n);

/// Parses and lists the `.onnx` image `bytes`; `what` names the source in messages and
/// `model_dir` is the folder external data is resolved against. Errors: see the file comment
/// (parse, ir_version, opset, initializer sizes, external data).
[[nodiscard]] expected<onnx_model> inspect_onnx(std::span<const std::uint8_t> bytes, const std::string& what,
                                                const std::filesystem::path& model_dir);

/// Parses `bytes` and imports the supported regions (see the file comment); `opt.strict` refuses
/// the model when any node is left out (errc::unsupported, one diagnostic per left-out node).
/// Errors: `armlower::error`, stage "onnx importer", file = `what`.
[[nodiscard]] expected<import_result> import_onnx(std::span<const std::uint8_t> bytes, const std::string& what,
                                        const std::filesystem::path& model_dir, const import_options& opt = {});

/// Reads and imports the `.onnx` file `p` (external data next to it). Errors: errc::io for an
/// unreadable file, otherwise as `import_onnx`.
[[nodiscard]] expected<import_result> import_onnx_file(const std::filesystem::path& p, const import_options& opt = {});

/// True when `bytes` may be an ONNX ModelProto: it is not a TFLite/TOSA flatbuffer and starts with
/// a protobuf key of a ModelProto field armlower knows (a cheap sniff for the tool; the parser
/// decides).
[[nodiscard]] bool looks_like_onnx(std::span<const std::uint8_t> bytes) noexcept;

}  // namespace armlower::import
