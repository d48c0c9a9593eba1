/// @file armlower/kernels/mx/matmul_t_block_scaled_packed.hpp
/// MATMUL_T_BLOCK_SCALED (TOSA 1.1-draft, EXT-MXFP) with B — a linear layer's constant weights
/// [1, W, C] and their E8M0 scales [1, W, C/32] — packed once into caller-owned storage (`pack_b`) and
/// read from there on every call (`matmul_t_block_scaled(t, a, packed_b_view, output)`), the MX form
/// of `kernels::pack_linear_s8`. Results are those of `matmul_t_block_scaled(t, a, b, output, path)`
/// with the path the packing was made for (bit-identical where that path is: `bit_exact`).
///
/// Layouts (`packed_b_layout`), chosen by `pack_b` from the element type and the path:
///  - `tiles16` (the `avx512` path, which `best` picks for a GEMV on AVX-512 VNNI CPUs, where this build
///    has its kernels: `arch::avx512::tiles16_runs`): 16-row tiles with each block's 32 columns of the 16
///    rows interleaved by 4 (detail/tiles16.hpp), run by `arch::avx512::tiles16_rows` — block sums of 16
///    rows per instruction with no reduction tree; the same number of bytes as the row-major codes and
///    scales (plus ≤ 15 padding rows, and for FP8-coded types one flag byte per tile and block).
///     - MXINT8, FP6E2M3, FP4E2M1: exact int32 sums by `vpdpbusd`, no weight decode per call;
///       bit-identical to the pseudocode.
///     - FP8E4M3, FP8E5M2, FP6E3M2 (with AVX-512 BF16): codes stored as FP8 (FP6E3M2 as FP8E5M2),
///       turned into BF16 per call by a shift or `vpmultishiftqb` and a mask, `vdpbf16ps`;
///       FP6E3M2 bit-identical (exact block sums), FP8 within the TOSA dot-product bound (like the
///       row-major FP8 kernels: another fp32 summation order).
///    Measured against the row-major kernels and a streaming read of the same bytes:
///    benchmarks/RESULTS.md, "MX batch-1 GEMV over packed weights" and the sections after it.
///  - `tiles16` on the `avx2` path too (what `best` picks on AVX2-only CPUs) for MXINT8, FP6E2M3 and
///    FP4E2M1 (`arch::avx2::tiles16_runs`): the same bytes, run by `arch::avx2::tiles16_rows` — two 8-row
///    halves per 64-byte vector, `vpmaddubsw` / `vpmaddwd` sums with no reduction tree; bit-identical to
///    the pseudocode (benchmarks/RESULTS.md, "MX on AVX2: the tiles16 layout").
///  - `row_major` (every other type or path): a verbatim copy of B's codes and scales, run by the
///    row-major kernels of that path.
/// Firmware-clean (no heap, no exceptions), status codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include <armlower/dtype/dtype.hpp>
#include <armlower/dtype/with_dtype.hpp>
#include <armlower/kernels/detail/align64.hpp>
#include <armlower/kernels/mx/arch/x86_avx2_tiles16.hpp>
#include <armlower/kernels/mx/arch/x86_avx512_tiles16.hpp>
#include <armlower/kernels/mx/detail/tiles16.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled.hpp>

namespace armlower::kernels::mx {

/// How a packed B stores its codes and scales (see the file comment).
enum class packed_b_layout : std::uint8_t { row_major = 1, tiles16 = 2 };

/// Bytes of the header in front of every packing (magic, layout, element type, path, finite codes, W,
/// C, and for tiles16 the B prefetch kind of the CPU that packed it: `arch::avx512::cpu_prefetch_kind`).
inline constexpr std::size_t packed_b_header_bytes = 64;
/// The header byte that holds a tiles16 packing's B prefetch kind (`arch::avx512::prefetch_kind`,
/// written by `pack_b`; 0 in a row-major packing). A value above 1 is no packing.
inline constexpr std::size_t packed_b_prefetch_byte = 24;

/// The layout `pack_b` writes for element type `t` and `path` (`best` resolved for a GEMV, A with one
/// row): `tiles16` where the path is `avx512` and this build runs `t` on it (`arch::avx512::tiles16_runs`:
/// MXINT8, FP6E2M3, FP4E2M1 with the AVX-512 kernels; FP8E4M3, FP8E5M2, FP6E3M2 with their BF16 kernels
/// too) or the path is `avx2` and `t` an integer type (`arch::avx2::tiles16_runs`: MXINT8, FP6E2M3,
/// FP4E2M1); `row_major` otherwise.
[[nodiscard]] constexpr packed_b_layout packed_b_layout_for(dtype::id t, matmul_path path) noexcept {
  if (path == matmul_path::best) path = best_path(t, 1);
  const bool tiles = (path == matmul_path::avx512 && arch::avx512::tiles16_runs(t)) ||
                     (path == matmul_path::avx2 && arch::avx2::tiles16_runs(t));
  return tiles ? packed_b_layout::tiles16 : packed_b_layout::row_major;
}

/// Bytes `pack_b` needs for B [1, w, c] of element type `t` packed for `path` (header included); 0 when
/// `t` is not an MX element type, c is not a positive multiple of 32, w < 1, or the packing would not
/// be addressable in `std::size_t` (with a margin: (w + 16) · c ≤ SIZE_MAX / 4).
[[nodiscard]] constexpr std::size_t packed_b_size(dtype::id t, std::size_t w, std::size_t c,
                                                  matmul_path path = matmul_path::best) noexcept {
  if (!armlower::mx::is_element(t) || w == 0 || c == 0 || c % armlower::mx::block_size != 0) return 0;
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  if (w > most - detail::tiles16_rows || w + detail::tiles16_rows > most / 4 / c) return 0;  // not addressable here
  if (packed_b_layout_for(t, path) == packed_b_layout::tiles16)
    return packed_b_header_bytes + detail::tiles16_layout(t, w, c).total;
  return packed_b_header_bytes + armlower::mx::storage_bytes(t, w * c) + w * c / armlower::mx::block_size;
}

/// Bytes of a buffer that holds the packing of `packed_b_size(t, w, c, path)` at its first 64-byte
/// boundary (`packed_b_in`): that size + 64, or 0 where it is 0. The tiles16 kernels read B as 64-byte
/// vectors; a packing at 16 mod 64 (where `std::vector` puts large buffers) splits every load across
/// two cache lines: measured on Zen 5 (benchmarks/RESULTS.md, "MX on Zen 5"), the batch-1 GEMV with B
/// in L2 takes 2.9 cycles per 64 bytes instead of 2.35 (FP8E5M2) and 2.4 instead of 2.1 (MXINT8).
[[nodiscard]] constexpr std::size_t packed_b_storage_size(dtype::id t, std::size_t w, std::size_t c,
                                                          matmul_path path = matmul_path::best) noexcept {
  const std::size_t n = packed_b_size(t, w, c, path);
  return n == 0 || n > std::numeric_limits<std::size_t>::max() - 64 ? 0 : n + 64;
}

/// The `packed_b_size(t, w, c, path)` bytes of `storage` that start at its first 64-byte boundary:
/// where to `pack_b` and what to pass as the `packed_b_view` (a packing is position-independent; this
/// only places it for speed). Empty when that size is 0 or `storage` is shorter than
/// `packed_b_storage_size(t, w, c, path)`.
[[nodiscard]] inline std::span<std::uint8_t> packed_b_in(std::span<std::uint8_t> storage, dtype::id t, std::size_t w,
                                                         std::size_t c, matmul_path path = matmul_path::best) noexcept {
  const std::size_t n = packed_b_size(t, w, c, path);
  if (n == 0 || storage.size() < packed_b_storage_size(t, w, c, path)) return {};
  return storage.subspan(kernels::detail::align64_offset(storage.data()), n);
}

/// A packed B (`pack_b`'s buffer, or the part of it `packed_b_size` names).
struct packed_b_view {
  std::span<const std::uint8_t> bytes;
};

namespace detail {

/// The header fields of a packing.
struct packed_b_header {
  packed_b_layout layout = packed_b_layout::row_major;
  dtype::id type = dtype::id::mxint8;
  matmul_path path = matmul_path::best;
  bool finite_codes = false;
  std::uint8_t prefetch = 0;  ///< tiles16: the `arch::avx512::prefetch_kind` of the CPU that packed it
  std::size_t w = 0, c = 0;
};

inline constexpr std::uint8_t packed_b_magic[4] = {'A', 'M', 'X', 'B'};

constexpr void put_u64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
[[nodiscard]] constexpr std::uint64_t get_u64(const std::uint8_t* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

/// Reads and checks a packing's header: `shape_mismatch` when the bytes are no packing (magic,
/// fields out of range) or their size is not the one the header's W, C, type and layout give.
[[nodiscard]] constexpr status read_header(std::span<const std::uint8_t> bytes, packed_b_header& h) noexcept {
  if (bytes.size() < packed_b_header_bytes) return status::shape_mismatch;
  for (int i = 0; i < 4; ++i)
    if (bytes[i] != packed_b_magic[i]) return status::shape_mismatch;
  h.layout = static_cast<packed_b_layout>(bytes[4]);
  h.type = static_cast<dtype::id>(bytes[5]);
  h.path = static_cast<matmul_path>(bytes[6]);
  h.finite_codes = bytes[7] != 0;
  h.prefetch = bytes[packed_b_prefetch_byte];
  const std::uint64_t w = get_u64(bytes.data() + 8), c = get_u64(bytes.data() + 16);
  if (!armlower::mx::is_element(h.type) || h.path > matmul_path::best ||
      (h.layout != packed_b_layout::row_major && h.layout != packed_b_layout::tiles16) || w == 0 || c == 0 ||
      w >= (std::uint64_t{1} << 31) || c >= (std::uint64_t{1} << 31) || c % armlower::mx::block_size != 0 ||
      w > std::numeric_limits<std::size_t>::max() || c > std::numeric_limits<std::size_t>::max() ||
      h.prefetch > 1)
    return status::shape_mismatch;
  h.w = static_cast<std::size_t>(w);
  h.c = static_cast<std::size_t>(c);
  if (packed_b_size(h.type, h.w, h.c, h.path) == 0) return status::shape_mismatch;  // not addressable
  if (h.layout != packed_b_layout_for(h.type, h.path)) return status::shape_mismatch;
  if (bytes.size() != packed_b_size(h.type, h.w, h.c, h.path)) return status::shape_mismatch;
  return status::ok;
}

}  // namespace detail

/// Packs B (`b`: data [1, W, C] and scales [1, W, C/32] of element type `t`) for `path` into
/// `buffer` (at least `packed_b_size(t, W, C, path)` bytes; only that many are written, from the
/// start; 64-byte aligned for speed: `packed_b_in`). `b.finite_codes` is kept with the packing, and for
/// tiles16 this CPU's B prefetch kind. Errors (nothing written): `unsupported_type` (t not an MX element type), `bad_rank` / `empty_dimension` / `bad_block_dim` / `shape_mismatch` /
/// `buffer_size` (as `matmul_t_block_scaled` checks B, or a packing not addressable here), `bad_batch` (D ≠ 1: only shared weights are
/// packed), `unsupported_path` (path not compiled in or not available for t), `scratch_too_small`.
[[nodiscard]] constexpr status pack_b(dtype::id t, const block_scaled_view& b, std::span<std::uint8_t> buffer,
                                      matmul_path path = matmul_path::best) noexcept {
  if (!armlower::mx::is_element(t)) return status::unsupported_type;
  if (b.data_shape.size() != 3 || b.scale_shape.size() != 3) return status::bad_rank;
  std::size_t count = 0;
  if (const status s = detail::check_data_shape(b.data_shape, count); s != status::ok) return s;
  if (const status s = detail::check_scale_shape(b.data_shape, b.scale_shape); s != status::ok) return s;
  if (b.data_shape[0] != 1) return status::bad_batch;
  if (b.data.size() != armlower::mx::storage_bytes(t, count) || b.scale.size() != count / armlower::mx::block_size)
    return status::buffer_size;
  if (!path_available(t, path)) return status::unsupported_path;
  const auto w = static_cast<std::size_t>(b.data_shape[1]), c = static_cast<std::size_t>(b.data_shape[2]);
  const std::size_t need = packed_b_size(t, w, c, path);
  if (need == 0) return status::buffer_size;  // a packing this large is not addressable here
  if (buffer.size() < need) return status::scratch_too_small;
  std::uint8_t* p = buffer.data();
  for (int i = 0; i < 4; ++i) p[i] = detail::packed_b_magic[i];
  const packed_b_layout layout = packed_b_layout_for(t, path);
  p[4] = static_cast<std::uint8_t>(layout);
  p[5] = static_cast<std::uint8_t>(t);
  p[6] = static_cast<std::uint8_t>(path);
  p[7] = b.finite_codes ? 1 : 0;
  detail::put_u64(p + 8, w);
  detail::put_u64(p + 16, c);
  for (std::size_t i = 24; i < packed_b_header_bytes; ++i) p[i] = 0;
#if defined(ARMLOWER_MX_AVX512)
  if (layout == packed_b_layout::tiles16 && path != matmul_path::avx2 && !std::is_constant_evaluated())
    p[packed_b_prefetch_byte] = static_cast<std::uint8_t>(arch::avx512::cpu_prefetch_kind());  // how this CPU prefetches B
#endif
  std::uint8_t* body = p + packed_b_header_bytes;
  if (layout == packed_b_layout::tiles16) {
    dtype::with_dtype(t, [&](auto e) {
      if constexpr (detail::tiles16_type(decltype(e)::value))
        detail::pack_tiles16<decltype(e)::value>(b.data.data(), b.scale.data(), w, c, body);
    });
  } else {
    for (std::size_t i = 0; i < b.data.size(); ++i) body[i] = b.data[i];
    for (std::size_t i = 0; i < b.scale.size(); ++i) body[b.data.size() + i] = b.scale[i];
  }
  return status::ok;
}

/// MATMUL_T_BLOCK_SCALED of `a` ([N, H, C], element type `t`) and the packed B ([1, W, C] as packed),
/// into `output` (N·H·W fp32, [N, H, W]), on the path the packing was made for. Errors (nothing
/// written): `unsupported_type` (t not an MX element type), `shape_mismatch` (the bytes are no
/// packing, were packed for another element type, or their C differs from A's), the checks of A as
/// in `matmul_t_block_scaled`, `buffer_size` (output size), `unsupported_path` (a tiles16 packing in a
/// build without the kernels of its path).
[[nodiscard]] constexpr status matmul_t_block_scaled(dtype::id t, const block_scaled_view& a, packed_b_view b,
                                                     std::span<float> output) noexcept {
  if (!armlower::mx::is_element(t)) return status::unsupported_type;
  detail::packed_b_header h;
  if (const status s = detail::read_header(b.bytes, h); s != status::ok) return s;
  if (h.type != t) return status::shape_mismatch;
  const std::int32_t b_shape[3] = {1, static_cast<std::int32_t>(h.w), static_cast<std::int32_t>(h.c)};
  const std::int32_t b_scale_shape[3] = {1, b_shape[1], b_shape[2] / static_cast<std::int32_t>(armlower::mx::block_size)};
  const std::uint8_t* body = b.bytes.data() + packed_b_header_bytes;
  if (h.layout == packed_b_layout::row_major) {
    const std::size_t nd = armlower::mx::storage_bytes(t, h.w * h.c);
    const block_scaled_view bv{{body, nd}, b_shape, {body + nd, h.w * h.c / armlower::mx::block_size}, b_scale_shape,
                               h.finite_codes};
    return matmul_t_block_scaled(t, a, bv, output, h.path);
  }
  // tiles16: check A against B's shape as the row-major entry does (the B view is shape-only here)
  const block_scaled_view bv{{body, armlower::mx::storage_bytes(t, h.w * h.c)}, b_shape,
                             {body, h.w * h.c / armlower::mx::block_size}, b_scale_shape, h.finite_codes};
  detail::mm_dims m;
  if (const status s = detail::check_operands(t, a, bv, output, m); s != status::ok) return s;
  // the AVX2 and the AVX-512 kernels read the same layout: a packing made for either runs on the path its
  // header names (a packing for `avx2` leaves the prefetch byte unused)
  [[maybe_unused]] const bool on_avx2 =
      h.path == matmul_path::avx2 || (h.path == matmul_path::best && best_path(t, 1) == matmul_path::avx2);
  const std::size_t row_bytes = armlower::mx::storage_bytes(t, m.c), row_scales = m.c / armlower::mx::block_size;
  for (std::size_t i = 0; i < m.n; ++i) {
    [[maybe_unused]] const detail::tiles16_operands r{a.data.data() + i * m.h * row_bytes,
                                                      a.scale.data() + i * m.h * row_scales,
                                                      m.h,
                                                      body,
                                                      m.w,
                                                      m.c,
                                                      output.data() + i * m.h * m.w};
    status s = status::unsupported_path;
    dtype::with_dtype(t, [&](auto e) {
      [[maybe_unused]] constexpr dtype::id T = decltype(e)::value;
#if defined(__AVX2__) && defined(__FMA__)
      if constexpr (arch::avx2::tiles16_runs(T)) {
        if (on_avx2) {
          arch::avx2::tiles16_rows<T>(r);
          s = status::ok;
        }
      }
#endif
#if defined(ARMLOWER_MX_AVX512)
      if constexpr (arch::avx512::tiles16_runs(T)) {
        if (!on_avx2) {
          arch::avx512::tiles16_rows<T>(
              arch::avx512::tiles16_args{r, static_cast<arch::avx512::prefetch_kind>(h.prefetch)});
          s = status::ok;
        }
      }
#endif
    });
    if (s != status::ok) return s;  // no kernel for this packing in this build (nothing written)
  }
  return status::ok;
}

}  // namespace armlower::kernels::mx
