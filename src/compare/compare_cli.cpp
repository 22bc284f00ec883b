#include "compare/compare_cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>

#include "compare/compare.hpp"
#include "core/errors.hpp"
#include "report/reporter.hpp"

namespace gemmbench::compare {

namespace {

struct CliState {
  std::string base, now;
  double threshold_pct = kDefaultThresholdPct;
  double significance = kDefaultSignificance;
  std::string markdown, csv, json;
};

const char* kFooter = R"(
Rows are matched by case: kernel, MxNxK, layout, types (A's, B's and an FP8 row's format),
accumulate type, alpha, beta, cache, data, regime and preset. Each line gives both medians, the change, each run's noise (half its
p10-p90 spread), the ratio to cuBLAS on both sides and a verdict. A change is called faster or
SLOWER only beyond --threshold and beyond both runs' noise: a Mann-Whitney U rank test on the
samples where both reports kept them (gemmbench --keep-samples --json ...), else each median must
lie outside the other run's p10-p90 band. Rows on one side only are listed. Metadata that differs
(GPU, driver, CUDA, cuBLAS, clocks, regime, data, cache, commit) is printed first, with a warning
where absolute times are not comparable; the ratio to cuBLAS is the figure to read then.

Output: the console table on stdout; --markdown/--csv/--json FILE also write that format to FILE.
FILE '-' sends that format to stdout instead of the table (one format at most).

Examples:
  gemmbench compare base.json new.json
  gemmbench compare base.json new.json --threshold 5 --markdown pr.md
  gemmbench compare base.json new.json --json - | jq '.cases[] | select(.verdict == "slower")'

Exit codes: 0 nothing slower beyond the threshold, 1 a case slower (or FAILED in NEW while ok in
  BASE), 2 bad input (unreadable file, not a gemmbench report, unknown schema version).)";

void write_file(const std::string& path, const std::string& text, const char* flag) {
  std::ofstream f(path, std::ios::out | std::ios::trunc);
  f << text;
  if (!f) throw UsageError(fmt::format("{}: cannot write '{}'", flag, path));
}

int run(const CliState& s, std::ostream& out) {
  if (!std::isfinite(s.threshold_pct) || s.threshold_pct < 0 || s.threshold_pct >= 100)
    throw UsageError(
        fmt::format("--threshold {}: accepted a percentage in [0, 100)", s.threshold_pct));
  if (!(s.significance > 0 && s.significance < 1))
    throw UsageError(
        fmt::format("--significance {}: accepted a p-value in (0, 1)", s.significance));
  int to_stdout = 0;
  for (const auto* f : {&s.markdown, &s.csv, &s.json}) to_stdout += *f == "-";
  if (to_stdout > 1)
    throw UsageError("only one of --markdown, --csv and --json may be '-' (stdout)");
  // Everything the user named is checked before anything is written.
  const Report base = load_report(s.base);
  const Report now = load_report(s.now);
  if (!s.markdown.empty() && s.markdown != "-") check_output_path(s.markdown, "--markdown");
  if (!s.csv.empty() && s.csv != "-") check_output_path(s.csv, "--csv");
  if (!s.json.empty() && s.json != "-") check_output_path(s.json, "--json");

  const Comparison c = compare_reports(base, now, Options{s.threshold_pct, s.significance});
  const struct {
    const std::string& path;
    const char* flag;
    std::string (*render)(const Comparison&);
  } formats[] = {
      {s.markdown, "--markdown", format_markdown},
      {s.csv, "--csv", format_csv},
      {s.json, "--json", [](const Comparison& x) { return to_json(x).dump(2) + "\n"; }},
  };
  bool table = true;
  for (const auto& f : formats) {
    if (f.path.empty()) continue;
    if (f.path == "-") {
      out << f.render(c);
      table = false;
    } else {
      write_file(f.path, f.render(c), f.flag);
    }
  }
  if (table) out << format_console(c);
  out.flush();
  return exit_code(c);
}

}  // namespace

std::function<int()> add_subcommand(CLI::App& app, std::ostream& out) {
  auto s = std::make_shared<CliState>();
  CLI::App* sub =
      app.add_subcommand("compare", "Compare two JSON reports case by case (BASE, then NEW)");
  sub->footer(kFooter);
  sub->add_option("base", s->base, "The reference report (gemmbench --json)")->required();
  sub->add_option("new", s->now, "The report to judge against it")->required();
  sub->add_option("--threshold", s->threshold_pct,
                  fmt::format("Smallest change of the median, in %, that can be called faster "
                              "or SLOWER (default {:g}; docs/compare.md says why)",
                              kDefaultThresholdPct));
  sub->add_option("--significance", s->significance,
                  fmt::format("p-value below which the rank test calls a change outside the "
                              "noise (default {:g})",
                              kDefaultSignificance));
  sub->add_option("--markdown", s->markdown,
                  "Also write the comparison as Markdown to FILE ('-': stdout)");
  sub->add_option("--csv", s->csv, "Also write one CSV line per case to FILE ('-': stdout)");
  sub->add_option("--json", s->json, "Also write the comparison as JSON to FILE ('-': stdout)");
  return [s, &out] { return run(*s, out); };
}

}  // namespace gemmbench::compare
