// The parent of a --devices run: one worker process per listed GPU (gemmbench itself with
// --shard i/n --device d --json <part> --worker), their progress shown one line each, their parts
// merged into the one report the user asked for (src/merge: shards by plan index, replicas into a
// fleet summary). Host-only; the worker command is injectable so that tests run fake workers.
// docs/multi-gpu.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "fleet/workers.hpp"
#include "plan/shard.hpp"

namespace gemmbench::fleet {

// The user's arguments, less the program name and what only the parent acts on (--devices,
// --mode, --json, --csv, --markdown, --outlier-threshold, --quiet/-q, --worker), in either form
// (`--json x` or `--json=x`). Every worker gets them, followed by its own --shard, --device,
// --mode, --json and --worker.
std::vector<std::string> worker_base_args(const std::vector<std::string>& argv);

struct FleetRequest {
  FleetMode mode = FleetMode::shard;
  std::vector<int> devices;  // one worker each, in this order
  // The worker command: program, then prefix_args, then base_args, then the worker's own flags.
  // main: /proc/self/exe and no prefix; tests: /bin/sh and a fake worker script.
  std::string program;
  std::vector<std::string> prefix_args;
  std::vector<std::string> base_args;
  std::string parts_dir;  // an existing folder for the parts (part_<i>.json), removed at the end
  std::string json, csv, markdown;  // the merged outputs; empty: not written
  bool quiet = false;               // no table, no progress, no per-worker end lines
  bool progress_tty = false;        // redraw one progress line per worker (stderr is a terminal)
  double outlier_threshold_pct = kDefaultOutlierThresholdPct;
  std::string command_line;  // the parent's, recorded in the merged report
};

// The worker specs run_fleet starts: label "w<i> gpu<d>", argv as described above.
std::vector<WorkerSpec> worker_specs(const FleetRequest& req);

// Runs the workers, merges their parts, writes the outputs and prints the table (or the fleet
// summary) on `out`; worker messages and progress go to `err`. Returns the exit code: 128+signal
// when a stop was requested; else kExitWorkerLost (core/errors.hpp) when a worker was ended by a
// signal or did not start; else the highest of the workers' exit codes 2-4 (usage, no device,
// CUDA error: the worker said why); else kExitWorkerLost when a worker left no report; else 1 when
// a row FAILED verification, a row is missing, or (replicate) a GPU is an outlier; else 0.
int run_fleet(const FleetRequest& req, std::ostream& out, std::ostream& err);

}  // namespace gemmbench::fleet
