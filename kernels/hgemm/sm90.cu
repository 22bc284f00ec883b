// hgemm_tn_sm90 — HGEMM ladder, rung 10 (top): Hopper-native TMA + mbarrier + wgmma,
// warp-specialized, persistent, 2-CTA clusters with TMA multicast.
//
// What it adds over the Ampere kernel (hgemm_tn: cp.async + Swizzle<3,3,3> + ldmatrix +
// mma.sync) and why: on Hopper, mma.sync is issued warp by warp from registers that every warp
// must first fill with ldmatrix, and the address math, cp.async and ldmatrix instructions compete
// for issue slots with the MMAs; it tops out near two thirds of the H100's tensor throughput.
// Here the copy engine (TMA, one instruction per tile, bounds handled in hardware) writes
// 128B-swizzled tiles straight into shared memory and signals an mbarrier; wgmma.mma_async reads
// both operands from shared memory through descriptors, asynchronously, 64xNx16 per warpgroup
// instruction, so the consumer warps issue almost nothing but MMAs. One producer warpgroup
// (setmaxnreg.dec to 40 registers) runs a STAGES-deep full/empty mbarrier ring ahead of two
// consumer warpgroups (setmaxnreg.inc to 232 for the 128 f32 accumulators of a 64x256 tile and,
// with the deferred epilogue, the previous tile's 64 packed output registers beside them; the
// launch gives every thread 168, all that 384 threads may have). The grid is persistent (one CTA
// per SM, resident clusters only) and walks the tiles in the seed-003 raster order, so CTAs running
// together share A and B panels in L2; the producer keeps loading the next tile's k-blocks while
// the consumers run the epilogue, which the consumers themselves spread over the next tile's first
// k-blocks (deferred epilogue). The two CTAs of a cluster compute neighbouring N tiles of the same
// M tile: each loads half of the shared A tile and multicasts it to both, cutting the L2->SM
// traffic per CTA from 48 KB to 32 KB per k-block.
//
// Operand roles. Both operands are K-major (TN): A(m,k) = a[m*K + k], B(k,n) = b[n*K + k];
// C(m,n) = c[m + n*M] is column-major, M contiguous. wgmma's accumulator gives each thread pairs
// of elements adjacent along its N dimension, so the kernel computes C^T = B^T A^T: wgmma's M
// (64 rows per consumer warpgroup) runs along GEMM N, wgmma's N (up to 256) along GEMM M. A
// thread then holds C elements in pairs adjacent along M (contiguous in memory); a 4x4 transpose
// among the 4 lanes of a quad (shuffles, no shared memory) turns them into 8 consecutive
// elements, stored as one 16-byte write, 64 contiguous bytes per column of C per warp store.
//
// Tile (GEMM terms), per variant: BM x BN x BK = 256 x 128 x 64 (default; each consumer
// warpgroup: m64n256k16 over 64 columns of C), STAGES = 4 (48 KB a stage, 192 KB), CLUSTER = 2
// along N. Threads 384 = producer warpgroup + 2 consumer warpgroups; registers 40 / 232 / 232.
// Variants: hgemm_tn_sm90_c1 (no cluster), hgemm_tn_sm90_128x128 (m64n128k16, 6 stages), and
// (below) the TMA-store, deferred-epilogue and stream-K ones; "Default binding" says which one
// the name gets.
//
// Variants that attack the two losses left (each tests one hypothesis; the lead measures):
// - _tmastore: TMA-store epilogue. The register epilogue above costs ~50 instructions per 8
//   columns (scale, pack, 4 shuffles + selects, predicated 16-byte store), ~800 per warp per
//   tile, and both consumer warpgroups run it together, so the tensor cores idle for it (~2-3%
//   of a tile at K = 4096). Here each warp packs its fragment and writes it with 4 stmatrix.x4
//   per 64x64 box into a 128B-swizzled staging box (conflict-free: the 8 rows of a matrix land in
//   8 distinct 16-byte chunks), fences, syncs its warpgroup (named barrier), and one thread issues
//   cp.async.bulk.tensor stores that run while the next tile's MMAs start. Two 8 KB boxes per
//   warpgroup, alternating (bulk wait_group.read guards reuse): 4 stages + 32 KB = 225 KB.
//   Used when beta == 0, M % 8 == 0 and C is 16-byte aligned; otherwise the register epilogue.
//   This kernel is hgemm_tn_sm90_tmastore (it was the default binding until the next one).
// - The deferred TMA-store epilogue (the default binding, hgemm_tn_sm90). With the epilogue
//   right after the mainloop, both consumer warpgroups still leave the tensor cores idle while
//   they pack, stmatrix, fence, sync and wait for staging buffers: Nsight Compute found the
//   tensor pipe active in 94.2% of the cycles, of which the last partial wave explains ~3%.
//   Here a warpgroup only packs its finished tile into 16-bit pairs (BM/4 = 64 registers, which
//   frees the accumulators; 64 + 128 live registers fit the 232 of setmaxnreg, no spills) and
//   starts the next tile at once; box s (of 4) of the packed tile is stmatrix'ed and stored right
//   after the next tile's k-block s has been issued, under its wgmmas. With a box per k-block the
//   waits for the two alternating staging buffers find the older store long done. A tile with
//   fewer k-blocks than boxes stores the rest after its mainloop; the last tile's boxes go out
//   before the CTA exits. Measured: tensor pipe active 95.1%, and +1.2-2.3% against _tmastore at
//   5120x4096x4096 under the power cap (see "Measured").
// - _sk: stream-K over the last partial wave. 5120x4096 has 320 cluster tiles for 66 clusters:
//   4.85 waves run as 5, 15% of the SMs idle through the last one (~3%). The first
//   (waves - 1 or - 2) * clusters tiles are walked whole, as before; the k-blocks of the remaining
//   tiles are cut into equal contiguous ranges, one per cluster. A tile split between clusters is
//   finished by the cluster holding its LAST k-block; the others (which hold its first k-blocks
//   and compute them first) store their f32 partial accumulators to a global workspace and raise
//   a per-warpgroup flag (release/acquire, GPU scope); the finisher adds them before its
//   epilogue. A cluster only ever waits for lower-numbered clusters, whose partials need no
//   waiting of their own: no deadlock even without co-residency (and the grid is resident).
// - _sk_tmastore, _c1_sk_tmastore: both, with and without the 2-CTA cluster.
// - _sk_defer: stream-K with the deferred epilogue (below). Best at 8192^3: 1.050x / 1.051x
//   (f16) and 1.039x / 1.049x (bf16) against _sk_tmastore's 1.044-1.046x in the same two H100
//   runs (bench_results/h100/2026-11-22_sk_defer_8192_r{1,2}.json, git a9094ac1007d); on the H200
//   1.052x / 1.055x (bench_results/h200/2026-11-22_hopper_acceptance_final.json); at
//   5120x4096x4096 it loses, like every stream-K variant there (0.979-0.986x). Its first build
//   issued the first k-blocks of a tile inside the "a tile is pending" branch; ptxas then
//   serialized the f32-accumulate wgmmas (advisory C7520, a compiler-inserted warpgroup arrive
//   on a divergent path) and it ran at 0.72-0.75x (git 590cb100c73c). The k-blocks now sit
//   outside that branch. ptxas gives its f32-accumulate builds an 8-byte stack frame.
// - _s3e4: 4 staging boxes per warpgroup (a box per 64x64 of the tile: no waits inside a tile's
//   epilogue) paid for with a 3-stage ring. Measured 0.991x / 0.990x at 5120x4096x4096
//   (f16 / bf16) against 0.998x / 1.004x for the default in the same run: the fourth stage is
//   worth more than the waits cost.
// - _c4: 4-CTA clusters along N, each CTA loading a quarter of the A tile (24 KB per k-block from
//   L2 instead of 32). Measured 0.85x at 5120x4096x4096 and 0.915x at 8192^3: four CTAs now
//   move in lockstep (every stage waits for the slowest of four and is freed by eight consumer
//   warpgroups), and fewer 4-CTA clusters than 2-CTA ones fit the GPCs.
// - _320x128: the tile cuBLAS 13.1 picks on the H100 at 5120x4096x4096 (nvjet ..._320x128_64x3_1x2,
//   2-CTA cluster, 3 stages; see
//   bench_results/h100/2026-11-22_ncu_sm90_vs_cublas_5120x4096x4096.txt). wgmma's N stops at 256,
//   so each consumer warpgroup issues two m64n160k16 per k16 step over 160 accumulators (no
//   spills). It cuts L2->SM bytes (ncu lts__t_bytes 1.43 GB against 1.65 GB) but measured 0.984x /
//   0.980x at 5120x4096x4096, 1.002x / 0.996x at 8192^3 and 0.81x / 0.79x at 4096^3 (13 M tiles of
//   320: 3.2 waves), below the default each time.
// Stream-K workspace: a static __device__ array (20 MB, for up to 160 CTAs) and flags that carry
// a per-launch epoch (no reset pass, no allocation in the launcher). Two stream-K launches must
// not run concurrently on different streams (they share it).
// Testing knob: GEMMBENCH_SM90_MAX_CLUSTERS=n caps the persistent grid at n clusters, so that the
// small shapes of the GPU test suite exercise multi-tile walks and stream-K splits.
// Measuring knob: GEMMBENCH_SM90_LOG_TILE=L sets the raster band width to 2^L cluster tiles. At
// 5120x4096x4096 16-wide bands did not help, nor did L2 eviction hints on the A and B loads
// (A evict_first / B evict_last, a knob measured at git 7738cbce70b4 and removed after): 0.996-
// 1.002x against the default's 1.000-1.002x in the same run; the wide bands add DRAM and
// cross-partition L2 traffic (bench_results/h100/2026-11-22_sm90_raster_l2hint_5120.txt).
// Constraints: sm_90 device and a build with sm_90a code (supports() says which is missing);
// layout TN; f16 (f32 or f16 accumulate) or bf16 (f32 accumulate); K % 8 == 0 (TMA row strides
// are multiples of 16 bytes); any M, N >= 1 (TMA zero-fills out-of-bounds rows and k, stores are
// predicated or clipped by TMA; M % 8 != 0 falls back to 2-byte stores); M, N, K < 2^30.
// Default binding: hgemm_tn_sm90 = 256x128x64, 4 stages, cluster 2, deferred TMA-store epilogue
// (measured best at 5120x4096x4096, 4096^3 and, without stream-K, 8192^3); the epilogue right
// after the mainloop is hgemm_tn_sm90_tmastore, the register epilogue hgemm_tn_sm90_regepi.
// Resources (sm_90a, cuobjdump -res-usage): 168 registers at entry for every variant (the cap of
// __launch_bounds__(384, 1); setmaxnreg splits 40 / 232 / 232), 0 stack (8 bytes for
// _sk_defer's f32-accumulate builds), 0 spills, and no "wgmma serialized" advisory from ptxas
// (C7515/C7520); dynamic smem
// 197,632 B (register epilogue), 230,400 B (TMA-store staging), 214,016 B (_s3e4), 205,824 B
// (_320x128); cuobjdump reports 1,072-1,120 B of static shared memory, of which the mbarriers are
// 48-96 B. _320x128 holds 160 f32 accumulators per consumer thread, still without spills.
// Measured (current code; cold L2, ratio = cuBLAS 13.1 median / kernel median, sampled
// interleaved; both boards sit at their 700 W cap, SM clocks ~1.2-1.5 GHz for cuBLAS too).
// H100 80GB HBM3: five runs, git 2842e1a3f028 (bench_results/h100/
// 2026-11-22_sm90_defer_run{1,2,3}.json, where this kernel is named hgemm_tn_sm90_defer and
// _tmastore hgemm_tn_sm90) and
// 590cb100c73c (2026-11-22_hopper_acceptance_deferred_run{1,2}.json); H200: two runs, git
// d367f9208cae (bench_results/h200/2026-11-22_{hopper_acceptance_deferred,sm90_defer}.json).
//                              H100 runs, median (TFLOP/s)         H200 runs
//   5120x4096x4096 f16/f32acc  1.012-1.019x, 1.015x (643-667)      1.018x, 1.023x
//   5120x4096x4096 bf16/f32acc 1.012-1.017x, 1.013x (675-705)      1.022x, 1.018x
//   8192^3 f16/f32acc          1.028-1.033x, 1.032x (668-692)      1.033x, 1.032x
//   8192^3 bf16/f32acc         1.030-1.033x, 1.032x (700-710)      1.029x, 1.029x
//   4096^3 f16/f32acc          0.993-1.003x, 0.998x                1.001x, 1.002x
//   4096^3 bf16/f32acc         0.997-0.999x, 0.998x                1.004x, 1.003x
//   5120x4096x4096 f16/f16acc  1.131x, 1.136x (cuBLAS COMPUTE_16F is slower)   1.153x
// After the last change to the deferred path (git a9094ac1007d, first k-blocks outside the pending
// branch) two more H100 rounds gave 1.014x / 1.015x (f16) and 1.011x / 1.014x (bf16) at
// 5120x4096x4096, 1.027-1.033x at 8192^3 (bench_results/h100/2026-11-22_sk_defer_*.json).
// In the same three H100 runs _tmastore measured 0.995-0.997x (f16) and 0.994-1.004x (bf16) at
// 5120x4096x4096, 1.017-1.023x at 8192^3 and 0.978-0.990x at 4096^3. At 8192^3 the stream-K
// variants stay ahead: _sk_tmastore 1.044-1.047x (H100 and H200, both dtypes),
// _sk_defer 1.039-1.051x (H100; see its entry). Nsight Compute, one launch at 5120x4096x4096 f16
// (git d367f9208cae, bench_results/h100/
// 2026-11-22_ncu_sm90_deferred_5120x4096x4096.txt): 227.7 us
// against cuBLAS's 227.5-228.5 us at the same 1.55 GHz, tensor pipe active 95.1% of cycles; cuBLAS
// runs nvjet_sm90_hsh_320x128_64x3_1x2_h_bz_coopB_TNT (320x128 tile, 3 stages, 2-CTA clusters) and
// moves fewer L2 bytes (1.30 GB against 1.59-1.61). Before the deferred epilogue the rung was level
// with cuBLAS at 5120x4096x4096 (0.995-1.006x over seven H100 runs;
// bench_results/h100/2026-11-22_hopper_acceptance.json, _repeat{1,2,3}, _data_power_5120.json).
#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "common/occupancy.hpp"
#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "common/sm90.cuh"
#include "core/cuda_check.hpp"
#include "registry.hpp"

namespace gemmbench {
namespace {

// ---- Compile-time configuration -----------------------------------------------------------
template <int BM_, int BN_, int STAGES_, int CLUSTER_, int EPI_BUFS_ = 0>
struct Sm90Config {
  static constexpr int BM = BM_;  // GEMM M per CTA tile = wgmma N
  static constexpr int BN = BN_;  // GEMM N per CTA tile = 64 (wgmma M) per consumer warpgroup
  static constexpr int BK = 64;   // one 128-byte swizzle row of 16-bit elements
  static constexpr int STAGES = STAGES_;
  static constexpr int CLUSTER = CLUSTER_;  // CTAs per cluster, along N; they share the A tile
  static constexpr int WG_N = 64;           // GEMM N rows per consumer warpgroup (wgmma M)
  static constexpr int CONSUMERS = BN / WG_N;
  static constexpr int THREADS = 128 * (1 + CONSUMERS);
  static constexpr int A_SLICE_ROWS = BM / CLUSTER;  // rows of the A tile each CTA loads
  static constexpr uint32_t ROW_BYTES = BK * 2;
  static constexpr uint32_t A_STAGE_BYTES = BM * ROW_BYTES;
  static constexpr uint32_t A_SLICE_BYTES = A_SLICE_ROWS * ROW_BYTES;
  static constexpr uint32_t B_STAGE_BYTES = BN * ROW_BYTES;
  static constexpr uint32_t STAGE_BYTES = A_STAGE_BYTES + B_STAGE_BYTES;  // expect_tx per stage
  // TMA-store epilogue staging, after the stages: per consumer warpgroup EPI_BUFS boxes of
  // (64 GEMM-N rows, 64 GEMM-M = 128 bytes) written by stmatrix, 128B-swizzled, 8 KB each.
  // EPI_BUFS_ = 0: the register epilogue, no staging. 2: one box filling while the copy engine
  // reads the other; BM/64 (4 for BM = 256): every box of a tile has its own buffer, and the
  // only wait is at the tile's start, for the previous tile's stores (long finished).
  static constexpr bool TMA_STORE = EPI_BUFS_ > 0;
  static constexpr int EPI_BOX = 64;  // box edge, both dimensions
  static constexpr int EPI_BUFS = EPI_BUFS_;
  static constexpr uint32_t EPI_BUF_BYTES = EPI_BOX * EPI_BOX * 2;
  static constexpr uint32_t EPI_BYTES = TMA_STORE ? CONSUMERS * EPI_BUFS * EPI_BUF_BYTES : 0;
  // + 1024: the dynamic window is aligned up to the 1024-byte swizzle period in the kernel.
  static constexpr int SMEM_BYTES = STAGES * int(STAGE_BYTES) + int(EPI_BYTES) + 1024;
  static constexpr int PRODUCER_REGS = 40;
  static constexpr int CONSUMER_REGS = 232;

  static_assert(BM == 128 || BM == 256 || BM == 320,
                "BM is wgmma's N: 128 and 256 are one instruction, 320 two m64n160k16");
  static_assert(STAGES >= 2,
                "a consumer keeps one stage's wgmma in flight while it waits for the next: a "
                "1-stage ring deadlocks");
  static_assert(BN == 128, "the 40/232 register split assumes 2 consumer warpgroups (BN = 128)");
  static_assert(BM % CLUSTER == 0 && A_SLICE_BYTES % 1024 == 0,
                "each CTA's A slice must be whole 8-row swizzle atoms (1024 B) so the multicast "
                "slices keep the 128B swizzle phase");
  static_assert(A_SLICE_ROWS <= 256 && BN <= 256, "a TMA box has at most 256 rows");
  static_assert(CLUSTER >= 1 && CLUSTER <= 8, "portable cluster sizes are 1..8");
  static_assert(A_STAGE_BYTES % 1024 == 0 && B_STAGE_BYTES % 1024 == 0 &&
                    (WG_N * ROW_BYTES) % 1024 == 0,
                "every stage and warpgroup operand must start on a 1024-byte swizzle period");
  static_assert(128 * PRODUCER_REGS + 128 * CONSUMERS * CONSUMER_REGS <= 65536,
                "the register split must fit the SM's 64K registers");
  static_assert(SMEM_BYTES + 2 * STAGES * 8 <= 227 * 1024,
                "stages (and epilogue boxes) exceed the 227 KB of shared memory a block may opt "
                "into");
  static_assert(EPI_BUFS == 0 || EPI_BUFS >= 2, "a TMA-store epilogue double-buffers at least");
  static_assert(!TMA_STORE || (BM % EPI_BOX == 0 && WG_N == EPI_BOX),
                "the TMA-store epilogue cuts a warpgroup's (64, BM) tile into 64x64 boxes");
};

// ---- Tile walk (persistent grid) ----------------------------------------------------------
// The raster of seed 003 (common/raster.hpp) over cluster tiles of BM x (BN * CLUSTER): linear
// index t -> (t % raster_x, t / raster_x) -> raster_tile. A cluster's CTA of rank r computes N
// tile cluster_tile.n * CLUSTER + r.
// Plain walk: cluster c takes t = c, c + clusters, ...; slots outside the tile grid are skipped.
// Stream-K walk: the valid tiles numbered densely in raster order (dense_cluster_tile); the first
// dp_tiles walked whole as above; the k-blocks of the rest, sk_units = (tiles_total - dp_tiles) *
// k_blocks "units" (tile-major), cut into contiguous ranges [sk_range_begin(c),
// sk_range_begin(c + 1)), one per cluster (see Sm90WorkIter).
struct Sm90Schedule {
  int tiles_m;          // ceil(M / BM)
  int tiles_n;          // ceil(N / BN)
  int cluster_tiles_n;  // ceil(tiles_n / CLUSTER)
  int log_tile;         // raster_log_tile(cluster_tiles_n, 8)
  int raster_x;         // raster_grid(...).x
  int raster_y;         // raster_grid(...).y
  int raster_total;     // raster_grid(...).x * .y, no-op slots included
  int last_row_n;       // valid cluster-tile columns in the raster's last row (1 .. 2^log_tile)
  int tiles_total;      // tiles_m * cluster_tiles_n, the valid cluster tiles
  int k_blocks;         // ceil(K / BK)
  int clusters;         // the persistent grid, in clusters
  int dp_tiles;         // stream-K walk: tiles walked whole (tiles_total in the plain walk)
  long long sk_units;   // stream-K walk: (tiles_total - dp_tiles) * k_blocks
  int c_tma;            // 1: the TMA-store epilogue runs (C's tensor map is valid, beta == 0)
};

// Stream-K tiles: the remainder of tiles_total over the clusters, plus one whole wave when the
// remainder is under half a wave, so that every cluster gets at least half a tile of k-blocks
// (a tile is then split among at most 3 clusters, and its finisher adds at most 2 partials).
// clusters <= tiles_total (make_schedule), so the extra wave always exists.
GB_HD int sk_tile_count(int tiles_total, int clusters) {
  const int rem = tiles_total % clusters;
  if (rem == 0) return 0;
  return 2 * rem < clusters ? rem + clusters : rem;
}

// clusters_max: how many clusters the grid may have (resident clusters, capped). log_tile >= 0
// overrides the raster width (2^log_tile cluster-tile columns per band; -1: raster_log_tile).
Sm90Schedule make_schedule(int m, int n, int k, int bm, int bn, int bk, int cluster,
                           int clusters_max, bool stream_k, int log_tile = -1) {
  Sm90Schedule s{};
  s.tiles_m = ceil_div(m, bm);
  s.tiles_n = ceil_div(n, bn);
  s.cluster_tiles_n = ceil_div(s.tiles_n, cluster);
  s.log_tile = log_tile >= 0 ? log_tile : raster_log_tile(s.cluster_tiles_n, 8);
  const RasterGrid g = raster_grid(s.tiles_m, s.cluster_tiles_n, s.log_tile);
  s.raster_x = g.x;
  s.raster_y = g.y;
  s.raster_total = g.x * g.y;
  s.last_row_n = s.cluster_tiles_n - (g.y - 1) * (1 << s.log_tile);
  s.tiles_total = s.tiles_m * s.cluster_tiles_n;
  s.k_blocks = ceil_div(k, bk);
  s.clusters = std::max(1, std::min(clusters_max, s.tiles_total));
  s.dp_tiles = s.tiles_total - (stream_k ? sk_tile_count(s.tiles_total, s.clusters) : 0);
  s.sk_units = (long long)(s.tiles_total - s.dp_tiles) * s.k_blocks;
  s.c_tma = 0;
  return s;
}

// Dense index d (0 .. tiles_total - 1) -> cluster tile, in raster order. Every raster row but
// the last is full; in the last one only columns (x % 2^log_tile) < last_row_n are tiles.
[[maybe_unused]] GB_HD TileCoord dense_cluster_tile(const Sm90Schedule& s, int d) {
  const int full = (s.raster_y - 1) * s.raster_x;
  if (d < full) return raster_tile(d % s.raster_x, d / s.raster_x, s.log_tile);
  const int e = d - full;
  const int x = ((e / s.last_row_n) << s.log_tile) + e % s.last_row_n;
  return raster_tile(x, s.raster_y - 1, s.log_tile);
}

// First stream-K unit of cluster c (c = clusters: sk_units). Ranges differ by at most one unit.
GB_HD long long sk_range_begin(const Sm90Schedule& s, int c) {
  return s.sk_units * c / s.clusters;
}

// The finisher of stream-K tile `sk_tile` (in some cluster above `from`) adds the partials of the
// lower clusters whose ranges end inside the tile, nearest first: this returns the next such
// cluster below `from`, or -1. A non-empty range ending inside the tile (after its first unit)
// ends with a partial item of that tile; empty ranges published nothing.
[[maybe_unused]] GB_HD int sk_prev_contributor(const Sm90Schedule& s, int from, int sk_tile) {
  const long long tile_u0 = (long long)sk_tile * s.k_blocks;
  for (int cc = from - 1; cc >= 0; --cc) {
    const long long e = sk_range_begin(s, cc + 1);
    if (e <= tile_u0) return -1;
    if (sk_range_begin(s, cc) < e) return cc;
  }
  return -1;
}

// One work item: k-blocks [kb_begin, kb_end) of a cluster tile. A stream-K item with
// kb_end < k_blocks is a PARTIAL (its accumulators go to the workspace); with kb_end == k_blocks
// it FINISHES the tile (after adding the partials of the lower clusters when kb_begin > 0).
struct Sm90Work {
  TileCoord tile;  // cluster tile
  int kb_begin;
  int kb_end;
  int sk_tile;  // stream-K tile index (dense index - dp_tiles), -1 for a whole tile
};

// The work items of one cluster, in processing order; the producer and the consumers of every
// CTA of the cluster walk the same sequence. Stream-K order: the whole tiles, then the cluster's
// range from its END backwards, so that its one possible partial item (the range's last units,
// the first k-blocks of a tile whose end lies in a higher cluster) is computed and published
// first, and its finishing item (the range's first units, whose tile began in lower clusters)
// comes last, when the lower clusters' partials are long published. The state is three ints
// (it stays live across the mainloop, where the 128 accumulators leave little room): pos_ is
// the next whole tile's raster slot / dense index, then, once the stream-K range starts
// (sk_left_ >= 0), the stream-K tile of the range's last unit not handed out yet.
template <bool STREAM_K>
class Sm90WorkIter {
 public:
  GB_HD Sm90WorkIter(const Sm90Schedule& s, int cluster) : s_(s), pos_(cluster) {}
  GB_HD bool next(Sm90Work& w) {
    if constexpr (!STREAM_K) {
      while (pos_ < s_.raster_total) {
        const int t = pos_;
        pos_ += s_.clusters;
        w.tile = raster_tile(t % s_.raster_x, t / s_.raster_x, s_.log_tile);
        if (!raster_tile_valid(w.tile, s_.tiles_m, s_.cluster_tiles_n)) continue;
        w.kb_begin = 0, w.kb_end = s_.k_blocks, w.sk_tile = -1;
        return true;
      }
      return false;
    } else {
      if (sk_left_ < 0) {  // whole tiles
        if (pos_ < s_.dp_tiles) {
          w.tile = dense_cluster_tile(s_, pos_);
          w.kb_begin = 0, w.kb_end = s_.k_blocks, w.sk_tile = -1;
          pos_ += s_.clusters;
          return true;
        }
        // pos_ = cluster + i * clusters: the cluster is pos_ % clusters.
        const int cluster = pos_ % s_.clusters;
        const long long b = sk_range_begin(s_, cluster), e = sk_range_begin(s_, cluster + 1);
        sk_left_ = int(e - b);  // at most 2 * k_blocks + 1: sk_tile_count keeps < 2 waves
        if (sk_left_ == 0) return false;
        pos_ = int((e - 1) / s_.k_blocks);
        sk_kb_end_ = int(e - (long long)pos_ * s_.k_blocks);  // 1 .. k_blocks
      }
      if (sk_left_ == 0) return false;
      const int len = sk_left_ < sk_kb_end_ ? sk_left_ : sk_kb_end_;  // stop at the tile's start
      w.tile = dense_cluster_tile(s_, s_.dp_tiles + pos_);
      w.kb_begin = sk_kb_end_ - len, w.kb_end = sk_kb_end_, w.sk_tile = pos_;
      sk_left_ -= len;
      --pos_;
      sk_kb_end_ = s_.k_blocks;
      return true;
    }
  }

 private:
  const Sm90Schedule& s_;
  int pos_;
  int sk_left_ = -1;   // stream-K: units of the range not handed out yet (-1: not started)
  int sk_kb_end_ = 0;  // stream-K: one past the k-block of the last of them, in tile pos_
};

// Stream-K role of a work item in the consumer: kFixupNone for a whole tile or a finisher that
// holds the tile's k-block 0; kFixupPublish for a partial (publish the accumulators, no
// epilogue); a value >= 0 for a finisher that first adds the partials of that stream-K tile.
[[maybe_unused]] constexpr int kFixupNone = -1;
[[maybe_unused]] constexpr int kFixupPublish = -2;

// ---- Stream-K workspace ------------------------------------------------------------------
// One slot per (CTA, consumer warpgroup): the warpgroup's accumulators, 32-bit words, vector i of
// thread t at [i * 128 + t] (each warp writes 512 contiguous bytes per vector). A CTA publishes
// at most one partial per launch (its range's last item), so slots are never reused within a
// launch; a flag holds the epoch of the launch that last published the slot.
constexpr int kSkMaxCtas = 160;  // H100/H200: 132 SMs
constexpr int kSkMaxConsumers = 2;
constexpr int kSkSlotVecs = 128 * 128 / 4;  // 128 threads x up to 128 words, as uint4
[[maybe_unused]] __device__ uint4
    g_sk_partials[kSkMaxCtas * kSkMaxConsumers * kSkSlotVecs];  // 20 MB
[[maybe_unused]] __device__ uint32_t g_sk_flags[kSkMaxCtas * kSkMaxConsumers];

// Distinct per stream-K launch, never 0 (the flags' initial value).
uint32_t next_sk_epoch() {
  static std::atomic<uint32_t> epoch{0};
  uint32_t e = ++epoch;
  while (e == 0) e = ++epoch;
  return e;
}

#if GEMMBENCH_SM90A  // device helpers of the sm_90a kernel body only

// One k16 step of a consumer warpgroup's (64 GEMM-N, BM GEMM-M) tile. wgmma's N stops at 256, so
// BM = 320 is two m64n160k16 over the two 160-row halves of the A tile (the second half starts
// 160 rows = 20 KB further, a whole number of 1024-byte swizzle atoms); accumulator chunk j < 20
// is the first instruction's, j >= 20 the second's, so the fragment indexing (4j + 2h + e) runs
// on unchanged across the halves.
template <int BM, bool F16_ACCUM, class T, class AccReg, int ACC_REGS>
__device__ __forceinline__ void wgmma_tile_k16(AccReg (&acc)[ACC_REGS], uint64_t da, uint64_t db,
                                               int accumulate) {
  constexpr int N = BM == 320 ? 160 : BM;
  constexpr int HALF = ACC_REGS / (BM / N);
#pragma unroll
  for (int part = 0; part < BM / N; ++part) {
    AccReg(&d)[HALF] = *reinterpret_cast<AccReg(*)[HALF]>(&acc[part * HALF]);
    const uint64_t db_part = sm90::wgmma_desc_advance(db, uint32_t(part * N * 128));
    if constexpr (F16_ACCUM)
      sm90::wgmma_m64k16_f16<N>(d, da, db_part, accumulate);
    else
      sm90::wgmma_m64k16_f32<N, T>(d, da, db_part, accumulate);
  }
}

// f(std::integral_constant<int, i>{}) for i = 0 .. N-1, in order: a loop whose index is a
// compile-time constant in the body (register arrays stay indexed statically).
template <class F, int... I>
__device__ __forceinline__ void static_for_impl(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
__device__ __forceinline__ void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}

// ---- Epilogue helpers ---------------------------------------------------------------------
template <class T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  uint32_t u;
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    memcpy(&u, &h, 4);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    memcpy(&u, &h, 4);
  }
  return u;
}
template <class T>
__device__ __forceinline__ float2 unpack2(uint32_t u) {
  if constexpr (std::is_same_v<T, __half>) {
    __half2 h;
    memcpy(&h, &u, 4);
    return __half22float2(h);
  } else {
    __nv_bfloat162 h;
    memcpy(&h, &u, 4);
    return __bfloat1622float2(h);
  }
}

// The 4 lanes of a quad (q = lane % 4) hold v[c] = X[q][c]; afterwards lane q holds
// v[c] = X[c][q]. Two butterfly steps, each swapping one bit of (lane, index) between lanes
// q and q ^ bit: 4 shuffles, selects with compile-time indices only (no local memory). All 32
// lanes must execute it. The transpose is its own inverse.
__device__ __forceinline__ void quad_transpose(uint32_t (&v)[4], int q) {
  const bool odd = q & 1;  // step 1: partner q ^ 1 trades index bit 0, for index bit 1 = k
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const uint32_t send = odd ? v[2 * k] : v[2 * k + 1];
    const uint32_t recv = __shfl_xor_sync(0xffffffffu, send, 1);
    if (odd)
      v[2 * k] = recv;
    else
      v[2 * k + 1] = recv;
  }
  const bool high = q & 2;  // step 2: partner q ^ 2 trades index bit 1, for index bit 0 = k
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const uint32_t send = high ? v[k] : v[2 + k];
    const uint32_t recv = __shfl_xor_sync(0xffffffffu, send, 2);
    if (high)
      v[k] = recv;
    else
      v[2 + k] = recv;
  }
}

// 8 consecutive 16-bit C elements at p (one chunk along M), `valid` (1..8) of them in bounds;
// v[i] packs elements 2i (low half) and 2i + 1. vec: p is 16-byte aligned and valid == 8.
__device__ __forceinline__ void load_chunk(const uint16_t* p, int valid, bool vec,
                                           uint32_t (&v)[4]) {
  if (vec) {
    const uint4 x = *reinterpret_cast<const uint4*>(p);
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
    return;
  }
#pragma unroll
  for (int e = 0; e < 8; ++e)
    if (e < valid) v[e / 2] |= uint32_t(p[e]) << (16 * (e % 2));
}
__device__ __forceinline__ void store_chunk(uint16_t* p, int valid, bool vec,
                                            const uint32_t (&v)[4]) {
  if (vec) {
    *reinterpret_cast<uint4*>(p) = make_uint4(v[0], v[1], v[2], v[3]);
    return;
  }
#pragma unroll
  for (int e = 0; e < 8; ++e)
    if (e < valid) p[e] = uint16_t(v[e / 2] >> (16 * (e % 2)));
}

// ---- TMA-store epilogue ---------------------------------------------------------------------
// The packed output pair of accumulator 8x8 block (j, h) (fragment layout: see
// wgmma_m64k16_f32): C(m0 + 8j + 2q + {0,1}, n0 + 16w + 8h + g), scaled by alpha when SCALE.
template <class T, bool F16_ACCUM, bool SCALE, class AccReg, int ACC_REGS>
__device__ __forceinline__ uint32_t out_pair(const AccReg (&acc)[ACC_REGS], int j, int h,
                                             float alpha) {
  if constexpr (F16_ACCUM) {
    if constexpr (!SCALE) return acc[2 * j + h];  // already two halves (T is __half)
    const float2 v = unpack2<__half>(acc[2 * j + h]);
    return pack2<T>(v.x * alpha, v.y * alpha);
  } else {
    float x = acc[4 * j + 2 * h], y = acc[4 * j + 2 * h + 1];
    if constexpr (SCALE) x *= alpha, y *= alpha;
    return pack2<T>(x, y);
  }
}

// One consumer warpgroup's (64 GEMM-N, BM GEMM-M) tile, cut into BM/64 boxes of 64x64: box s is
// written into staging buffer s % EPI_BUFS with stmatrix, and thread 0 stores it with one TMA
// copy (clipped to C's bounds by the copy engine). Boxes starting past M are skipped (uniform over
// the warpgroup).
// Staging box layout (what the C tensor map's SWIZZLE_128B box expects): row r = GEMM n0 + r,
// 128 bytes = 64 consecutive m; 16-byte chunk c of row r at chunk c ^ (r % 8). Fragment block
// (j, h) is an 8x8 matrix whose row g is n = 16w + 8h + g and whose 8 columns are m = 8j .. 8j+7
// (one chunk, j % 8): one stmatrix matrix. stmatrix.x4 number p of box s takes blocks
// (8s + 2p + i/2, h = i%2), i = 0..3; lane L addresses row L%8 of matrix L/8.
// Buffer reuse: a buffer is written only after a barrier that follows thread 0's wait for the
// store that last read it: the tile's first barrier (after waiting for every store of the
// previous tile, long done), then the barrier of box s - 1, whose wait covers box s - E (E =
// EPI_BUFS), the last user of buffer s % E: when box s - 1 is issued, boxes up to s - 2 are
// pending, so "at most E - 2 pending" means box s - E has been read. With E >= BM/64 no box of a
// tile reuses a buffer of the same tile and the in-tile waits vanish; with E = 2 the last box
// needs none either (the next tile's first wait covers it).
//
// Box S of the tile: its 16 packed output pairs v[4p + i] = out_pair(8S + 2p + i/2, i%2) go to
// staging buffer S % EPI_BUFS, and thread 0 stores the box. Box 0 first waits for the
// previous tile's stores to have read their buffers. Returns at once (uniformly) for a box that
// starts past M.
template <int S, int BOXES, int EPI_BUFS>
__device__ __forceinline__ void store_box_tma(const uint32_t (&v)[16], const CUtensorMap* tmap_c,
                                              uint32_t s_epi_wg, uint32_t buf_bytes, int m0, int n0,
                                              int M, int warp, int lane, int wg_thread,
                                              uint32_t bar_id) {
  if constexpr (S == 0) {
    if (wg_thread == 0) sm90::bulk_wait_group_read<0>();  // the previous tile's boxes
    sm90::named_barrier_sync(bar_id, 128);
  }
  const int m_s = m0 + 64 * S;
  if (m_s >= M) return;
  // This lane's stmatrix row address inside a box: row 16*warp + 8*(matrix % 2) + lane % 8.
  const uint32_t row = 16 * warp + 8 * ((lane >> 3) & 1) + (lane & 7);
  const uint32_t r8 = lane & 7;                                // row % 8: the swizzle phase
  const uint32_t buf = s_epi_wg + (S % EPI_BUFS) * buf_bytes;  // (64, 64) box, SW128
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const uint32_t chunk = 2 * p + (lane >> 4);  // j % 8 of this lane's matrix
    sm90::stmatrix_x4(buf + row * 128 + ((chunk ^ r8) << 4), v[4 * p], v[4 * p + 1], v[4 * p + 2],
                      v[4 * p + 3]);
  }
  sm90::fence_proxy_async_shared();  // the copy engine reads what stmatrix wrote
  // Box S + 1 goes to the buffer box S + 1 - E used: wait for that store to have read it.
  if (S + 1 < BOXES && S + 1 >= EPI_BUFS && wg_thread == 0)
    sm90::bulk_wait_group_read<EPI_BUFS - 2>();
  sm90::named_barrier_sync(bar_id, 128);
  if (wg_thread == 0) {
    sm90::tma_store_2d(tmap_c, buf, m_s, n0);
    sm90::bulk_commit_group();
  }
}

// The 16 packed output pairs of box s (see store_box_tma), scaled by alpha when SCALE.
template <class T, bool F16_ACCUM, bool SCALE, class AccReg, int ACC_REGS>
__device__ __forceinline__ void pack_box(const AccReg (&acc)[ACC_REGS], int s, float alpha,
                                         uint32_t (&v)[16]) {
#pragma unroll
  for (int i = 0; i < 16; ++i)
    v[i] = out_pair<T, F16_ACCUM, SCALE>(acc, 8 * s + i / 2, i % 2, alpha);
}

// The whole tile at once, right after its mainloop (the tensor cores wait for it). It packs box
// by box: packing the whole tile first (as the deferred path does) needs BM/4 more live registers,
// and with BM = 320 (160 f32 accumulators) ptxas then spills 168 bytes.
template <class T, bool F16_ACCUM, bool SCALE, int BM, int EPI_BUFS, class AccReg, int ACC_REGS>
__device__ __forceinline__ void store_tile_tma(const AccReg (&acc)[ACC_REGS], float alpha,
                                               const CUtensorMap* tmap_c, uint32_t s_epi_wg,
                                               uint32_t buf_bytes, int m0, int n0, int M, int warp,
                                               int lane, int wg_thread, uint32_t bar_id) {
  constexpr int BOXES = BM / 64;
  static_for<BOXES>([&](auto box) {
    constexpr int S = decltype(box)::value;
    uint32_t v[16];
    pack_box<T, F16_ACCUM, SCALE>(acc, S, alpha, v);
    store_box_tma<S, BOXES, EPI_BUFS>(v, tmap_c, s_epi_wg, buf_bytes, m0, n0, M, warp, lane,
                                      wg_thread, bar_id);
  });
}

// Deferred epilogue (DEFER_EPI variants): the tile's outputs are packed to 16-bit pairs
// (BM/4 registers, 64 for BM = 256) as soon as its last wgmma completes, which frees the
// accumulators for the next tile; box s is then stored right after the next tile's k-block s
// has been issued, while the tensor cores run it, instead of with the tensor cores idle.
template <class T, bool F16_ACCUM, bool SCALE, class AccReg, int ACC_REGS, int P>
__device__ __forceinline__ void pack_tile(const AccReg (&acc)[ACC_REGS], float alpha,
                                          uint32_t (&packed)[P]) {
#pragma unroll
  for (int i = 0; i < P; ++i) packed[i] = out_pair<T, F16_ACCUM, SCALE>(acc, i / 2, i % 2, alpha);
}
template <int S, int BOXES, int EPI_BUFS, int P>
__device__ __forceinline__ void store_packed_box(const uint32_t (&packed)[P],
                                                 const CUtensorMap* tmap_c, uint32_t s_epi_wg,
                                                 uint32_t buf_bytes, int m0, int n0, int M,
                                                 int warp, int lane, int wg_thread,
                                                 uint32_t bar_id) {
  static_assert(P == 16 * BOXES, "16 packed pairs per 64x64 box");
  store_box_tma<S, BOXES, EPI_BUFS>(*reinterpret_cast<const uint32_t(*)[16]>(&packed[16 * S]),
                                    tmap_c, s_epi_wg, buf_bytes, m0, n0, M, warp, lane, wg_thread,
                                    bar_id);
}

// ---- Stream-K partials -------------------------------------------------------------------
template <class AccReg>
__device__ __forceinline__ uint32_t acc_bits(AccReg r) {
  if constexpr (std::is_same_v<AccReg, float>)
    return __float_as_uint(r);
  else
    return r;
}
// acc += partial word (f32, or two f16 halves added as f16 like the f16 accumulator itself).
template <class AccReg>
__device__ __forceinline__ void acc_add(AccReg& r, uint32_t p) {
  if constexpr (std::is_same_v<AccReg, float>) {
    r += __uint_as_float(p);
  } else {
    __half2 a, b;
    memcpy(&a, &r, 4);
    memcpy(&b, &p, 4);
    a = __hadd2(a, b);
    memcpy(&r, &a, 4);
  }
}

// The warpgroup stores its accumulators to workspace slot `slot` and raises the slot's flag.
template <class AccReg, int ACC_REGS>
__device__ __forceinline__ void sk_publish(const AccReg (&acc)[ACC_REGS], int slot, uint32_t epoch,
                                           int wg_thread, uint32_t bar_id) {
  static_assert(ACC_REGS % 4 == 0 && ACC_REGS / 4 * 128 <= kSkSlotVecs, "slot size");
  uint4* dst = g_sk_partials + size_t(slot) * kSkSlotVecs + wg_thread;  // (ACC_REGS/4, 128)
#pragma unroll
  for (int i = 0; i < ACC_REGS / 4; ++i)
    __stcg(dst + i * 128, make_uint4(acc_bits(acc[4 * i]), acc_bits(acc[4 * i + 1]),
                                     acc_bits(acc[4 * i + 2]), acc_bits(acc[4 * i + 3])));
  sm90::named_barrier_sync(bar_id, 128);  // every thread's stores before the release
  if (wg_thread == 0) sm90::st_release_gpu(&g_sk_flags[slot], epoch);
}

// The warpgroup waits for slot `slot`'s flag to hold `epoch`, then adds the slot to its
// accumulators (the same thread wrote the same fragment positions).
template <class AccReg, int ACC_REGS>
__device__ __forceinline__ void sk_accumulate(AccReg (&acc)[ACC_REGS], int slot, uint32_t epoch,
                                              int wg_thread, uint32_t bar_id) {
  if (wg_thread == 0)
    while (sm90::ld_acquire_gpu(&g_sk_flags[slot]) != epoch) {
    }
  sm90::named_barrier_sync(bar_id, 128);  // extends thread 0's acquire to the warpgroup
  const uint4* src = g_sk_partials + size_t(slot) * kSkSlotVecs + wg_thread;  // (ACC_REGS/4, 128)
#pragma unroll
  for (int i = 0; i < ACC_REGS / 4; ++i) {
    const uint4 v = __ldcg(src + i * 128);  // L2: written by another SM during this launch
    acc_add(acc[4 * i], v.x), acc_add(acc[4 * i + 1], v.y);
    acc_add(acc[4 * i + 2], v.z), acc_add(acc[4 * i + 3], v.w);
  }
}

#endif  // GEMMBENCH_SM90A

// ---- The kernel ---------------------------------------------------------------------------
template <class T, bool F16_ACCUM, int BM, int BN, int STAGES, int CLUSTER, bool STREAM_K,
          int EPI_BUFS, bool DEFER_EPI>
__global__ void __launch_bounds__(Sm90Config<BM, BN, STAGES, CLUSTER, EPI_BUFS>::THREADS, 1)
    hgemm_tn_sm90_kernel(
        const __grid_constant__ CUtensorMap tmap_a,  // A (M,K) k-major, box (BK, BM/CLUSTER)
        const __grid_constant__ CUtensorMap tmap_b,  // B (N,K) k-major, box (BK, BN)
        const __grid_constant__ CUtensorMap tmap_c,  // C (M,N) m-major, box (64, 64), SW128;
                                                     // valid only when sched.c_tma
        T* __restrict__ c,                           // C (M,N) column-major
        int M, int N, float alpha, float beta, const Sm90Schedule sched,
        uint32_t epoch) {  // stream-K: this launch's flag value
#if GEMMBENCH_SM90A
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER, EPI_BUFS>;
  constexpr bool TMA_STORE = Cfg::TMA_STORE;
  constexpr int BK = Cfg::BK;
  // f32: 4 floats per 8 columns of wgmma N; f16: 2 registers of 2 halves.
  using AccReg = std::conditional_t<F16_ACCUM, uint32_t, float>;
  constexpr int ACC_REGS = F16_ACCUM ? BM / 4 : BM / 2;
  static_assert(!STREAM_K || Cfg::CONSUMERS <= kSkMaxConsumers, "stream-K slots per CTA");
  static_assert(!DEFER_EPI || TMA_STORE, "the deferred epilogue is a TMA-store epilogue");
  constexpr int BOXES = BM / 64;  // 64x64 TMA-store boxes per warpgroup tile

  // The barriers are the kernel's only static shared memory: supports() reads its size back to
  // learn that the driver picked this (sm_90a) image.
  __shared__ alignas(8) uint64_t full_bar[STAGES];  // TMA -> consumers: stage landed
  __shared__ alignas(8)
      uint64_t empty_bar[STAGES];  // consumers (whole cluster) -> producer: stage free
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t s_a = smem;                                // (STAGES, BM, BK) k-major, SW128
  const uint32_t s_b = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, BN, BK) k-major, SW128
  const uint32_t s_epi = smem + STAGES * Cfg::STAGE_BYTES;  // (CONSUMERS, EPI_BUFS, 64, 64) SW128
  auto full = [&](int s) { return ptx::smem_u32(&full_bar[s]); };
  auto empty = [&](int s) { return ptx::smem_u32(&empty_bar[s]); };

  const int wg = threadIdx.x / 128;  // warpgroup: 0 producer, 1..CONSUMERS consumers
  const int wg_thread = threadIdx.x % 128;
  const uint32_t cta_rank = CLUSTER > 1 ? sm90::cluster_ctarank() : 0;
  const int cluster_id = blockIdx.x / CLUSTER;

  // ======== PROLOGUE ========
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbarrier_init(full(s), 1);  // the local producer's arrive.expect_tx
      sm90::mbarrier_init(empty(s), Cfg::CONSUMERS * CLUSTER);  // every consumer of the cluster
    }
    sm90::fence_barrier_init();
    sm90::tma_prefetch_descriptor(&tmap_a);
    sm90::tma_prefetch_descriptor(&tmap_b);
    if (TMA_STORE && sched.c_tma) sm90::tma_prefetch_descriptor(&tmap_c);
  }
  // Peers arrive on our barriers and multicast into our stages: all must be initialised first.
  if constexpr (CLUSTER > 1)
    sm90::cluster_sync();
  else
    __syncthreads();

  if (wg == 0) {
    // ======== PRODUCER (one thread issues every TMA) ========
    sm90::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    if (wg_thread == 0) {
      int stage = 0;
      uint32_t phase = 0;  // parity of the ring's current lap
      Sm90WorkIter<STREAM_K> work_iter(sched, cluster_id);
      Sm90Work w;
      while (work_iter.next(w)) {
        const int n_tile = w.tile.n * CLUSTER + int(cta_rank);
        // A slice / B rows past the matrix (an M tile shorter than the cluster's slices, the
        // padding N tile of an odd tiles_n) are clamped to a row inside it: those smem rows feed
        // only C rows/columns the epilogue does not store, and no box starts out of bounds.
        const int a_row = min(w.tile.m * BM + int(cta_rank) * Cfg::A_SLICE_ROWS, M - 1);
        const int b_row = min(n_tile * BN, N - 1);
        for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
          sm90::mbarrier_wait_parity(empty(stage), phase ^ 1);  // lap 0 passes at once
          sm90::mbarrier_arrive_expect_tx(full(stage), Cfg::STAGE_BYTES);
          const int k0 = kb * BK;
          const uint32_t a_dst = s_a + stage * Cfg::A_STAGE_BYTES + cta_rank * Cfg::A_SLICE_BYTES;
          if constexpr (CLUSTER > 1)
            sm90::tma_load_2d_multicast(a_dst, &tmap_a, full(stage), uint16_t((1u << CLUSTER) - 1),
                                        k0, a_row);
          else
            sm90::tma_load_2d(a_dst, &tmap_a, full(stage), k0, a_row);
          sm90::tma_load_2d(s_b + stage * Cfg::B_STAGE_BYTES, &tmap_b, full(stage), k0, b_row);
          if (++stage == STAGES) stage = 0, phase ^= 1;
        }
      }
    }
  } else {
    // ======== CONSUMERS ========
    sm90::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
    const int consumer = wg - 1;  // which 64 GEMM-N rows of the tile (wgmma M)
    const int warp = wg_thread / 32, lane = wg_thread % 32;
    const int g = lane / 4, q = lane % 4;
    const uint32_t wg_bar = 1 + consumer;  // named barrier of this warpgroup alone
    // One arrival per consumer warpgroup on the stage's empty barrier of every CTA that loads
    // into this CTA (all of the cluster: the A slices are multicast), after the wgmma reading it
    // has completed. Thread r < CLUSTER signals CTA r.
    auto release = [&](int s) {
      if constexpr (CLUSTER > 1) {
        if (wg_thread < CLUSTER) sm90::mbarrier_arrive_cluster(empty(s), uint32_t(wg_thread));
      } else {
        if (wg_thread == 0) sm90::mbarrier_arrive(empty(s));
      }
    };
    // Row 16*warp + g (+8) of this warpgroup's 64, within the CTA's BN.
    const int n_in_tile = consumer * Cfg::WG_N + 16 * warp + g;
    // 16-byte C accesses need every column start (n*M) and the base 16-byte aligned.
    const bool vec = (M % 8 == 0) && (reinterpret_cast<uintptr_t>(c) % 16 == 0);

    AccReg acc[ACC_REGS];  // (64 GEMM-N, BM GEMM-M) per warpgroup, wgmma D fragment
    // Deferred epilogue: the previous tile's outputs, packed, and where they go.
    uint32_t packed[DEFER_EPI ? BM / 4 : 1];
    bool pending = false;
    int pending_m0 = 0, pending_n0 = 0;
    const uint32_t s_epi_own = s_epi + consumer * Cfg::EPI_BUFS * Cfg::EPI_BUF_BYTES;
    int stage = 0;
    uint32_t phase = 0;
    Sm90WorkIter<STREAM_K> work_iter(sched, cluster_id);
    Sm90Work w;
    while (work_iter.next(w)) {
      const int n_tile = w.tile.n * CLUSTER + int(cta_rank);
      // Stream-K role, decided before the mainloop so one register carries it across.
      const int fixup = !STREAM_K                   ? kFixupNone
                        : w.kb_end < sched.k_blocks ? kFixupPublish
                        : w.kb_begin > 0            ? w.sk_tile  // gather, then finish
                                                    : kFixupNone;
      const int kb_count = w.kb_end - w.kb_begin;

      // ======== MAINLOOP ========
#pragma unroll
      for (int i = 0; i < ACC_REGS; ++i) sm90::fence_operand(acc[i]);
      int prev_stage = 0;
      auto k_block = [&](int kb) {  // k-block w.kb_begin + kb of the tile
        sm90::mbarrier_wait_parity(full(stage), phase);
        sm90::wgmma_fence();
        // wgmma A = this warpgroup's 64 rows of the B tile; wgmma B = the whole A tile.
        const uint64_t desc_a = sm90::wgmma_desc_sw128_kmajor(
            s_b + stage * Cfg::B_STAGE_BYTES + consumer * Cfg::WG_N * Cfg::ROW_BYTES);  // (64, BK)
        const uint64_t desc_b =
            sm90::wgmma_desc_sw128_kmajor(s_a + stage * Cfg::A_STAGE_BYTES);  // (BM, BK)
#pragma unroll
        for (int k = 0; k < BK / 16; ++k) {
          const uint64_t da = sm90::wgmma_desc_advance(desc_a, 32 * k);  // 16 elements = 32 B
          const uint64_t db = sm90::wgmma_desc_advance(desc_b, 32 * k);
          const int accumulate = (kb > 0 || k > 0) ? 1 : 0;  // first k16 of an item: D = A*B
          wgmma_tile_k16<BM, F16_ACCUM, T>(acc, da, db, accumulate);
        }
        sm90::wgmma_commit_group();
        // Keep this k-block's MMAs in flight; the previous one has finished reading its stage.
        if (kb > 0) {
          sm90::wgmma_wait_group<1>();
          release(prev_stage);
        }
        prev_stage = stage;
        if (++stage == STAGES) stage = 0, phase ^= 1;
      };
      int kb = 0;
      if constexpr (DEFER_EPI) {
        // The previous tile's boxes, one after each of this tile's first k-blocks (all of them
        // at the end when the tile has fewer k-blocks than boxes). The k-blocks are issued
        // whether or not a tile is pending: wgmmas under a data-dependent branch make ptxas
        // serialize them (C7520) in the stream-K build.
        static_for<BOXES>([&](auto box) {
          if (kb < kb_count) k_block(kb++);
          if (pending)
            store_packed_box<decltype(box)::value, BOXES, Cfg::EPI_BUFS>(
                packed, &tmap_c, s_epi_own, Cfg::EPI_BUF_BYTES, pending_m0, pending_n0, M, warp,
                lane, wg_thread, wg_bar);
        });
        pending = false;
      }
      for (; kb < kb_count; ++kb) k_block(kb);
      sm90::wgmma_wait_group<0>();
      release(prev_stage);
#pragma unroll
      for (int i = 0; i < ACC_REGS; ++i) sm90::fence_operand(acc[i]);

      // ======== STREAM-K FIX-UP ========
      // The padding N tile of an odd tiles_n (cluster runs only) is neither published nor
      // gathered: publisher and finisher have the same rank, hence the same n_tile.
      if constexpr (STREAM_K) {
        const int slot_base = int(cta_rank) * Cfg::CONSUMERS + consumer;  // + cluster * CTA slots
        if (fixup == kFixupPublish) {  // partial: the tile's finisher adds it
          if (n_tile < sched.tiles_n)
            sk_publish(acc, cluster_id * CLUSTER * Cfg::CONSUMERS + slot_base, epoch, wg_thread,
                       wg_bar);
          continue;
        }
        if (fixup >= 0 && n_tile < sched.tiles_n) {  // add the tile's first k-blocks
          for (int cc = sk_prev_contributor(sched, cluster_id, fixup); cc >= 0;
               cc = sk_prev_contributor(sched, cc, fixup))
            sk_accumulate(acc, cc * CLUSTER * Cfg::CONSUMERS + slot_base, epoch, wg_thread, wg_bar);
        }
      }

      // ======== EPILOGUE ========
      // The padding N tile of an odd tiles_n (cluster runs only) stores nothing.
      if (n_tile >= sched.tiles_n) continue;
      const int m_tile0 = w.tile.m * BM;
      if constexpr (TMA_STORE) {
        if (sched.c_tma) {  // uniform: beta == 0, M % 8 == 0, C 16-byte aligned
          const int n0 = n_tile * BN + consumer * Cfg::WG_N;
          if (n0 >= N) continue;      // this warpgroup's rows are all past N
          if constexpr (DEFER_EPI) {  // stored during the next tile's first k-blocks
            if (alpha == 1.f)
              pack_tile<T, F16_ACCUM, false>(acc, alpha, packed);
            else
              pack_tile<T, F16_ACCUM, true>(acc, alpha, packed);
            pending = true, pending_m0 = m_tile0, pending_n0 = n0;
            continue;
          }
          if (alpha == 1.f)
            store_tile_tma<T, F16_ACCUM, false, BM, EPI_BUFS>(acc, alpha, &tmap_c, s_epi_own,
                                                              Cfg::EPI_BUF_BYTES, m_tile0, n0, M,
                                                              warp, lane, wg_thread, wg_bar);
          else
            store_tile_tma<T, F16_ACCUM, true, BM, EPI_BUFS>(acc, alpha, &tmap_c, s_epi_own,
                                                             Cfg::EPI_BUF_BYTES, m_tile0, n0, M,
                                                             warp, lane, wg_thread, wg_bar);
          continue;
        }
      }
      // Register epilogue. Thread (warp, g, q) holds, for h in {0,1} and chunk j < BM/8,
      // C(m, n) at n = n0 + 8h, m = m0 + 8j + 2q + {0,1}. For each quad of chunks 4J..4J+3 the
      // quad transpose leaves lane q with chunk 4J + q whole: 8 consecutive m, one 16-byte store.
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int n = n_tile * BN + n_in_tile + 8 * h;
        const bool row_ok = n < N;
        uint16_t* col =  // (M) column n of C, as raw 16-bit elements
            reinterpret_cast<uint16_t*>(c) + (row_ok ? size_t(n) * size_t(M) : 0);
#pragma unroll
        for (int J = 0; J < BM / 32; ++J) {
          const int m = m_tile0 + 8 * (4 * J + q);  // this lane's chunk after the transpose
          const int valid = row_ok ? min(M - m, 8) : 0;
          uint32_t c_old[4] = {0u, 0u, 0u, 0u};  // (8) C along m, 2 per register
          if (beta != 0.f) {  // uniform: BLAS semantics, C is not read when beta == 0
            if (valid > 0) load_chunk(col + m, valid, vec, c_old);
            quad_transpose(c_old, q);  // back to the fragment's pairs
          }
          uint32_t out[4];  // (4 chunks, 2) fragment pairs, then (8) along m after the transpose
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int j = 4 * J + i;  // chunk of the fragment
            float2 v;
            if constexpr (F16_ACCUM)
              v = unpack2<__half>(acc[2 * j + h]);
            else
              v = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
            v.x *= alpha, v.y *= alpha;
            if (beta != 0.f) {
              const float2 o = unpack2<T>(c_old[i]);
              v.x += beta * o.x, v.y += beta * o.y;
            }
            out[i] = pack2<T>(v.x, v.y);
          }
          quad_transpose(out, q);
          if (valid > 0) store_chunk(col + m, valid, vec, out);
        }
      }
    }
    if constexpr (DEFER_EPI) {  // the last tile's boxes
      if (pending)
        static_for<BOXES>([&](auto box) {
          store_packed_box<decltype(box)::value, BOXES, Cfg::EPI_BUFS>(
              packed, &tmap_c, s_epi_own, Cfg::EPI_BUF_BYTES, pending_m0, pending_n0, M, warp, lane,
              wg_thread, wg_bar);
        });
    }
    // TMA stores read shared memory until they complete: finish them before the CTA exits.
    if constexpr (TMA_STORE)
      if (wg_thread == 0) sm90::bulk_wait_group<0>();
  }
  // A CTA's shared memory must outlive its peers' last remote arrivals and multicasts into it.
  if constexpr (CLUSTER > 1) {
    __syncwarp();
    sm90::cluster_sync();
  }
#else
  // Not the sm_90a image: supports() keeps the runner from launching it.
  __trap();
#endif
}

// ---- Host side ----------------------------------------------------------------------------
using EncodeTiledFn = PFN_cuTensorMapEncodeTiled_v12000;

// cuTensorMapEncodeTiled from the driver, fetched once through the runtime: no link-time
// dependency on libcuda.
EncodeTiledFn tensor_map_encoder() {
  static const EncodeTiledFn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                cudaEnableDefault, &status));
    if (status != cudaDriverEntryPointSuccess || p == nullptr)
      throw CudaError("cuTensorMapEncodeTiled is not available from the installed CUDA driver");
    return reinterpret_cast<EncodeTiledFn>(p);
  }();
  return fn;
}

CUtensorMapDataType tensor_map_type(DType dtype) {
  return dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

// A K-major operand stored (rows, K), K contiguous, as a 2D tensor map: dimension 0 = K,
// dimension 1 = rows; box (64, box_rows) lands as box_rows rows of 128 bytes, 128B-swizzled;
// out-of-bounds elements read as zero.
CUtensorMap make_kmajor_map(const void* base, DType dtype, int rows, int k, int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(k) * 2};  // bytes between rows; K % 8 == 0
  const cuuint32_t box[2] = {64, cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  CU_CHECK(tensor_map_encoder()(&map, tensor_map_type(dtype), 2, const_cast<void*>(base), dims,
                                strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

// C (M,N) column-major as a 2D tensor map for TMA stores: dimension 0 = M (contiguous),
// dimension 1 = N; box (64, 64) read from a 128B-swizzled staging box (64 rows of 128 bytes, one
// per n). Needs M % 8 == 0 (16-byte column stride) and a 16-byte aligned base.
CUtensorMap make_c_store_map(void* base, DType dtype, int m, int n, int box) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(m), cuuint64_t(n)};
  const cuuint64_t strides[1] = {cuuint64_t(m) * 2};  // bytes between columns
  const cuuint32_t box_dims[2] = {cuuint32_t(box), cuuint32_t(box)};
  const cuuint32_t elem_strides[2] = {1, 1};
  CU_CHECK(tensor_map_encoder()(&map, tensor_map_type(dtype), 2, base, dims, strides, box_dims,
                                elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

// A registered variant: tile, ring depth, cluster size and the two optional features.
template <int BM_, int BN_, int STAGES_, int CLUSTER_, bool STREAM_K_ = false, int EPI_BUFS_ = 0,
          bool DEFER_EPI_ = false>
struct Sm90Variant {
  static constexpr int BM = BM_, BN = BN_, STAGES = STAGES_, CLUSTER = CLUSTER_;
  static constexpr bool STREAM_K = STREAM_K_;
  static constexpr bool DEFER_EPI = DEFER_EPI_;  // TMA-store boxes during the next tile
  static constexpr int EPI_BUFS = EPI_BUFS_;     // 0: register epilogue; else TMA store
  static constexpr bool TMA_STORE = EPI_BUFS_ > 0;
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER, EPI_BUFS>;
};

template <class T, bool F16_ACCUM, class V>
constexpr auto kernel_ptr() {
  return &hgemm_tn_sm90_kernel<T, F16_ACCUM, V::BM, V::BN, V::STAGES, V::CLUSTER, V::STREAM_K,
                               V::EPI_BUFS, V::DEFER_EPI>;
}

// Per device, once: raise the dynamic shared-memory limit and ask how many clusters can be
// resident at once (a persistent grid must not exceed it: the CTAs of a later wave would wait for
// the whole first wave; for CLUSTER = 1 it is the SM count).
template <class T, bool F16_ACCUM, class V>
int resident_clusters() {
  using Cfg = typename V::Cfg;
  static PerDevice<int> count;
  return count.get([](int dev) {
    const auto kernel = kernel_ptr<T, F16_ACCUM, V>();
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES));
    int n = 0;
    if constexpr (V::CLUSTER == 1) {
      n = resident_ctas(kernel, Cfg::THREADS, Cfg::SMEM_BYTES, dev);
    } else {
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = V::CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(V::CLUSTER);
      cfg.blockDim = dim3(Cfg::THREADS);
      cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg));
    }
    if (n < 1)
      throw std::runtime_error("hgemm_tn_sm90: not even one CTA/cluster fits on the device");
    return n;
  });
}

// GEMMBENCH_SM90_MAX_CLUSTERS=n (n >= 1): a smaller persistent grid, for tests (see the header).
int max_clusters_from_env() {
  static const int cap = [] {
    const char* e = std::getenv("GEMMBENCH_SM90_MAX_CLUSTERS");
    return e ? std::max(0, std::atoi(e)) : 0;
  }();
  return cap;
}

// GEMMBENCH_SM90_LOG_TILE=L (0..4): raster bands 2^L cluster tiles wide instead of
// raster_log_tile's choice, for measuring how the tile order changes L2 traffic (see the header).
int log_tile_from_env() {
  static const int log_tile = [] {
    const char* e = std::getenv("GEMMBENCH_SM90_LOG_TILE");
    return e ? std::clamp(std::atoi(e), 0, 4) : -1;
  }();
  return log_tile;
}

template <class T, bool F16_ACCUM, class V>
void run(const GemmArgs& args, cudaStream_t stream) {
  using Cfg = typename V::Cfg;
  int max_clusters = resident_clusters<T, F16_ACCUM, V>();
  if (const int cap = max_clusters_from_env(); cap > 0) max_clusters = std::min(max_clusters, cap);
  if constexpr (V::STREAM_K) max_clusters = std::min(max_clusters, kSkMaxCtas / V::CLUSTER);
  const GemmProblem& p = args.problem;
  const int M = int(p.m), N = int(p.n), K = int(p.k);
  Sm90Schedule sched = make_schedule(M, N, K, V::BM, V::BN, Cfg::BK, V::CLUSTER, max_clusters,
                                     V::STREAM_K, log_tile_from_env());
  const CUtensorMap map_a = make_kmajor_map(args.a, p.dtype, M, K, Cfg::A_SLICE_ROWS);
  const CUtensorMap map_b = make_kmajor_map(args.b, p.dtype, N, K, V::BN);
  CUtensorMap map_c{};  // left zero (and unread) unless the TMA-store epilogue runs
  if (V::TMA_STORE && args.beta == 0.f && M % 8 == 0 &&
      reinterpret_cast<uintptr_t>(args.c) % 16 == 0) {
    map_c = make_c_store_map(args.c, p.dtype, M, N, Cfg::EPI_BOX);
    sched.c_tma = 1;
  }
  const uint32_t epoch = V::STREAM_K ? next_sk_epoch() : 0u;

  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = V::CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(sched.clusters * V::CLUSTER);
  cfg.blockDim = dim3(Cfg::THREADS);
  cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = V::CLUSTER > 1 ? 1 : 0;  // CLUSTER = 1: a plain launch
  CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel_ptr<T, F16_ACCUM, V>(), map_a, map_b, map_c,
                                static_cast<T*>(args.c), M, N, args.alpha, args.beta, sched,
                                epoch));
}

template <class V>
void launch(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.dtype == DType::f16 && p.accum == Accum::f32)
    run<__half, false, V>(args, stream);
  else if (p.dtype == DType::f16 && p.accum == Accum::f16)
    run<__half, true, V>(args, stream);
  else if (p.dtype == DType::bf16 && p.accum == Accum::f32)
    run<__nv_bfloat16, false, V>(args, stream);
  else
    throw std::invalid_argument("hgemm_tn_sm90: unsupported dtype/accumulate pair");
}

template <class V>
const void* kernel_for(const GemmProblem& p) {
  if (p.dtype == DType::bf16)
    return reinterpret_cast<const void*>(kernel_ptr<__nv_bfloat16, false, V>());
  if (p.accum == Accum::f16) return reinterpret_cast<const void*>(kernel_ptr<__half, true, V>());
  return reinterpret_cast<const void*>(kernel_ptr<__half, false, V>());
}

template <class V>
std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  using Cfg = typename V::Cfg;
  if (caps.sm != 90)
    return "needs a compute capability 9.0 GPU (H100/H200): sm_90a wgmma/TMA code runs on no other";
  if (p.dtype == DType::bf16 && p.accum == Accum::f16) return "bf16 inputs accumulate in f32 only";
  // The sm_90a image declares the mbarriers as static shared memory; the trap stub that every
  // other pass compiles declares none. A build without 90a (or with plain sm_90) makes the driver
  // pick such a stub on this device.
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, kernel_for<V>(p));
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("cannot query the kernel image: ") + cudaGetErrorString(e);
  }
  if (attr.sharedSizeBytes == 0)
    return "this build has no sm_90a code (configure with CMAKE_CUDA_ARCHITECTURES containing 90a)";
  if (p.k % 8 != 0) return "K must be a multiple of 8: TMA needs 16-byte aligned row strides";
  if (p.m >= (int64_t(1) << 30) || p.n >= (int64_t(1) << 30) || p.k >= (int64_t(1) << 30))
    return "M, N and K must be below 2^30 (32-bit tile coordinates)";
  const int64_t cluster_tiles_n =
      (p.n + int64_t(V::BN) * V::CLUSTER - 1) / (int64_t(V::BN) * V::CLUSTER);
  // Raster slots, padded to whole bands of up to 16 (GEMMBENCH_SM90_LOG_TILE allows 2^4).
  if ((p.m + V::BM - 1) / V::BM * 16 * (cluster_tiles_n + 15) >= (int64_t(1) << 31))
    return "too many tiles for the 32-bit persistent tile index";
  if (caps.smem_per_block_optin < size_t(Cfg::SMEM_BYTES) + attr.sharedSizeBytes)
    return "needs " + std::to_string((Cfg::SMEM_BYTES + attr.sharedSizeBytes) / 1024) +
           " KB of shared memory per block, the device allows " +
           std::to_string(caps.smem_per_block_optin / 1024);
  return {};
}

template <class V>
KernelInfo sm90_info(std::string name, std::string summary) {
  return KernelInfo{
      .name = std::move(name),
      .family = "hgemm",
      .rung = 10,
      .summary = std::move(summary),
      .dtypes = {DType::f16, DType::bf16},
      .accums = {Accum::f32, Accum::f16},
      .layouts = {Layout::tn},
      .min_sm = 90,
      .supports = supports<V>,
      .launch = launch<V>,
  };
}

}  // namespace

// hgemm_tn_sm90: the deferred TMA-store epilogue, measured best at 5120x4096x4096 and 4096^3;
// hgemm_tn_sm90_sk_defer adds the stream-K tail, best at 8192^3 (see the header).
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<256, 128, 4, 2, false, 2, true>>(
    "hgemm_tn_sm90",
    "Hopper TMA+mbarrier+wgmma, warp-specialized, persistent; 256x128x64, 4 stages, 2-CTA "
    "multicast, stmatrix + TMA-store epilogue deferred into the next tile's first k-blocks"));
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<256, 128, 4, 2, true, 2, true>>(
    "hgemm_tn_sm90_sk_defer",
    "256x128x64, stream-K tail and the deferred TMA-store epilogue of hgemm_tn_sm90 (the fastest "
    "at 8192^3)"));

}  // namespace gemmbench
