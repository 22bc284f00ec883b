// What cuBLASLt's FP8 matmul, the baseline of every FP8 problem (runner/cublaslt_gemm.hpp), refuses
// before it is asked: its documented requirements, as host logic, so that the plan can decide
// whether a grouped FP8 case has a provider before any device work (why_group_cannot_run), and
// the runner's CublasLtGemm::fp8_unsupported is this same function.
#pragma once

#include <string>

#include "core/types.hpp"

namespace gemmbench {

// Why cuBLASLt cannot run the FP8 problem p, as a phrase ("K must be a multiple of 16: ..."); empty
// when it can, and for every non-FP8 problem. What else it refuses (a scaling for a pair with
// e5m2) shows only when its heuristic is asked (CublasLtGemm::tune).
std::string cublaslt_fp8_unsupported(const GemmProblem& p);

}  // namespace gemmbench
