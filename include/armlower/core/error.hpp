/// @file armlower/core/error.hpp
/// The one error type of armlower's hosted modules (import, io, passes, serialize, run, the
/// tool): `armlower::error`, one or more `diagnostic`s, each with a machine-readable `errc`, a
/// `location` (file, stage, operator index in the user's model, op name, tensor) and a one-line
/// message; and `armlower::expected<T>`, a value or an `error` (the C++20 stand-in for C++23
/// `std::expected<T, error>`). No accessor throws: reading the value of an `expected` that holds
/// an error, or the error of one that holds a value, is a precondition violation that stops the
/// program with a message (it never returns garbage).
///
/// Kernels keep their status enums (`kernels::status`, firmware-clean); hosted code maps them
/// to an `error` with code `errc::kernel` in one place (`run/` for the interpreter).
/// Hosted only (uses std::string and std::vector).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <new>
#include <optional>
#include <vector>

namespace armlower {

/// What kind of failure a diagnostic reports; callers branch on it.
enum class errc : std::uint8_t {
  io,                ///< a file could not be opened, read or written
  malformed,         ///< the bytes are not a valid file of the expected format (flatbuffer
                     ///< verification, .npy header, .tflite/.onnx structure, truncated data)
  unsupported,       ///< a valid input armlower does not handle (op, dtype, attribute, feature)
  not_legal,         ///< an op/dtype row or attribute the target TOSA specification forbids
                     ///< (type-support tables, profiles and extensions, TOSA 1.0 §1.4)
  invalid_graph,     ///< an inconsistent graph: undeclared tensor, operand count, attribute
                     ///< kind, a name written twice, a cycle, graph inputs that do not match
  error_if,          ///< a TOSA ERROR_IF rule fails (the reference model answers TOSA_ERROR)
  require,           ///< a TOSA REQUIRE fails at run time (TOSA_UNPREDICTABLE)
  invalid_argument,  ///< a caller-supplied option or argument is out of its domain
  limit,             ///< a resource limit is exceeded (tensor size, element count)
  kernel,            ///< a kernel returned a failure status (`kernels::status`)
};

/// Printable name of a code ("ERROR_IF", "not legal").
[[nodiscard]] constexpr std::string_view name(errc c) noexcept {
  constexpr std::string_view names[] = {"I/O",   "malformed", "unsupported",      "not legal", "invalid graph",
                                        "ERROR_IF", "REQUIRE", "invalid argument", "limit",     "kernel"};
  const auto i = static_cast<std::size_t>(c);
  return i < std::size(names) ? names[i] : std::string_view("unknown");
}

/// Where a diagnostic points. Every field is optional (empty / −1 when unknown).
struct location {
  std::string file;            ///< the file concerned (model, .tosa, .npy), as the user named it
  std::string stage;           ///< the component or pass ("reader", "DecomposeLinear", "interpreter")
  std::int64_t op_index = -1;  ///< index of the operator in the user's model (the .tflite/.onnx
                               ///< operator, or the TOSA file's operator), −1 when none
  std::int64_t graph_op = -1;  ///< index of the operator in the graph being processed when it
                               ///< has no model index (ops a pass created), −1 when none
  std::string op;              ///< op name ("CONV2D", "linear"), may be empty
  std::string tensor;          ///< tensor name, may be empty
};

/// One finding: code, location, and the rule as a sentence (no trailing newline).
struct diagnostic {
  errc code = errc::invalid_graph;
  location where;
  std::string message;

  /// One line: `<file>: <stage>: model op #N OP, tensor 'T': [ERROR_IF: |REQUIRE: ]<message>`
  /// (absent parts left out; an op without a model index prints as `op #i OP`).
  [[nodiscard]] std::string line() const {
    std::string m;
    if (!where.file.empty()) m += where.file + ": ";
    if (!where.stage.empty()) m += where.stage + ": ";
    std::string at;
    if (where.op_index >= 0) at = "model op #" + std::to_string(where.op_index);
    else if (where.graph_op >= 0) at = "op #" + std::to_string(where.graph_op);
    if (!where.op.empty()) at += (at.empty() ? "" : " ") + where.op;
    if (!where.tensor.empty()) at += (at.empty() ? "" : ", ") + std::string("tensor '") + where.tensor + "'";
    if (!at.empty()) m += at + ": ";
    if (code == errc::error_if || code == errc::require) m += std::string(name(code)) + ": ";
    return m + message;
  }
};

/// An error: one or more diagnostics, the first being the one that stopped the operation.
/// Passes that check a whole graph report every finding (`add`).
class error {
 public:
  /// An error with one diagnostic.
  error(errc code, location where, std::string message)
      : all_{diagnostic{code, std::move(where), std::move(message)}} {}
  /// An error with one diagnostic.
  explicit error(diagnostic d) : all_{std::move(d)} {}

  /// Code of the first diagnostic.
  [[nodiscard]] errc code() const noexcept { return all_.front().code; }
  /// Location of the first diagnostic.
  [[nodiscard]] const location& where() const noexcept { return all_.front().where; }
  /// Message of the first diagnostic (the rule, without the location).
  [[nodiscard]] const std::string& message() const noexcept { return all_.front().message; }
  /// Every diagnostic, first one first (never empty).
  [[nodiscard]] std::span<const diagnostic> diagnostics() const noexcept { return all_; }
  /// Appends a further finding.
  void add(diagnostic d) { all_.push_back(std::move(d)); }
  /// Appends every finding of `e`.
  void add(const error& e) { all_.insert(all_.end(), e.all_.begin(), e.all_.end()); }
  /// The first diagnostic as one line (`diagnostic::line`).
  [[nodiscard]] std::string line() const { return all_.front().line(); }
  /// Every diagnostic, one line each, joined by '\n' (no trailing newline).
  [[nodiscard]] std::string text() const {
    std::string s;
    for (const auto& d : all_) s += (s.empty() ? "" : "\n") + d.line();
    return s;
  }
  /// Sets the file of every diagnostic that has none (callers that know the path).
  error& in_file(std::string_view file) {
    for (auto& d : all_)
      if (d.where.file.empty()) d.where.file = std::string(file);
    return *this;
  }

 private:
  std::vector<diagnostic> all_;
};

namespace detail {
/// Stops the program: an `expected` was read the wrong way (a caller's bug, not an input error).
[[noreturn]] inline void bad_expected_access(const char* what) noexcept {
  std::fprintf(stderr, "armlower: %s\n", what);
  std::abort();
}
}  // namespace detail

/// A `T` or an `error`. `value()`, `*`, `->` require `has_value()`; `error()` requires
/// `!has_value()`; violating either stops the program (no exception, no garbage).
/// (Storage is a plain union rather than `std::variant`: every `expected<T>` is instantiated in
/// many headers, and the union keeps their compile cost small.)
template <class T>
class [[nodiscard]] expected {
 public:
  expected(T v) : has_(true) { ::new (static_cast<void*>(&val_)) T(std::move(v)); }  // NOLINT(google-explicit-constructor)
  expected(armlower::error e) : has_(false) {                                          // NOLINT(google-explicit-constructor)
    ::new (static_cast<void*>(&err_)) armlower::error(std::move(e));
  }
  /// In-place construction of the value.
  template <class... A>
  explicit expected(std::in_place_t, A&&... a) : has_(true) {
    ::new (static_cast<void*>(&val_)) T(std::forward<A>(a)...);
  }
  expected(const expected& o) : has_(o.has_) {
    if (has_) ::new (static_cast<void*>(&val_)) T(o.val_);
    else ::new (static_cast<void*>(&err_)) armlower::error(o.err_);
  }
  expected(expected&& o) noexcept(std::is_nothrow_move_constructible_v<T>) : has_(o.has_) {
    if (has_) ::new (static_cast<void*>(&val_)) T(std::move(o.val_));
    else ::new (static_cast<void*>(&err_)) armlower::error(std::move(o.err_));
  }
  expected& operator=(const expected& o) {
    if (this != &o) *this = expected(o);
    return *this;
  }
  expected& operator=(expected&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this == &o) return *this;
    destroy();
    has_ = o.has_;
    if (has_) ::new (static_cast<void*>(&val_)) T(std::move(o.val_));
    else ::new (static_cast<void*>(&err_)) armlower::error(std::move(o.err_));
    return *this;
  }
  ~expected() { destroy(); }

  [[nodiscard]] bool has_value() const noexcept { return has_; }
  explicit operator bool() const noexcept { return has_; }

  [[nodiscard]] T& value() & { return *get(); }
  [[nodiscard]] const T& value() const& { return *get(); }
  [[nodiscard]] T&& value() && { return std::move(*get()); }
  [[nodiscard]] T& operator*() & { return *get(); }
  [[nodiscard]] const T& operator*() const& { return *get(); }
  [[nodiscard]] T&& operator*() && { return std::move(*get()); }
  T* operator->() { return get(); }
  const T* operator->() const { return get(); }

  /// The error; precondition `!has_value()`.
  [[nodiscard]] const armlower::error& error() const& {
    if (has_) detail::bad_expected_access("expected::error() called on a value");
    return err_;
  }
  [[nodiscard]] armlower::error&& error() && {
    if (has_) detail::bad_expected_access("expected::error() called on a value");
    return std::move(err_);
  }

 private:
  void destroy() noexcept {
    if (has_) val_.~T();
    else err_.~error();
  }
  T* get() {
    if (!has_) detail::bad_expected_access(err_.line().c_str());
    return &val_;
  }
  const T* get() const {
    if (!has_) detail::bad_expected_access(err_.line().c_str());
    return &val_;
  }
  union {
    T val_;
    armlower::error err_;
  };
  bool has_;
};

/// Success or an `error`.
template <>
class [[nodiscard]] expected<void> {
 public:
  expected() = default;
  expected(armlower::error e) : e_(std::move(e)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool has_value() const noexcept { return !e_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  /// Nothing; precondition `has_value()` (stops the program with the error line otherwise).
  void value() const {
    if (e_) detail::bad_expected_access(e_->line().c_str());
  }
  /// The error; precondition `!has_value()`.
  [[nodiscard]] const armlower::error& error() const& {
    if (!e_) detail::bad_expected_access("expected::error() called on success");
    return *e_;
  }
  [[nodiscard]] armlower::error&& error() && {
    if (!e_) detail::bad_expected_access("expected::error() called on success");
    return std::move(*e_);
  }

 private:
  std::optional<armlower::error> e_;
};

}  // namespace armlower
