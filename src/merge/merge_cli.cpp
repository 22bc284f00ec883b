#include "merge/merge_cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "merge/merge.hpp"
#include "merge/replicate.hpp"
#include "plan/shard.hpp"
#include "report/report_file.hpp"
#include "report/report_reader.hpp"
#include "report/reporter.hpp"

namespace gemmbench::merge {

namespace {

struct CliState {
  std::vector<std::string> parts;
  std::string json, csv, markdown;
  double outlier_threshold_pct = kDefaultOutlierThresholdPct;
};

const char* kFooter = R"(
Joins the --json reports of the shards of one plan (gemmbench --shard I/N or --shard auto) into
one report with every row in plan order. Every part must carry the same plan_hash (the hash of
the whole plan before sharding) and seed; rows are matched by their plan-wide index. The rows a
shard planned but never wrote, and rows given twice, are listed by index and case.

The reports of a fleet check (--mode replicate: every GPU ran the whole plan) merge into one
report that keeps every GPU's rows and adds a fleet summary per case: the median over the GPUs,
the spread (slowest / fastest) and the GPUs more than --outlier-threshold percent slower than the
median. Shard and replicate reports do not mix (metadata "mode" says which a report is).

Examples:
  gemmbench merge out_0.json out_1.json out_2.json out_3.json --json all.json --csv all.csv
  gemmbench merge out_*.json
  gemmbench merge fleet_*.json --json fleet.json --markdown fleet.md --outlier-threshold 3

Exit codes: 0 every row of the plan exactly once (fleet: every GPU every row, no outlier), 1 rows
  missing or duplicated, or (fleet) a GPU is an outlier (the merged files are still written),
  2 bad input (unreadable file, not a gemmbench report, a report without plan_hash, parts of
  different plans, seeds or modes).)";

// Writes `text` to `path` or throws UsageError naming `flag`.
void write_text(const std::string& path, const std::string& text, const char* flag) {
  std::ofstream f(path, std::ios::out | std::ios::trunc);
  f << text;
  if (!f) throw UsageError(fmt::format("{}: cannot write '{}'", flag, path));
}

int run_replicate(const CliState& s, const std::vector<Report>& reports, std::ostream& out) {
  const ReplicaMerge m = merge_replicas(reports, s.outlier_threshold_pct);
  if (!s.json.empty()) write_text(s.json, m.report.dump(2) + "\n", "--json");
  if (!s.csv.empty()) write_fleet_csv(m, s.csv);
  if (!s.markdown.empty()) write_text(s.markdown, format_fleet_markdown(m), "--markdown");
  out << fmt::format("merged {} replicate report{}\n", m.fleet.gpus.size(),
                     m.fleet.gpus.size() == 1 ? "" : "s")
      << format_fleet_console(m);
  out.flush();
  return exit_code(m);
}

int run(const CliState& s, std::ostream& out) {
  std::vector<Report> reports;
  for (const auto& p : s.parts) reports.push_back(load_report(p));
  if (!s.json.empty()) check_output_path(s.json, "--json");
  if (!s.csv.empty()) check_output_path(s.csv, "--csv");
  if (!s.markdown.empty()) check_output_path(s.markdown, "--markdown");
  size_t replicate = 0;
  for (const Report& r : reports)
    if (r.metadata.value("mode", std::string("shard")) == "replicate") ++replicate;
  if (replicate > 0 && replicate < reports.size())
    throw UsageError(
        "mixed modes: some reports are --mode replicate parts (every GPU the whole plan), others "
        "shards of a plan; merge them separately");
  if (replicate) return run_replicate(s, reports, out);
  if (!s.markdown.empty())
    throw UsageError(
        "--markdown: only a fleet check (--mode replicate parts) has a Markdown summary");
  const Merged m = merge_reports(reports);
  if (!s.json.empty()) {
    try {
      write_file_atomic(s.json, report_text(m.report));  // gzip-compressed for a .gz name
    } catch (const std::runtime_error&) {
      throw UsageError(fmt::format("--json: cannot write '{}'", s.json));
    }
  }
  if (!s.csv.empty()) {
    auto csv = make_csv_reporter(s.csv);
    csv->begin(m.metadata);
    for (const CaseResult& r : m.rows) csv->add(r);
    csv->end(m.summary);
  }
  out << format_console(m);
  out.flush();
  return exit_code(m);
}

}  // namespace

std::function<int()> add_subcommand(CLI::App& app, std::ostream& out) {
  auto s = std::make_shared<CliState>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Merge the --json reports of a sharded run (--shard) into one, checking coverage");
  sub->footer(kFooter);
  sub->add_option("parts", s->parts, "The shards' JSON reports")->required();
  sub->add_option("--json", s->json, "Write the merged JSON report to FILE");
  sub->add_option("--csv", s->csv, "Write the merged rows as CSV to FILE");
  sub->add_option("--markdown", s->markdown,
                  "Fleet check (replicate parts) only: write the fleet summary as Markdown");
  sub->add_option("--outlier-threshold", s->outlier_threshold_pct,
                  "Fleet check: percent above the case's median over the GPUs beyond which a GPU "
                  "is an outlier (default 5)");
  return [s, &out] { return run(*s, out); };
}

}  // namespace gemmbench::merge
