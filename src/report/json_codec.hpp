// JSON form of report records, shared by the JSON reporter and by anything that reads reports
// back (tests, scripts/plot_report.py reads the same field names).
#pragma once

#include <nlohmann/json.hpp>

#include "report/result.hpp"

namespace gemmbench {

inline constexpr int kReportSchemaVersion = 1;

nlohmann::json to_json(const CaseResult& r);
nlohmann::json to_json(const RunMetadata& m);
nlohmann::json to_json(const RunSummary& s);
// What a report's metadata says, back as RunMetadata, for printing merged reports: every key
// read where present, absent ones left at their defaults (reports from older versions lack some).
// data_used and shard_planned are not read.
RunMetadata run_metadata_from_json(const nlohmann::json& j);
// Inverse of to_json(CaseResult); throws nlohmann::json::exception on a malformed object.
CaseResult case_result_from_json(const nlohmann::json& j);

}  // namespace gemmbench
