// `gemmbench merge PART.json...`: the --json reports of the shards of one plan (--shard I/N or
// auto) joined into one report, rows in plan order. Checks that every part comes from the same
// plan (metadata plan_hash) and says which rows are missing or written twice. Host-only.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "report/report_reader.hpp"
#include "report/result.hpp"

namespace gemmbench::merge {

struct Merged {
  std::string plan_hash;
  size_t plan_rows = 0;
  std::vector<std::string> parts;       // paths, in the order merged (by shard index)
  std::vector<CaseResult> rows;         // one per plan row present, by plan-wide index
  std::vector<std::string> missing;     // "row 5: hgemm_tn 4096x4096x4096 tn f16/f32 (shard 2/4)"
  std::vector<std::string> duplicated;  // "row 7: cublas ... in a.json, b.json"
  std::vector<std::string> notes;       // incomplete parts, shards without a report, mixed GPUs
  RunMetadata metadata;                 // for the CSV reporter (device name)
  RunSummary summary;                   // recounted over the merged rows
  nlohmann::json report;                // the merged --json report
};

// Merges reports already loaded with load_report. Throws UsageError (one line) when
// there are none, a part has no plan_hash or shard in its metadata, the plan hashes or seeds
// differ, or a row's index lies outside the plan.
Merged merge_reports(const std::vector<Report>& parts);

// 1 when a row is missing or duplicated, else 0.
int exit_code(const Merged& m);

// What was merged, then the missing and duplicated rows and the notes.
std::string format_console(const Merged& m);

// "5-9, 12" from sorted row indices (merge's and the fleet summary's lists of missing rows).
std::string ranges_text(const std::vector<size_t>& v);

}  // namespace gemmbench::merge
