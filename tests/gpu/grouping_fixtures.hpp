// Groupings for the grouped GPU suites (test_grouped_gpu, test_grouped_kernel_gpu): the rows of
// each group, in the contiguous layout (each group padded to `align`) or the masked one.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/grouping.hpp"

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

}  // namespace gemmbench
