#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <utility>

#include "cli/cli.hpp"
#include "core/errors.hpp"
#include "plan/plan.hpp"
#include "core/registry.hpp"

using namespace gemmbench;

namespace {
CliOutcome parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gemmbench");
  return parse_command_line(args);
}
std::string usage_error_of(std::vector<std::string> args) {
  try {
    const CliOutcome o = parse(args);
    resolve_request(o.options);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}
}  // namespace

TEST(Cli, TheSeedCommandWorksAsWritten) {
  const CliOutcome o = parse({"--kernel", "hgemm_tn", "--m", "5120", "--n", "4096", "--k", "4096"});
  EXPECT_EQ(o.kind, CliOutcome::Kind::run);
  const RunRequest r = resolve_request(o.options);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].kernels, (std::vector<std::string>{"hgemm_tn"}));
  ASSERT_EQ(r.runs[0].shapes.size(), 1u);
  EXPECT_EQ(r.runs[0].shapes[0].m, 5120);
  EXPECT_EQ(r.runs[0].shapes[0].n, 4096);
  EXPECT_EQ(r.runs[0].shapes[0].k, 4096);
  EXPECT_TRUE(r.runs[0].layouts.empty()) << "no --layout: each kernel's native layout";
  EXPECT_EQ(r.seed, kDefaultSeed);
}

TEST(Cli, ListsRangesAndCrossProduct) {
  const CliOutcome o = parse(
      {"--kernel", "sgemm_naive,sgemm_coalesced", "--m", "64,128", "--n", "32:96:32", "--k", "16"});
  const RunRequest r = resolve_request(o.options);
  EXPECT_EQ(r.runs[0].kernels.size(), 2u);
  EXPECT_EQ(r.runs[0].shapes.size(), 2u * 3u);
}

TEST(Cli, MissingDimsDefaultTo4096AndKernelsToAll) {
  const RunRequest r = resolve_request(parse({"--m", "100"}).options);
  EXPECT_EQ(r.runs[0].kernels, (std::vector<std::string>{"all"}));
  EXPECT_EQ(r.runs[0].shapes[0].n, 4096);
  EXPECT_EQ(r.runs[0].shapes[0].k, 4096);
}

TEST(Cli, TypesLayoutsMeasurement) {
  const CliOutcome o = parse(
      {"--kernel",      "all",    "--layout",   "tn,nn", "--dtype",    "f16", "--accum",  "f16",
       "--alpha",       "2",      "--beta",     "0.5",   "--seed",     "9",   "--warmup", "1",
       "--min-samples", "4",      "--min-time", "0.2",   "--max-time", "3",   "--cache",  "hot",
       "--no-verify",   "--quiet"});
  EXPECT_TRUE(o.options.quiet);
  EXPECT_EQ(o.options.measure.cache, CacheMode::hot);
  EXPECT_EQ(o.options.measure.verify, false);
  EXPECT_EQ(o.options.measure.min_samples, 4);
  const RunRequest r = resolve_request(o.options);
  EXPECT_EQ(r.runs[0].layouts, (std::vector<Layout>{Layout::tn, Layout::nn}));
  EXPECT_EQ(r.runs[0].dtypes, (std::vector<DType>{DType::f16}));
  EXPECT_EQ(r.runs[0].accums, (std::vector<Accum>{Accum::f16}));
  EXPECT_DOUBLE_EQ(r.runs[0].alpha, 2.0);
  EXPECT_DOUBLE_EQ(r.runs[0].beta, 0.5);
  EXPECT_EQ(r.seed, 9u);
}

// --dtype-b: B's FP8 type, a comma list like --dtype's; A's type without it. e5m2 x e5m2 and a
// B type without an FP8 A are refused by the plan, in one line, as every usage error is.
TEST(Cli, DtypeBPicksBsFp8Type) {
  const RunRequest r = resolve_request(
      parse({"--kernel", "fp8gemm", "--dtype", "e4m3,e5m2", "--dtype-b", "e4m3", "--m", "64"})
          .options);
  EXPECT_EQ(r.runs[0].dtypes, (std::vector<DType>{DType::e4m3, DType::e5m2}));
  EXPECT_EQ(r.runs[0].dtypes_b, std::vector<DType>{DType::e4m3});
  EXPECT_TRUE(resolve_request(parse({"--dtype", "e4m3"}).options).runs[0].dtypes_b.empty());
  const Plan plan = build_plan(r.runs, MeasureSettings{}, {}, KernelRegistry::instance());
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[1].problem.type_string(), "e5m2xe4m3/f32 tensor");

  for (const auto& [args, fragment] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--dtype", "e4m3", "--dtype-b", "f16"}, "--dtype-b: 'f16' is not one of e4m3, e5m2"},
           {{"--dtype", "e4m3", "--dtype-b", "e5m3"}, "--dtype-b: 'e5m3' is not one of e4m3, e5m2"},
           {{"--dtype", "e4m3", "--dtype-b", ""}, "--dtype-b: empty value"},
           {{"--config", "configs/llm_fp8_prefill.json", "--dtype-b", "e5m2"},
            "cannot be combined"}}) {
    const std::string msg = usage_error_of(args);
    EXPECT_NE(msg.find(fragment), std::string::npos) << args[1] << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  const auto plan_error = [](std::vector<std::string> args) {
    try {
      build_plan(resolve_request(parse(std::move(args)).options).runs, MeasureSettings{}, {},
                 KernelRegistry::instance());
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  for (const auto& [args, fragment] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--dtype", "e5m2", "--m", "64"}, "--dtype e5m2 without --dtype-b"},
           {{"--dtype", "e5m2", "--dtype-b", "e5m2", "--m", "64"}, "e5m2 x e5m2"},
           {{"--dtype", "f16", "--dtype-b", "e5m2", "--m", "64"}, "--dtype-b applies to FP8"},
           {{"--dtype-b", "e5m2", "--m", "64"}, "--dtype-b applies to FP8"}}) {
    const std::string msg = plan_error(args);
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  const CliOutcome help = parse({"--help"});
  EXPECT_NE(help.text.find("--dtype-b"), std::string::npos);
  EXPECT_NE(help.text.find("e5m2 x e5m2 does not"), std::string::npos);
}

TEST(Cli, DataDistribution) {
  EXPECT_FALSE(parse({"--m", "64"}).options.measure.data) << "no --data: the default applies";
  EXPECT_EQ(parse({"--data", "int3"}).options.measure.data, DataDist::int3);
  EXPECT_EQ(parse({"--data", "uniform"}).options.measure.data, DataDist::uniform);
  // Like --cache, --data is a measurement setting and so also applies to the runs of a config.
  const CliOutcome o = parse({"--config", "configs/default.json", "--data", "int3"});
  EXPECT_EQ(o.options.measure.data, DataDist::int3);
  EXPECT_NO_THROW(resolve_request(o.options));
  const CliOutcome help = parse({"--help"});
  for (const char* s : {"--data", "int3 (seeded integers in [-3,3]", "not for headline figures",
                        "uniform (default; seeded uniform [-1,1))"})
    EXPECT_NE(help.text.find(s), std::string::npos) << s;
}

TEST(Cli, SubcommandsHelpAndVersion) {
  EXPECT_EQ(parse({"list"}).kind, CliOutcome::Kind::list);
  EXPECT_TRUE(parse({"list", "--json"}).options.list_json);
  EXPECT_FALSE(parse({"list"}).options.list_all);
  EXPECT_TRUE(parse({"list", "--all"}).options.list_all);
  const CliOutcome help = parse({"--help"});
  EXPECT_EQ(help.kind, CliOutcome::Kind::exit);
  EXPECT_EQ(help.exit_code, 0);
  for (const char* s :
       {"--kernel", "--layout", "TN: A stored (M,K) with K contiguous", "Exit codes", "--cache"})
    EXPECT_NE(help.text.find(s), std::string::npos) << s;
  const CliOutcome v = parse({"--version"});
  EXPECT_EQ(v.kind, CliOutcome::Kind::exit);
  EXPECT_NE(v.text.find("gemmbench"), std::string::npos);
}

TEST(Cli, BadInputIsOneClearLine) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--m", "0"}, "--m: '0' must be positive"},
      {{"--n", "-3"}, "--n"},
      {{"--k", "abc"}, "not a whole number"},
      {{"--m", "1:99999999:1"}, "more than"},
      {{"--m", "99999999999"}, "too large"},
      {{"--layout", "tx"}, "'tx' is not one of nn, nt, tn, tt"},
      {{"--dtype", "f64"}, "'f64' is not one of f32, f16, bf16"},
      {{"--accum", "f8"}, "'f8' is not one of f32, f16"},
      {{"--cache", "warm"}, "'warm' is not one of cold, hot"},
      {{"--data", "int4"}, "--data: 'int4' is not one of uniform, int3"},
      {{"--data", "Int3"}, "--data: 'Int3' is not one of uniform, int3"},
      {{"--data", ""}, "--data: '' is not one of uniform, int3"},
      {{"--alpha", "x"}, "--alpha"},
      {{"--device", "-1"}, "--device"},
      {{"--bogus"}, "bogus"},
      {{"--config", "x.json", "--m", "5"}, "cannot be combined"},
      {{"--config", "/no/such.json"}, "cannot read config file"},
  };
  for (const auto& [args, fragment] : cases) {
    const std::string msg = usage_error_of(args);
    EXPECT_NE(msg.find(fragment), std::string::npos) << args[0] << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(Cli, NoArgumentsRunsTheDefaultConfig) {
  const RunRequest r = resolve_request(parse({}).options);
  EXPECT_NE(r.config_file.find("default.json"), std::string::npos);
  EXPECT_FALSE(r.runs.empty());
}

TEST(Cli, EmptyKernelListIsAUsageError) {
  // An empty value must not fall back to the default "all": every other empty list is an error.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--kernel", ""}, {"--kernel", " , "}, {"--kernels", ","}}) {
    const std::string msg = usage_error_of(args);
    EXPECT_NE(msg.find("--kernel: empty value"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  for (const char* flag : {"--m", "--n", "--k", "--layout", "--dtype", "--accum"}) {
    const std::string msg = usage_error_of({flag, ""});
    EXPECT_NE(msg.find(flag), std::string::npos) << flag << ": " << msg;
    EXPECT_NE(msg.find("empty"), std::string::npos) << flag << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(Cli, ARepeatedKernelIsPlannedOnce) {
  const auto& reg = KernelRegistry::instance();
  for (const KernelInfo* k : reg.all()) {
    const RunRequest once = resolve_request(parse({"--kernel", k->name, "--m", "64"}).options);
    const RunRequest twice =
        resolve_request(parse({"--kernel", k->name + "," + k->name, "--m", "64,64"}).options);
    const Plan a = build_plan(once.runs, MeasureSettings{}, {}, reg);
    const Plan b = build_plan(twice.runs, MeasureSettings{}, {}, reg);
    EXPECT_EQ(b.row_count(), a.row_count()) << k->name << ": a name typed twice is one case";
    EXPECT_EQ(b.row_count(), 2u) << k->name << ": one cuBLAS row and one kernel row";
  }
}

namespace {
KernelInfo fake_kernel(std::string name, std::string family, int rung) {
  KernelInfo k;
  k.name = std::move(name);
  k.family = std::move(family);
  k.rung = rung;
  k.summary = "summary of " + k.name;
  k.dtypes = {DType::f16};
  k.accums = {Accum::f32};
  k.layouts = {Layout::tn};
  k.min_sm = 80;
  k.launch = [](const GemmArgs&, cudaStream_t) {};
  return k;
}

size_t count_lines_with(const std::string& text, const std::string& what) {
  size_t n = 0, pos = 0;
  while ((pos = text.find(what, pos)) != std::string::npos) ++n, pos += what.size();
  return n;
}
}  // namespace

// The ladder view: one line per (family, rung), its main kernel (shortest name) and "+N
// variants"; --all and --json list every kernel.
TEST(Cli, ListShowsTheLadderAndAllShowsEveryKernel) {
  KernelRegistry reg;
  reg.add(fake_kernel("sgemm_naive", "sgemm", 1));
  reg.add(fake_kernel("hgemm_tn_128x128", "hgemm", 3));
  reg.add(fake_kernel("hgemm_tn", "hgemm", 3));
  reg.add(fake_kernel("hgemm_tn_256x128", "hgemm", 3));
  reg.add(fake_kernel("hgemm_nt", "hgemm", 4));
  reg.add(fake_kernel("hgemm_nn", "hgemm", 4));

  const std::string ladder = format_kernel_list(reg, false);
  EXPECT_NE(ladder.find("sgemm_naive"), std::string::npos);
  EXPECT_EQ(count_lines_with(ladder, "summary of sgemm_naive"), 1u);
  EXPECT_NE(ladder.find("hgemm_tn "), std::string::npos);
  EXPECT_NE(ladder.find("+2 variants"), std::string::npos);
  EXPECT_NE(ladder.find("hgemm_nn "), std::string::npos);  // same length: first alphabetically
  EXPECT_NE(ladder.find("+1 variant "), std::string::npos);
  for (const char* hidden : {"hgemm_tn_128x128", "hgemm_tn_256x128", "hgemm_nt"})
    EXPECT_EQ(ladder.find(hidden), std::string::npos) << hidden;
  EXPECT_NE(ladder.find("list --all"), std::string::npos);
  // Rungs in ladder order: sgemm first, then hgemm by rung.
  EXPECT_LT(ladder.find("sgemm_naive"), ladder.find("hgemm_tn "));
  EXPECT_LT(ladder.find("hgemm_tn "), ladder.find("hgemm_nn "));

  const std::string all = format_kernel_list(reg, false, true);
  for (const char* name :
       {"sgemm_naive", "hgemm_tn ", "hgemm_tn_128x128", "hgemm_tn_256x128", "hgemm_nn", "hgemm_nt"})
    EXPECT_NE(all.find(name), std::string::npos) << name;
  EXPECT_EQ(all.find("variant"), std::string::npos);

  const auto json = nlohmann::json::parse(format_kernel_list(reg, true));
  ASSERT_TRUE(json.is_array());
  EXPECT_EQ(json.size(), 6u);
}

// A rung with one kernel per layout (the Hopper rung) shows its TN kernel, whatever the names sort.
TEST(Cli, ListShowsTheTnKernelOfARungWithLayouts) {
  KernelRegistry reg;
  for (auto [name, layout] : {std::pair{"hgemm_nn_sm90", Layout::nn},
                              {"hgemm_tn_sm90", Layout::tn},
                              {"hgemm_nt_sm90", Layout::nt}}) {
    KernelInfo k = fake_kernel(name, "hgemm", 10);
    k.layouts = {layout};
    reg.add(k);
  }
  const std::string ladder = format_kernel_list(reg, false);
  EXPECT_NE(ladder.find("hgemm_tn_sm90 "), std::string::npos) << ladder;
  EXPECT_EQ(ladder.find("hgemm_nn_sm90"), std::string::npos) << ladder;
  EXPECT_NE(ladder.find("+2 variants"), std::string::npos) << ladder;
}

// A rung's grouped kernel (shorter named than the rung's dense kernel, as fp8gemm_grouped_sm90 is
// than fp8gemm_sm90_persistent_t) is a variant, not the rung's face.
TEST(Cli, ListShowsADenseKernelOfARungWithAGroupedOne) {
  KernelRegistry reg;
  reg.add(fake_kernel("hgemm_tn_sm90_persistent", "hgemm", 3));
  KernelInfo grouped = fake_kernel("hgemm_grouped", "hgemm", 3);
  grouped.group_layouts = {GroupLayout::contiguous};
  reg.add(grouped);
  const std::string ladder = format_kernel_list(reg, false);
  EXPECT_NE(ladder.find("hgemm_tn_sm90_persistent "), std::string::npos) << ladder;
  EXPECT_EQ(ladder.find("hgemm_grouped"), std::string::npos) << ladder;
  EXPECT_NE(ladder.find("+1 variant "), std::string::npos) << ladder;
}

// The real registry: the ladder has one line per rung, and every kernel is in --all.
TEST(Cli, ListOfTheRegisteredKernels) {
  const KernelRegistry& reg = KernelRegistry::instance();
  std::set<std::pair<std::string, int>> rungs;
  for (const KernelInfo* k : reg.all()) rungs.insert({k->family, k->rung});
  const std::string ladder = format_kernel_list(reg, false);
  // Header, one line per rung, cuBLAS, blank line, note.
  EXPECT_EQ(count_lines_with(ladder, "\n"), rungs.size() + 4);
  const std::string all = format_kernel_list(reg, false, true);
  for (const KernelInfo* k : reg.all())
    EXPECT_NE(all.find(k->name + " "), std::string::npos) << k->name;
}

TEST(Cli, KeepSamplesIsOffUnlessAsked) {
  EXPECT_FALSE(parse({"--kernel", "hgemm_tn"}).options.measure.keep_samples.has_value());
  const CliOutcome o = parse({"--kernel", "hgemm_tn", "--keep-samples", "--json", "r.json"});
  EXPECT_EQ(o.options.measure.keep_samples, true);
  MeasureSettings s;
  o.options.measure.apply_to(s);
  EXPECT_TRUE(s.keep_samples);
  EXPECT_FALSE(MeasureSettings{}.keep_samples);
}

TEST(Cli, CompareIsAnExtensionSubcommandByName) {
  std::string base, now;
  const CliOutcome o =
      parse_command_line({"gemmbench", "compare", "a.json", "b.json"}, [&](CLI::App& app) {
        CLI::App* sub = app.add_subcommand("compare");
        sub->add_option("base", base);
        sub->add_option("new", now);
      });
  EXPECT_EQ(o.kind, CliOutcome::Kind::extension);
  EXPECT_EQ(o.extension, "compare");
  EXPECT_EQ(base, "a.json");
  EXPECT_EQ(now, "b.json");
}

TEST(Cli, Regime) {
  EXPECT_FALSE(parse({"--m", "64"}).options.measure.regime) << "no --regime: the default applies";
  EXPECT_EQ(MeasureSettings{}.regime, Regime::sustained);
  EXPECT_EQ(parse({"--regime", "burst"}).options.measure.regime, Regime::burst);
  EXPECT_EQ(parse({"--regime", "sustained"}).options.measure.regime, Regime::sustained);
  // A measurement setting: it also applies to the runs of a config, over their own measure.
  const CliOutcome o = parse({"--config", "configs/default.json", "--regime", "burst"});
  EXPECT_EQ(o.options.measure.regime, Regime::burst);
  EXPECT_NO_THROW(resolve_request(o.options));
  for (const auto& [value, msg] : std::vector<std::pair<std::string, std::string>>{
           {"bursty", "--regime: 'bursty' is not one of sustained, burst"},
           {"Burst", "--regime: 'Burst' is not one of sustained, burst"},
           {"", "--regime: '' is not one of sustained, burst"}}) {
    const std::string got = usage_error_of({"--regime", value});
    EXPECT_EQ(got, msg);
  }
  EXPECT_NE(parse({"--help"}).text.find("--regime"), std::string::npos);
}

TEST(Cli, RegimeOverridesApplyToSettings) {
  MeasureSettings s;
  MeasureOverrides o;
  o.apply_to(s);
  EXPECT_EQ(s.regime, Regime::sustained);
  o.regime = Regime::burst;
  o.apply_to(s);
  EXPECT_EQ(s.regime, Regime::burst);
  EXPECT_EQ(parse_regime("burst"), Regime::burst);
  EXPECT_EQ(parse_regime("sustained"), Regime::sustained);
  EXPECT_FALSE(parse_regime("cold"));
  EXPECT_STREQ(to_string(Regime::burst), "burst");
  EXPECT_STREQ(to_string(Regime::sustained), "sustained");
}

TEST(Cli, RunSelectsRunsOfTheConfigByName) {
  const std::string cfg = std::string(GEMMBENCH_SOURCE_DIR) + "/configs/llm_decode.json";
  const RunRequest all = resolve_request(parse({"--config", cfg}).options);
  ASSERT_GE(all.runs.size(), 2u);
  const RunRequest one =
      resolve_request(parse({"--config", cfg, "--run", all.runs[1].name}).options);
  ASSERT_EQ(one.runs.size(), 1u);
  EXPECT_EQ(one.runs[0].name, all.runs[1].name);
  for (const auto& [args, fragment] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--config", cfg, "--run", "nope"}, "--run: 'nope' is not a run of"},
           {{"--config", cfg, "--run", ""}, "--run: empty value"},
           {{"--run", "decode_f16"}, "give the config too"}}) {
    const std::string msg = usage_error_of(args);
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}
