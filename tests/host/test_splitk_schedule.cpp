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

}  // namespace
}  // namespace gemmbench::sgemm::splitk
