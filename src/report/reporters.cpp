#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <ostream>

#include "core/errors.hpp"
#include "report/json_codec.hpp"
#include "report/reporter.hpp"

namespace gemmbench {

namespace {

std::string accum_label(const GemmProblem& p) {
  return std::string(to_string(p.dtype)) + "/" + to_string(p.accum);
}

// How the values of each distribution are made, for the report's data_distribution.
const char* data_description(DataDist d) {
  switch (d) {
    case DataDist::uniform:
      return "uniform [-1, 1), counter-based hash (splitmix64) of (seed, tensor, index), "
             "generated on the device and rounded to the input type";
    case DataDist::int3:
      return "integers uniform in [-3, 3] (cutlass_profiler's default f16 fill; low-entropy, "
             "draws less power and runs faster than uniform data on a power-capped GPU), "
             "counter-based hash (splitmix64) of (seed, tensor, index), generated on the device, "
             "exact in every input type";
  }
  return "?";
}

// The values in a few words, for the console's warning.
const char* data_range(DataDist d) {
  return d == DataDist::uniform ? "uniform [-1,1)" : "integers in [-3,3]";
}

// ---------------------------------------------------------------- console
class ConsoleReporter : public Reporter {
 public:
  explicit ConsoleReporter(std::ostream& out) : out_(out) {}

  void begin(const RunMetadata& m) override {
    const DeviceMetadata& d = m.device;
    out_ << fmt::format("gemmbench {} ({}) on {} (sm_{}, {} SMs), driver {}, CUDA {}, cuBLAS {}\n",
                        m.tool_version, m.git_commit, d.name, d.sm, d.num_sms, d.driver_version,
                        d.cuda_runtime, d.cublas_version);
    out_ << fmt::format("seed {}, {}; TFLOP/s = 2*M*N*K / median time\n", m.seed,
                        m.data_distribution);
    // Low-entropy data flatters every row: say so where nobody can miss it, before the table.
    const bool mixed = m.data_used.size() > 1;
    for (DataDist d : m.data_used)
      if (d != DataDist::uniform)
        out_ << fmt::format(
            "data: {} ({}){} -- low-entropy inputs, not comparable with uniform-data figures\n",
            to_string(d), data_range(d),
            mixed ? fmt::format(" on the rows marked [{} data]", to_string(d)) : "");
    for (Baseline b : m.baselines_used) show_cublaslt_ = show_cublaslt_ || uses_cublaslt(b);
    out_ << "\n";
    out_ << fmt::format("{:<26} {:>20} {:>6} {:>8} {:>10} {:>9} {:>8} {}{:>9}  {}\n", "kernel",
                        "MxNxK", "layout", "type", "median ms", "TFLOP/s", "% cuBLAS",
                        show_cublaslt_ ? fmt::format("{:>10} ", "% cuBLASLt") : "", "rel err",
                        "status");
    out_.flush();
  }

  void add(const CaseResult& r) override {
    const std::string ms = r.time ? fmt::format("{:.4f}", r.time->median_ms) : "-";
    const std::string tf = r.tflops ? fmt::format("{:.2f}", *r.tflops) : "-";
    const std::string pct =
        r.ratio_to_cublas ? fmt::format("{:.1f}%", 100.0 * *r.ratio_to_cublas) : "-";
    const std::string pct_lt =
        r.ratio_to_cublaslt ? fmt::format("{:.1f}%", 100.0 * *r.ratio_to_cublaslt) : "-";
    const std::string err = r.error.computed ? fmt::format("{:.2e}", r.error.normwise) : "-";
    std::string status = to_string(r.status);
    if (!r.reason.empty()) status += ": " + r.reason;
    if (r.provider == "cublaslt" && r.cublaslt_algo)
      status += " [" + cublaslt_algo_text(*r.cublaslt_algo) + "]";
    if (r.clock.throttled)
      status += " [clock " + std::to_string(r.clock.sm_clock_mhz.value_or(0)) + " MHz: throttled]";
    if (r.measure.data != DataDist::uniform)
      status += std::string(" [") + to_string(r.measure.data) + " data]";
    out_ << fmt::format("{:<26} {:>20} {:>6} {:>8} {:>10} {:>9} {:>8} {}{:>9}  {}\n", r.kernel,
                        r.problem.shape_string(), to_string(r.problem.layout),
                        accum_label(r.problem), ms, tf, pct,
                        show_cublaslt_ ? fmt::format("{:>10} ", pct_lt) : "", err, status);
    out_.flush();
  }

  void end(const RunSummary& s) override {
    out_ << fmt::format("\n{} rows: {} ok, {} FAILED, {} skipped, {} error\n", s.rows_written, s.ok,
                        s.failed, s.skipped, s.errors);
    if (s.aborted) out_ << "run aborted: " << s.abort_reason << "\n";
    out_.flush();
  }

 private:
  std::ostream& out_;
  bool show_cublaslt_ = false;  // a "% cuBLASLt" column: some run's baseline uses cuBLASLt
};

// ---------------------------------------------------------------- CSV
std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

template <class T>
std::string opt_str(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}

class CsvReporter : public Reporter {
 public:
  explicit CsvReporter(const std::string& path) : path_(path) {
    out_.open(path, std::ios::out | std::ios::trunc);
    if (!out_) throw UsageError("cannot write --csv file '" + path + "'");
  }

  void begin(const RunMetadata& m) override {
    device_ = m.device.name;
    std::string header;
    for (const auto& c : csv_columns()) header += (header.empty() ? "" : ",") + c;
    out_ << header << "\n" << std::flush;
  }

  void add(const CaseResult& r) override {
    const auto& p = r.problem;
    const auto t = r.time.value_or(TimingStats{});
    const bool timed = r.time.has_value();
    auto tv = [&](double v) { return timed ? fmt::format("{}", v) : std::string(); };
    const std::vector<std::string> cells = {
        std::to_string(r.index),
        r.run_name,
        r.kernel,
        r.provider,
        r.family,
        std::to_string(p.m),
        std::to_string(p.n),
        std::to_string(p.k),
        to_string(p.layout),
        to_string(p.dtype),
        to_string(p.accum),
        fmt::format("{}", p.alpha),
        fmt::format("{}", p.beta),
        to_string(r.status),
        tv(t.median_ms),
        tv(t.min_ms),
        tv(t.p10_ms),
        tv(t.p90_ms),
        tv(t.mean_ms),
        tv(t.stdev_ms),
        std::to_string(timed ? t.samples : 0),
        opt_str(r.tflops),
        opt_str(r.cublas_median_ms),
        opt_str(r.ratio_to_cublas),
        opt_str(r.cublaslt_median_ms),
        opt_str(r.ratio_to_cublaslt),
        r.cublaslt_algo ? cublaslt_algo_text(*r.cublaslt_algo) : "",
        r.cublaslt_algo ? fmt::format("{}", r.cublaslt_algo->gain_over_heuristic) : "",
        r.error.computed ? "true" : "false",
        r.error.computed ? fmt::format("{}", r.error.max_abs) : "",
        r.error.computed ? fmt::format("{}", r.error.max_rel) : "",
        r.error.computed ? fmt::format("{}", r.error.normwise) : "",
        r.error.computed ? std::to_string(r.error.nonfinite) : "",
        r.error.computed ? fmt::format("{}", r.error.tolerance) : "",
        opt_str(r.clock.sm_clock_mhz),
        opt_str(r.clock.sm_clock_max_mhz),
        opt_str(r.clock.power_w),
        opt_str(r.clock.temperature_c),
        r.clock.throttled ? "true" : "false",
        r.clock.throttle_reasons,
        to_string(r.measure.cache),
        to_string(r.measure.data),
        to_string(r.measure.baseline),
        device_,
        r.reason};
    std::string line;
    for (const auto& c : cells) line += (line.empty() ? "" : ",") + csv_escape(c);
    out_ << line << "\n" << std::flush;
  }

  void end(const RunSummary&) override { out_.flush(); }

 private:
  std::string path_;
  std::ofstream out_;
  std::string device_;
};

// ---------------------------------------------------------------- JSON
class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(const std::string& path) : path_(path) {}

  void begin(const RunMetadata& m) override {
    doc_ = nlohmann::json{{"metadata", to_json(m)},
                          {"results", nlohmann::json::array()},
                          {"summary", {{"complete", false}, {"in_progress", true}}}};
    flush();
  }
  void add(const CaseResult& r) override {
    doc_["results"].push_back(to_json(r));
    flush();
  }
  void end(const RunSummary& s) override {
    doc_["summary"] = to_json(s);
    flush();
  }

 private:
  void flush() {
    const std::string tmp = path_ + ".tmp";
    {
      std::ofstream out(tmp, std::ios::out | std::ios::trunc);
      out << doc_.dump(2) << "\n";
      if (!out) throw std::runtime_error("cannot write JSON report '" + tmp + "'");
    }
    if (std::rename(tmp.c_str(), path_.c_str()) != 0)
      throw std::runtime_error("cannot rename '" + tmp + "' to '" + path_ +
                               "': " + std::strerror(errno));
  }

  std::string path_;
  nlohmann::json doc_;
};

}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> cols = {"index",
                                                "run",
                                                "kernel",
                                                "provider",
                                                "family",
                                                "m",
                                                "n",
                                                "k",
                                                "layout",
                                                "dtype",
                                                "accum",
                                                "alpha",
                                                "beta",
                                                "status",
                                                "median_ms",
                                                "min_ms",
                                                "p10_ms",
                                                "p90_ms",
                                                "mean_ms",
                                                "stdev_ms",
                                                "samples",
                                                "tflops",
                                                "cublas_median_ms",
                                                "ratio_to_cublas",
                                                "cublaslt_median_ms",
                                                "ratio_to_cublaslt",
                                                "cublaslt_algo",
                                                "cublaslt_gain_over_heuristic",
                                                "verified",
                                                "max_abs_err",
                                                "max_rel_err",
                                                "normwise_err",
                                                "nonfinite",
                                                "tolerance",
                                                "sm_clock_mhz",
                                                "sm_clock_max_mhz",
                                                "power_w",
                                                "temperature_c",
                                                "throttled",
                                                "throttle_reasons",
                                                "cache",
                                                "data",
                                                "baseline",
                                                "device",
                                                "reason"};
  return cols;
}

std::string data_distribution_text(const std::vector<DataDist>& used) {
  std::vector<DataDist> named;
  for (DataDist d : used)
    if (std::find(named.begin(), named.end(), d) == named.end()) named.push_back(d);
  if (named.empty() || named == std::vector<DataDist>{DataDist::uniform})
    return data_description(DataDist::uniform);
  std::string out;
  for (DataDist d : named)
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", to_string(d), data_description(d));
  if (named.size() > 1) out += " (each row's measure.data says which)";
  return out;
}

std::string cublaslt_algo_text(const CublasLtChoice& c) {
  std::string s =
      fmt::format("algo {} tile {} stages {} splitK {}", c.algo_id, c.tile, c.stages, c.splitk);
  if (c.splitk > 1) s += fmt::format(" reduction {}", c.reduction);
  s += fmt::format(" cluster {} swizzle {}", c.cluster, c.cta_swizzling);
  if (c.custom_option != 0) s += fmt::format(" custom {}", c.custom_option);
  return s + fmt::format(" (heuristic #{} of {}, {:.3f}x over #1)", c.heuristic_index + 1,
                         c.candidates, c.gain_over_heuristic);
}

void check_output_path(const std::string& path, const char* flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw UsageError(std::string(flag) + ": empty path");
  if (fs::is_directory(path, ec))
    throw UsageError(std::string(flag) + " '" + path + "' is a directory");
  const bool existed = fs::exists(path, ec);
  {
    std::ofstream probe(path, std::ios::out | std::ios::app);
    if (!probe)
      throw UsageError(std::string(flag) + ": cannot write '" + path + "' (" +
                       std::strerror(errno) + ")");
  }
  if (!existed) fs::remove(path, ec);
}

std::unique_ptr<Reporter> make_console_reporter(std::ostream& out) {
  return std::make_unique<ConsoleReporter>(out);
}
std::unique_ptr<Reporter> make_csv_reporter(const std::string& path) {
  return std::make_unique<CsvReporter>(path);
}
std::unique_ptr<Reporter> make_json_reporter(const std::string& path) {
  return std::make_unique<JsonReporter>(path);
}

}  // namespace gemmbench
