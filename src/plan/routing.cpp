#include "plan/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace gemmbench {

namespace {

// A Fenwick tree over the expert weights: a draw and its removal in O(log E), in integers.
class WeightTree {
 public:
  explicit WeightTree(const std::vector<uint64_t>& w) : tree_(w.size() + 1, 0) {
    for (size_t i = 0; i < w.size(); ++i) add(i, w[i]);
  }
  void add(size_t i, uint64_t v) {  // unsigned: a removal adds the two's complement
    for (size_t x = i + 1; x < tree_.size(); x += x & (~x + 1)) tree_[x] += v;
  }
  uint64_t total() const {
    uint64_t s = 0;
    for (size_t x = tree_.size() - 1; x > 0; x -= x & (~x + 1)) s += tree_[x];
    return s;
  }
  // The first expert whose running sum (in expert order) exceeds u, for u < total().
  size_t find(uint64_t u) const {
    size_t pos = 0, step = 1;
    while (step * 2 < tree_.size()) step *= 2;
    for (; step > 0; step /= 2)
      if (pos + step < tree_.size() && tree_[pos + step] <= u) {
        pos += step;
        u -= tree_[pos];
      }
    return pos;  // 0-based: the tree's node pos + 1
  }

 private:
  std::vector<uint64_t> tree_;
};

std::vector<uint64_t> expert_weights(const Routing& r) {
  std::vector<uint64_t> w(size_t(r.experts), 1);
  if (r.spec.mode == RoutingMode::zipf)
    for (size_t g = 0; g < w.size(); ++g) {
      const double x = std::ldexp(1.0, 40) / std::pow(double(g + 1), r.spec.zipf_s);
      w[g] = std::max<uint64_t>(1, uint64_t(std::floor(x)));
    }
  return w;
}

// zipf and random: each token draws topk distinct experts by weight.
std::vector<int64_t> route_by_weight(const Routing& r) {
  const std::vector<uint64_t> w = expert_weights(r);
  WeightTree tree(w);
  SplitMix64 rng{r.seed};
  std::vector<int64_t> m(size_t(r.experts), 0);
  std::vector<size_t> picked(size_t(r.topk));
  for (int64_t t = 0; t < r.tokens; ++t) {
    for (int64_t j = 0; j < r.topk; ++j) {
      const size_t g = tree.find(rng.below(tree.total()));
      picked[size_t(j)] = g;
      ++m[g];
      tree.add(g, ~w[g] + 1);  // removed until the token has its k experts
    }
    for (size_t g : picked) tree.add(g, w[g]);
  }
  return m;
}

}  // namespace

uint64_t SplitMix64::next() {
  state += 0x9e3779b97f4a7c15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::below(uint64_t n) {
  return uint64_t((unsigned __int128)next() * n >> 64);
}

std::string to_string(const RoutingSpec& r) {
  switch (r.mode) {
    case RoutingMode::balanced:
      return "balanced";
    case RoutingMode::zipf:
      return fmt::format("zipf:{:g}", r.zipf_s);
    case RoutingMode::random:
      return "random";
  }
  return "?";
}

std::optional<RoutingSpec> parse_routing(std::string_view text, std::string* why) {
  if (text == "balanced") return RoutingSpec{RoutingMode::balanced, 0};
  if (text == "random") return RoutingSpec{RoutingMode::random, 0};
  const auto fail = [&](const std::string& w) -> std::optional<RoutingSpec> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (text != "zipf" && !text.starts_with("zipf:"))
    return fail(fmt::format("'{}' is not one of {}", text, kRoutingNames));
  const std::string_view s = text.substr(4);
  double v = -1;
  bool ok = s.size() > 1 && s[0] == ':';
  if (ok) {  // from_chars: no locale, no leading '+' or spaces; the whole text or nothing
    const auto res = std::from_chars(s.data() + 1, s.data() + s.size(), v);
    ok = res.ec == std::errc() && res.ptr == s.data() + s.size() && std::isfinite(v) && v >= 0 &&
         v <= kMaxZipfS;
  }
  if (!ok)
    return fail(fmt::format("'{}' has no exponent S in [0, {:g}] (accepted: zipf:S, e.g. zipf:1.2)",
                            text, kMaxZipfS));
  return RoutingSpec{RoutingMode::zipf, v};
}

std::string check_routing(const Routing& r, const std::string& topk, const std::string& experts,
                          const std::string& tokens) {
  if (r.tokens < 1) return fmt::format("{}: must be at least 1 (got {})", tokens, r.tokens);
  if (r.topk < 1)
    return fmt::format("{}: must be at least 1 (got {}; each token goes to k experts)", topk,
                       r.topk);
  if (r.experts < 1 || r.experts > kMaxExperts)
    return fmt::format("{}: must be in [1, {}] (got {})", experts, kMaxExperts, r.experts);
  if (r.topk > r.experts)
    return fmt::format("{} {} is more than {} {} (a token picks each expert at most once)", topk,
                       r.topk, experts, r.experts);
  if (r.tokens > kMaxRoutedRows / r.topk)
    return fmt::format("{} {} x {} {} routes more than {} rows", tokens, r.tokens, topk, r.topk,
                       kMaxRoutedRows);
  return "";
}

std::vector<int64_t> route(const Routing& r) {
  if (r.spec.mode != RoutingMode::balanced) return route_by_weight(r);
  const int64_t rows = r.tokens * r.topk;
  std::vector<int64_t> m(size_t(r.experts), rows / r.experts);
  for (int64_t g = 0; g < rows % r.experts; ++g) ++m[size_t(g)];
  return m;
}

}  // namespace gemmbench
