// The batch × (K, N) shapes of the host linear benchmarks (issue 14's table; 2048² kept from the
// earlier dispatch study, see RESULTS.md), shared by linear.bench.cpp and interpreter.bench.cpp.
#pragma once

#include <benchmark/benchmark.h>

namespace bench_shapes {

inline constexpr int shapes[][3] = {{1, 64, 64},   {1, 256, 256}, {1, 1024, 1024}, {1, 2048, 2048}, {1, 4000, 4},
                                    {1, 4096, 4096}, {8, 64, 64}, {8, 256, 256},   {8, 1024, 1024}, {8, 2048, 2048},
                                    {8, 4000, 4},   {8, 4096, 4096}};

/// Registers every shape as (batch, K, N) arguments.
inline void args(benchmark::internal::Benchmark* b) {
  for (const auto& s : shapes) b->Args({s[0], s[1], s[2]});
  b->ArgNames({"batch", "K", "N"});
}

}  // namespace bench_shapes
