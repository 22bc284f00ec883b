// The sustained regime (docs/regimes.md, "Sustained"): one steady state per group, reached on the
// first provider's own loop (preconditioning), then every provider alone in blocks, rounds of
// them forward then backward, each block opened by an untimed settle of the provider's own loop.
// The stopping rules (SteadyDetector, round_schedule, block_timed_seconds) are stats/regime.hpp.
#pragma once

#include "runner/sampling.hpp"

namespace gemmbench {

// A RegimeSampler: sets each member's samples, block medians, tags and settles, and the
// preconditioning fields of its regime.
void sample_sustained(GroupSampling& run);

}  // namespace gemmbench
