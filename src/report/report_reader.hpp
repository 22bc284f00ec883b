// Reading a gemmbench JSON report back: the one reader of every tool that takes reports
// (`gemmbench compare`, `gemmbench merge`, the --devices parent merging its workers' parts).
// Host-only; plain or gzip-compressed files alike (report/report_file.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "report/result.hpp"

namespace gemmbench {

// One row of a report, with the fields its readers need that CaseResult does not carry (yet).
struct ReportRow {
  CaseResult result;
  std::string regime;  // measure.regime; "sustained" where the report has none
  std::string preset;  // "model/layer" from the row's preset, empty where none
  std::string key;     // the matching key (see case_key), with "#2"... for repeats
  std::string label;   // the case in words, for the tables
};

struct Report {
  std::string path;
  nlohmann::json metadata;
  std::vector<ReportRow> rows;
  bool complete = true;  // summary.complete; false for an interrupted run
};

// Reads and checks a report. Throws UsageError (one line naming the file) when the file cannot be
// read, is not JSON, is not a gemmbench report, or has a schema major version this build cannot
// read.
Report load_report(const std::string& path);
// The same from a parsed document; `name` is used in messages.
Report parse_report(const nlohmann::json& doc, const std::string& name);

// kernel|MxNxK|layout|dtype/accum|alpha|beta|cache|data|regime|preset: the fields that make two
// rows the same case.
std::string case_key(const ReportRow& row);

// A field of a JSON object as text: a string as it is, another value as JSON, "" where the field
// is absent, null or `j` is no object.
std::string json_text_at(const nlohmann::json& j, const char* key);

}  // namespace gemmbench
