// The end of a group (runner/epilogue.hpp) on made-up members: which rows give the baselines'
// medians, and each row's status, reason, figures and ratios once its sampling is over.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <vector>

#include "core/interrupt.hpp"
#include "plan/plan.hpp"
#include "runner/energy.hpp"
#include "runner/epilogue.hpp"

using namespace gemmbench;

namespace {

ProblemGroup group(Regime regime = Regime::sustained, bool verify = true) {
  ProblemGroup g;
  g.problem.m = 1024;
  g.problem.n = 2048;
  g.problem.k = 512;
  g.measure.regime = regime;
  g.measure.verify = verify;
  g.measure.baseline = Baseline::both;
  return g;
}

// A member that verified and took `samples_ms` in blocks of `per_block`, its regime held or not.
Member sampled(GroupRole role, std::vector<double> samples_ms, bool held = true,
               size_t per_block = 2) {
  Member m;
  m.role = role;
  m.r.regime.held = held;
  m.r.kernel = role == GroupRole::cublas     ? "cublas"
               : role == GroupRole::cublaslt ? "cublaslt"
                                             : "k";
  m.r.error.computed = true;
  m.r.error.normwise = 1e-4;
  m.r.error.tolerance = 1e-3;
  for (size_t i = 0; i < samples_ms.size(); i += per_block) {
    const size_t end = std::min(i + per_block, samples_ms.size());
    double sum = 0;
    for (size_t j = i; j < end; ++j) sum += samples_ms[j];
    m.block_medians.push_back(sum / double(end - i));
  }
  m.samples = std::move(samples_ms);
  take_time(m);
  return m;
}

// Restores the stop flag whatever a test does.
struct StopFlag {
  explicit StopFlag(int sig) { stop_signal().store(sig); }
  ~StopFlag() { stop_signal().store(0); }
};

}  // namespace

TEST(GroupEpilogue, TakeTimeOnlyForAHeldRowWithSamples) {
  Member m = sampled(GroupRole::kernel, {2.0, 1.0, 3.0});
  ASSERT_TRUE(m.r.time);
  EXPECT_DOUBLE_EQ(m.r.time->median_ms, 2.0);
  Member not_held;
  not_held.samples = {1.0};
  not_held.r.regime.held = false;
  take_time(not_held);
  EXPECT_FALSE(not_held.r.time);
  Member none;
  take_time(none);
  EXPECT_FALSE(none.r.time);
}

TEST(GroupEpilogue, BaselinesComeFromTheBaselineRowsThatDidNotFail) {
  Member cublas = sampled(GroupRole::cublas, {4.0, 4.0});
  Member lt = sampled(GroupRole::cublaslt, {3.0, 3.0});
  Member k = sampled(GroupRole::kernel, {1.0, 1.0});
  std::vector<Member*> timed{&cublas, &lt, &k};
  GroupBaselines b = baseline_medians(timed, false);
  EXPECT_EQ(b.cublas_ms, 4.0);
  EXPECT_EQ(b.cublaslt_ms, 3.0);

  // An FP8 problem's cublas row is the cuBLASLt baseline too.
  b = baseline_medians({&cublas, &k}, true);
  EXPECT_EQ(b.cublas_ms, 4.0);
  EXPECT_EQ(b.cublaslt_ms, 4.0);

  // A baseline row that errored, or held no regime (no time), gives no figure.
  cublas.r.status = Status::error;
  lt.r.time.reset();
  b = baseline_medians(timed, false);
  EXPECT_FALSE(b.cublas_ms);
  EXPECT_FALSE(b.cublaslt_ms);
}

TEST(GroupEpilogue, AVerifiedKernelRowIsOkWithItsFiguresAndRatios) {
  const ProblemGroup g = group();
  Member k = sampled(GroupRole::kernel, {1.0, 1.0, 1.2, 1.2});
  k.settles = 2;
  k.settle_s = 0.5;
  const std::optional<CublasLtChoice> algo = CublasLtChoice{3, 8, 5, 21, "128x256", "64x4"};
  finish_row(k, g, GroupBaselines{2.2, 1.65}, RunSummary{}, &algo);
  const CaseResult& r = k.r;
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.reason, "");
  EXPECT_EQ(r.regime.blocks, 2);
  EXPECT_EQ(r.regime.settle_mean_s, 0.25);
  ASSERT_TRUE(r.regime.block_spread_pct);
  EXPECT_NEAR(*r.regime.block_spread_pct, 20.0, 1e-9);
  ASSERT_TRUE(r.tflops);
  EXPECT_NEAR(*r.tflops, g.problem.flops() / 1.1e-3 / 1e12, 1e-9);
  EXPECT_NEAR(r.ratio_to_cublas.value_or(0), 2.0, 1e-12);
  EXPECT_NEAR(r.ratio_to_cublaslt.value_or(0), 1.5, 1e-12);
  ASSERT_TRUE(r.cublaslt_algo) << "a kernel row carries the cublaslt row's algorithm";
  EXPECT_EQ(r.cublaslt_algo->algo_id, 21);
  EXPECT_TRUE(r.samples_ms.empty()) << "samples only with keep_samples";
}

TEST(GroupEpilogue, TheCublasRowHasNoRatioAndKeepsItsOwnAlgorithm) {
  ProblemGroup g = group();
  g.measure.keep_samples = true;
  Member c = sampled(GroupRole::cublas, {2.0, 2.0});
  const std::optional<CublasLtChoice> algo = CublasLtChoice{};
  finish_row(c, g, GroupBaselines{2.0, 1.0}, RunSummary{}, &algo);
  EXPECT_EQ(c.r.status, Status::ok);
  EXPECT_FALSE(c.r.ratio_to_cublas);
  EXPECT_FALSE(c.r.ratio_to_cublaslt);
  EXPECT_FALSE(c.r.cublaslt_algo);
  EXPECT_EQ(c.r.samples_ms, (std::vector<double>{2.0, 2.0}));
}

TEST(GroupEpilogue, VerificationDecidesOkOrFailed) {
  Member bad = sampled(GroupRole::kernel, {1.0});
  bad.r.error.normwise = 0.5;
  finish_row(bad, group(), {}, RunSummary{}, nullptr);
  EXPECT_EQ(bad.r.status, Status::failed);
  EXPECT_EQ(bad.r.reason, "normwise error above tolerance");

  Member nan = sampled(GroupRole::kernel, {1.0});
  nan.r.error.nonfinite = 7;
  finish_row(nan, group(), {}, RunSummary{}, nullptr);
  EXPECT_EQ(nan.r.status, Status::failed);
  EXPECT_EQ(nan.r.reason, "7 non-finite elements (unwritten or overflow)");

  Member unverified = sampled(GroupRole::kernel, {1.0});
  unverified.r.error = ErrorStats{};
  finish_row(unverified, group(Regime::sustained, false), {}, RunSummary{}, nullptr);
  EXPECT_EQ(unverified.r.status, Status::ok);
  EXPECT_EQ(unverified.r.reason, "not verified");
}

TEST(GroupEpilogue, ARowWithNoSampleSaysWhy) {
  Member m;
  finish_row(m, group(), {}, RunSummary{}, nullptr);
  EXPECT_EQ(m.r.status, Status::error);
  EXPECT_EQ(m.r.reason, "not run: no sample within max_time");

  RunSummary aborted;
  aborted.aborted = true;
  aborted.abort_reason = "CUDA context lost: illegal address";
  Member a;
  finish_row(a, group(), {}, aborted, nullptr);
  EXPECT_EQ(a.r.reason, "not run: CUDA context lost: illegal address");

  // A burst that discarded every batch (the clock under its floor from the first) ran: not_held,
  // with its sampler's note; one that never ran a batch did not.
  Member capped;
  capped.r.regime.held = false;
  capped.r.regime.batches_discarded = 7;
  capped.r.reason =
      "burst not held: kept 0 of the 10 samples asked, 56 discarded; SM clock 1395 MHz after the "
      "ramp, down to 1360 MHz";
  finish_row(capped, group(Regime::burst), {}, RunSummary{}, nullptr);
  EXPECT_EQ(capped.r.status, Status::not_held);
  EXPECT_EQ(capped.r.reason,
            "burst not held: kept 0 of the 10 samples asked, 56 discarded; SM clock 1395 MHz after "
            "the ramp, down to 1360 MHz");
  EXPECT_FALSE(capped.r.tflops);
  Member unrun;
  finish_row(unrun, group(Regime::burst), {}, RunSummary{}, nullptr);
  EXPECT_EQ(unrun.r.status, Status::error);
  EXPECT_EQ(unrun.r.reason, "not run: no sample within max_time");

  const StopFlag stop(SIGINT);
  Member i;
  finish_row(i, group(), {}, RunSummary{}, nullptr);
  EXPECT_EQ(i.r.reason, kInterruptedReason);
}

TEST(GroupEpilogue, AnInterruptedRowSaysHowManySamplesItHas) {
  Member m = sampled(GroupRole::kernel, {1.0, 1.0, 1.0});
  const StopFlag stop(SIGTERM);
  finish_row(m, group(), {}, RunSummary{}, nullptr);
  EXPECT_EQ(m.r.status, Status::ok);
  EXPECT_EQ(m.r.reason, "sampling interrupted after 3 samples");
}

TEST(GroupEpilogue, ARegimeNotHeldIsNotHeldWithoutFigures) {
  Member s = sampled(GroupRole::kernel, {1.0, 1.0}, false);
  ASSERT_FALSE(s.r.time);
  s.r.regime.precondition_s = 8.04;
  s.r.regime.precondition_spread_pct = 2.46;
  finish_row(s, group(Regime::sustained), GroupBaselines{2.0, 2.0}, RunSummary{}, nullptr);
  EXPECT_EQ(s.r.status, Status::not_held);
  EXPECT_EQ(s.r.reason,
            "sustained not held: the group's event times did not settle in 8.0 s (last windows "
            "2.5% apart)");
  EXPECT_FALSE(s.r.tflops);
  EXPECT_FALSE(s.r.ratio_to_cublas);

  // Where the long-span test had its history, the reason says what the spans saw too.
  Member sp = sampled(GroupRole::kernel, {1.0, 1.0}, false);
  sp.r.regime.precondition_s = 8.02;
  sp.r.regime.precondition_spread_pct = 4.4;
  sp.r.regime.precondition_span_s = 1.5;
  sp.r.regime.precondition_span_spread_pct = 1.62;
  sp.r.regime.precondition_span_trend_pct = -1.58;
  finish_row(sp, group(Regime::sustained), GroupBaselines{2.0, 2.0}, RunSummary{}, nullptr);
  EXPECT_EQ(sp.r.reason,
            "sustained not held: the group's event times did not settle in 8.0 s (last windows "
            "4.4% apart; 1.5 s spans 1.6% apart, -1.6% first to last)");

  // A burst row's reason was written by its sampler: nothing is added.
  Member b = sampled(GroupRole::kernel, {1.0}, false);
  b.r.reason = "burst not held: kept 1 of 10 samples";
  finish_row(b, group(Regime::burst), {}, RunSummary{}, nullptr);
  EXPECT_EQ(b.r.status, Status::not_held);
  EXPECT_EQ(b.r.reason, "burst not held: kept 1 of 10 samples");
}

TEST(GroupEpilogue, AnErrorRowIsLeftAsItIs) {
  Member m = sampled(GroupRole::kernel, {1.0, 1.0});
  m.r.status = Status::error;
  m.r.reason = "an illegal memory access was encountered";
  finish_row(m, group(), GroupBaselines{2.0, 2.0}, RunSummary{}, nullptr);
  EXPECT_EQ(m.r.status, Status::error);
  EXPECT_EQ(m.r.reason, "an illegal memory access was encountered");
  EXPECT_EQ(m.r.regime.blocks, 0);
  EXPECT_FALSE(m.r.ratio_to_cublas);
}

TEST(EnergyWindow, AtLeastTheWindowOrTwentyLaunchesWithinTheLongWindow) {
  EXPECT_EQ(energy_launches(1e-3), 600) << "0.6 s of 1 ms launches";
  EXPECT_EQ(energy_launches(0.1), 20) << "20 launches: 2 s, within the long window";
  EXPECT_EQ(energy_launches(0.5), 4) << "a 0.5 s launch: as many as fit in 2 s";
  EXPECT_EQ(energy_launches(5.0), 1);
  EXPECT_EQ(energy_launches(0.0), 1000000) << "a launch of no time: the cap";
}

// A grouped case cuBLAS runs two ways (plan.hpp, has_grouped_api_row): its kernel rows divide by
// the faster and name it; the grouped API's row divides by the loop (how the API fares against
// it); the loop's row, the cublas role, takes no ratio.
TEST(GroupEpilogue, AGroupedCaseDividesByTheFasterCublasWayAndNamesIt) {
  ProblemGroup g = group();
  g.measure.baseline = Baseline::cublas;
  g.grouped = GroupedGemm{};
  Member loop = sampled(GroupRole::cublas, {3.0, 3.0});
  Member api = sampled(GroupRole::cublas_grouped, {2.0, 2.0});
  Member k = sampled(GroupRole::kernel, {1.0, 1.0});
  for (Member* m : {&loop, &api, &k}) m->r.grouped = g.grouped;
  std::vector<Member*> timed{&loop, &api, &k};
  const GroupBaselines b = baseline_medians(timed, false);
  EXPECT_EQ(b.cublas_ms, 3.0);
  EXPECT_EQ(b.cublas_grouped_ms, 2.0);
  for (Member* m : timed) finish_row(*m, g, b, RunSummary{}, nullptr);
  EXPECT_FALSE(loop.r.ratio_to_cublas);
  EXPECT_FALSE(loop.r.baseline_way);
  EXPECT_NEAR(api.r.ratio_to_cublas.value_or(0), 1.5, 1e-12) << "the API over the loop";
  EXPECT_FALSE(api.r.baseline_way);
  EXPECT_NEAR(k.r.ratio_to_cublas.value_or(0), 2.0, 1e-12) << "over the faster way, the API";
  EXPECT_EQ(k.r.cublas_median_ms, 2.0);
  EXPECT_EQ(k.r.baseline_way.value_or(""), kWayGroupedApi);

  // The loop faster (many rows an expert): the kernel divides by it and says so.
  Member api_slow = sampled(GroupRole::cublas_grouped, {6.0, 6.0});
  Member k2 = sampled(GroupRole::kernel, {1.5, 1.5});
  k2.r.grouped = g.grouped;
  std::vector<Member*> timed2{&loop, &api_slow, &k2};
  const GroupBaselines b2 = baseline_medians(timed2, false);
  finish_row(k2, g, b2, RunSummary{}, nullptr);
  EXPECT_NEAR(k2.r.ratio_to_cublas.value_or(0), 2.0, 1e-12);
  EXPECT_EQ(k2.r.baseline_way.value_or(""), kWayLoop);

  // The grouped API not timed (skipped: f16 accumulation): the loop, named.
  Member k3 = sampled(GroupRole::kernel, {1.0, 1.0});
  k3.r.grouped = g.grouped;
  finish_row(k3, g, GroupBaselines{3.0, std::nullopt, std::nullopt}, RunSummary{}, nullptr);
  EXPECT_NEAR(k3.r.ratio_to_cublas.value_or(0), 3.0, 1e-12);
  EXPECT_EQ(k3.r.baseline_way.value_or(""), kWayLoop);

  // A dense case never names a way.
  Member dense = sampled(GroupRole::kernel, {1.0, 1.0});
  finish_row(dense, group(), GroupBaselines{2.0, 2.0}, RunSummary{}, nullptr);
  EXPECT_FALSE(dense.r.baseline_way);
}

// An FP8 grouped case (plan.hpp, kGroupedFp8BaselineNote): one baseline row, the cuBLASLt loop
// (cuBLAS has no grouped FP8 GEMM). Its row says what it is once it has its figures, whatever
// its verdict; a kernel row divides by it and names that way; the cublaslt row, where selected,
// is the same loop (lt_is_cublas).
TEST(GroupEpilogue, AnFp8GroupedCaseDividesByTheCublasltLoopAndTheRowSaysWhatItIs) {
  ProblemGroup g = group();
  g.problem.dtype = DType::e4m3;
  g.problem.scale = ScaleMode::block128;
  g.problem.out = DType::bf16;
  g.grouped = GroupedGemm{};
  Member loop = sampled(GroupRole::cublas, {4.0, 4.0});
  loop.note = kGroupedFp8BaselineNote;
  Member k = sampled(GroupRole::kernel, {2.0, 2.0});
  for (Member* m : {&loop, &k}) {
    m->r.problem = g.problem;
    m->r.grouped = g.grouped;
  }
  std::vector<Member*> timed{&loop, &k};
  const GroupBaselines b = baseline_medians(timed, true);
  EXPECT_EQ(b.cublaslt_ms, 4.0) << "the cublaslt figure of an FP8 group is its cublas row's";
  for (Member* m : timed) finish_row(*m, g, b, RunSummary{}, nullptr);
  EXPECT_EQ(loop.r.status, Status::ok);
  EXPECT_EQ(loop.r.reason, kGroupedFp8BaselineNote);
  EXPECT_FALSE(loop.r.baseline_way);
  EXPECT_TRUE(k.r.reason.empty()) << "a kernel row has no note: " << k.r.reason;
  EXPECT_NEAR(k.r.ratio_to_cublas.value_or(0), 2.0, 1e-12);
  EXPECT_NEAR(k.r.ratio_to_cublaslt.value_or(0), 2.0, 1e-12);
  EXPECT_EQ(k.r.baseline_way.value_or(""), kWayLtLoop);

  // Failed verification keeps the failure first and the note after it.
  Member bad = sampled(GroupRole::cublas, {4.0, 4.0});
  bad.note = kGroupedFp8BaselineNote;
  bad.r.error.normwise = 1.0;
  finish_row(bad, g, b, RunSummary{}, nullptr);
  EXPECT_EQ(bad.r.status, Status::failed);
  EXPECT_EQ(bad.r.reason,
            std::string("normwise error above tolerance; ") + kGroupedFp8BaselineNote);
}
