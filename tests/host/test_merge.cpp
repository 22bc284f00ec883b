// `gemmbench merge` on synthetic shard reports of a real plan: complete, missing and duplicated
// rows, foreign plans and bad input, through the subcommand as main() runs it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "config/config.hpp"
#include "core/errors.hpp"
#include "merge/merge.hpp"
#include "merge/merge_cli.hpp"
#include "plan/shard.hpp"
#include "report/json_codec.hpp"
#include "report/report_file.hpp"

using namespace gemmbench;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("gemmbench_merge_" + std::to_string(::getpid()) + "_" + name);
}

Plan prefill_plan() {
  const auto path = fs::path(GEMMBENCH_SOURCE_DIR) / "configs" / "llm_prefill.json";
  return build_plan(load_config_file(path.string()).runs, MeasureSettings{}, MeasureOverrides{},
                    KernelRegistry::instance());
}

// The report shard `index` of `count` would write, as the runner and main() fill it: rows with
// their plan-wide index, metadata with the whole plan's hash.
json shard_report(const Plan& whole, int index, int count, size_t drop_rows = 0) {
  const Plan part = shard_plan(whole, ShardSpec{index, count});
  RunMetadata m;
  m.tool_version = "0.1.0";
  m.seed = 20261122;
  m.host = "node" + std::to_string(index);
  m.device.name = "NVIDIA H100 80GB HBM3";
  m.plan_hash = plan_hash(whole);
  m.plan_rows = whole.row_count();
  m.shard_index = index;
  m.shard_count = count;
  for (const PlannedCase& c : planned_cases(part)) m.shard_planned.emplace_back(c.index, c.label);
  json doc{{"metadata", to_json(m)}, {"results", json::array()}};
  size_t row = 0;
  for (const ProblemGroup& g : part.groups) {
    size_t next = *g.first_row;
    std::vector<std::string> kernels{"cublas"};
    for (const KernelInfo* k : g.kernels) kernels.push_back(k->name);
    for (const std::string& k : kernels) {
      CaseResult r;
      r.index = ++next;
      r.kernel = k;
      r.provider = k == "cublas" ? "cublas" : "gemmbench";
      r.family = k == "cublas" ? "cublas" : "hgemm";
      r.run_name = g.run_name;
      r.problem = g.problem;
      r.measure = g.measure;
      r.preset = g.preset;
      r.status = Status::ok;
      r.time = TimingStats{1.0, 0.9, 0.95, 1.05, 1.0, 0.01, 10};
      if (++row > part.row_count() - drop_rows) break;
      doc["results"].push_back(to_json(r));
    }
  }
  RunSummary s;
  s.rows_planned = part.row_count();
  s.rows_written = doc["results"].size();
  doc["summary"] = to_json(s);
  return doc;
}

std::string write_json(const std::string& name, const json& doc) {
  const fs::path p = temp_path(name);
  std::ofstream(p) << doc.dump(2);
  return p.string();
}

struct CliRun {
  int code = -1;
  std::string out;
  std::string error;  // the UsageError's message, where one was thrown
};

// `gemmbench merge ARGS...` as main() dispatches it.
CliRun run_merge(const std::vector<std::string>& args) {
  CLI::App app;
  std::ostringstream out;
  const auto merge_main = merge::add_subcommand(app, out);
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

std::vector<std::string> write_shards(const Plan& plan, int count, const std::string& tag) {
  std::vector<std::string> paths;
  for (int i = 0; i < count; ++i)
    paths.push_back(write_json(tag + std::to_string(i) + ".json", shard_report(plan, i, count)));
  return paths;
}

}  // namespace

// Shards and the merged report may be gzip-compressed (committed reports are): merge reads
// .json.gz parts and writes --json F.gz compressed.
TEST(Merge, GzipPartsAndOutput) {
  const Plan plan = prefill_plan();
  std::vector<std::string> args = write_shards(plan, 2, "gz");
  const std::string packed = args[1] + ".gz";
  write_file_atomic(packed, read_text_file(args[1]));
  fs::remove(args[1]);
  args[1] = packed;
  const std::string out_json = temp_path("merged.json.gz").string();
  args.insert(args.end(), {"--json", out_json});
  const CliRun r = run_merge(args);
  ASSERT_EQ(r.code, 0) << r.error << r.out;
  std::ifstream raw(out_json, std::ios::binary);
  EXPECT_EQ(raw.get(), 0x1f) << "gzip magic";
  EXPECT_EQ(read_json_file(out_json)["results"].size(), plan.row_count());
  EXPECT_EQ(load_report(out_json).rows.size(), plan.row_count());
}

TEST(Merge, CompleteShardsMergeInPlanOrder) {
  const Plan plan = prefill_plan();
  std::vector<std::string> args = write_shards(plan, 3, "complete");
  std::swap(args[0], args[2]);  // order of the arguments does not matter
  const std::string out_json = temp_path("merged.json").string();
  const std::string out_csv = temp_path("merged.csv").string();
  args.insert(args.end(), {"--json", out_json, "--csv", out_csv});
  const CliRun r = run_merge(args);
  ASSERT_EQ(r.code, 0) << r.error << r.out;
  EXPECT_NE(r.out.find(fmt::format("{} of {} rows", plan.row_count(), plan.row_count())),
            std::string::npos)
      << r.out;
  json merged;
  std::ifstream(out_json) >> merged;
  ASSERT_EQ(merged["results"].size(), plan.row_count());
  for (size_t i = 0; i < plan.row_count(); ++i)
    EXPECT_EQ(merged["results"][i]["index"].get<size_t>(), i + 1);
  EXPECT_EQ(merged["metadata"]["plan_hash"], plan_hash(plan));
  EXPECT_EQ(merged["metadata"]["merged_from"].size(), 3u);
  EXPECT_EQ(merged["metadata"]["shard"]["count"], 1);
  EXPECT_TRUE(merged["summary"]["complete"].get<bool>());
  EXPECT_EQ(merged["summary"]["ok"].get<size_t>(), plan.row_count());
  // The merged report is itself a report: compare (and merge) read it back.
  EXPECT_EQ(load_report(out_json).rows.size(), plan.row_count());
  EXPECT_EQ(run_merge({out_json}).code, 0);
  std::ifstream csv(out_csv);
  size_t lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, plan.row_count() + 1);
}

TEST(Merge, MissingRowsAreNamedAndExitOne) {
  const Plan plan = prefill_plan();
  // Shard 1 of 3 stopped two rows early; shard 2 of 3 wrote no report at all.
  const std::string a = write_json("miss0.json", shard_report(plan, 0, 3));
  const std::string b = write_json("miss1.json", shard_report(plan, 1, 3, 2));
  const CliRun r = run_merge({a, b});
  EXPECT_EQ(r.code, 1) << r.error;
  EXPECT_NE(r.out.find("MISSING"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("shard 2/3: no report given"), std::string::npos) << r.out;
  // The two rows shard 1 planned are named by case, from its metadata.
  const auto planned = planned_cases(shard_plan(plan, {1, 3}));
  for (size_t i = planned.size() - 2; i < planned.size(); ++i)
    EXPECT_NE(r.out.find(fmt::format("row {}: {} (shard 1/3)", planned[i].index, planned[i].label)),
              std::string::npos)
        << r.out;
  // Shard 2's rows are given by index only: nothing names them.
  EXPECT_NE(r.out.find("no part planned them"), std::string::npos) << r.out;
  const merge::Merged m = merge::merge_reports({load_report(a), load_report(b)});
  EXPECT_EQ(m.rows.size() + 2 + shard_plan(plan, {2, 3}).row_count(), plan.row_count());
  EXPECT_FALSE(m.report["summary"]["complete"].get<bool>());
  EXPECT_EQ(merge::exit_code(m), 1);
}

TEST(Merge, DuplicatedRowsAreNamedAndExitOne) {
  const Plan plan = prefill_plan();
  std::vector<std::string> parts = write_shards(plan, 2, "dup");
  parts.push_back(parts[1]);  // one shard's report given twice
  const CliRun r = run_merge(parts);
  EXPECT_EQ(r.code, 1) << r.error;
  const size_t dups = shard_plan(plan, {1, 2}).row_count();
  EXPECT_NE(r.out.find(fmt::format("DUPLICATED ({})", dups)), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("MISSING"), std::string::npos) << r.out;
  // The merged report still holds each row once.
  const merge::Merged m =
      merge::merge_reports({load_report(parts[0]), load_report(parts[1]), load_report(parts[2])});
  EXPECT_EQ(m.rows.size(), plan.row_count());
  EXPECT_EQ(m.duplicated.size(), dups);
}

TEST(Merge, ShardsOfDifferentCountsOfOnePlanMerge) {
  // Rows carry their plan-wide index, so a rerun of a lost shard with another split still fits.
  const Plan plan = prefill_plan();
  const Plan half = shard_plan(plan, {0, 2});
  // Shard 0/2, and the 4-way shards that cover exactly what 1/2 holds do not exist in general;
  // so rerun the whole plan as 1/1 beside 0/2: every row of 0/2 is then duplicated, none missing.
  const CliRun r = run_merge({write_json("mix0.json", shard_report(plan, 0, 2)),
                              write_json("mix1.json", shard_report(plan, 0, 1))});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find(fmt::format("DUPLICATED ({})", half.row_count())), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("MISSING"), std::string::npos) << r.out;
}

TEST(Merge, ForeignPlanOrBadInputExitsTwoWithOneLine) {
  const Plan plan = prefill_plan();
  const std::string a = write_json("foreign0.json", shard_report(plan, 0, 2));
  json other = shard_report(plan, 1, 2);
  other["metadata"]["plan_hash"] = "0123456789abcdef";
  const std::string b = write_json("foreign1.json", other);
  CliRun r = run_merge({a, b});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.error.find("mixed plans"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find('\n'), std::string::npos);

  json seed = shard_report(plan, 1, 2);
  seed["metadata"]["seed"] = 1;
  r = run_merge({a, write_json("seed1.json", seed)});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.error.find("mixed seeds"), std::string::npos) << r.error;

  json old = shard_report(plan, 1, 2);
  old["metadata"].erase("plan_hash");
  r = run_merge({a, write_json("old1.json", old)});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.error.find("no plan_hash"), std::string::npos) << r.error;

  json outside = shard_report(plan, 1, 2);
  outside["results"][0]["index"] = plan.row_count() + 1;
  r = run_merge({a, write_json("outside1.json", outside)});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.error.find("outside the plan"), std::string::npos) << r.error;

  r = run_merge({a, temp_path("does_not_exist.json").string()});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.error.find("cannot read"), std::string::npos) << r.error;

  const fs::path text = temp_path("not_json.json");
  std::ofstream(text) << "hello";
  r = run_merge({a, text.string()});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.error.find("not JSON"), std::string::npos) << r.error;

  r = run_merge({a, write_json("not_report.json", json{{"x", 1}})});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.error.find("not a gemmbench report"), std::string::npos) << r.error;
  EXPECT_EQ(r.out, "");  // nothing printed, nothing written
}
