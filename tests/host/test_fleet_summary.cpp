// The fleet summary of --mode replicate on synthetic rows (median over the GPUs, spread, outliers
// at the threshold's edge, untimed rows), and `gemmbench merge` of replicate parts
// (tests/data/fleet/replica_*.json: synthetic, replica 2 8% slower on row 2).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "merge/merge_cli.hpp"
#include "merge/replicate.hpp"
#include "report/report_reader.hpp"

using namespace gemmbench;
using namespace gemmbench::merge;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(GEMMBENCH_SOURCE_DIR) / "tests" / "data" / "fleet";

CaseResult timed(size_t index, double median_ms, Status status = Status::ok) {
  CaseResult r;
  r.index = index;
  r.kernel = "hgemm_tn";
  r.problem.m = r.problem.n = r.problem.k = 4096;
  r.status = status;
  if (status == Status::ok || status == Status::failed)
    r.time = TimingStats{median_ms, median_ms, median_ms, median_ms, median_ms, 0, 10};
  return r;
}

std::vector<GpuIdentity> gpus(size_t n) {
  std::vector<GpuIdentity> g(n);
  for (size_t i = 0; i < n; ++i) {
    g[i].replica = int(i);
    g[i].device_index = int(i);
  }
  return g;
}

// One case, GPU i at times[i].
FleetSummary one_case(const std::vector<double>& times, double threshold = 5.0) {
  std::vector<std::vector<CaseResult>> rows;
  for (double t : times) rows.push_back({timed(1, t)});
  return fleet_summary(gpus(times.size()), rows, threshold);
}

struct CliRun {
  int code = -1;
  std::string out, error;
};

CliRun run_merge(const std::vector<std::string>& args) {
  CLI::App app;
  std::ostringstream out;
  const auto merge_main = add_subcommand(app, out);
  std::vector<std::string> reversed{args.rbegin(), args.rend()};
  reversed.push_back("merge");
  app.parse(reversed);
  CliRun r;
  try {
    r.code = merge_main();
  } catch (const UsageError& e) {
    r.code = kExitUsage;
    r.error = e.what();
  }
  r.out = out.str();
  return r;
}

std::string fixture(const std::string& name) {
  return (kFixtures / name).string();
}

}  // namespace

TEST(FleetSummary, MedianSpreadAndTheOutlierOfAnOddFleet) {
  const FleetSummary f = one_case({1.00, 1.02, 1.10, 0.99, 1.01});
  ASSERT_EQ(f.cases.size(), 1u);
  const FleetCase& c = f.cases[0];
  EXPECT_EQ(c.timed, 5u);
  EXPECT_DOUBLE_EQ(c.fleet_median_ms, 1.01);
  EXPECT_DOUBLE_EQ(c.min_ms, 0.99);
  EXPECT_DOUBLE_EQ(c.max_ms, 1.10);
  EXPECT_DOUBLE_EQ(c.spread, 1.10 / 0.99);
  ASSERT_EQ(c.outliers, (std::vector<size_t>{2}));
  EXPECT_NEAR(*c.vs_median_pct[2], (1.10 / 1.01 - 1) * 100, 1e-12);
  EXPECT_NEAR(*c.vs_median_pct[3], (0.99 / 1.01 - 1) * 100, 1e-12);  // faster: negative
  EXPECT_TRUE(f.any_outlier());
  EXPECT_EQ(f.per_gpu[2].outlier_cases, 1u);
  EXPECT_EQ(f.per_gpu[0].outlier_cases, 0u);
}

TEST(FleetSummary, EvenFleetMedianIsTheMeanOfTheMiddleTwo) {
  const FleetCase c = one_case({1.0, 2.0, 3.0, 10.0}).cases[0];
  EXPECT_DOUBLE_EQ(c.fleet_median_ms, 2.5);
  EXPECT_DOUBLE_EQ(c.spread, 10.0);
  // 3.0 is 20% above 2.5 and 10.0 is 300% above: both flagged, the slowest first.
  EXPECT_EQ(c.outliers, (std::vector<size_t>{3, 2}));
  // Two GPUs: their median is their mean, so one is flagged when it is more than about twice the
  // threshold slower than the other.
  EXPECT_TRUE(one_case({1.0, 1.09}).cases[0].outliers.empty());  // 4.3% above the mean
  EXPECT_EQ(one_case({1.0, 1.11}).cases[0].outliers, (std::vector<size_t>{1}));  // 5.2%
}

TEST(FleetSummary, TheThresholdIsStrictAndAdjustable) {
  EXPECT_TRUE(one_case({1.0, 1.0, 1.049}).cases[0].outliers.empty());
  EXPECT_EQ(one_case({1.0, 1.0, 1.051}).cases[0].outliers, (std::vector<size_t>{2}));
  EXPECT_TRUE(one_case({1.0, 1.0, 1.051}, 6.0).cases[0].outliers.empty());
  EXPECT_EQ(one_case({1.0, 1.0, 1.021}, 2.0).cases[0].outliers, (std::vector<size_t>{2}));
  EXPECT_THROW(one_case({1.0, 1.0}, 0.0), UsageError);
  EXPECT_THROW(one_case({1.0, 1.0}, -5.0), UsageError);
  EXPECT_THROW(one_case({1.0, 1.0}, std::nan("")), UsageError);
}

TEST(FleetSummary, UntimedRowsAndLoneGpusFlagNothing) {
  // Row 1: GPU 1 skipped, GPU 2 FAILED verification (its time is not a fair figure): only GPU 0
  // timed it, and one GPU alone is no fleet. Row 2: GPU 2 never wrote it.
  const std::vector<std::vector<CaseResult>> rows = {{timed(1, 1.0), timed(2, 2.0)},
                                                     {timed(1, 0, Status::skipped), timed(2, 2.0)},
                                                     {timed(1, 9.0, Status::failed)}};
  const FleetSummary f = fleet_summary(gpus(3), rows, 5.0);
  ASSERT_EQ(f.cases.size(), 2u);
  EXPECT_EQ(f.cases[0].timed, 1u);
  EXPECT_TRUE(f.cases[0].outliers.empty());
  EXPECT_FALSE(f.cases[0].median_ms[1]);
  EXPECT_FALSE(f.cases[0].median_ms[2]);
  EXPECT_EQ(f.cases[1].timed, 2u);
  EXPECT_FALSE(f.cases[1].median_ms[2]);
  EXPECT_FALSE(f.any_outlier());
  EXPECT_EQ(f.per_gpu[2].cases_timed, 0u);
  EXPECT_FALSE(f.per_gpu[2].geomean_vs_median_pct);
}

TEST(FleetSummary, PerGpuGeometricMean) {
  // Rows of GPU 0, then of GPU 1. GPU 1 is 10% slower than GPU 0 on one case and 10% faster on
  // the other: against each case's median (the pair's mean) both come out even.
  const std::vector<std::vector<CaseResult>> rows = {{timed(1, 1.0), timed(2, 1.1)},
                                                     {timed(1, 1.1), timed(2, 1.0)}};
  const FleetSummary f = fleet_summary(gpus(2), rows, 5.0);
  EXPECT_NEAR(*f.per_gpu[0].geomean_vs_median_pct, *f.per_gpu[1].geomean_vs_median_pct, 1e-12);
  EXPECT_NEAR(*f.per_gpu[1].worst_vs_median_pct, (1.1 / 1.05 - 1) * 100, 1e-12);
  // GPU 1 20% slower than GPU 0 in both cases: 1.2 / 1.1 of the pair's median in each.
  const std::vector<std::vector<CaseResult>> slow = {{timed(1, 1.0), timed(2, 2.0)},
                                                     {timed(1, 1.2), timed(2, 2.4)}};
  const FleetSummary s = fleet_summary(gpus(2), slow, 5.0);
  EXPECT_NEAR(*s.per_gpu[1].geomean_vs_median_pct, (1.2 / 1.1 - 1) * 100, 1e-9);
  EXPECT_NEAR(*s.per_gpu[0].geomean_vs_median_pct, (1.0 / 1.1 - 1) * 100, 1e-9);
  EXPECT_EQ(s.per_gpu[1].outlier_cases, 2u);  // 9.1% above the median in both
}

TEST(FleetMerge, ReplicatePartsMergeIntoAFleetReport) {
  const fs::path dir =
      fs::temp_directory_path() / ("gemmbench_fleet_merge_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out_json = (dir / "fleet.json").string(), out_md = (dir / "fleet.md").string(),
                    out_csv = (dir / "fleet.csv").string();
  const CliRun r =
      run_merge({fixture("replica_2.json"), fixture("replica_0.json"), fixture("replica_1.json"),
                 "--json", out_json, "--markdown", out_md, "--csv", out_csv});
  EXPECT_EQ(r.code, 1) << r.error << r.out;  // replica 2 is an outlier on row 2
  EXPECT_NE(r.out.find("merged 3 replicate reports"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OUTLIER: more than 5% slower than the median on 1 of 8 cases: replica 2"),
            std::string::npos)
      << r.out;
  nlohmann::json merged;
  std::ifstream(out_json) >> merged;
  EXPECT_EQ(merged["metadata"]["replicas"].size(), 3u);
  EXPECT_EQ(merged["metadata"]["replicas"][0]["replica"], 0);  // by replica, not argument order
  EXPECT_EQ(merged["fleet"]["cases"][1]["outliers"][0]["replica"], 2);
  EXPECT_NEAR(merged["fleet"]["cases"][1]["outliers"][0]["slower_pct"].get<double>(),
              (0.27 / 0.2515 - 1) * 100, 1e-9);
  EXPECT_TRUE(fs::exists(out_md));
  EXPECT_EQ(run_merge({fixture("replica_0.json"), fixture("replica_1.json"),
                       fixture("replica_2.json"), "--outlier-threshold", "8"})
                .code,
            0);

  // Shard and replicate parts do not mix; a replica given twice is an error; a shard merge
  // refuses --markdown.
  CliRun bad = run_merge({fixture("replica_0.json"), fixture("shard_1.json")});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.error.find("mixed modes"), std::string::npos) << bad.error;
  bad = run_merge({fixture("replica_0.json"), fixture("replica_0.json")});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.error.find("replica 0 given twice"), std::string::npos) << bad.error;
  bad = run_merge({fixture("shard_0.json"), fixture("shard_1.json"), "--markdown", out_md});
  EXPECT_EQ(bad.code, kExitUsage);
  // A merged fleet report is not a part.
  bad = run_merge({out_json, fixture("replica_0.json")});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.error.find("no replica"), std::string::npos) << bad.error;
  fs::remove_all(dir);
}

TEST(FleetMerge, AReplicaMissingRowsIsNamed) {
  const CliRun r = run_merge({fixture("replica_0.json"), fixture("replica_1_partial.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("MISSING: replica 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replica 2/3: no report given"), std::string::npos) << r.out;
}

TEST(FleetMerge, NotHeldRowsAreCountedInTheMergedSummary) {
  // Replica 1 held its regime on no row of group 2 (rows 3 and 4): the merged report counts those
  // two rows as not_held, beside every other GPU's rows.
  std::vector<Report> parts = {load_report(fixture("replica_0.json")),
                               load_report(fixture("replica_1.json"))};
  size_t marked = 0;
  for (ReportRow& row : parts[1].rows)
    if (row.result.index == 3 || row.result.index == 4) {
      row.result.status = Status::not_held;
      row.result.time.reset();
      ++marked;
    }
  ASSERT_EQ(marked, 2u);
  const ReplicaMerge m = merge_replicas(parts, 5.0);
  EXPECT_EQ(m.summary.rows_written, 16u);
  EXPECT_EQ(m.summary.not_held, 2u);
  EXPECT_EQ(m.summary.ok, 14u);
  EXPECT_EQ(
      m.summary.ok + m.summary.failed + m.summary.skipped + m.summary.errors + m.summary.not_held,
      m.summary.rows_written);
  EXPECT_EQ(m.report["summary"]["not_held"], 2);
}
