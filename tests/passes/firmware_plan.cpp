// Firmware: the emitted Cortex-M plan header runs on a Cortex-M55 (MVE and DSP builds) under QEMU
// and reproduces the host TOSA interpreter's output bit for bit; caller-owned scratch, no heap. The
// packed form of the same plan (weights only in the pack_weights_s8 layout) runs as firmware calls it
// — `run_plan<A, features, packed>`: the 8-row Helium kernel on MVE, the generic packed kernel on the
// DSP build — and through the run-time `run_plan`, with the same output.
#include "demo_plan.hpp"
#include "demo_plan_io.hpp"
#include "demo_plan_packed.hpp"

#include <array>
#include <cstddef>

#include "armlower_firmware.hpp"

namespace {
alignas(8) std::array<std::byte, demo_plan::scratch_size + 8> scratch;
std::array<std::int8_t, demo_plan::output_size> out;
}  // namespace

int main() {
  const auto s = armlower::cortex_m::run_plan(demo_plan::plan, demo_plan::batches,
                                              std::as_bytes(std::span(demo_plan_io::input)),
                                              std::as_writable_bytes(std::span(out)), scratch);
  ARMLOWER_FW_CHECK_EQ(static_cast<int>(s), 0);
  for (std::size_t i = 0; i < out.size(); ++i) ARMLOWER_FW_CHECK_EQ(out[i], demo_plan_io::expected[i]);
  static_assert(demo_plan_packed::packed && demo_plan_packed::layers[0].weights == nullptr);
  out.fill(0);
  const auto sp = armlower::cortex_m::run_plan<armlower::dtype::id::i8, demo_plan_packed::features, demo_plan_packed::packed>(
      demo_plan_packed::plan, demo_plan_packed::batches, std::as_bytes(std::span(demo_plan_io::input)),
      std::as_writable_bytes(std::span(out)), scratch);
  ARMLOWER_FW_CHECK_EQ(static_cast<int>(sp), 0);
  for (std::size_t i = 0; i < out.size(); ++i) ARMLOWER_FW_CHECK_EQ(out[i], demo_plan_io::expected[i]);
  out.fill(0);
  const auto sr = armlower::cortex_m::run_plan(demo_plan_packed::plan, demo_plan_packed::batches,
                                               std::as_bytes(std::span(demo_plan_io::input)),
                                               std::as_writable_bytes(std::span(out)), scratch);
  ARMLOWER_FW_CHECK_EQ(static_cast<int>(sr), 0);
  for (std::size_t i = 0; i < out.size(); ++i) ARMLOWER_FW_CHECK_EQ(out[i], demo_plan_io::expected[i]);
  return armlower::firmware::finish("firmware_passes_plan");
}
