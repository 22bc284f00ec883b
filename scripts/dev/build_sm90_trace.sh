#!/usr/bin/env bash
# Builds the Hopper kernel's timeline probe (scripts/dev/sm90_trace.cu) with extra definitions:
#   scripts/dev/build_sm90_trace.sh OUTPUT [DEFINITIONS...]
# e.g. scripts/dev/build_sm90_trace.sh build-gpu/sm90_trace_eo -DSM90_TRACE_EVENT_ONLY
# Used by gpu_session.sh's trace step and by trace_ab.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
shift
cd "$root" && exec nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
  "$@" -I core/include -I src -I kernels scripts/dev/sm90_trace.cu kernels/common/sm90/tma_desc.cpp \
  core/cuda_check.cpp core/device_caps.cpp core/registry.cpp src/runner/l2_flush.cu core/types.cpp -lcublas -o "$out"
