#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/types.hpp"
#include "core/registry.hpp"

using namespace gemmbench;

namespace {

// What a Hopper kernel's host checks see on an H100 or H200: sm_90 and its 227 KB of shared memory
// a block; past them each kernel asks about its own image, which a host without a GPU cannot.
DeviceCaps h100_caps() {
  DeviceCaps caps;
  caps.sm = 90;
  caps.smem_per_block_optin = 227 * 1024;
  return caps;
}

// Four groups padded to 128 rows, an empty one and a one-row one among them.
Grouping padded_groups() {
  Grouping g;
  g.m = {100, 0, 1, 156};
  g.align = 128;
  return g;
}

}  // namespace

TEST(Registry, FoundationKernelsAreRegistered) {
  const auto& reg = KernelRegistry::instance();
  for (const char* name : {"sgemm_naive", "sgemm_coalesced"})
    ASSERT_NE(reg.find(name), nullptr) << name;
  EXPECT_EQ(reg.find("no_such_kernel"), nullptr);
}

TEST(Registry, EveryEntryIsWellFormed) {
  const auto all = KernelRegistry::instance().all();
  ASSERT_FALSE(all.empty());
  std::set<std::string> names;
  for (const KernelInfo* k : all) {
    SCOPED_TRACE(k->name);
    EXPECT_TRUE(names.insert(k->name).second) << "duplicate name";
    EXPECT_TRUE(k->family == "sgemm" || k->family == "hgemm" || k->family == "fp8gemm")
        << k->family;
    if (k->choose)  // the shape-aware dispatchers are named after their family
      EXPECT_EQ(k->name, k->family);
    else
      EXPECT_EQ(k->name.rfind(k->family + "_", 0), 0u) << "names start with their family";
    EXPECT_GE(k->rung, 1);
    EXPECT_GE(k->min_sm, 50);
    EXPECT_FALSE(k->summary.empty());
    EXPECT_TRUE(static_cast<bool>(k->launch));
    // The native (first) accumulate type is valid for the native dtype, and every declared
    // accumulate type is valid for at least one declared dtype.
    EXPECT_TRUE(accum_valid_for(k->dtypes[0], k->accums[0]));
    for (Accum a : k->accums)
      EXPECT_TRUE(std::any_of(k->dtypes.begin(), k->dtypes.end(),
                              [&](DType d) { return accum_valid_for(d, a); }));
    if (k->family == "sgemm") EXPECT_EQ(k->dtypes, std::vector<DType>{DType::f32});
    if (k->family == "hgemm")
      EXPECT_NE(std::find(k->dtypes.begin(), k->dtypes.end(), DType::f16), k->dtypes.end());
    if (k->family == "fp8gemm") {  // FP8 only, and TN only: the plan's rule for FP8
      EXPECT_TRUE(std::all_of(k->dtypes.begin(), k->dtypes.end(), is_fp8));
      EXPECT_EQ(k->layouts, std::vector<Layout>{Layout::tn});
    }
    // No other family declares an FP8 type: the plan pairs e4m3 with TN and scales.
    if (k->family != "fp8gemm")
      EXPECT_TRUE(std::none_of(k->dtypes.begin(), k->dtypes.end(), is_fp8));
  }
}

TEST(Registry, SortedByFamilyThenRung) {
  const auto all = KernelRegistry::instance().all();
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i - 1]->family == all[i]->family) EXPECT_LE(all[i - 1]->rung, all[i]->rung);
}

TEST(Registry, EachFamilyLadderStartsAtRungOne) {
  std::map<std::string, int> lowest;
  for (const KernelInfo* k : KernelRegistry::instance().all())
    lowest[k->family] = lowest.count(k->family) ? std::min(lowest[k->family], k->rung) : k->rung;
  for (const auto& [family, rung] : lowest) EXPECT_EQ(rung, 1) << family;
}

TEST(Registry, WhyUnsupportedChecksDeclaredFieldsAndSm) {
  const KernelInfo* k = KernelRegistry::instance().find("sgemm_naive");
  ASSERT_NE(k, nullptr);
  DeviceCaps h100;
  h100.sm = 90;
  GemmProblem p{37, 53, 71, Layout::nn, DType::f32, Accum::f32, 1.0, 0.0};
  EXPECT_EQ(why_unsupported(*k, p, h100), "");
  p.dtype = DType::f16;
  EXPECT_NE(why_unsupported(*k, p, h100).find("dtype f16"), std::string::npos);
  p.dtype = DType::f32;
  DeviceCaps old;
  old.sm = 35;
  EXPECT_NE(why_unsupported(*k, p, old).find("needs sm_50"), std::string::npos);
}

// Dense kernels are turned away from grouped cases and grouped kernels from dense ones, in
// why_unsupported alone; a grouped kernel's supports_grouped sees the grouping, its supports never.
TEST(Registry, WhyUnsupportedKeepsDenseAndGroupedApart) {
  DeviceCaps h100;
  h100.sm = 90;
  const auto noop = [](const GemmArgs&, cudaStream_t) {};
  KernelInfo dense{"hgemm_dense", "hgemm",      1,  "x", {DType::f16},
                   {Accum::f32},  {Layout::tn}, 80, {},  noop};
  KernelInfo grouped = dense;
  grouped.name = "hgemm_grouped";
  grouped.group_layouts = {GroupLayout::contiguous};
  grouped.supports = [](const GemmProblem&, const DeviceCaps&) {
    return std::string("the dense supports() must not answer for a grouped case");
  };
  grouped.supports_grouped = [](const GemmProblem&, const Grouping& g, const DeviceCaps&) {
    return g.groups() > 3 ? std::string("at most 3 groups") : std::string();
  };
  Grouping g;
  g.m = {5, 0, 7};
  const GemmProblem p{12, 64, 64, Layout::tn, DType::f16, Accum::f32, 1.0, 0.0};

  EXPECT_EQ(why_unsupported(dense, p, h100), "");
  EXPECT_EQ(why_unsupported(dense, p, h100, &g), kDenseKernelGroupedReason);
  EXPECT_EQ(why_unsupported(grouped, p, h100), kGroupedKernelDenseReason);
  EXPECT_EQ(why_unsupported(grouped, p, h100, &g), "");
  g.m = {1, 2, 3, 4};
  EXPECT_EQ(why_unsupported(grouped, p, h100, &g), "at most 3 groups");
  g.m = {5, 0, 7};
  g.layout = GroupLayout::masked;
  g.max_m = 7;
  EXPECT_EQ(why_unsupported(grouped, p, h100, &g),
            "group layout masked not implemented by this kernel");
  // The declared fields still apply to a grouped case.
  g.layout = GroupLayout::contiguous;
  GemmProblem bf = p;
  bf.dtype = DType::bf16;
  EXPECT_NE(why_unsupported(grouped, bf, h100, &g).find("dtype bf16"), std::string::npos);
  DeviceCaps ampere;
  ampere.sm = 75;
  EXPECT_NE(why_unsupported(grouped, p, ampere, &g).find("needs sm_80"), std::string::npos);
  // group_tile_rows belongs to grouped kernels.
  KernelRegistry reg;
  KernelInfo odd = dense;
  odd.group_tile_rows = 128;
  EXPECT_NE(reg.problem(odd), "");
  grouped.group_tile_rows = 128;
  EXPECT_EQ(reg.problem(grouped), "");
}

// A dispatcher that takes both kinds (KernelInfo::dense_too): a dense case reaches its supports,
// a grouped one its supports_grouped; the registry refuses dense_too and choose_grouped without a
// group layout.
TEST(Registry, ADispatcherTakesDenseAndGroupedCases) {
  DeviceCaps h100;
  h100.sm = 90;
  const auto noop = [](const GemmArgs&, cudaStream_t) {};
  KernelInfo both{"hgemm_both", "hgemm",      1,  "x", {DType::f16},
                  {Accum::f32}, {Layout::tn}, 80, {},  noop};
  both.supports = [](const GemmProblem&, const DeviceCaps&) { return std::string("dense says"); };
  both.supports_grouped = [](const GemmProblem&, const Grouping&, const DeviceCaps&) {
    return std::string("grouped says");
  };
  both.group_layouts = {GroupLayout::contiguous};
  const GemmProblem p{12, 64, 64, Layout::tn, DType::f16, Accum::f32, 1.0, 0.0};
  Grouping g;
  g.m = {5, 7};
  EXPECT_EQ(why_unsupported(both, p, h100), kGroupedKernelDenseReason) << "not yet dense_too";
  both.dense_too = true;
  EXPECT_EQ(why_unsupported(both, p, h100), "dense says");
  EXPECT_EQ(why_unsupported(both, p, h100, &g), "grouped says");
  KernelRegistry reg;
  EXPECT_EQ(reg.problem(both), "");
  KernelInfo dense_only = both;
  dense_only.group_layouts.clear();
  EXPECT_NE(reg.problem(dense_only), "") << "dense_too without a group layout";
  dense_only.dense_too = false;
  dense_only.choose_grouped = [](const GemmProblem&, const Grouping&, const DeviceCaps&) {
    return DispatchChoice{};
  };
  EXPECT_NE(reg.problem(dense_only), "") << "choose_grouped without a group layout";
}

// hgemm (the dispatcher) takes grouped cases through the grouped Hopper kernel, in its tile rows:
// without a GPU its grouped choice names that candidate and the driver's answer.
TEST(Registry, HgemmTakesGroupedCasesThroughTheGroupedKernel) {
  const KernelInfo* h = KernelRegistry::instance().find("hgemm");
  const KernelInfo* k = KernelRegistry::instance().find("hgemm_grouped_sm90");
  ASSERT_NE(h, nullptr);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(h->dense_too);
  EXPECT_EQ(h->group_layouts, k->group_layouts);
  EXPECT_EQ(h->group_tile_rows, k->group_tile_rows) << "the runner builds hgemm's tables";
  ASSERT_TRUE(static_cast<bool>(h->choose_grouped));
  DeviceCaps h100 = h100_caps();
  const GemmProblem p{256, 256, 256, Layout::tn, DType::bf16, Accum::f32, 1.0, 0.0};
  Grouping g;
  g.m = {100, 0, 156};
  const DispatchChoice c = h->choose_grouped(p, g, h100);
  const std::string why = why_unsupported(*k, p, h100, &g);
  if (why.empty()) {  // a GPU host with the sm_90a image
    ASSERT_NE(c.kernel, nullptr);
    EXPECT_EQ(c.kernel->name, "hgemm_grouped_sm90");
    EXPECT_EQ(c.rule, "grouped-persistent-sm90");
  } else {
    EXPECT_EQ(c.kernel, nullptr);
    EXPECT_NE(c.why.find("hgemm_grouped_sm90: " + why), std::string::npos) << c.why;
    EXPECT_EQ(why_unsupported(*h, p, h100, &g), c.why);
  }
  GemmProblem odd_k = p;
  odd_k.k = 100;
  EXPECT_NE(why_unsupported(*h, odd_k, h100, &g).find("hgemm_grouped_sm90:"), std::string::npos);
  EXPECT_NE(why_unsupported(*h, p, h100), kGroupedKernelDenseReason) << "hgemm is dense too";
}

// The registered grouped kernel: it declares both layouts and its tile rows, and turns away dense
// problems (no GPU needed for either answer).
TEST(Registry, TheGroupedHopperKernelDeclaresItsLayouts) {
  const KernelInfo* k = KernelRegistry::instance().find("hgemm_grouped_sm90");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->group_layouts,
            (std::vector<GroupLayout>{GroupLayout::contiguous, GroupLayout::masked}));
  EXPECT_EQ(k->group_tile_rows, 128);
  EXPECT_TRUE(static_cast<bool>(k->supports_grouped));
  DeviceCaps h100 = h100_caps();
  const GemmProblem p{256, 256, 256, Layout::tn, DType::bf16, Accum::f32, 1.0, 0.0};
  EXPECT_EQ(why_unsupported(*k, p, h100), kGroupedKernelDenseReason);
  Grouping g;
  g.m = {100, 156};
  GemmProblem odd_k = p;
  odd_k.k = 100;
  EXPECT_EQ(why_unsupported(*k, odd_k, h100, &g),
            "K must be a multiple of 8: TMA needs 16-byte aligned row strides");
  DeviceCaps a100;
  a100.sm = 80;
  EXPECT_NE(why_unsupported(*k, p, a100, &g).find("needs sm_90"), std::string::npos);
}

// What a grouped kernel's TMA-store variant refuses on the host beyond the kernel, each reason
// naming the flag that fixes it: groups not padded to 128 rows (they would let a group's last
// tile write the next group's rows), beta != 0, N % 8 != 0. The layouts it takes (align 128 and
// 256, max_m 256) go on to the driver's answer, the same as the kernel's same case. problem(g, n):
// the kernel's problem of grouping g with N = n. any_grouping: a variant that stores a group's
// last rows from the fragment (hgemm's _tma since 2026-11-30) refuses no grouping: every one goes
// on to the kernel's answer.
template <class Problem>
void expect_tma_variant_refusals(const KernelInfo& base, const KernelInfo& k, Problem&& problem,
                                 bool any_grouping = false) {
  EXPECT_EQ(k.family, base.family);
  EXPECT_EQ(k.rung, base.rung);
  EXPECT_EQ(k.dtypes, base.dtypes);
  EXPECT_EQ(k.accums, base.accums);
  EXPECT_EQ(k.group_layouts, base.group_layouts);
  EXPECT_EQ(k.group_tile_rows, base.group_tile_rows);
  EXPECT_FALSE(k.dense_too);
  DeviceCaps h100 = h100_caps();
  Grouping g = padded_groups();
  const GemmProblem p = problem(g, 256);
  EXPECT_EQ(why_unsupported(k, p, h100), kGroupedKernelDenseReason);
  Grouping align1 = g;
  align1.align = 1;
  if (any_grouping) {
    Grouping align64 = g, masked160 = g, whole192 = g;
    align64.align = 64;
    masked160.layout = GroupLayout::masked;
    masked160.max_m = 160;
    whole192.m = {128, 192};
    whole192.align = 64;
    for (const Grouping* any : {&align1, &align64, &masked160, &whole192}) {
      const GemmProblem q = problem(*any, 256);
      EXPECT_EQ(why_unsupported(k, q, h100, any), why_unsupported(base, q, h100, any))
          << any->stored_rows() << " stored rows";
    }
  } else {
    EXPECT_EQ(why_unsupported(k, p, h100, &align1),
              "TMA stores of whole 128-row tiles need each group padded to 128 rows (--group-align "
              "128): align 1 would let the last tile of a group of 100 rows write the next group's "
              "rows");
    Grouping align64 = g;
    align64.align = 64;
    EXPECT_NE(why_unsupported(k, p, h100, &align64).find("--group-align 128"), std::string::npos);
    // Groups of whole tiles need no padding: align 1 and 64 with groups of 0, 128 and 384 rows go
    // on to the driver's answer, as align 128 does; one group of 192 rows at align 64 does not.
    Grouping whole = g;
    whole.m = {128, 0, 384};
    for (int64_t align : {1, 64}) {
      whole.align = align;
      const GemmProblem q = problem(whole, 256);
      EXPECT_EQ(why_unsupported(k, q, h100, &whole), why_unsupported(base, q, h100, &whole))
          << "align " << align;
    }
    whole.m = {128, 192};
    EXPECT_NE(why_unsupported(k, problem(whole, 256), h100, &whole).find("a group of 192 rows"),
              std::string::npos);
    Grouping masked160 = g;
    masked160.layout = GroupLayout::masked;
    masked160.max_m = 160;
    EXPECT_EQ(why_unsupported(k, p, h100, &masked160),
              "TMA stores of whole 128-row tiles need max_m a multiple of 128 (--group-max-m 128): "
              "max_m 160 would let a group's last tile write the next group's rows");
  }
  Grouping masked = g;
  masked.layout = GroupLayout::masked;
  GemmProblem beta = p;
  beta.beta = 0.5;
  EXPECT_EQ(
      why_unsupported(k, beta, h100, &g),
      "beta != 0 is not built: the TMA-store epilogue never reads C (" + base.name + " takes it)");
  EXPECT_EQ(why_unsupported(base, beta, h100, &g), why_unsupported(base, p, h100, &g))
      << "the kernel itself takes beta";
  EXPECT_EQ(why_unsupported(k, problem(g, 100), h100, &g),
            "N must be a multiple of 8: TMA stores of C need 16-byte aligned row strides");
  Grouping align256 = g;
  align256.align = 256;
  masked.max_m = 256;
  const std::string why = why_unsupported(base, p, h100, &g);
  for (const Grouping* taken : {&g, &align256, &masked})
    EXPECT_EQ(why_unsupported(k, p, h100, taken), why);
  // An N past the last tile, also the kernel's answer.
  EXPECT_EQ(why_unsupported(k, problem(g, 264), h100, &g),
            why_unsupported(base, problem(g, 264), h100, &g));
}

// hgemm_grouped_sm90's TMA-store variant sits beside it on the same rung with the same types,
// layouts and tiles, and takes any grouping (a group's last rows stored from the fragment); the
// kernel's own refusals come first, word for word (K, bf16 with f16 accumulation), and f16 with
// f16 accumulation goes on to the driver's answer.
TEST(Registry, TheGroupedHopperTmaVariantRefusesWhatTmaStoresCannotDo) {
  const KernelInfo* base = KernelRegistry::instance().find("hgemm_grouped_sm90");
  const KernelInfo* k = KernelRegistry::instance().find("hgemm_grouped_sm90_tma");
  ASSERT_NE(base, nullptr);
  ASSERT_NE(k, nullptr);
  const auto problem = [](const Grouping& g, int64_t n) {
    return GemmProblem{g.total_m(), n, 512, Layout::tn, DType::bf16, Accum::f32, 1.0, 0.0};
  };
  expect_tma_variant_refusals(*base, *k, problem, true);
  DeviceCaps h100 = h100_caps();
  Grouping g = padded_groups();
  const GemmProblem p = problem(g, 256);
  GemmProblem odd_k = p;
  odd_k.k = 100;
  EXPECT_EQ(why_unsupported(*k, odd_k, h100, &g), why_unsupported(*base, odd_k, h100, &g));
  GemmProblem bf16_f16acc = p;
  bf16_f16acc.accum = Accum::f16;
  EXPECT_EQ(why_unsupported(*k, bf16_f16acc, h100, &g),
            why_unsupported(*base, bf16_f16acc, h100, &g));
  GemmProblem f16 = p;
  f16.dtype = DType::f16;
  f16.accum = Accum::f16;
  f16.n = 264;
  EXPECT_EQ(why_unsupported(*k, f16, h100, &g), why_unsupported(*base, f16, h100, &g));
}

// The FP8 problem of a grouped case (tests/gpu/grouping_fixtures.hpp states the same): TN,
// e4m3, bf16 C, block128 scales, M = sum(M_g).
GemmProblem fp8_grouped_problem(const Grouping& g, int64_t n, int64_t k) {
  GemmProblem p{g.total_m(), n, k, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
  p.out = DType::bf16;
  p.scale = ScaleMode::block128;
  return p;
}

// The grouped FP8 kernel declares both layouts and its 128-row tiles, turns away dense problems,
// and names each thing it does not build: no GPU needed for any of these answers.
TEST(Registry, TheGroupedFp8KernelDeclaresItsLayoutsAndRefusals) {
  const KernelInfo* k = KernelRegistry::instance().find("fp8gemm_grouped_sm90");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->family, "fp8gemm");
  EXPECT_EQ(k->group_layouts,
            (std::vector<GroupLayout>{GroupLayout::contiguous, GroupLayout::masked}));
  EXPECT_EQ(k->group_tile_rows, 128);
  EXPECT_FALSE(k->dense_too);
  DeviceCaps h100 = h100_caps();
  Grouping g;
  g.m = {100, 0, 1, 156};
  const GemmProblem p = fp8_grouped_problem(g, 256, 512);
  EXPECT_EQ(why_unsupported(*k, p, h100), kGroupedKernelDenseReason);
  GemmProblem e5m2 = p;
  e5m2.dtype_b = DType::e5m2;
  EXPECT_EQ(why_unsupported(*k, e5m2, h100, &g),
            "e4m3 x e4m3 only (the grouped FP8 kernel is built for that pair alone)");
  for (ScaleMode s : {ScaleMode::tensor, ScaleMode::row}) {
    GemmProblem q = p;
    q.scale = s;
    EXPECT_EQ(why_unsupported(*k, q, h100, &g),
              "block128 scales only (DeepSeek-V3's FP8 experts); tensor and row are not built")
        << to_string(s);
  }
  GemmProblem odd_k = p;
  odd_k.k = 520;
  EXPECT_EQ(why_unsupported(*k, odd_k, h100, &g),
            "K must be a multiple of 16: TMA needs 16-byte aligned row strides");
  GemmProblem f16_out = p;
  f16_out.out = DType::f16;
  EXPECT_EQ(why_unsupported(*k, f16_out, h100, &g), "writes bf16 C only (--out bf16)");
  GemmProblem fast = p;
  fast.fast_accum = true;
  EXPECT_NE(why_unsupported(*k, fast, h100, &g).find("no fast accumulation"), std::string::npos);
  DeviceCaps ada;
  ada.sm = 89;
  EXPECT_NE(why_unsupported(*k, p, ada, &g).find("needs sm_90"), std::string::npos);
  // Past the host checks the answer is the driver's (the sm_90a image): none of the above.
  const std::string why = why_unsupported(*k, p, h100, &g);
  EXPECT_EQ(why.find("e4m3 x e4m3"), std::string::npos) << why;
  EXPECT_EQ(why.find("block128"), std::string::npos) << why;
  // N not a multiple of 128 and a K with a partial last 128-block are taken (TMA zero fill).
  EXPECT_EQ(why_unsupported(*k, fp8_grouped_problem(g, 200, 272), h100, &g), why);
}

// fp8gemm_grouped_sm90's TMA-store variants (_tma, _n192_tma), the same way; the kernel's own
// refusals (tensor scales) come first, word for word. _n192_tma refuses what _tma refuses, word
// for word, and nothing more: any N, the ones that end a 192-column tile inside a 128-row block of
// the scales (200, 264, 520) among them. (Where fp8gemm picks which: the grouped rule's test
// below.)
TEST(Registry, TheGroupedFp8TmaVariantsRefuseWhatWholeBoxStoresCannotDo) {
  const KernelInfo* base = KernelRegistry::instance().find("fp8gemm_grouped_sm90");
  const KernelInfo* tma = KernelRegistry::instance().find("fp8gemm_grouped_sm90_tma");
  const KernelInfo* n192 = KernelRegistry::instance().find("fp8gemm_grouped_sm90_n192_tma");
  ASSERT_NE(base, nullptr);
  ASSERT_NE(tma, nullptr);
  ASSERT_NE(n192, nullptr);
  const auto problem = [](const Grouping& g, int64_t n) { return fp8_grouped_problem(g, n, 512); };
  DeviceCaps h100 = h100_caps();
  Grouping g = padded_groups();
  GemmProblem tensor = problem(g, 256);
  tensor.scale = ScaleMode::tensor;
  for (const KernelInfo* variant : {tma, n192}) {
    SCOPED_TRACE(variant->name);
    expect_tma_variant_refusals(*base, *variant, problem);
    EXPECT_EQ(why_unsupported(*variant, tensor, h100, &g),
              why_unsupported(*base, tensor, h100, &g));
  }
  Grouping align1 = g;
  align1.align = 1;
  GemmProblem beta = problem(g, 256);
  beta.beta = 0.5;
  for (const GemmProblem& p : {problem(g, 192), problem(g, 200), problem(g, 264), problem(g, 520),
                               problem(g, 100), fp8_grouped_problem(g, 320, 120), tensor, beta}) {
    SCOPED_TRACE(testing::Message() << "N " << p.n << " K " << p.k << " beta " << p.beta);
    for (const Grouping* x : {&g, &align1}) {
      // Past the host checks each asks about its own image (sm90a_image_unsupported): on a host
      // without a GPU both cannot, on an sm_90 host both fit (209 KB, 225 KB).
      const std::string why = why_unsupported(*n192, p, h100, x);
      const std::string why_tma = why_unsupported(*tma, p, h100, x);
      const auto image = [](const std::string& w) {
        return w.rfind("cannot query the kernel image", 0) == 0 ||
               w.rfind("this build has no sm_90a code", 0) == 0 ||
               w.find("KB of shared memory per block") != std::string::npos;
      };
      if (image(why_tma))
        EXPECT_TRUE(image(why)) << why << " | " << why_tma;
      else
        EXPECT_EQ(why, why_tma);
    }
  }
}

// The dispatchers' grouped rule (kernels/dispatch/dispatch.cpp): for hgemm, the fitted tile
// (_fit_trim) first on a grouping whose groups have 32 rows or fewer; the TMA-store
// variants first where at least half the stored rows are the groups' own (for fp8gemm on a
// contiguous grouping the 192-column tile, then the 128-column one), then the register-epilogue
// kernel, which alone is tried where padding is most of the rows (the variants store whole boxes of
// it). On a host without the sm_90a image each tried candidate's reason is in the choice's, and
// only those; on a GPU host the first variant runs what it takes and the kernel the rest (align 1,
// beta, mostly padding; hgemm's _tma runs align 1 too, after the pairs).
TEST(Registry, GroupedDispatchTriesTheTmaStoreVariantWhereRowsAreMostlyTheGroupsOwn) {
  DeviceCaps h100 = h100_caps();
  Grouping own;  // 768 rows stored, all of them the groups' own
  own.m = {256, 128, 384};
  own.align = 128;
  Grouping half = own;  // 192 of 256 + 128 stored rows: half, exactly
  half.m = {129, 0, 0, 63};
  Grouping padded = own;  // 28 of 384 stored rows
  padded.m = {16, 8, 4};
  Grouping below_half = own;  // 191 of 384: one row under half
  below_half.m = {129, 0, 0, 62};
  Grouping align1 = own;  // a group of 100 rows: its last tile would reach the next group's
  align1.m = {256, 100, 384};
  align1.align = 1;
  Grouping align1_whole = own;  // groups of whole tiles: align 1 needs no padding
  align1_whole.align = 1;
  Grouping masked;  // 4 of 128 x 2 rows
  masked.m = {3, 1};
  masked.layout = GroupLayout::masked;
  masked.max_m = 128;
  Grouping masked_own = masked;  // 228 of 256: masked, mostly the groups' own
  masked_own.m = {100, 128};
  for (const char* family : {"hgemm", "fp8gemm"}) {
    SCOPED_TRACE(family);
    const bool fp8 = std::string(family) == "fp8gemm";
    const KernelInfo* d = KernelRegistry::instance().find(family);
    ASSERT_NE(d, nullptr);
    ASSERT_TRUE(static_cast<bool>(d->choose_grouped));
    const std::string kernel = std::string(family) + "_grouped_sm90";
    const std::string tma = kernel + "_tma";
    const std::string n192 = kernel + "_n192_tma";
    const KernelInfo* k = KernelRegistry::instance().find(kernel);
    const KernelInfo* t = KernelRegistry::instance().find(tma);
    ASSERT_NE(k, nullptr);
    ASSERT_NE(t, nullptr);
    const KernelInfo* w192 = KernelRegistry::instance().find(n192);
    ASSERT_EQ(w192 != nullptr, fp8) << "fp8gemm alone has a 192-column grouped variant";
    const std::string fit_name = kernel + "_fit_trim";
    const KernelInfo* fit = KernelRegistry::instance().find(fit_name);
    ASSERT_EQ(fit != nullptr, !fp8) << "hgemm alone has the fitted tile";
    const auto problem = [&](const Grouping& g, double beta) {
      GemmProblem p =
          fp8 ? fp8_grouped_problem(g, 256, 512)
              : GemmProblem{g.total_m(), 256, 512, Layout::tn, DType::bf16, Accum::f32, 1.0, 0.0};
      p.beta = beta;
      return p;
    };
    struct Want {
      const Grouping* g;
      double beta;
      bool tries_tma, tma_takes;
    };
    for (const Want& w :
         {Want{&own, 0.0, true, true}, Want{&half, 0.0, true, true}, Want{&own, 0.5, true, false},
          Want{&align1, 0.0, true, false}, Want{&align1_whole, 0.0, true, true},
          Want{&padded, 0.0, false, true}, Want{&below_half, 0.0, false, true},
          Want{&masked, 0.0, false, true}, Want{&masked_own, 0.0, true, true}}) {
      SCOPED_TRACE(testing::Message() << "rows " << w.g->total_m() << " of " << w.g->stored_rows()
                                      << " stored, beta " << w.beta);
      const bool tries_n192 = fp8 && w.tries_tma && w.g->layout == GroupLayout::contiguous;
      // hgemm on a grouping of groups of 32 rows or fewer: the fitted tile first.
      bool small = true;
      for (const int64_t m : w.g->m) small = small && m <= 32;
      const bool tries_fit = !fp8 && small;
      const GemmProblem p = problem(*w.g, w.beta);
      const DispatchChoice c = d->choose_grouped(p, *w.g, h100);
      const std::string why_k = why_unsupported(*k, p, h100, w.g);
      const std::string why_t = why_unsupported(*t, p, h100, w.g);
      const std::string why_w = w192 ? why_unsupported(*w192, p, h100, w.g) : "not built";
      // hgemm's _tma takes any grouping with beta 0 (a group's last rows from the fragment):
      // first where the old whole-tile check passes (tma_takes), after the pairs elsewhere.
      const bool any_takes = w.tma_takes || (!fp8 && w.beta == 0.0);
      EXPECT_EQ(why_t.empty(), any_takes && why_k.empty()) << why_t;
      if (fp8) EXPECT_EQ(why_w.empty(), why_t.empty()) << why_w << " | " << why_t;
      const std::string why_f = fit ? why_unsupported(*fit, p, h100, w.g) : "not built";
      if (tries_fit && why_f.empty()) {  // a GPU host with the sm_90a image
        ASSERT_NE(c.kernel, nullptr) << c.why;
        EXPECT_EQ(c.kernel->name, fit_name);
        EXPECT_EQ(c.rule, "grouped-fitted-tile-sm90");
      } else if (tries_n192 && why_w.empty()) {  // a GPU host with the sm_90a image
        ASSERT_NE(c.kernel, nullptr) << c.why;
        EXPECT_EQ(c.kernel->name, n192);
        EXPECT_EQ(c.rule, "grouped-tma-store-n192-sm90");
      } else if (w.tries_tma && why_t.empty()) {
        ASSERT_NE(c.kernel, nullptr) << c.why;
        EXPECT_EQ(c.kernel->name, tma);
        EXPECT_EQ(c.rule, w.tma_takes ? "grouped-tma-store-sm90" : "grouped-tma-store-edge-sm90");
      } else if (why_k.empty()) {
        ASSERT_NE(c.kernel, nullptr) << c.why;
        EXPECT_EQ(c.kernel->name, kernel);
        EXPECT_EQ(c.rule, "grouped-persistent-sm90");
      } else {  // no GPU: the reasons of the candidates tried, and only those
        EXPECT_EQ(c.kernel, nullptr);
        EXPECT_NE(c.why.find(kernel + ": " + why_k), std::string::npos) << c.why;
        EXPECT_EQ(c.why.find(tma + ": ") != std::string::npos, w.tries_tma) << c.why;
        EXPECT_EQ(c.why.find(n192 + ": ") != std::string::npos, tries_n192) << c.why;
        EXPECT_EQ(c.why.find(fit_name + ": ") != std::string::npos, tries_fit) << c.why;
      }
    }
  }
}

// The pair rules' groupings: contiguous at align 1, and two masked groups of 512 rows.
Grouping align1_groups(std::vector<int64_t> m) {
  Grouping g;
  g.m = std::move(m);
  g.align = 1;
  return g;
}
Grouping masked_512x2() {
  Grouping g = align1_groups({512, 512});
  g.layout = GroupLayout::masked;
  g.max_m = 512;
  return g;
}

// hgemm tries the 2-CTA pair (hgemm_grouped_sm90_pair, 256-row walk tiles) on a contiguous
// grouping where at most 1/16 of the pairs' 128-row tiles would hold none of their group's rows,
// after the TMA-store variant and before the register kernel; the launch tables then count the
// pair's tiles (grouped_launch_tile_rows). Without a GPU the choice names the candidates tried.
TEST(Registry, HgemmTriesTheClusterPairWhereGroupsFillItsPairs) {
  const KernelInfo* h = KernelRegistry::instance().find("hgemm");
  const KernelInfo* pair = KernelRegistry::instance().find("hgemm_grouped_sm90_pair");
  const KernelInfo* tma = KernelRegistry::instance().find("hgemm_grouped_sm90_tma");
  const KernelInfo* reg = KernelRegistry::instance().find("hgemm_grouped_sm90");
  ASSERT_NE(h, nullptr);
  ASSERT_NE(pair, nullptr);
  ASSERT_NE(tma, nullptr);
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(pair->group_tile_rows, 256);
  const DeviceCaps h100 = h100_caps();
  const auto contiguous = align1_groups;
  struct Want {
    Grouping g;
    bool tries_pair;
  };
  const Grouping masked = masked_512x2();
  const std::vector<Want> wants = {
      {contiguous({512, 0, 1030, 256}), true},    // 15 tiles in 8 pairs: 1 of 16 idle, the line
      {contiguous({170, 1500, 1024}), true},      // 22 tiles in 11 pairs: none idle
      {contiguous({256, 256, 256, 128}), false},  // 7 tiles in 4 pairs: 1 of 8 idle
      {contiguous({1100, 1100}), false},          // 18 tiles in 10 pairs: 2 of 20 idle
      {contiguous({128, 128, 128, 128}), false},  // every pair's second CTA idle
      {masked, false},                            // masked: not measured
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(testing::Message() << w.g.m.size() << " groups, " << w.g.total_m() << " rows, "
                                    << to_string(w.g.layout));
    const GemmProblem p{w.g.total_m(), 256, 512, Layout::tn, DType::bf16, Accum::f32, 1.0, 0.0};
    const DispatchChoice c = h->choose_grouped(p, w.g, h100);
    const std::string why_pair = why_unsupported(*pair, p, h100, &w.g);
    const std::string why_tma = why_unsupported(*tma, p, h100, &w.g);
    if (why_unsupported(*reg, p, h100, &w.g).empty()) {  // a GPU host with the sm_90a image
      ASSERT_NE(c.kernel, nullptr) << c.why;
      const bool pair_runs = w.tries_pair && why_pair.empty() && !why_tma.empty();
      if (pair_runs) {
        EXPECT_EQ(c.kernel->name, "hgemm_grouped_sm90_pair");
        EXPECT_EQ(c.rule, "grouped-cluster-pair-sm90");
      } else {
        EXPECT_NE(c.kernel->name, "hgemm_grouped_sm90_pair");
      }
      EXPECT_EQ(grouped_launch_tile_rows(*h, p, w.g, h100), pair_runs ? 256 : 128);
    } else {
      EXPECT_EQ(c.kernel, nullptr);
      EXPECT_EQ(c.why.find("hgemm_grouped_sm90_pair: ") != std::string::npos, w.tries_pair)
          << c.why;
      EXPECT_NE(c.why.find("hgemm_grouped_sm90: "), std::string::npos) << c.why;
      EXPECT_EQ(grouped_launch_tile_rows(*h, p, w.g, h100), 128) << "no choice: hgemm's own";
    }
  }
}

// hgemm tries the pair on the global pairing of 128-row tiles (hgemm_grouped_sm90_pairg) on a
// contiguous grouping of large experts (N * K >= 8 Mi) where at least 1/4 of the units (the
// walk's tiles 2u, 2u + 1) lie in one group, after the TMA-store variant and before the pair and
// the register kernel; its tables are the register kernel's (128 rows).
TEST(Registry, HgemmTriesTheGlobalPairWhereUnitsShareLargeWeights) {
  const KernelInfo* h = KernelRegistry::instance().find("hgemm");
  const KernelInfo* pairg = KernelRegistry::instance().find("hgemm_grouped_sm90_pairg");
  const KernelInfo* tma = KernelRegistry::instance().find("hgemm_grouped_sm90_tma");
  const KernelInfo* reg = KernelRegistry::instance().find("hgemm_grouped_sm90");
  ASSERT_NE(h, nullptr);
  ASSERT_NE(pairg, nullptr);
  ASSERT_NE(tma, nullptr);
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(pairg->group_tile_rows, 128);
  const DeviceCaps h100 = h100_caps();
  const auto contiguous = align1_groups;
  struct Want {
    Grouping g;
    int64_t n, k;
    bool tries_pairg;
  };
  const Grouping masked = masked_512x2();
  const std::vector<Want> wants = {
      {contiguous({250, 250, 100}), 4096, 7168, true},            // 5 tiles, 3 units, 2 shared
      {contiguous({250, 250, 100}), 4096, 2040, false},           // N * K under 8 Mi
      {contiguous({256, 256, 128, 128, 128}), 2048, 4096, true},  // N * K 8 Mi; 2 of 4 share
      {contiguous({256, 128, 128, 128, 128, 128, 128, 128}), 4096, 7168, false},  // 1 of 5
      {contiguous({256, 128, 128, 128, 128, 128}), 4096, 7168, true},  // 1 of 4: the line
      {contiguous({128, 256, 256}), 4096, 7168, false},       // every unit straddles: odd starts
      {contiguous({128, 128, 128, 128}), 4096, 7168, false},  // one tile a group
      {masked, 4096, 7168, false},                            // masked: not measured
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(testing::Message() << w.g.m.size() << " groups, " << w.g.total_m() << " rows, N "
                                    << w.n << ", K " << w.k << ", " << to_string(w.g.layout));
    const GemmProblem p{w.g.total_m(), w.n, w.k, Layout::tn, DType::bf16, Accum::f32, 1.0, 0.0};
    const DispatchChoice c = h->choose_grouped(p, w.g, h100);
    const std::string why_pairg = why_unsupported(*pairg, p, h100, &w.g);
    const std::string why_tma = why_unsupported(*tma, p, h100, &w.g);
    if (why_unsupported(*reg, p, h100, &w.g).empty()) {  // a GPU host with the sm_90a image
      ASSERT_NE(c.kernel, nullptr) << c.why;
      if (w.tries_pairg && why_pairg.empty() && !why_tma.empty()) {
        EXPECT_EQ(c.kernel->name, "hgemm_grouped_sm90_pairg");
        EXPECT_EQ(c.rule, "grouped-global-pair-sm90");
      } else {
        EXPECT_NE(c.kernel->name, "hgemm_grouped_sm90_pairg");
      }
      EXPECT_EQ(grouped_launch_tile_rows(*h, p, w.g, h100), c.kernel->group_tile_rows);
    } else {
      EXPECT_EQ(c.kernel, nullptr);
      EXPECT_EQ(c.why.find("hgemm_grouped_sm90_pairg: ") != std::string::npos, w.tries_pairg)
          << c.why;
      EXPECT_NE(c.why.find("hgemm_grouped_sm90: "), std::string::npos) << c.why;
    }
  }
}

// fp8gemm (the dispatcher) takes grouped FP8 cases through the grouped FP8 kernel, in its tile
// rows, as hgemm does through hgemm_grouped_sm90; dense cases still reach its rule table.
TEST(Registry, Fp8gemmTakesGroupedCasesThroughTheGroupedKernel) {
  const KernelInfo* f = KernelRegistry::instance().find("fp8gemm");
  const KernelInfo* k = KernelRegistry::instance().find("fp8gemm_grouped_sm90");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(f->dense_too);
  EXPECT_EQ(f->group_layouts, k->group_layouts);
  EXPECT_EQ(f->group_tile_rows, k->group_tile_rows) << "the runner builds fp8gemm's tables";
  ASSERT_TRUE(static_cast<bool>(f->choose_grouped));
  DeviceCaps h100 = h100_caps();
  Grouping g;
  g.m = {100, 0, 156};
  g.layout = GroupLayout::masked;
  g.max_m = 160;
  const GemmProblem p = fp8_grouped_problem(g, 256, 512);
  const DispatchChoice c = f->choose_grouped(p, g, h100);
  const std::string why = why_unsupported(*k, p, h100, &g);
  if (why.empty()) {  // a GPU host with the sm_90a image
    ASSERT_NE(c.kernel, nullptr);
    EXPECT_EQ(c.kernel->name, "fp8gemm_grouped_sm90");
    EXPECT_EQ(c.rule, "grouped-persistent-sm90");
  } else {
    EXPECT_EQ(c.kernel, nullptr);
    EXPECT_NE(c.why.find("fp8gemm_grouped_sm90: " + why), std::string::npos) << c.why;
    EXPECT_EQ(why_unsupported(*f, p, h100, &g), c.why);
  }
  GemmProblem tensor = p;
  tensor.scale = ScaleMode::tensor;
  EXPECT_NE(
      why_unsupported(*f, tensor, h100, &g).find("fp8gemm_grouped_sm90: block128 scales only"),
      std::string::npos)
      << "the grouped candidate's reason, named";
  EXPECT_NE(why_unsupported(*f, p, h100), kGroupedKernelDenseReason) << "fp8gemm is dense too";
  // hgemm's grouped choice is not fp8gemm's: an FP8 case names no hgemm kernel.
  const KernelInfo* h = KernelRegistry::instance().find("hgemm");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(why_unsupported(*h, p, h100, &g).find("fp8gemm_grouped_sm90"), std::string::npos);
}

TEST(Registry, SupportsAnswersWithoutThrowingForOddShapes) {
  DeviceCaps h100;
  h100.sm = 90;
  h100.num_sms = 132;
  h100.smem_per_block_optin = 227 * 1024;
  for (const KernelInfo* k : KernelRegistry::instance().all())
    for (Layout l : k->layouts)
      for (auto [m, n, kk] :
           {std::tuple{1, 1, 1}, std::tuple{37, 53, 71}, std::tuple{4096, 4096, 4096}}) {
        GemmProblem p{m, n, kk, l, k->dtypes[0], k->accums[0], 1.0, 0.0};
        EXPECT_NO_THROW(why_unsupported(*k, p, h100)) << k->name;
      }
}

TEST(Registry, MalformedRegistrationsAreRejected) {
  EXPECT_DEATH(
      {
        KernelRegistry reg;
        reg.add(KernelInfo{"Bad-Name",
                           "sgemm",
                           1,
                           "x",
                           {DType::f32},
                           {Accum::f32},
                           {Layout::nn},
                           50,
                           {},
                           [](const GemmArgs&, cudaStream_t) {}});
      },
      "lower-case");
  EXPECT_DEATH(
      {
        KernelRegistry reg;
        reg.add(KernelInfo{"cublas",
                           "sgemm",
                           1,
                           "x",
                           {DType::f32},
                           {Accum::f32},
                           {Layout::nn},
                           50,
                           {},
                           [](const GemmArgs&, cudaStream_t) {}});
      },
      "reserved");
}

// The variant matrix stays cut (docs/contributing.md#kernels: a variant is registered because a
// document, a config or a measured choice relies on it): every rung has a main kernel whose name
// prefixes its variants', and the known duplicates and losers stay deleted.
TEST(Registry, LadderRungsAndNoDeletedVariants) {
  const auto& reg = KernelRegistry::instance();
  for (const char* name : {"hgemm_tn", "hgemm_tn_sm90", "hgemm_tn_sm90_sk_defer", "sgemm_pipelined",
                           "hgemm_tn_128x128x64_s3", "hgemm_tn_128x256x32_s4"})
    EXPECT_NE(reg.find(name), nullptr) << name;
  for (const char* name :
       {"hgemm_tn_128x256x64_s3_persist", "sgemm_pipelined_256x128", "sgemm_warptile_128x128",
        "hgemm_tn_sm90_tmastore", "hgemm_tn_sm90_sk_tmastore", "hgemm_tn_sm90_regepi",
        "hgemm_tn_128x256x32_s4_spread", "hgemm_tn_256x256x32_s4_w64x128",
        "hgemm_decode_sm90_n64_mc", "hgemm_decode_sm90_n64_sp", "hgemm_tn_sm90_192x192_sk",
        "hgemm_tn_sm90_192x192_c2_sk", "hgemm_decode_sm90_n64_wmc",
        "fp8gemm_sm90_persistent_t_m256", "fp8gemm_sm90_persistent_t_m64c2z",
        "fp8gemm_sm90_persistent_t_m64c2k", "fp8gemm_sm90_persistent_t_m64c2w1",
        "fp8gemm_sm90_persistent_t_m64c2n16", "fp8gemm_sm90_persistent_t_m64c1"})
    EXPECT_EQ(reg.find(name), nullptr)
        << name
        << " was deleted (a duplicate or a loser, or renamed: _n64_wmc is _wmc; _t_m256 lost to "
           "_t_m256c2, which runs its code on clusters; _t_m64c2z, _t_m64c2w1 and _t_m64c2n16 "
           "were folded into _t_m64c2; _t_m64c2k and _t_m64c1 lost)";
  // Per rung, layout and kind: the same technique in another layout (hgemm_nn_sm90 beside
  // hgemm_tn_sm90) or for grouped problems (fp8gemm_grouped_sm90 beside rung F3's kernels) is
  // not a tile variant.
  std::map<std::tuple<std::string, int, Layout, bool>, std::vector<std::string>> rungs;
  for (const KernelInfo* k : reg.all())
    rungs[{k->family, k->rung, k->layouts.front(), k->group_layouts.empty()}].push_back(k->name);
  for (const auto& [rung, names] : rungs) {
    SCOPED_TRACE(std::get<0>(rung) + " rung " + std::to_string(std::get<1>(rung)) + " " +
                 to_string(std::get<2>(rung)) + (std::get<3>(rung) ? "" : " grouped"));
    // At most five variants, each one a rule of `hgemm` or a document relies on (the decode
    // rung's: _n64, _n64_cs, _wmc, _n48 and the 128-token tile at any M). Rung F3 alone has a
    // sixth, _m256c2ts (A's block scales by TMA with the stages), rules R and R2's kernel,
    // and a seventh, _m64c2 (_m64's narrow tiles on 2-CTA clusters sharing A), rule M3's kernel,
    // and may hold one prepared experiment beside them (awaiting its A/B: kept or deleted then;
    // none now).
    const bool f3 = std::get<0>(rung) == "fp8gemm" && std::get<1>(rung) == 3 && std::get<3>(rung);
    size_t extra = 0;
    for (const char* n : {"fp8gemm_sm90_persistent_t_m256c2ts", "fp8gemm_sm90_persistent_t_m64c2"})
      extra += f3 && std::find(names.begin(), names.end(), n) != names.end();
    EXPECT_LE(names.size(), 6u + extra) << "a rung registers its main kernel and a few variants";
  }
  for (const char* name : {"hgemm_nn_sm90", "hgemm_nt_sm90", "hgemm_tt_sm90"}) {
    const KernelInfo* k = reg.find(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_EQ(k->rung, reg.find("hgemm_tn_sm90")->rung) << name << ": the Hopper rung's layouts";
    EXPECT_EQ(k->layouts.size(), 1u) << name;
  }
}

// fp8gemm_decode_sm90 and its variants (the 16-bit decode rung's kernel on e4m3): e4m3 x e4m3,
// a scaling (block128 without fast accumulation), bf16 C, at most 128 tokens, K a multiple of 16;
// refused before the image is queried (a host without a GPU gets the same answers).
TEST(Registry, Fp8DecodeSm90RefusesWhatItCannotRun) {
  DeviceCaps h200;
  h200.sm = 90;
  for (const char* name :
       {"fp8gemm_decode_sm90", "fp8gemm_decode_sm90_n64", "fp8gemm_decode_sm90_n64_cs",
        "fp8gemm_decode_sm90_wmc", "fp8gemm_decode_sm90_wmcfit"}) {
    SCOPED_TRACE(name);
    const KernelInfo* k = KernelRegistry::instance().find(name);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->family, "fp8gemm");
    EXPECT_EQ(k->dtypes, std::vector<DType>{DType::e4m3});
    GemmProblem p{16, 4096, 4096, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
    p.out = DType::bf16;
    p.scale = ScaleMode::tensor;
    const auto why = [&] { return why_unsupported(*k, p, h200); };
    for (const auto& [m, kk] : {std::pair{1, 4096}, {16, 4112}, {128, 400}, {37, 16}}) {
      p.m = m, p.k = kk;  // whatever is left is the image query's
      EXPECT_EQ(why().find("tokens"), std::string::npos) << m << "x" << kk << ": " << why();
      EXPECT_EQ(why().find("multiple of 16"), std::string::npos) << why();
      EXPECT_EQ(why().find("per-tensor"), std::string::npos) << why();
    }
    p.m = 129;
    EXPECT_NE(why().find("M <= 128"), std::string::npos) << why();
    p.m = 16, p.k = 4104;
    EXPECT_NE(why().find("multiple of 16"), std::string::npos) << why();
    p.k = 4096;
    for (ScaleMode other : {ScaleMode::row, ScaleMode::block128}) {
      p.scale = other;  // every scaling: whatever is left is the image query's
      EXPECT_EQ(why().find("scal"), std::string::npos) << why();
    }
    p.fast_accum = true;
    EXPECT_NE(why().find("no fast accumulation"), std::string::npos) << why();
    p.scale = ScaleMode::row;
    EXPECT_EQ(why().find("fast accumulation"), std::string::npos) << why();
    p.fast_accum = false;
    p.scale = ScaleMode::none;
    EXPECT_NE(why().find("needs a scaling"), std::string::npos) << why();
    p.scale = ScaleMode::tensor;
    p.dtype_b = DType::e5m2;
    EXPECT_NE(why().find("e4m3 x e4m3 only"), std::string::npos) << why();
    p.dtype_b = DType::e4m3;
    p.out = DType::f16;
    EXPECT_NE(why().find("bf16 C only"), std::string::npos) << why();
    p.out = DType::bf16;
    h200.sm = 89;
    EXPECT_FALSE(why().empty()) << "sm_90a code only";
    h200.sm = 90;
  }
}

// fp8gemm_sm90_persistent_t_m256c2ts (A's block scales by TMA, through a map of scale_a's rows)
// turns away what that map cannot take, each with its own reason naming the kernel that runs it
// (_m256c2), before the image is queried: so a host without a GPU gets the same answers. (_m64c2
// takes the same path where the map can take it, and its own LDG loop elsewhere: launch_m64c2.)
static void expect_ts_refusals(const char* name, const char* base_name) {
  SCOPED_TRACE(name);
  const KernelInfo* k = KernelRegistry::instance().find(name);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->dtypes, std::vector<DType>{DType::e4m3}) << "e4m3 x e4m3 only";
  DeviceCaps h200;
  h200.sm = 90;
  GemmProblem p{4096, 7168, 1536, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
  p.out = DType::bf16;
  p.scale = ScaleMode::block128;
  const auto why = [&] { return why_unsupported(*k, p, h200); };
  const std::string instead = std::string(base_name) + " ";
  // K 1536 (12 k-blocks, rows of 48 bytes) and 512 (one box as wide as the rows) pass the
  // kernel's own checks, at M 4096 and at an M not a multiple of 256: whatever is left is the
  // image query's (empty with a GPU and an sm_90a build).
  for (const auto& [m, kk] : {std::pair{4096, 1536}, {4096, 512}, {300, 2048}, {200, 16384}}) {
    p.m = m, p.k = kk;
    EXPECT_EQ(why().find("512"), std::string::npos) << m << "x" << kk << ": " << why();
    EXPECT_EQ(why().find("block128"), std::string::npos) << m << "x" << kk << ": " << why();
    EXPECT_EQ(why().find(instead), std::string::npos) << m << "x" << kk << ": " << why();
  }
  p.m = 4096;
  for (int k_bad : {1040, 1024 + 128, 7168 + 256, 256}) {  // 9, 9, 58 and 2 k-blocks
    p.k = k_bad;
    EXPECT_NE(why().find("multiple of 512"), std::string::npos) << "K " << k_bad << ": " << why();
    EXPECT_NE(why().find(instead + "takes any K"), std::string::npos) << why();
  }
  p.k = 1536;
  for (ScaleMode other : {ScaleMode::tensor, ScaleMode::row}) {
    for (bool fast : {false, true}) {
      p.scale = other;
      p.fast_accum = fast;
      EXPECT_NE(why().find("block128 scales only"), std::string::npos)
          << to_string(other) << (fast ? " fast" : "") << ": " << why();
      EXPECT_NE(why().find(instead + "runs the other scalings"), std::string::npos) << why();
    }
  }
  p.scale = ScaleMode::block128;
  p.fast_accum = false;
  // e4m3 x e5m2 by its own reason; e5m2 x e4m3 by the registry's, before supports() (the kernel
  // declares e4m3 alone, so that no plan lists it for e5m2).
  p.dtype_b = DType::e5m2;
  EXPECT_NE(why().find("e4m3 x e4m3 only"), std::string::npos) << why();
  EXPECT_NE(why().find(instead + "runs the e5m2 pairs"), std::string::npos) << why();
  p.dtype = DType::e5m2;
  p.dtype_b = DType::e4m3;
  EXPECT_NE(why().find("dtype e5m2 not implemented"), std::string::npos) << why();
  // The base kernel itself takes what this one refuses (its image aside).
  const KernelInfo* base = KernelRegistry::instance().find(base_name);
  ASSERT_NE(base, nullptr);
  p.dtype = DType::e5m2;
  p.dtype_b = DType::e4m3;
  p.k = 1040;
  p.scale = ScaleMode::row;
  const std::string base_why = why_unsupported(*base, p, h200);
  EXPECT_EQ(base_why.find("e4m3 x e4m3 only"), std::string::npos) << base_why;
  EXPECT_EQ(base_why.find("512"), std::string::npos) << base_why;
  EXPECT_EQ(base_why.find("scales only"), std::string::npos) << base_why;
}
TEST(Registry, M256c2TsRefusesWhatItsScaleMapCannotTake) {
  expect_ts_refusals("fp8gemm_sm90_persistent_t_m256c2ts", "fp8gemm_sm90_persistent_t_m256c2");
}

// A dispatcher's note of what it launched (note_dispatched): the first note since the last take
// is kept (a dispatcher running another dispatcher is recorded as the outer one's choice), take
// hands it back once and forgets it.
TEST(Registry, DispatchNotesKeepTheFirstUntilTaken) {
  const KernelInfo* naive = KernelRegistry::instance().find("sgemm_naive");
  const KernelInfo* coalesced = KernelRegistry::instance().find("sgemm_coalesced");
  ASSERT_NE(naive, nullptr);
  ASSERT_NE(coalesced, nullptr);
  take_dispatched();
  EXPECT_EQ(take_dispatched(), nullptr);
  note_dispatched(naive);
  note_dispatched(coalesced);
  EXPECT_EQ(take_dispatched(), naive);
  EXPECT_EQ(take_dispatched(), nullptr);
  note_dispatched(coalesced);
  EXPECT_EQ(take_dispatched(), coalesced);
}
