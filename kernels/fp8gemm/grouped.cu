// fp8gemm_grouped_sm90 — FP8 ladder, rung F3 for grouped GEMM: the experts of a Mixture-of-Experts
// layer with DeepSeek-V3's block128 scales in one persistent launch (docs/grouped.md, issue 51).
//
// Adds over rung F3 (fp8gemm/sm90_persistent.cu), whose orientation (wgmma M = the token rows)
// and block128 promotion (F2Mainloop, fp8gemm/sm90_mainloop.cuh) it runs unchanged, the grouped
// Hopper kernel's frame (hgemm/sm90/grouped.cu): one tile walk over all the groups
// (common/grouped_schedule.hpp), so that skewed groups spread over every SM; one tensor map of all
// G experts' weights [G*N, K] and one of all activation rows [stored_rows, K]
// (common/sm90/grouped_launch.hpp); a register epilogue that stores only the group's rows
// [first_row_g, first_row_g + M_g) and columns < N of C [stored_rows, N] row-major, alpha and beta
// in f32. Tokens as wgmma's M put a thread's two rows' A scales and the tile's one B scale per
// k-block in registers, as F3 does; C's rows are then the fragment's rows, N-contiguous pairs.
// Tile: 128 token rows (64 per consumer warpgroup) x 128 of N (one block of an expert's scales)
// x 128 of K (one scale block), 6 stages, one producer and two consumer warpgroups (384 threads).
// Persistent: one CTA per SM, CTA c takes tiles c, c + grid, ... A consumer whose 64 rows all lie
// past its group passes the tile's stages on without wgmma (F2Mainloop::skip).
// Constraints: sm_90a; e4m3 x e4m3; block128 scales; bf16 C; K % 16 == 0 (TMA row strides; a
// partial last k-block reads zeros past K); any N (an expert's partial last 128-row block is its
// own scale block; columns past N are computed from the next expert's rows and never stored);
// G*N, stored rows and tiles below 2^31. Both group layouts, any align.
// Status (2026-11-29, H200, sustained, each provider alone, DeepGEMM v1 by its plugin in the same
// reports; bench_results/h200/2026-11-29_moe_fp8_grouped_{first,masked}.json.gz): on the three MoE
// presets' expert layers, 0.893x DeepGEMM's contiguous kernel at 4096 tokens balanced and 0.938x
// at zipf:1.2 (Mixtral's large groups 0.85-0.88x, short K 0.86-0.90x balanced), 0.953x its masked
// kernel at 16 and 128 tokens; tests and compute-sanitizer clean (docs/grouped.md).
// Variant _tma (docs/grouped.md): the dense Hopper rungs' TMA-store epilogue
// (common/sm90/epilogue.cuh) for the register one. Each consumer packs its 64 x 128 fragment to
// bf16 into two 128B-swizzled 64 x 64 staging boxes, one thread stores them with TMA, and the wait
// for the boxes' reads is deferred to the consumer's next stored tile, so the store drains under
// the next mainloop. Whole 64-row boxes: only layouts where every row tile lies in its group's
// stored rows (each group's rows rounded up to --group-align whole 128-row tiles: align 128, or
// align 1 with groups of 128, 256, ... rows; --group-max-m a multiple of 128); N % 8 == 0;
// beta == 0. fp8gemm runs it on masked groupings where at least half the stored rows are the
// groups' own, and where _n192_tma refuses a contiguous one. Status (2026-11-29, H200, sustained;
// bench_results/h200/2026-11-29_moe_fp8_epi_ab.json.gz): 1.047x the register epilogue on such
// groupings (0.971-1.088), 0.990x where padding is most of the rows; 0.927x DeepGEMM's contiguous
// kernel at 4096 tokens balanced and 0.958x at zipf:1.2 (2026-11-29_moe_fp8_grouped_route);
// tests and compute-sanitizer clean.
// Variant _n192_tma: _tma on F3 _n192's 128 x 192 tile (wgmma m64n192k32, 4 stages beside three
// boxes per consumer), made for Mixtral's large groups, where DeepGEMM runs BLOCK_N 160; a tile
// spans two 128-row blocks of an expert's scales and each column takes its own block's
// (F2Mainloop's _n192 promotion). _tma's constraints, nothing more. fp8gemm runs it first on
// contiguous groupings whose rows are mostly their own. Status (2026-11-29, H200, sustained;
// bench_results/h200/2026-11-29_moe_fp8_n192_ab{,_repeat}.json.gz, _n192_route): 1.038x and
// 1.053x _tma at 4096 tokens balanced (0.995-1.118), 1.052x and 1.048x at zipf:1.2; through fp8gemm
// 0.989x DeepGEMM's contiguous kernel balanced and 1.020x at zipf:1.2 (Mixtral down 0.92-0.93x);
// tests and compute-sanitizer clean.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/grouped_schedule.hpp"
#include "common/occupancy.hpp"
#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "common/sm90/epilogue.cuh"
#include "common/sm90/grouped_launch.hpp"
#include "common/sm90/image.hpp"
#include "common/sm90/pipeline.cuh"
#include "common/sm90/producer.cuh"
#include "common/static_for.cuh"
#include "core/cuda_check.hpp"
#include "core/per_device.hpp"
#include "core/registry.hpp"
#include "fp8gemm/sm90_mainloop.cuh"
#include "fp8gemm/sm90_rules.hpp"

namespace gemmbench {
namespace {

// Rung F3's 128 x 128 tile and ring: BM the token rows (wgmma M, 64 per consumer), BN the rows of
// B (wgmma N). The register epilogue stages nothing, so the ring alone (+ 1024 for the swizzle
// alignment) is the dynamic shared memory, not F3Cfg's SMEM_BYTES with its store boxes. The _tma
// variant's boxes (two of 8 KB per consumer) fit beside the same six stages: F3Cfg's SMEM_BYTES,
// 225 KB. _n192_tma: F3's _n192 tile and ring, 4 stages of 40 KB beside three boxes per consumer
// (48 KB): 209 KB; a fifth stage would need 249.
using GroupedCfg = F3Cfg<128, 128, 6>;
using GroupedN192Cfg = F3Cfg<128, 192, 4>;
constexpr int kTileRows = GroupedCfg::BM, kTileN = GroupedCfg::BN;
constexpr int kTileN192 = GroupedN192Cfg::BN;
template <class Cfg>
constexpr int grouped_smem_bytes(bool tma_store) {
  return tma_store ? Cfg::SMEM_BYTES : Cfg::STAGES * int(Cfg::STAGE_BYTES) + 1024;
}
static_assert(kTileN == int(kScaleBlock) && kBK == int(kScaleBlock),
              "a tile is one 128-row block of an expert's scales along N and one along K");
static_assert(kTileN192 % 64 == 0 && kTileN192 <= 2 * int(kScaleBlock) - 64,
              "_n192: a tile starts on a 64-column boundary, so it spans at most two 128-row "
              "blocks of an expert's scales, the two F2Mainloop's _n192 promotion takes");
// The barriers (16 bytes a stage) are the static shared memory.
static_assert(grouped_smem_bytes<GroupedCfg>(true) + 2 * GroupedCfg::STAGES * 8 <= 227 * 1024,
              "the SM's shared memory: six stages and the _tma variant's staging boxes");
static_assert(grouped_smem_bytes<GroupedN192Cfg>(true) + 2 * GroupedN192Cfg::STAGES * 8 <=
                  227 * 1024,
              "the SM's shared memory: _n192_tma's four stages and its staging boxes");
template <class Cfg>
constexpr bool grouped_boxes_fit() {
  return Cfg::BM == kTileRows && Cfg::BM % Cfg::EPI_BOX == 0 && Cfg::WG_N == Cfg::EPI_BOX &&
         Cfg::EPI_BUFS * Cfg::EPI_BOX == Cfg::BN;
}
static_assert(grouped_boxes_fit<GroupedCfg>() && grouped_boxes_fit<GroupedN192Cfg>(),
              "_tma: a consumer's 64 rows are one box high, its BN columns BN / 64 boxes wide");
constexpr int kThreads = 128 * (1 + GroupedCfg::CONSUMERS);  // producer, two consumers
static_assert(GroupedN192Cfg::CONSUMERS == GroupedCfg::CONSUMERS, "one block size for all");

#if GEMMBENCH_SM90A
// The body of the three kernels, which differ in the epilogue and the tile width alone: kTmaStore
// stages each consumer's 64 x BN tile in shared memory and stores it with TMA through tmap_c (then
// a valid map), else store_tile_registers writes the group's rows from the fragment (tmap_c
// unread). Cfg: GroupedCfg (128 of N, one block of B's scales) or, with kTmaStore only,
// GroupedN192Cfg (192 of N, two blocks).
template <class Cfg, bool kTmaStore>
__device__ __forceinline__ void grouped_body(const CUtensorMap& tmap_x, const CUtensorMap& tmap_w,
                                             const CUtensorMap* tmap_c, __nv_bfloat16* c,
                                             const float* scale_a, const float* scale_b,
                                             const GroupedWalk& walk, const int64_t* first_row,
                                             const int* rows, int N, int64_t stored_rows,
                                             int k_blocks, float alpha, float beta) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES;
  static_assert(Cfg::CLUSTER == 1, "one CTA per tile: load_tile places the boxes of one CTA");
  using Mainloop = F2Mainloop<ScaleMode::block128, false, Cfg, true, kF3>;  // e4m3 x e4m3
  static_assert(Mainloop::NW == BN && !Mainloop::kSplitN, "each consumer on the whole B tile");
  static_assert(BN == kTileN || kTmaStore,
                "the register epilogue (store_tile_registers) is built at 128 columns only");

  // The barriers are the kernel's only static shared memory: supports() reads its size back to
  // learn that the driver picked this (sm_90a) image.
  __shared__ alignas(8) uint64_t full_bar[STAGES];   // TMA -> consumers: stage landed
  __shared__ alignas(8) uint64_t empty_bar[STAGES];  // consumer warps -> producer: stage free
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t s_a = smem;                                // (STAGES, BM x 128 B) SW128, tokens
  const uint32_t s_b = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, BN x 128 B) SW128, weights
  const uint32_t s_epi = smem + STAGES * Cfg::STAGE_BYTES;  // _tma: (2, BN/64, 64, 64) SW128

  const int wg = threadIdx.x / 128;  // warpgroup: 0 producer, 1..CONSUMERS consumers
  const int wg_thread = threadIdx.x % 128;
  const int tiles_total = grouped_tiles_total(walk);

  // ======== PROLOGUE ========
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbarrier_init(ptx::smem_u32(&full_bar[s]), 1);
      // F2Mainloop releases a stage per warp (release: lane 0 of each consumer warp).
      sm90::mbarrier_init(ptx::smem_u32(&empty_bar[s]), Cfg::CONSUMERS * 4);
    }
    sm90::fence_barrier_init();
    sm90::tma_prefetch_descriptor(&tmap_x);
    sm90::tma_prefetch_descriptor(&tmap_w);
    if constexpr (kTmaStore) sm90::tma_prefetch_descriptor(tmap_c);
  }
  __syncthreads();

  int stage = 0;
  uint32_t phase = 0;
  const Sm90Ring<STAGES> ring{full_bar, empty_bar, stage, phase};

  if (wg == 0) {
    // ======== PRODUCER (one thread issues every TMA; common/sm90/producer.cuh) ========
    sm90::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    if (wg_thread == 0) {
      using Producer = Sm90Producer<Cfg, true, true, false, kBK>;     // K-major, no cluster
      const Producer producer{&tmap_x, &tmap_w, s_a, s_b, 0, 0, 0u};  // load_tile places rows
      for (int t = blockIdx.x; t < tiles_total; t += gridDim.x) {
        const GroupedTile tile = grouped_tile(walk, t);
        // Both boxes start inside the group (row_tile * BM < M_g, n_tile * BN < N); rows past
        // the stored rows or past G*N read as zero.
        producer.load_tile(ring, int(first_row[tile.group]) + tile.row_tile * BM,
                           tile.group * N + tile.n_tile * BN, k_blocks);
      }
    }
    return;
  }

  // ======== CONSUMERS ========
  sm90::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
  // Warp-uniform: the wgmma descriptors built from it go in uniform registers.
  const int consumer = sm90::warp_uniform(wg - 1);  // which 64 token rows of the tile (wgmma M)
  const int warp = wg_thread / 32, lane = wg_thread % 32;
  const int q = lane % 4;
  const int own_row = consumer * Cfg::WG_N + 16 * warp + lane / 4;  // the tile's row for h = 0
  // 16-byte C stores need every row start (r * N) and the base 16-byte aligned.
  const bool vec = (N % 8 == 0) && (reinterpret_cast<uintptr_t>(c) % 16 == 0);
  Mainloop mainloop{ring, s_a, s_b, 0u, consumer, lane, q};
  float acc[Mainloop::NACC];  // (64 token rows, BN of N) per warpgroup, wgmma D fragment
  for (int t = blockIdx.x; t < tiles_total; t += gridDim.x) {
    const GroupedTile tile = grouped_tile(walk, t);
    const int row0 = tile.row_tile * BM;
    const int rows_left = rows[tile.group] - row0;  // (1 .. M_g) rows of the group from row0
    // A group's last row tile with at most 64 rows left: the second consumer's rows are all past
    // the group. It only passes the stages on, so the tensor pipe runs half the tile's work.
    // Warp-uniform, so that the branch keeps the wgmmas unserialized. _tma: the skip touches
    // neither its staging boxes nor its named barrier, and its stores still in flight stay
    // committed to its thread 0's bulk groups, for its next stored tile's wait (or the last).
    if (sm90::warp_uniform(rows_left <= consumer * Cfg::WG_N ? 1 : 0)) {
      mainloop.skip(k_blocks);
      continue;
    }
    const int64_t tile_row = first_row[tile.group] + row0;  // the tile's first stored row

    // ======== MAINLOOP (fp8gemm/sm90_mainloop.cuh): block128 promotion, F3's ========
    // This thread's two rows' A scales along K (rows past the stored rows, which only feed
    // outputs that are never stored, read the last stored row's) and the tile's block of expert
    // g's B scales: block row n_tile of its (tiles_n, k_blocks) grid.
    const auto row_scales = [&](int h) {
      const int64_t r = min(tile_row + own_row + 8 * h, stored_rows - 1);
      return scale_a + r * k_blocks;
    };
    mainloop.sa0 = row_scales(0);
    mainloop.sa1 = row_scales(1);
    if constexpr (BN == kTileN) {
      mainloop.sb = scale_b + (int64_t(tile.group) * walk.tiles_n + tile.n_tile) * k_blocks;
    } else {
      // _n192: expert g's scales are a (ceil(N / 128), k_blocks) grid, tiles_n counts 192-column
      // tiles. The tile's columns n0 .. n0 + 191 lie in blocks nb and nb + 1 (the second clamped
      // to the expert's last: its columns are past N, never stored), as the dense _n192 sets them
      // (fp8gemm/sm90_persistent.cu); F2Mainloop's promotion gives each column its block's.
      const int n0 = tile.n_tile * BN, nb = n0 / int(kScaleBlock);
      const int blocks_n = (N + int(kScaleBlock) - 1) / int(kScaleBlock);
      const float* expert = scale_b + int64_t(tile.group) * blocks_n * k_blocks;
      mainloop.sb = expert + int64_t(nb) * k_blocks;
      mainloop.sb_hi = expert + int64_t(min(nb + 1, blocks_n - 1)) * k_blocks;
      mainloop.mid_lo = n0 % int(kScaleBlock) == 0;  // columns 64..127 of the tile in block nb
    }
    mainloop.template run<0>(acc, k_blocks, [](auto) {});

    if constexpr (kTmaStore) {
      // ======== EPILOGUE: TMA stores of whole boxes (common/sm90/epilogue.cuh) ========
      // The fragment is rung 10's with its two GEMM dimensions renamed: C row-major
      // (stored_rows, N) is the column-major (N, stored_rows) of make_c_store_map, the boxes'
      // 128-byte rows are this consumer's 64 token rows and the box index runs along N. Box 0
      // first waits for this consumer's previous stored tile's boxes to have been read: the
      // deferred wait, so those stores drained under this tile's mainloop. A box starting past
      // N stores nothing; one crossing N, or the stored rows, is clipped by the map. Rows past
      // M_g are written: they lie in the group's own padding (supports_grouped: every row tile
      // inside the group's stored rows), never in another group's rows.
      const int box_row = int(tile_row) + consumer * Cfg::WG_N;  // (64, BN) this consumer's
      const int n0 = tile.n_tile * BN;
      const uint32_t s_epi_own = s_epi + consumer * Cfg::EPI_BUFS * Cfg::EPI_BUF_BYTES;
      uint32_t packed[Mainloop::NACC / 2];  // (64 rows, BN of N) bf16 pairs, alpha applied
      if (alpha == 1.f)
        pack_tile<__nv_bfloat16, false, false>(acc, alpha, packed);
      else
        pack_tile<__nv_bfloat16, false, true>(acc, alpha, packed);
      static_for<Cfg::EPI_BUFS>([&](auto box) {
        store_packed_box<decltype(box)::value, Cfg::EPI_BUFS, Cfg::EPI_BUFS>(
            packed, tmap_c, s_epi_own, Cfg::EPI_BUF_BYTES, n0, box_row, N, warp, lane, wg_thread,
            uint32_t(1 + consumer));
      });
    } else {
      // ======== EPILOGUE: the group's rows of the tile only (common/sm90/epilogue.cuh) ========
      // store_tile_registers sees the tile as column-major (its M = N columns contiguous, its
      // "N" the rows left in the group): it stores rows < rows_left and columns < N, nothing
      // else. The block scales are in the sums already: alpha alone remains, as in the dense F3.
      __nv_bfloat16* c_tile = c + tile_row * int64_t(N);  // (rows_left, N) row-major
      store_tile_registers<__nv_bfloat16, false, BN>(acc, c_tile, N, rows_left, own_row,
                                                     tile.n_tile * BN, q, vec, alpha, beta);
    }
  }
  // The CTA may not exit while its last stores still read the boxes (their global writes
  // complete by the kernel's end).
  if constexpr (kTmaStore)
    if (wg_thread == 0) sm90::bulk_wait_group_read<0>();
}
#endif  // GEMMBENCH_SM90A

__global__ void __launch_bounds__(kThreads, 1) fp8gemm_grouped_sm90_kernel(
    const __grid_constant__ CUtensorMap tmap_x,  // A activations (stored_rows, K): box (128, 128)
    const __grid_constant__ CUtensorMap tmap_w,  // B weights (G*N, K): box (128, 128)
    __nv_bfloat16* __restrict__ c,               // C (stored_rows, N) row-major
    const float* __restrict__ scale_a,           // (stored_rows, k_blocks) row-major
    const float* __restrict__ scale_b,           // (G, tiles_n, k_blocks): per expert, per block
    const GroupedWalk walk,                      // tile_prefix (G + 1), device; tiles_n
    const int64_t* __restrict__ first_row,       // (G) each group's first stored row
    const int* __restrict__ rows,                // (G) M_g
    int N, int64_t stored_rows, int k_blocks, float alpha, float beta) {
#if GEMMBENCH_SM90A
  grouped_body<GroupedCfg, false>(tmap_x, tmap_w, nullptr, c, scale_a, scale_b, walk, first_row,
                                  rows, N, stored_rows, k_blocks, alpha, beta);
#else
  // Not the sm_90a image: supports() keeps the runner from launching it.
  __trap();
#endif
}

// _tma: the same with C through its TMA-store map (beta == 0: C is never read).
__global__ void __launch_bounds__(kThreads, 1) fp8gemm_grouped_sm90_tma_kernel(
    const __grid_constant__ CUtensorMap tmap_x,  // A activations (stored_rows, K): box (128, 128)
    const __grid_constant__ CUtensorMap tmap_w,  // B weights (G*N, K): box (128, 128)
    const __grid_constant__ CUtensorMap tmap_c,  // C (stored_rows, N) row-major: box (64, 64)
    const float* __restrict__ scale_a,           // (stored_rows, k_blocks) row-major
    const float* __restrict__ scale_b,           // (G, tiles_n, k_blocks): per expert, per block
    const GroupedWalk walk,                      // tile_prefix (G + 1), device; tiles_n
    const int64_t* __restrict__ first_row,       // (G) each group's first stored row
    const int* __restrict__ rows,                // (G) M_g
    int N, int64_t stored_rows, int k_blocks, float alpha) {
#if GEMMBENCH_SM90A
  grouped_body<GroupedCfg, true>(tmap_x, tmap_w, &tmap_c, nullptr, scale_a, scale_b, walk,
                                 first_row, rows, N, stored_rows, k_blocks, alpha, 0.f);
#else
  __trap();
#endif
}

// _n192_tma: _tma on 192 columns of N a tile.
__global__ void __launch_bounds__(kThreads, 1) fp8gemm_grouped_sm90_n192_tma_kernel(
    const __grid_constant__ CUtensorMap tmap_x,  // A activations (stored_rows, K): box (128, 128)
    const __grid_constant__ CUtensorMap tmap_w,  // B weights (G*N, K): box (192, 128)
    const __grid_constant__ CUtensorMap tmap_c,  // C (stored_rows, N) row-major: box (64, 64)
    const float* __restrict__ scale_a,           // (stored_rows, k_blocks) row-major
    const float* __restrict__ scale_b,           // (G, ceil(N/128), k_blocks): 128-row blocks
    const GroupedWalk walk,                      // tile_prefix (G + 1), device; tiles_n (192s)
    const int64_t* __restrict__ first_row,       // (G) each group's first stored row
    const int* __restrict__ rows,                // (G) M_g
    int N, int64_t stored_rows, int k_blocks, float alpha) {
#if GEMMBENCH_SM90A
  grouped_body<GroupedN192Cfg, true>(tmap_x, tmap_w, &tmap_c, nullptr, scale_a, scale_b, walk,
                                     first_row, rows, N, stored_rows, k_blocks, alpha, 0.f);
#else
  __trap();
#endif
}

// Per device, once per kernel: the shared-memory limit raised, and the CTAs resident at once (the
// grid). The kernel itself is the template argument, so that each has its own cache: _tma and
// _n192_tma share one signature, and a cache keyed on Cfg and the type alone would leave a third
// kernel of that signature and Cfg launched without its limit raised (cudaErrorInvalidValue, as a
// band variant of _n192_tma was on 2026-11-30).
template <class Cfg, bool kTmaStore, auto kernel>
int grouped_resident_ctas() {
  static PerDevice<int> count;
  return count.get([](int dev) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    grouped_smem_bytes<Cfg>(kTmaStore)));
    return resident_ctas(kernel, kThreads, grouped_smem_bytes<Cfg>(kTmaStore), dev);
  });
}

void launch_grouped(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.scale != ScaleMode::block128 || !args.scale_a || !args.scale_b)
    throw std::invalid_argument("fp8gemm_grouped_sm90: needs the grouped block128 scales");
  const Sm90GroupedLaunch l =
      sm90_grouped_launch(args, "fp8gemm_grouped_sm90", kTileN, kTileRows,
                          grouped_resident_ctas<GroupedCfg, false, fp8gemm_grouped_sm90_kernel>());
  const GroupedLaunch& gl = *args.grouped;
  fp8gemm_grouped_sm90_kernel<<<l.ctas, kThreads, grouped_smem_bytes<GroupedCfg>(false), stream>>>(
      l.rows, l.weights, static_cast<__nv_bfloat16*>(args.c), args.scale_a, args.scale_b, l.walk,
      gl.first_row, gl.rows, int(p.n), gl.grouping->stored_rows(), int((p.k + kBK - 1) / kBK),
      args.alpha, args.beta);
}

// The TMA-store kernels (_tma, _n192_tma), named `name`, differ in Cfg's tile width alone: the
// walk's tiles_n and the weights' box height are Cfg::BN.
using TmaStoreKernel = decltype(&fp8gemm_grouped_sm90_tma_kernel);
template <class Cfg, TmaStoreKernel kernel>
void launch_tma_store(const GemmArgs& args, cudaStream_t stream, const char* name) {
  const GemmProblem& p = args.problem;
  if (p.scale != ScaleMode::block128 || !args.scale_a || !args.scale_b)
    throw std::invalid_argument(std::string(name) + ": needs the grouped block128 scales");
  const Sm90GroupedLaunch l = sm90_grouped_launch(args, name, Cfg::BN, kTileRows,
                                                  grouped_resident_ctas<Cfg, true, kernel>());
  const CUtensorMap map_c = sm90_grouped_c_store_map(args, name, Cfg::EPI_BOX);
  const GroupedLaunch& gl = *args.grouped;
  kernel<<<l.ctas, kThreads, grouped_smem_bytes<Cfg>(true), stream>>>(
      l.rows, l.weights, map_c, args.scale_a, args.scale_b, l.walk, gl.first_row, gl.rows, int(p.n),
      gl.grouping->stored_rows(), int((p.k + kBK - 1) / kBK), args.alpha);
}
void launch_grouped_tma(const GemmArgs& args, cudaStream_t stream) {
  launch_tma_store<GroupedCfg, fp8gemm_grouped_sm90_tma_kernel>(args, stream,
                                                                "fp8gemm_grouped_sm90_tma");
}
void launch_grouped_n192_tma(const GemmArgs& args, cudaStream_t stream) {
  launch_tma_store<GroupedN192Cfg, fp8gemm_grouped_sm90_n192_tma_kernel>(
      args, stream, "fp8gemm_grouped_sm90_n192_tma");
}

// The host checks all three kernels share (tile_n: the walk's tile width); the driver's answer
// for the image comes after each one's own.
std::string fp8_grouped_unsupported(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps,
                                    int tile_n) {
  // The Hopper, bf16 C, K % 16 and fast-accumulation checks of the dense FP8 rungs.
  if (std::string why = fp8_sm90_problem_unsupported(p, caps); !why.empty()) return why;
  if (p.dtype != DType::e4m3 || p.b_type() != DType::e4m3)
    return "e4m3 x e4m3 only (the grouped FP8 kernel is built for that pair alone)";
  if (p.scale != ScaleMode::block128)
    return "block128 scales only (DeepSeek-V3's FP8 experts); tensor and row are not built";
  return sm90_grouped_size_unsupported(p, g, tile_n, kTileRows);
}

std::string supports_grouped(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  if (std::string why = fp8_grouped_unsupported(p, g, caps, kTileN); !why.empty()) return why;
  return sm90a_image_unsupported(reinterpret_cast<const void*>(fp8gemm_grouped_sm90_kernel),
                                 size_t(grouped_smem_bytes<GroupedCfg>(false)), caps);
}

// _tma and _n192_tma: what whole-box TMA stores of C need beside (common/sm90/grouped_launch.hpp):
// beta == 0 (C is never read), 16-byte row strides, no row tile reaching past its group's stored
// rows. A 192-column tile needs nothing more: any N (a tile past N is clipped by the C map, its
// second block of scales clamped to the expert's last).
template <class Cfg>
std::string supports_tma_store(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps,
                               TmaStoreKernel kernel) {
  if (std::string why = fp8_grouped_unsupported(p, g, caps, Cfg::BN); !why.empty()) return why;
  if (std::string why =
          sm90_grouped_tile_store_unsupported(p, g, kTileRows, "fp8gemm_grouped_sm90");
      !why.empty())
    return why;
  return sm90a_image_unsupported(reinterpret_cast<const void*>(kernel),
                                 size_t(grouped_smem_bytes<Cfg>(true)), caps);
}
std::string supports_grouped_tma(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  return supports_tma_store<GroupedCfg>(p, g, caps, fp8gemm_grouped_sm90_tma_kernel);
}
std::string supports_grouped_n192_tma(const GemmProblem& p, const Grouping& g,
                                      const DeviceCaps& caps) {
  return supports_tma_store<GroupedN192Cfg>(p, g, caps, fp8gemm_grouped_sm90_n192_tma_kernel);
}

// What the grouped FP8 kernels below share: the family, the rung, the types, both group layouts,
// the 128-row tiles.
KernelInfo fp8_grouped_info(const char* name, const char* summary, LaunchFn launch,
                            GroupedSupportsFn supports) {
  return KernelInfo{
      .name = name,
      .family = "fp8gemm",
      .rung = 3,
      .summary = summary,
      .dtypes = {DType::e4m3},
      .accums = {Accum::f32},
      .layouts = {Layout::tn},
      .min_sm = 90,
      .launch = launch,
      .group_layouts = {GroupLayout::contiguous, GroupLayout::masked},
      .supports_grouped = supports,
      .group_tile_rows = kTileRows,
  };
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(fp8_grouped_info(
    "fp8gemm_grouped_sm90",
    "grouped (MoE experts) FP8 block128 Hopper kernel, rung F3's orientation and "
    "promotion, persistent over all groups' tiles; 128x128x128 (rows x N), 6 stages, "
    "register epilogue masked to each group's rows",
    launch_grouped, supports_grouped));

// fp8gemm runs it on groupings whose stored rows are mostly the groups' own (the grouped rule,
// kernels/dispatch/dispatch.cpp); the register kernel above takes the rest.
GEMMBENCH_REGISTER_KERNEL(fp8_grouped_info(
    "fp8gemm_grouped_sm90_tma",
    "fp8gemm_grouped_sm90 with a TMA-store epilogue: each tile staged in swizzled "
    "shared-memory boxes and stored by TMA while the next tile's mainloop runs; groups "
    "of whole 128-row tiles (by align, max_m or their sizes), N % 8 == 0, beta == 0",
    launch_grouped_tma, supports_grouped_tma));

// The 192-column tile, made for Mixtral's large groups (DeepGEMM runs BLOCK_N 160 there); fp8gemm
// tries it first on contiguous groupings whose rows are mostly their own (docs/grouped.md).
GEMMBENCH_REGISTER_KERNEL(fp8_grouped_info(
    "fp8gemm_grouped_sm90_n192_tma",
    "fp8gemm_grouped_sm90_tma on 128x192x128 tiles (rows x N, wgmma m64n192k32, a tile "
    "across two blocks of B's scales), 4 stages; groups of whole 128-row tiles "
    "(by align, max_m or their sizes), N % 8 == 0, beta == 0",
    launch_grouped_n192_tma, supports_grouped_n192_tma));

}  // namespace gemmbench
