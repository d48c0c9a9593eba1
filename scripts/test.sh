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
ctest --preset dev "$@"
