// LLM shape presets: the layers' N and K, expansion over tokens, their labels through the CLI,
// configs and the plan, and --dry-run's listing.
#include <gtest/gtest.h>

#include "cli/cli.hpp"
#include "config/config.hpp"
#include "core/errors.hpp"
#include "plan/plan.hpp"
#include "plan/presets.hpp"

using namespace gemmbench;

namespace {

void noop_launch(const GemmArgs&, cudaStream_t) {}

KernelRegistry make_registry() {
  KernelRegistry reg;
  reg.add(KernelInfo{"hgemm_tn",
                     "hgemm",
                     1,
                     "",
                     {DType::f16},
                     {Accum::f16, Accum::f32},
                     {Layout::tn},
                     80,
                     {},
                     noop_launch});
  return reg;
}

struct NK {
  std::string layer;
  int64_t n, k;
  bool operator==(const NK& o) const { return layer == o.layer && n == o.n && k == o.k; }
};

std::vector<NK> layers_of(const std::string& model) {
  std::vector<NK> out;
  for (const auto& l : find_preset(model)->layers) out.push_back({l.layer, l.n, l.k});
  return out;
}

std::string usage_error_of(std::vector<std::string> args) {
  args.insert(args.begin(), "gemmbench");
  try {
    resolve_request(parse_command_line(args).options);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(Presets, LayersFollowTheModelConfigs) {
  EXPECT_EQ(layers_of("llama3-8b"), (std::vector<NK>{{"qkv_proj", 6144, 4096},
                                                     {"o_proj", 4096, 4096},
                                                     {"gate_up_proj", 28672, 4096},
                                                     {"down_proj", 4096, 14336}}));
  EXPECT_EQ(layers_of("llama3-70b"), (std::vector<NK>{{"qkv_proj", 10240, 8192},
                                                      {"o_proj", 8192, 8192},
                                                      {"gate_up_proj", 57344, 8192},
                                                      {"down_proj", 8192, 28672}}));
  EXPECT_EQ(layers_of("deepseek-v3"), (std::vector<NK>{{"q_a_kv_a_proj", 1536 + 512 + 64, 7168},
                                                       {"q_b_proj", 128 * 192, 1536},
                                                       {"kv_b_proj", 128 * (128 + 128), 512},
                                                       {"o_proj", 7168, 128 * 128},
                                                       {"dense_gate_up_proj", 36864, 7168},
                                                       {"dense_down_proj", 7168, 18432},
                                                       {"expert_gate_up_proj", 4096, 7168},
                                                       {"expert_down_proj", 7168, 2048}}));
  for (const auto& p : model_presets())
    EXPECT_NE(p.source.find("huggingface.co/"), std::string::npos) << p.name;
  EXPECT_EQ(find_preset("llama3-9b"), nullptr);
}

TEST(Presets, ExpansionOrderAndLabels) {
  const auto shapes = preset_shapes({"llama3-8b", "deepseek-v3"}, {1, 128}, "");
  ASSERT_EQ(shapes.size(), 2u * 4 + 2u * 8);
  EXPECT_EQ(shapes[0].m, 1);
  EXPECT_EQ(shapes[0].n, 6144);
  EXPECT_EQ(shapes[0].k, 4096);
  EXPECT_EQ(shapes[0].preset, (PresetLabel{"llama3-8b", "qkv_proj"}));
  EXPECT_EQ(shapes[3].preset, (PresetLabel{"llama3-8b", "down_proj"}));
  EXPECT_EQ(shapes[4].m, 128) << "model, then tokens, then layer";
  EXPECT_EQ(shapes[4].preset.layer, "qkv_proj");
  EXPECT_EQ(shapes[8].preset, (PresetLabel{"deepseek-v3", "q_a_kv_a_proj"}));
  EXPECT_EQ(shapes.back().m, 128);
  EXPECT_EQ(shapes.back().n, 7168);
  EXPECT_EQ(shapes.back().k, 2048);
  EXPECT_THROW(preset_shapes({"gpt-5"}, {1}, ""), UsageError);
  EXPECT_THROW(preset_shapes({"llama3-8b"}, {}, ""), UsageError);
}

TEST(Presets, CommandLine) {
  const CliOutcome o =
      parse_command_line({"gemmbench", "--preset", "llama3-8b,llama3-70b", "--tokens", "1,16",
                          "--kernel", "hgemm_tn", "--dry-run"});
  EXPECT_TRUE(o.options.dry_run);
  const RunRequest r = resolve_request(o.options);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].shapes.size(), 2u * 2 * 4);
  EXPECT_EQ(r.runs[0].layouts, std::vector<Layout>{Layout::tn}) << "PyTorch's x @ W.T";
  EXPECT_EQ(r.runs[0].shapes[5].preset, (PresetLabel{"llama3-8b", "o_proj"}));
  EXPECT_EQ(r.runs[0].shapes[5].m, 16);

  EXPECT_NE(usage_error_of({"--preset", "llama3-8b"}).find("--tokens"), std::string::npos);
  EXPECT_NE(usage_error_of({"--tokens", "16"}).find("--preset"), std::string::npos);
  EXPECT_NE(usage_error_of({"--preset", "llama3-8b", "--tokens", "1", "--n", "5"}).find("--m/--n"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"--preset", "llama-8b", "--tokens", "1"}).find("unknown preset"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"--preset", "llama3-8b", "--tokens", "0"}), "(accepted)");
  EXPECT_NE(usage_error_of({"--config", "x.json", "--preset", "llama3-8b", "--tokens", "1"})
                .find("--config cannot be combined"),
            std::string::npos);
  EXPECT_EQ(parse_command_line({"gemmbench", "presets"}).kind, CliOutcome::Kind::presets);
  EXPECT_NE(format_preset_list().find("deepseek-v3"), std::string::npos);
}

TEST(Presets, ConfigKeys) {
  const SweepConfig c = parse_config_text(
      R"({"runs": [{"kernels": "hgemm_tn", "preset": "llama3-70b", "tokens": [1, 64]}]})", "t");
  ASSERT_EQ(c.runs[0].shapes.size(), 8u);
  EXPECT_EQ(c.runs[0].shapes[6].preset, (PresetLabel{"llama3-70b", "gate_up_proj"}));
  EXPECT_EQ(c.runs[0].shapes[6].m, 64);
  EXPECT_EQ(c.runs[0].layouts, std::vector<Layout>{Layout::tn});
  auto error_of = [](const char* text) -> std::string {
    try {
      parse_config_text(text, "t.json");
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(error_of(R"({"runs": [{"kernels": "all", "preset": "llama3-8b"}]})").find("tokens"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"runs": [{"kernels": "all", "preset": "x", "tokens": 1}]})")
                .find("unknown preset 'x'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "tokens": 1}]})")
                .find("tokens"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "preset": "llama3-8b", "tokens": 1}]})")
          .find("not both"),
      std::string::npos);
}

TEST(Presets, ShippedConfigsParse) {
  for (const char* f : {"configs/llm_prefill.json", "configs/llm_decode.json"}) {
    const SweepConfig c = load_config_file(std::string(GEMMBENCH_SOURCE_DIR) + "/" + f);
    ASSERT_FALSE(c.runs.empty()) << f;
    for (const auto& r : c.runs)
      for (const auto& s : r.shapes) EXPECT_FALSE(s.preset.empty()) << f;
  }
}

TEST(Presets, PlanKeepsEveryLayerLabelled) {
  // Two layers of one shape (and a plain duplicate): each layer keeps its own labelled group.
  RunSpec run;
  run.name = "r";
  run.kernels = {"hgemm_tn"};
  run.shapes = {{16, 4096, 4096, {"m1", "o_proj"}},
                {16, 4096, 4096, {"m1", "other_proj"}},
                {16, 4096, 4096, {}},
                {16, 4096, 4096, {}}};
  const KernelRegistry reg = make_registry();  // the plan points into it
  const Plan plan = build_plan({run}, MeasureSettings{}, {}, reg);
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_EQ(plan.groups[0].preset, (PresetLabel{"m1", "o_proj"}));
  EXPECT_EQ(plan.groups[1].preset, (PresetLabel{"m1", "other_proj"}));
  EXPECT_TRUE(plan.groups[2].preset.empty()) << "plain duplicates still merge";

  const std::string text = format_plan(plan);
  EXPECT_NE(text.find("hgemm_tn"), std::string::npos) << text;
  EXPECT_NE(text.find("16x4096x4096"), std::string::npos) << text;
  EXPECT_NE(text.find("m1 other_proj"), std::string::npos) << text;
  // 3 groups x (cuBLAS + hgemm_tn) = 6 rows of 2*16*4096*4096 FLOP = 3.221e+09.
  EXPECT_NE(text.find("6 cases (3 problems), 3.221e+09 FLOP"), std::string::npos) << text;
}

// --layers / "layers": a preset's layers by name or glob, the rest of the plan as without.
TEST(Presets, LayersKeepTheNamedOnes) {
  const RunRequest r = resolve_request(
      parse_command_line({"gemmbench", "--preset", "deepseek-v3,mixtral-8x7b", "--tokens", "512",
                          "--routing", "zipf:1.2", "--layers", "moe_*", "--dry-run"})
          .options);
  ASSERT_EQ(r.runs.size(), 1u);
  const auto& shapes = r.runs[0].shapes;
  ASSERT_EQ(shapes.size(), 4u) << "two grouped expert layers of each model";
  for (const Shape& s : shapes) {
    EXPECT_EQ(s.preset.layer.rfind("moe_", 0), 0u) << s.preset.layer;
    EXPECT_TRUE(s.grouped.has_value()) << s.preset.layer;
  }
  EXPECT_EQ(shapes[0].preset, (PresetLabel{"deepseek-v3", "moe_gate_up_proj"}));
  EXPECT_EQ(shapes[3].preset, (PresetLabel{"mixtral-8x7b", "moe_down_proj"}));

  // Names and globs together, in the preset's order whatever the list's.
  const RunRequest d =
      resolve_request(parse_command_line({"gemmbench", "--preset", "llama3-8b", "--tokens", "1,16",
                                          "--layers", "down_proj,qkv*"})
                          .options);
  ASSERT_EQ(d.runs[0].shapes.size(), 4u);
  EXPECT_EQ(d.runs[0].shapes[0].preset.layer, "qkv_proj");
  EXPECT_EQ(d.runs[0].shapes[1].preset.layer, "down_proj");
  EXPECT_EQ(d.runs[0].shapes[2].m, 16);

  EXPECT_EQ(usage_error_of({"--preset", "llama3-8b", "--tokens", "16", "--layers", "moe_*"}),
            "--layers: 'moe_*' matches no layer (planned: qkv_proj, o_proj, gate_up_proj, "
            "down_proj)");
  EXPECT_NE(usage_error_of({"--layers", "o_proj"}).find("give the preset too"), std::string::npos);
  EXPECT_NE(usage_error_of({"--groups", "2", "--group-m", "4,5", "--n", "64", "--k", "64",
                            "--layers", "o_proj"})
                .find("selects layers of a preset"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"--preset", "llama3-8b", "--tokens", "16", "--layers", ""})
                .find("empty layer list"),
            std::string::npos);
  EXPECT_NE(usage_error_of({"--config", "x.json", "--layers", "o_proj"}).find("--config cannot"),
            std::string::npos);

  const SweepConfig c = parse_config_text(
      R"({"runs": [{"kernels": "cublas", "preset": "qwen3-30b-a3b", "tokens": [16, 4096],
                    "routing": "balanced", "dtypes": ["bf16"], "layers": ["moe_down_proj"]}]})",
      "t");
  ASSERT_EQ(c.runs[0].shapes.size(), 2u);
  EXPECT_EQ(c.runs[0].shapes[1].preset, (PresetLabel{"qwen3-30b-a3b", "moe_down_proj"}));
  EXPECT_EQ(c.runs[0].shapes[1].grouped->grouping.groups(), 128);
  try {
    parse_config_text(
        R"({"runs": [{"kernels": "all", "shapes": [[1, 1, 1]], "layers": ["o_proj"]}]})", "t.json");
    ADD_FAILURE() << "layers without a preset was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: runs[0].layers: selects layers of a preset"),
              std::string::npos)
        << e.what();
  }
}
