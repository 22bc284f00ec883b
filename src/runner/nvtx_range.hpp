// NVTX ranges around each case and each provider's sampling, so that `nsys profile` shows the
// cases by name on its timeline and `ncu --nvtx --nvtx-include` profiles one case's launches
// (docs/multi-gpu.md, "Selecting one case in nsys and ncu"). NVTX 3 is header-only and part of
// the CUDA Toolkit (<nvtx3/nvToolsExt.h>): nothing to link, and without a tool attached a push
// or pop is a call through a null-checked function pointer.
//
// Names avoid the characters ncu's NVTX filter reads as quantifiers (@ , [ ] / * + and the
// backslash), so that a filter is the name as printed plus a trailing '/': the accumulate type
// follows the input type after a colon ("f16:f32"), not a slash as in the console's "f16/f32".
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <fmt/format.h>

#include <string>

#include "core/types.hpp"
#include "plan/spec.hpp"

namespace gemmbench {

// The range of one row: "hgemm_tn_sm90 5120x4096x4096 tn f16:f32", then " a=2 b=0.5" where
// alpha or beta is not 1 or 0, then " llama3-8b qkv_proj" for a preset layer. `kernel` is the
// row's kernel name ("cublas", "cublaslt" on the baseline rows). Inside it, a range named by the
// provider alone (the kernel's registry name, "cublas" or "cublaslt"): "hgemm_tn 4096x4096x4096
// tn f16:f32/hgemm_tn]" takes the row's own launches. The runner opens the pair around each of a
// row's blocks (sustained: the settle and the timed samples) and around each launch of a burst
// window's interleaved steps.
inline std::string nvtx_case_name(const std::string& kernel, const GemmProblem& p,
                                  const PresetLabel& preset = {}) {
  std::string s = fmt::format("{} {} {} {}:{}", kernel, p.shape_string(), to_string(p.layout),
                              p.input_types(), to_string(p.accum));
  if (is_fp8(p.dtype)) s += " " + p.fp8_format();
  if (p.alpha != 1.0 || p.beta != 0.0) s += fmt::format(" a={:g} b={:g}", p.alpha, p.beta);
  if (!preset.empty()) s += " " + preset.model + " " + preset.layer;
  return s;
}

// A push/pop range on the calling thread, popped when the object goes out of scope.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace gemmbench
