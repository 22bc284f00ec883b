#include <gtest/gtest.h>

#include "cli/cli.hpp"
#include "core/errors.hpp"

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
