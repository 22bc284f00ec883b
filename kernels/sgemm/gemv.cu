// sgemm_decode_gemv — SGEMM ladder, rung 9 (variant): one to four rows of op(A) as a matrix-vector
// product.
//
// At M = 1 the split-K tile of sgemm_splitk computes 16 rows for one and, with lda = 1, copies
// op(A) 4 bytes at a time (0.73x cuBLAS at 1x4096x4096). This variant streams each row of
// W = op(B) once with 16-byte evict-first loads, two in flight per lane, f32 FMAs, the same
// kernel as hgemm_decode_gemv (common/gemv.cuh).
// Constraints: NN or TN (op(B) K-contiguous); 1 <= M <= 4; any N, K.
// Measured (H100, 2026-11-25, sustained, N = K = 4096): M = 1 1.048x cuBLAS (NN) / 1.106x (TN)
// against sgemm_splitk's 0.730x / 0.725x (bench_results/h100/2026-11-25_sgemm_m1_gemv.json.gz, git
// 5bf9698); with four chunks in flight instead of two, in an earlier session, 1.093x / 1.152x, at
// M = 2 1.022x (NN, splitk 1.035x), at M = 4 0.423x (splitk 1.383x)
// (2026-11-25_gemv_candidates.json.gz).
#include "common/gemv.cuh"
#include "core/registry.hpp"
#include "sgemm/launch.cuh"

namespace gemmbench {
namespace {

KernelInfo info() {
  KernelInfo k = sgemm::rung_info(
      "sgemm_decode_gemv", 9,
      "1-4 rows: each row of op(B) streamed once in 16-byte loads, f32 FMAs (matrix-vector)", 80,
      gemv::supports, gemv::launch<float>);
  k.layouts = {Layout::nn, Layout::tn};
  return k;
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(info());

}  // namespace gemmbench
