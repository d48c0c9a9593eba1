/// @file armlower/tosa/legality.hpp
/// Legality queries over the one op table (`op_table.hpp`): is an op with these operand
/// dtypes legal on a target, and if not, why (a sentence a person can read); the accumulator
/// dtype of an (input, weight) pair; tensor dtype gating per target. Run-time functions are
/// `constexpr`; the compile-time views (`legal<...>`, `Legal`, `require<...>`) are thin
/// wrappers over them.
///
/// Semantics: a row is legal on a target when the target's version includes the row's
/// version, the target has one of the row's profiles (if any) and supports the row's
/// extensions (any-of / all-of) — MLIR's `checkProfileOrExtension` design
/// (MLIR `TosaComplianceData.h.inc`, generated from the spec XML). Tensor gating follows ExecuTorch `TosaArg.__validate`
/// (`backends/arm/tosa/mapping.py`) plus FP8UE8M0 and MXINT8 only with mxfp.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <armlower/dtype/dtype.hpp>
#include <armlower/tosa/detail/text.hpp>
#include <armlower/tosa/extension.hpp>
#include <armlower/tosa/op.hpp>
#include <armlower/tosa/op_table.hpp>
#include <armlower/tosa/spec.hpp>

namespace armlower::tosa {

/// True when target `t` meets requirement `r` (ignoring versions).
[[nodiscard]] constexpr bool satisfied(const target& t, const requirement& r) noexcept {
  if (!r.profiles.empty() && !r.profiles.intersects(t.profile_flags())) return false;
  if (r.extensions.empty()) return true;
  const ext_set have = t.supported_extensions() & r.extensions;
  return r.cond == condition::all_of ? have == r.extensions : !have.empty();
}

/// Outcome kinds of `check`.
enum class verdict : std::uint8_t {
  legal,            ///< a row matches and the target meets it
  wrong_arity,      ///< the number of dtypes differs from the op's slot count
  no_row,           ///< the op has no row with these dtypes (in any version)
  needs_version,    ///< the matching row(s) need a newer TOSA version
  needs_profile,    ///< the row needs a profile the target lacks
  needs_extension,  ///< the row needs extension(s) the target does not enable
};

/// Result of `check`: the verdict, the matched row (if any) and a readable reason
/// ("CONV2D i16×i8→i48 requires EXT-INT16; TOSA-1.0+INT does not enable it").
struct check_result {
  verdict code = verdict::no_row;          ///< what the check found
  const type_support_row* row = nullptr;  ///< the matching row (null for wrong_arity/no_row)
  detail::fixed_text<320> reason_text{};  ///< storage of `reason()` (UTF-8 × and →)

  /// True when legal.
  [[nodiscard]] constexpr bool ok() const noexcept { return code == verdict::legal; }
  /// `ok()`.
  constexpr explicit operator bool() const noexcept { return ok(); }
  /// Why the combination is (il)legal, one sentence.
  [[nodiscard]] constexpr std::string_view reason() const noexcept { return reason_text.view(); }
};

namespace detail {

template <std::size_t N>
constexpr void append_signature(fixed_text<N>& m, op o, std::span<const dtype::id> ts,
                                bool ascii) noexcept {
  const std::string_view times = ascii ? "x" : "\u00d7";
  const std::string_view arrow = ascii ? "->" : "\u2192";
  auto nm = [](dtype::id d) { return dtype::traits(d).short_name; };
  if (ts.size() == 1) {
    m.append(nm(ts[0]));
  } else if (ts.size() == 2 && o == op::matmul_t_block_scaled) {
    m.append(nm(ts[0])).append(times).append(nm(ts[1])).append(arrow).append("fp32");
  } else if (ts.size() == 2) {
    m.append(nm(ts[0])).append(arrow).append(nm(ts[1]));
  } else if (ts.size() == 3) {
    m.append(nm(ts[0])).append(times).append(nm(ts[1])).append(arrow).append(nm(ts[2]));
  } else {
    for (std::size_t i = 0; i < ts.size(); ++i) m.append(i ? "," : "").append(nm(ts[i]));
  }
}

template <std::size_t N>
constexpr void append_target(fixed_text<N>& m, const target& t) noexcept {
  m.append(t.text().view());
}

template <std::size_t N>
constexpr void append_requirement(fixed_text<N>& m, const requirement& r) noexcept {
  bool first = true;
  for (std::size_t p = 0; p < profile_count; ++p) {
    if (!r.profiles.contains(static_cast<profile>(p))) continue;
    m.append(first ? "" : " or ").append(name(static_cast<profile>(p)));
    first = false;
  }
  if (!r.profiles.empty() && !r.extensions.empty()) m.append(" and ");
  first = true;
  for (std::size_t e = 0; e < ext_count; ++e) {
    if (!r.extensions.contains(static_cast<ext>(e))) continue;
    m.append(first ? "" : (r.cond == condition::all_of ? " and " : " or "))
        .append(name(static_cast<ext>(e)));
    first = false;
  }
}

constexpr check_result check_impl(const target& t, op o, std::span<const dtype::id> ts,
                                  bool ascii) noexcept {
  check_result res;
  auto& m = res.reason_text;
  const op_slots sl = slots(o);
  if (ts.size() != sl.arity) {
    res.code = verdict::wrong_arity;
    m.append(name(o)).append(" takes ").append_uint(sl.arity).append(" dtype");
    m.append(sl.arity == 1 ? " (" : "s (");
    for (std::size_t i = 0; i < sl.arity; ++i) m.append(i ? ", " : "").append(sl.names[i]);
    m.append("), got ").append_uint(ts.size());
    return res;
  }
  // By index, not `find_row(...) == nullptr`: see `find_row_index`.
  const std::size_t row_index = find_row_index(o, ts);
  if (row_index == op_table.size()) {
    res.code = verdict::no_row;
    m.append("no ").append(name(o)).append(" row for ");
    append_signature(m, o, ts, ascii);
    return res;
  }
  const type_support_row* const row = &op_table[row_index];
  res.row = row;
  const tosa::version tv = t.tosa_version();
  if (!available_in(row->added, tv)) {
    res.code = verdict::needs_version;
    bool op_exists = false;
    for (const auto& r : rows_of(o)) op_exists = op_exists || available_in(r.added, tv);
    m.append(name(o));
    if (op_exists) append_signature(m.append(' '), o, ts, ascii);
    m.append(" needs TOSA ").append(name(row->added)).append(" (target is ").append(name(tv)).append(")");
    return res;
  }
  auto sig = [&] {
    m.append(name(o)).append(' ');
    append_signature(m, o, ts, ascii);
    m.append(" requires ");
  };
  if (!row->req.profiles.empty() && !row->req.profiles.intersects(t.profile_flags())) {
    res.code = verdict::needs_profile;
    sig();
    append_requirement(m, requirement{row->req.profiles, {}, condition::any_of});
    m.append("; ");
    append_target(m, t);
    m.append(row->req.profiles.bits == (profile::pro_int | profile::pro_fp).bits
                 ? " enables neither"
                 : " does not enable it");
    return res;
  }
  if (!satisfied(t, row->req)) {
    res.code = verdict::needs_extension;
    sig();
    append_requirement(m, requirement{{}, row->req.extensions, row->req.cond});
    m.append("; ");
    append_target(m, t);
    const ext_set missing = row->req.extensions - t.supported_extensions();
    if (row->req.extensions.size() == 1) {
      m.append(" does not enable it");
    } else if (row->req.cond == condition::any_of) {
      m.append(" enables none of them");
    } else {
      m.append(" does not enable ");
      append_requirement(m, requirement{{}, missing, condition::all_of});
    }
    return res;
  }
  res.code = verdict::legal;
  m.append(name(o)).append(' ');
  append_signature(m, o, ts, ascii);
  m.append(" is legal on ");
  append_target(m, t);
  return res;
}

}  // namespace detail

/// Checks that `o` with operand dtypes `types` (in the op's slot order, see op_table.hpp) is
/// legal on `t`. Never fails; the result carries the verdict and a reason.
[[nodiscard]] constexpr check_result check(const target& t, op o,
                                           std::span<const dtype::id> types) noexcept {
  return detail::check_impl(t, o, types, false);
}
/// `check(t, o, {d...})` with the dtypes as arguments: `check(t, op::conv2d, i16, i8, i48)`.
template <class... D>
  requires(std::convertible_to<D, dtype::id> && ...)
[[nodiscard]] constexpr check_result check(const target& t, op o, D... ds) noexcept {
  const std::array<dtype::id, sizeof...(D)> a{static_cast<dtype::id>(ds)...};
  return detail::check_impl(t, o, std::span<const dtype::id>(a.data(), a.size()), false);
}

/// Hosted: `check(...).reason()` as a `std::string`.
[[nodiscard]] inline std::string explain(const target& t, op o, std::span<const dtype::id> types) {
  return std::string(check(t, o, types).reason());
}

/// The accumulator dtype of an (input, weight) pair of a CONV2D or MATMUL (for MATMUL: A, B),
/// from the first matching row in table order, whatever its requirement; empty when no row
/// matches (e.g. fp8e4m3 × i8) or `o` is neither op.
[[nodiscard]] constexpr std::optional<dtype::id> accumulator_dtype(op o, dtype::id in,
                                                                   dtype::id weight) noexcept {
  if (o != op::conv2d && o != op::matmul) return std::nullopt;
  for (const auto& r : rows_of(o)) {
    if (r.types[0] == in && r.types[1] == weight) return r.acc;
  }
  return std::nullopt;
}
/// As above but only rows legal on `t` (e.g. fp8e4m3 CONV2D: fp32 on 1.1, fp16 on 1.0).
[[nodiscard]] constexpr std::optional<dtype::id> accumulator_dtype(const target& t, op o,
                                                                   dtype::id in,
                                                                   dtype::id weight) noexcept {
  if (o != op::conv2d && o != op::matmul) return std::nullopt;
  for (const auto& r : rows_of(o)) {
    if (r.types[0] == in && r.types[1] == weight && available_in(r.added, t.tosa_version()) &&
        satisfied(t, r.req))
      return r.acc;
  }
  return std::nullopt;
}
/// The accumulator of an (input, weight) pair: CONV2D rows first, then MATMUL rows.
[[nodiscard]] constexpr std::optional<dtype::id> accumulator_dtype(dtype::id in,
                                                                   dtype::id weight) noexcept {
  if (auto a = accumulator_dtype(op::conv2d, in, weight)) return a;
  return accumulator_dtype(op::matmul, in, weight);
}

/// What a target needs before a tensor of dtype `d` may appear at all (ExecuTorch
/// `TosaArg.__validate`): FP32 → PRO-FP; INT4 → int4; BF16 → bf16; FP8E4M3 → fp8e4m3 or mxfp;
/// FP8E5M2 → fp8e5m2 or mxfp; FP4E2M1/FP6E2M3/FP6E3M2 → mxfp; and (armlower, the check
/// ExecuTorch misses) FP8UE8M0/MXINT8 → mxfp. Other dtypes: no requirement.
[[nodiscard]] constexpr requirement tensor_requirement(dtype::id d) noexcept {
  switch (d) {
    case dtype::id::fp32: return {profile::pro_fp, {}, condition::any_of};
    case dtype::id::i4: return {{}, ext::int4, condition::any_of};
    case dtype::id::bf16: return {{}, ext::bf16, condition::any_of};
    case dtype::id::fp8e4m3: return {{}, ext::fp8e4m3 | ext::mxfp, condition::any_of};
    case dtype::id::fp8e5m2: return {{}, ext::fp8e5m2 | ext::mxfp, condition::any_of};
    case dtype::id::fp4e2m1:
    case dtype::id::fp6e2m3:
    case dtype::id::fp6e3m2:
    case dtype::id::fp8ue8m0:
    case dtype::id::mxint8: return {{}, ext::mxfp, condition::any_of};
    default: return {};
  }
}

/// Result of `check_tensor`.
struct tensor_check_result {
  bool allowed = true;                    ///< the dtype may appear on the target
  detail::fixed_text<200> reason_text{};  ///< storage of `reason()`
  /// `allowed`.
  [[nodiscard]] constexpr bool ok() const noexcept { return allowed; }
  /// `allowed`.
  constexpr explicit operator bool() const noexcept { return allowed; }
  /// "TOSA-1.0+INT doesn't support tensor dtype FP32 (needs PRO-FP)"; empty when allowed.
  [[nodiscard]] constexpr std::string_view reason() const noexcept { return reason_text.view(); }
};

/// Tensor dtype gating: may a tensor of dtype `d` appear in a graph for `t`? The rules of
/// `tensor_requirement`, plus ExecuTorch's partitioner rule that BOOL is not supported on the
/// U55 subset (ExecuTorch `backends/arm/operator_support/tosa_supported_operators.py`).
[[nodiscard]] constexpr tensor_check_result check_tensor(const target& t, dtype::id d) noexcept {
  tensor_check_result r;
  if (d == dtype::id::boolean && t.u55) {
    r.allowed = false;
    r.reason_text.append(t.text().view()).append(" doesn't support tensor dtype BOOL (U55 subset)");
    return r;
  }
  const requirement q = tensor_requirement(d);
  if (satisfied(t, q)) return r;
  r.allowed = false;
  r.reason_text.append(t.text().view()).append(" doesn't support tensor dtype ")
      .append(dtype::name(d)).append(" (needs ");
  detail::append_requirement(r.reason_text, q);
  r.reason_text.append(')');
  return r;
}

// ---------------------------------------------------------------- compile-time views ----

/// `legal<Spec, op, dtypes...>`: true when the op with those operand dtypes (tags such as
/// `dtype::i16` or `dtype::id` values) is legal on the compile-time target `Spec`
/// (`spec<"...">`). Usable in `static_assert`.
template <TargetSpec Spec, op O, auto... Ds>
  requires(std::convertible_to<decltype(Ds), dtype::id> && ...)
inline constexpr bool legal =
    check(Spec::value, O, static_cast<dtype::id>(dtype::to_id(Ds))...).ok();

/// Concept form of `legal`.
template <class Spec, op O, auto... Ds>
concept Legal = TargetSpec<Spec> && (std::convertible_to<decltype(Ds), dtype::id> && ...) &&
                legal<Spec, O, Ds...>;

namespace detail {
/// The ASCII reason of an illegal combination as a string literal type (compilers print it).
template <TargetSpec Spec, op O, dtype::id... Ds>
consteval auto illegal_reason_text() {
  constexpr std::array<dtype::id, sizeof...(Ds)> a{Ds...};
  constexpr check_result r = check_impl(Spec::value, O, std::span<const dtype::id>(a), true);
  fixed_string<r.reason_text.len + 1> out;
  for (std::size_t i = 0; i < r.reason_text.len; ++i) out.data[i] = r.reason_text.buf[i];
  return out;
}
/// Instantiated only for an illegal combination; the reason is the first template argument
/// (GCC prints it as text; clang prints the verdict, op and dtypes that follow it).
template <fixed_string Reason, verdict Why, op O, dtype::id... Ds>
struct illegal_tosa_operation {
  static_assert(always_false<Reason>,
                "armlower::tosa::require: the TOSA operation is not legal on the target; the "
                "reason is the template argument of illegal_tosa_operation");
  static constexpr bool value = false;
};
template <TargetSpec Spec, op O, bool Ok, dtype::id... Ds>
struct require_impl {
  static constexpr bool value = true;
};
template <TargetSpec Spec, op O, dtype::id... Ds>
struct require_impl<Spec, O, false, Ds...> {
  static constexpr bool value =
      illegal_tosa_operation<illegal_reason_text<Spec, O, Ds...>(),
                             check(Spec::value, O, Ds...).code, O, Ds...>::value;
};
}  // namespace detail

/// `require<Spec, op, dtypes...>` is `true` when legal and a compile error otherwise, whose
/// text carries the readable reason (e.g. "CONV2D i16xi8->i48 requires EXT-INT16;
/// TOSA-1.0+INT does not enable it"). Use as `static_assert(require<...>)` or in a pass.
template <TargetSpec Spec, op O, auto... Ds>
  requires(std::convertible_to<decltype(Ds), dtype::id> && ...)
inline constexpr bool require =
    detail::require_impl<Spec, O, legal<Spec, O, Ds...>, static_cast<dtype::id>(dtype::to_id(Ds))...>::value;

}  // namespace armlower::tosa
