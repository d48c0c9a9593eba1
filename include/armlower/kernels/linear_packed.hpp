/// @file armlower/kernels/linear_packed.hpp
/// Pre-packed s8 fused linear (fully connected): weights and the per-row constants packed ONCE into
/// caller-owned memory, then any number of calls read the packed form. Same bytes as `linear_s8` for
/// every valid argument set (contract: `kernels/linear_args.hpp`; semantics: CMSIS-NN
/// `arm_fully_connected_s8` / `arm_fully_connected_per_channel_s8`, TFLite reference
/// `FullyConnected` int8). Two ways to use it:
///
/// 1. **Pack on first use** (what a caller of the unpacked API gets by passing a buffer):
/// ```
/// std::vector<std::uint8_t> cache(kernels::linear_s8_cache_size(a.rows, a.cols));  // per layer, persistent
/// kernels::linear_s8(a, cache.data(), cache.size());   // 1st call packs, later calls reuse the packing
/// ```
///    The buffer's header records what was packed (rows, cols, input/filter offsets, the ADDRESSES of
///    `weights`, `bias`, `kernel_sum`, the layout); a call whose arguments differ in any of these
///    repacks. What the header cannot see is a change of the CONTENTS at the same addresses: a caller
///    that rewrites weights, bias or kernel_sum in place must call `reset_linear_s8_cache` first
///    (else the old packing is used). A buffer smaller than `linear_s8_cache_size` (or null) is
///    never written: the call runs the unpacked `linear_s8(a)`. The buffer must belong to this layer
///    (not be shared scratch that other code overwrites between calls without a reset).
/// 2. **Explicit** (plan time):
/// ```
/// kernels::pack_linear_s8(a, buf.data(), buf.size());       // once: weights, bias/kernel_sum, offsets
/// kernels::linear_s8_packed(a, buf.data(), buf.size());     // every call: input, output, batches, requant
/// ```
///    What the packed form captures (from `a` at pack time): `rows`, `cols`, `weights`, `bias` or
///    `kernel_sum`, `input_offset`, `filter_offset`. `linear_s8_packed` reads `input`, `output`,
///    `batches`, `output_offset`, `multiplier`, `shift`, `per_channel`, `activation_*`, `rounding`
///    from its own `a`, refuses a buffer packed for other rows/cols/offsets (`shape_mismatch` /
///    `zero_point_out_of_range`), and uses `a.weights` only when it cannot run the packed form (it
///    then runs `linear_s8(a)`), so `a.weights` must stay valid.
/// 3. **Checked once** (a layer run many times, each time on other inputs):
/// ```
/// kernels::linear_s8_plan plan;
/// kernels::plan_linear_s8(a, cache.data(), cache.size(), plan);  // once: every check, pack on first use
/// kernels::linear_s8(plan, x, y);                                 // every call: checks x and y only
/// ```
///
/// Layouts (`kernels/detail/linear_s8_packed_layout.hpp`), chosen at pack time by the path
/// (`automatic`: the one measured fastest on this CPU class, benchmarks/RESULTS.md):
/// - AVX-512 VNNI (`kernels/arch/x86/linear_vnni_packed.hpp`): `vpdpbusd` panels of 16 channels × 4 K,
///   weight sums and `input_offset·Σw` folded into a per-row int64 constant at pack time, 4 batch
///   rows × 64 channels of int32 accumulators in zmm registers; rows < 16: row-major, padded. Where the
///   CPU and OS allow AMX-INT8, calls of ≥ 8 batch rows, 256 ≤ K ≤ 65536 and ≥ 128 channels read the same
///   panels as TDPBSUD tiles (`kernels/arch/x86/linear_amx_packed.hpp`; same bytes; the tile configuration
///   is set and released within each call);
/// - AVX2 (`kernels/arch/x86/linear_avx2_pairs.hpp`, `linear_s8_pairs_avx2`): groups of 8 rows ×
///   column pairs read as one stream, 8 channels × up to 8 batch rows of int32 accumulators per
///   widened weight vector, the folded row constants passed as its kernel_sum (int32; when some
///   |c| ≥ 2^31, or the buffer is not 4-byte aligned, the call runs `linear_s8(a)` instead).
/// A buffer that is not 8-byte aligned runs `linear_s8(a)` on the VNNI layout too (its row constants
/// are int64 read in place); 64-byte alignment is best (`linear_s8(a, cache, size)` aligns its
/// packing itself).
///
/// Firmware-clean: noexcept, no heap, no exceptions, no static initialisation. On non-x86 targets
/// `pack_linear_s8` still writes the (portable) layout, `linear_s8_packed` runs `linear_s8`, and the
/// pack-on-first-use form never touches the buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/detail/align64.hpp>
#include <armlower/kernels/detail/linear_s8_packed_layout.hpp>
#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/kernels/status.hpp>

#if defined(ARMLOWER_KERNELS_HAVE_X86)
#include <armlower/kernels/arch/x86/linear_amx_packed.hpp>
#include <armlower/kernels/arch/x86/linear_avx2_pairs.hpp>
#define ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED 1
#endif

namespace armlower::kernels {

/// Bytes of the packed form of an s8 linear with `rows` output channels and `cols` accumulation
/// depth, enough for either layout: 64 (header) + 12·Np (row constants, int64 and int32) + the
/// weights (VNNI: Np·Kp, Np = rows rounded up to 16, Kp = cols rounded up to 4; AVX2: rows rounded up
/// to 8 × cols rounded up to 16; `kernels/detail/linear_s8_packed_layout.hpp`). 0 for non-positive
/// dimensions or if the size would exceed 2^40 bytes.
[[nodiscard]] constexpr std::size_t linear_s8_packed_size(std::int32_t rows, std::int32_t cols) noexcept {
  if (rows < 1 || cols < 1) return 0;
  const std::uint64_t n = detail::packed_s8_total_any(rows, cols);
  return n > (std::uint64_t{1} << 40) ? 0 : static_cast<std::size_t>(n);
}

namespace detail {

/// The layout `path` packs a `rows` × `cols` layer into: `x86_avx2` → AVX2 (`avx2_pairs_kind`: int16 weights for
/// small layers); `automatic` → the fastest packed layout this CPU runs (AVX-512 VNNI where available, else AVX2
/// where available); anything else → VNNI (the portable bytes; run by `linear_s8` where the CPU has neither).
[[nodiscard]] inline packed_s8_layout_kind packed_s8_kind_for(linear_path path, std::int64_t rows,
                                                              std::int64_t cols) noexcept {
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  if (path == linear_path::x86_avx2) return avx2_pairs_kind(rows, cols);
  if (path == linear_path::automatic && !x86_has_avx512_vnni_vl() && x86_has_avx2()) return avx2_pairs_kind(rows, cols);
#else
  (void)path;
  (void)rows;
  (void)cols;
#endif
  return packed_s8_layout_kind::vnni;
}

/// True if this CPU runs layout `k` with its packed microkernel.
[[nodiscard]] inline bool packed_s8_runs(packed_s8_layout_kind k) noexcept {
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  return packed_s8_avx2_kind(k) ? x86_has_avx2() : x86_has_avx512_vnni_vl();
#else
  (void)k;
  return false;
#endif
}

[[nodiscard]] inline std::uint64_t address_id(const void* p) noexcept {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
}

/// Writes `weights` [rows][cols] at `w` in the weight layout `kind` with geometry `geo`
/// (`kernels/detail/linear_s8_packed_layout.hpp`: VNNI panels of u = w + 128 bytes, or row-major u
/// bytes where `geo.narrow`; the AVX2 column pairs, as bytes or as int16). Padding is zero.
inline void pack_s8_weights(const std::int8_t* weights, std::int32_t n_rows, std::int32_t n_cols,
                            packed_s8_layout_kind kind, const packed_s8_geometry& geo, std::uint8_t* w) noexcept {
  const std::ptrdiff_t rows = n_rows, cols = n_cols;
  const auto np = static_cast<std::ptrdiff_t>(geo.np), kp = static_cast<std::ptrdiff_t>(geo.kp);
  if (packed_s8_avx2_kind(kind)) {
    // groups of 8 rows; per column pair the 2 weights of each of the 8 rows; cols padded to 16; zero padding;
    // avx2_pairs16: each as a little-endian int16
    const bool w16 = kind == packed_s8_layout_kind::avx2_pairs16;
    const std::ptrdiff_t pairs = (cols + 15) / 16 * 8;
    std::size_t o = 0;
    for (std::ptrdiff_t r0 = 0; r0 < rows; r0 += 8) {
      for (std::ptrdiff_t p = 0; p < pairs; ++p) {
        for (std::ptrdiff_t i = 0; i < 8; ++i) {
          for (std::ptrdiff_t j = 0; j < 2; ++j) {
            const std::ptrdiff_t r = r0 + i, k = 2 * p + j;
            const std::int8_t v = (r < rows && k < cols) ? weights[r * cols + k] : std::int8_t{0};
            w[o++] = static_cast<std::uint8_t>(v);
            if (w16) w[o++] = v < 0 ? std::uint8_t{0xFF} : std::uint8_t{0};
          }
        }
      }
    }
  } else if (geo.narrow) {  // row-major, rows padded with zeros to a multiple of 64 bytes
    const auto stride = static_cast<std::ptrdiff_t>(geo.row_stride);
    for (std::ptrdiff_t r = 0; r < rows; ++r) {
      std::memcpy(w + r * stride, weights + r * cols, static_cast<std::size_t>(cols));
      std::memset(w + r * stride + cols, 0, static_cast<std::size_t>(stride - cols));
    }
  } else {
    // panels of 16 channels, groups of 4 panels; in a group of gp panels: line (g, p) at (g·gp + p)·64
    const std::ptrdiff_t panels = np / 16;
    for (std::ptrdiff_t p = 0; p < panels; ++p) {
      const std::ptrdiff_t grp = p / 4, pin = p % 4;
      const std::ptrdiff_t gp = panels - grp * 4 < 4 ? panels - grp * 4 : 4;
      std::uint8_t* base = w + grp * 4 * 16 * kp;
      for (std::ptrdiff_t g = 0; g < kp / 4; ++g) {
        std::uint8_t* line = base + (g * gp + pin) * 64;
        for (std::ptrdiff_t j = 0; j < 16; ++j) {
          const std::ptrdiff_t r = p * 16 + j;
          for (std::ptrdiff_t i = 0; i < 4; ++i) {
            const std::ptrdiff_t k = g * 4 + i;
            line[j * 4 + i] = (r < rows && k < cols)
                                  ? static_cast<std::uint8_t>(static_cast<std::uint8_t>(weights[r * cols + k]) ^ 0x80u)
                                  : std::uint8_t{0};
          }
        }
      }
    }
  }
}

}  // namespace detail

/// Packs `a.weights` [rows][cols] and the folded row constants into `packed` in the layout of
/// `path` (`automatic`: the fastest this CPU runs; `x86_avx2`: the AVX2 layout; other paths: the
/// VNNI layout; `kernels/detail/linear_s8_packed_layout.hpp`). Row constant c[r] = kernel_sum[r] if
/// `a.kernel_sum`, else bias[r] (0 if null) + input_offset·Σ_k w[r][k] + cols·input_offset·filter_offset
/// (exact int64). Only `weights`, `bias`, `kernel_sum`, `rows`, `cols`, `input_offset`,
/// `filter_offset` of `a` are read; their addresses are recorded in the header.
/// @return `null_pointer` (weights, packed), `empty_dimension` (rows/cols < 1),
///   `zero_point_out_of_range` (|offsets| > 255), `scratch_too_small` (size < linear_s8_packed_size
///   or that size is 0); else `ok`.
[[nodiscard]] inline status pack_linear_s8(const linear_s8_args& a, void* packed, std::size_t size,
                                           linear_path path = linear_path::automatic) noexcept {
  if (a.weights == nullptr || packed == nullptr) return status::null_pointer;
  if (a.rows < 1 || a.cols < 1) return status::empty_dimension;
  if (!detail::in_range(a.input_offset, -255, 255) || !detail::in_range(a.filter_offset, -255, 255)) {
    return status::zero_point_out_of_range;
  }
  const std::size_t need = linear_s8_packed_size(a.rows, a.cols);
  if (need == 0 || size < need) return status::scratch_too_small;
  auto* out = static_cast<std::uint8_t*>(packed);
  const detail::packed_s8_layout_kind kind = detail::packed_s8_kind_for(path, a.rows, a.cols);
  const detail::packed_s8_geometry geo = detail::packed_s8_layout(a.rows, a.cols, kind);
  detail::packed_s8_header h;
  h.magic = detail::packed_s8_magic;
  h.rows = a.rows;
  h.cols = a.cols;
  h.input_offset = a.input_offset;
  h.filter_offset = a.filter_offset;
  h.kernel_sum_form = a.kernel_sum != nullptr ? 1 : 0;
  h.weights_id = detail::address_id(a.weights);
  h.kernel_sum_id = detail::address_id(a.kernel_sum);
  h.bias_id = a.kernel_sum != nullptr ? 0 : detail::address_id(a.bias);
  h.layout = static_cast<std::int32_t>(kind);
  const std::ptrdiff_t rows = a.rows, cols = a.cols;
  const auto np = static_cast<std::ptrdiff_t>(geo.np);
  for (std::ptrdiff_t r = 0; r < np; ++r) {
    std::int64_t c = 0;
    if (r < rows) {
      if (a.kernel_sum != nullptr) {
        c = a.kernel_sum[r];
      } else {
        std::int64_t wsum = 0;
        const std::int8_t* wr = a.weights + r * cols;
        for (std::ptrdiff_t k = 0; k < cols; ++k) wsum += wr[k];
        c = (a.bias != nullptr ? a.bias[r] : 0) + static_cast<std::int64_t>(a.input_offset) * wsum +
            static_cast<std::int64_t>(cols) * a.input_offset * a.filter_offset;
      }
    }
    const std::int64_t mag = c < 0 ? -c : c;  // |c| ≤ 2^31 + 255·510·cols: no int64 overflow
    if (mag > h.cmax) h.cmax = mag;
    const std::int32_t c32 = quant::detail::wrap32(c);
    std::memcpy(out + geo.c64 + 8 * static_cast<std::uint64_t>(r), &c, 8);
    std::memcpy(out + geo.c32 + 4 * static_cast<std::uint64_t>(r), &c32, 4);
  }
  h.magic = 0;  // the header becomes valid only once the weights are written
  std::memcpy(out, &h, sizeof h);
  detail::pack_s8_weights(a.weights, a.rows, a.cols, kind, geo, out + geo.weights);
  const std::uint32_t magic = detail::packed_s8_magic;
  std::memcpy(out, &magic, sizeof magic);
  return status::ok;
}

/// True if `linear_s8_packed` runs a packed microkernel on this CPU for a buffer packed with
/// `path` (default: `automatic`); else it runs `linear_s8(a)`.
[[nodiscard]] inline bool linear_s8_packed_native(linear_path path = linear_path::automatic) noexcept {
  return detail::packed_s8_runs(detail::packed_s8_kind_for(path, 1, 1));  // both AVX2 layouts run on the same CPUs
}

namespace detail {

/// The geometry of the layout a buffer's header `h` records (for `linear_s8_packed_run`).
[[nodiscard]] constexpr packed_s8_geometry packed_s8_geometry_of(const packed_s8_header& h) noexcept {
  return packed_s8_layout(h.rows, h.cols,
                          packed_s8_layout_valid(h.layout, h.rows, h.cols) ? static_cast<packed_s8_layout_kind>(h.layout)
                                                                           : packed_s8_layout_kind::vnni);
}

/// Calls f with the AVX2 packed weights of a buffer at `base` with AVX2 geometry `geo`: `const std::int16_t*` for
/// `avx2_pairs16`, else `const std::int8_t*` (`linear_s8_pairs_avx2`'s WT). The int16 pointer is aligned when the
/// row constants are (the weights start 4·Np bytes after the int32 ones).
template <class F>
inline void with_avx2_weights(const std::uint8_t* base, const packed_s8_geometry& geo, F&& f) noexcept {
  if (geo.kind == packed_s8_layout_kind::avx2_pairs16) {
    f(reinterpret_cast<const std::int16_t*>(base + geo.weights));
  } else {
    f(reinterpret_cast<const std::int8_t*>(base + geo.weights));
  }
}

/// Runs the packed form for a validated `a`, the buffer's header `h` (already checked to match `a`)
/// and its geometry `geo` (`packed_s8_geometry_of(h)`).
[[nodiscard]] inline status linear_s8_packed_run(const linear_s8_args& a, const std::uint8_t* base,
                                                 const packed_s8_header& h, const packed_s8_geometry& geo) noexcept {
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  if (packed_s8_avx2_kind(geo.kind)) {
    if (x86_has_avx2() && h.cmax <= INT32_MAX &&
        reinterpret_cast<std::uintptr_t>(base + geo.c32) % alignof(std::int32_t) == 0) {
      // the folded constants are exactly a kernel_sum (CMSIS-NN form)
      const auto* c32 = reinterpret_cast<const std::int32_t*>(base + geo.c32);
      with_avx2_weights(base, geo, [&](const auto* w) { linear_s8_pairs_avx2(a, w, nullptr, nullptr, c32, h.cmax); });
      return status::ok;
    }
  } else if (x86_has_avx512_vnni_vl() && reinterpret_cast<std::uintptr_t>(base + geo.c64) % alignof(std::int64_t) == 0) {
    if (geo.narrow) {
      linear_s8_rowdot_vnni(a, reinterpret_cast<const std::int8_t*>(base + geo.weights),
                            static_cast<std::ptrdiff_t>(geo.row_stride),
                            reinterpret_cast<const std::int64_t*>(base + geo.c64));
    } else {
#if defined(ARMLOWER_KERNELS_HAVE_AMX)
      if (amx_s8_applies(a, geo) && x86_has_amx_int8()) {
        linear_s8_packed_amx(a, base, geo);
        return status::ok;
      }
#endif
      linear_s8_packed_vnni(a, base, geo);
    }
    return status::ok;
  }
#else
  (void)base;
  (void)h;
  (void)geo;
#endif
  return linear_s8(a);
}

/// `linear_s8_packed_run(a, base, h, packed_s8_geometry_of(h))`.
[[nodiscard]] inline status linear_s8_packed_run(const linear_s8_args& a, const std::uint8_t* base,
                                                 const packed_s8_header& h) noexcept {
  return linear_s8_packed_run(a, base, h, packed_s8_geometry_of(h));
}

}  // namespace detail

/// Fused s8 linear over a buffer written by `pack_linear_s8` (same bytes as `linear_s8(a)` with the
/// weights/bias/kernel_sum/offsets given at pack time).
/// @return the `validate(a)` errors; `null_pointer` (packed); `scratch_too_small` (size <
///   linear_s8_packed_size); `shape_mismatch` (buffer not packed by `pack_linear_s8`, or for other
///   rows/cols); `zero_point_out_of_range` (packed for other input/filter offsets); else `ok`.
[[nodiscard]] inline status linear_s8_packed(const linear_s8_args& a, const void* packed, std::size_t size) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  if (packed == nullptr) return status::null_pointer;
  if (size < linear_s8_packed_size(a.rows, a.cols) || size < sizeof(detail::packed_s8_header)) {
    return status::scratch_too_small;
  }
  detail::packed_s8_header h;
  std::memcpy(&h, packed, sizeof h);
  if (h.magic != detail::packed_s8_magic || h.rows != a.rows || h.cols != a.cols ||
      !detail::packed_s8_layout_valid(h.layout, a.rows, a.cols)) {
    return status::shape_mismatch;
  }
  if (h.input_offset != a.input_offset || h.filter_offset != a.filter_offset) return status::zero_point_out_of_range;
  return detail::linear_s8_packed_run(a, static_cast<const std::uint8_t*>(packed), h);
}

/// Bytes of a pack-on-first-use buffer (`linear_s8(a, cache, size)`): `linear_s8_packed_size` + 64,
/// so that the packing can start at the first 64-byte boundary inside the buffer (the microkernels'
/// 64-byte weight loads then never split cache lines, whatever the buffer's alignment). 0 where
/// `linear_s8_packed_size` is 0.
[[nodiscard]] constexpr std::size_t linear_s8_cache_size(std::int32_t rows, std::int32_t cols) noexcept {
  const std::size_t n = linear_s8_packed_size(rows, cols);
  return n == 0 ? 0 : n + 64;
}

namespace detail {
/// The 64-byte aligned start of the packing inside a cache buffer of `size` bytes (null if the buffer
/// is null, `need` is 0 or the buffer is smaller than `need`, the cache size of the layer).
[[nodiscard]] inline std::uint8_t* cache_base_of(const void* cache, std::size_t size, std::size_t need) noexcept {
  if (cache == nullptr || need == 0 || size < need) return nullptr;
  return static_cast<std::uint8_t*>(const_cast<void*>(cache)) + align64_offset(cache);
}

/// `cache_base_of` for an s8 layer (`linear_s8_cache_size`).
[[nodiscard]] inline std::uint8_t* cache_base(const void* cache, std::size_t size, std::int32_t rows,
                                              std::int32_t cols) noexcept {
  return cache_base_of(cache, size, linear_s8_cache_size(rows, cols));
}

/// Clears the header of the packing in a pack-on-first-use buffer (s8 or a16w8).
inline void reset_cache(void* cache, std::size_t size) noexcept {
  if (cache == nullptr) return;
  const std::size_t off = align64_offset(cache);  // where the packing starts (see `linear_s8_cache_size`)
  if (size >= off + sizeof(packed_s8_header)) std::memset(static_cast<std::uint8_t*>(cache) + off, 0, sizeof(packed_s8_header));
}
}  // namespace detail

/// Invalidates a pack-on-first-use buffer (next `linear_s8(a, cache, size)` repacks). Call it when
/// the weights, bias or kernel_sum were changed in place. No effect for null or < 64-byte buffers.
inline void reset_linear_s8_cache(void* cache, std::size_t size) noexcept { detail::reset_cache(cache, size); }

/// True if `cache` holds a packing of exactly `a`'s weights/bias/kernel_sum addresses, shape and
/// offsets, in the layout `automatic` picks on this CPU (what `linear_s8(a, cache, size)` reuses).
[[nodiscard]] inline bool linear_s8_cache_matches(const linear_s8_args& a, const void* cache, std::size_t size) noexcept {
  const std::uint8_t* base = detail::cache_base(cache, size, a.rows, a.cols);
  if (base == nullptr) return false;
  detail::packed_s8_header h;
  std::memcpy(&h, base, sizeof h);
  return h.magic == detail::packed_s8_magic && h.rows == a.rows && h.cols == a.cols &&
         h.input_offset == a.input_offset && h.filter_offset == a.filter_offset &&
         h.layout == static_cast<std::int32_t>(detail::packed_s8_kind_for(linear_path::automatic, a.rows, a.cols)) &&
         h.weights_id == detail::address_id(a.weights) && h.kernel_sum_id == detail::address_id(a.kernel_sum) &&
         h.bias_id == (a.kernel_sum != nullptr ? 0 : detail::address_id(a.bias));
}

/// True if `linear_s8(a, cache, size)` packs a layer with `rows` output channels on this CPU: where
/// a packed microkernel runs, and rows ≥ 16 — narrower layers run the row-major kernel, measured
/// faster than their packed form (4000×4, batch 1 and 8: AVX-512 VNNI on Zen 4 and AVX2 on Zen 3,
/// benchmarks/RESULTS.md; the column-pair AVX2 kernel on Zen 4 restricted to AVX2: 22.6 / 33.2 GMAC/s
/// packed against 48.6 / 49.4 row-major), so their buffer is not touched.
[[nodiscard]] inline bool linear_s8_cache_pays(std::int32_t rows) noexcept {
  return rows >= 16 && linear_s8_packed_native();
}

/// Fused s8 linear with PACK ON FIRST USE into the caller-owned `cache` (see the file comment):
/// where this CPU runs a packed microkernel and `size ≥ linear_s8_cache_size(a.rows, a.cols)`, the
/// first call (and any call whose weights/bias/kernel_sum addresses, shape or offsets differ from the
/// packing recorded in the buffer) packs `a` into `cache`, and every call runs `linear_s8_packed`;
/// otherwise (null or smaller buffer, or `linear_s8_cache_pays(a.rows)` false) it runs `linear_s8(a)`
/// and never touches `cache`. Same bytes as `linear_s8(a)` in every case. No alignment needed.
/// @return the `validate(a)` errors; else `ok`.
[[nodiscard]] inline status linear_s8(const linear_s8_args& a, void* cache, std::size_t size) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  std::uint8_t* base = detail::cache_base(cache, size, a.rows, a.cols);
  if (base == nullptr || !linear_s8_cache_pays(a.rows)) return linear_s8(a);
  if (!linear_s8_cache_matches(a, cache, size)) {
    if (const status s = pack_linear_s8(a, base, linear_s8_packed_size(a.rows, a.cols)); s != status::ok) return s;
  }
  detail::packed_s8_header h;  // matches `a` (checked or just written): no second validation
  std::memcpy(&h, base, sizeof h);
  return detail::linear_s8_packed_run(a, base, h);
}

/// A `linear_s8(a, cache, size)` call checked once (`plan_linear_s8`): `validate(a)` but for the input and
/// output pointers, and the pack-on-first-use step done (the buffer packed, or found packed, for `a`;
/// or the decision to run the row-major `linear_s8(a)` where packing does not pay). Running it
/// (`linear_s8(plan, input, output)`) checks only the two pointers, for callers that run one layer many
/// times, each time on other inputs. Plain data, no ownership: it keeps `a`'s pointers (weights, bias, kernel_sum, multiplier, shift) and the buffer's
/// address, and is valid while they and what they point at are unchanged. Default-constructed: empty.
class linear_s8_plan {
 public:
  linear_s8_plan() = default;
  /// The checked arguments (`input` and `output` null: given per call).
  [[nodiscard]] const linear_s8_args& args() const noexcept { return a_; }
  /// True when runs read the packing in the cache buffer (else they run the row-major `linear_s8(a)`).
  [[nodiscard]] bool packed() const noexcept { return base_ != nullptr; }

 private:
  friend status plan_linear_s8(const linear_s8_args&, void*, std::size_t, linear_s8_plan&) noexcept;
  friend status linear_s8(const linear_s8_plan&, const std::int8_t*, std::int8_t*) noexcept;
  linear_s8_args a_{};
  const std::uint8_t* base_ = nullptr;
  detail::packed_s8_header h_{};
  detail::packed_s8_geometry geo_{};
  bool ready_ = false;
};

/// Checks a `linear_s8(a, cache, size)` call of `a` (its `input` and `output` are ignored) and does its
/// pack-on-first-use step: where `linear_s8(a, cache, size)` would pack, packs `a` into `cache` unless
/// it holds that packing already. On success writes the checked call to `plan`; `plan` is left unchanged
/// on an error.
/// @return the `validate(a)` errors except for `input`/`output`: `null_pointer` (weights, multiplier,
///   shift), `empty_dimension`, `zero_point_out_of_range`, `activation_range_invalid`,
///   `multiplier_out_of_range`, `shift_out_of_range`, `invalid_attribute`; else `ok`.
[[nodiscard]] inline status plan_linear_s8(const linear_s8_args& a, void* cache, std::size_t size,
                                           linear_s8_plan& plan) noexcept {
  linear_s8_args b = a;
  b.input = nullptr;
  b.output = nullptr;
  if (b.weights == nullptr) return status::null_pointer;
  if (const status s = detail::validate_s8_parameters(b); s != status::ok) return s;
  std::uint8_t* base = detail::cache_base(cache, size, b.rows, b.cols);
  if (base != nullptr && linear_s8_cache_pays(b.rows)) {
    if (!linear_s8_cache_matches(b, cache, size)) {
      if (const status s = pack_linear_s8(b, base, linear_s8_packed_size(b.rows, b.cols)); s != status::ok) return s;
    }
    std::memcpy(&plan.h_, base, sizeof plan.h_);
    plan.geo_ = detail::packed_s8_geometry_of(plan.h_);
  } else {
    base = nullptr;
  }
  plan.a_ = b;
  plan.base_ = base;
  plan.ready_ = true;
  return status::ok;
}

/// Runs the checked call `plan` (`plan_linear_s8`) on `input` [batches][cols] into `output`
/// [batches][rows] (int8, row-major): the bytes of `linear_s8(a, cache, size)` for the `a` it was made
/// from with these two pointers.
/// @return `null_pointer` (input, output, or an empty plan); else `ok`.
[[nodiscard]] inline status linear_s8(const linear_s8_plan& plan, const std::int8_t* input, std::int8_t* output) noexcept {
  if (input == nullptr || output == nullptr || !plan.ready_) return status::null_pointer;
  linear_s8_args a = plan.a_;
  a.input = input;
  a.output = output;
  return plan.base_ != nullptr ? detail::linear_s8_packed_run(a, plan.base_, plan.h_, plan.geo_) : linear_s8(a);
}

}  // namespace armlower::kernels
