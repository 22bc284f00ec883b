// The mainloop pieces both Ampere schedules share: g2s (OperandCopy: 16-byte cp.async into the
// STAGES-deep swizzled ring), s2r (ldmatrix, .trans for an MN-major tile), and one k-tile of
// mma.sync with register double-buffering (AmpereMainloop::k_tile). The per-kernel constants,
// epilogue's included, are AmpereKernel's.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "hgemm/ampere/config.cuh"
#include "hgemm/ampere_index.hpp"
#include "hgemm/fragments.cuh"

namespace gemmbench::hgemm {

// One operand's global->shared copy state for one thread: CopyMap says which chunks it moves.
// A K-major operand is stored (rows_total, K) with ld = K; an MN-major one (K, rows_total) with
// ld = rows_total. Rows outside the matrix and k beyond K are zero-filled (src-size 0, source
// address = the tensor's base so it is always valid).
template <int ROWS, int BK, int THREADS, bool K_MAJOR>
struct OperandCopy {
  using Map = CopyMap<ROWS, BK, THREADS, K_MAJOR>;
  const __half* base;   // tensor start: the valid address behind zero-fill copies
  const __half* src;    // iteration-0 chunk of the next k-tile to copy
  int64_t line_stride;  // elements between a thread's iterations
  int64_t tile_stride;  // elements between k-tiles
  uint32_t smem_off;    // bytes, iteration-0 chunk within a stage
  int lines_left;       // K-major: rows left from the iteration-0 row; MN-major: k-rows left
  int k_left;           // K-major: K minus the next tile's chunk k (chunk valid while > 0)
  bool chunk_ok;        // MN-major: the chunk's 8 elements along M/N lie inside the matrix

  __device__ __forceinline__ OperandCopy(const __half* tensor, int rows_total, int K, int row0,
                                         int tid) {
    const RowK c = Map::start(tid);
    base = tensor;
    smem_off = 2u * SmemTile<ROWS, BK, K_MAJOR>::offset(c.row, c.k);
    if constexpr (K_MAJOR) {
      line_stride = int64_t(Map::kStep) * K;
      tile_stride = BK;
    } else {
      line_stride = int64_t(Map::kStep) * rows_total;
      tile_stride = int64_t(BK) * rows_total;
    }
    restart(rows_total, K, row0, tid);
  }
  // Point the copies at k-tile 0 of the tile starting at row `row0` (the persistent schedule's
  // next tile); the strides and the shared offset stay.
  __device__ __forceinline__ void restart(int rows_total, int K, int row0, int tid) {
    const RowK c = Map::start(tid);
    if constexpr (K_MAJOR) {
      src = base + int64_t(row0 + c.row) * K + c.k;
      lines_left = rows_total - (row0 + c.row);
      k_left = K - c.k;
      chunk_ok = true;
    } else {
      src = base + int64_t(c.k) * rows_total + row0 + c.row;
      lines_left = K - c.k;
      k_left = 0;
      chunk_ok = row0 + c.row < rows_total;
    }
  }

  // Copy iterations [i0, i1) of the next k-tile into the stage at shared address `stage`
  // (i0, i1 are compile-time after unrolling). INSIDE: the caller knows every chunk lies in the
  // matrix (a whole k-tile of a CTA tile inside M and N), so no chunk is predicated or redirected.
  template <bool INSIDE = false>
  __device__ __forceinline__ void copy(uint32_t stage, int i0, int i1) const {
#pragma unroll
    for (int i = 0; i < Map::kIters; ++i) {
      if (i < i0 || i >= i1) continue;
      const uint32_t dst = stage + smem_off + 2u * i * Map::kSmemStep;
      if constexpr (INSIDE) {
        ptx::cp_async_16(dst, src + i * line_stride);
      } else {
        const bool ok = K_MAJOR ? (i * Map::kStep < lines_left && k_left > 0)
                                : (chunk_ok && i * Map::kStep < lines_left);
        ptx::cp_async_16(dst, ok ? src + i * line_stride : base, ok ? 16 : 0);
      }
    }
  }
  // Move on to the k-tile after (once per k-tile, after its last copy).
  __device__ __forceinline__ void advance() {
    src += tile_stride;
    if constexpr (K_MAJOR) {
      k_left -= BK;
    } else {
      lines_left -= BK;
    }
  }
  // Copy the whole next k-tile (predicated unless INSIDE) and move on to the one after.
  template <bool INSIDE = false>
  __device__ __forceinline__ void copy_next(uint32_t stage) {
    copy<INSIDE>(stage, 0, Map::kIters);
    advance();
  }
};

// Load block b (16 rows x 16 k) of step kk of a warp's operand slab with one ldmatrix.x4;
// .trans for an MN-major tile. `lane_base` are the LdsmOffsets bases as shared addresses of the
// current stage.
template <class Off, bool K_MAJOR>
__device__ __forceinline__ void load_block(uint32_t (&frag)[4],
                                           const uint32_t (&lane_base)[Off::kBases], int b,
                                           int kk) {
  const uint32_t addr = lane_base[Off::base_index(b, kk)] + 2u * Off::const_offset(b, kk);
  if constexpr (K_MAJOR) {
    ptx::ldmatrix_x4(frag, addr);
  } else {
    ptx::ldmatrix_x4_trans(frag, addr);
  }
}

// Load one k-step's fragments of a warp's operand slab: BLOCKS ldmatrix.x4, or blocks
// [first, last) only when given (compile-time after unrolling).
template <class Off, bool K_MAJOR, int BLOCKS>
__device__ __forceinline__ void load_fragments(uint32_t (&frag)[BLOCKS][4],
                                               const uint32_t (&lane_base)[Off::kBases], int kk,
                                               int first = 0, int last = BLOCKS) {
#pragma unroll
  for (int b = 0; b < BLOCKS; ++b) {
    if (b >= first && b < last) load_block<Off, K_MAJOR>(frag[b], lane_base, b, kk);
  }
}

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
struct AmpereKernel {
  using Config = Cfg;
  using Acc = AccT;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  static constexpr int THREADS = Cfg::THREADS, WM = Cfg::WM, WN = Cfg::WN;
  static constexpr int MI = Cfg::MI, NI = Cfg::NI, NB = Cfg::NB, KI = Cfg::KI;
  using TileA = SmemTile<BM, BK, A_K_MAJOR>;
  using TileB = SmemTile<BN, BK, B_K_MAJOR>;
  using CopyA = OperandCopy<BM, BK, THREADS, A_K_MAJOR>;
  using CopyB = OperandCopy<BN, BK, THREADS, B_K_MAJOR>;
  using OffA = LdsmOffsets<BM, BK, A_K_MAJOR, true, MI>;   // registers = mma a0..a3
  using OffB = LdsmOffsets<BN, BK, B_K_MAJOR, false, NB>;  // registers = {b0,b1} x 2 n8 tiles
  static constexpr int STAGE_BYTES_A = TileA::kElems * 2;
  static constexpr int STAGE_BYTES_B = TileB::kElems * 2;
  // The order of a warp's MI x NI mma within a k-step (the plain double-buffered loop): f16
  // accumulators rows outer (each A fragment serves NI mma in a row), f32 accumulators columns
  // outer (each B fragment serves MI mma in a row). Measured on the persistent 128x256x64 tile
  // (H100, TN 5120x4096x4096, 2026-11-24_mma_order_5120_r1..r6.json.gz, git c60699b and
  // working-tree builds of the same experiment): f32 columns outer 0.633-0.638x against rows outer
  // 0.606-0.610x in the same six runs (+4-5%), ahead of three other orders (row pairs outer
  // 0.623x, B blocks outer 0.616-0.617x, rows outer in plain order 0.601-0.604x) and of columns
  // outer with the rows in plain order (0.631x); f16 rows outer 0.743-0.746x against columns
  // outer 0.740-0.741x in four of them. Nsight Compute
  // (2026-11-24_ncu_f32_copy_interference.txt.gz, section 7): the f32 tensor pipe active 87.3%
  // instead of 83.2%, MIO-throttle stalls per issued instruction 0.12 instead of 0.61. Why the
  // order moves them is not established here.
  static constexpr bool COLS_OUTER = sizeof(AccT) == 4;

  // Epilogue staging: the fewest passes (over each warp's n8 tiles) whose (BM, BN/PASSES)
  // column-major AccT tile fits in the pipeline's shared memory, which it reuses.
  static constexpr int ACC_BYTES = int(sizeof(AccT));
  static constexpr int staging_bytes(int passes) {
    return (BN / passes) * (BM + 16 / ACC_BYTES) * ACC_BYTES;
  }
  static constexpr int pick_passes() {
    for (int p = 1; p <= NI; p *= 2) {
      if (NI % p == 0 && staging_bytes(p) <= Cfg::PIPE_BYTES) return p;
    }
    return 0;
  }
  static constexpr int PASSES = pick_passes();
  static_assert(PASSES > 0, "the epilogue staging tile must fit in the pipeline's shared memory");
  using Stage = StageMap<BM, WN, PASSES, ACC_BYTES>;
  static constexpr int SC = BN / PASSES;  // staged columns per pass
  static constexpr int STORE_ITERS = (BM / 8) * SC / THREADS;
  static_assert((BM / 8) * SC % THREADS == 0,
                "the staged tile's 16-byte column pieces must split evenly over the threads");
  static constexpr int SMEM_BYTES = Cfg::SMEM_BYTES;
  // Persistent schedule: each thread stores STORE_PIECES 16-byte pieces of a staged tile.
  static constexpr int STORE_PIECES = (BM / 8) * BN / THREADS;
  static_assert(!Cfg::PERSISTENT || (BM / 8) * BN % THREADS == 0,
                "the staged tile's 16-byte pieces must split evenly over the threads");
};

// How a k-tile's global->shared copies go: every chunk predicated (zero-filled outside the
// matrix), or none (the k-tile lies wholly inside it).
enum class CopyMode { predicated, inside };
template <CopyMode M>
using CopyModeC = std::integral_constant<CopyMode, M>;

// The state of one CTA's mainloop and its steps. Every member is a register (or an array of
// them, indexed at compile time after unrolling); the kernels own the schedule around it.
template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
struct AmpereMainloop {
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES;
  static constexpr int WM = Cfg::WM, WN = Cfg::WN, MI = Cfg::MI, NI = Cfg::NI, NB = Cfg::NB;
  static constexpr int KI = Cfg::KI;

  // A stages: (BM,BK) K-major or (BK,BM) M-major; B stages: (BN,BK) K-major or (BK,BN) N-major.
  const uint32_t sA;         // (STAGES, A tile) swizzled
  const uint32_t sB;         // (STAGES, B tile) swizzled
  const ThreadPlace th;      // this thread's warp in the CTA
  const int k_tiles;         // k-tiles of K, the last one possibly partial
  typename K::CopyA copy_a;  // A tile (BM,BK) -> sA stage
  typename K::CopyB copy_b;  // B tile (BN,BK) -> sB stage
  // Per-lane ldmatrix row addresses in stage 0 (the stage offset is added per k-tile).
  uint32_t a_lane[K::OffA::kBases];  // (kBases) smem addr, stage 0
  uint32_t b_lane[K::OffB::kBases];  // (kBases) smem addr, stage 0
  AccFrag<AccT> acc[MI][NI];         // (WM,WN) warp tile, m16n8 fragments
  uint32_t a_frag[2][MI][4];         // (2 bufs, WM,16) A fragments
  uint32_t b_frag[2][NB][4];         // (2 bufs, WN,16) B fragments, 2 n8 tiles per x4
  int write_stage = STAGES - 1;      // stage receiving k-tile kt + STAGES - 1
  int read_stage = 0;                // stage holding k-tile kt
  uint32_t read_off_a = 0, read_off_b = 0;

  __device__ __forceinline__ AmpereMainloop(const AmpereParams& p, unsigned char* smem,
                                            const TilePlace& t)
      : sA(ptx::smem_u32(smem)),
        sB(sA + STAGES * K::STAGE_BYTES_A),
        th(thread_place<Cfg>()),
        k_tiles(ceil_div(p.k, Cfg::BK)),
        copy_a(p.a, p.m, p.k, t.mt, th.tid),
        copy_b(p.b, p.n, p.k, t.nt, th.tid) {
    {
      const typename K::OffA off_a(th.wm * WM, th.lane);
      const typename K::OffB off_b(th.wn * WN, th.lane);
#pragma unroll
      for (int i = 0; i < K::OffA::kBases; ++i) a_lane[i] = sA + 2u * off_a.base[i];
#pragma unroll
      for (int i = 0; i < K::OffB::kBases; ++i) b_lane[i] = sB + 2u * off_b.base[i];
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) acc[mi][ni].clear();
    }
  }

  // g2s: all of the next k-tile into write_stage, one commit group per k-tile, then the next
  // write stage. A k-tile past K is copied as zeros into a stage nobody reads again rather than
  // skipped: with the two k-tile loops of the tile loop, a branch around the copies kept ptxas
  // from interleaving them with the mma (hgemm_tn measured 0.57x cuBLAS instead of 0.70x on edge
  // CTAs' loop).
  template <class Mode>
  __device__ __forceinline__ void copy_whole_tile(Mode) {
    constexpr bool IN = Mode::value == CopyMode::inside;
    copy_a.template copy_next<IN>(sA + write_stage * K::STAGE_BYTES_A);
    copy_b.template copy_next<IN>(sB + write_stage * K::STAGE_BYTES_B);
    ptx::cp_async_commit();
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  }
  // At the last step of k-tile kt, before any read of k-tile kt+1: move the read stage on, wait
  // for k-tile kt+1 (groups up to kt+1 complete = at most STAGES-2 pending) and sync. The
  // barrier also means every warp has finished reading k-tile kt's stage.
  __device__ __forceinline__ void next_read_stage() {
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    read_off_a = read_stage * K::STAGE_BYTES_A;
    read_off_b = read_stage * K::STAGE_BYTES_B;
    ptx::cp_async_wait<STAGES - 2>();
    __syncthreads();
  }

  // s2r of step kk's fragments into register buffer buf.
  __device__ __forceinline__ void load_step(int buf, int kk) {
    uint32_t a_base[K::OffA::kBases];
    uint32_t b_base[K::OffB::kBases];
#pragma unroll
    for (int i = 0; i < K::OffA::kBases; ++i) a_base[i] = a_lane[i] + read_off_a;
#pragma unroll
    for (int i = 0; i < K::OffB::kBases; ++i) b_base[i] = b_lane[i] + read_off_b;
    load_fragments<typename K::OffA, A_K_MAJOR, MI>(a_frag[buf], a_base, kk);
    load_fragments<typename K::OffB, B_K_MAJOR, NB>(b_frag[buf], b_base, kk);
  }

  // Step 0 of k-tile 0 into register buffer 0, once it has landed.
  __device__ __forceinline__ void first_fragments() {
    if (k_tiles > 0) {
      ptx::cp_async_wait<STAGES - 2>();  // k-tile 0 landed (this thread's copies)
      __syncthreads();                   // ... and every other thread's
      load_step(0, 0);
    }
  }

  // One k-tile, read from read_stage while k-tile kt+STAGES-1 is copied into write_stage (the
  // stage k-tile kt-1 used): all of its copies at step 0, its group committed before the wait at
  // step KI-1, so "at most STAGES-2 pending" there means k-tile kt+1 landed. `mode` (CopyModeC)
  // says how its g2s copies.
  template <class Mode>
  __device__ __forceinline__ void k_tile(Mode mode) {
#pragma unroll
    for (int kk = 0; kk < KI; ++kk) {
      // Step 0 of the next k-tile is loaded below. Every warp loaded its last fragments of
      // k-tile kt at step KI-2, so the barrier frees k-tile kt's stage for k-tile kt+STAGES.
      if (kk == KI - 1) next_read_stage();
      // s2r: fragments of step kk+1 (of the next k-tile after the last step) into the other
      // register buffer, overlapping this step's mma. After the last k-tile this reads a stage
      // no copy is writing (all real tiles have landed) and the values go unused; loading
      // unconditionally keeps the compiler from copying registers to preserve the old ones.
      load_step((kk + 1) % 2, (kk + 1) % KI);

      // g2s.
      if (kk == 0) copy_whole_tile(mode);

        // mma on step kk, in the order K::COLS_OUTER picks.
#pragma unroll
      for (int st = 0; st < MI * NI; ++st) {  // the step's st-th mma
        int mi, nj;
        if constexpr (K::COLS_OUTER) {
          // Columns outer, serpentine over rows: consecutive mma share the B fragment.
          nj = st / MI;
          mi = (nj % 2 == 0) ? st % MI : MI - 1 - st % MI;
        } else {
          // Rows outer, serpentine over columns: consecutive mma share the A fragment.
          mi = st / NI;
          nj = (mi % 2 == 0) ? st % NI : NI - 1 - st % NI;
        }
        const uint32_t b[2] = {b_frag[kk % 2][nj / 2][2 * (nj % 2)],
                               b_frag[kk % 2][nj / 2][2 * (nj % 2) + 1]};
        acc[mi][nj].mma(a_frag[kk % 2][mi], b);
      }
    }
  }
};

}  // namespace gemmbench::hgemm
