/// @file armlower/run/npy.hpp
/// `run::value` ↔ NumPy arrays (`armlower/io/npy.hpp`), with the conventions of the TOSA
/// reference model's Python API (tosa-tools `tosa_reference_model`): BOOL as `|b1`, INT8/16/32
/// as `i1/i2/i4`, INT48, INT64 and SHAPE as `<i8` (int64), FP16 as `<f2`, FP32 as `<f4`.
/// BF16, FP8, FP6, FP4, FP8UE8M0 and MXINT8 have no `.npy` form here. Hosted only.
#pragma once

#include <armlower/io/npy.hpp>
#include <armlower/run/value.hpp>

#include <stdexcept>
#include <string>

namespace armlower::run {

/// The `.npy` dtype a value of dtype `t` is exchanged as (INT48/SHAPE → INT64), or false when
/// `t` has no `.npy` form.
[[nodiscard]] constexpr bool npy_dtype(dtype::id t, dtype::id& out) noexcept {
  switch (t) {
    case dtype::id::boolean:
    case dtype::id::i8:
    case dtype::id::i16:
    case dtype::id::i32:
    case dtype::id::i64:
    case dtype::id::fp16:
    case dtype::id::fp32: out = t; return true;
    case dtype::id::i48:
    case dtype::id::shape: out = dtype::id::i64; return true;
    default: return false;
  }
}

/// `v` as a NumPy array (see the file comment). Throws std::invalid_argument for a dtype with
/// no `.npy` form or an inconsistent value.
[[nodiscard]] inline io::npy_array to_npy(const value& v) {
  dtype::id t{};
  if (!npy_dtype(v.type, t))
    throw std::invalid_argument("run::to_npy: " + std::string(dtype::name(v.type)) + " has no .npy form");
  if (t == v.type) return io::npy_array{t, v.shape, encode(v)};
  value wide = v;  // INT48 / SHAPE → INT64
  wide.type = t;
  return io::npy_array{t, v.shape, encode(wide)};
}

/// The array `a` as a value of dtype `t` (an INT64 array becomes INT48/SHAPE when `t` asks for
/// it, with a range check). Throws std::invalid_argument when `a`'s dtype is not `t`'s `.npy`
/// dtype or a value does not fit `t`.
[[nodiscard]] inline value from_npy(const io::npy_array& a, dtype::id t) {
  dtype::id want{};
  if (!npy_dtype(t, want))
    throw std::invalid_argument("run::from_npy: " + std::string(dtype::name(t)) + " has no .npy form");
  if (a.type != want)
    throw std::invalid_argument("run::from_npy: a " + std::string(dtype::name(a.type)) + " array cannot hold " +
                                std::string(dtype::name(t)) + " values (needs " + std::string(dtype::name(want)) + ")");
  value v = decode(want, a.shape, a.data);
  if (want == t) return v;
  return from_ints(t, std::move(v.shape), v.ints.widened());
}

}  // namespace armlower::run
