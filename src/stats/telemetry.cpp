#include "stats/telemetry.hpp"

#include <algorithm>
#include <cmath>

namespace gemmbench {

namespace {
struct ReasonName {
  uint64_t bit;
  const char* name;
};
constexpr ReasonName kReasons[] = {
    {clock_reason::app_clocks, "app_clocks"},
    {clock_reason::sw_power_cap, "sw_power_cap"},
    {clock_reason::hw_slowdown, "hw_slowdown"},
    {clock_reason::sync_boost, "sync_boost"},
    {clock_reason::sw_thermal, "sw_thermal"},
    {clock_reason::hw_thermal, "hw_thermal"},
    {clock_reason::hw_power_brake, "hw_power_brake"},
    {clock_reason::display_clocks, "display_clocks"},
};
}  // namespace

std::string clock_reason_names(uint64_t bits) {
  std::string out;
  for (const auto& r : kReasons)
    if (bits & r.bit) out += (out.empty() ? "" : "|") + std::string(r.name);
  return out;
}

const char* to_string(Throttle t) {
  switch (t) {
    case Throttle::none:
      return "none";
    case Throttle::power_cap:
      return "power_cap";
    case Throttle::thermal:
      return "thermal";
    case Throttle::hw_slowdown:
      return "hw_slowdown";
  }
  return "?";
}

std::optional<Throttle> parse_throttle(std::string_view s) {
  for (Throttle t : {Throttle::none, Throttle::power_cap, Throttle::thermal, Throttle::hw_slowdown})
    if (s == to_string(t)) return t;
  return std::nullopt;
}

Throttle classify_throttle(uint64_t reasons) {
  if (reasons & clock_reason::hardware) return Throttle::hw_slowdown;
  if (reasons & clock_reason::thermal) return Throttle::thermal;
  if (reasons & clock_reason::sw_power_cap) return Throttle::power_cap;
  return Throttle::none;
}

bool cap_known(const TelemetrySample& s, std::optional<double> power_limit_w) {
  return s.reasons || (s.power_w && power_limit_w && *power_limit_w > 0);
}

bool at_power_cap(const TelemetrySample& s, std::optional<double> power_limit_w) {
  const bool power_known = s.power_w && power_limit_w && *power_limit_w > 0;
  return (s.reasons && (*s.reasons & clock_reason::sw_power_cap)) ||
         (power_known && *s.power_w >= kAtCapPowerShare * *power_limit_w);
}

TelemetrySummary summarize_telemetry(const std::vector<TelemetrySample>& samples,
                                     std::optional<double> power_limit_w) {
  TelemetrySummary out;
  out.samples = samples.size();
  std::vector<unsigned> clocks;
  double power_sum = 0;
  size_t power_n = 0, cap_known = 0, at_cap = 0;
  for (const TelemetrySample& s : samples) {
    if (s.sm_clock_mhz) clocks.push_back(*s.sm_clock_mhz);
    if (s.power_w) {
      power_sum += *s.power_w;
      ++power_n;
      out.power_max_w = std::max(out.power_max_w.value_or(*s.power_w), *s.power_w);
    }
    if (s.temperature_c)
      out.temperature_max_c = std::max(out.temperature_max_c.value_or(0u), *s.temperature_c);
    if (s.reasons) out.reasons |= *s.reasons & ~clock_reason::gpu_idle;
    if (gemmbench::cap_known(s, power_limit_w)) {
      ++cap_known;
      at_cap += at_power_cap(s, power_limit_w);
    }
  }
  if (!clocks.empty()) {
    std::sort(clocks.begin(), clocks.end());
    out.sm_clock_min_mhz = clocks.front();
    out.sm_clock_median_mhz = clocks[(clocks.size() - 1) / 2];
  }
  if (power_n) out.power_mean_w = power_sum / double(power_n);
  if (cap_known) out.at_cap_share = double(at_cap) / double(cap_known);
  out.throttle = classify_throttle(out.reasons);
  return out;
}

std::vector<TelemetrySample> select_telemetry(const std::vector<TelemetrySample>& samples,
                                              TelemetryPhase phase,
                                              const std::vector<int>& discarded_pairs) {
  std::vector<TelemetrySample> out;
  for (const TelemetrySample& s : samples) {
    if (s.phase != phase) continue;
    if (s.pair >= 0 &&
        std::find(discarded_pairs.begin(), discarded_pairs.end(), s.pair) != discarded_pairs.end())
      continue;
    out.push_back(s);
  }
  return out;
}

std::vector<TelemetrySample> select_tagged(const std::vector<TelemetrySample>& samples,
                                           TelemetryPhase phase, const std::vector<int>& tags) {
  std::vector<TelemetrySample> out;
  for (const TelemetrySample& s : samples)
    if (s.phase == phase && std::find(tags.begin(), tags.end(), s.pair) != tags.end())
      out.push_back(s);
  return out;
}

std::optional<CounterEnergy> energy_from_counter(const std::vector<TelemetrySample>& samples,
                                                 double t_begin, double t_end) {
  // Readings of the counter inside the window, in time order.
  std::vector<std::pair<double, uint64_t>> e;
  for (const TelemetrySample& s : samples)
    if (s.energy_mj && s.t_s >= t_begin && s.t_s <= t_end) e.push_back({s.t_s, *s.energy_mj});
  std::sort(e.begin(), e.end());
  // A refresh is a reading whose value differs from the one before it; the first reading of the
  // window cannot be one (its predecessor may predate the work).
  std::vector<size_t> refresh;
  for (size_t i = 1; i < e.size(); ++i)
    if (e[i].second != e[i - 1].second) refresh.push_back(i);
  if (refresh.size() < 2) return std::nullopt;
  const auto& a = e[refresh.front()];
  const auto& b = e[refresh.back()];
  if (b.first <= a.first || b.second < a.second) return std::nullopt;
  CounterEnergy out;
  out.joules = double(b.second - a.second) * 1e-3;
  out.seconds = b.first - a.first;
  out.power_w = out.joules / out.seconds;
  out.t_first = a.first;
  out.t_last = b.first;
  out.refreshes = int(refresh.size());
  return out;
}

bool burst_ready(const TelemetrySample& s, std::optional<double> power_limit_w,
                 const BurstRule& rule) {
  if (s.reasons &&
      (*s.reasons & (clock_reason::sw_power_cap | clock_reason::thermal | clock_reason::hardware)))
    return false;
  if (s.power_w && power_limit_w && *power_limit_w > 0 &&
      *s.power_w >= rule.ready_power_share * *power_limit_w)
    return false;
  return true;
}

}  // namespace gemmbench
