// What the regimes' samplers share (docs/regimes.md): the device side they drive (the stream and
// its events, the L2 flush, the clock probe, NVML and the telemetry thread), the group under
// measurement, the one interface a regime's sampler has, and the enqueueing of timed samples.
// Each regime lives in its own file: sample_sustained.cpp, sample_burst.cpp; the energy windows
// that follow either one in energy.cpp. The arithmetic that decides what the times and probes
// say is host code in stats/regime.hpp.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "plan/plan.hpp"
#include "report/result.hpp"
#include "runner/clock_probe.hpp"
#include "runner/l2_flush.hpp"
#include "runner/member.hpp"
#include "runner/nvml.hpp"
#include "runner/operands.hpp"
#include "runner/telemetry_sampler.hpp"

namespace gemmbench {

// Telemetry thread period while a group runs (the energy windows use a finer one, energy.hpp).
inline constexpr auto kTelemetryPeriod = std::chrono::milliseconds(10);

// The device side of sampling, one per runner.
struct SamplingContext {
  // Creates the stream last, after the flush buffer, the probe and NVML.
  SamplingContext(size_t l2_bytes, const std::string& pci);
  ~SamplingContext();
  SamplingContext(const SamplingContext&) = delete;
  SamplingContext& operator=(const SamplingContext&) = delete;

  cudaStream_t stream = nullptr;
  L2Flush flush;  // run before every cold sample: evicts the operands, leaves L2 clean
  ClockProbe probe;
  Nvml nvml;
  TelemetrySampler sampler;  // declared after nvml: it reads through it
  std::optional<double> power_limit_w;
  std::optional<unsigned> sm_clock_max_mhz;
  std::vector<cudaEvent_t> events;
  // When the last sustained group ended, its energy windows included (a later group within
  // kCarryGapS re-settles instead of preconditioning in full); set and reset by the runner's
  // mainloop only, read by sample_sustained.
  std::optional<std::chrono::steady_clock::time_point> sustained_end;

  // Event `i`, created on first use.
  cudaEvent_t event(size_t i);
};

// Reports the member whose block is about to run (progress).
using MemberProgress = std::function<void(const Member&)>;

// One group under measurement, as a regime's sampler gets it: `members` are its verified rows,
// in plan order.
struct GroupSampling {
  SamplingContext& ctx;
  const ProblemGroup& g;
  GroupData& d;
  std::vector<Member*>& members;
  RunSummary& summary;
  const MemberProgress& progress;
};

// A regime's sampler: fills each member's samples, tags and regime fields; a CUDA error makes the
// member(s) it hit an error row (fail_member) and may end the run (summary.aborted).
using RegimeSampler = void (*)(GroupSampling& run);

// A CUDA error while a member ran: the row is an error; a lost context ends the run.
void fail_member(Member& m, const CudaError& e, RunSummary& summary);

// Outside the timed window of every sample: restore C (beta != 0), flush L2 (cold).
void prepare_sample(SamplingContext& ctx, const GemmProblem& p, const MeasureSettings& s,
                    GroupData& d);

// `count` samples of each launch in `step`, enqueued step after step (A B ... A B ...) with
// nothing between them but each sample's preparation, then synchronized once. Returns the
// event times, ms, [launch][sample].
std::vector<std::vector<double>> run_steps(SamplingContext& ctx, const ProblemGroup& g,
                                           GroupData& d, const std::vector<const Member*>& step,
                                           size_t count);

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

inline double sum_seconds(const std::vector<double>& ms) {
  return std::accumulate(ms.begin(), ms.end(), 0.0) * 1e-3;
}

}  // namespace gemmbench
