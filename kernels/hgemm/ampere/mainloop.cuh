// Mainloop pieces of the Ampere HGEMM kernel: g2s (OperandCopy: 16-byte cp.async into the
// STAGES-deep swizzled ring), s2r (ldmatrix, .trans for an MN-major tile), the per-kernel
// constants (AmpereKernel) and the copy modes.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "common/ptx.cuh"
#include "hgemm/ampere/config.cuh"
#include "hgemm/ampere_index.hpp"

namespace gemmbench::hgemm {

// One operand's global->shared copy state for one thread: CopyMap says which chunks it moves.
// A K-major operand is stored (rows_total, K) with ld = K; an MN-major one (K, rows_total) with
// ld = rows_total. Rows outside the matrix and k beyond K are zero-filled (src-size 0, source
// address = the tensor's base so it is always valid).
template <int ROWS, int BK, int THREADS, bool K_MAJOR>
struct OperandCopy {
  using Map = CopyMap<ROWS, BK, THREADS, K_MAJOR>;
  const __half* base;   // tensor start: the valid address behind zero-fill copies
  const __half* src;    // iteration-0 chunk of the next k-tile to copy
  int64_t line_stride;  // elements between a thread's iterations
  int64_t tile_stride;  // elements between k-tiles
  uint32_t smem_off;    // bytes, iteration-0 chunk within a stage
  int lines_left;       // K-major: rows left from the iteration-0 row; MN-major: k-rows left
  int k_left;           // K-major: K minus the next tile's chunk k (chunk valid while > 0)
  bool chunk_ok;        // MN-major: the chunk's 8 elements along M/N lie inside the matrix

  __device__ __forceinline__ OperandCopy(const __half* tensor, int rows_total, int K, int row0,
                                         int tid) {
    const RowK c = Map::start(tid);
    base = tensor;
    smem_off = 2u * SmemTile<ROWS, BK, K_MAJOR>::offset(c.row, c.k);
    if constexpr (K_MAJOR) {
      line_stride = int64_t(Map::kStep) * K;
      tile_stride = BK;
    } else {
      line_stride = int64_t(Map::kStep) * rows_total;
      tile_stride = int64_t(BK) * rows_total;
    }
    restart(rows_total, K, row0, tid);
  }
  // Point the copies at k-tile 0 of the tile starting at row `row0` (the persistent schedule's
  // next tile); the strides and the shared offset stay.
  __device__ __forceinline__ void restart(int rows_total, int K, int row0, int tid) {
    const RowK c = Map::start(tid);
    if constexpr (K_MAJOR) {
      src = base + int64_t(row0 + c.row) * K + c.k;
      lines_left = rows_total - (row0 + c.row);
      k_left = K - c.k;
      chunk_ok = true;
    } else {
      src = base + int64_t(c.k) * rows_total + row0 + c.row;
      lines_left = K - c.k;
      k_left = 0;
      chunk_ok = row0 + c.row < rows_total;
    }
  }

  // Copy iterations [i0, i1) of the next k-tile into the stage at shared address `stage`
  // (i0, i1 are compile-time after unrolling). INSIDE: the caller knows every chunk lies in the
  // matrix (a whole k-tile of a CTA tile inside M and N), so no chunk is predicated or redirected.
  template <bool INSIDE = false>
  __device__ __forceinline__ void copy(uint32_t stage, int i0, int i1) const {
#pragma unroll
    for (int i = 0; i < Map::kIters; ++i) {
      if (i < i0 || i >= i1) continue;
      const uint32_t dst = stage + smem_off + 2u * i * Map::kSmemStep;
      if constexpr (INSIDE) {
        ptx::cp_async_16(dst, src + i * line_stride);
      } else {
        const bool ok = K_MAJOR ? (i * Map::kStep < lines_left && k_left > 0)
                                : (chunk_ok && i * Map::kStep < lines_left);
        ptx::cp_async_16(dst, ok ? src + i * line_stride : base, ok ? 16 : 0);
      }
    }
  }
  // Move on to the k-tile after (once per k-tile, after its last copy).
  __device__ __forceinline__ void advance() {
    src += tile_stride;
    if constexpr (K_MAJOR) {
      k_left -= BK;
    } else {
      lines_left -= BK;
    }
  }
  // Copy the whole next k-tile (predicated unless INSIDE) and move on to the one after.
  template <bool INSIDE = false>
  __device__ __forceinline__ void copy_next(uint32_t stage) {
    copy<INSIDE>(stage, 0, Map::kIters);
    advance();
  }
};

// Load block b (16 rows x 16 k) of step kk of a warp's operand slab with one ldmatrix.x4;
// .trans for an MN-major tile. `lane_base` are the LdsmOffsets bases as shared addresses of the
// current stage.
template <class Off, bool K_MAJOR>
__device__ __forceinline__ void load_block(uint32_t (&frag)[4],
                                           const uint32_t (&lane_base)[Off::kBases], int b,
                                           int kk) {
  const uint32_t addr = lane_base[Off::base_index(b, kk)] + 2u * Off::const_offset(b, kk);
  if constexpr (K_MAJOR) {
    ptx::ldmatrix_x4(frag, addr);
  } else {
    ptx::ldmatrix_x4_trans(frag, addr);
  }
}

// Load one k-step's fragments of a warp's operand slab: BLOCKS ldmatrix.x4, or blocks
// [first, last) only when given (compile-time after unrolling).
template <class Off, bool K_MAJOR, int BLOCKS>
__device__ __forceinline__ void load_fragments(uint32_t (&frag)[BLOCKS][4],
                                               const uint32_t (&lane_base)[Off::kBases], int kk,
                                               int first = 0, int last = BLOCKS) {
#pragma unroll
  for (int b = 0; b < BLOCKS; ++b) {
    if (b >= first && b < last) load_block<Off, K_MAJOR>(frag[b], lane_base, b, kk);
  }
}

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
struct AmpereKernel {
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  static constexpr int THREADS = Cfg::THREADS, WM = Cfg::WM, WN = Cfg::WN;
  static constexpr int MI = Cfg::MI, NI = Cfg::NI, NB = Cfg::NB, KI = Cfg::KI;
  using TileA = SmemTile<BM, BK, A_K_MAJOR>;
  using TileB = SmemTile<BN, BK, B_K_MAJOR>;
  using CopyA = OperandCopy<BM, BK, THREADS, A_K_MAJOR>;
  using CopyB = OperandCopy<BN, BK, THREADS, B_K_MAJOR>;
  using OffA = LdsmOffsets<BM, BK, A_K_MAJOR, true, MI>;   // registers = mma a0..a3
  using OffB = LdsmOffsets<BN, BK, B_K_MAJOR, false, NB>;  // registers = {b0,b1} x 2 n8 tiles
  static constexpr int STAGE_BYTES_A = TileA::kElems * 2;
  static constexpr int STAGE_BYTES_B = TileB::kElems * 2;
  // The order of a warp's MI x NI mma within a k-step (the plain double-buffered loop): f16
  // accumulators rows outer (each A fragment serves NI mma in a row), f32 accumulators columns
  // outer (each B fragment serves MI mma in a row). Measured on the persistent 128x256x64 tile
  // (H100, TN 5120x4096x4096, 2026-11-24_mma_order_5120_r1..r6.json, git c60699b and working-tree
  // builds of the same experiment): f32 columns outer 0.633-0.638x against rows outer
  // 0.606-0.610x in the same six runs (+4-5%), ahead of three other orders (row pairs outer
  // 0.623x, B blocks outer 0.616-0.617x, rows outer in plain order 0.601-0.604x) and of columns
  // outer with the rows in plain order (0.631x); f16 rows outer 0.743-0.746x against columns
  // outer 0.740-0.741x in four of them. Nsight Compute (2026-11-24_ncu_f32_copy_interference.txt,
  // section 7): the f32 tensor pipe active 87.3% instead of 83.2%, MIO-throttle stalls per issued
  // instruction 0.12 instead of 0.61. Why the order moves them is not established here.
  static constexpr bool COLS_OUTER = sizeof(AccT) == 4;

  // Epilogue staging: the fewest passes (over each warp's n8 tiles) whose (BM, BN/PASSES)
  // column-major AccT tile fits in the pipeline's shared memory, which it reuses.
  static constexpr int ACC_BYTES = int(sizeof(AccT));
  static constexpr int staging_bytes(int passes) {
    return (BN / passes) * (BM + 16 / ACC_BYTES) * ACC_BYTES;
  }
  static constexpr int pick_passes() {
    for (int p = 1; p <= NI; p *= 2) {
      if (NI % p == 0 && staging_bytes(p) <= Cfg::PIPE_BYTES) return p;
    }
    return 0;
  }
  static constexpr int PASSES = pick_passes();
  static_assert(PASSES > 0, "the epilogue staging tile must fit in the pipeline's shared memory");
  using Stage = StageMap<BM, WN, PASSES, ACC_BYTES>;
  static constexpr int SC = BN / PASSES;  // staged columns per pass
  static constexpr int STORE_ITERS = (BM / 8) * SC / THREADS;
  static_assert((BM / 8) * SC % THREADS == 0,
                "the staged tile's 16-byte column pieces must split evenly over the threads");
  static constexpr int SMEM_BYTES = Cfg::SMEM_BYTES;
  // Persistent schedule: each thread stores STORE_PIECES 16-byte pieces of a staged tile.
  static constexpr int STORE_PIECES = (BM / 8) * BN / THREADS;
  static_assert(!Cfg::PERSISTENT || (BM / 8) * BN % THREADS == 0,
                "the staged tile's 16-byte pieces must split evenly over the threads");
};

// How a k-tile's global->shared copies go: every chunk predicated (zero-filled outside the
// matrix), or none (the k-tile lies wholly inside it).
enum class CopyMode { predicated, inside };
template <CopyMode M>
using CopyModeC = std::integral_constant<CopyMode, M>;

}  // namespace gemmbench::hgemm
