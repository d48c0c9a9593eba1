/// @file armlower/kernels/arch/mve/detail/dot.hpp
/// Helium (Arm MVE) inner loops of the fused linear kernels: dot products of one input vector with
/// four (or one) weight rows, and row/vector sums. Internal to `kernels/arch/mve/linear.hpp`.
///
/// All loops are written in assembly so that the instruction sequence per step is exactly the
/// minimum (the compiler's MVE code generation around predication and register pressure adds 30–60 %):
/// - s8 × s8, 4 rows: per 32 columns two input loads, eight weight loads (`VLDRB.8`) and eight
///   `VMLADAVA.S8` (16 products reduced into a scalar int32 accumulator each) in a `WLS`/`LE`
///   low-overhead loop; the last `cols % 32` columns run in a tail-predicated `WLSTP.8`/`LETP` loop,
///   so no lane beyond `cols` is read.
/// - s16 × s8, 4 rows: `VLDRH.16` input, widening `VLDRB.S16` weight loads and `VMLALDAVA.S16`
///   into **64-bit** accumulators (exact for any number of columns, unlike CMSIS-NN's 512-column
///   int32 phase), 16 columns per step, tail-predicated remainder.
/// The int32 accumulators of the s8 loops are exact for cols ≤ 65536 (|x·w| ≤ 2^14); callers split
/// longer rows. Pointers need no alignment beyond their element type.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include <cstdint>

namespace armlower::kernels::detail::mve {

/// Σ_c x[c]·w_i[c] for the four rows w_i = w + i·stride, c in [0, cols), added to acc[i].
/// Preconditions: 1 ≤ cols ≤ 65536 (int32 exactness), acc values such that the sums fit int32.
inline void dot4_s8(const std::int8_t* x, const std::int8_t* w, std::int32_t cols, std::int32_t stride,
                    std::int32_t (&acc)[4]) noexcept {
  const std::int8_t* w0 = w;
  const std::int8_t* w1 = w0 + stride;
  const std::int8_t* w2 = w1 + stride;
  const std::int8_t* w3 = w2 + stride;
  std::int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  std::int32_t n;
  __asm volatile(
      "lsrs   %[n], %[cols], #5          \n"
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
      "le     lr, 1b                     \n"
      "2:                                \n"
      "and    %[n], %[cols], #31         \n"
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
      : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [x] "+r"(x), [w0] "+r"(w0),
        [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [n] "=&r"(n)
      : [cols] "r"(cols)
      : "q0", "q1", "q2", "q3", "lr", "memory", "cc");
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  acc[3] = a3;
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

/// Σ_c x[c]·w_i[c] for the four rows w_i = w + i·stride, c in [0, cols), added to the int64 acc[i]
/// (64-bit VMLALDAVA accumulation: exact for any cols ≥ 1 as long as the sums fit int64).
/// Out of line (AAPCS, naked): the loop needs all of r0–r12 and lr.
[[gnu::naked, gnu::noinline]] inline void dot4_s16(const std::int16_t* /*x: r0*/, const std::int8_t* /*w: r1*/,
                                                  std::int32_t /*cols: r2*/, std::int32_t /*stride: r3*/,
                                                  std::int64_t* /*acc: [sp]*/) noexcept {
  // Registers: widening loads (VLDRB.S16) need a low base register: w0..w3 in r0..r3; x in r12;
  // accumulators (RdaLo even, RdaHi odd) r4:r5, r6:r7, r8:r9, r10:r11; lr = loop counter.
  __asm volatile(
      "push   {r4-r11, lr}               \n"
      "ldr    r12, [sp, #36]             \n"  // acc (5th argument, above the 9 saved registers)
      "push   {r2, r12}                  \n"  // [sp] = cols, [sp+4] = acc
      "ldrd   r4, r5, [r12]              \n"
      "ldrd   r6, r7, [r12, #8]          \n"
      "ldrd   r8, r9, [r12, #16]         \n"
      "ldrd   r10, r11, [r12, #24]       \n"
      "mov    r12, r0                    \n"  // x
      "mov    r0, r1                     \n"  // w0
      "add    r1, r0, r3                 \n"  // w1
      "add    r2, r1, r3                 \n"  // w2
      "add    r3, r2, r3                 \n"  // w3
      "ldr    lr, [sp]                   \n"
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
      "ldr    r12, [sp, #4]              \n"
      "strd   r4, r5, [r12]              \n"
      "strd   r6, r7, [r12, #8]          \n"
      "strd   r8, r9, [r12, #16]         \n"
      "strd   r10, r11, [r12, #24]       \n"
      "add    sp, sp, #8                 \n"
      "pop    {r4-r11, pc}               \n");
}

/// Σ_c x[c]·w[c] + acc for one row, 64-bit accumulation (exact for any cols ≥ 0).
inline std::int64_t dot1_s16(const std::int16_t* x, const std::int8_t* w, std::int32_t cols,
                             std::int64_t acc) noexcept {
  // A 64-bit operand occupies an even/odd register pair (%Q low, %R high), as VMLALDAVA requires.
  std::uint64_t a = static_cast<std::uint64_t>(acc);
  __asm volatile(
      "wlstp.16 lr, %[cols], 2f          \n"
      "1:                                \n"
      "vldrh.16  q0, [%[x]], #16         \n"
      "vldrb.s16 q1, [%[w]], #8          \n"
      "vmlaldava.s16 %Q[a], %R[a], q0, q1 \n"
      "letp   lr, 1b                     \n"
      "2:                                \n"
      : [a] "+r"(a), [x] "+r"(x), [w] "+l"(w)  // widening load: low base register
      : [cols] "r"(cols)
      : "q0", "q1", "lr", "memory");
  return static_cast<std::int64_t>(a);
}

}  // namespace armlower::kernels::detail::mve

#endif  // __ARM_FEATURE_MVE
