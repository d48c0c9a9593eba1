#!/usr/bin/env bash
# Cortex-M55 executed-instruction counts of armlower's fused linear kernels (MVE, DSP, generic paths),
# side by side with CMSIS-NN v7 (github.com/ARM-software/CMSIS-NN @ 99f736a6: `arm_fully_connected_s8`
# with `arm_nn_vec_mat_mult_t_s8` and a precomputed `arm_vector_sum_s8` kernel_sum, per tensor, and
# `arm_fully_connected_s16` / `arm_nn_vec_mat_mult_t_s16`; arm-none-eabi-gcc 12.2.1 -Ofast,
# -mcpu=cortex-m55 for the MVE and -mcpu=cortex-m55+nomve for the DSP branch, one call counted under
# QEMU mps3-an547 by the same m55-icount tool; code size = arm-none-eabi-size of those functions'
# objects at -Os), plus .text sizes.
#
# usage: benchmarks/cortex-m55/run_icount.sh [--quick|--small|--rows] [--paths "mve dsp generic"] [--dtypes "s8 s16"]
#   --quick   only 1024×1024, batch 1 (a few minutes instead of ~1 hour: the generic and DSP images
#             execute tens of millions of single-stepped, logged instructions)
#   --small   only 64×64 and 256×256, batch 1 and 8
#   --rows    256 × N for N = 1, 4, 7, 8, 10, 12, 14, 16, 20, 24 and 16 × 16, batch 1 (few output rows:
#             which s8 layers a Cortex-M plan should pack; e.g. --rows --paths "mve mvepacked" --dtypes s8)
#   paths: mve, dsp, generic; mvepacked (s8 weights packed by pack_weights_s8; s16 = mve);
#          planmve, plandsp (the per-tensor plan instantiations, linear_features per_tensor_features)
# env: BUILD (default <repo>/build/cortex-m55-bench), M55_ICOUNT (default <repo>/../shared/tools/m55-icount)
# Prints a markdown table (instructions per MAC) and the code sizes; deterministic (QEMU -singlestep).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD:-$root/build/cortex-m55-bench}
icount=${M55_ICOUNT:-$root/../shared/tools/m55-icount}
quick=""; paths="mve dsp generic"; dtypes="s8 s16"
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=_quick ;;
    --small) quick=_small ;;
    --rows) quick=_rows ;;
    --paths) paths=$2; shift ;;
    --dtypes) dtypes=$2; shift ;;
    *) echo "run_icount.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

# A throw-away top-level project containing only this folder (the firmware harness of
# cmake/ArmlowerFirmware.cmake), so host-side dependencies of the rest of the tree are not needed.
mkdir -p "$build/project"
cat > "$build/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(armlower_m55_bench CXX)
set(ARMLOWER_FIRMWARE_TESTS ON)
list(APPEND CMAKE_MODULE_PATH "$root/cmake")
add_subdirectory("$root/benchmarks/cortex-m55" cortex-m55)
CMAKE
cmake -S "$build/project" -B "$build" -G Ninja >/dev/null
variant() { case $1 in mve | mvepacked | planmve) echo mve ;; *) echo nomve ;; esac; }
anchor_path() { case $1 in mve | mvepacked | planmve) echo mve ;; dsp | plandsp) echo dsp ;; *) echo "$1" ;; esac; }
targets=""
for d in $dtypes; do for p in $paths; do targets="$targets bench_m55_${d}_${p}${quick}.$(variant "$p")"; done; done
cmake --build "$build" --target $targets -j2 >/dev/null
declare -A count
for d in $dtypes; do
  for p in $paths; do
    elf="$build/cortex-m55/bench_m55_${d}_${p}${quick}.$(variant "$p").elf"
    echo "measuring $(basename "$elf") ..." >&2
    i=0
    while read -r _ _ n _; do count[$d,$p,$i]=$n; i=$((i + 1)); done < <("$icount" "$elf")
  done
done

# Shapes in image order (linear_icount.cpp) and the CMSIS-NN v7 figures (instructions per MAC; source in
# the header comment).
if [ "$quick" = _quick ]; then shapes=("1024 1024 1")
elif [ "$quick" = _small ]; then shapes=("64 64 1" "256 256 1" "64 64 8" "256 256 8")
elif [ "$quick" = _rows ]; then
  shapes=("256 1 1" "256 4 1" "256 7 1" "256 8 1" "256 10 1" "256 12 1" "256 14 1" "256 16 1" "256 20 1" "256 24 1" "16 16 1")
else
  shapes=("64 64 1" "256 256 1" "1024 1024 1" "4000 4 1" "64 64 8" "256 256 8" "1024 1024 8" "4000 4 8"); fi
declare -A anchor=(
  [s8,mve,64x64x1]=0.699 [s8,dsp,64x64x1]=2.669 [s16,mve,64x64x1]=1.572 [s16,dsp,64x64x1]=3.130
  [s8,mve,256x256x1]=0.520 [s8,dsp,256x256x1]=2.067 [s16,mve,256x256x1]=0.973 [s16,dsp,256x256x1]=2.465
  [s8,mve,1024x1024x1]=0.481 [s8,dsp,1024x1024x1]=1.922 [s16,mve,1024x1024x1]=2.441 [s16,dsp,1024x1024x1]=2.682
  [s8,mve,4000x4x1]=0.481 [s8,dsp,4000x4x1]=1.895 [s16,mve,4000x4x1]=3.609 [s16,dsp,4000x4x1]=2.926
  [s8,mve,1024x1024x8]=0.481 [s8,dsp,1024x1024x8]=1.922 [s16,mve,1024x1024x8]=2.441 [s16,dsp,1024x1024x8]=2.682
  [s8,mve,256x256x8]=0.520 [s8,dsp,256x256x8]=2.067 [s16,mve,256x256x8]=0.972 [s16,dsp,256x256x8]=2.464)

header="| K × N, batch |"; rule="|---|"
for d in $dtypes; do for p in $paths; do
  header="$header $d $p |"; rule="$rule---|"
  [ "$p" != generic ] && { header="$header CMSIS-NN $d $p |"; rule="$rule---|"; }
done; done
echo; echo "Instructions per MAC (executed instructions of one kernel call / (K·N·batch)):"; echo
echo "$header"; echo "$rule"
i=0
for s in "${shapes[@]}"; do
  read -r k n b <<<"$s"
  line="| $k × $n, $b |"
  for d in $dtypes; do for p in $paths; do
    c=${count[$d,$p,$i]:-}
    if [ -n "$c" ]; then line="$line $(awk -v c="$c" -v m=$((k * n * b)) 'BEGIN{printf "%.3f", c/m}') |"
    else line="$line – |"; fi
    [ "$p" != generic ] && line="$line ${anchor[$d,$(anchor_path "$p"),${k}x${n}x${b}]:-–} |"
  done; done
  echo "$line"
  i=$((i + 1))
done

echo; echo "Raw counts (instructions per call):"; echo
for d in $dtypes; do for p in $paths; do
  line="$d $p:"; i=0
  for s in "${shapes[@]}"; do line="$line ${count[$d,$p,$i]:-–}"; i=$((i + 1)); done
  echo "    $line"
done; done

# Code size: one out-of-line instance of each path (kernel_size.cpp), arm-none-eabi-size of the object.
echo; echo "Code size (bytes of .text, arm-none-eabi-size of one object holding linear_s8 + linear_s16 of the path):"; echo
echo "| path | -Os | -O2 | CMSIS-NN s8 + s16 -Os |"; echo "|---|---|---|---|"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for p in mve "plan mve" "plan mve row-major" dsp "plan dsp" generic; do
  case $p in
    mve) id=2; cpu=cortex-m55; ref=3180 ;;
    "plan mve") id=3; cpu=cortex-m55; ref=3180 ;;
    "plan mve row-major") id=5; cpu=cortex-m55; ref=3180 ;;
    dsp) id=1; cpu=cortex-m55+nomve; ref=2506 ;;
    "plan dsp") id=4; cpu=cortex-m55+nomve; ref=2506 ;;
    *) id=0; cpu=cortex-m55+nomve; ref=– ;;
  esac
  line="| $p ($cpu) |"
  for o in -Os -O2; do
    arm-none-eabi-g++ -mcpu=$cpu -mthumb -mfloat-abi=hard -fno-exceptions -fno-rtti -std=c++20 $o \
      -DARMLOWER_SIZE_PATH=$id -I"$root/include" -isystem "$build/armlower-cross-include" \
      -c "$root/benchmarks/cortex-m55/kernel_size.cpp" -o "$tmp/k.o"
    line="$line $(arm-none-eabi-size "$tmp/k.o" | awk 'NR==2 {print $1}') |"
  done
  echo "$line $ref |"
done
