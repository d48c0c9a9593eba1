/// @file armlower/run/value.hpp
/// `run::value`: a host tensor value the TOSA interpreter reads and writes — a dtype, a
/// row-major shape and the elements in one of three storages chosen by the dtype:
///  - integer: BOOL (0/1), INT4, INT8, INT16, INT32, INT48, INT64, SHAPE in `int_elements` at
///    their storage width (`int_width_of`: int8 for BOOL/INT4/INT8, int16, int32, int64 for
///    INT48/INT64/SHAPE), always within the dtype's range;
///  - real: FP16, BF16, FP32 as `float` (always exactly representable in the dtype);
///  - code: FP8E4M3, FP8E5M2, FP6E2M3, FP6E3M2, FP4E2M1, FP8UE8M0, MXINT8 as one raw code
///    per element (`std::uint8_t`, FP6 < 64, FP4 < 16), unpacked.
/// Conversions to and from the TOSA constant wire encoding (`armlower/graph/constant.hpp`,
/// serialization_lib `tosa_serialization_handler.cpp` `Convert*toU8`). Hosted only.
#pragma once

#include <armlower/dtype/dtype.hpp>
#include <armlower/dtype/float16.hpp>
#include <armlower/graph/constant.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/run/int_elements.hpp>
#include <armlower/run/detail/float_format.hpp>

#include <cmath>
#include <limits>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace armlower::run {

/// Which member of `value` holds the elements of a dtype.
enum class storage : std::uint8_t {
  integer,  ///< `value::ints`
  real,     ///< `value::reals`
  code,     ///< `value::codes`
};

/// Storage of dtype `t` (see the file comment).
[[nodiscard]] constexpr storage storage_of(dtype::id t) noexcept {
  switch (dtype::traits(t).fam) {
    case dtype::family::boolean:
    case dtype::family::integer:
    case dtype::family::shape: return storage::integer;
    case dtype::family::block_scale: return storage::code;
    case dtype::family::floating: break;
  }
  return (t == dtype::id::fp16 || t == dtype::id::bf16 || t == dtype::id::fp32) ? storage::real
                                                                                 : storage::code;
}

/// Number of distinct codes of a code-stored dtype (FP4: 16, FP6: 64, others 256).
[[nodiscard]] constexpr unsigned code_count(dtype::id t) noexcept {
  return 1u << dtype::traits(t).bits;
}

/// True when every element the storage of dtype `t` can hold is an element of `t` — the integer dtypes
/// stored at their own width (INT8, INT16, INT32, INT64, SHAPE) and FP32 — so a value of `t` whose
/// storage holds its element count at that width is valid whatever its elements (`value::check_elements`
/// reads no element). Not so for BOOL, INT4, INT48 (narrower than their storage), FP16/BF16 (rounding)
/// and the code dtypes.
[[nodiscard]] constexpr bool storage_exact(dtype::id t) noexcept {
  if (storage_of(t) == storage::integer) return dtype::traits(t).bits == 8 * width_bytes(int_width_of(t));
  return t == dtype::id::fp32;
}

/// Bytes one element of dtype `t` takes in a `value` (its storage: 1, 2, 4 or 8 for `ints` —
/// `int_width_of(t)` —, 4 for `reals`, 1 for `codes`).
[[nodiscard]] constexpr std::uint64_t element_bytes(dtype::id t) noexcept {
  switch (storage_of(t)) {
    case storage::integer: return width_bytes(int_width_of(t));
    case storage::real: return sizeof(float);
    case storage::code: return 1;
  }
  return 1;
}

/// Largest element count a value may have (2^31 − 1): guards allocations against corrupt shapes.
inline constexpr std::int64_t max_elements = 2147483647;

/// Empty string when `shape` is a valid TOSA shape (every dim ≥ 1, element count ≤
/// `max_elements`), else a sentence naming the bad dim.
[[nodiscard]] inline std::string check_shape(std::span<const std::int32_t> shape) {
  std::int64_t n = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 1)
      return "dim " + std::to_string(i) + " is " + std::to_string(shape[i]) + " (dims must be >= 1)";
    n *= shape[i];
    if (n > max_elements) return "element count exceeds 2^31-1";
  }
  return {};
}

/// Printable shape, e.g. "[1,2,3]".
[[nodiscard]] inline std::string to_string(std::span<const std::int32_t> shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

/// A tensor value: dtype, row-major shape and elements (in exactly one of `ints`, `reals`,
/// `codes`, selected by `storage_of(type)`; the other two are empty; `ints` at the width
/// `int_width_of(type)`).
struct value {
  dtype::id type = dtype::id::fp32;
  std::vector<std::int32_t> shape;
  int_elements ints;
  std::vector<float> reals;
  std::vector<std::uint8_t> codes;

  /// Number of elements of `shape`.
  [[nodiscard]] std::int64_t size() const noexcept { return graph::element_count(shape); }

  /// Empty string when the value is consistent (valid shape, the right storage holds exactly
  /// `size()` elements, integers within the dtype's range, reals representable in the dtype,
  /// codes < `code_count`), else a sentence saying what is wrong.
  [[nodiscard]] std::string check() const {
    if (auto s = check_shape(shape); !s.empty()) return "bad shape " + to_string(shape) + ": " + s;
    return check_elements();
  }

  /// `check()` for a value whose shape is known to be valid (e.g. equal to a declaration whose
  /// shape was checked): the storage, element count and element checks only.
  [[nodiscard]] std::string check_elements() const {
    const auto n = static_cast<std::size_t>(size());
    const auto& ti = dtype::traits(type);
    const auto dt = [&ti] { return std::string(ti.name); };  // for the messages only
    switch (storage_of(type)) {
      case storage::integer: {
        if (ints.size() != n || !reals.empty() || !codes.empty())
          return "a " + dt() + " value of shape " + to_string(shape) + " needs " + std::to_string(n) +
                 " integers, has " + std::to_string(ints.size());
        if (ints.width() != int_width_of(type))
          return "a " + dt() + " value must hold its integers as " + std::to_string(8 * width_bytes(int_width_of(type))) +
                 "-bit elements, holds " + std::to_string(8 * width_bytes(ints.width())) + "-bit";
        // the storage width bounds INT8/INT16/INT32/INT64/SHAPE; BOOL, INT4 and INT48 are narrower than theirs
        if (storage_exact(type)) return {};
        const auto bad = ints.visit([&](auto s) -> std::size_t {  // a vectorisable min/max pass first
          if (s.empty()) return s.size();
          auto lo = s[0], hi = s[0];
          for (const auto x : s) {
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
          }
          if (lo >= ti.int_min && hi <= ti.int_max) return s.size();
          for (std::size_t i = 0; i < s.size(); ++i)  // the element is located only on failure
            if (s[i] < ti.int_min || s[i] > ti.int_max) return i;
          return s.size();
        });
        if (bad == n) return {};
        return "element " + std::to_string(bad) + " = " + std::to_string(ints[bad]) + " does not fit " + dt();
      }
      case storage::real:
        if (reals.size() != n || !ints.empty() || !codes.empty())
          return "a " + dt() + " value of shape " + to_string(shape) + " needs " + std::to_string(n) +
                 " floats, has " + std::to_string(reals.size());
        if (storage_exact(type)) return {};  // FP32: every float is one
        for (std::size_t i = 0; i < n; ++i)
          if (!std::isnan(reals[i]) && detail::round_to(type, reals[i]) != reals[i])
            return "element " + std::to_string(i) + " is not representable in " + dt();
        return {};
      case storage::code:
        if (codes.size() != n || !ints.empty() || !reals.empty())
          return "a " + dt() + " value of shape " + to_string(shape) + " needs " + std::to_string(n) +
                 " codes, has " + std::to_string(codes.size());
        for (std::size_t i = 0; i < n; ++i)
          if (codes[i] >= code_count(type))
            return "element " + std::to_string(i) + " code " + std::to_string(codes[i]) + " is not a " + dt() + " code";
        return {};
    }
    return {};
  }
};

/// A value of dtype `t` and `shape` with every element zero (integer 0, +0.0, code 0).
/// Throws std::invalid_argument for an invalid shape.
[[nodiscard]] inline value zeros(dtype::id t, std::vector<std::int32_t> shape) {
  if (auto s = check_shape(shape); !s.empty()) throw std::invalid_argument("run::zeros: " + s);
  value v{t, std::move(shape), {}, {}, {}};
  const auto n = static_cast<std::size_t>(v.size());
  switch (storage_of(t)) {
    case storage::integer: v.ints.reset(int_width_of(t), n); break;
    case storage::real: v.reals.assign(n, 0.0f); break;
    case storage::code: v.codes.assign(n, 0); break;
  }
  return v;
}

namespace detail {
inline value checked(value v, const char* who) {
  if (auto s = v.check(); !s.empty()) throw std::invalid_argument(std::string(who) + ": " + s);
  return v;
}
}  // namespace detail

/// An integer-stored value (BOOL, INT4..INT64, SHAPE) from int64 elements (stored narrowed to
/// `int_width_of(t)`). Throws std::invalid_argument when `t` is not integer-stored, the count does
/// not match `shape`, or a value is outside `t`'s range.
[[nodiscard]] inline value from_ints(dtype::id t, std::vector<std::int32_t> shape,
                                     std::vector<std::int64_t> v) {
  if (storage_of(t) != storage::integer)
    throw std::invalid_argument("run::from_ints: " + std::string(dtype::name(t)) + " is not an integer dtype");
  const auto& ti = dtype::traits(t);
  for (std::size_t i = 0; i < v.size(); ++i)  // before narrowing, which would hide an out-of-range element
    if (v[i] < ti.int_min || v[i] > ti.int_max)
      throw std::invalid_argument("run::from_ints: element " + std::to_string(i) + " = " + std::to_string(v[i]) +
                                  " does not fit " + std::string(ti.name));
  auto e = int_width_of(t) == int_width::w64 ? int_elements(std::move(v)) : int_elements::narrowed(int_width_of(t), v);
  return detail::checked(value{t, std::move(shape), std::move(e), {}, {}}, "run::from_ints");
}

/// An integer-stored value from elements already in a storage type `T` (int8/int16/int32/int64):
/// taken without a copy when `T` is `t`'s storage type (`int_width_of(t)`: e.g. a
/// `std::vector<std::int8_t>` for INT8), else converted. Throws std::invalid_argument as the
/// int64 overload.
template <class T>
  requires(is_int_storage_v<T> && !std::is_same_v<T, std::int64_t>)
[[nodiscard]] value from_ints(dtype::id t, std::vector<std::int32_t> shape, std::vector<T> v) {
  if (storage_of(t) == storage::integer && width_bytes(int_width_of(t)) == sizeof(T))
    return detail::checked(value{t, std::move(shape), int_elements(std::move(v)), {}, {}}, "run::from_ints");
  return from_ints(t, std::move(shape), std::vector<std::int64_t>(v.begin(), v.end()));
}

/// A real-stored value (FP16, BF16, FP32); each element is rounded to nearest-even into `t`
/// (overflow gives ±Inf). Throws std::invalid_argument as `from_ints`.
[[nodiscard]] inline value from_reals(dtype::id t, std::vector<std::int32_t> shape,
                                      std::vector<float> v) {
  if (storage_of(t) != storage::real)
    throw std::invalid_argument("run::from_reals: " + std::string(dtype::name(t)) + " is not FP16/BF16/FP32");
  for (auto& x : v) x = detail::round_to(t, x);
  return detail::checked(value{t, std::move(shape), {}, std::move(v), {}}, "run::from_reals");
}

/// A code-stored value (FP8/FP6/FP4/FP8UE8M0/MXINT8), one raw code per element. Throws
/// std::invalid_argument as `from_ints` (and for a code ≥ `code_count(t)`).
[[nodiscard]] inline value from_codes(dtype::id t, std::vector<std::int32_t> shape,
                                      std::vector<std::uint8_t> v) {
  if (storage_of(t) != storage::code)
    throw std::invalid_argument("run::from_codes: " + std::string(dtype::name(t)) + " is not a code dtype");
  return detail::checked(value{t, std::move(shape), {}, {}, std::move(v)}, "run::from_codes");
}

/// Decodes a payload in the TOSA constant wire encoding (serialization_lib `tosa_serialization_handler.cpp` `Convert*toU8`; FP16/BF16 as 2 LE
/// bytes of their bits) into a value of dtype `t` and `shape`. Extra trailing bytes (the
/// serializer's 8-byte padding) are ignored. Throws std::invalid_argument when the payload is
/// too short, the shape invalid, or a decoded value invalid for `t` (an INT4 −8, an FP6 code ≥ 64).
[[nodiscard]] inline value decode(dtype::id t, std::vector<std::int32_t> shape,
                                  std::span<const std::uint8_t> bytes) {
  if (auto s = check_shape(shape); !s.empty()) throw std::invalid_argument("run::decode: " + s);
  const std::int64_t n = graph::element_count(shape);
  if (bytes.size() < graph::payload_bytes(t, n))
    throw std::invalid_argument("run::decode: " + std::to_string(bytes.size()) + " bytes for " +
                                std::to_string(n) + " elements of " + std::string(dtype::name(t)) +
                                " (needs " + std::to_string(graph::payload_bytes(t, n)) + ")");
  value v{t, std::move(shape), {}, {}, {}};
  switch (storage_of(t)) {
    case storage::integer: v.ints = int_elements::narrowed(int_width_of(t), graph::decode_ints(t, bytes, n)); break;
    case storage::code: v.codes = graph::decode_codes(t, bytes, n); break;
    case storage::real:
      if (t == dtype::id::fp32) {
        v.reals = graph::decode_f32(bytes, n);
      } else {
        v.reals.resize(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < v.reals.size(); ++i) {
          const auto b = static_cast<std::uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8));
          v.reals[i] = t == dtype::id::fp16 ? dtype::fp16_to_fp32(b) : dtype::bf16_to_fp32(b);
        }
      }
      break;
  }
  return detail::checked(std::move(v), "run::decode");
}

/// The value of a constant tensor (`tensor.is_constant`, payload in `tensor.data`).
/// Throws std::invalid_argument naming the tensor when it has no payload or it is malformed.
[[nodiscard]] inline value from_constant(const graph::tensor& tensor) {
  if (!tensor.is_constant)
    throw std::invalid_argument("tensor '" + tensor.name + "' is not a constant");
  try {
    return decode(tensor.type, tensor.shape, tensor.data);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("constant '" + tensor.name + "': " + e.what());
  }
}

/// The TOSA wire encoding of `v` (inverse of `decode`, without padding). Throws
/// std::invalid_argument when `v.check()` fails.
[[nodiscard]] inline std::vector<std::uint8_t> encode(const value& v) {
  if (auto s = v.check(); !s.empty()) throw std::invalid_argument("run::encode: " + s);
  switch (storage_of(v.type)) {
    case storage::integer: return graph::encode_ints(v.type, v.ints.widened());
    case storage::code: return graph::encode_codes(v.type, v.codes);
    case storage::real: break;
  }
  if (v.type == dtype::id::fp32) return graph::encode_f32(v.reals);
  std::vector<std::uint8_t> out(v.reals.size() * 2);
  for (std::size_t i = 0; i < v.reals.size(); ++i) {
    const std::uint16_t b =
        v.type == dtype::id::fp16 ? dtype::fp32_to_fp16(v.reals[i]) : dtype::fp32_to_bf16(v.reals[i]);
    out[2 * i] = static_cast<std::uint8_t>(b & 0xFF);
    out[2 * i + 1] = static_cast<std::uint8_t>(b >> 8);
  }
  return out;
}

/// A constant graph tensor called `name` holding `v` (for building graphs from values).
/// Throws std::invalid_argument when `v.check()` fails.
[[nodiscard]] inline graph::tensor to_constant(const value& v, std::string name) {
  return graph::tensor{std::move(name), v.type, v.shape, true, encode(v), std::nullopt};
}

}  // namespace armlower::run
