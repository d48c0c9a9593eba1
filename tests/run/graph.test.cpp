// Graph walking: input binding, constants, structural errors (each names op index, op, tensor).
#include "run_test_util.hpp"

#include <doctest/doctest.h>

using namespace run_test;

namespace {
builder add_graph() {
  builder b;
  b.input("a", id::i32, {2});
  b.ints("k", id::i32, {2}, {10, -20});
  b.declare("y", id::i32, {2});
  b.op(tosa::op::add, {"a", "k"}, {"y"});
  b.output("y");
  return b;
}
const std::vector<run::value> two{run::from_ints(id::i32, {2}, {1, 2})};
}  // namespace

TEST_CASE("a CONST feeds an op; keep_intermediates exposes every tensor") {
  auto b = add_graph();
  auto r = run::run(b.g, two);
  REQUIRE(r);
  CHECK(r.outputs[0].ints == std::vector<std::int64_t>{11, -18});
  CHECK(r.tensors.empty());
  r = run::run(b.g, two, run::options{.keep_intermediates = true});
  REQUIRE(r);
  CHECK(r.tensors.count("k") == 1);
  CHECK(r.tensors.count("a") == 1);
  CHECK(r.tensors.at("y").ints == r.outputs[0].ints);
}

TEST_CASE("graph inputs must match the declarations") {
  auto b = add_graph();
  auto r = run::run(b.g, std::vector<run::value>{});
  REQUIRE_FALSE(r);
  CHECK(r.failure->op_index == run::no_op);
  CHECK(r.failure->rule.find("1 inputs") != std::string::npos);
  r = run::run(b.g, std::vector<run::value>{run::zeros(id::i16, {2})});
  REQUIRE_FALSE(r);
  CHECK(r.failure->tensor == "a");
  r = run::run(b.g, std::vector<run::value>{run::zeros(id::i32, {3})});
  REQUIRE_FALSE(r);
  CHECK(r.failure->rule.find("[3]") != std::string::npos);
  run::value bad{id::i32, {2}, {1}, {}, {}};
  r = run::run(b.g, std::vector<run::value>{bad});
  REQUIRE_FALSE(r);
  CHECK(r.failure->kind == run::error_kind::invalid_graph);
}

TEST_CASE("structural errors name the op and the tensor") {
  {
    auto b = add_graph();
    b.g.operators[1].inputs[1] = "nope";
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->op_index == 1);
    CHECK(r.failure->op_name == "ADD");
    CHECK(r.failure->tensor == "nope");
    CHECK(r.failure->message() == "op 1 ADD, tensor 'nope': invalid graph: operand is not a declared tensor");
  }
  {
    auto b = add_graph();
    b.g.operators[1].inputs.emplace_back("a");
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->rule.find("expects 2 operands") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.operators[1].outputs[0] = "undeclared";
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->tensor == "undeclared");
  }
  {
    auto b = add_graph();
    b.declare("z", id::i32, {2});
    b.op(tosa::op::add, {"y", "w"}, {"z"});  // w is used before it is produced
    b.declare("w", id::i32, {2});
    b.op(tosa::op::add, {"y", "y"}, {"w"});
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->op_index == 2);
    CHECK(r.failure->rule.find("used before") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.outputs.emplace_back("dangling");
    b.declare("dangling", id::i32, {2});
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->rule.find("never produced") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.operators.push_back(graph::operation{graph::framework_op::relu, {"y"}, {"y"}, {}});
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->op_name == "relu");
    CHECK(r.failure->rule.find("not a TOSA operator") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.operators[1].code = static_cast<tosa::op>(41);  // NEGATE: not an op the interpreter runs
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->kind == run::error_kind::unsupported);
    CHECK(r.failure->rule.find("41") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.find("k")->data.resize(5);  // truncated payload
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->tensor == "k");
    CHECK(r.failure->op_name == "CONST");
  }
  {
    auto b = add_graph();
    b.g.find("k")->is_constant = false;  // CONST result without payload
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.failure->op_name == "CONST");
  }
}
