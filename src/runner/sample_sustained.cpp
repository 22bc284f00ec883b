#include "runner/sample_sustained.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <vector>

#include "core/interrupt.hpp"
#include "runner/nvtx_range.hpp"
#include "stats/regime.hpp"
#include "stats/stats.hpp"
#include "stats/telemetry.hpp"

namespace gemmbench {

namespace {

// Stop sampling a provider after this many samples whatever the time settings say.
constexpr size_t kMaxSamples = 1000000;
// Samples enqueued before one synchronization: about this much GPU time, at most kMaxBatch.
constexpr double kBatchGpuS = 0.01;
constexpr size_t kMaxBatch = 256;

// One provider's own sampling loop (preparation, then the launch, back to back in batches)
// until it has `gpu_s` of GPU time and `min_n` samples, or `wall_cap_s` has passed.
std::vector<double> run_loop(GroupSampling& run, const Member& m, double gpu_s, size_t min_n,
                             double wall_cap_s) {
  std::vector<double> out;
  double have_s = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while ((out.size() < min_n || have_s < gpu_s) && out.size() < kMaxSamples) {
    const double est_s = out.empty() ? 0 : have_s / double(out.size());
    size_t batch = est_s > 0 ? size_t(kBatchGpuS / est_s) : 1;
    if (!out.empty()) batch = std::max(batch, min_n > out.size() ? min_n - out.size() : 1);
    batch = std::clamp<size_t>(batch, 1, kMaxBatch);
    const std::vector<double> ms = run_steps(run.ctx, run.g, run.d, {&m}, batch)[0];
    out.insert(out.end(), ms.begin(), ms.end());
    have_s += sum_seconds(ms);
    if (seconds_since(t0) >= wall_cap_s || stop_requested()) break;
  }
  return out;
}

struct Steady {
  double seconds = 0;
  SteadyEnd end = SteadyEnd::bound;
  std::optional<double> spread;
  std::optional<double> at_cap_share;          // of the NVML readings taken after each window
  std::vector<std::array<double, 2>> windows;  // [elapsed s, median ms], when asked to keep them
  std::optional<SteadyTest> test;              // which test found it steady
  std::optional<SpanVerdict> spans;            // the long-span test where it had the history
};

// Runs one provider's loop untimed, in windows of about rule.window_s of wall time, until its
// window medians agree (stats/regime.hpp).
Steady run_until_steady(GroupSampling& run, const Member& m, const SteadyRule& rule,
                        bool keep_windows = false) {
  SamplingContext& ctx = run.ctx;
  SteadyDetector detector(rule);
  const auto t0 = std::chrono::steady_clock::now();
  Steady out;
  int known = 0, capped = 0;
  for (;;) {
    if (stop_requested()) {
      out.end = SteadyEnd::interrupted;
      break;
    }
    const std::vector<double> window = run_loop(run, m, 1e9, 1, rule.window_s);
    const double median_ms = summarize(window).median_ms, elapsed_s = seconds_since(t0);
    detector.add(median_ms, elapsed_s);
    if (keep_windows) out.windows.push_back({elapsed_s, median_ms});
    if (ctx.nvml.available()) {
      const TelemetrySample r = ctx.nvml.read();
      if (cap_known(r, ctx.power_limit_w)) {
        ++known;
        capped += at_power_cap(r, ctx.power_limit_w);
      }
    }
    if (const auto end = detector.done()) {
      out.end = *end;
      break;
    }
  }
  out.seconds = seconds_since(t0);
  out.spread = detector.spread();
  out.test = detector.decided_by();
  out.spans = detector.spans();
  if (known) out.at_cap_share = double(capped) / known;
  return out;
}

// The preconditioning's outcome on every member's regime fields.
void record_precondition(std::vector<Member*>& ms, const Steady& pre, double block_s,
                         bool carried) {
  for (Member* m : ms) {
    RegimeStats& rs = m->r.regime;
    rs.precondition_s = pre.seconds;
    rs.precondition_end = to_string(pre.end);
    rs.precondition_carried = carried;
    if (pre.end == SteadyEnd::agreed && pre.test) rs.precondition_test = to_string(*pre.test);
    if (pre.spans) {
      rs.precondition_span_s = pre.spans->span_s;
      rs.precondition_span_spread_pct = 100.0 * pre.spans->spread;
      rs.precondition_span_trend_pct = 100.0 * pre.spans->trend;
    }
    if (pre.spread) rs.precondition_spread_pct = 100.0 * *pre.spread;
    if (pre.end == SteadyEnd::bound) rs.held = false;
    rs.precondition_at_cap = pre.at_cap_share;
    rs.block_s = block_s;
  }
}

// The settle that opens a block: the default rule, stretched to the user's settle time.
SteadyRule settle_rule(const MeasureSettings& s) {
  SteadyRule settle = kSettleRule;
  if (s.settle_time_s > 0) {
    settle.min_s = s.settle_time_s;
    settle.max_s = std::max(settle.max_s, 2.0 * s.settle_time_s);
  }
  return settle;
}

// Every member still running has its samples and its GPU time.
bool rounds_done(const std::vector<Member*>& ms, const MeasureSettings& s) {
  for (const Member* m : ms)
    if (m->launch && (m->samples.size() < size_t(s.min_samples) || m->gpu_s < s.min_time_s))
      return false;
  return true;
}

}  // namespace

void sample_sustained(GroupSampling& run) {
  std::vector<Member*>& ms = run.members;
  const MeasureSettings& s = run.g.measure;
  const auto t0 = std::chrono::steady_clock::now();
  const double wall_cap = s.max_time_s * double(ms.size());
  // PROLOGUE: the group's steady state, on the first provider's own loop; a short re-settle
  // where the previous sustained group left the board running moments ago.
  std::optional<double> idle_s;
  if (run.ctx.sustained_end) idle_s = seconds_since(*run.ctx.sustained_end);
  const SteadyRule& pre_rule = precondition_rule(idle_s);
  Steady pre;
  try {
    pre = run_until_steady(run, *ms.front(), pre_rule, s.keep_samples);
  } catch (const CudaError& e) {
    fail_member(*ms.front(), e, run.summary);
    return;
  }
  const SteadyRule settle = settle_rule(s);
  const bool at_cap = pre.at_cap_share && *pre.at_cap_share >= 0.5;
  const double block_s = block_timed_seconds(s.block_time_s, s.min_time_s, at_cap);
  record_precondition(ms, pre, block_s, &pre_rule == &kResettleRule);
  ms.front()->r.regime.precondition_windows = std::move(pre.windows);
  const size_t block_n = size_t(std::max(1, (s.min_samples + 1) / 2));
  const Member* running = ms.front();  // whose loop the board ran last
  int tag = 0;
  // MAINLOOP: rounds of blocks, forward then backward, until every provider has its samples.
  for (;;) {
    for (size_t idx : round_schedule(ms.size())) {
      Member& m = *ms[idx];
      if (!m.launch || stop_requested() || run.summary.aborted) continue;
      run.progress(m);
      // The block (settle and samples) in the row's range, and the provider's inside it.
      const NvtxRange row(m.nvtx_name), provider(m.r.kernel);
      try {
        if (&m != running) {
          const Steady st = run_until_steady(run, m, settle);
          m.settle_s += st.seconds;
          ++m.settles;
          running = &m;
        }
        run.ctx.sampler.mark(TelemetryPhase::timed, tag);
        const std::vector<double> block = run_loop(run, m, block_s, block_n, s.max_time_s);
        run.ctx.sampler.mark(TelemetryPhase::warmup);
        m.samples.insert(m.samples.end(), block.begin(), block.end());
        m.block_medians.push_back(summarize(block).median_ms);
        m.tags.push_back(tag++);
        m.gpu_s += sum_seconds(block);
      } catch (const CudaError& e) {
        fail_member(m, e, run.summary);
      }
    }
    if (rounds_done(ms, s) || stop_requested() || run.summary.aborted) break;
    if (seconds_since(t0) >= wall_cap) break;
  }
}

}  // namespace gemmbench
