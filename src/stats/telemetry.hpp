// Telemetry that belongs to a row: NVML readings taken by a background thread while the row's own
// work runs, and the pure arithmetic over them (median clock, mean power, the throttle class, the
// energy counter's edges, the burst regime's gates). Host-only: the runner gathers the samples,
// this file decides what they say, and host tests feed it synthetic samples. docs/regimes.md has
// the rules in prose.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gemmbench {

// NVML clock-event reason bits (nvmlClocksEventReason*; the same values as the older
// nvmlClocksThrottleReason* names).
namespace clock_reason {
inline constexpr uint64_t gpu_idle = 0x1;
inline constexpr uint64_t app_clocks = 0x2;
inline constexpr uint64_t sw_power_cap = 0x4;
inline constexpr uint64_t hw_slowdown = 0x8;
inline constexpr uint64_t sync_boost = 0x10;
inline constexpr uint64_t sw_thermal = 0x20;
inline constexpr uint64_t hw_thermal = 0x40;
inline constexpr uint64_t hw_power_brake = 0x80;
inline constexpr uint64_t display_clocks = 0x100;
inline constexpr uint64_t thermal = sw_thermal | hw_thermal;
inline constexpr uint64_t hardware = hw_slowdown | hw_power_brake;
}  // namespace clock_reason

// The reasons in `bits` by name, '|'-separated, in bit order; gpu_idle is never listed.
std::string clock_reason_names(uint64_t bits);

// What held the clock down during a row. power_cap (sw_power_cap alone) is the normal state of a
// tensor-core GEMM under sustained load; thermal and hw_slowdown are faults (cooling, power
// brake, hardware protection) that a result must not be quoted under.
enum class Throttle { none, power_cap, thermal, hw_slowdown };
const char* to_string(Throttle t);
std::optional<Throttle> parse_throttle(std::string_view s);
inline bool is_fault(Throttle t) {
  return t == Throttle::thermal || t == Throttle::hw_slowdown;
}
// The most serious class present in `reasons`: hw_slowdown (hw_slowdown, hw_power_brake) over
// thermal (sw_thermal, hw_thermal) over power_cap (sw_power_cap) over none.
Throttle classify_throttle(uint64_t reasons);

// What the sampler was doing when a reading was taken; only `timed` readings describe the row.
enum class TelemetryPhase { warmup, timed, idle, energy };

struct TelemetrySample {
  double t_s = 0;  // host seconds since the sampler started
  TelemetryPhase phase = TelemetryPhase::timed;
  int pair = -1;  // the tag of the block (sustained) or batch (burst) running, -1 between them
  std::optional<unsigned> sm_clock_mhz;
  std::optional<double> power_w;  // instantaneous where NVML offers it, else its (averaged) usage
  std::optional<unsigned> temperature_c;
  std::optional<uint64_t> reasons;    // clock-event reason bits
  std::optional<uint64_t> energy_mj;  // total energy counter (Volta+), millijoules
};

// A reading counts "at the cap" when sw_power_cap is active or power >= this share of the limit.
inline constexpr double kAtCapPowerShare = 0.97;
// Whether a reading can tell (reasons or power against a known limit), and whether it is at the
// cap.
bool cap_known(const TelemetrySample& s, std::optional<double> power_limit_w);
bool at_power_cap(const TelemetrySample& s, std::optional<double> power_limit_w);

struct TelemetrySummary {
  size_t samples = 0;
  std::optional<unsigned> sm_clock_min_mhz, sm_clock_median_mhz;
  std::optional<double> power_mean_w, power_max_w;
  std::optional<unsigned> temperature_max_c;
  uint64_t reasons = 0;  // OR of every reading's reasons, gpu_idle removed
  Throttle throttle = Throttle::none;
  std::optional<double> at_cap_share;  // share of readings at the cap (needs reasons or a limit)
};

// Aggregates readings (the caller selects which). The median of an even count is the lower
// middle value (a clock that was really seen). Readings missing a field are left out of that
// field's figure only.
TelemetrySummary summarize_telemetry(const std::vector<TelemetrySample>& samples,
                                     std::optional<double> power_limit_w);

// The readings of `phase`, leaving out those tagged with a pair in `discarded_pairs`.
std::vector<TelemetrySample> select_telemetry(const std::vector<TelemetrySample>& samples,
                                              TelemetryPhase phase,
                                              const std::vector<int>& discarded_pairs = {});

// The readings of `phase` tagged with one of `tags` (a row's own blocks or batches).
std::vector<TelemetrySample> select_tagged(const std::vector<TelemetrySample>& samples,
                                           TelemetryPhase phase, const std::vector<int>& tags);

// Mean power from the energy counter over [t_begin, t_end], a window during which the GPU ran
// one provider back to back. NVML refreshes the counter every 10-100 ms, so a plain difference
// of two reads is off by up to one refresh at each end; instead the estimate spans from the first
// refresh seen after t_begin to the last seen before t_end (both refreshes located by the reading
// whose value changed), so both ends carry the same lag and only the sampling period remains as
// error at each end.
struct CounterEnergy {
  double joules = 0;   // counter difference between the two refreshes
  double seconds = 0;  // host time between them
  double power_w = 0;  // joules / seconds
  double t_first = 0;  // the span, host seconds (for selecting the matching power readings)
  double t_last = 0;
  int refreshes = 0;  // counter refreshes inside the span, both ends included
};
// Absent when fewer than two refreshes fall inside the window or the counter is missing.
std::optional<CounterEnergy> energy_from_counter(const std::vector<TelemetrySample>& samples,
                                                 double t_begin, double t_end);

// The burst regime's gates (docs/regimes.md; what a window keeps: stats/regime.hpp). A window may
// start when the board is cool: power below `ready_power_share` of the limit and no power-cap or
// fault reason active.
struct BurstRule {
  double ready_power_share = 0.5;
  double wait_timeout_s = 5.0;  // waiting longer starts the window anyway (counted)
  // Before each window the providers are launched untimed for at least this long: a board that
  // cooled also dropped its clocks, and one launch does not ramp them.
  double ramp_s = 0.05;
  // A window lasts at most this long even while the clock holds; then the board cools again.
  double window_s = 0.2;
};
bool burst_ready(const TelemetrySample& s, std::optional<double> power_limit_w,
                 const BurstRule& rule);

}  // namespace gemmbench
