// The pre-packed s8 linear (`kernels/linear_packed.hpp`, AVX-512 VNNI microkernel on hosts that have
// it — natively or through SIMDe in test_kernels_linear_avx512_simde) writes exactly the bytes of the
// generic path: random shapes (K tails not multiple of 4 / 64, N not multiple of 16 / 64, batch 1..19
// so every tile height 1..8 and the remainders run), bias / no bias / kernel_sum, per-tensor and
// per-channel, extreme operands, offsets, multipliers and shifts at both ends of their ranges,
// both roundings; K > 65536 (the int64-flushed passes); argument errors. Each case also runs the
// row-major AVX-512 VNNI path of `linear_s8` (`x86_avx512_vnni`) where available. The AVX2 column-pair
// layout (`linear_path::x86_avx2`) the same way, with every shift ≤ −1 in half its cases (its int32-lane
// requantization) and layers whose sums leave int32 there (`s8_int32_edge_cases.hpp`). Where the CPU has
// AMX-INT8, its microkernel (`arch/x86/linear_amx_packed.hpp`) too, on every shape it can run.
#include <armlower/kernels/linear_packed.hpp>

#include <doctest/doctest.h>

#include "s8_args.hpp"
#include "s8_int32_edge_cases.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace k = armlower::kernels;
using armlower::status;

namespace {

struct prng {
  std::mt19937_64 g;
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }
  template <class T>
  void fill(std::vector<T>& v, int lo, int hi, int extreme_pct) {
    const int mode = uniform(0, 99);
    for (auto& e : v) {
      if (mode < extreme_pct) e = static_cast<T>(uniform(0, 1) ? hi : lo);
      else e = static_cast<T>(uniform(lo, hi));
    }
  }
};

struct s8_case {
  int batches = 1, cols = 1, rows = 1;
  std::vector<std::int8_t> x, w;
  std::vector<std::int32_t> bias, mult, shift, ks;

  /// Arguments over this case's input, weights and shape (the rest default).
  [[nodiscard]] k::linear_s8_args args() const {
    return armlower_test::s8_shape_args(x.data(), w.data(), batches, cols, rows);
  }
};

/// Runs generic and packed for `a` (weights/bias/… from c) and requires identical bytes.
void check_packed(k::linear_s8_args a) {
  std::vector<std::int8_t> ref(static_cast<std::size_t>(a.batches) * static_cast<std::size_t>(a.rows)),
      out(ref.size(), std::int8_t{0x5A});
  a.output = ref.data();
  REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
  std::vector<std::uint8_t> buf(k::linear_s8_packed_size(a.rows, a.cols) + 1);
  std::uint8_t* base = buf.data() + 1;  // deliberately misaligned
  const std::size_t size = buf.size() - 1;
  REQUIRE(k::pack_linear_s8(a, base, size) == status::ok);
  a.output = out.data();
  REQUIRE(k::linear_s8_packed(a, base, size) == status::ok);
  CAPTURE(a.batches); CAPTURE(a.cols); CAPTURE(a.rows); CAPTURE(a.per_channel); CAPTURE(a.input_offset);
  CAPTURE(a.filter_offset); CAPTURE(a.bias != nullptr); CAPTURE(a.kernel_sum != nullptr);
  REQUIRE(out == ref);
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  // the AVX-512 VNNI microkernel itself with the register tiles of each CPU class (`vnni_batch_tile_rows`;
  // the entry uses this CPU's), over an aligned packing
  if (k::detail::x86_has_avx512_vnni_vl()) {
    std::vector<std::uint8_t> aligned(size);
    REQUIRE(k::pack_linear_s8(a, aligned.data(), size) == status::ok);
    const auto geo = k::detail::packed_s8_layout(a.rows, a.cols);
    if (!geo.narrow) {
      for (const auto cpu : {k::detail::x86_cpu_class::baseline, k::detail::x86_cpu_class::amd_family_1ah}) {
        CAPTURE(static_cast<int>(cpu));
        std::fill(out.begin(), out.end(), std::int8_t{0x5A});
        k::detail::linear_s8_packed_vnni(a, aligned.data(), geo, nullptr, cpu);
        REQUIRE(out == ref);
      }
    }
#if defined(ARMLOWER_KERNELS_HAVE_AMX)
    // the AMX-INT8 microkernel on every shape it can run (K ≤ 65536, panel layout), not only those
    // `amx_s8_applies` hands it: tiles of 8 and 16 rows, the VNNI rows after them, K blocks and tails
    if (!geo.narrow && a.cols <= 65536 && k::detail::x86_has_amx_int8()) {
      std::fill(out.begin(), out.end(), std::int8_t{0x5A});
      k::detail::linear_s8_packed_amx(a, aligned.data(), geo);
      REQUIRE(out == ref);
    }
#endif
  }
#endif
  // the AVX2 layout (AVX2 microkernel where the CPU has it: it needs the row constants 4-byte
  // aligned, else linear_s8 runs) at the misaligned base and at an aligned one
  REQUIRE(k::pack_linear_s8(a, base, size, k::linear_path::x86_avx2) == status::ok);
  std::fill(out.begin(), out.end(), std::int8_t{0x5A});
  REQUIRE(k::linear_s8_packed(a, base, size) == status::ok);
  REQUIRE(out == ref);
  {
    std::vector<std::uint8_t> aligned(size);
    REQUIRE(k::pack_linear_s8(a, aligned.data(), size, k::linear_path::x86_avx2) == status::ok);
    std::fill(out.begin(), out.end(), std::int8_t{0x5A});
    REQUIRE(k::linear_s8_packed(a, aligned.data(), size) == status::ok);
    REQUIRE(out == ref);
  }
  // pack on first use (the buffer still holds the AVX2 packing: the first call repacks unless
  // that is this CPU's automatic layout), then reuse
  std::vector<std::uint8_t> cache(k::linear_s8_cache_size(a.rows, a.cols) + 1);
  std::memcpy(cache.data() + 1, base, size);  // an AVX2 packing at the wrong offset: never matches
  for (int call = 0; call < 2; ++call) {
    std::fill(out.begin(), out.end(), std::int8_t{0x5A});
    REQUIRE(k::linear_s8(a, cache.data() + 1, cache.size() - 1) == status::ok);
    CAPTURE(call);
    REQUIRE(out == ref);
  }
  // the same call checked once (`plan_linear_s8`), run twice on its buffer (packed by the plan)
  {
    std::vector<std::uint8_t> pc(k::linear_s8_cache_size(a.rows, a.cols));
    k::linear_s8_plan plan;
    REQUIRE(k::plan_linear_s8(a, pc.data(), pc.size(), plan) == status::ok);
    CHECK(plan.packed() == k::linear_s8_cache_pays(a.rows));
    for (int call = 0; call < 2; ++call) {
      std::fill(out.begin(), out.end(), std::int8_t{0x5A});
      REQUIRE(k::linear_s8(plan, a.input, out.data()) == status::ok);
      CAPTURE(call);
      REQUIRE(out == ref);
    }
  }
  // the row-major AVX-512 VNNI path of linear_s8 (same microkernel as the narrow packed form)
  if (k::path_available(k::linear_path::x86_avx512_vnni)) {
    std::fill(out.begin(), out.end(), std::int8_t{0x5A});
    REQUIRE(k::linear_s8(a, k::linear_path::x86_avx512_vnni) == status::ok);
    REQUIRE(out == ref);
  }
}

const int cols_values[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 63, 64, 65, 67, 100, 255, 256, 257, 1023, 1024, 1027, 4000};

}  // namespace

TEST_CASE("packed s8 == generic (random shapes, offsets, per-tensor/per-channel, bias/kernel_sum)") {
  const std::string native = k::linear_s8_packed_native() ? "yes" : "no (falls back to linear_s8)";
  MESSAGE("packed form runs natively: " << native);
  prng r{std::mt19937_64(2014)};
  for (int iter = 0; iter < 500; ++iter) {
    s8_case c;
    c.batches = iter < 19 ? iter + 1 : r.uniform(1, 19);
    c.cols = iter < 22 ? cols_values[iter] : cols_values[r.uniform(0, 21)];
    const int rsel = r.uniform(0, 3);
    c.rows = rsel == 0 ? r.uniform(1, 17) : rsel == 1 ? r.uniform(17, 80) : rsel == 2 ? 64 * r.uniform(1, 3)
                                                                                      : 16 * r.uniform(1, 9) + r.uniform(0, 1);
    const auto bs = static_cast<std::size_t>(c.batches), cs = static_cast<std::size_t>(c.cols),
               rs = static_cast<std::size_t>(c.rows);
    c.x.resize(bs * cs);
    c.w.resize(rs * cs);
    r.fill(c.x, -128, 127, 15);
    r.fill(c.w, -128, 127, 15);
    c.bias.resize(rs);
    c.mult.resize(rs);
    c.shift.resize(rs);
    c.ks.resize(rs);
    for (auto& b : c.bias) b = r.uniform(0, 9) == 0 ? (r.uniform(0, 1) ? INT32_MAX : INT32_MIN) : r.uniform(-(1 << 22), 1 << 22);
    const bool negative_shifts = r.uniform(0, 2) == 0;  // the fast (int32-lane) requantization
    for (std::size_t i = 0; i < rs; ++i) {
      const int msel = r.uniform(0, 9);
      c.mult[i] = msel == 0 ? 0 : msel == 1 ? INT32_MAX : msel == 2 ? r.uniform(0, INT32_MAX) : r.uniform(1 << 30, INT32_MAX);
      const int sel = r.uniform(0, 6);
      c.shift[i] = sel == 0 ? -31 : sel == 1 ? 30 : sel == 2 ? 0 : sel == 3 ? r.uniform(1, 30) : r.uniform(-24, -1);
      if (negative_shifts) c.shift[i] = sel == 0 ? -31 : sel == 1 ? -1 : r.uniform(-24, -1);
    }
    k::linear_s8_args a = c.args();
    const int zsel = r.uniform(0, 4);
    a.input_offset = zsel == 0 ? 0 : zsel == 1 ? 128 : zsel == 2 ? -255 : zsel == 3 ? 255 : r.uniform(-255, 255);
    const int fsel = r.uniform(0, 4);
    a.filter_offset = fsel == 0 ? 255 : fsel == 1 ? -255 : fsel == 2 ? r.uniform(-255, 255) : 0;
    a.output_offset = r.uniform(0, 5) == 0 ? (r.uniform(0, 1) ? 65536 : -65536) : r.uniform(-128, 127);
    a.multiplier = c.mult.data();
    a.shift = c.shift.data();
    a.per_channel = r.uniform(0, 1) == 1;
    a.activation_min = r.uniform(-128, 0);
    a.activation_max = r.uniform(a.activation_min, 127);
    a.rounding = r.uniform(0, 1) ? armlower::quant::rounding::double_round : armlower::quant::rounding::single_round;
    const int bsel = r.uniform(0, 2);
    a.bias = bsel == 0 ? nullptr : c.bias.data();
    if (bsel == 2) {
      REQUIRE(k::compute_kernel_sum_s8(c.ks.data(), c.cols, c.rows, c.w.data(), a.input_offset, a.filter_offset,
                                       c.bias.data()) == status::ok);
      a.kernel_sum = c.ks.data();
    }
    check_packed(a);
  }
}

TEST_CASE("packed s8 AMX-INT8 shapes: batches of 8 to 40 rows, 128 to 1040 channels, K blocks and tails, extremes") {
#if defined(ARMLOWER_KERNELS_HAVE_AMX)
  MESSAGE("AMX-INT8 available: " << std::string(k::detail::x86_has_amx_int8() ? "yes" : "no (the packed form runs AVX-512 VNNI)"));
#endif
  prng r{std::mt19937_64(4711)};
  for (int iter = 0; iter < 62; ++iter) {
    s8_case c;
    const int bsel[] = {8, 9, 15, 16, 17, 24, 31, 40};
    const int csel[] = {256, 257, 259, 320, 1000, 1027, 2048};
    const int rsel[] = {128, 130, 143, 192, 200, 256, 260};
    c.batches = bsel[iter % 8];
    c.cols = csel[r.uniform(0, 6)];
    c.rows = rsel[r.uniform(0, 6)];
    if (iter >= 60) {  // weights past `amx_s8_prefetch_min_bytes` (the prefetching loop), a last group of 1 panel
      c.cols = 2101;
      c.rows = 1040;
    }
    const auto bs = static_cast<std::size_t>(c.batches), cs = static_cast<std::size_t>(c.cols),
               rs = static_cast<std::size_t>(c.rows);
    c.x.resize(bs * cs);
    c.w.resize(rs * cs);
    r.fill(c.x, -128, 127, 30);  // every x = -128 and w = 127 in some cases: |D| at its bound
    r.fill(c.w, -128, 127, 30);
    c.bias.resize(rs);
    c.mult.resize(rs);
    c.shift.resize(rs);
    for (auto& b : c.bias) b = r.uniform(-(1 << 22), 1 << 22);
    const bool fast = iter % 2 == 0;  // shifts ≤ −1: the int32-lane requantization; else the general one
    for (std::size_t i = 0; i < rs; ++i) {
      c.mult[i] = r.uniform(1 << 30, INT32_MAX);
      c.shift[i] = fast ? r.uniform(-20, -1) : r.uniform(-20, 4);
    }
    k::linear_s8_args a = c.args();
    a.input_offset = iter % 3 == 0 ? 128 : r.uniform(-255, 255);
    a.filter_offset = iter % 4 == 0 ? r.uniform(-255, 255) : 0;
    a.output_offset = r.uniform(-128, 127);
    a.multiplier = c.mult.data();
    a.shift = c.shift.data();
    a.per_channel = iter % 5 != 0;
    a.bias = c.bias.data();
    a.rounding = iter % 7 == 0 ? armlower::quant::rounding::double_round : armlower::quant::rounding::single_round;
    check_packed(a);
  }
}

TEST_CASE("packed s8: K > 65536 (int64-flushed passes), sums past 2^31") {
  for (const int cols : {65536, 65537, 70001}) {
    for (const int batches : {1, 3, 9}) {
      const int rows = 19;
      std::vector<std::int8_t> x(static_cast<std::size_t>(batches * cols)), w(static_cast<std::size_t>(rows * cols));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int8_t>(i % 3 == 0 ? -128 : 127);
      for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>(i % 5 == 0 ? 127 : -128);
      const std::int32_t m = 1 << 30, s = -24;
      k::linear_s8_args a;
      a.input = x.data(); a.weights = w.data(); a.batches = batches; a.cols = cols; a.rows = rows;
      a.input_offset = 128; a.filter_offset = -3; a.multiplier = &m; a.shift = &s;
      check_packed(a);
      a.input_offset = -255;
      a.filter_offset = 0;
      check_packed(a);
    }
  }
}

TEST_CASE("packed s8: argument errors") {
  std::vector<std::int8_t> x(10, 1), w(30, 2), y(3);
  const std::int32_t m = 1 << 30, s = 0;
  k::linear_s8_args a;
  a.input = x.data(); a.weights = w.data(); a.output = y.data(); a.batches = 1; a.cols = 10; a.rows = 3;
  a.multiplier = &m; a.shift = &s; a.input_offset = 5;
  const std::size_t n = k::linear_s8_packed_size(3, 10);
  CHECK(n == 64 + 12 * 16 + 2 * 8 * 16);  // header, row constants, the larger weight layout: AVX2 int16 (VNNI: 16 · 12)
  CHECK(k::linear_s8_packed_size(0, 10) == 0);
  std::vector<std::uint8_t> buf(n);
  CHECK(k::pack_linear_s8(a, buf.data(), n - 1) == status::scratch_too_small);
  CHECK(k::pack_linear_s8(a, nullptr, n) == status::null_pointer);
  REQUIRE(k::pack_linear_s8(a, buf.data(), n) == status::ok);
  CHECK(k::linear_s8_packed(a, buf.data(), n) == status::ok);
  CHECK(k::linear_s8_packed(a, buf.data(), n - 1) == status::scratch_too_small);
  CHECK(k::linear_s8_packed(a, nullptr, n) == status::null_pointer);
  k::linear_s8_args b = a;
  b.input_offset = 6;
  CHECK(k::linear_s8_packed(b, buf.data(), n) == status::zero_point_out_of_range);
  b = a;
  b.rows = 2;
  CHECK(k::linear_s8_packed(b, buf.data(), n) == status::shape_mismatch);
  b = a;
  b.output = nullptr;
  CHECK(k::linear_s8_packed(b, buf.data(), n) == status::null_pointer);
  std::vector<std::uint8_t> junk(n, 0);
  CHECK(k::linear_s8_packed(a, junk.data(), n) == status::shape_mismatch);
}

TEST_CASE("pack on first use: linear_s8(a, cache, size) repacks on new addresses/offsets, reset, small buffers") {
  prng r{std::mt19937_64(1414)};
  const int batches = 5, cols = 67, rows = 40;
  std::vector<std::int8_t> x(static_cast<std::size_t>(batches * cols)), w1(static_cast<std::size_t>(rows * cols)),
      w2(w1.size());
  std::vector<std::int32_t> b1(static_cast<std::size_t>(rows)), b2(b1.size()), ks(b1.size());
  r.fill(x, -128, 127, 0);
  r.fill(w1, -128, 127, 0);
  r.fill(w2, -128, 127, 0);
  r.fill(b1, -100000, 100000, 0);
  r.fill(b2, -100000, 100000, 0);
  const std::int32_t m = 1518500250, sh = -9;
  k::linear_s8_args a;
  a.input = x.data(); a.weights = w1.data(); a.bias = b1.data(); a.batches = batches; a.cols = cols; a.rows = rows;
  a.multiplier = &m; a.shift = &sh; a.input_offset = 128; a.filter_offset = 3; a.output_offset = -7;
  const auto expect_same = [&](k::linear_s8_args c, void* cache, std::size_t size) {
    std::vector<std::int8_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size(), std::int8_t{0x5A});
    c.output = ref.data();
    REQUIRE(k::linear_s8(c, k::linear_path::generic) == status::ok);
    c.output = out.data();
    REQUIRE(k::linear_s8(c, cache, size) == status::ok);
    REQUIRE(out == ref);
  };
  const std::size_t n = k::linear_s8_cache_size(rows, cols);
  CHECK(n == k::linear_s8_packed_size(rows, cols) + 64);
  std::vector<std::uint8_t> cache(n + 3, std::uint8_t{0xAB});
  void* c = cache.data() + 3;  // unaligned
  expect_same(a, c, n);
  const bool native = k::linear_s8_packed_native();
  CHECK(k::linear_s8_cache_matches(a, c, n) == native);
  expect_same(a, c, n);  // reuse
  k::linear_s8_args b = a;
  b.weights = w2.data();  // new weights address: repack
  CHECK_FALSE(k::linear_s8_cache_matches(b, c, n));
  expect_same(b, c, n);
  b.bias = b2.data();  // new bias address
  CHECK_FALSE(k::linear_s8_cache_matches(b, c, n));
  expect_same(b, c, n);
  b.bias = nullptr;
  expect_same(b, c, n);
  b.input_offset = -3;  // other offsets
  CHECK_FALSE(k::linear_s8_cache_matches(b, c, n));
  expect_same(b, c, n);
  b.filter_offset = -255;
  expect_same(b, c, n);
  REQUIRE(k::compute_kernel_sum_s8(ks.data(), cols, rows, w2.data(), b.input_offset, b.filter_offset, b2.data()) ==
          status::ok);
  b.kernel_sum = ks.data();  // kernel_sum form
  CHECK_FALSE(k::linear_s8_cache_matches(b, c, n));
  expect_same(b, c, n);
  expect_same(b, c, n);
  // in-place change at the same addresses: documented to need reset_linear_s8_cache
  for (std::size_t i = 0; i < w2.size(); ++i) w2[i] = static_cast<std::int8_t>(w2[i] ^ 0x55);
  REQUIRE(k::compute_kernel_sum_s8(ks.data(), cols, rows, w2.data(), b.input_offset, b.filter_offset, b2.data()) ==
          status::ok);
  CHECK(k::linear_s8_cache_matches(b, c, n) == native);  // the header cannot see it ...
  k::reset_linear_s8_cache(c, n);                         // ... so the caller resets
  CHECK_FALSE(k::linear_s8_cache_matches(b, c, n));
  expect_same(b, c, n);
  // a smaller (or null) buffer: the unpacked path, buffer untouched
  std::vector<std::uint8_t> small(n - 1, std::uint8_t{0xCD});
  expect_same(a, small.data(), small.size());
  CHECK(std::all_of(small.begin(), small.end(), [](std::uint8_t v) { return v == 0xCD; }));
  expect_same(a, nullptr, n);
  // errors are validate's
  b = a;
  b.output = nullptr;
  CHECK(k::linear_s8(b, c, n) == status::null_pointer);
  std::vector<std::int8_t> y(static_cast<std::size_t>(batches * rows));
  b = a;
  b.output = y.data();
  b.input_offset = 256;
  CHECK(k::linear_s8(b, c, n) == status::zero_point_out_of_range);
}

TEST_CASE("linear_s8_plan: one checked call; its errors are validate's but for input and output") {
  prng r{std::mt19937_64(1415)};
  const int batches = 3, cols = 70, rows = 33;
  std::vector<std::int8_t> x(static_cast<std::size_t>(batches * cols)), w(static_cast<std::size_t>(rows * cols));
  std::vector<std::int32_t> b(static_cast<std::size_t>(rows));
  r.fill(x, -128, 127, 0);
  r.fill(w, -128, 127, 0);
  r.fill(b, -100000, 100000, 0);
  const std::int32_t m = 1518500250, sh = -9;
  k::linear_s8_args a;
  a.weights = w.data(); a.bias = b.data(); a.batches = batches; a.cols = cols; a.rows = rows;
  a.multiplier = &m; a.shift = &sh; a.input_offset = 7; a.filter_offset = -2; a.output_offset = 5;
  std::vector<std::int8_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size());
  k::linear_s8_args g = a;
  g.input = x.data();
  g.output = ref.data();
  REQUIRE(k::linear_s8(g, k::linear_path::generic) == status::ok);
  const std::size_t n = k::linear_s8_cache_size(rows, cols);
  std::vector<std::uint8_t> cache(n + 5);
  void* c = cache.data() + 5;  // unaligned: the plan packs at the first 64-byte boundary, as linear_s8(a, c, n)
  k::linear_s8_plan empty, plan;
  CHECK(k::linear_s8(empty, x.data(), out.data()) == status::null_pointer);
  REQUIRE(k::plan_linear_s8(a, c, n, plan) == status::ok);  // input and output not needed
  CHECK(plan.args().input == nullptr);
  CHECK(plan.packed() == k::linear_s8_packed_native());
  CHECK(k::linear_s8_cache_matches(a, c, n) == k::linear_s8_packed_native());  // what linear_s8(a, c, n) reuses
  CHECK(k::linear_s8(plan, nullptr, out.data()) == status::null_pointer);
  CHECK(k::linear_s8(plan, x.data(), nullptr) == status::null_pointer);
  REQUIRE(k::linear_s8(plan, x.data(), out.data()) == status::ok);
  CHECK(out == ref);
  // a buffer too small: the row-major call, buffer untouched
  std::vector<std::uint8_t> small(n - 1, std::uint8_t{0xCD});
  k::linear_s8_plan rm;
  REQUIRE(k::plan_linear_s8(a, small.data(), small.size(), rm) == status::ok);
  CHECK_FALSE(rm.packed());
  std::fill(out.begin(), out.end(), std::int8_t{0});
  REQUIRE(k::linear_s8(rm, x.data(), out.data()) == status::ok);
  CHECK(out == ref);
  CHECK(std::all_of(small.begin(), small.end(), [](std::uint8_t v) { return v == 0xCD; }));
  // the errors of validate(a), the plan left as it was
  const auto refused = [&](k::linear_s8_args e, status want) {
    k::linear_s8_plan p = plan;
    CHECK(k::plan_linear_s8(e, c, n, p) == want);
    std::fill(out.begin(), out.end(), std::int8_t{0});
    REQUIRE(k::linear_s8(p, x.data(), out.data()) == status::ok);
    CHECK(out == ref);
  };
  k::linear_s8_args e = a;
  e.weights = nullptr;
  refused(e, status::null_pointer);
  e = a;
  e.multiplier = nullptr;
  refused(e, status::null_pointer);
  e = a;
  e.rows = 0;
  refused(e, status::empty_dimension);
  e = a;
  e.input_offset = 256;
  refused(e, status::zero_point_out_of_range);
  e = a;
  e.activation_min = 10;
  e.activation_max = 9;
  refused(e, status::activation_range_invalid);
  const std::int32_t bad_shift = 31;
  e = a;
  e.shift = &bad_shift;
  refused(e, status::shift_out_of_range);
  const std::int32_t bad_m = -1;
  e = a;
  e.multiplier = &bad_m;
  refused(e, status::multiplier_out_of_range);
}

namespace {

/// Requires the header of the packed buffer `buf` to name `kind`.
void detail_header_layout_is(const std::vector<std::uint8_t>& buf, k::detail::packed_s8_layout_kind kind) {
  k::detail::packed_s8_header h;
  std::memcpy(&h, buf.data(), sizeof h);
  REQUIRE(h.layout == static_cast<std::int32_t>(kind));
}

/// Packs `a` in the AVX2 layout (`linear_path::x86_avx2`: the batch-blocked column-pair kernel
/// `linear_s8_pairs_avx2` where the CPU has AVX2; int16 weights for small layers) and requires the bytes of the
/// generic path.
void check_avx2_pairs(k::linear_s8_args a) {
  std::vector<std::int8_t> ref(static_cast<std::size_t>(a.batches) * static_cast<std::size_t>(a.rows)),
      out(ref.size(), std::int8_t{0x5A});
  a.output = ref.data();
  REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
  const std::size_t size = k::linear_s8_packed_size(a.rows, a.cols);
  std::vector<std::uint8_t> buf(size);
  REQUIRE(k::pack_linear_s8(a, buf.data(), size, k::linear_path::x86_avx2) == status::ok);
  a.output = out.data();
  REQUIRE(k::linear_s8_packed(a, buf.data(), size) == status::ok);
  CAPTURE(a.batches); CAPTURE(a.cols); CAPTURE(a.rows); CAPTURE(a.per_channel); CAPTURE(a.input_offset);
  CAPTURE(a.filter_offset); CAPTURE(a.bias != nullptr); CAPTURE(a.kernel_sum != nullptr);
  CAPTURE(static_cast<int>(a.rounding));
  REQUIRE(out == ref);
  // the layout the shape takes: int16 weights up to `avx2_pairs16_max_weights`, bytes above
  detail_header_layout_is(buf, k::detail::avx2_pairs_kind(a.rows, a.cols));
#if defined(ARMLOWER_KERNELS_HAVE_X86)
  // the kernel itself in the bias form (x' = x + input_offset widened, |x'| ≤ 383), on both AVX2 layouts of
  // the weights (whichever the shape packs into)
  if (k::path_available(k::linear_path::x86_avx2) && a.kernel_sum == nullptr) {
    for (const auto kind : {k::detail::packed_s8_layout_kind::avx2_pairs, k::detail::packed_s8_layout_kind::avx2_pairs16}) {
      const auto geo = k::detail::packed_s8_layout(a.rows, a.cols, kind);
      std::vector<std::int16_t> w(static_cast<std::size_t>(geo.total - geo.weights) / 2 + 1);  // int16-aligned
      k::detail::pack_s8_weights(a.weights, a.rows, a.cols, kind, geo, reinterpret_cast<std::uint8_t*>(w.data()));
      std::fill(out.begin(), out.end(), std::int8_t{0x5A});
      if (kind == k::detail::packed_s8_layout_kind::avx2_pairs16) {
        k::detail::linear_s8_pairs_avx2(a, w.data());
      } else {
        k::detail::linear_s8_pairs_avx2(a, reinterpret_cast<const std::int8_t*>(w.data()));
      }
      CAPTURE(static_cast<int>(kind));
      REQUIRE(out == ref);
    }
  }
#endif
}

}  // namespace

TEST_CASE("packed s8 AVX2 column-pair kernel: batch blocks, row/K tails, K blocks, extreme operands") {
  MESSAGE("AVX2 packed kernel runs natively: " << std::string(k::linear_s8_packed_native(k::linear_path::x86_avx2) ? "yes" : "no"));
  prng r{std::mt19937_64(148)};
  // batch: remainders 1..7 and blocks of 8; cols: K tails (pairs, 16-column padding) and the edges
  // of the K blocks (8192/MB rounded down to 16 columns: 1024 for 8 rows, 2720 for 3, 8192 for 1);
  // rows: group (8) tails and the 64-channel passes
  const int batch_values[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17};
  const int col_values[] = {1, 2, 3, 15, 16, 17, 31, 1023, 1024, 1025, 2048, 2049, 2721, 8193};
  const int row_values[] = {1, 3, 7, 8, 9, 16, 17, 63, 64, 65, 72, 129};
  int n = 0;
  for (const int batches : batch_values) {
    for (const int cols : col_values) {
      for (const int rows : row_values) {
        if (static_cast<long>(batches) * cols * rows > 4'000'000 && (n++ % 4) != 0) continue;  // keep it fast
        s8_case c;
        const auto bs = static_cast<std::size_t>(batches), cs = static_cast<std::size_t>(cols),
                   rs = static_cast<std::size_t>(rows);
        c.x.resize(bs * cs);
        c.w.resize(rs * cs);
        const int mode = r.uniform(0, 3);  // 0: all operands at the extremes that maximise |Σ|
        if (mode == 0) {
          std::fill(c.x.begin(), c.x.end(), std::int8_t{-128});
          std::fill(c.w.begin(), c.w.end(), std::int8_t{-128});
        } else {
          r.fill(c.x, -128, 127, 20);
          r.fill(c.w, -128, 127, 20);
        }
        c.bias.resize(rs);
        c.mult.resize(rs);
        c.shift.resize(rs);
        c.ks.resize(rs);
        for (auto& b : c.bias) b = r.uniform(-(1 << 20), 1 << 20);
        // every shift ≤ −1 in half the cases: the kernel's int32-lane requantization (per-channel too)
        const bool negative_shifts = r.uniform(0, 1) == 0;
        for (std::size_t i = 0; i < rs; ++i) {
          c.mult[i] = r.uniform(0, 3) == 0 ? r.uniform(0, INT32_MAX) : r.uniform(1 << 30, INT32_MAX);
          c.shift[i] = !negative_shifts && r.uniform(0, 2) == 0 ? r.uniform(0, 30) : r.uniform(-31, -1);
        }
        k::linear_s8_args a;
        a.input = c.x.data();
        a.weights = c.w.data();
        a.batches = batches;
        a.cols = cols;
        a.rows = rows;
        a.input_offset = mode == 0 ? -255 : r.uniform(-255, 255);
        a.filter_offset = mode == 0 ? 0 : (r.uniform(0, 1) ? 0 : r.uniform(-255, 255));
        a.output_offset = r.uniform(-128, 127);
        a.multiplier = c.mult.data();
        a.shift = c.shift.data();
        a.per_channel = r.uniform(0, 1) == 1;
        a.activation_min = r.uniform(0, 3) == 0 ? r.uniform(-128, 0) : -128;
        a.activation_max = r.uniform(0, 3) == 0 ? r.uniform(a.activation_min, 127) : 127;
        for (const auto rnd : {armlower::quant::rounding::single_round, armlower::quant::rounding::double_round}) {
          a.rounding = rnd;
          a.bias = nullptr;
          a.kernel_sum = nullptr;
          check_avx2_pairs(a);  // no bias
          a.bias = c.bias.data();
          check_avx2_pairs(a);  // bias
          if (r.uniform(0, 3) == 0) {
            a.filter_offset = r.uniform(-255, 255);
            check_avx2_pairs(a);  // filter offset ≠ 0 (the Σx' term)
          }
          REQUIRE(k::compute_kernel_sum_s8(c.ks.data(), cols, rows, c.w.data(), a.input_offset, a.filter_offset,
                                           c.bias.data()) == status::ok);
          a.kernel_sum = c.ks.data();
          check_avx2_pairs(a);  // kernel_sum form
        }
      }
    }
  }
}

TEST_CASE("packed s8 AVX2 column-pair kernel: sums past int32 leave the int32-lane requantization") {
  armlower_test::for_each_s8_int32_edge_case([](const k::linear_s8_args& a) { check_avx2_pairs(a); });
}

TEST_CASE("packed s8: a buffer whose header names another layout is refused") {
  std::vector<std::int8_t> x(40, 1), w(std::size_t{3} * 40, 2), y(3);
  const std::int32_t m = 1 << 30, s = 0;
  k::linear_s8_args a;
  a.input = x.data(); a.weights = w.data(); a.output = y.data(); a.batches = 1; a.cols = 40; a.rows = 3;
  a.multiplier = &m; a.shift = &s;
  const std::size_t n = k::linear_s8_packed_size(3, 40);
  std::vector<std::uint8_t> buf(n);
  REQUIRE(k::pack_linear_s8(a, buf.data(), n, k::linear_path::x86_avx2) == status::ok);
  CHECK(k::linear_s8_packed(a, buf.data(), n) == status::ok);
  // 1: the retired row-chunk AVX2 layout; 2: the AVX2 byte layout, which this small layer does not pack into (it
  // packs int16 weights, 3)
  for (const std::int32_t layout : {1, 2, 4, -1}) {
    std::memcpy(buf.data() + offsetof(k::detail::packed_s8_header, layout), &layout, sizeof layout);
    CAPTURE(layout);
    CHECK(k::linear_s8_packed(a, buf.data(), n) == status::shape_mismatch);
  }
  // a layer above `avx2_pairs16_max_weights` packs bytes (2); a header naming int16 weights (3), whose geometry is
  // twice as large as its buffer, is refused
  const std::int32_t cols = static_cast<std::int32_t>(k::detail::avx2_pairs16_max_weights / 3 + 16);
  std::vector<std::int8_t> xl(static_cast<std::size_t>(cols), 1), wl(std::size_t{3} * static_cast<std::size_t>(cols), 2);
  a.input = xl.data();
  a.weights = wl.data();
  a.cols = cols;
  const std::size_t nl = k::linear_s8_packed_size(3, cols);
  std::vector<std::uint8_t> big(nl);
  REQUIRE(k::pack_linear_s8(a, big.data(), nl, k::linear_path::x86_avx2) == status::ok);
  k::detail::packed_s8_header h;
  std::memcpy(&h, big.data(), sizeof h);
  CHECK(h.layout == 2);
  CHECK(k::linear_s8_packed(a, big.data(), nl) == status::ok);
  const std::int32_t w16 = 3;
  std::memcpy(big.data() + offsetof(k::detail::packed_s8_header, layout), &w16, sizeof w16);
  CHECK(k::linear_s8_packed(a, big.data(), nl) == status::shape_mismatch);
}
