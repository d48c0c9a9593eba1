// Seed files for the .npy and .tflite fuzzers, written at test time into a directory:
//   fuzz_emit_seeds npy <dir>     small .npy arrays of every supported dtype (io::format_npy),
//                                 shapes [], [3], [2,3], [1,2,2,1], plus format 2.0 and 3.0
//                                 headers of one of them;
//   fuzz_emit_seeds tflite <dir>  synthetic one-subgraph .tflite models covering the importer's
//                                 operators (float and int8 FULLY_CONNECTED with RELU/RELU6,
//                                 RESHAPE, int16 QUANTIZE → FC → DEQUANTIZE, a CUSTOM op),
//                                 built with tests/import/tflite_model_builder.hpp.
// (The real models in ../shared/data/tflite are added to the .tflite seeds by the ctest driver.)
#include "tflite_model_builder.hpp"

#include <armlower/io/npy.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace armlower;
namespace fbs = armlower::import::tflite_fbs;
using armlower_test::model_builder;

void save(const std::filesystem::path& p, const std::vector<std::uint8_t>& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

void emit_npy(const std::filesystem::path& dir) {
  const dtype::id types[] = {dtype::id::boolean, dtype::id::i8, dtype::id::i16, dtype::id::i32,
                             dtype::id::i64, dtype::id::fp16, dtype::id::fp32};
  const std::vector<std::vector<std::int32_t>> shapes{{}, {3}, {2, 3}, {1, 2, 2, 1}};
  int k = 0;
  for (auto t : types)
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      io::npy_array a{t, shapes[s], {}};
      const auto n = static_cast<std::size_t>(graph::element_count(a.shape)) * io::npy_element_bytes(t);
      for (std::size_t i = 0; i < n; ++i)
        a.data.push_back(t == dtype::id::boolean ? static_cast<std::uint8_t>(i & 1) : static_cast<std::uint8_t>(i * 37 + 1));
      const auto b = io::format_npy(a).value();
      save(dir / (std::string(dtype::name(t)) + "_" + std::to_string(s) + ".npy"), b);
      if (++k == 10) {  // the same array with format 2.0 and 3.0 headers (4-byte header length)
        for (std::uint8_t major : {2, 3}) {
          std::vector<std::uint8_t> v(b.size() + 2, 0);
          std::memcpy(v.data(), b.data(), 6);
          v[6] = major;
          v[8] = b[8];
          v[9] = b[9];  // v[10], v[11] = 0: the high bytes of the 4-byte header length
          std::memcpy(v.data() + 12, b.data() + 10, b.size() - 10);
          save(dir / ("v" + std::to_string(major) + ".npy"), v);
        }
      }
    }
}

std::vector<std::uint8_t> u8(std::size_t n, int mul) {
  std::vector<std::uint8_t> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = static_cast<std::uint8_t>(i * mul + 3);
  return w;
}

std::vector<std::uint8_t> f32(std::vector<float> v) {
  std::vector<std::uint8_t> r(v.size() * 4);
  std::memcpy(r.data(), v.data(), r.size());
  return r;
}

void emit_tflite(const std::filesystem::path& dir) {
  {  // float: reshape [1,2,2] -> [1,4], FC + RELU, FC + RELU6 (no bias)
    model_builder m;
    const auto x = m.tensor("x", fbs::TensorType::FLOAT32, {1, 2, 2});
    const auto xr = m.tensor("xr", fbs::TensorType::FLOAT32, {1, 4});
    const auto w1 = m.tensor("w1", fbs::TensorType::FLOAT32, {3, 4}, {}, {}, 0,
                             f32({0.5f, -1, 2, 0.25f, 1, 1, -1, 0, 0.1f, 0.2f, 0.3f, 0.4f}));
    const auto b1 = m.tensor("b1", fbs::TensorType::FLOAT32, {3}, {}, {}, 0, f32({0.1f, -0.2f, 0.3f}));
    const auto h = m.tensor("h", fbs::TensorType::FLOAT32, {1, 3});
    const auto w2 = m.tensor("w2", fbs::TensorType::FLOAT32, {2, 3}, {}, {}, 0, f32({1, 2, 3, -4, -5, 6}));
    const auto y = m.tensor("y", fbs::TensorType::FLOAT32, {1, 2});
    const auto crs = m.code(fbs::BuiltinOperator::RESHAPE);
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    m.op(crs, {x}, {xr});
    const auto relu = fbs::CreateFullyConnectedOptions(m.b, fbs::ActivationFunctionType::RELU);
    m.op(cfc, {xr, w1, b1}, {h}, fbs::BuiltinOptions::FullyConnectedOptions, relu.Union());
    const auto relu6 = fbs::CreateFullyConnectedOptions(m.b, fbs::ActivationFunctionType::RELU6);
    m.op(cfc, {h, w2, -1}, {y}, fbs::BuiltinOptions::FullyConnectedOptions, relu6.Union());
    save(dir / "float_mlp.tflite", m.finish({x}, {y}));
  }
  {  // int8 per-tensor and per-channel FC with int32 bias, then a CUSTOM op
    model_builder m;
    const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 4}, {0.5f}, {3});
    const auto w1 = m.tensor("w1", fbs::TensorType::INT8, {2, 4}, {0.1f}, {0}, 0, u8(8, 29));
    const auto b1 = m.tensor("b1", fbs::TensorType::INT32, {2}, {0.05f}, {0}, 0, u8(8, 0));
    const auto h = m.tensor("h", fbs::TensorType::INT8, {1, 2}, {0.2f}, {-1});
    const auto w2 = m.tensor("w2", fbs::TensorType::INT8, {2, 2}, {0.1f, 0.3f}, {0, 0}, 0, u8(4, 77));
    const auto y = m.tensor("y", fbs::TensorType::INT8, {1, 2}, {0.2f}, {0});
    const auto z = m.tensor("z", fbs::TensorType::INT8, {1, 2}, {0.2f}, {0});
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    const auto ccu = m.code(fbs::BuiltinOperator::CUSTOM, "MyOp");
    m.op(cfc, {x, w1, b1}, {h});
    m.op(cfc, {h, w2, -1}, {y});
    m.op(ccu, {y}, {z});
    save(dir / "int8_fc_custom.tflite", m.finish({x}, {z}));
  }
  // QUANTIZE -> int16 x int8 per-channel FC (int64 bias, keep_num_dims, RELU6) -> DEQUANTIZE
  save(dir / "int16_quantize_fc.tflite", armlower_test::int16_quantize_fc_model());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fuzz_emit_seeds npy|tflite <dir>\n");
    return 2;
  }
  const std::string kind = argv[1];
  std::filesystem::create_directories(argv[2]);
  if (kind == "npy") emit_npy(argv[2]);
  else if (kind == "tflite") emit_tflite(argv[2]);
  else {
    std::fprintf(stderr, "fuzz_emit_seeds: unknown kind '%s'\n", argv[1]);
    return 2;
  }
  return 0;
}
