#!/usr/bin/env bash
# One GPU session in one call (the GPU is lent by the minute): build, GPU tests, sanitizers,
# benchmarks. Logs and reports go to $OUT (or ./gpu_out), a short table is printed last.
#
#   scripts/dev/gpu_session.sh [build] [test] [sanitize] [fp8] [bench-foundation] [bench-default] [ncu] ...
#   (each step is one case of the loop below; ncu-kernels / ncu-stalls profile one launch)
#   e.g. only the Hopper rung's tests: scripts/dev/gpu_session.sh build 'gtest:test_kernels:*sm90*:180'
#
# Expects the dependencies staged in .deps (scripts/dev/stage-deps.sh .deps, on a machine with the
# packages: CLI11, fmt, nlohmann/json, zlib, GoogleTest) when the host has no distro packages. Never changes clocks or resets the GPU.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu_out}
# Many files: tarred into $out at the end ($OUT returns few files). GPU_SESSION_LOGS names another
# folder, for two sessions at once on a host of two GPUs (one per CUDA_VISIBLE_DEVICES, each with
# its own OUT and logs; the build done once before them).
logs=${GPU_SESSION_LOGS:-$root/gpu_out/logs}
rm -rf "$logs" && mkdir -p "$logs" "$out"
declare -A alt_pids=()
build=$root/build-gpu
bin=$build/gemmbench
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build test)
summary=$logs/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
# A step's "<tag>:<kernel name regex>:<gemmbench args>" after its name: sets tag, regex and args.
split_tag_regex_args() {
  local rest=$1
  tag=${rest%%:*}
  rest=${rest#*:}
  regex=${rest%%:*}
  args=${rest#*:}
}
stamp=$(date -u +%Y%m%dT%H%M%SZ)

for step in "${steps[@]}"; do
  t0=$(date +%s)
  case $step in
    info)
      nvidia-smi >"$logs/nvidia-smi.txt" 2>&1
      nvidia-smi -q >"$logs/nvidia-smi-q.txt" 2>&1
      nvcc --version >"$logs/nvcc.txt" 2>&1
      note "info: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader 2>&1)"
      ;;
    build)
      prefix=()
      deps=${DEPS_DIR:-$root/.deps}
      [ -d "$deps" ] && prefix=(-DCMAKE_PREFIX_PATH="$deps")
      # GEMMBENCH_CMAKE_ARGS: more configure arguments (e.g. -DGEMMBENCH_BUILD_TESTS=OFF with a
      # DEPS_DIR without GoogleTest, when the working tree and .deps would exceed what a call
      # carries).
      # BUILD_TARGETS: only these targets (e.g. 'gemmbench test_kernels gemmbench_deepgemm', when
      # a call needs no host tests: fewer seconds of the call's limit spent building).
      build_targets=()
      # shellcheck disable=SC2206  # the targets are words
      [ -n "${BUILD_TARGETS:-}" ] && build_targets=(--target ${BUILD_TARGETS})
      # shellcheck disable=SC2086  # the arguments are words
      cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" ${GEMMBENCH_CMAKE_ARGS:-} >"$logs/configure.log" 2>&1 \
        && cmake --build "$build" -j "$(nproc)" ${build_targets[@]+"${build_targets[@]}"} >"$logs/build.log" 2>&1
      note "build${BUILD_TARGETS:+ [$BUILD_TARGETS]}: rc=$? ($(( $(date +%s) - t0 )) s), reports record git ${GEMMBENCH_GIT_COMMIT:-unset (CMake then asks git, and the .git copied to a GPU host may be stale: pass the literal hash)}"
      ;;
    build-overlay:*)
      # build-overlay:<dir>[:<targets>]; this tree with the files under <dir> laid over it
      # (scripts/dev/ab_overlay.sh makes <dir>), built in build-gpu-alt, or in the folder that
      # env:ALT_BUILD=<name> names (a third tree; targets: gemmbench by default). Runs in the
      # background: a later use-build:<that folder> waits for it.
      rest=${step#build-overlay:}
      odir=$root/${rest%%:*}
      targets=gemmbench
      [ "$rest" != "${rest%%:*}" ] && targets=${rest#*:}
      alt=${ALT_BUILD:-build-gpu-alt}
      alt_src=$root/$alt-src
      rm -rf "$alt_src" && mkdir -p "$alt_src"
      tar -C "$root" --exclude='./build*' --exclude=./gpu_out --exclude=./.deps -cf - . | tar -C "$alt_src" -xf -
      cp -r "$odir/." "$alt_src/"
      while read -r path; do [ -n "$path" ] && rm -f "$alt_src/$path"; done <"$odir/.deleted"
      prefix=()
      deps=${DEPS_DIR:-$root/.deps}
      [ -d "$deps" ] && prefix=(-DCMAKE_PREFIX_PATH="$deps")
      # shellcheck disable=SC2086  # targets are words
      # The alt binary's reports name the base commit and the overlay's ref.
      ( export GEMMBENCH_GIT_COMMIT="${GEMMBENCH_GIT_COMMIT:-unknown}+$(cat "$odir/.ref" 2>/dev/null)"
        cmake -S "$alt_src" -B "$root/$alt" -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" >"$logs/configure_$alt.log" 2>&1 \
        && cmake --build "$root/$alt" -j "$(nproc)" --target $targets >"$logs/build_$alt.log" 2>&1
        echo $? >"$logs/build_$alt.rc" ) &
      alt_pids[$alt]=$!
      note "build-overlay $rest into $alt: started in the background ($(find "$odir" -type f ! -name '.*' | wc -l) files)"
      ;;
    use-build:*)
      # use-build:<dir under the root>; the steps after it use that build's binary and tests.
      dir=${step#use-build:}
      if [ -n "${alt_pids[$dir]:-}" ]; then
        wait "${alt_pids[$dir]}"
        note "build-overlay into $dir: rc=$(cat "$logs/build_$dir.rc") (waited $(( $(date +%s) - t0 )) s)"
        unset "alt_pids[$dir]"
      fi
      build=$root/$dir
      bin=$build/gemmbench
      note "use-build: $build"
      ;;
    test)
      (cd "$build" && timeout 420 ctest --output-on-failure -j 1 >"$logs/ctest.log" 2>&1)
      note "ctest: rc=$? $(grep -E 'tests passed|tests failed' "$logs/ctest.log" | tail -1) ($(( $(date +%s) - t0 )) s)"
      grep -E '\*\*\*Failed|Timeout|\(Failed\)' "$logs/ctest.log" | head -40 | tee -a "$summary"
      ;;
    test-host)
      # Every host test (no GPU needed), in parallel: what CI runs, on the GPU host's cores.
      (cd "$build" && timeout 400 ctest -L host --output-on-failure -j "$(nproc)" >"$logs/ctest_host.log" 2>&1)
      note "ctest -L host: rc=$? $(grep -E 'tests passed|tests failed' "$logs/ctest_host.log" | tail -1) ($(( $(date +%s) - t0 )) s)"
      grep -E '\*\*\*Failed|Timeout|\(Failed\)' "$logs/ctest_host.log" | head -40 | tee -a "$summary"
      ;;
    gpu-tests)
      # The GPU suites run as whole binaries (one CUDA context each, not one per test case); the
      # Hopper rung runs separately under its own timeout so a hang cannot take the rest down.
      i=0
      for spec in "test_kernels:-*sm90*:300" "test_kernels:*sm90*:120" "test_runner_gpu:*:120" \
                  "test_sticky_error_gpu:*:60" "test_inspect_ldmatrix:*:60" \
                  "test_inspect_mma_peak:*:120" "test_decode:*:180" "test_telemetry_gpu:*:180" \
                  "test_cublaslt_gpu:*:180" "test_cublaslt_fp8_gpu:*:120" "test_fp8_runner_gpu:*:120"; do
        IFS=: read -r exe filter limit <<<"$spec"
        i=$((i + 1))
        log=$logs/gpu_test_${i}_$exe.log
        timeout "$limit" "$build/tests/$exe" --gtest_filter="$filter" >"$log" 2>&1
        note "$exe [$filter]: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
        grep -E '^\[  FAILED  \]' "$log" | head -30 | tee -a "$summary"
      done
      ;;
    gtest:*)
      # gtest:<test binary>:<gtest filter>:<seconds>; one GPU suite (or part of one). The filter may
      # hold ':' (gtest's "or"): the binary is the first field, the seconds the last.
      rest=${step#gtest:}
      exe=${rest%%:*}
      if [ "$rest" = "$exe" ]; then rest='*'; else rest=${rest#*:}; fi
      limit=${rest##*:}
      filter=${rest%:*}
      case $limit in '' | *[!0-9]*) filter=$rest limit= ;; esac
      log=$logs/gtest_${exe}_${filter//[^a-zA-Z0-9_]/}.log
      timeout "${limit:-120}" "$build/tests/$exe" --gtest_filter="${filter:-*}" >"$log" 2>&1
      note "$exe [$filter]: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
      grep -E '^\[  FAILED  \]' "$log" | head -30 | tee -a "$summary"
      ;;
    ncu-kernels:*)
      # ncu-kernels:<tag>:<gemmbench args>; one launch of every GEMM kernel the run makes, cuBLAS's
      # included: its name (cuBLAS's names its tile, stages and cluster), launch shape, registers,
      # SM clock, tensor pipe use and memory traffic side by side.
      rest=${step#ncu-kernels:}
      tag=${rest%%:*}
      args=${rest#*:}
      # NCU_KERNEL_REGEX widens the match (e.g. gemm|gemv|nvjet|xmma for the GEMV paths).
      timeout 300 ncu --clock-control none --kernel-name "regex:${NCU_KERNEL_REGEX:-gemm|nvjet|xmma}" \
        --launch-skip 4 --launch-count 4 \
        --section LaunchStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum \
        "$bin" $args --warmup 2 --min-samples 4 --min-time 0 --no-verify --quiet >"$logs/ncu_kernels_$tag.txt" 2>&1
      note "ncu-kernels $tag: rc=$?"
      grep -E '^  [A-Za-z_].*\(|Duration|Cluster Size|Grid Size|Registers Per|SM Frequency|dram__bytes|lts__t_bytes|sm__cycles_elapsed|inst_executed.sum|Compute \(SM\) Throughput' \
        "$logs/ncu_kernels_$tag.txt" | head -80 | tee -a "$summary"
      ;;
    fp8)
      # The FP8 path's checks (docs/fp8.md): its GPU suites, every FP8 kernel of test_kernels in
      # each scaling, memcheck over those, then the fp8gemm rungs beside cuBLASLt FP8 at one prefill
      # layer (DeepSeek-V3's 4096x7168x2048) in each scaling and with fast accumulation.
      for spec in "test_fp8_runner_gpu:*:120" "test_cublaslt_fp8_gpu:*:120" "test_kernels:*e4m3*:300"; do
        IFS=: read -r exe filter limit <<<"$spec"
        log=$logs/fp8_$exe.log
        timeout "$limit" "$build/tests/$exe" --gtest_filter="$filter" >"$log" 2>&1
        note "fp8 $exe [$filter]: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
        grep -E '^\[  FAILED  \]' "$log" | head -20 | tee -a "$summary"
      done
      GEMMBENCH_TEST_SMALL=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 \
        "$build/tests/test_kernels" --gtest_filter='*e4m3*' >"$logs/fp8_memcheck.log" 2>&1
      note "fp8 memcheck: rc=$? $(grep -E 'ERROR SUMMARY' "$logs/fp8_memcheck.log" | tail -1)"
      "$bin" --kernel "fp8gemm*" --m 4096 --n 7168 --k 2048 --dtype e4m3 --scale tensor,row,block128 \
        --json "$out/fp8_first_$stamp.json" >"$logs/fp8_bench.txt" 2>&1
      note "fp8 bench: rc=$?"
      "$bin" --kernel "fp8gemm*" --m 4096 --n 7168 --k 2048 --dtype e4m3 --scale tensor,row --fast-accum \
        --json "$out/fp8_first_fast_$stamp.json" >>"$logs/fp8_bench.txt" 2>&1
      note "fp8 bench (fast accumulation): rc=$?"
      grep -E '^(cublas|fp8gemm)|rows:' "$logs/fp8_bench.txt" | tee -a "$summary"
      ;;
    capped-grid)
      # The persistent kernels with their grid capped by the tests themselves (CappedGrid/*,
      # GemmArgs::test_max_ctas): multi-tile walks and stream-K splits; then memcheck over them.
      log=$logs/capped_grid.log
      timeout 300 "$build/tests/test_kernels" --gtest_filter='CappedGrid*' >"$log" 2>&1
      note "capped grid: rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$log" | tr '\n' ' ')"
      grep -E '^\[  FAILED  \]' "$log" | head -10 | tee -a "$summary"
      log=$logs/capped_grid_memcheck.log
      GEMMBENCH_TEST_SMALL=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 \
        "$build/tests/test_kernels" --gtest_filter='CappedGrid*' >"$log" 2>&1
      note "capped grid memcheck: rc=$? $(grep -E 'ERROR SUMMARY' "$log" | tail -1)"
      ;;
    test-kernels)
      timeout 400 "$build/tests/test_kernels" >"$logs/test_kernels.log" 2>&1
      note "test_kernels: rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$logs/test_kernels.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
      grep -E '^\[  FAILED  \]' "$logs/test_kernels.log" | head -40 | tee -a "$summary"
      ;;
    sanitize)
      # memcheck and synccheck over the kernel suite; racecheck (slow) over a few shapes and only
      # the kernels under test, not the reference/reduction kernels of the harness.
      # SANITIZE_BIN: another GPU test binary of the build (test_grouped_kernel_gpu: the grouped
      # kernels, which test_kernels leaves out), its logs named after it. SANITIZE_FILTER is a
      # gtest filter: a parametrized suite's tests are named Prefix/Suite.Test/param, so match
      # them with a leading * (*Pair*; "GroupedPairKernel*" matched none of them on 2026-11-30).
      filter=${SANITIZE_FILTER:-*}
      sbin=${SANITIZE_BIN:-test_kernels}
      stag=$([ "$sbin" = test_kernels ] && echo "" || echo "_$sbin")
      for tool in memcheck synccheck racecheck; do
        extra=()
        envs=(GEMMBENCH_TEST_SMALL=1)
        if [ $tool = racecheck ]; then
          extra=(--kernel-name-exclude "regex=reference_kernel|compare_kernel|fill_")
          envs=(GEMMBENCH_TEST_FEW=1)
        fi
        env "${envs[@]}" timeout "${SANITIZE_TIMEOUT:-150}" compute-sanitizer --tool $tool --error-exitcode 99 \
          "${extra[@]}" "$build/tests/$sbin" --gtest_filter="$filter" >"$logs/sanitize${stag}_$tool.log" 2>&1
        note "compute-sanitizer $tool ($sbin): rc=$? $(grep -c '^\[       OK' "$logs/sanitize${stag}_$tool.log") tests ok, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize${stag}_$tool.log" | tail -1) ($(( $(date +%s) - t0 )) s)"
      done
      ;;
    bench-foundation)
      "$bin" --kernel sgemm_naive,sgemm_coalesced --m 4096 --n 4096 --k 4096 \
        --json "$out/foundation_h100_$stamp.json" --csv "$logs/foundation.csv" >"$logs/bench_foundation.txt" 2>&1
      note "bench-foundation: rc=$?"
      cat "$logs/bench_foundation.txt" | tee -a "$summary"
      ;;
    bench-config:*)
      cfg=${step#bench-config:}
      name=$(basename "$cfg" .json)
      # The same config again in one session (repeats of a measurement): name_2, name_3, ...
      base=$name rep=1
      while [ -e "$out/${name}_$stamp.json" ]; do rep=$((rep + 1)) name=${base}_$rep; done
      "$bin" --config "$root/$cfg" --json "$out/${name}_$stamp.json" >"$logs/bench_$name.txt" 2>&1
      note "bench $cfg: rc=$? (env: ${GEMMBENCH_ENV_NOTE:-none})"
      cat "$logs/bench_$name.txt" | tee -a "$summary"
      ;;
    mma-peak)
      # The ceiling of mma.sync itself (registers only) under the power cap, f16 and bf16 inputs.
      "$bin" inspect mma-peak --json >"$out/mma_peak_f16_$stamp.json" 2>"$logs/mma_peak_f16.err"
      note "inspect mma-peak (f16): rc=$?"
      "$bin" inspect mma-peak --dtype bf16 --accum f32 --json >"$out/mma_peak_bf16_$stamp.json" 2>"$logs/mma_peak_bf16.err"
      note "inspect mma-peak (bf16): rc=$?"
      "$bin" inspect mma-peak --seconds 1 2>&1 | tee "$logs/mma_peak.txt" | tee -a "$summary"
      ;;
    inspect-ldmatrix)
      "$bin" inspect ldmatrix --trans >"$logs/inspect_ldmatrix.txt" 2>&1
      note "inspect ldmatrix --trans: rc=$?"
      cp "$logs/inspect_ldmatrix.txt" "$out/inspect_ldmatrix_trans.txt"
      ;;
    bench:*)
      # bench:<gemmbench args>; the table comes back in the summary (BENCH_TAIL=N: its last N lines).
      args=${step#bench:}
      nbench=$((${nbench:-0} + 1))
      "$bin" $args >"$logs/bench_adhoc_$nbench.txt" 2>&1
      note "bench $args: rc=$? (env: ${GEMMBENCH_ENV_NOTE:-none}) ($(( $(date +%s) - t0 )) s)"
      tail -n "${BENCH_TAIL:-1000}" "$logs/bench_adhoc_$nbench.txt" | tee -a "$summary"
      ;;
    deepgemm-peer:*)
      # deepgemm-peer:<deepgemm_bench.py args>; DeepGEMM timed by its own harness (the profiler's
      # kernel span), from build-ab/deepgemm.tar.gz (scripts/dev/reference/README.md, "DeepGEMM"):
      # the cross-check of the DeepGEMM plugin's figures in gemmbench's harness.
      args=${step#deepgemm-peer:}
      dg=/tmp/deepgemm
      mkdir -p "$dg" && tar -xzf "$root/build-ab/deepgemm.tar.gz" -C "$dg"
      # shellcheck disable=SC2086  # the arguments are words
      PYTHONPATH=$dg DG_CACHE_DIR=/tmp/deepgemm-jit PYTHONUNBUFFERED=1 \
        DG_NVCC_COMPILER=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc) \
        python3 "$root/scripts/dev/reference/deepgemm_bench.py" $args \
        --out "$out/deepgemm_peer_$stamp.jsonl" >"$logs/deepgemm_peer.txt" 2>&1
      note "deepgemm-peer $args: rc=$? ($(( $(date +%s) - t0 )) s)"
      tail -n 25 "$logs/deepgemm_peer.txt" | tee -a "$summary"
      ;;
    burst-check)
      # The burst regime against a stand-alone loop (docs/regimes.md, "Cross-check"): cuBLAS f16 /
      # f32-accumulate TN 5120x4096x4096, scripts/dev/reference/cublas_loop.cu's burst figure
      # (30 samples from a cool board), then gemmbench --regime burst with the default sampling
      # settings, each after a 5 s pause. The two medians should agree within 3%.
      nvcc -std=c++17 -O3 -arch=native "$root/scripts/dev/reference/cublas_loop.cu" -lcublas \
        -o "$build/cublas_loop" >"$logs/cublas_loop_build.log" 2>&1
      sleep 5
      "$build/cublas_loop" burst 5120 4096 4096 >"$out/cublas_loop_burst_$stamp.jsonl" 2>>"$logs/cublas_loop_build.log"
      sleep 5
      "$bin" --kernel cublas --m 5120 --n 4096 --k 4096 --layout tn --dtype f16 --accum f32 \
        --regime burst --json "$out/burst_cublas_$stamp.json" >"$logs/burst_cublas.txt" 2>&1
      note "burst-check: gemmbench rc=$?"
      python3 - "$out/cublas_loop_burst_$stamp.jsonl" "$out/burst_cublas_$stamp.json" <<'EOF2' | tee -a "$summary"
import json, sys
loop = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ref = next((l for l in loop if l["type"].startswith("f16")), None)
rows = json.load(open(sys.argv[2]))["results"]
r = rows[0]
g = r.get("regime", {})
tf = r.get("tflops")
line = (f"burst: gemmbench {tf and round(tf, 1)} TFLOP/s, status {r['status']}, samples {r['samples']}, "
        f"discarded {r['samples_discarded']}, windows {g.get('windows')}, batches kept/discarded "
        f"{g.get('batches_kept')}/{g.get('batches_discarded')}, probe first/kept/min "
        f"{g.get('probe_first_mhz')}/{g.get('probe_kept_median_mhz')}/{g.get('probe_min_mhz')} MHz, "
        f"telemetry {r['clock']['telemetry_samples']}, NVML clock median {r['clock']['sm_median_mhz']}")
print(line)
if ref and tf:
    print(f"burst: cublas_loop {ref['median_tflops']} TFLOP/s; gemmbench / loop = {tf / ref['median_tflops']:.4f}")
EOF2
      ;;
    compare:*)
      # compare:<base.json>:<new.json> (paths under $OUT); gemmbench compare's verdicts.
      rest=${step#compare:}
      "$bin" compare "$out/${rest%%:*}" "$out/${rest#*:}" >"$logs/compare_${rest//[^a-zA-Z0-9_]/}.txt" 2>&1
      note "compare ${rest%%:*} ${rest#*:}: rc=$?"
      grep -E "cases compared|SLOWER|faster" "$logs/compare_${rest//[^a-zA-Z0-9_]/}.txt" | head -20 | tee -a "$summary"
      cp "$logs/compare_${rest//[^a-zA-Z0-9_]/}.txt" "$out/"
      ;;
    env:*)
      # env:NAME=VALUE sets a variable for the steps after it (e.g. a kernel's measuring knob);
      # env:NAME= clears it. Bench steps name the variables set this way in the summary.
      kv=${step#env:}
      if [ -n "${kv#*=}" ]; then export "${kv?}"; else unset "${kv%%=*}"; fi
      GEMMBENCH_ENV_NOTE=$(env | grep -E '^GEMMBENCH_(SM90|AMPERE)_' | sort | tr '\n' ' ')
      note "env: ${GEMMBENCH_ENV_NOTE:-none}"
      ;;
    ncu-l2:*)
      # ncu-l2:<tag>:<gemmbench args>; where one launch's L2 traffic comes from (per source unit:
      # the SMs' own requests against the other L2 partition's, through the fabric), for every
      # GEMM kernel the run makes, cuBLAS's included. The metric names available are logged too.
      # NCU_SKIP / NCU_COUNT (default 4 / 4): the launches skipped, then profiled (a per-group
      # loop launches one kernel a group: count them all).
      rest=${step#ncu-l2:}
      tag=${rest%%:*}
      args=${rest#*:}
      ncu --query-metrics --chip gh100 2>&1 | grep -E '^lts__t_(sectors|requests)_src' >"$logs/ncu_l2_metric_names.txt"
      timeout 300 ncu --clock-control none --kernel-name "regex:${NCU_KERNEL_REGEX:-gemm|nvjet|xmma}" \
        --launch-skip "${NCU_SKIP:-4}" --launch-count "${NCU_COUNT:-4}" \
        --metrics "regex:^lts__t_sectors_src(unit|node)_[a-z]+\.sum$",lts__t_sectors.sum,lts__t_bytes.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second \
        "$bin" $args --warmup 2 --min-samples 4 --min-time 0 --no-verify --quiet >"$logs/ncu_l2_$tag.txt" 2>&1
      rc=$?
      if [ $rc -ne 0 ]; then  # a metric this ncu does not know: the source breakdown alone
        timeout 300 ncu --clock-control none --kernel-name "regex:${NCU_KERNEL_REGEX:-gemm|nvjet|xmma}" \
          --launch-skip "${NCU_SKIP:-4}" --launch-count "${NCU_COUNT:-4}" --metrics "regex:^lts__t_sectors_src(unit|node)_[a-z]+\.sum$",lts__t_bytes.sum \
          "$bin" $args --warmup 2 --min-samples 4 --min-time 0 --no-verify --quiet >>"$logs/ncu_l2_$tag.txt" 2>&1
        rc="$rc, retry with fewer metrics: $?"
      fi
      note "ncu-l2 $tag: rc=$rc (env: ${GEMMBENCH_ENV_NOTE:-none})"
      grep -E '^  [A-Za-z_].*\(|lts__|dram__bytes|gpu__time|cycles_elapsed' "$logs/ncu_l2_$tag.txt" | head -"${NCU_LINES:-60}" | tee -a "$summary"
      ;;
    sass)
      # Resource usage (registers, shared memory, stack/spills) and the instructions the kernels
      # were meant to contain, from the binary that ran.
      cuobjdump -res-usage "$bin" >"$logs/res_usage.txt" 2>&1
      cuobjdump -sass "$bin" >"$logs/sass.txt" 2>&1
      for ins in LDGSTS LDSM 'HMMA.16816' HGMMA UTMALDG 'LDS.128' FFMA; do
        note "sass: $ins $(grep -c "$ins" "$logs/sass.txt")"
      done
      # The whole binary's SASS is too large to come back; SASS_KERNEL=<regex> keeps the
      # functions whose names match it (their instruction counts and resources in the summary).
      if [ -n "${SASS_KERNEL:-}" ]; then
        awk -v re="$SASS_KERNEL" '/Function :/ {keep = ($0 ~ re)} keep' "$logs/sass.txt" >"$logs/sass_selected.txt"
        grep -E "Function|REG:" "$logs/res_usage.txt" | grep -A1 -E "$SASS_KERNEL" | grep -v '^--' | tee -a "$summary"
        for ins in LDGSTS LDSM 'HMMA.16816' 'BAR.SYNC' STL LDL; do
          note "sass ($SASS_KERNEL): $ins $(grep -c "$ins" "$logs/sass_selected.txt")"
        done
      fi
      rm -f "$logs/sass.txt"
      ;;
    ncu:*)
      # ncu:<kernel name regex>:<gemmbench args>; bank conflicts and pipe use of one launch.
      rest=${step#ncu:}
      regex=${rest%%:*}
      args=${rest#*:}
      timeout 300 ncu --clock-control none --kernel-name "regex:$regex" --launch-skip 2 --launch-count 1 \
        --section MemoryWorkloadAnalysis_Tables --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_ldsm.sum,smsp__inst_executed_op_ldgsts.sum \
        "$bin" $args --warmup 1 --min-samples 2 --min-time 0 --no-verify --quiet >"$logs/ncu_${regex//[^a-zA-Z0-9_]/}.txt" 2>&1
      note "ncu $regex: rc=$?"
      grep -E "bank_conflicts|wavefronts|op_ldsm|op_ldgsts|Shared .*Conflicts|Compute \(SM\) Throughput|Duration" "$logs/ncu_${regex//[^a-zA-Z0-9_]/}.txt" | head -20 | tee -a "$summary"
      ;;
    ncu-stalls:*)
      # ncu-stalls:<tag>:<kernel name regex>:<gemmbench args>; where one launch's warps wait:
      # the stall reasons per issued instruction, issue-slot and tensor-pipe use, SM clock.
      split_tag_regex_args "${step#ncu-stalls:}"
      timeout 300 ncu --clock-control none --kernel-name "regex:$regex" --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio",sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second \
        "$bin" $args --warmup 1 --min-samples 2 --min-time 0 --no-verify --quiet >"$logs/ncu_stalls_$tag.txt" 2>&1
      note "ncu-stalls $tag: rc=$?"
      grep -E "issue_stalled|hmma|issue_active|cycles_elapsed|Duration|Warp Cycles Per Issued|Issue Slots Busy|Eligible Warps" \
        "$logs/ncu_stalls_$tag.txt" | awk '$NF+0 >= 0.05 || /hmma|issue_active|elapsed|Duration|Warp Cycles|Issue Slots|Eligible/' | head -40 | tee -a "$summary"
      ;;
    ncu-gmma:*)
      # ncu-gmma:<tag>:<kernel name regex>:<gemmbench args>; a Hopper wgmma kernel's limits in one
      # launch: tensor (gmma) pipe activity, shared-memory wavefronts (LSU: the kernel's own
      # loads and stores beside wgmma's operand reads), issue-slot use and the stall reasons.
      split_tag_regex_args "${step#ncu-gmma:}"
      # The gmma pipe metrics by the names this ncu knows (a name it does not know fails the run).
      gmma=$(ncu --query-metrics --chip gh100 2>/dev/null | awk '{print $1}' |
        grep -E '^sm__(pipe_tensor_op_gmma|inst_executed_pipe_tensor_op_gmma)' | head -4 |
        sed 's/$/.avg.pct_of_peak_sustained_active/' | paste -sd, -)
      # NCU_SKIP (default 2): launches of the kernel skipped first. A cuBLASLt baseline tunes over
      # up to 8 algorithms, 5 launches each, before its own samples: skip 50 to profile the one it
      # picked. breakdown: lists the SM throughput's parts, the tensor pipes among them.
      timeout 300 ncu --clock-control none --kernel-name "regex:$regex" --launch-skip "${NCU_SKIP:-2}" --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --metrics "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed,${gmma:+$gmma,}l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,launch__grid_size,launch__cluster_dim_x,lts__throughput.avg.pct_of_peak_sustained_elapsed" \
        "$bin" $args --warmup 1 --min-samples 2 --min-time 0 --no-verify --quiet >"$logs/ncu_gmma_$tag.txt" 2>&1
      note "ncu-gmma $tag: rc=$?"
      grep -E "issue_stalled|gmma|tensor|wavefronts|bank_conflicts|issue_active|cycles_elapsed|gpu__time|lts__|dram__bytes|launch__|Warp Cycles Per Issued|Issue Slots Busy|Eligible Warps|Memory Throughput|Compute \(SM\)" \
        "$logs/ncu_gmma_$tag.txt" | grep -v -E "^==PROF==" | awk '$NF+0 >= 0.05 || !/issue_stalled/' | head -60 | tee -a "$summary"
      ;;
    ncu-source:*)
      # ncu-source:<tag>:<kernel name regex>:<gemmbench args>; warp-state samples per SASS
      # instruction of one launch (where in the mainloop the warps wait, and on what), as CSV in
      # the logs; scripts/dev/ncu_source_summary.py condenses it (run here on the CSV, or later).
      split_tag_regex_args "${step#ncu-source:}"
      timeout 300 ncu --clock-control none --kernel-name "regex:$regex" --launch-skip 2 --launch-count 1 \
        --section WarpStateStats --section SourceCounters --import-source no -f -o "$logs/ncu_source_$tag" \
        "$bin" $args --warmup 1 --min-samples 2 --min-time 0 --no-verify --quiet >"$logs/ncu_source_$tag.log" 2>&1
      rc=$?
      ncu -i "$logs/ncu_source_$tag.ncu-rep" --page source --csv --print-source sass \
        >"$logs/ncu_source_$tag.csv" 2>>"$logs/ncu_source_$tag.log"
      note "ncu-source $tag: rc=$rc, csv rc=$? ($(wc -l <"$logs/ncu_source_$tag.csv") lines)"
      rm -f "$logs/ncu_source_$tag.ncu-rep"
      python3 "$root/scripts/dev/ncu_source_summary.py" "$logs/ncu_source_$tag.csv" 2>&1 | head -40 | tee -a "$summary"
      # The CSV is large: it comes back compressed, on its own, not inside the logs' tarball.
      gzip -c "$logs/ncu_source_$tag.csv" >"$out/ncu_source_$tag.csv.gz" && rm -f "$logs/ncu_source_$tag.csv"
      ;;
    trace:*)
      # trace:<sm90_trace args>; the Hopper decode kernel's timeline probe (scripts/dev/sm90_trace.cu,
      # built once per session), e.g. trace:'16 4096 4096 40 0 0 dsmem'. All runs in one log.
      # env:SM90_TRACE_DEFINES='-DNAME=1' builds (once) and runs a copy of the probe with those
      # definitions (an experiment knob of the kernel); env:SM90_TRACE_DEFINES= goes back.
      tbin=$build/sm90_trace$(echo "${SM90_TRACE_DEFINES:-}" | tr -c 'A-Za-z0-9\n' _)
      if [ ! -x "$tbin" ]; then
        mkdir -p "$build"
        # shellcheck disable=SC2086  # the definitions are words
        "$root/scripts/dev/build_sm90_trace.sh" "$tbin" ${SM90_TRACE_DEFINES:-} >>"$logs/trace_build.log" 2>&1
        note "trace build ${SM90_TRACE_DEFINES:-}: rc=$?"
        SM90_TRACE_HEADER=1 "$tbin" 1 128 64 1 >>"$logs/trace.txt" 2>&1
      fi
      echo "== ${SM90_TRACE_DEFINES:-base} warm_code=${SM90_TRACE_WARM_CODE:-0}: ${step#trace:}" >>"$logs/trace.txt"
      timeout 120 "$tbin" ${step#trace:} >>"$logs/trace.txt" 2>&1
      note "trace [${SM90_TRACE_DEFINES:-base} warm=${SM90_TRACE_WARM_CODE:-0}] ${step#trace:}: rc=$? $(grep 'event time' "$logs/trace.txt" | tail -1)"
      ;;
    read-roof|read-roof:*)
      # read-roof[:<read_roof args>]; the fastest one launch reads each decode weight matrix,
      # cold L2 (scripts/dev/reference/read_roof.cu): what a GEMM at the memory roof could reach.
      mkdir -p "$build"
      (cd "$root" && nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I core/include -I src -I kernels \
        scripts/dev/reference/read_roof.cu core/cuda_check.cpp core/device_caps.cpp core/registry.cpp src/runner/l2_flush.cu \
        core/types.cpp core/grouping.cpp src/stats/stats.cpp kernels/common/sm90/tma_desc.cpp -lcublas -o "$build/read_roof") \
        >"$logs/read_roof_build.log" 2>&1
      note "read_roof build: rc=$?"
      args=${step#read-roof}
      timeout 300 "$build/read_roof" ${args#:} >"$out/read_roof_$stamp.jsonl" 2>"$logs/read_roof.err"
      note "read_roof ${args#:}: rc=$?"
      python3 - "$out/read_roof_$stamp.jsonl" <<'EOF' | tee -a "$summary"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
head = lines[0] if lines else {}
rows = [r for r in lines if "n" in r]
end = [r for r in lines if "sm_clock_mhz_end" in r]
print(f"roof (2 GiB copy): {head.get('roof_copy_gbs', 0):.0f} GB/s; SM clock "
      f"{head.get('sm_clock_mhz_start', 0):.0f} MHz at the start, "
      f"{end[0]['sm_clock_mhz_end'] if end else 0:.0f} at the end; times in us")
if rows:
    cols = [k for k in rows[0] if k.endswith("_us") and k not in ("roof_us", "best_us")]
    print(f"{'NxK':>11} {'roof':>6}" + "".join(f" {c[:-3]}" for c in cols))
    for r in rows:
        print(f"{str(r['n']) + 'x' + str(r['k']):>11} {r['roof_us']:6.1f}" +
              "".join(f" {r[c]:{len(c) - 3}.1f}" for c in cols))
EOF
      ;;
    wgmma-chain|wgmma-chain:*)
      # wgmma-chain[:<k_blocks>]; how long four dependent wgmma m64nNk32 (e4m3, shared-memory
      # operands) take a warpgroup a k-block, one or two warpgroups a CTA on every SM, pipelined
      # as the narrow tiles' consumers or waited each k-block as DeepGEMM's
      # (scripts/dev/wgmma_chain.cu): is the narrow tile's k-block the chain's latency?
      mkdir -p "$build"
      (cd "$root" && nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
        -I core/include -I kernels scripts/dev/wgmma_chain.cu core/cuda_check.cpp -lcublas \
        -o "$build/wgmma_chain") >"$logs/wgmma_chain_build.log" 2>&1
      note "wgmma_chain build: rc=$? ($(grep -c 'are serialized' "$logs/wgmma_chain_build.log") serialization advisories)"
      kbs=${step#wgmma-chain}
      kbs=${kbs#:}
      timeout 120 "$build/wgmma_chain" ${kbs:+"$kbs"} 2>&1 | tee "$logs/wgmma_chain.txt" | tee -a "$summary"
      ;;
    cluster-occupancy)
      # How many clusters of 1-16 CTAs (1x1 to 16x1, 2x2, 4x2) of 384 threads stay resident at
      # 100-225 KB of shared memory (scripts/dev/reference/cluster_occupancy.cu); no gemmbench
      # build needed. One JSON line each, in $OUT and the summary.
      nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a \
        "$root/scripts/dev/reference/cluster_occupancy.cu" -o "$logs/cluster_occupancy" >"$logs/cluster_occupancy_build.txt" 2>&1 &&
        "$logs/cluster_occupancy" >"$out/cluster_occupancy.jsonl" 2>&1
      note "cluster-occupancy: rc=$?"
      tee -a "$summary" <"$out/cluster_occupancy.jsonl"
      ;;
    sigterm:*)
      # sigterm:<seconds>:<gemmbench args>; a run stopped by coreutils timeout (SIGTERM to the
      # command, then to its process group): the report must close with every finished row.
      rest=${step#sigterm:}
      secs=${rest%%:*}
      args=${rest#*:}
      timeout -s TERM "$secs" "$bin" $args --json "$out/sigterm_$stamp.json" >"$logs/sigterm.txt" 2>&1
      rc=$?
      note "sigterm after $secs s: rc=$rc; $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['results']), 'rows;', json.dumps(d.get('summary'))[:300])" "$out/sigterm_$stamp.json" 2>&1)"
      tail -3 "$logs/sigterm.txt" | tee -a "$summary"
      ;;
    *)
      note "unknown step $step"
      ;;
  esac
done
# An overlay build still running (no use-build waited for it) finishes before the session ends,
# so a later session of the same call (gpu_lanes.sh's lanes after its build phase) finds it whole.
for alt in "${!alt_pids[@]}"; do
  wait "${alt_pids[$alt]}"
  note "build-overlay into $alt: rc=$(cat "$logs/build_$alt.rc") (waited for at the session's end, $(( $(date +%s) - t0 )) s)"
done
tar -C "$logs/.." -czf "$out/logs.tar.gz" "$(basename "$logs")"
# A lent host's call brings back at most eight files of $OUT (docs/development.md): with more, the
# reports travel as one tar beside logs.tar.gz.
if [ "$(find "$out" -type f | wc -l)" -gt 8 ]; then
  (cd "$out" && find . -type f ! -name logs.tar.gz ! -name reports.tar -print0 \
    | tar --null -cf reports.tar -T - --remove-files)
  note "reports: $(tar -tf "$out/reports.tar" | grep -vc '/$') files packed into reports.tar (more than eight)"
fi
echo "==== summary"
cat "$summary"
