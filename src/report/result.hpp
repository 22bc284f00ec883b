// Plain records handed from the runner to the reporters: no CUDA, no formatting.
#pragma once

#include <cstdint>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "plan/spec.hpp"
#include "stats/stats.hpp"
#include "stats/telemetry.hpp"
#include "verify/tolerance.hpp"

namespace gemmbench {

// not_held: the row ran and verified, but the regime it asked for was not held (a burst row that
// kept fewer samples than asked, a sustained group that never reached steady state): it carries
// no headline figure, and `reason` says what was seen.
enum class Status { ok, failed, skipped, error, not_held };
const char* to_string(Status s);

// NVML readings taken by a background thread during the row's timed samples (burst regime: the
// kept pairs only); absent where NVML is missing. docs/reports-telemetry.md lists each field.
struct ClockStats {
  std::optional<unsigned> sm_clock_mhz;         // lowest SM clock seen while sampling
  std::optional<unsigned> sm_clock_max_mhz;     // the device's maximum SM clock
  std::optional<unsigned> sm_clock_median_mhz;  // median SM clock over the row's samples
  std::optional<double> power_w;                // highest board power seen
  std::optional<double> power_mean_w;           // mean board power over the readings
  std::optional<double> power_limit_w;          // enforced power limit of the board
  std::optional<double> at_cap_share;           // share of readings at the power cap [0, 1]
  std::optional<unsigned> temperature_c;        // highest GPU temperature seen
  std::string throttle_reasons;                 // NVML clock-event reasons seen, '|'-separated
  Throttle throttle = Throttle::none;           // what held the clock: is_fault() for the loud ones
  bool throttled = false;                       // SM clock fell below 80% of its maximum
  size_t telemetry_samples = 0;                 // readings the figures above rest on
};

// Energy of one provider run back to back after the group's samples (docs/regimes.md): the
// NVML energy counter over the window, divided among the launches in it.
struct EnergyStats {
  std::optional<double> joules_per_gemm;
  std::optional<double> gflop_per_joule;
  std::optional<double> power_w;            // counter energy / time between its refreshes
  std::optional<double> telemetry_power_w;  // mean sampled power over that same span
  std::optional<double> window_s;           // GPU time of the window's launches (events)
  int launches = 0;                         // launches in the window
  int counter_refreshes = 0;                // counter refreshes seen inside the window
  std::string note;                         // why the figures are absent, when they are
};

// Speed of light of a row (src/sol/sol.hpp; docs/reports-sol.md): the roofline bound of its
// instruction class and memory, and the share of it the row reached. A figure that cannot be known
// (an architecture without a table entry, no bandwidth, no timing) is absent, and `reason` says
// why.
struct SolStats {
  double flop = 0;                // 2*M*N*K
  double bytes = 0;               // A, B read once, C read once when beta != 0, C written once
  double intensity = 0;           // flop / bytes (FLOP per byte)
  std::string instruction_class;  // "ffma_f32", "tensor_f16_f32acc", ...
  std::optional<double> flop_per_clk_per_sm;       // dense, from the per-architecture table
  std::optional<double> compute_tflops_max_clock;  // at DeviceMetadata::sm_clock_max_mhz
  std::optional<double> compute_tflops_run_clock;  // at ClockStats::sm_clock_median_mhz
  std::optional<double> mem_bw_gbs;                // the roofline's bandwidth, GB/s (1e9 B/s)
  std::string mem_bw_source;                       // "measured", "datasheet" or "none"
  std::optional<double> memory_tflops;             // intensity x mem_bw_gbs
  std::optional<double> bound_tflops;              // min(compute at max clock, memory)
  std::string bound;                               // "compute", "memory", or empty when unknown
  std::optional<double> pct_sol;                   // 100 * tflops / bound_tflops
  std::optional<double> pct_sol_run_clock;         // against min(compute at the run clock, memory)
  std::string reason;                              // why a ceiling or the bound is absent
};

// The algorithm the cuBLASLt baseline settled on for one problem, and how it was chosen
// (runner/cublaslt_gemm.hpp; docs/reports-baselines.md).
struct CublasLtChoice {
  int heuristic_index = 0;  // the winner's rank in cublasLtMatmulAlgoGetHeuristic's list, 0-based
  int candidates = 0;       // candidates timed (the heuristic's top ones that ran, at most 8)
  int samples = 0;          // timed samples per candidate, sampled round-robin
  int algo_id = 0;          // CUBLASLT_ALGO_CONFIG_ID
  std::string tile;         // CUBLASLT_ALGO_CONFIG_TILE_ID by name: "128x256"
  std::string stages;       // CUBLASLT_ALGO_CONFIG_STAGES_ID by name: "64x4", "64xAUTO"
  int splitk = 1;           // CUBLASLT_ALGO_CONFIG_SPLITK_NUM
  std::string reduction;    // CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME: none, inplace, compute, output
  int cta_swizzling = 0;    // CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING
  int custom_option = 0;    // CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION
  std::string cluster;      // CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID by name: "2x1x1", "auto"
  double tuned_ms = 0;      // the winner's median over its tuning samples
  double heuristic_first_ms = 0;       // heuristic #1's median over the same rounds
  double gain_over_heuristic = 1;      // heuristic_first_ms / tuned_ms (>= 1; 1: #1 won)
  int64_t workspace_bytes = 0;         // workspace given to every cuBLASLt call (allocated once)
  int64_t workspace_needed_bytes = 0;  // what the winner asked for (heuristic workspaceSize)
};

// How the row's regime was held (docs/regimes.md). Sustained: the group's preconditioning (the
// first provider's own sampling loop, untimed, until its event times agreed), and this row's
// blocks. Burst: the windows, and the clock probe's readings (runner/clock_probe.hpp) after each
// batch of samples, with the NVML readings of the discarded batches kept apart.
struct RegimeStats {
  bool held = true;
  // sustained
  std::optional<double> precondition_s;           // the group's, seconds of wall time
  std::string precondition_end;                   // "agreed", "bound" or "interrupted"
  std::optional<double> precondition_spread_pct;  // last windows' (max - min) / min, percent
  std::optional<double> precondition_at_cap;      // share of its NVML readings at the power cap
  bool precondition_carried = false;  // a short re-settle after the previous group (kResettleRule)
  std::string precondition_test;      // "windows" or "spans": which test agreed (empty otherwise)
  std::optional<double> precondition_span_s;  // the long-span test at its end: span length,
  std::optional<double> precondition_span_spread_pct, precondition_span_trend_pct;  // percent
  // With --keep-samples, on the row whose loop preconditioned the group: each window's
  // [seconds since the loop started, median ms], the trace the steady-state test judged
  // (replayed by tests/host/test_regime.cpp from tests/data/steady_windows/).
  std::vector<std::array<double, 2>> precondition_windows;
  std::optional<double> block_s;           // timed GPU seconds asked of each block
  int blocks = 0;                          // this row's timed blocks
  std::optional<double> settle_mean_s;     // untimed seconds at the start of its blocks
  std::optional<double> block_spread_pct;  // (max - min) / min of its block medians
  // burst
  int windows = 0;                                  // windows this row's samples came from
  int batches_kept = 0, batches_discarded = 0;      // batches (each followed by a clock probe)
  std::optional<double> probe_first_mhz;            // the probe after the first window's ramp
  std::optional<double> probe_kept_median_mhz;      // median probe over the kept batches
  std::optional<double> probe_min_mhz;              // lowest probe seen, kept or not
  std::optional<unsigned> discarded_sm_median_mhz;  // NVML median over the discarded batches
  size_t discarded_telemetry_samples = 0;
};

struct CaseResult {
  size_t index = 0;  // 1-based row number in the plan
  std::string run_name;
  std::string kernel;    // registry name, "cublas" or "cublaslt"
  std::string provider;  // "gemmbench", "cublas" or "cublaslt"
  std::string family;    // "sgemm", "hgemm", "cublas", "cublaslt"
  GemmProblem problem;
  Status status = Status::skipped;
  std::string reason;  // why skipped / failed / errored
  std::optional<TimingStats> time;
  // Every timed sample of this row's provider, in the order taken: only with --keep-samples
  // (MeasureSettings::keep_samples), else empty. JSON "samples_ms", 4 significant digits.
  std::vector<double> samples_ms;
  std::optional<double> tflops;  // 2*M*N*K / median
  // The group's cublas row median: the ratio's denominator is the figure the cublas row prints.
  std::optional<double> cublas_median_ms;
  std::optional<double> ratio_to_cublas;  // cublas_median_ms / median_ms (> 1: faster)
  // The tuned cuBLASLt baseline, on kernel rows whose group's baseline uses it: the group's
  // cublaslt row median; cublaslt_algo also on the cublaslt row itself.
  std::optional<double> cublaslt_median_ms;
  std::optional<double> ratio_to_cublaslt;  // cublaslt_median_ms / median_ms (> 1: faster)
  // A grouped case's kernel rows: which of cuBLAS's two ways cublas_median_ms is, the faster
  // (runner/baselines.hpp: kWayLoop, kWayGroupedApi). JSON "baseline_way", only where set.
  std::optional<std::string> baseline_way;
  std::optional<CublasLtChoice> cublaslt_algo;
  ErrorStats error;
  ClockStats clock;
  EnergyStats energy;
  MeasureSettings measure;
  // Burst regime: samples (interleaved steps) thrown away because the clock fell, and waits
  // for a cool board that ran out of time (the pair was then taken anyway).
  int samples_discarded = 0;
  int burst_wait_timeouts = 0;
  RegimeStats regime;
  PresetLabel preset;  // the model layer the shape comes from (--preset), or empty
  // A grouped case (docs/grouped.md): its groups and routing; problem.m is sum(M_g), and sol
  // counts the bytes of the groups with M_g > 0 only. JSON "grouped", only on grouped rows.
  std::optional<GroupedGemm> grouped;
  SolStats sol;
  // Shape-aware kernels (hgemm, sgemm): the registered kernel that ran and the rule of
  // kernels/dispatch/rules.cpp that chose it; empty for every other row.
  std::string chosen_kernel;
  std::string chosen_rule;
  // Rows of a plugin's kernel (--plugin): the library and its SHA-256, as in RunMetadata::plugins;
  // empty for built-in kernels and baselines. JSON "plugin": {"path", "sha256"}, only when set.
  std::string plugin_path;
  std::string plugin_sha256;
};

struct DeviceMetadata {
  int index = 0;
  std::string name;
  int sm = 0;  // 10 * major + minor
  int num_sms = 0;
  int64_t memory_bytes = 0;
  int64_t l2_bytes = 0;
  int sm_clock_max_mhz = 0;
  int memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  std::string pci_bus_id;
  std::string uuid;    // "GPU-8a3c...": the CUDA device UUID, stable across reboots and index order
  std::string serial;  // the board's serial number from NVML, empty where NVML does not give it
  std::string driver_version;   // NVML's string ("580.159.04"), or the CUDA driver API version
  std::string cuda_driver_api;  // "13.0"
  std::string cuda_runtime;     // "13.0"
  std::string cublas_version;   // "13.0.0"
  bool nvml_available = false;
  std::optional<double> power_limit_w;  // NVML enforced power limit at the start of the run
  // Memory ceiling: a device-to-device copy measured once per run ((read + write bytes) / time),
  // beside the datasheet figure (memory clock x bus width x 2, DDR).
  std::optional<double> mem_bw_measured_gbs;
  std::optional<double> mem_bw_datasheet_gbs;
};

// A plugin library the run loaded (--plugin, a config's "plugins"; docs/plugins.md).
struct PluginRecord {
  std::string path;    // as given; a config's relative paths resolved against the config's folder
  std::string sha256;  // of the file, so a report names the exact library that ran
  std::string name;    // the plugin's own name for itself, may be empty
  std::vector<std::string> kernels;  // the kernels it registered, in its order
};

struct RunMetadata {
  std::string tool_version;
  std::string git_commit;
  std::string command_line;
  std::string config_file;  // empty when run from flags
  std::string date_utc;     // ISO 8601
  std::string host;
  uint64_t seed = 0;
  std::string data_distribution;  // data_distribution_text(data_used)
  // The distinct input distributions of the plan, in plan order: the console warns before its
  // table when one is not uniform. Not written to JSON (rows carry theirs in measure.data).
  std::vector<DataDist> data_used;
  std::string regime;  // "sustained", "burst", or both comma-separated in plan order
  std::string timing_method;
  std::string flops_convention;
  std::string verification;
  std::string sol_intensity_rule;  // how SolStats counts bytes (sol::kSolIntensityRule)
  // The distinct baseline settings of the plan, in plan order (the console's ratio columns), and
  // how each baseline provider is called and, for cuBLASLt, tuned (JSON "baselines").
  std::vector<Baseline> baselines_used;
  std::string baseline_method;
  DeviceMetadata device;
  // The whole plan before --shard split it (plan/shard.hpp): its hash and row count, the same in
  // every shard's report; `gemmbench merge` checks the one and counts rows against the other.
  std::string plan_hash;
  size_t plan_rows = 0;
  int shard_index = 0, shard_count = 1;  // JSON "shard": {"index", "count"}
  // With shard_count > 1, this shard's planned rows (plan-wide index, the case in words), so that
  // merge can name the rows a shard planned and never wrote. JSON "shard": {"planned": [...]}.
  std::vector<std::pair<size_t, std::string>> shard_planned;
  // "shard" (the plan dealt out, shard_index/count say which part) or "replicate" (every process
  // runs the whole plan, a fleet check: replica_index/count say which process; shard is 0/1).
  // JSON "mode", and "replica": {"index", "count"} in replicate mode.
  std::string mode = "shard";
  int replica_index = 0, replica_count = 1;
  // The plugins loaded, in load order. JSON "plugins", only when there are any.
  std::vector<PluginRecord> plugins;
};

struct RunSummary {
  size_t rows_planned = 0;
  size_t rows_written = 0;
  size_t ok = 0, failed = 0, skipped = 0, errors = 0, not_held = 0;
  // Counts one row of `status` (the one tally of rows by status: runner, merge, compare).
  void count(Status status) {
    switch (status) {
      case Status::ok:
        ++ok;
        break;
      case Status::failed:
        ++failed;
        break;
      case Status::skipped:
        ++skipped;
        break;
      case Status::error:
        ++errors;
        break;
      case Status::not_held:
        ++not_held;
        break;
    }
  }
  bool aborted = false;  // a sticky CUDA error ended the run early
  std::string abort_reason;
  int interrupted_by = 0;  // the signal (SIGINT, SIGTERM) that stopped the run early, or 0
};

}  // namespace gemmbench
