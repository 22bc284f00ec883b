// The regimes' arithmetic (stats/regime.hpp) on synthetic readings: when a loop is at steady
// state, the block order, and what a burst window keeps of a falling clock.
#include <gtest/gtest.h>

#include <cmath>

#include "stats/regime.hpp"

using namespace gemmbench;

namespace {

// Feeds `medians` one window apart (rule.window_s) and returns where the detector stopped.
std::pair<std::optional<SteadyEnd>, size_t> feed(const SteadyRule& rule,
                                                 const std::vector<double>& medians) {
  SteadyDetector d(rule);
  for (size_t i = 0; i < medians.size(); ++i) {
    d.add(medians[i], double(i + 1) * rule.window_s);
    if (auto end = d.done()) return {end, i + 1};
  }
  return {std::nullopt, medians.size()};
}

}  // namespace

TEST(SteadyState, NeverBeforeThePowerAveragingWindowEvenWhenFlat) {
  const std::vector<double> flat(40, 1.0);
  const auto [end, n] = feed(kPreconditionRule, flat);
  ASSERT_TRUE(end);
  EXPECT_EQ(*end, SteadyEnd::agreed);
  EXPECT_EQ(n, 10u) << "min 1.0 s of 0.1 s windows";
}

TEST(SteadyState, AFallingClockKeepsItGoingUntilTheTimesAgree) {
  // A board heating to its cap: each window 2% slower for 2 s, then flat.
  std::vector<double> m;
  double t = 1.0;
  for (int i = 0; i < 20; ++i) m.push_back(t *= 1.02);
  for (int i = 0; i < 10; ++i) m.push_back(t);
  const auto [end, n] = feed(kPreconditionRule, m);
  ASSERT_TRUE(end);
  EXPECT_EQ(*end, SteadyEnd::agreed);
  EXPECT_EQ(n, 22u) << "the first three flat windows: 20 falling, then 2 more flat";
}

TEST(SteadyState, SlowDriftWithinToleranceStillCountsButFasterDoesNot) {
  // 0.3% per window: three windows span 0.6% < 1%.
  std::vector<double> slow;
  double t = 1.0;
  for (int i = 0; i < 12; ++i) slow.push_back(t *= 1.003);
  EXPECT_EQ(feed(kPreconditionRule, slow).second, 10u);
  // 0.6% per window: 1.2% over three windows, never agrees: the bound ends it.
  std::vector<double> fast;
  t = 1.0;
  for (int i = 0; i < 100; ++i) fast.push_back(t *= 1.006);
  const auto [end, n] = feed(kPreconditionRule, fast);
  ASSERT_TRUE(end);
  EXPECT_EQ(*end, SteadyEnd::bound);
  EXPECT_EQ(n, 80u) << "max 8 s of 0.1 s windows";
}

TEST(SteadyState, NoisyButStationaryAgreesAndSpreadIsReported) {
  SteadyDetector d(kSettleRule);
  EXPECT_FALSE(d.spread()) << "fewer windows than the rule compares";
  d.add(1.000, 0.05);
  d.add(1.004, 0.10);
  d.add(0.998, 0.15);
  ASSERT_TRUE(d.spread());
  EXPECT_NEAR(*d.spread(), 0.006 / 0.998, 1e-12);
  EXPECT_FALSE(d.done()) << "0.6% > the settle rule's 0.5%";
  d.add(0.999, 0.20);
  EXPECT_FALSE(d.done()) << "1.004, 0.998, 0.999: still 0.6% apart";
  d.add(1.000, 0.25);
  ASSERT_TRUE(d.done()) << "0.998, 0.999, 1.000";
  EXPECT_EQ(*d.done(), SteadyEnd::agreed);
}

TEST(SteadyState, ZeroTimesNeverAgree) {
  SteadyDetector d(kSettleRule);
  for (int i = 1; i <= 40; ++i) d.add(0.0, 0.05 * i);
  EXPECT_FALSE(d.spread());
  ASSERT_TRUE(d.done());
  EXPECT_EQ(*d.done(), SteadyEnd::bound);
}

TEST(Blocks, RoundsArePalindromes) {
  EXPECT_EQ(round_schedule(1), (std::vector<size_t>{0, 0}));
  EXPECT_EQ(round_schedule(2), (std::vector<size_t>{0, 1, 1, 0}));
  EXPECT_EQ(round_schedule(3), (std::vector<size_t>{0, 1, 2, 2, 1, 0}));
}

TEST(Blocks, TimedPartFollowsTheRowsBudget) {
  EXPECT_DOUBLE_EQ(block_timed_seconds(0.25, 0.5), 0.25);
  EXPECT_DOUBLE_EQ(block_timed_seconds(0.25, 0.03), 0.015) << "a decode config's 0.03 s";
  EXPECT_DOUBLE_EQ(block_timed_seconds(4.0, 10.0), 4.0);
  EXPECT_DOUBLE_EQ(block_timed_seconds(0.25, 0.0), 0.0) << "count alone decides";
  EXPECT_DOUBLE_EQ(block_timed_seconds(0.25, 0.5, true), kCapBlockS) << "at the power cap";
  EXPECT_DOUBLE_EQ(block_timed_seconds(4.0, 10.0, true), 4.0);
  EXPECT_DOUBLE_EQ(block_timed_seconds(0.25, 0.03, true), kCapBlockS)
      << "a decode config's budget does not shorten a block at the cap";
  EXPECT_DOUBLE_EQ(default_settle_seconds(0.25), 0.15);
  EXPECT_DOUBLE_EQ(default_settle_seconds(4.0), 1.0);
  EXPECT_DOUBLE_EQ(default_settle_seconds(10.0), 1.0);
}

TEST(Blocks, SpreadOfBlockMedians) {
  EXPECT_FALSE(block_spread_pct({1.0}));
  EXPECT_NEAR(*block_spread_pct({1.0, 1.02, 1.01}), 2.0, 1e-9);
}

TEST(Burst, KeepsTheBatchesBeforeTheClockFell) {
  const BurstHoldRule rule;
  // Reference 1980 MHz after the ramp; 97% of it is 1920.6.
  EXPECT_EQ(burst_batches_kept({1980, 1975, 1930, 1900, 1980}, 1980, 1980.0, rule), 3u)
      << "1900 < 0.97 * 1980: that batch and all after it go, even if the clock came back";
  EXPECT_EQ(burst_batches_kept({}, 1980, 1980.0, rule), 0u);
  EXPECT_EQ(burst_batches_kept({1755}, 1755, 1980.0, rule), 0u)
      << "a window that never reached 90% of the maximum keeps nothing";
  EXPECT_EQ(burst_batches_kept({1755, 1750}, 1755, std::nullopt, rule), 2u)
      << "no maximum known: the reference alone";
  EXPECT_EQ(burst_batches_kept({std::nan("")}, 1980, 1980.0, rule), 0u) << "a broken probe";
}

TEST(Burst, RampEndsAtTheFloor) {
  const BurstHoldRule rule;
  EXPECT_FALSE(burst_ramped(345, 1980.0, rule)) << "an idle clock";
  EXPECT_TRUE(burst_ramped(1785, 1980.0, rule));
  EXPECT_TRUE(burst_ramped(345, std::nullopt, rule)) << "unknown maximum: the ramp time decides";
}

TEST(Burst, NotHeldReasonNamesWhatWasSeen) {
  EXPECT_EQ(burst_not_held_reason(4, 10, 16, 1980.0, 1512.0),
            "burst not held: kept 4 of the 10 samples asked, 16 discarded; SM clock 1980 MHz "
            "after the ramp, down to 1512 MHz");
  EXPECT_EQ(burst_not_held_reason(0, 10, 8, std::nullopt, std::nullopt),
            "burst not held: kept 0 of the 10 samples asked, 8 discarded");
}
