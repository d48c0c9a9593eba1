// Links every armlower kernel into one Cortex-M55 image (the `.symbols` ctest case of this target then
// proves the image has no operator new/delete, __cxa_throw, __cxa_allocate_exception or typeinfo), and
// checks that they agree with each other on the same layer:
//   - TOSA form == CMSIS form: CONV2D 1×1 (int8/int16) and MATMUL accumulators, then RESCALE
//     (scale32 DOUBLE_ROUND for int8, 16-bit multiplier for int16), equal `linear_s8` / `linear_s16`
//     with the CMSIS-NN offsets and TFLite-style (q, s) — kernels.md §3 "Mapping";
//   - compat `cmsis::fully_connected_s8` / `_s16` equal the native calls;
//   - MX: CAST_TO_BLOCK_SCALED then CAST_FROM_BLOCK_SCALED returns values exactly representable in
//     FP8 E4M3, and MATMUL_T_BLOCK_SCALED of them equals their exact dot product.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>

#include <armlower/compat/cmsis_nn.hpp>
#include <armlower/kernels.hpp>
#include <armlower/quant/multiplier.hpp>

#include "armlower_firmware.hpp"

namespace {
namespace k = armlower::kernels;
using armlower::status;

constexpr int batches = 3, cols = 45, rows = 7;
std::int8_t x8[batches * cols], w8[rows * cols], y8[batches * rows], y8_tosa[batches * rows];
std::int16_t x16[batches * cols], y16[batches * rows], y16_tosa[batches * rows];
std::int32_t bias32[rows], acc32[batches * rows], acc32_mm[batches * rows], wt32[cols * rows];
std::int64_t bias64[rows], acc64[batches * rows], acc64_mm[batches * rows];
std::int8_t w8_t[cols * rows];  // [C][W] for MATMUL

std::uint32_t rng_state = 0x9E3779B9u;
std::uint32_t next() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

void int8_layer() {
  const std::int32_t input_zp = -3, weight_zp = 2, output_zp = 5;
  const std::int32_t q = 1518500250, s = -8;  // TFLite-style
  for (auto& v : x8) v = static_cast<std::int8_t>(next());
  for (auto& v : w8) v = static_cast<std::int8_t>(next());
  for (auto& v : bias32) v = static_cast<std::int32_t>(next() % 20001) - 10000;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) w8_t[c * rows + r] = w8[r * cols + c];

  // CMSIS form (native API).
  k::linear_s8_args a;
  a.input = x8;
  a.weights = w8;
  a.bias = bias32;
  a.output = y8;
  a.batches = batches;
  a.cols = cols;
  a.rows = rows;
  a.input_offset = -input_zp;
  a.filter_offset = -weight_zp;
  a.output_offset = output_zp;
  a.multiplier = &q;
  a.shift = &s;
  ARMLOWER_FW_CHECK(k::linear_s8(a) == status::ok);

  // TOSA form: CONV2D 1×1 (NHWC [batches,1,1,cols], OHWI [rows,1,1,cols]) and MATMUL agree.
  k::conv2d_shape cs;
  cs.n = batches;
  cs.ic = cols;
  cs.oc = rows;
  cs.bias_size = rows;
  ARMLOWER_FW_CHECK(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(cs, x8, w8, bias32, input_zp, weight_zp, acc32) ==
                    status::ok);
  k::matmul_shape ms;
  ms.h = batches;
  ms.c = cols;
  ms.w = rows;
  ARMLOWER_FW_CHECK(k::matmul<std::int8_t, std::int32_t>(ms, x8, w8_t, input_zp, weight_zp, acc32_mm) == status::ok);
  for (int i = 0; i < batches * rows; ++i) ARMLOWER_FW_CHECK_EQ(acc32_mm[i] + bias32[i % rows], acc32[i]);

  // RESCALE INT32 → INT8, scale32, DOUBLE_ROUND, shift 31 − s.
  const std::int32_t tq = q, ts = 31 - s;
  k::rescale_args r;
  r.in_t = armlower::dtype::id::i32;
  r.out_t = armlower::dtype::id::i8;
  r.input = acc32;
  r.output = y8_tosa;
  r.count = batches * rows;
  r.channels = rows;
  r.multiplier = &tq;
  r.shift = &ts;
  r.output_zp = output_zp;
  r.rounding = armlower::quant::rounding::double_round;
  ARMLOWER_FW_CHECK(k::rescale(r) == status::ok);
  for (int i = 0; i < batches * rows; ++i) ARMLOWER_FW_CHECK_EQ(y8_tosa[i], y8[i]);

  // Compat API, CMSIS-NN DSP convention (bias) and MVE convention (ctx.buf = vector_sum_s8).
  namespace c = armlower::cmsis;
  c::fc_params fc;
  fc.input_offset = -input_zp;
  fc.filter_offset = -weight_zp;
  fc.output_offset = output_zp;
  const c::dims in_d{batches, 1, 1, cols}, f_d{cols, 1, 1, rows}, b_d{1, 1, 1, rows}, o_d{batches, 1, 1, rows};
  const c::per_tensor_quant_params pq{q, s};
  ARMLOWER_FW_CHECK(c::vector_sum_s8(wt32, cols, rows, w8, -input_zp, -weight_zp, bias32) == status::ok);
  std::int8_t y8_compat[batches * rows];
  for (const bool use_buf : {false, true}) {
    c::context ctx{use_buf ? wt32 : nullptr, use_buf ? rows * 4 : 0};
    std::memset(y8_compat, 0, sizeof y8_compat);
    ARMLOWER_FW_CHECK(c::fully_connected_s8(&ctx, &fc, &pq, &in_d, x8, &f_d, w8, &b_d, use_buf ? nullptr : bias32,
                                            &o_d, y8_compat) == status::ok);
    ARMLOWER_FW_CHECK(std::memcmp(y8_compat, y8, sizeof y8) == 0);
  }
}

void int16_layer() {
  const std::int32_t q = 1431655765, s = -14;  // TFLite-style; REDUCE_MULTIPLIER → 16-bit
  for (auto& v : x16) v = static_cast<std::int16_t>(next());
  for (auto& v : w8) v = static_cast<std::int8_t>(next());
  for (auto& v : bias64) v = static_cast<std::int32_t>(next()) >> 4;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) w8_t[c * rows + r] = w8[r * cols + c];

  k::linear_s16_args a;
  a.input = x16;
  a.weights = w8;
  a.bias = bias64;
  a.output = y16;
  a.batches = batches;
  a.cols = cols;
  a.rows = rows;
  a.multiplier = &q;
  a.shift = &s;
  ARMLOWER_FW_CHECK(k::linear_s16(a) == status::ok);

  // TOSA a16w8: CONV2D 1×1 int16 × int8 → INT48 (int64 storage), MATMUL int16 → int48.
  k::conv2d_shape cs;
  cs.n = batches;
  cs.ic = cols;
  cs.oc = rows;
  cs.bias_size = rows;
  ARMLOWER_FW_CHECK(k::conv2d<std::int16_t, std::int8_t, std::int64_t>(cs, x16, w8, bias64, 0, 0, acc64) == status::ok);
  // MATMUL takes both operands as int16.
  static std::int16_t w16_t[cols * rows];
  for (int i = 0; i < cols * rows; ++i) w16_t[i] = w8_t[i];
  k::matmul_shape ms;
  ms.h = batches;
  ms.c = cols;
  ms.w = rows;
  ARMLOWER_FW_CHECK(k::matmul<std::int16_t, std::int64_t>(ms, x16, w16_t, 0, 0, acc64_mm) == status::ok);
  for (int i = 0; i < batches * rows; ++i) ARMLOWER_FW_CHECK_EQ(acc64_mm[i] + bias64[i % rows], acc64[i]);

  // RESCALE INT48 → INT16 with the 16-bit multiplier (scale32 = false), shift 15 − s.
  const std::int32_t tq = armlower::quant::reduce_multiplier(q), ts = 15 - s;
  k::rescale_args r;
  r.in_t = armlower::dtype::id::i48;
  r.out_t = armlower::dtype::id::i16;
  r.input = acc64;
  r.output = y16_tosa;
  r.count = batches * rows;
  r.channels = rows;
  r.multiplier = &tq;
  r.shift = &ts;
  r.scale32 = false;
  ARMLOWER_FW_CHECK(k::rescale(r) == status::ok);
  for (int i = 0; i < batches * rows; ++i) ARMLOWER_FW_CHECK_EQ(y16_tosa[i], y16[i]);

  namespace c = armlower::cmsis;
  c::fc_params fc;
  fc.activation = {-32768, 32767};
  const c::dims in_d{batches, 1, 1, cols}, f_d{cols, 1, 1, rows}, b_d{1, 1, 1, rows}, o_d{batches, 1, 1, rows};
  const c::per_tensor_quant_params pq{q, s};
  c::context ctx;
  std::int16_t y16_compat[batches * rows];
  ARMLOWER_FW_CHECK(c::fully_connected_s16(&ctx, &fc, &pq, &in_d, x16, &f_d, w8, &b_d, bias64, &o_d, y16_compat) ==
                    status::ok);
  ARMLOWER_FW_CHECK(std::memcmp(y16_compat, y16, sizeof y16) == 0);
}

void mx_layer() {
  namespace kmx = armlower::kernels::mx;
  using armlower::dtype::id;
  float a[32], b[32], a_back[32], out[1];
  float exact = 0;
  for (int i = 0; i < 32; ++i) {
    a[i] = static_cast<float>(static_cast<int>(next() % 17) - 8);  // integers −8..8: exact in E4M3 (scale 2^-5)
    b[i] = static_cast<float>(static_cast<int>(next() % 17) - 8);
    exact += a[i] * b[i];
  }
  a[0] = 8;
  b[0] = -8;
  exact = 0;
  for (int i = 0; i < 32; ++i) exact += a[i] * b[i];
  const std::int32_t shape[] = {1, 1, 32}, scale_shape[] = {1, 1, 1};
  std::uint8_t a_data[32], a_scale[1], b_data[32], b_scale[1];
  ARMLOWER_FW_CHECK(kmx::cast_to_block_scaled(std::span<const float>(a), shape, id::fp8e4m3, a_data, a_scale) ==
                    armlower::mx::status::ok);
  ARMLOWER_FW_CHECK(kmx::cast_to_block_scaled(std::span<const float>(b), shape, id::fp8e4m3, b_data, b_scale) ==
                    armlower::mx::status::ok);
  ARMLOWER_FW_CHECK(kmx::cast_from_block_scaled(id::fp8e4m3, a_data, shape, a_scale, scale_shape,
                                                std::span<float>(a_back)) == armlower::mx::status::ok);
  for (int i = 0; i < 32; ++i) ARMLOWER_FW_CHECK(a_back[i] == a[i]);
  const kmx::block_scaled_view va{a_data, shape, a_scale, scale_shape}, vb{b_data, shape, b_scale, scale_shape};
  for (const kmx::matmul_path p : {kmx::matmul_path::reference, kmx::matmul_path::best}) {
    out[0] = -1;
    ARMLOWER_FW_CHECK(kmx::matmul_t_block_scaled(id::fp8e4m3, va, vb, out, p) == armlower::mx::status::ok);
    ARMLOWER_FW_CHECK(out[0] == exact);
  }
}
}  // namespace

int main() {
  int8_layer();
  int16_layer();
  mx_layer();
  return armlower::firmware::finish("firmware_all_kernels");
}
