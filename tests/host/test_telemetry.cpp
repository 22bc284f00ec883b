// The telemetry arithmetic on synthetic readings: median and mean, the throttle class, the share
// at the cap, the energy counter's refresh edges and the burst regime's gates.
#include <gtest/gtest.h>

#include <cmath>

#include "stats/telemetry.hpp"

using namespace gemmbench;

namespace {

TelemetrySample reading(double t, std::optional<unsigned> clock, std::optional<double> power,
                        std::optional<uint64_t> reasons = 0, std::optional<unsigned> temp = 50) {
  TelemetrySample s;
  s.t_s = t;
  s.sm_clock_mhz = clock;
  s.power_w = power;
  s.reasons = reasons;
  s.temperature_c = temp;
  return s;
}

// A board drawing `watts` from t_on on (idle_w before), whose energy counter refreshes every
// `refresh_s` with a value `lag_s` old, read every `poll_s` from 0 to t_end.
std::vector<TelemetrySample> counter_trace(double watts, double idle_w, double t_on,
                                           double refresh_s, double lag_s, double poll_s,
                                           double t_end) {
  const auto energy_mj = [&](double t) {
    const double busy = std::max(0.0, t - t_on);
    return (idle_w * std::min(t, t_on) + watts * busy) * 1e3;
  };
  std::vector<TelemetrySample> out;
  for (double t = 0; t <= t_end; t += poll_s) {
    TelemetrySample s;
    s.t_s = t;
    s.phase = TelemetryPhase::energy;
    const double last_refresh = std::floor(t / refresh_s) * refresh_s;
    s.energy_mj = uint64_t(std::max(0.0, energy_mj(last_refresh - lag_s)));
    s.power_w = t >= t_on ? watts : idle_w;
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST(Telemetry, MedianMinMeanMax) {
  const std::vector<TelemetrySample> s = {
      reading(0.00, 1980, 300.0, 0, 40), reading(0.01, 1755, 690.0, 0, 55),
      reading(0.02, 1830, 700.0, 0, 61), reading(0.03, 1605, 650.0, 0, 58),
      reading(0.04, std::nullopt, std::nullopt, std::nullopt, std::nullopt)};
  const TelemetrySummary t = summarize_telemetry(s, 700.0);
  EXPECT_EQ(t.samples, 5u);
  EXPECT_EQ(t.sm_clock_min_mhz, 1605u);
  // Four clocks 1605 1755 1830 1980: the lower middle, a clock that was seen.
  EXPECT_EQ(t.sm_clock_median_mhz, 1755u);
  ASSERT_TRUE(t.power_mean_w);
  EXPECT_DOUBLE_EQ(*t.power_mean_w, (300.0 + 690.0 + 700.0 + 650.0) / 4);
  EXPECT_EQ(t.power_max_w, 700.0);
  EXPECT_EQ(t.temperature_max_c, 61u);
  EXPECT_EQ(t.throttle, Throttle::none);
}

TEST(Telemetry, OddCountMedianAndEmpty) {
  const TelemetrySummary t = summarize_telemetry(
      {reading(0, 1500, 1.0), reading(0, 1900, 1.0), reading(0, 1700, 1.0)}, std::nullopt);
  EXPECT_EQ(t.sm_clock_median_mhz, 1700u);
  const TelemetrySummary none = summarize_telemetry({}, 700.0);
  EXPECT_EQ(none.samples, 0u);
  EXPECT_FALSE(none.sm_clock_median_mhz);
  EXPECT_FALSE(none.power_mean_w);
  EXPECT_FALSE(none.at_cap_share);
}

TEST(Telemetry, ThrottleClassPowerCapIsNotAFault) {
  using namespace clock_reason;
  EXPECT_EQ(classify_throttle(0), Throttle::none);
  EXPECT_EQ(classify_throttle(gpu_idle), Throttle::none);
  EXPECT_EQ(classify_throttle(app_clocks | sync_boost), Throttle::none);
  EXPECT_EQ(classify_throttle(sw_power_cap), Throttle::power_cap);
  EXPECT_EQ(classify_throttle(sw_power_cap | sw_thermal), Throttle::thermal);
  EXPECT_EQ(classify_throttle(hw_thermal), Throttle::thermal);
  EXPECT_EQ(classify_throttle(sw_power_cap | hw_thermal | hw_slowdown), Throttle::hw_slowdown);
  EXPECT_EQ(classify_throttle(hw_power_brake), Throttle::hw_slowdown);
  EXPECT_FALSE(is_fault(Throttle::none));
  EXPECT_FALSE(is_fault(Throttle::power_cap));
  EXPECT_TRUE(is_fault(Throttle::thermal));
  EXPECT_TRUE(is_fault(Throttle::hw_slowdown));
  for (Throttle t : {Throttle::none, Throttle::power_cap, Throttle::thermal, Throttle::hw_slowdown})
    EXPECT_EQ(parse_throttle(to_string(t)), t);
  EXPECT_FALSE(parse_throttle("throttled"));
}

TEST(Telemetry, ReasonsAreNamedIdleLeftOut) {
  using namespace clock_reason;
  EXPECT_EQ(clock_reason_names(gpu_idle), "");
  EXPECT_EQ(clock_reason_names(gpu_idle | sw_power_cap | hw_slowdown), "sw_power_cap|hw_slowdown");
  const TelemetrySummary t = summarize_telemetry(
      {reading(0, 1980, 100.0, gpu_idle), reading(0, 1600, 700.0, sw_power_cap)}, 700.0);
  EXPECT_EQ(t.reasons, sw_power_cap);
  EXPECT_EQ(t.throttle, Throttle::power_cap);
}

TEST(Telemetry, AtCapShareCountsTheFlagOrPowerNearTheLimit) {
  using namespace clock_reason;
  const std::vector<TelemetrySample> s = {
      reading(0, 1980, 400.0, 0),             // below the cap
      reading(0, 1700, 500.0, sw_power_cap),  // flag alone
      reading(0, 1700, 690.0, 0),             // 690 >= 0.97 * 700 = 679
      reading(0, 1700, 670.0, 0),             // just below 97%
  };
  const TelemetrySummary t = summarize_telemetry(s, 700.0);
  ASSERT_TRUE(t.at_cap_share);
  EXPECT_DOUBLE_EQ(*t.at_cap_share, 0.5);
  // Without a limit only the flag can say so.
  EXPECT_DOUBLE_EQ(*summarize_telemetry(s, std::nullopt).at_cap_share, 0.25);
  // Without reasons or a limit nothing can.
  EXPECT_FALSE(
      summarize_telemetry({reading(0, 1700, 690.0, std::nullopt)}, std::nullopt).at_cap_share);
}

TEST(Telemetry, SelectKeepsOnePhaseAndDropsDiscardedPairs) {
  std::vector<TelemetrySample> s(6);
  s[0].phase = TelemetryPhase::warmup;
  s[1].phase = TelemetryPhase::timed, s[1].pair = 0;
  s[2].phase = TelemetryPhase::timed, s[2].pair = 1;
  s[3].phase = TelemetryPhase::idle;
  s[4].phase = TelemetryPhase::timed, s[4].pair = 2;
  s[5].phase = TelemetryPhase::energy;
  const auto timed = select_telemetry(s, TelemetryPhase::timed, {1});
  ASSERT_EQ(timed.size(), 2u);
  EXPECT_EQ(timed[0].pair, 0);
  EXPECT_EQ(timed[1].pair, 2);
  EXPECT_EQ(select_telemetry(s, TelemetryPhase::timed).size(), 3u);
  EXPECT_EQ(select_telemetry(s, TelemetryPhase::energy).size(), 1u);
}

TEST(Telemetry, EnergyCounterEdgesGiveTheBusyPower) {
  // 650 W from t = 0.2 s; counter refreshed every 50 ms with a 30 ms lag; read every 2 ms.
  const auto s = counter_trace(650.0, 80.0, 0.2, 0.05, 0.03, 0.002, 1.0);
  // The window opens at the work's start plus a 0.1 s settle, past the lag.
  const auto e = energy_from_counter(s, 0.3, 1.0);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->power_w, 650.0, 650.0 * 0.02);
  EXPECT_GE(e->refreshes, 12);
  EXPECT_GE(e->t_first, 0.3);
  EXPECT_LE(e->t_last, 1.0);
  EXPECT_NEAR(e->joules, e->power_w * e->seconds, 1e-9);
  // A window that opens before the work counts idle energy: the figure is low. The runner opens
  // its window only after the launches started and skips its first 0.1 s (longer than the lag).
  const auto early = energy_from_counter(s, 0.1, 1.0);
  ASSERT_TRUE(early);
  EXPECT_LT(early->power_w, 0.95 * 650.0);
}

TEST(Telemetry, EnergyNeedsTwoRefreshesInTheWindow) {
  const auto s = counter_trace(650.0, 80.0, 0.0, 0.1, 0.0, 0.002, 1.0);
  EXPECT_FALSE(energy_from_counter(s, 0.31, 0.39)) << "no refresh inside";
  EXPECT_FALSE(energy_from_counter(s, 0.29, 0.39)) << "one refresh inside";
  EXPECT_TRUE(energy_from_counter(s, 0.29, 0.41));
  std::vector<TelemetrySample> no_counter = s;
  for (auto& x : no_counter) x.energy_mj.reset();
  EXPECT_FALSE(energy_from_counter(no_counter, 0.0, 1.0));
}

TEST(Telemetry, BurstReadyNeedsACoolBoard) {
  using namespace clock_reason;
  const BurstRule rule;
  EXPECT_TRUE(burst_ready(reading(0, 345, 90.0, gpu_idle), 700.0, rule))
      << "an idle board's low clock does not hold a pair back";
  EXPECT_FALSE(burst_ready(reading(0, 1980, 360.0, 0), 700.0, rule)) << "power >= 50% of limit";
  EXPECT_TRUE(burst_ready(reading(0, 1980, 340.0, 0), 700.0, rule));
  EXPECT_FALSE(burst_ready(reading(0, 1980, 100.0, sw_power_cap), 700.0, rule));
  EXPECT_FALSE(burst_ready(reading(0, 1980, 100.0, sw_thermal), 700.0, rule));
  EXPECT_TRUE(burst_ready(reading(0, 1980, 600.0, 0), std::nullopt, rule))
      << "no limit known: power cannot hold it back";
}

TEST(Telemetry, SelectTaggedKeepsOnlyTheRowsOwnBlocks) {
  std::vector<TelemetrySample> s(6);
  for (size_t i = 0; i < s.size(); ++i) {
    s[i].phase = i == 5 ? TelemetryPhase::energy : TelemetryPhase::timed;
    s[i].pair = int(i % 3);
  }
  EXPECT_EQ(select_tagged(s, TelemetryPhase::timed, {0, 2}).size(), 3u);  // 0, 2, 3 (tag 0)
  EXPECT_EQ(select_tagged(s, TelemetryPhase::timed, {}).size(), 0u);
  EXPECT_EQ(select_tagged(s, TelemetryPhase::energy, {2}).size(), 1u);
}

TEST(Telemetry, AtThePowerCapByReasonOrByPower) {
  using namespace clock_reason;
  // The reason alone, or power within 97% of the limit, puts a reading at the cap.
  EXPECT_TRUE(at_power_cap(reading(0, 1400, 500.0, sw_power_cap), 700.0));
  EXPECT_TRUE(at_power_cap(reading(0, 1400, 690.0, 0), 700.0));
  EXPECT_FALSE(at_power_cap(reading(0, 1980, 600.0, 0), 700.0));
  // A reading with neither reasons nor a power against a known limit cannot tell (a stale or
  // partial NVML reading): it does not count either way.
  EXPECT_FALSE(cap_known(reading(0, 1980, std::nullopt, std::nullopt), 700.0));
  EXPECT_FALSE(cap_known(reading(0, 1980, 690.0, std::nullopt), std::nullopt));
  EXPECT_TRUE(cap_known(reading(0, 1980, 690.0, std::nullopt), 700.0));
  EXPECT_FALSE(at_power_cap(reading(0, 1980, 690.0, std::nullopt), std::nullopt));
  // The row summary counts the same way (one definition).
  const TelemetrySummary t =
      summarize_telemetry({reading(0, 1400, 500.0, sw_power_cap), reading(1, 1980, 300.0, 0),
                           reading(2, 1980, std::nullopt, std::nullopt)},
                          700.0);
  ASSERT_TRUE(t.at_cap_share);
  EXPECT_DOUBLE_EQ(*t.at_cap_share, 0.5);
}
