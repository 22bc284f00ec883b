#include "core/interrupt.hpp"
#include "report/json_codec.hpp"

#include <cmath>
#include "report/reporter.hpp"

namespace gemmbench {

namespace {

using nlohmann::json;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
std::optional<T> get_opt(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

// A parsed enum of a row, or the JSON error its absence is (parse_report reports it per row).
template <class T>
T need(const std::optional<T>& v, const char* what) {
  if (!v) throw json::other_error::create(501, std::string("bad ") + what, nullptr);
  return *v;
}

// `v` rounded to `digits` significant digits: sample times in a report need no more than the
// events' resolution (about 0.5 us), and a thousand samples then stay a few kilobytes.
double round_significant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  // Scale by an exact power of ten (10^e for e <= 22 is exact; 10^-e is not).
  const int e = digits - 1 - int(std::floor(std::log10(std::abs(v))));
  const double p = std::pow(10.0, std::abs(e));
  return e >= 0 ? std::round(v * p) / p : std::round(v / p) * p;
}

json baselines_json(const RunMetadata& m) {
  json used = json::array();
  for (Baseline b : m.baselines_used) used.push_back(to_string(b));
  return json{{"used", used}, {"method", m.baseline_method}};
}

json to_json(const CublasLtChoice& c) {
  return json{{"description", cublaslt_algo_text(c)},
              {"heuristic_index", c.heuristic_index},
              {"candidates", c.candidates},
              {"samples", c.samples},
              {"algo_id", c.algo_id},
              {"tile", c.tile},
              {"stages", c.stages},
              {"splitk", c.splitk},
              {"reduction", c.reduction},
              {"cta_swizzling", c.cta_swizzling},
              {"custom_option", c.custom_option},
              {"cluster", c.cluster},
              {"tuned_ms", c.tuned_ms},
              {"heuristic_first_ms", c.heuristic_first_ms},
              {"gain_over_heuristic", c.gain_over_heuristic},
              {"workspace_bytes", c.workspace_bytes},
              {"workspace_needed_bytes", c.workspace_needed_bytes}};
}

// "description" is derived from the rest and not read back.
CublasLtChoice cublaslt_choice_from_json(const json& j) {
  CublasLtChoice c;
  c.heuristic_index = j.at("heuristic_index").get<int>();
  c.candidates = j.at("candidates").get<int>();
  c.samples = j.at("samples").get<int>();
  c.algo_id = j.at("algo_id").get<int>();
  c.tile = j.at("tile").get<std::string>();
  c.stages = j.at("stages").get<std::string>();
  c.splitk = j.at("splitk").get<int>();
  c.reduction = j.at("reduction").get<std::string>();
  c.cta_swizzling = j.at("cta_swizzling").get<int>();
  c.custom_option = j.at("custom_option").get<int>();
  c.cluster = j.at("cluster").get<std::string>();
  c.tuned_ms = j.at("tuned_ms").get<double>();
  c.heuristic_first_ms = j.at("heuristic_first_ms").get<double>();
  c.gain_over_heuristic = j.at("gain_over_heuristic").get<double>();
  c.workspace_bytes = j.at("workspace_bytes").get<int64_t>();
  c.workspace_needed_bytes = j.at("workspace_needed_bytes").get<int64_t>();
  return c;
}

Status parse_status(const std::string& s) {
  for (Status st : {Status::ok, Status::failed, Status::skipped, Status::error, Status::not_held})
    if (s == to_string(st)) return st;
  throw json::other_error::create(501, "unknown status '" + s + "'", nullptr);
}

}  // namespace

const char* to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::failed:
      return "FAILED";
    case Status::skipped:
      return "skipped";
    case Status::error:
      return "error";
    case Status::not_held:
      return "not_held";
  }
  return "?";
}

namespace {

// A grouped row's groups: the M_g list and its storage (what the case is), the summary a reader
// wants without the list (derived, not read back), and the routing that drew the M_g.
json grouped_json(const GroupedGemm& gg) {
  const Grouping& g = gg.grouping;
  const GroupStats st = group_stats(g);
  json j{{"groups", g.groups()}, {"layout", to_string(g.layout)}, {"m", g.m},
         {"m_min", st.min},      {"m_median", st.median},         {"m_max", st.max},
         {"m_mean", st.mean},    {"imbalance", st.imbalance},     {"touched", g.touched()},
         {"rows", g.total_m()},  {"rows_stored", g.stored_rows()}};
  if (g.layout == GroupLayout::masked)
    j["max_m"] = g.max_m;
  else
    j["align"] = g.align;
  j["routing"] = gg.routing ? json{{"mode", to_string(gg.routing->spec)},
                                   {"tokens", gg.routing->tokens},
                                   {"topk", gg.routing->topk},
                                   {"experts", gg.routing->experts},
                                   {"seed", gg.routing->seed}}
                            : json(nullptr);
  return j;
}

GroupedGemm grouped_from_json(const json& j) {
  GroupedGemm gg;
  Grouping& g = gg.grouping;
  g.m = j.at("m").get<std::vector<int64_t>>();
  g.layout = need(parse_group_layout(j.at("layout").get<std::string>()), "grouped.layout");
  if (g.layout == GroupLayout::masked)
    g.max_m = j.at("max_m").get<int64_t>();
  else
    g.align = j.at("align").get<int64_t>();
  if (const json& r = j.at("routing"); !r.is_null()) {
    std::string why;
    const auto spec = parse_routing(r.at("mode").get<std::string>(), &why);
    gg.routing = Routing{need(spec, "grouped.routing.mode"), r.at("tokens").get<int64_t>(),
                         r.at("topk").get<int64_t>(), r.at("experts").get<int64_t>(),
                         r.at("seed").get<uint64_t>()};
  }
  return gg;
}

}  // namespace

json to_json(const CaseResult& r) {
  json j;
  j["index"] = r.index;
  j["run"] = r.run_name;
  j["kernel"] = r.kernel;
  j["provider"] = r.provider;
  j["family"] = r.family;
  j["m"] = r.problem.m;
  j["n"] = r.problem.n;
  j["k"] = r.problem.k;
  j["layout"] = to_string(r.problem.layout);
  j["dtype"] = to_string(r.problem.dtype);
  j["accum"] = to_string(r.problem.accum);
  if (is_fp8(r.problem.dtype)) {  // the format of an FP8 row: B's and C's types, scaling, accum.
    j["dtype_b"] = to_string(r.problem.b_type());
    j["out"] = to_string(r.problem.out);
    j["scale"] = to_string(r.problem.scale);
    j["fast_accum"] = r.problem.fast_accum;
  }
  j["alpha"] = r.problem.alpha;
  j["beta"] = r.problem.beta;
  j["status"] = to_string(r.status);
  j["reason"] = r.reason;
  if (!r.chosen_kernel.empty())
    j["chosen"] = {{"kernel", r.chosen_kernel}, {"rule", r.chosen_rule}};
  if (!r.plugin_path.empty()) j["plugin"] = {{"path", r.plugin_path}, {"sha256", r.plugin_sha256}};
  if (r.time) {
    j["time_ms"] = {{"median", r.time->median_ms}, {"min", r.time->min_ms},
                    {"p10", r.time->p10_ms},       {"p90", r.time->p90_ms},
                    {"mean", r.time->mean_ms},     {"stdev", r.time->stdev_ms}};
    j["samples"] = r.time->samples;
    if (!r.samples_ms.empty()) {
      json s = json::array();
      for (double v : r.samples_ms) s.push_back(round_significant(v, 4));
      j["samples_ms"] = std::move(s);
    }
  } else {
    j["time_ms"] = nullptr;
    j["samples"] = 0;
  }
  j["tflops"] = opt(r.tflops);
  j["cublas_median_ms"] = opt(r.cublas_median_ms);
  j["ratio_to_cublas"] = opt(r.ratio_to_cublas);
  j["cublaslt_median_ms"] = opt(r.cublaslt_median_ms);
  j["ratio_to_cublaslt"] = opt(r.ratio_to_cublaslt);
  if (r.baseline_way) j["baseline_way"] = *r.baseline_way;
  j["cublaslt_algo"] = r.cublaslt_algo ? to_json(*r.cublaslt_algo) : json(nullptr);
  j["error"] = {{"verified", r.error.computed},   {"max_abs", r.error.max_abs},
                {"max_rel", r.error.max_rel},     {"normwise", r.error.normwise},
                {"nonfinite", r.error.nonfinite}, {"tolerance", r.error.tolerance}};
  if (is_fp8(r.problem.dtype) && r.error.computed) {
    j["error"]["calc_diff"] = r.error.calc_diff;
    j["error"]["quant_normwise"] = opt(r.error.quant_normwise);
    j["error"]["quant_calc_diff"] = opt(r.error.quant_calc_diff);
  }
  j["clock"] = {{"sm_mhz", opt(r.clock.sm_clock_mhz)},
                {"sm_median_mhz", opt(r.clock.sm_clock_median_mhz)},
                {"sm_max_mhz", opt(r.clock.sm_clock_max_mhz)},
                {"power_w", opt(r.clock.power_w)},
                {"power_mean_w", opt(r.clock.power_mean_w)},
                {"power_limit_w", opt(r.clock.power_limit_w)},
                {"at_cap_share", opt(r.clock.at_cap_share)},
                {"temperature_c", opt(r.clock.temperature_c)},
                {"throttle", to_string(r.clock.throttle)},
                {"throttled", r.clock.throttled},
                {"throttle_reasons", r.clock.throttle_reasons},
                {"telemetry_samples", r.clock.telemetry_samples}};
  j["energy"] = {{"joules_per_gemm", opt(r.energy.joules_per_gemm)},
                 {"gflop_per_joule", opt(r.energy.gflop_per_joule)},
                 {"power_w", opt(r.energy.power_w)},
                 {"telemetry_power_w", opt(r.energy.telemetry_power_w)},
                 {"window_s", opt(r.energy.window_s)},
                 {"launches", r.energy.launches},
                 {"counter_refreshes", r.energy.counter_refreshes},
                 {"note", r.energy.note}};
  j["samples_discarded"] = r.samples_discarded;
  j["burst_wait_timeouts"] = r.burst_wait_timeouts;
  const RegimeStats& rg = r.regime;
  j["regime"] = {{"held", rg.held},
                 {"precondition_s", opt(rg.precondition_s)},
                 {"precondition_end", rg.precondition_end},
                 {"precondition_spread_pct", opt(rg.precondition_spread_pct)},
                 {"precondition_at_cap", opt(rg.precondition_at_cap)},
                 {"precondition_carried", rg.precondition_carried},
                 {"precondition_test", rg.precondition_test},
                 {"precondition_span_s", opt(rg.precondition_span_s)},
                 {"precondition_span_spread_pct", opt(rg.precondition_span_spread_pct)},
                 {"precondition_span_trend_pct", opt(rg.precondition_span_trend_pct)},
                 {"block_s", opt(rg.block_s)},
                 {"blocks", rg.blocks},
                 {"settle_mean_s", opt(rg.settle_mean_s)},
                 {"block_spread_pct", opt(rg.block_spread_pct)},
                 {"windows", rg.windows},
                 {"batches_kept", rg.batches_kept},
                 {"batches_discarded", rg.batches_discarded},
                 {"probe_first_mhz", opt(rg.probe_first_mhz)},
                 {"probe_kept_median_mhz", opt(rg.probe_kept_median_mhz)},
                 {"probe_min_mhz", opt(rg.probe_min_mhz)},
                 {"discarded_sm_median_mhz", opt(rg.discarded_sm_median_mhz)},
                 {"discarded_telemetry_samples", rg.discarded_telemetry_samples}};
  if (!rg.precondition_windows.empty()) {
    json w = json::array();
    for (const auto& [t, ms] : rg.precondition_windows)
      w.push_back({round_significant(t, 4), round_significant(ms, 5)});
    j["regime"]["precondition_windows"] = std::move(w);
  }
  j["measure"] = {
      {"cache", to_string(r.measure.cache)},      {"data", to_string(r.measure.data)},
      {"regime", to_string(r.measure.regime)},    {"warmup", r.measure.warmup},
      {"min_samples", r.measure.min_samples},     {"min_time_s", r.measure.min_time_s},
      {"max_time_s", r.measure.max_time_s},       {"verify", r.measure.verify},
      {"block_time_s", r.measure.block_time_s},   {"settle_time_s", r.measure.settle_time_s},
      {"baseline", to_string(r.measure.baseline)}};
  j["preset"] =
      r.preset.empty() ? json(nullptr) : json{{"model", r.preset.model}, {"layer", r.preset.layer}};
  if (r.grouped) j["grouped"] = grouped_json(*r.grouped);
  const SolStats& s = r.sol;
  j["sol"] = {{"flop", s.flop},
              {"bytes", s.bytes},
              {"intensity_flop_per_byte", s.intensity},
              {"instruction_class", s.instruction_class},
              {"flop_per_clk_per_sm", opt(s.flop_per_clk_per_sm)},
              {"compute_tflops_max_clock", opt(s.compute_tflops_max_clock)},
              {"compute_tflops_run_clock", opt(s.compute_tflops_run_clock)},
              {"mem_bw_gbs", opt(s.mem_bw_gbs)},
              {"mem_bw_source", s.mem_bw_source},
              {"memory_tflops", opt(s.memory_tflops)},
              {"bound_tflops", opt(s.bound_tflops)},
              {"bound", s.bound},
              {"pct_sol", opt(s.pct_sol)},
              {"pct_sol_run_clock", opt(s.pct_sol_run_clock)},
              {"reason", s.reason}};
  return j;
}

namespace {

// Layout, types, FP8 fields and the scalars (after m, n, k).
void problem_from_json(const json& j, CaseResult& r) {
  r.problem.layout = need(parse_layout(j.at("layout").get<std::string>()), "layout");
  r.problem.dtype = need(parse_dtype(j.at("dtype").get<std::string>()), "dtype");
  r.problem.accum = need(parse_accum(j.at("accum").get<std::string>()), "accum");
  if (is_fp8(r.problem.dtype)) {
    // Reports from before e5m2 have no dtype_b: B had A's type (e4m3).
    if (j.contains("dtype_b")) {
      const DType b = need(parse_fp8_dtype(j.at("dtype_b").get<std::string>()), "dtype_b");
      if (b != r.problem.dtype) r.problem.dtype_b = b;
    }
    r.problem.out = need(parse_dtype(j.at("out").get<std::string>()), "out");
    r.problem.scale = need(parse_scale_mode(j.at("scale").get<std::string>()), "scale");
    r.problem.fast_accum = j.at("fast_accum").get<bool>();
  }
  r.problem.alpha = j.at("alpha").get<double>();
  r.problem.beta = j.at("beta").get<double>();
}

// Status, the kernel a dispatcher chose, the plugin, times and ratios to the baselines.
void outcome_from_json(const json& j, CaseResult& r) {
  r.status = parse_status(j.at("status").get<std::string>());
  r.reason = j.at("reason").get<std::string>();
  if (j.contains("chosen")) {  // shape-aware kernels only
    r.chosen_kernel = j.at("chosen").at("kernel").get<std::string>();
    r.chosen_rule = j.at("chosen").at("rule").get<std::string>();
  }
  if (j.contains("plugin")) {  // plugin kernels only
    r.plugin_path = j.at("plugin").at("path").get<std::string>();
    r.plugin_sha256 = j.at("plugin").at("sha256").get<std::string>();
  }
  if (!j.at("time_ms").is_null()) {
    const json& t = j.at("time_ms");
    r.time = TimingStats{t.at("median").get<double>(), t.at("min").get<double>(),
                         t.at("p10").get<double>(),    t.at("p90").get<double>(),
                         t.at("mean").get<double>(),   t.at("stdev").get<double>(),
                         j.at("samples").get<int>()};
  }
  if (j.contains("samples_ms")) r.samples_ms = j.at("samples_ms").get<std::vector<double>>();
  r.tflops = get_opt<double>(j, "tflops");
  r.cublas_median_ms = get_opt<double>(j, "cublas_median_ms");
  r.ratio_to_cublas = get_opt<double>(j, "ratio_to_cublas");
  // Reports from before the cuBLASLt baseline have none of these keys.
  r.cublaslt_median_ms = get_opt<double>(j, "cublaslt_median_ms");
  r.ratio_to_cublaslt = get_opt<double>(j, "ratio_to_cublaslt");
  r.baseline_way = get_opt<std::string>(j, "baseline_way");
  if (j.contains("cublaslt_algo") && !j.at("cublaslt_algo").is_null())
    r.cublaslt_algo = cublaslt_choice_from_json(j.at("cublaslt_algo"));
}

void error_from_json(const json& j, CaseResult& r) {
  const json& e = j.at("error");
  r.error = ErrorStats{e.at("verified").get<bool>(),     e.at("max_abs").get<double>(),
                       e.at("max_rel").get<double>(),    e.at("normwise").get<double>(),
                       e.at("nonfinite").get<int64_t>(), e.at("tolerance").get<double>()};
  if (e.contains("calc_diff")) r.error.calc_diff = e.at("calc_diff").get<double>();
  r.error.quant_normwise = get_opt<double>(e, "quant_normwise");
  r.error.quant_calc_diff = get_opt<double>(e, "quant_calc_diff");
}

void clock_from_json(const json& j, CaseResult& r) {
  const json& c = j.at("clock");
  r.clock.sm_clock_mhz = get_opt<unsigned>(c, "sm_mhz");
  r.clock.sm_clock_max_mhz = get_opt<unsigned>(c, "sm_max_mhz");
  r.clock.power_w = get_opt<double>(c, "power_w");
  r.clock.temperature_c = get_opt<unsigned>(c, "temperature_c");
  r.clock.throttled = c.at("throttled").get<bool>();
  r.clock.throttle_reasons = c.at("throttle_reasons").get<std::string>();
  // Reports from before the telemetry thread lack the keys below: absent, none, zero.
  r.clock.sm_clock_median_mhz = get_opt<unsigned>(c, "sm_median_mhz");
  r.clock.power_mean_w = get_opt<double>(c, "power_mean_w");
  r.clock.power_limit_w = get_opt<double>(c, "power_limit_w");
  r.clock.at_cap_share = get_opt<double>(c, "at_cap_share");
  if (c.contains("throttle"))
    r.clock.throttle = need(parse_throttle(c.at("throttle").get<std::string>()), "throttle");
  r.clock.telemetry_samples = c.value("telemetry_samples", size_t(0));
}

void energy_from_json(const json& j, CaseResult& r) {
  if (j.contains("energy")) {
    const json& en = j.at("energy");
    r.energy.joules_per_gemm = get_opt<double>(en, "joules_per_gemm");
    r.energy.gflop_per_joule = get_opt<double>(en, "gflop_per_joule");
    r.energy.power_w = get_opt<double>(en, "power_w");
    r.energy.telemetry_power_w = get_opt<double>(en, "telemetry_power_w");
    r.energy.window_s = get_opt<double>(en, "window_s");
    r.energy.launches = en.value("launches", 0);
    r.energy.counter_refreshes = en.value("counter_refreshes", 0);
    r.energy.note = en.value("note", std::string());
  }
}

// The regime's counters and the "regime" object.
void regime_from_json(const json& j, CaseResult& r) {
  r.samples_discarded = j.value("samples_discarded", 0);
  r.burst_wait_timeouts = j.value("burst_wait_timeouts", 0);
  // Reports from before the steady-state method have no "regime" object.
  if (j.contains("regime") && j.at("regime").is_object()) {
    const json& g = j.at("regime");
    RegimeStats& rg = r.regime;
    rg.held = g.value("held", true);
    rg.precondition_s = get_opt<double>(g, "precondition_s");
    rg.precondition_end = g.value("precondition_end", std::string());
    rg.precondition_spread_pct = get_opt<double>(g, "precondition_spread_pct");
    rg.precondition_at_cap = get_opt<double>(g, "precondition_at_cap");
    rg.precondition_carried = g.value("precondition_carried", false);
    rg.precondition_test = g.value("precondition_test", std::string());
    rg.precondition_span_s = get_opt<double>(g, "precondition_span_s");
    rg.precondition_span_spread_pct = get_opt<double>(g, "precondition_span_spread_pct");
    rg.precondition_span_trend_pct = get_opt<double>(g, "precondition_span_trend_pct");
    if (g.contains("precondition_windows"))
      rg.precondition_windows =
          g.at("precondition_windows").get<std::vector<std::array<double, 2>>>();
    rg.block_s = get_opt<double>(g, "block_s");
    rg.blocks = g.value("blocks", 0);
    rg.settle_mean_s = get_opt<double>(g, "settle_mean_s");
    rg.block_spread_pct = get_opt<double>(g, "block_spread_pct");
    rg.windows = g.value("windows", 0);
    rg.batches_kept = g.value("batches_kept", 0);
    rg.batches_discarded = g.value("batches_discarded", 0);
    rg.probe_first_mhz = get_opt<double>(g, "probe_first_mhz");
    rg.probe_kept_median_mhz = get_opt<double>(g, "probe_kept_median_mhz");
    rg.probe_min_mhz = get_opt<double>(g, "probe_min_mhz");
    rg.discarded_sm_median_mhz = get_opt<unsigned>(g, "discarded_sm_median_mhz");
    rg.discarded_telemetry_samples = g.value("discarded_telemetry_samples", size_t(0));
  }
}

void measure_from_json(const json& j, CaseResult& r) {
  const json& m = j.at("measure");
  r.measure.cache = need(parse_cache_mode(m.at("cache").get<std::string>()), "cache");
  // Reports from before --data have no key: every one of them used uniform data.
  r.measure.data = m.contains("data")
                       ? need(parse_data_dist(m.at("data").get<std::string>()), "data")
                       : DataDist::uniform;
  r.measure.regime = m.contains("regime")
                         ? need(parse_regime(m.at("regime").get<std::string>()), "regime")
                         : Regime::sustained;
  r.measure.warmup = m.at("warmup").get<int>();
  r.measure.min_samples = m.at("min_samples").get<int>();
  r.measure.min_time_s = m.at("min_time_s").get<double>();
  r.measure.max_time_s = m.at("max_time_s").get<double>();
  r.measure.verify = m.at("verify").get<bool>();
  r.measure.block_time_s = m.value("block_time_s", MeasureSettings{}.block_time_s);
  r.measure.settle_time_s = m.value("settle_time_s", 0.0);
  r.measure.baseline = m.contains("baseline")
                           ? need(parse_baseline(m.at("baseline").get<std::string>()), "baseline")
                           : Baseline::cublas;
}

// The preset label, the groups of a grouped row and the speed-of-light object.
void preset_and_sol_from_json(const json& j, CaseResult& r) {
  // Reports from before presets and speed of light have neither key.
  if (j.contains("preset") && !j.at("preset").is_null())
    r.preset = PresetLabel{j.at("preset").at("model").get<std::string>(),
                           j.at("preset").at("layer").get<std::string>()};
  if (j.contains("grouped")) r.grouped = grouped_from_json(j.at("grouped"));
  if (j.contains("sol")) {
    const json& s = j.at("sol");
    r.sol.flop = s.at("flop").get<double>();
    r.sol.bytes = s.at("bytes").get<double>();
    r.sol.intensity = s.at("intensity_flop_per_byte").get<double>();
    r.sol.instruction_class = s.at("instruction_class").get<std::string>();
    r.sol.flop_per_clk_per_sm = get_opt<double>(s, "flop_per_clk_per_sm");
    r.sol.compute_tflops_max_clock = get_opt<double>(s, "compute_tflops_max_clock");
    r.sol.compute_tflops_run_clock = get_opt<double>(s, "compute_tflops_run_clock");
    r.sol.mem_bw_gbs = get_opt<double>(s, "mem_bw_gbs");
    r.sol.mem_bw_source = s.at("mem_bw_source").get<std::string>();
    r.sol.memory_tflops = get_opt<double>(s, "memory_tflops");
    r.sol.bound_tflops = get_opt<double>(s, "bound_tflops");
    r.sol.bound = s.at("bound").get<std::string>();
    r.sol.pct_sol = get_opt<double>(s, "pct_sol");
    r.sol.pct_sol_run_clock = get_opt<double>(s, "pct_sol_run_clock");
    r.sol.reason = s.at("reason").get<std::string>();
  }
}

}  // namespace

CaseResult case_result_from_json(const json& j) {
  CaseResult r;
  r.index = j.at("index").get<size_t>();
  r.run_name = j.at("run").get<std::string>();
  r.kernel = j.at("kernel").get<std::string>();
  r.provider = j.at("provider").get<std::string>();
  r.family = j.at("family").get<std::string>();
  r.problem.m = j.at("m").get<int64_t>();
  r.problem.n = j.at("n").get<int64_t>();
  r.problem.k = j.at("k").get<int64_t>();
  problem_from_json(j, r);
  outcome_from_json(j, r);
  error_from_json(j, r);
  clock_from_json(j, r);
  energy_from_json(j, r);
  regime_from_json(j, r);
  measure_from_json(j, r);
  preset_and_sol_from_json(j, r);
  return r;
}

json to_json(const RunMetadata& m) {
  const DeviceMetadata& d = m.device;
  json shard{{"index", m.shard_index}, {"count", m.shard_count}};
  if (m.shard_count > 1) {
    json planned = json::array();
    for (const auto& [index, label] : m.shard_planned)
      planned.push_back({{"index", index}, {"case", label}});
    shard["planned"] = std::move(planned);
  }
  json doc{
      {"schema_version", kReportSchemaVersion},
      {"tool", "gemmbench"},
      {"tool_version", m.tool_version},
      {"git_commit", m.git_commit},
      {"command_line", m.command_line},
      {"config_file", m.config_file},
      {"date_utc", m.date_utc},
      {"host", m.host},
      {"seed", m.seed},
      {"data_distribution", m.data_distribution},
      {"regime", m.regime},
      {"timing_method", m.timing_method},
      {"flops_convention", m.flops_convention},
      {"verification", m.verification},
      {"sol_intensity_rule", m.sol_intensity_rule},
      {"baselines", baselines_json(m)},
      {"plan_hash", m.plan_hash},
      {"plan_rows", m.plan_rows},
      {"shard", std::move(shard)},
      {"device",
       {{"index", d.index},
        {"name", d.name},
        {"sm", d.sm},
        {"num_sms", d.num_sms},
        {"memory_bytes", d.memory_bytes},
        {"l2_bytes", d.l2_bytes},
        {"sm_clock_max_mhz", d.sm_clock_max_mhz},
        {"memory_clock_mhz", d.memory_clock_mhz},
        {"memory_bus_bits", d.memory_bus_bits},
        {"pci_bus_id", d.pci_bus_id},
        {"uuid", d.uuid},
        {"serial", d.serial},
        {"driver_version", d.driver_version},
        {"cuda_driver_api", d.cuda_driver_api},
        {"cuda_runtime", d.cuda_runtime},
        {"cublas_version", d.cublas_version},
        {"nvml_available", d.nvml_available},
        {"power_limit_w", opt(d.power_limit_w)},
        {"mem_bw_measured_gbs", opt(d.mem_bw_measured_gbs)},
        {"mem_bw_datasheet_gbs", opt(d.mem_bw_datasheet_gbs)}}},
      {"mode", m.mode},
  };
  if (m.mode == "replicate")
    doc["replica"] = {{"index", m.replica_index}, {"count", m.replica_count}};
  if (!m.plugins.empty()) {
    json plugins = json::array();
    for (const PluginRecord& p : m.plugins)
      plugins.push_back(
          {{"path", p.path}, {"sha256", p.sha256}, {"name", p.name}, {"kernels", p.kernels}});
    doc["plugins"] = std::move(plugins);
  }
  return doc;
}

RunMetadata run_metadata_from_json(const json& j) {
  const auto str = [](const json& o, const char* key) {
    return o.is_object() && o.contains(key) && o.at(key).is_string() ? o.at(key).get<std::string>()
                                                                     : std::string();
  };
  const auto num = [](const json& o, const char* key, auto fallback) {
    return o.is_object() && o.contains(key) && o.at(key).is_number()
               ? o.at(key).get<decltype(fallback)>()
               : fallback;
  };
  const auto opt_num = [](const json& o, const char* key) -> std::optional<double> {
    if (!o.is_object() || !o.contains(key) || !o.at(key).is_number()) return std::nullopt;
    return o.at(key).get<double>();
  };
  RunMetadata m;
  m.tool_version = str(j, "tool_version");
  m.git_commit = str(j, "git_commit");
  m.command_line = str(j, "command_line");
  m.config_file = str(j, "config_file");
  m.date_utc = str(j, "date_utc");
  m.host = str(j, "host");
  m.seed = num(j, "seed", uint64_t(0));
  m.data_distribution = str(j, "data_distribution");
  m.regime = str(j, "regime");
  m.timing_method = str(j, "timing_method");
  m.flops_convention = str(j, "flops_convention");
  m.verification = str(j, "verification");
  m.sol_intensity_rule = str(j, "sol_intensity_rule");
  if (j.contains("baselines") && j.at("baselines").is_object()) {
    const json& b = j.at("baselines");
    m.baseline_method = str(b, "method");
    if (b.contains("used") && b.at("used").is_array())
      for (const json& u : b.at("used"))
        if (u.is_string())
          if (const auto v = parse_baseline(u.get<std::string>())) m.baselines_used.push_back(*v);
  }
  m.plan_hash = str(j, "plan_hash");
  m.plan_rows = num(j, "plan_rows", size_t(0));
  if (j.contains("shard") && j.at("shard").is_object()) {
    m.shard_index = num(j.at("shard"), "index", 0);
    m.shard_count = num(j.at("shard"), "count", 1);
  }
  m.mode = str(j, "mode").empty() ? "shard" : str(j, "mode");
  if (j.contains("replica") && j.at("replica").is_object()) {
    m.replica_index = num(j.at("replica"), "index", 0);
    m.replica_count = num(j.at("replica"), "count", 1);
  }
  if (j.contains("device") && j.at("device").is_object()) {
    const json& d = j.at("device");
    DeviceMetadata& o = m.device;
    o.index = num(d, "index", 0);
    o.name = str(d, "name");
    o.sm = num(d, "sm", 0);
    o.num_sms = num(d, "num_sms", 0);
    o.memory_bytes = num(d, "memory_bytes", int64_t(0));
    o.l2_bytes = num(d, "l2_bytes", int64_t(0));
    o.sm_clock_max_mhz = num(d, "sm_clock_max_mhz", 0);
    o.memory_clock_mhz = num(d, "memory_clock_mhz", 0);
    o.memory_bus_bits = num(d, "memory_bus_bits", 0);
    o.pci_bus_id = str(d, "pci_bus_id");
    o.uuid = str(d, "uuid");
    o.serial = str(d, "serial");
    o.driver_version = str(d, "driver_version");
    o.cuda_driver_api = str(d, "cuda_driver_api");
    o.cuda_runtime = str(d, "cuda_runtime");
    o.cublas_version = str(d, "cublas_version");
    o.nvml_available = d.value("nvml_available", false);
    o.power_limit_w = opt_num(d, "power_limit_w");
    o.mem_bw_measured_gbs = opt_num(d, "mem_bw_measured_gbs");
    o.mem_bw_datasheet_gbs = opt_num(d, "mem_bw_datasheet_gbs");
  }
  return m;
}

json to_json(const RunSummary& s) {
  return json{
      {"rows_planned", s.rows_planned},
      {"rows_written", s.rows_written},
      {"ok", s.ok},
      {"failed", s.failed},
      {"skipped", s.skipped},
      {"errors", s.errors},
      {"not_held", s.not_held},
      {"aborted", s.aborted},
      {"abort_reason", s.abort_reason},
      {"interrupted", s.interrupted_by != 0},
      {"interrupted_by", signal_name(s.interrupted_by)},
      {"complete", !s.aborted && s.interrupted_by == 0 && s.rows_written == s.rows_planned}};
}

}  // namespace gemmbench
