// How many CTAs of a kernel can be resident on the current device at once: what a persistent
// grid is sized to (more would wait for a whole wave to finish); and how much shared memory a
// block may have. Asked once per device.
#pragma once

#include <cuda_runtime.h>

#include <mutex>
#include <stdexcept>

#include "core/cuda_check.hpp"

namespace gemmbench {

// One per kernel instantiation (a static in its launcher): the answer is the kernel's own.
class ResidentCtas {
 public:
  template <class Kernel>
  int get(Kernel kernel, int threads, size_t smem_bytes) {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= kMaxDevices) throw std::runtime_error("device index above 63");
    std::call_once(once_[dev], [&] {
      int per_sm = 0, sms = 0;
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(smem_bytes)));
      CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem_bytes));
      CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      if (per_sm < 1) throw std::runtime_error("not even one CTA of the kernel fits on an SM");
      count_[dev] = per_sm * sms;
    });
    return count_[dev];
  }

 private:
  static constexpr int kMaxDevices = 64;
  std::once_flag once_[kMaxDevices];
  int count_[kMaxDevices] = {};
};

// The most dynamic shared memory one block of the current device may opt in to (bytes), asked
// once per device.
inline size_t device_smem_per_block_optin() {
  constexpr int kMaxDevices = 64;
  static std::once_flag once[kMaxDevices];
  static size_t bytes[kMaxDevices];
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  if (dev < 0 || dev >= kMaxDevices) throw std::runtime_error("device index above 63");
  std::call_once(once[dev], [dev] {
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    bytes[dev] = size_t(v);
  });
  return bytes[dev];
}

}  // namespace gemmbench
