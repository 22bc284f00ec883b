#include "runner/energy.hpp"

#include <algorithm>
#include <cmath>

#include "core/interrupt.hpp"
#include "stats/stats.hpp"
#include "stats/telemetry.hpp"

namespace gemmbench {

namespace {

// A finer telemetry period in the energy windows, where the counter's refreshes must be located
// in time (docs/regimes.md).
constexpr auto kEnergyTelemetryPeriod = std::chrono::milliseconds(2);
// Energy window: one provider back to back for at least kEnergyWindowS of GPU time (and at least
// kEnergyMinLaunches launches where that stays under kEnergyLongWindowS); counter refreshes in
// its first kEnergySettleS are ignored, so the counter's own lag cannot reach back before it.
constexpr double kEnergyWindowS = 0.6;
constexpr double kEnergySettleS = 0.1;
constexpr double kEnergyLongWindowS = 2.0;
constexpr int64_t kEnergyMinLaunches = 20;
constexpr int64_t kEnergyMaxLaunches = 1000000;
// Telemetry tags of the energy windows (member index added), apart from block and batch tags.
constexpr int kEnergyTag = 1 << 24;

// One provider back to back, no L2 flush and no C restore in between, timed by one event pair.
void energy_window(SamplingContext& ctx, Member& m, int tag) {
  EnergyRun& e = m.energy;
  e.launches = energy_launches(summarize(m.samples).median_ms * 1e-3);
  ctx.sampler.mark(TelemetryPhase::energy, tag);
  ctx.sampler.set_period(kEnergyTelemetryPeriod);
  e.t_begin = ctx.sampler.now();
  CUDA_CHECK(cudaEventRecord(ctx.event(0), ctx.stream));
  for (int64_t i = 0; i < e.launches; ++i) m.launch();
  CUDA_CHECK(cudaEventRecord(ctx.event(1), ctx.stream));
  CUDA_CHECK(cudaEventSynchronize(ctx.event(1)));
  e.t_end = ctx.sampler.now();
  ctx.sampler.set_period(kTelemetryPeriod);
  ctx.sampler.mark(TelemetryPhase::idle);
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, ctx.event(0), ctx.event(1)));
  e.gpu_s = ms * 1e-3;
  e.ran = true;
}

// The row's energy from the counter over its window, and the telemetry's mean power over the
// same span as a check.
void fill_energy(const SamplingContext& ctx, Member& m,
                 const std::vector<TelemetrySample>& readings) {
  CaseResult& r = m.r;
  EnergyStats& en = r.energy;
  if (!ctx.nvml.available()) {
    en.note = "NVML not available";
    return;
  }
  const EnergyRun& e = m.energy;
  if (!e.ran) {
    en.note = "no energy window (the row did not finish sampling)";
    return;
  }
  en.launches = int(e.launches);
  en.window_s = e.gpu_s;
  const auto counter = energy_from_counter(readings, e.t_begin + kEnergySettleS, e.t_end);
  if (!counter) {
    en.note = "fewer than two energy-counter refreshes in the window (or no counter)";
    return;
  }
  en.counter_refreshes = counter->refreshes;
  en.power_w = counter->power_w;
  en.joules_per_gemm = counter->power_w * e.gpu_s / double(e.launches);
  if (*en.joules_per_gemm > 0) en.gflop_per_joule = r.problem.flops() / 1e9 / *en.joules_per_gemm;
  std::vector<TelemetrySample> span;
  for (const TelemetrySample& s : select_telemetry(readings, TelemetryPhase::energy))
    if (s.t_s >= counter->t_first && s.t_s <= counter->t_last) span.push_back(s);
  en.telemetry_power_w = summarize_telemetry(span, ctx.power_limit_w).power_mean_w;
}

}  // namespace

int64_t energy_launches(double median_s) {
  const double t = std::max(median_s, 1e-7);
  const auto by_time = int64_t(std::ceil(kEnergyWindowS / t));
  const auto by_count =
      std::min<int64_t>(kEnergyMinLaunches, int64_t(std::ceil(kEnergyLongWindowS / t)));
  return std::clamp<int64_t>(std::max(by_time, by_count), 1, kEnergyMaxLaunches);
}

void run_energy_windows(SamplingContext& ctx, const std::vector<Member*>& members) {
  if (!ctx.nvml.available() || stop_requested()) return;
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i]->launch && !members[i]->samples.empty())
      energy_window(ctx, *members[i], kEnergyTag + int(i));
}

void fill_telemetry(const SamplingContext& ctx, Member& m,
                    const std::vector<TelemetrySample>& readings) {
  CaseResult& r = m.r;
  ClockStats& c = r.clock;
  c.sm_clock_max_mhz = ctx.sm_clock_max_mhz;
  c.power_limit_w = ctx.power_limit_w;
  const TelemetrySummary t = summarize_telemetry(
      select_tagged(readings, TelemetryPhase::timed, m.tags), ctx.power_limit_w);
  c.telemetry_samples = t.samples;
  c.sm_clock_mhz = t.sm_clock_min_mhz;
  c.sm_clock_median_mhz = t.sm_clock_median_mhz;
  c.power_w = t.power_max_w;
  c.power_mean_w = t.power_mean_w;
  c.temperature_c = t.temperature_max_c;
  c.throttle_reasons = clock_reason_names(t.reasons);
  c.throttle = t.throttle;
  c.at_cap_share = t.at_cap_share;
  c.throttled = c.sm_clock_mhz && c.sm_clock_max_mhz && *c.sm_clock_max_mhz > 0 &&
                double(*c.sm_clock_mhz) < 0.8 * double(*c.sm_clock_max_mhz);
  if (!m.discarded_tags.empty()) {
    const TelemetrySummary dt = summarize_telemetry(
        select_tagged(readings, TelemetryPhase::timed, m.discarded_tags), ctx.power_limit_w);
    r.regime.discarded_sm_median_mhz = dt.sm_clock_median_mhz;
    r.regime.discarded_telemetry_samples = dt.samples;
  }
  fill_energy(ctx, m, readings);
}

}  // namespace gemmbench
