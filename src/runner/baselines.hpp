// What a group's baselines put on its rows. No CUDA here: the runner hands in the baseline rows'
// medians. Every kernel row divides by the very figure its group's cublas (cublaslt) row prints,
// so a report agrees with itself (docs/method.md, "One figure per baseline").
#pragma once

#include <optional>

#include "report/result.hpp"

namespace gemmbench {

// The medians of a group's baseline rows, where they were measured and held their regime.
struct GroupBaselines {
  std::optional<double> cublas_ms;
  std::optional<double> cublaslt_ms;
};

// Which row of the group `r` is.
enum class GroupRole { cublas, cublaslt, kernel };

// Sets cublas_median_ms / ratio_to_cublas and cublaslt_median_ms / ratio_to_cublaslt on `r`
// (timed: r.time set) from the group's baselines, as `baseline` selects: a kernel row takes the
// baselines its setting names; the cublaslt row takes the cublas figure; the cublas row none.
void apply_baselines(CaseResult& r, GroupRole role, Baseline baseline, const GroupBaselines& g);

// The cuBLASLt baseline's row: `r` (a cublas row of the group) renamed kernel, provider and
// family "cublaslt".
CaseResult as_cublaslt_row(CaseResult r);

}  // namespace gemmbench
