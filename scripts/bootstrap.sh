#!/usr/bin/env bash
# Installs what is missing (Debian/Ubuntu packages), builds, and then either runs the default
# benchmark or the test suite. README.md's two commands are this script:
#
#   scripts/bootstrap.sh bench [gemmbench args...]   # build, then run gemmbench (default: configs/default.json)
#   scripts/bootstrap.sh test                        # build, then run every test (GPU tests skip without a GPU)
#
# The CUDA Toolkit (nvcc, cuBLAS) is not a Debian package of the right version: it is expected in
# /usr/local/cuda (or on PATH). BUILD_DIR (default build) and JOBS (default nproc) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case $mode in
  bench | test) shift ;;
  *)
    echo "usage: scripts/bootstrap.sh bench [gemmbench args...] | test" >&2
    exit 2
    ;;
esac

pkgs=(cmake ninja-build g++ git libcli11-dev libfmt-dev nlohmann-json3-dev zlib1g-dev libgtest-dev libgmock-dev
      python3 python3-matplotlib)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

export PATH=/usr/local/cuda/bin:$PATH
if ! command -v nvcc >/dev/null; then
  echo "bootstrap: nvcc not found: install the CUDA Toolkit (12.8 or newer, with cuBLAS) into /usr/local/cuda" >&2
  exit 1
fi

build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build "$build" -j "$jobs"

if [ "$mode" = bench ]; then
  exec "$build/gemmbench" "$@"
fi
ctest --test-dir "$build" --output-on-failure -j "$jobs"
