#include <gtest/gtest.h>

#include <stdexcept>

#include "stats/mann_whitney.hpp"
#include "stats/stats.hpp"

using namespace gemmbench;

TEST(Stats, PercentileInterpolatesLikeNumpy) {
  const std::vector<double> v = {4, 1, 3, 2};  // sorted 1 2 3 4
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4);
  EXPECT_DOUBLE_EQ(percentile(v, 10), 1.3);
  EXPECT_DOUBLE_EQ(percentile(v, 90), 3.7);
}

TEST(Stats, SummaryOfKnownSamples) {
  const TimingStats t = summarize({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0});
  EXPECT_EQ(t.samples, 8);
  EXPECT_DOUBLE_EQ(t.mean_ms, 5.0);
  EXPECT_DOUBLE_EQ(t.median_ms, 4.5);
  EXPECT_DOUBLE_EQ(t.min_ms, 2.0);
  EXPECT_NEAR(t.stdev_ms, 2.138089935, 1e-9);  // sample stdev (n - 1)
  EXPECT_LE(t.p10_ms, t.median_ms);
  EXPECT_GE(t.p90_ms, t.median_ms);
}

TEST(Stats, SingleSampleHasZeroSpread) {
  const TimingStats t = summarize({3.25});
  EXPECT_EQ(t.samples, 1);
  EXPECT_DOUBLE_EQ(t.median_ms, 3.25);
  EXPECT_DOUBLE_EQ(t.p10_ms, 3.25);
  EXPECT_DOUBLE_EQ(t.stdev_ms, 0.0);
}

TEST(Stats, MedianIsRobustToOneOutlier) {
  const TimingStats t = summarize({1.0, 1.0, 1.0, 1.0, 100.0});
  EXPECT_DOUBLE_EQ(t.median_ms, 1.0);
  EXPECT_GT(t.mean_ms, 10.0);
}

TEST(Stats, EmptyThrows) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(percentile({}, 50), std::invalid_argument);
  EXPECT_THROW(percentile({1.0}, 101), std::invalid_argument);
}

// scipy.stats.mannwhitneyu's documented example (males vs females, method="asymptotic"):
// statistic 17.0, pvalue 0.11134688653314041.
TEST(MannWhitney, MatchesScipyAsymptoticExample) {
  const MannWhitneyResult r = mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_DOUBLE_EQ(r.u, 17.0);
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);
  EXPECT_NEAR(r.z, 1.5921683328090657, 1e-12);
  EXPECT_NEAR(r.effect, 17.0 / 20.0, 1e-15);
  // The test is symmetric: swapping the samples gives U2 = n1*n2 - U1 and the same p.
  const MannWhitneyResult s = mann_whitney_u({20, 11, 17, 12}, {19, 22, 16, 29, 24});
  EXPECT_DOUBLE_EQ(s.u, 3.0);
  EXPECT_NEAR(s.p_value, r.p_value, 1e-15);
}

// With ties: U counted pair by pair (x > y: 1, x == y: 1/2) and the tie-corrected variance
// n1*n2/12 * ((n+1) - sum(t^3-t)/(n(n-1))), computed independently of the rank sums:
// U = 9, z = 1.6777906842108046, p = 0.09338796860680042.
TEST(MannWhitney, TieCorrection) {
  const MannWhitneyResult r = mann_whitney_u({1, 2, 2, 3, 3, 5}, {2, 3, 3, 4, 6, 6, 7});
  EXPECT_DOUBLE_EQ(r.u, 9.0);
  EXPECT_NEAR(r.z, 1.6777906842108046, 1e-12);
  EXPECT_NEAR(r.p_value, 0.09338796860680042, 1e-12);
  EXPECT_LT(r.effect, 0.5);  // the first sample is the smaller one
}

TEST(MannWhitney, SeparatedSamplesAreSignificantAndTiesAreNot) {
  std::vector<double> a, b;
  for (int i = 0; i < 50; ++i) a.push_back(1.0 + 0.001 * i), b.push_back(2.0 + 0.001 * i);
  const MannWhitneyResult r = mann_whitney_u(b, a);
  EXPECT_DOUBLE_EQ(r.u, 2500.0);
  EXPECT_DOUBLE_EQ(r.effect, 1.0);
  EXPECT_LT(r.p_value, 1e-15);
  const MannWhitneyResult same = mann_whitney_u(a, a);
  EXPECT_NEAR(same.p_value, 1.0, 1e-12);
  const MannWhitneyResult tied = mann_whitney_u({3, 3, 3}, {3, 3});
  EXPECT_DOUBLE_EQ(tied.p_value, 1.0);
  EXPECT_DOUBLE_EQ(tied.effect, 0.5);
  EXPECT_THROW(mann_whitney_u({}, {1.0}), std::invalid_argument);
}
