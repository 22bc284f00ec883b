// sgemm_warptile — SGEMM ladder, rung 7.
//
// Adds warp tiling to sgemm_vectorized. There, thread t owns a contiguous 8 x 8 block of C, so
// the 16 threads of a warp that differ along M read op(A) float4s 32 bytes apart: each LDS.128
// spans 512 bytes (4 shared-memory wavefronts) and each float4 store of C leaves gaps. Here the
// block tile is cut into warp tiles (WM x WN), and each warp's 32 lanes are laid out LM x LN
// over its warp tile; a thread's TM x TN results are (TM/4) x (TN/4) sub-tiles of 4 x 4 that sit
// LM*4 rows and LN*4 columns apart. For one k, the LM lanes along M read LM consecutive float4s
// of op(A) (128 contiguous bytes for LM = 8: one wavefront, no bank conflict) while the lanes
// along N read the same words (broadcast), and likewise for op(B). C stores become 128-byte
// runs per column. The work per thread and the FFMA:LDS ratio stay those of rung 6; the gain is
// fewer shared-memory wavefronts per FFMA and better-coalesced stores, and the warp becomes
// the unit the next rung pipelines.
//
// Index map for the default variant (BM x BN x BK = 128 x 128 x 8, WM x WN = 64 x 32, TM x TN =
// 8 x 8, so LM x LN = 8 x 4 lanes and 2 x 4 warps, 256 threads): thread t = 32 w + l has warp
// (wm, wn) = (w % 2, w / 2) and lane (lm, ln) = (l % 8, l / 8); it owns C rows
// wm*64 + q*32 + lm*4 + i (q < 2, i < 4) and columns wn*32 + p*16 + ln*4 + j (p < 2, j < 4).
// E.g. t = 77: w = 2, l = 13 -> (wm, wn) = (0, 1), (lm, ln) = (5, 1) -> rows 20..23, 52..55,
// columns 36..39, 52..55.
//
// Variant: sgemm_warptile_128x64 (4 warps of 64 x 32; more blocks for mid-size problems). Shared
// memory: (8, BM+4) + (8, BN+4) floats, 8.4 KB for 128 x 128. Layouts: all four. Constraints: none.
// As in rung 6, the 128-bit path needs lda, ldb and ldc to be multiples of 4 floats and 16-byte
// aligned pointers; otherwise the launcher picks the same kernel with VEC = false (scalar,
// predicated copies and stores). Measured on an H100 80GB HBM3, 2026-11-22, NN, cold L2, vs cuBLAS
// SGEMM with TF32 off, from bench_results/h100/2026-11-22_sgemm_ladder.json.gz (git 6c33131476ee):
//   sgemm_warptile: 1024^3 11.1 TFLOP/s (0.322x), 2048^3 36.8 TFLOP/s (0.728x), 4096^3 36.9
//     TFLOP/s (0.714x), 5120x4096x4096 37.2 TFLOP/s (0.717x)
//   sgemm_warptile_128x64: 1024^3 16.4 TFLOP/s (0.476x), 2048^3 37.7 TFLOP/s (0.746x), 4096^3
//     37.7 TFLOP/s (0.730x), 5120x4096x4096 37.9 TFLOP/s (0.730x)
#include <cstdint>
#include <string>

#include "core/registry.hpp"
#include "sgemm/launch.cuh"

namespace gemmbench {
namespace {

using sgemm::load_tile;
using sgemm::unpack;

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool A_K_MAJOR, bool B_K_MAJOR,
          bool VEC>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN))
    sgemm_warptile_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                          int64_t lda, const float* __restrict__ B, int64_t ldb, float beta,
                          float* __restrict__ C, int64_t ldc) {
  static_assert(BM % WM == 0 && BN % WN == 0, "the block tile is a whole number of warp tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 float4 sub-tiles");
  static_assert(WM % TM == 0 && WN % TN == 0 && (WM / TM) * (WN / TN) == 32,
                "the warp tile must hold exactly 32 thread tiles: LM x LN = 32 lanes");
  constexpr int LM = WM / TM;  // lanes along M in a warp
  constexpr int LN = WN / TN;  // lanes along N in a warp
  static_assert(LM * 4 <= 32 && LN * 4 <= 32,
                "one fragment read spans LM (or LN) float4s: at most 128 bytes, one wavefront");
  constexpr int WARPS_M = BM / WM;
  constexpr int THREADS = 32 * WARPS_M * (BN / WN);
  static_assert(BK == 8 && (BM + 4) % 32 == 4 && (BN + 4) % 32 == 4,
                "the conflict-free transposing stores assume BK = 8 and row strides of "
                "4 (mod 32); the strides also keep rows 16-byte aligned for LDS.128");
  constexpr int LDA = BM + 4;
  constexpr int LDB = BN + 4;

  alignas(16) __shared__ float as[BK * LDA];  // (BM,BK) op(A) tile, smem [BK][BM+4], m contiguous
  alignas(16) __shared__ float bs[BK * LDB];  // (BK,BN) op(B) tile, smem [BK][BN+4], n contiguous

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  // First row / column of the thread's first 4x4 sub-tile, relative to the block tile; sub-tile
  // (q, p) is offset by (q * LM * 4, p * LN * 4).
  const int tm = (warp % WARPS_M) * WM + (lane % LM) * 4;
  const int tn = (warp / WARPS_M) * WN + (lane / LM) * 4;
  const int m0 = blockIdx.x * BM;
  const int n0 = blockIdx.y * BN;

  // C(m0 + tm + (i/4)*LM*4 + i%4, n0 + tn + (j/4)*LN*4 + j%4) is acc[i][j].
  float acc[TM][TN] = {};  // (TM,TN) registers
  float a_frag[TM];        // (TM) registers: op(A) rows of the thread's sub-tiles, one k
  float b_frag[TN];        // (TN) registers: op(B) columns of the thread's sub-tiles, one k

  // MAINLOOP
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tile<BM, BK, LDA, THREADS, A_K_MAJOR, VEC>(A, lda, M, K, m0, k0, as, tid);
    load_tile<BN, BK, LDB, THREADS, B_K_MAJOR, VEC>(B, ldb, N, K, n0, k0, bs, tid);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int q = 0; q < TM / 4; ++q)
        unpack(*reinterpret_cast<const float4*>(&as[k * LDA + tm + q * LM * 4]), &a_frag[4 * q]);
#pragma unroll
      for (int p = 0; p < TN / 4; ++p)
        unpack(*reinterpret_cast<const float4*>(&bs[k * LDB + tn + p * LN * 4]), &b_frag[4 * p]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
    }
    __syncthreads();
  }

  // EPILOGUE
  sgemm::store_warp_tile<TM, TN, LM, LN, VEC>(acc, C, ldc, M, N, m0 + tm, n0 + tn, alpha, beta);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
void launch(const GemmArgs& args, cudaStream_t stream) {
  sgemm::launch_on_grid<BM, BN>(
      args, stream, dim3(32 * (BM / WM) * (BN / WN)), [](auto a_k, auto b_k, auto vec) {
        return sgemm_warptile_kernel<BM, BN, BK, WM, WN, TM, TN, decltype(a_k)::value,
                                     decltype(b_k)::value, decltype(vec)::value>;
      });
}

}  // namespace

// BM, BN, BK, WM, WN, TM, TN
GEMMBENCH_REGISTER_KERNEL(sgemm::rung_info(
    "sgemm_warptile", 7, "rung 6 + warp tiles (64x32 per warp, 8x8 per thread), 128x128x8", 50,
    sgemm::grid_supports<128>, launch<128, 128, 8, 64, 32, 8, 8>));
GEMMBENCH_REGISTER_KERNEL(sgemm::rung_info("sgemm_warptile_128x64", 7,
                                           "warp-tiled 128x64x8, 4 warps of 64x32, 8x8 per thread",
                                           50, sgemm::grid_supports<64>,
                                           launch<128, 64, 8, 64, 32, 8, 8>));

}  // namespace gemmbench
