// Every CMSIS-NN fully-connected vector set of ../shared/data/cmsis-nn (TFLite reference outputs),
// bit-exact on Cortex-M55 under QEMU, for the `mve` build (-mcpu=cortex-m55: automatic path = MVE)
// and the `nomve` build (-mcpu=cortex-m55+nomve: automatic path = DSP):
//   - native API `kernels::linear_s8` / `linear_s16`: automatic path and every path compiled in
//     (generic, DSP, MVE), each with bias and with a precomputed kernel_sum (`compute_kernel_sum_s8`);
//   - compat API `armlower::cmsis::fully_connected_s8` / `_per_channel_s8` / `_wrapper_s8` /
//     `fully_connected_s16` under the three caller conventions (CMSIS-NN DSP: bias only; CMSIS-NN MVE /
//     TFLM: bias + ctx.buf = vector_sum_s8; ExecuTorch: null bias + ctx.buf = kernel_sum with bias).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include <armlower/compat/cmsis_nn.hpp>
#include <armlower/kernels/linear.hpp>

#include "armlower_firmware.hpp"
#include "kernels/cmsis_vectors.hpp"

namespace {
namespace k = armlower::kernels;
namespace c = armlower::cmsis;
using armlower::status;

constexpr int max_out = 4096, max_rows = 1024;
std::int8_t out8[max_out];
std::int16_t out16[max_out];
std::int32_t kernel_sum[max_rows];

constexpr k::linear_path paths[] = {
    k::linear_path::automatic, k::linear_path::generic,
#if defined(ARMLOWER_KERNELS_HAVE_DSP)
    k::linear_path::arm_dsp,
#endif
#if defined(ARMLOWER_KERNELS_HAVE_MVE)
    k::linear_path::arm_mve,
#endif
};

bool same8(const std::int8_t* ref, int n, const char* set, const char* how) {
  const bool ok = std::memcmp(out8, ref, static_cast<std::size_t>(n)) == 0;
  ARMLOWER_FW_CHECK(ok);
  if (!ok) std::printf("  %s: %s differs from the TFLite reference\n", set, how);
  return ok;
}

bool same16(const std::int16_t* ref, int n, const char* set, const char* how) {
  const bool ok = std::memcmp(out16, ref, static_cast<std::size_t>(n) * sizeof(std::int16_t)) == 0;
  ARMLOWER_FW_CHECK(ok);
  if (!ok) std::printf("  %s: %s differs from the TFLite reference\n", set, how);
  return ok;
}

void s8_native(const armlower_test::fc_s8_vector& v) {
  const int n = v.batches * v.rows;
  k::linear_s8_args a = armlower_test::to_args(v, out8);
  ARMLOWER_FW_CHECK(k::compute_kernel_sum_s8(kernel_sum, v.cols, v.rows, v.weights, v.input_offset, v.filter_offset,
                                             v.bias) == status::ok);
  for (const k::linear_path p : paths) {
    for (const bool use_kernel_sum : {false, true}) {
      a.bias = use_kernel_sum ? nullptr : v.bias;
      a.kernel_sum = use_kernel_sum ? kernel_sum : nullptr;
      std::memset(out8, 0x5A, sizeof out8);
      ARMLOWER_FW_CHECK(k::linear_s8(a, p) == status::ok);
      char how[64];
      std::snprintf(how, sizeof how, "linear_s8 %s %s", k::to_string(p), use_kernel_sum ? "kernel_sum" : "bias");
      same8(v.output_ref, n, v.name, how);
    }
  }
}

void s8_compat(const armlower_test::fc_s8_vector& v) {
  const int n = v.batches * v.rows;
  c::fc_params fc;
  fc.input_offset = v.input_offset;
  fc.filter_offset = v.filter_offset;
  fc.output_offset = v.output_offset;
  fc.activation = {v.activation_min, v.activation_max};
  const c::dims in_d{v.batches, 1, 1, v.cols}, f_d{v.cols, 1, 1, v.rows}, b_d{1, 1, 1, v.rows},
      o_d{v.batches, 1, 1, v.rows};
  ARMLOWER_FW_CHECK_EQ(c::fully_connected_s8_get_buffer_size(&f_d), v.rows * 4);
  // vector_sum_s8 exactly as TFLM calls it for MVE: (bias folded in) kernel_sum in ctx.buf.
  ARMLOWER_FW_CHECK(c::vector_sum_s8(kernel_sum, v.cols, v.rows, v.weights, v.input_offset, v.filter_offset, v.bias) ==
                    status::ok);
  enum { dsp_bias, mve_sum_and_bias, executorch_sum_only };
  for (const int convention : {dsp_bias, mve_sum_and_bias, executorch_sum_only}) {
    c::context ctx;
    if (convention != dsp_bias) {
      ctx.buf = kernel_sum;
      ctx.size = v.rows * 4;
    }
    const std::int32_t* bias = convention == executorch_sum_only ? nullptr : v.bias;
    static const char* const names[] = {"bias only (CMSIS-NN DSP)", "bias + ctx.buf (CMSIS-NN MVE, TFLM)",
                                        "ctx.buf only (ExecuTorch)"};
    std::memset(out8, 0x5A, sizeof out8);
    status s;
    if (v.per_channel) {
      const c::per_channel_quant_params q{const_cast<std::int32_t*>(v.multiplier), const_cast<std::int32_t*>(v.shift)};
      s = c::fully_connected_per_channel_s8(&ctx, &fc, &q, &in_d, v.input, &f_d, v.weights, &b_d, bias, &o_d, out8);
    } else {
      const c::per_tensor_quant_params q{v.multiplier[0], v.shift[0]};
      s = c::fully_connected_s8(&ctx, &fc, &q, &in_d, v.input, &f_d, v.weights, &b_d, bias, &o_d, out8);
    }
    ARMLOWER_FW_CHECK(s == status::ok);
    same8(v.output_ref, n, v.name, names[convention]);

    std::memset(out8, 0x5A, sizeof out8);
    const c::quant_params wq{const_cast<std::int32_t*>(v.multiplier), const_cast<std::int32_t*>(v.shift),
                             v.per_channel ? 1 : 0};
    ARMLOWER_FW_CHECK(c::fully_connected_wrapper_s8(&ctx, &fc, &wq, &in_d, v.input, &f_d, v.weights, &b_d, bias, &o_d,
                                                    out8) == status::ok);
    same8(v.output_ref, n, v.name, "fully_connected_wrapper_s8");
  }
}

void s16_all(const armlower_test::fc_s16_vector& v) {
  const int n = v.batches * v.rows;
  const k::linear_s16_args a = armlower_test::to_args(v, out16);
  for (const k::linear_path p : paths) {
    std::memset(out16, 0x5A, sizeof out16);
    ARMLOWER_FW_CHECK(k::linear_s16(a, p) == status::ok);
    char how[64];
    std::snprintf(how, sizeof how, "linear_s16 %s", k::to_string(p));
    same16(v.output_ref, n, v.name, how);
  }
  c::fc_params fc;
  fc.activation = {v.activation_min, v.activation_max};
  const c::dims in_d{v.batches, 1, 1, v.cols}, f_d{v.cols, 1, 1, v.rows}, b_d{1, 1, 1, v.rows},
      o_d{v.batches, 1, 1, v.rows};
  const c::per_tensor_quant_params q{v.multiplier, v.shift};
  c::context ctx;
  std::memset(out16, 0x5A, sizeof out16);
  ARMLOWER_FW_CHECK(c::fully_connected_s16(&ctx, &fc, &q, &in_d, v.input, &f_d, v.weights, &b_d, v.bias, &o_d, out16) ==
                    status::ok);
  same16(v.output_ref, n, v.name, "cmsis::fully_connected_s16");
}
}  // namespace

int main() {
  std::printf("automatic path: s8 %s, s16 %s\n", k::to_string(k::best_path(false)), k::to_string(k::best_path(true)));
  for (const auto& v : armlower_test::fc_s8_vectors) {
    const int before = armlower::firmware::failures;
    s8_native(v);
    s8_compat(v);
    std::printf("%-32s s8   %ld x %ld x %ld: %s\n", v.name, long(v.batches), long(v.cols), long(v.rows),
                armlower::firmware::failures == before ? "bit-exact" : "MISMATCH");
  }
  for (const auto& v : armlower_test::fc_s16_vectors) {
    const int before = armlower::firmware::failures;
    s16_all(v);
    std::printf("%-32s s16  %ld x %ld x %ld: %s\n", v.name, long(v.batches), long(v.cols), long(v.rows),
                armlower::firmware::failures == before ? "bit-exact" : "MISMATCH");
  }
  ARMLOWER_FW_CHECK_EQ(armlower_test::fc_s8_vector_count, 6);  // every set of ../shared/data/cmsis-nn
  ARMLOWER_FW_CHECK_EQ(armlower_test::fc_s16_vector_count, 1);
  return armlower::firmware::finish("firmware_cmsis_vectors");
}
