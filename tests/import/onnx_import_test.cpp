// The .onnx importer (armlower::onnx) on the seed models of tests/fuzz/onnx_seeds (onnx.helper and
// onnxruntime quantize_static, see its README): the framework graph it builds (ops, shapes,
// dtypes, qparams as stored in the model, boundary Q/DQ dropped, Flatten absorbed, bias folded)
// and its one-line errors on bytes that are not a model. Numerics against onnxruntime and the TOSA
// reference model: tests/tool/onnx_check.py.
#include <armlower/import/onnx.hpp>
#include <armlower/io/file.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace armlower;
namespace fs = std::filesystem;
using graph::framework_op;

const fs::path seeds = fs::path(ARMLOWER_ONNX_SEEDS);

std::vector<framework_op> ops(const graph::graph& g) {
  std::vector<framework_op> r;
  for (const auto& o : g.operators) r.push_back(std::get<framework_op>(o.code));
  return r;
}

}  // namespace

TEST_CASE("float Gemm + Relu: one linear [3,4] with bias, then relu; batch N imported as 1") {
  const auto ri = import::import_onnx_file(seeds / "gemm_relu.onnx");
  REQUIRE(ri.has_value());
  const auto& r = *ri;
  CHECK(r.left_out.empty());
  CHECK(r.imported == std::vector<std::size_t>{0, 1});
  REQUIRE(ops(r.graph) == std::vector{framework_op::linear, framework_op::relu});
  const auto& lin = r.graph.operators[0];
  REQUIRE(lin.inputs.size() == 3);
  CHECK(r.graph.find(lin.inputs[1])->shape == std::vector<std::int32_t>{3, 4});
  CHECK(r.graph.find(lin.inputs[2])->shape == std::vector<std::int32_t>{3});
  REQUIRE(r.graph.inputs.size() == 1);
  CHECK(r.graph.find(r.graph.inputs[0])->shape == std::vector<std::int32_t>{1, 4});
  CHECK(r.graph.outputs == std::vector<std::string>{"y"});
}

TEST_CASE("float Flatten + MatMul + Add + Clip(0,6): Flatten absorbed, Add folded into the bias, relu6") {
  const auto ri = import::import_onnx_file(seeds / "matmul_add_clip.onnx");
  REQUIRE(ri.has_value());
  const auto& r = *ri;
  CHECK(r.left_out.empty());
  REQUIRE(ops(r.graph) == std::vector{framework_op::linear, framework_op::relu6});
  CHECK(r.graph.operators[0].inputs.size() == 3);  // x, W, folded bias
  CHECK(r.graph.find(r.graph.operators[0].inputs[1])->shape == std::vector<std::int32_t>{3, 4});  // [K,N] -> [N,K]
  CHECK(r.graph.find(r.graph.inputs.at(0))->shape == std::vector<std::int32_t>{1, 4});           // [N,2,2] flattened
}

TEST_CASE("QDQ int8 Gemm: int8 graph input and output with the model's qparams, int8 weights, int32 bias") {
  const auto ri = import::import_onnx_file(seeds / "gemm_relu_qdq_s8.onnx");
  REQUIRE(ri.has_value());
  const auto& r = *ri;
  CHECK(r.left_out.empty());
  const auto& g = r.graph;
  const auto* x = g.find(g.inputs.at(0));
  const auto* y = g.find(g.outputs.at(0));
  REQUIRE((x && y));
  CHECK(x->type == dtype::id::i8);
  CHECK(y->type == dtype::id::i8);
  REQUIRE((x->quant && y->quant));
  CHECK(x->quant->scale.size() == 1);
  CHECK(x->quant->scale[0] > 0.0f);
  int dq_consts = 0;
  for (const auto& t : g.tensors)
    if (t.is_constant && t.quant) {
      ++dq_consts;
      CHECK((t.type == dtype::id::i8 || t.type == dtype::id::i32));
    }
  CHECK(dq_consts == 2);  // weights and bias
}

TEST_CASE("QDQ int16 activations: INT16 graph I/O with zero point 0") {
  const auto ri = import::import_onnx_file(seeds / "matmul_add_clip_qdq_a16w8.onnx");
  REQUIRE(ri.has_value());
  const auto& r = *ri;
  CHECK(r.left_out.empty());
  const auto* x = r.graph.find(r.graph.inputs.at(0));
  REQUIRE((x && x->quant));
  CHECK(x->type == dtype::id::i16);
  CHECK(x->quant->zero_point == std::vector<std::int32_t>{0});
  // the requantized Add stays: two linears (MatMul, then the Add as an identity linear)
  int linears = 0;
  for (const auto& o : r.graph.operators) linears += std::get<framework_op>(o.code) == framework_op::linear;
  CHECK(linears == 2);
}

TEST_CASE("inspect_onnx lists nodes, initializers and symbolic dims") {
  const auto b = io::read_bytes(seeds / "gemm_relu.onnx");
  REQUIRE(b.has_value());
  const auto mi = import::inspect_onnx(*b, "gemm_relu.onnx", seeds);
  REQUIRE(mi.has_value());
  const auto& m = *mi;
  CHECK(m.ir_version == 10);
  REQUIRE(m.nodes.size() == 2);
  CHECK(import::onnx_node_label(m.nodes[0]) == "Gemm 'fc'");
  CHECK(m.nodes[0].attributes == "transB=1");
  REQUIRE(m.inputs.size() == 1);
  CHECK(m.inputs[0].dim_params.at(0) == "N");
  CHECK(m.initializers.size() == 2);
}

TEST_CASE("bytes that are not a model: one-line malformed error naming the source") {
  const std::vector<std::uint8_t> junk{0x08, 0xFF, 0xFF, 0xFF};
  for (const auto& b : {std::vector<std::uint8_t>{}, junk}) {
    const auto r = import::import_onnx(b, "junk.onnx", seeds);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == errc::malformed);
    CHECK(r.error().where().file == "junk.onnx");
    CHECK(r.error().where().stage == "onnx importer");
    const std::string m = r.error().line();
    CHECK(m.rfind("junk.onnx: ", 0) == 0);
    CHECK(m.find('\n') == std::string::npos);
  }
  auto b = io::read_bytes(seeds / "gemm_relu.onnx");
  REQUIRE(b.has_value());
  b->resize(b->size() / 2);
  const auto half = import::import_onnx(*b, "half.onnx", seeds);
  REQUIRE_FALSE(half.has_value());
  CHECK(half.error().code() == errc::malformed);
}
