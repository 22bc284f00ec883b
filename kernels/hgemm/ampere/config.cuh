// The Ampere HGEMM family's configuration: the CTA tile (AmpereTile), the launch parameters,
// and where a thread and its CTA's tile sit. Both schedules use them (tile_loop.cuh: one CTA per
// tile; persistent.cuh: a CTA walks tiles).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

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

// Where a thread sits in its CTA: its warp's position in the WARPS_M x WARPS_N grid.
struct ThreadPlace {
  int tid, lane;
  int wm, wn;  // warp row and column
};
template <class Cfg>
__device__ __forceinline__ ThreadPlace thread_place() {
  const int tid = int(threadIdx.x);
  const int warp = tid / 32;
  return ThreadPlace{tid, tid % 32, warp % Cfg::WARPS_M, warp / Cfg::WARPS_M};
}

// The CTA owns C rows [m0, m0+BM) and columns [n0, n0+BN), clipped to the matrix. It computes
// the BM x BN tile at (mt, nt): an edge tile is shifted back to end at the matrix's edge when
// the matrix is at least a tile large, so every row and column it reads exists (the rows and
// columns it shares with its neighbour are computed twice and written by the neighbour only).
// Then only K can cut a k-tile short, which lets the mainloop copy without predicates.
struct TilePlace {
  int m0, n0;  // owned origin
  int mt, nt;  // computed origin (shifted_origin)
};

}  // namespace gemmbench::hgemm
