// The GEMVs' grid choices (kernels/common/gemv_grid.hpp) over many shapes and SM counts: the
// CUDA-core GEMV's warps per row (the fewest that reach the aim), the tensor-core GEMV's one-wave
// choice at 9-16 tokens (the most that keep one CTA per SM), and the CTA counts they launch.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "common/gemv_grid.hpp"

namespace gemmbench::gemv {
namespace {

bool power_of_two(int v) {
  return v > 0 && (v & (v - 1)) == 0;
}

TEST(GemvGrid, WarpsPerRowIsTheFewestThatReachTheAim) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 20000; ++trial) {
    const int64_t rows = 1 + int64_t(rng() % 100000), strides = 1 + int64_t(rng() % 2000);
    const int sms = 1 + int(rng() % 200), max_wpr = 1 << (rng() % 5);
    SCOPED_TRACE("rows=" + std::to_string(rows) + " strides=" + std::to_string(strides) +
                 " sms=" + std::to_string(sms) + " max=" + std::to_string(max_wpr));
    const int wpr = warps_per_row(rows, strides, sms, max_wpr);
    ASSERT_TRUE(power_of_two(wpr));
    ASSERT_LE(wpr, max_wpr);
    const int64_t want = int64_t(sms) * kWarpsPerSm;
    // Doubling stopped for a reason: the cap, the aim reached, or no strides left to share.
    EXPECT_TRUE(wpr == max_wpr || rows * wpr >= want || 2 * wpr > strides);
    // And it was allowed to reach wpr: the half was short of the aim, with strides to spare.
    if (wpr > 1) {
      EXPECT_LT(rows * (wpr / 2), want);
      EXPECT_LE(wpr, strides);
    }
  }
}

// The resident-sized choice: against every other allowed power of two, its cost (waves times the
// busiest warp's strides) is no higher, and strictly lower than every smaller choice's.
TEST(GemvGrid, ResidentWarpsPerRowWalksTheFewestStrides) {
  std::mt19937_64 rng(23);
  auto cost = [](int64_t groups, int64_t strides, int64_t resident, int warps, int wpr) {
    const int64_t ctas = (groups * wpr + warps - 1) / warps;
    return (ctas + resident - 1) / resident * ((strides + wpr - 1) / wpr);
  };
  for (int trial = 0; trial < 20000; ++trial) {
    const int64_t groups = 1 + int64_t(rng() % 5000), strides = 1 + int64_t(rng() % 200);
    const int64_t resident = 1 + int64_t(rng() % 400);
    const int warps = 16;
    SCOPED_TRACE("groups=" + std::to_string(groups) + " strides=" + std::to_string(strides) +
                 " resident=" + std::to_string(resident));
    const int wpr = resident_warps_per_row(groups, strides, resident, warps);
    ASSERT_TRUE(power_of_two(wpr));
    ASSERT_LE(wpr, warps);
    if (wpr > 1) ASSERT_LE(2 * wpr, strides) << "every warp has at least two strides";
    const int64_t c = cost(groups, strides, resident, warps, wpr);
    for (int other = 1; other <= warps && (other == 1 || 2 * other <= strides); other *= 2) {
      EXPECT_LE(c, cost(groups, strides, resident, warps, other)) << "wpr " << other;
      if (other < wpr) EXPECT_LT(c, cost(groups, strides, resident, warps, other)) << other;
    }
  }
  // DeepSeek-V3's o_proj at one token on an H100, two 16-warp CTAs per SM: 448 row groups of 16,
  // 128 k-blocks; one wave of 264 CTAs at 8 warps per group (224 CTAs), 16 k-blocks each.
  EXPECT_EQ(resident_warps_per_row(448, 128, 264, 16), 8);
}

TEST(GemvGrid, OneWaveIsTheMostThatKeepOneCtaPerSm) {
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 20000; ++trial) {
    const int64_t groups = 1 + int64_t(rng() % 5000), strides = 1 + int64_t(rng() % 1000);
    const int sms = 1 + int(rng() % 200), cta_warps = 1 << (rng() % 5);
    SCOPED_TRACE("groups=" + std::to_string(groups) + " strides=" + std::to_string(strides) +
                 " sms=" + std::to_string(sms) + " cta_warps=" + std::to_string(cta_warps));
    const int wpr = one_wave_warps_per_row(groups, strides, sms, cta_warps);
    ASSERT_TRUE(power_of_two(wpr));
    ASSERT_LE(wpr, cta_warps);
    if (wpr > 1) {
      EXPECT_LE(gemv_ctas(groups, wpr, cta_warps), sms) << "more than one wave";
      EXPECT_LE(2 * wpr, strides) << "a warp without strides";
    }
    if (wpr < cta_warps)  // twice as many would break one of the two
      EXPECT_TRUE(gemv_ctas(groups, 2 * wpr, cta_warps) > sms || 4 * wpr > strides);
  }
}

TEST(GemvGrid, CtasHoldEveryRowOnce) {
  for (int cta_warps : {8, 16})
    for (int wpr = 1; wpr <= cta_warps; wpr *= 2)
      for (int64_t groups : {1, 2, 7, 66, 128, 191, 192, 1792}) {
        const int64_t ctas = gemv_ctas(groups, wpr, cta_warps), per_cta = cta_warps / wpr;
        EXPECT_GE(ctas * per_cta, groups);
        EXPECT_LT((ctas - 1) * per_cta, groups);
      }
}

// The 16-token decode layers on the H100's 132 SMs (32-row groups, 32-wide K strides): the
// layers rule L takes get 66 and 128 CTAs of 16 warps per group; 6144 rows, which ran 1.45
// waves under the 48-warp aim, now one wave of 96.
TEST(GemvGrid, SixteenTokenLayersOnTheH100) {
  auto ctas = [](int64_t n, int64_t k) {
    const int64_t groups = (n + 31) / 32, strides = (k + 31) / 32;
    const int wpr = one_wave_warps_per_row(groups, strides, 132, 16);
    return std::to_string(wpr) + "/" + std::to_string(gemv_ctas(groups, wpr, 16));
  };
  EXPECT_EQ(ctas(2112, 7168), "16/66");
  EXPECT_EQ(ctas(4096, 4096), "16/128");
  EXPECT_EQ(ctas(4096, 7168), "16/128");
  EXPECT_EQ(ctas(6144, 4096), "8/96");
  EXPECT_EQ(ctas(32768, 512), "2/128");
  EXPECT_EQ(ctas(57344, 8192), "1/112");
  // The aim of 48 warps per SM at 6144 rows: 16 warps per group, 192 CTAs.
  const int aim = warps_per_row(192, 128, 132, 16);
  EXPECT_EQ(aim, 16);
  EXPECT_EQ(gemv_ctas(192, aim, 16), 192);
}

}  // namespace
}  // namespace gemmbench::gemv
