// The choice of baseline (--baseline, measure.baseline), what the baselines put on a row, and the
// report fields of the cuBLASLt baseline with their documentation (docs/reports-baselines.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/cli.hpp"
#include "config/config.hpp"
#include "core/errors.hpp"
#include "plan/plan.hpp"
#include "report/json_codec.hpp"
#include "report/report_file.hpp"
#include "report/reporter.hpp"
#include "runner/baselines.hpp"
#include "runner/cublaslt_gemm.hpp"

using namespace gemmbench;
namespace fs = std::filesystem;

namespace {

CliOutcome parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gemmbench");
  return parse_command_line(args);
}

std::string cli_error_of(std::vector<std::string> args) {
  try {
    resolve_request(parse(args).options);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string config_error_of(const std::string& text) {
  try {
    parse_config_text(text, "cfg.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string config_with_measure(const std::string& measure) {
  return R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": )" + measure + "}]}";
}

CublasLtChoice sample_choice() {
  CublasLtChoice c;
  c.heuristic_index = 2;
  c.candidates = 8;
  c.samples = 5;
  c.algo_id = 66;
  c.tile = "128x256";
  c.stages = "64xAUTO";
  c.splitk = 2;
  c.reduction = "compute";
  c.cta_swizzling = 1;
  c.custom_option = 3;
  c.cluster = "2x1x1";
  c.tuned_ms = 0.5;
  c.heuristic_first_ms = 0.55;
  c.gain_over_heuristic = 1.1;
  c.workspace_bytes = int64_t(32) << 20;
  c.workspace_needed_bytes = 4096;
  return c;
}

// A kernel row compared with both baselines.
CaseResult both_row() {
  CaseResult r;
  r.index = 3;
  r.run_name = "cli";
  r.kernel = "hgemm_tn";
  r.provider = "gemmbench";
  r.family = "hgemm";
  r.problem = GemmProblem{128, 7168, 16384, Layout::tn, DType::f16, Accum::f32, 1, 0};
  r.status = Status::ok;
  r.time = TimingStats{0.8, 0.79, 0.795, 0.81, 0.8, 0.004, 30};
  r.tflops = 300;
  r.cublas_median_ms = 0.88;
  r.ratio_to_cublas = 1.1;
  r.cublaslt_median_ms = 0.8;
  r.ratio_to_cublaslt = 1.0;
  r.cublaslt_algo = sample_choice();
  r.error = ErrorStats{true, 1e-3, 2e-2, 3e-4, 0, 1e-2};
  r.measure.baseline = Baseline::both;
  return r;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

// ---------------------------------------------------------------- the option
TEST(BaselineOption, ParsesEachValueAndDefaultsToCublas) {
  EXPECT_FALSE(parse({"--m", "64"}).options.measure.baseline) << "no flag: the default applies";
  EXPECT_EQ(MeasureSettings{}.baseline, Baseline::cublas);
  EXPECT_EQ(parse({"--baseline", "cublas"}).options.measure.baseline, Baseline::cublas);
  EXPECT_EQ(parse({"--baseline", "cublaslt"}).options.measure.baseline, Baseline::cublaslt);
  EXPECT_EQ(parse({"--baseline", "both"}).options.measure.baseline, Baseline::both);
  EXPECT_TRUE(uses_cublas(Baseline::both) && uses_cublaslt(Baseline::both));
  EXPECT_TRUE(uses_cublas(Baseline::cublas) && !uses_cublaslt(Baseline::cublas));
  EXPECT_TRUE(!uses_cublas(Baseline::cublaslt) && uses_cublaslt(Baseline::cublaslt));
  EXPECT_EQ(parse({"--baseline", "none"}).options.measure.baseline, Baseline::none);
  EXPECT_TRUE(!uses_cublas(Baseline::none) && !uses_cublaslt(Baseline::none));
  // A measurement setting, so it also applies to the runs of a config.
  const CliOutcome o = parse({"--config", "configs/default.json", "--baseline", "both"});
  EXPECT_EQ(o.options.measure.baseline, Baseline::both);
  EXPECT_NO_THROW(resolve_request(o.options));
  const std::string help = parse({"--help"}).text;
  for (const char* s : {"--baseline", "cublaslt", "both", "none (each kernel row sampled"})
    EXPECT_NE(help.find(s), std::string::npos) << s;
}

TEST(BaselineOption, BadValueIsOneClearLine) {
  for (const std::string bad : {"cublasLt", "", "lt", "cublas,cublaslt"}) {
    const std::string msg = cli_error_of({"--baseline", bad, "--m", "64"});
    EXPECT_EQ(msg, "--baseline: '" + bad + "' is not one of cublas, cublaslt, both, none");
  }
  EXPECT_NE(cli_error_of({"--baseline"}).find("--baseline"), std::string::npos);
}

TEST(BaselineOption, ConfigKey) {
  const SweepConfig c = parse_config_text(config_with_measure(R"({"baseline": "cublaslt"})"), "c");
  EXPECT_EQ(c.runs[0].measure.baseline, Baseline::cublaslt);
  EXPECT_FALSE(parse_config_text(config_with_measure("{}"), "c").runs[0].measure.baseline);
  std::string msg = config_error_of(config_with_measure(R"({"baseline": "cudnn"})"));
  EXPECT_EQ(msg,
            "cfg.json: runs[0].measure.baseline: 'cudnn' is not one of cublas, cublaslt, both, "
            "none");
  msg = config_error_of(config_with_measure(R"({"baseline": ["both"]})"));
  EXPECT_NE(msg.find("runs[0].measure.baseline: expected a string"), std::string::npos) << msg;
  msg = config_error_of(config_with_measure(R"({"baselines": "both"})"));
  EXPECT_NE(msg.find("did you mean 'baseline'?"), std::string::npos) << msg;
}

TEST(BaselinePlan, CublasltAddsOneRowPerGroupAndTheCommandLineWins) {
  const KernelRegistry& reg = KernelRegistry::instance();
  RunSpec r;
  r.name = "r";
  r.kernels = {"sgemm_naive", "sgemm_coalesced"};
  r.shapes = {{64, 64, 64}, {128, 64, 32}};
  const Plan plain = build_plan({r}, {}, {}, reg);
  ASSERT_EQ(plain.groups.size(), 2u);
  EXPECT_EQ(plain.row_count(), 2u * (1 + 2));
  r.measure.baseline = Baseline::both;
  const Plan both = build_plan({r}, {}, {}, reg);
  EXPECT_EQ(both.groups[0].measure.baseline, Baseline::both);
  EXPECT_EQ(both.row_count(), 2u * (1 + 1 + 2)) << "cublas row, cublaslt row, two kernels";
  MeasureOverrides cli;
  cli.baseline = Baseline::cublas;
  EXPECT_EQ(build_plan({r}, {}, cli, reg).row_count(), 2u * (1 + 2));
  cli.baseline = Baseline::cublaslt;
  EXPECT_EQ(build_plan({r}, {}, cli, reg).groups[1].measure.baseline, Baseline::cublaslt);
  // none: the group's cublas row and the kernel rows, nothing more.
  cli.baseline = Baseline::none;
  EXPECT_EQ(build_plan({r}, {}, cli, reg).row_count(), 2u * (1 + 2));
}

// ---------------------------------------------------------------- what the samples put on a row
TEST(BaselineSamples, EveryRowDividesByTheGroupsBaselineRows) {
  const GroupBaselines g{3.0, 1.0};
  const auto timed = [](double median) {
    CaseResult r;
    r.time = TimingStats{};
    r.time->median_ms = median;
    return r;
  };
  CaseResult k = timed(2);
  apply_baselines(k, GroupRole::kernel, Baseline::both, g);
  EXPECT_DOUBLE_EQ(*k.cublas_median_ms, 3);
  EXPECT_DOUBLE_EQ(*k.ratio_to_cublas, 1.5);
  EXPECT_DOUBLE_EQ(*k.cublaslt_median_ms, 1);
  EXPECT_DOUBLE_EQ(*k.ratio_to_cublaslt, 0.5);
  CaseResult only_lt = timed(2);
  apply_baselines(only_lt, GroupRole::kernel, Baseline::cublaslt, g);
  EXPECT_FALSE(only_lt.ratio_to_cublas);
  EXPECT_DOUBLE_EQ(*only_lt.ratio_to_cublaslt, 0.5);
  CaseResult only_cublas = timed(2);
  apply_baselines(only_cublas, GroupRole::kernel, Baseline::cublas, g);
  EXPECT_DOUBLE_EQ(*only_cublas.ratio_to_cublas, 1.5);
  EXPECT_FALSE(only_cublas.cublaslt_median_ms);
  // --baseline none: no ratio; the cublas row itself carries none either.
  CaseResult none = timed(2);
  apply_baselines(none, GroupRole::kernel, Baseline::none, g);
  EXPECT_FALSE(none.ratio_to_cublas);
  EXPECT_FALSE(none.ratio_to_cublaslt);
  CaseResult cublas_row = timed(3);
  apply_baselines(cublas_row, GroupRole::cublas, Baseline::both, g);
  EXPECT_FALSE(cublas_row.ratio_to_cublas);
  // The cublaslt row is compared with cuBLAS, whatever the kernels' setting.
  CaseResult lt = timed(1);
  apply_baselines(lt, GroupRole::cublaslt, Baseline::cublaslt, g);
  EXPECT_DOUBLE_EQ(*lt.ratio_to_cublas, 3);
  EXPECT_FALSE(lt.ratio_to_cublaslt);
  // A baseline that did not hold its regime (absent) gives no ratio, and an untimed row none.
  CaseResult lost = timed(2);
  apply_baselines(lost, GroupRole::kernel, Baseline::both, GroupBaselines{});
  EXPECT_FALSE(lost.ratio_to_cublas);
  CaseResult untimed;
  apply_baselines(untimed, GroupRole::kernel, Baseline::both, g);
  EXPECT_FALSE(untimed.ratio_to_cublas);
  const CaseResult lt_row = as_cublaslt_row(both_row());
  EXPECT_EQ(lt_row.kernel, "cublaslt");
  EXPECT_EQ(lt_row.provider, "cublaslt");
  EXPECT_EQ(lt_row.family, "cublaslt");
}

TEST(BaselineSamples, CublasltEnumNames) {
  EXPECT_EQ(cublaslt_tile_name(CUBLASLT_MATMUL_TILE_128x128), "128x128");
  EXPECT_EQ(cublaslt_tile_name(CUBLASLT_MATMUL_TILE_64x256), "64x256");
  EXPECT_EQ(cublaslt_tile_name(0), "undefined");
  EXPECT_EQ(cublaslt_tile_name(1u << 20), "tile#1048576");
  EXPECT_EQ(cublaslt_stages_name(CUBLASLT_MATMUL_STAGES_64x4), "64x4");
  EXPECT_EQ(cublaslt_stages_name(CUBLASLT_MATMUL_STAGES_128xAUTO), "128xAUTO");
  EXPECT_EQ(cublaslt_stages_name(29), "stages#29") << "an id the enum skips";
  EXPECT_EQ(cublaslt_cluster_name(CUBLASLT_CLUSTER_SHAPE_AUTO), "auto");
  EXPECT_EQ(cublaslt_cluster_name(CUBLASLT_CLUSTER_SHAPE_2x1x1), "2x1x1");
}

// ---------------------------------------------------------------- reports
TEST(BaselineReport, JsonRoundTripsAndOldReportsReadAsCublas) {
  const CaseResult r = both_row();
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["measure"]["baseline"], "both");
  EXPECT_DOUBLE_EQ(j["ratio_to_cublaslt"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["cublaslt_median_ms"].get<double>(), 0.8);
  EXPECT_EQ(j["cublaslt_algo"]["tile"], "128x256");
  EXPECT_EQ(j["cublaslt_algo"]["heuristic_index"], 2);
  EXPECT_EQ(j["cublaslt_algo"]["description"], cublaslt_algo_text(sample_choice()));
  const CaseResult back = case_result_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.measure.baseline, Baseline::both);

  nlohmann::json old = j;
  for (const char* key : {"cublaslt_median_ms", "ratio_to_cublaslt", "cublaslt_algo"})
    old.erase(key);
  old["measure"].erase("baseline");
  const CaseResult o = case_result_from_json(old);
  EXPECT_EQ(o.measure.baseline, Baseline::cublas);
  EXPECT_FALSE(o.ratio_to_cublaslt || o.cublaslt_median_ms || o.cublaslt_algo);
  nlohmann::json bad = j;
  bad["measure"]["baseline"] = "cudnn";
  EXPECT_THROW(case_result_from_json(bad), nlohmann::json::exception);

  // Reports of every schema load (fixtures copied from bench_results/, plain and gzip): those
  // from before the cuBLASLt baseline read as cublas.
  size_t rows = 0, with_baseline = 0;
  for (const auto& e :
       fs::directory_iterator(fs::path(GEMMBENCH_SOURCE_DIR) / "tests/data/reports")) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".json") && !name.ends_with(".json.gz")) continue;
    const nlohmann::json doc = read_json_file(e.path().string());
    if (!doc.contains("results")) continue;
    for (const auto& row : doc["results"]) {
      const bool has = row.contains("measure") && row["measure"].contains("baseline");
      EXPECT_EQ(
          case_result_from_json(row).measure.baseline,
          has ? *parse_baseline(row["measure"]["baseline"].get<std::string>()) : Baseline::cublas);
      with_baseline += has;
      ++rows;
    }
  }
  EXPECT_GT(rows, with_baseline) << "no report from before the cuBLASLt baseline";
  EXPECT_GT(with_baseline, 0u) << "no report with measure.baseline";
}

TEST(BaselineReport, AlgorithmText) {
  CublasLtChoice c = sample_choice();
  EXPECT_EQ(cublaslt_algo_text(c),
            "algo 66 tile 128x256 stages 64xAUTO splitK 2 reduction compute cluster 2x1x1 "
            "swizzle 1 custom 3 (heuristic #3 of 8, 1.100x over #1)");
  c.splitk = 1;
  c.custom_option = 0;
  c.heuristic_index = 0;
  c.gain_over_heuristic = 1;
  EXPECT_EQ(cublaslt_algo_text(c),
            "algo 66 tile 128x256 stages 64xAUTO splitK 1 cluster 2x1x1 swizzle 1 (heuristic #1 "
            "of 8, 1.000x over #1)");
}

TEST(BaselineReport, CsvCarriesTheNewColumns) {
  const auto& cols = csv_columns();
  const auto at = [&](const char* name) {
    const auto it = std::find(cols.begin(), cols.end(), name);
    EXPECT_NE(it, cols.end()) << name;
    return size_t(it - cols.begin());
  };
  EXPECT_EQ(at("cublaslt_median_ms"), at("ratio_to_cublas") + 1);
  const fs::path path =
      fs::temp_directory_path() / ("gemmbench_test_" + std::to_string(::getpid()) + "_lt.csv");
  {
    auto rep = make_csv_reporter(path.string());
    rep->begin(RunMetadata{});
    rep->add(both_row());
    CaseResult plain = both_row();
    plain.measure.baseline = Baseline::cublas;
    plain.cublaslt_median_ms.reset();
    plain.ratio_to_cublaslt.reset();
    plain.cublaslt_algo.reset();
    rep->add(plain);
    rep->end({});
  }
  std::ifstream in(path);
  std::string header, row, row2;
  std::getline(in, header);
  std::getline(in, row);
  std::getline(in, row2);
  fs::remove(path);
  // The algorithm text holds a comma, so its cell is quoted; count cells with a CSV reader.
  auto split = [](const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        out.back() += '"', ++i;
      else if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        out.emplace_back();
      else
        out.back() += c;
    }
    return out;
  };
  const auto cells = split(row), cells2 = split(row2);
  ASSERT_EQ(cells.size(), cols.size());
  ASSERT_EQ(cells2.size(), cols.size());
  EXPECT_DOUBLE_EQ(std::stod(cells[at("cublaslt_median_ms")]), 0.8);
  EXPECT_DOUBLE_EQ(std::stod(cells[at("ratio_to_cublaslt")]), 1.0);
  EXPECT_EQ(cells[at("cublaslt_algo")], cublaslt_algo_text(sample_choice()));
  EXPECT_DOUBLE_EQ(std::stod(cells[at("cublaslt_gain_over_heuristic")]), 1.1);
  EXPECT_EQ(cells[at("baseline")], "both");
  EXPECT_EQ(cells2[at("ratio_to_cublaslt")], "");
  EXPECT_EQ(cells2[at("cublaslt_algo")], "");
  EXPECT_EQ(cells2[at("baseline")], "cublas");
}

TEST(BaselineReport, ConsoleShowsTheCublasltColumnOnlyWhenUsed) {
  {
    std::ostringstream out;
    auto rep = make_console_reporter(out);
    RunMetadata m;
    m.baselines_used = {Baseline::cublas};
    rep->begin(m);
    rep->add(both_row());
    EXPECT_EQ(out.str().find("cuBLASLt"), std::string::npos) << out.str();
  }
  std::ostringstream out;
  auto rep = make_console_reporter(out);
  RunMetadata m;
  m.baselines_used = {Baseline::cublas, Baseline::both};
  rep->begin(m);
  rep->add(both_row());
  CaseResult lt = as_cublaslt_row(both_row());
  lt.ratio_to_cublaslt.reset();
  rep->add(lt);
  const std::string text = out.str();
  EXPECT_NE(text.find("% cuBLAS % cuBLASLt"), std::string::npos) << text;
  EXPECT_NE(text.find("110.0%     100.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("ok [" + cublaslt_algo_text(sample_choice()) + "]"), std::string::npos)
      << "the cublaslt row names its algorithm\n"
      << text;
}

TEST(BaselineReport, MetadataNamesTheBaselinesAndHowTheyAreTuned) {
  RunMetadata m;
  m.baselines_used = {Baseline::both};
  m.baseline_method = "cublas: x; cublaslt: " + CublasLtGemm::method();
  const nlohmann::json j = to_json(m);
  EXPECT_EQ(j["baselines"]["used"], nlohmann::json::array({"both"}));
  const std::string method = j["baselines"]["method"];
  for (const char* s : {"top 8 candidates", "32 MiB of workspace", "5 rounds", "not part of them"})
    EXPECT_NE(method.find(s), std::string::npos) << s << " in " << method;
}

// Every field the cuBLASLt baseline adds to a report is documented, in a table, in
// docs/reports-baselines.md: the JSON keys (found by walking what the reporter writes, so a new
// key cannot slip past), the CSV columns and the metadata.
TEST(BaselineReport, EveryNewFieldIsDocumented) {
  const fs::path doc_path = fs::path(GEMMBENCH_SOURCE_DIR) / "docs" / "reports-baselines.md";
  const std::string doc = read_file(doc_path);
  ASSERT_FALSE(doc.empty()) << doc_path;
  std::set<std::string> table_names;  // `name` in the first cell of a table row
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const size_t end = line.find('`', 3);
    if (end != std::string::npos) table_names.insert(line.substr(3, end - 3));
  }
  std::vector<std::string> fields;
  const nlohmann::json row = to_json(both_row());
  for (const auto& [key, value] : row.items())
    if (key.find("cublaslt") != std::string::npos) fields.push_back(key);
  for (const auto& [key, value] : row["cublaslt_algo"].items())
    fields.push_back("cublaslt_algo." + key);
  fields.push_back("measure.baseline");
  const nlohmann::json meta = to_json(RunMetadata{});
  for (const auto& [key, value] : meta.at("baselines").items())
    fields.push_back("metadata.baselines." + key);
  for (const auto& c : csv_columns())
    if (c.find("cublaslt") != std::string::npos || c == "baseline") fields.push_back(c);
  EXPECT_GE(fields.size(), 3u + 17u + 1u + 2u + 5u) << ::testing::PrintToString(fields);
  for (const std::string& f : fields)
    EXPECT_TRUE(table_names.count(f)) << "`" << f << "` has no row in a table of " << doc_path;
}
