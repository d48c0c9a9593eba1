// Cortex-M55 firmware test of the MX kernels (runs under QEMU, MVE and +nomve builds):
//  - CAST_TO_BLOCK_SCALED + MATMUL_T_BLOCK_SCALED against one TOSA reference-model case per element
//    type (tosa-tools 2026.8.0, data/tosa_matmul_firmware.inc): pseudocode path and the target's best
//    path bit-identical to the reference model where `bit_exact()` claims it;
//  - on MVE: the MVE path against the pseudocode path on random codes (bit-identical for FP4/FP6/MXINT8;
//    FP8 within the TOSA dot-product bound of the fp64 result, NaN where it is NaN).
#include <cstdint>
#include <cstring>

#include <armlower/kernels/mx/cast_to_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled.hpp>
#include <armlower/mx.hpp>

#include "armlower_firmware.hpp"

namespace {
#include "tosa_matmul_firmware.inc"

using armlower::dtype::id;
namespace mx = armlower::mx;
namespace kmx = armlower::kernels::mx;

std::uint8_t a_data[8 * 128], a_scale[64], b_data[16 * 1024], b_scale[512];
float a_f[1024], b_f[16 * 1024], out_ref[64], out_fast[64];

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void check_golden(id t, const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* want, const int* s) {
  const int n = s[0], h = s[1], w = s[2], d = s[3], c = s[4];
  const std::size_t na = std::size_t(n) * h * c, nb = std::size_t(d) * w * c;
  for (std::size_t i = 0; i < na; ++i) a_f[i] = from_bits(a[i]);
  for (std::size_t i = 0; i < nb; ++i) b_f[i] = from_bits(b[i]);
  const std::int32_t ash[3] = {n, h, c}, ass[3] = {n, h, c / 32}, bsh[3] = {d, w, c}, bss[3] = {d, w, c / 32};
  const std::span<std::uint8_t> ad(a_data, mx::storage_bytes(t, na)), asc(a_scale, na / 32);
  const std::span<std::uint8_t> bd(b_data, mx::storage_bytes(t, nb)), bsc(b_scale, nb / 32);
  ARMLOWER_FW_CHECK(kmx::cast_to_block_scaled(std::span<const float>(a_f, na), ash, t, ad, asc) == mx::status::ok);
  ARMLOWER_FW_CHECK(kmx::cast_to_block_scaled(std::span<const float>(b_f, nb), bsh, t, bd, bsc) == mx::status::ok);
  const kmx::block_scaled_view av{ad, ash, asc, ass}, bv{bd, bsh, bsc, bss};
  const std::size_t no = std::size_t(n) * h * w;
  ARMLOWER_FW_CHECK(kmx::matmul_t_block_scaled(t, av, bv, std::span<float>(out_ref, no), kmx::matmul_path::reference) ==
                    mx::status::ok);
  ARMLOWER_FW_CHECK(kmx::matmul_t_block_scaled(t, av, bv, std::span<float>(out_fast, no), kmx::matmul_path::best) ==
                    mx::status::ok);
  const bool exact = kmx::bit_exact(t, kmx::matmul_path::best);
  for (std::size_t i = 0; i < no; ++i) {
    ARMLOWER_FW_CHECK_EQ(bits(out_ref[i]), want[i]);
    if (exact) ARMLOWER_FW_CHECK_EQ(bits(out_fast[i]), want[i]);
    else {
      const float diff = out_fast[i] - from_bits(want[i]);
      ARMLOWER_FW_CHECK((diff < 0 ? -diff : diff) <= 1e-3f * (1.0f + (out_ref[i] < 0 ? -out_ref[i] : out_ref[i])));
    }
  }
}

std::uint32_t rng_state = 12345;
std::uint32_t next() {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

void check_mve_vs_reference(id t) {
  const int h = 3, w = 9, c = 320;  // 10 blocks: two MVE FP8 chunks of 8
  const std::size_t na = std::size_t(h) * c, nb = std::size_t(w) * c;
  const auto table = mx::decode_table(t);
  mx::packed_codes_mut pa(t, std::span<std::uint8_t>(a_data, mx::storage_bytes(t, na)), na);
  mx::packed_codes_mut pb(t, std::span<std::uint8_t>(b_data, mx::storage_bytes(t, nb)), nb);
  auto finite_code = [&] {  // NaN/Inf codes are checked separately below
    std::uint8_t code;
    do code = static_cast<std::uint8_t>(next() % table.size());
    while (!(table[code] - table[code] == 0.0f));
    return code;
  };
  for (std::size_t i = 0; i < na; ++i) pa.set(i, finite_code());
  for (std::size_t i = 0; i < nb; ++i) pb.set(i, finite_code());
  for (std::size_t i = 0; i < na / 32; ++i) a_scale[i] = static_cast<std::uint8_t>(112 + next() % 30);
  for (std::size_t i = 0; i < nb / 32; ++i) b_scale[i] = static_cast<std::uint8_t>(112 + next() % 30);
  const std::int32_t ash[3] = {1, h, c}, ass[3] = {1, h, c / 32}, bsh[3] = {1, w, c}, bss[3] = {1, w, c / 32};
  const kmx::block_scaled_view av{{a_data, mx::storage_bytes(t, na)}, ash, {a_scale, na / 32}, ass};
  const kmx::block_scaled_view bv{{b_data, mx::storage_bytes(t, nb)}, bsh, {b_scale, nb / 32}, bss};
  const std::size_t no = std::size_t(h) * w;
  ARMLOWER_FW_CHECK(kmx::matmul_t_block_scaled(t, av, bv, std::span<float>(out_ref, no), kmx::matmul_path::reference) ==
                    mx::status::ok);
  const auto st = kmx::matmul_t_block_scaled(t, av, bv, std::span<float>(out_fast, no), kmx::matmul_path::mve);
#if defined(__ARM_FEATURE_MVE)
  ARMLOWER_FW_CHECK(st == mx::status::ok);
  if (kmx::bit_exact(t, kmx::matmul_path::mve)) {
    for (std::size_t i = 0; i < no; ++i) ARMLOWER_FW_CHECK_EQ(bits(out_fast[i]), bits(out_ref[i]));
  } else {
    // TOSA dot-product bound (tosa.md §6) against the fp64 result: |out − ref64| ≤ 2·C·max(bnd·2^-24,
    // 2^-126) with bnd = Σ|a·b|·scales; NaN exactly where the fp64 result is NaN.
    const mx::packed_codes ca(t, std::span<const std::uint8_t>(a_data, mx::storage_bytes(t, na)), na);
    const mx::packed_codes cb(t, std::span<const std::uint8_t>(b_data, mx::storage_bytes(t, nb)), nb);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double ref = 0, bnd = 0;
        for (int k = 0; k < c; ++k) {
          const double sc = double(mx::decode_e8m0(a_scale[(y * c + k) / 32])) * double(mx::decode_e8m0(b_scale[(x * c + k) / 32]));
          const double p = double(mx::decode(t, ca[std::size_t(y) * c + k])) * double(mx::decode(t, cb[std::size_t(x) * c + k])) * sc;
          ref += p;
          bnd += p < 0 ? -p : p;
        }
        const double got = out_fast[y * w + x];
        ARMLOWER_FW_CHECK((ref != ref) == (got != got));
        if (ref != ref) continue;
        const double unit = bnd * 0x1p-24 > 0x1p-126 ? bnd * 0x1p-24 : 0x1p-126;
        const double err = (got - ref) / unit;
        ARMLOWER_FW_CHECK((err < 0 ? -err : err) <= 2.0 * c);
      }
  }
  if (mx::format(t).has_nan) {  // one NaN code in B row 1: column 1 is NaN, column 0 is not
    pb.set(std::size_t(c) + 5, mx::format(t).nan_mag);
    ARMLOWER_FW_CHECK(kmx::matmul_t_block_scaled(t, av, bv, std::span<float>(out_fast, no), kmx::matmul_path::mve) ==
                      mx::status::ok);
    for (int y = 0; y < h; ++y) {
      ARMLOWER_FW_CHECK(out_fast[y * w + 1] != out_fast[y * w + 1]);
      ARMLOWER_FW_CHECK(out_fast[y * w + 0] == out_fast[y * w + 0]);
    }
  }
#else
  ARMLOWER_FW_CHECK(st == mx::status::unsupported_path);
#endif
}

}  // namespace

int main() {
  check_golden(id::fp8e4m3, fp8e4m3_a, fp8e4m3_b, fp8e4m3_out, fp8e4m3_shape);
  check_golden(id::fp8e5m2, fp8e5m2_a, fp8e5m2_b, fp8e5m2_out, fp8e5m2_shape);
  check_golden(id::fp6e2m3, fp6e2m3_a, fp6e2m3_b, fp6e2m3_out, fp6e2m3_shape);
  check_golden(id::fp6e3m2, fp6e3m2_a, fp6e3m2_b, fp6e3m2_out, fp6e3m2_shape);
  check_golden(id::fp4e2m1, fp4e2m1_a, fp4e2m1_b, fp4e2m1_out, fp4e2m1_shape);
  check_golden(id::mxint8, mxint8_a, mxint8_b, mxint8_out, mxint8_shape);
  for (id t : {id::fp4e2m1, id::fp6e2m3, id::fp6e3m2, id::mxint8, id::fp8e4m3, id::fp8e5m2}) check_mve_vs_reference(t);
  return armlower::firmware::finish("firmware_mx");
}
