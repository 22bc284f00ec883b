// Issue 51's device pieces (src/runner/grouped_gemm.hpp), before the runner runs grouped rows:
// the per-group fp64 reference and the check that leaves padding out, against both cuBLAS ways
// (a cublasGemmEx per group, cublasGemmGroupedBatchedEx), on groupings with empty groups,
// unequal groups, alignment padding and the masked layout.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "gpu_test_util.hpp"
#include "runner/grouped_gemm.hpp"
#include "verify/tolerance.hpp"
#include "grouping_fixtures.hpp"

namespace gemmbench {
namespace {

struct GroupedCase {
  const char* name;
  Grouping grouping;
  int64_t n, k;
  DType type;
  Accum accum;
  double alpha, beta;
};

GemmProblem problem_of(const GroupedCase& c) {
  GemmProblem p;
  p.m = c.grouping.total_m();
  p.n = c.n;
  p.k = c.k;
  p.layout = Layout::tn;
  p.dtype = c.type;
  p.accum = c.accum;
  p.alpha = c.alpha;
  p.beta = c.beta;
  return p;
}

std::vector<GroupedCase> cases() {
  return {
      {"unequal_bf16", contiguous({37, 0, 128, 5, 64, 1}, 1), 96, 72, DType::bf16, Accum::f32, 1,
       0},
      {"padded_f16", contiguous({100, 0, 3, 129}, 128), 64, 136, DType::f16, Accum::f32, 1, 0},
      {"equal_bf16_beta", contiguous({32, 32, 32, 32}, 1), 48, 64, DType::bf16, Accum::f32, 0.5,
       -1.25},
      {"masked_f16", masked({7, 16, 0, 2}, 16), 80, 40, DType::f16, Accum::f32, 1, 0},
      {"f32", contiguous({9, 17}, 1), 33, 29, DType::f32, Accum::f32, 1, 0},
  };
}

class GroupedCublas : public ::testing::TestWithParam<GroupedCase> {};

TEST_P(GroupedCublas, BothWaysMatchThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  const GroupedCase& c = GetParam();
  const GemmProblem p = problem_of(c);
  const Grouping& g = c.grouping;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  ErrorMeter meter;
  GroupedOperands d = make_grouped_operands(p, g, 20261128, DataDist::uniform, meter, stream);
  CublasGemm dense;
  CublasGrouped cublas(dense);

  const ErrorStats loop =
      verify_grouped(p, g, d, meter, stream, [&] { cublas.run_loop(p, g, d, stream); });
  EXPECT_TRUE(verification_passed(loop))
      << "loop: normwise " << loop.normwise << " tolerance " << loop.tolerance << ", "
      << loop.nonfinite << " non-finite";

  cublas.prepare(p, g, d, stream);
  const ErrorStats api =
      verify_grouped(p, g, d, meter, stream, [&] { cublas.run_grouped_api(p, stream); });
  EXPECT_TRUE(verification_passed(api)) << "grouped API: normwise " << api.normwise << " tolerance "
                                        << api.tolerance << ", " << api.nonfinite << " non-finite";
  CUDA_CHECK(cudaStreamDestroy(stream));
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedCublas, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// The check itself fails what it must: a launch that skips one group leaves its rows poisoned
// (NaN), and one that writes a group's rows into the wrong place is off the reference.
TEST(GroupedVerify, AMissingOrMisplacedGroupFails) {
  GEMMBENCH_REQUIRE_GPU();
  const GroupedCase c{"x", contiguous({16, 24, 8}, 8), 32, 64, DType::bf16, Accum::f32, 1, 0};
  const GemmProblem p = problem_of(c);
  const Grouping& g = c.grouping;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  ErrorMeter meter;
  GroupedOperands d = make_grouped_operands(p, g, 7, DataDist::uniform, meter, stream);
  CublasGemm dense;
  CublasGrouped cublas(dense);

  Grouping all_but_last = g;
  all_but_last.m.back() = 0;  // the loop then leaves the last group's rows unwritten
  const ErrorStats missing = verify_grouped(p, g, d, meter, stream, [&] {
    cublas.run_loop(problem_of({"", all_but_last, c.n, c.k, c.type, c.accum, 1, 0}), all_but_last,
                    d, stream);
  });
  EXPECT_FALSE(verification_passed(missing));
  EXPECT_GT(missing.nonfinite, 0);

  // Group 1 computed with group 0's weights: finite, and wrong.
  CublasGemm one;
  const ErrorStats wrong = verify_grouped(p, g, d, meter, stream, [&] {
    cublas.run_loop(p, g, d, stream);
    const size_t es = dtype_bytes(p.dtype);
    one.run(group_dense_problem(p, g.m[1]), d.b.get(),
            static_cast<char*>(d.a.get()) + size_t(d.first_row[1] * p.k) * es,
            static_cast<char*>(d.c.get()) + size_t(d.first_row[1] * p.n) * es, stream);
  });
  EXPECT_EQ(wrong.nonfinite, 0);
  EXPECT_FALSE(verification_passed(wrong)) << "normwise " << wrong.normwise;
  CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GroupedVerify, Fp8AndF16AccumulationAreRefused) {
  GEMMBENCH_REQUIRE_GPU();
  GemmProblem p = problem_of({"", contiguous({4, 4}, 1), 16, 16, DType::e4m3, Accum::f32, 1, 0});
  cudaStream_t stream = nullptr;
  ErrorMeter meter;
  EXPECT_THROW(make_grouped_operands(p, contiguous({4, 4}, 1), 1, DataDist::uniform, meter, stream),
               std::invalid_argument)
      << "cuBLAS has no grouped FP8";
  p = problem_of({"", contiguous({4, 4}, 1), 16, 16, DType::f16, Accum::f16, 1, 0});
  GroupedOperands d =
      make_grouped_operands(p, contiguous({4, 4}, 1), 1, DataDist::uniform, meter, stream);
  CublasGemm dense;
  CublasGrouped cublas(dense);
  EXPECT_THROW(cublas.prepare(p, contiguous({4, 4}, 1), d, stream), std::invalid_argument)
      << "the grouped API is run with f32 accumulation only";
}

}  // namespace
}  // namespace gemmbench
