#include <gtest/gtest.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "report/json_codec.hpp"
#include "report/report_file.hpp"
#include "report/report_reader.hpp"
#include "report/reporter.hpp"
#include "sol/sol.hpp"

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

// A shape-aware kernel's row names the kernel that ran and its rule; other rows have no key.
TEST(Json, DispatchChoiceRoundTrips) {
  CaseResult r = sample_row(3, Status::ok);
  EXPECT_FALSE(to_json(r).contains("chosen"));
  r.kernel = "hgemm";
  r.chosen_kernel = "hgemm_decode_sm90";
  r.chosen_rule = "decode-equal-split";
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["chosen"]["kernel"], "hgemm_decode_sm90");
  const CaseResult back = case_result_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.chosen_kernel, "hgemm_decode_sm90");
  EXPECT_EQ(back.chosen_rule, "decode-equal-split");
  EXPECT_EQ(to_json(back), j);
}

TEST(Json, DataDistributionRoundTrips) {
  CaseResult r = sample_row(3, Status::ok);
  r.measure.data = DataDist::int3;
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["measure"]["data"], "int3");
  const CaseResult back = case_result_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.measure.data, DataDist::int3);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(to_json(sample_row(3, Status::ok))["measure"]["data"], "uniform");
  nlohmann::json bad = j;
  bad["measure"]["data"] = "int4";
  EXPECT_THROW(case_result_from_json(bad), nlohmann::json::exception);
}

TEST(Json, ReportsWithoutMeasureDataReadAsUniform) {
  CaseResult r = sample_row(3, Status::ok);
  r.measure.data = DataDist::int3;  // so that reading back uniform proves the default applied
  nlohmann::json old = to_json(r);
  old["measure"].erase("data");
  EXPECT_EQ(case_result_from_json(old).measure.data, DataDist::uniform);

  // Reports written before --data existed still load, every row as uniform (fixtures copied from
  // bench_results/, plain and gzip-compressed: tests/data/reports/README.md).
  const fs::path dir = fs::path(GEMMBENCH_SOURCE_DIR) / "tests/data/reports";
  size_t rows = 0, old_rows = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".json") && !name.ends_with(".json.gz")) continue;
    const nlohmann::json doc = read_json_file(e.path().string());
    if (!doc.contains("results")) continue;  // `gemmbench inspect` output, not a run report
    for (const auto& row : doc["results"]) {
      const bool has_data = row.at("measure").contains("data");
      CaseResult back;
      ASSERT_NO_THROW(back = case_result_from_json(row)) << e.path();
      if (!has_data) EXPECT_EQ(back.measure.data, DataDist::uniform) << e.path();
      old_rows += !has_data;
      ++rows;
    }
  }
  EXPECT_GT(rows, 0u) << "no run report found under " << dir;
  EXPECT_GT(old_rows, 0u) << "no report from before --data under " << dir;
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

// Each row on one line, compact (no indentation inside rows or sample arrays); metadata and
// summary stay indented; the text is one JSON document after every row.
TEST(Json, RowsAreWrittenOnePerLine) {
  const fs::path path = temp_path("compact.json");
  auto rep = make_json_reporter(path.string());
  rep->begin(sample_meta());
  CaseResult with_samples = sample_row(1, Status::ok);
  with_samples.samples_ms = {1.5, 1.25, 1.75};
  rep->add(with_samples);
  rep->add(sample_row(2, Status::skipped));
  RunSummary s;
  s.rows_planned = s.rows_written = 2;
  rep->end(s);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  size_t row_lines = 0;
  for (const auto& line : lines) {
    if (line.rfind("    {", 0) != 0) continue;  // a row: four spaces, then the whole object
    const std::string text = line.back() == ',' ? line.substr(4, line.size() - 5) : line.substr(4);
    const nlohmann::json row = nlohmann::json::parse(text);
    EXPECT_EQ(row.dump(), text) << "compact, no spaces";
    EXPECT_EQ(case_result_from_json(row).index, ++row_lines);
  }
  EXPECT_EQ(row_lines, 2u);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "  \"metadata\": {"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "  \"results\": ["), lines.end());
  const nlohmann::json doc = read_json_file(path.string());
  EXPECT_EQ(doc["results"][0]["samples_ms"].size(), 3u);
  EXPECT_EQ(doc["summary"]["rows_written"], 2);
  fs::remove(path);
}

TEST(Json, ReportTextOfAWholeDocumentMatchesTheReporter) {
  const nlohmann::json meta = {{"tool", "gemmbench"}, {"nested", {{"a", 1}}}};
  const nlohmann::json row = {{"index", 1}, {"samples_ms", {1.0, 2.0}}};
  const nlohmann::json summary = {{"complete", true}};
  const std::string text = report_text(meta, {row.dump()}, summary);
  EXPECT_EQ(text, report_text(nlohmann::json{
                      {"metadata", meta}, {"results", {row}}, {"summary", summary}}));
  EXPECT_NE(text.find("\n    {\"index\":1,\"samples_ms\":[1.0,2.0]}\n"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(report_text(meta, {}, summary))["results"],
            nlohmann::json::array());
}

// --json F.gz writes a gzip file (valid after every row, as the plain one), and every reader takes
// plain and gzip alike.
TEST(Json, GzipReportIsWrittenAndRead) {
  const fs::path path = temp_path("report.json.gz");
  auto rep = make_json_reporter(path.string());
  rep->begin(sample_meta());
  for (size_t i = 1; i <= 2; ++i) {
    rep->add(sample_row(i, Status::ok));
    std::ifstream raw(path, std::ios::binary);
    char magic[2] = {};
    raw.read(magic, 2);
    EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);
    EXPECT_EQ(read_json_file(path.string())["results"].size(), i);
  }
  rep->end({});
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  const std::string text = read_text_file(path.string());
  const fs::path plain = temp_path("report_plain.json");
  write_file_atomic(plain.string(), text);
  EXPECT_EQ(read_text_file(plain.string()), text);
  EXPECT_LT(fs::file_size(path), fs::file_size(plain));
  fs::remove(path);
  fs::remove(plain);
}

TEST(Json, UnreadableAndTruncatedFilesSayWhy) {
  try {
    read_json_file("/nonexistent/report.json.gz");
    ADD_FAILURE() << "no throw";
  } catch (const ReportFileError& e) {
    EXPECT_EQ(e.kind(), ReportFileError::Kind::unreadable);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/report.json.gz: cannot read"),
              std::string::npos);
  }
  // A gzip file cut short (a copy that did not finish) is unreadable, not silently short.
  const fs::path gz = temp_path("cut.json.gz");
  write_file_atomic(gz.string(), std::string(100000, ' ') + "{}");
  const auto size = fs::file_size(gz);
  fs::resize_file(gz, size / 2);
  EXPECT_THROW(read_text_file(gz.string()), ReportFileError);
  const fs::path bad = temp_path("bad.json");
  write_file_atomic(bad.string(), "{not json");
  try {
    read_json_file(bad.string());
    ADD_FAILURE() << "no throw";
  } catch (const ReportFileError& e) {
    EXPECT_EQ(e.kind(), ReportFileError::Kind::not_json);
  }
  fs::remove(gz);
  fs::remove(bad);
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
    EXPECT_EQ(cell("data"), "uniform");
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
  const auto column = [&](const char* name) {
    return cells[std::find(csv_columns().begin(), csv_columns().end(), name) -
                 csv_columns().begin()];
  };
  EXPECT_EQ(column("reason"), "K must be a multiple of 8: \"16-byte rows\"");
  EXPECT_EQ(column("chosen_kernel"), "") << "only the shape-aware kernels' rows name one";
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
                        "data",
                        "samples",
                        "reason"})
    EXPECT_NE(std::find(csv_columns().begin(), csv_columns().end(), c), csv_columns().end()) << c;
}

TEST(Csv, DataColumnFollowsCache) {
  const auto& cols = csv_columns();
  const auto cache = std::find(cols.begin(), cols.end(), "cache");
  ASSERT_NE(cache, cols.end());
  ASSERT_NE(cache + 1, cols.end());
  EXPECT_EQ(*(cache + 1), "data");
  const fs::path path = temp_path("data.csv");
  {
    auto rep = make_csv_reporter(path.string());
    rep->begin(sample_meta());
    CaseResult r = sample_row(1, Status::ok);
    r.measure.data = DataDist::int3;
    rep->add(r);
    rep->end({});
  }
  std::ifstream in(path);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  const auto cells = split_csv_line(row);
  ASSERT_EQ(cells.size(), cols.size());
  EXPECT_EQ(cells[size_t(cache - cols.begin()) + 1], "int3");
  fs::remove(path);
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

TEST(Console, NonUniformDataIsAnnouncedBeforeTheTable) {
  {  // uniform only: no warning, no row tag
    std::ostringstream out;
    auto rep = make_console_reporter(out);
    RunMetadata m = sample_meta();
    m.data_used = {DataDist::uniform};
    rep->begin(m);
    rep->add(sample_row(1, Status::ok));
    EXPECT_EQ(out.str().find("data:"), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find("int3"), std::string::npos) << out.str();
  }
  std::ostringstream out;
  auto rep = make_console_reporter(out);
  RunMetadata m = sample_meta();
  m.data_used = {DataDist::int3};
  rep->begin(m);
  CaseResult r = sample_row(1, Status::ok);
  r.measure.data = DataDist::int3;
  rep->add(r);
  const std::string text = out.str();
  const size_t warning = text.find(
      "data: int3 (integers in [-3,3]) -- low-entropy inputs, not comparable with uniform-data "
      "figures\n");
  ASSERT_NE(warning, std::string::npos) << text;
  EXPECT_LT(warning, text.find("median ms")) << "the warning comes before the table";
  EXPECT_NE(text.find("ok [int3 data]"), std::string::npos) << text;

  std::ostringstream mixed;
  auto rep2 = make_console_reporter(mixed);
  m.data_used = {DataDist::uniform, DataDist::int3};
  rep2->begin(m);
  EXPECT_NE(mixed.str().find("data: int3 (integers in [-3,3]) on the rows marked [int3 data] -- "),
            std::string::npos)
      << mixed.str();
}

TEST(Metadata, DataDistributionNamesWhatWasUsed) {
  const std::string uniform =
      "uniform [-1, 1), counter-based hash (splitmix64) of (seed, tensor, index), generated on the "
      "device and rounded to the input type";
  EXPECT_EQ(data_distribution_text({}), uniform);
  EXPECT_EQ(data_distribution_text({DataDist::uniform}), uniform) << "unchanged for uniform";
  const std::string int3 = data_distribution_text({DataDist::int3});
  EXPECT_EQ(int3.rfind("int3: integers uniform in [-3, 3]", 0), 0u) << int3;
  EXPECT_EQ(int3.find("uniform [-1, 1)"), std::string::npos) << int3;
  const std::string both = data_distribution_text({DataDist::int3, DataDist::uniform});
  EXPECT_NE(both.find("uniform: uniform [-1, 1)"), std::string::npos) << both;
  EXPECT_NE(both.find("int3: integers"), std::string::npos) << both;
}

TEST(Json, AnInterruptedRunSaysSoAndIsNotComplete) {
  const fs::path path = temp_path("interrupted.json");
  auto rep = make_json_reporter(path.string());
  rep->begin(sample_meta());
  rep->add(sample_row(1, Status::ok));
  RunSummary s;
  s.rows_planned = 5;
  s.rows_written = s.ok = 1;
  s.interrupted_by = SIGINT;
  rep->end(s);
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["summary"]["interrupted"], true);
  EXPECT_EQ(doc["summary"]["interrupted_by"], "SIGINT");
  EXPECT_EQ(doc["summary"]["complete"], false);
  EXPECT_EQ(doc["results"].size(), 1u);
  fs::remove(path);

  std::ostringstream out;
  auto console = make_console_reporter(out);
  console->begin(sample_meta());
  s.interrupted_by = SIGTERM;
  console->end(s);
  EXPECT_NE(out.str().find("run interrupted by SIGTERM: 1 of 5 rows ran"), std::string::npos)
      << out.str();
}

TEST(Json, SamplesAreWrittenOnlyWhenKeptRoundedToFourDigits) {
  CaseResult r = sample_row(3, Status::ok);
  EXPECT_FALSE(to_json(r).contains("samples_ms"));
  r.samples_ms = {0.312749, 0.312751, 1.23456789, 12345.678, 0.000123456};
  const nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
  ASSERT_TRUE(j.contains("samples_ms"));
  EXPECT_EQ(j["samples_ms"], nlohmann::json::parse("[0.3127, 0.3128, 1.235, 12350.0, 0.0001235]"));
  const CaseResult back = case_result_from_json(j);
  ASSERT_EQ(back.samples_ms.size(), 5u);
  EXPECT_DOUBLE_EQ(back.samples_ms[2], 1.235);
  EXPECT_EQ(to_json(back), j);
}

TEST(Json, PreconditionWindowsAreWrittenOnlyWhenKeptAndReadBack) {
  CaseResult r = sample_row(3, Status::ok);
  EXPECT_FALSE(to_json(r)["regime"].contains("precondition_windows"));
  r.regime.precondition_windows = {{0.10012345, 1.0923456}, {0.2004, 1.1}};
  const nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
  ASSERT_TRUE(j["regime"].contains("precondition_windows"));
  EXPECT_EQ(j["regime"]["precondition_windows"],
            nlohmann::json::parse("[[0.1001, 1.0923], [0.2004, 1.1]]"));
  const CaseResult back = case_result_from_json(j);
  ASSERT_EQ(back.regime.precondition_windows.size(), 2u);
  EXPECT_DOUBLE_EQ(back.regime.precondition_windows[0][1], 1.0923);
  EXPECT_EQ(to_json(back), j);
}

namespace {
CaseResult telemetry_row() {
  CaseResult r = sample_row(4, Status::ok);
  r.clock.sm_clock_median_mhz = 1830;
  r.clock.power_mean_w = 655.25;
  r.clock.power_limit_w = 700;
  r.clock.at_cap_share = 0.75;
  r.clock.throttle = Throttle::power_cap;
  r.clock.telemetry_samples = 57;
  r.energy.joules_per_gemm = 0.125;
  r.energy.gflop_per_joule = 1100.5;
  r.energy.power_w = 640.0;
  r.energy.telemetry_power_w = 652.0;
  r.energy.window_s = 0.61;
  r.energy.launches = 2400;
  r.energy.counter_refreshes = 12;
  r.measure.regime = Regime::burst;
  r.samples_discarded = 3;
  r.burst_wait_timeouts = 1;
  return r;
}
}  // namespace

TEST(Json, TelemetryEnergyAndRegimeFields) {
  const CaseResult r = telemetry_row();
  const nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
  EXPECT_EQ(j["clock"]["sm_median_mhz"], 1830);
  EXPECT_EQ(j["clock"]["power_mean_w"], 655.25);
  EXPECT_EQ(j["clock"]["power_limit_w"], 700.0);
  EXPECT_EQ(j["clock"]["at_cap_share"], 0.75);
  EXPECT_EQ(j["clock"]["throttle"], "power_cap");
  EXPECT_EQ(j["clock"]["telemetry_samples"], 57);
  EXPECT_EQ(j["energy"]["joules_per_gemm"], 0.125);
  EXPECT_EQ(j["energy"]["gflop_per_joule"], 1100.5);
  EXPECT_EQ(j["energy"]["power_w"], 640.0);
  EXPECT_EQ(j["energy"]["telemetry_power_w"], 652.0);
  EXPECT_EQ(j["energy"]["window_s"], 0.61);
  EXPECT_EQ(j["energy"]["launches"], 2400);
  EXPECT_EQ(j["energy"]["counter_refreshes"], 12);
  EXPECT_EQ(j["measure"]["regime"], "burst");
  EXPECT_EQ(j["samples_discarded"], 3);
  EXPECT_EQ(j["burst_wait_timeouts"], 1);
  const CaseResult back = case_result_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.clock.throttle, Throttle::power_cap);
  EXPECT_EQ(back.measure.regime, Regime::burst);
  // Absent figures are null, not zero.
  const nlohmann::json plain = to_json(sample_row(4, Status::skipped));
  EXPECT_TRUE(plain["energy"]["joules_per_gemm"].is_null());
  EXPECT_TRUE(plain["clock"]["at_cap_share"].is_null());
  EXPECT_EQ(plain["measure"]["regime"], "sustained");
  nlohmann::json bad = j;
  bad["clock"]["throttle"] = "yes";
  EXPECT_THROW(case_result_from_json(bad), nlohmann::json::exception);
  bad = j;
  bad["measure"]["regime"] = "peak";
  EXPECT_THROW(case_result_from_json(bad), nlohmann::json::exception);
}

TEST(Json, ReportsWithoutTelemetryFieldsReadAsBefore) {
  nlohmann::json old = to_json(telemetry_row());
  for (const char* k : {"sm_median_mhz", "power_mean_w", "power_limit_w", "at_cap_share",
                        "throttle", "telemetry_samples"})
    old["clock"].erase(k);
  old.erase("energy");
  old.erase("samples_discarded");
  old.erase("burst_wait_timeouts");
  old["measure"].erase("regime");
  const CaseResult back = case_result_from_json(old);
  EXPECT_EQ(back.measure.regime, Regime::sustained);
  EXPECT_EQ(back.clock.throttle, Throttle::none);
  EXPECT_FALSE(back.energy.joules_per_gemm);
  EXPECT_EQ(back.samples_discarded, 0);
}

TEST(Metadata, PowerLimitBandwidthAndRegime) {
  RunMetadata m = sample_meta();
  m.regime = "burst";
  m.device.power_limit_w = 700;
  m.device.mem_bw_measured_gbs = 2950.5;
  m.device.mem_bw_datasheet_gbs = 3352.3;
  const nlohmann::json j = to_json(m);
  EXPECT_EQ(j["regime"], "burst");
  EXPECT_EQ(j["device"]["power_limit_w"], 700.0);
  EXPECT_EQ(j["device"]["mem_bw_measured_gbs"], 2950.5);
  EXPECT_EQ(j["device"]["mem_bw_datasheet_gbs"], 3352.3);
  const nlohmann::json none = to_json(sample_meta());
  EXPECT_TRUE(none["device"]["power_limit_w"].is_null());
  EXPECT_TRUE(none["device"]["mem_bw_measured_gbs"].is_null());
  std::ostringstream out;
  make_console_reporter(out)->begin(m);
  EXPECT_NE(out.str().find("regime burst; power limit 700 W; memory bandwidth 2950 GB/s measured, "
                           "3352 GB/s datasheet"),
            std::string::npos)
      << out.str();
}

TEST(Csv, TelemetryColumns) {
  const auto& cols = csv_columns();
  const fs::path path = temp_path("telemetry.csv");
  {
    auto rep = make_csv_reporter(path.string());
    rep->begin(sample_meta());
    rep->add(telemetry_row());
    rep->end({});
  }
  std::ifstream in(path);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  const auto cells = split_csv_line(row);
  ASSERT_EQ(cells.size(), cols.size());
  const auto cell = [&](const char* name) {
    const auto it = std::find(cols.begin(), cols.end(), name);
    EXPECT_NE(it, cols.end()) << name;
    return it == cols.end() ? std::string("?") : cells[size_t(it - cols.begin())];
  };
  EXPECT_EQ(cell("sm_clock_median_mhz"), "1830");
  EXPECT_EQ(cell("power_mean_w"), "655.25");
  EXPECT_EQ(cell("power_limit_w"), "700");
  EXPECT_EQ(cell("at_cap_share"), "0.75");
  EXPECT_EQ(cell("throttle"), "power_cap");
  EXPECT_EQ(cell("telemetry_samples"), "57");
  EXPECT_EQ(cell("joules_per_gemm"), "0.125");
  EXPECT_EQ(cell("gflop_per_joule"), "1100.5");
  EXPECT_EQ(cell("energy_power_w"), "640");
  EXPECT_EQ(cell("energy_telemetry_power_w"), "652");
  EXPECT_EQ(cell("energy_window_s"), "0.61");
  EXPECT_EQ(cell("energy_launches"), "2400");
  EXPECT_EQ(cell("regime"), "burst");
  EXPECT_EQ(cell("samples_discarded"), "3");
  EXPECT_EQ(cell("burst_wait_timeouts"), "1");
  fs::remove(path);
}

TEST(Console, OnlyFaultsAreLoud) {
  const auto line_for = [](Throttle t) {
    std::ostringstream out;
    auto rep = make_console_reporter(out);
    rep->begin(sample_meta());
    CaseResult r = sample_row(1, Status::ok);
    r.clock.throttle = t;
    r.clock.throttled = true;  // the clock fell below 80%: under the cap that is normal
    rep->add(r);
    return out.str();
  };
  EXPECT_EQ(line_for(Throttle::power_cap).find("THROTTLED"), std::string::npos);
  EXPECT_EQ(line_for(Throttle::none).find("THROTTLED"), std::string::npos);
  EXPECT_NE(line_for(Throttle::thermal)
                .find("[THROTTLED: thermal (sw_power_cap), clock down to "
                      "1755 MHz]"),
            std::string::npos)
      << line_for(Throttle::thermal);
  EXPECT_NE(line_for(Throttle::hw_slowdown).find("THROTTLED: hw_slowdown"), std::string::npos);
}

namespace {

// A row with its speed of light filled the way the runner fills it, and a preset label.
CaseResult sol_row() {
  CaseResult r = sample_row(4, Status::ok);
  r.problem = GemmProblem{4096, 4096, 4096, Layout::tn, DType::f16, Accum::f32, 1, 0};
  r.tflops = 535.265;
  r.clock.sm_clock_median_mhz = 1755;
  r.preset = PresetLabel{"llama3-8b", "o_proj"};
  DeviceMetadata d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.sm = 90;
  d.num_sms = 132;
  d.sm_clock_max_mhz = 1980;
  d.mem_bw_measured_gbs = 3000;
  r.sol = speed_of_light(r, d);
  return r;
}

size_t column(const std::string& name) {
  const auto& cols = csv_columns();
  const auto it = std::find(cols.begin(), cols.end(), name);
  EXPECT_NE(it, cols.end()) << name;
  return size_t(it - cols.begin());
}

}  // namespace

TEST(Json, SpeedOfLightAndPresetRoundTrip) {
  const CaseResult r = sol_row();
  const nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
  EXPECT_EQ(j["preset"]["model"], "llama3-8b");
  EXPECT_EQ(j["preset"]["layer"], "o_proj");
  const auto& s = j["sol"];
  EXPECT_EQ(s["bound"], "compute");
  EXPECT_EQ(s["instruction_class"], "tensor_f16_f32acc");
  EXPECT_EQ(s["mem_bw_source"], "measured");
  EXPECT_NEAR(s["pct_sol"].get<double>(), 50.0, 0.01);
  EXPECT_NEAR(s["intensity_flop_per_byte"].get<double>(), 4096.0 / 3, 1e-9);
  for (const char* key : {"flop", "bytes", "flop_per_clk_per_sm", "compute_tflops_max_clock",
                          "compute_tflops_run_clock", "mem_bw_gbs", "memory_tflops", "bound_tflops",
                          "pct_sol_run_clock", "reason"})
    EXPECT_TRUE(s.contains(key)) << key;
  const CaseResult back = case_result_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.preset, r.preset);
  EXPECT_EQ(*back.sol.pct_sol, *r.sol.pct_sol);

  // A plain row: preset null; reports from before speed of light (no keys) still load.
  EXPECT_TRUE(to_json(sample_row(1, Status::ok))["preset"].is_null());
  nlohmann::json old = j;
  old.erase("sol");
  old.erase("preset");
  const CaseResult legacy = case_result_from_json(old);
  EXPECT_TRUE(legacy.preset.empty());
  EXPECT_FALSE(legacy.sol.pct_sol);
}

TEST(Json, MetadataStatesTheIntensityRule) {
  RunMetadata m = sample_meta();
  m.sol_intensity_rule = kSolIntensityRule;
  const nlohmann::json j = to_json(m);
  const std::string rule = j.at("sol_intensity_rule");
  EXPECT_NE(rule.find("C read once when beta != 0"), std::string::npos) << rule;
}

TEST(Csv, SpeedOfLightAndPresetColumns) {
  const fs::path path = temp_path("sol.csv");
  {
    auto rep = make_csv_reporter(path.string());
    rep->begin(sample_meta());
    rep->add(sol_row());
    rep->add(sample_row(2, Status::skipped));
    rep->end({});
  }
  std::ifstream in(path);
  std::string header, row, skipped;
  std::getline(in, header);
  std::getline(in, row);
  std::getline(in, skipped);
  const auto cells = split_csv_line(row);
  ASSERT_EQ(cells.size(), csv_columns().size());
  EXPECT_EQ(cells[column("preset_model")], "llama3-8b");
  EXPECT_EQ(cells[column("preset_layer")], "o_proj");
  EXPECT_EQ(cells[column("bound")], "compute");
  EXPECT_EQ(cells[column("mem_bw_source")], "measured");
  EXPECT_EQ(cells[column("instruction_class")], "tensor_f16_f32acc");
  EXPECT_NEAR(std::stod(cells[column("pct_sol")]), 50.0, 0.01);
  EXPECT_NEAR(std::stod(cells[column("compute_tflops_max_clock")]), 1070.53, 0.01);
  EXPECT_NEAR(std::stod(cells[column("compute_tflops_run_clock")]), 948.879, 0.001);
  EXPECT_NEAR(std::stod(cells[column("intensity_flop_per_byte")]), 4096.0 / 3, 1e-6);
  const auto empty = split_csv_line(skipped);
  ASSERT_EQ(empty.size(), csv_columns().size());
  EXPECT_EQ(empty[column("pct_sol")], "") << "a row without a figure leaves the cell empty";
  EXPECT_EQ(empty[column("preset_model")], "");
  fs::remove(path);
}

TEST(Console, SolColumnAndPresetLabel) {
  std::ostringstream out;
  auto rep = make_console_reporter(out);
  rep->begin(sample_meta());
  rep->add(sol_row());
  rep->add(sample_row(2, Status::skipped));
  const std::string text = out.str();
  EXPECT_NE(text.find("% SOL"), std::string::npos) << text;
  EXPECT_NE(text.find("50.0%c"), std::string::npos) << text;
  EXPECT_NE(text.find("[llama3-8b o_proj]"), std::string::npos) << text;
}

TEST(Json, GroupedRowRoundTripsWithItsSummary) {
  CaseResult r = sample_row(4, Status::skipped);
  r.reason = "grouped GEMM: no provider runs it yet (issue 51)";
  r.problem.m = 17;
  r.grouped = GroupedGemm{Grouping{{3, 0, 5, 9}, GroupLayout::contiguous, 8, 0},
                          Routing{{RoutingMode::zipf, 1.2}, 8, 2, 4, 7}};
  const nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
  const auto& g = j.at("grouped");
  EXPECT_EQ(g["groups"], 4);
  EXPECT_EQ(g["layout"], "contiguous");
  EXPECT_EQ(g["align"], 8);
  EXPECT_FALSE(g.contains("max_m"));
  EXPECT_EQ(g["m"], nlohmann::json({3, 0, 5, 9}));
  EXPECT_EQ(g["m_min"], 0);
  EXPECT_EQ(g["m_median"], 4.0);
  EXPECT_EQ(g["m_max"], 9);
  EXPECT_DOUBLE_EQ(g["imbalance"].get<double>(), 9 / 4.25);
  EXPECT_EQ(g["touched"], 3);
  EXPECT_EQ(g["rows"], 17);
  EXPECT_EQ(g["rows_stored"], 32);
  EXPECT_EQ(g["routing"]["mode"], "zipf:1.2");
  EXPECT_EQ(g["routing"]["seed"], 7);
  const CaseResult back = case_result_from_json(j);
  ASSERT_TRUE(back.grouped);
  EXPECT_EQ(*back.grouped, *r.grouped);
  EXPECT_EQ(to_json(back), j);
  EXPECT_FALSE(j.contains("baseline_way")) << "only where the runner set it";
  r.baseline_way = "cublas grouped API";
  const nlohmann::json jw = to_json(r);
  EXPECT_EQ(jw["baseline_way"], "cublas grouped API");
  EXPECT_EQ(case_result_from_json(jw).baseline_way, r.baseline_way);
  r.baseline_way.reset();

  // Masked, given M_g (no routing); a dense row has no "grouped" key and reads back without one.
  r.grouped = GroupedGemm{Grouping{{3, 0, 5, 9}, GroupLayout::masked, 1, 16}, std::nullopt};
  const nlohmann::json jm = nlohmann::json::parse(to_json(r).dump());
  EXPECT_EQ(jm["grouped"]["max_m"], 16);
  EXPECT_FALSE(jm["grouped"].contains("align"));
  EXPECT_TRUE(jm["grouped"]["routing"].is_null());
  EXPECT_EQ(jm["grouped"]["rows_stored"], 64);
  EXPECT_EQ(*case_result_from_json(jm).grouped, *r.grouped);
  const nlohmann::json dense = to_json(sample_row(1, Status::ok));
  EXPECT_FALSE(dense.contains("grouped"));
  EXPECT_FALSE(case_result_from_json(dense).grouped);
}

TEST(Csv, GroupedColumnsAndConsoleBracket) {
  CaseResult r = sample_row(4, Status::skipped);
  r.grouped = GroupedGemm{Grouping{{3, 0, 5, 9}, GroupLayout::contiguous, 8, 0},
                          Routing{{RoutingMode::random, 0}, 8, 2, 4, 1}};
  const auto cells = csv_cells(r, "H100");
  ASSERT_EQ(cells.size(), csv_columns().size());
  EXPECT_EQ(cells[column("groups")], "4");
  EXPECT_EQ(cells[column("group_layout")], "contiguous");
  EXPECT_EQ(cells[column("group_m_min")], "0");
  EXPECT_EQ(cells[column("group_m_median")], "4");
  EXPECT_EQ(cells[column("group_m_max")], "9");
  EXPECT_NEAR(std::stod(cells[column("group_imbalance")]), 9 / 4.25, 1e-12);
  EXPECT_EQ(cells[column("group_rows_stored")], "32");
  EXPECT_EQ(cells[column("routing")], "random");
  EXPECT_EQ(cells[column("baseline_way")], "");
  r.baseline_way = "cublas per-group loop";
  EXPECT_EQ(csv_cells(r, "H100")[column("baseline_way")], "cublas per-group loop");
  const auto dense = csv_cells(sample_row(1, Status::ok), "H100");
  ASSERT_EQ(dense.size(), csv_columns().size());
  EXPECT_EQ(dense[column("groups")], "");
  EXPECT_EQ(dense[column("routing")], "");
  EXPECT_EQ(csv_columns().back(), "baseline_way")
      << "the grouped columns come last: older ones keep their places";

  std::ostringstream out;
  auto rep = make_console_reporter(out);
  rep->begin(sample_meta());
  rep->add(r);
  EXPECT_NE(out.str().find("[G4 m 0/4/9 x2.12 contiguous/8 stored 32 random]"), std::string::npos)
      << out.str();
}

TEST(ReportReader, TwoRoutingsOfOneTotalAreTwoCases) {
  ReportRow a{sample_row(1, Status::skipped), "sustained", "deepseek-v3/moe_gate_up_proj"};
  ReportRow b = a;
  const std::string dense = case_key(a);
  a.result.grouped = GroupedGemm{Grouping{{4, 4}}, Routing{{RoutingMode::balanced, 0}, 4, 2, 2, 1}};
  b.result.grouped = GroupedGemm{Grouping{{6, 2}}, Routing{{RoutingMode::random, 0}, 4, 2, 2, 1}};
  EXPECT_NE(case_key(a), case_key(b));
  EXPECT_EQ(case_key(a).substr(0, dense.size() + 1), dense + "|") << "the dense key, extended";
}
