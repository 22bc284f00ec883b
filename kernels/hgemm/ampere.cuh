// The Ampere-class HGEMM kernel template behind hgemm_tn (rung 3) and hgemm_nn / hgemm_nt /
// hgemm_tt (rung 4). Seed 000 walks through the CuTe tutorial kernel this is written after
// (sgemm_sm80.cu, TN HGEMM); seed 002 gives ldmatrix .trans, seed 003 the rasterization.
//
// What it adds over hgemm_mma (rung 2), and why each piece helps:
//   - cp.async 16-byte global->shared copies: the loads bypass the register file and run
//     asynchronously, so the warps issue the next tiles' loads and keep computing.
//   - a STAGES-deep shared-memory ring (cp.async groups, one per k-tile): STAGES-1 tiles are in
//     flight while one is consumed, which hides global-memory latency (seed 000, 3.4 / 3.9).
//   - register double-buffering across the BK/16 k-steps of a tile: the ldmatrix of step kk+1
//     (or of the next tile's step 0) is issued before the mma of step kk, overlapping s2r with
//     mma the way seed 000 section 3.9 overlaps g2s, s2r and mma.
//   - an XOR swizzle instead of padding (Swizzle<3,3,3> for 128-byte rows, Swizzle<2,3,3> for
//     64-byte rows, see ampere_index.hpp): both the cp.async stores and the ldmatrix loads hit 8
//     distinct 16-byte bank groups per 8 lanes, i.e. no bank conflicts, with no wasted smem.
//   - threadblock rasterization (raster.hpp, seed 003): CTAs resident together work on nearby
//     C tiles and share A and B in L2.
//   - an epilogue that stages C through shared memory so the stores of the column-major C go
//     along M in 16-byte pieces, with alpha/beta in float (and C read only when beta != 0).
//   - MN-major operands (NN/NT/TT) land in shared memory unchanged (M or N contiguous, 64-wide
//     swizzled blocks) and are read with ldmatrix .trans, which hands each thread the same
//     fragment mma expects from a K-major tile (seed 002).
//   - edge CTAs shift their tile back inside M and N (computing rows and columns a neighbour
//     owns, writing only their own), so once M >= BM and N >= BN every k-tile that lies within K
//     is copied without predicates: 120 instead of 146 instructions per k-tile, +2.5% (0.700x
//     -> 0.718x f16 acc, bench_results/h100/2026-11-24_ampere_shift_5120.json).
//   - the order of each k-step's mma by accumulate type (AmpereKernel::COLS_OUTER): f16 rows
//     outer (A fragment reused), f32 columns outer (B reused), which took most of the f32
//     build's MIO stalls away (+4-5% f32, see "Measured").
//   - a persistent schedule (PERSISTENT, the default binding): one CTA per SM walks its tiles as
//     one stream of k-tiles, so the cp.async ring runs from one tile into the next (no pipeline
//     fill per tile) and the epilogue stages D as f16 in a buffer of its own and issues its
//     stores, which drain under the next tile's mma. Nsight Compute: the tensor pipe active in
//     91.4% of the cycles instead of 85.8%, 95% of the warp samples in the k-tile loop.
//
// Tile parameters (AmpereTile): BM x BN x BK CTA tile, WARPS_M x WARPS_N warps (each WM x WN =
// BM/WARPS_M x BN/WARPS_N, i.e. (WM/16) x (WN/8) mma m16n8k16 tiles), STAGES pipeline stages,
// and a copy schedule (CopySchedule). Shared memory: STAGES * (BM + BN) * BK * 2 bytes (dynamic,
// > 48 KB opted in once per kernel).
//
// Tuning (the suffixed TN variants in tn.cu, one hypothesis each; the defaults reproduce the
// first cut instruction for instruction). Shared memory serves ldmatrix and cp.async alike, 128
// bytes per clock per SM, and with 64x64 warp tiles a 128x256 CTA's k-step moves 32 KB through
// ldmatrix (256 clocks) against ~384 clocks of mma per SM sub-partition at the rate mma.sync
// reaches on Hopper; a whole k-tile's copies (24 KB, 192 clocks) on top of one step make that
// step shared-memory bound.
//   - CopySchedule::spread: part 0 of k-tile kt+STAGES-1's copies goes right after the barrier
//     that frees its stage, parts 1..BK/16-1 at the k-steps after, so each step carries an even
//     share; A block 0 and B are loaded before the other A blocks (the first mma of a step
//     waits for 2 ldmatrix, not MI + 1).
//   - Warp tiles 64x128 (f16 accumulation only: f32 accumulators alone would take 256
//     registers): 12 ldmatrix per 64 mma instead of 16, a quarter less shared-memory traffic;
//     they stream B through a ring of 4 blocks (B_STREAM) to fit 255 registers.
// Constraints (runtime, see ampere_supports): every K-contiguous operand needs K % 8 == 0,
// every M-contiguous A needs M % 8 == 0 and every N-contiguous B needs N % 8 == 0, because
// rows are moved in 16-byte (8-half) cp.async pieces that must be 16-byte aligned and either
// wholly inside or wholly outside the matrix. Any M, N, K >= 1 otherwise: edge tiles are
// zero-filled (cp.async src-size 0) and the C stores are guarded; K need not be a multiple of BK.
// Measured on an H100 80GB HBM3 (driver 580.159.04, CUDA 13.0, cuBLAS 13.1.0), 2026-11-24, cold
// L2, uniform data, ratio = cuBLAS median / kernel median from interleaved samples (cuBLAS
// COMPUTE_16F for f16 accumulation, COMPUTE_32F for f32):
//   hgemm_tn = 128x256x64, 3 stages, persistent, TN 5120x4096x4096: f16 acc 0.7435-0.7518x over
//   30 runs (median 0.7492x, 466-494 TFLOP/s); f32 acc, since its mma run
//   columns outer (COLS_OUTER, git b3a93ec), 0.630-0.639x over fifteen runs (median 0.635x,
//   422-444 TFLOP/s; _persist_variants_colsouter_r*.json, _w128x32_5120_r*.json too), before
//   that 0.602-0.617x (median 0.609x, thirteen runs). 4096^3 0.659-0.665x (f16) and 0.631x
//   (f32; before 0.606-0.612x); 8192^3 0.677-0.687x and 0.628x (before 0.594-0.601x);
//   hgemm_nn / nt / tt at 5120x4096x4096 0.747-0.768x (f16) and 0.615-0.623x (f32; before
//   0.605-0.619x) (bench_results/h100/2026-11-24_ampere_acceptance{,_final,_rerun,_colsouter}.json,
//   _hgemm_tn_5120_repeat*.json, _hgemm_ladder_5120{,_colsouter}.json, _after_review_5120.json,
//   and hgemm_tn's rows in _copy_step_*, _halves_*, _producer_*; _persist_5120.json,
//   _persist_bk64_5120.json for the variants). Issue 4's targets are 0.75x (f16 acc: met at the
//   line, not with margin) and 0.65x (f32 acc: missed by 3%). The variants' f32 figures below
//   predate the f32 order change.
//   Same runs: 128x256x32 s4 one CTA per tile (the earlier binding) 0.713-0.720x / 0.595-0.597x;
//   128x256x64 s3 one CTA per tile 0.726x / 0.592x; persistent 128x256x32 s4 0.743x / 0.600-0.604x,
//   256x128x64 s3 0.747x / 0.609x. Why f32 trailed f16 before that (Nsight Compute, one launch
//   each, 2026-11-24_ncu_f32_copy_interference.txt): the same ldmatrix and cp.async, yet the f32
//   build's tensor pipe is active in 83% of the cycles against 92%, its warps waiting on the
//   MIO queue, on the copies' address registers and at the k-tile barrier; a diagnostic build
//   without the mainloop copies (wrong results) runs its f32 mma at 91.8% and 0.709x. None of
//   five schedules meant to take the copies out of the f32 stream's way beat this one:
//   32-bit copy offsets (0.610x; 0.518x at BK = 32; 2026-11-24_copy_offsets32_5120.json), a
//   pointer per chunk (0.586x), the copies at k-step 1 or 2 (0.597-0.601x), sub-partition
//   partners copying at different steps (0.568x), and a producer warpgroup that issues every
//   cp.async behind mbarriers while the math warps only ldmatrix and mma (setmaxnreg 224/56,
//   0.579x; f16 0.70x). After the order change, the copies spread over the k-steps in the
//   persistent path (MIO and barrier stalls down to 0.03 / 0.04, tensor pipe 85.1%) ran at
//   0.620-0.623x against 0.635x (2026-11-24_persist_spread_5120_r*.json, git 6a7e4cc); staging
//   D with movmatrix (4-byte stores) moved f32 +0.2-0.4% and f16 -0.0-0.1%, within the spread
//   (2026-11-24_movmatrix_ab_*.json, git e8d3919). Two
//   first builds of the persistent schedule lost to ptxas's scheduling (0.566x and 0.683x, see
//   the PERSISTENT path).
//   CUTLASS 4.2.0's own mma.sync GEMM (device::Gemm, Sm80, 64x64 warp tiles), measured the same
//   way (scripts/reference/cutlass_mma_sync.cu, 2026-11-24_cutlass_mma_sync_reference.json):
//   at 5120x4096x4096 its best tile gives 0.717x (f16 acc, 256x128x32 s4) and 0.595x (f32 acc,
//   128x256x32 s4), against hgemm_tn's 0.752x and 0.634x in the same device session.
// Earlier, one CTA per tile (H100, 2026-11-22), TN 5120x4096x4096, TFLOP/s (ratio to cuBLAS
// COMPUTE_16F / COMPUTE_32F), from bench_results/h100/2026-11-22_hgemm_ladder.json (git
// f990559002bc):
//   variant                           f16 accumulate    f32 accumulate
//   hgemm_tn                          452.9 (0.709x)    398.3 (0.590x)
//   hgemm_tn_128x128x64_s3            435.2 (0.712x)    365.8 (0.540x)
//   hgemm_tn_128x128x32_s4            426.6 (0.696x)    370.4 (0.571x)
//   hgemm_tn_128x256x32_s3            432.7 (0.681x)    406.7 (0.586x)
//   hgemm_tn_128x256x32_s5            441.4 (0.706x)    401.9 (0.589x)
//   hgemm_tn_256x128x32_s4            438.4 (0.705x)    394.8 (0.590x)
//   hgemm_tn_128x256x64_s3            448.7 (0.703x)    392.6 (0.565x)
//   hgemm_tn_128x256x32_s4_spread     444.0 (0.710x)    400.6 (0.598x)
//   hgemm_tn_128x256x64_s4_spread     443.7 (0.702x)    399.9 (0.586x)
//   hgemm_tn_256x128x32_s4_spread     440.3 (0.710x)    393.6 (0.595x)
//   hgemm_tn_128x256x32_s4_w64x128    429.0 (0.698x)    -
//   8192^3: hgemm_tn f16 acc 448.7 (0.649x), f32 acc 412.5 (0.587x); 4096^3: f16 acc 431.7
//   (0.621x), f32 acc 401.2 (0.591x).
// hgemm_tn_256x256x32_s4_w64x128 at 8192^3, f16 acc: 472.0 (0.660x), hgemm_tn 452.6 (0.645x) in the
// same run (bench_results/h100/2026-11-22_hgemm_256x256_8192.json).
// Every variant landed within 0.68-0.71x (f16 acc) and 0.54-0.60x (f32 acc); hgemm_tn was then
// bound to 128x256x32_s4.
// Against the instruction's own ceiling: `gemmbench inspect mma-peak` (mma.sync m16n8k16 from
// registers on every SM, the board at its 700 W cap) measured 633.3 TFLOP/s with f16 and 613.1
// with f32 accumulation at ~1.7-1.76 GHz (2723-2730 FLOP/clk/SM); in the same session hgemm_tn ran
// at 454.2 (0.707x cuBLAS) and 415.7 (0.592x), i.e. 72% and 68% of that ceiling
// (bench_results/h100/2026-11-22_mma_peak_f16.json, 2026-11-22_hgemm_tn_5120_beside_mma_peak.json).
// The targets need 77% and 71% of it. What separates the kernel from the ceiling, from the
// numbers: per clock (Nsight Compute, 1.69 GHz, 344.5 us at 5120x4096x4096, f16 acc, in
// bench_results/h100/2026-11-22_ncu_sm90_vs_cublas_5120x4096x4096.txt) it does
// 2237 FLOP/clk/SM, 82% of the instruction's 2723: a 64x64 warp tile moves 4 KB through ldmatrix
// per 32 mma and the CTA's cp.async writes 12 KB per k16 step, ~350 of the ~385 clocks the mma
// of a step take at 128 B/clk of shared-memory bandwidth; and the same traffic costs power, so
// under the cap the clock settles ~15% below the register-only loop's (1.47-1.5 vs 1.7 GHz).
// Neither the data nor the memory system explains the gap (H100, 2026-11-22): with
// cutlass_profiler's integer inputs (--data int3) every kernel runs faster, cuBLAS as much as
// this one, and hgemm_tn stays at 0.711x (f16 acc, 519.8 TFLOP/s) and 0.587x (f32 acc)
// against 0.705x / 0.591x with uniform data in the same run
// (bench_results/h100/2026-11-22_data_power_5120.json); and Nsight Compute on one launch finds
// the tensor pipe active in 85.8% / 80.5% of the cycles, the warps waiting on the busy math pipe
// and fixed-latency dependencies (2.1 and 1.8 warps per issued instruction, f16 acc), hardly on
// barriers (0.04) or memory (0.06), 0.5 eligible warps per scheduler
// (bench_results/h100/2026-11-22_ncu_stalls_5120x4096x4096.txt). More warps per scheduler, by
// holding the spread 128x256x32 variant to 128 registers (__launch_bounds__(256, 2): two CTAs,
// 16 warps per SM) with the register double-buffering left as it is, spills 168 bytes per thread
// into the mainloop: 181.1 TFLOP/s (0.270x) against hgemm_tn's 441.5 (0.700x) in the same run,
// warps stalled on the local-memory loads (long scoreboard 14.1 per issued instruction), tensor
// pipe active 34% (bench_results/h100/2026-11-22_ampere_2cta_5120.json and
// 2026-11-22_ncu_stalls_ampere_2cta.txt, git 5094b9045501; the variant was removed after). Two
// CTAs per SM need a fragment schedule that fits 128 registers, not a tighter bound.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/occupancy.hpp"
#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "hgemm/ampere_index.hpp"
#include "hgemm/fragments.cuh"
#include "registry.hpp"

namespace gemmbench::hgemm {

// Largest rasterization width handed to raster_log_tile (CUTLASS's
// GemmIdentityThreadblockSwizzle<8>).
inline constexpr int kRasterMaxSwizzle = 8;

// When the mainloop issues a k-tile's cp.async copies (see the header).
enum class CopySchedule {
  step0,   // all at k-step 0
  spread,  // split evenly over the BK/16 k-steps, the first part right after the barrier
};

template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_,
          CopySchedule SCHED_ = CopySchedule::step0, bool PERSISTENT_ = false>
struct AmpereTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_;
  static constexpr CopySchedule SCHED = SCHED_;
  // Persistent grid (one CTA per SM walks the tiles): the cp.async ring runs on from one tile
  // into the next, and a finished tile is staged as f16 in its own shared buffer, from which its
  // stores drain under the next tile's mma (see the kernel's PERSISTENT path).
  static constexpr bool PERSISTENT = PERSISTENT_;
  static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int WM = BM / WARPS_M;  // warp tile rows
  static constexpr int WN = BN / WARPS_N;  // warp tile columns
  static constexpr int MI = WM / 16;       // m16 tiles per warp = A ldmatrix.x4 blocks
  static constexpr int NI = WN / 8;        // n8 tiles per warp
  static constexpr int NB = WN / 16;       // B ldmatrix.x4 blocks (two n8 tiles each)
  static constexpr int KI = BK / 16;       // k16 steps per k-tile
  static constexpr int PIPE_BYTES = STAGES * (BM + BN) * BK * 2;
  // The persistent schedule's staging tile: D of one tile, (BM,BN) f16 column-major, each
  // column padded by 16 bytes (the fragment stores then hit distinct banks, see StageMap).
  static constexpr int LD_D = BM + 8;
  static constexpr int SMEM_BYTES = PIPE_BYTES + (PERSISTENT ? BN * LD_D * 2 : 0);
  // f32 accumulators of a warp tile above 64x64 take more than 128 of the 255 registers a
  // thread may have, which with the fragments spills: such tiles register f16 accumulation only.
  static constexpr bool F32_ACC = MI * NI * 4 <= 128;
  // Warp tiles 128 or more columns wide (8+ B blocks) stream B through a ring of B_RING blocks
  // loaded B_AHEAD mma groups ahead, instead of double-buffering a whole k-step of A and B: a
  // 64x128 warp tile double-buffers 96 fragment registers the plain way (beside 128 of f16
  // accumulators: it spills), 48 this way (ptxas may still hoist loads up to 255 registers).
  static constexpr bool B_STREAM = NB >= 8;
  static constexpr int B_RING = 4, B_AHEAD = B_RING - 1;
  static_assert(!B_STREAM || NB % B_RING == 0,
                "the B ring must divide a k-step's B blocks, so every block's ring slot is a "
                "compile-time constant");

  static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "the warps must split the CTA tile evenly");
  static_assert(WM % 16 == 0,
                "a warp's rows must be whole m16 mma tiles (and A ldmatrix.x4 blocks)");
  static_assert(WN % 16 == 0,
                "a warp's columns must be whole pairs of n8 mma tiles (B ldmatrix.x4)");
  static_assert(KI >= 2,
                "BK must be >= 32: the mainloop refills the stage read in the previous k-tile at "
                "step 0, which is safe only after that tile's last-step barrier, i.e. KI >= 2");
  static_assert(KI % 2 == 0,
                "BK/16 must be even: the next k-tile's step 0 is loaded into register buffer "
                "KI % 2, which step 0 reads as buffer 0");
  static_assert(STAGES >= 2,
                "the cp.async ring needs at least 2 stages to overlap copy and compute");
  static_assert(THREADS <= 1024, "at most 1024 threads per CTA");
  static_assert(!PERSISTENT || (SCHED == CopySchedule::step0 && !B_STREAM),
                "the persistent schedule is written for the step0 copy schedule and the plain "
                "(not B-streaming) fragment double-buffering");
};

// The configuration the short names (hgemm_tn, hgemm_nn, hgemm_nt, hgemm_tt) bind to, chosen by
// measurement on the H100 (see the header): CUTLASS's fastest mma.sync f16 CTA shape, 8 warps of
// 64x64 (32 mma per k16 step per warp for 8 ldmatrix.x4), BK = 64 (one barrier per 4 k-steps),
// 3 stages (144 KB) and the persistent schedule (+68 KB staging tile: 212 KB, one CTA per SM).
// Where the device allows less shared memory per block (A100: 163 KB) or the shape does not fit
// the persistent path, the same tile runs one CTA per tile (ampere_run).
using AmpereDefault = AmpereTile<128, 256, 64, 2, 4, 3, CopySchedule::step0, true>;

struct AmpereParams {
  int m, n, k;
  const __half* a;  // op(A), layout-dependent, lda packed
  const __half* b;  // op(B), layout-dependent, ldb packed
  __half* c;        // (M,N) column-major
  float alpha, beta;
  int tiles_m, tiles_n, log_tile;
  int raster_x;      // the raster grid's x extent (raster_grid), ...
  int raster_slots;  // ... and its size: a persistent CTA walks slots blockIdx.x + i * gridDim.x
};

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
  // (H100, TN 5120x4096x4096, 2026-11-24_mma_order_5120_r1..r6.json, git c60699b and working-tree
  // builds of the same experiment): f32 columns outer 0.633-0.638x against rows outer
  // 0.606-0.610x in the same six runs (+4-5%), ahead of three other orders (row pairs outer
  // 0.623x, B blocks outer 0.616-0.617x, rows outer in plain order 0.601-0.604x) and of columns
  // outer with the rows in plain order (0.631x); f16 rows outer 0.743-0.746x against columns
  // outer 0.740-0.741x in four of them. Nsight Compute (2026-11-24_ncu_f32_copy_interference.txt,
  // section 7): the f32 tensor pipe active 87.3% instead of 83.2%, MIO-throttle stalls per issued
  // instruction 0.12 instead of 0.61. Why the order moves them is not established here.
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

// A persistent CTA walks the raster grid's slots in launch order (x fastest), gridDim.x apart.
__device__ __forceinline__ TileCoord raster_slot_tile(const AmpereParams& p, int slot) {
  return raster_tile(slot % p.raster_x, slot / p.raster_x, p.log_tile);
}
// The first slot at or after `slot` (in steps of gridDim.x) that maps to a tile; raster_slots
// when none is left.
__device__ __forceinline__ int next_tile_slot(const AmpereParams& p, int slot) {
  while (slot < p.raster_slots &&
         !raster_tile_valid(raster_slot_tile(p, slot), p.tiles_m, p.tiles_n)) {
    slot += int(gridDim.x);
  }
  return slot;
}
// First row (column) of the tile computed for the tile that owns rows from `owned0` on: shifted
// back to end at the matrix's edge when the matrix is at least a tile large (see the kernel).
__device__ __forceinline__ int shifted_origin(int owned0, int extent, int tile) {
  return extent >= tile ? min(owned0, extent - tile) : owned0;
}

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
__global__ void __launch_bounds__(Cfg::THREADS) hgemm_ampere_kernel(const AmpereParams p) {
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int WM = Cfg::WM, WN = Cfg::WN, MI = Cfg::MI, NI = Cfg::NI, NB = Cfg::NB;
  constexpr int KI = Cfg::KI, THREADS = Cfg::THREADS;
  constexpr bool PERSISTENT = Cfg::PERSISTENT;

  // The CTA's tile (a persistent CTA's first one: it then walks the raster grid's slots
  // blockIdx.x, blockIdx.x + gridDim.x, ...; see the PERSISTENT path of the mainloop).
  int slot = 0;
  TileCoord tile;
  if constexpr (PERSISTENT) {
    slot = next_tile_slot(p, int(blockIdx.x));
    if (slot >= p.raster_slots) return;  // more CTAs than tiles
    tile = raster_slot_tile(p, slot);
  } else {
    tile = raster_tile(int(blockIdx.x), int(blockIdx.y), p.log_tile);
    if (!raster_tile_valid(tile, p.tiles_m, p.tiles_n)) return;  // no-op CTA of the last column
  }
  // The CTA owns C rows [m0, m0+BM) and columns [n0, n0+BN), clipped to the matrix. It computes
  // the BM x BN tile at (mt, nt): an edge tile is shifted back to end at the matrix's edge when
  // the matrix is at least a tile large, so every row and column it reads exists (the rows and
  // columns it shares with its neighbour are computed twice and written by the neighbour only).
  // Then only K can cut a k-tile short, which lets the mainloop copy without predicates.
  int m0 = tile.m * BM;
  int n0 = tile.n * BN;
  int mt = shifted_origin(m0, p.m, BM);
  int nt = shifted_origin(n0, p.n, BN);

  extern __shared__ __align__(128) unsigned char smem[];
  // A stages: (BM,BK) K-major or (BK,BM) M-major; B stages: (BN,BK) K-major or (BK,BN) N-major.
  const uint32_t sA = ptx::smem_u32(smem);             // (STAGES, A tile) swizzled
  const uint32_t sB = sA + STAGES * K::STAGE_BYTES_A;  // (STAGES, B tile) swizzled

  const int tid = int(threadIdx.x);
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int wm = warp % Cfg::WARPS_M;
  const int wn = warp / Cfg::WARPS_M;
  const int k_tiles = ceil_div(p.k, BK);
  constexpr bool SPREAD = Cfg::SCHED == CopySchedule::spread;

  typename K::CopyA copy_a(p.a, p.m, p.k, mt, tid);  // A tile (BM,BK) -> sA stage
  typename K::CopyB copy_b(p.b, p.n, p.k, nt, tid);  // B tile (BN,BK) -> sB stage

  // Per-lane ldmatrix row addresses in stage 0 (the stage offset is added per k-tile).
  uint32_t a_lane[K::OffA::kBases];  // (kBases) smem addr, stage 0
  uint32_t b_lane[K::OffB::kBases];  // (kBases) smem addr, stage 0
  {
    const typename K::OffA off_a(wm * WM, lane);
    const typename K::OffB off_b(wn * WN, lane);
#pragma unroll
    for (int i = 0; i < K::OffA::kBases; ++i) a_lane[i] = sA + 2u * off_a.base[i];
#pragma unroll
    for (int i = 0; i < K::OffB::kBases; ++i) b_lane[i] = sB + 2u * off_b.base[i];
  }

  AccFrag<AccT> acc[MI][NI];  // (WM,WN) warp tile, m16n8 fragments
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) acc[mi][ni].clear();
  }
  uint32_t a_frag[2][MI][4];  // (2 bufs, WM,16) A fragments
  uint32_t b_frag[2][NB][4];  // (2 bufs, WN,16) B fragments, 2 n8 tiles per x4

  int write_stage = STAGES - 1;  // stage receiving k-tile kt + STAGES - 1

  // g2s of part `part` of `parts` of the next k-tile into stage `stage` (spread schedule); the
  // copy state moves on to the k-tile after once its last part is issued. A k-tile past K is
  // not skipped but copied as zeros (every chunk fails the K predicate) into a stage nobody
  // reads again: a branch around the copies would keep the compiler from interleaving them
  // with the mma. `mode` (CopyModeC): CopyMode::inside when the k-tile lies wholly inside the
  // matrix, so its copies go unpredicated (see the mainloop).
  auto copy_part = [&](int stage, int part, int parts, auto mode) {
    constexpr bool IN = decltype(mode)::value == CopyMode::inside;
    constexpr int IA = K::CopyA::Map::kIters, IB = K::CopyB::Map::kIters;
    const uint32_t stage_a = sA + stage * K::STAGE_BYTES_A;
    const uint32_t stage_b = sB + stage * K::STAGE_BYTES_B;
    copy_a.template copy<IN>(stage_a, copy_part_begin(IA, parts, part),
                             copy_part_begin(IA, parts, part + 1));
    copy_b.template copy<IN>(stage_b, copy_part_begin(IB, parts, part),
                             copy_part_begin(IB, parts, part + 1));
    if (part == parts - 1) {
      copy_a.advance();
      copy_b.advance();
    }
  };

  // ================================ PROLOGUE ================================
  // Fill stages 0..STAGES-2 with k-tiles 0..STAGES-2. One commit group per stage even when the
  // tile does not exist, so "tile t landed" is always "at most STAGES-2 groups pending". The
  // spread schedule also issues part 0 of k-tile STAGES-1 (stage STAGES-1 is free), uncommitted:
  // it joins that tile's group. (The persistent schedule has its own prologue, below.)
  if constexpr (!PERSISTENT) {
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_tiles) {
        copy_a.copy_next(sA + s * K::STAGE_BYTES_A);
        copy_b.copy_next(sB + s * K::STAGE_BYTES_B);
      }
      ptx::cp_async_commit();
    }
  }
  if constexpr (SPREAD) copy_part(write_stage, 0, KI, CopyModeC<CopyMode::predicated>{});

  int read_stage = 0;  // stage holding k-tile kt
  uint32_t read_off_a = 0, read_off_b = 0;

  // g2s of the step0 schedule: all of the next k-tile into write_stage, one commit group per
  // k-tile, then the next write stage. As with the spread schedule, a k-tile past K is copied as
  // zeros into a stage nobody reads again rather than skipped: with the two k-tile loops below, a
  // branch around the copies kept ptxas from interleaving them with the mma (hgemm_tn measured
  // 0.57x cuBLAS instead of 0.70x on edge CTAs' loop).
  auto copy_whole_tile = [&](auto mode) {
    constexpr bool IN = decltype(mode)::value == CopyMode::inside;
    copy_a.template copy_next<IN>(sA + write_stage * K::STAGE_BYTES_A);
    copy_b.template copy_next<IN>(sB + write_stage * K::STAGE_BYTES_B);
    ptx::cp_async_commit();
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  };
  // At the last step of k-tile kt, before any read of k-tile kt+1: close the spread schedule's
  // group of the k-tile being filled, move the read stage on, wait for k-tile kt+1 (groups up to
  // kt+1 complete = at most STAGES-2 pending) and sync. The barrier also means every warp has
  // finished reading k-tile kt's stage, which the spread schedule refills next.
  auto next_read_stage = [&]() {
    if constexpr (SPREAD) ptx::cp_async_commit();  // k-tile fill's group
    const int freed_stage = read_stage;
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    read_off_a = read_stage * K::STAGE_BYTES_A;
    read_off_b = read_stage * K::STAGE_BYTES_B;
    ptx::cp_async_wait<STAGES - 2>();
    __syncthreads();
    if constexpr (SPREAD) write_stage = freed_stage;
  };

  // s2r of step kk's fragments into register buffer buf. The spread schedule loads A block 0
  // and then every B block first: the serpentine mma order starts with row block 0 against all
  // of B, so the first mma waits for 2 ldmatrix instead of MI + 1.
  auto load_step = [&](int buf, int kk) {
    uint32_t a_base[K::OffA::kBases];
    uint32_t b_base[K::OffB::kBases];
#pragma unroll
    for (int i = 0; i < K::OffA::kBases; ++i) a_base[i] = a_lane[i] + read_off_a;
#pragma unroll
    for (int i = 0; i < K::OffB::kBases; ++i) b_base[i] = b_lane[i] + read_off_b;
    if constexpr (SPREAD) {
      load_fragments<typename K::OffA, A_K_MAJOR, MI>(a_frag[buf], a_base, kk, 0, 1);
      load_fragments<typename K::OffB, B_K_MAJOR, NB>(b_frag[buf], b_base, kk);
      load_fragments<typename K::OffA, A_K_MAJOR, MI>(a_frag[buf], a_base, kk, 1, MI);
    } else {
      load_fragments<typename K::OffA, A_K_MAJOR, MI>(a_frag[buf], a_base, kk);
      load_fragments<typename K::OffB, B_K_MAJOR, NB>(b_frag[buf], b_base, kk);
    }
  };

  // ================================ MAINLOOP ================================
  // k-tile kt is read from read_stage while k-tile kt+STAGES-1 is copied into write_stage, the
  // stage k-tile kt-1 used. step0: all of k-tile kt+STAGES-1's copies at step 0. spread: its
  // part 0 right after the barrier of k-tile kt-1's last step (the barrier is what frees the
  // stage: every warp loaded its last fragments of k-tile kt-1 at step KI-2), parts 1..KI-1 at
  // steps 0..KI-2 of k-tile kt. Either way its group is committed in k-tile kt before the wait
  // at step KI-1, so "at most STAGES-2 pending" there means k-tile kt+1 landed.
  //
  // Two copies of the k-tile loop. A CTA whose tile lies inside M and N (every CTA once M >= BM
  // and N >= BN, see mt/nt) runs its first `inside_end` k-tiles with the copies unpredicated:
  // every k-tile they copy is a whole BK inside K, so no chunk needs a bounds test or a
  // redirected address. Those are most of the mainloop's integer instructions otherwise, and
  // they share each warp's issue slots with its mma: 120 instead of 146 instructions per k-tile
  // in hgemm_tn's f16 build. The last k-tiles, and every k-tile of a matrix smaller than a
  // tile, run the predicated copies; the second loop picks up the copy state where the first
  // left it.
  const int k_whole = p.k / BK;  // k-tiles with all BK columns inside K
  // Iteration kt copies (parts of) k-tile kt+STAGES-1, and with the spread schedule also part 0
  // of k-tile kt+STAGES: both must be whole.
  const int inside_end =
      mt + BM <= p.m && nt + BN <= p.n ? max(0, k_whole - (STAGES - 1) - (SPREAD ? 1 : 0)) : 0;
  if constexpr (!Cfg::B_STREAM) {
    auto first_fragments = [&]() {
      if (k_tiles > 0) {
        ptx::cp_async_wait<STAGES - 2>();  // k-tile 0 landed (this thread's copies)
        __syncthreads();                   // ... and every other thread's
        load_step(0, 0);
      }
    };
    // One k-tile; `mode` (CopyModeC) says how its g2s copies.
    auto k_tile = [&](auto mode) {
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
        if constexpr (SPREAD) {
          if (kk < KI - 1) {
            copy_part(write_stage, kk + 1, KI, mode);  // parts 1..KI-1 of k-tile kt+STAGES-1
          } else {
            copy_part(write_stage, 0, KI, mode);  // part 0 of k-tile kt+STAGES
          }
        } else if (kk == 0) {
          copy_whole_tile(mode);
        }

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
    };
    if constexpr (!PERSISTENT) {
      first_fragments();
      int kt = 0;
      for (; kt < inside_end; ++kt) k_tile(CopyModeC<CopyMode::inside>{});
      for (; kt < k_tiles; ++kt) k_tile(CopyModeC<CopyMode::predicated>{});
    } else {
      // ---------------------------- PERSISTENT ----------------------------
      // The CTA's tiles form one stream of k-tiles: the copies run STAGES-1 k-tiles ahead of the
      // mma, from the end of one tile into the start of the next (the copy state is pointed at
      // the next tile once the current one's last k-tile has been copied), so a new tile starts
      // with its first k-tiles in shared memory (no prologue per tile), and the register
      // double-buffering's load at a tile's last step is the next tile's step 0. The epilogue
      // stages D = alpha*acc + beta*C as f16 in a buffer of its own (s_d), not in the pipeline's
      // stages, which hold the next tile's k-tiles, and issues its 16-byte stores, which drain
      // while the next tile's mma run. The launcher runs this path only where every copy can go
      // unpredicated (persistent_fits: M >= BM, N >= BN, K whole k-tiles, at least STAGES-1 of
      // them, M % 8 == 0), so the k-tile loop is the non-persistent CTAs' inside loop. (A first
      // build that chose each k-tile's copy mode and deferred stores at run time measured 0.566x
      // against hgemm_tn's 0.719x; one with compile-time segments and the stores spread over the
      // next tile's first k-tiles 0.683x against 0.714x: ptxas then reordered the mainloop's mma
      // and reused fragment registers, and it stalled on barriers and ldmatrix results.)
      __half* s_d =
          reinterpret_cast<__half*>(smem + Cfg::PIPE_BYTES);  // (BM,BN) col-major, ld LD_D

      // PROLOGUE: the first STAGES-1 k-tiles of the first tile.
#pragma unroll
      for (int s = 0; s < STAGES - 1; ++s) {
        copy_a.template copy_next<true>(sA + s * K::STAGE_BYTES_A);
        copy_b.template copy_next<true>(sB + s * K::STAGE_BYTES_B);
        ptx::cp_async_commit();
      }
      first_fragments();

      const int copy_switch = k_tiles - (STAGES - 1);  // k-tiles whose copies are this tile's
      for (;;) {
        // The copies after this tile's: the next tile's, or after the last tile this tile's
        // again (valid addresses; what they bring is never read).
        const int next = next_tile_slot(p, slot + int(gridDim.x));
        const TileCoord after = next < p.raster_slots ? raster_slot_tile(p, next) : tile;
        const int after_mt = shifted_origin(after.m * BM, p.m, BM);
        const int after_nt = shifted_origin(after.n * BN, p.n, BN);
        auto copy_after = [&] {
          copy_a.restart(p.m, p.k, after_mt, tid);
          copy_b.restart(p.n, p.k, after_nt, tid);
        };
        if (copy_switch == 0) copy_after();
        // MAINLOOP of one tile.
        for (int kt = 0; kt < k_tiles; ++kt) {
          k_tile(CopyModeC<CopyMode::inside>{});
          if (kt + 1 == copy_switch) copy_after();
        }

        // EPILOGUE of one tile: D staged as f16 (the last reads of s_d, the previous tile's
        // stores, were followed by the mainloop's barriers), a barrier, and the stores. With
        // alpha = 1 and beta = 0, D is the accumulator rounded to f16 once, as the general path
        // rounds 1 * acc, so that case skips the float round trip (f16 accumulators are stored
        // as they are): bit for bit the same D, a third of the epilogue's instructions.
        const auto stage_tile = [&](auto plain) {
          for_each_acc_element<MI, NI>(lane, [&](int mi, int ni, int i, int wrow, int wcol) {
            const int row = wm * WM + wrow;  // within the computed tile
            const int col = wn * WN + wcol;
            __half d;
            if constexpr (decltype(plain)::value) {
              d = to_half(acc[mi][ni].element(i));
            } else {
              float v = p.alpha * to_float(acc[mi][ni].element(i));
              if (p.beta != 0.f) {
                v = fmaf(p.beta, __half2float(p.c[int64_t(nt + col) * p.m + mt + row]), v);
              }
              d = __float2half_rn(v);
            }
            s_d[col * Cfg::LD_D + row] = d;
            if (i == 3) acc[mi][ni].clear();  // the fragment is staged: the next tile's starts
          });
        };
        if (p.alpha == 1.f && p.beta == 0.f) {
          stage_tile(std::true_type{});
        } else {
          stage_tile(std::false_type{});
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < K::STORE_PIECES; ++j) {
          const int id = j * THREADS + tid;
          const int mc = id % (BM / 8);
          const int sc = id / (BM / 8);
          const int m = mt + mc * 8;  // a multiple of 8 (M % 8 == 0): wholly owned or not
          const int n = nt + sc;
          const uint4 v = *reinterpret_cast<const uint4*>(s_d + sc * Cfg::LD_D + mc * 8);  // (8) D
          if (n >= n0 && m >= m0) {  // owned (the shifted edge tile's other rows/columns not)
            *reinterpret_cast<uint4*>(p.c + int64_t(n) * p.m + m) = v;  // (8) C(m..m+7, n)
          }
        }

        if (next >= p.raster_slots) break;
        slot = next;
        tile = after;
        m0 = tile.m * BM;
        n0 = tile.n * BN;
        mt = after_mt;
        nt = after_nt;
      }
      ptx::cp_async_wait<0>();  // leave no copy in flight into the shared memory of an exited CTA
      return;
    }
  } else {
    // B streaming (Cfg::B_STREAM): step kk's mma run in NB groups, group nb = every row block
    // against B block nb; B block nb + B_AHEAD (of this step, or of the next one) is loaded
    // into the ring slot group nb - 1 used, and A of the next step at group NB - B_AHEAD, the
    // first group whose prefetch reaches into the next step. At step KI-1 the barrier sits
    // there too: every read of k-tile kt was issued before it and every read of k-tile kt+1
    // after, so it frees k-tile kt's stage exactly as the barrier at the top of step KI-1 does
    // in the loop above.
    constexpr int BR = Cfg::B_RING, BD = Cfg::B_AHEAD;
    uint32_t b_ring[BR][4];  // (BR, 16 n x 16 k) B blocks in flight, block nb in slot nb % BR
    auto load_a = [&](int buf, int kk) {
      uint32_t a_base[K::OffA::kBases];
#pragma unroll
      for (int i = 0; i < K::OffA::kBases; ++i) a_base[i] = a_lane[i] + read_off_a;
      load_fragments<typename K::OffA, A_K_MAJOR, MI>(a_frag[buf], a_base, kk);
    };
    auto load_b = [&](int kk, int nb) {
      uint32_t b_base[K::OffB::kBases];
#pragma unroll
      for (int i = 0; i < K::OffB::kBases; ++i) b_base[i] = b_lane[i] + read_off_b;
      load_block<typename K::OffB, B_K_MAJOR>(b_ring[nb % BR], b_base, nb, kk);
    };

    if (k_tiles > 0) {
      ptx::cp_async_wait<STAGES - 2>();  // k-tile 0 landed (this thread's copies)
      __syncthreads();                   // ... and every other thread's
      load_a(0, 0);
#pragma unroll
      for (int nb = 0; nb < BD; ++nb) load_b(0, nb);
    }

    auto k_tile = [&](auto mode) {
#pragma unroll
      for (int kk = 0; kk < KI; ++kk) {
#pragma unroll
        for (int nb = 0; nb < NB; ++nb) {
          if (nb == 0) {
            // g2s, as in the loop above.
            if constexpr (SPREAD) {
              if (kk < KI - 1) copy_part(write_stage, kk + 1, KI, mode);
            } else if (kk == 0) {
              copy_whole_tile(mode);
            }
          }
          if (nb == NB - BD) {
            if (kk == KI - 1) {
              next_read_stage();
              if constexpr (SPREAD) copy_part(write_stage, 0, KI, mode);  // of k-tile kt+STAGES
            }
            load_a((kk + 1) % 2, (kk + 1) % KI);
          }
          // s2r: B block nb + BD, of this step or (past NB) of the next one.
          if (nb + BD < NB) {
            load_b(kk, nb + BD);
          } else {
            load_b((kk + 1) % KI, nb + BD - NB);
          }
          // mma group nb, serpentine over the two n8 tiles so consecutive mma share A within
          // a row block and B at the turn.
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
            for (int j = 0; j < 2; ++j) {
              const int h = (mi % 2 == 0) ? j : 1 - j;  // n8 tile within the block
              const uint32_t b[2] = {b_ring[nb % BR][2 * h], b_ring[nb % BR][2 * h + 1]};
              acc[mi][2 * nb + h].mma(a_frag[kk % 2][mi], b);
            }
          }
        }
      }
    };
    int kt = 0;
    for (; kt < inside_end; ++kt) k_tile(CopyModeC<CopyMode::inside>{});
    for (; kt < k_tiles; ++kt) k_tile(CopyModeC<CopyMode::predicated>{});
  }

  // ================================ EPILOGUE ================================
  // Stage the accumulators through shared memory (reusing the pipeline's), then write C along
  // M in 16-byte pieces: D = alpha * acc + beta * C in float, C read only when beta != 0.
  // Only empty groups (or the spread schedule's zero-filled copies of tiles past K) can be
  // pending, but leave none behind: the staging tile below overwrites the stages. The spread
  // schedule's last copies were issued after the last commit, so commit them first.
  if constexpr (SPREAD) ptx::cp_async_commit();
  ptx::cp_async_wait<0>();
  __syncthreads();                            // every warp is done with the pipeline stages
  AccT* s_c = reinterpret_cast<AccT*>(smem);  // (BM,SC) col-major, ld = Stage::kLd
  // 16-byte C pieces are aligned (mt too is then a multiple of 8) and wholly inside or outside
  // both the matrix and the rows this CTA owns.
  const bool c_vec = p.m % 8 == 0;
#pragma unroll
  for (int pass = 0; pass < K::PASSES; ++pass) {
    constexpr int NIP = NI / K::PASSES;
    for_each_acc_element<MI, NI>(
        lane,
        [&](int mi, int ni, int i, int wrow, int wcol) {
          s_c[K::Stage::staged_col(wn, wcol) * K::Stage::kLd + wm * WM + wrow] =
              acc[mi][ni].element(i);
        },
        pass * NIP, (pass + 1) * NIP);
    __syncthreads();
#pragma unroll
    for (int it = 0; it < K::STORE_ITERS; ++it) {
      const int id = it * THREADS + tid;
      const int mc = id % (BM / 8);
      const int sc = id / (BM / 8);
      const int m = mt + mc * 8;
      const int n = nt + K::Stage::cta_col(sc, pass);
      // Columns and whole pieces of rows the CTA does not own (computed for a shifted edge tile)
      // or outside the matrix are left alone.
      if (n < n0 || n >= p.n || m + 8 <= m0 || m >= p.m) continue;
      const AccT* src = s_c + sc * K::Stage::kLd + mc * 8;  // (8) staged accumulators along M
      float v[8];                                           // (8) alpha*acc [+ beta*C] along M
      if constexpr (sizeof(AccT) == 4) {
        const float4 lo = *reinterpret_cast<const float4*>(src);
        const float4 hi = *reinterpret_cast<const float4*>(src + 4);
        v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w;
        v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
      } else {
        const uint4 raw = *reinterpret_cast<const uint4*>(src);
        const __half* h = reinterpret_cast<const __half*>(&raw);
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = __half2float(h[e]);
      }
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] *= p.alpha;
      __half* dst = p.c + int64_t(n) * p.m + m;  // (8) C(m..m+7, n), M contiguous
      if (c_vec) {
        if (p.beta != 0.f) {
          const uint4 old = *reinterpret_cast<const uint4*>(dst);
          const __half* h = reinterpret_cast<const __half*>(&old);
#pragma unroll
          for (int e = 0; e < 8; ++e) v[e] = fmaf(p.beta, __half2float(h[e]), v[e]);
        }
        uint4 out;
        __half2* o = reinterpret_cast<__half2*>(&out);
#pragma unroll
        for (int e = 0; e < 4; ++e) o[e] = __floats2half2_rn(v[2 * e], v[2 * e + 1]);
        *reinterpret_cast<uint4*>(dst) = out;
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          if (m + e >= m0 && m + e < p.m) {
            const float r = p.beta != 0.f ? fmaf(p.beta, __half2float(dst[e]), v[e]) : v[e];
            dst[e] = __float2half_rn(r);
          }
        }
      }
    }
    if (pass + 1 < K::PASSES) __syncthreads();  // the next pass overwrites the staging tile
  }
}

// ---- host side ------------------------------------------------------------------------------

// What the problem must satisfy for layout L (the runner checked dtype/accum/layout already).
template <class Cfg, Layout L>
std::string ampere_supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX) {
    return "M, N and K must each fit in a 32-bit int";
  }
  if (a_is_k_major(L) && p.k % 8 != 0) {
    return "K must be a multiple of 8: A is K-contiguous here and its rows are copied in 16-byte "
           "(8 x f16) cp.async pieces";
  }
  if (!a_is_k_major(L) && p.m % 8 != 0) {
    return "M must be a multiple of 8: A is M-contiguous here and its columns are copied in "
           "16-byte (8 x f16) cp.async pieces";
  }
  if (b_is_k_major(L) && p.k % 8 != 0) {
    return "K must be a multiple of 8: B is K-contiguous here and its columns are copied in "
           "16-byte (8 x f16) cp.async pieces";
  }
  if (!b_is_k_major(L) && p.n % 8 != 0) {
    return "N must be a multiple of 8: B is N-contiguous here and its rows are copied in 16-byte "
           "(8 x f16) cp.async pieces";
  }
  // A persistent configuration runs on less (without its staging tile, see ampere_run).
  if (caps.smem_per_block_optin != 0 && caps.smem_per_block_optin < size_t(Cfg::PIPE_BYTES)) {
    return "needs " + std::to_string(Cfg::PIPE_BYTES / 1024) +
           " KB of shared memory per block, the device allows " +
           std::to_string(caps.smem_per_block_optin / 1024) + " KB";
  }
  const int tiles_n = int((p.n + Cfg::BN - 1) / Cfg::BN);
  if (raster_grid(1, tiles_n, raster_log_tile(tiles_n, kRasterMaxSwizzle)).y > 65535) {
    return "N is too large for the grid's y dimension (65535 CTA rows)";
  }
  return "";
}

// Whether the persistent schedule runs a problem: every tile inside M and N (after the edge
// shift), K whole k-tiles and at least STAGES-1 of them (so the prologue and every copy stay
// unpredicated and inside one tile or the next), and M % 8 == 0 (16-byte C pieces wholly owned or
// not). Other problems run the same tile without persistence: correct for any shape, and small or
// ragged problems are where a persistent grid gains least.
template <class Cfg>
bool persistent_fits(const AmpereParams& p) {
  return p.m >= Cfg::BM && p.n >= Cfg::BN && p.k % Cfg::BK == 0 &&
         p.k / Cfg::BK >= Cfg::STAGES - 1 && p.m % 8 == 0;
}

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
void ampere_run(const GemmArgs& args, cudaStream_t stream) {
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  const auto kernel = hgemm_ampere_kernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  const GemmProblem& pr = args.problem;
  AmpereParams p{};
  p.m = int(pr.m);
  p.n = int(pr.n);
  p.k = int(pr.k);
  if (p.m == 0 || p.n == 0) return;
  p.a = static_cast<const __half*>(args.a);
  p.b = static_cast<const __half*>(args.b);
  p.c = static_cast<__half*>(args.c);
  p.alpha = args.alpha;
  p.beta = args.beta;
  p.tiles_m = ceil_div(p.m, Cfg::BM);
  p.tiles_n = ceil_div(p.n, Cfg::BN);
  p.log_tile = raster_log_tile(p.tiles_n, kRasterMaxSwizzle);
  const RasterGrid g = raster_grid(p.tiles_m, p.tiles_n, p.log_tile);
  p.raster_x = g.x;
  p.raster_slots = g.x * g.y;
  if constexpr (Cfg::PERSISTENT) {
    if (!persistent_fits<Cfg>(p) || device_smem_per_block_optin() < size_t(K::SMEM_BYTES)) {
      // The same tile, one CTA per tile (see persistent_fits; or the device's shared memory
      // holds the pipeline but not the staging tile too).
      using NonPersistent = AmpereTile<Cfg::BM, Cfg::BN, Cfg::BK, Cfg::WARPS_M, Cfg::WARPS_N,
                                       Cfg::STAGES, Cfg::SCHED, false>;
      ampere_run<NonPersistent, A_K_MAJOR, B_K_MAJOR, AccT>(args, stream);
      return;
    }
  }
  // Opt in to > 48 KB of dynamic shared memory once per kernel (no allocation, nothing on the
  // timed path after the first call). A failure here shows up as the launch's error.
  static const bool configured = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::SMEM_BYTES);
    cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                         int(cudaSharedmemCarveoutMaxShared));
    return true;
  }();
  (void)configured;
  if constexpr (Cfg::PERSISTENT) {
    // As many CTAs as are resident at once (one wave), never more than there are tiles.
    static PerDevice<int> resident;
    const int wave = resident.get(
        [&](int dev) { return resident_ctas(kernel, Cfg::THREADS, K::SMEM_BYTES, dev); });
    int ctas = std::min(wave, p.tiles_m * p.tiles_n);
    if (args.test_max_ctas > 0) ctas = std::min(ctas, args.test_max_ctas);  // test-only
    kernel<<<unsigned(ctas), Cfg::THREADS, K::SMEM_BYTES, stream>>>(p);
  } else {
    kernel<<<dim3(unsigned(g.x), unsigned(g.y)), Cfg::THREADS, K::SMEM_BYTES, stream>>>(p);
  }
}

template <class Cfg, Layout L>
void ampere_launch(const GemmArgs& args, cudaStream_t stream) {
  constexpr bool a_k = a_is_k_major(L);
  constexpr bool b_k = b_is_k_major(L);
  if constexpr (Cfg::F32_ACC) {
    if (args.problem.accum == Accum::f32) {
      ampere_run<Cfg, a_k, b_k, float>(args, stream);
      return;
    }
  }
  ampere_run<Cfg, a_k, b_k, __half>(args, stream);  // the runner passes only declared accums
}

// Registry entry of one tile configuration in one layout; f16 accumulation native (seed 000's
// mma.sync ... f16.f16.f16.f16), f32 too where the warp tile's accumulators fit (F32_ACC).
template <class Cfg, Layout L>
KernelInfo ampere_kernel_info(std::string name, int rung, std::string summary) {
  std::vector<Accum> accums{Accum::f16};
  if (Cfg::F32_ACC) accums.push_back(Accum::f32);
  return KernelInfo{
      .name = std::move(name),
      .family = "hgemm",
      .rung = rung,
      .summary = std::move(summary),
      .dtypes = {DType::f16},
      .accums = std::move(accums),
      .layouts = {L},
      .min_sm = 80,
      .supports = ampere_supports<Cfg, L>,
      .launch = ampere_launch<Cfg, L>,
  };
}

}  // namespace gemmbench::hgemm
