#include "runner/l2_flush.hpp"

#include <cstdint>

#include "core/cuda_check.hpp"

namespace gemmbench {
namespace {

// Reads every 16-byte word of p once. The xor of what it read is stored only when it equals a
// constant the data (all 0x5a bytes: every word xors to zero) never gives, so the loads stay.
__global__ void l2_read_pass(const uint4* __restrict__ p, size_t n, uint32_t* sink) {
  uint32_t acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

}  // namespace

L2Flush::L2Flush(size_t l2_bytes)
    : write_(2 * l2_bytes), read_(2 * l2_bytes), sink_(sizeof(uint32_t)) {
  if (read_.bytes() > 0) CUDA_CHECK(cudaMemset(read_.get(), 0x5a, read_.bytes()));
  int dev = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  blocks_ = 4 * sms;
}

void L2Flush::run(cudaStream_t stream) {
  if (write_.bytes() == 0) return;
  CUDA_CHECK(cudaMemsetAsync(write_.get(), 0, write_.bytes(), stream));
  l2_read_pass<<<blocks_, 512, 0, stream>>>(static_cast<const uint4*>(read_.get()),
                                            read_.bytes() / sizeof(uint4), sink_.as<uint32_t>());
  CUDA_CHECK(cudaGetLastError());
}

const char* L2Flush::method() {
  return "L2 made cold before each sample by a 2x-L2 memset (evicts every line) and then a "
         "read-only pass over a second 2x-L2 buffer (leaves only clean lines, so the timed "
         "launch writes back nothing it did not write)";
}

}  // namespace gemmbench
