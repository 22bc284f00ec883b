// sgemm_naive — SGEMM ladder, rung 1 (seed 004).
//
// One thread per element of C: thread (x, y) of a 32x32 block computes the dot product of a row
// of op(A) with a column of op(B), reading both straight from global memory. As in seed 004,
// threadIdx.x (the fastest-varying index within a warp) walks along N, i.e. across the columns
// of the column-major C, so the 32 threads of a warp touch 32 addresses M elements apart: every
// C store and every load of op(B) in the NN layout is a separate 32-byte transaction. This is
// the baseline the ladder measures its gains against.
//
// Tile: 32x32 threads per block, one C element each, no reuse. Constraints: M <= 2097120 (the
// grid's y extent); otherwise any M, N, K >= 1, any layout, any alpha/beta.
// Measured on an H100 80GB HBM3, 2026-11-22, NN, cold L2, vs cuBLAS SGEMM (TF32 off), from
// bench_results/h100/2026-11-22_sgemm_ladder.json.gz: 1024^3 0.49 TFLOP/s (1.4% of cuBLAS), 4096^3
// 0.50 (1.0%), 5120x4096x4096 0.50 (1.0%). Every access of C and of op(B) is its own transaction.
#include "common/views.cuh"
#include "core/registry.hpp"

namespace gemmbench {
namespace {

__global__ void sgemm_naive_kernel(int M, int N, int K, float alpha, StridedView<const float> A,
                                   StridedView<const float> B, float beta, StridedView<float> C) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;  // warp-contiguous along N: uncoalesced
  const int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A(m, k) * B(k, n);
  // beta == 0 must not read C: BLAS semantics, and C may hold NaN.
  C(m, n) = beta == 0.f ? alpha * acc : alpha * acc + beta * C(m, n);
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  const dim3 block(32, 32);
  const dim3 grid((p.n + 31) / 32, (p.m + 31) / 32);
  sgemm_naive_kernel<<<grid, block, 0, stream>>>(int(p.m), int(p.n), int(p.k), args.alpha,
                                                 view_a(p, static_cast<const float*>(args.a)),
                                                 view_b(p, static_cast<const float*>(args.b)),
                                                 args.beta, view_c(p, static_cast<float*>(args.c)));
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "sgemm_naive",
    .family = "sgemm",
    .rung = 1,
    .summary = "one thread per C element, warp along N (uncoalesced): the classic ladder's start",
    .dtypes = {DType::f32},
    .accums = {Accum::f32},
    .layouts = {Layout::nn, Layout::nt, Layout::tn, Layout::tt},
    .min_sm = 50,
    .supports = [](const GemmProblem& p, const DeviceCaps&) -> std::string {
      if ((p.m + 31) / 32 > 65535)
        return "M must be at most 2097120: gridDim.y (M/32 blocks) is limited to 65535";
      return {};
    },
    .launch = launch,
});

}  // namespace gemmbench
