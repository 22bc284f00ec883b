#include "runner/clock_probe.hpp"

#include <cmath>
#include <limits>

namespace gemmbench {

namespace {

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread: SM cycles elapsed over at least `spin_ns` of the global timer.
__global__ void clock_probe_kernel(unsigned long long spin_ns, unsigned long long* out) {
  const unsigned long long t0 = global_timer_ns();
  const long long c0 = clock64();
  unsigned long long t = t0;
  while (t - t0 < spin_ns) t = global_timer_ns();
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t - t0;
}

}  // namespace

ClockProbe::ClockProbe(size_t slots)
    : slots_(slots), buf_(slots * 2 * sizeof(unsigned long long)) {}

void ClockProbe::enqueue(cudaStream_t stream, size_t slot) {
  clock_probe_kernel<<<1, 1, 0, stream>>>(kSpinNs, buf_.as<unsigned long long>() + 2 * slot);
  CUDA_CHECK(cudaGetLastError());
}

std::vector<double> ClockProbe::read(size_t count, cudaStream_t stream) {
  std::vector<unsigned long long> raw(2 * count);
  if (count == 0) return {};
  CUDA_CHECK(cudaMemcpyAsync(raw.data(), buf_.get(), raw.size() * sizeof(raw[0]),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> mhz(count);
  for (size_t i = 0; i < count; ++i)
    mhz[i] = raw[2 * i + 1] > 0 ? double(raw[2 * i]) / double(raw[2 * i + 1]) * 1e3
                                : std::numeric_limits<double>::quiet_NaN();
  return mhz;
}

}  // namespace gemmbench
