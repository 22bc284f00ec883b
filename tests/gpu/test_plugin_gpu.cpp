// Plugins on a real device: the example plugin (examples/plugin) runs through the runner and
// verifies against the fp64 reference over shapes that break its 32x32 tiles, with beta != 0, as
// built against the current header and against version 1's; a plugin whose launch fails gives an
// error row with its message, and the run goes on; ABI version 2's FP8 plugin verifies in every
// scaling and pair, with C column-major and row-major, its A scales laid out by prepare().
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "gpu_test_util.hpp"
#include "plan/plan.hpp"
#include "plugin/plugin.hpp"
#include "runner/runner.hpp"

using namespace gemmbench;
using Collect = gemmbench::testing::CollectRows;

namespace {

// Both plugins join the process registry once: the runner's dispatch and lookups read it.
void load_test_plugins() {
  process_plugins().load_all(std::vector<PluginSource>{{GB_PLUGIN_EXAMPLE, "test"},
                                                       {GB_PLUGIN_LAUNCH_FAILS, "test"},
                                                       {GB_PLUGIN_FP8_REFERENCE, "test"}});
}

RunSpec quick_run(std::vector<std::string> kernels, std::vector<Shape> shapes, double beta) {
  RunSpec r;
  r.name = "plugin";
  r.kernels = std::move(kernels);
  r.shapes = std::move(shapes);
  r.beta = beta;
  r.measure.warmup = 1;
  r.measure.min_samples = 3;
  r.measure.min_time_s = 0.0;
  r.measure.max_time_s = 2.0;
  return r;
}

}  // namespace

TEST(PluginGpu, ExampleVerifiesBesideCublas) {
  GEMMBENCH_REQUIRE_GPU();
  load_test_plugins();
  const std::vector<Shape> shapes = {{1, 1, 1},     {31, 33, 17},    {32, 32, 32},
                                     {97, 61, 131}, {256, 128, 512}, {1024, 1000, 999}};
  const Plan plan = build_plan({quick_run({"tiled_hgemm"}, shapes, 0.0),
                                quick_run({"tiled_hgemm"}, {{65, 129, 33}, {512, 512, 512}}, 0.5)},
                               {}, {}, KernelRegistry::instance());
  Collect out;
  Runner runner(0, 7);
  const RunSummary s = runner.run(plan, out, {});
  EXPECT_FALSE(s.aborted);
  size_t plugin_rows = 0;
  for (const CaseResult& r : out.rows) {
    SCOPED_TRACE(r.kernel + " " + r.problem.shape_string() + " beta " +
                 std::to_string(r.problem.beta));
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    if (r.kernel != "tiled_hgemm") continue;
    ++plugin_rows;
    EXPECT_EQ(r.problem.dtype, DType::f16);
    EXPECT_EQ(r.problem.accum, Accum::f32);
    EXPECT_EQ(r.problem.layout, Layout::tn);
    EXPECT_TRUE(r.error.computed);
    EXPECT_EQ(r.error.nonfinite, 0);
    EXPECT_LE(r.error.normwise, r.error.tolerance);
    ASSERT_TRUE(r.time.has_value());
    EXPECT_GT(r.time->median_ms, 0.0);
    EXPECT_TRUE(r.ratio_to_cublas.has_value());
  }
  EXPECT_EQ(plugin_rows, shapes.size() + 2);
}

TEST(PluginGpu, AFailingLaunchIsAnErrorRowAndTheRunGoesOn) {
  GEMMBENCH_REQUIRE_GPU();
  load_test_plugins();
  const Plan plan =
      build_plan({quick_run({"failing_launch", "tiled_hgemm"}, {{64, 64, 64}, {64, 64, 63}}, 0.0)},
                 {}, {}, KernelRegistry::instance());
  Collect out;
  Runner runner(0, 7);
  const RunSummary s = runner.run(plan, out, {});
  EXPECT_FALSE(s.aborted);
  ASSERT_EQ(out.rows.size(), 6u);  // per problem: cublas, failing_launch, tiled_hgemm
  for (const CaseResult& r : out.rows) {
    SCOPED_TRACE(r.kernel + " " + r.problem.shape_string());
    if (r.kernel == "failing_launch" && r.problem.k == 64) {
      EXPECT_EQ(r.status, Status::error);
      EXPECT_NE(r.reason.find("launch returned 3: no tensor cores today"), std::string::npos)
          << r.reason;
    } else if (r.kernel == "failing_launch") {
      EXPECT_EQ(r.status, Status::skipped);  // its supports() declines odd K
      EXPECT_EQ(r.reason, "K must be even (got 63)");
    } else {
      EXPECT_EQ(r.status, Status::ok) << r.reason;
    }
  }
}

// The example compiled against version 1's header (tests/plugins/abi1), in a registry of its own
// (its kernel has the current example's name): loaded and verified unchanged.
TEST(PluginGpu, AVersion1PluginVerifiesBesideCublas) {
  GEMMBENCH_REQUIRE_GPU();
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_EXAMPLE_ABI1, "test"});
  const Plan plan = build_plan({quick_run({"tiled_hgemm"}, {{97, 61, 131}, {256, 128, 512}}, 0.0),
                                quick_run({"tiled_hgemm"}, {{65, 129, 33}}, 0.5)},
                               {}, {}, reg);
  Collect out;
  Runner runner(0, 7);
  const RunSummary s = runner.run(plan, out, {});
  EXPECT_FALSE(s.aborted);
  size_t plugin_rows = 0;
  for (const CaseResult& r : out.rows) {
    SCOPED_TRACE(r.kernel + " " + r.problem.shape_string());
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    if (r.kernel != "tiled_hgemm") continue;
    ++plugin_rows;
    EXPECT_TRUE(r.error.computed);
    EXPECT_LE(r.error.normwise, r.error.tolerance);
  }
  EXPECT_EQ(plugin_rows, 3u);
}

namespace {

// A's type `a` times each B type in `b` (the plan refuses e5m2 x e5m2: no baseline has it).
RunSpec fp8_run(std::vector<std::string> kernels, std::vector<Shape> shapes, double beta,
                DType a = DType::e4m3, std::vector<DType> b = {DType::e4m3, DType::e5m2}) {
  RunSpec r = quick_run(std::move(kernels), std::move(shapes), beta);
  r.dtypes = {a};
  r.dtypes_b = std::move(b);
  r.scales = {ScaleMode::tensor, ScaleMode::row, ScaleMode::block128};
  r.alpha = 1.25;
  // ~45 groups of tiny shapes: sustained sampling (each group run to steady state first) took
  // over 90 s on an H200; a burst from a cool board verifies the same rows in seconds.
  r.measure.regime = Regime::burst;
  return r;
}

}  // namespace

// Every scaling, every FP8 pair, C of bf16 and f32, shapes off every 128 (partial K-blocks and
// N-blocks of the block scales). A wrong scale pointer or layout, a lost workspace, a skipped
// prepare() or a row-major C read as column-major all fail the check.
TEST(PluginGpu, Version2Fp8VerifiesInEveryScalingBothOrdersOfC) {
  GEMMBENCH_REQUIRE_GPU();
  load_test_plugins();
  const std::vector<Shape> shapes = {{64, 128, 256}, {200, 384, 656}, {37, 200, 300}};
  RunSpec f32_out = fp8_run({"fp8_ref_*"}, {{96, 160, 384}}, 0.0);
  f32_out.out = DType::f32;
  RunSpec f32_out_e5m2 = fp8_run({"fp8_ref_*"}, {{96, 160, 384}}, 0.0, DType::e5m2, {DType::e4m3});
  f32_out_e5m2.out = DType::f32;
  const Plan plan =
      build_plan({fp8_run({"fp8_ref_*"}, shapes, 0.0),
                  fp8_run({"fp8_ref_*"}, shapes, 0.0, DType::e5m2, {DType::e4m3}), f32_out,
                  f32_out_e5m2, fp8_run({"fp8_ref_*"}, {{130, 136, 272}}, 0.5),
                  fp8_run({"fp8_ref_*"}, {{130, 136, 272}}, 0.5, DType::e5m2, {DType::e4m3})},
                 {}, {}, KernelRegistry::instance());
  Collect out;
  Runner runner(0, 11);
  const RunSummary s = runner.run(plan, out, {});
  EXPECT_FALSE(s.aborted);
  size_t verified = 0, row_major_beta = 0;
  for (const CaseResult& r : out.rows) {
    if (r.kernel.rfind("fp8_ref_", 0) != 0) continue;
    SCOPED_TRACE(r.kernel + " " + r.problem.shape_string() + " " + r.problem.type_string() +
                 " beta " + std::to_string(r.problem.beta));
    if (r.kernel == "fp8_ref_rows" && r.problem.beta != 0) {
      ++row_major_beta;
      EXPECT_EQ(r.status, Status::skipped);
      EXPECT_NE(r.reason.find("writes C row-major"), std::string::npos) << r.reason;
      continue;
    }
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_TRUE(r.error.computed);
    EXPECT_EQ(r.error.nonfinite, 0);
    EXPECT_LE(r.error.normwise, r.error.tolerance);
    ++verified;
  }
  // 3 pairs x 3 scalings: 3 shapes x 2 kernels + 1 f32 shape x 2 + beta 0.5 x 1 (cols).
  EXPECT_EQ(verified, 9u * (3 * 2 + 2 + 1));
  EXPECT_EQ(row_major_beta, 9u);
}
