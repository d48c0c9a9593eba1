// Kernel bindings picked by dtype (dtype::with_dtype): the Cortex-M plan's run-time entry and its
// compile-time `run_plan<A>` entry run the same kernels; a plan of another activation dtype is refused.
#include <doctest/doctest.h>

#include <armlower/cortex_m/plan.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cm = armlower::cortex_m;
using armlower::dtype::id;
using armlower::kernels::status;

TEST_CASE("Cortex-M plan: run_plan<INT8> == run_plan, and matches the CMSIS-NN s8 arithmetic") {
  // One s8 layer, DSP convention (bias, no kernel_sum): y = requantize(Σ x·w + bias) with
  // multiplier 2^30 (0.5 in Q31) and shift 0: y = (10·1 + 20·2 + 4) / 2 = 27 (arm_nn_requantize).
  static const std::int8_t w[2] = {1, 2};
  static const std::int32_t bias[1] = {4};
  static const std::int32_t mult[1] = {1 << 30};
  static const std::int32_t shift[1] = {0};
  cm::layer l;
  l.kind = cm::layer_kind::linear_s8;
  l.cols = 2;
  l.rows = 1;
  l.weights = w;
  l.bias = bias;
  l.multiplier = mult;
  l.shift = shift;
  const cm::plan p{&l, 1, cm::isa::dsp};
  const std::array<std::int8_t, 2> x{10, 20};
  std::array<std::byte, 2> in{};
  std::memcpy(in.data(), x.data(), 2);
  std::array<std::byte, 1> rt{}, ct{};
  std::array<std::byte, 8> scratch{};
  REQUIRE(cm::run_plan(p, 1, in, rt, scratch) == status::ok);
  REQUIRE(cm::run_plan<id::i8>(p, 1, in, ct, scratch) == status::ok);
  CHECK(static_cast<std::int8_t>(rt[0]) == 27);
  CHECK(static_cast<std::int8_t>(ct[0]) == 27);
  CHECK(cm::run_plan<id::i16>(p, 1, in, ct, scratch) == status::unsupported_type);
  CHECK(cm::activation_dtype(cm::layer_kind::linear_s16) == id::i16);
  CHECK(cm::activation_dtype(cm::layer_kind::linear_s8) == id::i8);
}
