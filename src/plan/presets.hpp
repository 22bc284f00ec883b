// LLM shapes by name (--preset, a config's "preset"): the GEMMs of a model's linear layers, with
// M = tokens and N, K from the model's public config.json.
//
// Layout TN, as PyTorch's y = x @ W.T stores its operands: A = activations x, (tokens, K) with K
// contiguous (op(A) = A^T of a (K, M) column-major array); B = weights W, (N, K) with K contiguous
// (op(B) = B of a (K, N) column-major array). Both are K-major, which is gemmbench's TN.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/spec.hpp"

namespace gemmbench {

struct PresetLayer {
  std::string layer;  // "qkv_proj"
  int64_t n, k;       // output features, input features
  std::string note;   // how N and K follow from config.json
};

struct ModelPreset {
  std::string name;    // what --preset takes: "llama3-8b"
  std::string source;  // the config.json it comes from
  std::string config;  // the config.json fields used, with their values
  std::vector<PresetLayer> layers;
};

const std::vector<ModelPreset>& model_presets();
const ModelPreset* find_preset(const std::string& name);

// The shapes of `models` at each token count: model by model, then token count, then layer (in
// the table's order), each labelled. Throws UsageError for an unknown name (listing the known),
// an empty list or an empty token list.
std::vector<Shape> preset_shapes(const std::vector<std::string>& models,
                                 const std::vector<int64_t>& tokens, const std::string& where);

// `gemmbench presets` output.
std::string format_preset_list();

}  // namespace gemmbench
