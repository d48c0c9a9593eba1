// Integer lowering (int8, a16w8): structure of the TOSA graph, errors.
#include <armlower/graph/builder.hpp>
#include <armlower/passes.hpp>

#include <doctest/doctest.h>

#include <random>

using namespace armlower;
using passes::scheme;

namespace {
std::vector<graph::mlp_layer> make_layers(std::vector<std::int32_t> dims, bool bias, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 0.3f);
  std::vector<graph::mlp_layer> ls;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
    graph::mlp_layer l{dims[i], dims[i + 1], {}, {}, i + 2 < dims.size() ? graph::activation::relu : graph::activation::none};
    l.weight.resize(static_cast<std::size_t>(dims[i] * dims[i + 1]));
    for (auto& w : l.weight) w = nd(rng);
    if (bias) {
      l.bias.resize(static_cast<std::size_t>(dims[i + 1]));
      for (auto& b : l.bias) b = nd(rng);
    }
    ls.push_back(std::move(l));
  }
  return ls;
}
}  // namespace

TEST_CASE("int8 lowering produces RESHAPE, CONV2D, RESCALE, CLAMP, RESHAPE") {
  auto layers = make_layers({16, 8, 4}, true, 3);
  std::vector<float> calib(4 * 16);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> ud(-1, 1);
  for (auto& v : calib) v = ud(rng);
  auto ranges = graph::calibrate_mlp(layers, calib, 4);
  auto g = graph::build_quantized_mlp(layers, {4, 16}, {dtype::id::i8, false}, ranges);
  auto r = lower<tosa::spec<"TOSA-1.0+INT">, scheme::int8>(g);
  REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message()));
  MESSAGE(r->report.to_text());
  CHECK(r->report.ops["CONV2D"] == 2);
  CHECK(r->report.ops["RESCALE"] == 2);
  CHECK(r->report.ops["CLAMP"] == 1);
  CHECK(r->report.ops["RESHAPE"] == 4);
  CHECK(r->graph.is_tosa());
}

TEST_CASE("a16w8 on TOSA-1.0+INT is an error naming EXT-INT16") {
  auto layers = make_layers({16, 4}, false, 3);
  std::vector<graph::float_range> ranges{{-1, 1}, {-2, 2}};
  auto g = graph::build_quantized_mlp(layers, {16}, {dtype::id::i16, true}, ranges);
  auto t = tosa::parse("TOSA-1.0+INT").value;
  passes::options o;
  o.sch = scheme::a16w8;
  auto r = passes::lower(t, g, o);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message().find("EXT-INT16") != std::string::npos);
  auto r2 = lower<tosa::spec<"TOSA-1.0+INT+int16">, scheme::a16w8>(g);
  REQUIRE_MESSAGE(r2.has_value(), (r2 ? std::string() : r2.error().message()));
  MESSAGE(r2->report.to_text());
}
