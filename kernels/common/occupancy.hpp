// What persistent grids ask of the device: how many CTAs of a kernel can be resident at once
// (more would wait for a whole wave to finish) and how much shared memory a block may have.
// Each answer is asked once per device and kept (PerDevice).
#pragma once

#include <cuda_runtime.h>

#include <mutex>
#include <stdexcept>

#include "core/cuda_check.hpp"

namespace gemmbench {

// A value asked of the current device once and kept, per device. One per question (and per
// kernel, where the answer is the kernel's own): a static in the function that asks.
template <class T>
class PerDevice {
 public:
  // compute(dev) runs once per device index, the first time that device is current.
  template <class Compute>
  T get(Compute compute) {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= kMaxDevices) throw std::runtime_error("device index above 63");
    std::call_once(once_[dev], [&] { value_[dev] = compute(dev); });
    return value_[dev];
  }

 private:
  static constexpr int kMaxDevices = 64;
  std::once_flag once_[kMaxDevices];
  T value_[kMaxDevices] = {};
};

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
