// `inspect raster` (src/inspect/raster_map.hpp) over kernels/common/raster.hpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/raster.hpp"
#include "core/errors.hpp"
#include "inspect/raster_map.hpp"

namespace gemmbench::inspect {
namespace {

RasterParams tiles(int m, int n, int log_tile) {
  RasterParams p;
  p.tiles_m = m;
  p.tiles_n = n;
  p.log_tile = log_tile;
  return p;
}

// Every tile computed exactly once, every other CTA a recognised no-op, for many shapes.
TEST(RasterMap, EveryTileOnceNoOpsRecognised) {
  for (int tm = 1; tm <= 9; ++tm) {
    for (int tn = 1; tn <= 17; ++tn) {
      for (int L = 0; L <= 4; ++L) {
        SCOPED_TRACE(std::to_string(tm) + "x" + std::to_string(tn) + " L=" + std::to_string(L));
        const RasterMap map = make_raster_map(tiles(tm, tn, L));
        const int stride = 1 << L;
        EXPECT_EQ(map.grid.x, tm * stride);
        EXPECT_EQ(map.grid.y, (tn + stride - 1) / stride);
        ASSERT_EQ(map.ctas.size(), size_t(map.grid.x) * map.grid.y);

        std::vector<int> visits(size_t(tm) * tn, 0);
        int64_t noops = 0;
        for (size_t id = 0; id < map.ctas.size(); ++id) {
          const RasterCta& c = map.ctas[id];
          EXPECT_EQ(c.id, int64_t(id));
          EXPECT_EQ(c.id, c.bx + int64_t(c.by) * map.grid.x);
          const bool inside = c.tile.m >= 0 && c.tile.m < tm && c.tile.n >= 0 && c.tile.n < tn;
          EXPECT_EQ(c.valid, inside) << "CTA " << id;
          if (inside) {
            ++visits[size_t(c.tile.m) * tn + c.tile.n];
            EXPECT_EQ(map.visit_id_at(c.tile.m, c.tile.n), c.id);
          } else {
            ++noops;
            EXPECT_GE(c.tile.n, tn) << "a no-op CTA lies past the last tile column";
          }
        }
        for (int v : visits) EXPECT_EQ(v, 1);
        EXPECT_EQ(noops, int64_t(map.grid.x) * map.grid.y - int64_t(tm) * tn);
        EXPECT_EQ(map.noop_ctas, noops);
        // The last grid row only has no-ops when 2^L does not divide the tile columns.
        EXPECT_EQ(noops == 0, tn % stride == 0);
      }
    }
  }
}

// Seed 003's example: 4x4 tiles. N=1 launches a (4,4) grid; N=2 (L=1) a (8,2) grid in which
// consecutive blocks alternate between two tile columns.
TEST(RasterMap, Seed003FourByFour) {
  const RasterMap l0 = make_raster_map(tiles(4, 4, 0));
  EXPECT_EQ(l0.grid.x, 4);
  EXPECT_EQ(l0.grid.y, 4);
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 4; ++n) EXPECT_EQ(l0.visit_id_at(m, n), m + 4 * n);

  const RasterMap l1 = make_raster_map(tiles(4, 4, 1));
  EXPECT_EQ(l1.grid.x, 8);
  EXPECT_EQ(l1.grid.y, 2);
  const int64_t expected[4][4] = {{0, 1, 8, 9}, {2, 3, 10, 11}, {4, 5, 12, 13}, {6, 7, 14, 15}};
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 4; ++n) EXPECT_EQ(l1.visit_id_at(m, n), expected[m][n]);
  EXPECT_EQ(l1.noop_ctas, 0);
}

TEST(RasterMap, NoOpCtasOfARaggedGrid) {
  // 5x3 tiles, L=1: grid (10,2); blockIdx.y=1 with odd x maps to tile column 3: no-op.
  const RasterMap map = make_raster_map(tiles(5, 3, 1));
  std::vector<int64_t> noop;
  for (const RasterCta& c : map.ctas)
    if (!c.valid) noop.push_back(c.id);
  EXPECT_EQ(noop, (std::vector<int64_t>{11, 13, 15, 17, 19}));
}

TEST(RasterMap, TilesFromProblem) {
  RasterParams p = raster_params_from_problem(640, 384, 4096, 128, 128, 2);
  EXPECT_EQ(p.tiles_m, 5);
  EXPECT_EQ(p.tiles_n, 3);
  p = raster_params_from_problem(1, 1, 1, 128, 128, 0);
  EXPECT_EQ(p.tiles_m, 1);
  EXPECT_EQ(p.tiles_n, 1);
  p = raster_params_from_problem(129, 257, 7, 128, 128, 3);
  EXPECT_EQ(p.tiles_m, 2);
  EXPECT_EQ(p.tiles_n, 3);
  const RasterMap map = make_raster_map(p);  // 2x3 tiles, L=3: grid (16,1), 10 no-ops
  EXPECT_EQ(map.grid.x, 16);
  EXPECT_EQ(map.grid.y, 1);
  EXPECT_EQ(map.noop_ctas, 10);
}

void expect_usage_error(const RasterParams& p, const std::string& needle) {
  try {
    make_raster_map(p);
    ADD_FAILURE() << "no UsageError for " << needle;
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(RasterMapErrors, RejectsBadParameters) {
  expect_usage_error(tiles(4, 4, -1), "--log-tile -1");
  expect_usage_error(tiles(4, 4, 11), "--log-tile 11");
  expect_usage_error(tiles(0, 4, 1), "--tiles 0x4");
  expect_usage_error(tiles(4, -2, 1), "--tiles 4x-2");
  expect_usage_error(tiles(1 << 20, 4, 2), "CTAs");
  EXPECT_THROW(raster_params_from_problem(0, 5, 5, 128, 128, 1), UsageError);
  EXPECT_THROW(raster_params_from_problem(5, 5, 0, 128, 128, 1), UsageError);
  EXPECT_THROW(raster_params_from_problem(5, 5, 5, 0, 128, 1), UsageError);
  EXPECT_THROW(raster_params_from_problem(int64_t(1) << 40, 5, 5, 1, 1, 1), UsageError);
}

}  // namespace
}  // namespace gemmbench::inspect
