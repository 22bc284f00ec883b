// The Hopper kernel body (hgemm_{tn,nn,nt,tt}_sm90*): one producer warpgroup issues every TMA load
// into a STAGES-deep full/empty mbarrier ring; two consumer warpgroups run wgmma over it and store
// C. Read top to bottom: PROLOGUE (barriers, descriptors), PRODUCER, then per work item of the
// schedule (sm90/schedule.hpp) the consumers' MAINLOOP, STREAM-K FIX-UP (sm90/stream_k.cuh)
// and EPILOGUE (sm90/epilogue.cuh). Included by sm90/kernels.cu and sm90/layouts.cu only.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "hgemm/sm90/cluster_split.cuh"
#include "hgemm/sm90/config.hpp"
#include "hgemm/sm90/epilogue.cuh"
#include "hgemm/sm90/schedule.hpp"
#include "hgemm/sm90/stream_k.cuh"
#include "hgemm/sm90/trace.cuh"

namespace gemmbench {
namespace {

#if GEMMBENCH_SM90A  // device helpers of the sm_90a kernel body only

// One k16 step of a consumer warpgroup's (64 GEMM-N, BM GEMM-M) tile: one wgmma m64nBMk16.
// wgmma's A is GEMM B (transposed read when B is N-major), its B is GEMM A (when A is M-major).
template <int BM, bool F16_ACCUM, class T, bool A_K_MAJOR, bool B_K_MAJOR, class AccReg,
          int ACC_REGS>
__device__ __forceinline__ void wgmma_tile_k16(AccReg (&acc)[ACC_REGS], uint64_t da, uint64_t db,
                                               int accumulate) {
  constexpr int TRANS_A = B_K_MAJOR ? 0 : 1, TRANS_B = A_K_MAJOR ? 0 : 1;
  if constexpr (F16_ACCUM)
    sm90::wgmma_m64k16_f16<BM, TRANS_A, TRANS_B>(acc, da, db, accumulate);
  else
    sm90::wgmma_m64k16_f32<BM, T, TRANS_A, TRANS_B>(acc, da, db, accumulate);
}

// The shared-memory descriptor of `rows` GEMM rows (M or N) x BK of one operand stage: K-major
// (rows of 128 bytes) or MN-major (64-row blocks of BK K rows each, Cfg::MN_BLOCK_BYTES apart).
template <bool K_MAJOR, int BK>
__device__ __forceinline__ uint64_t operand_desc(uint32_t addr) {
  if constexpr (K_MAJOR)
    return sm90::wgmma_desc_sw128_kmajor(addr);
  else
    return sm90::wgmma_desc_sw128_mnmajor(addr, BK * sm90::kSw128RowBytes);
}
// The descriptor advanced to the k-th k16 step: 32 B along a K-major row, 16 K rows (2048 B)
// of an MN-major block.
template <bool K_MAJOR>
__device__ __forceinline__ uint64_t operand_desc_k16(uint64_t desc, int k) {
  return sm90::wgmma_desc_advance(desc, K_MAJOR ? 32 * k : sm90::kSw128MnK16StepBytes * k);
}

// f(std::integral_constant<int, i>{}) for i = 0 .. N-1, in order: a loop whose index is a
// compile-time constant in the body (register arrays stay indexed statically).
template <class F, int... I>
__device__ __forceinline__ void static_for_impl(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
__device__ __forceinline__ void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}

#endif  // GEMMBENCH_SM90A

// A_K_MAJOR / B_K_MAJOR: the operands' storage (TN: both K-major; NN: A M-major; NT: both
// MN-major; TT: B N-major). An MN-major operand arrives as 64-row blocks of (BK K rows x 64 M or
// N elements = 128 B), one TMA box each, and wgmma reads it with its transpose bit.
// CSPLIT: the in-cluster split (launched in clusters of `parts` CTAs along K, CLUSTER = 1, one
// work item per CTA; sm90/cluster_split.cuh) instead of the persistent walk.
// CLUSTER_M: the cluster's CTAs are neighbours along M and multicast the B tile (Sm90Config); the
// schedule's tiles are then BM * CLUSTER rows of M, rank r taking the r-th BM of them.
template <class T, bool F16_ACCUM, int BM, int BN, int STAGES, int CLUSTER, bool STREAM_K,
          bool A_K_MAJOR, bool B_K_MAJOR, bool CSPLIT = false, bool CLUSTER_M = false>
__global__ void __launch_bounds__(Sm90Config<BM, BN, STAGES, CLUSTER, CLUSTER_M>::THREADS, 1)
    hgemm_sm90_kernel(
        const __grid_constant__ CUtensorMap tmap_a,  // A (M,K): k-major box (BK, A_SLICE_ROWS),
                                                     // m-major box (64, BK)
        const __grid_constant__ CUtensorMap tmap_b,  // B (N,K): k-major box (BK, B_SLICE_ROWS),
                                                     // n-major box (64, BK)
        const __grid_constant__ CUtensorMap tmap_c,  // C (M,N) m-major, box (64, 64), SW128;
                                                     // valid only when sched.c_tma
        T* __restrict__ c,                           // C (M,N) column-major
        int M, int N, float alpha, float beta, const Sm90Schedule sched,
        uint32_t epoch) {  // stream-K: this launch's flag value
#if GEMMBENCH_SM90A
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER, CLUSTER_M>;
  constexpr int BK = Cfg::BK;
  // f32: 4 floats per 8 columns of wgmma N; f16: 2 registers of 2 halves.
  using AccReg = std::conditional_t<F16_ACCUM, uint32_t, float>;
  constexpr int ACC_REGS = F16_ACCUM ? BM / 4 : BM / 2;
  static_assert(!STREAM_K || Cfg::CONSUMERS <= kSkMaxConsumers, "stream-K slots per CTA");
  static_assert(A_K_MAJOR || Cfg::A_SLICE_ROWS % 64 == 0,
                "an M-major A slice is whole 64-row TMA boxes (128 bytes of M)");
  constexpr uint32_t MN_BLOCK_BYTES = BK * sm90::kSw128RowBytes;  // 64 MN x BK K, 8 KB
  static_assert(MN_BLOCK_BYTES == 64 * Cfg::ROW_BYTES,
                "an MN-major block fills the bytes of 64 K-major rows: the operand offsets of "
                "both layouts agree");
  constexpr int BOXES = BM / 64;  // 64x64 TMA-store boxes per warpgroup tile
  static_assert(!CSPLIT || (CLUSTER == 1 && !STREAM_K &&
                            uint32_t(cs_slots_max(Cfg::CS_BLOCKS)) * cs_slot_bytes<ACC_REGS>() <=
                                STAGES * Cfg::STAGE_BYTES),
                "the in-cluster split: no multicast cluster, no stream-K, and the ring holds every "
                "receive slot");
  static_assert(!CSPLIT || !Cfg::PARTIAL,
                "the in-cluster split stores whole 16-row warp blocks: not past a partial tile");
  static_assert(!CLUSTER_M || (CLUSTER > 1 && !STREAM_K && !CSPLIT && B_K_MAJOR),
                "the cluster along M shares a K-major B tile and walks whole tiles");

  // The barriers are the kernel's only static shared memory: supports() reads its size back to
  // learn that the driver picked this (sm_90a) image.
  __shared__ alignas(8) uint64_t full_bar[STAGES];  // TMA -> consumers: stage landed
  __shared__ alignas(8)
      uint64_t empty_bar[STAGES];  // consumers (whole cluster) -> producer: stage free
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  // Per stage, K-major: (rows, BK) rows of 128 B; MN-major: (rows / 64) blocks of (BK, 64).
  const uint32_t s_a = smem;                                // (STAGES, BM x BK), SW128
  const uint32_t s_b = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, BN x BK), SW128
  const uint32_t s_epi = smem + STAGES * Cfg::STAGE_BYTES;  // (CONSUMERS, EPI_BUFS, 64, 64) SW128
  auto full = [&](int s) { return ptx::smem_u32(&full_bar[s]); };
  auto empty = [&](int s) { return ptx::smem_u32(&empty_bar[s]); };

  GB_SM90_TRACE(0, threadIdx.x == 0);  // timeline probe hooks (sm90/trace.cuh); no-ops here
  GB_SM90_TRACE_SMID();
  const int wg = threadIdx.x / 128;  // warpgroup: 0 producer, 1..CONSUMERS consumers
  const int wg_thread = threadIdx.x % 128;
  const uint32_t cta_rank = CLUSTER > 1 ? sm90::cluster_ctarank() : 0;
  const int cluster_id = blockIdx.x / CLUSTER;
  // The in-cluster split: the cluster size, along K (unused, 1, otherwise). The CTA's rank in
  // it is blockIdx.x % parts, its tile blockIdx.x / parts (Sm90ClusterSplitIter).
  const int parts = CSPLIT ? int(sm90::cluster_nctarank()) : 1;
  using WorkIter = std::conditional_t<CSPLIT, Sm90ClusterSplitIter, Sm90WorkIter<STREAM_K>>;
  // This CTA's own tile (units of BM, BN) of a work item's cluster tile: the rank-th of the
  // cluster's tiles along N, or along M with CLUSTER_M.
  auto cta_tile = [&](const Sm90Work& w) {
    return CLUSTER_M ? TileCoord{w.tile.m * CLUSTER + int(cta_rank), w.tile.n}
                     : TileCoord{w.tile.m, w.tile.n * CLUSTER + int(cta_rank)};
  };

  // ======== PROLOGUE ========
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbarrier_init(full(s), 1);  // the local producer's arrive.expect_tx
      sm90::mbarrier_init(empty(s), Cfg::CONSUMERS * CLUSTER);  // every consumer of the cluster
    }
    sm90::fence_barrier_init();
    sm90::tma_prefetch_descriptor(&tmap_a);
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
    // ======== PRODUCER (one thread issues every TMA) ========
    sm90::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    GB_SM90_TRACE(8, wg_thread == 0);  // timeline probe: the producer past the prologue
    if (wg_thread == 0) {
      int stage = 0;
      uint32_t phase = 0;  // parity of the ring's current lap
      // MN-major boxes start inside the matrix, on a 64-element (128-byte) boundary.
      const int a_last64 = (M - 1) / 64 * 64, b_last64 = (N - 1) / 64 * 64;
      WorkIter work_iter(sched, cluster_id, parts);
      Sm90Work w;
      GB_SM90_TRACE_ONCE_FLAG(6);
      GB_SM90_TRACE_ONCE_FLAG(10);
      // Which slice of the shared tile this CTA loads and multicasts.
      const int a_rank = CLUSTER_M ? 0 : int(cta_rank), b_rank = CLUSTER_M ? int(cta_rank) : 0;
      while (work_iter.next(w)) {
        const auto [m_tile, n_tile] = cta_tile(w);
        // A slice / B rows past the matrix (an M tile shorter than the cluster's slices, the
        // padding N tile of an odd tiles_n) are clamped to a row inside it: those smem rows feed
        // only C rows/columns the epilogue does not store, and no box starts out of bounds.
        const int a_row = min(m_tile * BM + a_rank * Cfg::A_SLICE_ROWS, M - 1);
        const int b_row = min(n_tile * BN + b_rank * Cfg::B_SLICE_ROWS, N - 1);
        GB_SM90_TRACE_FIRST(10, true);  // timeline probe: the first work item computed
        for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
          sm90::mbarrier_wait_parity(empty(stage), phase ^ 1);  // lap 0 passes at once
          sm90::mbarrier_arrive_expect_tx(full(stage), Cfg::TX_BYTES);
          const int k0 = kb * BK;
          const uint32_t a_dst = s_a + stage * Cfg::A_STAGE_BYTES + a_rank * Cfg::A_SLICE_BYTES;
          const uint32_t b_dst = s_b + stage * Cfg::B_STAGE_BYTES + b_rank * Cfg::B_SLICE_BYTES;
          auto load_a = [&](uint32_t dst, int c0, int c1) {
            if constexpr (CLUSTER > 1 && !CLUSTER_M)
              sm90::tma_load_2d_multicast(dst, &tmap_a, full(stage), uint16_t((1u << CLUSTER) - 1),
                                          c0, c1);
            else
              sm90::tma_load_2d(dst, &tmap_a, full(stage), c0, c1);
          };
          if constexpr (A_K_MAJOR) {
            load_a(a_dst, k0, a_row);
          } else {  // 64-row M blocks; a block past M restarts at the last whole 64 inside it
#pragma unroll
            for (int j = 0; j < Cfg::A_SLICE_ROWS / 64; ++j)
              load_a(a_dst + j * MN_BLOCK_BYTES,
                     min(m_tile * BM + a_rank * Cfg::A_SLICE_ROWS + 64 * j, a_last64), k0);
          }
          if constexpr (CLUSTER_M) {
            sm90::tma_load_2d_multicast(b_dst, &tmap_b, full(stage), uint16_t((1u << CLUSTER) - 1),
                                        k0, b_row);
          } else if constexpr (B_K_MAJOR) {
            sm90::tma_load_2d(b_dst, &tmap_b, full(stage), k0, b_row);
          } else {
#pragma unroll
            for (int j = 0; j < BN / 64; ++j)
              sm90::tma_load_2d(b_dst + j * MN_BLOCK_BYTES, &tmap_b, full(stage),
                                min(n_tile * BN + 64 * j, b_last64), k0);
          }
          GB_SM90_TRACE_FIRST(6, !CSPLIT);  // timeline probe: the first k-block's loads issued
          if (++stage == STAGES) stage = 0, phase ^= 1;
        }
      }
      // Producer tail (multicast clusters): one more lap of waits on the ring. Each returns when
      // the stage's last use has been released by the consumers of every CTA it was multicast to
      // (a stage never used passes at once); after that no peer arrives on this CTA's barriers
      // again, and every multicast this CTA issued has landed, so the CTA may exit without the
      // whole cluster meeting at a closing barrier. With the store wait below (reads only), this
      // took 1.6-1.7 us off hgemm_decode_sm90_wmc at 128x4096x4096 and 128x4096x7168, the tail
      // alone 0.8-1.6 us (event time of one cold launch, medians of three rounds, H200:
      // bench_results/h200/reference/2026-11-27_sm90_tail_ab.txt).
      if constexpr (CLUSTER > 1) {
        for (int i = 0; i < STAGES; ++i) {
          sm90::mbarrier_wait_parity(empty(stage), phase ^ 1);
          if (++stage == STAGES) stage = 0, phase ^= 1;
        }
      }
    }
    if constexpr (CSPLIT) {
      __syncwarp();
      cs_producer_barriers();
    }
  } else {
    // ======== CONSUMERS ========
    sm90::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
    const int consumer = wg - 1;  // which 64 GEMM-N rows of the tile (wgmma M)
    const int warp = wg_thread / 32, lane = wg_thread % 32;
    const int g = lane / 4, q = lane % 4;
    const uint32_t wg_bar = 1 + consumer;  // named barrier of this warpgroup alone
    // One arrival per consumer warpgroup on the stage's empty barrier of every CTA that loads
    // into this CTA (all of the cluster: the shared tile's slices are multicast), after the wgmma
    // reading it has completed. Thread r < CLUSTER signals CTA r.
    auto release = [&](int s) {
      if constexpr (CLUSTER > 1) {
        if (wg_thread < CLUSTER) sm90::mbarrier_arrive_cluster(empty(s), uint32_t(wg_thread));
      } else {
        if (wg_thread == 0) sm90::mbarrier_arrive(empty(s));
      }
    };
    // Row 16*warp + g (+8) of this warpgroup's 64, within the CTA's BN.
    const int n_in_tile = consumer * Cfg::WG_N + 16 * warp + g;
    // 16-byte C accesses need every column start (n*M) and the base 16-byte aligned.
    const bool vec = (M % 8 == 0) && (reinterpret_cast<uintptr_t>(c) % 16 == 0);

    AccReg acc[ACC_REGS];  // (64 GEMM-N, BM GEMM-M) per warpgroup, wgmma D fragment
    // The tile's outputs, packed (deferred epilogue: the previous tile's), and where they go.
    uint32_t packed[BM / 4];  // (BM/4) output pairs, f16/bf16 x 2
    bool pending = false;
    int pending_m0 = 0, pending_n0 = 0;
    const uint32_t s_epi_own = s_epi + consumer * Cfg::EPI_BUFS * Cfg::EPI_BUF_BYTES;
    int stage = 0;
    uint32_t phase = 0;
    WorkIter work_iter(sched, cluster_id, parts);
    Sm90Work w;
    GB_SM90_TRACE_ONCE_FLAG(1);
    while (work_iter.next(w)) {
      const auto [m_tile, n_tile] = cta_tile(w);
      // Stream-K role, decided before the mainloop so one register carries it across.
      const int fixup = !STREAM_K                   ? kFixupNone
                        : w.kb_end < sched.k_blocks ? kFixupPublish
                        : w.kb_begin > 0            ? w.sk_tile  // gather, then finish
                                                    : kFixupNone;
      const int kb_count = w.kb_end - w.kb_begin;

      // ======== MAINLOOP ========
#pragma unroll
      for (int i = 0; i < ACC_REGS; ++i) sm90::fence_operand(acc[i]);
      int prev_stage = 0;
      auto k_block = [&](int kb) {  // k-block w.kb_begin + kb of the tile
        sm90::mbarrier_wait_parity(full(stage), phase);
        GB_SM90_TRACE_FIRST(1, threadIdx.x == 128);
        sm90::wgmma_fence();
        // wgmma A = this warpgroup's 64 rows of the B tile; wgmma B = the whole A tile.
        const uint64_t desc_a = operand_desc<B_K_MAJOR, BK>(
            s_b + stage * Cfg::B_STAGE_BYTES + consumer * Cfg::WG_N * Cfg::ROW_BYTES);  // (64, BK)
        const uint64_t desc_b =
            operand_desc<A_K_MAJOR, BK>(s_a + stage * Cfg::A_STAGE_BYTES);  // (BM, BK)
#pragma unroll
        for (int k = 0; k < BK / 16; ++k) {
          const uint64_t da = operand_desc_k16<B_K_MAJOR>(desc_a, k);
          const uint64_t db = operand_desc_k16<A_K_MAJOR>(desc_b, k);
          const int accumulate = (kb > 0 || k > 0) ? 1 : 0;  // first k16 of an item: D = A*B
          wgmma_tile_k16<BM, F16_ACCUM, T, A_K_MAJOR, B_K_MAJOR>(acc, da, db, accumulate);
        }
        sm90::wgmma_commit_group();
        // Keep this k-block's MMAs in flight; the previous one has finished reading its stage.
        if (kb > 0) {
          sm90::wgmma_wait_group<1>();
          release(prev_stage);
        }
        prev_stage = stage;
        if (++stage == STAGES) stage = 0, phase ^= 1;
      };
      int kb = 0;
      // The previous tile's boxes, one after each of this tile's first k-blocks (all of them at
      // the end when the tile has fewer k-blocks than boxes). The k-blocks are issued whether or
      // not a tile is pending: wgmmas under a data-dependent branch make ptxas serialize them
      // (C7520) in the stream-K build.
      static_for<BOXES>([&](auto box) {
        if (kb < kb_count) k_block(kb++);
        if (pending)
          store_packed_box<decltype(box)::value, BOXES, Cfg::EPI_BUFS>(
              packed, &tmap_c, s_epi_own, Cfg::EPI_BUF_BYTES, pending_m0, pending_n0, M, warp, lane,
              wg_thread, wg_bar);
      });
      pending = false;
      for (; kb < kb_count; ++kb) k_block(kb);
      sm90::wgmma_wait_group<0>();
      release(prev_stage);
      GB_SM90_TRACE(2, wg_thread == 0 && consumer == 0);
#pragma unroll
      for (int i = 0; i < ACC_REGS; ++i) sm90::fence_operand(acc[i]);

      // ======== STREAM-K FIX-UP ========
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
      // ======== IN-CLUSTER SPLIT: sum the parts in shared memory ========
      // Every warp takes part; the warps that do not own their block store nothing.
      if constexpr (CSPLIT) {
        if (!cs_reduce<Cfg::CS_BLOCKS>(acc, s_a, consumer * 4 + warp, lane, cluster_id % parts,
                                       parts))
          continue;
      }

      GB_SM90_TRACE(3, wg_thread == 0 && consumer == 0);

      // ======== EPILOGUE ========
      // The padding N tile of an odd tiles_n (cluster runs only) stores nothing, nor an M tile
      // of a cluster along M that lies past M.
      const int m_tile0 = m_tile * BM;
      if (n_tile >= sched.tiles_n || m_tile0 >= M) continue;
      // sched.c_tma is uniform: beta == 0, M % 8 == 0, C 16-byte aligned.
      if (Cfg::TMA_STORE && !CSPLIT && sched.c_tma) {
        const int n0 = n_tile * BN + consumer * Cfg::WG_N;
        if (n0 >= N) continue;  // this warpgroup's rows are all past N
        // Packed now; stored during the next tile's first k-blocks, or at once (three consumers).
        if (alpha == 1.f)
          pack_tile<T, F16_ACCUM, false>(acc, alpha, packed);
        else
          pack_tile<T, F16_ACCUM, true>(acc, alpha, packed);
        if constexpr (Cfg::DEFER) {
          pending = true, pending_m0 = m_tile0, pending_n0 = n0;
        } else {
          static_for<BOXES>([&](auto box) {
            store_packed_box<decltype(box)::value, BOXES, Cfg::EPI_BUFS>(
                packed, &tmap_c, s_epi_own, Cfg::EPI_BUF_BYTES, m_tile0, n0, M, warp, lane,
                wg_thread, wg_bar);
          });
        }
        continue;
      }
      // A PARTIAL tile's rows end at BN: past it, rows of wgmma's last 64 that were never loaded.
      const int n_end = Cfg::PARTIAL ? min(N, (n_tile + 1) * BN) : N;
      store_tile_registers<T, F16_ACCUM, BM>(acc, c, M, n_end, n_tile * BN + n_in_tile, m_tile0, q,
                                             vec, alpha, beta);
    }
    if (pending)  // the last tile's boxes
      static_for<BOXES>([&](auto box) {
        store_packed_box<decltype(box)::value, BOXES, Cfg::EPI_BUFS>(
            packed, &tmap_c, s_epi_own, Cfg::EPI_BUF_BYTES, pending_m0, pending_n0, M, warp, lane,
            wg_thread, wg_bar);
      });
    // TMA stores read shared memory until their reads are done: wait for those before the CTA
    // exits (the global writes complete by the kernel's end).
    if (wg_thread == 0) sm90::bulk_wait_group_read<0>();
    GB_SM90_TRACE(4, wg_thread == 0 && consumer == 0);
  }
#else
  // Not the sm_90a image: supports() keeps the runner from launching it.
  __trap();
#endif
}

}  // namespace
}  // namespace gemmbench
