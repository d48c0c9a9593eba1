// Integer lowering (int8, a16w8): structure of the TOSA graph, errors.
#include <armlower/graph/builder.hpp>
#include <armlower/passes.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>

using namespace armlower;
using passes::scheme;

namespace {
std::vector<graph::mlp_layer> make_layers(std::vector<std::int32_t> dims, bool bias, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 0.3f);
  std::vector<graph::mlp_layer> ls;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
    graph::mlp_layer l{dims[i], dims[i + 1], {}, {}, i + 2 < dims.size() ? graph::activation::relu : graph::activation::none};
    l.weight.resize(static_cast<std::size_t>(dims[i]) * dims[i + 1]);
    for (auto& w : l.weight) w = nd(rng);
    if (bias) {
      l.bias.resize(static_cast<std::size_t>(dims[i + 1]));
      for (auto& b : l.bias) b = nd(rng);
    }
    ls.push_back(std::move(l));
  }
  return ls;
}
}  // namespace

TEST_CASE("int8 lowering produces RESHAPE, CONV2D, RESCALE, CLAMP, RESHAPE") {
  auto layers = make_layers({16, 8, 4}, true, 3);
  std::vector<float> calib(std::size_t{4} * 16);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> ud(-1, 1);
  for (auto& v : calib) v = ud(rng);
  auto ranges = graph::calibrate_mlp(layers, calib, 4);
  auto g = graph::build_quantized_mlp(layers, {4, 16}, {dtype::id::i8, false}, ranges);
  auto r = lower<tosa::spec<"TOSA-1.0+INT">, scheme::int8>(g);
  REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().line()));
  MESSAGE(r->report.to_text());
  CHECK(r->report.ops["CONV2D"] == 2);
  CHECK(r->report.ops["RESCALE"] == 2);
  CHECK(r->report.ops["CLAMP"] == 1);
  CHECK(r->report.ops["RESHAPE"] == 4);
  CHECK(r->graph.is_tosa());
}

TEST_CASE("a16w8 on TOSA-1.0+INT is an error naming EXT-INT16") {
  auto layers = make_layers({16, 4}, false, 3);
  std::vector<graph::float_range> ranges{{-1, 1}, {-2, 2}};
  auto g = graph::build_quantized_mlp(layers, {16}, {dtype::id::i16, true}, ranges);
  auto t = tosa::parse("TOSA-1.0+INT").value;
  passes::options o;
  o.sch = scheme::a16w8;
  auto r = passes::lower(t, g, o);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().line().find("EXT-INT16") != std::string::npos);
  CHECK(r.error().code() == errc::not_legal);
  CHECK(r.error().where().stage == "DecomposeLinear");
  CHECK(r.error().where().op == "CONV2D");
  auto r2 = lower<tosa::spec<"TOSA-1.0+INT+int16">, scheme::a16w8>(g);
  REQUIRE_MESSAGE(r2.has_value(), (r2 ? std::string() : r2.error().line()));
  MESSAGE(r2->report.to_text());
}

namespace {
graph::graph small_int8_graph(dtype::id act = dtype::id::i8, bool per_channel = false) {
  auto layers = make_layers({16, 4}, true, 11);
  std::vector<graph::float_range> ranges{{-1, 1}, {-3, 3}};
  return graph::build_quantized_mlp(layers, {2, 16}, {act, per_channel}, ranges);
}
passes::options with_scheme(scheme s) {
  passes::options o;
  o.sch = s;
  return o;
}
bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }
}  // namespace

TEST_CASE("run-time targets: illegal schemes and rounding modes are error values naming the rule") {
  const auto int_only = tosa::parse("TOSA-1.0+INT").value;
  // MXFP schemes lower float graphs; their emissions are illegal on these targets.
  const auto float_g = graph::build_float_mlp(make_layers({32, 4}, true, 3), {2, 32});
  auto r = passes::lower(int_only, float_g, with_scheme(scheme::mxfp8_e4m3));
  REQUIRE_FALSE(r.has_value());
  CHECK(has(r.error().text(), "CAST_TO_BLOCK_SCALED needs TOSA 1.1"));
  CHECK(r.error().code() == errc::not_legal);
  CHECK(r.error().where().stage == "RewriteMXFPLinear");
  auto r2 = passes::lower(tosa::parse("TOSA-1.1+FP").value, float_g, with_scheme(scheme::mxfp4));
  REQUIRE_FALSE(r2.has_value());
  CHECK(has(r2.error().line(), "CAST_TO_BLOCK_SCALED fp32\u2192fp4e2m1"));
  CHECK(has(r2.error().line(), "requires EXT-MXFP"));
  CHECK(r2.error().where().op == "CAST_TO_BLOCK_SCALED");
  auto o = with_scheme(scheme::int8);
  o.rounding = tosa::rounding_mode::double_round;
  auto r3 = passes::lower(int_only, small_int8_graph(), o);
  REQUIRE_FALSE(r3.has_value());
  CHECK(has(r3.error().line(), "RESCALE rounding DOUBLE_ROUND requires EXT-DOUBLEROUND"));
  CHECK(r3.error().code() == errc::not_legal);
  CHECK(r3.error().where().stage == "InsertRescale");
  CHECK(r3.error().where().op == "RESCALE");
  auto r4 = passes::lower(tosa::parse("TOSA-1.0+INT+doubleround").value, small_int8_graph(), o);
  REQUIRE_MESSAGE(r4.has_value(), (r4 ? std::string() : r4.error().line()));
  for (const auto& op : r4->graph.operators)
    if (op.tosa_op() == tosa::op::rescale)
      CHECK(std::get<graph::rescale_attr>(op.attr).rounding == tosa::rounding_mode::double_round);
  o.sch = scheme::a16w8;
  auto r5 = passes::lower(tosa::parse("TOSA-1.0+INT+int16+doubleround").value, small_int8_graph(dtype::id::i16), o);
  REQUIRE_FALSE(r5.has_value());
  CHECK(has(r5.error().line(), "DOUBLE_ROUND needs 32-bit multipliers"));
  CHECK(r5.error().code() == errc::invalid_argument);
  // Scheme/graph mismatch: an int8 graph lowered as a16w8.
  auto r6 = passes::lower(tosa::parse("TOSA-1.0+INT+int16").value, small_int8_graph(), with_scheme(scheme::a16w8));
  REQUIRE_FALSE(r6.has_value());
  CHECK(has(r6.error().line(), "needs INT16 activations"));
  CHECK(has(r6.error().line(), "op #"));
  CHECK(r6.error().code() == errc::unsupported);
  CHECK(r6.error().where().stage == "DecomposeLinear");
  CHECK(r6.error().where().op == "linear");
  CHECK((r6.error().where().op_index >= 0 || r6.error().where().graph_op >= 0));
}

TEST_CASE("bad graphs: non-constant weights, shape mismatch, float graph without calibration") {
  const auto t = tosa::parse("TOSA-1.0+INT").value;
  {
    auto g = small_int8_graph();
    for (auto& tn : g.tensors)
      if (tn.is_constant && tn.type == dtype::id::i8) {
        tn.is_constant = false;
        tn.data.clear();
        g.inputs.push_back(tn.name);
      }
    auto r = passes::lower(t, g, with_scheme(scheme::int8));
    REQUIRE_FALSE(r.has_value());
    CHECK(has(r.error().line(), "weights must be a constant"));
    CHECK(has(r.error().line(), "DecomposeLinear: op #"));
    CHECK(r.error().code() == errc::unsupported);
    CHECK(r.error().where().tensor.size() > 0);
  }
  {
    auto g = small_int8_graph();
    g.find(g.outputs[0])->shape = {2, 5};
    auto r = passes::lower(t, g, with_scheme(scheme::int8));
    REQUIRE_FALSE(r.has_value());
    CHECK(has(r.error().line(), "output shape"));
    CHECK(has(r.error().line(), g.outputs[0]));
  }
  {
    auto layers = make_layers({16, 8, 4}, true, 2);
    auto g = graph::build_float_mlp(layers, {3, 16});
    auto r = passes::lower(t, g, with_scheme(scheme::int8));
    REQUIRE_FALSE(r.has_value());
    CHECK(has(r.error().line(), "calibration"));
    // With calibration rows the float graph is quantized (ExecuTorch-style PTQ) and lowered.
    auto o = with_scheme(scheme::int8);
    o.per_channel = true;
    o.calibration.resize(std::size_t{5} * 16);
    for (std::size_t i = 0; i < o.calibration.size(); ++i) o.calibration[i] = std::sin(static_cast<float>(i));
    auto r2 = passes::lower(t, g, o);
    REQUIRE_MESSAGE(r2.has_value(), (r2 ? std::string() : r2.error().line()));
    CHECK(r2->report.passes.front().pass == "QuantizeFloatGraph");
    CHECK(r2->graph.inputs == g.inputs);
    CHECK(r2->graph.outputs == g.outputs);
    CHECK(r2->report.ops["RESCALE"] == 2);
  }
}

TEST_CASE("Validate: op table, 8K level limits, shapes; errors name op, tensor and rule") {
  auto lowered = passes::lower(tosa::parse("TOSA-1.0+INT+int16").value, small_int8_graph(dtype::id::i16, true),
                               with_scheme(scheme::a16w8));
  REQUIRE(lowered.has_value());
  passes::report rep;
  // The a16w8 graph on a target without int16.
  auto v = passes::validate(lowered->graph, tosa::parse("TOSA-1.0+INT").value, rep);
  REQUIRE_FALSE(v.has_value());
  CHECK(has(v.error().line(), "CONV2D"));
  CHECK(has(v.error().line(), "requires EXT-INT16"));
  // 8K: rank 7 tensors are illegal (MAX_RANK 6), fine without a level.
  auto g = lowered->graph;
  const std::int64_t one[1] = {0};
  auto big = graph::make_int_constant("rank7", dtype::id::i16, {1, 1, 1, 1, 1, 1, 1}, one);
  g.add(big);
  CHECK(passes::validate(g, tosa::parse("TOSA-1.0+INT+int16").value, rep).has_value());
  auto v8 = passes::validate(g, tosa::parse("TOSA-1.0+INT+int16+8k").value, rep);
  REQUIRE_FALSE(v8.has_value());
  CHECK(has(v8.error().line(), "rank7"));
  CHECK(has(v8.error().line(), "MAX_RANK 6"));
  // A RESCALE whose per-channel multiplier count does not match the channels.
  auto g2 = lowered->graph;
  for (auto& op : g2.operators)
    if (op.tosa_op() == tosa::op::rescale) {
      auto* m = g2.find(op.inputs[1]);
      m->shape = {1};
      m->data.resize(2);
    }
  auto vr = passes::validate(g2, tosa::parse("TOSA-1.0+INT+int16").value, rep);
  REQUIRE_FALSE(vr.has_value());
  CHECK(has(vr.error().line(), "RESCALE"));
  CHECK(has(vr.error().line(), "per channel"));
  // The report has a JSON form.
  const auto j = lowered->report.to_json();
  CHECK(j.front() == '{');
  CHECK(has(j, "\"passes\":[{\"pass\":\"FoldAndAnnotateQParams\""));
}

TEST_CASE("lower<Target>(g, opts): run-time scheme on a compile-time target; illegal emissions are error values") {
  using Int = tosa::spec<"TOSA-1.0+INT">;
  auto ok = lower<Int>(small_int8_graph(), with_scheme(scheme::int8));
  REQUIRE_MESSAGE(ok.has_value(), (ok ? std::string() : ok.error().line()));
  auto bad = lower<Int>(small_int8_graph(dtype::id::i16), with_scheme(scheme::a16w8));
  REQUIRE_FALSE(bad.has_value());
  CHECK(has(bad.error().line(), "CONV2D i16\u00d7i8\u2192i48 requires EXT-INT16; TOSA-1.0+INT does not enable it"));
  CHECK(bad.error().code() == errc::not_legal);
  CHECK(bad.error().where().stage == "DecomposeLinear");
  CHECK(bad.error().where().op == "CONV2D");
  // The same reason as the compile-time check (tosa::check on the compile-time target).
  CHECK(bad.error().message() ==
        tosa::check(Int::value, tosa::op::conv2d, dtype::id::i16, dtype::id::i8, dtype::id::i48).reason());
  // MXFP on an integer-only compile-time target: compiles, and is an error value.
  auto mx = lower<Int>(graph::build_float_mlp(make_layers({32, 4}, true, 3), {2, 32}), with_scheme(scheme::mxfp8_e4m3));
  REQUIRE_FALSE(mx.has_value());
  CHECK(mx.error().code() == errc::not_legal);
  CHECK(has(mx.error().text(), "CAST_TO_BLOCK_SCALED needs TOSA 1.1"));
}

TEST_CASE("passes report every finding: one diagnostic per illegal emission and per bad linear") {
  // Two linears lowered as a16w8 on a target without EXT-INT16: two CONV2D findings.
  auto layers = make_layers({16, 8, 4}, false, 3);
  std::vector<graph::float_range> ranges{{-1, 1}, {-2, 2}, {-3, 3}};
  auto g = graph::build_quantized_mlp(layers, {16}, {dtype::id::i16, true}, ranges);
  auto r = passes::lower(tosa::parse("TOSA-1.0+INT").value, g, with_scheme(scheme::a16w8));
  REQUIRE_FALSE(r.has_value());
  std::size_t conv = 0;
  for (const auto& d : r.error().diagnostics()) {
    CHECK(d.code == errc::not_legal);
    CHECK(d.where.stage == "DecomposeLinear");
    conv += d.where.op == "CONV2D" && has(d.message, "requires EXT-INT16");
  }
  CHECK(conv == 2);
  // Two linears whose weights are not constant: two DecomposeLinear findings, each naming its weight.
  auto g2 = graph::build_quantized_mlp(layers, {16}, {dtype::id::i8, false}, ranges);
  std::vector<std::string> weights;
  for (auto& tn : g2.tensors)
    if (tn.is_constant && tn.type == dtype::id::i8) {
      tn.is_constant = false;
      tn.data.clear();
      g2.inputs.push_back(tn.name);
      weights.push_back(tn.name);
    }
  REQUIRE(weights.size() == 2);
  auto r2 = passes::lower(tosa::parse("TOSA-1.0+INT").value, g2, with_scheme(scheme::int8));
  REQUIRE_FALSE(r2.has_value());
  REQUIRE(r2.error().diagnostics().size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    const auto& d = r2.error().diagnostics()[k];
    CHECK(d.code == errc::unsupported);
    CHECK(d.where.op == "linear");
    CHECK(d.where.tensor == weights[k]);
    CHECK(has(d.message, "weights must be a constant"));
  }
}
