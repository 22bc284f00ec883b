#include "runner/baselines.hpp"

#include "plan/plan.hpp"

namespace gemmbench {

void apply_baselines(CaseResult& r, GroupRole role, Baseline baseline, const GroupBaselines& g) {
  if (!r.time || r.time->median_ms <= 0 || role == GroupRole::cublas) return;
  const double own = r.time->median_ms;
  if (role == GroupRole::cublas_grouped) {
    if (g.cublas_ms) r.cublas_median_ms = g.cublas_ms, r.ratio_to_cublas = *g.cublas_ms / own;
    return;
  }
  // The cublas figure: the faster of the grouped case's two ways where both were timed.
  std::optional<double> cublas = g.cublas_ms;
  const char* way = is_fp8(r.problem.dtype) ? kWayLtLoop : kWayLoop;
  if (g.cublas_grouped_ms && (!cublas || *g.cublas_grouped_ms < *cublas))
    cublas = g.cublas_grouped_ms, way = kWayGroupedApi;
  if (cublas && (role == GroupRole::cublaslt || uses_cublas(baseline))) {
    r.cublas_median_ms = cublas;
    r.ratio_to_cublas = *cublas / own;
    if (r.grouped && role == GroupRole::kernel) r.baseline_way = way;
  }
  if (g.cublaslt_ms && role == GroupRole::kernel && uses_cublaslt(baseline)) {
    r.cublaslt_median_ms = g.cublaslt_ms;
    r.ratio_to_cublaslt = *g.cublaslt_ms / own;
  }
}

CaseResult as_cublaslt_row(CaseResult r) {
  r.kernel = r.provider = r.family = "cublaslt";
  return r;
}

CaseResult as_grouped_api_row(CaseResult r) {
  r.kernel = kGroupedApiKernel;
  r.provider = r.family = "cublas";
  return r;
}

}  // namespace gemmbench
