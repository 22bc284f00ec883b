#include "runner/baselines.hpp"

namespace gemmbench {

void apply_baselines(CaseResult& r, GroupRole role, Baseline baseline, const GroupBaselines& g) {
  if (!r.time || r.time->median_ms <= 0 || role == GroupRole::cublas) return;
  const double own = r.time->median_ms;
  if (g.cublas_ms && (role == GroupRole::cublaslt || uses_cublas(baseline))) {
    r.cublas_median_ms = g.cublas_ms;
    r.ratio_to_cublas = *g.cublas_ms / own;
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

}  // namespace gemmbench
