// What the Hopper FP8 rungs (fp8gemm/sm90.cu, fp8gemm/sm90_persistent.cu) ask of a problem and
// of the build, in one place: the formats they take and the check that the driver picked their
// sm_90a image. Host code.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/sm90/image.hpp"
#include "core/device_caps.hpp"
#include "core/registry.hpp"
#include "core/types.hpp"

namespace gemmbench {

// The problem itself: a Hopper GPU, bf16 C, a scaling, no fast accumulation with block scales,
// TMA's 16-byte row strides, 32-bit tile coordinates.
inline std::string fp8_sm90_problem_unsupported(const GemmProblem& p, const DeviceCaps& caps) {
  if (caps.sm != 90)
    return "needs a compute capability 9.0 GPU (H100/H200): sm_90a wgmma/TMA code runs on no other";
  if (p.out_type() != DType::bf16) return "writes bf16 C only (--out bf16)";
  if (p.scale == ScaleMode::none) return "needs a scaling (tensor, row or block128)";
  if (p.fast_accum && p.scale == ScaleMode::block128)
    return "block scales are applied when the partial sums are promoted: no fast accumulation";
  if (p.k % 16 != 0) return "K must be a multiple of 16: TMA needs 16-byte aligned row strides";
  if (p.m >= (int64_t(1) << 30) || p.n >= (int64_t(1) << 30) || p.k >= (int64_t(1) << 30))
    return "M, N and K must be below 2^30 (32-bit tile coordinates)";
  return {};
}

// Where fp8gemm_sm90_persistent_t_m64c2 runs one consumer warpgroup on all of its tile's rows of
// B, and may take 64 x 16 tiles (m64c2_tile_n): e4m3 x e4m3 block128 (no fast accumulation),
// DeepGEMM's problem, where it was measured; its launch and rule M3's grid both ask this.
inline bool m64c2_one_consumer(const GemmProblem& p) {
  return p.dtype == DType::e4m3 && p.b_type() == DType::e4m3 && p.scale == ScaleMode::block128 &&
         !p.fast_accum;
}

// The registry entry of a Hopper FP8 rung: FP8 inputs of `dtypes` (e4m3 unless the rung runs
// e5m2 too; supports() refuses the pairs it does not run), f32 accumulation, TN, sm_90.
inline KernelInfo fp8_sm90_info(std::string name, int rung, std::string summary,
                                SupportsFn supports, LaunchFn launch,
                                std::vector<DType> dtypes = {DType::e4m3}) {
  return KernelInfo{.name = std::move(name),
                    .family = "fp8gemm",
                    .rung = rung,
                    .summary = std::move(summary),
                    .dtypes = std::move(dtypes),
                    .accums = {Accum::f32},
                    .layouts = {Layout::tn},
                    .min_sm = 90,
                    .supports = std::move(supports),
                    .launch = std::move(launch)};
}

}  // namespace gemmbench
