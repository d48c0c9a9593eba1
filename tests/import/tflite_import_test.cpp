// .tflite importer on the real tflite-micro models (facts: ../shared/data/README.md and
// ../shared/reference/oracles.md §1a) and on damaged inputs (never a crash, one clear error).
#include <armlower/import/tflite.hpp>
#include <armlower/io/file.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

const std::string data = ARMLOWER_SHARED_DATA "/tflite/";

std::vector<std::uint8_t> load(const std::string& name) { return armlower::io::read_bytes(data + name).value(); }

const armlower::graph::operation* find_op(const armlower::graph::graph& g, armlower::graph::framework_op k,
                                          std::size_t nth = 0) {
  for (const auto& o : g.operators)
    if (!o.is_tosa() && std::get<armlower::graph::framework_op>(o.code) == k && nth-- == 0) return &o;
  return nullptr;
}

/// The first diagnostic of importing `b` as "model.tflite" as one line (empty when it imports);
/// every error is one line naming the file and the importer.
std::string error_of(const std::vector<std::uint8_t>& b, armlower::import::import_options opt = {}) {
  const auto r = armlower::import::import_tflite(b, "model.tflite", opt);
  if (r) return {};
  CHECK(r.error().where().file == "model.tflite");
  CHECK(r.error().where().stage == "tflite importer");
  CHECK(r.error().line().find('\n') == std::string::npos);
  return r.error().line();
}

}  // namespace

using namespace armlower;

TEST_CASE("hello_world_int8: three int8 FULLY_CONNECTED, ReLU fused on the first two") {
  const auto bytes = load("hello_world_int8.tflite");
  const auto info = import::inspect_tflite(bytes, "hello_world_int8.tflite").value();
  REQUIRE(info.operators.size() == 3);
  for (const auto& o : info.operators) CHECK(o.name == "FULLY_CONNECTED");
  CHECK(info.operators[0].options == "fused=RELU");
  CHECK(info.operators[2].options == "fused=NONE");
  REQUIRE(info.inputs.size() == 1);
  const auto& in = info.tensors[static_cast<std::size_t>(info.inputs[0])];
  CHECK(in.type_name == "INT8");
  CHECK(in.shape == std::vector<std::int32_t>{1, 1});
  REQUIRE(in.scale.size() == 1);
  CHECK(in.scale[0] == doctest::Approx(0.0244801).epsilon(1e-5));
  CHECK(in.zero_point == std::vector<std::int64_t>{-128});

  const auto r = import::import_tflite(bytes, "hello_world_int8.tflite").value();
  CHECK(r.left_out.empty());
  CHECK(r.imported == std::vector<std::size_t>{0, 1, 2});
  const auto& g = r.graph;
  REQUIRE(g.operators.size() == 3);
  const graph::activation expect[] = {graph::activation::relu, graph::activation::relu, graph::activation::none};
  const std::int32_t cout[] = {16, 16, 1}, cin[] = {1, 16, 16};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto* op = find_op(g, graph::framework_op::linear, i);
    REQUIRE(op != nullptr);
    REQUIRE(op->inputs.size() == 3);
    CHECK(std::get<graph::linear_attr>(op->attr).fused == expect[i]);
    const auto* w = g.find(op->inputs[1]);
    const auto* b = g.find(op->inputs[2]);
    REQUIRE(w);
    REQUIRE(b);
    CHECK(w->type == dtype::id::i8);
    CHECK(w->is_constant);
    CHECK(w->shape == std::vector<std::int32_t>{cout[i], cin[i]});
    CHECK(w->data.size() == static_cast<std::size_t>(cout[i] * cin[i]));
    CHECK(b->type == dtype::id::i32);
    CHECK(b->data.size() == static_cast<std::size_t>(4 * cout[i]));
    REQUIRE(w->quant);
    CHECK_FALSE(w->quant->per_channel);
  }
  CHECK(g.inputs == std::vector<std::string>{"serving_default_dense_input:0"});
  CHECK(g.outputs == std::vector<std::string>{"StatefulPartitionedCall:0"});
  const auto* x = g.find(g.inputs[0]);
  REQUIRE(x);
  REQUIRE(x->quant);
  CHECK(x->quant->zero_point == std::vector<std::int32_t>{-128});
  CHECK(x->quant->qmin == -128);
  CHECK(x->quant->qmax == 127);
}

TEST_CASE("hello_world_float: float32 FULLY_CONNECTED chain without quantization") {
  const auto r = import::import_tflite(load("hello_world_float.tflite"), "hello_world_float.tflite").value();
  CHECK(r.left_out.empty());
  REQUIRE(r.graph.operators.size() == 5);  // linear, relu, linear, relu, linear
  CHECK(find_op(r.graph, graph::framework_op::linear, 2) != nullptr);
  CHECK(find_op(r.graph, graph::framework_op::relu, 1) != nullptr);
  CHECK(find_op(r.graph, graph::framework_op::relu, 2) == nullptr);
  CHECK(r.graph.operators[1].inputs[0] == r.graph.operators[0].outputs[0]);
  CHECK(std::get<graph::linear_attr>(r.graph.operators[0].attr).fused == graph::activation::none);
  for (const auto& t : r.graph.tensors) {
    CHECK(t.type == dtype::id::fp32);
    CHECK_FALSE(t.quant.has_value());
  }
  const auto* w0 = r.graph.find(r.graph.operators[0].inputs[1]);
  REQUIRE(w0);
  CHECK(w0->data.size() == 16 * 4);
}

TEST_CASE("micro_speech: FULLY_CONNECTED 4000->4 imported, the rest listed by index and name") {
  const auto bytes = load("micro_speech_quantized.tflite");
  const auto r = import::import_tflite(bytes, "micro_speech_quantized.tflite").value();
  CHECK(r.imported == std::vector<std::size_t>{2});
  REQUIRE(r.left_out.size() == 3);
  CHECK(r.left_out[0].index == 0);
  CHECK(r.left_out[0].name == "RESHAPE");
  CHECK(r.left_out[1].index == 1);
  CHECK(r.left_out[1].name == "DEPTHWISE_CONV_2D");
  CHECK(r.left_out[2].index == 3);
  CHECK(r.left_out[2].name == "SOFTMAX");
  const auto& g = r.graph;
  // rank-4 input without keep_num_dims: explicit flatten to [1, 4000]
  const auto* flat = find_op(g, graph::framework_op::reshape);
  REQUIRE(flat);
  const auto* xf = g.find(flat->outputs[0]);
  REQUIRE(xf);
  CHECK(xf->shape == std::vector<std::int32_t>{1, 4000});
  REQUIRE(xf->quant);
  const auto* lin = find_op(g, graph::framework_op::linear);
  REQUIRE(lin);
  CHECK(g.find(lin->inputs[1])->shape == std::vector<std::int32_t>{4, 4000});
  CHECK(g.find(lin->outputs[0])->shape == std::vector<std::int32_t>{1, 4});
  REQUIRE(g.inputs.size() == 1);
  CHECK(g.find(g.inputs[0])->shape == std::vector<std::int32_t>{1, 25, 20, 8});
  REQUIRE(g.outputs.size() == 1);
  CHECK(g.outputs[0] == lin->outputs[0]);

  const auto msg = error_of(bytes, {.strict = true});
  CHECK(msg.find("3 operator(s) cannot be lowered") != std::string::npos);
  CHECK(msg.find("#1 DEPTHWISE_CONV_2D") != std::string::npos);
  CHECK(msg.find("#3 SOFTMAX") != std::string::npos);
  // One diagnostic per left-out operator after the summary, each with the model's op index.
  const auto strict = import::import_tflite(bytes, "micro_speech_quantized.tflite", {.strict = true});
  REQUIRE_FALSE(strict);
  const auto d = strict.error().diagnostics();
  REQUIRE(d.size() == 4);
  CHECK(strict.error().code() == errc::unsupported);
  CHECK(d[1].where.op_index == 0);
  CHECK(d[1].where.op == "RESHAPE");
  CHECK(d[2].where.op_index == 1);
  CHECK(d[2].where.op == "DEPTHWISE_CONV_2D");
  CHECK(d[2].message == "no lowering for this operator");
  CHECK(d[3].where.op_index == 3);
  CHECK(d[3].where.op == "SOFTMAX");
  CHECK(d[3].line() == "micro_speech_quantized.tflite: tflite importer: model op #3 SOFTMAX: no lowering for this operator");
}

TEST_CASE("damaged files give one clear error value (errc::malformed)") {
  const auto good = load("hello_world_int8.tflite");
  CHECK(error_of({}).find("not a flatbuffer") != std::string::npos);
  const std::string text = "this is a text file, not a model\n";
  CHECK(error_of({text.begin(), text.end()}).find("not a flatbuffer") != std::string::npos);

  auto wrong_id = good;
  std::copy_n("TOSA", 4, wrong_id.begin() + 4);
  CHECK(error_of(wrong_id).find("wrong file identifier 'TOSA'") != std::string::npos);
  CHECK(import::import_tflite(wrong_id, "m").error().code() == errc::malformed);

  for (std::size_t n : {8u, 16u, 100u, 1000u, 2000u, 2700u}) {
    const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    const auto m = error_of(cut);
    INFO("prefix ", n, ": ", m);
    CHECK(m.find("truncated") != std::string::npos);
  }
  const auto missing = armlower::import::import_tflite_file(data + "no_such_model.tflite");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == errc::io);
  CHECK(missing.error().where().file == data + "no_such_model.tflite");
}

TEST_CASE("every prefix and random byte corruption is rejected or imported, never a crash") {
  for (const char* name : {"hello_world_int8.tflite", "micro_speech_quantized.tflite"}) {
    const auto good = load(name);
    for (std::size_t n = 0; n < good.size(); n += 7) {
      const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
      CHECK_FALSE(error_of(cut).empty());
    }
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 400; ++trial) {
      auto bad = good;
      for (int k = 0; k < 4; ++k) bad[rng() % bad.size()] = static_cast<std::uint8_t>(rng());
      try {  // an error value or a graph; any exception is a defect
        const auto r = import::import_tflite(bad, name);
        if (!r) CHECK(r.error().line().find('\n') == std::string::npos);
      } catch (const std::exception& e) {
        FAIL("unexpected exception: " << e.what());
      }
    }
  }
}
