// The TOSA interpreter end to end on a CONV2D 1×1 graph (the fully-connected layer as TOSA lowers
// it): int8 — x [batch,1,1,K] INT8, CONST weights [N,1,1,K] INT8, bias [N] INT32, input_zp −128 —
// and a16w8 — x INT16, weights INT8, bias [N] INT48, zero points 0, result INT48: `run::run`
// (constants decoded on every run), `run::session::run` (decoded and checked once; run into the same
// `run::outcome` every time, so the output buffers are reused) and `run::session::invoke` (the
// session's own input written in place, outputs read in place), in the same binary and shapes as the
// kernel rows of linear.bench.cpp.
#include <armlower/run.hpp>

#include <benchmark/benchmark.h>

#include "shapes.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <random>
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

using bench_shapes::args;

BENCHMARK(BM_interpreter_graph<false, mode::run>)->Name("BM_s8_interpreter_run")->Apply(args);
BENCHMARK(BM_interpreter_graph<false, mode::session>)->Name("BM_s8_interpreter_session")->Apply(args);
BENCHMARK(BM_interpreter_graph<false, mode::invoke>)->Name("BM_s8_interpreter_invoke")->Apply(args);
BENCHMARK(BM_interpreter_graph<true, mode::run>)->Name("BM_s16_interpreter_run")->Apply(args);
BENCHMARK(BM_interpreter_graph<true, mode::session>)->Name("BM_s16_interpreter_session")->Apply(args);
BENCHMARK(BM_interpreter_graph<true, mode::invoke>)->Name("BM_s16_interpreter_invoke")->Apply(args);

}  // namespace
