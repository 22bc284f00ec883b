// The Hopper kernel's consumer mainloop (sm90/kernel.cuh): a consumer warpgroup runs wgmma over
// the ring, one k-block per stage, for the k-blocks of one work item. It keeps one k-block's
// wgmmas in flight while it issues the next, and releases a stage (an arrival on its empty
// barrier in every CTA that multicast into it) once the wgmmas reading it have completed.
//   acc:     (64 GEMM-N, BM GEMM-M) per warpgroup, wgmma D fragment (Sm90Acc)
//   stage s: wgmma A = the warpgroup's 64 rows of B (64, BK); wgmma B = the whole A tile (BM, BK)
// With e4m3 inputs (T = __nv_fp8_e4m3: fp8gemm_decode_sm90, fp8gemm/decode_sm90.cu) a stage's
// 128-byte rows hold 128 elements of K, four wgmma k32 steps; each k-block's products go into a
// partial that is added to the f32 sums once its wgmmas have completed (the tensor cores keep
// about 14 bits of an FP8 sum: common/sm90.cuh). At up to 64 tokens two partials take turns, so
// that the next k-block's wgmmas are issued before a partial is waited for and added (F5 1.14x
// faster at 64 tokens per-tensor and 1.16x block128, 1.03-1.05x at 16-32; one board, H200,
// bench_results/h200/2026-11-30_fp8_decode_pipe_ab_*); at 128 tokens three 64-register fragments
// do not fit, and each k-block completes before the next is issued.
#pragma once

#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

#include "common/sm90.cuh"
#include "common/static_for.cuh"
#include "common/sm90/config.hpp"
#include "common/sm90/pipeline.cuh"
#include "common/sm90/trace.cuh"

namespace gemmbench {
namespace {

#if GEMMBENCH_SM90A  // device code of the sm_90a kernel body only

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
// (rows of 128 bytes) or MN-major (64-row blocks of BK K rows each, BK * 128 bytes apart).
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

// The token column (GEMM M, from the tile's first) of a thread's fragment pair c (0 .. BM / 4):
// register i = 4j + 2h + e holds column 8j + 2q + e, q = wg_thread % 4, c = 2j + e.
__device__ __forceinline__ int sm90_fragment_column(int c, int q) {
  return 8 * (c / 2) + 2 * q + c % 2;
}

// One consumer warpgroup's walk over the ring, across its work items.
// BLOCK_SCALES (FP8 only): each k-block's partial is added times its block scales, B's for the
// warpgroup's 64 weight rows (one 128-row block) and A's for each token column of the fragment.
template <class T, bool F16_ACCUM, class Cfg, bool A_K_MAJOR, bool B_K_MAJOR,
          bool BLOCK_SCALES = false>
struct Sm90Mainloop {
  static constexpr int BM = Cfg::BM, BK = Cfg::BK, CLUSTER = Cfg::CLUSTER;
  using Acc = Sm90Acc<F16_ACCUM, BM>;
  using AccReg = typename Acc::Reg;
  // e4m3 x e4m3 (the FP8 decode path): K-major operands, f32 sums, the k-block promoted.
  static constexpr bool FP8 = std::is_same_v<T, __nv_fp8_e4m3>;
  static_assert(!FP8 || (A_K_MAJOR && B_K_MAJOR && !F16_ACCUM),
                "8-bit wgmma operands are K-major (no transpose) and accumulate in f32");
  static_assert(!BLOCK_SCALES || FP8, "block scales are the FP8 path's");

  Sm90Ring<Cfg::STAGES> ring;
  uint32_t s_a;   // (STAGES, BM x BK), SW128
  uint32_t s_b;   // (STAGES, BN x BK), SW128
  int consumer;   // which 64 GEMM-N rows of the tile (wgmma M)
  int wg_thread;  // 0..127
  // BLOCK_SCALES, set per work item: B's scales of the warpgroup's weight block from the item's
  // first k-block (scale_b[nb * KB + kb]), A's from it (scale_a[m * KB + kb]: sa_m + m * kbs),
  // the tile's first token row and the problem's M (rows past it read the last row's scales).
  const float* sb = nullptr;
  const float* sa_m = nullptr;
  int kbs = 0, m0 = 0, M = 0;
  GB_SM90_TRACE_ONCE_MEMBER(1);

  // One arrival per consumer warpgroup on the stage's empty barrier of every CTA that loads into
  // this CTA (all of the cluster: the shared tile's slices are multicast), after the wgmma
  // reading it has completed. Thread r < CLUSTER signals CTA r.
  __device__ __forceinline__ void release(int s) {
    if constexpr (CLUSTER > 1) {
      if (wg_thread < CLUSTER) sm90::mbarrier_arrive_cluster(ring.empty(s), uint32_t(wg_thread));
    } else {
      if (wg_thread == 0) sm90::mbarrier_arrive(ring.empty(s));
    }
  }

  // k-block kb of the work item (0: its first, D = A*B), on the ring's next stage. TN (<= BM):
  // wgmma's N for this item, the first TN rows of the stage's A tile into the fragment's first
  // Sm90Acc<F16_ACCUM, TN>::REGS registers (the m64nN fragment's registers run along N, 8 columns
  // at a time: a narrower N's fragment is the wider one's prefix); hgemm_grouped_sm90_fit narrows
  // a tile to the rows its group has left.
  // FP8: k-block kb's four wgmmas into `part` (a fresh partial) on the ring's next stage, committed
  // as one group; returns the stage, which stays unreleased until the group completes.
  __device__ __forceinline__ int issue_fp8(float (&part)[Acc::REGS]) {
    const int stage = ring.stage;
    sm90::mbarrier_wait_parity(ring.full(stage), ring.phase);
    GB_SM90_TRACE_FIRST(1, threadIdx.x == 128);
    sm90::wgmma_fence();
    const uint64_t desc_a = sm90::wgmma_desc_sw128_kmajor(
        s_b + stage * Cfg::B_STAGE_BYTES + consumer * Cfg::WG_N * Cfg::ROW_BYTES);  // (64, 128)
    const uint64_t desc_b = sm90::wgmma_desc_sw128_kmajor(s_a + stage * Cfg::A_STAGE_BYTES);
#pragma unroll
    for (int k = 0; k < 4; ++k)  // 32 bytes of each 128-byte row a step: m64nBMk32
      sm90::wgmma_m64k32_fp8_f32<DType::e4m3, DType::e4m3, BM>(
          part, sm90::wgmma_desc_advance(desc_a, 32 * k), sm90::wgmma_desc_advance(desc_b, 32 * k),
          k > 0 ? 1 : 0);
    sm90::wgmma_commit_group();
#pragma unroll
    for (int i = 0; i < Acc::REGS; ++i) sm90::fence_operand(part[i]);
    ring.advance();
    return stage;
  }

  // Block scales of k-block kb (relative to the work item's first): this thread's BM / 4 token
  // columns (8j + 2q + e), times B's for the warpgroup's weight block.
  static constexpr int kScaleRegs = BLOCK_SCALES ? BM / 4 : 1;
  __device__ __forceinline__ void block_scales(int kb, float (&f)[kScaleRegs]) const {
    if constexpr (BLOCK_SCALES) {
      const float b = __ldg(sb + kb);
      const int q = wg_thread % 4;
#pragma unroll
      for (int c = 0; c < BM / 4; ++c) {
        const int m = min(m0 + sm90_fragment_column(c, q), M - 1);
        f[c] = b * __ldg(sa_m + int64_t(m) * kbs + kb);
      }
    }
  }

  // FP8: a partial whose wgmmas have completed releases its stage ...
  __device__ __forceinline__ void release_fp8(float (&part)[Acc::REGS], int stage) {
#pragma unroll
    for (int i = 0; i < Acc::REGS; ++i) sm90::fence_operand(part[i]);
    release(stage);
  }
  // ... and is added to the f32 sums times its block scales f (first: acc = partial).
  __device__ __forceinline__ void add_fp8(float (&acc)[Acc::REGS], const float (&part)[Acc::REGS],
                                          const float (&f)[kScaleRegs], bool first) {
#pragma unroll
    for (int i = 0; i < Acc::REGS; ++i) {
      // Fragment register i = 4j + 2h + e holds token column 8j + 2q + e: scale f[2j + e].
      float x = part[i];
      if constexpr (BLOCK_SCALES) x *= f[(i / 4) * 2 + i % 2];
      acc[i] = first ? x : acc[i] + x;
    }
  }

  // FP8, one k-block at a time (128 tokens: three f32 fragments of 64 registers do not fit):
  // k-block kb into a fresh partial, its wgmmas completed and its stage released before the
  // partial is added to acc (the first k-block of an item: acc = partial). The block scales are
  // read once the wgmmas are done (read before the wait, they spilled more at 128 tokens).
  __device__ __forceinline__ void k_block_fp8(float (&acc)[Acc::REGS], int kb) {
    float part[Acc::REGS];
    const int stage = issue_fp8(part);
    sm90::wgmma_wait_group<0>();
    release_fp8(part, stage);
    float f[kScaleRegs];
    block_scales(kb, f);
    add_fp8(acc, part, f, kb == 0);
  }

  // FP8 at up to kFp8PipeMaxTokens tokens: two partials in turn, so that k-block kb + 1's wgmmas
  // are issued before kb's partial is waited for and added (its block scales read before that
  // wait), as rung F3's _pipe does (fp8gemm/sm90_mainloop.cuh, run_pipelined): two k-blocks a
  // trip, each partial a fixed register array, a branch only for the last one or two.
  static constexpr int kFp8PipeMaxTokens = 64;
  static constexpr bool FP8_PIPE = FP8 && BM <= kFp8PipeMaxTokens;
  // Retire k-block kb's partial: its block scales read, then its wgmmas waited for (PENDING: the
  // groups left in flight, 1 while the next k-block's are issued, 0 for the last), its stage
  // released and the partial added.
  template <int PENDING>
  __device__ __forceinline__ void retire(float (&acc)[Acc::REGS], float (&part)[Acc::REGS], int kb,
                                         int stage) {
    float f[kScaleRegs];
    block_scales(kb, f);
    sm90::wgmma_wait_group<PENDING>();
    release_fp8(part, stage);
    add_fp8(acc, part, f, false);
  }
  template <int BOXES, class Between>
  __device__ __forceinline__ void run_fp8_pipelined(float (&acc)[Acc::REGS], int kb_count,
                                                    Between&& between) {
    float p0[Acc::REGS], p1[Acc::REGS];
#pragma unroll
    for (int i = 0; i < Acc::REGS; ++i) acc[i] = 0.f;
    int s0 = issue_fp8(p0), s1 = 0;  // k-block 0
    // The epilogue's deferred waits of the previous tile, all after the first k-block's issue.
    static_for<BOXES>([&](auto box) { between(box); });
    int kb = 0;
    for (; kb + 2 < kb_count; kb += 2) {
      s1 = issue_fp8(p1);  // kb + 1
      retire<1>(acc, p0, kb, s0);
      s0 = issue_fp8(p0);  // kb + 2
      retire<1>(acc, p1, kb + 1, s1);
    }
    if (kb + 1 < kb_count) {  // two left
      s1 = issue_fp8(p1);
      retire<1>(acc, p0, kb, s0);
      retire<0>(acc, p1, kb + 1, s1);
    } else {
      retire<0>(acc, p0, kb, s0);
    }
  }

  template <int TN = BM>
  __device__ __forceinline__ void k_block(AccReg (&acc)[Acc::REGS], int kb, int& prev_stage) {
    static_assert(TN <= BM, "a narrower wgmma N reads a prefix of the stage's A tile");
    if constexpr (FP8) {
      static_assert(TN == BM, "the FP8 path runs whole tiles");
      k_block_fp8(acc, kb);
    } else {
      auto& acc_n = *reinterpret_cast<AccReg(*)[Sm90Acc<F16_ACCUM, TN>::REGS]>(&acc[0]);
      const int stage = ring.stage;
      sm90::mbarrier_wait_parity(ring.full(stage), ring.phase);
      GB_SM90_TRACE_FIRST(1, threadIdx.x == 128);
      sm90::wgmma_fence();
      const uint64_t desc_a = operand_desc<B_K_MAJOR, BK>(
          s_b + stage * Cfg::B_STAGE_BYTES + consumer * Cfg::WG_N * Cfg::ROW_BYTES);  // (64, BK)
      const uint64_t desc_b =
          operand_desc<A_K_MAJOR, BK>(s_a + stage * Cfg::A_STAGE_BYTES);  // (BM, BK)
#pragma unroll
      for (int k = 0; k < BK / 16; ++k) {
        const uint64_t da = operand_desc_k16<B_K_MAJOR>(desc_a, k);
        const uint64_t db = operand_desc_k16<A_K_MAJOR>(desc_b, k);
        const int accumulate = (kb > 0 || k > 0) ? 1 : 0;  // first k16 of an item: D = A*B
        wgmma_tile_k16<TN, F16_ACCUM, T, A_K_MAJOR, B_K_MAJOR>(acc_n, da, db, accumulate);
      }
      sm90::wgmma_commit_group();
      // Keep this k-block's MMAs in flight; the previous one has finished reading its stage.
      if (kb > 0) {
        sm90::wgmma_wait_group<1>();
        release(prev_stage);
      }
      prev_stage = stage;
      ring.advance();
    }
  }

  // The kb_count k-blocks of one work item into acc. between(box) runs after each of the first
  // BOXES k-blocks (all of them at the end when the item has fewer): the epilogue's deferred
  // stores of the previous tile. The k-blocks are issued unconditionally around it: wgmmas under a
  // data-dependent branch make ptxas serialize them (C7520) in the stream-K build. On return
  // every wgmma has completed and every stage is released.
  template <int BOXES, class Between, int TN = BM>
  __device__ __forceinline__ void run(AccReg (&acc)[Acc::REGS], int kb_count, Between&& between,
                                      std::integral_constant<int, TN> = {}) {
#pragma unroll
    for (int i = 0; i < Acc::REGS; ++i) sm90::fence_operand(acc[i]);
    if constexpr (FP8_PIPE) {
      if (kb_count > 0)
        run_fp8_pipelined<BOXES>(acc, kb_count, between);
      else
        static_for<BOXES>([&](auto box) { between(box); });
      GB_SM90_TRACE(2, wg_thread == 0 && consumer == 0);
#pragma unroll
      for (int i = 0; i < Acc::REGS; ++i) sm90::fence_operand(acc[i]);
      return;
    }
    int prev_stage = 0;
    int kb = 0;
    static_for<BOXES>([&](auto box) {
      if (kb < kb_count) k_block<TN>(acc, kb++, prev_stage);
      between(box);
    });
    for (; kb < kb_count; ++kb) k_block<TN>(acc, kb, prev_stage);
    if constexpr (!FP8) {  // FP8: every stage already released
      sm90::wgmma_wait_group<0>();
      release(prev_stage);
    }
    GB_SM90_TRACE(2, wg_thread == 0 && consumer == 0);
#pragma unroll
    for (int i = 0; i < Acc::REGS; ++i) sm90::fence_operand(acc[i]);
  }

  // The kb_count k-blocks of a work item this warpgroup has no rows in (the grouped kernel: its
  // 64 rows all past the group's last): each stage waited for, as run() waits, and released, no
  // wgmma. The release waits for all four warps' waits (named barrier bar_id, the warpgroup's
  // 128 threads): in run() the wgmma, which all of them issue, orders them so, and without the
  // barrier a warp left behind by a lap of the ring read the next lap's full phase as its own,
  // and the walk hung (64 skewed groups on 3 CTAs, bench_results/h200/gpu_logs/
  // 2026-11-29_grouped_skip_hang.txt). The release is one arrival, the warpgroup's.
  __device__ __forceinline__ void skip(int kb_count, uint32_t bar_id) {
    for (int kb = 0; kb < kb_count; ++kb) {
      sm90::mbarrier_wait_parity(ring.full(ring.stage), ring.phase);
      sm90::named_barrier_sync(bar_id, 128);
      release(ring.stage);
      ring.advance();
    }
  }
};

#endif  // GEMMBENCH_SM90A

}  // namespace
}  // namespace gemmbench
