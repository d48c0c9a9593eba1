/// @file armlower/run/detail/data_layout.hpp
/// CONST, RESHAPE and TRANSPOSE (TOSA 1.0 "Data layout" / "Data nodes" chapters;
/// TOSA 1.0 chapters/data_layout.adoc; `tosa.xml` argument order). Work on every storage (integers, reals, codes).
#pragma once

#include <armlower/run/detail/context.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace armlower::run::detail {

/// Row-major strides of `shape` (in elements).
[[nodiscard]] inline std::vector<std::int64_t> strides_of(const std::vector<std::int32_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

/// A value of dtype `t` and `shape` whose element k is element `index[k]` of `src`.
[[nodiscard]] inline value gather(const value& src, dtype::id t, std::vector<std::int32_t> shape,
                                  const std::vector<std::int64_t>& index) {
  value r{t, std::move(shape), {}, {}, {}};
  auto pick = [&](const auto& from, auto& to) {
    to.resize(index.size());
    for (std::size_t k = 0; k < index.size(); ++k) to[k] = from[static_cast<std::size_t>(index[k])];
  };
  switch (storage_of(t)) {
    case storage::integer:  // at the storage width of both (same dtype)
      r.ints.reset(src.ints.width(), index.size());
      src.ints.visit([&](auto from) {
        const auto to = r.ints.get<typename decltype(from)::value_type>();
        for (std::size_t k = 0; k < index.size(); ++k) to[k] = from[static_cast<std::size_t>(index[k])];
      });
      break;
    case storage::real: pick(src.reals, r.reals); break;
    case storage::code: pick(src.codes, r.codes); break;
  }
  return r;
}

/// CONST: the result is the constant payload of its tensor (decoded by the interpreter; in a
/// `run::session`, decoded on the first run into the session's cache and reused).
[[nodiscard]] inline status eval_const(const op_context& c) {
  const auto& t = c.out(0);
  if (!t.is_constant)
    return c.fail(errc::invalid_graph, t.name, "the result of CONST must be a constant tensor with a payload");
  try {
    c.bind_constant(c.out_slot(0), t);
    c.prepare(eval_const, {});  // a session's later runs: only the binding of the cached value
    return std::nullopt;
  } catch (const std::invalid_argument& e) {
    return c.fail(errc::invalid_graph, t.name, e.what());
  }
}

/// The elements of operand 0 of `c`, copied into result 0 (its buffer reused in a session) and committed:
/// RESHAPE once its checks passed (precondition: the result is declared with the operand's dtype and
/// the operand's element count).
[[nodiscard]] inline status reshape_elements(const op_context& c) {
  const auto& x = c.in(0);
  const auto copy = [&c](auto from) {
    const auto to = c.result_buffer<typename decltype(from)::value_type>(0);
    std::copy(from.begin(), from.end(), to.begin());
    return c.commit(0);
  };
  switch (storage_of(x.type)) {
    case storage::integer: return x.ints.visit(copy);
    case storage::real: return copy(std::span<const float>(x.reals));
    case storage::code: break;
  }
  return copy(std::span<const std::uint8_t>(x.codes));
}

/// RESHAPE [input1, shape] (SPEC-1.0 RESHAPE): ERROR_IF element counts differ; shape is a
/// SHAPE tensor (CTC) of length rank(output) whose values are the output dims.
[[nodiscard]] inline status eval_reshape(const op_context& c) {
  const auto& x = c.in(0);
  const auto& s = c.in(1);
  if (auto e = c.expect_type(1, dtype::id::shape, "the shape operand")) return e;
  if (auto e = c.require_constant(1, "the shape operand")) return e;
  if (s.shape.size() != 1)
    return c.fail(errc::error_if, c.in_name(1), "the shape operand must be rank 1, is " + to_string(s.shape));
  const auto& o = c.out(0);
  if (o.type != x.type)
    return c.fail(errc::error_if, o.name,
                  "RESHAPE output dtype " + std::string(dtype::name(o.type)) + " differs from input1's " +
                      std::string(dtype::name(x.type)));
  std::vector<std::int32_t> shape;
  for (const auto d : s.ints.widened()) {
    if (d < 1 || d > max_elements)
      return c.fail(errc::error_if, c.in_name(1), "shape value " + std::to_string(d) + " is not a dim >= 1");
    shape.push_back(static_cast<std::int32_t>(d));
  }
  if (auto m = check_shape(shape); !m.empty()) return c.fail(errc::error_if, c.in_name(1), m);
  if (graph::element_count(shape) != x.size())
    return c.fail(errc::error_if, c.in_name(1),
                  "tensor_size(shape " + to_string(shape) + ") != tensor_size(input1 " + to_string(x.shape) + ")");
  if (auto e = c.expect_out_shape(0, shape)) return e;
  // The rest copies the elements only: a session runs it directly on later runs (`prepare`), and
  // `settle` may fuse it into the linear layer it feeds or follows.
  if (c.preparable({0})) c.cache->same_elements[c.index] = 1;
  c.prepare(reshape_elements, {0});
  return reshape_elements(c);
}

/// TRANSPOSE [input1] with `transpose_attr::perms` (SPEC-1.0 TRANSPOSE): ERROR_IF rank < 1,
/// perms not a permutation of 0..rank-1, output dtype or shape[i] != input.shape[perms[i]].
[[nodiscard]] inline status eval_transpose(const op_context& c) {
  const auto* a = c.attr<graph::transpose_attr>();
  if (a == nullptr) return c.fail(errc::invalid_graph, {}, "TRANSPOSE needs a transpose_attr (perms)");
  const auto& x = c.in(0);
  const auto rank = x.shape.size();
  if (rank < 1) return c.fail(errc::error_if, c.in_name(0), "rank(input1) must be >= 1");
  if (a->perms.size() != rank)
    return c.fail(errc::error_if, c.in_name(0),
                  "perms has " + std::to_string(a->perms.size()) + " entries for rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (auto p : a->perms) {
    if (p < 0 || static_cast<std::size_t>(p) >= rank || seen[static_cast<std::size_t>(p)])
      return c.fail(errc::error_if, c.in_name(0), "perms is not a permutation of 0..rank-1");
    seen[static_cast<std::size_t>(p)] = true;
  }
  if (c.out(0).type != x.type)
    return c.fail(errc::error_if, c.out_name(0), "TRANSPOSE output dtype differs from input1's");
  std::vector<std::int32_t> shape(rank);
  for (std::size_t i = 0; i < rank; ++i) shape[i] = x.shape[static_cast<std::size_t>(a->perms[i])];
  if (auto e = c.expect_out_shape(0, shape)) return e;
  const auto in_strides = strides_of(x.shape);
  // Output element at index o reads input element with index[perms[i]] = o[i].
  std::vector<std::int64_t> step(rank);
  for (std::size_t i = 0; i < rank; ++i) step[i] = in_strides[static_cast<std::size_t>(a->perms[i])];
  const auto n = static_cast<std::size_t>(x.size());
  std::vector<std::int64_t> index(n);
  std::vector<std::int32_t> o(rank, 0);
  std::int64_t src = 0;
  for (std::size_t k = 0; k < n; ++k) {
    index[k] = src;
    for (std::size_t d = rank; d-- > 0;) {  // odometer increment of the output index
      if (++o[d] < shape[d]) {
        src += step[d];
        break;
      }
      src -= step[d] * (shape[d] - 1);
      o[d] = 0;
    }
  }
  return c.set(0, gather(x, x.type, std::move(shape), index));
}

// --------------------------------------------------------------------------------------------
// Kernel bindings (`kernel<O>`, context.hpp)

template <>
struct kernel<tosa::op::const_> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_const(c); }
};
template <>
struct kernel<tosa::op::reshape> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_reshape(c); }
};
template <>
struct kernel<tosa::op::transpose> {
  static constexpr bool bound = true;
  [[nodiscard]] static status eval(const op_context& c) { return eval_transpose(c); }
};

}  // namespace armlower::run::detail
