#include "merge/replicate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "merge/merge.hpp"
#include "report/json_codec.hpp"
#include "report/reporter.hpp"
#include "stats/stats.hpp"

namespace gemmbench::merge {

namespace {

using nlohmann::json;

std::string field(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>()
                                                                   : "";
}

std::string row_label(const CaseResult& r) {
  std::string s = fmt::format("{} {} {} {}", r.kernel, r.problem.shape_string(),
                              to_string(r.problem.layout), r.problem.type_string());
  if (!r.preset.empty()) s += " [" + r.preset.model + "/" + r.preset.layer + "]";
  return s;
}

std::string pct_text(const std::optional<double>& v) {
  return v ? fmt::format("{:+.1f}%", *v) : "-";
}

json gpu_json(const GpuIdentity& g) {
  return json{{"replica", g.replica},
              {"host", g.host},
              {"device_index", g.device_index},
              {"name", g.name},
              {"pci_bus_id", g.pci_bus_id},
              {"uuid", g.uuid},
              {"serial", g.serial}};
}

}  // namespace

std::string GpuIdentity::label() const {
  std::string s = fmt::format("{}dev {} ({}", host.empty() ? "" : host + " ", device_index,
                              pci_bus_id.empty() ? "no PCI id" : pci_bus_id);
  if (!serial.empty()) s += ", serial " + serial;
  return s + ")";
}

bool FleetSummary::any_outlier() const {
  return std::any_of(cases.begin(), cases.end(),
                     [](const FleetCase& c) { return !c.outliers.empty(); });
}

FleetSummary fleet_summary(const std::vector<GpuIdentity>& gpus,
                           const std::vector<std::vector<CaseResult>>& rows_per_gpu,
                           double threshold_pct) {
  if (!std::isfinite(threshold_pct) || threshold_pct <= 0)
    throw UsageError(fmt::format(
        "--outlier-threshold: {} is not a positive percentage (the default is 5)", threshold_pct));
  if (rows_per_gpu.size() != gpus.size())
    throw std::invalid_argument("fleet_summary: one row list per GPU");
  FleetSummary f;
  f.threshold_pct = threshold_pct;
  f.gpus = gpus;
  const size_t n = gpus.size();
  std::map<size_t, FleetCase> cases;
  for (size_t g = 0; g < n; ++g)
    for (const CaseResult& r : rows_per_gpu[g]) {
      FleetCase& c = cases[r.index];
      if (c.median_ms.empty()) {
        c.index = r.index;
        c.label = row_label(r);
        c.median_ms.assign(n, std::nullopt);
        c.vs_median_pct.assign(n, std::nullopt);
      }
      if (r.status == Status::ok && r.time && r.time->median_ms > 0)
        c.median_ms[g] = r.time->median_ms;
    }
  f.per_gpu.assign(n, FleetGpuSummary{});
  std::vector<double> log_sum(n, 0.0);
  std::vector<size_t> log_count(n, 0);
  for (auto& [index, c] : cases) {
    std::vector<double> times;
    for (const auto& t : c.median_ms)
      if (t) times.push_back(*t);
    c.timed = times.size();
    if (times.empty()) {
      f.cases.push_back(std::move(c));
      continue;
    }
    c.fleet_median_ms = percentile(times, 50);
    c.min_ms = *std::min_element(times.begin(), times.end());
    c.max_ms = *std::max_element(times.begin(), times.end());
    c.spread = c.max_ms / c.min_ms;
    for (size_t g = 0; g < n; ++g) {
      if (!c.median_ms[g]) continue;
      const double rel = *c.median_ms[g] / c.fleet_median_ms;
      const double pct = (rel - 1.0) * 100.0;
      c.vs_median_pct[g] = pct;
      FleetGpuSummary& s = f.per_gpu[g];
      ++s.cases_timed;
      if (!s.worst_vs_median_pct || pct > *s.worst_vs_median_pct) s.worst_vs_median_pct = pct;
      // One GPU alone is its own median: it says nothing about the fleet.
      if (c.timed >= 2) {
        log_sum[g] += std::log(rel);
        ++log_count[g];
      }
      if (c.timed >= 2 && pct > threshold_pct) {
        c.outliers.push_back(g);
        ++s.outlier_cases;
      }
    }
    std::sort(c.outliers.begin(), c.outliers.end(),
              [&](size_t a, size_t b) { return *c.median_ms[a] > *c.median_ms[b]; });
    f.cases.push_back(std::move(c));
  }
  for (size_t g = 0; g < n; ++g)
    if (log_count[g])
      f.per_gpu[g].geomean_vs_median_pct =
          (std::exp(log_sum[g] / double(log_count[g])) - 1.0) * 100.0;
  return f;
}

namespace {

// One replicate part: its report and the GPU it ran on.
struct Part {
  const Report* report;
  GpuIdentity gpu;
  int count = 1;
};

// Each report as a replicate part, or UsageError naming the file that is none.
std::vector<Part> replicate_parts(const std::vector<Report>& reports) {
  std::vector<Part> parts;
  for (const Report& r : reports) {
    const json& m = r.metadata;
    if (field(m, "mode") != "replicate")
      throw UsageError(r.path + ": not a --mode replicate report (metadata mode '" +
                       field(m, "mode") + "')");
    const json* rep = m.contains("replica") ? &m.at("replica") : nullptr;
    if (!rep || !rep->is_object() || !rep->contains("index") || !rep->contains("count") ||
        !rep->at("index").is_number_integer() || !rep->at("count").is_number_integer())
      throw UsageError(r.path +
                       ": metadata has no replica {index, count} (a merged fleet report is not a "
                       "part: merge the workers' reports)");
    if (field(m, "plan_hash").empty() || !m.contains("plan_rows") ||
        !m.at("plan_rows").is_number_unsigned())
      throw UsageError(r.path + ": no plan_hash/plan_rows in its metadata");
    Part p{&r, {}, rep->at("count").get<int>()};
    p.gpu.replica = rep->at("index").get<int>();
    p.gpu.host = field(m, "host");
    const json dev = m.value("device", json::object());
    p.gpu.device_index = dev.value("index", 0);
    p.gpu.name = field(dev, "name");
    p.gpu.pci_bus_id = field(dev, "pci_bus_id");
    p.gpu.uuid = field(dev, "uuid");
    p.gpu.serial = field(dev, "serial");
    p.gpu.path = r.path;
    p.gpu.complete = r.complete;
    parts.push_back(std::move(p));
  }
  return parts;
}

// One plan and one seed for all, each replica once; `parts` sorted by replica.
void check_one_plan(std::vector<Part>& parts) {
  const json& m0 = parts[0].report->metadata;
  for (const Part& p : parts) {
    const json& m = p.report->metadata;
    if (m.at("plan_hash") != m0.at("plan_hash") || m.at("plan_rows") != m0.at("plan_rows"))
      throw UsageError(fmt::format(
          "mixed plans: {} has plan_hash {}, {} has {}; every GPU of a fleet check runs one plan",
          parts[0].report->path, field(m0, "plan_hash"), p.report->path, field(m, "plan_hash")));
    if (m.value("seed", json()) != m0.value("seed", json()))
      throw UsageError(fmt::format("mixed seeds: {} and {}; the inputs differ",
                                   parts[0].report->path, p.report->path));
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part& a, const Part& b) { return a.gpu.replica < b.gpu.replica; });
  for (size_t i = 1; i < parts.size(); ++i)
    if (parts[i].gpu.replica == parts[i - 1].gpu.replica)
      throw UsageError(fmt::format("replica {} given twice: {} and {}", parts[i].gpu.replica,
                                   parts[i - 1].report->path, parts[i].report->path));
}

// Each part's rows by plan index (the first of a repeated index kept) into out.rows, and the
// rows a part lacks into out.missing.
void collect_rows(const std::vector<Part>& parts, ReplicaMerge& out) {
  for (const Part& p : parts) {
    std::vector<CaseResult> rows;
    std::set<size_t> seen;
    for (const ReportRow& row : p.report->rows) {
      const size_t i = row.result.index;
      if (i < 1 || i > out.plan_rows)
        throw UsageError(fmt::format("{}: row index {} lies outside the plan's rows 1..{}",
                                     p.report->path, i, out.plan_rows));
      if (seen.insert(i).second) rows.push_back(row.result);
    }
    std::sort(rows.begin(), rows.end(),
              [](const CaseResult& a, const CaseResult& b) { return a.index < b.index; });
    std::vector<size_t> absent;
    for (size_t i = 1; i <= out.plan_rows; ++i)
      if (!seen.count(i)) absent.push_back(i);
    if (!absent.empty())
      out.missing.push_back(fmt::format("replica {} ({}): {} of {} rows missing: {}{}",
                                        p.gpu.replica, p.gpu.label(), absent.size(), out.plan_rows,
                                        ranges_text(absent),
                                        p.gpu.complete ? "" : " (its run did not finish)"));
    out.rows.push_back(std::move(rows));
  }
}

// What the reader should know besides the figures: replicas without a report, GPUs of different
// models, replicas that shared a GPU.
std::vector<std::string> fleet_notes(const std::vector<Part>& parts,
                                     const std::vector<GpuIdentity>& gpus) {
  std::vector<std::string> notes;
  std::set<int> replicas;
  int count = 0;
  for (const Part& p : parts) {
    replicas.insert(p.gpu.replica);
    count = std::max(count, p.count);
  }
  for (int i = 0; i < count; ++i)
    if (!replicas.count(i))
      notes.push_back(fmt::format("replica {}/{}: no report given", i, count));
  std::set<std::string> names;
  for (const GpuIdentity& g : gpus) names.insert(g.name);
  if (names.size() > 1)
    notes.push_back("the GPUs are of different models: a fleet check compares boards of one model");
  std::set<std::pair<std::string, std::string>> where;
  for (const GpuIdentity& g : gpus)
    if (!where.insert({g.host, g.uuid.empty() ? g.pci_bus_id : g.uuid}).second)
      notes.push_back(fmt::format(
          "replica {} ran on a GPU another replica also ran on ({}): they shared it, and their "
          "times say nothing about the boards (--devices 0,0 is for testing the machinery)",
          g.replica, g.label()));
  return notes;
}

// Every GPU's rows counted by status; aborted where a part's run did not finish.
RunSummary merged_summary(const std::vector<Part>& parts, const ReplicaMerge& m) {
  RunSummary s;
  s.rows_planned = m.plan_rows * parts.size();
  for (const auto& rows : m.rows)
    for (const CaseResult& r : rows) {
      ++s.rows_written;
      s.count(r.status);
    }
  std::string incomplete;
  for (const Part& p : parts)
    if (!p.report->complete) incomplete += (incomplete.empty() ? "" : ", ") + p.report->path;
  if (!incomplete.empty()) {
    s.aborted = true;
    s.abort_reason = "incomplete parts: " + incomplete;
  }
  return s;
}

// The merged report's metadata: the first part's, mode replicate, and every part in "replicas".
json merged_metadata(const std::vector<Part>& parts, const std::vector<GpuIdentity>& gpus) {
  json meta = parts[0].report->metadata;
  meta.erase("replica");
  meta["mode"] = "replicate";
  meta["shard"] = {{"index", 0}, {"count", 1}};
  json from = json::array();
  for (const Part& p : parts) {
    json g = gpu_json(p.gpu);
    g["path"] = p.report->path;
    g["date_utc"] = field(p.report->metadata, "date_utc");
    g["rows"] = p.report->rows.size();
    g["complete"] = p.report->complete;
    g["device"] = p.report->metadata.value("device", json::object());
    from.push_back(std::move(g));
  }
  meta["replicas"] = std::move(from);
  std::set<std::string> hosts;
  for (const GpuIdentity& g : gpus) hosts.insert(g.host);
  if (hosts.size() > 1) meta["host"] = "(merged: see replicas)";
  return meta;
}

// The report's "fleet" object: the rule, the notes, one entry per GPU and one per case.
json fleet_json(const ReplicaMerge& out, const std::vector<GpuIdentity>& gpus,
                double threshold_pct) {
  json cases = json::array();
  for (const FleetCase& c : out.fleet.cases) {
    json per = json::array();
    for (size_t g = 0; g < gpus.size(); ++g)
      per.push_back(
          {{"replica", gpus[g].replica},
           {"median_ms", c.median_ms[g] ? json(*c.median_ms[g]) : json(nullptr)},
           {"vs_median_pct", c.vs_median_pct[g] ? json(*c.vs_median_pct[g]) : json(nullptr)}});
    json outliers = json::array();
    for (size_t g : c.outliers) {
      json o = gpu_json(gpus[g]);
      o["slower_pct"] = *c.vs_median_pct[g];
      outliers.push_back(std::move(o));
    }
    cases.push_back({{"index", c.index},
                     {"case", c.label},
                     {"gpus_timed", c.timed},
                     {"median_ms", c.timed ? json(c.fleet_median_ms) : json(nullptr)},
                     {"min_ms", c.timed ? json(c.min_ms) : json(nullptr)},
                     {"max_ms", c.timed ? json(c.max_ms) : json(nullptr)},
                     {"spread", c.timed ? json(c.spread) : json(nullptr)},
                     {"per_gpu", std::move(per)},
                     {"outliers", std::move(outliers)}});
  }
  json per_gpu = json::array();
  for (size_t g = 0; g < gpus.size(); ++g) {
    const FleetGpuSummary& p = out.fleet.per_gpu[g];
    json j = gpu_json(gpus[g]);
    j["cases_timed"] = p.cases_timed;
    j["outlier_cases"] = p.outlier_cases;
    j["geomean_vs_median_pct"] =
        p.geomean_vs_median_pct ? json(*p.geomean_vs_median_pct) : json(nullptr);
    j["worst_vs_median_pct"] = p.worst_vs_median_pct ? json(*p.worst_vs_median_pct) : json(nullptr);
    per_gpu.push_back(std::move(j));
  }
  return {{"metric", "each GPU's median time of the row (time_ms.median)"},
          {"threshold_pct", threshold_pct},
          {"rule",
           "a GPU is an outlier on a case when its median is more than threshold_pct "
           "above the median over the GPUs that timed the case (at least two)"},
          {"any_outlier", out.fleet.any_outlier()},
          {"notes", out.notes},
          {"per_gpu", std::move(per_gpu)},
          {"cases", std::move(cases)}};
}

// The merged --json report: metadata, every GPU's rows (each with its "gpu"), fleet, summary.
json merged_report(const std::vector<Part>& parts, const std::vector<GpuIdentity>& gpus,
                   const ReplicaMerge& out, double threshold_pct) {
  json results = json::array();
  for (size_t g = 0; g < gpus.size(); ++g)
    for (const CaseResult& r : out.rows[g]) {
      json row = to_json(r);
      row["gpu"] = gpu_json(gpus[g]);
      results.push_back(std::move(row));
    }
  json summary = to_json(out.summary);
  summary["missing"] = out.missing;
  if (!out.missing.empty()) summary["complete"] = false;
  return {{"metadata", merged_metadata(parts, gpus)},
          {"results", std::move(results)},
          {"fleet", fleet_json(out, gpus, threshold_pct)},
          {"summary", std::move(summary)}};
}

}  // namespace

ReplicaMerge merge_replicas(const std::vector<Report>& reports, double threshold_pct) {
  if (reports.empty()) throw UsageError("merge: no reports given");
  std::vector<Part> parts = replicate_parts(reports);
  check_one_plan(parts);
  const json& m0 = parts[0].report->metadata;
  ReplicaMerge out;
  out.plan_hash = field(m0, "plan_hash");
  out.plan_rows = m0.at("plan_rows").get<size_t>();
  std::vector<GpuIdentity> gpus;
  for (const Part& p : parts) gpus.push_back(p.gpu);
  collect_rows(parts, out);
  out.notes = fleet_notes(parts, gpus);
  out.fleet = fleet_summary(gpus, out.rows, threshold_pct);
  out.summary = merged_summary(parts, out);
  out.metadata = run_metadata_from_json(m0);
  out.report = merged_report(parts, gpus, out, threshold_pct);
  return out;
}

int exit_code(const ReplicaMerge& m) {
  return m.fleet.any_outlier() || !m.missing.empty() ? 1 : 0;
}

namespace {

struct FleetTable {
  std::vector<std::string> head;
  std::vector<bool> text;  // per column: words (left-aligned in Markdown), else figures
  std::vector<std::vector<std::string>> rows;
};

FleetTable case_table(const ReplicaMerge& m) {
  FleetTable t;
  t.head = {"row", "case", "GPUs", "median ms", "min ms", "max ms", "spread", "outliers"};
  t.text = {false, true, false, false, false, false, false, true};
  for (const FleetCase& c : m.fleet.cases) {
    std::string outliers;
    for (size_t g : c.outliers)
      outliers += fmt::format("{}replica {} {}", outliers.empty() ? "" : "; ",
                              m.fleet.gpus[g].replica, pct_text(c.vs_median_pct[g]));
    const bool t_ok = c.timed > 0;
    t.rows.push_back(
        {std::to_string(c.index), c.label, fmt::format("{}/{}", c.timed, m.fleet.gpus.size()),
         t_ok ? fmt::format("{:.4f}", c.fleet_median_ms) : "-",
         t_ok ? fmt::format("{:.4f}", c.min_ms) : "-", t_ok ? fmt::format("{:.4f}", c.max_ms) : "-",
         t_ok ? fmt::format("{:.3f}x", c.spread) : "-", outliers.empty() ? "-" : outliers});
  }
  return t;
}

FleetTable gpu_table(const ReplicaMerge& m) {
  FleetTable t;
  t.head = {"replica",           "GPU",   "name",         "uuid", "cases",
            "geomean vs median", "worst", "outlier cases"};
  t.text = {false, true, true, true, false, false, false, false};
  for (size_t g = 0; g < m.fleet.gpus.size(); ++g) {
    const GpuIdentity& id = m.fleet.gpus[g];
    const FleetGpuSummary& p = m.fleet.per_gpu[g];
    t.rows.push_back({std::to_string(id.replica), id.label(), id.name,
                      id.uuid.empty() ? "-" : id.uuid, std::to_string(p.cases_timed),
                      pct_text(p.geomean_vs_median_pct), pct_text(p.worst_vs_median_pct),
                      std::to_string(p.outlier_cases)});
  }
  return t;
}

std::string aligned(const FleetTable& t) {
  std::vector<size_t> w(t.head.size());
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = t.head[i].size();
    for (const auto& r : t.rows) w[i] = std::max(w[i], r[i].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t i = 0; i < cells.size(); ++i)
      s += (i ? "  " : "") +
           (i + 1 == cells.size() ? cells[i] : fmt::format("{:<{}}", cells[i], w[i]));
    return s + "\n";
  };
  std::string out = line(t.head);
  for (const auto& r : t.rows) out += line(r);
  return out;
}

std::string markdown(const FleetTable& t) {
  const auto line = [](const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const auto& c : cells) {
      std::string e;
      for (char ch : c) e += ch == '|' ? std::string("\\|") : std::string(1, ch);
      s += " " + e + " |";
    }
    return s + "\n";
  };
  std::string out = line(t.head) + "|";
  for (size_t i = 0; i < t.head.size(); ++i) out += t.text[i] ? "---|" : "---:|";
  out += "\n";
  for (const auto& r : t.rows) out += line(r);
  return out;
}

std::string verdict(const ReplicaMerge& m) {
  size_t flagged_cases = 0;
  for (const FleetCase& c : m.fleet.cases) flagged_cases += c.outliers.empty() ? 0 : 1;
  if (!flagged_cases)
    return fmt::format("no outlier: every GPU within {:g}% of the median on every case",
                       m.fleet.threshold_pct);
  std::string who;
  for (size_t g = 0; g < m.fleet.gpus.size(); ++g)
    if (m.fleet.per_gpu[g].outlier_cases)
      who += fmt::format("{}replica {} {} on {} case(s)", who.empty() ? "" : "; ",
                         m.fleet.gpus[g].replica, m.fleet.gpus[g].label(),
                         m.fleet.per_gpu[g].outlier_cases);
  return fmt::format("OUTLIER: more than {:g}% slower than the median on {} of {} cases: {}",
                     m.fleet.threshold_pct, flagged_cases, m.fleet.cases.size(), who);
}

}  // namespace

std::string format_fleet_console(const ReplicaMerge& m) {
  std::string out = fmt::format(
      "fleet check of plan {}: {} GPU(s), {} cases; median of the GPUs' medians, spread = "
      "slowest / fastest, outlier = more than {:g}% above the median\n",
      m.plan_hash, m.fleet.gpus.size(), m.fleet.cases.size(), m.fleet.threshold_pct);
  for (const auto& n : m.notes) out += "note: " + n + "\n";
  out += "\n" + aligned(case_table(m)) + "\n" + aligned(gpu_table(m)) + "\n";
  for (const auto& x : m.missing) out += "MISSING: " + x + "\n";
  return out + verdict(m) + "\n";
}

std::string format_fleet_markdown(const ReplicaMerge& m) {
  const RunMetadata& md = m.metadata;
  std::string out = "# gemmbench fleet check\n\n";
  out += fmt::format("gemmbench {} ({}), {}; plan {} ({} rows), seed {}; {} GPU(s).\n\n",
                     md.tool_version, md.git_commit, md.date_utc, m.plan_hash, m.plan_rows, md.seed,
                     m.fleet.gpus.size());
  out += fmt::format(
      "Per case: the median over the GPUs of each GPU's median time, the spread (slowest / "
      "fastest), and the GPUs more than {:g}% slower than that median (`--outlier-threshold`).\n\n",
      m.fleet.threshold_pct);
  out += "**" + verdict(m) + "**\n\n";
  for (const auto& n : m.notes) out += "- note: " + n + "\n";
  for (const auto& x : m.missing) out += "- missing: " + x + "\n";
  if (!m.notes.empty() || !m.missing.empty()) out += "\n";
  out += "## GPUs\n\n" + markdown(gpu_table(m)) + "\n## Cases\n\n" + markdown(case_table(m));
  return out;
}

const std::vector<std::string>& fleet_csv_extra_columns() {
  static const std::vector<std::string> cols = {
      "replica",      "host",   "device_index",    "pci_bus_id",
      "uuid",         "serial", "fleet_median_ms", "vs_fleet_median_pct",
      "fleet_spread", "outlier"};
  return cols;
}

void write_fleet_csv(const ReplicaMerge& m, const std::string& path) {
  std::ofstream out(path, std::ios::out | std::ios::trunc);
  if (!out) throw UsageError("--csv: cannot write '" + path + "'");
  std::vector<std::string> head = csv_columns();
  const auto& extra = fleet_csv_extra_columns();
  head.insert(head.end(), extra.begin(), extra.end());
  out << csv_line(head) << "\n";
  std::map<size_t, const FleetCase*> by_index;
  for (const FleetCase& c : m.fleet.cases) by_index[c.index] = &c;
  for (size_t g = 0; g < m.rows.size(); ++g) {
    const GpuIdentity& id = m.fleet.gpus[g];
    for (const CaseResult& r : m.rows[g]) {
      std::vector<std::string> cells = csv_cells(r, id.name);
      const FleetCase* c = by_index.count(r.index) ? by_index.at(r.index) : nullptr;
      const bool timed = c && c->timed > 0;
      const bool outlier =
          c && std::find(c->outliers.begin(), c->outliers.end(), g) != c->outliers.end();
      cells.insert(
          cells.end(),
          {std::to_string(id.replica), id.host, std::to_string(id.device_index), id.pci_bus_id,
           id.uuid, id.serial, timed ? fmt::format("{}", c->fleet_median_ms) : "",
           c && c->vs_median_pct[g] ? fmt::format("{}", *c->vs_median_pct[g]) : "",
           timed ? fmt::format("{}", c->spread) : "", outlier ? "true" : "false"});
      out << csv_line(cells) << "\n";
    }
  }
  if (!out) throw UsageError("--csv: cannot write '" + path + "'");
}

}  // namespace gemmbench::merge
