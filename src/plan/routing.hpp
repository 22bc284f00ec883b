// Routing: how T tokens, each sent to k distinct experts of E, give each expert its rows M_g
// (docs/grouped.md, "Routing"). Host-only and deterministic on every platform: one generator of
// our own (splitmix64) and integer arithmetic only, never a std:: distribution (their output
// differs between standard libraries). The same (mode, T, k, E, seed) gives the same M_g
// everywhere, in every version that keeps this file's definitions.
//
// The modes, exactly:
//   balanced  M_g = floor(T*k / E), plus one for each of the first (T*k mod E) experts. No draws.
//   zipf:S    expert g (0-based) has popularity rank g+1 and weight w_g = max(1, floor(2^40 /
//             (g+1)^S)) (the only floating-point step: std::pow once per expert, quantized to an
//             integer). Token by token, each token draws k distinct experts one after the other,
//             each draw among the experts it has not drawn yet with probability proportional to
//             their weights: u = draw(W) for W the sum of the remaining weights, and the expert
//             picked is the first whose running sum of remaining weights (in expert order)
//             exceeds u. S = 0 is uniform; the larger S, the more rows the first experts get.
//   random    every expert weight 1: each token picks k distinct experts uniformly (zipf:0).
// draw(n) = the high 64 bits of x * n (128-bit product) for x the next splitmix64 output: an
// integer in [0, n) (Lemire's multiply-shift, without the rejection step; its bias is below
// n / 2^64). splitmix64: state += 0x9e3779b97f4a7c15; z = state; z = (z ^ z >> 30) *
// 0xbf58476d1ce4e5b9; z = (z ^ z >> 27) * 0x94d049bb133111eb; out = z ^ z >> 31; the state starts
// at the seed.
//
// Every mode gives sum(M_g) = T*k and M_g <= T (a token picks an expert at most once).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gemmbench {

enum class RoutingMode { balanced, zipf, random };

// What --routing names: "balanced", "zipf:1.2", "random".
struct RoutingSpec {
  RoutingMode mode = RoutingMode::balanced;
  double zipf_s = 0;  // zipf only: the exponent S, finite, in [0, kMaxZipfS]
  bool operator==(const RoutingSpec& o) const { return mode == o.mode && zipf_s == o.zipf_s; }
};
inline constexpr double kMaxZipfS = 16;
inline constexpr const char* kRoutingNames = "balanced, zipf:S (S >= 0, e.g. zipf:1.2), random";
std::string to_string(const RoutingSpec& r);  // "balanced", "zipf:1.2", "random"
// The spec, or nothing with `why` set: an unknown mode, or a zipf exponent that is not a number
// in [0, kMaxZipfS] ("zipf", "zipf:", "zipf:x", "zipf:-1", "zipf:1.2.3").
std::optional<RoutingSpec> parse_routing(std::string_view text, std::string* why);

// One routing: the spec and what it routes. Limits (checked by check_routing): tokens >= 1,
// 1 <= topk <= experts <= kMaxExperts, tokens * topk <= kMaxRoutedRows.
struct Routing {
  RoutingSpec spec;
  int64_t tokens = 0, topk = 0, experts = 0;
  uint64_t seed = 0;
  bool operator==(const Routing& o) const {
    return spec == o.spec && tokens == o.tokens && topk == o.topk && experts == o.experts &&
           seed == o.seed;
  }
};
inline constexpr int64_t kMaxExperts = 65536;
inline constexpr int64_t kMaxRoutedRows = int64_t(1) << 26;
inline constexpr uint64_t kDefaultRoutingSeed = 1;

// Why the routing cannot be drawn, in one line, or empty. `topk`, `experts` and `tokens` name the
// values in the message ("--topk", "runs[0].grouped.topk").
std::string check_routing(const Routing& r, const std::string& topk, const std::string& experts,
                          const std::string& tokens);

// M_g for g = 0 .. experts-1. Precondition: check_routing(r) is empty.
std::vector<int64_t> route(const Routing& r);

// The generator, exposed for the tests that pin its output.
struct SplitMix64 {
  uint64_t state;
  uint64_t next();
  uint64_t below(uint64_t n);  // draw(n) above
};

}  // namespace gemmbench
