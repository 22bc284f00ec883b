// gemmbench entry point: CLI -> plan -> runner -> reporters
// (docs/contributing.md#the-shape-of-the-program).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fmt/format.h>
#include <iostream>

#include "cli/cli.hpp"
#include "compare/compare_cli.hpp"
#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/provenance.hpp"
#include "device/open.hpp"
#include "fleet/launch.hpp"
#include "fleet/orchestrate.hpp"
#include "inspect/inspect.hpp"
#include "merge/merge_cli.hpp"
#include "plan/plan.hpp"
#include "plan/presets.hpp"
#include "plan/shard.hpp"
#include "plugin/plugin.hpp"
#include "report/reporter.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "runner/grouped_gemm.hpp"
#include "runner/runner.hpp"
#include "sol/sol.hpp"
#include "util/process.hpp"
#include "verify/tolerance.hpp"
#include "version.hpp"

namespace gemmbench {
namespace {

std::string gib(size_t bytes) {
  return fmt::format("{:.2f} GiB", double(bytes) / double(1ull << 30));
}

// Progress on stderr, only when it is a terminal: nothing of it reaches files or pipes.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled), t0_(std::chrono::steady_clock::now()) {}
  void update(const Progress& p) {
    if (!enabled_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    std::string eta = "--";
    if (p.row > 1)
      eta = fmt::format("{:.0f}s", elapsed / double(p.row - 1) * double(p.total - p.row + 1));
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s  elapsed %.0fs  ETA %s", p.row, p.total,
                 p.kernel.c_str(), p.group->problem.shape_string().c_str(),
                 to_string(p.group->problem.layout), elapsed, eta.c_str());
    std::fflush(stderr);
  }
  void clear() {
    if (enabled_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point t0_;
};

// --devices with more than one worker (or --mode replicate): this process starts the workers and
// merges their parts; it opens no GPU itself (src/fleet).
int run_devices(const CliOutcome& cli, const Plan& whole, const FleetChoice& fleet) {
  const CliOptions& o = cli.options;
  fleet::FleetLaunch launch;
  launch.devices = *fleet.devices;
  launch.mode = fleet.mode;
  launch.outlier_threshold_pct = fleet.outlier_threshold_pct;
  launch.json = o.json;
  launch.csv = o.csv;
  launch.markdown = o.markdown;
  launch.quiet = o.quiet;
  launch.dry_run = o.dry_run;
  launch.argv = cli.argv;
  launch.device_count = [] { return cuda_device_count(); };
  return fleet::launch_fleet(launch, whole, std::cout);
}

int run_benchmarks(const CliOutcome& cli) {
  const CliOptions& o = cli.options;
  // Everything the user typed is checked before the GPU is touched.
  const RunRequest req = resolve_request(o);
  // Plugins join the registry before the plan names kernels (docs/plugins.md).
  PluginSet& plugins = process_plugins();
  plugins.load_all(req.plugins);
  const Plan whole = build_plan(req.runs, MeasureSettings{}, o.measure, KernelRegistry::instance());
  const FleetChoice fleet = resolve_fleet(o, req);
  if (fleet::needs_workers(fleet.devices, fleet.mode)) return run_devices(cli, whole, fleet);
  const ShardChoice shard = resolve_shard(o.shard, process_env());
  const bool replicate = fleet.mode == FleetMode::replicate;  // with --shard: the whole plan here
  const Plan plan = replicate ? whole : shard_plan(whole, shard.spec);
  // One device listed: this process runs on it, as --device would.
  const int device = fleet.devices                         ? fleet.devices->list.front()
                     : shard.local_rank && !o.device_given ? *shard.local_rank
                                                           : o.device;
  const bool quiet = o.quiet || o.worker;  // a worker's parent prints the table
  const std::string host = host_name();
  const std::string csv = expand_output_template(o.csv, "--csv", shard.spec.index, host);
  const std::string json = expand_output_template(o.json, "--json", shard.spec.index, host);
  if (!csv.empty()) check_output_path(csv, "--csv");
  if (!json.empty()) check_output_path(json, "--json");
  if (o.dry_run) {  // before the Runner: no CUDA call, so it works on a machine without a GPU
    if (o.shard)
      std::cout << fmt::format("{} {}/{}{}: {} of the plan's {} cases, device {}; plan hash {}\n\n",
                               replicate ? "replica" : "shard", shard.spec.index, shard.spec.count,
                               shard.launcher.empty() ? "" : " (from " + shard.launcher + ")",
                               plan.row_count(), whole.row_count(), device, plan_hash(whole));
    std::cout << format_plan(plan);
    return kExitOk;
  }

  grouped_alloc_order();  // the experiment's switch (runner/grouped_gemm.hpp): a typo exits 2 here
  Runner runner(device, req.seed);
  const size_t free = runner.free_bytes();
  const size_t margin = size_t(256) << 20;  // cuBLAS and the CUDA context grow a little as they run
  for (const ProblemGroup& g : plan.groups) {
    if (!why_group_cannot_run(g).empty()) continue;  // its rows are skipped, nothing allocated
    const size_t need = Runner::bytes_needed(g);
    if (need + margin > free)
      throw UsageError(fmt::format(
          "{} {} {}/{}: needs {} of device memory (operands{}), {} free on {}",
          g.problem.shape_string(), to_string(g.problem.layout), to_string(g.problem.dtype),
          to_string(g.problem.accum), gib(need), g.measure.verify ? " and fp64 reference" : "",
          gib(free), runner.device().name));
  }

  RunMetadata meta;
  meta.tool_version = kVersion;
  meta.git_commit = kGitCommit;
  meta.command_line = shell_join(cli.argv);
  meta.config_file = req.config_file;
  meta.date_utc = utc_now();
  meta.host = host;
  meta.plan_hash = plan_hash(whole);
  meta.plan_rows = whole.row_count();
  meta.mode = to_string(fleet.mode);
  if (replicate) {
    meta.replica_index = shard.spec.index;
    meta.replica_count = shard.spec.count;
  } else {
    meta.shard_index = shard.spec.index;
    meta.shard_count = shard.spec.count;
  }
  if (meta.shard_count > 1)
    for (PlannedCase& c : planned_cases(plan)) meta.shard_planned.emplace_back(c.index, c.label);
  meta.seed = req.seed;
  for (const ProblemGroup& g : plan.groups)
    if (std::find(meta.data_used.begin(), meta.data_used.end(), g.measure.data) ==
        meta.data_used.end())
      meta.data_used.push_back(g.measure.data);
  meta.data_distribution = data_distribution_text(meta.data_used);
  for (const ProblemGroup& g : plan.groups) {
    const std::string r = to_string(g.measure.regime);
    if (meta.regime.find(r) == std::string::npos)
      meta.regime += (meta.regime.empty() ? "" : ",") + r;
  }
  meta.timing_method = Runner::timing_method();
  meta.flops_convention = kFlopsConvention;
  meta.verification = kVerificationMethod;
  meta.sol_intensity_rule = kSolIntensityRule;
  for (const ProblemGroup& g : plan.groups)
    if (std::find(meta.baselines_used.begin(), meta.baselines_used.end(), g.measure.baseline) ==
        meta.baselines_used.end())
      meta.baselines_used.push_back(g.measure.baseline);
  meta.baseline_method =
      "cublas: cublasGemmEx with CUBLAS_GEMM_DEFAULT and 32 MiB of workspace (FP8 problems: "
      "cublasGemmEx has no FP8, their cublas row is the cuBLASLt call below with the problem's "
      "scaling, provider 'cublaslt'); cublaslt: " +
      CublasLtGemm::method();
  meta.device = runner.device();
  meta.plugins = plugins.records();

  MultiReporter reporters;
  if (!quiet) reporters.attach(make_console_reporter(std::cout));
  if (!csv.empty()) reporters.attach(make_csv_reporter(csv));
  if (!json.empty()) reporters.attach(make_json_reporter(json));
  PluginRowTagger out(reporters, plugins);  // rows of plugin kernels name their plugin
  out.begin(meta);
  ProgressLine progress(!quiet && isatty(STDERR_FILENO));
  install_stop_handlers();
  const RunSummary summary = runner.run(plan, out, [&](const Progress& p) {
    if (o.worker)  // the parent shows it, one line per worker
      std::fprintf(
          stderr, "%s\n",
          fleet::progress_line(p.row, p.total,
                               fmt::format("{} {} {}", p.kernel, p.group->problem.shape_string(),
                                           to_string(p.group->problem.layout)))
              .c_str());
    else
      progress.update(p);
  });
  progress.clear();
  out.end(summary);
  if (summary.aborted) {
    std::fprintf(
        stderr, "gemmbench: %s; %zu of %zu rows ran before it, all rows are in the reports\n",
        summary.abort_reason.c_str(), summary.rows_written - summary.errors, summary.rows_planned);
    return kExitCudaError;
  }
  if (summary.interrupted_by) {
    std::fprintf(stderr, "gemmbench: stopped by %s after %zu of %zu rows; the reports hold them\n",
                 signal_name(summary.interrupted_by), summary.rows_written, summary.rows_planned);
    return exit_code_for_signal(summary.interrupted_by);
  }
  return summary.failed > 0 ? kExitFailedVerification : kExitOk;
}

int main_impl(int argc, char** argv) {
  std::function<int()> inspect_main, compare_main, merge_main;
  const CliOutcome cli =
      parse_command_line(std::vector<std::string>(argv, argv + argc), [&](CLI::App& app) {
        inspect_main = inspect::add_subcommand(app);
        compare_main = compare::add_subcommand(app, std::cout);
        merge_main = merge::add_subcommand(app, std::cout);
      });
  switch (cli.kind) {
    case CliOutcome::Kind::exit:
      std::cout << cli.text;
      return cli.exit_code;
    case CliOutcome::Kind::list:
      process_plugins().load_all(cli_plugin_sources(cli.options));
      if (cli.options.list_rules)
        std::cout << format_rule_list(RuleTables::instance(), cli.options.list_json);
      else
        std::cout << format_kernel_list(KernelRegistry::instance(), cli.options.list_json,
                                        cli.options.list_all);
      return kExitOk;
    case CliOutcome::Kind::presets:
      std::cout << format_preset_list();
      return kExitOk;
    case CliOutcome::Kind::extension:
      if (cli.extension == "compare") return compare_main();
      if (cli.extension == "merge") return merge_main();
      return inspect_main();
    case CliOutcome::Kind::run:
      break;
  }
  return run_benchmarks(cli);
}

}  // namespace
}  // namespace gemmbench

int main(int argc, char** argv) {
  using namespace gemmbench;
  try {
    return main_impl(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "gemmbench: %s\n", e.what());
    return kExitUsage;
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "gemmbench: %s\n", e.what());
    return kExitNoDevice;
  } catch (const CudaError& e) {
    std::fprintf(stderr, "gemmbench: CUDA error: %s\n", e.what());
    return kExitCudaError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmbench: internal error: %s\n", e.what());
    return kExitCudaError;
  }
}
