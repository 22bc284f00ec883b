#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "plan/plan.hpp"

using namespace gemmbench;

namespace {

void noop_launch(const GemmArgs&, cudaStream_t) {}

// A registry of fake kernels, independent of what kernels/ holds.
KernelRegistry make_registry() {
  KernelRegistry reg;
  reg.add(KernelInfo{"sgemm_a",
                     "sgemm",
                     1,
                     "",
                     {DType::f32},
                     {Accum::f32},
                     {Layout::nn, Layout::tn},
                     50,
                     {},
                     noop_launch});
  reg.add(KernelInfo{
      "sgemm_b", "sgemm", 2, "", {DType::f32}, {Accum::f32}, {Layout::nn}, 50, {}, noop_launch});
  reg.add(KernelInfo{"hgemm_tn",
                     "hgemm",
                     1,
                     "",
                     {DType::f16},
                     {Accum::f16, Accum::f32},
                     {Layout::tn},
                     80,
                     {},
                     noop_launch});
  reg.add(KernelInfo{"hgemm_x",
                     "hgemm",
                     2,
                     "",
                     {DType::f16, DType::bf16},
                     {Accum::f32},
                     {Layout::tn},
                     90,
                     {},
                     noop_launch});
  return reg;
}

RunSpec spec(std::vector<std::string> kernels, std::vector<Shape> shapes) {
  RunSpec r;
  r.name = "r";
  r.kernels = std::move(kernels);
  r.shapes = std::move(shapes);
  return r;
}

}  // namespace

TEST(Plan, NativeLayoutAndDtypePerKernel) {
  const KernelRegistry reg = make_registry();
  const Plan p = build_plan({spec({"sgemm_a", "hgemm_tn"}, {{64, 64, 64}})}, {}, {}, reg);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0].problem.layout, Layout::nn);
  EXPECT_EQ(p.groups[0].problem.dtype, DType::f32);
  EXPECT_EQ(p.groups[1].problem.layout, Layout::tn);
  EXPECT_EQ(p.groups[1].problem.dtype, DType::f16);
  EXPECT_EQ(p.groups[1].problem.accum, Accum::f16) << "hgemm_tn's first accum is its native one";
  EXPECT_EQ(p.row_count(), 4u) << "one cuBLAS row per group plus one row per kernel";
}

TEST(Plan, KernelsSharingAProblemShareAGroup) {
  const KernelRegistry reg = make_registry();
  const Plan p = build_plan({spec({"sgemm_*"}, {{64, 64, 64}, {128, 128, 128}})}, {}, {}, reg);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0].kernels.size(), 2u);
  EXPECT_EQ(p.groups[0].problem.m, 64);
  EXPECT_EQ(p.groups[1].problem.m, 128);
}

TEST(Plan, ExplicitLayoutsGiveEveryKernelEveryLayout) {
  const KernelRegistry reg = make_registry();
  RunSpec r = spec({"sgemm_b"}, {{8, 8, 8}});
  r.layouts = {Layout::nn, Layout::tt};
  const Plan p = build_plan({r}, {}, {}, reg);
  ASSERT_EQ(p.groups.size(), 2u)
      << "unsupported layouts become skipped rows at run time, not silence";
  EXPECT_EQ(p.groups[1].problem.layout, Layout::tt);
}

TEST(Plan, AccumDefaultsFollowTheDtype) {
  const KernelRegistry reg = make_registry();
  RunSpec r = spec({"hgemm_tn"}, {{8, 8, 8}});
  r.dtypes = {DType::bf16};
  const Plan p = build_plan({r}, {}, {}, reg);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].problem.accum, Accum::f32) << "f16 accumulation does not exist for bf16";
  r.accums = {Accum::f16};
  EXPECT_THROW(build_plan({r}, {}, {}, reg), UsageError);
}

TEST(Plan, CublasAloneAndAll) {
  const KernelRegistry reg = make_registry();
  const Plan c = build_plan({spec({"cublas"}, {{8, 8, 8}})}, {}, {}, reg);
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_TRUE(c.groups[0].kernels.empty());
  EXPECT_EQ(c.row_count(), 1u);
  const Plan a = build_plan({spec({"all"}, {{8, 8, 8}})}, {}, {}, reg);
  size_t kernels = 0;
  for (const auto& g : a.groups) kernels += g.kernels.size();
  EXPECT_EQ(kernels, 4u);
}

TEST(Plan, UnknownKernelListsTheClosestNames) {
  const KernelRegistry reg = make_registry();
  try {
    build_plan({spec({"hgemm_nt"}, {{8, 8, 8}})}, {}, {}, reg);
    FAIL();
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown kernel 'hgemm_nt'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("hgemm_tn"), std::string::npos) << msg;
  }
  EXPECT_THROW(build_plan({spec({"zzz_*"}, {{8, 8, 8}})}, {}, {}, reg), UsageError);
}

TEST(Plan, MeasurementPrecedenceDefaultsThenRunThenCli) {
  const KernelRegistry reg = make_registry();
  RunSpec r = spec({"sgemm_a"}, {{8, 8, 8}});
  r.measure.min_samples = 5;
  r.measure.warmup = 2;
  MeasureOverrides cli;
  cli.min_samples = 7;
  const Plan p = build_plan({r}, {}, cli, reg);
  EXPECT_EQ(p.groups[0].measure.min_samples, 7);
  EXPECT_EQ(p.groups[0].measure.warmup, 2);
  EXPECT_EQ(p.groups[0].measure.cache, CacheMode::cold) << "cold L2 is the default";
  EXPECT_EQ(p.groups[0].measure.data, DataDist::uniform) << "uniform data is the default";
  r.measure.data = DataDist::int3;
  EXPECT_EQ(build_plan({r}, {}, cli, reg).groups[0].measure.data, DataDist::int3);
  cli.data = DataDist::uniform;
  EXPECT_EQ(build_plan({r}, {}, cli, reg).groups[0].measure.data, DataDist::uniform)
      << "the command line overrides the run";
  MeasureOverrides bad;
  bad.max_time_s = 0.1;
  bad.min_time_s = 1.0;
  EXPECT_THROW(build_plan({r}, {}, bad, reg), UsageError);
}

TEST(Plan, MatricesBeyond32BitIndexingAreRefused) {
  const KernelRegistry reg = make_registry();
  try {
    build_plan({spec({"sgemm_a"}, {{70000, 70000, 8}})}, {}, {}, reg);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("matrix C"), std::string::npos) << e.what();
  }
}

TEST(Plan, HugeSweepsAreRefusedBeforeExpansion) {
  const KernelRegistry reg = make_registry();
  std::vector<Shape> shapes;
  for (int i = 1; i <= 40000; ++i) shapes.push_back({i, 1, 1});
  EXPECT_THROW(build_plan({spec({"all"}, shapes)}, {}, {}, reg), UsageError);
  EXPECT_THROW(cross_shapes(std::vector<int64_t>(1000, 1), std::vector<int64_t>(1000, 1), {1}),
               UsageError);
}
