/// @file armlower/dtype/dispatch.hpp
/// The dtype bridges: `with_dtype(id, f)` (run-time dtype → `f(tag<id>{})`, from
/// `dtype/with_dtype.hpp`, Boost-free so kernels can use it) and `all_tags`, the Boost.Mp11 list
/// of every dtype tag type, for type-level sweeps (`mp_for_each<all_tags>`). Hosted code and
/// tests only (needs Boost.Mp11); kernels include `dtype/with_dtype.hpp`.
#pragma once

#include <cstddef>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/integral.hpp>
#include <boost/mp11/list.hpp>

#include <armlower/dtype/dtype.hpp>
#include <armlower/dtype/with_dtype.hpp>

namespace armlower::dtype {

namespace detail {
template <class I>
using tag_of_index = tag<static_cast<id>(I::value)>;
}  // namespace detail

/// `mp_list<tag<id::boolean>, tag<id::i4>, ..., tag<id::shape>>` in `id` order.
using all_tags = boost::mp11::mp_transform<detail::tag_of_index, boost::mp11::mp_iota_c<count>>;

}  // namespace armlower::dtype
