// Hostile and careless .tflite files (issue 12 §2): duplicate tensor names (legal in TFLite:
// operators bind tensors by index), helper-tensor name clashes, int64 zero points at addresses
// that are 4 mod 8, non-finite or non-positive scales, out-of-range zero points, cycles and
// tensors written twice, pass errors naming the model's own operator index, and a 10,000-layer
// model lowered in linear time. Oracles: the weights/biases/scales put into the file (each layer
// has different ones), TFLite's invariants (topological order, one writer per tensor).
#include "tflite_model_builder.hpp"

#include <armlower/graph/constant.hpp>
#include <armlower/import/tflite.hpp>
#include <armlower/passes/cortex_m.hpp>
#include <armlower/passes/pipeline.hpp>
#include <armlower/tosa/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

using namespace armlower;
namespace fbs = armlower::import::tflite_fbs;
using armlower_test::chain_model;
using armlower_test::chain_weights;
using armlower_test::model_builder;

namespace {

std::vector<std::uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<std::uint8_t> r(v.size() * 4);
  std::memcpy(r.data(), v.data(), r.size());
  return r;
}

/// The first `n` weight codes of `chain_weights(l, 8)` (for [rows, cols] with rows·cols = n ≤ 64).
std::vector<std::uint8_t> codes(std::int32_t l, std::size_t n) {
  auto w = chain_weights(l, 8);
  w.resize(n);
  return w;
}

std::vector<std::int8_t> as_i8(const std::vector<std::uint8_t>& v) { return {v.begin(), v.end()}; }

/// Every operand of every operator is a tensor of the graph, every tensor name is unique and
/// every tensor is written by at most one operator.
void check_well_formed(const graph::graph& g) {
  std::set<std::string> names, written;
  for (const auto& t : g.tensors) CHECK_MESSAGE(names.insert(t.name).second, "duplicate tensor name ", t.name);
  for (const auto& o : g.operators) {
    for (const auto& s : o.inputs) CHECK_MESSAGE(g.find(s) != nullptr, "missing operand ", s);
    for (const auto& s : o.outputs) {
      CHECK_MESSAGE(g.find(s) != nullptr, "missing result ", s);
      CHECK_MESSAGE(written.insert(s).second, "tensor written twice ", s);
    }
  }
}

/// The error of importing `bytes` as "m.tflite" as one line ("" when it imports); every such
/// error is `errc::malformed` and names the file and the model's operator.
std::string import_error_of(const std::vector<std::uint8_t>& bytes) {
  const auto r = import::import_tflite(bytes, "m.tflite");
  if (r) return "";
  CHECK(r.error().code() == errc::malformed);
  CHECK(r.error().where().file == "m.tflite");
  CHECK(r.error().where().op_index >= 0);
  return r.error().line();
}

}  // namespace

TEST_CASE("duplicate tensor names: every layer keeps its own weights and bias (Cortex-M plan)") {
  const auto bytes = chain_model(3, 4, /*shared_names=*/true);  // weights "w", biases "b", activations "act"
  const auto r = import::import_tflite(bytes, "dup.tflite", {.strict = true}).value();
  const auto& g = r.graph;
  check_well_formed(g);
  REQUIRE(g.operators.size() == 3);
  for (std::int32_t l = 0; l < 3; ++l) {
    const auto& o = g.operators[static_cast<std::size_t>(l)];
    CHECK(o.source_index == l);
    const auto* w = g.find(o.inputs.at(1));
    REQUIRE(w);
    CHECK(w->data == chain_weights(l, 4));
    const auto* b = g.find(o.inputs.at(2));
    REQUIRE(b);
    CHECK(graph::decode_ints(dtype::id::i32, b->data, 4) == std::vector<std::int64_t>{l, l - 1, l - 2, l - 3});
    if (l > 0) CHECK(o.inputs[0] == g.operators[static_cast<std::size_t>(l - 1)].outputs[0]);
  }
  CHECK(g.find("w") != nullptr);  // the first tensor of a name keeps it
  CHECK(g.find("w_1") != nullptr);
  CHECK(g.find("w_2") != nullptr);

  for (auto isa : {cortex_m::isa::dsp, cortex_m::isa::mve}) {
    const auto p = passes::lower_cortex_m(g, {isa});
    REQUIRE_MESSAGE(bool(p), (p ? std::string() : p.error().message()));
    REQUIRE(p->layers.size() == 3);
    for (std::int32_t l = 0; l < 3; ++l) {
      const auto& L = p->layers[static_cast<std::size_t>(l)];
      CHECK(L.weights == as_i8(chain_weights(l, 4)));
      // output zero point of layer l is l % 5 − 2 (chain_model)
      CHECK(L.output_offset == l % 5 - 2);
      if (isa == cortex_m::isa::dsp) CHECK(L.bias == std::vector<std::int32_t>{l, l - 1, l - 2, l - 3});
    }
  }
}

TEST_CASE("duplicate tensor names in a float model: calibration and quantization use each layer's own bias") {
  // x[1,4] -> FC(w0 [2,4], b [2]) -> h[1,2] -> FC(w1 [3,2], b [3]) -> y[1,3]: both biases are
  // named "b" and all activations "t". Bound by name, layer 1 would get layer 0's 2-value bias
  // and read past it (the heap overflow of issue 12).
  model_builder m;
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const std::vector<float> w0{0.5f, -1, 0.25f, 2, 1, 1, -1, 0.5f};
  const std::vector<float> b0{0.1f, -0.2f};
  const std::vector<float> w1{1, -2, 0.5f, 0.25f, 1.5f, -1};
  const std::vector<float> b1{-0.4f, 0.6f, 3.0f};
  const auto x = m.tensor("t", fbs::TensorType::FLOAT32, {1, 4});
  const auto wa = m.tensor("w0", fbs::TensorType::FLOAT32, {2, 4}, {}, {}, 0, f32_bytes(w0));
  const auto ba = m.tensor("b", fbs::TensorType::FLOAT32, {2}, {}, {}, 0, f32_bytes(b0));
  const auto h = m.tensor("t", fbs::TensorType::FLOAT32, {1, 2});
  const auto wb = m.tensor("w1", fbs::TensorType::FLOAT32, {3, 2}, {}, {}, 0, f32_bytes(w1));
  const auto bb = m.tensor("b", fbs::TensorType::FLOAT32, {3}, {}, {}, 0, f32_bytes(b1));
  const auto y = m.tensor("t", fbs::TensorType::FLOAT32, {1, 3});
  m.op(cfc, {x, wa, ba}, {h});
  m.op(cfc, {h, wb, bb}, {y});
  const auto r = import::import_tflite(m.finish({x}, {y}), "dupf.tflite", {.strict = true}).value();
  check_well_formed(r.graph);
  REQUIRE(r.graph.operators.size() == 2);
  CHECK(graph::decode_f32(r.graph.find(r.graph.operators[1].inputs[2])->data, 3) == b1);

  // Calibration rows, and the float reference of the model (oracle for the observed ranges).
  std::vector<float> calib;
  calib.reserve(64);
  for (int i = 0; i < 64; ++i) calib.push_back(static_cast<float>((i * 37) % 23) / 11.0f - 1.0f);
  std::vector<graph::mlp_layer> layers(2);
  layers[0] = {4, 2, w0, b0, graph::activation::none};
  layers[1] = {2, 3, w1, b1, graph::activation::none};
  const auto ref = graph::run_float_mlp(layers, calib, 16);
  const auto ref_range = graph::range_of(ref);

  passes::options o;
  o.sch = passes::scheme::int8;
  o.calibration = calib;
  const auto low = passes::lower(tosa::parse("TOSA-1.0+INT").value, r.graph, o);
  REQUIRE_MESSAGE(bool(low), (low ? std::string() : low.error().message()));
  // The output's qparams come from layer 1's own range (affine int8: scale = (max⁺ − min⁻)/255).
  const auto* out = low->graph.find(low->graph.outputs.at(0));
  REQUIRE(out);
  REQUIRE(out->quant);
  const float expect = (std::max(ref_range.max, 0.0f) - std::min(ref_range.min, 0.0f)) / 255.0f;
  CHECK(out->quant->scale.at(0) == doctest::Approx(expect).epsilon(1e-6));
}

TEST_CASE("helper tensors: two FC heads on one rank-3 input, and a model tensor named x/flatten") {
  SUBCASE("two heads") {
    model_builder m;
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 2, 4}, {0.1f}, {0});
    const auto w0 = m.tensor("w0", fbs::TensorType::INT8, {3, 4}, {0.02f}, {0}, 0, codes(0, 12));
    const auto w1 = m.tensor("w1", fbs::TensorType::INT8, {3, 4}, {0.03f}, {0}, 0, codes(1, 12));
    const auto y0 = m.tensor("y0", fbs::TensorType::INT8, {2, 3}, {0.2f}, {1});
    const auto y1 = m.tensor("y1", fbs::TensorType::INT8, {2, 3}, {0.3f}, {-1});
    m.op(cfc, {x, w0}, {y0});
    m.op(cfc, {x, w1}, {y1});
    const auto r = import::import_tflite(m.finish({x}, {y0, y1}), "heads.tflite", {.strict = true}).value();
    const auto& g = r.graph;
    check_well_formed(g);
    REQUIRE(g.operators.size() == 4);  // reshape, linear, reshape, linear
    CHECK(g.operators[0].outputs[0] == "x/flatten");
    CHECK(g.operators[1].inputs[0] == "x/flatten");
    CHECK(g.operators[2].outputs[0] == "x/flatten_1");
    CHECK(g.operators[3].inputs[0] == "x/flatten_1");
    CHECK(g.find("x/flatten_1")->quant->scale == std::vector<float>{0.1f});
    CHECK(g.find("x/flatten_1")->shape == std::vector<std::int32_t>{2, 4});
    CHECK(g.inputs == std::vector<std::string>{"x"});
    CHECK(g.outputs == std::vector<std::string>{"y0", "y1"});
    const auto low = passes::lower(tosa::parse("TOSA-1.0+INT").value, g);
    CHECK_MESSAGE(bool(low), (low ? std::string() : low.error().message()));
  }
  SUBCASE("a tensor literally named x/flatten") {
    model_builder m;
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 2, 4}, {0.1f}, {0});
    const auto w0 = m.tensor("w0", fbs::TensorType::INT8, {3, 4}, {0.02f}, {0}, 0, codes(0, 12));
    const auto y = m.tensor("x/flatten", fbs::TensorType::INT8, {2, 3}, {0.2f}, {1});
    m.op(cfc, {x, w0}, {y});
    const auto r = import::import_tflite(m.finish({x}, {y}), "clash.tflite", {.strict = true}).value();
    const auto& g = r.graph;
    check_well_formed(g);
    REQUIRE(g.operators.size() == 2);
    CHECK(g.operators[0].outputs[0] == "x/flatten_1");  // the helper, renamed before any op used it
    CHECK(g.operators[1].inputs[0] == "x/flatten_1");
    CHECK(g.operators[1].outputs[0] == "x/flatten");  // the model's tensor keeps its name
    CHECK(g.find("x/flatten")->shape == std::vector<std::int32_t>{2, 3});
    CHECK(g.outputs == std::vector<std::string>{"x/flatten"});
    const auto low = passes::lower(tosa::parse("TOSA-1.0+INT").value, g);
    CHECK_MESSAGE(bool(low), (low ? std::string() : low.error().message()));
  }
}

TEST_CASE("int64 zero points at an address 4 mod 8 are read exactly (no misaligned load)") {
  model_builder m;
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 4}, {0.1f}, {-7});
  const auto w = m.tensor("w", fbs::TensorType::INT8, {2, 4}, {0.02f}, {0}, 0, codes(0, 8));
  const auto y = m.tensor("y", fbs::TensorType::INT8, {1, 2}, {0.2f}, {5});
  m.op(cfc, {x, w}, {y});
  const auto bytes = m.finish({x}, {y});
  // The builder aligns [long] vectors to 8 relative to the buffer; placing the image at 4 mod 8
  // puts every int64 element at an absolute address 4 mod 8 (the Verifier checks offsets only).
  std::vector<std::uint64_t> storage(bytes.size() / 8 + 2);
  auto* base = reinterpret_cast<std::uint8_t*>(storage.data()) + 4;
  std::memcpy(base, bytes.data(), bytes.size());
  const std::span<const std::uint8_t> shifted(base, bytes.size());
  const auto info = import::inspect_tflite(shifted, "shifted.tflite").value();
  CHECK(info.tensors[0].zero_point == std::vector<std::int64_t>{-7});
  CHECK(info.tensors[2].zero_point == std::vector<std::int64_t>{5});
  const auto r = import::import_tflite(shifted, "shifted.tflite").value();
  CHECK(r.graph.find("x")->quant->zero_point == std::vector<std::int32_t>{-7});
}

TEST_CASE("bad quantization parameters are refused naming file, operator, tensor and rule") {
  const float inf = std::numeric_limits<float>::infinity();
  for (float bad : {inf, std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.5f}) {
    CAPTURE(bad);
    model_builder m;
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0});
    const auto w = m.tensor("w", fbs::TensorType::INT8, {2, 4}, {0.02f}, {0}, 0, codes(0, 8));
    const auto y = m.tensor("y_out", fbs::TensorType::INT8, {1, 2}, {bad}, {0});
    m.op(cfc, {x, w}, {y});
    const auto msg = import_error_of(m.finish({x}, {y}));
    CHECK(msg.find("m.tflite: tflite importer: model op #0 FULLY_CONNECTED, tensor 'y_out': quantization scale ") == 0);
    CHECK(msg.find("(tensor #2)") != std::string::npos);
    CHECK(msg.find("a scale must be finite and > 0") != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
  SUBCASE("zero point outside the tensor's type") {
    model_builder m;
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    const auto x = m.tensor("x_in", fbs::TensorType::INT8, {1, 4}, {0.1f}, {1000});
    const auto w = m.tensor("w", fbs::TensorType::INT8, {2, 4}, {0.02f}, {0}, 0, codes(0, 8));
    const auto y = m.tensor("y", fbs::TensorType::INT8, {1, 2}, {0.2f}, {0});
    m.op(cfc, {x, w}, {y});
    CHECK(import_error_of(m.finish({x}, {y})) ==
          "m.tflite: tflite importer: model op #0 FULLY_CONNECTED, tensor 'x_in': zero point 1000 (tensor #0) is outside "
          "the range of its type INT8");
  }
}

TEST_CASE("cycles and tensors written twice are refused by name") {
  SUBCASE("cycle") {
    model_builder m;
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    const auto a = m.tensor("a", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0});
    const auto w = m.tensor("w", fbs::TensorType::INT8, {4, 4}, {0.02f}, {0}, 0, chain_weights(0, 4));
    const auto b = m.tensor("b", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0});
    m.op(cfc, {b, w}, {a});
    m.op(cfc, {a, w}, {b});
    const auto msg = import_error_of(m.finish({}, {b}));
    CHECK(msg == "m.tflite: tflite importer: model op #0 FULLY_CONNECTED, tensor 'b': reads tensor #2, written by "
                 "operator #1 later (operators must be in topological order: a cycle?)");
  }
  SUBCASE("written twice (duplicate names do not matter, indices do)") {
    model_builder m;
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0});
    const auto w = m.tensor("w", fbs::TensorType::INT8, {4, 4}, {0.02f}, {0}, 0, chain_weights(0, 4));
    const auto y = m.tensor("y", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0});
    m.op(cfc, {x, w}, {y});
    m.op(cfc, {x, w}, {y});
    const auto msg = import_error_of(m.finish({x}, {y}));
    CHECK(msg == "m.tflite: tflite importer: model op #1 FULLY_CONNECTED, tensor 'y': tensor #2 is also written by "
                 "operator #0 (each tensor must be written by one operator)");
  }
  SUBCASE("a graph input overwritten") {
    model_builder m;
    const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
    const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0});
    const auto w = m.tensor("w", fbs::TensorType::INT8, {4, 4}, {0.02f}, {0}, 0, chain_weights(0, 4));
    const auto y = m.tensor("y", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0});
    m.op(cfc, {y, w}, {x});
    const auto msg = import_error_of(m.finish({x, y}, {x}));
    CHECK(msg == "m.tflite: tflite importer: model op #0 FULLY_CONNECTED, tensor 'x': writes tensor #0, a subgraph input");
  }
}

TEST_CASE("pass errors name the model's own operator index, not the position in the internal graph") {
  // op #0: a CUSTOM op on its own tensors (left out), ops #1..#3: an int8 FC chain whose last
  // layer has a requantization scale s_in·s_w/s_out = 1e30 that no multiplier/shift encodes.
  model_builder m;
  const auto ccu = m.code(fbs::BuiltinOperator::CUSTOM, "mystery");
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const auto u0 = m.tensor("u0", fbs::TensorType::FLOAT32, {1, 2});
  const auto u1 = m.tensor("u1", fbs::TensorType::FLOAT32, {1, 2});
  m.op(ccu, {u0}, {u1});
  auto cur = m.tensor("x", fbs::TensorType::INT8, {1, 4}, {1.0f}, {0});
  const auto x = cur;
  for (int l = 0; l < 3; ++l) {
    const auto w = m.tensor(("w" + std::to_string(l)).c_str(), fbs::TensorType::INT8, {4, 4}, {1.0f}, {0}, 0,
                            chain_weights(l, 4));
    const auto y = m.tensor(("y" + std::to_string(l)).c_str(), fbs::TensorType::INT8, {1, 4}, {l == 2 ? 1e-30f : 1.0f}, {0});
    m.op(cfc, {cur, w}, {y});
    cur = y;
  }
  const auto r = import::import_tflite(m.finish({u0, x}, {u1, cur}), "idx.tflite").value();
  REQUIRE(r.left_out.size() == 1);
  const auto p = passes::lower_cortex_m(r.graph, {cortex_m::isa::dsp});
  REQUIRE_FALSE(p);
  CHECK(p.error().where().op_index == 3);
  CHECK(p.error().where().op == "linear");
  CHECK(p.error().line().find("model op #3 linear") != std::string::npos);
  const auto t = passes::lower(tosa::parse("TOSA-1.0+INT").value, r.graph);
  REQUIRE_FALSE(t);
  CHECK(t.error().where().op_index == 3);
  CHECK(t.error().line().find("model op #3 linear") != std::string::npos);
}

TEST_CASE("a 10,000-layer model imports and lowers (linear-time name lookups)") {
  constexpr std::int32_t layers = 10'000;
  const auto bytes = chain_model(layers, 4);
  const auto r = import::import_tflite(bytes, "deep.tflite", {.strict = true}).value();
  REQUIRE(r.graph.operators.size() == static_cast<std::size_t>(layers));
  const auto p = passes::lower_cortex_m(r.graph, {cortex_m::isa::dsp});
  REQUIRE_MESSAGE(bool(p), (p ? std::string() : p.error().message()));
  REQUIRE(p->layers.size() == static_cast<std::size_t>(layers));
  for (std::int32_t l : {0, 4321, 7777, layers - 1}) {
    CAPTURE(l);
    const auto& L = p->layers[static_cast<std::size_t>(l)];
    CHECK(L.weights == as_i8(chain_weights(l, 4)));
    CHECK(L.bias == std::vector<std::int32_t>{l, l - 1, l - 2, l - 3});
    CHECK(L.output_offset == l % 5 - 2);
  }
  const auto t = passes::lower(tosa::parse("TOSA-1.0+INT").value, r.graph);
  REQUIRE_MESSAGE(bool(t), (t ? std::string() : t.error().message()));
  const auto& g = t->graph;
  CHECK(g.operators.size() == 4u * layers);  // RESHAPE, CONV2D, RESHAPE, RESCALE per layer
  std::size_t convs = 0;
  for (const auto& o : g.operators)
    if (o.tosa_op() == tosa::op::conv2d) {
      if (convs == 7777) {
        CHECK(o.source_index == 7777);
        const auto* w = g.find(o.inputs.at(1));
        REQUIRE(w);
        CHECK(w->data == chain_weights(7777, 4));
        CHECK(w->shape == std::vector<std::int32_t>{4, 1, 1, 4});
      }
      ++convs;
    }
  CHECK(convs == static_cast<std::size_t>(layers));
}

TEST_CASE("a FULLY_CONNECTED whose input is a constant is left out with its reason (no graph without inputs)") {
  model_builder m;
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const auto x = m.tensor("x", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0}, 0, std::vector<std::uint8_t>(4, 1));
  const auto w = m.tensor("w", fbs::TensorType::INT8, {4, 4}, {0.1f}, {0}, 0, chain_weights(0, 4));
  const auto y = m.tensor("y", fbs::TensorType::INT8, {1, 4}, {0.1f}, {0});
  m.op(cfc, {x, w}, {y});
  const auto r = import::import_tflite(m.finish({}, {y}), "c.tflite").value();
  CHECK(r.graph.operators.empty());
  REQUIRE(r.left_out.size() == 1);
  CHECK(import::to_string(r.left_out[0]) ==
        "#0 FULLY_CONNECTED (input is a constant tensor; constant folding is not supported)");
}

TEST_CASE("a float overflow during calibration names the model's operator and tensor") {
  // op #0 CUSTOM (left out); op #1 FC x[1,2] -> h (weights 1e30); op #2 FC h -> y (weights 1e30):
  // on calibration rows of ones, h = 2e30 is finite and y = 4e60 overflows FP32.
  model_builder m;
  const auto ccu = m.code(fbs::BuiltinOperator::CUSTOM, "other");
  const auto cfc = m.code(fbs::BuiltinOperator::FULLY_CONNECTED);
  const auto u0 = m.tensor("u0", fbs::TensorType::FLOAT32, {1, 2});
  const auto u1 = m.tensor("u1", fbs::TensorType::FLOAT32, {1, 2});
  m.op(ccu, {u0}, {u1});
  const auto x = m.tensor("x", fbs::TensorType::FLOAT32, {1, 2});
  const auto w0 = m.tensor("w0", fbs::TensorType::FLOAT32, {1, 2}, {}, {}, 0, f32_bytes({1e30f, 1e30f}));
  const auto h = m.tensor("h", fbs::TensorType::FLOAT32, {1, 1});
  const auto w1 = m.tensor("w1", fbs::TensorType::FLOAT32, {1, 1}, {}, {}, 0, f32_bytes({2e30f}));
  const auto y = m.tensor("y", fbs::TensorType::FLOAT32, {1, 1});
  m.op(cfc, {x, w0}, {h});
  m.op(cfc, {h, w1}, {y});
  const auto r = import::import_tflite(m.finish({u0, x}, {u1, y}), "ovf.tflite").value();
  passes::options o;
  o.calibration = std::vector<float>(8, 1.0f);
  const auto low = passes::lower(tosa::parse("TOSA-1.0+INT").value, r.graph, o);
  REQUIRE_FALSE(low);
  CHECK(low.error().line() ==
        "QuantizeFloatGraph: model op #2 linear, tensor 'y': calibration: output is +Inf on calibration row 0, "
        "channel 0 (the float model overflows FP32)");
}
