/// @file armlower/kernels/mx/detail/tiles16.hpp
/// The "tiles16" packed layout of a MATMUL_T_BLOCK_SCALED B operand (weights [W, C]) for the AVX-512
/// kernels `arch::avx512::tiles16_rows` (arch/x86_avx512_tiles16.hpp), and its portable packer. Rows are
/// grouped in tiles of 16 (the last one padded); per tile, block g (32 elements of each of the 16 rows)
/// is one "block tile":
///  - MXINT8, FP6E2M3 (`tiles16_int_type`: codes are int8 integers ×2^k, OCP MX v1.0 §5.3 / §5.4):
///    512 bytes = 8 vectors of 64; vector j holds, for rows r = 0..15, bytes 4r..4r+3 = the elements
///    32g + 4j .. 32g + 4j + 3 of row r, each as its integer value ×2^int_shift plus an offset (MXINT8
///    128, FP6E2M3 60) — an unsigned byte, so one `vpdpbusd` with 4 broadcast A values sums 4 columns of
///    all 16 rows into one int32 lane per row, with no reduction.
///  - FP4E2M1 (int type too): 256 bytes = 4 vectors of 64; vector v holds, for row r, bytes 4r + i
///    (i < 4) whose low nibble is the code of element 32g + 8v + i and high nibble that of
///    32g + 8v + 4 + i (the codes stay 4 bits: the same bytes as the row-major storage).
///  - FP8E4M3, FP8E5M2, FP6E3M2 (`tiles16_bf16_type`, for the AVX-512 BF16 kernel): 512 bytes, the
///    one-byte order above, each byte an FP8 code — FP8 codes as they are, FP6E3M2 codes as the FP8E5M2
///    code of the same value (every FP6E3M2 value, subnormals included, is a normal FP8E5M2 value) —
///    in the high byte of each 16-bit word; in the low byte with its bits reordered
///    (`tiles16_low_byte`) so that `vpmultishiftqb` can move them into place. Shifted into a BF16 word,
///    such a code is its value ×2^(bias − 127) wherever it is a normal number or zero; per tile and
///    block a flag byte marks the block tiles holding any other code (subnormal, NaN, ±Inf), which the
///    kernel decodes exactly by table instead.
/// Block tiles follow each other in block order, tiles in row order: one sequential stream.
/// The scales: per tile and block, the 16 rows' E8M0 codes (padding rows 127 = 1.0); per tile, the
/// smallest and largest code of its real rows (the kernel's per-tile normal-factor test).
/// Host or firmware: plain byte moves, no heap.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include <armlower/dtype/dtype.hpp>
#include <armlower/kernels/mx/arch/generic.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::kernels::mx::detail {

/// B rows per tile of the tiles16 layout.
inline constexpr std::size_t tiles16_rows = 16;

/// True for the element types the tiles16 layout holds as integers (MXINT8, FP6E2M3, FP4E2M1).
[[nodiscard]] constexpr bool tiles16_int_type(dtype::id t) noexcept {
  return t == dtype::id::mxint8 || t == dtype::id::fp6e2m3 || t == dtype::id::fp4e2m1;
}

/// True for the element types the tiles16 layout holds as FP8 codes (FP8E4M3, FP8E5M2, FP6E3M2).
[[nodiscard]] constexpr bool tiles16_bf16_type(dtype::id t) noexcept {
  return t == dtype::id::fp8e4m3 || t == dtype::id::fp8e5m2 || t == dtype::id::fp6e3m2;
}

/// True for every element type the tiles16 layout holds.
[[nodiscard]] constexpr bool tiles16_type(dtype::id t) noexcept { return tiles16_int_type(t) || tiles16_bf16_type(t); }

/// The FP8 format a `tiles16_bf16_type` is stored as: FP8E4M3 for itself, FP8E5M2 otherwise.
[[nodiscard]] constexpr dtype::id tiles16_stored(dtype::id t) noexcept {
  return t == dtype::id::fp8e4m3 ? dtype::id::fp8e4m3 : dtype::id::fp8e5m2;
}

/// The stored byte of every code of a `tiles16_bf16_type` T (256 entries; the bits above a code's are
/// ignored, as the other paths do): the code itself for FP8, the FP8E5M2 code of the same value for
/// FP6E3M2.
template <dtype::id T>
inline constexpr auto tiles16_stored_codes = [] {
  static_assert(tiles16_bf16_type(T));
  std::array<std::uint8_t, 256> out{};
  constexpr auto values = armlower::mx::decode_table(T);
  constexpr auto e5 = armlower::mx::decode_table(dtype::id::fp8e5m2);
  for (std::size_t c = 0; c < 256; ++c) {
    if constexpr (T != dtype::id::fp6e3m2) {
      out[c] = static_cast<std::uint8_t>(c);
    } else {
      const float v = values[c & (values.size() - 1)];
      std::size_t k = 0;
      while (std::bit_cast<std::uint32_t>(e5[k]) != std::bit_cast<std::uint32_t>(v)) ++k;  // every FP6E3M2 value is there
      out[c] = static_cast<std::uint8_t>(k);
    }
  }
  return out;
}();

/// An FP8 code (format `stored`: E bits of exponent e, M = 7 − E of mantissa m, sign s) as the low
/// byte of a tiles16 word holds it: bits 0 .. E−2 = e >> 1, then m, bit 6 = e & 1, bit 7 = s. Read at
/// bit 0 it gives the BF16 high byte (s, e >> 1) and read from bit −1 the low byte (e & 1, m) of the
/// code's shifted word, once masked.
[[nodiscard]] constexpr std::uint8_t tiles16_low_byte(dtype::id stored, std::uint8_t code) noexcept {
  const auto& f = armlower::mx::format(stored);
  const unsigned e = (code >> f.mbits) & ((1u << f.ebits) - 1u), m = code & ((1u << f.mbits) - 1u);
  return static_cast<std::uint8_t>((code & 0x80u) | (e & 1u) << 6 | m << (f.ebits - 1) | e >> 1);
}

/// True when stored FP8 code `s` (format `tiles16_stored`) is not a normal number or zero: a
/// subnormal, NaN or ±Inf (its shifted BF16 word would not be its value ×2^(bias − 127)).
[[nodiscard]] constexpr bool tiles16_special(dtype::id stored, std::uint8_t s) noexcept {
  const auto& f = armlower::mx::format(stored);
  const unsigned mag = s & 0x7Fu, e = mag >> f.mbits, m = mag & ((1u << f.mbits) - 1u);
  return (e == 0 && m != 0) || mag > f.max_mag;
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
  std::size_t flag_offset = 0;   ///< = range_offset + 2 · tiles: [tile][block] special-code flags (FP8 codes only)
  std::size_t total = 0;         ///< flag_offset (+ tiles · blocks for `tiles16_bf16_type`)
};

/// Operands of the tiles16 kernels (`arch::avx2::tiles16_rows`, `arch::avx512::tiles16_rows`): A row-major
/// (armlower storage) and B in the tiles16 layout.
struct tiles16_operands {
  const std::uint8_t* a;        ///< A codes [h, c]
  const std::uint8_t* a_scale;  ///< A E8M0 scales [h, c/32]
  std::size_t h;                ///< rows of A
  const std::uint8_t* b;        ///< B packed (`pack_tiles16`), `tiles16_layout(T, w, c).total` bytes
  std::size_t w;                ///< rows of B
  std::size_t c;                ///< shared dimension, a multiple of 32
  float* out;                   ///< output [h, w]
};

/// The geometry of a tiles16 packing of B [w, c] (c a multiple of 32) of element type t.
[[nodiscard]] constexpr tiles16_geometry tiles16_layout(dtype::id t, std::size_t w, std::size_t c) noexcept {
  tiles16_geometry g;
  g.tiles = (w + tiles16_rows - 1) / tiles16_rows;
  g.blocks = c / armlower::mx::block_size;
  g.data_bytes = g.tiles * g.blocks * tiles16_block_bytes(t);
  g.scale_offset = g.data_bytes;
  g.range_offset = g.scale_offset + g.tiles * g.blocks * tiles16_rows;
  g.flag_offset = g.range_offset + 2 * g.tiles;
  g.total = g.flag_offset + (tiles16_bf16_type(t) ? g.tiles * g.blocks : 0);
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
  if constexpr (tiles16_bf16_type(T)) {
    for (std::size_t k = 0; k < 256; ++k) table[k] = tiles16_stored_codes<T>[k];
    for (std::size_t i = 0; i < geo.tiles * geo.blocks; ++i) out[geo.flag_offset + i] = 0;
  } else if constexpr (!nibbles) {
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
          if constexpr (tiles16_bf16_type(T)) {
            bool special = false;
            for (std::size_t i = 0; i < 32; ++i) {
              std::uint8_t& x = blk[64 * (i / 4) + 4 * r + i % 4];
              special = special || tiles16_special(tiles16_stored(T), x);
              if (i % 2 == 0) x = tiles16_low_byte(tiles16_stored(T), x);
            }
            if (special) out[geo.flag_offset + t * geo.blocks + g] = 1;
          }
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
