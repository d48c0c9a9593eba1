// Spec-string parsing and printing against ExecuTorch's specification.py behaviour as
// recorded in ../shared/reference/executorch-arm.md §1.1–1.3 (the oracle: every case below is
// a rule or example stated there; expected values are written from that text).
#include <doctest/doctest.h>

#include <armlower/tosa.hpp>

#include <string>
#include <string_view>

using namespace armlower::tosa;

namespace {
std::string printed(std::string_view s) {
  const auto r = parse(s);
  REQUIRE_MESSAGE(r.ok(), s << ": " << r.message());
  return std::string(r.value.text().view());
}
parse_errc error_of(std::string_view s) { return parse(s).error; }
}  // namespace

TEST_CASE("spec strings from the reference round-trip exactly") {
  // §1.3: "Tests assert str(spec) == input" for these, plus §1.1/§1.2 examples.
  for (std::string_view s : {
           "TOSA-1.0+INT+int16", "TOSA-1.1+FP+mxfp", "TOSA-1.0+FP+cf+bf16+8k",
           "TOSA-1.1.0+INT+shape+int64+u55", "TOSA-1.0.0+INT", "TOSA-1.0+INT",
           "TOSA-1.0+FP", "TOSA-1.1+INT", "TOSA-1.1+FP",
           "TOSA-1.0+INT+int16+int4+var+cf+8k+u55", "TOSA-1.0+FP+bf16+fp8e4m3+fp8e5m2+fft+var+cf",
           "TOSA-1.1+INT+shape+int64+int16+int4+var+cf+u55",
           "TOSA-1.1+FP+shape+int64+bf16+fp8e4m3+fp8e5m2+fft+var+cf+random+mxfp+blockscale_ue5m3",
           "TOSA-1.0+INT+FP", "TOSA-1.0+FP+INT", "TOSA-1.0+INT+FP+int16+bf16",
           "TOSA-1.1.0+FP+mxfp+8k"}) {
    CAPTURE(s);
    CHECK(printed(s) == s);
    // Printing is a fixed point of parsing.
    CHECK(parse(printed(s)).value == parse(s).value);
  }
}

TEST_CASE("version prints as written, normalised per component (packaging.Version)") {
  CHECK(printed("TOSA-1.0.0+INT") == "TOSA-1.0.0+INT");
  CHECK(printed("TOSA-1.0+INT") == "TOSA-1.0+INT");
  CHECK(printed("TOSA-1.00+INT") == "TOSA-1.0+INT");
  CHECK(printed("TOSA-1+INT") == "TOSA-1+INT");  // minor defaults to 0 → 1.0
  CHECK(parse("TOSA-1+INT").value.tosa_version() == version::v1_0);
  CHECK(parse("TOSA-1.1.5+FP").value.tosa_version() == version::v1_1);
  CHECK(parse("TOSA-1.0.0+INT").value.tosa_version() == version::v1_0);
}

TEST_CASE("token order: profiles, then extensions, then +8k, then +u55") {
  CHECK(printed("TOSA-1.0+int16+INT") == "TOSA-1.0+INT+int16");
  CHECK(printed("TOSA-1.0+8k+INT") == "TOSA-1.0+INT+8k");
  CHECK(printed("TOSA-1.0+u55+INT+8k") == "TOSA-1.0+INT+8k+u55");
  CHECK(printed("TOSA-1.0+FP+cf+bf16") == "TOSA-1.0+FP+cf+bf16");  // extensions keep their order
}

TEST_CASE("ExecuTorch quirks are reproduced") {
  SUBCASE("FP+FP passes the profile count") {
    const auto r = parse("TOSA-1.0+FP+FP");
    REQUIRE(r.ok());
    CHECK(r.value.profile_count == 2);
    CHECK(r.value.support_float());
    CHECK_FALSE(r.value.support_integer());
    CHECK(printed("TOSA-1.0+FP+FP") == "TOSA-1.0+FP+FP");
  }
  SUBCASE("u55 is removed first, so it is accepted with any profile and is not an extension") {
    const auto r = parse("TOSA-1.0+FP+u55");
    REQUIRE(r.ok());
    CHECK(r.value.u55);
    CHECK_FALSE(r.value.supports(ext::u55));
    const auto i = parse("TOSA-1.0+INT+u55");
    REQUIRE(i.ok());
    CHECK(i.value.u55);
    CHECK(i.value.extension_count == 0);
    CHECK_FALSE(i.value.supports(ext::u55));
  }
  SUBCASE("a repeated u55 is an INT extension token") {
    const auto r = parse("TOSA-1.0+INT+u55+u55");
    REQUIRE(r.ok());
    CHECK(r.value.u55);
    CHECK(r.value.supports(ext::u55));
    CHECK(printed("TOSA-1.0+INT+u55+u55") == "TOSA-1.0+INT+u55+u55");
    CHECK(error_of("TOSA-1.0+FP+u55+u55") == parse_errc::bad_extension);
  }
  SUBCASE("duplicate extensions are kept") {
    CHECK(printed("TOSA-1.0+INT+int16+int16") == "TOSA-1.0+INT+int16+int16");
  }
  SUBCASE("only one 8k is consumed") {
    CHECK(error_of("TOSA-1.0+INT+8k+8k") == parse_errc::bad_extension);
    CHECK(parse("TOSA-1.0+INT+8k+8k").token() == "8k");
  }
  SUBCASE("one trailing newline is tolerated by Python's $") {
    CHECK(printed("TOSA-1.0+INT\n") == "TOSA-1.0+INT");
    CHECK(error_of("TOSA-1.0+INT\nx") == parse_errc::failed_to_parse);
  }
}

TEST_CASE("every rejection case names what is wrong") {
  struct rejection {
    std::string_view text;
    parse_errc code;
    std::string_view token;
  };
  for (const rejection& c : {
           rejection{"", parse_errc::failed_to_parse, ""},
           rejection{"TOSA", parse_errc::failed_to_parse, "TOSA"},
           rejection{"TOSA-1.0", parse_errc::failed_to_parse, "TOSA-1.0"},
           rejection{"TOSA-1.0+", parse_errc::failed_to_parse, "TOSA-1.0+"},
           rejection{"tosa-1.0+INT", parse_errc::failed_to_parse, "tosa-1.0+INT"},
           rejection{"TOSA-+INT", parse_errc::failed_to_parse, "TOSA-+INT"},
           rejection{"TOSA-v1.0+INT", parse_errc::failed_to_parse, "TOSA-v1.0+INT"},
           rejection{"TOSA_1.0+INT", parse_errc::failed_to_parse, "TOSA_1.0+INT"},
           rejection{"TOSA-1.0-INT", parse_errc::failed_to_parse, "TOSA-1.0-INT"},
           rejection{"TOSA-1..0+INT", parse_errc::invalid_version, "1..0"},
           rejection{"TOSA-1.+INT", parse_errc::invalid_version, "1."},
           rejection{"TOSA-.1+INT", parse_errc::invalid_version, ".1"},
           rejection{"TOSA-2.0+INT", parse_errc::wrong_version, "2.0"},
           rejection{"TOSA-0.80+INT", parse_errc::wrong_version, "0.80"},
           rejection{"TOSA-1.2+FP", parse_errc::wrong_version, "1.2"},
           rejection{"TOSA-1.10+FP", parse_errc::wrong_version, "1.10"},
           rejection{"TOSA-1.0+int16", parse_errc::no_profile, "int16"},
           rejection{"TOSA-1.0+int", parse_errc::no_profile, "int"},
           rejection{"TOSA-1.0+u55", parse_errc::no_profile, "u55"},
           rejection{"TOSA-1.0+8k", parse_errc::no_profile, "8k"},
           rejection{"TOSA-1.0+INT+FP+INT", parse_errc::too_many_profiles, "INT"},
           rejection{"TOSA-1.0+FP+FP+INT", parse_errc::too_many_profiles, "INT"},
           rejection{"TOSA-1.1+INT+mxfp", parse_errc::bad_extension, "mxfp"},
           rejection{"TOSA-1.0+FP+mxfp", parse_errc::bad_extension, "mxfp"},
           rejection{"TOSA-1.0.0+INT+INT4+cf", parse_errc::bad_extension, "INT4"},
           rejection{"TOSA-1.0+INT+bf16", parse_errc::bad_extension, "bf16"},
           rejection{"TOSA-1.0+FP+int16", parse_errc::bad_extension, "int16"},
           rejection{"TOSA-1.0+INT+shape", parse_errc::bad_extension, "shape"},
           rejection{"TOSA-1.0+FP+random", parse_errc::bad_extension, "random"},
           rejection{"TOSA-1.1+INT+random", parse_errc::bad_extension, "random"},
           rejection{"TOSA-1.1+INT+blockscale_ue5m3", parse_errc::bad_extension, "blockscale_ue5m3"},
           rejection{"TOSA-1.0+INT+8K", parse_errc::bad_extension, "8K"},
           rejection{"TOSA-1.0+INT+U55", parse_errc::bad_extension, "U55"},
           rejection{"TOSA-1.0+INT++int16", parse_errc::bad_extension, ""},
           rejection{"TOSA-1.0+INT+", parse_errc::bad_extension, ""},
           rejection{"TOSA-1.0+FP+doubleround", parse_errc::bad_extension, "doubleround"},
       }) {
    CAPTURE(c.text);
    const auto r = parse(c.text);
    CHECK_FALSE(r.ok());
    CHECK(r.error == c.code);
    CHECK(r.token() == c.token);
    CHECK_FALSE(r.message().empty());
    if (!c.token.empty()) CHECK(r.message().find(c.token) != std::string_view::npos);
  }
}

TEST_CASE("bad-extension message names the token and the valid ones") {
  const auto r = parse("TOSA-1.0+FP+mxfp");
  CHECK(r.message() ==
        "Bad extension for TOSA-1.0+FP: mxfp (valid: var, cf, bf16, fp8e4m3, fp8e5m2, fft, dynamic)");
}

TEST_CASE("valid extensions per version and profile match ExecuTorch's lists (§1.2)") {
  auto accepts = [](std::string_view base, std::string_view e) {
    return parse(std::string(base) + "+" + std::string(e)).ok();
  };
  const std::string_view all[] = {"int16", "int4", "var", "cf", "u55", "bf16", "fp8e4m3",
                                  "fp8e5m2", "fft", "shape", "int64", "random", "mxfp",
                                  "blockscale_ue5m3"};
  auto in = [](std::string_view e, std::initializer_list<std::string_view> list) {
    for (auto x : list)
      if (x == e) return true;
    return false;
  };
  for (auto e : all) {
    CAPTURE(e);
    CHECK(accepts("TOSA-1.0+INT", e) == in(e, {"int16", "int4", "var", "cf", "u55"}));
    CHECK(accepts("TOSA-1.0+FP", e) == in(e, {"bf16", "fp8e4m3", "fp8e5m2", "fft", "var", "cf", "u55"}));
    CHECK(accepts("TOSA-1.1+INT", e) ==
          in(e, {"shape", "int64", "int16", "int4", "var", "cf", "u55"}));
    CHECK(accepts("TOSA-1.1+FP", e) == in(e, {"shape", "int64", "bf16", "fp8e4m3", "fp8e5m2", "fft",
                                              "var", "cf", "random", "mxfp", "blockscale_ue5m3", "u55"}));
    // "u55" in the FP rows above is the subset flag (removed before validation), not an extension.
  }
}

TEST_CASE("armlower additions: doubleround, inexactround (INT), dynamic (INT or FP)") {
  CHECK(printed("TOSA-1.0+INT+doubleround+inexactround+dynamic") ==
        "TOSA-1.0+INT+doubleround+inexactround+dynamic");
  CHECK(parse("TOSA-1.0+FP+dynamic").ok());
  CHECK(parse("TOSA-1.1+INT+doubleround").value.supports(ext::doubleround));
}

TEST_CASE("support_integer / support_float / supports (§1.3)") {
  const auto t = parse("TOSA-1.0+INT+FP+int16+bf16").value;
  CHECK(t.support_integer());
  CHECK(t.support_float());
  CHECK(t.supports(ext::int16));
  CHECK(t.supports(ext::bf16));
  CHECK_FALSE(t.supports(ext::int4));
  const auto i = parse("TOSA-1.0+INT+int16+8k").value;
  CHECK(i.support_integer());
  CHECK_FALSE(i.support_float());
  CHECK(i.level() == level::eight_k);
  CHECK(limits(i.level()).max_rank == 6);
  // supports() needs the extension to be valid for an active profile, not only listed.
  const auto forged = target::make(version::v1_0, profile::pro_int, ext::bf16);
  CHECK_FALSE(forged.valid());
  CHECK_FALSE(forged.supports(ext::bf16));
  const auto made = target::make(version::v1_0, profile::pro_int, ext::int16, level::eight_k);
  CHECK(made.valid());
  CHECK(to_string(made) == "TOSA-1.0+INT+int16+8k");
}

TEST_CASE("equality as ExecuTorch: version (major, minor) and profiles only") {
  CHECK(same_base(parse("TOSA-1.0+INT+int16").value, parse("TOSA-1.0.0+INT").value));
  CHECK(same_base(parse("TOSA-1.0+INT+u55+8k").value, parse("TOSA-1.0+INT").value));
  CHECK_FALSE(same_base(parse("TOSA-1.0+INT+FP").value, parse("TOSA-1.0+FP+INT").value));
  CHECK_FALSE(same_base(parse("TOSA-1.0+INT").value, parse("TOSA-1.1+INT").value));
  CHECK(to_string(canonical(parse("TOSA-1.0+INT+int16+8k+u55").value)) == "TOSA-1.0.0+INT");
  CHECK(to_string(canonical(parse("TOSA-1.1+FP+INT+mxfp").value)) == "TOSA-1.1.0+FP+INT");
}

TEST_CASE("levels: none and 8K limits (tosa.md §2.3)") {
  CHECK(limits(level::none) == level_limits{32, 2147483647, 2147483647, 2048, 63, 256, 256, 64});
  CHECK(limits(level::eight_k) == level_limits{6, 8192, 8192, 256, 31, 6, 64, 16});
}

TEST_CASE("spec<...> is a type with a constexpr value") {
  using T = spec<"TOSA-1.1+FP+mxfp">;
  static_assert(T::supports(ext::mxfp));
  static_assert(T::support_float() && !T::support_integer());
  static_assert(T::value.tosa_version() == version::v1_1);
  static_assert(!valid_spec_string<"TOSA-1.0+FP+mxfp">);
  CHECK(T::string == "TOSA-1.1+FP+mxfp");
  CHECK(T::value.text().view() == T::string);
}

TEST_CASE("armlower capacity limits are errors, not truncation") {
  CHECK(printed("TOSA-1.0.0.0+INT") == "TOSA-1.0.0.0+INT");
  CHECK(error_of("TOSA-1.0.0.0.0+INT") == parse_errc::too_long);
  std::string many = "TOSA-1.0+INT";
  for (int i = 0; i < 32; ++i) many += "+cf";
  CHECK(parse(many).ok());
  CHECK(parse(many).value.extension_count == 32);
  CHECK(error_of(many + "+cf") == parse_errc::too_long);
  CHECK(error_of("TOSA-99999999999.0+INT") == parse_errc::wrong_version);
}
