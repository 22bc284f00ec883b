// sgemm_coalesced — SGEMM ladder, rung 2.
//
// Same work per thread as sgemm_naive, but threadIdx.x now walks along M, the contiguous
// dimension of the column-major C. A warp's 32 stores become one 128-byte transaction, and in
// the NN layout its 32 loads of op(A) (M contiguous) coalesce the same way while op(B) is a
// broadcast of one element. The change is the thread->element mapping only: seed 004's point
// that the mapping alone decides global-memory coalescing.
//
// Tile: 32x32 threads per block, one C element each. Constraints: N <= 2097120 (the grid's y
// extent); otherwise any M, N, K >= 1, any layout, any alpha/beta. In layouts where op(A) is
// K-contiguous (TN, TT) the A loads are strided again; NN is the layout this rung is written for.
// Measured on an H100 80GB HBM3, 2026-11-22, NN, cold L2, vs cuBLAS SGEMM (TF32 off), from
// bench_results/h100/2026-11-22_sgemm_ladder.json.gz: 1024^3 6.36 TFLOP/s (18.7%), 4096^3 6.29
// (12.1%), 5120x4096x4096 6.06 (11.7%): 12.6x over sgemm_naive from the thread mapping alone.
#include "common/views.cuh"
#include "core/registry.hpp"

namespace gemmbench {
namespace {

__global__ void sgemm_coalesced_kernel(int M, int N, int K, float alpha, StridedView<const float> A,
                                       StridedView<const float> B, float beta,
                                       StridedView<float> C) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;  // warp-contiguous along M: coalesced
  const int n = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A(m, k) * B(k, n);
  C(m, n) = beta == 0.f ? alpha * acc : alpha * acc + beta * C(m, n);
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  const dim3 block(32, 32);
  const dim3 grid((p.m + 31) / 32, (p.n + 31) / 32);
  sgemm_coalesced_kernel<<<grid, block, 0, stream>>>(
      int(p.m), int(p.n), int(p.k), args.alpha, view_a(p, static_cast<const float*>(args.a)),
      view_b(p, static_cast<const float*>(args.b)), args.beta,
      view_c(p, static_cast<float*>(args.c)));
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "sgemm_coalesced",
    .family = "sgemm",
    .rung = 2,
    .summary = "one thread per C element, warp along M (coalesced C and A stores/loads)",
    .dtypes = {DType::f32},
    .accums = {Accum::f32},
    .layouts = {Layout::nn, Layout::nt, Layout::tn, Layout::tt},
    .min_sm = 50,
    .supports = [](const GemmProblem& p, const DeviceCaps&) -> std::string {
      if ((p.n + 31) / 32 > 65535)
        return "N must be at most 2097120: gridDim.y (N/32 blocks) is limited to 65535";
      return {};
    },
    .launch = launch,
});

}  // namespace gemmbench
