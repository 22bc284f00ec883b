#include "report/report_reader.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "core/errors.hpp"
#include "report/json_codec.hpp"
#include "report/report_file.hpp"

namespace gemmbench {

using nlohmann::json;

std::string json_text_at(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "";
  const json& v = j.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

namespace {

// "model/layer" of a row's preset ({"model": ..., "layer": ...}), or the preset itself when it is
// a plain string; "" where the row has none.
std::string preset_label(const json& row) {
  if (!row.contains("preset")) return "";
  const json& p = row.at("preset");
  if (p.is_string()) return p.get<std::string>();
  if (!p.is_object()) return "";
  const std::string model = json_text_at(p, "model"), layer = json_text_at(p, "layer");
  if (model.empty()) return layer;
  return layer.empty() ? model : model + "/" + layer;
}

// The schema's major version: an integer (1) or the part before the dot of "1.2".
std::optional<int> schema_major(const json& v) {
  if (v.is_number_integer()) return v.get<int>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    try {
      size_t used = 0;
      const int major = std::stoi(s, &used);
      if (used > 0 && (used == s.size() || s[used] == '.')) return major;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

std::string fmt_alpha_beta(const GemmProblem& p) {
  if (p.alpha == 1.0 && p.beta == 0.0) return "";
  return fmt::format(" a={:g} b={:g}", p.alpha, p.beta);
}

std::string row_label(const ReportRow& r) {
  const CaseResult& c = r.result;
  std::string s =
      fmt::format("{} {} {} {}{}", c.kernel, c.problem.shape_string(), to_string(c.problem.layout),
                  c.problem.type_string(), fmt_alpha_beta(c.problem));
  if (c.measure.cache != CacheMode::cold) s += std::string(" ") + to_string(c.measure.cache);
  if (c.measure.data != DataDist::uniform) s += std::string(" ") + to_string(c.measure.data);
  if (r.regime != "sustained") s += " " + r.regime;
  if (!r.preset.empty()) s += " [" + r.preset + "]";
  return s;
}

}  // namespace

std::string case_key(const ReportRow& r) {
  const CaseResult& c = r.result;
  const std::string key = fmt::format(
      "{}|{}x{}x{}|{}|{}|{:g}|{:g}|{}|{}|{}|{}", c.kernel, c.problem.m, c.problem.n, c.problem.k,
      to_string(c.problem.layout), c.problem.type_string(), c.problem.alpha, c.problem.beta,
      to_string(c.measure.cache), to_string(c.measure.data), r.regime, r.preset);
  // Two routings of one total M are two cases; a dense row's key is what it always was.
  return c.grouped ? key + "|" + c.grouped->key() : key;
}

Report parse_report(const json& doc, const std::string& name) {
  if (!doc.is_object() || !doc.contains("metadata") || !doc.at("metadata").is_object() ||
      json_text_at(doc.at("metadata"), "tool") != "gemmbench" || !doc.contains("results") ||
      !doc.at("results").is_array())
    throw UsageError(name +
                     ": not a gemmbench report (expected 'metadata' with tool = gemmbench and a "
                     "'results' array, as `gemmbench --json` writes)");
  Report rep;
  rep.path = name;
  rep.metadata = doc.at("metadata");
  if (!rep.metadata.contains("schema_version"))
    throw UsageError(name + ": report has no schema_version");
  const auto major = schema_major(rep.metadata.at("schema_version"));
  if (!major || *major < 1 || *major > kReportSchemaVersion)
    throw UsageError(fmt::format(
        "{}: report schema_version {} cannot be read by this build (it reads major version 1 to "
        "{}); use a newer gemmbench",
        name, rep.metadata.at("schema_version").dump(), kReportSchemaVersion));
  const std::string run_regime = json_text_at(rep.metadata, "regime");
  std::map<std::string, int> seen;
  const json& results = doc.at("results");
  for (size_t i = 0; i < results.size(); ++i) {
    ReportRow row;
    const json& j = results[i];
    try {
      row.result = case_result_from_json(j);
    } catch (const json::exception& e) {
      throw UsageError(
          fmt::format("{}: results[{}] is not a gemmbench row ({})", name, i, e.what()));
    }
    std::string regime = j.contains("measure") ? json_text_at(j.at("measure"), "regime") : "";
    if (regime.empty()) regime = run_regime;
    row.regime = regime.empty() ? "sustained" : regime;
    row.preset = preset_label(j);
    const std::string key = case_key(row);
    const int n = ++seen[key];
    // The same case twice in one report (one config naming it in two runs): match in order.
    row.key = n == 1 ? key : fmt::format("{}#{}", key, n);
    row.label = row_label(row) + (n == 1 ? "" : fmt::format(" (#{})", n));
    rep.rows.push_back(std::move(row));
  }
  if (doc.contains("summary") && doc.at("summary").is_object()) {
    const json& s = doc.at("summary");
    if (s.contains("complete") && s.at("complete").is_boolean())
      rep.complete = s.at("complete").get<bool>();
  }
  return rep;
}

Report load_report(const std::string& path) {
  json doc;
  try {
    doc = read_json_file(path);  // plain or gzip-compressed
  } catch (const ReportFileError& e) {
    throw UsageError(e.kind() == ReportFileError::Kind::not_json
                         ? path + ": not JSON, so not a gemmbench report"
                         : std::string(e.what()));
  }
  return parse_report(doc, path);
}

}  // namespace gemmbench
