// The rule table of the shape-aware `hgemm` and `sgemm` (kernels/dispatch/rules.cpp): what it
// picks at the shapes its rules were measured on (H100 caps; H200 caps where a rule differs), that
// every candidate it names is registered and can take the problem's dtype and layout, and that
// every chain ends in a kernel with no shape constraint beyond its layout, so a case is only
// skipped where nothing can run it. Which candidate finally runs depends on supports(), which asks
// the driver: the GPU suites (test_kernels, test_decode) run `hgemm` and `sgemm` themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "dispatch/rules.hpp"
#include "core/registry.hpp"

using namespace gemmbench;

namespace {

// The two parts the rules were measured on, with their datasheet DRAM bandwidth (the reports'
// mem_bw_datasheet_gbs).
const DeviceCaps kH100{90, 132, 227 * 1024, 50u << 20, 3352.32};
const DeviceCaps kH200{90, 132, 227 * 1024, 60u << 20, 4814.304};

GemmProblem tn16(int64_t m, int64_t n, int64_t k) {
  return GemmProblem{m, n, k, Layout::tn, DType::f16, Accum::f32, 1.0, 0.0};
}

std::string first(const std::vector<RuleCandidate>& c) {
  return c.empty() ? "" : c[0].kernel;
}

// "MxNxK", for SCOPED_TRACE in the shape tables.
std::string shape(int64_t m, int64_t n, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// A rule measured on the H100 only: `kernel` comes first there, and not on the H200.
void expect_first_on_h100_only(int64_t m, int64_t n, int64_t k, const std::string& kernel) {
  SCOPED_TRACE(shape(m, n, k));
  EXPECT_EQ(first(hgemm_candidates(tn16(m, n, k), kH100)), kernel);
  EXPECT_NE(first(hgemm_candidates(tn16(m, n, k), kH200)), kernel);
}

}  // namespace

TEST(DispatchRules, DecodeShapesPickTheDecodePaths) {
  // One token: the GEMV path below K = 16384, the Hopper decode path from there, and next.
  EXPECT_EQ(first(hgemm_candidates(tn16(1, 4096, 4096), kH100)), "hgemm_decode_gemv");
  EXPECT_EQ(first(hgemm_candidates(tn16(1, 2112, 7168), kH100)), "hgemm_decode_gemv");
  EXPECT_EQ(first(hgemm_candidates(tn16(1, 7168, 16384), kH100)), "hgemm_decode_sm90");
  EXPECT_EQ(hgemm_candidates(tn16(1, 4096, 4096), kH100).at(1).kernel, "hgemm_decode_sm90");
  // 2-8 tokens: the tensor-core GEMV below 128 MiB of weights (8192x8192 is exactly 128 MiB), the
  // Hopper decode path from there; 9-16 tokens the tensor-core GEMV only where its 32-row groups
  // fit one wave (N/32 <= 132) and the weights are under 64 MiB.
  EXPECT_EQ(first(hgemm_candidates(tn16(2, 4096, 4096), kH100)), "hgemm_decode_gemv_tc");
  EXPECT_EQ(first(hgemm_candidates(tn16(8, 4096, 14336), kH100)), "hgemm_decode_gemv_tc");
  EXPECT_EQ(first(hgemm_candidates(tn16(4, 8192, 8192), kH100)), "hgemm_decode_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(8, 28672, 4096), kH100)), "hgemm_decode_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(9, 4096, 4096), kH100)), "hgemm_decode_gemv_tc");
  EXPECT_EQ(hgemm_candidates(tn16(4, 4096, 4096), kH100).at(1).kernel, "hgemm_decode_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(12, 4096, 7168), kH100)), "hgemm_decode_gemv_tc");
  EXPECT_EQ(first(hgemm_candidates(tn16(12, 2112, 7168), kH100)), "hgemm_decode_gemv_tc");
  EXPECT_EQ(first(hgemm_candidates(tn16(16, 4096, 4096), kH100)), "hgemm_decode_gemv_tc")
      << "rule P stays out at K = 4096";
  EXPECT_EQ(first(hgemm_candidates(tn16(12, 4096, 14336), kH100)), "hgemm_decode_sm90")
      << "112 MiB of weights";
  EXPECT_EQ(first(hgemm_candidates(tn16(16, 6144, 4096), kH100)), "hgemm_decode_sm90")
      << "192 row groups: more than one wave";
  EXPECT_EQ(first(hgemm_candidates(tn16(16, 28672, 4096), kH100)), "hgemm_decode_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(17, 4096, 4096), kH100)), "hgemm_decode_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(128, 7168, 18432), kH100)), "hgemm_decode_sm90")
      << "K > 16384: rung 12's split";
  // 33-128 tokens: the 64-row weight tile where its tiles fit one wave (N/64 <= 132, K <= 16384)
  // or K <= 2048; rung 12 behind it, then rung 11.
  EXPECT_EQ(first(hgemm_candidates(tn16(64, 4096, 4096), kH100)), "hgemm_decode_sm90_n64");
  EXPECT_EQ(first(hgemm_candidates(tn16(96, 4096, 4096), kH100)), "hgemm_decode_sm90_n64");
  EXPECT_EQ(first(hgemm_candidates(tn16(33, 8192, 8192), kH100)), "hgemm_decode_sm90_n64");
  EXPECT_EQ(first(hgemm_candidates(tn16(96, 7168, 16384), kH100)), "hgemm_decode_sm90_n64");
  EXPECT_EQ(first(hgemm_candidates(tn16(128, 32768, 512), kH100)), "hgemm_decode_sm90_n64")
      << "512 tiles, but K <= 2048";
  EXPECT_EQ(first(hgemm_candidates(tn16(128, 28672, 4096), kH100)), "hgemm_decode_sm90")
      << "448 tiles of 64 rows and K = 4096";
  EXPECT_EQ(first(hgemm_candidates(tn16(64, 8192, 28672), kH100)), "hgemm_decode_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(32, 4096, 4096), kH100)), "hgemm_decode_sm90")
      << "up to 32 tokens rung 12 leads";
  const auto n64 = hgemm_candidates(tn16(64, 4096, 4096), kH100);
  ASSERT_GE(n64.size(), 3u);
  EXPECT_EQ(n64[1].kernel, "hgemm_decode_sm90");
  EXPECT_EQ(n64[2].kernel, "hgemm_decode");
  EXPECT_NE(first(hgemm_candidates(tn16(129, 4096, 4096), kH100)), "hgemm_decode_sm90");
  // Where the Hopper decode path cannot run (no sm_90a) rung 11's decode path is next.
  const auto c = hgemm_candidates(tn16(16, 8192, 8192), kH100);
  ASSERT_GE(c.size(), 2u);
  EXPECT_EQ(c[1].kernel, "hgemm_decode");
}

TEST(DispatchRules, TheSplitSixtyFourRowTileWhereOneCtaPerTileLeavesHalfTheSms) {
  // Rule P (H100): 16-128 tokens, ceil(N/64) <= 66 and K >= 7168: the 64-row tile split over a
  // cluster; not at K = 4096, not past half the SMs, not below 16 tokens, not on the H200.
  for (int64_t m : {16, 64, 128}) {
    SCOPED_TRACE(m);
    for (auto [n, k] : {std::pair<int64_t, int64_t>{2112, 7168}, {4096, 7168}, {4096, 14336}})
      EXPECT_EQ(first(hgemm_candidates(tn16(m, n, k), kH100)),
                m > 96 && n == 4096 && k == 7168 ? "hgemm_decode_sm90_wmc"  // rule R
                                                 : "hgemm_decode_sm90_n64_cs")
          << n << "x" << k;
    EXPECT_NE(first(hgemm_candidates(tn16(m, 4096, 4096), kH100)), "hgemm_decode_sm90_n64_cs");
    EXPECT_NE(first(hgemm_candidates(tn16(m, 4224 + 64, 7168), kH100)), "hgemm_decode_sm90_n64_cs")
        << "67 tiles: more than half the SMs";
    // The H200: from K = 4096.
    EXPECT_EQ(first(hgemm_candidates(tn16(m, 4096, 4096), kH200)), "hgemm_decode_sm90_n64_cs");
    EXPECT_EQ(first(hgemm_candidates(tn16(m, 2112, 7168), kH200)), "hgemm_decode_sm90_n64_cs");
    EXPECT_NE(first(hgemm_candidates(tn16(m, 4096, 2048), kH200)), "hgemm_decode_sm90_n64_cs");
  }
  EXPECT_EQ(first(hgemm_candidates(tn16(16, 4224, 7168), kH100)), "hgemm_decode_sm90_n64_cs")
      << "66 tiles: exactly half";
  EXPECT_NE(first(hgemm_candidates(tn16(15, 4096, 7168), kH100)), "hgemm_decode_sm90_n64_cs");
  EXPECT_NE(first(hgemm_candidates(tn16(129, 4096, 7168), kH100)), "hgemm_decode_sm90_n64_cs");
  // _n64 next (its own stream-K walk is what the split falls back to).
  const auto c = hgemm_candidates(tn16(96, 4096, 7168), kH100);
  ASSERT_GE(c.size(), 2u);
  EXPECT_EQ(c[1].kernel, "hgemm_decode_sm90_n64");
}

TEST(DispatchRules, TheSharedWeightTileAtNinetySevenToOneHundredTwentyEightTokens) {
  // Rule R (H100): 97-128 tokens, 64-row tiles, doubled, between 70% and 100% of the SMs
  // (N = 3072..4224 on 132 SMs), 2048 <= K <= 8192; never on the H200.
  for (int64_t m : {97, 128})
    for (auto [n, k] : {std::pair<int64_t, int64_t>{4096, 4096},
                        {4096, 2048},
                        {4096, 8192},
                        {3072, 4096},
                        {4224, 7168}}) {
      expect_first_on_h100_only(m, n, k, "hgemm_decode_sm90_wmc");
    }
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{96, 4096, 4096},
                         {129, 4096, 4096},
                         {128, 2560, 4096},       // 80 CTAs: lost
                         {128, 4224 + 64, 4096},  // 67 tiles: more than the grid doubled
                         {128, 4096, 8200},
                         {128, 4096, 2040},
                         {128, 4096, 14336}}) {
    SCOPED_TRACE(shape(m, n, k));
    EXPECT_NE(first(hgemm_candidates(tn16(m, n, k), kH100)), "hgemm_decode_sm90_wmc");
  }
  // R', R'': the 96-row shared tile at 65-96 tokens (N = 4225..6336 on 132 SMs, 2048 <= K <=
  // 4096) and at 97-128 tokens where its doubled tiles fill at least 90% of the SMs (N >=
  // 5665), the 128-row one at 97-128 tokens (N = 6337..8448, 8192 <= K <= 16384), the 160-row
  // one at 97-128 tokens (N = 8449..10560, 7168 <= K <= 8192); not the 192-row one.
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{96, 6144, 4096},
                         {65, 6144, 2048},
                         {96, 4225, 4096},
                         {96, 6336, 4096},
                         {128, 6144, 4096},
                         {97, 5760, 2048},  // 60 tiles of 96 rows, doubled: 91% of the SMs
                         {128, 8192, 8192},
                         {128, 7168, 16384},
                         {97, 6337, 8192},
                         {128, 8448, 16384},
                         {128, 10240, 8192},
                         {97, 8449, 7168},
                         {128, 10560, 8192}}) {
    expect_first_on_h100_only(m, n, k, "hgemm_decode_sm90_wmc");
  }
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{128, 6144, 7168},
                         {96, 6144, 7168},
                         {96, 6337, 4096},   // 67 tiles of 96 rows, doubled, overflow: 128 rows
                         {128, 5664, 4096},  // 59 tiles of 96 rows, doubled: 89% of the SMs
                         {128, 7168, 2048},  // 128 rows: lost, then mixed
                         {128, 7168, 4096},
                         {96, 8192, 8192},  // 128 rows at 65-96 tokens: not measured
                         {128, 8192, 16392},
                         {128, 12288, 4096},  // 192 rows: mixed
                         {96, 10240, 8192},
                         {128, 10240, 4096},
                         {128, 10561, 8192}}) {
    SCOPED_TRACE(shape(m, n, k));
    EXPECT_NE(first(hgemm_candidates(tn16(m, n, k), kH100)), "hgemm_decode_sm90_wmc");
  }
  // Next: what ran there before (rule P's split tile at K >= 7168, else rule N's _n64).
  EXPECT_EQ(hgemm_candidates(tn16(128, 4096, 7168), kH100).at(1).kernel,
            "hgemm_decode_sm90_n64_cs");
  EXPECT_EQ(hgemm_candidates(tn16(128, 4096, 4096), kH100).at(1).kernel, "hgemm_decode_sm90_n64");
}

TEST(DispatchRules, TheFortyEightRowWeightTileAtThirtyThreeToSixtyFourTokens) {
  // Rule S (H100): 33-64 tokens, 48-row tiles filling 90-100% of the SMs (119-132 tiles: N =
  // 5665..6336 on 132 SMs), 2048 <= K <= 7168; never on the H200.
  for (int64_t m : {33, 48, 64})
    for (auto [n, k] : {std::pair<int64_t, int64_t>{6144, 4096},
                        {6144, 2048},
                        {6144, 7168},
                        {5665, 4096},
                        {6336, 4096}}) {
      expect_first_on_h100_only(m, n, k, "hgemm_decode_sm90_n48");
    }
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{32, 6144, 4096},
                         {65, 6144, 4096},  // level at 96 and 128 tokens
                         {64, 5120, 4096},  // 107 tiles, 81%: mixed
                         {64, 5664, 4096},  // 118 tiles, under 90%
                         {64, 6337, 4096},  // 133 tiles: two waves
                         {64, 6144, 2040},
                         {64, 6144, 7176},
                         {64, 6144, 14336}}) {
    SCOPED_TRACE(shape(m, n, k));
    EXPECT_NE(first(hgemm_candidates(tn16(m, n, k), kH100)), "hgemm_decode_sm90_n48");
  }
  // Next: rule N's 64-row tile, what ran there before.
  EXPECT_EQ(hgemm_candidates(tn16(64, 6144, 4096), kH100).at(1).kernel, "hgemm_decode_sm90_n64");
}

TEST(DispatchRules, TheH200TakesTheSixtyFourRowTileOnlyWhereItWonThere) {
  // Rule O: on HBM over 4 TB/s the 64-row weight tile where its tiles fill more than half and at
  // most one wave with K <= 8192, or 1024 <= K <= 2048, or (65-128 tokens) where they split K
  // with 8192 < K <= 16384; rung 12 where they split K otherwise (N <= 4224), at K = 512 and at
  // K = 16384 with more than half a wave, where rule N took them on the H100.
  for (int64_t m : {64, 128}) {
    SCOPED_TRACE(m);
    EXPECT_EQ(first(hgemm_candidates(tn16(m, 6144, 4096), kH200)), "hgemm_decode_sm90_n64");
    EXPECT_EQ(first(hgemm_candidates(tn16(m, 7168, 2048), kH200)), "hgemm_decode_sm90_n64");
    EXPECT_EQ(first(hgemm_candidates(tn16(m, 8192, 8192), kH200)), "hgemm_decode_sm90_n64");
    EXPECT_EQ(first(hgemm_candidates(tn16(m, 24576, 1536), kH200)), "hgemm_decode_sm90_n64")
        << "384 tiles, but K = 1536";
    // 128x4096x14336: the one split layer the 64-row tile won on the H200, at 128 tokens only;
    // rule P's split 64-row tile now comes first, then _n64 (rule O) or rung 12.
    const auto c14336 = hgemm_candidates(tn16(m, 4096, 14336), kH200);
    ASSERT_GE(c14336.size(), 2u);
    EXPECT_EQ(c14336[0].kernel, "hgemm_decode_sm90_n64_cs");
    EXPECT_EQ(c14336[1].kernel, m > 64 ? "hgemm_decode_sm90_n64" : "hgemm_decode_sm90");
    for (auto [n, k] : {std::pair<int64_t, int64_t>{4096, 4096},
                        {4096, 7168},
                        {2112, 7168},
                        {32768, 512},
                        {7168, 16384}}) {
      SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(k));
      // Rung 12 where rule O took the layers from _n64; rule P's split tile before it where the
      // 64-row tiles are at most half the SMs (N <= 4224).
      EXPECT_EQ(first(hgemm_candidates(tn16(m, n, k), kH200)),
                n <= 4224 ? "hgemm_decode_sm90_n64_cs" : "hgemm_decode_sm90");
      // The H100: rule N, or rule P's split 64-row tile where the tiles leave half the SMs idle
      // and K >= 7168, or at 128 tokens rule R's shared weight tile where they are 64 of 132
      // (R'': 128 rows at 7168x16384).
      EXPECT_EQ(first(hgemm_candidates(tn16(m, n, k), kH100)),
                m > 96 && ((n == 4096 && k <= 8192) || n == 7168) ? "hgemm_decode_sm90_wmc"
                : n <= 4224 && k >= 7168                          ? "hgemm_decode_sm90_n64_cs"
                                                                  : "hgemm_decode_sm90_n64");
    }
  }
  // 66 tiles of 64 rows are exactly half the grid: the split begins below that (rule P's split
  // tile takes those layers first now).
  EXPECT_EQ(hgemm_candidates(tn16(64, 66 * 64, 4096), kH200).at(1).kernel, "hgemm_decode_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(64, 66 * 64 + 1, 4096), kH200)), "hgemm_decode_sm90_n64");
  EXPECT_EQ(first(hgemm_candidates(tn16(64, 132 * 64 + 1, 4096), kH200)), "hgemm_decode_sm90");
  // Rule O's split clause: 65 tokens up, 8192 < K <= 16384, at most half the grid of tiles
  // (behind rule P's split tile there).
  EXPECT_EQ(hgemm_candidates(tn16(65, 4096, 8200), kH200).at(1).kernel, "hgemm_decode_sm90_n64");
  EXPECT_EQ(hgemm_candidates(tn16(65, 4096, 8192), kH200).at(1).kernel, "hgemm_decode_sm90");
  EXPECT_EQ(hgemm_candidates(tn16(128, 4096, 16392), kH200).at(1).kernel, "hgemm_decode_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(128, 66 * 64 + 1, 14336), kH200)), "hgemm_decode_sm90");
  // Outside 16-128 tokens both parts choose alike.
  for (int64_t m : {1, 2, 15, 129, 4096})
    EXPECT_EQ(first(hgemm_candidates(tn16(m, 4096, 4096), kH200)),
              first(hgemm_candidates(tn16(m, 4096, 4096), kH100)))
        << m;
  // A device whose bandwidth is unknown (0) keeps the H100's rule.
  const DeviceCaps unknown{90, 132, 227 * 1024, 50u << 20};
  EXPECT_EQ(first(hgemm_candidates(tn16(64, 4096, 4096), unknown)), "hgemm_decode_sm90_n64");
}

TEST(DispatchRules, PrefillShapesPickByWaves) {
  // N = 2112 = 11 x 192: 1.83 waves of 192x192 tiles, 89% of the walk busy, against 67% for the
  // 256-row tiles (2.18 waves of 256x256 cluster tiles, or 2.06 of 256x128, with N padded): the
  // 192x192 tile; then the stream-K tail without a cluster, then the clustered one.
  const auto c = hgemm_candidates(tn16(4096, 2112, 7168), kH100);
  EXPECT_EQ(first(c), "hgemm_tn_sm90_192x192");
  ASSERT_GE(c.size(), 3u);
  EXPECT_EQ(c[1].kernel, "hgemm_tn_sm90_c1_sk");
  EXPECT_EQ(c[2].kernel, "hgemm_tn_sm90_sk_defer");
  // Rule Q where it won in time, and where it lost: 4224 = 33 whole tiles of 128 (100% busy
  // against 89%), 4096x1344x7168 (1.17 waves of 192), the layers whose N is a multiple of 256.
  for (const auto& s : {std::array<int64_t, 3>{2048, 2112, 7168},
                        {8192, 2112, 7168},
                        {3072, 3072, 3072},
                        {4096, 3264, 4096}})
    EXPECT_EQ(first(hgemm_candidates(tn16(s[0], s[1], s[2]), kH100)), "hgemm_tn_sm90_192x192")
        << s[0] << "x" << s[1];
  for (const auto& s : {std::array<int64_t, 3>{4096, 4224, 4096},
                        {4096, 1344, 7168},
                        {4096, 4096, 4096},
                        {4096, 28672, 4096},
                        {4096, 36864, 7168},
                        {2048, 2048, 2048},
                        {5120, 5120, 5120},
                        {256, 4096, 4096}})
    EXPECT_NE(first(hgemm_candidates(tn16(s[0], s[1], s[2]), kH100)), "hgemm_tn_sm90_192x192")
        << s[0] << "x" << s[1];
  // Balanced waves, K <= 7168: the plain walk.
  EXPECT_EQ(first(hgemm_candidates(tn16(4096, 4096, 4096), kH100)), "hgemm_tn_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(4096, 7168, 2048), kH100)), "hgemm_tn_sm90");
  EXPECT_EQ(first(hgemm_candidates(tn16(5120, 4096, 4096), kH100)), "hgemm_tn_sm90");
  // Long K: the stream-K tail.
  EXPECT_EQ(first(hgemm_candidates(tn16(4096, 7168, 16384), kH100)), "hgemm_tn_sm90_sk_defer");
  EXPECT_EQ(first(hgemm_candidates(tn16(8192, 8192, 8192), kH100)), "hgemm_tn_sm90_sk_defer");
  // Under 0.9 waves, or 1-2 waves with a poor last one: 128x128 tiles split over the grid.
  EXPECT_EQ(first(hgemm_candidates(tn16(1024, 1024, 1024), kH100)), "hgemm_tn_sm90_128x128_sk");
  EXPECT_EQ(first(hgemm_candidates(tn16(256, 4096, 4096), kH100)), "hgemm_tn_sm90_128x128_sk");
  EXPECT_EQ(first(hgemm_candidates(tn16(2560, 2560, 2560), kH100)), "hgemm_tn_sm90_128x128_sk");
  EXPECT_EQ(first(hgemm_candidates(tn16(2048, 2048, 2048), kH100)), "hgemm_tn_sm90");
}

TEST(DispatchRules, WavesAreCountedInTheDevicesOwnClusters) {
  const WaveShape w = sm90_waves(tn16(4096, 2112, 7168), kH100);
  EXPECT_NEAR(w.waves, 144.0 / 66.0, 1e-12);
  EXPECT_NEAR(w.wave_efficiency, (144.0 / 66.0) / 3.0, 1e-12);
  const DeviceCaps half{90, 66, 227 * 1024, 50u << 20};
  EXPECT_NEAR(sm90_waves(tn16(4096, 2112, 7168), half).waves, 144.0 / 33.0, 1e-12);
  // One CTA per 192x192 tile: 22 x 11 tiles over 132 SMs.
  const WaveShape w192 = tile_waves(tn16(4096, 2112, 7168), kH100, 192, 192, 1);
  EXPECT_NEAR(w192.waves, 242.0 / 132.0, 1e-12);
  EXPECT_NEAR(w192.wave_efficiency, (242.0 / 132.0) / 2.0, 1e-12);
  EXPECT_NEAR(w192.tile_efficiency, 4096.0 / 4224.0, 1e-12);  // 22 tiles of 192 cover 4224 rows
  EXPECT_NEAR(w.tile_efficiency, 2112.0 / 2304.0, 1e-12);
  EXPECT_NEAR(w192.busy(), w192.wave_efficiency * w192.tile_efficiency, 1e-12);
}

TEST(DispatchRules, OtherLayoutsPickTheirHopperKernel) {
  for (Layout l : {Layout::nn, Layout::nt, Layout::tt}) {
    GemmProblem p = tn16(5120, 4096, 4096);
    p.layout = l;
    EXPECT_EQ(first(hgemm_candidates(p, kH100)), std::string("hgemm_") + to_string(l) + "_sm90");
    // Rule Q: the 192x192 tile where its walk is busier, then the layout's 256x128 tile.
    p = tn16(4096, 2112, 7168);
    p.layout = l;
    const auto c = hgemm_candidates(p, kH100);
    EXPECT_EQ(first(c), std::string("hgemm_") + to_string(l) + "_sm90_192x192");
    ASSERT_GE(c.size(), 2u);
    EXPECT_EQ(c[1].kernel, std::string("hgemm_") + to_string(l) + "_sm90");
    p = tn16(8192, 8192, 8192);
    p.layout = l;
    EXPECT_EQ(first(hgemm_candidates(p, kH100)), std::string("hgemm_") + to_string(l) + "_sm90");
  }
}

TEST(DispatchRules, SgemmTilesByShape) {
  auto sg = [](int64_t m, int64_t n, int64_t k) {
    return first(sgemm_candidates(GemmProblem{m, n, k, Layout::nn, DType::f32, Accum::f32}, kH100));
  };
  EXPECT_EQ(sg(1, 4096, 4096), "sgemm_decode_gemv");
  EXPECT_EQ(first(sgemm_candidates(GemmProblem{1, 4096, 4096, Layout::nt, DType::f32, Accum::f32},
                                   kH100)),
            "sgemm_splitk")
      << "the GEMV path reads op(B) K-contiguous only";
  EXPECT_EQ(sg(2, 4096, 4096), "sgemm_splitk");
  EXPECT_EQ(sg(16, 4096, 4096), "sgemm_splitk");
  EXPECT_EQ(sg(128, 4096, 4096), "sgemm_splitk");
  EXPECT_EQ(sg(4096, 128, 4096), "sgemm_pipelined_128x64") << "narrow N, many rows";
  // 129 x 4096: 32 tiles of 256x128, a quarter of a wave.
  EXPECT_EQ(sg(129, 4096, 4096), "sgemm_streamk");
  // The squares: stream-K where the 256x128 tiles' last wave is under 95% busy (1024^3: 32
  // tiles; 1536^3: 72; 2560^3: 200, 1.52 waves; 5120^3: 800, 6.06 waves), the tile itself
  // where it is not (2048^3: 128 tiles, 0.97; 4096^3: 512, 3.88 of 4 waves; 8192^3: 15.5 of 16).
  EXPECT_EQ(sg(1024, 1024, 1024), "sgemm_streamk");
  EXPECT_EQ(sg(1536, 1536, 1536), "sgemm_streamk");
  EXPECT_EQ(sg(2560, 2560, 2560), "sgemm_streamk");
  EXPECT_EQ(sg(3072, 3072, 3072), "sgemm_streamk");
  EXPECT_EQ(sg(5120, 5120, 5120), "sgemm_streamk");
  EXPECT_EQ(sg(2048, 2048, 2048), "sgemm_pipelined");
  EXPECT_EQ(sg(4096, 4096, 4096), "sgemm_pipelined");
  EXPECT_EQ(sg(7680, 7680, 7680), "sgemm_pipelined");
  EXPECT_EQ(sg(8192, 8192, 8192), "sgemm_pipelined");
}

// Every candidate exists, takes the problem's dtype, accumulate type and layout (the declared
// fields; supports() is the driver's), and the chain ends in a kernel without shape limits.
TEST(DispatchRules, EveryCandidateIsRegisteredAndChainsEndInAnyShapeKernel) {
  const auto& reg = KernelRegistry::instance();
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1, 1},          {16, 4096, 4096},   {128, 2112, 7168}, {129, 4096, 4096},
      {4096, 2112, 7168}, {8192, 8192, 8192}, {37, 53, 71},      {1000, 1, 999}};
  for (Layout l : kAllLayouts)
    for (DType d : kAllDTypes)
      for (Accum a : kAllAccums) {
        if (!accum_valid_for(d, a)) continue;
        for (const auto& s : shapes) {
          const GemmProblem p{s[0], s[1], s[2], l, d, a, 1.0, 0.0};
          SCOPED_TRACE(p.shape_string() + " " + to_string(l) + " " + to_string(d) + "/" +
                       to_string(a));
          const auto c = d == DType::f32 ? sgemm_candidates(p, kH100) : hgemm_candidates(p, kH100);
          ASSERT_FALSE(c.empty());
          for (const RuleCandidate& rc : c) {
            const KernelInfo* k = reg.find(rc.kernel);
            ASSERT_NE(k, nullptr) << rc.kernel << " is not registered";
            EXPECT_FALSE(rc.rule.empty());
          }
          const std::string last = c.back().kernel;
          if (d == DType::f32)
            EXPECT_EQ(last, "sgemm_naive");
          else
            EXPECT_EQ(last, "hgemm_wmma");
          // At least one candidate declares this dtype, accumulate type and layout, or the case
          // is one no registered kernel claims (bf16 in another layout than TN without Hopper).
          bool declared = false;
          for (const RuleCandidate& rc : c) {
            const KernelInfo* k = reg.find(rc.kernel);
            const auto has = [](const auto& v, auto x) {
              return std::find(v.begin(), v.end(), x) != v.end();
            };
            declared = declared || (has(k->dtypes, d) && has(k->accums, a) && has(k->layouts, l));
          }
          EXPECT_TRUE(declared);
        }
      }
}

constexpr const char* kRuleF8 = "fp8-hopper-decode-shared-weights-9-to-32-tokens";

// Rule F8: on the H200 at 9-32 tokens per-tensor and per-row and 9-16 block128, without fast
// accumulation, the weight-sharing pair on token tiles of 8 or 16 where its clusters fit one wave
// (a shared tile of 64-192 rows: N <= 66 * 192; with block128 of 64, 128 or 192 rows, so 6144
// rows take 128 where the other scalings take 96); outside that, the rules under it (the e5m2
// pairs too: the kernel refuses them and the next candidate runs).
TEST(DispatchRules, FP8RuleF8) {
  GemmProblem t{16, 4096, 4096, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
  t.out = DType::bf16;
  struct Pick {
    int64_t m, n, k;
    ScaleMode scale;
    bool f8;
  };
  const Pick table[] = {{9, 4096, 4096, ScaleMode::tensor, true},
                        {16, 4096, 14336, ScaleMode::tensor, true},
                        {17, 6144, 4096, ScaleMode::tensor, true},
                        {32, 10240, 8192, ScaleMode::tensor, true},
                        {24, 66 * 192, 4096, ScaleMode::tensor, true},
                        {24, 66 * 192 + 1, 4096, ScaleMode::tensor, false},
                        {16, 28672, 4096, ScaleMode::tensor, false},
                        {16, 57344, 8192, ScaleMode::tensor, false},
                        {8, 4096, 4096, ScaleMode::tensor, false},
                        {33, 4096, 4096, ScaleMode::tensor, false},
                        {16, 8192, 8192, ScaleMode::row, true},
                        {17, 8192, 8192, ScaleMode::row, true},
                        {32, 4096, 14336, ScaleMode::row, true},
                        {33, 8192, 8192, ScaleMode::row, false},
                        {16, 28672, 4096, ScaleMode::row, false},
                        {16, 7168, 16384, ScaleMode::block128, true},
                        {16, 66 * 192, 2048, ScaleMode::block128, true},
                        {16, 66 * 192 + 1, 2048, ScaleMode::block128, false},
                        {16, 24576, 1536, ScaleMode::block128, false},
                        {17, 4096, 7168, ScaleMode::block128, false},
                        {16, 6144, 2048, ScaleMode::block128, true}};
  for (const Pick& e : table) {
    t.m = e.m, t.n = e.n, t.k = e.k, t.scale = e.scale, t.fast_accum = false;
    const auto c = fp8gemm_candidates(t, kH200);
    ASSERT_FALSE(c.empty());
    EXPECT_EQ(c[0].rule == kRuleF8, e.f8) << e.m << "x" << e.n << "x" << e.k;
    if (e.f8) {
      EXPECT_EQ(c[0].kernel, "fp8gemm_decode_sm90_wmcfit");
      ASSERT_GE(c.size(), 2u);
      EXPECT_NE(c[1].kernel, "fp8gemm_decode_sm90_wmcfit") << "the e5m2 pairs' next candidate";
      t.fast_accum = true;
      EXPECT_NE(first(fp8gemm_candidates(t, kH200)), "fp8gemm_decode_sm90_wmcfit")
          << "fast accumulation was not measured";
      t.fast_accum = false;
      EXPECT_NE(first(fp8gemm_candidates(t, kH100)), "fp8gemm_decode_sm90_wmcfit")
          << "rule F8 is the H200's";
    }
  }
}

// An FP8 rule of the H200's (D5, D6): for each case whether `rule` is fp8gemm's first candidate
// (e4m3 x e4m3, bf16 out, no fast accumulation); where it is, its kernel and the kernel under it
// (what the e5m2 pairs run), and that neither fast accumulation nor the H100 starts with that
// kernel. With `nowhere_else`, a case the rule does not lead must not hold it at all.
struct RuleCase {
  int64_t m, n, k;
  ScaleMode scale;
  bool first;
};
void expect_h200_rule(const char* rule, const char* kernel, const char* under,
                      std::initializer_list<RuleCase> table, bool nowhere_else) {
  GemmProblem t{1, 1, 1, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
  t.out = DType::bf16;
  for (const RuleCase& e : table) {
    SCOPED_TRACE(testing::Message()
                 << e.m << "x" << e.n << "x" << e.k << " " << to_string(e.scale));
    t.m = e.m, t.n = e.n, t.k = e.k, t.scale = e.scale, t.fast_accum = false;
    const auto c = fp8gemm_candidates(t, kH200);
    ASSERT_FALSE(c.empty());
    EXPECT_EQ(c[0].rule == rule, e.first);
    if (!e.first) {
      if (nowhere_else)
        EXPECT_TRUE(std::none_of(c.begin(), c.end(),
                                 [&](const RuleCandidate& x) { return x.rule == rule; }));
      continue;
    }
    EXPECT_EQ(c[0].kernel, kernel);
    ASSERT_GE(c.size(), 2u);
    EXPECT_EQ(c[1].kernel, under) << "the e5m2 pairs' pick";
    t.fast_accum = true;
    EXPECT_NE(first(fp8gemm_candidates(t, kH200)), kernel) << "fast accumulation not measured";
    t.fast_accum = false;
    EXPECT_NE(first(fp8gemm_candidates(t, kH100)), kernel) << "the rule is the H200's";
  }
}

// Rule D5: on the H200 at 1-32 tokens, per-tensor, without fast accumulation, weights over 64 Mi,
// F5's 64-row tile where its whole-tile walk is shorter than the 128-row tile's on whole waves
// (decode_n64_walk_shorter); below rule F8, so the layers the pair fits keep the pair. F5 under it.
TEST(DispatchRules, FP8RuleD5) {
  expect_h200_rule("fp8-hopper-decode-per-tensor-64-row-walk", "fp8gemm_decode_sm90_n64",
                   "fp8gemm_decode_sm90",
                   {{1, 57344, 8192, ScaleMode::tensor, true},
                    {8, 57344, 8192, ScaleMode::tensor, true},
                    {16, 57344, 8192, ScaleMode::tensor, true},
                    {32, 57344, 8192, ScaleMode::tensor, true},
                    {16, 59136, 8192, ScaleMode::tensor, true},
                    {24, 55296, 5120, ScaleMode::tensor, true},
                    {16, 73728, 4608, ScaleMode::tensor, true},
                    {33, 57344, 8192, ScaleMode::tensor, false},
                    {16, 28672, 4096, ScaleMode::tensor, false},
                    {16, 65536, 5120, ScaleMode::tensor, false},
                    {16, 10240, 8192, ScaleMode::tensor, false},
                    {16, 57344, 8192, ScaleMode::row, false},
                    {16, 57344, 8192, ScaleMode::block128, false},
                    {16, 24576, 1536, ScaleMode::block128, false}},
                   true);
}

// Rule D6: on the H200 at 33-64 tokens, per-tensor, without fast accumulation, weights over 64 Mi
// that rule F's clusters do not fit, F5 before rule M's 64-row tiles (under it); below rule F, so
// the layers the pair fits keep the pair (48x10240x8192 holds D6 under rule F's pick).
TEST(DispatchRules, FP8RuleD6) {
  expect_h200_rule("fp8-hopper-decode-per-tensor-33-to-64-tokens-large-weights",
                   "fp8gemm_decode_sm90", "fp8gemm_sm90_persistent_t_m64",
                   {{33, 57344, 8192, ScaleMode::tensor, true},
                    {48, 28672, 4096, ScaleMode::tensor, true},
                    {40, 59136, 8192, ScaleMode::tensor, true},
                    {56, 55296, 5120, ScaleMode::tensor, true},
                    {64, 73728, 4608, ScaleMode::tensor, true},
                    {64, 65536, 5120, ScaleMode::tensor, true},
                    {32, 57344, 8192, ScaleMode::tensor, false},
                    {65, 57344, 8192, ScaleMode::tensor, false},
                    {64, 14336, 4096, ScaleMode::tensor, false},
                    {64, 8192, 8192, ScaleMode::tensor, false},
                    {48, 10240, 8192, ScaleMode::tensor, false},
                    {64, 57344, 8192, ScaleMode::row, false},
                    {64, 57344, 8192, ScaleMode::block128, false},
                    {48, 28672, 4096, ScaleMode::row, false}},
                   false);
}

// fp8gemm (rules T, M, V, W, R, P, U): the decode path at 1-16 tokens, the 64-row tiles at 17-64,
// the stream-K F3 where 65-128 tokens leave a row of fewer tiles than half the SMs with K >= 4096;
// elsewhere F3 on 128x192 tiles where they fill the grid within 3% of 128x128 ones, else (block128,
// M >= 4096) the 256-row tiles where they fill it as well, else F3 with the pipelined promotion; F3
// itself with fast accumulation; the candidates end with F2 and F1.
TEST(DispatchRules, Fp8PicksDecodeThenStreamKThenF3) {
  auto fp8 = [](int64_t m, int64_t n, int64_t k, bool fast = false) {
    GemmProblem p{m, n, k, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
    p.out = DType::bf16, p.scale = fast ? ScaleMode::tensor : ScaleMode::block128;
    p.fast_accum = fast;
    return fp8gemm_candidates(p, kH100);
  };
  EXPECT_EQ(first(fp8(1, 7168, 2048)), "fp8gemm_decode");
  EXPECT_EQ(first(fp8(16, 2112, 7168)), "fp8gemm_decode");
  // Rules D and S: on the H200 at 9-16 tokens, weights of 32 Mi elements or more take F5
  // (per-tensor and block128), and per-tensor weights of 64 Mi or more fall back to the 64-row
  // tiles (rule S: the e5m2 pairs, which F5 refuses); fewer weights, 8 tokens, fast accumulation
  // or the H100: F4. Rule F8 (the pair of 8- or 16-token tiles, FP8RuleF8 below) comes before
  // them where its clusters fit; these picks are the candidates under it, which the e5m2 pairs and
  // the layers it does not fit run.
  {
    GemmProblem t{16, 8192, 8192, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
    t.out = DType::bf16, t.scale = ScaleMode::tensor;
    const auto picks = [&] {
      std::vector<RuleCandidate> c = fp8gemm_candidates(t, kH200);
      c.erase(std::remove_if(c.begin(), c.end(),
                             [](const RuleCandidate& x) { return x.rule == kRuleF8; }),
              c.end());
      return c;
    };
    const auto pick = [&] { return first(picks()); };
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    ASSERT_GE(picks().size(), 2u);
    EXPECT_EQ(picks()[1].kernel, "fp8gemm_sm90_persistent_t_m64");
    t.m = 9;
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    t.n = 28672, t.k = 4096;  // Llama 3 8B's gate_up
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    t.n = 4096, t.k = 14336;  // 56 Mi: F5's side of rule D's line, F4's side of rule S's
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    EXPECT_EQ(picks()[1].kernel, "fp8gemm_decode");
    t.k = 7168;  // 28 Mi (DeepSeek-V3's expert gate_up): below rule D's line, rule E's side
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90_n64_cs");
    EXPECT_EQ(picks()[1].kernel, "fp8gemm_decode") << "the e5m2 pairs, which F5 refuses";
    t.n = 8192, t.k = 8192, t.m = 8;
    EXPECT_EQ(pick(), "fp8gemm_decode");
    // Rule D4: per-tensor at 1-8 tokens on the H200, weights over 64 Mi: F5 (8192x8192 is 64 Mi,
    // F4's side); block128, per-row, fast accumulation or the H100: F4.
    t.n = 10240;
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    EXPECT_EQ(picks()[1].kernel, "fp8gemm_decode") << "the e5m2 pairs, which F5 refuses";
    t.m = 2, t.n = 28672, t.k = 4096;
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    t.m = 1;
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_decode");
    t.n = 4096, t.k = 14336;  // 56 Mi: F4's side at 1 token too
    EXPECT_EQ(pick(), "fp8gemm_decode");
    t.m = 9, t.n = 10240, t.k = 8192;  // past the rule: rule S's F3 on 64-row tiles
    EXPECT_NE(pick(), "fp8gemm_decode");
    t.m = 8, t.n = 28672, t.k = 4096;
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_decode");
    t.fast_accum = true;
    EXPECT_EQ(pick(), "fp8gemm_decode");
    t.fast_accum = false, t.scale = ScaleMode::block128;
    EXPECT_EQ(pick(), "fp8gemm_decode");
    t.scale = ScaleMode::row;
    EXPECT_EQ(pick(), "fp8gemm_decode");
    t.n = 8192, t.k = 8192, t.m = 16, t.scale = ScaleMode::block128;
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    t.n = 24576, t.k = 1536;  // DeepSeek-V3's q_b, 36 Mi
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    // Rule D3: per-row at 9-16 tokens takes F5 whatever the weights; at 8 tokens F4.
    t.n = 4096, t.k = 4096, t.scale = ScaleMode::row;
    EXPECT_EQ(pick(), "fp8gemm_decode_sm90");
    t.m = 8;
    EXPECT_EQ(pick(), "fp8gemm_decode");
    t.m = 16, t.n = 8192, t.k = 8192;
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_decode");
    t.scale = ScaleMode::tensor, t.fast_accum = true;
    EXPECT_EQ(pick(), "fp8gemm_decode");
    t.fast_accum = false;
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_decode");
    // Rule E: per-tensor at 9-32 tokens on the H200, weights below rule D's 32 Mi line: F5's
    // 64-row tiles with the in-cluster split (Llama 3 8B's qkv_proj and o_proj); 8 tokens or
    // block128: as before. Rule D2: per-tensor at 17-32 tokens, weights of 32 Mi or more: F5.
    struct Pick {
      int64_t m, n, k;
      ScaleMode scale;
      const char* kernel;
    };
    const auto expect_picks = [&](std::initializer_list<Pick> table) {
      for (const Pick& e : table) {
        t.m = e.m, t.n = e.n, t.k = e.k, t.scale = e.scale, t.fast_accum = false;
        EXPECT_EQ(pick(), e.kernel) << e.m << "x" << e.n << "x" << e.k;
      }
    };
    expect_picks({Pick{16, 6144, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_n64_cs"},
                  Pick{9, 4096, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_n64_cs"},
                  Pick{32, 4096, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_n64_cs"},
                  Pick{8, 4096, 4096, ScaleMode::tensor, "fp8gemm_decode"},
                  Pick{16, 4096, 4096, ScaleMode::block128, "fp8gemm_decode"},
                  Pick{32, 8192, 8192, ScaleMode::tensor, "fp8gemm_decode_sm90"},
                  Pick{17, 8192, 8192, ScaleMode::tensor, "fp8gemm_decode_sm90"}});
    t.m = 16, t.n = 4096, t.k = 4096, t.scale = ScaleMode::tensor;
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_decode") << "rule E is the H200's";
    // Rule F: per-tensor and per-row at 33-128 tokens on the H200, where the weight-sharing
    // clusters fit one wave on a shared tile of 64-192 rows (N <= 66 * 192), at 65-128 tokens on
    // 90% of the SMs or with weights below 128 Mi: F5 with the multicast weight tile. Elsewhere,
    // and block128: as before (the 64-row tiles, stream-K, _pipe).
    expect_picks(
        {Pick{49, 4096, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},
         Pick{64, 4096, 14336, ScaleMode::row, "fp8gemm_decode_sm90_wmc"},
         Pick{64, 66 * 64 + 1, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},
         Pick{64, 5120, 13824, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},
         Pick{64, 5120, 32768, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},  // 108 CTAs, 160 Mi
         Pick{56, 8192, 8192, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},
         Pick{64, 66 * 192, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},
         // Rule F40 at 33-48 tokens: the 24-token tile where rule F's clusters fit.
         Pick{33, 4096, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_wmcfit"},
         Pick{48, 4096, 14336, ScaleMode::tensor, "fp8gemm_decode_sm90_wmcfit"},
         Pick{40, 8192, 8192, ScaleMode::row, "fp8gemm_decode_sm90_wmcfit"},
         Pick{48, 66 * 192, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_wmcfit"},
         Pick{48, 66 * 192 + 1, 4096, ScaleMode::tensor, "fp8gemm_sm90_persistent_t_m64"},
         // Rule D6: per-tensor over 64 Mi weights where the clusters do not fit: F5.
         Pick{64, 27648, 5120, ScaleMode::tensor, "fp8gemm_decode_sm90"},
         Pick{48, 57344, 8192, ScaleMode::tensor, "fp8gemm_decode_sm90"},
         Pick{64, 28672, 4096, ScaleMode::row, "fp8gemm_sm90_persistent_t_m64"},
         // Rule F40: at 65-112 tokens, where rule F's clusters fit, its kernel on token tiles
         // fitted to the tokens; past 112, and where they do not fit, as before.
         Pick{65, 4096, 14336, ScaleMode::tensor, "fp8gemm_decode_sm90_wmcfit"},
         Pick{72, 10240, 8192, ScaleMode::tensor, "fp8gemm_decode_sm90_wmcfit"},
         Pick{80, 4096, 4096, ScaleMode::row, "fp8gemm_decode_sm90_wmcfit"},
         Pick{96, 8192, 8192, ScaleMode::tensor, "fp8gemm_decode_sm90_wmcfit"},
         Pick{112, 4096, 14336, ScaleMode::row, "fp8gemm_decode_sm90_wmcfit"},
         Pick{64, 4096, 14336, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},
         Pick{113, 4096, 14336, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},
         Pick{72, 28672, 4096, ScaleMode::tensor, "fp8gemm_sm90_persistent_t_pipe"},
         Pick{72, 4096, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{96, 10240, 8192, ScaleMode::tensor, "fp8gemm_decode_sm90_wmcfit"},
         Pick{128, 8192, 28672, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},       // 128 CTAs
         Pick{128, 5120, 13824, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},       // 108, 67.5 Mi
         Pick{128, 5120, 32768, ScaleMode::tensor, "fp8gemm_sm90_persistent_t_sk"},  // 160 Mi
         Pick{128, 12672, 4096, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},
         Pick{128, 12673, 4096, ScaleMode::tensor, "fp8gemm_sm90_persistent_t_pipe"},
         Pick{128, 28672, 4096, ScaleMode::tensor, "fp8gemm_sm90_persistent_t_pipe"},
         Pick{129, 4096, 4096, ScaleMode::tensor, "fp8gemm_sm90_persistent_t_pipe"},
         Pick{64, 4096, 4096, ScaleMode::row, "fp8gemm_decode_sm90_wmc"},
         Pick{128, 8192, 8192, ScaleMode::row, "fp8gemm_decode_sm90_wmc"},
         Pick{128, 57344, 8192, ScaleMode::row, "fp8gemm_sm90_persistent_t_pipe"},
         Pick{64, 4096, 4096, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{128, 4096, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         // Rule M2: block128 at 65-128 tokens on at most 20 weight tiles of 128 rows, K >= 4096:
         // F3's 64-row tiles before the stream-K split.
         Pick{128, 2112, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{65, 1536, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64"},
         Pick{96, 20 * 128, 4096, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64"},
         Pick{96, 20 * 128 + 1, 4096, ScaleMode::block128, "fp8gemm_sm90_persistent_t_sk"},
         Pick{128, 2112, 4095, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{129, 2112, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_pipe"},
         // Rule M3: block128 at 32-128 tokens where the 64-row tiles on clusters sharing A fill
         // 3/4 of the SMs and at most three waves (one token tile) or one (two, N x K <= 32 Mi).
         Pick{64, 7168, 16384, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{64, 24576, 1536, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{33, 32768, 512, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{128, 7168, 2048, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{64, 2112, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},  // 132 of 16
         Pick{64, 36864, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64"},   // 1152
         Pick{32, 4096, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},
         Pick{32, 2112, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64c2"},  // 132 of 16
         Pick{64, 1536, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64"},    // 96 of 16
         Pick{32, 36864, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64"},   // 1152
         Pick{31, 4096, 7168, ScaleMode::block128, "fp8gemm_sm90_persistent_t_m64"},    // from 32
         Pick{64, 4096, 7168, ScaleMode::tensor, "fp8gemm_decode_sm90_wmc"},  // block128 only
         Pick{128, 7168, 16384, ScaleMode::block128, "fp8gemm_sm90_persistent_t_sk"},      // 112 Mi
         Pick{128, 24576, 1536, ScaleMode::block128, "fp8gemm_sm90_persistent_t_n192"}});  // 384
    // 64x16 tiles are _m64c2's one consumer's (e4m3 x e4m3): with e5m2 B, 66 tiles of 32.
    t.m = 64, t.n = 2112, t.k = 7168, t.scale = ScaleMode::block128, t.dtype_b = DType::e5m2;
    EXPECT_EQ(pick(), "fp8gemm_sm90_persistent_t_m64");
    t.dtype_b = DType::e4m3;
    t.m = 64, t.n = 4096, t.k = 4096, t.scale = ScaleMode::tensor;
    EXPECT_EQ(picks().at(1).kernel, "fp8gemm_sm90_persistent_t_m64") << "the e5m2 pairs";
    t.fast_accum = true;
    EXPECT_NE(pick(), "fp8gemm_decode_sm90_wmc");
    t.m = 72;
    EXPECT_NE(pick(), "fp8gemm_decode_sm90_wmcfit");
    t.m = 64;
    t.fast_accum = false;
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_sm90_persistent_t_m64")
        << "rule F is the H200's";
    t.m = 128, t.n = 2112, t.k = 7168, t.scale = ScaleMode::block128;
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_sm90_persistent_t_sk")
        << "rule M2 is the H200's";
    // 33 tokens block128: rule M3's clusters (128 tiles of 64x64); on the H100, and below 32
    // tokens (not measured there), the 64-row tiles of rule M.
    t.m = 33, t.n = 8192, t.k = 8192, t.scale = ScaleMode::block128;
    EXPECT_EQ(pick(), "fp8gemm_sm90_persistent_t_m64c2");
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_sm90_persistent_t_m64")
        << "rule M3 is the H200's";
    t.m = 32, t.scale = ScaleMode::block128;
    EXPECT_EQ(pick(), "fp8gemm_sm90_persistent_t_m64c2");
    t.m = 31;
    EXPECT_EQ(pick(), "fp8gemm_sm90_persistent_t_m64");
    t.m = 32;
    t.scale = ScaleMode::tensor;
    EXPECT_EQ(first(fp8gemm_candidates(t, kH100)), "fp8gemm_sm90_persistent_t_m64");
  }
  // 17-64 tokens: the 64-row tiles (rule M), fast accumulation excepted.
  EXPECT_EQ(first(fp8(17, 2112, 7168)), "fp8gemm_sm90_persistent_t_m64");
  EXPECT_EQ(first(fp8(64, 8192, 8192)), "fp8gemm_sm90_persistent_t_m64");
  EXPECT_EQ(first(fp8(64, 7168, 2048)), "fp8gemm_sm90_persistent_t_m64");
  EXPECT_EQ(first(fp8(64, 7168, 2048, true)), "fp8gemm_sm90_persistent_t");
  EXPECT_EQ(first(fp8(65, 2112, 7168)), "fp8gemm_sm90_persistent_t_sk");
  EXPECT_EQ(first(fp8(128, 7168, 16384)), "fp8gemm_sm90_persistent_t_sk");  // 56 tiles
  EXPECT_EQ(first(fp8(128, 8192, 8192)), "fp8gemm_sm90_persistent_t_sk");   // 64 tiles
  // 68 tiles of 128 rows against 46 of 192, one wave each: the 192-row tiles fill 0.67 as much.
  EXPECT_EQ(first(fp8(128, 8704, 8192)), "fp8gemm_sm90_persistent_t_pipe");
  EXPECT_EQ(first(fp8(128, 7168, 2048)), "fp8gemm_sm90_persistent_t_pipe");  // K 2048
  EXPECT_EQ(first(fp8(129, 2112, 7168)), "fp8gemm_sm90_persistent_t_pipe");  // two rows
  // DeepSeek-V3 at 4096 tokens: 192-row tiles where N is a multiple of 192 (or nearly fills it)
  // and K is short; with K >= 4096 the 256-row tiles first where they fill the grid (rule R2).
  EXPECT_EQ(first(fp8(4096, 2112, 7168)), "fp8gemm_sm90_persistent_t_n192");  // 256s fill less
  EXPECT_EQ(first(fp8(4096, 24576, 1536)), "fp8gemm_sm90_persistent_t_n192");
  EXPECT_EQ(first(fp8(4096, 32768, 512)), "fp8gemm_sm90_persistent_t_n192");
  EXPECT_EQ(first(fp8(4096, 36864, 7168)), "fp8gemm_sm90_persistent_t_m256c2ts");
  EXPECT_EQ(first(fp8(4096, 36864, 4096)), "fp8gemm_sm90_persistent_t_m256c2ts");
  EXPECT_EQ(first(fp8(4096, 36864, 3584)), "fp8gemm_sm90_persistent_t_n192");  // K below 4096
  EXPECT_EQ(first(fp8(2048, 36864, 7168)), "fp8gemm_sm90_persistent_t_n192");  // M below 4096
  // Block128 at M >= 4096 elsewhere: the 256-row tiles on 2-CTA clusters (rule R), as long as
  // they fill the grid as well as 128x128 ones; other scalings, or fewer rows, _pipe.
  EXPECT_EQ(first(fp8(4096, 7168, 16384)), "fp8gemm_sm90_persistent_t_m256c2ts");
  EXPECT_EQ(first(fp8(4096, 4096, 7168)), "fp8gemm_sm90_persistent_t_m256c2ts");
  EXPECT_EQ(first(fp8(4096, 7168, 2048)), "fp8gemm_sm90_persistent_t_m256c2ts");
  EXPECT_EQ(first(fp8(2048, 7168, 2048)), "fp8gemm_sm90_persistent_t_pipe");  // M below 4096
  // N 384: 32 cluster tiles of 256x256 on 66 clusters (0.48) against 96 of 128x128 on 132 SMs.
  EXPECT_EQ(first(fp8(4096, 384, 7168)), "fp8gemm_sm90_persistent_t_pipe");
  {
    GemmProblem t{4096, 7168, 16384, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
    t.out = DType::bf16, t.scale = ScaleMode::tensor;
    EXPECT_EQ(fp8gemm_candidates(t, kH100).front().kernel, "fp8gemm_sm90_persistent_t_pipe");
    // Per-row: the 256-row tiles where _pipe took Llama 3's layers (rule R3), the 192-row ones
    // where they fill the grid (gate_up), _pipe below 4096 rows.
    t.scale = ScaleMode::row;
    for (const auto& [m, n, k, want] :
         {std::tuple{4096, 8192, 28672, "fp8gemm_sm90_persistent_t_m256c2"},
          {4096, 8192, 8192, "fp8gemm_sm90_persistent_t_m256c2"},
          {4096, 10240, 8192, "fp8gemm_sm90_persistent_t_m256c2"},
          {4096, 4096, 14336, "fp8gemm_sm90_persistent_t_m256c2"},
          {4096, 4096, 4096, "fp8gemm_sm90_persistent_t_m256c2"},
          {4096, 57344, 8192, "fp8gemm_sm90_persistent_t_n192"},
          {2048, 4096, 4096, "fp8gemm_sm90_persistent_t_pipe"}}) {
      t.m = m, t.n = n, t.k = k;
      EXPECT_EQ(fp8gemm_candidates(t, kH100).front().kernel, want) << t.shape_string();
    }
  }
  // Fast accumulation has no promotion: F3 itself.
  EXPECT_EQ(first(fp8(4096, 2112, 7168, true)), "fp8gemm_sm90_persistent_t");
  EXPECT_EQ(first(fp8(4096, 7168, 2048, true)), "fp8gemm_sm90_persistent_t");
  const auto all = fp8(4096, 7168, 16384);
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(all[all.size() - 2].kernel, "fp8gemm_sm90_persistent");
  EXPECT_EQ(all.back().kernel, "fp8gemm_sm90");
}

// fp8gemm with an e5m2 operand: the same candidates; F2 takes e4m3 x e4m3 only, rung F3 and its
// variants every pair but e5m2 x e5m2, so the first that takes the pair is the one the e4m3 rules
// pick: F4 at 1-16 tokens, _m64 at 17-64, the stream-K F3 at 65-128 (rule V at N 7168, K 16384),
// `_pipe` above (rule R's 256-row tiles take e4m3 x e4m3 only);
// e5m2 x e5m2 no candidate takes. Whether they then run asks the driver about their images (no
// GPU here: "cannot query the kernel image"), which the GPU suites cover.
TEST(DispatchRules, Fp8WithAnE5m2OperandPicksTheRungsThatTakeThePair) {
  const auto& reg = KernelRegistry::instance();
  const std::string f2 = "e4m3 x e4m3 only (rung F2)";
  for (const auto& [a, b] : {std::pair{DType::e4m3, DType::e5m2}, {DType::e5m2, DType::e4m3}})
    for (const int64_t m : {1, 16, 17, 64, 129, 4096}) {
      GemmProblem p{m, 7168, 16384, Layout::tn, a, Accum::f32, 1.0, 0.0};
      p.dtype_b = b, p.out = DType::bf16, p.scale = ScaleMode::block128;
      SCOPED_TRACE(p.shape_string() + " " + p.type_string());
      const auto c = fp8gemm_candidates(p, kH100);
      std::string first_taker;
      for (const RuleCandidate& rc : c) {
        const KernelInfo* k = reg.find(rc.kernel);
        ASSERT_NE(k, nullptr) << rc.kernel;
        const std::string why = why_unsupported(*k, p, kH100);
        if (rc.kernel == "fp8gemm_sm90_persistent" || rc.kernel == "fp8gemm_sm90_persistent_c2") {
          // A of e5m2 F2 does not declare (the registry refuses it first); its supports() says
          // the same of either operand.
          EXPECT_EQ(why, a == DType::e4m3 ? f2 : "dtype e5m2 not implemented by this kernel")
              << rc.kernel;
          EXPECT_EQ(k->supports(p, kH100), f2) << rc.kernel;
          continue;
        }
        if (rc.kernel == "fp8gemm_sm90_persistent_t_m256c2ts") {
          // Rule R's 256-row tiles at M 4096 take e4m3 x e4m3 only: _pipe, next, takes the pair.
          EXPECT_FALSE(why.empty()) << rc.kernel;
          continue;
        }
        EXPECT_EQ(why.find("e4m3 x e4m3"), std::string::npos) << rc.kernel << ": " << why;
        EXPECT_EQ(why.find("e5m2"), std::string::npos) << rc.kernel << ": " << why;
        if (first_taker.empty()) first_taker = rc.kernel;
      }
      EXPECT_EQ(first_taker, m <= 16    ? "fp8gemm_decode"
                             : m <= 64  ? "fp8gemm_sm90_persistent_t_m64"
                             : m <= 128 ? "fp8gemm_sm90_persistent_t_sk"
                                        : "fp8gemm_sm90_persistent_t_pipe");
      EXPECT_EQ(c.back().kernel, "fp8gemm_sm90") << "every chain ends in F1";
    }
  GemmProblem both{64, 7168, 2048, Layout::tn, DType::e5m2, Accum::f32, 1.0, 0.0};
  both.out = DType::bf16, both.scale = ScaleMode::tensor;  // B takes A's type: e5m2 x e5m2
  for (const char* name : {"fp8gemm", "fp8gemm_decode", "fp8gemm_sm90"}) {
    const std::string why = why_unsupported(*reg.find(name), both, kH100);
    EXPECT_NE(why.find("e5m2 x e5m2"), std::string::npos) << name << ": " << why;
  }
}
