/// @file armlower/dtype/with_dtype.hpp
/// The run-time → compile-time bridge for dtypes: `with_dtype(id, f)` calls `f(tag<id>{})` with
/// the tag type of a run-time dtype, through a constant table of one function per dtype (one
/// indirect call, no `switch`). The one mechanism that picks a kernel instantiation from a
/// run-time dtype — the interpreter (run/), the MX kernel entry
/// (`kernels::mx::matmul_t_block_scaled`) and the Cortex-M plan use it —, while a caller with a
/// compile-time dtype calls the `template <dtype::id>` entry directly and gets only that
/// instantiation. Firmware-clean (no Boost, no heap, no exceptions, no static initialisation:
/// the table is a constant expression).
#pragma once

#include <cstddef>
#include <utility>

#include <armlower/dtype/dtype.hpp>

namespace armlower::dtype {

namespace detail {
template <class F, std::size_t I>
constexpr decltype(auto) call_with_tag(F& f) {
  return f(tag<static_cast<id>(I)>{});
}
template <class F, std::size_t... I>
constexpr decltype(auto) with_dtype_impl(std::size_t k, F& f, std::index_sequence<I...>) {
  using R = decltype(f(tag<static_cast<id>(0)>{}));
  constexpr R (*table[])(F&) = {&call_with_tag<F, I>...};
  return table[k](f);
}
}  // namespace detail

/// Calls `f(tag<d>{})` for the run-time dtype `d` and returns its result (one instantiation of
/// `f` per dtype; every instantiation must return the same type). Precondition: `d` is one of
/// the `id` enumerators (`static_cast<std::size_t>(d) < dtype::count`).
template <class F>
constexpr decltype(auto) with_dtype(id d, F&& f) {
  return detail::with_dtype_impl(static_cast<std::size_t>(d), f, std::make_index_sequence<count>{});
}

}  // namespace armlower::dtype
