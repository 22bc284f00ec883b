// Reference probe (not part of gemmbench's build): how many thread-block clusters of each shape
// the GPU keeps resident at once, for a CTA of the persistent Hopper kernels' size (384 threads,
// one CTA an SM by its shared memory). The grouped kernels and the decode 2x2 clusters size their
// grids by cudaOccupancyMaxActiveClusters; the eleventh session's 2x2 decode clusters ran a second
// wave where 32 clusters of 4 were asked for, and the count was never printed (docs/fp8.md, "State
// (2026-11-30, eleventh session)"). A cluster's CTAs must share a GPC, and GPCs hold unequal
// numbers of SMs, so clusters of 4 need not fill 132 / 4 = 33 of them.
//
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a \
//     scripts/dev/reference/cluster_occupancy.cu -o cluster_occupancy
//   ./cluster_occupancy    (one JSON line per cluster shape and shared-memory size)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

__global__ void probe_kernel(int* out) {
  extern __shared__ int smem[];
  if (out && threadIdx.x == 0) out[blockIdx.x] = smem[0];
}

int main() {
  int dev = 0, sms = 0, smem_optin = 0;
  CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"smem_optin\": %d}\n", prop.name, sms,
              smem_optin);
  CHECK(cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CHECK(
      cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin));
  const int threads = 384;
  const int smem_kb[] = {100, 160, 200, 225};
  const int shapes[][2] = {{1, 1}, {2, 1}, {1, 2}, {4, 1}, {2, 2}, {8, 1}, {4, 2}, {16, 1}};
  for (int kb : smem_kb) {
    const int smem = kb * 1024 > smem_optin ? smem_optin : kb * 1024;
    for (const auto& s : shapes) {
      cudaLaunchConfig_t cfg = {};
      cudaLaunchAttribute attr;
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = s[0];
      attr.val.clusterDim.y = s[1];
      attr.val.clusterDim.z = 1;
      cfg.gridDim = dim3(s[0] * 64, s[1], 1);
      cfg.blockDim = dim3(threads, 1, 1);
      cfg.dynamicSmemBytes = smem;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      int clusters = -1;
      const cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, probe_kernel, &cfg);
      std::printf(
          "{\"cluster\": \"%dx%d\", \"ctas_per_cluster\": %d, \"smem_bytes\": %d, \"threads\": %d, "
          "\"max_active_clusters\": %d, \"ctas\": %d, \"error\": \"%s\"}\n",
          s[0], s[1], s[0] * s[1], smem, threads, e == cudaSuccess ? clusters : -1,
          e == cudaSuccess ? clusters * s[0] * s[1] : -1,
          e == cudaSuccess ? "" : cudaGetErrorString(e));
      if (e != cudaSuccess) cudaGetLastError();
    }
  }
  return 0;
}
