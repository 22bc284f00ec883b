// The mainloop of the pipelined SGEMM rungs (sgemm_pipelined, rung 8; sgemm_splitk and
// sgemm_streamk, rung 9): a tile configuration, its shared-memory ring, and the loop that
// accumulates a range of k-tiles of one C tile into a thread's registers. Rung 8 runs it over the
// whole K of a tile; rung 9 over one part of a tile's K, then sums the parts. Device code;
// included by those two rungs only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/ptx.cuh"
#include "sgemm/splitk_schedule.hpp"
#include "sgemm/stage_copy.cuh"
#include "sgemm/tile_copy.cuh"

namespace gemmbench::sgemm {

// A tile configuration: BM x BN x BK, the warp and thread tiles, the ring depth and the blocks
// per SM the register allocation is bounded for. B_ROWS: a K-contiguous op(B) on the 16-byte
// path (VEC) is copied by RowCopy into row-major tiles and read one float per column and k (TN
// LDS.32 per k instead of TN/4 LDS.128: worth it where the B stream, not the FFMAs, bounds the
// time); otherwise StageCopy's k-outer tiles.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_,
          int MIN_BLOCKS_, bool B_ROWS_ = false>
struct PipelinedTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int WM = WM_, WN = WN_, TM = TM_, TN = TN_;
  static constexpr int STAGES = STAGES_, MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr bool B_ROWS = B_ROWS_;
  static constexpr int WARPS_M = BM / WM;
  static constexpr int THREADS = 32 * WARPS_M * (BN / WN);
  static constexpr int LM = WM / TM;  // lanes along M in a warp
  static constexpr int LN = WN / TN;  // lanes along N in a warp
  static constexpr int LDA = BM + 4, LDB = BN + 4;
  static constexpr int A_STAGE = BK * LDA;  // floats
  // A stage holds either op(B) layout (a B_ROWS configuration uses the k-outer one off the
  // 16-byte path): k-outer [BK][LDB], the larger.
  static constexpr int B_STAGE = BK * LDB;  // floats
  static constexpr int SMEM_BYTES = STAGES * (A_STAGE + B_STAGE) * 4;
  // Static shared memory while it fits in 48 KB (ptxas then knows the tiles' addresses, which
  // saves registers), dynamic past it (the launcher opts in).
  static constexpr int DYNAMIC_SMEM = SMEM_BYTES > 48 * 1024 ? SMEM_BYTES : 0;
  static constexpr int PARTIAL = BM * BN;  // floats of one partial tile (rung 9's workspace slot)

  static_assert(BM % WM == 0 && BN % WN == 0, "the block tile is a whole number of warp tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 float4 sub-tiles");
  static_assert(WM % TM == 0 && WN % TN == 0 && LM * LN == 32,
                "the warp tile must hold exactly 32 thread tiles: LM x LN = 32 lanes");
  static_assert(LM * 4 <= 32 && LN * 4 <= 32,
                "one fragment read spans LM (or LN) float4s: at most 128 bytes, one wavefront");
  static_assert(STAGES >= 2, "a pipeline needs at least two shared-memory stages");
  static_assert(PARTIAL == THREADS * TM * TN, "a partial tile holds every thread's tile once");
  static_assert(!B_ROWS || LN <= BK / 4,
                "row-major B tiles: the LN lanes reading one k must fall in distinct swizzled "
                "chunks, so LN <= BK / 4");
};

// The 16-byte cp.async copies of a K-contiguous operand's (ROWS,BK) k-tiles into row-major
// shared tiles, for one thread: X(r, k) (at x * ld + k) goes to xs[splitk::b_row_offset<BK>(r,
// k)]. A warp copies 32 chunks of 16 bytes, whole 128-byte rows when BK = 32: the stream of a
// wide K-contiguous op(B) (NN, TN) in the fewest, largest requests (StageCopy's transposing
// 4-byte copies streamed it at 1.6 TB/s at M = 16, these at 1.9: docs/sgemm.md). The chunks of
// a row are XOR-swizzled (splitk_schedule.hpp) so that the lanes reading one k of rows 4 apart
// (LN lanes along N, each on its own 4 columns) hit distinct banks. Requires ld % 4 == 0 and a
// 16-byte aligned x (the launcher's VEC), so a chunk is wholly below K or wholly above it
// (K % 4 == 0). Rows past the extent are clamped, as in StageCopy.
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
      ptx::cp_async_16(xs + splitk::b_row_offset<BK>(r0 + i * ROWS_PER_PASS, 4 * chunk), src[i]);
      src[i] += BK;
    }
  }

  // The k-tile that crosses K: chunks at or past k_left are zero-filled from the base pointer.
  __device__ __forceinline__ void issue_partial(float* xs, const float* x, int64_t, int k_left) {
    const bool in = 4 * chunk < k_left;
#pragma unroll
    for (int i = 0; i < COPIES; ++i) {
      ptx::cp_async_16(xs + splitk::b_row_offset<BK>(r0 + i * ROWS_PER_PASS, 4 * chunk),
                       in ? src[i] : x, in ? 16 : 0);
      src[i] += BK;
    }
  }
};

// The CTA's shared tiles: (BM,BK,STAGES) op(A), k-outer, m contiguous, and (BK,BN,STAGES) op(B):
// k-outer [k][LDB], or B_ROWS [n][BK] swizzled.
template <class Cfg>
struct Ring {
  using ATiles = float[Cfg::STAGES][Cfg::BK][Cfg::LDA];
  using BTiles = float[Cfg::STAGES][Cfg::B_STAGE];
  ATiles& as;
  BTiles& bs;
};

// The ring of the calling CTA (one per kernel: every call names the same shared memory).
template <class Cfg>
__device__ __forceinline__ Ring<Cfg> shared_ring() {
  using R = Ring<Cfg>;
  if constexpr (Cfg::DYNAMIC_SMEM == 0) {
    alignas(16) __shared__ typename R::ATiles a_static;
    alignas(16) __shared__ typename R::BTiles b_static;
    return R{a_static, b_static};
  } else {
    extern __shared__ float4 dynamic_tiles[];
    return R{*reinterpret_cast<typename R::ATiles*>(dynamic_tiles),
             *reinterpret_cast<typename R::BTiles*>(reinterpret_cast<float*>(dynamic_tiles) +
                                                    Cfg::STAGES * Cfg::A_STAGE)};
  }
}

// The operands: op(A) (M,K) and op(B) read as (N,K), each at its leading dimension.
struct Operands {
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  int m, n, k;
};

// First row / column, within the block tile, of the thread's first 4x4 sub-tile; sub-tile
// (q, p) is offset by (q * LM * 4, p * LN * 4), and acc[i][j] is C(m0 + tm + (i/4)*LM*4 + i%4,
// n0 + tn + (j/4)*LN*4 + j%4).
struct ThreadTile {
  int tm, tn;
};
template <class Cfg>
__device__ __forceinline__ ThreadTile thread_tile(int tid) {
  const int warp = tid / 32, lane = tid % 32;
  return {(warp % Cfg::WARPS_M) * Cfg::WM + (lane % Cfg::LM) * 4,
          (warp / Cfg::WARPS_M) * Cfg::WN + (lane / Cfg::LM) * 4};
}

// acc = the sum over k-tiles [kt_begin, kt_begin + count) of the (BM,BN) C tile at (m0, n0).
// The shared tiles are k-outer, filled by a cp.async ring: while the warps compute on k-tile t,
// k-tiles t+1 .. t+STAGES-1 are in flight; one barrier per k-tile publishes the next and frees a
// slot. Fragments are double-buffered in registers (LDS.128 of step k+1 before the FFMAs of step
// k). The caller syncs the block before a second call reuses the ring.
template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, bool VEC>
__device__ __forceinline__ void mainloop(const Operands& op, const Ring<Cfg>& ring, int m0, int n0,
                                         int kt_begin, int count, ThreadTile th,
                                         float (&acc)[Cfg::TM][Cfg::TN]) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int TM = Cfg::TM, TN = Cfg::TN, THREADS = Cfg::THREADS;
  constexpr int LM = Cfg::LM, LN = Cfg::LN, LDA = Cfg::LDA, LDB = Cfg::LDB;
  // op(B) K-contiguous on the 16-byte path, in a configuration that asks for it: row-major
  // tiles (RowCopy); otherwise k-outer tiles like op(A).
  constexpr bool B_ROWS = Cfg::B_ROWS && B_K_MAJOR && VEC;
  auto& as = ring.as;  // (BM,BK,STAGES)
  auto& bs = ring.bs;  // (BK,BN,STAGES)
  const int tid = threadIdx.x;
  // The first `full` k-tiles lie wholly below K, a last one may cross it.
  const int full = splitk::full_k_tiles(kt_begin, count, op.k, BK);

  // ================================ PROLOGUE ================================
  // k-tiles 0 .. STAGES-2 in flight, one commit group each (empty groups past the last k-tile
  // keep the group count, and so cp_async_wait's meaning, uniform).
  StageCopy<BM, BK, LDA, THREADS, A_K_MAJOR, VEC> a_copy(op.a, op.lda, op.m, m0, kt_begin * BK,
                                                         tid);
  using BCopy = std::conditional_t<B_ROWS, RowCopy<BN, BK, THREADS>,
                                   StageCopy<BN, BK, LDB, THREADS, B_K_MAJOR, VEC>>;
  BCopy b_copy(op.b, op.ldb, op.n, n0, kt_begin * BK, tid);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    copy_stage(s, full, count, op.k - (kt_begin + s) * BK, a_copy, b_copy, &as[s][0][0], &bs[s][0],
               op.a, op.lda, op.b, op.ldb);
    ptx::cp_async_commit();
  }
  ptx::cp_async_wait<STAGES - 2>();  // k-tile 0 has landed (for this thread's copies) ...
  __syncthreads();                   // ... and for everyone's

#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  float a_frag[2][TM];  // (2,TM) registers: op(A) fragments, double-buffered over k
  float b_frag[2][TN];  // (2,TN) registers: op(B) fragments, double-buffered over k
  auto load_fragments = [&](int stage, int k, int buf) {
#pragma unroll
    for (int q = 0; q < TM / 4; ++q)
      unpack(*reinterpret_cast<const float4*>(&as[stage][k][th.tm + q * LM * 4]),
             &a_frag[buf][4 * q]);
    if constexpr (B_ROWS) {
      // Column nb + jj (nb a multiple of 4) sits jj rows below column nb, in the same chunk.
#pragma unroll
      for (int p = 0; p < TN / 4; ++p) {
        const float* b = &bs[stage][splitk::b_row_offset<BK>(th.tn + p * LN * 4, k)];
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) b_frag[buf][4 * p + jj] = b[jj * BK];
      }
    } else {
#pragma unroll
      for (int p = 0; p < TN / 4; ++p)
        unpack(*reinterpret_cast<const float4*>(&bs[stage][k * LDB + th.tn + p * LN * 4]),
               &b_frag[buf][4 * p]);
    }
  };
  load_fragments(0, 0, 0);

  int read_stage = 0;            // slot holding k-tile t
  int write_stage = STAGES - 1;  // slot k-tile t + STAGES - 1 is copied into (it held t - 1)

  // ================================ MAINLOOP ================================
  for (int t = 0; t < count; ++t) {
    // The slot of k-tile t-1 is free: every thread passed the barrier below (previous
    // iteration) after its last fragment read of that k-tile.
    const int ahead = t + STAGES - 1;
    copy_stage(ahead, full, count, op.k - (kt_begin + ahead) * BK, a_copy, b_copy,
               &as[write_stage][0][0], &bs[write_stage][0], op.a, op.lda, op.b, op.ldb);
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
}

}  // namespace gemmbench::sgemm
