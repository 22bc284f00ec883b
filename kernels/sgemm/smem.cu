// sgemm_smem — SGEMM ladder, rung 3.
//
// Adds shared-memory tiling to sgemm_coalesced. There, every thread streams a whole row of op(A)
// and column of op(B) from global memory, so each element is fetched once per thread that needs
// it (32 times per block). Here a block first copies a (BM,BK) tile of op(A) and a (BK,BN) tile
// of op(B) into shared memory with coalesced loads (consecutive threads read consecutive
// addresses of whichever dimension is contiguous in the layout), synchronises, and then every
// thread runs its BK-long slice of the dot product out of shared memory. Each global element is
// now loaded once per block instead of once per thread. Both tiles are kept k-outer
// (tile[k][x]): in the inner loop a warp reads 32 consecutive words of the op(A) tile (one per
// thread, no bank conflict) and one broadcast word of the op(B) tile. The work per thread is
// still one C element, so each FFMA needs two shared loads: that ratio is what rung 4 attacks.
//
// Tile: BM x BN = 32 x 32 C elements per block of 32 x 32 threads (threadIdx.x walks M, as in
// rung 2), one element each; BK = 32. Shared memory: two (32, 32+1) float tiles, 8.4 KB.
// Layouts: all four (the copy into shared memory is templated on each operand's major mode).
// Constraints: none (any M, N, K >= 1; edges are zero-filled on load and guarded on store).
// Measured on an H100 80GB HBM3, 2026-11-22, NN, cold L2, vs cuBLAS SGEMM with TF32 off,
// from bench_results/h100/2026-11-22_sgemm_ladder.json (git 6c33131476ee):
//   sgemm_smem: 1024^3 6.5 TFLOP/s (0.190x), 2048^3 6.9 TFLOP/s (0.137x), 4096^3 6.8 TFLOP/s
//     (0.131x), 5120x4096x4096 6.8 TFLOP/s (0.131x)
#include <cstdint>
#include <string>

#include "common/layout_dispatch.hpp"
#include "registry.hpp"

namespace gemmbench {
namespace {

// Copies the (ROWS,BK) block of an operand X that starts at (x0, k0) into the k-outer shared
// tile xs[k * LD + r], zero-filling what lies outside (extent, K) so the inner loop needs no
// bounds checks. X is op(A) (x = m) or op(B) read as (N,K) (x = n); X(x, k) sits at
// x * ld + k when K_MAJOR, else at x + k * ld. Consecutive threads take consecutive addresses of
// the contiguous dimension, so a warp's loads coalesce in every layout. For a K_MAJOR operand
// the 32 threads of a warp write 32 different rows k of the tile: LD = ROWS + 1 (odd) puts them
// in 32 different banks; without the pad, all 32 would hit one bank.
template <int ROWS, int BK, int LD, int THREADS, bool K_MAJOR>
__device__ __forceinline__ void load_tile(const float* __restrict__ x, int64_t ld, int extent,
                                          int K, int x0, int k0, float* xs, int tid) {
  static_assert(ROWS * BK % THREADS == 0, "every thread copies the same number of elements");
#pragma unroll
  for (int i = 0; i < ROWS * BK / THREADS; ++i) {
    const int e = tid + i * THREADS;
    const int r = K_MAJOR ? e / BK : e % ROWS;
    const int k = K_MAJOR ? e % BK : e / ROWS;
    const int gx = x0 + r;
    const int gk = k0 + k;
    float v = 0.f;
    if (gx < extent && gk < K) v = x[K_MAJOR ? gx * ld + gk : gx + gk * ld];
    xs[k * LD + r] = v;
  }
}

template <int BM, int BN, int BK, bool A_K_MAJOR, bool B_K_MAJOR>
__global__ void __launch_bounds__(BM* BN)
    sgemm_smem_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, int64_t lda,
                      const float* __restrict__ B, int64_t ldb, float beta, float* __restrict__ C,
                      int64_t ldc) {
  static_assert(BM == 32,
                "BM must be the warp size: threadIdx.x walks M, so a warp's C stores and op(A) "
                "tile reads are 32 consecutive words");
  static_assert(BM * BN <= 1024, "one thread per C element: BM*BN must fit in a block");
  constexpr int THREADS = BM * BN;
  constexpr int LDA = BM + 1;  // odd row stride: conflict-free transposing stores (load_tile)
  constexpr int LDB = BN + 1;

  __shared__ float as[BK * LDA];  // (BM,BK) op(A) tile, smem [BK][BM+1], m contiguous
  __shared__ float bs[BK * LDB];  // (BK,BN) op(B) tile, smem [BK][BN+1], n contiguous

  const int tx = threadIdx.x;  // m within the tile: warp-contiguous along M
  const int ty = threadIdx.y;  // n within the tile: one value per warp (broadcast reads of bs)
  const int tid = ty * BM + tx;
  const int m0 = blockIdx.x * BM;
  const int n0 = blockIdx.y * BN;

  float acc = 0.f;
  // MAINLOOP: stage a BK-slice of both operands, then consume it from shared memory.
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tile<BM, BK, LDA, THREADS, A_K_MAJOR>(A, lda, M, K, m0, k0, as, tid);
    load_tile<BN, BK, LDB, THREADS, B_K_MAJOR>(B, ldb, N, K, n0, k0, bs, tid);
    __syncthreads();  // tiles complete before anyone reads them
#pragma unroll
    for (int k = 0; k < BK; ++k) acc += as[k * LDA + tx] * bs[k * LDB + ty];
    __syncthreads();  // everyone done reading before the next slice overwrites the tiles
  }

  // EPILOGUE: beta == 0 must not read C (BLAS semantics; C may hold NaN).
  const int m = m0 + tx;
  const int n = n0 + ty;
  if (m < M && n < N) {
    float* c = C + m + n * ldc;
    *c = beta == 0.f ? alpha * acc : alpha * acc + beta * *c;
  }
}

// The tile this rung launches.
constexpr int kBM = 32, kBN = 32, kBK = 32;

// What only the problem can rule out: int indices and the grid's 65535-block y dimension.
template <int BN>
std::string supports(const GemmProblem& p, const DeviceCaps&) {
  if (p.m > INT32_MAX || p.n > INT32_MAX || p.k > INT32_MAX)
    return "M, N and K must fit in 32-bit int (indices are int)";
  if ((p.n + BN - 1) / BN > 65535)
    return "N is too large for the grid's y dimension (65535 blocks of " + std::to_string(BN) +
           " columns)";
  return "";
}

template <bool A_K_MAJOR, bool B_K_MAJOR>
void launch_layout(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  const dim3 block(kBM, kBN);
  const dim3 grid(unsigned((p.m + kBM - 1) / kBM), unsigned((p.n + kBN - 1) / kBN));
  const auto kernel = sgemm_smem_kernel<kBM, kBN, kBK, A_K_MAJOR, B_K_MAJOR>;
  kernel<<<grid, block, 0, stream>>>(
      int(p.m), int(p.n), int(p.k), args.alpha, static_cast<const float*>(args.a), p.lda(),
      static_cast<const float*>(args.b), p.ldb(), args.beta, static_cast<float*>(args.c), p.ldc());
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  dispatch_layout(args.problem.layout, [&](auto a_k_major, auto b_k_major) {
    launch_layout<decltype(a_k_major)::value, decltype(b_k_major)::value>(args, stream);
  });
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "sgemm_smem",
    .family = "sgemm",
    .rung = 3,
    .summary = "32x32 block tiles of op(A)/op(B) staged in shared memory, one C element/thread",
    .dtypes = {DType::f32},
    .accums = {Accum::f32},
    .layouts = {Layout::nn, Layout::nt, Layout::tn, Layout::tt},
    .min_sm = 50,
    .supports = supports<kBN>,
    .launch = launch,
});

}  // namespace gemmbench
