#include "merge/merge_cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "core/errors.hpp"
#include "merge/merge.hpp"
#include "report/report_file.hpp"
#include "report/reporter.hpp"

namespace gemmbench::merge {

namespace {

struct CliState {
  std::vector<std::string> parts;
  std::string json, csv;
};

const char* kFooter = R"(
Joins the --json reports of the shards of one plan (gemmbench --shard I/N or --shard auto) into
one report with every row in plan order. Every part must carry the same plan_hash (the hash of
the whole plan before sharding) and seed; rows are matched by their plan-wide index. The rows a
shard planned but never wrote, and rows given twice, are listed by index and case.

Examples:
  gemmbench merge out_0.json out_1.json out_2.json out_3.json --json all.json --csv all.csv
  gemmbench merge out_*.json

Exit codes: 0 every row of the plan exactly once, 1 rows missing or duplicated (the merged files
  are still written, summary.complete false), 2 bad input (unreadable file, not a gemmbench
  report, a report without plan_hash, parts of different plans or seeds).)";

int run(const CliState& s, std::ostream& out) {
  std::vector<compare::Report> reports;
  for (const auto& p : s.parts) reports.push_back(compare::load_report(p));
  if (!s.json.empty()) check_output_path(s.json, "--json");
  if (!s.csv.empty()) check_output_path(s.csv, "--csv");
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
  return [s, &out] { return run(*s, out); };
}

}  // namespace gemmbench::merge
