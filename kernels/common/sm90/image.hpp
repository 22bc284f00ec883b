// Whether the driver picked a Hopper kernel's sm_90a image, and whether its shared memory fits:
// the check every Hopper kernel's supports() makes (fp8gemm/sm90_rules.hpp, hgemm/sm90/grouped.cu).
// Host code.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/device_caps.hpp"

namespace gemmbench {

// The kernel image: the sm_90a pass declares the mbarriers as static shared memory, the trap stub
// of every other pass declares none (a build without 90a makes the driver pick the stub); and the
// ring (`dynamic_smem` bytes) must fit what a block may opt into.
inline std::string sm90a_image_unsupported(const void* kernel, size_t dynamic_smem,
                                           const DeviceCaps& caps) {
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, kernel);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("cannot query the kernel image: ") + cudaGetErrorString(e);
  }
  if (attr.sharedSizeBytes == 0)
    return "this build has no sm_90a code (configure with CMAKE_CUDA_ARCHITECTURES containing 90a)";
  if (caps.smem_per_block_optin < dynamic_smem + attr.sharedSizeBytes)
    return "needs " + std::to_string((dynamic_smem + attr.sharedSizeBytes) / 1024) +
           " KB of shared memory per block, the device allows " +
           std::to_string(caps.smem_per_block_optin / 1024);
  return {};
}

}  // namespace gemmbench
