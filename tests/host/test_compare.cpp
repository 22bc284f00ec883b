// `gemmbench compare` on synthetic reports: the verdicts, the exit codes, the metadata
// differences and the refusal of bad input.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "compare/compare.hpp"
#include "core/errors.hpp"
#include "report/json_codec.hpp"
#include "stats/stats.hpp"

using namespace gemmbench;
using namespace gemmbench::compare;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() /
         ("gemmbench_compare_" + std::to_string(::getpid()) + "_" + name);
}

// Deterministic samples around `median`: a spread of +-`spread` (fraction), in a scrambled
// order so that no test depends on the order samples were taken in.
std::vector<double> samples_around(double median, double spread, int n, uint32_t seed) {
  std::vector<double> v;
  uint32_t s = seed;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const double u = double(s >> 8) / double(1u << 24);  // [0, 1)
    v.push_back(median * (1.0 + spread * (2.0 * u - 1.0)));
  }
  return v;
}

CaseResult row(const std::string& kernel, double median_ms, double spread = 0.01) {
  CaseResult r;
  r.kernel = kernel;
  r.provider = kernel == "cublas" ? "cublas" : "gemmbench";
  r.family = kernel == "cublas" ? "cublas" : "hgemm";
  r.run_name = "cli";
  r.problem = GemmProblem{5120, 4096, 4096, Layout::tn, DType::f16, Accum::f32, 1.0, 0.0};
  r.status = Status::ok;
  r.time = TimingStats{median_ms,
                       median_ms * (1 - 1.2 * spread),
                       median_ms * (1 - spread),
                       median_ms * (1 + spread),
                       median_ms,
                       median_ms * spread / 2,
                       500};
  r.tflops = r.problem.flops() / (median_ms * 1e-3) / 1e12;
  if (kernel != "cublas") {
    r.cublas_median_ms = 0.26;
    r.ratio_to_cublas = 0.26 / median_ms;
  }
  r.error = ErrorStats{true, 1e-3, 1e-2, 1e-4, 0, 1e-2};
  r.clock.sm_clock_mhz = 1755;
  r.clock.power_w = 690;
  return r;
}

// A row whose summary comes from its samples, as the runner makes it with --keep-samples.
CaseResult row_with_samples(const std::string& kernel, std::vector<double> samples) {
  CaseResult r = row(kernel, 1.0);
  r.time = summarize(samples);
  r.samples_ms = std::move(samples);
  return r;
}

RunMetadata meta() {
  RunMetadata m;
  m.tool_version = "0.1.0";
  m.git_commit = "abc123";
  m.command_line = "gemmbench --kernel hgemm_tn --m 5120 --n 4096 --k 4096";
  m.date_utc = "2026-11-22T12:00:00Z";
  m.seed = 20261122;
  m.data_distribution = "uniform [-1, 1)";
  m.device.name = "NVIDIA H100 80GB HBM3";
  m.device.num_sms = 132;
  m.device.driver_version = "580.159.04";
  m.device.cuda_runtime = "13.0";
  m.device.cublas_version = "13.0.0";
  return m;
}

json report_json(const std::vector<CaseResult>& rows, const RunMetadata& m = meta()) {
  json doc{{"metadata", to_json(m)}, {"results", json::array()}};
  size_t i = 0;
  for (CaseResult r : rows) {
    r.index = ++i;
    doc["results"].push_back(to_json(r));
  }
  RunSummary s;
  s.rows_planned = s.rows_written = rows.size();
  doc["summary"] = to_json(s);
  return doc;
}

Report report(const std::vector<CaseResult>& rows, const RunMetadata& m = meta(),
              const std::string& name = "report.json") {
  return parse_report(json::parse(report_json(rows, m).dump()), name);
}

const CaseComparison& find_case(const Comparison& c, const std::string& kernel) {
  for (const auto& cc : c.cases)
    if (cc.label.rfind(kernel + " ", 0) == 0) return cc;
  throw std::runtime_error("no case " + kernel);
}

std::string write_text(const std::string& name, const std::string& text) {
  const fs::path p = temp_path(name);
  std::ofstream(p) << text;
  return p.string();
}

// The one-line UsageError message of load_report(path).
std::string load_error(const std::string& path) {
  try {
    load_report(path);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Compare, InjectedFivePercentSlowdownIsFlaggedAndExitsOne) {
  const Report base = report({row("cublas", 0.26), row("hgemm_tn", 0.40), row("hgemm_nn", 0.42)});
  const Report now =
      report({row("cublas", 0.26), row("hgemm_tn", 0.40 * 1.05), row("hgemm_nn", 0.42)});
  const Comparison c = compare_reports(base, now, Options{});
  ASSERT_EQ(c.cases.size(), 3u);
  const CaseComparison& tn = find_case(c, "hgemm_tn");
  EXPECT_EQ(tn.verdict, Verdict::slower);
  EXPECT_EQ(tn.method, Method::quantiles);
  EXPECT_NEAR(*tn.change_pct, 5.0, 1e-9);
  EXPECT_NEAR(*tn.ratio_change_pct, 100.0 * (1 / 1.05 - 1), 1e-9);
  EXPECT_EQ(find_case(c, "hgemm_nn").verdict, Verdict::same);
  EXPECT_EQ(find_case(c, "cublas").verdict, Verdict::same);
  EXPECT_EQ(c.slower, 1u);
  EXPECT_EQ(c.same, 2u);
  EXPECT_EQ(exit_code(c), 1);
  EXPECT_TRUE(c.metadata.empty());
  EXPECT_TRUE(c.warnings.empty());
  // The same slowdown the other way round is faster, and nothing fails.
  const Comparison back = compare_reports(now, base, Options{});
  EXPECT_EQ(find_case(back, "hgemm_tn").verdict, Verdict::faster);
  EXPECT_EQ(exit_code(back), 0);
  // A threshold above the change withholds the verdict.
  EXPECT_EQ(exit_code(compare_reports(base, now, Options{6.0, kDefaultSignificance})), 0);
}

TEST(Compare, SlowdownOnSamplesUsesTheRankTest) {
  const Report base = report({row_with_samples("hgemm_tn", samples_around(0.40, 0.02, 400, 1))});
  const Report now =
      report({row_with_samples("hgemm_tn", samples_around(0.40 * 1.05, 0.02, 400, 2))});
  ASSERT_EQ(base.rows[0].result.samples_ms.size(), 400u);  // survived the JSON round trip
  const Comparison c = compare_reports(base, now, Options{});
  const CaseComparison& tn = find_case(c, "hgemm_tn");
  EXPECT_EQ(tn.method, Method::samples);
  ASSERT_TRUE(tn.p_value.has_value());
  EXPECT_LT(*tn.p_value, 1e-6);
  EXPECT_EQ(tn.verdict, Verdict::slower);
  EXPECT_EQ(c.with_samples, 1u);
  EXPECT_EQ(exit_code(c), 1);
  EXPECT_NE(format_console(c).find("rank test"), std::string::npos);
}

TEST(Compare, ChangeInsideTheNoiseIsNotCalled) {
  // Quantiles: a 5% move, but each run's p10-p90 band is +-10%: same.
  const Comparison wide = compare_reports(report({row("hgemm_tn", 0.40, 0.10)}),
                                          report({row("hgemm_tn", 0.42, 0.10)}), Options{});
  EXPECT_EQ(find_case(wide, "hgemm_tn").verdict, Verdict::same);
  EXPECT_NE(find_case(wide, "hgemm_tn").note.find("within the noise"), std::string::npos);
  EXPECT_EQ(exit_code(wide), 0);
  // Samples: two draws of one distribution (+-10%): the rank test finds nothing.
  const Comparison drawn =
      compare_reports(report({row_with_samples("hgemm_tn", samples_around(0.40, 0.10, 300, 7))}),
                      report({row_with_samples("hgemm_tn", samples_around(0.40, 0.10, 300, 8))}),
                      Options{0.0, kDefaultSignificance});
  EXPECT_EQ(find_case(drawn, "hgemm_tn").method, Method::samples);
  EXPECT_GT(*find_case(drawn, "hgemm_tn").p_value, 0.01);
  EXPECT_EQ(find_case(drawn, "hgemm_tn").verdict, Verdict::same);
  // A significant change below the threshold is not called either.
  const Comparison small = compare_reports(
      report({row_with_samples("hgemm_tn", samples_around(0.40, 0.001, 300, 3))}),
      report({row_with_samples("hgemm_tn", samples_around(0.404, 0.001, 300, 4))}), Options{});
  EXPECT_LT(*find_case(small, "hgemm_tn").p_value, 1e-6);
  EXPECT_EQ(find_case(small, "hgemm_tn").verdict, Verdict::same);
  EXPECT_EQ(exit_code(small), 0);
}

TEST(Compare, SamplesOnOneSideOnlyFallBackToQuantiles) {
  const Comparison c =
      compare_reports(report({row_with_samples("hgemm_tn", samples_around(0.40, 0.01, 100, 1))}),
                      report({row("hgemm_tn", 0.40)}), Options{});
  EXPECT_EQ(find_case(c, "hgemm_tn").method, Method::quantiles);
  EXPECT_FALSE(find_case(c, "hgemm_tn").p_value.has_value());
}

TEST(Compare, FailedVerificationInNewIsFlagged) {
  CaseResult bad = row("hgemm_tn", 0.40);
  bad.status = Status::failed;
  bad.reason = "normwise error above tolerance";
  const Comparison c = compare_reports(report({row("cublas", 0.26), row("hgemm_tn", 0.40)}),
                                       report({row("cublas", 0.26), bad}), Options{});
  EXPECT_EQ(find_case(c, "hgemm_tn").verdict, Verdict::newly_failed);
  EXPECT_EQ(find_case(c, "hgemm_tn").note, "normwise error above tolerance");
  EXPECT_EQ(c.newly_failed, 1u);
  EXPECT_EQ(exit_code(c), 1);
  // Failing in both is not news; fixed in NEW is noted, not an error.
  EXPECT_EQ(exit_code(compare_reports(report({bad}), report({bad}), Options{})), 0);
  const Comparison fixed = compare_reports(report({bad}), report({row("hgemm_tn", 0.40)}), {});
  EXPECT_EQ(exit_code(fixed), 0);
  EXPECT_NE(find_case(fixed, "hgemm_tn").note.find("FAILED in BASE"), std::string::npos);
}

TEST(Compare, MismatchedMetadataIsReportedWithWarnings) {
  RunMetadata other = meta();
  other.device.name = "NVIDIA H200";
  other.device.driver_version = "590.10";
  other.device.cublas_version = "13.1.0";
  other.data_distribution = "int3: integers uniform in [-3, 3]";
  other.git_commit = "def456";
  json doc = report_json({row("hgemm_tn", 0.40)}, other);
  doc["metadata"]["regime"] = "burst";
  for (auto& r : doc["results"]) r["measure"]["regime"] = "burst";  // rows carry their regime
  const Report now = parse_report(doc, "new.json");
  const Comparison c = compare_reports(report({row("hgemm_tn", 0.40)}), now, Options{});
  auto field = [&](const std::string& name) -> const MetaDifference* {
    for (const auto& d : c.metadata)
      if (d.field == name) return &d;
    return nullptr;
  };
  ASSERT_NE(field("GPU"), nullptr);
  EXPECT_EQ(field("GPU")->new_value, "NVIDIA H200 (132 SMs)");
  EXPECT_FALSE(field("GPU")->warning.empty());
  ASSERT_NE(field("driver"), nullptr);
  EXPECT_TRUE(field("driver")->warning.empty());
  ASSERT_NE(field("regime"), nullptr);
  EXPECT_EQ(field("regime")->base_value, "sustained");  // a report without regime: sustained
  EXPECT_EQ(field("regime")->new_value, "burst");
  ASSERT_NE(field("data"), nullptr);
  ASSERT_NE(field("git commit"), nullptr);
  ASSERT_NE(field("cuBLAS"), nullptr);
  EXPECT_EQ(field("CUDA runtime"), nullptr);  // equal fields are not listed
  // GPU, cuBLAS, regime, data: four warnings; the regime keeps the rows apart, each listed.
  EXPECT_EQ(c.warnings.size(), 5u);  // and "no case appears in both reports"
  EXPECT_TRUE(c.cases.empty());
  EXPECT_EQ(c.only_base.size(), 1u);
  EXPECT_EQ(c.only_new.size(), 1u);
  const std::string text = format_console(c);
  EXPECT_NE(text.find("WARNING: GPU differs"), std::string::npos);
  EXPECT_NE(text.find("WARNING: regime differs"), std::string::npos);
  EXPECT_NE(text.find("only in NEW"), std::string::npos);
}

TEST(Compare, RowsOnOneSideAreListedNotDropped) {
  const Comparison c = compare_reports(
      report({row("cublas", 0.26), row("hgemm_tn", 0.40), row("hgemm_nn", 0.4)}),
      report({row("cublas", 0.26), row("hgemm_tn", 0.40), row("hgemm_tt", 0.4)}), Options{});
  EXPECT_EQ(c.cases.size(), 2u);
  ASSERT_EQ(c.only_base.size(), 1u);
  EXPECT_EQ(c.only_base[0], "hgemm_nn 5120x4096x4096 tn f16/f32 (ok)");
  ASSERT_EQ(c.only_new.size(), 1u);
  EXPECT_EQ(c.only_new[0], "hgemm_tt 5120x4096x4096 tn f16/f32 (ok)");
  const std::string csv = format_csv(c);
  EXPECT_NE(csv.find("only_in_base"), std::string::npos);
  EXPECT_NE(csv.find("only_in_new"), std::string::npos);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);  // header, 2 cases, 2 one-sided
}

TEST(Compare, CaseKeyCoversRegimePresetAndMeasurement) {
  json b = report_json({row("hgemm_tn", 0.40)});
  json n = b;
  n["results"][0]["measure"]["regime"] = "sustained";  // the default, spelled out: same case
  EXPECT_EQ(compare_reports(parse_report(b, "b"), parse_report(n, "n"), {}).cases.size(), 1u);
  n["results"][0]["preset"] = {{"model", "llama3-8b"}, {"layer", "qkv"}};
  const Comparison c = compare_reports(parse_report(b, "b"), parse_report(n, "n"), {});
  EXPECT_TRUE(c.cases.empty());
  ASSERT_EQ(c.only_new.size(), 1u);
  EXPECT_NE(c.only_new[0].find("[llama3-8b/qkv]"), std::string::npos);
  json hot = b;
  hot["results"][0]["measure"]["cache"] = "hot";
  EXPECT_TRUE(compare_reports(parse_report(b, "b"), parse_report(hot, "h"), {}).cases.empty());
  // A case twice in one report matches in order.
  const Report twice = report({row("cublas", 0.26), row("cublas", 0.30)});
  const Comparison t = compare_reports(twice, twice, {});
  ASSERT_EQ(t.cases.size(), 2u);
  EXPECT_DOUBLE_EQ(*t.cases[1].base_median_ms, 0.30);
}

// FP8 rows of one shape with different B types are different cases: never paired.
TEST(Compare, FP8RowsOfAnotherBTypeAreNotTheSameCase) {
  auto fp8 = [](const std::string& kernel, double ms, std::optional<DType> b) {
    CaseResult r = row(kernel, ms);
    r.problem.dtype = DType::e4m3;
    r.problem.out = DType::bf16;
    r.problem.scale = ScaleMode::tensor;
    r.problem.dtype_b = b;
    return r;
  };
  const Comparison same = compare_reports(report({fp8("fp8gemm_sm90", 0.40, std::nullopt)}),
                                          report({fp8("fp8gemm_sm90", 0.40, DType::e4m3)}), {});
  EXPECT_EQ(same.cases.size(), 1u) << "e4m3 x e4m3, whether or not B's type is spelled out";
  const Comparison c = compare_reports(report({fp8("fp8gemm_sm90", 0.40, std::nullopt)}),
                                       report({fp8("fp8gemm_sm90", 0.80, DType::e5m2)}), {});
  EXPECT_TRUE(c.cases.empty());
  ASSERT_EQ(c.only_base.size(), 1u);
  ASSERT_EQ(c.only_new.size(), 1u);
  EXPECT_NE(c.only_new[0].find("e4m3xe5m2/f32 tensor"), std::string::npos) << c.only_new[0];
  EXPECT_EQ(c.only_base[0].find("xe5m2"), std::string::npos) << c.only_base[0];
}

TEST(Compare, BadInputIsOneLineUsageError) {
  const std::string missing = temp_path("missing.json").string();
  const std::string not_json = write_text("not_json.json", "{ this is not json");
  const std::string foreign = write_text("foreign.json", R"({"rows": [], "metadata": {}})");
  json newer = report_json({row("hgemm_tn", 0.40)});
  newer["metadata"]["schema_version"] = 2;
  const std::string future = write_text("future.json", newer.dump());
  json broken = report_json({row("hgemm_tn", 0.40)});
  broken["results"][0].erase("m");
  const std::string bad_row = write_text("bad_row.json", broken.dump());
  for (const std::string& path : {missing, not_json, foreign, future, bad_row}) {
    const std::string msg = load_error(path);
    EXPECT_FALSE(msg.empty()) << path;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
  }
  EXPECT_NE(load_error(foreign).find("not a gemmbench report"), std::string::npos);
  EXPECT_NE(load_error(future).find("schema_version 2"), std::string::npos);
  // "1.3" reads as major 1.
  json minor = report_json({row("hgemm_tn", 0.40)});
  minor["metadata"]["schema_version"] = "1.3";
  EXPECT_NO_THROW(parse_report(minor, "minor"));
  for (const auto& p : {not_json, foreign, future, bad_row}) fs::remove(p);
}

TEST(Compare, CommittedReportsLoad) {
  // Two same-day repeats copied from bench_results/h100, the second gzip-compressed as committed
  // reports are: the reader takes both.
  const fs::path dir = fs::path(GEMMBENCH_SOURCE_DIR);
  const Report a =
      load_report((dir / "tests/data/reports/2026-11-22_hopper_5120_repeat1.json").string());
  const Report b =
      load_report((dir / "tests/data/reports/2026-11-22_hopper_5120_repeat2.json.gz").string());
  const Comparison c = compare_reports(a, b, Options{});
  EXPECT_EQ(c.cases.size(), 4u);
  EXPECT_EQ(c.slower + c.faster, 0u);  // same-day repeats of one command
  // mma-peak output is JSON, but not a report.
  EXPECT_NE(load_error((dir / "tests/data/reports/2026-11-22_mma_peak_f16.json").string())
                .find("not a gemmbench"),
            std::string::npos);
}

TEST(Compare, OutputFormats) {
  const Comparison c = compare_reports(report({row("cublas", 0.26), row("hgemm_tn", 0.40)}),
                                       report({row("cublas", 0.26), row("hgemm_tn", 0.44)}), {});
  const std::string md = format_markdown(c);
  EXPECT_NE(md.find("| case | base ms | new ms | change |"), std::string::npos);
  EXPECT_NE(md.find("**SLOWER**"), std::string::npos);
  const json j = json::parse(to_json(c).dump());
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["summary"]["slower"], 1);
  EXPECT_EQ(j["cases"][1]["verdict"], "slower");
  EXPECT_EQ(j["cases"][1]["method"], "quantiles");
  EXPECT_NEAR(j["cases"][1]["change_pct"].get<double>(), 10.0, 1e-9);
  const std::string csv = format_csv(c);
  EXPECT_EQ(csv.rfind("case,base_status,new_status,base_median_ms", 0), 0u);
  EXPECT_NE(csv.find(",slower,"), std::string::npos);
}
