/// @file armlower/kernels/arch/mve/detail/dot.hpp
/// Helium (Arm MVE) inner loops of the fused linear kernels: dot products of one input vector with
/// four (or one) weight rows, and row/vector sums. Internal to `kernels/arch/mve/linear.hpp`.
///
/// All loops are written in assembly so that the instruction sequence per step is exactly the
/// minimum (the compiler's MVE code generation around predication and register pressure adds 30–60 %):
/// - s8 × s8, 4 rows (row-major weights): per 64 columns four input loads, sixteen weight loads
///   (`VLDRB.8`) and sixteen `VMLADAVA.S8` (16 products reduced into a scalar int32 accumulator each)
///   in a `WLS`/`LE` low-overhead loop (37 instructions per 256 MACs); the last `cols % 64` columns
///   run in a tail-predicated `WLSTP.8`/`LETP` loop, so no lane beyond `cols` is read.
/// - s8 × s8, 8 rows (`dot8_s8_packed`, weights packed by `kernels::pack_weights_s8`: per 16-column
///   chunk the 16 bytes of each of 8 rows, one stream): per 64 columns four input loads, 32 weight
///   loads and 32 `VMLADAVA.S8` into eight scalar accumulators, `SUBS`/`BNE` (70 instructions per
///   512 MACs: 0.137/MAC, against 0.145 for 4 row-major rows, whose four weight pointers leave too few
///   registers for eight rows).
///   The eighth accumulator is lr (`VMLADAVA` takes any even Rda, r0 … r12 and r14 — RdaLo = 0b111;
///   LLVM's operand class for it, `tGPREven` in ARMRegisterInfo.td, includes LR), so the
///   loop counts with `SUBS`/`BNE`; `linear_s8_packed_run` adds the per-tensor requantization and
///   loops over the groups in assembly.
/// - s16 × s8, 4 rows (`linear_s16_tile` per tile, any parameters; `linear_s16_run` over all tiles of
///   a per-tensor call, 64 columns per step): `VLDRH.16` input, widening `VLDRB.S16` weight loads and
///   `VMLALDAVA.S16` into **64-bit** accumulators (exact for any number of columns, unlike CMSIS-NN's
///   512-column int32 phase), tail-predicated remainder, requantization included.
/// The int32 accumulators of the s8 loops are exact for cols ≤ 65536 (|x·w| ≤ 2^14); the caller
/// (`linear_s8_mve`) runs the generic path for longer rows. Pointers need no alignment beyond their
/// element type.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include <arm_mve.h>

#include <cstdint>

namespace armlower::kernels::detail::mve {

/// {Σ_c x[c]·w_i[c]} for the four rows w_i = w + i·stride, c in [0, cols), as an int32 vector
/// (lane i = row i). 64 columns per loop step. Preconditions: 1 ≤ cols ≤ 65536 (int32 exactness).
[[nodiscard]] inline int32x4_t dot4_s8(const std::int8_t* x, const std::int8_t* w, std::int32_t cols,
                                       std::int32_t stride) noexcept {
  const std::int8_t* w0 = w;
  const std::int8_t* w1 = w0 + stride;
  const std::int8_t* w2 = w1 + stride;
  const std::int8_t* w3 = w2 + stride;
  std::int32_t a0, a1, a2, a3, n;
  int32x4_t sums;
  __asm volatile(
      "movs   %[a0], #0                  \n"
      "movs   %[a1], #0                  \n"
      "movs   %[a2], #0                  \n"
      "movs   %[a3], #0                  \n"
      "lsrs   %[n], %[cols], #6          \n"
      "wls    lr, %[n], 2f               \n"
      "1:                                \n"
      "vldrb.8  q0, [%[x]], #16          \n"
      "vldrb.8  q1, [%[w0]], #16         \n"
      "vmladava.s8 %[a0], q0, q1         \n"
      "vldrb.8  q2, [%[w1]], #16         \n"
      "vmladava.s8 %[a1], q0, q2         \n"
      "vldrb.8  q3, [%[w2]], #16         \n"
      "vmladava.s8 %[a2], q0, q3         \n"
      "vldrb.8  q1, [%[w3]], #16         \n"
      "vmladava.s8 %[a3], q0, q1         \n"
      "vldrb.8  q0, [%[x]], #16          \n"
      "vldrb.8  q1, [%[w0]], #16         \n"
      "vmladava.s8 %[a0], q0, q1         \n"
      "vldrb.8  q2, [%[w1]], #16         \n"
      "vmladava.s8 %[a1], q0, q2         \n"
      "vldrb.8  q3, [%[w2]], #16         \n"
      "vmladava.s8 %[a2], q0, q3         \n"
      "vldrb.8  q1, [%[w3]], #16         \n"
      "vmladava.s8 %[a3], q0, q1         \n"
      "vldrb.8  q0, [%[x]], #16          \n"
      "vldrb.8  q1, [%[w0]], #16         \n"
      "vmladava.s8 %[a0], q0, q1         \n"
      "vldrb.8  q2, [%[w1]], #16         \n"
      "vmladava.s8 %[a1], q0, q2         \n"
      "vldrb.8  q3, [%[w2]], #16         \n"
      "vmladava.s8 %[a2], q0, q3         \n"
      "vldrb.8  q1, [%[w3]], #16         \n"
      "vmladava.s8 %[a3], q0, q1         \n"
      "vldrb.8  q0, [%[x]], #16          \n"
      "vldrb.8  q1, [%[w0]], #16         \n"
      "vmladava.s8 %[a0], q0, q1         \n"
      "vldrb.8  q2, [%[w1]], #16         \n"
      "vmladava.s8 %[a1], q0, q2         \n"
      "vldrb.8  q3, [%[w2]], #16         \n"
      "vmladava.s8 %[a2], q0, q3         \n"
      "vldrb.8  q1, [%[w3]], #16         \n"
      "vmladava.s8 %[a3], q0, q1         \n"
      "le     lr, 1b                     \n"
      "2:                                \n"
      "and    %[n], %[cols], #63         \n"
      "wlstp.8 lr, %[n], 4f              \n"
      "3:                                \n"
      "vldrb.8  q0, [%[x]], #16          \n"
      "vldrb.8  q1, [%[w0]], #16         \n"
      "vmladava.s8 %[a0], q0, q1         \n"
      "vldrb.8  q2, [%[w1]], #16         \n"
      "vmladava.s8 %[a1], q0, q2         \n"
      "vldrb.8  q3, [%[w2]], #16         \n"
      "vmladava.s8 %[a2], q0, q3         \n"
      "vldrb.8  q1, [%[w3]], #16         \n"
      "vmladava.s8 %[a3], q0, q1         \n"
      "letp   lr, 3b                     \n"
      "4:                                \n"
      "vmov   %q[v][2], %q[v][0], %[a0], %[a2] \n"  // lane 0 = a0, lane 2 = a2 (GNU as operand order)
      "vmov   %q[v][3], %q[v][1], %[a1], %[a3] \n"  // lane 1 = a1, lane 3 = a3
      : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [x] "+r"(x), [w0] "+r"(w0),
        [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [n] "=&r"(n), [v] "=w"(sums)
      : [cols] "r"(cols)
      : "q0", "q1", "q2", "q3", "lr", "memory", "cc");
  return sums;
}

/// One 8-row group of the packed s8 kernel (layout fixed: the assembly uses the byte offsets noted).
struct s8_packed_tile {
  const std::int8_t* x = nullptr;  ///< +0: input vector [cols]
  const std::int8_t* w = nullptr;  ///< +4: the group's packed weights (`pack_weights_s8`); advanced past the group
  std::int32_t cols = 0;           ///< +8: ≥ 1
  std::int32_t acc[8] = {};        ///< +12: int32 accumulators of the 8 rows, in/out
};

/// acc[i] += Σ_{c < cols} x[c]·w_i[c] for the 8 rows of one packed group (`pack_weights_s8` layout:
/// chunk k holds 16 bytes of row 0, then row 1, … row 7; padding bytes are zero). Main loop: 4 chunks
/// per step (see file comment); then one chunk per step, the input load predicated by `VCTP.8` so no
/// byte beyond x[cols) is read (inactive lanes load 0 and meet the zero padding of the weights).
/// Out of line (AAPCS, naked): eight accumulators need eight even registers (`VMLADAVA` RdaHi:'0'):
/// r0, r2, r4, r6, r8, r10, r12, lr, so the loop counter is r5 with `SUBS`/`BNE` (no `LE`).
/// Registers: r1 x, r3 w, r5 steps, r7 remaining columns, r9 tile. Preconditions: 1 ≤ cols ≤ 65536.
[[gnu::naked, gnu::noinline]] inline void dot8_s8_packed(s8_packed_tile* /*r0*/) noexcept {
  __asm volatile(
      "push   {r4-r11, lr}               \n"
      "push   {r0, r1}                   \n"  // [sp] = tile
      "mov    r9, r0                     \n"
      "ldr    r1, [r9]                   \n"  // x
      "ldr    r3, [r9, #4]               \n"  // w
      "ldr    r7, [r9, #8]               \n"  // cols
      "ldrd   r0, r2, [r9, #12]          \n"
      "ldrd   r4, r6, [r9, #20]          \n"
      "ldrd   r8, r10, [r9, #28]         \n"
      "ldrd   r12, lr, [r9, #36]         \n"
      "lsrs   r5, r7, #6                 \n"
      "beq    2f                         \n"
      "1:                                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "subs   r5, r5, #1                 \n"
      "bne    1b                         \n"
      "2:                                \n"
      "ands   r7, r7, #63                \n"
      "beq    4f                         \n"
      "3:                                \n"
      "vctp.8 r7                         \n"
      "vpst                              \n"
      "vldrbt.8 q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "subs   r7, r7, #16                \n"
      "bgt    3b                         \n"
      "4:                                \n"
      "ldr    r9, [sp]                   \n"
      "str    r3, [r9, #4]               \n"
      "strd   r0, r2, [r9, #12]          \n"
      "strd   r4, r6, [r9, #20]          \n"
      "strd   r8, r10, [r9, #28]         \n"
      "strd   r12, lr, [r9, #36]         \n"
      "add    sp, sp, #8                 \n"
      "pop    {r4-r11, pc}               \n");
}

/// Operands of `linear_s8_packed_run` (layout fixed: the assembly uses the byte offsets noted).
struct s8_packed_run {
  const std::int8_t* x = nullptr;           ///< +0: input vector [cols]
  const std::int8_t* w = nullptr;           ///< +4: packed weights of the first group; advanced past the last
  std::int32_t cols = 0;                    ///< +8: 1 ≤ cols ≤ 65536
  std::int8_t* y_end = nullptr;             ///< +12: y + rows covered (8 per group; 4 per tile in `linear_s8_run4`)
  const std::int32_t* kernel_sum = nullptr; ///< +16: one per covered row, |kernel_sum| ≤ 2^29; advanced
  std::int8_t* y = nullptr;                 ///< +20: output, one per covered row; advanced
  std::int32_t multiplier = 0;              ///< +24: TFLite q ≥ 0 (per tensor)
  std::int32_t shift = 0;                   ///< +28: TFLite shift ≤ 0 (per tensor)
  std::int32_t act_min = 0;                 ///< +32
  std::int32_t act_max = 0;                 ///< +36
  std::int32_t output_offset = 0;           ///< +40
  std::int32_t cb = 0;                      ///< +44: filter_offset·Σx, |cb| ≤ 2^28
  std::int32_t single_round = 0;            ///< +48: 0 double rounding, 1 single rounding
};

/// The narrow per-tensor s8 kernel over whole 8-row packed groups (until y reaches y_end), requantization included:
/// per group the eight accumulators start at kernel_sum (`LDRD`), run the `dot8_s8_packed` loops, move
/// into two vectors (`VMOV` pairs), add cb, and are requantized like `requantize4_s8` with scalar
/// operands (`VQRDMULH`/`VQDMULH` by scalar, the round-half-away fix-up, `VRSHL` by scalar, `VQADD` of
/// output_offset, `VMAX`/`VMIN`) and stored with `VSTRB.32`. Exact under the narrow bound (every
/// accumulator fits int32, shift ≤ 0; `linear_features` wide = false). Out of line (AAPCS, naked):
/// r9 holds the operands, r11 the kernel_sum pointer; q4/q5 (saved) the activation bounds.
[[gnu::naked, gnu::noinline]] inline void linear_s8_packed_run(s8_packed_run* /*r0*/) noexcept {
  __asm volatile(
      "push   {r4-r11, lr}               \n"
      "vpush  {d8-d11}                   \n"
      "mov    r9, r0                     \n"
      "ldrd   r2, r3, [r9, #32]          \n"
      "vdup.32 q4, r2                    \n"  // act_min
      "vdup.32 q5, r3                    \n"  // act_max
      "ldr    r3, [r9, #4]               \n"  // w
      "ldr    r11, [r9, #16]             \n"  // kernel_sum
      "5:                                \n"
      "ldr    r1, [r9]                   \n"  // x
      "ldr    r7, [r9, #8]               \n"  // cols
      "ldrd   r0, r2, [r11]              \n"
      "ldrd   r4, r6, [r11, #8]          \n"
      "ldrd   r8, r10, [r11, #16]        \n"
      "ldrd   r12, lr, [r11, #24]        \n"
      "adds   r11, r11, #32              \n"
      "lsrs   r5, r7, #6                 \n"
      "beq    2f                         \n"
      "1:                                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "subs   r5, r5, #1                 \n"
      "bne    1b                         \n"
      "2:                                \n"
      "ands   r7, r7, #63                \n"
      "beq    4f                         \n"
      "3:                                \n"
      "vctp.8 r7                         \n"
      "vpst                              \n"
      "vldrbt.8 q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 r8, q0, q2                \n"
      "vldrb.8  q3, [r3], #16            \n"
      "vmladava.s8 r10, q0, q3               \n"
      "vldrb.8  q1, [r3], #16            \n"
      "vmladava.s8 r12, q0, q1               \n"
      "vldrb.8  q2, [r3], #16            \n"
      "vmladava.s8 lr, q0, q2                \n"
      "subs   r7, r7, #16                \n"
      "bgt    3b                         \n"
      "4:                                \n"
      "vmov   q0[2], q0[0], r0, r4       \n"  // rows 0, 2
      "vmov   q0[3], q0[1], r2, r6       \n"  // rows 1, 3
      "vmov   q1[2], q1[0], r8, r12      \n"  // rows 4, 6
      "vmov   q1[3], q1[1], r10, lr      \n"  // rows 5, 7
      "ldrd   r0, r2, [r9, #24]          \n"  // multiplier, shift
      "ldrd   r4, r6, [r9, #40]          \n"  // output_offset, cb
      "vadd.i32 q0, q0, r6               \n"
      "vadd.i32 q1, q1, r6               \n"
      "ldr    r7, [r9, #48]              \n"
      "cbz    r7, 6f                     \n"  // double rounding
      "cbz    r2, 6f                     \n"  // single rounding, shift 0: the rounding doubling multiply
      "vqdmulh.s32 q0, q0, r0            \n"  // single rounding: floor(acc·q / 2^31), then one rounding shift
      "vqdmulh.s32 q1, q1, r0            \n"
      "b      7f                         \n"
      "6:                                \n"
      "vqrdmulh.s32 q0, q0, r0           \n"
      "vqrdmulh.s32 q1, q1, r0           \n"
      "vdup.32 q2, r2                    \n"  // round half away from zero (CMSIS-NN arm_divide_by_power_of_two_mve)
      "vand   q3, q0, q2                 \n"
      "vshr.s32 q3, q3, #31              \n"
      "vqadd.s32 q0, q0, q3              \n"
      "vand   q3, q1, q2                 \n"
      "vshr.s32 q3, q3, #31              \n"
      "vqadd.s32 q1, q1, q3              \n"
      "7:                                \n"
      "vrshl.s32 q0, r2                  \n"
      "vrshl.s32 q1, r2                  \n"
      "vqadd.s32 q0, q0, r4              \n"
      "vqadd.s32 q1, q1, r4              \n"
      "vmax.s32 q0, q0, q4               \n"
      "vmin.s32 q0, q0, q5               \n"
      "vmax.s32 q1, q1, q4               \n"
      "vmin.s32 q1, q1, q5               \n"
      "ldr    r0, [r9, #12]              \n"  // y_end
      "ldr    r4, [r9, #20]              \n"  // y
      "vstrb.32 q0, [r4]                 \n"
      "vstrb.32 q1, [r4, #4]             \n"
      "adds   r4, r4, #8                 \n"
      "str    r4, [r9, #20]              \n"
      "cmp    r4, r0                     \n"
      "bne    5b                         \n"
      "str    r3, [r9, #4]               \n"
      "str    r11, [r9, #16]             \n"
      "vpop   {d8-d11}                   \n"
      "pop    {r4-r11, pc}               \n");
}

/// The narrow per-tensor s8 kernel over whole 4-row tiles of row-major weights (operands as
/// `s8_packed_run`, `w` = first row of the first tile, advanced by 4·cols per tile): per tile the four
/// accumulators start at kernel_sum, run the `dot4_s8` loops (64 columns per step), and are
/// requantized and stored like `linear_s8_packed_run`, all in one assembly loop.
/// Registers: r0, r2, r4, r6 accumulators, r1 x, r3/r5/r7/r8 the four rows, r9 operands, r11
/// kernel_sum, r12 cols, lr loop counter; q4/q5 (saved) the activation bounds.
[[gnu::naked, gnu::noinline]] inline void linear_s8_run4(s8_packed_run* /*r0*/) noexcept {
  __asm volatile(
      "push   {r4-r11, lr}               \n"
      "vpush  {d8-d11}                   \n"
      "mov    r9, r0                     \n"
      "ldrd   r2, r3, [r9, #32]          \n"
      "vdup.32 q4, r2                    \n"  // act_min
      "vdup.32 q5, r3                    \n"  // act_max
      "ldr    r11, [r9, #16]             \n"  // kernel_sum
      "5:                                \n"
      "ldr    r1, [r9]                   \n"  // x
      "ldr    r12, [r9, #8]              \n"  // cols
      "ldr    r3, [r9, #4]               \n"  // row 0
      "add    r5, r3, r12                \n"
      "add    r7, r5, r12                \n"
      "add    r8, r7, r12                \n"
      "add    r10, r8, r12               \n"  // next tile (the tail loop's write-back overshoots cols)
      "str    r10, [r9, #4]              \n"
      "ldrd   r0, r2, [r11]              \n"
      "ldrd   r4, r6, [r11, #8]          \n"
      "adds   r11, r11, #16              \n"
      "lsr    lr, r12, #6                \n"
      "wls    lr, lr, 2f                 \n"
      "1:                                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16           \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r5], #16           \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r7], #16           \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r8], #16           \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16           \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r5], #16           \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r7], #16           \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r8], #16           \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16           \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r5], #16           \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r7], #16           \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r8], #16           \n"
      "vmladava.s8 r6, q0, q1                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16           \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r5], #16           \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r7], #16           \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r8], #16           \n"
      "vmladava.s8 r6, q0, q1                \n"
      "le     lr, 1b                     \n"
      "2:                                \n"
      "and    lr, r12, #63               \n"
      "wlstp.8 lr, lr, 4f                \n"
      "3:                                \n"
      "vldrb.8  q0, [r1], #16            \n"
      "vldrb.8  q1, [r3], #16           \n"
      "vmladava.s8 r0, q0, q1                \n"
      "vldrb.8  q2, [r5], #16           \n"
      "vmladava.s8 r2, q0, q2                \n"
      "vldrb.8  q3, [r7], #16           \n"
      "vmladava.s8 r4, q0, q3                \n"
      "vldrb.8  q1, [r8], #16           \n"
      "vmladava.s8 r6, q0, q1                \n"
      "letp   lr, 3b                     \n"
      "4:                                \n"
      "vmov   q0[2], q0[0], r0, r4       \n"
      "vmov   q0[3], q0[1], r2, r6       \n"
      "ldrd   r0, r2, [r9, #24]          \n"  // multiplier, shift
      "ldrd   r4, r6, [r9, #40]          \n"  // output_offset, cb
      "vadd.i32 q0, q0, r6               \n"
      "ldr    r7, [r9, #48]              \n"
      "cbz    r7, 6f                     \n"  // double rounding
      "cbz    r2, 6f                     \n"  // single rounding, shift 0
      "vqdmulh.s32 q0, q0, r0            \n"
      "b      7f                         \n"
      "6:                                \n"
      "vqrdmulh.s32 q0, q0, r0           \n"
      "vdup.32 q2, r2                    \n"
      "vand   q3, q0, q2                 \n"
      "vshr.s32 q3, q3, #31              \n"
      "vqadd.s32 q0, q0, q3              \n"
      "7:                                \n"
      "vrshl.s32 q0, r2                  \n"
      "vqadd.s32 q0, q0, r4              \n"
      "vmax.s32 q0, q0, q4               \n"
      "vmin.s32 q0, q0, q5               \n"
      "ldr    r0, [r9, #12]              \n"  // y_end
      "ldr    r4, [r9, #20]              \n"  // y
      "vstrb.32 q0, [r4]                 \n"
      "adds   r4, r4, #4                 \n"
      "str    r4, [r9, #20]              \n"
      "cmp    r4, r0                     \n"
      "bne    5b                         \n"
      "str    r11, [r9, #16]             \n"
      "vpop   {d8-d11}                   \n"
      "pop    {r4-r11, pc}               \n");
}

/// Σ_c x[c]·w[c] + acc for one row. Preconditions: 1 ≤ cols ≤ 65536, the sum fits int32.
inline std::int32_t dot1_s8(const std::int8_t* x, const std::int8_t* w, std::int32_t cols,
                            std::int32_t acc) noexcept {
  __asm volatile(
      "wlstp.8 lr, %[cols], 2f           \n"
      "1:                                \n"
      "vldrb.8  q0, [%[x]], #16          \n"
      "vldrb.8  q1, [%[w]], #16          \n"
      "vmladava.s8 %[a], q0, q1          \n"
      "letp   lr, 1b                     \n"
      "2:                                \n"
      : [a] "+Te"(acc), [x] "+r"(x), [w] "+r"(w)
      : [cols] "r"(cols)
      : "q0", "q1", "lr", "memory");
  return acc;
}

/// Σ_c v[c] over cols int8 values (exact in int32 for cols < 2^24). Preconditions: cols ≥ 0.
inline std::int32_t sum_s8(const std::int8_t* v, std::int32_t cols) noexcept {
  std::int32_t acc = 0;
  __asm volatile(
      "wlstp.8 lr, %[cols], 2f           \n"
      "1:                                \n"
      "vldrb.8  q0, [%[v]], #16          \n"
      "vaddva.s8 %[a], q0                \n"
      "letp   lr, 1b                     \n"
      "2:                                \n"
      : [a] "+Te"(acc), [v] "+r"(v)
      : [cols] "r"(cols)
      : "q0", "lr", "memory");
  return acc;
}

/// Σ of `chunks` ≥ 1 runs of 16 int8 values, 128 bytes apart (one row of a `pack_weights_s8` group:
/// Σw of that row, the padding columns being zero). Exact in int32 for chunks < 2^20.
inline std::int32_t sum_s8_packed_row(const std::int8_t* v, std::int32_t chunks) noexcept {
  std::int32_t acc = 0;
  __asm volatile(
      "wls    lr, %[n], 2f               \n"
      "1:                                \n"
      "vldrb.8  q0, [%[v]]               \n"
      "adds   %[v], #128                 \n"
      "vaddva.s8 %[a], q0                \n"
      "le     lr, 1b                     \n"
      "2:                                \n"
      : [a] "+Te"(acc), [v] "+r"(v)
      : [n] "r"(chunks)
      : "q0", "lr", "memory", "cc");
  return acc;
}

/// One 4-row tile of the s16 × s8 linear kernel: operands, per-row requantization parameters and
/// output of `linear_s16_tile`. Layout is fixed (the assembly uses the byte offsets noted).
struct s16_tile {
  const std::int16_t* x = nullptr;   ///< +0: input vector [cols]
  const std::int8_t* w = nullptr;    ///< +4: weight rows [4][cols], row stride cols
  std::int32_t cols = 0;             ///< +8: ≥ 1
  const std::int64_t* bias = nullptr;///< +12: bias of the 4 rows, or null
  std::int16_t* out = nullptr;       ///< +16: 4 outputs
  std::int32_t act_min = 0;          ///< +20
  std::int32_t act_max = 0;          ///< +24
  std::int32_t stride = 0;           ///< +28: weight row stride in bytes (cols, or 0: four copies of one row)
  std::uint32_t m16_t[8] = {};       ///< +32: {reduced multiplier m16 (0..32767), right shift t (1..62)} per row
};

/// Computes one s16 tile: acc_i = bias_i + Σ_c x[c]·w_i[c] with 64-bit `VMLALDAVA.S16` accumulation
/// (exact for any cols), y_i = clamp((acc_i·m16_i + 2^(t_i−1)) >> t_i, act_min, act_max) — `UMULL`/
/// `MLA` 64×16-bit product, `SQRSHRL` rounding shift, `SQSHLL #32` saturation to int32, vector clamp
/// and `VSTRH.32`. Exact while |acc_i| < 2^47 (then |acc·m16| < 2^62). Out of line (AAPCS, naked):
/// the loop needs all of r0–r12 and lr. Widening loads need low base registers: w0..w3 in r0..r3,
/// x in r12, accumulators r4:r5, r6:r7, r8:r9, r10:r11, lr = loop counter.
[[gnu::naked, gnu::noinline]] inline void linear_s16_tile(const s16_tile* /*r0*/) noexcept {
  __asm volatile(
      "push   {r4-r11, lr}               \n"
      "push   {r0, r1}                   \n"  // [sp] = tile
      "ldr    r3, [r0, #12]              \n"  // bias
      "cbz    r3, 5f                     \n"
      "ldrd   r4, r5, [r3]               \n"
      "ldrd   r6, r7, [r3, #8]           \n"
      "ldrd   r8, r9, [r3, #16]          \n"
      "ldrd   r10, r11, [r3, #24]        \n"
      "b      6f                         \n"
      "5:                                \n"
      "movs   r4, #0                     \n"
      "movs   r5, #0                     \n"
      "movs   r6, #0                     \n"
      "movs   r7, #0                     \n"
      "mov    r8, r4                     \n"
      "mov    r9, r4                     \n"
      "mov    r10, r4                    \n"
      "mov    r11, r4                    \n"
      "6:                                \n"
      "ldr    r12, [r0]                  \n"  // x
      "ldr    lr, [r0, #8]               \n"  // cols
      "ldr    r3, [r0, #28]              \n"  // stride
      "ldr    r0, [r0, #4]               \n"  // w0
      "add    r1, r0, r3                 \n"  // w1
      "add    r2, r1, r3                 \n"  // w2
      "add    r3, r2, r3                 \n"  // w3
      "lsr    lr, lr, #4                 \n"
      "wls    lr, lr, 2f                 \n"
      "1:                                \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "le     lr, 1b                     \n"
      "2:                                \n"
      "ldr    lr, [sp]                   \n"
      "ldr    lr, [lr, #8]               \n"
      "and    lr, lr, #15                \n"
      "wlstp.16 lr, lr, 4f               \n"
      "3:                                \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "letp   lr, 3b                     \n"
      "4:                                \n"
      "ldr    r12, [sp]                  \n"
      "ldrd   r2, r3, [r12, #32]         \n"  // row 0
      "umull  r0, r1, r4, r2             \n"
      "mla    r1, r5, r2, r1             \n"
      "sqrshrl r0, r1, #64, r3           \n"
      "sqshll r0, r1, #32                \n"
      "mov    r4, r1                     \n"
      "ldrd   r2, r3, [r12, #40]         \n"  // row 1
      "umull  r0, r1, r6, r2             \n"
      "mla    r1, r7, r2, r1             \n"
      "sqrshrl r0, r1, #64, r3           \n"
      "sqshll r0, r1, #32                \n"
      "mov    r6, r1                     \n"
      "ldrd   r2, r3, [r12, #48]         \n"  // row 2
      "umull  r0, r1, r8, r2             \n"
      "mla    r1, r9, r2, r1             \n"
      "sqrshrl r0, r1, #64, r3           \n"
      "sqshll r0, r1, #32                \n"
      "mov    r8, r1                     \n"
      "ldrd   r2, r3, [r12, #56]         \n"  // row 3
      "umull  r0, r1, r10, r2            \n"
      "mla    r1, r11, r2, r1            \n"
      "sqrshrl r0, r1, #64, r3           \n"
      "sqshll r0, r1, #32                \n"
      "vmov   q0[2], q0[0], r4, r8       \n"  // lane 0 = r4, lane 2 = r8
      "vmov   q0[3], q0[1], r6, r1       \n"  // lane 1 = r6, lane 3 = r1
      "ldrd   r2, r3, [r12, #20]         \n"  // act_min, act_max
      "vdup.32 q1, r2                    \n"
      "vdup.32 q2, r3                    \n"
      "vmax.s32 q0, q0, q1               \n"
      "vmin.s32 q0, q0, q2               \n"
      "ldr    r0, [r12, #16]             \n"  // out
      "vstrh.32 q0, [r0]                 \n"
      "add    sp, sp, #8                 \n"
      "pop    {r4-r11, pc}               \n");
}

/// Operands of `linear_s16_run` (layout fixed: the assembly uses the byte offsets noted).
struct s16_run {
  const std::int16_t* x = nullptr;     ///< +0: input vector [cols]
  const std::int8_t* w = nullptr;      ///< +4: weight rows of the first tile (row-major, stride cols); advanced
  std::int32_t cols = 0;               ///< +8: ≥ 1
  std::int16_t* out_end = nullptr;     ///< +12: out + 4·(number of tiles), ≥ 1 tile
  const std::int64_t* bias = nullptr;  ///< +16: one per covered row, or null; advanced
  std::int16_t* out = nullptr;         ///< +20: one per covered row; advanced
  std::int32_t act_min = 0;            ///< +24
  std::int32_t act_max = 0;            ///< +28
  std::uint32_t m16 = 0;               ///< +32: reduced multiplier (per tensor)
  std::uint32_t t = 0;                 ///< +36: right shift 15 − shift (1..62)
  std::int32_t tail = 0;               ///< +40: cols % 64
};

/// The per-tensor s16 × s8 kernel over `groups` consecutive 4-row tiles, as `linear_s16_tile` but in
/// one assembly loop (no call, reload or struct set-up per tile) and 64 columns per step (eight
/// `VLDRH.16`, 32 widening `VLDRB.S16`, 32 `VMLALDAVA.S16`, `LE`: 73 instructions per 256 MACs);
/// same requantization. Exact while every |acc| < 2^47. Out of line (AAPCS, naked): q4/q5 (saved)
/// hold the activation bounds.
[[gnu::naked, gnu::noinline]] inline void linear_s16_run(s16_run* /*r0*/) noexcept {
  __asm volatile(
      "push   {r4-r11, lr}               \n"
      "vpush  {d8-d11}                   \n"
      "push   {r0, r1}                   \n"  // [sp] = run
      "ldrd   r2, r3, [r0, #24]          \n"
      "vdup.32 q4, r2                    \n"
      "vdup.32 q5, r3                    \n"
      "mov    r12, r0                    \n"  // r12 = run at the top of every tile
      "5:                                \n"
      "ldr    lr, [r12, #8]              \n"  // cols
      "ldr    r0, [r12, #4]              \n"  // w0
      "add    r1, r0, lr                 \n"
      "add    r2, r1, lr                 \n"
      "add    r3, r2, lr                 \n"
      "add    r4, r3, lr                 \n"  // the next tile (the tail loop's write-back overshoots cols)
      "str    r4, [r12, #4]              \n"
      "ldr    r4, [r12, #16]             \n"  // bias
      "cbz    r4, 8f                     \n"
      "add    r5, r4, #32                \n"
      "str    r5, [r12, #16]             \n"
      "ldrd   r6, r7, [r4, #8]           \n"
      "ldrd   r8, r9, [r4, #16]          \n"
      "ldrd   r10, r11, [r4, #24]        \n"
      "ldrd   r4, r5, [r4]               \n"
      "b      9f                         \n"
      "8:                                \n"
      "movs   r5, #0                     \n"
      "movs   r6, #0                     \n"
      "movs   r7, #0                     \n"
      "mov    r8, r4                     \n"
      "mov    r9, r4                     \n"
      "mov    r10, r4                    \n"
      "mov    r11, r4                    \n"
      "9:                                \n"
      "ldr    r12, [r12]                 \n"  // x
      "lsr    lr, lr, #6                 \n"
      "wls    lr, lr, 2f                 \n"
      "1:                                \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "le     lr, 1b                     \n"
      "2:                                \n"
      "ldr    lr, [sp]                   \n"
      "ldr    lr, [lr, #40]              \n"  // cols % 64
      "wlstp.16 lr, lr, 4f               \n"
      "3:                                \n"
      "vldrh.16  q0, [r12], #16          \n"
      "vldrb.s16 q1, [r0], #8            \n"
      "vmlaldava.s16 r4, r5, q0, q1      \n"
      "vldrb.s16 q2, [r1], #8            \n"
      "vmlaldava.s16 r6, r7, q0, q2      \n"
      "vldrb.s16 q3, [r2], #8            \n"
      "vmlaldava.s16 r8, r9, q0, q3      \n"
      "vldrb.s16 q1, [r3], #8            \n"
      "vmlaldava.s16 r10, r11, q0, q1    \n"
      "letp   lr, 3b                     \n"
      "4:                                \n"
      "ldr    r12, [sp]                  \n"
      "ldrd   r2, r3, [r12, #32]         \n"  // m16, t
      "umull  r0, r1, r4, r2             \n"  // row 0: r0:r5 = acc·m16
      "mla    r5, r5, r2, r1             \n"
      "sqrshrl r0, r5, #64, r3           \n"
      "sqshll r0, r5, #32                \n"  // r5 = saturated int32 result
      "umull  r0, r1, r6, r2             \n"  // row 1 → r7
      "mla    r7, r7, r2, r1             \n"
      "sqrshrl r0, r7, #64, r3           \n"
      "sqshll r0, r7, #32                \n"
      "umull  r0, r1, r8, r2             \n"  // row 2 → r9
      "mla    r9, r9, r2, r1             \n"
      "sqrshrl r0, r9, #64, r3           \n"
      "sqshll r0, r9, #32                \n"
      "umull  r0, r1, r10, r2            \n"  // row 3 → r11
      "mla    r11, r11, r2, r1           \n"
      "sqrshrl r0, r11, #64, r3          \n"
      "sqshll r0, r11, #32               \n"
      "vmov   q0[2], q0[0], r5, r9       \n"
      "vmov   q0[3], q0[1], r7, r11      \n"
      "vmax.s32 q0, q0, q4               \n"
      "vmin.s32 q0, q0, q5               \n"
      "ldr    r0, [r12, #20]             \n"  // out
      "ldr    r1, [r12, #12]             \n"  // out_end
      "vstrh.32 q0, [r0]                 \n"
      "adds   r0, r0, #8                 \n"
      "str    r0, [r12, #20]             \n"
      "cmp    r0, r1                     \n"
      "bne    5b                         \n"
      "add    sp, sp, #8                 \n"
      "vpop   {d8-d11}                   \n"
      "pop    {r4-r11, pc}               \n");
}

}  // namespace armlower::kernels::detail::mve

#endif  // __ARM_FEATURE_MVE
