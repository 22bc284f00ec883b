#include "fleet/orchestrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "merge/merge.hpp"
#include "merge/replicate.hpp"
#include "report/json_codec.hpp"
#include "report/report_file.hpp"
#include "report/report_reader.hpp"
#include "report/reporter.hpp"

namespace gemmbench::fleet {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string part_path(const FleetRequest& req, size_t i) {
  return (fs::path(req.parts_dir) / fmt::format("part_{}.json", i)).string();
}

std::string signal_text(int sig) {
  const char* name = strsignal(sig);
  return fmt::format("signal {} ({})", sig, name ? name : "?");
}

// One line per worker on a terminal, redrawn in place; elsewhere nothing but the workers' own
// messages and one line as each ends. Every line carries the worker's label.
class Board : public WorkerObserver {
 public:
  Board(const std::vector<WorkerSpec>& specs, std::ostream& err, bool tty, bool quiet)
      : err_(err), tty_(tty && !quiet), quiet_(quiet), t0_(Clock::now()) {
    for (const WorkerSpec& s : specs) workers_.push_back({s.label, "starting", {}});
    draw();
  }

  void on_progress(size_t w, const WorkerProgress& p) override {
    Worker& x = workers_[w];
    x.progress = p;
    const double elapsed = seconds();
    std::string eta = "--";
    if (p.row > 1)
      eta = fmt::format("{:.0f}s", elapsed / double(p.row - 1) * double(p.total - p.row + 1));
    x.state =
        fmt::format("[{}/{}] {}  elapsed {:.0f}s  ETA {}", p.row, p.total, p.what, elapsed, eta);
    draw();
  }
  void on_line(size_t w, const std::string& line) override {
    message(fmt::format("[{}] {}", workers_[w].label, line));
  }
  void on_exit(size_t w, const WorkerExit& e) override {
    Worker& x = workers_[w];
    x.state = e.signalled()
                  ? fmt::format("ENDED by {} after {:.1f} s", signal_text(e.signal), e.wall_s)
                  : fmt::format("exit {} after {:.1f} s", e.exit_code, e.wall_s);
    if (!quiet_ || e.signalled() || e.exit_code != 0)
      message(fmt::format("[{}] {}", x.label, x.state));
    else
      draw();
  }
  void on_stop(int sig) override {
    message(
        fmt::format("gemmbench: {} forwarded to the workers; each finishes its sample in "
                    "flight and writes its report",
                    signal_name(sig)));
  }
  void finish() { clear(); }

 private:
  struct Worker {
    std::string label, state;
    WorkerProgress progress;
  };
  double seconds() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
  void clear() {
    if (!tty_ || drawn_ == 0) return;
    err_ << fmt::format("\033[{}A\r\033[J", drawn_);
    drawn_ = 0;
  }
  void draw() {
    if (!tty_) return;
    clear();
    for (const Worker& w : workers_) err_ << fmt::format("[{}] {}\n", w.label, w.state);
    drawn_ = workers_.size();
    err_.flush();
  }
  void message(const std::string& text) {
    clear();
    err_ << text << "\n";
    err_.flush();
    draw();
  }

  std::ostream& err_;
  bool tty_, quiet_;
  Clock::time_point t0_;
  std::vector<Worker> workers_;
  size_t drawn_ = 0;
};

// What the merged report says about the run itself: the parent's command line and each worker.
void describe_run(json& meta, const FleetRequest& req, const std::vector<WorkerSpec>& specs,
                  const std::vector<WorkerExit>& exits, double wall_s) {
  meta["command_line"] = req.command_line;
  meta["devices"] = req.devices;
  json workers = json::array();
  for (size_t i = 0; i < specs.size(); ++i) {
    const WorkerExit& e = exits[i];
    workers.push_back({{"worker", i},
                       {"label", specs[i].label},
                       {"device", req.devices[i]},
                       {"exit_code", e.signalled() ? json(nullptr) : json(e.exit_code)},
                       {"signal", e.signalled() ? json(signal_text(e.signal)) : json(nullptr)},
                       {"wall_s", e.wall_s}});
  }
  meta["workers"] = std::move(workers);
  meta["wall_s"] = wall_s;
}

void mark_interrupted(json& summary, int sig) {
  summary["interrupted"] = true;
  summary["interrupted_by"] = signal_name(sig);
  summary["complete"] = false;
}

}  // namespace

std::vector<std::string> worker_base_args(const std::vector<std::string>& argv) {
  static const std::vector<std::string> with_value = {
      "--devices", "--mode", "--json", "--csv", "--markdown", "--outlier-threshold"};
  static const std::vector<std::string> flags = {"--quiet", "-q", "--worker"};
  std::vector<std::string> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const std::string name = a.substr(0, a.find('='));
    if (std::find(flags.begin(), flags.end(), a) != flags.end()) continue;
    if (std::find(with_value.begin(), with_value.end(), name) != with_value.end()) {
      if (name == a) ++i;  // "--json x": the value is the next argument
      continue;
    }
    out.push_back(a);
  }
  return out;
}

std::vector<WorkerSpec> worker_specs(const FleetRequest& req) {
  std::vector<WorkerSpec> specs;
  const size_t n = req.devices.size();
  for (size_t i = 0; i < n; ++i) {
    WorkerSpec s;
    s.label = fmt::format("w{} gpu{}", i, req.devices[i]);
    s.argv.push_back(req.program);
    s.argv.insert(s.argv.end(), req.prefix_args.begin(), req.prefix_args.end());
    s.argv.insert(s.argv.end(), req.base_args.begin(), req.base_args.end());
    s.argv.insert(s.argv.end(), {"--shard", fmt::format("{}/{}", i, n), "--device",
                                 std::to_string(req.devices[i]), "--mode", to_string(req.mode),
                                 "--json", part_path(req, i), "--worker"});
    specs.push_back(std::move(s));
  }
  return specs;
}

int run_fleet(const FleetRequest& req, std::ostream& out, std::ostream& err) {
  const std::vector<WorkerSpec> specs = worker_specs(req);
  const auto t0 = Clock::now();
  Board board(specs, err, req.progress_tty, req.quiet);
  const std::vector<WorkerExit> exits = run_workers(specs, board);
  board.finish();
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const int stop = stop_signal().load();

  // The parts: every worker's report that can be read. A worker that never wrote one (it failed
  // before its first row, or its file is not a report) is lost; its rows show as missing.
  std::vector<Report> parts;
  bool killed = false, lost = false;
  int worst = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const WorkerExit& e = exits[i];
    // A signal, one caught (exit 128+n: stopped by someone else than this parent), or no start.
    if (e.signalled() || e.exit_code == 127 || e.exit_code >= 128) killed = true;
    if (!e.signalled() && e.exit_code >= kExitUsage && e.exit_code <= kExitCudaError)
      worst = std::max(worst, e.exit_code);
    std::error_code ec;
    if (!fs::exists(part_path(req, i), ec)) {
      lost = true;
      err << fmt::format("gemmbench: [{}] wrote no report\n", specs[i].label);
      continue;
    }
    try {
      parts.push_back(load_report(part_path(req, i)));
    } catch (const UsageError& x) {
      lost = true;
      err << fmt::format("gemmbench: [{}] left no usable report: {}\n", specs[i].label, x.what());
    }
  }
  if (parts.empty()) {
    err << "gemmbench: no worker wrote a report; nothing to merge\n";
    if (stop) return exit_code_for_signal(stop);
    return !killed && worst ? worst : kExitWorkerLost;
  }

  int merged_code = 0;
  bool failed_rows = false;
  if (req.mode == FleetMode::shard) {
    merge::Merged m = merge::merge_reports(parts);
    describe_run(m.report["metadata"], req, specs, exits, wall_s);
    m.report["metadata"]["mode"] = "shard";
    if (stop) {
      mark_interrupted(m.report["summary"], stop);
      m.summary.interrupted_by = stop;
    }
    // As every report writer: one row per line, gzip-compressed for a .gz name.
    if (!req.json.empty()) write_file_atomic(req.json, report_text(m.report));
    const RunMetadata meta = run_metadata_from_json(m.report["metadata"]);
    MultiReporter reporters;
    if (!req.quiet) reporters.attach(make_console_reporter(out));
    if (!req.csv.empty()) reporters.attach(make_csv_reporter(req.csv));
    reporters.begin(meta);
    for (const CaseResult& r : m.rows) reporters.add(r);
    reporters.end(m.summary);
    if (!req.quiet || !m.missing.empty() || !m.duplicated.empty()) out << merge::format_console(m);
    merged_code = merge::exit_code(m);
    failed_rows = m.summary.failed > 0;
  } else {
    merge::ReplicaMerge m = merge::merge_replicas(parts, req.outlier_threshold_pct);
    describe_run(m.report["metadata"], req, specs, exits, wall_s);
    if (stop) mark_interrupted(m.report["summary"], stop);
    if (!req.json.empty()) write_file_atomic(req.json, report_text(m.report));
    if (!req.csv.empty()) merge::write_fleet_csv(m, req.csv);
    if (!req.markdown.empty()) write_file_atomic(req.markdown, merge::format_fleet_markdown(m));
    out << merge::format_fleet_console(m);
    merged_code = merge::exit_code(m);
    failed_rows = m.summary.failed > 0;
  }
  out.flush();
  for (size_t i = 0; i < specs.size(); ++i) {  // all in the merged report now
    std::error_code ec;
    fs::remove(part_path(req, i), ec);
  }

  if (stop) {
    err << fmt::format(
        "gemmbench: stopped by {}; the merged report holds every row the workers "
        "finished\n",
        signal_name(stop));
    return exit_code_for_signal(stop);
  }
  if (killed || (lost && !worst)) {
    err << "gemmbench: a worker ended without finishing its part; its missing rows are listed "
           "above and in the report's summary\n";
    return kExitWorkerLost;
  }
  if (worst) return worst;  // the worker said why (usage, no GPU, CUDA error) on its lines above
  return merged_code || failed_rows ? kExitFailedVerification : kExitOk;
}

}  // namespace gemmbench::fleet
