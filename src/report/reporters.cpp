#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <ostream>

#include "core/interrupt.hpp"
#include "core/errors.hpp"
#include "report/json_codec.hpp"
#include "report/report_file.hpp"
#include "report/reporter.hpp"

namespace gemmbench {

namespace {

std::string accum_label(const GemmProblem& p) {
  return p.input_types() + "/" + to_string(p.accum);
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
    out_ << fmt::format(
        "regime {}; power limit {}; memory bandwidth {} measured, {} datasheet\n",
        m.regime.empty() ? "sustained" : m.regime,
        d.power_limit_w ? fmt::format("{:.0f} W", *d.power_limit_w) : "n/a",
        d.mem_bw_measured_gbs ? fmt::format("{:.0f} GB/s", *d.mem_bw_measured_gbs) : "n/a",
        d.mem_bw_datasheet_gbs ? fmt::format("{:.0f} GB/s", *d.mem_bw_datasheet_gbs) : "n/a");
    out_ << "% SOL: TFLOP/s over the roofline bound min(compute ceiling at the maximum SM clock, "
            "FLOP/byte x memory bandwidth); m = memory-bound shape, c = compute-bound\n";
    // Low-entropy data flatters every row: say so where nobody can miss it, before the table.
    const bool mixed = m.data_used.size() > 1;
    for (DataDist d : m.data_used)
      if (d != DataDist::uniform)
        out_ << fmt::format(
            "data: {} ({}){} -- low-entropy inputs, not comparable with uniform-data figures\n",
            to_string(d), data_range(d),
            mixed ? fmt::format(" on the rows marked [{} data]", to_string(d)) : "");
    for (const PluginRecord& p : m.plugins)
      out_ << fmt::format("plugin {} (sha256 {}): {}\n", p.path, p.sha256.substr(0, 16),
                          fmt::join(p.kernels, ", "));
    for (Baseline b : m.baselines_used) show_cublaslt_ = show_cublaslt_ || uses_cublaslt(b);
    out_ << "\n";
    out_ << fmt::format("{:<26} {:>20} {:>6} {:>8} {:>10} {:>9} {:>8} {}{:>7} {:>9}  {}\n",
                        "kernel", "MxNxK", "layout", "type", "median ms", "TFLOP/s", "% cuBLAS",
                        show_cublaslt_ ? fmt::format("{:>10} ", "% cuBLASLt") : "", "% SOL",
                        "rel err", "status");
    out_.flush();
  }

  void add(const CaseResult& r) override {
    const std::string ms = r.time ? fmt::format("{:.4f}", r.time->median_ms) : "-";
    const std::string tf = r.tflops ? fmt::format("{:.2f}", *r.tflops) : "-";
    const std::string pct =
        r.ratio_to_cublas ? fmt::format("{:.1f}%", 100.0 * *r.ratio_to_cublas) : "-";
    // The share of the roofline bound, with m/c for a memory- or compute-bound shape.
    const std::string sol = r.sol.pct_sol ? fmt::format("{:.1f}%{}", *r.sol.pct_sol,
                                                        r.sol.bound == "memory" ? "m" : "c")
                                          : "-";
    const std::string pct_lt =
        r.ratio_to_cublaslt ? fmt::format("{:.1f}%", 100.0 * *r.ratio_to_cublaslt) : "-";
    const std::string err = r.error.computed ? fmt::format("{:.2e}", r.error.normwise) : "-";
    std::string status = to_string(r.status);
    if (!r.reason.empty()) status += ": " + r.reason;
    if (r.provider == "cublaslt" && r.cublaslt_algo)
      status += " [" + cublaslt_algo_text(*r.cublaslt_algo) + "]";
    // Only faults are loud: a tensor-core GEMM at the power cap (sw_power_cap alone) is the
    // normal sustained state, and the header names the regime and the limit.
    if (is_fault(r.clock.throttle))
      status +=
          fmt::format(" [THROTTLED: {} ({}), clock down to {} MHz]", to_string(r.clock.throttle),
                      r.clock.throttle_reasons, r.clock.sm_clock_mhz.value_or(0));
    if (r.samples_discarded > 0)
      status += fmt::format(" [burst: {} sample(s) discarded]", r.samples_discarded);
    if (r.measure.data != DataDist::uniform)
      status += std::string(" [") + to_string(r.measure.data) + " data]";
    if (!r.preset.empty()) status += " [" + r.preset.model + " " + r.preset.layer + "]";
    if (r.grouped) status += " [" + r.grouped->brief() + "]";
    if (r.baseline_way) status += " [vs " + *r.baseline_way + "]";
    if (!r.chosen_kernel.empty()) status += " [ran " + r.chosen_kernel + "]";
    if (is_fp8(r.problem.dtype)) {
      status += " [" + r.problem.fp8_format() + "]";
      if (r.error.quant_normwise)
        status += fmt::format(" [quant err {:.2e}]", *r.error.quant_normwise);
    }
    out_ << fmt::format("{:<26} {:>20} {:>6} {:>8} {:>10} {:>9} {:>8} {}{:>7} {:>9}  {}\n",
                        r.kernel, r.problem.shape_string(), to_string(r.problem.layout),
                        accum_label(r.problem), ms, tf, pct,
                        show_cublaslt_ ? fmt::format("{:>10} ", pct_lt) : "", sol, err, status);
    out_.flush();
  }

  void end(const RunSummary& s) override {
    out_ << fmt::format(
        "\n{} rows: {} ok, {} FAILED, {} skipped, {} error{}\n", s.rows_written, s.ok, s.failed,
        s.skipped, s.errors,
        s.not_held ? fmt::format(", {} not_held (regime not held: no figure)", s.not_held) : "");
    if (s.aborted) out_ << "run aborted: " << s.abort_reason << "\n";
    if (s.interrupted_by)
      out_ << fmt::format("run interrupted by {}: {} of {} rows ran\n",
                          signal_name(s.interrupted_by), s.rows_written, s.rows_planned);
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
    out_ << csv_line(csv_cells(r, device_)) << "\n" << std::flush;
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
    metadata_ = to_json(m);
    summary_ = {{"complete", false}, {"in_progress", true}};
    flush();
  }
  void add(const CaseResult& r) override {
    // Each row is serialized once; the file is rewritten whole, so a run cut short anywhere still
    // leaves complete JSON.
    rows_.push_back(to_json(r).dump());
    flush();
  }
  void end(const RunSummary& s) override {
    summary_ = to_json(s);
    flush();
  }

 private:
  void flush() {
    try {
      write_file_atomic(path_, report_text(metadata_, rows_, summary_));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string("JSON report: ") + e.what());
    }
  }

  std::string path_;
  nlohmann::json metadata_;
  std::vector<std::string> rows_;
  nlohmann::json summary_;
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
                                                "sm_clock_median_mhz",
                                                "power_mean_w",
                                                "power_limit_w",
                                                "at_cap_share",
                                                "throttle",
                                                "telemetry_samples",
                                                "joules_per_gemm",
                                                "gflop_per_joule",
                                                "energy_power_w",
                                                "energy_telemetry_power_w",
                                                "energy_window_s",
                                                "energy_launches",
                                                "regime",
                                                "samples_discarded",
                                                "burst_wait_timeouts",
                                                "regime_held",
                                                "precondition_s",
                                                "precondition_end",
                                                "blocks",
                                                "block_spread_pct",
                                                "probe_kept_median_mhz",
                                                "probe_min_mhz",
                                                "preset_model",
                                                "preset_layer",
                                                "sol_flop",
                                                "sol_bytes",
                                                "intensity_flop_per_byte",
                                                "instruction_class",
                                                "flop_per_clk_per_sm",
                                                "compute_tflops_max_clock",
                                                "compute_tflops_run_clock",
                                                "mem_bw_gbs",
                                                "mem_bw_source",
                                                "memory_tflops",
                                                "bound_tflops",
                                                "bound",
                                                "pct_sol",
                                                "pct_sol_run_clock",
                                                "sol_reason",
                                                "baseline",
                                                "device",
                                                "reason",
                                                "chosen_kernel",
                                                "chosen_rule",
                                                "out",
                                                "scale",
                                                "fast_accum",
                                                "calc_diff",
                                                "quant_normwise",
                                                "quant_calc_diff",
                                                "dtype_b",
                                                "groups",
                                                "group_layout",
                                                "group_m_min",
                                                "group_m_median",
                                                "group_m_max",
                                                "group_imbalance",
                                                "group_rows_stored",
                                                "routing",
                                                "baseline_way"};
  return cols;
}

namespace {

// The grouped columns (the last, baseline_way: which cuBLAS way a kernel row's ratio divides by):
// empty for a dense row.
std::vector<std::string> grouped_cells(const CaseResult& r) {
  if (!r.grouped) return std::vector<std::string>(9);
  const Grouping& g = r.grouped->grouping;
  const GroupStats st = group_stats(g);
  return {std::to_string(g.groups()),
          to_string(g.layout),
          std::to_string(st.min),
          fmt::format("{}", st.median),
          std::to_string(st.max),
          fmt::format("{}", st.imbalance),
          std::to_string(g.stored_rows()),
          r.grouped->routing ? to_string(r.grouped->routing->spec) : "",
          r.baseline_way.value_or("")};
}

// Every column before the grouped ones.
std::vector<std::string> dense_cells(const CaseResult& r, const std::string& device) {
  const auto& p = r.problem;
  const bool fp8 = is_fp8(p.dtype);
  const auto t = r.time.value_or(TimingStats{});
  const bool timed = r.time.has_value();
  auto tv = [&](double v) { return timed ? fmt::format("{}", v) : std::string(); };
  return {std::to_string(r.index),
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
          opt_str(r.clock.sm_clock_median_mhz),
          opt_str(r.clock.power_mean_w),
          opt_str(r.clock.power_limit_w),
          opt_str(r.clock.at_cap_share),
          to_string(r.clock.throttle),
          std::to_string(r.clock.telemetry_samples),
          opt_str(r.energy.joules_per_gemm),
          opt_str(r.energy.gflop_per_joule),
          opt_str(r.energy.power_w),
          opt_str(r.energy.telemetry_power_w),
          opt_str(r.energy.window_s),
          std::to_string(r.energy.launches),
          to_string(r.measure.regime),
          std::to_string(r.samples_discarded),
          std::to_string(r.burst_wait_timeouts),
          r.regime.held ? "true" : "false",
          opt_str(r.regime.precondition_s),
          r.regime.precondition_end,
          std::to_string(r.regime.blocks),
          opt_str(r.regime.block_spread_pct),
          opt_str(r.regime.probe_kept_median_mhz),
          opt_str(r.regime.probe_min_mhz),
          r.preset.model,
          r.preset.layer,
          fmt::format("{}", r.sol.flop),
          fmt::format("{}", r.sol.bytes),
          fmt::format("{}", r.sol.intensity),
          r.sol.instruction_class,
          opt_str(r.sol.flop_per_clk_per_sm),
          opt_str(r.sol.compute_tflops_max_clock),
          opt_str(r.sol.compute_tflops_run_clock),
          opt_str(r.sol.mem_bw_gbs),
          r.sol.mem_bw_source,
          opt_str(r.sol.memory_tflops),
          opt_str(r.sol.bound_tflops),
          r.sol.bound,
          opt_str(r.sol.pct_sol),
          opt_str(r.sol.pct_sol_run_clock),
          r.sol.reason,
          to_string(r.measure.baseline),
          device,
          r.reason,
          r.chosen_kernel,
          r.chosen_rule,
          fp8 ? to_string(p.out) : "",
          fp8 ? to_string(p.scale) : "",
          fp8 ? (p.fast_accum ? "true" : "false") : "",
          fp8 && r.error.computed ? fmt::format("{}", r.error.calc_diff) : "",
          opt_str(r.error.quant_normwise),
          opt_str(r.error.quant_calc_diff),
          fp8 ? to_string(p.b_type()) : ""};
}

}  // namespace

std::vector<std::string> csv_cells(const CaseResult& r, const std::string& device) {
  std::vector<std::string> cells = dense_cells(r, device);
  const std::vector<std::string> grouped = grouped_cells(r);
  cells.insert(cells.end(), grouped.begin(), grouped.end());
  return cells;
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string line;
  for (const auto& c : cells) line += (line.empty() ? "" : ",") + csv_escape(c);
  return line;
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
