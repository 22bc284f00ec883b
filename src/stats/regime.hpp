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
// A loop is at steady state once it has run at least `min_s` and the medians of its last
// `windows` windows (each about `window_s` of work) agree within `tolerance` ((max - min) / min).
// It gives up at `max_s`: the loop did not settle, and the caller says so.
struct SteadyRule {
  double min_s;
  double max_s;
  double window_s;
  double tolerance;
  int windows;
};
// Before a group's first timed block: longer than the board's power-averaging window (about a
// second on an H100), then until the event times agree within about 1%.
inline constexpr SteadyRule kPreconditionRule{1.0, 8.0, 0.1, 0.01, 3};
// At the start of every block, the provider that takes over runs untimed until its own times
// settle: the clock moves towards the new provider's equilibrium for several hundred ms at the
// power cap, and not at all on a memory-bound shape.
inline constexpr SteadyRule kSettleRule{0.15, 1.5, 0.05, 0.005, 3};

enum class SteadyEnd { agreed, bound, interrupted };
const char* to_string(SteadyEnd e);

class SteadyDetector {
 public:
  explicit SteadyDetector(const SteadyRule& rule) : rule_(rule) {}
  // One window's median event time (ms) and the seconds since the loop started, in order.
  void add(double window_median_ms, double elapsed_s);
  // Absent while the loop must go on.
  std::optional<SteadyEnd> done() const;
  // (max - min) / min of the last `windows` medians; absent before there are that many.
  std::optional<double> spread() const;
  double elapsed_s() const { return elapsed_; }
  size_t windows_seen() const { return medians_.size(); }

 private:
  SteadyRule rule_;
  std::vector<double> medians_;
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
