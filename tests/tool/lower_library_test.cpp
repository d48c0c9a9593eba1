// armlower::lower (include/armlower/lower.hpp) gives a library user the CLI's behaviour: the same
// scheme choice, rounding and calibration defaults, and the same output bytes as `armlower lower`
// for a quantized .tflite model (hello_world_int8) and a float one (hello_world_float), for TOSA
// targets and a Cortex-M ISA. Oracle: the `armlower` binary's output files and reports.
#include <armlower/import/tflite.hpp>
#include <armlower/lower.hpp>
#include <armlower/passes/cortex_m_emit.hpp>
#include <armlower/serialize/writer.hpp>

#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "tool_process.hpp"

using namespace armlower;
using armlower_test::run_tool;
using armlower_test::slurp;
using armlower_test::tmp_dir;

namespace {

const std::string models = ARMLOWER_SHARED_DATA "/tflite/";

graph::graph import_model(const std::string& name) {
  auto r = import::import_tflite_file(models + name);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().text()));
  return std::move(r->graph);
}

tosa::target spec(const char* s) {
  const auto r = tosa::parse(s);
  REQUIRE(r.ok());
  return r.value;
}

/// The .tosa bytes a library user writes for `l` (the version's flatbuffer format).
std::string tosa_bytes(const tosa_lowering& l, const tosa::target& t) {
  auto b = serialize::write(l.graph, serialize::format_of(t.tosa_version()));
  REQUIRE(b.has_value());
  return {b->begin(), b->end()};
}

/// `armlower lower <model> --spec <s> -o <out>`: its output file (the run must succeed).
std::string cli_tosa(const std::string& model, const char* s, const std::string& out) {
  const auto path = tmp_dir() / out;
  const auto o = run_tool("-q lower " + models + model + " --spec " + s + " -o " + path.string());
  INFO(o.err);
  REQUIRE(o.rc == 0);
  return slurp(path);
}

}  // namespace

TEST_CASE("quantized hello_world_int8: library and CLI choose int8 and write the same .tosa") {
  const auto g = import_model("hello_world_int8.tflite");
  CHECK(armlower::is_quantized(g));
  for (const char* s : {"TOSA-1.0+INT", "TOSA-1.0+INT+doubleround"}) {
    INFO(s);
    const auto t = spec(s);
    const auto l = armlower::lower(g, t);
    REQUIRE_MESSAGE(l.has_value(), (l ? "" : l.error().text()));
    CHECK(l->scheme == passes::scheme::int8);
    // the rounding policy: DOUBLE_ROUND exactly when the target has EXT-DOUBLEROUND
    CHECK(l->rounding == (t.supports(tosa::ext::doubleround) ? tosa::rounding_mode::double_round
                                                              : tosa::rounding_mode::single_round));
    CHECK_FALSE(l->calibrated_by_default);
    CHECK(l->report.scheme == "int8");
    CHECK(tosa_bytes(*l, t) == cli_tosa("hello_world_int8.tflite", s, std::string("hw_") + (l->rounding == tosa::rounding_mode::double_round ? "d" : "s") + ".tosa"));
  }
}

TEST_CASE("float hello_world_float: default calibration and scheme as the CLI, same bytes") {
  const auto g = import_model("hello_world_float.tflite");
  CHECK_FALSE(armlower::is_quantized(g));
  // int8 on an integer target, calibrated on graph::default_calibration
  const auto ti = spec("TOSA-1.0+INT");
  const auto li = armlower::lower(g, ti);
  REQUIRE_MESSAGE(li.has_value(), (li ? "" : li.error().text()));
  CHECK(li->scheme == passes::scheme::int8);
  CHECK(li->calibrated_by_default);
  CHECK(li->input_quant.has_value());
  CHECK(tosa_bytes(*li, ti) == cli_tosa("hello_world_float.tflite", "TOSA-1.0+INT", "hf_int8.tosa"));
  // the explicit default calibration gives the same graph (the default is graph::default_calibration)
  lower_options o;
  o.calibration = graph::default_calibration(armlower::input_features(g));
  const auto le = armlower::lower(g, ti, o);
  REQUIRE(le.has_value());
  CHECK_FALSE(le->calibrated_by_default);
  CHECK(tosa_bytes(*le, ti) == tosa_bytes(*li, ti));
  // mxfp8_e4m3 on a float-only MX target
  const auto tm = spec("TOSA-1.1+FP+mxfp");
  const auto lm = armlower::lower(g, tm);
  REQUIRE_MESSAGE(lm.has_value(), (lm ? "" : lm.error().text()));
  CHECK(lm->scheme == passes::scheme::mxfp8_e4m3);
  CHECK(armlower::default_scheme(g, tm.support_integer()) == passes::scheme::mxfp8_e4m3);
  CHECK(tosa_bytes(*lm, tm) == cli_tosa("hello_world_float.tflite", "TOSA-1.1+FP+mxfp", "hf_mx.tosa"));
}

TEST_CASE("Cortex-M: library plan header equals the CLI's for the quantized and the float model") {
  for (const char* model : {"hello_world_int8.tflite", "hello_world_float.tflite"}) {
    INFO(model);
    const auto g = import_model(model);
    const auto c = armlower::lower(g, cortex_m::isa::mve);
    REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().text()));
    CHECK(c->scheme == passes::scheme::int8);
    CHECK(c->calibrated_by_default == !armlower::is_quantized(g));
    const auto path = tmp_dir() / "plan.hpp";
    const auto o = run_tool("-q lower " + models + model + " --target cortex-m55 -o " + path.string());
    INFO(o.err);
    REQUIRE(o.rc == 0);
    CHECK(passes::emit_plan_header(c->program, "plan") == slurp(path));
  }
}

TEST_CASE("the library refuses what the CLI refuses, with a code and the same message") {
  const auto gf = import_model("hello_world_float.tflite");
  const auto gq = import_model("hello_world_int8.tflite");
  lower_options a16;
  a16.scheme = passes::scheme::a16w8;
  const auto nl = armlower::lower(gf, spec("TOSA-1.0+INT"), a16);
  REQUIRE_FALSE(nl);
  CHECK(nl.error().code() == errc::not_legal);
  CHECK(nl.error().message().find("scheme a16w8 is not legal for TOSA-1.0+INT") == 0);
  const auto cli = run_tool("lower " + models + "hello_world_float.tflite --spec TOSA-1.0+INT --scheme a16w8 -o " +
                            (tmp_dir() / "no.tosa").string());
  CHECK(cli.rc == 1);
  CHECK(cli.err.find(nl.error().message()) != std::string::npos);
  lower_options mx;
  mx.scheme = passes::scheme::mxfp4;
  const auto q = armlower::lower(gq, spec("TOSA-1.1+FP+mxfp"), mx);
  REQUIRE_FALSE(q);
  CHECK(q.error().code() == errc::invalid_argument);
  const auto cm = armlower::lower(gf, cortex_m::isa::dsp, mx);
  REQUIRE_FALSE(cm);
  CHECK(cm.error().code() == errc::unsupported);
  CHECK(cm.error().message().find("has no Cortex-M lowering") != std::string::npos);
  lower_options bad;
  bad.calibration = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  CHECK_FALSE(armlower::lower(gf, spec("TOSA-1.0+INT"), bad).has_value());
}
