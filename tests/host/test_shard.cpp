// --shard: every case in exactly one shard, groups whole, cost balance on the committed sweeps,
// rank detection from each launcher's variables, output-path templates, the plan hash.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>

#include "cli/cli.hpp"
#include "config/config.hpp"
#include "core/errors.hpp"
#include "plan/shard.hpp"

using namespace gemmbench;

namespace {

Plan config_plan(const std::string& name) {
  const auto path = std::filesystem::path(GEMMBENCH_SOURCE_DIR) / "configs" / name;
  const SweepConfig cfg = load_config_file(path.string());
  return build_plan(cfg.runs, MeasureSettings{}, MeasureOverrides{}, KernelRegistry::instance());
}

Plan flags_plan(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"gemmbench"};
  argv.insert(argv.end(), args.begin(), args.end());
  const CliOutcome cli = parse_command_line(argv);
  return build_plan(resolve_request(cli.options).runs, MeasureSettings{}, cli.options.measure,
                    KernelRegistry::instance());
}

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}

// The shards' loads, by group_cost_s.
std::vector<double> shard_loads(const Plan& plan, int count) {
  std::vector<double> load(size_t(count), 0.0);
  const std::vector<int> shard = assign_shards(plan, count);
  for (size_t i = 0; i < plan.groups.size(); ++i)
    load[size_t(shard[i])] += group_cost_s(plan.groups[i]);
  return load;
}

// Every row of `plan` in exactly one of `count` shards, under the same index and case, and every
// group whole in one shard.
void expect_exact_cover(const Plan& plan, int count) {
  SCOPED_TRACE("count " + std::to_string(count));
  const std::vector<PlannedCase> whole = planned_cases(plan);
  ASSERT_EQ(whole.size(), plan.row_count());
  for (size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(whole[i].index, i + 1);
  std::map<size_t, std::string> seen;
  size_t groups = 0;
  for (int s = 0; s < count; ++s) {
    const Plan part = shard_plan(plan, ShardSpec{s, count});
    groups += part.groups.size();
    EXPECT_EQ(planned_cases(part).size(), part.row_count());
    for (const PlannedCase& c : planned_cases(part)) {
      EXPECT_TRUE(seen.emplace(c.index, c.label).second) << "row " << c.index << " twice";
      ASSERT_GE(c.index, 1u);
      ASSERT_LE(c.index, whole.size());
      EXPECT_EQ(c.label, whole[c.index - 1].label) << "row " << c.index;
    }
  }
  EXPECT_EQ(seen.size(), whole.size());
  EXPECT_EQ(groups, plan.groups.size());
}

}  // namespace

TEST(Shard, EveryCaseRunsInExactlyOneShard) {
  const Plan sweep = config_plan("square_sweep.json");
  const Plan prefill = config_plan("llm_prefill.json");
  ASSERT_GT(sweep.groups.size(), 10u);
  for (int n : {1, 2, 3, 4, 7, 8, 16}) {
    expect_exact_cover(sweep, n);
    expect_exact_cover(prefill, n);
  }
  // Grouped cases (llm_moe.json: bf16 ones have a cublas_grouped row, FP8 ones none).
  const Plan moe = config_plan("llm_moe.json");
  size_t api_rows = 0;
  for (const PlannedCase& c : planned_cases(moe))
    api_rows += c.label.rfind(std::string(kGroupedApiKernel) + " ", 0) == 0;
  size_t bf16_grouped = 0;
  for (const ProblemGroup& g : moe.groups) bf16_grouped += has_grouped_api_row(g);
  EXPECT_GT(bf16_grouped, 0u);
  EXPECT_EQ(api_rows, bf16_grouped);
  for (int n : {1, 3, 8}) expect_exact_cover(moe, n);
  // More shards than groups: some shards are empty, still every row once.
  expect_exact_cover(sweep, int(sweep.groups.size()) + 5);
  const Plan empty_shard =
      shard_plan(sweep, ShardSpec{int(sweep.groups.size()) + 4, int(sweep.groups.size()) + 5});
  EXPECT_TRUE(empty_shard.groups.empty());
}

TEST(Shard, CublasltRowsAreCountedInTheIndices) {
  const Plan plan = flags_plan({"--kernel", "hgemm_tn", "--m", "256,512,1024,2048", "--n", "1024",
                                "--k", "1024", "--baseline", "both"});
  ASSERT_EQ(plan.row_count(), 4u * 3u);  // cublas, cublaslt, hgemm_tn per problem
  expect_exact_cover(plan, 3);
  const auto cases = planned_cases(plan);
  EXPECT_EQ(cases[1].label.rfind("cublaslt ", 0), 0u) << cases[1].label;
}

TEST(Shard, CostIsBalancedOnTheCommittedSweeps) {
  for (const char* config : {"square_sweep.json", "llm_prefill.json"}) {
    const Plan plan = config_plan(config);
    for (int n : {2, 4}) {
      const std::vector<double> load = shard_loads(plan, n);
      const double total = std::accumulate(load.begin(), load.end(), 0.0);
      const double mean = total / n;
      const double max = *std::max_element(load.begin(), load.end());
      EXPECT_LE(max, 1.10 * mean) << config << " over " << n << " shards: the heaviest shard "
                                  << max << " s against a mean of " << mean << " s";
      EXPECT_GT(*std::min_element(load.begin(), load.end()), 0.0);
    }
  }
}

TEST(Shard, BalancesByCostNotByCount) {
  // One large problem and many small ones: a split by count would put half the small ones beside
  // the large one; by cost the large one stands nearly alone.
  const Plan plan = flags_plan({"--kernel", "hgemm_tn", "--m", "64:1024:64,8192", "--n", "8192",
                                "--k", "8192", "--max-time", "30"});
  const std::vector<int> shard = assign_shards(plan, 2);
  size_t big = plan.groups.size();
  for (size_t i = 0; i < plan.groups.size(); ++i)
    if (plan.groups[i].problem.m == 8192) big = i;
  ASSERT_LT(big, plan.groups.size());
  size_t beside_big = 0;
  for (size_t i = 0; i < plan.groups.size(); ++i) beside_big += i != big && shard[i] == shard[big];
  EXPECT_LT(beside_big, (plan.groups.size() - 1) / 2);
  // The cost model itself: larger problems and more kernel rows cost more.
  ProblemGroup g = plan.groups[0];
  const double small = group_cost_s(g);
  g.problem.m = g.problem.n = g.problem.k = 16384;
  EXPECT_GT(group_cost_s(g), small);
  const double one_kernel = group_cost_s(g);
  g.kernels.push_back(g.kernels[0]);
  EXPECT_GT(group_cost_s(g), one_kernel);
}

TEST(Shard, AssignmentAndHashAreDeterministic) {
  const Plan a = config_plan("llm_prefill.json");
  const Plan b = config_plan("llm_prefill.json");
  EXPECT_EQ(assign_shards(a, 4), assign_shards(b, 4));
  EXPECT_EQ(plan_hash(a), plan_hash(b));
  EXPECT_EQ(plan_hash(a).size(), 16u);
  EXPECT_NE(plan_hash(a), plan_hash(config_plan("square_sweep.json")));
  // Any measure setting, kernel or problem changes it; the order of groups too.
  Plan c = a;
  c.groups[3].measure.max_time_s += 1;
  EXPECT_NE(plan_hash(c), plan_hash(a));
  c = a;
  c.groups[0].kernels.pop_back();
  EXPECT_NE(plan_hash(c), plan_hash(a));
  c = a;
  c.groups[5].problem.beta = 0.5;
  EXPECT_NE(plan_hash(c), plan_hash(a));
  c = a;
  std::swap(c.groups[0], c.groups[1]);
  EXPECT_NE(plan_hash(c), plan_hash(a));
  // A shard's groups differ from the plan's, but every shard names the whole plan's hash: the
  // caller hashes the plan before sharding.
  EXPECT_NE(plan_hash(shard_plan(a, {1, 4})), plan_hash(a));
  EXPECT_EQ(plan_hash(shard_plan(a, {0, 1})), plan_hash(a));
}

TEST(Shard, ParsesIndexOverCountAndAuto) {
  EXPECT_EQ(parse_shard_arg("0/1").spec, (ShardSpec{0, 1}));
  EXPECT_EQ(parse_shard_arg("3/4").spec, (ShardSpec{3, 4}));
  EXPECT_FALSE(parse_shard_arg("3/4").from_env);
  EXPECT_TRUE(parse_shard_arg("auto").from_env);
  for (const char* bad : {"", "1", "4/4", "5/4", "-1/4", "1/-4", "1/0", "0/0", "a/b", "1/4/2",
                          " 1/4", "1/4 ", "1/", "/4", "0/99999999", "AUTO", "1.0/4"}) {
    const std::string msg = usage_error([&] { parse_shard_arg(bad); });
    EXPECT_NE(msg.find("--shard: '" + std::string(bad) + "'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
  // Through the command line: exit code 2 territory before anything else runs.
  EXPECT_THROW(parse_command_line({"gemmbench", "--shard", "2/2", "--m", "64"}), UsageError);
  const CliOutcome ok = parse_command_line({"gemmbench", "--shard", "1/2", "--m", "64"});
  EXPECT_EQ(ok.options.shard, "1/2");
  EXPECT_FALSE(ok.options.device_given);
  EXPECT_TRUE(parse_command_line({"gemmbench", "--device", "0"}).options.device_given);
}

TEST(Shard, RankFromEachLauncher) {
  const LaunchRank slurm = launch_rank_from_env(
      fake_env({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "1"}}));
  EXPECT_EQ(slurm.launcher, "Slurm");
  EXPECT_EQ(slurm.rank, 5);
  EXPECT_EQ(slurm.size, 8);
  EXPECT_EQ(slurm.local_rank, 1);
  // Older Slurm: SLURM_NPROCS only.
  EXPECT_EQ(launch_rank_from_env(fake_env({{"SLURM_PROCID", "2"}, {"SLURM_NPROCS", "3"}})).size, 3);

  const LaunchRank ompi = launch_rank_from_env(fake_env({{"OMPI_COMM_WORLD_RANK", "7"},
                                                         {"OMPI_COMM_WORLD_SIZE", "8"},
                                                         {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}}));
  EXPECT_EQ(ompi.launcher, "Open MPI");
  EXPECT_EQ(ompi.rank, 7);
  EXPECT_EQ(ompi.size, 8);
  EXPECT_EQ(ompi.local_rank, 3);

  const LaunchRank pmi = launch_rank_from_env(fake_env({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}}));
  EXPECT_EQ(pmi.launcher, "PMI");
  EXPECT_EQ(pmi.rank, 0);
  EXPECT_EQ(pmi.size, 2);
  EXPECT_FALSE(pmi.local_rank);
  EXPECT_EQ(launch_rank_from_env(
                fake_env({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"MPI_LOCALRANKID", "1"}}))
                .local_rank,
            1);

  // mpirun inside a Slurm allocation: every rank inherits SLURM_PROCID; MPI's variables win.
  const LaunchRank both = launch_rank_from_env(fake_env({{"SLURM_PROCID", "0"},
                                                         {"SLURM_NTASKS", "1"},
                                                         {"OMPI_COMM_WORLD_RANK", "3"},
                                                         {"OMPI_COMM_WORLD_SIZE", "4"}}));
  EXPECT_EQ(both.launcher, "Open MPI");
  EXPECT_EQ(both.rank, 3);

  const ShardChoice c = resolve_shard(
      "auto", fake_env({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_LOCALID", "1"}}));
  EXPECT_EQ(c.spec, (ShardSpec{1, 2}));
  EXPECT_EQ(c.local_rank, 1);
  EXPECT_EQ(resolve_shard("2/3", fake_env({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}})).spec,
            (ShardSpec{2, 3}));
  EXPECT_EQ(resolve_shard(std::nullopt, fake_env({})).spec, (ShardSpec{0, 1}));
}

TEST(Shard, AutoWithoutOrWithBrokenLauncherIsOneLineError) {
  const std::string none = usage_error([] { resolve_shard("auto", fake_env({})); });
  EXPECT_NE(none.find("no launcher found"), std::string::npos) << none;
  EXPECT_NE(none.find("SLURM_PROCID"), std::string::npos) << none;
  EXPECT_EQ(none.find('\n'), std::string::npos);
  EXPECT_NE(usage_error([] {
              launch_rank_from_env(fake_env({{"SLURM_PROCID", "1"}}));
            }).find("SLURM_NTASKS is not"),
            std::string::npos);
  EXPECT_NE(usage_error([] {
              launch_rank_from_env(fake_env({{"PMI_RANK", "x"}, {"PMI_SIZE", "2"}}));
            }).find("PMI_RANK='x'"),
            std::string::npos);
  EXPECT_NE(usage_error([] {
              launch_rank_from_env(
                  fake_env({{"OMPI_COMM_WORLD_RANK", "4"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
            }).find("do not make a rank"),
            std::string::npos);
  EXPECT_NE(usage_error([] {
              launch_rank_from_env(fake_env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "0"}}));
            }).find("do not make a rank"),
            std::string::npos);
}

TEST(Shard, OutputPathTemplates) {
  EXPECT_EQ(expand_output_template("out_{rank}.json", "--json", 3, "gpu07"), "out_3.json");
  EXPECT_EQ(expand_output_template("r/{host}/{rank}_{rank}.csv", "--csv", 12, "gpu07"),
            "r/gpu07/12_12.csv");
  EXPECT_EQ(expand_output_template("plain.json", "--json", 1, "h"), "plain.json");
  EXPECT_EQ(expand_output_template("", "--json", 1, "h"), "");
  for (const char* bad : {"out_{ranks}.json", "out_{.json", "{}", "a{RANK}"}) {
    const std::string msg = usage_error([&] { expand_output_template(bad, "--json", 0, "h"); });
    EXPECT_EQ(msg.rfind("--json: '{", 0), 0u) << msg;
    EXPECT_NE(msg.find("{rank}, {host}"), std::string::npos) << msg;
  }
}
