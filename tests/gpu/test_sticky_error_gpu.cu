// A kernel that faults (illegal address) ends the CUDA context: its row says so, every later row
// is an error "not run", and the run reports itself aborted instead of crashing. Its own binary,
// since the context of this process is unusable afterwards.
#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "plan/plan.hpp"
#include "runner/runner.hpp"

using namespace gemmbench;
using Collect = gemmbench::testing::CollectRows;

namespace {

__global__ void faulting_kernel(float* c) {
  c[threadIdx.x + (size_t(1) << 40)] = 1.f;
}

void launch_faulting(const GemmArgs& a, cudaStream_t s) {
  faulting_kernel<<<1, 32, 0, s>>>(static_cast<float*>(a.c));
}

GEMMBENCH_REGISTER_KERNEL(KernelInfo{"sgemm_test_faults",
                                     "sgemm",
                                     92,
                                     "test: illegal address",
                                     {DType::f32},
                                     {Accum::f32},
                                     {Layout::nn},
                                     50,
                                     {},
                                     launch_faulting});

}  // namespace

TEST(StickyError, EndsTheRunWithEveryRowAccountedFor) {
  GEMMBENCH_REQUIRE_GPU();
  RunSpec r;
  r.name = "t";
  r.kernels = {"sgemm_naive", "sgemm_test_faults", "sgemm_coalesced"};
  r.shapes = {{64, 64, 64}, {32, 32, 32}};
  r.measure.warmup = 0;
  r.measure.min_samples = 2;
  r.measure.min_time_s = 0;
  const Plan plan = build_plan({r}, {}, {}, KernelRegistry::instance());
  Runner runner(0, 1);
  Collect out;
  const RunSummary s = runner.run(plan, out, {});
  EXPECT_TRUE(s.aborted);
  ASSERT_EQ(out.rows.size(), plan.row_count()) << "every planned row is reported";
  // A group verifies every provider before it times any (they are sampled together, in blocks):
  // the fault in the first group's verification leaves its other rows, and every later row,
  // not run, each saying why; the faulting row carries the error itself.
  EXPECT_EQ(out.rows[2].kernel, "sgemm_test_faults");
  EXPECT_EQ(out.rows[2].status, Status::error);
  EXPECT_NE(out.rows[2].reason.find("cudaErrorIllegalAddress"), std::string::npos)
      << out.rows[2].reason;
  for (size_t i = 0; i < out.rows.size(); ++i) {
    if (i == 2) continue;
    EXPECT_EQ(out.rows[i].status, Status::error) << out.rows[i].kernel;
    EXPECT_EQ(out.rows[i].reason.rfind("not run:", 0), 0u) << out.rows[i].reason;
    EXPECT_FALSE(out.rows[i].time) << "nothing timed on a context that is gone";
  }
}
