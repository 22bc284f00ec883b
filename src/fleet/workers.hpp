// Worker processes of a --devices run: started together with fork/exec, their output read line by
// line through pipes, a stop request (SIGINT/SIGTERM, core/interrupt.hpp) forwarded to each, and
// each one's end recorded. POSIX only; no CUDA: the parent of a --devices run never opens a GPU
// context, so that every worker owns its device. docs/multi-gpu.md, "--devices".
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gemmbench::fleet {

struct WorkerSpec {
  std::string label;              // "w1 gpu3": the prefix of its lines
  std::vector<std::string> argv;  // argv[0] is the program's path (execv: no PATH search)
};

// Where a worker stands, from its progress lines.
struct WorkerProgress {
  size_t row = 0;    // 1-based row about to run
  size_t total = 0;  // rows in its part of the plan
  std::string what;  // "hgemm_tn 4096x4096x4096 tn"
};

struct WorkerExit {
  int exit_code = -1;  // its exit status, where it exited
  int signal = 0;      // the signal that ended it, where one did (exit_code is then -1)
  double wall_s = 0;   // from its start to its end
  bool signalled() const { return signal != 0; }
};

// What run_workers reports as it goes, always from the calling thread.
class WorkerObserver {
 public:
  virtual ~WorkerObserver() = default;
  virtual void on_progress(size_t worker, const WorkerProgress& p) = 0;
  // Any other line the worker wrote, on stdout or stderr (messages, errors), without its newline.
  virtual void on_line(size_t worker, const std::string& line) = 0;
  virtual void on_exit(size_t worker, const WorkerExit& e) = 0;
  // The stop request `signal` was forwarded to the workers still running.
  virtual void on_stop(int signal) = 0;
};

// Starts every worker at once (each in its own process group, stdin from /dev/null, SIGINT and
// SIGTERM at their default, and SIGTERM sent to it if this process dies) and returns when all
// have ended, one WorkerExit each in the order of `specs`. When a stop is requested
// (stop_requested()), the same signal is sent once to each worker still running; they finish the
// sample in flight, write their report and exit. A worker that cannot be started (exec fails)
// ends with exit code 127 and says why on its stderr.
std::vector<WorkerExit> run_workers(const std::vector<WorkerSpec>& specs, WorkerObserver& observer);

// The progress protocol: a worker (gemmbench --worker) writes one line per row to stderr,
// "gemmbench-progress ROW TOTAL WHAT".
std::string progress_line(size_t row, size_t total, const std::string& what);
std::optional<WorkerProgress> parse_progress_line(const std::string& line);

}  // namespace gemmbench::fleet
