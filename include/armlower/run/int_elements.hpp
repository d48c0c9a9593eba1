/// @file armlower/run/int_elements.hpp
/// `run::int_elements`: the elements of an integer-stored `run::value` (BOOL, INT4, INT8, INT16,
/// INT32, INT48, INT64, SHAPE) held at their storage width — `std::int8_t` for BOOL/INT4/INT8,
/// `std::int16_t` for INT16, `std::int32_t` for INT32, `std::int64_t` for INT48/INT64/SHAPE — so
/// an INT8 tensor takes one byte per element and a kernel reads it where it is (no widening
/// copy). Element access reads every width as `std::int64_t` (sign-extended). Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace armlower::run {

/// Storage width of an integer-stored dtype's elements in `int_elements`.
enum class int_width : std::uint8_t {
  w8,   ///< `std::int8_t`: BOOL (0/1), INT4, INT8
  w16,  ///< `std::int16_t`: INT16
  w32,  ///< `std::int32_t`: INT32
  w64,  ///< `std::int64_t`: INT48, INT64, SHAPE
};

/// Storage width of integer-stored dtype `t` (see `int_width`; any other dtype gives `w64`).
[[nodiscard]] constexpr int_width int_width_of(dtype::id t) noexcept {
  switch (t) {
    case dtype::id::boolean:
    case dtype::id::i4:
    case dtype::id::i8: return int_width::w8;
    case dtype::id::i16: return int_width::w16;
    case dtype::id::i32: return int_width::w32;
    default: return int_width::w64;
  }
}

/// Bytes of one element stored at width `w` (1, 2, 4, 8).
[[nodiscard]] constexpr std::size_t width_bytes(int_width w) noexcept {
  return std::size_t{1} << static_cast<unsigned>(w);
}

/// True for the C++ types `int_elements` stores: `std::int8_t`, `std::int16_t`, `std::int32_t`,
/// `std::int64_t`.
template <class T>
inline constexpr bool is_int_storage_v = std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
                                         std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

/// The integer elements of a value: a vector of one of the four storage types (its `int_width`),
/// empty or not. Narrowing stores keep the low bits; callers keep every element within the
/// dtype's range (`value::check` verifies it, `from_ints` refuses values out of range).
class int_elements {
 public:
  /// No elements, width `w64`.
  int_elements() = default;
  /// No elements, width `w`.
  explicit int_elements(int_width w) { reset(w, 0); }
  /// `n` zeros of width `w`.
  int_elements(int_width w, std::size_t n) { reset(w, n); }
  /// Takes `v` as the elements (its width is `T`'s).
  template <class T>
    requires is_int_storage_v<T>
  explicit int_elements(std::vector<T> v) : v_(std::move(v)) {}
  /// The elements `v` stored at width `w` (narrowed; precondition: each fits `w`).
  [[nodiscard]] static int_elements narrowed(int_width w, std::span<const std::int64_t> v);

  /// Storage width.
  [[nodiscard]] int_width width() const noexcept { return static_cast<int_width>(v_.index()); }
  /// Number of elements.
  [[nodiscard]] std::size_t size() const noexcept {
    return std::visit([](const auto& v) { return v.size(); }, v_);
  }
  /// True when there are no elements.
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// Element `i`, sign-extended (precondition: `i < size()`).
  [[nodiscard]] std::int64_t operator[](std::size_t i) const noexcept {
    return std::visit([i](const auto& v) { return static_cast<std::int64_t>(v[i]); }, v_);
  }
  /// Stores `x` as element `i` (narrowed to the width; precondition: `i < size()`).
  void set(std::size_t i, std::int64_t x) noexcept {
    std::visit([i, x](auto& v) { v[i] = static_cast<typename std::decay_t<decltype(v)>::value_type>(x); }, v_);
  }
  /// Resizes to `n` elements at the current width (new elements are 0).
  void resize(std::size_t n) {
    std::visit([n](auto& v) { v.resize(n); }, v_);
  }
  /// Replaces the elements by `n` zeros of width `w`.
  void reset(int_width w, std::size_t n) {
    switch (w) {
      case int_width::w8: v_.emplace<0>(n, 0); break;
      case int_width::w16: v_.emplace<1>(n, 0); break;
      case int_width::w32: v_.emplace<2>(n, 0); break;
      case int_width::w64: v_.emplace<3>(n, 0); break;
    }
  }

  /// True when the elements are stored as `T`.
  template <class T>
  [[nodiscard]] bool holds() const noexcept {
    return std::holds_alternative<std::vector<T>>(v_);
  }
  /// The elements as `T` when stored as `T`, else an empty span.
  template <class T>
  [[nodiscard]] std::span<const T> get() const noexcept {
    if (const auto* p = std::get_if<std::vector<T>>(&v_)) return *p;
    return {};
  }
  /// The elements as `T`, writable, when stored as `T`, else an empty span.
  template <class T>
  [[nodiscard]] std::span<T> get() noexcept {
    if (auto* p = std::get_if<std::vector<T>>(&v_)) return *p;
    return {};
  }
  /// Moves the elements out as a vector of `T` when stored as `T` (its capacity comes along: a caller
  /// reusing a value's buffer), else returns an empty vector; either way this holds no elements after.
  template <class T>
    requires is_int_storage_v<T>
  [[nodiscard]] std::vector<T> release() {
    std::vector<T> r;
    if (auto* p = std::get_if<std::vector<T>>(&v_)) r.swap(*p);
    else resize(0);
    return r;
  }
  /// The elements as a vector of `T`, writable, switched to width `T` (emptied) when stored at
  /// another width: a caller building elements in place keeps the vector's capacity.
  template <class T>
    requires is_int_storage_v<T>
  [[nodiscard]] std::vector<T>& storage() {
    if (auto* p = std::get_if<std::vector<T>>(&v_)) return *p;
    return v_.template emplace<std::vector<T>>();
  }
  /// Calls `f(std::span<const T>)` with the elements at their storage type `T`.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit([&f](const auto& v) -> decltype(auto) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      return f(std::span<const T>(v));
    }, v_);
  }
  /// Calls `f(std::span<T>)` with the elements at their storage type `T`.
  template <class F>
  decltype(auto) visit(F&& f) {
    return std::visit([&f](auto& v) -> decltype(auto) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      return f(std::span<T>(v));
    }, v_);
  }
  /// The elements widened to `std::int64_t`.
  [[nodiscard]] std::vector<std::int64_t> widened() const {
    return visit([](auto s) { return std::vector<std::int64_t>(s.begin(), s.end()); });
  }

  /// Same element values (whatever the widths).
  [[nodiscard]] friend bool operator==(const int_elements& a, const int_elements& b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  /// Same element values as `b`.
  [[nodiscard]] friend bool operator==(const int_elements& a, const std::vector<std::int64_t>& b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < b.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  std::variant<std::vector<std::int8_t>, std::vector<std::int16_t>, std::vector<std::int32_t>, std::vector<std::int64_t>>
      v_{std::in_place_index<3>};
};

inline int_elements int_elements::narrowed(int_width w, std::span<const std::int64_t> v) {
  int_elements r(w, v.size());
  r.visit([&](auto s) {
    for (std::size_t i = 0; i < v.size(); ++i) s[i] = static_cast<typename decltype(s)::value_type>(v[i]);
  });
  return r;
}

}  // namespace armlower::run
