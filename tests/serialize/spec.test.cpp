// Spec-aware writing: a run-time target (tosa::parse) gives the same bytes as the format-only
// writer for legal graphs, and the op table's reasons (errc::not_legal, with the operator's
// index, op and tensor in the location) for illegal ones.
#include "sample_graphs.hpp"

#include <armlower/serialize.hpp>
#include <armlower/tosa.hpp>

#include <doctest/doctest.h>

using namespace armlower;

namespace {
tosa::target target(std::string_view s) {
  const auto r = tosa::parse(s);
  REQUIRE(r.ok());
  return r.value;
}
template <class R>
std::string err(const R& r) {
  return r.has_value() ? std::string("<no error>") : r.error().line();
}
}  // namespace

TEST_CASE("legal graphs: run-time-target and format-only writers agree byte for byte") {
  const auto check = [](const graph::graph& g, serialize::format f, std::string_view text) {
    const auto plain = serialize::write(g, f);
    const auto rt = serialize::write(g, target(text));
    REQUIRE_MESSAGE(plain.has_value(), err(plain));
    REQUIRE_MESSAGE(rt.has_value(), err(rt));
    CHECK(*rt == *plain);
  };
  check(sample::int8_linear(), serialize::format::tosa_1_0, "TOSA-1.0+INT+int16");
  check(sample::a16w8_linear(), serialize::format::tosa_1_0, "TOSA-1.0+INT+int16");
  check(sample::int8_matmul(), serialize::format::tosa_1_0, "TOSA-1.0+INT+int16");
  check(sample::fp32_misc(false), serialize::format::tosa_1_0, "TOSA-1.0+INT+FP");
  for (auto e : {dtype::id::fp8e4m3, dtype::id::fp8e5m2, dtype::id::fp6e2m3, dtype::id::fp6e3m2, dtype::id::fp4e2m1})
    check(sample::mxfp_linear(e), serialize::format::tosa_1_1, "TOSA-1.1+FP+mxfp");
}

TEST_CASE("illegal graphs: the error names the operator, its tensors and the op table's rule") {
  // a16w8 without int16.
  const auto a16 = serialize::write(sample::a16w8_linear(), target("TOSA-1.0+INT"));
  REQUIRE_FALSE(a16.has_value());
  CHECK(a16.error().code() == errc::not_legal);
  CHECK(a16.error().where().stage == "writer");
  CHECK(a16.error().where().graph_op == 0);
  CHECK(a16.error().where().op == "CONV2D");
  CHECK(a16.error().where().tensor == "acc");
  CHECK(a16.error().message() ==
        "CONV2D i16\u00d7i8\u2192i48 requires EXT-INT16; TOSA-1.0+INT does not enable it "
        "(inputs 'x', 'w', 'b', 'x_zp', 'w_zp'; output 'acc')");
  CHECK(err(a16) == "writer: op #0 CONV2D, tensor 'acc': " + a16.error().message());
  // MXFP on a 1.0 target: the format cannot carry the op.
  const auto mx10 = serialize::write(sample::mxfp_linear(dtype::id::fp8e4m3), target("TOSA-1.0+FP"));
  REQUIRE_FALSE(mx10.has_value());
  CHECK(mx10.error().code() == errc::unsupported);
  CHECK(err(mx10) == "writer: op #0 CAST_TO_BLOCK_SCALED: needs TOSA 1.1 draft; the target format is TOSA 1.0");
  // MXFP on 1.1 without the mxfp extension.
  const auto nmx = serialize::write(sample::mxfp_linear(dtype::id::fp4e2m1), target("TOSA-1.1+FP"));
  REQUIRE_FALSE(nmx.has_value());
  CHECK(nmx.error().code() == errc::not_legal);
  CHECK(nmx.error().where().op == "CAST_TO_BLOCK_SCALED");
  CHECK(nmx.error().where().graph_op == 0);
  CHECK(nmx.error().where().tensor == "xq");
  CHECK(nmx.error().message().find("CAST_TO_BLOCK_SCALED") == 0);
  CHECK(nmx.error().message().find("requires EXT-MXFP; TOSA-1.1+FP does not enable it (inputs 'x'; output 'xq')") !=
        std::string::npos);
  // An int8 graph on an FP-only target.
  const auto fp_only = serialize::write(sample::int8_matmul(), target("TOSA-1.0+FP"));
  REQUIRE_FALSE(fp_only.has_value());
  CHECK(fp_only.error().where().op == "MATMUL");
  CHECK(fp_only.error().where().graph_op == 0);
  CHECK(fp_only.error().message().find("MATMUL i8\u00d7i8\u2192i32 requires PRO-INT") == 0);
  CHECK(fp_only.error().message().find("(inputs 'a', 'b', 'a_zp', 'b_zp'; output 'y')") != std::string::npos);
  // A float graph on an INT-only target: tensor gating.
  const auto fl = serialize::write(sample::fp32_misc(false), target("TOSA-1.0+INT"));
  REQUIRE_FALSE(fl.has_value());
  CHECK(fl.error().code() == errc::not_legal);
  CHECK(fl.error().where().op == "TRANSPOSE");
  CHECK(fl.error().where().graph_op == 0);
}

TEST_CASE("slot_dtypes follows the op table's slot order") {
  const auto g = sample::mxfp_linear(dtype::id::fp6e3m2);
  std::array<dtype::id, 3> d{};
  REQUIRE(serialize::slot_dtypes(g, g.operators[0], d) == 2);
  CHECK(d[0] == dtype::id::fp32);
  CHECK(d[1] == dtype::id::fp6e3m2);
  REQUIRE(serialize::slot_dtypes(g, g.operators[1], d) == 2);
  CHECK(d[0] == dtype::id::fp6e3m2);
  CHECK(d[1] == dtype::id::fp6e3m2);
  const auto c = sample::a16w8_linear();
  REQUIRE(serialize::slot_dtypes(c, c.operators[0], d) == 3);
  CHECK(d == std::array<dtype::id, 3>{dtype::id::i16, dtype::id::i8, dtype::id::i48});
}
