// The serializer derived from the op descriptors: the descriptors agree with the flatbuffer
// schema (tosa-tools' schema/tosa.fbs, as compiled by flatc: op enum names and attribute union
// members), and the generic attribute encoders write the same bytes as flatc's generated
// builders (the empty table and the {block_size} table of the EXT-MXFP ops). The schema does
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
}
