// Synthetic .tflite images for tests: a flatbuffers builder over armlower's TFLite schema subset
// (`armlower/import/tflite_subset.fbs`, the same field ids as the real format — checked against the
// real models by armlower_import_schema). Used by tests/import and tests/tool.
#pragma once

#include <armlower/import/tflite.hpp>

#include <cstdint>
#include <string>
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

/// Weight codes of layer `l` of `chain_model`: [width][width] int8, different per layer.
inline std::vector<std::uint8_t> chain_weights(std::int32_t l, std::int32_t width) {
  std::vector<std::uint8_t> w(static_cast<std::size_t>(width) * static_cast<std::size_t>(width));
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>((static_cast<std::int32_t>(i) * 7 + l * 13) % 61 - 30));
  return w;
}

/// A chain of `layers` int8 FULLY_CONNECTED layers [1, width] → [1, width] (per-tensor int8
/// weights from `chain_weights`, int32 bias l − i, activation scales 0.05, weight scale 0.01).
/// With `shared_names`, every layer's weights are named "w", every bias "b" and every
/// activation "act" (legal in TFLite: tensors are bound by index).
inline std::vector<std::uint8_t> chain_model(std::int32_t layers, std::int32_t width, bool shared_names = false) {
  model_builder m;
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const auto fo = fbs::CreateFullyConnectedOptions(m.b).Union();
  auto nm = [&](const char* base, std::int32_t l) { return shared_names ? std::string(base) : base + std::to_string(l); };
  const auto x = m.tensor(nm("act", -1).c_str(), fbs::TensorType::INT8, {1, width}, {0.05f}, {-3});
  auto cur = x;
  for (std::int32_t l = 0; l < layers; ++l) {
    const auto w = m.tensor(nm("w", l).c_str(), fbs::TensorType::INT8, {width, width}, {0.01f}, {0}, 0, chain_weights(l, width));
    std::vector<std::uint8_t> bias;
    for (std::int32_t i = 0; i < width; ++i) {
      const auto v = static_cast<std::uint32_t>(l - i);
      for (int k = 0; k < 4; ++k) bias.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
    }
    const auto b = m.tensor(nm("b", l).c_str(), fbs::TensorType::INT32, {width}, {0.0005f}, {0}, 0, bias);
    const auto y = m.tensor(nm("act", l).c_str(), fbs::TensorType::INT8, {1, width}, {0.05f}, {l % 5 - 2});
    m.op(cfc, {cur, w, b}, {y}, fbs::BuiltinOptions::FullyConnectedOptions, fo);
    cur = y;
  }
  return m.finish({x}, {cur});
}

/// Weights of `int16_quantize_fc_model`: 32 bytes, byte i = (i·7) mod 256.
inline std::vector<std::uint8_t> int16_quantize_fc_weights() {
  std::vector<std::uint8_t> w(32);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::uint8_t>(i * 7);
  return w;
}

/// QUANTIZE → int16 × int8 per-channel FULLY_CONNECTED (int64 bias {−5, 6, −70000, 2^40},
/// keep_num_dims, RELU6) → DEQUANTIZE: x [1,2,8] fp32 → y [1,2,4] fp32; weights "w" [4,8] with
/// per-channel scales {0.1, 0.2, 0.3, 0.4}.
inline std::vector<std::uint8_t> int16_quantize_fc_model() {
  model_builder m;
  const auto x = m.tensor("x", fbs::TensorType::FLOAT32, {1, 2, 8});
  const auto xq = m.tensor("xq", fbs::TensorType::INT16, {1, 2, 8}, {0.01f}, {0});
  const auto wt = m.tensor("w", fbs::TensorType::INT8, {4, 8}, {0.1f, 0.2f, 0.3f, 0.4f}, {0, 0, 0, 0}, 0,
                           int16_quantize_fc_weights());
  const auto bt = m.tensor("b", fbs::TensorType::INT64, {4}, {0.001f, 0.002f, 0.003f, 0.004f}, {0, 0, 0, 0}, 0,
                           bytes_of_i64({-5, 6, -70000, 1LL << 40}));
  const auto yq = m.tensor("yq", fbs::TensorType::INT16, {1, 2, 4}, {0.05f}, {0});
  const auto y = m.tensor("y", fbs::TensorType::FLOAT32, {1, 2, 4});
  const auto cq = m.code(fbs::BuiltinOperator::QUANTIZE);
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const auto cdq = m.code(fbs::BuiltinOperator::DEQUANTIZE);
  m.op(cq, {x}, {xq});
  const auto fo = fbs::CreateFullyConnectedOptions(m.b, fbs::ActivationFunctionType::RELU6,
                                                   fbs::FullyConnectedOptionsWeightsFormat::DEFAULT, true);
  m.op(cfc, {xq, wt, bt}, {yq}, fbs::BuiltinOptions::FullyConnectedOptions, fo.Union());
  m.op(cdq, {yq}, {y});
  return m.finish({x}, {y});
}

}  // namespace armlower_test
