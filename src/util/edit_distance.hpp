// The "did you mean" of every input check: unknown kernel names (plan) and unknown config keys
// (config) are matched to the closest known one by this distance.
#pragma once

#include <cstddef>
#include <string>

namespace gemmbench {

// Levenshtein distance: the fewest single-character insertions, deletions and substitutions
// that turn `a` into `b`.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace gemmbench
