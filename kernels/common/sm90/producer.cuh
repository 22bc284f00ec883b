// The Hopper kernels' producer (hgemm/sm90/kernel.cuh, fp8gemm/sm90_persistent.cu): one thread of
// warpgroup 0 walks the CTA's work
// items and issues every TMA load into the ring, one stage per k-block: it waits until the stage
// is free (empty barrier), arms its full barrier with the stage's byte count and starts the copies
// of this CTA's A and B slices, multicast to the cluster's CTAs where they share a tile.
//   stage s:  A (BM, BK) at s_a + s * A_STAGE_BYTES, B (BN, BK) at s_b + s * B_STAGE_BYTES
//             K-major: rows of 128 B; MN-major: 64-row blocks of (BK K rows x 128 B)
#pragma once

#include <cuda.h>

#include <cstdint>

#include "common/sm90.cuh"
#include "common/sm90/config.hpp"
#include "common/sm90/pipeline.cuh"
#include "common/sm90/schedule.hpp"
#include "common/sm90/trace.cuh"

namespace gemmbench {
namespace {

#if GEMMBENCH_SM90A  // device code of the sm_90a kernel body only

// What a stage carries beside A's and B's tiles: nothing, for every kernel but one.
struct Sm90NoStageLoads {
  __device__ __forceinline__ uint32_t tx_bytes(int /*kb*/) const { return 0; }
  __device__ __forceinline__ void operator()(int /*stage*/, int /*kb*/, int /*m_tile*/,
                                             int /*n_tile*/) const {}
};

// A_K_MAJOR / B_K_MAJOR: the operands' storage (see hgemm_sm90_kernel). An MN-major operand
// arrives as 64-row blocks of (BK K rows x 64 M or N elements = 128 B), one TMA box each.
// CSPLIT: the in-cluster split, whose timeline probe stamps point 6 elsewhere (cs_reduce).
// BK: the elements of K in a k-block, the TMA boxes' K coordinate step (Cfg::BK, 64 16-bit
// elements; the FP8 kernels' 128-byte rows hold 128).
// SKIP_PAST_M (fp8gemm_sm90_persistent_t_m64c2; measured as _m64c2z, issue 50): a K-major A
// slice that starts at or past M (a cluster's second 32 rows at 32 tokens and fewer, or of the
// second token tile at 65-96) is not loaded and not counted in the stage's bytes: its smem rows
// keep what they held and feed only outputs past M, as the tail box's rows do (tmap_a_tail,
// below). Without it such a slice loads a whole box from A's last row, all zeros but that row,
// every k-block.
template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, bool CSPLIT, int BK = Cfg::BK,
          bool SKIP_PAST_M = false>
struct Sm90Producer {
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, CLUSTER = Cfg::CLUSTER;
  static constexpr bool CLUSTER_M = Cfg::CLUSTER_M;
  static constexpr uint32_t MN_BLOCK_BYTES = BK * sm90::kSw128RowBytes;  // 64 MN x BK K, 8 KB
  static_assert((A_K_MAJOR && B_K_MAJOR) || MN_BLOCK_BYTES == 64 * Cfg::ROW_BYTES,
                "an MN-major block fills the bytes of 64 K-major rows: the operand offsets of "
                "both layouts agree");
  static_assert(A_K_MAJOR || Cfg::A_SLICE_ROWS % 64 == 0,
                "an M-major A slice is whole 64-row TMA boxes (128 bytes of M)");

  const CUtensorMap* tmap_a;  // A (M,K): k-major box (BK, A_SLICE_ROWS), m-major box (64, BK)
  const CUtensorMap* tmap_b;  // B (N,K): k-major box (BK, B_SLICE_ROWS), n-major box (64, BK)
  uint32_t s_a;               // (STAGES, BM x BK), SW128
  uint32_t s_b;               // (STAGES, BN x BK), SW128
  int M, N;
  uint32_t cta_rank;  // in the cluster
  // K-major A's tail map (null: none): A with a box of M % A_SLICE_ROWS rows, for the slice that
  // M ends inside. A whole box there is mostly rows past M, which TMA fills with zeros, and such
  // boxes cost time though they carry no data: fp8gemm_decode_sm90_wmc's pair (token tiles of 64)
  // ran 36.0 us at 72x4096x14336 against 25.0 at 104-128 tokens, the time falling as the second
  // tile filled (80: 31.8, 88: 30.3, 96: 27.9; H200, sustained, bench_results/h200/
  // 2026-11-30_fp8_wmc_m_sweep_4096x14336.json.gz; under ncu the consumers' long-scoreboard
  // stalls per issue 2.82 at 72 tokens, 1.18 at 128:
  // gpu_logs/2026-11-30_seventh_session_calls.txt.gz, call 2). With the tail box it ran 24.5 us at
  // 72 tokens and `fp8gemm` on Llama 3's layers 1.11-1.48x faster at 72 tokens, 1.01-1.15x at 96;
  // hgemm_decode_sm90_wmc 1.18-1.47x at 72 (2026-11-30_a_tail_box_ab_*). The tail box loads only
  // rows inside A; the slice's smem rows past it keep what they held (a stale stage's rows, or
  // never written) and feed only outputs past M, which are not stored: an output C(m, n) reads
  // row m of A alone, and no reduction (stream-K, the in-cluster split) mixes outputs.
  const CUtensorMap* tmap_a_tail = nullptr;

  // The rows of A the slice starting at row `start` loads: A_SLICE_ROWS, or M's tail where M
  // ends inside it and a tail map is given.
  __device__ __forceinline__ int a_slice_rows(int start) const {
    if constexpr (A_K_MAJOR) {
      if constexpr (SKIP_PAST_M) {
        if (start >= M) return 0;
      }
      if (tmap_a_tail != nullptr && start < M && M - start < Cfg::A_SLICE_ROWS) return M - start;
    }
    return Cfg::A_SLICE_ROWS;
  }
  // The A bytes one stage of this CTA receives for the tile at m_tile: its own slice, or with A
  // multicast over the cluster (!CLUSTER_M) every CTA's.
  __device__ __forceinline__ uint32_t a_stage_bytes(int m_tile) const {
    if constexpr (!A_K_MAJOR) {
      return Cfg::A_STAGE_BYTES;
    } else if constexpr (CLUSTER_M || CLUSTER == 1) {
      return uint32_t(a_slice_rows(m_tile * BM)) * Cfg::ROW_BYTES;
    } else {
      uint32_t bytes = 0;
#pragma unroll
      for (int r = 0; r < CLUSTER; ++r)
        bytes += uint32_t(a_slice_rows(m_tile * BM + r * Cfg::A_SLICE_ROWS)) * Cfg::ROW_BYTES;
      return bytes;
    }
  }

  // Every k-block of every work item of `work_iter`, in order; then, in a multicast cluster, the
  // wait for the ring's last uses. Called by one thread.
  // stage_loads(stage, kb, m_tile, n_tile): more TMA loads, completing on the stage's full barrier,
  // whose bytes stage_loads.tx_bytes(kb) are armed with the stage's own in one arrive.expect_tx (an
  // expect_tx after the arrival could let the phase complete without them)
  // (fp8gemm_sm90_persistent_t_m256c2ts: A's block scales of 4 k-blocks with every fourth).
  template <class WorkIter, class StageLoads = Sm90NoStageLoads>
  __device__ __forceinline__ void run(const Sm90Ring<Cfg::STAGES>& ring, WorkIter& work_iter,
                                      StageLoads stage_loads = {}) const {
    // MN-major boxes start inside the matrix, on a 64-element (128-byte) boundary.
    const int a_last64 = (M - 1) / 64 * 64, b_last64 = (N - 1) / 64 * 64;
    Sm90Work w;
    GB_SM90_TRACE_ONCE_FLAG(6);
    GB_SM90_TRACE_ONCE_FLAG(10);
    // Which slice of the shared tile this CTA loads and multicasts.
    const int a_rank = CLUSTER_M ? 0 : int(cta_rank), b_rank = CLUSTER_M ? int(cta_rank) : 0;
    while (work_iter.next(w)) {
      const auto [m_tile, n_tile] = sm90_cta_tile<CLUSTER, CLUSTER_M>(w, cta_rank);
      // A slice / B rows past the matrix (an M tile shorter than the cluster's slices, the
      // padding N tile of an odd tiles_n) are clamped to a row inside it: those smem rows feed
      // only C rows/columns the epilogue does not store, and no box starts out of bounds.
      const int a_start = m_tile * BM + a_rank * Cfg::A_SLICE_ROWS;
      const int a_row = min(a_start, M - 1);
      const int b_row = min(n_tile * BN + b_rank * Cfg::B_SLICE_ROWS, N - 1);
      // M's tail slice: the tail map's box, and the stage's bytes less the rows it leaves out.
      const bool a_tail = a_slice_rows(a_start) != Cfg::A_SLICE_ROWS;
      const uint32_t tx_bytes = Cfg::TX_BYTES - Cfg::A_STAGE_BYTES + a_stage_bytes(m_tile);
      GB_SM90_TRACE_FIRST(10, true);  // timeline probe: the first work item computed
      for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
        const int stage = ring.stage;
        sm90::mbarrier_wait_parity(ring.empty(stage), ring.phase ^ 1);  // lap 0 passes at once
        sm90::mbarrier_arrive_expect_tx(ring.full(stage), tx_bytes + stage_loads.tx_bytes(kb));
        const int k0 = kb * BK;
        const uint32_t a_dst = s_a + stage * Cfg::A_STAGE_BYTES + a_rank * Cfg::A_SLICE_BYTES;
        const uint32_t b_dst = s_b + stage * Cfg::B_STAGE_BYTES + b_rank * Cfg::B_SLICE_BYTES;
        auto load_a = [&](uint32_t dst, int c0, int c1) {
          const CUtensorMap* map = a_tail ? tmap_a_tail : tmap_a;
          if constexpr (CLUSTER > 1 && !CLUSTER_M)
            sm90::tma_load_2d_multicast(dst, map, ring.full(stage), uint16_t((1u << CLUSTER) - 1),
                                        c0, c1);
          else
            sm90::tma_load_2d(dst, map, ring.full(stage), c0, c1);
        };
        if constexpr (A_K_MAJOR) {
          if (!SKIP_PAST_M || a_start < M) load_a(a_dst, k0, a_row);
        } else {  // 64-row M blocks; a block past M restarts at the last whole 64 inside it
#pragma unroll
          for (int j = 0; j < Cfg::A_SLICE_ROWS / 64; ++j)
            load_a(a_dst + j * MN_BLOCK_BYTES,
                   min(m_tile * BM + a_rank * Cfg::A_SLICE_ROWS + 64 * j, a_last64), k0);
        }
        if constexpr (CLUSTER_M) {
          sm90::tma_load_2d_multicast(b_dst, tmap_b, ring.full(stage),
                                      uint16_t((1u << CLUSTER) - 1), k0, b_row);
        } else if constexpr (B_K_MAJOR) {
          sm90::tma_load_2d(b_dst, tmap_b, ring.full(stage), k0, b_row);
        } else {
#pragma unroll
          for (int j = 0; j < BN / 64; ++j)
            sm90::tma_load_2d(b_dst + j * MN_BLOCK_BYTES, tmap_b, ring.full(stage),
                              min(n_tile * BN + 64 * j, b_last64), k0);
        }
        stage_loads(stage, kb, m_tile, n_tile);
        GB_SM90_TRACE_FIRST(6, !CSPLIT);  // timeline probe: the first k-block's loads issued
        ring.advance();
      }
    }
    // Producer tail (multicast clusters): one more lap of waits on the ring. Each returns when
    // the stage's last use has been released by the consumers of every CTA it was multicast to
    // (a stage never used passes at once); after that no peer arrives on this CTA's barriers
    // again, and every multicast this CTA issued has landed, so the CTA may exit without the
    // whole cluster meeting at a closing barrier. With the store wait at the consumers' end (reads
    // only), this took 1.6-1.7 us off hgemm_decode_sm90_wmc at 128x4096x4096 and 128x4096x7168,
    // the tail alone 0.8-1.6 us (event time of one cold launch, medians of three rounds, H200:
    // bench_results/h200/reference/2026-11-27_sm90_tail_ab.txt.gz).
    if constexpr (CLUSTER > 1) drain(ring);
  }

  // The producer tail of a multicast cluster (run() above; the grouped pair's walk): one more lap
  // of waits on the ring, each returning once the stage's last use has been released by the
  // consumers of every CTA it was multicast to.
  __device__ __forceinline__ void drain(const Sm90Ring<Cfg::STAGES>& ring) const {
    for (int i = 0; i < Cfg::STAGES; ++i) {
      sm90::mbarrier_wait_parity(ring.empty(ring.stage), ring.phase ^ 1);
      ring.advance();
    }
  }

  // The k-blocks [0, kb_count) of one tile whose rows the caller has placed: A's (BM, BK) tile at
  // row a_row, B's (BN, BK) box at b_row, both K-major. The grouped kernels (hgemm/sm90/
  // grouped.cu) walk their own tile order (common/grouped_schedule.hpp) and place each group's
  // rows in the one tensor map of all groups; run() above, which the dense kernels call, is not
  // touched by it. Rows past a map's end read as zero. In a cluster along N (!CLUSTER_M: the
  // grouped pair, two token tiles of one group on one weight tile) this CTA loads its slice of A
  // (A_SLICE_ROWS from a_row + cta_rank * A_SLICE_ROWS) and multicasts it to both, and its own B;
  // load_b = false (a CTA whose token rows all lie past its group) loads no B, and the stage's
  // full barrier then expects A's bytes alone. share_a = false (the global pairing's unit across
  // two groups, hgemm_grouped_sm90_pairg): this CTA loads all of its own A, slice by slice, and
  // multicasts nothing; its full barrier expects the same bytes.
  __device__ __forceinline__ void load_tile(const Sm90Ring<Cfg::STAGES>& ring, int a_row, int b_row,
                                            int kb_count, bool load_b = true,
                                            bool share_a = true) const {
    static_assert(A_K_MAJOR && B_K_MAJOR && !CLUSTER_M,
                  "load_tile places K-major boxes, A multicast over a cluster along N");
    const uint32_t tx = load_b ? Cfg::TX_BYTES : Cfg::A_STAGE_BYTES;
    const uint32_t rank = CLUSTER > 1 ? cta_rank : 0u;  // one CTA: the code as before clusters
    const int a_slice = a_row + int(rank) * Cfg::A_SLICE_ROWS;
    for (int kb = 0; kb < kb_count; ++kb) {
      const int stage = ring.stage;
      sm90::mbarrier_wait_parity(ring.empty(stage), ring.phase ^ 1);  // lap 0 passes at once
      sm90::mbarrier_arrive_expect_tx(ring.full(stage), tx);
      const uint32_t a_dst = s_a + stage * Cfg::A_STAGE_BYTES + rank * Cfg::A_SLICE_BYTES;
      if constexpr (CLUSTER > 1) {
        if (share_a) {
          sm90::tma_load_2d_multicast(a_dst, tmap_a, ring.full(stage),
                                      uint16_t((1u << CLUSTER) - 1), kb * BK, a_slice);
        } else {
          for (int r = 0; r < CLUSTER; ++r)
            sm90::tma_load_2d(s_a + stage * Cfg::A_STAGE_BYTES + r * Cfg::A_SLICE_BYTES, tmap_a,
                              ring.full(stage), kb * BK, a_row + r * Cfg::A_SLICE_ROWS);
        }
      } else {
        sm90::tma_load_2d(a_dst, tmap_a, ring.full(stage), kb * BK, a_slice);
      }
      if (load_b)
        sm90::tma_load_2d(s_b + stage * Cfg::B_STAGE_BYTES, tmap_b, ring.full(stage), kb * BK,
                          b_row);
      ring.advance();
    }
  }
};

#endif  // GEMMBENCH_SM90A

}  // namespace
}  // namespace gemmbench
