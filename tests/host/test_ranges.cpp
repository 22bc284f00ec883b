#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "plan/ranges.hpp"

using namespace gemmbench;

TEST(Ranges, SingleValueAndList) {
  EXPECT_EQ(parse_dim_list("4096", "--m"), (std::vector<int64_t>{4096}));
  EXPECT_EQ(parse_dim_list("1, 2,3", "--m"), (std::vector<int64_t>{1, 2, 3}));
}

TEST(Ranges, ArithmeticIncludesStopWhenHit) {
  EXPECT_EQ(parse_dim_list("256:1024:256", "--m"), (std::vector<int64_t>{256, 512, 768, 1024}));
  EXPECT_EQ(parse_dim_list("1:10:4", "--m"), (std::vector<int64_t>{1, 5, 9}));
  EXPECT_EQ(parse_dim_list("7:7:1", "--m"), (std::vector<int64_t>{7}));
}

TEST(Ranges, Geometric) {
  EXPECT_EQ(parse_dim_list("256:8192:x2", "--m"),
            (std::vector<int64_t>{256, 512, 1024, 2048, 4096, 8192}));
  EXPECT_EQ(parse_dim_list("3:100:*3", "--m"), (std::vector<int64_t>{3, 9, 27, 81}));
}

TEST(Ranges, MixedListAndRange) {
  EXPECT_EQ(parse_dim_list("1,8:24:8,100", "--k"), (std::vector<int64_t>{1, 8, 16, 24, 100}));
}

TEST(Ranges, NearInt64LimitDoesNotOverflow) {
  const auto v = parse_dim_list("2147483000:2147483647:1000", "--m");
  EXPECT_EQ(v, (std::vector<int64_t>{2147483000}));
}

void expect_usage_error(const std::string& text, const std::string& fragment) {
  try {
    parse_dim_list(text, "--m");
    FAIL() << "'" << text << "' was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--m"), std::string::npos) << e.what();
  }
}

TEST(Ranges, BadInputIsAUsageErrorNamingTheProblem) {
  expect_usage_error("0", "positive");
  expect_usage_error("-5", "positive");
  expect_usage_error("abc", "not a whole number");
  expect_usage_error("12x", "not a whole number");
  expect_usage_error("1.5", "not a whole number");
  expect_usage_error("", "empty");
  expect_usage_error("1,,2", "empty value");
  expect_usage_error("99999999999999999999", "too large");
  expect_usage_error("4294967296", "too large");
  expect_usage_error("10:1:1", "stop < start");
  expect_usage_error("1:10", "not a range");
  expect_usage_error("1:10:2:3", "not a range");
  expect_usage_error("1:10:0", "positive");
  expect_usage_error("1:10:x1", "geometric step");
  expect_usage_error("1:2000000:1", "more than");
}
