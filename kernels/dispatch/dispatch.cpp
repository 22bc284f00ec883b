// hgemm, sgemm and fp8gemm — the shape-aware kernels: one name a user can type that runs, for the
// case at hand, the best registered configuration, the way cuBLAS's heuristics choose its kernel.
//
// The choice is the rule table's (dispatch/rules.cpp, printed by `gemmbench list --rules`): a
// list of registered kernels, best first, derived from committed H100 measurements; the first
// whose supports() accepts the problem on this device runs. Every row of these kernels records the
// kernel chosen and the name of the rule that chose it (CaseResult::chosen_rule). The choice
// depends on the problem and the device only, so the runner's verified launch, warm-up and samples
// all run the same kernel; it is made on the host before the launch (a few comparisons) with the
// device's caps read once per device.
// Constraints: those of the chosen kernel; a problem no candidate runs is a skipped row whose
// reason lists every candidate's.
// Measured: bench_results/h100/2026-11-25_llm_{prefill,decode}_*.json.gz (docs/dispatch.md).
#include <algorithm>
#include <initializer_list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_runtime.h>

#include "common/sm90/grouped_launch.hpp"
#include "core/grouping.hpp"
#include "core/cuda_check.hpp"
#include "dispatch/rules.hpp"
#include "core/registry.hpp"
#include "core/rule_table.hpp"

namespace gemmbench {
namespace {

using CandidatesFn = std::vector<RuleCandidate> (*)(const GemmProblem&, const DeviceCaps&);

// The first candidate, best first, that why_unsupported accepts (with `grouping` for a grouped
// case); else no kernel and every candidate's reason, after `none`.
DispatchChoice first_that_runs(const std::vector<RuleCandidate>& candidates, const GemmProblem& p,
                               const DeviceCaps& caps, const Grouping* grouping, const char* none) {
  DispatchChoice out;
  for (const RuleCandidate& c : candidates) {
    const KernelInfo* k = KernelRegistry::instance().find(c.kernel);
    if (!k) continue;  // a candidate this build does not register
    const std::string why = why_unsupported(*k, p, caps, grouping);
    if (why.empty()) {
      out.kernel = k;
      out.rule = c.rule;
      out.why.clear();
      return out;
    }
    out.why += (out.why.empty() ? "" : "; ") + c.kernel + ": " + why;
  }
  out.why = std::string(none) + " (" + out.why + ")";
  return out;
}

DispatchChoice choose_with(CandidatesFn candidates, const GemmProblem& p, const DeviceCaps& caps) {
  return first_that_runs(candidates(p, caps), p, caps, nullptr,
                         "no candidate of the rule table runs this case");
}

// A choice kept per key (the device and every field the candidates' checks read): a Hopper
// kernel's supports() asks the driver about its image, which is no call for every timed launch.
// One cache per caller: each passes its own lambda type.
template <class Key, class Choose>
const KernelInfo* cached_choice(const Key& key, Choose&& choose_now) {
  static std::mutex mutex;
  static std::map<Key, DispatchChoice> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, choose_now()).first;
  if (!it->second.kernel) throw std::invalid_argument(it->second.why);
  return it->second.kernel;
}

template <CandidatesFn F>
DispatchChoice choose(const GemmProblem& p, const DeviceCaps& caps) {
  return choose_with(F, p, caps);
}

template <CandidatesFn F>
std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  const DispatchChoice c = choose_with(F, p, caps);
  return c.kernel ? std::string() : c.why;
}

// The launcher's choice, kept per (device, problem). Every field a candidate's supports() reads
// is in the key (B's and C's types too: F2 takes e4m3 x e4m3 only).
template <CandidatesFn F>
const KernelInfo* chosen_for_launch(const GemmProblem& p) {
  using Key = std::tuple<int, int64_t, int64_t, int64_t, int, int, int, int, int, int, bool>;
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  const Key key{dev,
                p.m,
                p.n,
                p.k,
                int(p.layout),
                int(p.dtype),
                int(p.b_type()),
                int(p.out_type()),
                int(p.accum),
                int(p.scale),
                p.fast_accum};
  return cached_choice(key, [&] { return choose_with(F, p, current_device_caps()); });
}

// A dispatcher's launch of its choice k, noted for the row (note_dispatched).
void launch_noted(const KernelInfo* k, const GemmArgs& args, cudaStream_t stream) {
  note_dispatched(k);
  k->launch(args, stream);
}

template <CandidatesFn F>
void launch(const GemmArgs& args, cudaStream_t stream) {
  launch_noted(chosen_for_launch<F>(args.problem), args, stream);
}

// ---- Grouped cases (docs/grouped.md): hgemm and fp8gemm run their grouped Hopper kernels ----
// A dispatcher's grouped candidates, best first, with the rule name rows record: kernels
// declaring both group layouts. The runner builds a dispatcher's launch tables in its choice's
// tile rows (grouped_launch_tile_rows: 128, or the pair's 256), and the dispatchers' own
// group_tile_rows, 128, is the register kernels'.
constexpr int kGroupTileRows = 128;

DispatchChoice choose_grouped_among(const std::vector<RuleCandidate>& candidates,
                                    const GemmProblem& p, const Grouping& g,
                                    const DeviceCaps& caps) {
  std::vector<RuleCandidate> found;
  for (const RuleCandidate& c : candidates)
    if (KernelRegistry::instance().find(c.kernel)) found.push_back(c);
  return first_that_runs(found, p, caps, &g, "no grouped candidate runs this case");
}

// The TMA-store variants (_tma) stage each tile in shared memory and store it while the next
// tile's mainloop runs, in whole 64-row boxes: padding rows are stored too. Measured on an H200
// (bench_results/h200/2026-11-29_moe_{fp8_,}epi_ab.json.gz, the MoE presets' expert layers): where
// at least half the stored rows are the groups' own, _tma ran 1.047x the register epilogue in FP8
// (geomean of 12, 0.971-1.088) and 1.026x in bf16 (8, 0.998-1.083); where three quarters or more
// are padding (masked decode, experts of 1-32 rows padded to 128) 0.990x (12, 0.961-1.006) and
// 0.985x (4). So the dispatchers try _tma first only on groupings whose rows are mostly their own;
// where _tma refuses the case (fp8gemm's: a row tile reaching another group; both: beta != 0,
// N % 8), the register-epilogue kernel runs it. hgemm's _tma takes any grouping since the tenth
// session, and runs first only where the whole-tile check passes (grouped_whole_tiles, below).
bool grouped_rows_mostly_own(const Grouping& g) {
  return 2 * g.total_m() >= g.stored_rows();
}

// hgemm's _tma takes any grouping since 2026-11-30 (tenth session): a group's last rows are
// stored from the fragment. Where every group's stored rows are whole 128-row tiles (what _tma
// took before) it runs first, as measured above; on other groupings whose rows are mostly their
// own and fill at least half of their 128-row tiles it runs after the pairs and before the
// register kernel: on the MoE presets at 4096 tokens, align 1, zipf:1.2 and random (tile rows
// 57-96% full), 0.996-1.035x the register kernel (12 layers, bench_results/h200/
// 2026-11-30_moe_tma_edge_ab_*.json.gz; the global pair ran 0.952-1.191x there). Groupings of
// fewer rows a tile (128 tokens and fewer, DeepSeek-V3 at 512) were not measured with it.
bool grouped_whole_tiles(const GemmProblem& p, const Grouping& g) {
  return sm90_grouped_tile_store_unsupported(p, g, kGroupTileRows, "hgemm_grouped_sm90").empty();
}
bool grouped_tiles_half_full(const Grouping& g) {
  const int64_t tiles = group_tile_prefix(g, kGroupTileRows).back();
  return 2 * g.total_m() >= tiles * kGroupTileRows;
}

// The tile fitted to the group (_fit_trim: the tokens on wgmma's N, 32 of them a tile where the
// group has no more, each stage loading the group's own rows) where every group has 32 rows or
// fewer. Measured on H200s (bench_results/h200/2026-11-30_moe_fit_*.json.gz, the MoE presets'
// expert layers, bf16, align 1, sustained, geomeans of 6): contiguous, at 16 tokens 1.116x the
// register kernel (1.041-1.186), at 128 tokens balanced (4-32 rows a group) 1.012x (0.969-1.033);
// masked, 1.085x (1.011-1.191) and 1.021x (0.978-1.065); at 1 token 1.398x (1.236-2.078). Where
// groups have more rows it loses: 0.874-0.894x at 4096 tokens (_fit_ab_4096).
constexpr int64_t kFittedTileMaxRows = 32;  // _fit_trim's narrowest tile (its 32-row boxes)
bool grouped_rows_at_most(const Grouping& g, int64_t rows) {
  return std::all_of(g.m.begin(), g.m.end(), [rows](int64_t m) { return m <= rows; });
}

// The 2-CTA pair (hgemm_grouped_sm90_pair: two 128-row token tiles of a group on one weight
// tile, each CTA loading half of it and multicasting it) where at most 1/16 of its CTA-tiles
// would hold no rows of their group (a group of 128 rows or fewer, or a last 256-row tile with
// 128 rows or fewer, leaves the pair's second CTA idle for a whole tile). Measured on H200s
// against the register kernel (bf16, align 1, sustained; bench_results/h200/
// 2026-11-30_moe_pair_ab_*.json.gz, _moe_pair_line*.json.gz): with no tile idle 1.260x (16
// groups of 170 rows, N 4096, K 7168), 1.024x (of 1500), 1.002-1.054x (Mixtral balanced, Qwen3
// balanced at 4096 tokens); Mixtral at 4096 tokens zipf:1.2 (4.2% idle) 1.114x and 1.042x; 16
// groups of 1400 rows (8.3% idle) 0.967x, of 1100 (10%) 0.951x, of 600 (16.7%) 0.901x; Qwen3 at
// zipf:1.2 (23.6%) 0.903-0.938x, DeepSeek-V3 balanced (50%) 0.793-0.817x; Mixtral's down_proj
// and gate_up shapes put 16 groups of 170-1500 rows on the same sides. The line lies between
// 4.2% and 8.3%. Masked groupings (decode: a few rows a group) were not measured and keep the
// kernels before it.
constexpr int64_t kPairTileRows = 256;
bool grouped_pairs_filled(const Grouping& g) {
  const int64_t tiles = group_tile_prefix(g, kGroupTileRows).back();
  const int64_t pairs = group_tile_prefix(g, kPairTileRows).back();
  return pairs > 0 && 16 * (2 * pairs - tiles) <= 2 * pairs;
}

// The pair on the global pairing of 128-row tiles (hgemm_grouped_sm90_pairg: unit u is the
// walk's tiles 2u and 2u + 1; where both are one group's the CTAs share its weight tile, where
// they straddle two groups each loads its own) where the experts' weights are large (N * K at
// least 8 Mi elements) and at least 1/4 of the units share. Measured on H200s over the register
// kernel (bf16, align 1, sustained, each provider alone, gate_up / down; bench_results/h200/
// 2026-11-30_moe_pairg_*.json.gz, tenth session), by the share of units that share: DeepSeek-V3
// at 4096 tokens 32% (zipf:0.8) 1.073x / 1.040x, 34% (random) 1.140x / 1.079x, 38% (zipf:0.5)
// 1.115x / 1.053x, 42% (zipf:1.2) 1.082x / 1.021x, 45% (zipf:1.5) 1.040x / 1.018x, none
// (balanced) 0.928x / 0.989x; Mixtral at 512 tokens 17% (zipf:1.2) 0.926x / 1.060x, 50%
// (random) 1.059x / 1.115x, 67% (zipf:0.5) 0.996x / 1.063x; at 4096 91-94% 1.001-1.114x, ahead
// of the pair (0.955-1.088x) on all six. Qwen3's small experts (N * K 3 Mi and 1.5 Mi) lose at
// 56-66% shared: 0.952-1.021x. So the line lies between 17% and 32%.
constexpr int64_t kGlobalPairMinWeights = int64_t(1) << 23;
bool grouped_units_share(const GemmProblem& p, const Grouping& g) {
  if (p.n * p.k < kGlobalPairMinWeights) return false;
  const std::vector<int> prefix = group_tile_prefix(g, kGroupTileRows);
  int64_t shared = 0;
  for (size_t i = 0; i + 1 < prefix.size(); ++i)  // group i's tiles: [prefix[i], prefix[i + 1])
    shared += std::max(0, prefix[i + 1] - prefix[i] - (prefix[i] & 1)) / 2;  // units start even
  const int64_t units = (prefix.back() + 1) / 2;
  return units > 0 && 4 * shared >= units;
}

DispatchChoice choose_hgemm_grouped(const GemmProblem& p, const Grouping& g,
                                    const DeviceCaps& caps) {
  if (grouped_rows_at_most(g, kFittedTileMaxRows))
    return choose_grouped_among({{"hgemm_grouped_sm90_fit_trim", "grouped-fitted-tile-sm90"},
                                 {"hgemm_grouped_sm90", "grouped-persistent-sm90"}},
                                p, g, caps);
  std::vector<RuleCandidate> candidates;
  const bool tma_whole_tiles = grouped_rows_mostly_own(g) && grouped_whole_tiles(p, g);
  if (tma_whole_tiles) candidates.push_back({"hgemm_grouped_sm90_tma", "grouped-tma-store-sm90"});
  if (g.layout == GroupLayout::contiguous && grouped_units_share(p, g))
    candidates.push_back({"hgemm_grouped_sm90_pairg", "grouped-global-pair-sm90"});
  if (g.layout == GroupLayout::contiguous && grouped_pairs_filled(g))
    candidates.push_back({"hgemm_grouped_sm90_pair", "grouped-cluster-pair-sm90"});
  if (!tma_whole_tiles && grouped_rows_mostly_own(g) && grouped_tiles_half_full(g))
    candidates.push_back({"hgemm_grouped_sm90_tma", "grouped-tma-store-edge-sm90"});
  candidates.push_back({"hgemm_grouped_sm90", "grouped-persistent-sm90"});
  return choose_grouped_among(candidates, p, g, caps);
}

// FP8, contiguous: the 128 x 192 tile (_n192_tma) before the 128 x 128 one. Measured on an H200
// twice (bench_results/h200/2026-11-29_moe_fp8_n192_ab{,_repeat}.json.gz, the MoE presets' expert
// layers at 4096 tokens, every group padded to 128 rows): 1.038x and 1.053x _tma balanced (geomean
// of 6, 0.995-1.118), 1.052x and 1.048x zipf:1.2 (0.988-1.087); the one case it loses, DeepSeek-V3
// gate_up (N 4096), by 0.5-1.2%. Masked groupings whose rows are mostly their own were not
// measured, so they keep _tma.
DispatchChoice choose_fp8gemm_grouped(const GemmProblem& p, const Grouping& g,
                                      const DeviceCaps& caps) {
  if (grouped_rows_mostly_own(g) && g.layout == GroupLayout::contiguous)
    return choose_grouped_among({{"fp8gemm_grouped_sm90_n192_tma", "grouped-tma-store-n192-sm90"},
                                 {"fp8gemm_grouped_sm90_tma", "grouped-tma-store-sm90"},
                                 {"fp8gemm_grouped_sm90", "grouped-persistent-sm90"}},
                                p, g, caps);
  if (grouped_rows_mostly_own(g))
    return choose_grouped_among({{"fp8gemm_grouped_sm90_tma", "grouped-tma-store-sm90"},
                                 {"fp8gemm_grouped_sm90", "grouped-persistent-sm90"}},
                                p, g, caps);
  return choose_grouped_among({{"fp8gemm_grouped_sm90", "grouped-persistent-sm90"}}, p, g, caps);
}

using ChooseGroupedPtr = DispatchChoice (*)(const GemmProblem&, const Grouping&, const DeviceCaps&);

template <ChooseGroupedPtr F>
std::string supports_grouped(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  const DispatchChoice c = F(p, g, caps);
  return c.kernel ? std::string() : c.why;
}

// A dispatcher's launch: a grouped case goes to its grouped choice, a dense one to the rule
// table's. The grouped choice is kept per device, problem and grouping, the whole grouping: the
// candidates' checks read each M_g (whether every group's rows fill whole tiles), so two groupings
// of the same G and stored rows (balanced and zipf:1.2 routings of one layer at align 1) may get
// different kernels. A key of the counts alone once gave a zipf grouping the TMA-store kernel
// chosen for the balanced one run before it, whose whole-tile stores then wrote over the next
// group's rows (docs/grouped.md, "The cached choice").
template <CandidatesFn DENSE, ChooseGroupedPtr GROUPED>
void launch_dense_or_grouped(const GemmArgs& args, cudaStream_t stream) {
  if (!args.grouped || !args.grouped->grouping) {
    launch_noted(chosen_for_launch<DENSE>(args.problem), args, stream);
    return;
  }
  const GemmProblem& p = args.problem;
  const Grouping& g = *args.grouped->grouping;
  using Key = std::tuple<int, int64_t, int64_t, int64_t, int, int, int, int, int, bool, bool, int,
                         int64_t, int64_t, std::vector<int64_t>>;
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  const Key key{dev,
                p.m,
                p.n,
                p.k,
                int(p.dtype),
                int(p.b_type()),
                int(p.out_type()),
                int(p.accum),
                int(p.scale),
                p.fast_accum,
                p.beta != 0,
                int(g.layout),
                g.align,
                g.max_m,
                g.m};
  launch_noted(cached_choice(key, [&] { return GROUPED(p, g, current_device_caps()); }), args,
               stream);
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "hgemm",
    .family = "hgemm",
    .rung = 13,
    .summary = "shape-aware: runs the registered HGEMM the rule table picks for the case "
               "(GEMVs at 1-16 tokens, decode path, Hopper tile and stream-K by waves, layout; "
               "grouped cases hgemm_grouped_sm90, its TMA-store variant, its 2-CTA pairs or the "
               "fitted tile), rows record which",
    .dtypes = {DType::f16, DType::bf16},
    .accums = {Accum::f32, Accum::f16},
    .layouts = {Layout::tn, Layout::nn, Layout::nt, Layout::tt},
    .min_sm = 80,
    .supports = supports<hgemm_candidates>,
    .launch = launch_dense_or_grouped<hgemm_candidates, choose_hgemm_grouped>,
    .choose = choose<hgemm_candidates>,
    .group_layouts = {GroupLayout::contiguous, GroupLayout::masked},
    .supports_grouped = supports_grouped<choose_hgemm_grouped>,
    .group_tile_rows = kGroupTileRows,
    .dense_too = true,
    .choose_grouped = choose_hgemm_grouped,
});
GEMMBENCH_REGISTER_RULES(RuleTable{"hgemm", hgemm_rule_rows});

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "sgemm",
    .family = "sgemm",
    .rung = 10,
    .summary = "shape-aware: runs the SGEMM the rule table picks for the case (GEMV at one row, "
               "split-K at few rows, stream-K where 256x128 tiles leave a wave part idle), rows "
               "record which",
    .dtypes = {DType::f32},
    .accums = {Accum::f32},
    .layouts = {Layout::nn, Layout::nt, Layout::tn, Layout::tt},
    .min_sm = 50,
    .supports = supports<sgemm_candidates>,
    .launch = launch<sgemm_candidates>,
    .choose = choose<sgemm_candidates>,
});
GEMMBENCH_REGISTER_RULES(RuleTable{"sgemm", sgemm_rule_rows});

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "fp8gemm",
    .family = "fp8gemm",
    .rung = 5,
    .summary =
        "shape-aware FP8: runs the fp8gemm rung the rule table picks for the case (F4, "
        "the decode path, at 1-16 tokens, F3 on stream-K where 17-128 tokens leave few "
        "tiles, F3's variants above; e4m3 x e5m2 and e5m2 x e4m3 take the same rules; "
        "grouped block128 cases fp8gemm_grouped_sm90 or its TMA-store variants), rows record which",
    .dtypes = {DType::e4m3, DType::e5m2},
    .accums = {Accum::f32},
    .layouts = {Layout::tn},
    .min_sm = 89,
    .supports = supports<fp8gemm_candidates>,
    .launch = launch_dense_or_grouped<fp8gemm_candidates, choose_fp8gemm_grouped>,
    .choose = choose<fp8gemm_candidates>,
    .group_layouts = {GroupLayout::contiguous, GroupLayout::masked},
    .supports_grouped = supports_grouped<choose_fp8gemm_grouped>,
    .group_tile_rows = kGroupTileRows,
    .dense_too = true,
    .choose_grouped = choose_fp8gemm_grouped,
});
GEMMBENCH_REGISTER_RULES(RuleTable{"fp8gemm", fp8gemm_rule_rows});

}  // namespace gemmbench
