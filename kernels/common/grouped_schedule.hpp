// The tile walk of a grouped GEMM (docs/grouped.md; hgemm/sm90/grouped.cu): every group's output
// tiles in one linear order, so that a persistent grid balances tiles, not groups. Host and device
// share this code (GB_HD); tests/host/test_grouped_schedule.cpp checks that the walk visits every
// (group, tile) exactly once, skips empty groups, and agrees with core's group_tile_prefix.
//
// Group g (M_g rows, N columns of output) is cut into row tiles of TILE_ROWS rows and column
// tiles of TILE_N columns: ceil(M_g / TILE_ROWS) x tiles_n tiles. tile_prefix (core/grouping.hpp,
// group_tile_prefix) counts the row tiles before each group, so that group g's tiles are the
// linear indices [tile_prefix[g] * tiles_n, tile_prefix[g + 1] * tiles_n), group after group, in
// bands of columns within the group (grouped_tile). A group without rows has no tiles. The lookup
// from t is a binary search over tile_prefix: log2(G + 1) reads per tile, from L2/L1.
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
  // The interleaved walk (issue 51's experiment, core/grouping.hpp GroupedLaunch::group_order):
  // order (G entries, or null: position i is group i) names the group at each position, and
  // tile_prefix counts row tiles over the positions; interleave takes the linear order's tiles
  // alternately from its front and its back (grouped_walk_index).
  const int* order = nullptr;
  bool interleave = false;
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

// A group's tiles in bands of kGroupedBandTiles column tiles: every row tile of the group across
// the band's columns (row tiles outer, the band's columns inner), then the next band. The CTAs
// running at once then share a few columns' weights (4 x 256 rows: 14.7 MB at K 7168) while they
// sweep the group's rows, so a large group reads its weights from DRAM once and its activations
// once per band; walking each row tile across all of N instead re-read the whole expert per row
// tile (Mixtral-8x7B's gate_up at 4096 tokens: 1024 rows a group, 235 MB of weights each, 8 times
// over; DeepSeek-V3's largest zipf:1.2 group 30 times: bench_results/h200/
// 2026-11-29_moe_grouped_first.json.gz). A group of one row tile walks its columns in order.
inline constexpr int kGroupedBandTiles = 4;

// The interleaved walk's index: the t-th tile a CTA takes is the linear order's (t / 2)-th from
// the front for even t, from the back for odd t, so a persistent grid of an even number of CTAs
// (CTA c takes c, c + grid, ...) runs half its CTAs down the front of the order (the groups of
// most row tiles, group_walk_order) and half up its back (the smallest groups) at once. A
// bijection of [0, total): even t cover [0, ceil(total / 2)), odd t the rest.
GB_HD int grouped_walk_index(const GroupedWalk& w, int t) {
  if (!w.interleave) return t;
  const int half = t >> 1;
  return (t & 1) ? grouped_tiles_total(w) - 1 - half : half;
}

// Linear tile t (0 <= t < grouped_tiles_total(w)) as (group, row tile, column tile).
GB_HD GroupedTile grouped_tile(const GroupedWalk& w, int t) {
  t = grouped_walk_index(w, t);
  const int pos = grouped_row_tile_group(w.tile_prefix, w.groups, t / w.tiles_n);
  const int first = w.tile_prefix[pos], row_tiles = w.tile_prefix[pos + 1] - first;
  const int local = t - first * w.tiles_n;  // the tile within its group
  const int band = local / (row_tiles * kGroupedBandTiles);
  const int in_band = local - band * row_tiles * kGroupedBandTiles;
  const int rest = w.tiles_n - band * kGroupedBandTiles;
  const int width = rest < kGroupedBandTiles ? rest : kGroupedBandTiles;  // the last band's
  return GroupedTile{w.order ? w.order[pos] : pos, in_band / width,
                     band * kGroupedBandTiles + in_band % width};
}

}  // namespace gemmbench
