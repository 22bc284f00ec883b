// Splitting one plan over several processes (--shard I/N, --shard auto): each ProblemGroup goes to
// exactly one shard, whole (its cuBLAS row is the baseline of its kernel rows), assigned by
// estimated cost, largest first, to the least-loaded shard. Host-only and deterministic: every
// process of a job computes the same assignment from the same plan. docs/multi-gpu.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"

namespace gemmbench {

struct ShardSpec {
  int index = 0;  // 0 <= index < count
  int count = 1;  // 1: the whole plan
  bool operator==(const ShardSpec&) const = default;
};

// What --shard says: a fixed "I/N", or "auto" (rank and size from the launcher's environment).
struct ShardArg {
  bool from_env = false;
  ShardSpec spec;  // when !from_env
};

// Parses "I/N" (0 <= I < N, N <= kMaxShards) or "auto". Throws UsageError naming the value.
ShardArg parse_shard_arg(const std::string& text);
inline constexpr int kMaxShards = 65536;

// What --devices (or a config's "devices") says: every visible GPU, or a list of device indices.
// A repeated index is accepted ("0,0": two workers on one GPU, for testing the worker machinery
// on a one-GPU machine; their timings disturb each other).
struct DevicesArg {
  bool all = false;
  std::vector<int> list;  // when !all; not empty
};
// Parses "all" or "0,1,3". Throws UsageError naming `flag` and the value.
DevicesArg parse_devices_arg(const std::string& text, const char* flag = "--devices");
inline constexpr int kMaxDevices = 1024;

// How the processes of a --devices run (or of a launcher's ranks) share the plan: shard deals the
// plan out, one part each (--shard); replicate gives every GPU the whole plan (a fleet check).
enum class FleetMode { shard, replicate };
const char* to_string(FleetMode m);
std::optional<FleetMode> parse_fleet_mode(const std::string& text);
// A replicate run flags a GPU whose median on a case is more than this many percent above the
// case's median over all GPUs (--outlier-threshold; docs/multi-gpu.md).
inline constexpr double kDefaultOutlierThresholdPct = 5.0;

// An environment variable's value, or nullopt where it is unset. Tests pass fake environments.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
// The process environment (getenv).
EnvLookup process_env();

// Where a process stands in a parallel launch.
struct LaunchRank {
  int rank = 0;
  int size = 1;
  std::optional<int> local_rank;  // rank on this node: selects the GPU unless --device is given
  std::string launcher;           // "Open MPI", "PMI", "Slurm": whose variables were read
};

// Reads the innermost launcher's variables: Open MPI (OMPI_COMM_WORLD_RANK/_SIZE/_LOCAL_RANK),
// then PMI (PMI_RANK/PMI_SIZE, local rank from MPI_LOCALRANKID where the launcher sets it), then
// Slurm (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID). MPI comes first because mpirun inside a Slurm
// allocation leaves the allocation's SLURM_PROCID in every rank's environment. Throws UsageError
// when none is set, or a value is not a number or out of range.
LaunchRank launch_rank_from_env(const EnvLookup& env);

// What --shard resolves to in this process: `arg` absent is the whole plan (0/1); "auto" reads
// the launcher through `env`. Throws UsageError.
struct ShardChoice {
  ShardSpec spec;
  std::string launcher;           // whose variables gave it ("" for I/N or no --shard)
  std::optional<int> local_rank;  // the device to use where --device was not typed
};
ShardChoice resolve_shard(const std::optional<std::string>& arg, const EnvLookup& env);

// Estimated seconds a group takes to run (every row: sampling bounded by the group's measure
// settings, warm-up, the fp64 reference, the cuBLASLt tuning, and a fixed per-row overhead).
// Only the proportions matter: it balances shards, it predicts nothing for a report.
double group_cost_s(const ProblemGroup& g);

// The shard of each group of `plan` (same order as plan.groups) for `count` shards: groups by
// decreasing cost (ties: plan order) each to the least-loaded shard (ties: lowest index).
std::vector<int> assign_shards(const Plan& plan, int count);

// The groups of one shard, in plan order, with ProblemGroup::first_row set so that rows keep
// their plan-wide index. shard_plan(plan, {0, 1}) is the whole plan.
Plan shard_plan(const Plan& plan, const ShardSpec& shard);

// Hash of the whole plan before sharding: every group's run name, problem, measure settings,
// preset label and kernel names, in order. 16 hex digits (FNV-1a, 64 bit); equal plans hash
// equal on every host.
std::string plan_hash(const Plan& plan);

// One planned row: its plan-wide index (1-based) and the case in words.
struct PlannedCase {
  size_t index = 0;
  std::string label;  // "hgemm_tn 4096x4096x4096 tn f16/f32 [llama3-8b/qkv_proj]"
};
// Every row of `plan` in the order the runner emits them (group_row_count's: cublas,
// cublas_grouped for a grouped case cuBLAS runs, cublaslt where the group's baseline uses it,
// then the kernels), with plan-wide indices (first_row where set).
std::vector<PlannedCase> planned_cases(const Plan& plan);

// Expands {rank} and {host} in an output path. Throws UsageError for any other {...}.
std::string expand_output_template(const std::string& path, const char* flag, int rank,
                                   const std::string& host);

}  // namespace gemmbench
