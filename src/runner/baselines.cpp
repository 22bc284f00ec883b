#include "runner/baselines.hpp"

#include <stdexcept>

#include "stats/stats.hpp"

namespace gemmbench {

std::vector<std::function<void()>> BaselineSet::launches(
    const std::function<void()>& own, const std::function<void()>& cublas_launch,
    const std::function<void()>& cublaslt_launch) const {
  std::vector<std::function<void()>> out = {own};
  if (cublas) out.push_back(cublas_launch);
  if (cublaslt) out.push_back(cublaslt_launch);
  return out;
}

void record_baselines(CaseResult& r, const BaselineSet& b,
                      const std::vector<std::vector<double>>& times) {
  const size_t expected = 1 + (b.cublas ? 1 : 0) + (b.cublaslt ? 1 : 0);
  if (times.size() != expected)
    throw std::logic_error("record_baselines: " + std::to_string(times.size()) +
                           " sample sets for " + std::to_string(expected) + " providers");
  const double own = summarize(times[0]).median_ms;
  size_t i = 1;
  if (b.cublas) {
    r.cublas_median_ms = summarize(times[i++]).median_ms;
    r.ratio_to_cublas = *r.cublas_median_ms / own;
  }
  if (b.cublaslt) {
    r.cublaslt_median_ms = summarize(times[i++]).median_ms;
    r.ratio_to_cublaslt = *r.cublaslt_median_ms / own;
  }
}

CaseResult as_cublaslt_row(CaseResult r) {
  r.kernel = r.provider = r.family = "cublaslt";
  return r;
}

}  // namespace gemmbench
