// What persistent grids ask of the device: how many CTAs of a kernel can be resident at once
// (more would wait for a whole wave to finish) and how much shared memory a block may have.
// Each answer is asked once per device and kept (PerDevice).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>

#include "core/cuda_check.hpp"
#include "core/per_device.hpp"

namespace gemmbench {

// The SMs of device `dev`.
inline int sm_count(int dev) {
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// CTAs of `kernel` resident at once on device `dev` (blocks per SM x SMs). The caller has raised
// the kernel's dynamic shared-memory limit to smem_bytes already.
template <class Kernel>
int resident_ctas(Kernel kernel, int threads, size_t smem_bytes, int dev) {
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem_bytes));
  if (per_sm < 1) throw std::runtime_error("not even one CTA of the kernel fits on an SM");
  return per_sm * sm_count(dev);
}

// A launch (cudaLaunchKernelEx) of `ctas` CTAs of `threads` threads and smem_bytes of dynamic
// shared memory, in clusters of `cluster` CTAs along x (1: a plain launch); `attr` holds the
// cluster dimension and must outlive the config.
inline cudaLaunchConfig_t cluster_launch_config(int ctas, int cluster, int threads,
                                                size_t smem_bytes, cudaStream_t stream,
                                                cudaLaunchAttribute& attr) {
  attr = cudaLaunchAttribute{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = unsigned(cluster), attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(ctas));
  cfg.blockDim = dim3(unsigned(threads));
  cfg.dynamicSmemBytes = smem_bytes;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = cluster > 1 ? 1 : 0;
  return cfg;
}

// Clusters of `cluster` CTAs of `kernel` that can be resident at once on the current device (0:
// none fits). The caller has raised the kernel's dynamic shared-memory limit to smem_bytes.
template <class Kernel>
int max_active_clusters(Kernel kernel, int cluster, int threads, size_t smem_bytes) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      cluster_launch_config(cluster, cluster, threads, smem_bytes, nullptr, attr);
  int n = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg));
  return n;
}

// The most dynamic shared memory one block of the current device may opt in to (bytes).
inline size_t device_smem_per_block_optin() {
  static PerDevice<size_t> bytes;
  return bytes.get([](int dev) {
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return size_t(v);
  });
}

}  // namespace gemmbench
