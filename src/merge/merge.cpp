#include "merge/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "core/errors.hpp"
#include "report/json_codec.hpp"

namespace gemmbench::merge {

namespace {

using nlohmann::json;

struct PartInfo {
  const Report* report;
  std::string plan_hash;
  size_t plan_rows = 0;
  int shard_index = 0, shard_count = 1;
};

PartInfo part_info(const Report& r) {
  const json& m = r.metadata;
  PartInfo p{&r};
  if (m.value("mode", std::string("shard")) == "replicate")
    throw UsageError(r.path +
                     ": a --mode replicate part (every GPU the whole plan), not a shard of a plan");
  if (!m.contains("plan_hash") || !m.at("plan_hash").is_string() ||
      m.at("plan_hash").get<std::string>().empty() || !m.contains("plan_rows") ||
      !m.at("plan_rows").is_number_unsigned())
    throw UsageError(r.path +
                     ": no plan_hash/plan_rows in its metadata (written by a gemmbench without "
                     "--shard), so nothing says which plan it belongs to");
  p.plan_hash = m.at("plan_hash").get<std::string>();
  p.plan_rows = m.at("plan_rows").get<size_t>();
  const json* s = m.contains("shard") ? &m.at("shard") : nullptr;
  if (!s || !s->is_object() || !s->contains("index") || !s->contains("count") ||
      !s->at("index").is_number_integer() || !s->at("count").is_number_integer())
    throw UsageError(r.path + ": metadata has no shard {index, count}");
  p.shard_index = s->at("index").get<int>();
  p.shard_count = s->at("count").get<int>();
  if (p.shard_count < 1 || p.shard_index < 0 || p.shard_index >= p.shard_count)
    throw UsageError(
        fmt::format("{}: shard {}/{} is not a shard", r.path, p.shard_index, p.shard_count));
  return p;
}

std::string field(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>()
                                                                   : "";
}

std::string device_name(const json& meta) {
  return meta.contains("device") ? field(meta.at("device"), "name") : "";
}

// The plugin files a part ran, by hash (metadata "plugins"; docs/plugins.md): the plan hash holds
// kernel names only, and paths may differ from host to host.
std::vector<std::string> plugin_hashes(const json& meta) {
  std::vector<std::string> out;
  if (meta.contains("plugins"))
    for (const json& p : meta.at("plugins")) out.push_back(p.value("sha256", ""));
  return out;
}

}  // namespace

Merged merge_reports(const std::vector<Report>& reports) {
  if (reports.empty()) throw UsageError("merge: no reports given");
  std::vector<PartInfo> parts;
  for (const Report& r : reports) parts.push_back(part_info(r));
  for (const PartInfo& p : parts) {
    if (p.plan_hash != parts[0].plan_hash || p.plan_rows != parts[0].plan_rows)
      throw UsageError(fmt::format(
          "mixed plans: {} has plan_hash {} ({} rows), {} has {} ({} rows); only shards of one "
          "plan can be merged",
          parts[0].report->path, parts[0].plan_hash, parts[0].plan_rows, p.report->path,
          p.plan_hash, p.plan_rows));
    const json& s0 = parts[0].report->metadata.value("seed", json());
    const json& s = p.report->metadata.value("seed", json());
    if (s != s0)
      throw UsageError(fmt::format("mixed seeds: {} has {}, {} has {}; the inputs differ",
                                   parts[0].report->path, s0.dump(), p.report->path, s.dump()));
    if (plugin_hashes(p.report->metadata) != plugin_hashes(parts[0].report->metadata))
      throw UsageError(fmt::format(
          "mixed plugins: {} and {} ran different plugin files (metadata plugins[].sha256)",
          parts[0].report->path, p.report->path));
  }
  std::stable_sort(parts.begin(), parts.end(), [](const PartInfo& a, const PartInfo& b) {
    return std::tie(a.shard_count, a.shard_index) < std::tie(b.shard_count, b.shard_index);
  });

  Merged m;
  m.plan_hash = parts[0].plan_hash;
  m.plan_rows = parts[0].plan_rows;
  // Every row by plan-wide index, with the parts it came from; the first one is kept.
  std::map<size_t, std::vector<std::pair<const ReportRow*, const PartInfo*>>> by_index;
  std::map<size_t, std::string> planned;  // index -> "case (shard i/n)" from the parts' metadata
  std::set<std::pair<int, int>> shards_seen;
  std::vector<std::string> devices, hosts;
  for (const PartInfo& p : parts) {
    const Report& r = *p.report;
    m.parts.push_back(r.path);
    shards_seen.insert({p.shard_index, p.shard_count});
    if (!r.complete) m.notes.push_back(r.path + ": incomplete report (the run was interrupted)");
    for (auto* list : {&devices, &hosts}) {
      const std::string v = list == &devices ? device_name(r.metadata) : field(r.metadata, "host");
      if (std::find(list->begin(), list->end(), v) == list->end()) list->push_back(v);
    }
    const json& sh = r.metadata.at("shard");
    if (sh.contains("planned") && sh.at("planned").is_array())
      for (const json& c : sh.at("planned"))
        if (c.is_object() && c.contains("index") && c.at("index").is_number_unsigned())
          planned.emplace(
              c.at("index").get<size_t>(),
              fmt::format("{} (shard {}/{})", field(c, "case"), p.shard_index, p.shard_count));
    for (const ReportRow& row : r.rows) {
      const size_t i = row.result.index;
      if (i < 1 || i > m.plan_rows)
        throw UsageError(fmt::format("{}: row index {} lies outside the plan's rows 1..{}", r.path,
                                     i, m.plan_rows));
      by_index[i].emplace_back(&row, &p);
    }
  }
  // Shards of a count some part names that no part is.
  std::set<int> counts;
  for (const auto& [index, count] : shards_seen) counts.insert(count);
  for (int count : counts)
    for (int i = 0; i < count; ++i)
      if (!shards_seen.count({i, count}))
        m.notes.push_back(fmt::format("shard {}/{}: no report given", i, count));
  if (devices.size() > 1)
    m.notes.push_back(
        "the parts ran on different GPUs; absolute times are comparable only within one GPU "
        "model (read the ratio to cuBLAS)");

  std::vector<size_t> unnamed;
  for (size_t i = 1; i <= m.plan_rows; ++i) {
    const auto it = by_index.find(i);
    if (it == by_index.end()) {
      if (const auto p = planned.find(i); p != planned.end())
        m.missing.push_back(fmt::format("row {}: {}", i, p->second));
      else
        unnamed.push_back(i);
      continue;
    }
    const auto& seen = it->second;
    m.rows.push_back(seen[0].first->result);
    if (seen.size() > 1) {
      std::string where;
      for (const auto& [row, part] : seen)
        where += (where.empty() ? "" : ", ") + part->report->path;
      m.duplicated.push_back(fmt::format("row {}: {} in {}", i, seen[0].first->label, where));
    }
  }
  if (!unnamed.empty())
    m.missing.push_back(
        fmt::format("rows {}: in no part, and no part planned them (a shard "
                    "without a report)",
                    ranges_text(unnamed)));

  RunSummary& s = m.summary;
  s.rows_planned = m.plan_rows;
  s.rows_written = m.rows.size();
  for (const CaseResult& r : m.rows) s.count(r.status);
  std::string incomplete;
  for (const PartInfo& p : parts)
    if (!p.report->complete) incomplete += (incomplete.empty() ? "" : ", ") + p.report->path;
  if (!incomplete.empty()) {
    s.aborted = true;
    s.abort_reason = "incomplete parts: " + incomplete;
  }

  std::string device_names;
  for (const auto& d : devices) device_names += (device_names.empty() ? "" : "|") + d;
  m.metadata.device.name = device_names;

  json meta = parts[0].report->metadata;
  meta["shard"] = {{"index", 0}, {"count", 1}};
  json from = json::array();
  for (const PartInfo& p : parts) {
    const json& pm = p.report->metadata;
    from.push_back({{"path", p.report->path},
                    {"shard", {{"index", p.shard_index}, {"count", p.shard_count}}},
                    {"host", field(pm, "host")},
                    {"date_utc", field(pm, "date_utc")},
                    {"device", pm.value("device", json::object())},
                    {"rows", p.report->rows.size()},
                    {"complete", p.report->complete}});
  }
  meta["merged_from"] = std::move(from);
  if (hosts.size() > 1) meta["host"] = "(merged: see merged_from)";
  json results = json::array();
  for (const CaseResult& r : m.rows) results.push_back(to_json(r));
  json summary = to_json(s);
  summary["missing"] = m.missing;
  summary["duplicated"] = m.duplicated;
  if (!m.missing.empty() || !m.duplicated.empty()) summary["complete"] = false;
  m.report = {{"metadata", std::move(meta)},
              {"results", std::move(results)},
              {"summary", std::move(summary)}};
  return m;
}

int exit_code(const Merged& m) {
  return m.missing.empty() && m.duplicated.empty() ? 0 : 1;
}

std::string format_console(const Merged& m) {
  std::string out =
      fmt::format("merged {} report{} of plan {}: {} of {} rows\n", m.parts.size(),
                  m.parts.size() == 1 ? "" : "s", m.plan_hash, m.rows.size(), m.plan_rows);
  for (const auto& n : m.notes) out += "note: " + n + "\n";
  if (!m.missing.empty()) {
    out += fmt::format("MISSING ({}):\n", m.plan_rows - m.rows.size());
    for (const auto& x : m.missing) out += "  " + x + "\n";
  }
  if (!m.duplicated.empty()) {
    out += fmt::format("DUPLICATED ({}):\n", m.duplicated.size());
    for (const auto& x : m.duplicated) out += "  " + x + "\n";
  }
  return out;
}

// "5-9, 12" from sorted indices.
std::string ranges_text(const std::vector<size_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") +
           (j == i ? std::to_string(v[i]) : fmt::format("{}-{}", v[i], v[j]));
    i = j + 1;
  }
  return out;
}

}  // namespace gemmbench::merge
