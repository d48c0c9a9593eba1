/// @file armlower/kernels/arch/x86/linear_amx_rowmajor.hpp
/// Intel AMX-INT8 s8 fused linear over ROW-MAJOR weights (no buffer; contract: `kernels/linear_args.hpp`) for
/// groups of 8 batch rows: the form `linear_s8_rowgroup_vnni` (`linear_vnni_rowgroup.hpp`) hands its groups of 8 to
/// where `amx_rowmajor_applies`.
///
/// Roles: the weights are the A tiles, loaded in place (16 weight rows × 64 K bytes, row stride K, signed); the
/// group's inputs, copied once per group of 8 batch rows to the stack in the VNNI pairing (`amx_rowmajor_copy`: row g of the copy
/// holds x[m][4g..4g+3] for the 8 batch rows m, 32 bytes), are the B tiles. C[ch][m] (16 channels × 8 batch rows of
/// int32), stored 32 bytes per channel, is the layout `vnni_rowgroup_store` takes (vector j = channels 2j, 2j + 1 ×
/// 8 batch rows), so the requantization is the row-group form's.
/// Arithmetic: in the row-group form's bias order (`vnni_rowgroup_wu` false) the copy holds u = x ⊕ 0x80 = x + 128
/// and TDPBSUD gives D = Σ (x + 128)·w, exactly that form's D; in its kernel_sum order the copy holds x and TDPBSSD
/// gives D' = Σ x·w = D − 128·Σx, so the batch-row term is filter_offset·Σx (not (filter_offset − 128)·Σx). Both
/// |D| ≤ 255·128·K < 2^31 (K ≤ 4032 here).
/// Σw: the bias order with input_offset ≠ 128 needs Σw per channel (acc = D + (input_offset − 128)·Σw + …, the
/// row-group form's `ws`). The input copy then has a ninth column of ones (36-byte rows), so the accumulator tile's
/// ninth column is Σ_k w·1 = Σw (|Σw| ≤ 128·K) at no extra product; C is stored 64 bytes per channel and split
/// into the store's layout and `ws` (`amx_rowmajor_split_sw`). Against the VNNI row groups' Σw form (one process
/// alternating the two, 21 rounds, quiet machine): 8 × 256² 1.66–2.04×, 8 × 512² 1.36×, 8 × 1024² 1.18–1.23×,
/// 8 × 2048² 1.25×, 16 × 1024² 1.25×, K 1024 × N 4032 1.37×, 24 × 512² 1.07×.
/// Weight rows off a 64-byte line (K a multiple of 64, so all rows alike): each tile row would split two cache lines.
/// The K blocks then run in the order σ of `amx_rowmajor_copy` — the whole blocks from the first line boundary of the
/// rows on, then one wrap block of each row's first and last bytes, gathered per pass by masked loads into a stack
/// tile (`load_wrap64`), the next pass's while this pass's tiles run (8 × 256², weights 16 bytes past a line,
/// alternated processes: 217–223 → 238–246 GMAC/s against filling each pass's own before it) — and the input copy in
/// the same order; D is the same integers.
/// Tiles (palette 1): tmm0, tmm1 the accumulators of 2 × 16 channels, tmm2 the input block (16 k-groups × 8
/// batch rows), tmm3, tmm4 the weight blocks. Per K block the three loads come first, then the two products, and
/// no tile is loaded again before the last product that reads it (as in `linear_amx_packed.hpp`; against 4
/// accumulators with a weight tile loaded twice per block: 8 × 256² 1.35×, 16 × 256² 1.30×, 8 × 128² 1.11×).
/// Source of the semantics: CMSIS-NN `arm_fully_connected_s8`, TFLite reference `FullyConnected` (int8); of the
/// instructions: Intel SDM vol. 2, TDPBSUD / TDPBSSD / TILELOADD.
/// Firmware-clean (host only): noexcept, no heap, no static data but constant tile configurations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/arch/x86/amx.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_packed.hpp>
#include <armlower/kernels/arch/x86/linear_vnni_rowgroup_store.hpp>
#include <armlower/kernels/linear_args.hpp>

#if defined(ARMLOWER_KERNELS_HAVE_AMX)

namespace armlower::kernels::detail {

/// Most K of the AMX row-major form (the inputs' copy, 8·K bytes, is on the stack). Intel Xeon with AMX (family 6
/// model 207), `linear_s8` without a buffer in process pairs, median GMAC/s ratio this form ÷ the VNNI row groups
/// with the tile schedule of the file comment: 8 × 512² 1.25, 8 × 1024² 1.12, 8 × 2048² 1.13, 16 × 1024² 1.13,
/// K 3072 × N 4096 (8 rows) 1.24, but at K 4096 (the 16 rows of a weight tile 4 KiB apart: one L1 set) 0.97–1.17 in four
/// runs: not chosen. K 256: 8 × 256² 1.35, 16 × 256² 1.30, 8 × 1024 × 256 1.26 against the earlier schedule
/// (4 accumulators), which itself ran 1.20–1.26× the VNNI row groups at 8 × 256² (benchmarks/RESULTS.md, "Intel
/// Xeon with AMX").
inline constexpr std::int32_t amx_rowmajor_max_cols = 4032;

/// True if `linear_s8_rowgroup_vnni` runs its groups of 8 batch rows in this form: requantized output (any operand
/// order), K a multiple of 64 up to `amx_rowmajor_max_cols`, at least 128 output channels and 8 batch rows, and
/// the CPU with AMX-INT8 (`x86_has_amx_int8`, checked last).
/// `wstride`: the weight rows' stride (must be K: the tiles load them with that stride).
[[nodiscard]] inline bool amx_rowmajor_applies(const linear_s8_args& a, std::ptrdiff_t wstride,
                                               const vnni_acc32_out* acc32) noexcept {
  return acc32 == nullptr && a.batches >= 8 && a.rows >= 128 && a.cols % 64 == 0 &&
         a.cols <= amx_rowmajor_max_cols && wstride == a.cols && x86_has_amx_int8();
}

/// Bytes per k-group row of the input copy (the B tile's row): 8 batch rows × 4 bytes, and with `SW` a ninth column
/// of ones (file comment, "Σw").
template <bool SW>
inline constexpr int amx_rowmajor_row_bytes = SW ? 36 : 32;

/// The tile configuration for weight tiles of `rows` (1..16) channels: accumulators rows × 8 (SW: 9) int32, the
/// input block 16 × 32 (SW: 36) bytes, weights rows × 64 bytes.
template <bool SW>
[[nodiscard]] constexpr amx_tile_config amx_rowmajor_config(int rows) noexcept {
  amx_tile_config c;
  for (int t = 0; t < 8; ++t) {
    c.colsb[t] = static_cast<std::uint16_t>(t < 3 ? amx_rowmajor_row_bytes<SW> : 64);
    c.rows[t] = static_cast<std::uint8_t>(t == 2 ? 16 : rows);
  }
  return c;
}
template <bool SW>
inline constexpr amx_tile_config amx_rowmajor_config16 = amx_rowmajor_config<SW>(16);

/// Copies 8 input rows at `x` (K = `cols` bytes each) to `xt` in the VNNI pairing: xt[g·RS + 4m + i] = x[m][σ(4g + i)]
/// (⊕ 0x80 when `flip`: the bias order's u = x + 128), RS = `amx_rowmajor_row_bytes<SW>`, σ the column order of the
/// kernel: σ(k) = k + head below K − 64, then the wrap block [0, head) ++ [K − 64 + head, K) (`load_wrap64`; head 0: σ(k) = k);
/// with SW the bytes xt[g·RS + 32 .. + 35] are 1.
template <bool SW>
ARMLOWER_X86_AMX_AVX512 inline void amx_rowmajor_copy(const std::int8_t* x, std::ptrdiff_t cols, bool flip, std::ptrdiff_t head,
                                                std::uint8_t* xt) noexcept {
  constexpr std::ptrdiff_t RS = amx_rowmajor_row_bytes<SW>;
  const __m512i f = _mm512_set1_epi8(flip ? static_cast<char>(0x80) : 0);
  // per 16 k-groups (64 K): 8 rows × 64 bytes → 16 rows × 32 bytes, by dword unpacks (8 × 16 dword transpose)
  for (std::ptrdiff_t k = 0; k < cols; k += 64) {
    __m512i r[8];
    if (head == 0 || k + 64 < cols) {
#pragma GCC unroll 8
      for (int m = 0; m < 8; ++m) r[m] = _mm512_xor_si512(_mm512_loadu_si512(x + m * cols + head + k), f);
    } else {  // the wrap block (`amx_rowmajor_kernel`)
#pragma GCC unroll 8
      for (int m = 0; m < 8; ++m) r[m] = _mm512_xor_si512(load_wrap64(x + m * cols, cols, head), f);
    }
    // dword index i of row m → out[g = i][m]: write row g's 8 dwords; scatter by a 2-level unpack
    const __m512i t0 = ARMLOWER_Z512(unpacklo_epi32, all16, r[0], r[1]), t1 = ARMLOWER_Z512(unpackhi_epi32, all16, r[0], r[1]);
    const __m512i t2 = ARMLOWER_Z512(unpacklo_epi32, all16, r[2], r[3]), t3 = ARMLOWER_Z512(unpackhi_epi32, all16, r[2], r[3]);
    const __m512i t4 = ARMLOWER_Z512(unpacklo_epi32, all16, r[4], r[5]), t5 = ARMLOWER_Z512(unpackhi_epi32, all16, r[4], r[5]);
    const __m512i t6 = ARMLOWER_Z512(unpacklo_epi32, all16, r[6], r[7]), t7 = ARMLOWER_Z512(unpackhi_epi32, all16, r[6], r[7]);
    // u: per 128-bit lane L, dwords (g = 4L + j) of rows 0–3 in a 128-bit quarter
    const __m512i u0 = ARMLOWER_Z512(unpacklo_epi64, all8, t0, t2), u1 = ARMLOWER_Z512(unpackhi_epi64, all8, t0, t2);  // g 4L, 4L+1 rows 0–3
    const __m512i u2 = ARMLOWER_Z512(unpacklo_epi64, all8, t1, t3), u3 = ARMLOWER_Z512(unpackhi_epi64, all8, t1, t3);  // g 4L+2, 4L+3
    const __m512i u4 = ARMLOWER_Z512(unpacklo_epi64, all8, t4, t6), u5 = ARMLOWER_Z512(unpackhi_epi64, all8, t4, t6);  // rows 4–7
    const __m512i u6 = ARMLOWER_Z512(unpacklo_epi64, all8, t5, t7), u7 = ARMLOWER_Z512(unpackhi_epi64, all8, t5, t7);
    const __m512i s[4][2] = {{u0, u4}, {u1, u5}, {u2, u6}, {u3, u7}};  // [j][rows 0–3, rows 4–7]
    std::uint8_t* o = xt + (k / 4) * RS;
    alignas(64) std::uint8_t lo[64], hi[64];
#pragma GCC unroll 4
    for (std::ptrdiff_t j = 0; j < 4; ++j) {
      _mm512_store_si512(lo, s[j][0]);
      _mm512_store_si512(hi, s[j][1]);
#pragma GCC unroll 4
      for (std::ptrdiff_t L = 0; L < 4; ++L) {  // k-group 4L + j: rows 0–3 from lane L of lo, rows 4–7 from lane L of hi
        std::memcpy(o + (4 * L + j) * RS, lo + 16 * L, 16);
        std::memcpy(o + (4 * L + j) * RS + 16, hi + 16 * L, 16);
        if constexpr (SW) {  // the ones column: four bytes 1
          constexpr std::uint32_t ones = 0x01010101u;
          std::memcpy(o + (4 * L + j) * RS + 32, &ones, 4);
        }
      }
    }
  }
}

/// C of NT (1 or 2) 16-channel weight tiles at `w` (row stride `cols`) against the `blocks` 64-K input blocks at
/// `xt`, then, if `wrap` is not null, one more block: the weight tiles at `wrap` (16·NT rows × 64 bytes, stride 64) against
/// input block `blocks`; stored at d[(16t + i)·8 + m] (channel 16t + i, batch row m); with SW at d[(16t + i)·16 + m],
/// m ≤ 8 (column 8: Σw of the channel). WU: TDPBSSD (x signed), else TDPBSUD (x + 128). Per K block the loads come
/// first, then the products (file comment, "Tiles"). Precondition: tiles configured by `amx_rowmajor_config<SW>`.
template <int NT, bool WU, bool SW>
[[gnu::noinline]] ARMLOWER_X86_AMX_AVX512 inline void amx_rowmajor_kernel(const std::int8_t* w, std::ptrdiff_t cols,
                                                                     const std::uint8_t* xt, std::ptrdiff_t blocks,
                                                                     const std::int8_t* wrap,
                                                                     std::int32_t* d) noexcept {  // NOLINT(readability-non-const-parameter): written by TILESTORED
  static_assert(NT == 1 || NT == 2);
  ARMLOWER_AMX_ZERO(0);
  if constexpr (NT > 1) ARMLOWER_AMX_ZERO(1);
  constexpr std::ptrdiff_t RS = amx_rowmajor_row_bytes<SW>, DS = SW ? 64 : 32;  // input rows, C rows (bytes)
  auto block = [&](const std::uint8_t* xb, const std::int8_t* wb, std::ptrdiff_t ws) ARMLOWER_X86_AMX_AVX512 {
    ARMLOWER_AMX_LOAD(2, xb, RS);
    ARMLOWER_AMX_LOAD(3, wb, ws);
    if constexpr (NT > 1) ARMLOWER_AMX_LOAD(4, wb + 16 * ws, ws);
    if constexpr (WU) {
      ARMLOWER_AMX_DPBSSD(0, 3, 2);
      if constexpr (NT > 1) ARMLOWER_AMX_DPBSSD(1, 4, 2);
    } else {
      ARMLOWER_AMX_DPBSUD(0, 3, 2);
      if constexpr (NT > 1) ARMLOWER_AMX_DPBSUD(1, 4, 2);
    }
  };
  for (std::ptrdiff_t kb = 0; kb < blocks; ++kb) block(xt + 16 * RS * kb, w + 64 * kb, cols);
  if (wrap != nullptr) block(xt + 16 * RS * blocks, wrap, 64);
  ARMLOWER_AMX_STORE(0, d, DS);
  if constexpr (NT > 1) ARMLOWER_AMX_STORE(1, d + 4 * DS, DS);
}

/// SW: the 16 channels' C rows at `c` (16 int32 apart, file comment) → the store's layout `dd` (8 int32 per channel)
/// and their Σw `ws`.
inline void amx_rowmajor_split_sw(const std::int32_t* c, std::int32_t* dd, std::int32_t* ws) noexcept {
  for (std::ptrdiff_t i = 0; i < 16; ++i) {
    std::memcpy(dd + 8 * i, c + 16 * i, 32);
    ws[i] = c[16 * i + 8];
  }
}

/// Groups of 8 batch rows [0, b8) of `a` (b8 a multiple of 8) in this form, in the operand order WU (kernel_sum),
/// SW (bias, input_offset ≠ 128: Σw from the ones column) or neither. Preconditions: `validate(a) == ok`,
/// `amx_rowmajor_applies(a, a.cols, nullptr)`; `w`/`wstride`: the weight rows (wstride = K).
template <bool WU, bool SW>
[[gnu::noinline]] ARMLOWER_X86_AMX_AVX512 inline void linear_s8_amx_rowmajor_wu(const linear_s8_args& a, const std::int8_t* w,
                                                        std::int32_t b8) noexcept {
  const vnni_requant rq = make_vnni_requant(a);
  const std::ptrdiff_t cols = a.cols;
  // rows off a 64-byte line: the whole blocks from column `head` on, aligned, then the wrap block from `wrap`
  const std::ptrdiff_t head = vnni_rowdot_head(w, cols, cols), blocks = cols / 64 - (head != 0 ? 1 : 0);
  // the wrap blocks of two passes of 16 or 32 channels (`load_wrap64`): the next pass's filled while this one's tiles run
  alignas(64) std::int8_t wrap[2][32 * 64];
  auto fill_wrap = [&](std::int8_t* to, const std::int8_t* wr, std::ptrdiff_t n) ARMLOWER_X86_AMX_AVX512 {
    for (std::ptrdiff_t i = 0; i < n; ++i) _mm512_store_si512(to + 64 * i, load_wrap64(wr + i * cols, cols, head));
  };
  const std::int64_t fast_bound = vnni_rowgroup_fast_bound(a, false);
  const std::int32_t full = a.rows / 16 * 16;  // channels in whole 16-channel tiles
  auto tiles_at = [full](std::int32_t r0) { return full - r0 >= 32 ? 2 : 1; };  // 16-channel tiles of the pass at r0
  alignas(64) std::uint8_t xt[amx_rowmajor_row_bytes<SW> / 4 * amx_rowmajor_max_cols];
  alignas(64) std::int32_t d[32 * (SW ? 16 : 8)];
  alignas(64) std::int32_t dd[SW ? 128 : 1];  // SW: one tile in the store's layout
  std::int32_t ws[16];                         // SW: its Σw
  for (std::int32_t g = 0; g < b8; g += 8) {
    const std::int8_t* x = a.input + static_cast<std::ptrdiff_t>(g) * cols;
    std::int64_t bt[8];
    bool fast = fast_bound >= 0;
    for (int m = 0; m < 8; ++m) {  // filter_offset·Σx in both orders (file comment)
      bt[m] = a.filter_offset == 0 ? 0 : std::int64_t{a.filter_offset} * sum_s8_vnni(x + m * cols, cols);
      fast = fast && (bt[m] < 0 ? -bt[m] : bt[m]) <= fast_bound;
    }
    amx_rowmajor_copy<SW>(x, cols, !WU, head, xt);
    amx_load_config(amx_rowmajor_config16<SW>);
    if (head != 0 && full > 0) fill_wrap(wrap[0], w, 16 * tiles_at(0));
    for (std::int32_t r0 = 0; r0 < full; r0 += 32) {
      const std::int8_t* wr = w + static_cast<std::ptrdiff_t>(r0) * cols;
      const int nt = tiles_at(r0);
      const std::int8_t* wrap_tiles = head != 0 ? wrap[(r0 / 32) % 2] : nullptr;
      if (nt == 2) {
        amx_rowmajor_kernel<2, WU, SW>(wr + head, cols, xt, blocks, wrap_tiles, d);
      } else {
        amx_rowmajor_kernel<1, WU, SW>(wr + head, cols, xt, blocks, wrap_tiles, d);
      }
      if (head != 0 && r0 + 32 < full) fill_wrap(wrap[(r0 / 32 + 1) % 2], wr + 32 * cols, 16 * tiles_at(r0 + 32));
      for (std::ptrdiff_t t = 0; t < nt; ++t) {
        const auto ch = static_cast<std::int32_t>(r0 + 16 * t);
        if constexpr (SW) {
          amx_rowmajor_split_sw(d + 256 * t, dd, ws);
          vnni_rowgroup_store(a, rq, nullptr, reinterpret_cast<const __m512i*>(dd), ws, ch, 16, g, 8, bt, fast);
        } else {
          vnni_rowgroup_store(a, rq, nullptr, reinterpret_cast<const __m512i*>(d + 128 * t), nullptr, ch, 16, g, 8, bt, fast);
        }
      }
    }
    if (full < a.rows) {  // the last < 16 channels: tiles of that many rows (nothing read past the weights)
      const int nv = a.rows - full;
      const amx_tile_config cfg = amx_rowmajor_config<SW>(nv);
      amx_load_config(cfg);
      constexpr int cw = SW ? 16 : 8;  // int32 per C row in d
      for (int i = nv * cw; i < 16 * cw; ++i) d[i] = 0;
      const std::int8_t* wr = w + static_cast<std::ptrdiff_t>(full) * cols;
      if (head != 0) fill_wrap(wrap[0], wr, nv);
      amx_rowmajor_kernel<1, WU, SW>(wr + head, cols, xt, blocks, head != 0 ? wrap[0] : nullptr, d);
      if constexpr (SW) {
        amx_rowmajor_split_sw(d, dd, ws);
        vnni_rowgroup_store(a, rq, nullptr, reinterpret_cast<const __m512i*>(dd), ws, full, nv, g, 8, bt, fast);
      } else {
        vnni_rowgroup_store(a, rq, nullptr, reinterpret_cast<const __m512i*>(d), nullptr, full, nv, g, 8, bt, fast);
      }
    }
    amx_release();
  }
}

/// `linear_s8_amx_rowmajor_wu` in the order of `a` (`vnni_rowgroup_wu`).
ARMLOWER_X86_AMX_AVX512 inline void linear_s8_amx_rowmajor(const linear_s8_args& a, const std::int8_t* w, std::int32_t b8) noexcept {
  if (vnni_rowgroup_wu(a)) {
    linear_s8_amx_rowmajor_wu<true, false>(a, w, b8);
  } else if (vnni_rowgroup_sw(a)) {
    linear_s8_amx_rowmajor_wu<false, true>(a, w, b8);
  } else {
    linear_s8_amx_rowmajor_wu<false, false>(a, w, b8);
  }
}

}  // namespace armlower::kernels::detail

#endif  // ARMLOWER_KERNELS_HAVE_AMX
