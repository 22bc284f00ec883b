// Index math of sgemm_splitk and sgemm_streamk (kernels/sgemm/splitk.cu), shared by the kernel and
// its host test (tests/host/test_splitk_schedule.cpp): docs/contributing.md#kernels. The
// stream-K walk (StreamK below) has its own paragraph there.
//
// Tiles. C is cut into tiles_m x tiles_n tiles of BM x BN; BM grows with M (kTiles below), so a
// few tokens do not pay for 128 rows of padding. Tile t = tile_n * tiles_m + tile_m names the
// tile's arrival counter and its workspace slots.
//
// Split. K is cut into k_tiles k-tiles of BK, and each tile's k-tiles into `splits` contiguous
// ranges, split s taking [s * k_tiles / splits, (s + 1) * k_tiles / splits): one CTA per (tile,
// split), all of them resident at once. splits is the number of CTAs the device holds for the
// tile's configuration (target_ctas) over the number of tiles, so that narrow products fill every
// SM, but each range keeps at least kMinKTilesPerSplit k-tiles and there are at most kMaxSplits
// (the CTA that reduces a tile reads every split's partial alone: its tail grows with splits).
// splits == 1 is a plain tiled GEMM: no workspace, the CTA stores C itself.
//
// Fixup. With splits > 1 every CTA stores its partial tile, f32, to slot(t, s) of the workspace,
// in thread order (partial_index), and counts itself in tile t's counter; the last to arrive sums
// the slots in split order 0, 1, ..., splits-1 (never arrival order: deterministic) into the
// accumulators of the same threads, and runs the epilogue. The stream-K walk does the same per
// tile, with parts instead of splits.
#pragma once

#include <cstdint>

#include "common/hd.hpp"

namespace gemmbench::sgemm::splitk {

// A split keeps at least this many k-tiles: the copy of the next k-tile is in flight while the
// current one is consumed.
inline constexpr int kMinKTilesPerSplit = 2;
// At most this many splits: the reducing CTA reads splits x BM x BN floats (32 x 8 KB for the
// 16x128 tile, 8 x 32 KB where the occupancy gives 128x64 tiles 8 splits).
inline constexpr int kMaxSplits = 32;

// The tile configurations, by M: the first whose max_m >= M runs the problem. target_per_sm is
// how many CTAs per SM the split aims at (at most the kernel's occupancy, which the launcher
// asks the device): enough warps to stream B and feed the FFMA pipes, no more, since each extra
// CTA adds a split and the reducing CTA's tail.
struct TileShape {
  int bm, bn, bk;
  int target_per_sm;
  int64_t max_m;
};
inline constexpr TileShape kTiles[] = {
    {16, 128, 32, 2, 16},
    {32, 128, 16, 2, 32},
    {64, 128, 8, 2, 64},
    {128, 64, 16, 3, INT64_MAX},
};
inline constexpr int kTileCount = sizeof(kTiles) / sizeof(kTiles[0]);

// Index into kTiles of the configuration that runs M rows.
inline int tile_for(int64_t m) {
  for (int i = 0; i < kTileCount; ++i)
    if (m <= kTiles[i].max_m) return i;
  return kTileCount - 1;
}

// How many of the k-tiles [begin, begin + count) lie wholly below K (K, BK as given to the
// schedule): all but a last one that crosses K when K % BK != 0.
GB_HD int full_k_tiles(int begin, int count, int k, int bk) {
  const int below = k / bk - begin;
  return below < 0 ? 0 : below < count ? below : count;
}

struct Schedule {
  int tiles_m = 1, tiles_n = 1;
  int k_tiles = 0;  // ceil(K / BK); 0 when K = 0 (the product is then beta * C)
  int splits = 1;   // 1 <= splits <= max(1, k_tiles / kMinKTilesPerSplit), <= kMaxSplits

  GB_HD int tiles() const { return tiles_m * tiles_n; }
  // First k-tile of split s (s in [0, splits]; s = splits gives k_tiles).
  GB_HD int k_tile_begin(int s) const { return int(int64_t(s) * k_tiles / splits); }
  // Tile t's counter index is t; split s of tile t stores its partial in slot(t, s).
  GB_HD int64_t slot(int tile, int s) const { return int64_t(tile) * splits + s; }
  GB_HD int64_t slots() const { return int64_t(tiles()) * splits; }
  // How many of split s's k-tiles lie wholly below K: all but the last k-tile of the last split
  // when K % BK != 0, which crosses K.
  GB_HD int full_k_tiles(int s, int k, int bk) const {
    return splitk::full_k_tiles(k_tile_begin(s), k_tile_begin(s + 1) - k_tile_begin(s), k, bk);
  }
};

// target_ctas: CTAs of this configuration the device should hold at once (SMs x
// min(occupancy, target_per_sm)). The caller has checked that the tile counts fit in int.
GB_HD Schedule make_schedule(int64_t m, int64_t n, int64_t k, int bm, int bn, int bk,
                             int64_t target_ctas) {
  Schedule s;
  s.tiles_m = int((m + bm - 1) / bm);
  s.tiles_n = int((n + bn - 1) / bn);
  s.k_tiles = int((k + bk - 1) / bk);
  int64_t splits = target_ctas / s.tiles();
  const int64_t by_k = s.k_tiles / kMinKTilesPerSplit;
  if (splits > by_k) splits = by_k;
  if (splits > kMaxSplits) splits = kMaxSplits;
  s.splits = splits < 1 ? 1 : int(splits);
  return s;
}

// Stream-K (sgemm_streamk): for squares whose tiles fill the SMs' slots unevenly (1536^3: 72
// tiles of 256x128 on 132 SMs). Every tile's k-tiles laid end to end, tile by tile (iteration
// t * k_tiles + g is k-tile g of tile t), are cut into `ctas` contiguous ranges of the floor or
// ceiling of the average, one per CTA, all resident at once: every SM gets the same number of
// k-tiles, whatever the tile count. A CTA walks its range as segments, one per tile it touches.
// A segment that is a whole tile stores C itself; the others are parts of a tile shared with the
// neighbouring CTAs, and only the first and the last segment of a range can be one, so each CTA
// owns two workspace slots (slot 2c: its first segment's partial, 2c + 1: its last's). The last
// part of a tile to arrive sums every part's slot in CTA order, as sgemm_splitk does.
struct Segment {
  int tile;            // t = tile_n * tiles_m + tile_m, as Schedule's tiles
  int k_begin;         // first k-tile of the tile this segment runs
  int count;           // k-tiles it runs (at least 1)
  int parts;           // CTAs that share the tile (1: a whole tile, no fixup)
  int part;            // this CTA's place among them, in CTA order
  int first;           // the tile's first CTA
  int64_t first_slot;  // the workspace slot of the first CTA's part (StreamK::slot)
};

struct StreamK {
  int tiles_m = 1, tiles_n = 1;
  int k_tiles = 1;  // ceil(K / BK), at least 1 (K = 0 runs one zero-filled k-tile)
  int ctas = 1;     // 1 <= ctas <= iters() / kMinKTilesPerSplit, or 1

  GB_HD int tiles() const { return tiles_m * tiles_n; }
  GB_HD int64_t iters() const { return int64_t(tiles()) * k_tiles; }
  // First iteration of CTA c's range (c in [0, ctas]; c = ctas gives iters()).
  GB_HD int64_t begin(int c) const { return int64_t(c) * iters() / ctas; }
  // The CTA whose range holds iteration it: the largest c with begin(c) <= it.
  GB_HD int cta_of(int64_t it) const { return int(((it + 1) * ctas - 1) / iters()); }
  // The segment of CTA c that starts at iteration it (begin(c) <= it < begin(c + 1)).
  GB_HD Segment segment(int c, int64_t it) const {
    Segment s;
    s.tile = int(it / k_tiles);
    s.k_begin = int(it - int64_t(s.tile) * k_tiles);
    const int64_t tile_begin = int64_t(s.tile) * k_tiles, tile_end = tile_begin + k_tiles;
    const int64_t end = begin(c + 1);
    s.count = int((end < tile_end ? end : tile_end) - it);
    s.first = cta_of(tile_begin);
    s.parts = cta_of(tile_end - 1) - s.first + 1;
    s.part = c - s.first;
    s.first_slot = slot(s.first, s.tile);
    return s;
  }
  // Workspace slot of CTA c's part of tile t: its first segment's when its range starts inside
  // t (at or after t's first k-tile), else its last's.
  GB_HD int64_t slot(int c, int tile) const {
    return 2 * int64_t(c) + (begin(c) >= int64_t(tile) * k_tiles ? 0 : 1);
  }
  // The same for part p of segment g's tile, without a division: every part after the first
  // starts inside the tile.
  GB_HD static int64_t part_slot(const Segment& g, int p) {
    return p == 0 ? g.first_slot : 2 * int64_t(g.first + p);
  }
  GB_HD int64_t slots() const { return 2 * int64_t(ctas); }
};

// target_ctas as for make_schedule. The caller has checked that iters() * target_ctas fits in
// int64 (supports()).
GB_HD StreamK make_stream_k(int64_t m, int64_t n, int64_t k, int bm, int bn, int bk,
                            int64_t target_ctas) {
  StreamK w;
  w.tiles_m = int((m + bm - 1) / bm);
  w.tiles_n = int((n + bn - 1) / bn);
  const int64_t k_tiles = (k + bk - 1) / bk;
  w.k_tiles = k_tiles < 1 ? 1 : int(k_tiles);
  // Each range at least kMinKTilesPerSplit long: ctas < iters, so no range is empty and every
  // CTA between a tile's first and last has a part of it.
  int64_t ctas = w.iters() / kMinKTilesPerSplit;
  if (ctas > target_ctas) ctas = target_ctas;
  w.ctas = ctas < 1 ? 1 : int(ctas);
  return w;
}

// Row-major shared tiles of a K-contiguous op(B) (sgemm_splitk's B_ROWS configurations): offset
// in floats of B(n, k) within a stage of BK-float rows. Row n's 16-byte chunk c (k = 4c..4c+3)
// is stored at chunk c ^ ((n / 4) % (BK / 4)): a thread's columns come in groups of 4 (n a
// multiple of 4 plus 0..3), so the lanes that read one k of their groups' first columns, rows 4
// apart, land in distinct chunks, hence distinct banks (the chunks of a 32-float row span all 32).
template <int BK>
GB_HD constexpr int b_row_offset(int n, int k) {
  static_assert(BK % 4 == 0 && BK >= 4, "rows of whole 16-byte chunks");
  return n * BK + (((k / 4) ^ ((n / 4) % (BK / 4))) * 4) + k % 4;
}

// Float4 number, within a workspace slot, of thread `tid`'s accumulators (rows 4q..4q+3 of its
// thread tile, column j): the block's THREADS threads store one float4 each per (q, j), so a
// warp writes 512 contiguous bytes, and the reducing CTA's thread tid reads back exactly the
// elements its own accumulators hold.
template <int TN, int THREADS>
GB_HD constexpr int partial_index(int q, int j, int tid) {
  return (q * TN + j) * THREADS + tid;
}

}  // namespace gemmbench::sgemm::splitk
