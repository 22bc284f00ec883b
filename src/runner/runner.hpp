// The runner: allocates and initialises each problem's operands on the device, computes its fp64
// reference, verifies and times the cuBLAS baseline and every kernel, and hands each finished
// row to a Reporter. It never formats text.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "core/registry.hpp"
#include "report/reporter.hpp"
#include "report/result.hpp"

namespace gemmbench {

struct Progress {
  size_t row;    // 1-based row about to run
  size_t total;  // rows in the plan
  const ProblemGroup* group;
  std::string kernel;
};
using ProgressFn = std::function<void(const Progress&)>;

class Runner {
 public:
  // Selects the device and creates the stream, cuBLAS handle and L2 flush buffer. Throws
  // NoDeviceError when there is no usable device or driver, UsageError for a bad index.
  Runner(int device, uint64_t seed);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  const DeviceMetadata& device() const { return meta_; }
  const DeviceCaps& caps() const { return caps_; }

  // How rows are timed, as reports record it: written beside the code that does it.
  static std::string timing_method();

  // Device memory a group allocates (operands, C copy, fp64 reference).
  static size_t bytes_needed(const ProblemGroup& g);
  size_t free_bytes() const;

  // Runs every row of the plan, in order. Returns the summary; rows already reported stay valid
  // when a sticky CUDA error ends the run (summary.aborted).
  RunSummary run(const Plan& plan, Reporter& out, const ProgressFn& progress);

 private:
  struct Impl;
  // A row of group `g` as planned, before it runs (kernel == nullptr: the cublas row).
  CaseResult base_row(const ProblemGroup& g, const KernelInfo* k) const;
  // Sets up, verifies and samples one group; its rows in plan order. `at` names the provider
  // about to run (progress).
  std::vector<CaseResult> run_group(const ProblemGroup& g, RunSummary& summary,
                                    const std::function<void(const std::string&)>& at);
  std::unique_ptr<Impl> impl_;
  DeviceMetadata meta_;
  DeviceCaps caps_;
};

}  // namespace gemmbench
