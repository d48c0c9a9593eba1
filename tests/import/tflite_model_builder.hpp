// Synthetic .tflite images for tests: a flatbuffers builder over armlower's TFLite schema subset
// (`armlower/import/tflite_subset.fbs`, the same field ids as the real format — checked against the
// real models by armlower_import_schema). Used by tests/import and tests/tool.
#pragma once

#include <armlower/import/tflite.hpp>

#include <cstdint>
#include <vector>

namespace armlower_test {

namespace fbs = armlower::import::tflite_fbs;

/// Builds one-subgraph models: tensors (optionally quantized, optionally with constant data),
/// operator codes and operators, then `finish(inputs, outputs)` gives the file image.
struct model_builder {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fbs::Buffer>> buffers{fbs::CreateBufferDirect(b)};
  std::vector<flatbuffers::Offset<fbs::Tensor>> tensors;
  std::vector<flatbuffers::Offset<fbs::Operator>> ops;
  std::vector<flatbuffers::Offset<fbs::OperatorCode>> codes;

  std::int32_t tensor(const char* name, fbs::TensorType t, std::vector<std::int32_t> shape, std::vector<float> scale = {},
                      std::vector<std::int64_t> zp = {}, std::int32_t qdim = 0, std::vector<std::uint8_t> data = {}) {
    std::uint32_t buf = 0;
    if (!data.empty()) {
      buf = static_cast<std::uint32_t>(buffers.size());
      buffers.push_back(fbs::CreateBufferDirect(b, &data));
    }
    flatbuffers::Offset<fbs::QuantizationParameters> q = 0;
    if (!scale.empty())
      q = fbs::CreateQuantizationParametersDirect(b, nullptr, nullptr, &scale, &zp, fbs::QuantizationDetails::NONE, 0, qdim);
    tensors.push_back(fbs::CreateTensorDirect(b, &shape, t, buf, name, q));
    return static_cast<std::int32_t>(tensors.size() - 1);
  }
  std::uint32_t code(fbs::BuiltinOperator op, const char* custom = nullptr) {
    const auto v = static_cast<std::int32_t>(op);
    codes.push_back(fbs::CreateOperatorCodeDirect(b, static_cast<std::int8_t>(v < 127 ? v : 127), custom, 1, op));
    return static_cast<std::uint32_t>(codes.size() - 1);
  }
  void op(std::uint32_t code_index, std::vector<std::int32_t> in, std::vector<std::int32_t> out,
          fbs::BuiltinOptions ot = fbs::BuiltinOptions::NONE, flatbuffers::Offset<void> o = 0) {
    ops.push_back(fbs::CreateOperatorDirect(b, code_index, &in, &out, ot, o));
  }
  std::vector<std::uint8_t> finish(std::vector<std::int32_t> in, std::vector<std::int32_t> out) {
    std::vector<flatbuffers::Offset<fbs::SubGraph>> sgs{fbs::CreateSubGraphDirect(b, &tensors, &in, &out, &ops, "main")};
    fbs::FinishModelBuffer(b, fbs::CreateModelDirect(b, 3, &codes, &sgs, "synthetic", &buffers));
    return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
  }
};

/// Little-endian bytes of int64 values (an INT64 constant buffer).
inline std::vector<std::uint8_t> bytes_of_i64(const std::vector<std::int64_t>& v) {
  std::vector<std::uint8_t> r;
  for (auto x : v)
    for (int k = 0; k < 8; ++k) r.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(x) >> (8 * k)));
  return r;
}


}  // namespace armlower_test
