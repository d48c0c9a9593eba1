// Lowering throughput benchmark: builds a 64-layer MLP of 1024x1024 linears (with bias) as the
// framework graph a scheme starts from (quantized int8 / a16w8 graph, or float graph for MXFP),
// then times lowering (passes incl. the MX quantization of 64 M weights) + serializing to .tosa,
// and the Cortex-M lowering for the integer schemes. Reports time per layer and the peak RSS
// growth relative to the weight bytes of the input graph.
// `calib` (integer schemes): start from the float graph instead, with the default calibration
// (graph::default_calibration: 256 rows for 1024 features), so the time includes
// QuantizeFloatGraph (calibration + weight quantization); `given`: the same float layers with
// given activation ranges ([-4, 4]), quantized in the timed part by graph::build_quantized_mlp
// (weight quantization without calibration). No Cortex-M run in these modes.
//
//   lowering_bench <scheme> [layers] [features] [calib|given]   e.g. lowering_bench mxfp8_e4m3
//   lowering_bench int8 1 1024 calib                            vs  lowering_bench int8 1 1024 given
#include <armlower/graph/builder.hpp>
#include <armlower/passes.hpp>
#include <armlower/passes/cortex_m.hpp>
#include <armlower/serialize/writer.hpp>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

using namespace armlower;

namespace {
// Resident-set numbers from /proc/self/status (kB).
long status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string k = std::string(key) + ":";
  while (std::getline(f, line))
    if (line.rfind(k, 0) == 0) return std::atol(line.c_str() + k.size());
  return -1;
}
// Resets the peak-RSS high-water mark (Linux >= 4.0: write "5" to clear_refs).
void reset_peak() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
}
double secs(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
// CPU time of this thread (not inflated when other processes share the cores).
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: lowering_bench <scheme> [layers=64] [features=1024] [calib|given]\n");
    return 2;
  }
  passes::scheme sch{};
  if (!passes::parse_scheme(argv[1], sch)) {
    std::fprintf(stderr, "unknown scheme %s\n", argv[1]);
    return 2;
  }
  const int L = argc > 2 ? std::atoi(argv[2]) : 64;
  const std::int32_t F = argc > 3 ? std::atoi(argv[3]) : 1024;
  const bool calib = argc > 4 && std::string(argv[4]) == "calib" && !passes::is_mx(sch);
  const bool given = argc > 4 && std::string(argv[4]) == "given" && !passes::is_mx(sch);
  const bool mx = passes::is_mx(sch);
  const bool float_graph = mx || calib || given;
  std::vector<graph::mlp_layer> layers;  // `given`: the float layers

  // Input graph (not timed).
  std::mt19937 rng(7);
  graph::graph g;
  std::int64_t weight_bytes = 0;
  {
    graph::builder b;
    if (float_graph) {
      std::normal_distribution<float> nd(0.0f, 0.03f);
      std::vector<float> w(static_cast<std::size_t>(F) * F), bias(static_cast<std::size_t>(F));
      auto v = b.input("x", {1, F});
      for (int l = 0; l < L; ++l) {
        for (auto& x : w) x = nd(rng);
        for (auto& x : bias) x = nd(rng);
        const auto act = l + 1 < L ? graph::activation::relu : graph::activation::none;
        v = b.linear(v, w, F, bias, act);
        if (given) layers.push_back({F, F, w, bias, act});
      }
      b.output(v);
      weight_bytes = static_cast<std::int64_t>(L) * F * F * 4;
    } else {
      const auto act = passes::activation_dtype(sch);
      std::uniform_int_distribution<int> wd(-127, 127);
      std::vector<std::int64_t> w(static_cast<std::size_t>(F) * F), bias(static_cast<std::size_t>(F));
      graph::quant_params aq = act == dtype::id::i8 ? graph::affine_activation_qparams({-4.0f, 4.0f}, act)
                                                    : graph::symmetric_activation_qparams({-4.0f, 4.0f}, act);
      graph::quant_params wq;
      wq.scale.assign(static_cast<std::size_t>(F), 0.001f);
      wq.zero_point.assign(static_cast<std::size_t>(F), 0);
      wq.per_channel = true;
      wq.qmin = -127;
      wq.qmax = 127;
      const auto bq = graph::bias_qparams(aq, wq);
      auto v = b.quantized_input("x", {1, F}, act, aq);
      for (int l = 0; l < L; ++l) {
        for (auto& x : w) x = wd(rng);
        for (auto& x : bias) x = wd(rng) * 100;
        v = b.quantized_linear(v, w, wq, F, bias, bq, act, aq, graph::activation::none);
      }
      b.output(v);
      weight_bytes = static_cast<std::int64_t>(L) * F * F;
    }
    g = b.take();
  }
  graph::graph cm_input;
  if (!float_graph) cm_input = g;  // input of the Cortex-M run, copied before the measurements start
  const long base_kb = status_kb("VmRSS");
  reset_peak();

  const auto t0 = std::chrono::steady_clock::now();
  passes::options opt;
  opt.sch = sch;
  if (calib) opt.calibration = graph::default_calibration(F);  // not timed
  const char* spec = sch == passes::scheme::int8 ? "TOSA-1.0+INT" : sch == passes::scheme::a16w8 ? "TOSA-1.0+INT+int16" : "TOSA-1.1+FP+mxfp";
  const auto t_copy = std::chrono::steady_clock::now();
  const double c0 = cpu_now();
  if (given) {
    const std::vector<graph::float_range> ranges(layers.size() + 1, graph::float_range{-4.0f, 4.0f});
    g = graph::build_quantized_mlp(layers, {1, F}, {passes::activation_dtype(sch), false}, ranges);
  }
  auto r = passes::lower(tosa::parse(spec).value, std::move(g), opt);
  if (!r) {
    std::fprintf(stderr, "lowering failed: %s\n", r.error().message().c_str());
    return 1;
  }
  const auto t1 = std::chrono::steady_clock::now();
  const double c1 = cpu_now();
  const long lower_peak_kb = status_kb("VmHWM");
  auto bytes = serialize::write(r->graph, mx ? serialize::format::tosa_1_1 : serialize::format::tosa_1_0);
  if (!bytes) {
    std::fprintf(stderr, "serialize failed: %s\n", bytes.error().message().c_str());
    return 1;
  }
  const auto t2 = std::chrono::steady_clock::now();
  const double c2 = cpu_now();
  const long peak_kb = status_kb("VmHWM");
  const double lower_s = secs(t_copy, t1), ser_s = secs(t1, t2);
  std::printf("%-11s %s%s: %d layers of %dx%d, weights %.1f MB\n"
              "  wall: lower %.3f s + serialize %.3f s = %.3f s (%.2f ms/layer)\n"
              "  cpu : lower %.3f s + serialize %.3f s = %.3f s (%.2f ms/layer)\n"
              "  .tosa %.1f MB; peak RSS growth after lowering %.1f MB (%.2f x weights), after serializing %.1f MB "
              "(%.2f x weights)\n",
              argv[1], spec, calib ? " (float graph + default calibration)" : given ? " (float graph + given ranges)" : "", L, F, F, weight_bytes / 1e6, lower_s, ser_s, lower_s + ser_s,
              1e3 * (lower_s + ser_s) / L, c1 - c0, c2 - c1, c2 - c0, 1e3 * (c2 - c0) / L,
              bytes.value().size() / 1e6, (lower_peak_kb - base_kb) / 1e3,
              (lower_peak_kb - base_kb) * 1e3 / static_cast<double>(weight_bytes), (peak_kb - base_kb) / 1e3,
              (peak_kb - base_kb) * 1e3 / static_cast<double>(weight_bytes));
  (void)t0;
  if (!float_graph) {
    { const auto released = std::move(*r); }      // free the TOSA graph
    { const auto released = std::move(*bytes); }  // and the file image
    const auto t3 = std::chrono::steady_clock::now();
    const double c3 = cpu_now();
    auto prog = passes::lower_cortex_m(std::move(cm_input), {cortex_m::isa::mve});
    const auto t4 = std::chrono::steady_clock::now();
    const double c4 = cpu_now();
    if (!prog) {
      std::fprintf(stderr, "cortex-m lowering failed: %s\n", prog.error().message().c_str());
      return 1;
    }
    std::printf("%-11s cortex-m (MVE plan, kernel_sum): wall %.3f s, cpu %.3f s (%.2f ms/layer)\n", argv[1],
                secs(t3, t4), c4 - c3, 1e3 * (c4 - c3) / L);
  }
  return 0;
}
