#include "plan/spec.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.hpp"

namespace gemmbench {

const char* to_string(CacheMode c) {
  return c == CacheMode::cold ? "cold" : "hot";
}

std::optional<CacheMode> parse_cache_mode(std::string_view s) {
  if (s == "cold") return CacheMode::cold;
  if (s == "hot") return CacheMode::hot;
  return std::nullopt;
}

const char* to_string(DataDist d) {
  return d == DataDist::uniform ? "uniform" : "int3";
}

std::optional<DataDist> parse_data_dist(std::string_view s) {
  if (s == "uniform") return DataDist::uniform;
  if (s == "int3") return DataDist::int3;
  return std::nullopt;
}

const char* to_string(Regime r) {
  return r == Regime::sustained ? "sustained" : "burst";
}

std::optional<Regime> parse_regime(std::string_view s) {
  if (s == "sustained") return Regime::sustained;
  if (s == "burst") return Regime::burst;
  return std::nullopt;
}

const char* to_string(Baseline b) {
  switch (b) {
    case Baseline::cublas:
      return "cublas";
    case Baseline::cublaslt:
      return "cublaslt";
    case Baseline::both:
      return "both";
    case Baseline::none:
      return "none";
  }
  return "?";
}

std::optional<Baseline> parse_baseline(std::string_view s) {
  for (Baseline b : {Baseline::cublas, Baseline::cublaslt, Baseline::both, Baseline::none})
    if (s == to_string(b)) return b;
  return std::nullopt;
}

void MeasureOverrides::apply_to(MeasureSettings& s) const {
  if (warmup) s.warmup = *warmup;
  if (min_samples) s.min_samples = *min_samples;
  if (min_time_s) s.min_time_s = *min_time_s;
  if (max_time_s) s.max_time_s = *max_time_s;
  if (block_time_s) s.block_time_s = *block_time_s;
  if (settle_time_s) s.settle_time_s = *settle_time_s;
  if (cache) s.cache = *cache;
  if (data) s.data = *data;
  if (regime) s.regime = *regime;
  if (verify) s.verify = *verify;
  if (keep_samples) s.keep_samples = *keep_samples;
  if (baseline) s.baseline = *baseline;
}

void validate(const MeasureSettings& s, const std::string& where) {
  auto fail = [&](const std::string& m) { throw UsageError(where + m); };
  if (s.warmup < 0 || s.warmup > 100000)
    fail("warmup must be in [0, 100000] (got " + std::to_string(s.warmup) + ")");
  if (s.min_samples < 1 || s.min_samples > 1000000)
    fail("min-samples must be in [1, 1000000] (got " + std::to_string(s.min_samples) + ")");
  if (!std::isfinite(s.min_time_s) || s.min_time_s < 0 || s.min_time_s > 3600)
    fail("min-time must be in [0, 3600] seconds (got " + std::to_string(s.min_time_s) + ")");
  if (!std::isfinite(s.block_time_s) || s.block_time_s <= 0 || s.block_time_s > 600)
    fail("block-time must be in (0, 600] seconds (got " + std::to_string(s.block_time_s) + ")");
  if (!std::isfinite(s.settle_time_s) || s.settle_time_s < 0 || s.settle_time_s > 600)
    fail("settle-time must be in [0, 600] seconds (got " + std::to_string(s.settle_time_s) + ")");
  if (!std::isfinite(s.max_time_s) || s.max_time_s <= 0 || s.max_time_s > 86400)
    fail("max-time must be in (0, 86400] seconds (got " + std::to_string(s.max_time_s) + ")");
  if (s.max_time_s < s.min_time_s)
    fail("max-time (" + std::to_string(s.max_time_s) + " s) is below min-time (" +
         std::to_string(s.min_time_s) + " s)");
}

std::string GroupedGemm::key() const {
  const Grouping& g = grouping;
  std::string s =
      fmt::format("{}/{} m={}", to_string(g.layout),
                  g.layout == GroupLayout::masked ? g.max_m : g.align, fmt::join(g.m, ","));
  if (routing)
    s += fmt::format(" {} T={} k={} seed={}", to_string(routing->spec), routing->tokens,
                     routing->topk, routing->seed);
  return s;
}

std::string GroupedGemm::brief() const {
  const Grouping& g = grouping;
  const GroupStats st = group_stats(g);
  std::string s = fmt::format("G{} m {}/{:g}/{} x{:.2f} {}", g.groups(), st.min, st.median, st.max,
                              st.imbalance, to_string(g.layout));
  if (g.layout == GroupLayout::masked)
    s += fmt::format("<={}", g.max_m);
  else if (g.align > 1)  // and the rows in memory, padding included (a peer's build needs them)
    s += fmt::format("/{} stored {}", g.align, g.stored_rows());
  if (routing) s += " " + to_string(routing->spec);
  return s;
}

std::vector<Shape> cross_shapes(const std::vector<int64_t>& m, const std::vector<int64_t>& n,
                                const std::vector<int64_t>& k) {
  const double count = double(m.size()) * double(n.size()) * double(k.size());
  if (count > double(kMaxShapes))
    throw UsageError("the shape cross product has " + std::to_string(int64_t(count)) +
                     " entries; at most " + std::to_string(kMaxShapes) + " are allowed");
  std::vector<Shape> out;
  out.reserve(m.size() * n.size() * k.size());
  for (int64_t mm : m)
    for (int64_t nn : n)
      for (int64_t kk : k) out.push_back({mm, nn, kk});
  return out;
}

}  // namespace gemmbench
