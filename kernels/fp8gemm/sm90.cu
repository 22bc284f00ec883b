// Rung F1, fp8gemm_sm90: FP8 GEMM on Hopper with f32 accumulation promoted every 128 of K, in each
// scaling gemmbench runs (tensor, row, DeepSeek-V3's block128) and with fast accumulation, for
// e4m3 x e4m3, e4m3 x e5m2 and e5m2 x e4m3 (the wgmma kind of the pair; the tile, ring and
// epilogue do not depend on it). docs/fp8.md says what the formats are; this file is the kernel.
//
// The mainloop of rung 10 (hgemm_tn_sm90) on 8-bit operands, in its simplest form:
//   - one CTA per 128x128 tile of C (no persistence, no cluster): three warpgroups, a producer
//     (one thread issues the TMA loads) and two consumers of 64 rows each;
//   - a ring of kStages k-blocks of 128 (128 bytes of A and B rows: the 128B swizzle atom, and
//     exactly one 1x128 / 128x128 scale block along K), filled by TMA, guarded by full / empty
//     mbarriers;
//   - per k-block, four wgmma m64n128k32 into a partial accumulator that starts at zero, then the
//     partial is added into f32 registers (two-level accumulation, as DeepGEMM and CUTLASS's
//     2xAcc do): the tensor cores keep only about 14 bits of an FP8 sum, so each partial spans
//     128 of K, not all of it. block128 multiplies the partial by A's 1x128 scale of the row and
//     B's 128x128 scale of the tile (the tile's 128 columns are one block) as it adds it;
//     tensor and row scales do not change along K and are applied once, in the epilogue.
//   - fast accumulation (tensor and row only): the wgmma accumulator itself runs over all of K.
//   - epilogue: each consumer thread scales its accumulators (alpha, and the tensor or row
//     scales), adds beta * C, and stores bf16 to C directly (column-major, guarded at the edges).
// TMA zero-fills the boxes past M, N and K, so any M, N and any K that is a multiple of 16 (TMA's
// 16-byte row stride) run.
//
// State (2026-11-27): verified on an H100 in every scaling (tests/gpu/test_kernels.cpp);
// DeepSeek-V3 prefill at 0.62x cuBLASLt per-tensor, 0.68x block128 (geomeans,
// bench_results/h100/2026-11-27_fp8_deepseek_*.json.gz); rung F2 (sm90_persistent.cu) takes it on.
// The e5m2 pairs: verified on the H100, 0.69x / 0.68x per-tensor / block128 at 4096x7168x2048
// (bench_results/h100/2026-11-27_fp8_e5m2_pairs_*.json.gz); rung F3 takes them on too.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "core/cuda_check.hpp"
#include "core/per_device.hpp"
#include "core/registry.hpp"
#include "fp8gemm/sm90_rules.hpp"
#include "common/sm90/tma_desc.hpp"

namespace gemmbench {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 128;  // kBK elements = bytes: one swizzle row
constexpr int kStages = 6;
constexpr int kStageBytesA = kBM * kBK, kStageBytesB = kBN * kBK;
constexpr int kThreads = 384;  // producer warpgroup, two consumer warpgroups
constexpr int kSmemBytes = kStages * (kStageBytesA + kStageBytesB) + 1024;  // + alignment slack
static_assert(kBK == int(kScaleBlock) && kBN == int(kScaleBlock),
              "a k-block is one scale block along K, and a tile's columns one block of B");

struct Fp8Params {
  int m, n, k;
  float alpha, beta;
  const float* scale_a;
  const float* scale_b;
  __nv_bfloat16* c;
};

// How a kernel instantiation treats the scales: where they are applied, and whether the sum is
// promoted to f32 registers every k-block.
template <ScaleMode S, bool kFast>
struct Fp8Scheme {
  static_assert(!(kFast && S == ScaleMode::block128), "block scales are applied at promotion");
  static constexpr bool kPromote = !kFast;
  static constexpr bool kBlockScaled = S == ScaleMode::block128;
};

#if GEMMBENCH_SM90A
// Thread t of a consumer warpgroup holds rows 16 * warp + 8 * h + g (h = 0, 1) of its 64 and
// columns 8 * j + 2 * q + e (j < 16, e = 0, 1) of the 128: sm90.cuh's accumulator fragment.
__device__ __forceinline__ int frag_row(int t, int h) {
  return 16 * (t / 32) + 8 * h + (t % 32) / 4;
}
__device__ __forceinline__ int frag_col(int t, int j, int e) {
  return 8 * j + 2 * (t % 4) + e;
}
#endif

// A, B: the FP8 formats of the operands (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3), the wgmma kind.
template <DType A, DType B, ScaleMode S, bool kFast>
__global__ void __launch_bounds__(kThreads, 1)
    fp8gemm_sm90_kernel(const __grid_constant__ CUtensorMap map_a,
                        const __grid_constant__ CUtensorMap map_b, Fp8Params prm) {
#if GEMMBENCH_SM90A
  using Scheme = Fp8Scheme<S, kFast>;
  // The barriers are static shared memory: supports() tells the sm_90a image from the trap stub
  // of the other passes by it (as the Hopper rung does).
  __shared__ __align__(8) uint64_t full_bar[kStages], empty_bar[kStages];
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t smem_base = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  const auto stage_a = [&](int s) { return smem_base + uint32_t(s * kStageBytesA); };
  const auto stage_b = [&](int s) {
    return smem_base + uint32_t(kStages * kStageBytesA + s * kStageBytesB);
  };
  const auto bar = [](uint64_t* b, int s) { return ptx::smem_u32(&b[s]); };

  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int kblocks = (prm.k + kBK - 1) / kBK;
  if (threadIdx.x == 0) {
    sm90::tma_prefetch_descriptor(&map_a);
    sm90::tma_prefetch_descriptor(&map_b);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbarrier_init(bar(full_bar, s), 1);   // the producer's expect_tx arrival
      sm90::mbarrier_init(bar(empty_bar, s), 2);  // one arrival per consumer warpgroup
    }
    sm90::fence_barrier_init();
  }
  __syncthreads();

  if (wg == 0) {  // PRODUCER: the ring's k-blocks, one thread
    sm90::setmaxnreg_dec<40>();
    if (t == 0) {
      for (int kb = 0; kb < kblocks; ++kb) {
        const int s = kb % kStages;
        const uint32_t phase = uint32_t(kb / kStages) & 1u;
        sm90::mbarrier_wait_parity(bar(empty_bar, s), phase ^ 1u);  // a fresh slot passes
        sm90::mbarrier_arrive_expect_tx(bar(full_bar, s), kStageBytesA + kStageBytesB);
        sm90::tma_load_2d(stage_a(s), &map_a, bar(full_bar, s), kb * kBK, m0);
        sm90::tma_load_2d(stage_b(s), &map_b, bar(full_bar, s), kb * kBK, n0);
      }
    }
    return;
  }

  // CONSUMERS: 64 rows each, the whole 128 columns.
  sm90::setmaxnreg_inc<232>();
  const int cw = wg - 1;
  const int64_t kb_count = kblocks;
  const int row0 = m0 + 64 * cw + frag_row(t, 0), row1 = m0 + 64 * cw + frag_row(t, 1);
  float acc[64], part[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.f;
  for (int kb = 0; kb < kblocks; ++kb) {
    const int s = kb % kStages;
    // The block scales of this k-block, read before the wait so their latency hides under it.
    float f0 = 1.f, f1 = 1.f;
    if constexpr (Scheme::kBlockScaled) {
      const float sb = prm.scale_b[int64_t(n0 / kBN) * kb_count + kb];
      f0 = row0 < prm.m ? prm.scale_a[int64_t(row0) * kb_count + kb] * sb : 0.f;
      f1 = row1 < prm.m ? prm.scale_a[int64_t(row1) * kb_count + kb] * sb : 0.f;
    }
    sm90::mbarrier_wait_parity(bar(full_bar, s), uint32_t(kb / kStages) & 1u);
    const uint64_t desc_a = sm90::wgmma_desc_sw128_kmajor(stage_a(s) + uint32_t(64 * cw * kBK));
    const uint64_t desc_b = sm90::wgmma_desc_sw128_kmajor(stage_b(s));
    sm90::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kBK / 32; ++ks) {
      const uint64_t da = sm90::wgmma_desc_advance(desc_a, uint32_t(32 * ks));
      const uint64_t db = sm90::wgmma_desc_advance(desc_b, uint32_t(32 * ks));
      if constexpr (Scheme::kPromote)
        sm90::wgmma_m64k32_fp8_f32<A, B, 128>(part, da, db, ks > 0);
      else
        sm90::wgmma_m64k32_fp8_f32<A, B, 128>(acc, da, db, kb > 0 || ks > 0);
    }
    sm90::wgmma_commit_group();
    sm90::wgmma_wait_group<0>();
    if constexpr (Scheme::kPromote) {
#pragma unroll
      for (int i = 0; i < 64; ++i) sm90::fence_operand(part[i]);
    } else {
#pragma unroll
      for (int i = 0; i < 64; ++i) sm90::fence_operand(acc[i]);
    }
    if (t == 0) sm90::mbarrier_arrive(bar(empty_bar, s));  // this warpgroup is done with slot s
    if constexpr (Scheme::kPromote) {
      // part[4j + 2h + e] belongs to row h: f0 for h = 0, f1 for h = 1.
#pragma unroll
      for (int i = 0; i < 64; ++i) acc[i] += part[i] * ((i / 2) % 2 == 0 ? f0 : f1);
    }
  }

  // EPILOGUE: alpha and the scales that do not change along K, beta * C, bf16 stores.
  float sa0 = 1.f, sa1 = 1.f;
  if constexpr (S == ScaleMode::tensor) {
    sa0 = sa1 = prm.scale_a[0] * prm.scale_b[0];
  } else if constexpr (S == ScaleMode::row) {
    sa0 = row0 < prm.m ? prm.scale_a[row0] : 0.f;
    sa1 = row1 < prm.m ? prm.scale_a[row1] : 0.f;
  }
#pragma unroll
  for (int j = 0; j < 16; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int m = h == 0 ? row0 : row1, n = n0 + frag_col(t, j, e);
        if (m >= prm.m || n >= prm.n) continue;
        float scale = prm.alpha * (h == 0 ? sa0 : sa1);
        if constexpr (S == ScaleMode::row) scale *= prm.scale_b[n];
        __nv_bfloat16* dst = prm.c + int64_t(n) * prm.m + m;
        float v = acc[4 * j + 2 * h + e] * scale;
        if (prm.beta != 0.f) v += prm.beta * __bfloat162float(*dst);
        *dst = __float2bfloat16_rn(v);
      }
#else
  __trap();
#endif
}

// The instantiation of a problem. `for_launch`: with its dynamic shared-memory limit raised to
// the ring's size, once per device (the first launch is a warm-up, outside every timed sample).
template <DType A, DType B, ScaleMode S, bool kFast>
const void* kernel_ptr(bool for_launch) {
  const void* fn = reinterpret_cast<const void*>(&fp8gemm_sm90_kernel<A, B, S, kFast>);
  static PerDevice<int> raised;
  if (for_launch)
    raised.get([fn](int) {
      CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
      return 1;
    });
  return fn;
}

template <DType A, DType B>
const void* kernel_of_pair(const GemmProblem& p, bool for_launch) {
  switch (p.scale) {
    case ScaleMode::row:
      return p.fast_accum ? kernel_ptr<A, B, ScaleMode::row, true>(for_launch)
                          : kernel_ptr<A, B, ScaleMode::row, false>(for_launch);
    case ScaleMode::block128:
      return kernel_ptr<A, B, ScaleMode::block128, false>(for_launch);
    default:
      return p.fast_accum ? kernel_ptr<A, B, ScaleMode::tensor, true>(for_launch)
                          : kernel_ptr<A, B, ScaleMode::tensor, false>(for_launch);
  }
}

// The pair's instantiations: the three pairs supports() lets through, and no e5m2 x e5m2.
const void* kernel_for(const GemmProblem& p, bool for_launch = false) {
  if (p.dtype == DType::e5m2) return kernel_of_pair<DType::e5m2, DType::e4m3>(p, for_launch);
  if (p.b_type() == DType::e5m2) return kernel_of_pair<DType::e4m3, DType::e5m2>(p, for_launch);
  return kernel_of_pair<DType::e4m3, DType::e4m3>(p, for_launch);
}

std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (std::string why = fp8_pair_unsupported(p.dtype, p.b_type()); !why.empty()) return why;
  if (std::string why = fp8_sm90_problem_unsupported(p, caps); !why.empty()) return why;
  if ((p.n + kBN - 1) / kBN > 0x7fffffff || (p.m + kBM - 1) / kBM > 65535)
    return "M must be below 65536 * 128 (the grid's y extent)";
  return sm90a_image_unsupported(kernel_for(p), kSmemBytes, caps);
}

void launch(const GemmArgs& a, cudaStream_t stream) {
  const GemmProblem& p = a.problem;
  const CUtensorMap map_a = make_kmajor_map(a.a, p.dtype, int(p.m), int(p.k), kBM);
  const CUtensorMap map_b = make_kmajor_map(a.b, p.b_type(), int(p.n), int(p.k), kBN);
  const Fp8Params prm{int(p.m), int(p.n),  int(p.k),  a.alpha,
                      a.beta,   a.scale_a, a.scale_b, static_cast<__nv_bfloat16*>(a.c)};
  const void* fn = kernel_for(p, /*for_launch=*/true);
  const dim3 grid(unsigned((p.n + kBN - 1) / kBN), unsigned((p.m + kBM - 1) / kBM));
  void* args[] = {const_cast<CUtensorMap*>(&map_a), const_cast<CUtensorMap*>(&map_b),
                  const_cast<Fp8Params*>(&prm)};
  CUDA_CHECK(cudaLaunchKernel(fn, grid, dim3(kThreads), args, kSmemBytes, stream));
}

GEMMBENCH_REGISTER_KERNEL(fp8_sm90_info(
    "fp8gemm_sm90", 1,
    "Hopper FP8 (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3): TMA + mbarrier ring + wgmma m64n128k32, "
    "producer and two consumer warpgroups, 128x128x128 tiles, f32 promotion every 128 of K with "
    "the block128 scales applied there; tensor/row scales in the epilogue; bf16 C",
    supports, launch, {DType::e4m3, DType::e5m2}));

}  // namespace
}  // namespace gemmbench
