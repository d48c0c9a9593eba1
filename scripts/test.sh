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
ctest --preset dev "$@"
