// Grouped GEMM through the front ends and the plan (plan/grouped.hpp, docs/grouped.md): the
// command line and a config giving the same cases, every refused input as one line naming it, the
// MoE presets' expert layers grouped beside their dense ones (and nothing changed without a
// routing), and the plan's grouped groups: TN, their own problem key, the rows they plan and the
// decision that skips them.
#include <gtest/gtest.h>

#include <numeric>

#include "cli/cli.hpp"
#include "config/config.hpp"
#include "core/errors.hpp"
#include "plan/grouped.hpp"
#include "plan/plan.hpp"
#include "plan/presets.hpp"
#include "plan/shard.hpp"
#include "runner/grouped_gemm.hpp"
#include "runner/runner.hpp"

using namespace gemmbench;

namespace {

void noop_launch(const GemmArgs&, cudaStream_t) {}

KernelRegistry make_registry() {
  KernelRegistry reg;
  for (const char* name : {"hgemm_tn", "hgemm_tn_wide"})
    reg.add(KernelInfo{name,
                       "hgemm",
                       1,
                       "",
                       {DType::f16, DType::bf16},
                       {Accum::f32},
                       {Layout::tn},
                       80,
                       {},
                       noop_launch});
  return reg;
}

RunRequest request_of(std::vector<std::string> args) {
  args.insert(args.begin(), "gemmbench");
  return resolve_request(parse_command_line(args).options);
}

std::string usage_error_of(std::vector<std::string> args) {
  try {
    request_of(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string config_error_of(const std::string& text) {
  try {
    parse_config_text(text, "t.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

Plan plan_of(const RunRequest& req, const KernelRegistry& reg) {
  return build_plan(req.runs, MeasureSettings{}, MeasureOverrides{}, reg);
}

}  // namespace

TEST(GroupedCli, ExplicitGroupsAreOneTnCaseWithTheirRows) {
  const RunRequest r = request_of(
      {"--groups", "4", "--group-m", "3,0,5,9", "--n", "64", "--k", "128", "--kernel", "hgemm_tn"});
  ASSERT_EQ(r.runs[0].shapes.size(), 1u);
  const Shape& s = r.runs[0].shapes[0];
  ASSERT_TRUE(s.grouped);
  EXPECT_EQ(s.grouped->grouping.m, (std::vector<int64_t>{3, 0, 5, 9}));
  EXPECT_EQ(s.m, 17) << "M = sum(M_g)";
  EXPECT_EQ(s.n, 64);
  EXPECT_EQ(s.k, 128);
  EXPECT_EQ(s.grouped->grouping.layout, GroupLayout::contiguous);
  EXPECT_EQ(s.grouped->grouping.align, 1);
  EXPECT_FALSE(s.grouped->routing) << "given, not drawn";
  EXPECT_EQ(r.runs[0].layouts, std::vector<Layout>{Layout::tn});
}

TEST(GroupedCli, EqualGroupsOneCasePerM) {
  const RunRequest r =
      request_of({"--groups", "8", "--m", "64,512", "--n", "4096", "--k", "7168,2048"});
  ASSERT_EQ(r.runs[0].shapes.size(), 4u) << "M list x N x K";
  EXPECT_EQ(r.runs[0].shapes[0].grouped->grouping.m, std::vector<int64_t>(8, 64));
  EXPECT_EQ(r.runs[0].shapes[1].k, 2048);
  EXPECT_EQ(r.runs[0].shapes[2].m, 8 * 512);
}

TEST(GroupedCli, RoutingDrawsTheRowsOfEachTokenCount) {
  const RunRequest r = request_of({"--tokens", "16,4096", "--topk", "8", "--experts", "256",
                                   "--routing", "zipf:1.2", "--n", "4096", "--k", "7168"});
  ASSERT_EQ(r.runs[0].shapes.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const GroupedGemm& g = *r.runs[0].shapes[i].grouped;
    const int64_t t = i == 0 ? 16 : 4096;
    EXPECT_EQ(g.grouping.groups(), 256);
    EXPECT_EQ(g.grouping.total_m(), t * 8);
    ASSERT_TRUE(g.routing);
    EXPECT_EQ(*g.routing, (Routing{{RoutingMode::zipf, 1.2}, t, 8, 256, kDefaultRoutingSeed}));
    EXPECT_EQ(g.grouping.m, route(*g.routing));
  }
  const RunRequest other =
      request_of({"--tokens", "4096", "--topk", "8", "--experts", "256", "--routing", "zipf:1.2",
                  "--n", "4096", "--k", "7168", "--routing-seed", "2"});
  EXPECT_NE(other.runs[0].shapes[0].grouped->grouping.m, r.runs[0].shapes[1].grouped->grouping.m);
  EXPECT_EQ(other.runs[0].shapes[0].grouped->routing->seed, 2u);
  const RunRequest data_seed =
      request_of({"--tokens", "4096", "--topk", "8", "--experts", "256", "--routing", "zipf:1.2",
                  "--n", "4096", "--k", "7168", "--seed", "99"});
  EXPECT_EQ(data_seed.runs[0].shapes[0].grouped->grouping.m,
            r.runs[0].shapes[1].grouped->grouping.m)
      << "--seed (the data) keeps the problem";
}

TEST(GroupedCli, LayoutsAndPadding) {
  const RunRequest masked = request_of({"--groups", "3", "--group-m", "5,17,2", "--n", "64", "--k",
                                        "64", "--group-layout", "masked"});
  EXPECT_EQ(masked.runs[0].shapes[0].grouped->grouping.max_m, 17) << "default: the largest";
  const RunRequest wide = request_of({"--groups", "3", "--group-m", "5,17,2", "--n", "64", "--k",
                                      "64", "--group-layout", "masked", "--group-max-m", "32"});
  EXPECT_EQ(wide.runs[0].shapes[0].grouped->grouping.stored_rows(), 96);
  const RunRequest padded = request_of(
      {"--groups", "3", "--group-m", "5,17,2", "--n", "64", "--k", "64", "--group-align", "128"});
  const Grouping& g = padded.runs[0].shapes[0].grouped->grouping;
  EXPECT_EQ(g.align, 128);
  EXPECT_EQ(g.stored_rows(), 3 * 128);
  EXPECT_EQ(padded.runs[0].shapes[0].m, 24) << "padding rows are not M";
}

TEST(GroupedCli, EachMistakeIsOneLineNamingIt) {
  const std::vector<std::string> nk = {"--n", "64", "--k", "64"};
  const auto with_nk = [&](std::vector<std::string> a) {
    a.insert(a.end(), nk.begin(), nk.end());
    return usage_error_of(a);
  };
  EXPECT_EQ(with_nk({"--groups", "0", "--m", "64"}), "--groups: must be in [1, 65536] (got 0)");
  EXPECT_EQ(with_nk({"--groups", "4", "--group-m", "1,2,3"}),
            "--group-m: 3 values for --groups 4 (one M per group)");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,-5"}),
            "--group-m: -5 is negative (rows per group: integers >= 0)");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,x"}),
            "--group-m: 'x' is not an integer (accepted: rows per group, integers >= 0)");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "0,0"}),
            "--group-m: every group is empty (nothing to compute)");
  EXPECT_EQ(with_nk({"--tokens", "16", "--topk", "9", "--experts", "8", "--routing", "random"}),
            "--topk 9 is more than --experts 8 (a token picks each expert at most once)");
  EXPECT_EQ(with_nk({"--tokens", "16", "--topk", "0", "--experts", "8", "--routing", "random"}),
            "--topk: must be at least 1 (got 0; each token goes to k experts)");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,40", "--group-layout", "masked",
                     "--group-max-m", "32"}),
            "--group-max-m 32 is below group 1's 40 rows (masked: every group's rows fit in "
            "max_m)");
  EXPECT_EQ(with_nk({"--tokens", "16", "--topk", "2", "--experts", "8", "--routing", "zipfian"}),
            "--routing: 'zipfian' is not one of balanced, zipf:S (S >= 0, e.g. zipf:1.2), random");
  EXPECT_EQ(with_nk({"--tokens", "16", "--topk", "2", "--experts", "8", "--routing", "zipf:x"}),
            "--routing: 'zipf:x' has no exponent S in [0, 16] (accepted: zipf:S, e.g. zipf:1.2)");
  EXPECT_EQ(usage_error_of({"--groups", "2", "--group-m", "4,5"}),
            "--groups needs --n and --k (the N and K every group shares)");
  EXPECT_EQ(usage_error_of({"--groups", "2", "--group-m", "4,5", "--n", "64"}),
            "--groups needs --n and --k (the N and K every group shares)");
  EXPECT_EQ(with_nk({"--groups", "2"}),
            "--groups needs --group-m (each group's M) or --m (G equal groups of M rows)");
  EXPECT_EQ(with_nk({"--group-m", "4,5"}),
            "--group-m needs --groups G (or --routing with --tokens T)");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,5", "--m", "3"}),
            "give --group-m (each group's M) or --m (equal groups), not both");
  EXPECT_EQ(with_nk({"--tokens", "16", "--routing", "balanced"}),
            "--routing needs --tokens T, --topk k and --experts E (or a MoE --preset)");
  EXPECT_EQ(with_nk({"--groups", "8", "--tokens", "16", "--topk", "2", "--routing", "balanced"}),
            "--groups: with --routing the experts are the groups (give --experts E)");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,5", "--topk", "2"}),
            "--topk applies with --routing");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,5", "--group-layout", "stacked"}),
            "--group-layout: 'stacked' is not one of contiguous, masked");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,5", "--group-align", "0"}),
            "--group-align: must be in [1, 2147483647] (got 0)");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,5", "--group-layout", "masked",
                     "--group-align", "128"}),
            "--group-align applies to --group-layout contiguous (masked pads every group to "
            "--group-max-m rows)");
  EXPECT_EQ(with_nk({"--groups", "2", "--group-m", "4,5", "--group-max-m", "8"}),
            "--group-max-m applies to --group-layout masked (contiguous stacks the groups' rows)");
  EXPECT_EQ(usage_error_of({"--tokens", "16"}),
            "--tokens applies to --preset or --routing (use --m for plain shapes)");
}

TEST(GroupedCli, ALayoutOtherThanTnIsRefusedByThePlan) {
  const KernelRegistry reg = make_registry();
  const RunRequest r =
      request_of({"--groups", "2", "--group-m", "4,5", "--n", "64", "--k", "64", "--layout", "nn"});
  try {
    plan_of(r, reg);
    FAIL() << "planned";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("grouped GEMM is TN only (--layout nn)"),
              std::string::npos)
        << e.what();
  }
}

TEST(GroupedConfig, TheSameKeysGiveTheSameCases) {
  const SweepConfig c = parse_config_text(R"({"runs": [
      {"name": "given", "kernels": "hgemm_tn", "groups": 4, "group_m": [3, 0, 5, 9], "n": 64,
       "k": 128, "group_layout": "masked", "group_max_m": 16},
      {"name": "drawn", "kernels": "hgemm_tn", "tokens": [16, 4096], "topk": 8, "experts": 256,
       "routing": "zipf:1.2", "routing_seed": 3, "n": 4096, "k": 7168, "group_align": 128},
      {"name": "equal", "kernels": "cublas", "groups": 8, "m": "64:128:64", "n": 64, "k": 64}]})",
                                          "t.json");
  const RunRequest given = request_of({"--groups", "4", "--group-m", "3,0,5,9", "--n", "64", "--k",
                                       "128", "--group-layout", "masked", "--group-max-m", "16"});
  const RunRequest drawn =
      request_of({"--tokens", "16,4096", "--topk", "8", "--experts", "256", "--routing", "zipf:1.2",
                  "--routing-seed", "3", "--n", "4096", "--k", "7168", "--group-align", "128"});
  ASSERT_EQ(c.runs.size(), 3u);
  ASSERT_EQ(c.runs[0].shapes.size(), 1u);
  EXPECT_EQ(c.runs[0].shapes[0].grouped, given.runs[0].shapes[0].grouped);
  ASSERT_EQ(c.runs[1].shapes.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(c.runs[1].shapes[i].grouped, drawn.runs[0].shapes[i].grouped) << i;
  EXPECT_EQ(c.runs[2].shapes.size(), 2u) << "m 64 and 128";
  EXPECT_EQ(c.runs[0].layouts, std::vector<Layout>{Layout::tn});
}

TEST(GroupedConfig, MistakesNameTheFileAndKey) {
  EXPECT_EQ(
      config_error_of(
          R"({"runs": [{"kernels": "all", "groups": 4, "group_m": [1, 2], "n": 8, "k": 8}]})"),
      "t.json: runs[0].group_m: 2 values for runs[0].groups 4 (one M per group)");
  EXPECT_EQ(config_error_of(R"({"runs": [{"kernels": "all", "tokens": 16, "topk": 9, "experts": 8,
                                          "routing": "random", "n": 8, "k": 8}]})"),
            "t.json: runs[0].topk 9 is more than runs[0].experts 8 (a token picks each expert at "
            "most once)");
  EXPECT_EQ(config_error_of(R"({"runs": [{"kernels": "all", "groups": 2, "group_m": [1, 2],
                                          "shapes": [[1, 2, 3]]}]})"),
            "t.json: runs[0].shapes: a grouped run takes 'n' and 'k' (and 'm', 'group_m' or "
            "'tokens'), or a 'preset'");
  EXPECT_EQ(config_error_of(R"({"runs": [{"kernels": "all", "n": 8, "shapes": [[1, 2, 3]]}]})"),
            "t.json: runs[0].n: applies to grouped runs ('groups' or 'routing'); plain shapes go "
            "in 'shapes'");
  EXPECT_EQ(config_error_of(R"({"runs": [{"kernels": "all", "groups": "4"}]})"),
            "t.json: runs[0].groups: expected an integer, got a string");
  EXPECT_EQ(config_error_of(R"({"runs": [{"kernels": "all", "preset": "deepseek-v3",
                                          "tokens": 16, "routing": "zipf"}]})"),
            "t.json: runs[0].routing: 'zipf' has no exponent S in [0, 16] (accepted: zipf:S, e.g. "
            "zipf:1.2)");
  EXPECT_EQ(config_error_of(R"({"runs": [{"kernels": "all", "groupz": 4}]})")
                    .find("did you mean 'groups'?") != std::string::npos,
            true);
}

TEST(MoePresets, ExpertsTopkAndLayersFollowTheModelConfigs) {
  struct Expect {
    const char* model;
    int64_t experts, topk, gate_up_n, gate_up_k, down_n, down_k;
  };
  for (const Expect& e : {Expect{"deepseek-v3", 256, 8, 2 * 2048, 7168, 7168, 2048},
                          Expect{"mixtral-8x7b", 8, 2, 2 * 14336, 4096, 4096, 14336},
                          Expect{"qwen3-30b-a3b", 128, 8, 2 * 768, 2048, 2048, 768}}) {
    const ModelPreset* p = find_preset(e.model);
    ASSERT_TRUE(p && p->moe) << e.model;
    EXPECT_EQ(p->moe->experts, e.experts) << e.model;
    EXPECT_EQ(p->moe->topk, e.topk) << e.model;
    std::vector<const PresetLayer*> experts;
    for (const PresetLayer& l : p->layers)
      if (!l.grouped.empty()) experts.push_back(&l);
    ASSERT_EQ(experts.size(), 2u) << e.model;
    EXPECT_EQ(experts[0]->grouped, "moe_gate_up_proj");
    EXPECT_EQ(experts[0]->n, e.gate_up_n) << e.model;
    EXPECT_EQ(experts[0]->k, e.gate_up_k) << e.model;
    EXPECT_EQ(experts[1]->grouped, "moe_down_proj");
    EXPECT_EQ(experts[1]->n, e.down_n) << e.model;
    EXPECT_EQ(experts[1]->k, e.down_k) << e.model;
    EXPECT_NE(p->source.find("huggingface.co/"), std::string::npos);
  }
  EXPECT_EQ(find_preset("mixtral-8x7b")->source,
            "https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json");
  EXPECT_EQ(find_preset("qwen3-30b-a3b")->source,
            "https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json");
  EXPECT_FALSE(find_preset("llama3-8b")->moe);
  const std::string list = format_preset_list();
  EXPECT_NE(list.find("mixtral-8x7b"), std::string::npos);
  EXPECT_NE(list.find("256 routed experts, top-8"), std::string::npos);
}

TEST(MoePresets, RoutingGroupsTheExpertLayersBesideTheDenseOnes) {
  const RunRequest r = request_of({"--preset", "deepseek-v3", "--tokens", "16,4096", "--routing",
                                   "balanced", "--kernel", "hgemm_tn"});
  const std::vector<Shape>& s = r.runs[0].shapes;
  ASSERT_EQ(s.size(), 2u * 8);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_FALSE(s[i].grouped) << s[i].preset.layer;
    EXPECT_EQ(s[i].m, 16) << s[i].preset.layer;
  }
  EXPECT_EQ(s[6].preset, (PresetLabel{"deepseek-v3", "moe_gate_up_proj"}));
  EXPECT_EQ(s[7].preset, (PresetLabel{"deepseek-v3", "moe_down_proj"}));
  ASSERT_TRUE(s[6].grouped && s[7].grouped);
  EXPECT_EQ(s[6].grouped, s[7].grouped) << "one routing per token count, both layers";
  EXPECT_EQ(s[6].m, 16 * 8);
  EXPECT_EQ((std::tuple{s[6].n, s[6].k, s[7].n, s[7].k}), (std::tuple{4096, 7168, 7168, 2048}));
  EXPECT_EQ(s[15].grouped->grouping.m, std::vector<int64_t>(256, 128)) << "4096 * 8 / 256";
  EXPECT_EQ(s[15].grouped->routing->topk, 8);

  // Dense models in the list plan as they do alone; MoE ones get their grouped layers.
  const RunRequest mixed =
      request_of({"--preset", "llama3-8b,mixtral-8x7b", "--tokens", "64", "--routing", "random"});
  ASSERT_EQ(mixed.runs[0].shapes.size(), 4u + 4u);
  EXPECT_FALSE(mixed.runs[0].shapes[3].grouped);
  EXPECT_EQ(mixed.runs[0].shapes[6].grouped->grouping.groups(), 8);
  EXPECT_EQ(mixed.runs[0].shapes[6].grouped->grouping.total_m(), 64 * 2);

  EXPECT_EQ(usage_error_of({"--preset", "llama3-8b", "--tokens", "64", "--routing", "random"}),
            "--routing routes tokens to experts, and no preset named (llama3-8b) has any "
            "(Mixture-of-Experts presets: deepseek-v3, mixtral-8x7b, qwen3-30b-a3b)");
  EXPECT_EQ(
      usage_error_of({"--preset", "deepseek-v3", "--tokens", "64", "--group-layout", "masked"}),
      "--group-layout applies to grouped cases: with --preset, add --routing (balanced, "
      "zipf:S or random) to group the expert layers");
  EXPECT_EQ(usage_error_of({"--preset", "deepseek-v3", "--tokens", "64", "--routing", "random",
                            "--topk", "2"}),
            "--topk: --preset takes the experts, top-k, N and K of its expert layers from the "
            "model");
}

TEST(MoePresets, WithoutRoutingNothingChanges) {
  // configs/llm_*.json and their reports rest on today's single-expert expert_* rows.
  const RunRequest plain = request_of({"--preset", "deepseek-v3", "--tokens", "1,4096"});
  const std::vector<Shape> before = preset_shapes({"deepseek-v3"}, {1, 4096}, "");
  ASSERT_EQ(plain.runs[0].shapes.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_FALSE(plain.runs[0].shapes[i].grouped);
    EXPECT_EQ(plain.runs[0].shapes[i].preset, before[i].preset);
    EXPECT_EQ(plain.runs[0].shapes[i].m, before[i].m);
  }
  EXPECT_EQ(before[6].preset.layer, "expert_gate_up_proj");
  EXPECT_EQ(before[6].m, 1) << "M = tokens: one expert's GEMM";
}

TEST(GroupedPlan, GroupsKeyRowsAndTheSkipDecision) {
  const KernelRegistry reg = make_registry();
  // By glob: the grouped problems get only the baseline's row; named exactly: the kernel's row.
  const Plan glob = plan_of(request_of({"--preset", "deepseek-v3", "--tokens", "16", "--routing",
                                        "zipf:1.2", "--kernel", "hgemm_*", "--dtype", "bf16"}),
                            reg);
  ASSERT_EQ(glob.groups.size(), 8u);
  EXPECT_EQ(glob.groups[0].kernels.size(), 2u) << "dense: both kernels";
  const ProblemGroup& g = glob.groups[6];
  ASSERT_TRUE(g.grouped);
  EXPECT_TRUE(g.kernels.empty());
  EXPECT_EQ(g.problem.layout, Layout::tn);
  EXPECT_EQ(g.problem.dtype, DType::bf16);
  EXPECT_EQ(g.problem.flops(), 2.0 * 16 * 8 * 4096 * 7168) << "2 * sum(M_g) * N * K";
  // bf16: cuBLAS runs it, two baseline rows (the loop, the grouped API), no kernel row by glob.
  EXPECT_EQ(why_group_cannot_run(g), "");
  EXPECT_TRUE(has_grouped_api_row(g));
  EXPECT_FALSE(has_grouped_api_row(glob.groups[0]));
  EXPECT_EQ(why_group_cannot_run(glob.groups[0]), "");
  EXPECT_EQ(glob.row_count(), 6u * 3 + 2u * 2);
  EXPECT_NE(format_plan(glob).find(std::string(kGroupedApiKernel) + " "), std::string::npos);

  // FP8: cuBLAS has no grouped FP8; the case runs, its one baseline row the cuBLASLt loop.
  const Plan fp8 = plan_of(
      request_of({"--preset", "deepseek-v3", "--tokens", "16", "--kernel", "cublas", "--dtype",
                  "e4m3", "--scale", "block128", "--routing", "balanced", "--layers", "moe_*"}),
      reg);
  ASSERT_EQ(fp8.groups.size(), 2u);
  for (const ProblemGroup& f : fp8.groups) {
    ASSERT_TRUE(f.grouped);
    EXPECT_EQ(why_group_cannot_run(f), "");
    EXPECT_FALSE(has_grouped_api_row(f));
    EXPECT_EQ(group_row_count(f), 1u) << "the cublas row only";
  }
  EXPECT_EQ(fp8.row_count(), 2u);
  const std::string fp8_listing = format_plan(fp8);
  EXPECT_EQ(fp8_listing.find("\n" + std::string(kGroupedApiKernel) + " "), std::string::npos)
      << "no cublas_grouped row: " << fp8_listing;
  EXPECT_NE(fp8_listing.find(kGroupedFp8BaselineNote), std::string::npos) << fp8_listing;
  EXPECT_NE(fp8_listing.find(kGroupedFp8NoApiReason), std::string::npos) << fp8_listing;
  EXPECT_EQ(fp8_listing.find("cuBLAS runs them two ways"), std::string::npos)
      << "no f16/bf16/f32 grouped case in this plan";

  const Plan named = plan_of(request_of({"--groups", "2", "--group-m", "4,5", "--n", "64", "--k",
                                         "64", "--kernel", "hgemm_tn,hgemm_tn_wide"}),
                             reg);
  ASSERT_EQ(named.groups.size(), 1u) << "both kernels' native f16/f32: one problem";
  EXPECT_EQ(named.groups[0].kernels.size(), 2u) << "named exactly: rows, skipped with the reason";

  // Two routings of one total M are two problems; padding does not change the FLOP.
  RunRequest two = request_of({"--tokens", "64", "--topk", "2", "--experts", "8", "--routing",
                               "random", "--n", "64", "--k", "64", "--kernel", "cublas"});
  const RunRequest zipf =
      request_of({"--tokens", "64", "--topk", "2", "--experts", "8", "--routing", "zipf:1.2", "--n",
                  "64", "--k", "64", "--kernel", "cublas", "--group-align", "128"});
  two.runs[0].shapes.push_back(zipf.runs[0].shapes[0]);
  const Plan p = plan_of(two, reg);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0].problem.m, p.groups[1].problem.m);
  EXPECT_EQ(p.groups[0].problem.flops(), p.groups[1].problem.flops());
  EXPECT_NE(plan_hash(plan_of(request_of({"--tokens", "64", "--topk", "2", "--experts", "8",
                                          "--routing", "random", "--n", "64", "--k", "64"}),
                              reg)),
            plan_hash(plan_of(request_of({"--tokens", "64", "--topk", "2", "--experts", "8",
                                          "--routing", "zipf:1", "--n", "64", "--k", "64"}),
                              reg)));
  const std::string listing = format_plan(glob);
  EXPECT_NE(listing.find("deepseek-v3 moe_gate_up_proj G256 m "), std::string::npos) << listing;
  EXPECT_NE(listing.find("cuBLAS runs them two ways"), std::string::npos) << listing;
}

// A kernel that declares a group layout (KernelInfo::group_layouts) gets a row on the grouped
// cases of that layout, matched by a glob too, and none on dense cases or the other layout unless
// named; the dense kernels keep the rule above.
TEST(GroupedPlan, GroupedKernelsGetTheRowsOfTheirLayouts) {
  KernelRegistry reg = make_registry();
  KernelInfo grouped{"hgemm_grouped_x", "hgemm",      2,  "", {DType::f16, DType::bf16},
                     {Accum::f32},      {Layout::tn}, 90, {}, noop_launch};
  grouped.group_layouts = {GroupLayout::contiguous};
  grouped.group_tile_rows = 128;
  reg.add(grouped);
  const auto kernels_of = [&](std::vector<std::string> args) {
    const Plan plan = plan_of(request_of(std::move(args)), reg);
    std::vector<std::string> names;
    for (const ProblemGroup& g : plan.groups)
      for (const KernelInfo* k : g.kernels) names.push_back(k->name);
    return names;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(kernels_of({"--groups", "2", "--group-m", "4,5", "--n", "64", "--k", "64", "--kernel",
                        "hgemm_*"}),
            Names{"hgemm_grouped_x"});
  EXPECT_EQ(kernels_of({"--groups", "2", "--group-m", "4,5", "--n", "64", "--k", "64",
                        "--group-layout", "masked", "--kernel", "hgemm_*"}),
            Names{});
  EXPECT_EQ(kernels_of({"--groups", "2", "--group-m", "4,5", "--n", "64", "--k", "64",
                        "--group-layout", "masked", "--kernel", "hgemm_grouped_x"}),
            Names{"hgemm_grouped_x"})
      << "named exactly: its row, skipped by why_unsupported with the reason";
  EXPECT_EQ(
      kernels_of({"--m", "64", "--n", "64", "--k", "64", "--kernel", "hgemm_*", "--layout", "tn"}),
      (Names{"hgemm_tn", "hgemm_tn_wide"}))
      << "a dense case: no grouped kernel by glob";
  // A dispatcher that takes both (KernelInfo::dense_too) gets the rows of both by glob.
  KernelInfo both = grouped;
  both.name = "hgemm_both_x";
  both.dense_too = true;
  reg.add(both);
  EXPECT_EQ(kernels_of({"--groups", "2", "--group-m", "4,5", "--n", "64", "--k", "64", "--kernel",
                        "hgemm_*"}),
            (Names{"hgemm_both_x", "hgemm_grouped_x"}));
  EXPECT_EQ(
      kernels_of({"--m", "64", "--n", "64", "--k", "64", "--kernel", "hgemm_*", "--layout", "tn"}),
      (Names{"hgemm_tn", "hgemm_tn_wide", "hgemm_both_x"}))
      << "by rung, then name";
}

// An FP8 grouped case is skipped whole only where nothing runs it: its baseline (a cuBLASLt call
// per group, whose M is N) refuses N and K it cannot align, and no kernel of its own declares the
// case; every other FP8 grouped case runs, e4m3 x e5m2 and every scaling included.
TEST(GroupedPlan, AnFp8GroupedCaseNoProviderRunsIsSkippedWithOneLine) {
  KernelRegistry reg = make_registry();
  const auto first_group = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"--groups", "3", "--group-m", "5,0,7", "--dtype", "e4m3"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Plan plan = plan_of(request_of(args), reg);
    EXPECT_EQ(plan.groups.size(), 1u);
    return plan.groups.at(0);
  };
  for (const char* scale : {"tensor", "row", "block128"})
    EXPECT_EQ(why_group_cannot_run(first_group({"--n", "64", "--k", "32", "--scale", scale})), "")
        << scale;
  EXPECT_EQ(why_group_cannot_run(first_group({"--n", "64", "--k", "32", "--dtype-b", "e5m2"})), "");
  // A group's M is N: bf16 C needs N % 8 == 0 (the group's own rows are free: 5 and 7 here).
  const std::string n_bad = why_group_cannot_run(first_group({"--n", "100", "--k", "32"}));
  EXPECT_EQ(n_bad.find('\n'), std::string::npos) << "one line";
  EXPECT_NE(n_bad.find("grouped FP8 with no provider"), std::string::npos) << n_bad;
  EXPECT_NE(n_bad.find("M must be a multiple of 8"), std::string::npos) << n_bad;
  EXPECT_EQ(why_group_cannot_run(first_group({"--n", "100", "--k", "32", "--out", "f32"})), "")
      << "f32 C: N % 4 is enough";
  const std::string k_bad = why_group_cannot_run(first_group({"--n", "64", "--k", "40"}));
  EXPECT_NE(k_bad.find("K must be a multiple of 16"), std::string::npos) << k_bad;
  // A grouped FP8 kernel named for the case may run it: the case is not skipped whole.
  KernelInfo fp8_grouped{"fp8_grouped_x", "fp8gemm",    1,  "", {DType::e4m3},
                         {Accum::f32},    {Layout::tn}, 90, {}, noop_launch};
  fp8_grouped.group_layouts = {GroupLayout::contiguous};
  reg.add(fp8_grouped);
  const ProblemGroup with_kernel =
      first_group({"--n", "64", "--k", "40", "--kernel", "fp8_grouped_x"});
  ASSERT_EQ(with_kernel.kernels.size(), 1u);
  EXPECT_EQ(why_group_cannot_run(with_kernel), "");
  EXPECT_NE(why_group_cannot_run(first_group({"--n", "64", "--k", "40", "--group-layout", "masked",
                                              "--kernel", "fp8_grouped_x"})),
            "")
      << "the kernel does not take the masked layout";
}

TEST(GroupedPlan, StorageTooLargeForThirtyTwoBitIndexingIsRefused) {
  const KernelRegistry reg = make_registry();
  // 65536 groups padded to 65536 rows each: 2^32 stored rows.
  const RunRequest r = request_of({"--groups", "65536", "--m", "1", "--n", "8", "--k", "8",
                                   "--group-align", "65536", "--kernel", "cublas"});
  EXPECT_THROW(plan_of(r, reg), UsageError);
}

// Where each group's rows begin, and the cuBLAS grouped API's arrays (runner/grouped_gemm.hpp):
// host arithmetic, checked without a GPU.
TEST(GroupedStorage, RowOffsetsFollowTheLayout) {
  Grouping g;
  g.m = {5, 0, 130, 1};
  g.layout = GroupLayout::contiguous;
  g.align = 128;
  EXPECT_EQ(g.row_offsets(), (std::vector<int64_t>{0, 128, 128, 384}));
  EXPECT_EQ(g.stored_rows(), 512);
  g.align = 1;
  EXPECT_EQ(g.row_offsets(), (std::vector<int64_t>{0, 5, 5, 135}));
  g.layout = GroupLayout::masked;
  g.max_m = 130;
  EXPECT_EQ(g.row_offsets(), (std::vector<int64_t>{0, 130, 260, 390}));
}

TEST(GroupedStorage, EachGroupIsTheDenseProblemWithOperandsSwapped) {
  GemmProblem p;
  p.m = 300;
  p.n = 96;
  p.k = 72;
  p.layout = Layout::tn;
  p.dtype = DType::bf16;
  p.alpha = 0.5;
  const GemmProblem q = group_dense_problem(p, 37);
  EXPECT_EQ(q.m, 96);  // C_g row-major [37, 96] is the column-major (96, 37) B_g A_g^T
  EXPECT_EQ(q.n, 37);
  EXPECT_EQ(q.k, 72);
  EXPECT_EQ(q.lda(), 72);
  EXPECT_EQ(q.ldb(), 72);
  EXPECT_EQ(q.ldc(), 96);
  EXPECT_EQ(q.alpha, 0.5);
  EXPECT_EQ(q.dtype, DType::bf16);
}

// FP8: the operands trade places with their types and block128's blocks (on the weights, the
// dense A); tensor and row scales read the same either way.
TEST(GroupedStorage, AnFp8GroupsWeightsAreTheDenseAWithTheirTypeAndBlocks) {
  GemmProblem p;
  p.m = 300;
  p.n = 200;
  p.k = 300;
  p.layout = Layout::tn;
  p.dtype = DType::e5m2;
  p.dtype_b = DType::e4m3;  // the weights e4m3, the activations e5m2
  p.out = DType::bf16;
  p.scale = ScaleMode::block128;
  const GemmProblem q = group_dense_problem(p, 37);
  EXPECT_EQ(q.dtype, DType::e4m3) << "the dense A is the weights";
  EXPECT_EQ(q.b_type(), DType::e5m2) << "the dense B is the activations";
  EXPECT_EQ(q.out_type(), DType::bf16);
  EXPECT_TRUE(q.blocks_on_a);
  // The dense problem's scale counts are one expert's and one group's.
  EXPECT_EQ(scale_count_a(q), 2 * 3) << "ceil(200/128) x ceil(300/128) blocks of the weights";
  EXPECT_EQ(scale_count_b(q), 37 * 3) << "a 1x128 slice per row of the group";
  EXPECT_EQ(scale_count_a(p), 300 * 3);
  EXPECT_EQ(scale_count_b(p), 2 * 3);
  for (ScaleMode m : {ScaleMode::tensor, ScaleMode::row}) {
    p.scale = m;
    EXPECT_FALSE(group_dense_problem(p, 37).blocks_on_a) << to_string(m);
  }
  p.dtype_b.reset();
  EXPECT_FALSE(group_dense_problem(p, 37).dtype_b) << "one type: nothing to trade";
}

// The grouped FP8 scales (core/grouping.hpp, GroupedScales): A's follow its stored rows, padding
// included; B's are one dense B's per expert, stacked, so an expert's partial last 128-row block
// is its own; each group's dense problem finds its own at the offsets.
TEST(GroupedStorage, Fp8ScalesFollowTheRowsAndStackOneDenseBPerExpert) {
  Grouping g;
  g.m = {5, 0, 130, 1};
  g.layout = GroupLayout::contiguous;
  g.align = 128;  // rows from 0, 128, 128, 384; 512 stored
  const int64_t n = 200, k = 300, kb = 3, nb = 2;
  const GroupedScales t = grouped_scales(ScaleMode::tensor, g, n, k);
  EXPECT_EQ(t.a_count, 1);
  EXPECT_EQ(t.b_count(), 4) << "one per expert";
  EXPECT_EQ(t.a_offset(384), 0) << "every group shares A's one scale";
  EXPECT_EQ(t.b_offset(3), 3);
  const GroupedScales r = grouped_scales(ScaleMode::row, g, n, k);
  EXPECT_EQ(r.a_count, 512);
  EXPECT_EQ(r.b_count(), 4 * n);
  EXPECT_EQ(r.a_offset(384), 384);
  EXPECT_EQ(r.b_offset(2), 2 * n);
  const GroupedScales b = grouped_scales(ScaleMode::block128, g, n, k);
  EXPECT_EQ(b.a_count, 512 * kb);
  EXPECT_EQ(b.per_expert, nb * kb);
  EXPECT_EQ(b.b_count(), 4 * nb * kb) << "not ceil(4 * 200 / 128) blocks: no block spans experts";
  EXPECT_EQ(b.a_offset(128), 128 * kb);
  EXPECT_EQ(b.b_offset(3), 3 * nb * kb);
  // Each group's dense problem reads exactly its part: the last group's end is the arrays' end.
  GemmProblem p;
  p.m = g.total_m();
  p.n = n;
  p.k = k;
  p.layout = Layout::tn;
  p.dtype = DType::e4m3;
  p.out = DType::bf16;
  for (ScaleMode m : {ScaleMode::tensor, ScaleMode::row, ScaleMode::block128}) {
    p.scale = m;
    const GroupedScales s = grouped_scales(m, g, n, k);
    const std::vector<int64_t> first = g.row_offsets();
    const GemmProblem q = group_dense_problem(p, g.m[3]);
    EXPECT_EQ(s.b_offset(3) + scale_count_a(q), s.b_count()) << to_string(m);
    EXPECT_LE(s.a_offset(first[3]) + scale_count_b(q), s.a_count) << to_string(m);
    EXPECT_EQ(s.a_offset(first[2]) + scale_count_b(group_dense_problem(p, g.m[2])),
              m == ScaleMode::tensor ? 1 : s.a_offset(first[2] + 130))
        << to_string(m);
  }
  g.layout = GroupLayout::masked;
  g.max_m = 130;
  EXPECT_EQ(grouped_scales(ScaleMode::block128, g, n, k).a_count, 4 * 130 * kb);
}

TEST(GroupedStorage, TheGroupedApiBucketsEqualGroupsLargestFirst) {
  Grouping g;
  g.m = {16, 0, 64, 16, 64, 3};
  g.layout = GroupLayout::contiguous;
  g.align = 16;
  GemmProblem p;
  p.m = g.total_m();
  p.n = 48;
  p.k = 32;
  p.layout = Layout::tn;
  p.dtype = DType::f16;
  const GroupedBatchPlan b = plan_grouped_batch(p, g);
  EXPECT_EQ(b.group_size, (std::vector<int>{2, 2, 1}));  // M_g 64 (groups 2, 4), 16 (0, 3), 3
  EXPECT_EQ(b.n, (std::vector<int>{64, 16, 3}));
  EXPECT_EQ(b.m, (std::vector<int>{48, 48, 48}));
  EXPECT_EQ(b.ldc, (std::vector<int>{48, 48, 48}));
  ASSERT_EQ(b.problems(), 5);
  // Rows start at 0, 16, 16, 80, 96, 160 (each group padded to 16); group order within a bucket.
  EXPECT_EQ(b.a_offset, (std::vector<int64_t>{16 * 32, 96 * 32, 0, 80 * 32, 160 * 32}));
  EXPECT_EQ(b.c_offset, (std::vector<int64_t>{16 * 48, 96 * 48, 0, 80 * 48, 160 * 48}));
  EXPECT_EQ(b.b_offset,
            (std::vector<int64_t>{2 * 48 * 32, 4 * 48 * 32, 0, 3 * 48 * 32, 5 * 48 * 32}));
  g.m = {0, 0};
  EXPECT_EQ(plan_grouped_batch(p, g).problems(), 0) << "no group with rows: nothing to call";
}

// The device memory a grouped case will take (Runner::bytes_needed, main's check before any
// work): every stored row of A and C, all G experts' weights, the reference of the valid rows.
TEST(GroupedStorage, BytesNeededCountStoredRowsAndEveryExpert) {
  const KernelRegistry reg = make_registry();
  const Plan plan =
      plan_of(request_of({"--groups", "3", "--group-m", "5,0,130", "--group-align", "128", "--n",
                          "64", "--k", "32", "--dtype", "bf16", "--kernel", "cublas"}),
              reg);
  ASSERT_EQ(plan.groups.size(), 1u);
  const ProblemGroup& g = plan.groups[0];
  ASSERT_TRUE(g.grouped);
  const size_t stored = 128 + 256, valid = 135;  // 5 -> 128, 0 -> 0, 130 -> 256 rows
  EXPECT_EQ(Runner::bytes_needed(g),
            stored * 32 * 2 + 3 * 64 * 32 * 2 + stored * 64 * 2 + valid * 64 * (8 + 2));
}

// FP8 adds its scales to the device memory a grouped case takes: A's and every expert's, the
// cuBLASLt loop's block128 copies of each group's (its tokens' rows rounded up as cuBLASLt takes
// them, KB rounded up to 4 for the weights), the f32 values of A and of one expert while
// quantizing, and a second reference (of the unquantized inputs) when it verifies; A, its scales
// and C have kGroupedFp8SlackRows past the stored rows (the loop's padding of the last group).
TEST(GroupedStorage, BytesNeededCountTheFp8ScalesAndTheSetUp) {
  const KernelRegistry reg = make_registry();
  const auto group_of = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"--groups",      "3",   "--group-m", "5,0,130",
                                  "--group-align", "128", "--n",       "200",
                                  "--k",           "300", "--dtype",   "e4m3"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Plan plan = plan_of(request_of(args), reg);
    EXPECT_EQ(plan.groups.size(), 1u);
    return plan.groups.at(0);
  };
  const size_t stored = 384 + kGroupedFp8SlackRows, valid = 135, n = 200, k = 300, kb = 3;
  const size_t operands = stored * k + 3 * n * k + stored * n * 2;  // FP8 A, B; bf16 C
  const size_t set_up = (stored * k + n * k + stored) * 4;          // f32 A, one expert, scratch
  const size_t refs = valid * n * (8 + 2 + 8);  // reference, gather, unquantized reference
  const auto bytes_of = [&](const char* scale) {
    return Runner::bytes_needed(group_of({"--scale", scale}));
  };
  EXPECT_EQ(bytes_of("tensor"), operands + (1 + 3) * 4 + set_up + refs);
  EXPECT_EQ(bytes_of("row"), operands + (stored + 3 * n) * 4 + set_up + refs);
  const size_t block_scales = (stored * kb + 3 * 2 * kb) * 4;
  // 2 groups with rows, each up to kGroupedFp8SlackRows more; 2 blocks of the weights, KB4 4.
  const size_t lt_copies = ((valid + 2 * kGroupedFp8SlackRows) * kb + 2 * 2 * 4) * 4;
  EXPECT_EQ(bytes_of("block128"), operands + block_scales + lt_copies + set_up + refs);
  ProblemGroup unverified = group_of({"--scale", "block128"});
  unverified.measure.verify = false;
  EXPECT_EQ(Runner::bytes_needed(unverified), operands + block_scales + lt_copies + set_up);
}

// The experiment's switch (runner/grouped_gemm.hpp, GroupedAllocOrder): unset, empty and
// "current" are the default order, "legacy" the old one, and anything else is refused with the
// variable's name and what it takes.
TEST(GroupedStorage, TheAllocationOrderSwitchTakesLegacyAndRefusesTypos) {
  EXPECT_EQ(grouped_alloc_order_from(nullptr), GroupedAllocOrder::current);
  EXPECT_EQ(grouped_alloc_order_from(""), GroupedAllocOrder::current);
  EXPECT_EQ(grouped_alloc_order_from("current"), GroupedAllocOrder::current);
  EXPECT_EQ(grouped_alloc_order_from("legacy"), GroupedAllocOrder::legacy);
  try {
    grouped_alloc_order_from("Legacy");
    FAIL() << "a misspelt value was taken";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "GEMMBENCH_GROUPED_ALLOC: 'Legacy' is not one of current, legacy (or unset)");
  }
}
