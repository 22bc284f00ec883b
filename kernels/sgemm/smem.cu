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
// from bench_results/h100/2026-11-22_sgemm_ladder.json.gz (git 6c33131476ee):
//   sgemm_smem: 1024^3 6.5 TFLOP/s (0.190x), 2048^3 6.9 TFLOP/s (0.137x), 4096^3 6.8 TFLOP/s
//     (0.131x), 5120x4096x4096 6.8 TFLOP/s (0.131x)
#include <cstdint>
#include <string>

#include "core/registry.hpp"
#include "sgemm/launch.cuh"

namespace gemmbench {
namespace {

using sgemm::load_tile;

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
  // Odd row strides: a warp's transposing stores of a K-major operand go to 32 different rows k
  // of the tile, i.e. 32 different banks; without the pad all 32 would hit one bank.
  constexpr int LDA = BM + 1;
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
    load_tile<BM, BK, LDA, THREADS, A_K_MAJOR, false>(A, lda, M, K, m0, k0, as, tid);
    load_tile<BN, BK, LDB, THREADS, B_K_MAJOR, false>(B, ldb, N, K, n0, k0, bs, tid);
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

void launch(const GemmArgs& args, cudaStream_t stream) {
  sgemm::launch_on_grid<kBM, kBN>(args, stream, dim3(kBM, kBN), [](auto a_k, auto b_k, auto) {
    return sgemm_smem_kernel<kBM, kBN, kBK, decltype(a_k)::value, decltype(b_k)::value>;
  });
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(sgemm::rung_info(
    "sgemm_smem", 3,
    "32x32 block tiles of op(A)/op(B) staged in shared memory, one C element/thread", 50,
    sgemm::grid_supports<kBN>, launch));

}  // namespace gemmbench
