// Expansion of RunSpecs into the list of cases the runner executes.
//
// Cases sharing one problem (shape, layout, dtype, accumulate type, alpha, beta) within a run form
// a group: the runner allocates and initialises its inputs and fp64 reference once, measures the
// cuBLAS row first (and the tuned cuBLASLt row when measure.baseline uses it), then the kernels;
// the runner samples every row of a group in the group's regime (runner/runner.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/spec.hpp"
#include "core/registry.hpp"

namespace gemmbench {

struct ProblemGroup {
  std::string run_name;
  GemmProblem problem;
  MeasureSettings measure;
  std::vector<const KernelInfo*> kernels;  // may be empty: a cuBLAS-only group
  PresetLabel preset;                      // the model layer (--preset), or empty
  // A grouped case (docs/grouped.md): problem.m is then sum(M_g); absent for a dense GEMM.
  std::optional<GroupedGemm> grouped;
  // Plan-wide 0-based index of the group's first row, set by shard_plan (plan/shard.hpp) so that
  // a shard's rows keep their numbers; unset: rows are numbered on from the previous group.
  std::optional<size_t> first_row;
};

struct Plan {
  std::vector<ProblemGroup> groups;
  // One cuBLAS row per group, one cuBLASLt row where the group's baseline uses it, plus one row
  // per kernel.
  size_t row_count() const;
};

inline constexpr size_t kMaxPlanRows = 100000;

// Kernels a pattern names: an exact name, a glob ('sgemm_*', '*_tn'), or "all". "cublas" matches
// no kernel (cuBLAS rows come with every group). Throws UsageError for a name that matches
// nothing, listing the closest registered names.
std::vector<const KernelInfo*> match_kernels(const std::string& pattern, const KernelRegistry& reg);

// The up-to-`count` registered names closest to `name` (edit distance).
std::vector<std::string> closest_kernel_names(const std::string& name, const KernelRegistry& reg,
                                              size_t count = 3);

// Why the runner cannot run any row of `g`, or empty when it can: the one place that decides it
// before any device work (the runner then writes the group's rows as skipped with this reason).
// Today: an FP8 grouped case that neither its baseline (cuBLASLt per group: a group's problem is
// group_dense_problem's, whose M is N, so what cuBLASLt refuses is decided by N, K and the types
// alone, cublaslt_fp8_unsupported) nor a kernel of its own (one declaring its group layout and
// types) can run; the reason names what cuBLASLt refuses. An f16/bf16/f32 grouped case runs
// cuBLAS's two ways (has_grouped_api_row); its kernel rows run where the kernel declares the
// case's group layout (KernelInfo::group_layouts) and are skipped one by one otherwise.
std::string why_group_cannot_run(const ProblemGroup& g);

// An FP8 grouped case's baseline is its cublas row, provider cuBLASLt: one cublasLtMatmul per
// group with rows (runner/grouped_gemm.hpp, CublasLtGroupedLoop). The row says so; the plan has no
// cublas_grouped row for it, for the reason below (format_plan says it once).
inline constexpr const char* kGroupedFp8BaselineNote =
    "cuBLASLt FP8, one cublasLtMatmul per group: cuBLAS has no grouped FP8 GEMM";
inline constexpr const char* kGroupedFp8NoApiReason =
    "no cublas_grouped row: cuBLAS's grouped API (cublasGemmGroupedBatchedEx) takes no FP8 type";

// A grouped case cuBLAS runs has two baseline rows: "cublas", one cublasGemmEx per group (what
// many serving engines still do), and "cublas_grouped", cublasGemmGroupedBatchedEx. Its kernel
// rows divide by the faster of the two and name it (CaseResult::baseline_way). An FP8 grouped
// case has the first only, a cuBLASLt loop (kGroupedFp8NoApiReason).
bool has_grouped_api_row(const ProblemGroup& g);

// The rows of `g` in plan order: cublas, cublas_grouped (has_grouped_api_row), cublaslt where the
// baseline uses it, then the kernels. Plan::row_count, the shards and planned_cases count by it.
size_t group_row_count(const ProblemGroup& g);
inline constexpr const char* kGroupedApiKernel = "cublas_grouped";

// --dry-run's listing: one line per row in the console table's form (kernel, MxNxK, layout,
// types, the preset's model and layer), then the row count and the total FLOP.
std::string format_plan(const Plan& plan);

Plan build_plan(const std::vector<RunSpec>& runs, const MeasureSettings& defaults,
                const MeasureOverrides& cli_overrides, const KernelRegistry& reg);

}  // namespace gemmbench
