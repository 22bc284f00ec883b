// After a group's sampling: each provider's energy window (docs/regimes.md, "Energy"), and each
// row's telemetry figures from the readings of its own timed blocks or kept batches, with its
// energy from the NVML energy counter over its window.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "runner/sampling.hpp"

namespace gemmbench {

// Launches in the energy window for a provider whose median launch takes `median_s`.
int64_t energy_launches(double median_s);

// One energy window per member still running with samples, while NVML is there and no stop was
// asked; a CUDA error escapes to the caller.
void run_energy_windows(SamplingContext& ctx, const std::vector<Member*>& members);

// The row's clock, power and throttle figures, its discarded batches' clock (burst), and its
// energy, from the group's telemetry `readings`.
void fill_telemetry(const SamplingContext& ctx, Member& m,
                    const std::vector<TelemetrySample>& readings);

}  // namespace gemmbench
