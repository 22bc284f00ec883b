// Timeline probe of the Hopper decode kernel (hgemm_decode_sm90): where a launch's time goes.
// Not part of the build. Compiles its own copy of the kernel with GEMMBENCH_SM90_TRACE, so one
// thread per CTA stamps %globaltimer at entry, first stage landed, mainloop done, fix-up done
// and exit, and when a partial is published (kernels/common/sm90/trace.cuh). Each repetition
// makes L2 cold with the runner's own L2Flush (src/runner/l2_flush.hpp), times the launch with CUDA
// events and prints, in microseconds after the first CTA's entry, the spread of those points over
// the CTAs. Medians over the repetitions; f16 TN, f32 accumulation, seeded uniform data.
//
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -I core/include -I src -I kernels scripts/dev/sm90_trace.cu \
//     kernels/common/sm90/tma_desc.cpp core/cuda_check.cpp core/device_caps.cpp \
//     core/registry.cpp src/runner/l2_flush.cu core/types.cpp -lcublas -o sm90_trace
//   ./sm90_trace 16 4096 4096 [reps] [stages] [max_ctas] [plain|dsmem|n64|n64cs|wmc|cublas]
// dsmem: hgemm_decode_sm90's in-cluster split (max_ctas: the CTAs its split may fill, 0: the
// rule); n64: hgemm_decode_sm90_n64 (64 weight rows per CTA, its stream-K walk); n64cs:
// hgemm_decode_sm90_n64_cs (the same tile, K split over a cluster as dsmem); wmc:
// hgemm_decode_sm90_wmc's 64-row shared weight tile (M 65-128: two 64-token CTAs per cluster);
// without either, the stream-K walk of the 128-row tile (hgemm_decode_sm90 before the split, and
// its fallback); cublas: cuBLAS's own GEMM for the shape (event time only, no trace points).
// SM90_TRACE_WARM_CODE=1: after each flush, one launch of the same GEMM on other buffers of the
// same shape, so the kernel's code is in L2 while the measured launch's operands stay cold (does
// the prologue wait on code fetch, and does cuBLAS's?).
// -DSM90_TRACE_EVENT_ONLY: the kernel without the probe's stamps (its stores and their place in
// the prologue's fences), event times only: for timing experiment knobs as gemmbench would run
// them.
#ifndef SM90_TRACE_EVENT_ONLY
#define GEMMBENCH_SM90_TRACE 1
#endif

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "hgemm/sm90/launch.cuh"
#include "runner/l2_flush.hpp"

namespace gemmbench {
namespace {

using Decode32 = Sm90Variant<32, 128, 8, 1, true>;
using Decode64 = Sm90Variant<64, 128, 7, 1, true>;
using Decode128 = Sm90Variant<128, 128, 5, 1, true>;

// The decode kernels' choice of token tile (TokenTiles, hgemm/sm90/launch.cuh).
template <class V32, class V64, class V128>
void launch_by_tokens(const GemmArgs& args, cudaStream_t s) {
  TokenTiles<V32, V64, V128>::with(args.problem.m, [&](auto v) { launch<decltype(v)>(args, s); });
}

__global__ void fill_uniform(__half* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t x = uint32_t(i) * 2654435761u ^ seed;
    x ^= x >> 15, x *= 2246822519u, x ^= x >> 13;
    p[i] = __float2half(float(x & 0xffff) / 32768.f - 1.f);
  }
}
constexpr int kProbePoints = 11;  // kernels/common/sm90/trace.cuh
#ifdef GEMMBENCH_SM90_TRACE
static_assert(kProbePoints == kSm90TracePoints, "the probe reads every point");
#endif
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace
}  // namespace gemmbench

int main(int argc, char** argv) {
  using namespace gemmbench;
  if (argc < 4) {
    std::fprintf(stderr, "usage: sm90_trace M N K [reps] [stages] [max_ctas] [plain]\n");
    return 2;
  }
  const int M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if (std::getenv("SM90_TRACE_HEADER")) {  // once per file: what ran it
    cudaDeviceProp prop{};
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("# %s (%d SMs), CUDA driver API %d, runtime %d\n", prop.name,
                prop.multiProcessorCount, driver, runtime);
  }
  const int reps = argc > 4 ? std::atoi(argv[4]) : 30;
  __half *a, *b, *c;
  CUDA_CHECK(cudaMalloc(&a, size_t(M) * K * 2));
  CUDA_CHECK(cudaMalloc(&b, size_t(N) * K * 2));
  CUDA_CHECK(cudaMalloc(&c, size_t(M) * N * 2));
  fill_uniform<<<528, 256>>>(a, size_t(M) * K, 1);
  fill_uniform<<<528, 256>>>(b, size_t(N) * K, 2);
  __half *wa, *wb, *wc;  // the warm-code launch's own operands
  CUDA_CHECK(cudaMalloc(&wa, size_t(M) * K * 2));
  CUDA_CHECK(cudaMalloc(&wb, size_t(N) * K * 2));
  CUDA_CHECK(cudaMalloc(&wc, size_t(M) * N * 2));
  fill_uniform<<<528, 256>>>(wa, size_t(M) * K, 3);
  fill_uniform<<<528, 256>>>(wb, size_t(N) * K, 4);
  const bool warm_code = std::getenv("SM90_TRACE_WARM_CODE") != nullptr;
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  L2Flush flush{size_t(l2)};  // the runner's own cold-L2 preparation

  GemmArgs args;
  args.problem.m = M, args.problem.n = N, args.problem.k = K;
  args.problem.layout = Layout::tn, args.problem.dtype = DType::f16,
  args.problem.accum = Accum::f32;
  args.a = a, args.b = b, args.c = c;
  // Optional: another ring depth (BM = 32: 4, 6; BM = 128: 3, 4) and a grid cap.
  const int stages = argc > 5 ? std::atoi(argv[5]) : 0;
  args.test_max_ctas = argc > 6 ? std::atoi(argv[6]) : 0;
  // Optional: "plain" runs the walk without stream-K (each tile whole, one CTA each); "dsmem" the
  // in-cluster split.
  const bool plain = argc > 7 && std::string(argv[7]) == "plain";
  const bool dsmem = argc > 7 && std::string(argv[7]) == "dsmem";
  const bool n64 = argc > 7 && std::string(argv[7]) == "n64";
  const bool wmc = argc > 7 && std::string(argv[7]) == "wmc";
  const bool n64cs = argc > 7 && std::string(argv[7]) == "n64cs";
  const bool use_cublas = argc > 7 && std::string(argv[7]) == "cublas";
  cublasHandle_t handle = nullptr;
  if (use_cublas) CUBLAS_CHECK(cublasCreate(&handle));
  auto launch_args = [&](const GemmArgs& args, cudaStream_t s) {
    if (use_cublas) {  // TN as gemmbench's baseline calls it (src/runner/cublas_gemm.cpp)
      const float one = 1.f, zero = 0.f;
      CUBLAS_CHECK(cublasSetStream(handle, s));
      CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, args.a, CUDA_R_16F,
                                K, args.b, CUDA_R_16F, K, &zero, args.c, CUDA_R_16F, M,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      return;
    }
    if (wmc) {  // hgemm_decode_sm90_wmc's 64-row shared tile (kernels/hgemm/sm90/decode.cu)
      if (M <= 64) {
        std::fprintf(stderr, "wmc: M 65-128 only\n");
        std::exit(2);
      }
      return launch<Sm90Variant<64, 64, 12, 2, false, Layout::tn, false, true>>(args, s);
    }
    if (n64cs)  // hgemm_decode_sm90_n64_cs: the 64-row tile, K split in the cluster
      return launch_by_tokens<Sm90Variant<32, 64, 16, 1, false, Layout::tn, true>,
                              Sm90Variant<64, 64, 12, 1, false, Layout::tn, true>,
                              Sm90Variant<128, 64, 8, 1, false, Layout::tn, true>>(args, s);
    if (n64)  // the tiles of hgemm_decode_sm90_n64 (kernels/hgemm/sm90/decode.cu)
      return launch_by_tokens<Sm90Variant<32, 64, 16, 1, true>, Sm90Variant<64, 64, 12, 1, true>,
                              Sm90Variant<128, 64, 8, 1, true>>(args, s);
    if (dsmem)
      return launch_by_tokens<Sm90Variant<32, 128, 8, 1, false, Layout::tn, true>,
                              Sm90Variant<64, 128, 7, 1, false, Layout::tn, true>,
                              Sm90Variant<128, 128, 5, 1, false, Layout::tn, true>>(args, s);
    if (plain)
      return launch_by_tokens<Sm90Variant<32, 128, 8, 1, false>, Sm90Variant<64, 128, 7, 1, false>,
                              Sm90Variant<128, 128, 5, 1, false>>(args, s);
    if (M <= 32) {
      if (stages == 4)
        launch<Sm90Variant<32, 128, 4, 1, true>>(args, s);
      else if (stages == 6)
        launch<Sm90Variant<32, 128, 6, 1, true>>(args, s);
      else
        launch<Decode32>(args, s);
    } else if (M <= 64) {
      launch<Decode64>(args, s);
    } else {
      if (stages == 3)
        launch<Sm90Variant<128, 128, 3, 1, true>>(args, s);
      else if (stages == 4)
        launch<Sm90Variant<128, 128, 4, 1, true>>(args, s);
      else
        launch<Decode128>(args, s);
    }
  };
  GemmArgs warm_args = args;
  warm_args.a = wa, warm_args.b = wb, warm_args.c = wc;
  auto launch_once = [&](cudaStream_t s) { launch_args(args, s); };
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  for (int w = 0; w < 3; ++w) launch_once(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  // Per point: medians over reps of (min, median, max over CTAs), in us after the first entry.
  std::vector<double> ev;
  std::vector<std::vector<double>> stat(kProbePoints * 3);
  std::vector<double> ctas_seen;
  static unsigned long long tr[1024][kProbePoints];
  for (int r = 0; r < reps; ++r) {
#ifdef GEMMBENCH_SM90_TRACE
    std::vector<unsigned long long> zero(1024 * kProbePoints, 0);
    CUDA_CHECK(cudaMemcpyToSymbol(g_sm90_trace, zero.data(), zero.size() * 8));
#endif
    flush.run(stream);
    if (warm_code) launch_args(warm_args, stream);
    CUDA_CHECK(cudaEventRecord(e0, stream));
    launch_once(stream);
    CUDA_CHECK(cudaEventRecord(e1, stream));
    CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    ev.push_back(ms * 1000.0);
#ifdef GEMMBENCH_SM90_TRACE
    CUDA_CHECK(cudaMemcpyFromSymbol(tr, g_sm90_trace, sizeof(tr)));
#endif
    int ctas = 0;
    unsigned long long t0 = ~0ull;
    for (int i = 0; i < 1024; ++i)
      if (tr[i][0]) ++ctas, t0 = std::min(t0, tr[i][0]);
    ctas_seen.push_back(ctas);
    for (int p = 0; p < kProbePoints; ++p) {
      if (p == 5) continue;  // the SM id
      std::vector<double> v;
      for (int i = 0; i < ctas; ++i)
        if (tr[i][p]) v.push_back((tr[i][p] - t0) / 1000.0);
      if (v.empty()) continue;
      std::sort(v.begin(), v.end());
      stat[3 * p].push_back(v.front());
      stat[3 * p + 1].push_back(v[v.size() / 2]);
      stat[3 * p + 2].push_back(v.back());
    }
  }
  const char* names[kProbePoints] = {"entry",
                                     "first stage landed",
                                     "mainloop done",
                                     "fix-up done",
                                     "consumer exit",
                                     "",
                                     (dsmem || n64cs) ? "cluster synced" : "first loads issued",
                                     (dsmem || n64cs) ? "copies landed" : "partial published",
                                     "producer ready",
                                     "barriers initialised",
                                     "first work computed"};
  std::printf("%dx%dx%d f16 TN, %s tile BM=%d, stages %s, %g CTAs, %d reps\n", M, N, K,
              dsmem   ? "in-cluster split"
              : n64cs ? "64-row weight tile, in-cluster split"
              : n64   ? "64-row weight tile, workspace walk"
              : wmc   ? "64-row weight tile shared by a 2-CTA cluster"
                      : "workspace walk",
              M <= 32   ? 32
              : M <= 64 ? 64
                        : 128,
              stages ? argv[5] : "default", median(ctas_seen), reps);
  std::printf("  event time (median): %.2f us\n", median(ev));
  std::printf("  %-20s %8s %8s %8s   (us after the first CTA's entry; medians over reps)\n",
              "point", "min", "median", "max");
  // Print order: point 6 is late in the split (cluster synced), early elsewhere (first loads).
  static const int order_dsmem[] = {0, 9, 8, 10, 1, 2, 6, 7, 3, 4},
                   order_walk[] = {0, 9, 8, 10, 6, 1, 2, 7, 3, 4};
  const int* order = (dsmem || n64cs) ? order_dsmem : order_walk;
  for (int i = 0; i < 10; ++i) {
    const int p = order[i];
    if (!stat[3 * p].empty())
      std::printf("  %-20s %8.2f %8.2f %8.2f\n", names[p], median(stat[3 * p]),
                  median(stat[3 * p + 1]), median(stat[3 * p + 2]));
  }
  return 0;
}
