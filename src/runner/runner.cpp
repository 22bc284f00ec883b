#include "runner/runner.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/registry.hpp"
#include "device/buffer.hpp"
#include "device/open.hpp"
#include "runner/baselines.hpp"
#include "runner/cublas_gemm.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "runner/energy.hpp"
#include "runner/epilogue.hpp"
#include "runner/grouped_gemm.hpp"
#include "runner/l2_flush.hpp"
#include "runner/member.hpp"
#include "runner/nvtx_range.hpp"
#include "runner/operands.hpp"
#include "runner/sample_burst.hpp"
#include "runner/sample_sustained.hpp"
#include "runner/sampling.hpp"
#include "sol/sol.hpp"
#include "stats/stats.hpp"
#include "verify/device_verify.hpp"

namespace gemmbench {

namespace {

using AtFn = std::function<void(const std::string&)>;

// The baselines' GEMMs, one of each for the runner's life.
struct BaselineGemms {
  CublasGemm cublas;
  // Tuned per group when the group's baseline uses it.
  CublasLtGemm cublaslt;
  CublasLtGemm cublas_fp8;        // the baseline of FP8 problems
  CublasGrouped grouped{cublas};  // a grouped case's two cuBLAS ways, on cublas's handle
  // An FP8 grouped case's baseline, a cuBLASLt call per group, on cublas_fp8's handle.
  CublasLtGroupedLoop grouped_fp8{cublas_fp8};
};

// One group on its way through Runner::run_group's phases: its rows as members, in plan order
// (cublas, cublas_grouped for a grouped case cuBLAS runs, cublaslt where selected, then the
// kernels), its operands, and the members that verified and are sampled.
struct Group {
  const ProblemGroup& g;
  RunSummary& summary;
  const AtFn& at;  // names the provider about to run (progress)
  std::vector<Member> members;
  GroupData d;
  std::vector<Member*> timed;

  bool with_lt() const { return uses_cublaslt(g.measure.baseline); }
  bool with_grouped_api() const { return has_grouped_api_row(g); }
  size_t lt_index() const { return with_grouped_api() ? 2 : 1; }
  size_t first_kernel() const { return lt_index() + (with_lt() ? 1 : 0); }
  // Every row from `from` on is an error, not run for `why`.
  void all_not_run(const std::string& why, size_t from) {
    for (size_t i = from; i < members.size(); ++i) {
      members[i].r.status = Status::error;
      members[i].r.reason = "not run: " + why;
    }
  }
  // The records, moved out.
  std::vector<CaseResult> rows() {
    std::vector<CaseResult> out;
    for (Member& m : members) out.push_back(std::move(m.r));
    return out;
  }
};

// ---- PROLOGUE: operands, the baselines' launches (cuBLASLt tuned), the kernels' launchers ----

// The group's operands; false (the cublas row an error, the others not run) when setting them up
// failed.
bool set_up(Group& grp, uint64_t seed, ErrorMeter& meter, cudaStream_t stream) {
  try {
    grp.d = set_up_operands(grp.g, seed, meter, stream);
    return true;
  } catch (const CudaError& e) {
    fail_member(grp.members[0], e, grp.summary);
    grp.all_not_run(grp.summary.aborted ? grp.summary.abort_reason
                                        : "setting up the problem failed (see the cublas row)",
                    1);
    return false;
  }
}

// An FP8 grouped case's baseline row (plan.hpp, kGroupedFp8BaselineNote): cublas, provider
// cuBLASLt, one cublasLtMatmul per group with rows, every group tuned here, outside any timed
// region; skipped with the reason where cuBLASLt refuses a group. No cublas_grouped row (the plan
// has none: cuBLAS has no grouped FP8 GEMM); the cublaslt row, where selected, says the baseline
// is cuBLASLt already, as a dense FP8 problem's does.
void bind_grouped_fp8_baseline(Group& grp, BaselineGemms& gemms, SamplingContext& ctx) {
  const GemmProblem& p = grp.g.problem;
  const MeasureSettings& s = grp.g.measure;
  GroupData& d = grp.d;
  const cudaStream_t stream = ctx.stream;
  Member& loop = grp.members[0];
  loop.r.provider = "cublaslt";
  try {
    const std::string why = gemms.grouped_fp8.prepare(
        p, grp.g.grouped->grouping, *d.grouped, stream, [&] { prepare_sample(ctx, p, s, d); });
    if (why.empty()) {
      loop.launch = [&gemms, stream] { gemms.grouped_fp8.run(stream); };
      loop.note = kGroupedFp8BaselineNote;
      if (const int padded = gemms.grouped_fp8.padded_groups(); padded > 0)
        loop.note += fmt::format(
            "; {} of its groups ran on their rows rounded up to a multiple of 4, 8 or 16 "
            "(cuBLASLt's block128 refuses them otherwise)",
            padded);
    } else {
      loop.r.reason = "cuBLASLt FP8 per group: " + why;
    }
  } catch (const CudaError& e) {
    fail_member(loop, e, grp.summary);
  }
  if (grp.with_lt())
    grp.members[grp.lt_index()].r.reason =
        "the baseline (cublas) row of an FP8 problem is cuBLASLt already";
}

// A grouped case's baseline rows (f16/bf16/f32; plan.hpp, has_grouped_api_row): cublas, one
// cublasGemmEx per group with rows; cublas_grouped, cublasGemmGroupedBatchedEx over the groups
// bucketed by M_g (its arrays built here, outside any timed region; f32 accumulation only, the
// row skipped otherwise); cublaslt, where selected, skipped: cuBLASLt has no grouped GEMM. FP8:
// bind_grouped_fp8_baseline.
void bind_grouped_baselines(Group& grp, BaselineGemms& gemms, SamplingContext& ctx) {
  if (is_fp8(grp.g.problem.dtype)) return bind_grouped_fp8_baseline(grp, gemms, ctx);
  const cudaStream_t stream = ctx.stream;
  const GemmProblem& p = grp.g.problem;
  const Grouping& grouping = grp.g.grouped->grouping;
  GroupedOperands& go = *grp.d.grouped;
  grp.members[0].launch = [&gemms, &p, &grouping, &go, stream] {
    gemms.grouped.run_loop(p, grouping, go, stream);
  };
  Member& api = grp.members[1];
  grp.at(kGroupedApiKernel);
  try {
    gemms.grouped.prepare(p, grouping, go, stream);
    api.launch = [&gemms, &p, stream] { gemms.grouped.run_grouped_api(p, stream); };
  } catch (const std::invalid_argument& e) {
    api.r.status = Status::skipped;
    api.r.reason = e.what();
  } catch (const CudaError& e) {
    fail_member(api, e, grp.summary);
  }
  if (grp.with_lt()) {
    Member& lt = grp.members[grp.lt_index()];
    lt.r.status = Status::skipped;
    lt.r.reason = "cuBLASLt has no grouped GEMM: the baseline is cuBLAS's two ways (cublas, " +
                  std::string(kGroupedApiKernel) + ")";
  }
}

// The baseline rows' launches: cuBLAS (an FP8 problem: cuBLASLt, tuned), and the cublaslt row's
// tuned cuBLASLt call where the group's baseline selects it.
void bind_baselines(Group& grp, BaselineGemms& gemms, SamplingContext& ctx) {
  if (grp.g.grouped) return bind_grouped_baselines(grp, gemms, ctx);
  const GemmProblem& p = grp.g.problem;
  const MeasureSettings& s = grp.g.measure;
  GroupData& d = grp.d;
  const cudaStream_t stream = ctx.stream;
  Member& cublas = grp.members[0];
  // The launches hold the group's problem and operands, and the runner's GEMMs, by reference:
  // all of them outlive the group's sampling.
  if (is_fp8(p.dtype)) {
    // cublasGemmEx has no FP8: the baseline row of an FP8 problem is cuBLASLt with the same
    // scaling (tuned like the cublaslt provider), and says so in its provider field.
    cublas.r.provider = "cublaslt";
    try {
      std::string why_not;
      cublas.r.cublaslt_algo = gemms.cublas_fp8.tune(
          p, d.a.get(), d.b.get(), d.c.get(), stream, [&] { prepare_sample(ctx, p, s, d); },
          why_not, d.scales());
      if (!cublas.r.cublaslt_algo) {
        cublas.r.reason = "cuBLASLt FP8: " + why_not;
      } else {
        cublas.launch = [&gemms, &p, &d, stream] {
          gemms.cublas_fp8.run(p, d.a.get(), d.b.get(), d.c.get(), stream, d.scales());
        };
      }
    } catch (const CudaError& e) {
      fail_member(cublas, e, grp.summary);
    }
  } else {
    cublas.launch = [&gemms, &p, &d, stream] {
      gemms.cublas.run(p, d.a.get(), d.b.get(), d.c.get(), stream);
    };
  }
  if (!grp.with_lt()) return;
  Member& lt = grp.members[grp.lt_index()];
  if (is_fp8(p.dtype)) {
    lt.r.reason = "the baseline (cublas) row of an FP8 problem is cuBLASLt already";
    return;
  }
  grp.at("cublaslt");
  try {
    std::string why_not;
    lt.r.cublaslt_algo = gemms.cublaslt.tune(
        p, d.a.get(), d.b.get(), d.c.get(), stream, [&] { prepare_sample(ctx, p, s, d); }, why_not);
    if (!lt.r.cublaslt_algo) {
      lt.r.status = Status::skipped;
      lt.r.reason = why_not;
    } else {
      lt.launch = [&gemms, &p, &d, stream] {
        gemms.cublaslt.run(p, d.a.get(), d.b.get(), d.c.get(), stream);
      };
    }
  } catch (const CudaError& e) {
    fail_member(lt, e, grp.summary);
  }
}

// The kernel rows' launchers (after the kernel's one-time prepare), or their reason to skip. A
// grouped case reaches only the kernels that declare its layout (why_unsupported turns the others
// away): their arguments are the grouped operands and the case's launch tables, built here once,
// outside every timed region, and held by the launch.
void bind_kernels(Group& grp, const DeviceCaps& caps, cudaStream_t stream) {
  const GemmProblem& p = grp.g.problem;
  const GroupData& d = grp.d;
  const Grouping* grouping = grp.g.grouped ? &grp.g.grouped->grouping : nullptr;
  for (size_t i = grp.first_kernel(); i < grp.members.size(); ++i) {
    Member& m = grp.members[i];
    const KernelInfo* k = grp.g.kernels[i - grp.first_kernel()];
    if (std::string why = why_unsupported(*k, p, caps, grouping); !why.empty()) {
      m.r.status = Status::skipped;
      m.r.reason = why;
      continue;
    }
    GemmArgs args = operand_args(p, d);
    std::shared_ptr<const GroupedLaunchTables> tables;
    try {
      if (grouping) {
        tables = std::make_shared<const GroupedLaunchTables>(
            *grouping, grouped_launch_tile_rows(*k, p, *grouping, caps), stream);
        args = grouped_kernel_args(p, *d.grouped, *tables);
      }
      if (k->prepare) {
        k->prepare(args, stream);
        CUDA_CHECK_LAST_LAUNCH();
      }
    } catch (const CudaError& e) {
      fail_member(m, e, grp.summary);
      continue;
    }
    m.c_row_major = k->c_row_major;
    m.launch = [stream, k, args, tables] {
      k->launch(args, stream);
      CUDA_CHECK_LAST_LAUNCH();
    };
  }
}

// ---- VERIFICATION: every provider, before any timing ----

// The reason a dispatcher's row may not stand, from what its verified launch ran
// (take_dispatched): the kernel the row names (chosen_kernel, a fresh look at the rules) must be
// the one the launch ran. Empty where they agree or the row is no dispatcher's.
std::string dispatched_other_than_named(const CaseResult& r) {
  const KernelInfo* ran = take_dispatched();
  if (!ran || r.chosen_kernel.empty() || ran->name == r.chosen_kernel) return {};
  return "its launch ran " + ran->name + ", not " + r.chosen_kernel +
         ", the dispatcher's choice for this case (a stale cached choice): not timed";
}

// Those with a launch that verified (or that are not verified) are the group's timed members; a
// dispatcher's whose verified launch ran another kernel than its row names is an error row.
// False when a sticky error ended the run: every row not decided then says so.
bool verify_all(Group& grp, ErrorMeter& meter, cudaStream_t stream) {
  const ProblemGroup& g = grp.g;
  RunSummary& summary = grp.summary;
  for (Member& m : grp.members) {
    m.nvtx_name = nvtx_case_name(m.r.kernel, g.problem, g.preset);
    if (!m.launch || summary.aborted) continue;
    try {
      take_dispatched();  // forget what an earlier member's launches noted
      if (g.measure.verify)
        m.r.error = verify_launch(g, grp.d, meter, stream, m.launch, m.c_row_major);
      if (std::string why = dispatched_other_than_named(m.r); !why.empty()) {
        m.r.status = Status::error;
        m.r.reason = why;
        continue;
      }
      grp.timed.push_back(&m);
    } catch (const CudaError& e) {
      fail_member(m, e, summary);
    }
  }
  if (!summary.aborted) return true;
  // Every row not decided already (the faulting one is an error, a declined one skipped with
  // its reason) was never timed: rows start as skipped without a reason.
  for (Member& m : grp.members)
    if (m.r.status != Status::error && !(m.r.status == Status::skipped && !m.r.reason.empty())) {
      m.r.status = Status::error;
      m.r.reason = "not run: " + summary.abort_reason;
    }
  return false;
}

// ---- MAINLOOP: warm-up, the regime's sampling, the energy windows, telemetry running ----

// Returns the group's telemetry readings.
std::vector<TelemetrySample> mainloop(Group& grp, SamplingContext& ctx) {
  const MeasureSettings& s = grp.g.measure;
  ctx.sampler.start(TelemetryPhase::warmup, kTelemetryPeriod);
  std::vector<TelemetrySample> readings;
  try {
    for (int w = 0; w < s.warmup; ++w)
      for (Member* m : grp.timed) {
        prepare_sample(ctx, grp.g.problem, s, grp.d);
        m->launch();
      }
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    if (!grp.timed.empty()) {
      const MemberProgress progress = [&](const Member& m) { grp.at(m.r.kernel); };
      GroupSampling run{ctx, grp.g, grp.d, grp.timed, grp.summary, progress};
      const RegimeSampler sample = s.regime == Regime::burst ? sample_burst : sample_sustained;
      sample(run);
    }
    run_energy_windows(ctx, grp.timed);
    // The steady state a sustained group leaves is carried to the next from here, after the
    // energy windows, which kept the board running (taken at the last block, the first default
    // run on an H200 found every gap past kCarryGapS: the windows take 0.6-2 s a provider). A
    // burst, an interruption or an error leaves nothing to carry.
    const bool carried = s.regime == Regime::sustained && !grp.timed.empty() && !stop_requested() &&
                         !grp.summary.aborted;
    ctx.sustained_end.reset();
    if (carried) ctx.sustained_end = std::chrono::steady_clock::now();
  } catch (const CudaError& e) {
    ctx.sustained_end.reset();
    readings = ctx.sampler.stop();
    for (Member* m : grp.timed)
      if (m->launch) fail_member(*m, e, grp.summary);
  }
  if (readings.empty()) readings = ctx.sampler.stop();
  return readings;
}

// ---- EPILOGUE: each row's figures; the ratios divide by the baseline rows' own medians ----

void epilogue(Group& grp, const SamplingContext& ctx,
              const std::vector<TelemetrySample>& readings) {
  for (Member* m : grp.timed) {
    if (m->samples.empty()) continue;
    fill_telemetry(ctx, *m, readings);
    take_time(*m);
  }
  const bool with_lt = grp.with_lt();
  const GroupBaselines b = baseline_medians(grp.timed, with_lt && is_fp8(grp.g.problem.dtype));
  const std::optional<CublasLtChoice>* lt_algo =
      with_lt ? &grp.members[grp.lt_index()].r.cublaslt_algo : nullptr;
  for (Member* m : grp.timed) finish_row(*m, grp.g, b, grp.summary, lt_algo);
}

// Device-to-device copy of a buffer far larger than L2, (read + write bytes) / time, median of
// kReps timed copies after one untimed.
std::optional<double> measure_memory_bandwidth(SamplingContext& ctx, size_t l2_bytes) {
  constexpr int kReps = 7;
  const cudaStream_t stream = ctx.stream;
  size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  const size_t bytes = std::min<size_t>(size_t(2) << 30, free / 8) & ~size_t(255);
  if (bytes < 4 * l2_bytes) return std::nullopt;  // too small to leave L2 out of the figure
  DeviceBuffer src(bytes), dst(bytes);
  CUDA_CHECK(cudaMemsetAsync(src.get(), 0x3c, bytes, stream));
  CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
  std::vector<double> ms;
  for (int i = 0; i < kReps; ++i) {
    CUDA_CHECK(cudaEventRecord(ctx.event(0), stream));
    CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaEventRecord(ctx.event(1), stream));
    CUDA_CHECK(cudaEventSynchronize(ctx.event(1)));
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, ctx.event(0), ctx.event(1)));
    ms.push_back(t);
  }
  const double median_ms = summarize(ms).median_ms;
  if (median_ms <= 0) return std::nullopt;
  return 2.0 * double(bytes) / (median_ms * 1e-3) / 1e9;
}

}  // namespace

struct Runner::Impl {
  Impl(int device_, uint64_t seed_, size_t l2_bytes, const std::string& pci)
      : device(device_), seed(seed_), ctx(l2_bytes, pci) {}

  int device;
  uint64_t seed;
  BaselineGemms gemms;
  SamplingContext ctx;  // the stream, its events, L2 flush, clock probe, NVML, telemetry
  ErrorMeter meter;
};

Runner::Runner(int device, uint64_t seed) {
  OpenedDevice opened = open_device(device);
  meta_ = std::move(opened.meta);
  caps_ = opened.caps;
  impl_ = std::make_unique<Impl>(device, seed, caps_.l2_bytes, meta_.pci_bus_id);
  meta_.nvml_available = impl_->ctx.nvml.available();
  if (auto v = impl_->ctx.nvml.driver_version()) meta_.driver_version = *v;
  // The board's serial tells the boards of a fleet apart across hosts and reboots.
  if (auto s = impl_->ctx.nvml.serial()) meta_.serial = *s;
  impl_->ctx.power_limit_w = impl_->ctx.nvml.power_limit_w();
  impl_->ctx.sm_clock_max_mhz = impl_->ctx.nvml.max_sm_clock_mhz();
  meta_.power_limit_w = impl_->ctx.power_limit_w;
  meta_.mem_bw_datasheet_gbs =
      datasheet_bandwidth_gbs(meta_.memory_clock_mhz, meta_.memory_bus_bits);
  meta_.mem_bw_measured_gbs = measure_memory_bandwidth(impl_->ctx, caps_.l2_bytes);
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

namespace {

// runner/grouped_gemm.hpp's operands: every stored row, G experts' weights. FP8 adds the scales
// (core/grouping.hpp's GroupedScales), the cuBLASLt loop's block128 copies of each group's in its
// own layout (CublasLtGemm::Plan), and while setting up, A's f32 values, one expert's and the
// quantizer's scratch; when it verifies, a second reference (of the unquantized inputs).
size_t grouped_bytes_needed(const ProblemGroup& g) {
  const GemmProblem& p = g.problem;
  const Grouping& gr = g.grouped->grouping;
  const size_t es = dtype_bytes(p.dtype), es_out = dtype_bytes(p.out_type());
  // FP8: the cuBLASLt loop's slack rows past the stored ones (kGroupedFp8SlackRows).
  const size_t rows = size_t(gr.stored_rows() + (is_fp8(p.dtype) ? kGroupedFp8SlackRows : 0));
  const size_t valid = size_t(gr.total_m());
  const size_t n = size_t(p.n), k = size_t(p.k);
  size_t bytes = rows * k * es + size_t(gr.groups()) * n * k * es + rows * n * es_out;
  if (p.beta != 0) bytes += rows * n * es_out;
  // The reference of the valid rows and the valid rows gathered beside it for the check.
  if (g.measure.verify) bytes += valid * n * (sizeof(double) + es_out);
  if (!is_fp8(p.dtype)) return bytes;
  const GroupedScales s = grouped_scales(p.scale, gr, p.n, p.k);
  bytes += size_t(scale_count_a(p.scale, int64_t(rows), p.k) + s.b_count()) * sizeof(float);
  if (p.scale == ScaleMode::block128) {
    const size_t kb = (k + kScaleBlock - 1) / kScaleBlock, kb4 = (kb + 3) / 4 * 4;
    const size_t n_blocks = (n + kScaleBlock - 1) / kScaleBlock;
    // The tokens' copies cover each group's rows rounded up to cuBLASLt's multiple (at most 15
    // more a group).
    const size_t padded = valid + size_t(gr.touched()) * size_t(kGroupedFp8SlackRows);
    bytes += (padded * kb + size_t(gr.touched()) * n_blocks * kb4) * sizeof(float);
  }
  bytes += (rows * k + n * k + std::max(rows, n)) * sizeof(float);
  if (g.measure.verify) bytes += valid * n * sizeof(double);
  return bytes;
}

}  // namespace

size_t Runner::bytes_needed(const ProblemGroup& g) {
  if (g.grouped) return grouped_bytes_needed(g);
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
  r.grouped = g.grouped;
  // A grouped case reaches a dispatcher's grouped choice (KernelInfo::choose_grouped), not its
  // rule table: the tables read a dense problem.
  if (k && k->choose && !g.grouped && why_unsupported(*k, g.problem, caps_).empty()) {
    const DispatchChoice c = k->choose(g.problem, caps_);
    if (c.kernel) r.chosen_kernel = c.kernel->name, r.chosen_rule = c.rule;
  }
  const Grouping* grouping = g.grouped ? &g.grouped->grouping : nullptr;
  if (k && k->choose_grouped && grouping &&
      why_unsupported(*k, g.problem, caps_, grouping).empty()) {
    const DispatchChoice c = k->choose_grouped(g.problem, *grouping, caps_);
    if (c.kernel) r.chosen_kernel = c.kernel->name, r.chosen_rule = c.rule;
  }
  return r;
}

// One group: set up its operands, verify every provider, sample them in the group's regime, and
// hand back its rows in plan order (cublas, cublaslt where selected, then the kernels).
std::vector<CaseResult> Runner::run_group(const ProblemGroup& g, RunSummary& summary,
                                          const AtFn& at) {
  Impl& im = *impl_;
  Group grp{g, summary, at};
  grp.members.reserve(3 + g.kernels.size());
  grp.members.push_back({base_row(g, nullptr), GroupRole::cublas});
  if (grp.with_grouped_api())
    grp.members.push_back({as_grouped_api_row(base_row(g, nullptr)), GroupRole::cublas_grouped});
  if (grp.with_lt())
    grp.members.push_back({as_cublaslt_row(base_row(g, nullptr)), GroupRole::cublaslt});
  for (const KernelInfo* k : g.kernels) grp.members.push_back({base_row(g, k), GroupRole::kernel});

  // PROLOGUE
  at("cublas");
  if (!set_up(grp, im.seed, im.meter, im.ctx.stream)) return grp.rows();
  bind_baselines(grp, im.gemms, im.ctx);
  bind_kernels(grp, caps_, im.ctx.stream);
  // VERIFICATION
  if (!verify_all(grp, im.meter, im.ctx.stream)) return grp.rows();
  // MAINLOOP
  const std::vector<TelemetrySample> readings = mainloop(grp, im.ctx);
  // EPILOGUE
  epilogue(grp, im.ctx, readings);
  return grp.rows();
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
  // Every row of a group that does not run, as a running group emits them.
  const auto emit_not_run = [&](const ProblemGroup& g, Status status, const std::string& reason) {
    CaseResult r = base_row(g, nullptr);
    r.status = status;
    r.reason = reason;
    emit(r);
    if (has_grouped_api_row(g)) emit(as_grouped_api_row(r));
    if (uses_cublaslt(g.measure.baseline)) emit(as_cublaslt_row(r));
    for (const KernelInfo* k : g.kernels) {
      CaseResult kr = base_row(g, k);
      kr.status = status;
      kr.reason = reason;
      emit(kr);
    }
  };
  for (const ProblemGroup& g : plan.groups) {
    if (stop_requested()) break;
    if (g.first_row) next_index = *g.first_row;
    if (summary.aborted) {
      emit_not_run(g, Status::error, "not run: " + summary.abort_reason);
      continue;
    }
    if (const std::string why = why_group_cannot_run(g); !why.empty()) {
      emit_not_run(g, Status::skipped, why);  // no device work: no operands, no launch
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
