// hgemm_decode_gemv — HGEMM ladder, rung 11 (variant of the decode path): one to four tokens on
// CUDA cores, no tensor cores.
//
// At M <= 4 a decode GEMM is the weight stream itself: rung 11 and 12 run it through mma/wgmma
// tiles whose token side is 8 or 32 wide, with a shared-memory ring and a split-K fix-up. This
// variant streams each weight row once with 16-byte evict-first loads, two in flight per lane,
// and sums on CUDA cores in f32 (common/gemv.cuh): no tile, no ring, no workspace. Each row is
// read by 1-8 warps of one 8-warp CTA, more as N shrinks, reduced by shuffles and then in a
// fixed order through shared memory (deterministic).
// Constraints: NN or TN (W = op(B) K-contiguous); f16 or bf16 with f32 accumulation; 1 <= M <= 4;
// any N, K (16-byte loads where rows are 16-byte aligned, K % 8 elements in a scalar tail).
// Measured (H100, 2026-11-25, sustained, TN f16/f32acc, the 16 llama3/deepseek-v3 decode layers;
// bench_results/h100/2026-11-25_gemv_candidates.json.gz, git 89f7607): at 1 token 1.069x cuBLAS
// geometric mean (f16 and bf16; hgemm_decode_sm90 0.992x / 0.999x), 65-102% of the memory
// roofline, ahead of rung 12 at every layer with K < 16384; at 4 tokens 0.845x (rung 12: 1.247x),
// every token re-reading its activations through L1 for every weight chunk. That run had four
// chunks in flight; two measured 1.095x at 1 token (four 1.070x, eight 1.039x; 2026-11-25_gemv_
// tuning.json, git 3862aad), and `hgemm` at 1 token runs 1.082x (f16 and bf16) since
// (2026-11-25_llm_decode_acceptance_gemv_u2.json.gz, git 5bf9698).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/gemv.cuh"
#include "core/registry.hpp"

namespace gemmbench {
namespace {

void launch(const GemmArgs& args, cudaStream_t stream) {
  if (args.problem.dtype == DType::f16)
    gemv::launch<__half>(args, stream);
  else
    gemv::launch<__nv_bfloat16>(args, stream);
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "hgemm_decode_gemv",
    .family = "hgemm",
    .rung = 11,
    .summary = "decode at 1-4 tokens on CUDA cores: each weight row streamed once in 16-byte "
               "loads, f32 sums, no tile or fix-up",
    .dtypes = {DType::f16, DType::bf16},
    .accums = {Accum::f32},
    .layouts = {Layout::nn, Layout::tn},
    .min_sm = 80,
    .supports = gemv::supports,
    .launch = launch,
});

}  // namespace gemmbench
