// Reader on composite block-scaled tensors (TOSA 1.1 spec head, tosa-tools 2026.8.0 schema):
// the legal form is split into data + `<name>_scale` and its CASTs rewritten; every malformed or
// unsupported form is refused naming the tensor and its type — never read as a plain tensor.
// Files are hand-made with the generated FBS-1.1 builder API (the tosa_serializer-written ones
// are in check_blockscaled.py).
#include <armlower/serialize.hpp>

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

using namespace armlower;
namespace fb = armlower::serialize::fbs11;

namespace {

/// Knobs of `x FP32 [1, last] → CAST → c (composite) → CAST → y FP32`.
struct spec {
  int minor = 1;
  bool draft = true;
  std::int32_t last = 32;
  fb::DType value = fb::DType::FP8E4M3;
  fb::DType scale_type = fb::DType::FP8UE8M0;
  fb::BlockShape block_shape = fb::BlockShape::BLOCK_SHAPE_32;
  std::optional<std::vector<std::uint8_t>> data;         // constant c (then no first CAST)
  std::optional<std::vector<std::uint8_t>> scale_data;
  std::string extra_tensor;                               // another tensor's name
  bool c_is_input = false;
};

std::vector<std::uint8_t> build(const spec& s) {
  flatbuffers::FlatBufferBuilder b;
  const std::vector<std::int32_t> shape{1, s.last};
  std::vector<flatbuffers::Offset<fb::TosaTensor>> ts;
  ts.push_back(fb::CreateTosaTensorDirect(b, "x", &shape, fb::DType::FP32));
  ts.push_back(fb::CreateTosaTensorDirect(b, "c", &shape, s.value, s.data ? &*s.data : nullptr, false, false, nullptr, 0,
                                          0, s.scale_type, s.scale_data ? &*s.scale_data : nullptr, s.block_shape));
  ts.push_back(fb::CreateTosaTensorDirect(b, "y", &shape, fb::DType::FP32));
  if (!s.extra_tensor.empty()) ts.push_back(fb::CreateTosaTensorDirect(b, s.extra_tensor.c_str(), &shape, fb::DType::FP32));
  std::vector<flatbuffers::Offset<fb::TosaOperator>> ops;
  auto names = [&](std::initializer_list<const char*> l) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> v;
    for (const char* n : l) v.push_back(b.CreateString(n));
    return v;
  };
  if (s.data) {
    const auto none = names({}), out = names({"c"});
    ops.push_back(fb::CreateTosaOperatorDirect(b, fb::Op::CONST, fb::Attribute::ConstAttribute,
                                               fb::CreateConstAttribute(b).Union(), &none, &out));
  } else if (!s.c_is_input) {
    const auto in = names({"x"}), out = names({"c"});
    ops.push_back(fb::CreateTosaOperatorDirect(b, fb::Op::CAST, fb::Attribute::CastAttribute,
                                               fb::CreateCastAttribute(b).Union(), &in, &out));
  }
  const auto in = names({"c"}), out = names({"y"});
  ops.push_back(fb::CreateTosaOperatorDirect(b, fb::Op::CAST, fb::Attribute::CastAttribute,
                                             fb::CreateCastAttribute(b).Union(), &in, &out));
  const auto gin = names({s.c_is_input ? "c" : "x"}), gout = names({"y"});
  const auto block = fb::CreateTosaBasicBlockDirect(b, "main", &ops, &ts, &gin, &gout);
  std::vector<flatbuffers::Offset<fb::TosaBasicBlock>> blocks{block};
  std::vector<flatbuffers::Offset<fb::TosaRegion>> regions{fb::CreateTosaRegionDirect(b, "main", &blocks)};
  b.ForceDefaults(true);
  const auto v = fb::CreateVersion(b, 1, s.minor, 0, s.draft);
  b.ForceDefaults(false);
  fb::FinishTosaGraphBuffer(b, fb::CreateTosaGraphDirect(b, v, &regions));
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::string read_error(const spec& s) {
  const auto r = serialize::read(build(s));
  return r.has_value() ? std::string("<no error>") : r.error().line();
}

}  // namespace

TEST_CASE("a composite tensor becomes data + scales; its CASTs become CAST_TO/FROM_BLOCK_SCALED") {
  const auto r = serialize::read(build(spec{}));
  REQUIRE_MESSAGE(r.has_value(), r.error().line());
  const auto& g = r->graph;
  REQUIRE(g.find("c") != nullptr);
  REQUIRE(g.find("c_scale") != nullptr);
  CHECK(g.find("c")->type == dtype::id::fp8e4m3);
  CHECK(g.find("c_scale")->type == dtype::id::fp8ue8m0);
  CHECK(g.find("c_scale")->shape == std::vector<std::int32_t>{1, 1});
  REQUIRE(g.operators.size() == 2);
  CHECK(g.operators[0].tosa_op() == tosa::op::cast_to_block_scaled);
  CHECK(g.operators[0].outputs == std::vector<std::string>{"c", "c_scale"});
  CHECK(g.operators[1].tosa_op() == tosa::op::cast_from_block_scaled);
  CHECK(g.operators[1].inputs == std::vector<std::string>{"c", "c_scale"});
  REQUIRE(r->block_scaled.size() == 1);
  CHECK(r->block_scaled[0].type_name() == "BS32_FP8UE8M0_FP8E4M3");
  CHECK(r->block_scaled[0].scale == "c_scale");
}

TEST_CASE("a composite constant carries its scales; a composite graph input is data + scales") {
  spec s;
  s.value = fb::DType::FP4E2M1;
  s.data = std::vector<std::uint8_t>(16, 0x21);
  s.scale_data = std::vector<std::uint8_t>{130};
  const auto r = serialize::read(build(s));
  REQUIRE_MESSAGE(r.has_value(), r.error().line());
  CHECK(r->graph.find("c_scale")->is_constant);
  CHECK(r->graph.find("c_scale")->data == std::vector<std::uint8_t>{130});
  spec in;
  in.c_is_input = true;
  const auto ri = serialize::read(build(in));
  REQUIRE_MESSAGE(ri.has_value(), ri.error().line());
  CHECK(ri->graph.inputs == std::vector<std::string>{"c", "c_scale"});
}

TEST_CASE("a plain FP8 tensor (no scale fields) is still plain") {
  spec s;
  s.scale_type = fb::DType::UNKNOWN;
  s.block_shape = fb::BlockShape::UNKNOWN;
  const auto r = serialize::read(build(s));
  REQUIRE_MESSAGE(r.has_value(), r.error().line());
  CHECK(r->graph.find("c_scale") == nullptr);
  CHECK(r->block_scaled.empty());
}

TEST_CASE("malformed or unsupported composite forms are refused by name, never misread") {
  auto refused = [](const spec& s, std::initializer_list<const char*> parts) {
    const auto m = read_error(s);
    CAPTURE(m);
    CHECK(m.find("tensor 'c'") != std::string::npos);
    for (const char* p : parts) CHECK(m.find(p) != std::string::npos);
    CHECK(m.find('\n') == std::string::npos);
  };
  spec s;
  s.scale_type = fb::DType::INT8;
  refused(s, {"block-scaled type (value FP8E4M3, scale INT8, block shape 32)", "is not supported"});
  s = {};
  s.block_shape = static_cast<fb::BlockShape>(16);
  refused(s, {"block shape 16", "is not supported"});
  s = {};
  s.value = fb::DType::INT8;
  refused(s, {"value INT8", "is not supported"});
  s = {};
  s.last = 48;
  refused(s, {"BS32_FP8UE8M0_FP8E4M3 [1,48]", "multiple of the block size 32"});
  s = {};
  s.minor = 0;
  s.draft = false;
  refused(s, {"does not exist in TOSA 1.0"});
  s = {};
  s.data = std::vector<std::uint8_t>(32, 0x38);
  refused(s, {"constant data has no scale_data"});
  s.scale_data = std::vector<std::uint8_t>(9, 127);
  refused(s, {"scale_data has 9 bytes, expected 1"});
  s = {};
  s.extra_tensor = "c_scale";
  const auto m = read_error(s);
  CHECK(m.find("'c_scale'") != std::string::npos);
  CHECK(m.find("scale tensor") != std::string::npos);
}
