/// @file armlower/kernels/arch/x86/linear_amx_packed.hpp
/// Intel AMX-INT8 microkernel of the pre-packed s8 linear for batches of 8 or more rows
/// (`kernels/linear_packed.hpp`; contract: `kernels/linear_args.hpp`). It reads the buffer of the AVX-512
/// VNNI layout unchanged (`arch/x86/linear_vnni_packed.hpp`): a 16-channel panel's 64-byte lines of
/// successive k-groups, `gp`·64 bytes apart inside a group of `gp` panels, are the 16 rows of a TDPBSUD B
/// tile (16 k-groups × 16 channels × 4 bytes of u = w + 128) loaded with stride `gp`·64.
///
/// Arithmetic: a tile of MR batch rows × 64 K bytes of the input (A, signed, loaded in place with the
/// row stride K) times the B tile of each of the group's panels gives D[m][ch] = Σ_k x·u in int32, the
/// integers `vpdpbusd(u, x)` gives in the VNNI kernel (|D| ≤ 255·128·K < 2^31 for K ≤ 65536, the only
/// K this kernel runs); the k-groups past the last whole 64-byte block and the K % 4 tail are added by the
/// VNNI inner loop (`vnni_kernel`), and the fast or general stores of the VNNI kernel requantize
/// (`vnni_tile_store_fast`): the same bytes as `linear_s8_packed_vnni`, hence as `linear_s8`.
/// Tiles (palette 1): tmm0, tmm1 the MR × 16 int32 accumulators of two panels, tmm2 the input block, tmm3,
/// tmm4 the two weight blocks; a group of 4 panels runs as two passes over K of 2 panels each. Per K block the
/// three loads come first, then the two products; no tile is loaded again before the last product that reads
/// it (one K block later). Against one pass of 4 panels (4 accumulators, 3 weight tiles, tmm5 loaded twice per
/// block) on the Intel Xeon with AMX (family 6 model 207, process pairs, median of 4): 8 × 1024² 1.65×,
/// 8 × 2048² 1.30×, 8 × 4096² 1.09×, 8 × 256² 1.34×, 8 × 512² 1.08×, 16 × 1024² 0.99×; a
/// microbenchmark of the two tile schedules alone (loads and products over the same 1 MiB of panels, no
/// stores): 20–22 against 38–42 ns per KiB of weights.
/// Batch rows come in tiles of 16, then one of 8 when ≥ 8 remain; the
/// last < 8 rows run `linear_s8_packed_vnni`.
/// Source of the semantics: CMSIS-NN `arm_fully_connected_s8`, TFLite reference `FullyConnected` (int8);
/// of the instructions: Intel SDM vol. 2, TDPBSUD / TILELOADD.
/// Firmware-clean (host only): noexcept, no heap, no static data.
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/kernels/arch/x86/amx.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>
#include <armlower/kernels/detail/linear_s8_packed_layout.hpp>
#include <armlower/kernels/linear_args.hpp>

#if defined(ARMLOWER_KERNELS_HAVE_AMX)

namespace armlower::kernels::detail {

/// The tile configuration of `amx_s8_kernel` for MR batch rows.
[[nodiscard]] constexpr amx_tile_config amx_s8_config(int mr) noexcept {
  amx_tile_config c;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = 64;
    c.rows[t] = static_cast<std::uint8_t>(t < 3 ? mr : 16);  // C tiles and the input: MR rows; weights: 16
  }
  return c;
}

/// The configurations of 8 and 16 batch rows as constant data: LDTILECFG from read-only memory, not from a
/// configuration just stored on the stack (whose store-to-load forwarding it waited for: 4.5 % of an
/// 8 × 256² call in a profile).
inline constexpr amx_tile_config amx_s8_config8 = amx_s8_config(8);
inline constexpr amx_tile_config amx_s8_config16 = amx_s8_config(16);

/// 64-byte K blocks ahead that `amx_s8_kernel` prefetches its weights (each of the 16·NP lines of the block,
/// `prefetcht0`) when they exceed `amx_s8_prefetch_min_bytes`. Measured on the AMX Xeon of `amx_s8_applies` in
/// alternating processes during a slow phase of the machine (benchmarks/RESULTS.md): 2 blocks ahead against none,
/// 8 × 2048² 83–115 against 66–99 GMAC/s; 4 blocks ahead no better, every other line or `prefetcht1` no better.
inline constexpr std::ptrdiff_t amx_s8_prefetch_blocks = 2;

/// Packed weight bytes above which `amx_s8_kernel` prefetches (the L2 of the AMX Xeon measured: 2 MiB per core).
/// Below it the weights stay in L2 between calls and the prefetches only take load slots: one process alternating
/// the two, ratio without ÷ with prefetch, five runs: 8 × 1024² (1 MiB) 0.84–1.40, median 1.10; 8 × 512² 1.13; but
/// 8 × 2048² (4 MiB) 0.76–1.10, median 0.96, and 8 × 4096² 0.75–1.10, median ≈ 0.9. Four later runs at 8 × 1024²:
/// 0.87–0.93 in the machine's slow phase, 1.19 in its fast one — the threshold to revisit on a quieter machine.
inline constexpr std::ptrdiff_t amx_s8_prefetch_min_bytes = std::ptrdiff_t{2} << 20;

/// D[m][p·16 + j] (`d`, int32, rows `ds` bytes apart) = Σ over the `blocks` 64-byte K blocks of input rows
/// `x + m·xs` and the NP (1 or 2) panels at `w` (stride `wstride` per k-group); PF: prefetch the weights.
/// Precondition: tiles configured by `amx_s8_config(MR)`.
template <int MR, int NP, bool PF>
[[gnu::noinline]] ARMLOWER_X86_AMX_AVX512 inline void amx_s8_kernel(const std::uint8_t* w, std::ptrdiff_t wstride,
                                                               const std::int8_t* x, std::ptrdiff_t xs,
                                                               std::ptrdiff_t blocks, std::int32_t* d,  // NOLINT(readability-non-const-parameter): written by TILESTORED
                                                               std::ptrdiff_t ds) noexcept {
  static_assert(NP == 1 || NP == 2);
  ARMLOWER_AMX_ZERO(0);
  if constexpr (NP > 1) ARMLOWER_AMX_ZERO(1);
  const std::ptrdiff_t bstep = 16 * wstride;  // 16 k-groups = 64 K bytes
  for (std::ptrdiff_t kb = 0; kb < blocks; ++kb) {
    const std::uint8_t* wb = w + kb * bstep;
    if constexpr (PF) {  // the weight lines of the block 2 ahead (`amx_s8_prefetch_blocks`), every one
      const std::uint8_t* pf = wb + amx_s8_prefetch_blocks * bstep;
#pragma GCC unroll 16
      for (std::ptrdiff_t l = 0; l < 16; ++l) {
        _mm_prefetch(reinterpret_cast<const char*>(pf + l * wstride), _MM_HINT_T0);
        if constexpr (NP > 1) _mm_prefetch(reinterpret_cast<const char*>(pf + l * wstride + 64), _MM_HINT_T0);
      }
    }
    // every load of the block, then the products (file comment, "Tiles")
    ARMLOWER_AMX_LOAD(2, x + 64 * kb, xs);
    ARMLOWER_AMX_LOAD(3, wb, wstride);
    if constexpr (NP > 1) ARMLOWER_AMX_LOAD(4, wb + 64, wstride);
    ARMLOWER_AMX_DPBSUD(0, 2, 3);
    if constexpr (NP > 1) ARMLOWER_AMX_DPBSUD(1, 2, 4);
  }
  ARMLOWER_AMX_STORE(0, d, ds);
  if constexpr (NP > 1) ARMLOWER_AMX_STORE(1, d + 16, ds);
}

/// D of all NP panels of a group (`d` rows NP·64 bytes apart) as passes of 2 panels (file comment, "Tiles").
template <int MR, int NP, bool PF>
ARMLOWER_X86_AMX_AVX512 inline void amx_s8_passes(const std::uint8_t* w, std::ptrdiff_t wstride, const std::int8_t* x,
                                            std::ptrdiff_t xs, std::ptrdiff_t blocks, std::int32_t* d) noexcept {
  constexpr std::ptrdiff_t ds = std::ptrdiff_t{64} * NP;
  amx_s8_kernel<MR, NP < 2 ? NP : 2, PF>(w, wstride, x, xs, blocks, d, ds);
  if constexpr (NP > 2) amx_s8_kernel<MR, NP - 2, PF>(w + 128, wstride, x, xs, blocks, d + 32, ds);
}

/// One MR-row × NP-panel tile (batch rows [m0, m0 + MR), all NP = gp panels of group `grp`): the AMX blocks,
/// the remaining k-groups and the K tail by the VNNI loop, then the VNNI kernel's stores.
template <int MR, int NP>
ARMLOWER_X86_AMX_AVX512 inline void amx_s8_tile(const vnni_s8_call& s, std::int32_t grp, std::int32_t m0,
                                          const std::int64_t* bt) noexcept {
  const linear_s8_args& a = *s.a;
  const std::ptrdiff_t cols = a.cols;
  const std::ptrdiff_t wstride = std::ptrdiff_t{64} * NP;
  const std::uint8_t* w = s.w + static_cast<std::ptrdiff_t>(grp) * vnni_group_panels * vnni_panel * s.kp;
  const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(m0) * cols;
  const std::ptrdiff_t blocks = s.full_groups / 16;
  alignas(64) std::int32_t d[MR * NP * 16];
  if (static_cast<std::ptrdiff_t>(s.kp) * round_up(a.rows, vnni_panel) > amx_s8_prefetch_min_bytes) {
    amx_s8_passes<MR, NP, true>(w, wstride, x, cols, blocks, d);
  } else {
    amx_s8_passes<MR, NP, false>(w, wstride, x, cols, blocks, d);
  }
  if (16 * blocks < s.full_groups || s.has_tail) {
    std::int32_t tail[MR];
    vnni_tails<MR>(s, x, tail);
    alignas(64) std::int32_t e[MR * NP * 16];
    vnni_kernel<MR, NP, 1>(w, wstride, x, cols, 16 * blocks, s.full_groups, s.has_tail ? tail : nullptr, e);
    for (int i = 0; i < MR * NP * 16; ++i) d[i] += e[i];  // |D| < 2^31 (file comment): no wrap
  }
  const std::int32_t ch0 = grp * vnni_group_panels * vnni_panel;
  if (!vnni_tile_store_fast<MR, NP>(s, ch0, m0, bt, reinterpret_cast<const __m512i*>(d)))  // __m512i may alias
    vnni_tile_store_general<MR, NP>(s, ch0, m0, bt, d);
}

/// Batch rows [m0, m0 + MR) over every group (tiles configured by `amx_s8_config(MR)`).
template <int MR>
ARMLOWER_X86_AMX_AVX512 inline void amx_s8_rows(const vnni_s8_call& s, std::int32_t groups, std::int32_t panels,
                                          std::int32_t m0, const std::int64_t* bt) noexcept {
  for (std::int32_t grp = 0; grp < groups; ++grp) {
    const int gp = panels - grp * vnni_group_panels < vnni_group_panels ? panels - grp * vnni_group_panels
                                                                          : vnni_group_panels;
    switch (gp) {
      case 1: amx_s8_tile<MR, 1>(s, grp, m0, bt); break;
      case 2: amx_s8_tile<MR, 2>(s, grp, m0, bt); break;
      case 3: amx_s8_tile<MR, 3>(s, grp, m0, bt); break;
      default: amx_s8_tile<MR, 4>(s, grp, m0, bt); break;
    }
  }
}

/// True if `linear_s8_packed_amx` runs a call of `a` (else the caller runs `linear_s8_packed_vnni`): at least
/// 8 batch rows, 256 ≤ K ≤ 65536 and at least 128 output channels (the VNNI panel layout). Measured on an
/// Intel Xeon with AMX (family 6 model 207) against `linear_s8_packed_vnni` in one process, alternating
/// (benchmarks/RESULTS.md, "Intel Xeon with AMX"): 1.7–2.1× at 8 × 512² … 8 × 1024² (0.83 in one slow-phase run),
/// 1.3–1.5× at 8 × 2048² … 4096², 1.4–2.1× at 16 × 256²; 8 × 256² 0.88–1.35; but 0.60–0.93× for one group of 64 channels
/// (8 × 64², 16 × 64², 8 × 64 × 256), where the tile set-up and the drain of the TDPBSUD pipeline per
/// group are not amortised.
[[nodiscard]] constexpr bool amx_s8_applies(const linear_s8_args& a, const packed_s8_geometry& geo) noexcept {
  return a.batches >= 8 && a.cols >= 256 && a.cols <= vnni_s8_block && a.rows >= 128 && !geo.narrow;
}

/// AMX-INT8 s8 fused linear over a buffer written by `kernels::pack_linear_s8` in the VNNI layout: the same
/// bytes as `linear_s8_packed_vnni`. Preconditions: those of `linear_s8_packed_vnni` (requantized output),
/// `amx_s8_applies(a, geo)`, and `x86_has_amx_int8()`.
ARMLOWER_X86_AMX_AVX512 inline void linear_s8_packed_amx(const linear_s8_args& a, const std::uint8_t* packed,
                                                   const packed_s8_geometry& geo) noexcept {
  const vnni_s8_call s = make_vnni_s8_call(a, packed, geo, nullptr);
  const std::int32_t panels = static_cast<std::int32_t>(round_up(a.rows, vnni_panel) / vnni_panel);
  const std::int32_t groups = (panels + vnni_group_panels - 1) / vnni_group_panels;
  const std::int32_t rows16 = a.batches / 16 * 16;                     // tiles of 16 batch rows
  const std::int32_t amx_rows = rows16 + (a.batches - rows16) / 8 * 8;  // then one of 8 if ≥ 8 rows remain
  std::int64_t bt[16];
  if (rows16 > 0) amx_load_config(amx_s8_config16);
  for (std::int32_t m0 = 0; m0 < rows16; m0 += 16) {
    for (std::int32_t m = 0; m < 16; ++m) bt[m] = vnni_sum_term(a, m0 + m);
    amx_s8_rows<16>(s, groups, panels, m0, bt);
  }
  if (amx_rows > rows16) {
    amx_load_config(amx_s8_config8);
    for (std::int32_t m = 0; m < 8; ++m) bt[m] = vnni_sum_term(a, rows16 + m);
    amx_s8_rows<8>(s, groups, panels, rows16, bt);
  }
  amx_release();
  if (amx_rows < a.batches) {  // the last < 8 rows
    linear_s8_args r = a;
    r.batches = a.batches - amx_rows;
    r.input = a.input + static_cast<std::ptrdiff_t>(amx_rows) * a.cols;
    r.output = a.output + static_cast<std::ptrdiff_t>(amx_rows) * a.rows;
    linear_s8_packed_vnni(r, packed, geo);
  }
}

}  // namespace armlower::kernels::detail

#endif  // ARMLOWER_KERNELS_HAVE_AMX
