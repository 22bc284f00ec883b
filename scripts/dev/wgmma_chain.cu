// The wgmma chain probe (issue 50): how long a k-block's four dependent wgmma m64nNk32 (e4m3, both
// operands in shared memory, f32 accumulators) take a warpgroup, with one or two warpgroups a CTA
// and one CTA on every SM, and nothing else in the loop but the promotion's FFMAs. Not part of the
// build (scripts/dev/gpu_session.sh's wgmma-chain step builds and runs it).
//
// Why: fp8gemm_sm90_persistent_t_m64c2's 64x32 tiles spend about 187 ns a k-block at 64x4096
// (the sixteenth session's K sweep, 128 CTAs), DeepGEMM's about 145 on the same tiling, and
// neither a deeper ring, the K split between the consumers nor the scales by TMA moved it more
// than 3% (docs/fp8.md). _m64c2's two consumer warpgroups each run four m64n16k32 a k-block on
// the tile's shared A rows, pipelined (k-block kb + 1 issued before kb's wait, run_pipelined);
// DeepGEMM's one warpgroup runs four m64n32k32 and waits for them each k-block. If a dependent
// chain of four wgmmas takes most of those nanoseconds, the k-block is the chain's latency and
// the next step is in the consumer's shape; if it takes far less, the k-block waits elsewhere
// (the stage's data, the barriers). The rows print each configuration's time a k-block from CUDA
// events over the whole launch (all warpgroups of all SMs on the same count of k-blocks) and from
// each warpgroup's clock64 (median over the warpgroups), at the SM clock the events imply.
//
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -I core/include -I kernels scripts/dev/wgmma_chain.cu core/cuda_check.cpp -lcublas -o
//     wgmma_chain
//   ./wgmma_chain [k_blocks]     (default 8192)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/sm90.cuh"
#include "core/cuda_check.hpp"

namespace gemmbench {
namespace {

constexpr int kRowBytes = 128;  // a k-block's 128 e4m3 of K: one 128-byte swizzle row
constexpr int kABytes = 64 * kRowBytes;

// One configuration: N, wgmma's N (B rows a warpgroup); WGS warpgroups a CTA, each on the same A
// rows and its own N rows of B (as _m64c2's SPLIT_N consumers); PIPE: k-block kb + 1's group
// issued before kb's wait (wait_group 1, two partials, as run_pipelined), else wait_group 0 after
// each k-block's group (DeepGEMM's loop). Each k-block's partial is added into the sums with one
// FFMA an element, as the block128 promotion does.
template <int N, int WGS, bool PIPE>
__global__ void __launch_bounds__(128 * WGS, 1)
    chain_kernel(int kbs, long long* cycles, float* sink) {
#if GEMMBENCH_SM90A
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t raw = ptx::smem_u32(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  uint8_t* smem = smem_raw + (base - raw);
  constexpr int kBytes = kABytes + WGS * N * kRowBytes;
  for (int i = int(threadIdx.x) * 16; i < kBytes; i += int(blockDim.x) * 16)
    *reinterpret_cast<uint4*>(smem + i) = make_uint4(0x38383838u, 0x38383838u, 0x38383838u,
                                                     0x38383838u);  // e4m3 1.0 (not zeros)
  __syncthreads();
  const int wg = int(threadIdx.x) / 128;
  const uint64_t desc_a = sm90::wgmma_desc_sw128_kmajor(base);
  const uint64_t desc_b = sm90::wgmma_desc_sw128_kmajor(base + kABytes + wg * N * kRowBytes);
  constexpr int NACC = N / 2;
  float acc[NACC], p0[NACC], p1[NACC];
#pragma unroll
  for (int i = 0; i < NACC; ++i) acc[i] = 0.f;
  const auto issue = [&](float(&d)[NACC]) {
    sm90::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks)
      sm90::wgmma_m64k32_fp8_f32<DType::e4m3, DType::e4m3, N>(
          d, sm90::wgmma_desc_advance(desc_a, uint32_t(32 * ks)),
          sm90::wgmma_desc_advance(desc_b, uint32_t(32 * ks)), ks == 0 ? 0 : 1);
    sm90::wgmma_commit_group();
#pragma unroll
    for (int i = 0; i < NACC; ++i) sm90::fence_operand(d[i]);
  };
  const auto promote = [&](float(&d)[NACC], float f) {
#pragma unroll
    for (int i = 0; i < NACC; ++i) sm90::fence_operand(d[i]);
#pragma unroll
    for (int i = 0; i < NACC; ++i) acc[i] = fmaf(d[i], f, acc[i]);
  };
  const long long t0 = clock64();
  if constexpr (PIPE) {
    // run_pipelined's walk, its tail included: with the tail's two k-blocks unconditional
    // (kbs is even here) ptxas serialized every wgmma of the loop (C7514, the promotion's reads
    // of p0 taken for reads inside p1's stage); with run_pipelined's two tails it does not.
    issue(p0);
    int kb = 0;
    for (; kb + 2 < kbs; kb += 2) {
      issue(p1);
      sm90::wgmma_wait_group<1>();
      promote(p0, 1.f + float(kb));
      issue(p0);
      sm90::wgmma_wait_group<1>();
      promote(p1, 0.5f);
    }
    if (kb + 1 < kbs) {  // two left
      issue(p1);
      sm90::wgmma_wait_group<1>();
      promote(p0, 1.f);
      sm90::wgmma_wait_group<0>();
      promote(p1, 1.f);
    } else {
      sm90::wgmma_wait_group<0>();
      promote(p0, 1.f);
    }
  } else {
    for (int kb = 0; kb < kbs; ++kb) {
      issue(p0);
      sm90::wgmma_wait_group<0>();
      promote(p0, 1.f + float(kb));
    }
  }
  const long long t1 = clock64();
  if (threadIdx.x % 128 == 0) cycles[blockIdx.x * WGS + wg] = t1 - t0;
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < NACC; ++i) s += acc[i];
  if (blockIdx.x == 0) sink[threadIdx.x] = s;  // the sums kept: the loop is not folded away
#else
  (void)kbs, (void)cycles, (void)sink;
  __trap();
#endif
}

template <int N, int WGS, bool PIPE>
void run_one(int sms, int kbs, long long* d_cycles, float* d_sink) {
  const int smem = 1024 + kABytes + WGS * N * kRowBytes;
  const auto kernel = chain_kernel<N, WGS, PIPE>;
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  kernel<<<sms, 128 * WGS, smem>>>(kbs / 4, d_cycles, d_sink);  // warm-up: code, clocks
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> ms;
  for (int r = 0; r < 5; ++r) {
    CUDA_CHECK(cudaEventRecord(e0));
    kernel<<<sms, 128 * WGS, smem>>>(kbs, d_cycles, d_sink);
    CUDA_CHECK(cudaEventRecord(e1));
    CUDA_CHECK(cudaEventSynchronize(e1));
    float t = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  std::vector<long long> cyc(size_t(sms) * WGS);
  CUDA_CHECK(
      cudaMemcpy(cyc.data(), d_cycles, cyc.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  std::sort(ms.begin(), ms.end());
  std::sort(cyc.begin(), cyc.end());
  const double ns_kb = double(ms[ms.size() / 2]) * 1e6 / kbs;
  const double clk_kb = double(cyc[cyc.size() / 2]) / kbs;
  std::printf("%4d %4d %-5s %10.1f %10.1f %10.0f %12.2f\n", N, WGS, PIPE ? "pipe" : "wait0", ns_kb,
              clk_kb, clk_kb / ns_kb * 1e3, 2.0 * 64 * N * 128 * WGS * sms / (ns_kb * 1e-9) / 1e12);
  CUDA_CHECK(cudaEventDestroy(e0));
  CUDA_CHECK(cudaEventDestroy(e1));
}

}  // namespace
}  // namespace gemmbench

int main(int argc, char** argv) {
  using namespace gemmbench;
  const int kbs = argc > 1 ? std::max(64, std::atoi(argv[1])) : 8192;
  int dev = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  long long* d_cycles = nullptr;
  float* d_sink = nullptr;
  CUDA_CHECK(cudaMalloc(&d_cycles, sizeof(long long) * size_t(sms) * 2));
  CUDA_CHECK(cudaMalloc(&d_sink, sizeof(float) * 256));
  std::printf("wgmma m64nNk32 e4m3 (SS), 4 a k-block, %d k-blocks, one CTA on each of %d SMs\n",
              kbs, sms);
  std::printf("%4s %4s %-5s %10s %10s %10s %12s\n", "N", "WGs", "loop", "ns/kb", "clk/kb", "MHz",
              "TFLOP/s");
  // _m64c2's consumers at its three widths (64x32, 64x64, 64x128 tiles: N 16, 32, 64 a
  // warpgroup, two warpgroups), DeepGEMM's one warpgroup at 64x32, and each the other way.
  run_one<16, 2, true>(sms, kbs, d_cycles, d_sink);
  run_one<16, 2, false>(sms, kbs, d_cycles, d_sink);
  run_one<32, 1, false>(sms, kbs, d_cycles, d_sink);
  run_one<32, 1, true>(sms, kbs, d_cycles, d_sink);
  run_one<16, 1, true>(sms, kbs, d_cycles, d_sink);
  run_one<32, 2, true>(sms, kbs, d_cycles, d_sink);
  run_one<64, 2, true>(sms, kbs, d_cycles, d_sink);
  run_one<64, 1, false>(sms, kbs, d_cycles, d_sink);
  CUDA_CHECK(cudaFree(d_cycles));
  CUDA_CHECK(cudaFree(d_sink));
  return 0;
}
