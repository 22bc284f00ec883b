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

// The row tiles before group g, from the walk's tile_prefix (TilePrefix), or the 2-CTA pair's
// units of two consecutive global row tiles before it (UnitPrefix, below).
struct TilePrefix {
  const int* p;
  GB_HD int operator()(int g) const { return p[g]; }
};

// The group that holds global row tile `rt` (0 <= rt < prefix(G)): the last g with
// prefix(g) <= rt. Empty groups share their prefix with the next group, so the search passes
// over them: the group found always has prefix(g + 1) > rt.
template <class Prefix>
GB_HD int grouped_row_tile_group_by(Prefix prefix, int groups, int rt) {
  int lo = 0, hi = groups;  // invariant: prefix(lo) <= rt < prefix(hi)
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (prefix(mid) <= rt)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

GB_HD int grouped_row_tile_group(const int* tile_prefix, int groups, int rt) {
  return grouped_row_tile_group_by(TilePrefix{tile_prefix}, groups, rt);
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

// Linear tile t (0 <= t < prefix(G) * tiles_n) as (group, row tile, column tile), the row tiles
// counted by `prefix`. BAND: the column tiles of a band (a kernel with narrower column tiles
// keeps the band's weight rows with more: hgemm_grouped_sm90_fit, 8 of 128 rows).
template <int BAND, class Prefix>
GB_HD GroupedTile grouped_tile_by(Prefix prefix, int groups, int tiles_n, int t) {
  const int g = grouped_row_tile_group_by(prefix, groups, t / tiles_n);
  const int first = prefix(g), row_tiles = prefix(g + 1) - first;
  const int local = t - first * tiles_n;  // the tile within its group
  const int band = local / (row_tiles * BAND);
  const int in_band = local - band * row_tiles * BAND;
  const int rest = tiles_n - band * BAND;
  const int width = rest < BAND ? rest : BAND;  // the last band's
  return GroupedTile{g, in_band / width, band * BAND + in_band % width};
}

// Linear tile t (0 <= t < grouped_tiles_total(w)) of the walk.
template <int BAND = kGroupedBandTiles>
GB_HD GroupedTile grouped_tile(const GroupedWalk& w, int t) {
  return grouped_tile_by<BAND>(TilePrefix{w.tile_prefix}, w.groups, w.tiles_n, t);
}

// ---- The 2-CTA pair's walk over the global order of row tiles (hgemm_grouped_sm90_pairg) ----
// The walk's row tiles, all groups' in one order (tile_prefix), taken two at a time: unit u is
// global row tiles 2u and 2u + 1, for the cluster's CTAs of rank 0 and 1. Both tiles lie in one
// group (the CTAs share its weight tile) except where a group's tiles end on an even index: the
// unit then joins the group's last tile and the next group's first (each CTA its own weights), or,
// past the last tile, leaves rank 1 without rows. No CTA is idle but in that last unit, where a
// pair that takes a group's tiles two by two idles its second CTA on every odd tile count. A unit
// belongs to the group of its first tile: group g's units are [ceil(P[g] / 2), ceil(P[g+1] / 2)),
// P the tile_prefix, and the units walk in the column bands of grouped_tile.
struct UnitPrefix {
  const int* p;
  GB_HD int operator()(int g) const { return (p[g] + 1) / 2; }
};

// All units of the walk, times the column tiles: ceil(tile_prefix[G] / 2) * tiles_n.
GB_HD int grouped_units_total(const GroupedWalk& w) {
  return (w.tile_prefix[w.groups] + 1) / 2 * w.tiles_n;
}

// One CTA's share of a unit: its group and row tile, or group -1 (rank 1 of the last unit of an odd
// tile count).
struct GroupedUnitSlot {
  int group;
  int row_tile;
};

struct GroupedUnit {
  GroupedUnitSlot slot[2];  // rank 0's and rank 1's
  int n_tile;
  // Both ranks' tiles in one group, or rank 1 without rows: the weight tile is shared.
  GB_HD bool shared() const { return slot[1].group < 0 || slot[0].group == slot[1].group; }
};

// Linear unit t (0 <= t < grouped_units_total(w)) of the pair's walk.
template <int BAND = kGroupedBandTiles>
GB_HD GroupedUnit grouped_unit(const GroupedWalk& w, int t) {
  const GroupedTile u = grouped_tile_by<BAND>(UnitPrefix{w.tile_prefix}, w.groups, w.tiles_n, t);
  const int rt0 = 2 * (UnitPrefix{w.tile_prefix}(u.group) + u.row_tile);
  GroupedUnit out{};
  out.n_tile = u.n_tile;
  out.slot[0] = GroupedUnitSlot{u.group, rt0 - w.tile_prefix[u.group]};
  const int rt1 = rt0 + 1;
  if (rt1 >= w.tile_prefix[w.groups]) {
    out.slot[1] = GroupedUnitSlot{-1, 0};
  } else {
    const int g1 = rt1 < w.tile_prefix[u.group + 1]
                       ? u.group
                       : grouped_row_tile_group(w.tile_prefix, w.groups, rt1);
    out.slot[1] = GroupedUnitSlot{g1, rt1 - w.tile_prefix[g1]};
  }
  return out;
}

}  // namespace gemmbench
