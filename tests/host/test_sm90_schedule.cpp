// The Hopper kernel's tile schedule (kernels/common/sm90/schedule.hpp), the same code the kernel
// runs: over many shapes, tile sizes and grid sizes, every output tile is computed exactly once,
// and under stream-K every k-block of every tile exactly once, with each split tile finished by
// one cluster that gathers exactly the partials the other clusters publish.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/sm90/schedule.hpp"

using namespace gemmbench;

namespace {

struct Item {
  int cluster;
  Sm90Work w;
};

// Every cluster's work items, in its processing order.
std::vector<std::vector<Sm90Work>> walk(const Sm90Schedule& s, bool stream_k) {
  std::vector<std::vector<Sm90Work>> out(s.clusters);
  for (int c = 0; c < s.clusters; ++c) {
    Sm90Work w{};
    if (stream_k) {
      Sm90WorkIter<true> it(s, c);
      while (it.next(w)) out[c].push_back(w);
    } else {
      Sm90WorkIter<false> it(s, c);
      while (it.next(w)) out[c].push_back(w);
    }
  }
  return out;
}

void check(int m, int n, int k, int bm, int bn, int cluster, int clusters_max, bool stream_k,
           int bk = 64, int elem_bytes = 2, int decode_tail = kDecodeTailWhole) {
  const Sm90Schedule s = make_schedule(m, n, k, bm, bn, bk, cluster, clusters_max, stream_k, false,
                                       elem_bytes, decode_tail);
  SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k << " tile " << bm << "x" << bn
                                  << " cluster " << cluster << " grid " << s.clusters
                                  << (stream_k ? " stream-K" : ""));
  ASSERT_GE(s.clusters, 1);
  ASSERT_LE(s.clusters, clusters_max < 1 ? 1 : clusters_max);
  EXPECT_EQ(s.tiles_total, s.tiles_m * s.cluster_tiles_n);
  const auto items = walk(s, stream_k);

  // k-block coverage per cluster tile: count[tile][kb].
  std::map<std::pair<int, int>, std::vector<int>> count;
  std::map<std::pair<int, int>, std::vector<int>> finishers, partial_holders;
  for (int c = 0; c < s.clusters; ++c) {
    int partials = 0;
    for (size_t i = 0; i < items[c].size(); ++i) {
      const Sm90Work& w = items[c][i];
      ASSERT_GE(w.tile.m, 0);
      ASSERT_LT(w.tile.m, s.tiles_m);
      ASSERT_GE(w.tile.n, 0);
      ASSERT_LT(w.tile.n, s.cluster_tiles_n);
      ASSERT_LE(0, w.kb_begin);
      ASSERT_LT(w.kb_begin, w.kb_end);
      ASSERT_LE(w.kb_end, s.k_blocks);
      auto& v = count[{w.tile.m, w.tile.n}];
      v.resize(s.k_blocks);
      for (int kb = w.kb_begin; kb < w.kb_end; ++kb) ++v[kb];
      if (w.sk_tile < 0) {
        EXPECT_EQ(w.kb_begin, 0);
        EXPECT_EQ(w.kb_end, s.k_blocks);
        continue;
      }
      ASSERT_TRUE(stream_k);
      if (w.kb_end < s.k_blocks) {
        ++partials;
        // Published first, before the cluster's other stream-K work: a finisher waiting for
        // it never waits on that cluster's own fix-up.
        for (size_t j = 0; j < i; ++j) EXPECT_LT(items[c][j].sk_tile, 0) << "cluster " << c;
        partial_holders[{w.sk_tile, 0}].push_back(c);
      } else if (w.kb_begin > 0) {
        finishers[{w.sk_tile, 0}].push_back(c);
      }
    }
    EXPECT_LE(partials, 1) << "cluster " << c << ": one workspace slot per launch";
  }
  // Every valid cluster tile, every k-block, exactly once.
  EXPECT_EQ(int(count.size()), s.tiles_total);
  for (int tm = 0; tm < s.tiles_m; ++tm)
    for (int tn = 0; tn < s.cluster_tiles_n; ++tn) {
      const auto it = count.find({tm, tn});
      ASSERT_NE(it, count.end()) << "tile (" << tm << "," << tn << ") never computed";
      for (int kb = 0; kb < s.k_blocks; ++kb)
        ASSERT_EQ(it->second[kb], 1) << "tile (" << tm << "," << tn << ") k-block " << kb;
    }
  // Each split tile: one finisher, which gathers exactly the clusters holding its partials, all
  // lower-numbered (a cluster waits only for lower ones: no deadlock).
  for (const auto& [key, holders] : partial_holders) {
    const auto f = finishers.find(key);
    ASSERT_NE(f, finishers.end()) << "stream-K tile " << key.first << " has no finisher";
    ASSERT_EQ(f->second.size(), 1u);
    const int fin = f->second[0];
    std::set<int> gathered;
    for (int cc = sk_prev_contributor(s, fin, key.first); cc >= 0;
         cc = sk_prev_contributor(s, cc, key.first)) {
      EXPECT_LT(cc, fin);
      EXPECT_TRUE(gathered.insert(cc).second);
    }
    EXPECT_EQ(gathered, std::set<int>(holders.begin(), holders.end()));
    if (s.dp_tiles > 0 || s.tiles_total >= s.clusters)
      EXPECT_LE(holders.size(), 2u) << "at most 2 partials per finisher (sk_tile_count)";
    else  // every tile split: a partial per cluster whose range ends inside the tile
      EXPECT_LE(int(holders.size()), s.k_blocks / kSkMinKBlocks + 1);
  }
  for (const auto& [key, fins] : finishers)
    EXPECT_TRUE(partial_holders.count(key)) << "a finisher with kb_begin > 0 gathers something";
}

}  // namespace

TEST(Sm90Schedule, StreamKTileCount) {
  EXPECT_EQ(sk_tile_count(320, 66), 320 % 66);  // 56: more than half a wave
  EXPECT_EQ(sk_tile_count(132, 66), 0);         // whole waves: no stream-K
  EXPECT_EQ(sk_tile_count(70, 66), 4 + 66);     // under half a wave: one more wave joins
  EXPECT_EQ(sk_tile_count(5, 7), 5);
}

TEST(Sm90Schedule, RasterIsTheDefaultWidth) {
  const Sm90Schedule s = make_schedule(5120, 4096, 4096, 256, 128, 64, 2, 66, false);
  EXPECT_EQ(s.cluster_tiles_n, 16);
  EXPECT_EQ(s.log_tile, raster_log_tile(16, 8));
  EXPECT_EQ(s.tiles_total, 20 * 16);
  EXPECT_EQ(s.clusters, 66);
  EXPECT_EQ(s.k_blocks, 64);
}

TEST(Sm90Schedule, EveryTileAndKBlockOnce) {
  const int dims[] = {1, 7, 64, 127, 128, 129, 255, 256, 257, 1000, 2048, 5120};
  const int ks[] = {1, 63, 64, 65, 200, 4096};
  const int grids[] = {1, 2, 3, 5, 7, 13, 66, 132};
  for (int cluster : {1, 2})
    for (bool stream_k : {false, true})
      for (int m : dims)
        for (int n : dims)
          for (int k : ks)
            for (int g : grids) {
              check(m, n, k, 256, 128, cluster, g, stream_k);
              if (testing::Test::HasFatalFailure()) return;
            }
}

TEST(Sm90Schedule, OtherTileShapes) {
  for (int bm : {128, 256})
    for (bool stream_k : {false, true})
      for (int m : {100, 1000, 4096})
        for (int n : {100, 1000, 4096})
          for (int g : {1, 4, 9, 66}) check(m, n, 777, bm, 128, 2, g, stream_k);
}

// The plain walk hands every cluster floor or ceil of tiles_total / clusters tiles, in raster
// order. At 4096x7168 (28 cluster-tile columns: 3 bands of 8 and one of 4) striding over the raw
// raster slots gave some clusters 8 tiles where the average is 6.8; the dense walk gives 7.
TEST(Sm90Schedule, PlainWalkIsBalancedAndInRasterOrder) {
  for (int n : {2112, 4096, 7168, 10240, 2560})
    for (int m : {4096, 2560, 1536}) {
      const Sm90Schedule s = make_schedule(m, n, 4096, 256, 128, 64, 2, 66, false);
      SCOPED_TRACE(testing::Message() << m << "x" << n);
      const auto items = walk(s, false);
      const int lo = s.tiles_total / s.clusters;
      const int hi = (s.tiles_total + s.clusters - 1) / s.clusters;
      for (const auto& v : items) {
        EXPECT_GE(int(v.size()), lo);
        EXPECT_LE(int(v.size()), hi);
      }
      // Cluster c's i-th tile is the (c + i * clusters)-th valid slot of the raster.
      std::vector<TileCoord> raster_order;
      for (int t = 0; t < s.raster_total; ++t) {
        const TileCoord tc = raster_tile(t % s.raster_x, t / s.raster_x, s.log_tile);
        if (raster_tile_valid(tc, s.tiles_m, s.cluster_tiles_n)) raster_order.push_back(tc);
      }
      ASSERT_EQ(int(raster_order.size()), s.tiles_total);
      for (int c = 0; c < s.clusters; ++c)
        for (size_t i = 0; i < items[c].size(); ++i) {
          const TileCoord want = raster_order[c + i * s.clusters];
          EXPECT_EQ(items[c][i].tile.m, want.m);
          EXPECT_EQ(items[c][i].tile.n, want.n);
        }
    }
  const Sm90Schedule s = make_schedule(4096, 7168, 2048, 256, 128, 64, 2, 66, false);
  EXPECT_EQ(s.tiles_total, 448);
  size_t most = 0;
  for (const auto& v : walk(s, false)) most = std::max(most, v.size());
  EXPECT_EQ(most, 7u);
}

// Fewer tiles than clusters under stream-K with a tile of at most 128x128. One row of tiles (the
// decode path: 1-CTA clusters, 132 of them): every tile is split into decode_split_count equal
// parts, about half the grid; more rows (a small square): every tile is split over up to the
// whole grid, each cluster taking at least kSkMinKBlocks k-blocks. The plain walk keeps one
// cluster per tile, and so does the 256x128 tile under stream-K.
TEST(Sm90Schedule, FewTilesSplitEveryTileOverTheGrid) {
  const Sm90Schedule s = make_schedule(16, 4096, 4096, 32, 128, 64, 1, 132, true);
  EXPECT_EQ(s.tiles_total, 32);
  EXPECT_EQ(s.clusters, 64) << "32 tiles in 2 parts: half of the 132 SMs";
  EXPECT_EQ(s.dp_tiles, 0);
  EXPECT_EQ(s.sk_units, 32LL * 64);
  const Sm90Schedule plain = make_schedule(16, 4096, 4096, 32, 128, 64, 1, 132, false);
  EXPECT_EQ(plain.clusters, 32);
  const Sm90Schedule wide = make_schedule(128, 4096, 4096, 256, 128, 64, 2, 66, true);
  EXPECT_EQ(wide.tiles_total, 16);
  EXPECT_EQ(wide.clusters, 16) << "256x128 tiles are not split (kSkSplitMaxTileArea)";
  EXPECT_EQ(wide.dp_tiles, 16);
  // Short K: the grid stops where a cluster would get under kSkMinKBlocks k-blocks.
  const Sm90Schedule short_k = make_schedule(1024, 1024, 1024, 128, 128, 64, 1, 132, true);
  EXPECT_EQ(short_k.tiles_total, 64);
  EXPECT_EQ(short_k.clusters, 64 * 16 / kSkMinKBlocks > 132 ? 132 : 64 * 16 / kSkMinKBlocks);
  const Sm90Schedule tiny = make_schedule(64, 128, 64, 64, 128, 64, 1, 132, true);
  EXPECT_EQ(tiny.clusters, 1);
  struct Tile {
    int bm, bn;
  };
  const Tile tiles[] = {{32, 128}, {128, 128}, {64, 128}};
  const Sm90Schedule* scheds[] = {&s, &short_k, &tiny};
  for (int i = 0; i < 3; ++i) {
    const Sm90Schedule& sched = *scheds[i];
    check(sched.tiles_m * tiles[i].bm, sched.cluster_tiles_n * tiles[i].bn, sched.k_blocks * 64,
          tiles[i].bm, tiles[i].bn, 1, 132, true);
    if (testing::Test::HasFatalFailure()) return;
  }
}

// One row of tiles filling the grid: whole tiles when K is short (at most 64 k-blocks), the
// stream-K tail over the last waves when it is long; more rows keep the tail.
TEST(Sm90Schedule, DecodeWholeTilesAtShortK) {
  const Sm90Schedule short_k = make_schedule(16, 32768, 512, 32, 128, 64, 1, 132, true);
  EXPECT_EQ(short_k.tiles_total, 256);
  EXPECT_EQ(short_k.clusters, 132);
  EXPECT_EQ(short_k.dp_tiles, 256);
  EXPECT_EQ(short_k.sk_units, 0);
  const Sm90Schedule k4096 = make_schedule(128, 28672, 4096, 128, 128, 64, 1, 132, true);
  EXPECT_EQ(k4096.dp_tiles, k4096.tiles_total) << "64 k-blocks: still whole";
  const Sm90Schedule long_k = make_schedule(16, 36864, 7168, 32, 128, 64, 1, 132, true);
  EXPECT_EQ(long_k.tiles_total, 288);
  EXPECT_LT(long_k.dp_tiles, long_k.tiles_total) << "112 k-blocks: the stream-K tail";
  EXPECT_GT(long_k.sk_units, 0);
  const Sm90Schedule rows = make_schedule(1024, 32768, 512, 128, 128, 64, 1, 132, true);
  EXPECT_LT(rows.dp_tiles, rows.tiles_total) << "8 rows of tiles: not a decode shape";
  for (const Sm90Schedule* s : {&short_k, &long_k})
    check(s->tiles_m * 32, s->cluster_tiles_n * 128, s->k_blocks * 64, 32, 128, 1, 132, true);
}

// The FP8 decode walk's last wave (make_schedule's decode_tail, kDecodeTailFit): where the 16-bit
// path walks every tile whole on the whole grid, whole waves where they keep 4/5 of the grid or K
// is short, else the stream-K tail; the choices at the five measured shapes, and every tile and
// k-block once.
TEST(Sm90Schedule, DecodeTailFitsWholeWavesOrSplitsTheTail) {
  struct Shape {
    int n, k, clusters;
    bool whole;
  };
  // 128-row FP8 tiles (k-blocks of 128), 132 SMs.
  for (const Shape& t :
       {Shape{57344, 8192, 112, true}, Shape{28672, 4096, 112, true}, Shape{24576, 1536, 96, true},
        Shape{36864, 7168, 132, false}, Shape{32768, 512, 128, true}}) {
    SCOPED_TRACE(testing::Message() << "16x" << t.n << "x" << t.k);
    const Sm90Schedule fit =
        make_schedule(16, t.n, t.k, 32, 128, 128, 1, 132, true, false, 2, kDecodeTailFit);
    EXPECT_EQ(fit.clusters, t.clusters);
    EXPECT_EQ(fit.dp_tiles == fit.tiles_total, t.whole);
    const Sm90Schedule plain = make_schedule(16, t.n, t.k, 32, 128, 128, 1, 132, true);
    EXPECT_EQ(plain.clusters, 132) << "the 16-bit path's walk is unchanged";
    EXPECT_EQ(plain.dp_tiles, plain.tiles_total);
    check(16, t.n, t.k, 32, 128, 1, 132, true, 128, 2, kDecodeTailFit);
  }
  const Sm90Schedule long_k =
      make_schedule(16, 36864, 18432, 32, 128, 128, 1, 132, true, false, 2, kDecodeTailFit);
  EXPECT_EQ(long_k.clusters, 132) << "144 k-blocks: the stream-K tail, as before";
  EXPECT_LT(long_k.dp_tiles, long_k.tiles_total);
  const Sm90Schedule rows =
      make_schedule(1024, 32768, 512, 128, 128, 64, 1, 132, true, false, 2, kDecodeTailFit);
  EXPECT_EQ(rows.clusters, 132) << "8 rows of tiles: not a decode shape";
}

// The decode split: equal parts per tile for about half the grid (all of it for a 128-token
// tile over more than 40 MB of weights), none under kSkMinKBlocks k-blocks, 1 from that many
// tiles up; and with it every tile has exactly that many
// contributors, each holding one range inside the tile (no cluster straddles two tiles).
TEST(Sm90Schedule, DecodeSplitIsEqualPartsPerTile) {
  EXPECT_EQ(decode_grid_target(32, 4096, 4096, 132), 66);
  EXPECT_EQ(decode_grid_target(128, 4096, 4096, 132), 66) << "32 MB of weights";
  EXPECT_EQ(decode_grid_target(128, 6144, 4096, 132), 132) << "48 MB with a 128-token tile";
  EXPECT_EQ(decode_grid_target(64, 8192, 8192, 132), 66);
  EXPECT_EQ(decode_split_count(32, 64, 66), 2);
  EXPECT_EQ(decode_split_count(17, 112, 66), 3);
  EXPECT_EQ(decode_split_count(56, 32, 66), 1);
  EXPECT_EQ(decode_split_count(48, 64, 132), 2);
  EXPECT_EQ(decode_split_count(80, 128, 66), 1);
  EXPECT_EQ(decode_split_count(1, 8, 66), 2) << "K = 512: at most 8 / kSkMinKBlocks parts";
  EXPECT_EQ(decode_split_count(1, 3, 66), 1);
  EXPECT_EQ(decode_split_count(4, 1000, 4), 1) << "a capped grid of 8: half is 4, one each";
  for (int bm : {32, 128})
    for (int n : {128, 1000, 2112, 4096, 7168, 8192}) {
      for (int k : {64, 512, 2048, 7168, 14336}) {
        for (int clusters_max : {8, 64, 132}) {
          const Sm90Schedule s = make_schedule(bm / 2, n, k, bm, 128, 64, 1, clusters_max, true);
          if (s.tiles_total >= clusters_max) continue;
          const int split = decode_split_count(s.tiles_total, s.k_blocks,
                                               decode_grid_target(bm, n, k, clusters_max));
          EXPECT_EQ(s.clusters, s.tiles_total * split) << n << "x" << k << " grid " << clusters_max;
          EXPECT_LE(s.clusters, clusters_max);
          if (split == 1) {
            EXPECT_EQ(s.dp_tiles, s.tiles_total);
            continue;
          }
          EXPECT_EQ(s.dp_tiles, 0);
          for (int c = 0; c < s.clusters; ++c) {
            const long long b = sk_range_begin(s, c), e = sk_range_begin(s, c + 1);
            EXPECT_EQ(b / s.k_blocks, c / split) << "cluster " << c << " starts in its own tile";
            EXPECT_EQ((e - 1) / s.k_blocks, c / split) << "cluster " << c << " ends in it too";
            EXPECT_GE(e - b, kSkMinKBlocks);
          }
        }
      }
    }
}

// The in-cluster split (hgemm_decode_sm90): for every cluster size, each of the tile's 8 warp
// blocks has one owner, every CTA owns at least one, the receive slots of an owner are distinct
// and within cs_slots (and cs_slots_max, which the kernel's ring is sized for), and the CTAs of
// a cluster cover the tile's k-blocks once, in equal non-empty ranges.
TEST(Sm90Schedule, ClusterSplitOwnersSlotsAndRanges) {
  // 8 warp blocks (the 128-row weight tile), and 4 (the 64-row one, at most 4 parts).
  for (int blocks : {kCsWarpBlocks, kCsN64Blocks})
    for (int parts = 1; parts <= kCsMaxParts && parts <= blocks; ++parts) {
      SCOPED_TRACE("blocks " + std::to_string(blocks) + " parts " + std::to_string(parts));
      std::vector<int> owned(parts, 0);
      std::set<std::pair<int, int>> slots;  // (owner, slot)
      for (int wb = 0; wb < blocks; ++wb) {
        const int o = cs_owner(wb, parts, blocks);
        ASSERT_GE(o, 0);
        ASSERT_LT(o, parts);
        ++owned[o];
        EXPECT_GE(wb, cs_first_block(o, parts, blocks));
        if (o + 1 < parts) EXPECT_LT(wb, cs_first_block(o + 1, parts, blocks));
        for (int sender = 0; sender < parts; ++sender) {
          const int slot = cs_slot(wb, sender, parts, blocks);
          EXPECT_GE(slot, 0);
          EXPECT_LT(slot, cs_slots(parts, blocks));
          EXPECT_TRUE(slots.insert({o, slot}).second) << "wb " << wb << " sender " << sender;
        }
      }
      for (int r = 0; r < parts; ++r) EXPECT_GE(owned[r], 1) << "rank " << r << " owns nothing";
      EXPECT_LE(cs_slots(parts, blocks), cs_slots_max(blocks));
    }
  EXPECT_EQ(cs_slots_max(), 14);             // parts = 7: two blocks x 7 ranks
  EXPECT_EQ(cs_slots_max(kCsN64Blocks), 6);  // parts = 3: two blocks x 3 ranks
  // The 64-row tile's parts: the whole grid, at most its 4 blocks, none where the tiles fill it.
  for (int bm : {32, 64, 128}) {
    EXPECT_EQ(cs_parts(64, 64, bm, 132, kCsN64Blocks, true), 2);   // 4096 wide: 128 CTAs
    EXPECT_EQ(cs_parts(33, 112, bm, 132, kCsN64Blocks, true), 4);  // 2112 wide: 4 wanted, 4 allowed
    EXPECT_EQ(cs_parts(17, 112, bm, 132, kCsN64Blocks, true), 4);  // 7 wanted
    EXPECT_EQ(cs_parts(96, 64, bm, 132, kCsN64Blocks, true), 1);   // 6144 wide: no split
  }
  // Without it the same four blocks take rung 12's half-grid target: 16x4096x4096 in 1 part.
  EXPECT_EQ(cs_parts(64, 64, 32, 132, kCsN64Blocks), 1);
  EXPECT_EQ(cs_parts_for(8, 112, 132, kCsN64Blocks), kCsN64Blocks) << "the test cap, too";

  // The work items: one per CTA, the cluster's tile, ranges that tile [0, k_blocks).
  for (int k : {256, 520, 4096, 7168}) {
    const Sm90Schedule s = make_schedule(16, 2112, k, 32, 128, 64, 1, 1 << 30, false);
    for (int parts = 2; parts <= kCsMaxParts; ++parts) {
      if (s.k_blocks < parts) continue;
      for (int tile = 0; tile < s.tiles_total; tile += 5) {
        int next = 0;
        for (int r = 0; r < parts; ++r) {
          Sm90ClusterSplitIter it(s, tile * parts + r, parts);
          Sm90Work w{};
          ASSERT_TRUE(it.next(w));
          EXPECT_FALSE(it.next(w)) << "one item per CTA";
          const TileCoord want = dense_cluster_tile(s, tile);
          EXPECT_EQ(w.tile.m, want.m);
          EXPECT_EQ(w.tile.n, want.n);
          EXPECT_EQ(w.kb_begin, next);
          EXPECT_GT(w.kb_end, w.kb_begin) << "an empty range leaves its accumulators unset";
          EXPECT_LE(w.kb_end - w.kb_begin, s.k_blocks / parts + 1);
          EXPECT_EQ(w.sk_tile, -1);
          next = w.kb_end;
        }
        EXPECT_EQ(next, s.k_blocks);
      }
    }
  }
  // The cluster size never exceeds the portable limit, and keeps 4 k-blocks per part.
  EXPECT_EQ(cs_parts_for(8, 112, 132), kCsMaxParts);  // 16 parts wanted
  EXPECT_EQ(cs_parts_for(17, 112, 132), 7);
  EXPECT_EQ(cs_parts_for(32, 64, 66), 2);
  EXPECT_EQ(cs_parts_for(32, 8, 132), 2);
  EXPECT_EQ(cs_parts_for(200, 64, 132), 1);
}

// The rule by shape on 132 SMs, at the decode layers of the candidate runs it came from (tiles of
// 128 weight rows; k-blocks of 64): half the grid for the 32- and 64-token tiles, the whole grid
// for the 128-token tile from 64 k-blocks, two parts for long K up to 66 tiles.
TEST(Sm90Schedule, ClusterSplitRuleAtTheDecodeLayers) {
  const int g = 132;
  auto parts = [&](int m, int n, int k) {
    const int bm = m <= 32 ? 32 : m <= 64 ? 64 : 128;
    return cs_parts((n + 127) / 128, (k + 63) / 64, bm, g);
  };
  EXPECT_EQ(parts(16, 2112, 7168), 3);   // 17 tiles
  EXPECT_EQ(parts(16, 4096, 4096), 2);   // 32 tiles
  EXPECT_EQ(parts(64, 4096, 14336), 2);  // 32 tiles, long K: already split
  EXPECT_EQ(parts(16, 6144, 4096), 1);   // 48 tiles, 64 k-blocks: whole tiles
  EXPECT_EQ(parts(16, 7168, 2048), 1);   // 56 tiles, 32 k-blocks
  EXPECT_EQ(parts(16, 7168, 16384), 2);  // 56 tiles, long K
  EXPECT_EQ(parts(64, 8192, 8192), 2);   // 64 tiles, 128 k-blocks
  EXPECT_EQ(parts(16, 10240, 8192), 1);  // 80 tiles: more than half the grid
  EXPECT_EQ(parts(128, 2112, 7168), 7);  // the whole grid (the launcher lowers it to fit)
  EXPECT_EQ(parts(128, 4096, 4096), 4);
  EXPECT_EQ(parts(128, 6144, 4096), 2);
  EXPECT_EQ(parts(128, 7168, 2048), 1);  // 32 k-blocks: half the grid, no split
  EXPECT_EQ(parts(1, 7168, 16384), 2);   // one token at long K (rung 12 there)
  EXPECT_EQ(parts(16, 28672, 4096), 1);  // more tiles than SMs: the walk
}

TEST(Sm90Schedule, FittedTokenTileCoversTheTokensOnThePair) {
  // fp8gemm_decode_sm90_wmcfit (fit up to 56): two tiles of 8, 16, 24, 32, 40, 48, 56 or 64
  // tokens, the fewest that cover them; the boundaries on both sides.
  const int expect[][2] = {{9, 8},   {16, 8},  {17, 16},  {32, 16},  {33, 24}, {48, 24},
                           {49, 32}, {64, 32}, {65, 40},  {72, 40},  {80, 40}, {81, 48},
                           {96, 48}, {97, 56}, {112, 56}, {113, 64}, {128, 64}};
  for (const auto& e : expect) EXPECT_EQ(fitted_token_tile(e[0], 56), e[1]) << e[0] << " tokens";
  for (int m = 9; m <= 128; ++m) {
    const int t = fitted_token_tile(m, 56);
    EXPECT_GE(2 * t, m) << m << ": the pair covers the tokens";
    EXPECT_LT(2 * (t - 8), m) << m << ": no tile of 8 fewer would";
  }
  // Unfitted (_wmc): 32 up to 64 tokens, 64 past them; fitted no wider than asked (fit up to 8:
  // 8 at 9-16 tokens, then the unfitted widths).
  EXPECT_EQ(fitted_token_tile(16, 8), 8);
  EXPECT_EQ(fitted_token_tile(17, 8), 32);
  for (int m = 1; m <= 128; ++m)
    EXPECT_EQ(fitted_token_tile(m, 0), m <= 64 ? 32 : 64) << m << " tokens";
  EXPECT_EQ(fitted_token_tile(80, 40), 40);
  EXPECT_EQ(fitted_token_tile(81, 40), 64);
}

TEST(Sm90Schedule, DecodeN64WalkShorterWhereItsBusiestCtaHasFewerRows) {
  // Rule D5's line: F5's 128-row tiles on whole waves against its 64-row tile walked whole on the
  // whole grid, at up to 32 tokens on 132 CTAs; the rows of weights the busiest CTA streams.
  const int g = 132;
  EXPECT_TRUE(decode_n64_walk_shorter(16, 57344, 8192, g));   // 4 x 128 on 112 against 7 x 64
  EXPECT_TRUE(decode_n64_walk_shorter(1, 57344, 8192, g));    // one token: the same walk
  EXPECT_TRUE(decode_n64_walk_shorter(32, 59136, 8192, g));   // Qwen2.5-72B: 4 x 128 on 116
  EXPECT_TRUE(decode_n64_walk_shorter(8, 55296, 5120, g));    // Qwen2.5-32B
  EXPECT_TRUE(decode_n64_walk_shorter(16, 73728, 4608, g));   // Gemma-2-27B: 5 x 128 against 9 x 64
  EXPECT_FALSE(decode_n64_walk_shorter(33, 57344, 8192, g));  // two token tiles: not this walk
  EXPECT_FALSE(decode_n64_walk_shorter(16, 28672, 4096, g));  // 2 x 128 against 4 x 64: equal
  EXPECT_FALSE(decode_n64_walk_shorter(16, 65536, 5120, g));  // 4 x 128 on 128, 8 x 64 on 128
  // K past 64 k-blocks: the 64-row walk splits stream-K (and F5 too), no whole-tile walk to weigh.
  EXPECT_FALSE(decode_n64_walk_shorter(16, 57344, 12288, g));
  EXPECT_FALSE(decode_n64_walk_shorter(16, 36864, 7168, g));  // F5 splits its tail stream-K
  // Fewer 128-row tiles than CTAs: F5 splits each tile's K over a cluster, not this walk.
  EXPECT_FALSE(decode_n64_walk_shorter(16, 8192, 8192, g));
  EXPECT_FALSE(decode_n64_walk_shorter(4, 10240, 8192, g));
  // Every width of 64 rows from one to three waves of 128-row tiles: true exactly where the
  // 64-row walk's rows are fewer, and only where both walks are whole.
  for (int n = 64 * g; n <= 3 * 128 * g; n += 64) {
    const Sm90Schedule f5 =
        make_schedule(16, n, 4096, 32, 128, 128, 1, g, true, false, 2, kDecodeTailFit);
    const Sm90Schedule n64 =
        make_schedule(16, n, 4096, 32, 64, 128, 1, g, true, false, 2, kDecodeTailWhole);
    const bool whole =
        f5.tiles_total >= g && f5.dp_tiles == f5.tiles_total && n64.dp_tiles == n64.tiles_total;
    const long long r5 = 128LL * ((f5.tiles_total + f5.clusters - 1) / f5.clusters);
    const long long r64 = 64LL * ((n64.tiles_total + n64.clusters - 1) / n64.clusters);
    EXPECT_EQ(decode_n64_walk_shorter(16, n, 4096, g), whole && r64 < r5) << n;
    if (whole) EXPECT_LE(r64, r5) << n << ": the 64-row walk is never the longer";
  }
}

TEST(Sm90Schedule, SharedWeightRowsFitOneWaveDoubled) {
  // hgemm_decode_sm90_wmc at 65-128 tokens: the fewest of 64, 96, 128, 160, 192 rows whose tiles,
  // two CTAs each, fit 132 SMs; 0 where none does.
  const int g = 132;
  EXPECT_EQ(shared_weight_rows(100, g), 64);
  EXPECT_EQ(shared_weight_rows(4096, g), 64);   // 64 tiles, 128 CTAs (cuBLAS's 64x64 2x1)
  EXPECT_EQ(shared_weight_rows(4224, g), 64);   // 66 tiles: the whole grid
  EXPECT_EQ(shared_weight_rows(4225, g), 96);   // 67 tiles of 64 would be 134 CTAs
  EXPECT_EQ(shared_weight_rows(6144, g), 96);   // 64 tiles (cuBLAS's 64x96 2x1)
  EXPECT_EQ(shared_weight_rows(7168, g), 128);  // 56 tiles, 112 CTAs (cuBLAS's 64x128)
  EXPECT_EQ(shared_weight_rows(8192, g), 128);
  EXPECT_EQ(shared_weight_rows(10240, g), 160);  // 64 tiles, a partial third consumer
  EXPECT_EQ(shared_weight_rows(12288, g), 192);
  EXPECT_EQ(shared_weight_rows(12672, g), 192);  // 66 tiles
  EXPECT_EQ(shared_weight_rows(12673, g), 0);
  EXPECT_EQ(shared_weight_rows(4096, 64), 128);  // a smaller grid widens the tile
}

// The whole-wave grid (FP8's rung F3 family): no more waves than the full grid would walk, every
// cluster within one tile of the others, and fewer clusters where the last wave was partial.
// Every tile is still walked once (check() over the same shapes).
TEST(Sm90Schedule, WholeWavesKeepTheWaveCountOnFewerClusters) {
  for (int cluster : {1, 2})
    for (int m : {128, 1000, 4096})
      for (int n : {2112, 4096, 7168, 24576, 32768})
        for (int g : {1, 7, 64, 66, 132}) {
          const int cmax = cluster == 2 ? std::max(1, g / 2) : g;
          const Sm90Schedule full = make_schedule(m, n, 512, 256, 128, 64, cluster, cmax, false);
          const Sm90Schedule whole =
              make_schedule(m, n, 512, 256, 128, 64, cluster, cmax, false, true);
          SCOPED_TRACE(testing::Message()
                       << m << "x" << n << " cluster " << cluster << " grid " << cmax);
          const auto waves = [](const Sm90Schedule& s) {
            return (s.tiles_total + s.clusters - 1) / s.clusters;
          };
          EXPECT_LE(whole.clusters, full.clusters);
          EXPECT_EQ(waves(whole), waves(full));
          const auto items = walk(whole, false);
          size_t lo = items[0].size(), hi = lo;
          for (const auto& v : items) lo = std::min(lo, v.size()), hi = std::max(hi, v.size());
          EXPECT_LE(hi - lo, 1u);
          // No cluster left without a tile where there are at least as many tiles.
          EXPECT_GE(lo, 1u);
        }
  // DeepGEMM's grid at 4096x7168 on 256x128 tiles and 2-CTA clusters: 448 cluster tiles, 66
  // resident clusters, 7 waves either way, on 64 clusters (128 CTAs) rather than 66.
  EXPECT_EQ(make_schedule(4096, 7168, 16384, 256, 128, 128, 2, 66, false, true).clusters, 64);
  EXPECT_EQ(whole_wave_clusters(544, 132), 109);  // 128x128 tiles at 4096x2112: 5 waves
  EXPECT_EQ(whole_wave_clusters(100, 132), 132);  // fewer tiles than clusters: unchanged
  // Stream-K splits the last wave instead: the flag leaves its grid alone.
  EXPECT_EQ(make_schedule(4096, 7168, 2048, 128, 128, 128, 1, 132, true, true).clusters,
            make_schedule(4096, 7168, 2048, 128, 128, 128, 1, 132, true).clusters);
}

TEST(Sm90Schedule, WholeWavesWalkEveryTileOnce) {
  for (int m : {1, 129, 1000, 4096})
    for (int n : {63, 257, 2112, 5120})
      for (int g : {3, 7, 66, 132}) {
        const Sm90Schedule s = make_schedule(m, n, 700, 128, 128, 64, 1, g, false, true);
        std::set<std::pair<int, int>> seen;
        for (const auto& v : walk(s, false))
          for (const Sm90Work& w : v) {
            EXPECT_TRUE(seen.insert({w.tile.m, w.tile.n}).second);
            EXPECT_EQ(w.kb_begin, 0);
            EXPECT_EQ(w.kb_end, s.k_blocks);
          }
        EXPECT_EQ(int(seen.size()), s.tiles_total);
      }
}

// One-byte weights (FP8's 64x128 tile at M 64): the decode split reaches for the whole grid where
// two-byte weights take half of it.
TEST(Sm90Schedule, OneByteWeightsSplitOverTheWholeGrid) {
  const Sm90Schedule two = make_schedule(64, 4096, 7168, 64, 128, 128, 1, 132, true, false, 2);
  const Sm90Schedule one = make_schedule(64, 4096, 7168, 64, 128, 128, 1, 132, true, false, 1);
  EXPECT_EQ(two.tiles_total, 32);
  EXPECT_EQ(two.clusters, 64) << "32 tiles in 2 parts: half the grid";
  EXPECT_EQ(one.clusters, 128) << "32 tiles in 4 parts: the whole grid";
  EXPECT_EQ(one.dp_tiles, 0);
  EXPECT_EQ(one.sk_units, 32LL * 56);
  EXPECT_EQ(decode_grid_target(64, 2112, 7168, 132, 1), 132);
  EXPECT_EQ(decode_grid_target(64, 2112, 7168, 132, 2), 66);
  check(64, 4096, 7168, 64, 128, 1, 132, true, 128, 1);
}

// _m64's width of B: fill_tile_n, the fewest columns per CTA over the waves, the widest among
// equals; m64_tile_n, that width only where 128 rows of B split each tile more than 4 ways or
// K is at most 16 k-blocks, at one row of tiles. test_kernels' {64, 7168, 272} relies on 64 at
// 132 SMs, {37, 1000, 400} on 32; its capped grids take 128.
TEST(Sm90Schedule, FillTileNPicksTheWidthThatFillsTheWaves) {
  EXPECT_EQ(fill_tile_n(64, 4096, 64, 132), 32) << "128 tiles of 32: one wave";
  EXPECT_EQ(fill_tile_n(64, 7168, 64, 132), 64) << "112 tiles of 64, as few columns as 224 of 32";
  EXPECT_EQ(fill_tile_n(64, 32768, 64, 132), 128) << "every width takes 256 columns a CTA";
  EXPECT_EQ(fill_tile_n(64, 2112, 64, 132), 32) << "66 tiles of 32, split by stream-K";
  EXPECT_EQ(fill_tile_n(128, 4096, 64, 132), 64) << "two rows of 64 tiles";
  EXPECT_EQ(fill_tile_n(200, 384, 64, 1), 128) << "one CTA: every width the same";
  for (int n : {1, 33, 1000, 2112, 24576})
    for (int ctas : {1, 3, 7, 132}) {
      const int w = fill_tile_n(64, n, 64, ctas);
      EXPECT_TRUE(w == 32 || w == 64 || w == 128) << n << " " << ctas;
    }
}

// _m64c2's width: 16 rows of B only with its one consumer, at one row of tiles, in one wave;
// fill_tile_n's otherwise (which never picks 16).
TEST(Sm90Schedule, M64c2TakesSixteenRowsOfBInOneWaveOnly) {
  EXPECT_EQ(m64c2_tile_n(64, 2112, 132, true), 16) << "132 tiles of 16: one wave";
  EXPECT_EQ(m64c2_tile_n(32, 1024, 132, true), 16) << "64 tiles of 16";
  EXPECT_EQ(m64c2_tile_n(37, 1000, 132, true), 16) << "test_kernels' shape: 63 tiles of 16";
  EXPECT_EQ(m64c2_tile_n(64, 2112, 132, false), 32) << "two consumers: 66 tiles of 32";
  EXPECT_EQ(m64c2_tile_n(64, 2128, 132, true), 32) << "133 tiles of 16: past one wave";
  EXPECT_EQ(m64c2_tile_n(128, 2112, 132, true), 32) << "two rows of tiles";
  EXPECT_EQ(m64c2_tile_n(128, 7168, 132, true), 128)
      << "not 896 tiles of 16 (fill_tile_n's columns a CTA favour them; 0.336x the speed)";
  EXPECT_EQ(m64c2_tile_n(64, 4096, 132, true), fill_tile_n(64, 4096, 64, 132));
  for (int n : {1, 33, 1000, 2112, 24576})
    for (int ctas : {2, 6, 14, 132})
      for (int m : {1, 64, 65, 128}) {
        const int w = m64c2_tile_n(m, n, ctas, true);
        EXPECT_TRUE(w == 16 ? m <= 64 && (n + 15) / 16 <= ctas : w == fill_tile_n(m, n, 64, ctas))
            << m << "x" << n << " on " << ctas;
      }
}

// _m64's promotion: pipelined where it paid (12 k-blocks and up), a k-block at a time where it
// lost (4); the boundary is kM64PlainMaxKBlocks. test_kernels' capped grid at 37x1000x400 runs
// the plain loop (128 rows of B, 4 k-blocks), its longer 128-row cases the pipelined one.
TEST(Sm90Schedule, M64PipelinesThePromotionOnlyPastShortK) {
  EXPECT_FALSE(m64_pipelined_promotion(512)) << "64x32768x512: 4 k-blocks, 12.2 against 13.3 us";
  EXPECT_FALSE(m64_pipelined_promotion(400));
  EXPECT_FALSE(m64_pipelined_promotion(kM64PlainMaxKBlocks * 128));
  EXPECT_TRUE(m64_pipelined_promotion(kM64PlainMaxKBlocks * 128 + 1)) << "a partial k-block counts";
  EXPECT_TRUE(m64_pipelined_promotion(1536)) << "64x24576x1536: 12 k-blocks";
  EXPECT_TRUE(m64_pipelined_promotion(7168));
}

TEST(Sm90Schedule, M64TileNNarrowsOnlyWhereMeasuredToPay) {
  // DeepGEMM's six shapes at M 64 and 128, H200 (132 SMs): what was measured best.
  EXPECT_EQ(m64_tile_n(64, 2112, 7168, 132), 32) << "17 tiles of 128 split 7 ways";
  EXPECT_EQ(m64_tile_n(64, 24576, 1536, 132), 128) << "192 tiles of 128 fill the grid";
  EXPECT_EQ(m64_tile_n(64, 32768, 512, 132), 128);
  EXPECT_EQ(m64_tile_n(64, 7168, 16384, 132), 128) << "56 tiles split 2 ways, 128 k-blocks";
  EXPECT_EQ(m64_tile_n(64, 4096, 7168, 132), 128) << "32 tiles split 4 ways";
  EXPECT_EQ(m64_tile_n(64, 7168, 2048, 132), 64) << "16 k-blocks";
  for (int n : {2112, 24576, 32768, 7168, 4096})
    EXPECT_EQ(m64_tile_n(128, n, 7168, 132), 128) << "two rows of tiles: " << n;
  EXPECT_EQ(m64_tile_n(64, 7168, 272, 132), 64);  // test_kernels' shapes
  EXPECT_EQ(m64_tile_n(37, 1000, 400, 132), 32);
  EXPECT_EQ(m64_tile_n(37, 1000, 400, 7), 128) << "8 tiles of 128 on a grid of 7";
}
