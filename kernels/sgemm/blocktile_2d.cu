// sgemm_blocktile_2d — SGEMM ladder, rung 5.
//
// Adds 2D register blocking to sgemm_blocktile_1d. A strip of TN results reuses one op(A) value
// TN times but still loads every op(B) value for a single use per thread. Here each thread
// computes a TM x TN tile of C as an outer product: per k it loads TM values of op(A) and TN of
// op(B) into registers and issues TM*TN FFMAs, so shared loads per FFMA drop from (1 + TN)/TN
// (1.125 for TN = 8) to (TM + TN)/(TM*TN) (0.25 for 8 x 8). The block tile grows to 128 x 128
// from 256 threads, which also halves global loads per FLOP. (ptxas already fuses the
// contiguous, 16-byte-aligned fragment reads into LDS.128.) Left for later rungs: global loads
// and C stores are scalar, and the thread's TM rows are contiguous, so the 16 threads along M of
// a warp read op(A) 32 bytes apart (4 wavefronts per LDS.128) and store C with a stride of 8.
//
// Tile: BM x BN x BK = 128 x 128 x 8, TM x TN = 8 x 8 per thread, 256 threads. Thread t owns
// m = (t % (BM/TM)) * TM + i and n = (t / (BM/TM)) * TN + j. Shared memory: two (8, 128+4) float
// tiles, 8.4 KB. Layouts: all four. Constraints: none (any M, N, K >= 1; edges zero-filled and
// guarded).
// Measured on an H100 80GB HBM3, 2026-11-22, NN, cold L2, vs cuBLAS SGEMM with TF32 off,
// from bench_results/h100/2026-11-22_sgemm_ladder.json.gz (git 6c33131476ee):
//   sgemm_blocktile_2d: 1024^3 10.7 TFLOP/s (0.310x), 2048^3 31.2 TFLOP/s (0.618x), 4096^3 31.5
//     TFLOP/s (0.610x), 5120x4096x4096 31.6 TFLOP/s (0.610x)
#include <cstdint>
#include <string>

#include "core/registry.hpp"
#include "sgemm/launch.cuh"

namespace gemmbench {
namespace {

using sgemm::load_tile;

template <int BM, int BN, int BK, int TM, int TN, bool A_K_MAJOR, bool B_K_MAJOR>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    sgemm_blocktile_2d_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                              int64_t lda, const float* __restrict__ B, int64_t ldb, float beta,
                              float* __restrict__ C, int64_t ldc) {
  static_assert(BM % TM == 0 && BN % TN == 0,
                "the block tile must be a whole number of thread tiles");
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
  static_assert(BK == 8 && (BM + 4) % 32 == 4 && (BN + 4) % 32 == 4,
                "the conflict-free transposing store in load_tile assumes BK = 8 and row "
                "strides of 4 (mod 32)");
  // A warp's transposing stores of a K-major operand cover 8 rows k x 4 columns r of the tile:
  // with row strides of 4 (mod 32) their banks are 4k + r, all 32 distinct.
  constexpr int LDA = BM + 4;
  constexpr int LDB = BN + 4;

  __shared__ float as[BK * LDA];  // (BM,BK) op(A) tile, smem [BK][BM+4], m contiguous
  __shared__ float bs[BK * LDB];  // (BK,BN) op(B) tile, smem [BK][BN+4], n contiguous

  const int tid = threadIdx.x;
  const int tm = tid % (BM / TM);  // thread row: C rows tm*TM .. tm*TM+TM-1 of the tile
  const int tn = tid / (BM / TM);  // thread column: C columns tn*TN .. tn*TN+TN-1
  const int m0 = blockIdx.x * BM;
  const int n0 = blockIdx.y * BN;

  float acc[TM][TN] = {};  // (TM,TN) registers: C(m0 + tm*TM + i, n0 + tn*TN + j)
  float a_frag[TM];        // (TM) registers: op(A)(tm*TM + i, k)
  float b_frag[TN];        // (TN) registers: op(B)(k, tn*TN + j)

  // MAINLOOP
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tile<BM, BK, LDA, THREADS, A_K_MAJOR, false>(A, lda, M, K, m0, k0, as, tid);
    load_tile<BN, BK, LDB, THREADS, B_K_MAJOR, false>(B, ldb, N, K, n0, k0, bs, tid);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) a_frag[i] = as[k * LDA + tm * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_frag[j] = bs[k * LDB + tn * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)  // outer product: TM*TN FFMAs from TM+TN shared loads
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
    }
    __syncthreads();
  }

  // EPILOGUE
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int n = n0 + tn * TN + j;
    if (n >= N) break;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int m = m0 + tm * TM + i;
      if (m < M) {
        float* c = C + m + n * ldc;
        *c = beta == 0.f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *c;
      }
    }
  }
}

// The tile this rung launches.
constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;

void launch(const GemmArgs& args, cudaStream_t stream) {
  sgemm::launch_on_grid<kBM, kBN>(
      args, stream, dim3((kBM / kTM) * (kBN / kTN)), [](auto a_k, auto b_k, auto) {
        return sgemm_blocktile_2d_kernel<kBM, kBN, kBK, kTM, kTN, decltype(a_k)::value,
                                         decltype(b_k)::value>;
      });
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(
    sgemm::rung_info("sgemm_blocktile_2d", 5,
                     "128x128x8 smem tiles, each thread an 8x8 C tile (2D register blocking)", 50,
                     sgemm::grid_supports<kBN>, launch));

}  // namespace gemmbench
