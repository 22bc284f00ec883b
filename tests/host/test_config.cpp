#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config/config.hpp"
#include "core/errors.hpp"

using namespace gemmbench;

namespace {

std::string usage_error_of(const std::string& text) {
  try {
    parse_config_text(text, "cfg.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

void expect_error(const std::string& text, std::initializer_list<const char*> fragments) {
  const std::string msg = usage_error_of(text);
  ASSERT_NE(msg, "(accepted)") << text;
  for (const char* f : fragments)
    EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
  EXPECT_EQ(msg.rfind("cfg.json: ", 0), 0u) << "the message names the file first: " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

}  // namespace

TEST(Config, FullRun) {
  const SweepConfig c = parse_config_text(R"({
    "description": "d", "seed": 7,
    "runs": [{
      "name": "ladder", "kernels": ["sgemm_*", "cublas"],
      "shapes": [[1, 2, 3], {"m": "256:512:256", "n": [8, 16], "k": 32}, {"mnk": "64:256:x2"}],
      "layouts": "tn", "dtypes": ["f16"], "accums": ["f32", "f16"], "alpha": 0.5, "beta": -1,
      "measure": {"warmup": 1, "min_samples": 3, "min_time": 0.1, "max_time": 2, "cache": "hot", "data": "int3", "verify": false}
    }]})",
                                          "cfg.json");
  EXPECT_EQ(c.description, "d");
  ASSERT_TRUE(c.seed);
  EXPECT_EQ(*c.seed, 7u);
  ASSERT_EQ(c.runs.size(), 1u);
  const RunSpec& r = c.runs[0];
  EXPECT_EQ(r.name, "ladder");
  EXPECT_EQ(r.kernels, (std::vector<std::string>{"sgemm_*", "cublas"}));
  ASSERT_EQ(r.shapes.size(), 1u + 4u + 3u);
  EXPECT_EQ(r.shapes[0].m, 1);
  EXPECT_EQ(r.shapes[0].k, 3);
  EXPECT_EQ(r.shapes[1].m, 256);
  EXPECT_EQ(r.shapes[1].n, 8);
  EXPECT_EQ(r.shapes[4].m, 512);
  EXPECT_EQ(r.shapes[4].n, 16);
  EXPECT_EQ(r.shapes[7].m, 256);
  EXPECT_EQ(r.shapes[7].n, 256);
  EXPECT_EQ(r.shapes[7].k, 256);
  EXPECT_EQ(r.layouts, (std::vector<Layout>{Layout::tn}));
  EXPECT_EQ(r.accums, (std::vector<Accum>{Accum::f32, Accum::f16}));
  EXPECT_DOUBLE_EQ(r.alpha, 0.5);
  EXPECT_DOUBLE_EQ(r.beta, -1);
  EXPECT_EQ(r.measure.min_samples, 3);
  EXPECT_EQ(r.measure.cache, CacheMode::hot);
  EXPECT_EQ(r.measure.data, DataDist::int3);
  EXPECT_EQ(r.measure.verify, false);
}

TEST(Config, DefaultsAndComments) {
  const SweepConfig c = parse_config_text(R"({
    // comments are allowed
    "runs": [{"kernels": "all", "shapes": [[4, 4, 4]]}, {"kernels": "all", "shapes": [[8, 8, 8]]}]})",
                                          "cfg.json");
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].name, "run0");
  EXPECT_EQ(c.runs[1].name, "run1");
  EXPECT_TRUE(c.runs[0].layouts.empty());
  EXPECT_FALSE(c.seed);
  EXPECT_DOUBLE_EQ(c.runs[0].alpha, 1.0);
  EXPECT_DOUBLE_EQ(c.runs[0].beta, 0.0);
  EXPECT_FALSE(c.runs[0].measure.data) << "no measure.data: the default (uniform) applies";
}

TEST(Config, MalformedJsonGivesLineAndColumn) {
  expect_error("{\n  \"runs\": [\n    {\"kernels\": \"all\",, }\n  ]\n}",
               {"malformed JSON", "line 3", "column"});
  expect_error("", {"malformed JSON"});
}

TEST(Config, UnknownKeysNameThePathAndSuggest) {
  expect_error(
      R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"min_sampels": 3}}]})",
      {"runs[0].measure.min_sampels", "unknown key", "did you mean 'min_samples'"});
  expect_error(R"({"runz": []})", {"runz", "unknown key", "did you mean 'runs'"});
  expect_error(R"({"runs": [{"kernels": "all", "shape": [[1,1,1]]}]})",
               {"runs[0].shape", "did you mean 'shapes'"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [{"m": 1, "n": 2, "q": 3}]}]})",
               {"runs[0].shapes[0].q", "unknown key"});
}

TEST(Config, MistypedValuesNameTheExpectedType) {
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "alpha": "one"}]})",
               {"runs[0].alpha", "expected a number, got a string"});
  expect_error(R"({"runs": [{"kernels": 5, "shapes": [[1,1,1]]}]})",
               {"runs[0].kernels", "expected a string or a non-empty array of strings"});
  expect_error(
      R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"verify": "yes"}}]})",
      {"runs[0].measure.verify", "expected a boolean"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[1,1.5,1]]}]})",
               {"runs[0].shapes[0][1]", "expected an integer"});
  expect_error(R"({"runs": {"kernels": "all"}})", {"runs", "expected a non-empty array"});
  expect_error(R"([1, 2])", {"expected an object"});
  expect_error(R"({"seed": "x", "runs": [{"kernels": "all", "shapes": [[1,1,1]]}]})",
               {"seed", "expected an integer"});
}

TEST(Config, BadValues) {
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[0,1,1]]}]})",
               {"runs[0].shapes[0][0]", "positive"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[1,1]]}]})", {"[m, n, k]"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [{"m": "9:1:1", "n": 1, "k": 1}]}]})",
               {"stop < start"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [{"m": 1, "n": 1}]}]})",
               {"missing key 'k'"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "layouts": ["tx"]}]})",
               {"runs[0].layouts", "'tx' is not one of nn, nt, tn, tt"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "dtypes": "f64"}]})",
               {"'f64' is not one of f32, f16, bf16"});
  expect_error(
      R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"cache": "warm"}}]})",
      {"'warm' is not one of cold, hot"});
  expect_error(
      R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"data": "gaussian"}}]})",
      {"runs[0].measure.data", "'gaussian' is not one of uniform, int3"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"data": 3}}]})",
               {"runs[0].measure.data", "expected a string"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"warmup": -1}}]})",
               {"warmup", "[0, 1000000]"});
  expect_error(
      R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]]}, {"name": "run0", "kernels": "all", "shapes": [[1,1,1]]}]})",
      {"duplicate run name"});
  expect_error(R"({"runs": [{"shapes": [[1,1,1]]}]})", {"missing key 'kernels'"});
  expect_error(R"({"runs": [{"kernels": "all"}]})", {"missing key 'shapes'"});
  expect_error(
      R"({"runs": [{"kernels": "all", "shapes": [{"m": "1:100:1", "n": "1:100:1", "k": "1:100:1"}]}]})",
      {"100000"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[99999999999,1,1]]}]})", {"too large"});
}

TEST(Config, MissingAndUnreadableFiles) {
  try {
    load_config_file("/nonexistent/x.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read config file '/nonexistent/x.json'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(load_config_file(std::filesystem::temp_directory_path().string()), UsageError);
}

// Every config shipped in configs/ and configs/dev/ parses (a new one is covered without being
// listed here), and the ones the README, docs and scripts name are among them.
TEST(Config, ShippedConfigsParse) {
  const std::filesystem::path dir = std::filesystem::path(GEMMBENCH_SOURCE_DIR) / "configs";
  std::set<std::string> seen;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const SweepConfig c = load_config_file(entry.path().string());
    EXPECT_FALSE(c.runs.empty());
    seen.insert(entry.path().lexically_relative(dir).generic_string());
  }
  for (const char* name :
       {"default.json", "seed_attention.json", "square_sweep.json", "sgemm_ladder.json",
        "hgemm_ladder.json", "dev/hopper_acceptance.json", "dev/ampere_acceptance.json"})
    EXPECT_TRUE(seen.count(name)) << name << " is missing from configs/";
}

TEST(Config, Regime) {
  const SweepConfig c = parse_config_text(
      R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"regime": "burst"}},
                   {"name": "b", "kernels": "all", "shapes": [[1,1,1]]}]})",
      "cfg.json");
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].measure.regime, Regime::burst);
  EXPECT_FALSE(c.runs[1].measure.regime) << "absent: the default (sustained) applies";
  expect_error(
      R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"regime": "peak"}}]})",
      {"runs[0].measure.regime", "'peak' is not one of sustained, burst"});
  expect_error(R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"regime": 1}}]})",
               {"runs[0].measure.regime", "expected a string"});
  expect_error(
      R"({"runs": [{"kernels": "all", "shapes": [[1,1,1]], "measure": {"regim": "burst"}}]})",
      {"did you mean 'regime'"});
}
