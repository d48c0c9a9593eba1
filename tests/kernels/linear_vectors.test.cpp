// Native API (kernels/linear.hpp) bit-exact against every CMSIS-NN fully-connected vector set
// (TFLite reference outputs), on every path available on this machine, with bias and with the
// equivalent precomputed kernel_sum.
#include <armlower/kernels/linear.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "cmsis_vectors.hpp"

namespace k = armlower::kernels;
using armlower::status;

namespace {
std::vector<k::linear_path> host_paths() {
  std::vector<k::linear_path> p;
  for (auto c : {k::linear_path::generic, k::linear_path::x86_avx2, k::linear_path::x86_avx512_vnni,
                 k::linear_path::arm_dsp, k::linear_path::arm_mve}) {
    if (k::path_available(c)) p.push_back(c);
  }
  return p;
}
}  // namespace

TEST_CASE("s8 linear matches every CMSIS-NN s8 vector set (native API, all paths, bias and kernel_sum)") {
  for (const auto& v : armlower_test::fc_s8_vectors) {
    for (auto path : host_paths()) {
      for (bool use_kernel_sum : {false, true}) {
        CAPTURE(v.name);
        CAPTURE(k::to_string(path));
        CAPTURE(use_kernel_sum);
        std::vector<std::int8_t> out(static_cast<std::size_t>(v.batches * v.rows), 0x55);
        std::vector<std::int32_t> ks(static_cast<std::size_t>(v.rows));
        k::linear_s8_args a = armlower_test::to_args(v, out.data());
        if (use_kernel_sum) {
          REQUIRE(k::compute_kernel_sum_s8(ks.data(), v.cols, v.rows, v.weights, v.input_offset, v.filter_offset,
                                           v.bias) == status::ok);
          a.kernel_sum = ks.data();
          a.bias = nullptr;
        }
        REQUIRE(k::linear_s8(a, path) == status::ok);
        for (int i = 0; i < v.batches * v.rows; ++i) {
          CAPTURE(i);
          CHECK(out[static_cast<std::size_t>(i)] == v.output_ref[i]);
        }
      }
    }
  }
}

TEST_CASE("s16 linear matches the CMSIS-NN a16w8 vector set (native API, all paths)") {
  for (const auto& v : armlower_test::fc_s16_vectors) {
    for (auto path : host_paths()) {
      CAPTURE(v.name);
      CAPTURE(k::to_string(path));
      std::vector<std::int16_t> out(static_cast<std::size_t>(v.batches * v.rows), 0x5555);
      const k::linear_s16_args a = armlower_test::to_args(v, out.data());
      REQUIRE(k::linear_s16(a, path) == status::ok);
      for (int i = 0; i < v.batches * v.rows; ++i) {
        CAPTURE(i);
        CHECK(out[static_cast<std::size_t>(i)] == v.output_ref[i]);
      }
    }
  }
}
