// Issue 51's device pieces (src/runner/grouped_gemm.hpp), before the runner runs grouped rows:
// the per-group fp64 reference and the check that leaves padding out, against both cuBLAS ways
// (a cublasGemmEx per group, cublasGemmGroupedBatchedEx), on groupings with empty groups,
// unequal groups, alignment padding and the masked layout; and for FP8, the cuBLASLt loop
// (CublasLtGroupedLoop) against the per-group reference of the dequantized inputs, the grouped
// scale layouts the reference reads, and the check failing a group left out or misscaled.
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_caps.hpp"
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
  return grouped_problem(c.grouping, c.n, c.k, c.type, c.accum, c.alpha, c.beta);
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

// cuBLAS's two ways refuse FP8 (cuBLAS has no grouped FP8 GEMM: CublasLtGroupedLoop runs it), and
// the grouped API f16 accumulation.
TEST(GroupedVerify, CublasRefusesFp8AndTheApiF16Accumulation) {
  GEMMBENCH_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ErrorMeter meter;
  CublasGemm dense;
  CublasGrouped cublas(dense);
  GemmProblem p = problem_of({"", contiguous({4, 4}, 1), 16, 16, DType::e4m3, Accum::f32, 1, 0});
  p.scale = ScaleMode::tensor;
  p.out = DType::bf16;
  GroupedOperands f =
      make_grouped_operands(p, contiguous({4, 4}, 1), 1, DataDist::uniform, meter, stream);
  EXPECT_THROW(cublas.prepare(p, contiguous({4, 4}, 1), f, stream), std::invalid_argument)
      << "cuBLAS has no grouped FP8";
  p = problem_of({"", contiguous({4, 4}, 1), 16, 16, DType::f16, Accum::f16, 1, 0});
  GroupedOperands d =
      make_grouped_operands(p, contiguous({4, 4}, 1), 1, DataDist::uniform, meter, stream);
  EXPECT_THROW(cublas.prepare(p, contiguous({4, 4}, 1), d, stream), std::invalid_argument)
      << "the grouped API is run with f32 accumulation only";
}

// ---- FP8 (issue 51): the cuBLASLt loop against the per-group reference of the dequantized inputs

struct Fp8GroupedCase {
  const char* name;
  Grouping grouping;
  int64_t n, k;
  ScaleMode scale;
  DType b_type;  // the weights' type (A's is e4m3)
  double beta;
};

GemmProblem fp8_problem_of(const Fp8GroupedCase& c) {
  GemmProblem p = problem_of(
      {"", c.grouping, c.n, c.k, DType::e4m3, Accum::f32, c.beta == 0 ? 1.0 : 0.75, c.beta});
  if (c.b_type != DType::e4m3) p.dtype_b = c.b_type;
  p.out = DType::bf16;
  p.scale = c.scale;
  return p;
}

// N beside 128 (a partial last 128-row block per expert), K with a partial last 128-block; groups
// of 1, 5 and 37 rows (not multiples of 4: cuBLASLt's VEC128 scales of the activations are M_g
// long), empty groups, padding and the masked layout.
std::vector<Fp8GroupedCase> fp8_cases() {
  return {
      {"unequal_block128", contiguous({37, 0, 128, 5, 64, 1}, 1), 200, 272, ScaleMode::block128,
       DType::e4m3, 0},
      {"padded_block128", contiguous({100, 0, 3, 129}, 128), 128, 384, ScaleMode::block128,
       DType::e4m3, 0},
      {"masked_block128", masked({7, 16, 0, 2}, 16), 136, 256, ScaleMode::block128, DType::e4m3, 0},
      {"equal_block128_beta", contiguous({32, 32, 32}, 1), 256, 128, ScaleMode::block128,
       DType::e4m3, -0.5},
      {"unequal_tensor", contiguous({37, 0, 64, 5}, 8), 200, 272, ScaleMode::tensor, DType::e4m3,
       0},
      {"unequal_row", contiguous({37, 0, 64, 5}, 8), 200, 272, ScaleMode::row, DType::e4m3, 0},
      {"e4m3xe5m2_block128", contiguous({37, 0, 64, 5}, 16), 200, 272, ScaleMode::block128,
       DType::e5m2, 0},
  };
}

bool cublaslt_fp8_device() {
  return current_device_caps().sm >= 90;  // cuBLASLt's FP8 with 128-block scales: Hopper
}

class GroupedCublasLtFp8 : public ::testing::TestWithParam<Fp8GroupedCase> {};

// Every group's cuBLASLt call with its own dense problem (the weights as A, block128's blocks on
// it) and its own scales, checked together with the padding left out; the quantization error,
// against the unquantized f32 product, is reported beside it and is the format's (far above the
// verification error, below e4m3's reach).
TEST_P(GroupedCublasLtFp8, TheLoopMatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  if (!cublaslt_fp8_device()) GTEST_SKIP() << "cuBLASLt's FP8 block scales need sm_90";
  const Fp8GroupedCase& c = GetParam();
  const GemmProblem p = fp8_problem_of(c);
  const Grouping& g = c.grouping;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  ErrorMeter meter;
  GroupedOperands d = make_grouped_operands(p, g, 20261129, DataDist::uniform, meter, stream);
  CublasLtGemm lt;
  CublasLtGroupedLoop loop(lt);
  int touched = 0;
  for (int64_t m : g.m) touched += m > 0;
  const std::string why = loop.prepare(p, g, d, stream, [] {});
  // A pair with e5m2 is cuBLASLt's heuristic's to take or refuse (docs/fp8.md, "e5m2"): visibly.
  if (!why.empty() && c.b_type != DType::e4m3) GTEST_SKIP() << "cuBLASLt refused: " << why;
  ASSERT_EQ(why, "") << "cuBLASLt refused a group";
  EXPECT_EQ(loop.calls(), size_t(touched)) << "one call per group with rows";
  const ErrorStats e = verify_grouped(p, g, d, meter, stream, [&] { loop.run(stream); });
  EXPECT_TRUE(verification_passed(e)) << "normwise " << e.normwise << " tolerance " << e.tolerance
                                      << ", " << e.nonfinite << " non-finite";
  ASSERT_TRUE(e.quant_normwise);
  EXPECT_GT(*e.quant_normwise, 5 * e.normwise);
  EXPECT_LT(*e.quant_normwise, 0.15);
  std::printf("[ %s ] normwise %.3g (%.2f of the bound), quantization error %.3g\n", c.name,
              e.normwise, e.normwise / e.tolerance, *e.quant_normwise);
  CUDA_CHECK(cudaStreamDestroy(stream));
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedCublasLtFp8, ::testing::ValuesIn(fp8_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

template <class T>
std::vector<T> download(const DeviceBuffer& b, size_t count) {
  std::vector<T> h(count);
  CUDA_CHECK(cudaMemcpy(h.data(), b.get(), count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

double e4m3_value(uint8_t q) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(q, __NV_E4M3)));
}

// The reference reads the grouped scales where docs/grouped.md puts them, computed here on the
// host from the layout alone, element by element: A's block128 scale of stored row r at
// r * KB + kb, expert g's weights' 128x128 block (nb, kb) at (g * ceil(N/128) + nb) * KB + kb.
TEST(GroupedFp8Reference, ReadsTheScalesWhereTheLayoutPutsThem) {
  GEMMBENCH_REQUIRE_GPU();
  const Fp8GroupedCase c{
      "", contiguous({3, 0, 130, 2}, 8), 136, 272, ScaleMode::block128, DType::e4m3, 0};
  const GemmProblem p = fp8_problem_of(c);
  const Grouping& g = c.grouping;
  cudaStream_t stream = nullptr;
  ErrorMeter meter;
  GroupedOperands d = make_grouped_operands(p, g, 5, DataDist::uniform, meter, stream);
  const int64_t kb = 3, nb = 2, rows = g.stored_rows(), G = g.groups();
  const std::vector<uint8_t> a = download<uint8_t>(d.a, size_t(rows * p.k));
  const std::vector<uint8_t> b = download<uint8_t>(d.b, size_t(G * p.n * p.k));
  const std::vector<float> sa = download<float>(d.scale_a, size_t(rows * kb));
  const std::vector<float> sb = download<float>(d.scale_b, size_t(G * nb * kb));
  const std::vector<double> ref = download<double>(d.ref, size_t(g.total_m() * p.n));
  const std::vector<int64_t> first = g.row_offsets();
  double worst = 0;
  int64_t done = 0;
  for (int64_t grp = 0; grp < G; ++grp) {
    for (int64_t i = 0; i < g.m[size_t(grp)]; ++i)
      for (int64_t n = 0; n < p.n; ++n) {
        const int64_t row = first[size_t(grp)] + i, w = grp * p.n + n;
        double dot = 0, magnitude = 0;
        for (int64_t k = 0; k < p.k; ++k) {
          const double t = e4m3_value(a[size_t(row * p.k + k)]) * sa[size_t(row * kb + k / 128)] *
                           e4m3_value(b[size_t(w * p.k + k)]) *
                           sb[size_t((grp * nb + n / 128) * kb + k / 128)];
          dot += t;
          magnitude += std::fabs(t);
        }
        const double r = ref[size_t((done + i) * p.n + n)];
        worst = std::max(worst, std::fabs(r - p.alpha * dot) / std::max(magnitude, 1e-300));
      }
    done += g.m[size_t(grp)];
  }
  // fp64 sums in another order: the difference is rounding, far below a misread scale's (>= 1/16
  // of an element's terms).
  EXPECT_LT(worst, 1e-12) << "the largest difference of an element over the sum of its terms";
}

// The check fails what it must on FP8 too: a loop that leaves a group out leaves its rows poisoned,
// and a group whose weights are read with the previous expert's block scales is off the reference
// (the inputs' scales differ by up to 16x between blocks).
TEST(GroupedFp8Verify, AMissingGroupOrAnotherExpertsScalesFails) {
  GEMMBENCH_REQUIRE_GPU();
  if (!cublaslt_fp8_device()) GTEST_SKIP() << "cuBLASLt's FP8 block scales need sm_90";
  const Fp8GroupedCase c{"", contiguous({16, 24, 8}, 8), 256, 512, ScaleMode::block128, DType::e4m3,
                         0};
  const GemmProblem p = fp8_problem_of(c);
  const Grouping& g = c.grouping;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  ErrorMeter meter;
  GroupedOperands d = make_grouped_operands(p, g, 11, DataDist::uniform, meter, stream);
  CublasLtGemm lt;

  Grouping all_but_last = g;
  all_but_last.m.back() = 0;
  CublasLtGroupedLoop partial(lt);
  GemmProblem q = p;
  q.m = all_but_last.total_m();
  ASSERT_EQ(partial.prepare(q, all_but_last, d, stream, [] {}), "");
  const ErrorStats missing = verify_grouped(p, g, d, meter, stream, [&] { partial.run(stream); });
  EXPECT_FALSE(verification_passed(missing));
  EXPECT_GT(missing.nonfinite, 0);

  CublasLtGroupedLoop loop(lt);
  ASSERT_EQ(loop.prepare(p, g, d, stream, [] {}), "");
  const ErrorStats right = verify_grouped(p, g, d, meter, stream, [&] { loop.run(stream); });
  EXPECT_TRUE(verification_passed(right)) << "normwise " << right.normwise;
  // Group 1 again, its weights read with expert 0's scales.
  const GemmProblem q1 = group_dense_problem(p, g.m[1]);
  GroupPointers at = group_pointers(p, d, 1);
  at.scales.a = group_pointers(p, d, 0).scales.a;
  CublasLtGemm::Plan wrong_plan;
  std::string why;
  ASSERT_TRUE(lt.tune(
      wrong_plan, q1, at.weights, at.rows, at.c, stream, [] {}, why, at.scales))
      << why;
  const ErrorStats wrong = verify_grouped(p, g, d, meter, stream, [&] {
    loop.run(stream);
    lt.run(wrong_plan, q1, at.weights, at.rows, at.c, stream, at.scales);
  });
  EXPECT_EQ(wrong.nonfinite, 0);
  EXPECT_FALSE(verification_passed(wrong)) << "normwise " << wrong.normwise;
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace gemmbench
