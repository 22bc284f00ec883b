#!/bin/sh
# A stand-in for `gemmbench --worker` in tests/host/test_fleet.cpp: it takes the worker flags the
# --devices parent appends (--shard I/N --device D --mode M --json PART --worker), says where it
# stands in the progress protocol, and hands back a canned part report instead of measuring.
#
#   fake_worker.sh FIXTURE_PREFIX BEHAVIOURS [worker flags]
#
# Worker I copies FIXTURE_PREFIX<I>.json to PART and acts as the I-th comma-separated word of
# BEHAVIOURS says:
#   ok       the whole part, exit 0
#   fail     its first row only (FIXTURE_PREFIX<I>_partial.json), exit 4 as a CUDA error would
#   kill     its first row only, then SIGKILL to itself
#   wait     its first row only, then waits for SIGINT; on it, writes
#            FIXTURE_PREFIX<I>_interrupted.json and exits 130 as gemmbench does
#   nothing  no report at all, exit 3 as gemmbench without a usable GPU does
prefix=$1
behaviours=$2
shift 2
while [ $# -gt 0 ]; do
  case $1 in
    --shard) shard=$2; shift ;;
    --json) part=$2; shift ;;
  esac
  shift
done
i=${shard%/*}
what=$(echo "$behaviours" | cut -d, -f$((i + 1)))
echo "gemmbench-progress 1 4 fake_kernel 64x64x64 tn" >&2
case $what in
  ok)
    cp "$prefix$i.json" "$part"
    echo "gemmbench-progress 4 4 fake_kernel 64x64x64 tn" >&2
    exit 0 ;;
  fail)
    cp "${prefix}${i}_partial.json" "$part"
    echo "gemmbench: CUDA error: an illegal memory access was encountered (fake)" >&2
    exit 4 ;;
  kill)
    cp "${prefix}${i}_partial.json" "$part"
    kill -KILL $$ ;;
  wait)
    trap 'cp "${prefix}${i}_interrupted.json" "$part"; exit 130' INT
    cp "${prefix}${i}_partial.json" "$part"
    echo "waiting for SIGINT"
    while :; do sleep 0.05; done ;;
  nothing)
    echo "gemmbench needs a GPU, and no CUDA device was found (fake)" >&2
    exit 3 ;;
esac
echo "fake_worker.sh: unknown behaviour '$what'" >&2
exit 99
