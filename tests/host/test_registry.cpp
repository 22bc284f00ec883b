#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/types.hpp"
#include "core/registry.hpp"

using namespace gemmbench;

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
  DeviceCaps h100;
  h100.sm = 90;
  h100.smem_per_block_optin = 227 * 1024;
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
  DeviceCaps h100;
  h100.sm = 90;
  h100.smem_per_block_optin = 227 * 1024;
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
  DeviceCaps h100;
  h100.sm = 90;
  h100.smem_per_block_optin = 227 * 1024;
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
  DeviceCaps h100;
  h100.sm = 90;
  h100.smem_per_block_optin = 227 * 1024;
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
        "fp8gemm_sm90_persistent_t_m256"})
    EXPECT_EQ(reg.find(name), nullptr)
        << name
        << " was deleted (a duplicate or a loser, or renamed: _n64_wmc is _wmc; _t_m256 lost to "
           "_t_m256c2, which runs its code on clusters)";
  // Per rung, layout and kind: the same technique in another layout (hgemm_nn_sm90 beside
  // hgemm_tn_sm90) or for grouped problems (fp8gemm_grouped_sm90 beside rung F3's kernels) is
  // not a tile variant.
  std::map<std::tuple<std::string, int, Layout, bool>, std::vector<std::string>> rungs;
  for (const KernelInfo* k : reg.all())
    rungs[{k->family, k->rung, k->layouts.front(), k->group_layouts.empty()}].push_back(k->name);
  for (const auto& [rung, names] : rungs) {
    SCOPED_TRACE(std::get<0>(rung) + " rung " + std::to_string(std::get<1>(rung)) + " " +
                 to_string(std::get<2>(rung)) + (std::get<3>(rung) ? "" : " grouped"));
    // At most six variants, each one a rule of `hgemm` or `fp8gemm`, a document or a config
    // relies on (the decode rung's: _n64, _n64_cs, _wmc, _n48 and the 128-token tile at any M;
    // rung F3's: _sk, _pipe, _n192, _m256c2, _m64 and _m64ts, issue 50's A/B experiment that
    // scripts/dev/reference/deepgemm_plugin/m64_ts_ab.json runs: deleted if it loses there).
    EXPECT_LE(names.size(), 7u) << "a rung registers its main kernel and a few variants";
  }
  for (const char* name : {"hgemm_nn_sm90", "hgemm_nt_sm90", "hgemm_tt_sm90"}) {
    const KernelInfo* k = reg.find(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_EQ(k->rung, reg.find("hgemm_tn_sm90")->rung) << name << ": the Hopper rung's layouts";
    EXPECT_EQ(k->layouts.size(), 1u) << name;
  }
}

// fp8gemm_sm90_persistent_t_m64ts (issue 50's experiment: A's block scales by TMA, through a map
// of scale_a's rows) turns away what that map cannot take, each with its own reason, before its
// image is queried: so a host without a GPU gets the same answers.
TEST(Registry, M64TsRefusesWhatItsScaleMapCannotTake) {
  const KernelInfo* k = KernelRegistry::instance().find("fp8gemm_sm90_persistent_t_m64ts");
  ASSERT_NE(k, nullptr);
  DeviceCaps h200;
  h200.sm = 90;
  GemmProblem p{64, 7168, 1536, Layout::tn, DType::e4m3, Accum::f32, 1.0, 0.0};
  p.out = DType::bf16;
  p.scale = ScaleMode::block128;
  const auto why = [&] { return why_unsupported(*k, p, h200); };
  // K 1536 (12 k-blocks, rows of 48 bytes) passes the kernel's own checks: whatever is left is
  // the image query's (empty with a GPU and an sm_90a build).
  EXPECT_EQ(why().find("512"), std::string::npos) << why();
  EXPECT_EQ(why().find("block128"), std::string::npos) << why();
  for (int k_bad : {1040, 1024 + 128, 7168 + 256}) {  // 9, 9 and 58 k-blocks: rows of 36, 232 B
    p.k = k_bad;
    EXPECT_NE(why().find("multiple of 512"), std::string::npos) << "K " << k_bad << ": " << why();
  }
  p.k = 1536;
  for (ScaleMode other : {ScaleMode::tensor, ScaleMode::row}) {
    p.scale = other;
    EXPECT_NE(why().find("block128 scales only"), std::string::npos)
        << to_string(other) << ": " << why();
  }
  p.scale = ScaleMode::block128;
  p.dtype_b = DType::e5m2;
  EXPECT_NE(why().find("e4m3 x e4m3 only"), std::string::npos) << why();
}
