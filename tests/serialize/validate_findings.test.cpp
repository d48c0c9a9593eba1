// passes::validate_graph reports EVERY finding (one diagnostic per broken tensor rule and per
// failing operator), each with a code and a location; passes::validate keeps the first.
// Expected findings follow the TOSA 1.0 type-support tables (CONV2D i16×i8→i48 and RESCALE
// i48→i16 need EXT-INT16) and the ERROR_IFs of CLAMP (max_val < min_val) and ADD (broadcast).
#include "sample_graphs.hpp"

#include <armlower/passes/validate.hpp>
#include <armlower/tosa.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace armlower;

namespace {
tosa::target target(std::string_view s) {
  const auto r = tosa::parse(s);
  REQUIRE(r.ok());
  return r.value;
}
const diagnostic* find_op(const armlower::error& e, std::int64_t graph_op) {
  for (const auto& d : e.diagnostics())
    if (d.where.graph_op == graph_op) return &d;
  return nullptr;
}
}  // namespace

TEST_CASE("validate_graph: a legal graph has no findings") {
  CHECK(passes::validate_graph(sample::fp32_misc(false), target("TOSA-1.0+INT+FP")).has_value());
}

TEST_CASE("validate_graph: the a16w8 graph without int16 — every op finding, not the first") {
  const auto g = sample::a16w8_linear();
  const auto r = passes::validate_graph(g, target("TOSA-1.0+INT"));
  REQUIRE_FALSE(r.has_value());
  const auto& e = r.error();
  for (const auto& d : e.diagnostics()) CHECK(d.where.stage == "Validate");
  std::size_t conv = 0, rescale = 0;
  for (std::size_t i = 0; i < g.operators.size(); ++i) {
    if (g.operators[i].tosa_op() == tosa::op::conv2d) conv = i;
    if (g.operators[i].tosa_op() == tosa::op::rescale) rescale = i;
  }
  const auto* c = find_op(e, static_cast<std::int64_t>(conv));
  REQUIRE(c != nullptr);
  CHECK(c->code == errc::not_legal);
  CHECK(c->where.op == "CONV2D");
  CHECK(c->message.find("requires EXT-INT16") != std::string::npos);
  const auto* s = find_op(e, static_cast<std::int64_t>(rescale));
  REQUIRE(s != nullptr);
  CHECK(s->code == errc::not_legal);
  CHECK(s->where.op == "RESCALE");
  CHECK(e.text().find('\n') != std::string::npos);  // several lines
  // The pass form reports the same findings (first one first), under stage "Validate".
  passes::report rep;
  const auto v = passes::validate(g, target("TOSA-1.0+INT"), rep);
  REQUIRE_FALSE(v.has_value());
  CHECK(v.error().message() == e.message());
  CHECK(v.error().diagnostics().size() == e.diagnostics().size());
  CHECK(v.error().where().stage == "Validate");
}

TEST_CASE("validate_graph: two ERROR_IFs in different ops are both reported, with op index and tensor") {
  auto g = sample::fp32_misc(false);
  g.find("s")->shape = {4, 3};                                   // ADD [4,2] + [1,2] cannot give [4,3]
  std::get<graph::clamp_attr>(g.operators[3].attr).min_val = 5;  // CLAMP max_val < min_val
  const auto r = passes::validate_graph(g, target("TOSA-1.0+INT+FP"));
  REQUIRE_FALSE(r.has_value());
  const auto* add = find_op(r.error(), 1);
  REQUIRE(add != nullptr);
  CHECK(add->code == errc::error_if);
  CHECK(add->where.op == "ADD");
  CHECK(add->where.tensor == "s");
  CHECK(add->line().find("Validate: op #1 ADD, tensor 's': ERROR_IF: ADD shapes") == 0);
  const auto* clamp = find_op(r.error(), 3);
  REQUIRE(clamp != nullptr);
  CHECK(clamp->code == errc::error_if);
  CHECK(clamp->message == "max_val < min_val (TOSA ERROR_IF)");
}

TEST_CASE("validate_graph: operand counts come from the op descriptor") {
  auto g = sample::fp32_misc(false);
  g.operators[2].inputs.pop_back();  // MUL without its shift
  const auto r = passes::validate_graph(g, target("TOSA-1.0+INT+FP"));
  REQUIRE_FALSE(r.has_value());
  const auto* mul = find_op(r.error(), 2);
  REQUIRE(mul != nullptr);
  CHECK(mul->code == errc::invalid_graph);
  CHECK(mul->message == "MUL takes 3 operand(s) and 1 result(s), got 2 and 1");
}
