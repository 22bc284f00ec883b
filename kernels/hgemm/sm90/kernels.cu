// hgemm_tn_sm90 — HGEMM ladder, rung 10 (top): Hopper TMA + mbarrier + wgmma, warp-specialized,
// persistent, 2-CTA clusters with TMA multicast.
//
// Adds over the Ampere rung (cp.async + ldmatrix + mma.sync, which tops out near two thirds of
// the H100's tensor throughput because every warp must load its operands into registers): TMA
// copies whole 128B-swizzled tiles into shared memory and signals an mbarrier, and wgmma reads
// both operands from shared memory asynchronously, so the consumer warps issue little but MMAs.
// A producer warpgroup runs a 4-stage ring ahead of two consumer warpgroups; the two CTAs of a
// cluster share (multicast) the A tile; a tile's outputs are packed at once and stored by TMA
// during the next tile's first k-blocks (deferred epilogue). The persistent clusters walk the
// valid tiles in dense raster order, each the floor or ceiling of the average. Files:
// common/sm90/schedule.hpp (tile walk, stream-K), kernel.cuh, epilogue.cuh, stream_k.cuh,
// tma_desc.*, launch.cuh; the NN/NT/TT kernels are registered in sm90/layouts.cu. Tile: 256x128x64
// (GEMM M x N x K), STAGES = 4, CLUSTER = 2 along N, 384 threads, 40/232/232 registers, 225 KB
// shared. hgemm_tn_sm90_sk_defer: stream-K over the last partial wave; hgemm_tn_sm90_c1_sk: the
// same without the cluster (the `hgemm` rule for short last waves); hgemm_tn_sm90_192x192: cuBLAS's
// 192x192 tile on three consumer warpgroups (rule Q). Constraints: sm_90 and an sm_90a build; TN;
// f16 (f32/f16 acc) or bf16 (f32 acc); K % 8 == 0. Measured (H100, 5120x4096x4096
// f16/f32acc): 1.012-1.019x cuBLAS (bench_results/h100/2026-11-22_sm90_defer_run{1,2,3}.json.gz);
// the 16 LLM prefill shapes at 4096 tokens: 0.768x (4096x2112x7168, 2.18 waves: the stream-K tail's
// 0.942x) to 1.111x, the N = 7168 layers 0.996-1.012x since the dense walk
// (bench_results/h100/2026-11-24_dispatch_candidates.json.gz); history: docs/hgemm-hopper.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hgemm/sm90/launch.cuh"
#include "core/registry.hpp"

namespace gemmbench {

// hgemm_tn_sm90: the deferred TMA-store epilogue, measured best at 5120x4096x4096 and 4096^3;
// hgemm_tn_sm90_sk_defer adds the stream-K tail, best at 8192^3 (see the header).
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<256, 128, 4, 2>>(
    "hgemm_tn_sm90",
    "Hopper TMA+mbarrier+wgmma, warp-specialized, persistent; 256x128x64, 4 stages, 2-CTA "
    "multicast, stmatrix + TMA-store epilogue deferred into the next tile's first k-blocks"));
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<256, 128, 4, 2, true>>(
    "hgemm_tn_sm90_sk_defer",
    "256x128x64, stream-K tail and the deferred TMA-store epilogue of hgemm_tn_sm90 (the fastest "
    "at 8192^3)"));

// hgemm_tn_sm90_c1_sk: no cluster (each CTA loads its own A tile), stream-K tail. Where N is an odd
// number of 128-wide tiles plus a part (4096x2112x7168: 16.5 tiles) the 2-CTA cluster computes a
// padding tile; without the cluster the waste is the half tile only.
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<256, 128, 4, 1, true>>(
    "hgemm_tn_sm90_c1_sk",
    "256x128x64, 4 stages, no cluster, stream-K tail, deferred TMA-store epilogue (for N of an odd "
    "number of 128-wide tiles)"));

// hgemm_tn_sm90_192x192: cuBLAS's own tile at 4096x2112x7168 (nvjet 192x192, bench_results/h100/
// ncu_decode_sm90/2026-11-25_ncu_kernels_prefill2112bf16.txt.gz): three consumer warpgroups of (64
// GEMM-N, 192 GEMM-M), 512 threads, 32/160 registers, 4 stages of 48 KB, the epilogue stored at
// once (no room for the deferred one), no cluster, the plain walk. The `hgemm` rule Q, where its
// walk wastes at least 5 points less than the 256-row tiles': in median time 2.7% / 5.2% less
// (f16 / bf16) than the stream-K tail at 4096x2112x7168 (11 tiles of 192 along N, none padded,
// against 16.5 of 128; 0.993x / 0.996x cuBLAS), 25-28% less at 2048x2112x7168, 11% at 3072^3,
// 2-4% at 8192x2112x7168; up to 14% more at the 15 other prefill layers
// (bench_results/h100/2026-11-26_prefill_192_candidates.json.gz, _prefill_192_check.json.gz). Its
// stream-K twins, with and without the 2-CTA cluster, lost at 4096x2112x7168 too: 0.960-0.980x.
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<192, 192, 4, 1>>(
    "hgemm_tn_sm90_192x192",
    "192x192x64, three consumer warpgroups, 4 stages, no cluster, plain walk, TMA-store epilogue "
    "(cuBLAS's tile at 4096x2112x7168)"));

}  // namespace gemmbench
