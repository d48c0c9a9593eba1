// run::session (constants decoded once, kernel copies reused) against run::run on the same graph:
// identical outputs over repeated runs with different inputs, identical kept tensors, identical
// errors (the session must not change what the interpreter computes or reports).
#include "run_test_util.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace run_test;

namespace {

// x [2,1,1,16] int8 → CONV2D 1×1 (weights from a CONST op, bias a constant tensor without one)
// → y int32 [2,1,1,8] → RESCALE → z int8; outputs z and the bias constant itself.
builder conv_rescale_graph(std::mt19937_64& rng, std::vector<std::int32_t> y_shape = {2, 1, 1, 8}) {
  builder g;
  g.input("x", id::i8, {2, 1, 1, 16});
  g.constant("w", run::from_ints(id::i8, {8, 1, 1, 16}, random_ints(rng, std::size_t{8} * 16, -128, 127)));
  g.g.add(run::to_constant(run::from_ints(id::i32, {8}, random_ints(rng, 8, -5000, 5000)), "b"));
  g.ints("izp", id::i8, {1}, {-3});
  g.ints("wzp", id::i8, {1}, {0});
  g.declare("y", id::i32, std::move(y_shape));
  g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"},
       graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
  g.ints("m", id::i32, {1}, {1518500250});
  g.ints("s", id::i8, {1}, {40});
  g.ints("yzp", id::i32, {1}, {0});
  g.ints("zzp", id::i8, {1}, {5});
  g.declare("z", id::i8, {2, 1, 1, 8});
  g.op(tosa::op::rescale, {"y", "m", "s", "yzp", "zzp"}, {"z"},
       graph::rescale_attr{true, tosa::rounding_mode::single_round, false, false, false});
  g.output("z");
  g.output("b");
  return g;
}

}  // namespace

TEST_CASE("session: same outputs as run::run over repeated runs with different inputs") {
  std::mt19937_64 rng(7);
  const builder g = conv_rescale_graph(rng);
  run::session s(g.g);
  for (int iter = 0; iter < 4; ++iter) {
    const std::vector<run::value> in{run::from_ints(id::i8, {2, 1, 1, 16}, random_ints(rng, 32, -128, 127))};
    const auto want = run::run(g.g, in);
    REQUIRE_MESSAGE(want, (want ? "" : want.error().line()));
    const auto got = s.run(in);
    REQUIRE_MESSAGE(got, (got ? "" : got.error().line()));
    REQUIRE(got->outputs.size() == 2);
    CHECK(got->outputs[0].ints == want->outputs[0].ints);
    CHECK(got->outputs[0].type == want->outputs[0].type);
    CHECK(got->outputs[0].shape == want->outputs[0].shape);
    CHECK(got->outputs[1].ints == want->outputs[1].ints);
  }
}

TEST_CASE("session: keep_intermediates keeps the same tensors as run::run, constants included") {
  std::mt19937_64 rng(8);
  const builder g = conv_rescale_graph(rng);
  run::options opt;
  opt.keep_intermediates = true;
  run::session s(g.g, opt);
  const std::vector<run::value> in{run::from_ints(id::i8, {2, 1, 1, 16}, random_ints(rng, 32, -128, 127))};
  const auto want = run::run(g.g, in, opt);
  REQUIRE(want);
  for (int iter = 0; iter < 2; ++iter) {
    const auto got = s.run(in);
    REQUIRE(got);
    CHECK(got->tensors.size() == want->tensors.size());
    for (const auto& kv : want->tensors) {
      const auto& name = kv.first;
      const auto& v = kv.second;
      CAPTURE(name);
      REQUIRE(got->tensors.count(name) == 1);
      CHECK(got->tensors.at(name).ints == v.ints);
    }
  }
}

TEST_CASE("session: errors are those of run::run, on every run") {
  std::mt19937_64 rng(9);
  {  // bad input value
    const builder g = conv_rescale_graph(rng);
    run::session s(g.g);
    const std::vector<run::value> bad{run::from_ints(id::i8, {2, 1, 1, 15}, random_ints(rng, 30, -128, 127))};
    const auto want = run::run(g.g, bad);
    REQUIRE_FALSE(want);
    for (int iter = 0; iter < 2; ++iter) {
      const auto got = s.run(bad);
      REQUIRE_FALSE(got);
      CHECK(got.error().line() == want.error().line());
    }
    // a good run after the failed ones still matches
    const std::vector<run::value> in{run::from_ints(id::i8, {2, 1, 1, 16}, random_ints(rng, 32, -128, 127))};
    const auto w2 = run::run(g.g, in);
    const auto g2 = s.run(in);
    REQUIRE((w2 && g2));
    CHECK(g2->outputs[0].ints == w2->outputs[0].ints);
  }
  {  // an operator's ERROR_IF (declared CONV2D result shape wrong), after its constants were cached
    const builder g = conv_rescale_graph(rng, {2, 1, 1, 9});
    run::session s(g.g);
    const std::vector<run::value> in{run::from_ints(id::i8, {2, 1, 1, 16}, random_ints(rng, 32, -128, 127))};
    const auto want = run::run(g.g, in);
    REQUIRE_FALSE(want);
    for (int iter = 0; iter < 2; ++iter) {
      const auto got = s.run(in);
      REQUIRE_FALSE(got);
      CHECK(got.error().line() == want.error().line());
    }
  }
}

TEST_CASE("session: int8 1x1 CONV2D with ≥ 16 channels (packed weights where the CPU runs them) == run::run") {
  std::mt19937_64 rng(10);
  for (const bool overflow : {false, true}) {
    CAPTURE(overflow);
    builder g;
    g.input("x", id::i8, {5, 1, 1, 70});
    g.input("izp", id::i8, {1});  // EXT-DYNAMIC: the zero point changes between runs (the packed form follows)
    g.constant("w", run::from_ints(id::i8, {40, 1, 1, 70}, random_ints(rng, std::size_t{40} * 70, -128, 127)));
    auto bias = random_ints(rng, 40, -5000, 5000);
    if (overflow) bias[17] = INT32_MAX - 10;  // accumulator + bias leaves int32 for some input
    g.constant("b", run::from_ints(id::i32, {40}, bias));
    g.ints("wzp", id::i8, {1}, {3});
    g.declare("y", id::i32, {5, 1, 1, 40});
    g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"},
         graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
    g.output("y");
    run::options opt;
    opt.dynamic = true;
    run::session s(g.g, opt);
    for (const std::int64_t izp : {-128, -128, 5, 127}) {
      CAPTURE(izp);
      const std::vector<run::value> in{run::from_ints(id::i8, {5, 1, 1, 70}, random_ints(rng, 350, -128, 127)),
                                       run::from_ints(id::i8, {1}, {izp})};
      const auto want = run::run(g.g, in, opt);
      const auto got = s.run(in);
      REQUIRE(static_cast<bool>(got) == static_cast<bool>(want));
      if (want) CHECK(got->outputs[0].ints == want->outputs[0].ints);
      else CHECK(got.error().line() == want.error().line());
      if (!overflow) CHECK(want);
    }
  }
}

TEST_CASE("session: two prepared int8 1x1 CONV2Ds sharing one weight tensor with different zero points == run::run") {
  // Both CONV2Ds are prepared (every operand but x is a constant); their packed forms differ only in
  // the folded input_zp, so the session's packed buffer of `w` is made for one and then the other: a
  // prepared form must never run on weights packed for the other's zero points.
  std::mt19937_64 rng(12);
  builder g;
  g.input("x", id::i8, {3, 1, 1, 40});
  g.constant("w", run::from_ints(id::i8, {24, 1, 1, 40}, random_ints(rng, std::size_t{24} * 40, -128, 127)));
  g.constant("b", run::from_ints(id::i32, {24}, random_ints(rng, 24, -5000, 5000)));
  g.ints("izp1", id::i8, {1}, {-128});
  g.ints("izp2", id::i8, {1}, {17});
  g.ints("wzp", id::i8, {1}, {0});
  g.declare("y1", id::i32, {3, 1, 1, 24});
  g.declare("y2", id::i32, {3, 1, 1, 24});
  g.op(tosa::op::conv2d, {"x", "w", "b", "izp1", "wzp"}, {"y1"},
       graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
  g.op(tosa::op::conv2d, {"x", "w", "b", "izp2", "wzp"}, {"y2"},
       graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
  g.output("y1");
  g.output("y2");
  run::session s(g.g);
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    const std::vector<run::value> in{run::from_ints(id::i8, {3, 1, 1, 40}, random_ints(rng, 120, -128, 127))};
    const auto want = run::run(g.g, in);
    const auto got = s.run(in);
    REQUIRE_MESSAGE(want, (want ? "" : want.error().line()));
    REQUIRE_MESSAGE(got, (got ? "" : got.error().line()));
    CHECK(got->outputs[0].ints == want->outputs[0].ints);
    CHECK(got->outputs[1].ints == want->outputs[1].ints);
  }
}

TEST_CASE("session: a prepared CONV2D (checked once) still reports the data-dependent REQUIRE on the run that breaks it") {
  // Zero points are constants, so after the first run the session runs CONV2D and RESCALE from their
  // prepared form (op_context::prepare); whether acc + bias leaves int32 depends on each run's input.
  std::mt19937_64 rng(11);
  builder g;
  g.input("x", id::i8, {3, 1, 1, 70});
  g.constant("w", run::from_ints(id::i8, {40, 1, 1, 70}, random_ints(rng, std::size_t{40} * 70, -128, 127)));
  auto bias = random_ints(rng, 40, -5000, 5000);
  bias[17] = INT32_MAX - 1000;
  g.constant("b", run::from_ints(id::i32, {40}, bias));
  g.ints("izp", id::i8, {1}, {0});
  g.ints("wzp", id::i8, {1}, {0});
  g.declare("y", id::i32, {3, 1, 1, 40});
  g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"},
       graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
  g.ints("m", id::i32, {1}, {1518500250});
  g.ints("s", id::i8, {1}, {45});
  g.ints("yzp", id::i32, {1}, {0});
  g.ints("zzp", id::i8, {1}, {0});
  g.declare("z", id::i8, {3, 1, 1, 40});
  g.op(tosa::op::rescale, {"y", "m", "s", "yzp", "zzp"}, {"z"},
       graph::rescale_attr{true, tosa::rounding_mode::single_round, false, false, false});
  g.output("z");
  run::session s(g.g);
  // inputs: zeros (fits), batch row 2 = +127 where w[17] > 0 and -128 elsewhere (channel 17 overflows), zeros
  // again, the overflowing input again
  std::vector<std::int64_t> up(210, 0);
  const auto w = g.g.find("w");
  REQUIRE(w != nullptr);
  const auto wv = run::from_constant(*w);
  for (std::size_t k = 0; k < 70; ++k) up[140 + k] = wv.ints[std::size_t{17} * 70 + k] > 0 ? 127 : -128;
  int failures = 0;
  const std::vector<std::int64_t> zeros(210, 0);
  for (const auto& xs : {zeros, up, zeros, up}) {
    const std::vector<run::value> in{run::from_ints(id::i8, {3, 1, 1, 70}, xs)};
    const auto want = run::run(g.g, in);
    const auto got = s.run(in);
    REQUIRE(static_cast<bool>(got) == static_cast<bool>(want));
    if (want) {
      CHECK(got->outputs[0].ints == want->outputs[0].ints);
    } else {
      ++failures;
      CHECK(got.error().line() == want.error().line());
      CHECK(got.error().code() == armlower::errc::require);
      CHECK(got.error().where().op == "CONV2D");
    }
  }
  CHECK(failures == 2);
}

TEST_CASE("session: running into the same outcome reuses its output buffers, results and errors as run::run") {
  std::mt19937_64 rng(12);
  const builder g = conv_rescale_graph(rng);
  run::session s(g.g);
  run::outcome out;
  // handed-back values of another shape, and one value too many, are only storage to reuse; the first
  // has a 4096-byte buffer, so a new 16-byte one could not land at its address (other malloc size class)
  out.outputs.push_back(run::from_ints(id::i8, {4096}, std::vector<std::int8_t>(4096, 9)));
  out.outputs.push_back(run::from_ints(id::i16, {3}, {1, 2, 3}));
  out.outputs.push_back(run::from_ints(id::i8, {1}, {4}));
  const std::int8_t* buffer = out.outputs[0].ints.get<std::int8_t>().data();
  for (int iter = 0; iter < 6; ++iter) {
    CAPTURE(iter);
    const bool bad = iter == 3;  // a run that fails (input shape) between good ones
    const std::vector<run::value> in{
        run::from_ints(id::i8, {2, 1, 1, bad ? 15 : 16}, random_ints(rng, bad ? 30 : 32, -128, 127))};
    const auto want = run::run(g.g, in);
    const auto got = s.run(in, out);
    REQUIRE(static_cast<bool>(got) == static_cast<bool>(want));
    if (!want) {
      CHECK(got.error().line() == want.error().line());
      continue;
    }
    REQUIRE(out.outputs.size() == 2);
    CHECK(out.outputs[0].type == want->outputs[0].type);
    CHECK(out.outputs[0].shape == want->outputs[0].shape);
    CHECK(out.outputs[0].ints == want->outputs[0].ints);
    CHECK(out.outputs[0].check().empty());
    CHECK(out.outputs[1].ints == want->outputs[1].ints);
    CHECK(out.tensors.empty());
    const std::int8_t* p = out.outputs[0].ints.get<std::int8_t>().data();
    REQUIRE(p != nullptr);
    CHECK(p == buffer);  // the handed-back buffer on every run (kept through the failed one), never a new one
  }
}

TEST_CASE("session: a constant that a later operator writes again is bound anew on every run (non-SSA graph)") {
  // x → t = x + c (c from its CONST op) → c = t + c (the constant's name written by ADD) → y = c + x.
  // A settled session skips CONST operators with nothing left to do; on every run the first ADD must
  // still read the constant, not the value the second ADD wrote under its name on the previous run.
  builder g;
  g.input("x", id::i32, {8});
  g.ints("c", id::i32, {8}, {1, 2, 3, 4, 5, 6, 7, 8});
  g.declare("t", id::i32, {8});
  g.declare("y", id::i32, {8});
  g.op(tosa::op::add, {"x", "c"}, {"t"});
  g.op(tosa::op::add, {"t", "c"}, {"c"});
  g.op(tosa::op::add, {"c", "x"}, {"y"});
  g.output("y");
  std::mt19937_64 rng(11);
  run::session s(g.g);
  run::outcome out;
  for (int iter = 0; iter < 4; ++iter) {
    const std::vector<run::value> in{run::from_ints(id::i32, {8}, random_ints(rng, 8, -1000, 1000))};
    const auto want = run::run(g.g, in);
    REQUIRE_MESSAGE(want, (want ? "" : want.error().line()));
    const auto got = s.run(in, out);
    REQUIRE_MESSAGE(got, (got ? "" : got.error().line()));
    REQUIRE(out.outputs.size() == 1);
    CHECK(out.outputs[0].ints == want->outputs[0].ints);
    // y = (x + c) + c + x, worked out apart from the interpreter
    for (std::size_t i = 0; i < 8; ++i)
      CHECK(out.outputs[0].ints[i] == 2 * in[0].ints[i] + 2 * static_cast<std::int64_t>(i + 1));
  }
}

namespace {

/// Writes `v`'s integers (storage `T`) into the session's input `i` (`session::input`).
template <class T>
void write_input(run::session& s, std::size_t i, const run::value& v) {
  auto span = s.input<T>(i);
  REQUIRE_MESSAGE(span, (span ? "" : span.error().line()));
  const auto src = v.ints.get<T>();
  REQUIRE(span->size() == src.size());
  std::copy(src.begin(), src.end(), span->begin());
}

}  // namespace

TEST_CASE("session::invoke: inputs written in place give run::run's outputs, run after run, between plain runs") {
  std::mt19937_64 rng(21);
  const builder g = conv_rescale_graph(rng);
  run::session s(g.g);
  CHECK(s.output(0) == nullptr);  // nothing invoked yet
  for (int iter = 0; iter < 6; ++iter) {
    CAPTURE(iter);
    const std::vector<run::value> in{run::from_ints(id::i8, {2, 1, 1, 16}, random_ints(rng, 32, -128, 127))};
    const auto want = run::run(g.g, in);
    REQUIRE_MESSAGE(want, (want ? "" : want.error().line()));
    if (iter % 3 == 2) {  // a plain run in between: its outputs are the run's, and `output` no longer refers to any
      const auto got = s.run(in);
      REQUIRE(got);
      CHECK(got->outputs[0].ints == want->outputs[0].ints);
      CHECK(s.output(0) == nullptr);
      continue;
    }
    write_input<std::int8_t>(s, 0, in[0]);
    const auto r = s.invoke();
    REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
    for (std::size_t j = 0; j < 2; ++j) {
      CAPTURE(j);
      const run::value* y = s.output(j);
      REQUIRE(y != nullptr);
      CHECK(y->type == want->outputs[j].type);
      CHECK(y->shape == want->outputs[j].shape);
      CHECK(y->ints == want->outputs[j].ints);
      CHECK(y->check().empty());
    }
    CHECK(s.output(2) == nullptr);
  }
}

TEST_CASE("session::invoke: packed int8 CONV2D layers of 16-64 channels, and the REQUIRE of the run that breaks it") {
  std::mt19937_64 rng(22);
  for (const int oc : {16, 40, 64}) {
    for (const int batch : {1, 3}) {
      CAPTURE(oc);
      CAPTURE(batch);
      builder g;
      g.input("x", id::i8, {batch, 1, 1, 64});
      auto w = random_ints(rng, std::size_t(oc) * 64, -128, 127);
      std::fill(w.end() - 64, w.end(), 127);  // the last channel: acc = 255·127·64 for x = 127
      g.constant("w", run::from_ints(id::i8, {oc, 1, 1, 64}, w));
      auto bias = random_ints(rng, static_cast<std::size_t>(oc), -5000, 5000);
      bias[static_cast<std::size_t>(oc) - 1] = INT32_MAX - 1600000;  // acc + bias leaves int32 for x = 127 only (acc ≈ 1.04e6 for random x)
      g.constant("b", run::from_ints(id::i32, {oc}, bias));
      g.ints("izp", id::i8, {1}, {-128});
      g.ints("wzp", id::i8, {1}, {0});
      g.declare("y", id::i32, {batch, 1, 1, oc});
      g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"},
           graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
      g.output("y");
      run::session s(g.g);
      for (int iter = 0; iter < 5; ++iter) {
        CAPTURE(iter);
        const bool big = iter == 2;  // every x = 127: the last channel's acc + bias leaves int32
        const std::vector<run::value> in{run::from_ints(
            id::i8, {batch, 1, 1, 64},
            big ? std::vector<std::int64_t>(static_cast<std::size_t>(batch) * 64, 127)
                : random_ints(rng, static_cast<std::size_t>(batch) * 64, -128, 127))};
        const auto want = run::run(g.g, in);
        CHECK(static_cast<bool>(want) == !big);  // the REQUIRE run fails, the others do not
        write_input<std::int8_t>(s, 0, in[0]);
        const auto r = s.invoke();
        REQUIRE(static_cast<bool>(r) == static_cast<bool>(want));
        if (!want) {
          CHECK(r.error().line() == want.error().line());
          CHECK(s.output(0) == nullptr);
          continue;
        }
        REQUIRE(s.output(0) != nullptr);
        CHECK(s.output(0)->ints == want->outputs[0].ints);
      }
    }
  }
}

TEST_CASE("session::input: refusals; elements of dtypes narrower than their storage checked on every invoke") {
  builder g;
  g.input("q", id::i4, {4});
  g.g.add(run::to_constant(run::from_ints(id::i16, {2}, {-7, 300}), "c"));  // an output no operator reads
  g.output("q");  // a graph input as output: referenced in place
  g.output("c");
  run::session s(g.g);
  CHECK_FALSE(s.input<std::int16_t>(0));  // INT4 is stored as int8
  CHECK_FALSE(s.input<float>(0));
  CHECK_FALSE(s.input<std::uint8_t>(0));
  const auto none = s.input<std::int8_t>(1);
  REQUIRE_FALSE(none);
  CHECK(none.error().line().find("no input 1") != std::string::npos);
  auto q = s.input<std::int8_t>(0);
  REQUIRE(q);
  REQUIRE(q->size() == 4);
  for (const std::int8_t v : *q) CHECK(v == 0);  // zeros until written
  const std::vector<std::int64_t> ok{-7, 7, 0, 3};  // INT4 is −7..7
  std::copy(ok.begin(), ok.end(), q->begin());
  const auto good = s.invoke();
  REQUIRE_MESSAGE(good, (good ? "" : good.error().line()));
  REQUIRE(s.output(0) != nullptr);
  CHECK(s.output(0)->ints.widened() == ok);
  REQUIRE(s.output(1) != nullptr);
  CHECK(s.output(1)->ints.widened() == std::vector<std::int64_t>{-7, 300});
  (*q)[2] = 9;  // outside INT4: refused by name, as run::run refuses the same value
  run::value bad = run::zeros(id::i4, {4});
  bad.ints.set(2, 9);
  const auto want = run::run(g.g, std::vector<run::value>{bad});
  REQUIRE_FALSE(want);
  const auto r = s.invoke();
  REQUIRE_FALSE(r);
  CHECK(r.error().line() == want.error().line());
  CHECK(s.output(0) == nullptr);
}

namespace {

/// How a session of `g` settles after one run on `in` (`detail::settle`): whether it calls its operators'
/// prepared forms directly (`constant_cache::direct`) and how many CONV2D + RESCALE pairs it runs as one
/// linear layer (`fuse_layers`) — the session's first run, replayed on the detail API.
struct settled {
  bool direct = false;
  std::size_t fused = 0;
  std::size_t steps = 0;  ///< calls of a direct run (`constant_cache::direct_steps`)
};
settled settle_of(const graph::graph& g, const std::vector<run::value>& in) {
  namespace d = run::detail;
  const d::graph_plan p(g, d::index_tensors(g), run::default_max_tensor_bytes);
  d::constant_cache cache(p.names.size(), g.operators.size());
  d::run_state st;
  st.keep_storage = true;
  st.reset(p.names.size());
  run::outcome res;
  const auto e = d::run_graph(g, p, in, {}, &cache, st, res);
  REQUIRE_MESSAGE(!e, (e ? e->line() : ""));
  REQUIRE(cache.settled);
  return {cache.direct, cache.fused.size(), cache.direct_steps.size()};
}
bool settles_direct(const graph::graph& g, const std::vector<run::value>& in) { return settle_of(g, in).direct; }

/// Writes `in` (elements of storage `T`) into session `s` of graph `g`, invokes it and requires what
/// run::run gives on `in`: every output's shape and elements, or the same error line. Returns whether
/// run::run succeeded.
template <class T>
bool invoke_matches_run(run::session& s, const graph::graph& g, const run::value& in) {
  const auto want = run::run(g, std::vector<run::value>{in});
  write_input<T>(s, 0, in);
  const auto r = s.invoke();
  REQUIRE(static_cast<bool>(r) == static_cast<bool>(want));
  if (!want) {
    CHECK(r.error().line() == want.error().line());
    return false;
  }
  for (std::size_t j = 0; j < want->outputs.size(); ++j) {
    CAPTURE(j);
    REQUIRE(s.output(j) != nullptr);
    CHECK(s.output(j)->shape == want->outputs[j].shape);
    CHECK(s.output(j)->ints == want->outputs[j].ints);
  }
  return true;
}

}  // namespace

TEST_CASE("session: a lowered linear layer (RESHAPE, CONV2D, RESCALE, CLAMP, RESHAPE) runs its prepared forms directly == run::run") {
  std::mt19937_64 rng(31);
  for (const bool a16 : {false, true}) {
    CAPTURE(a16);
    const builder g = lowered_linear_graph(rng, a16);
    const std::int64_t lo = a16 ? -32768 : -128, hi = a16 ? 32767 : 127;
    CHECK(settles_direct(g.g, {run::from_ints(a16 ? id::i16 : id::i8, {1, 40}, random_ints(rng, 40, lo, hi))}));
    run::session s(g.g);
    run::outcome out;
    for (int iter = 0; iter < 6; ++iter) {
      CAPTURE(iter);
      const std::vector<run::value> in{run::from_ints(a16 ? id::i16 : id::i8, {1, 40}, random_ints(rng, 40, lo, hi))};
      const auto want = run::run(g.g, in);
      REQUIRE_MESSAGE(want, (want ? "" : want.error().line()));
      if (iter % 3 == 1) {
        const auto r = s.run(in, out);
        REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
        REQUIRE(out.outputs.size() == 1);
        CHECK(out.outputs[0].ints == want->outputs[0].ints);
        CHECK(out.outputs[0].check().empty());
        continue;
      }
      if (a16) write_input<std::int16_t>(s, 0, in[0]);
      else write_input<std::int8_t>(s, 0, in[0]);
      const auto r = s.invoke();
      REQUIRE_MESSAGE(r, (r ? "" : r.error().line()));
      REQUIRE(s.output(0) != nullptr);
      CHECK(s.output(0)->shape == want->outputs[0].shape);
      CHECK(s.output(0)->ints == want->outputs[0].ints);
      CHECK(s.output(0)->check().empty());
    }
  }
}

TEST_CASE("session: runs keep the general loop's checks unless every operator is prepared and finds its operands bound") {
  std::mt19937_64 rng(32);
  // CONV2D + RESCALE, a constant without a CONST operator (read by CONV2D) as a second output: direct
  CHECK(settles_direct(conv_rescale_graph(rng).g, {run::from_ints(id::i8, {2, 1, 1, 16}, random_ints(rng, 32, -128, 127))}));
  {  // an operator without a prepared form (ADD)
    builder g;
    g.input("x", id::i32, {4});
    g.ints("c", id::i32, {4}, {1, 2, 3, 4});
    g.declare("y", id::i32, {4});
    g.op(tosa::op::add, {"x", "c"}, {"y"});
    g.output("y");
    CHECK_FALSE(settles_direct(g.g, {run::from_ints(id::i32, {4}, {5, 6, 7, 8})}));
  }
  {  // a CONST whose tensor another operator writes again (non-SSA): the CONST stays scheduled, written twice
    builder g;
    g.input("x", id::i8, {4});
    g.ints("c", id::i8, {4}, {1, 2, 3, 4});
    g.op(tosa::op::clamp, {"x"}, {"c"}, graph::clamp_attr{-5, 5, graph::nan_mode::propagate});
    g.output("c");
    CHECK_FALSE(settles_direct(g.g, {run::from_ints(id::i8, {4}, {-9, 0, 3, 9})}));
  }
  {  // a graph output that is a constant no operator reads (bound by the output step, not by a run)
    builder g;
    g.input("x", id::i8, {4});
    g.declare("y", id::i8, {4});
    g.op(tosa::op::clamp, {"x"}, {"y"}, graph::clamp_attr{-5, 5, graph::nan_mode::propagate});
    g.g.add(run::to_constant(run::from_ints(id::i8, {2}, {7, -7}), "k"));
    g.output("y");
    g.output("k");
    CHECK_FALSE(settles_direct(g.g, {run::from_ints(id::i8, {4}, {-9, 0, 3, 9})}));
  }
}

TEST_CASE("session: prepared RESHAPE and CLAMP of reals (NaN propagated or ignored) and of FP8 codes == run::run") {
  std::mt19937_64 rng(33);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto mode : {graph::nan_mode::propagate, graph::nan_mode::ignore}) {
    CAPTURE(static_cast<int>(mode));
    builder g;
    g.input("x", id::fp32, {2, 3});
    g.declare("y", id::fp32, {2, 3});
    g.op(tosa::op::clamp, {"x"}, {"y"}, graph::clamp_attr{-1.0, 6.0, mode});
    g.shape_const("s", {3, 2});
    g.declare("r", id::fp32, {3, 2});
    g.op(tosa::op::reshape, {"y", "s"}, {"r"});
    g.output("r");
    CHECK(settles_direct(g.g, {run::from_reals(id::fp32, {2, 3}, {0, 1, 2, 3, 4, 5})}));
    run::session s(g.g);
    std::uniform_real_distribution<float> d(-10.0f, 10.0f);
    for (int iter = 0; iter < 4; ++iter) {
      std::vector<float> xs(6);
      for (auto& v : xs) v = d(rng);
      xs[static_cast<std::size_t>(iter)] = nan;
      const std::vector<run::value> in{run::from_reals(id::fp32, {2, 3}, xs)};
      const auto want = run::run(g.g, in);
      REQUIRE(want);
      auto span = s.input<float>(0);
      REQUIRE(span);
      std::copy(xs.begin(), xs.end(), span->begin());
      REQUIRE(s.invoke());
      const auto& got = s.output(0)->reals;
      const auto& exp = want->outputs[0].reals;
      REQUIRE(got.size() == exp.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(std::isnan(got[i]) == std::isnan(exp[i]));
        if (!std::isnan(exp[i])) CHECK(got[i] == exp[i]);
      }
    }
  }
  builder g;
  g.input("x", id::fp8e4m3, {2, 4});
  g.shape_const("s", {8});
  g.declare("r", id::fp8e4m3, {8});
  g.op(tosa::op::reshape, {"x", "s"}, {"r"});
  g.output("r");
  run::session s(g.g);
  for (int iter = 0; iter < 3; ++iter) {
    std::vector<std::uint8_t> codes(8);
    for (auto& c : codes) c = static_cast<std::uint8_t>(random_ints(rng, 1, 0, 255)[0] & 0x7E);  // no NaN code
    const std::vector<run::value> in{run::from_codes(id::fp8e4m3, {2, 4}, codes)};
    const auto want = run::run(g.g, in);
    REQUIRE_MESSAGE(want, (want ? "" : want.error().line()));
    auto span = s.input<std::uint8_t>(0);
    REQUIRE(span);
    std::copy(codes.begin(), codes.end(), span->begin());
    REQUIRE(s.invoke());
    CHECK(s.output(0)->type == id::fp8e4m3);
    CHECK(s.output(0)->shape == want->outputs[0].shape);
    CHECK(s.output(0)->codes == want->outputs[0].codes);
  }
}

TEST_CASE("session: a CONV2D and the RESCALE of its result run as one linear layer where no REQUIRE can fail == run::run") {
  std::mt19937_64 rng(34);
  // int8 layers of 1-70 channels (row-major below 16), K with tails, batch 1-3, per-tensor or per-channel
  // RESCALE, SINGLE_ROUND or DOUBLE_ROUND (shifts from 20 to 45), output zero points, a CLAMP after it
  std::size_t fused = 0;
  for (int layer = 0; layer < 24; ++layer) {
    CAPTURE(layer);
    const int k = static_cast<int>(random_ints(rng, 1, 1, 90)[0]), n = static_cast<int>(random_ints(rng, 1, layer % 4 == 0 ? 1 : 8, layer % 4 == 0 ? 15 : 70)[0]);
    const int batch = static_cast<int>(random_ints(rng, 1, 1, 3)[0]);
    const bool per_channel = layer % 2 == 1, dbl = layer % 3 == 0;
    const std::int64_t izp = random_ints(rng, 1, -128, 127)[0], zzp = random_ints(rng, 1, -128, 127)[0];
    builder g;
    g.input("x", id::i8, {batch, 1, 1, k});
    g.constant("w", run::from_ints(id::i8, {n, 1, 1, k}, random_ints(rng, std::size_t(n) * std::size_t(k), -128, 127)));
    g.constant("b", run::from_ints(id::i32, {n}, random_ints(rng, static_cast<std::size_t>(n), -100000, 100000)));
    g.ints("izp", id::i8, {1}, {izp});
    g.ints("wzp", id::i8, {1}, {0});
    g.declare("y", id::i32, {batch, 1, 1, n});
    g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"}, graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
    const std::size_t nm = per_channel ? static_cast<std::size_t>(n) : 1;
    const auto shifts = random_ints(rng, nm, 20, 45);
    std::vector<std::int64_t> mults = random_ints(rng, nm, 1 << 30, INT32_MAX);
    g.ints("m", id::i32, {static_cast<std::int32_t>(nm)}, mults);
    g.ints("sh", id::i8, {static_cast<std::int32_t>(nm)}, shifts);
    g.ints("yzp", id::i32, {1}, {0});
    g.ints("zzp", id::i8, {1}, {zzp});
    g.declare("z", id::i8, {batch, 1, 1, n});
    g.op(tosa::op::rescale, {"y", "m", "sh", "yzp", "zzp"}, {"z"},
         graph::rescale_attr{true, dbl ? tosa::rounding_mode::double_round : tosa::rounding_mode::single_round, per_channel, false, false});
    g.declare("r", id::i8, {batch, 1, 1, n});
    g.op(tosa::op::clamp, {"z"}, {"r"}, graph::clamp_attr{-100, 127, graph::nan_mode::propagate});
    g.output("r");
    const std::vector<run::value> first{run::from_ints(id::i8, {batch, 1, 1, k}, random_ints(rng, std::size_t(batch) * std::size_t(k), -128, 127))};
    const auto how = settle_of(g.g, first);
    CHECK(how.direct);
    fused += how.fused;  // fused where no REQUIRE can fail (shifts ≤ 32: only if 255·Σ|w| + |b| < 2^(shift−1))
    run::session s(g.g);
    for (int iter = 0; iter < 4; ++iter) {
      CAPTURE(iter);
      // iteration 3: every x at the extreme, the largest |x − input_zp|
      invoke_matches_run<std::int8_t>(
          s, g.g,
          run::from_ints(id::i8, {batch, 1, 1, k},
                         iter == 3 ? std::vector<std::int64_t>(std::size_t(batch) * std::size_t(k), izp >= 0 ? -128 : 127)
                                   : random_ints(rng, std::size_t(batch) * std::size_t(k), -128, 127)));
    }
  }
  CHECK(fused >= 12);  // most layers are fused
}

TEST_CASE("session: the fusion of a CONV2D and its RESCALE is taken for a lowered layer, and not where a REQUIRE could fail") {
  std::mt19937_64 rng(35);
  const auto x = [&rng](int k) {
    return std::vector<run::value>{run::from_ints(id::i8, {1, k}, random_ints(rng, static_cast<std::size_t>(k), -128, 127))};
  };
  {  // the int8 layer armlower lowers (RESHAPE, CONV2D, RESCALE, CLAMP, RESHAPE): one fused pair
    const builder g = lowered_linear_graph(rng, false);
    const auto how = settle_of(g.g, x(40));
    CHECK(how.direct);
    CHECK(how.fused == 1);
    CHECK(how.steps == 1);  // the RESHAPEs and the CLAMP run in the fused layer
  }
  {  // the a16w8 layer (INT48 → INT16): one fused layer, a linear_s16 call
    const builder g = lowered_linear_graph(rng, true);
    const auto how = settle_of(g.g, std::vector<run::value>{run::from_ints(id::i16, {1, 40}, random_ints(rng, 40, -32768, 32767))});
    CHECK(how.direct);
    CHECK(how.fused == 1);
    CHECK(how.steps == 1);
  }
  for (const int channels : {1, 4, 7}) {  // an int8 layer too narrow for packed weights: fused all the same
    CAPTURE(channels);
    builder g;
    g.input("x", id::i8, {2, 1, 1, 300});
    g.constant("w", run::from_ints(id::i8, {channels, 1, 1, 300}, random_ints(rng, std::size_t(channels) * 300, -128, 127)));
    g.constant("b", run::from_ints(id::i32, {channels}, random_ints(rng, static_cast<std::size_t>(channels), -1000, 1000)));
    g.ints("izp", id::i8, {1}, {-3});
    g.ints("wzp", id::i8, {1}, {0});
    g.declare("y", id::i32, {2, 1, 1, channels});
    g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"}, graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
    g.ints("m", id::i32, {1}, {1 << 30});
    g.ints("sh", id::i8, {1}, {40});
    g.ints("yzp", id::i32, {1}, {0});
    g.ints("zzp", id::i8, {1}, {5});
    g.declare("z", id::i8, {2, 1, 1, channels});
    g.op(tosa::op::rescale, {"y", "m", "sh", "yzp", "zzp"}, {"z"},
         graph::rescale_attr{true, tosa::rounding_mode::single_round, false, false, false});
    g.output("z");
    const auto in = run::from_ints(id::i8, {2, 1, 1, 300}, random_ints(rng, 600, -128, 127));
    const auto how = settle_of(g.g, std::vector<run::value>{in});
    CHECK(how.direct);
    CHECK(how.fused == 1);
    CHECK(how.steps == 1);
    run::session s(g.g);
    invoke_matches_run<std::int8_t>(s, g.g, in);
    invoke_matches_run<std::int8_t>(s, g.g, run::from_ints(id::i8, {2, 1, 1, 300}, std::vector<std::int64_t>(600, 127)));
  }
  for (const bool big_bias : {false, true}) {  // a bias that can take accumulator + bias out of int32: not fused
    CAPTURE(big_bias);
    builder g;
    g.input("x", id::i8, {1, 1, 1, 32});
    g.constant("w", run::from_ints(id::i8, {16, 1, 1, 32}, random_ints(rng, std::size_t{16} * 32, -128, 127)));
    auto bias = random_ints(rng, 16, -1000, 1000);
    if (big_bias) bias[7] = INT32_MAX - 1000;
    g.constant("b", run::from_ints(id::i32, {16}, bias));
    g.ints("izp", id::i8, {1}, {0});
    g.ints("wzp", id::i8, {1}, {0});
    g.declare("y", id::i32, {1, 1, 1, 16});
    g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"}, graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
    g.ints("m", id::i32, {1}, {1 << 30});
    g.ints("sh", id::i8, {1}, {40});
    g.ints("yzp", id::i32, {1}, {0});
    g.ints("zzp", id::i8, {1}, {0});
    g.declare("z", id::i8, {1, 1, 1, 16});
    g.op(tosa::op::rescale, {"y", "m", "sh", "yzp", "zzp"}, {"z"},
         graph::rescale_attr{true, tosa::rounding_mode::single_round, false, false, false});
    g.output("z");
    const std::vector<run::value> in{run::from_ints(id::i8, {1, 1, 1, 32}, std::vector<std::int64_t>(32, 0))};  // acc 0: no REQUIRE fails on this run
    const auto how = settle_of(g.g, in);
    CHECK(how.direct);
    CHECK(how.fused == (big_bias ? 0U : 1U));
    // and a run whose accumulator + bias leaves int32 reports CONV2D's REQUIRE, as run::run does
    if (big_bias) {
      run::session s(g.g);
      REQUIRE(s.run(in));
      auto w = g.g.find("w");
      REQUIRE(w != nullptr);
      const auto wv = run::from_constant(*w);
      std::vector<std::int64_t> xs(32);
      for (int c = 0; c < 32; ++c) xs[static_cast<std::size_t>(c)] = wv.ints[std::size_t{7} * 32 + static_cast<std::size_t>(c)] >= 0 ? 127 : -128;
      const std::vector<run::value> in2{run::from_ints(id::i8, {1, 1, 1, 32}, xs)};
      const auto want = run::run(g.g, in2);
      REQUIRE_FALSE(want);
      write_input<std::int8_t>(s, 0, in2[0]);
      const auto r = s.invoke();
      REQUIRE_FALSE(r);
      CHECK(r.error().line() == want.error().line());
    }
  }
  {  // the CONV2D result also a graph output: not fused
    builder g = lowered_linear_graph(rng, false);
    g.output("y");
    const auto how = settle_of(g.g, x(40));
    CHECK(how.direct);
    CHECK(how.fused == 0);
  }
}

namespace {

/// Two int8 linear layers as armlower lowers them with fused activations, on x [batch, k]: RESHAPE →
/// CONV2D → RESCALE → CLAMP [lo1, hi1] → CONV2D → RESCALE → CLAMP [lo2, hi2] → (CLAMP [lo3, hi3]) → RESHAPE →
/// out [batch, n2]. The tensors: x, x4, y1, z1, a1, y2, z2, a2 (a3), out.
struct two_layers {
  int batch = 2, k = 37, n1 = 24, n2 = 19;
  double lo1 = 0, hi1 = 127, lo2 = -128, hi2 = 127;
  bool third_clamp = false;
  double lo3 = -128, hi3 = 127;
};
builder two_layer_graph(std::mt19937_64& rng, const two_layers& t) {
  builder g;
  g.input("x", id::i8, {t.batch, t.k});
  g.shape_const("s4", {t.batch, 1, 1, t.k});
  g.declare("x4", id::i8, {t.batch, 1, 1, t.k});
  g.op(tosa::op::reshape, {"x", "s4"}, {"x4"});
  const auto layer = [&](const std::string& in, const std::string& l, int k, int n, double lo, double hi) {
    g.constant("w" + l, run::from_ints(id::i8, {n, 1, 1, k}, random_ints(rng, std::size_t(n) * std::size_t(k), -128, 127)));
    g.constant("b" + l, run::from_ints(id::i32, {n}, random_ints(rng, static_cast<std::size_t>(n), -5000, 5000)));
    g.ints("izp" + l, id::i8, {1}, {-3});
    g.ints("wzp" + l, id::i8, {1}, {0});
    g.declare("y" + l, id::i32, {t.batch, 1, 1, n});
    g.op(tosa::op::conv2d, {in, "w" + l, "b" + l, "izp" + l, "wzp" + l}, {"y" + l},
         graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i32, false});
    g.ints("m" + l, id::i32, {1}, {1518500250});
    g.ints("sh" + l, id::i8, {1}, {38});
    g.ints("yzp" + l, id::i32, {1}, {0});
    g.ints("zzp" + l, id::i8, {1}, {-3});
    g.declare("z" + l, id::i8, {t.batch, 1, 1, n});
    g.op(tosa::op::rescale, {"y" + l, "m" + l, "sh" + l, "yzp" + l, "zzp" + l}, {"z" + l},
         graph::rescale_attr{true, tosa::rounding_mode::double_round, false, false, false});
    g.declare("a" + l, id::i8, {t.batch, 1, 1, n});
    g.op(tosa::op::clamp, {"z" + l}, {"a" + l}, graph::clamp_attr{lo, hi, graph::nan_mode::propagate});
  };
  layer("x4", "1", t.k, t.n1, t.lo1, t.hi1);
  layer("a1", "2", t.n1, t.n2, t.lo2, t.hi2);
  std::string last = "a2";
  if (t.third_clamp) {
    g.declare("a3", id::i8, {t.batch, 1, 1, t.n2});
    g.op(tosa::op::clamp, {"a2"}, {"a3"}, graph::clamp_attr{t.lo3, t.hi3, graph::nan_mode::propagate});
    last = "a3";
  }
  g.shape_const("s2", {t.batch, t.n2});
  g.declare("out", id::i8, {t.batch, t.n2});
  g.op(tosa::op::reshape, {last, "s2"}, {"out"});
  g.output("out");
  return g;
}

/// Invokes a session of `g` on random inputs (and one at the extremes) and requires run::run's outputs.
void invoke_equals_run(const graph::graph& g, std::mt19937_64& rng) {
  run::session s(g);
  const auto* x = g.find("x");
  REQUIRE(x != nullptr);
  const auto n = static_cast<std::size_t>(graph::element_count(x->shape));
  for (int iter = 0; iter < 5; ++iter) {
    CAPTURE(iter);
    const auto in = run::from_ints(id::i8, x->shape, iter == 4 ? std::vector<std::int64_t>(n, 127) : random_ints(rng, n, -128, 127));
    CHECK(invoke_matches_run<std::int8_t>(s, g, in));  // (these graphs have no failing REQUIRE)
  }
}

}  // namespace

TEST_CASE("session: a fused linear layer also runs the RESHAPEs and int8 CLAMPs around it == run::run") {
  std::mt19937_64 rng(36);
  const auto x = [&rng](const graph::graph& g) {
    const auto* t = g.find("x");
    return std::vector<run::value>{run::from_ints(id::i8, t->shape, random_ints(rng, static_cast<std::size_t>(graph::element_count(t->shape)), -128, 127))};
  };
  {  // two layers with ReLU-like CLAMPs: each one call; the RESHAPEs and CLAMPs are run by the layers
    const builder g = two_layer_graph(rng, {});
    const auto how = settle_of(g.g, x(g.g));
    CHECK(how.fused == 2);
    CHECK(how.steps == 2);
    invoke_equals_run(g.g, rng);
  }
  {  // CLAMPs narrower than the RESCALE's range, a second CLAMP narrowing the first: one range
    two_layers t;
    t.lo1 = -20; t.hi1 = 30; t.lo2 = -50; t.hi2 = 10; t.third_clamp = true; t.lo3 = -5; t.hi3 = 100;
    const builder g = two_layer_graph(rng, t);
    const auto how = settle_of(g.g, x(g.g));
    CHECK(how.fused == 2);
    CHECK(how.steps == 2);
    invoke_equals_run(g.g, rng);
  }
  {  // a CLAMP whose range is disjoint from the one before: its result is constant; it runs on its own
    two_layers t;
    t.lo2 = -100; t.hi2 = -50; t.third_clamp = true; t.lo3 = 0; t.hi3 = 10;
    const builder g = two_layer_graph(rng, t);
    const auto how = settle_of(g.g, x(g.g));
    CHECK(how.fused == 2);
    CHECK(how.steps == 4);  // layer 1, layer 2, the third CLAMP, the RESHAPE after it
    invoke_equals_run(g.g, rng);
  }
  {  // tensors also graph outputs, or read twice: the operators making them run on their own
    builder g = two_layer_graph(rng, {});
    g.output("x4");  // the first RESHAPE's result: layer 1 reads x4 (the RESHAPE runs)
    g.output("z2");  // layer 2 writes z2; its CLAMP and the last RESHAPE run
    const auto how = settle_of(g.g, x(g.g));
    CHECK(how.fused == 2);
    CHECK(how.steps == 5);
    invoke_equals_run(g.g, rng);
  }
  {  // the first RESHAPE's result also read by a CLAMP (an output): the RESHAPE runs, layer 1 reads its result
    builder g = two_layer_graph(rng, {});
    g.declare("xc", id::i8, {2, 1, 1, 37});
    g.op(tosa::op::clamp, {"x4"}, {"xc"}, graph::clamp_attr{-1, 1, graph::nan_mode::propagate});
    g.output("xc");
    const auto how = settle_of(g.g, x(g.g));
    CHECK(how.fused == 2);
    CHECK(how.steps == 4);  // the RESHAPE, layer 1, layer 2, the extra CLAMP
    invoke_equals_run(g.g, rng);
  }
  {  // the first CLAMP's result also read by a CLAMP (an output): layer 1 writes it, layer 2 reads it
    builder g = two_layer_graph(rng, {});
    g.declare("a1c", id::i8, {2, 1, 1, 24});
    g.op(tosa::op::clamp, {"a1"}, {"a1c"}, graph::clamp_attr{-1, 1, graph::nan_mode::propagate});
    g.output("a1c");
    const auto how = settle_of(g.g, x(g.g));
    CHECK(how.fused == 2);
    CHECK(how.steps == 3);  // layer 1 (RESHAPE … its CLAMP), layer 2 (… the last RESHAPE), the extra CLAMP
    invoke_equals_run(g.g, rng);
  }
}

TEST_CASE("session: an a16w8 CONV2D and its RESCALE (INT48 → INT16) run as one linear layer where no REQUIRE can fail == run::run") {
  std::mt19937_64 rng(37);
  std::size_t fused = 0, kept = 0;
  for (int layer = 0; layer < 24; ++layer) {
    CAPTURE(layer);
    const int k = static_cast<int>(random_ints(rng, 1, 1, 90)[0]), n = static_cast<int>(random_ints(rng, 1, 1, 40)[0]);
    const int batch = static_cast<int>(random_ints(rng, 1, 1, 3)[0]);
    const bool per_channel = layer % 2 == 1;
    // layers 0-15: shifts 20-45 (fused); 16-23: shifts 2-12 with large multipliers, where apply_scale_16's
    // int32 result can overflow for some inputs (not fused; the REQUIRE is reported as run::run reports it)
    const bool risky = layer >= 16;
    builder g;
    g.input("x", id::i16, {batch, 1, 1, k});
    g.constant("w", run::from_ints(id::i8, {n, 1, 1, k}, random_ints(rng, std::size_t(n) * std::size_t(k), -128, 127)));
    const std::int64_t bmax = risky ? 1000 : std::int64_t{1} << 24;  // (the first run, on zeros, must pass)
    g.constant("b", run::from_ints(id::i48, {n}, random_ints(rng, static_cast<std::size_t>(n), -bmax, bmax)));
    g.ints("izp", id::i16, {1}, {0});
    g.ints("wzp", id::i8, {1}, {0});
    g.declare("y", id::i48, {batch, 1, 1, n});
    g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"}, graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, id::i48, false});
    const std::size_t nm = per_channel ? static_cast<std::size_t>(n) : 1;
    g.ints("m", id::i16, {static_cast<std::int32_t>(nm)}, random_ints(rng, nm, risky ? 16384 : 1, 32767));
    g.ints("sh", id::i8, {static_cast<std::int32_t>(nm)}, random_ints(rng, nm, risky ? 2 : 20, risky ? 12 : 45));
    g.ints("yzp", id::i48, {1}, {0});
    g.ints("zzp", id::i16, {1}, {0});
    g.declare("z", id::i16, {batch, 1, 1, n});
    g.op(tosa::op::rescale, {"y", "m", "sh", "yzp", "zzp"}, {"z"},
         graph::rescale_attr{false, tosa::rounding_mode::single_round, per_channel, false, false});
    const auto lo = random_ints(rng, 1, -32768, 0)[0], hi = random_ints(rng, 1, 0, 32767)[0];
    g.declare("r", id::i16, {batch, 1, 1, n});
    g.op(tosa::op::clamp, {"z"}, {"r"}, graph::clamp_attr{static_cast<double>(lo), static_cast<double>(hi), graph::nan_mode::propagate});
    g.output("r");
    const std::size_t nx = std::size_t(batch) * std::size_t(k);
    const std::vector<run::value> zero{run::from_ints(id::i16, {batch, 1, 1, k}, std::vector<std::int64_t>(nx, 0))};
    const auto how = settle_of(g.g, zero);
    CHECK(how.direct);
    if (!risky) CHECK(how.fused == 1);
    fused += how.fused;
    kept += risky && how.fused == 0 ? 1 : 0;
    run::session s(g.g);
    for (int iter = 0; iter < 5; ++iter) {
      CAPTURE(iter);
      std::vector<std::int64_t> xs = random_ints(rng, nx, -32768, 32767);
      if (iter >= 3) {  // the extremes: every x at ±2^15 with the sign of a weight row (the largest |acc|)
        const auto* w = g.g.find("w");
        const auto wv = run::from_constant(*w);
        for (std::size_t e = 0; e < nx; ++e) {
          const auto c = e % static_cast<std::size_t>(k);
          const bool pos = wv.ints[c] >= 0;
          xs[e] = (pos == (iter == 3)) ? 32767 : -32768;
        }
      }
      invoke_matches_run<std::int16_t>(s, g.g, run::from_ints(id::i16, {batch, 1, 1, k}, xs));
    }
  }
  CHECK(fused >= 16);
  CHECK(kept >= 4);  // the risky layers mostly run as two operators
}
