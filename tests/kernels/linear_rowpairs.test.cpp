// The AVX2 no-buffer s8 linear forms (`linear_s8(a, linear_path::x86_avx2)`, forced here since this
// host may have AVX-512): the row-major 8-channel kernel (`detail::linear_s8_rowdot_avx2`,
// arch/x86/linear_avx2_rowdot.hpp) and the on-the-fly repack into the column-pair kernel
// (`detail::linear_s8_rowpairs_avx2`, arch/x86/linear_avx2_rowpairs.hpp), each called directly and
// through the dispatch (`rowdot_pays`), write exactly the bytes of the generic path — batch blocks and
// remainders (1..9, 15, 16, 17), channel tails (rows not a multiple of 8; fewer than 8 rows), K tails (odd
// K, K not a multiple of 16: the partial last chunk read past its row, or from a zero-padded tile in the
// array's last row), the K tile / K block edges (256, 512, 1024 columns; 2720, 8192, 8193: two K blocks of
// the 8-channel kernel), all-extreme operands at those K and beyond the int32 range of a whole row sum
// (K = 65537: int64 block sums, the scalar requantization fallback), both roundings, no bias / bias /
// kernel_sum, filter_offset ≠ 0, per-tensor and per-channel, positive and negative shifts (every shift
// ≤ −1 in half the cases: the int32-lane requantization), narrower clamps, and layers whose sums leave
// int32 with every shift ≤ −1 (`s8_int32_edge_cases.hpp`). Weights are vectors of exactly rows·cols
// bytes, so the ASan build catches a read past the array.
#include <armlower/kernels/linear.hpp>

#include <doctest/doctest.h>

#include "s8_int32_edge_cases.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace k = armlower::kernels;
using armlower::status;

namespace {

struct prng {
  std::mt19937_64 g;
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }
};

struct s8_case {
  std::vector<std::int8_t> x, w;
  std::vector<std::int32_t> bias, mult, shift, ks;
};

/// Runs the generic path and the AVX2 forms on `a` and requires identical bytes.
void check_no_buffer(k::linear_s8_args a) {
  std::vector<std::int8_t> ref(static_cast<std::size_t>(a.batches) * static_cast<std::size_t>(a.rows)),
      out(ref.size(), std::int8_t{0x5A});
  a.output = ref.data();
  REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
  CAPTURE(a.batches); CAPTURE(a.cols); CAPTURE(a.rows); CAPTURE(a.per_channel); CAPTURE(a.input_offset);
  CAPTURE(a.filter_offset); CAPTURE(a.bias != nullptr); CAPTURE(a.kernel_sum != nullptr);
  CAPTURE(static_cast<int>(a.rounding));
  if (!k::path_available(k::linear_path::x86_avx2)) return;
  a.output = out.data();
  REQUIRE(k::linear_s8(a, k::linear_path::x86_avx2) == status::ok);  // the dispatched form
  REQUIRE(out == ref);
#if defined(ARMLOWER_KERNELS_HAVE_X86)
  std::fill(out.begin(), out.end(), std::int8_t{0x5A});
  k::detail::linear_s8_rowpairs_avx2(a);  // the repack form whatever the dispatch says
  REQUIRE(out == ref);
  std::fill(out.begin(), out.end(), std::int8_t{0x5A});
  k::detail::linear_s8_rowdot_avx2(a);  // the 8-channel row-major form whatever the dispatch says
  REQUIRE(out == ref);
#endif
}

/// One random case of the given shape; mode 0: every operand at the extreme that maximises |Σ|.
void run_case(prng& r, int batches, int cols, int rows, bool extreme) {
  s8_case c;
  const auto bs = static_cast<std::size_t>(batches), cs = static_cast<std::size_t>(cols),
             rs = static_cast<std::size_t>(rows);
  c.x.resize(bs * cs);
  c.w.resize(rs * cs);
  if (extreme) {
    std::fill(c.x.begin(), c.x.end(), std::int8_t{-128});
    std::fill(c.w.begin(), c.w.end(), std::int8_t{-128});
  } else {
    for (auto& v : c.x) v = static_cast<std::int8_t>(r.uniform(-128, 127));
    for (auto& v : c.w) v = static_cast<std::int8_t>(r.uniform(-128, 127));
  }
  c.bias.resize(rs);
  c.mult.resize(rs);
  c.shift.resize(rs);
  c.ks.resize(rs);
  for (auto& b : c.bias) b = r.uniform(-(1 << 20), 1 << 20);
  // every shift ≤ −1 in half the cases: the int32-lane requantization (per-channel too)
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
  a.input_offset = extreme ? -255 : r.uniform(-255, 255);
  a.filter_offset = 0;
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
    a.filter_offset = 0;
    check_no_buffer(a);  // no bias
    a.bias = c.bias.data();
    check_no_buffer(a);  // bias
    a.filter_offset = extreme ? -255 : r.uniform(-255, 255);
    check_no_buffer(a);  // filter offset ≠ 0 (the Σx' term)
    if (cols <= 32768) {  // kernel_sum is int32 (CMSIS-NN): only where it cannot wrap
      REQUIRE(k::compute_kernel_sum_s8(c.ks.data(), cols, rows, c.w.data(), a.input_offset, a.filter_offset,
                                       c.bias.data()) == status::ok);
      a.kernel_sum = c.ks.data();
      check_no_buffer(a);  // kernel_sum form
    }
  }
}

}  // namespace

TEST_CASE("AVX2 no-buffer s8 linear (8-channel row-major kernel, repack into the column-pair kernel): batch blocks, tails, tiles, extremes") {
  prng r{std::mt19937_64(1414)};
  // batch: remainders 1..7 and blocks of 8; cols: pair / 16-column tails and the edges of the K tiles
  // (256 for 1–2 rows, 512 for 3–4, 1024 for 5–8) and K blocks (2720 for 3 rows, 8192 for 1);
  // rows: group (8) tails, G-group calls (2 or 4 groups) with single-group remainders, 64-channel passes
  const int batch_values[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17};
  const int col_values[] = {1, 2, 3, 15, 16, 17, 31, 33, 255, 256, 257, 511, 513, 1023, 1024, 1025, 2721, 8193};
  const int row_values[] = {1, 3, 7, 8, 9, 16, 17, 24, 40, 63, 64, 65, 72, 129};
  int n = 0;
  for (const int batches : batch_values) {
    for (const int cols : col_values) {
      for (const int rows : row_values) {
        if (static_cast<long>(batches) * cols * rows > 1'000'000 && (n++ % 4) != 0) continue;  // keep it fast
        run_case(r, batches, cols, rows, r.uniform(0, 3) == 0);
      }
    }
  }
}

TEST_CASE("AVX2 no-buffer s8 linear: row sums past int32 (int64 block sums, scalar requantization)") {
  prng r{std::mt19937_64(1415)};
  // |Σ (x + xoff)·w| = 65537 · 383 · 128 ≈ 3.2e9 > 2^31 for all-extreme operands
  for (const int batches : {1, 3, 8, 9}) run_case(r, batches, 65537, 17, true);
  run_case(r, 8, 65537, 16, false);
}

TEST_CASE("AVX2 no-buffer s8 linear: kernel_sum at the ends of int32 (sums past int32 with every shift <= -1)") {
  armlower_test::for_each_s8_int32_edge_case([](const k::linear_s8_args& a) { check_no_buffer(a); });
}
