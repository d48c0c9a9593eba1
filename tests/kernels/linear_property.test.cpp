// Randomised property tests: every available path of the fused linear kernels writes exactly the
// bytes of the generic path (batch 1..9, K 1..4096 incl. non-multiples of every vector width,
// extreme values, all zero points, per-channel shifts at both ends of their range, kernel_sum or bias).
// The generic path itself is checked against TFLite's vectors in linear_vectors.test.cpp.
#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/detail/align64.hpp>
#include <armlower/kernels/linear_packed.hpp>

#include <doctest/doctest.h>

#include "s8_args.hpp"
#include "s8_int32_edge_cases.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>
#include <string>

namespace k = armlower::kernels;
using armlower::status;

namespace {

std::vector<k::linear_path> fast_paths() {
  std::vector<k::linear_path> p;
  for (auto c : {k::linear_path::x86_avx2, k::linear_path::x86_avx512_vnni, k::linear_path::arm_dsp,
                 k::linear_path::arm_mve}) {
    if (k::path_available(c)) p.push_back(c);
  }
  return p;
}

struct rng_t {
  std::mt19937_64 g;
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }
  template <class T>
  void fill(std::vector<T>& v, int lo, int hi, int extreme_pct) {
    const int mode = uniform(0, 99);
    for (auto& e : v) {
      if (mode < extreme_pct) e = static_cast<T>(uniform(0, 1) ? hi : lo);  // all-extreme operands
      else e = static_cast<T>(uniform(lo, hi));
    }
  }
  /// s8 operands x and w: `extreme` 0 → every x = 127, w = −128; 1 → every x = −128, w = 127 (|D| at its bound
  /// 255·128·K in the VNNI forms); else random with 15 % all-extreme vectors.
  void fill_xw(std::vector<std::int8_t>& x, std::vector<std::int8_t>& w, int extreme) {
    if (extreme == 0 || extreme == 1) {
      std::fill(x.begin(), x.end(), static_cast<std::int8_t>(extreme == 0 ? 127 : -128));
      std::fill(w.begin(), w.end(), static_cast<std::int8_t>(extreme == 0 ? -128 : 127));
    } else {
      fill(x, -128, 127, 15);
      fill(w, -128, 127, 15);
    }
  }
};

/// Arguments over the given vectors: input, weights, the shape, multiplier and shift; the rest default.
k::linear_s8_args s8_args(std::vector<std::int8_t>& x, std::vector<std::int8_t>& w, std::vector<std::int32_t>& mult,
                          std::vector<std::int32_t>& shift, int batches, int cols, int rows) {
  k::linear_s8_args a = armlower_test::s8_shape_args(x.data(), w.data(), batches, cols, rows);
  a.multiplier = mult.data();
  a.shift = shift.data();
  return a;
}

/// The operand vectors of a random s8 layer: x [batches][cols] and w [rows][cols] (15 % of layers all-extreme),
/// bias in ±2^20; mult, shift and ks sized `rows`, left for the test to fill.
struct s8_layer {
  std::vector<std::int8_t> x, w;
  std::vector<std::int32_t> bias, mult, shift, ks;
  s8_layer(rng_t& r, int batches, int cols, int rows)
      : x(static_cast<std::size_t>(batches * cols)), w(static_cast<std::size_t>(rows * cols)),
        bias(static_cast<std::size_t>(rows)), mult(bias.size()), shift(bias.size()), ks(bias.size()) {
    r.fill(x, -128, 127, 15);
    r.fill(w, -128, 127, 15);
    for (auto& b : bias) b = r.uniform(-(1 << 20), 1 << 20);
  }
};

/// A copy of `w` that starts `off` bytes past a 64-byte boundary (0 ≤ off < 64), in `buf`: the row-major kernels read
/// their whole steps from the rows' first line boundary on (`vnni_rowdot_head`).
const std::int8_t* weights_at(std::vector<std::int8_t>& buf, const std::vector<std::int8_t>& w, int off) {
  buf.assign(w.size() + 128, 0);
  std::int8_t* p = buf.data() + k::detail::align64_offset(buf.data()) + off;
  std::copy(w.begin(), w.end(), p);
  return p;
}

/// Offsets of the weights past a 64-byte boundary that the row-major tests draw from.
const int weight_offsets[] = {0, 1, 16, 32, 48, 63};

const int k_values[] = {1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 511, 512, 513,
                        1000, 1023, 1024, 2047, 2049, 4000, 4095, 4096};

}  // namespace

TEST_CASE("s8: every path == generic") {
  const auto paths = fast_paths();
  if (paths.empty()) MESSAGE("no fast path available on this machine; only generic runs");
  rng_t r{std::mt19937_64(11)};
  long compared = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int batches = r.uniform(1, 9);
    const int cols = iter < 29 ? k_values[iter] : k_values[r.uniform(0, 28)];
    const int rows = r.uniform(1, iter % 10 == 0 ? 40 : 13);
    s8_layer l(r, batches, cols, rows);
    auto& w = l.w;
    auto &bias = l.bias, &mult = l.mult, &shift = l.shift, &ks = l.ks;
    const bool per_channel = r.uniform(0, 1) == 1;
    for (int i = 0; i < rows; ++i) {
      mult[static_cast<std::size_t>(i)] = r.uniform(0, 9) == 0 ? r.uniform(0, INT32_MAX) : r.uniform(1 << 30, INT32_MAX);
      const int sel = r.uniform(0, 5);
      shift[static_cast<std::size_t>(i)] = sel == 0 ? -31 : sel == 1 ? 30 : sel == 2 ? 0 : r.uniform(-20, -1);
    }
    k::linear_s8_args a = s8_args(l.x, l.w, l.mult, l.shift, batches, cols, rows);
    std::vector<std::int8_t> wbuf;
    const int woff = weight_offsets[r.uniform(0, 5)];  // the row-major forms' wrap step where K is a multiple of 64
    a.weights = weights_at(wbuf, w, woff);
    const int zsel = r.uniform(0, 3);
    a.input_offset = zsel == 0 ? 0 : zsel == 1 ? 128 : zsel == 2 ? -127 : r.uniform(-255, 255);
    a.filter_offset = r.uniform(0, 2) == 0 ? r.uniform(-255, 255) : 0;
    a.output_offset = r.uniform(-128, 127);
    a.per_channel = per_channel;
    a.activation_min = r.uniform(-128, 0);
    a.activation_max = r.uniform(a.activation_min, 127);
    a.rounding = r.uniform(0, 1) ? armlower::quant::rounding::double_round : armlower::quant::rounding::single_round;
    const int bsel = r.uniform(0, 2);
    a.bias = bsel == 0 ? nullptr : bias.data();
    if (bsel == 2) {
      REQUIRE(k::compute_kernel_sum_s8(ks.data(), cols, rows, w.data(), a.input_offset, a.filter_offset, bias.data()) ==
              status::ok);
      a.kernel_sum = ks.data();
    }
    std::vector<std::int8_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size());
    a.output = ref.data();
    REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
    for (auto p : paths) {
      std::fill(out.begin(), out.end(), std::int8_t{0x5A});
      a.output = out.data();
      REQUIRE(k::linear_s8(a, p) == status::ok);
      CAPTURE(k::to_string(p)); CAPTURE(batches); CAPTURE(cols); CAPTURE(rows); CAPTURE(woff);
      REQUIRE(out == ref);
      ++compared;
    }
    // pre-packed weights in both layouts (AVX2 single stream, AVX-512 VNNI panels; each runs its
    // microkernel where the CPU has it, else the normal dispatch) and pack on first use
    for (const auto lp : {k::linear_path::x86_avx2, k::linear_path::x86_avx512_vnni, k::linear_path::automatic}) {
      std::vector<std::uint8_t> packed(k::linear_s8_packed_size(rows, cols));
      REQUIRE(k::pack_linear_s8(a, packed.data(), packed.size(), lp) == status::ok);
      std::fill(out.begin(), out.end(), std::int8_t{0x5A});
      a.output = out.data();
      REQUIRE(k::linear_s8_packed(a, packed.data(), packed.size()) == status::ok);
      CAPTURE(k::to_string(lp)); CAPTURE(batches); CAPTURE(cols); CAPTURE(rows);
      REQUIRE(out == ref);
      CHECK(k::linear_s8_packed(a, packed.data(), packed.size() - 1) == status::scratch_too_small);
      CHECK(k::linear_s8_packed(a, nullptr, packed.size()) == status::null_pointer);
    }
    std::vector<std::uint8_t> cache(k::linear_s8_cache_size(rows, cols), std::uint8_t{0xEE});
    for (int call = 0; call < 2; ++call) {  // packs, then reuses
      std::fill(out.begin(), out.end(), std::int8_t{0x5A});
      a.output = out.data();
      REQUIRE(k::linear_s8(a, cache.data(), cache.size()) == status::ok);
      CAPTURE(call);
      REQUIRE(out == ref);
      CHECK(k::linear_s8_cache_matches(a, cache.data(), cache.size()) == k::linear_s8_cache_pays(rows));
    }
  }
  if (!paths.empty()) CHECK(compared >= 400);
}

TEST_CASE("s8 row-group VNNI form at short K (bias form, >= 8 batch rows, K <= 2048): == generic across tiles and tails") {
  // `linear_s8_rowgroup_vnni` (arch/x86/linear_vnni_rowgroup.hpp) for groups of 8 batch rows (and 4 after them when
  // 4 remain and input_offset = 128), the rowdot form for the others: 4-channel tiles (whole, the last one repeating
  // its row), partial 16-channel blocks, K below one 32-column step (1, 3, 4, 5, 31) and tails of 1..31 columns, both
  // requantization forms and the int64 fallback; a third of the layers with input_offset ≠ 128 (Σw per tile); K =
  // 1024 with 15 rows and all-extreme operands reaches |D| = 255·128·K (and input_offset −255 with Σw = 127·K).
  if (!k::path_available(k::linear_path::x86_avx512_vnni)) return;
  rng_t r{std::mt19937_64(12)};
  const int ks_[] = {1, 3, 4, 5, 31, 32, 33, 64, 255, 256, 257, 1021, 1022, 1023, 1024, 1025, 2048};
  const int rows_[] = {5, 8, 15, 16, 17, 31, 32, 48, 127, 128, 129, 130, 257};
  const int batches_[] = {7, 8, 9, 15, 16, 17, 24, 31};
  for (int iter = 0; iter < 160; ++iter) {
    const bool big = iter <= 2;
    const int cols = big ? 1024 : ks_[iter % 17];
    const int rows = big ? 15 : rows_[r.uniform(0, 12)];
    const int batches = big ? 9 : batches_[r.uniform(0, 7)];
    std::vector<std::int8_t> x(static_cast<std::size_t>(batches * cols)), w(static_cast<std::size_t>(rows * cols));
    // big: D = Σ (127 + 128)·(−128) = −33423360 (iteration 0) or Σ 0·127 (iterations 1, 2)
    r.fill_xw(x, w, big ? (iter == 0 ? 0 : 1) : 2);
    std::vector<std::int32_t> bias(static_cast<std::size_t>(rows)), mult(static_cast<std::size_t>(rows)),
        shift(static_cast<std::size_t>(rows));
    for (auto& b : bias) b = r.uniform(-(1 << 20), 1 << 20);
    for (int i = 0; i < rows; ++i) {
      mult[static_cast<std::size_t>(i)] = r.uniform(1 << 30, INT32_MAX);
      const int sel = r.uniform(0, 4);
      shift[static_cast<std::size_t>(i)] = sel == 0 ? -31 : sel == 1 ? 30 : sel == 2 ? 0 : r.uniform(-20, -1);
    }
    k::linear_s8_args a = s8_args(x, w, mult, shift, batches, cols, rows);
    a.input_offset = iter == 2 ? -255 : !big && r.uniform(0, 2) == 0 ? r.uniform(-255, 255) : 128;
    a.filter_offset = r.uniform(0, 2) == 0 ? r.uniform(-255, 255) : 0;
    a.output_offset = r.uniform(-128, 127);
    a.per_channel = r.uniform(0, 1) == 1;
    a.activation_min = r.uniform(-128, 0);
    a.activation_max = r.uniform(a.activation_min, 127);
    a.rounding = r.uniform(0, 1) ? armlower::quant::rounding::double_round : armlower::quant::rounding::single_round;
    a.bias = r.uniform(0, 3) == 0 ? nullptr : bias.data();
    std::vector<std::int8_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size(), std::int8_t{0x5A});
    a.output = ref.data();
    REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
    a.output = out.data();
    REQUIRE(k::linear_s8(a, k::linear_path::x86_avx512_vnni) == status::ok);
    CAPTURE(batches); CAPTURE(cols); CAPTURE(rows); CAPTURE(a.input_offset); CAPTURE(a.filter_offset); CAPTURE(a.per_channel);
    REQUIRE(out == ref);
  }
}

TEST_CASE("s8 VNNI row-major in-register form (one batch row, no buffer): == generic across groups, tails, forms and the int32 bound") {
  // `vnni_rowdot8_fast` (arch/x86/linear_vnni_rowdot.hpp): channel groups of 8 (whole, with a tail group run by the tile
  // form), K tails of 1..63 columns, the forms it takes (bias with input_offset 128; kernel_sum; bias with input_offset 0
  // in the kernel_sum order; bias with input_offset −127, 127 or another in [−127, 127] and Σw, up to K = 65536 within
  // the bound) and the ones it refuses (input_offset 255, a shift ≥ 0, two batch rows), per-channel constants, both
  // roundings, filter offsets, weights 0, 1, 16, 32, 48 or 63 bytes past a line (the wrap step); `edge` layers put
  // the row constants and the Σx term at the int32 bound of the form — |c| + 32640·K + |Σx term| just at INT32_MAX
  // (taken) or one past it (refused: the form would wrap).
  if (!k::path_available(k::linear_path::x86_avx512_vnni)) return;
  rng_t r{std::mt19937_64(13)};
  const int ks_[] = {1, 7, 63, 64, 65, 127, 128, 200, 256, 257, 1000, 4096, 65536};
  const int rows_[] = {8, 9, 15, 16, 17, 24, 40, 64, 71};
  for (int iter = 0; iter < 260; ++iter) {
    const int cols = ks_[iter % 13];
    const int rows = rows_[r.uniform(0, 8)];
    const int form = r.uniform(0, 5);  // 0–2: bias, input_offset 128; 3: kernel_sum; 4: bias, other offset; 5: batch 2
    const int batches = form == 5 ? 2 : 1;
    const bool edge = cols <= 1000 && r.uniform(0, 3) == 0;
    s8_layer l(r, batches, cols, rows);
    auto& x = l.x;
    auto &bias = l.bias, &mult = l.mult, &shift = l.shift, &ks = l.ks;
    const bool positive_shift = r.uniform(0, 9) == 0;
    for (int i = 0; i < rows; ++i) {
      mult[static_cast<std::size_t>(i)] = r.uniform(1 << 30, INT32_MAX);
      shift[static_cast<std::size_t>(i)] = r.uniform(0, 3) == 0 ? -31 : r.uniform(-20, -1);
    }
    if (positive_shift) shift[static_cast<std::size_t>(r.uniform(0, rows - 1))] = r.uniform(0, 2);
    k::linear_s8_args a = s8_args(l.x, l.w, l.mult, l.shift, batches, cols, rows);
    std::vector<std::int8_t> wbuf;
    const int woff = weight_offsets[r.uniform(0, 5)];
    a.weights = weights_at(wbuf, l.w, woff);
    const int osel = r.uniform(0, 4);  // form 4: 0, −127, 127, 255 (refused) or another in [−127, 127]
    a.input_offset = form != 4 ? 128 : osel == 0 ? 0 : osel == 1 ? -127 : osel == 2 ? 127 : osel == 3 ? 255 : r.uniform(-127, 127);
    a.filter_offset = r.uniform(0, 2) == 0 ? r.uniform(-255, 255) : 0;
    a.output_offset = r.uniform(-128, 127);
    a.per_channel = r.uniform(0, 1) == 1;
    a.rounding = r.uniform(0, 1) ? armlower::quant::rounding::double_round : armlower::quant::rounding::single_round;
    a.bias = form != 3 && r.uniform(0, 3) == 0 ? nullptr : bias.data();
    if (edge) {  // one channel's constant at the bound: |c| = INT32_MAX − 32640·K − |Σx term| (+1: past it)
      std::int64_t sx = 0;
      for (int c = 0; c < cols; ++c) sx += x[static_cast<std::size_t>(c)];
      const bool wu = form == 3 || (form == 4 && a.input_offset == 0);  // D = Σ (w + 128)·x
      const std::int64_t f = wu ? a.filter_offset - 128 : a.filter_offset;
      const std::int64_t kio = std::int64_t{cols} * a.input_offset * a.filter_offset;
      const std::int64_t d = form == 4 && a.input_offset != 0 ? a.input_offset - 128 : 0;  // the Σw term's bound
      const std::int64_t fix = form == 3 ? 0 : (kio < 0 ? -kio : kio) + (d < 0 ? -d : d) * 128 * cols;
      const std::int64_t room = INT32_MAX - std::int64_t{32640} * cols - (f * sx < 0 ? -f * sx : f * sx) - fix + r.uniform(0, 1);
      const std::int32_t v = static_cast<std::int32_t>(room) * (r.uniform(0, 1) ? 1 : -1);
      bias[static_cast<std::size_t>(r.uniform(0, rows - 1))] = v;
      a.bias = bias.data();
    }
    if (form == 3) {
      ks = bias;  // any int32 kernel_sum is a valid constant (CMSIS-NN form)
      a.kernel_sum = ks.data();
    }
    std::vector<std::int8_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size(), std::int8_t{0x5A});
    a.output = ref.data();
    REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
    a.output = out.data();
    REQUIRE(k::linear_s8(a, k::linear_path::x86_avx512_vnni) == status::ok);
    CAPTURE(form); CAPTURE(cols); CAPTURE(rows); CAPTURE(edge); CAPTURE(a.input_offset); CAPTURE(a.filter_offset);
    CAPTURE(a.per_channel); CAPTURE(woff);
    REQUIRE(out == ref);
  }
  // kernel_sum at the ends of int32 with all −128 operands (sums that leave int32; one edge channel per lane position)
  armlower_test::for_each_s8_int32_edge_case([](k::linear_s8_args a) {
    std::vector<std::int8_t> ref(static_cast<std::size_t>(a.batches) * static_cast<std::size_t>(a.rows)), out(ref.size());
    a.output = ref.data();
    REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
    a.output = out.data();
    REQUIRE(k::linear_s8(a, k::linear_path::x86_avx512_vnni) == status::ok);
    CAPTURE(a.batches); CAPTURE(a.cols); CAPTURE(a.per_channel);
    REQUIRE(out == ref);
  });
  // weights past `vnni_rowgroup_pf_bytes` (264 × 16384 = 4.1 MiB + ): the instantiation that prefetches the rows, in the
  // bias order without and with Σw (input_offset 128, 5) and the kernel_sum order (input_offset 0)
  for (const int io : {128, 5, 0}) {
    s8_layer l(r, 1, 16384, 264);
    for (auto& v : l.mult) v = r.uniform(1 << 30, INT32_MAX);
    for (auto& v : l.shift) v = r.uniform(-20, -12);
    k::linear_s8_args a = s8_args(l.x, l.w, l.mult, l.shift, 1, 16384, 264);
    a.input_offset = io;
    a.output_offset = r.uniform(-128, 127);
    a.per_channel = io == 5;
    a.bias = l.bias.data();
    std::vector<std::int8_t> ref(264), out(ref.size(), std::int8_t{0x5A});
    a.output = ref.data();
    REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
    a.output = out.data();
    REQUIRE(k::linear_s8(a, k::linear_path::x86_avx512_vnni) == status::ok);
    CAPTURE(io);
    REQUIRE(out == ref);
  }
}

TEST_CASE("s8 row-group VNNI form (4 or >= 8 batch rows, K <= 65536): == generic") {
  // `linear_s8_rowgroup_vnni` (arch/x86/linear_vnni_rowgroup.hpp) for groups of 8 batch rows and a last one of
  // exactly 4 (batches 4, 12; 3, 5, 7 take the rowdot form), the rowdot form for the others: K tails of 1..63
  // columns, copied input blocks of 4096 columns summed in int32 (K just below / at / above 4096, 8193), 5..15
  // weight rows (≤ 4: the rowdot form), odd row counts (the last tile repeats its row), partial 16-row blocks, both
  // requantization forms and the int64 fallback. All-extreme operands at K = 65536 (the largest K of this form:
  // |D| = 255·128·65536 < 2^31; 16 copied blocks, and 5 rows with 4 batch rows) and K = 65537 (rowdot, int64
  // passes); with input_offset 127 and −255 (Σw = ∓128·65536 per channel, its term past int32 for −255) and 0 (the
  // kernel_sum order: D = Σ (127 + 128)·(−128)). A third of the other layers are in the kernel_sum form (D = Σ (w +
  // 128)·x, any input_offset), a third of the rest in the bias form with input_offset ≠ 128 (Σw per tile, a quarter of
  // them with input_offset 0: no Σw, the kernel_sum order).
  if (!k::path_available(k::linear_path::x86_avx512_vnni)) return;
  rng_t r{std::mt19937_64(14)};
  const int ks_[] = {128, 129, 130, 191, 255, 256, 511, 1000, 1025, 2049, 3001, 4095, 4096, 4097, 5000, 8193};
  const int rows_[] = {3, 4, 5, 6, 15, 16, 17, 31, 32, 33, 100, 257, 270};
  const int batches_[] = {3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23};
  for (int iter = 0; iter < 128; ++iter) {
    const bool big = iter < 8;
    const int cols = big ? (iter < 2 || iter >= 4 ? 65536 : 65537) : ks_[iter % 16];
    const int rows = big ? (iter < 4 || iter >= 6 ? 17 : 5) : rows_[r.uniform(0, 12)];
    const int batches = big ? (iter < 4 || iter >= 6 ? 9 : 4) : batches_[r.uniform(0, 10)];
    std::vector<std::int8_t> x(static_cast<std::size_t>(batches) * static_cast<std::size_t>(cols)),
        w(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    // big: D = Σ (127 + 128)·(−128) = −2139095040 at K = 65536 (iterations 0, 2, 4, 6; 1: input_offset 0 in the
    // kernel_sum order) or Σ 0·127 (3, 5, 7)
    r.fill_xw(x, w, big ? iter % 2 : 2);
    std::vector<std::int32_t> bias(static_cast<std::size_t>(rows)), mult(static_cast<std::size_t>(rows)),
        shift(static_cast<std::size_t>(rows));
    for (auto& b : bias) b = r.uniform(-(1 << 20), 1 << 20);
    const bool fast = r.uniform(0, 1) == 1;  // every shift <= -1: the int32 requantization can be taken
    for (int i = 0; i < rows; ++i) {
      mult[static_cast<std::size_t>(i)] = r.uniform(1 << 30, INT32_MAX);
      const int sel = r.uniform(0, 4);
      shift[static_cast<std::size_t>(i)] = fast ? r.uniform(-31, -1) : sel == 0 ? -31 : sel == 1 ? 30 : sel == 2 ? 0 : r.uniform(-20, -1);
    }
    if (big) shift[0] = -31;
    k::linear_s8_args a = s8_args(x, w, mult, shift, batches, cols, rows);
    a.input_offset = iter == 6 ? 127 : iter == 7 ? -255 : iter == 1 ? 0 : !big && r.uniform(0, 2) == 0 ? (r.uniform(0, 3) == 0 ? 0 : r.uniform(-255, 255)) : 128;
    a.filter_offset = big ? 0 : r.uniform(0, 2) == 0 ? r.uniform(-255, 255) : 0;
    a.output_offset = big ? 0 : r.uniform(-128, 127);  // big: row 0 (shift −31) ends at 0 or −1, not clamped
    a.per_channel = big || r.uniform(0, 1) == 1;
    a.activation_min = big ? -128 : r.uniform(-128, 0);
    a.activation_max = big ? 127 : r.uniform(a.activation_min, 127);
    a.rounding = r.uniform(0, 1) ? armlower::quant::rounding::double_round : armlower::quant::rounding::single_round;
    a.bias = r.uniform(0, 3) == 0 ? nullptr : bias.data();
    std::vector<std::int32_t> ksum(static_cast<std::size_t>(rows));
    const bool kernel_sum_form = !big && r.uniform(0, 2) == 0;  // CMSIS-NN's kernel_sum (any input_offset)
    if (kernel_sum_form) {
      a.input_offset = r.uniform(-64, 64);
      REQUIRE(k::compute_kernel_sum_s8(ksum.data(), cols, rows, w.data(), a.input_offset, a.filter_offset, a.bias) == status::ok);
      a.kernel_sum = ksum.data();
    }
    std::vector<std::int8_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size(), std::int8_t{0x5A});
    a.output = ref.data();
    REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
    a.output = out.data();
    REQUIRE(k::linear_s8(a, k::linear_path::x86_avx512_vnni) == status::ok);
    CAPTURE(batches); CAPTURE(cols); CAPTURE(rows); CAPTURE(a.filter_offset); CAPTURE(a.per_channel); CAPTURE(fast);
    CAPTURE(kernel_sum_form); CAPTURE(a.input_offset);
    REQUIRE(out == ref);
    if (big && (iter % 2 == 0 || iter == 1)) {  // the extreme D reaches the output: not every value saturated
      CHECK(std::any_of(ref.begin(), ref.end(), [](std::int8_t v) { return v != -128 && v != 127; }));
    }
  }
}

TEST_CASE("s8 AMX-INT8 row-major form (>= 8 batch rows, >= 128 channels, K 64..4032): == generic") {
  // `linear_s8_amx_rowmajor` (arch/x86/linear_amx_rowmajor.hpp), which `linear_s8` runs for groups of 8 batch rows
  // where the CPU has AMX-INT8 (else these calls check the VNNI row groups again): all three operand orders (input_offset
  // 128: TDPBSUD on x + 128; input_offset 0 and the kernel_sum form: TDPBSSD, the Σx term with filter_offset; any other
  // input_offset: TDPBSUD with the ones column giving Σw), partial
  // last 16-channel tiles (their own tile configuration), the groups after the last whole 8 (VNNI), extreme operands
  // (|D| = 255·128·K), both requantization forms, K from one 64-byte block to the largest (4032; 4096: the VNNI
  // form) drawn apart from the operand order, weights 0, 1, 16, 32, 48 or 63 bytes past a line (off a line: the
  // wrap block).
  if (!k::path_available(k::linear_path::x86_avx512_vnni)) return;
#if defined(ARMLOWER_KERNELS_HAVE_AMX)
  MESSAGE("AMX-INT8 available: " << std::string(k::detail::x86_has_amx_int8() ? "yes" : "no"));
#endif
  rng_t r{std::mt19937_64(41)};
  const int rows_[] = {128, 129, 143, 200, 256, 300};
  const int batches_[] = {8, 9, 15, 16, 17, 24};
  const int blocks_[] = {1, 2, 3, 4, 8, 16, 32, 63, 64};  // K / 64
  for (int iter = 0; iter < 96; ++iter) {
    const int cols = 64 * blocks_[r.uniform(0, 8)], rows = rows_[r.uniform(0, 5)], batches = batches_[r.uniform(0, 5)];
    std::vector<std::int8_t> x(static_cast<std::size_t>(batches) * static_cast<std::size_t>(cols)),
        w(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    const int ext = r.uniform(0, 3);  // 0, 1: all-extreme operands (`fill_xw`); 2, 3: random
    r.fill_xw(x, w, ext);
    std::vector<std::int32_t> bias(static_cast<std::size_t>(rows)), mult(static_cast<std::size_t>(rows)),
        shift(static_cast<std::size_t>(rows)), ksum(static_cast<std::size_t>(rows));
    for (auto& b : bias) b = r.uniform(-(1 << 20), 1 << 20);
    const bool fast = iter % 3 != 0;
    for (int i = 0; i < rows; ++i) {
      mult[static_cast<std::size_t>(i)] = r.uniform(1 << 30, INT32_MAX);
      shift[static_cast<std::size_t>(i)] = fast ? r.uniform(-24, -1) : r.uniform(-24, 3);
    }
    k::linear_s8_args a = s8_args(x, w, mult, shift, batches, cols, rows);
    std::vector<std::int8_t> wbuf;
    const int woff = weight_offsets[r.uniform(0, 5)];
    a.weights = weights_at(wbuf, w, woff);
    const int order = iter % 4;  // 0: input_offset 128, 1: 0, 2: kernel_sum, 3: Σw (input_offset −128, −1, 5 or 127)
    const int sw_offsets[] = {-128, -1, 5, 127};
    a.input_offset = order == 0 ? 128 : order == 1 ? 0 : order == 2 ? r.uniform(-64, 64) : sw_offsets[r.uniform(0, 3)];
    a.filter_offset = r.uniform(0, 2) == 0 ? r.uniform(-255, 255) : 0;
    a.output_offset = r.uniform(-128, 127);
    a.per_channel = r.uniform(0, 1) == 1;
    a.rounding = r.uniform(0, 1) ? armlower::quant::rounding::double_round : armlower::quant::rounding::single_round;
    a.bias = bias.data();
    if (order == 2) {
      REQUIRE(k::compute_kernel_sum_s8(ksum.data(), cols, rows, w.data(), a.input_offset, a.filter_offset, a.bias) == status::ok);
      a.kernel_sum = ksum.data();
    }
    std::vector<std::int8_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size(), std::int8_t{0x5A});
    a.output = ref.data();
    REQUIRE(k::linear_s8(a, k::linear_path::generic) == status::ok);
    a.output = out.data();
    REQUIRE(k::linear_s8(a) == status::ok);
    CAPTURE(batches); CAPTURE(cols); CAPTURE(rows); CAPTURE(order); CAPTURE(a.filter_offset); CAPTURE(fast); CAPTURE(ext);
    CAPTURE(woff);
    REQUIRE(out == ref);
  }
}

TEST_CASE("s16: every path == generic") {
  const auto paths = fast_paths();
  rng_t r{std::mt19937_64(12)};
  for (int iter = 0; iter < 300; ++iter) {
    const int batches = r.uniform(1, 9);
    const int cols = iter < 29 ? k_values[iter] : k_values[r.uniform(0, 28)];
    const int rows = r.uniform(1, 13);
    std::vector<std::int16_t> x(static_cast<std::size_t>(batches * cols));
    std::vector<std::int8_t> w(static_cast<std::size_t>(rows * cols));
    r.fill(x, -32768, 32767, 15);
    r.fill(w, -128, 127, 15);
    std::vector<std::int64_t> bias(static_cast<std::size_t>(rows));
    std::vector<std::int32_t> mult(static_cast<std::size_t>(rows)), shift(static_cast<std::size_t>(rows));
    for (auto& b : bias) b = static_cast<std::int64_t>(r.uniform(-(1 << 30), 1 << 30)) * r.uniform(1, 1 << 16);
    for (int i = 0; i < rows; ++i) {
      mult[static_cast<std::size_t>(i)] = r.uniform(1 << 30, INT32_MAX);
      const int sel = r.uniform(0, 4);
      shift[static_cast<std::size_t>(i)] = sel == 0 ? -47 : sel == 1 ? 14 : r.uniform(-31, 7);
    }
    k::linear_s16_args a;
    a.input = x.data();
    a.weights = w.data();
    a.bias = r.uniform(0, 2) == 0 ? nullptr : bias.data();
    a.batches = batches;
    a.cols = cols;
    a.rows = rows;
    a.multiplier = mult.data();
    a.shift = shift.data();
    a.per_channel = r.uniform(0, 1) == 1;
    a.activation_min = r.uniform(-32768, 0);
    a.activation_max = r.uniform(a.activation_min, 32767);
    std::vector<std::int16_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size());
    a.output = ref.data();
    REQUIRE(k::linear_s16(a, k::linear_path::generic) == status::ok);
    for (auto p : paths) {
      a.output = out.data();
      REQUIRE(k::linear_s16(a, p) == status::ok);
      CAPTURE(k::to_string(p)); CAPTURE(batches); CAPTURE(cols); CAPTURE(rows);
      REQUIRE(out == ref);
    }
  }
}

TEST_CASE("exactness beyond int32: K = 4096 of (-32768)·(-128) and s8 sums past 2^31") {
  // a16w8: 4096 products of 2^22 = 2^34 — CMSIS-NN's int32 phase would wrap; armlower is exact.
  const int cols = 4096;
  std::vector<std::int16_t> x(cols, -32768);
  std::vector<std::int8_t> w(cols, -128);
  const std::int32_t m = 1 << 30, s = -20;  // y = acc · 2^-21
  std::int16_t y = 0;
  k::linear_s16_args a;
  a.input = x.data(); a.weights = w.data(); a.output = &y; a.batches = 1; a.cols = cols; a.rows = 1;
  a.multiplier = &m; a.shift = &s;
  for (auto p : {k::linear_path::generic, k::linear_path::automatic}) {
    REQUIRE(k::linear_s16(a, p) == status::ok);
    CHECK(y == 8192);  // 2^34 / 2^21
  }
  // s8 with offsets: 40000 · 255 · 255 > 2^31.
  const int c8 = 40000;
  std::vector<std::int8_t> x8(c8, 127), w8(c8, 127);
  const std::int32_t m8 = 1 << 30, s8 = -24;  // y = acc / 2^25
  std::int8_t y8 = 0;
  k::linear_s8_args b;
  b.input = x8.data(); b.weights = w8.data(); b.output = &y8; b.batches = 1; b.cols = c8; b.rows = 1;
  b.input_offset = 128; b.filter_offset = 128; b.multiplier = &m8; b.shift = &s8;
  for (auto p : {k::linear_path::generic, k::linear_path::automatic}) {
    REQUIRE(k::linear_s8(b, p) == status::ok);
    CHECK(y8 == 78);  // round(2601000000 / 2^25) = round(77.52)
  }
}

TEST_CASE("s16: every path == generic across the int32 bounds (511-column reduction tree, 8160 = 255·32 pass), extreme operands") {
  // The AVX-512 VNNI a16w8 path flushes its int32 lanes every 8160 columns (255 vpdpwssd steps of at
  // most 2^23 each); these K straddle that bound with the largest products, (-32768)·(-128) = 2^22.
  const auto paths = fast_paths();
  rng_t r{std::mt19937_64(13)};
  for (const int cols : {511, 512, 1000, 1022, 8159, 8160, 8161, 16320, 16353, 20000}) {
    for (const int batches : {1, 2, 3, 4, 5, 9}) {
      const int rows = r.uniform(1, 21);
      std::vector<std::int16_t> x(static_cast<std::size_t>(batches * cols));
      std::vector<std::int8_t> w(static_cast<std::size_t>(rows * cols));
      const int mode = r.uniform(0, 2);
      for (auto& v : x) v = static_cast<std::int16_t>(mode == 0 ? -32768 : mode == 1 ? r.uniform(0, 1) ? -32768 : 32767 : r.uniform(-32768, 32767));
      for (auto& v : w) v = static_cast<std::int8_t>(mode == 0 ? -128 : mode == 1 ? r.uniform(0, 1) ? -128 : 127 : r.uniform(-128, 127));
      std::vector<std::int64_t> bias(static_cast<std::size_t>(rows));
      for (auto& b : bias) b = r.uniform(0, 4) == 0 ? (r.uniform(0, 1) ? INT64_MAX : INT64_MIN) : r.uniform(-(1 << 30), 1 << 30);
      std::vector<std::int32_t> mult(static_cast<std::size_t>(rows)), shift(static_cast<std::size_t>(rows));
      for (int i = 0; i < rows; ++i) {
        mult[static_cast<std::size_t>(i)] = r.uniform(1 << 30, INT32_MAX);
        shift[static_cast<std::size_t>(i)] = r.uniform(-47, -20);
      }
      k::linear_s16_args a;
      a.input = x.data(); a.weights = w.data(); a.bias = r.uniform(0, 3) == 0 ? nullptr : bias.data();
      a.batches = batches; a.cols = cols; a.rows = rows; a.multiplier = mult.data(); a.shift = shift.data();
      a.per_channel = r.uniform(0, 1) == 1;
      std::vector<std::int16_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size());
      a.output = ref.data();
      REQUIRE(k::linear_s16(a, k::linear_path::generic) == status::ok);
      for (auto p : paths) {
        std::fill(out.begin(), out.end(), std::int16_t{0x5A5A});
        a.output = out.data();
        REQUIRE(k::linear_s16(a, p) == status::ok);
        CAPTURE(k::to_string(p)); CAPTURE(batches); CAPTURE(cols); CAPTURE(rows); CAPTURE(mode);
        REQUIRE(out == ref);
      }
    }
  }
}

TEST_CASE("s16 AVX-512 VNNI one-batch-row planes form (no buffer): == generic across groups, tails, weight offsets, the int32 bound") {
  // `linear_s16(a, x86_avx512_vnni)` with one batch row, > 4 channels and 256 <= K <= 4096 runs `linear_s16_vnni_gemv`: the
  // input split into two int8 planes, Dl + 256·Dh combined in int32 lanes (64 steps at most: 2147450880 < 2^31 at the
  // extremes). Modes: 0 random; 1 x = -32513 (x & 255 = 255, x >> 8 = -128) and w = 127, the largest lane of Dl + 256·Dh;
  // 2 x = -32768, w = -128 (the largest product); 3 x = 32767, w = -128; 4 extremes mixed. Weights at every offset
  // past a line (the wrap step where K is a multiple of 64); K < 256 and K = 4097 take the tile kernel.
#if defined(ARMLOWER_KERNELS_HAVE_X86)
  if (!k::path_available(k::linear_path::x86_avx512_vnni)) return;
  REQUIRE(k::detail::vnni_s16g_applies(1, 5, 4096));
  REQUIRE_FALSE(k::detail::vnni_s16g_applies(1, 4, 256));
  REQUIRE_FALSE(k::detail::vnni_s16g_applies(1, 8, 255));
  REQUIRE_FALSE(k::detail::vnni_s16g_applies(2, 8, 256));
  REQUIRE_FALSE(k::detail::vnni_s16g_applies(1, 8, 4097));
  rng_t r{std::mt19937_64(14)};
  for (const int cols : {1, 63, 200, 256, 257, 320, 383, 1000, 1024, 4032, 4095, 4096, 4097}) {
    for (const int rows : {5, 7, 8, 9, 16, 17, 33}) {
      for (const int off : weight_offsets) {
        const int mode = r.uniform(0, 4);
        std::vector<std::int16_t> x(static_cast<std::size_t>(cols));
        std::vector<std::int8_t> w(static_cast<std::size_t>(rows * cols)), wbuf;
        for (auto& v : x) {
          v = static_cast<std::int16_t>(mode == 1 ? -32513 : mode == 2 ? -32768 : mode == 3 ? 32767
                                        : mode == 4 ? (r.uniform(0, 1) ? -32768 : 32767) : r.uniform(-32768, 32767));
        }
        for (auto& v : w) {
          v = static_cast<std::int8_t>(mode == 1 ? 127 : mode == 2 || mode == 3 ? -128
                                       : mode == 4 ? (r.uniform(0, 1) ? -128 : 127) : r.uniform(-128, 127));
        }
        std::vector<std::int64_t> bias(static_cast<std::size_t>(rows));
        for (auto& b : bias) b = r.uniform(0, 6) == 0 ? (r.uniform(0, 1) ? INT64_MAX : INT64_MIN) : r.uniform(-(1 << 30), 1 << 30);
        std::vector<std::int32_t> mult(static_cast<std::size_t>(rows)), shift(static_cast<std::size_t>(rows));
        for (int i = 0; i < rows; ++i) {
          mult[static_cast<std::size_t>(i)] = r.uniform(1 << 30, INT32_MAX);
          shift[static_cast<std::size_t>(i)] = mode == 0 ? r.uniform(-31, 0) : r.uniform(-47, -20);
        }
        k::linear_s16_args a;
        a.input = x.data(); a.weights = weights_at(wbuf, w, off); a.bias = r.uniform(0, 3) == 0 ? nullptr : bias.data();
        a.batches = 1; a.cols = cols; a.rows = rows; a.multiplier = mult.data(); a.shift = shift.data();
        a.per_channel = r.uniform(0, 1) == 1;
        a.activation_min = r.uniform(-32768, 0);
        a.activation_max = r.uniform(a.activation_min, 32767);
        std::vector<std::int16_t> ref(static_cast<std::size_t>(rows)), out(ref.size(), std::int16_t{0x5A5A});
        a.output = ref.data();
        REQUIRE(k::linear_s16(a, k::linear_path::generic) == status::ok);
        a.output = out.data();
        REQUIRE(k::linear_s16(a, k::linear_path::x86_avx512_vnni) == status::ok);
        CAPTURE(cols); CAPTURE(rows); CAPTURE(off); CAPTURE(mode);
        REQUIRE(out == ref);
      }
    }
  }
#endif
}

TEST_CASE("s16 AVX2 8-channel row-major form (no buffer): channel groups and tails, 496-column passes, K blocks, extremes") {
  // `detail::linear_s16_rowdot_avx2` (what `linear_s16(a, x86_avx2)` runs), called directly: groups of 8
  // channels and the 4-row kernel past them; a partial last 16-column chunk read into the next rows or
  // through the zero-padded tile (weights in vectors of exactly rows·cols bytes: ASan sees any read past
  // them); the int32 passes of 496 columns summed in int64 and the 8192-column K blocks; all-extreme
  // operands (2^22 products), bias at the ends of int64 (the scalar fallback of `store8_s16_avx2`).
#if defined(ARMLOWER_KERNELS_HAVE_X86)
  if (!k::path_available(k::linear_path::x86_avx2)) return;
  rng_t r{std::mt19937_64(14)};
  for (const int cols : {1, 3, 15, 16, 17, 100, 495, 496, 497, 992, 1000, 8192, 8193}) {
    for (const int rows : {8, 9, 15, 16, 17, 24, 31, 64}) {
      for (const int batches : {1, 2, 3}) {
        const int mode = r.uniform(0, 3);  // 0: all (-32768)·(-128); 1: ±extremes; else random
        std::vector<std::int16_t> x(static_cast<std::size_t>(batches * cols));
        std::vector<std::int8_t> w(static_cast<std::size_t>(rows * cols));
        for (auto& v : x) v = static_cast<std::int16_t>(mode == 0 ? -32768 : mode == 1 ? (r.uniform(0, 1) ? -32768 : 32767) : r.uniform(-32768, 32767));
        for (auto& v : w) v = static_cast<std::int8_t>(mode == 0 ? -128 : mode == 1 ? (r.uniform(0, 1) ? -128 : 127) : r.uniform(-128, 127));
        std::vector<std::int64_t> bias(static_cast<std::size_t>(rows));
        for (auto& b : bias) b = r.uniform(0, 5) == 0 ? (r.uniform(0, 1) ? INT64_MAX : INT64_MIN) : r.uniform(-(1 << 30), 1 << 30);
        std::vector<std::int32_t> mult(static_cast<std::size_t>(rows)), shift(static_cast<std::size_t>(rows));
        for (int i = 0; i < rows; ++i) {
          mult[static_cast<std::size_t>(i)] = r.uniform(0, 3) == 0 ? r.uniform(0, INT32_MAX) : r.uniform(1 << 30, INT32_MAX);
          shift[static_cast<std::size_t>(i)] = r.uniform(0, 3) == 0 ? r.uniform(-47, 14) : r.uniform(-30, -10);
        }
        k::linear_s16_args a;
        a.input = x.data(); a.weights = w.data(); a.bias = r.uniform(0, 3) == 0 ? nullptr : bias.data();
        a.batches = batches; a.cols = cols; a.rows = rows; a.multiplier = mult.data(); a.shift = shift.data();
        a.per_channel = r.uniform(0, 1) == 1;
        a.activation_min = r.uniform(0, 3) == 0 ? r.uniform(-32768, 0) : -32768;
        a.activation_max = r.uniform(0, 3) == 0 ? r.uniform(a.activation_min, 32767) : 32767;
        std::vector<std::int16_t> ref(static_cast<std::size_t>(batches * rows)), out(ref.size(), std::int16_t{0x5A5A});
        a.output = ref.data();
        REQUIRE(k::linear_s16(a, k::linear_path::generic) == status::ok);
        a.output = out.data();
        k::detail::linear_s16_rowdot_avx2(a);
        CAPTURE(batches); CAPTURE(cols); CAPTURE(rows); CAPTURE(mode); CAPTURE(a.per_channel); CAPTURE(a.bias != nullptr);
        REQUIRE(out == ref);
      }
    }
  }
#endif
}
