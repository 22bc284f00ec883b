#!/usr/bin/env bash
# Event-time A/B of compile-time knobs of the Hopper kernel, in one device call: builds the timeline
# probe (scripts/dev/sm90_trace.cu) once per set of definitions, in parallel, always with
# -DSM90_TRACE_EVENT_ONLY (no stamps: the kernel as gemmbench builds it but for the knobs), then
# runs every shape with every build, the builds alternating within each round, and cuBLAS's own
# GEMM once per shape and round. Prints one line per shape and build: the round medians, then
# their median.
#
#   scripts/dev/trace_ab.sh ROUNDS REPS 'M N K MODE;M N K MODE;...' 'DEFS_A' 'DEFS_B' ...
#   e.g. scripts/dev/trace_ab.sh 3 60 '128 4096 4096 wmc;64 4096 4096 n64' '' '-DGEMMBENCH_SM90_X=1'
# (MODE as sm90_trace.cu takes it: plain, dsmem, n64, n64cs, wmc; an empty DEFS is the kernel as
# committed.) Output: $OUT/trace_ab.txt (or ./gpu_out/trace_ab.txt) and stdout.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu_out}
build=$root/build-gpu
mkdir -p "$out" "$build"
rounds=$1 reps=$2 shapes=$3
shift 3
defs=("$@")
log=$out/trace_ab.txt
exec > >(tee -a "$log") 2>&1

bin_of() { echo "$build/sm90_trace_ab$(echo "EVENT_ONLY $1" | tr -c 'A-Za-z0-9\n' _)"; }
pids=()
for d in "${defs[@]}"; do
  [ -x "$(bin_of "$d")" ] && continue  # built by an earlier call on this machine
  # shellcheck disable=SC2086  # the definitions are words
  ("$root/scripts/dev/build_sm90_trace.sh" "$(bin_of "$d")" -DSM90_TRACE_EVENT_ONLY $d \
    >"$(bin_of "$d").log" 2>&1
   echo "build [${d:-base}]: rc=$?") &
  pids+=($!)
done
# The builds only: a bare `wait` would also wait for the tee above, which never ends.
for p in "${pids[@]}"; do wait "$p"; done
# A smoke launch of each build (the GPU and versions from the first); a build that does not finish
# it in time is left out of the rounds.
alive=()
for i in "${!defs[@]}"; do
  t0=$(date +%s%N)
  smoke=$(SM90_TRACE_HEADER=1 timeout 30 "$(bin_of "${defs[$i]}")" 1 128 64 3 2>&1)
  rc=$?
  [ "$i" -eq 0 ] && echo "$smoke" | head -1
  echo "smoke [${defs[$i]:-base}]: rc=$rc ($(( ($(date +%s%N) - t0) / 1000000 )) ms) $(echo "$smoke" | grep 'event time')"
  [ $rc -eq 0 ] && alive+=("$i")
done

IFS=';' read -r -a shape_list <<<"$shapes"
declare -A times
for ((r = 1; r <= rounds; ++r)); do
  for s in "${shape_list[@]}"; do
    read -r m n k mode <<<"$s"
    for i in "${alive[@]}"; do
      t0=$(date +%s%N)
      t=$(timeout "${TRACE_AB_TIMEOUT:-40}" "$(bin_of "${defs[$i]}")" "$m" "$n" "$k" "$reps" 0 0 "$mode" 2>&1 |
        sed -n 's/.*event time (median): \([0-9.]*\) us.*/\1/p' | tail -1)
      times["$s|$i"]+="${t:-nan} "
      echo "round $r [$s] [${defs[$i]:-base}]: ${t:-nan} us ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
    done
    t=$(timeout "${TRACE_AB_TIMEOUT:-40}" "$(bin_of "${defs[0]}")" "$m" "$n" "$k" "$reps" 0 0 cublas 2>&1 |
      sed -n 's/.*event time (median): \([0-9.]*\) us.*/\1/p' | tail -1)
    times["$s|cublas"]+="${t:-nan} "
    echo "round $r [$s] [cublas]: ${t:-nan} us"
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "# event time, us: the median of $reps cold launches per round, $rounds rounds; then their median"
for s in "${shape_list[@]}"; do
  for i in "${!defs[@]}"; do
    v=${times["$s|$i"]}
    printf '%-22s %-70s %s (median %s)\n' "$s" "${defs[$i]:-base}" "$v" "$(echo "$v" | median)"
  done
  v=${times["$s|cublas"]}
  printf '%-22s %-70s %s (median %s)\n' "$s" "cublas" "$v" "$(echo "$v" | median)"
done
