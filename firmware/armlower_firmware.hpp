// Support for armlower's Cortex-M55 firmware tests and benchmarks (built by
// armlower_add_firmware_test() in cmake/ArmlowerFirmware.cmake, startup in startup.cpp).
// Not part of the library: test code may use printf here; kernels never include this.
#pragma once

/// Instruction-count markers for `/work/shared/tools/m55-icount`: the tool counts the instructions
/// executed between a call of armlower_bench_begin() and the next call of armlower_bench_end(),
/// excluding instructions in main() itself - call the measured code through a noinline function.
extern "C" void armlower_bench_begin();
/// See armlower_bench_begin().
extern "C" void armlower_bench_end();

namespace armlower::firmware {
/// Number of failed checks so far (ARMLOWER_FW_CHECK*).
extern int failures;
/// Number of evaluated checks so far.
extern int checks;
/// Count a failure and print `file:line: FAILED: what` over semihosting (first 20 only).
void record_failure(const char* file, int line, const char* what);
/// Like record_failure(), also printing the two compared values.
void record_failure_values(const char* file, int line, const char* what, long long a, long long b);
/// Print a one-line summary; returns the process exit code (0 = all checks passed, 1 = failure).
/// Use as `return armlower::firmware::finish("name");` at the end of main().
int finish(const char* test_name);
}  // namespace armlower::firmware

/// Check a condition; on failure record it and continue. (Variadic so that template argument
/// lists with commas need no extra parentheses.)
#define ARMLOWER_FW_CHECK(...)                                                          \
  do {                                                                                  \
    ++::armlower::firmware::checks;                                                     \
    if (!(__VA_ARGS__)) ::armlower::firmware::record_failure(__FILE__, __LINE__, #__VA_ARGS__); \
  } while (0)

/// Check two integer values for equality; on failure print both.
#define ARMLOWER_FW_CHECK_EQ(a, b)                                                      \
  do {                                                                                  \
    ++::armlower::firmware::checks;                                                     \
    const long long armlower_fw_a_ = static_cast<long long>(a);                         \
    const long long armlower_fw_b_ = static_cast<long long>(b);                         \
    if (armlower_fw_a_ != armlower_fw_b_)                                               \
      ::armlower::firmware::record_failure_values(__FILE__, __LINE__, #a " == " #b,     \
                                                  armlower_fw_a_, armlower_fw_b_);      \
  } while (0)
