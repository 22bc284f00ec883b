// The kernels that split K between CTAs (hgemm_decode; the Hopper rung's stream-K walk, which
// splits every tile when there are fewer tiles than clusters; the shape-aware hgemm that picks
// among them), on decode shapes the registry-wide suite (test_kernels.cpp) does not reach: N and K
// large enough that tiles are split between CTAs (the workspace fixup), every token bucket, a
// workspace that must grow between shapes, and the same result bit for bit when run twice (the
// fixup sums in a fixed order and leaves its counters at zero).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "gpu_test_util.hpp"
#include "core/registry.hpp"
#include "sgemm/splitk_schedule.hpp"
#include "device/buffer.hpp"
#include "verify/device_verify.hpp"

using namespace gemmbench;

namespace {

struct Case {
  int m, n, k;
};

const KernelInfo& kernel_named(const std::string& name) {
  const KernelInfo* k = KernelRegistry::instance().find(name);
  if (!k) throw std::runtime_error(name + " is not registered");
  return *k;
}
const KernelInfo& decode_kernel() {
  return kernel_named("hgemm_decode");
}

// Runs p twice on the same inputs; returns the error of the first run and whether the second
// produced the same bits.
ErrorStats run_twice(const KernelInfo& kernel, const GemmProblem& p, uint64_t seed,
                     bool& identical) {
  const size_t es = dtype_bytes(p.dtype);
  DeviceBuffer a(size_t(p.m * p.k) * es), b(size_t(p.k * p.n) * es), c(size_t(p.m * p.n) * es);
  DeviceBuffer c0(size_t(p.m * p.n) * es), ref(size_t(p.m * p.n) * sizeof(double));
  fill_uniform(a.get(), p.dtype, p.m * p.k, seed, 0, nullptr);
  fill_uniform(b.get(), p.dtype, p.k * p.n, seed, 1, nullptr);
  fill_uniform(c0.get(), p.dtype, p.m * p.n, seed, 2, nullptr);
  reference_gemm(p, a.get(), b.get(), c0.get(), ref.as<double>(), nullptr);
  const GemmArgs args{p, a.get(), b.get(), c.get(), float(p.alpha), float(p.beta)};
  std::vector<unsigned char> first(c.bytes()), second(c.bytes());
  for (int run = 0; run < 2; ++run) {
    if (p.beta != 0)
      CUDA_CHECK(cudaMemcpy(c.get(), c0.get(), c.bytes(), cudaMemcpyDeviceToDevice));
    else
      fill_nan(c.get(), p.dtype, p.m * p.n, nullptr);
    kernel.launch(args, nullptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(run == 0 ? first.data() : second.data(), c.get(), c.bytes(),
                          cudaMemcpyDeviceToHost));
  }
  identical = std::memcmp(first.data(), second.data(), first.size()) == 0;
  CUDA_CHECK(cudaMemcpy(c.get(), first.data(), c.bytes(), cudaMemcpyHostToDevice));
  ErrorMeter meter;
  const double rms = meter.reference_rms(ref.as<double>(), p.m * p.n, nullptr);
  ErrorStats e = meter.measure(p.dtype, c.get(), ref.as<double>(), p.m * p.n, rms, nullptr);
  e.tolerance = verification_tolerance(p.dtype, p.accum, p.k);
  return e;
}

void check_cases(const KernelInfo& kernel, DType dtype, const std::vector<Case>& cases,
                 Layout layout = Layout::tn) {
  const DeviceCaps caps = current_device_caps();
  if (caps.sm < kernel.min_sm) GTEST_SKIP() << "needs sm_" << kernel.min_sm;
  int ran = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& s = cases[i];
    const bool with_beta = i % 2 == 1;
    const GemmProblem p{
        s.m, s.n, s.k, layout, dtype, Accum::f32, with_beta ? -0.75 : 1.25, with_beta ? 0.5 : 0.0};
    SCOPED_TRACE(p.shape_string() + " " + to_string(layout) + " " + to_string(dtype) +
                 (with_beta ? " beta" : ""));
    const std::string why = why_unsupported(kernel, p, caps);
    if (!why.empty()) {
      std::printf("  skipped %s: %s\n", p.shape_string().c_str(), why.c_str());
      continue;
    }
    bool identical = false;
    const ErrorStats e = run_twice(kernel, p, 77 + i, identical);
    ++ran;
    EXPECT_EQ(e.nonfinite, 0) << "elements left NaN (unwritten) or overflowed";
    EXPECT_TRUE(verification_passed(e)) << "normwise " << e.normwise << " > " << e.tolerance;
    EXPECT_TRUE(identical) << "a second launch gave different bits (fixup order or counters)";
  }
  EXPECT_GE(ran, int(cases.size()) / 2);
}

// Every token bucket (8, 16, 32, 64, 128 and their tails), N across tile edges, K with a partial
// last k-tile, large to small so the workspace grows and is then reused by smaller shapes.
const std::vector<Case> kCases = {
    {16, 4096, 4096}, {1, 6144, 4096},  {100, 6000, 1000}, {48, 8192, 520}, {128, 2112, 7168},
    {16, 1400, 2048}, {40, 1600, 1536}, {7, 1000, 1000},   {9, 520, 2056},  {33, 777, 3000},
    {64, 4096, 1536}, {65, 136, 4104},  {100, 64, 8192},   {2, 8, 32768},   {128, 129, 520},
    {1, 1, 8},        {31, 4096, 512},  {17, 300, 64},     {120, 8200, 64}, {72, 10240, 136},
    {128, 12000, 72}};

class SplitK : public ::testing::TestWithParam<std::string> {};

TEST_P(SplitK, DecodeShapesF16) {
  GEMMBENCH_REQUIRE_GPU();
  check_cases(kernel_named(GetParam()), DType::f16, kCases);
}

TEST_P(SplitK, DecodeShapesBf16) {
  GEMMBENCH_REQUIRE_GPU();
  check_cases(kernel_named(GetParam()), DType::bf16, kCases);
}

INSTANTIATE_TEST_SUITE_P(Kernels, SplitK,
                         ::testing::Values("hgemm_decode", "hgemm_decode_sm90",
                                           "hgemm_decode_sm90_n64", "hgemm_decode_sm90_n64_cs",
                                           "hgemm_decode_sm90_n48", "hgemm_decode_sm90_wmc",
                                           "hgemm_tn_sm90_128x128_sk", "hgemm_tn_sm90_sk_defer"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// sgemm_splitk (f32, every layout) where it splits K: each tile configuration (M <= 16, 32, 64,
// 128 and M > 128) with N and K large enough for several splits, a partial last k-tile, N across
// tile edges, the most splits (one tile, long K), unaligned leading dimensions (4-byte copies),
// the 16-byte row copies of a K-contiguous op(B) (M <= 32, M and K multiples of 4; 32x520x2056
// and 12x136x1004 with a k-tile that crosses K);
// large to small so the workspace grows, then is reused. Run twice: the same bits (the fixup sums
// in split order and leaves its counters at zero).
const std::vector<Case> kSgemmCases = {
    {128, 4096, 4096}, {16, 4096, 4096}, {200, 300, 5000}, {1, 4096, 1024}, {7, 1000, 1000},
    {33, 777, 3000},   {64, 4096, 1536}, {65, 136, 4104},  {100, 64, 8192}, {2, 8, 32768},
    {128, 129, 520},   {31, 4096, 512},  {17, 300, 64},    {16, 4, 20000},  {120, 8200, 64},
    {32, 520, 2056},   {12, 136, 1004}};

TEST(SgemmSplitK, SplitsKAtTheIssueShapes) {
  GEMMBENCH_REQUIRE_GPU();
  // The launcher's split with the occupancy at least each tile's target (the split is then
  // smaller, never 1, where the occupancy is lower): the shapes above do take the split path.
  const DeviceCaps caps = current_device_caps();
  for (int64_t m : {16, 128}) {
    const sgemm::splitk::TileShape& t = sgemm::splitk::kTiles[sgemm::splitk::tile_for(m)];
    const auto s = sgemm::splitk::make_schedule(m, 4096, 4096, t.bm, t.bn, t.bk,
                                                int64_t(caps.num_sms) * t.target_per_sm);
    EXPECT_GT(s.splits, 1) << "M=" << m;
  }
}

TEST(SgemmSplitK, DecodeShapesEveryLayout) {
  GEMMBENCH_REQUIRE_GPU();
  for (Layout l : kAllLayouts) {
    SCOPED_TRACE(to_string(l));
    check_cases(kernel_named("sgemm_splitk"), DType::f32, kSgemmCases, l);
  }
}

// sgemm_streamk (f32, every layout; 128x64 tiles, 3 CTAs per SM): squares of a partial wave
// whose tiles are shared by 2-4 neighbouring CTAs (1536^3, 1000^3), many tiles of which each
// CTA walks whole ones between two shared ends (2560^3), K with a partial last k-tile (1000,
// 777, 4099), thin and odd products, unaligned leading dimensions; large to small, run twice:
// the same bits.
const std::vector<Case> kStreamKCases = {{2560, 2560, 2560}, {1536, 1536, 1536}, {1000, 1000, 1000},
                                         {777, 1500, 777},   {300, 5000, 200},   {129, 257, 4099},
                                         {1025, 63, 2048},   {257, 129, 17},     {5, 3, 1}};

TEST(SgemmStreamK, SharedTilesEveryLayout) {
  GEMMBENCH_REQUIRE_GPU();
  for (Layout l : kAllLayouts) {
    SCOPED_TRACE(to_string(l));
    check_cases(kernel_named("sgemm_streamk"), DType::f32, kStreamKCases, l);
  }
}

// Not a GPU test: the reasons supports() gives where the decode path does not apply.
TEST(HgemmDecode, SupportsSaysWhy) {
  const DeviceCaps caps{90, 132, 227 * 1024, 50 << 20};
  GemmProblem p{129, 64, 64, Layout::tn, DType::f16, Accum::f32, 1.0, 0.0};
  EXPECT_NE(why_unsupported(decode_kernel(), p, caps).find("M <= 128"), std::string::npos);
  p.m = 128;
  EXPECT_EQ(why_unsupported(decode_kernel(), p, caps), "");
  p.k = 60;
  EXPECT_NE(why_unsupported(decode_kernel(), p, caps).find("multiple of 8"), std::string::npos);
  p.k = 64;
  const DeviceCaps small{86, 84, 99 * 1024, 6 << 20};
  EXPECT_NE(why_unsupported(decode_kernel(), p, small).find("shared memory"), std::string::npos);
  p.m = 16;
  EXPECT_EQ(why_unsupported(decode_kernel(), p, small), "") << "small M fits 99 KB";
}

}  // namespace
