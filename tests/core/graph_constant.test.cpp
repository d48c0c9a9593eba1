// Constant payload encoding against the TOSA wire rules of tosa.md §4.6.
#include <armlower/graph/constant.hpp>
#include <doctest/doctest.h>

#include <vector>

using namespace armlower;

TEST_CASE("INT48 constants are 6 little-endian bytes and sign-extend on decode") {
  std::vector<std::int64_t> v{-1, (1LL << 47) - 1, -(1LL << 47), 0x0102030405};
  auto b = graph::encode_ints(dtype::id::i48, v);
  REQUIRE(b.size() == 24);
  CHECK(b[0] == 0xFF);
  CHECK(b[5] == 0xFF);
  CHECK(b[6 * 3 + 0] == 0x05);
  CHECK(b[6 * 3 + 4] == 0x01);
  CHECK(graph::decode_ints(dtype::id::i48, b, 4) == v);
}

TEST_CASE("INT4 packs two per byte, even index in the low nibble, and rejects -8") {
  std::vector<std::int64_t> v{1, -1, 7};
  auto b = graph::encode_ints(dtype::id::i4, v);
  REQUIRE(b.size() == 2);
  CHECK(b[0] == 0xF1);
  CHECK(b[1] == 0x07);
  CHECK(graph::decode_ints(dtype::id::i4, b, 3) == v);
  std::vector<std::int64_t> bad{-8};
  CHECK_THROWS_AS((void)graph::encode_ints(dtype::id::i4, bad), std::invalid_argument);
}

TEST_CASE("FP4 codes pack like INT4; FP8 codes are one byte") {
  std::vector<std::uint8_t> c{0x1, 0xF, 0x3};
  auto b = graph::encode_codes(dtype::id::fp4e2m1, c);
  REQUIRE(b.size() == 2);
  CHECK(b[0] == 0xF1);
  CHECK(graph::decode_codes(dtype::id::fp4e2m1, b, 3) == c);
  CHECK(graph::encode_codes(dtype::id::fp8e4m3, c).size() == 3);
}

TEST_CASE("FP32 round trip") {
  std::vector<float> f{1.5f, -0.0f, 3.0e38f};
  CHECK(graph::decode_f32(graph::encode_f32(f), 3) == f);
}
