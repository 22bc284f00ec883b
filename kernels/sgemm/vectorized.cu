// sgemm_vectorized — SGEMM ladder, rung 6.
//
// Adds 128-bit memory accesses to sgemm_blocktile_2d. Global loads of both tiles become float4
// (LDG.128: a quarter of the load instructions), the thread's fragments are read as float4 from
// shared memory (LDS.128) and C is stored as float4 (STG.128). Vector loads run along whichever
// dimension is contiguous in global memory, but the inner loop wants both shared tiles k-outer,
// with 4 consecutive m (or n) values per 16 bytes. An operand that is M- or N-contiguous in
// global memory (op(A) in NN) lands as it is: one float4 in, one float4 out. A K-contiguous
// operand (op(B) in NN) brings 4 consecutive k of one column per float4; the copy transposes it,
// scattering the 4 values down 4 rows of the tile, so that the inner loop's reads still
// vectorize. This is the classic ladder's "transposed A tile": its row-major C = A B is our
// column-major C^T = B^T A^T, so its K-contiguous A is our K-contiguous op(B). The row stride
// LD = 128 + 4 keeps the scattering stores conflict-free (the 32 threads of a warp write 16
// columns x 2 row groups: banks 16*group + 4*j + column, all distinct) and every row 16-byte
// aligned for LDS.128.
//
// Tile: BM x BN x BK = 128 x 128 x 8, TM x TN = 8 x 8 per thread, 256 threads (as rung 5).
// Shared memory: two (8, 128+4) float tiles, 8.4 KB.
// Layouts: all four. Constraints: none. The 128-bit path needs every leading dimension (lda,
// ldb, ldc) to be a multiple of 4 floats and 16-byte aligned base pointers: then a float4 along
// a contiguous dimension is either wholly inside the matrix or wholly outside. Otherwise the
// launcher picks the same kernel with VEC = false: scalar, predicated loads and stores.
// Measured on an H100 80GB HBM3, 2026-11-22, NN, cold L2, vs cuBLAS SGEMM with TF32 off,
// from bench_results/h100/2026-11-22_sgemm_ladder.json.gz (git 6c33131476ee):
//   sgemm_vectorized: 1024^3 10.4 TFLOP/s (0.306x), 2048^3 34.4 TFLOP/s (0.679x), 4096^3 34.6
//     TFLOP/s (0.670x), 5120x4096x4096 34.8 TFLOP/s (0.671x)
#include <cstdint>
#include <string>

#include "core/registry.hpp"
#include "sgemm/launch.cuh"

namespace gemmbench {
namespace {

using sgemm::load_tile;
using sgemm::unpack;

template <int BM, int BN, int BK, int TM, int TN, bool A_K_MAJOR, bool B_K_MAJOR, bool VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    sgemm_vectorized_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                            int64_t lda, const float* __restrict__ B, int64_t ldb, float beta,
                            float* __restrict__ C, int64_t ldc) {
  static_assert(BM % TM == 0 && BN % TN == 0, "the block tile is a whole number of thread tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as float4: TM, TN multiples of 4");
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
  static_assert(BK == 8 && (BM + 4) % 32 == 4 && (BN + 4) % 32 == 4,
                "the conflict-free transposing stores assume BK = 8 and row strides of "
                "4 (mod 32); the strides also keep rows 16-byte aligned for LDS.128");
  constexpr int LDA = BM + 4;
  constexpr int LDB = BN + 4;

  alignas(16) __shared__ float as[BK * LDA];  // (BM,BK) op(A) tile, smem [BK][BM+4], m contiguous
  alignas(16) __shared__ float bs[BK * LDB];  // (BK,BN) op(B) tile, smem [BK][BN+4], n contiguous

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
    load_tile<BM, BK, LDA, THREADS, A_K_MAJOR, VEC>(A, lda, M, K, m0, k0, as, tid);
    load_tile<BN, BK, LDB, THREADS, B_K_MAJOR, VEC>(B, ldb, N, K, n0, k0, bs, tid);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int q = 0; q < TM / 4; ++q)
        unpack(reinterpret_cast<const float4*>(&as[k * LDA + tm * TM])[q], &a_frag[4 * q]);
#pragma unroll
      for (int q = 0; q < TN / 4; ++q)
        unpack(reinterpret_cast<const float4*>(&bs[k * LDB + tn * TN])[q], &b_frag[4 * q]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
    }
    __syncthreads();
  }

  // EPILOGUE: C is column-major, so a thread's TM rows of one column are contiguous: float4
  // stores when VEC (ldc % 4 == 0 and M % 4 == 0: a float4 is wholly in or out of C). The thread
  // tile is one contiguous TM x TN block, i.e. the warp-tiled epilogue with lane strides 1.
  sgemm::store_warp_tile<TM, TN, 1, 1, VEC>(acc, C, ldc, M, N, m0 + tm * TM, n0 + tn * TN, alpha,
                                            beta);
}

// The tile this rung launches.
constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;

void launch(const GemmArgs& args, cudaStream_t stream) {
  sgemm::launch_on_grid<kBM, kBN>(
      args, stream, dim3((kBM / kTM) * (kBN / kTN)), [](auto a_k, auto b_k, auto vec) {
        return sgemm_vectorized_kernel<kBM, kBN, kBK, kTM, kTN, decltype(a_k)::value,
                                       decltype(b_k)::value, decltype(vec)::value>;
      });
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(sgemm::rung_info(
    "sgemm_vectorized", 6,
    "rung 5 + float4 global loads/stores, K-contiguous operand transposed into smem", 50,
    sgemm::grid_supports<kBN>, launch));

}  // namespace gemmbench
