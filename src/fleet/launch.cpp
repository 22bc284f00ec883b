#include "fleet/launch.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "fleet/orchestrate.hpp"
#include "report/reporter.hpp"
#include "util/process.hpp"

namespace gemmbench::fleet {

namespace {

namespace fs = std::filesystem;

// An output path of a --devices run: {host} expanded, {rank} refused (there is one report).
std::string fleet_output(const std::string& path, const char* flag, const std::string& host) {
  if (path.empty()) return path;
  if (path.find("{rank}") != std::string::npos)
    throw UsageError(fmt::format(
        "{}: '{}' holds {{rank}}, but --devices merges the workers' parts into one report", flag,
        path));
  const std::string out = expand_output_template(path, flag, 0, host);
  check_output_path(out, flag);
  return out;
}

// --dry-run: each worker's share of the plan, then the plan.
int list_fleet(const FleetLaunch& l, const Plan& whole, std::ostream& out) {
  if (l.devices.all) {
    out << fmt::format(
        "--devices all: one worker per visible GPU, counted when the run starts; {} {} "
        "cases; plan hash {}\n\n",
        l.mode == FleetMode::replicate ? "each runs all" : "together they run the plan's",
        whole.row_count(), plan_hash(whole));
    out << format_plan(whole);
    return kExitOk;
  }
  const auto& list = l.devices.list;
  for (size_t i = 0; i < list.size(); ++i) {
    const Plan part =
        l.mode == FleetMode::replicate ? whole : shard_plan(whole, {int(i), int(list.size())});
    out << fmt::format("worker {} on device {} ({} {}/{}): {} of the plan's {} cases\n", i, list[i],
                       to_string(l.mode), i, list.size(), part.row_count(), whole.row_count());
  }
  out << fmt::format("plan hash {}\n\n", plan_hash(whole));
  out << format_plan(whole);
  return kExitOk;
}

// The devices the workers run on, checked here, once, with the message a bad --device gets.
std::vector<int> worker_devices(const FleetLaunch& l) {
  const int count = l.device_count();
  std::vector<int> devices;
  if (l.devices.all)
    for (int d = 0; d < count; ++d) devices.push_back(d);
  else
    devices = l.devices.list;
  for (int d : devices)
    if (d >= count)
      throw UsageError(
          fmt::format("--devices: device {}: this machine has {} CUDA device(s), "
                      "indices 0..{}",
                      d, count, count - 1));
  const std::set<int> distinct(devices.begin(), devices.end());
  if (distinct.size() < devices.size())
    std::fprintf(stderr,
                 "gemmbench: note: a device is listed more than once; its workers share one GPU "
                 "and disturb each other's timings (for testing the workers, not for numbers)\n");
  return devices;
}

// A fresh folder for the workers' parts, beside the first output (else in the temp folder).
std::string make_parts_dir(const FleetRequest& req) {
  const std::string first_output = !req.json.empty()  ? req.json
                                   : !req.csv.empty() ? req.csv
                                                      : req.markdown;
  const fs::path base =
      first_output.empty() ? fs::temp_directory_path() : fs::absolute(first_output).parent_path();
  std::string dir = (base / ".gemmbench-parts-XXXXXX").string();
  if (!mkdtemp(dir.data()))
    throw UsageError(fmt::format("cannot create a folder for the workers' parts in {}: {}",
                                 base.string(), std::strerror(errno)));
  return dir;
}

}  // namespace

bool needs_workers(const std::optional<DevicesArg>& devices, FleetMode mode) {
  return devices && (mode == FleetMode::replicate || devices->all || devices->list.size() > 1);
}

int launch_fleet(const FleetLaunch& l, const Plan& whole, std::ostream& out) {
  const std::string host = host_name();
  FleetRequest req;
  req.mode = l.mode;
  req.outlier_threshold_pct = l.outlier_threshold_pct;
  req.json = fleet_output(l.json, "--json", host);
  req.csv = fleet_output(l.csv, "--csv", host);
  req.markdown = fleet_output(l.markdown, "--markdown", host);
  if (l.dry_run) return list_fleet(l, whole, out);
  req.devices = worker_devices(l);
  req.parts_dir = make_parts_dir(req);
  std::error_code ec;
  req.program = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) req.program = l.argv.at(0);
  req.base_args = worker_base_args(l.argv);
  req.quiet = l.quiet;
  req.progress_tty = isatty(STDERR_FILENO);
  req.command_line = shell_join(l.argv);
  if (!l.quiet)
    std::fprintf(stderr, "gemmbench: %zu workers, --mode %s; their parts go to %s until merged\n",
                 req.devices.size(), to_string(req.mode), req.parts_dir.c_str());
  install_stop_handlers();
  const int code = run_fleet(req, out, std::cerr);
  // Empty unless the merge failed: then the parts stay for `gemmbench merge`.
  fs::remove(req.parts_dir, ec);
  return code;
}

}  // namespace gemmbench::fleet
