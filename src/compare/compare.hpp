// `gemmbench compare BASE.json NEW.json`: two JSON reports matched case by case, with a verdict
// per case (faster, slower, same) that a change earns only by exceeding both runs' noise and a
// threshold. Host-only: reads reports, never touches CUDA. docs/compare.md explains the rules.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "report/report_reader.hpp"
#include "report/result.hpp"

namespace gemmbench::compare {

// Default --threshold, in percent of the base median. docs/compare.md derives it from the
// committed same-day repeats under bench_results/h100 (largest kernel-median move 2.9%).
inline constexpr double kDefaultThresholdPct = 3.0;
// Default --significance: the rank test's p-value below which a change counts as outside noise.
inline constexpr double kDefaultSignificance = 0.01;

enum class Verdict {
  faster,
  slower,
  same,
  newly_failed,  // FAILED verification (or error) in NEW while ok in BASE
  untimed,       // a side has no time (skipped, error): nothing to compare
};
const char* to_string(Verdict v);

enum class Method { samples, quantiles, none };
const char* to_string(Method m);

struct CaseComparison {
  std::string key, label;
  Status base_status = Status::ok, new_status = Status::ok;
  std::optional<double> base_median_ms, new_median_ms;
  std::optional<double> change_pct;  // (new - base) / base * 100: > 0 is slower
  // Each side's noise in percent of its median: half the p10-p90 spread.
  std::optional<double> base_noise_pct, new_noise_pct;
  std::optional<double> base_ratio, new_ratio;  // ratio_to_cublas (> 1: faster than cuBLAS)
  std::optional<double> ratio_change_pct;       // (new - base) / base * 100: > 0 is better
  Method method = Method::none;
  std::optional<double> p_value;  // Method::samples only
  Verdict verdict = Verdict::untimed;
  std::string note;  // why a verdict was withheld or what else to know
};

struct MetaDifference {
  std::string field;  // "GPU", "driver", ...
  std::string base_value, new_value;
  // Where the difference makes absolute times incomparable (another GPU, regime, data): why.
  std::string warning;
};

struct Options {
  double threshold_pct = kDefaultThresholdPct;
  double significance = kDefaultSignificance;
};

struct Comparison {
  std::string base_path, new_path;
  nlohmann::json base_metadata, new_metadata;
  // Each run's SM clock and board power while sampling (medians over its timed rows), in words.
  std::string base_telemetry, new_telemetry;
  std::vector<MetaDifference> metadata;  // only the fields that differ
  std::vector<std::string> warnings;     // incomplete reports, absolute numbers incomparable
  std::vector<CaseComparison> cases;     // in BASE's order
  std::vector<std::string> only_base, only_new;  // labels of rows present on one side only
  Options options;
  size_t faster = 0, slower = 0, same = 0, newly_failed = 0, untimed = 0;
  size_t with_samples = 0, with_quantiles = 0;
};

// The verdict of one pair of timed rows (both must have time). Exposed for tests.
CaseComparison compare_rows(const ReportRow& base, const ReportRow& now, const Options& opt);
// The metadata fields that differ between two reports, with warnings where they matter.
std::vector<MetaDifference> compare_metadata(const nlohmann::json& base, const nlohmann::json& now);

Comparison compare_reports(const Report& base, const Report& now, const Options& opt);

// 0 when nothing is slower beyond the threshold and nothing newly failed, else 1.
int exit_code(const Comparison& c);

std::string format_console(const Comparison& c);
std::string format_markdown(const Comparison& c);
std::string format_csv(const Comparison& c);
nlohmann::json to_json(const Comparison& c);

}  // namespace gemmbench::compare
