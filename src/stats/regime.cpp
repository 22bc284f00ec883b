#include "stats/regime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gemmbench {

const char* to_string(SteadyEnd e) {
  switch (e) {
    case SteadyEnd::agreed:
      return "agreed";
    case SteadyEnd::bound:
      return "bound";
    case SteadyEnd::interrupted:
      return "interrupted";
  }
  return "?";
}

const char* to_string(SteadyTest t) {
  switch (t) {
    case SteadyTest::windows:
      return "windows";
    case SteadyTest::spans:
      return "spans";
  }
  return "?";
}

void SteadyDetector::add(double window_median_ms, double elapsed_s) {
  medians_.push_back(window_median_ms);
  ends_.push_back(elapsed_s);
  elapsed_ = elapsed_s;
}

std::optional<double> SteadyDetector::window_spread() const {
  const size_t w = size_t(std::max(rule_.windows, 1));
  if (medians_.size() < w) return std::nullopt;
  const auto first = medians_.end() - std::ptrdiff_t(w);
  const auto [lo, hi] = std::minmax_element(first, medians_.end());
  if (!(*lo > 0)) return std::nullopt;
  return (*hi - *lo) / *lo;
}

std::optional<SpanVerdict> SteadyDetector::spans_of(double span_s) const {
  const size_t want = size_t(std::max(rule_.spans, 2));
  // Spans from the newest window back, each closed once it holds span_s of windows (less a
  // rounding's worth: ten windows of 0.1 s make a span of 1 s).
  const double enough = span_s * (1 - 1e-9);
  std::vector<double> means;  // newest first
  double sum = 0, dur = 0;
  for (size_t i = medians_.size(); i-- > 0 && means.size() < want;) {
    const double d = ends_[i] - (i ? ends_[i - 1] : 0.0);
    if (!(d > 0)) continue;
    if (!(medians_[i] > 0)) return std::nullopt;
    sum += medians_[i] * d;
    dur += d;
    if (dur >= enough) {
      means.push_back(sum / dur);
      sum = dur = 0;
    }
  }
  if (means.size() < want) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(means.begin(), means.end());
  SpanVerdict v;
  v.span_s = span_s;
  v.spread = (*hi - *lo) / *lo;
  v.trend = (means.front() - means.back()) / *lo;
  v.steady = v.spread <= rule_.tolerance && std::abs(v.trend) <= rule_.span_trend;
  return v;
}

std::optional<SpanVerdict> SteadyDetector::spans() const {
  if (!(rule_.span_s > 0)) return std::nullopt;
  const std::optional<SpanVerdict> first = spans_of(rule_.span_s);
  if (!first || first->steady) return first;
  // Longer spans, in steps of half the shortest, while the history holds them.
  for (int k = 3;; ++k) {
    const double span_s = rule_.span_s * k / 2;
    if (double(std::max(rule_.spans, 2)) * span_s > elapsed_) break;
    const std::optional<SpanVerdict> v = spans_of(span_s);
    if (!v) break;
    if (v->steady) return v;
  }
  return first;
}

std::optional<SteadyTest> SteadyDetector::decided_by() const {
  if (elapsed_ < rule_.min_s) return std::nullopt;
  if (const auto s = window_spread(); s && *s <= rule_.tolerance) return SteadyTest::windows;
  if (const auto v = spans(); v && v->steady) return SteadyTest::spans;
  return std::nullopt;
}

std::optional<double> SteadyDetector::spread() const {
  if (decided_by() == SteadyTest::spans) return spans()->spread;
  return window_spread();
}

std::optional<SteadyEnd> SteadyDetector::done() const {
  if (decided_by()) return SteadyEnd::agreed;
  if (elapsed_ >= rule_.max_s) return SteadyEnd::bound;
  return std::nullopt;
}

std::vector<size_t> round_schedule(size_t providers) {
  std::vector<size_t> out;
  for (size_t i = 0; i < providers; ++i) out.push_back(i);
  for (size_t i = providers; i-- > 0;) out.push_back(i);
  return out;
}

const SteadyRule& precondition_rule(std::optional<double> idle_s) {
  return idle_s && *idle_s >= 0 && *idle_s <= kCarryGapS ? kResettleRule : kPreconditionRule;
}

double block_timed_seconds(double block_time_s, double min_time_s, bool at_cap) {
  const double s = std::max(0.0, std::min(block_time_s, min_time_s / 2.0));
  return at_cap ? std::max(s, kCapBlockS) : s;
}

double default_settle_seconds(double block_time_s) {
  return std::clamp(block_time_s / 4.0, 0.15, 1.0);
}

std::optional<double> block_spread_pct(const std::vector<double>& block_medians_ms) {
  if (block_medians_ms.size() < 2) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(block_medians_ms.begin(), block_medians_ms.end());
  if (!(*lo > 0)) return std::nullopt;
  return 100.0 * (*hi - *lo) / *lo;
}

size_t burst_batches_kept(const std::vector<double>& probe_mhz, double reference_mhz,
                          std::optional<double> sm_clock_max_mhz, const BurstHoldRule& rule) {
  size_t kept = 0;
  for (double mhz : probe_mhz) {
    if (!std::isfinite(mhz) || mhz < rule.hold_share * reference_mhz) break;
    if (sm_clock_max_mhz && *sm_clock_max_mhz > 0 && mhz < rule.floor_share * *sm_clock_max_mhz)
      break;
    ++kept;
  }
  return kept;
}

bool burst_ramped(double probe_mhz, std::optional<double> sm_clock_max_mhz,
                  const BurstHoldRule& rule) {
  if (!sm_clock_max_mhz || *sm_clock_max_mhz <= 0) return true;
  return probe_mhz >= rule.floor_share * *sm_clock_max_mhz;
}

std::string burst_not_held_reason(size_t kept, int min_samples, size_t discarded,
                                  std::optional<double> probe_first_mhz,
                                  std::optional<double> probe_min_mhz) {
  std::string clocks;
  if (probe_first_mhz && probe_min_mhz)
    clocks = fmt::format("; SM clock {:.0f} MHz after the ramp, down to {:.0f} MHz",
                         *probe_first_mhz, *probe_min_mhz);
  return fmt::format("burst not held: kept {} of the {} samples asked, {} discarded{}", kept,
                     min_samples, discarded, clocks);
}

}  // namespace gemmbench
