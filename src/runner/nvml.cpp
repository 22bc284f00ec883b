#include "runner/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <type_traits>

namespace gemmbench {

namespace {
using nvml_return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using nvml_device = void*;
constexpr int kNvmlClockSm = 1;         // NVML_CLOCK_SM
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

struct ReasonName {
  unsigned long long bit;
  const char* name;
};
constexpr ReasonName kReasons[] = {
    {0x2, "app_clocks"},      {0x4, "sw_power_cap"},     {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},     {0x20, "sw_thermal"},      {0x40, "hw_thermal"},
    {0x80, "hw_power_brake"}, {0x100, "display_clocks"},
};
}  // namespace

struct Nvml::Fns {
  nvml_return (*init)();
  nvml_return (*shutdown)();
  nvml_return (*by_pci)(const char*, nvml_device*);
  nvml_return (*clock)(nvml_device, int, unsigned*);
  nvml_return (*max_clock)(nvml_device, int, unsigned*);
  nvml_return (*power)(nvml_device, unsigned*);
  nvml_return (*temperature)(nvml_device, int, unsigned*);
  nvml_return (*reasons)(nvml_device, unsigned long long*);
  nvml_return (*driver)(char*, unsigned);
};

Nvml::Nvml(const std::string& pci_bus_id) {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) return;
  auto f = new Fns{};
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib_, name));
    return fn != nullptr;
  };
  bool ok =
      sym(f->init, "nvmlInit_v2") && sym(f->shutdown, "nvmlShutdown") &&
      sym(f->by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
      sym(f->clock, "nvmlDeviceGetClockInfo") && sym(f->max_clock, "nvmlDeviceGetMaxClockInfo") &&
      sym(f->power, "nvmlDeviceGetPowerUsage") && sym(f->temperature, "nvmlDeviceGetTemperature") &&
      sym(f->driver, "nvmlSystemGetDriverVersion");
  if (!sym(f->reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
    sym(f->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (!ok || f->init() != 0) {
    delete f;
    dlclose(lib_);
    lib_ = nullptr;
    return;
  }
  fns_ = f;
  nvml_device dev = nullptr;
  if (fns_->by_pci(pci_bus_id.c_str(), &dev) == 0) device_ = dev;
}

Nvml::~Nvml() {
  if (fns_) {
    fns_->shutdown();
    delete fns_;
  }
  if (lib_) dlclose(lib_);
}

std::optional<std::string> Nvml::driver_version() const {
  if (!fns_) return std::nullopt;
  char buf[96] = {};
  if (fns_->driver(buf, sizeof(buf)) != 0) return std::nullopt;
  return std::string(buf);
}

std::optional<unsigned> Nvml::max_sm_clock_mhz() const {
  unsigned v = 0;
  if (!device_ || fns_->max_clock(device_, kNvmlClockSm, &v) != 0) return std::nullopt;
  return v;
}

void Nvml::sample(ClockStats& c) const {
  if (!device_) return;
  unsigned v = 0;
  if (fns_->clock(device_, kNvmlClockSm, &v) == 0)
    c.sm_clock_mhz = c.sm_clock_mhz ? std::min(*c.sm_clock_mhz, v) : v;
  if (!c.sm_clock_max_mhz) c.sm_clock_max_mhz = max_sm_clock_mhz();
  if (fns_->power(device_, &v) == 0) {
    const double w = v / 1000.0;
    c.power_w = c.power_w ? std::max(*c.power_w, w) : w;
  }
  if (fns_->temperature(device_, kNvmlTemperatureGpu, &v) == 0)
    c.temperature_c = c.temperature_c ? std::max(*c.temperature_c, v) : v;
  unsigned long long reasons = 0;
  if (fns_->reasons && fns_->reasons(device_, &reasons) == 0) {
    for (const auto& r : kReasons) {
      if (!(reasons & r.bit)) continue;  // GPU-idle (0x1) is not listed: we sample after a sync
      if (c.throttle_reasons.find(r.name) != std::string::npos) continue;
      c.throttle_reasons += (c.throttle_reasons.empty() ? "" : "|") + std::string(r.name);
    }
  }
}

void Nvml::finish(ClockStats& c) {
  c.throttled = c.sm_clock_mhz && c.sm_clock_max_mhz && *c.sm_clock_max_mhz > 0 &&
                double(*c.sm_clock_mhz) < 0.8 * double(*c.sm_clock_max_mhz);
}

}  // namespace gemmbench
