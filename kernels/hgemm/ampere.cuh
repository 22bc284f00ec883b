// The Ampere-class HGEMM kernels behind hgemm_tn (rung 3) and hgemm_nn / hgemm_nt / hgemm_tt
// (rung 4), after CuTe's sgemm_sm80 tutorial (seed 000), ldmatrix .trans (seed 002) and the
// rasterization of seed 003.
// Adds over hgemm_mma (rung 2): 16-byte cp.async into a STAGES-deep shared ring (global latency
// hidden), register double-buffering across the BK/16 k-steps (ldmatrix under mma), an XOR
// swizzle instead of padding (no bank conflicts for cp.async or ldmatrix), rasterized tiles (L2
// reuse), edge tiles shifted inside M and N (unpredicated copies), the k-step's mma order by
// accumulate type (COLS_OUTER), C staged through shared memory and stored along M in 16-byte
// pieces, and a persistent schedule (PERSISTENT: one CTA per SM, the ring running on across
// tiles, D drained under the next tile's mma). MN-major operands use ldmatrix .trans.
// Tile (AmpereTile): BM x BN x BK, WARPS_M x WARPS_N warps of (BM/WARPS_M) x (BN/WARPS_N), STAGES;
// shared memory STAGES * (BM + BN) * BK * 2 bytes (+ BN * (BM + 8) * 2 when persistent).
// Constraints (ampere_supports): 16-byte cp.async pieces, so K % 8 == 0 for a K-contiguous
// operand, M % 8 == 0 for an M-contiguous A, N % 8 == 0 for an N-contiguous B; any M, N, K >= 1.
// Measured (H100, 2026-11-24, hgemm_tn TN 5120x4096x4096): f16 acc 0.7492x cuBLAS median, f32
// 0.635x (bench_results/h100/2026-11-24_ampere_acceptance_final.json); history:
// docs/hgemm-ampere.md.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/occupancy.hpp"
#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "hgemm/ampere_index.hpp"
#include "hgemm/fragments.cuh"
#include "registry.hpp"

namespace gemmbench::hgemm {

// Largest rasterization width handed to raster_log_tile (CUTLASS's
// GemmIdentityThreadblockSwizzle<8>).
inline constexpr int kRasterMaxSwizzle = 8;

template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_,
          bool PERSISTENT_ = false>
struct AmpereTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_;
  // Persistent grid (one CTA per SM walks the tiles): the cp.async ring runs on from one tile
  // into the next, and a finished tile is staged as f16 in its own shared buffer, from which its
  // stores drain under the next tile's mma (see the kernel's PERSISTENT path).
  static constexpr bool PERSISTENT = PERSISTENT_;
  static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int WM = BM / WARPS_M;  // warp tile rows
  static constexpr int WN = BN / WARPS_N;  // warp tile columns
  static constexpr int MI = WM / 16;       // m16 tiles per warp = A ldmatrix.x4 blocks
  static constexpr int NI = WN / 8;        // n8 tiles per warp
  static constexpr int NB = WN / 16;       // B ldmatrix.x4 blocks (two n8 tiles each)
  static constexpr int KI = BK / 16;       // k16 steps per k-tile
  static constexpr int PIPE_BYTES = STAGES * (BM + BN) * BK * 2;
  // The persistent schedule's staging tile: D of one tile, (BM,BN) f16 column-major, each
  // column padded by 16 bytes (the fragment stores then hit distinct banks, see StageMap).
  static constexpr int LD_D = BM + 8;
  static constexpr int SMEM_BYTES = PIPE_BYTES + (PERSISTENT ? BN * LD_D * 2 : 0);
  // f32 accumulators of a warp tile above 64x64 take more than 128 of the 255 registers a
  // thread may have, which with the fragments spills: such tiles register f16 accumulation only.
  static constexpr bool F32_ACC = MI * NI * 4 <= 128;
  static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "the warps must split the CTA tile evenly");
  static_assert(WM % 16 == 0,
                "a warp's rows must be whole m16 mma tiles (and A ldmatrix.x4 blocks)");
  static_assert(WN % 16 == 0,
                "a warp's columns must be whole pairs of n8 mma tiles (B ldmatrix.x4)");
  static_assert(KI >= 2,
                "BK must be >= 32: the mainloop refills the stage read in the previous k-tile at "
                "step 0, which is safe only after that tile's last-step barrier, i.e. KI >= 2");
  static_assert(KI % 2 == 0,
                "BK/16 must be even: the next k-tile's step 0 is loaded into register buffer "
                "KI % 2, which step 0 reads as buffer 0");
  static_assert(STAGES >= 2,
                "the cp.async ring needs at least 2 stages to overlap copy and compute");
  static_assert(THREADS <= 1024, "at most 1024 threads per CTA");
};

// The configuration the short names (hgemm_tn, hgemm_nn, hgemm_nt, hgemm_tt) bind to, chosen by
// measurement on the H100 (see the header): CUTLASS's fastest mma.sync f16 CTA shape, 8 warps of
// 64x64 (32 mma per k16 step per warp for 8 ldmatrix.x4), BK = 64 (one barrier per 4 k-steps),
// 3 stages (144 KB) and the persistent schedule (+68 KB staging tile: 212 KB, one CTA per SM).
// Where the device allows less shared memory per block (A100: 163 KB) or the shape does not fit
// the persistent path, the same tile runs one CTA per tile (ampere_run).
using AmpereDefault = AmpereTile<128, 256, 64, 2, 4, 3, true>;

struct AmpereParams {
  int m, n, k;
  const __half* a;  // op(A), layout-dependent, lda packed
  const __half* b;  // op(B), layout-dependent, ldb packed
  __half* c;        // (M,N) column-major
  float alpha, beta;
  int tiles_m, tiles_n, log_tile;
  int raster_x;      // the raster grid's x extent (raster_grid), ...
  int raster_slots;  // ... and its size: a persistent CTA walks slots blockIdx.x + i * gridDim.x
};

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

// A persistent CTA walks the raster grid's slots in launch order (x fastest), gridDim.x apart.
__device__ __forceinline__ TileCoord raster_slot_tile(const AmpereParams& p, int slot) {
  return raster_tile(slot % p.raster_x, slot / p.raster_x, p.log_tile);
}
// The first slot at or after `slot` (in steps of gridDim.x) that maps to a tile; raster_slots
// when none is left.
__device__ __forceinline__ int next_tile_slot(const AmpereParams& p, int slot) {
  while (slot < p.raster_slots &&
         !raster_tile_valid(raster_slot_tile(p, slot), p.tiles_m, p.tiles_n)) {
    slot += int(gridDim.x);
  }
  return slot;
}
// First row (column) of the tile computed for the tile that owns rows from `owned0` on: shifted
// back to end at the matrix's edge when the matrix is at least a tile large (see the kernel).
__device__ __forceinline__ int shifted_origin(int owned0, int extent, int tile) {
  return extent >= tile ? min(owned0, extent - tile) : owned0;
}

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
__global__ void __launch_bounds__(Cfg::THREADS) hgemm_ampere_kernel(const AmpereParams p) {
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int WM = Cfg::WM, WN = Cfg::WN, MI = Cfg::MI, NI = Cfg::NI, NB = Cfg::NB;
  constexpr int KI = Cfg::KI, THREADS = Cfg::THREADS;
  constexpr bool PERSISTENT = Cfg::PERSISTENT;

  // The CTA's tile (a persistent CTA's first one: it then walks the raster grid's slots
  // blockIdx.x, blockIdx.x + gridDim.x, ...; see the PERSISTENT path of the mainloop).
  int slot = 0;
  TileCoord tile;
  if constexpr (PERSISTENT) {
    slot = next_tile_slot(p, int(blockIdx.x));
    if (slot >= p.raster_slots) return;  // more CTAs than tiles
    tile = raster_slot_tile(p, slot);
  } else {
    tile = raster_tile(int(blockIdx.x), int(blockIdx.y), p.log_tile);
    if (!raster_tile_valid(tile, p.tiles_m, p.tiles_n)) return;  // no-op CTA of the last column
  }
  // The CTA owns C rows [m0, m0+BM) and columns [n0, n0+BN), clipped to the matrix. It computes
  // the BM x BN tile at (mt, nt): an edge tile is shifted back to end at the matrix's edge when
  // the matrix is at least a tile large, so every row and column it reads exists (the rows and
  // columns it shares with its neighbour are computed twice and written by the neighbour only).
  // Then only K can cut a k-tile short, which lets the mainloop copy without predicates.
  int m0 = tile.m * BM;
  int n0 = tile.n * BN;
  int mt = shifted_origin(m0, p.m, BM);
  int nt = shifted_origin(n0, p.n, BN);

  extern __shared__ __align__(128) unsigned char smem[];
  // A stages: (BM,BK) K-major or (BK,BM) M-major; B stages: (BN,BK) K-major or (BK,BN) N-major.
  const uint32_t sA = ptx::smem_u32(smem);             // (STAGES, A tile) swizzled
  const uint32_t sB = sA + STAGES * K::STAGE_BYTES_A;  // (STAGES, B tile) swizzled

  const int tid = int(threadIdx.x);
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int wm = warp % Cfg::WARPS_M;
  const int wn = warp / Cfg::WARPS_M;
  const int k_tiles = ceil_div(p.k, BK);

  typename K::CopyA copy_a(p.a, p.m, p.k, mt, tid);  // A tile (BM,BK) -> sA stage
  typename K::CopyB copy_b(p.b, p.n, p.k, nt, tid);  // B tile (BN,BK) -> sB stage

  // Per-lane ldmatrix row addresses in stage 0 (the stage offset is added per k-tile).
  uint32_t a_lane[K::OffA::kBases];  // (kBases) smem addr, stage 0
  uint32_t b_lane[K::OffB::kBases];  // (kBases) smem addr, stage 0
  {
    const typename K::OffA off_a(wm * WM, lane);
    const typename K::OffB off_b(wn * WN, lane);
#pragma unroll
    for (int i = 0; i < K::OffA::kBases; ++i) a_lane[i] = sA + 2u * off_a.base[i];
#pragma unroll
    for (int i = 0; i < K::OffB::kBases; ++i) b_lane[i] = sB + 2u * off_b.base[i];
  }

  AccFrag<AccT> acc[MI][NI];  // (WM,WN) warp tile, m16n8 fragments
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) acc[mi][ni].clear();
  }
  uint32_t a_frag[2][MI][4];  // (2 bufs, WM,16) A fragments
  uint32_t b_frag[2][NB][4];  // (2 bufs, WN,16) B fragments, 2 n8 tiles per x4

  int write_stage = STAGES - 1;  // stage receiving k-tile kt + STAGES - 1

  // ================================ PROLOGUE ================================
  // Fill stages 0..STAGES-2 with k-tiles 0..STAGES-2. One commit group per stage even when the
  // tile does not exist, so "tile t landed" is always "at most STAGES-2 groups pending". (The
  // persistent schedule has its own prologue, below.)
  if constexpr (!PERSISTENT) {
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) {
        copy_a.copy_next(sA + s * K::STAGE_BYTES_A);
        copy_b.copy_next(sB + s * K::STAGE_BYTES_B);
      }
      ptx::cp_async_commit();
    }
  }

  int read_stage = 0;  // stage holding k-tile kt
  uint32_t read_off_a = 0, read_off_b = 0;

  // g2s: all of the next k-tile into write_stage, one commit group per k-tile, then the next
  // write stage. A k-tile past K is copied as zeros into a stage nobody reads again rather than
  // skipped: with the two k-tile loops below, a
  // branch around the copies kept ptxas from interleaving them with the mma (hgemm_tn measured
  // 0.57x cuBLAS instead of 0.70x on edge CTAs' loop).
  auto copy_whole_tile = [&](auto mode) {
    constexpr bool IN = decltype(mode)::value == CopyMode::inside;
    copy_a.template copy_next<IN>(sA + write_stage * K::STAGE_BYTES_A);
    copy_b.template copy_next<IN>(sB + write_stage * K::STAGE_BYTES_B);
    ptx::cp_async_commit();
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  };
  // At the last step of k-tile kt, before any read of k-tile kt+1: move the read stage on, wait
  // for k-tile kt+1 (groups up to kt+1 complete = at most STAGES-2 pending) and sync. The
  // barrier also means every warp has finished reading k-tile kt's stage.
  auto next_read_stage = [&]() {
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    read_off_a = read_stage * K::STAGE_BYTES_A;
    read_off_b = read_stage * K::STAGE_BYTES_B;
    ptx::cp_async_wait<STAGES - 2>();
    __syncthreads();
  };

  // s2r of step kk's fragments into register buffer buf.
  auto load_step = [&](int buf, int kk) {
    uint32_t a_base[K::OffA::kBases];
    uint32_t b_base[K::OffB::kBases];
#pragma unroll
    for (int i = 0; i < K::OffA::kBases; ++i) a_base[i] = a_lane[i] + read_off_a;
#pragma unroll
    for (int i = 0; i < K::OffB::kBases; ++i) b_base[i] = b_lane[i] + read_off_b;
    load_fragments<typename K::OffA, A_K_MAJOR, MI>(a_frag[buf], a_base, kk);
    load_fragments<typename K::OffB, B_K_MAJOR, NB>(b_frag[buf], b_base, kk);
  };

  // ================================ MAINLOOP ================================
  // k-tile kt is read from read_stage while k-tile kt+STAGES-1 is copied into write_stage, the
  // stage k-tile kt-1 used: all of k-tile kt+STAGES-1's copies at step 0, its group committed
  // before the wait at step KI-1, so "at most STAGES-2 pending" there means k-tile kt+1 landed.
  //
  // Two copies of the k-tile loop. A CTA whose tile lies inside M and N (every CTA once M >= BM
  // and N >= BN, see mt/nt) runs its first `inside_end` k-tiles with the copies unpredicated:
  // every k-tile they copy is a whole BK inside K, so no chunk needs a bounds test or a
  // redirected address. Those are most of the mainloop's integer instructions otherwise, and
  // they share each warp's issue slots with its mma: 120 instead of 146 instructions per k-tile
  // in hgemm_tn's f16 build. The last k-tiles, and every k-tile of a matrix smaller than a
  // tile, run the predicated copies; the second loop picks up the copy state where the first
  // left it.
  const int k_whole = p.k / BK;  // k-tiles with all BK columns inside K
  // Iteration kt copies k-tile kt+STAGES-1: it must be whole.
  const int inside_end = mt + BM <= p.m && nt + BN <= p.n ? max(0, k_whole - (STAGES - 1)) : 0;
  auto first_fragments = [&]() {
    if (k_tiles > 0) {
      ptx::cp_async_wait<STAGES - 2>();  // k-tile 0 landed (this thread's copies)
      __syncthreads();                   // ... and every other thread's
      load_step(0, 0);
    }
  };
  // One k-tile; `mode` (CopyModeC) says how its g2s copies.
  auto k_tile = [&](auto mode) {
#pragma unroll
    for (int kk = 0; kk < KI; ++kk) {
      // Step 0 of the next k-tile is loaded below. Every warp loaded its last fragments of
      // k-tile kt at step KI-2, so the barrier frees k-tile kt's stage for k-tile kt+STAGES.
      if (kk == KI - 1) next_read_stage();
      // s2r: fragments of step kk+1 (of the next k-tile after the last step) into the other
      // register buffer, overlapping this step's mma. After the last k-tile this reads a stage
      // no copy is writing (all real tiles have landed) and the values go unused; loading
      // unconditionally keeps the compiler from copying registers to preserve the old ones.
      load_step((kk + 1) % 2, (kk + 1) % KI);

      // g2s.
      if (kk == 0) copy_whole_tile(mode);

        // mma on step kk, in the order K::COLS_OUTER picks.
#pragma unroll
      for (int st = 0; st < MI * NI; ++st) {  // the step's st-th mma
        int mi, nj;
        if constexpr (K::COLS_OUTER) {
          // Columns outer, serpentine over rows: consecutive mma share the B fragment.
          nj = st / MI;
          mi = (nj % 2 == 0) ? st % MI : MI - 1 - st % MI;
        } else {
          // Rows outer, serpentine over columns: consecutive mma share the A fragment.
          mi = st / NI;
          nj = (mi % 2 == 0) ? st % NI : NI - 1 - st % NI;
        }
        const uint32_t b[2] = {b_frag[kk % 2][nj / 2][2 * (nj % 2)],
                               b_frag[kk % 2][nj / 2][2 * (nj % 2) + 1]};
        acc[mi][nj].mma(a_frag[kk % 2][mi], b);
      }
    }
  };
  if constexpr (!PERSISTENT) {
    first_fragments();
    int kt = 0;
    for (; kt < inside_end; ++kt) k_tile(CopyModeC<CopyMode::inside>{});
    for (; kt < k_tiles; ++kt) k_tile(CopyModeC<CopyMode::predicated>{});
  } else {
    // ---------------------------- PERSISTENT ----------------------------
    // The CTA's tiles form one stream of k-tiles: the copies run STAGES-1 k-tiles ahead of the
    // mma, from the end of one tile into the start of the next (the copy state is pointed at
    // the next tile once the current one's last k-tile has been copied), so a new tile starts
    // with its first k-tiles in shared memory (no prologue per tile), and the register
    // double-buffering's load at a tile's last step is the next tile's step 0. The epilogue
    // stages D = alpha*acc + beta*C as f16 in a buffer of its own (s_d), not in the pipeline's
    // stages, which hold the next tile's k-tiles, and issues its 16-byte stores, which drain
    // while the next tile's mma run. The launcher runs this path only where every copy can go
    // unpredicated (persistent_fits: M >= BM, N >= BN, K whole k-tiles, at least STAGES-1 of
    // them, M % 8 == 0), so the k-tile loop is the non-persistent CTAs' inside loop. (A first
    // build that chose each k-tile's copy mode and deferred stores at run time measured 0.566x
    // against hgemm_tn's 0.719x; one with compile-time segments and the stores spread over the
    // next tile's first k-tiles 0.683x against 0.714x: ptxas then reordered the mainloop's mma
    // and reused fragment registers, and it stalled on barriers and ldmatrix results.)
    __half* s_d = reinterpret_cast<__half*>(smem + Cfg::PIPE_BYTES);  // (BM,BN) col-major, ld LD_D

    // PROLOGUE: the first STAGES-1 k-tiles of the first tile.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      copy_a.template copy_next<true>(sA + s * K::STAGE_BYTES_A);
      copy_b.template copy_next<true>(sB + s * K::STAGE_BYTES_B);
      ptx::cp_async_commit();
    }
    first_fragments();

    const int copy_switch = k_tiles - (STAGES - 1);  // k-tiles whose copies are this tile's
    for (;;) {
      // The copies after this tile's: the next tile's, or after the last tile this tile's
      // again (valid addresses; what they bring is never read).
      const int next = next_tile_slot(p, slot + int(gridDim.x));
      const TileCoord after = next < p.raster_slots ? raster_slot_tile(p, next) : tile;
      const int after_mt = shifted_origin(after.m * BM, p.m, BM);
      const int after_nt = shifted_origin(after.n * BN, p.n, BN);
      auto copy_after = [&] {
        copy_a.restart(p.m, p.k, after_mt, tid);
        copy_b.restart(p.n, p.k, after_nt, tid);
      };
      if (copy_switch == 0) copy_after();
      // MAINLOOP of one tile.
      for (int kt = 0; kt < k_tiles; ++kt) {
        k_tile(CopyModeC<CopyMode::inside>{});
        if (kt + 1 == copy_switch) copy_after();
      }

      // EPILOGUE of one tile: D staged as f16 (the last reads of s_d, the previous tile's
      // stores, were followed by the mainloop's barriers), a barrier, and the stores. With
      // alpha = 1 and beta = 0, D is the accumulator rounded to f16 once, as the general path
      // rounds 1 * acc, so that case skips the float round trip (f16 accumulators are stored
      // as they are): bit for bit the same D, a third of the epilogue's instructions.
      const auto stage_tile = [&](auto plain) {
        for_each_acc_element<MI, NI>(lane, [&](int mi, int ni, int i, int wrow, int wcol) {
          const int row = wm * WM + wrow;  // within the computed tile
          const int col = wn * WN + wcol;
          __half d;
          if constexpr (decltype(plain)::value) {
            d = to_half(acc[mi][ni].element(i));
          } else {
            float v = p.alpha * to_float(acc[mi][ni].element(i));
            if (p.beta != 0.f) {
              v = fmaf(p.beta, __half2float(p.c[int64_t(nt + col) * p.m + mt + row]), v);
            }
            d = __float2half_rn(v);
          }
          s_d[col * Cfg::LD_D + row] = d;
          if (i == 3) acc[mi][ni].clear();  // the fragment is staged: the next tile's starts
        });
      };
      if (p.alpha == 1.f && p.beta == 0.f) {
        stage_tile(std::true_type{});
      } else {
        stage_tile(std::false_type{});
      }
      __syncthreads();
#pragma unroll
      for (int j = 0; j < K::STORE_PIECES; ++j) {
        const int id = j * THREADS + tid;
        const int mc = id % (BM / 8);
        const int sc = id / (BM / 8);
        const int m = mt + mc * 8;  // a multiple of 8 (M % 8 == 0): wholly owned or not
        const int n = nt + sc;
        const uint4 v = *reinterpret_cast<const uint4*>(s_d + sc * Cfg::LD_D + mc * 8);  // (8) D
        if (n >= n0 && m >= m0) {  // owned (the shifted edge tile's other rows/columns not)
          *reinterpret_cast<uint4*>(p.c + int64_t(n) * p.m + m) = v;  // (8) C(m..m+7, n)
        }
      }

      if (next >= p.raster_slots) break;
      slot = next;
      tile = after;
      m0 = tile.m * BM;
      n0 = tile.n * BN;
      mt = after_mt;
      nt = after_nt;
    }
    ptx::cp_async_wait<0>();  // leave no copy in flight into the shared memory of an exited CTA
    return;
  }

  // ================================ EPILOGUE ================================
  // Stage the accumulators through shared memory (reusing the pipeline's), then write C along
  // M in 16-byte pieces: D = alpha * acc + beta * C in float, C read only when beta != 0.
  // Only empty groups (or zero-filled copies of tiles past K) can be pending, but leave none
  // behind: the staging tile below overwrites the stages.
  ptx::cp_async_wait<0>();
  __syncthreads();                            // every warp is done with the pipeline stages
  AccT* s_c = reinterpret_cast<AccT*>(smem);  // (BM,SC) col-major, ld = Stage::kLd
  // 16-byte C pieces are aligned (mt too is then a multiple of 8) and wholly inside or outside
  // both the matrix and the rows this CTA owns.
  const bool c_vec = p.m % 8 == 0;
#pragma unroll
  for (int pass = 0; pass < K::PASSES; ++pass) {
    constexpr int NIP = NI / K::PASSES;
    for_each_acc_element<MI, NI>(
        lane,
        [&](int mi, int ni, int i, int wrow, int wcol) {
          s_c[K::Stage::staged_col(wn, wcol) * K::Stage::kLd + wm * WM + wrow] =
              acc[mi][ni].element(i);
        },
        pass * NIP, (pass + 1) * NIP);
    __syncthreads();
#pragma unroll
    for (int it = 0; it < K::STORE_ITERS; ++it) {
      const int id = it * THREADS + tid;
      const int mc = id % (BM / 8);
      const int sc = id / (BM / 8);
      const int m = mt + mc * 8;
      const int n = nt + K::Stage::cta_col(sc, pass);
      // Columns and whole pieces of rows the CTA does not own (computed for a shifted edge tile)
      // or outside the matrix are left alone.
      if (n < n0 || n >= p.n || m + 8 <= m0 || m >= p.m) continue;
      const AccT* src = s_c + sc * K::Stage::kLd + mc * 8;  // (8) staged accumulators along M
      float v[8];                                           // (8) alpha*acc [+ beta*C] along M
      if constexpr (sizeof(AccT) == 4) {
        const float4 lo = *reinterpret_cast<const float4*>(src);
        const float4 hi = *reinterpret_cast<const float4*>(src + 4);
        v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w;
        v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
      } else {
        const uint4 raw = *reinterpret_cast<const uint4*>(src);
        const __half* h = reinterpret_cast<const __half*>(&raw);
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = __half2float(h[e]);
      }
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] *= p.alpha;
      __half* dst = p.c + int64_t(n) * p.m + m;  // (8) C(m..m+7, n), M contiguous
      if (c_vec) {
        if (p.beta != 0.f) {
          const uint4 old = *reinterpret_cast<const uint4*>(dst);
          const __half* h = reinterpret_cast<const __half*>(&old);
#pragma unroll
          for (int e = 0; e < 8; ++e) v[e] = fmaf(p.beta, __half2float(h[e]), v[e]);
        }
        uint4 out;
        __half2* o = reinterpret_cast<__half2*>(&out);
#pragma unroll
        for (int e = 0; e < 4; ++e) o[e] = __floats2half2_rn(v[2 * e], v[2 * e + 1]);
        *reinterpret_cast<uint4*>(dst) = out;
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          if (m + e >= m0 && m + e < p.m) {
            const float r = p.beta != 0.f ? fmaf(p.beta, __half2float(dst[e]), v[e]) : v[e];
            dst[e] = __float2half_rn(r);
          }
        }
      }
    }
    if (pass + 1 < K::PASSES) __syncthreads();  // the next pass overwrites the staging tile
  }
}

// ---- host side ------------------------------------------------------------------------------

// What the problem must satisfy for layout L (the runner checked dtype/accum/layout already).
template <class Cfg, Layout L>
std::string ampere_supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX) {
    return "M, N and K must each fit in a 32-bit int";
  }
  if (a_is_k_major(L) && p.k % 8 != 0) {
    return "K must be a multiple of 8: A is K-contiguous here and its rows are copied in 16-byte "
           "(8 x f16) cp.async pieces";
  }
  if (!a_is_k_major(L) && p.m % 8 != 0) {
    return "M must be a multiple of 8: A is M-contiguous here and its columns are copied in "
           "16-byte (8 x f16) cp.async pieces";
  }
  if (b_is_k_major(L) && p.k % 8 != 0) {
    return "K must be a multiple of 8: B is K-contiguous here and its columns are copied in "
           "16-byte (8 x f16) cp.async pieces";
  }
  if (!b_is_k_major(L) && p.n % 8 != 0) {
    return "N must be a multiple of 8: B is N-contiguous here and its rows are copied in 16-byte "
           "(8 x f16) cp.async pieces";
  }
  // A persistent configuration runs on less (without its staging tile, see ampere_run).
  if (caps.smem_per_block_optin != 0 && caps.smem_per_block_optin < size_t(Cfg::PIPE_BYTES)) {
    return "needs " + std::to_string(Cfg::PIPE_BYTES / 1024) +
           " KB of shared memory per block, the device allows " +
           std::to_string(caps.smem_per_block_optin / 1024) + " KB";
  }
  const int tiles_n = int((p.n + Cfg::BN - 1) / Cfg::BN);
  if (raster_grid(1, tiles_n, raster_log_tile(tiles_n, kRasterMaxSwizzle)).y > 65535) {
    return "N is too large for the grid's y dimension (65535 CTA rows)";
  }
  return "";
}

// Whether the persistent schedule runs a problem: every tile inside M and N (after the edge
// shift), K whole k-tiles and at least STAGES-1 of them (so the prologue and every copy stay
// unpredicated and inside one tile or the next), and M % 8 == 0 (16-byte C pieces wholly owned or
// not). Other problems run the same tile without persistence: correct for any shape, and small or
// ragged problems are where a persistent grid gains least.
template <class Cfg>
bool persistent_fits(const AmpereParams& p) {
  return p.m >= Cfg::BM && p.n >= Cfg::BN && p.k % Cfg::BK == 0 &&
         p.k / Cfg::BK >= Cfg::STAGES - 1 && p.m % 8 == 0;
}

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
void ampere_run(const GemmArgs& args, cudaStream_t stream) {
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  const auto kernel = hgemm_ampere_kernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  const GemmProblem& pr = args.problem;
  AmpereParams p{};
  p.m = int(pr.m);
  p.n = int(pr.n);
  p.k = int(pr.k);
  if (p.m == 0 || p.n == 0) return;
  p.a = static_cast<const __half*>(args.a);
  p.b = static_cast<const __half*>(args.b);
  p.c = static_cast<__half*>(args.c);
  p.alpha = args.alpha;
  p.beta = args.beta;
  p.tiles_m = ceil_div(p.m, Cfg::BM);
  p.tiles_n = ceil_div(p.n, Cfg::BN);
  p.log_tile = raster_log_tile(p.tiles_n, kRasterMaxSwizzle);
  const RasterGrid g = raster_grid(p.tiles_m, p.tiles_n, p.log_tile);
  p.raster_x = g.x;
  p.raster_slots = g.x * g.y;
  if constexpr (Cfg::PERSISTENT) {
    if (!persistent_fits<Cfg>(p) || device_smem_per_block_optin() < size_t(K::SMEM_BYTES)) {
      // The same tile, one CTA per tile (see persistent_fits; or the device's shared memory
      // holds the pipeline but not the staging tile too).
      using NonPersistent =
          AmpereTile<Cfg::BM, Cfg::BN, Cfg::BK, Cfg::WARPS_M, Cfg::WARPS_N, Cfg::STAGES, false>;
      ampere_run<NonPersistent, A_K_MAJOR, B_K_MAJOR, AccT>(args, stream);
      return;
    }
  }
  // Opt in to > 48 KB of dynamic shared memory once per kernel (no allocation, nothing on the
  // timed path after the first call). A failure here shows up as the launch's error.
  static const bool configured = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::SMEM_BYTES);
    cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                         int(cudaSharedmemCarveoutMaxShared));
    return true;
  }();
  (void)configured;
  if constexpr (Cfg::PERSISTENT) {
    // As many CTAs as are resident at once (one wave), never more than there are tiles.
    static PerDevice<int> resident;
    const int wave = resident.get(
        [&](int dev) { return resident_ctas(kernel, Cfg::THREADS, K::SMEM_BYTES, dev); });
    int ctas = std::min(wave, p.tiles_m * p.tiles_n);
    if (args.test_max_ctas > 0) ctas = std::min(ctas, args.test_max_ctas);  // test-only
    kernel<<<unsigned(ctas), Cfg::THREADS, K::SMEM_BYTES, stream>>>(p);
  } else {
    kernel<<<dim3(unsigned(g.x), unsigned(g.y)), Cfg::THREADS, K::SMEM_BYTES, stream>>>(p);
  }
}

template <class Cfg, Layout L>
void ampere_launch(const GemmArgs& args, cudaStream_t stream) {
  constexpr bool a_k = a_is_k_major(L);
  constexpr bool b_k = b_is_k_major(L);
  if constexpr (Cfg::F32_ACC) {
    if (args.problem.accum == Accum::f32) {
      ampere_run<Cfg, a_k, b_k, float>(args, stream);
      return;
    }
  }
  ampere_run<Cfg, a_k, b_k, __half>(args, stream);  // the runner passes only declared accums
}

// Registry entry of one tile configuration in one layout; f16 accumulation native (seed 000's
// mma.sync ... f16.f16.f16.f16), f32 too where the warp tile's accumulators fit (F32_ACC).
template <class Cfg, Layout L>
KernelInfo ampere_kernel_info(std::string name, int rung, std::string summary) {
  std::vector<Accum> accums{Accum::f16};
  if (Cfg::F32_ACC) accums.push_back(Accum::f32);
  return KernelInfo{
      .name = std::move(name),
      .family = "hgemm",
      .rung = rung,
      .summary = std::move(summary),
      .dtypes = {DType::f16},
      .accums = std::move(accums),
      .layouts = {L},
      .min_sm = 80,
      .supports = ampere_supports<Cfg, L>,
      .launch = ampere_launch<Cfg, L>,
  };
}

}  // namespace gemmbench::hgemm
