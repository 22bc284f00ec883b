#include "runner/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "device/buffer.hpp"
#include "device/open.hpp"
#include "runner/baselines.hpp"
#include "runner/clock_probe.hpp"
#include "runner/cublas_gemm.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "runner/l2_flush.hpp"
#include "runner/nvml.hpp"
#include "runner/nvtx_range.hpp"
#include "runner/telemetry_sampler.hpp"
#include "sol/sol.hpp"
#include "stats/regime.hpp"
#include "stats/telemetry.hpp"
#include "verify/device_verify.hpp"

namespace gemmbench {

namespace {

// Tensor ids of the seeded data: A, B and the initial C never share a random stream.
constexpr uint64_t kTensorA = 0, kTensorB = 1, kTensorC = 2;
// Stop sampling a provider after this many samples whatever the time settings say.
constexpr size_t kMaxSamples = 1000000;
// Samples enqueued before one synchronization: about this much GPU time, at most kMaxBatch.
constexpr double kBatchGpuS = 0.01;
constexpr size_t kMaxBatch = 256;

// Telemetry thread period while a group runs, and a finer one in the energy windows, where the
// counter's refreshes must be located in time (docs/regimes.md).
constexpr auto kTelemetryPeriod = std::chrono::milliseconds(10);
constexpr auto kEnergyTelemetryPeriod = std::chrono::milliseconds(2);
// Energy window: one provider back to back for at least kEnergyWindowS of GPU time (and at least
// kEnergyMinLaunches launches where that stays under kEnergyLongWindowS); counter refreshes in
// its first kEnergySettleS are ignored, so the counter's own lag cannot reach back before it.
constexpr double kEnergyWindowS = 0.6;
constexpr double kEnergySettleS = 0.1;
constexpr double kEnergyLongWindowS = 2.0;
constexpr int64_t kEnergyMinLaunches = 20;
constexpr int64_t kEnergyMaxLaunches = 1000000;
// Burst: batches of up to this many interleaved steps between two clock probes, and the longest
// ramp before a window gives up waiting for the clock to reach its floor.
constexpr size_t kBurstBatch = 8;
constexpr double kBurstRampMaxS = 0.5;
// Telemetry tags of the energy windows (member index added), apart from block and batch tags.
constexpr int kEnergyTag = 1 << 24;

struct GroupData {
  DeviceBuffer a, b, c, c0, ref;
  double ref_rms = 0;
  // FP8: the scales of A and B (core/types.hpp's layouts) and the fp64 product of the inputs
  // before quantization, against which each row's quantization error is taken.
  DeviceBuffer scale_a, scale_b, ref_unquantized;
  double ref_unquantized_rms = 0;
  ScalePtrs scales() const { return {scale_a.as<float>(), scale_b.as<float>()}; }
};

// The energy window's launches, timed by events; the counter arithmetic comes after the
// telemetry thread stops.
struct EnergyRun {
  double t_begin = 0, t_end = 0;  // sampler clock
  double gpu_s = 0;
  int64_t launches = 0;
  bool ran = false;
};

// One row of a group while the group runs: its record, its launch (empty once it cannot take
// part: skipped, or an error), and what its blocks or windows gathered.
struct Member {
  CaseResult r;
  std::function<void()> launch;
  bool c_row_major = false;     // the kernel writes C row-major (KernelInfo::c_row_major)
  std::string nvtx_name;        // the row's NVTX range (runner/nvtx_range.hpp)
  std::vector<double> samples;  // timed, ms, in the order taken
  std::vector<double> block_medians;
  std::vector<int> tags;            // telemetry tags of its timed blocks / kept batches
  std::vector<int> discarded_tags;  // burst: of its discarded batches
  double gpu_s = 0;                 // GPU time of its kept samples
  double settle_s = 0;
  int settles = 0;
  EnergyRun energy;
};

void append_note(CaseResult& r, const std::string& note) {
  if (note.empty()) return;
  r.reason += (r.reason.empty() ? "" : "; ") + note;
}

// Launches in the energy window for a provider whose median launch takes `median_s`.
int64_t energy_launches(double median_s) {
  const double t = std::max(median_s, 1e-7);
  const auto by_time = int64_t(std::ceil(kEnergyWindowS / t));
  const auto by_count =
      std::min<int64_t>(kEnergyMinLaunches, int64_t(std::ceil(kEnergyLongWindowS / t)));
  return std::clamp<int64_t>(std::max(by_time, by_count), 1, kEnergyMaxLaunches);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double sum_seconds(const std::vector<double>& ms) {
  return std::accumulate(ms.begin(), ms.end(), 0.0) * 1e-3;
}

// The reason of a row whose group never reached steady state.
std::string not_steady_reason(const RegimeStats& rs) {
  std::string out = "sustained not held: the group's event times did not settle";
  if (rs.precondition_s) out += fmt::format(" in {:.1f} s", *rs.precondition_s);
  if (rs.precondition_spread_pct)
    out += fmt::format(" (last windows {:.1f}% apart)", *rs.precondition_spread_pct);
  return out;
}

// The reason of a row an interrupt stopped before its first sample: such rows are not written.
constexpr const char* kInterruptedReason = "not run: interrupted before its first sample";

// Why a row failed verification, in one wording for every provider.
std::string failure_reason(const ErrorStats& e) {
  return e.nonfinite ? std::to_string(e.nonfinite) + " non-finite elements (unwritten or overflow)"
                     : "normwise error above tolerance";
}

}  // namespace

struct Runner::Impl {
  Impl(int device_, uint64_t seed_, size_t l2_bytes, const std::string& pci)
      : device(device_), seed(seed_), flush(l2_bytes), nvml(pci), sampler(nvml) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~Impl() {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
  }

  int device;
  uint64_t seed;
  cudaStream_t stream = nullptr;
  CublasGemm cublas;
  // Tuned per group when the group's baseline uses it.
  CublasLtGemm cublaslt;
  CublasLtGemm cublas_fp8;  // the baseline of FP8 problems
  L2Flush flush;            // run before every cold sample: evicts the operands, leaves L2 clean
  ClockProbe probe;
  Nvml nvml;
  TelemetrySampler sampler;  // declared after nvml: it reads through it
  std::optional<double> power_limit_w;
  std::optional<unsigned> sm_clock_max_mhz;
  ErrorMeter meter;
  std::vector<cudaEvent_t> events;

  cudaEvent_t event(size_t i) {
    while (events.size() <= i) {
      cudaEvent_t e;
      CUDA_CHECK(cudaEventCreate(&e));
      events.push_back(e);
    }
    return events[i];
  }

  GroupData setup(const ProblemGroup& g) {
    const GemmProblem& p = g.problem;
    if (is_fp8(p.dtype)) return setup_fp8(g);
    const size_t es = dtype_bytes(p.dtype);
    GroupData d;
    d.a = DeviceBuffer(size_t(p.m * p.k) * es);
    d.b = DeviceBuffer(size_t(p.k * p.n) * es);
    d.c = DeviceBuffer(size_t(p.m * p.n) * es);
    const DataDist dist = g.measure.data;
    fill_inputs(d.a.get(), p.dtype, p.m * p.k, seed, kTensorA, dist, stream);
    fill_inputs(d.b.get(), p.dtype, p.k * p.n, seed, kTensorB, dist, stream);
    if (p.beta != 0) {
      d.c0 = DeviceBuffer(size_t(p.m * p.n) * es);
      fill_inputs(d.c0.get(), p.dtype, p.m * p.n, seed, kTensorC, dist, stream);
    }
    if (g.measure.verify) {
      d.ref = DeviceBuffer(size_t(p.m * p.n) * sizeof(double));
      reference_gemm(p, d.a.get(), d.b.get(), d.c0.get(), d.ref.as<double>(), stream);
      d.ref_rms = meter.reference_rms(d.ref.as<double>(), p.m * p.n, stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return d;
  }

  // FP8 inputs as a released model has them: f32 data (the same seeded values as an f32 problem)
  // quantized with the scales of p.scale, computed here from each group's amax.
  GroupData setup_fp8(const ProblemGroup& g) {
    const GemmProblem& p = g.problem;
    const size_t es_out = dtype_bytes(p.out_type());
    const DataDist dist = g.measure.data;
    GroupData d;
    d.c = DeviceBuffer(size_t(p.m * p.n) * es_out);
    if (p.beta != 0) {
      d.c0 = DeviceBuffer(size_t(p.m * p.n) * es_out);
      fill_inputs(d.c0.get(), p.out_type(), p.m * p.n, seed, kTensorC, dist, stream);
    }
    // The reference of the quantization error needs the f32 values, which live only inside.
    const auto unquantized_reference = [&](const float* a32, const float* b32) {
      if (!g.measure.verify) return;
      d.ref_unquantized = DeviceBuffer(size_t(p.m * p.n) * sizeof(double));
      reference_gemm_f32_inputs(p, a32, b32, d.c0.get(), d.ref_unquantized.as<double>(), stream);
    };
    Fp8Inputs in =
        make_fp8_inputs(p, seed, kTensorA, kTensorB, dist, stream, unquantized_reference);
    d.a = std::move(in.a);
    d.b = std::move(in.b);
    d.scale_a = std::move(in.scale_a);
    d.scale_b = std::move(in.scale_b);
    if (g.measure.verify) {
      d.ref = DeviceBuffer(size_t(p.m * p.n) * sizeof(double));
      reference_gemm_fp8(p, d.a.get(), d.scale_a.as<float>(), d.b.get(), d.scale_b.as<float>(),
                         d.c0.get(), d.ref.as<double>(), stream);
      d.ref_rms = meter.reference_rms(d.ref.as<double>(), p.m * p.n, stream);
      d.ref_unquantized_rms =
          meter.reference_rms(d.ref_unquantized.as<double>(), p.m * p.n, stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return d;
  }

  // C before a verified run: NaN poison, or the seeded initial values when beta != 0.
  void prepare_for_verify(const GemmProblem& p, GroupData& d) {
    if (p.beta != 0)
      CUDA_CHECK(
          cudaMemcpyAsync(d.c.get(), d.c0.get(), d.c.bytes(), cudaMemcpyDeviceToDevice, stream));
    else
      fill_nan(d.c.get(), p.out_type(), p.m * p.n, stream);
  }

  // Outside the timed window of every sample: restore C (beta != 0), flush L2 (cold).
  void prepare_sample(const GemmProblem& p, const MeasureSettings& s, GroupData& d) {
    if (p.beta != 0)
      CUDA_CHECK(
          cudaMemcpyAsync(d.c.get(), d.c0.get(), d.c.bytes(), cudaMemcpyDeviceToDevice, stream));
    if (s.cache == CacheMode::cold) flush.run(stream);
  }

  // A C written row-major (N contiguous) is turned column-major into a scratch buffer first, so
  // that one reference serves every kernel.
  ErrorStats verify(const ProblemGroup& g, GroupData& d, const std::function<void()>& launch,
                    bool c_row_major) {
    const GemmProblem& p = g.problem;
    prepare_for_verify(p, d);
    launch();
    const void* c = d.c.get();
    DeviceBuffer c_cols;
    if (c_row_major) {
      c_cols = DeviceBuffer(d.c.bytes());
      transpose_to_column_major(d.c.get(), c_cols.get(), dtype_bytes(p.out_type()), p.m, p.n,
                                stream);
      c = c_cols.get();
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    ErrorStats e = meter.measure(p.out_type(), c, d.ref.as<double>(), p.m * p.n, d.ref_rms, stream);
    e.tolerance = verification_tolerance(p);
    if (d.ref_unquantized.get()) {
      const ErrorStats q = meter.measure(p.out_type(), c, d.ref_unquantized.as<double>(), p.m * p.n,
                                         d.ref_unquantized_rms, stream);
      e.quant_normwise = q.normwise;
      e.quant_calc_diff = q.calc_diff;
    }
    return e;
  }

  // `count` samples of each launch in `step`, enqueued step after step (A B ... A B ...) with
  // nothing between them but each sample's preparation, then synchronized once. Returns the
  // event times, ms, [launch][sample].
  std::vector<std::vector<double>> run_steps(const ProblemGroup& g, GroupData& d,
                                             const std::vector<const Member*>& step, size_t count) {
    const size_t np = step.size();
    for (size_t j = 0; j < count; ++j)
      for (size_t i = 0; i < np; ++i) {
        prepare_sample(g.problem, g.measure, d);
        CUDA_CHECK(cudaEventRecord(event(2 * (j * np + i)), stream));
        if (np > 1) {  // interleaved (burst): each launch in its row's and provider's ranges
          const NvtxRange row(step[i]->nvtx_name), provider(step[i]->r.kernel);
          step[i]->launch();
        } else {
          step[i]->launch();
        }
        CUDA_CHECK(cudaEventRecord(event(2 * (j * np + i) + 1), stream));
      }
    CUDA_CHECK(cudaEventSynchronize(event(2 * count * np - 1)));
    std::vector<std::vector<double>> ms(np, std::vector<double>(count));
    for (size_t j = 0; j < count; ++j)
      for (size_t i = 0; i < np; ++i) {
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, event(2 * (j * np + i)), event(2 * (j * np + i) + 1)));
        ms[i][j] = t;
      }
    return ms;
  }

  // One provider's own sampling loop (preparation, then the launch, back to back in batches)
  // until it has `gpu_s` of GPU time and `min_n` samples, or `wall_cap_s` has passed.
  std::vector<double> run_loop(const ProblemGroup& g, GroupData& d, const Member& m, double gpu_s,
                               size_t min_n, double wall_cap_s) {
    std::vector<double> out;
    double have_s = 0;
    const auto t0 = std::chrono::steady_clock::now();
    while ((out.size() < min_n || have_s < gpu_s) && out.size() < kMaxSamples) {
      const double est_s = out.empty() ? 0 : have_s / double(out.size());
      size_t batch = est_s > 0 ? size_t(kBatchGpuS / est_s) : 1;
      if (!out.empty()) batch = std::max(batch, min_n > out.size() ? min_n - out.size() : 1);
      batch = std::clamp<size_t>(batch, 1, kMaxBatch);
      const std::vector<double> ms = run_steps(g, d, {&m}, batch)[0];
      out.insert(out.end(), ms.begin(), ms.end());
      have_s += sum_seconds(ms);
      if (seconds_since(t0) >= wall_cap_s || stop_requested()) break;
    }
    return out;
  }

  struct Steady {
    double seconds = 0;
    SteadyEnd end = SteadyEnd::bound;
    std::optional<double> spread;
    std::optional<double> at_cap_share;  // of the NVML readings taken after each window
  };
  // Runs one provider's loop untimed, in windows of about rule.window_s of wall time, until its
  // window medians agree (stats/regime.hpp).
  Steady run_until_steady(const ProblemGroup& g, GroupData& d, const Member& m,
                          const SteadyRule& rule) {
    SteadyDetector detector(rule);
    const auto t0 = std::chrono::steady_clock::now();
    Steady out;
    int known = 0, capped = 0;
    for (;;) {
      if (stop_requested()) {
        out.end = SteadyEnd::interrupted;
        break;
      }
      const std::vector<double> window = run_loop(g, d, m, 1e9, 1, rule.window_s);
      detector.add(summarize(window).median_ms, seconds_since(t0));
      if (nvml.available()) {
        const TelemetrySample r = nvml.read();
        if (cap_known(r, power_limit_w)) {
          ++known;
          capped += at_power_cap(r, power_limit_w);
        }
      }
      if (const auto end = detector.done()) {
        out.end = *end;
        break;
      }
    }
    out.seconds = seconds_since(t0);
    out.spread = detector.spread();
    if (known) out.at_cap_share = double(capped) / known;
    return out;
  }

  // A CUDA error while a member ran: the row is an error; a lost context ends the run.
  static void fail_member(Member& m, const CudaError& e, RunSummary& summary) {
    m.r.status = Status::error;
    m.r.reason = e.what();
    m.launch = nullptr;
    const cudaError_t sync = cudaDeviceSynchronize();
    if (is_sticky(e.code) || is_sticky(sync)) {
      summary.aborted = true;
      summary.abort_reason = std::string("CUDA context lost: ") + e.what();
    }
  }

  // ---- Sustained: one steady state per group, then every provider alone in blocks ----
  void sample_sustained(const ProblemGroup& g, GroupData& d, std::vector<Member*>& ms,
                        RunSummary& summary, const std::function<void(const Member&)>& progress) {
    const MeasureSettings& s = g.measure;
    const auto t0 = std::chrono::steady_clock::now();
    const double wall_cap = s.max_time_s * double(ms.size());
    // PROLOGUE: the group's steady state, on the first provider's own loop.
    Steady pre;
    try {
      pre = run_until_steady(g, d, *ms.front(), kPreconditionRule);
    } catch (const CudaError& e) {
      fail_member(*ms.front(), e, summary);
      return;
    }
    for (Member* m : ms) {
      RegimeStats& rs = m->r.regime;
      rs.precondition_s = pre.seconds;
      rs.precondition_end = to_string(pre.end);
      if (pre.spread) rs.precondition_spread_pct = 100.0 * *pre.spread;
      if (pre.end == SteadyEnd::bound) rs.held = false;
    }
    SteadyRule settle = kSettleRule;
    if (s.settle_time_s > 0) {
      settle.min_s = s.settle_time_s;
      settle.max_s = std::max(settle.max_s, 2.0 * s.settle_time_s);
    }
    const bool at_cap = pre.at_cap_share && *pre.at_cap_share >= 0.5;
    const double block_s = block_timed_seconds(s.block_time_s, s.min_time_s, at_cap);
    for (Member* m : ms) {
      m->r.regime.precondition_at_cap = pre.at_cap_share;
      m->r.regime.block_s = block_s;
    }
    const size_t block_n = size_t(std::max(1, (s.min_samples + 1) / 2));
    const Member* running = ms.front();  // whose loop the board ran last
    int tag = 0;
    // MAINLOOP: rounds of blocks, forward then backward, until every provider has its samples.
    for (;;) {
      for (size_t idx : round_schedule(ms.size())) {
        Member& m = *ms[idx];
        if (!m.launch || stop_requested() || summary.aborted) continue;
        progress(m);
        // The block (settle and samples) in the row's range, and the provider's inside it.
        const NvtxRange row(m.nvtx_name), provider(m.r.kernel);
        try {
          if (&m != running) {
            const Steady st = run_until_steady(g, d, m, settle);
            m.settle_s += st.seconds;
            ++m.settles;
            running = &m;
          }
          sampler.mark(TelemetryPhase::timed, tag);
          const std::vector<double> block = run_loop(g, d, m, block_s, block_n, s.max_time_s);
          sampler.mark(TelemetryPhase::warmup);
          m.samples.insert(m.samples.end(), block.begin(), block.end());
          m.block_medians.push_back(summarize(block).median_ms);
          m.tags.push_back(tag++);
          m.gpu_s += sum_seconds(block);
        } catch (const CudaError& e) {
          fail_member(m, e, summary);
        }
      }
      bool done = true;
      for (const Member* m : ms)
        if (m->launch && (m->samples.size() < size_t(s.min_samples) || m->gpu_s < s.min_time_s))
          done = false;
      if (done || stop_requested() || summary.aborted) break;
      if (seconds_since(t0) >= wall_cap) break;
    }
  }

  // ---- Burst: windows from a cool board, kept while the clock holds ----
  void sample_burst(const ProblemGroup& g, GroupData& d, std::vector<Member*>& ms,
                    RunSummary& summary) {
    const MeasureSettings& s = g.measure;
    const BurstRule rule;
    const BurstHoldRule hold;
    const std::optional<double> max_mhz =
        sm_clock_max_mhz ? std::optional<double>(double(*sm_clock_max_mhz)) : std::nullopt;
    const auto t0 = std::chrono::steady_clock::now();
    const double wall_cap = s.max_time_s * double(ms.size());
    std::vector<const Member*> step;
    for (const Member* m : ms) step.push_back(m);
    size_t kept = 0, discarded = 0;
    double kept_gpu_s = 0;  // the least over the members
    int wait_timeouts = 0, windows = 0, batches_kept = 0, batches_discarded = 0, tag = 0;
    std::vector<double> kept_probes;
    std::optional<double> first_probe, min_probe;
    const auto enough = [&] { return kept >= size_t(s.min_samples) && kept_gpu_s >= s.min_time_s; };
    try {
      while (!enough() && !stop_requested() && seconds_since(t0) < wall_cap) {
        // Wait for a cool board.
        const auto w0 = std::chrono::steady_clock::now();
        while (!burst_ready(nvml.read(), power_limit_w, rule)) {
          if (seconds_since(w0) >= rule.wait_timeout_s) {
            ++wait_timeouts;
            break;
          }
          std::this_thread::sleep_for(kTelemetryPeriod);
        }
        // Ramp the clocks (a board that waited has dropped them) until the probe shows them up.
        const auto r0 = std::chrono::steady_clock::now();
        double reference = 0;
        do {
          for (const Member* m : ms) {
            prepare_sample(g.problem, s, d);
            m->launch();
          }
          probe.enqueue(stream, 0);
          reference = probe.read(1, stream)[0];
        } while (seconds_since(r0) < rule.ramp_s ||
                 (!burst_ramped(reference, max_mhz, hold) && seconds_since(r0) < kBurstRampMaxS));
        if (!first_probe) first_probe = reference;
        ++windows;
        // One window: batches, each followed by a probe, until the clock falls or time is up.
        const auto b0 = std::chrono::steady_clock::now();
        while (!enough() && !stop_requested()) {
          const size_t need = kept < size_t(s.min_samples) ? size_t(s.min_samples) - kept : 1;
          const size_t batch = std::clamp<size_t>(need, 1, kBurstBatch);
          sampler.set_tag(TelemetryPhase::timed, tag);
          std::vector<std::vector<double>> times = run_steps(g, d, step, batch);
          probe.enqueue(stream, 0);
          const double mhz = probe.read(1, stream)[0];
          sampler.set_tag(TelemetryPhase::idle);
          min_probe = std::min(min_probe.value_or(mhz), mhz);
          if (burst_batches_kept({mhz}, reference, max_mhz, hold) == 1) {
            double least = 1e30;
            for (size_t i = 0; i < ms.size(); ++i) {
              Member& m = *ms[i];
              m.samples.insert(m.samples.end(), times[i].begin(), times[i].end());
              m.gpu_s += sum_seconds(times[i]);
              m.tags.push_back(tag);
              least = std::min(least, m.gpu_s);
            }
            kept += batch;
            kept_gpu_s = least;
            kept_probes.push_back(mhz);
            ++batches_kept;
            ++tag;
          } else {
            for (Member* m : ms) m->discarded_tags.push_back(tag);
            discarded += batch;
            ++batches_discarded;
            ++tag;
            break;  // the clock fell: the rest of this window is not a burst
          }
          if (seconds_since(b0) >= rule.window_s) break;
        }
      }
    } catch (const CudaError& e) {
      for (Member* m : ms) fail_member(*m, e, summary);
      return;
    }
    for (Member* m : ms) {
      RegimeStats& rs = m->r.regime;
      rs.windows = windows;
      rs.batches_kept = batches_kept;
      rs.batches_discarded = batches_discarded;
      rs.probe_first_mhz = first_probe;
      rs.probe_min_mhz = min_probe;
      if (!kept_probes.empty()) rs.probe_kept_median_mhz = summarize(kept_probes).median_ms;
      m->r.samples_discarded = int(discarded);
      m->r.burst_wait_timeouts = wait_timeouts;
      if (kept < size_t(s.min_samples) && !stop_requested()) {
        rs.held = false;
        append_note(m->r,
                    burst_not_held_reason(kept, s.min_samples, discarded, first_probe, min_probe));
      }
    }
  }

  // One provider back to back, no L2 flush and no C restore in between, timed by one event pair
  // (docs/regimes.md, "Energy").
  void energy_window(Member& m, int tag) {
    EnergyRun& e = m.energy;
    e.launches = energy_launches(summarize(m.samples).median_ms * 1e-3);
    sampler.mark(TelemetryPhase::energy, tag);
    sampler.set_period(kEnergyTelemetryPeriod);
    e.t_begin = sampler.now();
    CUDA_CHECK(cudaEventRecord(event(0), stream));
    for (int64_t i = 0; i < e.launches; ++i) m.launch();
    CUDA_CHECK(cudaEventRecord(event(1), stream));
    CUDA_CHECK(cudaEventSynchronize(event(1)));
    e.t_end = sampler.now();
    sampler.set_period(kTelemetryPeriod);
    sampler.mark(TelemetryPhase::idle);
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, event(0), event(1)));
    e.gpu_s = ms * 1e-3;
    e.ran = true;
  }

  void fill_telemetry(Member& m, const std::vector<TelemetrySample>& readings) const {
    CaseResult& r = m.r;
    ClockStats& c = r.clock;
    c.sm_clock_max_mhz = sm_clock_max_mhz;
    c.power_limit_w = power_limit_w;
    const TelemetrySummary t =
        summarize_telemetry(select_tagged(readings, TelemetryPhase::timed, m.tags), power_limit_w);
    c.telemetry_samples = t.samples;
    c.sm_clock_mhz = t.sm_clock_min_mhz;
    c.sm_clock_median_mhz = t.sm_clock_median_mhz;
    c.power_w = t.power_max_w;
    c.power_mean_w = t.power_mean_w;
    c.temperature_c = t.temperature_max_c;
    c.throttle_reasons = clock_reason_names(t.reasons);
    c.throttle = t.throttle;
    c.at_cap_share = t.at_cap_share;
    c.throttled = c.sm_clock_mhz && c.sm_clock_max_mhz && *c.sm_clock_max_mhz > 0 &&
                  double(*c.sm_clock_mhz) < 0.8 * double(*c.sm_clock_max_mhz);
    if (!m.discarded_tags.empty()) {
      const TelemetrySummary dt = summarize_telemetry(
          select_tagged(readings, TelemetryPhase::timed, m.discarded_tags), power_limit_w);
      r.regime.discarded_sm_median_mhz = dt.sm_clock_median_mhz;
      r.regime.discarded_telemetry_samples = dt.samples;
    }

    EnergyStats& en = r.energy;
    if (!nvml.available()) {
      en.note = "NVML not available";
      return;
    }
    const EnergyRun& e = m.energy;
    if (!e.ran) {
      en.note = "no energy window (the row did not finish sampling)";
      return;
    }
    en.launches = int(e.launches);
    en.window_s = e.gpu_s;
    const auto counter = energy_from_counter(readings, e.t_begin + kEnergySettleS, e.t_end);
    if (!counter) {
      en.note = "fewer than two energy-counter refreshes in the window (or no counter)";
      return;
    }
    en.counter_refreshes = counter->refreshes;
    en.power_w = counter->power_w;
    en.joules_per_gemm = counter->power_w * e.gpu_s / double(e.launches);
    if (*en.joules_per_gemm > 0) en.gflop_per_joule = r.problem.flops() / 1e9 / *en.joules_per_gemm;
    std::vector<TelemetrySample> span;
    for (const TelemetrySample& s : select_telemetry(readings, TelemetryPhase::energy))
      if (s.t_s >= counter->t_first && s.t_s <= counter->t_last) span.push_back(s);
    en.telemetry_power_w = summarize_telemetry(span, power_limit_w).power_mean_w;
  }

  // Device-to-device copy of a buffer far larger than L2, (read + write bytes) / time, median of
  // kReps timed copies after one untimed.
  std::optional<double> measure_memory_bandwidth(size_t l2_bytes) {
    constexpr int kReps = 7;
    size_t free = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const size_t bytes = std::min<size_t>(size_t(2) << 30, free / 8) & ~size_t(255);
    if (bytes < 4 * l2_bytes) return std::nullopt;  // too small to leave L2 out of the figure
    DeviceBuffer src(bytes), dst(bytes);
    CUDA_CHECK(cudaMemsetAsync(src.get(), 0x3c, bytes, stream));
    CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    std::vector<double> ms;
    for (int i = 0; i < kReps; ++i) {
      CUDA_CHECK(cudaEventRecord(event(0), stream));
      CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
      CUDA_CHECK(cudaEventRecord(event(1), stream));
      CUDA_CHECK(cudaEventSynchronize(event(1)));
      float t = 0;
      CUDA_CHECK(cudaEventElapsedTime(&t, event(0), event(1)));
      ms.push_back(t);
    }
    const double median_ms = summarize(ms).median_ms;
    if (median_ms <= 0) return std::nullopt;
    return 2.0 * double(bytes) / (median_ms * 1e-3) / 1e9;
  }
};

Runner::Runner(int device, uint64_t seed) {
  OpenedDevice opened = open_device(device);
  meta_ = std::move(opened.meta);
  caps_ = opened.caps;
  impl_ = std::make_unique<Impl>(device, seed, caps_.l2_bytes, meta_.pci_bus_id);
  meta_.nvml_available = impl_->nvml.available();
  if (auto v = impl_->nvml.driver_version()) meta_.driver_version = *v;
  // The board's serial tells the boards of a fleet apart across hosts and reboots.
  if (auto s = impl_->nvml.serial()) meta_.serial = *s;
  impl_->power_limit_w = impl_->nvml.power_limit_w();
  impl_->sm_clock_max_mhz = impl_->nvml.max_sm_clock_mhz();
  meta_.power_limit_w = impl_->power_limit_w;
  meta_.mem_bw_datasheet_gbs =
      datasheet_bandwidth_gbs(meta_.memory_clock_mhz, meta_.memory_bus_bits);
  meta_.mem_bw_measured_gbs = impl_->measure_memory_bandwidth(caps_.l2_bytes);
}

Runner::~Runner() = default;

std::string Runner::timing_method() {
  const MeasureSettings d{};
  return "CUDA events around each launch on one stream, samples enqueued in batches with only "
         "their preparation between them; " +
         std::to_string(d.warmup) +
         " warm-up launches per provider by default; cache=cold: " + L2Flush::method() +
         "; C restored before each sample when beta != 0; both outside the events. sustained: "
         "each group runs its cublas loop untimed to steady state (at least 1 s, then until "
         "three 0.1 s windows agree within 1%, at most 8 s), then every provider is sampled "
         "alone in blocks in the order A B ... B A, each block opened by an untimed settle of "
         "its own loop (until 50 ms windows agree within 0.5%, 0.15-1.5 s) and timed for " +
         std::to_string(d.block_time_s) +
         " s of GPU time by default (at least 1 s where the board is at its power cap); kernel "
         "ratios divide by the group's cublas (cublaslt) row "
         "median. burst: windows from a cool board of interleaved samples, a clock probe "
         "(clock64 against %globaltimer) after each batch, batches kept while the clock holds "
         "97% of the post-ramp clock and 90% of the maximum. Median quoted; NVML read every " +
         std::to_string(int(kTelemetryPeriod.count())) +
         " ms by a thread during each group, each row's figures from its own timed blocks; "
         "energy from the NVML energy counter over each provider run back to back after the "
         "samples (docs/regimes.md, docs/method.md)";
}

size_t Runner::bytes_needed(const ProblemGroup& g) {
  const GemmProblem& p = g.problem;
  const size_t es = dtype_bytes(p.dtype), es_out = dtype_bytes(p.out_type());
  const size_t mn = size_t(p.m * p.n), inputs = size_t(p.m * p.k + p.k * p.n);
  size_t bytes = inputs * es + mn * es_out;
  if (p.beta != 0) bytes += mn * es_out;
  if (g.measure.verify) bytes += mn * sizeof(double);
  // FP8 setup holds the f32 inputs while quantizing, and a second reference (unquantized).
  if (is_fp8(p.dtype))
    bytes += inputs * sizeof(float) + (g.measure.verify ? mn * sizeof(double) : 0);
  return bytes;
}

size_t Runner::free_bytes() const {
  size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

CaseResult Runner::base_row(const ProblemGroup& g, const KernelInfo* k) const {
  CaseResult r;
  r.run_name = g.run_name;
  r.kernel = k ? k->name : "cublas";
  r.provider = k ? "gemmbench" : "cublas";
  r.family = k ? k->family : "cublas";
  r.problem = g.problem;
  r.measure = g.measure;
  r.preset = g.preset;
  if (k && k->choose && why_unsupported(*k, g.problem, caps_).empty()) {
    const DispatchChoice c = k->choose(g.problem, caps_);
    if (c.kernel) r.chosen_kernel = c.kernel->name, r.chosen_rule = c.rule;
  }
  return r;
}

// One group: set up its operands, verify every provider, sample them in the group's regime, and
// hand back its rows in plan order (cublas, cublaslt where selected, then the kernels).
std::vector<CaseResult> Runner::run_group(const ProblemGroup& g, RunSummary& summary,
                                          const std::function<void(const std::string&)>& at) {
  Impl& im = *impl_;
  const GemmProblem& p = g.problem;
  const MeasureSettings& s = g.measure;
  std::vector<Member> members;
  members.reserve(2 + g.kernels.size());
  members.push_back({base_row(g, nullptr)});
  const bool with_lt = uses_cublaslt(s.baseline);
  if (with_lt) members.push_back({as_cublaslt_row(base_row(g, nullptr))});
  for (const KernelInfo* k : g.kernels) members.push_back({base_row(g, k)});
  const size_t first_kernel = with_lt ? 2 : 1;
  const auto rows = [&] {
    std::vector<CaseResult> out;
    for (Member& m : members) out.push_back(std::move(m.r));
    return out;
  };
  const auto all_not_run = [&](const std::string& why, size_t from) {
    for (size_t i = from; i < members.size(); ++i) {
      members[i].r.status = Status::error;
      members[i].r.reason = "not run: " + why;
    }
  };

  // PROLOGUE: operands, the cuBLASLt choice, every provider verified before any timing.
  at("cublas");
  GroupData d;
  Member& cublas = members[0];
  try {
    d = im.setup(g);
  } catch (const CudaError& e) {
    Impl::fail_member(cublas, e, summary);
    all_not_run(summary.aborted ? summary.abort_reason
                                : "setting up the problem failed (see the cublas row)",
                1);
    return rows();
  }
  if (is_fp8(p.dtype)) {
    // cublasGemmEx has no FP8: the baseline row of an FP8 problem is cuBLASLt with the same
    // scaling (tuned like the cublaslt provider), and says so in its provider field.
    cublas.r.provider = "cublaslt";
    try {
      std::string why_not;
      cublas.r.cublaslt_algo = im.cublas_fp8.tune(
          p, d.a.get(), d.b.get(), d.c.get(), im.stream, [&] { im.prepare_sample(p, s, d); },
          why_not, d.scales());
      if (!cublas.r.cublaslt_algo) {
        cublas.r.reason = "cuBLASLt FP8: " + why_not;
      } else {
        cublas.launch = [&] {
          im.cublas_fp8.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream, d.scales());
        };
      }
    } catch (const CudaError& e) {
      Impl::fail_member(cublas, e, summary);
    }
  } else {
    cublas.launch = [&] { im.cublas.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream); };
  }
  if (with_lt && is_fp8(p.dtype)) {
    members[1].r.reason = "the baseline (cublas) row of an FP8 problem is cuBLASLt already";
  } else if (with_lt) {
    Member& lt = members[1];
    at("cublaslt");
    try {
      std::string why_not;
      lt.r.cublaslt_algo = im.cublaslt.tune(
          p, d.a.get(), d.b.get(), d.c.get(), im.stream, [&] { im.prepare_sample(p, s, d); },
          why_not);
      if (!lt.r.cublaslt_algo) {
        lt.r.status = Status::skipped;
        lt.r.reason = why_not;
      } else {
        lt.launch = [&] { im.cublaslt.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream); };
      }
    } catch (const CudaError& e) {
      Impl::fail_member(lt, e, summary);
    }
  }
  for (size_t i = first_kernel; i < members.size(); ++i) {
    const KernelInfo* k = g.kernels[i - first_kernel];
    if (std::string why = why_unsupported(*k, p, caps_); !why.empty()) {
      members[i].r.status = Status::skipped;
      members[i].r.reason = why;
      continue;
    }
    const GemmArgs args{p,
                        d.a.get(),
                        d.b.get(),
                        d.c.get(),
                        float(p.alpha),
                        float(p.beta),
                        d.scale_a.as<float>(),
                        d.scale_b.as<float>()};
    if (k->prepare) {
      try {
        k->prepare(args, im.stream);
        CUDA_CHECK_LAST_LAUNCH();
      } catch (const CudaError& e) {
        Impl::fail_member(members[i], e, summary);
        continue;
      }
    }
    members[i].c_row_major = k->c_row_major;
    members[i].launch = [&im, k, args] {
      k->launch(args, im.stream);
      CUDA_CHECK_LAST_LAUNCH();
    };
  }
  std::vector<Member*> timed;
  for (Member& m : members) {
    m.nvtx_name = nvtx_case_name(m.r.kernel, p, g.preset);
    if (!m.launch || summary.aborted) continue;
    try {
      if (s.verify) m.r.error = im.verify(g, d, m.launch, m.c_row_major);
      timed.push_back(&m);
    } catch (const CudaError& e) {
      Impl::fail_member(m, e, summary);
    }
  }
  if (summary.aborted) {
    // Every row not decided already (the faulting one is an error, a declined one skipped with
    // its reason) was never timed: rows start as skipped without a reason.
    for (Member& m : members)
      if (m.r.status != Status::error && !(m.r.status == Status::skipped && !m.r.reason.empty())) {
        m.r.status = Status::error;
        m.r.reason = "not run: " + summary.abort_reason;
      }
    return rows();
  }

  // MAINLOOP: warm-up, then the regime's sampling, with the group's telemetry running.
  im.sampler.start(TelemetryPhase::warmup, kTelemetryPeriod);
  std::vector<TelemetrySample> readings;
  try {
    for (int w = 0; w < s.warmup; ++w)
      for (Member* m : timed) {
        im.prepare_sample(p, s, d);
        m->launch();
      }
    CUDA_CHECK(cudaStreamSynchronize(im.stream));
    if (!timed.empty()) {
      if (s.regime == Regime::burst)
        im.sample_burst(g, d, timed, summary);
      else
        im.sample_sustained(g, d, timed, summary, [&](const Member& m) { at(m.r.kernel); });
    }
    if (im.nvml.available() && !stop_requested())
      for (size_t i = 0; i < timed.size(); ++i)
        if (timed[i]->launch && !timed[i]->samples.empty())
          im.energy_window(*timed[i], kEnergyTag + int(i));
  } catch (const CudaError& e) {
    readings = im.sampler.stop();
    for (Member* m : timed)
      if (m->launch) Impl::fail_member(*m, e, summary);
  }
  if (readings.empty()) readings = im.sampler.stop();

  // EPILOGUE: each row's figures; the ratios divide by the baseline rows' own medians.
  std::optional<double> cublas_ms, cublaslt_ms;
  for (Member* m : timed) {
    if (m->samples.empty()) continue;
    im.fill_telemetry(*m, readings);
    CaseResult& r = m->r;
    if (!r.regime.held) continue;
    r.time = summarize(m->samples);
    if (&m->r == &members[0].r && r.status != Status::error) cublas_ms = r.time->median_ms;
    if (with_lt && &m->r == &members[1].r && r.status != Status::error)
      cublaslt_ms = r.time->median_ms;
  }
  // An FP8 problem's cublas row is the tuned cuBLASLt call: it is the cuBLASLt baseline too.
  if (with_lt && is_fp8(p.dtype)) cublaslt_ms = cublas_ms;
  for (Member* m : timed) {
    CaseResult& r = m->r;
    if (r.status == Status::error) continue;
    RegimeStats& rs = r.regime;
    rs.blocks = int(m->block_medians.size());
    if (m->settles) rs.settle_mean_s = m->settle_s / m->settles;
    rs.block_spread_pct = block_spread_pct(m->block_medians);
    if (m->samples.empty()) {  // the run ended before this row's first sample
      r.status = Status::error;
      r.reason = summary.aborted    ? "not run: " + summary.abort_reason
                 : stop_requested() ? std::string(kInterruptedReason)
                                    : std::string("not run: no sample within max_time");
      continue;
    }
    if (!rs.held) {
      r.status = Status::not_held;
      if (s.regime == Regime::sustained) append_note(r, not_steady_reason(rs));
      continue;
    }
    if (s.keep_samples) r.samples_ms = m->samples;
    r.tflops = p.flops() / (r.time->median_ms * 1e-3) / 1e12;
    const GroupRole role = &m->r == &members[0].r              ? GroupRole::cublas
                           : with_lt && &m->r == &members[1].r ? GroupRole::cublaslt
                                                               : GroupRole::kernel;
    apply_baselines(r, role, s.baseline, GroupBaselines{cublas_ms, cublaslt_ms});
    if (role == GroupRole::kernel && with_lt) r.cublaslt_algo = members[1].r.cublaslt_algo;
    if (!s.verify) {
      r.status = Status::ok;
      r.reason = "not verified";
    } else if (verification_passed(r.error)) {
      r.status = Status::ok;
    } else {
      r.status = Status::failed;
      r.reason = failure_reason(r.error);
    }
    if (stop_requested())
      append_note(r, "sampling interrupted after " + std::to_string(r.time->samples) + " samples");
  }
  return rows();
}

RunSummary Runner::run(const Plan& plan, Reporter& out, const ProgressFn& progress) {
  RunSummary summary;
  summary.rows_planned = plan.row_count();
  size_t row = 0;         // rows emitted so far (progress)
  size_t next_index = 0;  // the plan-wide index of the last row emitted (a shard's rows keep it)

  const auto emit = [&](CaseResult r) {
    r.index = ++next_index;
    ++row;
    summary.count(r.status);
    ++summary.rows_written;
    r.sol = speed_of_light(r, meta_);
    out.add(r);
  };
  for (const ProblemGroup& g : plan.groups) {
    if (stop_requested()) break;
    if (g.first_row) next_index = *g.first_row;
    if (summary.aborted) {  // every row of the group, as a running group emits them
      CaseResult r = base_row(g, nullptr);
      r.status = Status::error;
      r.reason = "not run: " + summary.abort_reason;
      emit(r);
      if (uses_cublaslt(g.measure.baseline)) emit(as_cublaslt_row(r));
      for (const KernelInfo* k : g.kernels) {
        CaseResult kr = base_row(g, k);
        kr.status = Status::error;
        kr.reason = r.reason;
        emit(kr);
      }
      continue;
    }
    const std::vector<CaseResult> rows = run_group(g, summary, [&](const std::string& kernel) {
      if (progress) progress({row + 1, summary.rows_planned, &g, kernel});
    });
    for (const CaseResult& r : rows)
      if (r.reason != kInterruptedReason) emit(r);
  }
  summary.interrupted_by = stop_signal().load();
  return summary;
}

}  // namespace gemmbench
