// JSON sweep configs (schema in README.md, "Configs"). Parsing validates everything — keys,
// types, ranges, names of layouts and dtypes — before any GPU work, and reports the first problem
// as one UsageError naming the file, the key path and what was expected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/shard.hpp"
#include "plan/spec.hpp"
#include "plugin/source.hpp"

namespace gemmbench {

struct SweepConfig {
  std::string description;
  std::optional<uint64_t> seed;
  std::vector<RunSpec> runs;
  // How the config runs on several GPUs (docs/multi-gpu.md); --devices, --mode and
  // --outlier-threshold override them. "devices": "all", "0,1,3" or [0, 1, 3].
  std::optional<DevicesArg> devices;
  std::optional<FleetMode> mode;                // "mode": "shard" or "replicate"
  std::optional<double> outlier_threshold_pct;  // "outlier_threshold_pct": > 0
  // "plugins": libraries whose kernels the runs may name (docs/plugins.md), relative paths
  // resolved against the config file's folder.
  std::vector<PluginSource> plugins;
};

SweepConfig parse_config_text(const std::string& text, const std::string& source);
SweepConfig load_config_file(const std::string& path);

}  // namespace gemmbench
