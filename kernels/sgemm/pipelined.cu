// sgemm_pipelined — SGEMM ladder, rung 8 (top).
//
// Adds a software pipeline to sgemm_warptile: the shared tiles have STAGES slots filled by
// cp.async (global -> shared without a round trip through registers, sm_80+), so while the warps
// compute on k-tile kt, tiles kt+1 .. kt+STAGES-1 are in flight; one barrier per k-tile publishes
// the next tile and frees a slot. Fragments are double-buffered in registers (LDS.128 of step k+1
// before the FFMAs of step k), and blocks are rasterized (seed 003) for L2 reuse. Shared tiles
// are k-outer [STAGES][BK][ROWS + 4]: 16-byte aligned rows, bank-conflict-free transposing copies.
// Tile: sgemm_pipelined 256x128x8, warps 64x64, 16x8 per thread, 3 stages (38 KB); variants
// sgemm_pipelined_128x128 (128x128x8, 8x8/thread, 2 blocks/SM) and sgemm_pipelined_128x64
// (128x64x8, 4 stages, 3 blocks/SM: the one to use at 1024^3).
// Constraints: sm_80+; any M, N, K >= 1 (VEC paths need 16-byte aligned leading dimensions).
// Measured (H100, 2026-11-22, NN 4096^3 vs cuBLAS SGEMM, TF32 off): 50.01 TFLOP/s (0.976x)
// (bench_results/h100/2026-11-22_sgemm_ladder.json.gz); history: docs/sgemm.md.
#include <cstdint>
#include <string>

#include "common/ptx.cuh"
#include "common/align.hpp"
#include "common/raster.hpp"
#include "common/layout_dispatch.hpp"
#include "core/registry.hpp"
#include "sgemm/launch.cuh"
#include "sgemm/stage_copy.cuh"

namespace gemmbench {
namespace {

// Largest rasterization width (seed 003's GemmIdentityThreadblockSwizzle<8>).
constexpr int kMaxSwizzle = 8;

// Reads one k-row of the thread's fragments: TM/4 float4s of op(A) LM*4 apart and TN/4 float4s
// of op(B) LN*4 apart (each one LDS.128).
template <int TM, int TN, int LM, int LN>
__device__ __forceinline__ void load_fragments(const float* a_row, const float* b_row,
                                               float (&a)[TM], float (&b)[TN]) {
#pragma unroll
  for (int q = 0; q < TM / 4; ++q) {
    const float4 v = *reinterpret_cast<const float4*>(a_row + q * LM * 4);
    a[4 * q + 0] = v.x;
    a[4 * q + 1] = v.y;
    a[4 * q + 2] = v.z;
    a[4 * q + 3] = v.w;
  }
#pragma unroll
  for (int p = 0; p < TN / 4; ++p) {
    const float4 v = *reinterpret_cast<const float4*>(b_row + p * LN * 4);
    b[4 * p + 0] = v.x;
    b[4 * p + 1] = v.y;
    b[4 * p + 2] = v.z;
    b[4 * p + 3] = v.w;
  }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int MIN_BLOCKS,
          bool A_K_MAJOR, bool B_K_MAJOR, bool VEC>
__global__ void __launch_bounds__(32 * (BM / WM) * (BN / WN), MIN_BLOCKS)
    sgemm_pipelined_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                           int64_t lda, const float* __restrict__ B, int64_t ldb, float beta,
                           float* __restrict__ C, int64_t ldc, int log_tile) {
  static_assert(BM % WM == 0 && BN % WN == 0, "the block tile is a whole number of warp tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 float4 sub-tiles");
  static_assert(WM % TM == 0 && WN % TN == 0 && (WM / TM) * (WN / TN) == 32,
                "the warp tile must hold exactly 32 thread tiles: LM x LN = 32 lanes");
  constexpr int LM = WM / TM;  // lanes along M in a warp
  constexpr int LN = WN / TN;  // lanes along N in a warp
  static_assert(LM * 4 <= 32 && LN * 4 <= 32,
                "one fragment read spans LM (or LN) float4s: at most 128 bytes, one wavefront");
  static_assert(BK % 8 == 0, "the transposing copy moves blocks of 8 k x 4 columns");
  static_assert(BM % 32 == 0 && BN % 32 == 0,
                "row strides ROWS + 4 must be 4 (mod 32) words for conflict-free transposing "
                "copies, and multiples of 4 for 16-byte aligned LDS.128");
  static_assert(STAGES >= 2, "a pipeline needs at least two shared-memory stages");
  constexpr int WARPS_M = BM / WM;
  constexpr int THREADS = 32 * WARPS_M * (BN / WN);
  constexpr int LDA = BM + 4;
  constexpr int LDB = BN + 4;

  // Static shared memory while it fits in 48 KB (ptxas then knows the tiles' addresses, which
  // saves registers), dynamic past it (the launcher opts in).
  using ATiles = float[STAGES][BK][LDA];
  using BTiles = float[STAGES][BK][LDB];
  ATiles* a_tiles;
  BTiles* b_tiles;
  if constexpr (sizeof(ATiles) + sizeof(BTiles) <= 48 * 1024) {
    alignas(16) __shared__ ATiles a_static;
    alignas(16) __shared__ BTiles b_static;
    a_tiles = &a_static;
    b_tiles = &b_static;
  } else {
    extern __shared__ float4 dynamic_tiles[];
    a_tiles = reinterpret_cast<ATiles*>(dynamic_tiles);
    b_tiles =
        reinterpret_cast<BTiles*>(reinterpret_cast<float*>(dynamic_tiles) + STAGES * BK * LDA);
  }
  ATiles& as = *a_tiles;  // (BM,BK,STAGES) op(A), k-outer, m contiguous
  BTiles& bs = *b_tiles;  // (BK,BN,STAGES) op(B), k-outer, n contiguous

  const int tiles_m = (M + BM - 1) / BM;
  const int tiles_n = (N + BN - 1) / BN;
  const TileCoord tile = raster_tile(blockIdx.x, blockIdx.y, log_tile);
  if (!raster_tile_valid(tile, tiles_m, tiles_n)) return;  // padding block of the raster grid
  const int m0 = tile.m * BM;
  const int n0 = tile.n * BN;

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  // First row / column of the thread's first 4x4 sub-tile within the block tile; sub-tile (q, p)
  // is offset by (q * LM * 4, p * LN * 4).
  const int tm = (warp % WARPS_M) * WM + (lane % LM) * 4;
  const int tn = (warp / WARPS_M) * WN + (lane / LM) * 4;

  const int k_tiles = (K + BK - 1) / BK;

  // PROLOGUE: put k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past
  // the last tile keep the group count, and so cp_async_wait's meaning, uniform).
  sgemm::StageCopy<BM, BK, LDA, THREADS, A_K_MAJOR, VEC> a_copy(A, lda, M, m0, 0, tid);
  sgemm::StageCopy<BN, BK, LDB, THREADS, B_K_MAJOR, VEC> b_copy(B, ldb, N, n0, 0, tid);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    sgemm::copy_stage(s, K / BK, k_tiles, K - s * BK, a_copy, b_copy, &as[s][0][0], &bs[s][0][0], A,
                      lda, B, ldb);
    ptx::cp_async_commit();
  }
  ptx::cp_async_wait<STAGES - 2>();  // tile 0 has landed (for this thread's copies) ...
  __syncthreads();                   // ... and for everyone's

  // C(m0 + tm + (i/4)*LM*4 + i%4, n0 + tn + (j/4)*LN*4 + j%4) is acc[i][j].
  float acc[TM][TN] = {};  // (TM,TN) registers
  float a_frag[2][TM];     // (2,TM) registers: op(A) fragments, double-buffered over k
  float b_frag[2][TN];     // (2,TN) registers: op(B) fragments, double-buffered over k
  load_fragments<TM, TN, LM, LN>(&as[0][0][tm], &bs[0][0][tn], a_frag[0], b_frag[0]);

  int read_stage = 0;            // slot holding tile kt
  int write_stage = STAGES - 1;  // slot tile kt + STAGES - 1 is copied into (it held tile kt - 1)

  // MAINLOOP
  for (int kt = 0; kt < k_tiles; ++kt) {
    // The slot of tile kt-1 is free: every thread passed the barrier below (previous iteration)
    // after its last fragment read of that tile.
    sgemm::copy_stage(kt + STAGES - 1, K / BK, k_tiles, K - (kt + STAGES - 1) * BK, a_copy, b_copy,
                      &as[write_stage][0][0], &bs[write_stage][0][0], A, lda, B, ldb);
    ptx::cp_async_commit();

#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk == BK - 1) {
        // Fragments of step BK-1 are already in registers; move to tile kt+1. Groups committed
        // so far: STAGES - 1 + kt + 1; waiting until at most STAGES - 2 are pending completes
        // the first kt + 2, i.e. tiles 0 .. kt+1. The barrier publishes tile kt+1 and marks
        // the end of all reads of tile kt.
        ptx::cp_async_wait<STAGES - 2>();
        __syncthreads();
        read_stage = read_stage == STAGES - 1 ? 0 : read_stage + 1;
        write_stage = write_stage == STAGES - 1 ? 0 : write_stage + 1;
      }
      // Prefetch step kk+1 (step 0 of tile kt+1 at the end of a tile; on the last tile that
      // reads a slot no copy is pending on, and the values are never used).
      const int k_next = (kk + 1) % BK;
      load_fragments<TM, TN, LM, LN>(&as[read_stage][k_next][tm], &bs[read_stage][k_next][tn],
                                     a_frag[(kk + 1) % 2], b_frag[(kk + 1) % 2]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[kk % 2][i] * b_frag[kk % 2][j];
    }
  }
  ptx::cp_async_wait<0>();  // only empty groups remain; leave nothing in flight at exit

  // EPILOGUE
  sgemm::store_warp_tile<TM, TN, LM, LN, VEC>(acc, C, ldc, M, N, m0 + tm, n0 + tn, alpha, beta);
}

// 16-byte copies and float4 stores need 16-byte aligned rows: ldc and the leading dimension of
// every M/N-contiguous operand must be multiples of 4 floats (K-contiguous operands always
// use 4-byte copies), and the base pointers 16-byte aligned.
template <bool A_K_MAJOR, bool B_K_MAJOR>
bool can_vectorize(const GemmArgs& args) {
  const GemmProblem& p = args.problem;
  return (A_K_MAJOR || p.lda() % 4 == 0) && (B_K_MAJOR || p.ldb() % 4 == 0) && p.ldc() % 4 == 0 &&
         aligned16(args.a) && aligned16(args.b) && aligned16(args.c);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int MIN_BLOCKS>
struct Config {
  // Both tiles, k-outer with the 4-float pad, STAGES deep; the kernel takes it as dynamic
  // shared memory only past 48 KB.
  static constexpr int SMEM_BYTES = STAGES * BK * (BM + 4 + BN + 4) * 4;
  static constexpr int DYNAMIC_SMEM_BYTES = SMEM_BYTES > 48 * 1024 ? SMEM_BYTES : 0;

  static std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
    if (p.m > INT32_MAX || p.n > INT32_MAX || p.k > INT32_MAX)
      return "M, N and K must fit in 32-bit int (tile indices are int)";
    const int tiles_n = int((p.n + BN - 1) / BN);
    if (raster_grid(1, tiles_n, raster_log_tile(tiles_n, kMaxSwizzle)).y > 65535)
      return "N is too large for the grid's y dimension (65535 blocks)";
    if (caps.smem_per_block_optin != 0 && caps.smem_per_block_optin < size_t(SMEM_BYTES))
      return "needs " + std::to_string(SMEM_BYTES) +
             " bytes of shared memory per block, the "
             "device allows " +
             std::to_string(caps.smem_per_block_optin);
    return "";
  }

  template <bool A_K_MAJOR, bool B_K_MAJOR, bool VEC>
  static void launch_kernel(const GemmArgs& args, cudaStream_t stream) {
    const auto kernel = sgemm_pipelined_kernel<BM, BN, BK, WM, WN, TM, TN, STAGES, MIN_BLOCKS,
                                               A_K_MAJOR, B_K_MAJOR, VEC>;
    // Past 48 KB a kernel must opt in to more dynamic shared memory: once per instantiation,
    // nothing on the timed path after the first call; a failure shows up as the launch error.
    if constexpr (SMEM_BYTES > 48 * 1024) {
      static const bool opted_in = [&] {
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        return true;
      }();
      (void)opted_in;
    }
    const GemmProblem& p = args.problem;
    const int tiles_m = int((p.m + BM - 1) / BM);
    const int tiles_n = int((p.n + BN - 1) / BN);
    const int log_tile = raster_log_tile(tiles_n, kMaxSwizzle);
    const RasterGrid rg = raster_grid(tiles_m, tiles_n, log_tile);
    const dim3 grid(unsigned(rg.x), unsigned(rg.y));
    const dim3 block(32 * (BM / WM) * (BN / WN));
    kernel<<<grid, block, DYNAMIC_SMEM_BYTES, stream>>>(
        int(p.m), int(p.n), int(p.k), args.alpha, static_cast<const float*>(args.a), p.lda(),
        static_cast<const float*>(args.b), p.ldb(), args.beta, static_cast<float*>(args.c), p.ldc(),
        log_tile);
  }

  template <bool A_K_MAJOR, bool B_K_MAJOR>
  static void launch_layout(const GemmArgs& args, cudaStream_t stream) {
    if (can_vectorize<A_K_MAJOR, B_K_MAJOR>(args))
      launch_kernel<A_K_MAJOR, B_K_MAJOR, true>(args, stream);
    else
      launch_kernel<A_K_MAJOR, B_K_MAJOR, false>(args, stream);
  }

  static void launch(const GemmArgs& args, cudaStream_t stream) {
    dispatch_layout(args.problem.layout, [&](auto a_k_major, auto b_k_major) {
      launch_layout<decltype(a_k_major)::value, decltype(b_k_major)::value>(args, stream);
    });
  }
};

template <class Cfg>
KernelInfo variant(std::string name, std::string summary) {
  return sgemm::rung_info(std::move(name), 8, std::move(summary), 80, Cfg::supports, Cfg::launch);
}

//                     BM   BN  BK  WM  WN  TM  TN STAGES MIN_BLOCKS
using Default = Config<128, 128, 8, 64, 32, 8, 8, 3, 2>;
using Tall = Config<256, 128, 8, 64, 64, 16, 8, 3, 1>;
using Small = Config<128, 64, 8, 64, 32, 8, 8, 4, 3>;

}  // namespace

// sgemm_pipelined is bound to the variant measured fastest on the H100 at 2048^3, 4096^3 and
// 5120x4096x4096 (bench_results/h100/2026-11-22_sgemm_ladder.json.gz): 256x128x8, 3 stages.
GEMMBENCH_REGISTER_KERNEL(variant<Tall>(
    "sgemm_pipelined", "rung 7 + 3-stage cp.async pipeline, 256x128x8, warps 64x64, 16x8/thread"));
GEMMBENCH_REGISTER_KERNEL(variant<Default>(
    "sgemm_pipelined_128x128", "cp.async 3-stage, 128x128x8, warps 64x32, 8x8/thread, 2 blk/SM"));
GEMMBENCH_REGISTER_KERNEL(variant<Small>("sgemm_pipelined_128x64",
                                         "cp.async 4-stage, 128x64x8, warps 64x32, 8x8/thread"));

}  // namespace gemmbench
