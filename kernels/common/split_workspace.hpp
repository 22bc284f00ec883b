// The device scratch of the kernels that split K over CTAs and sum the partial tiles in a fixed
// order (hgemm_decode, sgemm_splitk): partial tiles and per-tile arrival counters, per device.
// Each kernel keeps its own instance (a function-local static that is never destroyed, so no
// cudaFree runs at exit).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>
#include <stdexcept>

#include "core/cuda_check.hpp"

namespace gemmbench {

// Partial sums (never read before the launch that reads them wrote them) and per-tile arrival
// counters (zero between launches: the reducing CTA resets its tile's). Grown, never shrunk, on the
// launch that first needs more: cudaFree synchronises the device and cudaMalloc is slow, so that
// launch is the shape's first (the runner's verify run, or its first warm-up), never a timed one.
// New counters are zeroed with a cudaMemsetAsync on the launch's stream, ahead of the kernel. One
// stream at a time: two concurrent launches would share the slots and counters.
class SplitWorkspace {
 public:
  struct View {
    float* partials;
    int* counters;
  };
  View get(size_t partial_floats, size_t counters, cudaStream_t stream) {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= kMaxDevices) throw std::runtime_error("device index above 63");
    std::lock_guard<std::mutex> lock(mutex_);
    Buffers& b = buffers_[dev];
    if (partial_floats > b.partial_floats) {
      if (b.partials) CUDA_CHECK(cudaFree(b.partials));
      b.partials = nullptr;
      b.partial_floats = 0;
      CUDA_CHECK(cudaMalloc(&b.partials, partial_floats * sizeof(float)));
      b.partial_floats = partial_floats;
    }
    if (counters > b.counters) {
      if (b.counters_ptr) CUDA_CHECK(cudaFree(b.counters_ptr));
      b.counters_ptr = nullptr;
      b.counters = 0;
      CUDA_CHECK(cudaMalloc(&b.counters_ptr, counters * sizeof(int)));
      CUDA_CHECK(cudaMemsetAsync(b.counters_ptr, 0, counters * sizeof(int), stream));
      b.counters = counters;
    }
    return {b.partials, b.counters_ptr};
  }

 private:
  static constexpr int kMaxDevices = 64;
  struct Buffers {
    float* partials = nullptr;
    size_t partial_floats = 0;
    int* counters_ptr = nullptr;
    size_t counters = 0;
  };
  std::mutex mutex_;
  Buffers buffers_[kMaxDevices];
};

}  // namespace gemmbench
