// Reporters turn results into text. They never touch CUDA (nvbench printer_base; google/benchmark
// reporter.h). Each row is written as it arrives so an interrupted run leaves valid files.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "report/result.hpp"

namespace gemmbench {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const RunMetadata& meta) = 0;
  virtual void add(const CaseResult& row) = 0;
  virtual void end(const RunSummary& summary) = 0;
};

// The console table: header at begin(), one line per row, a summary at end().
std::unique_ptr<Reporter> make_console_reporter(std::ostream& out);
// CSV with the columns of csv_columns(), flushed after every row.
std::unique_ptr<Reporter> make_csv_reporter(const std::string& path);
// JSON {"metadata": ..., "results": [...], "summary": ...}, rewritten atomically after every row
// (write to a temporary file, rename), so the file on disk is always complete, valid JSON.
std::unique_ptr<Reporter> make_json_reporter(const std::string& path);

const std::vector<std::string>& csv_columns();
// One row's CSV cells in the order of csv_columns(); `device` fills the device column.
std::vector<std::string> csv_cells(const CaseResult& r, const std::string& device);
// Cells joined by commas, each quoted where it holds a comma, quote or line break.
std::string csv_line(const std::vector<std::string>& cells);

// The report's data_distribution: today's uniform text when every run used uniform data (or none
// is named), else each distribution used, by name.
std::string data_distribution_text(const std::vector<DataDist>& used);

// The tuned cuBLASLt algorithm in one line, for the console, CSV and JSON:
// "algo 66 tile 128x256 stages 64xAUTO splitK 1 cluster 2x1x1 swizzle 0 (heuristic #3 of 8,
// 1.041x over #1)".
std::string cublaslt_algo_text(const CublasLtChoice& c);

// Throws UsageError when `path` cannot be created or written (checked before any GPU work);
// leaves no file behind.
void check_output_path(const std::string& path, const char* flag);

class MultiReporter : public Reporter {
 public:
  void attach(std::unique_ptr<Reporter> r) { reporters_.push_back(std::move(r)); }
  void begin(const RunMetadata& meta) override {
    for (auto& r : reporters_) r->begin(meta);
  }
  void add(const CaseResult& row) override {
    for (auto& r : reporters_) r->add(row);
  }
  void end(const RunSummary& s) override {
    for (auto& r : reporters_) r->end(s);
  }

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

}  // namespace gemmbench
