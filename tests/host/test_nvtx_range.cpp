// NVTX range names (src/runner/nvtx_range.hpp): the form docs/multi-gpu.md's ncu and nsys
// commands select by, and no character that ncu's --nvtx-include reads as a quantifier, for every
// registered kernel and every preset layer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <type_traits>

#include "core/registry.hpp"
#include "plan/presets.hpp"
#include "runner/nvtx_range.hpp"

using namespace gemmbench;

namespace {

GemmProblem problem(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.layout = Layout::tn;
  p.dtype = DType::f16;
  p.accum = Accum::f32;
  return p;
}

// ncu's NVTX filter quantifiers: @ , [ ] / * + (and the backslash that escapes them).
bool has_quantifier(const std::string& s) {
  return s.find_first_of("@,[]/*+\\") != std::string::npos;
}

}  // namespace

TEST(NvtxRange, CaseNames) {
  EXPECT_EQ(nvtx_case_name("hgemm_tn_sm90", problem(5120, 4096, 4096)),
            "hgemm_tn_sm90 5120x4096x4096 tn f16:f32");
  GemmProblem p = problem(64, 128, 256);
  p.beta = 0.5;
  EXPECT_EQ(nvtx_case_name("cublas", p), "cublas 64x128x256 tn f16:f32 a=1 b=0.5");
  EXPECT_EQ(nvtx_case_name("hgemm", problem(16, 6144, 4096), PresetLabel{"llama3-8b", "qkv_proj"}),
            "hgemm 16x6144x4096 tn f16:f32 llama3-8b qkv_proj");
}

TEST(NvtxRange, NamesNeedNoEscapingInAnNcuFilter) {
  for (const KernelInfo* k : KernelRegistry::instance().all())
    for (Layout l : k->layouts) {
      GemmProblem p = problem(4096, 4096, 4096);
      p.layout = l;
      p.dtype = k->dtypes.front();
      p.accum = k->accums.front();
      EXPECT_FALSE(has_quantifier(nvtx_case_name(k->name, p))) << nvtx_case_name(k->name, p);
    }
  for (const ModelPreset& m : model_presets())
    for (const PresetLayer& l : m.layers) {
      const std::string name =
          nvtx_case_name("cublaslt", problem(128, l.n, l.k), PresetLabel{m.name, l.layer});
      EXPECT_FALSE(has_quantifier(name)) << name;
    }
}

TEST(NvtxRange, PushAndPopWithoutATool) {
  // No profiler attached: NVTX finds no injection library, so every push and pop is a no-op that
  // answers NVTX_NO_PUSH_POP_TRACKING (not a depth), and the ranges must neither fail nor throw.
  // Under nsys or ncu (which set NVTX_INJECTION64_PATH) the calls do reach a tool.
  if (std::getenv("NVTX_INJECTION64_PATH") || std::getenv("NVTX_INJECTION32_PATH"))
    GTEST_SKIP() << "an NVTX tool is attached (NVTX_INJECTION64_PATH is set)";
  static_assert(!std::is_copy_constructible_v<NvtxRange> && !std::is_copy_assignable_v<NvtxRange>,
                "a copied range would pop twice");
  EXPECT_NO_THROW({
    for (int i = 0; i < 1000; ++i) {
      NvtxRange outer("gemmbench host test");
      NvtxRange inner(nvtx_case_name("cublas", problem(64, 64, 64)));
    }
  });
  EXPECT_EQ(nvtxRangePushA("gemmbench host test"), NVTX_NO_PUSH_POP_TRACKING);
  EXPECT_EQ(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
}
