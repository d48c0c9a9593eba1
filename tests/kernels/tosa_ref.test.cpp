// RESCALE, CONV2D and MATMUL kernels bit-exact against the TOSA reference model (tosa-tools), on
// the cases in goldens/tosa_ref.txt (made by goldens/gen_tosa_goldens.py; format documented there).
// fp32 CONV2D/MATMUL are compared with a relative tolerance (the spec's fp32 accumulation order is
// implementation-defined); integer results must be identical.
#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/matmul.hpp>
#include <armlower/kernels/rescale.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace k = armlower::kernels;
using armlower::status;
namespace dt = armlower::dtype;

namespace {

std::string golden_path() { return std::string(ARMLOWER_TEST_GOLDENS) + "/tosa_ref.txt"; }

template <class T>
std::vector<T> read_line(std::istream& in) {
  std::string line;
  std::getline(in, line);
  std::istringstream ss(line);
  std::vector<T> v;
  std::string tok;
  while (ss >> tok) {
    if constexpr (std::is_floating_point_v<T>) v.push_back(static_cast<T>(std::strtod(tok.c_str(), nullptr)));
    else v.push_back(static_cast<T>(std::strtoll(tok.c_str(), nullptr, 10)));
  }
  return v;
}

dt::id parse_dt(const std::string& s) {
  dt::id d{};
  REQUIRE(dt::from_name(s, d));
  return d;
}

template <class T>
std::vector<T> cast_vec(const std::vector<std::int64_t>& v) {
  return std::vector<T>(v.begin(), v.end());
}

void run_rescale(std::istringstream& h, std::istream& in, int& n) {
  std::string in_s, out_s;
  int scale32, rnd, pc, iu, ou, izp, ozp, ch;
  std::size_t count;
  h >> in_s >> out_s >> scale32 >> rnd >> pc >> iu >> ou >> izp >> ozp >> ch >> count;
  auto mult = read_line<std::int32_t>(in);
  auto shift = read_line<std::int32_t>(in);
  auto x = read_line<std::int64_t>(in);
  auto y = read_line<std::int64_t>(in);
  REQUIRE(x.size() == count);
  REQUIRE(y.size() == count);
  k::rescale_args a;
  a.in_t = parse_dt(in_s);
  a.out_t = parse_dt(out_s);
  a.count = count;
  a.channels = ch;
  a.multiplier = mult.data();
  a.shift = shift.data();
  a.input_zp = izp;
  a.output_zp = ozp;
  a.scale32 = scale32 != 0;
  a.rounding = static_cast<armlower::quant::rounding>(rnd);
  a.per_channel = pc != 0;
  a.input_unsigned = iu != 0;
  a.output_unsigned = ou != 0;
  auto xi8 = cast_vec<std::int8_t>(x);
  auto xi16 = cast_vec<std::int16_t>(x);
  auto xi32 = cast_vec<std::int32_t>(x);
  switch (a.in_t) {
    case dt::id::i8: a.input = xi8.data(); break;
    case dt::id::i16: a.input = xi16.data(); break;
    case dt::id::i32: a.input = xi32.data(); break;
    default: a.input = x.data(); break;
  }
  std::vector<std::int8_t> o8(count);
  std::vector<std::int16_t> o16(count);
  std::vector<std::int32_t> o32(count);
  a.output = a.out_t == dt::id::i8 ? static_cast<void*>(o8.data())
                                   : a.out_t == dt::id::i16 ? static_cast<void*>(o16.data()) : o32.data();
  CAPTURE(h.str());
  REQUIRE(k::rescale(a) == status::ok);
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t got = a.out_t == dt::id::i8 ? o8[i] : a.out_t == dt::id::i16 ? o16[i] : o32[i];
    CAPTURE(i);
    CHECK(got == y[i]);
  }
  ++n;
}

template <class In, class Out>
void conv_row(const k::conv2d_shape& s, int izp, int wzp, std::istream& in, bool is_float) {
  using W = std::conditional_t<std::is_same_v<In, float>, float, std::int8_t>;
  std::vector<In> x;
  std::vector<W> w;
  std::vector<Out> b;
  std::vector<double> ref;
  if (is_float) {
    auto xf = read_line<float>(in), wf = read_line<float>(in), bf = read_line<float>(in);
    x.assign(xf.begin(), xf.end());
    w.assign(wf.begin(), wf.end());
    b.assign(bf.begin(), bf.end());
    auto r = read_line<double>(in);
    ref = r;
  } else {
    auto xv = read_line<std::int64_t>(in), wv = read_line<std::int64_t>(in), bv = read_line<std::int64_t>(in);
    x.assign(xv.begin(), xv.end());
    w.assign(wv.begin(), wv.end());
    b.assign(bv.begin(), bv.end());
    auto r = read_line<std::int64_t>(in);
    ref.assign(r.begin(), r.end());
  }
  std::int32_t oh = 0, ow = 0;
  REQUIRE(k::conv2d_output_size(s, oh, ow) == status::ok);
  std::vector<Out> out(static_cast<std::size_t>(s.n) * oh * ow * s.oc);
  REQUIRE(out.size() == ref.size());
  REQUIRE(k::conv2d<In, W, Out>(s, x.data(), w.data(), b.data(), static_cast<In>(izp), static_cast<W>(wzp),
                                out.data()) == status::ok);
  for (std::size_t i = 0; i < out.size(); ++i) {
    CAPTURE(i);
    if (is_float) CHECK(std::abs(static_cast<double>(out[i]) - ref[i]) <= 1e-5 * (1.0 + std::abs(ref[i])));
    else CHECK(static_cast<double>(out[i]) == ref[i]);
  }
}

void run_conv(std::istringstream& h, std::istream& in, int& n) {
  std::string row;
  k::conv2d_shape s;
  int izp, wzp;
  h >> row >> s.n >> s.ih >> s.iw >> s.ic >> s.oc >> s.kh >> s.kw >> s.bias_size >> s.pad[0] >> s.pad[1] >> s.pad[2] >>
      s.pad[3] >> s.stride[0] >> s.stride[1] >> s.dilation[0] >> s.dilation[1] >> izp >> wzp;
  CAPTURE(h.str());
  if (row == "i8") conv_row<std::int8_t, std::int32_t>(s, izp, wzp, in, false);
  else if (row == "i16") conv_row<std::int16_t, std::int64_t>(s, izp, wzp, in, false);
  else conv_row<float, float>(s, izp, wzp, in, true);
  ++n;
}

template <class In, class Out>
void matmul_row(const k::matmul_shape& s, int azp, int bzp, std::istream& in, bool is_float) {
  std::vector<In> a, b;
  std::vector<double> ref;
  if (is_float) {
    auto af = read_line<float>(in), bf = read_line<float>(in);
    a.assign(af.begin(), af.end());
    b.assign(bf.begin(), bf.end());
    ref = read_line<double>(in);
  } else {
    auto av = read_line<std::int64_t>(in), bv = read_line<std::int64_t>(in);
    a.assign(av.begin(), av.end());
    b.assign(bv.begin(), bv.end());
    auto r = read_line<std::int64_t>(in);
    ref.assign(r.begin(), r.end());
  }
  std::vector<Out> out(static_cast<std::size_t>(s.n) * s.h * s.w);
  REQUIRE(out.size() == ref.size());
  REQUIRE(k::matmul<In, Out>(s, a.data(), b.data(), static_cast<In>(azp), static_cast<In>(bzp), out.data()) ==
          status::ok);
  for (std::size_t i = 0; i < out.size(); ++i) {
    CAPTURE(i);
    if (is_float) CHECK(std::abs(static_cast<double>(out[i]) - ref[i]) <= 1e-5 * (1.0 + std::abs(ref[i])));
    else CHECK(static_cast<double>(out[i]) == ref[i]);
  }
}

void run_matmul(std::istringstream& h, std::istream& in, int& n) {
  std::string row;
  k::matmul_shape s;
  int azp, bzp;
  h >> row >> s.n >> s.h >> s.c >> s.w >> azp >> bzp;
  CAPTURE(h.str());
  if (row == "i8") matmul_row<std::int8_t, std::int32_t>(s, azp, bzp, in, false);
  else if (row == "i16") matmul_row<std::int16_t, std::int64_t>(s, azp, bzp, in, false);
  else matmul_row<float, float>(s, azp, bzp, in, true);
  ++n;
}

}  // namespace

TEST_CASE("RESCALE / CONV2D / MATMUL == TOSA reference model") {
  std::ifstream in(golden_path());
  REQUIRE(in.good());
  std::string line;
  int n_rescale = 0, n_conv = 0, n_matmul = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream h(line);
    std::string op;
    h >> op;
    if (op == "rescale") run_rescale(h, in, n_rescale);
    else if (op == "conv2d") run_conv(h, in, n_conv);
    else if (op == "matmul") run_matmul(h, in, n_matmul);
    else FAIL("unknown case kind " << op);
  }
  CHECK(n_rescale >= 400);
  CHECK(n_conv >= 72);
  CHECK(n_matmul >= 30);
}
