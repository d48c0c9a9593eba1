// graph::graph's name index against a plain linear scan (the oracle: the definition of `find` and
// of `unique_name` — the first free `base`, `base_1`, `base_2`, ...) under every kind of edit the
// passes make: appends (add / push_back), erasures (std::erase_if, erase), rename_tensor, copies.
#include <armlower/graph/graph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace armlower;

namespace {

const graph::tensor* scan(const graph::graph& g, const std::string& n) {
  for (const auto& t : g.tensors)
    if (t.name == n) return &t;
  return nullptr;
}

std::string scan_unique(const graph::graph& g, const std::string& base) {
  std::string n = base;
  for (int i = 1; scan(g, n) != nullptr; ++i) n = base + "_" + std::to_string(i);
  return n;
}

graph::tensor named(std::string n) {
  graph::tensor t;
  t.name = std::move(n);
  return t;
}

}  // namespace

TEST_CASE("find and unique_name agree with a linear scan under random appends, erasures and renames") {
  std::mt19937 rng(12);
  graph::graph g;
  const std::vector<std::string> bases{"x", "w", "shape", "x_1", "acc"};
  std::vector<std::string> probes;
  for (const auto& b : bases)
    for (int k = 0; k < 12; ++k) probes.push_back(k ? b + "_" + std::to_string(k) : b);
  for (int step = 0; step < 2000; ++step) {
    const auto what = rng() % 10;
    const auto& base = bases[rng() % bases.size()];
    if (what < 5) {
      const auto expect = scan_unique(g, base);
      const auto got = g.unique_name(base);
      REQUIRE(got == expect);
      if (what < 3) g.add(named(got));
      else g.tensors.push_back(named(got));
    } else if (what < 7 && !g.tensors.empty()) {
      const auto victim = g.tensors[rng() % g.tensors.size()].name;
      if (what == 5) std::erase_if(g.tensors, [&](const graph::tensor& t) { return t.name == victim; });
      else g.tensors.erase(g.tensors.begin() + static_cast<std::ptrdiff_t>(rng() % g.tensors.size()));
    } else if (what == 7 && !g.tensors.empty()) {
      const auto from = g.tensors[rng() % g.tensors.size()].name;
      const auto to = scan_unique(g, base + "_r");
      g.rename_tensor(from, to);
      CHECK(scan(g, from) == nullptr);
    } else if (what == 8) {
      const graph::graph copy = g;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the subject (it gets its own index)
      for (const auto& p : probes) REQUIRE((copy.find(p) == nullptr) == (scan(g, p) == nullptr));
    }
    for (int k = 0; k < 8; ++k) {
      const auto& p = probes[rng() % probes.size()];
      REQUIRE(g.find(p) == scan(g, p));
    }
  }
}

TEST_CASE("rename_tensor rewires operators and graph I/O, and refuses a taken or unknown name") {
  graph::graph g;
  g.add(named("a"));
  g.add(named("b"));
  g.inputs = {"a"};
  g.outputs = {"b"};
  g.operators.push_back(graph::operation{graph::framework_op::relu, {"a"}, {"b"}, std::monostate{}});
  g.rename_tensor("a", "in");
  CHECK(g.find("a") == nullptr);
  REQUIRE(g.find("in") != nullptr);
  CHECK(g.inputs == std::vector<std::string>{"in"});
  CHECK(g.operators[0].inputs == std::vector<std::string>{"in"});
  CHECK_THROWS_WITH_AS(g.rename_tensor("in", "b"), "rename_tensor: 'b' is already a tensor", std::invalid_argument);
  CHECK_THROWS_WITH_AS(g.rename_tensor("zz", "q"), "rename_tensor: no tensor 'zz'", std::invalid_argument);
  // A tensor renamed in place is found again after reindex().
  g.tensors[1].name = "out";
  g.reindex();
  CHECK(g.find("out") == &g.tensors[1]);
  CHECK(g.find("b") == nullptr);
}
