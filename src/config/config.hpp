// JSON sweep configs (schema in README.md, "Configs"). Parsing validates everything — keys,
// types, ranges, names of layouts and dtypes — before any GPU work, and reports the first problem
// as one UsageError naming the file, the key path and what was expected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/spec.hpp"

namespace gemmbench {

struct SweepConfig {
  std::string description;
  std::optional<uint64_t> seed;
  std::vector<RunSpec> runs;
};

SweepConfig parse_config_text(const std::string& text, const std::string& source);
SweepConfig load_config_file(const std::string& path);

}  // namespace gemmbench
