// Spec-aware writing: a run-time target (tosa::parse) and a compile-time target
// (tosa::spec<"...">, visitors instantiated only for the rows legal on it) give the same
// bytes as the format-only writer for legal graphs, and the op table's reasons for illegal ones.
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
  return r.has_value() ? std::string("<no error>") : r.error().message;
}
}  // namespace

TEST_CASE("legal graphs: compile-time, run-time and format-only writers agree byte for byte") {
  using T10 = tosa::spec<"TOSA-1.0+INT+int16">;
  using T10fp = tosa::spec<"TOSA-1.0+INT+FP">;
  using T11 = tosa::spec<"TOSA-1.1+FP+mxfp">;
  const auto check = [](const graph::graph& g, serialize::format f, auto spec_tag, std::string_view text) {
    using Spec = typename decltype(spec_tag)::type;
    const auto plain = serialize::write(g, f);
    const auto ct = serialize::write<Spec>(g);
    const auto rt = serialize::write(g, target(text));
    REQUIRE_MESSAGE(ct.has_value(), err(ct));
    REQUIRE_MESSAGE(rt.has_value(), err(rt));
    CHECK(*ct == *plain);
    CHECK(*rt == *plain);
  };
  check(sample::int8_linear(), serialize::format::tosa_1_0, std::type_identity<T10>{}, "TOSA-1.0+INT+int16");
  check(sample::a16w8_linear(), serialize::format::tosa_1_0, std::type_identity<T10>{}, "TOSA-1.0+INT+int16");
  check(sample::int8_matmul(), serialize::format::tosa_1_0, std::type_identity<T10>{}, "TOSA-1.0+INT+int16");
  check(sample::fp32_misc(false), serialize::format::tosa_1_0, std::type_identity<T10fp>{}, "TOSA-1.0+INT+FP");
  for (auto e : {dtype::id::fp8e4m3, dtype::id::fp8e5m2, dtype::id::fp6e2m3, dtype::id::fp6e3m2, dtype::id::fp4e2m1})
    check(sample::mxfp_linear(e), serialize::format::tosa_1_1, std::type_identity<T11>{}, "TOSA-1.1+FP+mxfp");
}

TEST_CASE("illegal graphs: the error names the operator, its tensors and the op table's rule") {
  // a16w8 without int16.
  CHECK(err(serialize::write<tosa::spec<"TOSA-1.0+INT">>(sample::a16w8_linear())) ==
        "operator 0 (CONV2D) (inputs 'x', 'w', 'b', 'x_zp', 'w_zp'; output 'acc'): CONV2D i16\u00d7i8\u2192i48 "
        "requires EXT-INT16; TOSA-1.0+INT does not enable it");
  CHECK(err(serialize::write(sample::a16w8_linear(), target("TOSA-1.0+INT"))) ==
        err(serialize::write<tosa::spec<"TOSA-1.0+INT">>(sample::a16w8_linear())));
  // MXFP on a 1.0 target: the format cannot carry the op.
  CHECK(err(serialize::write(sample::mxfp_linear(dtype::id::fp8e4m3), target("TOSA-1.0+FP"))) ==
        "operator 0 (CAST_TO_BLOCK_SCALED) needs TOSA 1.1 draft; the target format is TOSA 1.0");
  // MXFP on 1.1 without the mxfp extension.
  const auto no_mx = err(serialize::write<tosa::spec<"TOSA-1.1+FP">>(sample::mxfp_linear(dtype::id::fp4e2m1)));
  CHECK(no_mx.find("operator 0 (CAST_TO_BLOCK_SCALED) (inputs 'x'; output 'xq'): CAST_TO_BLOCK_SCALED") == 0);
  CHECK(no_mx.find("requires EXT-MXFP; TOSA-1.1+FP does not enable it") != std::string::npos);
  // An int8 graph on an FP-only target.
  const auto fp_only = err(serialize::write(sample::int8_matmul(), target("TOSA-1.0+FP")));
  CHECK(fp_only.find("operator 0 (MATMUL) (inputs 'a', 'b', 'a_zp', 'b_zp'; output 'y'): MATMUL i8\u00d7i8\u2192i32 requires PRO-INT") == 0);
  // A float graph on an INT-only target: tensor gating.
  CHECK(err(serialize::write(sample::fp32_misc(false), target("TOSA-1.0+INT"))).find("operator 0 (TRANSPOSE)") == 0);
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
  CHECK(serialize::detail::legal_rows<tosa::spec<"TOSA-1.0+INT">>::count <
        serialize::detail::legal_rows<tosa::spec<"TOSA-1.0+INT+int16">>::count);
}
