// What a group's baselines put on its rows. No CUDA here: the runner hands in the baseline rows'
// medians. Every kernel row divides by the very figure its group's cublas (cublaslt) row prints,
// so a report agrees with itself (docs/method.md, "One figure per baseline").
#pragma once

#include <optional>

#include "report/result.hpp"

namespace gemmbench {

// The medians of a group's baseline rows, where they were measured and held their regime.
// A grouped case's cublas figure is the faster of cuBLAS's two ways (plan.hpp,
// has_grouped_api_row): the per-group loop's median (the cublas row) and the grouped API's (the
// cublas_grouped row).
struct GroupBaselines {
  std::optional<double> cublas_ms;
  std::optional<double> cublaslt_ms;
  std::optional<double> cublas_grouped_ms;
};

// Which row of the group `r` is.
enum class GroupRole { cublas, cublaslt, kernel, cublas_grouped };

// The ways CaseResult::baseline_way names. An FP8 grouped case has one way, cuBLASLt's loop
// (cuBLAS has no grouped FP8 GEMM).
inline constexpr const char* kWayLoop = "cublas per-group loop";
inline constexpr const char* kWayGroupedApi = "cublas grouped API";
inline constexpr const char* kWayLtLoop = "cublaslt per-group loop";

// Sets cublas_median_ms / ratio_to_cublas and cublaslt_median_ms / ratio_to_cublaslt on `r`
// (timed: r.time set) from the group's baselines, as `baseline` selects: a kernel row takes the
// baselines its setting names; the cublaslt row takes the cublas figure; the cublas row none.
// Grouped: the cublas_grouped row takes the loop's figure (how the API fares against the loop);
// a kernel row the faster way's, named in baseline_way (FP8: the cuBLASLt loop's, kWayLtLoop).
void apply_baselines(CaseResult& r, GroupRole role, Baseline baseline, const GroupBaselines& g);

// The cuBLASLt baseline's row: `r` (a cublas row of the group) renamed kernel, provider and
// family "cublaslt".
CaseResult as_cublaslt_row(CaseResult r);

// A grouped case's cuBLAS grouped-API row: `r` (its cublas row) renamed kernel
// "cublas_grouped" (plan.hpp, kGroupedApiKernel), provider and family "cublas".
CaseResult as_grouped_api_row(CaseResult r);

}  // namespace gemmbench
