#!/usr/bin/env bash
# One device call on a host of two GPUs (nvidia-h200-x2): build once, then two gpu_session.sh
# lanes at once, lane 0 on GPU 0 and lane 1 on GPU 1, each stopped (SIGTERM to the lane's whole
# process group: a report closes with its finished rows; rc 143) DEADLINE seconds after the call
# began. The tarballs are made only once every process of both lanes has ended: on 2026-11-30 a
# gemmbench outlived its lane's `timeout` (which signalled the lane's shell alone) and wrote a
# report while tar ran, which came back as a hard link to another lane's report. The same held seconds buy twice the
# GPU time of a one-GPU call; keep an A/B's two binaries in one lane (one board), not split.
#
#   BUILD_STEPS=$'build-overlay:build-ab/ov\nbuild' LANE0=$'bench:...\nuse-build:build-gpu-alt\nbench:...' \
#     LANE1=$'gtest:test_kernels:*e4m3*:200\nsanitize' DEADLINE=580 scripts/dev/gpu_lanes.sh
#
# An overlay named first in BUILD_STEPS builds beside the main build, and the build phase waits
# for it, so the lanes' use-build finds it whole (2026-11-29: 163 s for both on 32 cores, against
# about 150 for the main build alone). One gpu_session.sh step a line (steps hold spaces). A warm
# call that reuses the builds passes BUILD_STEPS=info. With build-ab/deepgemm.tar.gz present (scripts/dev/reference/README.md) the
# build includes the DeepGEMM plugin (DEEPGEMM_CONFIG: its instances, dense.json by default);
# TORCH=1 adds the PyTorch plugin when the host's Python has a torch with grouped_mm. $OUT gets
# boards.txt (each board's serial, the phases' times), the sessions' outputs, reports.tar.gz and
# all_logs.tar.gz: four or five files, under the eight a call brings back.
set -u
t_start=$(date +%s)
# A step that names an unexpanded variable (a $OUT inside single quotes on the calling side)
# fails only after the build: on 2026-12-02 a bench step's `--json $OUT/...` cost a whole call's
# build. Refuse such steps before anything runs.
for steps in "${BUILD_STEPS:-}" "${LANE0:-}" "${LANE1:-}"; do
  case $steps in
    *'$'*)
      echo "gpu_lanes: a step names an unexpanded variable; expand it on the calling side:" >&2
      grep -F '$' <<<"$steps" >&2
      exit 2
      ;;
  esac
done
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
export OUT=${OUT:-$root/gpu_out/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=index,name,serial,driver_version,power.limit,clocks.max.sm --format=csv >"$OUT/boards.txt" 2>&1
args=()
if [ -f build-ab/deepgemm.tar.gz ]; then
  [ -d build-ab/deepgemm ] || { mkdir -p build-ab/deepgemm && tar -xzf build-ab/deepgemm.tar.gz -C build-ab/deepgemm; }
  args+=("-DGEMMBENCH_DEEPGEMM_DIR=$root/build-ab/deepgemm"
    "-DGEMMBENCH_DEEPGEMM_CONFIG=$root/${DEEPGEMM_CONFIG:-scripts/dev/reference/deepgemm_plugin/dense.json}")
fi
if [ "${TORCH:-0}" = 1 ] && python3 -c "import torch, os, sys; sys.exit(not os.path.exists(os.path.join(os.path.dirname(torch.__file__), 'include/ATen/native/cuda/GroupMM.h')))" 2>/dev/null; then
  args+=(-DGEMMBENCH_TORCH_PLUGIN=ON "-DPython3_EXECUTABLE=$(command -v python3)")
  echo "torch: $(python3 -c 'import torch; print(torch.__version__)')" >>"$OUT/boards.txt"
fi
export GEMMBENCH_CMAKE_ARGS="${GEMMBENCH_CMAKE_ARGS:-} ${args[*]}"
mapfile -t bsteps <<<"${BUILD_STEPS:-info}"
OUT=$OUT/build GPU_SESSION_LOGS=$root/gpu_out/logs_build scripts/dev/gpu_session.sh "${bsteps[@]}" >"$OUT/build_session.txt" 2>&1
echo "build phase: $(($(date +%s) - t_start)) s" >>"$OUT/boards.txt"
left=$((${DEADLINE:-580} - ($(date +%s) - t_start)))
# A one-GPU host (the x2 kind is not always lent): lane 1's steps run after lane 0's, on GPU 0,
# within the same deadline, rather than failing on a GPU 1 that is not there (2026-12-01).
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${ngpu:-0}" -lt 2 ] && [ -n "${LANE1:-}" ]; then
  LANE0="${LANE0:+$LANE0$'\n'}$LANE1"
  LANE1=""
  echo "one GPU: lane 1's steps run after lane 0's, on GPU 0" >>"$OUT/boards.txt"
fi
pids=()
for lane in 0 1; do
  var=LANE$lane
  [ -z "${!var:-}" ] && continue
  mapfile -t lsteps <<<"${!var}"
  (
    # setsid: the lane leads a process group of its own (its pid is the group's id), which the
    # deadline signals whole, gemmbench and every other child included.
    CUDA_VISIBLE_DEVICES=$lane OUT=$OUT/lane$lane GPU_SESSION_LOGS=$root/gpu_out/logs_lane$lane BENCH_TAIL=${BENCH_TAIL:-2} \
      setsid scripts/dev/gpu_session.sh "${lsteps[@]}" >"$OUT/lane${lane}_session.txt" 2>&1 &
    sid=$!
    (
      for ((i = 0; i < left; i++)); do sleep 1; kill -0 -- "-$sid" 2>/dev/null || exit 0; done
      kill -TERM -- "-$sid" 2>/dev/null
      for ((i = 0; i < 30; i++)); do sleep 1; kill -0 -- "-$sid" 2>/dev/null || exit 0; done
      kill -KILL -- "-$sid" 2>/dev/null
    ) >/dev/null 2>&1 &
    dog=$!
    wait "$sid"
    rc=$?
    wait "$dog"  # returns once the whole group has ended (or been killed)
    echo "lane $lane: rc=$rc at $(($(date +%s) - t_start)) s" >>"$OUT/boards.txt"
  ) &
  pids+=($!)
done
[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
# A stopped lane leaves its logs untarred: take them all here.
mapfile -t logdirs < <(cd "$root/gpu_out" && ls -d logs_* 2>/dev/null)
tar -C "$root/gpu_out" -czf "$OUT/all_logs.tar.gz" "${logdirs[@]}"
scripts/dev/pack_reports.sh "$OUT"
echo "==== boards"
cat "$OUT/boards.txt"
for d in build lane0 lane1; do
  f=$root/gpu_out/logs_$d/summary.txt
  [ -f "$f" ] && { echo "==== $d"; grep -v -E '^(kernel|gemmbench |seed |regime |% SOL|$)' "$f" | cut -c1-240 | tail -50; }
done
