/// @file tests/tool/tool_process.hpp
/// Running the `armlower` binary from a test: a per-test scratch directory (ARMLOWER_TEST_TMP,
/// emptied once per process), reading a file whole, and one tool run with its exit code, stdout
/// and stderr. Needs ARMLOWER_TOOL and ARMLOWER_TEST_TMP defined (tests/tool/CMakeLists.txt).
#pragma once

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace armlower_test {

/// What one run of the tool did.
struct outcome {
  int rc = -1;  ///< exit code (-1 when it did not exit normally)
  std::string out, err;
};

/// The whole content of file `p` ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The test's scratch directory, emptied on first use.
inline std::filesystem::path tmp_dir() {
  static const std::filesystem::path d = [] {
    std::filesystem::path p = ARMLOWER_TEST_TMP;
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
  }();
  return d;
}

/// Runs `armlower <args>` through the shell, capturing stdout and stderr.
inline outcome run_tool(const std::string& args) {
  const auto d = tmp_dir();
  const std::string cmd =
      std::string(ARMLOWER_TOOL) + " " + args + " >" + (d / "stdout").string() + " 2>" + (d / "stderr").string();
  const int st = std::system(cmd.c_str());
  outcome o;
  o.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  o.out = slurp(d / "stdout");
  o.err = slurp(d / "stderr");
  return o;
}

/// Number of '\n' in `s`.
inline std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// The failure contract: exit 1; stderr ends with exactly one line "armlower: error: ..." that
/// contains `what` (it may be preceded only by progress and warning lines); no crash.
inline void expect_failure(const outcome& o, const std::string& what) {
  INFO("stderr: ", o.err);
  CHECK(o.rc == 1);
  REQUIRE(lines(o.err) >= 1);
  std::size_t errors = 0, pos = 0;
  while ((pos = o.err.find("armlower: error: ", pos)) != std::string::npos) ++errors, ++pos;
  CHECK(errors == 1);
  const auto cut = o.err.rfind('\n', o.err.size() - 2);
  const auto last = o.err.substr(cut == std::string::npos ? 0 : cut + 1);
  CHECK(last.rfind("armlower: error: ", 0) == 0);
  CHECK(last.find(what) != std::string::npos);
  CHECK(lines(last) == 1);
}

}  // namespace armlower_test
