// The op descriptors (tosa/op_descriptor.hpp) agree with the type-support table
// (tosa/op_table.hpp): every row's op is described and has the descriptor's slot count; every
// described op has rows; every slot is filled by exactly one operand or result; the derived
// name/all_ops/slots/visit_op agree with the table entries. Operand names and order are checked
// against TOSA 1.0 §2 argument lists transcribed here by hand (not read from the table).
#include <doctest/doctest.h>

#include <armlower/tosa.hpp>

#include <set>
#include <string>
#include <vector>

using namespace armlower;
using namespace armlower::tosa;

TEST_CASE("every op-table row is of a described op with the descriptor's slot count") {
  std::set<op> with_rows;
  for (const auto& r : op_table) {
    REQUIRE(known(r.o));
    CHECK(r.arity == describe(r.o).n_slots);
    CHECK(slots(r.o).arity == describe(r.o).n_slots);
    with_rows.insert(r.o);
  }
  for (const auto& d : descriptors) {
    INFO(d.name);
    CHECK(with_rows.count(d.code) == 1);   // every described op has rows
    CHECK(!rows_of(d.code).empty());
  }
}

TEST_CASE("every type-row slot is filled by exactly one operand or result, and named") {
  for (const auto& d : descriptors) {
    INFO(d.name);
    REQUIRE(d.n_slots >= 1);
    REQUIRE(d.n_slots <= max_slots);
    std::vector<int> fills(d.n_slots, 0);
    for (const auto side : {d.inputs(), d.outputs()}) {
      for (const auto& x : side) {
        CHECK(x.slot < static_cast<int>(d.n_slots));
        if (x.slot >= 0) ++fills[static_cast<std::size_t>(x.slot)];
      }
    }
    for (std::size_t k = 0; k < d.n_slots; ++k) {
      CHECK(fills[k] == 1);
      CHECK(!d.slot_names[k].empty());
      CHECK(slots(d.code).names[k] == d.slot_names[k]);
    }
  }
}

TEST_CASE("derived facts: name, all_ops, index_of, visit_op, for_each_op") {
  REQUIRE(all_ops.size() == descriptors.size());
  std::set<op> seen;
  for (std::size_t i = 0; i < descriptors.size(); ++i) {
    CHECK(all_ops[i] == descriptors[i].code);
    CHECK(index_of(descriptors[i].code) == i);
    CHECK(name(descriptors[i].code) == descriptors[i].name);
    CHECK(visit_op(descriptors[i].code, [](auto c) { return describe(decltype(c)::value).name; }) ==
          descriptors[i].name);
    seen.insert(descriptors[i].code);
  }
  CHECK(seen.size() == descriptors.size());  // no op described twice
  CHECK(name(static_cast<op>(250)) == "UNKNOWN");
  CHECK_FALSE(known(static_cast<op>(250)));
  std::size_t n = 0;
  for_each_op([&](auto) { ++n; });
  CHECK(n == descriptors.size());
}

TEST_CASE("operands in TOSA order with roles (TOSA 1.0 §2 argument lists, 1.1 draft EXT-MXFP)") {
  // op: inputs (name:role) -> outputs; transcribed from the specification's argument tables.
  struct expect {
    op o;
    std::vector<std::string> in;
    std::vector<std::string> out;
  };
  const std::vector<expect> spec = {
      {op::conv2d, {"input", "weight", "bias", "input_zp", "weight_zp"}, {"output"}},
      {op::matmul, {"A", "B", "A_zp", "B_zp"}, {"output"}},
      {op::rescale, {"input", "multiplier", "shift", "input_zp", "output_zp"}, {"output"}},
      {op::mul, {"input1", "input2", "shift"}, {"output"}},
      {op::add, {"input1", "input2"}, {"output"}},
      {op::maximum, {"input1", "input2"}, {"output"}},
      {op::minimum, {"input1", "input2"}, {"output"}},
      {op::reshape, {"input1", "shape"}, {"output"}},
      {op::transpose, {"input1"}, {"output"}},
      {op::clamp, {"input"}, {"output"}},
      {op::cast, {"input"}, {"output"}},
      {op::const_, {}, {"output"}},
      {op::cast_to_block_scaled, {"input_data"}, {"output_data", "output_scale"}},
      {op::cast_from_block_scaled, {"input_data", "input_scale"}, {"output"}},
      {op::matmul_t_block_scaled, {"A_data", "A_scale", "B_data", "B_scale"}, {"output"}},
  };
  CHECK(spec.size() == descriptors.size());
  for (const auto& e : spec) {
    const auto& d = describe(e.o);
    INFO(d.name);
    REQUIRE(d.inputs().size() == e.in.size());
    REQUIRE(d.outputs().size() == e.out.size());
    for (std::size_t k = 0; k < e.in.size(); ++k) CHECK(d.inputs()[k].name == e.in[k]);
    for (std::size_t k = 0; k < e.out.size(); ++k) CHECK(d.outputs()[k].name == e.out[k]);
  }
  CHECK(describe(op::conv2d).input_index(role::weight) == 1);
  CHECK(describe(op::conv2d).input_index(role::bias) == 2);
  CHECK(describe(op::rescale).input_index(role::shift) == 2);
  CHECK(describe(op::matmul_t_block_scaled).input_index(role::scale) == 1);
}
