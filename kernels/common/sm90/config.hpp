// Compile-time configuration of the Hopper kernel (hgemm_tn_sm90*): tile, ring depth, cluster
// size, the warpgroup roles' register split and the shared-memory plan. Plain C++.
#pragma once

#include <cstdint>

namespace gemmbench {

template <int BM_, int BN_, int STAGES_, int CLUSTER_, bool CLUSTER_M_ = false>
struct Sm90Config {
  static constexpr int BM = BM_;  // GEMM M per CTA tile = wgmma N (8-64: the decode tiles)
  // GEMM N per CTA tile = 64 (wgmma M) per consumer warpgroup. A tile of a width between (16-56,
  // 96, 160 rows: the decode path's weight tile cut to fill the SMs) is PARTIAL: its last consumer
  // still reads 64 rows of the stage, the rows past BN never loaded and their outputs never stored.
  static constexpr int BN = BN_;
  static constexpr int BK = 64;  // one 128-byte swizzle row of 16-bit elements
  static constexpr int STAGES = STAGES_;
  // CTAs per cluster: along N, sharing the A tile (each loads BM/CLUSTER of its rows and multicasts
  // them); with CLUSTER_M along M instead, sharing the B tile (BN/CLUSTER rows each): the decode
  // path's weight tile, read from L2 once for all the tokens of the cluster.
  static constexpr int CLUSTER = CLUSTER_;
  static constexpr bool CLUSTER_M = CLUSTER_M_;
  static constexpr int WG_N = 64;  // GEMM N rows per consumer warpgroup (wgmma M)
  static constexpr bool PARTIAL = BN % WG_N != 0;
  static constexpr int CONSUMERS = (BN + WG_N - 1) / WG_N;
  static constexpr int THREADS = 128 * (1 + CONSUMERS);
  // The in-cluster split's warp blocks (16 GEMM-N rows each, one per consumer warp): a cluster
  // splits a tile in at most that many parts (common/sm90/schedule.hpp, cs_*).
  static constexpr int CS_BLOCKS = CONSUMERS * 4;
  // The split's grid target (cs_parts): the 64-row tile (one consumer) splits for the whole grid,
  // the 128-row tile for half of it, or the whole at 128 tokens and 64 k-blocks up (measured
  // apart).
  static constexpr bool CS_WHOLE_GRID = CONSUMERS == 1;
  static constexpr int A_SLICE_ROWS = CLUSTER_M ? BM : BM / CLUSTER;  // rows of A each CTA loads
  static constexpr int B_SLICE_ROWS = CLUSTER_M ? BN / CLUSTER : BN;  // rows of B each CTA loads
  static constexpr uint32_t ROW_BYTES = BK * 2;
  static constexpr uint32_t A_STAGE_BYTES = BM * ROW_BYTES;
  static constexpr uint32_t A_SLICE_BYTES = A_SLICE_ROWS * ROW_BYTES;
  static constexpr uint32_t B_STAGE_BYTES = CONSUMERS * WG_N * ROW_BYTES;  // PARTIAL: padded
  static constexpr uint32_t B_SLICE_BYTES = B_SLICE_ROWS * ROW_BYTES;
  static constexpr uint32_t STAGE_BYTES = A_STAGE_BYTES + B_STAGE_BYTES;  // shared memory per stage
  static constexpr uint32_t TX_BYTES = A_STAGE_BYTES + BN * ROW_BYTES;    // expect_tx per stage
  // TMA-store epilogue staging, after the stages: per consumer warpgroup EPI_BUFS boxes of
  // (64 GEMM-N rows, 64 GEMM-M = 128 bytes) written by stmatrix, 128B-swizzled, 8 KB each:
  // one box filling while the copy engine reads the other.
  // A tile narrower than one box (BM = 32) stores from registers only and stages nothing.
  static constexpr int EPI_BOX = 64;  // box edge, both dimensions
  // A PARTIAL tile stores from registers too: the box would cross into the next tile's rows.
  static constexpr bool TMA_STORE = BM % EPI_BOX == 0 && !PARTIAL;
  // DEFER: a tile's outputs wait packed in registers (BM/4 of them) and are stored during the next
  // tile's first k-blocks. Three consumers have 160 registers each: a 192-wide accumulator (96)
  // and its packed outputs (48) with the addressing do not fit, so they store at once, one box
  // buffer each (four stages of 48 KB leave no room for two).
  static constexpr bool DEFER = CONSUMERS <= 2;
  static constexpr int EPI_BUFS = DEFER ? 2 : 1;
  static constexpr uint32_t EPI_BUF_BYTES = EPI_BOX * EPI_BOX * 2;
  static constexpr uint32_t EPI_BYTES = TMA_STORE ? CONSUMERS * EPI_BUFS * EPI_BUF_BYTES : 0;
  // + 1024: the dynamic window is aligned up to the 1024-byte swizzle period in the kernel.
  static constexpr int SMEM_BYTES = STAGES * int(STAGE_BYTES) + int(EPI_BYTES) + 1024;
  // The register split (setmaxnreg): one or two consumers 40/232; three 32/160, the whole file.
  static constexpr int PRODUCER_REGS = CONSUMERS <= 2 ? 40 : 32;
  static constexpr int CONSUMER_REGS = CONSUMERS <= 2 ? 232 : 160;

  static_assert(BM == 8 || BM == 16 || BM == 24 || BM == 32 || BM == 40 || BM == 48 || BM == 56 ||
                    BM == 64 || BM == 128 || BM == 192 || BM == 256,
                "BM is wgmma's N: one instruction covers 8-24 and 40-56 (the FP8 decode path's "
                "token tiles fitted to 9-48 and 65-112 tokens), 32, 64, 128, 192 or 256 (the "
                "register epilogue transposes quads of 8-wide chunks and stores a last part quad "
                "pair by pair)");
  static_assert(STAGES >= 2,
                "a consumer keeps one stage's wgmma in flight while it waits for the next: a "
                "1-stage ring deadlocks");
  static_assert(BN % 8 == 0 && BN >= 16 && BN <= 192 && (CONSUMERS < 3 || BM <= 192),
                "whole 8-row swizzle atoms, one to three consumer warpgroups; three hold at most a "
                "192-wide accumulator in 160 registers");
  static_assert(BM % CLUSTER == 0 && BN % CLUSTER == 0 && A_SLICE_BYTES % 1024 == 0 &&
                    B_SLICE_BYTES % 1024 == 0,
                "each CTA's slice of the shared tile must be whole 8-row swizzle atoms (1024 B) "
                "so the multicast slices keep the 128B swizzle phase");
  static_assert(A_SLICE_ROWS <= 256 && BN <= 256, "a TMA box has at most 256 rows");
  static_assert(CLUSTER >= 1 && CLUSTER <= 8, "portable cluster sizes are 1..8");
  static_assert(A_STAGE_BYTES % 1024 == 0 && B_STAGE_BYTES % 1024 == 0 &&
                    (WG_N * ROW_BYTES) % 1024 == 0,
                "every stage and warpgroup operand must start on a 1024-byte swizzle period");
  static_assert(128 * PRODUCER_REGS + 128 * CONSUMERS * CONSUMER_REGS <= 65536,
                "the register split must fit the SM's 64K registers");
  static_assert(SMEM_BYTES + 2 * STAGES * 8 <= 227 * 1024,
                "stages (and epilogue boxes) exceed the 227 KB of shared memory a block may opt "
                "into");
  static_assert(WG_N == EPI_BOX,
                "the TMA-store epilogue cuts a warpgroup's (64, BM) tile into 64x64 boxes");
};

// A k-block of inputs of type TIN (one 128-byte row of a stage): Cfg::BK 16-bit elements, or 128
// 8-bit ones (the FP8 decode path, fp8gemm/decode_sm90.cu).
template <class TIN, class Cfg>
constexpr int sm90_k_block_elems() {
  return sizeof(TIN) == 1 ? 128 : Cfg::BK;
}

}  // namespace gemmbench
