// Every row of tosa::op_table checked against the type-support rows of
// ../shared/reference/tosa.md §3.1–3.6, transcribed below by hand from that text (not
// generated from the table). Format: "OP slot,slot,... [acc=T] REQUIREMENT VERSION" where
// REQUIREMENT is "PRO-X", "PRO-X|PRO-Y", "EXT-A", "EXT-A|EXT-B" (any of) or "EXT-A&EXT-B"
// (all of), exactly as the reference spells it.
#include <doctest/doctest.h>

#include <armlower/tosa.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace armlower;
using namespace armlower::tosa;

namespace {

// clang-format off
const char* const expected_rows[] = {
    // §3.5 CONST: bool, i8, i16, i32 (INT|FP); i4 (EXT-INT4); i48 (EXT-INT16); fp8* (EXT-FP8*);
    // fp16/fp32 (PRO-FP); bf16; 1.1: i64, fp8ue8m0, fp6*, fp4, mxint8 (EXT-MXFP)
    "CONST BOOL PRO-INT|PRO-FP 1.0", "CONST INT8 PRO-INT|PRO-FP 1.0", "CONST INT16 PRO-INT|PRO-FP 1.0",
    "CONST INT32 PRO-INT|PRO-FP 1.0", "CONST INT4 EXT-INT4 1.0", "CONST INT48 EXT-INT16 1.0",
    "CONST FP8E4M3 EXT-FP8E4M3 1.0", "CONST FP8E5M2 EXT-FP8E5M2 1.0", "CONST FP16 PRO-FP 1.0",
    "CONST FP32 PRO-FP 1.0", "CONST BF16 EXT-BF16 1.0", "CONST INT64 EXT-INT64 1.1",
    "CONST FP8UE8M0 EXT-MXFP 1.1", "CONST FP6E2M3 EXT-MXFP 1.1", "CONST FP6E3M2 EXT-MXFP 1.1",
    "CONST FP4E2M1 EXT-MXFP 1.1", "CONST MXINT8 EXT-MXFP 1.1",
    // §3.5 RESHAPE / TRANSPOSE: bool (INT|FP), i8/i16/i32 (PRO-INT), fp8 (EXT-FP8*), fp16/fp32
    // (PRO-FP), bf16; 1.1: i64, MX
    "RESHAPE BOOL PRO-INT|PRO-FP 1.0", "RESHAPE INT8 PRO-INT 1.0", "RESHAPE INT16 PRO-INT 1.0",
    "RESHAPE INT32 PRO-INT 1.0", "RESHAPE FP8E4M3 EXT-FP8E4M3 1.0", "RESHAPE FP8E5M2 EXT-FP8E5M2 1.0",
    "RESHAPE FP16 PRO-FP 1.0", "RESHAPE FP32 PRO-FP 1.0", "RESHAPE BF16 EXT-BF16 1.0",
    "RESHAPE INT64 EXT-INT64 1.1", "RESHAPE FP8UE8M0 EXT-MXFP 1.1", "RESHAPE FP6E2M3 EXT-MXFP 1.1",
    "RESHAPE FP6E3M2 EXT-MXFP 1.1", "RESHAPE FP4E2M1 EXT-MXFP 1.1", "RESHAPE MXINT8 EXT-MXFP 1.1",
    "TRANSPOSE BOOL PRO-INT|PRO-FP 1.0", "TRANSPOSE INT8 PRO-INT 1.0", "TRANSPOSE INT16 PRO-INT 1.0",
    "TRANSPOSE INT32 PRO-INT 1.0", "TRANSPOSE FP8E4M3 EXT-FP8E4M3 1.0",
    "TRANSPOSE FP8E5M2 EXT-FP8E5M2 1.0", "TRANSPOSE FP16 PRO-FP 1.0", "TRANSPOSE FP32 PRO-FP 1.0",
    "TRANSPOSE BF16 EXT-BF16 1.0", "TRANSPOSE INT64 EXT-INT64 1.1", "TRANSPOSE FP8UE8M0 EXT-MXFP 1.1",
    "TRANSPOSE FP6E2M3 EXT-MXFP 1.1", "TRANSPOSE FP6E3M2 EXT-MXFP 1.1",
    "TRANSPOSE FP4E2M1 EXT-MXFP 1.1", "TRANSPOSE MXINT8 EXT-MXFP 1.1",
    // §3.2 CONV2D (in_t, weight_t, out_t) acc_t; 1.1 adds fp8 -> fp32 out/acc
    "CONV2D INT8,INT8,INT32 acc=INT32 PRO-INT 1.0", "CONV2D INT8,INT4,INT32 acc=INT32 EXT-INT4 1.0",
    "CONV2D INT16,INT8,INT48 acc=INT48 EXT-INT16 1.0",
    "CONV2D FP8E4M3,FP8E4M3,FP16 acc=FP16 EXT-FP8E4M3 1.0",
    "CONV2D FP8E5M2,FP8E5M2,FP16 acc=FP16 EXT-FP8E5M2 1.0",
    "CONV2D FP16,FP16,FP16 acc=FP32 PRO-FP 1.0",  // acc fp16 or fp32: two rows, fp32 first
    "CONV2D FP16,FP16,FP16 acc=FP16 PRO-FP 1.0",
    "CONV2D BF16,BF16,BF16 acc=FP32 EXT-BF16 1.0", "CONV2D FP32,FP32,FP32 acc=FP32 PRO-FP 1.0",
    "CONV2D FP8E4M3,FP8E4M3,FP32 acc=FP32 EXT-FP8E4M3 1.1",
    "CONV2D FP8E5M2,FP8E5M2,FP32 acc=FP32 EXT-FP8E5M2 1.1",
    // §3.1 MATMUL (A, B, out_t = acc)
    "MATMUL INT8,INT8,INT32 acc=INT32 PRO-INT 1.0", "MATMUL INT16,INT16,INT48 acc=INT48 EXT-INT16 1.0",
    "MATMUL FP8E4M3,FP8E4M3,FP16 acc=FP16 EXT-FP8E4M3 1.0",
    "MATMUL FP8E5M2,FP8E5M2,FP16 acc=FP16 EXT-FP8E5M2 1.0",
    "MATMUL FP16,FP16,FP16 acc=FP16 PRO-FP 1.0", "MATMUL FP16,FP16,FP32 acc=FP32 PRO-FP 1.0",
    "MATMUL BF16,BF16,FP32 acc=FP32 EXT-BF16 1.0", "MATMUL FP32,FP32,FP32 acc=FP32 PRO-FP 1.0",
    "MATMUL FP8E4M3,FP8E4M3,FP32 acc=FP32 EXT-FP8E4M3 1.1",
    "MATMUL FP8E5M2,FP8E5M2,FP32 acc=FP32 EXT-FP8E5M2 1.1",
    "MATMUL FP8E4M3,FP8E5M2,FP16 acc=FP16 EXT-FP8E4M3&EXT-FP8E5M2 1.1",
    "MATMUL FP8E4M3,FP8E5M2,FP32 acc=FP32 EXT-FP8E4M3&EXT-FP8E5M2 1.1",
    "MATMUL FP8E5M2,FP8E4M3,FP16 acc=FP16 EXT-FP8E4M3&EXT-FP8E5M2 1.1",
    "MATMUL FP8E5M2,FP8E4M3,FP32 acc=FP32 EXT-FP8E4M3&EXT-FP8E5M2 1.1",
    // §3.4 RESCALE: i8/i16/i32 -> i8/i16/i32 (PRO-INT); i48 -> i8/i16/i32 (EXT-INT16)
    "RESCALE INT8,INT8 PRO-INT 1.0", "RESCALE INT8,INT16 PRO-INT 1.0", "RESCALE INT8,INT32 PRO-INT 1.0",
    "RESCALE INT16,INT8 PRO-INT 1.0", "RESCALE INT16,INT16 PRO-INT 1.0", "RESCALE INT16,INT32 PRO-INT 1.0",
    "RESCALE INT32,INT8 PRO-INT 1.0", "RESCALE INT32,INT16 PRO-INT 1.0", "RESCALE INT32,INT32 PRO-INT 1.0",
    "RESCALE INT48,INT8 EXT-INT16 1.0", "RESCALE INT48,INT16 EXT-INT16 1.0",
    "RESCALE INT48,INT32 EXT-INT16 1.0",
    // §3.5 ADD: i32 (INT|FP), fp16/fp32 (PRO-FP), bf16 (EXT-BF16); 1.1: i64 (EXT-INT64)
    "ADD INT32 PRO-INT|PRO-FP 1.0", "ADD FP16 PRO-FP 1.0", "ADD FP32 PRO-FP 1.0", "ADD BF16 EXT-BF16 1.0",
    "ADD INT64 EXT-INT64 1.1",
    // MAXIMUM (not in tosa.md §3; transcribed from the TOSA 1.0 specification's MAXIMUM
    // type-support table, chapter ewise_binary): i32 (PRO-INT), fp16/fp32 (PRO-FP), bf16 (EXT-BF16)
    "MAXIMUM INT32 PRO-INT 1.0", "MAXIMUM FP16 PRO-FP 1.0", "MAXIMUM FP32 PRO-FP 1.0", "MAXIMUM BF16 EXT-BF16 1.0",
    // MINIMUM (TOSA 1.0 specification, MINIMUM type-support table, chapter ewise_binary: the
    // same rows as MAXIMUM)
    "MINIMUM INT32 PRO-INT 1.0", "MINIMUM FP16 PRO-FP 1.0", "MINIMUM FP32 PRO-FP 1.0", "MINIMUM BF16 EXT-BF16 1.0",
    // §3.5 MUL: i8->i32, i16->i32 (PRO-INT), i32->i32 (INT|FP), fp16, fp32 (PRO-FP), bf16; 1.1: i64
    "MUL INT8,INT32 PRO-INT 1.0", "MUL INT16,INT32 PRO-INT 1.0", "MUL INT32,INT32 PRO-INT|PRO-FP 1.0",
    "MUL FP16,FP16 PRO-FP 1.0", "MUL FP32,FP32 PRO-FP 1.0", "MUL BF16,BF16 EXT-BF16 1.0",
    "MUL INT64,INT64 EXT-INT64 1.1",
    // §3.5 CLAMP: i8 (PRO-INT), i16 (EXT-INT16), fp16/fp32 (PRO-FP), bf16 (EXT-BF16)
    "CLAMP INT8 PRO-INT 1.0", "CLAMP INT16 EXT-INT16 1.0", "CLAMP FP16 PRO-FP 1.0",
    "CLAMP FP32 PRO-FP 1.0", "CLAMP BF16 EXT-BF16 1.0",
    // §3.5 CAST 1.0 rows, then 1.1 additions
    "CAST BOOL,INT8 PRO-INT 1.0", "CAST BOOL,INT16 PRO-INT 1.0", "CAST BOOL,INT32 PRO-INT 1.0",
    "CAST INT8,BOOL PRO-INT 1.0", "CAST INT16,BOOL PRO-INT 1.0", "CAST INT32,BOOL PRO-INT 1.0",
    "CAST INT8,INT16 PRO-INT 1.0", "CAST INT8,INT32 PRO-INT 1.0", "CAST INT16,INT8 PRO-INT 1.0",
    "CAST INT16,INT32 PRO-INT 1.0", "CAST INT32,INT8 PRO-INT 1.0", "CAST INT32,INT16 PRO-INT 1.0",
    "CAST INT8,FP16 PRO-FP 1.0", "CAST INT16,FP16 PRO-FP 1.0", "CAST INT32,FP16 PRO-FP 1.0",
    "CAST INT8,FP32 PRO-FP 1.0", "CAST INT16,FP32 PRO-FP 1.0", "CAST INT32,FP32 PRO-FP 1.0",
    "CAST FP16,INT8 PRO-FP 1.0", "CAST FP16,INT16 PRO-FP 1.0", "CAST FP16,INT32 PRO-FP 1.0",
    "CAST FP32,INT8 PRO-FP 1.0", "CAST FP32,INT16 PRO-FP 1.0", "CAST FP32,INT32 PRO-FP 1.0",
    "CAST FP16,FP32 PRO-FP 1.0", "CAST FP32,FP16 PRO-FP 1.0",
    "CAST INT8,BF16 EXT-BF16 1.0", "CAST INT16,BF16 EXT-BF16 1.0", "CAST INT32,BF16 EXT-BF16 1.0",
    "CAST BF16,INT8 EXT-BF16 1.0", "CAST BF16,INT16 EXT-BF16 1.0", "CAST BF16,INT32 EXT-BF16 1.0",
    "CAST BF16,FP32 EXT-BF16 1.0", "CAST FP32,BF16 EXT-BF16 1.0",
    "CAST FP8E4M3,FP16 EXT-FP8E4M3 1.0", "CAST FP8E4M3,FP32 EXT-FP8E4M3 1.0",
    "CAST FP16,FP8E4M3 EXT-FP8E4M3 1.0", "CAST FP32,FP8E4M3 EXT-FP8E4M3 1.0",
    "CAST FP8E5M2,FP16 EXT-FP8E5M2 1.0", "CAST FP8E5M2,FP32 EXT-FP8E5M2 1.0",
    "CAST FP16,FP8E5M2 EXT-FP8E5M2 1.0", "CAST FP32,FP8E5M2 EXT-FP8E5M2 1.0",
    "CAST BF16,FP8E4M3 EXT-BF16&EXT-FP8E4M3 1.0", "CAST FP8E4M3,BF16 EXT-BF16&EXT-FP8E4M3 1.0",
    "CAST BF16,FP8E5M2 EXT-BF16&EXT-FP8E5M2 1.0", "CAST FP8E5M2,BF16 EXT-BF16&EXT-FP8E5M2 1.0",
    "CAST INT32,INT64 EXT-INT64 1.1", "CAST INT64,INT32 EXT-INT64 1.1",
    "CAST BOOL,FP32 PRO-FP 1.1", "CAST FP32,BOOL PRO-FP 1.1",
    // §3.6 CAST_TO_BLOCK_SCALED: {fp32, bf16} x {fp4e2m1, fp6e2m3, fp6e3m2, fp8e4m3, fp8e5m2,
    // mxint8}; fp32 rows EXT-MXFP; bf16 rows EXT-MXFP & EXT-BF16
    "CAST_TO_BLOCK_SCALED FP32,FP4E2M1 EXT-MXFP 1.1", "CAST_TO_BLOCK_SCALED FP32,FP6E2M3 EXT-MXFP 1.1",
    "CAST_TO_BLOCK_SCALED FP32,FP6E3M2 EXT-MXFP 1.1", "CAST_TO_BLOCK_SCALED FP32,FP8E4M3 EXT-MXFP 1.1",
    "CAST_TO_BLOCK_SCALED FP32,FP8E5M2 EXT-MXFP 1.1", "CAST_TO_BLOCK_SCALED FP32,MXINT8 EXT-MXFP 1.1",
    "CAST_TO_BLOCK_SCALED BF16,FP4E2M1 EXT-MXFP&EXT-BF16 1.1",
    "CAST_TO_BLOCK_SCALED BF16,FP6E2M3 EXT-MXFP&EXT-BF16 1.1",
    "CAST_TO_BLOCK_SCALED BF16,FP6E3M2 EXT-MXFP&EXT-BF16 1.1",
    "CAST_TO_BLOCK_SCALED BF16,FP8E4M3 EXT-MXFP&EXT-BF16 1.1",
    "CAST_TO_BLOCK_SCALED BF16,FP8E5M2 EXT-MXFP&EXT-BF16 1.1",
    "CAST_TO_BLOCK_SCALED BF16,MXINT8 EXT-MXFP&EXT-BF16 1.1",
    // §3.6 CAST_FROM_BLOCK_SCALED: 6 value types -> fp32 (EXT-MXFP), bf16 (EXT-MXFP & EXT-BF16)
    "CAST_FROM_BLOCK_SCALED FP4E2M1,FP32 EXT-MXFP 1.1", "CAST_FROM_BLOCK_SCALED FP6E2M3,FP32 EXT-MXFP 1.1",
    "CAST_FROM_BLOCK_SCALED FP6E3M2,FP32 EXT-MXFP 1.1", "CAST_FROM_BLOCK_SCALED FP8E4M3,FP32 EXT-MXFP 1.1",
    "CAST_FROM_BLOCK_SCALED FP8E5M2,FP32 EXT-MXFP 1.1", "CAST_FROM_BLOCK_SCALED MXINT8,FP32 EXT-MXFP 1.1",
    "CAST_FROM_BLOCK_SCALED FP4E2M1,BF16 EXT-MXFP&EXT-BF16 1.1",
    "CAST_FROM_BLOCK_SCALED FP6E2M3,BF16 EXT-MXFP&EXT-BF16 1.1",
    "CAST_FROM_BLOCK_SCALED FP6E3M2,BF16 EXT-MXFP&EXT-BF16 1.1",
    "CAST_FROM_BLOCK_SCALED FP8E4M3,BF16 EXT-MXFP&EXT-BF16 1.1",
    "CAST_FROM_BLOCK_SCALED FP8E5M2,BF16 EXT-MXFP&EXT-BF16 1.1",
    "CAST_FROM_BLOCK_SCALED MXINT8,BF16 EXT-MXFP&EXT-BF16 1.1",
    // §3.6 MATMUL_T_BLOCK_SCALED: A_t == B_t, output fp32, EXT-MXFP
    "MATMUL_T_BLOCK_SCALED FP4E2M1,FP4E2M1 acc=FP32 EXT-MXFP 1.1",
    "MATMUL_T_BLOCK_SCALED FP6E2M3,FP6E2M3 acc=FP32 EXT-MXFP 1.1",
    "MATMUL_T_BLOCK_SCALED FP6E3M2,FP6E3M2 acc=FP32 EXT-MXFP 1.1",
    "MATMUL_T_BLOCK_SCALED FP8E4M3,FP8E4M3 acc=FP32 EXT-MXFP 1.1",
    "MATMUL_T_BLOCK_SCALED FP8E5M2,FP8E5M2 acc=FP32 EXT-MXFP 1.1",
    "MATMUL_T_BLOCK_SCALED MXINT8,MXINT8 acc=FP32 EXT-MXFP 1.1",
};
// clang-format on

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  return out;
}

// Renders a table row in the transcription format.
std::string render(const type_support_row& r) {
  std::string s(name(r.o));
  s += ' ';
  for (std::size_t i = 0; i < r.arity; ++i) s += (i ? "," : "") + std::string(dtype::name(r.types[i]));
  const bool has_acc = r.o == op::conv2d || r.o == op::matmul || r.o == op::matmul_t_block_scaled;
  if (has_acc) s += " acc=" + std::string(dtype::name(r.acc));
  s += ' ';
  return s;
}

// Parses the requirement spelling of a transcribed row into a requirement value.
requirement parse_requirement(const std::string& text) {
  requirement q;
  const bool all = text.find('&') != std::string::npos;
  for (const auto& part : split(text, all ? '&' : '|')) {
    if (part == "PRO-INT") {
      q.profiles = q.profiles | profile::pro_int;
    } else if (part == "PRO-FP") {
      q.profiles = q.profiles | profile::pro_fp;
    } else {
      bool found = false;
      for (std::size_t e = 0; e < ext_count; ++e) {
        if (name(static_cast<ext>(e)) == part) {
          q.extensions = q.extensions | static_cast<ext>(e);
          found = true;
        }
      }
      REQUIRE_MESSAGE(found, "unknown requirement " << part);
    }
  }
  q.cond = all ? condition::all_of : condition::any_of;
  return q;
}

}  // namespace

namespace {
// "OP slots [acc=T] " — the part of a transcribed line that identifies the row.
std::string head_of(const std::string& line) {
  const auto words = split(line, ' ');
  if (words.size() < 4) return line;
  return words[0] + " " + words[1] + " " +
         (words[2].rfind("acc=", 0) == 0 ? words[2] + " " : std::string());
}
}  // namespace

TEST_CASE("the transcription and the table have the same rows, once each") {
  CHECK(std::size(expected_rows) == op_table.size());
  std::set<std::string> expected;
  for (const char* line : expected_rows) {
    CHECK_MESSAGE(split(line, ' ').size() >= 4, "malformed transcription line " << line);
    CHECK_MESSAGE(expected.insert(head_of(line)).second, "transcription lists " << line << " twice");
  }
  std::set<std::string> actual;
  for (const auto& r : op_table) {
    CHECK_MESSAGE(actual.insert(render(r)).second, "table lists " << render(r) << " twice");
    CHECK_MESSAGE(expected.count(render(r)) == 1, "table row " << render(r) << " is not in tosa.md §3");
  }
}

TEST_CASE("each op_table row equals the row transcribed from reference/tosa.md §3") {
  for (const char* line : expected_rows) {
    SUBCASE(line) {
      const auto words = split(line, ' ');
      const std::string head = head_of(line);
      const type_support_row* match = nullptr;
      for (const auto& r : op_table) {
        if (render(r) == head) match = &r;
      }
      REQUIRE_MESSAGE(match != nullptr, "table lacks " << line);
      CHECK(match->req == parse_requirement(words[words.size() - 2]));
      CHECK(name(match->added) == words.back());
      CHECK(match->arity == slots(match->o).arity);
    }
  }
}

TEST_CASE("find_row and rows_of agree with the table") {
  using dtype::id;
  const std::array<id, 3> s16{id::i16, id::i8, id::i48};
  const auto* r = find_row(op::conv2d, s16);
  REQUIRE(r != nullptr);
  CHECK(r->acc == id::i48);
  CHECK(r->req.extensions == ext_set(ext::int16));
  CHECK(rows_of(op::matmul_t_block_scaled).size() == 6);
  const std::array<id, 3> bad{id::fp8e4m3, id::i8, id::i32};
  CHECK(find_row(op::conv2d, bad) == nullptr);
}

TEST_CASE("accumulator_allowed: the acc_types the spec allows per CONV2D / MATMUL row") {
  using dtype::id;
  const std::array<id, 3> fp16_conv{id::fp16, id::fp16, id::fp16};
  CHECK(accumulator_allowed(op::conv2d, fp16_conv, id::fp32));
  CHECK(accumulator_allowed(op::conv2d, fp16_conv, id::fp16));  // TOSA 1.0 CONV2D: fp16 acc fp16 or fp32
  CHECK_FALSE(accumulator_allowed(op::conv2d, fp16_conv, id::bf16));
  const std::array<id, 3> bf16_conv{id::bf16, id::bf16, id::bf16};
  CHECK(accumulator_allowed(op::conv2d, bf16_conv, id::fp32));
  CHECK_FALSE(accumulator_allowed(op::conv2d, bf16_conv, id::bf16));
  const std::array<id, 3> fp8_conv{id::fp8e4m3, id::fp8e4m3, id::fp16};
  CHECK(accumulator_allowed(op::conv2d, fp8_conv, id::fp16));
  CHECK_FALSE(accumulator_allowed(op::conv2d, fp8_conv, id::fp32));
  const std::array<id, 3> i8_conv{id::i8, id::i8, id::i32};
  CHECK(accumulator_allowed(op::conv2d, i8_conv, id::i32));
  CHECK_FALSE(accumulator_allowed(op::conv2d, i8_conv, id::i48));
  const std::array<id, 3> no_row{id::i8, id::fp16, id::i32};
  CHECK_FALSE(accumulator_allowed(op::conv2d, no_row, id::i32));
  CHECK_FALSE(accumulator_allowed(op::add, i8_conv, id::i32));
  // The first fp16 CONV2D row (what find_row and the legality queries see) keeps fp32.
  REQUIRE(find_row(op::conv2d, fp16_conv) != nullptr);
  CHECK(find_row(op::conv2d, fp16_conv)->acc == id::fp32);
}
