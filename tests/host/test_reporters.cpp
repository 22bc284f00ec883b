#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "report/json_codec.hpp"
#include "report/reporter.hpp"

using namespace gemmbench;
namespace fs = std::filesystem;

namespace {

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("gemmbench_test_" + std::to_string(::getpid()) + "_" + name);
}

CaseResult sample_row(size_t index, Status status) {
  CaseResult r;
  r.index = index;
  r.run_name = "run, with comma";
  r.kernel = "sgemm_naive";
  r.provider = "gemmbench";
  r.family = "sgemm";
  r.problem = GemmProblem{37, 53, 71, Layout::tn, DType::f16, Accum::f32, 1.5, -0.25};
  r.status = status;
  r.reason = status == Status::skipped ? "K must be a multiple of 8: \"16-byte rows\"" : "";
  if (status != Status::skipped) {
    r.time = TimingStats{1.5, 1.25, 1.3, 1.9, 1.55, 0.125, 42};
    r.tflops = 0.123;
    r.cublas_median_ms = 0.75;
    r.ratio_to_cublas = 0.5;
    r.error = ErrorStats{true, 1e-3, 2e-2, 3e-4, 0, 1e-2};
    r.clock.sm_clock_mhz = 1755;
    r.clock.sm_clock_max_mhz = 1980;
    r.clock.power_w = 612.5;
    r.clock.temperature_c = 61;
    r.clock.throttle_reasons = "sw_power_cap";
  }
  r.measure.cache = CacheMode::cold;
  return r;
}

RunMetadata sample_meta() {
  RunMetadata m;
  m.tool_version = "0.1.0";
  m.git_commit = "abc";
  m.command_line = "gemmbench --m 1";
  m.seed = 5;
  m.device.name = "NVIDIA H100 80GB HBM3";
  m.device.sm = 90;
  return m;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cur += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace

TEST(Json, RowRoundTripsExactly) {
  for (Status s : {Status::ok, Status::failed, Status::skipped, Status::error}) {
    const CaseResult r = sample_row(3, s);
    const nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
    const CaseResult back = case_result_from_json(j);
    EXPECT_EQ(to_json(back), to_json(r)) << to_string(s);
    EXPECT_EQ(back.problem.m, 37);
    EXPECT_EQ(back.problem.layout, Layout::tn);
    EXPECT_EQ(back.time.has_value(), r.time.has_value());
  }
}

TEST(Json, ReportIsValidAfterEveryRow) {
  const fs::path path = temp_path("report.json");
  auto rep = make_json_reporter(path.string());
  rep->begin(sample_meta());
  for (size_t i = 1; i <= 3; ++i) {
    rep->add(sample_row(i, Status::ok));
    // As if the process died here: the file on disk is complete JSON holding every row so far.
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    EXPECT_EQ(doc["results"].size(), i);
    EXPECT_EQ(doc["summary"]["complete"], false);
    EXPECT_EQ(doc["metadata"]["device"]["name"], "NVIDIA H100 80GB HBM3");
  }
  RunSummary s;
  s.rows_planned = s.rows_written = s.ok = 3;
  rep->end(s);
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["summary"]["complete"], true);
  EXPECT_EQ(doc["metadata"]["schema_version"], kReportSchemaVersion);
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  fs::remove(path);
}

TEST(Csv, StableColumnsOneRowPerCaseWrittenImmediately) {
  const fs::path path = temp_path("report.csv");
  auto rep = make_csv_reporter(path.string());
  rep->begin(sample_meta());
  rep->add(sample_row(1, Status::ok));
  {
    std::ifstream in(path);
    std::string header, row;
    std::getline(in, header);
    ASSERT_TRUE(std::getline(in, row)) << "a row is on disk before end()";
    const auto cols = split_csv_line(header);
    EXPECT_EQ(cols, csv_columns());
    const auto cells = split_csv_line(row);
    ASSERT_EQ(cells.size(), cols.size());
    auto cell = [&](const std::string& name) {
      return cells[std::find(cols.begin(), cols.end(), name) - cols.begin()];
    };
    EXPECT_EQ(cell("run"), "run, with comma");
    EXPECT_EQ(cell("kernel"), "sgemm_naive");
    EXPECT_EQ(cell("m"), "37");
    EXPECT_EQ(cell("layout"), "tn");
    EXPECT_EQ(cell("status"), "ok");
    EXPECT_DOUBLE_EQ(std::stod(cell("median_ms")), 1.5);
    EXPECT_DOUBLE_EQ(std::stod(cell("ratio_to_cublas")), 0.5);
    EXPECT_EQ(cell("samples"), "42");
    EXPECT_EQ(cell("cache"), "cold");
    EXPECT_EQ(cell("device"), "NVIDIA H100 80GB HBM3");
  }
  rep->add(sample_row(2, Status::skipped));
  rep->end({});
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  const auto cells = split_csv_line(lines[2]);
  EXPECT_EQ(cells.back(), "K must be a multiple of 8: \"16-byte rows\"");
  EXPECT_EQ(cells[std::find(csv_columns().begin(), csv_columns().end(), "median_ms") -
                  csv_columns().begin()],
            "");
  fs::remove(path);
}

TEST(Csv, ColumnsAreTheDocumentedOnes) {
  // README.md documents these names; renaming one breaks users' scripts.
  for (const char* c : {"kernel",
                        "provider",
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
                        "tflops",
                        "ratio_to_cublas",
                        "normwise_err",
                        "max_abs_err",
                        "max_rel_err",
                        "sm_clock_mhz",
                        "power_w",
                        "temperature_c",
                        "throttled",
                        "cache",
                        "samples",
                        "reason"})
    EXPECT_NE(std::find(csv_columns().begin(), csv_columns().end(), c), csv_columns().end()) << c;
}

TEST(Console, TableRowsCarryTheEssentials) {
  std::ostringstream out;
  auto rep = make_console_reporter(out);
  rep->begin(sample_meta());
  rep->add(sample_row(1, Status::ok));
  rep->add(sample_row(2, Status::skipped));
  RunSummary s;
  s.rows_written = 2;
  s.ok = s.skipped = 1;
  rep->end(s);
  const std::string text = out.str();
  for (const char* f :
       {"sgemm_naive", "37x53x71", "1.5000", "50.0%", "3.00e-04",
        "skipped: K must be a multiple of 8", "% cuBLAS", "1 ok, 0 FAILED, 1 skipped"})
    EXPECT_NE(text.find(f), std::string::npos) << f << "\n" << text;
}

TEST(OutputPath, UnwritablePathsAreRefusedAndNothingIsLeftBehind) {
  EXPECT_THROW(check_output_path("/nonexistent-dir/x.csv", "--csv"), UsageError);
  EXPECT_THROW(check_output_path(fs::temp_directory_path().string(), "--json"), UsageError);
  EXPECT_THROW(check_output_path("", "--csv"), UsageError);
  const fs::path ok = temp_path("probe.csv");
  check_output_path(ok.string(), "--csv");
  EXPECT_FALSE(fs::exists(ok)) << "the probe must not leave a file";
}
