#include "inspect/raster_map.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/errors.hpp"

namespace gemmbench::inspect {

RasterParams raster_params_from_problem(int64_t m, int64_t n, int64_t k, int bm, int bn,
                                        int log_tile) {
  if (m < 1 || n < 1 || k < 1)
    throw UsageError(fmt::format("--problem {}x{}x{}: M, N and K must be >= 1", m, n, k));
  if (bm < 1 || bn < 1)
    throw UsageError(fmt::format("--tile {}x{}: BM and BN must be >= 1", bm, bn));
  const int64_t tiles_m = (m + bm - 1) / bm, tiles_n = (n + bn - 1) / bn;
  if (tiles_m > kMaxRasterCtas || tiles_n > kMaxRasterCtas || tiles_m * tiles_n > kMaxRasterCtas)
    throw UsageError(fmt::format(
        "--problem {}x{}x{} with --tile {}x{} makes {}x{} tiles; inspect raster maps at most {}", m,
        n, k, bm, bn, tiles_m, tiles_n, kMaxRasterCtas));
  RasterParams p;
  p.tiles_m = int(tiles_m);
  p.tiles_n = int(tiles_n);
  p.log_tile = log_tile;
  p.problem = std::array<int64_t, 3>{m, n, k};
  p.tile = std::array<int, 2>{bm, bn};
  return p;
}

RasterMap make_raster_map(const RasterParams& p) {
  if (p.tiles_m < 1 || p.tiles_n < 1)
    throw UsageError(
        fmt::format("--tiles {}x{}: the tile counts must be >= 1", p.tiles_m, p.tiles_n));
  if (p.log_tile < 0 || p.log_tile > kMaxRasterLogTile)
    throw UsageError(fmt::format("--log-tile {}: accepted 0..{} (CUTLASS picks 0..3)", p.log_tile,
                                 kMaxRasterLogTile));
  // Computed in 64 bits before raster_grid's int arithmetic sees it.
  const int64_t stride = int64_t(1) << p.log_tile;
  const int64_t grid_x = int64_t(p.tiles_m) * stride;
  const int64_t grid_y = (p.tiles_n + stride - 1) / stride;
  if (grid_x * grid_y > kMaxRasterCtas)
    throw UsageError(fmt::format(
        "--tiles {}x{} with --log-tile {} launches a {}x{} grid of {} CTAs; inspect raster maps "
        "at most {}",
        p.tiles_m, p.tiles_n, p.log_tile, grid_x, grid_y, grid_x * grid_y, kMaxRasterCtas));

  RasterMap map;
  map.params = p;
  map.grid = raster_grid(p.tiles_m, p.tiles_n, p.log_tile);
  map.visit_id.assign(size_t(p.tiles_m) * p.tiles_n, -1);
  for (int by = 0; by < map.grid.y; ++by) {
    for (int bx = 0; bx < map.grid.x; ++bx) {
      RasterCta cta;
      cta.id = bx + int64_t(by) * map.grid.x;
      cta.bx = bx;
      cta.by = by;
      cta.tile = raster_tile(bx, by, p.log_tile);
      cta.valid = raster_tile_valid(cta.tile, p.tiles_m, p.tiles_n);
      if (cta.valid) {
        int64_t& slot = map.visit_id[size_t(cta.tile.m) * p.tiles_n + cta.tile.n];
        if (slot != -1)
          throw std::logic_error(fmt::format("raster: tile ({}, {}) computed by CTAs {} and {}",
                                             cta.tile.m, cta.tile.n, slot, cta.id));
        slot = cta.id;
      } else {
        ++map.noop_ctas;
      }
      map.ctas.push_back(cta);
    }
  }
  for (size_t i = 0; i < map.visit_id.size(); ++i)
    if (map.visit_id[i] == -1)
      throw std::logic_error(fmt::format("raster: tile ({}, {}) is computed by no CTA",
                                         i / size_t(p.tiles_n), i % size_t(p.tiles_n)));
  return map;
}

}  // namespace gemmbench::inspect
