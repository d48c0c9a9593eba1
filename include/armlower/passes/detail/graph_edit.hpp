/// @file armlower/passes/detail/graph_edit.hpp
/// Small graph-editing helpers shared by the passes (internal).
#pragma once

#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/passes/result.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace armlower::passes::detail {

inline constexpr std::size_t npos = static_cast<std::size_t>(-1);

/// Index of the operator producing `name`, or npos.
[[nodiscard]] inline std::size_t producer(const graph::graph& g, const std::string& name) {
  for (std::size_t i = 0; i < g.operators.size(); ++i)
    for (const auto& o : g.operators[i].outputs)
      if (o == name) return i;
  return npos;
}

/// Indices of the operators reading `name`.
[[nodiscard]] inline std::vector<std::size_t> users(const graph::graph& g, const std::string& name) {
  std::vector<std::size_t> r;
  for (std::size_t i = 0; i < g.operators.size(); ++i)
    for (const auto& in : g.operators[i].inputs)
      if (in == name) {
        r.push_back(i);
        break;
      }
  return r;
}

/// Producer of every tensor name: name → index of the (first) operator writing it.
[[nodiscard]] inline std::unordered_map<std::string, std::size_t> producers(const graph::graph& g) {
  std::unordered_map<std::string, std::size_t> m;
  m.reserve(g.operators.size());
  for (std::size_t i = 0; i < g.operators.size(); ++i)
    for (const auto& o : g.operators[i].outputs) m.emplace(o, i);
  return m;
}

/// Readers of every tensor name: name → indices of the operators reading it (each once, in order).
[[nodiscard]] inline std::unordered_map<std::string, std::vector<std::size_t>> readers(const graph::graph& g) {
  std::unordered_map<std::string, std::vector<std::size_t>> m;
  m.reserve(g.operators.size() * 2);
  for (std::size_t i = 0; i < g.operators.size(); ++i)
    for (const auto& in : g.operators[i].inputs) {
      auto& v = m[in];
      if (v.empty() || v.back() != i) v.push_back(i);
    }
  return m;
}

[[nodiscard]] inline bool is_graph_output(const graph::graph& g, const std::string& n) {
  return std::find(g.outputs.begin(), g.outputs.end(), n) != g.outputs.end();
}

/// Site of operator `o` at position `i` for findings (`op_site`; `.text()` reads "model op #7
/// linear" when the op comes from operator 7 of the source model, else "op #i NAME").
[[nodiscard]] inline op_site op_label(const graph::operation& o, std::size_t i) { return op_site(o, i); }
/// `op_label` of `g.operators[i]`.
[[nodiscard]] inline op_site op_label(const graph::graph& g, std::size_t i) { return op_label(g.operators[i], i); }

/// Adds a non-constant tensor with a unique name derived from `base`; returns the name.
inline std::string add_tensor(graph::graph& g, const std::string& base, dtype::id t, std::vector<std::int32_t> shape,
                              std::optional<graph::quant_params> q = std::nullopt) {
  auto n = g.unique_name(base);
  g.add(graph::tensor{n, t, std::move(shape), false, {}, std::move(q)});
  return n;
}

/// Adds an integer constant; returns its name.
inline std::string add_int_const(graph::graph& g, const std::string& base, dtype::id t, std::vector<std::int32_t> shape,
                                 std::span<const std::int64_t> v) {
  auto n = g.unique_name(base);
  g.add(graph::make_int_constant(n, t, std::move(shape), v));
  return n;
}

/// Adds a one-element integer constant (zero points).
inline std::string add_scalar_const(graph::graph& g, const std::string& base, dtype::id t, std::int64_t v) {
  const std::int64_t a[1] = {v};
  return add_int_const(g, base, t, {1}, a);
}

/// Adds a SHAPE constant holding `dims` (the `shape` operand of RESHAPE).
inline std::string add_shape_const(graph::graph& g, const std::string& base, const std::vector<std::int32_t>& dims) {
  std::vector<std::int64_t> v(dims.begin(), dims.end());
  return add_int_const(g, base, dtype::id::shape, {static_cast<std::int32_t>(dims.size())}, v);
}

/// Adds an fp32 constant.
inline std::string add_f32_const(graph::graph& g, const std::string& base, std::vector<std::int32_t> shape,
                                 std::span<const float> v) {
  auto n = g.unique_name(base);
  g.add(graph::make_f32_constant(n, std::move(shape), v));
  return n;
}

/// Removes tensors that no operator reads or writes and that are not graph inputs/outputs.
inline void remove_unused_tensors(graph::graph& g) {
  std::unordered_set<std::string> live(g.inputs.begin(), g.inputs.end());
  live.insert(g.outputs.begin(), g.outputs.end());
  for (const auto& o : g.operators) {
    live.insert(o.inputs.begin(), o.inputs.end());
    live.insert(o.outputs.begin(), o.outputs.end());
  }
  std::erase_if(g.tensors, [&](const graph::tensor& t) { return !live.contains(t.name); });
}

/// Product of all dims but the last (1 for rank 1): the batch of a linear.
[[nodiscard]] inline std::int32_t leading_product(const std::vector<std::int32_t>& s) {
  std::int64_t b = 1;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) b *= s[i];
  return static_cast<std::int32_t>(b);
}

/// Wall-clock stopwatch in milliseconds.
struct stopwatch {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  [[nodiscard]] double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
};

/// Name → tensor index map for fast lookups in large graphs; rebuilt by the caller after edits.
[[nodiscard]] inline std::unordered_map<std::string, std::size_t> tensor_index(const graph::graph& g) {
  std::unordered_map<std::string, std::size_t> m;
  m.reserve(g.tensors.size());
  for (std::size_t i = 0; i < g.tensors.size(); ++i) m.emplace(g.tensors[i].name, i);
  return m;
}

}  // namespace armlower::passes::detail
