#include "compare/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/stats.hpp"

namespace gemmbench::compare {

namespace {

using nlohmann::json;

double median_of(std::vector<double> v) {
  return v.empty() ? std::nan("") : percentile(std::move(v), 50);
}

// "SM clock 1755 MHz, 690 W": medians over the timed rows of their lowest clock and highest
// power, so one glance says which regime a run was in.
std::string telemetry(const Report& r) {
  std::vector<double> clock, power;
  for (const ReportRow& row : r.rows) {
    if (!row.result.time) continue;
    if (row.result.clock.sm_clock_mhz) clock.push_back(*row.result.clock.sm_clock_mhz);
    if (row.result.clock.power_w) power.push_back(*row.result.clock.power_w);
  }
  std::string out;
  if (!clock.empty()) out += fmt::format("SM clock {:.0f} MHz", median_of(clock));
  if (!power.empty())
    out += fmt::format("{}board power {:.0f} W", out.empty() ? "" : ", ", median_of(power));
  return out.empty() ? "no clock or power readings" : out + " (medians over timed rows)";
}

std::string cache_modes(const Report& r) {
  std::vector<std::string> seen;
  for (const ReportRow& row : r.rows) {
    const std::string c = to_string(row.result.measure.cache);
    if (std::find(seen.begin(), seen.end(), c) == seen.end()) seen.push_back(c);
  }
  std::string out;
  for (const auto& c : seen) out += (out.empty() ? "" : ",") + c;
  return out;
}

double half_spread_pct(const TimingStats& t) {
  return t.median_ms > 0 ? 50.0 * (t.p90_ms - t.p10_ms) / t.median_ms : 0.0;
}

bool ok_or_unverified(Status s) {
  return s == Status::ok;
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "SLOWER";
    case Verdict::same:
      return "same";
    case Verdict::newly_failed:
      return "FAILED";
    case Verdict::untimed:
      return "-";
  }
  return "?";
}

const char* to_string(Method m) {
  switch (m) {
    case Method::samples:
      return "rank test";
    case Method::quantiles:
      return "quantiles";
    case Method::none:
      return "-";
  }
  return "?";
}

CaseComparison compare_rows(const ReportRow& base, const ReportRow& now, const Options& opt) {
  CaseComparison c;
  c.key = base.key;
  c.label = base.label;
  const CaseResult& b = base.result;
  const CaseResult& n = now.result;
  c.base_status = b.status;
  c.new_status = n.status;
  c.base_ratio = b.ratio_to_cublas;
  c.new_ratio = n.ratio_to_cublas;
  if (c.base_ratio && c.new_ratio && *c.base_ratio > 0)
    c.ratio_change_pct = 100.0 * (*c.new_ratio - *c.base_ratio) / *c.base_ratio;
  if (b.time) {
    c.base_median_ms = b.time->median_ms;
    c.base_noise_pct = half_spread_pct(*b.time);
  }
  if (n.time) {
    c.new_median_ms = n.time->median_ms;
    c.new_noise_pct = half_spread_pct(*n.time);
  }
  const bool newly_failed =
      ok_or_unverified(b.status) && (n.status == Status::failed || n.status == Status::error);
  if (!ok_or_unverified(b.status) && n.status == Status::ok)
    c.note = fmt::format("{} in BASE, ok in NEW", to_string(b.status));
  if (!b.time || !n.time || b.time->median_ms <= 0) {
    c.verdict = newly_failed ? Verdict::newly_failed : Verdict::untimed;
    if (c.note.empty() && !newly_failed)
      c.note = fmt::format("not timed in {}", !b.time && !n.time ? "either"
                                              : !b.time          ? "BASE"
                                                                 : "NEW");
    if (newly_failed) c.note = n.reason.empty() ? "FAILED in NEW" : n.reason;
    return c;
  }
  const TimingStats& tb = *b.time;
  const TimingStats& tn = *n.time;
  c.change_pct = 100.0 * (tn.median_ms - tb.median_ms) / tb.median_ms;
  const bool slower = *c.change_pct > 0;
  bool outside_noise = false;
  if (!b.samples_ms.empty() && !n.samples_ms.empty()) {
    c.method = Method::samples;
    const MannWhitneyResult mw = mann_whitney_u(n.samples_ms, b.samples_ms);
    c.p_value = mw.p_value;
    // The rank test and the medians must agree on the direction.
    outside_noise = mw.p_value < opt.significance && (mw.effect > 0.5) == slower;
  } else {
    c.method = Method::quantiles;
    // Each median must lie beyond the other run's p10-p90 band, on the side of the change.
    outside_noise = slower ? (tn.median_ms > tb.p90_ms && tb.median_ms < tn.p10_ms)
                           : (tn.median_ms < tb.p10_ms && tb.median_ms > tn.p90_ms);
  }
  const bool beyond_threshold = std::abs(*c.change_pct) > opt.threshold_pct;
  if (outside_noise && beyond_threshold)
    c.verdict = slower ? Verdict::slower : Verdict::faster;
  else
    c.verdict = Verdict::same;
  if (newly_failed) {
    c.verdict = Verdict::newly_failed;
    c.note = n.reason.empty() ? "FAILED in NEW" : n.reason;
  } else if (c.verdict == Verdict::same && beyond_threshold && c.note.empty()) {
    c.note = "beyond the threshold but within the noise";
  }
  return c;
}

std::vector<MetaDifference> compare_metadata(const json& base, const json& now) {
  const json empty = json::object();
  const json& bd = base.contains("device") ? base.at("device") : empty;
  const json& nd = now.contains("device") ? now.at("device") : empty;
  auto gpu = [](const json& d) {
    std::string s = json_text_at(d, "name");
    if (d.contains("num_sms")) s += fmt::format(" ({} SMs)", d.at("num_sms").dump());
    return s;
  };
  auto regime = [](const json& m) {
    const std::string r = json_text_at(m, "regime");
    return r.empty() ? std::string("sustained") : r;
  };
  auto power_limit = [](const json& m, const json& d) {
    for (const json* j : {&m, &d})
      for (const char* key : {"power_limit_w", "enforced_power_limit_w"})
        if (j->is_object() && j->contains(key)) return json_text_at(*j, key) + " W";
    return std::string();
  };
  struct Field {
    const char* name;
    std::string b, n;
    const char* warning;
  };
  const std::vector<Field> fields = {
      {"GPU", gpu(bd), gpu(nd),
       "another GPU: absolute times are not comparable; read the ratio to cuBLAS"},
      {"driver", json_text_at(bd, "driver_version"), json_text_at(nd, "driver_version"), ""},
      {"CUDA runtime", json_text_at(bd, "cuda_runtime"), json_text_at(nd, "cuda_runtime"), ""},
      {"cuBLAS", json_text_at(bd, "cublas_version"), json_text_at(nd, "cublas_version"),
       "the baseline changed, so ratios to cuBLAS move with it"},
      {"max SM clock (MHz)", json_text_at(bd, "sm_clock_max_mhz"),
       json_text_at(nd, "sm_clock_max_mhz"), ""},
      {"memory clock (MHz)", json_text_at(bd, "memory_clock_mhz"),
       json_text_at(nd, "memory_clock_mhz"), ""},
      {"power limit", power_limit(base, bd), power_limit(now, nd), ""},
      {"regime", regime(base), regime(now),
       "another power regime: absolute times are not comparable (docs/compare.md); rows of "
       "different regimes never match"},
      {"data", json_text_at(base, "data_distribution"), json_text_at(now, "data_distribution"),
       "another input distribution: low-entropy data runs faster on a power-capped GPU, absolute "
       "times are not comparable"},
      {"seed", json_text_at(base, "seed"), json_text_at(now, "seed"), ""},
      {"git commit", json_text_at(base, "git_commit"), json_text_at(now, "git_commit"), ""},
      {"tool version", json_text_at(base, "tool_version"), json_text_at(now, "tool_version"), ""},
      {"command line", json_text_at(base, "command_line"), json_text_at(now, "command_line"), ""},
      {"host", json_text_at(base, "host"), json_text_at(now, "host"), ""},
  };
  std::vector<MetaDifference> out;
  for (const Field& f : fields) {
    if (f.b == f.n) continue;
    out.push_back({f.name, f.b.empty() ? "(none)" : f.b, f.n.empty() ? "(none)" : f.n, f.warning});
  }
  return out;
}

Comparison compare_reports(const Report& base, const Report& now, const Options& opt) {
  Comparison c;
  c.base_path = base.path;
  c.new_path = now.path;
  c.base_metadata = base.metadata;
  c.new_metadata = now.metadata;
  c.base_telemetry = telemetry(base);
  c.new_telemetry = telemetry(now);
  c.options = opt;
  c.metadata = compare_metadata(base.metadata, now.metadata);
  const std::string cb = cache_modes(base), cn = cache_modes(now);
  if (cb != cn) c.metadata.push_back({"cache", cb, cn, ""});
  for (const MetaDifference& d : c.metadata) {
    if (!d.warning.empty())
      c.warnings.push_back(
          fmt::format("{} differs ({} vs {}): {}", d.field, d.base_value, d.new_value, d.warning));
  }
  for (const Report* r : {&base, &now})
    if (!r->complete)
      c.warnings.push_back(r->path + ": incomplete report (the run was interrupted)");

  std::map<std::string, size_t> in_new;
  for (size_t i = 0; i < now.rows.size(); ++i) in_new[now.rows[i].key] = i;
  std::vector<bool> matched(now.rows.size(), false);
  for (const ReportRow& b : base.rows) {
    const auto it = in_new.find(b.key);
    if (it == in_new.end()) {
      c.only_base.push_back(b.label + " (" + to_string(b.result.status) + ")");
      continue;
    }
    matched[it->second] = true;
    CaseComparison cc = compare_rows(b, now.rows[it->second], opt);
    switch (cc.verdict) {
      case Verdict::faster:
        ++c.faster;
        break;
      case Verdict::slower:
        ++c.slower;
        break;
      case Verdict::same:
        ++c.same;
        break;
      case Verdict::newly_failed:
        ++c.newly_failed;
        break;
      case Verdict::untimed:
        ++c.untimed;
        break;
    }
    if (cc.method == Method::samples) ++c.with_samples;
    if (cc.method == Method::quantiles) ++c.with_quantiles;
    c.cases.push_back(std::move(cc));
  }
  for (size_t i = 0; i < now.rows.size(); ++i)
    if (!matched[i])
      c.only_new.push_back(now.rows[i].label + " (" + to_string(now.rows[i].result.status) + ")");
  if (c.cases.empty()) c.warnings.push_back("no case appears in both reports");
  return c;
}

int exit_code(const Comparison& c) {
  return c.slower > 0 || c.newly_failed > 0 ? kExitFailedVerification : kExitOk;
}

}  // namespace gemmbench::compare
