/// @file armlower/kernels/arch/x86/amx.hpp
/// Intel AMX (Advanced Matrix Extensions) on Linux x86-64: the availability check with the kernel's
/// permission request, the tile configuration, and the tile instructions the int8 and the MX FP8 kernels use
/// (Intel 64 and IA-32 Architectures Software Developer's Manual, vol. 1 ch. 18 "Programming with
/// Intel AMX"; vol. 2: LDTILECFG, TILELOADD, TILESTORED, TILEZERO, TDPBSUD, TDPBF16PS, TILERELEASE).
/// Host only: never compiled into firmware (`ARMLOWER_KERNELS_HAVE_X86` builds), nor under
/// `ARMLOWER_X86_AVX512_SIMDE` (SIMDe has no AMX). Firmware-clean otherwise: noexcept, no heap, no
/// static constructor (the availability is memoised in a constant-initialised atomic).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

// Define ARMLOWER_KERNELS_NO_AMX to compile without the AMX kernels (and without the permission request below).
#if defined(__linux__) && defined(__x86_64__) && !defined(ARMLOWER_X86_AVX512_SIMDE) && !defined(ARMLOWER_KERNELS_NO_AMX)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#define ARMLOWER_KERNELS_HAVE_AMX 1
#endif

namespace armlower::kernels::detail {

#if defined(ARMLOWER_KERNELS_HAVE_AMX)

/// Bits of `x86_amx_from_cpuid`: the tile instructions of AMX-INT8 (TDPBSUD, TDPBSSD, …) and of AMX-BF16 (TDPBF16PS).
inline constexpr std::uint8_t x86_amx_int8_bit = 1, x86_amx_bf16_bit = 2;

/// Which AMX tile instruction sets this process may run (`x86_amx_int8_bit` | `x86_amx_bf16_bit`, 0 for
/// none): AMX-TILE in CPUID leaf 7 (EDX bit 24) with AMX-INT8 (bit 25) / AMX-BF16 (bit 22), the OS
/// managing the tile state (XCR0 bits 17 and 18, read by XGETBV when CPUID.1:ECX.OSXSAVE is set), and
/// Linux granting this process the tile data state (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`,
/// Linux ≥ 5.16; the grant holds for every thread of the process). A failed request (older kernel,
/// seccomp) gives 0: the callers then run their AVX-512 kernels. Runs a syscall: per call, use
/// `x86_has_amx_int8` / `x86_has_amx_bf16`.
/// Side effect on the process (Linux's documentation of the AMX permission, Documentation/arch/x86/xstate.rst):
/// once granted, signal frames carry the 8 KiB tile state, so an alternate signal stack installed later must be
/// large enough for it (`sigaltstack` refuses smaller ones), and the request itself fails while a smaller one is
/// installed. Programs that cannot accept this build with `ARMLOWER_KERNELS_NO_AMX`.
[[nodiscard]] inline std::uint8_t x86_amx_from_cpuid() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & (1u << 27)) == 0) return 0;  // OSXSAVE
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return 0;
  if ((edx & (1u << 24)) == 0) return 0;  // AMX-TILE
  const std::uint8_t sets = static_cast<std::uint8_t>(((edx & (1u << 25)) != 0 ? x86_amx_int8_bit : 0) |
                                                      ((edx & (1u << 22)) != 0 ? x86_amx_bf16_bit : 0));
  if (sets == 0) return 0;
  unsigned xlo = 0, xhi = 0;
  __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
  if ((xlo & (3u << 17)) != (3u << 17)) return 0;  // XTILECFG, XTILEDATA
  constexpr long arch_req_xcomp_perm = 0x1023, arch_get_xcomp_perm = 0x1022, xfeature_xtiledata = 18;
  if (syscall(SYS_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) != 0) return 0;
  unsigned long long perm = 0;
  return syscall(SYS_arch_prctl, arch_get_xcomp_perm, &perm) == 0 && (perm & (1ull << xfeature_xtiledata)) != 0 ? sets : 0;
}

/// `x86_amx_from_cpuid()` once known, else 0xFF. Constant-initialised; relaxed accesses suffice: every
/// thread computes the same value, and the grant is per process.
inline constinit std::atomic<std::uint8_t> x86_amx_memo{0xFF};

/// `x86_amx_from_cpuid()`, run once per process.
[[nodiscard]] inline std::uint8_t x86_amx_sets() noexcept {
  std::uint8_t v = x86_amx_memo.load(std::memory_order_relaxed);
  if (v == 0xFF) {
    v = x86_amx_from_cpuid();
    x86_amx_memo.store(v, std::memory_order_relaxed);
  }
  return v;
}

/// True if this process may run AMX-INT8 tile instructions (`x86_amx_from_cpuid`, run once per process).
[[nodiscard]] inline bool x86_has_amx_int8() noexcept { return (x86_amx_sets() & x86_amx_int8_bit) != 0; }

/// True if this process may run AMX-BF16 tile instructions (`x86_amx_from_cpuid`, run once per process).
[[nodiscard]] inline bool x86_has_amx_bf16() noexcept { return (x86_amx_sets() & x86_amx_bf16_bit) != 0; }

/// The 64-byte LDTILECFG operand, palette 1 (8 tiles of at most 16 rows × 64 bytes): `rows[t]` rows of
/// `colsb[t]` bytes for tile t; unused tiles stay 0 × 0.
struct alignas(64) amx_tile_config {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};
static_assert(sizeof(amx_tile_config) == 64);

#define ARMLOWER_X86_AMX __attribute__((target("amx-tile,amx-int8")))
/// The target of the AMX int8 kernels (`linear_amx_packed.hpp`, `linear_amx_rowmajor.hpp`): AMX plus the AVX-512
/// VNNI set of the stores and tails they share with the VNNI kernels.
#define ARMLOWER_X86_AMX_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8")))
/// The target of the MX FP8 GEMV on AMX-BF16 (`mx/arch/x86_amx_fp8.hpp`), whose translation unit has the AVX-512 set already.
#define ARMLOWER_X86_AMX_BF16 __attribute__((target("amx-tile,amx-int8,amx-bf16")))

/// LDTILECFG: configures the tiles (and zeroes them).
ARMLOWER_X86_AMX inline void amx_load_config(const amx_tile_config& c) noexcept {
  __asm__ volatile("ldtilecfg %0" ::"m"(c) : "memory");
}

/// TILERELEASE: returns the tile state to its initial (unused) state, so that context switches do not
/// save it. Every kernel that configures tiles calls it before returning.
ARMLOWER_X86_AMX inline void amx_release() noexcept { __asm__ volatile("tilerelease" ::: "memory"); }

// The tile number is part of the instruction: macros with a literal tile number. Each has a memory
// clobber (unlike <immintrin.h>'s forms), so the compiler orders them with the stores and loads around
// them (a tile load of stack bytes written just before, a tile store read just after).

/// TILEZERO tmm`T`.
#define ARMLOWER_AMX_ZERO(T) __asm__ volatile("tilezero %%tmm" #T ::: "memory")
/// TILELOADD tmm`T` ← rows of `colsb` bytes at `base`, `base + stride`, …
#define ARMLOWER_AMX_LOAD(T, base, stride) \
  __asm__ volatile("tileloadd (%0,%1,1), %%tmm" #T ::"r"(base), "r"(static_cast<long>(stride)) : "memory")
/// TILESTORED tmm`T` → rows at `base`, `base + stride`, …
#define ARMLOWER_AMX_STORE(T, base, stride) \
  __asm__ volatile("tilestored %%tmm" #T ", (%0,%1,1)" ::"r"(base), "r"(static_cast<long>(stride)) : "memory")
/// TDPBSUD tmm`C` += tmm`A` (signed bytes) · tmm`B` (unsigned bytes, 4 per int32 column: the VNNI pairing):
/// C[m][n] += Σ_{i<4} A[m][4k + i] · B[k][4n + i] over k, in int32 (wrapping; the callers prove no wrap).
#define ARMLOWER_AMX_DPBSUD(C, A, B) __asm__ volatile("tdpbsud %%tmm" #B ", %%tmm" #A ", %%tmm" #C ::: "memory")
/// TDPBSSD: as `ARMLOWER_AMX_DPBSUD` with both operands signed bytes.
#define ARMLOWER_AMX_DPBSSD(C, A, B) __asm__ volatile("tdpbssd %%tmm" #B ", %%tmm" #A ", %%tmm" #C ::: "memory")
/// TDPBF16PS tmm`C` += tmm`A` · tmm`B`, BF16 pairs (2 per fp32 column of B): C[m][n] += A[m][2k]·B[k][2n] +
/// A[m][2k+1]·B[k][2n+1] over k, in fp32 with round to nearest even; BF16 denormal inputs are read as zero and
/// denormal results flushed to zero, whatever MXCSR says (SDM vol. 2, TDPBF16PS). Needs AMX-BF16.
#define ARMLOWER_AMX_DPBF16PS(C, A, B) __asm__ volatile("tdpbf16ps %%tmm" #B ", %%tmm" #A ", %%tmm" #C ::: "memory")

#else

/// No AMX outside Linux x86-64 (or under SIMDe).
[[nodiscard]] constexpr bool x86_has_amx_int8() noexcept { return false; }
/// No AMX outside Linux x86-64 (or under SIMDe).
[[nodiscard]] constexpr bool x86_has_amx_bf16() noexcept { return false; }

#endif

}  // namespace armlower::kernels::detail
