// FP8 (e4m3, e5m2) as a problem type, everywhere but on the GPU: the vocabulary, the plan's rules,
// the config keys, the report fields, speed of light, the verification bound and the scale index.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "config/config.hpp"
#include "core/errors.hpp"
#include "plan/plan.hpp"
#include "plan/shard.hpp"
#include "report/json_codec.hpp"
#include "report/reporter.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "sol/sol.hpp"
#include "verify/device_verify.hpp"
#include "verify/tolerance.hpp"

using namespace gemmbench;

namespace {

void noop_launch(const GemmArgs&, cudaStream_t) {}

KernelRegistry make_registry() {
  KernelRegistry reg;
  reg.add(KernelInfo{"hgemm_tn",
                     "hgemm",
                     1,
                     "",
                     {DType::f16, DType::bf16},
                     {Accum::f32},
                     {Layout::tn},
                     80,
                     {},
                     noop_launch});
  reg.add(KernelInfo{
      "fp8_k", "fp8gemm", 1, "", {DType::e4m3}, {Accum::f32}, {Layout::tn}, 90, {}, noop_launch});
  return reg;
}

RunSpec fp8_run() {
  RunSpec r;
  r.kernels = {"all"};
  r.shapes = {{4096, 7168, 2048}};
  r.dtypes = {DType::e4m3};
  return r;
}

Plan plan_of(const RunSpec& r) {
  static const KernelRegistry reg = make_registry();
  return build_plan({r}, {}, {}, reg);
}

GemmProblem fp8_problem(ScaleMode s, bool fast = false, int64_t k = 4096) {
  GemmProblem p{256, 384, k, Layout::tn, DType::e4m3, Accum::f32};
  p.out = DType::bf16;
  p.scale = s;
  p.fast_accum = fast;
  return p;
}

}  // namespace

TEST(Fp8Types, NamesBytesAndDefaults) {
  EXPECT_EQ(parse_dtype("e4m3"), DType::e4m3);
  EXPECT_EQ(parse_dtype("e5m2"), DType::e5m2);
  EXPECT_FALSE(parse_dtype("e5m3"));
  EXPECT_EQ(parse_scale_mode("block128"), ScaleMode::block128);
  EXPECT_FALSE(parse_scale_mode("none")) << "none is not a scaling a user picks";
  EXPECT_EQ(dtype_bytes(DType::e4m3), 1);
  EXPECT_DOUBLE_EQ(fp8_max(DType::e4m3), 448.0);
  EXPECT_EQ(default_out(DType::e4m3), DType::bf16);
  EXPECT_EQ(default_out(DType::f16), DType::f16);
  EXPECT_TRUE(out_valid_for(DType::e4m3, DType::f32));
  EXPECT_FALSE(out_valid_for(DType::e4m3, DType::e4m3));
  EXPECT_FALSE(out_valid_for(DType::f16, DType::bf16));
  EXPECT_FALSE(accum_valid_for(DType::e4m3, Accum::f16));
  EXPECT_EQ(fp8_problem(ScaleMode::row, true).type_string(), "e4m3/f32 row fast");
  GemmProblem f16{64, 64, 64, Layout::tn, DType::f16, Accum::f32};
  EXPECT_EQ(f16.type_string(), "f16/f32");
  EXPECT_EQ(f16.out_type(), DType::f16) << "out is an FP8 field; other types write their own";
}

// e5m2 beside e4m3: its own largest value and unit roundoff, B's type apart from A's, the pair in
// the type string only where the two differ (so e4m3 x e4m3 reads as it always did).
TEST(Fp8Types, E5m2AndTheTypeOfB) {
  EXPECT_TRUE(is_fp8(DType::e5m2));
  EXPECT_EQ(dtype_bytes(DType::e5m2), 1);
  EXPECT_DOUBLE_EQ(fp8_max(DType::e5m2), 57344.0);
  EXPECT_DOUBLE_EQ(fp8_max(DType::e4m3), 448.0);
  EXPECT_DOUBLE_EQ(unit_roundoff(DType::e5m2), 0.125) << "2 mantissa bits";
  EXPECT_DOUBLE_EQ(unit_roundoff(DType::e4m3), 0.0625) << "3 mantissa bits";
  EXPECT_EQ(default_out(DType::e5m2), DType::bf16);
  EXPECT_FALSE(accum_valid_for(DType::e5m2, Accum::f16));

  GemmProblem p = fp8_problem(ScaleMode::tensor);
  EXPECT_EQ(p.b_type(), DType::e4m3) << "unset: B has A's type";
  EXPECT_EQ(p.type_string(), "e4m3/f32 tensor");
  p.dtype_b = DType::e4m3;
  EXPECT_EQ(p.type_string(), "e4m3/f32 tensor") << "set to A's type reads the same";
  p.dtype_b = DType::e5m2;
  EXPECT_EQ(p.b_type(), DType::e5m2);
  EXPECT_EQ(p.input_types(), "e4m3xe5m2");
  EXPECT_EQ(p.type_string(), "e4m3xe5m2/f32 tensor");
  p.dtype = DType::e5m2, p.dtype_b = DType::e4m3, p.scale = ScaleMode::block128;
  EXPECT_EQ(p.type_string(), "e5m2xe4m3/f32 block128");
  GemmProblem f16{64, 64, 64, Layout::tn, DType::f16, Accum::f32};
  f16.dtype_b = DType::e5m2;
  EXPECT_EQ(f16.b_type(), DType::f16) << "B's own type is an FP8 field";

  EXPECT_EQ(fp8_pair_unsupported(DType::e4m3, DType::e4m3), "");
  EXPECT_EQ(fp8_pair_unsupported(DType::e4m3, DType::e5m2), "");
  EXPECT_EQ(fp8_pair_unsupported(DType::e5m2, DType::e4m3), "");
  const std::string why = fp8_pair_unsupported(DType::e5m2, DType::e5m2);
  EXPECT_NE(why.find("e5m2 x e5m2"), std::string::npos) << why;
  EXPECT_NE(why.find("cuBLASLt"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(Fp8Types, ScaleCountsFollowTheLayouts) {
  EXPECT_EQ(scale_count_a(ScaleMode::tensor, 300, 1000), 1);
  EXPECT_EQ(scale_count_a(ScaleMode::row, 300, 1000), 300);
  EXPECT_EQ(scale_count_a(ScaleMode::block128, 300, 1000), 300 * 8);  // ceil(1000/128) = 8
  EXPECT_EQ(scale_count_b(ScaleMode::block128, 300, 1000), 3 * 8);    // ceil(300/128) = 3
  EXPECT_EQ(scale_count_b(ScaleMode::none, 300, 1000), 0);
}

TEST(Fp8Types, ScaleIndexAgreesWithTheCounts) {
  for (ScaleMode s : kFp8ScaleModes) {
    GemmProblem p = fp8_problem(s, false, 1000);
    p.m = 300, p.n = 200;
    const ScaleIndex a = scale_index_a(p), b = scale_index_b(p);
    EXPECT_EQ(a.groups(p.m), scale_count_a(s, p.m, p.k)) << to_string(s);
    EXPECT_EQ(b.groups(p.n), scale_count_b(s, p.n, p.k)) << to_string(s);
    // The last element of each operand reads the last scale.
    EXPECT_EQ(a(p.m - 1, p.k - 1), a.groups(p.m) - 1) << to_string(s);
    EXPECT_EQ(b(p.n - 1, p.k - 1), b.groups(p.n) - 1) << to_string(s);
    EXPECT_EQ(a(0, 0), 0);
  }
  GemmProblem p = fp8_problem(ScaleMode::block128, false, 1000);
  const ScaleIndex a = scale_index_a(p), b = scale_index_b(p);
  EXPECT_EQ(a(5, 130), 5 * 8 + 1) << "A: a 1x128 slice of row 5, second along K";
  EXPECT_EQ(b(130, 300), 1 * 8 + 2) << "B: the 128x128 block of rows 128-255, third along K";
  EXPECT_EQ(b(127, 127), 0);
}

TEST(Fp8Plan, TnTensorScaledBf16OutByDefault) {
  const Plan plan = plan_of(fp8_run());
  ASSERT_EQ(plan.groups.size(), 1u);
  const GemmProblem& p = plan.groups[0].problem;
  EXPECT_EQ(p.layout, Layout::tn);
  EXPECT_EQ(p.scale, ScaleMode::tensor);
  EXPECT_EQ(p.out, DType::bf16);
  EXPECT_FALSE(p.fast_accum);
  ASSERT_EQ(plan.groups[0].kernels.size(), 1u) << "only kernels that declare e4m3 get a row";
  EXPECT_EQ(plan.groups[0].kernels[0]->name, "fp8_k");
}

TEST(Fp8Plan, AKernelNamedExactlyKeepsItsRowToSayWhy) {
  RunSpec r = fp8_run();
  r.kernels = {"hgemm_tn"};
  const Plan plan = plan_of(r);
  ASSERT_EQ(plan.groups.size(), 1u);
  ASSERT_EQ(plan.groups[0].kernels.size(), 1u);
  EXPECT_EQ(plan.groups[0].kernels[0]->name, "hgemm_tn");
  r.kernels = {"hgemm_*"};
  EXPECT_TRUE(plan_of(r).groups[0].kernels.empty()) << "a glob does not pull it in";
}

TEST(Fp8Plan, OneProblemPerScaling) {
  RunSpec r = fp8_run();
  r.scales = {ScaleMode::row, ScaleMode::block128};
  r.out = DType::f16;
  const Plan plan = plan_of(r);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].problem.scale, ScaleMode::row);
  EXPECT_EQ(plan.groups[1].problem.scale, ScaleMode::block128);
  EXPECT_EQ(plan.groups[1].problem.out, DType::f16);
}

TEST(Fp8Plan, MixedWithClassicTypes) {
  RunSpec r = fp8_run();
  r.dtypes = {DType::bf16, DType::e4m3};
  const Plan plan = plan_of(r);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].problem.dtype, DType::bf16);
  EXPECT_EQ(plan.groups[0].problem.scale, ScaleMode::none);
  EXPECT_EQ(plan.groups[0].kernels[0]->name, "hgemm_tn");
  EXPECT_EQ(plan.groups[1].problem.dtype, DType::e4m3);
}

TEST(Fp8Plan, OptionsThatCannotApplyAreUsageErrors) {
  RunSpec no_fp8 = fp8_run();
  no_fp8.dtypes = {DType::f16};
  no_fp8.scales = {ScaleMode::row};
  EXPECT_THROW(plan_of(no_fp8), UsageError) << "--scale without an FP8 dtype";
  no_fp8.scales.clear();
  no_fp8.fast_accum = true;
  EXPECT_THROW(plan_of(no_fp8), UsageError) << "--fast-accum without an FP8 dtype";

  RunSpec fast_block = fp8_run();
  fast_block.scales = {ScaleMode::block128};
  fast_block.fast_accum = true;
  EXPECT_THROW(plan_of(fast_block), UsageError);

  RunSpec nn = fp8_run();
  nn.layouts = {Layout::nn};
  EXPECT_THROW(plan_of(nn), UsageError) << "FP8 is TN only";

  RunSpec bad_out = fp8_run();
  bad_out.out = DType::e4m3;
  EXPECT_THROW(plan_of(bad_out), UsageError);
}

TEST(Fp8Config, KeysParseAndAreChecked) {
  const SweepConfig c = parse_config_text(R"({"runs": [{
      "kernels": ["cublas"], "shapes": [[128, 7168, 16384]], "dtypes": ["e4m3"],
      "scales": ["tensor", "block128"], "out": "f32", "fast_accum": false}]})",
                                          "fp8.json");
  ASSERT_EQ(c.runs.size(), 1u);
  EXPECT_EQ(c.runs[0].scales, (std::vector<ScaleMode>{ScaleMode::tensor, ScaleMode::block128}));
  EXPECT_EQ(c.runs[0].out, DType::f32);
  EXPECT_THROW(parse_config_text(R"({"runs": [{"kernels": ["cublas"], "shapes": [[64, 64, 64]],
      "dtypes": ["e4m3"], "scales": ["blocks"]}]})",
                                 "bad.json"),
               UsageError);
  EXPECT_THROW(parse_config_text(R"({"runs": [{"kernels": ["cublas"], "shapes": [[64, 64, 64]],
      "dtypes": ["e4m3"], "fast_accum": "yes"}]})",
                                 "bad.json"),
               UsageError);
}

TEST(Fp8Report, RowKeepsItsFormatThroughJson) {
  CaseResult r;
  r.index = 1;
  r.kernel = "cublas";
  r.provider = "cublaslt";
  r.family = "cublas";
  r.problem = fp8_problem(ScaleMode::row, true);
  r.status = Status::ok;
  r.error.computed = true;
  r.error.normwise = 3e-3;
  r.error.calc_diff = 4e-6;
  r.error.quant_normwise = 0.03;
  r.error.quant_calc_diff = 5e-4;
  const CaseResult back = case_result_from_json(to_json(r));
  EXPECT_EQ(back.problem.dtype, DType::e4m3);
  EXPECT_EQ(back.problem.scale, ScaleMode::row);
  EXPECT_TRUE(back.problem.fast_accum);
  EXPECT_EQ(back.problem.out, DType::bf16);
  EXPECT_DOUBLE_EQ(back.error.calc_diff, 4e-6);
  ASSERT_TRUE(back.error.quant_normwise);
  EXPECT_DOUBLE_EQ(*back.error.quant_normwise, 0.03);
  EXPECT_DOUBLE_EQ(*back.error.quant_calc_diff, 5e-4);
}

TEST(Fp8Sol, FourByteCAndTwiceTheF16Peak) {
  const auto cls = instruction_class(DType::e4m3, Accum::f32);
  ASSERT_TRUE(cls);
  EXPECT_EQ(*cls, InstrClass::tensor_fp8_f32acc);
  EXPECT_EQ(instruction_class(DType::e5m2, Accum::f32), cls) << "one FP8 rate for every pair";
  const auto h100 = flop_per_clock_per_sm(90, "NVIDIA H100 80GB HBM3", *cls);
  const auto h100_f16 =
      flop_per_clock_per_sm(90, "NVIDIA H100 80GB HBM3", InstrClass::tensor_f16_f32acc);
  ASSERT_TRUE(h100 && h100_f16);
  EXPECT_DOUBLE_EQ(*h100, 2 * *h100_f16);
  // 132 SMs x 8192 FLOP/clk x 1830 MHz: the whitepaper's 1978.9 TFLOP/s.
  EXPECT_NEAR(132 * *h100 * 1830e6 / 1e12, 1978.9, 0.5);
  std::string why;
  EXPECT_FALSE(flop_per_clock_per_sm(80, "NVIDIA A100-SXM4-80GB", *cls, &why));
  EXPECT_NE(why.find("tensor_fp8_f32acc"), std::string::npos) << why;
  const GemmProblem p = fp8_problem(ScaleMode::tensor);  // 256 x 384 x 4096, C bf16
  EXPECT_DOUBLE_EQ(gemm_min_bytes(p), (256.0 * 4096 + 4096.0 * 384) * 1 + 256.0 * 384 * 2);
  GemmProblem mixed = p;
  mixed.dtype_b = DType::e5m2;
  EXPECT_DOUBLE_EQ(gemm_min_bytes(mixed), gemm_min_bytes(p)) << "e5m2 is one byte too";
}

TEST(Fp8Tolerance, FollowsOutputRoundingAndTheAccumulator) {
  const GemmProblem p = fp8_problem(ScaleMode::block128, false, 4096);
  const double promoted =
      2 * std::ldexp(1.0, -8) + std::ldexp(1.0, -14) * std::sqrt(128.0) + std::ldexp(1.0, -24) * 64;
  EXPECT_DOUBLE_EQ(verification_tolerance(p), promoted);
  // Fast accumulation keeps the 14-bit accumulator over all of K: its bound grows with sqrt(K).
  const GemmProblem fast = fp8_problem(ScaleMode::tensor, true, 4096);
  EXPECT_DOUBLE_EQ(verification_tolerance(fast),
                   2 * std::ldexp(1.0, -8) + std::ldexp(1.0, -14) * 64 + std::ldexp(1.0, -24) * 64);
  // Still far below what a dropped 128-wide k-block costs at this K: sqrt(128/4096) = 0.18.
  EXPECT_LT(verification_tolerance(fast), 0.05);
  // The classic types keep their bound.
  const GemmProblem f16{64, 64, 4096, Layout::tn, DType::f16, Accum::f32};
  EXPECT_DOUBLE_EQ(verification_tolerance(f16),
                   verification_tolerance(DType::f16, Accum::f32, 4096));
}

TEST(Fp8Baseline, CublasLtRefusalsNameTheirReason) {
  GemmProblem p = fp8_problem(ScaleMode::tensor);  // 256 x 384 x 4096, C bf16
  EXPECT_EQ(CublasLtGemm::fp8_unsupported(p), "");
  GemmProblem f16{64, 64, 64, Layout::nn, DType::f16, Accum::f32};
  EXPECT_EQ(CublasLtGemm::fp8_unsupported(f16), "") << "not an FP8 problem: nothing to refuse";
  p.k = 4100;
  EXPECT_NE(CublasLtGemm::fp8_unsupported(p).find("K must be a multiple of 16"), std::string::npos);
  p.k = 4096;
  p.m = 100;  // 200 bytes per bf16 column of C
  EXPECT_NE(CublasLtGemm::fp8_unsupported(p).find("M must be a multiple of 8"), std::string::npos);
  p.out = DType::f32;  // 400 bytes: aligned
  EXPECT_EQ(CublasLtGemm::fp8_unsupported(p), "");
  p.m = 1;
  EXPECT_NE(CublasLtGemm::fp8_unsupported(p).find("multiple of 4"), std::string::npos);
  GemmProblem fast_block = fp8_problem(ScaleMode::block128, true);
  EXPECT_FALSE(CublasLtGemm::fp8_unsupported(fast_block).empty());
}

// ---- e5m2 and B's own type -------------------------------------------------------------------

// The verification bound is the arithmetic's: the same for every pair (the reference multiplies
// the dequantized values, whatever their format).
TEST(Fp8Tolerance, TheSameForEveryPair) {
  GemmProblem p = fp8_problem(ScaleMode::tensor, false, 4096);
  const double e4 = verification_tolerance(p);
  p.dtype_b = DType::e5m2;
  EXPECT_DOUBLE_EQ(verification_tolerance(p), e4);
  p.dtype = DType::e5m2, p.dtype_b = DType::e4m3;
  EXPECT_DOUBLE_EQ(verification_tolerance(p), e4);
}

TEST(Fp8Baseline, CublasLtRefusesE5m2TimesE5m2AndTakesTheMixedPairs) {
  GemmProblem p = fp8_problem(ScaleMode::tensor);
  p.dtype_b = DType::e5m2;
  EXPECT_EQ(CublasLtGemm::fp8_unsupported(p), "");
  p.dtype = DType::e5m2, p.dtype_b = DType::e4m3;
  EXPECT_EQ(CublasLtGemm::fp8_unsupported(p), "");
  p.dtype_b.reset();  // B takes A's type: e5m2 x e5m2
  const std::string why = CublasLtGemm::fp8_unsupported(p);
  EXPECT_NE(why.find("e5m2 x e5m2"), std::string::npos) << why;
}

// The quantizer gives each operand its own format: the largest element of every group lands on
// A's format's largest value for A and on B's for B (e4m3 448, e5m2 57344).
TEST(Fp8Quantizer, EachOperandScalesToItsOwnFormat) {
  GemmProblem p = fp8_problem(ScaleMode::block128, false, 1000);
  p.m = 300, p.n = 200;
  p.dtype_b = DType::e5m2;
  const Fp8Operand a = fp8_operand_a(p), b = fp8_operand_b(p);
  EXPECT_EQ(a.format, DType::e4m3);
  EXPECT_DOUBLE_EQ(a.max(), 448.0);
  EXPECT_EQ(a.rows, 300);
  EXPECT_EQ(a.idx.groups(a.rows), scale_count_a(p.scale, p.m, p.k));
  EXPECT_EQ(b.format, DType::e5m2);
  EXPECT_DOUBLE_EQ(b.max(), 57344.0);
  EXPECT_EQ(b.rows, 200);
  EXPECT_EQ(b.idx.groups(b.rows), scale_count_b(p.scale, p.n, p.k));
  p.dtype = DType::e5m2, p.dtype_b = DType::e4m3;
  EXPECT_DOUBLE_EQ(fp8_operand_a(p).max(), 57344.0);
  EXPECT_DOUBLE_EQ(fp8_operand_b(p).max(), 448.0);
  p.dtype_b.reset();
  p.dtype = DType::e4m3;
  EXPECT_EQ(fp8_operand_b(p).format, DType::e4m3) << "unset: B is quantized as A";
}

namespace {

// fp8_k takes e4m3 only; fp8_pairs_k declares e5m2 too (supports() would refuse e5m2 x e5m2).
const KernelRegistry& pair_registry() {
  static const KernelRegistry reg = [] {
    KernelRegistry r;
    r.add(KernelInfo{
        "fp8_k", "fp8gemm", 1, "", {DType::e4m3}, {Accum::f32}, {Layout::tn}, 90, {}, noop_launch});
    r.add(KernelInfo{"fp8_pairs_k",
                     "fp8gemm",
                     2,
                     "",
                     {DType::e4m3, DType::e5m2},
                     {Accum::f32},
                     {Layout::tn},
                     90,
                     {},
                     noop_launch});
    return r;
  }();
  return reg;
}

Plan pair_plan(const RunSpec& r) {
  return build_plan({r}, {}, {}, pair_registry());
}

std::string usage_error(const RunSpec& r) {
  try {
    pair_plan(r);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Fp8Plan, BTypesAreACrossProductAndEachItsOwnProblem) {
  RunSpec r = fp8_run();
  r.dtypes = {DType::e4m3};
  r.dtypes_b = {DType::e4m3, DType::e5m2};
  r.scales = {ScaleMode::tensor, ScaleMode::row};
  const Plan plan = pair_plan(r);
  ASSERT_EQ(plan.groups.size(), 4u) << "two B types x two scalings";
  EXPECT_EQ(plan.groups[0].problem.b_type(), DType::e4m3);
  EXPECT_FALSE(plan.groups[0].problem.dtype_b) << "e4m3 x e4m3 is the problem it always was";
  EXPECT_EQ(plan.groups[2].problem.b_type(), DType::e5m2);
  EXPECT_EQ(plan.groups[2].problem.type_string(), "e4m3xe5m2/f32 tensor");
  // A glob pulls in only the kernels that declare both types; the e4m3-only one keeps its
  // e4m3 x e4m3 rows.
  for (const ProblemGroup& g : plan.groups) {
    std::vector<std::string> names;
    for (const KernelInfo* k : g.kernels) names.push_back(k->name);
    if (g.problem.b_type() == DType::e5m2)
      EXPECT_EQ(names, std::vector<std::string>{"fp8_pairs_k"});
    else
      EXPECT_EQ(names, (std::vector<std::string>{"fp8_k", "fp8_pairs_k"}));
  }
  // Named exactly, it keeps its row (the runner skips it with supports()'s reason).
  r.kernels = {"fp8_k"};
  r.scales = {};
  const Plan named = pair_plan(r);
  ASSERT_EQ(named.groups.size(), 2u);
  EXPECT_EQ(named.groups[1].kernels.size(), 1u);

  RunSpec a5 = fp8_run();
  a5.dtypes = {DType::e5m2};
  a5.dtypes_b = {DType::e4m3};
  const Plan e5 = pair_plan(a5);
  ASSERT_EQ(e5.groups.size(), 1u);
  EXPECT_EQ(e5.groups[0].problem.type_string(), "e5m2xe4m3/f32 tensor");
  ASSERT_EQ(e5.groups[0].kernels.size(), 1u);
  EXPECT_EQ(e5.groups[0].kernels[0]->name, "fp8_pairs_k");
}

TEST(Fp8Plan, E5m2TimesE5m2AndMisplacedBTypesAreOneLineUsageErrors) {
  RunSpec both = fp8_run();
  both.dtypes = {DType::e5m2};
  std::string msg = usage_error(both);
  EXPECT_NE(msg.find("--dtype e5m2 without --dtype-b"), std::string::npos) << msg;
  EXPECT_NE(msg.find("e5m2 x e5m2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no baseline"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;

  both.dtypes = {DType::e4m3, DType::e5m2};
  both.dtypes_b = {DType::e4m3, DType::e5m2};  // the cross product holds e5m2 x e5m2
  msg = usage_error(both);
  EXPECT_NE(msg.find("--dtype e5m2 with --dtype-b e5m2"), std::string::npos) << msg;

  RunSpec classic = fp8_run();
  classic.dtypes = {DType::f16};
  classic.dtypes_b = {DType::e5m2};
  msg = usage_error(classic);
  EXPECT_NE(msg.find("--dtype-b applies to FP8 inputs only"), std::string::npos) << msg;

  RunSpec not_fp8 = fp8_run();
  not_fp8.dtypes_b = {DType::bf16};
  msg = usage_error(not_fp8);
  EXPECT_NE(msg.find("--dtype-b: 'bf16' is not one of e4m3, e5m2"), std::string::npos) << msg;

  RunSpec nn = fp8_run();
  nn.dtypes = {DType::e5m2};
  nn.dtypes_b = {DType::e4m3};
  nn.layouts = {Layout::nn};
  EXPECT_NE(usage_error(nn).find("FP8 GEMMs are TN only"), std::string::npos);
}

TEST(Fp8Config, DtypesBParsesAndIsChecked) {
  const SweepConfig c = parse_config_text(R"({"runs": [{
      "kernels": ["cublas"], "shapes": [[128, 7168, 16384]], "dtypes": ["e4m3", "e5m2"],
      "dtypes_b": "e4m3"}, {"name": "b", "kernels": ["cublas"], "shapes": [[64, 64, 64]],
      "dtypes": "e4m3", "dtypes_b": ["e5m2", "e4m3"]}]})",
                                          "fp8.json");
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].dtypes_b, std::vector<DType>{DType::e4m3});
  EXPECT_EQ(c.runs[1].dtypes_b, (std::vector<DType>{DType::e5m2, DType::e4m3}));
  const auto error_of = [](const std::string& text) {
    try {
      parse_config_text(text, "bad.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string msg = error_of(R"({"runs": [{"kernels": ["cublas"], "shapes": [[64, 64, 64]],
      "dtypes": ["e4m3"], "dtypes_b": ["f16"]}]})");
  EXPECT_NE(msg.find("runs[0].dtypes_b: 'f16' is not one of e4m3, e5m2"), std::string::npos) << msg;
  msg = error_of(R"({"runs": [{"kernels": ["cublas"], "shapes": [[64, 64, 64]],
      "dtypes": ["e4m3"], "dtype_b": "e5m2"}]})");
  EXPECT_NE(msg.find("did you mean 'dtypes_b'"), std::string::npos) << msg;
  // e5m2 x e5m2 from a config: the plan refuses it as it does the command line's.
  const SweepConfig e5 = parse_config_text(R"({"runs": [{"kernels": ["cublas"],
      "shapes": [[64, 64, 64]], "dtypes": ["e5m2"], "dtypes_b": ["e5m2"]}]})",
                                           "e5.json");
  EXPECT_NE(usage_error(e5.runs[0]).find("e5m2 x e5m2"), std::string::npos);
}

// Shards and `gemmbench merge` match rows by the plan's hash: a B type changes it, and naming B's
// type e4m3 for an e4m3 run changes nothing (so the plans of committed reports hash as before).
TEST(Fp8Plan, TheBTypeIsInThePlanHash) {
  RunSpec r = fp8_run();
  const std::string e4 = plan_hash(pair_plan(r));
  r.dtypes_b = {DType::e4m3};
  EXPECT_EQ(plan_hash(pair_plan(r)), e4);
  r.dtypes_b = {DType::e5m2};
  EXPECT_NE(plan_hash(pair_plan(r)), e4);
}

TEST(Fp8Report, BTypeKeepsItsRowApart) {
  CaseResult r;
  r.index = 1;
  r.kernel = "fp8gemm_sm90";
  r.provider = "gemmbench";
  r.family = "fp8gemm";
  r.problem = fp8_problem(ScaleMode::tensor);
  r.problem.dtype_b = DType::e5m2;
  r.status = Status::ok;
  const auto j = to_json(r);
  EXPECT_EQ(j.at("dtype"), "e4m3");
  EXPECT_EQ(j.at("dtype_b"), "e5m2");
  const CaseResult back = case_result_from_json(j);
  EXPECT_EQ(back.problem.b_type(), DType::e5m2);
  EXPECT_EQ(back.problem.type_string(), "e4m3xe5m2/f32 tensor");

  // e4m3 x e4m3 rows say dtype_b e4m3; a report from before e5m2 has no dtype_b at all, and
  // reads back as the same problem.
  CaseResult same = r;
  same.problem.dtype_b.reset();
  auto old = to_json(same);
  EXPECT_EQ(old.at("dtype_b"), "e4m3");
  old.erase("dtype_b");
  const CaseResult old_back = case_result_from_json(old);
  EXPECT_EQ(old_back.problem.b_type(), DType::e4m3);
  EXPECT_FALSE(old_back.problem.dtype_b);
  EXPECT_EQ(old_back.problem.type_string(), "e4m3/f32 tensor");

  // The CSV's column of B's type (FP8 rows), empty for the classic types: the last before the
  // grouped columns (docs/grouped.md), which come after every older one.
  const std::vector<std::string> cols = csv_columns();
  const size_t at = size_t(std::find(cols.begin(), cols.end(), "dtype_b") - cols.begin());
  ASSERT_LT(at, cols.size());
  EXPECT_EQ(cols[at + 1], "groups");
  EXPECT_EQ(csv_cells(r, "H100")[at], "e5m2");
  EXPECT_EQ(csv_cells(same, "H100")[at], "e4m3");
  CaseResult f16 = r;
  f16.problem = GemmProblem{64, 64, 64, Layout::tn, DType::f16, Accum::f32};
  EXPECT_EQ(csv_cells(f16, "H100")[at], "");
}
