// The burst regime (docs/regimes.md, "Burst"): windows from a cool board, each opened by a ramp of
// the clocks, of interleaved samples (A B ... A B ...) in batches, a clock probe after each batch;
// batches are kept while the clock holds. The hold and ramp rules are stats/regime.hpp, the cool
// board's stats/telemetry.hpp (BurstRule).
#pragma once

#include "runner/sampling.hpp"

namespace gemmbench {

// A RegimeSampler: sets each member's samples and kept / discarded tags, and the windows,
// batches and probes of its regime. A CUDA error fails every member (their launches interleave).
void sample_burst(GroupSampling& run);

}  // namespace gemmbench
