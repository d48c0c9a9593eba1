// The serializer derived from the op descriptors: the descriptors agree with the flatbuffer
// schema (tosa-tools' schema/tosa.fbs, as compiled by flatc: op enum names and attribute union
// members), and the generic attribute encoders write the same bytes as flatc's generated
// builders (the empty table, the {block_size} table of the EXT-MXFP ops and the {nan_mode}
// table of MAXIMUM, which MINIMUM shares). The schema does
// not state operand counts (TosaOperator.inputs is a plain vector), so those are checked against
// the specification in tests/tosa/op_descriptor.test.cpp.
#include "sample_graphs.hpp"

#include <armlower/serialize.hpp>
#include <armlower/tosa.hpp>

#include <doctest/doctest.h>

#include <string>
#include <unordered_map>
#include <vector>

using namespace armlower;
namespace fb = armlower::serialize::fbs11;

TEST_CASE("descriptors agree with the flatbuffer schema: op names and attribute union members") {
  for (const auto& d : tosa::descriptors) {
    INFO(d.name);
    const auto code = tosa::serialized(d.code);
    REQUIRE(code <= static_cast<std::uint32_t>(fb::Op::MAX));
    CHECK(std::string(fb::EnumNameOp(static_cast<fb::Op>(code))) == std::string(d.name));
    // The Attribute union member with the op's number is the op's attribute table.
    const std::string attr = fb::EnumNameAttribute(static_cast<fb::Attribute>(code));
    CHECK(attr.size() > std::string("Attribute").size());
    CHECK(attr.substr(attr.size() - 9) == "Attribute");
  }
  CHECK(std::string(fb::EnumNameAttribute(static_cast<fb::Attribute>(tosa::serialized(tosa::op::conv2d)))) ==
        "Conv2dAttribute");
  CHECK(std::string(fb::EnumNameAttribute(static_cast<fb::Attribute>(tosa::serialized(tosa::op::rescale)))) ==
        "RescaleAttribute");
  CHECK(std::string(fb::EnumNameAttribute(static_cast<fb::Attribute>(tosa::serialized(tosa::op::clamp)))) ==
        "ClampAttribute");
  CHECK(std::string(fb::EnumNameAttribute(static_cast<fb::Attribute>(tosa::serialized(tosa::op::transpose)))) ==
        "TransposeAttribute");
  CHECK(std::string(fb::EnumNameAttribute(static_cast<fb::Attribute>(tosa::serialized(tosa::op::maximum)))) ==
        "MaximumAttribute");
}

namespace {
/// Finished bytes of a buffer whose root is the table `make(fbb)` returns.
template <class F>
std::vector<std::uint8_t> finished(F make) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(make(fbb));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}
}  // namespace

TEST_CASE("generic attribute encoders write flatc's bytes") {
  const graph::graph g;
  const std::unordered_map<std::string_view, std::size_t> index;
  const auto generic = [&](tosa::op o, graph::attribute a) {
    return finished([&](flatbuffers::FlatBufferBuilder& fbb) {
      serialize::detail::emit_context c{fbb, g, serialize::format::tosa_1_1, index};
      const graph::operation op{o, {}, {}, std::move(a)};
      return tosa::visit_op(o, [&](auto k) {
        return serialize::attr_encoder<tosa::describe(decltype(k)::value).attr>::encode(c, op);
      });
    });
  };
  const auto bs = fb::BlockSize::BLOCK_SIZE_32;
  CHECK(generic(tosa::op::matmul, {}) ==
        finished([](auto& fbb) { return fb::CreateMatMulAttribute(fbb).Union(); }));
  CHECK(generic(tosa::op::add, {}) == finished([](auto& fbb) { return fb::CreateAddAttribute(fbb).Union(); }));
  CHECK(generic(tosa::op::cast_to_block_scaled, graph::block_scaled_attr{32}) ==
        finished([&](auto& fbb) { return fb::CreateCastToBlockScaledAttribute(fbb, bs).Union(); }));
  CHECK(generic(tosa::op::cast_from_block_scaled, graph::block_scaled_attr{32}) ==
        finished([&](auto& fbb) { return fb::CreateCastFromBlockScaledAttribute(fbb, bs).Union(); }));
  CHECK(generic(tosa::op::matmul_t_block_scaled, graph::block_scaled_attr{32}) ==
        finished([&](auto& fbb) { return fb::CreateMatMulTBlockScaledAttribute(fbb, bs).Union(); }));
  for (const auto& mw : {std::pair{graph::nan_mode::propagate, fb::NanPropagationMode::PROPAGATE},
                         std::pair{graph::nan_mode::ignore, fb::NanPropagationMode::IGNORE}}) {
    const auto wire = mw.second;  // not a structured binding: clang 14 cannot capture those in a lambda
    const auto bytes = generic(tosa::op::maximum, graph::nan_mode_attr{mw.first});
    CHECK(bytes == finished([&](auto& fbb) { return fb::CreateMaximumAttribute(fbb, wire).Union(); }));
    // The kind is the table's, not the op's: MinimumAttribute has the same layout.
    CHECK(bytes == finished([&](auto& fbb) { return fb::CreateMinimumAttribute(fbb, wire).Union(); }));
  }
}

TEST_CASE("MAXIMUM: the {nan_mode} table round-trips; the writer refuses a value that is not a NanPropagationMode") {
  // x [2,3] and a broadcast constant k [1,3] → y [2,3] (TOSA 1.0 MAXIMUM, MaximumAttribute {nan_mode}).
  const auto make = [](graph::nan_mode m, tosa::op op = tosa::op::maximum) {
    graph::graph g;
    g.add(sample::act("x", dtype::id::fp32, {2, 3}));
    g.add(graph::make_f32_constant("k", {1, 3}, std::vector<float>{0.5f, -1.0f, 2.0f}));
    g.add(sample::act("y", dtype::id::fp32, {2, 3}));
    g.operators.push_back(sample::op(op, {"x", "k"}, {"y"}, graph::nan_mode_attr{m}));
    g.inputs = {"x"};
    g.outputs = {"y"};
    return g;
  };
  for (const auto op : {tosa::op::maximum, tosa::op::minimum})  // MINIMUM shares the table kind
  for (const auto m : {graph::nan_mode::propagate, graph::nan_mode::ignore}) {
    for (const auto f : {serialize::format::tosa_1_0, serialize::format::tosa_1_1}) {
      const auto bytes = serialize::write(make(m, op), f);
      REQUIRE_MESSAGE(bytes.has_value(), bytes.error().line());
      const auto back = serialize::read(*bytes);
      REQUIRE_MESSAGE(back.has_value(), back.error().line());
      REQUIRE(back->graph.operators.size() == 1);
      const auto& o = back->graph.operators[0];
      CHECK(o.tosa_op() == op);
      const auto* a = std::get_if<graph::nan_mode_attr>(&o.attr);
      REQUIRE(a != nullptr);
      CHECK(a->nan == m);
      CHECK(serialize::write(back->graph, back->version).value() == *bytes);
    }
  }
  const auto bad = serialize::write(make(static_cast<graph::nan_mode>(0)), serialize::format::tosa_1_0);
  REQUIRE_FALSE(bad.has_value());
  const std::string line = bad.error().line();
  CHECK(line.find("MAXIMUM") != std::string::npos);
  CHECK(line.find("nan_mode 0") != std::string::npos);
  // A missing attribute is refused by name, not misread as PROPAGATE.
  auto none = make(graph::nan_mode::propagate);
  none.operators[0].attr = {};
  const auto missing = serialize::write(none, serialize::format::tosa_1_0);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().line().find("nan_mode_attr") != std::string::npos);
}
