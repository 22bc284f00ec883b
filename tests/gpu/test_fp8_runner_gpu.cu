// FP8 on a real device: the quantizer against a host model, and FP8 problems through the runner:
// the inputs quantized with gemmbench's scales, the baseline row (cuBLASLt with the same scaling),
// the fp64 reference of the dequantized inputs, and the quantization error beside the verification
// error. Test kernels read the contract of GemmArgs::scale_a/scale_b (core/types.hpp's layouts)
// and of the operands' types: one as documented, which must verify in every scaling and pair, one
// that reads B's first scale everywhere and one that reads B's bytes as e4m3 whatever their type,
// which must fail.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
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

// An FP8 byte read as the format `e5m2` says.
__device__ float fp8_value(uint8_t q, bool e5m2) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(q, e5m2 ? __NV_E5M2 : __NV_E4M3)));
}

// What a test kernel gets wrong on purpose.
enum class Misread { nothing, b_scales, b_type };

// One thread per element of C, f32 sums of dequantized products; C bf16. b_scales: every element
// of B scaled by B's first scale (a kernel that misreads the layout); b_type: B's bytes read as
// e4m3 whatever B's type (a kernel that ignores the pair).
template <Misread kBug>
__global__ void fp8_simple_kernel(GemmArgs a, bool a_e5m2, bool b_e5m2) {
  const GemmProblem& p = a.problem;
  const int64_t m = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, n = blockIdx.y;
  if (m >= p.m || n >= p.n) return;
  const auto* A = static_cast<const uint8_t*>(a.a);
  const auto* B = static_cast<const uint8_t*>(a.b);
  float acc = 0.f;
  for (int64_t k = 0; k < p.k; ++k) {
    const float sa = scale_at(a.scale_a, p.scale, false, m, k, p.k);
    const float sb =
        kBug == Misread::b_scales ? a.scale_b[0] : scale_at(a.scale_b, p.scale, true, n, k, p.k);
    acc += fp8_value(A[m * p.k + k], a_e5m2) * sa *
           fp8_value(B[n * p.k + k], b_e5m2 && kBug != Misread::b_type) * sb;
  }
  auto* C = static_cast<__nv_bfloat16*>(a.c);
  float out = a.alpha * acc;
  if (a.beta != 0.f) out += a.beta * __bfloat162float(C[m + n * p.m]);
  C[m + n * p.m] = __float2bfloat16(out);
}

template <Misread kBug>
void launch_simple(const GemmArgs& a, cudaStream_t s) {
  const GemmProblem& p = a.problem;
  fp8_simple_kernel<kBug><<<dim3(unsigned((p.m + 127) / 128), unsigned(p.n)), 128, 0, s>>>(
      a, p.dtype == DType::e5m2, p.b_type() == DType::e5m2);
}

std::string bf16_out_only(const GemmProblem& p, const DeviceCaps&) {
  if (const std::string why = fp8_pair_unsupported(p.dtype, p.b_type()); !why.empty()) return why;
  return p.out_type() == DType::bf16 ? "" : "test kernel: writes bf16 only";
}

GEMMBENCH_REGISTER_KERNEL(KernelInfo{"fp8_test_simple",
                                     "fp8test",
                                     1,
                                     "test: FP8, one thread per element",
                                     {DType::e4m3, DType::e5m2},
                                     {Accum::f32},
                                     {Layout::tn},
                                     89,
                                     bf16_out_only,
                                     launch_simple<Misread::nothing>});
GEMMBENCH_REGISTER_KERNEL(KernelInfo{"fp8_test_ignores_b_scales",
                                     "fp8test",
                                     2,
                                     "test: FP8, B's first scale everywhere",
                                     {DType::e4m3, DType::e5m2},
                                     {Accum::f32},
                                     {Layout::tn},
                                     89,
                                     bf16_out_only,
                                     launch_simple<Misread::b_scales>});
GEMMBENCH_REGISTER_KERNEL(KernelInfo{"fp8_test_reads_b_as_e4m3",
                                     "fp8test",
                                     3,
                                     "test: FP8, B's bytes read as e4m3 whatever B's type",
                                     {DType::e4m3, DType::e5m2},
                                     {Accum::f32},
                                     {Layout::tn},
                                     89,
                                     bf16_out_only,
                                     launch_simple<Misread::b_type>});

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
                           ScaleMode scale, DType a = DType::e4m3, DType b = DType::e4m3) {
  for (const auto& r : rows)
    if (r.kernel == kernel && r.problem.scale == scale && r.problem.dtype == a &&
        r.problem.b_type() == b)
      return r;
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
  EXPECT_EQ(find_row(out.rows, "fp8_test_reads_b_as_e4m3", ScaleMode::tensor).status, Status::ok)
      << "e4m3 x e4m3: B is e4m3";
}

// The mixed pairs through the runner: each operand quantized to its own format and read back in
// it by the reference, so a kernel that reads them so verifies and one that reads B's bytes as
// e4m3 fails; the quantization error grows with the e5m2 operand (2 mantissa bits against 3)
// and stays below the sum of the operands' unit roundoffs.
TEST(Fp8Runner, MixedPairsVerifyAndQuantizeEachOperandInItsOwnFormat) {
  GEMMBENCH_REQUIRE_GPU();
  if (current_device_caps().sm < 89) GTEST_SKIP() << "FP8 needs sm_89 or newer";
  const std::vector<ScaleMode> scales = {ScaleMode::tensor, ScaleMode::row, ScaleMode::block128};
  std::vector<RunSpec> runs;
  for (const auto& [a, b] : {std::pair{DType::e4m3, DType::e4m3},
                             {DType::e4m3, DType::e5m2},
                             {DType::e5m2, DType::e4m3}}) {
    RunSpec r = fp8_run({200, 384, 656}, scales, 0.5);
    r.name = std::string(to_string(a)) + "x" + to_string(b);
    r.kernels = {"fp8_test_simple", "fp8_test_reads_b_as_e4m3"};
    r.dtypes = {a};
    r.dtypes_b = {b};
    runs.push_back(std::move(r));
  }
  const Plan plan = build_plan(runs, {}, {}, KernelRegistry::instance());
  ASSERT_EQ(plan.groups.size(), 9u);
  Runner runner(0, 1);
  Collect out;
  runner.run(plan, out, {});
  for (ScaleMode s : scales) {
    const CaseResult& e4 = find_row(out.rows, "fp8_test_simple", s);
    ASSERT_TRUE(e4.error.quant_normwise);
    for (const auto& [a, b] : {std::pair{DType::e4m3, DType::e5m2}, {DType::e5m2, DType::e4m3}}) {
      const CaseResult& good = find_row(out.rows, "fp8_test_simple", s, a, b);
      SCOPED_TRACE(good.problem.type_string());
      ASSERT_EQ(good.status, Status::ok) << good.reason;
      EXPECT_LE(good.error.normwise, good.error.tolerance);
      ASSERT_TRUE(good.error.quant_normwise);
      EXPECT_GT(*good.error.quant_normwise, *e4.error.quant_normwise)
          << "an e5m2 operand costs more than an e4m3 one";
      EXPECT_LT(*good.error.quant_normwise, unit_roundoff(a) + unit_roundoff(b));
      const CaseResult& base = find_row(out.rows, "cublas", s, a, b);
      if (base.status == Status::ok)
        EXPECT_LE(base.error.normwise, base.error.tolerance);
      else
        EXPECT_FALSE(base.reason.empty()) << "a refused baseline says why";
      const CaseResult& misread = find_row(out.rows, "fp8_test_reads_b_as_e4m3", s, a, b);
      if (b == DType::e5m2)
        EXPECT_EQ(misread.status, Status::failed) << misread.error.normwise;
      else
        EXPECT_EQ(misread.status, Status::ok) << "B is e4m3: nothing to misread";
    }
  }
}

// The quantizer against a host model of the same rule (scale = amax / fp8_max per group: 448 for
// e4m3, 57344 for e5m2; 1 for a group of zeros; q = RN(x / scale), saturating), element by element,
// in each scaling and format: the layouts of core/types.hpp, the partial last blocks (rows 200,
// K 656) and a group of zeros; the largest element of every other group lands on the format's
// largest value.
TEST(Fp8Quantize, MatchesTheHostModelInEveryScaling) {
  GEMMBENCH_REQUIRE_GPU();
  const int64_t rows = 200, k = 656;
  std::vector<float> x(size_t(rows * k));
  for (int64_t i = 0; i < rows * k; ++i)
    x[size_t(i)] = float((i * 2654435761u) % 2001) / 1000.f - 1.f;       // in [-1, 1]
  for (int64_t c = 0; c < kScaleBlock; ++c) x[size_t(3 * k + c)] = 0.f;  // row 3's first block
  DeviceBuffer xd(x.size() * sizeof(float));
  CUDA_CHECK(cudaMemcpy(xd.get(), x.data(), xd.bytes(), cudaMemcpyHostToDevice));
  const auto to_format = [](float v, DType t) {
    return t == DType::e5m2 ? __nv_fp8_e5m2(v).__x : __nv_fp8_e4m3(v).__x;
  };
  const auto value_of = [](uint8_t q, DType t) {
    return __half2float(
        __half(__nv_cvt_fp8_to_halfraw(q, t == DType::e5m2 ? __NV_E5M2 : __NV_E4M3)));
  };
  for (DType format : kFp8DTypes)
    for (ScaleMode s : kFp8ScaleModes) {
      for (bool as_b : {false, true}) {
        SCOPED_TRACE(std::string(to_string(format)) + " " + to_string(s) + (as_b ? " B" : " A"));
        GemmProblem p{rows, rows, k, Layout::tn, DType::e4m3, Accum::f32};
        p.scale = s;
        const ScaleIndex idx = as_b ? scale_index_b(p) : scale_index_a(p);
        const int64_t groups = idx.groups(rows);
        ASSERT_EQ(groups, as_b ? scale_count_b(s, rows, k) : scale_count_a(s, rows, k));
        DeviceBuffer q(size_t(rows * k)), sc(size_t(groups) * sizeof(float)),
            scratch(size_t(rows) * sizeof(float));
        quantize_fp8(xd.as<float>(), rows, k, idx, format, q.get(), sc.as<float>(),
                     scratch.as<float>(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<uint8_t> qh(static_cast<size_t>(rows * k));
        std::vector<float> sh(static_cast<size_t>(groups));
        CUDA_CHECK(cudaMemcpy(qh.data(), q.get(), q.bytes(), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(sh.data(), sc.get(), sc.bytes(), cudaMemcpyDeviceToHost));
        std::vector<float> amax(static_cast<size_t>(groups), 0.f);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < k; ++c)
            amax[size_t(idx(r, c))] =
                std::max(amax[size_t(idx(r, c))], std::fabs(x[size_t(r * k + c)]));
        const float top = float(fp8_max(format));
        int bad_scales = 0, bad_values = 0, bad_tops = 0;
        std::vector<float> qmax(static_cast<size_t>(groups), 0.f);
        for (int64_t g = 0; g < groups; ++g)
          bad_scales += sh[size_t(g)] != (amax[size_t(g)] > 0.f ? amax[size_t(g)] / top : 1.f);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < k; ++c) {
            const size_t i = size_t(r * k + c), g = size_t(idx(r, c));
            const uint8_t want = to_format(x[i] / sh[g], format);
            bad_values += value_of(qh[i], format) != value_of(want, format);
            qmax[g] = std::max(qmax[g], std::fabs(value_of(qh[i], format)));
          }
        for (int64_t g = 0; g < groups; ++g)
          bad_tops += amax[size_t(g)] > 0.f && qmax[size_t(g)] != top;
        EXPECT_EQ(bad_scales, 0);
        EXPECT_EQ(bad_values, 0);
        EXPECT_EQ(bad_tops, 0) << "a group's largest element lands on " << top;
      }
    }
}
