// `inspect raster`: the grid the tensor-core kernels launch and which output tile each block
// computes, from kernels/common/raster.hpp (seed 003, CUTLASS GemmIdentityThreadblockSwizzle):
// the same raster_grid / raster_tile / raster_tile_valid the kernels call.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/raster.hpp"

namespace gemmbench::inspect {

struct RasterParams {
  int tiles_m = 0, tiles_n = 0;  // output tiles along M and N
  int log_tile = 0;              // L: 2^L tile-columns are interleaved
  // When the tiles came from --problem/--tile, for the report only.
  std::optional<std::array<int64_t, 3>> problem;  // M, N, K
  std::optional<std::array<int, 2>> tile;         // BM, BN
};

struct RasterCta {
  int64_t id = 0;      // linear block id = blockIdx.x + blockIdx.y * gridDim.x (launch order)
  int bx = 0, by = 0;  // blockIdx.x, blockIdx.y
  TileCoord tile{};    // raster_tile(bx, by, L)
  bool valid = false;  // raster_tile_valid: false for a no-op CTA
};

struct RasterMap {
  RasterParams params;
  RasterGrid grid{};
  std::vector<RasterCta> ctas;    // in linear block id order
  std::vector<int64_t> visit_id;  // (tiles_m, tiles_n) row-major: id of the CTA computing it
  int64_t noop_ctas = 0;

  int64_t visit_id_at(int m, int n) const { return visit_id[size_t(m) * params.tiles_n + n]; }
};

inline constexpr int kMaxRasterLogTile = 10;
inline constexpr int64_t kMaxRasterCtas = int64_t(1) << 20;  // larger grids are not printed

// From --problem M x N x K and --tile BM x BN: ceil(M/BM) x ceil(N/BN) tiles (UsageError on
// a value < 1).
RasterParams raster_params_from_problem(int64_t m, int64_t n, int64_t k, int bm, int bn,
                                        int log_tile);

// Validates (UsageError: tiles < 1, L outside 0..kMaxRasterLogTile, more than kMaxRasterCtas
// CTAs) and maps every CTA. Throws std::logic_error if a tile is not computed exactly once: the
// raster functions would be broken, and the kernels with them.
RasterMap make_raster_map(const RasterParams& p);

}  // namespace gemmbench::inspect
