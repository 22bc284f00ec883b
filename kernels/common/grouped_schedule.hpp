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

// Linear tile t (0 <= t < grouped_tiles_total(w)) as (group, row tile, column tile). BAND: the
// column tiles of a band (a kernel with narrower column tiles keeps the band's weight rows with
// more: hgemm_grouped_sm90_fit, 8 of 128 rows).
template <int BAND = kGroupedBandTiles>
GB_HD GroupedTile grouped_tile(const GroupedWalk& w, int t) {
  const int g = grouped_row_tile_group(w.tile_prefix, w.groups, t / w.tiles_n);
  const int first = w.tile_prefix[g], row_tiles = w.tile_prefix[g + 1] - first;
  const int local = t - first * w.tiles_n;  // the tile within its group
  const int band = local / (row_tiles * BAND);
  const int in_band = local - band * row_tiles * BAND;
  const int rest = w.tiles_n - band * BAND;
  const int width = rest < BAND ? rest : BAND;  // the last band's
  return GroupedTile{g, in_band / width, band * BAND + in_band % width};
}

}  // namespace gemmbench
