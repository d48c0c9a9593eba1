// MX block-scaled GEMV/GEMM (MATMUL_T_BLOCK_SCALED with B = weights [N, K], A = activations
// [batch, K]) per kernel path, side by side with fp32 GEMV/GEMM of the same shape: the fp32
// "pseudocode" (sequential dot products), armlower-free tuned AVX2 FMA code, and oneDNN sgemm.
// Also: MX quantization throughput of a weight matrix (what the lowering passes run).
// Counters: GFLOP/s (2·batch·N·K per iteration), weight_bytes_per_MAC (weights + scales / (N·K)).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif
#if defined(ARMLOWER_BENCH_HAVE_DNNL)
#include <dnnl.h>
#include <omp.h>
#endif

#include <armlower/kernels/mx/cast_to_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled.hpp>
#include <armlower/kernels/mx/matmul_t_block_scaled_packed.hpp>
#include <armlower/mx.hpp>

using armlower::dtype::id;
namespace mx = armlower::mx;
namespace kmx = armlower::kernels::mx;

namespace {

constexpr int N = 4096;  // output features (weight rows)

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct mx_operand {
  std::vector<std::uint8_t> data, scale;
  std::int32_t shape[3], scale_shape[3];
  kmx::block_scaled_view view() const { return {data, shape, scale, scale_shape}; }
};

mx_operand quantize(id t, const std::vector<float>& x, int rows, int k) {
  mx_operand o{{}, {}, {1, rows, k}, {1, rows, k / 32}};
  o.data.resize(mx::storage_bytes(t, x.size()));
  o.scale.resize(x.size() / 32);
  if (kmx::cast_to_block_scaled(std::span<const float>(x), o.shape, t, o.data, o.scale) != mx::status::ok) std::abort();
  return o;
}

// `rows`: B rows (output features) of the timed product.
void set_counters(benchmark::State& st, int batch, int k, double weight_bytes, int rows = N) {
  const double flops = 2.0 * batch * double(rows) * k;
  st.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["weight_bytes_per_MAC"] = weight_bytes / (double(rows) * k);
}

// `check_weights`: run `mx::finite_codes` on the weights once, ahead of time (what a caller with
// constant weights does), and pass the promise; false leaves the kernel's NaN/Inf scan on.
/// The counters of a paired timing (the two sides timed alternately): `ratio` = median of t_a ÷ t_b
/// (> 1: side b faster) with its 10th / 90th percentiles, and each side's median GFLOP/s as
/// `<a_name>_GFLOP/s` / `<b_name>_GFLOP/s` (`flops` per call).
void report_pair(benchmark::State& st, const std::vector<double>& ratio, const std::vector<double>& ta,
                 const std::vector<double>& tb, double flops, const std::string& a_name, const std::string& b_name) {
  auto pct = [](std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[std::size_t(q * double(v.size() - 1) + 0.5)];
  };
  st.counters["ratio"] = pct(ratio, 0.5);
  st.counters["ratio_p10"] = pct(ratio, 0.1);
  st.counters["ratio_p90"] = pct(ratio, 0.9);
  st.counters[a_name + "_GFLOP/s"] = flops / pct(ta, 0.5) * 1e-9;
  st.counters[b_name + "_GFLOP/s"] = flops / pct(tb, 0.5) * 1e-9;
}

// B of `rows` rows (default N), called back to back: the weights stay in the cache level they fit.
void bm_mx(benchmark::State& st, id t, kmx::matmul_path path, bool check_weights = true, int rows = N) {
  const int k = int(st.range(0)), batch = int(st.range(1));
  const auto w = quantize(t, random_floats(std::size_t(rows) * k, 1), rows, k);
  const auto a = quantize(t, random_floats(std::size_t(batch) * k, 2), batch, k);
  auto wv = w.view();
  wv.finite_codes = check_weights && mx::finite_codes(t, w.data);
  std::vector<float> out(std::size_t(batch) * rows);
  if (kmx::matmul_t_block_scaled(t, a.view(), wv, out, path) != mx::status::ok) {
    st.SkipWithError("path not available");
    return;
  }
  for (auto _ : st) {
    benchmark::DoNotOptimize(kmx::matmul_t_block_scaled(t, a.view(), wv, out, path));
    benchmark::ClobberMemory();
  }
  set_counters(st, batch, k, double(w.data.size() + w.scale.size()), rows);
}

// B rows of `bm_mx_l1`: 16 rows × K 1024 is 16 KiB of one-byte codes (8 KiB FP4) + 512 B of scales,
// resident in this host's 32 KiB L1D with A and the kernels' scratch.
constexpr int l1_rows = 16;

// bm_mx with B in L1 (`l1_rows` rows): the kernel's rate when no load misses L1, the most it can reach
// with its weights in any cache level (compute-bound; it includes A's per-call decode, 1/16 of a row
// tile's work here). Against bm_read_ceiling's warm row it shows whether the warm target is within reach.
void bm_mx_l1(benchmark::State& st, id t, kmx::matmul_path path) { bm_mx(st, t, path, true, l1_rows); }

// Reads a 96 MiB buffer (3× this host's 32 MiB L3), one word per 64-byte line: afterwards no cache
// level holds any earlier data (the "cold" rows).
void evict_caches() {
  static std::vector<std::uint64_t> evict(std::size_t(96) << 17, 1);
  std::uint64_t s = 0;
  for (std::size_t i = 0; i < evict.size(); i += 8) s += evict[i];
  benchmark::DoNotOptimize(s);
  benchmark::ClobberMemory();
}

// bm_mx with COLD weights: before each timed call, a 96 MiB buffer (3× this host's 32 MiB L3) is
// read, which evicts the weights from every cache level, so each call streams them from DRAM (what a
// GEMV whose weights were evicted by the other layers' sees). Manual time: only the MX call is timed.
void bm_mx_cold(benchmark::State& st, id t, kmx::matmul_path path) {
  const int k = int(st.range(0)), batch = int(st.range(1));
  const auto w = quantize(t, random_floats(std::size_t(N) * k, 1), N, k);
  const auto a = quantize(t, random_floats(std::size_t(batch) * k, 2), batch, k);
  auto wv = w.view();
  wv.finite_codes = mx::finite_codes(t, w.data);
  std::vector<float> out(std::size_t(batch) * N);
  if (kmx::matmul_t_block_scaled(t, a.view(), wv, out, path) != mx::status::ok) {
    st.SkipWithError("path not available");
    return;
  }
  for (auto _ : st) {
    evict_caches();
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(kmx::matmul_t_block_scaled(t, a.view(), wv, out, path));
    benchmark::ClobberMemory();
    st.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  set_counters(st, batch, k, double(w.data.size() + w.scale.size()));
}

// Seconds of one call of f (its result kept, memory clobbered after it).
template <class F>
double seconds(F f) {
  const auto t0 = std::chrono::steady_clock::now();
  benchmark::DoNotOptimize(f());
  benchmark::ClobberMemory();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Seconds of one `matmul_t_block_scaled` call (the timed half of the pair benchmarks below).
double timed_matmul(id t, const kmx::block_scaled_view& a, const kmx::block_scaled_view& b, std::span<float> out,
                    kmx::matmul_path p) {
  return seconds([&] { return kmx::matmul_t_block_scaled(t, a, b, out, p); });
}

#if defined(ARMLOWER_MX_AVX512)  // registered only where the AVX-512 path is compiled (MX_COLD_PAIR below)
// The two x86 paths with COLD weights, measured in pairs: every iteration evicts the caches, times
// the AVX2 path, evicts again, times the AVX-512 path (alternating which goes first), and the counters
// are the medians of the per-pair ratios t_avx2 / t_avx512 (> 1: AVX-512 faster; 10th/90th
// percentiles too) and of each path's GFLOP/s. Other processes' DRAM traffic shifts both halves of a
// pair alike, so the ratio is steadier than two separately timed bm_mx_cold rows.
void bm_mx_cold_pair(benchmark::State& st, id t) {
  const int k = int(st.range(0)), batch = int(st.range(1));
  const auto w = quantize(t, random_floats(std::size_t(N) * k, 1), N, k);
  const auto a = quantize(t, random_floats(std::size_t(batch) * k, 2), batch, k);
  auto wv = w.view();
  wv.finite_codes = mx::finite_codes(t, w.data);
  std::vector<float> out(std::size_t(batch) * N);
  for (auto p : {kmx::matmul_path::avx2, kmx::matmul_path::avx512})
    if (kmx::matmul_t_block_scaled(t, a.view(), wv, out, p) != mx::status::ok) {
      st.SkipWithError("path not available");
      return;
    }
  auto timed = [&](kmx::matmul_path p) {
    evict_caches();
    return timed_matmul(t, a.view(), wv, out, p);
  };
  std::vector<double> ratio, t2, t5;
  for (auto _ : st) {
    double x2, x5;
    if (ratio.size() % 2 == 0) {
      x2 = timed(kmx::matmul_path::avx2);
      x5 = timed(kmx::matmul_path::avx512);
    } else {
      x5 = timed(kmx::matmul_path::avx512);
      x2 = timed(kmx::matmul_path::avx2);
    }
    st.SetIterationTime(x2 + x5);
    ratio.push_back(x2 / x5);
    t2.push_back(x2);
    t5.push_back(x5);
  }
  report_pair(st, ratio, t2, t5, 2.0 * batch * double(N) * k, "avx2", "avx512");
}
#endif

// Sum of the 64-bit words of b (a streaming read, vectorised by the compiler; a short tail word by word).
std::uint64_t sum_words(std::span<const std::uint8_t> b) {
  const std::size_t n = b.size() / 8;
  std::uint64_t acc[8] = {};
  const auto* p = b.data();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (std::size_t j = 0; j < 8; ++j) {
      std::uint64_t v;
      std::memcpy(&v, p + 8 * (i + j), 8);
      acc[j] += v;
    }
  std::uint64_t s = 0;
  for (; i < n; ++i) {
    std::uint64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    s += v;
  }
  for (auto a : acc) s += a;
  return s;
}

// Seconds of one streaming read of the bytes a batch-1 GEMV over `w` reads: its codes, then its scales.
double timed_read(const mx_operand& w) {
  return seconds([&] { return sum_words(w.data) + sum_words(w.scale); });
}

// The read-bandwidth ceiling of a batch-1 GEMV in the same binary: a streaming read (`timed_read`) of
// exactly the bytes the GEMV reads — the packed weight codes and their E8M0 scales of the same format
// and shape, warm in cache like bm_mx's. GFLOP/s is reported as if this read were the GEMV (2·N·K
// per iteration), so bm_mx's GFLOP/s ÷ this row's is the fraction of the ceiling a path reaches
// (issue 14 item 3); GB/s is the bandwidth itself.
// Arguments {K, cold}: cold 1 evicts the caches before each timed read (`evict_caches`, the ceiling of
// the bm_mx_cold rows). Manual time: only the read is timed.
void bm_read_ceiling(benchmark::State& st, id t) {
  const int k = int(st.range(0));
  const auto w = quantize(t, random_floats(std::size_t(N) * k, 1), N, k);
  const bool cold = st.range(1) != 0;
  for (auto _ : st) {
    if (cold) evict_caches();
    st.SetIterationTime(timed_read(w));
  }
  const double bytes = double(w.data.size() + w.scale.size());
  set_counters(st, 1, k, bytes);
  st.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// The pair loop of the ceiling and prefetch-kind benchmarks: every iteration times `read` and `gemv` back
// to back (alternating which goes first; `cold`: each after `evict_caches`), and `ratio` = median of t_read
// ÷ t_gemv [10th, 90th percentile] is the fraction of the read ceiling the GEMV reaches (`flops` per GEMV;
// the two sides reported as `a_name` / `b_name`).
template <class Read, class Gemv>
void time_pairs(benchmark::State& st, bool cold, Read read, Gemv gemv, double flops, const std::string& a_name = "read",
                const std::string& b_name = "gemv") {
  std::vector<double> ratio, tr, tg;
  for (auto _ : st) {
    double xr, xg;
    if (cold) evict_caches();
    if (ratio.size() % 2 == 0) {
      xr = read();
      if (cold) evict_caches();
      xg = gemv();
    } else {
      xg = gemv();
      if (cold) evict_caches();
      xr = read();
    }
    st.SetIterationTime(xr + xg);
    ratio.push_back(xr / xg);
    tr.push_back(xr);
    tg.push_back(xg);
  }
  report_pair(st, ratio, tr, tg, flops, a_name, b_name);
}

// A batch-1 GEMV (path `path`) against its read ceiling, measured in pairs: every iteration times the
// streaming read of `bm_read_ceiling` and the GEMV back to back (alternating which goes first; with
// {K, cold} cold 1, each after `evict_caches`, else both warm), and `ratio` = median of t_read ÷ t_gemv
// [10th, 90th percentile] is the fraction of the ceiling the GEMV reaches (issue 14 item 3). Other
// processes' load and cache traffic shift both halves of a pair alike, so this ratio is steadier than
// the quotient of two separately timed rows.
void bm_ceiling_pair(benchmark::State& st, id t, kmx::matmul_path path) {
  const int k = int(st.range(0));
  const bool cold = st.range(1) != 0;
  const auto w = quantize(t, random_floats(std::size_t(N) * k, 1), N, k);
  const auto a = quantize(t, random_floats(std::size_t(k), 2), 1, k);
  auto wv = w.view();
  wv.finite_codes = mx::finite_codes(t, w.data);
  std::vector<float> out(static_cast<std::size_t>(N));
  if (kmx::matmul_t_block_scaled(t, a.view(), wv, out, path) != mx::status::ok) {
    st.SkipWithError("path not available");
    return;
  }
  time_pairs(st, cold, [&] { return timed_read(w); }, [&] { return timed_matmul(t, a.view(), wv, out, path); },
             2.0 * double(N) * k);
}

// B = `w` packed for `path` (`best` unless given; `kmx::pack_b`) in `storage`, at its first 64-byte boundary
// (`kmx::packed_b_in`, what the interpreter does) plus `offset` bytes; empty (and a skip) if it fails.
std::span<std::uint8_t> pack_best(benchmark::State& st, id t, const mx_operand& w, std::vector<std::uint8_t>& storage,
                                  std::size_t offset = 0, kmx::matmul_path path = kmx::matmul_path::best) {
  auto wv = w.view();
  wv.finite_codes = mx::finite_codes(t, w.data);
  const auto rows = std::size_t(w.shape[1]), k = std::size_t(w.shape[2]);
  storage.resize(kmx::packed_b_storage_size(t, rows, k, path) + offset);
  std::span<std::uint8_t> bytes = kmx::packed_b_in(storage, t, rows, k, path);
  if (!bytes.empty()) bytes = std::span<std::uint8_t>(bytes.data() + offset, bytes.size());
  if (bytes.empty() || kmx::pack_b(t, wv, bytes, path) != mx::status::ok) {
    st.SkipWithError("pack_b failed");
    return {};
  }
  return bytes;
}

// bm_mx with B packed once (`kmx::pack_b`, the `best` path's layout: tiles16 on AVX-512 VNNI for MXINT8,
// FP6E2M3 and FP4E2M1, with AVX-512 BF16 for FP8E4M3, FP8E5M2 and FP6E3M2) at a 64-byte boundary + `offset`
// bytes, and every call reading the packing (`matmul_t_block_scaled` over a `packed_b_view`).
// weight_bytes_per_MAC counts the whole packing.
void bm_mx_packed(benchmark::State& st, id t, std::size_t offset, kmx::matmul_path path = kmx::matmul_path::best) {
  const int k = int(st.range(0)), batch = int(st.range(1));
  const auto w = quantize(t, random_floats(std::size_t(N) * k, 1), N, k);
  const auto a = quantize(t, random_floats(std::size_t(batch) * k, 2), batch, k);
  std::vector<std::uint8_t> storage;
  const auto buf = pack_best(st, t, w, storage, offset, path);
  if (buf.empty()) return;
  std::vector<float> out(std::size_t(batch) * N);
  for (auto _ : st) {
    benchmark::DoNotOptimize(kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{buf}, out));
    benchmark::ClobberMemory();
  }
  set_counters(st, batch, k, double(buf.size()));
}

// bm_ceiling_pair for the packed GEMV of bm_mx_packed (64-byte aligned): its time against a streaming
// read of the whole packing (the bytes it reads), in pairs, {K, cold}.
void bm_ceiling_pair_packed(benchmark::State& st, id t, kmx::matmul_path path = kmx::matmul_path::best) {
  const int k = int(st.range(0));
  const bool cold = st.range(1) != 0;
  const auto w = quantize(t, random_floats(std::size_t(N) * k, 1), N, k);
  const auto a = quantize(t, random_floats(std::size_t(k), 2), 1, k);
  std::vector<std::uint8_t> storage;
  const auto buf = pack_best(st, t, w, storage, 0, path);
  if (buf.empty()) return;
  std::vector<float> out(static_cast<std::size_t>(N));
  time_pairs(
      st, cold, [&] { return seconds([&] { return sum_words(buf); }); },
      [&] { return seconds([&] { return kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{buf}, out); }); },
      2.0 * double(N) * k);
}

#if defined(ARMLOWER_MX_AVX512)
// The two tiles16 B prefetch kinds on this CPU, batch-1 GEMV in pairs ({K, cold}): the same packing
// twice, `kmx::packed_b_prefetch_byte` set to `l2_sparse` and to `l1_lines` (`pack_b` records the CPU's own kind;
// `arch::avx512::cpu_prefetch_kind`), timed alternately (cold: each after `evict_caches`);
// ratio = median of t_l2_sparse ÷ t_l1_lines (> 1: `l1_lines` faster). What the per-CPU choice rests on.
void bm_prefetch_kind_pair(benchmark::State& st, id t) {
  const int k = int(st.range(0));
  const bool cold = st.range(1) != 0;
  const auto w = quantize(t, random_floats(std::size_t(N) * k, 1), N, k);
  const auto a = quantize(t, random_floats(std::size_t(k), 2), 1, k);
  if (kmx::packed_b_layout_for(t, kmx::matmul_path::best) != kmx::packed_b_layout::tiles16) {
    st.SkipWithError("no tiles16 layout for this type: not available");
    return;
  }
  std::vector<std::uint8_t> s_sparse, s_lines;
  const auto sparse = pack_best(st, t, w, s_sparse), lines = pack_best(st, t, w, s_lines);
  if (sparse.empty() || lines.empty()) return;
  sparse[kmx::packed_b_prefetch_byte] = std::uint8_t(kmx::arch::avx512::prefetch_kind::l2_sparse);
  lines[kmx::packed_b_prefetch_byte] = std::uint8_t(kmx::arch::avx512::prefetch_kind::l1_lines);
  std::vector<float> out(static_cast<std::size_t>(N));
  auto gemv = [&](std::span<const std::uint8_t> b) {
    return seconds([&] { return kmx::matmul_t_block_scaled(t, a.view(), kmx::packed_b_view{b}, out); });
  };
  time_pairs(st, cold, [&] { return gemv(sparse); }, [&] { return gemv(lines); }, 2.0 * double(N) * k, "l2_sparse",
             "l1_lines");
}

// The two B prefetch kinds of the row-major AVX-512 batch-1 GEMV of the integer formats
// (`arch::avx512::int8_rows` with each `prefetch_kind`; `matmul_t_block_scaled` runs this CPU's,
// `cpu_prefetch_kind`), unpacked B as in bm_mx, in pairs ({K, cold}); ratio = median of t_l2_sparse ÷
// t_l1_lines (> 1: `l1_lines` faster).
void bm_rows_prefetch_kind_pair(benchmark::State& st, id t) {
  const int k = int(st.range(0));
  const bool cold = st.range(1) != 0;
  const auto w = quantize(t, random_floats(std::size_t(N) * k, 1), N, k);
  const auto a = quantize(t, random_floats(std::size_t(k), 2), 1, k);
  std::vector<float> out(static_cast<std::size_t>(N));
  const kmx::arch::rows_args r{a.data.data(), a.scale.data(), 1, w.data.data(), w.scale.data(), std::size_t(N),
                               std::size_t(k), out.data()};
  auto gemv = [&](kmx::arch::avx512::prefetch_kind kind) {
    return seconds([&] {
      armlower::dtype::with_dtype(t, [&](auto e) {
        constexpr id T = decltype(e)::value;
        if constexpr (kmx::arch::avx512::int8_rows_type(T))
          kmx::arch::avx512::int8_rows<T>(r, kind);
      });
      return out[0];
    });
  };
  time_pairs(
      st, cold, [&] { return gemv(kmx::arch::avx512::prefetch_kind::l2_sparse); },
      [&] { return gemv(kmx::arch::avx512::prefetch_kind::l1_lines); }, 2.0 * double(N) * k, "l2_sparse", "l1_lines");
}
#endif

// fp32 reference: sequential dot products (what TOSA MATMUL's pseudocode reads).
void bm_fp32_pseudocode(benchmark::State& st) {
  const int k = int(st.range(0)), batch = int(st.range(1));
  const auto w = random_floats(std::size_t(N) * k, 1), x = random_floats(std::size_t(batch) * k, 2);
  std::vector<float> out(std::size_t(batch) * N);
  for (auto _ : st) {
    for (int b = 0; b < batch; ++b)
      for (int n = 0; n < N; ++n) {
        float acc = 0.0f;
        const float* wr = &w[std::size_t(n) * k];
        const float* xr = &x[std::size_t(b) * k];
        for (int i = 0; i < k; ++i) acc += xr[i] * wr[i];
        out[std::size_t(b) * N + n] = acc;
      }
    benchmark::ClobberMemory();
  }
  set_counters(st, batch, k, 4.0 * N * k);
}

#if defined(__AVX2__) && defined(__FMA__)
// Tuned fp32 GEMV/GEMM, out[batch, N] = x[batch, K] · w[N, K]^T: 4 weight rows at a time, 2
// accumulators each, AVX2 FMA; batch loop inside a row tile.
void fp32_avx2(const float* w, const float* x, float* out, int batch, int k) {
  auto hsum = [](__m256 v) {
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
  };
  for (int n = 0; n < N; n += 4) {
    for (int b = 0; b < batch; ++b) {
      const float* xr = &x[std::size_t(b) * k];
      __m256 acc[8];
      for (auto& v : acc) v = _mm256_setzero_ps();
      for (int i = 0; i < k; i += 16) {
        const __m256 x0 = _mm256_loadu_ps(xr + i), x1 = _mm256_loadu_ps(xr + i + 8);
        for (int r = 0; r < 4; ++r) {
          const float* wr = &w[std::size_t(n + r) * k + i];
          acc[2 * r] = _mm256_fmadd_ps(_mm256_loadu_ps(wr), x0, acc[2 * r]);
          acc[2 * r + 1] = _mm256_fmadd_ps(_mm256_loadu_ps(wr + 8), x1, acc[2 * r + 1]);
        }
      }
      for (int r = 0; r < 4; ++r) out[std::size_t(b) * N + n + r] = hsum(_mm256_add_ps(acc[2 * r], acc[2 * r + 1]));
    }
  }
}

void bm_fp32_avx2(benchmark::State& st) {
  const int k = int(st.range(0)), batch = int(st.range(1));
  const auto w = random_floats(std::size_t(N) * k, 1), x = random_floats(std::size_t(batch) * k, 2);
  std::vector<float> out(std::size_t(batch) * N);
  for (auto _ : st) {
    fp32_avx2(w.data(), x.data(), out.data(), batch, k);
    benchmark::ClobberMemory();
  }
  set_counters(st, batch, k, 4.0 * N * k);
}

// The targets' ratio measured in pairs: every iteration times the tuned fp32 GEMV and the MX GEMV
// (kernel path `path`, weights with `finite_codes`) back to back, in alternating order, and the
// counters are the medians (and 10th/90th percentiles) of the per-pair ratios t_fp32 / t_mx. A shared
// host's load shifts both halves of a pair alike, so the ratio is steadier than two separately timed
// rows. Registered for every path compiled into this binary (and `best`, what users get).
void bm_pair_ratio(benchmark::State& st, id t, kmx::matmul_path path) {
  const int k = int(st.range(0)), batch = int(st.range(1));
  const auto wf = random_floats(std::size_t(N) * k, 1), xf = random_floats(std::size_t(batch) * k, 2);
  const auto w = quantize(t, wf, N, k), a = quantize(t, xf, batch, k);
  auto wv = w.view();
  wv.finite_codes = mx::finite_codes(t, w.data);
  std::vector<float> out(std::size_t(batch) * N);
  if (kmx::matmul_t_block_scaled(t, a.view(), wv, out, path) != mx::status::ok) {
    st.SkipWithError("path not available");
    return;
  }
  std::vector<double> ratio, t32, tmx;
  auto timed = [](auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  for (auto _ : st) {
    auto run32 = [&] { fp32_avx2(wf.data(), xf.data(), out.data(), batch, k); };
    auto runmx = [&] { benchmark::DoNotOptimize(kmx::matmul_t_block_scaled(t, a.view(), wv, out, path)); };
    double a32, amx;
    if (ratio.size() % 2 == 0) {
      a32 = timed(run32);
      amx = timed(runmx);
    } else {
      amx = timed(runmx);
      a32 = timed(run32);
    }
    benchmark::ClobberMemory();
    st.SetIterationTime(a32 + amx);
    ratio.push_back(a32 / amx);
    t32.push_back(a32);
    tmx.push_back(amx);
  }
  report_pair(st, ratio, t32, tmx, 2.0 * batch * double(N) * k, "fp32", "mx");
}
#endif

#if defined(ARMLOWER_BENCH_HAVE_DNNL)
// oneDNN sgemm (row-major): out[batch, N] = x[batch, K] · w[N, K]^T.
void bm_fp32_onednn(benchmark::State& st) {
  // One thread like every other row: oneDNN's OpenMP workers would otherwise run beside the timed
  // thread, and Google Benchmark's CPU time counts only the timed thread.
  omp_set_num_threads(1);
  const int k = int(st.range(0)), batch = int(st.range(1));
  const auto w = random_floats(std::size_t(N) * k, 1), x = random_floats(std::size_t(batch) * k, 2);
  std::vector<float> out(std::size_t(batch) * N);
  for (auto _ : st) {
    dnnl_sgemm('N', 'T', batch, N, k, 1.0f, x.data(), k, w.data(), k, 0.0f, out.data(), N);
    benchmark::ClobberMemory();
  }
  set_counters(st, batch, k, 4.0 * N * k);
}
#endif

// MX quantization of a [4096, K] weight matrix (the lowering passes' ahead-of-time step).
void bm_quantize(benchmark::State& st, id t, mx::scale_mode mode) {
  const int k = int(st.range(0));
  const auto w = random_floats(std::size_t(N) * k, 3);
  std::vector<std::uint8_t> data(mx::storage_bytes(t, w.size())), scale(w.size() / 32);
  for (auto _ : st) {
    benchmark::DoNotOptimize(mx::quantize(w, std::size_t(k), t, mode, data, scale));
    benchmark::ClobberMemory();
  }
  st.counters["Mweights/s"] = benchmark::Counter(double(w.size()) * 1e-6, benchmark::Counter::kIsIterationInvariantRate);
}

void shapes(benchmark::internal::Benchmark* b) {
  for (int k : {1024, 4096})
    for (int batch : {1, 8}) b->Args({k, batch});
  b->Unit(benchmark::kMicrosecond);
}

}  // namespace

#define MX_BENCH(T, P) \
  BENCHMARK_CAPTURE(bm_mx, T##_##P, id::T, kmx::matmul_path::P)->Apply(shapes)
MX_BENCH(fp8e4m3, reference);
MX_BENCH(fp8e4m3, integer);
MX_BENCH(fp8e4m3, avx2);
BENCHMARK_CAPTURE(bm_mx, fp8e4m3_avx2_unchecked, id::fp8e4m3, kmx::matmul_path::avx2, false)->Apply(shapes);
MX_BENCH(fp6e2m3, reference);
MX_BENCH(fp6e2m3, integer);
MX_BENCH(fp6e2m3, avx2);
MX_BENCH(fp6e3m2, avx2);
MX_BENCH(fp4e2m1, reference);
MX_BENCH(fp4e2m1, integer);
MX_BENCH(fp4e2m1, avx2);
MX_BENCH(fp8e5m2, avx2);
MX_BENCH(mxint8, avx2);
#if defined(ARMLOWER_MX_AVX512)  // only on AVX-512 hosts (-march=native there); not timed so far
MX_BENCH(fp8e4m3, avx512);
MX_BENCH(fp6e2m3, avx512);
MX_BENCH(fp6e3m2, avx512);
MX_BENCH(fp4e2m1, avx512);
MX_BENCH(fp8e5m2, avx512);
MX_BENCH(mxint8, avx512);
#endif
// Cold-weight batch-1 GEMVs of the x86 paths and `best` (bm_mx_cold).
#define MX_COLD(T, P)                                                                   \
  BENCHMARK_CAPTURE(bm_mx_cold, T##_##P, id::T, kmx::matmul_path::P)                    \
      ->Args({1024, 1})                                                                 \
      ->Args({4096, 1})                                                                 \
      ->UseManualTime()                                                                 \
      ->Unit(benchmark::kMicrosecond)
#define MX_COLD_PATHS(T) \
  MX_COLD(T, avx2);      \
  MX_COLD(T, best)
MX_COLD_PATHS(fp8e4m3);
MX_COLD_PATHS(fp8e5m2);
MX_COLD_PATHS(fp6e2m3);
MX_COLD_PATHS(fp6e3m2);
MX_COLD_PATHS(fp4e2m1);
MX_COLD_PATHS(mxint8);
#if defined(ARMLOWER_MX_AVX512)
#define MX_COLD_PAIR(T)                                          \
  BENCHMARK_CAPTURE(bm_mx_cold_pair, T, id::T)                   \
      ->Args({1024, 1})                                          \
      ->Args({4096, 1})                                          \
      ->UseManualTime()                                          \
      ->MinTime(1.0)                                             \
      ->Unit(benchmark::kMicrosecond)
MX_COLD_PAIR(fp8e4m3);
MX_COLD_PAIR(fp8e5m2);
MX_COLD_PAIR(fp6e2m3);
MX_COLD_PAIR(fp6e3m2);
MX_COLD_PAIR(fp4e2m1);
MX_COLD_PAIR(mxint8);
MX_COLD(fp8e4m3, avx512);
MX_COLD(fp8e5m2, avx512);
MX_COLD(fp6e2m3, avx512);
MX_COLD(fp6e3m2, avx512);
MX_COLD(fp4e2m1, avx512);
MX_COLD(mxint8, avx512);
#endif
// Batch-1 GEMVs of the x86 paths and `best` with B in L1 (bm_mx_l1).
#define MX_L1(T, P) \
  BENCHMARK_CAPTURE(bm_mx_l1, T##_##P, id::T, kmx::matmul_path::P)->Args({1024, 1})->Unit(benchmark::kMicrosecond)
#define MX_L1_PATHS(T) \
  MX_L1(T, avx2);      \
  MX_L1(T, best)
MX_L1_PATHS(fp8e4m3);
MX_L1_PATHS(fp8e5m2);
MX_L1_PATHS(fp6e2m3);
MX_L1_PATHS(fp6e3m2);
MX_L1_PATHS(fp4e2m1);
MX_L1_PATHS(mxint8);
#if defined(ARMLOWER_MX_AVX512)
MX_L1(fp8e4m3, avx512);
MX_L1(fp8e5m2, avx512);
MX_L1(fp6e2m3, avx512);
MX_L1(fp6e3m2, avx512);
MX_L1(fp4e2m1, avx512);
MX_L1(mxint8, avx512);
#endif
// `bench` registered as `name` (captured arguments after it) over {K 1024, 4096} × {warm 0, cold 1},
// manual time: the shape of the ceiling and pair rows below.
#define MX_K_COLD(bench, name, ...)                                                          \
  BENCHMARK_CAPTURE(bench, name, __VA_ARGS__)                                                \
      ->ArgsProduct({{1024, 4096}, {0, 1}})                                                  \
      ->UseManualTime()                                                                      \
      ->Unit(benchmark::kMicrosecond)
// Read ceilings of the batch-1 GEMVs above (same bytes per format and K).
#define MX_CEILING(T) MX_K_COLD(bm_read_ceiling, T, id::T)
MX_CEILING(fp8e4m3);
MX_CEILING(fp6e2m3);
MX_CEILING(fp4e2m1);
MX_CEILING(mxint8);
// Batch-1 GEMVs against their read ceilings in pairs (bm_ceiling_pair), {K, cold}.
#define MX_CEILING_PAIR(T, P) MX_K_COLD(bm_ceiling_pair, T##_##P, id::T, kmx::matmul_path::P)
#define MX_CEILING_PAIR_PATHS(T) \
  MX_CEILING_PAIR(T, avx2);      \
  MX_CEILING_PAIR(T, best)
MX_CEILING_PAIR_PATHS(fp8e4m3);
MX_CEILING_PAIR_PATHS(fp8e5m2);
MX_CEILING_PAIR_PATHS(fp6e2m3);
MX_CEILING_PAIR_PATHS(fp6e3m2);
MX_CEILING_PAIR_PATHS(fp4e2m1);
MX_CEILING_PAIR_PATHS(mxint8);
#if defined(ARMLOWER_MX_AVX512)
MX_CEILING_PAIR(fp8e4m3, avx512);
MX_CEILING_PAIR(fp8e5m2, avx512);
MX_CEILING_PAIR(fp6e2m3, avx512);
MX_CEILING_PAIR(fp6e3m2, avx512);
MX_CEILING_PAIR(fp4e2m1, avx512);
MX_CEILING_PAIR(mxint8, avx512);
#endif
// B packed once (`kmx::pack_b` for `best`) at a 64-byte boundary: warm rows (bm_mx_packed; `_at16`: the
// packing at 16 mod 64, where `std::vector` puts large buffers) and pairs against the read of the packing
// ({K, cold}, bm_ceiling_pair_packed). Every MX type: the ones without a tiles16 layout run their
// row-major kernels over a copy.
#define MX_PACKED(T)                                                                         \
  BENCHMARK_CAPTURE(bm_mx_packed, T, id::T, 0)->Apply(shapes);                               \
  BENCHMARK_CAPTURE(bm_mx_packed, T##_at16, id::T, 16)->Args({1024, 1})->Args({4096, 1});    \
  MX_K_COLD(bm_ceiling_pair_packed, T, id::T)
MX_PACKED(fp8e4m3);
MX_PACKED(fp8e5m2);
MX_PACKED(fp6e2m3);
MX_PACKED(fp6e3m2);
MX_PACKED(fp4e2m1);
MX_PACKED(mxint8);
// The same for the `avx2` path (its tiles16 kernel for the integer types: what an AVX2-only CPU's `best`
// packs and runs), on any CPU with AVX2
#define MX_PACKED_AVX2(T)                                                                                     \
  BENCHMARK_CAPTURE(bm_mx_packed, T##_avx2, id::T, 0, kmx::matmul_path::avx2)->Apply(shapes);                \
  MX_K_COLD(bm_ceiling_pair_packed, T##_avx2, id::T, kmx::matmul_path::avx2)
#if defined(__AVX2__) && defined(__FMA__)
MX_PACKED_AVX2(fp6e2m3);
MX_PACKED_AVX2(fp4e2m1);
MX_PACKED_AVX2(mxint8);
#endif
#if defined(ARMLOWER_MX_AVX512)
#define MX_PREFETCH_KINDS(T) MX_K_COLD(bm_prefetch_kind_pair, T, id::T)
MX_PREFETCH_KINDS(fp8e4m3);
MX_PREFETCH_KINDS(fp8e5m2);
MX_PREFETCH_KINDS(fp6e2m3);
MX_PREFETCH_KINDS(fp6e3m2);
MX_PREFETCH_KINDS(fp4e2m1);
MX_PREFETCH_KINDS(mxint8);
// The row-major integer GEMV with each prefetch kind (bm_rows_prefetch_kind_pair).
#define MX_ROWS_PREFETCH_KINDS(T) MX_K_COLD(bm_rows_prefetch_kind_pair, T, id::T)
MX_ROWS_PREFETCH_KINDS(fp6e2m3);
MX_ROWS_PREFETCH_KINDS(fp6e3m2);
MX_ROWS_PREFETCH_KINDS(fp4e2m1);
MX_ROWS_PREFETCH_KINDS(mxint8);
#endif
// What users get: `matmul_path::best` (the run-time interpreter uses it whenever it is bit-exact).
MX_BENCH(fp8e4m3, best);
MX_BENCH(fp6e2m3, best);
MX_BENCH(fp6e3m2, best);
MX_BENCH(fp4e2m1, best);
MX_BENCH(fp8e5m2, best);
MX_BENCH(mxint8, best);
BENCHMARK(bm_fp32_pseudocode)->Apply(shapes);
#if defined(__AVX2__) && defined(__FMA__)
BENCHMARK(bm_fp32_avx2)->Apply(shapes);
#define MX_PAIR(T, P)                                                                                   \
  BENCHMARK_CAPTURE(bm_pair_ratio, T##_##P, id::T, kmx::matmul_path::P)                                \
      ->Args({4096, 1})                                                                                 \
      ->Args({1024, 1})                                                                                 \
      ->UseManualTime()                                                                                 \
      ->MinTime(3.0)                                                                                    \
      ->Unit(benchmark::kMillisecond)
#define MX_PAIR_PATHS(T) \
  MX_PAIR(T, reference); \
  MX_PAIR(T, integer);   \
  MX_PAIR(T, avx2);      \
  MX_PAIR(T, best)
MX_PAIR_PATHS(fp8e4m3);
MX_PAIR_PATHS(fp6e2m3);
MX_PAIR_PATHS(fp6e3m2);
MX_PAIR_PATHS(fp4e2m1);
#if defined(ARMLOWER_MX_AVX512)
MX_PAIR(fp8e4m3, avx512);
MX_PAIR(fp6e2m3, avx512);
MX_PAIR(fp6e3m2, avx512);
MX_PAIR(fp4e2m1, avx512);
#endif
#endif
#if defined(ARMLOWER_BENCH_HAVE_DNNL)
BENCHMARK(bm_fp32_onednn)->Apply(shapes);
#endif
BENCHMARK_CAPTURE(bm_quantize, fp8e4m3_rceil, id::fp8e4m3, mx::scale_mode::rceil)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_quantize, fp8e4m3_tosa, id::fp8e4m3, mx::scale_mode::tosa)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_quantize, fp6e2m3_rceil, id::fp6e2m3, mx::scale_mode::rceil)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_quantize, fp4e2m1_rceil, id::fp4e2m1, mx::scale_mode::rceil)->Arg(4096)->Unit(benchmark::kMillisecond);
