// Writer + reader: round trips (write → read → write gives the same bytes), the layout the
// reference's schema expects (checked through armlower's FBS-1.0 generated verifier for 1.0
// files), and one error value per failure class of the writer.
#include "sample_graphs.hpp"

#include <armlower/serialize.hpp>

#include <armlower/serialize/generated/tosa_1_0_generated.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace armlower;

// FBS-1.1 is a pure append of FBS-1.0 (the library reads and writes 1.0 files with the 1.1
// generated code): every FBS-1.0 enum value and union index is the same in FBS-1.1.
namespace fb10 = armlower::serialize::fbs10;
namespace fb11 = armlower::serialize::fbs11;
static_assert(static_cast<int>(fb10::DType::MAX) == static_cast<int>(fb11::DType::FP8E5M2));
static_assert(static_cast<int>(fb10::Op::MAX) == static_cast<int>(fb11::Op::CONST_SHAPE));
static_assert(static_cast<int>(fb10::Attribute::MAX) == static_cast<int>(fb11::Attribute::ConstShapeAttribute));
static_assert(static_cast<int>(fb10::RoundingMode::MAX) == static_cast<int>(fb11::RoundingMode::MAX));
static_assert(static_cast<int>(fb10::NanPropagationMode::MAX) == static_cast<int>(fb11::NanPropagationMode::MAX));

TEST_CASE("FBS-1.0 and FBS-1.1 enum names agree value by value") {
  for (int v = 0; v <= static_cast<int>(fb10::Op::MAX); ++v)
    CHECK(std::string(fb10::EnumNameOp(static_cast<fb10::Op>(v))) == fb11::EnumNameOp(static_cast<fb11::Op>(v)));
  for (int v = 0; v <= static_cast<int>(fb10::DType::MAX); ++v)
    CHECK(std::string(fb10::EnumNameDType(static_cast<fb10::DType>(v))) ==
          fb11::EnumNameDType(static_cast<fb11::DType>(v)));
  for (int v = 0; v <= static_cast<int>(fb10::Attribute::MAX); ++v)
    CHECK(std::string(fb10::EnumNameAttribute(static_cast<fb10::Attribute>(v))) ==
          fb11::EnumNameAttribute(static_cast<fb11::Attribute>(v)));
}

TEST_CASE("every sample round-trips byte for byte") {
  for (const auto& s : sample::all()) {
    CAPTURE(s.name);
    const auto first = serialize::write(s.g, s.version);
    REQUIRE_MESSAGE(first.has_value(), first.error().line());
    CHECK(std::string(first->begin() + 4, first->begin() + 8) == "TOSA");
    const auto back = serialize::read(*first);
    REQUIRE_MESSAGE(back.has_value(), back.error().line());
    CHECK(back->version == s.version);
    const auto second = serialize::write(back->graph, back->version);
    REQUIRE(second.has_value());
    CHECK(*first == *second);
    // The graph read back is the graph written (CONST ops are folded into constants; SHAPE
    // tensors come first, from the block's `shapes`).
    REQUIRE(back->graph.tensors.size() == s.g.tensors.size());
    for (const auto& a : s.g.tensors) {
      CAPTURE(a.name);
      const auto* b = back->graph.find(a.name);
      REQUIRE(b != nullptr);
      CHECK(a.type == b->type);
      CHECK(a.shape == b->shape);
      CHECK(a.is_constant == b->is_constant);
      CHECK(a.data == b->data);
    }
    REQUIRE(back->graph.operators.size() == s.g.operators.size());
    for (std::size_t i = 0; i < s.g.operators.size(); ++i) {
      CHECK(back->graph.operators[i].code == s.g.operators[i].code);
      CHECK(back->graph.operators[i].inputs == s.g.operators[i].inputs);
      CHECK(back->graph.operators[i].outputs == s.g.operators[i].outputs);
      CHECK(back->graph.operators[i].attr.index() == s.g.operators[i].attr.index());
    }
    CHECK(back->graph.inputs == s.g.inputs);
    CHECK(back->graph.outputs == s.g.outputs);
  }
}

TEST_CASE("1.0 files verify against the FBS-1.0 schema; constants are 8-byte aligned and padded") {
  for (const auto& s : sample::all()) {
    CAPTURE(s.name);
    const auto bytes = serialize::write(s.g, s.version).value();
    flatbuffers::Verifier v10(bytes.data(), bytes.size());
    if (s.version == serialize::format::tosa_1_0) CHECK(serialize::fbs10::VerifyTosaGraphBuffer(v10));
    const auto* root = serialize::fbs11::GetTosaGraph(bytes.data());
    const auto h = serialize::header_of(s.version);
    CHECK(root->version()->_major() == h.major);
    CHECK(root->version()->_minor() == h.minor);
    CHECK(root->version()->_draft() == h.draft);
    const auto* block = root->regions()->Get(0)->blocks()->Get(0);
    CHECK(root->regions()->Get(0)->name()->str() == "main");
    CHECK(block->name()->str() == "main");
    std::size_t consts = 0;
    for (const auto* t : *block->tensors()) {
      CHECK(t->type() != serialize::fbs11::DType::SHAPE);
      if (t->data() == nullptr) continue;
      ++consts;
      CHECK(t->data()->size() % 8 == 0);
      CHECK(reinterpret_cast<std::uintptr_t>(t->data()->data()) % 8 == 0);
    }
    if (block->shapes() != nullptr) {
      for (const auto* sh : *block->shapes()) {
        REQUIRE(sh->data() != nullptr);
        ++consts;
        CHECK(sh->data()->size() == 8 * sh->rank());
        CHECK(reinterpret_cast<std::uintptr_t>(sh->data()->data()) % 8 == 0);
      }
    }
    // One CONST/CONST_SHAPE op per constant, first, then the graph's ops.
    std::size_t n_const_ops = 0;
    for (const auto* o : *block->operators()) {
      const auto code = static_cast<std::uint32_t>(o->op());
      CHECK(static_cast<std::uint32_t>(o->attribute_type()) == code);
      if (code == 67 || code == 75) ++n_const_ops;
    }
    CHECK(n_const_ops == consts);
    CHECK(block->operators()->size() == consts + s.g.operators.size());
  }
}

TEST_CASE("INT48 constants are 6 little-endian bytes; FP4 two per byte; FP6 packed 4 per 3 bytes") {
  const auto a16 = serialize::write(sample::a16w8_linear(), serialize::format::tosa_1_0).value();
  const auto* blk = serialize::fbs11::GetTosaGraph(a16.data())->regions()->Get(0)->blocks()->Get(0);
  for (const auto* t : *blk->tensors()) {
    if (t->name()->str() != "b") continue;
    REQUIRE(t->data()->size() == 24);  // 3 × 6 bytes, padded to 24
    const std::int64_t b0 = (std::int64_t{1} << 40) + 5;
    for (int k = 0; k < 6; ++k) CHECK(t->data()->Get(k) == static_cast<std::uint8_t>(b0 >> (8 * k)));
  }
  const auto fp6 = serialize::write(sample::mxfp_linear(dtype::id::fp6e2m3), serialize::format::tosa_1_1).value();
  blk = serialize::fbs11::GetTosaGraph(fp6.data())->regions()->Get(0)->blocks()->Get(0);
  for (const auto* t : *blk->tensors())
    if (t->name()->str() == "w") CHECK(t->data()->size() == 3 * 64 * 6 / 8);
  const auto fp4 = serialize::write(sample::mxfp_linear(dtype::id::fp4e2m1), serialize::format::tosa_1_1).value();
  blk = serialize::fbs11::GetTosaGraph(fp4.data())->regions()->Get(0)->blocks()->Get(0);
  for (const auto* t : *blk->tensors())
    if (t->name()->str() == "w") CHECK(t->data()->size() == 3 * 64 / 2);
}

TEST_CASE("FP6 packing: 4 codes in 3 bytes, least significant bits first") {
  // tosa_serializer.convertDataToUint8Vec(FP6E2M3, [1.0, -1.0, 7.5, 0.5]) == [8, 250, 17]
  // (tosa-tools 2026.8.0; codes 0x08, 0x28, 0x1F, 0x04).
  const std::vector<std::uint8_t> codes{0x08, 0x28, 0x1F, 0x04};
  CHECK(serialize::detail::pack_fp6(codes) == std::vector<std::uint8_t>{8, 250, 17});
  CHECK(serialize::detail::unpack_fp6(std::vector<std::uint8_t>{8, 250, 17}, 4) == codes);
  for (std::size_t n = 1; n < 20; ++n) {
    std::vector<std::uint8_t> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<std::uint8_t>((i * 37 + 11) & 0x3F);
    const auto p = serialize::detail::pack_fp6(c);
    CHECK(p.size() == (6 * n + 7) / 8);
    CHECK(serialize::detail::unpack_fp6(p, n) == c);
  }
}

TEST_CASE("CLAMP bounds are the raw bytes of the input dtype") {
  using serialize::detail::clamp_bytes;
  CHECK(*clamp_bytes(dtype::id::i8, -128) == std::vector<std::uint8_t>{0x80});
  CHECK(*clamp_bytes(dtype::id::i16, 1000) == std::vector<std::uint8_t>{0xE8, 0x03});
  CHECK(*clamp_bytes(dtype::id::fp32, 1.0) == std::vector<std::uint8_t>{0, 0, 0x80, 0x3F});
  CHECK(*clamp_bytes(dtype::id::fp16, -2.0) == std::vector<std::uint8_t>{0x00, 0xC0});
  CHECK(*clamp_bytes(dtype::id::fp16, 65504.0) == std::vector<std::uint8_t>{0xFF, 0x7B});
  CHECK(*clamp_bytes(dtype::id::bf16, 1.0) == std::vector<std::uint8_t>{0x80, 0x3F});
  CHECK_FALSE(clamp_bytes(dtype::id::i8, 128).has_value());
  CHECK_FALSE(clamp_bytes(dtype::id::i8, 0.5).has_value());
  CHECK_FALSE(clamp_bytes(dtype::id::fp8e4m3, 1.0).has_value());
}

namespace {
std::string write_error(const graph::graph& g, serialize::format f = serialize::format::tosa_1_0) {
  const auto r = serialize::write(g, f);
  return r.has_value() ? std::string("<no error>") : r.error().line();
}
}  // namespace

TEST_CASE("writer errors name the operator, the tensor and the rule") {
  using serialize::format;
  {  // code and location fields
    auto g = sample::int8_linear();
    g.operators[1].inputs.pop_back();
    const auto r = serialize::write(g, format::tosa_1_0);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == errc::invalid_graph);
    CHECK(r.error().where().stage == "writer");
    CHECK(r.error().where().graph_op == 1);
    CHECK(r.error().where().op == "CONV2D");
    const auto u = serialize::write(sample::mxfp_linear(dtype::id::fp8e4m3), format::tosa_1_0);
    REQUIRE_FALSE(u.has_value());
    CHECK(u.error().code() == errc::unsupported);
  }
  // 1.1-only op or dtype in a 1.0 file.
  CHECK(write_error(sample::mxfp_linear(dtype::id::fp8e4m3)) ==
        "writer: op #0 CAST_TO_BLOCK_SCALED: needs TOSA 1.1 draft; the target format is TOSA 1.0");
  {
    auto g = sample::fp32_misc(true);
    g.operators.erase(g.operators.end() - 1);
    CHECK(write_error(g) == "writer: tensor 'f4' has dtype FP4E2M1, which TOSA 1.0 cannot carry (it needs TOSA 1.1 draft)");
  }
  {
    auto g = sample::int8_linear();
    g.operators[1].inputs[1] = "nope";
    CHECK(write_error(g) == "writer: op #1 CONV2D, tensor 'nope': input 1 is not a tensor of the graph");
  }
  {
    auto g = sample::int8_linear();
    g.operators[1].inputs.pop_back();
    CHECK(write_error(g) == "writer: op #1 CONV2D: has 4 inputs and 1 outputs, expected 5 and 1");
  }
  {
    auto g = sample::int8_linear();
    g.operators[1].attr = graph::rescale_attr{};
    CHECK(write_error(g) == "writer: op #1 CONV2D: needs attribute conv2d_attr, got rescale_attr");
  }
  {
    auto g = sample::int8_linear();
    g.find("w")->data.pop_back();
    CHECK(write_error(g) == "writer: constant 'w' INT8 [4,1,1,8] has 31 payload bytes, expected 32");
  }
  {
    auto g = sample::int8_linear();
    g.find("x4")->shape[1] = 0;
    CHECK(write_error(g) ==
          "writer: tensor 'x4' INT8 [2,0,1,8]: every dimension must be >= 1 and the element count <= 2^40");
  }
  {
    auto g = sample::int8_linear();
    g.add(sample::act("x", dtype::id::i8, {1}));
    CHECK(write_error(g) == "writer: tensor name 'x' is used by more than one tensor");
  }
  {
    auto g = sample::int8_linear();
    g.operators.push_back(g.operators[0]);
    CHECK(write_error(g) == "writer: op #4 RESHAPE, tensor 'x4': output is already written by operator 0 (each tensor is written once)");
  }
  {
    auto g = sample::fp32_misc(false);
    std::get<graph::clamp_attr>(g.operators[3].attr).min_val = 1e39;
    CHECK(write_error(g).find("writer: op #3 CLAMP, tensor 'p': bounds") == 0);
  }
  {
    auto g = sample::mxfp_linear(dtype::id::fp8e4m3);
    std::get<graph::block_scaled_attr>(g.operators[1].attr).block_size = 16;
    CHECK(write_error(g, format::tosa_1_1) ==
          "writer: op #1 MATMUL_T_BLOCK_SCALED: block_size 16 is not a BlockSize value (FBS-1.1 has only BLOCK_SIZE_32)");
  }
  {
    auto g = sample::int8_linear();
    g.operators.insert(g.operators.begin(),
                       graph::operation{graph::framework_op::linear, {"x"}, {"x4"}, graph::linear_attr{}});
    CHECK(write_error(g) ==
          "writer: op #0 linear: is a framework operator, not a TOSA operator; lower the graph before writing it");
  }
  {
    auto g = sample::int8_linear();
    g.inputs = {"w"};
    CHECK(write_error(g) == "writer: graph input 'w' is a constant");
  }
}

TEST_CASE("write_file replaces the file atomically and reports failures") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("armlower_wf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto bytes = serialize::write(sample::int8_matmul(), serialize::format::tosa_1_0).value();
  const fs::path p = dir / "m.tosa";
  REQUIRE(serialize::write_file(p, bytes).has_value());
  REQUIRE(serialize::write_file(p, bytes).has_value());  // overwrite
  const auto back = serialize::read_file(p);
  REQUIRE(back.has_value());
  CHECK(serialize::write(back->graph, back->version).value() == bytes);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  CHECK(entries == 1);  // no temporary left behind
  const auto bad = serialize::write_file(dir / "missing_dir" / "x.tosa", bytes);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message().find("cannot create a temporary file in") == 0);
  CHECK(bad.error().code() == errc::io);
  CHECK(bad.error().where().file == (dir / "missing_dir" / "x.tosa").string());
  CHECK_FALSE(fs::exists(dir / "missing_dir"));
  const auto none = serialize::read_file(dir / "absent.tosa");
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message().find("cannot open") == 0);
  CHECK(none.error().code() == errc::io);
  CHECK(none.error().where().stage == "reader");
  CHECK(none.error().where().file == (dir / "absent.tosa").string());
  fs::remove_all(dir);
}
