// Opening a CUDA device and describing it: one implementation behind the benchmark runner and
// `gemmbench inspect`, so both say the same thing about a missing driver or a bad --device.
#pragma once

#include <string>

#include "core/registry.hpp"
#include "report/result.hpp"

namespace gemmbench {

struct OpenedDevice {
  DeviceMetadata meta;  // driver_version is the CUDA driver API's until NVML refines it
  DeviceCaps caps;
};

// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies), at least 1. Throws
// NoDeviceError as open_device does when there is none or no usable driver.
int cuda_device_count(const std::string& purpose = "gemmbench needs a GPU");

// Selects device `index` and reads what reports record about it. Throws NoDeviceError when no
// device or driver is usable (`purpose` says what needed one: "inspect mma-peak runs on a GPU"),
// UsageError for an index past the last device.
OpenedDevice open_device(int index, const std::string& purpose = "gemmbench needs a GPU");

}  // namespace gemmbench
