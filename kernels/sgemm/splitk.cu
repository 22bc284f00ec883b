// sgemm_splitk, sgemm_streamk — SGEMM ladder, rung 9 (top): K split over the SMs.
//
// Rung 8's tiles leave SMs idle where the tiles do not fill whole waves: at M = 16 or 128 (N = K
// = 4096) they give 32-64 CTAs for 132 SMs, at 1536^3 72 tiles of 256x128. This rung keeps rung
// 8's mainloop (k-outer shared tiles filled by a cp.async ring, fragments double-buffered in
// registers) and cuts K between CTAs. sgemm_splitk sizes BM to M and splits each tile's K into
// equal ranges, one CTA per (tile, range), one full wave (splitk_schedule.hpp). sgemm_streamk
// lays all tiles' k-tiles end to end and gives each CTA the same share of the whole (stream-K):
// whole tiles in its middle, parts of a shared tile at its ends. A part's f32 partial goes to a
// workspace slot; the last part of a tile to arrive (an int counter) sums the slots in part
// order, never arrival order (the same bits every run), and runs the alpha/beta epilogue. No
// TF32, no float atomics. At M <= 32 a K-contiguous op(B) (NN, TN) streams in 16-byte cp.async
// into swizzled row-major tiles (RowCopy). Tiles (BM x BN x BK, warp, thread tile, stages, CTAs
// per SM aimed at), split-K by M: <= 16: 16x128x32, 16x32, 4x4, 4, 2; <= 32: 32x128x16, 32x32,
// 4x8, 4, 2; <= 64: 64x128x8, 64x32, 8x8, 4, 2; above, and stream-K: 128x64x16, 64x32, 8x8, 3, 3.
// Constraints: sm_80+; every layout; any M, N, K >= 1 below 2^31 - 256 (16-byte paths need
// 16-byte aligned leading dimensions). Workspace: grown on a shape's first launch; one stream.
// Measured (H100, 2026-11-25, sustained, f32 NN): sgemm_splitk at N = K = 4096 1.245x cuBLAS at
// M = 16, 0.953x at M = 128 (bench_results/h100/2026-11-25_sgemm_splitk_candidates.json.gz);
// sgemm_streamk 1.172x at 1536^3, 1.045x at 2560^3, 0.946-1.092x over the squares 1024-8192
// (2026-11-25_sgemm_streamk_candidates.json.gz). Tuning and limits: docs/sgemm.md.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/align.hpp"
#include "common/layout_dispatch.hpp"
#include "common/occupancy.hpp"
#include "common/split_workspace.hpp"
#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "core/cuda_check.hpp"
#include "core/registry.hpp"
#include "sgemm/launch.cuh"
#include "sgemm/splitk_schedule.hpp"
#include "sgemm/stage_copy.cuh"
#include "sgemm/tile_copy.cuh"

namespace gemmbench {
namespace {

namespace sk = sgemm::splitk;

// Largest rasterization width (as rung 8); matters only for M > 128, where tiles outnumber SMs.
constexpr int kMaxSwizzle = 8;

// The 16-byte cp.async copies of a K-contiguous operand's (ROWS,BK) k-tiles into row-major
// shared tiles, for one thread: X(r, k) (at x * ld + k) goes to xs[sk::b_row_offset<BK>(r, k)].
// A warp copies 32 chunks of 16 bytes, whole 128-byte rows when BK = 32: the stream of a wide
// K-contiguous op(B) (NN, TN) in the fewest, largest requests (StageCopy's transposing 4-byte
// copies streamed it at 1.6 TB/s at M = 16, these at 1.9: docs/sgemm.md).
// The chunks of a row are XOR-swizzled (splitk_schedule.hpp) so that the lanes reading one k of
// rows 4 apart (LN lanes along N, each on its own 4 columns) hit distinct banks.
// Requires ld % 4 == 0 and a 16-byte aligned x (the launcher's VEC), so a chunk is wholly below K
// or wholly above it (K % 4 == 0). Rows past the extent are clamped, as in StageCopy.
template <int ROWS, int BK, int THREADS>
struct RowCopy {
  static constexpr int CHUNKS = BK / 4;  // 16-byte chunks per row
  static constexpr int ROWS_PER_PASS = THREADS / CHUNKS;
  static constexpr int COPIES = ROWS / ROWS_PER_PASS;
  static_assert(BK % 4 == 0 && THREADS % CHUNKS == 0 && ROWS % ROWS_PER_PASS == 0,
                "a pass copies whole rows and the passes tile the block's rows");

  const float* src[COPIES];  // the thread's chunk of each row it copies, next k-tile
  int chunk;                 // the thread's chunk within a row (k = 4 * chunk .. + 3)
  int r0;                    // the thread's first row

  __device__ __forceinline__ RowCopy(const float* x, int64_t ld, int extent, int x0, int k_first,
                                     int tid)
      : chunk(tid % CHUNKS), r0(tid / CHUNKS) {
#pragma unroll
    for (int i = 0; i < COPIES; ++i) {
      const int row = min(x0 + r0 + i * ROWS_PER_PASS, extent - 1);
      src[i] = x + row * ld + k_first + 4 * chunk;
    }
  }

  __device__ __forceinline__ void issue_full(float* xs, int64_t) {
#pragma unroll
    for (int i = 0; i < COPIES; ++i) {
      ptx::cp_async_16(xs + sk::b_row_offset<BK>(r0 + i * ROWS_PER_PASS, 4 * chunk), src[i]);
      src[i] += BK;
    }
  }

  // The k-tile that crosses K: chunks at or past k_left are zero-filled from the base pointer.
  __device__ __forceinline__ void issue_partial(float* xs, const float* x, int64_t, int k_left) {
    const bool in = 4 * chunk < k_left;
#pragma unroll
    for (int i = 0; i < COPIES; ++i) {
      ptx::cp_async_16(xs + sk::b_row_offset<BK>(r0 + i * ROWS_PER_PASS, 4 * chunk),
                       in ? src[i] : x, in ? 16 : 0);
      src[i] += BK;
    }
  }
};

// A tile configuration: BM x BN x BK, the CTAs per SM the split aims at, the warp and thread
// tiles, the ring depth, and the blocks per SM the register allocation is bounded for.
// B_ROWS: a K-contiguous op(B) on the 16-byte path (VEC) is copied by RowCopy into row-major
// tiles and read one float per column and k (TN LDS.32 per k instead of TN/4 LDS.128: worth it
// where the B stream, not the FFMAs, bounds the time); otherwise StageCopy's k-outer tiles.
template <int BM_, int BN_, int BK_, int TARGET_PER_SM_, int WM_, int WN_, int TM_, int TN_,
          int STAGES_, int MIN_BLOCKS_, bool B_ROWS_>
struct Tile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TARGET_PER_SM = TARGET_PER_SM_;
  static constexpr int WM = WM_, WN = WN_, TM = TM_, TN = TN_;
  static constexpr int STAGES = STAGES_, MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr bool B_ROWS = B_ROWS_;
  static constexpr int WARPS_M = BM / WM;
  static constexpr int THREADS = 32 * WARPS_M * (BN / WN);
  static constexpr int LDA = BM + 4, LDB = BN + 4;
  static constexpr int A_STAGE = BK * LDA;  // floats
  // A stage holds either op(B) layout (a B_ROWS configuration uses the k-outer one off the
  // 16-byte path): k-outer [BK][LDB], the larger.
  static constexpr int B_STAGE = BK * LDB;  // floats
  static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * 4;
  // Static shared memory while it fits in 48 KB (ptxas then knows the tiles' addresses, which
  // saves registers), dynamic past it (the launcher opts in).
  static constexpr int DYNAMIC_SMEM = SMEM_BYTES > 48 * 1024 ? SMEM_BYTES : 0;
  static constexpr int PARTIAL = BM * BN;  // floats per workspace slot

  static_assert(BM % WM == 0 && BN % WN == 0, "the block tile is a whole number of warp tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 float4 sub-tiles");
  static_assert(WM % TM == 0 && WN % TN == 0 && (WM / TM) * (WN / TN) == 32,
                "the warp tile must hold exactly 32 thread tiles: LM x LN = 32 lanes");
  static_assert((WM / TM) * 4 <= 32 && (WN / TN) * 4 <= 32,
                "one fragment read spans LM (or LN) float4s: at most 128 bytes, one wavefront");
  static_assert(STAGES >= 2, "a pipeline needs at least two shared-memory stages");
  static_assert(PARTIAL == THREADS * TM * TN, "a workspace slot holds every thread's tile once");
  static_assert(BN * BK <= B_STAGE, "the row-major op(B) tile fits in a stage");
  static_assert(!B_ROWS || (WN / TN) <= BK / 4,
                "row-major B tiles: the LN lanes reading one k must fall in distinct swizzled "
                "chunks, so LN <= BK / 4");
};

// Entry I of sk::kTiles (BM, BN, BK, CTAs per SM: the host test and supports() read the same
// table) with its warp and thread tiles, stages and register bound.
template <int I, int WM, int WN, int TM, int TN, int STAGES, int MIN_BLOCKS, bool B_ROWS>
using TableTile = Tile<sk::kTiles[I].bm, sk::kTiles[I].bn, sk::kTiles[I].bk,
                       sk::kTiles[I].target_per_sm, WM, WN, TM, TN, STAGES, MIN_BLOCKS, B_ROWS>;

//                    I  WM  WN TM TN STAGES MIN_BLOCKS B_ROWS
using T16 = TableTile<0, 16, 32, 4, 4, 4, 2, true>;
using T32 = TableTile<1, 32, 32, 4, 8, 4, 2, true>;
using T64 = TableTile<2, 64, 32, 8, 8, 4, 3, false>;
using T128 = TableTile<3, 64, 32, 8, 8, 3, 3, false>;

struct SplitKParams {
  int m, n, k;
  float alpha, beta;
  const float* a;  // op(A) source, lda
  int64_t lda;
  const float* b;  // op(B) source, ldb
  int64_t ldb;
  float* c;  // (M,N) column-major, ldc
  int64_t ldc;
  int log_tile;
  sk::Schedule sched;  // the split-K walk (STREAM_K = false)
  sk::StreamK walk;    // the stream-K walk (STREAM_K = true)
  float* partials;     // (slots, BM*BN) f32 in thread order; unused without a shared tile
  int* counters;       // (tiles) arrivals, zero between launches; unused without a shared tile
};

// The shared tiles of one CTA: (BM,BK,STAGES) op(A), k-outer, m contiguous, and (BK,BN,STAGES)
// op(B): k-outer [k][LDB], or B_ROWS [n][BK] swizzled.
template <class Cfg>
struct Ring {
  using ATiles = float[Cfg::STAGES][Cfg::BK][Cfg::LDA];
  using BTiles = float[Cfg::STAGES][Cfg::B_STAGE];
  ATiles& as;
  BTiles& bs;
  int& last;  // this CTA is the last of the tile's parts to arrive
};

// One CTA's share of one C tile: k-tiles [kt_begin, kt_begin + count) of tile (tile_m, tile_n),
// counter index `tile`, as part `part` of `parts` (parts = 1: the whole K, no fixup).
// slot_of(p) is the workspace slot of part p's partial.
struct Part {
  int tile_m, tile_n, tile;
  int kt_begin, count;
  int parts, part;
};

// The mainloop over the part's k-tiles and the epilogue; with parts > 1 the fixup: store the
// partial, count the arrival, and the last part of the tile to arrive sums every part's partial in
// part order (never arrival order: deterministic) into the same accumulator registers.
template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, bool VEC, class SlotOf>
__device__ __forceinline__ void run_part(const SplitKParams& prm, Ring<Cfg> ring, const Part& w,
                                         SlotOf slot_of) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int TM = Cfg::TM, TN = Cfg::TN, THREADS = Cfg::THREADS;
  constexpr int LM = Cfg::WM / TM;  // lanes along M in a warp
  constexpr int LN = Cfg::WN / TN;  // lanes along N in a warp
  constexpr int LDA = Cfg::LDA, LDB = Cfg::LDB;
  // op(B) K-contiguous on the 16-byte path, in a configuration that asks for it: row-major
  // tiles (RowCopy); otherwise k-outer tiles like op(A).
  constexpr bool B_ROWS = Cfg::B_ROWS && B_K_MAJOR && VEC;
  auto& as = ring.as;  // (BM,BK,STAGES)
  auto& bs = ring.bs;  // (BK,BN,STAGES)

  const int m0 = w.tile_m * BM;
  const int n0 = w.tile_n * BN;
  // The first `full` k-tiles lie wholly below K, a last one may cross it (only in the last part).
  const int full = sk::full_k_tiles(w.kt_begin, w.count, prm.k, BK);

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  // First row / column of the thread's first 4x4 sub-tile within the block tile; sub-tile (q, p)
  // is offset by (q * LM * 4, p * LN * 4).
  const int tm = (warp % Cfg::WARPS_M) * Cfg::WM + (lane % LM) * 4;
  const int tn = (warp / Cfg::WARPS_M) * Cfg::WN + (lane / LM) * 4;

  // ================================ PROLOGUE ================================
  // k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the last k-tile
  // keep the group count, and so cp_async_wait's meaning, uniform).
  sgemm::StageCopy<BM, BK, LDA, THREADS, A_K_MAJOR, VEC> a_copy(prm.a, prm.lda, prm.m, m0,
                                                                w.kt_begin * BK, tid);
  using BCopy = std::conditional_t<B_ROWS, RowCopy<BN, BK, THREADS>,
                                   sgemm::StageCopy<BN, BK, LDB, THREADS, B_K_MAJOR, VEC>>;
  BCopy b_copy(prm.b, prm.ldb, prm.n, n0, w.kt_begin * BK, tid);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    sgemm::copy_stage(s, full, w.count, prm.k - (w.kt_begin + s) * BK, a_copy, b_copy, &as[s][0][0],
                      &bs[s][0], prm.a, prm.lda, prm.b, prm.ldb);
    ptx::cp_async_commit();
  }
  ptx::cp_async_wait<STAGES - 2>();  // k-tile 0 has landed (for this thread's copies) ...
  __syncthreads();                   // ... and for everyone's

  // C(m0 + tm + (i/4)*LM*4 + i%4, n0 + tn + (j/4)*LN*4 + j%4) is acc[i][j].
  float acc[TM][TN] = {};  // (TM,TN) registers
  float a_frag[2][TM];     // (2,TM) registers: op(A) fragments, double-buffered over k
  float b_frag[2][TN];     // (2,TN) registers: op(B) fragments, double-buffered over k
  auto load_fragments = [&](int stage, int k, int buf) {
#pragma unroll
    for (int q = 0; q < TM / 4; ++q)
      sgemm::unpack(*reinterpret_cast<const float4*>(&as[stage][k][tm + q * LM * 4]),
                    &a_frag[buf][4 * q]);
    if constexpr (B_ROWS) {
      // Column nb + jj (nb a multiple of 4) sits jj rows below column nb, in the same chunk.
#pragma unroll
      for (int p = 0; p < TN / 4; ++p) {
        const float* b = &bs[stage][sk::b_row_offset<BK>(tn + p * LN * 4, k)];
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) b_frag[buf][4 * p + jj] = b[jj * BK];
      }
    } else {
#pragma unroll
      for (int p = 0; p < TN / 4; ++p)
        sgemm::unpack(*reinterpret_cast<const float4*>(&bs[stage][k * LDB + tn + p * LN * 4]),
                      &b_frag[buf][4 * p]);
    }
  };
  load_fragments(0, 0, 0);

  int read_stage = 0;            // slot holding k-tile t
  int write_stage = STAGES - 1;  // slot k-tile t + STAGES - 1 is copied into (it held t - 1)

  // ================================ MAINLOOP ================================
  for (int t = 0; t < w.count; ++t) {
    // The slot of k-tile t-1 is free: every thread passed the barrier below (previous
    // iteration) after its last fragment read of that k-tile.
    const int ahead = t + STAGES - 1;
    sgemm::copy_stage(ahead, full, w.count, prm.k - (w.kt_begin + ahead) * BK, a_copy, b_copy,
                      &as[write_stage][0][0], &bs[write_stage][0], prm.a, prm.lda, prm.b, prm.ldb);
    ptx::cp_async_commit();

#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk == BK - 1) {
        // Fragments of step BK-1 are in registers; move to k-tile t+1. Groups committed so
        // far: STAGES - 1 + t + 1; at most STAGES - 2 pending completes k-tiles 0 .. t+1. The
        // barrier publishes k-tile t+1 and ends every read of k-tile t.
        ptx::cp_async_wait<STAGES - 2>();
        __syncthreads();
        read_stage = read_stage == STAGES - 1 ? 0 : read_stage + 1;
        write_stage = write_stage == STAGES - 1 ? 0 : write_stage + 1;
      }
      // Prefetch step kk+1 (step 0 of k-tile t+1 at the end of a k-tile; after the last k-tile
      // that reads a slot no copy is pending on, and the values are never used).
      load_fragments(read_stage, (kk + 1) % BK, (kk + 1) % 2);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[kk % 2][i] * b_frag[kk % 2][j];
    }
  }
  ptx::cp_async_wait<0>();  // only empty groups remain; leave nothing in flight at exit

  // ================================ EPILOGUE ================================
  if (w.parts > 1) {
    float4* const partials = reinterpret_cast<float4*>(prm.partials);
    constexpr int SLOT4 = Cfg::PARTIAL / 4;
    float4* const mine = partials + slot_of(w.part) * SLOT4;  // (TM/4*TN, THREADS) float4
#pragma unroll
    for (int q = 0; q < TM / 4; ++q)
#pragma unroll
      for (int j = 0; j < TN; ++j)
        __stcg(mine + sk::partial_index<TN, THREADS>(q, j, tid),
               make_float4(acc[4 * q][j], acc[4 * q + 1][j], acc[4 * q + 2][j], acc[4 * q + 3][j]));
    __threadfence();  // this thread's partial is visible device-wide before the arrival
    __syncthreads();
    if (tid == 0) ring.last = atomicAdd(prm.counters + w.tile, 1) == w.parts - 1;
    __syncthreads();
    if (!ring.last) return;
    __threadfence();                         // the other parts are read after their arrivals
    if (tid == 0) prm.counters[w.tile] = 0;  // every part arrived: ready for the next launch
    for (int s = 0; s < w.parts; ++s) {
      const float4* src = partials + slot_of(s) * SLOT4;
#pragma unroll
      for (int q = 0; q < TM / 4; ++q)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const float4 v = __ldcg(src + sk::partial_index<TN, THREADS>(q, j, tid));
          if (s == 0) {
            acc[4 * q][j] = v.x;
            acc[4 * q + 1][j] = v.y;
            acc[4 * q + 2][j] = v.z;
            acc[4 * q + 3][j] = v.w;
          } else {
            acc[4 * q][j] += v.x;
            acc[4 * q + 1][j] += v.y;
            acc[4 * q + 2][j] += v.z;
            acc[4 * q + 3][j] += v.w;
          }
        }
    }
  }
  sgemm::store_warp_tile<TM, TN, LM, LN, VEC>(acc, prm.c, prm.ldc, prm.m, prm.n, m0 + tm, n0 + tn,
                                              prm.alpha, prm.beta);
}

// STREAM_K = false: split-K, one CTA per (tile, split) on a rasterized (tiles, splits) grid.
// STREAM_K = true: one CTA per range of the stream-K walk on a 1-D grid, its segments in order.
template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, bool VEC, bool STREAM_K>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    sgemm_splitk_kernel(const SplitKParams prm) {
  using R = Ring<Cfg>;
  typename R::ATiles* a_tiles;
  typename R::BTiles* b_tiles;
  if constexpr (Cfg::DYNAMIC_SMEM == 0) {
    alignas(16) __shared__ typename R::ATiles a_static;
    alignas(16) __shared__ typename R::BTiles b_static;
    a_tiles = &a_static;
    b_tiles = &b_static;
  } else {
    extern __shared__ float4 dynamic_tiles[];
    a_tiles = reinterpret_cast<typename R::ATiles*>(dynamic_tiles);
    b_tiles = reinterpret_cast<typename R::BTiles*>(reinterpret_cast<float*>(dynamic_tiles) +
                                                    Cfg::STAGES * Cfg::A_STAGE);
  }
  __shared__ int s_last;
  const R ring{*a_tiles, *b_tiles, s_last};

  if constexpr (!STREAM_K) {
    const sk::Schedule& sched = prm.sched;
    const TileCoord tile = raster_tile(blockIdx.x, blockIdx.y, prm.log_tile);
    if (!raster_tile_valid(tile, sched.tiles_m, sched.tiles_n)) return;  // raster padding block
    const int split = blockIdx.z;
    const int t = tile.n * sched.tiles_m + tile.m;
    const int begin = sched.k_tile_begin(split);
    const Part w{tile.m,       tile.n, t, begin, sched.k_tile_begin(split + 1) - begin,
                 sched.splits, split};
    run_part<Cfg, A_K_MAJOR, B_K_MAJOR, VEC>(prm, ring, w, [&](int s) { return sched.slot(t, s); });
  } else {
    const sk::StreamK& walk = prm.walk;
    const int c = blockIdx.x;
    const int64_t first = walk.begin(c), end = walk.begin(c + 1);
    for (int64_t it = first; it < end;) {
      const sk::Segment g = walk.segment(c, it);
      // The previous segment's last reads of the ring and of s_last are behind every thread
      // before this one's prologue copies into the ring.
      if (it != first) __syncthreads();
      const Part w{g.tile % walk.tiles_m,
                   g.tile / walk.tiles_m,
                   g.tile,
                   g.k_begin,
                   g.count,
                   g.parts,
                   g.part};
      run_part<Cfg, A_K_MAJOR, B_K_MAJOR, VEC>(prm, ring, w,
                                               [&](int p) { return sk::StreamK::part_slot(g, p); });
      it += g.count;
    }
  }
}

SplitWorkspace& workspace() {
  static SplitWorkspace* ws = new SplitWorkspace();  // never destroyed: no cudaFree at exit
  return *ws;
}

// 16-byte copies and float4 stores need 16-byte aligned rows: ldc and the leading dimension of
// every M/N-contiguous operand must be multiples of 4 floats (K-contiguous operands use 4-byte
// copies, except op(B) in a B_ROWS configuration), and the base pointers 16-byte aligned.
// A K-contiguous op(B) in a B_ROWS configuration is copied in 16-byte pieces too (ldb % 4 == 0).
template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR>
bool can_vectorize(const GemmArgs& args) {
  const GemmProblem& p = args.problem;
  const bool b_wide = !B_K_MAJOR || Cfg::B_ROWS;
  return (A_K_MAJOR || p.lda() % 4 == 0) && (!b_wide || p.ldb() % 4 == 0) && p.ldc() % 4 == 0 &&
         aligned16(args.a) && aligned16(args.b) && aligned16(args.c);
}

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, bool VEC, bool STREAM_K>
void run(const GemmArgs& args, cudaStream_t stream) {
  const auto kernel = sgemm_splitk_kernel<Cfg, A_K_MAJOR, B_K_MAJOR, VEC, STREAM_K>;
  // CTAs the walk aims at: SMs x min(occupancy, TARGET_PER_SM), asked once per device (the
  // shared-memory opt-in, past 48 KB, with it).
  static PerDevice<int> target;
  int target_ctas = target.get([&](int dev) {
    if constexpr (Cfg::DYNAMIC_SMEM > 0)
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      Cfg::DYNAMIC_SMEM));
    return std::min(resident_ctas(kernel, Cfg::THREADS, Cfg::DYNAMIC_SMEM, dev),
                    Cfg::TARGET_PER_SM * sm_count(dev));
  });
  if (args.test_max_ctas > 0) target_ctas = std::min(target_ctas, args.test_max_ctas);  // test-only

  const GemmProblem& p = args.problem;
  SplitKParams prm{};
  prm.m = int(p.m);
  prm.n = int(p.n);
  prm.k = int(p.k);
  prm.alpha = args.alpha;
  prm.beta = args.beta;
  prm.a = static_cast<const float*>(args.a);
  prm.lda = p.lda();
  prm.b = static_cast<const float*>(args.b);
  prm.ldb = p.ldb();
  prm.c = static_cast<float*>(args.c);
  prm.ldc = p.ldc();
  dim3 grid;
  if constexpr (STREAM_K) {
    prm.walk = sk::make_stream_k(p.m, p.n, p.k, Cfg::BM, Cfg::BN, Cfg::BK, target_ctas);
    if (prm.walk.ctas > 1) {
      const SplitWorkspace::View ws = workspace().get(size_t(prm.walk.slots()) * Cfg::PARTIAL,
                                                      size_t(prm.walk.tiles()), stream);
      prm.partials = ws.partials;
      prm.counters = ws.counters;
    }
    grid = dim3(unsigned(prm.walk.ctas));
  } else {
    prm.sched = sk::make_schedule(p.m, p.n, p.k, Cfg::BM, Cfg::BN, Cfg::BK, target_ctas);
    prm.log_tile = raster_log_tile(prm.sched.tiles_n, kMaxSwizzle);
    if (prm.sched.splits > 1) {
      const SplitWorkspace::View ws = workspace().get(size_t(prm.sched.slots()) * Cfg::PARTIAL,
                                                      size_t(prm.sched.tiles()), stream);
      prm.partials = ws.partials;
      prm.counters = ws.counters;
    }
    const RasterGrid rg = raster_grid(prm.sched.tiles_m, prm.sched.tiles_n, prm.log_tile);
    grid = dim3(unsigned(rg.x), unsigned(rg.y), unsigned(prm.sched.splits));
  }
  kernel<<<grid, Cfg::THREADS, Cfg::DYNAMIC_SMEM, stream>>>(prm);
}

template <class Cfg, bool STREAM_K>
void run_tile(const GemmArgs& args, cudaStream_t stream) {
  dispatch_layout(args.problem.layout, [&](auto a_k_major, auto b_k_major) {
    constexpr bool A_K_MAJOR = decltype(a_k_major)::value;
    constexpr bool B_K_MAJOR = decltype(b_k_major)::value;
    if (can_vectorize<Cfg, A_K_MAJOR, B_K_MAJOR>(args))
      run<Cfg, A_K_MAJOR, B_K_MAJOR, true, STREAM_K>(args, stream);
    else
      run<Cfg, A_K_MAJOR, B_K_MAJOR, false, STREAM_K>(args, stream);
  });
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.m == 0 || p.n == 0) return;
  switch (sk::tile_for(p.m)) {
    case 0:
      return run_tile<T16, false>(args, stream);
    case 1:
      return run_tile<T32, false>(args, stream);
    case 2:
      return run_tile<T64, false>(args, stream);
    default:
      return run_tile<T128, false>(args, stream);
  }
}

constexpr int kSmemBytes[] = {T16::SMEM_BYTES, T32::SMEM_BYTES, T64::SMEM_BYTES, T128::SMEM_BYTES};
static_assert(sizeof(kSmemBytes) / sizeof(kSmemBytes[0]) == sk::kTileCount,
              "one kernel configuration per entry of sk::kTiles");

std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (p.m > INT_MAX - 256 || p.n > INT_MAX - 256 || p.k > INT_MAX - 256)
    return "M, N and K must each be below 2^31 - 256 (32-bit row and k indices past a tile edge)";
  const int i = sk::tile_for(p.m);
  const sk::TileShape& t = sk::kTiles[i];
  const int64_t tiles_m = (p.m + t.bm - 1) / t.bm, tiles_n = (p.n + t.bn - 1) / t.bn;
  if (tiles_m * tiles_n > INT_MAX) return "too many tiles for 32-bit tile indices";
  if (raster_grid(1, int(tiles_n), raster_log_tile(int(tiles_n), kMaxSwizzle)).y > 65535)
    return "N is too large for the grid's y dimension (65535 blocks)";
  if (caps.smem_per_block_optin != 0 && caps.smem_per_block_optin < size_t(kSmemBytes[i]))
    return "needs " + std::to_string(kSmemBytes[i] / 1024) +
           " KB of shared memory per block for M = " + std::to_string(p.m) +
           "; the device allows " + std::to_string(caps.smem_per_block_optin / 1024) + " KB";
  return "";
}

// Stream-K: 32-bit tile and k-tile indices, and 64-bit products of an iteration index and the
// CTA count (StreamK::cta_of) for up to 2^12 CTAs.
template <class Cfg>
std::string stream_k_supports(const GemmProblem& p, const DeviceCaps&) {
  if (p.m > INT_MAX - 256 || p.n > INT_MAX - 256 || p.k > INT_MAX - 256)
    return "M, N and K must each be below 2^31 - 256 (32-bit row and k indices past a tile edge)";
  const int64_t tiles = ((p.m + Cfg::BM - 1) / Cfg::BM) * ((p.n + Cfg::BN - 1) / Cfg::BN);
  if (tiles > INT_MAX) return "too many tiles for 32-bit tile indices";
  if (tiles * ((p.k + Cfg::BK - 1) / Cfg::BK) > (int64_t(1) << 50))
    return "more than 2^50 k-tiles in all: the stream-K walk's 64-bit index math";
  return "";
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(sgemm::rung_info(
    "sgemm_splitk", 9,
    "small M: M-sized tiles, K split to fill every SM, deterministic f32 fixup (rung 8's loop)", 80,
    supports, launch));
GEMMBENCH_REGISTER_KERNEL(sgemm::rung_info(
    "sgemm_streamk", 9,
    "stream-K: the k-tiles of all 128x64 tiles cut evenly over the SMs (3 CTAs each), "
    "deterministic f32 fixup",
    80, stream_k_supports<T128>, run_tile<T128, true>));
}  // namespace gemmbench
