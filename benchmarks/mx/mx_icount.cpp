// Cortex-M55 instruction counts of MATMUL_T_BLOCK_SCALED (measured with /work/shared/tools/m55-icount,
// which counts instructions between armlower_bench_begin() and armlower_bench_end()).
// ARMLOWER_BENCH_PATH: 0 = pseudocode (reference), 1 = exact integer (generic), 2 = MVE.
// Pairs, in order: for FP8E4M3, FP6E2M3, FP4E2M1: GEMV (batch 1) then GEMM batch 8,
// weights [N = 64, K = 512], activations [batch, 512] (32768 MACs per batch row).
#include <cstdint>
#include <cstdio>

#include <armlower/kernels/mx/matmul_t_block_scaled.hpp>
#include <armlower/mx.hpp>

#include "armlower_firmware.hpp"

namespace {
using armlower::dtype::id;
namespace mx = armlower::mx;
namespace kmx = armlower::kernels::mx;

constexpr int N = 64, K = 512, max_batch = 8;
std::uint8_t w_data[N * K], w_scale[N * K / 32], a_data[max_batch * K], a_scale[max_batch * K / 32];
float out[max_batch * N];

std::uint32_t rng_state = 12345u;
std::uint32_t next() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

#ifndef ARMLOWER_BENCH_PATH
#define ARMLOWER_BENCH_PATH 0
#endif
constexpr kmx::matmul_path path = ARMLOWER_BENCH_PATH == 2   ? kmx::matmul_path::mve
                                  : ARMLOWER_BENCH_PATH == 1 ? kmx::matmul_path::integer
                                                             : kmx::matmul_path::reference;

__attribute__((noinline)) mx::status call(id t, const kmx::block_scaled_view& a, const kmx::block_scaled_view& b,
                                          std::span<float> o) {
  return kmx::matmul_t_block_scaled(t, a, b, o, path);
}
}  // namespace

int main() {
  int bad = 0;
  for (id t : {id::fp8e4m3, id::fp6e2m3, id::fp4e2m1}) {
    const std::size_t mask = mx::decode_table(t).size() - 1;
    for (auto& v : w_data) v = static_cast<std::uint8_t>(next() & 0xFF);
    for (auto& v : a_data) v = static_cast<std::uint8_t>(next() & 0xFF);
    if (t != id::fp4e2m1)
      for (auto& v : w_data) v = static_cast<std::uint8_t>(v & mask);
    if (t == id::fp8e4m3) {  // no NaN codes
      for (auto& v : w_data) v = (v & 0x7F) == 0x7F ? 0x7E : v;
      for (auto& v : a_data) v = (v & 0x7F) == 0x7F ? 0x7E : v;
    }
    for (auto& v : w_scale) v = static_cast<std::uint8_t>(120 + next() % 10);
    for (auto& v : a_scale) v = static_cast<std::uint8_t>(120 + next() % 10);
    for (const int batch : {1, max_batch}) {
      const std::int32_t ash[3] = {1, batch, K}, ass[3] = {1, batch, K / 32}, wsh[3] = {1, N, K}, wss[3] = {1, N, K / 32};
      const kmx::block_scaled_view a{{a_data, mx::storage_bytes(t, std::size_t(batch) * K)}, ash,
                                     {a_scale, std::size_t(batch) * K / 32}, ass};
      const kmx::block_scaled_view w{{w_data, mx::storage_bytes(t, std::size_t(N) * K)}, wsh, {w_scale, N * K / 32}, wss};
      armlower_bench_begin();
      const mx::status s = call(t, a, w, std::span<float>(out, std::size_t(batch) * N));
      armlower_bench_end();
      bad += s != mx::status::ok;
      std::printf("%s batch %d: status %d out[0] %g\n", armlower::dtype::name(t).data(), batch, int(s), double(out[0]));
    }
  }
  return bad;
}
