// Groupings for the grouped GPU suites (test_grouped_gpu, test_grouped_kernel_gpu): the rows of
// each group, in the contiguous layout (each group padded to `align`) or the masked one, and the
// problem a grouped case states.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/grouping.hpp"
#include "core/types.hpp"

namespace gemmbench {

inline Grouping contiguous(std::vector<int64_t> m, int64_t align) {
  Grouping g;
  g.m = std::move(m);
  g.layout = GroupLayout::contiguous;
  g.align = align;
  return g;
}

inline Grouping masked(std::vector<int64_t> m, int64_t max_m) {
  Grouping g;
  g.m = std::move(m);
  g.layout = GroupLayout::masked;
  g.max_m = max_m;
  return g;
}

// The TN problem a grouped case states: M = sum(M_g) (the rows computed), N and K shared.
inline GemmProblem grouped_problem(const Grouping& g, int64_t n, int64_t k, DType type, Accum accum,
                                   double alpha, double beta) {
  GemmProblem p;
  p.m = g.total_m();
  p.n = n;
  p.k = k;
  p.layout = Layout::tn;
  p.dtype = type;
  p.accum = accum;
  p.alpha = alpha;
  p.beta = beta;
  return p;
}

}  // namespace gemmbench
