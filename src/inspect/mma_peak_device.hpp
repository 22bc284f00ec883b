// The GPU half of `inspect mma-peak`. Declared without CUDA types so host code and tests can call
// it; defined in mma_peak_device.cu (gemmbench_device).
#pragma once

#include <vector>

#include "inspect/mma_peak.hpp"

namespace gemmbench::inspect {

// Runs every config of `req` on device 0 (warm-up, then about req.seconds of back-to-back
// launches, NVML sampled meanwhile) and returns the measured fields of each row (derived fields
// are left to derive_mma_peak). Throws NoDeviceError when no device is usable or it is older than
// sm_80, CudaError when a CUDA call fails.
MmaPeakReport run_mma_peak_on_device(const MmaPeakRequest& req);

// One warp of the benchmark kernel with B and -B replaced by B and B (nothing cancels), `iters`
// loop iterations, so that every mma of the chain shows in the result:
//   acc[i][j] = A_i * B_(j+1)%N + 2 * iters * A_i * B_j     (A_i 16x16, B_j 16x8, N = kMmaTileN)
struct MmaChainSample {
  std::vector<float> frag;  // (32 lanes, kMmaTileM*4 + kMmaTileN*2 registers, 2 halves), decoded:
                            // A_0 a0..a3, ..., A_3 a0..a3, B_0 b0 b1, ..., B_3 b0 b1 (ptx.cuh)
  std::vector<float> acc;   // (32 lanes, kMmaChains chains i*kMmaTileN + j, 4 elements c0..c3)
};
MmaChainSample run_mma_chain_on_device(const MmaPeakConfig& config, int iters, int device = 0);

}  // namespace gemmbench::inspect
