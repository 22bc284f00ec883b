#include "runner/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "device/buffer.hpp"
#include "device/open.hpp"
#include "runner/baselines.hpp"
#include "runner/cublas_gemm.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "runner/l2_flush.hpp"
#include "runner/nvml.hpp"
#include "runner/telemetry_sampler.hpp"
#include "stats/telemetry.hpp"
#include "verify/device_verify.hpp"
#include "sol/sol.hpp"

namespace gemmbench {

namespace {

// Tensor ids of the seeded data: A, B and the initial C never share a random stream.
constexpr uint64_t kTensorA = 0, kTensorB = 1, kTensorC = 2;
// Stop sampling after this many samples whatever the time settings say.
constexpr size_t kMaxSamples = 1000000;

struct GroupData {
  DeviceBuffer a, b, c, c0, ref;
  double ref_rms = 0;
};

// Telemetry thread period while samples run, and a finer one in the energy window, where the
// counter's refreshes must be located in time (docs/regimes.md).
constexpr auto kTelemetryPeriod = std::chrono::milliseconds(10);
constexpr auto kEnergyTelemetryPeriod = std::chrono::milliseconds(2);
// Energy window: one provider back to back for at least kEnergyWindowS of GPU time (and at least
// kEnergyMinLaunches launches where that stays under kEnergyLongWindowS); counter refreshes in
// its first kEnergySettleS are ignored, so the counter's own lag cannot reach back before it.
// Burst windows enqueue up to this many interleaved pairs before one synchronization.
constexpr size_t kBurstBatch = 8;
constexpr double kEnergyWindowS = 0.6;
constexpr double kEnergySettleS = 0.1;
constexpr double kEnergyLongWindowS = 2.0;
constexpr int64_t kEnergyMinLaunches = 20;
constexpr int64_t kEnergyMaxLaunches = 1000000;

// The interleaved samples of one row, and what the burst regime threw away.
struct SampleOutcome {
  std::vector<std::vector<double>> times;  // per provider, kept samples
  std::vector<int> discarded_pairs;        // burst: the windows (telemetry tags) thrown away
  size_t pairs_discarded = 0;              // burst: the pairs in them
  int wait_timeouts = 0;
  std::string note;  // set when the burst regime could not keep a single pair
};

// The energy window's launches, timed by events; the counter arithmetic comes after the
// telemetry thread stops.
struct EnergyRun {
  double t_begin = 0, t_end = 0;  // sampler clock
  double gpu_s = 0;
  int64_t launches = 0;
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
  L2Flush flush;  // run before every cold sample: evicts the operands, leaves L2 clean
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

  // C before a verified run: NaN poison, or the seeded initial values when beta != 0.
  void prepare_for_verify(const GemmProblem& p, GroupData& d) {
    if (p.beta != 0)
      CUDA_CHECK(
          cudaMemcpyAsync(d.c.get(), d.c0.get(), d.c.bytes(), cudaMemcpyDeviceToDevice, stream));
    else
      fill_nan(d.c.get(), p.dtype, p.m * p.n, stream);
  }

  // Outside the timed window of every sample: restore C (beta != 0), flush L2 (cold).
  void prepare_sample(const GemmProblem& p, const MeasureSettings& s, GroupData& d) {
    if (p.beta != 0)
      CUDA_CHECK(
          cudaMemcpyAsync(d.c.get(), d.c0.get(), d.c.bytes(), cudaMemcpyDeviceToDevice, stream));
    if (s.cache == CacheMode::cold) flush.run(stream);
  }

  ErrorStats verify(const ProblemGroup& g, GroupData& d, const std::function<void()>& launch) {
    const GemmProblem& p = g.problem;
    prepare_for_verify(p, d);
    launch();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    ErrorStats e =
        meter.measure(p.dtype, d.c.get(), d.ref.as<double>(), p.m * p.n, d.ref_rms, stream);
    e.tolerance = verification_tolerance(p.dtype, p.accum, p.k);
    return e;
  }

  // Interleaved sampling (A B A B ...): one event pair per sample and provider. The telemetry
  // thread must be running (start_row); it is tagged warmup, then timed. Burst regime: before
  // each pair wait for a cool board, after it keep the pair only if its clock held.
  SampleOutcome sample(const ProblemGroup& g, GroupData& d,
                       const std::vector<std::function<void()>>& launches) {
    const MeasureSettings& s = g.measure;
    const bool burst = s.regime == Regime::burst;
    const BurstRule rule;
    const size_t np = launches.size();
    const auto warm = [&] {
      for (const auto& launch : launches) {
        prepare_sample(g.problem, s, d);
        launch();
      }
    };
    for (int w = 0; w < s.warmup; ++w) warm();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    sampler.mark(burst ? TelemetryPhase::idle : TelemetryPhase::timed);
    SampleOutcome out;
    out.times.resize(np);
    std::vector<std::vector<double>> all(np);  // burst: every pair, kept or not
    const size_t discard_cap = burst_discard_cap(s.min_samples);
    double gpu_seconds = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const auto elapsed = [](std::chrono::steady_clock::time_point since) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
    };
    // `count` interleaved pairs (A B ... A B ...), each provider between its own event pair,
    // enqueued together and synchronized once: no host gap between them.
    const auto run_pairs = [&](size_t count) {
      for (size_t j = 0; j < count; ++j)
        for (size_t i = 0; i < np; ++i) {
          prepare_sample(g.problem, s, d);
          CUDA_CHECK(cudaEventRecord(event(2 * (j * np + i)), stream));
          launches[i]();
          CUDA_CHECK(cudaEventRecord(event(2 * (j * np + i) + 1), stream));
        }
      CUDA_CHECK(cudaEventSynchronize(event(2 * (count * np) - 1)));
      std::vector<std::vector<double>> ms(count, std::vector<double>(np));
      for (size_t j = 0; j < count; ++j)
        for (size_t i = 0; i < np; ++i) {
          float t = 0;
          CUDA_CHECK(
              cudaEventElapsedTime(&t, event(2 * (j * np + i)), event(2 * (j * np + i) + 1)));
          ms[j][i] = t;
          all[i].push_back(t);
        }
      return ms;
    };
    const auto enough = [&](size_t n, double gpu_s) {
      return n >= size_t(s.min_samples) && gpu_s >= s.min_time_s;
    };
    // Sustained: one pair per step. Burst: one window per step (docs/regimes.md): wait for a cool
    // board, ramp its clocks, then pairs back to back (no NVML call between them, so the GPU
    // never idles) for up to BurstRule::window_s; the window is kept only if its telemetry shows
    // the clock held.
    for (int step = 0;; ++step) {
      double t_enqueued = 0;
      if (burst) {
        const auto w0 = std::chrono::steady_clock::now();
        while (!burst_ready(nvml.read(), power_limit_w, rule)) {
          if (elapsed(w0) >= rule.wait_timeout_s) {
            ++out.wait_timeouts;
            break;
          }
          std::this_thread::sleep_for(kTelemetryPeriod);
        }
        const auto r0 = std::chrono::steady_clock::now();
        do {  // a board that waited, or that idled through setup, has dropped its clocks
          warm();
          CUDA_CHECK(cudaStreamSynchronize(stream));
        } while (elapsed(r0) < rule.ramp_s);
        sampler.set_tag(TelemetryPhase::timed, step);
        t_enqueued = sampler.now();
      }
      std::vector<std::vector<double>> window(np);
      double window_gpu_s = 0;
      const auto window_start = std::chrono::steady_clock::now();
      do {
        // Sustained: one pair per step, as gemmbench always sampled. Burst: batches of up to
        // kBurstBatch pairs, so that the window runs without a host round trip between pairs.
        const size_t have = out.times[0].size() + window[0].size();
        const size_t batch =
            !burst ? 1
                   : std::clamp<size_t>(size_t(std::max(s.min_samples, 1)) > have
                                            ? size_t(std::max(s.min_samples, 1)) - have
                                            : 1,
                                        1, kBurstBatch);
        for (const std::vector<double>& ms_pair : run_pairs(batch)) {
          for (size_t i = 0; i < np; ++i) window[i].push_back(ms_pair[i]);
          window_gpu_s += ms_pair[0] * 1e-3;
        }
      } while (burst && !stop_requested() &&
               !enough(out.times[0].size() + window[0].size(), gpu_seconds + window_gpu_s) &&
               elapsed(window_start) < rule.window_s);
      bool keep = true;
      if (burst) {
        sampler.read_now();
        auto during = sampler.readings_of_pair(step, t_enqueued);
        sampler.set_tag(TelemetryPhase::idle);
        keep = burst_keep(during, sm_clock_max_mhz, rule);
        if (!keep) {
          out.discarded_pairs.push_back(step);
          out.pairs_discarded += window[0].size();
        }
      }
      if (keep) {
        for (size_t i = 0; i < np; ++i)
          out.times[i].insert(out.times[i].end(), window[i].begin(), window[i].end());
        gpu_seconds += window_gpu_s;
      }
      const size_t n = out.times[0].size();
      if (enough(n, gpu_seconds)) break;
      if (stop_requested()) break;  // the row keeps the samples it has
      if (elapsed(t0) >= s.max_time_s || n >= kMaxSamples) break;
      if (out.pairs_discarded >= discard_cap) break;
    }
    if (out.times[0].empty()) {
      out.times = std::move(all);
      out.note = "burst: no pair kept its clock (" + std::to_string(out.pairs_discarded) +
                 " discarded); timed from all of them";
    }
    return out;
  }

  // One provider back to back, no L2 flush and no C restore in between, timed by one event pair
  // (docs/regimes.md, "Energy").
  EnergyRun energy_window(const std::function<void()>& launch, double median_ms) {
    EnergyRun e;
    e.launches = energy_launches(median_ms * 1e-3);
    sampler.mark(TelemetryPhase::energy);
    sampler.set_period(kEnergyTelemetryPeriod);
    e.t_begin = sampler.now();
    CUDA_CHECK(cudaEventRecord(event(0), stream));
    for (int64_t i = 0; i < e.launches; ++i) launch();
    CUDA_CHECK(cudaEventRecord(event(1), stream));
    CUDA_CHECK(cudaEventSynchronize(event(1)));
    e.t_end = sampler.now();
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, event(0), event(1)));
    e.gpu_s = ms * 1e-3;
    return e;
  }

  // Sampling and energy window of one row, with its telemetry.
  SampleOutcome measure_row(const ProblemGroup& g, GroupData& d,
                            const std::vector<std::function<void()>>& launches, CaseResult& r) {
    sampler.start(TelemetryPhase::warmup, kTelemetryPeriod);
    SampleOutcome out;
    EnergyRun e;
    try {
      out = sample(g, d, launches);
      if (nvml.available()) e = energy_window(launches[0], summarize(out.times[0]).median_ms);
    } catch (...) {
      sampler.stop();
      throw;
    }
    const std::vector<TelemetrySample> readings = sampler.stop();
    fill_telemetry(r, readings, out, e);
    return out;
  }

  void fill_telemetry(CaseResult& r, const std::vector<TelemetrySample>& readings,
                      const SampleOutcome& out, const EnergyRun& e) const {
    ClockStats& c = r.clock;
    c.sm_clock_max_mhz = sm_clock_max_mhz;
    c.power_limit_w = power_limit_w;
    const TelemetrySummary t = summarize_telemetry(
        select_telemetry(readings, TelemetryPhase::timed, out.discarded_pairs), power_limit_w);
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
    r.samples_discarded = int(out.pairs_discarded);
    r.burst_wait_timeouts = out.wait_timeouts;

    EnergyStats& en = r.energy;
    if (!nvml.available()) {
      en.note = "NVML not available";
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
  impl_->power_limit_w = impl_->nvml.power_limit_w();
  impl_->sm_clock_max_mhz = impl_->nvml.max_sm_clock_mhz();
  meta_.power_limit_w = impl_->power_limit_w;
  meta_.mem_bw_datasheet_gbs =
      datasheet_bandwidth_gbs(meta_.memory_clock_mhz, meta_.memory_bus_bits);
  meta_.mem_bw_measured_gbs = impl_->measure_memory_bandwidth(caps_.l2_bytes);
}

Runner::~Runner() = default;

std::string Runner::timing_method() {
  return "CUDA events around each launch on one stream (Impl::sample); " +
         std::to_string(MeasureSettings{}.warmup) +
         " warm-up launches per provider by default; cache=cold: " + L2Flush::method() +
         "; C restored before each sample when beta != 0; both outside the events; each kernel "
         "sampled interleaved with its baselines (--baseline); median quoted; "
         "NVML read every " +
         std::to_string(int(kTelemetryPeriod.count())) +
         " ms by a thread during each row's samples; energy from the NVML energy counter over "
         "one provider run back to back after the samples (docs/regimes.md)";
}

size_t Runner::bytes_needed(const ProblemGroup& g) {
  const GemmProblem& p = g.problem;
  const size_t es = dtype_bytes(p.dtype);
  size_t bytes = size_t(p.m * p.k + p.k * p.n + p.m * p.n) * es;
  if (p.beta != 0) bytes += size_t(p.m * p.n) * es;
  if (g.measure.verify) bytes += size_t(p.m * p.n) * sizeof(double);
  return bytes;
}

size_t Runner::free_bytes() const {
  size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

namespace {

// Why a row failed verification, in one wording for every provider.
std::string failure_reason(const ErrorStats& e) {
  return e.nonfinite ? std::to_string(e.nonfinite) + " non-finite elements (unwritten or overflow)"
                     : "normwise error above tolerance";
}

}  // namespace

RunSummary Runner::run(const Plan& plan, Reporter& out, const ProgressFn& progress) {
  Impl& im = *impl_;
  RunSummary summary;
  summary.rows_planned = plan.row_count();
  size_t row = 0;         // rows emitted so far (progress)
  size_t next_index = 0;  // the plan-wide index of the last row emitted (a shard's rows keep it)

  auto emit = [&](CaseResult r) {
    r.index = ++next_index;
    ++row;
    summary.count(r.status);
    ++summary.rows_written;
    r.sol = speed_of_light(r, meta_);
    out.add(r);
  };
  auto base_row = [&](const ProblemGroup& g, const KernelInfo* k) {
    CaseResult r;
    r.run_name = g.run_name;
    r.kernel = k ? k->name : "cublas";
    r.provider = k ? "gemmbench" : "cublas";
    r.family = k ? k->family : "cublas";
    r.problem = g.problem;
    r.measure = g.measure;
    r.preset = g.preset;
    if (k && k->choose) {
      const DispatchChoice c = k->choose(g.problem, caps_);
      if (c.kernel) r.chosen_kernel = c.kernel->name, r.chosen_rule = c.rule;
    }
    return r;
  };
  // The one place a row that was planned but never ran is built.
  auto emit_not_run = [&](const ProblemGroup& g, const KernelInfo* k, const std::string& why) {
    CaseResult r = base_row(g, k);
    r.status = Status::error;
    r.reason = "not run: " + why;
    emit(r);
  };
  // A CUDA error on a row: record it; if the context is gone, every later row is an error too.
  auto on_cuda_error = [&](CaseResult& r, const CudaError& e) {
    r.status = Status::error;
    r.reason = e.what();
    const cudaError_t sync = cudaDeviceSynchronize();
    if (is_sticky(e.code) || is_sticky(sync)) {
      summary.aborted = true;
      summary.abort_reason = std::string("CUDA context lost: ") + e.what();
    }
  };
  // Verifies (when asked) and samples one provider; `launches` holds it first, then the
  // baselines `b` it is interleaved with. Sets time, TFLOP/s, ratios, status and reason.
  auto measure_row = [&](CaseResult& r, const ProblemGroup& g, GroupData& d,
                         const std::vector<std::function<void()>>& launches, const BaselineSet& b) {
    const GemmProblem& p = g.problem;
    if (g.measure.verify) r.error = im.verify(g, d, launches[0]);
    const SampleOutcome o = im.measure_row(g, d, launches, r);
    const auto& times = o.times;
    r.time = summarize(times[0]);
    if (g.measure.keep_samples) r.samples_ms = times[0];
    r.tflops = p.flops() / (r.time->median_ms * 1e-3) / 1e12;
    record_baselines(r, b, times);
    if (!g.measure.verify) {
      r.status = Status::ok;
      r.reason = "not verified";
    } else if (verification_passed(r.error)) {
      r.status = Status::ok;
    } else {
      r.status = Status::failed;
      r.reason = failure_reason(r.error);
    }
    append_note(r, o.note);
    if (stop_requested())
      append_note(r, "sampling interrupted after " + std::to_string(r.time->samples) + " samples");
  };
  // Every row of a group that cannot run: the cublas row, the cublaslt row where selected, and
  // the kernel rows, in the order a running group emits them.
  auto emit_group_not_run = [&](const ProblemGroup& g, const std::string& why, bool with_cublas) {
    if (with_cublas) emit_not_run(g, nullptr, why);
    if (uses_cublaslt(g.measure.baseline)) {
      CaseResult r = as_cublaslt_row(base_row(g, nullptr));
      r.status = Status::error;
      r.reason = "not run: " + why;
      emit(r);
    }
    for (const KernelInfo* k : g.kernels) emit_not_run(g, k, why);
  };

  for (const ProblemGroup& g : plan.groups) {
    if (stop_requested()) break;
    if (g.first_row) next_index = *g.first_row;
    const GemmProblem& p = g.problem;
    if (summary.aborted) {
      emit_group_not_run(g, summary.abort_reason, true);
      continue;
    }
    if (progress) progress({row + 1, summary.rows_planned, &g, "cublas"});
    GroupData d;
    const auto cublas = [&] { im.cublas.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream); };
    const auto cublaslt = [&] { im.cublaslt.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream); };
    {
      CaseResult r = base_row(g, nullptr);
      try {
        d = im.setup(g);
        measure_row(r, g, d, {cublas}, BaselineSet{false, false});
      } catch (const CudaError& e) {
        on_cuda_error(r, e);
      }
      const bool group_dead = r.status == Status::error;
      emit(r);
      if (group_dead) {  // no operands: every other row of this group is not run
        emit_group_not_run(g,
                           summary.aborted ? summary.abort_reason
                                           : "setting up the problem failed (see the cublas row)",
                           false);
        continue;
      }
    }
    // The tuned cuBLASLt baseline: its own row, tuned before and verified like the cublas row,
    // sampled interleaved with cuBLAS; the kernel rows then sample it beside them.
    std::optional<CublasLtChoice> lt_choice;
    if (uses_cublaslt(g.measure.baseline) && !stop_requested()) {
      if (progress) progress({row + 1, summary.rows_planned, &g, "cublaslt"});
      CaseResult r = as_cublaslt_row(base_row(g, nullptr));
      try {
        std::string why_not;
        r.cublaslt_algo = im.cublaslt.tune(
            p, d.a.get(), d.b.get(), d.c.get(), im.stream,
            [&] { im.prepare_sample(p, g.measure, d); }, why_not);
        if (!r.cublaslt_algo) {
          r.status = Status::skipped;
          r.reason = why_not;
        } else {
          measure_row(r, g, d, {cublaslt, cublas}, BaselineSet{true, false});
          lt_choice = r.cublaslt_algo;
        }
      } catch (const CudaError& e) {
        on_cuda_error(r, e);
      }
      emit(r);
    }
    const BaselineSet baselines{uses_cublas(g.measure.baseline), lt_choice.has_value()};
    for (const KernelInfo* k : g.kernels) {
      if (stop_requested()) break;
      if (summary.aborted) {
        emit_not_run(g, k, summary.abort_reason);
        continue;
      }
      if (progress) progress({row + 1, summary.rows_planned, &g, k->name});
      CaseResult r = base_row(g, k);
      if (std::string why = why_unsupported(*k, p, caps_); !why.empty()) {
        r.status = Status::skipped;
        r.reason = why;
        emit(r);
        continue;
      }
      try {
        GemmArgs args{p, d.a.get(), d.b.get(), d.c.get(), float(p.alpha), float(p.beta)};
        const auto kernel = [&] {
          k->launch(args, im.stream);
          CUDA_CHECK_LAST_LAUNCH();
        };
        measure_row(r, g, d, baselines.launches(kernel, cublas, cublaslt), baselines);
        if (baselines.cublaslt) r.cublaslt_algo = lt_choice;
      } catch (const CudaError& e) {
        on_cuda_error(r, e);
      }
      emit(r);
    }
  }
  summary.interrupted_by = stop_signal().load();
  return summary;
}

}  // namespace gemmbench
