// Threadblock rasterization (seed 003, CUTLASS GemmIdentityThreadblockSwizzle<N>), shared by the
// tensor-core kernels and `gemmbench inspect raster`.
//
// The output is cut into tiles_m x tiles_n tiles. With log_tile = L the grid is
// (tiles_m << L, ceil(tiles_n / 2^L)): consecutive blockIdx.x walk down 2^L tile-columns
// in an interleaved zig-zag, so CTAs that are resident together share A rows and B columns in
// L2. Blocks whose mapped tile falls outside the tile grid (the last grid column when
// tiles_n is not a multiple of 2^L) are no-op CTAs and must return immediately.
#pragma once

#include "common/hd.hpp"

namespace gemmbench {

struct TileCoord {
  int m;  // tile row (units of BM)
  int n;  // tile column (units of BN)
};

struct RasterGrid {
  int x;
  int y;
};

GB_HD int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// CUTLASS's get_log_tile for GemmIdentityThreadblockSwizzle<max_swizzle>: thresholds picked so
// that few no-op CTAs are launched.
GB_HD int raster_log_tile(int tiles_n, int max_swizzle) {
  if (max_swizzle >= 8 && tiles_n >= 6) return 3;
  if (max_swizzle >= 4 && tiles_n >= 3) return 2;
  if (max_swizzle >= 2 && tiles_n >= 2) return 1;
  return 0;
}

GB_HD RasterGrid raster_grid(int tiles_m, int tiles_n, int log_tile) {
  const int tile = 1 << log_tile;
  return RasterGrid{tiles_m * tile, (tiles_n + tile - 1) / tile};
}

GB_HD TileCoord raster_tile(int block_x, int block_y, int log_tile) {
  return TileCoord{block_x >> log_tile, (block_y << log_tile) + (block_x & ((1 << log_tile) - 1))};
}

GB_HD bool raster_tile_valid(TileCoord t, int tiles_m, int tiles_n) {
  return t.m < tiles_m && t.n < tiles_n;
}

}  // namespace gemmbench
