// Issue 12 (interpreter numerics and shape safety): the FP8/FP16/BF16 CONV2D and MATMUL rows
// (the FP8 zero-point crash), what `armlower check` (passes::validate) allows by the spec (CONV2D
// acc_type, unsigned RESCALE), the one int64 CONV2D output-size rule of check and run, declared
// shapes and the per-tensor size limit checked before allocating, and a 100,000-op graph.
// Oracles: values computed by hand from the TOSA pseudocode (exact small cases) and the spec's
// ERROR_IF lists; the bulk float comparison with tosa_reference_model is run_refmodel.
#include "run_test_util.hpp"

#include <armlower/mx/element.hpp>
#include <armlower/passes/validate.hpp>
#include <armlower/tosa/spec.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace run_test;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::uint8_t fp8(id t, float v) { return armlower::mx::encode(t, v, armlower::mx::overflow::propagate); }

/// `check`'s verdict: empty when legal on `spec`, else the one-line message.
std::string check(const graph::graph& g, const char* spec) {
  namespace passes = armlower::passes;
  passes::report rep;
  const auto r = passes::validate(g, tosa::parse(spec).value, rep);
  return r.has_value() ? std::string() : r.error().line();
}

/// A one-MATMUL graph with all-constant FP8 operands A [1,1,2] and B [1,2,1] (the crash).
builder fp8_matmul(id t, id out_t, std::uint8_t a_zp_code) {
  builder b;
  b.constant("a", run::from_codes(t, {1, 1, 2}, {fp8(t, 1.5f), fp8(t, 0.5f)}));
  b.constant("b", run::from_codes(t, {1, 2, 1}, {fp8(t, 2.0f), fp8(t, -1.0f)}));
  b.constant("azp", run::from_codes(t, {1}, {a_zp_code}));
  b.constant("bzp", run::from_codes(t, {1}, {0}));
  b.declare("y", out_t, {1, 1, 1});
  b.op(tosa::op::matmul, {"a", "b", "azp", "bzp"}, {"y"});
  b.output("y");
  return b;
}

}  // namespace

TEST_CASE("FP8 MATMUL with all-constant operands runs (was a segfault: FP8 zero points read as integers)") {
  for (id t : {id::fp8e4m3, id::fp8e5m2}) {
    for (id o : {id::fp16, id::fp32}) {
      CAPTURE(armlower::dtype::name(t));
      CAPTURE(armlower::dtype::name(o));
      const auto b = fp8_matmul(t, o, 0);
      const auto r = run::run(b.g, {});
      REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
      CHECK(r->outputs[0].type == o);
      CHECK(r->outputs[0].reals[0] == 2.5f);  // 1.5·2 + 0.5·(−1), exact in every row
      CHECK(check(b.g, t == id::fp8e4m3 ? "TOSA-1.1+FP+fp8e4m3" : "TOSA-1.1+FP+fp8e5m2") == "");
    }
    // −0.0 is a zero zero point; 1.0 is an ERROR_IF naming the tensor, not a crash.
    CHECK(run::run(fp8_matmul(t, id::fp16, 0x80).g, {}));
    const auto r = run::run(fp8_matmul(t, id::fp16, fp8(t, 1.0f)).g, {});
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == armlower::errc::error_if);
    CHECK(r.error().where().tensor == "azp");
    CHECK(has(r.error().message(), "must be 0 unless its dtype is INT8"));
  }
  // The mixed FP8 rows (TOSA 1.1): A FP8E4M3, B FP8E5M2, zero points of their own dtypes.
  builder b;
  b.constant("a", run::from_codes(id::fp8e4m3, {1, 1, 1}, {fp8(id::fp8e4m3, 3.0f)}));
  b.constant("b", run::from_codes(id::fp8e5m2, {1, 1, 1}, {fp8(id::fp8e5m2, -0.5f)}));
  b.constant("azp", run::from_codes(id::fp8e4m3, {1}, {0}));
  b.constant("bzp", run::from_codes(id::fp8e5m2, {1}, {0}));
  b.declare("y", id::fp32, {1, 1, 1});
  b.op(tosa::op::matmul, {"a", "b", "azp", "bzp"}, {"y"});
  b.output("y");
  const auto r = run::run(b.g, {});
  REQUIRE(r);
  CHECK(r->outputs[0].reals[0] == -1.5f);
}

TEST_CASE("FP16 accumulation rounds each step to FP16; MATMUL FP16 -> FP16 and -> FP32") {
  // 2048 + 1 + 1: in FP16 each +1 is a tie that rounds to even (2048); in FP32 the sum is 2050.
  builder b;
  b.constant("a", run::from_reals(id::fp16, {1, 1, 3}, {2048.0f, 1.0f, 1.0f}));
  b.constant("b", run::from_reals(id::fp16, {1, 3, 1}, {1.0f, 1.0f, 1.0f}));
  b.constant("zp", run::from_reals(id::fp16, {1}, {0.0f}));
  b.declare("y16", id::fp16, {1, 1, 1});
  b.op(tosa::op::matmul, {"a", "b", "zp", "zp"}, {"y16"});
  b.declare("y32", id::fp32, {1, 1, 1});
  b.op(tosa::op::matmul, {"a", "b", "zp", "zp"}, {"y32"});
  b.output("y16");
  b.output("y32");
  const auto r = run::run(b.g, {});
  REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
  CHECK(r->outputs[0].reals[0] == 2048.0f);
  CHECK(r->outputs[1].reals[0] == 2050.0f);
  CHECK(check(b.g, "TOSA-1.0+FP") == "");
}

namespace {
/// CONV2D 1×1 of FP16 input [1,1,1,3] = (2048, 1, 1) with weights 1 and bias `bias`, acc_type `acc`.
builder fp16_conv(id acc, float bias) {
  builder b;
  b.constant("x", run::from_reals(id::fp16, {1, 1, 1, 3}, {2048.0f, 1.0f, 1.0f}));
  b.constant("w", run::from_reals(id::fp16, {1, 1, 1, 3}, {1.0f, 1.0f, 1.0f}));
  b.constant("bias", run::from_reals(id::fp16, {1}, {bias}));
  b.constant("zp", run::from_reals(id::fp16, {1}, {0.0f}));
  b.declare("y", id::fp16, {1, 1, 1, 1});
  b.op(tosa::op::conv2d, {"x", "w", "bias", "zp", "zp"}, {"y"}, graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, acc, false});
  b.output("y");
  return b;
}
}  // namespace

TEST_CASE("CONV2D FP16 runs with acc_type FP16 and FP32 (check agrees); other acc_types are refused") {
  // acc FP16: 2048 (+1 +1 tie to even) + bias 2 = 2050. acc FP32: acc 2050 → FP16 2050, + 2 = 2052.
  auto r = run::run(fp16_conv(id::fp16, 2.0f).g, {});
  REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
  CHECK(r->outputs[0].reals[0] == 2050.0f);
  r = run::run(fp16_conv(id::fp32, 2.0f).g, {});
  REQUIRE(r);
  CHECK(r->outputs[0].reals[0] == 2052.0f);
  CHECK(check(fp16_conv(id::fp16, 2.0f).g, "TOSA-1.0+FP") == "");
  CHECK(check(fp16_conv(id::fp32, 2.0f).g, "TOSA-1.0+FP") == "");  // was "acc_type FP32 must equal the output dtype FP16"
  r = run::run(fp16_conv(id::i32, 2.0f).g, {});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  CHECK(has(r.error().message(), "allowed: FP32 or FP16"));
  const auto m = check(fp16_conv(id::bf16, 2.0f).g, "TOSA-1.0+FP+bf16");
  CHECK(has(m, "acc_type BF16"));
  CHECK(has(m, "FP32 or FP16"));
  // BF16 CONV2D: acc FP32 only.
  builder b;
  b.constant("x", run::from_reals(id::bf16, {1, 1, 1, 2}, {1.0f, 0.5f}));
  b.constant("w", run::from_reals(id::bf16, {1, 1, 1, 2}, {3.0f, 2.0f}));
  b.constant("bias", run::from_reals(id::bf16, {1}, {0.25f}));
  b.constant("zp", run::from_reals(id::bf16, {1}, {0.0f}));
  b.declare("y", id::bf16, {1, 1, 1, 1});
  b.op(tosa::op::conv2d, {"x", "w", "bias", "zp", "zp"}, {"y"}, graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::fp32, false});
  b.output("y");
  r = run::run(b.g, {});
  REQUIRE(r);
  CHECK(r->outputs[0].reals[0] == 4.25f);
  CHECK(check(b.g, "TOSA-1.0+FP+bf16") == "");
}

namespace {
/// RESCALE in_t → out_t with the unsigned flags and zero points given (per tensor, scale32).
builder rescale(id in_t, id out_t, bool in_u, bool out_u, std::int64_t izp, std::int64_t ozp) {
  builder b;
  b.input("x", in_t, {4});
  b.ints("m", id::i32, {1}, {1 << 30});
  b.ints("s", id::i8, {1}, {30});
  b.ints("izp", in_t, {1}, {izp});
  b.ints("ozp", out_t, {1}, {ozp});
  b.declare("y", out_t, {4});
  b.op(tosa::op::rescale, {"x", "m", "s", "izp", "ozp"}, {"y"},
       graph::rescale_attr{true, tosa::rounding_mode::single_round, false, in_u, out_u});
  b.output("y");
  return b;
}
}  // namespace

TEST_CASE("check allows the unsigned RESCALE rows of the spec and refuses the ERROR_IFs") {
  const char* spec = "TOSA-1.0+INT";
  // Allowed (TOSA 1.0 RESCALE): u8 → i8 with zp 128 (INT8 bit pattern −128), i8 → u8, u16 → i16
  // with zp 32768, i16 → u16 with zp 32768, u8 → i16.
  CHECK(check(rescale(id::i8, id::i8, true, false, -128, 0).g, spec) == "");
  CHECK(check(rescale(id::i8, id::i8, false, true, 0, -128).g, spec) == "");
  CHECK(check(rescale(id::i16, id::i16, true, false, -32768, 0).g, spec) == "");
  CHECK(check(rescale(id::i16, id::i16, false, true, 0, -32768).g, spec) == "");
  CHECK(check(rescale(id::i8, id::i16, true, false, 7, 0).g, spec) == "");
  // ERROR_IFs: both unsigned; unsigned with an INT32 side; a u16 zero point other than 0/32768;
  // a signed INT16 zero point.
  CHECK(has(check(rescale(id::i8, id::i8, true, true, 0, 0).g, spec), "input_unsigned and output_unsigned"));
  CHECK(has(check(rescale(id::i32, id::i8, true, false, 0, 0).g, spec), "input_unsigned not allowed for INT32 -> INT8"));
  CHECK(has(check(rescale(id::i8, id::i32, false, true, 0, 0).g, spec), "output_unsigned not allowed"));
  CHECK(has(check(rescale(id::i16, id::i8, true, false, 5, 0).g, spec), "input_zp 5"));
  CHECK(has(check(rescale(id::i8, id::i16, false, false, 0, 3).g, spec), "output_zp 3"));
  // The interpreter agrees on an allowed row (u8 200 − 128 = 72) and on a refused one.
  auto r = run::run(rescale(id::i8, id::i8, true, false, -128, 0).g,
                    std::vector<run::value>{run::from_ints(id::i8, {4}, {-56, 0, 127, -128})});
  REQUIRE(r);
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{72, -128, -1, 0});
  CHECK_FALSE(run::run(rescale(id::i8, id::i8, true, true, 0, 0).g, std::vector<run::value>{run::zeros(id::i8, {4})}));
}

TEST_CASE("CONV2D output size is int64 in check and run: pad 2^31-1 is refused by both") {
  // IH 3, pads 2^31−1 top and bottom, 1×1 kernel: OH = 2 + 2·(2^31−1) + 1 = 2^32 + 1, which an
  // int32 computation wrapped to 1 (the declared OH), so `run` used to exit 0 with a made-up value.
  builder b;
  b.input("x", id::i8, {1, 3, 1, 1});
  b.ints("w", id::i8, {1, 1, 1, 1}, {1});
  b.ints("bias", id::i32, {1}, {0});
  b.ints("zp", id::i8, {1}, {0});
  b.declare("y", id::i32, {1, 1, 1, 1});
  b.op(tosa::op::conv2d, {"x", "w", "bias", "zp", "zp"}, {"y"},
       graph::conv2d_attr{{2147483647, 2147483647, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
  b.output("y");
  const auto r = run::run(b.g, std::vector<run::value>{run::zeros(id::i8, {1, 3, 1, 1})});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  CHECK(r.error().where().tensor == "y");
  CHECK(has(r.error().message(), "[1,4294967297,1,1]"));
  CHECK(has(check(b.g, "TOSA-1.0+INT"), "OH, OW do not satisfy"));
  // The kernel's int32 form refuses it too.
  armlower::kernels::conv2d_shape s;
  s.ih = 3, s.pad = {2147483647, 2147483647, 0, 0};
  std::int32_t oh = 0, ow = 0;
  CHECK(armlower::kernels::conv2d_output_size(s, oh, ow) == armlower::kernels::status::shape_mismatch);
  std::int64_t oh64 = 0, ow64 = 0;
  REQUIRE(armlower::kernels::conv2d_output_size(s, oh64, ow64) == armlower::kernels::status::ok);
  CHECK(oh64 == 4294967297LL);
}

TEST_CASE("declared result shapes and the per-tensor size limit are checked before allocating") {
  const std::int32_t n = 40000;
  // MATMUL [1,n,1] x [1,1,n]: the true result [1,n,n] would need 6.4 GB of int32 storage.
  auto matmul = [&](std::vector<std::int32_t> declared) {
    builder b;
    b.ints("a", id::i8, {1, n, 1}, std::vector<std::int64_t>(n, 1));
    b.ints("b", id::i8, {1, 1, n}, std::vector<std::int64_t>(n, 1));
    b.ints("zp", id::i8, {1}, {0});
    b.declare("y", id::i32, std::move(declared));
    b.op(tosa::op::matmul, {"a", "b", "zp", "zp"}, {"y"});
    b.output("y");
    return b;
  };
  auto r = run::run(matmul({1, 1, 1}).g, {});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  CHECK(r.error().where().tensor == "y");
  CHECK(has(r.error().message(), "must be [1,40000,40000]"));
  r = run::run(matmul({1, n, n}).g, {});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::limit);
  CHECK(r.error().where().tensor == "y");
  CHECK(r.error().where().op == "MATMUL");
  CHECK(has(r.error().message(), "6400000000 bytes"));
  CHECK(has(r.error().message(), "limit of 2147483648 bytes"));

  // Broadcast ADD [n,1] + [1,n].
  auto add = [&](std::vector<std::int32_t> declared) {
    builder b;
    b.ints("a", id::i32, {n, 1}, std::vector<std::int64_t>(n, 1));
    b.ints("c", id::i32, {1, n}, std::vector<std::int64_t>(n, 2));
    b.declare("y", id::i32, std::move(declared));
    b.op(tosa::op::add, {"a", "c"}, {"y"});
    b.output("y");
    return b;
  };
  r = run::run(add({1, 1}).g, {});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::error_if);
  CHECK(has(r.error().message(), "must be [40000,40000]"));
  r = run::run(add({n, n}).g, {});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::limit);
  CHECK(r.error().where().tensor == "y");
  CHECK(has(r.error().message(), "per-tensor limit"));

  // A declared shape beyond 2^31-1 elements is an invalid graph, refused before anything else.
  r = run::run(add({65536, 65536}).g, {});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::invalid_graph);
  CHECK(r.error().where().tensor == "y");
  CHECK(has(r.error().message(), "element count exceeds 2^31-1"));

  // The limit is configurable and applies to inputs and constants too.
  builder b;
  b.input("x", id::i32, {4, 4});
  b.ints("k", id::i32, {4, 4}, std::vector<std::int64_t>(16, 3));
  b.declare("y", id::i32, {4, 4});
  b.op(tosa::op::add, {"x", "k"}, {"y"});
  b.output("y");
  const std::vector<run::value> in{run::from_ints(id::i32, {4, 4}, std::vector<std::int64_t>(16, 1))};
  run::options opt;
  CHECK(run::run(b.g, in, opt));
  opt.max_tensor_bytes = 60;  // a 4×4 INT32 takes 64 bytes (held as int32)
  r = run::run(b.g, in, opt);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == armlower::errc::limit);
  CHECK(r.error().where().op_index == -1);  // a graph input: no operator
  CHECK(r.error().where().tensor == "x");
  CHECK(has(r.error().message(), "needs 64 bytes, above the per-tensor limit of 60 bytes"));
  // Other ops check the declared shape first too (TRANSPOSE, CAST, CLAMP, RESCALE, RESHAPE).
  builder t;
  t.input("x", id::i8, {2, 3});
  t.declare("y", id::i8, {2, 3});
  t.op(tosa::op::transpose, {"x"}, {"y"}, graph::transpose_attr{{1, 0}});
  t.output("y");
  r = run::run(t.g, std::vector<run::value>{run::zeros(id::i8, {2, 3})});
  REQUIRE_FALSE(r);
  CHECK(has(r.error().message(), "result shape must be [3,2], is declared [2,3]"));
}

TEST_CASE("a graph of 100,000 ADDs runs (tensors indexed once per run: linear time)") {
  constexpr int ops = 100000;
  graph::graph g;
  g.tensors.reserve(ops + 2);
  g.tensors.push_back(tensor("t0", id::i32, {2}));
  g.inputs.emplace_back("t0");
  g.tensors.push_back(run::to_constant(run::from_ints(id::i32, {2}, {1, -2}), "step"));
  g.operators.reserve(ops);
  for (int i = 1; i <= ops; ++i) {
    const std::string prev = "t" + std::to_string(i - 1), cur = "t" + std::to_string(i);
    g.tensors.push_back(tensor(cur, id::i32, {2}));
    g.operators.push_back(graph::operation{tosa::op::add, {prev, "step"}, {cur}, {}});
  }
  g.outputs.push_back("t" + std::to_string(ops));
  const auto r = run::run(g, std::vector<run::value>{run::from_ints(id::i32, {2}, {5, 7})});
  REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
  CHECK(r->outputs[0].ints == std::vector<std::int64_t>{5 + ops, 7 - 2 * ops});
}

TEST_CASE("check: MATMUL zero points have the operand's dtype and are 0 unless INT8 (float: -0.0 counts as 0)") {
  CHECK(check(fp8_matmul(id::fp8e4m3, id::fp16, 0x80).g, "TOSA-1.0+FP+fp8e4m3") == "");
  const auto m = check(fp8_matmul(id::fp8e4m3, id::fp16, fp8(id::fp8e4m3, 1.0f)).g, "TOSA-1.0+FP+fp8e4m3");
  CHECK(has(m, "azp"));
  CHECK(has(m, "zero point must be 0"));
}
