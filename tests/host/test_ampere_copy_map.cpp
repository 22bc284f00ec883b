// The Ampere kernel's global->shared copy map (kernels/hgemm/ampere_index.hpp, CopyMap): every
// 16-byte chunk of a stage is copied exactly once, and the shared offset the kernel computes for
// iteration i (one offset per swizzle phase plus whole periods) is the tile's own offset of the
// chunk, for the math warps' 256 threads and for the producer warpgroup's 128 (whose iterations
// are fewer than 8 lines apart for MN-major operands, so they cycle through swizzle phases).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hgemm/ampere_index.hpp"

namespace gemmbench::hgemm {
namespace {

template <int ROWS, int BK, int THREADS, bool K_MAJOR>
void check_copy_map() {
  using Map = CopyMap<ROWS, BK, THREADS, K_MAJOR>;
  using Tile = SmemTile<ROWS, BK, K_MAJOR>;
  const std::string what = std::to_string(ROWS) + "x" + std::to_string(BK) + ", " +
                           std::to_string(THREADS) + " threads, " +
                           (K_MAJOR ? "K-major" : "MN-major");
  std::vector<int> copies(Tile::kElems / 8, 0);  // per 16-byte chunk of the stage
  for (int tid = 0; tid < THREADS; ++tid) {
    for (int i = 0; i < Map::kIters; ++i) {
      const RowK c = Map::at(tid, i);
      ASSERT_LT(c.row, ROWS) << what;
      ASSERT_LT(c.k, BK) << what;
      ASSERT_EQ(c.k % (K_MAJOR ? 8 : 1), 0) << what;
      ASSERT_EQ(c.row % (K_MAJOR ? 1 : 8), 0) << what;
      const int direct = Tile::offset(c.row, c.k);
      ASSERT_EQ(Map::smem_offset(tid, i), direct) << what << ", thread " << tid << ", iter " << i;
      ASSERT_EQ(direct % 8, 0) << what;  // a whole 16-byte chunk
      ++copies[direct / 8];
    }
  }
  for (size_t c = 0; c < copies.size(); ++c) {
    ASSERT_EQ(copies[c], 1) << what << ": chunk " << c << " copied " << copies[c] << " times";
  }
}

TEST(AmpereCopyMap, MathWarpsCoverEachChunkOnce) {
  check_copy_map<128, 64, 256, true>();
  check_copy_map<256, 64, 256, true>();
  check_copy_map<128, 32, 256, true>();
  check_copy_map<256, 32, 256, true>();
  check_copy_map<128, 64, 256, false>();
  check_copy_map<256, 64, 256, false>();
  check_copy_map<128, 32, 128, true>();
}

TEST(AmpereCopyMap, ProducerWarpgroupCoversEachChunkOnce) {
  check_copy_map<128, 64, 128, true>();
  check_copy_map<256, 64, 128, true>();
  check_copy_map<128, 32, 128, true>();
  check_copy_map<256, 32, 128, true>();
  check_copy_map<128, 64, 128, false>();  // 16 chunks per line: 8 lines apart
  check_copy_map<256, 64, 128, false>();  // 32 chunks per line: 4 lines apart, 2 phases
  check_copy_map<256, 32, 128, false>();
}

TEST(AmpereCopyMap, PhasesOfFewThreads) {
  // One warp on a 256-row MN-major tile: iterations one line apart, 8 phases.
  using Map = CopyMap<256, 64, 32, false>;
  static_assert(Map::kStep == 1 && Map::kPhases == 8);
  check_copy_map<256, 64, 32, false>();
  check_copy_map<128, 64, 32, true>();  // 4 lines apart, 2 phases
  static_assert(CopyMap<128, 64, 256, true>::kPhases == 1);
}

}  // namespace
}  // namespace gemmbench::hgemm
