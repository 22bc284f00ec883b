// The runner end to end on a real device: rows, statuses, ratios, and that broken kernels are
// caught (a kernel that leaves elements unwritten, one that drops part of K).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "common/views.cuh"
#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "gpu_test_util.hpp"
#include "plan/plan.hpp"
#include "runner/baselines.hpp"
#include "runner/runner.hpp"

using namespace gemmbench;
using Collect = gemmbench::testing::CollectRows;

namespace {

// Deliberately broken kernels, registered only in this test binary.
__global__ void leaves_last_column_kernel(int M, int N, int K, StridedView<const float> A,
                                          StridedView<const float> B, StridedView<float> C) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x, n = blockIdx.y;
  if (m >= M || n >= N - 1) return;  // column N-1 is never written
  float acc = 0;
  for (int k = 0; k < K; ++k) acc += A(m, k) * B(k, n);
  C(m, n) = acc;
}
__global__ void drops_last_k_kernel(int M, int N, int K, StridedView<const float> A,
                                    StridedView<const float> B, StridedView<float> C) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x, n = blockIdx.y;
  if (m >= M || n >= N) return;
  float acc = 0;
  for (int k = 0; k < K - K / 16; ++k) acc += A(m, k) * B(k, n);  // the last 1/16 of K is lost
  C(m, n) = acc;
}

template <auto Kernel>
void launch_broken(const GemmArgs& a, cudaStream_t s) {
  const GemmProblem& p = a.problem;
  Kernel<<<dim3((p.m + 127) / 128, p.n), 128, 0, s>>>(
      int(p.m), int(p.n), int(p.k), view_a(p, static_cast<const float*>(a.a)),
      view_b(p, static_cast<const float*>(a.b)), view_c(p, static_cast<float*>(a.c)));
}

GEMMBENCH_REGISTER_KERNEL(KernelInfo{"sgemm_test_unwritten",
                                     "sgemm",
                                     90,
                                     "test: leaves a column",
                                     {DType::f32},
                                     {Accum::f32},
                                     {Layout::nn},
                                     50,
                                     {},
                                     launch_broken<leaves_last_column_kernel>});
GEMMBENCH_REGISTER_KERNEL(KernelInfo{"sgemm_test_drops_k",
                                     "sgemm",
                                     91,
                                     "test: drops 1/16 of K",
                                     {DType::f32},
                                     {Accum::f32},
                                     {Layout::nn},
                                     50,
                                     {},
                                     launch_broken<drops_last_k_kernel>});

// Two test dispatchers whose choice is always sgemm_naive: one launches it, the other launches
// sgemm_coalesced (a right answer from another kernel than the row would name: what a stale cached
// choice did, docs/grouped.md, "The cached choice").
DispatchChoice choose_naive(const GemmProblem&, const DeviceCaps&) {
  return {KernelRegistry::instance().find("sgemm_naive"), "test", ""};
}
template <bool LIE>
void launch_dispatched(const GemmArgs& a, cudaStream_t s) {
  const KernelInfo* k = KernelRegistry::instance().find(LIE ? "sgemm_coalesced" : "sgemm_naive");
  note_dispatched(k);
  k->launch(a, s);
}
KernelInfo test_dispatcher(const char* name, int rung, const char* summary, LaunchFn launch) {
  return KernelInfo{.name = name,
                    .family = "sgemm",
                    .rung = rung,
                    .summary = summary,
                    .dtypes = {DType::f32},
                    .accums = {Accum::f32},
                    .layouts = {Layout::nn},
                    .min_sm = 50,
                    .launch = std::move(launch),
                    .choose = choose_naive};
}
GEMMBENCH_REGISTER_KERNEL(test_dispatcher("sgemm_test_dispatcher", 92, "test: runs its choice",
                                          launch_dispatched<false>));
GEMMBENCH_REGISTER_KERNEL(test_dispatcher("sgemm_test_stale_dispatcher", 93,
                                          "test: runs another kernel than its choice",
                                          launch_dispatched<true>));

RunSpec quick_run(std::vector<std::string> kernels, Shape s, double beta = 0) {
  RunSpec r;
  r.name = "t";
  r.kernels = std::move(kernels);
  r.shapes = {s};
  r.beta = beta;
  r.measure.warmup = 1;
  r.measure.min_samples = 3;
  r.measure.min_time_s = 0.0;
  r.measure.max_time_s = 2.0;
  return r;
}

// quick_run's spec for one grouped case (TN, M = sum(M_g)) of the given type and accumulation.
RunSpec grouped_quick_run(std::vector<std::string> kernels, const Grouping& gr, int64_t n,
                          int64_t k, DType t, Accum acc, double beta) {
  RunSpec r = quick_run(std::move(kernels),
                        Shape{gr.total_m(), n, k, {}, GroupedGemm{gr, std::nullopt}}, beta);
  r.layouts = {Layout::tn};
  r.dtypes = {t};
  r.accums = {acc};
  return r;
}

const CaseResult& row(const std::vector<CaseResult>& rows, const std::string& kernel) {
  for (const auto& r : rows)
    if (r.kernel == kernel) return r;
  throw std::runtime_error("no row for " + kernel);
}

}  // namespace

TEST(Runner, RowsStatusesAndRatios) {
  GEMMBENCH_REQUIRE_GPU();
  const Plan plan = build_plan(
      {quick_run({"sgemm_naive", "sgemm_coalesced", "sgemm_test_unwritten", "sgemm_test_drops_k"},
                 {96, 80, 512})},
      {}, {}, KernelRegistry::instance());
  Runner runner(0, 1);
  Collect out;
  const RunSummary s = runner.run(plan, out, {});
  ASSERT_EQ(out.rows.size(), 5u);
  EXPECT_EQ(s.rows_written, 5u);
  EXPECT_FALSE(s.aborted);
  EXPECT_EQ(out.rows[0].kernel, "cublas") << "the baseline row comes first";
  for (size_t i = 0; i < out.rows.size(); ++i) EXPECT_EQ(out.rows[i].index, i + 1);
  for (const char* k : {"cublas", "sgemm_naive", "sgemm_coalesced"}) {
    const CaseResult& r = row(out.rows, k);
    EXPECT_EQ(r.status, Status::ok) << k << ": " << r.reason;
    ASSERT_TRUE(r.time.has_value()) << k;
    EXPECT_GE(r.time->samples, 3);
    EXPECT_GT(r.time->median_ms, 0);
    EXPECT_LE(r.time->min_ms, r.time->median_ms);
    EXPECT_GT(*r.tflops, 0);
    EXPECT_TRUE(r.error.computed);
    EXPECT_LE(r.error.normwise, r.error.tolerance);
  }
  EXPECT_TRUE(row(out.rows, "sgemm_naive").ratio_to_cublas.has_value());
  EXPECT_FALSE(row(out.rows, "cublas").ratio_to_cublas.has_value());
  // The report agrees with itself: every kernel row divides by the median the cublas row prints.
  const double cublas_ms = row(out.rows, "cublas").time->median_ms;
  for (const char* k : {"sgemm_naive", "sgemm_coalesced", "sgemm_test_drops_k"}) {
    const CaseResult& r = row(out.rows, k);
    ASSERT_TRUE(r.cublas_median_ms) << k;
    EXPECT_EQ(*r.cublas_median_ms, cublas_ms) << k;
    EXPECT_DOUBLE_EQ(*r.ratio_to_cublas, cublas_ms / r.time->median_ms) << k;
  }
  // Sustained: one preconditioning for the group (at least the power-averaging window), then
  // each provider in its own blocks, A B C ... C B A: two blocks each in one round.
  for (const CaseResult& r : out.rows) {
    if (!r.time) continue;
    EXPECT_TRUE(r.regime.held) << r.kernel;
    ASSERT_TRUE(r.regime.precondition_s) << r.kernel;
    EXPECT_GE(*r.regime.precondition_s, 1.0) << r.kernel;
    EXPECT_EQ(*r.regime.precondition_s, *out.rows[0].regime.precondition_s) << "one per group";
    EXPECT_GE(r.regime.blocks, 2) << r.kernel;
    EXPECT_TRUE(r.regime.block_spread_pct) << r.kernel;
  }
  const CaseResult& unwritten = row(out.rows, "sgemm_test_unwritten");
  EXPECT_EQ(unwritten.status, Status::failed);
  EXPECT_EQ(unwritten.error.nonfinite, 96) << "one column of 96 NaN-poisoned elements";
  const CaseResult& drops = row(out.rows, "sgemm_test_drops_k");
  EXPECT_EQ(drops.status, Status::failed);
  EXPECT_EQ(drops.error.nonfinite, 0);
  EXPECT_GT(drops.error.normwise, 10 * drops.error.tolerance);
}

TEST(Runner, BetaNonZeroHotCacheAndSkips) {
  GEMMBENCH_REQUIRE_GPU();
  RunSpec r = quick_run({"sgemm_coalesced"}, {33, 17, 9}, 0.5);
  r.alpha = -2.0;
  r.measure.cache = CacheMode::hot;
  RunSpec skip = quick_run({"sgemm_test_unwritten"}, {8, 8, 8});
  skip.layouts = {Layout::tt};
  const Plan plan = build_plan({r, skip}, {}, {}, KernelRegistry::instance());
  Runner runner(0, 3);
  Collect out;
  runner.run(plan, out, {});
  const CaseResult& ok = row(out.rows, "sgemm_coalesced");
  EXPECT_EQ(ok.status, Status::ok) << ok.reason;
  EXPECT_EQ(ok.measure.cache, CacheMode::hot);
  const CaseResult& skipped = row(out.rows, "sgemm_test_unwritten");
  EXPECT_EQ(skipped.status, Status::skipped);
  EXPECT_NE(skipped.reason.find("layout tt"), std::string::npos) << skipped.reason;
}

// --data int3 reaches the device: integer products and their sums are exact in f32, so the f32
// rows carry no error at all (uniform data leaves about 1e-7). f16 over K = 4096 stays within the
// unchanged bound, and a kernel that drops part of K still fails.
TEST(Runner, Int3DataIsUsedAndVerifies) {
  GEMMBENCH_REQUIRE_GPU();
  RunSpec f32 = quick_run({"sgemm_naive", "sgemm_test_drops_k"}, {96, 80, 512});
  f32.name = "f32";
  f32.measure.data = DataDist::int3;
  RunSpec f16 = quick_run({"hgemm_tn"}, {256, 256, 4096});
  f16.name = "f16";
  f16.layouts = {Layout::tn};
  f16.dtypes = {DType::f16};
  f16.accums = {Accum::f16, Accum::f32};
  f16.measure.data = DataDist::int3;
  const Plan plan = build_plan({f32, f16}, {}, {}, KernelRegistry::instance());
  Runner runner(0, 5);
  Collect out;
  runner.run(plan, out, {});
  ASSERT_EQ(out.rows.size(), 3u + 2u * 2u);
  for (const CaseResult& r : out.rows) {
    SCOPED_TRACE(r.run_name + " " + r.kernel + " " + to_string(r.problem.accum));
    EXPECT_EQ(r.measure.data, DataDist::int3);
    if (r.status == Status::skipped) continue;  // hgemm_tn needs sm_80
    if (r.kernel == "sgemm_test_drops_k") {
      EXPECT_EQ(r.status, Status::failed);
      EXPECT_GT(r.error.normwise, 10 * r.error.tolerance);
      continue;
    }
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_LE(r.error.normwise, r.error.tolerance);
    if (r.problem.dtype == DType::f32) EXPECT_EQ(r.error.normwise, 0.0);
  }
}

TEST(Runner, DeviceMetadataIsFilled) {
  GEMMBENCH_REQUIRE_GPU();
  Runner runner(0, 1);
  const DeviceMetadata& d = runner.device();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.num_sms, 0);
  EXPECT_GT(d.memory_bytes, 0);
  EXPECT_GT(d.l2_bytes, 0);
  EXPECT_FALSE(d.cublas_version.empty());
  EXPECT_GT(runner.free_bytes(), 0u);
  // The launchers' caps (the rule table reads the bandwidth) are the report's device.
  const DeviceCaps caps = current_device_caps();
  EXPECT_EQ(caps.num_sms, d.num_sms);
  ASSERT_TRUE(d.mem_bw_datasheet_gbs.has_value());
  EXPECT_GT(caps.dram_gbs, 1000.0);
  EXPECT_DOUBLE_EQ(caps.dram_gbs, *d.mem_bw_datasheet_gbs);
  EXPECT_THROW(Runner(1000, 1), UsageError);
}

TEST(Runner, EveryRowCarriesItsSpeedOfLightAndPresetLabel) {
  GEMMBENCH_REQUIRE_GPU();
  RunSpec r = quick_run({"sgemm_coalesced"}, {128, 256, 64, PresetLabel{"m", "layer"}});
  const Plan plan = build_plan({r}, {}, {}, KernelRegistry::instance());
  Runner runner(0, 5);
  Collect out;
  runner.run(plan, out, {});
  ASSERT_EQ(out.rows.size(), 2u);
  for (const CaseResult& row : out.rows) {
    EXPECT_EQ(row.preset, (PresetLabel{"m", "layer"})) << row.kernel;
    // 2*128*256*64 FLOP over (128*64 + 64*256 + 128*256) * 4 bytes.
    EXPECT_DOUBLE_EQ(row.sol.intensity, 4194304.0 / 229376.0) << row.kernel;
    EXPECT_EQ(row.sol.instruction_class, "ffma_f32");
    EXPECT_TRUE(row.sol.mem_bw_gbs) << row.sol.reason;
    if (row.sol.compute_tflops_max_clock) {  // architectures of the table
      ASSERT_TRUE(row.sol.pct_sol) << row.sol.reason;
      EXPECT_GT(*row.sol.pct_sol, 0);
      EXPECT_LT(*row.sol.pct_sol, 100) << "a row faster than its roofline bound";
    } else {
      EXPECT_FALSE(row.sol.reason.empty());
    }
  }
}

// The shape-aware kernels: each row names the registered kernel that ran and its rule, that
// kernel is the rule table's first candidate the device can run, and the row verifies.
TEST(Runner, ShapeAwareRowsRecordTheirChoice) {
  GEMMBENCH_REQUIRE_GPU();
  RunSpec h = quick_run({"hgemm"}, {16, 1024, 2048});
  h.dtypes = {DType::f16};
  h.accums = {Accum::f32};
  h.layouts = {Layout::tn};
  RunSpec s = quick_run({"sgemm"}, {128, 256, 64});
  const Plan plan = build_plan({h, s}, {}, {}, KernelRegistry::instance());
  Runner runner(0, 11);
  Collect out;
  runner.run(plan, out, {});
  for (const char* name : {"hgemm", "sgemm"}) {
    const CaseResult& r = row(out.rows, name);
    SCOPED_TRACE(name);
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    ASSERT_FALSE(r.chosen_kernel.empty());
    EXPECT_FALSE(r.chosen_rule.empty());
    const KernelInfo* k = KernelRegistry::instance().find(name);
    const DispatchChoice c = k->choose(r.problem, runner.caps());
    ASSERT_NE(c.kernel, nullptr) << c.why;
    EXPECT_EQ(r.chosen_kernel, c.kernel->name);
  }
  EXPECT_TRUE(row(out.rows, "cublas").chosen_kernel.empty());
}

// A dispatcher's row names the kernel its verified launch ran (note_dispatched): where that is its
// choice the row stands; where the launch ran another kernel, even one that computes the right
// answer, the row is an error naming both, and is not timed.
TEST(Runner, ADispatcherRowMustNameTheKernelItsLaunchRan) {
  GEMMBENCH_REQUIRE_GPU();
  const RunSpec s =
      quick_run({"sgemm_test_dispatcher", "sgemm_test_stale_dispatcher"}, {96, 80, 64});
  const Plan plan = build_plan({s}, {}, {}, KernelRegistry::instance());
  Runner runner(0, 17);
  Collect out;
  runner.run(plan, out, {});
  const CaseResult& good = row(out.rows, "sgemm_test_dispatcher");
  EXPECT_EQ(good.status, Status::ok) << good.reason;
  EXPECT_EQ(good.chosen_kernel, "sgemm_naive");
  EXPECT_TRUE(good.time.has_value());
  const CaseResult& stale = row(out.rows, "sgemm_test_stale_dispatcher");
  EXPECT_EQ(stale.status, Status::error);
  EXPECT_NE(stale.reason.find("ran sgemm_coalesced, not sgemm_naive"), std::string::npos)
      << stale.reason;
  EXPECT_FALSE(stale.time.has_value()) << "a row whose launch ran another kernel is not timed";
  EXPECT_EQ(row(out.rows, "cublas").status, Status::ok);
}

// A grouped case through the runner (issue 51): cuBLAS's two ways are its baseline rows, both
// verified group by group and timed; a dense kernel named for it is skipped with the reason
// (why_unsupported's), never launched on grouped operands.
TEST(Runner, AGroupedCaseRunsCublasTwoWays) {
  GEMMBENCH_REQUIRE_GPU();
  const auto grouped_run = [](const Grouping& gr, DType t, Accum acc, double beta) {
    return grouped_quick_run({"hgemm_tn"}, gr, 96, 128, t, acc, beta);
  };
  Grouping padded{{37, 0, 64, 5}, GroupLayout::contiguous, 16, 0};
  Grouping masked{{7, 16, 0, 2}, GroupLayout::masked, 1, 16};
  RunSpec a = grouped_run(padded, DType::bf16, Accum::f32, 0);
  RunSpec b = grouped_run(masked, DType::f16, Accum::f32, 0.5);
  b.measure.regime = Regime::burst;
  RunSpec c = grouped_run(padded, DType::f16, Accum::f16, 0);  // the API takes f32 only
  const Plan plan = build_plan({a, b, c}, {}, {}, KernelRegistry::instance());
  ASSERT_EQ(plan.row_count(), 9u) << "cublas, cublas_grouped and the kernel, three cases";
  Runner runner(0, 7);
  Collect out;
  const RunSummary s = runner.run(plan, out, {});
  ASSERT_EQ(out.rows.size(), 9u);
  EXPECT_FALSE(s.aborted);
  for (size_t i = 0; i < 6; i += 3) {
    const CaseResult& loop = out.rows[i];
    const CaseResult& api = out.rows[i + 1];
    const CaseResult& k = out.rows[i + 2];
    EXPECT_EQ(loop.kernel, "cublas");
    EXPECT_EQ(api.kernel, kGroupedApiKernel);
    for (const CaseResult* r : {&loop, &api}) {
      EXPECT_EQ(r->status, Status::ok) << r->kernel << ": " << r->reason;
      ASSERT_TRUE(r->grouped) << r->kernel;
      EXPECT_TRUE(r->error.computed) << r->kernel;
      EXPECT_LE(r->error.normwise, r->error.tolerance) << r->kernel;
      ASSERT_TRUE(r->time) << r->kernel;
      EXPECT_GT(*r->tflops, 0);
    }
    ASSERT_TRUE(api.ratio_to_cublas) << "the API against the loop";
    EXPECT_DOUBLE_EQ(*api.ratio_to_cublas, loop.time->median_ms / api.time->median_ms);
    EXPECT_EQ(k.status, Status::skipped);
    EXPECT_EQ(k.reason, kDenseKernelGroupedReason);
  }
  // f16 accumulation: the loop runs, the grouped API's row says why it does not.
  EXPECT_EQ(out.rows[6].status, Status::ok) << out.rows[6].reason;
  EXPECT_EQ(out.rows[7].status, Status::skipped);
  EXPECT_NE(out.rows[7].reason.find("f32 accumulation"), std::string::npos) << out.rows[7].reason;
}

// An FP8 grouped case through the runner (issue 51): its baseline row, cublas, is cuBLASLt, a call
// per group (cuBLAS has no grouped FP8 GEMM) that says so, verified group by group against the
// dequantized reference with its quantization error, and timed; no cublas_grouped row; the
// cublaslt row says the baseline is cuBLASLt already; fp8gemm runs the grouped FP8 kernel
// (fp8gemm_grouped_sm90, its row names it), verified the same way; a case cuBLASLt cannot run
// (bf16 C and N % 8 != 0: a group's M is N) is skipped whole, one line, where only a dense kernel
// is named for it, and runs fp8gemm's row where fp8gemm is.
TEST(Runner, AnFp8GroupedCaseRunsTheCublasltLoop) {
  GEMMBENCH_REQUIRE_GPU();
  if (current_device_caps().sm < 90) GTEST_SKIP() << "cuBLASLt's FP8 block scales need sm_90";
  const auto fp8_run = [](const char* kernel, const Grouping& gr, int64_t n, int64_t k) {
    RunSpec r = grouped_quick_run({kernel}, gr, n, k, DType::e4m3, Accum::f32, 0);
    r.scales = {ScaleMode::block128};
    r.measure.baseline = Baseline::both;
    return r;
  };
  Grouping padded{{37, 0, 64, 5}, GroupLayout::contiguous, 16, 0};
  Grouping masked{{7, 16, 0, 2}, GroupLayout::masked, 1, 16};
  RunSpec a = fp8_run("fp8gemm", padded, 200, 272);
  RunSpec b = fp8_run("fp8gemm", masked, 136, 256);
  b.measure.regime = Regime::burst;
  const RunSpec c = fp8_run("fp8gemm_sm90", padded, 100, 272);  // a dense kernel: no provider
  const RunSpec d = fp8_run("fp8gemm", masked, 100, 256);       // cuBLASLt refuses, fp8gemm runs
  const Plan plan = build_plan({a, b, c, d}, {}, {}, KernelRegistry::instance());
  ASSERT_EQ(plan.row_count(), 12u) << "cublas, cublaslt and a kernel, four cases";
  ASSERT_NE(why_group_cannot_run(plan.groups[2]), "");
  ASSERT_EQ(why_group_cannot_run(plan.groups[3]), "") << "fp8gemm declares the layout";
  Runner runner(0, 7);
  Collect out;
  const RunSummary s = runner.run(plan, out, {});
  ASSERT_EQ(out.rows.size(), 12u);
  EXPECT_FALSE(s.aborted);
  const auto expect_kernel_row = [](const CaseResult& k) {
    EXPECT_EQ(k.kernel, "fp8gemm");
    ASSERT_EQ(k.status, Status::ok) << k.reason;
    EXPECT_EQ(k.chosen_kernel, "fp8gemm_grouped_sm90");
    EXPECT_EQ(k.chosen_rule, "grouped-persistent-sm90");
    EXPECT_TRUE(k.error.computed);
    EXPECT_LE(k.error.normwise, k.error.tolerance);
    EXPECT_TRUE(k.time);
  };
  for (size_t i = 0; i < 6; i += 3) {
    const CaseResult& loop = out.rows[i];
    const CaseResult& lt = out.rows[i + 1];
    EXPECT_EQ(loop.kernel, "cublas");
    EXPECT_EQ(loop.provider, "cublaslt");
    ASSERT_EQ(loop.status, Status::ok) << loop.reason;
    // The note, then how many groups ran padded (cuBLASLt's block128 refuses 37, 5, 7 and 2 rows).
    EXPECT_EQ(loop.reason.rfind(kGroupedFp8BaselineNote, 0), 0u) << loop.reason;
    ASSERT_TRUE(loop.grouped);
    EXPECT_TRUE(loop.error.computed);
    EXPECT_LE(loop.error.normwise, loop.error.tolerance);
    ASSERT_TRUE(loop.error.quant_normwise);
    EXPECT_GT(*loop.error.quant_normwise, loop.error.normwise);
    ASSERT_TRUE(loop.time);
    EXPECT_GT(*loop.tflops, 0);
    EXPECT_EQ(lt.kernel, "cublaslt");
    EXPECT_EQ(lt.status, Status::skipped);
    EXPECT_NE(lt.reason.find("cuBLASLt already"), std::string::npos) << lt.reason;
    expect_kernel_row(out.rows[i + 2]);
  }
  for (size_t i = 6; i < 9; ++i) {
    EXPECT_EQ(out.rows[i].status, Status::skipped);
    EXPECT_EQ(out.rows[i].reason, why_group_cannot_run(plan.groups[2]));
    EXPECT_FALSE(out.rows[i].time);
  }
  EXPECT_EQ(out.rows[9].status, Status::skipped);
  EXPECT_EQ(out.rows[9].reason.rfind("cuBLASLt FP8 per group: ", 0), 0u) << out.rows[9].reason;
  expect_kernel_row(out.rows[11]);
}

// A grouped kernel's row (issue 51): the glob matches hgemm_grouped_sm90 and its TMA-store
// variant; each runs a grouped case of each layout it takes, verified group by group like the
// baselines, timed in the group's regime, its ratio to the faster cuBLAS way and that way named.
// The variant's row of the masked case with beta != 0 is skipped with its reason, and so is a
// dense kernel named beside them.
TEST(Runner, AGroupedCaseRunsTheGroupedKernel) {
  GEMMBENCH_REQUIRE_GPU();
  if (current_device_caps().sm != 90) GTEST_SKIP() << "hgemm_grouped_sm90 runs on sm_90 only";
  const auto grouped_run = [](const Grouping& gr, DType t, double beta) {
    return grouped_quick_run({"hgemm_grouped_sm90", "hgemm_grouped_sm90_tma", "hgemm_tn"}, gr, 264,
                             136, t, Accum::f32, beta);
  };
  RunSpec a = grouped_run({{130, 0, 1, 257}, GroupLayout::contiguous, 128, 0}, DType::bf16, 0);
  RunSpec b = grouped_run({{7, 129, 0, 2}, GroupLayout::masked, 1, 160}, DType::f16, 0.5);
  b.measure.regime = Regime::burst;
  const Plan plan = build_plan({a, b}, {}, {}, KernelRegistry::instance());
  ASSERT_EQ(plan.row_count(), 10u)
      << "cublas, cublas_grouped, the grouped kernel and its TMA-store variant, hgemm_tn; twice";
  Runner runner(0, 13);
  Collect out;
  const RunSummary s = runner.run(plan, out, {});
  ASSERT_EQ(out.rows.size(), 10u);
  EXPECT_FALSE(s.aborted);
  for (size_t i = 0; i < 10; i += 5) {
    const CaseResult& loop = out.rows[i];
    const CaseResult& api = out.rows[i + 1];
    ASSERT_TRUE(loop.time && api.time);
    const double faster = std::min(loop.time->median_ms, api.time->median_ms);
    std::map<std::string, const CaseResult*> kernels;
    for (size_t j = i + 2; j < i + 5; ++j) kernels[out.rows[j].kernel] = &out.rows[j];
    ASSERT_EQ(kernels.size(), 3u);
    for (const char* name : {"hgemm_grouped_sm90", "hgemm_grouped_sm90_tma"}) {
      SCOPED_TRACE(::testing::Message() << name << ", case " << i / 5);
      ASSERT_EQ(kernels.count(name), 1u);
      const CaseResult& k = *kernels[name];
      if (i == 5 && std::string(name) == "hgemm_grouped_sm90_tma") {  // masked, max_m 160, beta
        EXPECT_EQ(k.status, Status::skipped);
        EXPECT_NE(k.reason.find("beta != 0 is not built"), std::string::npos) << k.reason;
        EXPECT_FALSE(k.time);
        continue;
      }
      EXPECT_EQ(k.status, Status::ok) << k.reason;
      ASSERT_TRUE(k.grouped);
      EXPECT_TRUE(k.error.computed);
      EXPECT_EQ(k.error.nonfinite, 0) << "a valid row left unwritten (NaN poison)";
      EXPECT_LE(k.error.normwise, k.error.tolerance);
      ASSERT_TRUE(k.time);
      EXPECT_GT(*k.tflops, 0);
      ASSERT_TRUE(k.ratio_to_cublas);
      EXPECT_DOUBLE_EQ(*k.ratio_to_cublas, faster / k.time->median_ms);
      ASSERT_TRUE(k.baseline_way);
      EXPECT_EQ(*k.baseline_way,
                loop.time->median_ms <= api.time->median_ms ? kWayLoop : kWayGroupedApi);
    }
    ASSERT_EQ(kernels.count("hgemm_tn"), 1u);
    EXPECT_EQ(kernels["hgemm_tn"]->status, Status::skipped);
    EXPECT_EQ(kernels["hgemm_tn"]->reason, kDenseKernelGroupedReason);
  }
}

// hgemm, the dispatcher, takes a grouped case: it runs the grouped Hopper kernel (the row records
// it and the grouped rule), verified and timed as the kernel's own row.
TEST(Runner, HgemmRunsAGroupedCaseThroughTheGroupedKernel) {
  GEMMBENCH_REQUIRE_GPU();
  if (current_device_caps().sm != 90) GTEST_SKIP() << "hgemm_grouped_sm90 runs on sm_90 only";
  Grouping gr{{130, 0, 1, 257}, GroupLayout::contiguous, 1, 0};
  const RunSpec r = grouped_quick_run({"hgemm"}, gr, 264, 136, DType::bf16, Accum::f32, 0);
  const Plan plan = build_plan({r}, {}, {}, KernelRegistry::instance());
  ASSERT_EQ(plan.row_count(), 3u) << "cublas, cublas_grouped, hgemm";
  Runner runner(0, 13);
  Collect out;
  const RunSummary s = runner.run(plan, out, {});
  ASSERT_EQ(out.rows.size(), 3u);
  EXPECT_FALSE(s.aborted);
  const CaseResult& k = out.rows[2];
  ASSERT_EQ(k.kernel, "hgemm");
  EXPECT_EQ(k.status, Status::ok) << k.reason;
  EXPECT_EQ(k.chosen_kernel, "hgemm_grouped_sm90");
  EXPECT_EQ(k.chosen_rule, "grouped-persistent-sm90");
  EXPECT_TRUE(k.error.computed);
  EXPECT_EQ(k.error.nonfinite, 0) << "a valid row left unwritten (NaN poison)";
  EXPECT_LE(k.error.normwise, k.error.tolerance);
  ASSERT_TRUE(k.ratio_to_cublas);
}
