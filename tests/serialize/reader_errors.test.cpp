// Reader on malformed input: every failure class is an error value with a clear message
// (never a crash). Hand-made files are built with the generated FBS-1.1 builder API.
#include "sample_graphs.hpp"

#include <armlower/serialize.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>

using namespace armlower;
namespace fb = armlower::serialize::fbs11;

namespace {

std::string read_error(std::span<const std::uint8_t> b) {
  const auto r = serialize::read(b);
  return r.has_value() ? std::string("<no error>") : r.error().line();
}

/// Knobs of a one-op file: y = OP(x, c) with x [2] INT8 input, c [2] INT8 constant.
struct spec {
  int major = 1, minor = 0;
  bool draft = false;
  std::uint32_t op = 15;  // ADD
  std::uint32_t attr_type = 15;
  std::uint32_t x_type = 3;
  std::vector<std::uint8_t> c_data{1, 2};
  std::vector<std::string> inputs{"x", "c"};
  int regions = 1;
  std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)> attr;
};

std::vector<std::uint8_t> build(const spec& s) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::TosaTensor>> ts;
  const std::vector<std::int32_t> shape{2};
  ts.push_back(fb::CreateTosaTensorDirect(b, "x", &shape, static_cast<fb::DType>(s.x_type)));
  ts.push_back(fb::CreateTosaTensorDirect(b, "c", &shape, fb::DType::INT8, &s.c_data));
  ts.push_back(fb::CreateTosaTensorDirect(b, "y", &shape, fb::DType::INT8));
  std::vector<flatbuffers::Offset<fb::TosaOperator>> ops;
  std::vector<flatbuffers::Offset<flatbuffers::String>> no_in;
  std::vector<flatbuffers::Offset<flatbuffers::String>> c_out{b.CreateString("c")};
  ops.push_back(fb::CreateTosaOperatorDirect(b, fb::Op::CONST, fb::Attribute::ConstAttribute,
                                             fb::CreateConstAttribute(b).Union(), &no_in, &c_out));
  std::vector<flatbuffers::Offset<flatbuffers::String>> in, out{b.CreateString("y")};
  for (const auto& n : s.inputs) in.push_back(b.CreateString(n));
  const auto attr = s.attr ? s.attr(b) : fb::CreateAddAttribute(b).Union();
  ops.push_back(fb::CreateTosaOperatorDirect(b, static_cast<fb::Op>(s.op), static_cast<fb::Attribute>(s.attr_type),
                                             attr, &in, &out));
  std::vector<flatbuffers::Offset<flatbuffers::String>> gin{b.CreateString("x")}, gout{b.CreateString("y")};
  const auto block = fb::CreateTosaBasicBlockDirect(b, "main", &ops, &ts, &gin, &gout);
  std::vector<flatbuffers::Offset<fb::TosaBasicBlock>> blocks{block};
  std::vector<flatbuffers::Offset<fb::TosaRegion>> regions;
  regions.reserve(static_cast<std::size_t>(s.regions > 0 ? s.regions : 0));
  for (int i = 0; i < s.regions; ++i) regions.push_back(fb::CreateTosaRegionDirect(b, "main", &blocks));
  b.ForceDefaults(true);
  const auto v = fb::CreateVersion(b, s.major, s.minor, 0, s.draft);
  b.ForceDefaults(false);
  fb::FinishTosaGraphBuffer(b, fb::CreateTosaGraphDirect(b, v, &regions));
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

}  // namespace

TEST_CASE("the hand-made baseline file is read") {
  const auto r = serialize::read(build(spec{}));
  REQUIRE_MESSAGE(r.has_value(), r.error().line());
  CHECK(r->graph.operators.size() == 1);
  CHECK(r->graph.find("c")->is_constant);
}

TEST_CASE("not a flatbuffer, too short, wrong identifier, truncated, corrupt") {
  CHECK(read_error(std::vector<std::uint8_t>{1, 2, 3}) == "reader: not a TOSA flatbuffer: 3 bytes is too short");
  auto good = serialize::write(sample::int8_linear(), serialize::format::tosa_1_0).value();
  auto wrong = good;
  wrong[4] = 'X';
  wrong[7] = 0;
  CHECK(read_error(wrong) == "reader: not a TOSA flatbuffer: file identifier is 'XOS\\x00', expected 'TOSA'");
  // Every truncation that cuts referenced bytes is rejected (the last few bytes may be
  // alignment padding of the first object built).
  for (std::size_t n = 0; n + 8 < good.size(); n += 7) {
    CAPTURE(n);
    const std::span<const std::uint8_t> cut(good.data(), n);
    CHECK_FALSE(serialize::read(cut).has_value());
  }
  // A text file.
  const std::string text = "hello, this is not a TOSA file at all";
  CHECK(read_error({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}).find("reader: not a TOSA flatbuffer") == 0);
  // Root offset pointing outside the buffer.
  auto corrupt = good;
  corrupt[0] = 0xFF;
  corrupt[1] = 0xFF;
  corrupt[2] = 0xFF;
  corrupt[3] = 0x7F;
  CHECK(read_error(corrupt).find("reader: not a valid TOSA flatbuffer: the flatbuffers verifier rejected it") == 0);
  // Every single-byte corruption either reads or gives an error (never crashes).
  for (std::size_t i = 0; i < good.size(); ++i) {
    auto c = good;
    c[i] ^= 0xA5;
    const auto r = serialize::read(c);
    if (!r.has_value()) CHECK_FALSE(r.error().line().empty());
  }
}

TEST_CASE("unaligned input is read") {
  const auto good = serialize::write(sample::int8_matmul(), serialize::format::tosa_1_0).value();
  std::vector<std::uint8_t> shifted(good.size() + 1);
  std::copy(good.begin(), good.end(), shifted.begin() + 1);
  const auto r = serialize::read(std::span<const std::uint8_t>(shifted).subspan(1));
  REQUIRE(r.has_value());
  CHECK(serialize::write(r->graph, r->version).value() == good);
}

TEST_CASE("unsupported versions") {
  spec s;
  s.minor = 0;
  s.draft = true;
  CHECK(read_error(build(s)) == "reader: unsupported TOSA version 1.0.0 draft (armlower reads 1.0 final and 1.1 draft)");
  s.major = 0;
  s.minor = 80;
  s.draft = false;
  CHECK(read_error(build(s)) == "reader: unsupported TOSA version 0.80.0 (armlower reads 1.0 final and 1.1 draft)");
  s.major = 1;
  s.minor = 1;
  s.draft = true;
  CHECK(read_error(build(s)) == "<no error>");
}

TEST_CASE("unknown op, unknown dtype, missing tensor, bad payload size, bad attribute") {
  {
    spec s;
    s.op = s.attr_type = 13;  // SIGMOID
    s.attr = [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateSigmoidAttribute(b).Union(); };
    CHECK(read_error(build(s)) == "reader: model op #1 SIGMOID: armlower does not read this op");
    const auto r = serialize::read(build(s));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == errc::unsupported);
    CHECK(r.error().where().op_index == 1);
    CHECK(r.error().where().op == "SIGMOID");
  }
  {
    spec s;
    s.op = s.attr_type = 76;  // MATMUL_T_BLOCK_SCALED in a 1.0 file
    CHECK(read_error(build(s)) == "reader: model op #1 MATMUL_T_BLOCK_SCALED: op value 76 does not exist in TOSA 1.0");
  }
  {
    spec s;
    s.op = s.attr_type = 250;
    s.minor = 1;
    s.draft = true;
    CHECK(read_error(build(s)).find("reader: model op #1 op 250") == 0);
  }
  {
    spec s;
    s.x_type = 15;  // FP4E2M1 does not exist in 1.0
    CHECK(read_error(build(s)) == "reader: tensor 'x': DType 15 is not a dtype of TOSA 1.0");
    s.x_type = 99;
    s.minor = 1;
    s.draft = true;
    CHECK(read_error(build(s)) == "reader: tensor 'x': DType 99 is not a dtype of TOSA 1.1 draft");
  }
  {
    spec s;
    s.inputs = {"x", "ghost"};
    CHECK(read_error(build(s)) == "reader: model op #1 ADD, tensor 'ghost': input 1 is not a tensor of the block");
    const auto r = serialize::read(build(s));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == errc::malformed);
    CHECK(r.error().where().op_index == 1);
    CHECK(r.error().where().tensor == "ghost");
  }
  {
    spec s;
    s.inputs = {"x"};
    CHECK(read_error(build(s)) == "reader: model op #1 ADD: has 1 inputs and 1 outputs, expected 2 and 1");
  }
  {
    spec s;
    s.c_data = {1};
    CHECK(read_error(build(s)) == "reader: tensor 'c' INT8 [2]: constant data has 1 bytes, 2 needed");
    s.c_data = {1, 2, 0, 0, 0, 0, 0, 0};  // padding is accepted (longer data: reader_dataflow.test.cpp)
    CHECK(read_error(build(s)) == "<no error>");
  }
  {
    spec s;
    s.attr_type = 3;
    CHECK(read_error(build(s)) == "reader: model op #1 ADD: attribute type 3 does not match the op (15)");
  }
  {
    spec s;
    s.op = s.attr_type = 11;  // CLAMP with an empty min_val on INT8 (padded bounds: reader_dataflow.test.cpp)
    s.inputs = {"x"};
    s.attr = [](flatbuffers::FlatBufferBuilder& b) {
      std::vector<std::uint8_t> lo{}, hi{1, 0};
      return fb::CreateClampAttributeDirect(b, &lo, &hi, fb::NanPropagationMode::PROPAGATE).Union();
    };
    CHECK(read_error(build(s)) == "reader: model op #1 CLAMP: min_val of input 'x' INT8 [2] has 0 bytes, 1 needed");
  }
  {
    spec s;
    s.regions = 2;
    CHECK(read_error(build(s)) == "reader: the graph has 2 regions; armlower reads exactly one ('main', no control flow)");
  }
}

TEST_CASE("element counts never overflow") {
  using serialize::detail::checked_count;
  const std::vector<std::int32_t> big{2147483647, 2147483647, 2147483647};
  CHECK(checked_count(big) == -1);
  const std::vector<std::int32_t> ok{1024, 1024, 1024};
  CHECK(checked_count(ok) == std::int64_t{1} << 30);
  const std::vector<std::int32_t> limit{1 << 20, 1 << 20};
  CHECK(checked_count(limit) == std::int64_t{1} << 40);
  const std::vector<std::int32_t> over{1 << 20, (1 << 20) + 1};
  CHECK(checked_count(over) == -1);
}

TEST_CASE("inputs the fuzzer once found failing are handled") {
  // tests/fuzz/regressions: one file per bug found by fuzz_tosa_reader (see its README).
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(ARMLOWER_FUZZ_REGRESSIONS)) {
    if (e.path().extension() != ".tosa") continue;
    CAPTURE(e.path().string());
    std::ifstream in(e.path(), std::ios::binary);
    const std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto r = serialize::read(b);
    if (!r.has_value()) CHECK_FALSE(r.error().line().empty());
    ++n;
  }
  CHECK(n >= 1);
}
