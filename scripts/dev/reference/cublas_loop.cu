// Reference measurement (not part of gemmbench's build): the cublasGemmEx call gemmbench's
// cuBLAS baseline makes (src/runner/cublas_gemm.cpp: default math mode, 32 MiB workspace,
// CUBLAS_GEMM_DEFAULT, COMPUTE_32F for f32 accumulation), in TN layout (A (M,K) K-contiguous ->
// OP_T, lda = K; B (N,K) K-contiguous -> OP_N, ldb = K; C (M,N) column-major, ldc = M), on seeded
// uniform [-1, 1) inputs generated on the device, timed with one event pair per launch, L2
// flushed by a 2x-L2 memset before every sample (outside the events). It cross-checks
// gemmbench's rows for 5120x4096x4096 within 3% (docs/regimes.md, "Cross-check"):
//   burst:     3 warm-up launches, then 30 samples          (gemmbench --regime burst)
//   sustained: 5 s back to back first, then 30 samples      (gemmbench's default regime)
// Each configuration (f16 inputs / f32 accumulate, and f32) prints one JSON line with the
// median TFLOP/s (2*M*N*K / median time). Run it on an idle board: burst means a cool start.
// Build: nvcc -std=c++17 -O3 -arch=native scripts/dev/reference/cublas_loop.cu -lcublas -o
// cublas_loop Run:   ./cublas_loop [burst|sustained] [M N K]
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define CHECK_CUDA(x)                                                                          \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)
#define CHECK_CUBLAS(x)                                                                       \
  do {                                                                                        \
    cublasStatus_t s_ = (x);                                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, int(s_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace {

__device__ unsigned long long splitmix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform [-1, 1) from a counter-based hash of (seed, tensor, index).
template <class T>
__global__ void fill_uniform(T* p, size_t n, unsigned long long seed, unsigned long long tensor) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const unsigned long long h = splitmix64(seed ^ splitmix64(tensor * 0x100000001b3ull + i));
    const float u = float(h >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    p[i] = T(u);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Config {
  const char* name;
  cudaDataType_t type;
  size_t elem;
  cublasComputeType_t compute;
};

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "burst";
  if (mode != "burst" && mode != "sustained") {
    std::fprintf(stderr, "mode '%s' is not one of burst, sustained\n", mode.c_str());
    return 2;
  }
  const int m = argc > 4 ? std::atoi(argv[2]) : 5120;
  const int n = argc > 4 ? std::atoi(argv[3]) : 4096;
  const int k = argc > 4 ? std::atoi(argv[4]) : 4096;
  constexpr int kWarmup = 3, kSamples = 30;
  constexpr double kSustainS = 5.0;
  constexpr unsigned long long kSeed = 20261122;

  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  CHECK_CUBLAS(cublasSetStream(handle, stream));
  void* workspace = nullptr;
  const size_t workspace_bytes = size_t(32) << 20;
  CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
  CHECK_CUBLAS(cublasSetWorkspace(handle, workspace, workspace_bytes));
  const size_t flush_bytes = 2 * size_t(prop.l2CacheSize);
  void* flush = nullptr;
  CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  int cublas_version = 0;
  CHECK_CUBLAS(cublasGetVersion(handle, &cublas_version));

  const Config configs[] = {{"f16/f32", CUDA_R_16F, 2, CUBLAS_COMPUTE_32F},
                            {"f32/f32", CUDA_R_32F, 4, CUBLAS_COMPUTE_32F}};
  for (const Config& c : configs) {
    void *a, *b, *d;
    CHECK_CUDA(cudaMalloc(&a, size_t(m) * k * c.elem));
    CHECK_CUDA(cudaMalloc(&b, size_t(k) * n * c.elem));
    CHECK_CUDA(cudaMalloc(&d, size_t(m) * n * c.elem));
    if (c.type == CUDA_R_16F) {
      fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__half*>(a), size_t(m) * k, kSeed, 0);
      fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__half*>(b), size_t(k) * n, kSeed, 1);
    } else {
      fill_uniform<<<1024, 256, 0, stream>>>(static_cast<float*>(a), size_t(m) * k, kSeed, 0);
      fill_uniform<<<1024, 256, 0, stream>>>(static_cast<float*>(b), size_t(k) * n, kSeed, 1);
    }
    CHECK_CUDA(cudaGetLastError());
    const float alpha = 1.0f, beta = 0.0f;
    const auto gemm = [&] {
      CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a, c.type, k, b,
                                c.type, k, &beta, d, c.type, m, c.compute, CUBLAS_GEMM_DEFAULT));
    };
    for (int i = 0; i < kWarmup; ++i) gemm();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    if (mode == "sustained") {
      const auto t0 = std::chrono::steady_clock::now();
      while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <
             kSustainS) {
        for (int i = 0; i < 20; ++i) gemm();
        CHECK_CUDA(cudaStreamSynchronize(stream));
      }
    }
    std::vector<double> ms;
    for (int i = 0; i < kSamples; ++i) {
      CHECK_CUDA(cudaMemsetAsync(flush, 0, flush_bytes, stream));
      CHECK_CUDA(cudaEventRecord(e0, stream));
      gemm();
      CHECK_CUDA(cudaEventRecord(e1, stream));
      CHECK_CUDA(cudaEventSynchronize(e1));
      float t = 0;
      CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
      ms.push_back(t);
    }
    const double med = median(ms);
    const double tflops = 2.0 * m * n * k / (med * 1e-3) / 1e12;
    std::printf(
        "{\"tool\": \"cublas_loop\", \"regime\": \"%s\", \"type\": \"%s\", \"layout\": \"tn\", "
        "\"m\": %d, \"n\": %d, \"k\": %d, \"samples\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, "
        "\"median_tflops\": %.2f, \"device\": \"%s\", \"cublas_version\": %d}\n",
        mode.c_str(), c.name, m, n, k, kSamples, med, *std::min_element(ms.begin(), ms.end()),
        tflops, prop.name, cublas_version);
    std::fflush(stdout);
    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(b));
    CHECK_CUDA(cudaFree(d));
    // Burst: the second configuration must start cool too.
    if (mode == "burst") std::this_thread::sleep_for(std::chrono::seconds(3));
  }
  return 0;
}
