// MATMUL_T_BLOCK_SCALED:
//  - the pseudocode path against the TOSA reference model of tosa-tools 2026.8.0
//    (data/tosa_matmul_t_block_scaled.txt: CAST_TO_BLOCK_SCALED(A), (B) + MATMUL_T_BLOCK_SCALED,
//    six element types, D = 1 and D = N);
//  - every faster path against the pseudocode path: bit-identical where `bit_exact()` claims it,
//    otherwise within the TOSA dot-product bound (tosa.md §6) against an fp64 reference — and the
//    test also shows that the bound claim is not vacuous (the paths do differ bit-wise for FP8);
//  - B packed once (`pack_b`, the tiles16 layout where `best`/`avx512`/`avx2` has it): the same bits as the
//    unpacked call on the path it was packed for where that path is bit-exact, else (FP8 on tiles16)
//    within the same dot-product bound, in every case above;
//  - bad input.
// Built twice: test_mx_matmul (portable paths) and, on AVX2 hosts, test_mx_matmul_avx2.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include <armlower/kernels/mx/cast_to_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled_packed.hpp>
#include <armlower/mx.hpp>

#include "golden.hpp"

using armlower::dtype::id;
namespace mx = armlower::mx;
namespace kmx = armlower::kernels::mx;

namespace {

const id all_types[] = {id::fp8e4m3, id::fp8e5m2, id::fp6e2m3, id::fp6e3m2, id::fp4e2m1, id::mxint8};

struct operand {
  std::vector<std::uint8_t> data, scale;
  std::vector<std::int32_t> shape, scale_shape;
  kmx::block_scaled_view view() const { return {data, shape, scale, scale_shape}; }
};

operand quantized(id t, const std::vector<float>& x, std::int32_t d0, std::int32_t d1, std::int32_t c) {
  operand o;
  o.shape = {d0, d1, c};
  o.scale_shape = {d0, d1, c / 32};
  o.data.resize(mx::storage_bytes(t, x.size()));
  o.scale.resize(x.size() / 32);
  REQUIRE(kmx::cast_to_block_scaled(std::span<const float>(x), o.shape, t, o.data, o.scale) == mx::status::ok);
  return o;
}

operand random_codes(id t, std::int32_t d0, std::int32_t d1, std::int32_t c, std::mt19937& rng, bool allow_special,
                     unsigned scale_lo = 117, unsigned scale_hi = 136) {
  operand o;
  o.shape = {d0, d1, c};
  o.scale_shape = {d0, d1, c / 32};
  const std::size_t n = std::size_t(d0) * d1 * c;
  o.data.resize(mx::storage_bytes(t, n));
  o.scale.resize(n / 32);
  const auto table = mx::decode_table(t);
  mx::packed_codes_mut v(t, o.data, n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t code;
    do code = static_cast<std::uint8_t>(rng() % table.size());
    while (!allow_special && !std::isfinite(table[code]));
    v.set(i, code);
  }
  for (auto& s : o.scale) s = static_cast<std::uint8_t>(scale_lo + rng() % (scale_hi - scale_lo + 1));  // default 2^-10 .. 2^9
  return o;
}

// fp64 result and bound (Σ|a·b|·scales) per output, as the TOSA dot-product check defines them.
void fp64_reference(id t, const operand& a, const operand& b, std::vector<double>& ref, std::vector<double>& bnd) {
  const std::size_t n = a.shape[0], h = a.shape[1], w = b.shape[1], c = a.shape[2], d = b.shape[0];
  const mx::packed_codes av(t, a.data, n * h * c), bv(t, b.data, d * w * c);
  ref.assign(n * h * w, 0.0);
  bnd.assign(n * h * w, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t y = 0; y < h; ++y)
      for (std::size_t x = 0; x < w; ++x) {
        const std::size_t bi = d == 1 ? 0 : i;
        double s = 0, sb = 0;
        for (std::size_t k = 0; k < c; ++k) {
          const std::size_t ia = (i * h + y) * c + k, ib = (bi * w + x) * c + k;
          const double sc = double(mx::decode_e8m0(a.scale[ia / 32])) * double(mx::decode_e8m0(b.scale[ib / 32]));
          const double p = double(mx::decode(t, av[ia])) * double(mx::decode(t, bv[ib])) * sc;
          s += p;
          sb += std::fabs(p);
        }
        ref[(i * h + y) * w + x] = s;
        bnd[(i * h + y) * w + x] = sb;
      }
}

// TOSA dot-product accuracy check (tosa.md §6) for fp32 accumulate/output: ksb = C,
// err = (imp - ref) / max(bnd·2^-24, 2^-126); |err| ≤ 2·ksb and Σerr² ≤ 1.6·ksb·T.
bool within_dot_bound(const std::vector<float>& imp, const std::vector<double>& ref, const std::vector<double>& bnd,
                      std::size_t c) {
  double sum_sq = 0;
  for (std::size_t i = 0; i < imp.size(); ++i) {
    if (std::isnan(ref[i]) != std::isnan(double(imp[i]))) return false;
    if (std::isnan(ref[i])) continue;
    const double err = (double(imp[i]) - ref[i]) / std::max(bnd[i] * std::ldexp(1.0, -24), std::ldexp(1.0, -126));
    if (std::fabs(err) > 2.0 * double(c)) return false;
    sum_sq += err * err;
  }
  return sum_sq <= 1.6 * double(c) * double(imp.size());
}

bool bits_equal(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::bit_cast<std::uint32_t>(a[i]) == std::bit_cast<std::uint32_t>(b[i]) || (std::isnan(a[i]) && std::isnan(b[i]))))
      return false;
  return true;
}

std::vector<kmx::matmul_path> fast_paths() {
  std::vector<kmx::matmul_path> p{kmx::matmul_path::integer, kmx::matmul_path::best};
  if (kmx::arch::avx2::available) p.push_back(kmx::matmul_path::avx2);
  if (kmx::arch::avx512::available) p.push_back(kmx::matmul_path::avx512);
  return p;
}

// B packed for path p (`pack_b`) gives the same bits as the unpacked call on p (`expected`) where p is
// bit-exact or the packing is row-major, else (FP8 on tiles16: another summation order) results within
// the dot-product bound of the fp64 result `r64` (bound `bnd`, shared dimension c); only for shared
// weights (D = 1), the packing's domain.
void check_packed(id t, const operand& a, const operand& b, kmx::matmul_path p, const std::vector<float>& expected,
                  const std::vector<double>& r64, const std::vector<double>& bnd, std::size_t c) {
  if (b.shape[0] != 1) return;
  const auto w = std::size_t(b.shape[1]), k = std::size_t(b.shape[2]);
  std::vector<std::uint8_t> storage(kmx::packed_b_storage_size(t, w, k, p));
  const std::span<std::uint8_t> buf = kmx::packed_b_in(storage, t, w, k, p);
  REQUIRE(kmx::pack_b(t, b.view(), buf, p) == mx::status::ok);
  std::vector<float> out(expected.size());
  REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{buf}, out) == mx::status::ok);
  CAPTURE(int(kmx::packed_b_layout_for(t, p)));
  if (kmx::bit_exact(t, p) || kmx::packed_b_layout_for(t, p) == kmx::packed_b_layout::row_major)
    CHECK(bits_equal(out, expected));
  else
    CHECK(within_dot_bound(out, r64, bnd, c));
  // the packing is position-independent: copied to 16 mod 64 (unaligned loads), the same bits; a
  // tiles16 copy also runs the other B prefetch kind (`packed_b_prefetch_byte`)
  std::vector<std::uint8_t> moved(buf.size() + 80);
  const std::span<std::uint8_t> at16(moved.data() + armlower::kernels::detail::align64_offset(moved.data()) + 16, buf.size());
  std::copy(buf.begin(), buf.end(), at16.begin());
  if (kmx::packed_b_layout_for(t, p) == kmx::packed_b_layout::tiles16) {
    std::uint8_t& kind = at16[kmx::packed_b_prefetch_byte];
    REQUIRE(kind <= 1);
    kind = static_cast<std::uint8_t>(1 - kind);
  }
  std::vector<float> out16(expected.size());
  REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{at16}, out16) == mx::status::ok);
  CHECK(bits_equal(out16, out));
}

// The row-major AVX-512 kernels of the integer formats with each B prefetch kind (the entry runs this
// CPU's, `arch::avx512::cpu_prefetch_kind`): the same bits as `expected` (one batch, shared B).
void check_row_prefetch_kinds([[maybe_unused]] id t, [[maybe_unused]] const operand& a,
                              [[maybe_unused]] const operand& b, [[maybe_unused]] const std::vector<float>& expected) {
#if defined(ARMLOWER_MX_AVX512)
  namespace x5 = kmx::arch::avx512;
  if (a.shape[0] != 1 || b.shape[0] != 1) return;
  for (const auto kind : {x5::prefetch_kind::l2_sparse, x5::prefetch_kind::l1_lines}) {
    CAPTURE(int(kind));
    std::vector<float> out(expected.size());
    const kmx::arch::rows_args r{a.data.data(), a.scale.data(), std::size_t(a.shape[1]), b.data.data(), b.scale.data(),
                                 std::size_t(b.shape[1]), std::size_t(a.shape[2]), out.data()};
    const bool ran = armlower::dtype::with_dtype(t, [&](auto e) {
      constexpr id T = decltype(e)::value;
      if constexpr (kmx::arch::avx512::int8_rows_type(T)) {
        x5::int8_rows<T>(r, kind);
        return true;
      } else {
        return false;
      }
    });
    if (ran) CHECK(bits_equal(out, expected));
  }
#endif
}

// Every fast path against the pseudocode path for A · Bᵀ (`outputs` values, shared dimension c):
// bit-identical where `bit_exact` claims it, else within the dot-product bound of the fp64 result;
// `ref_in_bound`: the pseudocode result itself is held to the bound too (not where it overflows).
void check_fast_paths(id t, const operand& a, const operand& b, std::size_t outputs, std::size_t c, bool ref_in_bound) {
  std::vector<float> ref(outputs);
  REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
  std::vector<double> r64, bnd;
  fp64_reference(t, a, b, r64, bnd);
  if (ref_in_bound) CHECK(within_dot_bound(ref, r64, bnd, c));
  for (auto p : fast_paths()) {
    CAPTURE(int(p));
    std::vector<float> out(ref.size());
    const auto st = kmx::matmul_t_block_scaled(t, a.view(), b.view(), out, p);
    if (st == mx::status::unsupported_path) continue;
    REQUIRE(st == mx::status::ok);
    if (kmx::bit_exact(t, p)) CHECK(bits_equal(out, ref));
    else CHECK(within_dot_bound(out, r64, bnd, c));
    check_packed(t, a, b, p, out, r64, bnd, c);
    if (p == kmx::matmul_path::avx512) check_row_prefetch_kinds(t, a, b, out);
  }
}

}  // namespace

TEST_CASE("pseudocode path agrees with the TOSA reference model (CAST_TO + MATMUL_T_BLOCK_SCALED)") {
  const auto g = mx_test::read_golden("tosa_matmul_t_block_scaled.txt");
  REQUIRE(g.header.find("tosa-tools") != std::string::npos);
  int cases = 0;
  for (std::size_t li = 0; li + 3 < g.lines.size() + 1; ++li) {
    const auto& l = g.lines[li];
    if (l[0] != "matmul") continue;
    const id t = mx_test::type_of(l[1]);
    const int n = std::stoi(l[2]), h = std::stoi(l[3]), w = std::stoi(l[4]), d = std::stoi(l[5]), c = std::stoi(l[6]);
    CAPTURE(l[1]);
    CAPTURE(n);
    CAPTURE(d);
    CAPTURE(c);
    const auto a = quantized(t, mx_test::floats(g.lines[li + 1]), n, h, c);
    const auto b = quantized(t, mx_test::floats(g.lines[li + 2]), d, w, c);
    const auto want = mx_test::floats(g.lines[li + 3]);
    std::vector<float> out(std::size_t(n) * h * w);
    REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), out, kmx::matmul_path::reference) == mx::status::ok);
    CHECK(bits_equal(out, want));
    for (auto p : fast_paths()) {
      std::vector<float> o2(out.size());
      const auto st = kmx::matmul_t_block_scaled(t, a.view(), b.view(), o2, p);
      if (st == mx::status::unsupported_path) continue;
      REQUIRE(st == mx::status::ok);
      if (kmx::bit_exact(t, p)) CHECK(bits_equal(o2, want));
    }
    ++cases;
  }
  CHECK(cases == 24);
}

TEST_CASE("fast paths: bit-identical where claimed, otherwise within the dot-product bound") {
  std::mt19937 rng(4);
  struct shape {
    int n, h, w, d, c;
  };
  // 4192 = two AVX2 FP8 chunks (arch/x86_avx2.hpp `fp8_chunk`), the second with a partial 8-block group
  // of 3 blocks (an odd count: the block-pair paths end on a single block); h = 1 is the GEMV path.
  const shape shapes[] = {{1, 1, 37, 1, 1024}, {2, 3, 9, 2, 96},   {1, 8, 13, 1, 4096},
                          {3, 1, 5, 1, 32},    {1, 2, 7, 1, 4192}, {1, 1, 19, 1, 4192}};
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    bool any_fp8_difference = false;
    for (const auto& s : shapes) {
      CAPTURE(s.c);
      const auto a = random_codes(t, s.n, s.h, s.c, rng, false);
      const auto b = random_codes(t, s.d, s.w, s.c, rng, false);
      std::vector<float> ref(std::size_t(s.n) * s.h * s.w);
      REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
      std::vector<double> r64, bnd;
      fp64_reference(t, a, b, r64, bnd);
      CHECK(within_dot_bound(ref, r64, bnd, s.c));  // the pseudocode itself meets the bound
      for (auto p : fast_paths()) {
        CAPTURE(int(p));
        std::vector<float> out(ref.size());
        const auto st = kmx::matmul_t_block_scaled(t, a.view(), b.view(), out, p);
        if (t == id::fp8e5m2 && p == kmx::matmul_path::integer) {
          CHECK(st == mx::status::unsupported_path);
          continue;
        }
        REQUIRE(st == mx::status::ok);
        if (kmx::bit_exact(t, p)) {
          CHECK(bits_equal(out, ref));
        } else {
          CHECK(within_dot_bound(out, r64, bnd, s.c));
          any_fp8_difference |= !bits_equal(out, ref);
        }
        check_packed(t, a, b, p, out, r64, bnd, std::size_t(s.c));
      }
    }
    if (t == id::fp8e4m3) CHECK(any_fp8_difference);  // "within bound only" is a real distinction
  }
}

TEST_CASE("fast paths at extreme block scales: subnormal and zero scale products") {
  // E8M0 codes 0..140: scale_A·scale_B spans 2^-254 .. 2^26, so block factors underflow to fp32
  // subnormals and to zero (the fast paths' per-lane fallback), but nothing overflows.
  std::mt19937 rng(11);
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    const auto a = random_codes(t, 1, 3, 512, rng, false, 0, 140);
    const auto b = random_codes(t, 1, 21, 512, rng, false, 0, 140);
    check_fast_paths(t, a, b, std::size_t{3} * 21, 512, true);
  }
}

TEST_CASE("batch-1 GEMV at extreme block scales, NaN scale codes included") {
  // The batch-1 kernels (AVX-512 `int8_gemv`, FP6E3M2 included, and the FP8 BF16 GEMV) check the
  // exponent-built factor per block step: E8M0 codes 0..140 make scale_A·scale_B fp32 subnormals and
  // zeros, and code 0xFF (NaN) in A's block 1 and in some B rows' blocks makes those outputs NaN.
  // Tails: 37 B rows (two 16-row tiles + 5), 7 blocks (a quad + 3).
  std::mt19937 rng(23);
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    auto a = random_codes(t, 1, 1, 224, rng, false, 0, 140);
    auto b = random_codes(t, 1, 37, 224, rng, false, 0, 140);
    check_fast_paths(t, a, b, 37, 224, true);
    b.scale[3 * 7 + 2] = 255;   // B row 3, block 2
    b.scale[20 * 7 + 6] = 255;  // B row 20, the last block
    std::vector<float> ref(37);
    REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
    CHECK(std::isnan(ref[3]));
    CHECK(std::isnan(ref[20]));
    CHECK(!std::isnan(ref[4]));
    check_fast_paths(t, a, b, 37, 224, false);
    a.scale[1] = 255;  // every output NaN
    check_fast_paths(t, a, b, 37, 224, false);
  }
}

TEST_CASE("batch-1 GEMV at a 4 KiB B row stride (two block quads per row step)") {
  // AVX-512 `int8_gemv` reads two block quads per row and 4-row group where the row stride is a multiple
  // of 4 KiB (`int8_gemv_alias_stride`): one-byte codes at K 4096, FP4 at K 8192 (two chunks). Extreme
  // block scales and NaN scale codes as above; 37 B rows (two 16-row tiles + 5).
  std::mt19937 rng(29);
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    const std::int32_t c = t == id::fp4e2m1 ? 8192 : 4096;
    const std::size_t nb = std::size_t(c) / 32;
    REQUIRE(mx::storage_bytes(t, std::size_t(c)) % 4096 == 0);
    auto a = random_codes(t, 1, 1, c, rng, false, 0, 140);
    auto b = random_codes(t, 1, 37, c, rng, false, 0, 140);
    check_fast_paths(t, a, b, 37, std::size_t(c), true);
    b.scale[3 * nb + 9] = 255;        // B row 3, block 9 (second quad of a two-quad step)
    b.scale[36 * nb + nb - 1] = 255;  // B row 36 (the short tile), the last block
    check_fast_paths(t, a, b, 37, std::size_t(c), false);
  }
}

TEST_CASE("fast paths at the edges of the exponent-built scale factors") {
  // The AVX2 paths build the block factor in the exponent field when every factor of an (A row,
  // B tile) pair is a normal fp32: integer types 2^(sa + sb − 254 − us) with us = 2·int_shift (normal
  // iff 128 + us ≤ sa + sb ≤ 381), FP8 2^(sa + sb − 254 + k) with the decode's fixed k (E4M3: from
  // sa + sb = 108, E5M2: 80). With the A scale fixed and the B scale constant per 16-row tile, the
  // tiles step from 3 below to 3 above an edge, so neighbouring tiles take the built factor and the
  // decoded fallback. Integer types must stay bit-identical (incl. the overflow to ±Inf at the upper
  // edge); FP8 within the dot-product bound (lower edge only: at the upper one the data overflow).
  std::mt19937 rng(17);
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    const bool fp8 = t == id::fp8e4m3 || t == id::fp8e5m2;
    const int us = 2 * mx::format(t).int_shift;
    struct edge {
      int sa, sum;  // A scale code, sa + sb at the edge
    };
    std::vector<edge> edges{{40, fp8 ? (t == id::fp8e4m3 ? 108 : 80) : 128 + us}};
    if (!fp8) edges.push_back({200, 381});
    for (const auto& e : edges) {
      CAPTURE(e.sum);
      auto a = random_codes(t, 1, 1, 256, rng, false);
      for (auto& c : a.scale) c = static_cast<std::uint8_t>(e.sa);
      constexpr int tiles = 7, rows = 16;  // 16 rows: one AVX-512 tile, two AVX2 tiles
      auto b = random_codes(t, 1, rows * tiles, 256, rng, false);
      for (int tile = 0; tile < tiles; ++tile)
        for (int k = 0; k < rows * 8; ++k)
          b.scale[std::size_t(tile) * rows * 8 + k] = static_cast<std::uint8_t>(e.sum - e.sa + tile - 3);
      check_fast_paths(t, a, b, std::size_t{rows} * tiles, 256, false);
    }
  }
}

TEST_CASE("finite_codes: the check and the promise") {
  std::mt19937 rng(13);
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    const auto a = random_codes(t, 1, 2, 320, rng, false);
    auto b = random_codes(t, 1, 9, 320, rng, false);
    CHECK(mx::finite_codes(t, b.data));
    std::vector<float> plain(18), promised(18);
    REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), plain, kmx::matmul_path::best) == mx::status::ok);
    auto bv = b.view();
    bv.finite_codes = true;
    REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), bv, promised, kmx::matmul_path::best) == mx::status::ok);
    CHECK(bits_equal(plain, promised));  // same arithmetic, only the NaN/Inf scan is skipped
    if (mx::format(t).has_nan) {
      mx::packed_codes_mut(t, b.data, std::size_t{9} * 320).set(100, mx::format(t).nan_mag);
      CHECK_FALSE(mx::finite_codes(t, b.data));
      mx::packed_codes_mut(t, b.data, std::size_t{9} * 320).set(100, mx::format(t).max_mag | 0x80u);  // -max is finite
      CHECK(mx::finite_codes(t, b.data));
    }
  }
  CHECK_FALSE(mx::finite_codes(id::fp8e5m2, std::vector<std::uint8_t>{0x01, 0xFC}));  // -Inf
  CHECK(mx::finite_codes(id::fp4e2m1, std::vector<std::uint8_t>{0xFF, 0x77}));        // FP4 has no NaN/Inf
}

TEST_CASE("NaN and Inf propagate through every path") {
  std::mt19937 rng(7);
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    auto a = random_codes(t, 1, 2, 64, rng, false);
    auto b = random_codes(t, 1, 3, 64, rng, false);
    a.scale[1] = 0xFF;  // A row 0, block 1: NaN scale
    if (mx::format(t).has_nan) mx::packed_codes_mut(t, b.data, 192).set(64 + 5, mx::format(t).nan_mag);  // B row 1
    for (auto p : {kmx::matmul_path::reference, kmx::matmul_path::best}) {
      std::vector<float> out(6);
      REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), out, p) == mx::status::ok);
      CHECK(std::isnan(out[0]));
      CHECK(std::isnan(out[1]));
      CHECK(std::isnan(out[2]));
      CHECK(std::isnan(out[4]) == mx::format(t).has_nan);
      CHECK(!std::isnan(out[3]));
    }
  }
}

TEST_CASE("bad input: shapes and batch checked, nothing written") {
  std::mt19937 rng(9);
  const auto a = random_codes(id::fp8e4m3, 2, 4, 64, rng, false);
  const auto b = random_codes(id::fp8e4m3, 2, 8, 64, rng, false);
  std::vector<float> out(std::size_t{2} * 4 * 8, 42.0f);
  auto av = a.view(), bv = b.view();
  CHECK(kmx::matmul_t_block_scaled(id::fp8e4m3, av, bv, out) == mx::status::ok);
  std::fill(out.begin(), out.end(), 42.0f);
  const std::int32_t s_bad[3] = {2, 4, 1};
  auto v = av;
  v.scale_shape = s_bad;
  CHECK(kmx::matmul_t_block_scaled(id::fp8e4m3, v, bv, out) == mx::status::shape_mismatch);
  const std::int32_t rank2[2] = {8, 64};
  v = av;
  v.data_shape = rank2;
  CHECK(kmx::matmul_t_block_scaled(id::fp8e4m3, v, bv, out) == mx::status::bad_rank);
  const std::int32_t c48[3] = {2, 4, 48}, s48[3] = {2, 4, 1};
  v = av;
  v.data_shape = c48;
  v.scale_shape = s48;
  CHECK(kmx::matmul_t_block_scaled(id::fp8e4m3, v, bv, out) == mx::status::bad_block_dim);
  const auto b3 = random_codes(id::fp8e4m3, 3, 8, 64, rng, false);
  std::vector<float> out3(std::size_t{2} * 4 * 8);
  CHECK(kmx::matmul_t_block_scaled(id::fp8e4m3, av, b3.view(), out3) == mx::status::bad_batch);
  const auto b32 = random_codes(id::fp8e4m3, 2, 8, 32, rng, false);
  CHECK(kmx::matmul_t_block_scaled(id::fp8e4m3, av, b32.view(), out) == mx::status::shape_mismatch);
  CHECK(kmx::matmul_t_block_scaled(id::fp8e4m3, av, bv, std::span<float>(out.data(), 10)) == mx::status::buffer_size);
  CHECK(kmx::matmul_t_block_scaled(id::bf16, av, bv, out) == mx::status::unsupported_type);
  CHECK(kmx::matmul_t_block_scaled(id::fp4e2m1, av, bv, out) == mx::status::buffer_size);  // FP4 is packed
  for (float o : out) CHECK(o == 42.0f);
  // D = 1 broadcasts B over the batch
  const auto b1 = random_codes(id::fp8e4m3, 1, 8, 64, rng, false);
  REQUIRE(kmx::matmul_t_block_scaled(id::fp8e4m3, av, b1.view(), out) == mx::status::ok);
}

TEST_CASE("compile-time element type entry: the same results and errors as the run-time one") {
  // The run-time entry is dtype::with_dtype over the compile-time one's row kernels; a firmware
  // caller with a compile-time element type calls matmul_t_block_scaled<E> and gets only E's.
  std::mt19937 rng(12);
  auto check_type = [&](auto e) {
    constexpr id t = decltype(e)::value;
    CAPTURE(armlower::dtype::name(t));
    const auto a = random_codes(t, 2, 3, 96, rng, false);
    const auto b = random_codes(t, 1, 5, 96, rng, false);
    for (auto p : {kmx::matmul_path::reference, kmx::matmul_path::best}) {
      std::vector<float> rt(std::size_t{2} * 3 * 5), ct(rt.size());
      REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), rt, p) == mx::status::ok);
      REQUIRE(kmx::matmul_t_block_scaled<t>(a.view(), b.view(), ct, p) == mx::status::ok);
      CHECK(bits_equal(ct, rt));
      std::vector<double> r64, bnd;
      fp64_reference(t, a, b, r64, bnd);
      CHECK(within_dot_bound(ct, r64, bnd, 96));
    }
    std::vector<float> small(3);
    CHECK(kmx::matmul_t_block_scaled<t>(a.view(), b.view(), small) == mx::status::buffer_size);
    auto bad = b.view();
    const std::int32_t rank2[2] = {5, 96};
    bad.data_shape = rank2;
    std::vector<float> out(std::size_t{2} * 3 * 5);
    CHECK(kmx::matmul_t_block_scaled<t>(a.view(), bad, out) == kmx::matmul_t_block_scaled(t, a.view(), bad, out));
  };
  check_type(armlower::dtype::fp4e2m1);
  check_type(armlower::dtype::fp6e2m3);
  check_type(armlower::dtype::fp6e3m2);
  check_type(armlower::dtype::fp8e4m3);
  check_type(armlower::dtype::fp8e5m2);
  check_type(armlower::dtype::mxint8);
}

TEST_CASE("batch-1 GEMV and the AVX-512 FP8 BF16 kernel: tails, block pairs, subnormal codes, NaN/Inf") {
  // The AVX-512 batch-1 kernels step 4 blocks per row in tiles of 16 B rows (`int8_gemv`) or 2 blocks
  // per row in groups of 4 rows (FP8 `fp8_bf16_rows`): row counts that are no multiple of either,
  // block counts 1, 3, 5, 6 and 131 (one full A chunk of 128 blocks + 3), against the pseudocode.
  std::mt19937 rng(21);
  const int widths[] = {1, 5, 16, 37};
  const int ks[] = {32, 96, 160, 192, 4192};
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    for (int w : widths)
      for (int c : ks) {
        CAPTURE(w);
        CAPTURE(c);
        const auto a = random_codes(t, 1, 1, c, rng, false);
        const auto b = random_codes(t, 1, w, c, rng, false);
        check_fast_paths(t, a, b, std::size_t(w), std::size_t(c), true);
      }
  }
  // Overflow edge of the scale product with zero block sums: sa + sb ≥ 382 makes scale_A · scale_B
  // +Inf in the pseudocode, so a zero block sum gives NaN there (0 · Inf), not 0. A's block 1 is
  // all zeros; the B tile scales step across the edge. Bit-identical types only (FP8 overflows data).
  for (id t : {id::fp4e2m1, id::fp6e2m3, id::fp6e3m2, id::mxint8}) {
    CAPTURE(armlower::dtype::name(t));
    auto a = random_codes(t, 1, 1, 128, rng, false);
    mx::packed_codes_mut av(t, a.data, 128);
    for (int k = 32; k < 64; ++k) av.set(std::size_t(k), 0);
    for (auto& s : a.scale) s = 200;
    auto b = random_codes(t, 1, 20, 128, rng, false);
    for (int row = 0; row < 20; ++row)
      for (int g = 0; g < 4; ++g) b.scale[std::size_t(row) * 4 + g] = static_cast<std::uint8_t>(170 + row % 16);
    std::vector<float> ref(20);
    REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
    CHECK(std::isnan(ref[14]));  // the case is not vacuous: sa + sb = 384 → NaN
    CHECK(!std::isnan(ref[0]));    // sa + sb = 370: finite
    for (auto p : fast_paths()) {
      CAPTURE(int(p));
      std::vector<float> out(20);
      REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), out, p) == mx::status::ok);
      CHECK(bits_equal(out, ref));
    }
  }
  // FP8: blocks of subnormal codes only (E4M3 0x01..0x07, E5M2 0x01..0x03, either sign) — exact BF16
  // normals in the BF16 kernel — in either block of a pair, and NaN/±Inf codes (E5M2 ±Inf, NaN; E4M3
  // NaN) in A or in B, in the first or the second block of a pair: the NaN/±Inf class of every
  // output as the pseudocode's, finite outputs within the dot-product bound.
  for (id t : {id::fp8e4m3, id::fp8e5m2}) {
    CAPTURE(armlower::dtype::name(t));
    const bool e4 = t == id::fp8e4m3;
    const std::uint8_t sub_max = e4 ? 0x07 : 0x03;
    for (int half = 0; half < 2; ++half) {
      CAPTURE(half);
      auto a = random_codes(t, 1, 1, 128, rng, false);
      auto b = random_codes(t, 1, 9, 128, rng, false);
      for (int k = 0; k < 32; ++k) {  // block `half` of A and of every B row: subnormal codes only
        a.data[std::size_t{32} * std::size_t(half) + std::size_t(k)] = static_cast<std::uint8_t>((1 + rng() % sub_max) | (rng() % 2 ? 0x80 : 0));
        for (int row = 0; row < 9; ++row)
          b.data[std::size_t(row) * 128 + std::size_t{32} * std::size_t(half) + std::size_t(k)] =
              static_cast<std::uint8_t>((1 + rng() % sub_max) | (rng() % 2 ? 0x80 : 0));
      }
      // A's elements that meet B's ±Inf below: positive (the smallest subnormal), so the pseudocode's
      // classes do not depend on random signs (row 4: +Inf + −Inf = NaN, rows 2, 3: ±Inf)
      for (int k : {32 * half + 4, 32 * half + 5, 32 * half + 6, 32 * (2 + half) + 7}) a.data[std::size_t(k)] = 0x01;
      check_fast_paths(t, a, b, 9, 128, true);
      // specials: B row 1 NaN, row 2 +Inf, row 3 −Inf and row 4 +Inf and −Inf (E5M2; E4M3 NaN only),
      // A element in block 2 + half: NaN for A·row 5 .. only through A (every output NaN then)
      const std::uint8_t nan = e4 ? 0x7F : 0x7E, pinf = 0x7C, ninf = 0xFC;
      auto bs = b;
      bs.data[128 + 32 * half + 3] = nan;
      if (!e4) {
        bs.data[256 + 32 * half + 4] = pinf;
        bs.data[384 + 32 * half + 5] = ninf;
        bs.data[512 + 32 * half + 6] = pinf;
        bs.data[512 + 32 * (2 + half) + 7] = ninf;
      }
      std::vector<float> ref(9);
      REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), bs.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
      CHECK(std::isnan(ref[1]));
      if (!e4) {
        CHECK(std::isinf(ref[2]));
        CHECK(std::isinf(ref[3]));
        CHECK(std::isnan(ref[4]));
      }
      auto as = a;
      as.data[std::size_t{32} * std::size_t(2 + half) + 1] = nan;
      std::vector<float> ref_a(9);
      REQUIRE(kmx::matmul_t_block_scaled(t, as.view(), b.view(), ref_a, kmx::matmul_path::reference) == mx::status::ok);
      for (auto p : fast_paths()) {
        CAPTURE(int(p));
        if (t == id::fp8e5m2 && p == kmx::matmul_path::integer) continue;
        std::vector<float> out(9), out_a(9);
        REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), bs.view(), out, p) == mx::status::ok);
        REQUIRE(kmx::matmul_t_block_scaled(t, as.view(), b.view(), out_a, p) == mx::status::ok);
        for (std::size_t o = 0; o < 9; ++o) {
          CAPTURE(o);
          CHECK(std::isnan(out[o]) == std::isnan(ref[o]));
          CHECK(std::isinf(out[o]) == std::isinf(ref[o]));
          if (std::isinf(ref[o])) CHECK(out[o] == ref[o]);
          CHECK(std::isnan(out_a[o]));
          CHECK(std::isnan(ref_a[o]));
        }
      }
    }
  }
}

TEST_CASE("FP8 GEMV on AMX-BF16: shift decode, subnormal products, NaN/Inf rows, extreme scales") {
  // `arch::amx::fp8_gemv` (one A row, K 128..4096, ≥ 64 B rows; the entry's avx512 / best path takes it
  // where the CPU has AMX-BF16) decodes B by shifts: B's subnormal codes become BF16 denormals the tiles
  // read as zero and are added back per row and block pair; NaN/Inf rows go to the exact-decode kernel.
  // Called directly here (so the case fails if the kernel does not run), against the fp64 reference
  // within the dot-product bound, NaN/Inf classes as the pseudocode's. Shapes: 64, 77 (four 16-row groups
  // + 13 rows for `fp8_bf16_rows`) and 96 B rows; 4, 5 (an odd pair, one C window), 32, 127 (a partial last
  // window ending on one block) and 128 blocks (the largest K). Data: quantized normal values (subnormal
  // codes rare), random codes (subnormals in most rows and block pairs), the same with no subnormal at all,
  // and E8M0 scales 0..140 with NaN scale codes (factors that are fp32 subnormals, zeros, NaN).
#if defined(ARMLOWER_MX_AMX_FP8)
  namespace amx = kmx::arch::amx;
  if (!armlower::kernels::detail::x86_has_amx_bf16()) {
    MESSAGE("AMX-BF16 not available: the FP8 AMX GEMV is not run on this CPU");
    return;
  }
  std::mt19937 rng(31);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (id t : {id::fp8e4m3, id::fp8e5m2}) {
    CAPTURE(armlower::dtype::name(t));
    const bool e4 = t == id::fp8e4m3;
    for (int w : {64, 77, 96})
      for (int c : {128, 160, 1024, 4096, 4064})
        for (int data = 0; data < 4; ++data) {
          CAPTURE(w);
          CAPTURE(c);
          CAPTURE(data);
          operand a, b;
          if (data == 0) {  // quantized normal values
            std::vector<float> xa(static_cast<std::size_t>(c)), xb(static_cast<std::size_t>(w) * static_cast<std::size_t>(c));
            for (auto& x : xa) x = normal(rng);
            for (auto& x : xb) x = normal(rng);
            a = quantized(t, xa, 1, 1, c);
            b = quantized(t, xb, 1, w, c);
          } else {
            a = random_codes(t, 1, 1, c, rng, false, data == 3 ? 0 : 117, data == 3 ? 140 : 136);
            b = random_codes(t, 1, w, c, rng, false, data == 3 ? 0 : 117, data == 3 ? 140 : 136);
          }
          if (data == 2)  // no subnormal code in B: every product on the tiles
            for (auto& code : b.data)
              if ((code & (e4 ? 0x78 : 0x7C)) == 0) code &= 0x80;
          if (data == 3) {
            b.scale[std::size_t(3) * std::size_t(c / 32) + 1] = 255;  // B row 3: NaN
            a.scale[std::size_t(c / 32) - 1] = c == 160 ? 255 : a.scale[std::size_t(c / 32) - 1];  // K 160: all NaN
          }
          const kmx::arch::rows_args r{a.data.data(), a.scale.data(), 1, b.data.data(), b.scale.data(), std::size_t(w),
                                       std::size_t(c), nullptr};
          REQUIRE(amx::fp8_gemv_applies(r));
          std::vector<float> out(static_cast<std::size_t>(w), -1.0f), ref(static_cast<std::size_t>(w));
          kmx::arch::rows_args ro = r;
          ro.out = out.data();
          armlower::dtype::with_dtype(t, [&](auto e) {
            constexpr id T = decltype(e)::value;
            if constexpr (T == id::fp8e4m3 || T == id::fp8e5m2) amx::fp8_gemv<T>(ro);
          });
          REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
          std::vector<double> r64, bnd;
          fp64_reference(t, a, b, r64, bnd);
          CHECK(within_dot_bound(out, r64, bnd, std::size_t(c)));
          for (std::size_t o = 0; o < out.size(); ++o) {
            CAPTURE(o);
            CHECK(std::isnan(out[o]) == std::isnan(ref[o]));
            CHECK(std::isinf(out[o]) == std::isinf(ref[o]));
          }
          // the entry takes the same kernel on its avx512 and best paths: the same bits
          std::vector<float> via(static_cast<std::size_t>(w));
          REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), via, kmx::matmul_path::avx512) == mx::status::ok);
          CHECK(bits_equal(via, out));
        }
    // NaN / ±Inf codes: B row 17 (second tile) NaN, row 18 +Inf (E5M2), row 40 (third tile) −Inf; then A NaN
    std::vector<float> xa(512), xb(std::size_t{64} * 512);
    for (auto& x : xa) x = normal(rng);
    for (auto& x : xb) x = normal(rng);
    const auto a = quantized(t, xa, 1, 1, 512);
    auto b = quantized(t, xb, 1, 64, 512);
    b.data[17 * 512 + 100] = e4 ? 0x7F : 0x7E;
    if (!e4) {
      b.data[18 * 512 + 3] = 0x7C;
      b.data[40 * 512 + 511] = 0xFC;
    }
    auto as = a;
    as.data[200] = e4 ? 0xFF : 0xFE;
    for (const operand* av : std::array<const operand*, 2>{&a, &as}) {
      std::vector<float> out(64), ref(64);
      const kmx::arch::rows_args r{av->data.data(), av->scale.data(), 1, b.data.data(), b.scale.data(), 64, 512, out.data()};
      REQUIRE(amx::fp8_gemv_applies(r));
      armlower::dtype::with_dtype(t, [&](auto e) {
        constexpr id T = decltype(e)::value;
        if constexpr (T == id::fp8e4m3 || T == id::fp8e5m2) amx::fp8_gemv<T>(r);
      });
      REQUIRE(kmx::matmul_t_block_scaled(t, av->view(), b.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
      CHECK(std::isnan(ref[17]));
      std::vector<double> r64, bnd;
      fp64_reference(t, *av, b, r64, bnd);
      std::vector<float> fin;  // the finite outputs within the bound (it has no meaning for ±Inf)
      std::vector<double> fin64, fin_bnd;
      for (std::size_t o = 0; o < 64; ++o)
        if (std::isfinite(ref[o])) {
          fin.push_back(out[o]);
          fin64.push_back(r64[o]);
          fin_bnd.push_back(bnd[o]);
        }
      CHECK(within_dot_bound(fin, fin64, fin_bnd, 512));
      for (std::size_t o = 0; o < 64; ++o) {
        CAPTURE(o);
        CHECK(std::isnan(out[o]) == std::isnan(ref[o]));
        CHECK(std::isinf(out[o]) == std::isinf(ref[o]));
        if (std::isinf(ref[o])) CHECK(out[o] == ref[o]);
      }
    }
  }
#else
  MESSAGE("the FP8 AMX GEMV is not compiled into this test (no AVX-512 BF16 or no AMX build)");
#endif
}

TEST_CASE("packed B (tiles16): random layers against the pseudocode") {
  // tiles16_rows: 16-row tiles (w 1..70: short last tiles), 4-block steps and single-block tails,
  // A rows in groups of 4 (h 1..9), N = 1..2 over one B, K up to 5 chunks of 4096 columns; scale codes
  // near 127 (every factor built in the exponent field), anywhere in 0..254 (per-block checked
  // factors: subnormal, zero and overflowing products; FP8 0..135, where the fp64 bound still applies)
  // and with NaN codes; FP6 codes with their two unused high bits set (ignored, as every path ignores
  // them). Bit for bit against the pseudocode where the path is exact; FP8 within the dot-product bound,
  // with B's codes either all normal or zero (every block tile on the shift decode) or drawn from every
  // finite code (subnormals: block tiles decoded by table), and NaN codes in A or B now and then.
  std::mt19937 rng(31);
  for (id t : {id::mxint8, id::fp6e2m3, id::fp4e2m1, id::fp6e3m2, id::fp8e4m3, id::fp8e5m2}) {
    CAPTURE(armlower::dtype::name(t));
    const bool fp8 = t == id::fp8e4m3 || t == id::fp8e5m2;
    const auto& f = mx::format(t);
    for (int it = 0; it < 40; ++it) {
      const int n = 1 + int(rng() % 2), h = 1 + int(rng() % 9), w = 1 + int(rng() % 70);
      const int c = it % 8 == 7 ? 32 * (128 + int(rng() % 520)) : 32 * (1 + int(rng() % 24));
      CAPTURE(n);
      CAPTURE(h);
      CAPTURE(w);
      CAPTURE(c);
      const bool wide = it % 3 == 1;
      const unsigned hi_code = fp8 ? 135 : 254;
      auto a = random_codes(t, n, h, c, rng, false, wide ? 0 : 117, wide ? hi_code : 136);
      auto b = random_codes(t, 1, w, c, rng, false, wide ? 0 : 117, wide ? hi_code : 136);
      if (it % 3 == 2) {
        a.scale[rng() % a.scale.size()] = 255;
        b.scale[rng() % b.scale.size()] = 255;
      }
      if ((t == id::fp6e2m3 || t == id::fp6e3m2) && it % 2 == 0)
        for (auto& x : b.data) x = static_cast<std::uint8_t>(x | (rng() % 4) << 6);
      if (fp8 && it % 2 == 0)  // no subnormal B codes: the shift decode everywhere (unless a NaN goes in below)
        for (auto& x : b.data)
          if ((x & 0x7F) >> f.mbits == 0) x = static_cast<std::uint8_t>(x & 0x80);
      if (fp8 && it % 5 == 4) (rng() % 2 ? a : b).data[rng() % 32] = static_cast<std::uint8_t>(f.nan_mag | 0x80);
      std::vector<float> ref(std::size_t(n) * h * w), out(ref.size(), 42.0f);
      REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
      // `best` (AVX-512: its tiles16 kernel where the build has it) and `avx2` (its tiles16 kernel for the
      // integer types, the layout `best` packs on AVX2-only CPUs)
      for (const kmx::matmul_path p : {kmx::matmul_path::best, kmx::matmul_path::avx2}) {
        if (!kmx::path_available(t, p)) continue;
        CAPTURE(int(p));
        std::vector<std::uint8_t> buf(kmx::packed_b_size(t, std::size_t(w), std::size_t(c), p));
        REQUIRE(kmx::pack_b(t, b.view(), buf, p) == mx::status::ok);
        std::fill(out.begin(), out.end(), 42.0f);
        REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{buf}, out) == mx::status::ok);
        if (kmx::bit_exact(t, p)) {
          CHECK(bits_equal(out, ref));
        } else {
          std::vector<double> r64, bnd;
          fp64_reference(t, a, b, r64, bnd);
          CHECK(within_dot_bound(out, r64, bnd, std::size_t(c)));
        }
      }
    }
  }
}

TEST_CASE("packed B: layouts, sizes and errors") {
  std::mt19937 rng(37);
  for (id t : all_types) {
    CAPTURE(armlower::dtype::name(t));
    const bool tiles = kmx::arch::avx512::tiles16_runs(t);
    CHECK(tiles == (kmx::arch::avx512::available &&
                    (t == id::mxint8 || t == id::fp6e2m3 || t == id::fp4e2m1 || kmx::arch::avx512::bf16)));
    CHECK((kmx::packed_b_layout_for(t, kmx::matmul_path::avx512) == kmx::packed_b_layout::tiles16) == tiles);
    const bool tiles2 = kmx::arch::avx2::tiles16_runs(t);
    CHECK(tiles2 == (kmx::arch::avx2::available && (t == id::mxint8 || t == id::fp6e2m3 || t == id::fp4e2m1)));
    CHECK((kmx::packed_b_layout_for(t, kmx::matmul_path::avx2) == kmx::packed_b_layout::tiles16) == tiles2);
    CHECK(kmx::packed_b_layout_for(t, kmx::matmul_path::reference) == kmx::packed_b_layout::row_major);
    // row-major: header + codes + scales; tiles16: 16-row tiles (+ the per-tile scale range, + per tile
    // and block a special-code flag for the FP8-coded types)
    const std::size_t rm = kmx::packed_b_header_bytes + mx::storage_bytes(t, std::size_t{20} * 64) + std::size_t{20} * 2;
    CHECK(kmx::packed_b_size(t, 20, 64, kmx::matmul_path::reference) == rm);
    if (tiles)
      CHECK(kmx::packed_b_size(t, 20, 64, kmx::matmul_path::avx512) ==
            kmx::packed_b_header_bytes + mx::storage_bytes(t, std::size_t{32} * 64) + std::size_t{32} * 2 + std::size_t{2} * 2 +
                (kmx::detail::tiles16_bf16_type(t) ? std::size_t{2} * 2 : 0));
    CHECK(kmx::packed_b_size(t, 20, 48) == 0);
    CHECK(kmx::packed_b_size(t, 0, 64) == 0);
    CHECK(kmx::packed_b_size(t, std::numeric_limits<std::size_t>::max() / 64, 64) == 0);  // not addressable
  }
  CHECK(kmx::packed_b_size(id::bf16, 20, 64) == 0);
  // storage for a packing at a 64-byte boundary (`packed_b_in`): 64 bytes more, wherever it starts
  for (const id t : all_types) {
    const std::size_t n = kmx::packed_b_size(t, 20, 64);
    CHECK(kmx::packed_b_storage_size(t, 20, 64) == n + 64);
    CHECK(kmx::packed_b_storage_size(t, 20, 48) == 0);
    std::vector<std::uint8_t> storage(n + 64 + 63);
    for (std::size_t off = 0; off < 64; ++off) {
      const std::span<std::uint8_t> s(storage.data() + off, n + 64);
      const auto in = kmx::packed_b_in(s, t, 20, 64);
      CHECK(reinterpret_cast<std::uintptr_t>(in.data()) % 64 == 0);
      CHECK(in.size() == n);
      CHECK((in.data() >= s.data() && in.data() + in.size() <= s.data() + s.size()));
      CHECK(kmx::packed_b_in(s.first(n + 63), t, 20, 64).empty());  // shorter than the storage size
    }
    CHECK(kmx::packed_b_in(storage, t, 20, 48).empty());
  }

  const id t = id::mxint8;
  const auto a = random_codes(t, 1, 3, 64, rng, false);
  const auto b = random_codes(t, 1, 20, 64, rng, false);
  std::vector<std::uint8_t> buf(kmx::packed_b_size(t, 20, 64), 0xAB);
  // too small: scratch_too_small, nothing written
  CHECK(kmx::pack_b(t, b.view(), std::span<std::uint8_t>(buf.data(), buf.size() - 1)) == mx::status::scratch_too_small);
  for (auto x : buf) CHECK(x == 0xAB);
  CHECK(kmx::pack_b(id::bf16, b.view(), buf) == mx::status::unsupported_type);
  const auto b2 = random_codes(t, 2, 20, 64, rng, false);
  CHECK(kmx::pack_b(t, b2.view(), buf) == mx::status::bad_batch);
  if (!kmx::arch::avx512::available) CHECK(kmx::pack_b(t, b.view(), buf, kmx::matmul_path::avx512) == mx::status::unsupported_path);
  CHECK(kmx::pack_b(t, b.view(), buf, static_cast<kmx::matmul_path>(99)) == mx::status::unsupported_path);
  REQUIRE(kmx::pack_b(t, b.view(), buf) == mx::status::ok);
  std::vector<float> out(std::size_t{3} * 20, 42.0f);
  const kmx::packed_b_view pv{buf};
  CHECK(kmx::matmul_t_block_scaled(id::fp6e2m3, a.view(), pv, out) == mx::status::shape_mismatch);  // other type
  const auto a32 = random_codes(t, 1, 3, 32, rng, false);
  CHECK(kmx::matmul_t_block_scaled(t, a32.view(), pv, out) == mx::status::shape_mismatch);  // C differs
  CHECK(kmx::matmul_t_block_scaled(t, a.view(), pv, std::span<float>(out.data(), 59)) == mx::status::buffer_size);
  CHECK(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{std::span<const std::uint8_t>(buf).first(buf.size() - 1)}, out) ==
        mx::status::shape_mismatch);  // truncated
  auto bad = buf;
  bad[0] = 'X';  // not a packing
  CHECK(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{bad}, out) == mx::status::shape_mismatch);
  bad = buf;
  bad[8] = 40;  // W no longer matches the size
  CHECK(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{bad}, out) == mx::status::shape_mismatch);
  bad = buf;
  bad[4] = 7;  // no layout
  CHECK(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{bad}, out) == mx::status::shape_mismatch);
  bad = buf;
  bad[kmx::packed_b_prefetch_byte] = 2;  // no B prefetch kind
  CHECK(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{bad}, out) == mx::status::shape_mismatch);
  for (float o : out) CHECK(o == 42.0f);
  // a row-major packing keeps finite_codes and runs its path
  auto bv = b.view();
  bv.finite_codes = true;
  std::vector<std::uint8_t> rm(kmx::packed_b_size(t, 20, 64, kmx::matmul_path::reference));
  REQUIRE(kmx::pack_b(t, bv, rm, kmx::matmul_path::reference) == mx::status::ok);
  CHECK(rm[7] == 1);
  std::vector<float> ref(std::size_t{3} * 20);
  REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), b.view(), ref, kmx::matmul_path::reference) == mx::status::ok);
  REQUIRE(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{rm}, out) == mx::status::ok);
  CHECK(bits_equal(out, ref));
}
