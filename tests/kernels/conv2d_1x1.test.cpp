// The int8 1×1 CONV2D fast path of `kernels::conv2d` (what the TOSA interpreter runs for the TOSA
// form of a linear layer) against the TOSA 1.0 CONV2D pseudocode (`operators/CONV2D.tosac`) written
// out in the test: acc = Σ (in − input_zp)·(w − weight_zp) in int64, REQUIRE acc and acc + bias in
// int32. Random shapes (IC tails not multiple of 64, OC not multiple of 4/8, M = N·H·W 1..23 so every
// tile height and remainder runs, and 61..96 across the 64-row blocks), zero points over the whole int8 range, per-channel and broadcast
// bias, and both REQUIRE failures. Every available path: AVX-512 VNNI (natively, or through SIMDe
// in test_kernels_linear_avx512_simde), AVX2, automatic, and the packed form (`kernels/conv2d_packed.hpp`)
// in each layout this CPU runs (AVX-512 VNNI panels; AVX2 column pairs, forced with `linear_path::x86_avx2`).
#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/conv2d_packed.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace k = armlower::kernels;
using armlower::status;

namespace {

struct ref_result {
  status st = status::ok;
  std::vector<std::int32_t> out;
};

ref_result reference(const k::conv2d_shape& s, const std::vector<std::int8_t>& x, const std::vector<std::int8_t>& w,
                     const std::vector<std::int32_t>& bias, int izp, int wzp) {
  ref_result r;
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  r.out.resize(static_cast<std::size_t>(m * s.oc));
  for (std::int64_t p = 0; p < m; ++p) {
    for (int o = 0; o < s.oc; ++o) {
      std::int64_t acc = 0;
      for (int c = 0; c < s.ic; ++c) {
        acc += std::int64_t{x[static_cast<std::size_t>(p * s.ic + c)] - izp} *
               (w[static_cast<std::size_t>(std::int64_t{o} * s.ic + c)] - wzp);
      }
      if (acc < INT32_MIN || acc > INT32_MAX) return {status::value_out_of_range, {}};
      const std::int64_t y = acc + bias[static_cast<std::size_t>(s.bias_size == 1 ? 0 : o)];
      if (y < INT32_MIN || y > INT32_MAX) return {status::value_out_of_range, {}};
      r.out[static_cast<std::size_t>(p * s.oc + o)] = static_cast<std::int32_t>(y);
    }
  }
  return r;
}

void check_all_paths(const k::conv2d_shape& s, const std::vector<std::int8_t>& x, const std::vector<std::int8_t>& w,
                     const std::vector<std::int32_t>& bias, int izp, int wzp) {
  const ref_result ref = reference(s, x, w, bias, izp, wzp);
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  CAPTURE(s.n); CAPTURE(s.ih); CAPTURE(s.iw); CAPTURE(s.ic); CAPTURE(s.oc); CAPTURE(s.bias_size);
  CAPTURE(izp); CAPTURE(wzp);
  for (const auto p : {k::linear_path::automatic, k::linear_path::x86_avx512_vnni, k::linear_path::x86_avx2}) {
    CAPTURE(k::to_string(p));
    std::vector<std::int32_t> out(static_cast<std::size_t>(m * s.oc), 0x5A5A5A5A);
    const status st = k::detail::conv2d_1x1_s8(s, x.data(), w.data(), bias.data(), static_cast<std::int8_t>(izp),
                                               static_cast<std::int8_t>(wzp), out.data(), p);
    REQUIRE(st == ref.st);
    if (st == status::ok) REQUIRE(out == ref.out);
  }
  // packed once (`pack_conv2d_1x1_s8`), run by `conv2d_1x1_s8_packed`: the layout `automatic` picks, and each
  // layout forced (AVX2 column pairs, AVX-512 VNNI panels) where this CPU runs it
  for (const auto p : {k::linear_path::automatic, k::linear_path::x86_avx2, k::linear_path::x86_avx512_vnni}) {
    if (!k::conv2d_1x1_s8_packed_native(p)) continue;
    CAPTURE(k::to_string(p));
    std::vector<std::uint8_t> buf(k::conv2d_1x1_s8_packed_size(s.oc, s.ic) + 8);
    REQUIRE(k::pack_conv2d_1x1_s8(s, w.data(), static_cast<std::int8_t>(izp), static_cast<std::int8_t>(wzp), buf.data(),
                                  buf.size(), p) == status::ok);
    std::vector<std::int32_t> out(static_cast<std::size_t>(m * s.oc), 0x5A5A5A5A);
    const status st = k::conv2d_1x1_s8_packed(s, x.data(), buf.data(), buf.size(), bias.data(),
                                              static_cast<std::int8_t>(izp), static_cast<std::int8_t>(wzp), out.data(), p);
    REQUIRE(st == ref.st);
    if (st == status::ok) REQUIRE(out == ref.out);
    // the same call checked once (`plan_conv2d_1x1_s8_packed`) and run twice: the pseudocode's result each time
    k::conv2d_1x1_s8_packed_plan plan;
    REQUIRE(k::plan_conv2d_1x1_s8_packed(s, buf.data(), buf.size(), bias.data(), static_cast<std::int8_t>(izp),
                                         static_cast<std::int8_t>(wzp), plan, p) == status::ok);
    for (int run = 0; run < 2; ++run) {
      std::fill(out.begin(), out.end(), 0x5A5A5A5A);
      REQUIRE(k::conv2d_1x1_s8_packed(plan, x.data(), out.data()) == ref.st);
      if (ref.st == status::ok) REQUIRE(out == ref.out);
    }
    // packed for other zero points: refused by name, not misread
    CHECK(k::conv2d_1x1_s8_packed(s, x.data(), buf.data(), buf.size(), bias.data(), static_cast<std::int8_t>(izp ^ 1),
                                  static_cast<std::int8_t>(wzp), out.data(), p) == status::zero_point_out_of_range);
  }
  // the public entry point
  std::vector<std::int32_t> out(static_cast<std::size_t>(m * s.oc), 0x5A5A5A5A);
  const status st = k::conv2d<std::int8_t, std::int8_t, std::int32_t>(
      s, x.data(), w.data(), bias.data(), static_cast<std::int8_t>(izp), static_cast<std::int8_t>(wzp), out.data());
  REQUIRE(st == ref.st);
  if (st == status::ok) REQUIRE(out == ref.out);
}

}  // namespace

TEST_CASE("CONV2D int8 1x1 fast path == TOSA pseudocode (random shapes, zero points, bias, every path)") {
  std::mt19937_64 g(1401);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const int ics[] = {1, 3, 4, 5, 16, 63, 64, 65, 100, 255, 256, 257, 1000};
  for (int iter = 0; iter < 300; ++iter) {
    k::conv2d_shape s;
    s.n = uni(1, 3);
    s.ih = uni(1, 3);
    s.iw = iter < 23 ? 1 : uni(1, 4);
    if (iter < 23) { s.n = iter + 1; s.ih = 1; }
    if (iter >= 23 && iter < 29) { s.n = 1; s.ih = 1; s.iw = 61 + 7 * (iter - 23); }  // batch blocks of 64 rows
    s.ic = ics[uni(0, 12)];
    s.oc = uni(0, 2) == 0 ? uni(1, 5) : uni(6, 70);
    s.bias_size = uni(0, 3) == 0 ? 1 : s.oc;
    const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
    std::vector<std::int8_t> x(static_cast<std::size_t>(m * s.ic)), w(static_cast<std::size_t>(s.oc) * static_cast<std::size_t>(s.ic));
    const bool extreme = uni(0, 4) == 0;
    for (auto& e : x) e = static_cast<std::int8_t>(extreme ? (uni(0, 1) ? 127 : -128) : uni(-128, 127));
    for (auto& e : w) e = static_cast<std::int8_t>(extreme ? (uni(0, 1) ? 127 : -128) : uni(-128, 127));
    std::vector<std::int32_t> bias(static_cast<std::size_t>(s.bias_size));
    for (auto& e : bias) e = uni(-1000000, 1000000);
    const int zsel = uni(0, 4);
    const int izp = zsel == 0 ? 0 : zsel == 1 ? -128 : zsel == 2 ? 127 : uni(-128, 127);
    const int wzp = uni(0, 2) == 0 ? 0 : uni(-128, 127);
    check_all_paths(s, x, w, bias, izp, wzp);
  }
}

TEST_CASE("CONV2D int8 1x1 packed: refusals (shape, buffer, other layer)") {
  k::conv2d_shape s;
  s.n = 2;
  s.ic = 40;
  s.oc = 20;
  s.bias_size = 20;
  std::vector<std::int8_t> x(80, 1), w(800, 2);
  std::vector<std::int32_t> bias(20, 0), out(40);
  std::vector<std::uint8_t> buf(k::conv2d_1x1_s8_packed_size(20, 40));
  REQUIRE(k::pack_conv2d_1x1_s8(s, w.data(), 0, 0, buf.data(), buf.size()) == status::ok);
  k::conv2d_shape s3 = s;
  s3.kh = 3;
  CHECK(k::pack_conv2d_1x1_s8(s3, w.data(), 0, 0, buf.data(), buf.size()) == status::invalid_attribute);
  CHECK(k::pack_conv2d_1x1_s8(s, w.data(), 0, 0, buf.data(), buf.size() - 1) == status::scratch_too_small);
  CHECK(k::pack_conv2d_1x1_s8(s, nullptr, 0, 0, buf.data(), buf.size()) == status::null_pointer);
  CHECK(k::pack_conv2d_1x1_s8(s, w.data(), 0, 0, buf.data(), buf.size(), k::linear_path::generic) ==
        status::unsupported_path);  // no packed layout for that path: refused, not packed as another one
  if (!k::conv2d_1x1_s8_packed_native()) {
    CHECK(k::conv2d_1x1_s8_packed(s, x.data(), buf.data(), buf.size(), bias.data(), 0, 0, out.data()) ==
          status::unsupported_path);
    return;
  }
  CHECK(k::conv2d_1x1_s8_packed(s, x.data(), buf.data(), buf.size(), bias.data(), 0, 0, out.data()) == status::ok);
  CHECK(out[0] == 80);  // 40 · 1 · 2
  k::conv2d_shape s2 = s;
  s2.oc = 21;
  s2.bias_size = 21;
  std::vector<std::int32_t> bias2(21, 0), out2(42);
  std::vector<std::uint8_t> big(k::conv2d_1x1_s8_packed_size(21, 40));  // large enough, packed for 20 channels
  std::copy(buf.begin(), buf.end(), big.begin());
  CHECK(k::conv2d_1x1_s8_packed(s2, x.data(), big.data(), big.size(), bias2.data(), 0, 0, out2.data()) ==
        status::shape_mismatch);
  std::vector<std::uint8_t> junk(buf.size(), 0);
  CHECK(k::conv2d_1x1_s8_packed(s, x.data(), junk.data(), junk.size(), bias.data(), 0, 0, out.data()) ==
        status::shape_mismatch);
  CHECK(k::conv2d_1x1_s8_packed(s, x.data(), buf.data(), buf.size() - 1, bias.data(), 0, 0, out.data()) ==
        status::scratch_too_small);
  CHECK(k::conv2d_1x1_s8_packed(s3, x.data(), buf.data(), buf.size(), bias.data(), 0, 0, out.data()) !=
        status::ok);
  // a plan refuses what the one-shot call refuses, and leaves the plan it was given unchanged
  k::conv2d_1x1_s8_packed_plan plan;
  CHECK(k::conv2d_1x1_s8_packed(plan, x.data(), out.data()) == status::null_pointer);  // empty plan
  CHECK(k::plan_conv2d_1x1_s8_packed(s2, big.data(), big.size(), bias2.data(), 0, 0, plan) == status::shape_mismatch);
  CHECK(k::plan_conv2d_1x1_s8_packed(s, buf.data(), buf.size() - 1, bias.data(), 0, 0, plan) ==
        status::scratch_too_small);
  CHECK(k::plan_conv2d_1x1_s8_packed(s, buf.data(), buf.size(), bias.data(), 1, 0, plan) ==
        status::zero_point_out_of_range);
  CHECK(k::plan_conv2d_1x1_s8_packed(s, buf.data(), buf.size(), nullptr, 0, 0, plan) == status::null_pointer);
  CHECK(k::conv2d_1x1_s8_packed(plan, x.data(), out.data()) == status::null_pointer);  // still empty
  REQUIRE(k::plan_conv2d_1x1_s8_packed(s, buf.data(), buf.size(), bias.data(), 0, 0, plan) == status::ok);
  CHECK(plan.shape().oc == 20);
  CHECK(k::conv2d_1x1_s8_packed(plan, nullptr, out.data()) == status::null_pointer);
  CHECK(k::conv2d_1x1_s8_packed(plan, x.data(), nullptr) == status::null_pointer);
  std::fill(out.begin(), out.end(), 0);
  CHECK(k::conv2d_1x1_s8_packed(plan, x.data(), out.data()) == status::ok);
  CHECK(out[39] == 80);
}

TEST_CASE("CONV2D int8 1x1 fast path: REQUIRE failures (accumulator, accumulator + bias)") {
  k::conv2d_shape s;
  s.n = 2;
  s.ic = 40000;  // 40000 · 255 · 255 > INT32_MAX
  s.oc = 3;
  s.bias_size = 3;
  std::vector<std::int8_t> x(2 * static_cast<std::size_t>(s.ic), -128), w(3 * static_cast<std::size_t>(s.ic), -128);
  std::vector<std::int32_t> bias(3, 0);
  check_all_paths(s, x, w, bias, 127, 127);  // accumulator out of int32
  s.ic = 1000;
  x.resize(2 * static_cast<std::size_t>(s.ic));
  w.resize(3 * static_cast<std::size_t>(s.ic));
  bias[1] = INT32_MAX - 100;  // acc + bias out of int32 on one channel
  check_all_paths(s, x, w, bias, 127, 127);
  bias[1] = INT32_MIN + 1000;  // fine: acc > 0
  check_all_paths(s, x, w, bias, 127, 127);
  s.ic = 70000;  // > 65536 columns: int64-summed passes, in range with zero points 0 and ±1 values
  x.assign(2 * static_cast<std::size_t>(s.ic), 1);
  w.assign(3 * static_cast<std::size_t>(s.ic), -1);
  check_all_paths(s, x, w, bias, 0, 0);
}

TEST_CASE("CONV2D int8 1x1, one input position and 16-64 channels (the packed GEMV held in registers): int64 forms, REQUIREs") {
  // M = 1 with 16 < OC ≤ 64 and IC ≤ 65536 runs as one register tile on AVX-512 VNNI hosts; where the int32 bound
  // of its fast form fails (large IC) it stores through the int64 form, which must still give the pseudocode's
  // integers and REQUIRE failures
  std::mt19937_64 g(77);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  for (const int oc : {17, 33, 64}) {
    for (const int ic : {50001, 65536}) {
      k::conv2d_shape s;
      s.ic = ic;
      s.oc = oc;
      s.bias_size = oc;
      std::vector<std::int8_t> x(static_cast<std::size_t>(ic)), w(static_cast<std::size_t>(oc) * static_cast<std::size_t>(ic));
      for (auto& e : x) e = static_cast<std::int8_t>(uni(-128, 127));
      for (auto& e : w) e = static_cast<std::int8_t>(uni(-128, 127));
      std::vector<std::int32_t> bias(static_cast<std::size_t>(oc));
      for (auto& e : bias) e = uni(-1000000, 1000000);
      check_all_paths(s, x, w, bias, -128, 0);  // in range: the int64 form's values
      check_all_paths(s, x, w, bias, 7, -3);
      std::fill(x.begin(), x.end(), std::int8_t{-128});
      std::fill(w.begin(), w.end(), std::int8_t{-128});
      check_all_paths(s, x, w, bias, 127, 127);  // accumulator out of int32
    }
  }
}

TEST_CASE("CONV2D int8 1x1, input_zp -128 and M >= 8 (row-group VNNI form): REQUIRE failures, tiles, K tails") {
  // input_zp −128 with ≥ 8 output pixels and IC ≤ 65536 takes `linear_s8_rowgroup_vnni` on AVX-512 VNNI hosts
  // (copied input blocks of 4096 columns).
  k::conv2d_shape s;
  s.n = 9;
  s.ic = 1024;  // acc = Σ (x + 128)·(w − 127) = 255·(−255)·1024 in range; + bias out of range below
  s.oc = 20;
  s.bias_size = 20;
  std::vector<std::int8_t> x(static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.ic), 127);
  std::vector<std::int8_t> w(static_cast<std::size_t>(s.oc) * static_cast<std::size_t>(s.ic), -128);
  std::vector<std::int32_t> bias(static_cast<std::size_t>(s.oc), 0);
  bias[3] = INT32_MIN + 50000000;
  check_all_paths(s, x, w, bias, -128, 127);
  bias[3] = 0;
  s.ic = 40000;  // acc = Σ (x + 128)·(w − 127) = 255·(−255)·40000 < INT32_MIN (the rowdot form)
  x.resize(static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.ic), 127);
  w.resize(static_cast<std::size_t>(s.oc) * static_cast<std::size_t>(s.ic), -128);
  check_all_paths(s, x, w, bias, -128, 127);
  s.ic = 1000;  // acc = −65025000 in range; acc + bias out of int32 on channel 17 only
  x.resize(static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.ic));
  w.resize(static_cast<std::size_t>(s.oc) * static_cast<std::size_t>(s.ic));
  bias[17] = INT32_MIN + 1000;
  check_all_paths(s, x, w, bias, -128, 127);
  bias[17] = INT32_MAX;  // fine: acc < 0
  check_all_paths(s, x, w, bias, -128, 127);
  // positive side (the packed tile's int32 form included): acc = 255·255·1000 > 0, + bias out of int32 on channel 5
  std::fill(x.begin(), x.end(), std::int8_t{127});
  std::fill(w.begin(), w.end(), std::int8_t{127});
  bias.assign(20, 0);
  bias[5] = INT32_MAX - 1000;
  check_all_paths(s, x, w, bias, -128, -128);
  bias[5] = INT32_MAX - 65025000;  // the largest bias that still fits
  check_all_paths(s, x, w, bias, -128, -128);
  std::mt19937_64 g(1402);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  for (const int ic : {5, 64, 128, 129, 255, 1021, 1025, 2049, 4097}) {  // K tails, both forms, copied column blocks
    for (const int oc : {5, 16, 17, 33, 130, 270}) {   // whole and partial 16-row blocks, inputs in place (< 16)
      s.n = uni(7, 19);
      s.ic = ic;
      s.oc = oc;
      s.bias_size = uni(0, 1) == 0 ? 1 : oc;
      x.resize(static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.ic));
      w.resize(static_cast<std::size_t>(s.oc) * static_cast<std::size_t>(s.ic));
      bias.resize(static_cast<std::size_t>(s.bias_size));
      for (auto& e : x) e = static_cast<std::int8_t>(uni(-128, 127));
      for (auto& e : w) e = static_cast<std::int8_t>(uni(-128, 127));
      for (auto& e : bias) e = uni(-1000000, 1000000);
      check_all_paths(s, x, w, bias, -128, uni(0, 1) == 0 ? 0 : uni(-128, 127));
    }
  }
}

#if defined(ARMLOWER_KERNELS_HAVE_X86)
namespace {

/// The AVX2 repack form of the 1×1 CONV2D (`conv_s8_acc32_rowpairs_avx2`, forced whatever
/// `rowpairs_pays` says) and `conv2d_1x1_s8(…, x86_avx2)` against the pseudocode.
void check_rowpairs_conv(const k::conv2d_shape& s, const std::vector<std::int8_t>& x, const std::vector<std::int8_t>& w,
                         const std::vector<std::int32_t>& bias, int izp, int wzp) {
  if (!k::path_available(k::linear_path::x86_avx2)) return;
  const ref_result ref = reference(s, x, w, bias, izp, wzp);
  const std::int64_t m = std::int64_t{s.n} * s.ih * s.iw;
  CAPTURE(m); CAPTURE(s.ic); CAPTURE(s.oc); CAPTURE(s.bias_size); CAPTURE(izp); CAPTURE(wzp);
  std::vector<std::int32_t> out(static_cast<std::size_t>(m * s.oc), 0x5A5A5A5A);
  const status st = k::detail::conv2d_1x1_acc32(
      s, x.data(), bias.data(), static_cast<std::int8_t>(izp), static_cast<std::int8_t>(wzp), out.data(),
      [&w](const k::linear_s8_args& a, k::detail::vnni_acc32_out& o) { k::detail::conv_s8_acc32_rowpairs_avx2(a, w.data(), o); });
  REQUIRE(st == ref.st);
  if (st == status::ok) REQUIRE(out == ref.out);
  std::fill(out.begin(), out.end(), 0x5A5A5A5A);
  const status st2 = k::detail::conv2d_1x1_s8(s, x.data(), w.data(), bias.data(), static_cast<std::int8_t>(izp),
                                              static_cast<std::int8_t>(wzp), out.data(), k::linear_path::x86_avx2);
  REQUIRE(st2 == ref.st);
  if (st2 == status::ok) REQUIRE(out == ref.out);
}

}  // namespace

TEST_CASE("CONV2D int8 1x1, AVX2 repack form: batch blocks, tails, extremes, REQUIRE failures") {
  std::mt19937_64 g(1402);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  // M: batch-block remainders and blocks of 8; ic: odd, not a multiple of 16, the K tile / block edges;
  // oc: group (8) tails and 64-channel passes
  const int ms[] = {1, 2, 3, 5, 7, 8, 9, 15, 16, 17};
  const int ics[] = {1, 3, 17, 33, 255, 256, 257, 1025, 2049};
  const int ocs[] = {1, 7, 8, 9, 16, 17, 24, 65, 72};
  for (const int mm : ms) {
    for (const int ic : ics) {
      for (const int oc : ocs) {
        k::conv2d_shape s;
        s.n = 1;
        s.ih = 1;
        s.iw = mm;
        s.ic = ic;
        s.oc = oc;
        s.bias_size = uni(0, 3) == 0 ? 1 : oc;
        std::vector<std::int8_t> x(static_cast<std::size_t>(mm) * static_cast<std::size_t>(ic)),
            w(static_cast<std::size_t>(oc) * static_cast<std::size_t>(ic));
        const bool extreme = uni(0, 3) == 0;  // x = w = −128, zero points 127: |x − izp|·|w − wzp| = 255²
        for (auto& e : x) e = static_cast<std::int8_t>(extreme ? -128 : uni(-128, 127));
        for (auto& e : w) e = static_cast<std::int8_t>(extreme ? -128 : uni(-128, 127));
        std::vector<std::int32_t> bias(static_cast<std::size_t>(s.bias_size));
        for (auto& e : bias) e = uni(-1000000, 1000000);
        const int izp = extreme ? 127 : uni(-128, 127);
        const int wzp = extreme ? 127 : (uni(0, 1) ? 0 : uni(-128, 127));
        check_rowpairs_conv(s, x, w, bias, izp, wzp);
      }
    }
  }
  // accumulators near and past int32: 255²·33000 = 2 145 825 000 fits (acc + bias past INT32_MAX with bias
  // 2e6 → REQUIRE on acc + bias), 255²·33100 does not (REQUIRE on acc); both with oc a group tail and not
  for (const int ic : {33000, 33100}) {
    for (const int oc : {16, 11}) {
      for (const std::int32_t b : {0, 2000000, -2000000}) {
        k::conv2d_shape s;
        s.n = 1;
        s.ih = 1;
        s.iw = 9;
        s.ic = ic;
        s.oc = oc;
        s.bias_size = 1;
        std::vector<std::int8_t> x(static_cast<std::size_t>(9) * static_cast<std::size_t>(ic), std::int8_t{-128}),
            w(static_cast<std::size_t>(oc) * static_cast<std::size_t>(ic), std::int8_t{-128});
        std::vector<std::int32_t> bias{b};
        check_rowpairs_conv(s, x, w, bias, 127, 127);
      }
    }
  }
}
#endif

TEST_CASE("CONV2D int8 1x1 packed, AVX2 column pairs (forced x86_avx2): batch blocks, tails, K blocks, extremes, REQUIREs") {
  if (!k::conv2d_1x1_s8_packed_native(k::linear_path::x86_avx2)) return;  // no AVX2
  std::mt19937_64 g(1403);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const auto run = [&](const k::conv2d_shape& s, const std::vector<std::int8_t>& x, const std::vector<std::int8_t>& w,
                       const std::vector<std::int32_t>& bias, int izp, int wzp) {
    CAPTURE(s.n); CAPTURE(s.iw); CAPTURE(s.ic); CAPTURE(s.oc); CAPTURE(s.bias_size); CAPTURE(izp); CAPTURE(wzp);
    const ref_result ref = reference(s, x, w, bias, izp, wzp);
    std::vector<std::uint8_t> buf(k::conv2d_1x1_s8_packed_size(s.oc, s.ic));
    REQUIRE(k::pack_conv2d_1x1_s8(s, w.data(), static_cast<std::int8_t>(izp), static_cast<std::int8_t>(wzp), buf.data(),
                                  buf.size(), k::linear_path::x86_avx2) == status::ok);
    std::vector<std::int32_t> out(static_cast<std::size_t>(std::int64_t{s.n} * s.ih * s.iw * s.oc), 0x5A5A5A5A);
    const status st = k::conv2d_1x1_s8_packed(s, x.data(), buf.data(), buf.size(), bias.data(), static_cast<std::int8_t>(izp),
                                              static_cast<std::int8_t>(wzp), out.data(), k::linear_path::x86_avx2);
    REQUIRE(st == ref.st);
    if (st == status::ok) REQUIRE(out == ref.out);
    return ref.st;
  };
  const auto fill = [&](std::vector<std::int8_t>& v, std::size_t n, bool extreme) {
    v.resize(n);
    for (auto& e : v) e = static_cast<std::int8_t>(extreme ? (uni(0, 1) ? 127 : -128) : uni(-128, 127));
  };
  std::vector<std::int8_t> x, w;
  std::vector<std::int32_t> bias;
  // random shapes: M = 1..19 (blocks of 8 batch rows and every remainder 1..7), oc not a multiple of 8,
  // ic odd / not a multiple of 16 (pair and 16-column tails), K past the 8192/MB-column blocks
  const int ics[] = {1, 2, 3, 15, 17, 31, 33, 100, 255, 1023, 1024, 1025, 1169, 2049, 2731, 4097, 8193};
  const int ocs[] = {1, 3, 7, 8, 9, 15, 17, 23, 63, 65, 70};
  for (int iter = 0; iter < 240; ++iter) {
    k::conv2d_shape s;
    s.n = iter < 19 ? iter + 1 : uni(1, 19);
    s.iw = 1;
    s.ic = ics[uni(0, 16)];
    s.oc = ocs[uni(0, 10)];
    s.bias_size = uni(0, 2) == 0 ? 1 : s.oc;
    const bool extreme = uni(0, 3) == 0;
    fill(x, static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.ic), extreme);
    fill(w, static_cast<std::size_t>(s.oc) * static_cast<std::size_t>(s.ic), extreme);
    bias.resize(static_cast<std::size_t>(s.bias_size));
    for (auto& e : bias) e = uni(-1000000, 1000000);
    const int zsel = uni(0, 4);
    const int izp = extreme ? 127 : zsel == 0 ? 0 : zsel == 1 ? -128 : zsel == 2 ? 127 : uni(-128, 127);
    const int wzp = extreme ? (uni(0, 1) ? 127 : -128) : uni(0, 2) == 0 ? 0 : uni(-128, 127);
    run(s, x, w, bias, izp, wzp);
  }
  // all-extreme operands: x = w = −128, input_zp = weight_zp = 127 → every product 255² = 65025.
  // K = 8192 (one block for 1 batch row), 8193 (two), and 33025 (acc = 2147450625, the largest such sum
  // in int32) over M = 1, 8, 9 (8-row blocks; 1024-column blocks there), 17
  for (const int ic : {1024, 1025, 8192, 8193, 33025}) {
    for (const int n : {1, 8, 9, 17}) {
      k::conv2d_shape s;
      s.n = n;
      s.ic = ic;
      s.oc = 9;
      s.bias_size = 9;
      x.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(ic), -128);
      w.assign(static_cast<std::size_t>(s.oc) * static_cast<std::size_t>(ic), -128);
      bias.assign(9, 0);
      CHECK(run(s, x, w, bias, 127, 127) == status::ok);
      if (ic != 33025) continue;
      for (int ch = 0; ch < 9; ++ch) {  // every lane of a full group and the tail group's first
        CAPTURE(ch);
        bias[static_cast<std::size_t>(ch)] = 33022;  // acc + bias = INT32_MAX: fits
        CHECK(run(s, x, w, bias, 127, 127) == status::ok);
        bias[static_cast<std::size_t>(ch)] = 33023;  // acc + bias = INT32_MAX + 1 on this channel only: REQUIRE fails
        CHECK(run(s, x, w, bias, 127, 127) == status::value_out_of_range);
        bias[static_cast<std::size_t>(ch)] = 0;
      }
      bias.assign(1, -33023);  // broadcast bias: fits
      s.bias_size = 1;
      CHECK(run(s, x, w, bias, 127, 127) == status::ok);
    }
  }
  // beyond: K = 33026 → acc = INT32_MAX + 65024 (accumulator REQUIRE, whatever the bias); and below INT32_MIN
  {
    k::conv2d_shape s;
    s.n = 3;
    s.ic = 33026;
    s.oc = 12;
    s.bias_size = 12;
    x.assign(3 * static_cast<std::size_t>(s.ic), -128);
    w.assign(12 * static_cast<std::size_t>(s.ic), -128);
    bias.assign(12, INT32_MIN);
    CHECK(run(s, x, w, bias, 127, 127) == status::value_out_of_range);
    std::fill(w.begin(), w.end(), std::int8_t{127});  // (−255)·(255) per column: acc < INT32_MIN
    bias.assign(12, INT32_MAX);
    CHECK(run(s, x, w, bias, 127, -128) == status::value_out_of_range);
    // acc in range, acc + bias below INT32_MIN on one channel
    s.ic = 1000;
    x.resize(3 * static_cast<std::size_t>(s.ic));
    w.resize(12 * static_cast<std::size_t>(s.ic));
    bias.assign(12, 0);
    for (std::size_t ch = 0; ch < 12; ++ch) {  // each channel alone, both groups (the second a tail of 4)
      CAPTURE(ch);
      bias[ch] = INT32_MIN + 65024999;  // acc = −65025000
      CHECK(run(s, x, w, bias, 127, -128) == status::value_out_of_range);
      bias[ch] = INT32_MIN + 65025000;  // = INT32_MIN: fits
      CHECK(run(s, x, w, bias, 127, -128) == status::ok);
      bias[ch] = 0;
    }
  }
  // padded channels (oc = 3: lanes 3..7 of the group) never raise the REQUIRE: there acc is
  // filter_offset·Σx = 128·127·140000 > INT32_MAX
  {
    k::conv2d_shape s;
    s.n = 2;
    s.ic = 140000;
    s.oc = 3;
    s.bias_size = 3;
    x.assign(2 * static_cast<std::size_t>(s.ic), 127);
    w.assign(3 * static_cast<std::size_t>(s.ic), -128);  // w − weight_zp = 0 ...
    for (std::size_t i = 0; i < w.size(); i += 1000) w[i] = 0;  // ... but every 1000th: acc = 127·128·140 on each channel
    bias.assign(3, 5);
    CHECK(run(s, x, w, bias, 0, -128) == status::ok);
  }
}

TEST_CASE("CONV2D int8 1x1 packed: a buffer packed for one layout is refused by the other path") {
  if (!k::conv2d_1x1_s8_packed_native(k::linear_path::x86_avx2) ||
      !k::conv2d_1x1_s8_packed_native(k::linear_path::x86_avx512_vnni)) {
    return;  // needs both layouts runnable (AVX-512 VNNI, natively or through SIMDe)
  }
  k::conv2d_shape s;
  s.n = 3;
  s.ic = 40;
  s.oc = 20;
  s.bias_size = 20;
  std::vector<std::int8_t> x(120, 1), w(800, 2);
  std::vector<std::int32_t> bias(20, 0), out(60);
  std::vector<std::uint8_t> avx2(k::conv2d_1x1_s8_packed_size(20, 40)), vnni(avx2.size());
  REQUIRE(k::pack_conv2d_1x1_s8(s, w.data(), 0, 0, avx2.data(), avx2.size(), k::linear_path::x86_avx2) == status::ok);
  REQUIRE(k::pack_conv2d_1x1_s8(s, w.data(), 0, 0, vnni.data(), vnni.size(), k::linear_path::x86_avx512_vnni) ==
          status::ok);
  CHECK(k::conv2d_1x1_s8_packed(s, x.data(), avx2.data(), avx2.size(), bias.data(), 0, 0, out.data(),
                                k::linear_path::x86_avx512_vnni) == status::shape_mismatch);
  CHECK(k::conv2d_1x1_s8_packed(s, x.data(), vnni.data(), vnni.size(), bias.data(), 0, 0, out.data(),
                                k::linear_path::x86_avx2) == status::shape_mismatch);
  CHECK(k::conv2d_1x1_s8_packed(s, x.data(), avx2.data(), avx2.size(), bias.data(), 0, 0, out.data(),
                                k::linear_path::x86_avx2) == status::ok);
  CHECK(out[59] == 80);  // 40 · 1 · 2
  // `automatic` runs the layout it packs (VNNI here), so it refuses the AVX2 buffer
  if (k::detail::packed_s8_kind_for(k::linear_path::automatic, s.oc, s.ic) == k::detail::packed_s8_layout_kind::vnni) {
    CHECK(k::conv2d_1x1_s8_packed(s, x.data(), avx2.data(), avx2.size(), bias.data(), 0, 0, out.data()) ==
          status::shape_mismatch);
  }
  // a path with no packed CONV2D
  CHECK(k::conv2d_1x1_s8_packed(s, x.data(), avx2.data(), avx2.size(), bias.data(), 0, 0, out.data(),
                                k::linear_path::generic) == status::unsupported_path);
  CHECK_FALSE(k::conv2d_1x1_s8_packed_native(k::linear_path::generic));
}

TEST_CASE("CONV2D int8 1x1 packed: when packing pays (conv2d_1x1_s8_packed_pays)") {
  // the rule stated in kernels/conv2d_packed.hpp, for the layout `automatic` packs on this CPU
  const bool native = k::conv2d_1x1_s8_packed_native();
  const bool avx2 = k::detail::packed_s8_avx2_kind(k::detail::packed_s8_kind_for(k::linear_path::automatic, 1, 1));
  for (const int oc : {1, 4, 7, 8, 12, 15, 16, 17, 64}) {
    for (const int iw : {1, 7, 8, 64}) {
      k::conv2d_shape s;
      s.n = 1;
      s.ih = 1;
      s.iw = iw;
      s.ic = 100;
      s.oc = oc;
      s.bias_size = oc;
      CAPTURE(oc);
      CAPTURE(iw);
      const bool want = native && (!avx2 || oc >= 16 || (oc >= 8 && iw >= 8));
      CHECK(k::conv2d_1x1_s8_packed_pays(s) == want);
      s.kw = 3;  // not 1×1: never
      CHECK_FALSE(k::conv2d_1x1_s8_packed_pays(s));
    }
  }
}
