// Index math of the Ampere-class HGEMM (hgemm_tn / hgemm_nn / hgemm_nt / hgemm_tt, rungs 3-4):
// where every element of an operand tile lives in shared memory, which 16-byte chunk each thread
// copies there, which row address each lane hands to ldmatrix, and where each accumulator goes
// in the epilogue's staging tile. Host and device share it (docs/contributing.md#kernels): a test
// replays a CTA's copies, ldmatrix loads and mma fragments against a plain product, counts bank
// conflicts of exactly what the kernel runs.
//
// Vocabulary. An operand tile holds ROWS rows of the operand's M (for A) or N (for B) extent
// and BK columns of K, one pipeline stage of it:
//   K-major  (A in TN/TT, B in TN/NN): stored (ROWS, BK), K contiguous, rows of BK halves.
//            Swizzle<3,3,3> for BK = 64 (128-byte rows), Swizzle<2,3,3> for BK = 32 (64-byte
//            rows, two rows per 128-byte bank line).
//   MN-major (A in NN/NT, B in NT/TT): stored as ROWS/64 blocks of (BK, 64), M (or N)
//            contiguous, rows of 64 halves (128 bytes) indexed by k, Swizzle<3,3,3>.
// In both cases the 16-byte chunk a thread copies and the 16-byte row a lane hands to ldmatrix
// are 8 consecutive elements along the contiguous dimension, and the swizzle permutes those
// chunks within a 128-byte line by the row's low bits: the 8 rows an ldmatrix 8x8 reads and the
// 8 chunks 8 consecutive threads copy land in 8 different 16-byte bank groups.
#pragma once

#include "common/hd.hpp"
#include "common/swizzle.hpp"

namespace gemmbench::hgemm {

// (row, k) of an operand element or of the first element of a 16-byte chunk; row is the M (A)
// or N (B) coordinate.
struct RowK {
  int row;
  int k;
};

// ---- shared-memory tile --------------------------------------------------------------------
template <int ROWS, int BK, bool K_MAJOR>
struct SmemTile {
  static_assert(BK == 32 || BK == 64,
                "BK must be 32 or 64: the swizzles below are written for 64- and 128-byte rows");
  static_assert(K_MAJOR || ROWS % 64 == 0,
                "an MN-major tile is cut into 64-element (128-byte) blocks: ROWS % 64 == 0");
  static_assert(ROWS % 16 == 0, "ROWS must be a multiple of 16 (one ldmatrix.x4 block)");
  static constexpr int kElems = ROWS * BK;  // halves per stage
  // Swizzle of one K-major row block: Swizzle<3,3,3> permutes the 8 chunks of a 128-byte row by
  // row % 8; Swizzle<2,3,3> permutes the 4 chunks of a 64-byte row by (row / 2) % 4, and two
  // such rows share a 128-byte line, so 8 consecutive rows again cover all 8 bank groups.
  using KSwizzle = Swizzle<BK == 64 ? 3 : 2, 3, 3>;
  using MNSwizzle = Swizzle<3, 3, 3>;

  // Element offset of (row, k) within one stage.
  GB_HD static int offset(int row, int k) {
    if constexpr (K_MAJOR) {
      return KSwizzle::apply(row * BK + k);
    } else {
      return (row / 64) * (BK * 64) + MNSwizzle::apply(k * 64 + row % 64);
    }
  }
};

// ---- global -> shared copy: which 16-byte chunk each thread moves --------------------------
// Consecutive threads walk the contiguous dimension first (coalesced 128-byte segments in
// global memory, and one 128-byte bank line per 8 threads in shared memory); iteration i moves
// the thread STEP rows (K-major) or STEP k-rows (MN-major) further.
template <int ROWS, int BK, int THREADS, bool K_MAJOR>
struct CopyMap {
  using Tile = SmemTile<ROWS, BK, K_MAJOR>;
  static constexpr int kChunksPerLine = K_MAJOR ? BK / 8 : ROWS / 8;  // along the contiguous dim
  static constexpr int kLines = K_MAJOR ? ROWS : BK;
  static_assert(THREADS % kChunksPerLine == 0,
                "the thread count must be a multiple of the 16-byte chunks in one tile line, so "
                "each thread keeps one chunk column for every iteration");
  static constexpr int kStep = THREADS / kChunksPerLine;  // lines between a thread's iterations
  static_assert(kLines % kStep == 0, "the tile's lines must split evenly over the iterations");
  static constexpr int kIters = kLines / kStep;
  static_assert(kStep % 8 == 0,
                "a thread's iterations must be a multiple of 8 lines apart, so they share the "
                "swizzle phase and the shared offset of iteration i is offset(0) + i * kSmemStep");
  static constexpr int kSmemStep = K_MAJOR ? kStep * BK : kStep * 64;  // elements

  // (row, k) of the first element of the thread's chunk in iteration 0.
  GB_HD static RowK start(int tid) {
    if constexpr (K_MAJOR) {
      return RowK{tid / kChunksPerLine, (tid % kChunksPerLine) * 8};
    } else {
      return RowK{(tid % kChunksPerLine) * 8, tid / kChunksPerLine};
    }
  }
  GB_HD static RowK at(int tid, int iter) {
    RowK c = start(tid);
    if constexpr (K_MAJOR) {
      c.row += iter * kStep;
    } else {
      c.k += iter * kStep;
    }
    return c;
  }
};

// ---- shared -> register: ldmatrix.x4 row addresses -----------------------------------------
// One ldmatrix.x4 loads a 16 (row) x 16 (k) block as four 8x8 matrices. Lane l addresses row
// l%8 of matrix q = l/8, and register q of every thread (g = lane/4, t = lane%4) receives the
// pair (row g, k 2t..2t+1) of matrix q:
//   K-major  (stored rows are `row`, no .trans): lane row = (row l%8, k 0..7) of matrix q.
//   MN-major (stored rows are `k`, .trans):      lane row = (k l%8, rows 0..7) of matrix q; the
//            transposing load hands out the same (row g, k 2t..2t+1) pairs (seed 002).
// Which 8x8 sits in matrix q is chosen so the registers come out in mma's operand order:
//   A (ROW_FAST): q -> (row half q%2, k half q/2): r0..r3 = a0..a3 of mma m16n8k16
//     (a0 = (g, 2t), a1 = (g+8, 2t), a2 = (g, 2t+8), a3 = (g+8, 2t+8)).
//   B (!ROW_FAST): q -> (row half q/2, k half q%2): {r0, r1} = {b0, b1} of n8 tile 2j and
//     {r2, r3} of n8 tile 2j+1 (b0 = (k 2t, n g), b1 = (k 2t+8, n g)), each a register pair.
template <bool K_MAJOR, bool ROW_FAST>
GB_HD RowK ldsm_lane_origin(int lane) {
  const int q = lane / 8;
  const int row_half = ROW_FAST ? q % 2 : q / 2;
  const int k_half = ROW_FAST ? q / 2 : q % 2;
  if constexpr (K_MAJOR) {
    return RowK{row_half * 8 + lane % 8, k_half * 8};
  } else {
    return RowK{row_half * 8, k_half * 8 + lane % 8};
  }
}

// Per-lane ldmatrix offsets of one warp's operand slab: BLOCKS 16-row blocks starting at row
// `row0`, KI = BK/16 k steps, matrix order ROW_FAST (A) or not (B). The swizzle makes the offset
// non-affine in one of the two indices, so that index gets a precomputed register per value and
// the other is a compile-time stride:
//   K-major:  offset(block b, step kk) = base[kk] + b * 16 * BK   (b*16 rows keep row % 8)
//   MN-major: offset(block b, step kk) = base[b]  + kk * 16 * 64  (kk*16 k-rows keep k % 8)
template <int ROWS, int BK, bool K_MAJOR, bool ROW_FAST, int BLOCKS>
struct LdsmOffsets {
  using Tile = SmemTile<ROWS, BK, K_MAJOR>;
  static constexpr int KI = BK / 16;
  static constexpr int kBases = K_MAJOR ? KI : BLOCKS;
  int base[kBases];  // elements, within one stage

  GB_HD LdsmOffsets(int row0, int lane) {
    const RowK o = ldsm_lane_origin<K_MAJOR, ROW_FAST>(lane);
    for (int i = 0; i < kBases; ++i) {
      base[i] = K_MAJOR ? Tile::offset(row0 + o.row, i * 16 + o.k)
                        : Tile::offset(row0 + i * 16 + o.row, o.k);
    }
  }
  GB_HD static constexpr int base_index(int b, int kk) { return K_MAJOR ? kk : b; }
  GB_HD static constexpr int const_offset(int b, int kk) {  // elements
    return K_MAJOR ? b * 16 * BK : kk * 16 * 64;
  }
  // Element offset of the lane's ldmatrix row for block b, k step kk.
  GB_HD int at(int b, int kk) const { return base[base_index(b, kk)] + const_offset(b, kk); }
};

// Position of accumulator element i (0..3) of an m16n8 tile in thread `lane`: c0, c1 at
// (g, 2t), (g, 2t+1); c2, c3 at (g+8, 2t), (g+8, 2t+1); g = lane/4, t = lane%4.
struct RowCol {
  int row;
  int col;
};
GB_HD RowCol acc_coord(int lane, int i) {
  return RowCol{lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2};
}

// ---- epilogue staging ----------------------------------------------------------------------
// The accumulators are staged through shared memory as a column-major (BM, SC) tile (SC = the
// columns staged in one pass), so the global stores run along M, C's contiguous dimension, in
// 16-byte pieces. A column is padded by 16 bytes: the fragment writes (8 rows g x 4 column
// pairs t per warp) then fall into 32 different banks for float and 16 different words for
// half. Pass p stages, for every warp, its n-tiles [p*NI/P, (p+1)*NI/P).
template <int BM, int WN, int PASSES, int ACC_BYTES>
struct StageMap {
  static constexpr int kColsPerWarp = WN / PASSES;  // staged columns of one warp in one pass
  static constexpr int kLd = BM + 16 / ACC_BYTES;   // column stride, elements
  // Staged column of the accumulator column `n_in_warp` (0..WN) of warp column wn, in its pass.
  GB_HD static int staged_col(int wn, int n_in_warp) {
    return wn * kColsPerWarp + n_in_warp % kColsPerWarp;
  }
  // CTA-relative column of staged column sc in pass p.
  GB_HD static int cta_col(int sc, int pass) {
    return (sc / kColsPerWarp) * WN + pass * kColsPerWarp + sc % kColsPerWarp;
  }
};

}  // namespace gemmbench::hgemm
