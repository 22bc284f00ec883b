// The kernel registry: every kernel file registers itself here with GEMMBENCH_REGISTER_KERNEL,
// so adding a kernel touches that one file (no central list, switch or count).
//
// Contract for a launcher: it receives device pointers the runner allocated and initialised,
// in the problem's layout (see core/include/core/types.hpp for the BLAS column-major convention)
// with packed leading dimensions (problem.lda()/ldb()/ldc()). It enqueues its work on `stream` and
// returns; it does not synchronise and does not allocate on the timed path. The runner checks
// cudaGetLastError() after every launch.
#pragma once

#include <cuda_runtime.h>

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "core/device_caps.hpp"
#include "core/grouping.hpp"
#include "core/types.hpp"

namespace gemmbench {

struct GemmArgs {
  GemmProblem problem;
  const void* a = nullptr;  // op(A) source, problem.dtype elements, lda = problem.lda()
  const void* b = nullptr;  // op(B) source, problem.dtype elements, ldb = problem.ldb()
  void* c = nullptr;        // (M,N) column-major, problem.out_type() elements, ldc = M; row-major
                            // (ldc = N) for a kernel that declares c_row_major
  float alpha = 1.f, beta = 0.f;
  // FP8 problems: the f32 scales of A and B in problem.scale's layout (core/types.hpp,
  // ScaleMode): a value of op(A) is a[...] * scale_a[...]. Null for the other types. A grouped
  // case's: the grouped scales (core/grouping.hpp, GroupedScales).
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  // Test-only: caps the persistent grid at this many CTAs (whole clusters, at least one, for
  // clustered kernels), so that small shapes walk several tiles per CTA and split stream-K
  // tiles. 0 = the device default. Nothing outside the tests sets it.
  int test_max_ctas = 0;
  // A grouped case (core/grouping.hpp, docs/grouped.md): its groups and their device arrays;
  // a, b and c are then the grouped operands. Null for a dense problem. Only a kernel that
  // declares the case's layout in KernelInfo::group_layouts is launched with it.
  const GroupedLaunch* grouped = nullptr;
};

// Returns an empty string when the kernel can run the problem, else a human reason
// ("K must be a multiple of 8: rows are copied in 16-byte pieces"). The runner has already
// checked dtype, accumulate type, layout and min_sm against the fields below.
using SupportsFn = std::function<std::string(const GemmProblem&, const DeviceCaps&)>;
// A grouped kernel's per-case constraints (in place of SupportsFn, which it never gets): the
// problem is the case's (m = sum(M_g)), the grouping its groups.
using GroupedSupportsFn =
    std::function<std::string(const GemmProblem&, const Grouping&, const DeviceCaps&)>;
using LaunchFn = std::function<void(const GemmArgs&, cudaStream_t)>;
// Once per problem, after its inputs are made and before its first launch, outside every timed
// sample, with the arguments of the launches that follow (plugins: a peer's per-problem setup).
using PrepareFn = std::function<void(const GemmArgs&, cudaStream_t)>;

struct KernelInfo;
// What a shape-aware dispatcher (hgemm, sgemm) runs for one problem: a registered kernel and the
// line of the rule table (kernels/dispatch/rules.cpp) that picked it; kernel == nullptr when no
// candidate can run the problem, `why` then gives each candidate's reason.
struct DispatchChoice {
  const KernelInfo* kernel = nullptr;
  std::string rule;
  std::string why;
};
using ChooseFn = std::function<DispatchChoice(const GemmProblem&, const DeviceCaps&)>;
// A dispatcher's choice for a grouped case (hgemm: the grouped Hopper kernel).
using ChooseGroupedFn =
    std::function<DispatchChoice(const GemmProblem&, const Grouping&, const DeviceCaps&)>;

struct KernelInfo {
  std::string name;             // what the user types: short, stable ("sgemm_naive")
  std::string family;           // ladder it belongs to ("sgemm", "hgemm")
  int rung = 0;                 // position on that ladder, 1 = bottom
  std::string summary;          // one line for `gemmbench list`
  std::vector<DType> dtypes;    // input/output types; the first is native
  std::vector<Accum> accums;    // accumulate types; the first is native
  std::vector<Layout> layouts;  // supported layouts; the first is native
  int min_sm = 0;               // 10 * major + minor
  SupportsFn supports;          // optional: per-problem constraints
  LaunchFn launch;
  ChooseFn choose;    // dispatchers only: the kernel launch() runs (rows record it)
  PrepareFn prepare;  // optional
  // The kernel writes C (M,N) row-major, N contiguous (the order of an LLM layer's output, which
  // DeepGEMM writes): verified in that order, and run with beta = 0 only.
  bool c_row_major = false;
  // Grouped kernels (docs/grouped.md): the group layouts it takes; empty, a dense kernel, which
  // gets no grouped case (and a grouped kernel no dense one). supports_grouped: its per-case
  // constraints. group_tile_rows: the rows of its tiles along M_g, for which the runner builds
  // GroupedLaunch::tile_prefix (0: none built).
  std::vector<GroupLayout> group_layouts = {};
  GroupedSupportsFn supports_grouped = {};
  int group_tile_rows = 0;
  // A dispatcher that takes dense and grouped cases (hgemm): group_layouts then turns no dense
  // case away; choose_grouped names what a grouped case runs (rows record it).
  bool dense_too = false;
  ChooseGroupedFn choose_grouped = {};
};

class KernelRegistry {
 public:
  static KernelRegistry& instance();
  // Called from static initialisers; a malformed or duplicate entry aborts with a message,
  // since no caller exists yet that could handle an exception.
  bool add(KernelInfo info);
  // Run-time registration (plugins, src/plugin): what is wrong with `info`, as a phrase ("duplicate
  // name"), or empty, in which case it is added.
  std::string try_add(KernelInfo info);
  // What add() and try_add() would refuse in `info`, or empty.
  std::string problem(const KernelInfo& info) const;
  // Sorted by family, then rung, then name.
  std::vector<const KernelInfo*> all() const;
  const KernelInfo* find(const std::string& name) const;

 private:
  // A deque: kernels added at run time (plugins) must not move the ones already handed out.
  std::deque<KernelInfo> kernels_;
};

// why_unsupported's reasons for a kernel of the wrong kind (KernelInfo::group_layouts).
inline constexpr const char* kDenseKernelGroupedReason =
    "a dense kernel: takes no grouped case (it would read the groups as one GEMM)";
inline constexpr const char* kGroupedKernelDenseReason =
    "a grouped kernel: takes grouped cases only (--groups, --routing)";

// The reason a kernel cannot run `p` on `caps`, from the declared fields and supports();
// empty when it can. `grouping`: the groups of a grouped case (null: a dense problem). A dense
// kernel is turned away from a grouped case and a grouped kernel from a dense one here, in one
// place; a grouped kernel's supports_grouped stands in for supports.
std::string why_unsupported(const KernelInfo& k, const GemmProblem& p, const DeviceCaps& caps,
                            const Grouping* grouping = nullptr);

// The row tiles the launch tables of k's launch on grouping g count in (GroupedLaunch::
// tile_prefix): k's own group_tile_rows, or, for a dispatcher (choose_grouped), its choice's, the
// kernel its launch will run (hgemm's choice may be the 2-CTA pair, whose walk counts 256-row
// tiles). The dispatcher's own where it chooses none.
int grouped_launch_tile_rows(const KernelInfo& k, const GemmProblem& p, const Grouping& g,
                             const DeviceCaps& caps);

// What a dispatcher's launch ran, so that a row names the kernel its launches ran, not only the
// choice a fresh look at the rules gives (a dispatcher keeps its choices in a cache, and a key
// missing a field the rules read once ran another kernel than the row named: docs/grouped.md,
// "The cached choice"). A dispatcher notes the kernel it is about to launch; the first note since
// the last take wins, so a dispatcher running another dispatcher is recorded as the outer one's
// choice. Per thread: the runner launches and takes on one thread.
void note_dispatched(const KernelInfo* k);
// The kernel noted since the last call (null: none), and forgets it.
const KernelInfo* take_dispatched();

}  // namespace gemmbench

#define GEMMBENCH_CONCAT_INNER(a, b) a##b
#define GEMMBENCH_CONCAT(a, b) GEMMBENCH_CONCAT_INNER(a, b)
// GEMMBENCH_REGISTER_KERNEL(KernelInfo{...}); at namespace scope in the kernel's own file.
#define GEMMBENCH_REGISTER_KERNEL(...)                                                   \
  static const bool GEMMBENCH_CONCAT(gemmbench_registered_, __LINE__) [[maybe_unused]] = \
      ::gemmbench::KernelRegistry::instance().add(__VA_ARGS__)
