/// @file armlower/dtype/lattice.hpp
/// The dtype lattice: exact representability as a partial order (`representable_in(a, b)`,
/// a ⊑ b: every value of a is a value of b) and its join (`join(a, b)`: the least dtype both
/// are representable in, or none).
///
/// The order is *derived* from the number-format facts of the one dtype table
/// (`dtype.hpp`: integer ranges, exponent/mantissa widths, bias, largest finite value,
/// Inf/NaN, MXINT8's fixed-point fraction bits), not listed by hand. Each dtype denotes a set
/// of values:
///  - integers: the integers in [int_min, int_max] (INT4: −7..7);
///  - MXINT8: code · 2^−6 for codes −128..127;
///  - floats: ±N·2^q with N < 2^(mantissa_bits+1), q ≥ qmin = 1 − bias − mantissa_bits, up to
///    float_max, plus ±0 and Inf/NaN when the format has them;
///  - FP8UE8M0: 2^−127..2^127 and NaN (no zero, no sign);
///  - BOOL and SHAPE are not numeric: each is comparable only with itself.
/// a ⊑ b is set inclusion (NaN ⊑ NaN, Inf ⊑ Inf). Consequences: i4 ⊑ i8 ⊑ i16 ⊑ i32 ⊑ i48 ⊑ i64;
/// fp4e2m1 ⊑ fp6e2m3 ⊑ fp8e4m3 ⊑ fp16 ⊑ fp32; fp6e3m2 ⊑ fp8e5m2 ⊑ fp16; bf16 ⊑ fp32;
/// i8 ⊑ fp16; i16 ⊑ fp32; mxint8 ⊑ fp16; fp8ue8m0 ⊑ bf16.
/// Laws (reflexive, antisymmetric, transitive; join commutative, idempotent, least upper bound)
/// are proven exhaustively by `static_assert` in tests/static/.
/// Firmware-clean: standard headers only, no allocation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <armlower/dtype/dtype.hpp>

namespace armlower::dtype {

namespace detail {

/// The value set of a dtype in one of two shapes (see the file comment).
struct value_set {
  enum class kind : std::uint8_t { opaque, grid, floating } k = kind::opaque;
  // grid: { c · 2^q : lo ≤ c ≤ hi }
  int q = 0;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  // floating: ±N·2^e, N < 2^p, e ≥ qmin, |x| ≤ max
  int p = 0;
  int qmin = 0;
  double max = 0;
  bool is_signed = false;
  bool has_zero = false;
  bool has_inf = false;
  bool has_nan = false;
};

[[nodiscard]] constexpr value_set values_of(id d) noexcept {
  const info& t = traits(d);
  value_set v;
  if (t.fam == family::integer) {
    v.k = value_set::kind::grid;
    v.lo = t.int_min;
    v.hi = t.int_max;
  } else if (t.fraction_bits != 0) {  // MXINT8: two's complement code · 2^-fraction_bits
    v.k = value_set::kind::grid;
    v.q = -static_cast<int>(t.fraction_bits);
    v.lo = -(std::int64_t{1} << (t.bits - 1));
    v.hi = (std::int64_t{1} << (t.bits - 1)) - 1;
  } else if (t.fam == family::floating || t.fam == family::block_scale) {
    v.k = value_set::kind::floating;
    const bool subnormals = t.fam != family::block_scale;  // E8M0: code 0 is 2^-127
    const int emin = (subnormals ? 1 : 0) - t.exponent_bias;
    v.p = t.mantissa_bits + 1;
    v.qmin = emin - t.mantissa_bits;
    v.max = t.float_max;
    v.is_signed = t.is_signed;
    v.has_zero = subnormals;
    v.has_inf = t.has_inf;
    v.has_nan = t.has_nan;
  }
  return v;
}

/// 2^e as a double (e may be negative).
[[nodiscard]] constexpr double pow2(int e) noexcept {
  double r = 1.0;
  for (; e > 0; --e) r *= 2.0;
  for (; e < 0; ++e) r /= 2.0;
  return r;
}

/// x · 2^shift lies in [lo, hi] (shift ≥ 0), without overflow.
[[nodiscard]] constexpr bool scaled_in(std::int64_t x, int shift, std::int64_t lo,
                                       std::int64_t hi) noexcept {
  for (int i = 0; i < shift; ++i) {
    if (x > (std::int64_t{1} << 61) || x < -(std::int64_t{1} << 61)) return false;
    x *= 2;
  }
  return lo <= x && x <= hi;
}

[[nodiscard]] constexpr double magnitude(std::int64_t x) noexcept {
  return x < 0 ? -static_cast<double>(x) : static_cast<double>(x);
}

[[nodiscard]] constexpr bool subset(const value_set& a, const value_set& b) noexcept {
  using k = value_set::kind;
  if (a.k == k::opaque || b.k == k::opaque) return false;  // reflexive case handled by caller
  if (a.k == k::grid && b.k == k::grid) {
    return a.q >= b.q && scaled_in(a.lo, a.q - b.q, b.lo, b.hi) &&
           scaled_in(a.hi, a.q - b.q, b.lo, b.hi);
  }
  if (a.k == k::grid) {  // grid into float: every c · 2^q, lo ≤ c ≤ hi
    const bool has_negative = a.lo < 0;
    const bool has_zero = a.lo <= 0 && a.hi >= 0;
    const double big = magnitude(a.lo) > magnitude(a.hi) ? magnitude(a.lo) : magnitude(a.hi);
    return (!has_negative || b.is_signed) && (!has_zero || b.has_zero) && a.q >= b.qmin &&
           big <= pow2(b.p) && big * pow2(a.q) <= b.max;
  }
  if (b.k == k::grid) {  // float into grid: finite only, multiples of 2^q, inside the range
    return !a.has_inf && !a.has_nan && a.qmin >= b.q &&
           a.max <= static_cast<double>(b.hi) * pow2(b.q) &&
           (!a.is_signed || -a.max >= static_cast<double>(b.lo) * pow2(b.q)) &&
           (!a.has_zero || (b.lo <= 0 && b.hi >= 0));
  }
  return (!a.is_signed || b.is_signed) && (!a.has_zero || b.has_zero) &&
         (!a.has_inf || b.has_inf) && (!a.has_nan || b.has_nan) && a.p <= b.p &&
         a.qmin >= b.qmin && a.max <= b.max;
}

}  // namespace detail

namespace detail {
/// The order as a matrix, derived once from the value sets at compile time.
[[nodiscard]] constexpr std::array<std::array<bool, count>, count> compute_order() noexcept {
  std::array<std::array<bool, count>, count> m{};
  for (std::size_t a = 0; a < count; ++a) {
    for (std::size_t b = 0; b < count; ++b) {
      m[a][b] = a == b || subset(values_of(static_cast<id>(a)), values_of(static_cast<id>(b)));
    }
  }
  return m;
}
inline constexpr std::array<std::array<bool, count>, count> order = compute_order();
}  // namespace detail

/// a ⊑ b: every value of dtype `a` is exactly representable in dtype `b` (see the file
/// comment for the value sets). Reflexive for every dtype, including BOOL and SHAPE.
[[nodiscard]] constexpr bool representable_in(id a, id b) noexcept {
  return detail::order[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
}

/// The join a ⊔ b: the dtype c with a ⊑ c and b ⊑ c that is ⊑ every other such dtype; empty
/// when no dtype holds both (i32 ⊔ fp32) or the common upper bounds have no least element
/// (fp8e4m3 ⊔ fp8e5m2: fp16 and bf16 both hold both, neither holds the other).
[[nodiscard]] constexpr std::optional<id> join(id a, id b) noexcept {
  std::optional<id> best;
  for (std::size_t i = 0; i < count; ++i) {
    const id c = static_cast<id>(i);
    if (representable_in(a, c) && representable_in(b, c) && (!best || representable_in(c, *best)))
      best = c;
  }
  if (!best) return best;
  for (std::size_t i = 0; i < count; ++i) {
    const id c = static_cast<id>(i);
    if (representable_in(a, c) && representable_in(b, c) && !representable_in(*best, c))
      return std::nullopt;
  }
  return best;
}

}  // namespace armlower::dtype
