/// @file armlower/kernels/mx/arch/generic.hpp
/// Portable MATMUL_T_BLOCK_SCALED row kernels (firmware-clean, no intrinsics):
///  - `reference_rows`: the TOSA 1.1-draft MATMUL_T_BLOCK_SCALED pseudocode literally: per block an fp32 sum of
///    fp32 products in element order, then `acc += block_acc * (scale_A * scale_B)` in block order;
///  - `integer_rows`: exact integer block dot products (OCP MX v1.0 §6.2 block dot product, computed exactly): elements scaled by 2^k to
///    integers (FP4 k=1, E2M3 3, E3M2 4, MXINT8 6 → int32 sums; E4M3 k=9 → int64 sums), the block sum
///    converted to fp32 and multiplied by 2^-2k, then the same block-order accumulation as the pseudocode.
///    FP8E5M2 has no exact integer form (products reach 2^63) and is not handled here.
/// Exactness: for FP4E2M1, FP6E2M3, FP6E3M2 and MXINT8 every fp32 partial sum of the pseudocode is
/// exact (|sum|·2^2k < 2^24), so `integer_rows` is bit-identical to `reference_rows`. For FP8E4M3 the
/// integer sum is exact and rounded once, the pseudocode rounds up to 31 times: results agree only
/// within the TOSA dot-product bound (TOSA 1.0 dot-product accuracy rule, pseudocode/library/tosa_reference_check_dotproduct.tosac).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <armlower/dtype/dtype.hpp>
#include <armlower/mx/e8m0.hpp>
#include <armlower/mx/element.hpp>
#include <armlower/mx/format.hpp>

namespace armlower::kernels::mx::arch {

/// Operands of a block of MATMUL_T_BLOCK_SCALED rows: A rows [h, c] and B rows [w, c] of one batch
/// (row stride `storage_bytes(t, c)` bytes, scale stride c/32), output [h, w] fp32 row-major.
struct rows_args {
  const std::uint8_t* a;        ///< A codes [h, c] (armlower storage)
  const std::uint8_t* a_scale;  ///< A E8M0 scales [h, c/32]
  std::size_t h;                ///< rows of A
  const std::uint8_t* b;        ///< B codes [w, c]
  const std::uint8_t* b_scale;  ///< B E8M0 scales [w, c/32]
  std::size_t w;                ///< rows of B
  std::size_t c;                ///< shared dimension, a multiple of 32
  float* out;                   ///< output [h, w]
  bool b_finite = false;        ///< caller's promise: no NaN/Inf codes in B (block_scaled_view::finite_codes)
};

namespace detail {

/// Code of element `i` of a row in armlower storage (FP4 packed, low nibble first).
template <bool Nibbles>
[[nodiscard]] constexpr std::uint8_t code_at(const std::uint8_t* row, std::size_t i) noexcept {
  if constexpr (Nibbles) return static_cast<std::uint8_t>((i & 1u) ? row[i / 2] >> 4 : row[i / 2] & 0x0Fu);
  else return row[i];
}

/// value × 2^int_shift as an integer, for every code of T (NaN codes map to 0; see has_nan_code).
template <dtype::id T>
[[nodiscard]] constexpr auto make_int_table() noexcept {
  constexpr std::size_t n = T == dtype::id::fp4e2m1 ? 16 : (armlower::mx::format(T).ebits + armlower::mx::format(T).mbits == 5 ? 64 : 256);
  std::array<std::int32_t, n> out{};
  const float k = armlower::mx::detail::pow2f(armlower::mx::format(T).int_shift);
  for (std::size_t c = 0; c < n; ++c) {
    const float v = armlower::mx::decode<T>(static_cast<std::uint8_t>(c));
    out[c] = (v == v) ? static_cast<std::int32_t>(v * k) : 0;
  }
  return out;
}
template <dtype::id T>
inline constexpr auto int_table = make_int_table<T>();

/// 2^(ca-127) · 2^(cb-127) · 2^extra as the pseudocode's fp32 arithmetic gives it, for E8M0 codes
/// ca, cb (NaN for 0xFF, 0 below the subnormal range, +Inf above fp32).
inline float scale_product(std::uint8_t ca, std::uint8_t cb, int extra) noexcept {
  const int k = int(ca) + int(cb) - 254 + extra;
  return (ca == 255 || cb == 255) ? std::numeric_limits<float>::quiet_NaN()
         : k < -149               ? 0.0f
         : k > 127                ? std::numeric_limits<float>::infinity()
                                  : armlower::mx::detail::pow2f(k);
}

}  // namespace detail

namespace detail {
/// Keeps `v` a rounded value of its own: an empty asm statement the optimiser cannot see through,
/// so a product written to `v` is not fused with a following add (FMA contraction, which GCC does
/// under its default -ffp-contract=fast for GNU C++ when the target has FMA). The pseudocode rounds
/// the scaled block product and the running sum separately; they differ from a fused multiply-add
/// only when the product overflows or is subnormal (e.g. +Inf + −Inf = NaN unfused, ±Inf fused).
/// No instruction is emitted for register operands. Not constant-evaluated (callers check).
template <class V>
inline void keep_rounded(V& v) noexcept {
#if defined(__GNUC__)
  asm("" : "+m"(v));
#else
  (void)v;
#endif
}

/// The loops both paths share, in the pseudocode's order: for each output (i, j) and each block,
/// `acc += block_dot(a row i, b row j, first element) · (scale_a · scale_b)`; `block_dot` gives the
/// block's unscaled dot product as a float.
template <dtype::id T, class BlockDot>
constexpr void for_each_block(const rows_args& r, BlockDot block_dot) noexcept {
  const std::size_t stride = armlower::mx::storage_bytes(T, r.c);
  const std::size_t nb = r.c / armlower::mx::block_size;
  for (std::size_t i = 0; i < r.h; ++i) {
    const std::uint8_t* ar = r.a + i * stride;
    for (std::size_t j = 0; j < r.w; ++j) {
      const std::uint8_t* br = r.b + j * stride;
      float acc = 0.0f;
      for (std::size_t blk = 0; blk < nb; ++blk) {
        const float sa = armlower::mx::decode_e8m0(r.a_scale[i * nb + blk]);
        const float sb = armlower::mx::decode_e8m0(r.b_scale[j * nb + blk]);
        float block_acc = block_dot(ar, br, blk * armlower::mx::block_size);
        block_acc *= (sa * sb);
        if (!std::is_constant_evaluated()) keep_rounded(block_acc);  // rounded apart from the sum
        acc += block_acc;
      }
      r.out[i * r.w + j] = acc;
    }
  }
}
}  // namespace detail

/// The pseudocode path (see file comment). Works for every MX element type.
template <dtype::id T>
constexpr void reference_rows(const rows_args& r) noexcept {
  constexpr bool nib = armlower::mx::format(T).storage_bits == 4;
  detail::for_each_block<T>(r, [](const std::uint8_t* ar, const std::uint8_t* br, std::size_t e0) {
    float block_acc = 0.0f;
    for (std::size_t e = e0; e < e0 + armlower::mx::block_size; ++e)
      block_acc += armlower::mx::decode<T>(detail::code_at<nib>(ar, e)) * armlower::mx::decode<T>(detail::code_at<nib>(br, e));
    return block_acc;
  });
}

/// The exact-integer block path (see file comment). T ∈ {FP4E2M1, FP6E2M3, FP6E3M2, MXINT8, FP8E4M3}.
template <dtype::id T>
constexpr void integer_rows(const rows_args& r) noexcept {
  static_assert(T != dtype::id::fp8e5m2, "FP8E5M2 block products do not fit int64");
  constexpr bool nib = armlower::mx::format(T).storage_bits == 4;
  constexpr bool wide = T == dtype::id::fp8e4m3;
  using acc_t = std::conditional_t<wide, std::int64_t, std::int32_t>;
  constexpr auto& tab = detail::int_table<T>;
  const float unscale = armlower::mx::detail::pow2f(-2 * armlower::mx::format(T).int_shift);
  detail::for_each_block<T>(r, [&](const std::uint8_t* ar, const std::uint8_t* br, std::size_t e0) {
    acc_t sum = 0;
    bool nan = false;
    for (std::size_t e = e0; e < e0 + armlower::mx::block_size; ++e) {
      const std::uint8_t ca = detail::code_at<nib>(ar, e);
      const std::uint8_t cb = detail::code_at<nib>(br, e);
      if constexpr (wide) nan |= ((ca & 0x7Fu) == 0x7Fu) || ((cb & 0x7Fu) == 0x7Fu);
      sum += static_cast<acc_t>(tab[ca & (tab.size() - 1)]) * static_cast<acc_t>(tab[cb & (tab.size() - 1)]);
    }
    return nan ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(sum) * unscale;
  });
}

}  // namespace armlower::kernels::mx::arch
