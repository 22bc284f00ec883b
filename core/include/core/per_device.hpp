// PerDevice: a value asked of the current device once and kept, per device index. Ground layer:
// the registry's device caps and the kernels' occupancy answers both use it.
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

}  // namespace gemmbench
