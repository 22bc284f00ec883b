// What the user asked for, before expansion into cases: one RunSpec per run of a JSON config
// (or one built from the command line), plus measurement settings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/grouping.hpp"
#include "core/types.hpp"
#include "plan/routing.hpp"

namespace gemmbench {

enum class CacheMode { cold, hot };
const char* to_string(CacheMode c);
std::optional<CacheMode> parse_cache_mode(std::string_view s);

// The input values (docs/contributing.md#data). uniform is the default and the only one for
// headline figures. int3 is cutlass_profiler's default f16 fill (set_uniform(-3, 3, 0)):
// low-entropy data draws less power and runs faster on a power-capped GPU, so it exists only to
// compare with numbers measured that way, and every report labels it.
enum class DataDist { uniform, int3 };
const char* to_string(DataDist d);
std::optional<DataDist> parse_data_dist(std::string_view s);

// How samples relate to the board's power state (docs/contributing.md#power-regime). sustained (the
// default): each group is first run to steady state, then every provider of the group is sampled
// alone in alternating blocks (A B B A), each block starting with an untimed settle; the board
// sits at its power cap where the shape reaches it. burst: windows of interleaved samples from a
// cool board, kept only while the clock probe shows the clock held (docs/regimes.md).
enum class Regime { sustained, burst };
const char* to_string(Regime r);
std::optional<Regime> parse_regime(std::string_view s);
// What every kernel row is compared against (docs/baselines.md). cublas: one cublasGemmEx call
// with the default algorithm. cublaslt: cublasLtMatmul with the fastest of the heuristic's top
// candidates, tuned per problem before sampling. both: each kernel row carries both ratios.
// none: each kernel row is sampled alone and carries no ratio (the group's cublas row stays): a
// kernel's time when nothing but the cache preparation runs between its samples, as the cublas
// row's is.
enum class Baseline { cublas, cublaslt, both, none };
const char* to_string(Baseline b);
std::optional<Baseline> parse_baseline(std::string_view s);
inline constexpr const char* kBaselineNames = "cublas, cublaslt, both, none";
constexpr bool uses_cublas(Baseline b) {
  return b == Baseline::cublas || b == Baseline::both;
}
constexpr bool uses_cublaslt(Baseline b) {
  return b == Baseline::cublaslt || b == Baseline::both;
}

struct MeasureSettings {
  int warmup = 3;            // untimed launches of each provider before sampling
  int min_samples = 10;      // sample at least this many times...
  double min_time_s = 0.5;   // ...and until this much GPU time is accumulated,
  double max_time_s = 10.0;  // but stop once this much wall time was spent on the case
  // Sustained: GPU seconds of samples in one block of a provider (a row whose min_time_s is
  // smaller takes half of that per block), and the least untimed settle at each block's start
  // (0: the settle rule's own minimum, stats/regime.hpp).
  double block_time_s = 0.25;
  double settle_time_s = 0.0;
  CacheMode cache = CacheMode::cold;
  DataDist data = DataDist::uniform;
  Regime regime = Regime::sustained;
  bool verify = true;
  bool keep_samples = false;  // write every sample time to the JSON report (--keep-samples)
  Baseline baseline = Baseline::cublas;
};

struct MeasureOverrides {
  std::optional<int> warmup, min_samples;
  std::optional<double> min_time_s, max_time_s;
  std::optional<double> block_time_s, settle_time_s;
  std::optional<CacheMode> cache;
  std::optional<DataDist> data;
  std::optional<Regime> regime;
  std::optional<bool> verify;
  std::optional<bool> keep_samples;
  std::optional<Baseline> baseline;
  void apply_to(MeasureSettings& s) const;
};

// Throws UsageError when a setting is out of range; `where` prefixes the message.
void validate(const MeasureSettings& s, const std::string& where);

// The model layer a shape stands for (src/plan/presets.hpp); both empty for a plain shape.
struct PresetLabel {
  std::string model;  // "llama3-8b"
  std::string layer;  // "qkv_proj"
  bool empty() const { return model.empty(); }
  bool operator==(const PresetLabel& o) const { return model == o.model && layer == o.layer; }
};

// A grouped case as planned (docs/grouped.md): its groups (core/grouping.hpp) and, where a
// routing drew the M_g, that routing; absent where the M_g were given (--group-m) or equal
// (--groups with --m).
struct GroupedGemm {
  Grouping grouping;
  std::optional<Routing> routing;
  bool operator==(const GroupedGemm& o) const {
    return grouping == o.grouping && routing == o.routing;
  }
  // Everything that tells two grouped cases apart, as text: the plan's problem key, the plan
  // hash and the report reader's case key use it. "contiguous/1 m=3,0,5", "... zipf:1.2 T=16
  // k=2 seed=1".
  std::string key() const;
  // A few words for a table: "G8 m 0/1.5/5 x1.60 contiguous zipf:1.2", masked "masked<=512",
  // contiguous padding "contiguous/128 stored 1024" (the rows in memory, padding included).
  std::string brief() const;
};

struct Shape {
  int64_t m, n, k;  // a grouped shape: m = sum(M_g)
  PresetLabel preset = {};
  std::optional<GroupedGemm> grouped = {};
};

struct RunSpec {
  std::string name;
  std::vector<std::string> kernels;  // names, globs ('sgemm_*'), "all", "cublas"
  std::vector<Shape> shapes;
  std::vector<Layout> layouts;  // empty: each kernel's native layout
  std::vector<DType> dtypes;    // empty: each kernel's native dtype (A's type, and B's)
  std::vector<Accum> accums;    // empty: each kernel's native accumulate type
  // FP8 problems only: B's types (empty: each A type's own; a cross product with the FP8 dtypes,
  // e5m2 x e5m2 refused), the scalings to run (empty: tensor), C's type (empty: bf16) and fast
  // accumulation. Given for a run without an FP8 dtype they are a usage error.
  std::vector<DType> dtypes_b;
  std::vector<ScaleMode> scales;
  std::optional<DType> out;
  bool fast_accum = false;
  double alpha = 1.0, beta = 0.0;
  MeasureOverrides measure;
};

inline constexpr size_t kMaxShapes = 100000;

// Every (m, n, k) of the cross product of three dimension lists.
// Throws UsageError when it would exceed kMaxShapes.
std::vector<Shape> cross_shapes(const std::vector<int64_t>& m, const std::vector<int64_t>& n,
                                const std::vector<int64_t>& k);

}  // namespace gemmbench
