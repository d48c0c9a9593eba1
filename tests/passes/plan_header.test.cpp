// The emitted plan header compiles, its constexpr plan validates, and running it on the host gives
// the output armlower's TOSA interpreter computes for the same model (DOUBLE_ROUND lowering); the
// packed form of the same plan (weight_packing::always) holds exactly pack_weights_s8 of the
// row-major weights and no row-major copy, and gives the same output.
#include "demo_plan.hpp"
#include "demo_plan_io.hpp"
#include "demo_plan_packed.hpp"

#include <armlower/kernels/linear.hpp>
#include <armlower/passes/cortex_m_emit.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <span>
#include <vector>

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

TEST_CASE("emitted packed plan: pack_weights_s8 of the weights, no row-major copy, same output as the TOSA lowering") {
  // demo_plan's padding (rows 24, 16, 5; cols 40, 24, 16) is above pack_pays' bound: row-major by default.
  static_assert(!demo_plan::packed && demo_plan_packed::packed);
  static_assert(demo_plan::layers[2].packed_weights == nullptr);
  static_assert(demo_plan_packed::layers[0].weights == nullptr && demo_plan_packed::layers[1].weights == nullptr &&
                demo_plan_packed::layers[2].weights == nullptr);
  static_assert(demo_plan_packed::layers[0].packed_weights == demo_plan_packed::layer0_packed_weights);
  static_assert(demo_plan_packed::layers[2].packed_weights == demo_plan_packed::layer2_packed_weights);
  const std::span<const std::int8_t> row_major[] = {demo_plan::layer0_weights, demo_plan::layer1_weights,
                                                    demo_plan::layer2_weights};
  const std::span<const std::int8_t> packed[] = {demo_plan_packed::layer0_packed_weights,
                                                 demo_plan_packed::layer1_packed_weights,
                                                 demo_plan_packed::layer2_packed_weights};
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const auto& l = demo_plan::layers[i];
    std::vector<std::int8_t> want(armlower::kernels::packed_weights_s8_size(l.rows, l.cols));
    REQUIRE(armlower::kernels::pack_weights_s8(row_major[i].data(), l.rows, l.cols, want.data(), want.size()) ==
            armlower::status::ok);
    CHECK(std::vector<std::int8_t>(packed[i].begin(), packed[i].end()) == want);
    const std::span<const std::int32_t> ks(l.kernel_sum, static_cast<std::size_t>(l.rows)),
        ks_packed(demo_plan_packed::layers[i].kernel_sum, static_cast<std::size_t>(l.rows));
    CHECK(std::vector<std::int32_t>(ks.begin(), ks.end()) == std::vector<std::int32_t>(ks_packed.begin(), ks_packed.end()));
  }
  const auto in = std::as_bytes(std::span(demo_plan_io::input));
  alignas(8) std::array<std::byte, demo_plan_packed::scratch_size + 8> scratch{};
  std::array<std::int8_t, demo_plan_packed::output_size> out{}, out_rt{};
  // As firmware calls it: only the packed kernel for the plan's features.
  REQUIRE(armlower::cortex_m::run_plan<armlower::dtype::id::i8, demo_plan_packed::features, demo_plan_packed::packed>(
              demo_plan_packed::plan, demo_plan_packed::batches, in, std::as_writable_bytes(std::span(out)), scratch) ==
          armlower::status::ok);
  // The run-time entry runs the packed kernel of a layer with packed_weights.
  REQUIRE(armlower::cortex_m::run_plan(demo_plan_packed::plan, demo_plan_packed::batches, in,
                                       std::as_writable_bytes(std::span(out_rt)), scratch) == armlower::status::ok);
  for (std::size_t i = 0; i < out.size(); ++i) {
    CAPTURE(i);
    CHECK(out[i] == demo_plan_io::expected[i]);
    CHECK(out_rt[i] == demo_plan_io::expected[i]);
  }
  // The row-major kernel cannot run a plan without row-major weights: refused, not misread.
  CHECK(armlower::cortex_m::run_plan<armlower::dtype::id::i8, demo_plan_packed::features, false>(
            demo_plan_packed::plan, demo_plan_packed::batches, in, std::as_writable_bytes(std::span(out)), scratch) ==
        armlower::status::null_pointer);
}
