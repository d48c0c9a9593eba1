// Cortex-M plan: run_plan against every CMSIS-NN test vector (TFLite-generated goldens) in both
// conventions (MVE kernel_sum, DSP bias); the lowering (kernel_sum math, multipliers, offsets,
// fused ReLU) against the same vectors rebuilt as framework graphs; and the emitted header text.
#include "cmsis_vectors.hpp"

#include <armlower/cortex_m/plan.hpp>
#include <armlower/graph/builder.hpp>
#include <armlower/passes/cortex_m.hpp>
#include <armlower/passes/cortex_m_emit.hpp>
#include <armlower/passes/pipeline.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

using namespace armlower;
using armlower_test::fc_s16_vectors;
using armlower_test::fc_s8_vectors;

namespace {
template <class Out>
std::vector<Out> run(const cortex_m::plan& p, std::int32_t batches, const void* in, std::size_t in_bytes) {
  std::vector<Out> out(cortex_m::output_bytes(p, batches) / sizeof(Out));
  std::vector<std::uint64_t> scratch((cortex_m::scratch_bytes(p, batches) + 7) / 8 + 1);
  const auto s = cortex_m::run_plan(p, batches, std::span(static_cast<const std::byte*>(in), in_bytes),
                                    std::as_writable_bytes(std::span(out)), std::as_writable_bytes(std::span(scratch)));
  REQUIRE_MESSAGE(s == status::ok, kernels::to_string(s));
  return out;
}
}  // namespace

TEST_CASE("run_plan reproduces every CMSIS-NN s8 vector set in the MVE (kernel_sum) and DSP (bias) conventions") {
  for (const auto& v : fc_s8_vectors) {
    const std::string set_name = v.name;
    CAPTURE(set_name);
    for (auto target : {cortex_m::isa::mve, cortex_m::isa::dsp, cortex_m::isa::scalar}) {
      std::vector<std::int32_t> ks(static_cast<std::size_t>(v.rows));
      cortex_m::layer l;
      l.cols = v.cols;
      l.rows = v.rows;
      l.weights = v.weights;
      l.input_offset = v.input_offset;
      l.filter_offset = v.filter_offset;
      l.output_offset = v.output_offset;
      l.multiplier = v.multiplier;
      l.shift = v.shift;
      l.per_channel = v.per_channel;
      l.activation_min = v.activation_min;
      l.activation_max = v.activation_max;
      if (target == cortex_m::isa::mve) {
        REQUIRE(cmsis::vector_sum_s8(ks.data(), v.cols, v.rows, v.weights, v.input_offset, v.filter_offset, v.bias) ==
                status::ok);
        l.kernel_sum = ks.data();
      } else {
        l.bias = v.bias;
      }
      const cortex_m::plan p{&l, 1, target};
      const auto y = run<std::int8_t>(p, v.batches, v.input, static_cast<std::size_t>(v.batches) * v.cols);
      CHECK(std::equal(y.begin(), y.end(), v.output_ref));
    }
  }
}

TEST_CASE("run_plan reproduces the CMSIS-NN s16 (a16w8) vector set") {
  for (const auto& v : fc_s16_vectors) {
    const std::string set_name = v.name;
    CAPTURE(set_name);
    cortex_m::layer l;
    l.kind = cortex_m::layer_kind::linear_s16;
    l.cols = v.cols;
    l.rows = v.rows;
    l.weights = v.weights;
    l.bias_s64 = v.bias;
    l.multiplier = &v.multiplier;
    l.shift = &v.shift;
    l.activation_min = v.activation_min;
    l.activation_max = v.activation_max;
    const cortex_m::plan p{&l, 1, cortex_m::isa::mve};
    const auto y = run<std::int16_t>(p, v.batches, v.input, static_cast<std::size_t>(v.batches) * v.cols * 2);
    CHECK(std::equal(y.begin(), y.end(), v.output_ref));
  }
}

TEST_CASE("Cortex-M lowering of CMSIS-NN vector sets rebuilt as quantized framework graphs") {
  // Each s8 per-tensor set becomes x(int8, zp = -input_offset) -> linear(w, bias) -> y(int8,
  // zp = output_offset). The scales are chosen so that s_in*s_w/s_out is exactly the set's
  // multiplier·2^(shift-31) for the plan's rule (the multiplier then round-trips exactly).
  for (const auto& v : fc_s8_vectors) {
    if (v.per_channel || v.filter_offset != 0 || v.activation_min != -128 || v.activation_max != 127) continue;
    const std::string set_name = v.name;
    CAPTURE(set_name);
    // s_in = m / 2^31 · 2^shift (exactly representable in float only if m has ≤ 24 significant
    // bits), s_w = 1, s_out = 1: use the set's multiplier rounded to 24 bits and compare the plan
    // against a plan built from the same (rounded) numbers.
    const std::int32_t m24 = static_cast<std::int32_t>((static_cast<std::int64_t>(v.multiplier[0]) >> 7) << 7);
    const float s_in = std::ldexp(static_cast<float>(m24), v.shift[0] - 31);
    graph::builder b;
    graph::quant_params xq{{s_in}, {-v.input_offset}, 0, false, -128, 127};
    graph::quant_params wq{{1.0f}, {0}, 0, false, -127, 127};
    graph::quant_params bq{{s_in}, {0}, 0, false, INT32_MIN, INT32_MAX};
    graph::quant_params yq{{1.0f}, {v.output_offset}, 0, false, -128, 127};
    auto x = b.quantized_input("x", {v.batches, v.cols}, dtype::id::i8, xq);
    std::vector<std::int64_t> w(v.weights, v.weights + std::ptrdiff_t{v.cols} * v.rows);
    std::vector<std::int64_t> bias;
    if (v.bias != nullptr) bias.assign(v.bias, v.bias + v.rows);
    b.output(b.quantized_linear(x, w, wq, v.rows, bias, bq, dtype::id::i8, yq));
    for (auto target : {cortex_m::isa::mve, cortex_m::isa::dsp}) {
      auto prog = passes::lower_cortex_m(b.get(), {target});
      REQUIRE_MESSAGE(prog.has_value(), (prog ? std::string() : prog.error().line()));
      REQUIRE(prog->layers.size() == 1);
      const auto& l = prog->layers[0];
      CHECK(l.input_offset == v.input_offset);
      CHECK(l.output_offset == v.output_offset);
      CHECK(l.multiplier[0] == m24);
      CHECK(l.shift[0] == v.shift[0]);
      CHECK(l.kernel_sum.empty() == (target != cortex_m::isa::mve));
      CHECK(l.bias.empty() == (target == cortex_m::isa::mve || v.bias == nullptr));
      // The plan equals a hand-built layer with the same numbers run through the CMSIS-form kernel.
      const auto table = prog->layer_table();
      const cortex_m::plan p{table.data(), table.size(), target};
      const auto y = run<std::int8_t>(p, v.batches, v.input, static_cast<std::size_t>(v.batches) * v.cols);
      std::vector<std::int8_t> ref(static_cast<std::size_t>(v.batches * v.rows));
      const cmsis::context ctx{};
      const cmsis::fc_params fc{v.input_offset, 0, v.output_offset, {-128, 127}};
      const cmsis::per_tensor_quant_params q{m24, v.shift[0]};
      const cmsis::dims id{v.batches, 1, 1, v.cols}, fd{v.cols, 1, 1, v.rows}, bd{1, 1, 1, v.rows}, od{v.batches, 1, 1, v.rows};
      REQUIRE(cmsis::fully_connected_s8(&ctx, &fc, &q, &id, v.input, &fd, v.weights, &bd, v.bias, &od, ref.data()) ==
              status::ok);
      CHECK(y == ref);
      if (m24 == v.multiplier[0]) CHECK(std::equal(y.begin(), y.end(), v.output_ref));
    }
  }
}

TEST_CASE("Cortex-M lowering: MVE kernel_sum = bias + input_offset * sum(w); fused ReLU bounds; a16w8 int64 bias") {
  std::vector<graph::mlp_layer> layers{{6, 4, {}, {}, graph::activation::relu}, {4, 3, {}, {}, graph::activation::none}};
  for (auto& l : layers) {
    l.weight.resize(static_cast<std::size_t>(l.in_features) * l.out_features);
    for (std::size_t i = 0; i < l.weight.size(); ++i) l.weight[i] = 0.1f * static_cast<float>(static_cast<int>(i % 7) - 3);
    l.bias.assign(static_cast<std::size_t>(l.out_features), 0.25f);
  }
  std::vector<graph::float_range> ranges{{-1, 2}, {0, 3}, {-2, 2}};
  auto g = graph::build_quantized_mlp(layers, {2, 6}, {dtype::id::i8, false}, ranges);
  auto prog = passes::lower_cortex_m(g, {cortex_m::isa::mve});
  REQUIRE_MESSAGE(prog.has_value(), (prog ? std::string() : prog.error().line()));
  REQUIRE(prog->layers.size() == 2);
  const auto& l0 = prog->layers[0];
  for (std::int32_t r = 0; r < l0.rows; ++r) {
    std::int64_t sw = 0;
    for (std::int32_t c = 0; c < l0.cols; ++c) sw += l0.weights[static_cast<std::size_t>(r) * l0.cols + c];
    // bias codes are quantize(0.25, s_in*s_w)
    const auto* bt = [&]() -> const graph::tensor* {
      for (const auto& t : g.tensors)
        if (t.is_constant && t.type == dtype::id::i32) return &t;
      return nullptr;
    }();
    REQUIRE(bt != nullptr);
    const auto bias = graph::decode_ints(dtype::id::i32, bt->data, l0.rows);
    CHECK(l0.kernel_sum[static_cast<std::size_t>(r)] == bias[static_cast<std::size_t>(r)] + l0.input_offset * sw);
  }
  // ReLU fused into layer 0: lower bound = output zero point.
  CHECK(l0.activation_min == l0.output_offset);
  CHECK(prog->layers[1].activation_min == -128);

  auto g16 = graph::build_quantized_mlp(layers, {2, 6}, {dtype::id::i16, true}, ranges);
  auto p16 = passes::lower_cortex_m(g16, {cortex_m::isa::dsp});
  REQUIRE_MESSAGE(p16.has_value(), (p16 ? std::string() : p16.error().line()));
  CHECK(p16->layers[0].kind == cortex_m::layer_kind::linear_s16);
  CHECK(p16->layers[0].bias_s64.size() == 4);
  CHECK(p16->layers[0].per_channel);
  CHECK(p16->layers[0].activation_min == 0);

  const auto text = passes::emit_plan_header(*prog, "demo_plan");
  CHECK(text.find("namespace demo_plan {") != std::string::npos);
  CHECK(text.find("layer0_kernel_sum") != std::string::npos);
  CHECK(text.find("layer0_bias[") == std::string::npos);  // MVE: no bias array (never both)
  CHECK(text.find("inline constexpr armlower::cortex_m::plan plan{layers, 2") != std::string::npos);
}

TEST_CASE("Cortex-M lowering errors name the op, the tensor and the rule") {
  graph::builder b;
  auto x = b.input("x", {4});
  std::vector<float> w(8, 1.0f);
  b.output(b.linear(x, w, 2, {}));
  auto r = passes::lower_cortex_m(b.get());
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().line().find("quantized") != std::string::npos);
}

TEST_CASE("a fused activation no lowering can express is an error on every path (never dropped)") {
  std::vector<graph::mlp_layer> layers{{6, 4, {}, {}, graph::activation::none}, {4, 3, {}, {}, graph::activation::none}};
  for (auto& l : layers) {
    l.weight.assign(static_cast<std::size_t>(l.in_features) * l.out_features, 0.1f);
    l.bias.assign(static_cast<std::size_t>(l.out_features), 0.25f);
  }
  const auto bad = static_cast<graph::activation>(7);  // e.g. a TANH a newer importer might fuse
  auto poison = [&](graph::graph g) {
    for (auto& o : g.operators)
      if (!o.is_tosa() && std::get<graph::framework_op>(o.code) == graph::framework_op::linear) {
        o.attr = graph::linear_attr{bad};
        break;
      }
    return g;
  };
  std::vector<graph::float_range> ranges{{-1, 2}, {0, 3}, {-2, 2}};
  const auto q = poison(graph::build_quantized_mlp(layers, {2, 6}, {dtype::id::i8, false}, ranges));
  const auto cm = passes::lower_cortex_m(q, {cortex_m::isa::dsp});
  REQUIRE_FALSE(cm.has_value());
  CHECK(cm.error().where().stage == "QuantizedLinearFusion");
  CHECK(cm.error().message().find("fused activation #7") != std::string::npos);

  passes::options o;
  o.sch = passes::scheme::int8;
  const auto t = passes::lower(tosa::parse("TOSA-1.0+INT").value, q, o);
  REQUIRE_FALSE(t.has_value());
  CHECK(t.error().where().stage == "InsertRescale");
  CHECK(t.error().message().find("fused activation #7") != std::string::npos);

  const auto f = poison(graph::build_float_mlp(layers, {2, 6}));
  const std::vector<float> calib(12, 0.5f);
  o.calibration = calib;
  const auto tf = passes::lower(tosa::parse("TOSA-1.0+INT").value, f, o);
  REQUIRE_FALSE(tf.has_value());
  CHECK(tf.error().where().stage == "QuantizeFloatGraph");
  CHECK(tf.error().message().find("fused activation #7") != std::string::npos);
}

namespace {
// A synthetic lowered s8 program with the given layer shapes (cols of layer 0, then rows of each
// layer); only the shapes, the ISA and the dtype matter to the weight-packing choice.
passes::cortex_m_program shaped_program(std::vector<std::int32_t> dims, cortex_m::isa isa, dtype::id act = dtype::id::i8) {
  passes::cortex_m_program p;
  p.isa = isa;
  p.activation = act;
  p.input_shape = {1, dims.front()};
  p.input_quant.scale = {0.5f};
  p.input_quant.zero_point = {0};
  p.output_quant = p.input_quant;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
    passes::cortex_m_layer_data l;
    l.name = "fc" + std::to_string(i);
    l.kind = act == dtype::id::i16 ? cortex_m::layer_kind::linear_s16 : cortex_m::layer_kind::linear_s8;
    l.cols = dims[i];
    l.rows = dims[i + 1];
    l.weights.resize(static_cast<std::size_t>(l.rows) * static_cast<std::size_t>(l.cols));
    for (std::size_t k = 0; k < l.weights.size(); ++k) l.weights[k] = static_cast<std::int8_t>(k * 7 % 255 - 127);
    if (isa == cortex_m::isa::mve && act == dtype::id::i8) l.kernel_sum.assign(static_cast<std::size_t>(l.rows), 3);
    l.multiplier = {1 << 30};
    l.shift = {-4};
    p.layers.push_back(std::move(l));
  }
  return p;
}
}  // namespace

TEST_CASE("emit_plan_header packs an MVE int8 plan's weights when the 8-row padding is ≤ 1/16 of its MACs") {
  // The demo MLP 256-512-256-10: 264,704 MACs, 266,240 padded (+0.6 %): packed.
  CHECK(passes::pack_pays(shaped_program({256, 512, 256, 10}, cortex_m::isa::mve)));
  // tests/passes/plan_gen.cpp's 40-24-16-5 (+26 %) and hello_world_int8's 1-16-16-1 (+122 %): row-major.
  CHECK_FALSE(passes::pack_pays(shaped_program({40, 24, 16, 5}, cortex_m::isa::mve)));
  CHECK_FALSE(passes::pack_pays(shaped_program({1, 16, 16, 1}, cortex_m::isa::mve)));
  // 16 rows: no padding; 18 rows pad to 24 (+33 %).
  CHECK(passes::pack_pays(shaped_program({16, 16}, cortex_m::isa::mve)));
  CHECK_FALSE(passes::pack_pays(shaped_program({16, 18}, cortex_m::isa::mve)));
  // 16→136→8: 136 columns pad to 144 (3,328 padded vs 3,264 MACs, +2 %).
  CHECK(passes::pack_pays(shaped_program({16, 136, 8}, cortex_m::isa::mve)));
  // 1 padding row over 15 (6.67 % > 6.25 %) no; 1 over 16+ (≤ 6.25 %) yes — the 1/16 bound.
  CHECK_FALSE(passes::pack_pays(shaped_program({64, 15}, cortex_m::isa::mve)));
  CHECK(passes::pack_pays(shaped_program({64, 127}, cortex_m::isa::mve)));
  // No packed kernel for DSP/scalar plans or a16w8.
  CHECK_FALSE(passes::pack_pays(shaped_program({256, 512}, cortex_m::isa::dsp)));
  CHECK_FALSE(passes::pack_pays(shaped_program({256, 512}, cortex_m::isa::scalar)));
  CHECK_FALSE(passes::pack_pays(shaped_program({256, 512}, cortex_m::isa::mve, dtype::id::i16)));

  const auto big = shaped_program({64, 32, 16}, cortex_m::isa::mve);
  REQUIRE(passes::pack_pays(big));
  const auto text = passes::emit_plan_header(big, "p");
  CHECK(text.find("inline constexpr std::int8_t layer0_packed_weights[2048]") != std::string::npos);
  CHECK(text.find("layer0_weights[") == std::string::npos);  // no row-major copy
  CHECK(text.find(".weights = nullptr, .packed_weights = layer1_packed_weights") != std::string::npos);
  CHECK(text.find("inline constexpr bool packed = true;") != std::string::npos);
  const auto never = passes::emit_plan_header(big, "p", {passes::weight_packing::never});
  CHECK(never.find("layer0_weights[2048]") != std::string::npos);
  CHECK(never.find("packed_weights") == std::string::npos);
  CHECK(never.find("inline constexpr bool packed = false;") != std::string::npos);
  const auto small = shaped_program({40, 24, 16, 5}, cortex_m::isa::mve);
  CHECK(passes::emit_plan_header(small, "p").find("inline constexpr bool packed = false;") != std::string::npos);
  CHECK(passes::emit_plan_header(small, "p", {passes::weight_packing::always}).find("layer2_packed_weights[128]") !=
        std::string::npos);
  // Other ISAs and a16w8 keep row-major weights even when asked to pack (no packed kernel).
  const auto dsp = shaped_program({64, 32}, cortex_m::isa::dsp);
  CHECK(passes::emit_plan_header(dsp, "p", {passes::weight_packing::always}).find("packed_weights") == std::string::npos);
}
