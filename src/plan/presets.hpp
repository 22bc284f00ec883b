// LLM shapes by name (--preset, a config's "preset"): the GEMMs of a model's linear layers, with
// M = tokens and N, K from the model's public config.json.
//
// Layout TN, as PyTorch's y = x @ W.T stores its operands: A = activations x, (tokens, K) with K
// contiguous (op(A) = A^T of a (K, M) column-major array); B = weights W, (N, K) with K contiguous
// (op(B) = B of a (K, N) column-major array). Both are K-major, which is gemmbench's TN.
//
// Mixture-of-Experts models (deepseek-v3, mixtral-8x7b, qwen3-30b-a3b) carry their experts and
// top-k. Their expert layers are listed as one expert's GEMM (M = --tokens, the rows one expert
// gets), as they always were; with a routing (--routing, a config's "routing") they are planned
// instead as grouped GEMMs over all the experts, M_g drawn by the routing (docs/grouped.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/grouped.hpp"
#include "plan/spec.hpp"

namespace gemmbench {

struct PresetLayer {
  std::string layer;  // "qkv_proj"
  int64_t n, k;       // output features, input features
  std::string note;   // how N and K follow from config.json
  // An expert layer: the name of its grouped form ("moe_gate_up_proj"), planned over all the
  // experts when a routing is given; empty for a dense layer.
  std::string grouped = {};
};

// The routed experts of a MoE model: E experts, each token sent to k of them.
struct MoeExperts {
  int64_t experts = 0, topk = 0;
};

struct ModelPreset {
  std::string name;    // what --preset takes: "llama3-8b"
  std::string source;  // the config.json it comes from
  std::string config;  // the config.json fields used, with their values
  std::vector<PresetLayer> layers;
  std::optional<MoeExperts> moe = {};  // MoE models only
};

const std::vector<ModelPreset>& model_presets();
const ModelPreset* find_preset(const std::string& name);

// How a routing plans the expert layers of MoE presets (--preset with --routing).
struct ExpertRouting {
  RoutingSpec spec;
  uint64_t seed = kDefaultRoutingSeed;
  GroupLayoutOptions layout;
  KeyName name;  // names the keys in messages
};

// The shapes of `models` at each token count: model by model, then token count, then layer (in
// the table's order), each labelled. With `routing`, the expert layers of MoE models are grouped
// GEMMs over all their experts (labelled with the grouped name, one routing per model and token
// count shared by its expert layers); dense models and dense layers are as without. Throws
// UsageError for an unknown name (listing the known), an empty list or an empty token list, and a
// routing where no model has experts.
std::vector<Shape> preset_shapes(const std::vector<std::string>& models,
                                 const std::vector<int64_t>& tokens, const std::string& where,
                                 const ExpertRouting* routing = nullptr);

// Keeps the shapes whose preset layer matches one of `patterns` (names or fnmatch globs:
// "moe_*", "o_proj"), in order. Throws UsageError (prefixed by `where`) for an empty list, a
// shape without a preset label (the filter applies to --preset / "preset" runs only) and a pattern
// that matches no layer of the shapes, naming the layers there are.
void keep_preset_layers(std::vector<Shape>& shapes, const std::vector<std::string>& patterns,
                        const std::string& where);

// `gemmbench presets` output.
std::string format_preset_list();

}  // namespace gemmbench
