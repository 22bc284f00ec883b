#include "stats/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace gemmbench {

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("Mann-Whitney U of an empty sample");
  const double n1 = double(x.size()), n2 = double(y.size()), n = n1 + n2;
  // Pool (value, from x), sort, and give each run of equal values its mid-rank.
  std::vector<std::pair<double, bool>> pooled;
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, tie_term = 0;  // tie_term: sum over tie groups of t^3 - t
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = double(j - i);
    const double mid_rank = (double(i + 1) + double(j)) / 2;  // ranks i+1 .. j
    for (size_t q = i; q < j; ++q)
      if (pooled[q].second) rank_sum_x += mid_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  MannWhitneyResult r;
  r.u = rank_sum_x - n1 * (n1 + 1) / 2;
  r.effect = r.u / (n1 * n2);
  const double mean = n1 * n2 / 2;
  const double var = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(var > 0)) return r;  // every value tied: no evidence of a shift
  r.z = std::max(0.0, std::abs(r.u - mean) - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(r.z / std::sqrt(2.0)));
  return r;
}

}  // namespace gemmbench
