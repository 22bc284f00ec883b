// Reference measurement (not part of gemmbench's build): CUTLASS 2.x's Ampere-style mma.sync
// GEMM (device::Gemm, OpClassTensorOp, Sm80, multistage), timed the way gemmbench times its
// kernels: seeded uniform [-1, 1) inputs generated on the device, L2 flushed by a 2x-L2 memset
// before every sample (outside the events), CUTLASS and cuBLAS sampled interleaved on one
// stream, medians, ratio = cuBLAS median / CUTLASS median. Layout TN as gemmbench's: A (M,K)
// K-contiguous, B (K,N) K-contiguous, C (M,N) column-major; cuBLAS gets OP_T, OP_N and the
// matching compute type (COMPUTE_16F for f16 accumulation, COMPUTE_32F for f32).
//
// Not built by CMake and no dependency of gemmbench: it needs CUTLASS's headers, which the
// project does not use. It exists so that the CUTLASS reference points of issue 4 can be
// measured under gemmbench's method (scripts/dev/reference/README.md says how; the report is
// bench_results/h100/2026-11-24_cutlass_mma_sync_reference.json.gz). One configuration per binary
// (CFG 0-3 f32 accumulation, 4-7 f16), each printing one JSON line.
// Build: nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I<cutlass>/include \
//          -DCFG=<n> cutlass_mma_sync.cu -lcublas -o cutlass_mma_sync_<n>
// Run:   cutlass_mma_sync_<n> M N K seconds [int3]
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/gemm/device/gemm.h"
#include "cutlass/gemm/threadblock/threadblock_swizzle.h"
#include "cutlass/version.h"

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)
#define CB(x)                                                                         \
  do {                                                                                \
    cublasStatus_t s_ = (x);                                                          \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
      std::fprintf(stderr, "%s:%d %s: status %d\n", __FILE__, __LINE__, #x, int(s_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

template <class Acc, int BM, int BN, int BK, int WM, int WN, int STAGES>
using CutlassGemm = cutlass::gemm::device::Gemm<
    cutlass::half_t, cutlass::layout::RowMajor,     // A (M,K), K contiguous
    cutlass::half_t, cutlass::layout::ColumnMajor,  // B (K,N), K contiguous
    cutlass::half_t, cutlass::layout::ColumnMajor,  // C (M,N), M contiguous
    Acc, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, cutlass::gemm::GemmShape<BM, BN, BK>,
    cutlass::gemm::GemmShape<WM, WN, BK>, cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<cutlass::half_t, 8, Acc, Acc>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, STAGES>;

#ifndef CFG
#define CFG 0
#endif
// One configuration per binary: CFG 0-3 accumulate in f32, 4-7 in f16, over these CTA tiles
// (warp tile 64x64).
struct Tile {
  int bm, bn, bk, stages;
};
constexpr Tile kTiles[] = {
    {128, 256, 32, 4}, {128, 128, 32, 4}, {256, 128, 32, 4}, {128, 256, 64, 3}};
static_assert(CFG >= 0 && CFG < 8, "CFG selects one of 4 tiles x 2 accumulate types");
constexpr Tile kTile = kTiles[CFG % 4];
using Acc = std::conditional_t<(CFG < 4), float, cutlass::half_t>;
using Gemm = CutlassGemm<Acc, kTile.bm, kTile.bn, kTile.bk, 64, 64, kTile.stages>;
static constexpr bool kF32 = std::is_same<Acc, float>::value;

// int3: integers in [-3, 3] (floor(7u) - 3), the values cutlass_profiler fills f16 with by
// default, as gemmbench's --data int3.
__global__ void fill_inputs(__half* p, size_t n, unsigned long long seed, unsigned tensor,
                            bool int3) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long z =
        seed ^ (0x9e3779b97f4a7c15ull * (i + 1)) ^ (unsigned long long)tensor << 56;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const double u = double(z >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    p[i] = int3 ? __int2half_rn(int((z >> 40) * 7 >> 24) - 3) : __double2half(2.0 * u - 1.0);
  }
}

static double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char** argv) {
  const int M = argc > 1 ? std::atoi(argv[1]) : 5120;
  const int N = argc > 2 ? std::atoi(argv[2]) : 4096;
  const int K = argc > 3 ? std::atoi(argv[3]) : 4096;
  const double seconds = argc > 4 ? std::atof(argv[4]) : 2.0;
  const bool int3 = argc > 5 && std::string(argv[5]) == "int3";

  char kName[64];
  std::snprintf(kName, sizeof kName, "cutlass_%dx%dx%d_s%d_w64x64", kTile.bm, kTile.bn, kTile.bk,
                kTile.stages);

  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  int cb_major = 0, cb_minor = 0, cb_patch = 0;
  cublasGetProperty(MAJOR_VERSION, &cb_major);
  cublasGetProperty(MINOR_VERSION, &cb_minor);
  cublasGetProperty(PATCH_LEVEL, &cb_patch);

  __half *a, *b, *c_cut, *c_cub;
  CK(cudaMalloc(&a, size_t(M) * K * 2));
  CK(cudaMalloc(&b, size_t(N) * K * 2));
  CK(cudaMalloc(&c_cut, size_t(M) * N * 2));
  CK(cudaMalloc(&c_cub, size_t(M) * N * 2));
  fill_inputs<<<1024, 256>>>(a, size_t(M) * K, 20261122ull, 0, int3);
  fill_inputs<<<1024, 256>>>(b, size_t(N) * K, 20261122ull, 1, int3);
  CK(cudaGetLastError());
  const size_t flush_bytes = 2 * size_t(prop.l2CacheSize);
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));

  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetStream(h, s));
  void* cub_ws;
  CK(cudaMalloc(&cub_ws, size_t(32) << 20));
  CB(cublasSetWorkspace(h, cub_ws, size_t(32) << 20));

  Gemm gemm;
  typename Gemm::Arguments args(
      {M, N, K}, {reinterpret_cast<cutlass::half_t*>(a), K},
      {reinterpret_cast<cutlass::half_t*>(b), K}, {reinterpret_cast<cutlass::half_t*>(c_cut), M},
      {reinterpret_cast<cutlass::half_t*>(c_cut), M}, {Acc(1.0f), Acc(0.0f)});
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
    std::fprintf(stderr, "%s: cannot implement\n", kName);
    return 1;
  }
  size_t ws_bytes = Gemm::get_workspace_size(args);
  void* ws = nullptr;
  if (ws_bytes) CK(cudaMalloc(&ws, ws_bytes));
  if (gemm.initialize(args, ws, s) != cutlass::Status::kSuccess) {
    std::fprintf(stderr, "%s: initialize failed\n", kName);
    return 1;
  }
  auto run_cutlass = [&] {
    if (gemm(s) != cutlass::Status::kSuccess) {
      std::fprintf(stderr, "%s: launch failed\n", kName);
      std::exit(1);
    }
    CK(cudaGetLastError());
  };
  auto run_cublas = [&] {
    if (kF32) {
      const float al = 1.f, be = 0.f;
      CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &al, a, CUDA_R_16F, K, b, CUDA_R_16F, K,
                      &be, c_cub, CUDA_R_16F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    } else {
      const __half al = __float2half(1.f), be = __float2half(0.f);
      CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &al, a, CUDA_R_16F, K, b, CUDA_R_16F, K,
                      &be, c_cub, CUDA_R_16F, M, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT));
    }
  };

  // Verification: both outputs poisoned with NaN first; CUTLASS against cuBLAS.
  CK(cudaMemsetAsync(c_cut, 0xff, size_t(M) * N * 2, s));
  CK(cudaMemsetAsync(c_cub, 0xff, size_t(M) * N * 2, s));
  run_cutlass();
  run_cublas();
  CK(cudaStreamSynchronize(s));
  std::vector<__half> hc(size_t(M) * N), hr(size_t(M) * N);
  CK(cudaMemcpy(hc.data(), c_cut, hc.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), c_cub, hr.size() * 2, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  size_t bad = 0;
  for (size_t i = 0; i < hc.size(); ++i) {
    const double x = __half2float(hc[i]), r = __half2float(hr[i]);
    if (!std::isfinite(x)) ++bad;
    num += (x - r) * (x - r);
    den += r * r;
  }
  const double rel = std::sqrt(num / den);

  cudaEvent_t e[4];
  for (auto& ev : e) CK(cudaEventCreate(&ev));
  for (int i = 0; i < 10; ++i) {
    run_cutlass();
    run_cublas();
  }
  std::vector<float> t_cut, t_cub;
  float elapsed = 0;
  for (int it = 0; (elapsed < seconds * 1000 || it < 50) && it < 200000; ++it) {
    CK(cudaMemsetAsync(flush, it & 0xff, flush_bytes, s));
    CK(cudaEventRecord(e[0], s));
    run_cutlass();
    CK(cudaEventRecord(e[1], s));
    CK(cudaMemsetAsync(flush, (it + 1) & 0xff, flush_bytes, s));
    CK(cudaEventRecord(e[2], s));
    run_cublas();
    CK(cudaEventRecord(e[3], s));
    CK(cudaEventSynchronize(e[3]));
    float x, y;
    CK(cudaEventElapsedTime(&x, e[0], e[1]));
    CK(cudaEventElapsedTime(&y, e[2], e[3]));
    t_cut.push_back(x);
    t_cub.push_back(y);
    elapsed += x + y;
  }
  const double m_cut = median(t_cut), m_cub = median(t_cub);
  const double flops = 2.0 * M * N * K;
  std::printf(
      "{\"kernel\": \"%s\", \"accum\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, \"samples\": %zu, "
      "\"cutlass_median_ms\": %.5f, \"cublas_median_ms\": %.5f, \"cutlass_tflops\": %.1f, "
      "\"cublas_tflops\": %.1f, \"ratio_to_cublas\": %.4f, \"rel_diff_vs_cublas\": %.3e, "
      "\"nonfinite\": %zu, \"device\": \"%s\", \"sms\": %d, \"driver_api\": %d, "
      "\"runtime\": %d, \"cublas\": \"%d.%d.%d\", \"cutlass\": \"%d.%d.%d\", \"cache\": \"cold\", "
      "\"data\": \"%s, seed 20261122\"}\n",
      kName, kF32 ? "f32" : "f16", M, N, K, t_cut.size(), m_cut, m_cub, flops / m_cut * 1e-9,
      flops / m_cub * 1e-9, m_cub / m_cut, rel, bad, prop.name, prop.multiProcessorCount, drv, rt,
      cb_major, cb_minor, cb_patch, CUTLASS_MAJOR, CUTLASS_MINOR, CUTLASS_PATCH,
      int3 ? "int3: integers in [-3, 3]" : "uniform [-1,1) f16");
  return 0;
}
