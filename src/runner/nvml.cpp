#include "runner/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <type_traits>
#include <vector>

namespace gemmbench {

namespace {
using nvml_return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using nvml_device = void*;
constexpr int kNvmlClockSm = 1;         // NVML_CLOCK_SM
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

constexpr unsigned kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT (mW)

// nvmlFieldValue_t, laid out as nvml.h declares it (the header is not needed at build time).
struct FieldValue {
  unsigned field_id;
  unsigned scope_id;
  long long timestamp;
  long long latency_usec;
  int value_type;  // nvmlValueType_t: 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint
  nvml_return ret;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
  } value;
};
std::vector<std::string> split_reasons(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t bar = s.find('|', pos);
    if (bar == std::string::npos) bar = s.size();
    if (bar > pos) out.push_back(s.substr(pos, bar - pos));
    pos = bar + 1;
  }
  return out;
}
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
  nvml_return (*power_limit)(nvml_device, unsigned*);          // optional
  nvml_return (*energy)(nvml_device, unsigned long long*);     // optional (Volta+)
  nvml_return (*field_values)(nvml_device, int, FieldValue*);  // optional
  nvml_return (*serial)(nvml_device, char*, unsigned);         // optional
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
  sym(f->power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  sym(f->energy, "nvmlDeviceGetTotalEnergyConsumption");
  sym(f->field_values, "nvmlDeviceGetFieldValues");
  sym(f->serial, "nvmlDeviceGetSerial");
  if (!ok || f->init() != 0) {
    delete f;
    dlclose(lib_);
    lib_ = nullptr;
    return;
  }
  fns_ = f;
  nvml_device dev = nullptr;
  if (fns_->by_pci(pci_bus_id.c_str(), &dev) == 0) device_ = dev;
  if (device_ && fns_->field_values) {
    FieldValue v{};
    v.field_id = kFieldPowerInstant;
    instant_power_ = fns_->field_values(device_, 1, &v) == 0 && v.ret == 0;
  }
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

std::optional<double> Nvml::power_limit_w() const {
  unsigned mw = 0;
  if (!device_ || !fns_->power_limit || fns_->power_limit(device_, &mw) != 0) return std::nullopt;
  return mw / 1000.0;
}

std::optional<std::string> Nvml::serial() const {
  char buf[64] = {};  // NVML_DEVICE_SERIAL_BUFFER_SIZE is 30
  if (!device_ || !fns_->serial || fns_->serial(device_, buf, sizeof(buf)) != 0 || !buf[0])
    return std::nullopt;
  return std::string(buf);
}

bool Nvml::instant_power() const {
  return instant_power_;
}

TelemetrySample Nvml::read() const {
  TelemetrySample s;
  if (!device_) return s;
  unsigned v = 0;
  if (fns_->clock(device_, kNvmlClockSm, &v) == 0) s.sm_clock_mhz = v;
  if (instant_power_) {
    FieldValue f{};
    f.field_id = kFieldPowerInstant;
    if (fns_->field_values(device_, 1, &f) == 0 && f.ret == 0) {
      switch (f.value_type) {
        case 0:
          s.power_w = f.value.d / 1000.0;
          break;
        case 1:
          s.power_w = f.value.ui / 1000.0;
          break;
        case 2:
          s.power_w = double(f.value.ul) / 1000.0;
          break;
        case 3:
          s.power_w = double(f.value.ull) / 1000.0;
          break;
        default:
          break;
      }
    }
  }
  if (!s.power_w && fns_->power(device_, &v) == 0) s.power_w = v / 1000.0;
  if (fns_->temperature(device_, kNvmlTemperatureGpu, &v) == 0) s.temperature_c = v;
  unsigned long long bits = 0;
  if (fns_->reasons && fns_->reasons(device_, &bits) == 0) s.reasons = bits;
  unsigned long long mj = 0;
  if (fns_->energy && fns_->energy(device_, &mj) == 0) s.energy_mj = mj;
  return s;
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
    // GPU-idle (0x1) is not listed: we sample after a sync.
    for (const std::string& name : split_reasons(clock_reason_names(reasons))) {
      if (c.throttle_reasons.find(name) != std::string::npos) continue;
      c.throttle_reasons += (c.throttle_reasons.empty() ? "" : "|") + name;
    }
  }
}

void Nvml::finish(ClockStats& c) {
  uint64_t bits = 0;
  for (const std::string& name : split_reasons(c.throttle_reasons))
    for (uint64_t b = 1; b <= clock_reason::display_clocks; b <<= 1)
      if (clock_reason_names(b) == name) bits |= b;
  c.throttle = classify_throttle(bits);
  c.throttled = c.sm_clock_mhz && c.sm_clock_max_mhz && *c.sm_clock_max_mhz > 0 &&
                double(*c.sm_clock_mhz) < 0.8 * double(*c.sm_clock_max_mhz);
}

}  // namespace gemmbench
