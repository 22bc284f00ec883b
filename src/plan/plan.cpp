#include "plan/plan.hpp"

#include <fnmatch.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/errors.hpp"
#include "core/grouping.hpp"
#include "plan/fp8_baseline.hpp"
#include "plan/ranges.hpp"
#include "util/edit_distance.hpp"

namespace gemmbench {

namespace {

bool is_glob(const std::string& s) {
  return s.find_first_of("*?[") != std::string::npos;
}

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

void check_size(const GemmProblem& p, const std::optional<GroupedGemm>& grouped,
                const std::string& where) {
  const auto check = [&](const char* name, int64_t r, int64_t c) {
    if (r * c > kMaxDim)  // r, c <= 2^31-1, so the product fits int64
      throw UsageError(where + "matrix " + name + " of " + p.shape_string() + " has " +
                       std::to_string(r * c) +
                       " elements; gemmbench indexes with 32-bit integers, at most 2147483647");
  };
  // A grouped case: A and C hold every stored row (padding included), B one expert at a time.
  const int64_t rows = grouped ? grouped->grouping.stored_rows() : p.m;
  if (rows > kMaxDim)
    throw UsageError(where + p.shape_string() + ": " + std::to_string(rows) +
                     " stored rows; gemmbench indexes with 32-bit integers, at most 2147483647");
  check("A", rows, p.k);
  check(grouped ? "B (one group's)" : "B", p.k, p.n);
  check("C", rows, p.n);
}

// Grouped cases are TN (weights [G, N, K] K-contiguous, as MoE layers store them).
void check_grouped_layouts(const RunSpec& run, const std::string& where) {
  const bool grouped = std::any_of(run.shapes.begin(), run.shapes.end(),
                                   [](const Shape& s) { return s.grouped.has_value(); });
  if (!grouped) return;
  for (Layout l : run.layouts)
    if (l != Layout::tn)
      throw UsageError(where + "grouped GEMM is TN only (--layout " + to_string(l) +
                       "): activations and the weights [G, N, K] K-contiguous, as MoE layers "
                       "store them");
}

// The FP8 options are checked before anything is planned: each one is a usage error where it
// cannot apply, rather than a row that silently ignores it.
void check_fp8_options(const RunSpec& run, const std::string& where) {
  const bool fp8 = std::any_of(run.dtypes.begin(), run.dtypes.end(), is_fp8);
  if (!fp8 && !run.dtypes_b.empty())
    throw UsageError(where + "--dtype-b applies to FP8 inputs only: add --dtype e4m3 or e5m2");
  if (!fp8 && (!run.scales.empty() || run.out || run.fast_accum))
    throw UsageError(where +
                     "--scale, --out and --fast-accum apply to FP8 inputs only: add --dtype e4m3");
  if (!fp8) return;
  for (DType b : run.dtypes_b)
    if (!is_fp8(b))
      throw UsageError(where + "--dtype-b: '" + to_string(b) + "' is not one of " +
                       fp8_dtype_names());
  for (DType a : run.dtypes) {
    if (!is_fp8(a)) continue;
    for (DType b : run.dtypes_b.empty() ? std::vector<DType>{a} : run.dtypes_b)
      if (const std::string why = fp8_pair_unsupported(a, b); !why.empty())
        throw UsageError(where + "--dtype " + to_string(a) +
                         (run.dtypes_b.empty() ? " without --dtype-b (B takes A's type)"
                                               : std::string(" with --dtype-b ") + to_string(b)) +
                         ": " + why);
  }
  if (run.out && !out_valid_for(DType::e4m3, *run.out))
    throw UsageError(where + "--out " + to_string(*run.out) +
                     ": an FP8 GEMM writes bf16, f16 or f32");
  for (Layout l : run.layouts)
    if (l != Layout::tn)
      throw UsageError(where + "FP8 GEMMs are TN only (--layout " + to_string(l) +
                       "): the tensor cores and cuBLASLt read 8-bit operands K-contiguous");
  if (run.fast_accum && contains(run.scales, ScaleMode::block128))
    throw UsageError(where +
                     "--fast-accum with --scale block128: the 128-blocks are applied when the "
                     "partial sums are promoted to f32, which fast accumulation skips (cuBLASLt "
                     "has no such mode either)");
}

}  // namespace

std::string why_group_cannot_run(const ProblemGroup& g) {
  if (!g.grouped || !is_fp8(g.problem.dtype)) return "";
  // One group stands for all: cuBLASLt's refusals read its M (= N), K and types, never its rows.
  const std::string why = cublaslt_fp8_unsupported(group_dense_problem(g.problem, 1));
  if (why.empty()) return "";
  const GemmProblem& p = g.problem;
  for (const KernelInfo* k : g.kernels)
    if (contains(k->group_layouts, g.grouped->grouping.layout) && contains(k->dtypes, p.dtype) &&
        contains(k->dtypes, p.b_type()))
      return "";  // a grouped FP8 kernel may run it: its row says whether it does
  return "grouped FP8 with no provider: its baseline, a cuBLASLt call per group (M = N, N = the "
         "group's rows), refuses it: " +
         why;
}

bool has_grouped_api_row(const ProblemGroup& g) {
  return g.grouped && !is_fp8(g.problem.dtype);
}

size_t group_row_count(const ProblemGroup& g) {
  return 1 + (has_grouped_api_row(g) ? 1 : 0) + (uses_cublaslt(g.measure.baseline) ? 1 : 0) +
         g.kernels.size();
}

size_t Plan::row_count() const {
  size_t n = 0;
  for (const auto& g : groups) n += group_row_count(g);
  return n;
}

std::vector<std::string> closest_kernel_names(const std::string& name, const KernelRegistry& reg,
                                              size_t count) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const KernelInfo* k : reg.all()) scored.emplace_back(edit_distance(name, k->name), k->name);
  scored.emplace_back(edit_distance(name, "cublas"), "cublas");
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < count; ++i) out.push_back(scored[i].second);
  return out;
}

std::vector<const KernelInfo*> match_kernels(const std::string& pattern,
                                             const KernelRegistry& reg) {
  if (pattern == "cublas") return {};
  if (pattern == "all") return reg.all();
  std::vector<const KernelInfo*> out;
  if (is_glob(pattern)) {
    for (const KernelInfo* k : reg.all())
      if (fnmatch(pattern.c_str(), k->name.c_str(), 0) == 0) out.push_back(k);
    if (out.empty())
      throw UsageError("kernel pattern '" + pattern +
                       "' matches no kernel (see `gemmbench list` for the names)");
    return out;
  }
  if (const KernelInfo* k = reg.find(pattern)) return {k};
  std::string hint;
  for (const auto& n : closest_kernel_names(pattern, reg)) hint += (hint.empty() ? "" : ", ") + n;
  throw UsageError("unknown kernel '" + pattern + "'; closest: " + hint +
                   " (`gemmbench list` shows all)");
}

std::string format_plan(const Plan& plan) {
  std::string out = fmt::format("{:<26} {:>20} {:>6} {:>10}  {}\n", "kernel", "MxNxK", "layout",
                                "type", "preset");
  double flop = 0;
  for (const ProblemGroup& g : plan.groups) {
    const GemmProblem& p = g.problem;
    const std::string type = p.type_string();
    std::string label = g.preset.empty() ? "" : g.preset.model + " " + g.preset.layer;
    if (g.grouped) label += (label.empty() ? "" : " ") + g.grouped->brief();
    auto line = [&](const std::string& kernel) {
      out += fmt::format("{:<26} {:>20} {:>6} {:>10}  {}\n", kernel, p.shape_string(),
                         to_string(p.layout), type, label);
      flop += p.flops();
    };
    line("cublas");
    if (has_grouped_api_row(g)) line(kGroupedApiKernel);
    for (const KernelInfo* k : g.kernels) line(k->name);
  }
  out += fmt::format(
      "\n{} cases ({} problems), {:.4g} FLOP in total (2*M*N*K, one GEMM per case; "
      "dry run: nothing ran)\n",
      plan.row_count(), plan.groups.size(), flop);
  const auto any_grouped = [&](bool fp8) {
    return std::any_of(plan.groups.begin(), plan.groups.end(), [&](const ProblemGroup& g) {
      return g.grouped.has_value() && is_fp8(g.problem.dtype) == fp8;
    });
  };
  if (any_grouped(false) || any_grouped(true))
    out +=
        "Grouped cases (G groups, M_g min/median/max, imbalance max/mean, layout): M = sum(M_g), "
        "FLOP 2*sum(M_g)*N*K; only kernels that declare the case's group layout take one\n";
  if (any_grouped(false))
    out += fmt::format(
        "f16, bf16 and f32 grouped cases: cuBLAS runs them two ways, cublas (one cublasGemmEx "
        "per group) and {} (cublasGemmGroupedBatchedEx), and the kernel rows divide by the "
        "faster\n",
        kGroupedApiKernel);
  if (any_grouped(true))
    out += fmt::format("FP8 grouped cases: cublas is {}; {}\n", kGroupedFp8BaselineNote,
                       kGroupedFp8NoApiReason);
  return out;
}

Plan build_plan(const std::vector<RunSpec>& runs, const MeasureSettings& defaults,
                const MeasureOverrides& cli_overrides, const KernelRegistry& reg) {
  Plan plan;
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunSpec& run = runs[r];
    const std::string where = runs.size() > 1 ? "run '" + run.name + "': " : "";
    MeasureSettings measure = defaults;
    run.measure.apply_to(measure);
    cli_overrides.apply_to(measure);
    validate(measure, where);
    if (run.shapes.empty()) throw UsageError(where + "no shapes given");
    if (run.kernels.empty()) throw UsageError(where + "no kernels given");

    check_fp8_options(run, where);
    check_grouped_layouts(run, where);
    std::vector<const KernelInfo*> kernels, named;  // named: given by its exact name
    for (const std::string& pattern : run.kernels)
      for (const KernelInfo* k : match_kernels(pattern, reg)) {
        if (!contains(kernels, k)) kernels.push_back(k);
        if (pattern == k->name) named.push_back(k);
      }

    // What a kernel runs: the requested dtypes/layouts/accums, or its native ones.
    struct Variant {
      const KernelInfo* kernel;
      GemmProblem problem;
    };
    const size_t first_group = plan.groups.size();
    // alpha and beta are the run's, so (m, n, k, layout, dtype, accum) identifies a problem. The
    // preset label is part of the key: two model layers of one shape stay two groups, each row
    // labelled with its own layer (a per-layer table needs both), at the cost of measuring it
    // twice. A plain shape listed twice is still measured once.
    // FP8 problems add B's type, C's type, the scaling and fast accumulation to the key.
    // A grouped case adds its groups (GroupedGemm::key) to the key.
    std::map<std::tuple<int64_t, int64_t, int64_t, int, int, int, int, int, int, bool, std::string,
                        std::string, std::string>,
             size_t>
        group_of;
    auto add = [&](const KernelInfo* k, const GemmProblem& p, const Shape& s) {
      const PresetLabel& label = s.preset;
      const auto key =
          std::make_tuple(p.m, p.n, p.k, int(p.layout), int(p.dtype), int(p.b_type()), int(p.accum),
                          int(p.out), int(p.scale), p.fast_accum, label.model, label.layer,
                          s.grouped ? s.grouped->key() : std::string());
      if (auto it = group_of.find(key); it != group_of.end()) {
        auto& g = plan.groups[it->second];
        if (k && !contains(g.kernels, k)) g.kernels.push_back(k);
        return;
      }
      if (plan.row_count() >= kMaxPlanRows)
        throw UsageError("the sweep expands to more than " + std::to_string(kMaxPlanRows) +
                         " rows; narrow the ranges");
      check_size(p, s.grouped, where);
      group_of.emplace(key, plan.groups.size());
      ProblemGroup group{run.name, p, measure, {}, label, s.grouped};
      if (k) group.kernels.push_back(k);
      plan.groups.push_back(std::move(group));
    };
    // FP8: TN only (wgmma and cuBLASLt read 8-bit operands K-major), one problem per B type and
    // scaling. A kernel matched by a glob or "all" that does not declare both types (A's and B's)
    // gets no row (a hundred rows would say "not implemented"); one named exactly gets its row,
    // skipped with the reason. The baseline's group is planned all the same. dtype_b is set only
    // where B's type differs from A's, so an e4m3 x e4m3 problem is what it always was.
    auto expand_fp8 = [&](const KernelInfo* k, const Shape& s, DType d, Accum a, bool attach) {
      const std::vector<ScaleMode> scales =
          run.scales.empty() ? std::vector<ScaleMode>{ScaleMode::tensor} : run.scales;
      for (DType b : run.dtypes_b.empty() ? std::vector<DType>{d} : run.dtypes_b)
        for (ScaleMode m : scales) {
          GemmProblem p{s.m, s.n, s.k, Layout::tn, d, a, run.alpha, run.beta};
          if (b != d) p.dtype_b = b;
          p.out = run.out.value_or(default_out(d));
          p.scale = m;
          p.fast_accum = run.fast_accum;
          const bool declared = k && contains(k->dtypes, d) && contains(k->dtypes, b);
          add(attach && (declared || (k && contains(named, k))) ? k : nullptr, p, s);
        }
    };
    // `k` gives the native types; `attach`: k gets a row (else only the baselines').
    auto expand = [&](const KernelInfo* k, const Shape& s, bool attach) {
      const std::vector<DType> dtypes =
          !run.dtypes.empty() ? run.dtypes : std::vector<DType>{k ? k->dtypes[0] : DType::f32};
      const Layout native = s.grouped ? Layout::tn : k ? k->layouts[0] : Layout::nn;
      const std::vector<Layout> layouts =
          !run.layouts.empty() ? run.layouts : std::vector<Layout>{native};
      const KernelInfo* row = attach ? k : nullptr;
      for (DType d : dtypes) {
        std::vector<Accum> accums = run.accums;
        if (accums.empty()) {
          const Accum native = k ? k->accums[0] : default_accum(d);
          accums = {accum_valid_for(d, native) ? native : default_accum(d)};
        }
        for (Accum a : accums) {
          if (!accum_valid_for(d, a)) continue;  // e.g. f16 accumulation of f32 inputs
          if (is_fp8(d)) {
            expand_fp8(k, s, d, a, attach);
            continue;
          }
          for (Layout l : layouts)
            add(row, GemmProblem{s.m, s.n, s.k, l, d, a, run.alpha, run.beta}, s);
        }
      }
    };
    // A grouped case gets the rows of the kernels that declare its group layout
    // (KernelInfo::group_layouts); a dense kernel matched by a glob or "all" gets no row there
    // (as for FP8 types a kernel does not declare), only its types make the problem; one named
    // exactly gets its row, skipped with the reason. A grouped kernel gets no dense case's row
    // unless named (a dispatcher that takes both, KernelInfo::dense_too, gets both). Grouped cases
    // are TN.
    for (const Shape& s : run.shapes) {
      if (kernels.empty()) expand(nullptr, s, false);
      for (const KernelInfo* k : kernels) {
        const bool fits = s.grouped ? contains(k->group_layouts, s.grouped->grouping.layout)
                                    : k->group_layouts.empty() || k->dense_too;
        expand(k, s, fits || contains(named, k));
      }
    }
    if (plan.groups.size() == first_group)
      throw UsageError(where +
                       "no valid (dtype, accumulate) combination: f16 accumulation exists "
                       "only for f16 inputs");
    if (plan.row_count() > kMaxPlanRows)
      throw UsageError("the sweep expands to more than " + std::to_string(kMaxPlanRows) +
                       " rows; narrow the ranges");
  }
  return plan;
}

}  // namespace gemmbench
