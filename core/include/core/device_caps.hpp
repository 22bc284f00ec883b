// What a kernel may ask of the device it runs on (DeviceCaps), and the current device's caps,
// asked once per device and kept. Ground layer: the registry's supports() and the dispatch rules
// read it; the runner fills it once per run.
#pragma once

#include <cstddef>
#include <optional>

namespace gemmbench {

// What the runner knows about the device when it asks a kernel whether it can run a case.
struct DeviceCaps {
  int sm = 0;  // 10 * major + minor, e.g. 90 for H100
  int num_sms = 0;
  size_t smem_per_block_optin = 0;  // bytes, after cudaFuncSetAttribute
  size_t l2_bytes = 0;
  // DRAM bandwidth from the datasheet (memory clock x bus width x 2, DDR), GB/s; 0 when unknown.
  // The rule table reads it where one rule does not carry from the H100 to the H200.
  double dram_gbs = 0;
};

// The current device's caps, asked once per device and kept: for launchers that must decide
// what to run (dispatchers) without a query on the timed path.
DeviceCaps current_device_caps();

// DRAM bandwidth from the datasheet: memory clock x bus width x 2 (DDR), in GB/s (1e9 B/s); absent
// when either is unknown (0).
std::optional<double> datasheet_bandwidth_gbs(int memory_clock_mhz, int memory_bus_bits);

}  // namespace gemmbench
