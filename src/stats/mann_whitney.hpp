// Mann-Whitney U (Wilcoxon rank-sum) test of two independent samples, normal approximation with
// tie correction and continuity correction: the test scipy.stats.mannwhitneyu runs with
// method="asymptotic" (its default for samples this large). `gemmbench compare` uses it when both
// reports kept their per-sample times (--keep-samples).
#pragma once

#include <vector>

namespace gemmbench {

struct MannWhitneyResult {
  double u = 0;        // U of the first sample: pairs (x, y) with x > y, plus half the ties
  double z = 0;        // standardized |U - n1*n2/2|, after the continuity correction (>= 0)
  double p_value = 1;  // two-sided
  // Probability that a value of the first sample exceeds one of the second (ties count half):
  // U / (n1*n2). 0.5 means no shift; above 0.5 the first sample is larger (slower, for times).
  double effect = 0.5;
};

// Throws std::invalid_argument when either sample is empty. p is 1 when every value is tied.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace gemmbench
