/// @file armlower/kernels/arch/x86/cpu_class.hpp
/// The x86 CPU classes whose kernel tuning was measured to differ (host only, x86-64 with GCC or clang).
/// Instruction set selection stays with the feature checks (`__builtin_cpu_supports`); this only picks
/// among equivalent code shapes of one instruction set — prefetch kind, register tile — which never
/// change a result. A CPU outside every measured class gets the choices measured first (on Zen 4).
/// Sources of each choice: benchmarks/RESULTS.md, cited where it is made.
#pragma once

#include <atomic>
#include <cstdint>

#include <cpuid.h>

namespace armlower::kernels::detail {

/// A class of x86 CPUs with its own measured kernel tuning.
enum class x86_cpu_class : std::uint8_t {
  baseline = 0,        ///< AMD family 19h (Zen 3 / Zen 4, where the first choices were measured) and every other CPU
  amd_family_1ah = 1,  ///< AMD family 1Ah (Zen 5)
};

/// The class of this CPU from CPUID (vendor string and display family, CPUID leaves 0 and 1). A VM exit on
/// a virtual machine (about a microsecond): per call, use `x86_cpu_class_cached`.
[[nodiscard]] inline x86_cpu_class x86_cpu_class_from_cpuid() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return x86_cpu_class::baseline;
  const bool amd = ebx == 0x68747541u && edx == 0x69746E65u && ecx == 0x444D4163u;  // "AuthenticAMD"
  if (!amd || __get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return x86_cpu_class::baseline;
  const unsigned base = (eax >> 8) & 0xFu, family = base == 0xFu ? base + ((eax >> 20) & 0xFFu) : base;
  return family == 0x1Au ? x86_cpu_class::amd_family_1ah : x86_cpu_class::baseline;
}

/// `x86_cpu_class_from_cpuid()` once known, else 0xFF. Constant-initialised (no static constructor);
/// relaxed accesses suffice: every thread computes the same value.
inline constinit std::atomic<std::uint8_t> x86_cpu_class_memo{0xFF};

/// `x86_cpu_class_from_cpuid()`, with CPUID run once per process (the first call; concurrent first calls
/// may each run it and store the same value). For kernels that choose per call.
[[nodiscard]] inline x86_cpu_class x86_cpu_class_cached() noexcept {
  std::uint8_t v = x86_cpu_class_memo.load(std::memory_order_relaxed);
  if (v == 0xFF) {
    v = static_cast<std::uint8_t>(x86_cpu_class_from_cpuid());
    x86_cpu_class_memo.store(v, std::memory_order_relaxed);
  }
  return static_cast<x86_cpu_class>(v);
}

}  // namespace armlower::kernels::detail
