// `inspect mma-peak` on the hardware (src/inspect/mma_peak_device.cu): the benchmark kernel
// computes the mma chain it claims (against an fp64 product of the fragments it loaded, decoded
// with ptx.cuh's operand layout), and a short run gives plausible, self-consistent figures. Skips,
// saying why, where no CUDA device is usable.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "hgemm/ampere_index.hpp"
#include "inspect/inspect.hpp"
#include "inspect/mma_peak_device.hpp"

namespace gemmbench::inspect {
namespace {

constexpr int kFragRegs = kMmaTileM * 4 + kMmaTileN * 2;

class MmaChainOnDevice : public ::testing::TestWithParam<MmaPeakConfig> {};

// acc[i][j] = A_i * B_(j+1)%N + 2 * iters * A_i * B_j (mma_peak_device.hpp), in fp64 from the
// loaded values, against every accumulator element of every lane.
TEST_P(MmaChainOnDevice, AccumulatorsMatchFp64Chain) {
  GEMMBENCH_REQUIRE_GPU();
  const MmaPeakConfig config = GetParam();
  constexpr int kIters = 3;
  const MmaChainSample s = run_mma_chain_on_device(config, kIters);
  ASSERT_EQ(s.frag.size(), size_t(32 * kFragRegs * 2));
  ASSERT_EQ(s.acc.size(), size_t(32 * kMmaChains * 4));

  // Operands from the lanes' registers, ptx.cuh's layout (g = lane/4, t = lane%4):
  // a_r = A[g + 8*(r%2)][2t + 8*(r/2) + h], b_r = B[2t + 8*r + h][g], h = half within register.
  double a[kMmaTileM][16][16], b[kMmaTileN][16][8];
  int seen_a[kMmaTileM][16][16] = {}, seen_b[kMmaTileN][16][8] = {};
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    const float* f = &s.frag[size_t(lane) * kFragRegs * 2];
    for (int i = 0; i < kMmaTileM; ++i)
      for (int r = 0; r < 4; ++r)
        for (int h = 0; h < 2; ++h) {
          const int row = g + 8 * (r % 2), col = 2 * t + 8 * (r / 2) + h;
          a[i][row][col] = f[(i * 4 + r) * 2 + h];
          ++seen_a[i][row][col];
        }
    for (int j = 0; j < kMmaTileN; ++j)
      for (int r = 0; r < 2; ++r)
        for (int h = 0; h < 2; ++h) {
          const int k = 2 * t + 8 * r + h;
          b[j][k][g] = f[(kMmaTileM * 4 + j * 2 + r) * 2 + h];
          ++seen_b[j][k][g];
        }
  }
  for (int i = 0; i < kMmaTileM; ++i)
    for (int e = 0; e < 256; ++e) ASSERT_EQ(seen_a[i][e / 16][e % 16], 1) << "A layout";
  for (int j = 0; j < kMmaTileN; ++j)
    for (int e = 0; e < 128; ++e) ASSERT_EQ(seen_b[j][e / 8][e % 8], 1) << "B layout";

  auto product = [&](int i, int j, int m, int n) {
    double sum = 0;
    for (int k = 0; k < 16; ++k) sum += a[i][m][k] * b[j][k][n];
    return sum;
  };
  double scale = 0;
  std::vector<double> ref(s.acc.size());
  for (int lane = 0; lane < 32; ++lane)
    for (int c = 0; c < kMmaChains; ++c)
      for (int e = 0; e < 4; ++e) {
        const int i = c / kMmaTileN, j = c % kMmaTileN;
        const hgemm::RowCol at = hgemm::acc_coord(lane, e);
        const double v = product(i, (j + 1) % kMmaTileN, at.row, at.col) +
                         2.0 * kIters * product(i, j, at.row, at.col);
        ref[(size_t(lane) * kMmaChains + c) * 4 + e] = v;
        scale = std::max(scale, std::abs(v));
      }
  ASSERT_GT(scale, 1.0) << "random inputs in [-1, 1] give products well above 1";
  // Each of the 2*iters+1 steps rounds to the accumulator type (f32 allowing for the tensor
  // cores' truncation); a missing or misplaced mma is off by about scale / (2*iters+1).
  const double eps = config.accum == Accum::f16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -20);
  const double tol = 2.0 * (2 * kIters + 2) * eps * scale;
  int bad = 0;
  for (size_t x = 0; x < ref.size(); ++x) {
    const double got = s.acc[x];
    if (std::isfinite(got) && std::abs(got - ref[x]) <= tol) continue;
    if (++bad <= 8)
      ADD_FAILURE() << "lane " << x / (kMmaChains * 4) << " chain " << (x / 4) % kMmaChains << " c"
                    << x % 4 << ": got " << got << ", fp64 " << ref[x] << " (tol " << tol << ")";
  }
  EXPECT_EQ(bad, 0);
}

INSTANTIATE_TEST_SUITE_P(AllForms, MmaChainOnDevice,
                         ::testing::Values(MmaPeakConfig{Accum::f16, DType::f16, 1},
                                           MmaPeakConfig{Accum::f32, DType::f16, 1},
                                           MmaPeakConfig{Accum::f32, DType::bf16, 1}),
                         [](const ::testing::TestParamInfo<MmaPeakConfig>& info) {
                           return std::string(to_string(info.param.dtype)) + "_acc_" +
                                  to_string(info.param.accum);
                         });

// A short run of every form: finite positive throughput, a clock a GPU can have, one CTA per SM,
// about the requested time, and a best row per accumulate type.
TEST(MmaPeakOnDevice, ShortRunIsPlausible) {
  GEMMBENCH_REQUIRE_GPU();
  MmaPeakRequest req;
  req.seconds = 0.05;
  req.configs = {
      {Accum::f16, DType::f16, 4}, {Accum::f32, DType::f16, 16}, {Accum::f32, DType::bf16, 8}};
  MmaPeakReport rep = run_mma_peak_on_device(req);
  derive_mma_peak(rep);
  ASSERT_EQ(rep.rows.size(), 3u);
  EXPECT_FALSE(rep.device_name.empty());
  EXPECT_GE(rep.sm, 80);
  int best = 0;
  for (const MmaPeakRow& r : rep.rows) {
    const std::string what = std::string(to_string(r.config.accum)) + "/" +
                             to_string(r.config.dtype) + " " +
                             std::to_string(r.config.warps_per_sm) + " warps";
    EXPECT_EQ(r.ctas, rep.num_sms) << what;
    EXPECT_GE(r.launches, 1) << what;
    EXPECT_TRUE(std::isfinite(r.tflops) && r.tflops > 0) << what << ": " << r.tflops;
    EXPECT_GT(r.clock_mhz, 0) << what;
    EXPECT_LE(r.clock_mhz, 3000) << what;
    EXPECT_TRUE(std::isfinite(r.flop_per_clk_per_sm) && r.flop_per_clk_per_sm > 0) << what;
    // Sized from the warm-up rate: far off means the calibration is broken.
    EXPECT_GT(r.elapsed_ms, 0.3 * req.seconds * 1e3) << what;
    EXPECT_LT(r.elapsed_ms, 4.0 * req.seconds * 1e3) << what;
    best += r.best;
  }
  EXPECT_EQ(best, 2);  // one per accumulate type
}

// The command main() runs (inspect.hpp's hook), on the GPU.
TEST(MmaPeakOnDevice, InspectCommandRunsOnGpu) {
  GEMMBENCH_REQUIRE_GPU();
  CLI::App app{"gemmbench"};
  const std::function<int()> command = add_subcommand(app);
  app.parse("inspect mma-peak --accum f32 --seconds 0.05 --json", false);
  ::testing::internal::CaptureStdout();
  const int code = command();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["rows"].size(), 3u);
  EXPECT_FALSE(j["device"]["name"].get<std::string>().empty());
  EXPECT_GT(j["best"]["f32"]["tflops"].get<double>(), 0);
}

}  // namespace
}  // namespace gemmbench::inspect
