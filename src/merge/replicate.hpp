// A fleet check (--mode replicate): every GPU ran the whole plan; their reports are joined with
// each GPU's rows kept, and a summary per case says how the GPUs compare: the median of their
// medians, the spread (slowest / fastest) and the GPUs more than a threshold slower than that
// median. Host-only: reads reports, never touches CUDA. docs/multi-gpu.md, "--mode replicate".
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "report/report_reader.hpp"
#include "report/result.hpp"

namespace gemmbench::merge {

// Which GPU a part ran on, from its metadata.
struct GpuIdentity {
  int replica = 0;  // metadata replica.index: the worker or rank
  std::string host;
  int device_index = 0;  // CUDA device index on its host
  std::string name;      // "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;
  std::string uuid;
  std::string serial;    // empty where NVML gave none
  std::string path;      // the part's report
  bool complete = true;  // the part's summary.complete
  // "h100-a dev 1 (0000:19:00.0, serial 1652...)": the GPU in words for tables and messages.
  std::string label() const;
};

// One case (plan row) over the GPUs.
struct FleetCase {
  size_t index = 0;   // plan-wide row index
  std::string label;  // "hgemm_tn 4096x4096x4096 tn f16/f32"
  // Each GPU's median time for the row, in the order of FleetSummary::gpus; absent where that
  // GPU has no timed ok row (skipped, failed, error, missing).
  std::vector<std::optional<double>> median_ms;
  size_t timed = 0;            // GPUs with a time
  double fleet_median_ms = 0;  // median over the timed GPUs (the mean of the middle two if even)
  double min_ms = 0, max_ms = 0;
  double spread = 1;  // max_ms / min_ms
  // Per GPU: (its median / fleet_median_ms - 1) * 100; > 0 is slower. Absent where not timed.
  std::vector<std::optional<double>> vs_median_pct;
  std::vector<size_t> outliers;  // positions in gpus, slowest first
};

struct FleetGpuSummary {
  size_t cases_timed = 0;
  size_t outlier_cases = 0;
  // Geometric mean over its timed cases (with at least two GPUs timed) of its median / the
  // fleet median, minus one, in percent: > 0 is slower than the fleet overall.
  std::optional<double> geomean_vs_median_pct;
  std::optional<double> worst_vs_median_pct;  // its largest vs_median_pct
};

struct FleetSummary {
  double threshold_pct = 0;  // a GPU more than this many percent slower than the median is flagged
  std::vector<GpuIdentity> gpus;
  std::vector<FleetCase> cases;          // by plan index
  std::vector<FleetGpuSummary> per_gpu;  // in the order of gpus
  bool any_outlier() const;
};

// The summary over `rows_per_gpu` (the rows of each GPU, in the order of `gpus`): one case per
// plan index that any GPU holds. Rows count when their status is ok and they carry a time.
// Throws UsageError when threshold_pct is not a positive finite number.
FleetSummary fleet_summary(const std::vector<GpuIdentity>& gpus,
                           const std::vector<std::vector<CaseResult>>& rows_per_gpu,
                           double threshold_pct);

struct ReplicaMerge {
  std::string plan_hash;
  size_t plan_rows = 0;
  FleetSummary fleet;
  std::vector<std::vector<CaseResult>> rows;  // per GPU, by plan index
  std::vector<std::string> missing;  // "replica 1 (...): rows 5-9 (the run was interrupted)"
  std::vector<std::string> notes;
  RunMetadata metadata;   // the first part's, for the console header
  RunSummary summary;     // over every GPU's rows; rows_planned = plan_rows x GPUs
  nlohmann::json report;  // the merged --json report: per-GPU rows with "gpu", and "fleet"
};

// Joins replicate parts (metadata mode "replicate", replica {index, count}). Throws UsageError
// (one line) when a part is not a replicate part, the plans or seeds differ, or a replica index
// is given twice.
ReplicaMerge merge_replicas(const std::vector<Report>& parts, double threshold_pct);

// 1 when a GPU is an outlier on some case or a part lacks rows, else 0.
int exit_code(const ReplicaMerge& m);

// The fleet table: one line per case (median, min, max, spread, outliers), then one line per GPU.
std::string format_fleet_console(const ReplicaMerge& m);
// The same as Markdown tables, with the metadata that makes it a record (date, commit, GPUs).
std::string format_fleet_markdown(const ReplicaMerge& m);
// One CSV line per (GPU, row): the columns of csv_columns(), then the GPU's identity and the
// row's case in the fleet (fleet median, its distance from it, the spread, outlier or not).
void write_fleet_csv(const ReplicaMerge& m, const std::string& path);
const std::vector<std::string>& fleet_csv_extra_columns();

}  // namespace gemmbench::merge
