// run::session::run(inputs, out) and session::invoke() on a prepared linear layer (CONST weights,
// CONV2D 1×1, RESCALE) allocate nothing once their buffers exist: this test binary counts every call of the replaceable
// global `operator new` (its own executable, so the counting touches no other test).
#include "run_test_util.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> allocations{0};
}  // namespace

// noinline: GCC's -Wmismatched-new-delete would otherwise see free() of operator new's pointer
[[gnu::noinline]] void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace run_test;

TEST_CASE("session: a run into a kept outcome allocates nothing once warm (int8 and a16w8 linear layers)") {
  std::mt19937_64 rng(21);
  for (const bool a16 : {false, true}) {
    CAPTURE(a16);
    const id in_t = a16 ? id::i16 : id::i8, acc_t = a16 ? id::i48 : id::i32;
    builder g;
    g.input("x", in_t, {4, 1, 1, 70});
    g.constant("w", run::from_ints(id::i8, {40, 1, 1, 70}, random_ints(rng, std::size_t{40} * 70, -128, 127)));
    g.constant("b", run::from_ints(acc_t, {40}, random_ints(rng, 40, -5000, 5000)));
    g.ints("izp", in_t, {1}, {a16 ? 0 : -3});
    g.ints("wzp", id::i8, {1}, {0});
    g.declare("y", acc_t, {4, 1, 1, 40});
    g.op(tosa::op::conv2d, {"x", "w", "b", "izp", "wzp"}, {"y"},
         graph::conv2d_attr{{0, 0, 0, 0}, {1, 1}, {1, 1}, acc_t, false});
    // INT48 input: 16-bit multiplier (scale32 false), acc·2^14 >> 30 = acc / 2^16
    if (a16) g.ints("m", id::i16, {1}, {16384});
    else g.ints("m", id::i32, {1}, {1518500250});
    g.ints("s", id::i8, {1}, {a16 ? 30 : 40});
    g.ints("yzp", acc_t, {1}, {0});
    g.ints("zzp", in_t, {1}, {0});
    g.declare("z", in_t, {4, 1, 1, 40});
    g.op(tosa::op::rescale, {"y", "m", "s", "yzp", "zzp"}, {"z"},
         graph::rescale_attr{!a16, tosa::rounding_mode::single_round, false, false, false});
    g.output("z");
    run::session s(g.g);
    run::outcome out;
    const std::int64_t lo = a16 ? -32768 : -128, hi = a16 ? 32767 : 127;
    std::vector<std::vector<run::value>> ins;
    ins.reserve(4);
    for (int i = 0; i < 4; ++i) ins.push_back({run::from_ints(in_t, {4, 1, 1, 70}, random_ints(rng, 280, lo, hi))});
    for (int warm = 0; warm < 2; ++warm) REQUIRE(s.run(ins[static_cast<std::size_t>(warm)], out));
    for (std::size_t i = 2; i < ins.size(); ++i) {
      const long before = allocations.load();
      const auto r = s.run(ins[i], out);
      const long during = allocations.load() - before;
      REQUIRE(r);
      CHECK(during == 0);
      const auto want = run::run(g.g, ins[i]);  // and the results are run::run's
      REQUIRE(want);
      CHECK(out.outputs[0].ints == want->outputs[0].ints);
    }
    // the session's own inputs written in place (`input`), `invoke`, outputs read where they are: once
    // warm, no allocation either
    for (std::size_t i = 0; i < ins.size(); ++i) {
      CAPTURE(i);
      const auto copy = [&](auto span, const auto& src) {
        REQUIRE(span);
        std::copy(src.begin(), src.end(), span->begin());
      };
      if (a16) copy(s.input<std::int16_t>(0), ins[i][0].ints.get<std::int16_t>());
      else copy(s.input<std::int8_t>(0), ins[i][0].ints.get<std::int8_t>());
      const long before = allocations.load();
      const auto r = s.invoke();
      const long during = allocations.load() - before;
      REQUIRE(r);
      if (i >= 2) CHECK(during == 0);
      const auto want = run::run(g.g, ins[i]);
      REQUIRE(want);
      REQUIRE(s.output(0) != nullptr);
      CHECK(s.output(0)->ints == want->outputs[0].ints);
    }
  }
}

TEST_CASE("session: a warm invoke of a lowered linear layer (RESHAPE, CONV2D, RESCALE, CLAMP, RESHAPE) allocates nothing") {
  std::mt19937_64 rng(23);
  for (const bool a16 : {false, true}) {
    CAPTURE(a16);
    const builder g = lowered_linear_graph(rng, a16);
    run::session s(g.g);
    const std::int64_t lo = a16 ? -32768 : -128, hi = a16 ? 32767 : 127;
    for (int i = 0; i < 4; ++i) {
      CAPTURE(i);
      const run::value x = run::from_ints(a16 ? id::i16 : id::i8, {1, 40}, random_ints(rng, 40, lo, hi));
      const auto copy = [&](auto span, const auto& src) {
        REQUIRE(span);
        std::copy(src.begin(), src.end(), span->begin());
      };
      if (a16) copy(s.input<std::int16_t>(0), x.ints.get<std::int16_t>());
      else copy(s.input<std::int8_t>(0), x.ints.get<std::int8_t>());
      const long before = allocations.load();
      const auto r = s.invoke();
      const long during = allocations.load() - before;
      REQUIRE(r);
      if (i >= 2) CHECK(during == 0);
      const auto want = run::run(g.g, std::vector<run::value>{x});
      REQUIRE(want);
      REQUIRE(s.output(0) != nullptr);
      CHECK(s.output(0)->ints == want->outputs[0].ints);
    }
  }
}
