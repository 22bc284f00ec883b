// The tile walk of the Ampere family: which tile a raster slot holds, the persistent CTA's next
// slot, and the edge-tile shift. The raster math itself is common/raster.hpp's (host-tested).
#pragma once

#include "common/raster.hpp"
#include "hgemm/ampere/config.cuh"

namespace gemmbench::hgemm {

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
// back to end at the matrix's edge when the matrix is at least a tile large (see TilePlace).
__device__ __forceinline__ int shifted_origin(int owned0, int extent, int tile) {
  return extent >= tile ? min(owned0, extent - tile) : owned0;
}

}  // namespace gemmbench::hgemm
