// Block scales and MX quantization:
//  - CAST_TO_BLOCK_SCALED (fp32 and bf16 in) against the TOSA reference model of tosa-tools 2026.8.0
//    (data/tosa_cast_to_block_scaled.txt): every scale code and every data code, all six element types,
//    blocks at/around every scale-bump threshold, zero/NaN/Inf/subnormal/huge blocks;
//  - torchao to_mx FLOOR and RCEIL (data/torchao_to_mx.txt from torchao 0.18 itself; documented deviations);
//  - CAST_FROM_BLOCK_SCALED against the same reference-model data values, and every code point
//    (incl. the negative-zero codes, whose sign the output keeps) against ml_dtypes' decode × scale;
//  - bad input (rank 0, last dim % 32, scale/data shape mismatch, buffer sizes).
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <armlower/kernels/mx/cast_from_block_scaled.hpp>
#include <armlower/kernels/mx/cast_to_block_scaled.hpp>
#include <armlower/mx.hpp>

#include "golden.hpp"

using armlower::dtype::id;
namespace mx = armlower::mx;
namespace kmx = armlower::kernels::mx;

namespace {

struct cast_case {
  std::string type, input, mode;
  std::vector<std::vector<float>> in;
  std::vector<int> scale;
  std::vector<std::vector<int>> data;
};

std::vector<cast_case> read_cases(const char* file, const char* tag) {
  const auto g = mx_test::read_golden(file);
  std::vector<cast_case> out;
  for (const auto& l : g.lines) {
    if (l[0] == tag) out.push_back({l[1], l[2], l[2], {}, {}, {}});
    else if (l[0] == "in") out.back().in.push_back(mx_test::floats(l));
    else if (l[0] == "scale") out.back().scale.push_back(std::stoi(l[1]));
    else if (l[0] == "data") out.back().data.push_back(mx_test::ints(l));
  }
  return out;
}

std::vector<std::uint8_t> unpack(id t, const std::vector<std::uint8_t>& bytes, std::size_t n) {
  std::vector<std::uint8_t> c(n);
  const mx::packed_codes v(t, bytes, n);
  for (std::size_t i = 0; i < n; ++i) c[i] = v[i];
  return c;
}

}  // namespace

TEST_CASE("CAST_TO_BLOCK_SCALED agrees with the TOSA reference model (scales and data)") {
  const auto cases = read_cases("tosa_cast_to_block_scaled.txt", "cast");
  REQUIRE(cases.size() == 9);
  for (const auto& c : cases) {
    const id t = mx_test::type_of(c.type);
    CAPTURE(c.type);
    CAPTURE(c.input);
    const std::size_t rows = c.in.size();
    std::vector<float> x;
    for (const auto& r : c.in) x.insert(x.end(), r.begin(), r.end());
    const std::int32_t shape[2] = {static_cast<std::int32_t>(rows), 32};
    std::vector<std::uint8_t> data(mx::storage_bytes(t, x.size())), scale(rows);
    if (c.input == "bf16") {
      std::vector<std::uint16_t> xb(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) xb[i] = mx::fp32_to_bf16(x[i]);  // exact: inputs are bf16 values
      REQUIRE(kmx::cast_to_block_scaled(std::span<const std::uint16_t>(xb), shape, t, data, scale) == mx::status::ok);
    } else {
      REQUIRE(kmx::cast_to_block_scaled(std::span<const float>(x), shape, t, data, scale) == mx::status::ok);
    }
    const auto codes = unpack(t, data, x.size());
    int bad_scale = 0, bad_data = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      if (scale[r] != c.scale[r] && ++bad_scale < 5) {
        CAPTURE(r);
        CHECK(int(scale[r]) == c.scale[r]);
      }
      if (c.scale[r] == 255) continue;  // NaN block: element codes are implementation-defined
      for (int i = 0; i < 32; ++i) {
        const int want = c.data[r][i];
        const int got = codes[r * 32 + i];
        // -0 and +0 are the same value; the reference model's data are read back as values.
        const bool same = got == want || (mx::decode(t, std::uint8_t(got)) == 0.0f && mx::decode(t, std::uint8_t(want)) == 0.0f);
        if (!same && ++bad_data < 5) {
          CAPTURE(r);
          CAPTURE(i);
          CAPTURE(c.in[r][i]);
          CHECK(got == want);
        }
      }
    }
    CHECK(bad_scale == 0);
    CHECK(bad_data == 0);
  }
}

TEST_CASE("CAST_FROM_BLOCK_SCALED reproduces the reference model's values") {
  const auto cases = read_cases("tosa_cast_to_block_scaled.txt", "cast");
  for (const auto& c : cases) {
    if (c.input != "fp32") continue;
    const id t = mx_test::type_of(c.type);
    CAPTURE(c.type);
    const std::size_t rows = c.in.size();
    std::vector<std::uint8_t> codes(rows * 32), sc(c.scale.begin(), c.scale.end());
    for (std::size_t r = 0; r < rows; ++r)
      for (int i = 0; i < 32; ++i) codes[r * 32 + i] = static_cast<std::uint8_t>(c.data[r][i]);
    std::vector<std::uint8_t> packed(mx::storage_bytes(t, codes.size()));
    mx::packed_codes_mut pv(t, packed, codes.size());
    for (std::size_t i = 0; i < codes.size(); ++i) pv.set(i, codes[i]);
    const std::int32_t dshape[2] = {static_cast<std::int32_t>(rows), 32}, sshape[2] = {static_cast<std::int32_t>(rows), 1};
    std::vector<float> out(codes.size());
    REQUIRE(kmx::cast_from_block_scaled(t, packed, dshape, sc, sshape, out) == mx::status::ok);
    std::vector<std::uint16_t> out16(codes.size());
    REQUIRE(kmx::cast_from_block_scaled(t, packed, dshape, sc, sshape, std::span<std::uint16_t>(out16)) == mx::status::ok);
    for (std::size_t r = 0; r < rows; ++r) {
      for (int i = 0; i < 32; ++i) {
        const float v = out[r * 32 + i];
        if (c.scale[r] == 255) {
          CHECK(std::isnan(v));
          continue;
        }
        // CAST_FROM_BLOCK_SCALED: exactly element value × 2^(scale-127) (the reference model's data
        // and scale, so also what the reference model's CAST_FROM gives).
        const double want = double(mx::decode(t, codes[r * 32 + i])) * std::ldexp(1.0, c.scale[r] - 127);
        CHECK(v == static_cast<float>(want));  // RNE to fp32: 2^128 and above give Inf
        CHECK(mx::bf16_to_fp32(out16[r * 32 + i]) == mx::bf16_to_fp32(mx::fp32_to_bf16(v)));
      }
    }
  }
}

// TOSA 1.1 CAST_FROM_BLOCK_SCALED pseudocode: out = round_to_nearest_float<out_t>((fp32)x * (fp32)scale).
// The scale is positive (or NaN), so a negative-zero element code gives -0.0 (as the reference model
// returns it), never +0.0. Checked bit-for-bit for every code point of every float element type,
// with the element values and the E8M0 values taken from ml_dtypes 0.5.3 (data/elements.txt), not
// from armlower's tables; MXINT8 (not in ml_dtypes) is int8 × 2^-6 by the spec's definition.
TEST_CASE("CAST_FROM_BLOCK_SCALED keeps the sign of zero: every code × scale, bit-exact against ml_dtypes") {
  std::map<std::string, std::vector<std::uint32_t>> decode;  // ml_dtypes fp32 bits per code
  {
    const auto g = mx_test::read_golden("elements.txt");
    REQUIRE(g.header.find("ml_dtypes") != std::string::npos);
    std::vector<std::uint32_t>* cur = nullptr;
    for (const auto& l : g.lines) {
      if (l[0] == "format") cur = &decode[l[1]];
      else if (l[0] == "decode") cur->push_back(mx_test::hex32(l[2]));
    }
  }
  REQUIRE(decode.at("fp8ue8m0").size() == 256);
  const std::uint8_t scales[] = {0x00, 0x01, 0x60, 0x7F, 0x80, 0x9A, 0xFD, 0xFE, 0xFF};
  for (const char* name : {"fp8e4m3", "fp8e5m2", "fp6e2m3", "fp6e3m2", "fp4e2m1", "mxint8"}) {
    CAPTURE(name);
    const id t = mx_test::type_of(name);
    const std::size_t ncodes = mx::decode_table(t).size();
    std::vector<float> value(ncodes);  // the oracle's element values
    for (std::size_t c = 0; c < ncodes; ++c)
      value[c] = t == id::mxint8 ? static_cast<float>(static_cast<std::int8_t>(c)) / 64.0f
                                 : std::bit_cast<float>(decode.at(name).at(c));
    // Rows of 32: every code point in order, once per scale.
    const std::size_t per_scale = (ncodes + 31) / 32 * 32;
    const std::size_t n = per_scale * std::size(scales);
    std::vector<std::uint8_t> codes(n), sc(n / 32), packed(mx::storage_bytes(t, n));
    for (std::size_t i = 0; i < n; ++i) codes[i] = static_cast<std::uint8_t>(i % per_scale % ncodes);
    for (std::size_t b = 0; b < sc.size(); ++b) sc[b] = scales[b * 32 / per_scale];
    mx::packed_codes_mut pv(t, packed, n);
    for (std::size_t i = 0; i < n; ++i) pv.set(i, codes[i]);
    const std::int32_t dshape[2] = {static_cast<std::int32_t>(n / 32), 32};
    const std::int32_t sshape[2] = {static_cast<std::int32_t>(n / 32), 1};
    std::vector<float> out(n);
    std::vector<std::uint16_t> out16(n);
    REQUIRE(kmx::cast_from_block_scaled(t, packed, dshape, sc, sshape, out) == mx::status::ok);
    REQUIRE(kmx::cast_from_block_scaled(t, packed, dshape, sc, sshape, std::span<std::uint16_t>(out16)) ==
            mx::status::ok);
    std::vector<float> deq(n);  // the library-level dequantize (the fp32 kernel's body) agrees too
    REQUIRE(mx::dequantize(packed, sc, 32, t, deq) == mx::status::ok);
    int negative_zeros = 0;
    for (std::size_t i = 0; i < n; ++i) {
      CAPTURE(i);
      const float s = std::bit_cast<float>(decode.at("fp8ue8m0").at(sc[i / 32]));
      // fp32 × fp32 is exact in double (24 + 24 bits), so one rounding to float = the fp32 product.
      const float want = static_cast<float>(static_cast<double>(value[codes[i]]) * static_cast<double>(s));
      const std::uint32_t got = std::bit_cast<std::uint32_t>(out[i]);
      if (std::isnan(want)) {
        CHECK(std::isnan(out[i]));
        CHECK(std::isnan(deq[i]));
        CHECK((out16[i] & 0x7FFFu) > 0x7F80u);
        continue;
      }
      CHECK(got == std::bit_cast<std::uint32_t>(want));
      CHECK(std::bit_cast<std::uint32_t>(deq[i]) == std::bit_cast<std::uint32_t>(want));
      CHECK(out16[i] == mx::fp32_to_bf16(want));  // RNE of the same fp32 product
      if (want == 0.0f && std::signbit(want)) {
        ++negative_zeros;
        CHECK(got == 0x80000000u);
        CHECK(out16[i] == 0x8000u);
      }
    }
    // every float format has one negative-zero code, seen per_scale / ncodes times per finite scale
    // (FP4's 16 codes fill a row of 32 twice); MXINT8 has none
    const int reps = static_cast<int>(per_scale / ncodes);
    CHECK(negative_zeros == (t == id::mxint8 ? 0 : reps * (static_cast<int>(std::size(scales)) - 1)));
  }
}

// torchao's CPU `to_mx` (0.18, tests/mx/data/torchao_to_mx.txt) deviates from exact OCP FLOOR /
// RCEIL in three documented places (torchao/prototype/mx_formats/mx_tensor.py); armlower implements
// the exact rules (RCEIL = NVIDIA `cvt.rp.satfinite.ue8m0`, which torchao itself uses on sm_100).
// Every row must match torchao exactly, or be one of these deviations *and* match torchao's rule:
//  1. FLOOR, scale code 0: torchao divides by max(2^-127, 2^-126 = F32_MIN_NORMAL), i.e. data =
//     quantize(x · 2^126), a factor 2 below the exact quotient;
//  2. RCEIL, scale code 0: torchao's eager path uses a reciprocal of 1.0, data = quantize(x);
//  3. RCEIL, amax/max_pos within a few ulp above a power of two: torchao's `ceil(log2(descale))`
//     in fp32 rounds log2 to the integer below, one scale step under the exact rule; its data then
//     follows its own scale.
TEST_CASE("MX quantization agrees with torchao to_mx FLOOR and RCEIL") {
  const auto cases = read_cases("torchao_to_mx.txt", "to_mx");
  REQUIRE(cases.size() == 10);
  int deviations[4] = {0, 0, 0, 0};  // exact, 1, 2, 3
  for (const auto& c : cases) {
    const id t = mx_test::type_of(c.type);
    const mx::scale_mode mode = c.mode == "floor" ? mx::scale_mode::floor : mx::scale_mode::rceil;
    CAPTURE(c.type);
    CAPTURE(c.mode);
    std::vector<float> x;
    for (const auto& r : c.in) x.insert(x.end(), r.begin(), r.end());
    std::vector<std::uint8_t> data(mx::storage_bytes(t, x.size())), scale(c.in.size());
    REQUIRE(mx::quantize(x, 32, t, mode, data, scale) == mx::status::ok);
    const auto codes = unpack(t, data, x.size());
    // torchao's saturating cast of x · factor (clamp to ±max, then RNE), as codes
    auto torchao_codes = [&](std::size_t r, float factor) {
      std::vector<int> out(32);
      const float mx_val = mx::max_normal(t);
      for (int i = 0; i < 32; ++i) {
        const float v = std::clamp(c.in[r][i] * factor, -mx_val, mx_val);
        out[i] = mx::encode(t, v);
      }
      return out;
    };
    int bad = 0;
    for (std::size_t r = 0; r < c.in.size(); ++r) {
      CAPTURE(r);
      const std::vector<int> ours(codes.begin() + std::ptrdiff_t(r * 32), codes.begin() + std::ptrdiff_t(r * 32 + 32));
      if (scale[r] == c.scale[r] && ours == c.data[r]) {
        ++deviations[0];
        continue;
      }
      if (mode == mx::scale_mode::floor && c.scale[r] == 0 && scale[r] == 0) {
        ++deviations[1];
        bad += torchao_codes(r, 0x1p126f) != c.data[r];
      } else if (mode == mx::scale_mode::rceil && c.scale[r] == 0 && scale[r] == 0) {
        ++deviations[2];
        bad += torchao_codes(r, 1.0f) != c.data[r];
      } else if (mode == mx::scale_mode::rceil && c.scale[r] + 1 == scale[r]) {
        float amax = 0;
        for (float v : c.in[r]) amax = std::max(amax, std::fabs(v));
        const float descale = amax / mx::max_normal(t);
        const float p2 = std::ldexp(1.0f, std::ilogb(descale));  // the power of two just below
        ++deviations[3];
        bad += !(descale > p2 && descale <= p2 * (1.0f + 0x1p-20f));
        bad += torchao_codes(r, std::ldexp(1.0f, 127 - c.scale[r])) != c.data[r];
      } else {
        ++bad;
        CHECK(int(scale[r]) == c.scale[r]);
      }
    }
    CHECK(bad == 0);
  }
  MESSAGE("torchao rows: " << deviations[0] << " identical, " << deviations[1] << " FLOOR code-0, " << deviations[2]
                           << " RCEIL code-0, " << deviations[3] << " RCEIL log2-rounding");
  CHECK(deviations[0] > 1500);  // the deviations stay the exception
}

TEST_CASE("scale rules: thresholds of kernels.md §4.2") {
  using mx::scale_mode;
  // amax = m · 2^2 for FP4 (emax 2): FLOOR never bumps; TOSA bumps from m = 1.75; RCEIL from m > 1.5;
  // EVEN from m >= 1.75; CEIL for any m > 1.
  auto s = [](float m, scale_mode md) { return int(mx::block_scale(m * 4.0f, id::fp4e2m1, md)) - 127; };
  CHECK(s(1.74f, scale_mode::tosa) == 0);
  CHECK(s(1.75f, scale_mode::tosa) == 1);
  CHECK(s(1.99f, scale_mode::floor) == 0);
  CHECK(s(1.5f, scale_mode::rceil) == 0);
  CHECK(s(1.51f, scale_mode::rceil) == 1);
  CHECK(s(1.74f, scale_mode::even) == 0);
  CHECK(s(1.75f, scale_mode::even) == 1);
  CHECK(s(1.0f, scale_mode::ceil) == 0);
  CHECK(s(1.01f, scale_mode::ceil) == 1);
  // E4M3 TOSA: ceil rule, 464 = 1.8125·256 does not bump, the next fp32 does; EVEN bumps only at 1.9375
  CHECK(mx::block_scale(464.0f, id::fp8e4m3, scale_mode::tosa) == 127);
  CHECK(mx::block_scale(std::nextafter(464.0f, 1e9f), id::fp8e4m3, scale_mode::tosa) == 128);
  CHECK(mx::block_scale(480.0f, id::fp8e4m3, scale_mode::even) == 127);
  CHECK(mx::block_scale(496.0f, id::fp8e4m3, scale_mode::even) == 128);
  // specials, every mode
  for (auto md : {scale_mode::tosa, scale_mode::floor, scale_mode::ceil, scale_mode::even, scale_mode::rceil}) {
    CHECK(mx::block_scale(0.0f, id::fp8e5m2, md) == 0x00);
    CHECK(mx::block_scale(NAN, id::fp8e5m2, md) == 0xFF);
    CHECK(mx::block_scale(INFINITY, id::fp6e2m3, md) == 0xFF);
    CHECK(mx::block_scale(1e-45f, id::fp6e2m3, md) == 0x00);  // clamps at 2^-127
  }
  CHECK(mx::block_scale(3.0e38f, id::mxint8, scale_mode::tosa) == 0xFE);  // clipped to 2^127
}

TEST_CASE("bad input: error statuses, nothing written") {
  std::vector<float> x(64, 1.0f);
  std::vector<std::uint8_t> data(64, 0xAA), scale(2, 0xAA);
  const std::int32_t ok_shape[2] = {2, 32};
  const std::int32_t bad_last[2] = {2, 30};
  const std::int32_t rank0[1] = {0};
  CHECK(kmx::cast_to_block_scaled(std::span<const float>(x), std::span<const std::int32_t>(), id::fp8e4m3, data, scale) ==
        mx::status::bad_rank);
  CHECK(kmx::cast_to_block_scaled(std::span<const float>(x.data(), 60), bad_last, id::fp8e4m3, data, scale) ==
        mx::status::bad_block_dim);
  CHECK(kmx::cast_to_block_scaled(std::span<const float>(x), std::span<const std::int32_t>(rank0, 1), id::fp8e4m3, data,
                                  scale) == mx::status::empty_dimension);
  CHECK(kmx::cast_to_block_scaled(std::span<const float>(x), ok_shape, id::fp32, data, scale) ==
        mx::status::unsupported_type);
  CHECK(kmx::cast_to_block_scaled(std::span<const float>(x), ok_shape, id::fp4e2m1, data, scale) ==
        mx::status::buffer_size);  // FP4 needs 32 bytes, not 64
  CHECK(data[0] == 0xAA);
  CHECK(scale[0] == 0xAA);
  CHECK(mx::quantize(x, 48, id::fp8e4m3, mx::scale_mode::tosa, data, scale) == mx::status::bad_block_dim);
  // CAST_FROM: scale shape must be data shape with last dim / 32
  std::vector<float> out(64);
  const std::int32_t s_ok[2] = {2, 1}, s_bad[2] = {2, 2}, s_rank[1] = {2};
  CHECK(kmx::cast_from_block_scaled(id::fp8e4m3, data, ok_shape, scale, s_bad, out) == mx::status::shape_mismatch);
  CHECK(kmx::cast_from_block_scaled(id::fp8e4m3, data, ok_shape, scale, s_rank, out) == mx::status::shape_mismatch);
  CHECK(kmx::cast_from_block_scaled(id::fp8e4m3, data, bad_last, scale, s_ok, out) == mx::status::bad_block_dim);
  CHECK(kmx::cast_from_block_scaled(id::fp8e4m3, data, ok_shape, scale, s_ok, std::span<float>(out.data(), 63)) ==
        mx::status::buffer_size);
  CHECK(std::string(mx::to_string(mx::status::bad_block_dim)).find("32") != std::string::npos);
  // NaN/Inf input: the spec's NaN scale, not an error
  x[3] = NAN;
  x[40] = -INFINITY;
  REQUIRE(kmx::cast_to_block_scaled(std::span<const float>(x), ok_shape, id::fp8e4m3, data, scale) == mx::status::ok);
  CHECK(scale[0] == 0xFF);
  CHECK(scale[1] == 0xFF);
  REQUIRE(kmx::cast_from_block_scaled(id::fp8e4m3, data, ok_shape, scale, s_ok, out) == mx::status::ok);
  CHECK(std::isnan(out[0]));
  CHECK(std::isnan(out[63]));
}
