#!/usr/bin/env bash
# Installs what armlower's build, tests and tool need on Debian 12 (only what is missing).
# Usage: scripts/deps.sh            (as root, or with sudo available)
set -euo pipefail
sudo_=""; [ "$(id -u)" -eq 0 ] || sudo_="sudo"
pkgs=(cmake ninja-build g++ python3 python3-pip libboost-dev doctest-dev libflatbuffers-dev
      flatbuffers-compiler libcli11-dev libbenchmark-dev gcc-arm-none-eabi libnewlib-arm-none-eabi
      binutils-arm-none-eabi qemu-system-arm clang libclang-rt-14-dev clang-tidy libstdc++-arm-none-eabi-newlib
      libsimde-dev nlohmann-json3-dev libprotobuf-dev protobuf-compiler qemu-user)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "armlower: installing ${missing[*]}" >&2
  $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# Python oracles (tests only): numpy, ml_dtypes, the TOSA reference model.
py=${PYTHON:-python3}
if ! "$py" -c "import numpy, ml_dtypes, tosa_reference_model" >/dev/null 2>&1; then
  echo "armlower: installing Python oracles (numpy, ml_dtypes, tosa-tools)" >&2
  "$py" -m pip install --quiet --disable-pip-version-check -r "$(dirname "$0")/requirements-oracles.txt" \
    || "$py" -m pip install --quiet --disable-pip-version-check --break-system-packages \
         -r "$(dirname "$0")/requirements-oracles.txt"
fi
# ONNX importer tests only: onnx (model building) and onnxruntime (the oracle).
if ! "$py" -c "import onnx, onnxruntime" >/dev/null 2>&1; then
  echo "armlower: installing onnx and onnxruntime (ONNX importer tests)" >&2
  "$py" -m pip install --quiet --disable-pip-version-check -r "$(dirname "$0")/requirements-onnx.txt" \
    -r "$(dirname "$0")/requirements-oracles.txt" \
    || "$py" -m pip install --quiet --disable-pip-version-check --break-system-packages \
         -r "$(dirname "$0")/requirements-onnx.txt" -r "$(dirname "$0")/requirements-oracles.txt"
fi
