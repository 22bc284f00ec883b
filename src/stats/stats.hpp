// Summary statistics of timing samples.
#pragma once

#include <vector>

namespace gemmbench {

struct TimingStats {
  double median_ms = 0, min_ms = 0, p10_ms = 0, p90_ms = 0, mean_ms = 0, stdev_ms = 0;
  int samples = 0;
};

// Percentile with linear interpolation between closest ranks (numpy's default), q in [0, 100].
double percentile(std::vector<double> values, double q);

// Throws std::invalid_argument on an empty sample set. stdev is the sample standard deviation
// (n - 1), 0 for a single sample.
TimingStats summarize(const std::vector<double>& samples_ms);

}  // namespace gemmbench
