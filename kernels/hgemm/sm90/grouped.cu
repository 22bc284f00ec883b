// hgemm_grouped_sm90 — HGEMM ladder, rung 10 (the Hopper rung) for grouped GEMM: the experts of a
// Mixture-of-Experts layer in one persistent launch (docs/grouped.md, issue 51).
//
// Adds over the dense Hopper kernel (sm90/kernel.cuh), whose producer ring (common/sm90/
// producer.cuh, load_tile), wgmma mainloop (sm90/mainloop.cuh) and register epilogue
// (common/sm90/epilogue.cuh, store_tile_registers) it runs unchanged: a tile walk over all the
// groups at once (common/grouped_schedule.hpp), so that skewed groups spread over every SM instead
// of one launch (or one CTA set) per group. Group g is the dense TN GEMM C_g^T (N, M_g) = B_g
// A_g^T: the weights are wgmma's A, the tokens its B. One tensor map holds all G weight matrices as
// [G*N, K], one all activation rows [stored_rows, K]; a tile's rows past its group are other
// groups' or padding and are computed but never stored: the epilogue writes only rows
// [first_row_g, first_row_g + M_g) and columns < N, straight from the fragment (16-byte stores
// where N % 8 == 0), alpha and beta applied in f32.
// Tile: 256 (N) x 128 (rows) x 64, 4 stages, one producer and two consumer warpgroups (384
// threads, 40/232 registers, 193 KB shared): the dense binding measured best at prefill shapes
// (docs/hgemm-hopper.md); 256 along N reads each activation row once per 256 outputs. Persistent:
// one CTA per SM (occupancy), CTA c takes tiles c, c + grid, ... No cluster, no TMA store.
// Constraints: sm_90 and an sm_90a build; f16 (f32/f16 acc) or bf16 (f32 acc); K % 8 == 0 (TMA
// row strides); G*N, stored rows and tiles below 2^31. Both group layouts, any align.
// Status (2026-11-29, H200, sustained, each provider alone, not checked interleaved; bench_results/
// h200/2026-11-29_moe_grouped_{skipfix,small}.json.gz): over the faster cuBLAS way on the three MoE
// presets, 1.105x at 512 tokens, 1.366x at 4096 balanced, 1.190x at 4096 zipf:1.2 (geomeans;
// Mixtral 0.82-0.99x), 0.94-1.03x at 16-128 tokens with the weights read at 84-102% of the
// measured roof. docs/grouped.md has the tables and what limits skewed routing (the 128-row tile).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/grouped_schedule.hpp"
#include "common/occupancy.hpp"
#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "common/sm90/config.hpp"
#include "common/sm90/epilogue.cuh"
#include "common/sm90/grouped_launch.hpp"
#include "common/sm90/image.hpp"
#include "common/sm90/pipeline.cuh"
#include "common/sm90/producer.cuh"
#include "core/cuda_check.hpp"
#include "core/per_device.hpp"
#include "core/registry.hpp"
#include "hgemm/sm90/mainloop.cuh"

namespace gemmbench {
namespace {

// BM: the tile along N (the weights' rows, wgmma N); BN: along the group's rows (64 per consumer
// warpgroup, wgmma M). Sm90Config's names are the dense kernel's GEMM M and N.
constexpr int kTileN = 256, kTileRows = 128, kStages = 4;
using GroupedCfg = Sm90Config<kTileN, kTileRows, kStages, 1>;
// The ring alone (+ 1024 for the swizzle alignment): the register epilogue stages nothing.
constexpr int kSmemBytes = kStages * int(GroupedCfg::STAGE_BYTES) + 1024;
static_assert(kSmemBytes + 2 * kStages * 8 <= 227 * 1024, "the ring must fit in shared memory");

template <class T, bool F16_ACCUM, class Cfg>
__global__ void __launch_bounds__(Cfg::THREADS, 1) hgemm_grouped_sm90_kernel(
    const __grid_constant__ CUtensorMap tmap_w,  // B weights (G*N, K): k-major box (BK, BM)
    const __grid_constant__ CUtensorMap tmap_x,  // A activations (stored_rows, K): box (BK, BN)
    T* __restrict__ c,                           // C (stored_rows, N) row-major
    const GroupedWalk walk,                      // tile_prefix (G + 1), device
    const int64_t* __restrict__ first_row,       // (G) each group's first stored row
    const int* __restrict__ rows,                // (G) M_g
    int N, int k_blocks, float alpha, float beta) {
#if GEMMBENCH_SM90A
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES;
  using Acc = Sm90Acc<F16_ACCUM, BM>;
  static_assert(Cfg::CLUSTER == 1 && !Cfg::PARTIAL, "one CTA per tile, whole consumer warpgroups");

  // The barriers are the kernel's only static shared memory: supports() reads its size back to
  // learn that the driver picked this (sm_90a) image.
  __shared__ alignas(8) uint64_t full_bar[STAGES];   // TMA -> consumers: stage landed
  __shared__ alignas(8) uint64_t empty_bar[STAGES];  // consumers -> producer: stage free
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t s_w = smem;                                // (STAGES, BM x BK) SW128, weights
  const uint32_t s_x = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, BN x BK) SW128, tokens

  const int wg = threadIdx.x / 128;  // warpgroup: 0 producer, 1..CONSUMERS consumers
  const int wg_thread = threadIdx.x % 128;
  const int tiles_total = grouped_tiles_total(walk);

  // ======== PROLOGUE ========
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbarrier_init(ptx::smem_u32(&full_bar[s]), 1);
      sm90::mbarrier_init(ptx::smem_u32(&empty_bar[s]), Cfg::CONSUMERS);
    }
    sm90::fence_barrier_init();
    sm90::tma_prefetch_descriptor(&tmap_w);
    sm90::tma_prefetch_descriptor(&tmap_x);
  }
  __syncthreads();

  if (wg == 0) {
    // ======== PRODUCER (one thread issues every TMA; common/sm90/producer.cuh) ========
    sm90::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    if (wg_thread == 0) {
      int stage = 0;
      uint32_t phase = 0;
      const Sm90Ring<STAGES> ring{full_bar, empty_bar, stage, phase};
      const Sm90Producer<Cfg, true, true, false> producer{&tmap_w, &tmap_x, s_w, s_x, 0, 0, 0u};
      for (int t = blockIdx.x; t < tiles_total; t += gridDim.x) {
        const GroupedTile tile = grouped_tile(walk, t);
        // Both boxes start inside the group (n_tile * BM < N, row_tile * BN < M_g).
        producer.load_tile(ring, tile.group * N + tile.n_tile * BM,
                           int(first_row[tile.group]) + tile.row_tile * BN, k_blocks);
      }
    }
    return;
  }

  // ======== CONSUMERS ========
  sm90::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
  const int consumer = sm90::warp_uniform(wg - 1);  // which 64 rows of the tile (wgmma M)
  const int warp = wg_thread / 32, lane = wg_thread % 32;
  const int q = lane % 4;
  typename Acc::Reg acc[Acc::REGS];  // (64 rows, BM columns of N) per warpgroup, wgmma D fragment
  // 16-byte C stores need every row start (r * N) and the base 16-byte aligned.
  const bool vec = (N % 8 == 0) && (reinterpret_cast<uintptr_t>(c) % 16 == 0);
  int stage = 0;
  uint32_t phase = 0;
  Sm90Mainloop<T, F16_ACCUM, Cfg, true, true> mainloop{
      Sm90Ring<STAGES>{full_bar, empty_bar, stage, phase}, s_w, s_x, consumer, wg_thread};
  for (int t = blockIdx.x; t < tiles_total; t += gridDim.x) {
    const GroupedTile tile = grouped_tile(walk, t);
    const int row0 = tile.row_tile * BN;
    const int rows_left = rows[tile.group] - row0;  // (1 .. M_g) rows of the group from row0
    // A group's last row tile with at most 64 rows left: the second consumer's rows are all past
    // the group. It only passes the stages on (no wgmma), so the tensor pipe runs the tile at
    // half its work: routed groups are mostly small (zipf:1.2 at 4096 tokens over 256 experts:
    // median 34 rows). Warp-uniform, so that the branch keeps the wgmmas unserialized.
    if (sm90::warp_uniform(rows_left <= consumer * Cfg::WG_N ? 1 : 0)) {
      mainloop.skip(k_blocks, uint32_t(1 + consumer));  // the named barrier: this warpgroup's
      continue;
    }

    // ======== MAINLOOP (sm90/mainloop.cuh) ========
    mainloop.template run<1>(acc, k_blocks, [](auto) {});

    // ======== EPILOGUE: the group's rows of the tile only (common/sm90/epilogue.cuh) ========
    // store_tile_registers sees the tile as column-major (M = N columns contiguous, its "N" the
    // rows left in the group): it stores rows < rows_left and columns < N, nothing else.
    T* c_tile = c + (first_row[tile.group] + row0) * int64_t(N);  // (rows_left, N) row-major
    store_tile_registers<T, F16_ACCUM, BM>(acc, c_tile, N, rows_left,
                                           consumer * Cfg::WG_N + 16 * warp + lane / 4,
                                           tile.n_tile * BM, q, vec, alpha, beta);
  }
#else
  // Not the sm_90a image: supports() keeps the runner from launching it.
  __trap();
#endif
}

template <class T, bool F16_ACCUM>
constexpr auto grouped_kernel_ptr() {
  return &hgemm_grouped_sm90_kernel<T, F16_ACCUM, GroupedCfg>;
}

// Per device, once: the shared-memory limit raised, and the CTAs resident at once (the grid).
template <class T, bool F16_ACCUM>
int grouped_resident_ctas() {
  static PerDevice<int> count;
  return count.get([](int dev) {
    const auto kernel = grouped_kernel_ptr<T, F16_ACCUM>();
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return resident_ctas(kernel, GroupedCfg::THREADS, kSmemBytes, dev);
  });
}

template <class T, bool F16_ACCUM>
void run_grouped(const GemmArgs& args, cudaStream_t stream) {
  const Sm90GroupedLaunch l = sm90_grouped_launch(args, "hgemm_grouped_sm90", kTileN, kTileRows,
                                                  grouped_resident_ctas<T, F16_ACCUM>());
  const GroupedLaunch& gl = *args.grouped;
  const int K = int(args.problem.k);
  hgemm_grouped_sm90_kernel<T, F16_ACCUM, GroupedCfg>
      <<<l.ctas, GroupedCfg::THREADS, kSmemBytes, stream>>>(
          l.weights, l.rows, static_cast<T*>(args.c), l.walk, gl.first_row, gl.rows,
          int(args.problem.n), (K + GroupedCfg::BK - 1) / GroupedCfg::BK, args.alpha, args.beta);
}

void launch_grouped(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.dtype == DType::f16 && p.accum == Accum::f32)
    run_grouped<__half, false>(args, stream);
  else if (p.dtype == DType::f16 && p.accum == Accum::f16)
    run_grouped<__half, true>(args, stream);
  else if (p.dtype == DType::bf16 && p.accum == Accum::f32)
    run_grouped<__nv_bfloat16, false>(args, stream);
  else
    throw std::invalid_argument("hgemm_grouped_sm90: unsupported dtype/accumulate pair");
}

const void* grouped_kernel_for(const GemmProblem& p) {
  if (p.dtype == DType::bf16)
    return reinterpret_cast<const void*>(grouped_kernel_ptr<__nv_bfloat16, false>());
  if (p.accum == Accum::f16)
    return reinterpret_cast<const void*>(grouped_kernel_ptr<__half, true>());
  return reinterpret_cast<const void*>(grouped_kernel_ptr<__half, false>());
}

std::string supports_grouped(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  if (caps.sm != 90)
    return "needs a compute capability 9.0 GPU (H100/H200): sm_90a wgmma/TMA code runs on no other";
  if (p.dtype == DType::bf16 && p.accum == Accum::f16) return "bf16 inputs accumulate in f32 only";
  if (p.k % 8 != 0) return "K must be a multiple of 8: TMA needs 16-byte aligned row strides";
  if (std::string why = sm90_grouped_size_unsupported(p, g, kTileN, kTileRows); !why.empty())
    return why;
  return sm90a_image_unsupported(grouped_kernel_for(p), size_t(kSmemBytes), caps);
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "hgemm_grouped_sm90",
    .family = "hgemm",
    .rung = 10,
    .summary = "grouped (MoE experts) Hopper TMA+wgmma, persistent over all groups' tiles; "
               "256x128x64 (N x rows), 4 stages, register epilogue masked to each group's rows",
    .dtypes = {DType::f16, DType::bf16},
    .accums = {Accum::f32, Accum::f16},
    .layouts = {Layout::tn},
    .min_sm = 90,
    .launch = launch_grouped,
    .group_layouts = {GroupLayout::contiguous, GroupLayout::masked},
    .supports_grouped = supports_grouped,
    .group_tile_rows = kTileRows,
});

}  // namespace gemmbench
