// The Hopper kernel (hgemm_{tn,nn,nt,tt}_sm90*, hgemm_decode_sm90*, fp8gemm_decode_sm90*): one
// producer warpgroup issues every TMA load into a STAGES-deep full/empty mbarrier ring; one to
// three consumer warpgroups run wgmma over it and store C. The body below reads as its phases:
// PROLOGUE (barriers, descriptors), the PRODUCER (common/sm90/producer.cuh), then per work item
// of the schedule (common/sm90/schedule.hpp) the consumers' MAINLOOP (sm90/mainloop.cuh),
// STREAM-K FIX-UP (common/sm90/stream_k.cuh) or IN-CLUSTER SPLIT (sm90/cluster_split.cuh), and
// EPILOGUE (common/sm90/epilogue.cuh); the ring both roles walk is common/sm90/pipeline.cuh.
// Included by sm90/launch.cuh only.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "common/static_for.cuh"
#include "hgemm/sm90/cluster_split.cuh"
#include "common/sm90/config.hpp"
#include "common/sm90/epilogue.cuh"
#include "hgemm/sm90/mainloop.cuh"
#include "common/sm90/pipeline.cuh"
#include "common/sm90/producer.cuh"
#include "common/sm90/schedule.hpp"
#include "common/sm90/stream_k.cuh"
#include "common/sm90/trace.cuh"
#include "core/types.hpp"

namespace gemmbench {
namespace {

// A_K_MAJOR / B_K_MAJOR: the operands' storage (TN: both K-major; NN: A M-major; NT: both
// MN-major; TT: B N-major). An MN-major operand arrives as 64-row blocks of (BK K rows x 64 M or
// N elements = 128 B), one TMA box each, and wgmma reads it with its transpose bit.
// CSPLIT: the in-cluster split (launched in clusters of `parts` CTAs along K, CLUSTER = 1, one
// work item per CTA; sm90/cluster_split.cuh) instead of the persistent walk.
// CLUSTER_M: the cluster's CTAs are neighbours along M and multicast the B tile (Sm90Config); the
// schedule's tiles are then BM * CLUSTER rows of M, rank r taking the r-th BM of them.
// TIN: the inputs' type, T's (C's) but for the FP8 decode path (fp8gemm/decode_sm90.cu): e4m3 A
// and B (128 of K a 128-byte row, a k-block; sm90/mainloop.cuh promotes each), bf16 C, scaled by
// SCALE (core/types.hpp, ScaleMode; the 16-bit kernels: none, and they read neither pointer):
// tensor, *scale_a * *scale_b folded into alpha; row, each output times scale_a[m] * scale_b[n]
// before the epilogue; block128, each k-block's partial times its block scales (the mainloop).
template <class T, bool F16_ACCUM, int BM, int BN, int STAGES, int CLUSTER, bool STREAM_K,
          bool A_K_MAJOR, bool B_K_MAJOR, bool CSPLIT = false, bool CLUSTER_M = false,
          class TIN = T, ScaleMode SCALE = ScaleMode::none>
__global__ void __launch_bounds__(Sm90Config<BM, BN, STAGES, CLUSTER, CLUSTER_M>::THREADS, 1)
    hgemm_sm90_kernel(
        const __grid_constant__ CUtensorMap tmap_a,  // A (M,K): k-major box (BK, A_SLICE_ROWS),
                                                     // m-major box (64, BK)
        const __grid_constant__ CUtensorMap tmap_a_tail,  // k-major A, box (BK, M % A_SLICE_ROWS)
                                                          // (producer.cuh); else tmap_a's copy
        const __grid_constant__ CUtensorMap tmap_b,  // B (N,K): k-major box (BK, B_SLICE_ROWS),
                                                     // n-major box (64, BK)
        const __grid_constant__ CUtensorMap tmap_c,  // C (M,N) m-major, box (64, 64), SW128;
                                                     // valid only when sched.c_tma
        T* __restrict__ c,                           // C (M,N) column-major
        int M, int N, float alpha, float beta, const Sm90Schedule sched,
        uint32_t epoch,  // stream-K: this launch's flag value
        const float* __restrict__ scale_a, const float* __restrict__ scale_b) {
#if GEMMBENCH_SM90A
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER, CLUSTER_M>;
  using Acc = Sm90Acc<F16_ACCUM, BM>;
  constexpr int kBK = sm90_k_block_elems<TIN, Cfg>();
  constexpr bool kBlock = SCALE == ScaleMode::block128;
  static_assert(SCALE == ScaleMode::none || sizeof(TIN) == 1, "scales are the FP8 path's");
  static_assert(!STREAM_K || Cfg::CONSUMERS <= kSkMaxConsumers, "stream-K slots per CTA");
  static_assert(!CSPLIT || (CLUSTER == 1 && !STREAM_K &&
                            uint32_t(cs_slots_max(Cfg::CS_BLOCKS)) * cs_slot_bytes<Acc::REGS>() <=
                                STAGES * Cfg::STAGE_BYTES),
                "the in-cluster split: no multicast cluster, no stream-K, and the ring holds every "
                "receive slot");
  static_assert(!CSPLIT || !Cfg::PARTIAL,
                "the in-cluster split stores whole 16-row warp blocks: not past a partial tile");
  static_assert(!CLUSTER_M || (CLUSTER > 1 && !STREAM_K && !CSPLIT && B_K_MAJOR),
                "the cluster along M shares a K-major B tile and walks whole tiles");

  // The barriers are the kernel's only static shared memory: supports() reads its size back to
  // learn that the driver picked this (sm_90a) image.
  __shared__ alignas(8) uint64_t full_bar[STAGES];   // TMA -> consumers: stage landed
  __shared__ alignas(8) uint64_t empty_bar[STAGES];  // consumers (cluster) -> producer: free
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  // Per stage, K-major: (rows, BK) rows of 128 B; MN-major: (rows / 64) blocks of (BK, 64).
  const uint32_t s_a = smem;                                // (STAGES, BM x BK), SW128
  const uint32_t s_b = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, BN x BK), SW128
  const uint32_t s_epi = smem + STAGES * Cfg::STAGE_BYTES;  // (CONSUMERS, EPI_BUFS, 64, 64) SW128

  GB_SM90_TRACE(0, threadIdx.x == 0);  // timeline probe hooks (common/sm90/trace.cuh); no-ops here
  GB_SM90_TRACE_SMID();
  const int wg = threadIdx.x / 128;  // warpgroup: 0 producer, 1..CONSUMERS consumers
  const int wg_thread = threadIdx.x % 128;
  const uint32_t cta_rank = CLUSTER > 1 ? sm90::cluster_ctarank() : 0;
  const int cluster_id = blockIdx.x / CLUSTER;
  // The in-cluster split: the cluster size, along K (unused, 1, otherwise). The CTA's rank in
  // it is blockIdx.x % parts, its tile blockIdx.x / parts (Sm90ClusterSplitIter).
  const int parts = CSPLIT ? int(sm90::cluster_nctarank()) : 1;
  using WorkIter = std::conditional_t<CSPLIT, Sm90ClusterSplitIter, Sm90WorkIter<STREAM_K>>;

  // ======== PROLOGUE ========
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      // full: the local producer's arrive.expect_tx; empty: every consumer of the cluster.
      sm90::mbarrier_init(ptx::smem_u32(&full_bar[s]), 1);
      sm90::mbarrier_init(ptx::smem_u32(&empty_bar[s]), Cfg::CONSUMERS * CLUSTER);
    }
    sm90::fence_barrier_init();
    sm90::tma_prefetch_descriptor(&tmap_a);
    if constexpr (A_K_MAJOR) sm90::tma_prefetch_descriptor(&tmap_a_tail);
    sm90::tma_prefetch_descriptor(&tmap_b);
    if (sched.c_tma) sm90::tma_prefetch_descriptor(&tmap_c);
    GB_SM90_TRACE(9, true);  // timeline probe: barriers and descriptors done, before the sync
  }
  // Peers arrive on our barriers and multicast into our stages: all must be initialised first.
  if constexpr (CLUSTER > 1)
    sm90::cluster_sync();
  else
    __syncthreads();

  if (wg == 0) {
    // ======== PRODUCER (one thread issues every TMA; common/sm90/producer.cuh) ========
    sm90::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    GB_SM90_TRACE(8, wg_thread == 0);  // timeline probe: the producer past the prologue
    if (wg_thread == 0) {
      int stage = 0;
      uint32_t phase = 0;
      WorkIter work_iter(sched, cluster_id, parts);
      Sm90Producer<Cfg, A_K_MAJOR, B_K_MAJOR, CSPLIT, kBK>{
          &tmap_a, &tmap_b, s_a, s_b, M, N, cta_rank, A_K_MAJOR ? &tmap_a_tail : nullptr}
          .run(Sm90Ring<STAGES>{full_bar, empty_bar, stage, phase}, work_iter);
    }
    if constexpr (CSPLIT) {
      __syncwarp();
      cs_producer_barriers();
    }
    return;
  }

  // ======== CONSUMERS ========
  sm90::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
  // Which 64 GEMM-N rows of the tile (wgmma M); warp-uniform: the wgmma descriptors built from
  // it go in uniform registers.
  const int consumer = sm90::warp_uniform(wg - 1);
  const int warp = wg_thread / 32, lane = wg_thread % 32;
  const int g = lane / 4, q = lane % 4;
  const uint32_t wg_bar = 1 + consumer;  // named barrier of this warpgroup alone
  typename Acc::Reg acc[Acc::REGS];      // (64 GEMM-N, BM GEMM-M) per warpgroup, wgmma D fragment
  // The tile's outputs, packed (deferred epilogue: the previous tile's), and where they go.
  uint32_t packed[BM / 4];  // (BM/4) output pairs, f16/bf16 x 2
  bool pending = false;
  int pending_m0 = 0, pending_n0 = 0;
  if constexpr (SCALE == ScaleMode::tensor) alpha *= __ldg(scale_a) * __ldg(scale_b);
  Sm90Epilogue<T, F16_ACCUM, Cfg, CSPLIT> epilogue{
      &tmap_c, c, M, N, alpha, beta,
      s_epi + consumer * Cfg::EPI_BUFS * Cfg::EPI_BUF_BYTES,  // (EPI_BUFS, 64, 64) SW128
      consumer, warp, lane, q, wg_thread, wg_bar,
      // Row 16*warp + g (+8) of this warpgroup's 64, within the CTA's BN.
      consumer * Cfg::WG_N + 16 * warp + g,
      // 16-byte C accesses need every column start (n*M) and the base 16-byte aligned.
      (M % 8 == 0) && (reinterpret_cast<uintptr_t>(c) % 16 == 0), packed, pending, pending_m0,
      pending_n0};
  int stage = 0;
  uint32_t phase = 0;
  Sm90Mainloop<TIN, F16_ACCUM, Cfg, A_K_MAJOR, B_K_MAJOR, kBlock> mainloop{
      Sm90Ring<STAGES>{full_bar, empty_bar, stage, phase}, s_a, s_b, consumer, wg_thread};
  if constexpr (kBlock) mainloop.kbs = sched.k_blocks, mainloop.M = M;
  WorkIter work_iter(sched, cluster_id, parts);
  Sm90Work w;
  while (work_iter.next(w)) {
    const auto [m_tile, n_tile] = sm90_cta_tile<CLUSTER, CLUSTER_M>(w, cta_rank);
    if constexpr (kBlock) {  // the item's block scales: this warpgroup's 64 rows of B in block nb
      const int nb = min(n_tile * BN + consumer * Cfg::WG_N, N - 1) / 128;
      mainloop.sb = scale_b + int64_t(nb) * sched.k_blocks + w.kb_begin;
      mainloop.sa_m = scale_a + w.kb_begin;
      mainloop.m0 = m_tile * BM;
    }
    // Stream-K role, decided before the mainloop so one register carries it across.
    const int fixup = !STREAM_K                   ? kFixupNone
                      : w.kb_end < sched.k_blocks ? kFixupPublish
                      : w.kb_begin > 0            ? w.sk_tile  // gather, then finish
                                                  : kFixupNone;

    // ======== MAINLOOP (sm90/mainloop.cuh) ========
    // The previous tile's boxes go out between this tile's first k-blocks.
    mainloop.template run<decltype(epilogue)::BOXES>(acc, w.kb_end - w.kb_begin, [&](auto box) {
      epilogue.template store_pending_box<decltype(box)::value>();
    });
    pending = false;

    // ======== STREAM-K FIX-UP (common/sm90/stream_k.cuh) ========
    // The padding N tile of an odd tiles_n (cluster runs only) is neither published nor
    // gathered: publisher and finisher have the same rank, hence the same n_tile.
    if constexpr (STREAM_K) {
      const int slot_base = int(cta_rank) * Cfg::CONSUMERS + consumer;  // + cluster * CTA slots
      if (fixup == kFixupPublish) {  // partial: the tile's finisher adds it
        if (n_tile < sched.tiles_n)
          sk_publish(acc, cluster_id * CLUSTER * Cfg::CONSUMERS + slot_base, epoch, wg_thread,
                     wg_bar);
        GB_SM90_TRACE(7, wg_thread == 0 && consumer == 0);
        continue;
      }
      if (fixup >= 0 && n_tile < sched.tiles_n) {  // add the tile's first k-blocks
        for (int cc = sk_prev_contributor(sched, cluster_id, fixup); cc >= 0;
             cc = sk_prev_contributor(sched, cc, fixup))
          sk_accumulate(acc, cc * CLUSTER * Cfg::CONSUMERS + slot_base, epoch, wg_thread, wg_bar);
      }
    }
    // ======== IN-CLUSTER SPLIT: sum the parts in shared memory (sm90/cluster_split.cuh) ========
    // Every warp takes part; the warps that do not own their block store nothing.
    if constexpr (CSPLIT) {
      if (!cs_reduce<Cfg::CS_BLOCKS>(acc, s_a, consumer * 4 + warp, lane, cluster_id % parts,
                                     parts))
        continue;
    }
    GB_SM90_TRACE(3, wg_thread == 0 && consumer == 0);

    // Row scales (FP8): output (n, m) times scale_a[m] * scale_b[n], on the summed tile (rows
    // and columns past N and M read the last ones': they are not stored).
    if constexpr (SCALE == ScaleMode::row) {
      const int n = n_tile * BN + consumer * Cfg::WG_N + 16 * warp + g;
      const float sb0 = __ldg(scale_b + min(n, N - 1)), sb1 = __ldg(scale_b + min(n + 8, N - 1));
#pragma unroll
      for (int c = 0; c < BM / 4; ++c) {
        const float sa = __ldg(scale_a + min(m_tile * BM + sm90_fragment_column(c, q), M - 1));
        acc[(c / 2) * 4 + c % 2] *= sa * sb0;      // h = 0: row n
        acc[(c / 2) * 4 + 2 + c % 2] *= sa * sb1;  // h = 1: row n + 8
      }
    }
    // ======== EPILOGUE (common/sm90/epilogue.cuh) ========
    epilogue.store(acc, m_tile, n_tile, sched);
  }
  epilogue.drain();  // the last tile's boxes
  GB_SM90_TRACE(4, wg_thread == 0 && consumer == 0);
#else
  // Not the sm_90a image: supports() keeps the runner from launching it.
  __trap();
#endif
}

}  // namespace
}  // namespace gemmbench
