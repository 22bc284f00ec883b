#include <gtest/gtest.h>

#include <stdexcept>

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
