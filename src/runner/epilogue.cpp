#include "runner/epilogue.hpp"

#include <fmt/format.h>

#include "core/interrupt.hpp"
#include "stats/regime.hpp"
#include "stats/stats.hpp"
#include "verify/tolerance.hpp"

namespace gemmbench {

namespace {

// The blocks and settles a row took (sustained; zero and absent in a burst).
void record_blocks(Member& m) {
  RegimeStats& rs = m.r.regime;
  rs.blocks = int(m.block_medians.size());
  if (m.settles) rs.settle_mean_s = m.settle_s / m.settles;
  rs.block_spread_pct = block_spread_pct(m.block_medians);
}

// Why a row has no sample: the run ended before its first one.
std::string unsampled_reason(const RunSummary& summary) {
  return summary.aborted    ? "not run: " + summary.abort_reason
         : stop_requested() ? std::string(kInterruptedReason)
                            : std::string("not run: no sample within max_time");
}

// ok, or failed with the reason, by the row's verification.
void set_verdict(CaseResult& r, const MeasureSettings& s) {
  if (!s.verify) {
    r.status = Status::ok;
    r.reason = "not verified";
  } else if (verification_passed(r.error)) {
    r.status = Status::ok;
  } else {
    r.status = Status::failed;
    r.reason = failure_reason(r.error);
  }
}

}  // namespace

std::string failure_reason(const ErrorStats& e) {
  return e.nonfinite ? std::to_string(e.nonfinite) + " non-finite elements (unwritten or overflow)"
                     : "normwise error above tolerance";
}

std::string not_steady_reason(const RegimeStats& rs) {
  std::string out = "sustained not held: the group's event times did not settle";
  if (rs.precondition_s) out += fmt::format(" in {:.1f} s", *rs.precondition_s);
  std::string seen;
  if (rs.precondition_spread_pct)
    seen = fmt::format("last windows {:.1f}% apart", *rs.precondition_spread_pct);
  if (rs.precondition_span_s && rs.precondition_span_spread_pct && rs.precondition_span_trend_pct)
    seen += fmt::format("{}{:g} s spans {:.1f}% apart, {:+.1f}% first to last",
                        seen.empty() ? "" : "; ", *rs.precondition_span_s,
                        *rs.precondition_span_spread_pct, *rs.precondition_span_trend_pct);
  if (!seen.empty()) out += " (" + seen + ")";
  return out;
}

void take_time(Member& m) {
  if (m.samples.empty() || !m.r.regime.held) return;
  m.r.time = summarize(m.samples);
}

GroupBaselines baseline_medians(const std::vector<Member*>& timed, bool lt_is_cublas) {
  GroupBaselines b;
  for (const Member* m : timed) {
    const CaseResult& r = m->r;
    if (!r.time || r.status == Status::error) continue;
    if (m->role == GroupRole::cublas) b.cublas_ms = r.time->median_ms;
    if (m->role == GroupRole::cublaslt) b.cublaslt_ms = r.time->median_ms;
    if (m->role == GroupRole::cublas_grouped) b.cublas_grouped_ms = r.time->median_ms;
  }
  if (lt_is_cublas) b.cublaslt_ms = b.cublas_ms;
  return b;
}

void finish_row(Member& m, const ProblemGroup& g, const GroupBaselines& b,
                const RunSummary& summary, const std::optional<CublasLtChoice>* lt_algo) {
  CaseResult& r = m.r;
  const MeasureSettings& s = g.measure;
  if (r.status == Status::error) return;
  record_blocks(m);
  if (m.samples.empty()) {
    // A burst whose every batch ran under its clock floor (a board at its power cap from the first
    // launch) kept nothing: its sampler's note says so, with the clocks it saw; the row ran.
    if (s.regime == Regime::burst && !r.regime.held && r.regime.batches_discarded > 0) {
      r.status = Status::not_held;
      return;
    }
    r.status = Status::error;
    r.reason = unsampled_reason(summary);
    return;
  }
  if (!r.regime.held) {
    r.status = Status::not_held;
    if (s.regime == Regime::sustained) append_note(r, not_steady_reason(r.regime));
    append_note(r, m.note);
    return;
  }
  if (s.keep_samples) r.samples_ms = m.samples;
  r.tflops = g.problem.flops() / (r.time->median_ms * 1e-3) / 1e12;
  apply_baselines(r, m.role, s.baseline, b);
  if (m.role == GroupRole::kernel && lt_algo) r.cublaslt_algo = *lt_algo;
  set_verdict(r, s);
  append_note(r, m.note);
  if (stop_requested())
    append_note(r, "sampling interrupted after " + std::to_string(r.time->samples) + " samples");
}

}  // namespace gemmbench
