// Host benchmarks of armlower's fused linear kernels (s8 and a16w8), per path, side by side with a
// naive loop and the host peers oneDNN (int8 matmul, s8×s8→s8 with output scale) and XNNPACK
// (qs8 fully connected). Single thread. Counter "MAC/s" = batch·K·N multiply-accumulates per second.
#include <armlower/compat/cmsis_nn.hpp>
#include <armlower/kernels/conv2d.hpp>
#include <armlower/kernels/conv2d_packed.hpp>
#include <armlower/kernels/linear.hpp>
#include <armlower/kernels/linear_packed.hpp>
#include <armlower/kernels/linear_s16_packed.hpp>

#include <benchmark/benchmark.h>

#include "shapes.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#if defined(ARMLOWER_BENCH_HAVE_DNNL)
#include <oneapi/dnnl/dnnl.hpp>
#endif
#if defined(ARMLOWER_BENCH_HAVE_XNNPACK)
#include <xnnpack.h>
#if defined(ARMLOWER_BENCH_HAVE_CPUINFO)
#include <cpuinfo.h>
#endif
#endif

namespace k = armlower::kernels;

namespace {
// `bytes` bytes of `storage` from its first 64-byte boundary (where a caller keeps a packing).
std::uint8_t* aligned_bytes(std::vector<std::uint8_t>& storage, std::size_t bytes) {
  storage.assign(bytes + 64, 0);
  return storage.data() + k::detail::align64_offset(storage.data());
}
}  // namespace

namespace {

struct problem {
  int batch, cols, rows;
  std::vector<std::int8_t> x8, w;
  std::vector<std::int16_t> x16;
  std::vector<std::int32_t> bias;
  std::vector<std::int64_t> bias64;
  std::vector<std::int8_t> y8;
  std::vector<std::int16_t> y16;
  std::int32_t mult = 1518500250, shift = -12;
  problem(int b, int kk, int n) : batch(b), cols(kk), rows(n) {
    std::mt19937 g(42);
    std::uniform_int_distribution<int> d8(-128, 127), d16(-32768, 32767), db(-20000, 20000);
    x8.resize(static_cast<std::size_t>(b) * kk);
    x16.resize(x8.size());
    w.resize(static_cast<std::size_t>(n) * kk);
    for (auto& v : x8) v = static_cast<std::int8_t>(d8(g));
    for (auto& v : x16) v = static_cast<std::int16_t>(d16(g));
    for (auto& v : w) v = static_cast<std::int8_t>(d8(g));
    bias.resize(static_cast<std::size_t>(n));
    bias64.resize(bias.size());
    for (std::size_t i = 0; i < bias.size(); ++i) bias64[i] = bias[i] = db(g);
    y8.resize(static_cast<std::size_t>(b) * n);
    y16.resize(y8.size());
  }
  k::linear_s8_args s8() {
    k::linear_s8_args a;
    a.input = x8.data(); a.weights = w.data(); a.bias = bias.data(); a.output = y8.data();
    a.batches = batch; a.cols = cols; a.rows = rows;
    a.input_offset = 128; a.output_offset = -5; a.multiplier = &mult; a.shift = &shift;
    return a;
  }
  k::linear_s16_args s16() {
    k::linear_s16_args a;
    a.input = x16.data(); a.weights = w.data(); a.bias = bias64.data(); a.output = y16.data();
    a.batches = batch; a.cols = cols; a.rows = rows; a.multiplier = &mult; a.shift = &shift;
    return a;
  }
};

void set_counters(benchmark::State& st, const problem& p) {
  st.counters["MAC/s"] = benchmark::Counter(static_cast<double>(p.batch) * p.cols * p.rows,
                                            benchmark::Counter::kIsIterationInvariantRate);
}

using bench_shapes::args;

// Naive loop: the textbook CMSIS-semantics loop, no armlower code (compiler may auto-vectorize).
void BM_s8_naive(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  for (auto _ : st) {
    for (int b = 0; b < p.batch; ++b) {
      for (int r = 0; r < p.rows; ++r) {
        std::int32_t acc = p.bias[static_cast<std::size_t>(r)];
        const std::int8_t* x = p.x8.data() + static_cast<std::size_t>(b) * p.cols;
        const std::int8_t* w = p.w.data() + static_cast<std::size_t>(r) * p.cols;
        for (int c = 0; c < p.cols; ++c) acc += (x[c] + 128) * w[c];
        const std::int64_t y = ((static_cast<std::int64_t>(acc) * p.mult + (std::int64_t{1} << 42)) >> 43) - 5;
        p.y8[static_cast<std::size_t>(b * p.rows + r)] = static_cast<std::int8_t>(y < -128 ? -128 : y > 127 ? 127 : y);
      }
    }
    benchmark::DoNotOptimize(p.y8.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

void BM_s16_naive(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  for (auto _ : st) {
    for (int b = 0; b < p.batch; ++b) {
      for (int r = 0; r < p.rows; ++r) {
        std::int64_t acc = p.bias64[static_cast<std::size_t>(r)];
        const std::int16_t* x = p.x16.data() + static_cast<std::size_t>(b) * p.cols;
        const std::int8_t* w = p.w.data() + static_cast<std::size_t>(r) * p.cols;
        for (int c = 0; c < p.cols; ++c) acc += static_cast<std::int32_t>(x[c]) * w[c];
        const std::int64_t y = (acc * 23170 + (std::int64_t{1} << 26)) >> 27;
        p.y16[static_cast<std::size_t>(b * p.rows + r)] =
            static_cast<std::int16_t>(y < -32768 ? -32768 : y > 32767 ? 32767 : y);
      }
    }
    benchmark::DoNotOptimize(p.y16.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

// `linear_s8(a, Path)` on row-major weights; InputOffset: −input zero point (128 in the other rows); the weights a copy
// WeightOffset bytes past a 64-byte boundary (a `std::vector`'s data is wherever malloc put it: 16 bytes past a line for
// an mmap'd block, anywhere in the heap, so the row's cells moved between runs with the benchmark order).
template <k::linear_path Path, int InputOffset = 128, int WeightOffset = 0>
void BM_s8_armlower(benchmark::State& st) {
  if (!k::path_available(Path)) {
    st.SkipWithError("path not available on this CPU");
    return;
  }
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  auto a = p.s8();
  a.input_offset = InputOffset;
  std::vector<std::uint8_t> wstore;
  std::uint8_t* wp = aligned_bytes(wstore, p.w.size() + WeightOffset) + WeightOffset;
  std::memcpy(wp, p.w.data(), p.w.size());
  a.weights = reinterpret_cast<const std::int8_t*>(wp);
  for (auto _ : st) {
    if (k::linear_s8(a, Path) != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(p.y8.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

#if defined(ARMLOWER_KERNELS_HAVE_X86)
// The two no-buffer AVX2 s8 forms forced (`linear_s8(a, x86_avx2)` picks one by `rowpairs_pays`):
// row-major dot rows (`linear_s8_avx2`) and the on-the-fly repack into the column-pair kernel
// (`linear_s8_rowpairs_avx2`).
template <void (*Kernel)(const k::linear_s8_args&) noexcept>
void BM_s8_armlower_avx2_form(benchmark::State& st) {
  if (!k::path_available(k::linear_path::x86_avx2)) {
    st.SkipWithError("path not available on this CPU");
    return;
  }
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const auto a = p.s8();
  for (auto _ : st) {
    Kernel(a);
    benchmark::DoNotOptimize(p.y8.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}
// the table's shapes and, for the dispatch thresholds (`rowpairs_pays`), batches 2 and 4 and narrow layers
void form_args(benchmark::internal::Benchmark* b) {
  args(b);
  for (const int n : {64, 256, 1024, 4096}) {
    for (const int batch : {2, 4}) b->Args({batch, n, n});
  }
  for (const int batch : {1, 2, 8}) {
    for (const int rows : {8, 16}) b->Args({batch, 1024, rows});
  }
}
BENCHMARK(BM_s8_armlower_avx2_form<k::detail::linear_s8_avx2>)->Name("BM_s8_armlower_avx2_dotrows")->Apply(form_args);
BENCHMARK(BM_s8_armlower_avx2_form<k::detail::linear_s8_rowpairs_avx2>)->Name("BM_s8_armlower_avx2_rowpairs")->Apply(form_args);
BENCHMARK(BM_s8_armlower_avx2_form<k::detail::linear_s8_rowdot_avx2>)->Name("BM_s8_armlower_avx2_rowdot")->Apply(form_args);
#endif

// AVX2 layout of `pack_linear_s8` (path x86_avx2: what AVX2-only CPUs get), packed once outside the
// timed loop (like XNNPACK's operator creation).
void BM_s8_armlower_avx2_prepacked(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const auto a = p.s8();
  const std::size_t bytes = k::linear_s8_packed_size(p.rows, p.cols);
  std::vector<std::uint8_t> storage;
  std::uint8_t* base = aligned_bytes(storage, bytes);
  if (k::pack_linear_s8(a, base, bytes, k::linear_path::x86_avx2) != armlower::status::ok) {
    st.SkipWithError("pack failed");
    return;
  }
  for (auto _ : st) {
    if (k::linear_s8_packed(a, base, bytes) != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(p.y8.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

// What `linear_s8` users get with a buffer: `linear_s8(a, cache, size)` packs on the first call (made
// once before the timed loop: that is the first use) and reuses the packing (steady state).
void BM_s8_armlower_auto(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const auto a = p.s8();
  std::vector<std::uint8_t> cache(k::linear_s8_cache_size(p.rows, p.cols));
  if (k::linear_s8(a, cache.data(), cache.size()) != armlower::status::ok) st.SkipWithError("kernel error");
  for (auto _ : st) {
    if (k::linear_s8(a, cache.data(), cache.size()) != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(p.y8.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

// What `cmsis::fully_connected_s8` users get with ctx->size = fully_connected_s8_get_cache_buffer_size
// (packed on the first call, made before the timed loop; bias given, CMSIS-NN DSP/C convention).
void BM_s8_cmsis_compat(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  namespace c = armlower::cmsis;
  const c::dims in_d{p.batch, 1, 1, p.cols}, f_d{p.cols, 1, 1, p.rows}, b_d{1, 1, 1, p.rows}, o_d{p.batch, 1, 1, p.rows};
  c::fc_params fc;
  fc.input_offset = 128;
  fc.output_offset = -5;
  const c::per_tensor_quant_params q{p.mult, p.shift};
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(c::fully_connected_s8_get_cache_buffer_size(&f_d)));
  const c::context ctx{buf.data(), static_cast<std::int32_t>(buf.size())};
  const auto call = [&] {
    return c::fully_connected_s8(&ctx, &fc, &q, &in_d, p.x8.data(), &f_d, p.w.data(), &b_d, p.bias.data(), &o_d,
                                 p.y8.data());
  };
  if (call() != armlower::status::ok) st.SkipWithError("kernel error");
  for (auto _ : st) {
    if (call() != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(p.y8.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

// The 1×1 CONV2D of problem `p`: N = batch, IC = K, OC = N, per-channel bias.
k::conv2d_shape conv1x1_of(const problem& p) {
  k::conv2d_shape s;
  s.n = p.batch;
  s.ic = p.cols;
  s.oc = p.rows;
  s.bias_size = p.rows;
  return s;
}

// The TOSA interpreter's kernel for the TOSA form of the layer (CONV2D 1×1, N = batch, IC = K,
// OC = N, input_zp = −128, int32 accumulator output; the RESCALE that follows is not included):
// `kernels::conv2d` (automatic: AVX-512 VNNI where available) and the AVX2 dot-rows loop it replaced.
template <k::linear_path Path>
void BM_s8_interpreter_conv2d_1x1(benchmark::State& st) {
  if (!k::path_available(Path)) {
    st.SkipWithError("path not available on this CPU");
    return;
  }
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const k::conv2d_shape s = conv1x1_of(p);
  std::vector<std::int32_t> out(static_cast<std::size_t>(p.batch) * static_cast<std::size_t>(p.rows));
  for (auto _ : st) {
    const auto r = Path == k::linear_path::automatic
                       ? k::conv2d<std::int8_t, std::int8_t, std::int32_t>(s, p.x8.data(), p.w.data(), p.bias.data(),
                                                                           std::int8_t{-128}, std::int8_t{0}, out.data())
                       : k::detail::conv2d_1x1_s8(s, p.x8.data(), p.w.data(), p.bias.data(), std::int8_t{-128},
                                                  std::int8_t{0}, out.data(), Path);
    if (r != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

// The interpreter session's CONV2D 1×1 over constant weights: `pack_conv2d_1x1_s8` once outside the timed
// loop + `conv2d_1x1_s8_packed`, in the layout of `Path` (`x86_avx2`: the column pairs an AVX2-only CPU runs).
template <k::linear_path Path>
void BM_s8_interpreter_conv2d_1x1_packed(benchmark::State& st) {
  if (!k::conv2d_1x1_s8_packed_native(Path)) {
    st.SkipWithError("path not available on this CPU");
    return;
  }
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const k::conv2d_shape s = conv1x1_of(p);
  const std::size_t bytes = k::conv2d_1x1_s8_packed_size(s.oc, s.ic);
  std::vector<std::uint8_t> storage;
  std::uint8_t* base = aligned_bytes(storage, bytes);
  if (k::pack_conv2d_1x1_s8(s, p.w.data(), std::int8_t{-128}, std::int8_t{0}, base, bytes, Path) != armlower::status::ok) {
    st.SkipWithError("pack failed");
    return;
  }
  std::vector<std::int32_t> out(static_cast<std::size_t>(p.batch) * static_cast<std::size_t>(p.rows));
  for (auto _ : st) {
    if (k::conv2d_1x1_s8_packed(s, p.x8.data(), base, bytes, p.bias.data(), std::int8_t{-128}, std::int8_t{0},
                                out.data(), Path) != armlower::status::ok) {
      st.SkipWithError("kernel error");
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

// Pre-packed s8 (`pack_linear_s8` once outside the timed loop + `linear_s8_packed`): the AVX-512 VNNI
// microkernel on CPUs that have it, else `linear_s8` automatic.
void BM_s8_armlower_packed(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const auto a = p.s8();
  const std::size_t bytes = k::linear_s8_packed_size(p.rows, p.cols);
  std::vector<std::uint8_t> storage;
  std::uint8_t* base = aligned_bytes(storage, bytes);
  if (k::pack_linear_s8(a, base, bytes) != armlower::status::ok) {
    st.SkipWithError("pack failed");
    return;
  }
  for (auto _ : st) {
    if (k::linear_s8_packed(a, base, bytes) != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(p.y8.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

#if defined(ARMLOWER_KERNELS_HAVE_X86_VNNI_PACKED)
// The AVX-512 VNNI packed s8 microkernel with the register tiles of each x86 CPU class
// (`k::detail::vnni_batch_tile_rows`: 4 × 64 for `baseline`, 8 × 32 for `amd_family_1ah` at 1024 ≤ K ≤ 2048), timed alternately on
// the same packing, warm; counters: `ratio` = median t_baseline ÷ t_amd_family_1ah (> 1: the 8-row tiles faster)
// and each side's GMAC/s. What the per-CPU choice rests on; on another CPU it shows which tile to give it.
void BM_s8_batch_tile_pair(benchmark::State& st) {
  if (!k::detail::x86_has_avx512_vnni_vl()) {
    st.SkipWithError("path not available on this CPU");
    return;
  }
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const auto a = p.s8();
  const std::size_t bytes = k::linear_s8_packed_size(p.rows, p.cols);
  std::vector<std::uint8_t> storage;
  std::uint8_t* base = aligned_bytes(storage, bytes);
  const auto geo = k::detail::packed_s8_layout(p.rows, p.cols);
  if (k::pack_linear_s8(a, base, bytes) != armlower::status::ok || geo.narrow) {
    st.SkipWithError("no VNNI panel layout for this shape: not available");
    return;
  }
  auto timed = [&](k::detail::x86_cpu_class cpu) {
    const auto t0 = std::chrono::steady_clock::now();
    k::detail::linear_s8_packed_vnni(a, base, geo, nullptr, cpu);
    benchmark::ClobberMemory();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> ratio, t4, t8;
  for (auto _ : st) {
    double x4, x8;
    if (ratio.size() % 2 == 0) {
      x4 = timed(k::detail::x86_cpu_class::baseline);
      x8 = timed(k::detail::x86_cpu_class::amd_family_1ah);
    } else {
      x8 = timed(k::detail::x86_cpu_class::amd_family_1ah);
      x4 = timed(k::detail::x86_cpu_class::baseline);
    }
    st.SetIterationTime(x4 + x8);
    ratio.push_back(x4 / x8);
    t4.push_back(x4);
    t8.push_back(x8);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double macs = double(p.batch) * p.rows * p.cols;
  st.counters["ratio"] = median(ratio);
  st.counters["baseline_GMAC/s"] = macs / median(t4) * 1e-9;
  st.counters["amd_family_1ah_GMAC/s"] = macs / median(t8) * 1e-9;
}
BENCHMARK(BM_s8_batch_tile_pair)->Apply(args)->UseManualTime();
#endif

template <k::linear_path Path>
void BM_s16_armlower(benchmark::State& st) {
  if (!k::path_available(Path)) {
    st.SkipWithError("path not available on this CPU");
    return;
  }
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const auto a = p.s16();
  for (auto _ : st) {
    if (k::linear_s16(a, Path) != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(p.y16.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

// What `linear_s16(a, cache, size)` users get (packed on the first call, made before the timed loop;
// the row-major kernel where packing does not pay: `linear_s16_cache_pays`).
void BM_s16_armlower_auto(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const auto a = p.s16();
  std::vector<std::uint8_t> cache(k::linear_s16_cache_size(p.rows, p.cols));
  if (k::linear_s16(a, cache.data(), cache.size()) != armlower::status::ok) st.SkipWithError("kernel error");
  for (auto _ : st) {
    if (k::linear_s16(a, cache.data(), cache.size()) != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(p.y16.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

// `pack_linear_s16` outside the timed loop, `linear_s16_packed` per call (the packed kernel on every
// shape, narrow layers included); `Path` x86_avx2: the AVX2 column-pair layout and kernel (what an
// AVX2-only CPU runs), automatic: the layout this CPU packs.
template <k::linear_path Path>
void BM_s16_armlower_packed(benchmark::State& st) {
  if (!k::linear_s16_packed_native(Path)) {
    st.SkipWithError("packed kernel not available on this CPU");
    return;
  }
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const auto a = p.s16();
  const std::size_t bytes = k::linear_s16_packed_size(p.rows, p.cols);
  std::vector<std::uint8_t> storage;
  std::uint8_t* base = aligned_bytes(storage, bytes);
  if (k::pack_linear_s16(a, base, bytes, Path) != armlower::status::ok) {
    st.SkipWithError("pack failed");
    return;
  }
  for (auto _ : st) {
    if (k::linear_s16_packed(a, base, bytes) != armlower::status::ok) st.SkipWithError("kernel error");
    benchmark::DoNotOptimize(p.y16.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}

#if defined(ARMLOWER_BENCH_HAVE_DNNL)
// oneDNN int8 matmul: src s8 [M,K], weights s8 [K,N] (pre-reordered to oneDNN's preferred layout
// outside the timed loop), bias s32, dst s8 with a per-tensor output scale.
// U8 = true: src u8 = x + 128 (the layer's input_offset 128 applied by the data type, no zero point):
// oneDNN's native int8 GEMM operand order (u8 × s8), its fastest configuration where it has no
// s8 × s8 brgemm (e.g. restricted to AVX2 by ONEDNN_MAX_CPU_ISA=AVX2).
template <bool U8>
void BM_s8_onednn(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const memory::dim M = p.batch, K = p.cols, N = p.rows;
  std::vector<std::uint8_t> xu(p.x8.size());
  for (std::size_t i = 0; i < xu.size(); ++i) xu[i] = static_cast<std::uint8_t>(p.x8[i] ^ 0x80);
  memory::desc src_md({M, K}, U8 ? memory::data_type::u8 : memory::data_type::s8, memory::format_tag::ab);
  memory::desc wei_any({K, N}, memory::data_type::s8, memory::format_tag::any);
  memory::desc wei_user({K, N}, memory::data_type::s8, memory::format_tag::ba);  // our [N][K] rows
  memory::desc bias_md({1, N}, memory::data_type::s32, memory::format_tag::ab);
  memory::desc dst_md({M, N}, memory::data_type::s8, memory::format_tag::ab);
  primitive_attr attr;
  attr.set_output_scales(0, {1.0f / 4096.0f});
  matmul::primitive_desc pd(matmul::desc(src_md, wei_any, bias_md, dst_md), attr, eng);
  memory src(src_md, eng, U8 ? static_cast<void*>(xu.data()) : static_cast<void*>(p.x8.data())), user_w(wei_user, eng, p.w.data()), wei(pd.weights_desc(), eng);
  memory bias(bias_md, eng, p.bias.data()), dst(dst_md, eng, p.y8.data());
  reorder(user_w, wei).execute(s, user_w, wei);
  s.wait();
  matmul mm(pd);
  for (auto _ : st) {
    mm.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}});
    s.wait();
    benchmark::ClobberMemory();
  }
  set_counters(st, p);
}
BENCHMARK(BM_s8_onednn<false>)->Name("BM_s8_onednn")->Apply(args);
BENCHMARK(BM_s8_onednn<true>)->Name("BM_s8_onednn_u8src")->Apply(args);
#endif

#if defined(ARMLOWER_BENCH_HAVE_XNNPACK)
// XNNPACK qs8 fully connected (weights [N][K], packed at creation, outside the timed loop).
// XNNPACK picks its kernels once, in `xnn_initialize`, from cpuinfo's ISA flags (`cpuinfo_isa`, shared with
// the libcpuinfo XNNPACK links). With ARMLOWER_BENCH_XNNPACK_ISA=avx2 they are cleared of every AVX-512
// extension first, so XNNPACK runs the kernels it gives an AVX2-only CPU: the AVX2-class proxy of
// benchmarks/RESULTS.md, next to oneDNN's ONEDNN_MAX_CPU_ISA=AVX2. Returns an error text, or nullptr.
const char* xnnpack_initialize() {
  static const char* const error = []() -> const char* {
    const char* isa = std::getenv("ARMLOWER_BENCH_XNNPACK_ISA");
    if (isa != nullptr && std::string_view(isa) != "avx2") return "ARMLOWER_BENCH_XNNPACK_ISA: only 'avx2' is known";
    if (isa != nullptr) {
#if defined(ARMLOWER_BENCH_HAVE_CPUINFO)
      if (!cpuinfo_initialize()) return "cpuinfo_initialize failed";
      for (bool* f : {&cpuinfo_isa.avx512f, &cpuinfo_isa.avx512pf, &cpuinfo_isa.avx512er, &cpuinfo_isa.avx512cd,
                      &cpuinfo_isa.avx512dq, &cpuinfo_isa.avx512bw, &cpuinfo_isa.avx512vl, &cpuinfo_isa.avx512ifma,
                      &cpuinfo_isa.avx512vbmi, &cpuinfo_isa.avx512vbmi2, &cpuinfo_isa.avx512bitalg,
                      &cpuinfo_isa.avx512vpopcntdq, &cpuinfo_isa.avx512vnni, &cpuinfo_isa.avx512bf16,
                      &cpuinfo_isa.avx512vp2intersect, &cpuinfo_isa.avx512_4vnniw, &cpuinfo_isa.avx512_4fmaps})
        *f = false;
#else
      return "ARMLOWER_BENCH_XNNPACK_ISA needs cpuinfo.h (Debian libcpuinfo-dev) at configure time";
#endif
    }
    return xnn_initialize(nullptr) == xnn_status_success ? nullptr : "xnn_initialize failed";
  }();
  return error;
}

void BM_s8_xnnpack(benchmark::State& st) {
  problem p(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  if (const char* e = xnnpack_initialize()) {
    st.SkipWithError(e);
    return;
  }
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_qs8(static_cast<size_t>(p.cols), static_cast<size_t>(p.rows),
                                        static_cast<size_t>(p.cols), static_cast<size_t>(p.rows), -128, 0.02f, 0.01f,
                                        p.w.data(), p.bias.data(), -5, 0.5f, -128, 127, 0, &op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_qs8(op, static_cast<size_t>(p.batch), p.x8.data(), p.y8.data(), nullptr) !=
          xnn_status_success) {
    st.SkipWithError("XNNPACK setup failed");
    return;
  }
  for (auto _ : st) {
    xnn_run_operator(op, nullptr);
    benchmark::ClobberMemory();
  }
  xnn_delete_operator(op);
  set_counters(st, p);
}
BENCHMARK(BM_s8_xnnpack)->Apply(args);
#endif

BENCHMARK(BM_s8_naive)->Apply(args);
BENCHMARK(BM_s8_armlower<k::linear_path::generic>)->Name("BM_s8_armlower_generic")->Apply(args);
BENCHMARK(BM_s8_armlower<k::linear_path::x86_avx2>)->Name("BM_s8_armlower_avx2")->Apply(args);
BENCHMARK(BM_s8_armlower<k::linear_path::x86_avx512_vnni>)->Name("BM_s8_armlower_avx512_vnni")->Apply(args);
BENCHMARK(BM_s8_armlower_avx2_prepacked)->Apply(args);
BENCHMARK(BM_s8_armlower_packed)->Apply(args);
// What users get: `linear_s8(a, cache, size)` (BM_s8_armlower_auto) / `cmsis::fully_connected_s8` with a
// cache-sized ctx (BM_s8_cmsis_compat), both packed on first use; `linear_s8(a)` with no buffer
// (row-major weights, BM_s8_armlower_auto_nobuf); `BM_s8_armlower_packed` is what `pack_linear_s8` users
// get; the interpreter's CONV2D 1×1.
BENCHMARK(BM_s8_armlower_auto)->Apply(args);
BENCHMARK(BM_s8_cmsis_compat)->Apply(args);
BENCHMARK(BM_s8_armlower<k::linear_path::automatic>)->Name("BM_s8_armlower_auto_nobuf")->Apply(args);
// The same with input zero point −5 (TFLite int8 activations need not have −128): the bias form's other offsets.
BENCHMARK(BM_s8_armlower<k::linear_path::automatic, 5>)->Name("BM_s8_armlower_auto_nobuf_zp5")->Apply(args);
// `linear_s8(a)` with the weights 16 bytes past a line (the rows above: on one).
BENCHMARK(BM_s8_armlower<k::linear_path::automatic, 128, 16>)->Name("BM_s8_armlower_auto_nobuf_w16")->Apply(args);
BENCHMARK(BM_s8_interpreter_conv2d_1x1<k::linear_path::automatic>)->Name("BM_s8_interpreter_conv2d_1x1")->Apply(args);
BENCHMARK(BM_s8_interpreter_conv2d_1x1<k::linear_path::x86_avx2>)->Name("BM_s8_interpreter_conv2d_1x1_avx2")->Apply(args);
BENCHMARK(BM_s8_interpreter_conv2d_1x1_packed<k::linear_path::x86_avx2>)->Name("BM_s8_interpreter_conv2d_1x1_packed_avx2")->Apply(args);
// Narrow layers (oc 4..16), where `conv2d_1x1_s8_packed_pays` decides between the two AVX2 forms.
void narrow_conv_args(benchmark::internal::Benchmark* b) {
  for (const int batch : {1, 8}) {
    for (const int kk : {64, 256, 1024, 4000}) {
      for (const int n : {4, 8, 12, 16}) b->Args({batch, kk, n});
    }
  }
  b->ArgNames({"batch", "K", "N"});
}
BENCHMARK(BM_s8_interpreter_conv2d_1x1<k::linear_path::x86_avx2>)->Name("BM_s8_interpreter_conv2d_1x1_avx2_narrow")->Apply(narrow_conv_args);
BENCHMARK(BM_s8_interpreter_conv2d_1x1_packed<k::linear_path::x86_avx2>)->Name("BM_s8_interpreter_conv2d_1x1_packed_avx2_narrow")->Apply(narrow_conv_args);
BENCHMARK(BM_s16_naive)->Apply(args);
BENCHMARK(BM_s16_armlower<k::linear_path::generic>)->Name("BM_s16_armlower_generic")->Apply(args);
BENCHMARK(BM_s16_armlower<k::linear_path::x86_avx2>)->Name("BM_s16_armlower_avx2")->Apply(args);
BENCHMARK(BM_s16_armlower<k::linear_path::x86_avx512_vnni>)->Name("BM_s16_armlower_avx512_vnni")->Apply(args);
// What users get: `linear_s16(a, cache, size)` (BM_s16_armlower_auto, packed on first use), `linear_s16(a)`
// without a buffer (BM_s16_armlower_auto_nobuf: row-major weights); `pack_linear_s16` users: _packed.
BENCHMARK(BM_s16_armlower_auto)->Apply(args);
BENCHMARK(BM_s16_armlower_packed<k::linear_path::automatic>)->Name("BM_s16_armlower_packed")->Apply(args);
BENCHMARK(BM_s16_armlower_packed<k::linear_path::x86_avx2>)->Name("BM_s16_armlower_packed_avx2")->Apply(args);
BENCHMARK(BM_s16_armlower<k::linear_path::automatic>)->Name("BM_s16_armlower_auto_nobuf")->Apply(args);

}  // namespace
