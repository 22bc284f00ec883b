#include "runner/telemetry_sampler.hpp"

#include <algorithm>

namespace gemmbench {

double TelemetrySampler::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

TelemetrySample TelemetrySampler::take() {
  TelemetrySample s = nvml_.read();  // outside the lock: NVML calls take tens of microseconds
  s.t_s = now();
  std::lock_guard<std::mutex> lock(mutex_);
  s.phase = phase_;
  s.pair = pair_;
  samples_.push_back(s);
  return s;
}

void TelemetrySampler::start(TelemetryPhase phase, std::chrono::microseconds period) {
  stop();
  if (!nvml_.available()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    samples_.clear();
    phase_ = phase;
    pair_ = -1;
  }
  t0_ = std::chrono::steady_clock::now();
  period_us_ = period.count();
  take();
  running_ = true;
  thread_ = std::thread([this] { loop(); });
}

void TelemetrySampler::loop() {
  auto next = std::chrono::steady_clock::now();
  while (running_) {
    take();
    next += std::chrono::microseconds(period_us_.load());
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // a slow read: no burst of catch-up readings
    std::this_thread::sleep_until(next);
  }
}

void TelemetrySampler::mark(TelemetryPhase phase, int pair) {
  if (!running_) return;
  take();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    phase_ = phase;
    pair_ = pair;
  }
  take();
}

void TelemetrySampler::set_tag(TelemetryPhase phase, int pair) {
  std::lock_guard<std::mutex> lock(mutex_);
  phase_ = phase;
  pair_ = pair;
}

std::vector<TelemetrySample> TelemetrySampler::stop() {
  if (!running_) return {};
  take();
  running_ = false;
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<TelemetrySample> out = std::move(samples_);
  samples_.clear();
  std::stable_sort(out.begin(), out.end(), [](const TelemetrySample& a, const TelemetrySample& b) {
    return a.t_s < b.t_s;
  });
  return out;
}

}  // namespace gemmbench
