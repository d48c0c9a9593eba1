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
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{11, -18});
  CHECK(r->tensors.empty());
  r = run::run(b.g, two, run::options{.keep_intermediates = true});
  REQUIRE(r);
  CHECK(r->tensors.count("k") == 1);
  CHECK(r->tensors.count("a") == 1);
  CHECK(r->tensors.at("y").ints == r->outputs[0].ints);
}

TEST_CASE("outputs named twice, a graph input as output, an output read by a later op (run and session)") {
  // c = a + b, d = c + a; outputs c, d, c, a, k (k a constant nothing reads)
  builder b;
  b.input("a", id::i32, {3});
  b.input("b", id::i32, {3});
  b.ints("k", id::i32, {1}, {7});
  b.declare("c", id::i32, {3});
  b.declare("d", id::i32, {3});
  b.op(tosa::op::add, {"a", "b"}, {"c"});
  b.op(tosa::op::add, {"c", "a"}, {"d"});
  for (const char* n : {"c", "d", "c", "a", "k"}) b.output(n);
  const std::vector<std::int64_t> av{1, -2, 300}, bv{40, 5, -6};
  const std::vector<run::value> in{run::from_ints(id::i32, {3}, av), run::from_ints(id::i32, {3}, bv)};
  std::vector<std::int64_t> cv(3), dv(3);
  for (std::size_t i = 0; i < 3; ++i) cv[i] = av[i] + bv[i], dv[i] = cv[i] + av[i];  // TOSA ADD, no overflow here
  const auto check = [&](const run::result& r) {
    REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
    REQUIRE(r->outputs.size() == 5);
    CHECK(r->outputs[0].ints == cv);
    CHECK(r->outputs[1].ints == dv);
    CHECK(r->outputs[2].ints == cv);
    CHECK(r->outputs[3].ints == av);
    CHECK(r->outputs[4].ints == std::vector<std::int64_t>{7});
  };
  for (const bool keep : {false, true}) {
    CAPTURE(keep);
    const run::options opt{.keep_intermediates = keep};
    check(run::run(b.g, in, opt));
    run::session s(b.g, opt);
    for (int iter = 0; iter < 3; ++iter) {
      const auto r = s.run(in);
      check(r);
      if (keep) {
        CHECK(r->tensors.size() == 5);
        CHECK(r->tensors.at("d").ints == dv);
        CHECK(r->tensors.at("b").ints == bv);
      }
    }
  }
  CHECK(in[0].ints == av);  // the caller's inputs are read, never changed
  CHECK(in[1].ints == bv);
}

TEST_CASE("graph inputs must match the declarations") {
  auto b = add_graph();
  auto r = run::run(b.g, std::vector<run::value>{});
  REQUIRE_FALSE(r);
  CHECK(r.error().where().op_index == -1);
  CHECK(r.error().code() == armlower::errc::invalid_graph);
  CHECK(r.error().message().find("1 inputs") != std::string::npos);
  r = run::run(b.g, std::vector<run::value>{run::zeros(id::i16, {2})});
  REQUIRE_FALSE(r);
  CHECK(r.error().where().tensor == "a");
  r = run::run(b.g, std::vector<run::value>{run::zeros(id::i32, {3})});
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("[3]") != std::string::npos);
  run::value bad{id::i32, {2}, run::int_elements(std::vector<std::int32_t>{1}), {}, {}};
  r = run::run(b.g, std::vector<run::value>{bad});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::invalid_graph);
  CHECK(r.error().message().find("needs 2 integers, has 1") != std::string::npos);
  // INT32 elements held at another width than the dtype's storage width (int32)
  run::value wide{id::i32, {2}, run::int_elements(std::vector<std::int64_t>{1, 2}), {}, {}};
  r = run::run(b.g, std::vector<run::value>{wide});
  REQUIRE_FALSE(r);
  CHECK(r.error().where().tensor == "a");
  CHECK(r.error().message().find("32-bit elements, holds 64-bit") != std::string::npos);
}

TEST_CASE("structural errors name the op and the tensor") {
  {
    auto b = add_graph();
    b.g.operators[1].inputs[1] = "nope";
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().where().op_index == 1);
    CHECK(r.error().where().op == "ADD");
    CHECK(r.error().where().tensor == "nope");
    CHECK(r.error().code() == armlower::errc::invalid_graph);
    CHECK(r.error().where().stage == "interpreter");
    CHECK(r.error().line() == "interpreter: model op #1 ADD, tensor 'nope': operand is not a declared tensor");
  }
  {
    auto b = add_graph();
    b.g.operators[1].inputs.emplace_back("a");
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find("expects 2 operands") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.operators[1].outputs[0] = "undeclared";
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().where().tensor == "undeclared");
  }
  {
    auto b = add_graph();
    b.declare("z", id::i32, {2});
    b.op(tosa::op::add, {"y", "w"}, {"z"});  // w is used before it is produced
    b.declare("w", id::i32, {2});
    b.op(tosa::op::add, {"y", "y"}, {"w"});
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().where().op_index == 2);
    CHECK(r.error().message().find("used before") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.outputs.emplace_back("dangling");
    b.declare("dangling", id::i32, {2});
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find("never produced") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.operators.push_back(graph::operation{graph::framework_op::relu, {"y"}, {"y"}, {}});
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().where().op == "relu");
    CHECK(r.error().message().find("not a TOSA operator") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.operators[1].code = static_cast<tosa::op>(41);  // NEGATE: not an op the interpreter runs
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == armlower::errc::unsupported);
    CHECK(r.error().message().find("41") != std::string::npos);
  }
  {
    auto b = add_graph();
    b.g.find("k")->data.resize(5);  // truncated payload
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().where().tensor == "k");
    CHECK(r.error().where().op == "CONST");
  }
  {
    auto b = add_graph();
    b.g.find("k")->is_constant = false;  // CONST result without payload
    const auto r = run::run(b.g, two);
    REQUIRE_FALSE(r);
    CHECK(r.error().where().op == "CONST");
  }
}

TEST_CASE("every described op has a kernel binding; an op number nothing describes is refused by number") {
  // Dispatch is `tosa::visit_op` over the descriptors: each described op must be bound.
  tosa::for_each_op([](auto o) {
    CHECK_MESSAGE(run::detail::kernel<decltype(o)::value>::bound, tosa::describe(decltype(o)::value).name);
  });
  auto b = add_graph();
  b.g.operators[1].code = static_cast<tosa::op>(999);  // not a TOSA op armlower knows
  const auto r = run::run(b.g, two);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::unsupported);
  CHECK(r.error().where().op_index == 1);
  CHECK(r.error().message() == "TOSA op 999 is not run by the interpreter");
}

TEST_CASE("operand counts come from the op descriptor") {
  auto b = add_graph();
  b.g.operators[1].outputs.emplace_back("y2");
  const auto r = run::run(b.g, two);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::invalid_graph);
  CHECK(r.error().where().op == "ADD");
  CHECK(r.error().message() ==
        "expects " + std::to_string(tosa::describe(tosa::op::add).n_in) + " operands and 1 results, has 2 and 2");
}

TEST_CASE("kernel status codes map to error codes in one place (run::code_of)") {
  namespace kernels = armlower::kernels;
  using kernels::status;
  CHECK(run::code_of(status::value_out_of_range) == armlower::errc::require);
  CHECK(run::code_of(status::shift_out_of_range) == armlower::errc::require);
  CHECK(run::code_of(status::multiplier_out_of_range) == armlower::errc::require);
  CHECK(run::code_of(status::unsupported_type) == armlower::errc::unsupported);
  CHECK(run::code_of(status::null_pointer) == armlower::errc::kernel);
  CHECK(run::code_of(status::unsupported_path) == armlower::errc::kernel);
  CHECK(run::code_of(status::zero_point_out_of_range) == armlower::errc::error_if);
  CHECK(run::code_of(status::bad_block_dim) == armlower::errc::error_if);
  armlower::location at;
  at.op = "MATMUL";
  const auto e = run::from_status(status::value_out_of_range, at, "MATMUL accumulator");
  CHECK(e.code() == armlower::errc::require);
  CHECK(e.where().op == "MATMUL");
  CHECK(e.message() == std::string("kernel: ") + kernels::to_string(status::value_out_of_range) + " (MATMUL accumulator)");
}
