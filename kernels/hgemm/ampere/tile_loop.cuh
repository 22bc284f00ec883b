// Ampere HGEMM, one CTA per tile: the kernel behind rungs 3-4 (hgemm_tn, hgemm_nn/nt/tt) wherever
// the persistent schedule does not fit (persistent_fits, or under 212 KB of shared memory).
// Adds over hgemm_mma (rung 2), after CuTe's sgemm_sm80 (seed 000): 16-byte cp.async into a
// STAGES-deep swizzled ring (global latency hidden, no bank conflicts), ldmatrix under mma by
// register double-buffering, rasterized tiles for L2 reuse (seed 003), edge tiles shifted inside
// M and N so most k-tiles copy unpredicated, and C staged through shared memory and stored along
// M in 16-byte pieces (epilogue_tile). MN-major operands use ldmatrix .trans (seed 002).
// Tile: any AmpereTile; the registered ones are 128x256x64 s3 (2x4 warps of 64x64, 144 KB) and
// 128x128x64 s3 / 128x256x32 s4 (96 KB). One CTA per raster slot; no-op CTAs exit.
// Constraints: ampere_supports (16-byte pieces along each contiguous dimension); any M, N, K >= 1.
// Measured (H100, 2026-11-24, TN 5120x4096x4096 vs cuBLAS): 128x256x64 s3 0.726x f16 / 0.592x
// f32 (bench_results/h100/2026-11-24_persist_bk64_5120.json.gz). History: docs/hgemm-ampere.md.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "hgemm/ampere/config.cuh"
#include "hgemm/ampere/epilogue.cuh"
#include "hgemm/ampere/mainloop.cuh"
#include "hgemm/ampere/schedule.cuh"

namespace gemmbench::hgemm {

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
__global__ void __launch_bounds__(Cfg::THREADS) hgemm_ampere_kernel(const AmpereParams p) {
  static_assert(!Cfg::PERSISTENT, "a persistent tile runs hgemm_ampere_persistent_kernel");
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;

  const TileCoord tile = raster_tile(int(blockIdx.x), int(blockIdx.y), p.log_tile);
  if (!raster_tile_valid(tile, p.tiles_m, p.tiles_n)) return;  // no-op CTA of the last column
  TilePlace t;  // (BM,BN) owned at (m0,n0), computed at (mt,nt)
  t.m0 = tile.m * BM;
  t.n0 = tile.n * BN;
  t.mt = shifted_origin(t.m0, p.m, BM);
  t.nt = shifted_origin(t.n0, p.n, BN);

  extern __shared__ __align__(128) unsigned char smem[];
  AmpereMainloop<Cfg, A_K_MAJOR, B_K_MAJOR, AccT> ml(p, smem, t);
  const ThreadPlace& th = ml.th;
  const int k_tiles = ml.k_tiles;

  // ================================ PROLOGUE ================================
  // Fill stages 0..STAGES-2 with k-tiles 0..STAGES-2. One commit group per stage even when the
  // tile does not exist, so "tile t landed" is always "at most STAGES-2 groups pending".
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) {
      ml.copy_a.copy_next(ml.sA + s * K::STAGE_BYTES_A);
      ml.copy_b.copy_next(ml.sB + s * K::STAGE_BYTES_B);
    }
    ptx::cp_async_commit();
  }

  // ================================ MAINLOOP ================================
  // Two copies of the k-tile loop. A CTA whose tile lies inside M and N (every CTA once M >= BM
  // and N >= BN, see TilePlace) runs its first `inside_end` k-tiles with the copies unpredicated:
  // every k-tile they copy is a whole BK inside K, so no chunk needs a bounds test or a
  // redirected address. Those are most of the mainloop's integer instructions otherwise, and
  // they share each warp's issue slots with its mma: 120 instead of 146 instructions per k-tile
  // in hgemm_tn's f16 build. The last k-tiles, and every k-tile of a matrix smaller than a
  // tile, run the predicated copies; the second loop picks up the copy state where the first
  // left it.
  const int k_whole = p.k / BK;  // k-tiles with all BK columns inside K
  // Iteration kt copies k-tile kt+STAGES-1: it must be whole.
  const int inside_end = t.mt + BM <= p.m && t.nt + BN <= p.n ? max(0, k_whole - (STAGES - 1)) : 0;
  ml.first_fragments();
  int kt = 0;
  for (; kt < inside_end; ++kt) ml.k_tile(CopyModeC<CopyMode::inside>{});
  for (; kt < k_tiles; ++kt) ml.k_tile(CopyModeC<CopyMode::predicated>{});

  // ================================ EPILOGUE ================================
  epilogue_tile<K>(p, ml.acc, smem, t, th);
}

}  // namespace gemmbench::hgemm
