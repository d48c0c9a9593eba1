/// @file armlower/io/npy.hpp
/// NumPy `.npy` arrays in and out (format versions 1.0, 2.0 and 3.0: magic "\x93NUMPY", major,
/// minor, little-endian header length (2 bytes in 1.0, 4 bytes after), a Python-dict header
/// `{'descr': ..., 'fortran_order': False, 'shape': (...), }` padded to a multiple of 64 bytes
/// and ending in '\n', then the raw C-order data). Source of the format: NumPy's
/// `numpy.lib.format` documentation (NEP 1). Hosted only.
///
/// Supported element types (descr ↔ armlower dtype): `|b1` BOOL, `|i1` INT8, `<i2` INT16,
/// `<i4` INT32, `<i8` INT64, `<f2` FP16, `<f4` FP32 (`<` may also be spelled `|` or `=` for
/// one-byte types; big-endian data is refused). The data bytes are kept as stored, which is
/// exactly the TOSA wire encoding of these dtypes (graph/constant.hpp), so an `npy_array` can
/// feed a graph tensor or the interpreter without conversion.
#pragma once

#include <armlower/core/error.hpp>
#include <armlower/dtype/dtype.hpp>
#include <armlower/graph/graph.hpp>
#include <armlower/io/file.hpp>
#include <armlower/io/text.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace armlower::io {

/// One n-dimensional array: dtype, row-major shape (empty = 0-d scalar) and the raw
/// little-endian element bytes (element_count(shape) × bytes per element).
struct npy_array {
  dtype::id type = dtype::id::fp32;
  std::vector<std::int32_t> shape;
  std::vector<std::uint8_t> data;
};

namespace detail {

/// An error of the `.npy` reader about `what` (the file name), stage "npy reader".
inline error npy_failure(errc code, const std::string& what, std::string message) {
  return error(code, location{what, "npy reader", -1, -1, {}, {}}, std::move(message));
}

struct npy_descr {
  std::string_view descr;
  dtype::id type;
  std::size_t bytes;
};
inline constexpr npy_descr npy_types[] = {
    {"b1", dtype::id::boolean, 1}, {"i1", dtype::id::i8, 1},  {"i2", dtype::id::i16, 2},
    {"i4", dtype::id::i32, 4},     {"i8", dtype::id::i64, 8}, {"f2", dtype::id::fp16, 2},
    {"f4", dtype::id::fp32, 4},
};

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

/// A short, one-line, printable excerpt of header text for messages: at most 40 characters,
/// quoted, with non-printable bytes, quotes and backslashes escaped (\n, \xNN), "..." when cut.
inline std::string excerpt(std::string_view t) {
  constexpr std::size_t max_chars = 40;
  std::string r = "'";
  for (std::size_t i = 0; i < t.size() && i < max_chars; ++i) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (c == '\n') r += "\\n";
    else if (c == '\\' || c == '\'') r += std::string("\\") + static_cast<char>(c);
    else if (c >= 0x20 && c < 0x7F) r += static_cast<char>(c);
    else io::append_escaped_byte(r, c);
  }
  r += "'";
  if (t.size() > max_chars) r += "...";
  return r;
}

/// Value text of `key` in the header dict ("'<f4'", "False", "(2, 3)"). Errors: `errc::malformed`.
inline expected<std::string_view> dict_value(std::string_view header, std::string_view key,
                                             const std::string& what) {
  const std::string k1 = "'" + std::string(key) + "'";
  const std::string k2 = "\"" + std::string(key) + "\"";
  auto pos = header.find(k1);
  std::size_t klen = k1.size();
  if (pos == std::string_view::npos) {
    pos = header.find(k2);
    klen = k2.size();
  }
  if (pos == std::string_view::npos)
    return npy_failure(errc::malformed, what, ".npy header has no '" + std::string(key) + "' entry");
  auto rest = header.substr(pos + klen);
  rest = trim(rest);
  if (rest.empty() || rest.front() != ':')
    return npy_failure(errc::malformed, what, "malformed .npy header near " + excerpt(key));
  rest = trim(rest.substr(1));
  std::size_t end = 0;
  if (!rest.empty() && rest.front() == '(') {
    end = rest.find(')');
    if (end == std::string_view::npos) return npy_failure(errc::malformed, what, "malformed .npy shape tuple");
    return rest.substr(0, end + 1);
  }
  end = rest.find_first_of(",}");
  if (end == std::string_view::npos) return npy_failure(errc::malformed, what, "malformed .npy header");
  return trim(rest.substr(0, end));
}

inline std::string shape_str(const std::vector<std::int32_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

}  // namespace detail

/// Bytes per element of a dtype that `.npy` I/O supports; 0 for other dtypes.
[[nodiscard]] inline std::size_t npy_element_bytes(dtype::id t) noexcept {
  for (const auto& d : detail::npy_types)
    if (d.type == t) return d.bytes;
  return 0;
}

/// Parses a `.npy` image. `what` names the source in error messages (e.g. the file name).
/// Errors (stage "npy reader", `where().file` = `what`, one-line message): `errc::malformed` —
/// not a .npy (bad magic), truncated header or data, malformed header, descr or dims, extra bytes
/// after the data; `errc::unsupported` — format version, big-endian or unsupported descr,
/// fortran_order True; `errc::limit` — a dimension ≥ 2^31 or more than 2^40 elements.
[[nodiscard]] inline expected<npy_array> parse_npy(std::span<const std::uint8_t> b, const std::string& what) {
  using detail::npy_failure;
  static constexpr std::uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (b.size() < 10 || std::memcmp(b.data(), magic, 6) != 0)
    return npy_failure(errc::malformed, what, "not a .npy file (missing the \\x93NUMPY magic)");
  const unsigned major = b[6];
  std::size_t hlen = 0;
  std::size_t hstart = 0;
  if (major == 1) {
    hlen = static_cast<std::size_t>(b[8]) | (static_cast<std::size_t>(b[9]) << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return npy_failure(errc::malformed, what, "truncated .npy header");
    hlen = static_cast<std::size_t>(b[8]) | (static_cast<std::size_t>(b[9]) << 8) |
           (static_cast<std::size_t>(b[10]) << 16) | (static_cast<std::size_t>(b[11]) << 24);
    hstart = 12;
  } else {
    return npy_failure(errc::unsupported, what,
                       "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(b[7]));
  }
  if (b.size() < hstart + hlen) return npy_failure(errc::malformed, what, "truncated .npy header");
  const std::string_view header(reinterpret_cast<const char*>(b.data() + hstart), hlen);

  npy_array a;
  // descr
  const auto descr_v = detail::dict_value(header, "descr", what);
  if (!descr_v) return descr_v.error();
  auto descr = *descr_v;
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"'))
    return npy_failure(errc::malformed, what, "malformed .npy descr " + detail::excerpt(descr));
  descr = descr.substr(1, descr.size() - 2);
  if (descr.size() != 3) return npy_failure(errc::unsupported, what, "unsupported .npy dtype " + detail::excerpt(descr));
  const char order = descr[0];
  const auto code = descr.substr(1);
  std::size_t elem = 0;
  bool found = false;
  for (const auto& d : detail::npy_types) {
    if (d.descr == code) {
      a.type = d.type;
      elem = d.bytes;
      found = true;
    }
  }
  if (!found)
    return npy_failure(errc::unsupported, what,
                       "unsupported .npy dtype " + detail::excerpt(descr) +
                           " (supported: bool, int8, int16, int32, int64, float16, float32)");
  if (order == '>' && elem > 1)
    return npy_failure(errc::unsupported, what, "big-endian .npy data (" + detail::excerpt(descr) + ") is not supported");
  if (order != '<' && order != '|' && order != '=' && !(order == '>' && elem == 1))
    return npy_failure(errc::malformed, what, "malformed .npy descr " + detail::excerpt(descr));
  // fortran_order
  const auto fo_v = detail::dict_value(header, "fortran_order", what);
  if (!fo_v) return fo_v.error();
  const auto fo = *fo_v;
  if (fo == "True") return npy_failure(errc::unsupported, what, "Fortran-order .npy arrays are not supported");
  if (fo != "False") return npy_failure(errc::malformed, what, "malformed .npy fortran_order " + detail::excerpt(fo));
  // shape
  const auto sh_v = detail::dict_value(header, "shape", what);
  if (!sh_v) return sh_v.error();
  auto sh = *sh_v;
  if (sh.size() < 2 || sh.front() != '(' || sh.back() != ')')
    return npy_failure(errc::malformed, what, "malformed .npy shape " + detail::excerpt(sh));
  sh = sh.substr(1, sh.size() - 2);
  std::int64_t n = 1;
  while (!detail::trim(sh).empty()) {
    sh = detail::trim(sh);
    const auto comma = sh.find(',');
    const auto tok = detail::trim(sh.substr(0, comma));
    if (tok.empty() || tok.size() > 10 || tok.find_first_not_of("0123456789") != std::string_view::npos)
      return npy_failure(errc::malformed, what, "malformed .npy shape dimension " + detail::excerpt(tok));
    const long long d = std::stoll(std::string(tok));
    if (d > 0x7FFFFFFF) return npy_failure(errc::limit, what, ".npy dimension " + std::string(tok) + " is too large");
    a.shape.push_back(static_cast<std::int32_t>(d));
    // The element count stays ≤ 2^40: checked before the multiply, so it cannot overflow.
    if (d > 0 && n > (std::int64_t{1} << 40) / d)
      return npy_failure(errc::limit, what, ".npy array is too large (more than 2^40 elements)");
    n *= d;
    if (comma == std::string_view::npos) break;
    sh = sh.substr(comma + 1);
  }
  const auto need = static_cast<std::size_t>(n) * elem;
  const auto have = b.size() - hstart - hlen;
  if (have < need)
    return npy_failure(errc::malformed, what,
                       "truncated .npy data (" + std::to_string(have) + " bytes, shape " + detail::shape_str(a.shape) +
                           " needs " + std::to_string(need) + ")");
  if (have > need)
    return npy_failure(errc::malformed, what, std::to_string(have - need) + " unexpected bytes after the .npy data");
  a.data.assign(b.begin() + static_cast<std::ptrdiff_t>(hstart + hlen), b.end());
  return a;
}

/// Reads the `.npy` file `p` (errors of read_bytes and parse_npy, `where().file` = the path).
[[nodiscard]] inline expected<npy_array> read_npy(const std::filesystem::path& p) {
  const auto bytes = read_bytes(p);
  if (!bytes) return bytes.error();
  return parse_npy(*bytes, p.string());
}

/// Serializes `a` as a version 1.0 `.npy` image (version 2.0 if the header needs it).
/// Errors (`errc::invalid_argument`, stage "npy writer"): dtype not representable in .npy, data
/// size not matching the shape.
[[nodiscard]] inline expected<std::vector<std::uint8_t>> format_npy(const npy_array& a) {
  std::string_view code;
  std::size_t elem = 0;
  for (const auto& d : detail::npy_types)
    if (d.type == a.type) {
      code = d.descr;
      elem = d.bytes;
    }
  if (elem == 0)
    return error(errc::invalid_argument, location{{}, "npy writer", -1, -1, {}, {}},
                 "cannot write " + std::string(dtype::name(a.type)) + " data as .npy");
  if (static_cast<std::size_t>(graph::element_count(a.shape)) * elem != a.data.size())
    return error(errc::invalid_argument, location{{}, "npy writer", -1, -1, {}, {}},
                 "npy array data has " + std::to_string(a.data.size()) + " bytes, shape " + detail::shape_str(a.shape) +
                     " of " + std::string(dtype::name(a.type)) + " needs " +
                     std::to_string(graph::element_count(a.shape) * static_cast<std::int64_t>(elem)));
  std::string h = "{'descr': '";
  h += (elem == 1 ? '|' : '<');
  h += code;
  h += "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < a.shape.size(); ++i) {
    h += std::to_string(a.shape[i]);
    if (a.shape.size() == 1 || i + 1 < a.shape.size()) h += ",";
    if (i + 1 < a.shape.size()) h += " ";
  }
  h += "), }";
  const bool v2 = h.size() + 11 > 65535;
  const std::size_t pre = v2 ? 12 : 10;
  const std::size_t total = ((pre + h.size() + 1 + 63) / 64) * 64;
  h.append(total - pre - h.size() - 1, ' ');
  h += '\n';
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(v2 ? 2 : 1), 0};
  const auto hl = h.size();
  out.push_back(static_cast<std::uint8_t>(hl & 0xFF));
  out.push_back(static_cast<std::uint8_t>((hl >> 8) & 0xFF));
  if (v2) {
    out.push_back(static_cast<std::uint8_t>((hl >> 16) & 0xFF));
    out.push_back(static_cast<std::uint8_t>((hl >> 24) & 0xFF));
  }
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

/// Checks that `a` can feed the graph tensor `t`: the same dtype, and the same shape once
/// dimensions of size 1 are dropped (so a (16,) array feeds a [1,16] input). `what` names the
/// array in messages (`where().file`). Errors (`errc::invalid_argument`, `where().tensor` = the
/// input): "<what>: tensor 'x': dtype FP32 does not match input 'x' of dtype INT8",
/// "<what>: tensor 'x': shape [4,4] does not match input 'x' of shape [1,16]".
[[nodiscard]] inline expected<void> check_npy_matches(const npy_array& a, const graph::tensor& t, const std::string& what) {
  if (a.type != t.type)
    return error(errc::invalid_argument, location{what, {}, -1, -1, {}, t.name},
                 "dtype " + std::string(dtype::name(a.type)) + " does not match input '" + t.name + "' of dtype " +
                     std::string(dtype::name(t.type)));
  auto squeeze = [](const std::vector<std::int32_t>& s) {
    std::vector<std::int32_t> r;
    for (auto d : s)
      if (d != 1) r.push_back(d);
    return r;
  };
  if (squeeze(a.shape) != squeeze(t.shape))
    return error(errc::invalid_argument, location{what, {}, -1, -1, {}, t.name},
                 "shape " + detail::shape_str(a.shape) + " does not match input '" + t.name + "' of shape " +
                     detail::shape_str(t.shape));
  return {};
}

}  // namespace armlower::io
