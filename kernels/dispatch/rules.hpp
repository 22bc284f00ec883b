// The rule tables of the shape-aware kernels `hgemm`, `sgemm` and `fp8gemm`
// (kernels/dispatch/dispatch.cpp): for one problem on one device, the registered kernels to try,
// best first. The dispatcher runs the first one whose supports() accepts the problem. A table is
// data: rows of {name, condition, kernel, when, why, report}, tried in order (rules.cpp);
// `gemmbench list --rules` prints them and docs/dispatch.md holds the same table. Plain C++: host
// tests call it directly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/rule_table.hpp"
#include "core/types.hpp"

namespace gemmbench {

struct RuleCandidate {
  std::string kernel;  // a registered kernel name
  std::string rule;    // the name of the row that put it here, as rows record it (chosen_rule)
};

// Candidates for a 16-bit problem (f16 or bf16 inputs), best first, ending with the fallbacks
// that run any shape their layout allows.
std::vector<RuleCandidate> hgemm_candidates(const GemmProblem& p, const DeviceCaps& caps);

// Candidates for an f32 problem, best first.
std::vector<RuleCandidate> sgemm_candidates(const GemmProblem& p, const DeviceCaps& caps);

// Candidates for an FP8 problem (TN; any pair, whose types the candidates' supports() check), best
// first.
std::vector<RuleCandidate> fp8gemm_candidates(const GemmProblem& p, const DeviceCaps& caps);

// The rows of each dispatcher's tables, in the order they are tried, for `gemmbench list --rules`.
std::vector<RuleRow> fp8gemm_rule_rows();
std::vector<RuleRow> hgemm_rule_rows();
std::vector<RuleRow> sgemm_rule_rows();

// The quantities the rules read, exposed for the tests: the waves of the Hopper rung's 256x256
// cluster tiles over the resident clusters (num_sms / 2), and the share of the last wave that
// is busy in the plain walk, (waves / ceil(waves)).
struct WaveShape {
  double waves = 0;
  double wave_efficiency = 0;
  double tile_efficiency = 0;  // M x N over the area of the tiles that cover it (padding)
  // The share of the plain walk's tile slots doing the GEMM's work.
  double busy() const { return wave_efficiency * tile_efficiency; }
};
WaveShape sm90_waves(const GemmProblem& p, const DeviceCaps& caps);
// The same for tiles of tile_m x tile_n (cluster tiles when cluster > 1) over num_sms / cluster.
WaveShape tile_waves(const GemmProblem& p, const DeviceCaps& caps, int tile_m, int tile_n,
                     int cluster);

}  // namespace gemmbench
