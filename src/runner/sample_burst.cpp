#include "runner/sample_burst.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "core/interrupt.hpp"
#include "stats/regime.hpp"
#include "stats/stats.hpp"
#include "stats/telemetry.hpp"

namespace gemmbench {

namespace {

// Batches of up to this many interleaved steps between two clock probes, and the longest ramp
// before a window gives up waiting for the clock to reach its floor.
constexpr size_t kBurstBatch = 8;
constexpr double kBurstRampMaxS = 0.5;

// What the group's windows kept and discarded, over all of them.
struct BurstTally {
  size_t kept = 0, discarded = 0;
  double kept_gpu_s = 0;  // the least over the members
  int wait_timeouts = 0, windows = 0, batches_kept = 0, batches_discarded = 0, tag = 0;
  std::vector<double> kept_probes;
  std::optional<double> first_probe, min_probe;

  bool enough(const MeasureSettings& s) const {
    return kept >= size_t(s.min_samples) && kept_gpu_s >= s.min_time_s;
  }
};

// Waits for a cool board, at most rule.wait_timeout_s.
void wait_for_cool_board(SamplingContext& ctx, const BurstRule& rule, BurstTally& t) {
  const auto w0 = std::chrono::steady_clock::now();
  while (!burst_ready(ctx.nvml.read(), ctx.power_limit_w, rule)) {
    if (seconds_since(w0) >= rule.wait_timeout_s) {
      ++t.wait_timeouts;
      break;
    }
    std::this_thread::sleep_for(kTelemetryPeriod);
  }
}

// Ramps the clocks (a board that waited has dropped them) until the probe shows them up; returns
// the probe after the ramp, the window's reference clock.
double ramp_clocks(GroupSampling& run, const BurstRule& rule, const BurstHoldRule& hold,
                   std::optional<double> max_mhz) {
  SamplingContext& ctx = run.ctx;
  const auto r0 = std::chrono::steady_clock::now();
  double reference = 0;
  do {
    for (const Member* m : run.members) {
      prepare_sample(ctx, run.g.problem, run.g.measure, run.d);
      m->launch();
    }
    ctx.probe.enqueue(ctx.stream, 0);
    reference = ctx.probe.read(1, ctx.stream)[0];
  } while (seconds_since(r0) < rule.ramp_s ||
           (!burst_ramped(reference, max_mhz, hold) && seconds_since(r0) < kBurstRampMaxS));
  return reference;
}

// One window: batches, each followed by a probe, until the clock falls or time is up.
void run_window(GroupSampling& run, BurstTally& t, double reference, std::optional<double> max_mhz,
                const BurstRule& rule, const BurstHoldRule& hold) {
  SamplingContext& ctx = run.ctx;
  std::vector<Member*>& ms = run.members;
  const MeasureSettings& s = run.g.measure;
  const std::vector<const Member*> step(ms.begin(), ms.end());
  const auto b0 = std::chrono::steady_clock::now();
  while (!t.enough(s) && !stop_requested()) {
    const size_t need = t.kept < size_t(s.min_samples) ? size_t(s.min_samples) - t.kept : 1;
    const size_t batch = std::clamp<size_t>(need, 1, kBurstBatch);
    ctx.sampler.set_tag(TelemetryPhase::timed, t.tag);
    std::vector<std::vector<double>> times = run_steps(ctx, run.g, run.d, step, batch);
    ctx.probe.enqueue(ctx.stream, 0);
    const double mhz = ctx.probe.read(1, ctx.stream)[0];
    ctx.sampler.set_tag(TelemetryPhase::idle);
    t.min_probe = std::min(t.min_probe.value_or(mhz), mhz);
    if (burst_batches_kept({mhz}, reference, max_mhz, hold) != 1) {
      for (Member* m : ms) m->discarded_tags.push_back(t.tag);
      t.discarded += batch;
      ++t.batches_discarded;
      ++t.tag;
      break;  // the clock fell: the rest of this window is not a burst
    }
    double least = 1e30;
    for (size_t i = 0; i < ms.size(); ++i) {
      Member& m = *ms[i];
      m.samples.insert(m.samples.end(), times[i].begin(), times[i].end());
      m.gpu_s += sum_seconds(times[i]);
      m.tags.push_back(t.tag);
      least = std::min(least, m.gpu_s);
    }
    t.kept += batch;
    t.kept_gpu_s = least;
    t.kept_probes.push_back(mhz);
    ++t.batches_kept;
    ++t.tag;
    if (seconds_since(b0) >= rule.window_s) break;
  }
}

// The windows' tally on every member's regime fields; a group that kept fewer samples than asked
// did not hold its regime.
void record_burst(std::vector<Member*>& ms, const BurstTally& t, const MeasureSettings& s) {
  for (Member* m : ms) {
    RegimeStats& rs = m->r.regime;
    rs.windows = t.windows;
    rs.batches_kept = t.batches_kept;
    rs.batches_discarded = t.batches_discarded;
    rs.probe_first_mhz = t.first_probe;
    rs.probe_min_mhz = t.min_probe;
    if (!t.kept_probes.empty()) rs.probe_kept_median_mhz = summarize(t.kept_probes).median_ms;
    m->r.samples_discarded = int(t.discarded);
    m->r.burst_wait_timeouts = t.wait_timeouts;
    if (t.kept < size_t(s.min_samples) && !stop_requested()) {
      rs.held = false;
      append_note(m->r, burst_not_held_reason(t.kept, s.min_samples, t.discarded, t.first_probe,
                                              t.min_probe));
    }
  }
}

}  // namespace

void sample_burst(GroupSampling& run) {
  const MeasureSettings& s = run.g.measure;
  const BurstRule rule;
  const BurstHoldRule hold;
  const std::optional<double> max_mhz =
      run.ctx.sm_clock_max_mhz ? std::optional<double>(double(*run.ctx.sm_clock_max_mhz))
                               : std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  const double wall_cap = s.max_time_s * double(run.members.size());
  BurstTally t;
  try {
    while (!t.enough(s) && !stop_requested() && seconds_since(t0) < wall_cap) {
      wait_for_cool_board(run.ctx, rule, t);
      const double reference = ramp_clocks(run, rule, hold, max_mhz);
      if (!t.first_probe) t.first_probe = reference;
      ++t.windows;
      run_window(run, t, reference, max_mhz, rule, hold);
    }
  } catch (const CudaError& e) {
    for (Member* m : run.members) fail_member(*m, e, run.summary);
    return;
  }
  record_burst(run.members, t, s);
}

}  // namespace gemmbench
