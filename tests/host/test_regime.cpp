// The regimes' arithmetic (stats/regime.hpp) on synthetic readings: when a loop is at steady
// state, the block order, and what a burst window keeps of a falling clock. Steady state is also
// replayed from window traces under tests/data/steady_windows/ (README.md there has the format).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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

// ---- Window traces (tests/data/steady_windows/*.json) ----
const std::filesystem::path kTraceDir =
    std::filesystem::path(GEMMBENCH_SOURCE_DIR) / "tests/data/steady_windows";

struct Trace {
  std::string name;  // the file's stem
  std::string source, rule;
  std::vector<std::pair<double, double>> windows;  // (elapsed_s, window_median_ms)
  nlohmann::json expect;
};

Trace load_trace_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  Trace t;
  t.name = path.stem().string();
  t.source = j.at("source").get<std::string>();
  t.rule = j.at("rule").get<std::string>();
  for (const auto& w : j.at("windows")) t.windows.emplace_back(w.at(0), w.at(1));
  t.expect = j.at("expect");
  return t;
}

// A trace of the folder, by name.
Trace load_trace(const std::string& name) {
  return load_trace_file(kTraceDir / (name + ".json"));
}

SteadyRule rule_of(const Trace& t) {
  if (t.rule == "precondition") return kPreconditionRule;
  if (t.rule == "settle") return kSettleRule;
  ADD_FAILURE() << t.name << ": unknown rule '" << t.rule << "'";
  return kPreconditionRule;
}

struct Replay {
  std::optional<SteadyEnd> end;  // absent: the trace ran out first
  double at_s = 0;               // elapsed_s of the window that ended it
  std::optional<SteadyTest> by;
  std::optional<double> spread, window_spread;
  std::optional<SpanVerdict> spans;
};

// Feeds the trace's windows in order and stops where the runner would.
Replay replay(const SteadyRule& rule, const Trace& t) {
  SteadyDetector d(rule);
  Replay r;
  for (const auto& [elapsed_s, ms] : t.windows) {
    d.add(ms, elapsed_s);
    r.at_s = elapsed_s;
    if ((r.end = d.done())) break;
  }
  r.by = d.decided_by();
  r.spread = d.spread();
  r.window_spread = d.window_spread();
  r.spans = d.spans();
  return r;
}

// The rule without its span test: what ended issue 52's FP8 group not_held.
SteadyRule short_windows_only(SteadyRule r) {
  r.span_s = 0;
  return r;
}
// Span means compared by their spread alone, with no bound on their net change.
SteadyRule spans_without_trend(SteadyRule r) {
  r.span_trend = 1e9;
  return r;
}

const char* kCapSwings[] = {"synthetic_cap_swing_1s", "synthetic_cap_swing_0p7s",
                            "synthetic_cap_swing_1p5s"};

}  // namespace

TEST(SteadyState, NeverBeforeThePowerAveragingWindowEvenWhenFlat) {
  const std::vector<double> flat(40, 1.0);
  const auto [end, n] = feed(kPreconditionRule, flat);
  ASSERT_TRUE(end);
  EXPECT_EQ(*end, SteadyEnd::agreed);
  EXPECT_EQ(n, 10u) << "min 1.0 s of 0.1 s windows";
}

TEST(SteadyState, AGroupRightAfterAnotherReSettlesAndOthersPreconditionInFull) {
  EXPECT_EQ(&precondition_rule(std::nullopt), &kPreconditionRule) << "the run's first group";
  EXPECT_EQ(&precondition_rule(0.3), &kResettleRule);
  EXPECT_EQ(&precondition_rule(kCarryGapS), &kResettleRule);
  EXPECT_EQ(&precondition_rule(kCarryGapS + 0.01), &kPreconditionRule) << "after a pause";
  EXPECT_EQ(&precondition_rule(-1.0), &kPreconditionRule) << "a clock that went backwards";
  // The re-settle is shorter only in its minimum: the same tests, the same bound.
  EXPECT_LT(kResettleRule.min_s, kPreconditionRule.min_s);
  EXPECT_EQ(kResettleRule.max_s, kPreconditionRule.max_s);
  EXPECT_EQ(kResettleRule.tolerance, kPreconditionRule.tolerance);
  EXPECT_EQ(kResettleRule.span_s, kPreconditionRule.span_s);
  const std::vector<double> flat(40, 1.0);
  const auto [end, n] = feed(kResettleRule, flat);
  ASSERT_TRUE(end);
  EXPECT_EQ(*end, SteadyEnd::agreed);
  EXPECT_EQ(n, 5u) << "min 0.5 s of 0.1 s windows";
  // A board still moving after the previous group is not steady any sooner for it.
  std::vector<double> m;
  double t = 1.0;
  for (int i = 0; i < 20; ++i) m.push_back(t *= 1.02);
  for (int i = 0; i < 10; ++i) m.push_back(t);
  EXPECT_EQ(feed(kResettleRule, m).second, 22u);
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

TEST(SteadyState, SpanMeansAreWeightedByWindowDuration) {
  SteadyRule rule = kPreconditionRule;
  rule.span_s = 1.0;
  rule.spans = 2;
  SteadyDetector d(rule);
  // Span 1 (0-1 s): 0.9 s at 1.00 ms, 0.1 s at 1.10 ms; mean 1.01. Span 2 (1-2 s): one window
  // of 1 s at 1.00 ms. An unweighted mean of span 1's two windows would say 1.05.
  d.add(1.00, 0.9);
  d.add(1.10, 1.0);
  EXPECT_FALSE(d.spans()) << "one span so far";
  d.add(1.00, 2.0);
  ASSERT_TRUE(d.spans());
  EXPECT_DOUBLE_EQ(d.spans()->span_s, 1.0);
  EXPECT_NEAR(d.spans()->spread, 0.01, 1e-12);
  EXPECT_NEAR(d.spans()->trend, -0.01, 1e-12) << "the newest span is faster: times fell";
  EXPECT_FALSE(d.spans()->steady) << "net change 1% > the 0.5% trend bound";
}

TEST(SteadyState, TrendIsTheNetChangeNotTheSpread) {
  // Three span means within 1%: 1.000, 1.008, 1.004 (a swing's residue) holds; 1.000, 1.004,
  // 1.008 (a climb) does not, though its spread is the same.
  const auto verdict = [](std::vector<double> means) {
    SteadyDetector d(kPreconditionRule);
    double t = 0;
    for (double m : means)
      for (int i = 0; i < 10; ++i) d.add(m, t += 0.1);
    return *d.spans();
  };
  const SpanVerdict swing = verdict({1.000, 1.008, 1.004});
  EXPECT_NEAR(swing.spread, 0.008, 1e-9);
  EXPECT_NEAR(swing.trend, 0.004, 1e-9);
  EXPECT_TRUE(swing.steady);
  const SpanVerdict climb = verdict({1.000, 1.004, 1.008});
  EXPECT_NEAR(climb.spread, 0.008, 1e-9);
  EXPECT_NEAR(climb.trend, 0.008, 1e-9);
  EXPECT_FALSE(climb.steady);
}

TEST(SteadyState, SettleRuleHasNoSpanTest) {
  SteadyDetector d(kSettleRule);
  for (int i = 1; i <= 60; ++i) d.add(1.0 + 0.03 * std::sin(i * 0.5), 0.05 * i);
  EXPECT_FALSE(d.spans());
  ASSERT_TRUE(d.done());
  EXPECT_EQ(*d.done(), SteadyEnd::bound);
}

// (a) A board oscillating at its power cap: steady by the long spans well before the 8 s bound,
// where the short windows alone (the rule of issue 52) run into the bound.
TEST(SteadyReplay, CapSwingIsSteadyBySpansWhereShortWindowsNeverAgree) {
  for (const char* name : kCapSwings) {
    SCOPED_TRACE(name);
    const Trace t = load_trace(name);
    const Replay r = replay(kPreconditionRule, t);
    ASSERT_TRUE(r.end);
    EXPECT_EQ(*r.end, SteadyEnd::agreed);
    EXPECT_EQ(r.by, SteadyTest::spans);
    EXPECT_LE(r.at_s, 7.0);
    ASSERT_TRUE(r.spans && r.spread && r.window_spread);
    EXPECT_DOUBLE_EQ(*r.spread, r.spans->spread) << "spread() is the deciding test's";
    EXPECT_LE(*r.spread, kPreconditionRule.tolerance);
    EXPECT_GT(*r.window_spread, kPreconditionRule.tolerance) << "the windows see the swing";

    const Replay naive = replay(short_windows_only(kPreconditionRule), t);
    ASSERT_TRUE(naive.end);
    EXPECT_EQ(*naive.end, SteadyEnd::bound) << "short windows alone: not_held";
    EXPECT_GE(naive.at_s, kPreconditionRule.max_s);
  }
}

// A recorded one (H200 at its 700 W cap, cuBLAS f16 with f32 accumulation at 5120x4096x4096): 0.1 s
// window medians swinging over 17% of the fastest, the spans' means within 0.9%: steady by
// spans where the run found it so, and the short windows alone had not agreed by then.
TEST(SteadyReplay, RecordedCapSwingOnH200IsSteadyBySpans) {
  const Trace t = load_trace("h200_cap_cublas_f16_f32acc_5120x4096x4096");
  EXPECT_EQ(t.source, "recorded");
  const Replay r = replay(kPreconditionRule, t);
  ASSERT_TRUE(r.end);
  EXPECT_EQ(*r.end, SteadyEnd::agreed);
  EXPECT_EQ(r.by, SteadyTest::spans);
  EXPECT_DOUBLE_EQ(r.at_s, t.windows.back().first) << "where the run ended it";
  ASSERT_TRUE(r.window_spread);
  EXPECT_GT(*r.window_spread, kPreconditionRule.tolerance) << "the last windows still disagree";
  const Replay naive = replay(short_windows_only(kPreconditionRule), t);
  EXPECT_FALSE(naive.end) << "short windows alone had not agreed when the spans did";
}

TEST(SteadyReplay, ASwingSlowerThanASpanIsJudgedOverLongerSpans) {
  const Replay r = replay(kPreconditionRule, load_trace("synthetic_cap_swing_1p5s"));
  ASSERT_TRUE(r.spans);
  EXPECT_GT(r.spans->span_s, kPreconditionRule.span_s)
      << "1 s spans hold a 1.5 s swing's residue; a longer span averages it";
  ASSERT_TRUE(r.end);
  EXPECT_EQ(*r.end, SteadyEnd::agreed);
}

// (b) A board still settling is not steady until the drift has flattened.
TEST(SteadyReplay, SettlingBoardNotSteadyUntilTheDriftFlattens) {
  const Trace exp = load_trace("synthetic_exp_settle_swing");
  const Replay r = replay(kPreconditionRule, exp);
  ASSERT_TRUE(r.end);
  EXPECT_EQ(*r.end, SteadyEnd::agreed);
  EXPECT_GE(r.at_s, 3.0) << "5% e^-t: above 0.25%/s until 3.0 s";

  const Replay climb = replay(kPreconditionRule, load_trace("synthetic_linear_climb_swing"));
  ASSERT_TRUE(climb.end);
  EXPECT_EQ(*climb.end, SteadyEnd::bound) << "1%/s all along";
  ASSERT_TRUE(climb.spans);
  EXPECT_GT(climb.spans->trend, 0.01) << "the spans' means climb";
  const Replay naive =
      replay(spans_without_trend(kPreconditionRule), load_trace("synthetic_linear_climb_swing"));
  ASSERT_TRUE(naive.end);
  EXPECT_EQ(*naive.end, SteadyEnd::agreed)
      << "a swing's residue in the span means can hide a 1%/s climb from their spread; the "
         "trend bound holds it";
}

// (d) A swing whose mean still climbs (0.4%/s until 5 s): its span means agree within 1%, so only
// the bound on their net change keeps it going.
TEST(SteadyReplay, DriftingMeanUnderASwingIsNotAcceptedEarly) {
  const Trace t = load_trace("synthetic_cap_swing_drifting_mean");
  const Replay r = replay(kPreconditionRule, t);
  ASSERT_TRUE(r.end);
  EXPECT_EQ(*r.end, SteadyEnd::agreed);
  EXPECT_EQ(r.by, SteadyTest::spans);
  EXPECT_GE(r.at_s, 5.0) << "not before the climb stopped";

  const Replay naive = replay(spans_without_trend(kPreconditionRule), t);
  ASSERT_TRUE(naive.end);
  EXPECT_EQ(*naive.end, SteadyEnd::agreed);
  EXPECT_LT(naive.at_s, 5.0) << "the spread of span means alone accepts the climb";
}

// (c) A flat quiet board: steady at the minimum time by the short windows, as before.
TEST(SteadyReplay, QuietFlatBoardIsSteadyAtTheMinimumTime) {
  const Replay r = replay(kPreconditionRule, load_trace("synthetic_quiet_flat"));
  ASSERT_TRUE(r.end);
  EXPECT_EQ(*r.end, SteadyEnd::agreed);
  EXPECT_EQ(r.by, SteadyTest::windows);
  EXPECT_GE(r.at_s, kPreconditionRule.min_s);
  EXPECT_LT(r.at_s, kPreconditionRule.min_s + 0.15) << "the first window past 1 s";
  EXPECT_FALSE(r.spans) << "no 3 s of history yet";
  EXPECT_EQ(r.spread, r.window_spread);
}

// Every trace in the folder, recorded ones included, meets the expectation its file states.
TEST(SteadyReplay, EveryTraceMeetsItsExpectation) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kTraceDir)) {
    if (e.path().extension() != ".json") continue;
    ++n;
    const Trace t = load_trace_file(e.path());
    SCOPED_TRACE(t.name);
    ASSERT_FALSE(t.windows.empty());
    EXPECT_TRUE(t.source == "synthetic" || t.source == "recorded") << t.source;
    EXPECT_EQ(t.name.rfind("synthetic_", 0) == 0, t.source == "synthetic")
        << "a synthetic trace says so in its name";
    const Replay r = replay(rule_of(t), t);
    ASSERT_TRUE(r.end) << "the trace ended before the detector did";
    EXPECT_EQ(to_string(*r.end), t.expect.at("end").get<std::string>());
    if (t.expect.contains("test")) {
      ASSERT_TRUE(r.by);
      EXPECT_EQ(to_string(*r.by), t.expect["test"].get<std::string>());
    }
    if (t.expect.contains("not_before_s"))
      EXPECT_GE(r.at_s, t.expect["not_before_s"].get<double>());
    if (t.expect.contains("by_s")) EXPECT_LE(r.at_s, t.expect["by_s"].get<double>());
  }
  EXPECT_GE(n, 7u) << "traces in " << kTraceDir;
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
