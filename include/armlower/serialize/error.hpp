/// @file armlower/serialize/error.hpp
/// Error values of the TOSA serializer: every failure of the writer, the reader and the file
/// helpers is a `serialize::error` carrying one line a person can read (what is wrong and
/// where: op index and name, tensor name, rule). No exceptions escape `write`/`read`.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace armlower::serialize {

/// A serialization error: one line, no trailing newline, e.g.
/// `operator 3 (CONV2D): input 1 'w' is not a tensor of the graph`.
struct error {
  std::string message;
};

/// Either a `T` or an `error` (the C++20 stand-in for `std::expected<T, error>`).
/// `value()` throws `std::runtime_error(message)` when it holds an error, for callers that
/// prefer exceptions (tests, tools); `has_value()`/`error()` never throw.
template <class T>
class [[nodiscard]] result {
 public:
  result(T v) : v_(std::in_place_index<0>, std::move(v)) {}              // NOLINT(google-explicit-constructor)
  result(serialize::error e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  /// The value; throws std::runtime_error with the error message when there is none.
  [[nodiscard]] T& value() & {
    check();
    return std::get<0>(v_);
  }
  [[nodiscard]] const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  [[nodiscard]] T&& value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// The error; precondition `!has_value()` (returns an empty error otherwise).
  [[nodiscard]] const serialize::error& error() const noexcept {
    static const serialize::error none{};
    return v_.index() == 1 ? std::get<1>(v_) : none;
  }

 private:
  void check() const {
    if (v_.index() != 0) throw std::runtime_error(std::get<1>(v_).message);
  }
  std::variant<T, serialize::error> v_;
};

/// `result<void>`: success, or an error.
template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(serialize::error e) : err_(std::move(e)), ok_(false) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  /// Throws std::runtime_error with the error message on failure.
  void value() const {
    if (!ok_) throw std::runtime_error(err_.message);
  }
  [[nodiscard]] const serialize::error& error() const noexcept { return err_; }

 private:
  serialize::error err_{};
  bool ok_ = true;
};

}  // namespace armlower::serialize
