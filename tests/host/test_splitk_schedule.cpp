// sgemm_splitk's index math (kernels/sgemm/splitk_schedule.hpp) replayed on the host: the tile
// chosen for M, the split derived from the shape and the CTAs the device holds, the k ranges the
// CTAs walk (every k-tile exactly once, only the last one crossing K), the workspace slots, and
// the thread-order layout of a partial tile; then a split product summed the kernel's way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "sgemm/splitk_schedule.hpp"

namespace gemmbench::sgemm::splitk {
namespace {

void check_schedule(int64_t m, int64_t n, int64_t k, int64_t target) {
  const TileShape& t = kTiles[tile_for(m)];
  SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) +
               " target=" + std::to_string(target));
  const Schedule s = make_schedule(m, n, k, t.bm, t.bn, t.bk, target);
  // Tiles cover C with no tile wholly outside it.
  EXPECT_GE(int64_t(s.tiles_m) * t.bm, m);
  EXPECT_LT(int64_t(s.tiles_m - 1) * t.bm, m);
  EXPECT_GE(int64_t(s.tiles_n) * t.bn, n);
  EXPECT_LT(int64_t(s.tiles_n - 1) * t.bn, n);
  EXPECT_GE(int64_t(s.k_tiles) * t.bk, k);
  EXPECT_LT(int64_t(s.k_tiles - 1) * t.bk, k);

  // The split: at least 1, within the target (one wave), the k-tile floor and the cap, and the
  // largest such (one more would break one of them).
  ASSERT_GE(s.splits, 1);
  EXPECT_LE(s.splits, kMaxSplits);
  if (s.splits > 1) {
    EXPECT_LE(int64_t(s.tiles()) * s.splits, target) << "more CTAs than the device holds";
    EXPECT_GE(s.k_tiles, s.splits * kMinKTilesPerSplit);
  }
  const int more = s.splits + 1;
  EXPECT_TRUE(int64_t(s.tiles()) * more > target || s.k_tiles < more * kMinKTilesPerSplit ||
              more > kMaxSplits)
      << "splits " << s.splits << " could have been " << more;

  // The k ranges: contiguous, in order, each at least kMinKTilesPerSplit long when split, all
  // k-tiles exactly once; full_k_tiles counts exactly the k-tiles wholly below K.
  EXPECT_EQ(s.k_tile_begin(0), 0);
  EXPECT_EQ(s.k_tile_begin(s.splits), s.k_tiles);
  for (int p = 0; p < s.splits; ++p) {
    const int begin = s.k_tile_begin(p), count = s.k_tile_begin(p + 1) - begin;
    if (s.splits > 1) EXPECT_GE(count, kMinKTilesPerSplit) << "split " << p;
    int full = 0;
    for (int g = begin; g < begin + count; ++g) full += int64_t(g + 1) * t.bk <= k;
    EXPECT_EQ(s.full_k_tiles(p, int(k), t.bk), full) << "split " << p;
    if (p + 1 < s.splits) EXPECT_EQ(full, count) << "only the last split may cross K";
  }

  // Workspace slots: one per (tile, split), all distinct, dense.
  if (s.slots() <= 4096) {
    std::set<int64_t> seen;
    for (int tile = 0; tile < s.tiles(); ++tile)
      for (int p = 0; p < s.splits; ++p) {
        const int64_t slot = s.slot(tile, p);
        EXPECT_GE(slot, 0);
        EXPECT_LT(slot, s.slots());
        seen.insert(slot);
      }
    EXPECT_EQ(int64_t(seen.size()), s.slots());
  }
}

TEST(SplitKSchedule, TileGrowsWithM) {
  for (int i = 1; i < kTileCount; ++i) EXPECT_LT(kTiles[i - 1].max_m, kTiles[i].max_m);
  EXPECT_EQ(kTiles[kTileCount - 1].max_m, INT64_MAX) << "the last tile takes any M";
  for (int64_t m = 1; m <= 300; ++m) {
    const int i = tile_for(m);
    EXPECT_LE(m, kTiles[i].max_m);
    if (i > 0) EXPECT_GT(m, kTiles[i - 1].max_m) << "the narrowest tile that holds M";
    // Up to 128 rows the tile is under about twice M: M = 16 does not compute 128 rows.
    if (m <= 128) EXPECT_LT(kTiles[i].bm, 2 * m + 16) << "M=" << m;
  }
  EXPECT_EQ(kTiles[tile_for(16)].bm, 16);
  EXPECT_EQ(kTiles[tile_for(128)].bm, 128);
}

// The issue-17 shapes on an H100 (132 SMs), with the occupancy at least the tile's target: one
// full wave of CTAs, every split a long run of k-tiles.
TEST(SplitKSchedule, FillsEverySmAtTheTargetShapes) {
  const int sms = 132;
  {
    const TileShape& t = kTiles[tile_for(16)];
    const Schedule s = make_schedule(16, 4096, 4096, t.bm, t.bn, t.bk, t.target_per_sm * sms);
    EXPECT_EQ(s.tiles(), 32);
    EXPECT_EQ(s.splits, 8);  // 256 CTAs of the 264 resident (2 per SM)
    EXPECT_EQ(s.k_tile_begin(1), 16);
  }
  {
    const TileShape& t = kTiles[tile_for(128)];
    const Schedule s = make_schedule(128, 4096, 4096, t.bm, t.bn, t.bk, t.target_per_sm * sms);
    EXPECT_EQ(s.tiles(), 64);
    EXPECT_EQ(s.splits, 6);  // 384 CTAs of the 396 resident (3 per SM)
  }
  {
    // Many tiles: no split, a plain GEMM.
    const TileShape& t = kTiles[tile_for(4096)];
    EXPECT_EQ(make_schedule(4096, 4096, 4096, t.bm, t.bn, t.bk, t.target_per_sm * sms).splits, 1);
  }
}

TEST(SplitKSchedule, RangesCoverKOnceOverShapesAndTargets) {
  const int64_t ms[] = {1, 2, 15, 16, 17, 31, 33, 64, 65, 100, 127, 128, 129, 200, 1000};
  const int64_t ns[] = {1, 3, 64, 127, 128, 129, 1000, 4096, 8200};
  const int64_t ks[] = {1, 7, 8, 9, 16, 31, 32, 33, 63, 64, 71, 520, 1000, 4096, 4104, 32768};
  const int64_t targets[] = {1, 3, 7, 14, 132, 264, 396, 1056};
  for (int64_t m : ms)
    for (int64_t n : ns)
      for (int64_t k : ks)
        for (int64_t target : targets) check_schedule(m, n, k, target);
}

// K = 0 is beta * C: one split of no k-tiles (the mainloop does not run).
TEST(SplitKSchedule, EmptyKIsOneSplitOfNothing) {
  const Schedule s = make_schedule(16, 128, 0, 16, 128, 32, 264);
  EXPECT_EQ(s.k_tiles, 0);
  EXPECT_EQ(s.splits, 1);
  EXPECT_EQ(s.k_tile_begin(1), 0);
  EXPECT_EQ(s.full_k_tiles(0, 0, 32), 0);
}

// Every (sub-tile row q, column j, thread) has its own float4 in a slot, and a warp's 32 threads
// write 32 consecutive float4s for each (q, j).
template <int TM, int TN, int THREADS>
void check_partial_layout() {
  std::vector<int> hits(TM / 4 * TN * THREADS, 0);
  for (int q = 0; q < TM / 4; ++q)
    for (int j = 0; j < TN; ++j)
      for (int tid = 0; tid < THREADS; ++tid) {
        const int e = partial_index<TN, THREADS>(q, j, tid);
        const int before = tid > 0 ? partial_index<TN, THREADS>(q, j, tid - 1) : -1;
        ASSERT_GE(e, 0);
        ASSERT_LT(e, int(hits.size()));
        ++hits[size_t(e)];
        if (tid % 32 != 0) EXPECT_EQ(e, before + 1) << "coalesced warp store";
      }
  for (int h : hits) EXPECT_EQ(h, 1);
}
TEST(SplitKSchedule, PartialLayoutIsABijection) {
  check_partial_layout<4, 4, 128>();  // 16x128 tile
  check_partial_layout<4, 8, 128>();  // 32x128
  check_partial_layout<8, 8, 128>();  // 64x128, 128x64
}

// The row-major op(B) tiles: every (n, k) of a (BN, BK) stage has its own float; a thread's
// column nb + jj (nb a multiple of 4) is jj rows below column nb (the kernel adds jj * BK); the
// LN lanes that read one k of rows 4 apart hit LN distinct banks; a 16-byte chunk stays whole.
template <int BN, int BK, int LN>
void check_b_rows() {
  SCOPED_TRACE("BN=" + std::to_string(BN) + " BK=" + std::to_string(BK));
  std::vector<int> hits(BN * BK, 0);
  for (int n = 0; n < BN; ++n)
    for (int k = 0; k < BK; ++k) {
      const int o = b_row_offset<BK>(n, k);
      ASSERT_GE(o, 0);
      ASSERT_LT(o, BN * BK);
      ++hits[size_t(o)];
      EXPECT_EQ(o / BK, n) << "row n stays row n";
      if (k % 4 != 0) EXPECT_EQ(o, b_row_offset<BK>(n, k - 1) + 1) << "16-byte chunks stay whole";
      if (n % 4 != 0)
        EXPECT_EQ(o, b_row_offset<BK>(n - n % 4, k) + (n % 4) * BK) << "n=" << n << " k=" << k;
    }
  for (int h : hits) EXPECT_EQ(h, 1);
  for (int nb0 = 0; nb0 + 4 * LN <= BN; nb0 += 4 * LN)
    for (int k = 0; k < BK; ++k) {
      std::set<int> banks;
      for (int i = 0; i < LN; ++i) banks.insert(b_row_offset<BK>(nb0 + 4 * i, k) % 32);
      EXPECT_EQ(int(banks.size()), LN) << "bank conflict at rows " << nb0 << "+4i, k=" << k;
    }
}
TEST(SplitKSchedule, RowMajorBTilesAreConflictFree) {
  check_b_rows<128, 32, 8>();  // 16x128x32: 8 lanes along N
  check_b_rows<128, 16, 4>();  // 32x128x16: 4 lanes along N
}

// A split product the kernel's way (each split sums its k range, the reduction adds the splits
// in order) equals the plain product up to rounding, and the same schedule gives the same bits.
TEST(SplitKSchedule, SplitSumMatchesPlainProduct) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const int k = 1003, bk = 8;
  std::vector<float> a(k), b(k);
  for (int i = 0; i < k; ++i) a[size_t(i)] = u(rng), b[size_t(i)] = u(rng);
  double exact = 0;
  for (int i = 0; i < k; ++i) exact += double(a[size_t(i)]) * b[size_t(i)];
  for (int64_t target : {1, 5, 40, 200}) {
    const Schedule s = make_schedule(1, 1, k, 128, 64, bk, target);
    auto run = [&] {
      float total = 0.f;
      for (int p = 0; p < s.splits; ++p) {
        float partial = 0.f;
        for (int kk = s.k_tile_begin(p) * bk; kk < std::min(k, s.k_tile_begin(p + 1) * bk); ++kk)
          partial += a[size_t(kk)] * b[size_t(kk)];
        total = p == 0 ? partial : total + partial;
      }
      return total;
    };
    const float first = run();
    EXPECT_NEAR(first, exact, 1e-4 * k) << "splits " << s.splits;
    EXPECT_EQ(first, run());
  }
}

// The stream-K walk replayed CTA by CTA, the kernel's loop: every (tile, k-tile) exactly once;
// ranges of the floor or ceiling of the average, none empty; a tile's parts come from the CTAs
// cta_of names, consecutive, each with its part index; only a range's first and last segments
// are parts of a shared tile, and the slots of a tile's parts are distinct and within slots().
void check_stream_k(int64_t m, int64_t n, int64_t k, int bm, int bn, int bk, int64_t target) {
  SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) +
               " target=" + std::to_string(target));
  const StreamK w = make_stream_k(m, n, k, bm, bn, bk, target);
  EXPECT_EQ(w.tiles_m, (m + bm - 1) / bm);
  EXPECT_EQ(w.tiles_n, (n + bn - 1) / bn);
  EXPECT_EQ(w.k_tiles, std::max<int64_t>(1, (k + bk - 1) / bk));
  ASSERT_GE(w.ctas, 1);
  EXPECT_LE(w.ctas, std::max<int64_t>(1, target));
  if (w.ctas > 1) EXPECT_LE(int64_t(w.ctas) * kMinKTilesPerSplit, w.iters());
  EXPECT_EQ(w.begin(0), 0);
  EXPECT_EQ(w.begin(w.ctas), w.iters());
  const int64_t lo = w.iters() / w.ctas;
  std::vector<int> covered(size_t(w.iters()), 0);
  std::vector<std::vector<std::pair<int, int>>> parts_of(size_t(w.tiles()));  // (cta, part)
  std::vector<std::set<int64_t>> slots_of(size_t(w.tiles()));
  for (int c = 0; c < w.ctas; ++c) {
    const int64_t b = w.begin(c), e = w.begin(c + 1);
    ASSERT_TRUE(e - b == lo || e - b == lo + 1) << "CTA " << c << " runs " << e - b;
    int segments = 0;
    for (int64_t it = b; it < e; ++segments) {
      const Segment g = w.segment(c, it);
      ASSERT_GE(g.count, 1);
      ASSERT_EQ(int64_t(g.tile) * w.k_tiles + g.k_begin, it);
      ASSERT_LE(g.k_begin + g.count, w.k_tiles) << "a segment stays in its tile";
      EXPECT_TRUE(it + g.count == e || g.k_begin + g.count == w.k_tiles)
          << "a segment ends at the range's end or its tile's";
      ASSERT_GE(g.part, 0);
      ASSERT_LT(g.part, g.parts);
      EXPECT_EQ(g.first + g.part, c);
      for (int64_t i = it; i < it + g.count; ++i) {
        ++covered[size_t(i)];
        EXPECT_EQ(w.cta_of(i), c);
      }
      if (g.parts > 1) {
        EXPECT_TRUE(it == b || it + g.count == e) << "a shared tile only at a range's ends";
        const int64_t slot = w.slot(c, g.tile);
        EXPECT_GE(slot, 0);
        EXPECT_LT(slot, w.slots());
        EXPECT_TRUE(slots_of[size_t(g.tile)].insert(slot).second) << "two parts, one slot";
        EXPECT_EQ(StreamK::part_slot(g, g.part), slot) << "the fixup's slot of this part";
      } else {
        EXPECT_EQ(g.k_begin, 0);
        EXPECT_EQ(g.count, w.k_tiles) << "an unshared segment is the whole tile";
      }
      parts_of[size_t(g.tile)].push_back({c, g.part});
      it += g.count;
    }
  }
  for (int h : covered) ASSERT_EQ(h, 1) << "every (tile, k-tile) once";
  // Across tiles the slots differ too, except that a CTA's one slot may serve only one tile.
  std::set<int64_t> all;
  size_t total = 0;
  for (int t = 0; t < w.tiles(); ++t) {
    const auto& ps = parts_of[size_t(t)];
    for (size_t i = 0; i < ps.size(); ++i) {
      EXPECT_EQ(ps[i].second, int(i)) << "tile " << t << ": parts in CTA order";
      if (i > 0) EXPECT_EQ(ps[i].first, ps[i - 1].first + 1) << "tile " << t;
    }
    for (int64_t s : slots_of[size_t(t)]) all.insert(s);
    total += slots_of[size_t(t)].size();
  }
  EXPECT_EQ(all.size(), total) << "a slot written for two tiles";
}

TEST(StreamKSchedule, WalkCoversEveryTileOnce) {
  const int64_t sizes[] = {1, 7, 128, 129, 255, 256, 257, 1000, 1536, 2560};
  const int64_t ks[] = {1, 8, 9, 16, 100, 1536};
  const int64_t targets[] = {1, 3, 7, 132, 264};
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : ks)
        for (int64_t target : targets) {
          check_stream_k(m, n, k, 256, 128, 8, target);
          if (m == n) check_stream_k(m, n, k, 128, 128, 8, target);
        }
}

// The squares on an H100 (132 SMs, one 256x128 CTA each): 1536^3 is 72 tiles, 0.55 of
// a wave; the walk gives every SM 104 or 105 of the 13824 k-tiles.
TEST(StreamKSchedule, EvensOutAPartialWave) {
  const StreamK w = make_stream_k(1536, 1536, 1536, 256, 128, 8, 132);
  EXPECT_EQ(w.tiles(), 72);
  EXPECT_EQ(w.ctas, 132);
  EXPECT_EQ(w.iters(), 72 * 192);
  EXPECT_EQ(w.begin(1), 104);
  const Segment g = w.segment(1, 104);
  EXPECT_EQ(g.tile, 0);
  EXPECT_EQ(g.k_begin, 104);
  EXPECT_EQ(g.count, 88);  // the rest of tile 0; tile 1 starts in the same range
  EXPECT_EQ(g.parts, 2);
  EXPECT_EQ(g.part, 1);
  // One CTA: no shared tile, no workspace.
  const StreamK one = make_stream_k(1536, 1536, 1536, 256, 128, 8, 1);
  EXPECT_EQ(one.ctas, 1);
  EXPECT_EQ(one.segment(0, 192).parts, 1);
}

// A tiny product cannot have more CTAs than k-tile pairs: no range is empty.
TEST(StreamKSchedule, NoEmptyRange) {
  const StreamK w = make_stream_k(1, 1, 8, 256, 128, 8, 132);
  EXPECT_EQ(w.iters(), 1);
  EXPECT_EQ(w.ctas, 1);
  const StreamK z = make_stream_k(1, 1, 0, 256, 128, 8, 132);
  EXPECT_EQ(z.k_tiles, 1) << "K = 0 runs one zero-filled k-tile";
}

}  // namespace
}  // namespace gemmbench::sgemm::splitk
