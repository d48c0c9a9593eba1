/// @file armlower/kernels/arch/dsp/linear.hpp
/// Arm DSP-extension paths (SMLAD family: Cortex-M4/M7/M33/M55 without Helium) of the fused linear
/// kernels: `detail::linear_s8_dsp(const linear_s8_args&)` and `detail::linear_s16_dsp(const linear_s16_args&)`.
///
/// Contract: exactly `kernels/linear_args.hpp` — called only with arguments that passed `validate`,
/// writes the same bytes as `detail::linear_s8_generic` / `linear_s16_generic` for every valid
/// argument set. Semantics: CMSIS-NN `arm_nn_vec_mat_mult_t_s8` / `_s16` DSP branches (CMSIS-NN v7)
/// with armlower's exact accumulators and the generic path's scalar requantization.
///
/// - s8: 4 rows × 8 columns per step in assembly (filter_offset 0; otherwise, and for the last rows % 4,
///   2 rows × 4 columns in C++). One unaligned 32-bit input load is split into the int16 pairs
///   (x0,x2) and (x1,x3) by `SXTAB16`/`SXTAB16 ROR #8`, adding input_offset in the same instruction;
///   each weight word likewise (adding filter_offset); two `SMLAD` per row. With `kernel_sum` the
///   input offset is already folded in (acc = kernel_sum + Σ x·(w + filter_offset)); with `bias` it is
///   added to x (acc = bias + Σ (x + input_offset)·(w + filter_offset)), so no kernel_sum is needed.
///   int32 partial sums over at most 8192 columns (|(x+io)(w+fo)| ≤ 383²) are exact; longer rows are
///   summed blockwise in int64.
/// - s16 × s8: 2 rows × 8 columns per step in assembly; the input pairs are re-paired with `PKHBT`/`PKHTB`, the
///   weights sign-extended with `SXTB16`, and `SMLALD` accumulates in **64 bits** (exact for any
///   number of columns, unlike CMSIS-NN's 512-column int32 phase).
/// Scalar tails for cols % 4 and rows % 2. Requantization: the generic path's `requantize_row_s8` /
/// `requantize_row_s16` (exact `quant::requantize_exact` / `quant::requantize_s64`).
///
/// Compiled only when the target has the DSP extension (`__ARM_FEATURE_DSP`); elsewhere this header
/// declares nothing.
#pragma once

#if defined(__ARM_FEATURE_DSP) && defined(__arm__)

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include <armlower/kernels/arch/generic/linear.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/quant/requantize.hpp>

namespace armlower::kernels::detail {

namespace dsp {

/// Unaligned 32-bit load (LDR; Armv7-M/Armv8-M allow unaligned word loads).
[[nodiscard]] inline std::uint32_t load32(const void* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
/// SXTB16: int16 pair (byte 0, byte 2), sign-extended.
[[nodiscard]] inline std::uint32_t sxtb16(std::uint32_t v) noexcept {
  std::uint32_t r;
  __asm("sxtb16 %0, %1" : "=r"(r) : "r"(v));
  return r;
}
/// SXTB16 ROR #8: int16 pair (byte 1, byte 3), sign-extended.
[[nodiscard]] inline std::uint32_t sxtb16_ror8(std::uint32_t v) noexcept {
  std::uint32_t r;
  __asm("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
  return r;
}
/// SXTAB16: int16 pair (byte 0, byte 2) sign-extended plus the int16 pair `add`.
[[nodiscard]] inline std::uint32_t sxtab16(std::uint32_t add, std::uint32_t v) noexcept {
  std::uint32_t r;
  __asm("sxtab16 %0, %1, %2" : "=r"(r) : "r"(add), "r"(v));
  return r;
}
/// SXTAB16 ROR #8: int16 pair (byte 1, byte 3) sign-extended plus the int16 pair `add`.
[[nodiscard]] inline std::uint32_t sxtab16_ror8(std::uint32_t add, std::uint32_t v) noexcept {
  std::uint32_t r;
  __asm("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(add), "r"(v));
  return r;
}
/// SMLAD: acc + a.lo·b.lo + a.hi·b.hi (int16 halves, int32 accumulation, wraps).
[[nodiscard]] inline std::int32_t smlad(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
  std::int32_t r;
  __asm("smlad %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}
/// SMLALD: acc + a.lo·b.lo + a.hi·b.hi with a 64-bit accumulator.
[[nodiscard]] inline std::int64_t smlald(std::uint32_t a, std::uint32_t b, std::int64_t acc) noexcept {
  std::uint32_t lo = static_cast<std::uint32_t>(acc);
  std::uint32_t hi = static_cast<std::uint32_t>(static_cast<std::uint64_t>(acc) >> 32);
  __asm("smlald %0, %1, %2, %3" : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
  return static_cast<std::int64_t>((static_cast<std::uint64_t>(hi) << 32) | lo);
}
/// PKHBT a, b, LSL #16: (a.lo, b.lo).
[[nodiscard]] inline std::uint32_t pkhbt16(std::uint32_t a, std::uint32_t b) noexcept {
  std::uint32_t r;
  __asm("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/// PKHTB a, b, ASR #16: (b.hi, a.hi).
[[nodiscard]] inline std::uint32_t pkhtb16(std::uint32_t a, std::uint32_t b) noexcept {
  std::uint32_t r;
  __asm("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/// The int16 pair (v, v).
[[nodiscard]] constexpr std::uint32_t pair16(std::int32_t v) noexcept {
  return (static_cast<std::uint32_t>(v) & 0xFFFFu) * 0x10001u;
}

/// Σ_c (x[c] + io)·(w0[c] + fo) and the same for w1, c in [0, cols), added to acc0/acc1 (int32).
/// Preconditions: the two sums fit int32 (cols ≤ 8192 with |io|, |fo| ≤ 255).
template <bool InputOffset, bool FilterOffset>
inline void dot2_s8(const std::int8_t* x, const std::int8_t* w0, const std::int8_t* w1, std::int32_t cols,
                    std::int32_t io, std::int32_t fo, std::int32_t& acc0, std::int32_t& acc1) noexcept {
  const std::uint32_t io2 = pair16(io), fo2 = pair16(fo);
  std::int32_t a0 = acc0, a1 = acc1;
  std::int32_t c = 0;
#pragma GCC unroll 2
  for (; c + 4 <= cols; c += 4) {
    const std::uint32_t xv = load32(x + c);
    const std::uint32_t xa = InputOffset ? sxtab16(io2, xv) : sxtb16(xv);
    const std::uint32_t xb = InputOffset ? sxtab16_ror8(io2, xv) : sxtb16_ror8(xv);
    const std::uint32_t v0 = load32(w0 + c);
    a0 = smlad(xa, FilterOffset ? sxtab16(fo2, v0) : sxtb16(v0), a0);
    a0 = smlad(xb, FilterOffset ? sxtab16_ror8(fo2, v0) : sxtb16_ror8(v0), a0);
    const std::uint32_t v1 = load32(w1 + c);
    a1 = smlad(xa, FilterOffset ? sxtab16(fo2, v1) : sxtb16(v1), a1);
    a1 = smlad(xb, FilterOffset ? sxtab16_ror8(fo2, v1) : sxtb16_ror8(v1), a1);
  }
  for (; c < cols; ++c) {
    a0 += (x[c] + io) * (w0[c] + fo);
    a1 += (x[c] + io) * (w1[c] + fo);
  }
  acc0 = a0;
  acc1 = a1;
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

/// Σ_c x[c]·w0[c] and Σ_c x[c]·w1[c] added to the int64 acc0/acc1 (exact for any cols).
inline void dot2_s16(const std::int16_t* x, const std::int8_t* w0, const std::int8_t* w1, std::int32_t cols,
                     std::int64_t& acc0, std::int64_t& acc1) noexcept {
  std::int64_t a0 = acc0, a1 = acc1;
  std::int32_t c = 0;
#pragma GCC unroll 2
  for (; c + 4 <= cols; c += 4) {
    const std::uint32_t x01 = load32(x + c), x23 = load32(x + c + 2);
    const std::uint32_t xa = pkhbt16(x01, x23);  // (x0, x2)
    const std::uint32_t xb = pkhtb16(x23, x01);  // (x1, x3)
    const std::uint32_t v0 = load32(w0 + c);
    a0 = smlald(xa, sxtb16(v0), a0);
    a0 = smlald(xb, sxtb16_ror8(v0), a0);
    const std::uint32_t v1 = load32(w1 + c);
    a1 = smlald(xa, sxtb16(v1), a1);
    a1 = smlald(xb, sxtb16_ror8(v1), a1);
  }
  for (; c < cols; ++c) {
    a0 += static_cast<std::int32_t>(x[c]) * w0[c];
    a1 += static_cast<std::int32_t>(x[c]) * w1[c];
  }
  acc0 = a0;
  acc1 = a1;
}

/// Requantization of one s8 accumulator: when it fits int32 and the row's shift is ≤ 0 (no CMSIS-NN
/// left shift), CMSIS-NN's `arm_nn_requantize` (double rounding) / single-rounding formula on int32,
/// which equal `quant::requantize_exact` there (`quant/requantize.hpp`); otherwise the generic path's
/// `requantize_row_s8`. Same bytes either way.
[[nodiscard]] inline std::int8_t requantize_s8(const linear_s8_args& a, std::int32_t r, std::int64_t acc) noexcept {
  const std::int32_t i = a.per_channel ? r : 0;
  const std::int32_t s = a.shift[i];
  if (s <= 0 && acc >= std::numeric_limits<std::int32_t>::min() && acc <= std::numeric_limits<std::int32_t>::max()) {
    const std::int32_t v = static_cast<std::int32_t>(acc);
    const std::int64_t y = static_cast<std::int64_t>(a.rounding == quant::rounding::double_round
                                                         ? quant::requantize(v, a.multiplier[i], s)
                                                         : quant::requantize_single_round(v, a.multiplier[i], s)) +
                           a.output_offset;
    return static_cast<std::int8_t>(y < a.activation_min ? a.activation_min : (y > a.activation_max ? a.activation_max : y));
  }
  return requantize_row_s8(a, r, acc);
}

/// All rows of one batch: input x [cols], output y [rows]; `io` is the input offset applied to x (0
/// when kernel_sum already contains it). 4-row assembly tiles when filter_offset = 0, 2-row C++
/// otherwise and for the last rows; column blocks keep the int32 partial sums exact.
template <bool InputOffset, bool FilterOffset>
inline void linear_s8_rows(const linear_s8_args& a, std::int32_t io, const std::int8_t* x, std::int8_t* y) noexcept {
  const std::int32_t cols = a.cols;
  // Blocks keep the int32 partial sums exact (the generic path's bound).
  const std::int32_t block = (InputOffset || FilterOffset) ? s8_block_with_offsets : s8_block_raw;
  const auto row_init = [&](std::int32_t r) -> std::int64_t {
    if (a.kernel_sum != nullptr) return a.kernel_sum[r];
    return a.bias != nullptr ? a.bias[r] : 0;
  };
  std::int32_t r = 0;
  if constexpr (!FilterOffset) {
    s8_tile tile;
    tile.stride = cols;
    tile.io2 = pair16(io);
    for (; r + 4 <= a.rows; r += 4) {
      const std::int8_t* w = a.weights + static_cast<std::ptrdiff_t>(r) * cols;
      std::int64_t acc[4] = {row_init(r), row_init(r + 1), row_init(r + 2), row_init(r + 3)};
      for (std::int32_t c0 = 0; c0 < cols; c0 += block) {
        const std::int32_t n = cols - c0 < block ? cols - c0 : block;
        tile.x = x + c0;
        tile.w = w + c0;
        tile.steps = n / 8;
        tile.acc[0] = tile.acc[1] = tile.acc[2] = tile.acc[3] = 0;
        dot4_s8_tile(&tile);
        for (std::int32_t c = n & ~7; c < n; ++c) {  // the last n % 8 columns
          const std::int32_t xo = x[c0 + c] + io;
          for (int i = 0; i < 4; ++i) tile.acc[i] += xo * w[static_cast<std::ptrdiff_t>(i) * cols + c0 + c];
        }
        for (int i = 0; i < 4; ++i) acc[i] += tile.acc[i];
      }
      for (int i = 0; i < 4; ++i) y[r + i] = requantize_s8(a, r + i, acc[i]);
    }
  }
  for (; r < a.rows; r += 2) {
    const bool pair = r + 1 < a.rows;
    const std::int8_t* w0 = a.weights + static_cast<std::ptrdiff_t>(r) * cols;
    const std::int8_t* w1 = pair ? w0 + cols : w0;  // odd last row: computed twice, stored once
    std::int64_t acc0 = row_init(r), acc1 = pair ? row_init(r + 1) : 0;
    for (std::int32_t c0 = 0; c0 < cols; c0 += block) {
      const std::int32_t n = cols - c0 < block ? cols - c0 : block;
      std::int32_t p0 = 0, p1 = 0;
      dot2_s8<InputOffset, FilterOffset>(x + c0, w0 + c0, w1 + c0, n, io, a.filter_offset, p0, p1);
      acc0 += p0;
      acc1 += p1;
    }
    y[r] = requantize_s8(a, r, acc0);
    if (pair) y[r + 1] = requantize_s8(a, r + 1, acc1);
  }
}

}  // namespace dsp

/// DSP-extension fused s8 × s8 linear (contract: `kernels/linear_args.hpp`). Preconditions: `validate(a) == ok`.
inline void linear_s8_dsp(const linear_s8_args& a) noexcept {
  // kernel_sum already holds bias + input_offset·Σ(w + fo): only the filter offset is applied here.
  const std::int32_t io = a.kernel_sum != nullptr ? 0 : a.input_offset;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(b) * a.cols;
    std::int8_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows;
    if (io != 0) {
      if (a.filter_offset != 0) dsp::linear_s8_rows<true, true>(a, io, x, y);
      else dsp::linear_s8_rows<true, false>(a, io, x, y);
    } else {
      if (a.filter_offset != 0) dsp::linear_s8_rows<false, true>(a, io, x, y);
      else dsp::linear_s8_rows<false, false>(a, io, x, y);
    }
  }
}

/// DSP-extension fused s16 × s8 linear (contract: `kernels/linear_args.hpp`). Preconditions: `validate(a) == ok`.
inline void linear_s16_dsp(const linear_s16_args& a) noexcept {
  const std::int32_t cols = a.cols;
  for (std::int32_t b = 0; b < a.batches; ++b) {
    const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(b) * cols;
    std::int16_t* y = a.output + static_cast<std::ptrdiff_t>(b) * a.rows;
    dsp::s16_tile tile;
    tile.stride = cols;
    for (std::int32_t r = 0; r < a.rows; r += 2) {
      const bool pair = r + 1 < a.rows;
      const std::int8_t* w0 = a.weights + static_cast<std::ptrdiff_t>(r) * cols;
      const std::int8_t* w1 = pair ? w0 + cols : w0;
      std::int64_t acc0 = 0, acc1 = 0;
      if (pair) {
        tile.x = x;
        tile.w = w0;
        tile.steps = cols / 8;
        tile.acc[0] = tile.acc[1] = 0;
        dsp::dot2_s16_tile(&tile);
        acc0 = tile.acc[0];
        acc1 = tile.acc[1];
        const std::int32_t done = cols & ~7;
        for (std::int32_t c = done; c < cols; ++c) {
          acc0 += static_cast<std::int32_t>(x[c]) * w0[c];
          acc1 += static_cast<std::int32_t>(x[c]) * w1[c];
        }
      } else {
        dsp::dot2_s16(x, w0, w1, cols, acc0, acc1);
      }
      if (a.bias != nullptr) acc0 = add_sat64(acc0, a.bias[r]);
      y[r] = requantize_row_s16(a, r, acc0);
      if (pair) {
        if (a.bias != nullptr) acc1 = add_sat64(acc1, a.bias[r + 1]);
        y[r + 1] = requantize_row_s16(a, r + 1, acc1);
      }
    }
  }
}

}  // namespace armlower::kernels::detail

#endif  // __ARM_FEATURE_DSP
