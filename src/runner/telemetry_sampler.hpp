// A background thread that reads NVML every few milliseconds while a row's work runs, so that a
// row's clock, power and temperature are those of its own samples
// (docs/contributing.md#power-regime: a reading that lags the work is worse than none). The runner
// tags each phase (warm-up, timed, idle, energy window); stats/telemetry.hpp turns the readings
// into figures.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "runner/nvml.hpp"
#include "stats/telemetry.hpp"

namespace gemmbench {

class TelemetrySampler {
 public:
  explicit TelemetrySampler(const Nvml& nvml) : nvml_(nvml) {}
  ~TelemetrySampler() { stop(); }
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  // Clears the readings, reads once, and starts the thread (nothing without NVML).
  void start(TelemetryPhase phase, std::chrono::microseconds period);
  // Reads once under the current tag, switches the tag, reads once under the new one: every
  // phase has a reading at each end however short it is.
  void mark(TelemetryPhase phase, int pair = -1);
  // Switches the tag without a reading (the burst regime's batches: a reading taken while the
  // board idles between batches must not count as the batch's).
  void set_tag(TelemetryPhase phase, int pair = -1);
  void set_period(std::chrono::microseconds period) { period_us_ = period.count(); }
  // Host seconds since start(), on the readings' clock.
  double now() const;
  // Stops the thread (reading once more) and returns every reading in time order.
  std::vector<TelemetrySample> stop();

 private:
  void loop();
  TelemetrySample take();

  const Nvml& nvml_;
  std::thread thread_;
  std::mutex mutex_;  // guards samples_ and the tag
  std::vector<TelemetrySample> samples_;
  TelemetryPhase phase_ = TelemetryPhase::timed;
  int pair_ = -1;
  std::atomic<bool> running_{false};
  std::atomic<long long> period_us_{10000};
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

}  // namespace gemmbench
