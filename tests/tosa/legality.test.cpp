// Legality verdicts and reasons. Expected requirements come from ../shared/reference/tosa.md §3
// (which rows need which profile/extension and version) and the tensor gating rules from
// reference/executorch-arm.md §2.3; the reason sentences are the ones the issue asks for.
#include <doctest/doctest.h>

#include <armlower/armlower.hpp>

#include <array>
#include <string>

using namespace armlower;
using namespace armlower::tosa;
using dtype::id;

namespace {
target t(std::string_view s) {
  const auto r = parse(s);
  REQUIRE_MESSAGE(r.ok(), r.message());
  return r.value;
}
}  // namespace

TEST_CASE("a16w8 CONV2D needs EXT-INT16") {
  const std::array<id, 3> sig{id::i16, id::i8, id::i48};
  const auto yes = check(t("TOSA-1.0+INT+int16"), op::conv2d, sig);
  CHECK(yes.ok());
  CHECK(yes.code == verdict::legal);
  const auto no = check(t("TOSA-1.0+INT"), op::conv2d, sig);
  CHECK_FALSE(no.ok());
  CHECK(no.code == verdict::needs_extension);
  CHECK(no.reason() == "CONV2D i16\u00d7i8\u2192i48 requires EXT-INT16; TOSA-1.0+INT does not enable it");
  CHECK(explain(t("TOSA-1.0+INT"), op::conv2d, sig) == std::string(no.reason()));
}

TEST_CASE("reasons for missing rows, versions and profiles") {
  CHECK(check(t("TOSA-1.0+INT"), op::conv2d, id::fp8e4m3, id::i8, id::i32).reason() ==
        "no CONV2D row for fp8e4m3\u00d7i8\u2192i32");
  const auto v = check(t("TOSA-1.0+FP"), op::matmul_t_block_scaled, id::fp8e4m3, id::fp8e4m3);
  CHECK(v.code == verdict::needs_version);
  CHECK(v.reason() == "MATMUL_T_BLOCK_SCALED needs TOSA 1.1 (target is 1.0)");
  const auto v2 = check(t("TOSA-1.0+FP+fp8e4m3"), op::conv2d, id::fp8e4m3, id::fp8e4m3, id::fp32);
  CHECK(v2.code == verdict::needs_version);
  CHECK(v2.reason() == "CONV2D fp8e4m3\u00d7fp8e4m3\u2192fp32 needs TOSA 1.1 (target is 1.0)");
  const auto p = check(t("TOSA-1.0+INT"), op::add, id::fp32);
  CHECK(p.code == verdict::needs_profile);
  CHECK(p.reason() == "ADD fp32 requires PRO-FP; TOSA-1.0+INT does not enable it");
  const auto a = check(t("TOSA-1.0+INT"), op::conv2d, id::i8, id::i8);
  CHECK(a.code == verdict::wrong_arity);
  CHECK(a.reason() == "CONV2D takes 3 dtypes (input, weight, output), got 2");
}

TEST_CASE("all-of requirements name the missing extension") {
  const auto r = check(t("TOSA-1.0+FP+bf16"), op::cast, id::bf16, id::fp8e4m3);
  CHECK(r.code == verdict::needs_extension);
  CHECK(r.reason() ==
        "CAST bf16\u2192fp8e4m3 requires EXT-BF16 and EXT-FP8E4M3; TOSA-1.0+FP+bf16 does not enable EXT-FP8E4M3");
  CHECK(check(t("TOSA-1.0+FP+bf16+fp8e4m3"), op::cast, id::bf16, id::fp8e4m3).ok());
}

TEST_CASE("the MXFP linear chain (ET #20065) is legal exactly on FP + mxfp, 1.1") {
  for (const char* s : {"TOSA-1.1+FP+mxfp", "TOSA-1.1.0+INT+FP+mxfp"}) {
    CAPTURE(s);
    const auto tg = t(s);
    CHECK(check(tg, op::reshape, id::fp32).ok());
    CHECK(check(tg, op::cast_to_block_scaled, id::fp32, id::fp8e4m3).ok());
    CHECK(check(tg, op::matmul_t_block_scaled, id::fp8e4m3, id::fp8e4m3).ok());
    CHECK(check(tg, op::add, id::fp32).ok());
  }
  const auto no = check(t("TOSA-1.1+FP"), op::cast_to_block_scaled, id::fp32, id::fp4e2m1);
  CHECK(no.reason() == "CAST_TO_BLOCK_SCALED fp32\u2192fp4e2m1 requires EXT-MXFP; TOSA-1.1+FP does not enable it");
  CHECK_FALSE(check(t("TOSA-1.1+FP+mxfp"), op::cast_to_block_scaled, id::bf16, id::fp4e2m1).ok());
  CHECK(check(t("TOSA-1.1+FP+mxfp+bf16"), op::cast_to_block_scaled, id::bf16, id::fp4e2m1).ok());
}

TEST_CASE("the a16w8 and int8 linear chains") {
  const auto a16 = t("TOSA-1.0+INT+int16");
  CHECK(check(a16, op::reshape, id::i16).ok());
  CHECK(check(a16, op::const_, id::i48).ok());
  CHECK(check(a16, op::rescale, id::i48, id::i16).ok());
  const auto i8 = t("TOSA-1.0+INT");
  CHECK(check(i8, op::conv2d, id::i8, id::i8, id::i32).ok());
  CHECK(check(i8, op::rescale, id::i32, id::i8).ok());
  CHECK_FALSE(check(i8, op::const_, id::i48).ok());
  CHECK_FALSE(check(i8, op::rescale, id::i48, id::i16).ok());
}

TEST_CASE("accumulator dtype of (input, weight) from the CONV2D/MATMUL rows") {
  CHECK(accumulator_dtype(id::i8, id::i8) == id::i32);
  CHECK(accumulator_dtype(id::i8, id::i4) == id::i32);
  CHECK(accumulator_dtype(id::i16, id::i8) == id::i48);
  CHECK(accumulator_dtype(id::bf16, id::bf16) == id::fp32);
  CHECK(accumulator_dtype(op::matmul, id::i16, id::i16) == id::i48);
  CHECK_FALSE(accumulator_dtype(id::fp8e4m3, id::i8).has_value());
  CHECK_FALSE(accumulator_dtype(op::add, id::i8, id::i8).has_value());
  // Target-aware: fp8 CONV2D accumulates in fp16 on 1.0, fp32 on 1.1.
  CHECK(accumulator_dtype(t("TOSA-1.0+FP+fp8e4m3"), op::conv2d, id::fp8e4m3, id::fp8e4m3) == id::fp16);
  CHECK(accumulator_dtype(t("TOSA-1.1+FP+fp8e4m3"), op::conv2d, id::fp8e4m3, id::fp8e4m3) == id::fp32);
  CHECK_FALSE(accumulator_dtype(t("TOSA-1.0+INT"), op::conv2d, id::i16, id::i8).has_value());
}

TEST_CASE("tensor dtype gating as ExecuTorch, plus FP8UE8M0/MXINT8 need mxfp") {
  struct gate {
    const char* spec;
    id d;
    bool allowed;
  };
  for (const gate& g : {
           gate{"TOSA-1.0+INT", id::fp32, false}, gate{"TOSA-1.0+FP", id::fp32, true},
           gate{"TOSA-1.0+INT", id::i4, false}, gate{"TOSA-1.0+INT+int4", id::i4, true},
           gate{"TOSA-1.0+FP", id::bf16, false}, gate{"TOSA-1.0+FP+bf16", id::bf16, true},
           gate{"TOSA-1.0+FP", id::fp8e4m3, false}, gate{"TOSA-1.0+FP+fp8e4m3", id::fp8e4m3, true},
           gate{"TOSA-1.1+FP+mxfp", id::fp8e4m3, true}, gate{"TOSA-1.1+FP+mxfp", id::fp8e5m2, true},
           gate{"TOSA-1.0+FP+fp8e4m3", id::fp8e5m2, false}, gate{"TOSA-1.1+FP", id::fp4e2m1, false},
           gate{"TOSA-1.1+FP+mxfp", id::fp4e2m1, true}, gate{"TOSA-1.1+FP", id::fp6e2m3, false},
           gate{"TOSA-1.1+FP", id::fp6e3m2, false}, gate{"TOSA-1.1+FP", id::fp8ue8m0, false},
           gate{"TOSA-1.1+FP+mxfp", id::fp8ue8m0, true}, gate{"TOSA-1.1+FP", id::mxint8, false},
           gate{"TOSA-1.0+INT", id::i16, true}, gate{"TOSA-1.0+INT", id::i48, true},  // not checked
           gate{"TOSA-1.0+INT", id::boolean, true}, gate{"TOSA-1.0+INT+u55", id::boolean, false},  // §2.4
       }) {
    CAPTURE(g.spec);
    CAPTURE(dtype::name(g.d));
    const auto r = check_tensor(t(g.spec), g.d);
    CHECK(r.ok() == g.allowed);
    CHECK(r.reason().empty() == g.allowed);
  }
  CHECK(check_tensor(t("TOSA-1.1+FP"), id::fp8ue8m0).reason() ==
        "TOSA-1.1+FP doesn't support tensor dtype FP8UE8M0 (needs EXT-MXFP)");
}

TEST_CASE("compile-time views agree with the run-time check") {
  using I16 = spec<"TOSA-1.0+INT+int16">;
  using I = spec<"TOSA-1.0+INT">;
  static_assert(legal<I16, op::conv2d, dtype::i16, dtype::i8, dtype::i48>);
  static_assert(!legal<I, op::conv2d, dtype::i16, dtype::i8, dtype::i48>);
  static_assert(Legal<I16, op::rescale, dtype::i48, dtype::i16>);
  static_assert(!Legal<I, op::rescale, dtype::i48, dtype::i16>);
  static_assert(require<I16, op::conv2d, dtype::i16, dtype::i8, dtype::i48>);
  static_assert(legal<I16, op::conv2d, id::i16, id::i8, id::i48>);  // ids work as well as tags
  CHECK(legal<I, op::conv2d, dtype::i8, dtype::i8, dtype::i32> ==
        check(I::value, op::conv2d, id::i8, id::i8, id::i32).ok());
}

TEST_CASE("every row is legal on its minimal target, and its tensors pass dtype gating") {
  for (const auto& r : op_table) {
    // The smallest target meeting the row: its version, its profile(s) (or the profiles that
    // allow its extensions), its extension(s) (all of them, or the first for any-of).
    profile_set ps = r.req.profiles;
    ext_set es;
    for (std::size_t e = 0; e < ext_count; ++e) {
      if (!r.req.extensions.contains(static_cast<ext>(e))) continue;
      es = es | static_cast<ext>(e);
      if (r.req.profiles.empty()) ps = ps | traits(static_cast<ext>(e)).profiles;
      if (r.req.cond == condition::any_of) break;
    }
    const target t = target::make(r.added, ps, es);
    CAPTURE(to_string(t));
    CAPTURE(check(t, r.o, r.operands()).reason());
    REQUIRE(t.valid());
    CHECK(check(t, r.o, r.operands()).ok());
    for (auto d : r.operands()) {
      CAPTURE(dtype::name(d));
      CHECK(check_tensor(t, d).ok());
    }
    // One version lower, a 1.1 row is illegal.
    if (r.added == version::v1_1) {
      CHECK(check(target::make(version::v1_0, ps, {}), r.o, r.operands()).code == verdict::needs_version);
    }
  }
}

TEST_CASE("extension facts match reference/tosa.md §2.2 (required profile, version)") {
  struct row {
    ext e;
    const char* tosa_name;
    profile_set profiles;
    version added;
  };
  const profile_set INT = profile::pro_int, FP = profile::pro_fp, ANY = INT | FP;
  for (const row& x : {row{ext::int16, "EXT-INT16", INT, version::v1_0},
                       row{ext::int4, "EXT-INT4", INT, version::v1_0},
                       row{ext::bf16, "EXT-BF16", FP, version::v1_0},
                       row{ext::fp8e4m3, "EXT-FP8E4M3", FP, version::v1_0},
                       row{ext::fp8e5m2, "EXT-FP8E5M2", FP, version::v1_0},
                       row{ext::fft, "EXT-FFT", FP, version::v1_0},
                       row{ext::var, "EXT-VARIABLE", ANY, version::v1_0},
                       row{ext::cf, "EXT-CONTROLFLOW", ANY, version::v1_0},
                       row{ext::dynamic, "EXT-DYNAMIC", ANY, version::v1_0},
                       row{ext::doubleround, "EXT-DOUBLEROUND", INT, version::v1_0},
                       row{ext::inexactround, "EXT-INEXACTROUND", INT, version::v1_0},
                       row{ext::int64, "EXT-INT64", ANY, version::v1_1},
                       row{ext::shape, "EXT-SHAPE", ANY, version::v1_1},
                       row{ext::mxfp, "EXT-MXFP", FP, version::v1_1}}) {
    CAPTURE(x.tosa_name);
    CHECK(name(x.e) == x.tosa_name);
    CHECK(traits(x.e).profiles == x.profiles);
    CHECK(traits(x.e).added == x.added);
  }
}
