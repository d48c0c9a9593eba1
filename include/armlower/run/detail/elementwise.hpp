/// @file armlower/run/detail/elementwise.hpp
/// ADD, MAXIMUM, MINIMUM, MUL (with its shift operand), CLAMP and CAST of the TOSA 1.0 specification
/// (ADD/MAXIMUM/MINIMUM/MUL/CLAMP/CAST pseudocode; 1.1 adds the INT64 and BOOL ↔ FP32 rows): equal-rank broadcasting, integer REQUIREs on
/// overflow, floating-point results rounded to nearest-even in the result dtype.
#pragma once

#include <armlower/mx/element.hpp>
#include <armlower/run/detail/context.hpp>
#include <armlower/run/detail/data_layout.hpp>
#include <armlower/run/detail/float_format.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace armlower::run::detail {

/// Broadcast of two equal-rank shapes (TOSA `broadcast_shape`): each dim equal, or one is 1.
/// Returns false (and leaves `out` unspecified) when they do not broadcast.
[[nodiscard]] inline bool broadcast_shape(const std::vector<std::int32_t>& a,
                                          const std::vector<std::int32_t>& b,
                                          std::vector<std::int32_t>& out) {
  if (a.size() != b.size()) return false;
  out.resize(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1)
      out[i] = a[i];
    else if (a[i] == 1)
      out[i] = b[i];
    else
      return false;
  }
  return true;
}

/// For each element of `out_shape`, the index of the broadcast source element of a value of
/// `in_shape` (same rank; dims of size 1 repeat).
[[nodiscard]] inline std::vector<std::int64_t> broadcast_index(const std::vector<std::int32_t>& in_shape,
                                                               const std::vector<std::int32_t>& out_shape) {
  const auto rank = out_shape.size();
  auto step = strides_of(in_shape);
  for (std::size_t d = 0; d < rank; ++d)
    if (in_shape[d] == 1) step[d] = 0;
  const auto n = static_cast<std::size_t>(graph::element_count(out_shape));
  std::vector<std::int64_t> index(n);
  std::vector<std::int32_t> o(rank, 0);
  std::int64_t src = 0;
  for (std::size_t k = 0; k < n; ++k) {
    index[k] = src;
    for (std::size_t d = rank; d-- > 0;) {
      if (++o[d] < out_shape[d]) {
        src += step[d];
        break;
      }
      src -= step[d] * (out_shape[d] - 1);
      o[d] = 0;
    }
  }
  return index;
}

/// Checks operands 0 and 1 of a binary element-wise op (same dtype, broadcastable shapes, the
/// declared result has the broadcast shape) and computes the broadcast shape and per-operand
/// source indices.
[[nodiscard]] inline status binary_operands(const op_context& c, std::vector<std::int32_t>& shape,
                                            std::vector<std::int64_t>& ia, std::vector<std::int64_t>& ib) {
  const auto& a = c.in(0);
  const auto& b = c.in(1);
  if (a.type != b.type)
    return c.fail(errc::error_if, c.in_name(1),
                  "input2 dtype " + std::string(dtype::name(b.type)) + " differs from input1's " +
                      std::string(dtype::name(a.type)));
  if (a.shape.size() != b.shape.size())
    return c.fail(errc::error_if, c.in_name(1),
                  "rank(input1) != rank(input2) (" + to_string(a.shape) + " vs " + to_string(b.shape) +
                      "); broadcasting needs equal ranks, RESHAPE first");
  if (!broadcast_shape(a.shape, b.shape, shape))
    return c.fail(errc::error_if, c.in_name(1),
                  "shapes " + to_string(a.shape) + " and " + to_string(b.shape) + " do not broadcast");
  if (auto e = c.expect_out_shape(0, shape)) return e;  // before the index vectors are allocated
  ia = broadcast_index(a.shape, shape);
  ib = broadcast_index(b.shape, shape);
  return std::nullopt;
}

/// True for FP16, BF16, FP32.
[[nodiscard]] constexpr bool is_real(dtype::id t) noexcept { return storage_of(t) == storage::real; }

/// An element-wise binary op over broadcast operands of one dtype `t`: integer rows (`int_row(t)`)
/// give element k as `int_op(x, y, k, out)` (which may fail: a REQUIRE), real rows as
/// `real_op(x, y)` (already in the output format); any other dtype is refused as
/// "`name` of `t` (rows: `rows`)".
template <class IntRow, class IntOp, class RealOp>
[[nodiscard]] status eval_binary(const op_context& c, std::string_view name, std::string_view rows, IntRow int_row,
                                 IntOp int_op, RealOp real_op) {
  std::vector<std::int32_t> shape;
  std::vector<std::int64_t> ia, ib;
  if (auto e = binary_operands(c, shape, ia, ib)) return e;
  const auto& a = c.in(0);
  const auto& b = c.in(1);
  const auto t = a.type;
  value r{t, shape, {}, {}, {}};
  const auto n = ia.size();
  if (int_row(t)) {
    r.ints.reset(int_width_of(t), n);
    for (std::size_t k = 0; k < n; ++k) {
      std::int64_t o = 0;
      if (auto e = int_op(a.ints[static_cast<std::size_t>(ia[k])], b.ints[static_cast<std::size_t>(ib[k])], k, o))
        return e;
      r.ints.set(k, o);
    }
  } else if (is_real(t)) {
    r.reals.resize(n);
    for (std::size_t k = 0; k < n; ++k)
      r.reals[k] = real_op(a.reals[static_cast<std::size_t>(ia[k])], b.reals[static_cast<std::size_t>(ib[k])]);
  } else {
    return c.fail(errc::unsupported, c.in_name(0),
                  std::string(name) + " of " + std::string(dtype::name(t)) + " (rows: " + std::string(rows) + ")");
  }
  return c.set(0, std::move(r));
}

/// ADD [input1, input2] (SPEC-1.0 ADD; rows i32, fp16, bf16, fp32; 1.1 i64): integer sums
/// REQUIRE no overflow (apply_add_s); float sums are rounded to nearest-even.
[[nodiscard]] inline status eval_add(const op_context& c) {
  const auto t = c.in(0).type;
  return eval_binary(
      c, "ADD", "INT32, INT64, FP16, BF16, FP32", [](dtype::id d) { return d == dtype::id::i32 || d == dtype::id::i64; },
      [&](std::int64_t x, std::int64_t y, std::size_t k, std::int64_t& out) -> status {
        const auto& ti = dtype::traits(t);
        if (__builtin_add_overflow(x, y, &out) || out < ti.int_min || out > ti.int_max)
          return c.fail(errc::require, c.out_name(0),
                        "apply_add_s: the sum at element " + std::to_string(k) + " overflows " + std::string(ti.name));
        return std::nullopt;
      },
      [&](float x, float y) { return round_to(t, static_cast<double>(x) + static_cast<double>(y)); });
}

/// MAXIMUM / MINIMUM [input1, input2] with `nan_mode_attr` (SPEC-1.0 MAXIMUM, MINIMUM: `apply_max_s`,
/// `apply_min_s`; rows i32, fp16, bf16, fp32): element-wise `a >= b ? a : b` (MINIMUM
/// `a < b ? a : b`) with broadcasting. Floats: a NaN operand gives NaN under PROPAGATE; under
/// IGNORE the other operand (NaN only when both are NaN). The result is one of the operands, so
/// it needs no rounding.
template <tosa::op O>
  requires(O == tosa::op::maximum || O == tosa::op::minimum)
[[nodiscard]] status eval_extremum(const op_context& c) {
  constexpr bool is_max = O == tosa::op::maximum;
  const auto* m = c.attr<graph::nan_mode_attr>();
  if (m == nullptr)
    return c.fail(errc::invalid_graph, {}, std::string(tosa::name(O)) + " needs a nan_mode_attr (nan_mode)");
  const bool propagate = m->nan != graph::nan_mode::ignore;
  auto pick = [](auto x, auto y) { return is_max ? (x >= y ? x : y) : (x < y ? x : y); };
  return eval_binary(
      c, tosa::name(O), "INT32, FP16, BF16, FP32", [](dtype::id d) { return d == dtype::id::i32; },
      [&](std::int64_t x, std::int64_t y, std::size_t, std::int64_t& out) -> status {
        out = pick(x, y);
        return std::nullopt;
      },
      [&](float x, float y) {
        if (std::isnan(x) || std::isnan(y)) return propagate ? std::numeric_limits<float>::quiet_NaN() : std::isnan(x) ? y : x;
        return pick(x, y);
      });
}

/// MUL [input1, input2, shift] (TOSA 1.0 / 1.1 MUL pseudocode): shift is INT8 [1] (CTC),
/// REQUIRE 0 ≤ shift ≤ 63, REQUIRE shift == 0 unless in_t is INT32 ("scaling only allowed for
/// i32"; the reference model ignores such a shift, which the spec leaves unpredictable, so it is
/// refused here). i8×i8 and i16×i16 give INT32; INT32 with shift > 0 rounds
/// `(a·b + 2^(shift−1)) >> shift` and REQUIREs the result to fit INT32; with shift 0 the result
/// is the low 32 bits of the product (`apply_mul_s`). The 1.1 INT64 row (EXT-INT64) gives INT64:
/// the low 64 bits of the product, as `apply_mul_s<i64_t>` and the reference model wrap it.
/// Floats: rounded product.
[[nodiscard]] inline status eval_mul(const op_context& c) {
  if (auto e = c.expect_type(2, dtype::id::i8, "shift")) return e;
  if (auto e = c.expect_single(2, "shift")) return e;
  if (auto e = c.require_constant(2, "shift")) return e;
  std::vector<std::int32_t> shape;
  std::vector<std::int64_t> ia, ib;
  if (auto e = binary_operands(c, shape, ia, ib)) return e;
  const auto& a = c.in(0);
  const auto& b = c.in(1);
  const auto t = a.type;
  const std::int64_t shift = c.in(2).ints[0];
  if (shift < 0 || shift > 63)
    return c.fail(errc::require, c.in_name(2), "shift " + std::to_string(shift) + " is outside 0..63");
  if (shift != 0 && t != dtype::id::i32)
    return c.fail(errc::require, c.in_name(2),
                  "shift must be 0 unless in_t is INT32 (in_t is " + std::string(dtype::name(t)) + ")");
  const auto n = ia.size();
  if (t == dtype::id::i8 || t == dtype::id::i16 || t == dtype::id::i32) {
    value r{dtype::id::i32, shape, {}, {}, {}};
    r.ints.reset(int_width::w32, n);
    for (std::size_t k = 0; k < n; ++k) {
      // |a·b| < 2^62 for INT32 operands, so the product is exact in int64.
      std::int64_t p = a.ints[static_cast<std::size_t>(ia[k])] * b.ints[static_cast<std::size_t>(ib[k])];
      if (shift > 0) {
        p = (p + (std::int64_t{1} << (shift - 1))) >> shift;
        if (p < std::numeric_limits<std::int32_t>::min() || p > std::numeric_limits<std::int32_t>::max())
          return c.fail(errc::require, c.out_name(0),
                        "the shifted product at element " + std::to_string(k) + " does not fit INT32");
      } else {
        p = static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(p)));
      }
      r.ints.set(k, p);
    }
    return c.set(0, std::move(r));
  }
  if (t == dtype::id::i64) {
    value r{dtype::id::i64, shape, {}, {}, {}};
    r.ints.reset(int_width::w64, n);
    for (std::size_t k = 0; k < n; ++k) {
      // Two's-complement wrap: multiply as uint64 (defined modulo 2^64), then reinterpret.
      const auto p = static_cast<std::uint64_t>(a.ints[static_cast<std::size_t>(ia[k])]) *
                     static_cast<std::uint64_t>(b.ints[static_cast<std::size_t>(ib[k])]);
      r.ints.set(k, static_cast<std::int64_t>(p));
    }
    return c.set(0, std::move(r));
  }
  if (is_real(t)) {
    value r{t, shape, {}, {}, {}};
    r.reals.resize(n);
    for (std::size_t k = 0; k < n; ++k)
      r.reals[k] = round_to(t, static_cast<double>(a.reals[static_cast<std::size_t>(ia[k])]) *
                                   static_cast<double>(b.reals[static_cast<std::size_t>(ib[k])]));
    return c.set(0, std::move(r));
  }
  return c.fail(errc::unsupported, c.in_name(0),
                "MUL of " + std::string(dtype::name(t)) + " (rows: INT8, INT16, INT32, INT64, FP16, BF16, FP32)");
}

/// CLAMP [input] with `clamp_attr` (SPEC-1.0 CLAMP; rows i8, i16, fp16, bf16, fp32):
/// ERROR_IF min_val > max_val or a bound is NaN; integer bounds must be integers of in_out_t;
/// float bounds are taken in in_out_t. NaN input: PROPAGATE gives NaN, IGNORE gives min_val
/// (apply_max_s then apply_min_s).
[[nodiscard]] inline status eval_clamp(const op_context& c) {
  const auto* a = c.attr<graph::clamp_attr>();
  if (a == nullptr) return c.fail(errc::invalid_graph, {}, "CLAMP needs a clamp_attr (min_val, max_val)");
  const auto& x = c.in(0);
  const auto t = x.type;
  if (std::isnan(a->min_val) || std::isnan(a->max_val))
    return c.fail(errc::error_if, c.in_name(0), "min_val and max_val must not be NaN");
  if (a->max_val < a->min_val)
    return c.fail(errc::error_if, c.in_name(0),
                  "max_val " + std::to_string(a->max_val) + " < min_val " + std::to_string(a->min_val));
  if (auto e = c.expect_out_shape(0, x.shape)) return e;
  if (t == dtype::id::i8 || t == dtype::id::i16) {
    const auto& ti = dtype::traits(t);
    for (double bound : {a->min_val, a->max_val})
      if (bound != std::floor(bound) || bound < static_cast<double>(ti.int_min) || bound > static_cast<double>(ti.int_max))
        return c.fail(errc::error_if, c.in_name(0),
                      "bound " + std::to_string(bound) + " is not an " + std::string(ti.name) + " value");
  } else if (!is_real(t)) {
    return c.fail(errc::unsupported, c.in_name(0),
                  "CLAMP of " + std::string(dtype::name(t)) + " (rows: INT8, INT16, FP16, BF16, FP32)");
  }
  if (auto e = c.expect_out_type(0, t)) return e;
  // The rest reads only the input's elements: a session runs it directly on later runs (`prepare`).
  auto rest = [lo = a->min_val, hi = a->max_val, propagate = a->nan != graph::nan_mode::ignore](const op_context& c) -> status {
    const auto& x = c.in(0);
    const auto clamp_ints = [&](auto from) {  // INT8 / INT16 at their storage width; the bounds are values of it
      using T = typename decltype(from)::value_type;
      const auto l = static_cast<T>(lo), h = static_cast<T>(hi);
      const auto to = c.result_buffer<T>(0);
      for (std::size_t k = 0; k < from.size(); ++k) to[k] = from[k] < l ? l : from[k] > h ? h : from[k];
      return c.commit(0);
    };
    if (x.type == dtype::id::i8) return clamp_ints(x.ints.get<std::int8_t>());
    if (x.type == dtype::id::i16) return clamp_ints(x.ints.get<std::int16_t>());
    const float l = round_to(x.type, lo), h = round_to(x.type, hi);
    const auto to = c.result_buffer<float>(0);
    for (std::size_t k = 0; k < x.reals.size(); ++k) {
      const float v = x.reals[k];
      to[k] = std::isnan(v) ? (propagate ? v : l) : v < l ? l : v > h ? h : v;
    }
    return c.commit(0);
  };
  if ((t == dtype::id::i8 || t == dtype::id::i16) && c.preparable({0}))  // as `settle` may run it in a fused linear layer
    c.cache->clamp_int[c.index] = std::array<std::int32_t, 2>{static_cast<std::int32_t>(a->min_val), static_cast<std::int32_t>(a->max_val)};
  c.prepare(rest, {0});
  return rest(c);
}

/// True for FP8E4M3 and FP8E5M2 (the CAST rows of EXT-FP8E4M3 / EXT-FP8E5M2).
[[nodiscard]] constexpr bool is_fp8(dtype::id t) noexcept {
  return t == dtype::id::fp8e4m3 || t == dtype::id::fp8e5m2;
}

/// True when the interpreter runs CAST from `from` to `to`: the SPEC-1.0 rows among BOOL,
/// INT8/16/32, FP16, BF16, FP32, FP8E4M3, FP8E5M2 and the 1.1 rows INT32 ↔ INT64 (EXT-INT64)
/// and BOOL ↔ FP32 (PRO-FP).
[[nodiscard]] constexpr bool cast_supported(dtype::id from, dtype::id to) noexcept {
  using dtype::id;
  auto small_int = [](id t) { return t == id::i8 || t == id::i16 || t == id::i32; };
  if (from == to) return false;
  if (is_fp8(from)) return is_real(to);
  if (is_fp8(to)) return is_real(from);
  if (from == id::boolean) return small_int(to) || to == id::fp32;
  if (to == id::boolean && from == id::fp32) return true;
  if (small_int(from))
    return to == id::boolean || small_int(to) || is_real(to) || (from == id::i32 && to == id::i64);
  if (from == id::i64) return to == id::i32;
  if (is_real(from)) return small_int(to) || is_real(to);
  return false;
}

/// CAST [input] (TOSA CAST pseudocode): int→int narrowing keeps the low bits (two's complement),
/// widening sign-extends; int→BOOL and FP32→BOOL are `x != 0` (so ±0 → false, NaN → true, as
/// the reference model), BOOL→int and BOOL→FP32 are 0/1; int→float and float→float
/// round to nearest-even (overflow to ±Inf); float→int rounds to nearest-even and saturates
/// (REQUIRE: input not NaN); to FP8 is the OCP non-saturating RNE conversion (E4M3 overflow →
/// NaN, E5M2 → ±Inf; `mx::encode` with `overflow::propagate`), from FP8 is exact then rounded.
/// The result dtype is the declared result tensor's.
[[nodiscard]] inline status eval_cast(const op_context& c) {
  const auto& x = c.in(0);
  const auto from = x.type;
  const auto to = c.out(0).type;
  if (!cast_supported(from, to))
    return c.fail(errc::unsupported, c.out_name(0),
                  "CAST from " + std::string(dtype::name(from)) + " to " + std::string(dtype::name(to)) +
                      " is not a CAST row the interpreter runs");
  if (auto e = c.expect_out_shape(0, x.shape)) return e;
  value r{to, x.shape, {}, {}, {}};
  const auto n = static_cast<std::size_t>(x.size());
  const auto& to_info = dtype::traits(to);
  if (is_fp8(to)) {
    r.codes.resize(n);
    for (std::size_t k = 0; k < n; ++k) r.codes[k] = armlower::mx::encode(to, x.reals[k], armlower::mx::overflow::propagate);
  } else if (is_fp8(from)) {
    r.reals.resize(n);
    for (std::size_t k = 0; k < n; ++k) r.reals[k] = round_to(to, armlower::mx::decode(from, x.codes[k]));
  } else if (to == dtype::id::boolean && is_real(from)) {  // out = (in != 0)
    r.ints.reset(int_width_of(to), n);
    for (std::size_t k = 0; k < n; ++k) r.ints.set(k, x.reals[k] != 0.0f ? 1 : 0);
  } else if (storage_of(from) == storage::integer && storage_of(to) == storage::integer) {
    r.ints.reset(int_width_of(to), n);
    const unsigned bits = to_info.bits;
    for (std::size_t k = 0; k < n; ++k) {
      const std::int64_t v = x.ints[k];
      if (to == dtype::id::boolean) {
        r.ints.set(k, v != 0 ? 1 : 0);
      } else if (bits >= 64) {
        r.ints.set(k, v);
      } else {
        const auto u = static_cast<std::uint64_t>(v) & ((std::uint64_t{1} << bits) - 1);
        const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
        r.ints.set(k, static_cast<std::int64_t>((u ^ sign) - sign));  // sign-extend the low bits
      }
    }
  } else if (storage_of(from) == storage::integer) {  // int → float
    r.reals.resize(n);
    for (std::size_t k = 0; k < n; ++k) r.reals[k] = round_to(to, static_cast<double>(x.ints[k]));
  } else if (storage_of(to) == storage::integer) {  // float → int
    r.ints.reset(int_width_of(to), n);
    const auto lo = static_cast<double>(to_info.int_min);
    const auto hi = static_cast<double>(to_info.int_max);
    for (std::size_t k = 0; k < n; ++k) {
      const double v = x.reals[k];
      if (std::isnan(v))
        return c.fail(errc::require, c.in_name(0),
                      "element " + std::to_string(k) + " is NaN; CAST of NaN to an integer is unpredictable");
      const double rv = std::rint(v);
      r.ints.set(k, static_cast<std::int64_t>(rv < lo ? lo : rv > hi ? hi : rv));
    }
  } else {  // float → float
    r.reals.resize(n);
    for (std::size_t k = 0; k < n; ++k) r.reals[k] = round_to(to, x.reals[k]);
  }
  return c.set(0, std::move(r));
}

// --------------------------------------------------------------------------------------------
// Kernel bindings (`kernel<O>`, context.hpp)

template <>
struct kernel<tosa::op::add> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_add(c); }
};
template <>
struct kernel<tosa::op::maximum> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_extremum<tosa::op::maximum>(c); }
};
template <>
struct kernel<tosa::op::minimum> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_extremum<tosa::op::minimum>(c); }
};
template <>
struct kernel<tosa::op::mul> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_mul(c); }
};
template <>
struct kernel<tosa::op::clamp> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_clamp(c); }
};
template <>
struct kernel<tosa::op::cast> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_cast(c); }
};

}  // namespace armlower::run::detail
