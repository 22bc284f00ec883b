#include "core/device_caps.hpp"

#include <cuda_runtime.h>

#include "core/cuda_check.hpp"
#include "core/per_device.hpp"

namespace gemmbench {

std::optional<double> datasheet_bandwidth_gbs(int memory_clock_mhz, int memory_bus_bits) {
  if (memory_clock_mhz <= 0 || memory_bus_bits <= 0) return std::nullopt;
  return double(memory_clock_mhz) * 1e6 * double(memory_bus_bits) / 8.0 * 2.0 / 1e9;
}

DeviceCaps current_device_caps() {
  static PerDevice<DeviceCaps> caps;
  return caps.get([](int dev) {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    auto attr = [&](cudaDeviceAttr a) {
      int v = 0;
      CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
      return v;
    };
    DeviceCaps c{prop.major * 10 + prop.minor, prop.multiProcessorCount,
                 size_t(attr(cudaDevAttrMaxSharedMemoryPerBlockOptin)), size_t(prop.l2CacheSize)};
    c.dram_gbs = datasheet_bandwidth_gbs(attr(cudaDevAttrMemoryClockRate) / 1000,
                                         attr(cudaDevAttrGlobalMemoryBusWidth))
                     .value_or(0.0);
    return c;
  });
}

}  // namespace gemmbench
