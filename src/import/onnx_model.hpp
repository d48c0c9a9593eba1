// Private to the armlower::onnx component (src/import): the parsed-model layer of the ONNX
// importer — protobuf parsing and header checks, element types, initializer decoding (inline and
// external data), node/value listings. Model format: ONNX IR spec, onnx.proto, IR version 10.
#pragma once

#include <armlower/import/onnx.hpp>

#include "onnx_subset.pb.h"

#include <cstdint>
#include <stdexcept>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace armlower::import::onnx_detail {

/// The ONNX importer's internal failure (thrown inside this compiled component only, caught at the
/// public entry points of armlower/import/onnx.hpp and returned as an `armlower::error`).
class import_error : public std::runtime_error {
 public:
  explicit import_error(const std::string& what, errc code = errc::malformed)
      : std::runtime_error(detail::one_line(what)), code_(code) {}
  [[nodiscard]] errc code() const noexcept { return code_; }

 private:
  errc code_;
};

/// Runs `f` (which may throw `import_error`, or std::invalid_argument / std::out_of_range from the
/// graph's constant helpers) and returns its value or the failure as an `armlower::error` with
/// stage "onnx importer" and file `what` (the message keeps no duplicate "what: " prefix).
template <class F>
[[nodiscard]] auto guarded(const std::string& what, F&& f) -> expected<decltype(f())> {
  auto fail = [&](errc code, std::string m) -> armlower::error {
    if (m.rfind(what + ": ", 0) == 0) m.erase(0, what.size() + 2);
    return armlower::error(code, location{detail::one_line(what), "onnx importer", -1, -1, {}, {}}, detail::one_line(m));
  };
  try {
    return f();
  } catch (const import_error& e) {
    return fail(e.code(), e.what());
  } catch (const std::invalid_argument& e) {
    return fail(errc::malformed, e.what());
  } catch (const std::out_of_range& e) {
    return fail(errc::malformed, "inconsistent model (" + std::string(e.what()) + ")");
  }
}

namespace pb = ::armlower::onnx_pb;
namespace fs = std::filesystem;

/// Largest element count of a tensor armlower reads (2^31).
inline constexpr std::int64_t max_elements = std::int64_t{1} << 31;

/// A constant tensor, decoded to little-endian bytes of its element type.
struct const_tensor {
  std::int32_t elem = 0;
  std::vector<std::int64_t> dims;
  std::vector<std::uint8_t> bytes;
  [[nodiscard]] std::int64_t count() const {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
  /// Values as doubles (FLOAT, DOUBLE, integer types).
  [[nodiscard]] std::vector<double> reals() const {
    const auto n = static_cast<std::size_t>(count());
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = real(i);
    return r;
  }
  [[nodiscard]] double real(std::size_t i) const {
    const auto* p = bytes.data();
    switch (elem) {
      case 1: { float f; std::memcpy(&f, p + 4 * i, 4); return f; }
      case 11: { double f; std::memcpy(&f, p + 8 * i, 8); return f; }
      default: return static_cast<double>(integer(i));
    }
  }
  [[nodiscard]] std::int64_t integer(std::size_t i) const {
    const auto* p = bytes.data();
    switch (elem) {
      case 2: return p[i];
      case 3: return static_cast<std::int8_t>(p[i]);
      case 9: return p[i] != 0;
      case 4: { std::uint16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
      case 5: { std::int16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
      case 6: { std::int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
      case 12: { std::uint32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
      case 7: { std::int64_t v; std::memcpy(&v, p + 8 * i, 8); return v; }
      case 13: { std::uint64_t v; std::memcpy(&v, p + 8 * i, 8); return static_cast<std::int64_t>(v); }
      default: return 0;
    }
  }
};

/// Everything about the parsed model the importer needs.
struct model_ctx {
  std::string what;
  fs::path dir;
  pb::ModelProto m;
  std::unordered_map<std::string, const pb::TensorProto*> inits;
};

/// "[1,2,3]".
std::string shape_text(const std::vector<std::int64_t>& s);
std::string shape_text32(const std::vector<std::int32_t>& s);
/// A number for messages ("%.9g").
std::string float_text(double v);

/// ONNX element type name (ONNX IR spec, "Tensor Element Types"), "TYPE_<n>" when unnamed.
std::string elem_name(std::int32_t t);

/// Bytes per element of the fixed-size types armlower reads (0 = not readable).
std::size_t elem_size(std::int32_t t);

/// Checked element count of `dims` (each >= 0, total <= 2^31). Throws import_error naming `who`.
std::int64_t checked_count(const std::vector<std::int64_t>& dims, const std::string& who);

/// The external-data file of `t`, checked: `location` relative, inside `c.dir` after resolving
/// "..", symlinks included, an existing regular file. Throws import_error naming `who`.
fs::path external_path(const model_ctx& c, const pb::TensorProto& t, const std::string& who);

/// Decodes the tensor `t` (raw_data, the typed fields, or external data) to little-endian bytes.
/// Throws import_error naming `who` on a type armlower cannot read, data shorter or longer than
/// the shape, or bad external data (missing, escaping, short).
const_tensor decode(const model_ctx& c, const pb::TensorProto& t, const std::string& who);

/// Parses `bytes` into `c.m` and checks the header: a graph, ir_version 7..10, the default opset
/// 13..21, initializer names unique (indexed in `c.inits`). Throws import_error naming `c.what`.
void open_model(model_ctx& c, std::span<const std::uint8_t> bytes);

/// "transB=1", "alpha=0.5", "perm=[0,2,1]": one attribute for listings.
std::string attr_text(const pb::AttributeProto& a);

/// A graph input/output/value_info as listed by `inspect_onnx`.
onnx_value value_of(const pb::ValueInfoProto& v);

/// A node as listed by `inspect_onnx` (index `i`).
onnx_node node_of(const pb::NodeProto& n, std::size_t i);

}  // namespace armlower::import::onnx_detail
