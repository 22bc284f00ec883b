// The grouped kernels' tile walk (kernels/common/grouped_schedule.hpp) over the row-tile prefix
// sums core builds for the launch (core/grouping.hpp, group_tile_prefix): every (group, row tile,
// column tile) of every group with rows visited exactly once, none of an empty group, each tile's
// rows inside its group, the order group after group with a row tile's column tiles adjacent, and
// CTAs striding over the linear order sharing the tiles out evenly whatever the skew.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/grouped_schedule.hpp"
#include "common/sm90/grouped_launch.hpp"
#include "core/grouping.hpp"

using namespace gemmbench;

namespace {

Grouping contiguous(std::vector<int64_t> m, int64_t align = 1) {
  Grouping g;
  g.m = std::move(m);
  g.layout = GroupLayout::contiguous;
  g.align = align;
  return g;
}

// Walks every linear tile of `g` cut into tile_rows x tile_n tiles and checks the cover.
template <int BAND = kGroupedBandTiles>
void check_cover(const Grouping& g, int tile_rows, int64_t n, int tile_n) {
  const std::vector<int> prefix = group_tile_prefix(g, tile_rows);
  const GroupedWalk w{prefix.data(), int(g.groups()), int((n + tile_n - 1) / tile_n)};
  std::map<std::tuple<int, int, int>, int> seen;
  int prev_group = 0;
  for (int t = 0; t < grouped_tiles_total(w); ++t) {
    const GroupedTile tile = grouped_tile<BAND>(w, t);
    ASSERT_GE(tile.group, 0);
    ASSERT_LT(tile.group, g.groups());
    const int64_t m_g = g.m[size_t(tile.group)];
    ASSERT_GT(m_g, 0) << "tile " << t << " in empty group " << tile.group;
    EXPECT_LT(int64_t(tile.row_tile) * tile_rows, m_g) << "a tile's first row inside its group";
    EXPECT_GE(tile.row_tile, 0);
    EXPECT_LT(int64_t(tile.n_tile) * tile_n, n) << "a tile's first column inside N";
    EXPECT_GE(tile.group, prev_group) << "groups in order";
    prev_group = tile.group;
    if (t > 0) {  // within a group: a band's columns adjacent, its row tiles in order
      const GroupedTile before = grouped_tile<BAND>(w, t - 1);
      if (before.group == tile.group) {
        const int band = tile.n_tile / BAND;
        if (before.n_tile / BAND == band) {
          if (before.row_tile == tile.row_tile)
            EXPECT_EQ(before.n_tile + 1, tile.n_tile) << "t " << t;
          else
            EXPECT_EQ(before.row_tile + 1, tile.row_tile) << "t " << t;
        } else {
          EXPECT_EQ(before.n_tile / BAND + 1, band) << "the next band, t " << t;
          EXPECT_EQ(tile.row_tile, 0) << "a band starts at the group's first row tile, t " << t;
        }
      }
    }
    ++seen[{tile.group, tile.row_tile, tile.n_tile}];
  }
  int64_t expected = 0;
  for (size_t i = 0; i < g.m.size(); ++i) {
    const int64_t row_tiles = (g.m[i] + tile_rows - 1) / tile_rows;
    expected += row_tiles * w.tiles_n;
    for (int r = 0; r < row_tiles; ++r)
      for (int c = 0; c < w.tiles_n; ++c)
        EXPECT_EQ((seen[{int(i), r, c}]), 1) << "group " << i << " row tile " << r << " col " << c;
  }
  EXPECT_EQ(int64_t(seen.size()), expected);
  EXPECT_EQ(grouped_tiles_total(w), expected);
}

}  // namespace

TEST(GroupedSchedule, PrefixCountsRowTilesBeforeEachGroup) {
  const Grouping g = contiguous({0, 1, 128, 129, 0, 300, 0});
  EXPECT_EQ(group_tile_prefix(g, 128), (std::vector<int>{0, 0, 1, 2, 4, 4, 7, 7}));
  EXPECT_EQ(group_tile_prefix(g, 1), (std::vector<int>{0, 0, 1, 129, 258, 258, 558, 558}));
  EXPECT_EQ(group_tile_prefix(contiguous({0, 0}), 64), (std::vector<int>{0, 0, 0}));
  // The layout and padding move rows in storage, not the tiles: masked gives the same prefix.
  Grouping masked = g;
  masked.layout = GroupLayout::masked;
  masked.max_m = 300;
  EXPECT_EQ(group_tile_prefix(masked, 128), group_tile_prefix(g, 128));
}

TEST(GroupedSchedule, TheSearchSkipsEmptyGroups) {
  const std::vector<int> prefix{0, 0, 0, 2, 2, 3, 3};  // groups 0, 1, 3, 5 empty
  EXPECT_EQ(grouped_row_tile_group(prefix.data(), 6, 0), 2);
  EXPECT_EQ(grouped_row_tile_group(prefix.data(), 6, 1), 2);
  EXPECT_EQ(grouped_row_tile_group(prefix.data(), 6, 2), 4);
  const std::vector<int> one{0, 5};
  EXPECT_EQ(grouped_row_tile_group(one.data(), 1, 4), 0);
}

TEST(GroupedSchedule, EveryTileOfEveryGroupExactlyOnce) {
  check_cover(contiguous({37, 0, 64, 5}), 128, 96, 256);
  check_cover(contiguous({0, 1, 128, 129, 0, 300, 0}), 128, 4096, 256);
  check_cover(contiguous({255, 256, 257}, 128), 128, 257, 256);  // tile edges along N and rows
  check_cover(contiguous({0, 0, 0, 7}), 128, 8, 256);            // empty groups first
  check_cover(contiguous({7, 0, 0, 0}), 64, 512, 128);           // and last
  // DeepSeek-V3-like skew: 256 groups, a few large.
  std::vector<int64_t> skew(256, 0);
  for (size_t i = 0; i < skew.size(); ++i) skew[i] = i < 4 ? 3000 / int64_t(i + 1) : int64_t(i % 7);
  check_cover(contiguous(skew), 128, 7168, 256);
  check_cover(contiguous({1024, 1024, 3000}), 128, 28672, 256);  // Mixtral-like: 112 columns
  check_cover(contiguous({700, 5}), 128, 1300, 256);             // a last band of 2 of 6
}

// hgemm_grouped_sm90_fit's walk: 128-row column tiles in bands of 8 (its band's weight rows are
// the register kernel's 4 x 256).
TEST(GroupedSchedule, EveryTileExactlyOnceInBandsOfEight) {
  check_cover<8>(contiguous({37, 0, 64, 5}), 128, 96, 128);
  check_cover<8>(contiguous({0, 1, 128, 129, 0, 300, 0}), 128, 4096, 128);
  check_cover<8>(contiguous({1024, 1024, 3000}), 128, 28672, 128);  // 224 columns, 28 bands
  check_cover<8>(contiguous({700, 5}), 128, 1300, 128);             // 11 columns: a last band of 3
}

// Within a large group the walk takes kGroupedBandTiles columns down all of the group's row
// tiles before the next columns: the weights of a band are read by every row tile in turn.
TEST(GroupedSchedule, LargeGroupsWalkBandsOfColumns) {
  const Grouping g = contiguous({1024});  // 8 row tiles of 128
  const std::vector<int> prefix = group_tile_prefix(g, 128);
  const GroupedWalk w{prefix.data(), 1, 10};  // 10 columns: bands of 4, 4 and 2
  ASSERT_EQ(grouped_tiles_total(w), 80);
  const GroupedTile t0 = grouped_tile(w, 0), t3 = grouped_tile(w, 3), t4 = grouped_tile(w, 4);
  EXPECT_EQ(t0.row_tile, 0);
  EXPECT_EQ(t0.n_tile, 0);
  EXPECT_EQ(t3.row_tile, 0);
  EXPECT_EQ(t3.n_tile, 3);
  EXPECT_EQ(t4.row_tile, 1);
  EXPECT_EQ(t4.n_tile, 0) << "down the rows within the band";
  const GroupedTile t32 = grouped_tile(w, 32), t64 = grouped_tile(w, 64), t79 = grouped_tile(w, 79);
  EXPECT_EQ(t32.row_tile, 0);
  EXPECT_EQ(t32.n_tile, 4) << "the second band";
  EXPECT_EQ(t64.row_tile, 0);
  EXPECT_EQ(t64.n_tile, 8) << "the last band, 2 wide";
  EXPECT_EQ(t79.row_tile, 7);
  EXPECT_EQ(t79.n_tile, 9);
}

// CTA c takes tiles c, c + grid, ...: the CTAs' counts differ by at most one, however the rows
// are split between the groups (a scheduler that balances tiles, not groups).
TEST(GroupedSchedule, StridedCtasShareTheTilesEvenly) {
  const Grouping g = contiguous({4000, 0, 1, 1, 1, 130, 0, 2});
  const std::vector<int> prefix = group_tile_prefix(g, 128);
  const GroupedWalk w{prefix.data(), int(g.groups()), 16};
  const int total = grouped_tiles_total(w), grid = 132;
  ASSERT_EQ(total, (32 + 1 + 1 + 1 + 2 + 1) * 16);
  int fewest = total, most = 0;
  for (int c = 0; c < grid; ++c) {
    int mine = 0;
    for (int t = c; t < total; t += grid) ++mine;
    fewest = std::min(fewest, mine), most = std::max(most, mine);
  }
  EXPECT_LE(most - fewest, 1);
}

// The message of the std::invalid_argument f() throws, or "no throw".
template <class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no throw";
}

// What both grouped Hopper kernels check on the host before a launch (common/sm90/
// grouped_launch.hpp): the 32-bit tensor-map rows and tile index, and a launch's arguments. No GPU
// is needed: each refusal comes before any device call.
TEST(GroupedLaunch, SizesPastThe32BitCoordinatesAreRefused) {
  GemmProblem p;
  p.n = 4096;
  p.k = 7168;
  const Grouping g = contiguous({128, 0, 37});
  EXPECT_EQ(sm90_grouped_size_unsupported(p, g, 128, 128), "");
  GemmProblem wide = p;
  wide.n = int64_t(1) << 30;  // G * N = 3 * 2^30
  EXPECT_EQ(sm90_grouped_size_unsupported(wide, g, 128, 128),
            "G*N, the stored rows and K must be below 2^31 (32-bit tensor-map rows)");
  const Grouping tall = contiguous({int64_t(1) << 31});
  EXPECT_EQ(sm90_grouped_size_unsupported(p, tall, 128, 128),
            "G*N, the stored rows and K must be below 2^31 (32-bit tensor-map rows)");
  // One group of 2^30 rows by N = 2^24: rows and G*N in range, 2^23 x 2^17 tiles.
  const Grouping big = contiguous({int64_t(1) << 30});
  GemmProblem tiled = p;
  tiled.n = int64_t(1) << 24;
  EXPECT_EQ(sm90_grouped_size_unsupported(tiled, big, 128, 128),
            "too many tiles for the 32-bit tile index");
  tiled.n = 128;  // 2^23 tiles
  EXPECT_EQ(sm90_grouped_size_unsupported(tiled, big, 128, 128), "");
}

TEST(GroupedLaunch, ALaunchWithoutItsTableOrWithUnalignedOperandsThrows) {
  GemmProblem p;
  p.n = 256;
  p.k = 256;
  const Grouping g = contiguous({5, 7});
  const std::vector<int> prefix = group_tile_prefix(g, 128);
  GroupedLaunch gl;
  gl.grouping = &g;
  GemmArgs args{p};
  const auto message = [&] {
    return thrown([&] { sm90_grouped_launch(args, "a_kernel", 128, 128, 132); });
  };
  EXPECT_EQ(message(), "a_kernel: needs GemmArgs::grouped with its tile table of 128-row tiles");
  args.grouped = &gl;
  EXPECT_EQ(message(), "a_kernel: needs GemmArgs::grouped with its tile table of 128-row tiles")
      << "no tile table";
  gl.tile_prefix = prefix.data();
  gl.tile_rows = 64;
  EXPECT_EQ(message(), "a_kernel: needs GemmArgs::grouped with its tile table of 128-row tiles")
      << "a table of other tiles";
  gl.tile_rows = 128;
  alignas(16) static const unsigned char operand[32] = {};
  args.a = operand + 8;
  args.b = operand;
  EXPECT_EQ(message(), "a_kernel: TMA needs 16-byte aligned A and B");
}

// Every grouped kernel that stores C by TMA takes its C map from sm90_grouped_c_store_map, which
// refuses the launch's beta != 0 (the epilogue never reads C) and an unaligned C before any driver
// call, naming the kernel: one check for the three kernels (hgemm_grouped_sm90_tma, _pairg,
// fp8gemm_grouped_sm90's TMA stores).
TEST(GroupedLaunch, TheCStoreMapRefusesBetaAndAnUnalignedC) {
  GemmProblem p;
  p.n = 256;
  p.k = 256;
  const Grouping g = contiguous({128, 256});
  const std::vector<int> prefix = group_tile_prefix(g, 128);
  GroupedLaunch gl;
  gl.grouping = &g;
  gl.tile_prefix = prefix.data();
  gl.tile_rows = 128;
  GemmArgs args{p};
  args.grouped = &gl;
  alignas(16) static unsigned char c[64] = {};
  args.c = c;
  const auto message = [&] {
    return thrown([&] { sm90_grouped_c_store_map(args, "a_kernel", 64, false); });
  };
  args.beta = 0.5f;
  EXPECT_EQ(message(), "a_kernel: beta != 0 (C is never read)");
  args.beta = 0.f;
  args.c = c + 8;
  EXPECT_EQ(message(), "a_kernel: TMA stores need a 16-byte aligned C and N % 8 == 0");
}

// The global pairing's walk (grouped_unit, hgemm_grouped_sm90_pairg): each unit's two ranks take
// global row tiles 2u and 2u + 1, so every (group, row tile, column tile) is one rank's exactly
// once; a unit is shared where both tiles lie in one group, and only the last unit of an odd tile
// count leaves rank 1 without rows; both ranks of a unit take the same column tile.
TEST(GroupedSchedule, TheGlobalPairingCoversEveryTileOnceAndIdlesOnlyTheLastRank) {
  for (const Grouping& g : {contiguous({300, 0, 1, 129, 0, 17, 640}), contiguous({128, 128, 128}),
                            contiguous({1, 1, 1, 1, 1}), contiguous({3827, 7, 0, 34, 256, 1}),
                            contiguous({0, 0, 5}), contiguous({256})}) {
    for (const int64_t n : {int64_t(136), int64_t(4096)}) {
      const std::vector<int> prefix = group_tile_prefix(g, 128);
      const GroupedWalk w{prefix.data(), int(g.groups()), int((n + 255) / 256)};
      SCOPED_TRACE(testing::Message()
                   << g.groups() << " groups, " << prefix.back() << " tiles, N " << n);
      ASSERT_EQ(grouped_units_total(w), (prefix.back() + 1) / 2 * w.tiles_n);
      std::map<std::tuple<int, int, int>, int> seen;
      int idle = 0, across = 0;
      for (int t = 0; t < grouped_units_total(w); ++t) {
        const GroupedUnit u = grouped_unit(w, t);
        ASSERT_GE(u.slot[0].group, 0) << "rank 0 always has rows, unit " << t;
        EXPECT_LT(int64_t(u.n_tile) * 256, n);
        for (int r = 0; r < 2; ++r) {
          const GroupedUnitSlot s = u.slot[r];
          if (s.group < 0) {
            ++idle;
            continue;
          }
          ASSERT_LT(s.group, g.groups());
          EXPECT_GE(s.row_tile, 0);
          EXPECT_LT(int64_t(s.row_tile) * 128, g.m[size_t(s.group)]) << "unit " << t;
          ++seen[{s.group, s.row_tile, u.n_tile}];
        }
        if (u.slot[1].group >= 0) {
          // Consecutive global tiles: the same group's next tile, or the next group's first.
          if (u.slot[0].group == u.slot[1].group) {
            EXPECT_EQ(u.slot[1].row_tile, u.slot[0].row_tile + 1);
            EXPECT_TRUE(u.shared());
          } else {
            EXPECT_EQ(u.slot[1].row_tile, 0);
            EXPECT_GT(u.slot[1].group, u.slot[0].group);
            EXPECT_FALSE(u.shared());
            ++across;
          }
        } else {
          EXPECT_TRUE(u.shared()) << "rank 1 without rows shares rank 0's weight tile";
        }
      }
      EXPECT_EQ(idle, prefix.back() % 2 * w.tiles_n) << "rank 1 idles in the last unit only";
      EXPECT_LE(across, int(g.groups()) * w.tiles_n);
      int64_t expected = 0;
      for (size_t i = 0; i < g.m.size(); ++i) {
        const int64_t row_tiles = (g.m[i] + 127) / 128;
        expected += row_tiles * w.tiles_n;
        for (int r = 0; r < row_tiles; ++r)
          for (int c = 0; c < w.tiles_n; ++c)
            EXPECT_EQ((seen[{int(i), r, c}]), 1) << "group " << i << " tile " << r << " col " << c;
      }
      EXPECT_EQ(int64_t(seen.size()), expected);
    }
  }
}
