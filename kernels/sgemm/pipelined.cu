// sgemm_pipelined — SGEMM ladder, rung 8 (top).
//
// Adds a software pipeline to sgemm_warptile: the shared tiles have STAGES slots filled by
// cp.async (global -> shared without a round trip through registers, sm_80+), so while the warps
// compute on k-tile kt, tiles kt+1 .. kt+STAGES-1 are in flight; one barrier per k-tile publishes
// the next tile and frees a slot. Fragments are double-buffered in registers (LDS.128 of step k+1
// before the FFMAs of step k), and blocks are rasterized (seed 003) for L2 reuse. Shared tiles
// are k-outer [STAGES][BK][ROWS + 4]: 16-byte aligned rows, bank-conflict-free transposing copies.
// The loop is sgemm/mainloop.cuh (rung 9 runs it over parts of K); this file adds the raster and
// the epilogue. Tile: sgemm_pipelined 256x128x8, warps 64x64, 16x8 per thread, 3 stages (38 KB);
// variants sgemm_pipelined_128x128 (128x128x8, 8x8/thread, 2 blocks/SM) and sgemm_pipelined_128x64
// (128x64x8, 4 stages, 3 blocks/SM: the one to use at 1024^3).
// Constraints: sm_80+; any M, N, K >= 1 (VEC paths need 16-byte aligned leading dimensions).
// Measured (H100, 2026-11-22, NN 4096^3 vs cuBLAS SGEMM, TF32 off): 50.01 TFLOP/s (0.976x)
// (bench_results/h100/2026-11-22_sgemm_ladder.json); history: docs/sgemm.md.
#include <cstdint>
#include <string>

#include "common/raster.hpp"
#include "common/layout_dispatch.hpp"
#include "registry.hpp"
#include "sgemm/launch.cuh"
#include "sgemm/mainloop.cuh"

namespace gemmbench {
namespace {

// Largest rasterization width (seed 003's GemmIdentityThreadblockSwizzle<8>).
constexpr int kMaxSwizzle = 8;

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, bool VEC>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    sgemm_pipelined_kernel(const sgemm::Operands op, float alpha, float beta, float* __restrict__ C,
                           int64_t ldc, int log_tile) {
  const sgemm::Ring<Cfg> ring = sgemm::shared_ring<Cfg>();
  const int tiles_m = (op.m + Cfg::BM - 1) / Cfg::BM;
  const int tiles_n = (op.n + Cfg::BN - 1) / Cfg::BN;
  const TileCoord tile = raster_tile(blockIdx.x, blockIdx.y, log_tile);
  if (!raster_tile_valid(tile, tiles_m, tiles_n)) return;  // padding block of the raster grid
  const int m0 = tile.m * Cfg::BM;
  const int n0 = tile.n * Cfg::BN;
  const sgemm::ThreadTile th = sgemm::thread_tile<Cfg>(threadIdx.x);

  // PROLOGUE + MAINLOOP (sgemm/mainloop.cuh): every k-tile of the tile.
  float acc[Cfg::TM][Cfg::TN];  // (TM,TN) registers
  sgemm::mainloop<Cfg, A_K_MAJOR, B_K_MAJOR, VEC>(op, ring, m0, n0, 0,
                                                  (op.k + Cfg::BK - 1) / Cfg::BK, th, acc);

  // EPILOGUE
  sgemm::store_warp_tile<Cfg::TM, Cfg::TN, Cfg::LM, Cfg::LN, VEC>(
      acc, C, ldc, op.m, op.n, m0 + th.tm, n0 + th.tn, alpha, beta);
}

// 16-byte copies and float4 stores need 16-byte aligned rows: ldc and the leading dimension of
// every M/N-contiguous operand must be multiples of 4 floats (K-contiguous operands always
// use 4-byte copies), and the base pointers 16-byte aligned.
template <bool A_K_MAJOR, bool B_K_MAJOR>
bool can_vectorize(const GemmArgs& args) {
  const GemmProblem& p = args.problem;
  const auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; };
  return (A_K_MAJOR || p.lda() % 4 == 0) && (B_K_MAJOR || p.ldb() % 4 == 0) && p.ldc() % 4 == 0 &&
         aligned(args.a) && aligned(args.b) && aligned(args.c);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int MIN_BLOCKS>
struct Config {
  using Tile = sgemm::PipelinedTile<BM, BN, BK, WM, WN, TM, TN, STAGES, MIN_BLOCKS>;
  // Both tiles, k-outer with the 4-float pad, STAGES deep; the kernel takes it as dynamic
  // shared memory only past 48 KB.
  static constexpr int SMEM_BYTES = Tile::SMEM_BYTES;
  static constexpr int DYNAMIC_SMEM_BYTES = Tile::DYNAMIC_SMEM;

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
    const auto kernel = sgemm_pipelined_kernel<Tile, A_K_MAJOR, B_K_MAJOR, VEC>;
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
    const sgemm::Operands op{static_cast<const float*>(args.a),
                             p.lda(),
                             static_cast<const float*>(args.b),
                             p.ldb(),
                             int(p.m),
                             int(p.n),
                             int(p.k)};
    kernel<<<grid, Tile::THREADS, DYNAMIC_SMEM_BYTES, stream>>>(
        op, args.alpha, args.beta, static_cast<float*>(args.c), p.ldc(), log_tile);
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
// 5120x4096x4096 (bench_results/h100/2026-11-22_sgemm_ladder.json): 256x128x8, 3 stages.
GEMMBENCH_REGISTER_KERNEL(variant<Tall>(
    "sgemm_pipelined", "rung 7 + 3-stage cp.async pipeline, 256x128x8, warps 64x64, 16x8/thread"));
GEMMBENCH_REGISTER_KERNEL(variant<Default>(
    "sgemm_pipelined_128x128", "cp.async 3-stage, 128x128x8, warps 64x32, 8x8/thread, 2 blk/SM"));
GEMMBENCH_REGISTER_KERNEL(variant<Small>("sgemm_pipelined_128x64",
                                         "cp.async 4-stage, 128x64x8, warps 64x32, 8x8/thread"));

}  // namespace gemmbench
