// sgemm_blocktile_1d — SGEMM ladder, rung 4.
//
// Adds 1D register blocking to sgemm_smem. In rung 3 every FFMA needs two shared-memory loads,
// so the kernel is bound by shared-memory bandwidth, not arithmetic. Here each thread computes a
// strip of TN results of one C row: per k it loads its op(A) value once into a register and
// reuses it for TN FFMAs against TN op(B) values, which are the same for the whole warp
// (broadcast reads). Shared loads per FFMA drop from 2 to (1 + TN) / TN, and the larger block
// tile (BM x BN = 64 x 64 from 512 threads) halves global traffic per FLOP again. The strip runs
// along N, not M: in BLAS column-major C the warp must stay contiguous along M for coalesced
// stores and conflict-free op(A) reads, so this is the mirror image of the row-major "column of
// TM results" in the classic ladder (seed 004's source).
//
// Tile: BM x BN x BK = 64 x 64 x 8, TN = 8 results per thread, 512 threads. Thread t owns
// m = t % BM and n = (t / BM) * TN + j, j < TN. Shared memory: two (8, 64+4) float tiles, 4.4 KB.
// Layouts: all four. Constraints: none (any M, N, K >= 1; edges zero-filled and guarded).
// Measured on an H100 80GB HBM3, 2026-11-22, NN, cold L2, vs cuBLAS SGEMM with TF32 off,
// from bench_results/h100/2026-11-22_sgemm_ladder.json.gz (git 6c33131476ee):
//   sgemm_blocktile_1d: 1024^3 15.7 TFLOP/s (0.455x), 2048^3 18.6 TFLOP/s (0.368x), 4096^3 18.8
//     TFLOP/s (0.364x), 5120x4096x4096 19.3 TFLOP/s (0.371x)
#include <cstdint>
#include <string>

#include "core/registry.hpp"
#include "sgemm/launch.cuh"

namespace gemmbench {
namespace {

using sgemm::load_tile;

template <int BM, int BN, int BK, int TN, bool A_K_MAJOR, bool B_K_MAJOR>
__global__ void __launch_bounds__(BM* BN / TN)
    sgemm_blocktile_1d_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                              int64_t lda, const float* __restrict__ B, int64_t ldb, float beta,
                              float* __restrict__ C, int64_t ldc) {
  static_assert(BM % 32 == 0,
                "BM must be a multiple of 32 so a warp shares one n-strip: its op(B) reads are "
                "then broadcasts and its op(A) reads 32 consecutive words");
  static_assert(BN % TN == 0, "BN must be a multiple of TN: each thread owns a full strip");
  static_assert(BK == 8 && (BM + 4) % 32 == 4 && (BN + 4) % 32 == 4,
                "the conflict-free transposing store in load_tile assumes BK = 8 and row "
                "strides of 4 (mod 32)");
  constexpr int THREADS = BM * BN / TN;
  static_assert(THREADS <= 1024, "BM*BN/TN threads must fit in a block");
  constexpr int LDA = BM + 4;
  constexpr int LDB = BN + 4;

  __shared__ float as[BK * LDA];  // (BM,BK) op(A) tile, smem [BK][BM+4], m contiguous
  __shared__ float bs[BK * LDB];  // (BK,BN) op(B) tile, smem [BK][BN+4], n contiguous

  const int tid = threadIdx.x;
  const int tm = tid % BM;  // row of C within the tile
  const int tn = tid / BM;  // which TN-wide strip of columns
  const int m0 = blockIdx.x * BM;
  const int n0 = blockIdx.y * BN;

  float acc[TN] = {};  // (1,TN) registers: C(m0+tm, n0+tn*TN+j)
  // MAINLOOP
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tile<BM, BK, LDA, THREADS, A_K_MAJOR, false>(A, lda, M, K, m0, k0, as, tid);
    load_tile<BN, BK, LDB, THREADS, B_K_MAJOR, false>(B, ldb, N, K, n0, k0, bs, tid);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float a = as[k * LDA + tm];  // reused TN times from a register
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[j] += a * bs[k * LDB + tn * TN + j];
    }
    __syncthreads();
  }

  // EPILOGUE: a warp stores 32 consecutive m of one column per instruction (coalesced).
  const int m = m0 + tm;
  if (m >= M) return;
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int n = n0 + tn * TN + j;
    if (n < N) {
      float* c = C + m + n * ldc;
      *c = beta == 0.f ? alpha * acc[j] : alpha * acc[j] + beta * *c;
    }
  }
}

// The tile this rung launches.
constexpr int kBM = 64, kBN = 64, kBK = 8, kTN = 8;

void launch(const GemmArgs& args, cudaStream_t stream) {
  sgemm::launch_on_grid<kBM, kBN>(
      args, stream, dim3(kBM * kBN / kTN), [](auto a_k, auto b_k, auto) {
        return sgemm_blocktile_1d_kernel<kBM, kBN, kBK, kTN, decltype(a_k)::value,
                                         decltype(b_k)::value>;
      });
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(sgemm::rung_info(
    "sgemm_blocktile_1d", 4,
    "64x64x8 smem tiles, each thread a strip of 8 C results (1D register blocking)", 50,
    sgemm::grid_supports<kBN>, launch));

}  // namespace gemmbench
