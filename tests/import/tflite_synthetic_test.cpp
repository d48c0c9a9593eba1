// Importer forms the real models do not contain, on .tflite images built here with the
// flatbuffers builder of armlower's schema subset (the same field ids as the real format, checked
// by armlower_import_schema): QUANTIZE → int16×int8 per-channel FULLY_CONNECTED (int64 bias,
// keep_num_dims, RELU6) → DEQUANTIZE, a TANH-fused FC left out, and a CUSTOM op.
#include "tflite_model_builder.hpp"

#include <armlower/import/tflite.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

using namespace armlower;
namespace fbs = armlower::import::tflite_fbs;
using armlower_test::model_builder;

TEST_CASE("QUANTIZE -> int16 x int8 per-channel FC (int64 bias, keep_num_dims, RELU6) -> DEQUANTIZE") {
  const auto bytes = armlower_test::int16_quantize_fc_model();
  const auto w = armlower_test::int16_quantize_fc_weights();

  const auto r = import::import_tflite(bytes, "synthetic.tflite", {.strict = true}).value();
  CHECK(r.left_out.empty());
  const auto& g = r.graph;
  REQUIRE(g.operators.size() == 3);
  CHECK(std::get<graph::framework_op>(g.operators[0].code) == graph::framework_op::quantize);
  CHECK(std::get<graph::framework_op>(g.operators[1].code) == graph::framework_op::linear);
  CHECK(std::get<graph::framework_op>(g.operators[2].code) == graph::framework_op::dequantize);
  CHECK(std::get<graph::linear_attr>(g.operators[1].attr).fused == graph::activation::relu6);
  CHECK(g.inputs == std::vector<std::string>{"x"});
  CHECK(g.outputs == std::vector<std::string>{"y"});
  const auto* wq = g.find("w");
  REQUIRE(wq);
  REQUIRE(wq->quant);
  CHECK(wq->quant->per_channel);
  CHECK(wq->quant->axis == 0);
  CHECK(wq->quant->scale.size() == 4);
  CHECK(wq->data == w);
  const auto* b = g.find("b");
  REQUIRE(b);
  CHECK(b->type == dtype::id::i64);
  CHECK(graph::decode_ints(dtype::id::i64, b->data, 4) == std::vector<std::int64_t>{-5, 6, -70000, 1LL << 40});
  CHECK(g.find("yq")->shape == std::vector<std::int32_t>{1, 2, 4});  // keep_num_dims: no flatten
  CHECK(g.find("xq")->quant->qmin == -32768);
}

TEST_CASE("unsupported fused activation, per-channel on the wrong axis and CUSTOM ops are listed, not dropped") {
  model_builder m;
  std::vector<std::uint8_t> w(8, 1);
  const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 4}, {0.5f}, {3});
  const auto w1 = m.tensor("w1", fbs::TensorType::INT8, {2, 4}, {0.1f}, {0}, 0, w);
  const auto h = m.tensor("h", fbs::TensorType::INT8, {1, 2}, {0.2f}, {-1});
  const auto w2 = m.tensor("w2", fbs::TensorType::INT8, {2, 2}, {0.1f, 0.1f}, {0, 0}, 1, {1, 2, 3, 4});
  const auto y = m.tensor("y", fbs::TensorType::INT8, {1, 2}, {0.2f}, {0});
  const auto z = m.tensor("z", fbs::TensorType::INT8, {1, 2}, {0.2f}, {0});
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const auto ccu = m.code(fbs::BuiltinOperator::CUSTOM, "MyOp");
  const auto tanh = fbs::CreateFullyConnectedOptions(m.b, fbs::ActivationFunctionType::TANH);
  m.op(cfc, {x, w1, -1}, {h}, fbs::BuiltinOptions::FullyConnectedOptions, tanh.Union());
  m.op(cfc, {h, w2, -1}, {y});
  m.op(ccu, {y}, {z});
  const auto bytes = m.finish({x}, {z});
  const auto r = import::import_tflite(bytes, "bad_ops.tflite").value();
  REQUIRE(r.left_out.size() == 3);
  CHECK(r.left_out[0].reason == "fused activation TANH is not supported");
  CHECK(r.left_out[1].reason.find("per-channel weights with 2 scales on axis 1") != std::string::npos);
  CHECK(r.left_out[2].name == "CUSTOM(MyOp)");
  CHECK(r.graph.operators.empty());
  const auto strict = import::import_tflite(bytes, "bad_ops.tflite", {.strict = true});
  REQUIRE_FALSE(strict);
  CHECK(strict.error().code() == errc::unsupported);
  CHECK(strict.error().line().find("#2 CUSTOM(MyOp)") != std::string::npos);
  CHECK(strict.error().text().find("model op #2 CUSTOM(MyOp): no lowering for this operator") != std::string::npos);
}
