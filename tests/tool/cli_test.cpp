// The `armlower` command line: --help everywhere, and every kind of bad input gives exit code 1,
// exactly one line on stderr naming the problem, and no output file (not even a partial or
// temporary one).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tool_process.hpp"

namespace fs = std::filesystem;
using armlower_test::outcome;
using armlower_test::slurp;
using armlower_test::tmp_dir;
using armlower_test::expect_failure;

namespace {

outcome run(const std::string& args) { return armlower_test::run_tool(args); }

const std::string models = ARMLOWER_SHARED_DATA "/tflite/";

void write(const fs::path& p, const std::vector<unsigned char>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

std::vector<unsigned char> bytes_of(const fs::path& p) {
  const auto s = slurp(p);
  return {s.begin(), s.end()};
}

/// A .npy image (version 1.0) of `descr` with `shape` text and `n` zero bytes of data.
std::vector<unsigned char> npy(const std::string& descr, const std::string& shape, std::size_t n) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  const unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<unsigned char>(h.size() & 0xFF),
                                 static_cast<unsigned char>(h.size() >> 8)};
  std::vector<unsigned char> b(sizeof pre + h.size() + n, 0);
  std::copy(std::begin(pre), std::end(pre), b.begin());
  std::copy(h.begin(), h.end(), b.begin() + sizeof pre);
  return b;
}

bool no_outputs_or_temps(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto n = e.path().filename().string();
    if (n.find("out") == 0 || n.find(".tmp") != std::string::npos) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("--help on the tool and every subcommand") {
  for (const char* sub : {"", "lower ", "run ", "check ", "inspect ", "demo "}) {
    const auto o = run(std::string(sub) + "--help");
    INFO(sub);
    CHECK(o.rc == 0);
    CHECK(o.out.find("Usage") != std::string::npos);
  }
  CHECK(run("").rc != 0);  // a subcommand is required
}

TEST_CASE("bad input files: missing, not a flatbuffer, truncated, wrong identifier") {
  const auto d = tmp_dir() / "files";
  fs::create_directories(d);
  const auto good = bytes_of(models + "hello_world_int8.tflite");
  const std::string text = "just some text that is not a model at all\n";
  write(d / "text.tflite", {text.begin(), text.end()});
  write(d / "cut.tflite", {good.begin(), good.begin() + 1000});
  auto wrong = good;
  wrong[4] = 'X';
  wrong[5] = 'Y';
  write(d / "wrong_id.tflite", wrong);

  for (const char* cmd : {"inspect", "lower"}) {
    const std::string tail = std::string(cmd) == "lower" ? " --spec TOSA-1.0+INT -o " + (d / "out.tosa").string() : "";
    expect_failure(run(std::string(cmd) + " " + (d / "missing.tflite").string() + tail), "no such file");
    expect_failure(run(std::string(cmd) + " " + (d / "text.tflite").string() + tail), "not a flatbuffer");
    expect_failure(run(std::string(cmd) + " " + (d / "cut.tflite").string() + tail), "truncated");
    expect_failure(run(std::string(cmd) + " " + (d / "wrong_id.tflite").string() + tail), "wrong file identifier 'XY");
    CHECK(no_outputs_or_temps(d));
  }
  expect_failure(run("run " + (d / "cut.tflite").string()), "is a .tflite model, not a .tosa file");
}

TEST_CASE("bad spec strings and schemes illegal for the spec") {
  const auto d = tmp_dir() / "spec";
  fs::create_directories(d);
  const auto out = " -o " + (d / "out.tosa").string();
  const auto hw = models + "hello_world_int8.tflite";
  const auto hf = models + "hello_world_float.tflite";
  expect_failure(run("lower " + hw + " --spec TOSA-9.9+INT" + out), "bad spec string 'TOSA-9.9+INT'");
  expect_failure(run("lower " + hw + " --spec TOSA-1.0+INT+bogus" + out), "bad spec string");
  expect_failure(run("lower " + hw + " --spec TOSA-1.0+INT --scheme int7" + out), "unknown scheme 'int7'");
  expect_failure(run("lower " + hf + " --spec TOSA-1.0+INT --scheme a16w8" + out), "scheme a16w8 is not legal for TOSA-1.0+INT");
  expect_failure(run("lower " + hf + " --spec TOSA-1.0+FP --scheme mxfp4" + out), "scheme mxfp4 is not legal for TOSA-1.0+FP");
  expect_failure(run("lower " + hf + " --spec TOSA-1.0+INT+FP --scheme mxfp8_e4m3" + out), "is not legal");
  expect_failure(run("check " + hw + " --spec TOSA-1.0+NOPE"), "bad spec string");
  CHECK(no_outputs_or_temps(d));
}

TEST_CASE("unsupported operators: listed, or refused with --strict") {
  const auto d = tmp_dir() / "ops";
  fs::create_directories(d);
  const auto ms = models + "micro_speech_quantized.tflite";
  const auto strict = run("lower " + ms + " --strict --spec TOSA-1.0+INT -o " + (d / "out.tosa").string());
  expect_failure(strict, "#1 DEPTHWISE_CONV_2D");
  CHECK(strict.err.find("#3 SOFTMAX") != std::string::npos);
  CHECK(no_outputs_or_temps(d));
  const auto ok = run("lower " + ms + " --spec TOSA-1.0+INT -o " + (d / "fc.tosa").string());
  CHECK(ok.rc == 0);
  CHECK(ok.out.find("#1 DEPTHWISE_CONV_2D (no lowering for this operator)") != std::string::npos);
  CHECK(ok.out.find("#0 RESHAPE") != std::string::npos);
  CHECK(fs::exists(d / "fc.tosa"));
}

TEST_CASE("run: .npy inputs of the wrong dtype, shape or count") {
  const auto d = tmp_dir() / "npy";
  fs::create_directories(d);
  const auto tosa = (d / "hw.tosa").string();
  REQUIRE(run("lower " + models + "hello_world_int8.tflite --spec TOSA-1.0+INT -o " + tosa).rc == 0);
  write(d / "f32.npy", npy("<f4", "(1, 1)", 4));
  write(d / "shape.npy", npy("|i1", "(2, 3)", 6));
  write(d / "cut.npy", npy("|i1", "(1, 1)", 0));
  write(d / "good.npy", npy("|i1", "(1, 1)", 1));
  expect_failure(run("run " + tosa + " --input " + (d / "f32.npy").string()), "dtype FP32 does not match input");
  expect_failure(run("run " + tosa + " --input " + (d / "shape.npy").string()), "shape [2,3] does not match input");
  expect_failure(run("run " + tosa + " --input " + (d / "cut.npy").string()), "truncated .npy data");
  expect_failure(run("run " + tosa), "1 input(s), 0 --input given");
  expect_failure(run("run " + tosa + " --input " + (d / "missing.npy").string()), "no such file");
  expect_failure(run("run " + tosa + " -i " + (d / "good.npy").string() + " -o " + (d / "outA.npy").string() + " -o " +
                     (d / "outB.npy").string()),
                 "1 output(s), 2 -o given");
  CHECK_FALSE(fs::exists(d / "outA.npy"));
}

TEST_CASE("inspect and check on a lowered file; --json is machine-readable") {
  const auto d = tmp_dir() / "inspect";
  fs::create_directories(d);
  const auto tosa = (d / "a16.tosa").string();
  const auto calib = d / "calib.npy";
  auto c = npy("<f4", "(4, 1)", 16);
  const float vals[4] = {0.0f, 2.0f, 4.0f, 6.28f};
  std::memcpy(c.data() + c.size() - 16, vals, 16);
  write(calib, c);
  REQUIRE(run("lower " + models + "hello_world_float.tflite --spec TOSA-1.0+INT+int16 --scheme a16w8 --calib " +
              calib.string() + " -o " + tosa)
              .rc == 0);
  const auto ins = run("inspect " + tosa);
  CHECK(ins.rc == 0);
  CHECK(ins.out.find("CONV2D") != std::string::npos);
  CHECK(ins.out.find("INT48") != std::string::npos);
  const auto js = run("inspect --json " + tosa);
  CHECK(js.out.rfind("{\"file\":", 0) == 0);
  CHECK(run("check " + tosa + " --spec TOSA-1.0+INT+int16").rc == 0);
  const auto bad = run("check " + tosa + " --spec TOSA-1.0+INT");
  CHECK(bad.rc == 1);
  CHECK(bad.out.find("CONV2D") != std::string::npos);
  CHECK(bad.out.find("EXT-INT16") != std::string::npos);
  const auto bj = run("check --json " + tosa + " --spec TOSA-1.0+INT");
  CHECK(bj.out.find("\"legal\":false") != std::string::npos);
}

TEST_CASE("lower --target writes a Cortex-M plan header; bad targets and MX schemes are refused") {
  const auto d = tmp_dir() / "target";
  fs::create_directories(d);
  const auto hw = models + "hello_world_int8.tflite";
  expect_failure(run("lower " + hw + " --target cortex-m99 -o " + (d / "out.hpp").string()), "unknown target 'cortex-m99'");
  expect_failure(run("lower " + models + "hello_world_float.tflite --target cortex-m4 --scheme mxfp4 -o " +
                     (d / "out.hpp").string()),
                 "has no Cortex-M lowering");
  expect_failure(run("lower " + hw + " --spec TOSA-1.0+INT --target cortex-m55 -o " + (d / "out.hpp").string()),
                 "exactly one of --spec or --target");
  CHECK(no_outputs_or_temps(d));
  const auto mve = run("lower " + hw + " --target cortex-m55 -o " + (d / "hw_m55.hpp").string());
  CHECK(mve.rc == 0);
  const auto h = slurp(d / "hw_m55.hpp");
  CHECK(h.find("namespace hw_m55") != std::string::npos);
  CHECK(h.find("kernel_sum") != std::string::npos);
  const auto dsp = run("lower " + hw + " --target cortex-m4 --namespace fw::hw -o " + (d / "hw_m4.hpp").string());
  CHECK(dsp.rc == 0);
  const auto h4 = slurp(d / "hw_m4.hpp");
  CHECK(h4.find("namespace fw::hw") != std::string::npos);
  CHECK(h4.find("_bias") != std::string::npos);
}

TEST_CASE("lower --target --pack-weights: cortex-m55 int8 weights packed for the 8-row kernel, or row-major") {
  const auto d = tmp_dir() / "pack";
  fs::create_directories(d);
  const auto hw = models + "hello_world_int8.tflite";
  expect_failure(run("lower " + hw + " --target cortex-m55 --pack-weights sometimes -o " + (d / "p.hpp").string()),
                 "unknown --pack-weights 'sometimes' (valid: auto, always, never)");
  expect_failure(run("lower " + hw + " --spec TOSA-1.0+INT --pack-weights always -o " + (d / "a.tosa").string()),
                 "--pack-weights applies to --target");
  CHECK(no_outputs_or_temps(d));
  // hello_world_int8 (1→16→16→1): padding to 8 rows / 16 columns more than doubles its MACs, so auto
  // (the default) keeps it row-major; always packs every layer (no row-major copy).
  CHECK(run("lower " + hw + " --target cortex-m55 --namespace hw -o " + (d / "hw_auto.hpp").string()).rc == 0);
  const auto a = slurp(d / "hw_auto.hpp");
  CHECK(a.find("inline constexpr bool packed = false;") != std::string::npos);
  CHECK(a.find("layer0_weights[16]") != std::string::npos);
  CHECK(run("lower " + hw + " --target cortex-m55 --pack-weights always -o " + (d / "always.hpp").string()).rc == 0);
  const auto p = slurp(d / "always.hpp");
  CHECK(p.find("inline constexpr bool packed = true;") != std::string::npos);
  CHECK(p.find("layer0_packed_weights[256]") != std::string::npos);  // 16 rows × 1 column → 16 × 16
  CHECK(p.find("layer2_packed_weights[128]") != std::string::npos);  // 1 row × 16 columns → 8 × 16
  CHECK(p.find("_weights[16]") == std::string::npos);
  CHECK(run("lower " + hw + " --target cortex-m55 --namespace hw --pack-weights never -o " + (d / "hw_never.hpp").string())
            .rc == 0);
  CHECK(slurp(d / "hw_never.hpp") == a);
  // DSP targets have no packed kernel: row-major whatever is asked.
  CHECK(run("lower " + hw + " --target cortex-m4 --pack-weights always -o " + (d / "m4.hpp").string()).rc == 0);
  CHECK(slurp(d / "m4.hpp").find("packed_weights") == std::string::npos);
}
