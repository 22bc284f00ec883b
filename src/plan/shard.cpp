#include "plan/shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "core/errors.hpp"

namespace gemmbench {

namespace {

// A non-negative decimal integer that fits an int, the whole string; nullopt otherwise.
std::optional<int> parse_count(const std::string& s) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoi(s);
}

// Throughput assumed by the cost model, FLOP/s. Only ratios matter: they weigh a large f32
// problem (CUDA-core FFMA) against a large f16 one (tensor cores), roughly as an H100 runs them.
constexpr double kAssumedF32FlopS = 25e12;
constexpr double kAssumedTensorFlopS = 400e12;
// The fp64 reference of a group (a naive device kernel) and the fixed cost of every row
// (launch setup, L2 flushes, NVML reads, report writes), in seconds.
constexpr double kAssumedReferenceFlopS = 2e12;
constexpr double kRowOverheadS = 0.05;
constexpr double kGroupOverheadS = 0.1;  // allocation and seeded initialisation of operands
// Burst rows wait for a cool board before each pair: counted as twice the sampling time.
constexpr double kBurstFactor = 2.0;
constexpr int kLtCandidates = 8, kLtTuneSamples = 5;  // runner/cublaslt_gemm.hpp

std::string case_label(const std::string& kernel, const ProblemGroup& g) {
  const GemmProblem& p = g.problem;
  std::string s =
      fmt::format("{} {} {} {}", kernel, p.shape_string(), to_string(p.layout), p.type_string());
  if (p.alpha != 1.0 || p.beta != 0.0) s += fmt::format(" a={:g} b={:g}", p.alpha, p.beta);
  if (!g.preset.empty()) s += " [" + g.preset.model + "/" + g.preset.layer + "]";
  if (g.grouped) s += " [" + g.grouped->brief() + "]";
  return s;
}

}  // namespace

ShardArg parse_shard_arg(const std::string& text) {
  if (text == "auto") return ShardArg{true, {}};
  const size_t slash = text.find('/');
  const auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("--shard: '{}' {} (accepted: I/N with 0 <= I < N <= {}, or auto)",
                                  text, why, kMaxShards));
  };
  if (slash == std::string::npos) throw bad("is not I/N");
  const auto index = parse_count(text.substr(0, slash));
  const auto count = parse_count(text.substr(slash + 1));
  if (!index || !count) throw bad("is not I/N");
  if (*count < 1 || *count > kMaxShards) throw bad("has a shard count out of range");
  if (*index >= *count) throw bad("has an index not below the count");
  return ShardArg{false, ShardSpec{*index, *count}};
}

DevicesArg parse_devices_arg(const std::string& text, const char* flag) {
  if (text == "all") return DevicesArg{true, {}};
  const auto bad = [&](const std::string& why) {
    return UsageError(
        fmt::format("{}: '{}' {} (accepted: all, or device indices separated by commas: 0,1,3)",
                    flag, text, why));
  };
  DevicesArg out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const auto index = parse_count(text.substr(pos, comma - pos));
    if (!index) throw bad("is not a list of device indices");
    out.list.push_back(*index);
    pos = comma + 1;
  }
  if (out.list.size() > size_t(kMaxDevices)) throw bad("lists too many devices");
  return out;
}

const char* to_string(FleetMode m) {
  return m == FleetMode::replicate ? "replicate" : "shard";
}

std::optional<FleetMode> parse_fleet_mode(const std::string& text) {
  if (text == "shard") return FleetMode::shard;
  if (text == "replicate") return FleetMode::replicate;
  return std::nullopt;
}

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

LaunchRank launch_rank_from_env(const EnvLookup& env) {
  struct Launcher {
    const char* name;
    const char* rank;
    std::vector<const char*> size;  // first one set wins
    const char* local;
  };
  const Launcher launchers[] = {
      {"Open MPI", "OMPI_COMM_WORLD_RANK", {"OMPI_COMM_WORLD_SIZE"}, "OMPI_COMM_WORLD_LOCAL_RANK"},
      {"PMI", "PMI_RANK", {"PMI_SIZE"}, "MPI_LOCALRANKID"},
      {"Slurm", "SLURM_PROCID", {"SLURM_NTASKS", "SLURM_NPROCS"}, "SLURM_LOCALID"},
  };
  for (const Launcher& l : launchers) {
    const auto rank_text = env(l.rank);
    if (!rank_text) continue;
    std::optional<std::string> size_text;
    std::string size_name = l.size[0];
    for (const char* s : l.size)
      if ((size_text = env(s))) {
        size_name = s;
        break;
      }
    if (!size_text)
      throw UsageError(
          fmt::format("--shard auto: {} is set ({}) but {} is not", l.rank, *rank_text, size_name));
    const auto number = [&](const std::string& name, const std::string& value) {
      const auto v = parse_count(value);
      if (!v)
        throw UsageError(
            fmt::format("--shard auto: {}='{}' is not a non-negative integer", name, value));
      return *v;
    };
    LaunchRank r;
    r.launcher = l.name;
    r.rank = number(l.rank, *rank_text);
    r.size = number(size_name, *size_text);
    if (r.size < 1 || r.size > kMaxShards || r.rank >= r.size)
      throw UsageError(fmt::format("--shard auto: {}={} and {}={} do not make a rank of a job",
                                   l.rank, r.rank, size_name, r.size));
    if (const auto local = env(l.local)) r.local_rank = number(l.local, *local);
    return r;
  }
  throw UsageError(
      "--shard auto: no launcher found (none of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID is "
      "set); run it under srun or mpirun, or give --shard I/N");
}

ShardChoice resolve_shard(const std::optional<std::string>& arg, const EnvLookup& env) {
  ShardChoice c;
  if (!arg) return c;
  const ShardArg a = parse_shard_arg(*arg);
  if (!a.from_env) {
    c.spec = a.spec;
    return c;
  }
  const LaunchRank r = launch_rank_from_env(env);
  c.spec = ShardSpec{r.rank, r.size};
  c.launcher = r.launcher;
  c.local_rank = r.local_rank;
  return c;
}

double group_cost_s(const ProblemGroup& g) {
  const GemmProblem& p = g.problem;
  const MeasureSettings& m = g.measure;
  const double flop = p.flops();
  const double gemm_s = flop / (p.dtype == DType::f32 ? kAssumedF32FlopS : kAssumedTensorFlopS);
  const double burst = m.regime == Regime::burst ? kBurstFactor : 1.0;
  // The cost of `providers` rows' samples: until min_samples and min_time are both reached,
  // stopped by max_time (an estimate for dealing work out, not the runner's exact schedule).
  const auto row_s = [&](int providers) {
    const double sampling =
        std::min(m.max_time_s, std::max(m.min_time_s, m.min_samples * gemm_s) * providers);
    return burst * sampling + m.warmup * providers * gemm_s + kRowOverheadS;
  };
  double s = kGroupOverheadS;
  if (m.verify) s += flop / kAssumedReferenceFlopS;
  s += row_s(1);                              // the cuBLAS row
  if (has_grouped_api_row(g)) s += row_s(2);  // cuBLAS's grouped API beside its loop
  const bool lt = uses_cublaslt(m.baseline);
  if (lt) s += kLtCandidates * kLtTuneSamples * gemm_s + row_s(2);
  const int baselines = (uses_cublas(m.baseline) ? 1 : 0) + (lt ? 1 : 0);
  s += double(g.kernels.size()) * row_s(1 + baselines);
  return s;
}

std::vector<int> assign_shards(const Plan& plan, int count) {
  if (count < 1) throw UsageError("shard count must be at least 1");
  // Integer microseconds, so that the comparisons below are exact on every host.
  std::vector<int64_t> cost(plan.groups.size());
  for (size_t i = 0; i < cost.size(); ++i)
    cost[i] = std::llround(group_cost_s(plan.groups[i]) * 1e6);
  std::vector<size_t> order(cost.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  std::vector<int64_t> load(size_t(count), 0);
  std::vector<int> shard(cost.size(), 0);
  for (size_t g : order) {
    const size_t least = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    shard[g] = int(least);
    load[least] += cost[g];
  }
  return shard;
}

Plan shard_plan(const Plan& plan, const ShardSpec& spec) {
  const std::vector<int> shard = assign_shards(plan, spec.count);
  Plan out;
  size_t row = 0;
  for (size_t i = 0; i < plan.groups.size(); ++i) {
    const ProblemGroup& g = plan.groups[i];
    if (g.first_row) row = *g.first_row;
    if (shard[i] == spec.index) {
      out.groups.push_back(g);
      out.groups.back().first_row = row;
    }
    row += group_row_count(g);
  }
  return out;
}

std::string plan_hash(const Plan& plan) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  const auto feed = [&](const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // field separator no field contains
    h *= 1099511628211ull;
  };
  for (const ProblemGroup& g : plan.groups) {
    const GemmProblem& p = g.problem;
    const MeasureSettings& m = g.measure;
    feed(g.run_name);
    feed(fmt::format("{} {} {} {} {} {} {} {}", p.m, p.n, p.k, to_string(p.layout),
                     to_string(p.dtype), to_string(p.accum), p.alpha, p.beta));
    if (is_fp8(p.dtype))  // the classic types hash as before: their plan hashes stay valid
      feed(fmt::format("{} {} {}", to_string(p.out), to_string(p.scale), p.fast_accum));
    if (p.b_type() != p.dtype)  // and so does e4m3 x e4m3
      feed(std::string("b ") + to_string(p.b_type()));
    feed(fmt::format("{} {} {} {} {} {} {} {} {} {}", m.warmup, m.min_samples, m.min_time_s,
                     m.max_time_s, to_string(m.cache), to_string(m.data), to_string(m.regime),
                     m.verify, m.keep_samples, to_string(m.baseline)));
    feed(g.preset.model);
    feed(g.preset.layer);
    if (g.grouped) feed("grouped " + g.grouped->key());  // dense plans hash as before
    feed(std::to_string(g.kernels.size()));
    for (const KernelInfo* k : g.kernels) feed(k->name);
  }
  return fmt::format("{:016x}", h);
}

std::vector<PlannedCase> planned_cases(const Plan& plan) {
  std::vector<PlannedCase> out;
  size_t row = 0;
  for (const ProblemGroup& g : plan.groups) {
    if (g.first_row) row = *g.first_row;
    out.push_back({++row, case_label("cublas", g)});
    if (has_grouped_api_row(g)) out.push_back({++row, case_label(kGroupedApiKernel, g)});
    if (uses_cublaslt(g.measure.baseline)) out.push_back({++row, case_label("cublaslt", g)});
    for (const KernelInfo* k : g.kernels) out.push_back({++row, case_label(k->name, g)});
  }
  return out;
}

std::string expand_output_template(const std::string& path, const char* flag, int rank,
                                   const std::string& host) {
  std::string out;
  for (size_t i = 0; i < path.size();) {
    if (path[i] != '{') {
      out += path[i++];
      continue;
    }
    const size_t close = path.find('}', i);
    const std::string name =
        close == std::string::npos ? path.substr(i) : path.substr(i, close - i + 1);
    if (name == "{rank}")
      out += std::to_string(rank);
    else if (name == "{host}")
      out += host;
    else
      throw UsageError(
          fmt::format("{}: '{}' in '{}' is not a placeholder (accepted: {{rank}}, "
                      "{{host}})",
                      flag, name, path));
    i += name.size();
  }
  return out;
}

}  // namespace gemmbench
