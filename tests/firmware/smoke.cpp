// Harness self-test: C++20 + semihosting printf + exit code, FPU/MVE enabled by the startup code,
// .data/.bss initialised. On the `mve` variant an MVE int8 dot product (VMLADAVA) is compared with
// the scalar sum; on `nomve` the DSP SMLAD instruction is compared with the scalar sum.
#include <array>
#include <cstdint>
#include <cstdio>

#include "armlower_firmware.hpp"

#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#endif

namespace {
std::int32_t initialised_data = 12345;  // .data: copied from ITCM by the startup code
std::int32_t zeroed_bss[64];           // .bss: zeroed by the startup code

std::array<std::int8_t, 37> make_values(std::uint32_t seed) {
  std::array<std::int8_t, 37> v{};
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<std::int8_t>(seed >> 24);
  }
  v[0] = -128;
  v[1] = 127;
  return v;
}

__attribute__((noinline)) std::int32_t dot_scalar(const std::int8_t* a, const std::int8_t* b, int n) {
  std::int32_t acc = 0;
  for (int i = 0; i < n; ++i) acc += static_cast<std::int32_t>(a[i]) * b[i];
  return acc;
}

__attribute__((noinline)) std::int32_t dot_arch(const std::int8_t* a, const std::int8_t* b, int n) {
#if defined(__ARM_FEATURE_MVE)
  std::int32_t acc = 0;
  for (int i = 0; i < n; i += 16) {
    const mve_pred16_t p = vctp8q(static_cast<std::uint32_t>(n - i));
    acc = vmladavaq_p_s8(acc, vldrbq_z_s8(a + i, p), vldrbq_z_s8(b + i, p), p);
  }
  return acc;
#else
  std::int32_t acc = 0;
  for (int i = 0; i < n; i += 2) {
    const std::int16_t a1 = i + 1 < n ? a[i + 1] : 0, b1 = i + 1 < n ? b[i + 1] : 0;
    const std::uint32_t pa = static_cast<std::uint16_t>(a[i]) | (static_cast<std::uint32_t>(static_cast<std::uint16_t>(a1)) << 16);
    const std::uint32_t pb = static_cast<std::uint16_t>(b[i]) | (static_cast<std::uint32_t>(static_cast<std::uint16_t>(b1)) << 16);
    __asm("smlad %0, %1, %2, %0" : "+r"(acc) : "r"(pa), "r"(pb));
  }
  return acc;
#endif
}
}  // namespace

int main() {
  ARMLOWER_FW_CHECK_EQ(initialised_data, 12345);
  std::int32_t bss_sum = 0;
  for (auto x : zeroed_bss) bss_sum |= x;
  ARMLOWER_FW_CHECK_EQ(bss_sum, 0);

  volatile float f = 1.5f;  // FPU access (would fault if CPACR were not set)
  ARMLOWER_FW_CHECK(f * 2.0f == 3.0f);

  const auto a = make_values(1), b = make_values(2);
  for (int n = 0; n <= 37; ++n) ARMLOWER_FW_CHECK_EQ(dot_arch(a.data(), b.data(), n), dot_scalar(a.data(), b.data(), n));
#if defined(__ARM_FEATURE_MVE)
  std::printf("variant: MVE\n");
#elif defined(__ARM_FEATURE_DSP)
  std::printf("variant: DSP (no MVE)\n");
#endif

#if defined(ARMLOWER_SMOKE_EXPECT_FAILURE)
  // Negative harness tests (registered WILL_FAIL): a failed check must give a non-zero exit code,
  // a fault must end the run with an error instead of hanging, heap use must fail the symbol check.
#if ARMLOWER_SMOKE_EXPECT_FAILURE == 3
  // Heap use: runs fine, but the `.symbols` post-link check must reject operator new/delete.
  int* volatile p = new int(3);
  ARMLOWER_FW_CHECK_EQ(*p, 3);
  delete p;
#elif ARMLOWER_SMOKE_EXPECT_FAILURE == 1
  ARMLOWER_FW_CHECK_EQ(dot_arch(a.data(), b.data(), 5), dot_scalar(a.data(), b.data(), 5) + 1);
#else
  volatile std::uint32_t* bad = reinterpret_cast<volatile std::uint32_t*>(0xF0000000u);
  *bad = 1;
#endif
#endif
  return armlower::firmware::finish("firmware_smoke");
}
