/// @file armlower/kernels/mx/detail/tiles16.hpp
/// The "tiles16" packed layout of a MATMUL_T_BLOCK_SCALED B operand (weights [W, C]) for the exact-integer
/// AVX-512 VNNI kernel `arch::avx512::tiles16_rows` (arch/x86_avx512_tiles16.hpp), and its portable
/// packer. Element types: MXINT8, FP6E2M3, FP4E2M1 (the formats whose codes are int8 integers ×2^k,
/// OCP MX v1.0 §5.3 / §5.4). Rows are grouped in tiles of 16 (the last one padded); per tile, block g
/// (32 elements of each of the 16 rows) is one "block tile":
///  - MXINT8, FP6E2M3: 512 bytes = 8 vectors of 64; vector j holds, for rows r = 0..15, bytes 4r..4r+3 =
///    the elements 32g + 4j .. 32g + 4j + 3 of row r, each as its integer value ×2^int_shift plus an
///    offset (MXINT8 128, FP6E2M3 60) — an unsigned byte, so one `vpdpbusd` with 4 broadcast A
///    values sums 4 columns of all 16 rows into one int32 lane per row, with no reduction.
///  - FP4E2M1: 256 bytes = 4 vectors of 64; vector v holds, for row r, bytes 4r + i (i < 4) whose low
///    nibble is the code of element 32g + 8v + i and high nibble that of 32g + 8v + 4 + i (the codes
///    stay 4 bits: the same bytes as the row-major storage).
/// Block tiles follow each other in block order, tiles in row order: one sequential stream.
/// The scales: per tile and block, the 16 rows' E8M0 codes (padding rows 127 = 1.0); per tile, the
/// smallest and largest code of its real rows (the kernel's per-tile normal-factor test).
/// Host or firmware: plain byte moves, no heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include <armlower/dtype/dtype.hpp>
#include <armlower/kernels/mx/arch/generic.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::kernels::mx::detail {

/// B rows per tile of the tiles16 layout.
inline constexpr std::size_t tiles16_rows = 16;

/// True for the element types the tiles16 layout holds (MXINT8, FP6E2M3, FP4E2M1).
[[nodiscard]] constexpr bool tiles16_type(dtype::id t) noexcept {
  return t == dtype::id::mxint8 || t == dtype::id::fp6e2m3 || t == dtype::id::fp4e2m1;
}

/// Unsigned offset added to B's integer values in the tiles16 layout (`vpdpbusd` takes B unsigned):
/// MXINT8 128 (the code with its top bit flipped), FP6E2M3 60 (|value ×8| ≤ 60), FP4E2M1 12 (|value ×2|
/// ≤ 12, applied by the kernel's decode table).
[[nodiscard]] constexpr int tiles16_offset(dtype::id t) noexcept {
  return t == dtype::id::mxint8 ? 128 : t == dtype::id::fp6e2m3 ? 60 : 12;
}

/// Bytes of one block tile (16 rows × 32 elements): 256 for FP4E2M1, else 512.
[[nodiscard]] constexpr std::size_t tiles16_block_bytes(dtype::id t) noexcept {
  return t == dtype::id::fp4e2m1 ? 256 : 512;
}

/// Sizes and offsets (bytes, from the start of the packed data) of a tiles16 packing of B [w, c].
struct tiles16_geometry {
  std::size_t tiles = 0;         ///< ceil(w / 16)
  std::size_t blocks = 0;        ///< c / 32
  std::size_t data_bytes = 0;    ///< tiles · blocks · tiles16_block_bytes
  std::size_t scale_offset = 0;  ///< = data_bytes: [tile][block][16] E8M0 codes
  std::size_t range_offset = 0;  ///< [tile][2]: smallest, largest scale code of the tile's real rows
  std::size_t total = 0;         ///< range_offset + 2 · tiles
};

/// The geometry of a tiles16 packing of B [w, c] (c a multiple of 32) of element type t.
[[nodiscard]] constexpr tiles16_geometry tiles16_layout(dtype::id t, std::size_t w, std::size_t c) noexcept {
  tiles16_geometry g;
  g.tiles = (w + tiles16_rows - 1) / tiles16_rows;
  g.blocks = c / armlower::mx::block_size;
  g.data_bytes = g.tiles * g.blocks * tiles16_block_bytes(t);
  g.scale_offset = g.data_bytes;
  g.range_offset = g.scale_offset + g.tiles * g.blocks * tiles16_rows;
  g.total = g.range_offset + 2 * g.tiles;
  return g;
}

/// Writes the tiles16 packing of B (codes `b` in armlower storage, [w, c]; E8M0 scales `bs`, [w, c/32])
/// of element type T (`tiles16_type`) to `out` (`tiles16_layout(T, w, c).total` bytes). Padding rows
/// hold code 0 and scale 127.
template <dtype::id T>
constexpr void pack_tiles16(const std::uint8_t* b, const std::uint8_t* bs, std::size_t w, std::size_t c,
                            std::uint8_t* out) noexcept {
  static_assert(tiles16_type(T));
  constexpr bool nibbles = T == dtype::id::fp4e2m1;
  constexpr std::size_t rows = tiles16_rows, bt = tiles16_block_bytes(T);
  const tiles16_geometry geo = tiles16_layout(T, w, c);
  const std::size_t stride = armlower::mx::storage_bytes(T, c);
  // value ×2^int_shift + offset per byte (one-byte types; the bits above the code's are ignored, as
  // the other paths do; FP4 keeps its codes)
  std::uint8_t table[256] = {};
  if constexpr (!nibbles) {
    constexpr auto ints = arch::detail::make_int_table<T>();
    for (std::size_t k = 0; k < 256; ++k)
      table[k] = static_cast<std::uint8_t>(ints[k & (ints.size() - 1)] + tiles16_offset(T));
  }
  for (std::size_t t = 0; t < geo.tiles; ++t) {
    int lo = 255, hi = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t row = t * rows + r;
      const bool real = row < w;
      const std::uint8_t* src = b + (real ? row : 0) * stride;
      for (std::size_t g = 0; g < geo.blocks; ++g) {
        std::uint8_t* blk = out + (t * geo.blocks + g) * bt;
        if constexpr (nibbles) {
          for (std::size_t v = 0; v < 4; ++v)
            for (std::size_t i = 0; i < 4; ++i) {
              const std::size_t k = 32 * g + 8 * v + i;
              const auto lo4 = real ? arch::detail::code_at<true>(src, k) : std::uint8_t{0};
              const auto hi4 = real ? arch::detail::code_at<true>(src, k + 4) : std::uint8_t{0};
              blk[64 * v + 4 * r + i] = static_cast<std::uint8_t>(lo4 | (hi4 << 4));
            }
        } else {
          for (std::size_t j = 0; j < 8; ++j)
            for (std::size_t i = 0; i < 4; ++i) blk[64 * j + 4 * r + i] = table[real ? src[32 * g + 4 * j + i] : 0];
        }
        const std::uint8_t sc = real ? bs[row * geo.blocks + g] : std::uint8_t{127};
        out[geo.scale_offset + (t * geo.blocks + g) * rows + r] = sc;
        if (real) {
          lo = sc < lo ? sc : lo;
          hi = sc > hi ? sc : hi;
        }
      }
    }
    out[geo.range_offset + 2 * t] = static_cast<std::uint8_t>(lo);
    out[geo.range_offset + 2 * t + 1] = static_cast<std::uint8_t>(hi);
  }
}

}  // namespace armlower::kernels::mx::detail
