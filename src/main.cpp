// gemmbench entry point: CLI -> plan -> runner -> reporters (STYLE.md's one-way data flow).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fmt/format.h>
#include <iostream>

#include "cli/cli.hpp"
#include "compare/compare_cli.hpp"
#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/provenance.hpp"
#include "inspect/inspect.hpp"
#include "merge/merge_cli.hpp"
#include "plan/plan.hpp"
#include "plan/presets.hpp"
#include "plan/shard.hpp"
#include "plugin/plugin.hpp"
#include "report/reporter.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "runner/runner.hpp"
#include "sol/sol.hpp"
#include "verify/tolerance.hpp"
#include "version.hpp"

namespace gemmbench {
namespace {

std::string shell_join(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    const bool plain =
        !a.empty() && a.find_first_of(" \t\n'\"\\$*?[]{}();&|<>`!#~") == std::string::npos;
    std::string q = plain ? a : "'" + a + "'";
    if (!plain)
      for (size_t p = 1; (p = q.find('\'', p)) != std::string::npos && p + 1 < q.size(); p += 4)
        q.replace(p, 1, "'\\''");
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}

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

int run_benchmarks(const CliOutcome& cli) {
  const CliOptions& o = cli.options;
  // Everything the user typed is checked before the GPU is touched.
  const RunRequest req = resolve_request(o);
  // Plugins join the registry before the plan names kernels (docs/plugins.md).
  PluginSet& plugins = process_plugins();
  plugins.load_all(req.plugins);
  const Plan whole = build_plan(req.runs, MeasureSettings{}, o.measure, KernelRegistry::instance());
  const ShardChoice shard = resolve_shard(o.shard, process_env());
  const Plan plan = shard_plan(whole, shard.spec);
  const int device = shard.local_rank && !o.device_given ? *shard.local_rank : o.device;
  const std::string host = host_name();
  const std::string csv = expand_output_template(o.csv, "--csv", shard.spec.index, host);
  const std::string json = expand_output_template(o.json, "--json", shard.spec.index, host);
  if (!csv.empty()) check_output_path(csv, "--csv");
  if (!json.empty()) check_output_path(json, "--json");
  if (o.dry_run) {  // before the Runner: no CUDA call, so it works on a machine without a GPU
    if (o.shard)
      std::cout << fmt::format(
          "shard {}/{}{}: {} of the plan's {} cases, device {}; plan hash {}\n\n", shard.spec.index,
          shard.spec.count, shard.launcher.empty() ? "" : " (from " + shard.launcher + ")",
          plan.row_count(), whole.row_count(), device, plan_hash(whole));
    std::cout << format_plan(plan);
    return kExitOk;
  }

  Runner runner(device, req.seed);
  const size_t free = runner.free_bytes();
  const size_t margin = size_t(256) << 20;  // cuBLAS and the CUDA context grow a little as they run
  for (const ProblemGroup& g : plan.groups) {
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
  meta.shard_index = shard.spec.index;
  meta.shard_count = shard.spec.count;
  if (shard.spec.count > 1)
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
      "cublas: cublasGemmEx with CUBLAS_GEMM_DEFAULT and 32 MiB of workspace; cublaslt: " +
      CublasLtGemm::method();
  meta.device = runner.device();
  meta.plugins = plugins.records();

  MultiReporter reporters;
  if (!o.quiet) reporters.attach(make_console_reporter(std::cout));
  if (!csv.empty()) reporters.attach(make_csv_reporter(csv));
  if (!json.empty()) reporters.attach(make_json_reporter(json));
  PluginRowTagger out(reporters, plugins);  // rows of plugin kernels name their plugin
  out.begin(meta);
  ProgressLine progress(!o.quiet && isatty(STDERR_FILENO));
  install_stop_handlers();
  const RunSummary summary = runner.run(plan, out, [&](const Progress& p) { progress.update(p); });
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
