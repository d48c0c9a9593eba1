/// @file armlower/kernels/arch/x86/linear_s16_vnni_packed.hpp
/// AVX-512 VNNI microkernel of the pre-packed a16w8 linear (s16 × s8 → s16, int64 bias;
/// `kernels/linear_s16_packed.hpp`; contract: `kernels/linear_args.hpp`). Called only after a cpuid
/// check (`x86_has_avx512_vnni_dq`), compiled with function `target` attributes.
///
/// Layout: the s8 packed VNNI panels (`arch/x86/linear_vnni_packed.hpp`, written by
/// `kernels::pack_linear_s16`): u = w + 128 bytes, 16 channels × 4 K per 64-byte line, 4 panels per
/// group; the int64 row constants hold C[r] = 128·(Σ_k w[r][k] + 128·K).
///
/// Arithmetic (exact integers): each int16 input x is split into two int8 "planes",
/// xh = x >> 8 ∈ [−128, 127] and xl' = (x & 255) − 128 ∈ [−128, 127], so x = 256·xh + xl' + 128. With
/// D_h = Σ_k u·xh and D_l = Σ_k u·xl' (`vpdpbusd`, the planes as two virtual input rows of the s8
/// register tile `vnni_accumulate`):
///   Σ_k w·x = Σ_k (u − 128)·x = 256·D_h + D_l + 128·Σ_k u − 128·Σ_k x = 256·D_h + D_l + C[r] − 128·Σx,
/// as Σ_k u = Σ_k w + 128·K (padded K and channels hold u = 0 and add nothing). One int32 lane of D sums
/// ≤ `vnni_s16p_chunk` / 4 k-groups of 4 products |u·x'| ≤ 255·128: ≤ 1024·130560 < 2^31, exact; chunks
/// are combined in int64 lanes. So the accumulator is Σ x·w exactly (|Σ| ≤ 2^22·K: the int48/int64
/// accumulator of the contract). Requantization, 8 channels at a time (`requantize_s64` with the reduced
/// multiplier, `vpmullq`, exact while |acc|, |acc + bias| < 2^46): where the packing's recorded bound
/// max_r Σ|w| gives |acc| < 2^46 for any input (every practical K), only the bias is range-checked per 8
/// channels (`s16p_requant8`); otherwise, or for a bias beyond the bound, `requant8_s16_vnni` (its per-lane
/// checks and scalar fallback).
/// Tiles: up to 2 batch rows (4 virtual rows) × 64 channels of int32 accumulators in zmm registers.
/// Loop order: for packed weights past `vnni_s16p_outer_min_bytes`, panel groups outer and the tiles' batch
/// row pairs inner, over blocks of batch rows whose planes fit a 64 KiB stack buffer (`vnni_s16p_block_rows`:
/// 16 rows at K ≤ 2048, 8 at 4096; all rows for K > one chunk, whose tiles make their own planes), so a group's
/// weights come from memory once per block, not once per pair; smaller weights, which stay in L2, run pair by
/// pair.
/// Source of the semantics: CMSIS-NN `arm_fully_connected_s16`, TFLite reference `FullyConnected`
/// int16×int8 with int64 bias. Firmware-clean (host only): noexcept, no heap, no static data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/arch/x86/linear_s16_vnni.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>

namespace armlower::kernels::detail {

#if defined(ARMLOWER_X86_AVX512_SIMDE)
#define ARMLOWER_X86_S16P __attribute__((target("avx2")))
#define ARMLOWER_X86_S16P_INLINE __attribute__((target("avx2"), always_inline))
#else
#define ARMLOWER_X86_S16P __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))
#define ARMLOWER_X86_S16P_INLINE \
  __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"), always_inline))
#endif

/// Columns of x split into planes per pass (a multiple of 4; the bound in the file comment).
inline constexpr std::ptrdiff_t vnni_s16p_chunk = 4096;
/// Batch rows per tile (each gives two virtual rows of `vnni_accumulate`).
inline constexpr int vnni_s16p_rows = 2;
/// Bytes of the planes buffer of `linear_s16_packed_vnni` (on the stack): the planes (2 bytes per input
/// element) of every batch row of a block when K is one chunk. 64 KiB holds 8 rows at K 4096: 8 × 4096²
/// ran 1.32× (1.13–1.41) the 32 KiB buffer's 4 + 4 rows, 8 × 1024 × 4096 1.34×, 8 × 2048² 1.04× (Intel Xeon
/// with AMX, 4 process pairs).
inline constexpr std::ptrdiff_t vnni_s16p_plane_bytes = std::ptrdiff_t{64} << 10;
/// Most batch rows of a block of `linear_s16_packed_vnni`.
inline constexpr std::int32_t vnni_s16p_max_block_rows = 16;
/// Batch rows per block of `linear_s16_packed_vnni` for K rounded up to 4 = `kp` ≤ `vnni_s16p_chunk`: as
/// many whole pairs as the planes buffer holds (≥ 2: 2 rows × 2 planes × 4096 = 16 KiB), at most
/// `vnni_s16p_max_block_rows`.
[[nodiscard]] constexpr std::int32_t vnni_s16p_block_rows(std::ptrdiff_t kp) noexcept {
  const std::ptrdiff_t r = vnni_s16p_plane_bytes / (2 * kp) / 2 * 2;
  return static_cast<std::int32_t>(r < vnni_s16p_max_block_rows ? r : vnni_s16p_max_block_rows);
}
static_assert(vnni_s16p_block_rows(vnni_s16p_chunk) >= vnni_s16p_rows);
/// Packed weight bytes above which `linear_s16_packed_vnni` runs blocks of batch rows inside each panel group
/// (file comment, "Loop order"); at or below, one pair of batch rows at a time over all groups (the weights
/// come from L2 for each pair). Intel Xeon with AMX (family 6 model 207, 2 MiB L2), blocked ÷ pair order, process
/// pairs: 8 rows × (K 1024, N 2048: 2 MiB) 1.26–1.49, 8 × 2048² 1.7, 8 × 4096² 1.3–1.5, 3 × 4096² 1.15–1.40,
/// 8 × (K 8200, N 1024) 1.35; at 1 MiB and below 0.89–1.22 (16 × 1024² 0.89, 32 × 1024² 0.93, 8 × 512² 0.94,
/// 8 × 1024² 1.22).
inline constexpr std::ptrdiff_t vnni_s16p_outer_min_bytes = std::ptrdiff_t{1} << 20;

/// Per-call state of `linear_s16_packed_vnni`.
struct vnni_s16p_call {
  const linear_s16_args* a;
  const std::int64_t* c;  // C[r] [Np] (file comment)
  const std::uint8_t* w;  // packed weights
  std::ptrdiff_t kp;      // K rounded up to 4
  // 2^15·wabs < 2^46 (wabs = max_r Σ_k |w[r][k]|, recorded at pack time): |acc| < 2^46 for any input, and a
  // channel group whose |bias| < `bias_lim` = 2^46 − 2^15·wabs has |acc + bias| < 2^46 too: then
  // `requantize_s64`'s product fits int64 and the contract's saturating bias addition is a plain one
  bool safe;
  __m512i bias_lim;
};

/// `requant8_s16_vnni` as a call of its own (the rare checked form: one copy, not one per store site).
[[gnu::noinline]] ARMLOWER_X86_S16P inline __m128i s16p_requant8_checked(const linear_s16_args& a, __m512i acc,
                                                                          std::int32_t ch, int n) noexcept {
  return requant8_s16_vnni(a, acc, ch, n);
}

/// `requant8_s16_vnni` of a `safe` call: acc (int64 lanes, channels ch..ch+7, the first n real) + bias,
/// then its vector form `requant8_s16_vector`; one range check, of the bias (`requant8_s16_vnni` where it
/// fails).
ARMLOWER_X86_S16P_INLINE inline __m128i s16p_requant8(const vnni_s16p_call& s, __m512i acc, std::int32_t ch,
                                                      int n) noexcept {
  const linear_s16_args& a = *s.a;
  const auto valid = static_cast<__mmask8>((1u << n) - 1u);
  if (a.bias != nullptr) {
    const __m512i b = load8_i64(valid, a.bias + ch);
    if (abs_ge64(b, s.bias_lim) != 0) {
      return s16p_requant8_checked(a, acc, ch, n);
    }
    acc = _mm512_add_epi64(acc, b);
  }
  return requant8_s16_vector(a, acc, ch, valid);
}

/// 256·D_h + D_l of one panel half h (8 channels) from the int32 lanes of the two planes, in int64 lanes.
ARMLOWER_X86_S16P_INLINE inline __m512i s16p_combine(__m512i dh, __m512i dl, int h) noexcept {
  return _mm512_add_epi64(ARMLOWER_Z512(slli_epi64, all8, cvt32_64(dh, h), 8), cvt32_64(dl, h));
}

/// Requantizes and stores batch row b, channels [ch, ch + 16) ∩ [0, rows), from Σ x·w − C − … parts:
/// v[h] = 256·D_h + D_l (int64 lanes of half h), to which C[ch..] − 128·Σx is added here.
ARMLOWER_X86_S16P_INLINE inline void s16p_store(const vnni_s16p_call& s, const __m512i* v, std::int32_t ch,
                                                std::int32_t b, std::int64_t xsum) noexcept {
  const linear_s16_args& a = *s.a;
  const int nv = a.rows - ch < 16 ? a.rows - ch : 16;
  const __m512i t = _mm512_set1_epi64(-128 * xsum);
  std::int16_t* out = a.output + static_cast<std::ptrdiff_t>(b) * a.rows + ch;
  for (int h = 0; h < 2 && 8 * h < nv; ++h) {
    const int n = nv - 8 * h < 8 ? nv - 8 * h : 8;
    const __m512i acc = _mm512_add_epi64(_mm512_add_epi64(v[h], _mm512_loadu_si512(s.c + ch + std::ptrdiff_t{8} * h)), t);
    const __m128i y = s.safe ? s16p_requant8(s, acc, ch + 8 * h, n) : s16p_requant8_checked(a, acc, ch + 8 * h, n);
    if (nv == 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + std::ptrdiff_t{8} * h), y);
    } else {
      store_prefix16(out + std::ptrdiff_t{8} * h, y, n);
    }
  }
}

/// `s16p_store` as a call of its own (the stores of long-K tiles: one copy for every tile shape).
[[gnu::noinline]] ARMLOWER_X86_S16P inline void s16p_store_panel(const vnni_s16p_call& s, const __m512i* v, std::int32_t ch,
                                                                 std::int32_t b, std::int64_t xsum) noexcept {
  s16p_store(s, v, ch, b, xsum);
}

/// One tile: batch rows [m0, m0 + MR) × panels p0..p0+NP−1 of group `grp` (`gp` panels), K ≤
/// `vnni_s16p_chunk`: the rows' planes over all of K at `planes` (stride `xs`), their Σx in `xsum`. The
/// accumulators stay in registers from the K loop to the stores (the long-K form is a function of its
/// own, `vnni_s16p_tile_long`: in one body GCC 12 kept this loop's accumulators on the stack).
template <int MR, int NP>
[[gnu::noinline]] ARMLOWER_X86_S16P inline void vnni_s16p_tile(const vnni_s16p_call& s, std::int32_t grp, int gp, int p0,
                                                               std::int32_t m0, const std::int8_t* planes,
                                                               std::ptrdiff_t xs, const std::int64_t* xsum) noexcept {
  constexpr int MV = 2 * MR;
  const std::ptrdiff_t wstride = std::ptrdiff_t{64} * gp;
  const std::uint8_t* w = s.w + static_cast<std::ptrdiff_t>(grp) * vnni_group_panels * vnni_panel * s.kp + std::ptrdiff_t{64} * p0;
  const std::int32_t ch0 = (grp * vnni_group_panels + p0) * vnni_panel;
  __m512i acc[MV * NP];
  vnni_accumulate<MV, NP, vnni_ku<MV, NP>>(acc, w, wstride, planes, xs, 0, s.kp / 4, nullptr);
#pragma GCC unroll 4
  for (int p = 0; p < NP; ++p) {
    const std::int32_t ch = ch0 + p * vnni_panel;
    if (ch >= s.a->rows) break;
#pragma GCC unroll 2
    for (int m = 0; m < MR; ++m) {
      const __m512i v[2] = {s16p_combine(acc[2 * m * NP + p], acc[(2 * m + 1) * NP + p], 0),
                            s16p_combine(acc[2 * m * NP + p], acc[(2 * m + 1) * NP + p], 1)};
      s16p_store(s, v, ch, m0 + m, xsum[m]);
    }
  }
}

/// `vnni_s16p_tile` for K > `vnni_s16p_chunk`: per chunk the planes, the s8 K loop (`vnni_kernel`, D to
/// memory) and 256·D_h + D_l added into int64 sums.
template <int MR, int NP>
[[gnu::noinline]] ARMLOWER_X86_S16P inline void vnni_s16p_tile_long(const vnni_s16p_call& s, std::int32_t grp, int gp,
                                                                    int p0, std::int32_t m0) noexcept {
  constexpr int MV = 2 * MR;
  const linear_s16_args& a = *s.a;
  const std::ptrdiff_t wstride = std::ptrdiff_t{64} * gp;
  const std::uint8_t* w = s.w + static_cast<std::ptrdiff_t>(grp) * vnni_group_panels * vnni_panel * s.kp + std::ptrdiff_t{64} * p0;
  const std::int32_t ch0 = (grp * vnni_group_panels + p0) * vnni_panel;
  alignas(64) std::int8_t pl[MV * vnni_s16p_chunk];
  alignas(64) std::int32_t d[MV * NP * 16];
  __m512i sum[MR * NP * 2];
  for (int i = 0; i < MR * NP * 2; ++i) sum[i] = _mm512_setzero_si512();
  std::int64_t xs_total[MR] = {};
  const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(m0) * a.cols;
  for (std::ptrdiff_t k0 = 0; k0 < a.cols; k0 += vnni_s16p_chunk) {
    const std::ptrdiff_t n = a.cols - k0 < vnni_s16p_chunk ? a.cols - k0 : vnni_s16p_chunk;
    std::int64_t cs[MR];
    s16_planes<MR>(x, a.cols, k0, n, pl, vnni_s16p_chunk, cs);
    vnni_kernel<MV, NP, vnni_ku<MV, NP>>(w + k0 / 4 * wstride, wstride, pl, vnni_s16p_chunk, 0, (n + 3) / 4, nullptr, d);
    for (int m = 0; m < MR; ++m) {
      xs_total[m] += cs[m];
      for (int p = 0; p < NP; ++p) {
        const __m512i dh = _mm512_load_si512(d + 16 * (2 * m * NP + p)), dl = _mm512_load_si512(d + 16 * ((2 * m + 1) * NP + p));
        for (int h = 0; h < 2; ++h) sum[(m * NP + p) * 2 + h] = _mm512_add_epi64(sum[(m * NP + p) * 2 + h], s16p_combine(dh, dl, h));
      }
    }
  }
  for (int p = 0; p < NP; ++p) {
    const std::int32_t ch = ch0 + p * vnni_panel;
    if (ch >= a.rows) break;
    for (int m = 0; m < MR; ++m) s16p_store_panel(s, sum + (m * NP + p) * 2, ch, m0 + m, xs_total[m]);
  }
}

/// Batch rows [m0, m0 + MR) over one group of `gp` panels in tiles of up to 4 panels.
template <int MR>
ARMLOWER_X86_S16P_INLINE inline void vnni_s16p_group(const vnni_s16p_call& s, std::int32_t grp, int gp, std::int32_t m0,
                                                     const std::int8_t* planes, std::ptrdiff_t xs,
                                                     const std::int64_t* xsum) noexcept {
  if (planes == nullptr) {  // K > one chunk
    switch (gp) {
      case 1: vnni_s16p_tile_long<MR, 1>(s, grp, gp, 0, m0); break;
      case 2: vnni_s16p_tile_long<MR, 2>(s, grp, gp, 0, m0); break;
      case 3: vnni_s16p_tile_long<MR, 3>(s, grp, gp, 0, m0); break;
      default: vnni_s16p_tile_long<MR, 4>(s, grp, gp, 0, m0); break;
    }
    return;
  }
  switch (gp) {
    case 1: vnni_s16p_tile<MR, 1>(s, grp, gp, 0, m0, planes, xs, xsum); break;
    case 2: vnni_s16p_tile<MR, 2>(s, grp, gp, 0, m0, planes, xs, xsum); break;
    case 3: vnni_s16p_tile<MR, 3>(s, grp, gp, 0, m0, planes, xs, xsum); break;
    default: vnni_s16p_tile<MR, 4>(s, grp, gp, 0, m0, planes, xs, xsum); break;
  }
}

/// AVX-512 VNNI a16w8 fused linear over a buffer written by `kernels::pack_linear_s16` (VNNI panels;
/// not the row-major form of layers with < 16 rows). Preconditions: `validate(a) == ok`, the buffer's
/// header matches `a`, `geo` = its geometry, CPU has AVX-512 F/BW/VL/DQ/VNNI.
ARMLOWER_X86_S16P inline void linear_s16_packed_vnni(const linear_s16_args& a, const std::uint8_t* packed,
                                                     const packed_s8_geometry& geo) noexcept {
  vnni_s16p_call s;
  s.a = &a;
  s.c = reinterpret_cast<const std::int64_t*>(packed + geo.c64);
  s.w = packed + geo.weights;
  s.kp = round_up(a.cols, 4);
  std::int64_t wabs = 0;  // max_r Σ|w| (the header's `cmax` field in an a16w8 packing)
  std::memcpy(&wabs, packed + offsetof(packed_s8_header, cmax), sizeof wabs);
  s.safe = wabs < (std::int64_t{1} << 31);
  s.bias_lim = _mm512_set1_epi64((std::int64_t{1} << 46) - (wabs << 15));
  const std::int32_t panels = static_cast<std::int32_t>(geo.np / vnni_panel);
  const std::int32_t groups = (panels + vnni_group_panels - 1) / vnni_group_panels;
  const bool one_chunk = a.cols <= vnni_s16p_chunk;
  // Blocks of batch rows; inside a block panel groups outer, the block's pairs inner (file comment, "Loop order":
  // blocks of one pair below `vnni_s16p_outer_min_bytes`).
  alignas(64) std::int8_t pl[vnni_s16p_plane_bytes];  // the planes of the block's rows when K is one chunk
  const bool outer = static_cast<std::ptrdiff_t>(s.kp) * static_cast<std::ptrdiff_t>(geo.np) > vnni_s16p_outer_min_bytes;
  const std::int32_t block = !outer ? vnni_s16p_rows : one_chunk ? vnni_s16p_block_rows(s.kp) : a.batches;  // long K: planes per tile
  for (std::int32_t b0 = 0; b0 < a.batches; b0 += block) {
    const std::int32_t bn = a.batches - b0 < block ? a.batches - b0 : block;
    std::int64_t xsum[vnni_s16p_max_block_rows] = {};  // Σx per row of the block
    if (one_chunk) {
      for (std::int32_t m = 0; m < bn; m += vnni_s16p_rows) {
        const std::int16_t* x = a.input + static_cast<std::ptrdiff_t>(b0 + m) * a.cols;
        std::int8_t* pm = pl + std::ptrdiff_t{2} * m * s.kp;
        if (bn - m >= 2) {
          s16_planes<2>(x, a.cols, 0, a.cols, pm, s.kp, xsum + m);
        } else {
          s16_planes<1>(x, a.cols, 0, a.cols, pm, s.kp, xsum + m);
        }
      }
    }
    for (std::int32_t grp = 0; grp < groups; ++grp) {
      const int gp = panels - grp * vnni_group_panels < vnni_group_panels ? panels - grp * vnni_group_panels
                                                                            : vnni_group_panels;
      for (std::int32_t m = 0; m < bn; m += vnni_s16p_rows) {
        // long K (a block of every row, more than `xsum` holds): the tiles make their own planes and sums
        const std::int8_t* planes = one_chunk ? pl + std::ptrdiff_t{2} * m * s.kp : nullptr;
        const std::int64_t* sums = one_chunk ? xsum + m : nullptr;
        if (bn - m >= 2) {
          vnni_s16p_group<2>(s, grp, gp, b0 + m, planes, s.kp, sums);
        } else {
          vnni_s16p_group<1>(s, grp, gp, b0 + m, planes, s.kp, sums);
        }
      }
    }
  }
}

#undef ARMLOWER_X86_S16P
#undef ARMLOWER_X86_S16P_INLINE

}  // namespace armlower::kernels::detail
