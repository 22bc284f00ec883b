#include "plan/presets.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>

#include <algorithm>

#include "core/errors.hpp"

namespace gemmbench {

namespace {

// Each model's N and K from its Hugging Face config.json (field names as they appear there).
// Fused projections are one GEMM, as vLLM and SGLang run them (QKV, gate+up, q_a+kv_a).
std::vector<ModelPreset> make_presets() {
  return {
      {"llama3-8b",
       "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json",
       "hidden_size 4096, num_attention_heads 32, num_key_value_heads 8, head_dim 128 "
       "(hidden_size / num_attention_heads), intermediate_size 14336",
       {
           {"qkv_proj", 6144, 4096, "(32 + 2*8) heads x 128, K = hidden_size"},
           {"o_proj", 4096, 4096, "N = hidden_size, K = 32 x 128"},
           {"gate_up_proj", 28672, 4096, "2 x intermediate_size, K = hidden_size"},
           {"down_proj", 4096, 14336, "N = hidden_size, K = intermediate_size"},
       }},
      {"llama3-70b",
       "https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json",
       "hidden_size 8192, num_attention_heads 64, num_key_value_heads 8, head_dim 128, "
       "intermediate_size 28672",
       {
           {"qkv_proj", 10240, 8192, "(64 + 2*8) heads x 128, K = hidden_size"},
           {"o_proj", 8192, 8192, "N = hidden_size, K = 64 x 128"},
           {"gate_up_proj", 57344, 8192, "2 x intermediate_size, K = hidden_size"},
           {"down_proj", 8192, 28672, "N = hidden_size, K = intermediate_size"},
       }},
      // MLA attention and MoE. The expert_* layers are one expert's GEMMs: M is then the tokens
      // routed to that expert (num_experts_per_tok 8 of n_routed_experts 256: tokens * 8 / 256 on
      // average), which --tokens states directly; with --routing they are grouped over all 256.
      // The shared expert (n_shared_experts 1) is a dense GEMM of every token with the same N, K.
      {"deepseek-v3",
       "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json",
       "hidden_size 7168, num_attention_heads 128, q_lora_rank 1536, kv_lora_rank 512, "
       "qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128, intermediate_size 18432 "
       "(the first_k_dense_replace 3 dense layers), moe_intermediate_size 2048, "
       "n_routed_experts 256, num_experts_per_tok 8",
       {
           {"q_a_kv_a_proj", 2112, 7168,
            "q_a_proj (q_lora_rank 1536) fused with kv_a_proj_with_mqa (kv_lora_rank 512 + "
            "qk_rope_head_dim 64)"},
           {"q_b_proj", 24576, 1536, "128 heads x (qk_nope 128 + qk_rope 64), K = q_lora_rank"},
           {"kv_b_proj", 32768, 512, "128 heads x (qk_nope 128 + v_head 128), K = kv_lora_rank"},
           {"o_proj", 7168, 16384, "N = hidden_size, K = 128 heads x v_head_dim 128"},
           {"dense_gate_up_proj", 36864, 7168, "2 x intermediate_size, K = hidden_size"},
           {"dense_down_proj", 7168, 18432, "N = hidden_size, K = intermediate_size"},
           {"expert_gate_up_proj", 4096, 7168, "2 x moe_intermediate_size, K = hidden_size",
            "moe_gate_up_proj"},
           {"expert_down_proj", 7168, 2048, "N = hidden_size, K = moe_intermediate_size",
            "moe_down_proj"},
       },
       MoeExperts{256, 8}},
      // Every MLP is a MoE layer of 8 experts (w1 and w3 fused as gate_up, w2 as down).
      {"mixtral-8x7b",
       "https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json",
       "hidden_size 4096, num_attention_heads 32, num_key_value_heads 8, head_dim 128 "
       "(hidden_size / num_attention_heads), intermediate_size 14336 (each expert's), "
       "num_local_experts 8, num_experts_per_tok 2",
       {
           {"qkv_proj", 6144, 4096, "(32 + 2*8) heads x 128, K = hidden_size"},
           {"o_proj", 4096, 4096, "N = hidden_size, K = 32 x 128"},
           {"expert_gate_up_proj", 28672, 4096, "w1, w3: 2 x intermediate_size, K = hidden_size",
            "moe_gate_up_proj"},
           {"expert_down_proj", 4096, 14336, "w2: N = hidden_size, K = intermediate_size",
            "moe_down_proj"},
       },
       MoeExperts{8, 2}},
      // Every layer sparse (decoder_sparse_step 1, mlp_only_layers []), no shared expert. Its
      // head_dim 128 is given, not hidden_size / heads (2048 / 32 = 64).
      {"qwen3-30b-a3b",
       "https://huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json",
       "hidden_size 2048, num_attention_heads 32, num_key_value_heads 4, head_dim 128, "
       "moe_intermediate_size 768, num_experts 128, num_experts_per_tok 8",
       {
           {"qkv_proj", 5120, 2048, "(32 + 2*4) heads x head_dim 128, K = hidden_size"},
           {"o_proj", 2048, 4096, "N = hidden_size, K = 32 heads x head_dim 128"},
           {"expert_gate_up_proj", 1536, 2048, "2 x moe_intermediate_size, K = hidden_size",
            "moe_gate_up_proj"},
           {"expert_down_proj", 2048, 768, "N = hidden_size, K = moe_intermediate_size",
            "moe_down_proj"},
       },
       MoeExperts{128, 8}},
  };
}

std::string known_names() {
  std::string s;
  for (const auto& p : model_presets()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> presets = make_presets();
  return presets;
}

const ModelPreset* find_preset(const std::string& name) {
  for (const auto& p : model_presets())
    if (p.name == name) return &p;
  return nullptr;
}

namespace {

// One model at one token count: its layers, the expert layers grouped when `routing` is given.
void add_model_shapes(const ModelPreset& p, int64_t tokens, const ExpertRouting* routing,
                      std::vector<Shape>& out) {
  std::optional<GroupedGemm> experts;  // one routing per (model, tokens), shared by its layers
  if (routing && p.moe) {
    const Routing r{routing->spec, tokens, p.moe->topk, p.moe->experts, routing->seed};
    const std::string why =
        check_routing(r, p.name + "'s top-k", p.name + "'s experts", routing->name("tokens"));
    if (!why.empty()) throw UsageError(why);
    experts = make_grouped(route(r), routing->layout, r, routing->name);
  }
  for (const auto& l : p.layers) {
    if (experts && !l.grouped.empty()) {
      out.push_back(
          {experts->grouping.total_m(), l.n, l.k, PresetLabel{p.name, l.grouped}, experts});
    } else {
      out.push_back({tokens, l.n, l.k, PresetLabel{p.name, l.layer}});
    }
  }
}

}  // namespace

std::vector<Shape> preset_shapes(const std::vector<std::string>& models,
                                 const std::vector<int64_t>& tokens, const std::string& where,
                                 const ExpertRouting* routing) {
  if (models.empty()) throw UsageError(where + "empty preset list (known: " + known_names() + ")");
  if (tokens.empty()) throw UsageError(where + "a preset needs tokens (the M of every layer)");
  std::vector<Shape> out;
  bool any_moe = false;
  for (const auto& name : models) {
    const ModelPreset* p = find_preset(name);
    if (!p)
      throw UsageError(where + "unknown preset '" + name + "' (known: " + known_names() +
                       "; `gemmbench presets` lists them)");
    any_moe = any_moe || p->moe;
    for (int64_t t : tokens) {
      add_model_shapes(*p, t, routing, out);
      if (out.size() > kMaxShapes)
        throw UsageError(where + "expands to more than " + std::to_string(kMaxShapes) + " shapes");
    }
  }
  if (routing && !any_moe) {
    std::string moe;
    for (const auto& p : model_presets())
      if (p.moe) moe += (moe.empty() ? "" : ", ") + p.name;
    throw UsageError(routing->name("routing") + " routes tokens to experts, and no preset named (" +
                     fmt::format("{}", fmt::join(models, ", ")) +
                     ") has any (Mixture-of-Experts presets: " + moe + ")");
  }
  return out;
}

void keep_preset_layers(std::vector<Shape>& shapes, const std::vector<std::string>& patterns,
                        const std::string& where) {
  if (patterns.empty())
    throw UsageError(where + "empty layer list (layer names or globs such as moe_*)");
  std::vector<std::string> names;  // the layers planned, each once, in order
  for (const Shape& s : shapes) {
    if (s.preset.empty())
      throw UsageError(where +
                       "selects layers of a preset: give --preset (\"preset\" in a config)");
    if (std::find(names.begin(), names.end(), s.preset.layer) == names.end())
      names.push_back(s.preset.layer);
  }
  const auto matches = [](const std::string& pattern, const std::string& layer) {
    return fnmatch(pattern.c_str(), layer.c_str(), 0) == 0;
  };
  for (const std::string& p : patterns)
    if (std::none_of(names.begin(), names.end(), [&](const auto& n) { return matches(p, n); }))
      throw UsageError(where + "'" + p + "' matches no layer (planned: " +
                       fmt::format("{}", fmt::join(names, ", ")) + ")");
  std::erase_if(shapes, [&](const Shape& s) {
    return std::none_of(patterns.begin(), patterns.end(),
                        [&](const auto& p) { return matches(p, s.preset.layer); });
  });
}

std::string format_preset_list() {
  std::string out =
      "LLM linear layers as GEMMs: M = tokens (--tokens), layout TN (PyTorch x @ W.T: A = "
      "activations (M,K), B = weights (N,K), both K-contiguous).\n";
  for (const auto& p : model_presets()) {
    out += fmt::format("\n{}  ({})\n  config.json: {}\n", p.name, p.source, p.config);
    if (p.moe)
      out += fmt::format(
          "  Mixture of Experts: {} routed experts, top-{}; expert_* layers are one expert's GEMM, "
          "with --routing they are planned as the grouped moe_* layers over all {}\n",
          p.moe->experts, p.moe->topk, p.moe->experts);
    out += fmt::format("  {:<20} {:>7} {:>7}  {}\n", "layer", "N", "K", "from");
    for (const auto& l : p.layers)
      out += fmt::format("  {:<20} {:>7} {:>7}  {}\n", l.layer, l.n, l.k, l.note);
  }
  out +=
      "\nExample: gemmbench --preset llama3-8b --tokens 1,16,128,4096 --kernel hgemm_tn "
      "--dtype f16,bf16 --accum f32 --dry-run\n"
      "Grouped expert layers: gemmbench --preset deepseek-v3 --tokens 4096 --routing zipf:1.2 "
      "--dtype bf16 --dry-run (docs/grouped.md)\n";
  return out;
}

}  // namespace gemmbench
