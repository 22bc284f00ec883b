// Reference measurement (not part of gemmbench's build): does the way L2 is made cold change a
// memory-bound GEMM's time? gemmbench's cold-L2 samples are preceded by a 2x-L2 memset, which
// leaves L2 full of dirty lines; the GEMM that follows may pay for their write-back to HBM while
// it streams its own operands. This times gemmbench's cuBLAS call (cublasGemmEx, TN, f16 inputs,
// f32 accumulate, 32 MiB workspace, CUBLAS_GEMM_DEFAULT) after four different preparations,
// interleaved sample by sample (A B C D A B C D ...), one event pair around the GEMM alone:
//   memset      a 2x-L2 memset (gemmbench's flush up to 2026-11-25)
//   memset+read the memset, then a read-only pass over a second 2x-L2 buffer (clean lines left)
//   read        the read-only pass alone
//   hot         nothing (the operands stay in L2 when they fit)
// and a device-to-device copy of 1 GiB (read + write bytes / time) for the roofline's bandwidth.
// One JSON line per shape with each preparation's median.
// Build: nvcc -std=c++17 -O3 -arch=native scripts/dev/reference/flush_probe.cu -lcublas -o
// flush_probe Run:   ./flush_probe [samples]
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
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

__global__ void fill_half(__half* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    p[i] = __float2half(float(h >> 8) * (2.0f / 16777216.0f) - 1.0f);
  }
}

// Reads every 16-byte word of p once; the sum lands in *sink only when it equals a value it
// never takes, so the loads cannot be removed.
__global__ void read_pass(const uint4* p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 200;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, stream));
  void* workspace = nullptr;
  CHECK_CUDA(cudaMalloc(&workspace, size_t(32) << 20));
  CHECK_CUBLAS(cublasSetWorkspace(handle, workspace, size_t(32) << 20));
  const size_t flush_bytes = 2 * size_t(prop.l2CacheSize);
  void *flush_w = nullptr, *flush_r = nullptr;
  unsigned* sink = nullptr;
  CHECK_CUDA(cudaMalloc(&flush_w, flush_bytes));
  CHECK_CUDA(cudaMalloc(&flush_r, flush_bytes));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(unsigned)));
  CHECK_CUDA(cudaMemset(flush_r, 1, flush_bytes));
  int driver = 0, runtime = 0, cublas_version = 0;
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  CHECK_CUBLAS(cublasGetVersion(handle, &cublas_version));
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  const auto elapsed = [&] {
    CHECK_CUDA(cudaEventSynchronize(e1));
    float t = 0;
    CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
    return double(t);
  };

  // The copy ceiling, as gemmbench measures it: median of 20 copies of 1 GiB.
  const size_t copy_bytes = size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  CHECK_CUDA(cudaMalloc(&src, copy_bytes));
  CHECK_CUDA(cudaMalloc(&dst, copy_bytes));
  CHECK_CUDA(cudaMemset(src, 3, copy_bytes));
  std::vector<double> copy_ms;
  for (int i = 0; i < 21; ++i) {
    CHECK_CUDA(cudaEventRecord(e0, stream));
    CHECK_CUDA(cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, stream));
    CHECK_CUDA(cudaEventRecord(e1, stream));
    if (i > 0)
      copy_ms.push_back(elapsed());
    else
      elapsed();
  }
  const double copy_gbs = 2.0 * copy_bytes / (median(copy_ms) * 1e-3) / 1e9;
  CHECK_CUDA(cudaFree(src));
  CHECK_CUDA(cudaFree(dst));

  const int shapes[][3] = {{16, 4096, 4096},  {1, 7168, 2048},   {16, 2112, 7168},
                           {128, 4096, 4096}, {16, 28672, 4096}, {16, 8192, 28672}};
  for (const auto& s : shapes) {
    const int m = s[0], n = s[1], k = s[2];
    __half *a, *b, *d;
    CHECK_CUDA(cudaMalloc(&a, size_t(m) * k * 2));
    CHECK_CUDA(cudaMalloc(&b, size_t(k) * n * 2));
    CHECK_CUDA(cudaMalloc(&d, size_t(m) * n * 2));
    fill_half<<<1024, 256, 0, stream>>>(a, size_t(m) * k, 1);
    fill_half<<<1024, 256, 0, stream>>>(b, size_t(k) * n, 2);
    const float alpha = 1.0f, beta = 0.0f;
    const auto gemm = [&] {
      CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16F, k,
                                b, CUDA_R_16F, k, &beta, d, CUDA_R_16F, m, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
    };
    const auto do_read = [&] {
      read_pass<<<4 * prop.multiProcessorCount, 512, 0, stream>>>(
          static_cast<const uint4*>(flush_r), flush_bytes / 16, sink);
    };
    for (int i = 0; i < 20; ++i) gemm();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    std::vector<double> t[4];
    for (int i = 0; i < samples; ++i)
      for (int prep = 0; prep < 4; ++prep) {
        if (prep == 0 || prep == 1) CHECK_CUDA(cudaMemsetAsync(flush_w, 0, flush_bytes, stream));
        if (prep == 1 || prep == 2) do_read();
        CHECK_CUDA(cudaEventRecord(e0, stream));
        gemm();
        CHECK_CUDA(cudaEventRecord(e1, stream));
        t[prep].push_back(elapsed());
      }
    const double bytes = 2.0 * (double(m) * k + double(k) * n + double(m) * n);
    const double roof_us = bytes / (copy_gbs * 1e9) * 1e6;
    std::printf(
        "{\"tool\": \"flush_probe\", \"m\": %d, \"n\": %d, \"k\": %d, \"samples\": %d, "
        "\"median_us\": {\"memset\": %.2f, \"memset_read\": %.2f, \"read\": %.2f, \"hot\": %.2f}, "
        "\"copy_gbs\": %.1f, \"roofline_us\": %.2f, \"device\": \"%s\", "
        "\"cuda_driver_api\": %d, \"cuda_runtime\": %d, \"cublas_version\": %d, "
        "\"date_utc\": \"%s\", \"regime\": \"as found after 20 warm-up launches; the four "
        "preparations interleaved sample by sample\", \"type\": \"f16 in/out, f32 accumulate, "
        "TN\"}\n",
        m, n, k, samples, 1e3 * median(t[0]), 1e3 * median(t[1]), 1e3 * median(t[2]),
        1e3 * median(t[3]), copy_gbs, roof_us, prop.name, driver, runtime, cublas_version, date);
    std::fflush(stdout);
    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(b));
    CHECK_CUDA(cudaFree(d));
  }
  return 0;
}
