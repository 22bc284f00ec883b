#include "runner/runner.hpp"

#include <chrono>
#include <cmath>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/provenance.hpp"
#include "core/errors.hpp"
#include "runner/baselines.hpp"
#include "runner/cublas_gemm.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "runner/device_buffer.hpp"
#include "runner/nvml.hpp"
#include "verify/device_verify.hpp"

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

}  // namespace

struct Runner::Impl {
  Impl(int device_, uint64_t seed_, size_t l2_bytes, const std::string& pci)
      : device(device_), seed(seed_), flush(2 * l2_bytes), nvml(pci) {
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
  DeviceBuffer flush;  // written before every cold sample: evicts the operands from L2
  Nvml nvml;
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
    if (s.cache == CacheMode::cold)
      CUDA_CHECK(cudaMemsetAsync(flush.get(), 0, flush.bytes(), stream));
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

  // Interleaved sampling (A B A B ...): one event pair per sample and provider.
  std::vector<std::vector<double>> sample(const ProblemGroup& g, GroupData& d,
                                          const std::vector<std::function<void()>>& launches,
                                          ClockStats& clock) {
    const MeasureSettings& s = g.measure;
    const size_t np = launches.size();
    for (int w = 0; w < s.warmup; ++w)
      for (const auto& launch : launches) {
        prepare_sample(g.problem, s, d);
        launch();
      }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<std::vector<double>> times(np);
    double gpu_seconds = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
      for (size_t i = 0; i < np; ++i) {
        prepare_sample(g.problem, s, d);
        CUDA_CHECK(cudaEventRecord(event(2 * i), stream));
        launches[i]();
        CUDA_CHECK(cudaEventRecord(event(2 * i + 1), stream));
      }
      CUDA_CHECK(cudaEventSynchronize(event(2 * np - 1)));
      for (size_t i = 0; i < np; ++i) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, event(2 * i), event(2 * i + 1)));
        times[i].push_back(ms);
      }
      gpu_seconds += times[0].back() * 1e-3;
      nvml.sample(clock);
      const size_t n = times[0].size();
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (n >= size_t(s.min_samples) && gpu_seconds >= s.min_time_s) break;
      if (wall >= s.max_time_s || n >= kMaxSamples) break;
    }
    Nvml::finish(clock);
    return times;
  }
};

Runner::Runner(int device, uint64_t seed) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver || e == cudaErrorCompatNotSupportedOnDevice) {
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    throw NoDeviceError("the NVIDIA driver is missing or too old for this build (CUDA runtime " +
                        cuda_version_string(rt) + "): " + cudaGetErrorString(e));
  }
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0))
    throw NoDeviceError(
        "no CUDA device found (cudaGetDeviceCount: " + std::string(cudaGetErrorString(e)) + ")");
  if (e != cudaSuccess)
    throw NoDeviceError(std::string("cannot use the CUDA driver: ") + cudaGetErrorName(e) + ": " +
                        cudaGetErrorString(e));
  if (device >= count)
    throw UsageError("--device " + std::to_string(device) + ": this machine has " +
                     std::to_string(count) + " CUDA device(s), indices 0.." +
                     std::to_string(count - 1));
  CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
    return v;
  };
  char pci[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(pci, sizeof(pci), device));
  meta_.index = device;
  meta_.name = prop.name;
  meta_.sm = prop.major * 10 + prop.minor;
  meta_.num_sms = prop.multiProcessorCount;
  meta_.memory_bytes = int64_t(prop.totalGlobalMem);
  meta_.l2_bytes = prop.l2CacheSize;
  meta_.sm_clock_max_mhz = attr(cudaDevAttrClockRate) / 1000;
  meta_.memory_clock_mhz = attr(cudaDevAttrMemoryClockRate) / 1000;
  meta_.memory_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  meta_.pci_bus_id = pci;
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  meta_.cuda_driver_api = cuda_version_string(drv);
  meta_.cuda_runtime = cuda_version_string(rt);
  meta_.cublas_version = CublasGemm::version();
  caps_.sm = meta_.sm;
  caps_.num_sms = meta_.num_sms;
  caps_.smem_per_block_optin = size_t(attr(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  caps_.l2_bytes = size_t(prop.l2CacheSize);
  impl_ = std::make_unique<Impl>(device, seed, caps_.l2_bytes, meta_.pci_bus_id);
  meta_.nvml_available = impl_->nvml.available();
  meta_.driver_version =
      impl_->nvml.driver_version().value_or("CUDA driver API " + meta_.cuda_driver_api);
}

Runner::~Runner() = default;

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

RunSummary Runner::run(const Plan& plan, Reporter& out, const ProgressFn& progress) {
  Impl& im = *impl_;
  RunSummary summary;
  summary.rows_planned = plan.row_count();
  size_t row = 0;

  auto emit = [&](CaseResult r) {
    r.index = ++row;
    switch (r.status) {
      case Status::ok:
        ++summary.ok;
        break;
      case Status::failed:
        ++summary.failed;
        break;
      case Status::skipped:
        ++summary.skipped;
        break;
      case Status::error:
        ++summary.errors;
        break;
    }
    ++summary.rows_written;
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
    return r;
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

  for (const ProblemGroup& g : plan.groups) {
    const GemmProblem& p = g.problem;
    if (summary.aborted) {
      for (size_t i = 0; i <= g.kernels.size(); ++i) {
        CaseResult r = base_row(g, i == 0 ? nullptr : g.kernels[i - 1]);
        r.status = Status::error;
        r.reason = "not run: " + summary.abort_reason;
        emit(r);
        if (i == 0 && uses_cublaslt(g.measure.baseline)) emit(as_cublaslt_row(r));
      }
      continue;
    }
    if (progress) progress({row + 1, summary.rows_planned, &g, "cublas"});
    GroupData d;
    {
      CaseResult r = base_row(g, nullptr);
      try {
        d = im.setup(g);
        const auto cublas = [&] { im.cublas.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream); };
        if (g.measure.verify) r.error = im.verify(g, d, cublas);
        const auto times = im.sample(g, d, {cublas}, r.clock);
        r.time = summarize(times[0]);
        r.tflops = p.flops() / (r.time->median_ms * 1e-3) / 1e12;
        r.status =
            (!g.measure.verify || verification_passed(r.error)) ? Status::ok : Status::failed;
      } catch (const CudaError& e) {
        on_cuda_error(r, e);
      }
      if (r.status == Status::failed)
        r.reason = r.error.nonfinite ? "non-finite output" : "error above tolerance";
      if (!g.measure.verify && r.status == Status::ok) r.reason = "not verified";
      const bool group_dead = r.status == Status::error;
      emit(r);
      if (group_dead) {  // no operands: every kernel row of this group is an error too
        if (uses_cublaslt(g.measure.baseline)) {
          CaseResult lr = as_cublaslt_row(base_row(g, nullptr));
          lr.status = Status::error;
          lr.reason = "not run: setting up the problem failed (see the cublas row)";
          emit(lr);
        }
        for (const KernelInfo* k : g.kernels) {
          CaseResult kr = base_row(g, k);
          kr.status = Status::error;
          kr.reason = "not run: setting up the problem failed (see the cublas row)";
          emit(kr);
        }
        continue;
      }
    }
    // The tuned cuBLASLt baseline: its own row, tuned before and verified like the cublas row,
    // sampled interleaved with cuBLAS; the kernel rows then sample it beside them.
    std::optional<CublasLtChoice> lt_choice;
    const auto cublaslt = [&] { im.cublaslt.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream); };
    if (uses_cublaslt(g.measure.baseline)) {
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
          const auto cublas = [&] { im.cublas.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream); };
          if (g.measure.verify) r.error = im.verify(g, d, cublaslt);
          const auto times = im.sample(g, d, {cublaslt, cublas}, r.clock);
          r.time = summarize(times[0]);
          r.tflops = p.flops() / (r.time->median_ms * 1e-3) / 1e12;
          record_baselines(r, {true, false}, times);
          r.status =
              !g.measure.verify || verification_passed(r.error) ? Status::ok : Status::failed;
          if (r.status == Status::failed)
            r.reason = r.error.nonfinite ? "non-finite output" : "error above tolerance";
          if (!g.measure.verify) r.reason = "not verified";
          lt_choice = r.cublaslt_algo;
        }
      } catch (const CudaError& e) {
        on_cuda_error(r, e);
      }
      emit(r);
    }
    const BaselineSet baselines{uses_cublas(g.measure.baseline), lt_choice.has_value()};
    for (const KernelInfo* k : g.kernels) {
      if (summary.aborted) {
        CaseResult r = base_row(g, k);
        r.status = Status::error;
        r.reason = "not run: " + summary.abort_reason;
        emit(r);
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
        const auto cublas = [&] { im.cublas.run(p, d.a.get(), d.b.get(), d.c.get(), im.stream); };
        if (g.measure.verify) r.error = im.verify(g, d, kernel);
        const auto times = im.sample(g, d, baselines.launches(kernel, cublas, cublaslt), r.clock);
        r.time = summarize(times[0]);
        r.tflops = p.flops() / (r.time->median_ms * 1e-3) / 1e12;
        record_baselines(r, baselines, times);
        if (baselines.cublaslt) r.cublaslt_algo = lt_choice;
        if (!g.measure.verify) {
          r.status = Status::ok;
          r.reason = "not verified";
        } else if (verification_passed(r.error)) {
          r.status = Status::ok;
        } else {
          r.status = Status::failed;
          r.reason = r.error.nonfinite ? std::to_string(r.error.nonfinite) +
                                             " non-finite elements (unwritten or overflow)"
                                       : "normwise error above tolerance";
        }
      } catch (const CudaError& e) {
        on_cuda_error(r, e);
      }
      emit(r);
    }
  }
  return summary;
}

}  // namespace gemmbench
