// The comparison as text: console table, Markdown (for a pull request), CSV and JSON.
#include <fmt/format.h>

#include <algorithm>

#include "compare/compare.hpp"

namespace gemmbench::compare {

namespace {

using nlohmann::json;

std::string opt_fmt(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : "-";
}

std::string signed_pct(const std::optional<double>& v) {
  return v ? fmt::format("{:+.2f}%", *v) : "-";
}

std::string noise(const std::optional<double>& v) {
  return v ? fmt::format("±{:.1f}%", *v) : "-";
}

std::string p_text(const CaseComparison& c) {
  if (!c.p_value) return "-";
  return *c.p_value < 1e-4 ? std::string("<1e-4") : fmt::format("{:.4f}", *c.p_value);
}

std::string ratio_text(const std::optional<double>& r) {
  return r ? fmt::format("{:.1f}%", 100.0 * *r) : "-";
}

// "(date, commit, GPU)" of a run.
std::string run_details(const json& m) {
  const json d = m.contains("device") ? m.at("device") : json::object();
  auto s = [](const json& j, const char* k) {
    return j.is_object() && j.contains(k) && j.at(k).is_string() ? j.at(k).get<std::string>()
                                                                 : std::string("?");
  };
  return fmt::format("({}, commit {}, {})", s(m, "date_utc"), s(m, "git_commit"), s(d, "name"));
}

std::string rule_text(const Comparison& c) {
  return fmt::format(
      "A change is called only when it exceeds the threshold ({:.1f}% of the BASE median) and "
      "both runs' noise: with per-sample times in both reports, a Mann-Whitney U rank test "
      "(p < {:g}); otherwise each median must lie outside the other run's p10-p90 band. "
      "Noise column: half the p10-p90 spread, in % of the median. "
      "vs cuBLAS: the case's cuBLAS row median / kernel median, each sampled alone in "
      "alternating blocks (reports before 2026-11-27: interleaved samples) (> 100%: faster "
      "than cuBLAS); it survives clock and power drift and is the figure to compare across "
      "GPUs.",
      c.options.threshold_pct, c.options.significance);
}

std::string summary_text(const Comparison& c) {
  std::string s = fmt::format("{} cases compared: {} faster, {} slower, {} same", c.cases.size(),
                              c.faster, c.slower, c.same);
  if (c.newly_failed) s += fmt::format(", {} newly FAILED", c.newly_failed);
  if (c.untimed) s += fmt::format(", {} not timed on a side", c.untimed);
  s += fmt::format("; method: rank test on {}, quantiles on {}", c.with_samples, c.with_quantiles);
  if (!c.only_base.empty()) s += fmt::format("; {} only in BASE", c.only_base.size());
  if (!c.only_new.empty()) s += fmt::format("; {} only in NEW", c.only_new.size());
  return s;
}

const std::vector<std::string>& headers() {
  static const std::vector<std::string> h = {
      "case", "base ms", "new ms",         "change",        "noise base",   "noise new",
      "p",    "method",  "base vs cuBLAS", "new vs cuBLAS", "ratio change", "verdict"};
  return h;
}

std::vector<std::string> cells(const CaseComparison& c) {
  return {c.label,
          opt_fmt(c.base_median_ms, "{:.4f}"),
          opt_fmt(c.new_median_ms, "{:.4f}"),
          signed_pct(c.change_pct),
          noise(c.base_noise_pct),
          noise(c.new_noise_pct),
          p_text(c),
          to_string(c.method),
          ratio_text(c.base_ratio),
          ratio_text(c.new_ratio),
          signed_pct(c.ratio_change_pct),
          std::string(to_string(c.verdict)) + (c.note.empty() ? "" : " (" + c.note + ")")};
}

// Display width of UTF-8 text (the ± sign is two bytes, one column).
size_t width(const std::string& s) {
  size_t w = 0;
  for (unsigned char ch : s)
    if ((ch & 0xC0) != 0x80) ++w;
  return w;
}

std::string pad(const std::string& s, size_t w, bool left) {
  const size_t n = width(s);
  const std::string fill(w > n ? w - n : 0, ' ');
  return left ? s + fill : fill + s;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// Verdicts as machine-readable ids (CSV, JSON); the tables say "SLOWER" for eyes.
const char* verdict_id(Verdict v) {
  switch (v) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::same:
      return "same";
    case Verdict::newly_failed:
      return "newly_failed";
    case Verdict::untimed:
      return "untimed";
  }
  return "?";
}

const char* method_id(Method m) {
  return m == Method::samples ? "rank_test" : m == Method::quantiles ? "quantiles" : "none";
}

template <class T>
json opt_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

std::string format_console(const Comparison& c) {
  std::string out = "gemmbench compare\n";
  out += "  BASE " + c.base_path + " " + run_details(c.base_metadata) + "\n";
  out += "       " + c.base_telemetry + "\n";
  out += "  NEW  " + c.new_path + " " + run_details(c.new_metadata) + "\n";
  out += "       " + c.new_telemetry + "\n";
  if (c.metadata.empty()) {
    out +=
        "metadata: no difference in GPU, driver, CUDA, cuBLAS, clocks, regime, data, cache, "
        "seed, commit or command line\n";
  } else {
    out += "metadata that differs:\n";
    size_t w = 0;
    for (const auto& d : c.metadata) w = std::max(w, d.field.size());
    for (const auto& d : c.metadata)
      out += fmt::format("  {:<{}}  {}  ->  {}\n", d.field, w, d.base_value, d.new_value);
  }
  for (const auto& wmsg : c.warnings) out += "WARNING: " + wmsg + "\n";
  out += "\n";
  std::vector<std::vector<std::string>> rows = {headers()};
  for (const auto& cc : c.cases) rows.push_back(cells(cc));
  std::vector<size_t> w(headers().size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i + 1 < r.size(); ++i) w[i] = std::max(w[i], width(r[i]));
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      if (i + 1 == r.size())
        line += r[i];
      else
        line += pad(r[i], w[i], i == 0) + "  ";
    }
    out += line + "\n";
  }
  out += "\n" + summary_text(c) + "\n";
  if (!c.only_base.empty()) {
    out += "only in BASE:\n";
    for (const auto& s : c.only_base) out += "  " + s + "\n";
  }
  if (!c.only_new.empty()) {
    out += "only in NEW:\n";
    for (const auto& s : c.only_new) out += "  " + s + "\n";
  }
  out += "\n" + rule_text(c) + "\n";
  return out;
}

std::string format_markdown(const Comparison& c) {
  auto esc = [](std::string s) {
    for (size_t p = 0; (p = s.find('|', p)) != std::string::npos; p += 2) s.replace(p, 1, "\\|");
    return s;
  };
  std::string out = "## gemmbench compare\n\n";
  out += "- **BASE** `" + c.base_path + "`: " + esc(run_details(c.base_metadata)) + "; " +
         c.base_telemetry + "\n";
  out += "- **NEW** `" + c.new_path + "`: " + esc(run_details(c.new_metadata)) + "; " +
         c.new_telemetry + "\n\n";
  if (c.metadata.empty()) {
    out +=
        "Metadata: no difference in GPU, driver, CUDA, cuBLAS, clocks, regime, data, cache, "
        "seed, commit or command line.\n\n";
  } else {
    out += "| metadata | BASE | NEW |\n|---|---|---|\n";
    for (const auto& d : c.metadata)
      out +=
          "| " + esc(d.field) + " | `" + esc(d.base_value) + "` | `" + esc(d.new_value) + "` |\n";
    out += "\n";
  }
  for (const auto& wmsg : c.warnings) out += "> **Warning:** " + esc(wmsg) + "\n>\n";
  if (!c.warnings.empty()) out += "\n";
  out += "**" + summary_text(c) + "**\n\n";
  std::string head = "|", sep = "|";
  for (const auto& h : headers()) {
    head += " " + h + " |";
    sep += h == "case" || h == "verdict" || h == "method" ? "---|" : "---:|";
  }
  out += head + "\n" + sep + "\n";
  for (const auto& cc : c.cases) {
    auto r = cells(cc);
    if (cc.verdict == Verdict::slower || cc.verdict == Verdict::newly_failed)
      r.back() = "**" + r.back() + "**";
    std::string line = "|";
    for (const auto& x : r) line += " " + esc(x) + " |";
    out += line + "\n";
  }
  if (!c.only_base.empty()) {
    out += "\nOnly in BASE:\n\n";
    for (const auto& s : c.only_base) out += "- " + esc(s) + "\n";
  }
  if (!c.only_new.empty()) {
    out += "\nOnly in NEW:\n\n";
    for (const auto& s : c.only_new) out += "- " + esc(s) + "\n";
  }
  out += "\n" + rule_text(c) + "\n";
  return out;
}

std::string format_csv(const Comparison& c) {
  std::string out =
      "case,base_status,new_status,base_median_ms,new_median_ms,change_pct,base_noise_pct,"
      "new_noise_pct,method,p_value,base_ratio_to_cublas,new_ratio_to_cublas,ratio_change_pct,"
      "verdict,note\n";
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; };
  for (const auto& cc : c.cases) {
    const std::vector<std::string> r = {cc.label,
                                        to_string(cc.base_status),
                                        to_string(cc.new_status),
                                        num(cc.base_median_ms),
                                        num(cc.new_median_ms),
                                        num(cc.change_pct),
                                        num(cc.base_noise_pct),
                                        num(cc.new_noise_pct),
                                        method_id(cc.method),
                                        num(cc.p_value),
                                        num(cc.base_ratio),
                                        num(cc.new_ratio),
                                        num(cc.ratio_change_pct),
                                        verdict_id(cc.verdict),
                                        cc.note};
    std::string line;
    for (const auto& x : r) line += (line.empty() ? "" : ",") + csv_escape(x);
    out += line + "\n";
  }
  for (const auto& s : c.only_base) out += csv_escape(s) + ",,,,,,,,,,,,,only_in_base,\n";
  for (const auto& s : c.only_new) out += csv_escape(s) + ",,,,,,,,,,,,,only_in_new,\n";
  return out;
}

json to_json(const Comparison& c) {
  json cases = json::array();
  for (const auto& cc : c.cases)
    cases.push_back({{"case", cc.label},
                     {"key", cc.key},
                     {"base_status", to_string(cc.base_status)},
                     {"new_status", to_string(cc.new_status)},
                     {"base_median_ms", opt_json(cc.base_median_ms)},
                     {"new_median_ms", opt_json(cc.new_median_ms)},
                     {"change_pct", opt_json(cc.change_pct)},
                     {"base_noise_pct", opt_json(cc.base_noise_pct)},
                     {"new_noise_pct", opt_json(cc.new_noise_pct)},
                     {"method", method_id(cc.method)},
                     {"p_value", opt_json(cc.p_value)},
                     {"base_ratio_to_cublas", opt_json(cc.base_ratio)},
                     {"new_ratio_to_cublas", opt_json(cc.new_ratio)},
                     {"ratio_change_pct", opt_json(cc.ratio_change_pct)},
                     {"verdict", verdict_id(cc.verdict)},
                     {"note", cc.note}});
  json meta = json::array();
  for (const auto& d : c.metadata)
    meta.push_back(
        {{"field", d.field}, {"base", d.base_value}, {"new", d.new_value}, {"warning", d.warning}});
  return json{
      {"tool", "gemmbench compare"},
      {"base",
       {{"path", c.base_path}, {"metadata", c.base_metadata}, {"telemetry", c.base_telemetry}}},
      {"new", {{"path", c.new_path}, {"metadata", c.new_metadata}, {"telemetry", c.new_telemetry}}},
      {"threshold_pct", c.options.threshold_pct},
      {"significance", c.options.significance},
      {"metadata_differences", meta},
      {"warnings", c.warnings},
      {"cases", cases},
      {"only_in_base", c.only_base},
      {"only_in_new", c.only_new},
      {"summary",
       {{"faster", c.faster},
        {"slower", c.slower},
        {"same", c.same},
        {"newly_failed", c.newly_failed},
        {"untimed", c.untimed},
        {"rank_test", c.with_samples},
        {"quantiles", c.with_quantiles}}},
      {"exit_code", exit_code(c)}};
}

}  // namespace gemmbench::compare
