// Randomised property test, run in firmware under QEMU: the Arm paths of the fused linear kernels
// write exactly the bytes of the generic (reference) path.
//   `mve` build (-mcpu=cortex-m55):        linear_s8_mve / linear_s16_mve and linear_s8_dsp / linear_s16_dsp
//   `nomve` build (-mcpu=cortex-m55+nomve): linear_s8_dsp / linear_s16_dsp
// Cases: batch 1..9, cols 1..1100 (every tail length of the 32/16/4-column steps, non-multiples of 16),
// rows 1..21 (4-row tiles and 1..3-row tails; 8-row packed groups, 1..2 whole groups and 1..7-row tails), extreme and random values, all offsets (0, random,
// ±255), kernel_sum / bias / neither, per-tensor and per-channel with shifts at both ends of the
// range, both roundings, narrowed activation ranges; the s16 CMSIS-NN overflow case (512+ columns of
// (−32768)·(−128)) and int64 bias beyond the MVE fast-path bound.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include <armlower/kernels/arch/dsp/linear.hpp>
#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/arch/mve/linear.hpp>
#include <armlower/kernels/linear.hpp>

#include "armlower_firmware.hpp"

namespace {
namespace k = armlower::kernels;

constexpr int max_batches = 9, max_cols = 1100, max_rows = 21;

std::int8_t input8[max_batches * max_cols];
std::int16_t input16[max_batches * max_cols];
std::int8_t weights[max_rows * max_cols];
std::int32_t bias32[max_rows], kernel_sum[max_rows], multiplier[max_rows], shift[max_rows];
std::int64_t bias64[max_rows];
std::int8_t out8_ref[max_batches * max_rows], out8[max_batches * max_rows];
std::int16_t out16_ref[max_batches * max_rows], out16[max_batches * max_rows];

std::uint32_t rng_state = 0x2545F491u;
std::uint32_t next() {  // xorshift32
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}
std::int32_t uniform(std::int32_t lo, std::int32_t hi) {  // inclusive
  const std::uint32_t range = static_cast<std::uint32_t>(static_cast<std::int64_t>(hi) - lo + 1);  // 0 = 2^32
  const std::uint32_t offset = range == 0 ? next() : next() % range;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(lo) + offset);
}
template <class T>
T pick(std::initializer_list<T> v) {
  return v.begin()[next() % v.size()];
}

// Value pattern for a tensor: 0 random, 1 extremes only, 2 small, 3 all minimum.
template <class T>
void fill(T* p, int n, int pattern, std::int32_t lo, std::int32_t hi) {
  for (int i = 0; i < n; ++i) {
    switch (pattern) {
      case 0: p[i] = static_cast<T>(uniform(lo, hi)); break;
      case 1: p[i] = static_cast<T>(next() & 1 ? lo : hi); break;
      case 2: p[i] = static_cast<T>(uniform(-3, 3)); break;
      default: p[i] = static_cast<T>(lo); break;
    }
  }
}

std::int32_t random_cols() {
  return next() % 3 == 0 ? pick<std::int32_t>({1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 100,
                                               512, 513, 1024, 1100})
                         : uniform(1, max_cols);
}

void random_requant(bool per_channel, int rows, std::int32_t shift_lo, std::int32_t shift_hi) {
  const int n = per_channel ? rows : 1;
  for (int i = 0; i < n; ++i) {
    switch (next() % 4) {
      case 0: multiplier[i] = static_cast<std::int32_t>(next() >> 1); break;                 // any q in [0, 2^31)
      case 1: multiplier[i] = static_cast<std::int32_t>((next() >> 2) | 0x40000000u); break;  // normalized
      case 2: multiplier[i] = pick<std::int32_t>({0, 1, 0x40000000, 0x7FFFFFFF, 0x7FFF0000, 0x7FFF7FFF}); break;
      default: multiplier[i] = 0x40000000; break;  // 0.5: many exact rounding ties
    }
    switch (next() % 5) {
      case 4: shift[i] = uniform(-3, 0); break;  // with small values and q = 0.5: ties at every stage
      case 0: shift[i] = uniform(shift_lo, shift_hi); break;
      case 1: shift[i] = pick<std::int32_t>({shift_lo, shift_hi, 0, -1, 1}); break;
      default: shift[i] = uniform(-12, 0); break;  // the usual FC range: vector requantization
    }
  }
}

void random_activation(std::int32_t lo, std::int32_t hi, std::int32_t& amin, std::int32_t& amax) {
  if (next() % 2) {
    amin = lo;
    amax = hi;
  } else {
    amin = uniform(lo, hi);
    amax = uniform(amin, hi);
  }
}

using s8_path = void (*)(const k::linear_s8_args&) noexcept;
using s16_path = void (*)(const k::linear_s16_args&) noexcept;

int s8_case(s8_path path, const char* name, int index) {
  k::linear_s8_args a;
  a.batches = uniform(1, max_batches);
  a.cols = random_cols();
  a.rows = uniform(1, max_rows);
  fill(input8, a.batches * a.cols, static_cast<int>(next() % 4), -128, 127);
  fill(weights, a.rows * a.cols, static_cast<int>(next() % 4), -128, 127);
  a.input_offset = pick<std::int32_t>({0, 128, -127, 255, -255, uniform(-255, 255)});
  a.filter_offset = next() % 2 ? 0 : pick<std::int32_t>({-15, 255, -255, uniform(-255, 255)});
  a.output_offset = pick<std::int32_t>({0, -102, 35, 65536, -65536, uniform(-300, 300)});
  a.per_channel = next() % 2;
  random_requant(a.per_channel, a.rows, -31, 30);
  a.multiplier = multiplier;
  a.shift = shift;
  a.rounding = next() % 2 ? armlower::quant::rounding::double_round : armlower::quant::rounding::single_round;
  random_activation(-128, 127, a.activation_min, a.activation_max);
  switch (next() % 3) {
    case 0: break;  // no bias, no kernel_sum
    case 1:
      fill(bias32, a.rows, next() % 4 == 0 ? 1 : 0, next() % 4 == 0 ? INT32_MIN : -100000,
           next() % 4 == 0 ? INT32_MAX : 100000);
      a.bias = bias32;
      break;
    default: {
      // CMSIS-NN's kernel_sum = bias + input_offset·Σ(w + filter_offset), or an arbitrary int32.
      for (int r = 0; r < a.rows; ++r) {
        std::int64_t s = 0;
        for (int c = 0; c < a.cols; ++c) s += weights[r * a.cols + c] + a.filter_offset;
        kernel_sum[r] = next() % 8 == 0 ? static_cast<std::int32_t>(next())
                                        : static_cast<std::int32_t>(uniform(-1000, 1000) + a.input_offset * s);
      }
      a.kernel_sum = kernel_sum;
      break;
    }
  }
  a.input = input8;
  a.weights = weights;
  const int n = a.batches * a.rows;
  std::memset(out8_ref, 0x55, sizeof out8_ref);
  std::memset(out8, 0x55, sizeof out8);
  a.output = out8_ref;
  k::detail::linear_s8_generic(a);
  a.output = out8;
  path(a);
  const bool same = std::memcmp(out8, out8_ref, sizeof out8) == 0;  // incl. nothing written past n
  ARMLOWER_FW_CHECK(same);
  if (!same) {
    for (int i = 0; i < n; ++i) {
      if (out8[i] != out8_ref[i]) {
        std::printf("%s case %d: b=%ld cols=%ld rows=%ld io=%ld fo=%ld oo=%ld pc=%d ks=%d bias=%d round=%d: "
                    "[%d] %d vs generic %d (mult %ld shift %ld)\n",
                    name, index, long(a.batches), long(a.cols), long(a.rows), long(a.input_offset),
                    long(a.filter_offset), long(a.output_offset), a.per_channel, a.kernel_sum != nullptr,
                    a.bias != nullptr, int(a.rounding), i, out8[i], out8_ref[i],
                    long(multiplier[a.per_channel ? i % a.rows : 0]), long(shift[a.per_channel ? i % a.rows : 0]));
        break;
      }
    }
  }
  return same ? 0 : 1;
}

int s16_case(s16_path path, const char* name, int index) {
  k::linear_s16_args a;
  a.batches = uniform(1, max_batches);
  a.cols = random_cols();
  a.rows = uniform(1, max_rows);
  const int xp = static_cast<int>(next() % 4), wp = static_cast<int>(next() % 4);
  fill(input16, a.batches * a.cols, xp, -32768, 32767);
  fill(weights, a.rows * a.cols, wp, -128, 127);
  a.per_channel = next() % 2;
  random_requant(a.per_channel, a.rows, -47, 14);
  a.multiplier = multiplier;
  a.shift = shift;
  random_activation(-32768, 32767, a.activation_min, a.activation_max);
  switch (next() % 4) {
    case 0: break;
    case 1:
      for (int r = 0; r < a.rows; ++r) {
        bias64[r] = (static_cast<std::int64_t>(static_cast<std::int32_t>(next())) << 15) ^ next();  // ~±2^46
      }
      a.bias = bias64;
      break;
    case 2:
      for (int r = 0; r < a.rows; ++r) bias64[r] = uniform(-100000, 100000);
      a.bias = bias64;
      break;
    default:  // beyond INT48: the MVE path must fall back, the result still exact
      for (int r = 0; r < a.rows; ++r) {
        bias64[r] = pick<std::int64_t>({INT64_MAX, INT64_MIN, std::int64_t{1} << 50, -(std::int64_t{1} << 47)});
      }
      a.bias = bias64;
      break;
  }
  a.input = input16;
  a.weights = weights;
  const int n = a.batches * a.rows;
  std::memset(out16_ref, 0x55, sizeof out16_ref);
  std::memset(out16, 0x55, sizeof out16);
  a.output = out16_ref;
  k::detail::linear_s16_generic(a);
  a.output = out16;
  path(a);
  const bool same = std::memcmp(out16, out16_ref, sizeof out16) == 0;
  ARMLOWER_FW_CHECK(same);
  if (!same) {
    for (int i = 0; i < n; ++i) {
      if (out16[i] != out16_ref[i]) {
        std::printf("%s case %d: b=%ld cols=%ld rows=%ld pc=%d bias=%d: [%d] %d vs generic %d (mult %ld shift %ld)\n",
                    name, index, long(a.batches), long(a.cols), long(a.rows), a.per_channel, a.bias != nullptr, i,
                    out16[i], out16_ref[i], long(multiplier[a.per_channel ? i % a.rows : 0]),
                    long(shift[a.per_channel ? i % a.rows : 0]));
        break;
      }
    }
  }
  return same ? 0 : 1;
}

// CMSIS-NN's int32 phase wraps at 512 columns of (−32768)·(−128) = 2^22 (kernels.md §1.5); the exact
// result is 2^22·cols. Checked against the generic path and against the closed form.
void s16_overflow_case(s16_path path, const char* name) {
  for (const std::int32_t cols : {511, 512, 513, 1024, 1100}) {
    k::linear_s16_args a;
    a.batches = 1;
    a.cols = cols;
    a.rows = 5;
    for (int c = 0; c < cols; ++c) input16[c] = -32768;
    for (int i = 0; i < a.rows * cols; ++i) weights[i] = -128;
    multiplier[0] = 0x40000000;  // 0.5
    shift[0] = -22;              // y = acc·0.5·2^-22 = cols/2
    a.multiplier = multiplier;
    a.shift = shift;
    a.input = input16;
    a.weights = weights;
    a.output = out16;
    path(a);
    for (int r = 0; r < a.rows; ++r) ARMLOWER_FW_CHECK_EQ(out16[r], (cols + 1) / 2);
    std::printf("%s: %ld columns of (-32768)*(-128) -> %d (exact %ld)\n", name, long(cols), out16[0],
                long((cols + 1) / 2));
  }
}

// Rows longer than every internal block: DSP int32 blocks (8192 columns with offsets), the MVE s8
// path's int32 limit (65536 columns, beyond which it runs the generic code), s16 over 64-bit
// accumulators. Extreme values so that a missing block split would overflow.
__attribute__((section(".sram.bss"))) std::int8_t long_w[5 * 70001];
__attribute__((section(".sram.bss"))) std::int8_t long_x8[2 * 70001];
__attribute__((section(".sram.bss"))) std::int16_t long_x16[2 * 70001];
void long_rows_case(s8_path p8, s16_path p16, const char* name8, const char* name16) {
  for (const std::int32_t cols : {9000, 70001}) {
    const bool longest = cols > 65536;
    k::linear_s8_args a;
    a.batches = longest ? 1 : 2;
    a.cols = cols;
    a.rows = longest ? 4 : 5;
    for (int i = 0; i < a.rows * cols; ++i) long_w[i] = static_cast<std::int8_t>(i % 7 == 0 ? 127 : -128 + (next() & 1));
    for (int i = 0; i < a.batches * cols; ++i) {
      long_x8[i] = static_cast<std::int8_t>(i % 5 == 0 ? 127 : -128);
      long_x16[i] = static_cast<std::int16_t>(i % 5 == 0 ? 32767 : -32768);
    }
    a.input = long_x8;
    a.weights = long_w;
    a.input_offset = -255;
    a.filter_offset = -255;
    multiplier[0] = 0x40000000;
    shift[0] = -20;
    a.multiplier = multiplier;
    a.shift = shift;
    for (const bool use_ks : {false, true}) {
      for (int r = 0; r < a.rows; ++r) kernel_sum[r] = static_cast<std::int32_t>(next() >> 4);
      a.kernel_sum = use_ks ? kernel_sum : nullptr;
      a.output = out8_ref;
      k::detail::linear_s8_generic(a);
      a.output = out8;
      p8(a);
      const bool same = std::memcmp(out8, out8_ref, static_cast<std::size_t>(a.batches * a.rows)) == 0;
      ARMLOWER_FW_CHECK(same);
      if (!same) std::printf("%s: long rows (cols %ld, kernel_sum %d) differ from generic\n", name8, long(cols), use_ks);
    }
    k::linear_s16_args b;
    b.batches = a.batches;
    b.cols = cols;
    b.rows = a.rows;
    b.input = long_x16;
    b.weights = long_w;
    multiplier[0] = 0x40000000;
    shift[0] = -30;
    b.multiplier = multiplier;
    b.shift = shift;
    b.output = out16_ref;
    k::detail::linear_s16_generic(b);
    b.output = out16;
    p16(b);
    const bool same = std::memcmp(out16, out16_ref, static_cast<std::size_t>(b.batches * b.rows) * 2) == 0;
    ARMLOWER_FW_CHECK(same);
    if (!same) std::printf("%s: long rows (cols %ld) differ from generic\n", name16, long(cols));
  }
}

// Feature-restricted instantiations (`linear_features`): run where `admits(F, a)`, else the generic
// path (so the comparison is trivially equal there); `admitted` counts the real runs.
int admitted = 0, admitted8 = 0;
template <k::linear_features F, void (*Path)(const k::linear_s8_args&) noexcept>
void restricted_s8(const k::linear_s8_args& a) noexcept {
  if (k::admits(F, a)) {
    ++admitted;
    ++admitted8;
    Path(a);
  } else {
    k::detail::linear_s8_generic(a);
  }
}
template <k::linear_features F, void (*Path)(const k::linear_s16_args&) noexcept>
void restricted_s16(const k::linear_s16_args& a) noexcept {
  if (k::admits(F, a)) {
    ++admitted;
    Path(a);
  } else {
    k::detail::linear_s16_generic(a);
  }
}

// Weights packed by pack_weights_s8 right before the call; the packed paths get `weights = nullptr`
// (a generated MVE plan holds only the packed copy), so they must read `packed` alone.
__attribute__((section(".sram.bss"))) std::int8_t packed[8 * 70016];
#if defined(__ARM_FEATURE_MVE)
// The packed MVE path (8-row groups).
template <k::linear_features F = k::all_features>
void s8_packed_mve(const k::linear_s8_args& a) noexcept {
  const bool ok = k::pack_weights_s8(a.weights, a.rows, a.cols, packed, sizeof packed) == k::status::ok;
  ARMLOWER_FW_CHECK(ok);
  k::linear_s8_args b = a;
  b.weights = nullptr;
  k::detail::linear_s8_packed_mve<F>(b, packed);
}
#endif
// The public compile-time entry (validate + admits + the packed path: MVE, or on DSP/scalar builds
// the generic packed kernel), as run_plan<A, F, true> calls it.
template <k::linear_features F>
void s8_prepacked_public(const k::linear_s8_args& a) noexcept {
  const bool packed_ok = k::pack_weights_s8(a.weights, a.rows, a.cols, packed, sizeof packed) == k::status::ok;
  k::linear_s8_args b = a;
  b.weights = nullptr;
  const bool ran = k::linear_s8_prepacked<F>(b, packed, sizeof packed) == k::status::ok;
  ARMLOWER_FW_CHECK(packed_ok && ran);
}

void run_paths(s8_path p8, s16_path p16, const char* name8, const char* name16, int cases) {
  int bad8 = 0, bad16 = 0;
  for (int i = 0; i < cases; ++i) bad8 += s8_case(p8, name8, i);
  for (int i = 0; i < cases; ++i) bad16 += s16_case(p16, name16, i);
  s16_overflow_case(p16, name16);
  long_rows_case(p8, p16, name8, name16);
  std::printf("%s: %d/%d random cases differ from generic; %s: %d/%d\n", name8, bad8, cases, name16, bad16, cases);
}
}  // namespace

int main() {
  constexpr k::linear_features plan = k::per_tensor_features;
  // A per-tensor plan with single rounding and non-zero filter offsets (the other compile-time branches).
  constexpr k::linear_features plan2{false, false, true, false, true, false};
#if defined(__ARM_FEATURE_MVE)
  run_paths(k::detail::linear_s8_mve<>, k::detail::linear_s16_mve<>, "linear_s8_mve", "linear_s16_mve", 1000);
  run_paths(s8_packed_mve<>, k::detail::linear_s16_mve<>, "linear_s8_packed_mve", "linear_s16_mve", 600);
  admitted = admitted8 = 0;
  run_paths(restricted_s8<plan, s8_packed_mve<plan>>, restricted_s16<plan, k::detail::linear_s16_mve<plan>>,
            "linear_s8_packed_mve<per_tensor>", "linear_s16_mve<per_tensor>", 1500);
  run_paths(restricted_s8<plan, s8_prepacked_public<plan>>, restricted_s16<plan, k::detail::linear_s16_mve<plan>>,
            "linear_s8_prepacked<per_tensor>", "linear_s16_mve<per_tensor>", 300);
  run_paths(restricted_s8<plan2, k::detail::linear_s8_mve<plan2>>, restricted_s16<plan2, k::detail::linear_s16_mve<plan2>>,
            "linear_s8_mve<plan2>", "linear_s16_mve<plan2>", 1500);
  std::printf("restricted MVE instantiations ran on %d admitted cases (%d s8)\n", admitted, admitted8);
  ARMLOWER_FW_CHECK(admitted > 100 && admitted8 > 30);
#endif
  run_paths(k::detail::linear_s8_dsp<>, k::detail::linear_s16_dsp<>, "linear_s8_dsp", "linear_s16_dsp", 700);
#if !defined(__ARM_FEATURE_MVE)
  run_paths(s8_prepacked_public<k::all_features>, k::detail::linear_s16_dsp<>, "linear_s8_prepacked (weights null)",
            "linear_s16_dsp", 200);
#endif
  admitted = admitted8 = 0;
  run_paths(restricted_s8<plan, k::detail::linear_s8_dsp<plan>>, restricted_s16<plan, k::detail::linear_s16_dsp<plan>>,
            "linear_s8_dsp<per_tensor>", "linear_s16_dsp<per_tensor>", 1500);
  run_paths(restricted_s8<plan2, k::detail::linear_s8_dsp<plan2>>, restricted_s16<plan2, k::detail::linear_s16_dsp<plan2>>,
            "linear_s8_dsp<plan2>", "linear_s16_dsp<plan2>", 1500);
  std::printf("restricted DSP instantiations ran on %d admitted cases (%d s8)\n", admitted, admitted8);
  ARMLOWER_FW_CHECK(admitted > 100 && admitted8 > 30);
  return armlower::firmware::finish("firmware_linear_paths");
}
