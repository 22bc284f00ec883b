// The cold-L2 preparation before every cold sample, outside the timed events: a write over a
// buffer of twice the L2 evicts every line (the operands, and the previous sample's C, whose
// write-back happens here), then a read-only pass over a second buffer of twice the L2 leaves
// the L2 holding clean lines only. A write alone (gemmbench's flush before 2026-11-25) leaves L2
// full of dirty lines that the timed GEMM then writes back to HBM while it streams its own
// operands: on the H100 that cost 4-5 us of a 16x4096x4096 f16 cuBLAS call (22.0 us after a
// memset, 17.7 us after memset + read; bench_results/h100/reference/
// 2026-11-25_flush_probe.jsonl.gz, scripts/dev/reference/flush_probe.cu). docs/method.md says more.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "device/buffer.hpp"

namespace gemmbench {

class L2Flush {
 public:
  explicit L2Flush(size_t l2_bytes);
  // Enqueues the write and the read pass on `stream`.
  void run(cudaStream_t stream);
  // As reports record it.
  static const char* method();

 private:
  DeviceBuffer write_;  // 2x L2, overwritten each time
  DeviceBuffer read_;   // 2x L2, initialised once, read each time
  DeviceBuffer sink_;   // one word the read pass may write (it never does in practice)
  int blocks_ = 0;      // read-pass grid: 4 blocks of 512 threads per SM
};

}  // namespace gemmbench
