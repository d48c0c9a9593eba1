// The pre-packed a16w8 linear (`kernels/linear_s16_packed.hpp`; the AVX-512 VNNI microkernel where the
// CPU has it — natively, or through SIMDe in test_kernels_linear_avx512_simde —, the AVX2 column-pair
// kernel for a buffer packed in that layout on an AVX2 CPU, else the row-major `linear_s16`) writes
// exactly the bytes of the generic path, in both layouts: random shapes (K tails not multiple of
// 4 / 16, N not multiple of 16 / 64, batch 1..9 so both tile heights and the remainder run), bias / no
// bias, biases beyond the accumulator bound (the checked requantization), per-tensor and per-channel,
// extreme operands, multipliers and shifts at both ends of their ranges; K past one plane chunk
// (4096 columns) and same-sign worst-case sums; weights past 1 MiB (the blocked loop order); the explicit, pack-on-first-use and plan forms; argument
// errors.
#include <armlower/kernels/linear_s16_packed.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace k = armlower::kernels;
using armlower::status;

namespace {

struct s16_layer {
  std::vector<std::int16_t> x;
  std::vector<std::int8_t> w;
  std::vector<std::int64_t> bias;
  std::vector<std::int32_t> mult, shift;
  k::linear_s16_args a;
};

/// A random layer: `extreme` makes x, w all ±max; `big_bias` draws |bias| up to 2^62.
s16_layer make_layer(std::mt19937_64& g, int batches, int cols, int rows, bool extreme, bool big_bias) {
  auto uni = [&g](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(g); };
  s16_layer l;
  l.x.resize(static_cast<std::size_t>(batches) * static_cast<std::size_t>(cols));
  l.w.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (auto& v : l.x) v = static_cast<std::int16_t>(extreme ? (uni(0, 1) != 0 ? 32767 : -32768) : uni(-32768, 32767));
  for (auto& v : l.w) v = static_cast<std::int8_t>(extreme ? (uni(0, 1) != 0 ? 127 : -128) : uni(-128, 127));
  l.bias.resize(static_cast<std::size_t>(rows));
  for (auto& v : l.bias) {
    v = big_bias ? uni(-(std::int64_t{1} << 62), std::int64_t{1} << 62) : uni(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
    if (big_bias && uni(0, 3) == 0) v = uni(0, 1) != 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  }
  const bool pc = uni(0, 1) != 0;
  l.mult.resize(pc ? static_cast<std::size_t>(rows) : 1);
  l.shift.resize(l.mult.size());
  for (auto& m : l.mult) m = static_cast<std::int32_t>(uni(0, 5) == 0 ? uni(0x7FFF0000, 0x7FFFFFFF) : uni(0, 0x7FFFFFFF));
  for (auto& s : l.shift) s = static_cast<std::int32_t>(uni(0, 4) == 0 ? (uni(0, 1) != 0 ? -47 : 14) : uni(-40, 10));
  l.a.input = l.x.data();
  l.a.weights = l.w.data();
  l.a.bias = uni(0, 4) == 0 ? nullptr : l.bias.data();
  l.a.batches = batches;
  l.a.cols = cols;
  l.a.rows = rows;
  l.a.multiplier = l.mult.data();
  l.a.shift = l.shift.data();
  l.a.per_channel = pc;
  l.a.activation_min = static_cast<std::int32_t>(uni(-32768, -100));
  l.a.activation_max = static_cast<std::int32_t>(uni(100, 32767));
  if (uni(0, 3) == 0) {
    l.a.activation_min = -32768;
    l.a.activation_max = 32767;
  }
  return l;
}

/// Runs the generic path and every packed form on `a`; requires identical bytes.
void check_s16_packed(k::linear_s16_args a) {
  CAPTURE(a.batches); CAPTURE(a.cols); CAPTURE(a.rows); CAPTURE(a.per_channel); CAPTURE(a.bias != nullptr);
  const std::size_t n = static_cast<std::size_t>(a.batches) * static_cast<std::size_t>(a.rows);
  std::vector<std::int16_t> ref(n), out(n, std::int16_t{0x5A5A});
  a.output = ref.data();
  REQUIRE(k::linear_s16(a, k::linear_path::generic) == status::ok);
  const std::size_t size = k::linear_s16_packed_size(a.rows, a.cols);
  std::vector<std::uint8_t> buf(size + 72);
  // both layouts (the VNNI panels, the AVX2 column pairs: each runs its kernel where the CPU has it),
  // the buffer aligned, 8-aligned and misaligned
  for (const k::linear_path path : {k::linear_path::automatic, k::linear_path::x86_avx512_vnni, k::linear_path::x86_avx2}) {
    for (const std::size_t off : {std::size_t{0}, std::size_t{8}, std::size_t{1}}) {
      std::uint8_t* base = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) % 64 + off;
      CAPTURE(off);
      CAPTURE(static_cast<int>(path));
      REQUIRE(k::pack_linear_s16(a, base, size, path) == status::ok);
      a.output = out.data();
      REQUIRE(k::linear_s16_packed(a, base, size) == status::ok);
      REQUIRE(out == ref);
      std::fill(out.begin(), out.end(), std::int16_t{0x5A5A});
    }
  }
  std::vector<std::uint8_t> cache(k::linear_s16_cache_size(a.rows, a.cols) + 3);
  for (int call = 0; call < 2; ++call) {  // packs, then reuses
    REQUIRE(k::linear_s16(a, cache.data() + 3, cache.size() - 3) == status::ok);
    REQUIRE(out == ref);
    std::fill(out.begin(), out.end(), std::int16_t{0x5A5A});
  }
  k::linear_s16_plan plan;
  REQUIRE(k::plan_linear_s16(a, cache.data() + 3, cache.size() - 3, plan) == status::ok);
  CHECK(plan.packed() == k::linear_s16_cache_pays(a.rows));
  REQUIRE(k::linear_s16(plan, a.input, out.data()) == status::ok);
  REQUIRE(out == ref);
}

}  // namespace

TEST_CASE("packed a16w8 == generic (random shapes, per-tensor/per-channel, bias, extreme operands)") {
  std::mt19937_64 g(20261128);
  auto uni = [&g](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  for (int it = 0; it < 300; ++it) {
    const int batches = uni(1, 9), cols = it % 3 == 0 ? uni(1, 40) : uni(1, 700), rows = it % 4 == 0 ? uni(1, 20) : uni(1, 150);
    s16_layer l = make_layer(g, batches, cols, rows, uni(0, 5) == 0, uni(0, 4) == 0);
    check_s16_packed(l.a);
  }
}

TEST_CASE("packed a16w8: K past one plane chunk (4096 columns), accumulators past 2^31") {
  std::mt19937_64 g(7);
  for (const int cols : {4095, 4096, 4097, 4100, 8195, 12289}) {
    for (const int batches : {1, 2, 3}) {
      s16_layer l = make_layer(g, batches, cols, batches == 2 ? 70 : 17, batches != 3, batches == 3);
      check_s16_packed(l.a);
    }
  }
  // every product of one sign (x·w = 2^22 or −(2^22 − 2^15)): the sums grow linearly, so any int32 pass
  // longer than the kernels' proven bound overflows (a random-sign layer's sums stay far smaller)
  for (const int cols : {500, 520, 1100, 5000}) {
    for (const int sign : {-1, 1}) {
      s16_layer l = make_layer(g, 3, cols, 24, false, false);
      for (auto& v : l.x) v = sign < 0 ? std::int16_t{-32768} : std::int16_t{32767};
      for (auto& v : l.w) v = std::int8_t{-128};
      l.a.bias = nullptr;
      // y = acc·2^14 / 2^t with 2^t ≈ |acc| ≈ cols·2^22: |y| ≈ 2^14, unsaturated, so a sum off by 2^32 shows
      int t = 22;
      while ((std::int64_t{1} << (t + 1)) <= (static_cast<std::int64_t>(cols) << 22)) ++t;
      l.mult.assign(1, 1 << 30);  // reduced: 2^14
      l.shift.assign(1, 15 - t);
      l.a.per_channel = false;
      l.a.multiplier = l.mult.data();
      l.a.shift = l.shift.data();
      l.a.activation_min = -32768;
      l.a.activation_max = 32767;
      check_s16_packed(l.a);
    }
  }
}

TEST_CASE("packed a16w8: weights past 1 MiB (panel groups outer, blocks of batch rows), odd blocks, long K") {
  // K rounded up to 4 × channels rounded up to 16 > 2^20 bytes: the VNNI kernel's blocked order. Blocks of 16
  // rows at K 1100 (17 rows: 16 + 1, a single row last), 14 at K 2050 (17: 14 + 3), 8 at K 4096 (11: 8 + 3),
  // every row at K 5000 (> one plane chunk)
  std::mt19937_64 g(20261130);
  struct shape { int batches, cols, rows; };
  for (const shape sh : {shape{17, 1100, 1000}, shape{17, 2050, 520}, shape{11, 4096, 260}, shape{4, 5000, 230}, shape{2, 4096, 300}}) {
    s16_layer l = make_layer(g, sh.batches, sh.cols, sh.rows, false, false);
    check_s16_packed(l.a);
  }
}

TEST_CASE("packed a16w8: argument errors, a buffer packed for s8, pack on first use") {
  std::mt19937_64 g(3);
  s16_layer l = make_layer(g, 2, 37, 33, false, false);
  k::linear_s16_args a = l.a;
  std::vector<std::int16_t> y(66);
  a.output = y.data();
  const std::size_t size = k::linear_s16_packed_size(a.rows, a.cols);
  REQUIRE(size == 64 + 12 * 48 + 48 * 40);  // either layout: 48 × 40 panel bytes, 40 × 48 column-pair bytes
  CHECK(k::linear_s16_packed_size(0, 5) == 0);
  CHECK(k::linear_s16_cache_size(5, 0) == 0);
  std::vector<std::uint8_t> buf(size);
  k::linear_s16_args b = a;
  b.weights = nullptr;
  CHECK(k::pack_linear_s16(b, buf.data(), size) == status::null_pointer);
  CHECK(k::pack_linear_s16(a, nullptr, size) == status::null_pointer);
  b = a;
  b.cols = 0;
  CHECK(k::pack_linear_s16(b, buf.data(), size) == status::empty_dimension);
  CHECK(k::pack_linear_s16(a, buf.data(), size - 1) == status::scratch_too_small);
  // not packed yet / packed for another shape / an s8 packing of the same shape: refused by name
  CHECK(k::linear_s16_packed(a, buf.data(), size) == status::shape_mismatch);
  REQUIRE(k::pack_linear_s16(a, buf.data(), size) == status::ok);
  b = a;
  b.rows = 32;
  CHECK(k::linear_s16_packed(b, buf.data(), size) == status::shape_mismatch);
  CHECK(k::linear_s16_packed(a, nullptr, size) == status::null_pointer);
  CHECK(k::linear_s16_packed(a, buf.data(), size - 1) == status::scratch_too_small);
  b = a;
  b.input = nullptr;
  CHECK(k::linear_s16_packed(b, buf.data(), size) == status::null_pointer);
  k::linear_s8_args s8;
  s8.weights = a.weights;
  s8.rows = a.rows;
  s8.cols = a.cols;
  std::vector<std::uint8_t> buf8(k::linear_s8_packed_size(a.rows, a.cols));
  REQUIRE(k::pack_linear_s8(s8, buf8.data(), buf8.size(), k::linear_path::x86_avx512_vnni) == status::ok);
  REQUIRE(buf8.size() >= size);
  CHECK(k::linear_s16_packed(a, buf8.data(), buf8.size()) == status::shape_mismatch);

  // pack on first use: a small buffer is never written; new weights (address) repack; reset repacks
  std::vector<std::int16_t> ref(66), out(66);
  a.output = ref.data();
  REQUIRE(k::linear_s16(a, k::linear_path::generic) == status::ok);
  const std::size_t csize = k::linear_s16_cache_size(a.rows, a.cols);
  std::vector<std::uint8_t> small(csize - 1, 0xEE);
  a.output = out.data();
  REQUIRE(k::linear_s16(a, small.data(), small.size()) == status::ok);
  CHECK(out == ref);
  CHECK(std::count(small.begin(), small.end(), std::uint8_t{0xEE}) == static_cast<std::ptrdiff_t>(small.size()));
  std::vector<std::uint8_t> cache(csize);
  REQUIRE(k::linear_s16(a, cache.data(), cache.size()) == status::ok);
  CHECK(out == ref);
  std::vector<std::int8_t> w2(l.w.size());
  for (std::size_t i = 0; i < w2.size(); ++i) w2[i] = static_cast<std::int8_t>(-l.w[i] / 2);
  k::linear_s16_args a2 = a;
  a2.weights = w2.data();
  std::vector<std::int16_t> ref2(66), out2(66);
  a2.output = ref2.data();
  REQUIRE(k::linear_s16(a2, k::linear_path::generic) == status::ok);
  a2.output = out2.data();
  REQUIRE(k::linear_s16(a2, cache.data(), cache.size()) == status::ok);  // another address: repacks
  CHECK(out2 == ref2);
  REQUIRE(ref2 != ref);
  for (std::size_t i = 0; i < w2.size(); ++i) w2[i] = l.w[i];  // rewritten in place: the old packing stays …
  REQUIRE(k::linear_s16(a2, cache.data(), cache.size()) == status::ok);
  CHECK(out2 == (k::linear_s16_cache_pays(a.rows) ? ref2 : ref));
  k::reset_linear_s16_cache(cache.data(), cache.size());  // … until a reset
  REQUIRE(k::linear_s16(a2, cache.data(), cache.size()) == status::ok);
  CHECK(out2 == ref);

  // the plan: validate's errors but for input and output, the plan left unchanged; null pointers per run
  k::linear_s16_plan plan;
  CHECK(k::linear_s16(plan, a.input, out.data()) == status::null_pointer);
  REQUIRE(k::plan_linear_s16(a, cache.data(), cache.size(), plan) == status::ok);
  b = a;
  b.multiplier = nullptr;
  CHECK(k::plan_linear_s16(b, cache.data(), cache.size(), plan) == status::null_pointer);
  b = a;
  b.activation_min = 10;
  b.activation_max = 9;
  CHECK(k::plan_linear_s16(b, cache.data(), cache.size(), plan) == status::activation_range_invalid);
  b = a;
  b.input = nullptr;
  b.output = nullptr;
  REQUIRE(k::plan_linear_s16(b, cache.data(), cache.size(), plan) == status::ok);
  CHECK(plan.args().input == nullptr);
  CHECK(k::linear_s16(plan, nullptr, out.data()) == status::null_pointer);
  CHECK(k::linear_s16(plan, a.input, nullptr) == status::null_pointer);
  std::fill(out.begin(), out.end(), std::int16_t{0});
  REQUIRE(k::linear_s16(plan, a.input, out.data()) == status::ok);
  CHECK(out == ref);
}
