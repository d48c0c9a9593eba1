/// @file armlower/kernels/linear_s16_packed.hpp
/// Pre-packed a16w8 fused linear (s16 input × s8 weights → s16, int64 bias): the weights packed ONCE
/// into caller-owned memory, then any number of calls read the packed form. Same bytes as
/// `linear_s16` for every valid argument set (contract: `kernels/linear_args.hpp`; semantics:
/// CMSIS-NN `arm_fully_connected_s16`, TFLite reference `FullyConnected` int16×int8 with int64 bias).
/// The three forms of `kernels/linear_packed.hpp` (s8), for `linear_s16_args`:
/// ```
/// std::vector<std::uint8_t> cache(kernels::linear_s16_cache_size(a.rows, a.cols));  // per layer, persistent
/// kernels::linear_s16(a, cache.data(), cache.size());   // pack on first use, reuse later
/// kernels::pack_linear_s16(a, buf.data(), buf.size());   // explicit: once
/// kernels::linear_s16_packed(a, buf.data(), buf.size()); // every call
/// kernels::plan_linear_s16(a, cache.data(), cache.size(), plan);  // checked once,
/// kernels::linear_s16(plan, x, y);                                 // then only x and y per call
/// ```
/// What the packing captures: `rows`, `cols` and `weights` (the bias is read per call, as `linear_s16`
/// reads it); the pack-on-first-use buffer records the weights' address and repacks when it, `rows` or
/// `cols` change — contents rewritten in place need `reset_linear_s16_cache`.
///
/// Layouts (`detail::packed_s16_layout`), chosen at pack time by the path (`automatic`: the CPU's):
/// - AVX-512 VNNI: the s8 VNNI panels (16 channels × 4 K bytes, u = w + 128) and int64 row constants
///   128·(Σw + 128·K), read by `arch/x86/linear_s16_vnni_packed.hpp` (the int16 input split into two int8
///   planes, two `vpdpbusd` per 64 weights and batch row, exact);
/// - AVX2 (AVX2-only CPUs, or `linear_path::x86_avx2`): the s8 AVX2 column pairs, read by
///   `arch/x86/linear_s16_avx2_pairs.hpp` (`vpmaddwd` over int16 input pairs, exact int32 passes).
/// Where the layout's kernel does not run (not x86, or the CPU lacks its ISA) `linear_s16_packed` runs
/// `linear_s16(a)`, so `a.weights` must stay valid; the pack-on-first-use form then never touches its
/// buffer. Measured: benchmarks/RESULTS.md "Packed a16w8 linear" (1.1–3× the row-major kernel on AVX-512
/// VNNI, 1.05–2.07× on the AVX2 class, from 16 output channels).
/// Firmware-clean: noexcept, no heap, no exceptions, no static initialisation. Stack: the AVX-512 VNNI kernel
/// keeps the int8 planes of up to 16 batch rows in a 64 KiB buffer (about 90 KiB of stack in all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <armlower/kernels/detail/linear_s8_packed_layout.hpp>
#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/linear_args.hpp>
#include <armlower/kernels/linear_packed.hpp>
#include <armlower/kernels/status.hpp>

#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
#include <armlower/kernels/arch/x86/linear_s16_avx2_pairs.hpp>
#include <armlower/kernels/arch/x86/linear_s16_vnni_packed.hpp>
#endif

namespace armlower::kernels {

/// Bytes of the packed form of an a16w8 linear with `rows` output channels and `cols` accumulation
/// depth, enough for either layout: 64 (header) + 12·Np (row constants) + the weights (VNNI: Np·Kp, Np =
/// rows rounded up to 16, Kp = cols rounded up to 4; AVX2: rows rounded up to 8 × cols rounded up to 16).
/// 0 for non-positive dimensions or if the size would exceed 2^40 bytes.
[[nodiscard]] constexpr std::size_t linear_s16_packed_size(std::int32_t rows, std::int32_t cols) noexcept {
  if (rows < 1 || cols < 1) return 0;
  const std::uint64_t n = detail::packed_s16_total_any(rows, cols);
  return n > (std::uint64_t{1} << 40) ? 0 : static_cast<std::size_t>(n);
}

namespace detail {
/// The a16w8 layout `path` packs into: `x86_avx2` → AVX2 column pairs; `automatic` → the VNNI panels where
/// the CPU has AVX-512 F/BW/VL/DQ/VNNI, else the AVX2 layout where it has AVX2; anything else → VNNI.
[[nodiscard]] inline packed_s8_layout_kind packed_s16_kind_for(linear_path path) noexcept {
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  if (path == linear_path::x86_avx2) return packed_s8_layout_kind::avx2_pairs;
  if (path == linear_path::automatic && !x86_has_avx512_vnni_dq() && x86_has_avx2()) return packed_s8_layout_kind::avx2_pairs;
#else
  (void)path;
#endif
  return packed_s8_layout_kind::vnni;
}

/// True if this CPU runs the a16w8 packed kernel of layout `k`.
[[nodiscard]] inline bool packed_s16_runs(packed_s8_layout_kind k) noexcept {
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  return k == packed_s8_layout_kind::avx2_pairs ? x86_has_avx2() : x86_has_avx512_vnni_dq();
#else
  (void)k;
  return false;
#endif
}
}  // namespace detail

/// True if `linear_s16_packed` runs a packed microkernel on this CPU for a buffer packed with `path`
/// (default `automatic`: AVX-512 F/BW/VL/DQ/VNNI, or AVX2); else it runs `linear_s16(a)`.
[[nodiscard]] inline bool linear_s16_packed_native(linear_path path = linear_path::automatic) noexcept {
  return detail::packed_s16_runs(detail::packed_s16_kind_for(path));
}

/// Packs `a.weights` [rows][cols] into `packed` in the layout of `path` (`automatic`: the one this CPU
/// runs fastest; `x86_avx2`: the AVX2 column pairs; other paths: the VNNI panels; file comment). Only
/// `weights`, `rows`, `cols` of `a` are read; the weights' address is recorded in the header.
/// @return `null_pointer` (weights, packed), `empty_dimension` (rows/cols < 1), `scratch_too_small`
///   (size < linear_s16_packed_size or that size is 0); else `ok`.
[[nodiscard]] inline status pack_linear_s16(const linear_s16_args& a, void* packed, std::size_t size,
                                            linear_path path = linear_path::automatic) noexcept {
  if (a.weights == nullptr || packed == nullptr) return status::null_pointer;
  if (a.rows < 1 || a.cols < 1) return status::empty_dimension;
  const std::size_t need = linear_s16_packed_size(a.rows, a.cols);
  if (need == 0 || size < need) return status::scratch_too_small;
  auto* out = static_cast<std::uint8_t*>(packed);
  const detail::packed_s8_layout_kind kind = detail::packed_s16_kind_for(path);
  const detail::packed_s8_geometry geo = detail::packed_s16_layout(a.rows, a.cols, kind);
  detail::packed_s8_header h;
  h.rows = a.rows;
  h.cols = a.cols;
  h.weights_id = detail::address_id(a.weights);
  h.layout = static_cast<std::int32_t>(kind);
  const std::ptrdiff_t cols = a.cols;
  for (std::ptrdiff_t r = 0; r < static_cast<std::ptrdiff_t>(geo.np); ++r) {
    std::int64_t c = 0;  // 128·(Σw + 128·K): |c| ≤ 2^15·K, no overflow
    if (r < a.rows) {
      std::int64_t wsum = 0, wabs = 0;
      for (std::ptrdiff_t k = 0; k < cols; ++k) {
        wsum += a.weights[r * cols + k];
        wabs += a.weights[r * cols + k] < 0 ? -a.weights[r * cols + k] : a.weights[r * cols + k];
      }
      c = 128 * (wsum + 128 * static_cast<std::int64_t>(cols));
      if (wabs > h.cmax) h.cmax = wabs;  // an a16w8 header's `cmax`: max_r Σ_k |w[r][k]| (the accumulator bound)
    }
    const std::int32_t zero = 0;
    std::memcpy(out + geo.c64 + 8 * static_cast<std::uint64_t>(r), &c, 8);
    std::memcpy(out + geo.c32 + 4 * static_cast<std::uint64_t>(r), &zero, 4);
  }
  std::memcpy(out, &h, sizeof h);  // magic 0: valid only once the weights are written
  detail::pack_s8_weights(a.weights, a.rows, a.cols, kind, geo, out + geo.weights);
  const std::uint32_t magic = detail::packed_s16_magic;
  std::memcpy(out, &magic, sizeof magic);
  return status::ok;
}

namespace detail {

/// The geometry of the a16w8 layout a buffer's header `h` records.
[[nodiscard]] constexpr packed_s8_geometry packed_s16_geometry_of(const packed_s8_header& h) noexcept {
  return packed_s16_layout(h.rows, h.cols,
                           h.layout == static_cast<std::int32_t>(packed_s8_layout_kind::avx2_pairs)
                               ? packed_s8_layout_kind::avx2_pairs
                               : packed_s8_layout_kind::vnni);
}

/// Runs the packed form for a validated `a` over the packing at `base` (header checked to match `a`),
/// geometry `geo` (`packed_s16_geometry_of` of its header).
[[nodiscard]] inline status linear_s16_packed_run(const linear_s16_args& a, const std::uint8_t* base,
                                                  const packed_s8_geometry& geo) noexcept {
#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
  if (geo.kind == packed_s8_layout_kind::avx2_pairs) {  // (byte-aligned loads: any buffer alignment)
    if (x86_has_avx2()) {
      linear_s16_pairs_avx2(a, reinterpret_cast<const std::int8_t*>(base + geo.weights));
      return status::ok;
    }
  } else if (x86_has_avx512_vnni_dq() && reinterpret_cast<std::uintptr_t>(base + geo.c64) % alignof(std::int64_t) == 0) {
    linear_s16_packed_vnni(a, base, geo);
    return status::ok;
  }
#else
  (void)base;
  (void)geo;
#endif
  return linear_s16(a);
}

/// True if `base` holds an a16w8 packing of `rows` × `cols` in a layout it writes (and, if `weights` is
/// not null, of the weights at that address in the layout `automatic` packs on this CPU).
[[nodiscard]] inline bool packed_s16_matches(const std::uint8_t* base, std::int32_t rows, std::int32_t cols,
                                             const std::int8_t* weights) noexcept {
  packed_s8_header h;
  std::memcpy(&h, base, sizeof h);
  return h.magic == packed_s16_magic && h.rows == rows && h.cols == cols && packed_s16_layout_known(h.layout) &&
         (weights == nullptr ||
          (h.weights_id == address_id(weights) &&
           h.layout == static_cast<std::int32_t>(packed_s16_kind_for(linear_path::automatic))));
}

}  // namespace detail

/// Fused a16w8 linear over a buffer written by `pack_linear_s16` (same bytes as `linear_s16(a)` with
/// the weights given at pack time; `a.bias` is read from `a`).
/// @return the `validate(a)` errors; `null_pointer` (packed); `scratch_too_small` (size <
///   linear_s16_packed_size); `shape_mismatch` (buffer not packed by `pack_linear_s16`, or for other
///   rows/cols); else `ok`.
[[nodiscard]] inline status linear_s16_packed(const linear_s16_args& a, const void* packed, std::size_t size) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  if (packed == nullptr) return status::null_pointer;
  if (size < linear_s16_packed_size(a.rows, a.cols)) return status::scratch_too_small;
  const auto* base = static_cast<const std::uint8_t*>(packed);
  if (!detail::packed_s16_matches(base, a.rows, a.cols, nullptr)) return status::shape_mismatch;
  detail::packed_s8_header h;
  std::memcpy(&h, base, sizeof h);
  return detail::linear_s16_packed_run(a, base, detail::packed_s16_geometry_of(h));
}

/// Bytes of a pack-on-first-use buffer (`linear_s16(a, cache, size)`): `linear_s16_packed_size` + 64
/// (the packing starts at the first 64-byte boundary inside it). 0 where that size is 0.
[[nodiscard]] constexpr std::size_t linear_s16_cache_size(std::int32_t rows, std::int32_t cols) noexcept {
  const std::size_t n = linear_s16_packed_size(rows, cols);
  return n == 0 ? 0 : n + 64;
}

/// Invalidates a pack-on-first-use buffer (the next `linear_s16(a, cache, size)` repacks). Call it when
/// the weights were changed in place. No effect for null or < 64-byte buffers.
inline void reset_linear_s16_cache(void* cache, std::size_t size) noexcept { detail::reset_cache(cache, size); }

/// True if `linear_s16(a, cache, size)` packs a layer with `rows` output channels on this CPU: where a
/// packed microkernel runs and rows ≥ 16 (narrower layers are mostly padding: at 4000×4, batch 1 and 8,
/// measured 18–20 GMAC/s packed against 72–105 row-major on AVX-512 VNNI and 17–30 against 48–55 on the
/// AVX2 class, Zen 4, benchmarks/RESULTS.md "Packed a16w8 linear"; the row-major kernel runs and the
/// buffer is not touched).
[[nodiscard]] inline bool linear_s16_cache_pays(std::int32_t rows) noexcept {
  return rows >= 16 && linear_s16_packed_native();
}

namespace detail {
/// The packing for `a` in a pack-on-first-use buffer, packed now unless it holds it already; null where
/// `linear_s16(a, cache, size)` runs the row-major kernel (`linear_s16_cache_pays`, buffer too small).
[[nodiscard]] inline const std::uint8_t* s16_cache_packing(const linear_s16_args& a, void* cache, std::size_t size) noexcept {
  std::uint8_t* base = cache_base_of(cache, size, linear_s16_cache_size(a.rows, a.cols));
  if (base == nullptr || !linear_s16_cache_pays(a.rows)) return nullptr;
  if (!packed_s16_matches(base, a.rows, a.cols, a.weights) &&
      pack_linear_s16(a, base, linear_s16_packed_size(a.rows, a.cols)) != status::ok) {  // `automatic` layout
    return nullptr;
  }
  return base;
}
}  // namespace detail

/// Fused a16w8 linear with PACK ON FIRST USE into the caller-owned `cache` (see `linear_s8(a, cache,
/// size)`): where the packed kernel runs, rows ≥ 16 and `size ≥ linear_s16_cache_size(a.rows, a.cols)`,
/// the first call (and any call whose weights address or shape differ from the recorded packing) packs
/// `a.weights` into `cache`, and every call runs the packed kernel; otherwise it runs `linear_s16(a)`
/// and never touches `cache`. Same bytes as `linear_s16(a)` in every case. No alignment needed.
/// @return the `validate(a)` errors; else `ok`.
[[nodiscard]] inline status linear_s16(const linear_s16_args& a, void* cache, std::size_t size) noexcept {
  if (const status s = validate(a); s != status::ok) return s;
  const std::uint8_t* base = detail::s16_cache_packing(a, cache, size);
  return base != nullptr ? detail::linear_s16_packed_run(
                               a, base, detail::packed_s16_layout(a.rows, a.cols, detail::packed_s16_kind_for(linear_path::automatic)))
                         : linear_s16(a);
}

/// A `linear_s16(a, cache, size)` call checked once (`plan_linear_s16`): `validate(a)` but for the input
/// and output pointers, and the pack-on-first-use step done. Running it (`linear_s16(plan, input,
/// output)`) checks only those two pointers. Plain data, no ownership: valid while `a`'s pointers
/// (weights, bias, multiplier, shift), the buffer and what they point at are unchanged.
/// Default-constructed: empty.
class linear_s16_plan {
 public:
  linear_s16_plan() = default;
  /// The checked arguments (`input` and `output` null: given per call).
  [[nodiscard]] const linear_s16_args& args() const noexcept { return a_; }
  /// True when runs read the packing in the cache buffer (else they run the row-major `linear_s16(a)`).
  [[nodiscard]] bool packed() const noexcept { return base_ != nullptr; }

 private:
  friend status plan_linear_s16(const linear_s16_args&, void*, std::size_t, linear_s16_plan&) noexcept;
  friend status linear_s16(const linear_s16_plan&, const std::int16_t*, std::int16_t*) noexcept;
  linear_s16_args a_{};
  const std::uint8_t* base_ = nullptr;
  detail::packed_s8_geometry geo_{};
  bool ready_ = false;
};

/// Checks a `linear_s16(a, cache, size)` call of `a` (its `input` and `output` are ignored) and does its
/// pack-on-first-use step. On success writes the checked call to `plan`; `plan` is left unchanged on an
/// error.
/// @return the `validate(a)` errors except for `input`/`output` (`detail::validate_s16_parameters`:
///   `null_pointer` for weights, multiplier, shift; `empty_dimension`, `activation_range_invalid`,
///   `multiplier_out_of_range`, `shift_out_of_range`, …); else `ok`.
[[nodiscard]] inline status plan_linear_s16(const linear_s16_args& a, void* cache, std::size_t size,
                                            linear_s16_plan& plan) noexcept {
  linear_s16_args b = a;
  b.input = nullptr;
  b.output = nullptr;
  if (b.weights == nullptr) return status::null_pointer;
  if (const status s = detail::validate_s16_parameters(b); s != status::ok) return s;
  plan.base_ = detail::s16_cache_packing(b, cache, size);
  plan.geo_ = detail::packed_s16_layout(b.rows, b.cols, detail::packed_s16_kind_for(linear_path::automatic));
  plan.a_ = b;
  plan.ready_ = true;
  return status::ok;
}

/// Runs the checked call `plan` (`plan_linear_s16`) on `input` [batches][cols] into `output`
/// [batches][rows] (int16, row-major): the bytes of `linear_s16(a, cache, size)` for the `a` it was made
/// from with these two pointers.
/// @return `null_pointer` (input, output, or an empty plan); else `ok`.
[[nodiscard]] inline status linear_s16(const linear_s16_plan& plan, const std::int16_t* input, std::int16_t* output) noexcept {
  if (input == nullptr || output == nullptr || !plan.ready_) return status::null_pointer;
  linear_s16_args a = plan.a_;
  a.input = input;
  a.output = output;
  return plan.base_ != nullptr ? detail::linear_s16_packed_run(a, plan.base_, plan.geo_) : linear_s16(a);
}

}  // namespace armlower::kernels
