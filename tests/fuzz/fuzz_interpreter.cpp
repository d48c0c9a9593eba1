// libFuzzer target over armlower's TOSA interpreter: the fuzz input is a .tosa file; a graph the
// reader (serialize::read, which verifies the file) accepts is run by run::run on generated
// input values. Built with clang and -fsanitize=fuzzer,address,undefined. Properties checked:
//  - run() never crashes, reads out of bounds, hits undefined behaviour or leaks (sanitizers),
//    and never allocates more than the fuzzer's -rss_limit_mb / -malloc_limit_mb for a graph
//    whose declared tensors are all small (see the limits below);
//  - it either fails with a non-empty one-line message that is not a leaked C++ library
//    exception text ("vector::_M_range_check", ...), or returns one value per graph output,
//    each consistent (run::value::check) and of the output's declared dtype and shape.
// Input values: every element is drawn from a PRNG seeded by a hash of the whole file, mixing
// the dtype's edge values (min, max, 0, ±1, ±0, NaN, ±Inf) with uniform values, so every
// mutation of the file also varies the inputs.
#include <armlower/run/interpreter.hpp>
#include <armlower/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace armlower;

// Graphs are skipped (not run) when a declared tensor has more elements than this (the
// interpreter's own per-tensor limit is not configurable yet) ...
constexpr std::int64_t max_tensor_elements = std::int64_t{1} << 20;
// ... or when a reducing op (CONV2D, MATMUL, MATMUL_T_BLOCK_SCALED) has more than this many
// output elements × elements of its largest operand (a bound on its multiply-accumulates), so
// one run stays well under the fuzzer's -timeout.
constexpr std::int64_t max_reduction_work = std::int64_t{1} << 27;

// Element count of `shape`, or -1 when a dim is < 0 or the count exceeds max_tensor_elements.
std::int64_t bounded_count(const std::vector<std::int32_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) return -1;
    n *= d;
    if (n > max_tensor_elements) return -1;
  }
  return n;
}

bool small_enough(const graph::graph& g) {
  for (const auto& t : g.tensors)
    if (bounded_count(t.shape) < 0) return false;
  for (const auto& op : g.operators) {
    if (!op.is_tosa()) continue;
    const auto o = op.tosa_op();
    if (o != tosa::op::conv2d && o != tosa::op::matmul && o != tosa::op::matmul_t_block_scaled) continue;
    std::int64_t in = 1, out = 1;
    for (const auto& n : op.inputs)
      if (const auto* t = g.find(n)) in = std::max(in, bounded_count(t->shape));
    for (const auto& n : op.outputs)
      if (const auto* t = g.find(n)) out = std::max(out, bounded_count(t->shape));
    if (in * out > max_reduction_work) return false;
  }
  return true;
}

struct prng {  // splitmix64
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

std::uint64_t fnv1a(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

std::int64_t gen_int(prng& r, std::int64_t lo, std::int64_t hi) {
  switch (r.next() % 8) {
    case 0: return lo;
    case 1: return hi;
    case 2: return lo <= 0 && 0 <= hi ? 0 : lo;
    case 3: return lo <= 1 && 1 <= hi ? 1 : hi;
    case 4: return lo <= -1 ? -1 : hi;
    default: {
      const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
      const auto u = span == std::numeric_limits<std::uint64_t>::max() ? r.next() : r.next() % (span + 1);
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + u);
    }
  }
}

float gen_real(prng& r, dtype::id t) {
  double x = 0;
  switch (r.next() % 10) {
    case 0: x = 0.0; break;
    case 1: x = -0.0; break;
    case 2: x = std::numeric_limits<double>::quiet_NaN(); break;
    case 3: x = std::numeric_limits<double>::infinity(); break;
    case 4: x = -std::numeric_limits<double>::infinity(); break;
    case 5: x = (r.next() & 1) ? 1.0 : -1.0; break;
    case 6: {  // any fp32 bit pattern: huge, tiny, subnormal
      const auto bits = static_cast<std::uint32_t>(r.next());
      float f;
      std::memcpy(&f, &bits, 4);
      x = f;
      break;
    }
    default: x = (static_cast<double>(r.next() >> 11) / 9007199254740992.0) * 16.0 - 8.0; break;
  }
  return run::detail::round_to(t, x);
}

run::value make_input(const graph::tensor& t, prng& r) {
  run::value v{t.type, t.shape, {}, {}, {}};
  const auto n = bounded_count(t.shape);
  if (n < 0) return v;  // (not reached: small_enough) run() reports the bad value
  const auto& ti = dtype::traits(t.type);
  switch (run::storage_of(t.type)) {
    case run::storage::integer:
      v.ints.reset(run::int_width_of(t.type), static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) v.ints.set(static_cast<std::size_t>(i), gen_int(r, ti.int_min, ti.int_max));
      break;
    case run::storage::real:
      for (std::int64_t i = 0; i < n; ++i) v.reals.push_back(gen_real(r, t.type));
      break;
    case run::storage::code:
      for (std::int64_t i = 0; i < n; ++i) v.codes.push_back(static_cast<std::uint8_t>(r.next() % run::code_count(t.type)));
      break;
  }
  return v;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_interpreter: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = serialize::read(std::span<const std::uint8_t>(data, size));
  if (!file.has_value()) return 0;
  const auto& g = file->graph;
  if (!small_enough(g)) return 0;

  prng r{fnv1a(data, size)};
  std::vector<run::value> inputs;
  for (const auto& name : g.inputs) {
    const auto* t = g.find(name);
    inputs.push_back(t ? make_input(*t, r) : run::value{});
  }
  const auto res = run::run(g, inputs);
  if (!res) {
    const auto m = res.error().line();
    if (res.error().message().empty() || m.find('\n') != std::string::npos)
      fail("error message is empty or not one line: '" + m + "'");
    for (const char* leak : {"_M_", "vector::", "basic_string", "std::", "bad_variant_access", "map::at"})
      if (m.find(leak) != std::string::npos) fail("error message is a C++ library exception text: '" + m + "'");
    return 0;
  }
  if (res->outputs.size() != g.outputs.size())
    fail(std::to_string(res->outputs.size()) + " outputs for " + std::to_string(g.outputs.size()) + " graph outputs");
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const auto* t = g.find(g.outputs[i]);
    const auto& v = res->outputs[i];
    if (t == nullptr) fail("output '" + g.outputs[i] + "' is not a declared tensor, yet the run succeeded");
    if (v.type != t->type || v.shape != t->shape)
      fail("output '" + t->name + "' is " + std::string(dtype::name(v.type)) + " " + run::to_string(v.shape) +
           ", declared " + std::string(dtype::name(t->type)) + " " + run::to_string(t->shape));
    if (auto s = v.check(); !s.empty()) fail("output '" + t->name + "' is inconsistent: " + s);
  }
  return 0;
}
