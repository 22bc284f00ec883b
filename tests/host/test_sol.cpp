// Speed of light: intensity, the per-architecture ceiling table and the roofline bound, checked
// against hand-computed figures and the whitepapers' published peaks.
#include <gtest/gtest.h>

#include "sol/sol.hpp"

using namespace gemmbench;

namespace {

// H100 SXM as the runner reports it: 132 SMs, 1980 MHz maximum SM clock, HBM3 at 2619 MHz on a
// 5120-bit bus.
DeviceMetadata h100() {
  DeviceMetadata d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.sm = 90;
  d.num_sms = 132;
  d.sm_clock_max_mhz = 1980;
  d.memory_clock_mhz = 2619;
  d.memory_bus_bits = 5120;
  d.mem_bw_measured_gbs = 3000.0;
  return d;
}

CaseResult row(int64_t m, int64_t n, int64_t k, DType d, Accum a, double beta,
               std::optional<double> tflops) {
  CaseResult r;
  r.problem = GemmProblem{m, n, k, Layout::tn, d, a, 1.0, beta};
  r.tflops = tflops;
  return r;
}

double tflops_of(int sm, const char* name, InstrClass c, int sms, double mhz) {
  return *flop_per_clock_per_sm(sm, name, c) * sms * mhz * 1e6 / 1e12;
}

}  // namespace

TEST(Intensity, HandComputedCases) {
  // f16 4096^3, beta 0: 2*4096^3 FLOP over 3 * 4096^2 * 2 bytes = 4096/3.
  const GemmProblem big{4096, 4096, 4096, Layout::tn, DType::f16, Accum::f32, 1, 0};
  EXPECT_DOUBLE_EQ(gemm_min_bytes(big), 100663296.0);
  EXPECT_NEAR(arithmetic_intensity(big), 1365.3333, 1e-3);
  // f32 1024^3 with beta != 0: C is read too, 4 * 1024^2 * 4 bytes; 2^31 FLOP -> 128 FLOP/byte.
  const GemmProblem beta{1024, 1024, 1024, Layout::nn, DType::f32, Accum::f32, 1, 0.5};
  EXPECT_DOUBLE_EQ(gemm_min_bytes(beta), 16777216.0);
  EXPECT_DOUBLE_EQ(arithmetic_intensity(beta), 128.0);
  // Decode, one token: the weights dominate; (4096 + 4096*4096 + 4096) * 2 bytes.
  const GemmProblem decode{1, 4096, 4096, Layout::tn, DType::f16, Accum::f32, 1, 0};
  EXPECT_DOUBLE_EQ(gemm_min_bytes(decode), 33570816.0);
  EXPECT_NEAR(arithmetic_intensity(decode), 33554432.0 / 33570816.0, 1e-12);
}

TEST(Ceiling, InstructionClassOfEachType) {
  EXPECT_EQ(instruction_class(DType::f32, Accum::f32), InstrClass::ffma_f32);
  EXPECT_EQ(instruction_class(DType::f16, Accum::f32), InstrClass::tensor_f16_f32acc);
  EXPECT_EQ(instruction_class(DType::f16, Accum::f16), InstrClass::tensor_f16_f16acc);
  EXPECT_EQ(instruction_class(DType::bf16, Accum::f32), InstrClass::tensor_bf16_f32acc);
  EXPECT_FALSE(instruction_class(DType::bf16, Accum::f16));
  EXPECT_FALSE(instruction_class(DType::f32, Accum::f16));
}

TEST(Ceiling, MatchesTheWhitepapers) {
  const auto t16 = InstrClass::tensor_f16_f32acc;
  // Hopper H100 whitepaper: 989.4 TFLOP/s dense f16/bf16 = 132 SMs x 4096 x 1830 MHz; FP32 67.
  EXPECT_NEAR(tflops_of(90, "NVIDIA H100 80GB HBM3", t16, 132, 1830), 989.4, 0.5);
  EXPECT_NEAR(tflops_of(90, "NVIDIA H100", InstrClass::tensor_bf16_f32acc, 132, 1830), 989.4, 0.5);
  EXPECT_NEAR(tflops_of(90, "NVIDIA H100", InstrClass::tensor_f16_f16acc, 132, 1830), 989.4, 0.5);
  EXPECT_NEAR(tflops_of(90, "NVIDIA H100", InstrClass::ffma_f32, 132, 1980), 67.0, 0.2);
  // A100 (GA100): 312 TFLOP/s tensor f16, 19.5 FP32, 108 SMs at 1410 MHz.
  EXPECT_NEAR(tflops_of(80, "NVIDIA A100-SXM4-80GB", t16, 108, 1410), 312.0, 0.5);
  EXPECT_NEAR(tflops_of(80, "NVIDIA A100-SXM4-80GB", InstrClass::ffma_f32, 108, 1410), 19.5, 0.05);
  // GA102: RTX 3090 (82 SMs, 1695 MHz) 142 f16-acc, 71 f32-acc (GeForce half rate), 35.6 FP32;
  // RTX A6000 (84 SMs, 1800 MHz) 154.8 f32-acc at the full rate.
  const char* rtx3090 = "NVIDIA GeForce RTX 3090";
  EXPECT_NEAR(tflops_of(86, rtx3090, InstrClass::tensor_f16_f16acc, 82, 1695), 142.0, 0.5);
  EXPECT_NEAR(tflops_of(86, rtx3090, t16, 82, 1695), 71.0, 0.5);
  EXPECT_NEAR(tflops_of(86, rtx3090, InstrClass::tensor_bf16_f32acc, 82, 1695), 71.0, 0.5);
  EXPECT_NEAR(tflops_of(86, rtx3090, InstrClass::ffma_f32, 82, 1695), 35.6, 0.1);
  EXPECT_NEAR(tflops_of(86, "NVIDIA RTX A6000", t16, 84, 1800), 154.8, 0.1);
  // Ada: RTX 4090 (128 SMs, 2520 MHz) 330.3 f16-acc, 165.2 f32-acc, 82.6 FP32.
  const char* rtx4090 = "NVIDIA GeForce RTX 4090";
  EXPECT_NEAR(tflops_of(89, rtx4090, InstrClass::tensor_f16_f16acc, 128, 2520), 330.3, 0.1);
  EXPECT_NEAR(tflops_of(89, rtx4090, t16, 128, 2520), 165.2, 0.1);
  EXPECT_NEAR(tflops_of(89, rtx4090, InstrClass::ffma_f32, 128, 2520), 82.6, 0.1);
}

TEST(Ceiling, UnknownArchitectureHasNoneAndSaysWhy) {
  std::string why;
  EXPECT_FALSE(flop_per_clock_per_sm(75, "Tesla T4", InstrClass::ffma_f32, &why));
  EXPECT_NE(why.find("sm_75"), std::string::npos) << why;
  EXPECT_EQ(arch_peak(75), nullptr);
  ASSERT_NE(arch_peak(90), nullptr);

  DeviceMetadata t4 = h100();
  t4.sm = 75;
  const SolStats s = speed_of_light(row(4096, 4096, 4096, DType::f16, Accum::f32, 0, 50.0), t4);
  EXPECT_FALSE(s.flop_per_clk_per_sm);
  EXPECT_FALSE(s.compute_tflops_max_clock);
  EXPECT_FALSE(s.bound_tflops);
  EXPECT_FALSE(s.pct_sol);
  EXPECT_TRUE(s.bound.empty());
  EXPECT_TRUE(s.memory_tflops) << "the memory roof does not depend on the table";
  EXPECT_NE(s.reason.find("sm_75"), std::string::npos) << s.reason;
}

TEST(Roofline, ComputeBoundSquareShape) {
  // 4096 FLOP/clk/SM x 132 x 1980 MHz = 1070.53 TFLOP/s; memory 1365.33 x 3000 GB/s = 4096.
  const SolStats s =
      speed_of_light(row(4096, 4096, 4096, DType::f16, Accum::f32, 0, 535.265), h100());
  EXPECT_EQ(s.instruction_class, "tensor_f16_f32acc");
  EXPECT_DOUBLE_EQ(*s.flop_per_clk_per_sm, 4096);
  EXPECT_NEAR(*s.compute_tflops_max_clock, 1070.53, 0.01);
  EXPECT_EQ(s.mem_bw_source, "measured");
  EXPECT_NEAR(*s.memory_tflops, 4096.0, 1e-6);
  EXPECT_EQ(s.bound, "compute");
  EXPECT_NEAR(*s.bound_tflops, 1070.53, 0.01);
  EXPECT_NEAR(*s.pct_sol, 50.0, 0.01);
  EXPECT_FALSE(s.compute_tflops_run_clock) << "no median clock on the row";
  EXPECT_FALSE(s.pct_sol_run_clock);
  EXPECT_TRUE(s.reason.empty()) << s.reason;
}

TEST(Roofline, MemoryBoundDecodeShape) {
  // One token: intensity 0.99951 FLOP/byte x 3000 GB/s = 2.9985 TFLOP/s, far under the compute
  // roof.
  const SolStats s = speed_of_light(row(1, 4096, 4096, DType::f16, Accum::f32, 0, 1.5), h100());
  EXPECT_EQ(s.bound, "memory");
  EXPECT_NEAR(*s.bound_tflops, 2.99854, 1e-4);
  EXPECT_NEAR(*s.pct_sol, 100.0 * 1.5 / 2.99854, 1e-3);
}

TEST(Roofline, RunClockCeiling) {
  CaseResult r = row(4096, 4096, 4096, DType::f16, Accum::f32, 0, 474.45);
  r.clock.sm_clock_median_mhz = 1755;  // 4096 x 132 x 1755 MHz = 948.879 TFLOP/s
  const SolStats s = speed_of_light(r, h100());
  EXPECT_NEAR(*s.compute_tflops_run_clock, 948.879, 0.001);
  EXPECT_NEAR(*s.pct_sol_run_clock, 50.0, 0.01);
  EXPECT_NEAR(*s.pct_sol, 100.0 * 474.45 / 1070.53, 0.01) << "pct_sol stays at the max clock";
}

TEST(Roofline, BandwidthFallsBackToTheDatasheet) {
  EXPECT_NEAR(*datasheet_bandwidth_gbs(2619, 5120), 3352.32, 0.01);
  EXPECT_FALSE(datasheet_bandwidth_gbs(0, 5120));
  DeviceMetadata d = h100();
  d.mem_bw_measured_gbs.reset();
  SolStats s = speed_of_light(row(1, 4096, 4096, DType::f16, Accum::f32, 0, 1.0), d);
  EXPECT_EQ(s.mem_bw_source, "datasheet");
  EXPECT_NEAR(*s.mem_bw_gbs, 3352.32, 0.01);
  d.mem_bw_datasheet_gbs = 3350.0;  // a figure the runner filled wins over the computed one
  s = speed_of_light(row(1, 4096, 4096, DType::f16, Accum::f32, 0, 1.0), d);
  EXPECT_DOUBLE_EQ(*s.mem_bw_gbs, 3350.0);
  d.mem_bw_datasheet_gbs.reset();
  d.memory_clock_mhz = 0;
  s = speed_of_light(row(1, 4096, 4096, DType::f16, Accum::f32, 0, 1.0), d);
  EXPECT_EQ(s.mem_bw_source, "none");
  EXPECT_FALSE(s.mem_bw_gbs);
  EXPECT_FALSE(s.bound_tflops);
  EXPECT_NE(s.reason.find("bandwidth"), std::string::npos) << s.reason;
}

TEST(Roofline, F32IsFfmaAndUntimedRowsHaveNoPercentage) {
  const SolStats s = speed_of_light(row(4096, 4096, 4096, DType::f32, Accum::f32, 0, {}), h100());
  EXPECT_EQ(s.instruction_class, "ffma_f32");
  EXPECT_NEAR(*s.compute_tflops_max_clock, 256.0 * 132 * 1980e6 / 1e12, 1e-9);
  EXPECT_EQ(s.bound, "compute");
  EXPECT_FALSE(s.pct_sol) << "a skipped row has no TFLOP/s";
}

TEST(Intensity, GroupedCountsOnlyTheExpertsTouched) {
  // 4 experts of N=64, K=128, bf16; rows 3, 0, 5, 0: A and C move 8 rows, B two experts' weights.
  GroupedGemm g{Grouping{{3, 0, 5, 0}, GroupLayout::contiguous, 128, 0}, std::nullopt};
  CaseResult r = row(8, 64, 128, DType::bf16, Accum::f32, 0, std::nullopt);
  const double bytes = (8.0 * 128 + 2 * 128.0 * 64 + 8.0 * 64) * 2;
  EXPECT_DOUBLE_EQ(grouped_min_bytes(r.problem, g.grouping), bytes)
      << "padding to 128 rows moves nothing; the two empty experts' weights are not read";
  r.grouped = g;
  const SolStats s = speed_of_light(r, h100());
  EXPECT_DOUBLE_EQ(s.bytes, bytes);
  EXPECT_DOUBLE_EQ(s.flop, 2.0 * 8 * 64 * 128) << "2 * sum(M_g) * N * K";
  EXPECT_EQ(s.bound, "memory");
  // Every expert touched: the weights of all four, 4x the dense problem's one B.
  g.grouping.m = {2, 2, 2, 2};
  EXPECT_DOUBLE_EQ(grouped_min_bytes(r.problem, g.grouping),
                   gemm_min_bytes(r.problem) + 3 * 128.0 * 64 * 2);
  // beta != 0 reads C once more, as for a dense row.
  r.problem.beta = 1;
  EXPECT_DOUBLE_EQ(grouped_min_bytes(r.problem, g.grouping) - gemm_min_bytes(r.problem),
                   3 * 128.0 * 64 * 2);
}
