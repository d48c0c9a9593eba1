#!/usr/bin/env bash
# armlower's main job: installs what is missing, builds the host tool and runs `armlower demo`
# (arguments are passed on to the tool: `scripts/demo.sh lower model.tflite ...`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
cd "$root"
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target armlower_tool >/dev/null
if [ $# -eq 0 ]; then set -- demo; fi
exec "$root/build/release/tools/armlower/armlower" "$@"
