// sgemm_gemv — SGEMM ladder, rung 9 (variant): one to four rows of op(A) as a matrix-vector
// product.
//
// At M = 1 the split-K tile of sgemm_splitk computes 16 rows for one and, with lda = 1, copies
// op(A) 4 bytes at a time (0.73x cuBLAS at 1x4096x4096). This variant streams each row of
// W = op(B) once with 16-byte evict-first loads, four in flight per lane, f32 FMAs, the same
// kernel as hgemm_gemv (common/gemv.cuh).
// Constraints: NN or TN (op(B) K-contiguous); 1 <= M <= 4; any N, K.
// Measured: not yet (candidate).
#include "common/gemv.cuh"
#include "registry.hpp"
#include "sgemm/launch.cuh"

namespace gemmbench {
namespace {

KernelInfo info() {
  KernelInfo k = sgemm::rung_info(
      "sgemm_gemv", 9,
      "1-4 rows: each row of op(B) streamed once in 16-byte loads, f32 FMAs (matrix-vector)", 80,
      gemv::supports, gemv::launch<float>);
  k.layouts = {Layout::nn, Layout::tn};
  return k;
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(info());

}  // namespace gemmbench
