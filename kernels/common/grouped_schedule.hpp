// The tile walk of a grouped GEMM (docs/grouped.md; hgemm/sm90/grouped.cu): every group's output
// tiles in one linear order, so that a persistent grid balances tiles, not groups. Host and device
// share this code (GB_HD); tests/host/test_grouped_schedule.cpp checks that the walk visits every
// (group, tile) exactly once, skips empty groups, and agrees with core's group_tile_prefix.
//
// Group g (M_g rows, N columns of output) is cut into row tiles of TILE_ROWS rows and column
// tiles of TILE_N columns: ceil(M_g / TILE_ROWS) x tiles_n tiles. tile_prefix (core/grouping.hpp,
// group_tile_prefix) counts the row tiles before each group, so that the linear index
//   t = (tile_prefix[g] + row_tile) * tiles_n + n_tile
// numbers all the tiles, group after group, a row tile's column tiles next to each other (the CTAs
// that run at once share the row tile's activations in L2, and a group's weights are read by the
// consecutive CTAs of its row tiles). A group without rows has no tiles. The lookup from t is a
// binary search over tile_prefix: log2(G + 1) reads per tile, from L2/L1.
#pragma once

#include <cstdint>

#include "common/hd.hpp"

namespace gemmbench {

struct GroupedTile {
  int group;     // g
  int row_tile;  // along M_g, in TILE_ROWS rows: rows [row_tile * TILE_ROWS, ...) of the group
  int n_tile;    // along N, in TILE_N columns
};

// The walk of one launch: pointers into the device arrays of GroupedLaunch (core/grouping.hpp),
// host arrays in the host tests.
struct GroupedWalk {
  const int* tile_prefix;  // (G + 1): row tiles before each group; [G] the total
  int groups;              // G
  int tiles_n;             // ceil(N / TILE_N)
};

// All tiles of the walk: tile_prefix[G] * tiles_n.
GB_HD int grouped_tiles_total(const GroupedWalk& w) {
  return w.tile_prefix[w.groups] * w.tiles_n;
}

// The group that holds global row tile `rt` (0 <= rt < tile_prefix[G]): the last g with
// tile_prefix[g] <= rt. Empty groups share their prefix with the next group, so the search passes
// over them: the group found always has tile_prefix[g + 1] > rt.
GB_HD int grouped_row_tile_group(const int* tile_prefix, int groups, int rt) {
  int lo = 0, hi = groups;  // invariant: tile_prefix[lo] <= rt < tile_prefix[hi]
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (tile_prefix[mid] <= rt)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// Linear tile t (0 <= t < grouped_tiles_total(w)) as (group, row tile, column tile).
GB_HD GroupedTile grouped_tile(const GroupedWalk& w, int t) {
  const int rt = t / w.tiles_n;
  const int g = grouped_row_tile_group(w.tile_prefix, w.groups, rt);
  return GroupedTile{g, rt - w.tile_prefix[g], t % w.tiles_n};
}

}  // namespace gemmbench
