// The arithmetic of the two regimes (docs/method.md, docs/regimes.md), host-only so that host tests
// feed it synthetic readings: when a board is at steady state (sustained), the order in which a
// group's providers take their blocks, and how much of a burst window kept its clock. The runner
// gathers the event times and clock probes; this file decides what they say.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gemmbench {

// ---- Sustained: steady state ----
// A loop is at steady state once it has run at least `min_s` and either test below holds; it gives
// up at `max_s`: the loop did not settle, and the caller says so.
//
// Short windows: the medians of its last `windows` windows (each about `window_s` of work) agree
// within `tolerance` ((max - min) / min). This sees a clock still falling fast, but it cannot
// tell a trend from a swing: at the power cap the power controller swings the SM clock over
// about a second, so windows of 0.1 s catch different phases of it and stay a few percent apart
// on a board that is as steady as it gets (issue 52: an FP8 group ended not_held, "last windows
// 4.4% apart", while its two 1 s timed blocks agreed within 0.05%). Nor is it a test of slow
// drift: three windows span 0.2 s, so a quiet board drifting below about 5%/s passes it.
//
// Long spans (off where `span_s` is 0): the last `spans` consecutive spans of at least `span_s`
// of windows each (means weighted by window duration) agree within `tolerance`, and the last
// span's mean is within `span_trend` of the first's. A span of a whole swing averages it away
// (the timed blocks at the cap are 1 s for the same reason, kCapBlockS); the second condition
// is the drift test: a board still heating shows its span means moving one way, and the net
// change across the spans is bounded, not only their spread. Where history allows, longer spans
// (span_s times 1.5, 2, 2.5, ...) are tried too, the shortest that holds deciding: a swing slower
// than a span leaves a residue of up to its amplitude in the span means, a longer span averages
// it, and the same `span_trend` over a longer stretch is a tighter bound on drift per second.
struct SteadyRule {
  double min_s;
  double max_s;
  double window_s;
  double tolerance;
  int windows;
  double span_s = 0;
  int spans = 3;
  double span_trend = 0;
};
// Before a group's first timed block: longer than the board's power-averaging window (about a
// second on an H100), then until the event times agree within about 1%: three 0.1 s windows, or
// three spans of 1 s (a power-controller swing; three, the fewest that show a trend rather than a
// difference) whose means are within 1% and whose first and last are within 0.5%: a drift under
// 0.25%/s between span centres 2 s apart, which moves a 1 s block by 0.25% and which the blocks'
// A B B A order cancels to first order. A swing's residue in the span means loosens that: in
// scripts/dev/steady_sweep.cpp the spans let through climbs up to 0.5%/s under swings of 1 s or
// faster, up to 2%/s under slower ones (1.3-2 s) at some phase, where the windows alone let
// through 3%/s; on a quiet board the windows let through 5%/s. Three 1 s spans after a transient
// of a second or so decide by about 4 s for a swing of a second or faster, by 6.6 s for slower
// ones, inside the 8 s bound.
inline constexpr SteadyRule kPreconditionRule{1.0, 8.0, 0.1, 0.01, 3, 1.0, 3, 0.005};
// A group that starts within kCarryGapS of the previous sustained group's end (its last timed
// block, or the energy windows after it, which run the board too) finds the board at (or near) a
// steady state already: its preconditioning is a short re-settle, the same tests from a minimum
// of kResettleRule.min_s instead of a second. The first group of a run,
// and any group after a pause (a long verification, another process), precondition in full. What
// the re-settle trades: the power-averaging window (about a second) still holds some of the
// previous group's power for the first half second; the blocks' own settles and their A B B A
// order take the rest, as they do between the providers of one group.
inline constexpr double kCarryGapS = 2.0;
inline constexpr SteadyRule kResettleRule{0.5, 8.0, 0.1, 0.01, 3, 1.0, 3, 0.005};
// The preconditioning rule for a group that starts `idle_s` after the previous sustained group's
// last timed block (absent: the run's first sustained group).
const SteadyRule& precondition_rule(std::optional<double> idle_s);
// At the start of every block, the provider that takes over runs untimed until its own times
// settle: the clock moves towards the new provider's equilibrium for several hundred ms at the
// power cap, and not at all on a memory-bound shape. No span test: spans of a swing cannot fit
// in 1.5 s, and at the cap the bound, longer than the power-averaging window, is the right end
// (the board has moved to the new provider's equilibrium by then; a settle's end changes no row).
inline constexpr SteadyRule kSettleRule{0.15, 1.5, 0.05, 0.005, 3};

enum class SteadyEnd { agreed, bound, interrupted };
const char* to_string(SteadyEnd e);
// Which test found the loop steady.
enum class SteadyTest { windows, spans };
const char* to_string(SteadyTest t);

// The long-span test at one span length.
struct SpanVerdict {
  double span_s = 0;  // the span length asked (each span is at least this long)
  double spread = 0;  // (max - min) / min of the span means
  double trend = 0;   // (last - first) / min of the span means: positive while times grow
  bool steady = false;
};

class SteadyDetector {
 public:
  explicit SteadyDetector(const SteadyRule& rule) : rule_(rule) {}
  // One window's median event time (ms) and the seconds since the loop started, in order.
  void add(double window_median_ms, double elapsed_s);
  // Absent while the loop must go on.
  std::optional<SteadyEnd> done() const;
  // The spread of the test that decided: the span means' when the spans found the loop steady,
  // else the last `windows` medians' (window_spread); absent before there is one.
  std::optional<double> spread() const;
  // (max - min) / min of the last `windows` medians; absent before there are that many.
  std::optional<double> window_spread() const;
  // The long-span test now: the shortest span length that holds, else the one at `span_s`;
  // absent while the history is shorter than `spans` x `span_s` (or the rule has no spans).
  std::optional<SpanVerdict> spans() const;
  // The test that holds now (the windows' first); absent before `min_s` or while neither holds.
  std::optional<SteadyTest> decided_by() const;
  double elapsed_s() const { return elapsed_; }
  size_t windows_seen() const { return medians_.size(); }

 private:
  std::optional<SpanVerdict> spans_of(double span_s) const;
  SteadyRule rule_;
  std::vector<double> medians_;
  std::vector<double> ends_;  // elapsed_s at the end of each window
  double elapsed_ = 0;
};

// ---- Sustained: blocks ----
// The order in which a group's providers take their blocks in one round: forward, then backward
// (A B B A for two, A B C C B A for three), so that a drift linear in time weighs every provider
// alike.
std::vector<size_t> round_schedule(size_t providers);

// The timed part of one block: at least `block_time_s` of GPU time, but a row whose whole
// sample budget is smaller (min_time_s over the two blocks of a round) takes that instead, and
// never less than one launch. A group whose preconditioning found the board at its power cap
// takes at least kCapBlockS: at the cap the clock swings with the power controller over about a
// second, and blocks of a quarter second caught different phases of it (on the H100 at
// 4096x57344x8192, two blocks of one provider 13% apart; configs/dev/numbers_agree.json).
inline constexpr double kCapBlockS = 1.0;
double block_timed_seconds(double block_time_s, double min_time_s, bool at_cap = false);

// Settle time when the user did not set it: a quarter of the block, within [0.15, 1] s.
double default_settle_seconds(double block_time_s);

// (max - min) / min of a row's block medians, in percent; absent with fewer than two blocks.
std::optional<double> block_spread_pct(const std::vector<double>& block_medians_ms);

// ---- Burst: did the clock hold? ----
// A window starts on a cool board after a ramp; a clock probe (a kernel that counts SM cycles
// against the global timer) runs after each batch of samples. The window's reference clock is the
// probe after the ramp. A batch is kept while its probe holds `hold_share` of the reference and,
// where the device's maximum clock is known, `floor_share` of that maximum; the first batch that
// fails ends the window, and it and everything after it are discarded.
struct BurstHoldRule {
  double hold_share = 0.97;
  double floor_share = 0.9;
};
// Batches kept from the front of `probe_mhz` (one per batch, in order).
size_t burst_batches_kept(const std::vector<double>& probe_mhz, double reference_mhz,
                          std::optional<double> sm_clock_max_mhz, const BurstHoldRule& rule);
// The ramp is done when the probe reaches floor_share of the maximum (or, with no maximum known,
// at once: the ramp time alone decides).
bool burst_ramped(double probe_mhz, std::optional<double> sm_clock_max_mhz,
                  const BurstHoldRule& rule);
// A burst row holds when it kept at least `min_samples` samples; otherwise its figure is not a
// burst figure. The text says what was seen.
std::string burst_not_held_reason(size_t kept, int min_samples, size_t discarded,
                                  std::optional<double> probe_first_mhz,
                                  std::optional<double> probe_min_mhz);

}  // namespace gemmbench
