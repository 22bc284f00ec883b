// Which baselines a group's rows are sampled beside, and what their samples put on a row. No
// CUDA here: the runner hands in the launches and the sample times.
#pragma once

#include <functional>
#include <vector>

#include "report/result.hpp"

namespace gemmbench {

struct BaselineSet {
  bool cublas = true;     // the cublasGemmEx call
  bool cublaslt = false;  // the tuned cuBLASLt call (selected, and its tuning found an algorithm)

  // What to sample interleaved (A B C A B C ...): the row's own launch first, then cublas, then
  // cublaslt, each where selected.
  std::vector<std::function<void()>> launches(const std::function<void()>& own,
                                              const std::function<void()>& cublas,
                                              const std::function<void()>& cublaslt) const;
};

// Sets cublas_median_ms and ratio_to_cublas, cublaslt_median_ms and ratio_to_cublaslt (each where
// selected) from `times`, ordered as launches() ordered them; times[0] is the row's own.
void record_baselines(CaseResult& r, const BaselineSet& b,
                      const std::vector<std::vector<double>>& times);

// The cuBLASLt baseline's row: `r` (a cublas row of the group) renamed kernel, provider and
// family "cublaslt".
CaseResult as_cublaslt_row(CaseResult r);

}  // namespace gemmbench
