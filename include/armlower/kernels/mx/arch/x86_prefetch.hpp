/// @file armlower/kernels/mx/arch/x86_prefetch.hpp
/// How the AVX-512 MX kernels prefetch B, per CPU family (host only; included by arch/x86_avx512.hpp
/// where its kernels are compiled, `ARMLOWER_MX_AVX512`). Software prefetch never changes a result,
/// only speed: each kind was measured on the CPU family it is chosen for (benchmarks/RESULTS.md), and a
/// CPU of another family gets the one measured first (Zen 4's). The benchmarks `bm_prefetch_kind_pair`
/// (tiles16) and `bm_rows_prefetch_kind_pair` (row-major B) time both kinds on the CPU they run on.
#pragma once

#include <cstdint>

#include <armlower/kernels/arch/x86/cpu_class.hpp>

namespace armlower::kernels::mx::arch::avx512 {

/// How B is prefetched: by the tiles16 kernel (`tiles16_rows`, the kind recorded in the packing by
/// `pack_b`) and by the row-major batch-1 GEMV of the integer formats (`int8_gemv`).
enum class prefetch_kind : std::uint8_t {
  /// Measured on Zen 4 (AMD family 19h).
  /// - tiles16: the one-byte formats' GEMV (one A row) one L2 (T1) prefetch per 512 bytes 64 KiB
  ///   ahead, the hardware prefetchers fetching the lines between; otherwise one T1 prefetch per
  ///   64-byte line 16 KiB ahead (benchmarks/RESULTS.md, "MX GEMV over packed weights: address order,
  ///   sparse prefetch": the one-byte GEMV 73–74 % → 91–93 % of the warm read at K 1024 and 74–80 % →
  ///   106–115 % of the cold one against a prefetch per line; FP4E2M1 colder with the sparse one).
  /// - `int8_gemv`: the next 16-row tile's rows into L2 (T1), row by row at the offset being read
  ///   ("MX batch-1 GEMV, warm and cold ceilings").
  l2_sparse = 0,
  /// Measured on Zen 5 (AMD family 1Ah): one L1 (T0) prefetch per 64-byte line, 8 KiB ahead in read order.
  /// - tiles16: every type and batch ("MX on Zen 5": with `l2_sparse` there the FP8-coded types'
  ///   batch-1 GEMV reached 47–57 % of the cold read and FP4E2M1 71–79 %; with this 89–98 % and 92–95 %;
  ///   warm and batch 8 no slower).
  /// - `int8_gemv`: 512 bytes ahead in each of the tile's 16 rows, the next tile's rows past a row's
  ///   end ("MX row-major GEMV on Zen 5": with B cold 1.4–2.0× faster at K 1024 and 1.06–1.37× at
  ///   K 4096 for the one-byte formats, 1.04–1.19× for FP4E2M1; warm 1.0–1.19×, FP4E2M1 at K 1024 0.97×).
  l1_lines = 1,
};

/// The prefetch kind measured best on CPUs of class `c`: `l1_lines` on AMD family 1Ah (Zen 5),
/// `l2_sparse` elsewhere (Zen 4, where it was measured, and CPUs where neither was).
[[nodiscard]] constexpr prefetch_kind prefetch_kind_for(kernels::detail::x86_cpu_class c) noexcept {
  return c == kernels::detail::x86_cpu_class::amd_family_1ah ? prefetch_kind::l1_lines : prefetch_kind::l2_sparse;
}

/// `prefetch_kind_for` this CPU (`kernels::detail::x86_cpu_class_cached`: CPUID once per process).
[[nodiscard]] inline prefetch_kind cpu_prefetch_kind() noexcept {
  return prefetch_kind_for(kernels::detail::x86_cpu_class_cached());
}

}  // namespace armlower::kernels::mx::arch::avx512
