// The end of a group, after its sampling: each timed row's time, status, reason, figures and
// ratios. No CUDA: the runner hands in what the members gathered, and host tests feed it made-up
// members (tests/host/test_group_epilogue.cpp). Every kernel row divides by the very median its
// group's baseline rows print (runner/baselines.hpp; docs/method.md, "One figure per baseline").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "report/result.hpp"
#include "runner/baselines.hpp"
#include "runner/member.hpp"

namespace gemmbench {

// The reason of a row an interrupt stopped before its first sample: such rows are not written.
inline constexpr const char* kInterruptedReason = "not run: interrupted before its first sample";

// Why a row failed verification, in one wording for every provider.
std::string failure_reason(const ErrorStats& e);

// The reason of a row whose group never reached steady state.
std::string not_steady_reason(const RegimeStats& rs);

// Sets the row's time (the summary of its samples) where it has samples and held its regime.
void take_time(Member& m);

// The group's baseline medians: its cublas and cublaslt rows' own, where take_time set them and
// the row is not an error. `lt_is_cublas`: an FP8 problem's cublas row is the tuned cuBLASLt call,
// so it is the cuBLASLt baseline too.
GroupBaselines baseline_medians(const std::vector<Member*>& timed, bool lt_is_cublas);

// A timed row's regime fields, then its status and reason: an error row stays as it is; a row
// with no sample is an error that says why (the run aborted, an interrupt, max_time); a row whose
// regime did not hold is not_held; else its TFLOP/s, its ratios to `b`, and ok or failed by its
// verification. `lt_algo`: the cublaslt row's algorithm, which kernel rows carry (null: the group
// has no cublaslt row).
void finish_row(Member& m, const ProblemGroup& g, const GroupBaselines& b,
                const RunSummary& summary, const std::optional<CublasLtChoice>* lt_algo);

}  // namespace gemmbench
