#include "stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gemmbench {

double percentile(std::vector<double> values, double q) {
  if (values.empty()) throw std::invalid_argument("percentile of an empty sample set");
  if (q < 0 || q > 100) throw std::invalid_argument("percentile outside [0, 100]");
  std::sort(values.begin(), values.end());
  const double rank = q / 100.0 * double(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = rank - double(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

TimingStats summarize(const std::vector<double>& s) {
  if (s.empty()) throw std::invalid_argument("no timing samples");
  TimingStats t;
  t.samples = int(s.size());
  t.median_ms = percentile(s, 50);
  t.p10_ms = percentile(s, 10);
  t.p90_ms = percentile(s, 90);
  t.min_ms = *std::min_element(s.begin(), s.end());
  t.mean_ms = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
  if (s.size() > 1) {
    double ss = 0;
    for (double x : s) ss += (x - t.mean_ms) * (x - t.mean_ms);
    t.stdev_ms = std::sqrt(ss / double(s.size() - 1));
  }
  return t;
}

}  // namespace gemmbench
