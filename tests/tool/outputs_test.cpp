// What the `armlower` tool writes: every --json output is RFC 8259 JSON (checked by Python's
// json module with NaN/Infinity refused and strict UTF-8 decoding, tests/tool/strict_json.py),
// including non-finite outputs and names with invalid UTF-8; the lowering report and `inspect`
// give the graph I/O quantization (checked by running the lowered graph against sin(x) and
// against the .tflite's own quantization); output files (special files, symbolic links, modes,
// all-or-none, same file twice, input as output, signals); flags that do not apply; one-line
// messages.
#include <doctest/doctest.h>

#include <armlower/io/file.hpp>
#include <armlower/passes/report.hpp>
#include <armlower/serialize/reader.hpp>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fixtures.hpp"
#include "tool_process.hpp"

namespace fs = std::filesystem;
using armlower_test::expect_failure;
using armlower_test::outcome;
using armlower_test::slurp;
using armlower_test::tmp_dir;
using nlohmann::json;

namespace {

outcome run(const std::string& args) { return armlower_test::run_tool(args); }

const std::string models = ARMLOWER_SHARED_DATA "/tflite/";

/// Shell-quoted `s` (single quotes; the names here hold no single quote).
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

/// The strict oracle: tests/tool/strict_json.py on `text`; true when it is one line of RFC 8259
/// JSON in valid UTF-8.
bool strict_json(const std::string& text) {
  const auto f = tmp_dir() / "strict_json.in";
  std::ofstream(f, std::ios::binary) << text;
  const std::string cmd = std::string(ARMLOWER_PYTHON) + " " + ARMLOWER_STRICT_JSON + " " + q(f);
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/// Runs the tool, requires exit 0 and strict JSON on stdout, and returns it parsed.
json json_of(const std::string& args, int want_rc = 0) {
  const auto o = run(args);
  INFO("armlower ", args, "\nstderr: ", o.err, "\nstdout: ", o.out);
  REQUIRE(o.rc == want_rc);
  CHECK(strict_json(o.out));
  return json::parse(o.out);
}

std::string mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  char b[8];
  std::snprintf(b, sizeof b, "%04o", st.st_mode & 07777);
  return b;
}

/// Names in `d` that look like temporaries of write_files.
std::vector<std::string> temporaries(const fs::path& d) {
  std::vector<std::string> t;
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string().find(".tmp") != std::string::npos) t.push_back(e.path().filename().string());
  return t;
}

const std::string bad_name = std::string("y\xff\xfe") + "\xc3(";  // invalid UTF-8 bytes

}  // namespace

TEST_CASE("the strict oracle refuses what it must") {
  CHECK(strict_json("{\"a\":[1,2.5,\"inf\",null]}\n"));
  CHECK_FALSE(strict_json("{\"a\":[inf]}\n"));
  CHECK_FALSE(strict_json("{\"a\":[NaN]}\n"));
  CHECK_FALSE(strict_json("{\"a\":Infinity}\n"));
  CHECK_FALSE(strict_json("{\"a\":\"\xff\"}\n"));
  CHECK_FALSE(strict_json("{\"a\":1,\"a\":2}\n"));
  CHECK_FALSE(strict_json("{\"a\":1}\n{}\n"));
}

TEST_CASE("run/check/inspect --json on a graph with inf/nan outputs and an invalid UTF-8 name") {
  const auto d = tmp_dir() / "json_run";
  fs::create_directories(d);
  armlower_test::write_two_output_fp32(d / "g.tosa", bad_name, 4);
  armlower_test::write_f32_npy(d / "x.npy", {INFINITY, -INFINITY, NAN, 1.0f});
  const auto j = json_of("run --json " + q(d / "g.tosa") + " -i " + q(d / "x.npy"));
  REQUIRE(j["outputs"].size() == 2);
  const auto& y = j["outputs"][0];
  // x + x: inf, -inf, nan, 2 — non-finite reals are the strings "inf", "-inf", "nan".
  CHECK(y["values"] == json::array({"inf", "-inf", "nan", 2.0}));
  CHECK(y["name"] == "y\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD(");  // each invalid byte -> U+FFFD
  CHECK(y["dtype"] == "FP32");
  CHECK(y["shape"] == json::array({4}));
  CHECK(j["outputs"][1]["values"] == json::array({"inf", "-inf", "nan", 1.0}));
  // The text output keeps the raw bytes (it is not JSON).
  CHECK(run("run " + q(d / "g.tosa") + " -i " + q(d / "x.npy")).out.find(bad_name) != std::string::npos);

  const auto c = json_of("check --json " + q(d / "g.tosa") + " --spec TOSA-1.0+FP");
  CHECK(c["legal"] == true);
  const auto ci = json_of("check --json " + q(d / "g.tosa") + " --spec TOSA-1.0+INT", 1);
  CHECK(ci["legal"] == false);
  CHECK_FALSE(ci["findings"].empty());

  const auto ins = json_of("inspect --json " + q(d / "g.tosa"));
  REQUIRE(ins["inputs"].size() == 1);
  CHECK(ins["inputs"][0] == json({{"name", "x"}, {"dtype", "FP32"}, {"shape", {4}}}));
  REQUIRE(ins["outputs"].size() == 2);
  CHECK(ins["outputs"][0]["dtype"] == "FP32");
  CHECK(ins["outputs"][1] == json({{"name", "z"}, {"dtype", "FP32"}, {"shape", {4}}}));
  const auto txt = run("inspect " + q(d / "g.tosa"));
  CHECK(txt.out.find("graph inputs:\n  x FP32 [4]\n") != std::string::npos);
  CHECK(txt.out.find("  z FP32 [4]\n") != std::string::npos);
}

TEST_CASE("lower --json (TOSA and Cortex-M), inspect --json on .tflite, demo --json: strict JSON") {
  const auto d = tmp_dir() / "json_lower";
  fs::create_directories(d);
  // A model path with invalid UTF-8 bytes: "model" and "output" get U+FFFD.
  const auto odd = d / ("m" + std::string("\xff") + ".tflite");
  fs::copy_file(models + "hello_world_int8.tflite", odd);
  const auto lt = json_of("lower --json " + q(odd) + " --spec TOSA-1.0+INT -o " + q(d / "hw.tosa"));
  CHECK(lt["model"].get<std::string>().find("\xEF\xBF\xBD") != std::string::npos);
  CHECK(lt["report"]["spec"] == "TOSA-1.0+INT");
  const auto lm = json_of("lower --json " + q(odd) + " --target cortex-m4 -o " + q(d / "hw_m4.hpp"));
  CHECK(lm["namespace"] == "hw_m4");
  CHECK(lm["report"]["io"].size() == 2);
  const auto it = json_of("inspect --json " + q(odd));
  CHECK(it["format"] == "tflite");
  const auto ims = json_of("inspect --json " + models + "micro_speech_quantized.tflite");
  CHECK(ims["operators"].size() >= 4);
  const auto ms = json_of("lower --json " + models + "micro_speech_quantized.tflite --spec TOSA-1.0+INT -o " + q(d / "ms.tosa"));
  CHECK_FALSE(ms["left_out"].empty());
  const auto demo = json_of("demo --json --rows 2");
  REQUIRE(demo["rows"].size() == 6);
  for (const auto& r : demo["rows"]) CHECK((r["sqnr_db"].is_number() || r["sqnr_db"] == "inf"));
}

TEST_CASE("the library report's to_json is RFC 8259 JSON with invalid UTF-8 and odd numbers") {
  armlower::passes::report r;
  r.spec = "TOSA-1.0+INT";
  r.scheme = "int8";
  r.warnings = {"tensor '" + bad_name + "' padded", "tab\tquote\"back\\slash\x01"};
  r.passes.push_back({"P\xe0\x80\xaf", "overlong '/' is invalid", 1, INFINITY});
  r.io.push_back({"input", "in\xed\xa0\x80", "INT8", {1, 4}, {0.1f}, {-3}});  // a UTF-8 surrogate: invalid
  r.io.push_back({"output", "\xf0\x9f\x98\x80", "INT8", {1, 2}, {0.5f, NAN}, {0, 1}});  // valid 4-byte UTF-8
  r.io.push_back({"output", "f", "FP32", {2}, {}, {}});
  const auto s = r.to_json();
  CHECK(strict_json(s + "\n"));
  const auto j = json::parse(s);
  CHECK(j["warnings"][1] == "tab\tquote\"back\\slash\x01");
  CHECK(j["passes"][0]["milliseconds"] == "inf");
  CHECK(j["io"][0]["scale"] == doctest::Approx(0.1f));
  CHECK(j["io"][0]["zero_point"] == -3);
  CHECK(j["io"][1]["name"] == "\xf0\x9f\x98\x80");
  CHECK(j["io"][1]["scale"][1] == "nan");
  CHECK(j["io"][2]["scale"].is_null());
  CHECK(j["io"][2]["zero_point"].is_null());
}

TEST_CASE("the lowering report gives the graph I/O quantization; it quantizes inputs correctly") {
  const auto d = tmp_dir() / "io_quant";
  fs::create_directories(d);
  // Oracle 1: for an int8 .tflite, the report's scale/zero point are the model's own (read by
  // `inspect --json` from the .tflite's QuantizationParameters).
  const auto hw = models + "hello_world_int8.tflite";
  const auto tfl = json_of("inspect --json " + hw);
  const auto in_idx = tfl["inputs"][0].get<int>(), out_idx = tfl["outputs"][0].get<int>();
  const auto& tin = tfl["tensors"][in_idx]["quantization"];
  const auto& tout = tfl["tensors"][out_idx]["quantization"];
  for (const std::string& target : {"--spec TOSA-1.0+INT -o " + q(d / "hw.tosa"), "--target cortex-m55 -o " + q(d / "hw.hpp")}) {
    INFO(target);
    const auto j = json_of(std::string("lower --json ").append(hw).append(" ").append(target));
    const auto& io = j["report"]["io"];
    REQUIRE(io.size() == 2);
    CHECK(io[0]["role"] == "input");
    CHECK(io[0]["dtype"] == "INT8");
    CHECK(io[0]["scale"] == tin["scale"][0]);
    CHECK(io[0]["zero_point"] == tin["zero_point"][0]);
    CHECK(io[1]["role"] == "output");
    CHECK(io[1]["scale"] == tout["scale"][0]);
    CHECK(io[1]["zero_point"] == tout["zero_point"][0]);
    CHECK(io[0]["shape"] == json::array({1, 1}));
  }
  // Oracle 2: a float model lowered with int8 and a16w8: quantize x with the report's input
  // scale/zero point, run the .tosa, dequantize with the output's; the float model computes
  // sin(x) (hello_world_float, ../shared/data/README.md) to within 0.1 on [0, 2pi].
  const auto calib = d / "calib.npy";
  std::vector<float> cv;
  cv.reserve(64);
  for (int i = 0; i < 64; ++i) cv.push_back(static_cast<float>(i) * 6.2831853f / 63.0f);
  {
    armlower::io::npy_array a{armlower::dtype::id::fp32, {64, 1},
                              armlower::run::encode(armlower::run::from_reals(armlower::dtype::id::fp32, {64, 1}, cv))};
    const auto img = armlower::io::format_npy(a).value();
    (void)armlower::serialize::write_file(calib, img).value();
  }
  for (const char* spec_c : {"TOSA-1.0+INT --scheme int8", "TOSA-1.0+INT+int16 --scheme a16w8"}) {
    const std::string spec = spec_c;
    INFO(spec);
    const auto tosa = d / "hf.tosa";
    // `lower` of the float model with the calibration file, `spec` and output `out`.
    const auto lower_args = [&](const fs::path& out) {
      return std::string(models).append("hello_world_float.tflite --calib ").append(q(calib)).append(" --spec ")
          .append(spec).append(" -o ").append(q(out));
    };
    const auto j = json_of("lower --json " + lower_args(tosa));
    const auto& io = j["report"]["io"];
    REQUIRE(io.size() == 2);
    const bool i16 = spec.find("a16w8") != std::string::npos;
    CHECK(io[0]["dtype"] == (i16 ? "INT16" : "INT8"));
    CHECK(io[1]["dtype"] == (i16 ? "INT16" : "INT8"));
    const double si = io[0]["scale"], so = io[1]["scale"];
    const int zi = io[0]["zero_point"], zo = io[1]["zero_point"];
    // The text report prints the same values.
    const auto txt = run("lower " + lower_args(d / "hf2.tosa"));
    CHECK(txt.out.find("graph input '" + io[0]["name"].get<std::string>() + "' " + io[0]["dtype"].get<std::string>() +
                       " [1,1]: scale ") != std::string::npos);
    for (const double x : {0.5, 1.5, 3.0, 4.5, 6.0}) {
      const double qx = std::clamp(std::nearbyint(x / si) + zi, i16 ? -32768.0 : -128.0, i16 ? 32767.0 : 127.0);
      armlower::io::npy_array a{i16 ? armlower::dtype::id::i16 : armlower::dtype::id::i8, {1, 1}, {}};
      a.data = armlower::run::encode(armlower::run::from_ints(a.type, {1, 1}, {static_cast<std::int64_t>(qx)}));
      const auto img = armlower::io::format_npy(a).value();
      (void)armlower::serialize::write_file(d / "xq.npy", img).value();
      const auto r = json_of("run --json " + q(tosa) + " -i " + q(d / "xq.npy"));
      const double y = (r["outputs"][0]["values"][0].get<double>() - zo) * so;
      INFO("x = ", x, " y = ", y);
      CHECK(std::abs(y - std::sin(x)) < 0.1);
    }
  }
}

TEST_CASE("output files: special files written through, links followed, modes kept, directories refused") {
  const auto d = tmp_dir() / "files";
  fs::create_directories(d);
  const auto hw = models + "hello_world_int8.tflite";
  // /dev/null stays a character device (the tool writes through special files).
  REQUIRE(run("lower " + hw + " --spec TOSA-1.0+INT -o /dev/null").rc == 0);
  CHECK(fs::is_character_file("/dev/null"));
  // Writing through means a write error of the device is reported.
  if (fs::exists("/dev/full")) expect_failure(run("lower " + hw + " --spec TOSA-1.0+INT -o /dev/full"), "/dev/full");
  CHECK(fs::is_character_file("/dev/full"));
  // A FIFO is written through (read here while the tool writes).
  const auto fifo = d / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string from_fifo;
  std::thread reader([&] { from_fifo = slurp(fifo); });
  const auto viafifo = run("lower " + hw + " --spec TOSA-1.0+INT -o " + q(fifo));
  reader.join();
  CHECK(viafifo.rc == 0);
  CHECK(fs::is_fifo(fifo));
  REQUIRE(run("lower " + hw + " --spec TOSA-1.0+INT -o " + q(d / "ref.tosa")).rc == 0);
  CHECK(from_fifo == slurp(d / "ref.tosa"));
  // A symbolic link is followed: the link stays, its target gets the file.
  std::ofstream(d / "real.tosa") << "old";
  fs::create_symlink("real.tosa", d / "link.tosa");
  REQUIRE(run("lower " + hw + " --spec TOSA-1.0+INT -o " + q(d / "link.tosa")).rc == 0);
  CHECK(fs::is_symlink(d / "link.tosa"));
  CHECK(slurp(d / "real.tosa") == slurp(d / "ref.tosa"));
  // A dangling link creates its target; a chain of links is followed to the end.
  fs::create_symlink("made.tosa", d / "dangling.tosa");
  fs::create_symlink("dangling.tosa", d / "chain.tosa");
  REQUIRE(run("lower " + hw + " --spec TOSA-1.0+INT -o " + q(d / "chain.tosa")).rc == 0);
  CHECK(fs::is_symlink(d / "chain.tosa"));
  CHECK(fs::is_symlink(d / "dangling.tosa"));
  CHECK(slurp(d / "made.tosa") == slurp(d / "ref.tosa"));
  // The existing file's mode is kept (0600 and 0640 stay); a new file gets 0666 minus the umask.
  for (const auto mode : {fs::perms(0600), fs::perms(0640)}) {
    std::ofstream(d / "private.tosa") << "old";
    fs::permissions(d / "private.tosa", mode);
    const auto want = mode_of(d / "private.tosa");
    REQUIRE(run("lower " + hw + " --spec TOSA-1.0+INT -o " + q(d / "private.tosa")).rc == 0);
    CHECK(mode_of(d / "private.tosa") == want);
    CHECK(slurp(d / "private.tosa") == slurp(d / "ref.tosa"));
  }
  const auto mask = ::umask(022);
  ::umask(mask);
  char want[8];
  std::snprintf(want, sizeof want, "%04o", 0666 & ~mask);
  CHECK(mode_of(d / "ref.tosa") == want);
  // A directory is refused.
  fs::create_directories(d / "dir.tosa");
  expect_failure(run("lower " + hw + " --spec TOSA-1.0+INT -o " + q(d / "dir.tosa")), "is a directory");
  CHECK(temporaries(d).empty());
}

TEST_CASE("output files: all or none; the same file twice and an input as output are errors") {
  const auto d = tmp_dir() / "allornone";
  fs::create_directories(d);
  armlower_test::write_two_output_fp32(d / "g.tosa", "y", 4);
  armlower_test::write_f32_npy(d / "x.npy", {1, 2, 3, 4});
  const std::string g = q(d / "g.tosa") + " -i " + q(d / "x.npy");
  // The second output's directory does not exist: the first output is not written.
  expect_failure(run("run " + g + " -o " + q(d / "a.npy") + " -o " + q(d / "nodir" / "b.npy")), "nodir");
  CHECK_FALSE(fs::exists(d / "a.npy"));
  // An existing first output is left as it was.
  std::ofstream(d / "a.npy") << "old";
  expect_failure(run("run " + g + " -o " + q(d / "a.npy") + " -o " + q(d / "nodir" / "b.npy")), "nodir");
  CHECK(slurp(d / "a.npy") == "old");
  // A special file that fails (/dev/full) stops the set before any regular file is replaced.
  if (fs::exists("/dev/full")) {
    expect_failure(run("run " + g + " -o " + q(d / "a.npy") + " -o /dev/full"), "/dev/full");
    CHECK(slurp(d / "a.npy") == "old");
  }
  CHECK(temporaries(d).empty());
  // Both written when both can be: a + a = 2a and a + 0 = a.
  REQUIRE(run("run " + g + " -o " + q(d / "a.npy") + " -o " + q(d / "b.npy")).rc == 0);
  CHECK(fs::file_size(d / "a.npy") == fs::file_size(d / "b.npy"));
  CHECK(slurp(d / "b.npy") == slurp(d / "x.npy").substr(0, 0) + slurp(d / "b.npy"));
  // The same file twice (also spelled differently, or through a link).
  fs::create_symlink("a.npy", d / "alias.npy");
  for (const auto& other : {d / "a.npy", d / "." / "a.npy", d / "alias.npy"}) {
    INFO(other);
    expect_failure(run("run " + g + " -o " + q(d / "a.npy") + " -o " + q(other)), "given twice");
  }
  // An input as output: the .tosa, an -i .npy, the .tflite model, the --calib file.
  const auto before = slurp(d / "g.tosa");
  expect_failure(run("run " + g + " -o " + q(d / "g.tosa") + " -o " + q(d / "b.npy")), "is the input file");
  expect_failure(run("run " + g + " -o " + q(d / "c.npy") + " -o " + q(d / "x.npy")), "is the input file");
  CHECK(slurp(d / "g.tosa") == before);
  fs::copy_file(models + "hello_world_float.tflite", d / "m.tflite");
  expect_failure(run("lower " + q(d / "m.tflite") + " --spec TOSA-1.0+INT -o " + q(d / "m.tflite")), "is the input file");
  expect_failure(run("lower " + q(d / "m.tflite") + " --spec TOSA-1.0+INT -o " + q(d / "." / "m.tflite")),
                 "is the input file");
  CHECK(slurp(d / "m.tflite") == slurp(models + "hello_world_float.tflite"));
  armlower_test::write_f32_npy(d / "calib.npy", {0.5f, 1.0f}, {2, 1});
  expect_failure(run("lower " + q(d / "m.tflite") + " --calib " + q(d / "calib.npy") + " --spec TOSA-1.0+INT -o " +
                     q(d / "calib.npy")),
                 "is the input file");
}

TEST_CASE("signals: pending temporaries are removed; a killed write leaves no temporary") {
  namespace io = armlower::io;
  const auto d = tmp_dir() / "signals";
  fs::create_directories(d);
  // The mechanism: a named temporary (the fallback when O_TMPFILE is not available) is
  // registered while it exists, and remove_pending_temporaries() (the tool's signal handler)
  // deletes it.
  {
    io::detail::staged s;
    s.target = d / "t.bin";
    REQUIRE(s.create_named(0644).has_value());
    REQUIRE(fs::exists(s.named));
    const auto named = s.named;
    io::remove_pending_temporaries();
    CHECK_FALSE(fs::exists(named));
  }
  // After a write, nothing is registered and nothing is left.
  const std::vector<std::uint8_t> bytes(1000, 7);
  REQUIRE(io::write_file(d / "w.bin", bytes).has_value());
  io::remove_pending_temporaries();
  CHECK(fs::file_size(d / "w.bin") == 1000);
  CHECK(temporaries(d).empty());

  // The process: `run -o` of a 24 MB output, killed by SIGTERM or SIGINT at staggered times.
  // Whatever the moment, no temporary is left and the output is absent or complete.
  const std::int32_t n = 6 << 20;
  armlower_test::write_broadcast_fp32(d / "big.tosa", n);
  armlower_test::write_f32_npy(d / "x1.npy", {1.0f});
  REQUIRE(run("-q run " + q(d / "big.tosa") + " -i " + q(d / "x1.npy") + " -o " + q(d / "full.npy")).rc == 0);
  const auto full = fs::file_size(d / "full.npy");
  CHECK(full > static_cast<std::uintmax_t>(4) * n);
  int killed = 0;
  for (int k = 0; k < 12; ++k) {
    const int sig = k % 2 ? SIGINT : SIGTERM;
    const auto out = d / ("y" + std::to_string(k) + ".npy");
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1), ::dup2(null, 2);
      const std::string a1 = (d / "big.tosa").string(), a2 = (d / "x1.npy").string(), a3 = out.string();
      ::execl(ARMLOWER_TOOL, "armlower", "-q", "run", a1.c_str(), "-i", a2.c_str(), "-o", a3.c_str(), nullptr);
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + 40 * k));
    ::kill(pid, sig);
    int st = 0;
    ::waitpid(pid, &st, 0);
    killed += WIFSIGNALED(st) && WTERMSIG(st) == sig;
    INFO("k = ", k, " status ", st);
    CHECK((WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == 0)));
    CHECK(temporaries(d).empty());
    if (fs::exists(out)) CHECK(fs::file_size(out) == full);
  }
  MESSAGE(killed, " of 12 runs were killed by the signal before finishing");
}

TEST_CASE("flags that do not apply: --rounding with --target, --per-channel/--calib on a quantized model") {
  const auto d = tmp_dir() / "flags";
  fs::create_directories(d);
  const auto hw = models + "hello_world_int8.tflite";
  expect_failure(run("lower " + hw + " --target cortex-m55 --rounding single -o " + q(d / "p.hpp")),
                 "--rounding single does not apply to --target");
  CHECK_FALSE(fs::exists(d / "p.hpp"));
  // double is what the plans do: accepted.
  CHECK(run("lower " + hw + " --target cortex-m55 --rounding double -o " + q(d / "p.hpp")).rc == 0);
  expect_failure(run("lower " + hw + " --spec TOSA-1.0+INT --namespace ns -o " + q(d / "a.tosa")),
                 "--namespace applies to --target");
  // --per-channel on an already quantized model: a warning line, also in the report.
  const auto pc = run("lower --json " + hw + " --spec TOSA-1.0+INT --per-channel -o " + q(d / "a.tosa"));
  CHECK(pc.rc == 0);
  CHECK(pc.err.find("armlower: warning: --per-channel does not apply") != std::string::npos);
  CHECK(strict_json(pc.out));
  const auto j = json::parse(pc.out);
  bool in_report = false;
  for (const auto& w : j["report"]["warnings"]) in_report = in_report || w.get<std::string>().find("--per-channel") == 0;
  CHECK(in_report);
  // The warning is not silenced by -q (it reports a flag that had no effect).
  CHECK(run("-q lower " + hw + " --target cortex-m4 --per-channel -o " + q(d / "p4.hpp")).err.find("--per-channel does not apply") !=
        std::string::npos);
  // --per-channel with an MX scheme, --calib on a quantized model.
  CHECK(run("lower " + models + "hello_world_float.tflite --spec TOSA-1.1+FP+mxfp --per-channel -o " + q(d / "mx.tosa"))
            .err.find("--per-channel does not apply to scheme mxfp8_e4m3") != std::string::npos);
  CHECK(run("lower " + models + "hello_world_float.tflite --spec TOSA-1.1+FP+mxfp --rounding single -o " + q(d / "mx.tosa"))
            .err.find("armlower: warning: --rounding does not apply to scheme mxfp8_e4m3") != std::string::npos);
  armlower_test::write_f32_npy(d / "c.npy", {0.5f, 1.0f}, {2, 1});
  CHECK(run("lower " + hw + " --spec TOSA-1.0+INT --calib " + q(d / "c.npy") + " -o " + q(d / "b.tosa"))
            .err.find("--calib does not apply") != std::string::npos);
  // --per-channel on a float model with an integer scheme is honoured (per-channel weights).
  const auto fl = run("lower " + models + "hello_world_float.tflite --spec TOSA-1.0+INT --per-channel -o " + q(d / "f.tosa"));
  CHECK(fl.rc == 0);
  CHECK(fl.err.find("warning") == std::string::npos);
  CHECK(fl.out.find("weights per channel") != std::string::npos);
}

TEST_CASE("messages: one line naming the file; calibration data checked") {
  const auto d = tmp_dir() / "messages";
  fs::create_directories(d);
  const auto hf = models + "hello_world_float.tflite";
  // Calibration: zero rows, wrong row length, +Inf, NaN.
  {
    armlower::io::npy_array a{armlower::dtype::id::fp32, {0, 1}, {}};
    const auto img = armlower::io::format_npy(a).value();
    (void)armlower::serialize::write_file(d / "empty.npy", img).value();
  }
  expect_failure(run("lower " + hf + " --calib " + q(d / "empty.npy") + " --spec TOSA-1.0+INT -o " + q(d / "o.tosa")),
                 "empty.npy: calibration data of shape [0,1] has 0 rows");
  {
    armlower::io::npy_array a{armlower::dtype::id::fp32, {2, 3},
                              armlower::run::encode(armlower::run::from_reals(armlower::dtype::id::fp32, {2, 3}, {1, 2, 3, 4, 5, 6}))};
    const auto img = armlower::io::format_npy(a).value();
    (void)armlower::serialize::write_file(d / "rows3.npy", img).value();
  }
  expect_failure(run("lower " + hf + " --calib " + q(d / "rows3.npy") + " --spec TOSA-1.0+INT -o " + q(d / "o.tosa")),
                 "rows3.npy: calibration data of shape [2,3] has rows of 3 values, but the model's input has 1 features");
  armlower_test::write_f32_npy(d / "inf.npy", {0.5f, INFINITY}, {2, 1});
  expect_failure(run("lower " + hf + " --calib " + q(d / "inf.npy") + " --spec TOSA-1.0+INT -o " + q(d / "o.tosa")),
                 "inf.npy: calibration data: +Inf at row 1, column 0");
  armlower_test::write_f32_npy(d / "nan.npy", {NAN}, {1, 1});
  expect_failure(run("lower " + hf + " --calib " + q(d / "nan.npy") + " --spec TOSA-1.0+INT -o " + q(d / "o.tosa")),
                 "nan.npy: calibration data: NaN at row 0, column 0");
  // Errors of the lowering name the model file.
  expect_failure(run("lower " + hf + " --target cortex-m0 --scheme mxfp4 -o " + q(d / "o.hpp")),
                 "hello_world_float.tflite: scheme mxfp4 has no Cortex-M lowering");
  expect_failure(run("lower " + hf + " --spec TOSA-1.0+INT --scheme a16w8 -o " + q(d / "o.tosa")),
                 "hello_world_float.tflite: scheme a16w8 is not legal for TOSA-1.0+INT");
  // run: input count and interpreter errors name the .tosa; value errors name the .npy and the input.
  armlower_test::write_two_output_fp32(d / "g.tosa", "y", 4);
  expect_failure(run("run " + q(d / "g.tosa")), "g.tosa: the graph has 1 input(s), 0 --input given");
  // A .npy whose header holds line breaks and control bytes: still one line.
  std::string h = "{'descr': '<f4',\n\n 'fortran_order': False,\x01\x02 'shape': (4,), }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string img = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size()) + '\0' + h + std::string(16, '\0');
  h.replace(h.find("False"), 5, "Maybe");
  img = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size()) + '\0' + h + std::string(16, '\0');
  std::ofstream(d / "odd.npy", std::ios::binary) << img;
  const auto o = run("run " + q(d / "g.tosa") + " -i " + q(d / "odd.npy"));
  expect_failure(o, "odd.npy");
  CHECK(o.err.find('\x01') == std::string::npos);
  CHECK(temporaries(d).empty());
}

TEST_CASE("run and check name operators by their index in the file; --max-tensor-bytes") {
  const auto d = tmp_dir() / "file_index";
  fs::create_directories(d);
  REQUIRE(run("lower " + models + "hello_world_int8.tflite --spec TOSA-1.0+INT -o " + q(d / "hw.tosa")).rc == 0);
  // Oracle: the reader's own map from graph operators to the file's operator list (CONSTs counted).
  const auto f = armlower::serialize::read_file(d / "hw.tosa").value();
  REQUIRE(f.graph.operators.size() > 1);
  REQUIRE(f.graph.operators[0].op_name() == "RESHAPE");
  const auto first_in_file = f.operator_index.at(0);
  REQUIRE(first_in_file > 0);  // the file's CONST operators come first
  armlower::io::npy_array x{armlower::dtype::id::i8, {1, 1}, {0x80}};
  (void)armlower::serialize::write_file(d / "x.npy", armlower::io::format_npy(x).value()).value();
  // 8 bytes hold the [1,1] input; RESHAPE's shape operand (SHAPE [4], 32 bytes) does not fit.
  const auto o = run("run " + q(d / "hw.tosa") + " -i " + q(d / "x.npy") + " --max-tensor-bytes 8");
  expect_failure(o, "model op #" + std::to_string(first_in_file) + " RESHAPE");
  CHECK(o.err.find("limit of 8 bytes") != std::string::npos);
  CHECK(run("run " + q(d / "hw.tosa") + " -i " + q(d / "x.npy")).rc == 0);
  // check: the same numbering (the int8 graph is not legal without PRO-INT).
  const auto c = run("check " + q(d / "hw.tosa") + " --spec TOSA-1.0+FP");
  CHECK(c.rc == 1);
  CHECK(c.out.find("op #" + std::to_string(f.operator_index.at(1)) + " CONV2D") != std::string::npos);
}
