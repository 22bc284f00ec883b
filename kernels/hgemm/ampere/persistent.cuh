// Ampere HGEMM, persistent: the kernel the short names (hgemm_tn, hgemm_nn/nt/tt, rungs 3-4) run.
// Adds over the tile loop (tile_loop.cuh): one CTA per SM walks the raster grid's slots, and its
// tiles form one stream of k-tiles: the cp.async ring runs on from one tile's last k-tiles into
// the next tile's first (no prologue per tile), and D, staged as f16 in a buffer of its own,
// drains under the next tile's mma (epilogue_persistent). +3% over the same tile one CTA per tile.
// Tile: AmpereDefault 128x256x64, 2x4 warps of 64x64, 3 stages; 144 KB ring + 68 KB staging tile
// (212 KB, one CTA per SM).
// Constraints: persistent_fits (M >= BM, N >= BN, K a multiple of BK with at least STAGES-1
// k-tiles, M % 8 == 0), so every copy is unpredicated; ampere_run sends other problems, and
// devices with less shared memory, to the tile loop.
// Measured (H100, 2026-11-24, hgemm_tn TN 5120x4096x4096 vs cuBLAS): f16 acc 0.7492x median of 30
// runs, f32 0.635x (bench_results/h100/2026-11-24_ampere_acceptance_final.json.gz). History of the
// schedule (what was tried and lost): docs/hgemm-ampere.md.
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
__global__ void __launch_bounds__(Cfg::THREADS)
    hgemm_ampere_persistent_kernel(const AmpereParams p) {
  static_assert(Cfg::PERSISTENT, "a tile without PERSISTENT runs hgemm_ampere_kernel");
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES;

  // The CTA's first tile; it then walks the raster grid's slots blockIdx.x, blockIdx.x +
  // gridDim.x, ...
  int slot = next_tile_slot(p, int(blockIdx.x));
  if (slot >= p.raster_slots) return;  // more CTAs than tiles
  TileCoord tile = raster_slot_tile(p, slot);
  TilePlace t;  // (BM,BN) owned at (m0,n0), computed at (mt,nt)
  t.m0 = tile.m * BM;
  t.n0 = tile.n * BN;
  t.mt = shifted_origin(t.m0, p.m, BM);
  t.nt = shifted_origin(t.n0, p.n, BN);

  extern __shared__ __align__(128) unsigned char smem[];
  AmpereMainloop<Cfg, A_K_MAJOR, B_K_MAJOR, AccT> ml(p, smem, t);
  const ThreadPlace& th = ml.th;
  const int k_tiles = ml.k_tiles;
  __half* s_d = reinterpret_cast<__half*>(smem + Cfg::PIPE_BYTES);  // (BM,BN) col-major, ld LD_D

  // ================================ PROLOGUE ================================
  // The first STAGES-1 k-tiles of the first tile (persistent_fits: all whole and inside).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    ml.copy_a.template copy_next<true>(ml.sA + s * K::STAGE_BYTES_A);
    ml.copy_b.template copy_next<true>(ml.sB + s * K::STAGE_BYTES_B);
    ptx::cp_async_commit();
  }
  ml.first_fragments();

  const int copy_switch = k_tiles - (STAGES - 1);  // k-tiles whose copies are this tile's
  for (;;) {
    // The copies after this tile's: the next tile's, or after the last tile this tile's
    // again (valid addresses; what they bring is never read).
    const int next = next_tile_slot(p, slot + int(gridDim.x));
    const TileCoord after = next < p.raster_slots ? raster_slot_tile(p, next) : tile;
    const int after_mt = shifted_origin(after.m * BM, p.m, BM);
    const int after_nt = shifted_origin(after.n * BN, p.n, BN);
    auto copy_after = [&] {
      ml.copy_a.restart(p.m, p.k, after_mt, th.tid);
      ml.copy_b.restart(p.n, p.k, after_nt, th.tid);
    };
    if (copy_switch == 0) copy_after();

    // ================================ MAINLOOP ================================
    // One tile's k-tiles, all copies unpredicated; once the last of them has been copied the
    // copy state points at the next tile, so the register double-buffering's load at this
    // tile's last step is the next tile's step 0.
    for (int kt = 0; kt < k_tiles; ++kt) {
      ml.k_tile(CopyModeC<CopyMode::inside>{});
      if (kt + 1 == copy_switch) copy_after();
    }

    // ================================ EPILOGUE ================================
    epilogue_persistent<K>(p, ml.acc, s_d, t, th);

    if (next >= p.raster_slots) break;
    slot = next;
    tile = after;
    t.m0 = tile.m * BM;
    t.n0 = tile.n * BN;
    t.mt = after_mt;
    t.nt = after_nt;
  }
  ptx::cp_async_wait<0>();  // leave no copy in flight into the shared memory of an exited CTA
}

}  // namespace gemmbench::hgemm
