// .npy reader/writer: round trips and every malformed-header error (NumPy format spec, NEP 1).
#include <armlower/io/npy.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace armlower;

namespace {
std::vector<std::uint8_t> image(const std::string& header, std::size_t data_bytes, int major = 1) {
  std::vector<std::uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(major), 0};
  const auto n = header.size();
  b.push_back(static_cast<std::uint8_t>(n & 0xFF));
  b.push_back(static_cast<std::uint8_t>(n >> 8));
  if (major >= 2) {
    b.push_back(0);
    b.push_back(0);
  }
  b.insert(b.end(), header.begin(), header.end());
  b.resize(b.size() + data_bytes, 0);
  return b;
}
/// The message of parsing `b` as "x.npy" (empty when it parses); every error names the file and
/// the stage.
std::string err(const std::vector<std::uint8_t>& b) {
  const auto r = io::parse_npy(b, "x.npy");
  if (r) return {};
  CHECK(r.error().where().file == "x.npy");
  CHECK(r.error().where().stage == "npy reader");
  CHECK(r.error().line() == "x.npy: npy reader: " + r.error().message());
  return r.error().message();
}
errc code_of(const std::vector<std::uint8_t>& b) { return io::parse_npy(b, "x.npy").error().code(); }
}  // namespace

TEST_CASE("format_npy / parse_npy round trip, header aligned to 64 bytes") {
  io::npy_array a;
  a.type = dtype::id::i16;
  a.shape = {2, 3};
  for (int i = 0; i < 6; ++i) {
    a.data.push_back(static_cast<std::uint8_t>(i));
    a.data.push_back(0x80);
  }
  const auto bytes = io::format_npy(a).value();
  CHECK((bytes.size() - a.data.size()) % 64 == 0);
  const auto b = io::parse_npy(bytes, "t").value();
  CHECK(b.type == a.type);
  CHECK(b.shape == a.shape);
  CHECK(b.data == a.data);

  io::npy_array s;  // 0-d and 1-d tuples: "()" and "(5,)"
  s.type = dtype::id::fp32;
  s.data.resize(4);
  CHECK(io::parse_npy(io::format_npy(s).value(), "t")->shape.empty());
  s.shape = {1};
  CHECK(io::parse_npy(io::format_npy(s).value(), "t")->shape == std::vector<std::int32_t>{1});
  const auto v3 = image("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", 4, 3);
  CHECK(io::parse_npy(v3, "t")->type == dtype::id::fp32);
}

TEST_CASE("malformed .npy images name the problem") {
  CHECK(err({1, 2, 3}).find("not a .npy") != std::string::npos);
  CHECK(err(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 8, 9)).find("version 9") !=
        std::string::npos);
  CHECK(err(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 4)).find("truncated .npy data") !=
        std::string::npos);
  CHECK(err(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 12)).find("unexpected bytes") !=
        std::string::npos);
  CHECK(err(image("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n", 16)).find("unsupported .npy dtype") !=
        std::string::npos);
  CHECK(err(image("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }\n", 8)).find("big-endian") !=
        std::string::npos);
  CHECK(err(image("{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }\n", 8)).find("Fortran") !=
        std::string::npos);
  CHECK(err(image("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }\n", 8)).find("dimension") !=
        std::string::npos);
  CHECK(err(image("{'descr': '<i4', 'fortran_order': False, }\n", 8)).find("'shape'") != std::string::npos);
  auto cut = image("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n", 8);
  cut.resize(20);
  CHECK(err(cut).find("truncated .npy header") != std::string::npos);
  // codes a caller can branch on
  CHECK(code_of({1, 2, 3}) == errc::malformed);
  CHECK(code_of(cut) == errc::malformed);
  CHECK(code_of(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 8, 9)) == errc::unsupported);
  CHECK(code_of(image("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n", 16)) == errc::unsupported);
  CHECK(code_of(image("{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }\n", 8)) == errc::unsupported);
  CHECK(code_of(image("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }\n", 8)) == errc::malformed);
}

TEST_CASE("format_npy refuses arrays .npy cannot hold; read_npy reports I/O errors by file") {
  io::npy_array a{dtype::id::i48, {2}, std::vector<std::uint8_t>(12)};
  const auto f = io::format_npy(a);
  REQUIRE_FALSE(f);
  CHECK(f.error().code() == errc::invalid_argument);
  CHECK(f.error().message() == "cannot write INT48 data as .npy");
  io::npy_array b{dtype::id::i16, {2, 3}, std::vector<std::uint8_t>(5)};
  CHECK(io::format_npy(b).error().message() == "npy array data has 5 bytes, shape [2,3] of INT16 needs 12");
  const auto r = io::read_npy("no_such_dir/missing.npy");
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == errc::io);
  CHECK(r.error().where().file == "no_such_dir/missing.npy");
  CHECK(r.error().line() == "no_such_dir/missing.npy: no such file");
}

TEST_CASE("an over-large .npy shape is refused before its element count overflows") {
  // 2^31−1 cubed overflows int64; the 2^40 guard must run before each multiply (UBSan: no
  // signed overflow), and the message names the limit.
  const auto e = err(image("{'descr': '|i1', 'fortran_order': False, 'shape': (2147483647, 2147483647, 2147483647), }\n", 0));
  CHECK(e == ".npy array is too large (more than 2^40 elements)");
  CHECK(code_of(image("{'descr': '|i1', 'fortran_order': False, 'shape': (2147483647, 2147483647, 2147483647), }\n", 0)) ==
        errc::limit);
  CHECK(err(image("{'descr': '|i1', 'fortran_order': False, 'shape': (1048576, 1048577), }\n", 0)) ==
        ".npy array is too large (more than 2^40 elements)");
  // exactly 2^40 elements passes the guard (and then fails on the missing data)
  CHECK(err(image("{'descr': '|i1', 'fortran_order': False, 'shape': (1048576, 1048576), }\n", 0))
            .find("truncated .npy data") != std::string::npos);
}

TEST_CASE("malformed header text is shown as a short escaped excerpt on one line") {
  std::string junk = "'<f4\n\x01\xff";
  junk += std::string(200, 'A');
  const auto e = err(image("{'descr': " + junk + "', 'fortran_order': False, 'shape': (2,), }\n", 8));
  CHECK(e.find('\n') == std::string::npos);
  CHECK(e.size() < 120);
  CHECK(e == R"(unsupported .npy dtype '<f4\n\x01\xff)" + std::string(34, 'A') + "'...");
  const auto e2 = err(image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,\r\n\x7f" "3), }\n", 8));
  CHECK(e2 == R"(malformed .npy shape dimension '\x0d\n\x7f3')");
}

TEST_CASE("check_npy_matches names dtype and shape mismatches") {
  graph::tensor t;
  t.name = "x";
  t.type = dtype::id::i8;
  t.shape = {1, 16};
  io::npy_array a;
  a.type = dtype::id::i8;
  a.shape = {16};
  CHECK(io::check_npy_matches(a, t, "x.npy").has_value());
  a.type = dtype::id::fp32;
  const auto d = io::check_npy_matches(a, t, "x.npy");
  REQUIRE_FALSE(d);
  CHECK(d.error().message() == "dtype FP32 does not match input 'x' of dtype INT8");
  CHECK(d.error().code() == errc::invalid_argument);
  CHECK(d.error().where().file == "x.npy");
  CHECK(d.error().where().tensor == "x");
  a.type = dtype::id::i8;
  a.shape = {4, 4};
  const auto s = io::check_npy_matches(a, t, "x.npy");
  REQUIRE_FALSE(s);
  CHECK(s.error().message().find("shape [4,4] does not match") == 0);
  CHECK(s.error().line().find("x.npy: tensor 'x': shape [4,4] does not match") == 0);
}
