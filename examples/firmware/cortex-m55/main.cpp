// Firmware example: Cortex-M plans written by the `armlower` host tool, run on a Cortex-M55
// (MVE) with armlower's kernels, under QEMU mps3-an547 with semihosting.
//
//   hello_world_int8_plan.hpp  `armlower lower hello_world_int8.tflite --target cortex-m55 --pack-weights always -o ...`
//   demo_mlp_plan.hpp          `armlower demo --emit-firmware DIR` (the demo MLP's int8 plan)
//   demo_mlp_io.hpp            the same command: quantized inputs and the host's outputs
//
// Each plan runs with `run_plan<i8, N::features, N::packed>`: the kernel cases the plan needs and the
// s8 kernel of its weight layout (the demo MLP's weights are packed for the 8-row Helium kernel).
//
// Checks: hello_world_int8 gives TFLite's outputs 4, 60, 104, 123, 4 for the quantized inputs
// −128, −108, −87, −67, 0; the demo MLP gives exactly the outputs the host computed.
// The exit code is the number of failed checks (0 = pass).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "armlower_firmware.hpp"
#include "demo_mlp_io.hpp"
#include "demo_mlp_plan.hpp"
#include "hello_world_int8_plan.hpp"

namespace {

template <std::size_t N>
struct scratch_of {
  alignas(8) std::byte bytes[N == 0 ? 8 : N];
};

scratch_of<hello_world_int8_plan::scratch_size> hw_scratch;
scratch_of<demo_mlp_plan::scratch_size> mlp_scratch;
alignas(8) std::int8_t mlp_out[sizeof(demo_mlp_io::expected)];

__attribute__((noinline)) armlower::kernels::status run_hello_world(std::int8_t x, std::int8_t& y) {
  alignas(8) std::int8_t in[8] = {x};
  alignas(8) std::int8_t out[8] = {};
  // Only the kernel cases the plan needs are linked (the generated header's `features`), and only the
  // s8 kernel of its weight layout (`packed`: written with --pack-weights always, like the demo MLP's).
  const auto s = armlower::cortex_m::run_plan<armlower::dtype::id::i8, hello_world_int8_plan::features,
                                              hello_world_int8_plan::packed>(
      hello_world_int8_plan::plan, hello_world_int8_plan::batches, {reinterpret_cast<const std::byte*>(in), 1},
      {reinterpret_cast<std::byte*>(out), 1}, {hw_scratch.bytes, sizeof hw_scratch.bytes});
  y = out[0];
  return s;
}

__attribute__((noinline)) armlower::kernels::status run_demo_mlp() {
  armlower_bench_begin();
  // The demo MLP's weights are packed (`packed`: true): the 8-row Helium kernel.
  const auto s = armlower::cortex_m::run_plan<armlower::dtype::id::i8, demo_mlp_plan::features, demo_mlp_plan::packed>(
      demo_mlp_plan::plan, demo_mlp_plan::batches,
      {reinterpret_cast<const std::byte*>(demo_mlp_io::input), sizeof demo_mlp_io::input},
      {reinterpret_cast<std::byte*>(mlp_out), sizeof mlp_out}, {mlp_scratch.bytes, sizeof mlp_scratch.bytes});
  armlower_bench_end();
  return s;
}

}  // namespace

int main() {
  static_assert(hello_world_int8_plan::batches == 1 && hello_world_int8_plan::input_size == 1);
  static_assert(hello_world_int8_plan::packed && demo_mlp_plan::packed);  // one s8 kernel for both plans
  const std::int8_t inputs[5] = {-128, -108, -87, -67, 0};
  const std::int8_t tflite[5] = {4, 60, 104, 123, 4};
  for (int i = 0; i < 5; ++i) {
    std::int8_t y = 0;
    ARMLOWER_FW_CHECK(run_hello_world(inputs[i], y) == armlower::kernels::status::ok);
    ARMLOWER_FW_CHECK_EQ(y, tflite[i]);
    std::printf("hello_world_int8(%4d) = %4d (TFLite %d)\n", inputs[i], y, tflite[i]);
  }

  static_assert(demo_mlp_plan::batches == demo_mlp_io::rows);
  ARMLOWER_FW_CHECK(run_demo_mlp() == armlower::kernels::status::ok);
  int mismatches = 0;
  for (std::size_t i = 0; i < sizeof mlp_out; ++i) {
    if (mlp_out[i] != demo_mlp_io::expected[i]) ++mismatches;
    ARMLOWER_FW_CHECK_EQ(mlp_out[i], demo_mlp_io::expected[i]);
  }
  std::printf("demo MLP 256-512-256-10, %d rows: %d of %u outputs differ from the host\n",
              static_cast<int>(demo_mlp_io::rows), mismatches, static_cast<unsigned>(sizeof mlp_out));
  return armlower::firmware::finish("example_firmware_cortex_m55");
}
