// Example: build a small quantized MLP with armlower's graph builder, lower it to TOSA for a
// compile-time target (an illegal scheme for the target would not compile), write the .tosa
// file and run it with the interpreter.
//
//   lower_builder_graph [out.tosa]
#include <armlower/graph/builder.hpp>
#include <armlower/graph/quantizer.hpp>
#include <armlower/passes/pipeline.hpp>
#include <armlower/run/interpreter.hpp>
#include <armlower/serialize/writer.hpp>
#include <armlower/tosa/spec.hpp>

#include <cstdio>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  using namespace armlower;
  using Target = tosa::spec<"TOSA-1.0+INT">;
  const char* out = argc > 1 ? argv[1] : "mlp_int8.tosa";

  // Two float layers 32 -> 16 -> 4 with a ReLU, seeded weights.
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 0.2f);
  std::vector<graph::mlp_layer> layers(2);
  const std::int32_t dims[] = {32, 16, 4};
  for (int i = 0; i < 2; ++i) {
    layers[i].in_features = dims[i];
    layers[i].out_features = dims[i + 1];
    layers[i].weight.resize(static_cast<std::size_t>(dims[i]) * dims[i + 1]);
    for (auto& w : layers[i].weight) w = nd(rng);
    layers[i].bias.assign(static_cast<std::size_t>(dims[i + 1]), 0.05f);
    layers[i].act = i == 0 ? graph::activation::relu : graph::activation::none;
  }
  std::vector<float> calib(std::size_t{64} * 32);
  for (auto& v : calib) v = nd(rng) * 5;

  // Quantize (ExecuTorch's int8 recipe) and lower with the int8 scheme for Target.
  const auto ranges = graph::calibrate_mlp(layers, calib, 64);
  const auto g = graph::build_quantized_mlp(layers, {1, 32}, graph::ptq_config{}, ranges);
  auto lowered = lower<Target, passes::scheme::int8>(g);
  if (!lowered) {
    std::fprintf(stderr, "lowering failed: %s\n", lowered.error().message().c_str());
    return 1;
  }
  std::printf("%s", lowered->report.to_text().c_str());

  auto bytes = serialize::write(lowered->graph, serialize::format::tosa_1_0);
  if (!bytes) {
    std::fprintf(stderr, "serialize failed: %s\n", bytes.error().line().c_str());
    return 1;
  }
  if (auto w = serialize::write_file(out, *bytes); !w) {
    std::fprintf(stderr, "%s\n", w.error().line().c_str());
    return 1;
  }
  std::printf("wrote %s (%zu bytes)\n", out, bytes->size());

  // Run the lowered graph on one quantized row and compare with the float reference.
  const std::vector<float> x(calib.begin(), calib.begin() + 32);
  const auto* in = lowered->graph.find(lowered->graph.inputs[0]);
  const auto xq = graph::quantize(x, *g.find(g.inputs[0])->quant);
  const auto v = run::from_ints(in->type, in->shape, xq);
  const auto r = run::run(lowered->graph, std::span<const run::value>(&v, 1));
  if (!r) {
    std::fprintf(stderr, "run failed: %s\n", r.error().line().c_str());
    return 1;
  }
  const auto ref = graph::run_float_mlp(layers, x, 1);
  const auto& yq = *g.find(g.outputs[0])->quant;
  const auto y = graph::dequantize(r->outputs[0].ints.widened(), yq);
  double worst = 0;
  for (std::size_t i = 0; i < y.size(); ++i) worst = std::max(worst, static_cast<double>(std::abs(y[i] - ref[i])));
  std::printf("max |int8 - float| = %.4f (output scale %.4f)\n", worst, yq.scale[0]);
  return worst <= 4 * yq.scale[0] ? 0 : 1;
}
