// One row of a group while the group runs: its record, its launch, and what its blocks, windows
// and energy window gathered. The regimes' samplers fill it, the epilogue reads it. No CUDA here,
// so that the epilogue's decisions are host-tested (tests/host/test_group_epilogue.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "report/result.hpp"
#include "runner/baselines.hpp"

namespace gemmbench {

// The energy window's launches, timed by events; the counter arithmetic comes after the
// telemetry thread stops.
struct EnergyRun {
  double t_begin = 0, t_end = 0;  // sampler clock
  double gpu_s = 0;
  int64_t launches = 0;
  bool ran = false;
};

// The launch is empty once the row cannot take part: skipped, or an error.
struct Member {
  CaseResult r;
  GroupRole role = GroupRole::kernel;
  std::function<void()> launch;
  bool c_row_major = false;     // the kernel writes C row-major (KernelInfo::c_row_major)
  std::string nvtx_name;        // the row's NVTX range (runner/nvtx_range.hpp)
  std::vector<double> samples;  // timed, ms, in the order taken
  std::vector<double> block_medians;
  std::vector<int> tags;            // telemetry tags of its timed blocks / kept batches
  std::vector<int> discarded_tags;  // burst: of its discarded batches
  double gpu_s = 0;                 // GPU time of its kept samples
  double settle_s = 0;
  int settles = 0;
  EnergyRun energy;
  // What the row is where its name does not say it all (an FP8 grouped case's cublas row: a
  // cuBLASLt loop): added to its reason once it has its figures (finish_row).
  std::string note;
};

// Adds `note` to the row's reason, after what is there.
inline void append_note(CaseResult& r, const std::string& note) {
  if (note.empty()) return;
  r.reason += (r.reason.empty() ? "" : "; ") + note;
}

}  // namespace gemmbench
