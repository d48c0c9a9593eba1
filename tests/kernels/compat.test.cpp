// armlower::cmsis (compat/cmsis_nn.hpp) bit-exact against every CMSIS-NN vector set, under every
// bias / kernel_sum convention a caller may use (CMSIS-NN DSP/C, CMSIS-NN MVE + TFLM, ExecuTorch before
// and after #19676), bad-input statuses, and the TOSA form of the same layers (CONV2D 1×1 + RESCALE
// + clamp) against the same TFLite reference outputs.
#include <armlower/compat/cmsis_nn.hpp>
#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/matmul.hpp>
#include <armlower/kernels/rescale.hpp>
#include <armlower/quant/multiplier.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cmsis_vectors.hpp"

namespace c = armlower::cmsis;
namespace k = armlower::kernels;
using armlower::status;

namespace {

enum class convention {
  dsp_bias, dsp_bias_garbage_buf, mve_sum_and_bias, executorch_sum_only,
  // armlower extension: ctx->size ≥ fully_connected_s8_get_cache_buffer_size (packed weights kept in ctx->buf)
  cached_bias_garbage_buf, cached_sum_and_bias, cached_sum_only
};

struct s8_call {
  c::context ctx;
  c::fc_params fc;
  c::dims in_d, f_d, b_d, o_d;
  std::vector<std::int32_t> buf;
  const std::int32_t* bias = nullptr;
};

s8_call setup(const armlower_test::fc_s8_vector& v, convention conv) {
  s8_call s;
  s.fc.input_offset = v.input_offset;
  s.fc.filter_offset = v.filter_offset;
  s.fc.output_offset = v.output_offset;
  s.fc.activation = {v.activation_min, v.activation_max};
  s.in_d = {v.batches, 1, 1, v.cols};
  s.f_d = {v.cols, 1, 1, v.rows};
  s.b_d = {1, 1, 1, v.rows};
  s.o_d = {v.batches, 1, 1, v.rows};
  const std::int32_t bytes = c::fully_connected_s8_get_buffer_size(&s.f_d);
  REQUIRE(bytes == v.rows * 4);
  s.buf.assign(static_cast<std::size_t>(v.rows), 0x7A7A7A7A);  // garbage
  switch (conv) {
    case convention::dsp_bias:  // CMSIS-NN DSP/C: no buffer, bias
      s.bias = v.bias;
      break;
    case convention::dsp_bias_garbage_buf:  // scratch passed but never filled, bias given
      s.ctx = {s.buf.data(), bytes};
      s.bias = v.bias;
      break;
    case convention::mve_sum_and_bias:  // CMSIS-NN MVE / TFLM: vector_sum into ctx.buf, bias also passed
      REQUIRE(c::vector_sum_s8(s.buf.data(), v.cols, v.rows, v.weights, v.input_offset, v.filter_offset, v.bias) ==
              status::ok);
      s.ctx = {s.buf.data(), bytes};
      s.bias = v.bias;
      break;
    case convention::executorch_sum_only:  // ExecuTorch: kernel_sum (bias folded) in ctx.buf, size 0, bias null
      REQUIRE(c::vector_sum_s8(s.buf.data(), v.cols, v.rows, v.weights, v.input_offset, v.filter_offset, v.bias) ==
              status::ok);
      s.ctx = {s.buf.data(), 0};
      s.bias = nullptr;
      break;
    case convention::cached_bias_garbage_buf:
    case convention::cached_sum_and_bias:
    case convention::cached_sum_only: {
      const std::int32_t cache_bytes = c::fully_connected_s8_get_cache_buffer_size(&s.f_d);
      REQUIRE(cache_bytes >= static_cast<std::int32_t>(k::linear_s8_cache_size(v.rows, v.cols)) + v.rows * 4);
      s.buf.resize(static_cast<std::size_t>(cache_bytes + 3) / 4, 0x7A7A7A7A);
      if (conv != convention::cached_bias_garbage_buf) {
        REQUIRE(c::vector_sum_s8(s.buf.data(), v.cols, v.rows, v.weights, v.input_offset, v.filter_offset, v.bias) ==
                status::ok);
      }
      s.ctx = {s.buf.data(), cache_bytes};
      s.bias = conv == convention::cached_sum_only ? nullptr : v.bias;
      break;
    }
  }
  return s;
}

}  // namespace

TEST_CASE("compat: every s8 vector set, every bias/kernel_sum convention, per-tensor/per-channel/wrapper") {
  for (const auto& v : armlower_test::fc_s8_vectors) {
    for (auto conv : {convention::dsp_bias, convention::dsp_bias_garbage_buf, convention::mve_sum_and_bias,
                      convention::executorch_sum_only, convention::cached_bias_garbage_buf,
                      convention::cached_sum_and_bias, convention::cached_sum_only}) {
      // A never-filled buffer with a null bias is the one documented caller error (see compat/cmsis_nn.hpp).
      if ((conv == convention::dsp_bias_garbage_buf || conv == convention::cached_bias_garbage_buf) &&
          v.bias == nullptr) {
        continue;
      }
      for (int entry = 0; entry < 2; ++entry) {  // 0: direct function, 1: wrapper
        CAPTURE(std::string(v.name));
        CAPTURE(static_cast<int>(conv));
        CAPTURE(entry);
        auto s = setup(v, conv);
        const std::vector<std::int32_t> kernel_sum_before(s.buf.begin(), s.buf.begin() + v.rows);
        for (int rep = 0; rep < 2; ++rep) {  // cached conventions: the 2nd call reuses the packing
        CAPTURE(rep);
        std::vector<std::int8_t> out(static_cast<std::size_t>(v.batches * v.rows), 0x55);
        status st{};
        if (entry == 1) {
          c::quant_params qp{const_cast<std::int32_t*>(v.multiplier), const_cast<std::int32_t*>(v.shift),
                             v.per_channel ? 1 : 0};
          st = c::fully_connected_wrapper_s8(&s.ctx, &s.fc, &qp, &s.in_d, v.input, &s.f_d, v.weights, &s.b_d, s.bias,
                                             &s.o_d, out.data());
        } else if (v.per_channel) {
          c::per_channel_quant_params qp{const_cast<std::int32_t*>(v.multiplier), const_cast<std::int32_t*>(v.shift)};
          st = c::fully_connected_per_channel_s8(&s.ctx, &s.fc, &qp, &s.in_d, v.input, &s.f_d, v.weights, &s.b_d,
                                                 s.bias, &s.o_d, out.data());
        } else {
          c::per_tensor_quant_params qp{v.multiplier[0], v.shift[0]};
          st = c::fully_connected_s8(&s.ctx, &s.fc, &qp, &s.in_d, v.input, &s.f_d, v.weights, &s.b_d, s.bias, &s.o_d,
                                     out.data());
        }
        REQUIRE(st == status::ok);
        CHECK(c::to_cmsis_status(st) == c::cmsis_status::success);
        for (int i = 0; i < v.batches * v.rows; ++i) {
          CAPTURE(i);
          CHECK(out[static_cast<std::size_t>(i)] == v.output_ref[i]);
        }
        // the kernel-sum area is never written
        CHECK(std::equal(kernel_sum_before.begin(), kernel_sum_before.end(), s.buf.begin()));
        }
      }
    }
  }
}

TEST_CASE("compat: packed weights in ctx->buf — reset after in-place changes, smaller buffers run unpacked") {
  const auto& v = armlower_test::fc_s8_vectors[0];
  c::fc_params fc;
  fc.input_offset = v.input_offset;
  fc.filter_offset = v.filter_offset;
  fc.output_offset = v.output_offset;
  fc.activation = {v.activation_min, v.activation_max};
  const c::dims in_d{v.batches, 1, 1, v.cols}, f_d{v.cols, 1, 1, v.rows}, b_d{1, 1, 1, v.rows}, o_d{v.batches, 1, 1, v.rows};
  const std::int32_t bytes = c::fully_connected_s8_get_cache_buffer_size(&f_d);
  REQUIRE(bytes > 0);
  std::vector<std::int8_t> w(v.weights, v.weights + static_cast<std::ptrdiff_t>(v.rows) * v.cols);
  std::vector<std::int32_t> bias(v.bias, v.bias + v.rows);  // vector set 0 has a bias
  const auto run = [&](c::context ctx, std::vector<std::int8_t>& out) {
    out.assign(static_cast<std::size_t>(v.batches) * static_cast<std::size_t>(v.rows), 0x55);
    c::quant_params qp{const_cast<std::int32_t*>(v.multiplier), const_cast<std::int32_t*>(v.shift), v.per_channel ? 1 : 0};
    return c::fully_connected_wrapper_s8(&ctx, &fc, &qp, &in_d, v.input, &f_d, w.data(), &b_d, bias.data(), &o_d,
                                         out.data());
  };
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(bytes), 0xEE);
  std::vector<std::int8_t> ref, out;
  REQUIRE(run({nullptr, 0}, ref) == status::ok);
  REQUIRE(run({buf.data(), bytes}, out) == status::ok);
  CHECK(out == ref);
  // weights changed in place: reset, then the result is that of the new weights
  for (auto& e : w) e = static_cast<std::int8_t>(-(e / 2));
  c::context ctx{buf.data(), bytes};
  c::reset_context_cache(&ctx, &f_d);
  REQUIRE(run({nullptr, 0}, ref) == status::ok);
  REQUIRE(run(ctx, out) == status::ok);
  CHECK(out == ref);
  // one byte short of the cache size: the unpacked path, nothing written
  std::vector<std::uint8_t> small(static_cast<std::size_t>(bytes - 1), 0xCD);
  REQUIRE(run({small.data(), bytes - 1}, out) == status::ok);
  CHECK(out == ref);
  CHECK(std::all_of(small.begin(), small.end(), [](std::uint8_t e) { return e == 0xCD; }));
  CHECK(c::fully_connected_s8_get_cache_buffer_size(nullptr) == 0);
  const c::dims huge{1 << 20, 1, 1, 1 << 20};
  CHECK(c::fully_connected_s8_get_cache_buffer_size(&huge) == 0);  // above INT32_MAX
}

TEST_CASE("compat: a16w8 vector set (arm_fully_connected_s16)") {
  for (const auto& v : armlower_test::fc_s16_vectors) {
    c::fc_params fc;
    fc.activation = {v.activation_min, v.activation_max};
    c::per_tensor_quant_params qp{v.multiplier, v.shift};
    c::dims in_d{v.batches, 1, 1, v.cols}, f_d{v.cols, 1, 1, v.rows}, b_d{1, 1, 1, v.rows}, o_d{v.batches, 1, 1, v.rows};
    CHECK(c::fully_connected_s16_get_buffer_size(&f_d) == 0);
    std::vector<std::int16_t> out(static_cast<std::size_t>(v.batches * v.rows));
    REQUIRE(c::fully_connected_s16(nullptr, &fc, &qp, &in_d, v.input, &f_d, v.weights, &b_d, v.bias, &o_d,
                                   out.data()) == status::ok);
    for (int i = 0; i < v.batches * v.rows; ++i) CHECK(out[static_cast<std::size_t>(i)] == v.output_ref[i]);
    // a cache-sized ctx keeps packed weights (packed on the first call, reused by the second); one byte
    // less runs the row-major kernel and leaves the buffer untouched — the vector's output every time
    const std::int32_t need = c::fully_connected_s16_get_cache_buffer_size(&f_d);
    REQUIRE(need > 0);
    for (const std::int32_t size : {need, need - 1}) {
      std::vector<std::uint8_t> buf(static_cast<std::size_t>(size), 0xEE);
      const c::context ctx{buf.data(), size};
      for (int call = 0; call < 2; ++call) {
        std::fill(out.begin(), out.end(), std::int16_t{0x5A5A});
        REQUIRE(c::fully_connected_s16(&ctx, &fc, &qp, &in_d, v.input, &f_d, v.weights, &b_d, v.bias, &o_d,
                                       out.data()) == status::ok);
        for (int i = 0; i < v.batches * v.rows; ++i) CHECK(out[static_cast<std::size_t>(i)] == v.output_ref[i]);
      }
      const auto untouched = std::count(buf.begin(), buf.end(), std::uint8_t{0xEE});
      if (size < need || !k::linear_s16_cache_pays(v.rows)) CHECK(untouched == size);
      else CHECK(untouched < size);
      c::reset_context_cache(&ctx, &f_d);
    }
    // the packed kernel itself (this set has 11 rows, which the cache leaves row-major) against the vector
    const k::linear_s16_args a = armlower_test::to_args(v, out.data());
    std::vector<std::uint8_t> packed(k::linear_s16_packed_size(v.rows, v.cols) + 64);
    std::uint8_t* base = packed.data() + (64 - reinterpret_cast<std::uintptr_t>(packed.data()) % 64) % 64;
    REQUIRE(k::pack_linear_s16(a, base, packed.size() - 64) == status::ok);
    std::fill(out.begin(), out.end(), std::int16_t{0x5A5A});
    REQUIRE(k::linear_s16_packed(a, base, packed.size() - 64) == status::ok);
    for (int i = 0; i < v.batches * v.rows; ++i) CHECK(out[static_cast<std::size_t>(i)] == v.output_ref[i]);
    fc.input_offset = 1;
    CHECK(c::fully_connected_s16(nullptr, &fc, &qp, &in_d, v.input, &f_d, v.weights, &b_d, v.bias, &o_d,
                                 out.data()) == status::zero_point_out_of_range);
  }
}

TEST_CASE("compat: bad input gives a status, never UB") {
  const auto& v = armlower_test::fc_s8_vectors[0];
  auto s = setup(v, convention::executorch_sum_only);
  c::per_tensor_quant_params qp{v.multiplier[0], v.shift[0]};
  std::vector<std::int8_t> out(static_cast<std::size_t>(v.batches * v.rows));
  auto call = [&](c::context* ctx, const c::fc_params& fc, const c::per_tensor_quant_params& q, const c::dims& in_d,
                  const std::int8_t* input, const c::dims& f_d, const std::int8_t* w, const c::dims& o_d,
                  std::int8_t* o) {
    return c::fully_connected_s8(ctx, &fc, &q, &in_d, input, &f_d, w, &s.b_d, nullptr, &o_d, o);
  };
  CHECK(call(&s.ctx, s.fc, qp, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) == status::ok);
  // misaligned / too small kernel_sum buffer
  std::vector<std::int32_t> big(static_cast<std::size_t>(v.rows) + 1);
  c::context mis{reinterpret_cast<char*>(big.data()) + 1, v.rows * 4};
  CHECK(call(&mis, s.fc, qp, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) == status::scratch_misaligned);
  c::context small{s.buf.data(), v.rows * 4 - 4};
  CHECK(call(&small, s.fc, qp, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) == status::scratch_too_small);
  // null data pointers and structs
  CHECK(call(&s.ctx, s.fc, qp, s.in_d, nullptr, s.f_d, v.weights, s.o_d, out.data()) == status::null_pointer);
  CHECK(call(&s.ctx, s.fc, qp, s.in_d, v.input, s.f_d, nullptr, s.o_d, out.data()) == status::null_pointer);
  CHECK(call(&s.ctx, s.fc, qp, s.in_d, v.input, s.f_d, v.weights, s.o_d, nullptr) == status::null_pointer);
  CHECK(c::fully_connected_s8(&s.ctx, &s.fc, nullptr, &s.in_d, v.input, &s.f_d, v.weights, &s.b_d, nullptr, &s.o_d,
                              out.data()) == status::null_pointer);
  // K = 0, batches = 0, shape mismatch
  c::dims f0 = s.f_d;
  f0.n = 0;
  CHECK(call(&s.ctx, s.fc, qp, s.in_d, v.input, f0, v.weights, s.o_d, out.data()) == status::empty_dimension);
  c::dims in0 = s.in_d;
  in0.n = 0;
  CHECK(call(&s.ctx, s.fc, qp, in0, v.input, s.f_d, v.weights, s.o_d, out.data()) == status::empty_dimension);
  c::dims fbad = s.f_d;
  fbad.c = v.rows + 1;
  CHECK(call(&s.ctx, s.fc, qp, s.in_d, v.input, fbad, v.weights, s.o_d, out.data()) == status::shape_mismatch);
  // shift out of range, negative multiplier
  CHECK(call(&s.ctx, s.fc, {v.multiplier[0], 31}, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) ==
        status::shift_out_of_range);
  CHECK(call(&s.ctx, s.fc, {v.multiplier[0], -32}, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) ==
        status::shift_out_of_range);
  CHECK(call(&s.ctx, s.fc, {-5, -3}, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) ==
        status::multiplier_out_of_range);
  // bad activation range, bad offsets
  c::fc_params fc = s.fc;
  fc.activation = {10, -10};
  CHECK(call(&s.ctx, fc, qp, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) == status::activation_range_invalid);
  fc.activation = {-129, 127};
  CHECK(call(&s.ctx, fc, qp, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) == status::activation_range_invalid);
  fc = s.fc;
  fc.input_offset = 300;
  CHECK(call(&s.ctx, fc, qp, s.in_d, v.input, s.f_d, v.weights, s.o_d, out.data()) == status::zero_point_out_of_range);
  CHECK(c::to_cmsis_status(status::shift_out_of_range) == c::cmsis_status::arg_error);
  // vector sums
  CHECK(c::vector_sum_s8(nullptr, 4, 4, v.weights, 1, 0, nullptr) == status::null_pointer);
  CHECK(c::vector_sum_s8(s.buf.data(), 0, 4, v.weights, 1, 0, nullptr) == status::empty_dimension);
  std::int64_t s64[2];
  const std::int64_t b64[2] = {5, -5};
  const std::int8_t w2[6] = {1, 2, 3, -1, -2, -3};
  REQUIRE(c::vector_sum_s8_s64(s64, 3, 2, w2, 10, b64) == status::ok);
  CHECK(s64[0] == 65);
  CHECK(s64[1] == -65);
}

TEST_CASE("native API bad input: linear_s8 / linear_s16 / conv2d / matmul") {
  std::int8_t x[4] = {1, 2, 3, 4}, w[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[2];
  std::int32_t m = 1 << 30, sh = -1;
  k::linear_s8_args a;
  a.input = x; a.weights = w; a.output = y; a.batches = 1; a.cols = 4; a.rows = 2; a.multiplier = &m; a.shift = &sh;
  CHECK(k::linear_s8(a) == status::ok);
  auto b = a; b.cols = 0; CHECK(k::linear_s8(b) == status::empty_dimension);
  b = a; b.rows = -1; CHECK(k::linear_s8(b) == status::empty_dimension);
  b = a; b.input = nullptr; CHECK(k::linear_s8(b) == status::null_pointer);
  b = a; b.shift = nullptr; CHECK(k::linear_s8(b) == status::null_pointer);
  std::int32_t pc_shift[2] = {-31, 31};
  std::int32_t pc_mult[2] = {1 << 30, 1 << 30};
  b = a; b.per_channel = true; b.multiplier = pc_mult; b.shift = pc_shift;
  CHECK(k::linear_s8(b) == status::shift_out_of_range);  // second channel's shift is out of range
  pc_shift[1] = 30; CHECK(k::linear_s8(b) == status::ok);
  b = a; b.rounding = static_cast<armlower::quant::rounding>(0); CHECK(k::linear_s8(b) == status::invalid_attribute);
  b = a; b.filter_offset = -256; CHECK(k::linear_s8(b) == status::zero_point_out_of_range);
  b = a; b.activation_max = 128; CHECK(k::linear_s8(b) == status::activation_range_invalid);
  CHECK(k::linear_s8(a, k::linear_path::arm_mve) == (k::path_available(k::linear_path::arm_mve) ? status::ok : status::unsupported_path));
  std::int16_t x16[4] = {1, 2, 3, 4}, y16[2];
  k::linear_s16_args s;
  s.input = x16; s.weights = w; s.output = y16; s.batches = 1; s.cols = 4; s.rows = 2; s.multiplier = &m; s.shift = &sh;
  CHECK(k::linear_s16(s) == status::ok);
  auto t = s; t.shift = &pc_shift[1]; pc_shift[1] = 15; CHECK(k::linear_s16(t) == status::shift_out_of_range);
  t = s; t.activation_min = -40000; CHECK(k::linear_s16(t) == status::activation_range_invalid);
  t = s; t.weights = nullptr; CHECK(k::linear_s16(t) == status::null_pointer);
  t = s; t.batches = 0; CHECK(k::linear_s16(t) == status::empty_dimension);
  // CONV2D / MATMUL ERROR_IFs
  k::conv2d_shape cs;
  cs.ic = 4; cs.oc = 2;
  std::int32_t bias[2] = {0, 0}, o32[2];
  CHECK(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(cs, x, w, bias, 0, 0, o32) == status::ok);
  CHECK(o32[0] == 30);
  CHECK(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(cs, x, w, nullptr, 0, 0, o32) == status::null_pointer);
  auto cs2 = cs; cs2.stride[0] = 0;
  CHECK(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(cs2, x, w, bias, 0, 0, o32) == status::invalid_attribute);
  cs2 = cs; cs2.pad[1] = -1;
  CHECK(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(cs2, x, w, bias, 0, 0, o32) == status::invalid_attribute);
  cs2 = cs; cs2.bias_size = 3;
  CHECK(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(cs2, x, w, bias, 0, 0, o32) == status::shape_mismatch);
  cs2 = cs; cs2.ih = 4; cs2.kh = 2; cs2.stride[0] = 2;  // (4-1-1)/2 exact; make it inexact:
  cs2.ih = 5;
  CHECK(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(cs2, x, w, bias, 0, 0, o32) == status::shape_mismatch);
  std::int64_t b48[2] = {0, 0}, o48[2];
  CHECK(k::conv2d<std::int16_t, std::int8_t, std::int64_t>(cs, x16, w, b48, 1, 0, o48) == status::zero_point_out_of_range);
  b48[0] = std::int64_t{1} << 47;
  CHECK(k::conv2d<std::int16_t, std::int8_t, std::int64_t>(cs, x16, w, b48, 0, 0, o48) == status::value_out_of_range);
  b48[0] = (std::int64_t{1} << 47) - 1;  // + Σ > 0 overflows int48: REQUIRE
  CHECK(k::conv2d<std::int16_t, std::int8_t, std::int64_t>(cs, x16, w, b48, 0, 0, o48) == status::value_out_of_range);
  bias[0] = INT32_MAX;
  CHECK(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(cs, x, w, bias, 0, 0, o32) == status::value_out_of_range);
  k::matmul_shape ms{1, 1, 4, 2};
  std::int16_t bm[8] = {};
  CHECK(k::matmul<std::int16_t, std::int64_t>(ms, x16, bm, 1, 0, o48) == status::zero_point_out_of_range);
  CHECK(k::matmul<std::int16_t, std::int64_t>(ms, x16, bm, 0, 0, nullptr) == status::null_pointer);
  ms.c = 0;
  CHECK(k::matmul<std::int16_t, std::int64_t>(ms, x16, bm, 0, 0, o48) == status::empty_dimension);
}

TEST_CASE("TOSA form (CONV2D 1x1 + RESCALE + CLAMP) reproduces every CMSIS-NN vector set") {
  for (const auto& v : armlower_test::fc_s8_vectors) {
    CAPTURE(v.name);
    k::conv2d_shape cs;
    cs.n = v.batches;
    cs.ic = v.cols;
    cs.oc = v.rows;
    cs.bias_size = v.rows;
    std::vector<std::int32_t> zero_bias(static_cast<std::size_t>(v.rows), 0);
    std::vector<std::int32_t> acc(static_cast<std::size_t>(v.batches * v.rows));
    REQUIRE(k::conv2d<std::int8_t, std::int8_t, std::int32_t>(
                cs, v.input, v.weights, v.bias != nullptr ? v.bias : zero_bias.data(),
                static_cast<std::int8_t>(-v.input_offset), static_cast<std::int8_t>(-v.filter_offset),
                acc.data()) == status::ok);
    const int nm = v.per_channel ? v.rows : 1;
    std::vector<std::int32_t> mult(static_cast<std::size_t>(nm)), shift(static_cast<std::size_t>(nm));
    for (int i = 0; i < nm; ++i) {
      armlower::quant::tosa_multiplier t{};
      REQUIRE(armlower::quant::tosa_from_tflite({v.multiplier[i], v.shift[i]}, t) == status::ok);
      mult[static_cast<std::size_t>(i)] = t.multiplier;
      shift[static_cast<std::size_t>(i)] = t.shift;
    }
    std::vector<std::int8_t> out(acc.size());
    k::rescale_args r;
    r.in_t = armlower::dtype::id::i32;
    r.out_t = armlower::dtype::id::i8;
    r.input = acc.data();
    r.output = out.data();
    r.count = acc.size();
    r.channels = v.rows;
    r.per_channel = v.per_channel;
    r.multiplier = mult.data();
    r.shift = shift.data();
    r.output_zp = v.output_offset;
    r.rounding = armlower::quant::rounding::double_round;  // TFLite / CMSIS-NN default
    REQUIRE(k::rescale(r) == status::ok);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const int y = out[i] < v.activation_min ? v.activation_min : (out[i] > v.activation_max ? v.activation_max : out[i]);
      CAPTURE(i);
      CHECK(y == v.output_ref[i]);
    }
  }
  // a16w8: CONV2D i16×i8→i48 (INT48 bias) + RESCALE INT48→INT16 with 16-bit multipliers (scale32 = false).
  for (const auto& v : armlower_test::fc_s16_vectors) {
    k::conv2d_shape cs;
    cs.n = v.batches;
    cs.ic = v.cols;
    cs.oc = v.rows;
    cs.bias_size = v.rows;
    std::vector<std::int64_t> acc(static_cast<std::size_t>(v.batches * v.rows));
    REQUIRE(k::conv2d<std::int16_t, std::int8_t, std::int64_t>(cs, v.input, v.weights, v.bias, 0, 0, acc.data()) ==
            status::ok);
    armlower::quant::tosa_multiplier t{};
    REQUIRE(armlower::quant::tosa16_from_tflite({v.multiplier, v.shift}, t) == status::ok);
    std::vector<std::int16_t> out(acc.size());
    k::rescale_args r;
    r.in_t = armlower::dtype::id::i48;
    r.out_t = armlower::dtype::id::i16;
    r.input = acc.data();
    r.output = out.data();
    r.count = acc.size();
    r.multiplier = &t.multiplier;
    r.shift = &t.shift;
    r.scale32 = false;
    REQUIRE(k::rescale(r) == status::ok);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const int y = out[i] < v.activation_min ? v.activation_min : (out[i] > v.activation_max ? v.activation_max : out[i]);
      CHECK(y == v.output_ref[i]);
    }
  }
}
