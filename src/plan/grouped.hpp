// Grouped GEMM requests (docs/grouped.md): what a command line or a config's run asks for, checked
// and expanded into shapes, each carrying its GroupedGemm (plan/spec.hpp). The command line and
// the config fill the same GroupRequest, so both refuse the same mistakes with the same words,
// only the names of the keys differ ("--group-m", "cfg.json: runs[0].group_m").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/grouping.hpp"
#include "plan/routing.hpp"
#include "plan/spec.hpp"

namespace gemmbench {

// How a key is named in messages: the command line's "--group-max-m" for "group_max_m".
using KeyName = std::function<std::string(const std::string& key)>;
KeyName cli_key_name();

// The storage of the groups: layout, contiguous padding, masked rows per group (unset: the
// largest M_g of the case).
struct GroupLayoutOptions {
  GroupLayout layout = GroupLayout::contiguous;
  int64_t align = 1;
  std::optional<int64_t> max_m;
};

// Checks `m` against the layout options (a masked max_m below some M_g) and builds the case.
// Throws UsageError.
GroupedGemm make_grouped(std::vector<int64_t> m, const GroupLayoutOptions& opts,
                         std::optional<Routing> routing, const KeyName& name);

// Everything grouped a run may say, unchecked. Keys (command line: -- and dashes): groups,
// group_m, m, n, k, tokens, topk, experts, routing, routing_seed, group_layout, group_align,
// group_max_m; and the preset models, whose expert layers a routing groups.
struct GroupRequest {
  std::optional<int64_t> groups;
  std::optional<std::vector<int64_t>> group_m;  // explicit M_g (negatives refused here)
  std::optional<std::vector<int64_t>> m;        // with groups: G equal groups of each m
  std::optional<std::vector<int64_t>> n, k;     // the N and K every group shares
  std::optional<std::vector<int64_t>> tokens;
  std::optional<int64_t> topk, experts;
  std::optional<std::string> routing;
  std::optional<uint64_t> routing_seed;
  std::optional<std::string> group_layout;
  std::optional<int64_t> group_align, group_max_m;
  std::vector<std::string> presets;

  // A key that makes a run grouped was given (groups, group_m, routing or one of the options
  // that only grouped cases take).
  bool any() const;
};

// The run's shapes: plain grouped cases (G groups of the given or equal M_g, or a routing of T
// tokens over E experts), or a preset's layers with its expert layers grouped by the routing.
// Cases in the order: M list / tokens, then N, then K. Throws UsageError, one line, naming the
// keys with `name`.
std::vector<Shape> grouped_shapes(const GroupRequest& r, const KeyName& name);

}  // namespace gemmbench
