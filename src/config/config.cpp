#include "config/config.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "plan/grouped.hpp"
#include "plan/presets.hpp"
#include "plan/ranges.hpp"
#include "util/edit_distance.hpp"

namespace gemmbench {

namespace {

using nlohmann::json;

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw UsageError(source_ + ": " + path + ": " + msg);
  }

  static const char* type_name(const json& j) {
    switch (j.type()) {
      case json::value_t::null:
        return "null";
      case json::value_t::boolean:
        return "a boolean";
      case json::value_t::string:
        return "a string";
      case json::value_t::array:
        return "an array";
      case json::value_t::object:
        return "an object";
      case json::value_t::number_integer:
      case json::value_t::number_unsigned:
        return "an integer";
      case json::value_t::number_float:
        return "a number";
      default:
        return "something else";
    }
  }

  void expect(const json& j, bool ok, const std::string& path, const std::string& expected) const {
    if (!ok) fail(path, std::string("expected ") + expected + ", got " + type_name(j));
  }

  void check_keys(const json& obj, const std::string& path,
                  const std::vector<std::string>& allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
      std::string list, best;
      size_t best_d = 1000;
      for (const auto& a : allowed) {
        list += (list.empty() ? "" : ", ") + a;
        const size_t d = edit_distance(it.key(), a);
        if (d < best_d) best_d = d, best = a;
      }
      std::string hint = best_d <= 3 ? "; did you mean '" + best + "'?" : "";
      fail(join(path, it.key()), "unknown key (expected one of: " + list + ")" + hint);
    }
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  // A string or a non-empty array of strings.
  std::vector<std::string> strings(const json& j, const std::string& path) const {
    if (j.is_string()) return {j.get<std::string>()};
    expect(j, j.is_array() && !j.empty(), path, "a string or a non-empty array of strings");
    std::vector<std::string> out;
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string p = path + "[" + std::to_string(i) + "]";
      expect(j[i], j[i].is_string(), p, "a string");
      out.push_back(j[i].get<std::string>());
    }
    return out;
  }

  template <class T, class ParseFn>
  std::vector<T> enums(const json& j, const std::string& path, ParseFn parse,
                       const char* accepted) const {
    std::vector<T> out;
    for (const auto& s : strings(j, path)) {
      const auto v = parse(s);
      if (!v) fail(path, "'" + s + "' is not one of " + accepted);
      if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
    }
    return out;
  }

  double number(const json& j, const std::string& path) const {
    expect(j, j.is_number(), path, "a number");
    return j.get<double>();
  }

  int64_t integer(const json& j, const std::string& path) const {
    expect(j, j.is_number_integer() || j.is_number_unsigned(), path, "an integer");
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX))
      fail(path, "is too large");
    return j.get<int64_t>();
  }

  // A dimension: an integer, an array of integers, or a range string ("256:8192:256").
  std::vector<int64_t> dims(const json& j, const std::string& path) const {
    if (j.is_string()) return parse_dim_list(j.get<std::string>(), source_ + ": " + path);
    if (j.is_array()) {
      expect(j, !j.empty(), path, "a non-empty array");
      std::vector<int64_t> out;
      for (size_t i = 0; i < j.size(); ++i)
        out.push_back(dim(j[i], path + "[" + std::to_string(i) + "]"));
      return out;
    }
    expect(j, j.is_number_integer() || j.is_number_unsigned(), path,
           "an integer, an array of integers or a range string like \"256:4096:256\"");
    return {dim(j, path)};
  }

  int64_t dim(const json& j, const std::string& path) const {
    const int64_t v = integer(j, path);
    if (v <= 0) fail(path, "must be positive (got " + std::to_string(v) + ")");
    if (v > kMaxDim) fail(path, "is too large (each dimension must be at most 2147483647)");
    return v;
  }

  std::vector<Shape> shapes(const json& j, const std::string& path) const {
    expect(j, j.is_array() && !j.empty(), path, "a non-empty array of shapes");
    std::vector<Shape> out;
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string p = path + "[" + std::to_string(i) + "]";
      const json& s = j[i];
      std::vector<Shape> add;
      if (s.is_array()) {
        if (s.size() != 3)
          fail(p, "an explicit shape is [m, n, k] (got " + std::to_string(s.size()) + " values)");
        add.push_back({dim(s[0], p + "[0]"), dim(s[1], p + "[1]"), dim(s[2], p + "[2]")});
      } else if (s.is_object()) {
        if (s.contains("mnk")) {
          check_keys(s, p, {"mnk"});
          for (int64_t v : dims(s["mnk"], p + ".mnk")) add.push_back({v, v, v});
        } else {
          check_keys(s, p, {"m", "n", "k", "mnk"});
          for (const char* key : {"m", "n", "k"})
            if (!s.contains(key))
              fail(p, std::string("missing key '") + key + "' (or give 'mnk' for square shapes)");
          const auto m = dims(s["m"], p + ".m"), n = dims(s["n"], p + ".n"),
                     k = dims(s["k"], p + ".k");
          if (double(m.size()) * double(n.size()) * double(k.size()) > double(kMaxShapes))
            fail(p, "the m x n x k cross product has more than " + std::to_string(kMaxShapes) +
                        " shapes");
          add = cross_shapes(m, n, k);
        }
      } else {
        expect(s, false, p,
               "[m, n, k] or an object {\"m\": ..., \"n\": ..., \"k\": ...} or {\"mnk\": ...}");
      }
      out.insert(out.end(), add.begin(), add.end());
      if (out.size() > kMaxShapes)
        fail(path, "expands to more than " + std::to_string(kMaxShapes) + " shapes");
    }
    return out;
  }

  MeasureOverrides measure(const json& j, const std::string& path) const {
    expect(j, j.is_object(), path, "an object");
    check_keys(j, path,
               {"warmup", "min_samples", "min_time", "max_time", "block_time", "settle_time",
                "cache", "data", "regime", "verify", "baseline"});
    MeasureOverrides m;
    auto bounded_int = [&](const char* key) -> std::optional<int> {
      if (!j.contains(key)) return std::nullopt;
      const int64_t v = integer(j[key], join(path, key));
      if (v < 0 || v > 1000000)
        fail(join(path, key), "must be in [0, 1000000] (got " + std::to_string(v) + ")");
      return int(v);
    };
    m.warmup = bounded_int("warmup");
    m.min_samples = bounded_int("min_samples");
    if (j.contains("min_time")) m.min_time_s = number(j["min_time"], join(path, "min_time"));
    if (j.contains("max_time")) m.max_time_s = number(j["max_time"], join(path, "max_time"));
    if (j.contains("block_time"))
      m.block_time_s = number(j["block_time"], join(path, "block_time"));
    if (j.contains("settle_time"))
      m.settle_time_s = number(j["settle_time"], join(path, "settle_time"));
    if (j.contains("cache")) {
      const json& c = j["cache"];
      expect(c, c.is_string(), join(path, "cache"), "a string");
      m.cache = parse_cache_mode(c.get<std::string>());
      if (!m.cache)
        fail(join(path, "cache"), "'" + c.get<std::string>() + "' is not one of cold, hot");
    }
    if (j.contains("data")) {
      const json& d = j["data"];
      expect(d, d.is_string(), join(path, "data"), "a string");
      m.data = parse_data_dist(d.get<std::string>());
      if (!m.data)
        fail(join(path, "data"), "'" + d.get<std::string>() + "' is not one of uniform, int3");
    }
    if (j.contains("regime")) {
      const json& r = j["regime"];
      expect(r, r.is_string(), join(path, "regime"), "a string");
      m.regime = parse_regime(r.get<std::string>());
      if (!m.regime)
        fail(join(path, "regime"), "'" + r.get<std::string>() + "' is not one of sustained, burst");
    }
    if (j.contains("baseline")) {
      const json& b = j["baseline"];
      expect(b, b.is_string(), join(path, "baseline"), "a string");
      m.baseline = parse_baseline(b.get<std::string>());
      if (!m.baseline)
        fail(join(path, "baseline"),
             "'" + b.get<std::string>() + "' is not one of " + kBaselineNames);
    }
    if (j.contains("verify")) {
      expect(j["verify"], j["verify"].is_boolean(), join(path, "verify"), "a boolean");
      m.verify = j["verify"].get<bool>();
    }
    return m;
  }

  std::optional<int64_t> opt_integer(const json& j, const std::string& path,
                                     const char* key) const {
    if (!j.contains(key)) return std::nullopt;
    return integer(j[key], join(path, key));
  }

  std::optional<std::string> opt_string(const json& j, const std::string& path,
                                        const char* key) const {
    if (!j.contains(key)) return std::nullopt;
    expect(j[key], j[key].is_string(), join(path, key), "a string");
    return j[key].get<std::string>();
  }

  // A run's grouped keys (docs/grouped.md), their types checked; plan/grouped.cpp checks the
  // rest as it does for the command line.
  GroupRequest grouped_request(const json& j, const std::string& path) const {
    GroupRequest g;
    g.groups = opt_integer(j, path, "groups");
    if (j.contains("group_m")) {
      const json& m = j["group_m"];
      const std::string p = join(path, "group_m");
      expect(m, m.is_array() && !m.empty(), p, "a non-empty array of integers (each group's M)");
      g.group_m.emplace();
      for (size_t i = 0; i < m.size(); ++i)
        g.group_m->push_back(integer(m[i], p + "[" + std::to_string(i) + "]"));
    }
    g.topk = opt_integer(j, path, "topk");
    g.experts = opt_integer(j, path, "experts");
    g.routing = opt_string(j, path, "routing");
    if (const auto seed = opt_integer(j, path, "routing_seed")) {
      if (*seed < 0) fail(join(path, "routing_seed"), "must be non-negative");
      g.routing_seed = uint64_t(*seed);
    }
    g.group_layout = opt_string(j, path, "group_layout");
    g.group_align = opt_integer(j, path, "group_align");
    g.group_max_m = opt_integer(j, path, "group_max_m");
    return g;
  }

  // A grouped run's shapes: "n" and "k" (and "m" for equal groups), or a "preset" with "tokens".
  std::vector<Shape> grouped_run_shapes(const json& j, const std::string& path,
                                        GroupRequest g) const {
    if (j.contains("shapes"))
      fail(join(path, "shapes"),
           "a grouped run takes 'n' and 'k' (and 'm', 'group_m' or 'tokens'), or a 'preset'");
    for (const char* key : {"m", "n", "k", "tokens"})
      if (j.contains(key)) {
        auto& field = std::string(key) == "m"   ? g.m
                      : std::string(key) == "n" ? g.n
                      : std::string(key) == "k" ? g.k
                                                : g.tokens;
        field = dims(j[key], join(path, key));
      }
    if (j.contains("preset")) g.presets = strings(j["preset"], join(path, "preset"));
    try {
      return grouped_shapes(g, [&](const std::string& key) { return join(path, key); });
    } catch (const UsageError& e) {
      throw UsageError(source_ + ": " + e.what());
    }
  }

  RunSpec run(const json& j, const std::string& path, size_t index) const {
    expect(j, j.is_object(), path, "an object");
    check_keys(j, path, {"name",         "kernels",     "shapes",      "preset",
                         "tokens",       "layouts",     "dtypes",      "dtypes_b",
                         "accums",       "scales",      "out",         "fast_accum",
                         "alpha",        "beta",        "measure",     "groups",
                         "group_m",      "m",           "n",           "k",
                         "topk",         "experts",     "routing",     "routing_seed",
                         "group_layout", "group_align", "group_max_m", "layers"});
    RunSpec r;
    r.name = "run" + std::to_string(index);
    if (j.contains("name")) {
      expect(j["name"], j["name"].is_string(), join(path, "name"), "a string");
      r.name = j["name"].get<std::string>();
    }
    if (!j.contains("kernels"))
      fail(path, "missing key 'kernels' (a name, a glob such as \"sgemm_*\", or \"all\")");
    r.kernels = strings(j["kernels"], join(path, "kernels"));
    if (GroupRequest g = grouped_request(j, path); g.any()) {
      r.shapes = grouped_run_shapes(j, path, std::move(g));
      r.layouts = {Layout::tn};  // weights [G, N, K] K-contiguous (core/grouping.hpp)
    } else if (j.contains("preset")) {
      // LLM layer shapes (plan/presets.hpp): N and K from the model, M from "tokens", layout TN.
      if (j.contains("shapes"))
        fail(path, "give either 'shapes' or 'preset' with 'tokens', not both");
      if (!j.contains("tokens"))
        fail(path, "'preset' needs 'tokens' (the M of every layer, e.g. [1, 16, 128])");
      const auto models = strings(j["preset"], join(path, "preset"));
      const auto tokens = dims(j["tokens"], join(path, "tokens"));
      r.shapes = preset_shapes(models, tokens, source_ + ": " + join(path, "preset") + ": ");
      r.layouts = {Layout::tn};
    } else {
      if (j.contains("tokens"))
        fail(join(path, "tokens"), "applies only with 'preset' or 'routing'");
      for (const char* key : {"m", "n", "k"})
        if (j.contains(key))
          fail(join(path, key),
               "applies to grouped runs ('groups' or 'routing'); plain shapes go in 'shapes'");
      if (!j.contains("shapes")) fail(path, "missing key 'shapes' (or 'preset' with 'tokens')");
      r.shapes = shapes(j["shapes"], join(path, "shapes"));
    }
    if (j.contains("layers"))  // a preset's layers by name or glob (plan/presets.hpp)
      keep_preset_layers(r.shapes, strings(j["layers"], join(path, "layers")),
                         source_ + ": " + join(path, "layers") + ": ");
    if (j.contains("layouts"))
      r.layouts =
          enums<Layout>(j["layouts"], join(path, "layouts"), parse_layout, "nn, nt, tn, tt");
    if (j.contains("dtypes"))
      r.dtypes = enums<DType>(j["dtypes"], join(path, "dtypes"), parse_dtype, dtype_names());
    if (j.contains("accums"))
      r.accums = enums<Accum>(j["accums"], join(path, "accums"), parse_accum, "f32, f16");
    // FP8 (plan.cpp checks that they meet an FP8 dtype and each other).
    if (j.contains("dtypes_b"))
      r.dtypes_b =
          enums<DType>(j["dtypes_b"], join(path, "dtypes_b"), parse_fp8_dtype, fp8_dtype_names());
    if (j.contains("scales"))
      r.scales = enums<ScaleMode>(j["scales"], join(path, "scales"), parse_scale_mode,
                                  "tensor, row, block128");
    if (j.contains("out")) {
      const json& o = j["out"];
      expect(o, o.is_string() && parse_dtype(o.get<std::string>()), join(path, "out"),
             "a type name: bf16, f16 or f32");
      r.out = parse_dtype(o.get<std::string>());
    }
    if (j.contains("fast_accum")) {
      expect(j["fast_accum"], j["fast_accum"].is_boolean(), join(path, "fast_accum"), "a boolean");
      r.fast_accum = j["fast_accum"].get<bool>();
    }
    if (j.contains("alpha")) r.alpha = number(j["alpha"], join(path, "alpha"));
    if (j.contains("beta")) r.beta = number(j["beta"], join(path, "beta"));
    if (!std::isfinite(r.alpha) || !std::isfinite(r.beta))
      fail(path, "alpha and beta must be finite");
    if (j.contains("measure")) r.measure = measure(j["measure"], join(path, "measure"));
    return r;
  }

  SweepConfig config(const json& j) const {
    expect(j, j.is_object(), "(top level)", "an object with a 'runs' array");
    check_keys(
        j, "",
        {"description", "seed", "plugins", "runs", "devices", "mode", "outlier_threshold_pct"});
    SweepConfig c;
    if (j.contains("description")) {
      expect(j["description"], j["description"].is_string(), "description", "a string");
      c.description = j["description"].get<std::string>();
    }
    if (j.contains("seed")) {
      const int64_t s = integer(j["seed"], "seed");
      if (s < 0) fail("seed", "must be non-negative");
      c.seed = uint64_t(s);
    }
    if (j.contains("devices")) {
      const json& d = j["devices"];
      std::string text;
      if (d.is_string()) {
        text = d.get<std::string>();
      } else if (d.is_array() && !d.empty()) {
        for (size_t i = 0; i < d.size(); ++i)
          text +=
              (i ? "," : "") + std::to_string(integer(d[i], "devices[" + std::to_string(i) + "]"));
      } else {
        expect(d, false, "devices", "\"all\", a string like \"0,1,3\" or an array of indices");
      }
      try {
        c.devices = parse_devices_arg(text, "devices");
      } catch (const UsageError& e) {
        throw UsageError(source_ + ": " + e.what());
      }
    }
    if (j.contains("mode")) {
      const json& m = j["mode"];
      expect(m, m.is_string(), "mode", "a string");
      c.mode = parse_fleet_mode(m.get<std::string>());
      if (!c.mode) fail("mode", "'" + m.get<std::string>() + "' is not one of shard, replicate");
    }
    if (j.contains("outlier_threshold_pct")) {
      const double t = number(j["outlier_threshold_pct"], "outlier_threshold_pct");
      if (!std::isfinite(t) || t <= 0) fail("outlier_threshold_pct", "must be a positive number");
      c.outlier_threshold_pct = t;
    }
    if (j.contains("plugins")) {
      // Relative to the config, so that a config and the plugin it names travel together.
      const std::filesystem::path dir = std::filesystem::path(source_).parent_path();
      const std::vector<std::string> paths = strings(j["plugins"], "plugins");
      for (size_t i = 0; i < paths.size(); ++i) {
        const std::string at = "plugins[" + std::to_string(i) + "]";
        if (paths[i].empty()) fail(at, "empty path (expected the path of a plugin library)");
        const std::filesystem::path p(paths[i]);
        c.plugins.push_back({p.is_absolute() ? paths[i] : (dir / p).lexically_normal().string(),
                             source_ + ": " + at});
      }
    }
    if (!j.contains("runs")) fail("(top level)", "missing key 'runs' (an array of runs)");
    const json& runs = j["runs"];
    expect(runs, runs.is_array() && !runs.empty(), "runs", "a non-empty array of runs");
    std::set<std::string> names;
    for (size_t i = 0; i < runs.size(); ++i) {
      c.runs.push_back(run(runs[i], "runs[" + std::to_string(i) + "]", i));
      if (!names.insert(c.runs.back().name).second)
        fail("runs[" + std::to_string(i) + "].name",
             "duplicate run name '" + c.runs.back().name + "'");
    }
    return c;
  }

 private:
  std::string source_;
};

}  // namespace

SweepConfig parse_config_text(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."
    std::string what = e.what();
    if (const auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    throw UsageError(source + ": malformed JSON: " + what);
  }
  return Parser(source).config(j);
}

SweepConfig load_config_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError("cannot read config file '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UsageError("cannot read config file '" + path + "' (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UsageError("cannot read config file '" + path + "'");
  return parse_config_text(ss.str(), path);
}

}  // namespace gemmbench
