// `inspect swizzle`'s map and bank-conflict counts (src/inspect/swizzle_map.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "common/swizzle.hpp"
#include "core/errors.hpp"
#include "inspect/swizzle_map.hpp"

namespace gemmbench::inspect {
namespace {

SwizzleParams params(int b, int m, int s, int rows, int cols, DType dtype, SwizzleAccess access) {
  SwizzleParams p;
  p.bits_b = b;
  p.base_m = m;
  p.shift_s = s;
  p.rows = rows;
  p.cols = cols;
  p.dtype = dtype;
  p.access = access;
  return p;
}

// ---- the map ------------------------------------------------------------------------------------

TEST(SwizzleMap, IsABijectionOverTheTile) {
  const SwizzleParams cases[] = {
      params(3, 3, 3, 64, 64, DType::f16, SwizzleAccess::ldmatrix),
      params(3, 3, 3, 8, 64, DType::f16, SwizzleAccess::ldmatrix),
      params(2, 3, 3, 64, 32, DType::f16, SwizzleAccess::ldmatrix),
      params(3, 3, 3, 128, 64, DType::bf16, SwizzleAccess::cp_async),
      params(3, 2, 3, 32, 32, DType::f32, SwizzleAccess::cp_async),
      params(3, 0, 5, 32, 32, DType::f32, SwizzleAccess::row),
      params(1, 3, 4, 24, 64, DType::f16, SwizzleAccess::row),
  };
  for (const SwizzleParams& p : cases) {
    const SwizzleMap map = make_swizzle_map(p);
    std::vector<int> sorted = map.physical;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(size_t(p.rows) * p.cols);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all) << p.bits_b << "," << p.base_m << "," << p.shift_s << " " << p.rows
                           << "x" << p.cols;
  }
}

TEST(SwizzleMap, IsTheKernelsSwizzle) {
  const SwizzleMap map =
      make_swizzle_map(params(3, 3, 3, 64, 64, DType::f16, SwizzleAccess::ldmatrix));
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c)
      ASSERT_EQ(map.physical_at(r, c), (Swizzle<3, 3, 3>::apply(r * 64 + c)));
  // Row 1's first chunk moves to chunk 1, row 7's to chunk 7 (c ^ r%8), element order kept.
  EXPECT_EQ(map.physical_at(1, 0), 64 + 8);
  EXPECT_EQ(map.physical_at(1, 3), 64 + 8 + 3);
  EXPECT_EQ(map.physical_at(7, 8), 7 * 64 + 6 * 8);
  EXPECT_EQ(map.physical_at(8, 0), 512);  // the pattern repeats every 8 rows
}

TEST(SwizzleMap, BanksOfF16Elements) {
  const SwizzleMap map =
      make_swizzle_map(params(3, 3, 3, 64, 64, DType::f16, SwizzleAccess::ldmatrix));
  // Unswizzled, a 128-byte row spans the 32 banks once: column c is in bank c/2 in every row.
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c) ASSERT_EQ(map.bank_before(r, c), c / 2);
  // Swizzled, column 0 of row r starts chunk r%8: bank 4*(r%8).
  for (int r = 0; r < 64; ++r) EXPECT_EQ(map.bank_after(r, 0), 4 * (r % 8));
}

// ---- phase_wavefronts ---------------------------------------------------------------------------

TEST(PhaseWavefronts, CountsDistinctWordsPerBank) {
  EXPECT_EQ(phase_wavefronts({}), 1);
  EXPECT_EQ(phase_wavefronts({0, 0, 0, 0}), 1);  // one word: broadcast
  EXPECT_EQ(phase_wavefronts({0, 128}), 2);      // two words of bank 0
  EXPECT_EQ(phase_wavefronts({0, 4, 128, 132, 256}), 3);
  std::vector<int64_t> all_banks;
  for (int b = 0; b < 32; ++b) all_banks.push_back(4 * b + 128 * b);  // bank b, row b
  EXPECT_EQ(phase_wavefronts(all_banks), 1);
}

// ---- seed 000: Swizzle<3,3,3> for half with a 64-element K tile --------------------------------

// An ldmatrix phase reads 8 rows of 16 B at one column chunk. Unswizzled, rows are 128 B apart,
// so all 8 start in the same bank: 8 distinct words in each of 4 banks, 8 wavefronts per phase
// and 32 per ldmatrix.x4. Swizzled, row r's chunk moves by r%8 and the 8 rows cover all 32
// banks: 1 wavefront per phase, 4 per x4.
void expect_seed000(const SwizzleMap& map, size_t requests) {
  ASSERT_EQ(map.requests.size(), requests);
  for (const SwizzleRequest& req : map.requests) {
    ASSERT_EQ(req.phases.size(), 4u) << req.what;
    for (const SwizzlePhase& ph : req.phases) {
      EXPECT_EQ(ph.threads.size(), 8u) << req.what;
      EXPECT_EQ(ph.wavefronts_before, 8) << req.what;
      EXPECT_EQ(ph.wavefronts_after, 1) << req.what;
    }
    EXPECT_EQ(req.wavefronts_before, 32) << req.what;
    EXPECT_EQ(req.wavefronts_after, 4) << req.what;
  }
  EXPECT_EQ(map.max_phase_wavefronts_before(), 8);
  EXPECT_EQ(map.max_phase_wavefronts_after(), 1);
  EXPECT_EQ(map.total_wavefronts_before(), int64_t(32 * requests));
  EXPECT_EQ(map.total_wavefronts_after(), int64_t(4 * requests));
  EXPECT_EQ(map.ideal_wavefronts(), int64_t(4 * requests));
}

TEST(SwizzleConflicts, Seed000LdmatrixOn64x64Half) {
  const SwizzleMap map =
      make_swizzle_map(params(3, 3, 3, 64, 64, DType::f16, SwizzleAccess::ldmatrix));
  expect_seed000(map, 16);  // 16x16 footprints: 4 x 4
  // Request 0 is the 16x16 block at the origin, matrices in the mma A-fragment order.
  const SwizzleRequest& req = map.requests[0];
  EXPECT_EQ(req.what, "rows 0-15, cols 0-15");
  const int origin[4][2] = {{0, 0}, {8, 0}, {0, 8}, {8, 8}};
  for (int ph = 0; ph < 4; ++ph) {
    for (int i = 0; i < 8; ++i) {
      const ThreadAccess& a = req.phases[ph].threads[i];
      EXPECT_EQ(a.thread, 8 * ph + i);
      EXPECT_EQ(a.row, origin[ph][0] + i);
      EXPECT_EQ(a.col, origin[ph][1]);
      EXPECT_EQ(a.elements, 8);
      const int chunk = origin[ph][1] / 8;
      EXPECT_EQ(a.banks_before,
                (std::vector<int>{4 * chunk, 4 * chunk + 1, 4 * chunk + 2, 4 * chunk + 3}));
      const int moved = chunk ^ (a.row % 8);
      EXPECT_EQ(a.banks_after,
                (std::vector<int>{4 * moved, 4 * moved + 1, 4 * moved + 2, 4 * moved + 3}));
      EXPECT_EQ(a.byte_after, (a.row * 64 + moved * 8) * 2);
    }
  }
}

TEST(SwizzleConflicts, Seed000LdmatrixOn8x64Half) {
  const SwizzleMap map =
      make_swizzle_map(params(3, 3, 3, 8, 64, DType::f16, SwizzleAccess::ldmatrix));
  expect_seed000(map, 2);  // 8x32 footprints: 1 x 2
  EXPECT_EQ(map.requests[1].what, "rows 0-7, cols 32-63");
  EXPECT_EQ(map.requests[1].phases[3].threads[0].col, 56);
}

TEST(SwizzleConflicts, Seed000HoldsForBf16) {
  expect_seed000(make_swizzle_map(params(3, 3, 3, 32, 64, DType::bf16, SwizzleAccess::ldmatrix)),
                 8);
}

// A 32-element K tile (64 B rows): unswizzled, rows r and r+2 share banks, 4-way per phase;
// Swizzle<2,3,3> (chunk ^= (r/2)%4) makes it conflict-free.
TEST(SwizzleConflicts, Swizzle233On64x32Half) {
  const SwizzleMap map =
      make_swizzle_map(params(2, 3, 3, 64, 32, DType::f16, SwizzleAccess::ldmatrix));
  ASSERT_EQ(map.requests.size(), 8u);
  for (const SwizzleRequest& req : map.requests) {
    for (const SwizzlePhase& ph : req.phases) {
      EXPECT_EQ(ph.wavefronts_before, 4) << req.what;
      EXPECT_EQ(ph.wavefronts_after, 1) << req.what;
    }
  }
  EXPECT_EQ(map.total_wavefronts_before(), 8 * 16);
  EXPECT_EQ(map.total_wavefronts_after(), 8 * 4);
}

// On 128-byte rows, Swizzle<2,3,3> (chunk ^= r%4) is too narrow: rows r and r+4 of an 8x8
// matrix stay in the same banks, 2-way.
TEST(SwizzleConflicts, TooFewBitsLeaveTwoWay) {
  const SwizzleMap map =
      make_swizzle_map(params(2, 3, 3, 64, 64, DType::f16, SwizzleAccess::ldmatrix));
  EXPECT_EQ(map.max_phase_wavefronts_before(), 8);
  EXPECT_EQ(map.max_phase_wavefronts_after(), 2);
}

// cp.async 16 B per thread over consecutive chunks: 8 threads cover one 128-byte row, which
// the swizzle only permutes within itself, so the writes are conflict-free both ways.
TEST(SwizzleConflicts, Swizzle333CpAsyncWritesConflictFree) {
  const SwizzleMap map =
      make_swizzle_map(params(3, 3, 3, 64, 64, DType::f16, SwizzleAccess::cp_async));
  ASSERT_EQ(map.requests.size(), 16u);  // 8192 B / 512 B
  for (const SwizzleRequest& req : map.requests) {
    ASSERT_EQ(req.phases.size(), 4u);
    for (const SwizzlePhase& ph : req.phases) {
      ASSERT_EQ(ph.threads.size(), 8u);
      EXPECT_EQ(ph.wavefronts_before, 1) << req.what;
      EXPECT_EQ(ph.wavefronts_after, 1) << req.what;
    }
  }
  // Thread t of request 0 writes chunk t: row t/8, column 8*(t%8).
  const SwizzleRequest& req = map.requests[0];
  EXPECT_EQ(req.phases[2].threads[3].thread, 19);
  EXPECT_EQ(req.phases[2].threads[3].row, 2);
  EXPECT_EQ(req.phases[2].threads[3].col, 24);
  EXPECT_EQ(map.total_wavefronts_after(), map.ideal_wavefronts());
}

TEST(SwizzleConflicts, PartialLastCpAsyncRequest) {
  // 24x64 half with Swizzle<1,3,4> is 3072 B: 6 requests of 512 B.
  const SwizzleMap map =
      make_swizzle_map(params(1, 3, 4, 24, 64, DType::f16, SwizzleAccess::cp_async));
  EXPECT_EQ(map.requests.size(), 6u);
  // 8x8 f32 is 256 B: half a request, 16 threads in two phases.
  EXPECT_EQ(make_swizzle_map(params(0, 0, 0, 8, 8, DType::f32, SwizzleAccess::cp_async))
                .requests[0]
                .phases.size(),
            2u);
}

TEST(SwizzleConflicts, RowReadsConflictFree) {
  const SwizzleMap half = make_swizzle_map(params(3, 3, 3, 64, 64, DType::f16, SwizzleAccess::row));
  EXPECT_EQ(half.requests.size(), 64u);  // one 128-byte row per request
  EXPECT_EQ(half.max_phase_wavefronts_before(), 1);
  EXPECT_EQ(half.max_phase_wavefronts_after(), 1);
  const SwizzleMap single =
      make_swizzle_map(params(3, 2, 3, 32, 32, DType::f32, SwizzleAccess::row));
  EXPECT_EQ(single.requests.size(), 32u);
  EXPECT_EQ(single.total_wavefronts_after(), 32);
}

// ---- bad input: one line, UsageError ------------------------------------------------------------

void expect_usage_error(const SwizzleParams& p, const std::string& needle) {
  try {
    make_swizzle_map(p);
    ADD_FAILURE() << "no UsageError for " << needle;
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(SwizzleMapErrors, RejectsBadParameters) {
  // ldmatrix needs b16.
  expect_usage_error(params(3, 3, 3, 64, 64, DType::f32, SwizzleAccess::ldmatrix),
                     "--access ldmatrix loads b16");
  // The swizzle reaches past the tile: 2^9 = 512 elements, the tile holds 256.
  expect_usage_error(params(3, 3, 3, 4, 64, DType::f16, SwizzleAccess::ldmatrix), "512");
  expect_usage_error(params(3, 3, 2, 64, 64, DType::f16, SwizzleAccess::ldmatrix), "S >= B");
  expect_usage_error(params(-1, 3, 3, 64, 64, DType::f16, SwizzleAccess::ldmatrix), ">= 0");
  expect_usage_error(params(3, 3, 3, 0, 64, DType::f16, SwizzleAccess::ldmatrix), "0x64");
  expect_usage_error(params(3, 3, 3, 64, -8, DType::f16, SwizzleAccess::ldmatrix), "64x-8");
  // 8-byte chunks would split a 16-byte cp.async.
  expect_usage_error(params(3, 2, 3, 64, 64, DType::f16, SwizzleAccess::cp_async),
                     "M must be >= 3");
  // An ldmatrix.x4 footprint does not fit an 8x16 tile.
  expect_usage_error(params(0, 0, 0, 8, 16, DType::f16, SwizzleAccess::ldmatrix), "16x16");
  // Rows of 6 bytes cannot be read as 4-byte words.
  expect_usage_error(params(0, 0, 0, 8, 3, DType::f16, SwizzleAccess::row), "multiple of 2");
  expect_usage_error(params(0, 0, 0, 8, 4, DType::f16, SwizzleAccess::cp_async), "multiple of 8");
  // More than a block's shared memory.
  expect_usage_error(params(3, 3, 3, 1024, 1024, DType::f16, SwizzleAccess::ldmatrix), "KiB");
  expect_usage_error(params(8, 3, 10, 64, 64, DType::f16, SwizzleAccess::ldmatrix), "B+M+S");
}

}  // namespace
}  // namespace gemmbench::inspect
