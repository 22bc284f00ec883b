// Shared by the GPU suites: device detection and the visible skip.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/reporter.hpp"

namespace gemmbench::testing {

// Empty when a device is usable, else the reason (shown in the SKIPPED line).
inline std::string no_gpu_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  if (n == 0) return "no CUDA device";
  return {};
}

// A reporter that keeps every row the runner hands it, for the suites that run plans.
class CollectRows : public Reporter {
 public:
  void begin(const RunMetadata&) override {}
  void add(const CaseResult& r) override { rows.push_back(r); }
  void end(const RunSummary&) override {}
  std::vector<CaseResult> rows;
};

}  // namespace gemmbench::testing

#define GEMMBENCH_REQUIRE_GPU()                                                   \
  do {                                                                            \
    const std::string gb_reason_ = ::gemmbench::testing::no_gpu_reason();         \
    if (!gb_reason_.empty()) GTEST_SKIP() << gb_reason_ << " (GPU test skipped)"; \
  } while (0)
