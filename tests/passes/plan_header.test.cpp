// The emitted plan header compiles, its constexpr plan validates, and running it on the host gives
// the output armlower's TOSA interpreter computes for the same model (DOUBLE_ROUND lowering).
#include "demo_plan.hpp"
#include "demo_plan_io.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstddef>

TEST_CASE("emitted Cortex-M plan header runs bit-exact with the TOSA lowering") {
  static_assert(demo_plan::plan.layer_count == 3);
  static_assert(demo_plan::layers[0].kernel_sum == demo_plan::layer0_kernel_sum);  // MVE: kernel_sum ...
  static_assert(demo_plan::layers[0].bias == nullptr);                               // ... and no bias
  static_assert(std::size(demo_plan_io::input) == demo_plan::input_size);
  std::array<std::int8_t, demo_plan::output_size> out{};
  alignas(8) std::array<std::byte, demo_plan::scratch_size + 8> scratch{};
  const auto s = armlower::cortex_m::run_plan(demo_plan::plan, demo_plan::batches, std::as_bytes(std::span(demo_plan_io::input)),
                                              std::as_writable_bytes(std::span(out)), scratch);
  REQUIRE(s == armlower::status::ok);
  for (std::size_t i = 0; i < out.size(); ++i) {
    CAPTURE(i);
    CHECK(out[i] == demo_plan_io::expected[i]);
  }
}
