// Reader on files other writers produce: over-long constant and CLAMP byte vectors (read like
// tosa-tools' serialization_lib: first elements, a warning beyond the 8-byte padding), the data
// flow rules (SSA, topological order; errors name the file's operator index and the tensor),
// and the software-version field (written by the writer, optional for the reader).
// The same cases, written by tosa_serializer and run in the reference model, are in
// tests/interop/interop_check.py.
#include "sample_graphs.hpp"

#include <armlower/serialize.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace armlower;
namespace fb = armlower::serialize::fbs11;

namespace {

/// A hand-made one-block TOSA 1.0 file: INT8 [2] tensors, ops ADD (or CONST / CLAMP).
struct file_spec {
  struct tensor {
    std::string name;
    std::vector<std::uint8_t> data;  // empty: not a constant
    fb::DType type = fb::DType::INT8;
  };
  struct op {
    fb::Op code = fb::Op::ADD;
    std::vector<std::string> in, out;
    std::vector<std::uint8_t> lo, hi;  // CLAMP bounds
  };
  std::vector<tensor> tensors;
  std::vector<op> ops;
  std::vector<std::string> inputs, outputs;
  bool software_version = false;
};

std::vector<std::uint8_t> build(const file_spec& s) {
  flatbuffers::FlatBufferBuilder b;
  const std::vector<std::int32_t> shape{2};
  std::vector<flatbuffers::Offset<fb::TosaTensor>> ts;
  for (const auto& t : s.tensors)
    ts.push_back(fb::CreateTosaTensorDirect(b, t.name.c_str(), &shape, t.type, t.data.empty() ? nullptr : &t.data));
  auto names = [&](const std::vector<std::string>& v) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> o;
    o.reserve(v.size());
    for (const auto& n : v) o.push_back(b.CreateString(n));
    return o;
  };
  std::vector<flatbuffers::Offset<fb::TosaOperator>> ops;
  for (const auto& o : s.ops) {
    const auto in = names(o.in), out = names(o.out);
    flatbuffers::Offset<void> attr;
    auto type = fb::Attribute::AddAttribute;
    if (o.code == fb::Op::CONST) {
      attr = fb::CreateConstAttribute(b).Union();
      type = fb::Attribute::ConstAttribute;
    } else if (o.code == fb::Op::CLAMP) {
      attr = fb::CreateClampAttributeDirect(b, &o.lo, &o.hi, fb::NanPropagationMode::PROPAGATE).Union();
      type = fb::Attribute::ClampAttribute;
    } else {
      attr = fb::CreateAddAttribute(b).Union();
    }
    ops.push_back(fb::CreateTosaOperatorDirect(b, o.code, type, attr, &in, &out));
  }
  const auto gin = names(s.inputs), gout = names(s.outputs);
  const auto block = fb::CreateTosaBasicBlockDirect(b, "main", &ops, &ts, &gin, &gout);
  std::vector<flatbuffers::Offset<fb::TosaBasicBlock>> blocks{block};
  std::vector<flatbuffers::Offset<fb::TosaRegion>> regions{fb::CreateTosaRegionDirect(b, "main", &blocks)};
  b.ForceDefaults(true);
  const auto v = fb::CreateVersion(b, 1, 0, 0, false);
  b.ForceDefaults(false);
  const auto sw = s.software_version ? fb::CreateSoftwareVersionDirect(b, 2025, 10, 0, "") : 0;
  fb::FinishTosaGraphBuffer(b, fb::CreateTosaGraphDirect(b, v, &regions, sw));
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::string read_error(const file_spec& s) {
  const auto r = serialize::read(build(s));
  return r.has_value() ? std::string("<no error>") : r.error().line();
}

/// y = x + c, with c's data as given.
file_spec add_const(std::vector<std::uint8_t> c) {
  file_spec s;
  s.tensors = {{"x", {}}, {"c", std::move(c)}, {"y", {}}};
  s.ops = {{fb::Op::CONST, {}, {"c"}, {}, {}}, {fb::Op::ADD, {"x", "c"}, {"y"}, {}, {}}};
  s.inputs = {"x"};
  s.outputs = {"y"};
  return s;
}

/// y = CLAMP(x) with raw bound vectors.
file_spec clamp(std::vector<std::uint8_t> lo, std::vector<std::uint8_t> hi, fb::DType t = fb::DType::INT8) {
  file_spec s;
  s.tensors = {{"x", {}, t}, {"y", {}, t}};
  s.ops = {{fb::Op::CLAMP, {"x"}, {"y"}, std::move(lo), std::move(hi)}};
  s.inputs = {"x"};
  s.outputs = {"y"};
  return s;
}

/// Only ADDs over INT8 [2] tensors named in the ops.
file_spec adds(std::vector<std::string> inputs, std::vector<file_spec::op> ops, std::vector<std::string> outputs) {
  file_spec s;
  std::vector<std::string> seen;
  auto add = [&](const std::string& n) {
    for (const auto& m : seen)
      if (m == n) return;
    seen.push_back(n);
    s.tensors.push_back({n, {}});
  };
  for (const auto& n : inputs) add(n);
  for (const auto& o : ops) {
    for (const auto& n : o.in) add(n);
    for (const auto& n : o.out) add(n);
  }
  for (const auto& n : outputs) add(n);
  s.inputs = std::move(inputs);
  s.ops = std::move(ops);
  s.outputs = std::move(outputs);
  return s;
}

file_spec::op add(std::string a, std::string b, std::string out) { return {fb::Op::ADD, {a, b}, {out}, {}, {}}; }

}  // namespace

TEST_CASE("constant data: padding read silently, longer vectors read with a warning, shorter refused") {
  {  // padded to 8 bytes (the reference C++ serializer's ForceAlignTensorData)
    const auto r = serialize::read(build(add_const({1, 2, 0, 0, 0, 0, 0, 0})));
    REQUIRE_MESSAGE(r.has_value(), r.error().line());
    CHECK(r->graph.find("c")->data == std::vector<std::uint8_t>{1, 2});
    CHECK(r->warnings.empty());
  }
  {  // nonzero bytes inside the padding: ignored like the reference model does
    const auto r = serialize::read(build(add_const({1, 2, 9, 9, 9, 9, 9, 9})));
    REQUIRE(r.has_value());
    CHECK(r->graph.find("c")->data == std::vector<std::uint8_t>{1, 2});
    CHECK(r->warnings.empty());
  }
  {  // ExecuTorch's per-channel weight zero point form: more than the padding
    std::vector<std::uint8_t> sixteen(16, 0);
    sixteen[0] = 5;
    sixteen[1] = 6;
    sixteen[2] = 7;
    const auto r = serialize::read(build(add_const(sixteen)));
    REQUIRE_MESSAGE(r.has_value(), r.error().line());
    CHECK(r->graph.find("c")->data == std::vector<std::uint8_t>{5, 6});
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0] ==
          "reader: tensor 'c' INT8 [2]: constant data has 16 bytes, 2 needed; reading the first 2 and ignoring the rest, "
          "as the TOSA reference model does");
    // The graph read back writes in armlower's form (exact size, padded to 8).
    const auto again = serialize::read(serialize::write(r->graph, r->version).value());
    REQUIRE(again.has_value());
    CHECK(again->warnings.empty());
    CHECK(again->graph.find("c")->data == std::vector<std::uint8_t>{5, 6});
  }
  CHECK(read_error(add_const({1})) == "reader: tensor 'c' INT8 [2]: constant data has 1 bytes, 2 needed");
}

TEST_CASE("CLAMP bounds: any padding read (first value), short bounds refused") {
  {  // tosa-tools' test generator pads each bound to 8 bytes
    const auto r = serialize::read(build(clamp({0xFD, 0, 0, 0, 0, 0, 0, 0}, {5, 0, 0, 0, 0, 0, 0, 0})));
    REQUIRE_MESSAGE(r.has_value(), r.error().line());
    const auto& c = std::get<graph::clamp_attr>(r->graph.operators.at(0).attr);
    CHECK(c.min_val == -3);
    CHECK(c.max_val == 5);
    CHECK(r->warnings.empty());
  }
  {  // any length >= the element (here INT16, 3 and 16 bytes), first value
    std::vector<std::uint8_t> hi(16, 0x55);
    hi[0] = 0xF4;
    hi[1] = 0x01;  // 500
    const auto r = serialize::read(build(clamp({0xD4, 0xFE, 0}, hi, fb::DType::INT16)));  // -300
    REQUIRE_MESSAGE(r.has_value(), r.error().line());
    const auto& c = std::get<graph::clamp_attr>(r->graph.operators.at(0).attr);
    CHECK(c.min_val == -300);
    CHECK(c.max_val == 500);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0] ==
          "reader: model op #0 CLAMP: max_val of input 'x' INT16 [2] has 16 bytes, 2 needed; reading the first 2 and "
          "ignoring the rest, as the TOSA reference model does");
  }
  {  // FP32 padded to 8
    const auto r = serialize::read(build(clamp({0, 0, 0xC0, 0xBF, 0, 0, 0, 0}, {0, 0, 0x20, 0x40, 0, 0, 0, 0},
                                               fb::DType::FP32)));
    REQUIRE_MESSAGE(r.has_value(), r.error().line());
    const auto& c = std::get<graph::clamp_attr>(r->graph.operators.at(0).attr);
    CHECK(c.min_val == -1.5);
    CHECK(c.max_val == 2.5);
  }
  CHECK(read_error(clamp({0}, {0, 1}, fb::DType::INT16)) ==
        "reader: model op #0 CLAMP: min_val of input 'x' INT16 [2] has 1 bytes, 2 needed");
  CHECK(read_error(clamp({0, 0, 0, 0}, {0, 0, 0}, fb::DType::FP32)) ==
        "reader: model op #0 CLAMP: max_val of input 'x' FP32 [2] has 3 bytes, 4 needed");
  CHECK(read_error(clamp({}, {1})) == "reader: model op #0 CLAMP: min_val of input 'x' INT8 [2] has 0 bytes, 1 needed");
}

TEST_CASE("data flow: non-SSA and out-of-order graphs are refused by op index and tensor") {
  CHECK(read_error(adds({"x"}, {add("x", "x", "y"), add("y", "x", "y")}, {"y"})) ==
        "reader: model op #1 ADD, tensor 'y': output 0 is already produced by operator 0 (ADD); each tensor is assigned once");
  CHECK(read_error(adds({"x"}, {add("x", "x", "x")}, {"x"})) ==
        "reader: model op #0 ADD, tensor 'x': output 0 is graph input 0; a graph input is never overwritten (each tensor is "
        "assigned once)");
  CHECK(read_error(adds({"x"}, {add("y", "x", "z"), add("x", "x", "y")}, {"z"})) ==
        "reader: model op #0 ADD, tensor 'y': input 0 is produced only by the later operator 1 (ADD); operators must be in "
        "topological order");
  CHECK(read_error(adds({"x"}, {add("z", "x", "y"), add("y", "x", "z")}, {"z"})) ==  // a cycle
        "reader: model op #0 ADD, tensor 'z': input 0 is produced only by the later operator 1 (ADD); operators must be in "
        "topological order");
  CHECK(read_error(adds({"x"}, {add("x", "y", "y")}, {"y"})) == "reader: model op #0 ADD, tensor 'y': input 1 is its own output (a cycle)");
  CHECK(read_error(adds({"x"}, {add("x", "w", "y")}, {"y"})) ==
        "reader: model op #0 ADD, tensor 'w': input 1 is never produced (not a graph input, a constant or an operator output)");
  CHECK(read_error(adds({"x"}, {add("x", "x", "y")}, {"y", "z"})) ==
        "reader: graph output 1 'z' is never produced (not a graph input, a constant or an operator output)");
  {  // a constant produced twice (CONST counted as a producer); the op index is the file's
    auto s = add_const({1, 2});
    s.ops.insert(s.ops.begin() + 1, file_spec::op{fb::Op::CONST, {}, {"c"}, {}, {}});
    CHECK(read_error(s) ==
          "reader: model op #1 CONST, tensor 'c': output 0 is already produced by operator 0 (CONST); each tensor is assigned once");
  }
}

TEST_CASE("data flow: what the reference model runs is read") {
  {  // graph input listed twice: the value given last is bound (reference model and interpreter)
    const auto r = serialize::read(build(adds({"x", "x"}, {add("x", "x", "y")}, {"y"})));
    REQUIRE_MESSAGE(r.has_value(), r.error().line());
    CHECK(r->graph.inputs == std::vector<std::string>{"x", "x"});
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0] ==
          "reader: graph input 'x' is listed twice (positions 0 and 1); the value given last is used, as in the TOSA "
          "reference model");
  }
  {  // graph output listed twice, a graph input that is also an output, an unused result
    const auto r = serialize::read(build(adds({"x"}, {add("x", "x", "y"), add("x", "x", "z")}, {"y", "y", "x"})));
    REQUIRE_MESSAGE(r.has_value(), r.error().line());
    CHECK(r->graph.outputs == std::vector<std::string>{"y", "y", "x"});
    CHECK(r->warnings.empty());
  }
  {  // operator_index maps graph operators to the file's operator numbering (CONST counted)
    const auto r = serialize::read(build(add_const({1, 2})));
    REQUIRE(r.has_value());
    CHECK(r->operator_index == std::vector<std::size_t>{1});
  }
}

TEST_CASE("software_version: written as tosa-tools 2026.8.0's serializer does; optional when reading") {
  for (const auto f : {serialize::format::tosa_1_0, serialize::format::tosa_1_1}) {
    const auto bytes = serialize::write(sample::int8_linear(), f).value();
    const auto* root = fb::GetTosaGraph(bytes.data());
    const auto* sv = root->software_version();
    REQUIRE(sv != nullptr);
    CHECK(sv->_major() == 2026);
    CHECK(sv->_minor() == 8);
    CHECK(sv->_micro() == 0);
    REQUIRE(sv->_modifier() != nullptr);
    CHECK(sv->_modifier()->str().empty());
  }
  auto s = add_const({1, 2});
  CHECK(read_error(s) == "<no error>");  // without the field
  s.software_version = true;             // with another release's value
  CHECK(read_error(s) == "<no error>");
}
