// The TOSA interpreter end to end on a CONV2D 1×1 graph (the fully-connected layer as TOSA lowers
// it): int8 — x [batch,1,1,K] INT8, CONST weights [N,1,1,K] INT8, bias [N] INT32, input_zp −128 —
// and a16w8 — x INT16, weights INT8, bias [N] INT48, zero points 0, result INT48: `run::run`
// (constants decoded on every run), `run::session::run` (decoded and checked once; run into the same
// `run::outcome` every time, so the output buffers are reused) and `run::session::invoke` (the
// session's own input written in place, outputs read in place), in the same binary and shapes as the
// kernel rows of linear.bench.cpp. The `_lowered` rows invoke the graph armlower's lowering writes for the
// layer (RESHAPE, CONV2D, RESCALE, RESHAPE: requantized int8 / int16 output, like the peers' rows).
#include <armlower/graph/builder.hpp>
#include <armlower/passes.hpp>
#include <armlower/run.hpp>

#include <benchmark/benchmark.h>

#include "shapes.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

namespace run = armlower::run;
namespace graph = armlower::graph;
using id = armlower::dtype::id;

/// The CONV2D 1×1 graph of an int8 (`A16` false) or a16w8 (true) linear layer.
template <bool A16>
graph::graph conv1x1_graph(int batch, int k, int n) {
  const id in_t = A16 ? id::i16 : id::i8, acc_t = A16 ? id::i48 : id::i32;
  std::mt19937 g(42);
  std::uniform_int_distribution<int> d8(-128, 127), db(-20000, 20000);
  std::vector<std::int64_t> w(static_cast<std::size_t>(n) * static_cast<std::size_t>(k)), b(static_cast<std::size_t>(n));
  for (auto& v : w) v = d8(g);
  for (auto& v : b) v = db(g);
  graph::graph gr;
  const auto add_const = [&gr](const char* name, const run::value& v) {
    gr.add(run::to_constant(v, name));
    gr.operators.push_back(graph::operation{armlower::tosa::op::const_, {}, {name}, {}});
  };
  gr.add(graph::tensor{"x", in_t, {batch, 1, 1, k}, false, {}, std::nullopt});
  gr.inputs.push_back("x");
  add_const("w", run::from_ints(id::i8, {n, 1, 1, k}, w));
  add_const("b", run::from_ints(acc_t, {n}, b));
  add_const("izp", run::from_ints(in_t, {1}, {A16 ? 0 : -128}));
  add_const("wzp", run::from_ints(id::i8, {1}, {0}));
  gr.add(graph::tensor{"y", acc_t, {batch, 1, 1, n}, false, {}, std::nullopt});
  gr.operators.push_back(graph::operation{armlower::tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"},
                                          graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, acc_t, false}});
  gr.outputs.push_back("y");
  return gr;
}

template <bool A16>
std::vector<run::value> conv1x1_input(int batch, int k) {
  std::mt19937 g(7);
  std::uniform_int_distribution<int> dx(A16 ? -32768 : -128, A16 ? 32767 : 127);
  std::vector<std::int64_t> x(static_cast<std::size_t>(batch) * static_cast<std::size_t>(k));
  for (auto& v : x) v = dx(g);
  return {run::from_ints(A16 ? id::i16 : id::i8, {batch, 1, 1, k}, x)};
}

/// How a benchmark row runs the graph: `run::run` (constants decoded on every run), `run::session::run`
/// (the caller's input values, outputs moved into a kept outcome), or the session's own inputs written in
/// place + `session::invoke` (outputs read where the run left them; the firmware runtimes' way).
enum class mode { run, session, invoke };

template <bool A16, mode M>
void BM_interpreter_graph(benchmark::State& st) {
  const int batch = static_cast<int>(st.range(0)), k = static_cast<int>(st.range(1)), n = static_cast<int>(st.range(2));
  const graph::graph gr = conv1x1_graph<A16>(batch, k, n);
  const auto in = conv1x1_input<A16>(batch, k);
  run::session s(gr);
  if (M != mode::run && !s.run(in)) {  // first run (decodes the constants) outside the timed loop
    st.SkipWithError("session run failed");
    return;
  }
  if constexpr (M == mode::invoke) {  // the input written once: each invoke runs the same layer on it
    using T = std::conditional_t<A16, std::int16_t, std::int8_t>;
    const auto x = s.input<T>(0);
    if (!x) {
      st.SkipWithError(x.error().line().c_str());
      return;
    }
    const auto src = in[0].ints.template get<T>();
    std::copy(src.begin(), src.end(), x->begin());
  }
  run::outcome out;  // a session runs into the same outcome every time: its output buffers are reused
  for (auto _ : st) {
    if constexpr (M == mode::session) {
      if (auto r = s.run(in, out); !r) {
        st.SkipWithError(r.error().line().c_str());
        return;
      }
      benchmark::DoNotOptimize(out.outputs.data());
    } else if constexpr (M == mode::invoke) {
      if (auto r = s.invoke(); !r) {
        st.SkipWithError(r.error().line().c_str());
        return;
      }
      benchmark::DoNotOptimize(s.output(0));
    } else {
      auto r = run::run(gr, in);
      if (!r) {
        st.SkipWithError(r.error().line().c_str());
        return;
      }
      benchmark::DoNotOptimize(r->outputs.data());
    }
  }
  st.counters["MAC/s"] = benchmark::Counter(static_cast<double>(batch) * k * n, benchmark::Counter::kIsIterationInvariantRate);
}

/// The TOSA graph armlower writes for a float linear layer (K → N, batch rows) quantized with given ranges
/// (`graph::build_quantized_mlp`, int8 or a16w8, weights per tensor) and lowered (`passes::lower`):
/// RESHAPE, CONV2D 1×1, RESCALE, RESHAPE — an int8 (int16) output, as a peer's fully connected layer gives.
template <bool A16>
graph::graph lowered_linear_graph(int batch, int k, int n) {
  std::mt19937 g(5);
  std::normal_distribution<float> w(0.0f, 0.05f);
  graph::mlp_layer l;
  l.in_features = k;
  l.out_features = n;
  l.weight.resize(static_cast<std::size_t>(k) * static_cast<std::size_t>(n));
  l.bias.resize(static_cast<std::size_t>(n));
  for (auto& v : l.weight) v = w(g);
  for (auto& v : l.bias) v = w(g);
  const std::vector<graph::mlp_layer> layers{l};
  const std::vector<graph::float_range> ranges{{-1.0f, 1.0f}, {-2.0f, 2.0f}};
  auto q = graph::build_quantized_mlp(layers, {batch, k}, {A16 ? id::i16 : id::i8, false}, ranges);
  armlower::passes::options opt;
  opt.sch = A16 ? armlower::passes::scheme::a16w8 : armlower::passes::scheme::int8;
  auto r = armlower::passes::lower(armlower::tosa::parse(A16 ? "TOSA-1.0+INT+int16" : "TOSA-1.0+INT").value, std::move(q), opt);
  if (!r) throw std::runtime_error(r.error().message());
  return std::move(r->graph);
}

/// `session::invoke` of the lowered layer (`lowered_linear_graph`), the input written once.
template <bool A16>
void BM_interpreter_lowered(benchmark::State& st) {
  const int batch = static_cast<int>(st.range(0)), k = static_cast<int>(st.range(1)), n = static_cast<int>(st.range(2));
  const graph::graph gr = lowered_linear_graph<A16>(batch, k, n);
  run::session s(gr);
  using T = std::conditional_t<A16, std::int16_t, std::int8_t>;
  const auto x = s.input<T>(0);
  if (!x) {
    st.SkipWithError(x.error().line().c_str());
    return;
  }
  std::mt19937 g(7);
  std::uniform_int_distribution<int> d(A16 ? -32768 : -128, A16 ? 32767 : 127);
  for (auto& v : *x) v = static_cast<T>(d(g));
  // outside the timed loop: the first run (decodes and packs the constants, settles the session, packs a
  // fused layer's weights) and one settled run
  for (int warm = 0; warm < 2; ++warm)
    if (auto r = s.invoke(); !r) {
      st.SkipWithError(r.error().line().c_str());
      return;
    }
  for (auto _ : st) {
    if (auto r = s.invoke(); !r) {
      st.SkipWithError(r.error().line().c_str());
      return;
    }
    benchmark::DoNotOptimize(s.output(0));
  }
  st.counters["MAC/s"] = benchmark::Counter(static_cast<double>(batch) * k * n, benchmark::Counter::kIsIterationInvariantRate);
}

using bench_shapes::args;

BENCHMARK(BM_interpreter_graph<false, mode::run>)->Name("BM_s8_interpreter_run")->Apply(args);
BENCHMARK(BM_interpreter_graph<false, mode::session>)->Name("BM_s8_interpreter_session")->Apply(args);
BENCHMARK(BM_interpreter_graph<false, mode::invoke>)->Name("BM_s8_interpreter_invoke")->Apply(args);
BENCHMARK(BM_interpreter_graph<true, mode::run>)->Name("BM_s16_interpreter_run")->Apply(args);
BENCHMARK(BM_interpreter_graph<true, mode::session>)->Name("BM_s16_interpreter_session")->Apply(args);
BENCHMARK(BM_interpreter_graph<true, mode::invoke>)->Name("BM_s16_interpreter_invoke")->Apply(args);
BENCHMARK(BM_interpreter_lowered<false>)->Name("BM_s8_interpreter_invoke_lowered")->Apply(args);
BENCHMARK(BM_interpreter_lowered<true>)->Name("BM_s16_interpreter_invoke_lowered")->Apply(args);

}  // namespace
