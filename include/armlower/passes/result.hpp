/// @file armlower/passes/result.hpp
/// Error values of the lowering passes: every failure names the pass, the operator (with its
/// index in the graph), the tensor and the rule that was broken, e.g.
/// `DecomposeLinear: op #3 linear, tensor "fc1_weight": weights must be constant`.
/// Hosted only.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace armlower::passes {

/// A lowering error: which pass, which operator, which tensor, which rule.
struct lowering_error {
  std::string pass;    ///< pass name ("FoldAndAnnotateQParams", "Validate", ...)
  std::string op;      ///< operator, e.g. "op #3 CONV2D" (may be empty for graph-level errors)
  std::string tensor;  ///< tensor name (may be empty)
  std::string rule;    ///< the rule, as a sentence

  /// One line: `<pass>: <op>, tensor "<tensor>": <rule>`.
  [[nodiscard]] std::string message() const {
    std::string m = pass + ": ";
    if (!op.empty()) m += op;
    if (!tensor.empty()) m += (op.empty() ? "" : ", ") + std::string("tensor \"") + tensor + "\"";
    if (!op.empty() || !tensor.empty()) m += ": ";
    return m + rule;
  }
};

/// Either a value or a `lowering_error` (C++20 stand-in for `std::expected`).
template <class T>
class [[nodiscard]] result {
 public:
  result(T v) : v_(std::move(v)) {}                      // NOLINT(google-explicit-constructor)
  result(lowering_error e) : v_(std::move(e)) {}         // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }
  /// The value; precondition `has_value()`.
  [[nodiscard]] T& value() & { return std::get<0>(v_); }
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  [[nodiscard]] T& operator*() & { return std::get<0>(v_); }
  [[nodiscard]] const T& operator*() const& { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  /// The error; precondition `!has_value()`.
  [[nodiscard]] const lowering_error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, lowering_error> v_;
};

/// Success-or-error of a pass that modifies a graph in place.
struct done {};
using pass_status = result<done>;

}  // namespace armlower::passes
