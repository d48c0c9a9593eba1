/// @file armlower/kernels/mx/arch/arm_mve.hpp
/// Arm Helium (MVE, Cortex-M55) MATMUL_T_BLOCK_SCALED row kernels, compiled when
/// `__ARM_FEATURE_MVE` is defined. Integer element types are decoded arithmetically in vectors
/// (MVE has no byte table lookup): FP4E2M1 ×2 and FP6E2M3 ×8 → int8, FP6E3M2 ×16 → int16, MXINT8 raw;
/// block sums with `VMLADAVA.S8` / `VMLADAVA.S16` (exact in int32), then `block_acc · (scale_A·scale_B)`
/// accumulated in fp32 in block order — **bit-identical to the pseudocode path** (arch/generic.hpp).
/// FP8E4M3/FP8E5M2 (`fp8_rows`): codes decoded by a gather from the fp32 decode table, 4-lane
/// `VFMA.F32` block sums, `acc += sums · 2^(sa+sb−254)` lane-wise. Sums in another order than the
/// pseudocode: **within the TOSA dot-product bound, not bit-identical**.
/// Loop order: per A row, per chunk of blocks (decoded once into stack buffers), all B rows with the
/// accumulator in registers (kept in the output row between chunks). Firmware-clean.
#pragma once

#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>

#include <bit>
#include <cstddef>
#include <cstdint>

#include <armlower/kernels/mx/arch/generic.hpp>
#include <armlower/mx/e8m0.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::kernels::mx::arch::mve {

/// True when compiled for a core with MVE.
inline constexpr bool available = true;

namespace detail {

/// Minifloat magnitude → integer (value × 2^k): e == 0 ? m : ((1 << mbits) + m) << (e - 1).
inline uint8x16_t mag_to_int(uint8x16_t mag, int mbits) noexcept {
  const uint8x16_t e = vshlq_u8(mag, vdupq_n_s8(static_cast<std::int8_t>(-mbits)));
  const uint8x16_t m = vandq_u8(mag, vdupq_n_u8(static_cast<std::uint8_t>((1u << mbits) - 1u)));
  const uint8x16_t normal = vshlq_u8(vorrq_u8(m, vdupq_n_u8(static_cast<std::uint8_t>(1u << mbits))),
                                     vreinterpretq_s8_u8(vsubq_n_u8(e, 1)));
  return vpselq_u8(m, normal, vcmpeqq_n_u8(e, 0));
}

/// FP4 (16 codes, one per lane, low 4 bits) → signed int8 value ×2.
inline int8x16_t fp4_i8(uint8x16_t c) noexcept {
  const int8x16_t v = vreinterpretq_s8_u8(mag_to_int(vandq_u8(c, vdupq_n_u8(7)), 1));
  return vpselq_s8(vnegq_s8(v), v, vcmpneq_n_u8(vandq_u8(c, vdupq_n_u8(8)), 0));
}

/// FP6E2M3 (16 codes) → signed int8 value ×8.
inline int8x16_t e2m3_i8(uint8x16_t c) noexcept {
  const int8x16_t v = vreinterpretq_s8_u8(mag_to_int(vandq_u8(c, vdupq_n_u8(0x1F)), 3));
  return vpselq_s8(vnegq_s8(v), v, vcmpneq_n_u8(vandq_u8(c, vdupq_n_u8(0x20)), 0));
}

/// FP6E3M2 (8 codes, widened to 16-bit lanes) → signed int16 value ×16.
inline int16x8_t e3m2_i16(uint16x8_t c) noexcept {
  const uint16x8_t mag = vandq_u16(c, vdupq_n_u16(0x1F));
  const uint16x8_t e = vshrq_n_u16(mag, 2);
  const uint16x8_t m = vandq_u16(mag, vdupq_n_u16(3));
  const uint16x8_t normal = vshlq_u16(vorrq_u16(m, vdupq_n_u16(4)), vreinterpretq_s16_u16(vsubq_n_u16(e, 1)));
  const int16x8_t v = vreinterpretq_s16_u16(vpselq_u16(m, normal, vcmpeqq_n_u16(e, 0)));
  return vpselq_s16(vnegq_s16(v), v, vcmpneq_n_u16(vandq_u16(c, vdupq_n_u16(0x20)), 0));
}

/// Integer sum of one block: A decoded into `da` (as int8 ×32 or int16 ×32), B codes at `pb`.
template <dtype::id T>
inline std::int32_t block_sum(const void* da, const std::uint8_t* pb) noexcept {
  if constexpr (T == dtype::id::fp4e2m1) {
    const auto* a = static_cast<const std::int8_t*>(da);
    const uint8x16_t v = vldrbq_u8(pb);
    const int8x16_t lo = fp4_i8(vandq_u8(v, vdupq_n_u8(0x0F)));
    const int8x16_t hi = fp4_i8(vshrq_n_u8(v, 4));
    return vmladavaq_s8(vmladavq_s8(vldrbq_s8(a), lo), vldrbq_s8(a + 16), hi);
  } else if constexpr (T == dtype::id::fp6e2m3) {
    const auto* a = static_cast<const std::int8_t*>(da);
    const int8x16_t b0 = e2m3_i8(vldrbq_u8(pb)), b1 = e2m3_i8(vldrbq_u8(pb + 16));
    return vmladavaq_s8(vmladavq_s8(vldrbq_s8(a), b0), vldrbq_s8(a + 16), b1);
  } else if constexpr (T == dtype::id::mxint8) {
    const auto* a = static_cast<const std::int8_t*>(da);
    const auto* b = reinterpret_cast<const std::int8_t*>(pb);
    return vmladavaq_s8(vmladavq_s8(vldrbq_s8(a), vldrbq_s8(b)), vldrbq_s8(a + 16), vldrbq_s8(b + 16));
  } else {  // fp6e3m2
    const auto* a = static_cast<const std::int16_t*>(da);
    std::int32_t s = 0;
    for (int q = 0; q < 4; ++q) s = vmladavaq_s16(s, vldrhq_s16(a + 8 * q), e3m2_i16(vldrbq_u16(pb + 8 * q)));
    return s;
  }
}

/// Decodes A's block at `pa` into `da` (the layout `block_sum` expects).
template <dtype::id T>
inline void decode_a(const std::uint8_t* pa, std::int8_t* d8, std::int16_t* d16) noexcept {
  if constexpr (T == dtype::id::fp4e2m1) {
    const uint8x16_t v = vldrbq_u8(pa);
    vstrbq_s8(d8, fp4_i8(vandq_u8(v, vdupq_n_u8(0x0F))));
    vstrbq_s8(d8 + 16, fp4_i8(vshrq_n_u8(v, 4)));
  } else if constexpr (T == dtype::id::fp6e2m3) {
    vstrbq_s8(d8, e2m3_i8(vldrbq_u8(pa)));
    vstrbq_s8(d8 + 16, e2m3_i8(vldrbq_u8(pa + 16)));
  } else if constexpr (T == dtype::id::mxint8) {
    for (int i = 0; i < 32; ++i) d8[i] = static_cast<std::int8_t>(pa[i]);
  } else {
    for (int q = 0; q < 4; ++q) vstrhq_s16(d16 + 8 * q, e3m2_i16(vldrbq_u16(pa + 8 * q)));
  }
}

}  // namespace detail

/// FP8 rows (see the file comment): codes decoded by a gather from the constexpr fp32 decode table
/// (`VLDRW.U32` gather with `VLDRB.U32` offsets). Every FP8 value is a normal fp32 and every product
/// of two is one too, so nothing depends on subnormals — MVE floating-point arithmetic may flush
/// them (a bit-trick decode through fp32 subnormals lost the FP8 subnormal codes under QEMU's
/// mps3-an547) — and NaN/Inf codes decode to NaN/Inf,
/// giving the pseudocode's IEEE results without a scan. Block factors that are not a normal fp32
/// (tiny or NaN scales) are applied in scalar fp32 (FZ = 0), as the pseudocode does.
template <dtype::id T>
inline void fp8_rows(const rows_args& r) noexcept {
  static_assert(T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2);
  constexpr std::size_t bs = armlower::mx::block_size;
  constexpr std::size_t chunk = 8;  // A blocks decoded at a time (1 KiB of fp32 on the stack)
  const float* lut = armlower::mx::decode_table(T).data();
  const std::size_t nb = r.c / bs;
  alignas(16) float ad[chunk * bs];
  auto dec = [lut](const std::uint8_t* p) { return vldrwq_gather_shifted_offset_f32(lut, vldrbq_u32(p)); };
  for (std::size_t i = 0; i < r.h; ++i) {
    float* out = r.out + i * r.w;
    const std::uint8_t* sa = r.a_scale + i * nb;
    for (std::size_t b0 = 0; b0 < nb; b0 += chunk) {
      const std::size_t bn = nb - b0 < chunk ? nb - b0 : chunk;
      const std::uint8_t* ai = r.a + i * r.c + b0 * bs;
      for (std::size_t e = 0; e < bn * bs; e += 4) vst1q_f32(ad + e, dec(ai + e));
      for (std::size_t j = 0; j < r.w; ++j) {
        const std::uint8_t* bj = r.b + j * r.c + b0 * bs;
        const std::uint8_t* sb = r.b_scale + j * nb + b0;
        float32x4_t acc = vdupq_n_f32(0.0f);
        float extra = 0.0f;  // blocks whose factor is not a normal fp32
        for (std::size_t k = 0; k < bn; ++k) {
          const std::uint8_t* pb = bj + k * bs;
          const float* pa = ad + k * bs;
          float32x4_t s = vmulq_f32(dec(pb), vld1q_f32(pa));
          for (std::size_t q = 4; q < bs; q += 4) s = vfmaq_f32(s, dec(pb + q), vld1q_f32(pa + q));
          const int ka = int(sa[b0 + k]), kb = int(sb[k]);
          const int kk = ka + kb - 127;  // biased exponent of 2^(ka-127) · 2^(kb-127)
          if (ka < 255 && kb < 255 && kk >= 1 && kk <= 254) {
            acc = vfmaq_n_f32(acc, s, std::bit_cast<float>(static_cast<std::uint32_t>(kk) << 23));
          } else {
            const float block = (vgetq_lane_f32(s, 0) + vgetq_lane_f32(s, 1)) + (vgetq_lane_f32(s, 2) + vgetq_lane_f32(s, 3));
            extra += block * arch::detail::scale_product(sa[b0 + k], sb[k], 0);
          }
        }
        const float sum =
            ((vgetq_lane_f32(acc, 0) + vgetq_lane_f32(acc, 1)) + (vgetq_lane_f32(acc, 2) + vgetq_lane_f32(acc, 3))) + extra;
        out[j] = b0 == 0 ? sum : out[j] + sum;
      }
    }
  }
}

/// MVE rows for every MX element type (see the file comment for exactness).
template <dtype::id T>
inline void rows(const rows_args& r) noexcept {
  if constexpr (T == dtype::id::fp8e4m3 || T == dtype::id::fp8e5m2) {
    fp8_rows<T>(r);
  } else {
    constexpr std::size_t bs = armlower::mx::block_size;
    constexpr std::size_t block_bytes = armlower::mx::storage_bytes(T, bs);
    constexpr std::size_t chunk = 16;  // A blocks decoded at a time (stack: 16·32 int8 or int16)
    constexpr bool wide = T == dtype::id::fp6e3m2;
    const float unscale = armlower::mx::detail::pow2f(-2 * armlower::mx::format(T).int_shift);
    const std::size_t stride = armlower::mx::storage_bytes(T, r.c);
    const std::size_t nb = r.c / bs;
    alignas(16) std::int8_t d8[wide ? 1 : chunk][32];
    alignas(16) std::int16_t d16[wide ? chunk : 1][32];
    alignas(16) float sa[chunk];
    for (std::size_t i = 0; i < r.h; ++i) {
      float* out = r.out + i * r.w;
      for (std::size_t b0 = 0; b0 < nb; b0 += chunk) {
        const std::size_t bn = nb - b0 < chunk ? nb - b0 : chunk;
        for (std::size_t k = 0; k < bn; ++k) {
          detail::decode_a<T>(r.a + i * stride + (b0 + k) * block_bytes, d8[wide ? 0 : k], d16[wide ? k : 0]);
          sa[k] = armlower::mx::decode_e8m0(r.a_scale[i * nb + b0 + k]);
        }
        for (std::size_t j = 0; j < r.w; ++j) {
          const std::uint8_t* bj = r.b + j * stride + b0 * block_bytes;
          const std::uint8_t* sj = r.b_scale + j * nb + b0;
          float acc = b0 == 0 ? 0.0f : out[j];  // fp32 accumulation in block order, as the pseudocode
          for (std::size_t k = 0; k < bn; ++k) {
            const void* da = wide ? static_cast<const void*>(d16[k]) : static_cast<const void*>(d8[k]);
            const std::int32_t s = detail::block_sum<T>(da, bj + k * block_bytes);
            float block_acc = static_cast<float>(s) * unscale;
            block_acc *= (sa[k] * armlower::mx::decode_e8m0(sj[k]));
            acc += block_acc;
          }
          out[j] = acc;
        }
      }
    }
  }
}

}  // namespace armlower::kernels::mx::arch::mve

#else
namespace armlower::kernels::mx::arch::mve {
/// False: not compiled for a core with MVE.
inline constexpr bool available = false;
}  // namespace armlower::kernels::mx::arch::mve
#endif
