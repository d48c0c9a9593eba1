/// @file armlower/dtype/dispatch.hpp
/// The run-time → compile-time bridge for dtypes: `with_dtype(id, f)` calls `f(tag<id>{})`
/// with the tag type of a run-time dtype (Boost.Mp11 `mp_with_index`), and `all_tags`, the
/// list of every dtype tag type, for type-level sweeps (`mp_for_each<all_tags>`).
/// Firmware-clean (Boost.Mp11 only).
#pragma once

#include <cstddef>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/integral.hpp>
#include <boost/mp11/list.hpp>

#include <armlower/dtype/dtype.hpp>

namespace armlower::dtype {

namespace detail {
template <class I>
using tag_of_index = tag<static_cast<id>(I::value)>;
}  // namespace detail

/// `mp_list<tag<id::boolean>, tag<id::i4>, ..., tag<id::shape>>` in `id` order.
using all_tags = boost::mp11::mp_transform<detail::tag_of_index, boost::mp11::mp_iota_c<count>>;

/// Calls `f(tag<d>{})` for the run-time dtype `d` and returns its result. Every instantiation
/// of `f` must return the same type. `d` must be a valid `id` (every enumerator is).
template <class F>
constexpr decltype(auto) with_dtype(id d, F&& f) {
  return boost::mp11::mp_with_index<count>(static_cast<std::size_t>(d), [&](auto i) -> decltype(auto) {
    return std::forward<F>(f)(tag<static_cast<id>(decltype(i)::value)>{});
  });
}

}  // namespace armlower::dtype
