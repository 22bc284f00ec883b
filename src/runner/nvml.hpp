// NVML, loaded at run time (dlopen), for SM clock, power and temperature around each row. Where
// the library or the device is missing every reading is absent and rows say "n/a".
#pragma once

#include <optional>
#include <string>

#include "report/result.hpp"
#include "stats/telemetry.hpp"

namespace gemmbench {

class Nvml {
 public:
  explicit Nvml(const std::string& pci_bus_id);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const { return device_ != nullptr; }
  std::optional<std::string> driver_version() const;
  std::optional<unsigned> max_sm_clock_mhz() const;
  // The board's serial number (nvmlDeviceGetSerial); absent where the board or driver has none
  // (NVML_ERROR_NOT_SUPPORTED on many boards outside data-center SKUs).
  std::optional<std::string> serial() const;

  // Enforced board power limit (nvmlDeviceGetEnforcedPowerLimit).
  std::optional<double> power_limit_w() const;
  // One reading of everything the telemetry thread records: SM clock, power (instantaneous via
  // nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT) where the driver has it, else
  // nvmlDeviceGetPowerUsage, which Ampere and later average over about a second), temperature,
  // clock-event reasons and the total energy counter. Thread-safe (NVML is); t_s, phase and pair
  // are the caller's to set.
  TelemetrySample read() const;
  // True when read() reports instantaneous power.
  bool instant_power() const;

  // Accumulates readings into `c`: min SM clock, max power and temperature, OR of the clock-event
  // reasons (idle excluded). Cheap enough to call after every sample.
  void sample(ClockStats& c) const;
  // Sets c.throttled and c.throttle from the readings gathered.
  static void finish(ClockStats& c);

 private:
  void* lib_ = nullptr;
  void* device_ = nullptr;
  struct Fns;
  Fns* fns_ = nullptr;
  bool instant_power_ = false;
};

}  // namespace gemmbench
