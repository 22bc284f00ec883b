// FP8 on a real device: the quantizer against a host model, and FP8 problems through the runner:
// the inputs quantized with gemmbench's scales, the baseline row (cuBLASLt with the same scaling),
// the fp64 reference of the dequantized inputs, and the quantization error beside the verification
// error. Two test kernels read the contract of GemmArgs::scale_a/scale_b (core/types.hpp's
// layouts): one as documented, which must verify in every scaling, and one that reads B's first
// scale everywhere, which must fail.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_caps.hpp"
#include "gpu_test_util.hpp"
#include "plan/plan.hpp"
#include "runner/runner.hpp"
#include "verify/device_verify.hpp"

using namespace gemmbench;
using Collect = gemmbench::testing::CollectRows;

namespace {

// The scale of element (row, k) of an operand of `rows` rows, as core/types.hpp lays them out.
__device__ float scale_at(const float* s, ScaleMode mode, bool is_b, int64_t row, int64_t k,
                          int64_t K) {
  const int64_t kb_count = (K + kScaleBlock - 1) / kScaleBlock;
  switch (mode) {
    case ScaleMode::row:
      return s[row];
    case ScaleMode::block128:
      return s[(is_b ? row / kScaleBlock : row) * kb_count + k / kScaleBlock];
    default:
      return s[0];
  }
}

// One thread per element of C, f32 sums of dequantized products; C bf16. `ignore_b_scales`:
// every element of B scaled by B's first scale (a kernel that misreads the layout).
template <bool ignore_b_scales>
__global__ void fp8_simple_kernel(GemmArgs a) {
  const GemmProblem& p = a.problem;
  const int64_t m = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, n = blockIdx.y;
  if (m >= p.m || n >= p.n) return;
  const auto* A = static_cast<const __nv_fp8_e4m3*>(a.a);
  const auto* B = static_cast<const __nv_fp8_e4m3*>(a.b);
  float acc = 0.f;
  for (int64_t k = 0; k < p.k; ++k) {
    const float sa = scale_at(a.scale_a, p.scale, false, m, k, p.k);
    const float sb = ignore_b_scales ? a.scale_b[0] : scale_at(a.scale_b, p.scale, true, n, k, p.k);
    acc += float(A[m * p.k + k]) * sa * float(B[n * p.k + k]) * sb;
  }
  auto* C = static_cast<__nv_bfloat16*>(a.c);
  float out = a.alpha * acc;
  if (a.beta != 0.f) out += a.beta * __bfloat162float(C[m + n * p.m]);
  C[m + n * p.m] = __float2bfloat16(out);
}

template <bool ignore_b_scales>
void launch_simple(const GemmArgs& a, cudaStream_t s) {
  fp8_simple_kernel<ignore_b_scales>
      <<<dim3(unsigned((a.problem.m + 127) / 128), unsigned(a.problem.n)), 128, 0, s>>>(a);
}

std::string bf16_out_only(const GemmProblem& p, const DeviceCaps&) {
  return p.out_type() == DType::bf16 ? "" : "test kernel: writes bf16 only";
}

GEMMBENCH_REGISTER_KERNEL(KernelInfo{"fp8_test_simple",
                                     "fp8test",
                                     1,
                                     "test: FP8, one thread per element",
                                     {DType::e4m3},
                                     {Accum::f32},
                                     {Layout::tn},
                                     89,
                                     bf16_out_only,
                                     launch_simple<false>});
GEMMBENCH_REGISTER_KERNEL(KernelInfo{"fp8_test_ignores_b_scales",
                                     "fp8test",
                                     2,
                                     "test: FP8, B's first scale everywhere",
                                     {DType::e4m3},
                                     {Accum::f32},
                                     {Layout::tn},
                                     89,
                                     bf16_out_only,
                                     launch_simple<true>});

RunSpec fp8_run(Shape s, std::vector<ScaleMode> scales, double beta = 0) {
  RunSpec r;
  r.name = "fp8";
  r.kernels = {"fp8_test_*"};
  r.shapes = {s};
  r.dtypes = {DType::e4m3};
  r.scales = std::move(scales);
  r.alpha = 1.25;
  r.beta = beta;
  r.measure.warmup = 1;
  r.measure.min_samples = 3;
  r.measure.min_time_s = 0.0;
  r.measure.max_time_s = 1.0;
  return r;
}

const CaseResult& find_row(const std::vector<CaseResult>& rows, const std::string& kernel,
                           ScaleMode scale) {
  for (const auto& r : rows)
    if (r.kernel == kernel && r.problem.scale == scale) return r;
  throw std::runtime_error("no row for " + kernel);
}

}  // namespace

TEST(Fp8Runner, EveryScalingVerifiesAndReportsItsQuantizationError) {
  GEMMBENCH_REQUIRE_GPU();
  if (current_device_caps().sm < 89) GTEST_SKIP() << "FP8 needs sm_89 or newer";
  // M not a multiple of 128, a partial last K block (656 = 5 x 128 + 16), beta != 0.
  const std::vector<ScaleMode> scales = {ScaleMode::tensor, ScaleMode::row, ScaleMode::block128};
  const Plan plan =
      build_plan({fp8_run({200, 384, 656}, scales, 0.5)}, {}, {}, KernelRegistry::instance());
  ASSERT_EQ(plan.groups.size(), 3u);
  Runner runner(0, 1);
  Collect out;
  runner.run(plan, out, {});
  for (ScaleMode s : scales) {
    SCOPED_TRACE(to_string(s));
    const CaseResult& base = find_row(out.rows, "cublas", s);
    EXPECT_EQ(base.provider, "cublaslt") << "the FP8 baseline is cuBLASLt, and says so";
    if (base.status == Status::ok) {
      EXPECT_LE(base.error.normwise, base.error.tolerance);
    } else {
      EXPECT_EQ(base.status, Status::skipped);
      EXPECT_FALSE(base.reason.empty());
    }
    const CaseResult& good = find_row(out.rows, "fp8_test_simple", s);
    ASSERT_EQ(good.status, Status::ok) << good.reason;
    EXPECT_LE(good.error.normwise, good.error.tolerance);
    // Against the unquantized f32 product the error is the format's: e4m3 keeps 3 mantissa bits,
    // so it is far larger than the bf16 rounding the verification sees.
    ASSERT_TRUE(good.error.quant_normwise);
    EXPECT_GT(*good.error.quant_normwise, 5 * good.error.normwise);
    EXPECT_LT(*good.error.quant_normwise, 0.1);
    ASSERT_TRUE(good.error.quant_calc_diff);
    EXPECT_GT(*good.error.quant_calc_diff, good.error.calc_diff);
  }
  // Row and block scales differ along B's rows: reading B's first scale everywhere is caught.
  for (ScaleMode s : {ScaleMode::row, ScaleMode::block128}) {
    const CaseResult& bad = find_row(out.rows, "fp8_test_ignores_b_scales", s);
    EXPECT_EQ(bad.status, Status::failed) << to_string(s) << ": " << bad.error.normwise;
  }
  EXPECT_EQ(find_row(out.rows, "fp8_test_ignores_b_scales", ScaleMode::tensor).status, Status::ok)
      << "with one scale per tensor there is nothing to misread";
}

// The quantizer against a host model of the same rule (scale = amax / 448 per group, 1 for a
// group of zeros; q = RN(x / scale), saturating), element by element, in each scaling: the
// layouts of core/types.hpp, the partial last blocks (rows 200, K 656) and a group of zeros.
TEST(Fp8Quantize, MatchesTheHostModelInEveryScaling) {
  GEMMBENCH_REQUIRE_GPU();
  const int64_t rows = 200, k = 656;
  std::vector<float> x(size_t(rows * k));
  for (int64_t i = 0; i < rows * k; ++i)
    x[size_t(i)] = float((i * 2654435761u) % 2001) / 1000.f - 1.f;       // in [-1, 1]
  for (int64_t c = 0; c < kScaleBlock; ++c) x[size_t(3 * k + c)] = 0.f;  // row 3's first block
  DeviceBuffer xd(x.size() * sizeof(float));
  CUDA_CHECK(cudaMemcpy(xd.get(), x.data(), xd.bytes(), cudaMemcpyHostToDevice));
  for (ScaleMode s : kFp8ScaleModes) {
    for (bool as_b : {false, true}) {
      SCOPED_TRACE(std::string(to_string(s)) + (as_b ? " B" : " A"));
      GemmProblem p{rows, rows, k, Layout::tn, DType::e4m3, Accum::f32};
      p.scale = s;
      const ScaleIndex idx = as_b ? scale_index_b(p) : scale_index_a(p);
      const int64_t groups = idx.groups(rows);
      ASSERT_EQ(groups, as_b ? scale_count_b(s, rows, k) : scale_count_a(s, rows, k));
      DeviceBuffer q(size_t(rows * k)), sc(size_t(groups) * sizeof(float)),
          scratch(size_t(rows) * sizeof(float));
      quantize_fp8(xd.as<float>(), rows, k, idx, q.get(), sc.as<float>(), scratch.as<float>(),
                   nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<__nv_fp8_e4m3> qh(static_cast<size_t>(rows * k));
      std::vector<float> sh(static_cast<size_t>(groups));
      CUDA_CHECK(cudaMemcpy(qh.data(), q.get(), q.bytes(), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(sh.data(), sc.get(), sc.bytes(), cudaMemcpyDeviceToHost));
      std::vector<float> amax(static_cast<size_t>(groups), 0.f);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < k; ++c)
          amax[size_t(idx(r, c))] =
              std::max(amax[size_t(idx(r, c))], std::fabs(x[size_t(r * k + c)]));
      int bad_scales = 0, bad_values = 0;
      for (int64_t g = 0; g < groups; ++g)
        bad_scales += sh[size_t(g)] != (amax[size_t(g)] > 0.f ? amax[size_t(g)] / 448.f : 1.f);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < k; ++c) {
          const float want = float(__nv_fp8_e4m3(x[size_t(r * k + c)] / sh[size_t(idx(r, c))]));
          bad_values += float(qh[size_t(r * k + c)]) != want;
        }
      EXPECT_EQ(bad_scales, 0);
      EXPECT_EQ(bad_values, 0);
    }
  }
}
