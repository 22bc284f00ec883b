// Routing (plan/routing.hpp) and the grouping summary (core/grouping.hpp): sums and caps in every
// mode, the exact balanced split, determinism pinned to fixed outputs, seeds that differ, zipf's
// skew against its exponent, and the figures a row records.
#include <gtest/gtest.h>

#include <numeric>

#include "core/grouping.hpp"
#include "plan/routing.hpp"

using namespace gemmbench;

namespace {

Routing routing(const char* mode, int64_t tokens, int64_t topk, int64_t experts,
                uint64_t seed = 1) {
  std::string why;
  const auto spec = parse_routing(mode, &why);
  EXPECT_TRUE(spec) << mode << ": " << why;
  return Routing{spec.value_or(RoutingSpec{}), tokens, topk, experts, seed};
}

double imbalance_of(const std::vector<int64_t>& m) {
  return group_stats(Grouping{m}).imbalance;
}

}  // namespace

TEST(SplitMix64, IsTheReferenceGenerator) {
  // Vigna's splitmix64.c from state 0: the first three outputs.
  SplitMix64 rng{0};
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(rng.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(rng.next(), 0x06c45d188009454full);
  // below(n) stays below n, and reaches both ends of a small range.
  SplitMix64 r{7};
  bool saw0 = false, saw4 = false;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = r.below(5);
    ASSERT_LT(v, 5u);
    saw0 = saw0 || v == 0;
    saw4 = saw4 || v == 4;
  }
  EXPECT_TRUE(saw0 && saw4);
}

TEST(Routing, BalancedIsTheExactSplitRemainderFirst) {
  EXPECT_EQ(route(routing("balanced", 10, 3, 4)), (std::vector<int64_t>{8, 8, 7, 7}));
  EXPECT_EQ(route(routing("balanced", 4096, 8, 256)), std::vector<int64_t>(256, 128));
  EXPECT_EQ(route(routing("balanced", 1, 2, 8)), (std::vector<int64_t>{1, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(route(routing("balanced", 5, 8, 8)), std::vector<int64_t>(8, 5)) << "k = E: all";
}

TEST(Routing, EveryModeSumsToTokensTimesTopkAndCapsAtTokens) {
  struct Case {
    int64_t t, k, e;
  };
  for (const char* mode : {"balanced", "random", "zipf:0", "zipf:0.7", "zipf:1.2", "zipf:4"})
    for (const Case c : {Case{1, 1, 1}, Case{1, 8, 256}, Case{16, 8, 256}, Case{4096, 8, 256},
                         Case{333, 2, 8}, Case{100, 8, 8}, Case{7, 5, 6}, Case{4096, 8, 128}}) {
      const std::vector<int64_t> m = route(routing(mode, c.t, c.k, c.e));
      ASSERT_EQ(int64_t(m.size()), c.e) << mode;
      EXPECT_EQ(std::accumulate(m.begin(), m.end(), int64_t(0)), c.t * c.k)
          << mode << " T=" << c.t << " k=" << c.k << " E=" << c.e;
      for (int64_t x : m) {
        EXPECT_GE(x, 0) << mode;
        EXPECT_LE(x, c.t) << mode << ": a token picks an expert at most once";
      }
      if (c.k == c.e)  // every token picks every expert
        EXPECT_EQ(m, std::vector<int64_t>(size_t(c.e), c.t)) << mode;
      // max / mean can never pass E / k (no expert gets more than every token).
      EXPECT_LE(imbalance_of(m), double(c.e) / double(c.k) + 1e-12) << mode;
    }
}

TEST(Routing, TheSameSeedGivesTheSameRowsPinned) {
  // Pinned outputs: a change here changes every grouped case that uses the mode (their reports'
  // M_g): say so in the commit, with the reason.
  EXPECT_EQ(route(routing("zipf:1.2", 64, 2, 8, 1)),
            (std::vector<int64_t>{37, 31, 18, 15, 9, 7, 3, 8}));
  EXPECT_EQ(route(routing("random", 64, 2, 8, 1)),
            (std::vector<int64_t>{17, 13, 9, 19, 19, 16, 19, 16}));
  for (const char* mode : {"zipf:1.2", "random"})
    EXPECT_EQ(route(routing(mode, 4096, 8, 256, 42)), route(routing(mode, 4096, 8, 256, 42)));
}

TEST(Routing, DifferentSeedsGiveDifferentRows) {
  for (const char* mode : {"zipf:1.2", "random", "zipf:0"})
    EXPECT_NE(route(routing(mode, 4096, 8, 256, 1)), route(routing(mode, 4096, 8, 256, 2))) << mode;
  EXPECT_EQ(route(routing("balanced", 4096, 8, 256, 1)),
            route(routing("balanced", 4096, 8, 256, 2)))
      << "balanced draws nothing";
}

TEST(Routing, ZipfSkewGrowsWithTheExponent) {
  double last = 0;
  for (const char* mode : {"zipf:0", "zipf:0.5", "zipf:1", "zipf:1.2", "zipf:2"}) {
    const std::vector<int64_t> m = route(routing(mode, 4096, 8, 256));
    const double imb = imbalance_of(m);
    EXPECT_GT(imb, last) << mode;
    last = imb;
    if (std::string(mode) != "zipf:0") EXPECT_GE(m.front(), m.back()) << mode << ": rank 1 first";
  }
}

TEST(Routing, ImbalanceFigures) {
  // DeepSeek-V3's 256 experts, top-8, 4096 tokens: mean 128 rows per expert.
  EXPECT_EQ(imbalance_of(route(routing("balanced", 4096, 8, 256))), 1.0);
  const double uniform = imbalance_of(route(routing("random", 4096, 8, 256)));
  EXPECT_GT(uniform, 1.05) << "a binomial(4096, 8/256) spread: the largest of 256 is above 128";
  EXPECT_LT(uniform, 1.5);
  // zipf:1.2 puts the first experts in nearly every token: close to the cap E/k = 32.
  const std::vector<int64_t> z = route(routing("zipf:1.2", 4096, 8, 256));
  EXPECT_GT(imbalance_of(z), 25.0);
  EXPECT_GT(z.front(), 3500) << "rank 1 in most of the 4096 tokens";
  EXPECT_LT(group_stats(Grouping{z}).median, 128.0) << "most experts get less than the mean";
}

TEST(Routing, ParseAndName) {
  std::string why;
  EXPECT_EQ(to_string(*parse_routing("balanced", &why)), "balanced");
  EXPECT_EQ(to_string(*parse_routing("random", &why)), "random");
  EXPECT_EQ(to_string(*parse_routing("zipf:1.2", &why)), "zipf:1.2");
  EXPECT_EQ(parse_routing("zipf:0.50", &why)->zipf_s, 0.5);
  EXPECT_EQ(to_string(*parse_routing("zipf:16", &why)), "zipf:16");
  for (const char* bad : {"zipf", "zipf:", "zipf:x", "zipf:-1", "zipf:1.2.3", "zipf:+1", "zipf: 1",
                          "zipf:17", "zipf:nan", "zipf:inf"}) {
    why.clear();
    EXPECT_FALSE(parse_routing(bad, &why)) << bad;
    EXPECT_EQ(why, std::string("'") + bad +
                       "' has no exponent S in [0, 16] (accepted: zipf:S, e.g. zipf:1.2)");
  }
  EXPECT_FALSE(parse_routing("zipfian", &why));
  EXPECT_EQ(why, "'zipfian' is not one of balanced, zipf:S (S >= 0, e.g. zipf:1.2), random");
  EXPECT_FALSE(parse_routing("zipf1.2", &why));
  EXPECT_FALSE(parse_routing("uniform", &why));
  EXPECT_EQ(why, "'uniform' is not one of balanced, zipf:S (S >= 0, e.g. zipf:1.2), random");
}

TEST(Routing, CheckNamesTheBadValue) {
  const auto check = [](int64_t t, int64_t k, int64_t e) {
    return check_routing(Routing{{}, t, k, e, 1}, "--topk", "--experts", "--tokens");
  };
  EXPECT_EQ(check(16, 8, 256), "");
  EXPECT_EQ(check(16, 9, 8),
            "--topk 9 is more than --experts 8 (a token picks each expert at "
            "most once)");
  EXPECT_EQ(check(16, 0, 8), "--topk: must be at least 1 (got 0; each token goes to k experts)");
  EXPECT_EQ(check(0, 2, 8), "--tokens: must be at least 1 (got 0)");
  EXPECT_EQ(check(16, 2, 0), "--experts: must be in [1, 65536] (got 0)");
  EXPECT_NE(check(int64_t(1) << 25, 8, 256), "") << "more than 2^26 routed rows";
}

TEST(Grouping, StatsAndStorage) {
  Grouping g{{3, 0, 5, 9}};
  EXPECT_EQ(g.groups(), 4);
  EXPECT_EQ(g.total_m(), 17);
  EXPECT_EQ(g.touched(), 3);
  EXPECT_EQ(g.stored_rows(), 17) << "contiguous, no padding";
  const GroupStats s = group_stats(g);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.max, 9);
  EXPECT_EQ(s.median, 4.0) << "even G: the mean of the middle two (3, 5)";
  EXPECT_EQ(s.mean, 17.0 / 4);
  EXPECT_DOUBLE_EQ(s.imbalance, 9 / (17.0 / 4));
  g.align = 8;
  EXPECT_EQ(g.stored_rows(), 8 + 0 + 8 + 16) << "each group padded to 8, an empty one to 0";
  EXPECT_EQ(g.total_m(), 17) << "padding is not counted";
  g.layout = GroupLayout::masked;
  g.max_m = 16;
  EXPECT_EQ(g.stored_rows(), 4 * 16);
  EXPECT_EQ(group_stats(Grouping{{7, 1, 4}}).median, 4.0) << "odd G: the middle one";
  EXPECT_EQ(round_up_rows(129, 128), 256);
  EXPECT_EQ(round_up_rows(0, 128), 0);
  EXPECT_EQ(parse_group_layout("masked"), GroupLayout::masked);
  EXPECT_FALSE(parse_group_layout("stacked"));
  EXPECT_STREQ(to_string(GroupLayout::contiguous), "contiguous");
}
