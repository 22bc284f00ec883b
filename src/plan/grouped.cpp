#include "plan/grouped.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "plan/presets.hpp"

namespace gemmbench {

namespace {

// Largest padding multiple and masked rows per group: the kernels index with 32-bit integers.
constexpr int64_t kMaxGroupRows = (int64_t(1) << 31) - 1;

GroupLayoutOptions layout_options(const GroupRequest& r, const KeyName& name) {
  GroupLayoutOptions o;
  if (r.group_layout) {
    const auto l = parse_group_layout(*r.group_layout);
    if (!l)
      throw UsageError(fmt::format("{}: '{}' is not one of contiguous, masked",
                                   name("group_layout"), *r.group_layout));
    o.layout = *l;
  }
  if (r.group_align) {
    if (o.layout != GroupLayout::contiguous)
      throw UsageError(
          fmt::format("{} applies to {} contiguous (masked pads every group to {} rows)",
                      name("group_align"), name("group_layout"), name("group_max_m")));
    if (*r.group_align < 1 || *r.group_align > kMaxGroupRows)
      throw UsageError(fmt::format("{}: must be in [1, {}] (got {})", name("group_align"),
                                   kMaxGroupRows, *r.group_align));
    o.align = *r.group_align;
  }
  if (r.group_max_m) {
    if (o.layout != GroupLayout::masked)
      throw UsageError(fmt::format("{} applies to {} masked (contiguous stacks the groups' rows)",
                                   name("group_max_m"), name("group_layout")));
    if (*r.group_max_m < 1 || *r.group_max_m > kMaxGroupRows)
      throw UsageError(fmt::format("{}: must be in [1, {}] (got {})", name("group_max_m"),
                                   kMaxGroupRows, *r.group_max_m));
    o.max_m = r.group_max_m;
  }
  return o;
}

// The first grouped key the request gives, for "X needs ..." messages.
std::string first_key(const GroupRequest& r, const KeyName& name) {
  if (r.routing) return name("routing");
  if (r.groups) return name("groups");
  if (r.group_m) return name("group_m");
  return name("group_layout");
}

// --preset with --routing: the models' expert layers grouped.
std::vector<Shape> preset_grouped(const GroupRequest& r, const KeyName& name) {
  const std::pair<const char*, bool> model_keys[] = {{"groups", bool(r.groups)},
                                                     {"group_m", bool(r.group_m)},
                                                     {"m", bool(r.m)},
                                                     {"n", bool(r.n)},
                                                     {"k", bool(r.k)},
                                                     {"topk", bool(r.topk)},
                                                     {"experts", bool(r.experts)}};
  for (const auto& [key, given] : model_keys)
    if (given)
      throw UsageError(fmt::format(
          "{}: {} takes the experts, top-k, N and K of its expert layers from the model", name(key),
          name("preset")));
  if (!r.routing)
    throw UsageError(
        fmt::format("{} applies to grouped cases: with {}, add {} (balanced, zipf:S "
                    "or random) to group the expert layers",
                    first_key(r, name), name("preset"), name("routing")));
  std::string why;
  const auto spec = parse_routing(*r.routing, &why);
  if (!spec) throw UsageError(name("routing") + ": " + why);
  if (!r.tokens) throw UsageError(fmt::format("{} needs {}", name("preset"), name("tokens")));
  const ExpertRouting routing{*spec, r.routing_seed.value_or(kDefaultRoutingSeed),
                              layout_options(r, name), name};
  return preset_shapes(r.presets, *r.tokens, name("preset") + ": ", &routing);
}

// The M_g lists of the plain request, one per case, each with its routing where one drew it.
std::vector<std::pair<std::vector<int64_t>, std::optional<Routing>>> group_rows(
    const GroupRequest& r, const KeyName& name) {
  std::vector<std::pair<std::vector<int64_t>, std::optional<Routing>>> out;
  if (r.routing) {
    if (r.groups)
      throw UsageError(fmt::format("{}: with {} the experts are the groups (give {} E)",
                                   name("groups"), name("routing"), name("experts")));
    if (r.group_m || r.m)
      throw UsageError(fmt::format("{} draws the rows of each group: drop {}", name("routing"),
                                   name(r.group_m ? "group_m" : "m")));
    std::string why;
    const auto spec = parse_routing(*r.routing, &why);
    if (!spec) throw UsageError(name("routing") + ": " + why);
    if (!r.tokens || !r.topk || !r.experts)
      throw UsageError(fmt::format("{} needs {} T, {} k and {} E (or a MoE {})", name("routing"),
                                   name("tokens"), name("topk"), name("experts"), name("preset")));
    for (int64_t t : *r.tokens) {
      const Routing routing{*spec, t, *r.topk, *r.experts,
                            r.routing_seed.value_or(kDefaultRoutingSeed)};
      const std::string bad = check_routing(routing, name("topk"), name("experts"), name("tokens"));
      if (!bad.empty()) throw UsageError(bad);
      out.emplace_back(route(routing), routing);
    }
    return out;
  }
  const std::pair<const char*, bool> routing_keys[] = {{"tokens", bool(r.tokens)},
                                                       {"topk", bool(r.topk)},
                                                       {"experts", bool(r.experts)},
                                                       {"routing_seed", bool(r.routing_seed)}};
  for (const auto& [key, given] : routing_keys)
    if (given) throw UsageError(fmt::format("{} applies with {}", name(key), name("routing")));
  if (!r.groups)
    throw UsageError(fmt::format("{} needs {} G (or {} with {} T)", first_key(r, name),
                                 name("groups"), name("routing"), name("tokens")));
  const int64_t g = *r.groups;
  if (g < 1 || g > kMaxExperts)
    throw UsageError(
        fmt::format("{}: must be in [1, {}] (got {})", name("groups"), kMaxExperts, g));
  if (r.group_m && r.m)
    throw UsageError(fmt::format("give {} (each group's M) or {} (equal groups), not both",
                                 name("group_m"), name("m")));
  if (!r.group_m && !r.m)
    throw UsageError(fmt::format("{} needs {} (each group's M) or {} (G equal groups of M rows)",
                                 name("groups"), name("group_m"), name("m")));
  if (r.m) {
    for (int64_t m : *r.m) out.emplace_back(std::vector<int64_t>(size_t(g), m), std::nullopt);
    return out;
  }
  const std::vector<int64_t>& m = *r.group_m;
  if (int64_t(m.size()) != g)
    throw UsageError(fmt::format("{}: {} value{} for {} {} (one M per group)", name("group_m"),
                                 m.size(), m.size() == 1 ? "" : "s", name("groups"), g));
  for (int64_t x : m)
    if (x < 0)
      throw UsageError(
          fmt::format("{}: {} is negative (rows per group: integers >= 0)", name("group_m"), x));
  if (std::all_of(m.begin(), m.end(), [](int64_t x) { return x == 0; }))
    throw UsageError(fmt::format("{}: every group is empty (nothing to compute)", name("group_m")));
  out.emplace_back(m, std::nullopt);
  return out;
}

}  // namespace

KeyName cli_key_name() {
  return [](const std::string& key) {
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
  };
}

bool GroupRequest::any() const {
  return groups || group_m || routing || topk || experts || routing_seed || group_layout ||
         group_align || group_max_m;
}

GroupedGemm make_grouped(std::vector<int64_t> m, const GroupLayoutOptions& opts,
                         std::optional<Routing> routing, const KeyName& name) {
  GroupedGemm out{Grouping{std::move(m), opts.layout, 1, 0}, std::move(routing)};
  Grouping& g = out.grouping;
  if (opts.layout == GroupLayout::contiguous) {
    g.align = opts.align;
    return out;
  }
  const auto big = std::max_element(g.m.begin(), g.m.end());
  g.max_m = opts.max_m.value_or(std::max<int64_t>(1, *big));
  if (*big > g.max_m)
    throw UsageError(
        fmt::format("{} {} is below group {}'s {} rows (masked: every group's rows fit in max_m)",
                    name("group_max_m"), g.max_m, big - g.m.begin(), *big));
  return out;
}

std::vector<Shape> grouped_shapes(const GroupRequest& r, const KeyName& name) {
  if (!r.presets.empty()) return preset_grouped(r, name);
  const auto rows = group_rows(r, name);  // checks what each case's M_g need first
  const GroupLayoutOptions opts = layout_options(r, name);
  if (!r.n || !r.k)
    throw UsageError(fmt::format("{} needs {} and {} (the N and K every group shares)",
                                 first_key(r, name), name("n"), name("k")));
  std::vector<Shape> out;
  for (const auto& [m, routing] : rows) {
    const GroupedGemm grouped = make_grouped(m, opts, routing, name);
    for (int64_t n : *r.n)
      for (int64_t k : *r.k) {
        out.push_back({grouped.grouping.total_m(), n, k, {}, grouped});
        if (out.size() > kMaxShapes)
          throw UsageError(
              fmt::format("{} expands to more than {} shapes", first_key(r, name), kMaxShapes));
      }
  }
  return out;
}

}  // namespace gemmbench
