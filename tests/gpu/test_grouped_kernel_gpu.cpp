// The grouped Hopper kernel hgemm_grouped_sm90 (kernels/hgemm/sm90/grouped.cu, issue 51) against
// the per-group fp64 reference (verify_grouped: C poisoned with NaN, padding rows never compared,
// an unwritten valid row fails): both layouts, contiguous with align 1, 8 and 128, skewed groups
// with empty ones, one-row groups and rows that are not a multiple of the 128-row tile, N and K at
// and beside the tile edges, f16 and bf16, alpha and beta != 0, and a capped grid that walks many
// tiles per CTA. Then what the kernel refuses, with its reasons.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
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
const KernelInfo& require_kernel() {
  const KernelInfo* k = KernelRegistry::instance().find(kKernel);
  if (!k) throw std::runtime_error(std::string(kKernel) + " is not registered");
  return *k;
}

class GroupedKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(GroupedKernel, MatchesThePerGroupReference) {
  GEMMBENCH_REQUIRE_GPU();
  const KernelInfo& k = require_kernel();
  const KernelCase& c = GetParam();
  const GemmProblem p = problem_of(c);
  const Grouping& g = c.grouping;
  const DeviceCaps caps = current_device_caps();
  if (const std::string why = why_unsupported(k, p, caps, &g); !why.empty()) {
    if (caps.sm != 90) GTEST_SKIP() << kKernel << ": " << why;
    FAIL() << "refused on sm_90: " << why;
  }
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  ErrorMeter meter;
  GroupedOperands d = make_grouped_operands(p, g, 20261129, DataDist::uniform, meter, stream);
  const GroupedLaunchTables tables(g, k.group_tile_rows, stream);
  GemmArgs args{p, d.a.get(), d.b.get(), d.c.get(), float(p.alpha), float(p.beta)};
  args.grouped = &tables.launch;
  args.test_max_ctas = c.max_ctas;
  const ErrorStats e = verify_grouped(p, g, d, meter, stream, [&] {
    k.launch(args, stream);
    CUDA_CHECK_LAST_LAUNCH();
  });
  EXPECT_EQ(e.nonfinite, 0) << "valid rows left unwritten (NaN poison) or overflowed";
  EXPECT_TRUE(verification_passed(e)) << "normwise " << e.normwise << " > tolerance " << e.tolerance
                                      << " (max abs " << e.max_abs << ")";
  CUDA_CHECK(cudaStreamDestroy(stream));
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

}  // namespace
}  // namespace gemmbench
