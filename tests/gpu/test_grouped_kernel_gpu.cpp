// The grouped Hopper kernel hgemm_grouped_sm90 (kernels/hgemm/sm90/grouped.cu, issue 51) against
// the per-group fp64 reference (verify_grouped: C poisoned with NaN, padding rows never compared,
// an unwritten valid row fails): both layouts, contiguous with align 1, 8 and 128, skewed groups
// with empty ones, one-row groups and rows that are not a multiple of the 128-row tile, N and K at
// and beside the tile edges, f16 and bf16, alpha and beta != 0, and a capped grid that walks many
// tiles per CTA. Then what the kernel refuses, with its reasons. Its variant hgemm_grouped_sm90_tma
// (a TMA-store epilogue) on the cases of its layouts (groups padded to 128 rows), that no store
// reaches another group's rows, and its refusals.
// The grouped FP8 kernel fp8gemm_grouped_sm90 (kernels/fp8gemm/grouped.cu) the same way, with
// block128 scales and the tolerance of every FP8 block128 row (verification_passed): both layouts,
// balanced and skewed groups, empty and one-row groups, M_g beside 64 and 128 (a consumer with no
// rows skips its tile), N and K beside 128, beta != 0, grids capped to 1 and 3 CTAs; that padding
// rows stay as they were (NaN poison); and that fp8gemm runs it on a grouped case. Its variant
// fp8gemm_grouped_sm90_tma (a TMA-store epilogue) on the cases of its layouts (groups padded to
// 128 rows), that no store reaches another group's rows, and its refusals; its 192-column variant
// fp8gemm_grouped_sm90_n192_tma the same, with N where a tile spans two blocks of the scales.
// Then repeated launches of each on one skewed grouping at full layer size, which must agree bit
// for bit (a race would not); and the dispatchers' choices per grouping: two groupings of the same
// G and stored rows, run one after the other, each get their own kernel. The turned-around variant
// hgemm_grouped_sm90_fit (tokens on wgmma's N) on the register kernel's cases and on groups beside
// the widths it picks, its variant _fit_trim (the token box cut to the tile) the same, that
// neither writes a padding row, and their repeats; hgemm's choice of _fit_trim for groups of 32
// rows or fewer. The pair hgemm_grouped_sm90_pair (2-CTA clusters, two token tiles of a group on
// one multicast weight tile) on the register kernel's cases and on groups beside its 256-row unit
// (a second tile with no rows, with 1 and with 128), grids capped to 1, 2 and 3 CTAs (one pair),
// that it writes no padding row, and its repeats.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/registry.hpp"
#include "gpu_test_util.hpp"
#include "runner/grouped_gemm.hpp"
#include "verify/tolerance.hpp"
#include "grouping_fixtures.hpp"

namespace gemmbench {
namespace {

constexpr const char* kKernel = "hgemm_grouped_sm90";

struct KernelCase {
  const char* name;
  Grouping grouping;
  int64_t n, k;
  DType type;
  Accum accum;
  double alpha, beta;
  int max_ctas;  // GemmArgs::test_max_ctas (0: the whole grid)
};

GemmProblem problem_of(const KernelCase& c) {
  return grouped_problem(c.grouping, c.n, c.k, c.type, c.accum, c.alpha, c.beta);
}

// 64 groups, skewed as an MoE routing is (a few large, many small, some empty).
std::vector<int64_t> skewed(int groups) {
  std::vector<int64_t> m;
  for (int g = 0; g < groups; ++g) m.push_back(g % 9 == 4 ? 0 : g < 3 ? 700 / (g + 1) : g % 13);
  return m;
}

std::vector<KernelCase> cases() {
  using G = std::vector<int64_t>;
  return {
      // Skewed, empty and one-row groups, rows beside the tile; N = 256 + 8, K = 2 k-blocks + 8.
      {"skewed_align1_bf16", contiguous(G{300, 0, 1, 129, 0, 17, 640}, 1), 264, 136, DType::bf16,
       Accum::f32, 1, 0, 0},
      {"skewed_align1_f16", contiguous(G{300, 0, 1, 129, 0, 17, 640}, 1), 264, 136, DType::f16,
       Accum::f32, 1, 0, 0},
      // DeepGEMM's contiguous layout: each group padded to 128 rows; N one whole tile, K one block.
      {"align128_f16", contiguous(G{130, 0, 1, 257, 128}, 128), 256, 64, DType::f16, Accum::f32, 1,
       0, 0},
      {"align128_bf16", contiguous(G{130, 0, 1, 257, 128}, 128), 256, 64, DType::bf16, Accum::f32,
       1, 0, 0},
      // Masked, alpha and beta (C read back), N past two tiles, K = 72 (a partial k-block).
      {"masked_beta_bf16", masked(G{7, 129, 0, 2, 160}, 160), 520, 72, DType::bf16, Accum::f32,
       -0.75, 0.5, 0},
      {"masked_f16", masked(G{0, 1, 128, 64}, 130), 248, 200, DType::f16, Accum::f32, 1, 0, 0},
      // N % 8 != 0: the epilogue's 2-byte stores; align 8; f16 accumulation.
      {"n100_align8_f16acc", contiguous(G{33, 0, 65, 5}, 8), 100, 128, DType::f16, Accum::f16, 1.5,
       0, 0},
      // A tiny problem: N and K below one tile and one k-block.
      {"tiny", contiguous(G{1, 2, 3}, 1), 8, 8, DType::bf16, Accum::f32, 1, 0, 0},
      // Only the last group has rows; only the first.
      {"last_only", contiguous(G{0, 0, 0, 77}, 1), 136, 64, DType::bf16, Accum::f32, 1, 0, 0},
      {"first_only", masked(G{77, 0, 0, 0}, 80), 136, 64, DType::f16, Accum::f32, 1, 0, 0},
      // 64 skewed groups on 3 CTAs (many tiles each, ring phases across tiles), and on the grid.
      {"skewed64_capped3", contiguous(skewed(64), 1), 384, 256, DType::bf16, Accum::f32, 1, -1, 3},
      {"skewed64_grid", contiguous(skewed(64), 16), 384, 256, DType::bf16, Accum::f32, 1, 0, 0},
  };
}

// Skips visibly without a GPU, and off Hopper (the kernel says why in its supports()).
const KernelInfo& require_kernel(const char* name = kKernel) {
  const KernelInfo* k = KernelRegistry::instance().find(name);
  if (!k) throw std::runtime_error(std::string(name) + " is not registered");
  return *k;
}

// Runs `kernel` on problem p of grouping g once, verified group by group; `after` sees the
// operands once the check is done (C as the launch left it), and the launch and stream if it
// takes them (after(p, d, launch, stream)). The FP8 kernels' scales are the operands' own (null
// for f16 and bf16).
template <class After>
void run_grouped_case(const char* kernel, const GemmProblem& p, const Grouping& g, int max_ctas,
                      uint64_t seed, After&& after) {
  const KernelInfo& k = require_kernel(kernel);
  const DeviceCaps caps = current_device_caps();
  if (const std::string why = why_unsupported(k, p, caps, &g); !why.empty()) {
    if (caps.sm != 90) GTEST_SKIP() << kernel << ": " << why;
    FAIL() << "refused on sm_90: " << why;
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  ErrorMeter meter;
  GroupedOperands d = make_grouped_operands(p, g, seed, DataDist::uniform, meter, stream);
  // A dispatcher's tables count its choice's tiles (the pair's 256 rows), as the runner's do.
  const GroupedLaunchTables tables(g, grouped_launch_tile_rows(k, p, g, caps), stream);
  GemmArgs args = grouped_kernel_args(p, d, tables);
  args.test_max_ctas = max_ctas;
  const std::function<void()> launch = [&] {
    k.launch(args, stream);
    CUDA_CHECK_LAST_LAUNCH();
  };
  const ErrorStats e = verify_grouped(p, g, d, meter, stream, launch);
  EXPECT_EQ(e.nonfinite, 0) << "valid rows left unwritten (NaN poison) or overflowed";
  EXPECT_TRUE(verification_passed(e)) << "normwise " << e.normwise << " > tolerance " << e.tolerance
                                      << " (max abs " << e.max_abs << ")";
  if constexpr (std::is_invocable_v<After, const GemmProblem&, GroupedOperands&,
                                    const std::function<void()>&, cudaStream_t>)
    after(p, d, launch, stream);
  else
    after(p, d);
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// The bf16/f16 kernels' cases (hgemm_grouped_sm90, its variant, the hgemm dispatcher).
template <class After>
void run_case(const char* kernel, const KernelCase& c, After&& after) {
  run_grouped_case(kernel, problem_of(c), c.grouping, c.max_ctas, 20261129, after);
}

class GroupedKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(GroupedKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_case(kKernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedKernel, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// What the kernel refuses, each with its one-line reason: a dense problem, K not a multiple of 8
// (TMA row strides), bf16 with f16 accumulation. No launch needed.
TEST(GroupedKernelSupport, RefusalsNameTheirReason) {
  GEMMBENCH_REQUIRE_GPU();
  const KernelInfo& k = require_kernel();
  const DeviceCaps caps = current_device_caps();
  const Grouping g = contiguous({5, 0, 7}, 1);
  GemmProblem p = problem_of({"", g, 64, 64, DType::bf16, Accum::f32, 1, 0, 0});
  EXPECT_EQ(why_unsupported(k, p, caps), kGroupedKernelDenseReason);
  if (caps.sm != 90) {
    EXPECT_NE(why_unsupported(k, p, caps, &g), "") << "sm_" << caps.sm << " has no wgmma";
    GTEST_SKIP() << kKernel << " runs on sm_90 only; the rest needs one";
  }
  EXPECT_EQ(why_unsupported(k, p, caps, &g), "");
  p.k = 60;
  EXPECT_EQ(why_unsupported(k, p, caps, &g),
            "K must be a multiple of 8: TMA needs 16-byte aligned row strides");
  p.k = 64;
  p.accum = Accum::f16;
  EXPECT_NE(why_unsupported(k, p, caps, &g), "") << "bf16 accumulates in f32 only";
}

// The launch refuses arguments without the case's tile table instead of reading a null pointer.
TEST(GroupedKernelSupport, ALaunchWithoutItsTablesThrows) {
  GEMMBENCH_REQUIRE_GPU();
  const KernelInfo& k = require_kernel();
  const Grouping g = contiguous({5, 7}, 1);
  const GemmProblem p = problem_of({"", g, 64, 64, DType::bf16, Accum::f32, 1, 0, 0});
  GemmArgs args{p};
  EXPECT_THROW(k.launch(args, nullptr), std::invalid_argument);
  const GroupedLaunchTables no_tiles(g, 0, nullptr);
  args.grouped = &no_tiles.launch;
  EXPECT_THROW(k.launch(args, nullptr), std::invalid_argument) << "tile_rows 0: no tile table";
}

// After a verified launch (C poisoned with NaN before it, bf16): no element of a row outside
// every group's M_g rows (contiguous padding, masked rows past m_g) was written.
void expect_padding_untouched(const GemmProblem& p, const GroupedOperands& d, const Grouping& g) {
  std::vector<uint16_t> out(size_t(g.stored_rows() * p.n));
  CUDA_CHECK(cudaMemcpy(out.data(), d.c.get(), out.size() * 2, cudaMemcpyDeviceToHost));
  std::vector<bool> valid(size_t(g.stored_rows()), false);
  for (size_t grp = 0; grp < g.m.size(); ++grp)
    for (int64_t i = 0; i < g.m[grp]; ++i) valid[size_t(d.first_row[grp] + i)] = true;
  int64_t padding = 0, written = 0;
  for (int64_t r = 0; r < g.stored_rows(); ++r) {
    if (valid[size_t(r)]) continue;
    ++padding;
    for (int64_t n = 0; n < p.n; ++n) {
      const uint16_t u = out[size_t(r * p.n + n)];
      written += !((u & 0x7f80) == 0x7f80 && (u & 0x7f) != 0);  // not a bf16 NaN
    }
  }
  EXPECT_GT(padding, 100) << "the case has padding rows to check";
  EXPECT_EQ(written, 0) << "elements of padding rows overwritten";
}

// ---- hgemm_grouped_sm90_fit: the tile turned around, wgmma's N fitted to the group ----
// Every case of the register kernel (both layouts, align 1 to 128, beta, f16 accumulation, N % 8
// != 0, a grid of 3 CTAs), and groups on each side of the widths it picks (32, 64 and 128 rows
// left in a tile) with N beside its 128-row weight tile and a partial k-block.

constexpr const char* kFitKernel = "hgemm_grouped_sm90_fit";

std::vector<KernelCase> fit_cases() {
  using G = std::vector<int64_t>;
  std::vector<KernelCase> v = cases();
  v.push_back({"widths_fit_bf16", contiguous(G{32, 33, 64, 65, 96, 128, 129, 31, 1, 0, 160}, 1),
               200, 136, DType::bf16, Accum::f32, 1, 0, 0});
  v.push_back({"widths_fit_f16acc_beta", masked(G{32, 33, 64, 65, 127, 128, 0}, 192), 136, 72,
               DType::f16, Accum::f16, 0.5, -1, 0});
  v.push_back({"widths_fit_capped1", contiguous(G{5, 40, 70, 200, 31, 64}, 8), 264, 128,
               DType::bf16, Accum::f32, 1, 0.25, 1});
  return v;
}

class GroupedFitKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(GroupedFitKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_case(kFitKernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedFitKernel, ::testing::ValuesIn(fit_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// _fit_trim: the same cases with each stage's token box cut to the tile's N.
constexpr const char* kFitTrimKernel = "hgemm_grouped_sm90_fit_trim";

class GroupedFitTrimKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(GroupedFitTrimKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_case(kFitTrimKernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedFitTrimKernel, ::testing::ValuesIn(fit_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- hgemm_grouped_sm90_pair: two token tiles of a group on one multicast weight tile ----
constexpr const char* kPairKernel = "hgemm_grouped_sm90_pair";

std::vector<KernelCase> pair_cases() {
  using G = std::vector<int64_t>;
  std::vector<KernelCase> v = cases();
  // Groups on each side of the pair's 256 rows and its halves: the second tile empty (128, 1,
  // 129 - 128 = 1 row), full (256), one row past (257), three tiles (384: the last pair half).
  v.push_back({"pair_units_bf16", contiguous(G{128, 129, 255, 256, 257, 384, 1, 0, 640}, 1), 264,
               136, DType::bf16, Accum::f32, 1, 0, 0});
  v.push_back({"pair_units_masked_beta", masked(G{128, 256, 0, 200, 385}, 400), 520, 72, DType::f16,
               Accum::f32, -0.5, 0.75, 0});
  // One pair walks every tile (ring phases over many tiles, both CTAs); 3 CTAs run as one pair.
  v.push_back(
      {"pair_capped2", contiguous(skewed(64), 1), 384, 256, DType::bf16, Accum::f32, 1, 0.5, 2});
  v.push_back({"pair_capped3", contiguous(G{700, 300, 5, 129, 0, 256}, 8), 264, 200, DType::f16,
               Accum::f16, 1, 0, 3});
  v.push_back({"pair_capped1", contiguous(G{300, 17, 640}, 128), 256, 64, DType::bf16, Accum::f32,
               1, 0, 1});
  return v;
}

class GroupedPairKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(GroupedPairKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_case(kPairKernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedPairKernel, ::testing::ValuesIn(pair_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// hgemm_grouped_sm90_pairg, the pair on the global pairing of 128-row tiles with _tma's epilogue:
// the pair's cases that TMA stores take (beta 0, N % 8 == 0: units across two groups wherever a
// group's tiles end on an even index, a last unit with rank 1 idle on odd tile counts) and groups
// ending inside a consumer's 64 rows at align 1 and 8 and masked max_m 160, its padding untouched
// (the pair's test, below), stores past a group, beta and N refused, and a launch on a 256-row
// table refused.
constexpr const char* kPairGKernel = "hgemm_grouped_sm90_pairg";

std::vector<KernelCase> pairg_cases() {
  using G = std::vector<int64_t>;
  std::vector<KernelCase> v;
  for (const KernelCase& c : pair_cases())
    if (c.beta == 0 && c.n % 8 == 0) v.push_back(c);
  v.push_back({"pairg_rows_beside_64_128_align1", contiguous(G{63, 64, 65, 127, 128, 129}, 1), 200,
               128, DType::bf16, Accum::f32, 1, 0, 0});
  v.push_back({"pairg_rows_beside_64_128_f16acc", contiguous(G{63, 64, 65, 127, 128, 129}, 8), 200,
               128, DType::f16, Accum::f16, 1.5, 0, 0});
  v.push_back({"pairg_masked160_alpha", masked(G{7, 129, 0, 2, 160}, 160), 520, 72, DType::bf16,
               Accum::f32, -0.75, 0, 0});
  v.push_back({"pairg_skewed64_capped2_f16", contiguous(skewed(64), 1), 256, 384, DType::f16,
               Accum::f32, 1, 0, 2});
  return v;
}

// What the TMA-store epilogue itself refuses, on any kernel that has it (_pairg, the _tma
// variants), each with its reason: beta != 0 (C is never read) and N % 8 != 0 (C's rows are not
// 16-byte aligned for TMA).
void expect_tma_epilogue_refusals(const KernelInfo& k, const GemmProblem& p, const DeviceCaps& caps,
                                  const Grouping& g) {
  GemmProblem q = p;
  q.beta = 0.5;
  EXPECT_NE(why_unsupported(k, q, caps, &g).find("beta != 0"), std::string::npos);
  q = p;
  q.n = 100;
  EXPECT_NE(why_unsupported(k, q, caps, &g).find("multiple of 8"), std::string::npos);
}

class GroupedPairGKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(GroupedPairGKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_case(kPairGKernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedPairGKernel, ::testing::ValuesIn(pairg_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GroupedPairGKernelSupport, ItsTablesAreTheRegisterKernels) {
  GEMMBENCH_REQUIRE_GPU();
  const KernelInfo& k = require_kernel(kPairGKernel);
  EXPECT_EQ(k.group_tile_rows, 128) << "the walk's row tiles are 128 rows, two a unit";
  const DeviceCaps caps = current_device_caps();
  if (caps.sm != 90) GTEST_SKIP() << kPairGKernel << " runs on sm_90 only; the rest needs one";
  const Grouping g = contiguous({5, 0, 300}, 1);
  const GemmProblem p = problem_of({"", g, 64, 64, DType::bf16, Accum::f32, 1, 0, 0});
  EXPECT_EQ(why_unsupported(k, p, caps, &g), "");
  GemmArgs args{p};
  const GroupedLaunchTables tiles256(g, 256, nullptr);
  args.grouped = &tiles256.launch;
  EXPECT_THROW(k.launch(args, nullptr), std::invalid_argument) << "a table of 256-row tiles";
  expect_tma_epilogue_refusals(k, p, caps, g);
  GemmArgs beta_args{p};
  beta_args.beta = 0.5f;
  EXPECT_THROW(k.launch(beta_args, nullptr), std::invalid_argument) << "beta != 0";
}

// Its refusals are the register kernel's (a dense problem, K not a multiple of 8, bf16 with f16
// accumulation), and a launch without its 256-row tile table throws.
TEST(GroupedPairKernelSupport, RefusalsNameTheirReason) {
  GEMMBENCH_REQUIRE_GPU();
  const KernelInfo& k = require_kernel(kPairKernel);
  EXPECT_EQ(k.group_tile_rows, 256) << "the walk's row tile is the pair's";
  const DeviceCaps caps = current_device_caps();
  const Grouping g = contiguous({5, 0, 300}, 1);
  GemmProblem p = problem_of({"", g, 64, 64, DType::bf16, Accum::f32, 1, 0, 0});
  EXPECT_EQ(why_unsupported(k, p, caps), kGroupedKernelDenseReason);
  if (caps.sm != 90) GTEST_SKIP() << kPairKernel << " runs on sm_90 only; the rest needs one";
  EXPECT_EQ(why_unsupported(k, p, caps, &g), "");
  p.k = 60;
  EXPECT_EQ(why_unsupported(k, p, caps, &g),
            "K must be a multiple of 8: TMA needs 16-byte aligned row strides");
  p.k = 64, p.accum = Accum::f16;
  EXPECT_NE(why_unsupported(k, p, caps, &g), "") << "bf16 accumulates in f32 only";
  p.accum = Accum::f32;
  GemmArgs args{p};
  const GroupedLaunchTables tiles128(g, 128, nullptr);
  args.grouped = &tiles128.launch;
  EXPECT_THROW(k.launch(args, nullptr), std::invalid_argument) << "a table of 128-row tiles";
}

// Neither writes a row outside the groups: the tile's token rows past its group are computed
// (the whole box, or the trimmed boxes' stale rows) and never stored.
TEST(GroupedFitKernelPadding, RowsOutsideTheGroupsAreLeftUntouched) {
  GEMMBENCH_REQUIRE_GPU();
  using G = std::vector<int64_t>;
  for (const char* kernel : {kFitKernel, kFitTrimKernel})
    for (const KernelCase& c : {KernelCase{"align128", contiguous(G{130, 0, 1, 257, 33}, 128), 264,
                                           256, DType::bf16, Accum::f32, 1, 0, 0},
                                KernelCase{"masked", masked(G{7, 129, 0, 65, 31}, 192), 136, 128,
                                           DType::bf16, Accum::f32, 1, 0, 0}}) {
      SCOPED_TRACE(std::string(kernel) + " " + c.name);
      run_case(kernel, c, [&](const GemmProblem& p, const GroupedOperands& d) {
        expect_padding_untouched(p, d, c.grouping);
      });
    }
}

// The pair's second tile past its group computes nothing and stores nothing; its first tile's
// rows past the group are not stored either. The same for the global pairing (_pairg).
TEST(GroupedPairKernelPadding, RowsOutsideTheGroupsAreLeftUntouched) {
  GEMMBENCH_REQUIRE_GPU();
  using G = std::vector<int64_t>;
  for (const char* kernel : {kPairKernel, kPairGKernel})
    for (const KernelCase& c : {KernelCase{"align128", contiguous(G{130, 0, 1, 257, 33}, 128), 264,
                                           256, DType::bf16, Accum::f32, 1, 0, 0},
                                KernelCase{"align256", contiguous(G{1, 128, 129, 300}, 256), 264,
                                           128, DType::bf16, Accum::f32, 1, 0, 0},
                                KernelCase{"masked", masked(G{7, 129, 0, 65, 31}, 192), 136, 128,
                                           DType::bf16, Accum::f32, 1, 0, 0}}) {
      SCOPED_TRACE(std::string(kernel) + " " + c.name);
      run_case(kernel, c, [&](const GemmProblem& p, const GroupedOperands& d) {
        expect_padding_untouched(p, d, c.grouping);
      });
    }
}

// Its refusals are the register kernel's: a dense problem, K not a multiple of 8.
TEST(GroupedFitKernelSupport, RefusalsNameTheirReason) {
  GEMMBENCH_REQUIRE_GPU();
  const KernelInfo& k = require_kernel(kFitKernel);
  const DeviceCaps caps = current_device_caps();
  const Grouping g = contiguous({5, 0, 7}, 1);
  GemmProblem p = problem_of({"", g, 64, 64, DType::bf16, Accum::f32, 1, 0, 0});
  EXPECT_EQ(why_unsupported(k, p, caps), kGroupedKernelDenseReason);
  if (caps.sm != 90) GTEST_SKIP() << kFitKernel << " runs on sm_90 only; the rest needs one";
  EXPECT_EQ(why_unsupported(k, p, caps, &g), "");
  p.k = 60;
  EXPECT_EQ(why_unsupported(k, p, caps, &g),
            "K must be a multiple of 8: TMA needs 16-byte aligned row strides");
}

// ---- hgemm_grouped_sm90_tma: the same kernel with a TMA-store epilogue ----
// Its stores write whole 64-row boxes of a consumer's rows inside its group, the rows of a group's
// last tile from the fragment: any grouping, N % 8 == 0 and beta == 0, checked at the same
// tolerance as the kernel it varies.

constexpr const char* kTmaKernel = "hgemm_grouped_sm90_tma";

std::vector<KernelCase> tma_cases() {
  using G = std::vector<int64_t>;
  std::vector<KernelCase> c = {
      // Balanced: every group two whole row tiles; N two tiles, K four k-blocks.
      {"balanced_align128_bf16", contiguous(G{256, 256, 256, 256}, 128), 512, 256, DType::bf16,
       Accum::f32, 1, 0, 0},
      // Align 1 with groups of whole row tiles (and an empty one): no padding, no tile reaching
      // the next group's rows (every balanced MoE case at 4096 tokens).
      {"whole_tiles_align1_bf16", contiguous(G{256, 0, 128, 384}, 1), 512, 256, DType::bf16,
       Accum::f32, 1, 0, 0},
      // Skewed, empty and one-row groups; N = 256 + 8 (the last N tile's first box clipped to 8
      // columns, its other three starting past N), K = 2 k-blocks + 8.
      {"skewed_align128_f16", contiguous(G{300, 0, 1, 129, 0, 17, 640}, 128), 264, 136, DType::f16,
       Accum::f32, 1, 0, 0},
      // Last row tiles of 63, 64, 65, 127, 128 and 129 rows: the second consumer skips (63, 64,
      // 129's second tile) or stores a box of 1, 63 or 64 valid rows; N = 200: the last box
      // clipped to its first 8 columns.
      {"rows_beside_64_128_bf16", contiguous(G{63, 64, 65, 127, 128, 129}, 128), 200, 128,
       DType::bf16, Accum::f32, 1, 0, 0},
      {"rows_beside_64_128_f16acc", contiguous(G{63, 64, 65, 127, 128, 129}, 128), 200, 128,
       DType::f16, Accum::f16, 1.5, 0, 0},
      // Masked at the tightest max_m: each group exactly one row tile of storage; alpha != 1, a
      // partial k-block, N past two tiles.
      {"masked128_alpha_bf16", masked(G{7, 128, 0, 2, 65}, 128), 520, 72, DType::bf16, Accum::f32,
       -0.75, 0, 0},
      {"masked256_skewed_f16", masked(G{129, 0, 1, 256, 64, 255}, 256), 136, 192, DType::f16,
       Accum::f32, 1, 0, 0},
      // One group of one row, N and K below one box and one k-block; only the last group has rows.
      {"one_row_tiny", contiguous(G{1}, 128), 8, 8, DType::bf16, Accum::f32, 1, 0, 0},
      {"last_only", contiguous(G{0, 0, 0, 77}, 128), 136, 64, DType::bf16, Accum::f32, 1, 0, 0},
      // Many tiles a CTA: each consumer's boxes reused tile after tile behind the deferred wait,
      // with skipped halves between; one k-block a tile (short_k) leaves the stores the least
      // mainloop to drain under.
      {"skewed64_capped3", contiguous(skewed(64), 128), 384, 256, DType::bf16, Accum::f32, 1, 0, 3},
      {"skewed64_capped1_f16", contiguous(skewed(64), 128), 256, 384, DType::f16, Accum::f32, 1, 0,
       1},
      {"short_k_capped1", contiguous(G{129, 0, 255, 64, 1, 65}, 128), 200, 64, DType::bf16,
       Accum::f32, 1, 0, 1},
      {"skewed64_masked_capped3", masked(skewed(64), 768), 264, 256, DType::bf16, Accum::f32, 1, 0,
       3},
      {"skewed64_grid", contiguous(skewed(64), 128), 384, 256, DType::bf16, Accum::f32, 1, 0, 0},
  };
  // Since 2026-11-30 any grouping: a consumer whose group ends inside its 64 rows stores them from
  // the fragment. Align 1 and 8 and masked max_m 160, with last tiles of 1-129 rows.
  const std::vector<KernelCase> edge = {
      {"edge_skewed_align1_bf16", contiguous(G{300, 0, 1, 129, 0, 17, 640}, 1), 264, 136,
       DType::bf16, Accum::f32, 1, 0, 0},
      {"edge_skewed_align1_f16", contiguous(G{300, 0, 1, 129, 0, 17, 640}, 1), 264, 136, DType::f16,
       Accum::f32, 1, 0, 0},
      {"edge_rows_beside_64_128_align1", contiguous(G{63, 64, 65, 127, 128, 129}, 1), 200, 128,
       DType::bf16, Accum::f32, 1, 0, 0},
      {"edge_rows_beside_64_128_f16acc", contiguous(G{63, 64, 65, 127, 128, 129}, 8), 200, 128,
       DType::f16, Accum::f16, 1.5, 0, 0},
      {"edge_masked160_alpha", masked(G{7, 129, 0, 2, 160}, 160), 520, 72, DType::bf16, Accum::f32,
       -0.75, 0, 0},
      {"edge_skewed64_align1_capped3", contiguous(skewed(64), 1), 384, 256, DType::bf16, Accum::f32,
       1, 0, 3},
      {"edge_skewed64_align1_capped1_f16", contiguous(skewed(64), 1), 256, 384, DType::f16,
       Accum::f32, 1, 0, 1},
      {"edge_skewed64_align1_grid", contiguous(skewed(64), 1), 384, 256, DType::bf16, Accum::f32, 1,
       0, 0},
  };
  c.insert(c.end(), edge.begin(), edge.end());
  return c;
}

class GroupedTmaKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(GroupedTmaKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_case(kTmaKernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedTmaKernel, ::testing::ValuesIn(tma_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// The second run of the TMA-store variants' NoStoreReachesAnotherGroupsRows tests (below): `kernel`
// again on the operands of a verified run of grouping x, now with every odd group cut to no rows
// (masked) or one row (contiguous: each group keeps its 128 stored rows, so the same offsets). The
// even groups' tiles are computed again bit for bit (same tiles, same order of k), the odd groups'
// rows are left alone or (the one row's box) rewritten with what they hold: C must not change at
// all in the first run's valid rows. A box of an even group's tile that reached the next group's
// rows would write there the next group's activations times this group's weights. The scales are
// the operands' own (null for f16/bf16).
void expect_second_run_keeps_valid_rows(const KernelInfo& k, const Grouping& x,
                                        const GemmProblem& p, const GroupedOperands& d,
                                        int max_ctas) {
  Grouping y = x;
  for (size_t grp = 1; grp < y.m.size(); grp += 2)
    y.m[grp] = y.layout == GroupLayout::masked ? 0 : 1;
  ASSERT_EQ(y.row_offsets(), x.row_offsets()) << "the second run keeps every group's rows";
  ASSERT_EQ(y.stored_rows(), x.stored_rows()) << "and C's stored rows (the A scales' clamp)";
  const size_t elems = size_t(x.stored_rows() * p.n);
  std::vector<uint16_t> first(elems), second(elems);
  CUDA_CHECK(cudaMemcpy(first.data(), d.c.get(), elems * 2, cudaMemcpyDeviceToHost));

  GemmProblem q = p;
  q.m = y.total_m();
  const GroupedLaunchTables tables(y, k.group_tile_rows, nullptr);
  GemmArgs args = grouped_kernel_args(q, d, tables);
  args.test_max_ctas = max_ctas;
  k.launch(args, nullptr);
  CUDA_CHECK_LAST_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(second.data(), d.c.get(), elems * 2, cudaMemcpyDeviceToHost));

  int64_t checked = 0, changed = 0;
  for (size_t grp = 0; grp < x.m.size(); ++grp)
    for (int64_t i = 0; i < x.m[grp]; ++i)
      for (int64_t n = 0; n < p.n; ++n) {
        const size_t at = size_t((d.first_row[grp] + i) * p.n + n);
        ++checked;
        changed += first[at] != second[at];
      }
  EXPECT_GT(checked, 0);
  EXPECT_EQ(changed, 0) << "elements of the first run's valid rows changed by the second";
}

// No store reaches another group's rows. The reference check above cannot see a tile that writes
// into the next group's rows when that group's own tiles store over them later, so: run a case
// (verified), then again with every odd group cut (expect_second_run_keeps_valid_rows).
TEST(GroupedTmaKernelStores, NoStoreReachesAnotherGroupsRows) {
  GEMMBENCH_REQUIRE_GPU();
  using G = std::vector<int64_t>;
  for (const KernelCase& c : {KernelCase{"masked", masked(G{100, 128, 65, 127, 1, 64}, 128), 264,
                                         256, DType::bf16, Accum::f32, 1, 0, 0},
                              KernelCase{"contiguous", contiguous(G{100, 128, 65, 127, 1, 64}, 128),
                                         264, 256, DType::f16, Accum::f32, 1, 0, 1}}) {
    SCOPED_TRACE(c.name);
    run_case(kTmaKernel, c, [&](const GemmProblem& p, const GroupedOperands& d) {
      expect_second_run_keeps_valid_rows(require_kernel(kTmaKernel), c.grouping, p, d, c.max_ctas);
    });
  }
}

// No store of a kernel whose epilogue stores by TMA reaches past a group: masked at max_m 160, run
// again with the odd groups emptied (expect_second_run_keeps_valid_rows), and contiguous at align
// 8, the 217 padding rows between the groups untouched (bf16: the check reads bf16 NaNs), on
// align8_ctas CTAs.
void expect_no_store_past_group(const char* kernel, int align8_ctas) {
  using G = std::vector<int64_t>;
  const KernelCase m{"masked160",
                     masked(G{100, 128, 65, 127, 1, 64}, 160),
                     264,
                     256,
                     DType::bf16,
                     Accum::f32,
                     1,
                     0,
                     0};
  run_case(kernel, m, [&](const GemmProblem& p, const GroupedOperands& d) {
    expect_second_run_keeps_valid_rows(require_kernel(kernel), m.grouping, p, d, 0);
  });
  const KernelCase a{"align8",   contiguous(skewed(64), 8), 264, 256, DType::bf16, Accum::f32, 1, 0,
                     align8_ctas};
  run_case(kernel, a, [&](const GemmProblem& p, const GroupedOperands& d) {
    expect_padding_untouched(p, d, a.grouping);
  });
}

// The global pair (its TMA-store epilogue), the padding walked by one cluster of two CTAs.
TEST(GroupedPairGKernelStores, NoStoreReachesPastItsGroup) {
  GEMMBENCH_REQUIRE_GPU();
  expect_no_store_past_group(kPairGKernel, 2);
}

// What a TMA-store variant (hgemm's _tma, fp8gemm's _tma and _n192_tma) refuses beside its
// kernel's own refusals, each naming the flag that fixes it, and a launch with beta != 0 throws
// rather than ignoring beta. p: the variant's problem of 128 x 128 on contiguous({5, 0, 7}, 128).
// any_grouping (hgemm's _tma): align 8 and max_m 160 taken, not refused.
void expect_tma_store_refusals(const char* kernel, const GemmProblem& p,
                               bool any_grouping = false) {
  const KernelInfo& k = require_kernel(kernel);
  const DeviceCaps caps = current_device_caps();
  const Grouping g = contiguous({5, 0, 7}, 128);
  if (caps.sm != 90) {
    EXPECT_NE(why_unsupported(k, p, caps, &g), "") << "sm_" << caps.sm << " has no wgmma";
    GTEST_SKIP() << kernel << " runs on sm_90 only; the rest needs one";
  }
  EXPECT_EQ(why_unsupported(k, p, caps, &g), "");
  const Grouping align8 = contiguous({5, 0, 7}, 8);
  const Grouping max_m_160 = masked({5, 0, 7}, 160);
  if (any_grouping) {
    EXPECT_EQ(why_unsupported(k, p, caps, &align8), "");
    EXPECT_EQ(why_unsupported(k, p, caps, &max_m_160), "");
  } else {
    EXPECT_NE(why_unsupported(k, p, caps, &align8).find("--group-align 128"), std::string::npos);
    EXPECT_NE(why_unsupported(k, p, caps, &max_m_160).find("--group-max-m 128"), std::string::npos);
  }
  expect_tma_epilogue_refusals(k, p, caps, g);
  GemmArgs args{p};
  const float scale = 1.f;
  if (is_fp8(p.dtype)) args.scale_a = args.scale_b = &scale;
  args.beta = 0.5f;
  EXPECT_THROW(k.launch(args, nullptr), std::invalid_argument) << "beta != 0";
}

TEST(GroupedTmaKernelSupport, RefusalsAndBadLaunchesNameTheirReason) {
  GEMMBENCH_REQUIRE_GPU();
  expect_tma_store_refusals(
      kTmaKernel,
      problem_of({"", contiguous({5, 0, 7}, 128), 128, 128, DType::bf16, Accum::f32, 1, 0, 0}),
      true);
}

// No store of _tma reaches past a group where the groups are not whole tiles.
TEST(GroupedTmaKernelStores, NoStoreReachesPastItsGroupAtAnyAlign) {
  GEMMBENCH_REQUIRE_GPU();
  expect_no_store_past_group(kTmaKernel, 1);
}

// ---- fp8gemm_grouped_sm90: e4m3 x e4m3, block128 scales, bf16 C ----

constexpr const char* kFp8Kernel = "fp8gemm_grouped_sm90";

struct Fp8KernelCase {
  const char* name;
  Grouping grouping;
  int64_t n, k;
  double alpha, beta;
  int max_ctas;  // GemmArgs::test_max_ctas (0: the whole grid)
};

GemmProblem fp8_problem_of(const Fp8KernelCase& c) {
  GemmProblem p = grouped_problem(c.grouping, c.n, c.k, DType::e4m3, Accum::f32, c.alpha, c.beta);
  p.out = DType::bf16;
  p.scale = ScaleMode::block128;
  return p;
}

std::vector<Fp8KernelCase> fp8_cases() {
  using G = std::vector<int64_t>;
  return {
      // Balanced: every group two whole row tiles; N two tiles, K four k-blocks.
      {"balanced_align1", contiguous(G{256, 256, 256, 256}, 1), 256, 512, 1, 0, 0},
      // Skewed, empty and one-row groups, rows beside 64 and 128; N = 2 tiles + 8 (an expert's
      // partial last scale block), K = 2 k-blocks + 16 (a partial last k-block).
      {"skewed_align1", contiguous(G{300, 0, 1, 129, 0, 17, 640}, 1), 264, 272, 1, 0, 0},
      // Last row tiles of exactly 64, 65 and 63 rows: the second consumer skips the first and
      // the third, computes one row of the second.
      {"rows_beside_64", contiguous(G{64, 65, 63, 192, 191}, 1), 128, 256, 1, 0, 0},
      // DeepGEMM's contiguous layout: each group padded to 128 rows.
      {"align128", contiguous(G{130, 0, 1, 257, 128}, 128), 256, 384, 1, 0, 0},
      // Masked, alpha and beta (C read back), N past four tiles, K one k-block and a half.
      {"masked_beta", masked(G{7, 129, 0, 2, 160}, 160), 520, 192, -0.75, 0.5, 0},
      {"masked_one_row", masked(G{0, 1, 128, 64}, 130), 128, 128, 1, 0, 0},
      // N % 8 != 0: the epilogue's 2-byte stores; align 8.
      {"n100_align8", contiguous(G{33, 0, 65, 5}, 8), 100, 128, 1.5, 0, 0},
      // One group of one row; only the last group has rows.
      {"one_row", contiguous(G{1}, 1), 128, 128, 1, 0, 0},
      {"last_only", contiguous(G{0, 0, 0, 77}, 1), 136, 256, 1, 0, 0},
      // 64 skewed groups on 3 CTAs and on 1 (many tiles each, skipped halves among them: the case
      // that hung hgemm's grouped kernel), and on the whole grid.
      {"skewed64_capped3", contiguous(skewed(64), 1), 384, 256, 1, -1, 3},
      {"skewed64_capped1", contiguous(skewed(64), 1), 256, 384, 1, 0, 1},
      {"skewed64_grid", contiguous(skewed(64), 16), 384, 256, 1, 0, 0},
  };
}

// The FP8 kernels' cases (fp8gemm_grouped_sm90, its variant, the fp8gemm dispatcher).
template <class After>
void run_fp8_case(const char* kernel, const Fp8KernelCase& c, After&& after) {
  run_grouped_case(kernel, fp8_problem_of(c), c.grouping, c.max_ctas, 20261130, after);
}

class GroupedFp8Kernel : public ::testing::TestWithParam<Fp8KernelCase> {};

TEST_P(GroupedFp8Kernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_fp8_case(kFp8Kernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedFp8Kernel, ::testing::ValuesIn(fp8_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// Rows outside every group (a padded contiguous layout's, a masked layout's past M_g) are left as
// they were: still the NaN poison verify_grouped wrote before the launch. The tiles cover them
// (a group of 130 rows computes 256), so an epilogue that stored whole tiles would overwrite them.
TEST(GroupedFp8KernelPadding, RowsOutsideTheGroupsAreLeftUntouched) {
  GEMMBENCH_REQUIRE_GPU();
  using G = std::vector<int64_t>;
  for (const Fp8KernelCase& c :
       {Fp8KernelCase{"align128", contiguous(G{130, 0, 1, 257, 64}, 128), 264, 256, 1, 0, 0},
        Fp8KernelCase{"masked", masked(G{7, 129, 0, 65}, 192), 256, 128, 1, 0, 0}}) {
    SCOPED_TRACE(c.name);
    run_fp8_case(kFp8Kernel, c, [&](const GemmProblem& p, const GroupedOperands& d) {
      expect_padding_untouched(p, d, c.grouping);
    });
  }
}

// fp8gemm, the dispatcher, runs a grouped FP8 case through the grouped kernel: its launch with
// its own tile rows' tables, verified like the kernel's, and its choice names the kernel.
TEST(GroupedFp8KernelSupport, Fp8gemmRunsGroupedCases) {
  GEMMBENCH_REQUIRE_GPU();
  const Fp8KernelCase c{"dispatch", contiguous({300, 0, 1, 129}, 1), 264, 272, 1, 0, 0};
  const KernelInfo& f = require_kernel("fp8gemm");
  const DeviceCaps caps = current_device_caps();
  if (caps.sm == 90) {
    const DispatchChoice choice = f.choose_grouped(fp8_problem_of(c), c.grouping, caps);
    ASSERT_NE(choice.kernel, nullptr) << choice.why;
    EXPECT_EQ(choice.kernel->name, kFp8Kernel);
  }
  run_fp8_case("fp8gemm", c, [](const GemmProblem&, const GroupedOperands&) {});
}

// What the kernel refuses on a GPU, each with its one-line reason, and a launch without the grouped
// scales or tables throws instead of reading a null pointer.
TEST(GroupedFp8KernelSupport, RefusalsAndBadLaunchesNameTheirReason) {
  GEMMBENCH_REQUIRE_GPU();
  const KernelInfo& k = require_kernel(kFp8Kernel);
  const DeviceCaps caps = current_device_caps();
  const Grouping g = contiguous({5, 0, 7}, 1);
  GemmProblem p = fp8_problem_of({"", g, 128, 128, 1, 0, 0});
  EXPECT_EQ(why_unsupported(k, p, caps), kGroupedKernelDenseReason);
  if (caps.sm != 90) {
    EXPECT_NE(why_unsupported(k, p, caps, &g), "") << "sm_" << caps.sm << " has no wgmma";
    GTEST_SKIP() << kFp8Kernel << " runs on sm_90 only; the rest needs one";
  }
  EXPECT_EQ(why_unsupported(k, p, caps, &g), "");
  GemmProblem q = p;
  q.k = 120;
  EXPECT_EQ(why_unsupported(k, q, caps, &g),
            "K must be a multiple of 16: TMA needs 16-byte aligned row strides");
  q = p;
  q.scale = ScaleMode::tensor;
  EXPECT_EQ(why_unsupported(k, q, caps, &g),
            "block128 scales only (DeepSeek-V3's FP8 experts); tensor and row are not built");
  GemmArgs args{p};
  EXPECT_THROW(k.launch(args, nullptr), std::invalid_argument) << "no scales";
  const float scale = 1.f;
  args.scale_a = &scale;
  args.scale_b = &scale;
  EXPECT_THROW(k.launch(args, nullptr), std::invalid_argument) << "no grouped tables";
  const GroupedLaunchTables no_tiles(g, 0, nullptr);
  args.grouped = &no_tiles.launch;
  EXPECT_THROW(k.launch(args, nullptr), std::invalid_argument) << "tile_rows 0: no tile table";
}

// ---- fp8gemm_grouped_sm90_tma: the same kernel with a TMA-store epilogue ----
// Its stores write whole 64-row boxes, so it takes only groups padded to 128 rows (contiguous
// align 128, masked max_m a multiple of 128), N % 8 == 0 and beta == 0: every case below is one of
// those, checked at the same FP8 bound as the kernel it varies.

constexpr const char* kFp8TmaKernel = "fp8gemm_grouped_sm90_tma";

std::vector<Fp8KernelCase> fp8_tma_cases() {
  using G = std::vector<int64_t>;
  return {
      {"balanced_align128", contiguous(G{256, 256, 256, 256}, 128), 256, 512, 1, 0, 0},
      // Align 1 with groups of whole row tiles (and an empty one): no padding needed.
      {"whole_tiles_align1", contiguous(G{256, 0, 128, 384}, 1), 256, 512, 1, 0, 0},
      // Skewed, empty and one-row groups; N = 2 tiles + 8 (the second box of the last N tile
      // starts past N, the first is clipped at N), K = 2 k-blocks + 16.
      {"skewed_align128", contiguous(G{300, 0, 1, 129, 0, 17, 640}, 128), 264, 272, 1, 0, 0},
      // Last row tiles of 63, 64, 65, 127, 128 and 129 rows: the second consumer skips (63, 64,
      // 129's second tile) or stores a box of 1, 63 or 64 valid rows; N = 200: the last N tile's
      // second box is clipped to its first 8 columns.
      {"rows_beside_64_128", contiguous(G{63, 64, 65, 127, 128, 129}, 128), 200, 256, 1, 0, 0},
      // Masked at the tightest max_m: each group exactly one row tile of storage; alpha != 1.
      {"masked128_alpha", masked(G{7, 128, 0, 2, 65}, 128), 520, 192, -0.75, 0, 0},
      {"masked256_skewed", masked(G{129, 0, 1, 256, 64, 255}, 256), 136, 384, 1.5, 0, 0},
      {"masked_one_row", masked(G{0, 1, 128, 64}, 128), 128, 128, 1, 0, 0},
      {"one_row", contiguous(G{1}, 128), 128, 128, 1, 0, 0},
      {"last_only", contiguous(G{0, 0, 0, 77}, 128), 136, 256, 1, 0, 0},
      // Many tiles a CTA: each consumer's boxes reused tile after tile behind the deferred wait,
      // with skipped halves between; one k-block a tile (short_k) leaves the stores the least
      // mainloop to drain under.
      {"skewed64_capped3", contiguous(skewed(64), 128), 384, 256, 1, 0, 3},
      {"skewed64_capped1", contiguous(skewed(64), 128), 256, 384, 1, 0, 1},
      {"short_k_capped1", contiguous(G{129, 0, 255, 64, 1, 65}, 128), 200, 128, 1, 0, 1},
      {"skewed64_masked_capped3", masked(skewed(64), 768), 264, 256, 1, 0, 3},
      {"skewed64_grid", contiguous(skewed(64), 128), 384, 256, 1, 0, 0},
  };
}

class GroupedFp8TmaKernel : public ::testing::TestWithParam<Fp8KernelCase> {};

TEST_P(GroupedFp8TmaKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_fp8_case(kFp8TmaKernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedFp8TmaKernel, ::testing::ValuesIn(fp8_tma_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// No store reaches another group's rows. The reference check above cannot see a tile that writes
// into the next group's rows when that group's own tiles store over them later, so: run a case
// (verified), then again with every odd group cut (expect_second_run_keeps_valid_rows). N 264:
// the last column tile partial at 128 and at 192 columns.
void expect_no_fp8_store_reaches_another_group(const char* kernel) {
  using G = std::vector<int64_t>;
  for (const Fp8KernelCase& c :
       {Fp8KernelCase{"masked", masked(G{100, 128, 65, 127, 1, 64}, 128), 264, 256, 1, 0, 0},
        Fp8KernelCase{"contiguous", contiguous(G{100, 128, 65, 127, 1, 64}, 128), 264, 256, 1, 0,
                      1}}) {
    SCOPED_TRACE(c.name);
    run_fp8_case(kernel, c, [&](const GemmProblem& p, const GroupedOperands& d) {
      expect_second_run_keeps_valid_rows(require_kernel(kernel), c.grouping, p, d, c.max_ctas);
    });
  }
}

TEST(GroupedFp8TmaKernelStores, NoStoreReachesAnotherGroupsRows) {
  GEMMBENCH_REQUIRE_GPU();
  expect_no_fp8_store_reaches_another_group(kFp8TmaKernel);
}

// The FP8 variants' problem for expect_tma_store_refusals.
GemmProblem fp8_tma_refusal_problem() {
  return fp8_problem_of({"", contiguous({5, 0, 7}, 128), 128, 128, 1, 0, 0});
}

TEST(GroupedFp8TmaKernelSupport, RefusalsAndBadLaunchesNameTheirReason) {
  GEMMBENCH_REQUIRE_GPU();
  expect_tma_store_refusals(kFp8TmaKernel, fp8_tma_refusal_problem());
}

// ---- fp8gemm_grouped_sm90_n192_tma: the _tma variant on 128 x 192 tiles ----
// _tma's cases (N 128, 136, 200, 256, 264, 384, 520: tiles that end inside a 128-row block of the
// scales, partial last tiles of 8 to 136 columns), then N where a 192-column tile starts mid-block
// (tile 1 at column 192: its columns 64..191 in block 2) and where the second block is the
// expert's partial last one, so that a column given its neighbour block's scale fails the bound.
constexpr const char* kFp8N192TmaKernel = "fp8gemm_grouped_sm90_n192_tma";

std::vector<Fp8KernelCase> fp8_n192_tma_cases() {
  using G = std::vector<int64_t>;
  std::vector<Fp8KernelCase> cases = fp8_tma_cases();
  const std::vector<Fp8KernelCase> wide = {
      // One whole tile: blocks 0 and 1, the second half used.
      {"n192_one_tile", contiguous(G{129, 0, 256, 1}, 128), 192, 384, 1, 0, 0},
      // Tile 1 (columns 192..319) in blocks 1 and 2, block 2 the expert's partial last (64 rows).
      {"n320_capped3", contiguous(G{129, 0, 256, 1, 65}, 128), 320, 512, 1, 0, 3},
      // Three whole tiles; tile 2 starts on block 3 (mid_lo); alpha != 1.
      {"n576_masked_alpha", masked(G{64, 0, 200, 256}, 256), 576, 256, 0.5, 0, 0},
      // Long K (many k-blocks, each its own scales) on one CTA.
      {"n448_long_k_capped1", contiguous(G{300, 1, 128}, 128), 448, 1664, 1, 0, 1},
  };
  cases.insert(cases.end(), wide.begin(), wide.end());
  return cases;
}

class GroupedFp8N192TmaKernel : public ::testing::TestWithParam<Fp8KernelCase> {};

TEST_P(GroupedFp8N192TmaKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  run_fp8_case(kFp8N192TmaKernel, GetParam(), [](const GemmProblem&, const GroupedOperands&) {});
}

INSTANTIATE_TEST_SUITE_P(Groupings, GroupedFp8N192TmaKernel,
                         ::testing::ValuesIn(fp8_n192_tma_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GroupedFp8N192TmaKernelStores, NoStoreReachesAnotherGroupsRows) {
  GEMMBENCH_REQUIRE_GPU();
  expect_no_fp8_store_reaches_another_group(kFp8N192TmaKernel);
}

TEST(GroupedFp8N192TmaKernelSupport, RefusalsAndBadLaunchesNameTheirReason) {
  GEMMBENCH_REQUIRE_GPU();
  expect_tma_store_refusals(kFp8N192TmaKernel, fp8_tma_refusal_problem());
}

// Launches that must agree bit for bit. The inputs are seeded and every kernel sums in a fixed
// order, so launching a kernel again on the same operands must write the same bits; a launch
// that differs is a race (or a fault of the board). This is the check for the one wrong result in
// bench_results/h200/latest/llm_moe.json.gz: hgemm (the register kernel hgemm_grouped_sm90) on
// Mixtral-8x7B's down_proj at 512 tokens, zipf:1.2, align 1, normwise 0.353 once, right in every
// run before and after it (docs/grouped.md). The cases are that grouping at that layer's size, for
// each grouped kernel that takes it (the TMA-store ones on its 128-padded form), and its dispatch.
// C is poisoned (all ones: NaN in bf16) before each launch, so a group's row left unwritten
// differs too. Only the groups' rows are compared: the first GPU run of this test compared the
// whole buffer and failed every launch of the kernels whose storage holds rows no group owns
// (the 128-padded grouping's padding, the FP8 kernel's storage past the last group).
// GEMMBENCH_TEST_REPEATS launches each (default 50; 2 under GEMMBENCH_TEST_SMALL, the sanitizers').
int launch_repeats() {
  if (std::getenv("GEMMBENCH_TEST_SMALL")) return 2;
  const char* r = std::getenv("GEMMBENCH_TEST_REPEATS");
  return r ? std::max(1, std::atoi(r)) : 50;
}

void expect_launches_agree(const char* kernel, const GemmProblem& p, const Grouping& g) {
  run_grouped_case(
      kernel, p, g, 0, 20261201,
      [&](const GemmProblem&, GroupedOperands& d, const std::function<void()>& launch,
          cudaStream_t stream) {
        const size_t bytes = d.c.bytes();
        std::vector<unsigned char> first(bytes), again(bytes);
        CUDA_CHECK(cudaMemcpyAsync(first.data(), d.c.get(), bytes, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        const int repeats = launch_repeats();
        // Only the groups' own rows are the kernel's to write: padding rows (and storage past
        // the last group) keep whatever was there, the poison after the first repeat.
        const size_t row_bytes = size_t(p.n) * dtype_bytes(p.out_type());
        const std::vector<int64_t> offsets = g.row_offsets();
        int differing = 0;
        std::string first_difference;
        for (int r = 0; r < repeats; ++r) {
          CUDA_CHECK(cudaMemsetAsync(d.c.get(), 0xff, bytes, stream));
          launch();
          CUDA_CHECK(
              cudaMemcpyAsync(again.data(), d.c.get(), bytes, cudaMemcpyDeviceToHost, stream));
          CUDA_CHECK(cudaStreamSynchronize(stream));
          bool same = true;
          for (size_t grp = 0; grp < offsets.size() && same; ++grp) {
            const size_t begin = size_t(offsets[grp]) * row_bytes,
                         len = size_t(g.m[grp]) * row_bytes;
            ASSERT_LE(begin + len, bytes);
            if (std::memcmp(first.data() + begin, again.data() + begin, len) == 0) continue;
            same = false;
            if (differing == 0) {
              size_t i = begin;
              while (first[i] == again[i]) ++i;
              const size_t elem = i / dtype_bytes(p.out_type());
              first_difference = "launch " + std::to_string(r + 1) + ", group " +
                                 std::to_string(grp) + ", stored row " +
                                 std::to_string(elem / size_t(p.n)) + ", column " +
                                 std::to_string(elem % size_t(p.n));
            }
          }
          if (!same) ++differing;
        }
        EXPECT_EQ(differing, 0) << kernel << ": " << differing << " of " << repeats
                                << " launches differ from the verified one (first: "
                                << first_difference << ")";
      });
}

// Mixtral-8x7B's 512 tokens routed zipf:1.2 (seed 1) over its 8 experts, top-2; its down_proj's
// K (14336; 2048 under the sanitizers, whose fp64 reference would take minutes at full size).
const std::vector<int64_t> kMixtralZipf512{362, 215, 157, 97, 56, 62, 36, 39};
int64_t repeat_k() {
  return std::getenv("GEMMBENCH_TEST_SMALL") ? 2048 : 14336;
}

TEST(GroupedKernelRepeats, Bf16LaunchesAgreeBitForBit) {
  GEMMBENCH_REQUIRE_GPU();
  const Grouping align1 = contiguous(kMixtralZipf512, 1),
                 align128 = contiguous(kMixtralZipf512, 128);
  // Mixtral's down_proj: N 4096, K 14336.
  expect_launches_agree(
      "hgemm", grouped_problem(align1, 4096, repeat_k(), DType::bf16, Accum::f32, 1, 0), align1);
  expect_launches_agree(
      kKernel, grouped_problem(align1, 4096, repeat_k(), DType::bf16, Accum::f32, 1, 0), align1);
  expect_launches_agree(kTmaKernel,
                        grouped_problem(align128, 4096, repeat_k(), DType::bf16, Accum::f32, 1, 0),
                        align128);
  expect_launches_agree(
      kFitKernel, grouped_problem(align1, 4096, repeat_k(), DType::bf16, Accum::f32, 1, 0), align1);
  expect_launches_agree(kFitTrimKernel,
                        grouped_problem(align1, 4096, repeat_k(), DType::bf16, Accum::f32, 1, 0),
                        align1);
  expect_launches_agree(kPairKernel,
                        grouped_problem(align1, 4096, repeat_k(), DType::bf16, Accum::f32, 1, 0),
                        align1);
}

TEST(GroupedKernelRepeats, Fp8LaunchesAgreeBitForBit) {
  GEMMBENCH_REQUIRE_GPU();
  const Grouping align1 = contiguous(kMixtralZipf512, 1),
                 align128 = contiguous(kMixtralZipf512, 128);
  expect_launches_agree(kFp8Kernel, fp8_problem_of({"", align1, 4096, repeat_k(), 1, 0, 0}),
                        align1);
  expect_launches_agree(kFp8N192TmaKernel,
                        fp8_problem_of({"", align128, 4096, repeat_k(), 1, 0, 0}), align128);
}

// The dispatchers on a grouping whose stored rows are mostly the groups' own, padded to 128:
// hgemm and fp8gemm choose the TMA-store variants (kernels/dispatch/dispatch.cpp; fp8gemm the
// 192-column one on a contiguous grouping, the 128-column one on a masked grouping) and run them,
// verified per group; on one that is mostly padding, and with beta != 0, the register-epilogue
// kernels (hgemm the fitted tile where every group has 32 rows or fewer, as `padded`'s).
TEST(GroupedDispatch, MostlyOwnRowsRunTheTmaStoreVariants) {
  GEMMBENCH_REQUIRE_GPU();
  const DeviceCaps caps = current_device_caps();
  if (caps.sm != 90) GTEST_SKIP() << "the grouped Hopper kernels run on sm_90 only";
  const Grouping own = contiguous({300, 0, 1, 129}, 128);   // 430 of 768 stored rows
  const Grouping padded = contiguous({30, 0, 1, 9}, 128);   // 40 of 384
  const Grouping masked_own = masked({100, 128, 70}, 128);  // 298 of 384
  const KernelCase h{"dispatch_tma", own, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const Fp8KernelCase f{"dispatch_tma", own, 264, 272, 1, 0, 0};
  const Fp8KernelCase fm{"dispatch_tma_masked", masked_own, 264, 272, 1, 0, 0};
  struct Want {
    const KernelInfo& dispatcher;
    GemmProblem p;
    const Grouping& g;
    const char* kernel;
  };
  GemmProblem h_beta = problem_of(h), f_beta = fp8_problem_of(f);
  h_beta.beta = f_beta.beta = 0.5;
  const KernelInfo& hgemm = require_kernel("hgemm");
  const KernelInfo& fp8gemm = require_kernel("fp8gemm");
  for (const Want& w :
       {Want{hgemm, problem_of(h), own, kTmaKernel},
        Want{hgemm, problem_of(h), padded, kFitTrimKernel},  // groups of 32 rows or fewer
        Want{hgemm, h_beta, own, kKernel}, Want{fp8gemm, fp8_problem_of(f), own, kFp8N192TmaKernel},
        Want{fp8gemm, fp8_problem_of(fm), masked_own, kFp8TmaKernel},
        Want{fp8gemm, fp8_problem_of(f), padded, kFp8Kernel},
        Want{fp8gemm, f_beta, own, kFp8Kernel}}) {
    const DispatchChoice c = w.dispatcher.choose_grouped(w.p, w.g, caps);
    ASSERT_NE(c.kernel, nullptr) << c.why;
    EXPECT_EQ(c.kernel->name, w.kernel) << w.dispatcher.name << ", " << w.g.total_m() << " of "
                                        << w.g.stored_rows() << " rows, beta " << w.p.beta;
  }
  run_case("hgemm", h, [](const GemmProblem&, const GroupedOperands&) {});
  run_fp8_case("fp8gemm", f, [](const GemmProblem&, const GroupedOperands&) {});
  run_fp8_case("fp8gemm", fm, [](const GemmProblem&, const GroupedOperands&) {});
}

// A launch of TMA-store variant `kernel` on grouping g, which it refuses (a row tile reaching the
// next group's rows), throws at launch and writes nothing: a caller's stale choice is an error,
// not whole-tile stores over another group's rows.
void expect_tma_launch_refused(const char* kernel, const GemmProblem& p, const Grouping& g) {
  const KernelInfo& k = require_kernel(kernel);
  EXPECT_NE(why_unsupported(k, p, current_device_caps(), &g), "") << kernel;
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  ErrorMeter meter;
  GroupedOperands d = make_grouped_operands(p, g, 7, DataDist::uniform, meter, stream);
  const GroupedLaunchTables tables(g, k.group_tile_rows, stream);
  const GemmArgs args = grouped_kernel_args(p, d, tables);
  EXPECT_THROW(k.launch(args, stream), std::invalid_argument) << kernel;
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// The dispatchers keep their grouped choice per grouping, each M_g included. Two routings of one
// layer at align 1 have the same G and stored rows: whole 128-row groups (the TMA-store variants
// run them) and a group of 300 rows (fp8gemm's register-epilogue kernel: a 128-row tile of it
// reaches the next group's rows; hgemm's _tma, which stores a group's last rows from the fragment
// since 2026-11-30). Run one after the other in one process, the second must get its own choice,
// verified per group; fp8gemm's variants also refuse a launch on it themselves. A choice keyed
// on the counts alone gave the second the first's kernel, whose stores wrote over the next
// group's rows (docs/grouped.md, "The cached choice").
TEST(GroupedDispatch, TheChoiceFollowsEachGroupsRows) {
  GEMMBENCH_REQUIRE_GPU();
  const DeviceCaps caps = current_device_caps();
  if (caps.sm != 90) GTEST_SKIP() << "the grouped Hopper kernels run on sm_90 only";
  const Grouping whole = contiguous({128, 128, 256, 128}, 1);  // 640 rows, whole tiles
  const Grouping skew = contiguous({300, 20, 192, 128}, 1);    // 640 rows, 300 not whole
  ASSERT_EQ(whole.stored_rows(), skew.stored_rows());
  const KernelCase hw{"whole", whole, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelCase hs{"skew", skew, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const Fp8KernelCase fw{"whole", whole, 264, 272, 1, 0, 0};
  const Fp8KernelCase fs{"skew", skew, 264, 272, 1, 0, 0};
  const KernelInfo& hgemm = require_kernel("hgemm");
  const KernelInfo& fp8gemm = require_kernel("fp8gemm");
  const auto chosen = [&](const KernelInfo& k, const GemmProblem& p, const Grouping& g) {
    const DispatchChoice c = k.choose_grouped(p, g, caps);
    return c.kernel ? c.kernel->name : "none: " + c.why;
  };
  EXPECT_EQ(chosen(hgemm, problem_of(hw), whole), kTmaKernel);
  // hgemm's _tma takes both since 2026-11-30 (a group's last rows from the fragment): on the skew
  // after the pairs (rows filling half their tiles), verified per group below.
  EXPECT_EQ(chosen(hgemm, problem_of(hs), skew), kTmaKernel);
  EXPECT_EQ(chosen(fp8gemm, fp8_problem_of(fw), whole), kFp8N192TmaKernel);
  EXPECT_EQ(chosen(fp8gemm, fp8_problem_of(fs), skew), kFp8Kernel);
  const auto nothing = [](const GemmProblem&, const GroupedOperands&) {};
  run_case("hgemm", hw, nothing);
  run_case("hgemm", hs, nothing);
  run_fp8_case("fp8gemm", fw, nothing);
  run_fp8_case("fp8gemm", fs, nothing);
  expect_tma_launch_refused(kFp8TmaKernel, fp8_problem_of(fs), skew);
  expect_tma_launch_refused(kFp8N192TmaKernel, fp8_problem_of(fs), skew);
}

// What hgemm chooses for a grouped case: "kernel rule", or "none: why".
std::string hgemm_choice(const KernelCase& kc, const DeviceCaps& caps) {
  const DispatchChoice c =
      require_kernel("hgemm").choose_grouped(problem_of(kc), kc.grouping, caps);
  return c.kernel ? c.kernel->name + " " + c.rule : "none: " + c.why;
}

// hgemm's fitted-tile rule: a grouping whose groups have 32 rows or fewer runs _fit_trim,
// contiguous or masked, verified per group; one group of 33 rows keeps the register kernel.
TEST(GroupedDispatch, GroupsOf32RowsOrFewerRunTheFittedTile) {
  GEMMBENCH_REQUIRE_GPU();
  const DeviceCaps caps = current_device_caps();
  if (caps.sm != 90) GTEST_SKIP() << "the grouped Hopper kernels run on sm_90 only";
  const Grouping small = contiguous({32, 7, 0, 19, 1}, 1);
  const Grouping one_more = contiguous({33, 7, 0, 19, 1}, 1);
  Grouping masked = small;
  masked.layout = GroupLayout::masked;
  masked.max_m = 32;
  const KernelCase hs{"small", small, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelCase ho{"one_more", one_more, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelCase hm{"masked", masked, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelInfo& hgemm = require_kernel("hgemm");
  const auto chosen = [&](const KernelCase& kc) { return hgemm_choice(kc, caps); };
  EXPECT_EQ(chosen(hs), std::string(kFitTrimKernel) + " grouped-fitted-tile-sm90");
  EXPECT_EQ(chosen(ho), std::string(kKernel) + " grouped-persistent-sm90");
  EXPECT_EQ(chosen(hm), std::string(kFitTrimKernel) + " grouped-fitted-tile-sm90");
  const auto nothing = [](const GemmProblem&, const GroupedOperands&) {};
  run_case("hgemm", hs, nothing);
  run_case("hgemm", ho, nothing);
  run_case("hgemm", hm, nothing);
}

// hgemm's pair rule: a contiguous grouping whose groups fill the pairs' tiles (at most 1/16 of them
// idle) and that the TMA-store variant refuses (align 1, groups not of whole tiles) runs the pair,
// through hgemm's launch on tables of 256-row tiles, verified per group; more idle tiles run the
// TMA-store variant after it (rows filling half their tiles), a masked grouping the kernels before
// the rule.
TEST(GroupedDispatch, GroupsThatFillThePairsRunThePair) {
  GEMMBENCH_REQUIRE_GPU();
  const DeviceCaps caps = current_device_caps();
  if (caps.sm != 90) GTEST_SKIP() << "the grouped Hopper kernels run on sm_90 only";
  const Grouping filled = contiguous({512, 0, 1030, 256}, 1);  // 15 tiles in 8 pairs: 1 of 16 idle
  const Grouping small = contiguous({1100, 1100, 20}, 1);      // 19 tiles in 11 pairs: 3 of 22 idle
  const Grouping filled_masked = masked({300, 0, 512, 260}, 512);
  const KernelCase hf{"filled", filled, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelCase hs{"small", small, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelCase hm{"masked", filled_masked, 264, 136, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelCase ff{"filled_f16", filled, 136, 264, DType::f16, Accum::f16, 1, 0, 0};
  const KernelInfo& hgemm = require_kernel("hgemm");
  const auto chosen = [&](const KernelCase& kc) { return hgemm_choice(kc, caps); };
  EXPECT_EQ(chosen(hf), std::string(kPairKernel) + " grouped-cluster-pair-sm90");
  EXPECT_EQ(chosen(ff), std::string(kPairKernel) + " grouped-cluster-pair-sm90");
  EXPECT_EQ(chosen(hs), std::string(kTmaKernel) + " grouped-tma-store-edge-sm90");
  EXPECT_NE(chosen(hm), std::string(kPairKernel) + " grouped-cluster-pair-sm90");
  EXPECT_EQ(grouped_launch_tile_rows(hgemm, problem_of(hf), filled, caps), 256);
  EXPECT_EQ(grouped_launch_tile_rows(hgemm, problem_of(hs), small, caps), 128);
  const auto nothing = [](const GemmProblem&, const GroupedOperands&) {};
  run_case("hgemm", hf, nothing);
  run_case("hgemm", ff, nothing);
  run_case("hgemm", hs, nothing);
  run_case("hgemm", hm, nothing);
}

// hgemm's global pair rule: a contiguous grouping of large experts (N * K >= 8 Mi) where 1/4 of
// the global pair's units lie in one group, and that the TMA-store variant refuses, runs
// hgemm_grouped_sm90_pairg through hgemm's launch (the register kernel's 128-row tables),
// verified per group; where every unit straddles two groups the TMA-store variant runs after it.
TEST(GroupedDispatch, UnitsThatShareLargeWeightsRunTheGlobalPair) {
  GEMMBENCH_REQUIRE_GPU();
  const DeviceCaps caps = current_device_caps();
  if (caps.sm != 90) GTEST_SKIP() << "the grouped Hopper kernels run on sm_90 only";
  const Grouping shared = contiguous({250, 250, 100}, 1);    // 5 tiles, 3 units, 2 shared
  const Grouping straddle = contiguous({100, 250, 250}, 1);  // 5 tiles, 3 units, none shared
  const KernelCase hs{"shared", shared, 1024, 8192, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelCase ht{"straddle", straddle, 1024, 8192, DType::bf16, Accum::f32, 1, 0, 0};
  const KernelInfo& hgemm = require_kernel("hgemm");
  const auto chosen = [&](const KernelCase& kc) { return hgemm_choice(kc, caps); };
  EXPECT_EQ(chosen(hs), std::string(kPairGKernel) + " grouped-global-pair-sm90");
  EXPECT_EQ(chosen(ht), std::string(kTmaKernel) + " grouped-tma-store-edge-sm90");
  EXPECT_EQ(grouped_launch_tile_rows(hgemm, problem_of(hs), shared, caps), 128);
  const auto nothing = [](const GemmProblem&, const GroupedOperands&) {};
  run_case("hgemm", hs, nothing);
  run_case("hgemm", ht, nothing);
}

}  // namespace
}  // namespace gemmbench
