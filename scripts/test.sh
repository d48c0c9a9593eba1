#!/usr/bin/env bash
# The whole armlower test suite: installs what is missing, builds the dev preset
# (-Wall -Wextra -Werror), runs every ctest case (unit, static, compile-fail, package,
# CMSIS-NN vectors, Cortex-M55 firmware under QEMU, TOSA reference-model conformance).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
cd "$root"
cmake --preset dev
cmake --build --preset dev -j "$(nproc)"
# Every supported generator must build: a short target set (a host-generated plan header, a
# host test, two Cortex-M55 cross-compiles when the firmware toolchain is present) with the
# Unix Makefiles generator, CMake's default, in its own build directory.
cmake -S . -B build/make -G "Unix Makefiles" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" -DARMLOWER_BUILD_BENCHMARKS=OFF >/dev/null
make_targets=(passes_plan_header)
make_help=$(cmake --build build/make --target help)
for t in firmware_smoke.mve firmware_passes_plan.mve; do
  if grep -qx "\.\.\. $t" <<<"$make_help"; then make_targets+=("$t"); fi
done
cmake --build build/make -j "$(nproc)" --target "${make_targets[@]}"
ctest --test-dir build/make --output-on-failure -R "^($(IFS='|'; echo "${make_targets[*]}" | sed 's/\./\\./g'))\$"
# The benchmarks must keep building (-Werror, with or without the optional oneDNN/XNNPACK peers) and
# running: each is built for this CPU (-march=native, as the bench preset) and run on a small shape,
# failing on any benchmark error but a path this CPU lacks. Not a measurement (-O2; numbers live in benchmarks/RESULTS.md).
cmake -S . -B build/bench-ci -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS="-march=native -Wall -Wextra -Werror" \
      -DARMLOWER_BUILD_BENCHMARKS=ON -DARMLOWER_BUILD_TESTS=OFF -DARMLOWER_FIRMWARE_TESTS=OFF >/dev/null
cmake --build build/bench-ci -j "$(nproc)" --target bench_kernels_linear bench_mx lowering_bench
bench_smoke() {
  local out
  out=$("$@" --benchmark_min_time=0.001 2>&1) || { echo "$out"; return 1; }
  # a row whose path this CPU lacks reports "... not available"; any other error fails
  if grep "ERROR OCCURRED" <<<"$out" | grep -qv "not available"; then echo "$out"; return 1; fi
}
bench_smoke build/bench-ci/benchmarks/kernels/bench_kernels_linear --benchmark_filter='batch:1/K:64/'
bench_smoke build/bench-ci/benchmarks/mx/bench_mx --benchmark_filter='^bm_mx/.*/1024/1$'
build/bench-ci/benchmarks/lowering/lowering_bench int8 1 64 calib >/dev/null
build/bench-ci/benchmarks/lowering/lowering_bench a16w8 2 64 given >/dev/null
build/bench-ci/benchmarks/lowering/lowering_bench mxfp4 2 64 >/dev/null
ctest --preset dev "$@"
