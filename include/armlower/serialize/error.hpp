/// @file armlower/serialize/error.hpp
/// Error values of the TOSA serializer: the one error type of armlower (`core/error.hpp`).
/// Every failure of the writer, the reader and the file helpers is an `armlower::error` with a
/// code (`errc::malformed`, `unsupported`, `invalid_graph`, `not_legal`, `io`) and a location
/// (stage "reader" or "writer"; the file when known; the operator index — the file's operator
/// index for the reader, the graph's for the writer — op name and tensor). No exceptions escape
/// `write`/`read`, and no accessor throws.
#pragma once

#include <armlower/core/error.hpp>

namespace armlower::serialize {

/// The serializer's error (`armlower::error`).
using error = armlower::error;

/// A `T` or an error (`armlower::expected<T>`; kept as the serializer's spelling).
template <class T>
using result = armlower::expected<T>;

}  // namespace armlower::serialize
