// `gemmbench --devices ...` from the parent's side: whether the run needs worker processes at
// all, and, where it does, checking the devices and outputs, planning (--dry-run) or starting the
// workers through run_fleet (fleet/orchestrate.hpp). Host-only: the device count comes in as a
// function (src/device counts with the CUDA driver and creates no context), so that this parent
// never opens a GPU and every GPU stays its worker's alone. docs/multi-gpu.md, "--devices".
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "plan/shard.hpp"

namespace gemmbench::fleet {

// True when the run is a fleet: --mode replicate, --devices all, or more than one device listed.
// One device listed runs in this process, as --device would.
bool needs_workers(const std::optional<DevicesArg>& devices, FleetMode mode);

struct FleetLaunch {
  DevicesArg devices;
  FleetMode mode = FleetMode::shard;
  double outlier_threshold_pct = kDefaultOutlierThresholdPct;
  std::string json, csv, markdown;  // the outputs as typed: {host} expanded here, {rank} refused
  bool quiet = false;
  bool dry_run = false;               // list each worker's part and the plan; start nothing
  std::vector<std::string> argv;      // the parent's command line (workers get its arguments)
  std::function<int()> device_count;  // the visible CUDA devices; not called on a dry run
};

// Runs (or, dry, lists) the fleet over `whole`, the plan before any shard split. Returns the exit
// code (run_fleet's). Throws UsageError for a device index the machine does not have, an output
// path with {rank} or one that cannot be written, or a parts folder that cannot be made.
int launch_fleet(const FleetLaunch& launch, const Plan& whole, std::ostream& out);

}  // namespace gemmbench::fleet
