set -u
export GEMMBENCH_GIT_COMMIT=04833ec4c715
S=scripts/dev/gpu_session.sh
$S build 'ncu-stalls:n64_128x4096x4096:hgemm_sm90:--kernel hgemm --m 128 --n 4096 --k 4096 --dtype f16 --accum f32' \
  'ncu-stalls:n64_64x6144x4096:hgemm_sm90:--kernel hgemm --m 64 --n 6144 --k 4096 --dtype f16 --accum f32' \
  'trace:128 4096 4096 30 0 0 n64' 'trace:64 6144 4096 30 0 0 n64' 'trace:64 4096 4096 30 0 0 n64' > $OUT/session.txt 2>&1
B=build-gpu/gemmbench
for shape in "128 4096 4096" "64 6144 4096"; do
  set -- $shape
  timeout 240 ncu --clock-control none --kernel-name "regex:hgemm_sm90" --launch-skip 2 --launch-count 2 \
    --section LaunchStats --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --metrics dram__bytes_read.sum,lts__t_bytes.sum,l1tex__m_xbar2l1tex_read_bytes.sum,gpu__time_duration.sum \
    $B --kernel hgemm --m $1 --n $2 --k $3 --dtype f16 --accum f32 --warmup 2 --min-samples 4 --min-time 0 --no-verify --quiet \
    > $OUT/ncu_mem_ours_$1x$2x$3.txt 2>&1
  echo "ncu $shape rc=$?"
  grep -E '^  [a-z_]+.*\(|Duration|DRAM Throughput|L2 Cache Throughput|dram__bytes_read|lts__t_bytes|xbar2l1tex|Grid Size|L2 Hit|Mem Busy' $OUT/ncu_mem_ours_$1x$2x$3.txt | head -24
done
tar -xzf $OUT/logs.tar.gz -C /tmp && cp /tmp/logs/trace.txt /tmp/logs/ncu_stalls_*.txt $OUT/ 2>/dev/null
cat $OUT/session.txt | tail -60
