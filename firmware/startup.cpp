// armlower bare-metal startup for Cortex-M55 firmware tests and benchmarks under
// `qemu-system-arm -M mps3-an547 -semihosting-config enable=on,target=native` (see an547.ld).
//
// Reset: enable CP10/CP11 (FPU and MVE) in CPACR before any compiled code runs, copy .data,
// zero .bss, run static constructors, open the semihosting streams (newlib rdimon), then
// exit(main()). Under QEMU the process exit code is main's return value. Any fault prints its
// name and the faulting PC over semihosting and exits with 128 + exception number, so a
// crashing test fails at once instead of hanging until the ctest timeout.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "armlower_firmware.hpp"

extern "C" {
extern std::uint32_t __stack_top;
extern std::uint32_t __data_start, __data_end, __data_load;
extern std::uint32_t __bss_start__, __bss_end__;
using armlower_init_fn = void (*)();
extern armlower_init_fn __preinit_array_start[], __preinit_array_end[];
extern armlower_init_fn __init_array_start[], __init_array_end[];
void initialise_monitor_handles();
int main();
void _exit(int);

void armlower_reset_handler();
[[noreturn]] void armlower_start();
void armlower_fault_handler();
}

// crti/crtn are not linked (-nostartfiles); newlib's exit() still calls _fini.
extern "C" void _init() {}
extern "C" void _fini() {}
// Normally from crtbegin.o: the DSO handle of static destructors registered by libstdc++ parts.
extern "C" {
void* __dso_handle = nullptr;
}

// Naked: no compiled instruction (which could be an FP/MVE one) may run before CPACR is set.
extern "C" __attribute__((naked, noreturn)) void armlower_reset_handler() {
  __asm volatile(
      "ldr  r0, =0xE000ED88      \n"  // CPACR
      "ldr  r1, [r0]             \n"
      "orr  r1, r1, #(0xF << 20) \n"  // CP10 and CP11: full access
      "str  r1, [r0]             \n"
      "dsb                       \n"
      "isb                       \n"
      "b    armlower_start       \n");
}

extern "C" [[noreturn]] void armlower_start() {
  std::memcpy(&__data_start, &__data_load,
              static_cast<std::size_t>(reinterpret_cast<char*>(&__data_end) -
                                       reinterpret_cast<char*>(&__data_start)));
  std::memset(&__bss_start__, 0,
              static_cast<std::size_t>(reinterpret_cast<char*>(&__bss_end__) -
                                       reinterpret_cast<char*>(&__bss_start__)));
  for (armlower_init_fn* f = __preinit_array_start; f != __preinit_array_end; ++f) (*f)();
  for (armlower_init_fn* f = __init_array_start; f != __init_array_end; ++f) (*f)();
  initialise_monitor_handles();
  std::exit(main());
}

extern "C" __attribute__((used)) void armlower_fault_report(std::uint32_t ipsr, const std::uint32_t* frame) {
  static const char* const names[] = {"thread", "reset", "NMI", "HardFault", "MemManage",
                                      "BusFault", "UsageFault", "SecureFault"};
  const std::uint32_t n = ipsr & 0x1FFu;
  std::printf("armlower firmware: %s exception (%lu), PC 0x%08lx, CFSR 0x%08lx\n",
              n < 8 ? names[n] : "unexpected", static_cast<unsigned long>(n),
              static_cast<unsigned long>(frame[6]),
              static_cast<unsigned long>(*reinterpret_cast<volatile std::uint32_t*>(0xE000ED28)));
  _exit(static_cast<int>(128 + (n & 0x7Fu)));
}

// Pass IPSR and the stacked exception frame (MSP or PSP, EXC_RETURN bit 2) to the reporter.
extern "C" __attribute__((naked)) void armlower_fault_handler() {
  __asm volatile(
      "mrs  r0, ipsr             \n"
      "tst  lr, #4               \n"
      "ite  eq                   \n"
      "mrseq r1, msp             \n"
      "mrsne r1, psp             \n"
      "b    armlower_fault_report\n");
}

// Armv8-M exception numbers 0..15 (no external interrupts are enabled).
extern "C" __attribute__((section(".vectors"), used)) void (*const armlower_vectors[16])() = {
    reinterpret_cast<void (*)()>(&__stack_top),
    armlower_reset_handler,
    armlower_fault_handler,  // NMI
    armlower_fault_handler,  // HardFault
    armlower_fault_handler,  // MemManage
    armlower_fault_handler,  // BusFault
    armlower_fault_handler,  // UsageFault
    armlower_fault_handler,  // SecureFault
    nullptr, nullptr, nullptr,
    armlower_fault_handler,  // SVCall
    armlower_fault_handler,  // DebugMonitor
    nullptr,
    armlower_fault_handler,  // PendSV
    armlower_fault_handler,  // SysTick
};

// Instruction-count markers for /work/shared/tools/m55-icount (see armlower_firmware.hpp).
extern "C" __attribute__((noinline, used)) void armlower_bench_begin() { __asm volatile("" ::: "memory"); }
extern "C" __attribute__((noinline, used)) void armlower_bench_end() { __asm volatile("" ::: "memory"); }

namespace armlower::firmware {
int failures = 0;
int checks = 0;

void record_failure(const char* file, int line, const char* what) {
  ++failures;
  if (failures <= 20) std::printf("%s:%d: FAILED: %s\n", file, line, what);
  if (failures == 20) std::printf("(further failures not printed)\n");
}

void record_failure_values(const char* file, int line, const char* what, long long a, long long b) {
  ++failures;
  if (failures <= 20) std::printf("%s:%d: FAILED: %s (%lld vs %lld)\n", file, line, what, a, b);
  if (failures == 20) std::printf("(further failures not printed)\n");
}

int finish(const char* test_name) {
  std::printf("%s: %d checks, %d failures\n", test_name, checks, failures);
  return failures == 0 ? 0 : 1;
}
}  // namespace armlower::firmware
