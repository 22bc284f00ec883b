// The FP8 Hopper rungs' consumer mainloop (fp8gemm/sm90_persistent.cu; the grouped kernel,
// fp8gemm/grouped.cu): a consumer warpgroup's walk over the ring for one tile, wgmma FP8 into a
// partial per k-block, promoted into f32 sums with the scales (F2Mainloop), with what it needs:
// the tile sizes, rung F3's variants and configuration (F3Cfg), F2's scale-slot order. Moved here
// unchanged from sm90_persistent.cu so that a second translation unit runs the same mainloop; the
// dense kernels' machine code did not change with the move (scripts/dev/sass_diff.sh: its 145
// sm_90a functions identical).
//   stage s (MROWS, rung F3): A (BM, 128 B) at s_a + s * A_STAGE_BYTES, wgmma's A, 64 rows per
//                             consumer; B (BN, 128 B) at s_b + s * B_STAGE_BYTES, wgmma's B
#pragma once

#include <cstdint>

#include "common/sm90.cuh"
#include "common/static_for.cuh"
#include "common/sm90/config.hpp"
#include "common/sm90/pipeline.cuh"
#include "common/sm90/tma_desc.hpp"
#include "core/types.hpp"

namespace gemmbench {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 128;  // kBK e4m3 elements: one 128-byte swizzle row
static_assert(kBK == int(kScaleBlock) && kBN == int(kScaleBlock),
              "a k-block is one scale block along K, and a tile's rows of B one block of B");
// Rung F3's variants (V): kF3 the rung; kF3Pipe (_pipe) each warpgroup's promotion of k-block
// kb under its own wgmmas of kb + 1; kF3N192 (_n192) a B tile of 192 rows (wgmma m64n192k32);
// kF3Tall (_m256, _m256c2) an A tile of 256 rows, 128 per consumer warpgroup in two 64-row
// halves, on clusters of CLUSTER CTAs along N that share it (multicast); kF3Narrow (_m64)
// an A tile of 64 rows that both consumers share, each taking half of the 128-row B tile
// (wgmma m64n64k32), 8 stages: DeepGEMM's 64-row tile at M 64-128 (issue 50).
// kF3Narrow64 and kF3Narrow32: _m64's tile with 64 or 32 rows of B (wgmma m64n32k32, m64n16k32),
// the widths m64_tile_n picks where 128-row tiles would split many ways. kF3NarrowPlain: _m64's
// 128-row-of-B tile with the promotion a k-block at a time (F3's loop), where K is short
// (m64_pipelined_promotion).
// kF3TmaScales, a flag or'ed onto kF3Tall (_m256c2ts, issue 50's experiment) and onto the narrow
// tiles on clusters (_m64c2 where the scale maps take it, launch_m64c2): A's block scales of a
// k-block come by TMA with its stage (F3Cfg's TMA_SCALES) instead of from global memory in the
// consumers. A flag rather than a variant of its own, so that every test of the variant reads
// f3_base(V) and means the same tile with or without it. kF3SkipPastM, a flag or'ed onto the
// narrow tiles on clusters (_m64c2): Sm90Producer's SKIP_PAST_M. kF3OneConsumer, a flag or'ed
// onto the narrow tiles (_m64c2's e4m3 x e4m3 block128): F3Cfg's one consumer warpgroup on the
// tile's 64 rows of A and all its rows of B. kF3Narrow16 (_m64c2's one consumer only, where
// m64c2_tile_n picks it): the 64-row tile with 16 rows of B (wgmma m64n16k32).
enum F3Variant : int {
  kF3 = 0,
  kF3Pipe = 1,
  kF3N192 = 2,
  kF3Tall = 3,
  kF3Narrow = 4,
  kF3Narrow64 = 5,
  kF3Narrow32 = 6,
  kF3NarrowPlain = 7,
  kF3Narrow16 = 8,
  kF3TmaScales = 16,
  kF3SkipPastM = 32,
  kF3OneConsumer = 64
};
constexpr int f3_base(int v) {
  return v & ~int(kF3TmaScales | kF3SkipPastM | kF3OneConsumer);
}
constexpr bool f3_one_consumer(int v) {
  return (v & int(kF3OneConsumer)) != 0;
}
constexpr bool f3_skip_past_m(int v) {
  return (v & int(kF3SkipPastM)) != 0;
}
constexpr bool f3_tma_scales(int v) {
  return (v & int(kF3TmaScales)) != 0;
}
// Rung F3's configuration, the tile turned around: A's BM rows (BM / 2 per consumer warpgroup, in
// 64-row halves: wgmma's M) by BN rows of B (wgmma's N), whole k-blocks of 128 bytes; the
// epilogue's staging is BN / 64 boxes of 64 x 64 per consumer, written once per half. 128 x 128:
// 6 stages (as F2's Sm90Config<128, 128, 6, 1> lays them out); 128 x 192: 4 stages of 40 KB beside
// 48 KB of boxes; 256 x 128: 4 stages of 48 KB beside 32 KB of boxes; 64 x 128 (SPLIT_N: both
// consumers on the 64 rows of A, each on 64 rows of B, one box each): 8 stages of 24 KB beside
// 16 KB of boxes; 64 x 64 and 64 x 32 (each consumer on 32 or 16 rows of B): 8 stages of 16 or
// 12 KB and no boxes (the fragment is stored straight to C).
// CLUSTER CTAs neighbours along N share the A tile: each loads BM / CLUSTER of its rows and
// multicasts them to all (the A traffic from L2 divided by CLUSTER), and the stage's full barrier
// counts the whole tile's bytes.
// TMA_SCALES (_m256c2ts, _m64c2's TMA path): A's block scales come by TMA, a box of (rows,
// SA_BOX_KB k-blocks) f32 of the row-major scale_a ([M, KB]), 16 bytes a row: TMA's narrowest box
// along the contiguous dimension. It starts on a multiple of 4 k-blocks (rowmajor_f32_box_col:
// _m64ts's box at the stage's own k-block faulted, TMA's 16-byte aligned start), so one box holds 4
// k-blocks' scales: it is loaded with every fourth k-block's stage (K % 512 == 0: every tile's walk
// is whole boxes) into one of SA_SLOTS slots (after the epilogue's boxes) in turn, and counted on
// that stage's full barrier; the consumers read k-block kb's column from the slot of its box. On a
// cluster each CTA loads its own A slice's rows of the box and multicasts them, as A's rows: each
// CTA's full barrier counts the whole box (both halves). A slot is refilled 4 SA_SLOTS k-blocks
// after it was filled, with the stage of k-block 4(g + SA_SLOTS), whose load waits on the empty
// barrier that every consumer warp of both CTAs released up to k-block 4(g + SA_SLOTS) - STAGES:
// past the last read of box g (k-block 4g + 3) with 2 slots at 3 stages (4g + 5) and 3 at 8 (4g +
// 4); no barrier of its own. (With 2 slots beside 8 stages the refill would wait only for 4g: a
// race.) (Until 2026-11-29 each stage carried its own box of the tile's whole 256 rows, not
// multicast: 256 sectors of 32 bytes a CTA a k-block, 22% more L2 reads than DeepGEMM at
// 4096x7168x16384 for the same tiles; docs/fp8.md.)
// CONSUMERS_ (_m64c2 on e4m3 x e4m3 block128): one consumer warpgroup on the 64-row tiles, on
// all of B's rows (wgmma m64n32k32 at 64x32, DeepGEMM's shape), two elsewhere.
template <int BM_, int BN_, int STAGES_, int CLUSTER_ = 1, bool TMA_SCALES_ = false,
          int CONSUMERS_ = 2>
struct F3Cfg {
  static constexpr int BM = BM_, BN = BN_, STAGES = STAGES_, CLUSTER = CLUSTER_,
                       CONSUMERS = CONSUMERS_;
  static constexpr int THREADS = 128 * (1 + CONSUMERS);  // the producer warpgroup and these
  static constexpr int WG_N = 64;                        // wgmma's M: rows of A per instruction
  // A 64-row tile: the consumers share A's rows and split B's (kF3Narrow).
  static constexpr bool SPLIT_N = BM == WG_N;
  static constexpr int NW = SPLIT_N ? BN / CONSUMERS : BN;  // wgmma's N: B rows per consumer
  static constexpr int HALVES = SPLIT_N ? 1 : BM / CONSUMERS / WG_N;  // 64-row halves a consumer
  static constexpr bool CLUSTER_M = false;
  static constexpr int A_SLICE_ROWS = BM / CLUSTER, B_SLICE_ROWS = BN;
  static constexpr uint32_t ROW_BYTES = kBK;
  static constexpr uint32_t A_STAGE_BYTES = BM * ROW_BYTES,
                            A_SLICE_BYTES = A_SLICE_ROWS * ROW_BYTES;
  static constexpr uint32_t B_STAGE_BYTES = BN * ROW_BYTES, B_SLICE_BYTES = B_STAGE_BYTES;
  static constexpr bool TMA_SCALES = TMA_SCALES_;
  // Slots enough that box g's slot is refilled (with k-block 4(g + SA_SLOTS)'s stage, after the
  // empty barrier of k-block 4(g + SA_SLOTS) - STAGES) only once its last k-block, 4g + 3, is
  // released: 4 SA_SLOTS >= STAGES + 3. Two beside _m256c2ts's 3 stages, three beside the
  // narrow tiles' 8.
  static constexpr int SA_BOX_KB = 4, SA_SLOTS = TMA_SCALES ? (STAGES + 6) / 4 : 0;
  static constexpr uint32_t SA_ROW_BYTES = SA_BOX_KB * 4;
  static constexpr uint32_t SA_SLOT_BYTES = BM * SA_ROW_BYTES,  // a box of the tile's rows
      SA_SLICE_BYTES = A_SLICE_ROWS * SA_ROW_BYTES;             // a CTA's rows of it
  // B's scales beside A's: the tile's one 128-row block of B, a box of the same 4 k-blocks (16
  // bytes, not multicast: each CTA of a cluster has its own B tile) into a 128-byte slot of its
  // own per A slot, loaded and released with it (exp-ts-b-scales: B's scale was one LDG a thread
  // a k-block, 2.9% of _m256c2ts's warp samples at 4096x7168x16384, docs/fp8.md).
  static constexpr uint32_t SB_BOX_BYTES = SA_ROW_BYTES, SB_SLOT_BYTES = TMA_SCALES ? 128 : 0;
  static_assert(SA_BOX_KB == 4, "a box from rowmajor_f32_box_col(kb) holds k-blocks 4i..4i+3");
  static_assert(SA_SLOTS == 0 || SA_BOX_KB * SA_SLOTS >= STAGES + 3,
                "a slot is refilled 4 SA_SLOTS k-blocks after its box was loaded: the empty "
                "barrier the refilling stage waits on must cover the box's last k-block");
  // STAGE_BYTES: the operands of a stage; TX_BYTES: what its full barrier counts (the scale
  // box's bytes are armed beside them with every fourth k-block: Sm90Producer's tx_bytes).
  static constexpr uint32_t STAGE_BYTES = A_STAGE_BYTES + B_STAGE_BYTES, TX_BYTES = STAGE_BYTES;
  static constexpr int EPI_BOX = 64, EPI_BUFS = NW / EPI_BOX;  // a consumer's boxes (0: none)
  static constexpr uint32_t EPI_BUF_BYTES = EPI_BOX * EPI_BOX * 2;
  static constexpr int SMEM_BYTES = STAGES * int(STAGE_BYTES) +
                                    CONSUMERS * EPI_BUFS * int(EPI_BUF_BYTES) +
                                    SA_SLOTS * int(SA_SLOT_BYTES + SB_SLOT_BYTES) + 1024;
  static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;
  static_assert(NW == 16 || NW == 32 || NW == 64 || NW == 128 || NW == 192,
                "wgmma m64n{16,32,64,128,192}k32");
  static_assert(
      (BM == 64 && (BN == 128 || BN == 64 || BN == 32 || (BN == 16 && CONSUMERS == 1))) ||
          ((BM == 128 || BM == 256) && (BM == 128 || BN == 128)),
      "a consumer holds one or two 64-row halves; two only beside 128 rows of B (the "
      "sums of both halves and one partial: 192 registers); 64 rows beside 128, 64 or 32 of B, "
      "or 16 with one consumer (wgmma's narrowest N)");
  static_assert(CLUSTER >= 1 && CLUSTER <= 2 && A_SLICE_BYTES % 1024 == 0,
                "each CTA's slice of the shared A tile is whole 8-row swizzle atoms");
  static_assert(SMEM_BYTES <= 227 * 1024, "the SM's shared memory");
  static_assert(CONSUMERS == 2 || (CONSUMERS == 1 && BM == WG_N),
                "one consumer warpgroup on the 64-row tiles only (a 64-row half each)");
  static_assert(!TMA_SCALES || BM <= 256, "a TMA box has at most 256 rows: the tile's rows");
};
// A scale slot: a k-block's 128 A row scales times B's block scale, in the order the consumers
// read them: the scales of a thread's columns m = 8j + 2q + e (j < 16, e < 2) at 16(j/2) + 4q +
// 2(j%2) + e, so that its eight 16-byte loads i = j/2 read 16i + 4q: the four quad positions of
// a warp read 64 contiguous bytes, no bank conflict (32q, one load's addresses 128 B apart, was a
// 4-way conflict and ran block128 at 568 TFLOP/s against 738 at 4096x7168x2048), and no multiply.
[[maybe_unused]] constexpr int kScaleSlot = kBM;
[[maybe_unused]] __host__ __device__ constexpr int scale_slot_index(int m) {
  return 16 * (m / 16) + 4 * ((m % 8) / 2) + 2 * ((m / 8) % 2) + m % 2;
}

// A consumer's wgmma N and whether the consumers split the B tile: rung F3's Cfg::NW and
// Cfg::SPLIT_N; F2's 128 (its 64 rows of B are wgmma's M) and no.
template <class Cfg, bool MROWS>
constexpr int f3_nw() {
  if constexpr (MROWS) return Cfg::NW;
  return 128;
}
template <class Cfg, bool MROWS>
constexpr bool f3_split_n() {
  if constexpr (MROWS) return Cfg::SPLIT_N;
  return false;
}

#if GEMMBENCH_SM90A

// A consumer warpgroup's walk over the ring for one tile: its (64 GEMM-N, 128 GEMM-M) fragment
// of the tile's kb_count k-blocks into acc; between(box) after each of the first BOXES k-blocks
// (the previous tile's deferred stores). On return every wgmma has completed and every stage is
// released.
// MROWS: each consumer takes 64 rows of the A tile (wgmma's A) against the whole B tile (wgmma's
// B); a thread's fragment rows are two rows of A, so block128 needs two A scales and B's one per
// k-block, read from global memory (sa0, sa1, sb: this thread's rows' and the tile's scales along
// K, set per tile) before the stage's wait.
template <ScaleMode S, bool kFast, class Cfg, bool MROWS, int V = 0, DType TA = DType::e4m3,
          DType TB = DType::e4m3>
struct F2Mainloop {
  Sm90Ring<Cfg::STAGES> ring;
  uint32_t s_a, s_b;
  uint32_t s_scale;  // F2, block128: this consumer's (2, kScaleSlot) floats, shared-window address
  int consumer, lane, q;
  const float* sa0 = nullptr;  // MROWS, block128: scale_a of the thread's rows (h = 0, 1), per kb
  const float* sa1 = nullptr;
  const float* sa2 = nullptr;  // kF3Tall: the rows of the second half (h = 0, 1)
  const float* sa3 = nullptr;
  const float* sb = nullptr;  // MROWS, block128: scale_b of the tile's 128 rows of B, per kb
  // _n192: a 192-row B tile spans two blocks of B: sb (its first rows), sb_hi (the rest), and
  // the thread's columns j = 8..15 are in sb's block when the tile starts on a block (mid_lo).
  const float* sb_hi = nullptr;
  bool mid_lo = true;
  // kTmaScales (_m256c2ts, _m64c2's TMA path): A's scale slots (slot i at s_sa + i * SA_SLOT_BYTES,
  // F3Cfg) and the offset in a slot of this thread's first row (half 0, h = 0; h = 1 is 8 rows
  // further, half 1 64); the tile's first k-block in K (sa_kb0, set per tile: a slot's column of
  // k-block kb is K's); the k-blocks this consumer has walked, over all its tiles (sa_seq: box
  // sa_seq / 4 is in slot (sa_seq / 4) % SA_SLOTS, as the producer filled them).
  uint32_t s_sa = 0, sa_row = 0, sa_seq = 0;
  uint32_t s_sb = 0;  // kTmaScales: B's slots (slot i at s_sb + i * SB_SLOT_BYTES, F3Cfg)
  int sa_kb0 = 0;
  // F2, block128: the consumer's own scale slots, a k-block ahead. Thread t (wg_thread) stores A's
  // row m0 + t of the tile (sa0; past M or in a padding tile, f2_valid is false: 0) times the
  // tile's B scale (sb) at scale_slot_index(t) of slot (slot + 1) % 2 while k-block slot % 2 is
  // read, and a named barrier of the warpgroup (f2_publish) orders each slot's stores before its
  // reads and its reads before the stores two k-blocks later: an ordering racecheck follows.
  // Loading the products two k-blocks ahead, and a tile's first two before the previous tile's
  // epilogue, bought nothing (0.665x cuBLASLt against 0.656x, bench_results/h100/
  // 2026-11-27_fp8_f2_slot_*) and was removed: the cost is the barrier each k-block and the
  // consumers' own loads and stores, not their latency.
  // (The producer's spare warps filled per-stage slots before, handed over by the stage's
  // mbarriers: ordered as well, but racecheck reported each slot's stores and loads as hazards,
  // bench_results/h100/gpu_logs/2026-11-27_fp8_gpu_checks.txt.)
  int wg_thread = 0;
  bool f2_valid = false;
  uint32_t slot = 0;  // k-blocks of the consumer's walk so far
  // wgmma's N (rung F3: the consumer's rows of the B tile) and the fragment's registers.
  static constexpr int NW = f3_nw<Cfg, MROWS>();
  static constexpr int NACC = NW / 2;
  static constexpr bool kSplitN = f3_split_n<Cfg, MROWS>();  // kF3Narrow: 64 of 128 B rows
  static constexpr bool kTmaScales = MROWS && f3_tma_scales(V);

  // Every warp arrives on the stage's empty barrier of each CTA that loaded into it (lane r: CTA
  // r of the cluster) once its own reads are done: the wgmmas' (completed by each lane's wait),
  // ordered before the arrival by the __syncwarp.
  __device__ __forceinline__ void release(int s) {
    __syncwarp();
    if constexpr (Cfg::CLUSTER > 1) {
      if (lane < Cfg::CLUSTER) sm90::mbarrier_arrive_cluster(ring.empty(s), uint32_t(lane));
    } else {
      if (lane == 0) sm90::mbarrier_arrive(ring.empty(s));
    }
  }
  // The full barrier of the ring's next stage, polled ahead (poll_next) and waited on (wait_full).
  // A consumer's promotion of k-block kb runs 64 FFMAs a thread on registers alone; polling kb +
  // 1's stage before them lets the poll's latency pass under them, where a wait at the top of the
  // next k-block stalled the warp on it (the branch after SYNCS.PHASECHK: 9.5% of _m256c2's warp
  // samples, bench_results/h200/gpu_logs/2026-11-29_ncu_source_m256c2.csv.gz). DeepGEMM's
  // compiled loop has the poll there: its k-loop is unrolled over the stages, so ptxas hoists each
  // stage's poll above the previous stage's FFMAs. `polled`: the poll of the ring's current stage
  // and phase saw the phase complete. In a kernel that polls, every wait on a stage goes through
  // wait_full, which consumes it, and every advance of the ring follows a wait_full, so a poll
  // never stands for another stage's wait.
  // Only where no wgmma is in flight (after a wait_group<0>): with one in flight across it, as in
  // run_pipelined, the branch around the wait made ptxas serialize the wgmmas (C7518), with the
  // early poll by test_wait or by try_wait alike, so the pipelined walk waits as before
  // (issue_next) and never polls. Measured (H200, each alone at steady state, DeepGEMM's six
  // shapes at M 4096, block128): _m256c2ts 1.036x its time without the poll (1.015-1.064x),
  // _m256c2 1.005x, _n192 1.003x, the non-polling _pipe 1.000x
  // (bench_results/h200/2026-11-29_fp8_poll_ab_compare.txt.gz).
  bool polled = false;
  __device__ __forceinline__ void poll_next() {
    polled = sm90::mbarrier_test_wait_parity(ring.full(ring.stage), ring.phase);
  }
  __device__ __forceinline__ void wait_full() {
    if (!polled) sm90::mbarrier_wait_parity(ring.full(ring.stage), ring.phase);
    polled = false;
  }
  // The k-block's wgmmas of stage `stage` into d, without the fence and commit around them (issue).
  // h: which 64-row half of the consumer's rows of A (kF3Tall's 256-row tiles: two).
  __device__ __forceinline__ void issue_wgmmas(float (&d)[NACC], int stage, bool first, int h) {
    // wgmma's A: 64 rows of one operand tile, this consumer's; its B: the other tile, 128 rows.
    // kSplitN: A's 64 rows for both consumers, each its own 64 rows of B.
    constexpr int kOwnRows = kSplitN ? 0 : MROWS ? Cfg::BM / Cfg::CONSUMERS : Cfg::WG_N;
    const uint32_t own =
        (MROWS ? s_a + stage * Cfg::A_STAGE_BYTES : s_b + stage * Cfg::B_STAGE_BYTES) +
        (consumer * kOwnRows + h * Cfg::WG_N) * Cfg::ROW_BYTES;
    const uint32_t all =
        (MROWS ? s_b + stage * Cfg::B_STAGE_BYTES : s_a + stage * Cfg::A_STAGE_BYTES) +
        (kSplitN ? consumer * NW * Cfg::ROW_BYTES : 0);
    const uint64_t desc_a = sm90::wgmma_desc_sw128_kmajor(own);  // (64, 128)
    const uint64_t desc_b = sm90::wgmma_desc_sw128_kmajor(all);  // (NW, 128)
#pragma unroll
    for (int ks = 0; ks < kBK / 32; ++ks) {
      const uint64_t da = sm90::wgmma_desc_advance(desc_a, uint32_t(32 * ks));
      const uint64_t db = sm90::wgmma_desc_advance(desc_b, uint32_t(32 * ks));
      // The kind: wgmma's A is GEMM A with MROWS (rung F3), GEMM B in F2's orientation.
      constexpr DType KA = MROWS ? TA : TB, KB = MROWS ? TB : TA;
      sm90::wgmma_m64k32_fp8_f32<KA, KB, NW>(d, da, db, first && ks == 0 ? 0 : 1);
    }
  }
  __device__ __forceinline__ void issue(float (&d)[NACC], int stage, bool first, int h = 0) {
    sm90::wgmma_fence();
    issue_wgmmas(d, stage, first, h);
    sm90::wgmma_commit_group();
  }

  // MROWS, block128: k-block kb's factors of the thread's two rows (h) in B's first block (f0,
  // f1) and, _n192, its second (g0, g1); columns j = 8..15 take m0, m1 (either). 1 elsewhere.
  struct Factors {
    float f0 = 1.f, f1 = 1.f, m0 = 1.f, m1 = 1.f, g0 = 1.f, g1 = 1.f;
  };
  __device__ __forceinline__ Factors block_factors(int kb) const {
    Factors f;
    if constexpr (MROWS && S == ScaleMode::block128) {
      const float a0 = __ldg(sa0 + kb), a1 = __ldg(sa1 + kb), b = __ldg(sb + kb);
      f.f0 = a0 * b, f.f1 = a1 * b, f.m0 = f.f0, f.m1 = f.f1;
      if constexpr (NW == 192) {
        const float bh = __ldg(sb_hi + kb);
        f.g0 = a0 * bh, f.g1 = a1 * bh;
        f.m0 = mid_lo ? f.f0 : f.g0, f.m1 = mid_lo ? f.f1 : f.g1;
      }
    }
    return f;
  }
  // F3 and _sk (128 rows of B), block128: k-block kb's scales as read, read a k-block ahead of
  // their use (k_block_promoted), and the factors they give.
  struct Scales {
    float a0 = 1.f, a1 = 1.f, b = 1.f;
  };
  __device__ __forceinline__ Scales block_scales(int kb) const {
    Scales s;
    if constexpr (MROWS && S == ScaleMode::block128 && !kTmaScales)  // else the stage's slots
      s.a0 = __ldg(sa0 + kb), s.a1 = __ldg(sa1 + kb), s.b = __ldg(sb + kb);
    return s;
  }
  // kTmaScales: B's scale of k-block kb (b: the same column of B's slot, one float the warp reads
  // as a broadcast) and A's scales of k-block kb (of the tile's walk) for this thread's four rows
  // (a[2 hf + h]: half hf, row h) from the slot of its box: read after kb's full-barrier wait (the
  // box came with the first k-block of its four, whose wait came first) and before kb's release
  // (the slot is refilled only after its box's last k-block is released, F3Cfg). The box starts at
  // rowmajor_f32_box_col of kb's index in K (the producer's): kb's column is that index's offset
  // in it. A quad reads one row (a broadcast) and a warp's 8 rows 16 bytes apart: no bank
  // conflict. Counts the k-block (sa_seq).
  __device__ __forceinline__ void slot_scales(float (&a)[4], float& b, int kb) {
    if constexpr (kTmaScales) {
      static_assert(
          Cfg::TMA_SCALES && (Cfg::HALVES == 2 || Cfg::SPLIT_N) && S == ScaleMode::block128,
          "A's scales by TMA: the 256-row tile's block128 promotion (_m256c2ts), or "
          "the 64-row tile's (_m64c2: one half, every consumer on its rows)");
      const int k = sa_kb0 + kb;
      const uint32_t slot = (sa_seq / Cfg::SA_BOX_KB) % Cfg::SA_SLOTS;
      ++sa_seq;
      const uint32_t in_box = uint32_t(k - rowmajor_f32_box_col(k)) * 4;
      const uint32_t col = s_sa + slot * Cfg::SA_SLOT_BYTES + sa_row + in_box;  // (BM, 4) f32
      b = sm90::ld_shared_f32(s_sb + slot * Cfg::SB_SLOT_BYTES + in_box);       // a broadcast
#pragma unroll
      for (int hf = 0; hf < Cfg::HALVES; ++hf)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          a[2 * hf + h] =
              sm90::ld_shared_f32(col + uint32_t(Cfg::WG_N * hf + 8 * h) * Cfg::SA_ROW_BYTES);
    }
  }
  __device__ __forceinline__ static Factors factors(const Scales& s) {
    static_assert(NW <= 128, "one block of B under the consumer's rows");
    Factors f;
    f.f0 = s.a0 * s.b, f.f1 = s.a1 * s.b, f.m0 = f.f0, f.m1 = f.f1;
    return f;
  }
  // A completed partial into the sums: times the factors with MROWS block scales, as it is with
  // tensor and row scales (applied per tile). F2's block scales have their own loop (the slot).
  __device__ __forceinline__ void add_rows(float (&acc)[NACC], const float (&part)[NACC],
                                           const Factors& f) {
#pragma unroll
    for (int j = 0; j < NW / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int i = 4 * j + 2 * h;
        if constexpr (S == ScaleMode::block128) {
          const float x = j < 8    ? (h ? f.f1 : f.f0)
                          : j < 16 ? (h ? f.m1 : f.m0)
                                   : (h ? f.g1 : f.g0);
          acc[i] = fmaf(part[i], x, acc[i]);
          acc[i + 1] = fmaf(part[i + 1], x, acc[i + 1]);
        } else {
          acc[i] += part[i];
          acc[i + 1] += part[i + 1];
        }
      }
  }

  // F2, block128: k-block kb's scale of this thread's row of A times B's, and its store into the
  // slot k-block k of the walk reads (k % 2), published to the warpgroup.
  __device__ __forceinline__ float f2_scale(int kb) const {
    return f2_valid ? __ldg(sa0 + kb) * __ldg(sb + kb) : 0.f;
  }
  __device__ __forceinline__ void f2_publish(float v, uint32_t k) {
    sm90::st_shared_f32(
        s_scale + uint32_t(4 * ((k % 2) * kScaleSlot + scale_slot_index(wg_thread))), v);
    sm90::named_barrier_sync(3 + consumer, 128);  // 1 + consumer: the epilogue's
  }

  // Two-level accumulation: the k-block's partial (a fresh wgmma accumulator) is complete before
  // it is added into acc, times A's and B's block scales with block128.
  // MROWS at 128 rows of B (F3, _sk): the scales of kb were read during k-block kb - 1 (`next`),
  // those of kb + 1 are read now, so a whole k-block's wgmmas hide the loads' latency; read at
  // the start of kb itself, the promotion's multiplies waited on them (ncu's warp samples). Read
  // ahead, F3 block128 ran 1.7-9.7% and _sk 2.3-9.1% faster per layer (bench_results/h100/
  // 2026-11-27_fp8_{f3,sk}_scales_ahead_*). _n192 reads them at the start of kb: read ahead, with
  // four more registers held through the k-block, it ran up to 4.6% slower (_scales_ahead_first_*).
  static constexpr bool kScalesAhead = MROWS && (NW == 128 || kSplitN);
  static_assert(!kScalesAhead || Cfg::BN <= 128, "one block of B under the tile");
  __device__ __forceinline__ void k_block_promoted(float (&acc)[NACC], float (&part)[NACC], int kb,
                                                   Scales& next, int kb_count) {
    const int stage = ring.stage;
    Factors f;
    if constexpr (kScalesAhead)
      f = factors(next);
    else
      f = block_factors(kb);
    // Kept as read: a product formed here would wait on the loads just issued.
    if constexpr (kScalesAhead) next = block_scales(min(kb + 1, kb_count - 1));
    constexpr bool kSlot = !MROWS && S == ScaleMode::block128;
    float ahead = 0.f;  // F2, block128: this thread's scale of k-block kb + 1, for the other slot
    if constexpr (kSlot) ahead = f2_scale(min(kb + 1, kb_count - 1));
    wait_full();
    issue(part, stage, true);
    if constexpr (kTmaScales) f = factors(stage_scales(kb));  // _m64c2's 128-row-of-B tile
    float4 sa[8];  // the block scales of this thread's columns m = 8j + 2q + e, (j, e) in pairs
    if constexpr (kSlot) {
      // By shared-window address: an ld.shared, never a generic load.
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const uint4 u =
            sm90::ld_shared_v4(s_scale + uint32_t(4 * ((slot % 2) * kScaleSlot + 16 * i + 4 * q)));
        sa[i] = make_float4(__uint_as_float(u.x), __uint_as_float(u.y), __uint_as_float(u.z),
                            __uint_as_float(u.w));
      }
    }
    sm90::wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < NACC; ++i) sm90::fence_operand(part[i]);
    release(stage);  // the operands, read by the completed wgmmas
    ring.advance();
    poll_next();  // the next k-block's stage, under this one's promotion
    if constexpr (kSlot) {
      if (kb + 1 < kb_count) f2_publish(ahead, slot + 1);
      ++slot;
    }
    if constexpr (MROWS || S != ScaleMode::block128) {
      add_rows(acc, part, f);
    } else {
#pragma unroll
      for (int j = 0; j < NW / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int i = 4 * j + 2 * h;
          const float4& fs = sa[j / 2];
          acc[i] = fmaf(part[i], j % 2 ? fs.z : fs.x, acc[i]);
          acc[i + 1] = fmaf(part[i + 1], j % 2 ? fs.w : fs.y, acc[i + 1]);
        }
    }
  }

  // Fast accumulation: one accumulator over all of K; the previous k-block's wgmmas finish while
  // this one's are issued, and release their stage then.
  __device__ __forceinline__ void k_block_fast(float (&acc)[NACC], int kb, int& prev_stage) {
    k_block_fast_by(kb, prev_stage, [&](int stage) { issue(acc, stage, kb == 0); });
  }
  // The same walk with the k-block's wgmmas (one commit group) issued by issue_group(stage).
  template <class IssueGroup>
  __device__ __forceinline__ void k_block_fast_by(int kb, int& prev_stage,
                                                  IssueGroup&& issue_group) {
    const int stage = ring.stage;
    wait_full();
    issue_group(stage);
    if (kb > 0) {
      sm90::wgmma_wait_group<1>();
      release(prev_stage);
    }
    prev_stage = stage;
    ring.advance();
  }

  // Pipelined promotion (V == kF3Pipe at 128 rows of B; the narrow tiles, kSplitN): k-block
  // kb + 1's wgmmas go into the other partial before kb's is added, so a warpgroup's promotion
  // and its wait for kb's completion run while its own next wgmmas do. At 128 rows of B (two
  // partials and the sums: 192 registers, under the consumers' setmaxnreg) kb's factors are read
  // as kb is issued. The narrow tiles (16 to 64 registers a partial) hold kb + 2's raw scales
  // from the time kb + 1 is issued, a k-block and a half before their multiply: one k-block
  // ahead, the promotion's FMUL waited on those loads (long scoreboard, ncu's source view of
  // 64x2112x7168, bench_results/h200/gpu_logs/2026-11-29_fp8_narrow_pipe_calls.txt.gz).
  static constexpr bool kRawAhead = kSplitN;
  struct Pending {  // a k-block in flight: its stage and its scales (raw or as factors)
    int stage = 0;
    Scales s;
    Factors f;
  };
  __device__ __forceinline__ void issue_next(float (&d)[NACC], int kb, Pending& p) {
    if constexpr (!kRawAhead) p.f = block_factors(kb);
    p.stage = ring.stage;
    sm90::mbarrier_wait_parity(ring.full(ring.stage), ring.phase);  // never polled (poll_next)
    issue(d, ring.stage, true);
    if constexpr (kTmaScales) p.s = stage_scales(kb);  // under the wgmmas, before the release
#pragma unroll
    for (int i = 0; i < NACC; ++i) sm90::fence_operand(d[i]);
    ring.advance();
  }
  // kTmaScales on the 64-row tile (_m64c2's TMA path): k-block kb's raw scales from the slots, this
  // thread's two rows of A (the tile's, both consumers) and B's.
  __device__ __forceinline__ Scales stage_scales(int kb) {
    float a[4] = {1.f, 1.f, 1.f, 1.f}, b = 1.f;
    slot_scales(a, b, kb);
    Scales s;
    s.a0 = a[0], s.a1 = a[1], s.b = b;
    return s;
  }
  // The k-block in `cur` has completed: its stage is released and it is added; with kRawAhead
  // the scales of k-block `ahead` take its place in p.
  __device__ __forceinline__ void retire(float (&acc)[NACC], float (&cur)[NACC], Pending& p,
                                         const Scales& ahead) {
    release(p.stage);
#pragma unroll
    for (int i = 0; i < NACC; ++i) sm90::fence_operand(cur[i]);
    if constexpr (kRawAhead) {
      add_rows(acc, cur, factors(p.s));
      p.s = ahead;
    } else {
      add_rows(acc, cur, p.f);
    }
  }
  __device__ __forceinline__ Scales scales_ahead(int kb, int kb_count) const {
    if constexpr (kRawAhead) return block_scales(min(kb, kb_count - 1));
    return Scales{};
  }
  // Two k-blocks per trip so that each partial is a fixed register array; the trip count, not a
  // branch around each issue, decides how many are issued (a wgmma behind a branch ptxas cannot
  // prove uniform is serialized: C7518).
  __device__ __forceinline__ void run_pipelined(float (&acc)[NACC], int kb_count) {
    static_assert(MROWS && (NW == 128 || kSplitN),
                  "the pipelined promotion is rung F3's at 128 rows of B, or a narrow tile's");
    float p0[NACC], p1[NACC];
#pragma unroll
    for (int i = 0; i < NACC; ++i) acc[i] = 0.f;
    Pending a, b;  // the k-blocks in p0 and p1
    if constexpr (kRawAhead) a.s = scales_ahead(0, kb_count), b.s = scales_ahead(1, kb_count);
    issue_next(p0, 0, a);
    int kb = 0;
    for (; kb + 2 < kb_count; kb += 2) {
      issue_next(p1, kb + 1, b);
      const Scales n0 = scales_ahead(kb + 2, kb_count);
      sm90::wgmma_wait_group<1>();
      retire(acc, p0, a, n0);
      issue_next(p0, kb + 2, a);
      const Scales n1 = scales_ahead(kb + 3, kb_count);
      sm90::wgmma_wait_group<1>();
      retire(acc, p1, b, n1);
    }
    if (kb + 1 < kb_count) {  // two left
      issue_next(p1, kb + 1, b);
      sm90::wgmma_wait_group<1>();
      retire(acc, p0, a, a.s);
      sm90::wgmma_wait_group<0>();
      retire(acc, p1, b, b.s);
    } else {
      sm90::wgmma_wait_group<0>();
      retire(acc, p0, a, a.s);
    }
  }

  // V == kF3Tall: each k-block's two halves in turn through one partial, each added into its own
  // sums as soon as its wgmmas complete (the partials of both and the sums would need 256
  // registers); the other consumer's wgmmas keep the tensor pipe busy meanwhile. The stage is
  // released after the second half's. Fast accumulation: both halves into their sums, one commit
  // group a k-block, the previous k-block's completing while this one's are issued.
  __device__ __forceinline__ void run_tall(float (&acc)[2][NACC], int kb_count) {
    static_assert(MROWS && Cfg::HALVES == 2 && NW == 128, "kF3Tall's 256 x 128 tiles");
    if constexpr (kFast) {
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < NACC; ++i) sm90::fence_operand(acc[h][i]);
      int prev_stage = 0;
      for (int kb = 0; kb < kb_count; ++kb)
        k_block_fast_by(kb, prev_stage, [&](int stage) {
          sm90::wgmma_fence();
          issue_wgmmas(acc[0], stage, kb == 0, 0);
          issue_wgmmas(acc[1], stage, kb == 0, 1);
          sm90::wgmma_commit_group();
        });
      sm90::wgmma_wait_group<0>();
      release(prev_stage);
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < NACC; ++i) sm90::fence_operand(acc[h][i]);
    } else {
      float part[NACC];
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < NACC; ++i) acc[h][i] = 0.f;
      // Block scales: kb + 1's read while kb runs (as F3's kScalesAhead). kTmaScales: none; A's
      // four and B's one come with kb's stage, read from its slots as the first half's wgmmas run.
      float a[4] = {1.f, 1.f, 1.f, 1.f}, b = 1.f;
      const auto read = [&](int kb, float(&ra)[4], float& rb) {
        if constexpr (S == ScaleMode::block128 && !kTmaScales) {
          ra[0] = __ldg(sa0 + kb), ra[1] = __ldg(sa1 + kb);
          ra[2] = __ldg(sa2 + kb), ra[3] = __ldg(sa3 + kb), rb = __ldg(sb + kb);
        }  // kTmaScales: A's and B's come with kb's stage (slot_scales)
      };
      read(0, a, b);
      for (int kb = 0; kb < kb_count; ++kb) {
        const int stage = ring.stage;
        float na[4] = {1.f, 1.f, 1.f, 1.f}, nb = 1.f;
        read(min(kb + 1, kb_count - 1), na, nb);
        wait_full();
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          issue(part, stage, true, h);
          if constexpr (kTmaScales)
            if (h == 0) slot_scales(a, b, kb);
          sm90::wgmma_wait_group<0>();
#pragma unroll
          for (int i = 0; i < NACC; ++i) sm90::fence_operand(part[i]);
          if (h == 1) {
            release(stage);  // the operands, read by both halves' completed wgmmas
            ring.advance();
            poll_next();  // the next k-block's stage, under the second half's promotion
          }
          Factors f;
          f.f0 = a[2 * h] * b, f.f1 = a[2 * h + 1] * b, f.m0 = f.f0, f.m1 = f.f1;
          add_rows(acc[h], part, f);
        }
        if constexpr (!kTmaScales) {
#pragma unroll
          for (int i = 0; i < 4; ++i) a[i] = na[i];
          b = nb;
        }
      }
    }
  }

  // The kb_count k-blocks of a tile this warpgroup has no rows in (the grouped kernel,
  // fp8gemm/grouped.cu: its 64 rows all past the group's last): each stage waited for and
  // released, no wgmma. No barrier beyond the warp's is needed, unlike hgemm's skip (hgemm/sm90/
  // mainloop.cuh, where one arrival stands for the whole warpgroup): here every warp arrives on
  // the stage's empty barrier itself (release: after __syncwarp, so after all its lanes' waits),
  // and the producer refills a stage only once all the consumers' warps have arrived. So no lap
  // of a stage's full barrier completes before every warp has waited on the lap before it: no
  // warp can read the next lap's phase as its own.
  __device__ __forceinline__ void skip(int kb_count) {
    for (int kb = 0; kb < kb_count; ++kb) {
      const int stage = ring.stage;
      wait_full();
      release(stage);
      ring.advance();
    }
  }

  template <int BOXES, class Between>
  __device__ __forceinline__ void run(float (&acc)[NACC], int kb_count, Between&& between) {
    // Fast accumulation has no promotion to overlap.
    if constexpr ((f3_base(V) == kF3Pipe || (kSplitN && f3_base(V) != kF3NarrowPlain)) && !kFast) {
      static_assert(BOXES == 0, "rung F3 stores each tile at once");
      run_pipelined(acc, kb_count);
      return;
    }
    int kb = 0, prev_stage = 0;
    if constexpr (kFast) {
#pragma unroll
      for (int i = 0; i < NACC; ++i) sm90::fence_operand(acc[i]);
      static_for<BOXES>([&](auto box) {
        if (kb < kb_count) k_block_fast(acc, kb++, prev_stage);
        between(box);
      });
      for (; kb < kb_count; ++kb) k_block_fast(acc, kb, prev_stage);
      sm90::wgmma_wait_group<0>();
      release(prev_stage);
#pragma unroll
      for (int i = 0; i < NACC; ++i) sm90::fence_operand(acc[i]);
    } else {
      float part[NACC];
#pragma unroll
      for (int i = 0; i < NACC; ++i) acc[i] = 0.f;
      Scales next;
      if constexpr (kScalesAhead) next = block_scales(0);
      if constexpr (!MROWS && S == ScaleMode::block128) f2_publish(f2_scale(0), slot);
      static_for<BOXES>([&](auto box) {
        if (kb < kb_count) k_block_promoted(acc, part, kb, next, kb_count), ++kb;
        between(box);
      });
      for (; kb < kb_count; ++kb) k_block_promoted(acc, part, kb, next, kb_count);
    }
  }
};

#endif  // GEMMBENCH_SM90A

}  // namespace
}  // namespace gemmbench
