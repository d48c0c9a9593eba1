// Compile-time facts about specs, extensions, the op table and legality. Building is testing.
#include <armlower/armlower.hpp>

#include <utility>

namespace {
using namespace armlower;
using namespace armlower::tosa;

// The exact spelling the issue fixes, from the umbrella header.
static_assert(armlower::tosa::legal<armlower::tosa::spec<"TOSA-1.0+INT+int16">, armlower::tosa::op::conv2d,
                                    armlower::dtype::i16, armlower::dtype::i8, armlower::dtype::i48>);
static_assert(!armlower::tosa::legal<armlower::tosa::spec<"TOSA-1.0+INT">, armlower::tosa::op::conv2d,
                                     armlower::dtype::i16, armlower::dtype::i8, armlower::dtype::i48>);
// DESIGN §3.1 spelling (armlower::i16 is dtype::i16).
using Target = spec<"TOSA-1.0+INT+int16">;
static_assert(Target::supports(ext::int16));
static_assert(legal<Target, op::conv2d, armlower::i16, armlower::i8, armlower::i48>);

// Spec strings: accepted, rejected, printed — all in constant evaluation.
static_assert(valid_spec_string<"TOSA-1.1+FP+mxfp">);
static_assert(!valid_spec_string<"TOSA-1.1+INT+mxfp">);
static_assert(!valid_spec_string<"TOSA-1.0+FP+mxfp">);
static_assert(!valid_spec_string<"TOSA-1.0.0+INT+INT4+cf">);
static_assert(parse("TOSA-1.0.0+INT+int16").value.text().view() == "TOSA-1.0.0+INT+int16");
static_assert(parse("TOSA-1.0+FP+cf+bf16+8k").value.text().view() == "TOSA-1.0+FP+cf+bf16+8k");
static_assert(parse("TOSA-1.1.0+INT+shape+int64+u55").value.u55);
static_assert(parse("TOSA-1.0+FP+mxfp").token() == "mxfp");
static_assert(spec<"TOSA-1.0+INT+u55">::value.u55 && !spec<"TOSA-1.0+INT+u55">::supports(ext::u55));

// Concept and SFINAE-friendly negatives (style.md §12 rule 9a).
static_assert(Legal<spec<"TOSA-1.1+FP+mxfp">, op::matmul_t_block_scaled, dtype::fp4e2m1, dtype::fp4e2m1>);
static_assert(!Legal<spec<"TOSA-1.1+FP">, op::matmul_t_block_scaled, dtype::fp4e2m1, dtype::fp4e2m1>);
static_assert(!Legal<spec<"TOSA-1.0+FP">, op::add, dtype::bf16>);
static_assert(Legal<spec<"TOSA-1.0+FP+bf16">, op::add, dtype::bf16>);
template <class S>
concept can_lower_a16w8 = Legal<S, op::conv2d, dtype::i16, dtype::i8, dtype::i48> &&
                          Legal<S, op::rescale, dtype::i48, dtype::i16>;
static_assert(can_lower_a16w8<spec<"TOSA-1.0+INT+int16">>);
static_assert(!can_lower_a16w8<spec<"TOSA-1.0+INT">>);
static_assert(!can_lower_a16w8<spec<"TOSA-1.0+FP">>);
static_assert(!TargetSpec<int>);
// Only dtypes (tags or ids) are accepted as operand dtypes; plain integers are rejected.
static_assert(!Legal<spec<"TOSA-1.0+INT">, op::add, 5>);
template <auto D>
concept legal_probe = requires { legal<spec<"TOSA-1.0+INT">, op::add, D>; };
static_assert(legal_probe<dtype::i32> && !legal_probe<5>);

// Op-table invariants: every 1.1-only dtype appears only in 1.1 rows; every row's
// requirement names extensions whose profile set covers the row's profile requirement.
constexpr bool since_consistent() {
  for (const auto& r : op_table) {
    for (auto d : r.operands()) {
      if (dtype::traits(d).added == version::v1_1 && r.added != version::v1_1) return false;
    }
  }
  return true;
}
static_assert(since_consistent());
// Every verdict text fits its buffer, even on a long target string. Chunked so each
// evaluation stays within clang's constexpr step limit.
constexpr bool reasons_fit(std::size_t b) {
  const target t = parse("TOSA-1.1.0+INT+FP+shape+int64+int16+int4+var+cf+bf16+8k+u55").value;
  for (std::size_t i = b; i < b + 8 && i < op_table.size(); ++i) {
    if (check(t, op_table[i].o, op_table[i].operands()).reason_text.truncated) return false;
  }
  return true;
}
template <std::size_t B>
struct reasons_fit_chunk {
  static_assert(reasons_fit(B * 8));
  static constexpr bool value = true;
};
template <std::size_t... B>
constexpr bool all_reasons_fit(std::index_sequence<B...>) {
  return (reasons_fit_chunk<B>::value && ...);
}
static_assert(all_reasons_fit(std::make_index_sequence<(op_table.size() + 7) / 8>{}));
// Accumulator from the rows.
static_assert(accumulator_dtype(dtype::i16, dtype::i8) == dtype::id::i48);
static_assert(accumulator_dtype(dtype::i8, dtype::i8) == dtype::id::i32);
}  // namespace
