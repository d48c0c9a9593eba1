/// @file armlower/kernels/detail/linear_s8_packed_layout.hpp
/// Byte layout of the buffer written by `kernels::pack_linear_s8` (`kernels/linear_packed.hpp`) and
/// read by the x86 microkernels (`kernels::pack_linear_s16` writes the same parts: `packed_s16_layout`):
/// - [0, 64): `packed_s8_header`;
/// - [64, 64 + 8·Np): int64 row constants c[r] (0 for padding rows), Np = rows rounded up to 16;
/// - then int32 c[r] (the same values wrapped to 32 bits; used only when `cmax` < 2^31);
/// - then the weights, in one of three layouts (`packed_s8_layout_kind`, recorded in the header):
///   - `vnni`: Np·Kp bytes (Kp = cols rounded up to 4) in the `vpdpbusd` panel layout of
///     `arch/x86/linear_vnni_packed.hpp`; or, for narrow layers (rows < 16, where 16-channel panels
///     would be mostly padding), rows·Kr bytes row-major (Kr = cols rounded up to 64, zero padded;
///     read by `arch/x86/linear_vnni_rowdot.hpp`);
///   - `avx2_pairs`: groups of 8 rows; within a group, for each column pair p, the bytes
///     (w[r][2p], w[r][2p+1]) of each of the 8 rows r consecutively (16 bytes: one `vpmovsxbw` gives
///     the pair of 8 channels as int16; one stream for `linear_s8_pairs_avx2` in
///     `arch/x86/linear_avx2_pairs.hpp`); missing rows/columns are zero: R8·C16 bytes (rows rounded
///     up to 8, cols to 16);
///   - `avx2_pairs16`: the `avx2_pairs` order with each weight as a little-endian int16 (2·R8·C16 bytes; the
///     kernel loads the pair of 8 channels as it is instead of sign-extending it), for layers of at most
///     `avx2_pairs16_max_weights` weights.
/// Firmware-clean: constants and a POD struct only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace armlower::kernels::detail {

/// Weight layout of a packed s8 linear (which microkernel reads it).
enum class packed_s8_layout_kind : std::int32_t {
  vnni = 0,        ///< AVX-512 VNNI panels (or row-major for rows < 16)
  // 1 was the AVX2 layout of 8 rows × 16-column chunks (row-major within a chunk), replaced by 2
  avx2_pairs = 2,  ///< AVX2 groups of 8 rows × column pairs
  avx2_pairs16 = 3,  ///< `avx2_pairs` with int16 weights (small layers)
};

/// Most weights (rows·cols) of a layer packed as `avx2_pairs16` for AVX2 (more: `avx2_pairs`). Measured on Zen 5
/// restricted to AVX2 (benchmarks/RESULTS.md, "AVX2 class: int16 weights for small packed layers"): the int16
/// weights are folded into `vpmaddwd` as memory operands (no `vpmovsxbw` and no register for it): 1 × 64² 44–46 →
/// 50–53 GMAC/s in the bench; a harness calling the kernel on both layouts, batch 1 / 8: parity / 1.02–1.04× up to
/// 16384 weights (64², 128², 64×256, 256×64), but 0.75–0.88× at batch 1 from 32768 weights (128×256, 256², 512×64),
/// where the doubled bytes no longer stay in L1.
inline constexpr std::int64_t avx2_pairs16_max_weights = std::int64_t{1} << 14;

/// The AVX2 packed layout of a layer with `rows` × `cols` weights.
[[nodiscard]] constexpr packed_s8_layout_kind avx2_pairs_kind(std::int64_t rows, std::int64_t cols) noexcept {
  return rows * cols <= avx2_pairs16_max_weights ? packed_s8_layout_kind::avx2_pairs16 : packed_s8_layout_kind::avx2_pairs;
}

/// True for the AVX2 packed layouts (`avx2_pairs`, `avx2_pairs16`).
[[nodiscard]] constexpr bool packed_s8_avx2_kind(packed_s8_layout_kind k) noexcept {
  return k == packed_s8_layout_kind::avx2_pairs || k == packed_s8_layout_kind::avx2_pairs16;
}

/// True if `layout` (a header field) names a layout `pack_linear_s8` writes for a `rows` × `cols` layer: VNNI, or the
/// AVX2 layout of that shape (`avx2_pairs_kind`; the other one's geometry would not match the buffer's size).
[[nodiscard]] constexpr bool packed_s8_layout_valid(std::int32_t layout, std::int64_t rows, std::int64_t cols) noexcept {
  return layout == static_cast<std::int32_t>(packed_s8_layout_kind::vnni) ||
         layout == static_cast<std::int32_t>(avx2_pairs_kind(rows, cols));
}

/// True if `layout` (a header field) names a layout `pack_linear_s16` writes (VNNI or `avx2_pairs`).
[[nodiscard]] constexpr bool packed_s16_layout_known(std::int32_t layout) noexcept {
  return layout == static_cast<std::int32_t>(packed_s8_layout_kind::vnni) ||
         layout == static_cast<std::int32_t>(packed_s8_layout_kind::avx2_pairs);
}

/// Header of a packed s8 linear (first 64 bytes of the buffer; copied with memcpy, no alignment needed).
/// The `*_id` fields are the addresses the weights / bias / kernel_sum were packed from: the
/// pack-on-first-use form (`kernels::linear_s8(a, cache, size)`) repacks when they change.
struct packed_s8_header {
  std::uint32_t magic = 0;         ///< `packed_s8_magic`
  std::int32_t rows = 0;           ///< N of the packed layer
  std::int32_t cols = 0;           ///< K of the packed layer
  std::int32_t input_offset = 0;   ///< folded into the row constants; must match the call
  std::int32_t filter_offset = 0;  ///< used at run time (Σx term); must match the call
  std::int32_t kernel_sum_form = 0;  ///< 1 if c[] came from kernel_sum (informational)
  std::int64_t cmax = 0;           ///< max_r |c[r]|
  std::uint64_t weights_id = 0;    ///< address of the weights packed
  std::uint64_t bias_id = 0;       ///< address of the bias (0: none or kernel_sum form)
  std::uint64_t kernel_sum_id = 0; ///< address of the kernel_sum (0: bias form)
  std::int32_t layout = 0;         ///< `packed_s8_layout_kind`
  std::uint8_t pad[4] = {};
};
static_assert(sizeof(packed_s8_header) == 64);
inline constexpr std::uint32_t packed_s8_magic = 0x38504C41u;  // "ALP8"

/// Np, Kp and the byte offsets of the parts (see file comment); sizes in bytes.
struct packed_s8_geometry {
  std::uint64_t np = 0, kp = 0, c64 = 64, c32 = 0, weights = 0, total = 0;
  packed_s8_layout_kind kind = packed_s8_layout_kind::vnni;  ///< the weight layout
  bool narrow = false;         ///< vnni layout with rows < 16: row-major weights
  std::uint64_t row_stride = 0;  ///< narrow: bytes per weight row (Kr)
};

[[nodiscard]] constexpr packed_s8_geometry packed_s8_layout(std::int64_t rows, std::int64_t cols,
                                                            packed_s8_layout_kind kind = packed_s8_layout_kind::vnni) noexcept {
  packed_s8_geometry g;
  g.kind = kind;
  g.np = static_cast<std::uint64_t>((rows + 15) / 16 * 16);
  g.kp = static_cast<std::uint64_t>((cols + 3) / 4 * 4);
  g.c32 = g.c64 + 8 * g.np;
  g.weights = g.c32 + 4 * g.np;
  if (packed_s8_avx2_kind(kind)) {
    const std::uint64_t bytes = kind == packed_s8_layout_kind::avx2_pairs16 ? 2 : 1;
    g.total = g.weights + bytes * static_cast<std::uint64_t>((rows + 7) / 8 * 8) * static_cast<std::uint64_t>((cols + 15) / 16 * 16);
    return g;
  }
  g.narrow = rows < 16;
  g.row_stride = static_cast<std::uint64_t>((cols + 63) / 64 * 64);
  g.total = g.weights + (g.narrow ? static_cast<std::uint64_t>(rows) * g.row_stride : g.np * g.kp);
  return g;
}

/// The layout of a packed a16w8 linear (`kernels::pack_linear_s16`, `kernels/linear_s16_packed.hpp`): the
/// same header and int64 row constants, and the weights as VNNI panels for every row count (no row-major
/// narrow form) or in the `avx2_pairs` layout; its header carries `packed_s16_magic`.
[[nodiscard]] constexpr packed_s8_geometry packed_s16_layout(std::int64_t rows, std::int64_t cols,
                                                             packed_s8_layout_kind kind = packed_s8_layout_kind::vnni) noexcept {
  if (kind == packed_s8_layout_kind::avx2_pairs) return packed_s8_layout(rows, cols, kind);
  packed_s8_geometry g = packed_s8_layout(rows, cols, packed_s8_layout_kind::vnni);
  g.narrow = false;
  g.total = g.weights + g.np * g.kp;
  return g;
}

/// Bytes that hold either a16w8 layout.
[[nodiscard]] constexpr std::uint64_t packed_s16_total_any(std::int64_t rows, std::int64_t cols) noexcept {
  const std::uint64_t v = packed_s16_layout(rows, cols).total;
  const std::uint64_t a = packed_s16_layout(rows, cols, packed_s8_layout_kind::avx2_pairs).total;
  return v > a ? v : a;
}
inline constexpr std::uint32_t packed_s16_magic = 0x57504C41u;  // "ALPW"

/// Bytes that hold the VNNI layout or the AVX2 one of this shape (`avx2_pairs_kind`): the buffer size the public API
/// asks for.
[[nodiscard]] constexpr std::uint64_t packed_s8_total_any(std::int64_t rows, std::int64_t cols) noexcept {
  const std::uint64_t v = packed_s8_layout(rows, cols, packed_s8_layout_kind::vnni).total;
  const std::uint64_t a = packed_s8_layout(rows, cols, avx2_pairs_kind(rows, cols)).total;
  return v > a ? v : a;
}

}  // namespace armlower::kernels::detail
