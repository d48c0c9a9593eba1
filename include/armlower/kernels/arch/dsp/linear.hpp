/// @file armlower/kernels/arch/dsp/linear.hpp
/// Arm DSP-extension paths (SMLAD family: Cortex-M4/M7/M33/M55 without Helium) of the fused linear
/// kernels: `detail::linear_s8_dsp(const linear_s8_args&)` and `detail::linear_s16_dsp(const linear_s16_args&)`.
///
/// Contract: exactly `kernels/linear_args.hpp` — called only with arguments that passed `validate`,
/// writes the same bytes as `detail::linear_s8_generic` / `linear_s16_generic` for every valid
/// argument set. Semantics: CMSIS-NN `arm_nn_vec_mat_mult_t_s8` / `_s16` DSP branches (CMSIS-NN v7,
/// with `arm_nn_requantize` / `arm_nn_requantize_s64`) with armlower's exact accumulators.
/// Both are templates over `linear_features` (`kernels/linear_args.hpp`; default full generality): a
/// Cortex-M plan instantiates only its cases (`per_tensor_features`: the "plan dsp" code size row).
///
/// - s8: 4 rows × 8 columns per step in assembly (`dot4_s8_tile`). One unaligned 32-bit input load
///   is split into the int16 pairs (x0,x2)+io and (x1,x3)+io by `SXTAB16`/`SXTAB16 ROR #8`; per row one
///   weight word, `SXTB16`/`SXTB16 ROR #8` and two `SMLAD`. acc = row_init + Σ (x + io)·w +
///   filter_offset·Σ (x + io), io = input_offset when `bias` is given (no kernel_sum needed), 0 with
///   `kernel_sum` (which holds it). The last rows % 4 are an overlapping 4-row tile, fewer than 4 rows
///   a stride-0 tile per row, the last cols % 8 columns a C++ loop — no 2-row code path.
///   Within the narrow bound (cols ≤ 8192, shifts ≤ 0, |kernel_sum or bias| ≤ 2^29: every accumulator
///   fits int32) int32 accumulators and `requantize32` (one `SMLAL` + shift); otherwise int64
///   accumulators over 8192-column blocks and `requantize_row_s8` (`linear_s8_dsp_exact`).
/// - s16 × s8: 2 rows × 8 columns per step in assembly (`dot2_s16_tile`); the input pairs are
///   re-paired with `PKHBT`/`PKHTB`, the weights sign-extended with `SXTB16`, and `SMLALD` accumulates in
///   **64 bits** (exact for any number of columns, unlike CMSIS-NN's 512-column int32 phase). Within
///   |acc| < 2^47 (cols ≤ 8192, |bias| < 2^46) one int64 `(acc·m16 + 2^(t−1)) >> t`; otherwise the
///   saturating `linear_s16_dsp_exact`.
/// Speed and size (QEMU executed instructions per MAC, .text): benchmarks/RESULTS.md §Cortex-M55.
///
/// Compiled only when the target has the DSP extension (`__ARM_FEATURE_DSP`); elsewhere this header
/// declares nothing.
#pragma once

#if defined(__ARM_FEATURE_DSP) && defined(__arm__)

#include <cstddef>
#include <cstdint>
#include <limits>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/quant/requantize.hpp>

namespace armlower::kernels::detail {

namespace dsp {

/// The int16 pair (v, v).
[[nodiscard]] constexpr std::uint32_t pair16(std::int32_t v) noexcept {
  return (static_cast<std::uint32_t>(v) & 0xFFFFu) * 0x10001u;
}

/// One 4-row step of the s8 DSP kernel (layout fixed: the assembly uses the byte offsets noted).
struct s8_tile {
  const std::int8_t* x = nullptr;  ///< +0: input, advanced by 8·steps on return
  const std::int8_t* w = nullptr;  ///< +4: weight row 0; rows i at w + i·stride
  std::int32_t stride = 0;         ///< +8: row stride (cols)
  std::int32_t steps = 0;          ///< +12: number of 8-column steps (≥ 0)
  std::uint32_t io2 = 0;           ///< +16: input_offset as an int16 pair
  std::int32_t acc[4] = {};        ///< +20: int32 accumulators, in/out
};

/// acc[i] += Σ_{c < 8·steps} (x[c] + io)·w_i[c] for the 4 rows (filter_offset 0). Per 4 columns: one
/// input word split into the int16 pairs (x0,x2)+io, (x1,x3)+io by `SXTAB16`/`SXTAB16 ROR #8`, then per
/// row one weight word, `SXTB16`/`SXTB16 ROR #8` and two `SMLAD`: 24 instructions per 16 MACs. Plain
/// Armv7E-M/Armv8-M instructions only (the loop uses SUBS/BNE, not the Armv8.1-M WLS/LE).
/// Out of line (AAPCS, naked): the loop needs all of r0–r12 and lr; io2 is re-read from the stack.
/// Registers: r0 x, r1..r4 w0..w3, r5..r8 acc, r9 xa, r10 xb, r11 weight word, r12 temp, lr counter.
[[gnu::naked, gnu::noinline]] inline void dot4_s8_tile(s8_tile* /*r0*/) noexcept {
  __asm volatile(
      "push   {r4-r11, lr}               \n"
      "ldr    r12, [r0, #16]             \n"
      "push   {r0, r12}                  \n"  // [sp] = tile, [sp+4] = io2
      "mov    r12, r0                    \n"
      "ldr    r0, [r12]                  \n"  // x
      "ldr    r1, [r12, #4]              \n"  // w0
      "ldr    lr, [r12, #8]              \n"  // stride
      "add    r2, r1, lr                 \n"
      "add    r3, r2, lr                 \n"
      "add    r4, r3, lr                 \n"
      "ldrd   r5, r6, [r12, #20]         \n"
      "ldrd   r7, r8, [r12, #28]         \n"
      "ldr    lr, [r12, #12]             \n"  // steps
      "cmp    lr, #0                     \n"  // (no WLS/LE: they are Armv8.1-M only, this also runs on M4/M7/M33)
      "beq    2f                         \n"
      "1:                                \n"
      "ldr    r11, [r0], #4              \n"
      "ldr    r12, [sp, #4]              \n"
      "sxtab16 r9, r12, r11              \n"
      "sxtab16 r10, r12, r11, ror #8     \n"
      "ldr    r11, [r1], #4              \n"
      "sxtb16 r12, r11                   \n"
      "sxtb16 r11, r11, ror #8           \n"
      "smlad  r5, r9, r12, r5            \n"
      "smlad  r5, r10, r11, r5           \n"
      "ldr    r11, [r2], #4              \n"
      "sxtb16 r12, r11                   \n"
      "sxtb16 r11, r11, ror #8           \n"
      "smlad  r6, r9, r12, r6            \n"
      "smlad  r6, r10, r11, r6           \n"
      "ldr    r11, [r3], #4              \n"
      "sxtb16 r12, r11                   \n"
      "sxtb16 r11, r11, ror #8           \n"
      "smlad  r7, r9, r12, r7            \n"
      "smlad  r7, r10, r11, r7           \n"
      "ldr    r11, [r4], #4              \n"
      "sxtb16 r12, r11                   \n"
      "sxtb16 r11, r11, ror #8           \n"
      "smlad  r8, r9, r12, r8            \n"
      "smlad  r8, r10, r11, r8           \n"
      "ldr    r11, [r0], #4              \n"
      "ldr    r12, [sp, #4]              \n"
      "sxtab16 r9, r12, r11              \n"
      "sxtab16 r10, r12, r11, ror #8     \n"
      "ldr    r11, [r1], #4              \n"
      "sxtb16 r12, r11                   \n"
      "sxtb16 r11, r11, ror #8           \n"
      "smlad  r5, r9, r12, r5            \n"
      "smlad  r5, r10, r11, r5           \n"
      "ldr    r11, [r2], #4              \n"
      "sxtb16 r12, r11                   \n"
      "sxtb16 r11, r11, ror #8           \n"
      "smlad  r6, r9, r12, r6            \n"
      "smlad  r6, r10, r11, r6           \n"
      "ldr    r11, [r3], #4              \n"
      "sxtb16 r12, r11                   \n"
      "sxtb16 r11, r11, ror #8           \n"
      "smlad  r7, r9, r12, r7            \n"
      "smlad  r7, r10, r11, r7           \n"
      "ldr    r11, [r4], #4              \n"
      "sxtb16 r12, r11                   \n"
      "sxtb16 r11, r11, ror #8           \n"
      "smlad  r8, r9, r12, r8            \n"
      "smlad  r8, r10, r11, r8           \n"
      "subs   lr, lr, #1                 \n"
      "bne    1b                         \n"
      "2:                                \n"
      "ldr    r12, [sp]                  \n"
      "str    r0, [r12]                  \n"
      "strd   r5, r6, [r12, #20]         \n"
      "strd   r7, r8, [r12, #28]         \n"
      "add    sp, sp, #8                 \n"
      "pop    {r4-r11, pc}               \n");
}

/// One 2-row step of the s16 × s8 DSP kernel (layout fixed: the assembly uses the byte offsets noted).
struct s16_tile {
  const std::int16_t* x = nullptr;  ///< +0: input, advanced by 8·steps on return
  const std::int8_t* w = nullptr;   ///< +4: weight row 0; row 1 at w + stride
  std::int32_t stride = 0;          ///< +8: row stride (cols)
  std::int32_t steps = 0;           ///< +12: number of 8-column steps (≥ 0)
  std::int64_t acc[2] = {};         ///< +16: int64 accumulators, in/out
};

/// acc[i] += Σ_{c < 8·steps} x[c]·w_i[c] for 2 rows with 64-bit `SMLALD` accumulation (exact for any
/// cols). Per 4 columns: two input words re-paired to (x0,x2), (x1,x3) by `PKHBT`/`PKHTB`, then per row
/// one weight word, `SXTB16`/`SXTB16 ROR #8` and two `SMLALD`: 14 instructions per 8 MACs. Out of
/// line (AAPCS, naked); plain Armv7E-M/Armv8-M instructions (SUBS/BNE loop).
/// Registers: r0 x, r1 w0, r2 w1, r4:r5 and r6:r7 accumulators, r12/r9 the input pairs, r8/r10/r11
/// temporaries, lr counter.
[[gnu::naked, gnu::noinline]] inline void dot2_s16_tile(s16_tile* /*r0*/) noexcept {
  __asm volatile(
      "push   {r4-r11, lr}               \n"
      "push   {r0, r1}                   \n"  // [sp] = tile
      "mov    r12, r0                    \n"
      "ldr    r0, [r12]                  \n"  // x
      "ldr    r1, [r12, #4]              \n"  // w0
      "ldr    r2, [r12, #8]              \n"
      "add    r2, r1, r2                 \n"  // w1
      "ldrd   r4, r5, [r12, #16]         \n"
      "ldrd   r6, r7, [r12, #24]         \n"
      "ldr    lr, [r12, #12]             \n"  // steps
      "cmp    lr, #0                     \n"
      "beq    2f                         \n"
      "1:                                \n"
      "ldr    r8, [r0], #4               \n"  // (x0, x1)
      "ldr    r9, [r0], #4               \n"  // (x2, x3)
      "pkhbt  r12, r8, r9, lsl #16       \n"  // (x0, x2)
      "pkhtb  r9, r9, r8, asr #16        \n"  // (x1, x3)
      "ldr    r10, [r1], #4              \n"
      "sxtb16 r11, r10                   \n"
      "sxtb16 r10, r10, ror #8           \n"
      "smlald r4, r5, r12, r11           \n"
      "smlald r4, r5, r9, r10            \n"
      "ldr    r10, [r2], #4              \n"
      "sxtb16 r11, r10                   \n"
      "sxtb16 r10, r10, ror #8           \n"
      "smlald r6, r7, r12, r11           \n"
      "smlald r6, r7, r9, r10            \n"
      "ldr    r8, [r0], #4               \n"
      "ldr    r9, [r0], #4               \n"
      "pkhbt  r12, r8, r9, lsl #16       \n"
      "pkhtb  r9, r9, r8, asr #16        \n"
      "ldr    r10, [r1], #4              \n"
      "sxtb16 r11, r10                   \n"
      "sxtb16 r10, r10, ror #8           \n"
      "smlald r4, r5, r12, r11           \n"
      "smlald r4, r5, r9, r10            \n"
      "ldr    r10, [r2], #4              \n"
      "sxtb16 r11, r10                   \n"
      "sxtb16 r10, r10, ror #8           \n"
      "smlald r6, r7, r12, r11           \n"
      "smlald r6, r7, r9, r10            \n"
      "subs   lr, lr, #1                 \n"
      "bne    1b                         \n"
      "2:                                \n"
      "ldr    r12, [sp]                  \n"
      "str    r0, [r12]                  \n"
      "strd   r4, r5, [r12, #16]         \n"
      "strd   r6, r7, [r12, #24]         \n"
      "add    sp, sp, #8                 \n"
      "pop    {r4-r11, pc}               \n");
}

/// Per-tensor (or per-row) constants of `requantize32`.
struct rq32 {
  std::int32_t q = 0;            ///< TFLite multiplier
  std::int32_t k = 0;            ///< total − 32 (≥ 0), or −1 when total = 31 (shift 0)
  std::int64_t round_pos = 0;    ///< rounding constant for acc ≥ 0
  std::int64_t round_neg = 0;    ///< for acc < 0 (differs with double rounding: ±2^30)
};

/// Constants of `requantize32` for multiplier q and shift s ≤ 0 (total = 31 − s).
[[nodiscard]] inline rq32 make_rq32(std::int32_t q, std::int32_t s, bool double_round) noexcept {
  const int total = 31 - s;
  rq32 c;
  c.q = q;
  c.k = total - 32;
  c.round_pos = c.round_neg = std::int64_t{1} << (total - 1);
  if (double_round && total > 31) {
    c.round_pos += std::int64_t{1} << 30;
    c.round_neg -= std::int64_t{1} << 30;
  }
  return c;
}

/// `quant::requantize_exact(acc, q, s, rounding)` for an int32 acc and s ≤ 0: (acc·q + round) >> total
/// with one `SMLAL` and a shift of the high word (total ≥ 32) — the CMSIS-NN `arm_nn_requantize`
/// result for double rounding.
[[nodiscard]] inline std::int32_t requantize32(std::int32_t acc, const rq32& c) noexcept {
  const std::int64_t p = static_cast<std::int64_t>(acc) * c.q + (acc < 0 ? c.round_neg : c.round_pos);
  if (c.k < 0) return static_cast<std::int32_t>(static_cast<std::uint64_t>(p) >> 31);
  return static_cast<std::int32_t>(p >> 32) >> c.k;
}

/// y = clamp(requantize_exact(acc) + output_offset) for one s8 row with multiplier q, shift s: when
/// s ≤ 0 and acc fits int32 (always, if `F` excludes left shifts and wide accumulators) the int64
/// formula `(acc·q + round) >> (31 − s)` (`quant::requantize_exact`, no overflow in that range: CMSIS-NN
/// `arm_nn_requantize` / single rounding), else the generic `requantize_row_s8` of row r.
template <linear_features F>
[[nodiscard]] inline std::int8_t requantize_s8(const linear_s8_args& a, std::int32_t r, std::int32_t q, std::int32_t s,
                                               std::int64_t acc) noexcept {
  if constexpr (F.wide || F.left_shift) {
    if (s > 0 || acc < std::numeric_limits<std::int32_t>::min() || acc > std::numeric_limits<std::int32_t>::max()) {
      return requantize_row_s8(a, r, acc);
    }
  }
  const int total = 31 - s;
  std::int64_t round = std::int64_t{1} << (total - 1);
  const bool double_round = F.double_round && (!F.single_round || a.rounding == quant::rounding::double_round);
  if (double_round && total > 31) round += acc >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
  const std::int64_t y = ((acc * q + round) >> total) + a.output_offset;
  return static_cast<std::int8_t>(y < a.activation_min ? a.activation_min : (y > a.activation_max ? a.activation_max : y));
}

/// y = clamp(requantize_s64(acc, m16, s)) for one s16 row (m16 = reduce_multiplier(q)): the int64
/// formula `(acc·m16 + 2^(t−1)) >> t`, t = 15 − s, exact while |acc| < 2^47 (always, if `F` excludes
/// wide accumulators), else `quant::requantize_s64`.
template <linear_features F>
[[nodiscard]] inline std::int16_t requantize_s16(const linear_s16_args& a, std::int32_t m16, std::int32_t s,
                                                 std::int64_t acc) noexcept {
  std::int64_t y;
  if (!F.wide || (acc >> 47) == 0 || (acc >> 47) == -1) {
    const int t = 15 - s;
    y = (acc * m16 + (std::int64_t{1} << (t - 1))) >> t;
  } else {
    y = quant::requantize_s64(acc, m16, s);
  }
  return static_cast<std::int16_t>(quant::clamp64(y, a.activation_min, a.activation_max));
}

}  // namespace dsp

/// The s8 kernel with int64 accumulators over column blocks and the exact requantization (any
/// valid arguments): the fallback of `linear_s8_dsp` outside the narrow bound.
/// acc = row_init + Σ_c (x[c] + io)·w[c] + filter_offset·Σ_c (x[c] + io), io = input_offset when
/// kernel_sum is null (row_init = bias) else 0 (row_init = kernel_sum, which holds the input offset).
/// 4-row assembly tiles over column blocks of 8192 (int32 partial sums exact: |(x+io)·w| ≤ 383·128);
/// the last rows % 4 are the overlapping tile of rows − 4 … rows − 1, and with fewer than 4 rows each
/// row is a tile of four copies of itself (stride 0).
template <linear_features F>
inline void linear_s8_dsp_exact(const linear_s8_args& a) noexcept {
  const std::int32_t cols = a.cols, rows = a.rows;
  const std::int32_t io = a.kernel_sum != nullptr ? 0 : a.input_offset;
  const std::int32_t* init = a.kernel_sum != nullptr ? a.kernel_sum : a.bias;  // may be null
  const bool per_channel = F.per_channel && a.per_channel;
  const bool stride0 = rows < 4;
  dsp::s8_tile t;
  t.io2 = dsp::pair16(io);
  t.stride = stride0 ? 0 : cols;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b) * rows;
    std::int64_t cb = 0;
    if (F.filter_offset && a.filter_offset != 0) {
      std::int64_t xs = static_cast<std::int64_t>(cols) * io;
      for (std::int32_t c = 0; c < cols; ++c) xs += x[c];
      cb = xs * a.filter_offset;
    }
    for (std::int32_t r = 0; r < rows; r += stride0 ? 1 : 4) {
      const std::int32_t r0 = stride0 || r + 4 <= rows ? r : rows - 4;
      const std::int8_t* w = a.weights + static_cast<std::ptrdiff_t>(r0) * cols;
      std::int64_t acc[4];
      for (int i = 0; i < 4; ++i) acc[i] = cb + (init != nullptr ? init[stride0 ? r0 : r0 + i] : 0);
      std::int32_t c0 = 0;
      do {
        const std::int32_t n = !F.wide || cols - c0 < s8_block_with_offsets ? cols - c0 : s8_block_with_offsets;
        t.x = x + c0;
        t.w = w + c0;
        t.steps = n / 8;
        t.acc[0] = t.acc[1] = t.acc[2] = t.acc[3] = 0;
        dsp::dot4_s8_tile(&t);
        for (std::int32_t c = n & ~7; c < n; ++c) {  // the last n % 8 columns
          const std::int32_t xo = x[c0 + c] + io;
          for (int i = 0; i < 4; ++i) t.acc[i] += xo * w[static_cast<std::ptrdiff_t>(i) * t.stride + c0 + c];
        }
        for (int i = 0; i < 4; ++i) acc[i] += t.acc[i];
        c0 += n;
      } while (F.wide && c0 < cols);
      for (int i = 0; i < (stride0 ? 1 : 4); ++i) {
        const std::int32_t k = per_channel ? r0 + i : 0;
        y[r0 + i] = dsp::requantize_s8<F>(a, r0 + i, a.multiplier[k], a.shift[k], acc[i]);
      }
    }
  }
}

/// The narrow s8 kernel (`linear_features` wide = false and every shift ≤ 0: int32 accumulators,
/// `requantize32`). Preconditions: `validate(a) == ok`, cols ≤ 8192, every shift ≤ 0, and unless
/// `F.wide`, every |kernel_sum| (or |bias|) ≤ 2^29.
/// @return false (outputs incomplete) if some |kernel_sum or bias| > 2^29 was met — only checked when
/// `F.wide`; the caller then runs `linear_s8_dsp_exact`, which rewrites every output.
template <linear_features F>
[[nodiscard]] inline bool linear_s8_dsp_narrow(const linear_s8_args& a) noexcept {
  const std::int32_t cols = a.cols, rows = a.rows;
  const std::int32_t io = a.kernel_sum != nullptr ? 0 : a.input_offset;
  const std::int32_t* init = a.kernel_sum != nullptr ? a.kernel_sum : a.bias;  // may be null
  const bool per_channel = F.per_channel && a.per_channel;
  const bool double_round = F.double_round && (!F.single_round || a.rounding == quant::rounding::double_round);
  const bool stride0 = rows < 4;
  const std::int32_t step = stride0 ? 1 : 4;
  const std::int32_t off = a.output_offset, lo = a.activation_min, hi = a.activation_max;
  dsp::rq32 c = dsp::make_rq32(a.multiplier[0], a.shift[0], double_round);
  dsp::s8_tile t;
  t.io2 = dsp::pair16(io);
  t.stride = stride0 ? 0 : cols;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b) * rows;
    std::int32_t cb = 0;  // |filter_offset·Σ(x + io)| ≤ 255·383·8192 < 2^30
    if (F.filter_offset && a.filter_offset != 0) {
      std::int32_t xs = cols * io;
      for (std::int32_t k = 0; k < cols; ++k) xs += x[k];
      cb = xs * a.filter_offset;
    }
    for (std::int32_t r = 0; r < rows; r += step) {
      const std::int32_t r0 = stride0 || r + 4 <= rows ? r : rows - 4;
      const std::int8_t* w = a.weights + static_cast<std::ptrdiff_t>(r0) * cols;
      if (init != nullptr) {
        std::uint32_t far = 0;
        for (int i = 0; i < 4; ++i) {
          const std::int32_t v = init[r0 + i * (1 - stride0)];
          if constexpr (F.wide) far |= static_cast<std::uint32_t>(v + (1 << 29)) > (1u << 30);
          t.acc[i] = cb + v;
        }
        if (F.wide && far != 0) return false;
      } else {
        t.acc[0] = t.acc[1] = t.acc[2] = t.acc[3] = cb;
      }
      t.x = x;
      t.w = w;
      t.steps = cols / 8;
      dsp::dot4_s8_tile(&t);
      for (std::int32_t k = cols & ~7; k < cols; ++k) {  // the last cols % 8 columns
        const std::int32_t xo = x[k] + io;
        for (int i = 0; i < 4; ++i) t.acc[i] += xo * w[i * t.stride + k];
      }
      for (std::int32_t i = 0; i < step; ++i) {
        if (per_channel) c = dsp::make_rq32(a.multiplier[r0 + i], a.shift[r0 + i], double_round);
        const std::int32_t v = dsp::requantize32(t.acc[i], c) + off;
        y[r0 + i] = static_cast<std::int8_t>(v < lo ? lo : (v > hi ? hi : v));
      }
    }
  }
  return true;
}

/// DSP-extension fused s8 × s8 linear (contract: `kernels/linear_args.hpp`), compiled for the features
/// `F` (default full generality). Preconditions: `validate(a) == ok` and `admits(F, a)`.
/// acc = row_init + Σ_c (x[c] + io)·w[c] + filter_offset·Σ_c (x[c] + io), io = input_offset when
/// kernel_sum is null (row_init = bias) else 0 (row_init = kernel_sum, which holds the input offset).
/// 4-row assembly tiles (`dot4_s8_tile`); the last rows % 4 are the overlapping tile of rows − 4 …
/// rows − 1, and with fewer than 4 rows each row is a tile of four copies of itself (stride 0).
/// Calls within the narrow bound (cols ≤ 8192, every shift ≤ 0, |kernel_sum or bias| ≤ 2^29 — checked
/// here unless `F` guarantees it) run with int32 accumulators and `requantize32`; others with int64
/// accumulators over 8192-column blocks and the exact scalar requantization.
template <linear_features F = all_features>
inline void linear_s8_dsp(const linear_s8_args& a) noexcept {
  bool narrow = !F.wide || a.cols <= 8192;
  if constexpr (F.left_shift) {
    const std::int32_t n = a.per_channel ? a.rows : 1;
    for (std::int32_t i = 0; i < n && narrow; ++i) narrow = a.shift[i] <= 0;
  }
  if (!narrow || !linear_s8_dsp_narrow<F>(a)) {
    if constexpr (F.wide || F.left_shift) linear_s8_dsp_exact<F>(a);
  }
}

/// The s16 kernel with saturating int64 bias addition and `quant::requantize_s64` where the
/// accumulator is beyond 2^47 (any valid arguments): the fallback of `linear_s16_dsp`.
/// 2-row assembly tiles with 64-bit accumulation; the last odd row is the overlapping tile of rows
/// rows − 2, rows − 1, and a single row is a tile of two copies of itself (stride 0).
template <linear_features F>
inline void linear_s16_dsp_exact(const linear_s16_args& a) noexcept {
  const std::int32_t cols = a.cols, rows = a.rows;
  const bool per_channel = F.per_channel && a.per_channel;
  const std::int32_t m16 = quant::reduce_multiplier(a.multiplier[0]);
  dsp::s16_tile t;
  t.stride = rows < 2 ? 0 : cols;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int16_t* y = a.output + static_cast<std::ptrdiff_t>(b) * rows;
    for (std::int32_t r = 0; r < rows; r += 2) {
      const std::int32_t r0 = rows < 2 || r + 2 <= rows ? r : rows - 2;
      const std::int8_t* w = a.weights + static_cast<std::ptrdiff_t>(r0) * cols;
      t.x = x;
      t.w = w;
      t.steps = cols / 8;
      t.acc[0] = t.acc[1] = 0;
      dsp::dot2_s16_tile(&t);
      for (std::int32_t c = cols & ~7; c < cols; ++c) {
        t.acc[0] += static_cast<std::int32_t>(x[c]) * w[c];
        t.acc[1] += static_cast<std::int32_t>(x[c]) * w[t.stride + c];
      }
      for (int i = 0; i < (rows < 2 ? 1 : 2); ++i) {
        std::int64_t acc = t.acc[i];
        if (a.bias != nullptr) acc = F.wide ? add_sat64(acc, a.bias[r0 + i]) : acc + a.bias[r0 + i];
        const std::int32_t k = per_channel ? r0 + i : 0;
        y[r0 + i] = dsp::requantize_s16<F>(a, per_channel ? quant::reduce_multiplier(a.multiplier[k]) : m16,
                                           a.shift[k], acc);
      }
    }
  }
}

/// The narrow s16 kernel: |acc| < 2^47, so `(acc·m16 + 2^(t−1)) >> t` is exact in int64.
/// Preconditions: `validate(a) == ok`, cols ≤ 8192, and unless `F.wide` every |bias| < 2^46
/// (checked as: high word in [−2^14, 2^14), i.e. −2^46 ≤ bias < 2^46).
/// @return false (outputs incomplete) if some |bias| ≥ 2^46 was met — only checked when `F.wide`.
template <linear_features F>
[[nodiscard]] inline bool linear_s16_dsp_narrow(const linear_s16_args& a) noexcept {
  const std::int32_t cols = a.cols, rows = a.rows;
  const bool per_channel = F.per_channel && a.per_channel;
  const bool stride0 = rows < 2;
  const std::int32_t step = stride0 ? 1 : 2;
  const std::int32_t lo = a.activation_min, hi = a.activation_max;
  std::int32_t m16 = quant::reduce_multiplier(a.multiplier[0]), sh = 15 - a.shift[0];
  std::int64_t round = std::int64_t{1} << (sh - 1);
  dsp::s16_tile t;
  t.stride = stride0 ? 0 : cols;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int16_t* y = a.output + static_cast<std::ptrdiff_t>(b) * rows;
    for (std::int32_t r = 0; r < rows; r += step) {
      const std::int32_t r0 = stride0 || r + 2 <= rows ? r : rows - 2;
      const std::int8_t* w = a.weights + static_cast<std::ptrdiff_t>(r0) * cols;
      if (a.bias != nullptr) {
        t.acc[0] = a.bias[r0];
        t.acc[1] = a.bias[r0 + 1 - stride0];
        if constexpr (F.wide) {  // |bias| < 2^46 ⟸ high word in [−2^14, 2^14)
          const auto h0 = static_cast<std::uint32_t>(static_cast<std::uint64_t>(t.acc[0]) >> 32) + (1u << 14);
          const auto h1 = static_cast<std::uint32_t>(static_cast<std::uint64_t>(t.acc[1]) >> 32) + (1u << 14);
          if ((h0 | h1) >= (1u << 15)) return false;
        }
      } else {
        t.acc[0] = t.acc[1] = 0;
      }
      t.x = x;
      t.w = w;
      t.steps = cols / 8;
      dsp::dot2_s16_tile(&t);
      for (std::int32_t k = cols & ~7; k < cols; ++k) {
        t.acc[0] += static_cast<std::int32_t>(x[k]) * w[k];
        t.acc[1] += static_cast<std::int32_t>(x[k]) * w[t.stride + k];
      }
      for (std::int32_t i = 0; i < step; ++i) {
        if (per_channel) {
          m16 = quant::reduce_multiplier(a.multiplier[r0 + i]);
          sh = 15 - a.shift[r0 + i];
          round = std::int64_t{1} << (sh - 1);
        }
        const std::int64_t v = (t.acc[i] * m16 + round) >> sh;
        y[r0 + i] = static_cast<std::int16_t>(v < lo ? lo : (v > hi ? hi : v));
      }
    }
  }
  return true;
}

/// DSP-extension fused s16 × s8 linear (contract: `kernels/linear_args.hpp`), compiled for the features
/// `F` (default full generality). Preconditions: `validate(a) == ok` and `admits(F, a)`.
/// 2-row assembly tiles (`dot2_s16_tile`, 64-bit `SMLALD`); the last odd row is the overlapping tile
/// of rows − 2, rows − 1, and a single row is a tile of two copies of itself (stride 0). Calls within
/// the narrow bound (cols ≤ 8192, every |bias| < 2^46: |acc| < 2^47) requantize with one int64
/// multiply-add-shift; others run `linear_s16_dsp_exact`.
template <linear_features F = all_features>
inline void linear_s16_dsp(const linear_s16_args& a) noexcept {
  constexpr linear_features T = [] {  // the per-tensor instantiation of F
    linear_features f = F;
    f.per_channel = false;
    return f;
  }();
  bool done = !F.wide || a.cols <= 8192;
  if (done) done = F.per_channel && a.per_channel ? linear_s16_dsp_narrow<F>(a) : linear_s16_dsp_narrow<T>(a);
  if constexpr (F.wide) {
    if (!done) linear_s16_dsp_exact<F>(a);
  }
}

}  // namespace armlower::kernels::detail

#endif  // __ARM_FEATURE_DSP
