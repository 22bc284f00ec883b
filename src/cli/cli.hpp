// The command line: CLI11 definitions and their translation into RunSpecs. Nothing here touches
// the GPU, so every mistake in the arguments reads the same on a machine without one.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/spec.hpp"
#include "plugin/source.hpp"
#include "core/registry.hpp"
#include "core/rule_table.hpp"
#include "plan/shard.hpp"
#include "plan/spec.hpp"

namespace gemmbench {

struct CliOptions {
  // Unset when not typed; an empty value typed is an error, never the default.
  std::optional<std::string> kernels;  // comma list of names/globs/"all"/"cublas"
  std::optional<std::string> m, n, k;  // dimension lists (see plan/ranges.hpp)
  std::optional<std::string> presets;  // --preset: comma list of model names (plan/presets.hpp)
  std::optional<std::string> tokens;   // --tokens: the M of every preset layer, a dimension list
  std::optional<std::string> layers;   // --layers: comma list of preset layer names or globs
  // Grouped GEMM (docs/grouped.md): --groups, --group-m, --topk, --experts, --routing,
  // --routing-seed, --group-layout, --group-align, --group-max-m, as typed.
  std::optional<int64_t> groups, topk, experts, group_align, group_max_m;
  std::optional<std::string> group_m, routing, group_layout;
  std::optional<uint64_t> routing_seed;
  std::optional<std::string> layouts, dtypes, accums;
  std::optional<std::string> dtypes_b, scales, out;  // FP8: --dtype-b, --scale, --out
  bool fast_accum = false;                           // FP8: --fast-accum
  std::optional<double> alpha, beta;
  std::string config, csv, json;
  std::optional<std::string> runs;  // --run: comma list of a config's run names to keep
  std::optional<uint64_t> seed;
  int device = 0;
  bool device_given = false;          // --device was typed (else --shard auto's local rank picks)
  std::optional<std::string> shard;   // --shard I/N or auto (plan/shard.hpp), syntax checked
  std::optional<DevicesArg> devices;  // --devices all|0,1,3 (parsed): one worker per GPU
  std::optional<FleetMode> mode;      // --mode shard|replicate
  std::optional<double> outlier_threshold_pct;  // --outlier-threshold (replicate)
  std::string markdown;                         // --markdown FILE: the fleet summary (replicate)
  bool worker = false;  // --worker (internal): a --devices worker; quiet, progress lines on stderr
  MeasureOverrides measure;
  bool quiet = false;
  bool list_json = false;   // `gemmbench list --json` (every kernel)
  bool list_all = false;    // `gemmbench list --all`: every kernel, not one line per rung
  bool list_rules = false;  // `gemmbench list --rules`: the shape-aware kernels' rule tables
  bool dry_run = false;     // print the planned cases and exit, touching no GPU
  // --plugin (before or after `list`), each occurrence split at commas; docs/plugins.md.
  std::vector<std::string> plugins;
};

struct CliOutcome {
  enum class Kind { run, list, presets, extension, exit };
  Kind kind = Kind::run;
  CliOptions options;
  int exit_code = 0;              // for Kind::exit (help, version)
  std::string text;               // for Kind::exit: what to print on stdout
  std::string extension;          // for Kind::extension: the subcommand's name ("inspect")
  std::vector<std::string> argv;  // the command line, for the report
};

// Parses argv. Throws UsageError on bad syntax (unknown flag, non-numeric value). `extend` may add
// subcommands (main adds `inspect`); when one of those is selected, kind is Kind::extension.
CliOutcome parse_command_line(const std::vector<std::string>& args,
                              const std::function<void(CLI::App&)>& extend = {});

struct RunRequest {
  std::vector<RunSpec> runs;
  uint64_t seed = 0;
  std::string config_file;  // empty when built from flags
  // The config's "devices", "mode" and "outlier_threshold_pct" (config/config.hpp).
  std::optional<DevicesArg> devices;
  std::optional<FleetMode> mode;
  std::optional<double> outlier_threshold_pct;
  // What to load before the plan is built: --plugin's, then the config's "plugins".
  std::vector<PluginSource> plugins;
};

// --plugin's libraries, in the order typed.
std::vector<PluginSource> cli_plugin_sources(const CliOptions& opts);

inline constexpr uint64_t kDefaultSeed = 20261122;

// Turns flags (or the config they name, or configs/default.json when no flag selects any work)
// into run specs. Throws UsageError.
RunRequest resolve_request(const CliOptions& opts);

// How the run uses GPUs, from the flags and the config (flags win): worker processes on the
// listed devices (--devices, or the config's "devices" unless --device or --shard was typed), the
// mode and the outlier threshold. Throws UsageError: --mode replicate without --devices or
// --shard, --markdown outside replicate mode, --worker without --shard.
struct FleetChoice {
  std::optional<DevicesArg> devices;
  FleetMode mode = FleetMode::shard;
  double outlier_threshold_pct = kDefaultOutlierThresholdPct;
};
FleetChoice resolve_fleet(const CliOptions& opts, const RunRequest& req);

// Where `gemmbench` with no arguments looks for configs/default.json: ./configs, then the
// configs folder next to the executable's parent, then the source tree it was built from.
std::string find_default_config(const std::string& argv0);

// `gemmbench list` output: the ladder, one line per (family, rung) with its representative
// kernel (the shortest name, then the first alphabetically: the rung's main kernel) and how many
// other variants the rung registers; `all` lists every kernel; `as_json` every kernel as JSON.
std::string format_kernel_list(const KernelRegistry& reg, bool as_json, bool all = false);

// `gemmbench list --rules`: every row of the rule tables of `hgemm`, `sgemm` and `fp8gemm`, in the
// order they are tried, as a Markdown table (family, rule, kernel, when, why, report), one line per
// rule; docs/dispatch.md holds the same text (tests/host/test_dispatch_golden.cpp checks it).
// `as_json`: the rows as a JSON array.
std::string format_rule_list(const RuleTables& tables, bool as_json);

}  // namespace gemmbench
